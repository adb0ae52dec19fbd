#!/usr/bin/env bash
# Breadcrumbs show exactly the launches that completed before the fault.  crumbprobe's own
# logic fixes the outcome (tests/recorder/crumbprobe.c): stream A finished 5 launches when its
# 6th faults (4 more queued behind it), stream B finished 3 (2 more stuck behind a wait), the
# per-thread default stream 2.  The breadcrumbs the simulated GPU wrote into the record must say
# exactly that, with every cadence (every launch, every K launches, every T microseconds), with
# 32-bit writes, and say "disabled" when turned off.  Under the default budget (a share of each
# thread's time) they never say more than happened: each stream's first launch gets one, the
# rest as the budget allows.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crumbprobe

# probe NAME [VAR=VALUE...]: run crumbprobe under the recorder, dump its error snapshot to $T/NAME.
probe() {
	local name=$1
	shift
	run_in "$T/$name" env CUDASIM_FAULT=bad_k CUDASIM_KERNEL_US=1000 "$@" LD_PRELOAD="$REC" \
		"$B/tests/recorder/crumbprobe"
	is "$rc" 0 "$name: the fault surfaced as CUDA_ERROR_ILLEGAL_ADDRESS"
	"$DUMP" "$(snap "$T/$name" error)" >"$T/$name.dump"
}
# stream_of TAG: the recdump stream line of the stream that ran the launch with first param TAG.
stream_of() {
	local slot
	slot=$(grep "^launch .*params=$2" "$T/$1.dump" | head -1 | sed 's/.* stream=\([0-9]*\) .*/\1/')
	grep "^stream slot=$slot " "$T/$1.dump"
}
crumbs() { # NAME: "A B PT" breadcrumb values
	echo "$(field crumb "$(stream_of "$1" a1)") $(field crumb "$(stream_of "$1" b1)") $(field crumb "$(stream_of "$1" c1)")"
}

probe every CUDAINSPECT_CRUMB_EVERY=1
is "$(crumbs every)" "5 3 2" "every launch: A finished 5, B 3, the per-thread stream 2"
a=$(stream_of every a1)
is "$(field launches "$a") $(field crumb_enqueued "$a") $(field crumb_status "$a")" "10 10 ok" \
	"A: 10 launches numbered, a breadcrumb queued after each"
like "$(grep '^launch .*params=a6' "$T/every.dump")" 'fn=bad_k .* sseq=6 ' "the faulting launch is number 6 on A"
like "$(grep '^error ' "$T/every.dump" | head -1)" 'api=cuStreamSynchronize result=CUDA_ERROR_ILLEGAL_ADDRESS flags=3 ' \
	"the first sticky error: flagged sticky and first"
like "$(grep '^header ' "$T/every.dump")" 'reason=2 .*first_sticky=[1-9]' "error snapshot; header points at the first sticky error"

probe every4 CUDAINSPECT_CRUMB_EVERY=4
is "$(crumbs every4)" "4 0 0" "every 4th launch: A's last breadcrumb is after launch 4; B and the per-thread stream never reached 4"
a=$(stream_of every4 a1)
is "$(field crumb_enqueued "$a")" 8 "A: the last breadcrumb was queued after launch 8"

probe timed CUDAINSPECT_CRUMB_EVERY=0 CUDAINSPECT_CRUMB_US=30000000
is "$(crumbs timed)" "1 1 1" "every 30 s: only each stream's first launch got one"

probe narrow CUDAINSPECT_CRUMB_EVERY=1 CUDAINSPECT_CRUMB_WIDTH=32
is "$(crumbs narrow)" "5 3 2" "32-bit breadcrumb writes: same answer"
like "$(grep '^header ' "$T/narrow.dump")" 'crumb_width=4 ' "header says the breadcrumbs are 32-bit"

# The default: a budget of 0.25 % of each thread's time.  Whatever the timing, every value is a
# launch that really finished (at most 5, 3, 2), and every stream's first launch got one.
probe budget
read -r ba bb bp <<<"$(crumbs budget)"
ok "budget: every breadcrumb is a launch that finished (A $ba <= 5, B $bb <= 3, per-thread $bp <= 2)" \
	test "$ba" -ge 1 -a "$ba" -le 5 -a "$bb" -ge 1 -a "$bb" -le 3 -a "$bp" -ge 1 -a "$bp" -le 2
for tag in a1 b1 c1; do
	st=$(stream_of budget $tag)
	ok "budget: the stream of $tag got a breadcrumb after its first launch ($(field crumb_enqueued "$st") enqueued)" \
		test "$(field crumb_enqueued "$st")" -ge 1
done
like "$(grep '^header ' "$T/budget.dump")" 'crumb_every=0 crumb_us=0 .*crumb_budget_ppm=2500 crumb_cost_ns=[1-9]' \
	"budget: the header says 0.25 % and what a write cost"
probe tiny CUDAINSPECT_CRUMB_BUDGET=0.001%
like "$(grep '^header ' "$T/tiny.dump")" 'crumb_budget_ppm=10 ' "CUDAINSPECT_CRUMB_BUDGET=0.001% is 10 parts per million"
a=$(stream_of tiny a1)
ok "tiny budget: A got at most the first launch's and one more ($(field crumb_enqueued "$a"))" \
	test "$(field crumb_enqueued "$a")" -le 2

probe off CUDAINSPECT_CRUMBS=off
is "$(crumbs off)" "0 0 0" "breadcrumbs off: none written"
a=$(stream_of off a1)
is "$(field crumb_status "$a") $(field crumb_skipped "$a")" "disabled 10" "A: status disabled, 10 launches without one"
like "$(grep '^header ' "$T/off.dump")" 'flags=0x[0-9a-f]*[4567cdef] ' "header flag CRUMBS_OFF"
done_testing
