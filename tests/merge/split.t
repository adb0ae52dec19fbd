#!/usr/bin/env bash
# `cudainspect merge` over every communicator of a job: ncclengine --split even gives the even
# ranks a communicator of their own (ncclCommSplit), with an all-reduce on it at the start of
# each step.  The test plants an API error on rank 2 in that communicator's all-reduce of step
# 2, its number 2+1 = 3: rank 0 (the other even rank) waits in it, and the odd ranks wait in the
# step's first all-reduce of the whole job, 2*2+1 = 5 (two a step), where neither even rank
# arrived.  Each wait is reported in its own communicator, ranks named as in the job; rank 2 is
# the first failure, an API error.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../recorder/rec-lib.sh"
need_recorder ncclengine sim/libnccl.so.2
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
export CUDASIM_KERNEL_US=100
CI=$B/cudainspect
STEP=2 RANK=2

run_in "$T/job" env CUDAINSPECT_SNAPSHOT=signal,error,hang,exit CUDAINSPECT_NCCL_TIMEOUT=0.4 \
	LD_PRELOAD="$REC" "$B/ncclengine" --ranks 4 --steps 6 --split even --fault api \
	--fault-rank $RANK --fault-step $STEP --watchdog 2 --rank-dir "$T/job/r"
like "$(cat "$T/job/out")" "rank $RANK: planted: datatype 42 in the split communicator's all-reduce $((STEP + 1))" \
	"the engine planted the API error in the split communicator"
"$CI" merge --json "$T"/job/r*/ >"$T/m.json"
is "$?" 0 "merge exits 0"
world=$(jq -r .communicator "$T/m.json")
sub=$(jq -r '.job.communicators[] | select(.nranks == 2) | .id' <<<"$("$CI" --json "$(snap "$T/job/r0" hang)")")
ok "rank 0's record holds the split communicator, of 2 ranks" test -n "$sub"
is "$(jq -c '.first_failure | [.rank, .state]' "$T/m.json")" "[$RANK,\"api_error\"]" \
	"rank $RANK failed first, an API error (in the split communicator)"
is "$(jq -c --arg sub "$sub" '[.waits[] | select(.communicator == $sub) | [.nranks, .seq, .waiting, .never_arrived]]' "$T/m.json")" \
	"[[2,$((STEP + 1)),[0],[$RANK]]]" \
	"split communicator: rank 0 waits in its all-reduce #$((STEP + 1)), rank $RANK never arrived"
is "$(jq -c --arg w "$world" '[.waits[] | select(.communicator == $w) | [.nranks, .seq, .waiting, .never_arrived]]' "$T/m.json")" \
	"[[4,$((2 * STEP + 1)),[1,3],[0,2]]]" \
	"the job's communicator: ranks 1, 3 wait in #$((2 * STEP + 1)), ranks 0 and $RANK never arrived"
is "$(jq -c '.ranks[0].waits_in | [.communicator, .seq]' "$T/m.json")" "[\"$sub\",$((STEP + 1))]" \
	"rank 0 waits in the split communicator"
text=$("$CI" merge --width 120 "$T"/job/r*/)
like "$text" "ncclAllReduce #$((STEP + 1)) of communicator $(printf '%16s' "${sub#0x}" | tr ' ' 0) \(2 ranks\): rank 0 waits in it; never arrived: rank $RANK\." \
	"text: the split communicator's wait"
like "$text" "ncclAllReduce #$((2 * STEP + 1)): ranks 1, 3 wait in it; never arrived: ranks 0, $RANK\." \
	"text: the job's communicator's wait"
like "$text" "^0 .* hung in ncclAllReduce #$((STEP + 1)) of another communicator" "text: rank 0's line"

# Rank 2's input missing: the split communicator's wait counts the rank no input holds.
"$CI" merge --json "$T"/job/r0 "$T"/job/r1 "$T"/job/r3 >"$T/m3.json"
is "$(jq -c --arg sub "$sub" '[.waits[] | select(.communicator == $sub) | [.waiting, .never_arrived, .unseen_ranks]]' "$T/m3.json")" \
	"[[[0],[],1]]" "rank $RANK missing: rank 0 still waits, one rank of the split communicator in no input"
# Without the hang snapshots (the records written when the engine's watchdog aborted the
# ranks): rank 0's wait is still placed in the split communicator, from the call the recorder's
# hang watchdog flagged there (the oldest its stream had not finished, not the job's latest).
late=()
for r in 0 1 2 3; do
	f=$(snap "$T/job/r$r" signal); [ -n "$f" ] || f=$(snap "$T/job/r$r" exit)
	late+=("$f")
done
"$CI" merge --json "${late[@]}" >"$T/late.json"
is "$(jq -c '.ranks[0] | [.state, .waits_in.communicator, .waits_in.seq]' "$T/late.json")" \
	"[\"hung\",\"$sub\",$((STEP + 1))]" \
	"from the records written at the abort: rank 0 still waits in the split communicator's #$((STEP + 1))"

# A signal snapshot written while the aborts were still releasing rank 0's stream (seen under
# load): the split communicator's call the hang watchdog flagged finished by its abort, and the
# stream already in the job's #5 behind it.  Made here from rank 0's signal snapshot.  The hang
# snapshot's flagged wait, ended by an abort, is the news (and the signal snapshot alone says so
# too, from the same flag); without the flag in either (the control) the newer input's wait
# would be taken.
sig0=$(snap "$T/job/r0" signal); [ -n "$sig0" ] || sig0=$(snap "$T/job/r0" exit)
"$CI" --json "$sig0" | jq --arg w "$world" --arg s "$sub" --argjson k $((STEP + 1)) --argjson n $((2 * STEP + 1)) '
	(.job.collectives[] | select(.communicator == $s and .seq == $k)) |= (.state = "finished") |
	(.job.collectives[] | select(.communicator == $w and .seq == $n)) |= (.state = "in_flight")' \
	>"$T/s0.json"
is "$(jq -c '[.job.communicators[].state] | unique' "$T/s0.json")" '["aborted"]' \
	"rank 0's signal snapshot shows both communicators aborted"
# Both through jq, which keeps numbers as doubles: the process's start time must round alike.
"$CI" --json "$(snap "$T/job/r0" hang)" | jq . >"$T/h0.json"
is "$(jq -c --arg s "$sub" '[.job.collectives[] | select(.communicator == $s and .state == "in_flight") | [.seq, .timeout]]' "$T/h0.json")" \
	"[[$((STEP + 1)),true]]" "rank 0's hang snapshot: the split communicator's #$((STEP + 1)) in flight, flagged"
"$CI" merge --json "$T/h0.json" "$T/s0.json" "$T"/job/r[123]/ >"$T/ma.json"
is "$(jq -c '[.ranks[0].waits_in | .communicator, .seq] + [.waits[] | select(.nranks == 4) | [.seq, .waiting, .never_arrived]]' "$T/ma.json")" \
	"[\"$sub\",$((STEP + 1)),[$((2 * STEP + 1)),[1,3],[0,$RANK]]]" \
	"a snapshot written as the aborts released the stream: rank 0 still waits in the split communicator"
is "$(jq -r '.inputs[] | select(.rank == 0) | .path' "$T/ma.json")" "$T/h0.json" \
	"... from its hang snapshot, which the later one does not replace"
"$CI" merge --json "$T/s0.json" "$T"/job/r[123]/ >"$T/ms.json"
is "$(jq -c '.ranks[0] | [.waits_in.communicator, .waits_in.seq, .waits_in.until_abort]' "$T/ms.json")" \
	"[\"$sub\",$((STEP + 1)),true]" \
	"that snapshot alone: the flagged call its abort ended is rank 0's wait, not the later one in flight"
for f in h0 s0; do
	jq --arg s "$sub" '(.job.collectives[] | select(.communicator == $s)) |= (.timeout = false)' \
		"$T/$f.json" >"$T/${f}plain.json"
done
"$CI" merge --json "$T/h0plain.json" "$T/s0plain.json" "$T"/job/r[123]/ >"$T/mc.json"
is "$(jq -c '[.ranks[0].waits_in | .communicator, .seq]' "$T/mc.json")" "[\"$world\",$((2 * STEP + 1))]" \
	"without the watchdog's flag (control): the newer input's wait in the job's #$((2 * STEP + 1)) is taken"
done_testing
