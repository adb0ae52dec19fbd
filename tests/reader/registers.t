#!/usr/bin/env bash
# `cudainspect --pid PID --registers FILE`: the threads of a live process unwound from the
# registers a debugger hands over (GDB's `thread apply all ... info registers`), not by
# attaching.  The file is untrusted text: usage errors, missing, empty, garbage, huge lines,
# truncated and incomplete files, threads the process does not have.  With GDB's real output
# for a stopped multi-threaded process, the report equals the CLI's own unwind of it.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
FX=$B/tests/reader-input
[ -x "$CI" ] || skip_all "build/cudainspect is not built"
[ -x "$FX/crasher" ] || skip_all "$FX/crasher is not built"
[ "$(uname -m)" = x86_64 ] || skip_all "--registers is x86-64 only"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"

# run ARGS...: sets $out, $err, $rc
run() { out=$("$CI" "$@" 2>"$T/err"); rc=$?; err=$(cat "$T/err"); }
one_line() { [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ "${err#cudainspect: }" != "$err" ]; }

run --help
like "$out" '--registers FILE' "--help lists --registers"
run --registers "$T/none" core
is "$rc" 2 "--registers without --pid: usage error"
like "$err" '^cudainspect: --registers needs --pid' "... which says so"
run --pid 1 --registers
is "$rc" 2 "--registers without a file: usage error"

# A process with a record and three threads (main, two workers), stopped so that its registers
# do not move.
"$FX/crasher" --threads=2 --crash=hang --launches=20 >"$T/hang.out" &
hpid=$!
trap 'kill -CONT $hpid 2>/dev/null; kill $hpid 2>/dev/null; rm -rf "$T"' EXIT
wait_for 60 grep -q ready "$T/hang.out"
kill -STOP "$hpid"
wait_for 60 grep -q '^State:.*T' "/proc/$hpid/status"
mapfile -t tids < <(ls "/proc/$hpid/task" | sort -n)
is "${#tids[@]}" 3 "the process has three threads"

bad() { # name file: exit 3, one clear line naming the file
	run --pid "$hpid" --registers "$2" threads
	is "$rc" 3 "exit 3 for $1"
	ok "one 'cudainspect:' line for $1" one_line
	like "$err" "--registers $2" "... naming the file ($1)"
	[ -z "$out" ] || diag "stdout: $out"
}
bad "a missing file" "$T/missing"
like "$err" 'No such file' "... and why"
: >"$T/empty"; bad "an empty file" "$T/empty"
like "$err" 'no thread registers' "... an empty file has no thread registers"
head -c 65536 /dev/urandom >"$T/random"; bad "random bytes" "$T/random"
printf 'rip 0x401000\nrsp 0x7ffc0000\n' >"$T/noheader"; bad "registers without a thread header" "$T/noheader"
printf 'Thread 1 (Thread 0x7f (LWP %s) "x")' "$hpid" >"$T/cut"; bad "a header cut before its ':'" "$T/cut"
{ printf 'Thread 1 (Thread 0x7f (LWP %s) "x"):' "$hpid"; head -c 1000000 /dev/zero | tr '\0' x; } >"$T/long"
bad "a header continued by a 1 MB line" "$T/long"
bad "a directory" "$T"

# Registers from GDB, when GDB can attach here (ptrace_scope, permissions).
regs_cmd='thread apply all -s frame apply level 0 -q info registers rip rsp rbp rbx r12 r13 r14 r15 rax rcx rdx rsi rdi r8 r9 r10 r11'
if command -v gdb >/dev/null &&
	timeout 60 gdb -nx -batch -p "$hpid" -ex "pipe $regs_cmd | cat > $T/regs" >/dev/null 2>&1 &&
	[ -s "$T/regs" ]; then
	ok "GDB left the process stopped" grep -q '^State:.*T' "/proc/$hpid/status"
	is "$(grep -c '^Thread ' "$T/regs")" 3 "GDB wrote the registers of three threads"
	own=$("$CI" --pid "$hpid" threads 2>&1)
	like "$own" 'worker \(crasher\.c:[0-9]+\)' "the CLI's own unwind shows the workers"
	run --pid "$hpid" --registers "$T/regs" threads
	is "$rc" 0 "--registers with GDB's output: exit 0"
	is "$out$err" "$own" "--registers threads = the CLI's own unwind of the stopped process"
	run --json --pid "$hpid" --registers "$T/regs"
	is "$(jq -c '[.threads[] | {tid, frames: [.frames[].function]}]' <<<"$out")" \
		"$("$CI" --json --pid "$hpid" | jq -c '[.threads[] | {tid, frames: [.frames[].function]}]')" \
		"--registers JSON threads = the CLI's own"
	is "$(jq -c '.warnings' <<<"$out")" '[]' "... without warnings"
	run --pid "$hpid" --registers - threads <"$T/regs"
	is "$out$err" "$own" "--registers - reads standard input"
	run --pid "$hpid" --registers "$T/regs"
	like "$out" '^  #[0-9]+  main \(crasher\.c:[0-9]+\) crasher\+0x' "the summary unwinds its thread from them"

	# Damaged copies of GDB's output.  thread TID: "FRAMES NOTE" of that thread in the JSON.
	thread() { jq -r --argjson t "$1" '.threads[] | select(.tid == $t) | "\(.frames | length) \(.note)"' <<<"$out"; }
	warnings() { jq -r '.warnings[]' <<<"$out"; }
	w1=${tids[1]} w2=${tids[2]}
	awk -v t="$w1" '/^Thread / { cur = index($0, "(LWP " t ")") } !(cur && $1 == "rip")' \
		"$T/regs" >"$T/norip"
	run --json --pid "$hpid" --registers "$T/norip" threads
	is "$rc" 0 "a thread without rip: exit 0"
	is "$(thread "$w1")" "0 the registers given for this thread lack rip or rsp, so it is not unwound" \
		"... that thread is listed without frames, and why"
	like "$(warnings)" "^1 thread of the registers given \(e\.g\. $w1\) lacks rip or rsp" "... and a warning names it"
	is "$(jq '[.threads[] | select((.frames | length) > 3)] | length' <<<"$out")" 2 \
		"... the other two threads are unwound"
	run --pid "$hpid" --registers "$T/norip" threads
	like "$out" '\(the registers given for this thread lack rip or rsp' "... the text says so too"

	# Cut in the last thread's rsp line, before its value.
	at=$(grep -n '^rsp ' "$T/regs" | tail -n 1 | cut -d: -f1)
	{ head -n $((at - 1)) "$T/regs"; printf 'rsp            '; } >"$T/truncated"
	last=$(grep '^Thread ' "$T/regs" | tail -n 1 | sed 's/.*(LWP \([0-9]*\)).*/\1/')
	run --json --pid "$hpid" --registers "$T/truncated"
	is "$rc" 0 "a truncated file: exit 0"
	like "$(warnings)" "\(e\.g\. $last\) lacks rip or rsp" "... its last thread's registers are incomplete: a warning"
	like "$(thread "$last")" '^0 the registers given for this thread lack rip or rsp' "... that thread has no frames"

	# Thread w2 left out (its header and its registers).
	awk -v t="$w2" '/^Thread / { cur = index($0, "(LWP " t ")") } !cur' "$T/regs" >"$T/partial"
	run --json --pid "$hpid" --registers "$T/partial"
	is "$rc" 0 "a file without one thread: exit 0"
	like "$(thread "$w2")" '^0 no registers were given for this thread' "... that thread is listed without frames, and why"

	{ cat "$T/regs"; printf '\nThread 9 (Thread 0x1 (LWP 2147483647) "ghost"):\n'
	  grep '^r[is]p ' "$T/regs" | head -n 2; } >"$T/ghost"
	run --pid "$hpid" --registers "$T/ghost" threads
	is "$out$err" "$own" "a thread the process does not have: the others as before"
	run --json --pid "$hpid" --registers "$T/ghost"
	like "$(warnings)" "^1 thread of the registers given \(e\.g\. 2147483647\) is not a thread of process $hpid" \
		"... and a warning says it was ignored"

	# Noise GDB might print, lines too long to be GDB's and junk values are ignored.
	{ printf 'warning: something GDB said\n'
	  while IFS= read -r l; do
		printf '%s\n' "$l"
		case $l in Thread*) printf 'rip 0x%s\n' "$(head -c 5000 /dev/zero | tr '\0' 1)"
				    printf 'rsp 0xzz\nrbp -1\neflags 0x246 [ IF ]\n\n' ;;
		esac
	  done <"$T/regs"; } >"$T/noisy"
	run --pid "$hpid" --registers "$T/noisy" threads
	is "$out$err" "$own" "noise, overlong lines and junk values are ignored"
else
	skip "gdb cannot attach here to write registers"
fi
done_testing
