#!/usr/bin/env bash
# The fault page against the arguments (corefile/diagnose/xid.c), with the H200 run's numbers.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/relation_test"
done_testing
