#!/usr/bin/env bash
# Breadcrumbs that bound ranges of launches (docs/RECORDER.md, "Breadcrumbs"): with several
# launches between two breadcrumbs the diagnosis says which range may have run, names the
# faulting launch where other evidence points to it, and says when it cannot choose.  Real
# cores of miniengine (one thread, one stream) under the recorder on the simulated driver, with
# a breadcrumb every 8th launch (ranges of 8, whatever the timing) and with the default budget.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
recorder_preload
need_core_tests miniengine

# engine NAME ENV... -- ARGS...: run miniengine in $T/NAME under the recorder with ENV.
engine() {
	local dir=$T/$1 envs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	mkdir -p "$dir"
	( ( cd "$dir" && ulimit -c unlimited && exec env "${envs[@]}" CUDAINSPECT_QUIET=1 \
		LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" "$B/miniengine" --verbose "$@" ) \
		>"$dir/out" 2>"$dir/verbose" || true ) 2>/dev/null
	"$CI" --json "$(ls "$dir"/core* 2>/dev/null | head -1)" >"$dir/report.json" 2>"$dir/json.err"
}
q() { jq -r "$2" "$T/$1/report.json"; }
# range NAME: "A B F" from the reasoning's "Launches A-B of its stream ...; F had finished"
range() { q "$1" .diagnosis.reasoning | sed -nE 's/.*Launches ([0-9]+)-([0-9]+) of its stream.*; ([0-9]+) had finished.*/\1 \2 \3/p'; }

# 1. A bad pointer in the range: the only launch passing a pointer outside every live
#    allocation is named, with medium confidence (the breadcrumbs leave a range, not one).
engine every8-oob CUDAINSPECT_CRUMB_EVERY=8 -- --fault oob --threads 1 --streams 1
planted=$(sed -nE 's/.*plants oob: ([a-z_]+) launch #.*/\1/p' "$T/every8-oob/verbose" | head -1)
is "$(q every8-oob .diagnosis.faulting_launch.kernel)" "$planted" "range of 8, bad pointer: the planted kernel ($planted) is named"
is "$(q every8-oob .diagnosis.confidence)" medium "range of 8, bad pointer: confidence medium"
read -r a b f <<<"$(range every8-oob)"
sseq=$(q every8-oob .diagnosis.faulting_launch.stream_seq)
ok "range of 8, bad pointer: the why states the range ($a-$b, $f finished) and it holds the named launch ($sseq)" \
	test -n "$a" -a "${sseq:-0}" -ge "${a:-1}" -a "${sseq:-0}" -le "${b:-0}" -a "${f:-0}" -eq $((${a:-1} - 1))
ok "range of 8, bad pointer: at most 8 launches in it" test $((${b:-99} - ${a:-0} + 1)) -le 8
is "$(q every8-oob '.diagnosis.faulting_launch.state')" unknown "range of 8, bad pointer: its state is unknown, not in flight"

# 2. No evidence but the range: the 37th rmsnorm faults with every pointer valid.  The report
#    cannot choose: low confidence, says so, and the planted launch is inside the range it gives.
#    (--hold: the step is queued before it may run, so the error surfaces at its synchronization
#    and the breadcrumb after the range is always enqueued, whatever the timing.)
engine every8-plain CUDAINSPECT_CRUMB_EVERY=8 CUDASIM_FAULT=rmsnorm@37 -- --threads 1 --streams 1 --hold
is "$(q every8-plain .diagnosis.confidence)" low "range of 8, no other evidence: confidence low"
like "$(q every8-plain .diagnosis.reasoning)" "any of them may be the one" "range of 8, no other evidence: the report says it cannot choose"
read -r a b f <<<"$(range every8-plain)"
p37=$(q every8-plain '[.launches[] | select(.kernel == "rmsnorm")] | sort_by(.stream_seq) | .[36].stream_seq')
ok "range of 8, no other evidence: the 37th rmsnorm (launch $p37) lies in the stated range $a-$b" \
	test -n "$a" -a "${p37:-0}" -ge "${a:-1}" -a "${p37:-0}" -le "${b:-0}"
is "$(q every8-plain "[.launches[] | select(.stream_seq == $p37)] | .[0].state")" unknown \
	"range of 8, no other evidence: the planted launch's state is unknown"
is "$(q every8-plain "[.launches[] | select(.stream_seq > ${b:-0})] | map(.state) | unique | join(\",\")")" "not_started" \
	"range of 8, no other evidence: launches past the range never started"

# 3. The default budget: the same bad pointer is named, the range closed by the breadcrumb or
#    the step's synchronization.
engine budget-oob -- --fault oob --threads 1 --streams 1
is "$(q budget-oob .diagnosis.faulting_launch.kernel)" "$planted" "default budget, bad pointer: the planted kernel is named"
like "$(q budget-oob .diagnosis.confidence)" '^(high|medium)$' "default budget, bad pointer: confidence high or medium"
done_testing
