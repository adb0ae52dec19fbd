#!/usr/bin/env bash
# What recording costs on the driver this runs on (docs/GPU-VALIDATION.md, "Recording cost"):
#  - costprobe: each kind of driver call's cost without the recorder (the cost model's table);
#  - launchstorm at 1 and 8 threads, pinned with taskset, plain and under each recorder setting,
#    REPS interleaved repetitions of SECONDS each (medians and spread: launches/s);
#  - pyloop.py (when python3 imports torch and triton): a Triton launch and a small PyTorch op
#    from Python, plain and under each setting;
#  - perf, when present: where the recorder's time goes in one launchstorm thread.
#   testcases/gpu/cost.sh BUILD OUTDIR [REPS] [SECONDS]
# Settings are LABEL=ENV words in COST_SETTINGS (default below); every result line goes to
# OUTDIR/cost.txt as `cost: WHAT SETTING THREADS REP VALUE`.
set -u
B=$1 O=$2 REPS=${3:-3} SECS=${4:-2}
mkdir -p "$O"
REC=$B/libcudainspect-rec.so
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SETTINGS=${COST_SETTINGS:-"plain rec rec-nocrumbs:CUDAINSPECT_CRUMBS=off rec-bare:CUDAINSPECT_CRUMBS=off,CUDAINSPECT_STACKS=off"}
ncpu=$(nproc)
pin1=2 pin8=2-9
[ "$ncpu" -lt 10 ] && pin1=0 pin8=0-$((ncpu - 1))
res=$O/cost.txt
: >"$res"
envs_of() { # LABEL[:A=1,B=2] -> words for env
	local s=$1
	[ "${s%%:*}" = plain ] && return
	echo "LD_PRELOAD=$REC CUDAINSPECT_SNAPSHOT=none"
	[ "${s#*:}" != "$s" ] && echo "${s#*:}" | tr ',' ' '
}
if [ -x "$B/gpu/costprobe" ]; then
	timeout -k 5 120 "$B/gpu/costprobe" --threads 8 >"$O/costprobe.txt" 2>&1
	echo "costprobe: exit $?" >>"$O/costprobe.txt"
fi
for rep in $(seq 1 "$REPS"); do
	for s in $SETTINGS; do
		for t in 1 8; do
			pin=$pin1
			[ "$t" = 8 ] && pin=$pin8
			# shellcheck disable=SC2046
			out=$(timeout -k 5 $((SECS + 20)) env $(envs_of "$s") taskset -c "$pin" "$B/launchstorm" \
				--threads "$t" --launches 0 --seconds "$SECS" 2>&1)
			v=$(sed -n 's/.*(\([0-9]*\) launches\/s).*/\1/p' <<<"$out" | tail -1)
			echo "cost: launchstorm ${s%%:*} $t $rep ${v:-failed}" >>"$res"
		done
	done
done
if python3 -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null; then
	for rep in $(seq 1 "${PY_REPS:-2}"); do
		for s in $SETTINGS; do
			# shellcheck disable=SC2046
			timeout -k 5 120 env $(envs_of "$s") taskset -c "$pin1" python3 "$TOP/testcases/gpu/pyloop.py" \
				2000 3 20 >"$O/pyloop-${s%%:*}-$rep.txt" 2>&1
			awk -v s="${s%%:*}" -v r="$rep" '$1 == "pyloop:" { print "cost: py-" $2, s, 1, r "." $3, $4 }' \
				"$O/pyloop-${s%%:*}-$rep.txt" >>"$res"
		done
	done
else
	echo "cost: pyloop skipped (python3 cannot import torch and triton with a GPU)" >>"$res"
fi
if command -v perf >/dev/null 2>&1; then
	timeout -k 5 30 env LD_PRELOAD="$REC" CUDAINSPECT_SNAPSHOT=none CUDAINSPECT_CRUMBS=off \
		perf record -q -F 15000 -g -o "$O/perf.data" taskset -c "$pin1" "$B/launchstorm" --threads 1 \
		--launches 0 --seconds 2 >/dev/null 2>"$O/perf-record.err"
	perf report -i "$O/perf.data" --stdio --no-children --sort dso,sym 2>/dev/null | head -150 >"$O/perf-report.txt"
	rm -f "$O/perf.data"
else
	echo "cost: perf not present" >>"$res"
fi
# Medians per (what, setting, threads).
awk '$1 == "cost:" && $6 ~ /^[0-9.]+$/ { k = $2 " " $3 " " $4; v[k] = v[k] " " $6 }
     END { for (k in v) print "median:", k, v[k] }' "$res" | sort >"$O/medians-raw.txt"
