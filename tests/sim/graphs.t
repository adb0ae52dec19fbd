#!/usr/bin/env bash
# Explicitly built graphs (tests/sim/graphs.c): construction, node queries, instantiation with
# parameters, an exec's kernel node updated between replays, and a fault planted in that node of
# the second replay, whose Xid line names the updated pointer; async and null mode.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=100 CUDASIM_FAULT=step@4:arg=0+64
rm -f "$T/graphs.log"
CUDASIM_KERNEL_LOG=$T/graphs.log sim_run graphs; ok "graphs.c exits 0" test $? -eq 0
ok "graphs.c: all pass" tap_clean "$T/graphs.tap"
planted=$(sed -n 's/^# planted //p' "$T/graphs.tap")
like "$(grep Xid "$T/graphs.log")" "faulted @ $(printf '0x%x_%08x' $(( (planted + 64) >> 32 )) $(( (planted + 64) & 0xfffff000 )))" \
	"the Xid line names the updated node's pointer + 64, down to the page"
CUDASIM_MODE=null sim_run graphs; ok "graphs.c in null mode exits 0" test $? -eq 0
ok "graphs.c in null mode: all pass" tap_clean "$T/graphs.tap"
done_testing
