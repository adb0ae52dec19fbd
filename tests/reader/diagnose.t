#!/usr/bin/env bash
# The diagnosis on hand-built records: breadcrumb states, faulting-launch rules, attribution.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/diagnose_test"
done_testing
