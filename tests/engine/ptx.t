#!/usr/bin/env bash
# The kernels embedded in the engines: the same PTX nvcc produces from testcases/engine/
# kernels.cu for sm_90 (when nvcc is here), the committed fallback kernels.ptx is current,
# ptxas accepts it for sm_90, and it defines the kernels kernels.cu declares (one C++-mangled).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines miniengine apitour launchstorm
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
PTXAS=$CUDA_HOME/bin/ptxas

"$B/miniengine" --dump-ptx >"$T/embedded.ptx"
is "$?" 0 "--dump-ptx exits 0"
ok "the embedded PTX targets sm_90" grep -qx '.target sm_90' "$T/embedded.ptx"

if [ -x "$NVCC" ]; then
	"$NVCC" -ptx -arch=sm_90 -o "$T/fresh.ptx" "$TOP/testcases/engine/kernels.cu"
	ok "the embedded PTX is what nvcc makes of kernels.cu" cmp -s "$T/fresh.ptx" "$T/embedded.ptx"
	ok "the committed kernels.ptx is current (else: make engine-ptx-update)" \
		cmp -s "$T/fresh.ptx" "$TOP/testcases/engine/kernels.ptx"
else
	skip "no nvcc at $NVCC: cannot compare with a fresh build"
	skip "no nvcc at $NVCC: cannot check the committed kernels.ptx"
fi
if [ -x "$PTXAS" ]; then
	ok "ptxas compiles the embedded PTX for sm_90" "$PTXAS" -arch=sm_90 -o "$T/k.cubin" "$T/embedded.ptx"
else
	skip "no ptxas at $PTXAS"
fi

# The kernels kernels.cu defines, as the PTX names them (sorted).
want="_ZN6decode6matvecEPKfS1_PfiiiS1_ embed_gather fill_u32 kv_append noop paged_attention rmsnorm rope sample_token spin_wait storm_probe"
got=$(sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$T/embedded.ptx" | sort | tr '\n' ' ' | sed 's/ $//')
is "$got" "$want" "entry points"
if command -v c++filt >/dev/null; then
	is "$(c++filt _ZN6decode6matvecEPKfS1_PfiiiS1_)" \
		"decode::matvec(float const*, float const*, float*, int, int, int, float const*)" \
		"the mangled kernel demangles to decode::matvec with its parameter types"
else
	skip "no c++filt"
fi
# Each program embeds the same image.
for p in apitour launchstorm; do
	ok "$p embeds the same PTX" grep -qF "$(sed -n 4p "$T/embedded.ptx")" "$B/$p"
done
done_testing
