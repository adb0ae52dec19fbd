#!/usr/bin/env bash
# Which freed-allocation ranges the JIT reader names (plugin/freed.c): a C unit test on
# hand-built models, run as a TAP subtest.
. "$(dirname "$0")/../lib/tap.sh"
bin=$B/tests/plugin/freed-test
[ -x "$bin" ] || skip_all "$bin not built (make check builds it)"
out=$("$bin")
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
is "$rc" 0 "freed-range precedence unit test passes"
like "$out" '^1\.\.[1-9]' "unit test printed its plan"
done_testing
