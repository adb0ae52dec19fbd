# Shared by the fuzz tests (sourced after tests/lib/tap.sh):
#   fuzz_run HARNESS SECONDS MIN_RUNS CORPUS [LIBFUZZER OPTIONS...]
# runs $B/fuzz/HARNESS for SECONDS on CORPUS (new inputs in $T/new, reproducers in
# $B/fuzz/artifacts/) and prints two TAP lines: no crash (with the inputs run), and more than
# MIN_RUNS inputs.
fuzz_run() {
	local h=$1 secs=$2 min=$3 corpus=$4 rc runs
	shift 4
	mkdir -p "$B/fuzz/artifacts" "$T/new"
	"$B/fuzz/$h" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/artifacts/$h-" "$@" "$T/new" "$corpus" >"$T/$h.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$h.log")
	if [ $rc -eq 0 ]; then ok "$h: ${secs}s, ${runs:-?} inputs, no crash" true
	else ok "$h: ${secs}s without a crash" false; diag "$(grep -E -A25 'ERROR|runtime error|timeout' "$T/$h.log" | head -40)"; fi
	ok "$h: ran more than $min inputs" test "${runs:-0}" -gt "$min"
}
