#!/usr/bin/env bash
# The reader's benchmark (`make bench`): time and peak memory of `cudainspect CORE` (the
# summary) and `cudainspect --json CORE` on a small core (miniengine --fault oob) and a large one
# (bench/reader/bigcore: HOST_GIB GiB of touched host memory, 100,000 live allocations, a
# wrapped launch ring), next to `gdb -batch -ex 'thread apply all bt'` and `eu-stack --core` on
# the same cores.  Prints `bench: NAME VALUE UNIT` lines; method and figures in
# docs/PERFORMANCE.md ("Reader").
#   bench/reader/run.sh [--host-gib G] [--allocs N] [--launches N] [--runs N] [--keep]
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
host_gib=8 allocs=100000 launches=300000 runs=7 keep=false
while [ $# -gt 0 ]; do
	case $1 in
	--host-gib) host_gib=$2; shift 2 ;;
	--allocs) allocs=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--keep) keep=true; shift ;;
	*) echo "bench-reader: unknown argument $1" >&2; exit 2 ;;
	esac
done
for f in cudainspect libcudainspect-rec.so miniengine sim/libcuda.so.1 bench/reader/bigcore \
	bench/reader/measure; do
	[ -e "$B/$f" ] || { echo "bench-reader: $B/$f is missing (make)" >&2; exit 1; }
done
M=$B/bench/reader/measure
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench-reader.XXXXXX")
$keep || trap 'rm -rf "$scratch"' EXIT

# Scale the large core down, and say so, when this machine cannot hold it.
avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
disk_kib=$(df -Pk "$scratch" | awk 'NR == 2 {print $4}')
fit=$(( (avail_kib / 1048576) - 3 ))
dfit=$(( (disk_kib / 1048576) - 3 ))
[ "$dfit" -lt "$fit" ] && fit=$dfit
if [ "$fit" -lt "$host_gib" ]; then
	echo "bench-reader: NOTE: only room for a ${fit} GiB core here (memory ${avail_kib} KiB" \
		"available, disk ${disk_kib} KiB free); the large core uses $fit GiB, not $host_gib"
	host_gib=$(( fit > 0 ? fit : 0 ))
fi

export LD_LIBRARY_PATH=$B/sim
rec=$B/libcudainspect-rec.so
ulimit -c unlimited

# The small core: the demo's out-of-bounds fault.
mkdir -p "$scratch/small" "$scratch/large"
( cd "$scratch/small" && CUDAINSPECT_QUIET=1 LD_PRELOAD=$rec "$B/miniengine" --fault oob --quiet ) \
	>/dev/null 2>&1
small=$(ls "$scratch"/small/core* 2>/dev/null | head -1)
# The large core: a record big enough for 100,000 live allocations and a wrapped launch ring.
echo "bench-reader: making the large core (${host_gib} GiB host memory, $allocs allocations," \
	"$launches launches); this takes a minute"
t0=$(date +%s.%N)
( cd "$scratch/large" && CUDASIM_MODE=null CUDASIM_FAULT=bench_fault CUDAINSPECT_QUIET=1 \
	CUDAINSPECT_SIZE=${CUDAINSPECT_SIZE:-128M} LD_PRELOAD=$rec \
	"$B/bench/reader/bigcore" --host-gib "$host_gib" --allocs "$allocs" --launches "$launches" ) \
	>/dev/null 2>&1
t1=$(date +%s.%N)
large=$(ls "$scratch"/large/core* 2>/dev/null | head -1)
if [ -z "$small" ] || [ -z "$large" ]; then
	echo "bench-reader: no core dump appeared (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2
	exit 1
fi
echo "bench-reader: large core made in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

# What the large record holds, checked rather than assumed.
"$B/cudainspect" --json "$large" 2>/dev/null >"$scratch/large.json"
if command -v jq >/dev/null; then
	read -r live lcap lhead < <(jq -r '[(.allocations | length), .record.sections.launches.capacity,
		.record.sections.launches.head] | @tsv' "$scratch/large.json")
	echo "bench: reader_large_live_allocations $live count"
	echo "bench: reader_large_launch_ring_capacity $lcap count"
	echo "bench: reader_large_launches_recorded $lhead count"
	[ "$lhead" -gt "$lcap" ] || echo "bench-reader: NOTE: the launch ring did not wrap ($lhead <= $lcap)"
	[ "$live" -ge "$allocs" ] || echo "bench-reader: NOTE: only $live of $allocs allocations are in the record"
fi
echo "bench: reader_small_core_size $(( $(stat -c %s "$small") / 1048576 )) MiB"
echo "bench: reader_large_core_size $(( $(stat -c %s "$large") / 1048576 )) MiB"

. "$(dirname "$0")/median.sh"
# report NAME: print the three figures of the last median
report() {
	echo "bench: $1_time $s s"
	echo "bench: $1_cpu $cpu s"
	echo "bench: $1_peak_rss $((kib / 1024)) MiB"
}
exe=$B/miniengine
declare -A secs cpus
for c in small large; do
	core=$small
	[ "$c" = large ] && core=$large exe=$B/bench/reader/bigcore
	cat "$core" >/dev/null # page cache warm for every tool alike
	read -r s kib cpu < <(median "$B/cudainspect" -q "$core")
	report "reader_${c}_summary"
	secs[${c}_summary]=$s cpus[${c}_summary]=$cpu
	read -r s kib cpu < <(median "$B/cudainspect" --json "$core")
	report "reader_${c}_json"
	secs[${c}_json]=$s cpus[${c}_json]=$cpu
	if command -v gdb >/dev/null; then
		read -r s kib cpu < <(median gdb -nx -batch -iex 'set debuginfod enabled off' \
			-ex 'thread apply all bt' "$exe" "$core")
		report "gdb_${c}_bt"
		secs[${c}_gdb]=$s cpus[${c}_gdb]=$cpu
	fi
	if command -v eu-stack >/dev/null; then
		read -r s kib cpu < <(median eu-stack --core="$core" -e "$exe")
		report "eu_stack_${c}"
	fi
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
for k in summary json; do
	echo "bench: reader_${k}_large_over_small $(ratio "${secs[large_$k]}" "${secs[small_$k]}") x"
	echo "bench: reader_${k}_large_over_small_cpu $(ratio "${cpus[large_$k]}" "${cpus[small_$k]}") x"
done
if [ -n "${secs[large_gdb]:-}" ]; then
	echo "bench: gdb_bt_over_reader_summary_large $(ratio "${secs[large_gdb]}" "${secs[large_summary]}") x"
	echo "bench: gdb_bt_over_reader_summary_large_cpu $(ratio "${cpus[large_gdb]}" "${cpus[large_summary]}") x"
fi
$keep && echo "bench-reader: kept $scratch"
exit 0
