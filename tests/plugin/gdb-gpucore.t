#!/usr/bin/env bash
# `cuda gpucore FILE` in real GDB: miniengine with a planted fault (CUDASIM_FAULT: the 5th
# paged_attention, block 3, thread 70) on the simulated driver under the recorder, with the
# driver's GPU core variables set, leaves a host core and a GPU core (under a name of its own,
# so that nothing joins it by itself).  In GDB on the host core, `cuda gpucore FILE` must print
# what `cudainspect CORE --gpu-core FILE` prints (the joined fault with the planted block and
# thread); without a file, or with one that is missing, it says so with the CLI's exit codes.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$CMDS" "$CLI" "$B/miniengine" "$B/sim/libcuda.so.1"
unset CUDA_COREDUMP_GENERATION_FLAGS CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION
plan 8

core=$(CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$T/gpu.dump" \
	CUDASIM_FAULT='paged_attention@5:arg=2+64:block=3:thread=70' recorded_core "$B/miniengine" --quiet)
[ -n "$core" ] && [ -s "$T/gpu.dump" ] || { diag "$(cat "$T/run.err")"; skip_all "miniengine left no host core or no GPU core"; }

got=$(gdb_cuda "$B/miniengine" "$core" -- cuda gpucore "$T/gpu.dump")
want=$("$CLI" --gpu-core "$T/gpu.dump" "$core" 2>&1; echo "exit=$?")
is "$got" "$want" "cuda gpucore FILE prints what cudainspect CORE --gpu-core FILE prints"
like "$got" "GPU core: Warp Illegal Address, block \\(3,0,0\\) thread \\(70,0,0\\)" "... the planted block and thread"
like "$got" "Faulting kernel: paged_attention +\\[confidence: exact\\]" "... the planted kernel, exact"
is "$(gdb_cuda "$B/miniengine" "$core" -- cuda gpucore "$T/gpu.dump" --json)" \
	"$("$CLI" --json --gpu-core "$T/gpu.dump" "$core" 2>&1; echo "exit=$?")" \
	"cuda gpucore FILE --json = cudainspect --json --gpu-core FILE CORE"

got=$(gdb_cuda "$B/miniengine" "$core" -- cuda gpucore)
like "$got" "cuda gpucore: give the GPU core dump of this crash" "without a file: says what to give"
like "$got" 'exit=2$' "... exit code 2"
got=$(gdb_cuda "$B/miniengine" "$core" -- cuda gpucore "$T/missing.dump")
like "$got" "--gpu-core: .*missing.dump: no such file" "a missing file: the CLI's message"

help=$(gdb_batch -x "$CMDS" -ex 'help cuda gpucore' -ex 'echo alive\n')
like "$help" 'Usage: cuda gpucore FILE' "help cuda gpucore shows its usage"
done_testing
