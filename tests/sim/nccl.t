#!/usr/bin/env bash
# The simulated NCCL (build/sim/libnccl.so.2, tests/sim/nccl.c): across processes, a collective
# completes only when every rank reached it; a rank that never arrives leaves the others blocked
# until it aborts (ncclRemoteError) and they abort (their streams go on); a poisoned context fails
# the rank's later collectives; sends and receives pair up, in a group or in order; ncclCommSplit
# and ncclCommInitAll make communicators with the documented ranks; argument errors are the
# documented ones; a nonblocking communicator is ncclInProgress until every rank joined; a rank
# that skips a collective leaves the others' last one unfinished.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -f "$B/sim/libnccl.so.2" ] || skip_all "no $B/sim/libnccl.so.2 (run make first)"
[ -x "$B/tests/sim/nccl" ] || skip_all "no $B/tests/sim/nccl (make check builds it)"
export CUDASIM_KERNEL_US=100

for s in allreduce missing p2p split errors nonblocking desync; do
	sim_run nccl "$s"
	ok "$s: all pass" tap_clean "$T/nccl.tap"
done
CUDASIM_FAULT=bad_kernel sim_run nccl poisoned
ok "poisoned: all pass" tap_clean "$T/nccl.tap"
CUDASIM_DEVICES=2 sim_run nccl initall
ok "initall: all pass" tap_clean "$T/nccl.tap"
sim_run nccl allreduce 8
ok "allreduce with 8 ranks: all pass" tap_clean "$T/nccl.tap"
CUDASIM_MODE=null sim_run nccl allreduce 1
like "$(cat "$T/nccl.tap")" "rank 0: the stream finished" "null mode, one rank: collectives complete inline"
done_testing
