# Helpers for tests/sim/*.t, sourced after tests/lib/tap.sh.
# The C test programs print TAP of their own; `tap_clean FILE` passes when such an output has a
# plan, as many passing results as planned, no failure and no bail-out, and shows what failed.
tap_clean() {
	local f=$1 plan n bad
	plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$f" | head -1)
	n=$(grep -c '^ok ' "$f")
	bad=$(grep -E '^(not ok|Bail out)' "$f" | head -20)
	if [ -n "$bad" ] || [ -z "$plan" ] || [ "$n" != "$plan" ]; then
		diag "plan '${plan}', $n passed; failures:" "$bad" "$(grep -A3 -E '^(not ok|Bail out)' "$f" | grep '^#' | head -20)"
		return 1
	fi
}
# Run a C test program with the simulator; its TAP goes to $T/NAME.tap.  `sim_run NAME [args]`.
# Programs that hold streams on host flags would wait forever if a call did; the limit makes
# that a failure (a whole program takes seconds).
sim_run() {
	local name=$1; shift
	LD_LIBRARY_PATH=$B/sim timeout -k 5 300 "$B/tests/sim/$name" "$@" > "$T/$name.tap" 2> "$T/$name.err"
	local rc=$?
	[ -s "$T/$name.err" ] && diag "$name stderr:" "$(head -20 "$T/$name.err")"
	return $rc
}
[ -f "$B/sim/libcuda.so.1" ] || skip_all "no $B/sim/libcuda.so.1 (run make first)"
