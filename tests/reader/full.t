#!/usr/bin/env bash
# A record that lost entries, and a record cut short, on real crashes.
#
# bench/reader/bigcore under the real recorder with CUDAINSPECT_SIZE=1M makes 3,000 allocations
# (the table holds about a thousand) and then faults on a pointer 64 bytes past the end of the
# last one, which the table had no room for.  The report must say that the table was full
# (summary and JSON warnings), that the address may lie in an allocation that was not recorded,
# and must not give the faulting launch high confidence.  A miniengine snapshot cut to 1 MiB
# holds the record's header and tables but not its rings: the report must call the record
# incomplete instead of "no CUDA failure", and name no empty program.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
recorder_preload
need_core_tests miniengine bench/reader/bigcore

mkdir -p "$T/full"
( ( cd "$T/full" && ulimit -c unlimited && CUDASIM_FAULT=bench_fault CUDAINSPECT_QUIET=1 \
	CUDAINSPECT_SIZE=1M LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" \
	exec "$B/bench/reader/bigcore" --host-gib 0 --allocs 3000 --launches 200 --threads 1 ) \
	>/dev/null 2>&1 || true ) 2>/dev/null
core=$(ls "$T"/full/core* 2>/dev/null | head -1)
[ -n "$core" ] || skip_all "bigcore left no core"
"$CI" --json "$core" >"$T/full.json"
q() { jq -r "$1" "$T/full.json"; }
cap=$(q .record.sections.allocations.capacity)
dropped=$(q .record.sections.allocations.dropped)
live=$(q '.allocations | length')
ok "the table was full: $live live allocations recorded, $dropped not (capacity $cap)" \
	test "$dropped" -gt 0 -a $((live + dropped)) -eq 3000
is "$(q .record.truncated)" true "the record says it is truncated"
like "$(q '.warnings | join("\n")')" "allocation table was full: $dropped allocations were not recorded" \
	"JSON: a warning says how many allocations were not recorded"
is "$(q .diagnosis.allocations_not_recorded)" "$dropped" "JSON: diagnosis.allocations_not_recorded"
is "$(q .diagnosis.faulting_launch.kernel)" bench_fault "the faulting launch is bench_fault"
is "$(q '.diagnosis.attributions[0].relation')" unknown "its pointer is in no recorded allocation"
isnt "$(q .diagnosis.confidence)" high "... so the confidence is not high"
out=$("$CI" --width 100 "$core")
flat=$(printf '%s\n' "$out" | tr '\n' ' ' | tr -s ' ')
commas() { echo "$1" | sed -E ':a;s/([0-9])([0-9]{3})($|,)/\1,\2\3/;ta'; }
like "$flat" "the allocation table was full \($(commas "$dropped") allocations not recorded\)" \
	"summary: the attribution says the address may be in an unrecorded allocation"
like "$out" "Warnings" "summary: a Warnings section"
like "$flat" "allocation table was full: $dropped allocations were not recorded" "summary: ... with the lost allocations"
unlike "$out" "confidence: high" "summary: no high confidence"

# A snapshot of a 32 MiB record cut to 1 MiB: the header and the tables, none of the rings.
mkdir -p "$T/cut"
( ( cd "$T/cut" && ulimit -c 0 && CUDAINSPECT_QUIET=1 LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" \
	exec "$B/miniengine" --fault oob --threads 1 --streams 1 --quiet ) >/dev/null 2>&1 || true ) 2>/dev/null
snap=$(ls "$T"/cut/*-signal.cisnap 2>/dev/null | head -1)
if [ -n "$snap" ]; then
	head -c 1048576 "$snap" >"$T/cut/cut.cisnap"
	out=$("$CI" "$T/cut/cut.cisnap" 2>&1); rc=$?
	is "$rc" 0 "a record cut to 1 MiB is still read (exit 0)"
	like "$out" "^cudainspect: incomplete flight record of [a-z]" "... and the title says it is incomplete"
	unlike "$out" "no CUDA failure|in  \(pid" "... not 'no CUDA failure', and no empty program name"
	is "$("$CI" --json "$T/cut/cut.cisnap" | jq -r .diagnosis.verdict)" incomplete "JSON verdict: incomplete"
	# The whole snapshot still says what happened.
	like "$("$CI" "$snap")" "Faulting kernel: paged_attention" "the whole snapshot names the faulting kernel"
else
	skip "no snapshot"; skip "-"; skip "-"; skip "-"; skip "-"
fi

# Sparse decodes (the summary's) diagnose what complete ones do, here too.
run_c_test "$B/tests/reader/sparse_test" "$core"
done_testing
