#!/usr/bin/env bash
# A delay before the hang: the recorder's NCCL hang watchdog (docs/RECORDER.md, "The hang
# watchdog") flags a collective that is outstanding past CUDAINSPECT_NCCL_TIMEOUT and writes the
# hang snapshot; when that collective then finishes without an abort, it was a delay, not the
# hang: the watchdog flags it late, removes that snapshot and watches again, so the hang that
# follows gets a snapshot of its own.  Before, the one hang snapshot a process wrote could be the
# delay's, and `cudainspect merge` then had a rank waiting in a collective it had finished (a
# clean-clone CI run on a loaded machine saw it: a rank stalled past the 0.4 s timeout).
#
# The delay is planted: ncclslow (preloaded after the recorder into ncclengine-linked) holds
# rank 3 for 1.5 s after NCCL accepted its all-reduce #4, so the others wait in #5 for that long;
# then rank 3 faults in step 3 and the others hang in #7 until their engine's watchdog aborts
# them.  The expected numbers are the engine's (merge.t's dev4 job, plus the hold).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../recorder/rec-lib.sh"
need_recorder ncclengine-linked sim/libnccl.so.2 tests/merge/libncclslow.so
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
export CUDASIM_KERNEL_US=100
CI=$B/cudainspect
SLOW=$B/tests/merge/libncclslow.so

d=$T/delay
run_in "$d" env CUDAINSPECT_SNAPSHOT=signal,error,hang CUDAINSPECT_NCCL_TIMEOUT=0.4 \
	NCCLSLOW_RANK=3 NCCLSLOW_CALL=4 NCCLSLOW_MS=1500 LD_PRELOAD="$REC $SLOW" \
	"$B/ncclengine-linked" --ranks 4 --steps 6 --fault device --watchdog 3 --rank-dir "$d/r"
is "$rc" 1 "the launcher exits 1 (rank 3 faults, the others are aborted by their watchdogs)"

for r in 0 1 2; do
	# The recorder's lines of rank R (stderr is shared: each names its rank).
	said=$(grep "^cudainspect: .*(rank $r of 4)" "$d/err")
	is "$(sed -nE 's/^cudainspect: ncclAllReduce #([0-9]+) .* (is still outstanding|finished after all).*/\1 \2/p' <<<"$said" | tr '\n' ,)" \
		"5 is still outstanding,5 finished after all,7 is still outstanding," \
		"rank $r: the recorder says #5 outstanding, then finished (a delay), then #7 outstanding"
	like "$said" "#5 .* finished after all, within [0-9.]+ s of the call: a delay, not a hang; its calls are flagged late; removed the hang snapshot .*-hang\.cisnap; watching for a hang again" \
		"rank $r: it removes the delay's hang snapshot and watches again"
	hangs=$(ls "$d/r$r"/*-hang.cisnap 2>/dev/null)
	is "$(wc -w <<<"$hangs")" 1 "rank $r: one hang snapshot is left"
	is "$("$CI" --json $hangs | jq -c '[.job.collectives[] | select(.state == "in_flight") | .seq] | min')" 7 \
		"rank $r: it is the hang's: it waits in #7"
	sig=$(snap "$d/r$r" signal)
	is "$("$CI" --json "$sig" | jq -c '[.job.collectives[] | select(.seq == 5 or .seq == 7) | [.seq, .timeout, .late]]')" \
		'[[5,false,true],[7,true,false]]' \
		"rank $r: its signal snapshot (after the abort) has #5 late, #7 past the timeout"
done
sig0=$(snap "$d/r0" signal)
like "$("$CI" "$sig0" nccl)" "^  5 +ncclAllReduce .* late \(a delay\)\$" \
	"the nccl view marks #5 late"
like "$("$CI" "$sig0" nccl)" "^  7 +ncclAllReduce .* past the hang timeout\$" \
	"and #7 past the hang timeout"

# The merge: the hang, not the delay.
"$CI" merge --json "$d"/r*/*.cisnap >"$T/m.json"
is "$(jq -c '[.waits[] | [.seq, .op, .waiting, .never_arrived]]' "$T/m.json")" \
	'[[7,"all_reduce",[0,1,2],[3]]]' "merge: ranks 0-2 wait in all-reduce 7, rank 3 never arrived"
"$CI" merge --json "$d"/r*/core >"$T/mc.json"
is "$(jq -c '[.waits[] | [.seq, .waiting, .never_arrived]]' "$T/mc.json")" '[[7,[0,1,2],[3]]]' \
	"merge of the cores: the same"

# A delay's hang snapshot that was kept anyway (copied before the recorder removed it, or from an
# older recorder's run): made here from rank 0's hang snapshot as it was at #5 (the calls after
# #5 dropped, #5 in flight past the timeout, not late, written when #5 was 0.5 s old).  Its signal
# snapshot as after an abort that released the waits (every collective finished; the simulated
# abort may not have released them yet when the snapshot was written) flags #5 late, so the
# merge takes the signal snapshot; without the late flag (a 1.5 recorder's record: #5 past the
# timeout instead, #7 not flagged) it takes the delay's: the flag is what decides.
"$CI" --json "$(ls "$d"/r0/*-hang.cisnap)" >"$T/h0.json"
"$CI" --json "$sig0" | jq '.job.collectives[].state = "finished"' >"$T/s0.json"
t5=$(jq '.job.collectives[] | select(.seq == 5) | .time_ns' "$T/h0.json")
jq --argjson t "$t5" '.job.collectives |= map(select(.seq <= 5) |
		if .seq == 5 then .state = "in_flight" | .timeout = true | .late = false else . end) |
	.job.end_ns = ($t + 500000000) | .job.communicators[0].collectives = 5' "$T/h0.json" >"$T/stale0.json"
others() { ls "$d"/r[123]/*-signal.cisnap "$d"/r[12]/*-hang.cisnap "$d"/r3/*-error.cisnap; }
"$CI" merge --json "$T/stale0.json" "$T/s0.json" $(others) >"$T/ms.json"
is "$(jq -c '[.waits[] | [.seq, .waiting, .never_arrived]]' "$T/ms.json")" '[[7,[0,1,2],[3]]]' \
	"a kept delay snapshot: the signal snapshot's late flag ends its wait"
jq '(.job.collectives[] | select(.seq == 5)) |= (.late = false | .timeout = true) |
	(.job.collectives[] | select(.seq == 7)) |= (.timeout = false)' "$T/s0.json" >"$T/s0old.json"
"$CI" merge --json "$T/stale0.json" "$T/s0old.json" $(others) >"$T/mso.json"
is "$(jq -c '[.waits[] | [.seq, .waiting]] | sort' "$T/mso.json")" '[[5,[0]],[7,[1,2]]]' \
	"without the late flag (control): the delay's wait in #5 is taken for rank 0"
done_testing
