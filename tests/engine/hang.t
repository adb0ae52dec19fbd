#!/usr/bin/env bash
# miniengine --hang on the simulated driver: spin_wait never completes (CUDASIM_HANG), the engine
# says so and stays blocked (for live --pid inspection) until killed; SIGUSR1, which releases
# the spinning kernel on a GPU, cannot release the simulator.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines miniengine
[ -e "$SPY" ] || skip_all "$SPY is not built (make check builds it)"

plan 10
spy "$T/spy.log" timeout -k 5 60 "$B/miniengine" --hang --verbose >"$T/out" 2>"$T/err" &
pid=$!
wait_for 60 grep -q "hang planted" "$T/err"
like "$(cat "$T/err")" "hang planted: stream 0 of thread 0 is blocked behind spin_wait; pid [0-9]+ waits in cuEventSynchronize" \
	"announces the hang with the pid to inspect"
like "$(cat "$T/err")" "CUDASIM_HANG=spin_wait@1\$" "tells the simulator which launch never completes"
sleep 0.5
engine=$(sed -n "s/.*; pid \([0-9]*\) waits.*/\1/p" "$T/err")
is "$(cat /proc/"$engine"/comm 2>/dev/null)" miniengine "the announced pid is the running engine"
is "$(grep -c '^launch spin_wait ' "$T/spy.log")" 1 "spin_wait was launched once"
threads=$(ls /proc/"$engine"/task 2>/dev/null | wc -l)
like "$threads" '^[0-9]+$' "the live process has threads to inspect ($threads)"
state=$(awk '/^State:/ {print $2}' /proc/"$engine"/status 2>/dev/null)
is "$state" S "blocked (sleeping), not spinning"
kill -USR1 "$engine"
sleep 0.5
ok "SIGUSR1 does not release the simulator" kill -0 "$engine"
kill -TERM "$engine"
wait "$pid"
rc=$?
ok "gone after SIGTERM" test ! -e /proc/"$engine"
is "$rc" 143 "ends when killed (SIGTERM: 128 + 15)"
is "$(cat "$T/out")" "" "never reached the summary"
