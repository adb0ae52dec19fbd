#!/usr/bin/env bash
# End to end on the simulated driver: miniengine with a planted fault and the driver's GPU core
# variables set writes a GPU core that the reader reads back, naming the planted kernel, its
# launch (the grid id is the launch's ordinal among paged_attention launches, the N of
# CUDASIM_FAULT), the block and thread and, where the plant has an address, the address; the
# process aborts after the dump as with the real driver, leaving a host core next to it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../engine/engine-lib.sh"
need_engines miniengine
DUMP=$B/tests/gpucore/gpucore-dump
[ -x "$DUMP" ] || skip_all "$DUMP is not built (make check builds it)"
unset CUDA_COREDUMP_FILE CUDA_COREDUMP_GENERATION_FLAGS CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION
plan 14
key() { printf '%s\n' "$2" | sed -n "s/^$1: //p" | head -1; }

# The engine's own plant (--fault oob): CUDASIM_FAULT=paged_attention@N, no address.
d=$T/oob
run_in "$d" env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$d/gpu.%p" "$B/miniengine" --fault oob --verbose
is "$rc" 134 "oob: the process aborts after the GPU core"
n=$(sed -n 's/.*CUDASIM_FAULT=paged_attention@\([0-9]*\)$/\1/p' "$d/err" | head -1)
g=$(ls "$d"/gpu.* 2>/dev/null | head -1)
ok "oob: a GPU core was written" test -s "$g"
out=$("$DUMP" "$g" 2>&1)
is "$(key kernel "$out")" paged_attention "oob: the planted kernel"
is "$(key grid "$out")" "$n" "oob: grid id $n, the planted launch"
is "$(key exception "$out")" "Warp Illegal Address (WARP_ILLEGAL_ADDRESS, 14)" "oob: Warp Illegal Address"
gx=$(key grid_dim "$out" | tr -d '()' | cut -d, -f1)
is "$(key block "$out") $(key thread "$out")" "($((gx - 1)),0,0) (0,0,0)" "oob: the last block's first thread"
like "$(key address "$out")" "^not known" "oob: no address planted, none claimed"
if asan; then skip "oob: host core (ASan disables core dumps)"; else ok "oob: and a host core" test -s "$(core_in "$d")"; fi

# An explicit plant with an address, a block and a thread.
d=$T/addr
run_in "$d" env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$d/gpu.core" \
	CUDASIM_FAULT='paged_attention@5:arg=2+64:block=3:thread=70' "$B/miniengine" --quiet
is "$rc" 134 "planted: the process aborts after the GPU core"
out=$("$DUMP" "$d/gpu.core" 2>&1)
is "$(key kernel "$out") $(key grid "$out")" "paged_attention 5" "planted: paged_attention, launch 5"
is "$(key block "$out") $(key thread "$out")" "(3,0,0) (70,0,0)" "planted: block 3, thread 70"
is "$(key lane "$out") $(key warp "$out")" "6 2" "planted: thread 70 is lane 6 of warp 2"
kc=$(key 'param_word 2' "$out")
is "$(key address "$out")" "$(printf '0x%x' $((kc + 64)))" "planted: the address is argument 2 (k_cache) + 64"
like "$(key error_pc_source "$out")" '^paged_attention\.ptx:[0-9]+$' "planted: a line of the module's PTX"
done_testing
