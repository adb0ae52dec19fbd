#!/usr/bin/env bash
# `cudainspect merge` of a whole job (`make bench`): the wall time, peak memory and CPU time of
# merging the snapshots of a real 8-rank and a real 64-rank ncclengine job (a device fault on the
# last rank, the others waiting; one hang or error snapshot per rank, 32 MiB each), and of 1,024
# JSON documents made from one real rank's `cudainspect --json` document by jq (its rank, pid and
# start changed per copy, everything else as written).  Median of RUNS runs, one core
# (taskset when present).  Prints `bench: NAME VALUE UNIT` lines; figures in
# docs/PERFORMANCE.md ("Merge").
#   bench/reader/merge.sh [--runs N] [--keep]
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
runs=5 keep=false
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--keep) keep=true; shift ;;
	*) echo "bench-merge: unknown argument $1" >&2; exit 2 ;;
	esac
done
for f in cudainspect libcudainspect-rec.so ncclengine sim/libcuda.so.1 sim/libnccl.so.2 bench/reader/measure; do
	[ -e "$B/$f" ] || { echo "bench-merge: $B/$f is missing (make)" >&2; exit 1; }
done
command -v jq >/dev/null || { echo "bench-merge: jq is missing (make deps)" >&2; exit 1; }
M=$B/bench/reader/measure
. "$(dirname "$0")/median.sh"
one_core=()
command -v taskset >/dev/null && one_core=(taskset -c 0)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench-merge.XXXXXX")
$keep || trap 'rm -rf "$scratch"' EXIT

# job N: a device-fault job of N ranks in $scratch/jobN/rR; one snapshot per rank into $scratch/inN.
job() {
	local n=$1 r f
	mkdir -p "$scratch/job$n"
	( cd "$scratch" && CUDAINSPECT_QUIET=1 CUDAINSPECT_SNAPSHOT=error,hang CUDAINSPECT_NCCL_TIMEOUT=1 \
		LD_PRELOAD=$B/libcudainspect-rec.so LD_LIBRARY_PATH=$B/sim CUDASIM_KERNEL_US=100 \
		timeout 300 "$B/ncclengine" --ranks "$n" --steps 6 --fault device --watchdog 4 \
		--rank-dir "$scratch/job$n/r" ) >/dev/null 2>&1
	mkdir -p "$scratch/in$n"
	for ((r = 0; r < n; r++)); do
		f=$(ls "$scratch/job$n/r$r"/*-hang.cisnap "$scratch/job$n/r$r"/*-error.cisnap 2>/dev/null | head -1)
		[ -n "$f" ] && ln -s "$f" "$scratch/in$n/r$r.cisnap"
	done
	rm -f "$scratch/job$n"/r*/core
	[ "$(ls "$scratch/in$n" | wc -l)" -eq "$n" ] || { echo "bench-merge: the $n-rank job left $(ls "$scratch/in$n" | wc -l) snapshots" >&2; exit 1; }
}
job 8
job 64
# The check that the merge found the planted rank, so that the figures are of a real answer.
for n in 8 64; do
	got=$("$B/cudainspect" merge --json "$scratch/in$n"/* | jq -c '[.first_failure.rank, (.waits[0].waiting | length)]')
	[ "$got" = "[$((n - 1)),$((n - 1))]" ] || { echo "bench-merge: the $n-rank merge said $got" >&2; exit 1; }
done

# 1,024 documents from rank 0's.
"$B/cudainspect" --json "$scratch/in8/r0.cisnap" >"$scratch/doc.json"
mkdir -p "$scratch/docs"
jq -c '. as $d | range(1024) | . as $i | $d | .job.communicators[0].rank = $i
	| .job.communicators[0].nranks = 1024 | .job.pid = 100000 + $i | .job.start_ns += $i' \
	"$scratch/doc.json" | split -l 1 -a 4 -d --additional-suffix=.json - "$scratch/docs/rank"
got=$("$B/cudainspect" merge --json "$scratch/docs" | jq -c '[.nranks, ([.inputs[] | select(.status == "used")] | length)]')
[ "$got" = "[1024,1024]" ] || { echo "bench-merge: the 1,024-document merge said $got" >&2; exit 1; }

for what in "8_records in8" "64_records in64" "1024_json docs"; do
	set -- $what
	read -r wall kib cpu < <(median "${one_core[@]}" "$B/cudainspect" merge "$scratch/$2")
	echo "bench: merge_${1}_time $wall s"
	echo "bench: merge_${1}_cpu $cpu s"
	echo "bench: merge_${1}_peak_rss $((kib / 1024)) MiB"
done
echo "bench: merge_1024_json_doc_size $(( $(stat -c %s "$scratch/docs/rank0000.json") / 1024 )) KiB"
