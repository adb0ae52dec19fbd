#!/usr/bin/env bash
# What recording costs an engine, under the simulator's cost model of the H200
# (CUDASIM_COST=h200: every driver call spends the CPU time it takes there; docs/SIMULATOR.md,
# "Cost model") in null mode: launchstorm's launches per second at 1 and 8 threads without the
# recorder and under each setting, REPS interleaved repetitions of SECS seconds (plain, then each
# setting, then again); per setting the median of the per-repetition ratios to the plain run of
# the same repetition, their spread (min-max), and the added ns per launch at the median.  Then
# the same ratio for graph launches (launchbench graph, a captured 4-kernel graph per thread),
# for allocation pairs (launchbench alloc), the launch's thread CPU time from 2 and 30 frames
# deep under each setting (launchbench launch), and, where Debian's python3.11 runs, for launches
# through ctypes from 20 Python frames (bench/python/pybench.py) and for launches as Triton's
# launcher makes them from 40 frames deep (bench/python/tritonlike.py).  Prints `bench: NAME VALUE
# UNIT` lines; docs/PERFORMANCE.md ("Under the cost model") records them.
#   bench/recorder/cost.sh        (make bench-cost; BENCH_REPS, BENCH_SECS)
set -u
B=${CI_BUILD:-build}
REC=$B/libcudainspect-rec.so
# The recorder with kernel launches recording nothing: interposing alone (bench/recorder/build.mk).
INTERPOSED=$B/bench/recorder/libcudainspect-rec-interposed.so
LS=$B/launchstorm
LB=$B/bench/recorder/launchbench
REPS=${BENCH_REPS:-5}
SECS=${BENCH_SECS:-2}
PY=${BENCH_PYTHON:-/usr/bin/python3.11}
for f in "$REC" "$INTERPOSED" "$LS" "$LB" "$B/sim/libcuda.so.1"; do
	[ -e "$f" ] || { echo "bench/recorder/cost: $f is not built (make)" >&2; exit 1; }
done
for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDASIM_MODE=null \
	CUDASIM_COST=h200 CUDAINSPECT_SNAPSHOT=none CUDAINSPECT_QUIET=1

# Settings: LABEL or LABEL:VAR=VALUE,VAR=VALUE (plain = no recorder; minimal = the least a
# launch records, no breadcrumbs, stacks or argument bytes; interposed = the wrappers with
# launches recording nothing, the floor of any setting).
SETTINGS=${BENCH_SETTINGS:-"plain defaults every-launch:CUDAINSPECT_CRUMB_EVERY=1 crumbs-off:CUDAINSPECT_CRUMBS=off bare:CUDAINSPECT_CRUMBS=off,CUDAINSPECT_STACKS=off accurate:CUDAINSPECT_STACKS=accurate minimal:CUDAINSPECT_CRUMBS=off,CUDAINSPECT_STACKS=off,CUDAINSPECT_PARAM_BYTES=0 interposed"}
envs_of() {
	[ "${1%%:*}" = plain ] && return
	if [ "${1%%:*}" = interposed ]; then echo "LD_PRELOAD=$INTERPOSED"; else echo "LD_PRELOAD=$REC"; fi
	[ "${1#*:}" != "$1" ] && echo "${1#*:}" | tr ',' ' '
}
line() { printf 'bench: %s %s %s\n' "$1" "$2" "$3"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# stats FILE: "median min max" of the numbers in FILE
stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bench/recorder/cost: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); CUDASIM_COST=h200, $REPS interleaved repetitions of ${SECS} s" >&2

# launchstorm: launches/s of each setting in each repetition, interleaved.
for t in 1 8; do
	for r in $(seq "$REPS"); do
		for s in $SETTINGS; do
			# shellcheck disable=SC2046 # envs_of prints VAR=VALUE words
			v=$(env $(envs_of "$s") "$LS" --threads "$t" --launches 0 --seconds "$SECS" 2>&1 |
				sed -n 's/.*(\([0-9]*\) launches\/s).*/\1/p' | tail -1)
			echo "${v:-0}" >"$tmp/ls.$t.${s%%:*}.$r"
		done
	done
	for r in $(seq "$REPS"); do cat "$tmp/ls.$t.plain.$r"; done >"$tmp/ls.$t.plain"
	read -r pm _ _ <<<"$(stats "$tmp/ls.$t.plain")"
	line "cost.launchstorm.plain.${t}t" "$pm" launches/s
	for s in $SETTINGS; do
		label=${s%%:*}
		[ "$label" = plain ] && continue
		for r in $(seq "$REPS"); do
			awk -v a="$(cat "$tmp/ls.$t.plain.$r")" -v b="$(cat "$tmp/ls.$t.$label.$r")" \
				'BEGIN { if (a > 0) printf "%.4f\n", b / a }'
		done >"$tmp/ratio"
		read -r rm rlo rhi <<<"$(stats "$tmp/ratio")"
		line "cost.launchstorm.$label.${t}t.ratio" "$rm" "(spread $rlo-$rhi)"
		# Added ns per launch at the median ratio, per thread: T/rate_with - T/rate_plain.
		awk -v p="$pm" -v r="$rm" -v t="$t" 'BEGIN { if (p > 0 && r > 0) printf "bench: cost.launchstorm.%s.%dt.added %.0f ns\n", "'"$label"'", t, t * 1e9 / (p * r) - t * 1e9 / p }'
	done
done

# launchbench: thread CPU ns per graph launch and per allocation pair, plain and under the
# defaults, interleaved; ratio of the medians.
for mode in graph alloc; do
	for t in 1 8; do
		for r in $(seq "$REPS"); do
			"$LB" "$mode" "$t" 20000 1 | sed -n 's/^ns_per_op //p' >>"$tmp/lb.$mode.$t.plain"
			env LD_PRELOAD="$REC" "$LB" "$mode" "$t" 20000 1 | sed -n 's/^ns_per_op //p' >>"$tmp/lb.$mode.$t.rec"
		done
		a=$(median <"$tmp/lb.$mode.$t.plain") b=$(median <"$tmp/lb.$mode.$t.rec")
		line "cost.$mode.plain.${t}t" "$a" ns/op
		awk -v a="$a" -v b="$b" -v n="cost.$mode.defaults.${t}t" \
			'BEGIN { if (a > 0) printf "bench: %s.ratio %.4f (throughput %.4f; %+.0f ns)\n", n, b / a, a / b, b - a }'
	done
done

# Graph launches again at 1 thread with fewer in-graph breadcrumbs: one after every 4th kernel
# (CUDAINSPECT_GRAPH_CRUMB_EVERY=4: the 4-kernel graph gets 1 write and the reset instead of 4
# and the reset) and none; the simulator runs their nodes on the CPU, where a GPU runs them.
for r in $(seq "$REPS"); do
	"$LB" graph 1 20000 1 | sed -n 's/^ns_per_op //p' >>"$tmp/gc.plain"
	for s in every4:CUDAINSPECT_GRAPH_CRUMB_EVERY=4 off:CUDAINSPECT_GRAPH_CRUMBS=off; do
		env LD_PRELOAD="$REC" "${s#*:}" "$LB" graph 1 20000 1 | sed -n 's/^ns_per_op //p' >>"$tmp/gc.${s%%:*}"
	done
done
a=$(median <"$tmp/gc.plain")
for label in every4 off; do
	b=$(median <"$tmp/gc.$label")
	awk -v a="$a" -v b="$b" -v n="cost.graph.graph-crumbs-$label.1t" \
		'BEGIN { if (a > 0) printf "bench: %s.ratio %.4f (throughput %.4f; %+.0f ns)\n", n, b / a, a / b, b - a }'
done

# The launch again, as the calling thread's CPU time (launchbench launch: steadier than
# launches/s on a shared machine, since time the thread waits for a CPU is not counted), from
# launchbench's own 2 frames and from 30 frames down (the fast stack walk stops at 16): plain
# and each setting interleaved, REPS processes each; per setting the ratio of the medians and
# the ns added.
for d in 0 30; do
	for r in $(seq "$REPS"); do
		for s in $SETTINGS; do
			# shellcheck disable=SC2046 # envs_of prints VAR=VALUE words
			env $(envs_of "$s") "$LB" launch 1 20000 3 "$d" | sed -n 's/^ns_per_op //p' \
				>>"$tmp/cl.$d.${s%%:*}"
		done
	done
	a=$(median <"$tmp/cl.$d.plain")
	line "cost.launch_cpu.depth$d.plain.1t" "$a" ns/launch
	for s in $SETTINGS; do
		label=${s%%:*}
		[ "$label" = plain ] && continue
		b=$(median <"$tmp/cl.$d.$label")
		awk -v a="$a" -v b="$b" -v n="cost.launch_cpu.depth$d.$label.1t" \
			'BEGIN { if (a > 0) printf "bench: %s.ratio %.4f (throughput %.4f; %+.1f ns)\n", n, b / a, a / b, b - a }'
	done
done

# Python: a ctypes launch from 20 frames deep (pybench.py), plain and under the defaults.
if [ -x "$PY" ]; then
	for r in $(seq "$REPS"); do
		"$PY" bench/python/pybench.py "$B/sim/libcuda.so.1" 20 5000 1 | awk '{ print $2 }' >>"$tmp/py.plain"
		LD_PRELOAD="$REC" "$PY" bench/python/pybench.py "$B/sim/libcuda.so.1" 20 5000 1 |
			awk '{ print $2 }' >>"$tmp/py.rec"
	done
	a=$(median <"$tmp/py.plain") b=$(median <"$tmp/py.rec")
	line cost.python_ctypes.plain.1t "$a" ns/launch
	awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "bench: cost.python_ctypes.defaults.1t.ratio %.4f (throughput %.4f; %+.0f ns)\n", b / a, a / b, b - a }'
	# A launch as Triton's launcher makes one (cuPointerGetAttribute per pointer argument, then
	# cuLaunchKernelEx) from 40 Python frames deep: plain, the defaults, without Python frames,
	# the bookkeeping alone (against launchbench's: what the interpreter's eviction of the
	# recorder's code and data between launches costs, docs/PERFORMANCE.md, "Issue 20, third
	# round"), and with a breadcrumb after every launch (the recorder the H200's first run
	# measured).
	for r in $(seq "$REPS"); do
		for s in plain defaults python-off:CUDAINSPECT_PYTHON=off \
			bare:CUDAINSPECT_PYTHON=off,CUDAINSPECT_STACKS=off,CUDAINSPECT_CRUMBS=off \
			every-launch:CUDAINSPECT_CRUMB_EVERY=1; do
			# shellcheck disable=SC2046
			env $(envs_of "$s") "$PY" bench/python/tritonlike.py "$B/sim/libcuda.so.1" 40 3000 1 |
				awk '{ print $2 }' >>"$tmp/tl.${s%%:*}"
		done
	done
	a=$(median <"$tmp/tl.plain")
	line cost.triton_like.plain.1t "$a" ns/launch
	for s in defaults python-off bare every-launch; do
		b=$(median <"$tmp/tl.$s")
		awk -v a="$a" -v b="$b" -v s="$s" 'BEGIN { if (a > 0) printf "bench: cost.triton_like.%s.1t.ratio %.4f (throughput %.4f; %+.0f ns)\n", s, b / a, a / b, b - a }'
	done
else
	echo "bench/recorder/cost: $PY not found: the Python figure is skipped" >&2
fi
