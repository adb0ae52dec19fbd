#!/usr/bin/env bash
# What recording costs on the driver this runs on (docs/GPU-VALIDATION.md, "Recording cost"),
# the step "cost" of testcases/gpu/run.sh:
#  - launchstorm at 1 and 8 threads, pinned with taskset (1 CPU, 8 CPUs), plain and under each
#    recorder setting, REPS interleaved repetitions of SECS seconds: per setting the median of
#    the per-repetition ratios to the plain run of the same repetition, and their spread;
#  - pyloop.py (when python3 imports torch and triton with a GPU): a Triton kernel launched
#    from Python 20 frames deep and a PyTorch loop of small ops, plain and under each setting,
#    PY_REPS interleaved processes;
#  - launchbench graph: CPU ns per cuGraphLaunch of a captured 4-kernel graph, plain, under
#    the defaults, with an in-graph breadcrumb after every 4th kernel only and without them
#    (after every kernel they double the graph's nodes: what that costs the driver at each
#    replay is not known without a GPU), and the wall ns per replay up to the end of the
#    stream's work: the GPU's time per replay where it is the bottleneck, which the breadcrumb
#    nodes may lengthen;
#  - with COST_PROBE=1, costprobe: each kind of driver call's cost without the recorder.
#   testcases/gpu/cost.sh BUILD OUTDIR [REPS] [SECS]
# Settings are LABEL or LABEL:VAR=VALUE,... words in COST_SETTINGS (plain = no recorder).  Every
# measurement goes to OUTDIR/cost.txt as `cost: WHAT SETTING THREADS REP VALUE`, the medians to
# OUTDIR/medians.txt as `median: WHAT SETTING THREADS VALUE ratio RATIO (RMIN-RMAX)`.
set -u
B=$1 O=$2 REPS=${3:-5} SECS=${4:-2}
mkdir -p "$O"
REC=$B/libcudainspect-rec.so
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# A breadcrumb after every launch (CUDAINSPECT_CRUMB_EVERY=1, the old default) was measured in
# two runs (-25 to -35 %); the bookkeeping alone (bare) is what the model needs now.
# interposed: the recorder's wrappers with kernel launches recording nothing (a gpu-bundle's
# libcudainspect-rec-interposed.so), the floor of every setting: what interposing costs alone.
INTERPOSED=$B/libcudainspect-rec-interposed.so
[ -e "$INTERPOSED" ] || INTERPOSED=$B/bench/recorder/libcudainspect-rec-interposed.so
SETTINGS=${COST_SETTINGS:-"plain defaults crumbs-off:CUDAINSPECT_CRUMBS=off bare:CUDAINSPECT_CRUMBS=off,CUDAINSPECT_STACKS=off interposed"}
if [ ! -e "$INTERPOSED" ]; then
	SETTINGS=$(tr ' ' '\n' <<<"$SETTINGS" | grep -v '^interposed$' | tr '\n' ' ')
	echo "cost: setting interposed skipped ($INTERPOSED is not built: make gpu-bundle)" >&2
fi
PY_SETTINGS=${COST_PY_SETTINGS:-"plain defaults python-off:CUDAINSPECT_PYTHON=off"}
GRAPH_SETTINGS=${COST_GRAPH_SETTINGS:-"plain defaults graph-crumbs-every4:CUDAINSPECT_GRAPH_CRUMB_EVERY=4 graph-crumbs-off:CUDAINSPECT_GRAPH_CRUMBS=off"}
ncpu=$(nproc)
pin1=2 pin8=2-9
[ "$ncpu" -lt 10 ] && pin1=0 pin8=0-$((ncpu - 1))
res=$O/cost.txt
: >"$res"
# Measuring stops after COST_BUDGET_S seconds (run.sh sets it below the step's limit), so that
# what was measured still gets its medians; the cut is noted in cost.txt.
BUDGET=${COST_BUDGET_S:-0}
over() {
	[ "$BUDGET" -gt 0 ] && [ "$SECONDS" -ge "$BUDGET" ] || return 1
	[ -n "${cut:-}" ] || echo "cost: cut at $SECONDS s (COST_BUDGET_S $BUDGET): the rest not measured" >>"$res"
	cut=1
}
envs_of() { # LABEL[:A=1,B=2] -> words for env
	[ "${1%%:*}" = plain ] && return
	if [ "${1%%:*}" = interposed ]; then
		echo "LD_PRELOAD=$INTERPOSED CUDAINSPECT_SNAPSHOT=none"
	else
		echo "LD_PRELOAD=$REC CUDAINSPECT_SNAPSHOT=none"
	fi
	[ "${1#*:}" != "$1" ] && echo "${1#*:}" | tr ',' ' '
}
if [ "${COST_PROBE:-0}" = 1 ] && [ -x "$B/gpu/costprobe" ]; then
	timeout -k 5 120 "$B/gpu/costprobe" --threads 8 >"$O/costprobe.txt" 2>&1
	echo "costprobe: exit $?" >>"$O/costprobe.txt"
fi
for rep in $(seq 1 "$REPS"); do
	for t in 1 8; do
		for s in $SETTINGS; do
			over && break 3
			# The floor matters at one thread; at 8 the run's time is better spent on the rest.
			[ "$t" = 8 ] && [ "${s%%:*}" = interposed ] && continue
			pin=$pin1
			[ "$t" = 8 ] && pin=$pin8
			# shellcheck disable=SC2046 # envs_of prints VAR=VALUE words
			out=$(timeout -k 5 $((SECS + 20)) env $(envs_of "$s") taskset -c "$pin" "$B/launchstorm" \
				--threads "$t" --launches 0 --seconds "$SECS" 2>&1)
			v=$(sed -n 's/.*(\([0-9]*\) launches\/s).*/\1/p' <<<"$out" | tail -1)
			echo "cost: launchstorm ${s%%:*} $t $rep ${v:-failed}" >>"$res"
		done
	done
done
# Graph launches: launchbench graph (each thread replays a captured 4-kernel graph on its own
# stream; thread CPU ns per cuGraphLaunch), plain and under each of GRAPH_SETTINGS, interleaved.
LB=$B/launchbench # a gpu-bundle's; a build tree has it under bench/recorder
[ -x "$LB" ] || LB=$B/bench/recorder/launchbench
if [ -x "$LB" ]; then
	for rep in $(seq 1 "$REPS"); do
		for t in 1 8; do
			for s in $GRAPH_SETTINGS; do
				over && break 3
				pin=$pin1
				[ "$t" = 8 ] && pin=$pin8
				# shellcheck disable=SC2046
				out=$(timeout -k 5 60 env $(envs_of "$s") taskset -c "$pin" "$LB" graph "$t" 20000 1 2>&1)
				v=$(sed -n 's/^ns_per_op //p' <<<"$out")
				w=$(sed -n 's/^wall_ns_per_op //p' <<<"$out")
				echo "cost: graph-launch-ns ${s%%:*} $t $rep ${v:-failed}" >>"$res"
				echo "cost: graph-replay-wall-ns ${s%%:*} $t $rep ${w:-failed}" >>"$res"
			done
		done
	done
fi
if python3 -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null; then
	for rep in $(seq 1 "${PY_REPS:-4}"); do
		for s in $PY_SETTINGS; do
			over && break 2
			f=$O/pyloop-${s%%:*}-$rep.txt
			# shellcheck disable=SC2046
			timeout -k 5 120 env $(envs_of "$s") taskset -c "$pin1" python3 "$TOP/testcases/gpu/pyloop.py" \
				2000 3 20 >"$f" 2>&1
			# The median of the process's 3 loops is its figure.
			for kind in triton torchop; do
				v=$(awk -v k="$kind" '$1 == "pyloop:" && $2 == k { print $4 }' "$f" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
				echo "cost: py-$kind ${s%%:*} 1 $rep ${v:-failed}" >>"$res"
			done
		done
	done
else
	echo "cost: pyloop skipped (python3 cannot import torch and triton with a GPU)" >>"$res"
fi
# Medians per (what, setting, threads), and the median of per-repetition ratios to plain (for
# launchstorm launches/s: below 1 is slower; for pyloop ns per op: above 1 is slower).  Plain
# POSIX awk and sort: the GPU machine's awk may be mawk.
med() { sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "%s %s %s", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
awk '$1 == "cost:" && $6 ~ /^[0-9.]+$/ { print $2, $3, $4 }' "$res" | sort -u | while read -r what set thr; do
	vals=$(awk -v w="$what" -v s="$set" -v t="$thr" '$2 == w && $3 == s && $4 == t && $6 ~ /^[0-9.]+$/ { print $6 }' "$res" | med)
	ratios=$(awk -v w="$what" -v s="$set" -v t="$thr" '
		$2 == w && $4 == t && $6 ~ /^[0-9.]+$/ { if ($3 == "plain") p[$5] = $6; if ($3 == s) x[$5] = $6 }
		END { for (r in x) if ((r in p) && p[r] > 0) printf "%.4f\n", x[r] / p[r] }' "$res" | med)
	read -r vm _ _ <<<"$vals"
	read -r rm rlo rhi <<<"$ratios"
	echo "median: $what $set $thr $vm${rm:+ ratio $rm ($rlo-$rhi)}"
done >"$O/medians.txt"
cat "$O/medians.txt"
