#!/usr/bin/env bash
# The NCCL state of a single record (issue 24): the summary's "NCCL" lines and the `nccl` view,
# on the records ncclengine leaves under the recorder on the simulated driver and NCCL.  The
# test plants a device fault on rank 1 of 4 at step 2 (two all-reduces a step), so the others
# hang in all-reduce 2*2+1 = 5, which rank 1 never reaches: its own all-reduce 5 either waits
# behind the faulting kernel on its stream (not started) or, when the fault was seen first, is
# refused with ncclUnhandledCudaError (1, nccl.h) by its poisoned context; when the fault came
# later still (a slow machine: make check-asan saw it once), 5 was queued, not started, and the
# next one, 6, refused.  A record without
# NCCL says so; the JSON's job part carries the same states.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../recorder/rec-lib.sh"
need_recorder ncclengine miniengine sim/libnccl.so.2
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
export CUDASIM_KERNEL_US=100
CI=$B/cudainspect
STEP=2 FAULT_RANK=1 WAIT=5

run_in "$T/dev" env CUDAINSPECT_SNAPSHOT=signal,error,hang,exit CUDAINSPECT_NCCL_TIMEOUT=0.4 \
	LD_PRELOAD="$REC" "$B/ncclengine" --ranks 4 --steps 6 --fault device --fault-rank $FAULT_RANK \
	--fault-step $STEP --watchdog 2 --rank-dir "$T/dev/r"
hang=$(snap "$T/dev/r0" hang)
ok "rank 0 left a hang snapshot" test -n "$hang"

# A waiting rank: the collective it hangs in, with its number, from its stream's breadcrumb.
sum=$("$CI" --width 100 "$hang")
# The id as the text writes it, 16 digits (JSON's hex has no leading zeros).
pad16() { printf '%16s' "${1#0x}" | tr ' ' 0; }
comm=0x$(pad16 "$(jq -r '.job.communicators[0].id' <<<"$("$CI" --json "$hang")")")
like "$sum" "NCCL      rank 0 of 4 in $comm \(device 0, live, [0-9]+ collectives\)" \
	"waiting rank, summary: its communicator with rank, size and the id of its JSON"
like "$sum" "^            ncclAllReduce #$WAIT IN FLIGHT" \
	"waiting rank, summary: hung in the planted all-reduce #$WAIT"
view=$("$CI" --width 100 "$hang" nccl)
like "$view" "^  $WAIT +ncclAllReduce +IN FLIGHT +1,024 " "waiting rank, view: all-reduce #$WAIT in flight"
is "$(grep -cE '^  [0-9]+ +ncclAllReduce +finished ' <<<"$view")" $((WAIT - 1)) \
	"waiting rank, view: the $((WAIT - 1)) all-reduces before it finished"
is "$(jq -c "[.job.collectives[] | select(.state == \"in_flight\") | .seq]" <<<"$("$CI" --json "$hang")")" \
	"[$WAIT]" "waiting rank, JSON: the job part has the same collective in flight"
ok "another rank names the same communicator" \
	grep -q "rank 2 of 4 in $comm" <<<"$("$CI" "$(snap "$T/dev/r2" hang)")"

# The faulting rank, from its core: the collective its poisoned context refused.
core=$T/dev/r$FAULT_RANK/core
sum=$("$CI" --width 100 "$core")
like "$sum" "NCCL      rank $FAULT_RANK of 4 in $comm " "faulting rank, summary: its communicator"
like "$sum" "^            ncclAllReduce (#$WAIT not started|refused \(ncclResult 1\) after #($((WAIT - 1))|$WAIT))" \
	"faulting rank, summary: its all-reduce #$WAIT not started, or it or the next refused with ncclUnhandledCudaError"
view=$("$CI" "$core" nccl)
like "$view" "^  $WAIT +ncclAllReduce +not started |^  - +ncclAllReduce +FAILED .* returned ncclResult 1$" \
	"faulting rank, view: all-reduce #$WAIT not started or refused"
unlike "$view" "^  $WAIT +ncclAllReduce +(finished|IN FLIGHT)" "faulting rank, view: it never reached #$WAIT"
# Two lines for one communicator; the summary within its 40 lines at 100 columns (at 80, the
# long paths of this test's inputs wrap the suggested commands).
for f in "$core" "$hang"; do
	is "$("$CI" --width 80 "$f" | sed -n '/^NCCL /,/^$/p' | grep -c .)" 2 \
		"$(basename "$f"): the summary's NCCL part is two lines"
	ok "$(basename "$f"): the summary at 100 columns within 40 lines" \
		test "$("$CI" --width 100 "$f" | wc -l)" -le 40
done

# The same fault, with rank 1's all-reduce #5 held back after NCCL accepted it (ncclslow,
# preloaded after the recorder into ncclengine-linked) until the fault poisoned the context: the
# breadcrumb the recorder writes after the call fails, as when the fault lands in that window on
# a GPU.  The call has no breadcrumb of its own, but it was queued behind the launch the
# diagnosis found faulting: not started, not "unknown".  The simulated kernel faults as soon as
# its stream reaches it, so the engine must call the all-reduce before that: when it was held up
# between the launch and the call (a loaded machine: CI saw it once in a few runs), NCCL refuses
# the call instead, and the run is repeated, up to 5 times, until the record shows the window
# (the all-reduce numbered, without its breadcrumb).  Two ranks: fewer threads to wait behind.
SLOW=$B/tests/merge/libncclslow.so
[ -e "$SLOW" ] || BAIL_OUT "$SLOW is missing (make test-deps)"
slow= flags= try=0
while [ $try -lt 5 ] && { [ -z "$flags" ] || [ $((flags & 0x2)) != 0 ]; }; do # CI_NCCL_CALL_CRUMB
	try=$((try + 1))
	rm -rf "$T/slow"
	run_in "$T/slow" env CUDAINSPECT_SNAPSHOT=signal CUDAINSPECT_NCCL_TIMEOUT=0.4 \
		NCCLSLOW_RANK=$FAULT_RANK NCCLSLOW_CALL=$WAIT NCCLSLOW_MS=200 LD_PRELOAD="$REC $SLOW" \
		"$B/ncclengine-linked" --ranks 2 --steps 6 --fault device --fault-rank $FAULT_RANK \
		--fault-step $STEP --watchdog 2 --rank-dir "$T/slow/r"
	slow=$(snap "$T/slow/r$FAULT_RANK" signal)
	flags=
	[ -n "$slow" ] &&
		flags=$("$DUMP" "$slow" | sed -n "s/^ncclcall .* op_seq=$WAIT .* flags=\(0x[0-9a-f]*\) .*/\1/p")
done
ok "held all-reduce: the faulting rank left a signal snapshot" test -n "$slow"
ok "held all-reduce: the recorder could not write the breadcrumb after #$WAIT (flags $flags, run $try)" \
	test -n "$flags" -a $((flags & 0x2)) = 0 # CI_NCCL_CALL_CRUMB
like "$("$CI" --width 100 "$slow")" "^            ncclAllReduce #$WAIT not started\$" \
	"held all-reduce: the summary has #$WAIT not started (behind the faulting tp_matvec)"
is "$(jq -c "[.job.collectives[] | select(.seq == $WAIT) | .state]" <<<"$("$CI" --json "$slow")")" \
	'["not_started"]' "held all-reduce: so has the JSON's job part"

# --last N: the newest N of each communicator.
view=$("$CI" --last 2 "$hang" nccl)
is "$(grep -cE '^  [0-9]+ +ncclAllReduce ' <<<"$view")" 2 "--last 2: two collectives"
like "$view" "older not shown" "--last 2: the older ones are counted"

# No NCCL at all.
run_in "$T/mini" env LD_PRELOAD="$REC" CUDAINSPECT_SNAPSHOT=exit "$B/miniengine" --quiet
mini=$(snap "$T/mini" exit)
view=$("$CI" "$mini" nccl)
is "$?" 0 "no NCCL: the view exits 0"
like "$view" "none recorded: the process made no NCCL call" "no NCCL: the view says so"
unlike "$("$CI" "$mini")" "^NCCL" "no NCCL: the summary has no NCCL line"
done_testing
