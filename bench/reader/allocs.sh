#!/usr/bin/env bash
# A million live allocations (`make bench-reader-allocs`, part of `make bench`): what the views
# cost on records whose allocation table holds 1,000,000 live allocations.  Two inputs: a
# synthetic record of tests/reader-input/mkrecord (`--allocs=1000000 --alloc-cap=1400000`,
# 134 MB), and, with --core, the core of bench/reader/bigcore making a million allocations under
# the recorder in null mode with a 1 GiB record (as tests/reader/million.t does; 1.2 GB, about
# 3 s to make).  On each, RUNS runs of the summary, `allocs`, `--json` (bounded) and
# `--json=full` (to /dev/null): medians of wall time and peak RSS (bench/reader/measure,
# wait4's rusage), and each document's size.  With `--before DIR` (an older tree's build
# directory: its cudainspect) the same inputs are read by that build too, figures printed
# beside.  Prints `bench: NAME VALUE UNIT` lines and then the table; docs/PERFORMANCE.md ("At
# scale") keeps it.
#   bench/reader/allocs.sh [--runs N] [--core] [--before BUILD_DIR] [--keep]
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
runs=3 before= keep=false with_core=false
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--core) with_core=true; shift ;;
	--before) before=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--keep) keep=true; shift ;;
	*) echo "bench-allocs: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]*) echo "bench-allocs: --runs takes a number" >&2; exit 2 ;; esac
M=$B/bench/reader/measure MK=$B/tests/reader-input/mkrecord
for f in "$B/cudainspect" "$M" "$MK" ${before:+"$before/cudainspect"}; do
	[ -x "$f" ] || { echo "bench-allocs: $f is missing (make all test-deps)" >&2; exit 1; }
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench-allocs.XXXXXX")
$keep || trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/median.sh"

"$MK" --allocs=1000000 --alloc-cap=1400000 "$scratch/rec" >/dev/null 2>&1 ||
	{ echo "bench-allocs: mkrecord failed" >&2; exit 1; }
inputs="record"
if $with_core; then
	for f in libcudainspect-rec.so sim/libcuda.so.1 bench/reader/bigcore; do
		[ -e "$B/$f" ] || { echo "bench-allocs: $B/$f is missing (make)" >&2; exit 1; }
	done
	mkdir -p "$scratch/m"
	( cd "$scratch/m" && ulimit -c unlimited && CUDASIM_FAULT=bench_fault CUDASIM_MODE=null \
		CUDAINSPECT_QUIET=1 CUDAINSPECT_SIZE=1G CUDAINSPECT_SNAPSHOT=none \
		LD_PRELOAD="$B/libcudainspect-rec.so" LD_LIBRARY_PATH="$B/sim" \
		exec timeout 300 "$B/bench/reader/bigcore" --host-gib 0 --allocs 1000000 \
		--fault-at 500000 --launches 200 --threads 1 ) >/dev/null 2>&1
	core=$(ls "$scratch"/m/core* 2>/dev/null | head -1)
	[ -n "$core" ] || { echo "bench-allocs: bigcore left no core (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2; exit 1; }
	ln -s "$core" "$scratch/core"
	inputs="record core"
fi

builds=after
[ -n "$before" ] && builds="before after"
declare -A cell
for input in $inputs; do
	f=$scratch/rec
	[ "$input" = core ] && f=$scratch/core
	cat "$f" >/dev/null # the page cache warm for every view alike
	for b in $builds; do
		ci=$B/cudainspect
		[ "$b" = before ] && ci=$before/cudainspect
		for v in summary allocs json jsonfull; do
			case $v in
			summary) args=(-q "$f") ;;
			allocs) args=("$f" allocs) ;;
			json) args=(--json "$f") ;;
			jsonfull) args=(--json=full "$f") ;;
			esac
			doc=-
			[ "${v#json}" != "$v" ] && doc=doc
			view_figures "allocs_${input}_${b}_${v}" "$input,$b,$v" $doc "$ci" "${args[@]}"
		done
	done
done

# The table, one row per view, one column per input (before → after when both).
figures_table "$inputs" "summary:summary" "allocs:\`allocs\`" "json:\`--json\`" "jsonfull:\`--json=full\`"
$keep && echo "bench-allocs: kept $scratch"
exit 0
