#!/usr/bin/env bash
# Stream capture and graph replay (tests/sim/capture.c), in the async and the null mode.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=1000 CUDASIM_FAULT=step@7
sim_run capture; ok "capture.c exits 0" test $? -eq 0
ok "capture.c: all pass" tap_clean "$T/capture.tap"
CUDASIM_MODE=null sim_run capture; ok "capture.c in null mode exits 0" test $? -eq 0
ok "capture.c in null mode: all pass" tap_clean "$T/capture.tap"
done_testing
