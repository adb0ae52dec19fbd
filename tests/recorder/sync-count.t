#!/usr/bin/env bash
# A stream synchronization records how many launches the stream had handed out when it began
# (format 1.3, the stream_sync event's value): every one of them was enqueued before it, so a
# successful one says they finished, without the launches being read (the summary's sparse scan
# stops there, issue 23).  bench/reader/bigcore under the recorder: 4 threads, each 50,000
# launches on its own stream and then cuStreamSynchronize of it (numbers planted by the test),
# and a last launch that faults, synchronized by the main thread.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
BIG=$B/bench/reader/bigcore
[ -x "$BIG" ] || skip_all "bench/reader/bigcore is not built"
need_recorder

run_in "$T/big" env CUDASIM_MODE=null CUDASIM_FAULT=bench_fault CUDAINSPECT_SIZE=32M \
	CUDAINSPECT_SNAPSHOT=signal LD_PRELOAD="$REC" "$BIG" --host-gib 0 --allocs 10 \
	--launches 200000 --threads 4
S=$(snap "$T/big" signal)
ok "bigcore crashed and left its signal snapshot" test -s "$S"
"$DUMP" "$S" >"$T/d" 2>"$T/derr"
grep '^event .*kind=stream_sync ' "$T/d" >"$T/syncs"
is "$(grep -c 'result=CUDA_SUCCESS' "$T/syncs")" 4 "four successful stream synchronizations, one per worker"
is "$(grep 'result=CUDA_SUCCESS' "$T/syncs" | sed -n 's/.* value=\([0-9]*\) .*/\1/p' | sort -u)" 50000 \
	"... each found its stream's 50,000 launches handed out"
like "$(grep -v 'result=CUDA_SUCCESS' "$T/syncs")" ' value=1 .*result=CUDA_ERROR_ILLEGAL_ADDRESS' \
	"the failing one found the faulting stream's one launch"

# The reader: the workers' streams finished by the count, the scan reads a small part of the ring.
out=$("$B/cudainspect" "$S" streams 2>&1)
is "$(printf '%s\n' "$out" | grep -c 'of 50000 launched: 50000 finished')" 4 \
	"the streams view: each worker stream's 50,000 launches finished"
k=$("$B/cudainspect" "$S" kernels --last 5 2>&1 | sed -n '1,/^  seq /p' | tr -s ' \n' '  ')
read_n=$(printf '%s\n' "$k" | sed -n 's/.*the newest \([0-9,]*\) of its.*/\1/p' | tr -d ,)
held=$(printf '%s\n' "$k" | sed -n 's/.*the ring holds \([0-9,]*\);.*/\1/p' | tr -d ,)
ok "kernels --last 5 reads ${read_n:-all} of the ring's ${held:-?} entries, not all" \
	test -n "$read_n" -a "${read_n:-0}" -lt "${held:-0}"
done_testing
