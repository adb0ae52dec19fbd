#!/usr/bin/env bash
# The recorder's kernel-log reader (common/kmsgread.c) under its libFuzzer harness
# (tests/recorder/fuzz_kmsg.c) for 30 seconds, seeded with the kernel-log fixtures (every
# format: only kmsg records have times, the rest are taken without) and planted records of each
# owner rule.  A crash, sanitizer report, leak or timeout fails the test and leaves the
# reproducer in $B/fuzz/artifacts/.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/fuzz.sh"
F=$B/fuzz
SECS=${CI_FUZZ_SECONDS_KMSG:-30}
[ "${CI_SANITIZE:-}" = address ] && skip_all "the harness is always built with ASan+UBSan; it runs in 'make check'"
[ -x "$F/fuzz_kmsg" ] || skip_all "fuzz harness not built (clang with libFuzzer needed)"
plan 3
mkdir -p "$T/corpus"
cp "$TOP"/tests/kernel-log/fixtures/*.log "$TOP"/tests/kernel-log/fixtures/*.txt "$T/corpus/"
x='NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=python, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ'
printf '4,1,2000000,-;%s\n SUBSYSTEM=pci\n' "$x" >"$T/corpus/own"
printf '4,2,2000000,-;NVRM: Xid (PCI:0000:18:00): 43, pid=99, name=python, channel 0x1\n' >"$T/corpus/name"
printf '4,3,5,-;NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 13, Graphics SM Warp Exception on (GPC 1, TPC 1, SM 0): Out Of Range Address\n' >"$T/corpus/old-mig"
printf '4,4,2000000,caller=T1;NVRM: GPU at PCI:0000:3b:00: GPU-1234\n4,5,2000000,-;NVRM: Xid (PCI:0000:3b:00): 31, pid='"'"'<unknown>'"'"', name=<unknown>, Ch 00000001' >"$T/corpus/gpu-unknown"
ok "seeds built" test "$(ls "$T/corpus" | wc -l)" -ge 15
fuzz_run fuzz_kmsg "$SECS" 1000 "$T/corpus" -max_len=20000 -timeout=10
done_testing
