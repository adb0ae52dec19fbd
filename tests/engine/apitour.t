#!/usr/bin/env bash
# apitour on the simulated driver: every result is the one cuda.h documents, and the facts that
# do not depend on what kernels compute (the simulator computes nothing) hold: parameter
# layouts as the C ABI lays out the kernels' signatures, kernel names, stream memory writes,
# host functions in order, a CUkernel launched as a CUfunction.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines apitour

"$B/apitour" >"$T/out" 2>"$T/err"
is "$?" 0 "exits 0: no UNEXPECTED result"
out=$(cat "$T/out")
like "$(cat "$T/err")" "^apitour: [0-9]+ calls, 0 unexpected results" "summary on stderr"
unlike "$out" "UNEXPECTED" "no UNEXPECTED line"
# Six pointers, three 4-byte values, a float, a byte: 8-byte slots, then 4-byte, then 1.
like "$out" "cuFuncGetParamInfo\(paged_attention\) -> CUDA_ERROR_INVALID_VALUE params=11 layout=0/8 8/8 16/8 24/8 32/8 40/8 48/4 52/4 56/4 60/4 64/1$" \
	"paged_attention parameter layout"
like "$out" "cuKernelGetParamInfo\(fill_u32\) -> CUDA_ERROR_INVALID_VALUE params=3 layout=0/8 8/4 12/4$" \
	"fill_u32 parameter layout through the CUkernel"
like "$out" "cuFuncGetParamInfo\(noop\) -> CUDA_ERROR_INVALID_VALUE params=0 layout=$" "noop has no parameters"
like "$out" "module cuModuleGetFunctionCount -> CUDA_SUCCESS count=11$" "11 kernels in the module"
like "$out" "module cuFuncGetName -> CUDA_SUCCESS name=_ZN6decode6matvecEPKfS1_PfiiiS1_$" "mangled name as in the PTX"
like "$out" "library cuKernelGetName -> CUDA_SUCCESS name=fill_u32$" "cuKernelGetName"
like "$out" "library cuLaunchKernel\(CUkernel\) -> CUDA_SUCCESS$" "a CUkernel launched as a CUfunction"
like "$out" "stream cuStreamSynchronize -> CUDA_SUCCESS slot=42 slot32=7$" "stream memory writes reached host memory"
like "$out" "host_fn_order=1,2,3$" "host functions ran in stream order"
like "$out" "graph \(captured work not run\) -> CUDA_SUCCESS untouched=yes$" "capture does not execute"
like "$out" "graph cuStreamSynchronize -> CUDA_SUCCESS replayed=[a-z]+ host_fn_calls=2$" "a graph launched twice replays its host function twice"
like "$out" "equals_host=yes \(attribute 91 = 1\)$" "registered memory: device pointer = host pointer"
like "$out" "errors cuGetProcAddress\(cuNoSuchEntryPoint\) -> CUDA_SUCCESS pfn_null=yes status=1$" "unknown entry point"

"$B/apitour" --only graph,errors >"$T/only" 2>/dev/null
is "$(cut -d' ' -f1 "$T/only" | sort -u | tr '\n' ' ')" "errors graph setup teardown " "--only runs just those groups"
is "$("$B/apitour" --list | tr '\n' ' ')" "context module library memory pool vmm stream launch graph errors " "--list"
"$B/apitour" --only nope >/dev/null 2>&1
is "$?" 2 "unknown group: exit 2"
done_testing
