# Shared by tests/python/*.t (sourced after tests/lib/tap.sh): the interpreters, running
# pyengine.py under the recorder into a core, and comparing stacks.
#   python_interpreters   Debian's python3.11 and the pyenv 3.10/3.12/3.13 builds present
#   py_version PY         "3.11"
#   py_core PY MODE DIR   run pyengine.py MODE in DIR with cores on; sets $core and $rc
#                         (PRELOAD= in the environment: without the recorder)
#   py_compare EXPECT KIND FILE   tests/python/compare.py
#   py_role_tid EXPECT ROLE       the native thread id the engine wrote for ROLE
CLI=$B/cudainspect
REC=$B/libcudainspect-rec.so
SIM=$B/sim/libcuda.so.1
ENGINE=$TOP/tests/python/pyengine.py
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions

need_python_tests() {
	[ -x /usr/bin/python3.11 ] || skip_all "Debian's /usr/bin/python3.11 is not installed"
	[ -x "$CLI" ] && [ -e "$REC" ] && [ -e "$SIM" ] || skip_all "not built (make)"
	if [ "${CI_SANITIZE:-}" = address ]; then
		# The recorder is an ASan build there: its runtime goes first, ASan keeps cores on
		# and leaves the fatal signals to the program (as tests/recorder/rec-lib.sh does).
		local asan
		asan=$(${CC:-gcc} -print-file-name=libasan.so)
		[ -e "$asan" ] || skip_all "no ASan runtime to preload before the ASan-built recorder"
		REC="$asan $REC"
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0:detect_leaks=0:verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
	fi
}

python_interpreters() {
	echo /usr/bin/python3.11
	local v p
	for v in 3.10 3.12 3.13; do
		p=$(ls -d "$PYENV/$v".*/bin/python$v 2>/dev/null | tail -1)
		if [ -n "$p" ] && [ -x "$p" ]; then echo "$p"; else
			echo "# python $v is not installed here (pyenv $PYENV/$v.*): skipped" >&2; fi
	done
}

py_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }

py_core() {
	local py=$1 mode=$2 dir=$3
	mkdir -p "$dir"
	rc=0
	{ (ulimit -c unlimited && cd "$dir" && LD_PRELOAD=${PRELOAD-$REC} exec timeout -k 5 60 "$py" "$ENGINE" \
		"$SIM" "$dir/expect" "$mode") >"$dir/out" 2>"$dir/err"; } 2>/dev/null || rc=$?
	core=$(ls "$dir"/core* 2>/dev/null | head -1)
}

py_compare() { /usr/bin/python3.11 "$TOP/tests/python/compare.py" "$@"; }

py_role_tid() {
	/usr/bin/python3.11 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["role"] == sys.argv[2]: print(d["native_id"])' "$1" "$2"
}
