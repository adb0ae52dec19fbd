#!/usr/bin/env bash
# The host-side report (corefile/hostside.c) under its libFuzzer harness
# (tests/hostside/fuzz_hostside.c) for 30 seconds, seeded with the input side's synthetic cores
# (tests/reader-input/fuzz-seeds.sh fuzz_core) and a real kernel core of throwprobe (a C++
# exception through std::terminate, on the simulated driver: unwinding, libstdc++'s exception
# state, the CUDA libraries).  A crash, sanitizer report, leak or timeout fails the test and
# leaves the reproducer in $B/fuzz/artifacts/.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/fuzz.sh"
F=$B/fuzz
SECS=${CI_FUZZ_SECONDS_HOSTSIDE:-30}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$F/fuzz_hostside" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
[ -x "$B/tests/reader-input/mkcore" ] || skip_all "mkcore is not built (make check builds it)"
plan 3
"$TOP/tests/reader-input/fuzz-seeds.sh" "$B/tests/reader-input" "$T/corpus" fuzz_core >/dev/null 2>&1
if [ "$(cat /proc/sys/kernel/core_pattern)" = core ] && [ -x "$B/tests/hostside/throwprobe" ]; then
	mkdir -p "$T/run"
	{ ( cd "$T/run" && ulimit -c unlimited && LD_LIBRARY_PATH=$B/sim exec "$B/tests/hostside/throwprobe" seed ) >/dev/null 2>&1; } 2>/dev/null
	[ -e "$T/run/core" ] && mv "$T/run/core" "$T/corpus/throwprobe-core"
fi
ok "seeds built" test "$(ls "$T/corpus" | wc -l)" -ge 10
fuzz_run fuzz_hostside "$SECS" 100 "$T/corpus" -timeout=20
done_testing
