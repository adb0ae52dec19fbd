#!/usr/bin/env bash
# Threads hammering the driver (tests/sim/hammer.c), with the normal build and under
# ThreadSanitizer (a TSan build of the simulator and of the test, in build/tests/sim/tsan/).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=20
sim_run hammer 8 256; ok "hammer exits 0" test $? -eq 0
ok "hammer: all pass" tap_clean "$T/hammer.tap"
CUDASIM_MODE=null sim_run hammer 8 2048; ok "hammer in null mode exits 0" test $? -eq 0
ok "hammer in null mode: all pass" tap_clean "$T/hammer.tap"

tsan=$B/tests/sim/tsan
if [ ! -x "$tsan/hammer" ] || [ ! -f "$tsan/libcuda.so.1" ]; then
	skip "no TSan build in $tsan (make $tsan/hammer $tsan/libcuda.so.1)"
	skip "no TSan build"
else
	# A smaller run: TSan slows everything down ~10x.  CUDASIM_MEM keeps the reserved
	# windows small, which TSan has to shadow.
	CUDASIM_MEM=64M TSAN_OPTIONS="halt_on_error=1 exitcode=66" LD_LIBRARY_PATH=$tsan \
		"$tsan/hammer" 4 96 > "$T/tsan.tap" 2> "$T/tsan.err"
	rc=$?
	is "$rc" 0 "hammer under ThreadSanitizer exits 0 (66 = data race)"
	[ "$rc" = 0 ] || diag "$(grep -A12 'WARNING: ThreadSanitizer' "$T/tsan.err" | head -40)"
	ok "hammer under ThreadSanitizer: all pass" tap_clean "$T/tsan.tap"
fi
done_testing
