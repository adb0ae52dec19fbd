#!/usr/bin/env bash
# Python frames into a native stack, merged or in two blocks, always in stack order
# (corefile/symbolize/python_core.c ci_py_merge).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/pymerge_test"
done_testing
