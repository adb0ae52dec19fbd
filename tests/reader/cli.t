#!/usr/bin/env bash
# The `cudainspect` command line: usage errors, exit codes and messages on good and bad inputs
# (docs/CLI.md), every view, JSON, zstd and truncated cores, gcore and a live pid.  Inputs come
# from the input side's fixtures: mkrecord writes synthetic record files (with chosen damage),
# crasher is a real process holding a synthetic record that crashes or hangs.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
FX=$B/tests/reader-input
[ -x "$CI" ] || skip_all "build/cudainspect is not built"

# run ARGS...: sets $out, $err, $rc
run() { out=$("$CI" "$@" 2>"$T/err"); rc=$?; err=$(cat "$T/err"); }
one_line_error() { # the error is one "cudainspect: " line (plus "Try" for usage errors)
	[ -n "$err" ] && [ "${err#cudainspect: }" != "$err" ] && ! printf '%s' "$err" | grep -q 'AddressSanitizer\|runtime error'
}

run --help
is "$rc" 0 "--help exits 0"
like "$out" 'cudainspect \[OPTIONS\] INPUT \[VIEW\]' "--help shows the synopsis"
like "$out" 'Exit status: 0 report printed, 1 internal error, 2 usage error, 3 input' "--help lists the exit codes"
is "$(printf '%s\n' "$out" | awk 'length > 80' | wc -l)" 0 "--help fits 80 columns"
run --version
is "$out" "cudainspect 0.1.0" "--version"

usage() { # name args...
	local name=$1; shift
	run "$@"
	is "$rc" 2 "usage error exits 2: $name"
	like "$err" "^cudainspect: .*
Try 'cudainspect --help'\.$" "usage error says what and where to look: $name"
}
usage "no input"
usage "unknown view" core nosuchview
usage "unknown option" --bogus core
usage "missing argument" core --last
usage "bad count" --last 0 core
usage "bad width" --width 5 core
usage "bad color" --color=sometimes core
usage "bad pid" --pid abc
usage "too many arguments" a b c
usage "pid and input" --pid 1 core kernels
usage "bad signal" --signal SIGNOPE core
usage "signal number out of range" --signal 999 core
usage "signal thread without a signal" --signal-thread 5 core
usage "bad hints style" --hints=emacs core
run record
is "$rc" 2 "record without a command exits 2"

bad_input() { # name file
	run "$2"
	is "$rc" 3 "exit 3 for $1"
	ok "one clear error line for $1" one_line_error
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || diag "$err"
}
run "$T/missing"
is "$rc" 3 "a missing file exits 3"
like "$err" "^cudainspect: .*missing" "... and names the file"
: >"$T/empty"; bad_input "an empty file" "$T/empty"
head -c 65536 /dev/urandom >"$T/random"; bad_input "random bytes" "$T/random"
printf 'hello, not a core\n' >"$T/text"; bad_input "a text file" "$T/text"
bad_input "an executable, not a core" "$CI"

[ -x "$FX/mkrecord" ] && [ -x "$FX/crasher" ] || { skip "fixtures not built"; done_testing; exit; }

"$FX/mkrecord" --major=9 "$T/v9.cisnap"
run "$T/v9.cisnap"
is "$rc" 3 "an unknown record format version exits 3"
like "$err" "version 9" "... and names the version"
"$FX/mkrecord" --damage=dir "$T/dir.cisnap"
run "$T/dir.cisnap"
is "$rc" 3 "a corrupt section directory exits 3"
ok "... with one clear line" one_line_error
for d in misaligned overlap past-end entry-size refs stack seq dup unknown-section; do
	"$FX/mkrecord" --damage=$d --launches=30 --allocs=8 --frees=3 --errors=3 "$T/d.cisnap"
	run "$T/d.cisnap" all
	ok "damaged sections ($d): the report is still made" test "$rc" -eq 0
	run --json "$T/d.cisnap"
	printf '%s' "$out" | jq -e .version >/dev/null 2>&1
	ok "damaged sections ($d): the JSON is valid" test $? -eq 0 -a "$rc" -eq 0
done

# A real core of a process that holds a record, and one without.
core=$(with_core "$FX/crasher" --threads=2 --crash=abort --launches=40 --allocs=6 --frees=2 --errors=2)
[ -n "$core" ] || { skip "no core dump appeared (ulimit/core_pattern?)"; done_testing; exit; }
# The same core claiming to be 32-bit: refused.
cp "$core" "$T/class32" && printf '\001' | dd of="$T/class32" bs=1 seek=4 conv=notrunc 2>/dev/null
bad_input "an ELF core of the wrong class" "$T/class32"
run "$core"
is "$rc" 0 "a core with a record: exit 0"
like "$out" "Signal +SIGABRT received by thread [0-9]+ \"rec-main\"" "the signal and the thread's record name"
like "$out" "#[0-9]+ +main \(crasher\.c:[0-9]+\)" "the crashed thread's backtrace reaches main in crasher.c"
for v in summary fault contexts streams kernels allocs errors threads all; do
	run "$core" $v
	ok "view $v on a core: exit 0" test "$rc" -eq 0 -a -n "$out"
done
run "$core" threads
is "$(printf '%s\n' "$out" | grep -c '^thread ')" 3 "threads: all three threads are unwound"
run --json "$core"
is "$(printf '%s' "$out" | jq -r '.threads | length')" 3 "JSON lists three threads"
is "$(printf '%s' "$out" | jq -r '[.threads[] | select(.crashed)] | length')" 1 "exactly one crashed thread"
is "$(printf '%s' "$out" | jq -r '.input.kind')" core "input.kind core"
summary=$("$CI" -q --width 1000 "$core")

# Options that a view does not use are refused, not ignored; filters that name nothing the
# record knows are errors that say so, not empty tables.
filter_error() { # name regex args...
	local name=$1 re=$2; shift 2
	run "$@"
	is "$rc" 2 "$name: exit 2"
	like "$err" "^cudainspect: $re" "$name: says why"
	is "$out" "" "$name: prints no report"
}
filter_error "--stream on the summary" "--stream applies to the streams and kernels views" "$core" --stream 0x1
filter_error "--last on the errors view" "--last applies to the kernels, allocs and nccl views" "$core" errors --last 3
filter_error "--freed on the kernels view" "--freed applies to the allocs view" "$core" kernels --freed
filter_error "--kernel on the streams view" "--kernel applies to the kernels view" "$core" streams --kernel k
filter_error "an unknown stream" "--stream 0x1234: the record has no stream with that handle or id \(it has 0x" \
	"$core" kernels --stream 0x1234
filter_error "an unknown thread" "--thread 4: no thread 4 made a CUDA call" "$core" kernels --thread 4
filter_error "an unknown kernel" "--kernel 'no_such_kernel': no kernel the record knows" "$core" kernels \
	--kernel no_such_kernel
stream=$("$CI" --json "$core" | jq -r '.streams[0].handle')
run "$core" streams --stream "$stream"
is "$(printf '%s\n' "$out" | grep -c '^  [^ ]')" 1 "streams --stream S shows that stream only"
run "$core" --hints=gdb
like "$out" "
  cuda (fault|threads|errors|streams)( |$)" "--hints=gdb: the suggestions are cuda commands"
unlike "$out" "cudainspect $core" "--hints=gdb: no cudainspect command lines"

cp "$core" "$T/core.copy" && zstd -q -f "$T/core.copy" -o "$T/core.zst"
run -q --width 1000 "$T/core.zst"
is "$rc" 0 "a zstd-compressed core: exit 0"
is "$out" "$(printf '%s' "$summary" | sed "s|$core|$T/core.zst|g")" "... and the same summary as the plain core"
run --json "$T/core.zst"
is "$(printf '%s' "$out" | jq -r .input.compressed)" true "input.compressed"

size=$(stat -c %s "$core")
head -c $((size * 3 / 4)) "$core" >"$T/core.trunc"
run "$T/core.trunc"
ok "a truncated core does not crash the reader (exit $rc)" test "$rc" -lt 128
ok "... and says what happened" test -n "$out$err"

nocore=$(with_core "$FX/crasher" --mode=none --crash=segv)
if [ -n "$nocore" ] && [ "$nocore" != "$core" ]; then
	run "$nocore"
	is "$rc" 4 "a core of a process without the recorder exits 4"
	like "$err" "^cudainspect: .*(recorder|record)" "... and says there is no record"
else
	skip "no second core"
fi

# gcore and a live pid of a hung process.
"$FX/crasher" --threads=2 --crash=hang --launches=20 >"$T/hang.out" &
hpid=$!
wait_for 60 grep -q ready "$T/hang.out"
run --pid "$hpid"
is "$rc" 0 "--pid on a live process: exit 0"
like "$out" "Signal +none: the process is alive" "--pid says the process is alive"
run --pid "$hpid" threads
is "$(printf '%s\n' "$out" | grep -c '^thread ')" 3 "--pid threads: every thread unwound"
like "$out" "rec-worker-1" "--pid threads: thread names"
# A debugger holding the process knows the signal it stopped at: --signal, --signal-thread.
wtid=$(for t in /proc/$hpid/task/*; do [ "$(cat "$t/comm")" = ci-worker-1 ] && basename "$t"; done)
run --pid "$hpid" --signal SIGSEGV --signal-thread "$wtid"
like "$out" "Signal +SIGSEGV received by thread $wtid \"rec-worker-1\" \(the process is alive, stopped at it\)" \
	"--signal SIGSEGV --signal-thread TID: the summary names the signal and the thread"
run --json --pid "$hpid" --signal 11 --signal-thread "$wtid"
is "$(printf '%s' "$out" | jq -r '[.process.signal, .process.signal_name, .process.crashed_thread] | join(" ")')" \
	"11 SIGSEGV $wtid" "--signal 11 in the JSON: signal, name, crashed thread"
run --pid "$hpid" --signal abrt --signal-thread 1
is "$rc" 2 "--signal-thread of a thread the process does not have: exit 2"
like "$err" "the input has no thread 1" "... and says so"
if gdb -nx -batch -p "$hpid" -ex "gcore $T/gcore" >/dev/null 2>&1 && [ -s "$T/gcore" ]; then
	run "$T/gcore"
	is "$rc" 0 "a gcore: exit 0"
	run --json "$T/gcore"
	is "$(printf '%s' "$out" | jq -r .input.kind)" gcore "input.kind gcore"
	is "$(printf '%s' "$out" | jq -r .process.signal)" null "a gcore has no fatal signal"
else
	skip "gdb could not write a gcore"
fi
kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null
done_testing
