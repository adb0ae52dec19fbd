#!/usr/bin/env bash
# `cudainspect --pid` stops a thread only while it unwinds it, and however the reader dies
# (SIGKILL, SIGTERM, SIGINT, timeout) the target runs on: no thread is left stopped (state T
# with no tracer, which a PTRACE_ATTACH's SIGSTOP leaves behind as a group stop).  The target
# has 65 threads, 64 of them 40 calls deep and waking every millisecond, so that "runs on" can
# be measured (their context switches) and the unwind lasts long enough to be caught midway:
# killmid stops the reader the moment /proc shows it tracing a thread of the target, checks
# that it holds exactly that one, kills it and reads every thread's state afterwards.  A
# zombie and a process that is gone get their own message (exit 3), not "no memfd mapping".
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
CI=$B/cudainspect
[ -x "$D/crasher" ] && [ -x "$D/killmid" ] && [ -x "$CI" ] || skip_all "fixtures not built (make check builds them)"

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
"$D/crasher" --crash=hang --threads=1 --busy=64 >"$T/target.out" 2>&1 &
PIDS+=($!)
wait_for 60 grep -q '^ready' "$T/target.out"
pid=$(sed -n 's/^pid=//p' "$T/target.out")
[ -n "$pid" ] || skip_all "the target did not start"
ok "the target runs 66 threads" test "$(ls "/proc/$pid/task" | wc -l)" -eq 66

# val KEY: a value of killmid's output ($km)
val() { printf '%s\n' "$km" | awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }'; }
# killed SIGNAL NAME: kill the reader with SIGNAL while it holds a thread, up to 5 tries (it
# may finish first); then the target must have no stopped or traced thread and run on.
killed() {
	local sig=$1 name=$2 try
	for try in 1 2 3 4 5; do
		km=$("$D/killmid" "$sig" "$pid" -- "$CI" --pid "$pid" threads)
		[ "$(val caught)" = 1 ] && break
	done
	is "$(val caught)" 1 "$name: the reader was caught holding a thread of the target"
	if [ "$sig" -gt 0 ]; then
		is "$(val held)" 1 "$name: it held exactly one thread stopped (counted while it was stopped)"
		is "$(val status)" "signal $sig" "$name: the reader died of the signal"
	fi
	is "$(val stopped) $(val traced)" "0 0" "$name: afterwards no thread of the target is stopped or traced"
	ok "$name: the target runs on ($(val progress) context switches in 200 ms)" test "$(val progress)" -gt 1000
}
killed 9 "SIGKILL"
killed -9 "SIGKILL at once (wherever it was in taking the thread)"
killed 15 "SIGTERM"
killed 2 "SIGINT"

# Stopped again and again until it is done: never more than one thread held at a time.
km=$("$D/killmid" 0 "$pid" -- "$CI" --pid "$pid" threads)
is "$(val status)" "exit 0" "a whole unwind, interrupted $(val samples) times to count, finishes"
ok "... and never holds more than one thread at once (at most $(val max_held))" test "$(val max_held)" -le 1
is "$(val stopped) $(val traced)" "0 0" "... and lets every thread go"

# timeout(1), as crash pipelines use it, at different moments of the unwind.
bad=0
for t in 0.01 0.02 0.03 0.05 0.08; do
	# (in a subshell that says nothing of how timeout ended)
	( timeout -s TERM "$t" "$CI" --pid "$pid" threads; true ) >/dev/null 2>&1
	( timeout -s KILL "$t" "$CI" --pid "$pid" threads; true ) >/dev/null 2>&1
	sleep 0.05
	grep -q 'State:.[Tt]' /proc/"$pid"/task/*/status && bad=$((bad + 1)) && kill -CONT "$pid"
done
is "$bad" 0 "timeout -s TERM and -s KILL at 10-80 ms: no thread left stopped"

# A complete report still has every thread with its frames.
out=$("$CI" --pid "$pid" threads 2>&1); rc=$?
is "$rc" 0 "a whole threads view of the live target"
is "$(printf '%s\n' "$out" | grep -c '^thread .*"busy"')" 64 "... lists the 64 busy threads"
is "$(printf '%s\n' "$out" | grep -c ' busy_deep (crasher\.c')" "$((64 * 41))" "... each with its 41 busy_deep frames"
unlike "$out" "unwinding stopped" "... none of them cut short"

# A thread that a debugger holds cannot be stopped again: a note, not a hang.
if command -v gdb >/dev/null; then
	gdb -nx -batch -p "$pid" -ex 'shell sleep 3' >/dev/null 2>&1 &
	gpid=$!
	traced_or_gdb_gone() { grep -q 'TracerPid:.[1-9]' "/proc/$pid/status" || ! kill -0 "$gpid"; }
	wait_for 60 traced_or_gdb_gone
	out=$(timeout 20 "$CI" --width 300 --pid "$pid" all 2>&1); rc=$?
	is "$rc" 0 "a process a debugger holds: the report is still printed"
	like "$out" "unwinding stopped after 0 frames: ptrace cannot stop the thread: Operation not permitted" \
		"... each thread with a note saying why it has no frames"
	like "$out" "cannot stop the threads of process $pid with ptrace .*\(--registers\)" "... and one warning with what to do"
	wait "$gpid"
else
	for i in 1 2 3; do skip "gdb not installed"; done
fi

# A zombie (exited, not reaped by its parent) and a process that is gone.
sh -c 'sleep 0 & exec sleep 30' &
PIDS+=($!)
zombie=
for _ in $(seq 50); do
	zombie=$(ps -o pid= -o stat= --ppid $! | awk '$2 ~ /^Z/ { print $1 }')
	[ -n "$zombie" ] && break
	sleep 0.05
done
if [ -n "$zombie" ]; then
	out=$("$CI" --pid "$zombie" 2>&1); rc=$?
	is "$rc" 3 "a zombie: exit 3"
	like "$out" "^cudainspect: process $zombie is a zombie: it has exited .* Read its core dump instead" "... saying it is a zombie"
	unlike "$out" "memfd" "... not that it has no memfd mapping"
else
	for i in 1 2 3; do skip "no zombie appeared"; done
fi
sleep 0 & gone=$!; wait "$gone"
out=$("$CI" --pid "$gone" 2>&1); rc=$?
is "$rc" 3 "a process that has exited: exit 3"
like "$out" "process $gone does not exist \(or has exited\)" "... saying so"
done_testing
