#!/usr/bin/env bash
# The GPU validation run (plan and result layout: docs/GPU-VALIDATION.md).  Run it from a copy
# of this tree on a machine with an NVIDIA GPU and its driver; it uses the carried build/ when
# that runs here, else builds.  It runs the test engines against the real driver with and
# without the recorder, collects cores and cudainspect reports, measures launch and breadcrumb
# costs, logs how programs reach the driver (docs/GPU-VALIDATION.md), and writes small results under
# $OUT (default ./gpu-results): text, JSON, compressed fixtures of at most a few MiB.
# Every step runs in its own process under `timeout`; every command inside one too.
#   testcases/gpu/run.sh --dry-run     list the steps and exit
#   testcases/gpu/run.sh               the whole run (well under 8 minutes)
# Exit status: 0 every step ok; 1 some step failed; 2 bad usage; 3 no GPU/driver here.
# shellcheck disable=SC2317 # the steps are called as "step_$STEP"
set -u -o pipefail

usage() {
	cat <<'EOF'
usage: testcases/gpu/run.sh [--dry-run] [--out DIR] [--only STEP[,STEP...]] [--rebuild]
                            [--simulator]
  --dry-run     list the steps, their time limits and outputs; change nothing
  --out DIR     where results go (default: $OUT, else ./gpu-results)
  --only LIST   run only these steps (env and driver always run)
  --rebuild     build even when the carried build/ runs here
  --simulator   rehearse on the simulated driver (build/sim); results are not GPU results
Exit status: 0 every step ok; 1 some step failed; 2 bad usage; 3 no GPU or driver.
EOF
}

# name:limit-seconds:description (the order is the run's order).
STEPS=(
	"env:15:machine, OS, glibc, GPU, driver, core_pattern and tools -> env.txt"
	"build:300:use the carried build/ if its programs load here, else make (gpu-prep with nvcc) -> build.log"
	"driver:30:nvidia-smi and libcuda.so.1 present, apitour setup on the real driver; stops the run if not -> driver.txt"
	"apitour:60:apitour without and with the recorder: documented results, identical lines, kernel effects visible -> apitour/"
	"engines:90:miniengine through 4 doors without and with the recorder: exit 0, one token checksum -> engines/"
	"faults:180:each --fault kind without the recorder (does it really fault?) and with it: CUDA error line, core or gcore, snapshot, cudainspect text+JSON -> faults/KIND/"
	"hang:90:--hang under the recorder: cudainspect --pid on the live process, then SIGUSR1 releases it -> hang/"
	"gpucore:150:GPU core dumps (issue 21): record --gpu-core on --fault oob (dump size, seconds, the joined report); launchstorm with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 against plain (what turning dumps on costs); --gpu-core-trigger on a --hang engine (the pipe, the dump of a hung kernel) -> gpucore/"
	"cost:240:launchstorm at 1 and 8 threads (pinned) and, with torch, a Triton launch and a PyTorch op loop from Python: plain and under the recorder's settings, 5 interleaved repetitions, medians of ratios -> cost/"
	"crumbs:60:crumbbench: cost of cuStreamWriteValue64 per launch (CPU/GPU ns, barrier or not, 32-bit) and the slot after an illegal address -> crumbs/"
	"graphs:60:graphengine's fault inside a graph replay (captured: a stale page index; explicit: a freed KV cache) without the recorder (does it fault?) and with it: the report names the kernel node -> graphs/MODE/"
	"torch:150:a PyTorch + Triton decode loop with a planted index bug (a store 2^41 bytes past the KV cache), eager and in a CUDA graph replay, without and with the recorder: the reports -> torch/MODE/ (skipped without torch)"
	"procaddr:90:dlsym/dlvsym/dlmopen/cuGetProcAddress traffic of miniengine --bootstrap and of cudart (static, shared, per-thread) probes; the probes under the recorder -> procaddr/"
	"summary:15:collect step results and key facts -> summary.txt, summary.json"
)
DEADLINE=${GPU_RUN_DEADLINE:-400} # the run ends by then: each step gets at most the time left

DRY=0 ONLY="" REBUILD=0 SIM=0 STEP=""
OUT=${OUT:-./gpu-results}
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) DRY=1 ;;
	--out) [ $# -ge 2 ] || { echo "run.sh: --out needs a directory" >&2; exit 2; }; OUT=$2; shift ;;
	--out=*) OUT=${1#--out=} ;;
	--only) [ $# -ge 2 ] || { echo "run.sh: --only needs step names" >&2; exit 2; }; ONLY=$2; shift ;;
	--only=*) ONLY=${1#--only=} ;;
	--rebuild) REBUILD=1 ;;
	--simulator) SIM=1 ;;
	--step) STEP=$2; shift ;; # internal: run one step (run.sh runs itself once per step)
	-h | --help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
	shift
done

step_names() { for s in "${STEPS[@]}"; do echo "${s%%:*}"; done; }
if [ -n "$ONLY" ]; then
	for s in ${ONLY//,/ }; do
		step_names | grep -qx "$s" || { echo "run.sh: unknown step '$s' (steps: $(step_names | tr '\n' ' '))" >&2; exit 2; }
	done
fi

if [ "$DRY" = 1 ]; then
	echo "GPU validation run: steps (each in its own process under timeout; the run ends within ${DEADLINE}s:"
	echo "each step's limit is cut to the time left, and a step with less than 10 s left is skipped)"
	for s in "${STEPS[@]}"; do
		IFS=: read -r name limit desc <<<"$s"
		printf '  %-9s <=%4ss  %s\n' "$name" "$limit" "$desc"
	done
	echo "results: ${OUT}/ (status.txt, summary.txt, summary.json and one entry per step)"
	exit 0
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
TOP=$(cd "$HERE/../.." && pwd)
cd "$TOP" || exit 1
B=$TOP/${BUILD:-build}
REC=$B/libcudainspect-rec.so
CLI=$B/cudainspect
# A gpu-bundle carries the reader's shared libraries along in $B/lib, and its cudainspect finds
# them through its run path ($ORIGIN/lib): no LD_LIBRARY_PATH, which would leak into every
# program the CLI starts (make gpu-bundle).
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
SCRATCH=${TMPDIR:-/tmp}/gpu-run.$$
LIMIT_KEEP=$((4 * 1024 * 1024)) # largest fixture kept (bytes, after compression)
LAUNCHES=${GPU_RUN_LAUNCHES:-50000} # operations per crumbbench variant
if [ "$SIM" = 1 ]; then
	export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export CUDASIM_KERNEL_US=${CUDASIM_KERNEL_US:-20}
	LAUNCHES=${GPU_RUN_LAUNCHES:-2000}
fi
# The recorder's settings for every recorded run: a small record (snapshots stay small),
# snapshots at the fatal signal and the first sticky error, in the run's directory.
REC_ENV=(CUDAINSPECT_SIZE=8M "CUDAINSPECT_SNAPSHOT=signal,error")

# ---- helpers ------------------------------------------------------------------------------

t() { local s=$1; shift; timeout -k 5 "$s" "$@"; } # t SECONDS CMD...
note() { echo "$*" >>"$OUT/$STEP/notes.txt"; echo "  $*"; }
fact() { echo "$1=$2" >>"$OUT/$STEP/facts.txt"; } # key facts for the summary
have() { command -v "$1" >/dev/null 2>&1; }
have_rec() { [ -e "$REC" ] && [ -x "$CLI" ]; }
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"; }

# Keep FILE as FILE.zst when that is at most LIMIT_KEEP bytes; always remove FILE.
keep_small() {
	local f=$1
	[ -f "$f" ] || return 0
	# zstd -19 on a core of gigabytes would take minutes: such cores are only measured.
	if [ "$(stat -c %s "$f")" -gt $((256 * 1024 * 1024)) ]; then
		note "not kept: $(basename "$f") ($(stat -c %s "$f") bytes)"
		rm -f "$f"
		return 0
	fi
	# zstd where the machine has it (the reader reads .zst cores as they are), else gzip (the
	# first GPU machine had no zstd: nothing was kept).
	local z=zst
	if have zstd; then
		zstd -q -12 -T0 -f "$f" -o "$f.zst" 2>/dev/null
	elif have gzip; then
		z=gz
		gzip -9 -c "$f" >"$f.gz" 2>/dev/null
	fi
	if [ -s "$f.$z" ] && [ "$(stat -c %s "$f.$z")" -le "$LIMIT_KEEP" ]; then
		note "kept $(basename "$f").$z ($(stat -c %s "$f.$z") bytes; original $(stat -c %s "$f"))"
	else
		rm -f "$f.$z"
		note "not kept: $(basename "$f") ($(stat -c %s "$f") bytes, too large compressed or no zstd/gzip)"
	fi
	rm -f "$f"
}

# run_engine DIR RECORDED CMD...: run CMD in DIR (recorded: under the recorder, with core dumps
# enabled); stdout/stderr to DIR/out, DIR/err, exit status to DIR/rc.
run_engine() {
	local dir=$1 recorded=$2
	shift 2
	mkdir -p "$dir"
	local env=()
	[ "$recorded" = 1 ] && env=(LD_PRELOAD="$REC" "${REC_ENV[@]}" CUDAINSPECT_SNAPSHOT_DIR="$dir")
	local start rc=0
	touch "$dir/.started"
	sleep 0.01 # a core written from now on is newer (find_core)
	start=$(date +%s.%N)
	(cd "$dir" && ulimit -c "$([ "$recorded" = 1 ] && echo unlimited || echo 0)" &&
		exec timeout -k 5 60 env "${env[@]}" "$@") \
		>"$dir/out" 2>"$dir/err" || rc=$?
	echo "$rc" >"$dir/rc"
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >"$dir/seconds"
	return 0
}

# The core file the crash of the run in DIR left, per kernel.core_pattern (only plain
# patterns): a core written after the run started (DIR/.started) and, when the pattern names
# the pid (%p, or core_uses_pid), the run's own pid, which its recorder snapshot names
# (cudainspect-HOST-PID-...).  On a machine whose core_pattern points at a shared folder the
# newest core there may be another process's: none is taken then.
find_core() {
	local dir=$1 pattern folder base pid="" f found="" n=0
	pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
	case $pattern in
	'|'*) return 0 ;;
	*/*) folder=$(dirname "$pattern") base=$(basename "${pattern%%%*}") ;;
	*) folder=$dir base=${pattern%%%*} ;;
	esac
	for f in "$dir"/*.cisnap; do
		[ -f "$f" ] && pid=$(basename "$f" | sed -n 's/^cudainspect-.*-\([0-9][0-9]*\)-[0-9]\{8\}T.*/\1/p') && break
	done
	for f in "$folder"/"$base"*; do
		if [ ! -f "$f" ] || [ ! "$f" -nt "$dir/.started" ]; then continue; fi
		n=$((n + 1))
		if [ -n "$pid" ] && [[ "$(basename "$f")" =~ (^|[^0-9])$pid([^0-9]|$) ]]; then
			echo "$f"
			return 0
		fi
		found=$f
	done
	# Without a pid in the names: only when this run's crash is the one core written since.
	if [ "$n" = 1 ] && { [ -z "$pid" ] || { [[ "$pattern" != *%p* ]] &&
		[ "$(cat /proc/sys/kernel/core_uses_pid 2>/dev/null)" != 1 ]; }; }; then
		echo "$found"
	fi
}

# Reports by cudainspect on INPUT into DIR/NAME.txt (view all) and, with a 4th argument, the
# JSON document as DIR/NAME.json.zst.
inspect() {
	local input=$1 dir=$2 name=$3 json=${4:-}
	t 120 "$CLI" -w 120 "$input" all >"$dir/$name.txt" 2>"$dir/$name.err"
	echo "$?" >"$dir/$name.rc"
	if [ -n "$json" ]; then
		t 120 "$CLI" --json "$input" >"$dir/$name.json" 2>>"$dir/$name.err"
		keep_small "$dir/$name.json"
	fi
}

# ---- steps ---------------------------------------------------------------------------------

step_env() {
	{
		echo "date: $(date -u +%FT%TZ)"
		echo "host: $(uname -a)"
		echo "os: $(sed -n "s/^PRETTY_NAME=//p" /etc/os-release 2>/dev/null | tr -d '"')"
		echo "glibc: $(ldd --version 2>/dev/null | head -1)"
		echo "cpus: $(nproc)"
		echo "core_pattern: $(cat /proc/sys/kernel/core_pattern 2>/dev/null)"
		echo "core limit: soft $(ulimit -Sc) hard $(ulimit -Hc)"
		echo "ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)"
		echo "nvidia driver: $(head -1 /proc/driver/nvidia/version 2>/dev/null)"
		echo "libcuda: $(ldconfig -p 2>/dev/null | grep -m1 'libcuda.so.1 ' | sed 's/.*=> //')"
		for tool in make cc gcc nvcc gdb zstd nvidia-smi; do
			echo "tool $tool: $(command -v "$tool" || echo missing)"
		done
		echo "tree: $(git -C "$TOP" log -1 --format='%h %s' 2>/dev/null)"
		echo "simulator rehearsal: $([ "$SIM" = 1 ] && echo yes || echo no)"
	} >"$OUT/env.txt"
	if have nvidia-smi; then
		t 10 nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id,compute_cap \
			--format=csv >>"$OUT/env.txt" 2>&1
		t 10 nvidia-smi -q >"$OUT/$STEP/nvidia-smi-q.txt" 2>&1
	fi
	cat "$OUT/env.txt"
}

# Whether PROGRAM's libraries and symbol versions resolve here (libcuda.so.1 may be missing
# when rehearsing without a driver).
loads_here() {
	[ -x "$1" ] || return 1
	! LD_TRACE_LOADED_OBJECTS=1 "$1" 2>&1 | grep -v 'libcuda.so.1 => not found' | grep -q 'not found'
}

step_build() {
	local progs=("$B/miniengine" "$B/launchstorm" "$B/apitour" "$B/graphengine" "$B/gpu/crumbbench"
		"$B/gpu/libprocaddr-log.so" "$B/libcudainspect-rec.so" "$B/cudainspect")
	local usable=1 p
	for p in "${progs[@]}"; do
		case $p in *.so) [ -e "$p" ] || usable=0 ;; *) loads_here "$p" || usable=0 ;; esac
	done
	if [ "$usable" = 1 ] && [ "$REBUILD" = 0 ]; then
		note "using the carried build ($B)"
		fact build carried
	elif have make && have cc; then
		note "building ($( [ "$usable" = 1 ] && echo requested || echo 'carried build missing or not loadable here'))"
		if ! t 280 make -C "$TOP" -j"$(nproc)" all >"$OUT/build.log" 2>&1; then
			note "make failed; see build.log"
			fact build failed
			return 1
		fi
		fact build rebuilt
	else
		note "the carried build does not load here and there is no make/cc to rebuild"
		fact build unusable
		return 1
	fi
	# The cudart probes need nvcc; build only the missing ones (gpu-prep would rebuild all).
	local missing=()
	for p in cudart_probe_static cudart_probe_shared cudart_probe_ptds; do
		[ -x "$B/gpu/$p" ] || missing+=("${BUILD:-build}/gpu/$p")
	done
	if [ ${#missing[@]} -gt 0 ] && have make && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
		t 120 make -C "$TOP" "${missing[@]}" >>"$OUT/build.log" 2>&1 ||
			note "building the cudart probes failed; see build.log"
	fi
	for p in "$B"/gpu/cudart_probe_*; do
		[ -x "$p" ] && note "probe available: $(basename "$p")"
	done
	return 0
}

step_driver() {
	local ok=1
	if [ "$SIM" = 1 ]; then
		note "REHEARSAL on the simulated driver $B/sim: not a GPU result"
		fact driver simulator
	else
		if have nvidia-smi && t 20 nvidia-smi -L >"$OUT/$STEP/nvidia-smi-L.txt" 2>&1; then
			note "nvidia-smi: $(head -1 "$OUT/$STEP/nvidia-smi-L.txt")"
		else
			note "nvidia-smi missing or failing"
			ok=0
		fi
		ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 ' || { note "libcuda.so.1 is not in the linker cache"; ok=0; }
	fi
	# apitour exits 1 when some result differs from cuda.h: the driver still works then.
	t 20 "$B/apitour" --only context >"$OUT/$STEP/apitour-setup.txt" 2>&1
	local rc=$?
	if [ "$rc" -gt 1 ] || ! grep -q "^setup cuDeviceGetCount -> CUDA_SUCCESS some=yes" "$OUT/$STEP/apitour-setup.txt"; then
		note "apitour setup on this driver failed (exit $rc): $(tail -2 "$OUT/$STEP/apitour-setup.txt" | tr '\n' ' ')"
		ok=0
	fi
	grep -m1 'compute' "$OUT/$STEP/apitour-setup.txt" | sed 's/^/  /'
	fact driver_version "$(sed -n 's/.*driver: \(.*\)/\1/p' "$OUT/env.txt" | head -1)"
	[ "$ok" = 1 ] || { fact driver missing; return 3; }
	fact driver_check ok
}

step_apitour() {
	local d=$OUT/apitour
	t 50 "$B/apitour" >"$d/plain.txt" 2>"$d/plain.err"
	echo $? >"$d/plain.rc"
	fact apitour_plain_rc "$(cat "$d/plain.rc")"
	fact cufuncgetname_on_cukernel "$(sed -n 's/^library cuFuncGetName(CUkernel as CUfunction) -> //p' "$d/plain.txt")"
	fact kernel_effects "$(grep -c '=no' "$d/plain.txt") facts read no ($(grep -c '=yes' "$d/plain.txt") yes)"
	grep -n 'UNEXPECTED\|=no' "$d/plain.txt" | sed 's/^/  /' | head -20
	if have_rec; then
		timeout -k 5 50 env LD_PRELOAD="$REC" "${REC_ENV[@]}" "$B/apitour" >"$d/recorded.txt" 2>"$d/recorded.err"
		echo $? >"$d/recorded.rc"
		if diff "$d/plain.txt" "$d/recorded.txt" >"$d/diff.txt"; then
			fact apitour_recorder_identical yes
		else
			fact apitour_recorder_identical no
			note "the recorder changed apitour's results: see apitour/diff.txt"
		fi
	else
		note "no recorder built: apitour ran without it only"
	fi
	[ "$(cat "$d/plain.rc")" = 0 ]
}

step_engines() {
	local d=$OUT/engines mode rec args sums fail=0
	for mode in direct direct-ptsz bootstrap bootstrap-ptsz; do
		args=()
		case $mode in *ptsz) args+=(--ptsz) ;; esac
		case $mode in bootstrap*) args+=(--bootstrap) ;; esac
		for rec in 0 1; do
			[ "$rec" = 1 ] && ! have_rec && continue
			run_engine "$d/$mode-rec$rec" "$rec" "$B/miniengine" "${args[@]}" --threads 4 --streams 2 --steps 32 --layers 4
			echo "  $mode recorder=$rec: exit $(cat "$d/$mode-rec$rec/rc"), $(cat "$d/$mode-rec$rec/seconds") s: $(cat "$d/$mode-rec$rec/out")"
			[ "$(cat "$d/$mode-rec$rec/rc")" = 0 ] || fail=1
		done
	done
	sums=$(cat "$d"/*/out | sed -n 's/.*token checksum \([0-9a-f]*\)$/\1/p' | sort -u)
	fact engine_checksums "$(echo "$sums" | wc -w) distinct ($(echo "$sums" | tr "\n" " "))"
	[ "$(echo "$sums" | wc -w)" = 1 ] || { note "token checksums differ between doors or with the recorder"; fail=1; }
	return "$fail"
}

# One fault run: DIR, RECORDED, KIND [CMD...] (default CMD: miniengine --fault KIND --verbose).
# Without the recorder only the outcome matters (does the planted bug really fault?); with it
# the core (or, when core_pattern pipes cores away, a gcore taken in gdb) and the recorder's
# snapshots are inspected.
fault_run() {
	local dir=$1 rec=$2 kind=$3 pattern core="" snap
	shift 3
	local cmd=("$@")
	[ ${#cmd[@]} -gt 0 ] || cmd=("$B/miniengine" --fault "$kind" --verbose)
	pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
	mkdir -p "$dir"
	if [ "$rec" = 1 ] && [ "${pattern#|}" != "$pattern" ] && have gdb; then
		local wrapper="set exec-wrapper env LD_PRELOAD=$REC ${REC_ENV[*]} CUDAINSPECT_SNAPSHOT_DIR=$dir"
		(cd "$dir" && t 90 gdb -q -nx -batch -iex 'set debuginfod enabled off' -iex "$wrapper" \
			-ex 'set pagination off' -ex run -ex 'gcore core.gdb' -ex 'kill' \
			--args "${cmd[@]}") >"$dir/gdb.out" 2>"$dir/err"
		if grep -q 'SIGABRT' "$dir/gdb.out"; then echo 134; else echo "no SIGABRT (see gdb.out)"; fi >"$dir/rc"
		[ -f "$dir/core.gdb" ] && core=$dir/core.gdb
		note "$kind: core_pattern pipes cores ($pattern): used gdb + gcore"
	else
		run_engine "$dir" "$rec" "${cmd[@]}"
		[ "$rec" = 1 ] && core=$(find_core "$dir")
	fi
	[ "$rec" = 1 ] || return 0
	echo "${core:-none}" >"$dir/dump-path.txt"
	for snap in "$dir"/*.cisnap; do
		[ -f "$snap" ] || continue
		inspect "$snap" "$dir" "report-$(basename "$snap" .cisnap | sed 's/.*-//')"
		keep_small "$snap"
	done
	[ -n "$core" ] && [ -f "$core" ] || return 0
	stat -c %s "$core" >"$dir/dump-bytes.txt"
	inspect "$core" "$dir" report json
	if [ "$core" != "$dir/core" ]; then mv "$core" "$dir/core" 2>/dev/null || cp "$core" "$dir/core"; fi
	keep_small "$dir/core"
}

step_faults() {
	local kind fail=0 d rc line
	for kind in oob uaf multistream crossthread badlaunch; do
		d=$OUT/faults/$kind
		fault_run "$d/plain" 0 "$kind"
		rc=$(cat "$d/plain/rc")
		line=$(grep -m1 'CUDA error:' "$d/plain/err" | sed 's/.*CUDA error: //')
		fact "fault_${kind}_without_recorder" "exit $rc: ${line:-no CUDA error}"
		echo "  $kind without recorder: exit $rc: ${line:-no CUDA error line}"
		[ "$rc" = 134 ] || fail=1
		if have_rec; then
			fault_run "$d/recorded" 1 "$kind"
			rc=$(cat "$d/recorded/rc")
			fact "fault_${kind}_recorded" "exit $rc, core $(cat "$d/recorded/dump-bytes.txt" 2>/dev/null || echo none) bytes"
			local report=""
			for report in report report-signal report-error ""; do
				[ -f "$d/recorded/$report.txt" ] && break
			done
			if [ -n "$report" ]; then
				fact "fault_${kind}_diagnosis" "$report: $(grep -m1 -E '^(Faulting kernel|Failed launch|Suspect)' "$d/recorded/$report.txt")"
				sed -n '1,12p' "$d/recorded/$report.txt" | sed 's/^/    /'
			else
				note "$kind: neither a core nor a snapshot to inspect"
				fail=1
			fi
		fi
	done
	return "$fail"
}

step_graphs() {
	local mode fail=0 d rc line report
	for mode in capture explicit; do
		d=$OUT/graphs/$mode
		fault_run "$d/plain" 0 "graph-$mode" "$B/graphengine" --mode "$mode" --steps 8 --fault-step 5
		rc=$(cat "$d/plain/rc")
		line=$(grep -m1 'CUDA error:' "$d/plain/err" | sed 's/.*CUDA error: //')
		fact "graph_${mode}_without_recorder" "exit $rc: ${line:-no CUDA error}"
		echo "  graph $mode without recorder: exit $rc: ${line:-no CUDA error line}"
		have_rec || continue
		fault_run "$d/recorded" 1 "graph-$mode" "$B/graphengine" --mode "$mode" --steps 8 --fault-step 5
		for report in report report-signal report-error ""; do
			[ -f "$d/recorded/$report.txt" ] && break
		done
		if [ -n "$report" ]; then
			fact "graph_${mode}_diagnosis" "$report: $(grep -m1 -E '^(Faulting kernel|Unfinished kernel)' "$d/recorded/$report.txt")"
			grep -m1 -E 'node [0-9]+ of .* replay' "$d/recorded/$report.txt" | sed 's/^/    /'
		elif [ "$(cat "$d/plain/rc")" = 134 ]; then
			note "graph $mode: it faulted, but neither a core nor a snapshot to inspect"
			fail=1
		fi
	done
	return "$fail"
}

step_hang() {
	local d=$OUT/hang pid engine rc
	have_rec || { note "no recorder built"; return 3; }
	mkdir -p "$d"
	(cd "$d" && exec timeout -k 5 80 env LD_PRELOAD="$REC" "${REC_ENV[@]}" \
		"$B/miniengine" --hang --hang-timeout 60 --verbose) >"$d/out" 2>"$d/err" &
	pid=$!
	for _ in $(seq 200); do grep -q 'hang planted' "$d/err" && break; sleep 0.1; done
	engine=$(sed -n 's/.*; pid \([0-9]*\) waits.*/\1/p' "$d/err")
	if [ -z "$engine" ]; then
		note "the engine did not announce the hang: $(tail -3 "$d/err" | tr '\n' ' ')"
		kill "$pid" 2>/dev/null
		wait "$pid"
		return 1
	fi
	sleep 1
	t 60 "$CLI" -w 120 --pid "$engine" all >"$d/report.txt" 2>"$d/report.err"
	echo $? >"$d/report.rc"
	t 60 "$CLI" --json --pid "$engine" >"$d/report.json" 2>>"$d/report.err"
	keep_small "$d/report.json"
	fact hang_report "exit $(cat "$d/report.rc"): $(grep -m1 -iE 'hang|in flight|spin_wait' "$d/report.txt")"
	sed -n '1,10p' "$d/report.txt" | sed 's/^/    /'
	if [ "$SIM" = 1 ]; then
		# The simulator's planted hang blocks its stream for good: nothing to release.
		kill -9 "$engine" 2>/dev/null
		wait "$pid"
		fact hang_released "not rehearsed: the simulator's hang blocks its stream until exit"
		[ "$(cat "$d/report.rc")" = 0 ]
		return
	fi
	kill -USR1 "$engine" 2>/dev/null
	for _ in $(seq 150); do kill -0 "$engine" 2>/dev/null || break; sleep 0.1; done
	local released=yes
	if kill -0 "$engine" 2>/dev/null; then
		released=no
		kill -9 "$engine" 2>/dev/null
	fi
	wait "$pid"
	rc=$?
	if [ "$released" = no ]; then
		fact hang_released "no: still running 15 s after SIGUSR1 (killed)"
	elif grep -q "spin_wait timed out" "$d/err"; then
		fact hang_released "no: spin_wait timed out (--hang-timeout) before SIGUSR1 arrived; exit $rc"
	else
		fact hang_released "yes: exit $rc after SIGUSR1"
	fi
	[ "$released" = yes ] && [ "$rc" = 0 ]
}

# launchstorm launches/s at 1 thread for SECS seconds, with the environment words given.
storm_rate() {
	local secs=$1
	shift
	t $((secs + 20)) env "$@" "$B/launchstorm" --threads 1 --launches 0 --seconds "$secs" 2>&1 |
		sed -n 's/.*(\([0-9]*\) launches\/s).*/\1/p' | tail -1
}

step_gpucore() {
	local d=$OUT/gpucore fail=0 g rc
	have_rec || { note "no recorder built"; return 3; }
	mkdir -p "$d/record" "$d/trigger"
	# 1. record --gpu-core on a planted fault: what the dump costs, and the joined report.
	local start
	start=$(date +%s.%N)
	(cd "$d/record" && exec timeout -k 5 120 env "${REC_ENV[@]}" "$CLI" record --gpu-core -d "$d/record" -- \
		"$B/miniengine" --fault oob) >"$d/record/report.txt" 2>"$d/record/err"
	echo "$?" >"$d/record/rc"
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >"$d/record/seconds"
	g=$(sed -n 's/^cudainspect: record: GPU core dump: //p' "$d/record/err")
	if [ -n "$g" ] && [ -f "$g" ]; then
		fact gpucore_record_bytes "$(stat -c %s "$g")"
		fact gpucore_record_seconds "$(cat "$d/record/seconds") (the whole faulting run, dump included)"
		fact gpucore_join "$(grep -m1 '^Faulting kernel' "$d/record/report.txt") / $(grep -m1 'GPU core:' "$d/record/report.txt")"
		t 60 "$CLI" "$g" >"$d/record/gpucore.txt" 2>&1
		sed -n '1,24p' "$d/record/report.txt" | sed 's/^/    /'
		keep_small "$g"
	else
		note "record --gpu-core: no GPU core (exit $(cat "$d/record/rc")): $(tail -2 "$d/record/err" | tr '\n' ' ')"
		fail=1
	fi
	# 2. What turning exception dumps on costs when nothing faults (the driver keeps faulted warps
	# from exiting): launchstorm plain and with the variable, 3 interleaved runs of 2 s each.
	local plain=() dumps=()
	for _ in 1 2 3; do
		plain+=("$(storm_rate 2 X=1)")
		dumps+=("$(storm_rate 2 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1)")
	done
	fact gpucore_storm_plain "${plain[*]} launches/s"
	fact gpucore_storm_coredump_on "${dumps[*]} launches/s"
	echo "  launchstorm plain: ${plain[*]}; CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: ${dumps[*]}"
	# 3. A hung kernel's GPU core through the driver's pipe.
	if [ "$SIM" = 1 ]; then
		note "trigger: the simulator does not simulate the user-triggered pipe"
		return "$fail"
	fi
	local engine pid
	(cd "$d/trigger" && exec timeout -k 5 100 env CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 \
		CUDA_COREDUMP_PIPE="$d/trigger/pipe.%p" CUDA_COREDUMP_FILE="$d/trigger/gpucore.%p" \
		CUDA_COREDUMP_GENERATION_FLAGS=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory \
		"$B/miniengine" --hang --hang-timeout 60 --verbose) >"$d/trigger/out" 2>"$d/trigger/err" &
	pid=$!
	for _ in $(seq 200); do grep -q 'hang planted' "$d/trigger/err" && break; sleep 0.1; done
	engine=$(sed -n 's/.*; pid \([0-9]*\) waits.*/\1/p' "$d/trigger/err")
	if [ -z "$engine" ]; then
		note "trigger: the engine did not announce the hang"
		kill "$pid" 2>/dev/null
		wait "$pid"
		return 1
	fi
	start=$(date +%s.%N)
	t 20 "$CLI" --pid "$engine" --gpu-core-trigger >"$d/trigger/trigger.out" 2>&1
	rc=$?
	fact gpucore_trigger "exit $rc: $(tail -1 "$d/trigger/trigger.out")"
	# The dump is complete when its size stops changing (at most 60 s).
	local f="$d/trigger/gpucore.$engine" last=-1 size
	for _ in $(seq 120); do
		size=$(stat -c %s "$f" 2>/dev/null || echo -1)
		[ "$size" -gt 0 ] && [ "$size" = "$last" ] && break
		last=$size
		sleep 0.5
	done
	fact gpucore_trigger_dump "$(stat -c %s "$f" 2>/dev/null || echo none) bytes after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
	if [ -f "$f" ]; then
		t 60 "$CLI" "$f" >"$d/trigger/gpucore.txt" 2>&1
		fact gpucore_trigger_report "$(sed -n '3p' "$d/trigger/gpucore.txt")"
		sed -n '1,12p' "$d/trigger/gpucore.txt" | sed 's/^/    /'
		keep_small "$f"
	else
		fail=1
	fi
	kill -USR1 "$engine" 2>/dev/null
	sleep 2
	kill -9 "$engine" 2>/dev/null
	wait "$pid"
	return "$fail"
}

# crumbbench rows as "name cpu gpu".
crumb_rows() { sed -n 's/^crumbbench: \([^ ]*\) *cpu_ns=\([0-9.]*\) gpu_ns=\([0-9.]*\).*/\1 \2 \3/p' "$1"; }

step_cost() {
	local d=$OUT/cost
	have_rec || { note "no recorder built"; return 3; }
	# Rehearsed in null mode: the rehearsal's 20 us kernels would make the 8-thread graph
	# launches take minutes, and its figures are not the GPU's anyway.
	local sim=()
	[ "$SIM" = 1 ] && sim=(env CUDASIM_MODE=null)
	# cost.sh stops measuring at its budget, so that what it measured gets its medians before
	# the step's limit (cut to the run's time left) ends it.
	local budget=$((${STEP_LIMIT:-240} - 20))
	t $((budget + 15)) env COST_BUDGET_S="$budget" "${sim[@]}" "$HERE/cost.sh" "$B" "$d" \
		"${GPU_COST_REPS:-5}" "${GPU_COST_SECS:-2}" >"$d/out.txt" 2>&1
	local rc=$?
	sed 's/^/  /' "$d/medians.txt" 2>/dev/null
	while read -r _ what set thr v rest; do
		[ "$set" = plain ] && fact "${what}_t${thr}_plain" "$v" && continue
		fact "${what}_t${thr}_$set" "$v $rest"
	done <"$d/medians.txt"
	return "$rc"
}

step_torch() {
	local mode rec d fail=0 report
	python3 -c 'import torch, triton; assert torch.cuda.is_available()' 2>/dev/null ||
		{ note "python3 cannot import torch and triton with a GPU here"; return 3; }
	for mode in eager graph; do
		for rec in 0 1; do
			[ "$rec" = 1 ] && ! have_rec && continue
			d=$OUT/torch/$mode-rec$rec
			run_engine "$d" "$rec" python3 "$HERE/torch_engine.py" --mode "$mode" --steps 8 --fault-step 5
			fact "torch_${mode}_rec${rec}" "exit $(cat "$d/rc"), $(cat "$d/seconds") s: $(grep -m1 'torch_engine:' "$d/err" "$d/out" | sed 's/^[^:]*://')"
			[ "$rec" = 1 ] || continue
			for snap in "$d"/*.cisnap; do
				[ -f "$snap" ] || continue
				inspect "$snap" "$d" "report-$(basename "$snap" .cisnap | sed 's/.*-//')" json
				keep_small "$snap"
			done
			report=$(find "$d" -maxdepth 1 -name 'report-*.txt' | sort | head -1)
			if [ -n "$report" ]; then
				fact "torch_${mode}_diagnosis" "$(grep -m1 -E '^(Faulting kernel|Unfinished kernel|Failed launch)' "$report")"
				sed -n '1,16p' "$report" | sed 's/^/    /'
			else
				note "torch $mode: no snapshot to inspect"
				fail=1
			fi
		done
	done
	return "$fail"
}

step_crumbs() {
	local d=$OUT/crumbs fail=0
	t 50 "$B/gpu/crumbbench" --launches "$LAUNCHES" --json "$d/crumbbench.json" >"$d/crumbbench.txt" 2>&1 || fail=1
	sed 's/^/  /' "$d/crumbbench.txt"
	crumb_rows "$d/crumbbench.txt" | while read -r name cpu gpu; do fact "crumb_$name" "cpu ${cpu} ns, gpu ${gpu} ns"; done
	fact mem_ops_64 "$(sed -n 's/.*CAN_USE_64_BIT_STREAM_MEM_OPS=\([0-9-]*\).*/\1/p' "$d/crumbbench.txt")"
	t 50 "$B/gpu/crumbbench" --fault --json "$d/fault.json" >"$d/fault.txt" 2>&1 || fail=1
	fact crumb_after_fault "$(sed -n 's/^crumbbench: fault //p' "$d/fault.txt")"
	sed 's/^/  /' "$d/fault.txt"
	return "$fail"
}

step_procaddr() {
	local d=$OUT/procaddr log probe name
	local lib=$B/gpu/libprocaddr-log.so
	for name in bootstrap bootstrap-ptsz; do
		log=$d/miniengine-$name.log
		local extra=()
		[ "$name" = bootstrap-ptsz ] && extra=(--ptsz)
		timeout -k 5 60 env PROCADDR_LOG="$log" LD_PRELOAD="$lib" "$B/miniengine" --bootstrap "${extra[@]}" \
			>"$d/miniengine-$name.out" 2>&1
	done
	if have_rec; then
		# The recorder first: what the application asks it, and what it asks the driver.
		timeout -k 5 60 env PROCADDR_LOG="$d/miniengine-bootstrap-recorded.log" LD_PRELOAD="$REC:$lib" \
			"${REC_ENV[@]}" "$B/miniengine" --bootstrap >"$d/miniengine-bootstrap-recorded.out" 2>&1
	fi
	for probe in "$B"/gpu/cudart_probe_*; do
		[ -x "$probe" ] || continue
		name=$(basename "$probe")
		timeout -k 5 60 env PROCADDR_LOG="$d/$name.log" LD_PRELOAD="$lib" "$probe" >"$d/$name.out" 2>&1
		echo "$?" >"$d/$name.rc"
		if have_rec; then
			mkdir -p "$d/$name-recorded"
			(cd "$d/$name-recorded" && timeout -k 5 60 env LD_PRELOAD="$REC" CUDAINSPECT_SIZE=8M \
				CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_SNAPSHOT_DIR=. "$probe") >"$d/$name-recorded/out" 2>&1
			echo "$?" >"$d/$name-recorded/rc"
			local snap
			snap=$(find "$d/$name-recorded" -maxdepth 1 -name "*.cisnap" | head -1)
			if [ -n "$snap" ]; then
				t 60 "$CLI" -w 120 "$snap" kernels >"$d/$name-recorded/kernels.txt" 2>&1
				fact "${name}_recorded" "exit $(cat "$d/$name-recorded/rc"), probe_fill launches seen: $(grep -c probe_fill "$d/$name-recorded/kernels.txt")"
				keep_small "$snap"
			else
				fact "${name}_recorded" "exit $(cat "$d/$name-recorded/rc"), no exit snapshot"
			fi
		fi
	done
	[ -n "$(ls "$B"/gpu/cudart_probe_* 2>/dev/null)" ] || note "no cudart probes (no nvcc at build time): only miniengine's bootstrap was logged"
	for log in "$d"/*.log; do
		[ -f "$log" ] || continue
		name=$(basename "$log" .log)
		fact "procaddr_$name" "$(grep -c ' cuGetProcAddress' "$log") cuGetProcAddress, $(grep -c ' dlsym ' "$log") dlsym, $(grep -c ' dlvsym ' "$log") dlvsym, $(grep -c ' dlmopen ' "$log") dlmopen, $(grep -cE 'unexported|inside ' "$log") pointers not at an exported symbol, flags seen: $(sed -n 's/.* flags=\([0-9]*\) .*/\1/p' "$log" | sort -u | tr '\n' ' ')"
	done
	sed "s/^/  /" "$OUT/$STEP/facts.txt" 2>/dev/null
}

step_summary() {
	local s name status secs note first=1
	{
		echo "GPU validation run $(date -u +%FT%TZ) on $(hostname)$([ "$SIM" = 1 ] && echo ' (SIMULATOR REHEARSAL)')"
		grep -A2 "^name, driver_version" "$OUT/env.txt"
		echo
		echo "step      status   seconds  note"
		cat "$OUT/status.txt"
		echo
		for s in $(step_names); do
			[ -f "$OUT/$s/facts.txt" ] || continue
			echo "[$s]"
			sed 's/^/  /' "$OUT/$s/facts.txt"
		done
	} >"$OUT/summary.txt"
	{
		echo "{"
		echo "  \"schema\": \"cudainspect-gpu-run/1\","
		echo "  \"simulator\": $([ "$SIM" = 1 ] && echo true || echo false),"
		echo "  \"steps\": {"
		while read -r name status secs note; do
			[ "$first" = 1 ] || echo ","
			first=0
			printf '    %s: {"status": %s, "seconds": %s, "note": %s' "$(json_str "$name")" \
				"$(json_str "$status")" "${secs:-0}" "$(json_str "${note:-}")"
			if [ -f "$OUT/$name/facts.txt" ]; then
				printf ', "facts": {'
				local k v sep=""
				while IFS='=' read -r k v; do
					printf '%s%s: %s' "$sep" "$(json_str "$k")" "$(json_str "$v")"
					sep=", "
				done <"$OUT/$name/facts.txt"
				printf '}'
			fi
			printf '}'
		done <"$OUT/status.txt"
		echo
		echo "  }"
		echo "}"
	} >"$OUT/summary.json"
	cat "$OUT/summary.txt"
}

# ---- one step (run.sh --step NAME runs this in its own process) -----------------------------

if [ -n "$STEP" ]; then
	mkdir -p "$OUT/$STEP" "$SCRATCH"
	trap 'rm -rf "$SCRATCH"' EXIT
	"step_$STEP"
	exit $?
fi

# ---- the run --------------------------------------------------------------------------------

# finish STATUS MESSAGE: write the summary (in this process, so that it sees every status line),
# say MESSAGE and exit.
finish() {
	STEP=summary
	mkdir -p "$OUT/summary"
	step_summary
	echo "$2"
	exit "$1"
}

PASS=() # options every step process gets
[ "$SIM" = 1 ] && PASS+=(--simulator)
[ "$REBUILD" = 1 ] && PASS+=(--rebuild)
echo "GPU validation run -> $OUT"
: >"$OUT/status.txt"
START=$(date +%s)
final=0
for s in "${STEPS[@]}"; do
	IFS=: read -r name limit _ <<<"$s"
	if [ -n "$ONLY" ] && [ "$name" != env ] && [ "$name" != driver ] && [ "$name" != summary ] &&
		! grep -qx "$name" <<<"${ONLY//,/$'\n'}"; then
		continue
	fi
	elapsed=$(($(date +%s) - START))
	left=$((DEADLINE - elapsed))
	if [ "$name" != summary ] && [ "$left" -lt 10 ]; then
		printf '%-9s %-8s %7s  %s\n' "$name" skipped 0 "out of time (${elapsed}s used)" >>"$OUT/status.txt"
		continue
	fi
	[ "$limit" -le "$left" ] || limit=$left
	if [ "$name" = summary ]; then
		finish "$final" "done in $(($(date +%s) - START)) s; results in $OUT"
	fi
	echo "== $name (limit ${limit}s)"
	t0=$(date +%s)
	rc=0
	STEP_LIMIT=$limit timeout -k 10 "$limit" "$SELF" --step "$name" --out "$OUT" "${PASS[@]}" || rc=$?
	secs=$(($(date +%s) - t0))
	case $rc in
	0) status=ok note="" ;;
	3) status=skipped note="precondition missing (see $name/notes.txt)" ;;
	124 | 137) status=timeout note="killed after ${limit}s" final=1 ;;
	*) status=failed note="exit $rc (see $name/)" final=1 ;;
	esac
	printf '%-9s %-8s %7s  %s\n' "$name" "$status" "$secs" "$note" >>"$OUT/status.txt"
	if [ "$rc" != 0 ]; then
		case $name in
		driver) finish 3 "no usable GPU driver here: nothing more to validate (see driver/notes.txt)" ;;
		build) finish 1 "no usable build: stopping (see build/notes.txt)" ;;
		esac
	fi
done
