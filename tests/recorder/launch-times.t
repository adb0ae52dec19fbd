#!/usr/bin/env bash
# Launch times (format 1.4, recorder.h "Launch times"): a cuLaunchKernel made right after its
# thread's previous launch shares that one's time (flag time_shared, 0x100) when no recorded call
# of any thread came in between, at most 7 in a row; a launch after another thread's allocation
# or its own free reads the clock again, so its time orders it after them.  timeprobe plants the
# sequence (launches numbered 0..25 by their parameter): 0..19 back to back, another thread's
# cuMemAlloc, 20..22, cuMemFree, 23..25.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/timeprobe
plan 9

run_in "$T/t" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/tests/recorder/timeprobe"
is "$rc" 0 "timeprobe exits 0"
S=$(snap "$T/t" exit)
"$DUMP" "$S" >"$T/d" 2>"$T/derr"
# number time shared: one line per launch, by the number it passed.
sed -n 's/^launch .* time=\([0-9]*\) time_shared=\([01]\) .* params=\([0-9a-f][0-9a-f]\).*/\3 \1 \2/p' "$T/d" |
	while read -r n t f; do echo "$((16#$n)) $t $f"; done | sort -n >"$T/launches"
is "$(wc -l <"$T/launches")" 26 "26 launches recorded"
is "$(awk '$3 { printf "%s ", $1 }' "$T/launches")" \
	"1 2 3 4 5 6 7 9 10 11 12 13 14 15 17 18 19 21 22 24 25 " \
	"shared: seven after each reading of the clock, none first after the alloc or the free"
is "$(awk 'NR > 1 && $3 && $2 != prev { print $1 } { prev = $2 }' "$T/launches")" "" \
	"each shared time is the previous launch's"
is "$(awk 'NR > 1 && $2 < prev { print $1 } { prev = $2 }' "$T/launches")" "" \
	"times never go back"
alloc_t=$(sed -n 's/^free id=1 .* time=\([0-9]*\) .*/\1/p' "$T/d")
free_t=$(sed -n 's/^free id=1 .* free_time=\([0-9]*\).*/\1/p' "$T/d")
ok "the allocation's and the free's times recorded ($alloc_t, $free_t)" test -n "$alloc_t" -a -n "$free_t"
t19=$(awk '$1 == 19 { print $2 }' "$T/launches")
t20=$(awk '$1 == 20 { print $2 }' "$T/launches")
t22=$(awk '$1 == 22 { print $2 }' "$T/launches")
t23=$(awk '$1 == 23 { print $2 }' "$T/launches")
ok "launch 19 before the other thread's allocation, launch 20 after it ($t19 < $alloc_t < $t20)" \
	test "${t19:-0}" -lt "${alloc_t:-0}" -a "${alloc_t:-0}" -lt "${t20:-0}"
ok "launch 22 before the free, launch 23 after it ($t22 < $free_t < $t23)" \
	test "${t22:-0}" -lt "${free_t:-0}" -a "${free_t:-0}" -lt "${t23:-0}"
like "$("$B/cudainspect" "$S" --json=full 2>/dev/null | tr ',' '\n' | grep -c '"time_shared"')" '^[1-9]' \
	"the reader names the flag (time_shared) in its JSON"
