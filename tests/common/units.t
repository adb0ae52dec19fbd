#!/usr/bin/env bash
# The helpers the recorder and the reader share (common/): the size parser and the UTF-8 encoder.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../reader/unit.sh"
run_c_test "$B/tests/common/common_test"
done_testing
