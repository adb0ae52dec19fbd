#!/usr/bin/env bash
# The merge's JSON reader harness (corefile/fuzz/fuzz_merge_json.c) for 60 seconds on seeds made
# from real documents (tests/merge/fuzz-seeds.sh), as the reader's harnesses run in
# tests/reader-input/fuzz.t.  A crash, sanitizer report, leak or timeout fails the test and
# leaves the reproducer in $B/fuzz/artifacts/.  Longer runs: make fuzz-merge-json FUZZ_SECONDS=N.
. "$(dirname "$0")/../lib/tap.sh"
F=$B/fuzz
SECONDS_EACH=${CI_FUZZ_SECONDS_MERGE:-60}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$F/fuzz_merge_json" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
plan 3
mkdir -p "$F/artifacts" "$T/new"
"$TOP/tests/merge/fuzz-seeds.sh" "$T/corpus"
ok "seeds built" test "$(ls "$T/corpus" | wc -l)" -ge 12
"$F/fuzz_merge_json" -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$F/artifacts/fuzz_merge_json-" "$T/new" "$T/corpus" >"$T/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/log")
if [ $rc -eq 0 ]; then ok "fuzz_merge_json: ${SECONDS_EACH}s, ${runs:-?} inputs, no crash" true
else ok "fuzz_merge_json: ${SECONDS_EACH}s without a crash" false; diag "$(grep -E -A25 'ERROR|runtime error|timeout' "$T/log" | head -40)"; fi
ok "fuzz_merge_json: ran more than a thousand inputs" test "${runs:-0}" -gt 1000
done_testing
