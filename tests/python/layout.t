#!/usr/bin/env bash
# The layout tables of include/cudainspect/pylayout.h against each interpreter's own headers:
# tests/python/layout-probe.c, compiled with Py_BUILD_CORE against Debian's python3.11-dev
# headers and every pyenv build's, prints offsetof() of each field the reader follows;
# layout-table.c prints the table's row.  For 3.13 (which describes itself) the probe prints the
# _Py_DebugOffsets word of each field and the table program the reader's word indices.
. "$(dirname "$0")/../lib/tap.sh"
PYENV=${PYENV_ROOT:-/root/.pyenv}/versions
cc -I"$TOP/include" -o "$T/table" "$TOP/tests/python/layout-table.c" || skip_all "cannot compile"
incs=()
[ -e /usr/include/python3.11/Python.h ] && incs+=("debian-3.11:/usr/include/python3.11")
for d in "$PYENV"/3.1[0-3].*/include/python3.1[0-3]; do
	[ -e "$d/Python.h" ] && incs+=("$(basename "$(dirname "$(dirname "$d")")"):$d")
done
[ ${#incs[@]} -gt 0 ] || skip_all "no CPython 3.10-3.13 headers here (python3.11-dev, pyenv)"
for entry in "${incs[@]}"; do
	name=${entry%%:*} dir=${entry#*:}
	if ! cc -I"$dir" -I"$dir/internal" -o "$T/probe-$name" "$TOP/tests/python/layout-probe.c" 2>"$T/cc.err"; then
		ok "$name: the probe compiles against $dir ($(head -1 "$T/cc.err"))" false
		continue
	fi
	"$T/probe-$name" >"$T/probe-$name.out"
	minor=$(awk '$1 == "minor" { print $2 }' "$T/probe-$name.out")
	"$T/table" "$minor" >"$T/table-$name.out"
	if [ "$minor" = 13 ]; then
		is "$(grep '^pyd\.' "$T/probe-$name.out")" "$(cat "$T/table-$name.out")" \
			"$name: the reader's _Py_DebugOffsets word indices are the header's"
	else
		is "$(cat "$T/probe-$name.out")" "$(cat "$T/table-$name.out")" \
			"$name: every offset of the 3.$minor row is the header's"
	fi
done
done_testing
