#!/usr/bin/env bash
# Parameter layouts, names and launch bounds read from PTX that nvcc generates from
# tests/sim/params.cu (tests/sim/params.c), plus the same kernels from an uncompressed fatbin,
# and from a cubin (the ELF's kernel attributes: the same layouts, names and bounds), damaged
# cubins, an sm_80 cubin, and a fatbin carrying only SASS.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -f "$B/tests/sim/params.ptx" ] || skip_all "no nvcc: $B/tests/sim/params.ptx was not generated"
fatbin=$B/tests/sim/params.fatbin
sim_run params "$B/tests/sim/params.ptx" "$fatbin" "$B/tests/sim/params.cubin" "$B/tests/sim/params.sm80.cubin" \
	"$B/tests/sim/params.sass.fatbin"; ok "params.c exits 0" test $? -eq 0
ok "params.c: all pass" tap_clean "$T/params.tap"
done_testing
