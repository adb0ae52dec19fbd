#!/usr/bin/env bash
# An independent check: Bloomberg's pystack (PyPI, pinned; `make deps` installs it into
# $B/pyvenv) reads the same kernel cores of tests/python/pyengine.py.  For every thread it lists,
# our Python frames (file, function, line) must be pystack's (`pystack core CORE`; pystack names
# functions by co_name, ours are qualified names, so the last component is compared), the GIL
# holder the same; and pystack's frames must be what the engine wrote about itself.  Debian's
# python3.11 always, the pyenv 3.10/3.12/3.13 builds where present.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests
PYSTACK=$B/pyvenv/bin/pystack
[ -x "$PYSTACK" ] || skip_all "pystack is not installed in $B/pyvenv (make deps: it needs PyPI)"

for py in $(python_interpreters); do
	v=$(py_version "$py")
	py_core "$py" hostfunc "$T/$v"
	if [ -z "$core" ]; then
		ok "$v: the engine dumped core (rc $rc)" false
		continue
	fi
	"$CLI" "$core" --json >"$T/$v/report.json" 2>/dev/null
	timeout 120 "$PYSTACK" core "$core" >"$T/$v/pystack.txt" 2>"$T/$v/pystack.err"
	is "$?" 0 "$v: pystack reads the core"
	res=$(py_compare --threads "$T/$v/report.json" "$T/$v/pystack.txt")
	is "$(printf '%s\n' "$res" | grep -c '^ok ')" 3 "$v: pystack lists the 3 Python threads"
	unlike "$res" "^bad" "$v: every thread's Python frames equal pystack's"
	unlike "$res" "^gil-differs" "$v: the GIL holder is pystack's"
	res=$(py_compare "$T/$v/expect" pystack "$T/$v/pystack.txt")
	is "$(printf '%s\n' "$res" | grep -c '^ok ')" 3 "$v: pystack's frames are the engine's own (the check checks itself)"
done
done_testing
