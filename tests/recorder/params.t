#!/usr/bin/env bash
# The parameter bytes of launch entries (docs/FORMAT.md, "ci_launch"): zero between parameters
# and past param_len, also in ring slots that held a longer entry before, and in a failed
# launch's entry.  The recorder clears only what a kernel's parameters do not overwrite
# (recorder/launch.c, ci_params_copy); recdump --params checks every byte of every entry against
# the function's layout as the reader decodes it.  miniengine's kernels have five layouts, some
# with padding, and a 1 MiB record's launch ring wraps several times in 60 steps.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder miniengine
plan 8

run_in "$T/wrap" env CUDASIM_MODE=null CUDAINSPECT_SIZE=1M CUDAINSPECT_SNAPSHOT=exit \
	LD_PRELOAD="$REC" "$B/miniengine" --steps 60 --quiet
is "$rc" 0 "miniengine, 60 steps in a 1 MiB record: exits 0"
f=$(snap "$T/wrap" exit)
sec=$("$DUMP" "$f" | grep '^section launches ')
cap=$(field capacity "$sec") head=$(field head "$sec")
ok "the launch ring wrapped more than twice (capacity $cap, head $head)" test "$head" -gt $((2 * cap))
line=$("$DUMP" --params "$f" | tail -1)
like "$line" '^params ok=[1-9][0-9]* bad=0 ' "every entry's gaps and tail are zero ($line)"
ok "entries of several lengths, some with padding" test "$(field lengths "$line")" -ge 3 -a "$(field padded "$line")" -gt 0

# A launch the driver refuses records no parameters: its slot's older bytes must go too.
run_in "$T/failed" env CUDASIM_MODE=null CUDAINSPECT_SIZE=1M CUDAINSPECT_SNAPSHOT=signal \
	LD_PRELOAD="$REC" "$B/miniengine" --steps 60 --quiet --fault badlaunch
f=$(snap "$T/failed" signal)
ok "badlaunch: the engine aborts, a signal snapshot is written" test "$rc" -ne 0 -a -n "$f"
line=$("$DUMP" --params "$f" | tail -1)
like "$line" '^params ok=[1-9][0-9]* bad=0 .* failed=1 ' "the failed launch's entry holds no older bytes ($line)"

# Fewer parameter bytes kept (CUDAINSPECT_PARAM_BYTES=20): layouts are cut, the rest stays zero.
run_in "$T/cut" env CUDASIM_MODE=null CUDAINSPECT_SIZE=1M CUDAINSPECT_SNAPSHOT=exit \
	CUDAINSPECT_PARAM_BYTES=20 LD_PRELOAD="$REC" "$B/miniengine" --steps 60 --quiet
is "$rc" 0 "CUDAINSPECT_PARAM_BYTES=20: exits 0"
line=$("$DUMP" --params "$(snap "$T/cut" exit)" | tail -1)
like "$line" '^params ok=[1-9][0-9]* bad=0 ' "20 bytes kept: gaps and tail zero ($line)"
