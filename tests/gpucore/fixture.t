#!/usr/bin/env bash
# The real GPU core of the H200 run (shared/gpu/gpucore-h200-illegal-address.zst: a Triton kernel
# that stores 2^41 bytes past its first pointer argument, dumped by driver 580.159.04) read as it
# is, zstd and all, and compared with what cuda-gdb printed for it (the .cuda-gdb.txt next to it,
# parsed here, nothing hard-coded): the kernel, the exception, the focus (grid, block, thread,
# device, SM, warp, lane), the error PC with its function and line, the halted PC with the
# launch's dimensions and line, the kernel's row of `info cuda kernels` (device, grid, status,
# dimensions, SMs in its mask); the device's name from the fixture's README title.  Then what
# cuda-gdb does not print: the faulting address from the STG at the error PC, which must be the
# first pointer argument plus 2^41 plus the thread's element (4 bytes per thread of the block).
. "$(dirname "$0")/../lib/tap.sh"
SHARED=${CI_SHARED:-$TOP/../shared}
G=$SHARED/gpu
FIX=$G/gpucore-h200-illegal-address.zst
ORACLE=$G/gpucore-h200-illegal-address.cuda-gdb.txt
DUMP=$B/tests/gpucore/gpucore-dump
[ -x "$DUMP" ] || skip_all "$DUMP is not built (make check builds it)"
[ -r "$FIX" ] && [ -r "$ORACLE" ] || skip_all "the H200 GPU core fixture is not in $G (the shared fixtures live next to the repository)"
plan 27

out=$("$DUMP" "$FIX" 2>"$T/err")
ok "the fixture reads (zstd, $(stat -c %s "$FIX") bytes)" test -n "$out"
key() { printf '%s\n' "$out" | sed -n "s/^$1: //p" | head -1; }

# --- the oracle -------------------------------------------------------------------------------
. "$(dirname "$0")/oracle.sh"
isnt "$exc$o_kernel$o_grid$o_block$o_thread$o_pc$o_line$o_kgrid$o_mask" "" "the oracle parsed"

# --- what the reader says ---------------------------------------------------------------------
is "$(key exception | sed 's/ (.*//')" "$exc" "exception in cuda-gdb's words: $exc"
is "$(key kernel)" "$o_kernel" "kernel: $o_kernel"
is "$(key grid)" "$o_grid" "grid id $o_grid"
is "$(key block)" "$o_block" "block $o_block"
is "$(key thread)" "$o_thread" "thread $o_thread"
is "$(key device)" "$o_device" "device $o_device"
is "$(key sm)" "$o_sm" "SM $o_sm"
is "$(key warp)" "$o_warp" "warp $o_warp"
is "$(key lane)" "$o_lane" "lane $o_lane"
is "$(key error_pc | awk '{print $1}')" "$o_errpc" "error PC $o_errpc"
is "$(key error_pc | awk '{print $2}' | sed 's/+0x[0-9a-f]*$//')" "$o_kernel" "the error PC is in $o_kernel"
# The fixture's paths were rewritten for publication, in the dump and in the oracle differently
# (same length in the binary): the file's name and the line are what can agree.
errsrc=$(key error_pc_source)
is "$(basename "${errsrc%:*}"):${errsrc##*:}" "$o_errline" "error PC's line: $o_errline"
is "$(printf '0x%x' "$(key pc | awk '{print $1}')")" "$(printf '0x%x' "$o_pc")" "halted PC $o_pc"
pcsrc=$(key pc_source)
is "${pcsrc##*:}" "$o_line" "halted PC's line: $o_line"
is "$(basename "${pcsrc%:*}")" "$(basename "$o_path")" "halted PC's file: $(basename "$o_path")"
is "$(key grid_dim)" "$o_griddim" "grid dimensions $o_griddim"
is "$(key block_dim)" "$o_blockdim" "block dimensions $o_blockdim"
is "$(key grid_dim)" "$o_kgriddim" "info cuda kernels: grid dimensions"
is "$(key block_dim)" "$o_kblockdim" "info cuda kernels: block dimensions"
gridline=$(printf '%s\n' "$out" | grep "^grid $o_kgrid: device $o_kdev, $o_kernel, $o_status,")
isnt "$gridline" "" "info cuda kernels: grid $o_kgrid on device $o_kdev is $o_status"
# SMs in the kernel's mask (hex digits' bits) = SMs holding its blocks in the dump.
bits=0
hex=${o_mask#0x}
for ((i = 0; i < ${#hex}; i++)); do
	d=$((16#${hex:i:1}))
	while [ $d -gt 0 ]; do bits=$((bits + (d & 1))); d=$((d >> 1)); done
done
like "$gridline" " on $bits SMs\$" "info cuda kernels: $bits SMs in the mask, $bits SMs hold its blocks"
like "$(printf '%s\n' "$out" | grep "^device $o_device:")" "^device $o_device: $o_devname \\(" "device $o_device is the $o_devname"

# --- the address (not in cuda-gdb's output) ------------------------------------------------------
is "$(key instruction)" "STG.E [R6.64], R5" "the instruction at the error PC: the store"
addr=$(key address) arg0=$(key 'param_word 0')
bx=$(printf '%s' "$o_block" | tr -d '()' | cut -d, -f1) tx=$(printf '%s' "$o_thread" | tr -d '()' | cut -d, -f1)
bd=$(printf '%s' "$o_blockdim" | tr -d '()' | cut -d, -f1)
is "$(printf '0x%x' $((addr - arg0)))" "$(printf '0x%x' $(((1 << 41) + 4 * (bx * bd + tx))))" \
	"faulting address $addr = argument 0 + 2^41 + 4 x (block x $bd + thread)"
is "$(cat "$T/err")$(printf '%s\n' "$out" | grep '^warning:')" "" "no warnings"
done_testing
