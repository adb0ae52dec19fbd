#!/usr/bin/env bash
# GPU cores the simulated driver writes (testcases/sim/gpucore.c, docs/SIMULATOR.md "GPU core
# dumps"), read back by the reader (tests/gpucore/gpucore-dump): gcprobe launches probe_store and
# CUDASIM_FAULT plants the fault, its thread and address; the dump must name the kernel, block,
# thread, exception, line (from the PTX's .loc, or its own text without), the access at the error
# PC and its address.  The driver's variables: CUDA_COREDUMP_FILE's %p %h %t, the default name,
# the generation flags (skip_nonrelocated_elf_images, skip_abort, an unknown one), the abort after
# the dump and CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0, no dump without
# CUDA_ENABLE_COREDUMP_ON_EXCEPTION.
. "$(dirname "$0")/../lib/tap.sh"
DUMP=$B/tests/gpucore/gpucore-dump PROBE=$B/tests/gpucore/gcprobe
[ -x "$DUMP" ] && [ -x "$PROBE" ] && [ -e "$B/sim/libcuda.so.1" ] || skip_all "gpucore-dump, gcprobe or the simulator is not built (make check builds them)"
unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDA_COREDUMP_FILE CUDA_COREDUMP_GENERATION_FLAGS \
	CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION CUDA_COREDUMP_SHOW_PROGRESS
export CUDASIM_KERNEL_US=0
plan 36

# probe NAME FAULT [ENV=VALUE...] -- [GCPROBE ARGS]: run gcprobe in $T/NAME with GPU cores on;
# rc, out and err are set.
probe() {
	local name=$1 fault=$2
	shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	mkdir -p "$T/$name"
	{ (cd "$T/$name" && ulimit -c 0 && exec env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDASIM_FAULT="$fault" \
		LD_LIBRARY_PATH="$B/sim" "${envs[@]}" "$PROBE" "$@" >"$T/$name/out" 2>"$T/$name/err"); } 2>/dev/null
	rc=$?
	out=$(cat "$T/$name/out") err=$(cat "$T/$name/err")
}
key() { printf '%s\n' "$2" | sed -n "s/^$1: //p" | head -1; }
word() { printf '%s\n' "$out" | sed -n "s/^$1 //p"; }

# --- a store with line information, the file name from the template ------------------------------
probe loc 'probe_store:arg=0+4096:access=write:block=2:thread=37' \
	CUDA_COREDUMP_FILE="gc.%p.%h.%t" CUDA_COREDUMP_GENERATION_FLAGS=skip_abort,bogus -- --loc --grid 4,2 --block 32,2
is "$rc" 0 "skip_abort: the program goes on and sees the error"
like "$out" "result CUDA_ERROR_ILLEGAL_ADDRESS" "... CUDA_ERROR_ILLEGAL_ADDRESS"
like "$err" "Ignoring unknown coredump flag 'bogus'" "an unknown flag is ignored with the driver's message"
pid=$(word pid) buffer=$(word buffer)
f=$(ls "$T/loc" | grep '^gc\.')
like "$f" "^gc\\.$pid\\.$(hostname)\\.[0-9]+\$" "CUDA_COREDUMP_FILE: %p %h %t make gc.$pid.$(hostname).TIME"
d=$("$DUMP" --modules "$T/loc/$f" 2>&1)
is "$(key kernel "$d")" probe_store "the kernel"
is "$(key exception "$d")" "Warp Illegal Address (WARP_ILLEGAL_ADDRESS, 14)" "the exception"
is "$(key block "$d")" "(2,0,0)" "block=2 of a (4,2,1) grid: (2,0,0)"
is "$(key thread "$d")" "(5,1,0)" "thread=37 of a (32,2,1) block: (5,1,0)"
is "$(key grid "$d")" 1 "grid id: the launch's ordinal among probe_store's"
is "$(key error_pc_source "$d")" "/src/probe/probe.cu:42" "the line the PTX's .loc gives"
is "$(key instruction "$d")" "STG.E [R2.64], R0" "access=write: a store at the error PC"
is "$(key address "$d")" "$(printf '0x%x' $((buffer + 4096)))" "the address: the buffer + 4096"
is "$(key param_word\ 0 "$d")" "$buffer" "parameter 0 is the buffer"
like "$d" "flags 0x10 \\(skip_abort\\)" "the metadata has the flags"
like "$d" "relocated cubin [0-9]+ bytes, image as loaded" "the module's image as loaded is there"
like "$d" "context 0x[0-9a-f]+: device 0, host thread $pid," "the context's host thread"
is "$(printf '%s\n' "$d" | grep -c '^warning')" 0 "no warnings"

# --- a read without .loc: the PTX text's line, default name, the abort ---------------------------
probe plain 'probe_store:arg=0-64' -- --grid 3 --block 40
is "$rc" 134 "without skip_abort the process aborts after the dump"
pid=$(word pid) buffer=$(word buffer)
f=$(ls "$T/plain" | grep '^core_')
like "$f" "^core_[0-9]+_$(hostname)_${pid}\\.nvcudmp\$" "the default name: core_TIME_HOST_PID.nvcudmp"
d=$("$DUMP" "$T/plain/$f" 2>&1)
line=$(LD_LIBRARY_PATH=$B/sim "$PROBE" --print-ptx | grep -n 'st\.global' | cut -d: -f1)
is "$(key error_pc_source "$d")" "probe_store.ptx:$line" "no .loc: the PTX's own line ($line)"
is "$(key block "$d") $(key thread "$d")" "(2,0,0) (0,0,0)" "by default the last block's thread 0"
is "$(key instruction "$d")" "LDG.E R0, [R2.64]" "kernels read by default"
is "$(key address "$d")" "$(printf '0x%x' $((buffer - 64)))" "the address: the buffer - 64"

# --- an atomic, and flags ------------------------------------------------------------------------
probe atomic 'probe_store:addr=0x1000:access=atomic:thread=1' CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0 \
	CUDA_COREDUMP_GENERATION_FLAGS=skip_nonrelocated_elf_images CUDA_COREDUMP_FILE="$T/atomic/gc" -- --grid 1 --block 8
is "$rc" 0 "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION=0: no abort"
d=$("$DUMP" --modules "$T/atomic/gc" 2>&1)
is "$(key instruction "$d") $(key address "$d")" "REDG.E [R2.64], R0 0x1000" "access=atomic addr=0x1000: a reduction at 0x1000"
unlike "$d" "image as loaded" "skip_nonrelocated_elf_images: no image as loaded"

# --- errors without an address -----------------------------------------------------------------
probe assert 'probe_store:assert:thread=3' CUDA_COREDUMP_GENERATION_FLAGS=skip_abort \
	CUDA_COREDUMP_FILE="$T/assert/gc" -- --grid 2,2 --block 2,2
d=$("$DUMP" "$T/assert/gc" 2>&1)
is "$(key exception "$d")" "Warp Assert (WARP_ASSERT, 12)" "assert: Warp Assert"
is "$(key block "$d") $(key thread "$d")" "(1,1,0) (1,1,0)" "the last block of (2,2,1), thread 3 of (2,2,1)"
like "$(key address "$d")" "^not known" "no address clause: no address claimed"
probe oor 'probe_store:xid=13' CUDA_COREDUMP_GENERATION_FLAGS=skip_abort CUDA_COREDUMP_FILE="$T/oor/gc" -- --grid 1 --block 1
is "$(key exception "$("$DUMP" "$T/oor/gc" 2>&1)")" "Warp Out-of-range Address (WARP_OUT_OF_RANGE_ADDRESS, 5)" \
	"xid=13: an SM's out-of-range address"

# --- the thread past the launch, no dump without the variable, a clause that does not fit ---------
probe past 'probe_store:block=99:thread=5000' CUDA_COREDUMP_GENERATION_FLAGS=skip_abort CUDA_COREDUMP_FILE="$T/past/gc" -- --grid 2 --block 4
like "$err" "block 99 is past the launch of probe_store" "a block past the launch is said"
is "$(key block "$("$DUMP" "$T/past/gc")") $(key thread "$("$DUMP" "$T/past/gc")")" "(1,0,0) (3,0,0)" "... and the last block and thread named"
mkdir -p "$T/off"
(cd "$T/off" && CUDASIM_FAULT=probe_store LD_LIBRARY_PATH=$B/sim "$PROBE" >/dev/null 2>&1)
is "$(ls "$T/off" | wc -l)" 0 "without CUDA_ENABLE_COREDUMP_ON_EXCEPTION no GPU core"
probe copy '.copy:block=1' -- --grid 1 --block 1
like "$err" "is a copy-engine operation: it has no blocks or threads" "block= on a copy is refused at cuInit"
probe progress 'probe_store' CUDA_COREDUMP_SHOW_PROGRESS=1 CUDA_COREDUMP_GENERATION_FLAGS=skip_abort \
	CUDA_COREDUMP_FILE="$T/progress/gc" -- --grid 1 --block 1
like "$err" "coredump: Writing ELF file to $T/progress/gc" "CUDA_COREDUMP_SHOW_PROGRESS names the file"
is "$(ls "$T/progress" | grep -c '^gc$')" 1 "... and writes it"
done_testing
