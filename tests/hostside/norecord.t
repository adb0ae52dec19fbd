#!/usr/bin/env bash
# Cores of CUDA programs that ran WITHOUT the recorder (corefile/hostside.c): `cudainspect CORE`
# still exits 4 with its "no flight record" message, and first prints what the host side shows.
# Real kernel cores of tests/hostside/assertprobe (a CUDA call fails, assert() aborts, a second
# thread waits in the driver) and throwprobe (a C++ exception nothing catches: std::terminate)
# on the simulated driver.  Expectations come from the programs themselves (the assertion and
# terminate lines they print on stderr, the message the test plants), from GDB's backtrace of
# the same core, and from the file name the test gives the driver.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
for f in cudainspect sim/libcuda.so.1 tests/hostside/assertprobe tests/hostside/throwprobe; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built (make check builds it)"
done
# Kernel cores where core_pattern writes them here; else GDB's gcore of the process stopped at
# its fatal signal (the same notes: NT_SIGINFO, the threads, the file mappings), said once.
kernel_cores=false
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] && kernel_cores=true
if ! $kernel_cores; then
	command -v gdb >/dev/null || skip_all "kernel.core_pattern is not 'core' and there is no gdb for gcore"
	diag "kernel.core_pattern is not 'core': the cores are GDB's gcore of the process at its fatal signal"
fi
unset CUDASIM_FAULT CUDASIM_HANG CUDAINSPECT_SNAPSHOT_DIR CUDAINSPECT_DIR LD_PRELOAD
AP=$B/tests/hostside/assertprobe TP=$B/tests/hostside/throwprobe

# crash DIR LIBDIR CMD...: run CMD in DIR with core dumps on, the driver from LIBDIR.
crash() {
	local dir=$1 lib=$2
	shift 2
	mkdir -p "$dir"
	if $kernel_cores; then
		{ ( cd "$dir" && ulimit -c unlimited && LD_LIBRARY_PATH=$lib exec "$@" ) >"$dir/out" 2>"$dir/err"; } 2>/dev/null
	else
		( cd "$dir" && LD_LIBRARY_PATH=$lib gdb -nx -batch -ex 'set debuginfod enabled off' \
			-ex 'set startup-with-shell off' -ex run -ex "gcore $dir/core" --args "$@" ) >"$dir/out" 2>"$dir/err"
	fi
	true
}

# ---- assert() after a failed CUDA call -----------------------------------------------------
crash "$T/a" "$B/sim" "$AP"
core=$T/a/core
[ -e "$core" ] || skip_all "assertprobe left no core"
"$CI" --width 10000 "$core" >"$T/a.txt" 2>"$T/a.err"
is "$?" 4 "exit code 4: no flight record, as before"
like "$(cat "$T/a.err")" "holds no cudainspect flight record" "... with the reader's message on stderr"
out=$(cat "$T/a.txt")
like "$(head -1 "$T/a.txt")" "^No flight record: assertprobe \(pid [0-9]+\) ran without the cudainspect recorder\.$" \
	"stdout first says what kind of core this is"
like "$out" "Crash: SIGABRT \(Aborted\) in thread [0-9]+" "the crash: the signal and the thread"
assertion=$(grep 'Assertion' "$T/a/err")
is "$(sed -n 's/^  abort message: //p' "$T/a.txt")" "$assertion" \
	"glibc's abort message is the assertion line the program printed"
like "$out" "#[0-9]+ +main \(assertprobe\.c:[0-9]+\) in assertprobe" "the backtrace reaches main, with its line"
# The thread in the driver, as GDB sees it: the frame below waiter in that thread's backtrace.
if command -v gdb >/dev/null; then
	gdb -nx -batch -ex 'set debuginfod enabled off' -ex 'thread apply all bt' "$AP" "$core" >"$T/gdb.txt" 2>/dev/null
	want=$(awk '/^#[0-9]+ / { fn = ($3 == "in") ? $4 : $2; if (fn == "waiter") { print prev; exit } prev = fn }' "$T/gdb.txt")
	like "$out" "thread [0-9]+: $want \([a-z_]+\.c:[0-9]+\) in libcuda\.so\.1" \
		"the thread waiting in the driver: in $want, GDB's frame below waiter"
else
	skip "no gdb"
fi
like "$out" "    called from waiter \(assertprobe\.c:[0-9]+\) in assertprobe" "... called from the program's waiter"
like "$out" "1 thread of libcuda\.so\.1 itself: [0-9]+" "the driver's own worker thread, counted apart"
like "$out" "CUDA libraries loaded:
  libcuda\.so\.1 \(CUDA driver\)" "the CUDA library loaded"
like "$out" "Driver version: unknown \(no library file name of the driver gives it\)" \
	"libcuda.so.1 itself gives no driver version"
is "$(sed -n '/^Next time/{n;s/^  //p;}' "$T/a.txt")" "cudainspect record -- $AP" "what to run next time"
"$CI" --width 80 "$core" >"$T/a80.txt" 2>/dev/null
is "$(wc -l <"$T/a80.txt" | awk '$1 <= 40 { print "ok" }')" ok "at 80 columns the report stays within 40 lines"
is "$(grep -v '^  cudainspect record -- ' "$T/a80.txt" | awk 'length > 80' | wc -l)" 0 \
	"... and within 80 columns (the abort message wrapped; only the command to copy is not)"
like "$(tr -s '\n ' '  ' <"$T/a80.txt")" "abort message: $(printf '%s' "$assertion" | sed 's/[][\.*^$()+?{}|]/\\&/g')" \
	"... the wrapped abort message is still the assertion, word for word"

# JSON: the same, with the reader's message inside; still exit 4.
"$CI" --json "$core" >"$T/a.json" 2>/dev/null
is "$?" 4 "--json: exit code 4"
is "$(jq -r '[.version, (.record == null), .input.kind] | @tsv' "$T/a.json")" "6	true	core" "--json: schema 6, no record, a core"
is "$(jq -r .host_side.abort_message "$T/a.json")" "$assertion" "--json: the abort message"
like "$(jq -r .no_flight_record "$T/a.json")" "holds no cudainspect flight record" "--json: the reason"
is "$(jq -r '.host_side.threads[0].crashed, .host_side.signal.name' "$T/a.json" | tr '\n' ' ')" "true SIGABRT " \
	"--json: the crashed thread first, the signal"
is "$(jq -r '[.host_side.threads[] | select(.cuda_call != null and (.cuda_call.library_thread | not))] | length' "$T/a.json")" 1 \
	"--json: one thread of the program in a CUDA call"

# ---- the driver's version, from the file name of the libcuda it mapped ----------------------
mkdir -p "$T/drv"
cp "$B/sim/libcuda.so.1" "$T/drv/libcuda.so.580.65.06"
ln -s libcuda.so.580.65.06 "$T/drv/libcuda.so.1"
crash "$T/v" "$T/drv" "$AP"
out=$("$CI" "$T/v/core" 2>/dev/null)
like "$out" "libcuda\.so\.580\.65\.06 \(CUDA driver 580\.65\.06\)" "a driver named libcuda.so.580.65.06 (libcuda.so.1 links to it): listed"
like "$out" "Driver version: 580\.65\.06 \(from libcuda's file name\)" "... and its version is the driver's"
is "$("$CI" --json "$T/v/core" 2>/dev/null | jq -r '.host_side.driver_version, (.host_side.cuda_libraries[] | select(.family == "CUDA driver") | .path)' | tr '\n' ' ')" \
	"580.65.06 $T/drv/libcuda.so.580.65.06 " "--json: driver_version, and the library by the path the core maps"

# ---- a C++ exception through std::terminate --------------------------------------------------
planted="p$$ it's kv" # short: the core keeps 80 bytes of the command line
$kernel_cores || planted="p$$" # GDB's run quotes arguments its own way
crash "$T/t" "$B/sim" "$TP" "$planted"
[ -e "$T/t/core" ] || { diag "throwprobe left no core"; done_testing; exit; }
"$CI" --width 10000 "$T/t/core" >"$T/t.txt" 2>/dev/null
is "$?" 4 "C++: exit code 4"
type=$(sed -n "s/^terminate called after throwing an instance of '\(.*\)'$/\1/p" "$T/t/err")
what=$(sed -n 's/^  what():  //p' "$T/t/err")
is "$type" "engine::cuda_error" "(the program's terminate handler names the type)"
is "$(sed -n 's/^  C++ exception in flight at std::terminate: //p' "$T/t.txt")" "$type" \
	"the exception's type, read from the core, as the terminate handler printed it"
is "$(sed -n 's/^    what(): //p' "$T/t.txt")" "$what" "its what(), the planted message, as printed"
like "$what" "^$planted failed: error 2$" "(what() is the test's planted text)"
like "$(cat "$T/t.txt")" "#[0-9]+ +__cxa_throw in libstdc\+\+" "the backtrace shows the throw"
is "$("$CI" --json "$T/t/core" 2>/dev/null | jq -r '.host_side.exception | [.type, .what] | @tsv')" "$type	$what" \
	"--json: the exception's type and what()"
# The command for next time is shell-quoted: word by word it gives back the command line.
cmd=$(sed -n '/^Next time/{n;s/^  //p;}' "$T/t.txt")
if $kernel_cores; then
	eval "set -- ${cmd#cudainspect record -- }"
	is "$# $1 $3" "4 $TP it's" "the next-time command is shell-quoted (a word with a quote survives)"
else
	is "$cmd" "cudainspect record -- $TP $planted" "the next-time command"
fi

# std::terminate() called with no exception: said so, no type claimed.
crash "$T/n" "$B/sim" "$TP" --terminate
"$CI" "$T/n/core" >"$T/n.txt" 2>/dev/null
like "$(cat "$T/n.txt")" "  std::terminate with no C\+\+ exception in flight \(not an uncaught exception\)" \
	"std::terminate() without an exception: said so"
unlike "$(cat "$T/n.txt")" "exception in flight at std::terminate:" "... and no exception type is claimed"

# A segmentation fault: the signal with the faulting address, nothing about terminate.
crash "$T/s" "$B/sim" "$TP" --segv
"$CI" "$T/s/core" >"$T/s.txt" 2>/dev/null
like "$(cat "$T/s.txt")" "Crash: SIGSEGV \(Segmentation fault\) at address 0x10 in thread [0-9]+" "SIGSEGV: the signal and the address written to"
like "$(cat "$T/s.txt")" "#0  +main \(throwprobe\.cc:[0-9]+\) in throwprobe" "... in main, frame #0"
unlike "$(cat "$T/s.txt")" "terminate|abort message" "... and no abort message or exception claimed"
is "$("$CI" --json "$T/s/core" 2>/dev/null | jq -r '.host_side.signal | [.name, .fault_address_hex] | @tsv')" "SIGSEGV	0x10" \
	"--json: the signal and its address"

# ---- an engine that aborts after its own CUDA error check (no abort message) -----------------
if [ -x "$B/miniengine" ] && $kernel_cores; then
	crash "$T/m" "$B/sim" "$B/miniengine" --fault oob --quiet
	"$CI" "$T/m/core" >"$T/m.txt" 2>/dev/null
	is "$?" 4 "miniengine without the recorder: exit code 4"
	out=$(cat "$T/m.txt")
	like "$(cat "$T/m/err")" "CUDA error: CUDA_ERROR_ILLEGAL_ADDRESS" "(the engine printed its CUDA error and aborted)"
	unlike "$out" "abort message:" "a plain abort() after the engine's own message: no abort message claimed"
	like "$out" "#[0-9]+ +engine_cuda_fail \(engine\.c:[0-9]+\) in miniengine" "the crashing thread's backtrace reaches the engine's check"
	first=$(grep -m1 -E '^  thread [0-9]+: ' "$T/m.txt")
	if [ -z "$first" ]; then
		# Whether another worker is still waiting in the driver when one aborts is timing.
		for _ in 1 2 3; do skip "no thread of the engine was inside the driver at the crash this time"; done
	else
		tid=$(printf '%s\n' "$first" | sed -E 's/^  thread ([0-9]+).*/\1/') fn=$(printf '%s\n' "$first" | sed -E 's/^  thread [0-9]+[^:]*: ([^ ]+) .*/\1/')
		like "$first" "in libcuda\.so\.1$" "a thread of the engine inside the driver: $first"
		if command -v gdb >/dev/null; then
			gdb -nx -batch -ex 'set debuginfod enabled off' -ex 'thread apply all bt' "$B/miniengine" "$T/m/core" >"$T/mgdb.txt" 2>/dev/null
			block=$(awk -v t="(LWP $tid))" 'index($0, t) { on = 1; next } /^Thread / { on = 0 } on' "$T/mgdb.txt")
			like "$block" " $fn " "... GDB's backtrace of LWP $tid shows $fn too"
		else
			skip "no gdb"
		fi
		like "$out" "    called from [a-z_]+ \(miniengine\.c:[0-9]+\) in miniengine" "... called from the engine"
	fi
else
	for _ in 1 2 3 4 5 6 7; do skip "miniengine is not built, or no kernel cores (under GDB its threads stop elsewhere)"; done
fi

# ---- a core with a record is not affected ----------------------------------------------------
crash "$T/r" "$B/sim" env LD_PRELOAD="$B/libcudainspect-rec.so" CUDAINSPECT_QUIET=1 "$AP"
"$CI" "$T/r/core" >"$T/r.txt" 2>&1
unlike "$(cat "$T/r.txt")" "No flight record:" "a core with a record: the record's report, not the host-side one"

# ---- the recorder was loaded, but its record is a persistent file the core does not hold ------
mkdir -p "$T/pdir" && chmod 700 "$T/pdir"
crash "$T/p" "$B/sim" env LD_PRELOAD="$B/libcudainspect-rec.so" CUDAINSPECT_QUIET=1 CUDAINSPECT_DIR="$T/pdir" "$AP"
if [ -e "$T/p/core" ]; then
	"$CI" --width 10000 "$T/p/core" >"$T/p.txt" 2>/dev/null
	like "$(head -1 "$T/p.txt")" "^No flight record: assertprobe \(pid [0-9]+\) had the cudainspect recorder loaded, but the core holds no record" \
		"persistent record outside the core: not called a run without the recorder"
else
	skip "assertprobe left no core with a persistent record"
fi
done_testing
