#!/usr/bin/env bash
# `pip install cudainspect` (make wheel; packaging/wheel/): the manylinux wheel installs into a
# fresh virtual environment without an index, and everything then runs from the installed
# wheel alone: `cudainspect --version` and `python -m cudainspect`, the CLI on the libraries
# auditwheel grafted in, `cudainspect record` of a planted fault on the simulated driver with
# the wheel's own recorder, a Python program whose CUDA error becomes an exception, the manual
# pages where man finds them, and the GDB command file with its launcher.
. "$(dirname "$0")/../lib/tap.sh"
# make check-asan builds the wheel from the ASan build: its CLI and recorder run only with the
# ASan runtime loaded first, which no installed console script or engine does.
[ "${CI_SANITIZE:-}" = address ] &&
	skip_all "the ASan build's wheel needs the ASan runtime preloaded (make check tests the plain build's)"
whl=$(ls "$B"/wheel/dist/cudainspect-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || skip_all "no wheel in $B/wheel/dist (make wheel needs the pinned tools of make deps, from PyPI)"
PY=/usr/bin/python3.11
[ -x "$PY" ] || PY=$(command -v python3)
version=$(sed -n 's/^#define CUDAINSPECT_VERSION "\(.*\)"/\1/p' "$TOP/include/cudainspect/cudainspect.h")
like "$(basename "$whl")" "^cudainspect-$version-py3-none-manylinux_2_[0-9]+_$(uname -m)\.whl$" \
	"the wheel is a manylinux platform wheel of version $version, for any Python 3"

V=$T/venv
"$PY" -m venv "$V" >"$T/venv.log" 2>&1 || skip_all "cannot make a virtual environment with $PY (python3-venv)"
"$V/bin/pip" install -q --no-index --disable-pip-version-check "$whl" >"$T/pip.log" 2>&1
is "$?" 0 "pip installs the wheel into a fresh virtual environment without an index"
is "$("$V/bin/cudainspect" --version)" "cudainspect $version" "cudainspect --version from the console script"
is "$("$V/bin/python" -m cudainspect --version)" "cudainspect $version" "python -m cudainspect --version"
site=$("$V/bin/python" -c 'import cudainspect, os; print(os.path.dirname(cudainspect.__file__))')
bin=$site/bin/cudainspect
like "$(ldd "$bin")" "libdw[^ ]* => $site/\.\./cudainspect\.libs/|libdw[^ ]* => [^ ]*cudainspect\.libs/" \
	"the installed CLI takes elfutils from the libraries grafted into the wheel"
like "$(ldd "$bin")" "libjansson[^ ]* => [^ ]*cudainspect\.libs/" \
	"and jansson (merge's JSON reader) too, for hosts without it"
unlike "$(ldd "$bin")" "not found" "and nothing it needs is missing"
ok "the recorder and the GDB plugin are in the package" test -f "$site/lib/libcudainspect-rec.so" -a -f "$site/lib/cudainspect.so"
is "$("$V/bin/cudainspect" --print-preload)" "$("$V/bin/python" -c 'import cudainspect; print(cudainspect.RECORDER)')" \
	"--print-preload names the wheel's recorder, as the package does"

# The demo fault through the installed `cudainspect record`, which finds the wheel's recorder.
if [ -x "$B/miniengine" ] && [ -e "$B/sim/libcuda.so.1" ]; then
	mkdir -p "$T/demo"
	(cd "$T/demo" && LD_LIBRARY_PATH=$B/sim timeout 60 "$V/bin/cudainspect" record -- "$B/miniengine" --fault oob) \
		>"$T/demo/out" 2>"$T/demo/err"
	is "$?" 134 "record: the planted fault aborts the engine (exit 134 passed through)"
	like "$(cat "$T/demo/out")" "Faulting kernel: paged_attention" "record: the summary names the faulting kernel"
	# The core's list of mapped files (NT_FILE) names the recorder the engine had loaded.
	core=$(ls "$T"/demo/core* 2>/dev/null | head -1)
	ok "record: the engine ran the wheel's own recorder ($site/lib/libcudainspect-rec.so)" \
		grep -qaF "$site/lib/libcudainspect-rec.so" "${core:-/dev/null}"
else
	skip "miniengine or the simulated driver is not built" 3
fi

# merge through jansson from the wheel: a 2-rank job (a device fault planted on rank 1) under
# the wheel's recorder, each rank's core turned into the JSON document of the wheel's CLI, the
# documents merged by it.
if [ -x "$B/ncclengine" ] && [ -e "$B/sim/libnccl.so.2" ] && command -v jq >/dev/null; then
	mkdir -p "$T/job"
	(cd "$T/job" && ulimit -c unlimited && LD_LIBRARY_PATH=$B/sim CUDASIM_KERNEL_US=100 \
		LD_PRELOAD=$("$V/bin/cudainspect" --print-preload) CUDAINSPECT_QUIET=1 timeout 60 \
		"$B/ncclengine" --ranks 2 --steps 4 --fault device --fault-rank 1 --watchdog 1 \
		--rank-dir "$T/job/r") >"$T/job/out" 2>"$T/job/err"
	for r in 0 1; do
		"$V/bin/cudainspect" --json "$(ls "$T"/job/r$r/core* | head -1)" >"$T/job/rank$r.json"
	done
	is "$("$V/bin/cudainspect" merge --json "$T"/job/rank*.json | jq -c '[[.inputs[].status], .first_failure.rank]')" \
		'[["used","used"],1]' "merge: the wheel's CLI reads both JSON documents and names rank 1"
else
	skip "ncclengine, the simulated NCCL or jq is missing"
fi

# A Python program whose CUDA error becomes an exception (tests/python/pyengine.py).
if [ -x /usr/bin/python3.11 ] && [ -e "$B/sim/libcuda.so.1" ]; then
	mkdir -p "$T/py"
	(cd "$T/py" && CUDASIM_FAULT=py_step@5 timeout 60 "$V/bin/cudainspect" record -- /usr/bin/python3.11 \
		"$TOP/tests/python/pyengine.py" "$B/sim/libcuda.so.1" "$T/py/expect" exit) >"$T/py/out" 2>"$T/py/err"
	is "$?" 1 "Python: the exception's exit status 1 passed through"
	like "$(cat "$T/py/out")" "launched at Engine\.launch \(pyengine\.py:[0-9]+\) \[Python\]" \
		"Python: the summary gives the faulting launch's Python line"
else
	skip "Debian's python3.11 or the simulated driver is missing" 2
fi

# The manual pages go where man looks for a program in the environment's bin/.
if command -v man >/dev/null; then
	like "$(PATH=$V/bin:$PATH MANPATH= man -w cudainspect 2>/dev/null)" "^$V/share/man/man1/cudainspect\.1" \
		"man cudainspect finds the wheel's page"
	like "$(PATH=$V/bin:$PATH MANPATH= man -w 7 libcudainspect-rec 2>/dev/null)" "^$V/share/man/man7/" \
		"man libcudainspect-rec finds the wheel's page"
else
	skip "no man" 2
fi

# GDB: the wheel's command file runs its launcher through PATH, which runs the wheel's CLI.
core=$(ls "$T"/demo/core* 2>/dev/null | head -1)
if command -v gdb >/dev/null && [ -n "$core" ]; then
	out=$(cd "$T/demo" && PATH=$V/bin:$PATH timeout 120 gdb -q -nx -batch -iex 'set debuginfod enabled off' \
		-ex "source $site/share/gdb/cudainspect.gdb" -ex 'cuda summary' "$B/miniengine" "$core" 2>&1)
	like "$out" "Faulting kernel: paged_attention" "GDB: cuda summary through the wheel's command file and launcher"
else
	skip "no gdb or no core" 1
fi
done_testing
