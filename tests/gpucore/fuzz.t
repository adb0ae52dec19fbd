#!/usr/bin/env bash
# The GPU core reader (corefile/gpucore/*.c) under its libFuzzer harness
# (tests/gpucore/fuzz_gpucore.c) for 60 seconds, seeded with GPU cores the simulated driver writes
# and their cubins (tests/gpucore/fuzz-seeds.sh; never the 148 MB H200 dump, only its faulting
# kernel's 5.5 KB cubin when ../shared has it).  A crash, sanitizer report, leak or timeout fails
# the test and leaves the reproducer in $B/fuzz/artifacts/.  Longer: make fuzz-gpucore FUZZ_SECONDS=N.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/fuzz.sh"
SECS=${CI_FUZZ_SECONDS_GPUCORE:-60}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$B/fuzz/fuzz_gpucore" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
[ -x "$B/tests/gpucore/gcprobe" ] && [ -e "$B/sim/libcuda.so.1" ] || skip_all "gcprobe or the simulator is not built"
plan 3
"$TOP/tests/gpucore/fuzz-seeds.sh" "$B" "$T/corpus" >/dev/null 2>&1
ok "seeds built" test "$(ls "$T/corpus" | wc -l)" -ge 10
fuzz_run fuzz_gpucore "$SECS" 1000 "$T/corpus" -timeout=20
done_testing
