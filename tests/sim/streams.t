#!/usr/bin/env bash
# Stream semantics (tests/sim/streams.c): asynchronous in-order execution, legacy default stream
# vs blocking, non-blocking and per-thread default streams, cuStreamWaitEvent, events and timing,
# host functions and callbacks.  Kernels take 10 ms so that timing checks have room.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=10000
sim_run streams; ok "streams.c exits 0" test $? -eq 0
ok "streams.c: all pass" tap_clean "$T/streams.tap"
done_testing
