#!/usr/bin/env bash
# The cost rules on the NCCL path (docs/RECORDER.md, "NCCL"): after the first collective, the
# recorder makes no system call per collective (strace counts the same calls for 2,000 decode
# layers, a kernel launch and an all-reduce each, as for 20,000, as without the recorder); the
# hang watchdog is the one thread it adds, started with the first communicator and only then (a
# CUDA program without NCCL gets none).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder bench/recorder/ncclbench sim/libnccl.so.2 tests/recorder/crashprobe
command -v strace >/dev/null || skip_all "no strace"
strace -f -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here"
export CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=none

# calls N [VAR=VALUE...]: system calls of ncclbench step N 1 (with the recorder when variables are
# given), all threads.
calls() {
	local n=$1
	shift
	if [ $# -gt 0 ]; then
		strace -f -qq -c -o "$T/st" env "$@" LD_PRELOAD="$REC" "$B/bench/recorder/ncclbench" step "$n" 1 >/dev/null
	else
		strace -f -qq -c -o "$T/st" "$B/bench/recorder/ncclbench" step "$n" 1 >/dev/null
	fi
	awk '$NF == "total" { print $(NF - 2) }' "$T/st"
}
# clones N [VAR=VALUE...]: threads the process made.
clones() {
	local n=$1
	shift
	strace -f -qq -e trace=clone,clone3 -o "$T/cl" env "$@" LD_PRELOAD="$REC" "$B/bench/recorder/ncclbench" step "$n" 1 >/dev/null
	grep -c 'clone' "$T/cl"
}

b1=$(calls 2000)
b2=$(calls 20000)
r1=$(calls 2000 CUDAINSPECT_NCCL_TIMEOUT=off)
r2=$(calls 20000 CUDAINSPECT_NCCL_TIMEOUT=off)
is "$((b2 - b1))" 0 "without the recorder: system calls do not grow with the layers ($b1, $b2)"
if asan; then
	# The sanitizers' runtime makes system calls of its own as memory is used.
	skip "with the recorder: none per collective (not counted under AddressSanitizer)"
else
	is "$((r2 - r1))" 0 "with the recorder: none per collective either ($r1 for 2,000 layers, $r2 for 20,000)"
fi
ok "with the recorder: its setup's calls ($((r1 - b1)) more in all)" test "$r1" -gt "$b1"

w=$(clones 2000)
n=$(clones 2000 CUDAINSPECT_NCCL_TIMEOUT=off)
is "$((w - n))" 1 "the hang watchdog is one thread"
strace -f -qq -e trace=clone,clone3 -o "$T/cp" env LD_PRELOAD="$REC" "$B/tests/recorder/crashprobe" ignore >/dev/null 2>&1
strace -f -qq -e trace=clone,clone3 -o "$T/cp0" "$B/tests/recorder/crashprobe" ignore >/dev/null 2>&1
is "$(grep -c clone "$T/cp")" "$(grep -c clone "$T/cp0")" "a CUDA program without NCCL: the recorder starts no thread"
done_testing
