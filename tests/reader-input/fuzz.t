#!/usr/bin/env bash
# The libFuzzer harnesses of the input side, 60 seconds each (both at once, one per core), on
# a seed corpus built now from synthetic records and cores and a real kernel core.  A crash,
# sanitizer report, leak or timeout fails the test and leaves the reproducer in
# $B/fuzz/artifacts/.  Longer runs: make fuzz FUZZ_SECONDS=N.
. "$(dirname "$0")/../lib/tap.sh"
D=$B/tests/reader-input
F=$B/fuzz
SECONDS_EACH=${CI_FUZZ_SECONDS:-60}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harnesses are always built with ASan+UBSan; they run in 'make check'"
[ -x "$F/fuzz_core" ] && [ -x "$F/fuzz_record" ] || skip_all "fuzz harnesses not built (clang with libFuzzer needed)"
plan 6
declare -A seeds_rc
mkdir -p "$F/artifacts"
pids=()
for h in fuzz_core fuzz_record; do
	"$TOP/tests/reader-input/fuzz-seeds.sh" "$D" "$T/corpus-$h" "$h"; seeds_rc[$h]=$?
	mkdir -p "$T/new-$h"
	# New inputs go to new-$h (the first directory), so the seeds stay as built.
	"$F/$h" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$F/artifacts/$h-" "$T/new-$h" "$T/corpus-$h" >"$T/$h.log" 2>&1 &
	pids+=($!)
done
i=0
for h in fuzz_core fuzz_record; do
	wait "${pids[$i]}"; rc=$?; i=$((i + 1))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$h.log")
	seeds=$(ls "$T/corpus-$h" | wc -l)
	ok "$h: $seeds seeds built" test "${seeds_rc[$h]}" -eq 0 -a "$seeds" -ge 8
	if [ $rc -eq 0 ]; then ok "$h: ${SECONDS_EACH}s, ${runs:-?} inputs, no crash" true
	else ok "$h: ${SECONDS_EACH}s without a crash" false; diag "$(grep -E -A25 'ERROR|runtime error|timeout' "$T/$h.log" | head -40)"; fi
	ok "$h: ran more than a thousand inputs" test "${runs:-0}" -gt 1000
done
done_testing
