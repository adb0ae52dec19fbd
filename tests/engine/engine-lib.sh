# Shared by tests/engine/*.t (sourced after tests/lib/tap.sh): the simulated driver on the
# library path, launchspy, and running an engine with core dumps enabled.

# Skip the whole file unless the engines and the simulated driver are built.
need_engines() {
	local p
	for p in "$@"; do
		[ -x "$B/$p" ] || skip_all "$B/$p is not built (make)"
	done
	[ -e "$B/sim/libcuda.so.1" ] || skip_all "the simulated driver $B/sim/libcuda.so.1 is not built"
	export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDASIM_KERNEL_US CUDASIM_VERBOSE
	cd "$TOP" || exit 1 # CHECK lines name files relative to the top of the tree
}

asan() { [ "${CI_SANITIZE:-}" = address ]; }

SPY="$B/tests/engine/liblaunchspy.so"

# spy LOG CMD...: run CMD with launchspy writing LOG.  An ASan engine accepts a preloaded
# library that is not its runtime only with verify_asan_link_order=0.
spy() {
	local log=$1
	shift
	LAUNCHSPY_LOG=$log LD_PRELOAD=$SPY \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@"
}

# run_in DIR CMD...: run CMD (under `timeout 60`) in DIR (created) with core dumps enabled;
# stdout to DIR/out, stderr to DIR/err; sets $rc.  Relative program paths resolve from $TOP.
run_in() {
	local dir=$1
	shift
	mkdir -p "$dir"
	rc=0
	{ (ulimit -c unlimited && cd "$dir" && exec timeout -k 5 60 "$@") >"$dir/out" 2>"$dir/err"; } 2>/dev/null || rc=$?
}

# core_in DIR: path of the core dump written in DIR, if any.
core_in() { ls "$1"/core* 2>/dev/null | head -1; }

# hexadd A B: A + B for hexadecimal A (no 0x) and decimal B, as lowercase hex.
hexadd() { printf '%x' $((0x$1 + $2)); }
