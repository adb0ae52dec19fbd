#!/usr/bin/env bash
# The Python walker's libFuzzer harness (tests/python/fuzz_python.c: synthetic memory images,
# the walk, the line tables, the merge) for 60 seconds on the seeds of tests/python/pyseed.c,
# as the reader's harnesses run in tests/reader-input/fuzz.t.  A crash, sanitizer report, leak
# or timeout fails the test and leaves the reproducer in $B/fuzz/artifacts/.  Longer runs:
# make fuzz-python FUZZ_SECONDS=N.
. "$(dirname "$0")/../lib/tap.sh"
F=$B/fuzz
SECONDS_EACH=${CI_FUZZ_SECONDS_PYTHON:-60}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$F/fuzz_python" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
[ -x "$B/tests/python/pyseed" ] || skip_all "$B/tests/python/pyseed is not built"
plan 3
mkdir -p "$F/artifacts" "$T/new" "$T/corpus"
"$B/tests/python/pyseed" "$T/corpus"
ok "seeds built (3.10, 3.11, 3.12, 3.13)" test "$(ls "$T/corpus" | wc -l)" -eq 4
"$F/fuzz_python" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$F/artifacts/fuzz_python-" "$T/new" "$T/corpus" >"$T/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/log")
if [ $rc -eq 0 ]; then ok "fuzz_python: ${SECONDS_EACH}s, ${runs:-?} inputs, no crash" true
else ok "fuzz_python: ${SECONDS_EACH}s without a crash" false; diag "$(grep -E -A25 'ERROR|runtime error|timeout' "$T/log" | head -40)"; fi
ok "fuzz_python: ran more than a thousand inputs" test "${runs:-0}" -gt 1000
done_testing
