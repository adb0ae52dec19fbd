#!/usr/bin/env bash
# GDB's `cuda nccl` on a real kernel core of a rank of ncclengine (a device fault planted on rank
# 1 of 2: rank 0 hangs in an all-reduce until its watchdog aborts it, leaving its core): it
# prints what the CLI prints for the same core and view, exit code included, and that names the
# all-reduce rank 1 did not finish (read from rank 1's core) as the one past the recorder's hang
# timeout, at or before the one the engine's own watchdog line names (SeqNum=N, the step's
# last); `help cuda nccl` documents it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$CMDS" "$CLI" "$B/ncclengine" "$B/sim/libcuda.so.1" "$B/sim/libnccl.so.2"

rm -rf "$T/job"
mkdir -p "$T/job"
( cd "$T/job" && ulimit -c unlimited &&
	CUDASIM_KERNEL_US=100 CUDAINSPECT_NCCL_TIMEOUT=0.4 recorded timeout -k 5 60 \
		"$B/ncclengine" --ranks 2 --steps 4 --fault device --fault-rank 1 --fault-step 1 \
		--watchdog 2 --rank-dir "$T/job/r" ) \
	>"$T/run.out" 2>"$T/run.err" || true
core=$(ls "$T"/job/r0/core* 2>/dev/null | head -n 1)
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "ncclengine left no core for rank 0"; }

got=$(gdb_cuda "$B/ncclengine" "$core" -- cuda nccl)
want=$("$CLI" "$core" nccl 2>&1; echo "exit=$?")
is "$got" "$want" "cuda nccl prints what the CLI prints, exit code included"
seq=$(sed -n 's/.*\[Rank 0\] Watchdog caught .*WorkNCCL(SeqNum=\([0-9]*\),.*/\1/p' "$T/run.out")
ok "the engine's watchdog named the all-reduce rank 0 hung in" test -n "$seq"
# Rank 0 hangs in the first all-reduce rank 1 did not finish (behind its faulting kernel, or
# refused); the engine's watchdog names the step's last one, which waits behind it.
core1=$(ls "$T"/job/r1/core* 2>/dev/null | head -n 1)
done1=$("$CLI" "$core1" nccl | awk '/^  [0-9]+ +ncclAllReduce +finished/ { n = $1 } END { print n + 0 }')
first=$((done1 + 1))
ok "rank 1's core: the first all-reduce it did not finish ($first) is at or before the engine's ($seq)" \
	test -n "$core1" -a "$first" -le "${seq:-0}"
like "$got" "^  ${first:-X} +ncclAllReduce +[a-zA-Z ]+ +1,024 .* past the hang timeout$" \
	"cuda nccl: that all-reduce, past the hang timeout"
like "$got" "rank 0 of 2, device 0" "cuda nccl: its communicator with rank and size"
is "$(gdb_cuda "$B/ncclengine" "$core" -- cuda nccl 1 | grep -cE '^  [0-9]+ +ncclAllReduce ')" 1 \
	"cuda nccl 1: one collective (--last 1)"
help=$(gdb_batch -x "$CMDS" -ex 'help cuda nccl' -ex 'echo alive\n')
like "$help" "NCCL communicators" "help cuda nccl: its doc line"
like "$help" "alive" "help cuda nccl: GDB survives it"
done_testing
