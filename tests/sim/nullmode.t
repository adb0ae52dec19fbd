#!/usr/bin/env bash
# CUDASIM_MODE=null (tests/sim/nullmode.c): everything inline, no workers, no kernel time, faults
# still work.  Also prints launch rates from 1 and 2 threads (informational: a 2-core machine
# cannot show scaling reliably; bench/ measures the recorder's overhead on this mode).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_MODE=null
CUDASIM_FAULT=step@20003 sim_run nullmode; ok "nullmode.c exits 0" test $? -eq 0
ok "nullmode.c: all pass" tap_clean "$T/nullmode.tap"
for n in 1 2; do
	rate=$(LD_LIBRARY_PATH=$B/sim "$B/tests/sim/nullmode" rate $n 200000)
	like "$rate" "^$n threads: [0-9]+ launches/s" "launch rate from $n thread(s) measured"
	diag "$rate"
done
done_testing
