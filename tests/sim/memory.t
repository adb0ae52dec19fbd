#!/usr/bin/env bash
# Simulated device memory (tests/sim/memory.c): PROT_NONE device window and do-not-dump shadow
# store, round trips, alignment and reuse, bounds checks, host registration, stream memory
# operations, async allocation, pointer queries and VMM; in the async and null modes.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_MEM=1G
sim_run memory; ok "memory.c exits 0" test $? -eq 0
ok "memory.c: all pass" tap_clean "$T/memory.tap"
done_testing
