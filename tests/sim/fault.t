#!/usr/bin/env bash
# Injected faults and hangs (tests/sim/fault.c): CUDASIM_FAULT stops the faulting stream and every
# other stream of the context, keeps earlier breadcrumbs and drops later ones, and makes later
# calls return CUDA_ERROR_ILLEGAL_ADDRESS; launches are counted per kernel name; CUDASIM_HANG
# blocks one stream forever.  Each case runs in both the async and the null mode where it applies.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=1000

CUDASIM_FAULT=step@5 sim_run fault fault; ok "fault: exits 0" test $? -eq 0
ok "fault: all pass" tap_clean "$T/fault.tap"
CUDASIM_FAULT=step@5 CUDASIM_VERBOSE=1 sim_run fault fault
like "$(cat "$T/fault.err")" "cudasim: kernel step \(launch #5\) faults" "verbose mode reports the fault"
CUDASIM_FAULT=noargs@3,step@2 sim_run fault count; ok "count: exits 0" test $? -eq 0
ok "count: all pass" tap_clean "$T/fault.tap"
CUDASIM_FAULT=noargs@3,step@2 CUDASIM_MODE=null sim_run fault count
ok "count in null mode: all pass" tap_clean "$T/fault.tap"
CUDASIM_FAULT=noargs@3,step@2:assert sim_run fault count CUDA_ERROR_ASSERT
ok "count with :assert poisons the context with CUDA_ERROR_ASSERT" tap_clean "$T/fault.tap"
CUDASIM_FAULT=step@2:CUDA_ERROR_LAUNCH_FAILED,noargs@3 sim_run fault count CUDA_ERROR_LAUNCH_FAILED
ok "count with :CUDA_ERROR_LAUNCH_FAILED" tap_clean "$T/fault.tap"
CUDASIM_FAULT=step@2:716,noargs@3 sim_run fault count CUDA_ERROR_MISALIGNED_ADDRESS
ok "count with :716 (misaligned address)" tap_clean "$T/fault.tap"
CUDASIM_HANG=step@2 sim_run fault hang; ok "hang: exits 0" test $? -eq 0
ok "hang: all pass" tap_clean "$T/fault.tap"
done_testing
