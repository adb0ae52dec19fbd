# Shared by the tests/reader/*.t scripts: run a C unit test (TAP on stdout) and re-emit its
# results through tap.sh, so that one .t can add its own checks after it.
run_c_test() { # binary args...
	local bin=$1; shift
	if [ ! -x "$bin" ]; then
		_tap_result 1 "$(basename "$bin") is built (run make check)"
		return
	fi
	local out rc=0
	out=$("$bin" "$@" 2>&1) || rc=$?
	while IFS= read -r l; do
		case $l in
		"ok "*) _tap_result 0 "${l#ok * - }" ;;
		"not ok "*) _tap_result 1 "${l#not ok * - }" ;;
		"# "*) diag "${l#\# }" ;;
		esac
	done <<<"$out"
	[ "$rc" -eq 0 ] || case $out in *"not ok"*) ;; *) _tap_result 1 "$(basename "$bin") exited $rc";; esac
}

# PRELOAD: the recorder to preload into a test engine.  Under ASan the recorder is an ASan
# build: its runtime must come first, and ASan turns core dumps off unless asked.
recorder_preload() {
	PRELOAD=$B/libcudainspect-rec.so
	if [ "${CI_SANITIZE:-}" = address ]; then
		PRELOAD="$(${CC:-gcc} -print-file-name=libasan.so) $PRELOAD"
		export ASAN_OPTIONS=disable_coredump=0:detect_leaks=0
	fi
}

# need_core_tests PROGRAM...: the prelude of the tests on real cores of engines under the
# recorder: skip unless the CLI, the recorder, the simulated driver and PROGRAM... (relative to
# $B) are built, jq is installed and cores are written as `core`; then clear the simulator's and
# the recorder's variables from the environment.
need_core_tests() {
	local f v
	for f in cudainspect libcudainspect-rec.so sim/libcuda.so.1 "$@"; do
		[ -e "$B/$f" ] || skip_all "$B/$f is not built"
	done
	command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
	[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
	unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDASIM_KERNEL_US DEBUGINFOD_URLS
	for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
}
