#!/usr/bin/env bash
# A real third-party client: NVIDIA's cuda-bindings (pinned, installed by `make deps` into
# $B/pyvenv; skipped with the reason where PyPI could not be reached), which calls every driver
# entry point through cuGetProcAddress_v2, on the simulated driver under `cudainspect record`
# (tests/python/cbclient.py).  Its 3rd launch faults; the client's stream waits on a host flag
# until all 5 launches are queued, so the error comes back from the synchronize after them
# (never from a later launch, whatever the timing), becomes a Python exception and the program
# exits 1: the summary names the faulting launch's Python line, and every recorded
# launch and allocation stack equals the one the client wrote about itself.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests
VPY=$B/pyvenv/bin/python
[ -x "$VPY" ] && "$VPY" -c 'import cuda.bindings.driver' 2>/dev/null ||
	skip_all "cuda-bindings is not installed in $B/pyvenv (make deps: it needs PyPI)"
mkdir -p "$T/cb"
(cd "$T/cb" && LD_LIBRARY_PATH=$B/sim CUDASIM_FAULT=cb_step@3 timeout 120 "$CLI" record -- "$VPY" \
	"$TOP/tests/python/cbclient.py" "$T/cb/expect" 5) >"$T/cb/out" 2>"$T/cb/err"
is "$?" 1 "cuda-bindings: the CUDA error ends the client with status 1"
like "$(cat "$T/cb/err")" "RuntimeError: CUDA error .*CUDA_ERROR_ILLEGAL_ADDRESS" "cuda-bindings: the client's own exception"
is "$(grep -A1 'cbclient\.py", line .*, in run$' "$T/cb/err" | tail -1 | tr -d ' ')" "ok(cu.cuStreamSynchronize(self.stream))" \
	"cuda-bindings: raised at the synchronize after the last launch"
like "$(cat "$T/cb/out")" "Faulting kernel: cb_step" "cuda-bindings: the summary of the error snapshot"
like "$(cat "$T/cb/out")" "launched at Model\.forward \(cbclient\.py:[0-9]+\) \[Python\]" \
	"cuda-bindings: the faulting launch's Python line"
snap=$(ls "$T"/cb/*-error.cisnap 2>/dev/null | head -1)
"$CLI" "$snap" --json >"$T/cb/r.json" 2>/dev/null
res=$(py_compare --calls "$T/cb/expect.calls" "$T/cb/r.json")
is "$(printf '%s\n' "$res" | grep -c '^ok launch')" 5 "cuda-bindings: every launch's Python frames are the client's"
is "$(printf '%s\n' "$res" | grep -c '^ok alloc')" 2 "cuda-bindings: the allocation's and the flag page's registration's too"
unlike "$res" '^bad' "cuda-bindings: no stack differs"
done_testing
