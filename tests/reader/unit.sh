# Shared by the tests/reader/*.t wrappers: run a C unit test (TAP on stdout) and re-emit its
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
