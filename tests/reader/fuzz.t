#!/usr/bin/env bash
# The output side's libFuzzer harness (tests/reader/fuzz_report.c: decode completely and
# sparsely, diagnose, render every view and JSON) for 60 seconds, as the input side's harnesses
# run in tests/reader-input/fuzz.t, on synthetic records, so
# that it keeps building and a regression on the seeds shows up in `make check`.  Inputs it once
# found (tests/reader/fuzz-regressions/: records on which the sparse and the complete diagnosis
# disagreed) are part of every run.  A crash,
# sanitizer report, leak or timeout fails the test and leaves the reproducer in
# $B/fuzz/artifacts/.  Longer runs: make fuzz FUZZ_SECONDS=N.
. "$(dirname "$0")/../lib/tap.sh"
F=$B/fuzz
SECONDS_EACH=${CI_FUZZ_SECONDS_OUTPUT:-60}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$F/fuzz_report" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
[ -x "$B/tests/reader-input/mkrecord" ] || skip_all "mkrecord is not built"
plan 3
mkdir -p "$F/artifacts" "$T/new"
"$TOP/tests/reader-input/fuzz-seeds.sh" "$B/tests/reader-input" "$T/corpus" fuzz_record
ok "seeds built" test "$(ls "$T/corpus" | wc -l)" -ge 8
"$F/fuzz_report" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$F/artifacts/fuzz_report-" "$T/new" "$T/corpus" "$TOP/tests/reader/fuzz-regressions" \
	>"$T/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/log")
if [ $rc -eq 0 ]; then ok "fuzz_report: ${SECONDS_EACH}s, ${runs:-?} inputs, no crash" true
else ok "fuzz_report: ${SECONDS_EACH}s without a crash" false; diag "$(grep -E -A25 'ERROR|runtime error|timeout' "$T/log" | head -40)"; fi
ok "fuzz_report: ran more than a thousand inputs" test "${runs:-0}" -gt 1000
done_testing
