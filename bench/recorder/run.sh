#!/usr/bin/env bash
# The recorder's overhead benchmark (make bench): nanoseconds the recorder adds per
# cuLaunchKernel and per cuMemAlloc + cuMemFree pair, against the same loop without it, on the
# simulated driver in null mode (launches complete inline at almost no cost), with stacks off,
# fast (the default) and accurate, on 1 and 8 threads; per launch also the recorder's own
# bookkeeping and the breadcrumb's driver call measured apart.  Each configuration is a
# separate process; launchbench reports the median of REPS runs of each thread's CPU time per
# call.  Prints `bench: NAME VALUE UNIT` lines; docs/PERFORMANCE.md ("Recorder") records the
# figures.
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

# ns MODE THREADS [VAR=VALUE...]: launchbench's ns_per_op, with the recorder if variables given;
# the median of PROCS processes (8 threads on few CPUs vary from one process to the next).
PROCS=${BENCH_PROCS:-3}
ns() {
	local mode=$1 threads=$2 i
	shift 2
	for ((i = 0; i < PROCS; i++)); do
		if [ $# -gt 0 ]; then
			env "$@" LD_PRELOAD="$REC" "$LB" "$mode" "$threads" "$OPS" "$REPS" || return 1
		else
			"$LB" "$mode" "$threads" "$OPS" "$REPS" || return 1
		fi
	done | sed -n 's/^ns_per_op //p' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
line() { printf 'bench: %s %s %s\n' "$1" "$2" "$3"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

echo "bench/recorder: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); $OPS calls x $REPS runs x $PROCS processes per figure" >&2
# Per launch, decomposed: the launch without the recorder; the recorder's own bookkeeping
# (stacks and breadcrumbs off); the breadcrumb's driver call on its own (cuStreamWriteValue64
# in a loop without the recorder: in null mode that is the simulator's cost, not a GPU's); the
# total with breadcrumbs (stacks off) and what it adds beyond the other two; then the stack modes.
for t in 1 8; do
	base=$(ns launch $t)
	line "recorder.launch.baseline.${t}t" "$base" ns
	own=$(sub "$(ns launch $t CUDAINSPECT_STACKS=off CUDAINSPECT_CRUMBS=off)" "$base")
	line "recorder.launch.added.bookkeeping.${t}t" "$own" ns
	crumb=$(ns crumb $t)
	line "recorder.launch.crumb_call.${t}t" "$crumb" ns
	total=$(sub "$(ns launch $t CUDAINSPECT_STACKS=off)" "$base")
	line "recorder.launch.added.stacks_off.${t}t" "$total" ns
	line "recorder.launch.added.crumb_rest.${t}t" "$(sub "$(sub "$total" "$own")" "$crumb")" ns
	for stacks in fast accurate; do
		with=$(ns launch $t CUDAINSPECT_STACKS=$stacks)
		line "recorder.launch.added.stacks_$stacks.${t}t" "$(sub "$with" "$base")" ns
	done
done
for t in 1 8; do
	base=$(ns alloc $t)
	line "recorder.alloc_free.baseline.${t}t" "$base" ns
	with=$(ns alloc $t CUDAINSPECT_STACKS=fast)
	line "recorder.alloc_free.added.stacks_fast.${t}t" "$(sub "$with" "$base")" ns
	with=$(ns alloc $t CUDAINSPECT_STACKS=off)
	line "recorder.alloc_free.added.stacks_off.${t}t" "$(sub "$with" "$base")" ns
done
# Graphs: added per cuGraphLaunch of a 4-kernel captured graph (with and without the in-graph
# breadcrumbs, whose writes the simulator replays as nodes: their replay-time cost on the
# simulator), and per launch made into a stream capture (the node it becomes, recorded under the
# graph lock, its cuStreamGetCaptureInfo, and its in-graph breadcrumb write).
for t in 1 8; do
	base=$(ns graph $t)
	line "recorder.graph_launch.baseline.${t}t" "$base" ns
	with=$(ns graph $t CUDAINSPECT_STACKS=fast)
	line "recorder.graph_launch.added.stacks_fast.${t}t" "$(sub "$with" "$base")" ns
	with=$(ns graph $t CUDAINSPECT_STACKS=fast CUDAINSPECT_GRAPH_CRUMBS=off)
	line "recorder.graph_launch.added.graph_crumbs_off.${t}t" "$(sub "$with" "$base")" ns
	base=$(ns capture $t)
	line "recorder.captured_launch.baseline.${t}t" "$base" ns
	with=$(ns capture $t CUDAINSPECT_STACKS=fast)
	line "recorder.captured_launch.added.stacks_fast.${t}t" "$(sub "$with" "$base")" ns
	with=$(ns capture $t CUDAINSPECT_STACKS=fast CUDAINSPECT_GRAPH_CRUMBS=off)
	line "recorder.captured_launch.added.graph_crumbs_off.${t}t" "$(sub "$with" "$base")" ns
done
# NCCL: added per ncclAllReduce (the simulated NCCL, one rank, null mode: each call is a host
# function launch and a stream wait in the simulator), the total and the share of the NCCL
# wrapper itself (CUDAINSPECT_NCCL=off records the simulated NCCL's driver calls only), with and
# without breadcrumbs; and per decode layer (a kernel launch and an all-reduce).
NB=$B/bench/recorder/ncclbench
if [ -x "$NB" ] && [ -e "$B/sim/libnccl.so.2" ]; then
	nb() { # MODE [VAR=VALUE...]
		local mode=$1 i
		shift
		for ((i = 0; i < PROCS; i++)); do
			if [ $# -gt 0 ]; then
				env "$@" LD_PRELOAD="$REC" "$NB" "$mode" "$OPS" "$REPS" || return 1
			else
				"$NB" "$mode" "$OPS" "$REPS" || return 1
			fi
		done | sed -n 's/^ns_per_op //p' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	}
	base=$(nb allreduce)
	line recorder.nccl.allreduce.baseline.1t "$base" ns
	all=$(nb allreduce CUDAINSPECT_STACKS=fast)
	line recorder.nccl.allreduce.added.stacks_fast.1t "$(sub "$all" "$base")" ns
	off=$(nb allreduce CUDAINSPECT_STACKS=fast CUDAINSPECT_NCCL=off)
	line recorder.nccl.allreduce.added.nccl_off.1t "$(sub "$off" "$base")" ns
	line recorder.nccl.allreduce.added.wrapper.1t "$(sub "$all" "$off")" ns
	nocrumb=$(nb allreduce CUDAINSPECT_STACKS=fast CUDAINSPECT_CRUMBS=off)
	nocrumb_off=$(nb allreduce CUDAINSPECT_STACKS=fast CUDAINSPECT_CRUMBS=off CUDAINSPECT_NCCL=off)
	line recorder.nccl.allreduce.added.wrapper_crumbs_off.1t "$(sub "$nocrumb" "$nocrumb_off")" ns
	base=$(nb step)
	line recorder.nccl.step.baseline.1t "$base" ns
	line recorder.nccl.step.added.stacks_fast.1t "$(sub "$(nb step CUDAINSPECT_STACKS=fast)" "$base")" ns
fi
