#!/usr/bin/env bash
# `make demo`: run the test engine with a planted out-of-bounds fault under the flight recorder,
# with core dumps on, in a scratch directory, and show what cudainspect says about the core.
# On a machine with a GPU (nvidia-smi works and libcuda.so.1 loads) the real driver is used;
# otherwise the simulated driver in build/sim.  `make` has already built everything.
#   scripts/demo.sh [--fault KIND] [--clean]    (KIND: oob uaf multistream crossthread badlaunch)
# The scratch directory (core, record snapshot) is kept for a closer look unless --clean.
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
fault=oob
clean=false
while [ $# -gt 0 ]; do
	case $1 in
	--fault) fault=${2:?--fault needs a kind}; shift 2 ;;
	--clean) clean=true; shift ;;
	-h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo: unknown argument $1 (try --help)" >&2; exit 2 ;;
	esac
done

for f in cudainspect libcudainspect-rec.so miniengine; do
	if [ ! -e "$B/$f" ]; then
		echo "demo: $B/$f is missing; run 'make' first (make demo does)" >&2
		exit 1
	fi
done

gpu=false
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 &&
	{ ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; }; then
	gpu=true
fi
if $gpu; then
	driver="the real CUDA driver ($(nvidia-smi -L 2>/dev/null | head -1))"
	unset CUDASIM_FAULT CUDASIM_HANG
else
	if [ ! -e "$B/sim/libcuda.so.1" ]; then
		echo "demo: no GPU here and the simulated driver $B/sim/libcuda.so.1 is missing; run 'make'" >&2
		exit 1
	fi
	driver="the simulated CUDA driver (no GPU found: nvidia-smi/libcuda.so.1 unavailable)"
	export LD_LIBRARY_PATH=$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/cudainspect-demo.XXXXXX")
$clean && trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
ulimit -c unlimited 2>/dev/null || echo "demo: cannot raise the core-size limit; the report will come from the record snapshot" >&2

# The introduction, wrapped to the terminal (paths and the driver's name vary in length).
cols=${COLUMNS:-$(tput cols 2>/dev/null || echo 80)}
[ "$cols" -ge 40 ] 2>/dev/null || cols=80
echo "== cudainspect demo =="
fold -s -w "$cols" <<EOF | sed "s/ *$//"
Running: miniengine --fault $fault (a small multi-threaded, multi-stream decode loop with a planted bug), on $driver, under the flight recorder (cudainspect record), in $scratch. The engine checks every CUDA call and aborts on the first error, like real engines do.
EOF
echo
"$B/cudainspect" record -d "$scratch/records" -- "$B/miniengine" --fault "$fault" --quiet
rc=$?
echo
if [ "$rc" -ge 128 ]; then
	echo "== The engine died of signal $((rc - 128)); the report above comes from what it left behind. =="
	if ! $clean; then
		core=
		for c in "$scratch"/core*; do [ -f "$c" ] && core=$c; done
		echo "Look closer:  $B/cudainspect ${core:-$scratch/records/*.cisnap} fault"
		echo "  (other views: kernels, streams, graphs, allocs --freed, errors, threads, all; or --json)"
		echo "Remove with:  rm -rf $scratch"
	fi
	exit 0
fi
echo "demo: the engine exited with status $rc instead of crashing; see docs/ENGINES.md" >&2
exit 1
