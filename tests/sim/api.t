#!/usr/bin/env bash
# Driver API error codes and queries (tests/sim/api.c): NOT_INITIALIZED before cuInit,
# INVALID_CONTEXT without a context, invalid handles and values, launch configuration errors that
# leave the context usable, context stacks, primary retain counts, device attributes, names and
# parameter info; then cuGetErrorName against every CUresult in cuda.h, and CUDASIM_* parsing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

sim_run api; ok "api.c exits 0" test $? -eq 0
ok "api.c: all pass" tap_clean "$T/api.tap"

# Every enumerator of CUresult in cuda.h has its own name and a message.
CUDA_H=${CUDA_HOME:-/usr/local/cuda}/include/cuda.h
awk '/typedef enum cudaError_enum/,/} CUresult;/' "$CUDA_H" |
	sed -n 's/^ *\(CUDA_[A-Z0-9_]*\) *= *\([0-9]*\).*/\2 \1/p' > "$T/codes"
ok "cuda.h lists error codes ($(wc -l < "$T/codes"))" test "$(wc -l < "$T/codes")" -gt 90
LD_LIBRARY_PATH=$B/sim "$B/tests/sim/api" errname $(awk '{print $1}' "$T/codes") > "$T/names"
want=$(awk '{print $1, 0, $2, 0, "text"}' "$T/codes")
is "$(cat "$T/names")" "$want" "cuGetErrorName/String know every CUresult of cuda.h"
is "$(LD_LIBRARY_PATH=$B/sim "$B/tests/sim/api" errname 12345)" "12345 1 (null) 1 (none)" \
	"an unknown code is INVALID_VALUE with a NULL string"

# Configuration: malformed CUDASIM_* values make cuInit fail loudly instead of being ignored.
for bad in 'CUDASIM_FAULT=step@0' 'CUDASIM_FAULT=step@x' 'CUDASIM_HANG=@3' 'CUDASIM_KERNEL_US=fast' \
	'CUDASIM_MODE=turbo' 'CUDASIM_DEVICES=99' 'CUDASIM_MEM=12Q' 'CUDASIM_FAULT=step:bogus' \
	'CUDASIM_FAULT=step@2:701' 'CUDASIM_HANG=step:assert'; do
	out=$(env "$bad" LD_LIBRARY_PATH=$B/sim "$B/tests/sim/api" init 2>"$T/err")
	is "$out" CUDA_ERROR_INVALID_VALUE "$bad: cuInit fails"
	like "$(cat "$T/err")" "^cudasim: ${bad%%=*}=" "$bad: one line on stderr names the variable"
done
is "$(CUDASIM_DEVICES=0 LD_LIBRARY_PATH=$B/sim "$B/tests/sim/api" init)" CUDA_ERROR_NO_DEVICE \
	"CUDASIM_DEVICES=0: cuInit returns CUDA_ERROR_NO_DEVICE"
is "$(LD_LIBRARY_PATH=$B/sim "$B/tests/sim/api" fork)" "CUDA_ERROR_NOT_INITIALIZED CUDA_ERROR_NOT_INITIALIZED
parent CUDA_SUCCESS" "a forked child cannot use the driver; the parent still can"
CUDASIM_DEVICES=2 CUDASIM_MEM=1G sim_run api two-devices; ok "two devices: exits 0" test $? -eq 0
ok "two devices: all pass" tap_clean "$T/api.tap"
done_testing
