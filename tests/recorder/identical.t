#!/usr/bin/env bash
# The recorder never changes behaviour: over apitour's scripted sequence of driver calls
# (including calls that fail on purpose) every result and out-parameter fact is the same with
# and without the recorder, and the engines produce the same output, exit status and CUDA error
# line.  The facts apitour prints do not depend on addresses, so the outputs compare verbatim.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder apitour miniengine launchstorm

"$B/apitour" >"$T/plain" 2>&1
prc=$?
rec "$B/apitour" >"$T/rec" 2>&1
rrc=$?
is "$rrc" "$prc" "apitour: same exit status ($prc)"
is "$(cat "$T/rec")" "$(cat "$T/plain")" "apitour: every call's result and facts identical"
ok "apitour made failing calls" grep -q -- '-> CUDA_ERROR_' "$T/plain"

for mode in "" --ptsz --bootstrap "--bootstrap --ptsz"; do
	# shellcheck disable=SC2086
	CUDASIM_KERNEL_US=20 "$B/miniengine" --steps 3 $mode >"$T/plain" 2>&1
	prc=$?
	# shellcheck disable=SC2086
	CUDASIM_KERNEL_US=20 rec "$B/miniengine" --steps 3 $mode >"$T/rec" 2>&1
	rrc=$?
	is "$rrc $(cat "$T/rec")" "$prc $(cat "$T/plain")" "miniengine ${mode:-(direct)}: same status and output (token checksum)"
done

for fault in oob badlaunch; do
	run_in "$T/p$fault" env CUDAINSPECT_QUIET=1 CUDASIM_KERNEL_US=20 "$B/miniengine" --steps 4 --fault $fault
	prc=$rc
	run_in "$T/r$fault" env CUDAINSPECT_QUIET=1 CUDASIM_KERNEL_US=20 LD_PRELOAD="$REC" \
		"$B/miniengine" --steps 4 --fault $fault
	is "$rc" "$prc" "--fault $fault: same exit status ($prc)"
	# Which of the engine's threads reach their CHECK before the process dies is a race (the
	# signal snapshot makes dying slower), so compare the distinct lines.
	is "$(grep 'CUDA error' "$T/r$fault/err" | sort -u)" "$(grep 'CUDA error' "$T/p$fault/err" | sort -u)" \
		"--fault $fault: same CUDA error line"
done

CUDASIM_MODE=null "$B/launchstorm" --threads 2 --launches 2000 --quiet >"$T/plain" 2>&1
prc=$?
CUDASIM_MODE=null rec "$B/launchstorm" --threads 2 --launches 2000 --quiet >"$T/rec" 2>&1
is "$? $(cat "$T/rec")" "$prc $(cat "$T/plain")" "launchstorm: same status and output"
done_testing
