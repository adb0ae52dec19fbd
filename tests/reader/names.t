#!/usr/bin/env bash
# Kernel names in the summary (names_test.c): the brief-name rule against hand-written
# expectations for real PyTorch, cuBLAS and CUTLASS names and malformed ones, and a faulting
# graph replay of 18 such kernels rendered by the real renderer (collapsed runs, the faulting
# node and its neighbours, widths, no name cut without "…", full names in the graphs view and
# JSON).  Under valgrind too where it is installed: no read past a malformed name.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/names_test"
if command -v valgrind >/dev/null && [ "${CI_SANITIZE:-}" != address ]; then
	out=$(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$B/tests/reader/names_test" 2>&1 >/dev/null); rc=$?
	is "$rc" 0 "names_test under valgrind: no invalid read or write, no leak${out:+ ($(printf '%s' "$out" | head -3 | tr '\n' ' '))}"
else
	skip "valgrind is not installed or this is an ASan build"
fi
done_testing
