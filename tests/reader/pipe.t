#!/usr/bin/env bash
# Cores that arrive through a pipe (docs/CLI.md, INPUT `-` and --coredump) and the recorder's
# path for LD_PRELOAD (--print-preload).
#   `cudainspect -`: a real core of crasher (a process holding a synthetic record) piped through
#   cat, and compressed through zstd -c, gives the same summary, fault view and JSON as the file,
#   byte for byte but for the input's name; a core of a process without the recorder the same
#   host-side report and exit 4; empty input, garbage, half a core, --max-core-size 1M, a
#   terminal on stdin and `--kernel-log -` with it say so with their exit codes.
#   `--coredump`: against tests/reader/coredumpctl-standin/coredumpctl, a stand-in that answers
#   as coredumpctl 252 does (the test machines run no systemd, so the real one has no journal to
#   read); the real coredumpctl is tried too when systemd runs with systemd-coredump.
#   `--print-preload`: the path exists and is what `record` preloads.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
FX=$B/tests/reader-input
[ -x "$CI" ] || skip_all "build/cudainspect is not built"
[ -x "$FX/crasher" ] || skip_all "the fixtures are not built (make test-deps)"
command -v zstd >/dev/null || skip_all "zstd is not installed"

# run ARGS... <STDIN: sets $out, $err, $rc
run() { out=$("$CI" "$@" 2>"$T/err"); rc=$?; err=$(cat "$T/err"); }

core=$(with_core "$FX/crasher" --threads=2 --crash=abort --launches=40 --allocs=6 --frees=2 --errors=2)
[ -n "$core" ] || skip_all "no core dump appeared (ulimit -c, core_pattern?)"
mv "$core" "$T/rec.core" && core=$T/rec.core # the next with_core writes $T/core again

# The same output for the file and for standard input, but for the input's name: the file's
# path where the pipe's output says "-", "standard input" or, in commands, CORE; and the lines
# that say what CORE is.
same() { # name "options" "view" pipe-command [file, default the core]
	local name=$1 opts=$2 view=$3 cmd=$4 file=${5:-$core} fout frc pout prc
	fout=$("$CI" $opts "$file" $view 2>&1); frc=$?
	pout=$(eval "$cmd" | "$CI" $opts - $view 2>&1); prc=$?
	is "$prc" "$frc" "$name: the same exit code ($frc)"
	pout=$(printf '%s\n' "$pout" | sed -e 's|"path":"-"|"path":"INPUT"|' -e 's|standard input|INPUT|g' \
		-e 's|cudainspect CORE |cudainspect INPUT |g' | grep -v '^  CORE: this core came from')
	fout=$(printf '%s\n' "$fout" | sed -e "s|$file|INPUT|g")
	is "$pout" "$fout" "$name: the same output as from the file"
}
same "summary through cat" "-q --width 1000" "" "cat \"$core\""
same "fault view through cat" "-q --width 1000" fault "cat \"$core\""
same "JSON through cat" "--json" "" "cat \"$core\""
zstd -q -c "$core" >"$T/core.zst"
same "summary through zstd -c" "-q --width 1000" "" "zstd -q -c \"$core\"" "$T/core.zst"
same "JSON through zstd -c" "--json" "" "zstd -q -c \"$core\"" "$T/core.zst"
same "summary of zstd -dc core.zst" "-q --width 1000" "" "zstd -q -dc \"$T/core.zst\""
run --json - <"$core"
is "$(printf '%s' "$out" | jq -r '.input.path + " " + .input.kind')" "- core" "JSON: input.path is - and the kind core"
run --json - <"$T/core.zst"
is "$(printf '%s' "$out" | jq -r .input.compressed)" true "JSON: a .zst on standard input is compressed"

# The summary's commands: nothing names a file that does not exist; CORE is explained.
run --width 100 - <"$core"
unlike "$out" "cudainspect (- [a-z]|/proc/self/fd)" "the summary suggests no 'cudainspect -' or /proc/self/fd command"
like "$out" "cudainspect CORE (fault|threads|errors|streams|all)" "... but 'cudainspect CORE VIEW'"
like "$out" "CORE: this core came from standard input" "... and says what CORE is"
like "$out" "tee core" "... and how to keep a copy"

# A core without the recorder: the host-side report and exit 4, as for the file.
nocore=$(with_core "$FX/crasher" --mode=none --crash=segv)
if [ -n "$nocore" ] && [ "$nocore" != "$core" ]; then
	cp "$nocore" "$T/nocore"
	"$CI" --width 1000 "$T/nocore" >"$T/norec.file" 2>/dev/null; frc=$?
	cat "$T/nocore" | "$CI" --width 1000 - >"$T/norec.pipe" 2>"$T/norec.err"; prc=$?
	is "$prc/$frc" "4/4" "no record: exit 4 from the pipe as from the file"
	is "$(sed "s|$T/nocore|INPUT|g" "$T/norec.file")" "$(sed 's|standard input|INPUT|g' "$T/norec.pipe")" \
		"no record: the same host-side report"
	cat "$T/nocore" | "$CI" --json - >"$T/norec.json" 2>/dev/null
	is "$(jq -r .input.path "$T/norec.json")" "-" "no record, JSON: input.path is -"
else
	skip "no second core"; skip "no second core"; skip "no second core"
fi

# Bad input on standard input: exit 3 and one line saying what it is.
bad() { # name expected-message-regex
	is "$rc" 3 "$1: exit 3"
	like "$err" "^cudainspect: $2" "$1: the message"
	is "$(printf '%s\n' "$err" | wc -l)" 1 "$1: one line"
}
run - </dev/null; bad "empty standard input" "standard input is empty: nothing came through the pipe"
head -c 100 /dev/urandom >"$T/garbage"
run - <"$T/garbage"; bad "100 bytes of garbage" "standard input is not a core dump or a cudainspect record file"
printf 'hello\n' >"$T/text"
run - <"$T/text"; bad "a line of text" "standard input is not a core dump .*a text file"
run --max-core-size 1M - <"$core"
bad "--max-core-size 1M" "standard input holds more than 1.0 MiB, the bound on a core read from a pipe \(--max-core-size\)"
run --max-core-size 1M - <"$T/core.zst"
is "$rc" 3 "--max-core-size 1M, a .zst on standard input: exit 3"
like "$err" "more than 1.0 MiB" "... saying the bound"
# Half a core: read as far as it goes, as the same half in a file is (docs/CLI.md: a truncated
# core exits 0 with a warning when the record is in the part that is there, else 4).
size=$(stat -c %s "$core")
head -c $((size / 2)) "$core" >"$T/half"
"$CI" --width 1000 "$T/half" >"$T/half.file" 2>"$T/half.ferr"; frc=$?
head -c $((size / 2)) "$core" | "$CI" --width 1000 - >"$T/half.pipe" 2>"$T/half.perr"; prc=$?
ok "half a core: not a crash (exit $prc)" test "$prc" -lt 5
is "$prc" "$frc" "half a core: the exit code of the same half in a file ($frc)"
is "$(sed 's|standard input|INPUT|g' "$T/half.perr")" "$(sed "s|$T/half|INPUT|g" "$T/half.ferr")" \
	"half a core: the same message"
"$CI" --json "$T/half" 2>/dev/null | sed -e "s|\"path\":\"$T/half\"|\"path\":\"-\"|" -e "s|$T/half|standard input|g" >"$T/half.fjson"
head -c $((size / 2)) "$core" | "$CI" --json - >"$T/half.json" 2>/dev/null
is "$(cat "$T/half.json")" "$(cat "$T/half.fjson")" "half a core: the same JSON as the file's"

# Usage: standard input twice, a terminal.
run --kernel-log - - <"$core"
is "$rc" 2 "INPUT - with --kernel-log -: exit 2"
like "$err" "both read standard input" "... saying why"
if command -v script >/dev/null; then
	script -qec "$CI -" /dev/null </dev/null >"$T/tty.out" 2>&1; trc=$?
	is "$trc" 2 "a terminal on standard input: exit 2"
	like "$(cat "$T/tty.out")" "standard input is a terminal; pipe a core into it" "... saying so"
	# Progress: only past 256 MiB, only on a terminal (300 MiB of zeros: holes, read quickly).
	script -qec "sh -c 'head -c 314572800 /dev/zero | \"$CI\" -'" /dev/null </dev/null >"$T/progress.out" 2>&1
	like "$(tr '\r' '\n' <"$T/progress.out")" "cudainspect: reading standard input: 256\.0 MiB" \
		"300 MiB on a pipe, stderr a terminal: progress on stderr"
	head -c 314572800 /dev/zero | "$CI" - >/dev/null 2>"$T/noprogress.err"
	unlike "$(cat "$T/noprogress.err")" "reading standard input" "... and none when stderr is not a terminal"
else
	for i in 1 2 3 4; do skip "script(1) is not installed"; done
fi
# The kernel log kept beside a core is not looked for as '-.kernel-log'.
(cd "$T" && printf 'not a log\n' >./-.kernel-log && "$CI" -q - <"$core" >/dev/null 2>"$T/beside.err")
unlike "$(cat "$T/beside.err")" "kernel log" "no '-.kernel-log' is read beside standard input"

# --coredump through the stand-in.
STANDIN=$TOP/tests/reader/coredumpctl-standin
cd_run() { out=$(PATH="$STANDIN:$PATH" FAKE_CORE=$core FAKE_ARGV=$T/argv "$CI" "$@" 2>"$T/err"); rc=$?; err=$(cat "$T/err"); }
cd_run --width 1000 -q --coredump 4242
is "$rc" 0 "--coredump 4242: exit 0"
is "$(cat "$T/argv" | tr '\n' ' ')" "--no-pager -1 dump -- 4242 " "coredumpctl ran as: coredumpctl --no-pager -1 dump -- 4242"
is "$(printf '%s\n' "$out" | head -1)" \
	"coredump: pid 4242 (crasher), /srv/crasher, signal 6 (ABRT), at Thu 2024-05-02 10:00:00 UTC (3s ago)" \
	"the crash in one line before the report"
is "$(printf '%s\n' "$out" | tail -n +2)" "$("$CI" -q --width 1000 "$core" | sed "s|$core|--coredump 4242|g")" \
	"... then the report of the core, its commands naming --coredump 4242"
like "$out" "cudainspect --coredump 4242 (fault|threads|errors|streams|all)" "the suggested commands can be run"
cd_run --json --coredump 4242
ok "--coredump --json: the document alone on stdout" jq -e .version <<<"$out"
like "$err" "^coredump: pid 4242" "... the crash line on stderr"
is "$(jq -r .input.path <<<"$out")" "coredump 4242" "... input.path names the coredump"
cd_run --width 200 --coredump 'my prog'
like "$out" "cudainspect --coredump 'my prog' " "a match with a space is quoted in the commands"
FAKE_MODE=nomatch cd_run --coredump 999
is "$rc" 3 "no match: exit 3"
like "$err" "^cudainspect: --coredump 999: no core dump that systemd-coredump recorded matches it \(coredumpctl: No match found\.\)" "no match: the message"
FAKE_MODE=none cd_run --coredump 4242
is "$rc" 3 "Storage: none: exit 3"
like "$err" "did not keep its core \(Storage: none\)" "Storage: none: the message"
FAKE_MODE=missing cd_run --coredump 4242
is "$rc" 3 "a core file that is gone: exit 3"
like "$err" "is gone .*\(missing\)" "... the message"
FAKE_MODE=truncated FAKE_CORE=$T/half cd_run -q --coredump 4242
ok "a truncated core: read (exit $rc)" test "$rc" -eq 0 -o "$rc" -eq 4
like "$out" "^coredump: pid 4242.*stored truncated" "... the crash line says it was stored truncated"
FAKE_CORE=$core cd_run --max-core-size 1M --coredump 4242
is "$rc" 3 "--coredump with --max-core-size 1M: exit 3"
like "$err" "coredump 4242 holds more than 1.0 MiB" "... saying the bound"
out=$(PATH=/nonexistent "$CI" --coredump 4242 2>&1); rc=$?
is "$rc" 3 "no coredumpctl on PATH: exit 3"
like "$out" "^cudainspect: --coredump needs systemd's coredumpctl, which is not on PATH" "... the message"
run --coredump 1 --pid 1
is "$rc" 2 "--coredump with --pid: usage error"
run --coredump 1 core
is "$rc" 2 "--coredump with an INPUT file: usage error"

# The real coredumpctl, where systemd runs with systemd-coredump as the core handler.
state=$(systemctl is-system-running 2>/dev/null)
if ! command -v coredumpctl >/dev/null; then
	skip "the real coredumpctl: not installed (apt install systemd-coredump)"
elif [ "$state" != running ] && [ "$state" != degraded ]; then
	skip "the real coredumpctl: systemd is not running here (is-system-running: ${state:-nothing})"
elif ! grep -q systemd-coredump /proc/sys/kernel/core_pattern; then
	skip "the real coredumpctl: cores do not go to systemd-coredump (core_pattern: $(cat /proc/sys/kernel/core_pattern))"
else
	"$FX/crasher" --threads=2 --crash=abort --launches=40 >/dev/null 2>&1 &
	cpid=$!
	wait "$cpid"
	wait_for 30 sh -c "coredumpctl --no-pager -q info $cpid 2>/dev/null | grep -q Storage"
	out=$("$CI" -q --coredump "$cpid" 2>&1); rc=$?
	is "$rc" 0 "the real coredumpctl: --coredump $cpid reads the crasher's core"
	[ "$rc" -eq 0 ] || diag "$out"
fi

# --print-preload: the recorder `record` preloads.
run --print-preload
is "$rc" 0 "--print-preload: exit 0"
is "$(printf '%s\n' "$out" | wc -l)" 1 "... one line"
ok "... an absolute path that exists" test -f "$out" -a "${out#/}" != "$out"
is "$out" "$(cd "$B" && pwd -P)/libcudainspect-rec.so" "... the build tree's recorder"
# (An ASan-built recorder cannot be preloaded into an uninstrumented sh: not under check-asan.)
asan=${CI_SANITIZE:+an ASan-built recorder cannot be preloaded into an uninstrumented program}
if [ -z "$asan" ]; then
	rec=$("$CI" record --no-core -q -- sh -c 'printf %s "$LD_PRELOAD"')
	is "${rec%%:*}" "$out" "record preloads the same library"
else
	skip "$asan"
fi
# Installed: bin/cudainspect finds lib/libcudainspect-rec.so.
if make -s -C "$TOP" BUILD="$B" PREFIX="$T/prefix" install-cli install-recorder >"$T/install.log" 2>&1; then
	out=$("$T/prefix/bin/cudainspect" --print-preload); rc=$?
	is "$rc/$out" "0/$(cd "$T/prefix" && pwd -P)/lib/libcudainspect-rec.so" "installed: --print-preload names PREFIX/lib's recorder"
	if [ -z "$asan" ]; then
		rec=$("$T/prefix/bin/cudainspect" record --no-core -q -- sh -c 'printf %s "$LD_PRELOAD"')
		is "${rec%%:*}" "$out" "installed: record preloads the same library"
	else
		skip "$asan"
	fi
else
	skip "make install failed: $(tail -1 "$T/install.log")"; skip "make install failed"
fi
# A cudainspect with no recorder beside it or in ../lib: exit 3.
mkdir -p "$T/alone/bin" && cp "$CI" "$T/alone/bin/"
out=$("$T/alone/bin/cudainspect" --print-preload 2>&1); rc=$?
is "$rc" 3 "no recorder to be found: exit 3"
like "$out" "^cudainspect: cannot find libcudainspect-rec.so next to cudainspect or in \.\./lib" "... the message"
done_testing
