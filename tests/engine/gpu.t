#!/usr/bin/env bash
# testcases/gpu/run.sh without a GPU: the dry run lists every step and touches nothing, the
# script passes bash -n and shellcheck, bad usage exits 2, a machine without a driver gets exit 3
# and a valid summary, and a rehearsal of some steps on the simulated driver produces the
# results the plan promises (crumb slot after a fault, a diagnosis per fault kind).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
RUN=$TOP/testcases/gpu/run.sh

ok "bash -n accepts run.sh" bash -n "$RUN"
if command -v shellcheck >/dev/null; then
	out=$(shellcheck -f gcc "$RUN" 2>&1)
	is "$out" "" "shellcheck finds nothing"
else
	skip "no shellcheck"
fi

out=$(cd "$T" && OUT="$T/never" "$RUN" --dry-run)
is "$?" 0 "--dry-run exits 0"
for s in env build driver apitour engines faults hang cost crumbs graphs torch procaddr summary; do
	like "$out" "^  $s +<= *[0-9]+s  " "--dry-run lists step $s with its time limit"
done
ok "--dry-run creates no result directory" test ! -e "$T/never"
deadline=$(sed -n 's/.*the run ends within \([0-9]*\)s.*/\1/p' <<<"$out")
like "$deadline" '^[0-9]+$' "--dry-run states the deadline"
ok "the deadline (plus the kill grace and the summary) stays well under 8 minutes" test "${deadline:-999}" -le 420

"$RUN" --only nope >/dev/null 2>&1
is "$?" 2 "unknown step: exit 2"
"$RUN" --bogus >/dev/null 2>&1
is "$?" 2 "unknown option: exit 2"

if command -v nvidia-smi >/dev/null 2>&1 || ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
	skip "a driver is installed here: the no-GPU path is not exercised"
	skip "a driver is installed here"
	skip "a driver is installed here"
else
	(cd "$T" && env -u LD_LIBRARY_PATH "$RUN" --out "$T/nogpu" >"$T/nogpu.log" 2>&1)
	is "$?" 3 "no GPU and no driver: exit 3"
	like "$(cat "$T/nogpu/status.txt")" "^driver +skipped" "status says the driver step found nothing"
	if command -v jq >/dev/null; then
		is "$(jq -r '.steps.driver.facts.driver' "$T/nogpu/summary.json")" missing "summary.json parses and says so"
	else
		ok "summary.json written" test -s "$T/nogpu/summary.json"
	fi
fi

# libprocaddr-log.so on the cudart-style bootstrap (door b and c), against the simulator.
if asan; then
	r="ASan's runtime calls dlsym before any preloaded constructor runs: no dlsym interposer under ASan"
	skip "$r"; skip "$r"; skip "$r"; skip "$r"
elif [ -e "$B/sim/libcuda.so.1" ] && [ -e "$B/gpu/libprocaddr-log.so" ] && [ -x "$B/miniengine" ]; then
	PROCADDR_LOG="$T/pa.log" LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$B/gpu/libprocaddr-log.so" \
		"$B/miniengine" --quiet --bootstrap --ptsz
	is "$?" 0 "miniengine --bootstrap --ptsz runs under libprocaddr-log.so"
	log=$(cat "$T/pa.log")
	like "$log" "dlsym caller=miniengine handle=libcuda.so.1 symbol=cuGetProcAddress_v2 -> exported=cuGetProcAddress_v2 in libcuda.so.1 \(hooked\)" \
		"logs the dlsym of cuGetProcAddress_v2 and hooks it"
	like "$log" "cuGetProcAddress_v2 caller=miniengine symbol=cuLaunchKernel version=13000 flags=2 -> result=0 status=0 exported=cuLaunchKernel_ptsz in libcuda.so.1" \
		"logs a lookup through the hooked pointer with its flags and the exported symbol it returned"
	n=$(grep -c '^	X(' "$TOP/testcases/engine/drv.h")
	is "$(grep -c ' cuGetProcAddress_v2 ' "$T/pa.log")" $((n + 3)) \
		"every cuGetProcAddress call is logged (the drv.h table, the version probe, itself, cuCtxSynchronize)"
else
	skip "simulator or libprocaddr-log.so not built"; skip "-"; skip "-"; skip "-"
fi

if asan; then
	skip_rest="the rehearsal preloads the recorder into instrumented engines"
	skip "$skip_rest"; skip "$skip_rest"; skip "$skip_rest"; skip "$skip_rest"
elif [ ! -e "$B/sim/libcuda.so.1" ] || [ ! -x "$B/gpu/crumbbench" ]; then
	skip "simulator or crumbbench not built"; skip "-"; skip "-"; skip "-"
else
	(cd "$T" && BUILD=${B#"$TOP"/} "$RUN" --simulator --only crumbs,faults --out "$T/sim" >"$T/sim.log" 2>&1)
	is "$?" 0 "rehearsal of crumbs and faults on the simulator: exit 0"
	facts=$(cat "$T/sim/crumbs/facts.txt" "$T/sim/faults/facts.txt" 2>/dev/null)
	like "$facts" "crumb_after_fault=sync=CUDA_ERROR_ILLEGAL_ADDRESS slot=100 expected=100 verdict=ok" \
		"the breadcrumb slot after the fault holds the last finished launch"
	like "$facts" "fault_badlaunch_without_recorder=exit 134: CUDA_ERROR_INVALID_VALUE" "badlaunch outcome recorded"
	if [ -e "$B/libcudainspect-rec.so" ] && [ -x "$B/cudainspect" ]; then
		like "$facts" "fault_oob_diagnosis=report: Faulting kernel: paged_attention" \
			"oob: the recorded core was inspected and names the faulting kernel"
	else
		skip "recorder or cudainspect not built"
	fi
fi
done_testing
