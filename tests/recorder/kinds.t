#!/usr/bin/env bash
# Every recorded kind, from apitour (testcases/engine/apitour.c: a scripted walk through many
# kinds of driver calls) and miniengine under the recorder: devices, contexts (primary and
# explicit), streams (created, legacy, per-thread, captured), modules and libraries, functions
# and kernels with their parameter layouts, launches of every API, allocations of every kind
# with their frees, errors with exact entry-point names, events, threads, host modules.
# Expected values come from the programs themselves, the simulator's documentation
# (docs/SIMULATOR.md) and the driver's own answers, not from the recorder.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder apitour miniengine

run_in "$T/tour" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/apitour"
is "$rc" 0 "apitour exits 0 under the recorder (every result as cuda.h documents)"
S=$(snap "$T/tour" exit)
ok "exit snapshot written" test -s "$S"
"$DUMP" "$S" >"$T/d" 2>"$T/derr"
ok "recdump decodes it" test -s "$T/d"
D=$T/d
tour=$T/tour/out

# Header and process
h=$(grep '^header ' "$D")
is "$(field state "$h") $(field origin "$h") $(field reason "$h")" "2 3 3" "header: exited, snapshot, reason exit"
is "$(field version "$h")" "0.1.0" "header: recorder version"
like "$(grep '^process ' "$D")" "exe=$B/apitour " "header: executable path"
is "$(field pid "$h")" "$(name_pid "$S")" "header: pid (as in the snapshot's name)"

# Devices (docs/SIMULATOR.md: "NVIDIA H200 (cudasim)", 9.0, 132 SMs, 80G)
like "$(grep '^device ' "$D")" 'ordinal=0 name=NVIDIA H200 \(cudasim\) cc=9\.0 sm=132 mem=85899345920 pci=0000:18:00\.0' \
	"device: name, compute capability, SMs, memory, PCI bus id"

# Contexts
like "$(grep '^ctx ' "$D" | grep ' kind=1 ')" 'device=0 .* destroyed=1' "primary context: recorded, destroyed at the final release"
like "$(grep '^ctx ' "$D" | grep ' kind=2 ')" 'device=0 .* destroyed=1' "explicit context (cuCtxCreate): recorded, destroyed"
tid=$(grep '^thread ' "$D" | head -1)
is "$(field name "$tid")" "apitour" "thread table: the main thread by name"

# Streams
grep '^stream ' "$D" >"$T/streams"
like "$(grep 'kind=created' "$T/streams" | grep 'prio=-')" 'flags=1 ' \
	"cuStreamCreateWithPriority: flags NON_BLOCKING and the (greatest, negative) priority"
ok "legacy default stream recorded" grep -q 'kind=legacy' "$T/streams"
ok "per-thread default stream recorded" grep -q 'kind=per_thread' "$T/streams"
like "$(grep 'crumb_status=capturing' "$T/streams")" 'crumb_skipped=2 ' \
	"captured stream: its 2 captured launches got no breadcrumb, the reason is recorded"

# Modules and libraries: size of the PTX image the engine embeds (miniengine --dump-ptx)
ptx=$("$B/miniengine" --dump-ptx | wc -c)
like "$(grep '^module ' "$D" | grep ' kind=1 ')" "ctx=0 source= size=$ptx .*unloaded=1" "module from memory: image size, unloaded"
like "$(grep '^module ' "$D" | grep ' kind=2 ')" "ctx=- source= size=$ptx .*unloaded=1" "library (context-independent): recorded, unloaded"

# Functions: names from the driver, layouts as cuFuncGetParamInfo reports them to apitour
layout=$(sed -n 's/.*cuFuncGetParamInfo(paged_attention) .* layout=//p' "$tour" | tr ' ' ',')
like "$(grep '^function .*name=paged_attention ' "$D")" "nparams=11 known=1 layout=$layout\$" \
	"paged_attention: 11 parameters, layout as the driver reports it"
ok "C++ kernel: its mangled name" grep -q 'name=_ZN6decode6matvecEPKfS1_PfiiiS1_ ' "$D"
like "$(grep '^function .*kind=2 ' "$D")" 'name=fill_u32 nparams=3 known=1 layout=0/8,8/4,12/4' \
	"CUkernel from cuLibraryGetKernel: kind kernel, name and layout (cuKernelGetParamInfo)"

# Launches of every API
grep '^launch ' "$D" >"$T/launches"
for api in kernel kernel_ex cooperative host_func graph; do
	ok "launch api $api recorded" grep -q "api=$api " "$T/launches"
done
like "$(grep 'api=kernel_ex ' "$T/launches")" 'cluster=2,1,1 ' "cuLaunchKernelEx: cluster dimension from the launch attributes"
exec=$(sed -n 's/^event .*kind=graph_instantiate a=\(0x[0-9a-f]*\) .*/\1/p' "$D")
is "$(grep -c "api=graph .*aux=$exec " "$T/launches")" 2 "two graph launches, each naming the instantiated CUgraphExec"
like "$(grep 'flags=0x4 ' "$T/launches" | head -1)" 'sseq=0 ' "captured launch: flagged CAPTURED, no stream sequence number"
like "$(grep 'block=2048,1,1' "$T/launches")" 'flags=0x8 .*result=1 ' "failed launch (2048 threads): flagged FAILED with its result"
like "$(grep 'api=host_func ' "$T/launches" | head -1)" 'aux=0x[1-9a-f]' "host function: the function pointer"
like "$(grep -E 'flags=0x1[0-3] ' "$T/launches")" 'params=[0-9a-f]{32}' "parameters passed through extra: copied, flagged"

# Allocations of every kind, each with the stack of its allocation and of its free
grep -E '^free ' "$D" >"$T/frees"
for kind in device pitch managed host host_register async pool_async vmm_create vmm_reserve vmm_map; do
	ok "free ring: a $kind allocation" grep -q "kind=$kind " "$T/frees"
done
like "$(grep 'kind=pitch ' "$T/frees")" 'size=8192 aux=0x400 ' "pitch allocation: size = pitch x height, pitch in aux"
like "$(grep 'kind=async ' "$T/frees")" 'stream=0 .*free_stream=0 ' "async allocation and free: their stream"
ok "every free has both stacks" sh -c "! grep -E ' stack=0:| free_stack=0:' '$T/frees'"
like "$(grep 'kind=vmm_create ' "$T/frees")" 'address=0x0 size=4194304 aux=0x[0-9a-f]+' "cuMemCreate: no address, the handle in aux"

# Errors: exact entry points, short argument summaries
grep '^error ' "$D" >"$T/errors"
like "$(cat "$T/errors")" 'api=cuMemAlloc_v2 result=CUDA_ERROR_INVALID_VALUE .*args=dptr=0x[0-9a-f]+, bytesize=0$' \
	"cuMemAlloc(0): the versioned entry point and its arguments"
like "$(cat "$T/errors")" 'api=cuMemFree_v2 result=CUDA_ERROR_INVALID_VALUE .*args=dptr=4660$' "cuMemFree(0x1234)"
like "$(cat "$T/errors")" 'api=cuModuleGetFunction result=CUDA_ERROR_NOT_FOUND' "cuModuleGetFunction(no_such_kernel)"
like "$(cat "$T/errors")" 'api=cuLaunchKernel result=CUDA_ERROR_INVALID_VALUE .*blockDimX=2048' "bad launch: the error too"
like "$(cat "$T/errors")" 'api=cuGetProcAddress_v2 result=CUDA_ERROR_INVALID_VALUE' "cuGetProcAddress_v2(version 99999)"
# An entry point whose wrapper records nothing on success (hook none) still records a failure
# with its arguments: cuFuncGetParamInfo past the last parameter.
like "$(cat "$T/errors")" 'api=cuFuncGetParamInfo result=CUDA_ERROR_INVALID_VALUE .*args=func=0x[0-9a-f]+, paramIndex=[1-9][0-9]*, ' \
	"cuFuncGetParamInfo past the last parameter (a wrapper without a hook)"
want=$(grep -cE -- '-> CUDA_ERROR_' "$tour")
got=$(grep -cE 'api=cu' "$T/errors")
is "$got" "$want" "one error entry per failing call apitour made"
ok "no error is sticky here" sh -c "! grep -q 'flags=[13] ' '$T/errors'"

# Events
for kind in init ctx_create ctx_destroy stream_create stream_destroy ctx_sync stream_sync event_sync \
	event_record stream_wait_event capture_begin capture_end graph_instantiate \
	module_load module_unload memcpy memset; do
	ok "event $kind recorded" grep -q "^event .*kind=$kind " "$D"
done
# A graph launch is in the launch ring and the graph-launch ring, not the event ring (1.2).
ok "graph launch: in the graph-launch ring" grep -q "^glaunch " "$D"
ok "graph launch: no event-ring entry" sh -c "! grep -q '^event .*kind=graph_launch ' '$D'"
like "$(grep 'kind=stream_sync ' "$D" | head -1)" 'duration=[1-9]' "synchronizations carry their duration"

# Host modules
like "$(grep '^hostmod ' "$D")" "path=$B/apitour .*build_id_len=20" "host module: the executable with its build-id"
ok "host module: the recorder and the driver" sh -c "grep -q 'libcudainspect-rec.so' '$D' && grep -q 'libcuda.so.1' '$D'"
ok "nothing torn or invalid in a clean exit snapshot" sh -c "! grep -E '^section .* (torn|invalid)=[1-9]' '$D'"

# --- a multi-threaded engine ----------------------------------------------------------------
run_in "$T/eng" env CUDAINSPECT_SNAPSHOT=exit CUDASIM_KERNEL_US=20 LD_PRELOAD="$REC" \
	"$B/miniengine" --steps 2 --threads 3 --streams 2
is "$rc" 0 "miniengine: 3 threads under the recorder"
"$DUMP" "$(snap "$T/eng" exit)" >"$T/e"
is "$(grep -c '^thread .*name=engine-' "$T/e")" 3 "thread table: the three engine threads by name"
is "$(grep '^stream .*kind=created' "$T/e" | grep -vc ' launches=0 ')" 6 "six created streams with launches (3 threads x 2)"
is "$(grep -c '^launch ' "$T/e")" "$(sed -n 's/.* \([0-9][0-9]*\) launches.*/\1/p' "$T/eng/out")" \
	"every launch the engine counted"
alloc_tids=$(grep '^free ' "$T/e" | sed 's/.* tid=\([0-9]*\) .*/\1/' | sort -u | wc -l)
ok "allocations from several threads, freed at the engine's clean exit ($alloc_tids)" test "$alloc_tids" -ge 3
done_testing
