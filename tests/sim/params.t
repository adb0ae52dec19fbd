#!/usr/bin/env bash
# Parameter layouts, names and launch bounds read from PTX that nvcc generates from
# tests/sim/params.cu (tests/sim/params.c), plus the same kernels from an uncompressed fatbin.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -f "$B/tests/sim/params.ptx" ] || skip_all "no nvcc: $B/tests/sim/params.ptx was not generated"
fatbin=$B/tests/sim/params.fatbin
sim_run params "$B/tests/sim/params.ptx" "$fatbin"; ok "params.c exits 0" test $? -eq 0
ok "params.c: all pass" tap_clean "$T/params.tap"
done_testing
