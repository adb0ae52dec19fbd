#!/usr/bin/env bash
# The stream, capture and fault tests again, under ThreadSanitizer: a TSan build of the simulator
# (build/tests/sim/tsan/libcuda.so.1) with TSan builds of the test programs.  Any data race report
# fails the run (exit code 66).  hammer.t does the same for many threads at once.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
tsan=$B/tests/sim/tsan
[ -f "$tsan/libcuda.so.1" ] || skip_all "no TSan build in $tsan"
export CUDASIM_MEM=64M TSAN_OPTIONS="halt_on_error=1 exitcode=66"
run_tsan() { # "PROGRAM [ARGS]" VAR=VALUE...
	local name=$1 argv; shift
	read -r -a argv <<< "$name"
	env "$@" LD_LIBRARY_PATH="$tsan" "$tsan/${argv[0]}" "${argv[@]:1}" > "$T/tsan.tap" 2> "$T/tsan.err"
	local rc=$?
	is "$rc" 0 "$name under ThreadSanitizer exits 0 (66 = data race)"
	[ "$rc" = 0 ] || diag "$(grep -A16 'WARNING: ThreadSanitizer' "$T/tsan.err" | head -40)"
	ok "$name under ThreadSanitizer: all pass" tap_clean "$T/tsan.tap"
}
run_tsan "streams" CUDASIM_KERNEL_US=10000
run_tsan "capture" CUDASIM_KERNEL_US=1000 CUDASIM_FAULT=step@7
run_tsan "fault fault" CUDASIM_KERNEL_US=1000 CUDASIM_FAULT=step@5
run_tsan "fault hang" CUDASIM_KERNEL_US=1000 CUDASIM_HANG=step@2
done_testing
