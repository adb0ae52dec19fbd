#!/usr/bin/env bash
# Issue 23's table (`make bench-reader-scale`, part of `make bench`): what each view and the
# crash cost at record sizes of 32M, 256M and 1G.  For each size, bench/reader/bigcore under the
# recorder in null mode (4 threads, 2,000,000 launches: the launch ring wraps at every size,
# 1,000 live allocations) crashes on a planted fault; its wall time is measured with the default
# snapshots (signal, error) and with none, without a core dump (the difference is what the
# snapshots cost the crashing process).  One more run, with the snapshots, leaves the core; its
# signal snapshot's header gives the time from the fatal signal to the end of that snapshot (the
# handler's own cost, after which the default action runs).  On the core each view runs
# RUNS times: the summary, `kernels --last 20`, `allocs`, `--json` (bounded) and `--json=full`
# (to /dev/null; an older build without `=full` runs `--json`, which was the full document then).
# Medians of wall time and peak RSS (bench/reader/measure, wait4's rusage); for the JSON views
# also the document's size.  With `--before DIR` (the
# build directory of an older tree: its cudainspect, recorder, simulator and bigcore) every
# figure is measured for that build too, on cores its own recorder made, and printed beside.
# Prints `bench: NAME VALUE UNIT` lines and then the table; docs/PERFORMANCE.md ("Reader", "At
# scale") keeps it.  Large records take minutes on a 2-core machine: it is not part of make check.
#   bench/reader/scale.sh [--sizes "32M 256M 1G"] [--runs N] [--crash-runs N] [--launches N]
#                         [--before BUILD_DIR] [--keep]
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
sizes="32M 256M 1G" runs=5 crash_runs=3 launches=2000000 before= keep=false
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--crash-runs) crash_runs=$2; shift 2 ;;
	--launches) launches=$2; shift 2 ;;
	--before) before=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--keep) keep=true; shift ;;
	*) echo "bench-scale: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $runs$crash_runs$launches in *[!0-9]*) echo "bench-scale: --runs, --crash-runs and --launches take numbers" >&2; exit 2 ;; esac
builds=after
[ -n "$before" ] && builds="before after"
dir_of() { if [ "$1" = before ]; then echo "$before"; else echo "$B"; fi; }
for b in $builds; do
	d=$(dir_of "$b")
	for f in cudainspect libcudainspect-rec.so sim/libcuda.so.1 bench/reader/bigcore; do
		[ -e "$d/$f" ] || { echo "bench-scale: $d/$f is missing (make)" >&2; exit 1; }
	done
done
M=$B/bench/reader/measure
[ -x "$M" ] || { echo "bench-scale: $M is missing (make)" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench-scale.XXXXXX")
$keep || trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/median.sh"

# Where the header keeps the signal's time and the snapshot's (a snapshot's header is the
# record's, so these offsets are the format's).
printf '%s\n' '#include <stddef.h>' '#include <stdio.h>' '#include "cudainspect/record.h"' \
	'int main(void) { printf("%zu %zu\n", offsetof(struct ci_header, end_monotonic_ns),' \
	'offsetof(struct ci_header, snapshot_monotonic_ns)); return 0; }' >"$scratch/off.c"
top=$(cd "$(dirname "$0")/../.." && pwd)
${CC:-cc} -I"$top/include" -o "$scratch/off" "$scratch/off.c" ||
	{ echo "bench-scale: cannot build the header-offset helper" >&2; exit 1; }
read -r off_signal off_snap < <("$scratch/off")
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# crash BUILD SIZE SNAPSHOTS CORE_LIMIT DIR: one crash of bigcore in DIR, through measure.
crash() {
	local d
	d=$(dir_of "$1")
	mkdir -p "$5"
	( cd "$5" && ulimit -c "$4" && CUDASIM_MODE=null CUDASIM_FAULT=bench_fault \
		CUDAINSPECT_QUIET=1 CUDAINSPECT_SIZE=$2 CUDAINSPECT_SNAPSHOT=$3 \
		LD_PRELOAD=$d/libcudainspect-rec.so LD_LIBRARY_PATH=$d/sim \
		"$M" "$d/bench/reader/bigcore" --host-gib 0 --allocs 1000 --launches "$launches" \
		--threads 4 ) 2>/dev/null
}
# crash_median BUILD SIZE SNAPSHOTS: the median wall time of CRASH_RUNS crashes, no core.
crash_median() {
	local i
	for ((i = 0; i < crash_runs; i++)); do
		crash "$1" "$2" "$3" 0 "$scratch/crash"
		rm -f "$scratch"/crash/*.cisnap
	done | awk -v n="$crash_runs" '{ w[NR] = $1 }
		END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }; print w[int((n + 1) / 2)] }'
}

declare -A cell
views="summary kernels allocs json jsonfull"
for size in $sizes; do
	for b in $builds; do
		d=$(dir_of "$b")
		echo "bench-scale: $size, $b build: crashes ($crash_runs with snapshots, $crash_runs without)" >&2
		with=$(crash_median "$b" "$size" signal,error)
		without=$(crash_median "$b" "$size" none)
		cell[$size,$b,crash]="$with s ($without s without snapshots)"
		echo "bench: scale_${size}_${b}_crash_time $with s"
		echo "bench: scale_${size}_${b}_crash_time_no_snapshots $without s"
		rm -rf "$scratch/core"
		crash "$b" "$size" signal,error unlimited "$scratch/core" >/dev/null
		snap=$(ls "$scratch"/core/*-signal.cisnap 2>/dev/null | head -1)
		if [ -n "$snap" ]; then
			ns=$(( $(u64_at "$snap" "$off_snap") - $(u64_at "$snap" "$off_signal") ))
			ms=$(awk -v n="$ns" 'BEGIN { printf "%.0f", n / 1e6 }')
			cell[$size,$b,handler]="$ms ms"
			echo "bench: scale_${size}_${b}_signal_to_default_handler $ms ms"
		fi
		core=$(ls "$scratch"/core/core* 2>/dev/null | head -1)
		if [ -z "$core" ]; then
			echo "bench-scale: no core dump appeared (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2
			exit 1
		fi
		cat "$core" >/dev/null # the page cache warm for every view alike
		for v in $views; do
			case $v in
			summary) args=(-q "$core") ;;
			kernels) args=("$core" kernels --last 20) ;;
			allocs) args=("$core" allocs) ;;
			json) args=(--json "$core") ;;
			jsonfull) args=(--json=full "$core")
				"$d/cudainspect" --json=full --version >/dev/null 2>&1 || args=(--json "$core") ;;
			esac
			doc=-
			[ "${v#json}" != "$v" ] && doc=doc
			view_figures "scale_${size}_${b}_${v}" "$size,$b,$v" $doc "$d/cudainspect" "${args[@]}"
		done
		echo "bench: scale_${size}_${b}_core_size $(( $(stat -c %s "$core") / 1048576 )) MiB"
		rm -rf "$scratch/core"
	done
done

# The table, one row per measurement, one column per size (before / after when both).
figures_table "$sizes" "kernels:\`kernels --last 20\`" "json:\`--json\`" "jsonfull:\`--json=full\`" \
	"summary:summary" "allocs:\`allocs\`" "crash:the crashing process" \
	"handler:fatal signal to default handler"
$keep && echo "bench-scale: kept $scratch"
exit 0
