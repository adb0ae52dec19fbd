#!/usr/bin/env bash
# The recorder's overhead benchmark (make bench): nanoseconds the recorder adds per
# cuLaunchKernel and per cuMemAlloc + cuMemFree pair, against the same loop without it, on the
# simulated driver in null mode (launches complete inline at almost no cost), with stacks off,
# fast (the default) and accurate, on 1 and 8 threads.  Each configuration is a separate process;
# launchbench reports the median of REPS runs of each thread's CPU time per call.  Prints
# `bench: NAME VALUE UNIT` lines; docs/PERFORMANCE.md ("Recorder") records the figures.
set -u
B=${CI_BUILD:-build}
LB=$B/bench/recorder/launchbench
REC=$B/libcudainspect-rec.so
OPS=${BENCH_OPS:-200000}
REPS=${BENCH_REPS:-5}
for f in "$LB" "$REC" "$B/sim/libcuda.so.1"; do
	[ -e "$f" ] || { echo "bench/recorder: $f is not built (make)" >&2; exit 1; }
done
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDASIM_MODE=null
for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export CUDAINSPECT_SNAPSHOT=none

# ns MODE THREADS [VAR=VALUE...]: launchbench's ns_per_op, with the recorder if variables given.
ns() {
	local mode=$1 threads=$2
	shift 2
	local out
	if [ $# -gt 0 ]; then
		out=$(env "$@" LD_PRELOAD="$REC" "$LB" "$mode" "$threads" "$OPS" "$REPS") || return 1
	else
		out=$("$LB" "$mode" "$threads" "$OPS" "$REPS") || return 1
	fi
	sed -n 's/^ns_per_op //p' <<<"$out"
}
line() { printf 'bench: %s %s %s\n' "$1" "$2" "$3"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

echo "bench/recorder: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); $OPS calls x $REPS runs per figure" >&2
for t in 1 8; do
	base=$(ns launch $t)
	line "recorder.launch.baseline.${t}t" "$base" ns
	for stacks in off fast accurate; do
		with=$(ns launch $t CUDAINSPECT_STACKS=$stacks)
		line "recorder.launch.added.stacks_$stacks.${t}t" "$(sub "$with" "$base")" ns
	done
	# What the breadcrumb write costs on top (one more driver call per launch; in null mode the
	# simulator's own cost of cuStreamWriteValue64 is counted here, not a GPU's).
	with=$(ns launch $t CUDAINSPECT_STACKS=off CUDAINSPECT_CRUMBS=off)
	line "recorder.launch.added.stacks_off_crumbs_off.${t}t" "$(sub "$with" "$base")" ns
done
for t in 1 8; do
	base=$(ns alloc $t)
	line "recorder.alloc_free.baseline.${t}t" "$base" ns
	with=$(ns alloc $t CUDAINSPECT_STACKS=fast)
	line "recorder.alloc_free.added.stacks_fast.${t}t" "$(sub "$with" "$base")" ns
	with=$(ns alloc $t CUDAINSPECT_STACKS=off)
	line "recorder.alloc_free.added.stacks_off.${t}t" "$(sub "$with" "$base")" ns
done
