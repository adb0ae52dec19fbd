#!/usr/bin/env bash
# cuGetProcAddress(_v2): versions, flags, symbol status, _ptsz/_ptds twins and pointer equality
# with dlsym, first on fixed cases from cuda.h/cudaTypedefs.h, then for every row of
# testcases/sim/api.def.  Also: every exported symbol has its own address, the exports are
# exactly the cu* table (all present in the toolkit's stub, so programs linked against it
# resolve), and a preloaded interposer cannot redirect what cuGetProcAddress returns.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
SIM=$B/sim/libcuda.so.1
export LD_LIBRARY_PATH=$B/sim

"$B/tests/sim/procaddr" > "$T/fixed.tap"
ok "fixed cuGetProcAddress cases pass" tap_clean "$T/fixed.tap"

# api.def rows as "base symbol version [ptsymbol ptversion]"; SIM_API_AS aliases are covered by
# the fixed cases (their base differs from the symbol's own).
sed -n 's/^SIM_API(\([^,]*\), *\([^,]*\), *\([0-9]*\)).*/\1 \2 \3/p;
	s/^SIM_API_PT(\([^,]*\), *\([^,]*\), *\([0-9]*\), *\([^,]*\), *\([0-9]*\),.*/\1 \2 \3 \4 \5/p' \
	"$TOP/testcases/sim/api.def" > "$T/rows"
rows=$(wc -l < "$T/rows")
ok "api.def has rows ($rows)" test "$rows" -gt 150
# Rows that share a base and a version with another row cannot each win; there must be none.
dups=$(awk '{print $1, $3}' "$T/rows" | sort | uniq -d)
is "$dups" "" "no two rows share base and version"
"$B/tests/sim/procaddr" --table < "$T/rows" > "$T/table.tap"
ok "every api.def row resolves to its symbol" tap_clean "$T/table.tap"

# Exports: the table's symbols, nothing else, each at its own address.
nm -D --defined-only "$SIM" | awk '{print $3}' | sort > "$T/exported"
awk '{print $2; if (NF == 5) print $4}' "$T/rows" | sort -u > "$T/table"
is "$(comm -3 "$T/exported" "$T/table" | grep -v '^\s*cuGraphInstantiateWithFlags$' | tr -d '\t' | tr '\n' ' ')" "" \
	"exported symbols are exactly the api.def table"
is "$(grep -vc '^cu' "$T/exported")" 0 "only cu* symbols are exported"
dupaddr=$(nm -D --defined-only "$SIM" | awk '{print $1}' | sort | uniq -d | head -3)
is "$dupaddr" "" "every exported function has its own address"
stub=$CUDA_HOME/lib64/stubs/libcuda.so
if [ -f "$stub" ]; then
	nm -D --defined-only "$stub" | awk '{print $3}' | sort > "$T/stub"
	is "$(comm -23 "$T/exported" "$T/stub" | tr '\n' ' ')" "" "every export exists in the toolkit stub"
else
	skip "no CUDA stub library at $stub"
fi
like "$(readelf -d "$SIM")" 'SONAME.*\[libcuda\.so\.1\]' "SONAME is libcuda.so.1"
ok "build/sim/libcuda.so links to it" test "$(readlink "$B/sim/libcuda.so")" = libcuda.so.1

# An interposer exporting cuLaunchKernel (like the recorder) does not change the driver's answer.
if [ "${CI_SANITIZE:-}" = address ]; then
	skip "LD_PRELOAD of an uninstrumented shim into an ASan program"
else
	out=$(LD_PRELOAD=$B/tests/sim/interposer.so "$B/tests/sim/interposed" 2>&1)
	is "$out" "ok" "cuGetProcAddress answers the driver's own address under an interposer"
fi
done_testing
