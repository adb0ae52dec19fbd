#!/usr/bin/env bash
# ncclengine on the simulated driver and NCCL: 2, 4 and 8 ranks decode and exit 0, each rank's
# all-reduces counted; the linked build (NCCL through its own symbols) does the same; each
# planted fault ends the job as a real one would: a device fault on one rank aborts it with the
# CUDA error line and leaves the others hung in the all-reduce until their watchdogs abort them
# (PyTorch's timeout line, SIGABRT, NCCL's remote error seen first); a desync lets the skipping
# rank finish while the others hang in their last all-reduce; an API error makes that rank exit
# 1 with NCCL's message and the others hang.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines ncclengine ncclengine-linked
[ -e "$B/sim/libnccl.so.2" ] || skip_all "the simulated NCCL $B/sim/libnccl.so.2 is not built"
export CUDASIM_KERNEL_US=100

# rank_line DIR R: the launcher's line about rank R.
rank_line() { grep "^ncclengine: rank $2 \(exited\|was killed\)" "$1/out"; }

for n in 2 4 8; do
	d=$T/clean$n
	run_in "$d" "$B/ncclengine" --ranks $n --steps 10
	is "$rc" 0 "$n ranks: the launcher exits 0"
	is "$(grep -c 'exited with status 0$' "$d/out")" "$n" "$n ranks: every rank exited 0"
	is "$(grep -c ': 10 steps, 20 all-reduces, destroy: no error$' "$d/out")" "$n" \
		"$n ranks: each made 20 all-reduces and destroyed its communicator"
done
run_in "$T/linked" "$B/ncclengine-linked" --ranks 2 --steps 5
is "$rc" 0 "linked build: exits 0"
is "$(grep -c ': 5 steps, 10 all-reduces, destroy: no error$' "$T/linked/out")" 2 "linked build: both ranks decoded"

ILLEGAL='^testcases/engine/ncclengine\.c:[0-9]+: CUDA error: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered$'
TIMEOUT='Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=8, OpType=ALLREDUCE'

d=$T/device
# Watchdogs of 5 s: the others report rank 3's exit only once it is gone, after its core dump,
# which an ASan build (check-asan) took more than a second to write once.  Gone includes a
# zombie: the launcher reaps its ranks in order, so rank 3 stays one until the others are reaped
# (the simulated NCCL took a zombie for alive until 2026-12-06, and this test then passed only
# when one rank's watchdog abort was seen by another before its own timeout: CI failed it).
run_in "$d" "$B/ncclengine" --ranks 4 --steps 6 --fault device --watchdog 5
is "$rc" 1 "device fault: the launcher exits 1"
like "$(cat "$d/err")" "$ILLEGAL" "device fault: rank 3 prints the CUDA error line"
like "$(rank_line "$d" 3)" "killed by signal 6" "device fault: rank 3 aborts (SIGABRT)"
for r in 0 1 2; do
	like "$(rank_line "$d" $r)" "killed by signal 6" "device fault: rank $r aborts from its watchdog"
	like "$(grep "\[Rank $r\]" "$d/out")" "$TIMEOUT" "device fault: rank $r's watchdog names the step's all-reduce"
done
for r in 0 1 2; do
	like "$(cat "$d/out")" "rank $r: NCCL reports an asynchronous error: remote process exited" \
		"device fault: rank $r saw NCCL's remote error before its timeout"
done

d=$T/desync
run_in "$d" "$B/ncclengine" --ranks 3 --steps 6 --fault desync --fault-step 2 --watchdog 1
like "$(cat "$d/out")" "rank 2: planted: skipping all-reduce 5 \(step 2\)" "desync: rank 2 skips all-reduce 5"
like "$(rank_line "$d" 2)" "exited with status 0" "desync: rank 2 finishes its loop"
like "$(cat "$d/out")" "rank 2: 6 steps, 11 all-reduces" "desync: rank 2 made one all-reduce less"
for r in 0 1; do
	like "$(rank_line "$d" $r)" "killed by signal 6" "desync: rank $r aborts from its watchdog"
	like "$(grep "\[Rank $r\]" "$d/out")" "SeqNum=12, OpType=ALLREDUCE" "desync: rank $r hung in its last all-reduce (12)"
done

d=$T/api
run_in "$d" "$B/ncclengine" --ranks 2 --steps 6 --fault api --watchdog 1
like "$(cat "$d/out")" "rank 1: NCCL error in ncclAllReduce: invalid argument .*invalid datatype 42" \
	"api: rank 1 says NCCL refused the all-reduce"
like "$(rank_line "$d" 1)" "exited with status 1" "api: rank 1 exits 1"
like "$(rank_line "$d" 0)" "killed by signal 6" "api: rank 0 hangs until its watchdog aborts it"
done_testing
