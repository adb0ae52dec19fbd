#!/usr/bin/env bash
# What recording Python frames adds (make bench; docs/PERFORMANCE.md, "Python frames"):
# bench/python/pybench.py launches through ctypes on the simulated driver in null mode from 5,
# 20 and 60 Python frames deep, under the recorder with CUDAINSPECT_PYTHON=on and =off (stacks
# fast, the default, in both); the added cost is the median over PAIRS pairs of processes run
# back to back of (on - off), each process reporting the fastest of REPS loops of OPS launches
# in thread CPU time (the ctypes call itself costs about 1 us here).  Also the first sight of a code object (its names and line table
# copied into the record).  Prints `bench: NAME VALUE UNIT` lines.
set -u
B=${CI_BUILD:-build}
REC=$B/libcudainspect-rec.so
PY=${BENCH_PYTHON:-/usr/bin/python3.11}
OPS=${BENCH_OPS:-50000}
REPS=${BENCH_REPS:-5}
PAIRS=${BENCH_PAIRS:-9}
HERE=$(dirname "$0")
for f in "$REC" "$B/sim/libcuda.so.1" "$PY"; do
	[ -e "$f" ] || { echo "bench/python: $f is missing" >&2; exit 1; }
done
for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=none CUDAINSPECT_QUIET=1

one() { # MODE ARGS...: the number pybench prints
	LD_LIBRARY_PATH=$B/sim LD_PRELOAD=$REC CUDAINSPECT_PYTHON=$1 "$PY" "$HERE/pybench.py" \
		"$B/sim/libcuda.so.1" "${@:2}" | awk '{ print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# paired DEPTH ARGS...: the median over PAIRS of (on - off), each pair run back to back (the
# load of a shared machine changes between processes more than the figure itself).
paired() {
	local i a b
	for ((i = 0; i < PAIRS; i++)); do
		a=$(one off "$@")
		b=$(one on "$@")
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f\n", b - a }'
	done | median
}

# pyembed: the launches from C with the Python frames fixed (no ctypes call in the loop).
embed() { # MODE DEPTH
	LD_LIBRARY_PATH=$B/sim LD_PRELOAD=$REC CUDAINSPECT_PYTHON=$1 "$B/bench/python/pyembed" \
		"$2" "${BENCH_EMBED_OPS:-200000}" "$REPS" | awk '{ print $2 }'
}
if [ -x "$B/bench/python/pyembed" ]; then
	for depth in 5 20 60; do
		diffs=$(for ((i = 0; i < PAIRS; i++)); do
			a=$(embed off "$depth")
			b=$(embed on "$depth")
			awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f\n", b - a }'
		done | median)
		echo "bench: recorder.python.embedded.launch_off.depth$depth $(embed off "$depth") ns"
		echo "bench: recorder.python.embedded.launch_added.depth$depth $diffs ns"
	done
else
	echo "bench/python: $B/bench/python/pyembed is not built (python3.11-dev): ctypes figures only" >&2
fi
for depth in 5 20 60; do
	echo "bench: recorder.python.ctypes.launch_added.depth$depth $(paired "$depth" "$OPS" "$REPS") ns"
done
echo "bench: recorder.python.first_sight_added $(paired 3 2000 1 --first-sight) ns"
