#!/usr/bin/env bash
# A real third-party client that JIT-compiles its kernels: numba-cuda (pinned, installed by
# `make deps` into $B/pyvenv; skipped with the reason where PyPI could not be reached).  Its
# @cuda.jit kernel goes through NVVM to PTX and through nvJitLink to an sm_90 cubin, which it
# loads with cuLibraryLoadData; the simulator reads the cubin's kernel attributes.  Under
# `cudainspect record` the 3rd launch faults; the client synchronizes after every launch, so the
# error surfaces at the synchronize after the 3rd (never at a later launch, whatever the timing),
# raised by whichever binding layer numba-cuda uses (numba's CudaAPIError, cuda.core's
# CUDAError), and the program exits 1: the summary names the kernel and, past numba's own launch frames, the
# client's line; every recorded launch and allocation stack ends with the stack the client wrote
# about itself (tests/python/nbclient.py), numba's frames inside it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests
VPY=$B/pyvenv/bin/python
[ -x "$VPY" ] && "$VPY" -c 'import numba.cuda' 2>/dev/null ||
	skip_all "numba-cuda is not installed in $B/pyvenv (make deps: it needs PyPI)"
export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")}
[ -d "$CUDA_HOME/nvvm" ] || skip_all "no NVVM under $CUDA_HOME (numba-cuda compiles with it)"
SRC=$TOP/tests/python/nbclient.py
LAUNCH_LINE=$(grep -n 'nb_scale\[self' "$SRC" | head -1 | cut -d: -f1)
mkdir -p "$T/nb"
name=$(cd "$T/nb" && LD_LIBRARY_PATH=$B/sim timeout 120 "$VPY" "$SRC" --name 2>"$T/nb/name.err")
like "$name" '^_ZN8__main__8nb_scale' "numba-cuda: the kernel compiles, links to a cubin and runs on the simulator (its entry name)"
(cd "$T/nb" && LD_LIBRARY_PATH=$B/sim CUDASIM_FAULT="$name@3" timeout 120 "$CLI" record -- "$VPY" "$SRC" \
	"$T/nb/expect" 5) >"$T/nb/out" 2>"$T/nb/err"
is "$?" 1 "numba-cuda: the CUDA error ends the client with status 1"
like "$(cat "$T/nb/err")" "(CudaAPIError|CUDAError): .*CUDA_ERROR_ILLEGAL_ADDRESS" \
	"numba-cuda: the binding's exception names the illegal address"
is "$(grep -A1 'nbclient\.py", line' "$T/nb/err" | tail -1 | tr -d ' ')" "cuda.synchronize()" \
	"numba-cuda: raised at the synchronize after the faulting launch (the client's innermost line)"
like "$(cat "$T/nb/out")" "Faulting kernel:.*
 +__main__::nb_scale" "numba-cuda: the summary names the numba kernel"
like "$(cat "$T/nb/out")" "launched at _Kernel\.launch \(dispatcher\.py:[0-9]+\) \[Python\]" \
	"numba-cuda: the innermost Python frame is numba's launch"
like "$(cat "$T/nb/out")" "… Model\.layer \(nbclient\.py:$LAUNCH_LINE\) \[Python\] \(the innermost frame outside site-packages\)" \
	"numba-cuda: and the client's own line (nbclient.py:$LAUNCH_LINE) past numba's frames"
snap=$(ls "$T"/nb/*-error.cisnap 2>/dev/null | head -1)
"$CLI" "$snap" --json >"$T/nb/r.json" 2>/dev/null
res=$(py_compare --calls-outer "$T/nb/expect.calls" "$T/nb/r.json")
is "$(printf '%s\n' "$res" | grep -c '^ok launch')" 3 "numba-cuda: every launch's stack ends with the client's own, numba's frames inside"
is "$(printf '%s\n' "$res" | grep -c '^ok alloc')" 2 "numba-cuda: both allocations' too"
unlike "$res" '^bad' "numba-cuda: no stack differs"
is "$(/usr/bin/python3.11 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(max(d["launches"], key=lambda l: l["seq"])["api"])' "$T/nb/r.json")" \
	"kernel_ex" "numba-cuda: it launches with cuLaunchKernelEx"
like "$("$CLI" "$snap" kernels 2>&1)" "at Model\.layer \(nbclient\.py:$LAUNCH_LINE\)" \
	"numba-cuda: the kernels view's one-line site is the client's line"
done_testing
