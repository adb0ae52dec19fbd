#!/usr/bin/env bash
# `cudainspect merge` (docs/CLI.md, "merge") on the records ncclengine leaves under the recorder
# on the simulated driver and NCCL, one directory per rank (--rank-dir).  The engine plants the
# fault on the last rank (ncclengine: --fault-rank defaults to RANKS - 1) at step 3 of 6, two
# all-reduces a step, so the expected rank and collective are the launcher's own numbers: a
# device fault leaves every other rank waiting in all-reduce 7, which the faulting rank never
# reaches; a desync (the rank skips all-reduce 5 of step 2) leaves the others in 12 while it
# exits after 11; an API error (a refused all-reduce 7) leaves the others in 7.  With 2, 4 and
# 8 ranks, from snapshots and (device fault) from cores; then one rank's input missing, damaged
# inputs, JSON documents of `cudainspect --json` mixed with cores, duplicates, another job's
# input, and, from documents altered with jq, a desync by count and the shutdown false
# positive (with the peer memory of tests/sim/ipc's real exporter and importer).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../recorder/rec-lib.sh"
need_recorder ncclengine sim/libnccl.so.2 tests/sim/ipc
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
export CUDASIM_KERNEL_US=100
CI=$B/cudainspect

# job NAME RANKS FAULT: the launcher under the recorder in $T/NAME, rank R in $T/NAME/rR.
job() {
	run_in "$T/$1" env CUDAINSPECT_SNAPSHOT=signal,error,hang,exit CUDAINSPECT_NCCL_TIMEOUT=0.4 \
		LD_PRELOAD="$REC" "$B/ncclengine" --ranks "$2" --steps 6 --fault "$3" --watchdog 2 \
		--rank-dir "$T/$1/r"
}
# mj OUT INPUT...: the merge document into OUT; sets $rc.
mj() {
	local out=$1
	shift
	rc=0
	"$CI" merge --json "$@" >"$out" 2>"$out.err" || rc=$?
}
# q FILE FILTER: jq -c on the merge document.
q() { jq -c "$2" "$1"; }
# upto N: the JSON array [0, ..., N].
upto() { seq -s, 0 "$1" | sed 's/^/[/; s/$/]/'; }

for n in 2 4 8; do
	last=$((n - 1))
	job dev$n $n device
	mj "$T/dev$n.json" "$T"/dev$n/r*/*.cisnap
	is "$rc" 0 "device $n ranks, snapshots: merge exits 0"
	is "$(q "$T/dev$n.json" '[.first_failure.rank, .ranks[-1].state]')" "[$last,\"faulted\"]" \
		"device $n ranks, snapshots: rank $last failed first, faulted"
	is "$(q "$T/dev$n.json" '[.waits[] | [.seq, .op, .waiting, .never_arrived]]')" \
		"[[7,\"all_reduce\",$(upto $((n - 2))),[$last]]]" \
		"device $n ranks, snapshots: ranks 0-$((n - 2)) wait in all-reduce 7, rank $last never arrived"
	like "$(q "$T/dev$n.json" '.ranks[-1].headline')" "CUDA_ERROR_ILLEGAL_ADDRESS in kernel tp_matvec" \
		"device $n ranks: the faulting rank's own diagnosis names the kernel"
	mj "$T/devcore$n.json" "$T"/dev$n/r*/core
	is "$(q "$T/devcore$n.json" '[.first_failure.rank, .ranks[-1].state, ([.inputs[].status] | unique)]')" \
		"[$last,\"faulted\",[\"used\"]]" "device $n ranks, cores: rank $last failed first, faulted, every core used"
	is "$(q "$T/devcore$n.json" '[.waits[] | [.seq, .waiting, .never_arrived]]')" \
		"[[7,$(upto $((n - 2))),[$last]]]" \
		"device $n ranks, cores: ranks 0-$((n - 2)) waited in all-reduce 7 (aborted or not), rank $last never arrived"

	job desync$n $n desync
	mj "$T/desync$n.json" "$T"/desync$n/r*/*.cisnap
	is "$(q "$T/desync$n.json" '[.first_failure.rank, .ranks[-1].state, .ranks[-1].reached]')" \
		"[$last,\"exited\",11]" "desync $n ranks: rank $last failed first: it exited after collective 11"
	is "$(q "$T/desync$n.json" '[.waits[] | [.seq, .waiting, .never_arrived]]')" \
		"[[12,$(upto $((n - 2))),[$last]]]" "desync $n ranks: the others wait in 12, rank $last never arrived"
	like "$("$CI" merge "$T"/desync$n/r*/*.cisnap)" "It left after collective #11 while others wait in #12: .*a desync" \
		"desync $n ranks: the text says it is a desync"
	# The waiting ranks' cores (written after their abort) and the skipping rank's exit snapshot.
	mj "$T/desynccore$n.json" "$T"/desync$n/r*/core "$T"/desync$n/r$last/*-exit.cisnap
	is "$(q "$T/desynccore$n.json" '[.first_failure.rank, [.waits[] | [.seq, .waiting, .never_arrived]]]')" \
		"[$last,[[12,$(upto $((n - 2))),[$last]]]]" "desync $n ranks, cores: the same answer"

	job api$n $n api
	mj "$T/api$n.json" "$T"/api$n/r*/*.cisnap
	is "$(q "$T/api$n.json" '[.first_failure.rank, .ranks[-1].state, .ranks[-1].reached, .ranks[-1].refused_seq]')" \
		"[$last,\"api_error\",6,7]" "api $n ranks: rank $last failed first: its collective 7 refused (it reached 6)"
	like "$(q "$T/api$n.json" '.ranks[-1].headline')" "ncclAllReduce returned ncclResult 4" \
		"api $n ranks: its diagnosis names the refused ncclAllReduce (ncclInvalidArgument)"
	# Its abort releases the others from 7 (the simulated NCCL's ncclCommAbort, as the real
	# one's, ends the collectives in flight), so a rank may already wait in 8 when its hang
	# snapshot is written: every wait is for rank $last.
	is "$(q "$T/api$n.json" '[([.waits[].waiting] | add | sort), ([.waits[].never_arrived] | unique), (.waits | map(.seq >= 7) | all)]')" \
		"[$(upto $((n - 2))),[[$last]],true]" "api $n ranks: the others wait (in 7 or later) for rank $last"
	mj "$T/apicore$n.json" "$T"/api$n/r*/core "$T"/api$n/r$last/*-exit.cisnap
	is "$(q "$T/apicore$n.json" '[.first_failure.rank, .ranks[-1].state, ([.waits[].waiting] | add | sort), ([.waits[].never_arrived] | unique)]')" \
		"[$last,\"api_error\",$(upto $((n - 2))),[[$last]]]" "api $n ranks, cores: the same answer"
done

# The faulting rank's own diagnosis is its single report's: the same crash signature.
is "$(q "$T/devcore4.json" '.ranks[3].fingerprint')" "$("$CI" --json "$T"/dev4/r3/core | jq -c .diagnosis.fingerprint.id)" \
	"the faulting rank's crash signature is the one cudainspect gives its core alone"

# The text report of the 4-rank device fault; 8 ranks within a screen, one line per rank.
"$CI" merge --width 100 "$T"/dev4/r*/*.cisnap >"$T/dev4.txt"
"$CI" merge --width 100 "$T"/dev8 >"$T/dev8.txt"
like "$(head -3 "$T/dev4.txt")" "First failure: rank 3 \(host [^,]*, pid [0-9]+\) faulted \(device\) after #6" \
	"text: the first failure, its rank and its last collective"
like "$(cat "$T/dev4.txt")" "ncclAllReduce #7: ranks 0, 1, 2 wait in it; never arrived: rank 3\." \
	"text: who waits for whom"
is "$(grep -c '^[0-3] .* hung in ncclAllReduce #7$' "$T/dev4.txt")" 3 "text: one line per waiting rank"
ok "text: 8 ranks fit a screen (under 25 lines)" test "$(wc -l <"$T/dev8.txt")" -lt 25
is "$(grep -c '^[0-7] ' "$T/dev8.txt")" 8 "text: 8 ranks, 8 rank lines"
like "$(cat "$T/dev4.txt")" "Its full report: cudainspect $T/dev4/r3/" "text: the command for the faulting rank's report"

# Rank 2's input missing: said, and the waiting ranks' wait names it.
mj "$T/miss.json" "$T"/dev4/r0 "$T"/dev4/r1 "$T"/dev4/r3
is "$rc" 0 "one rank missing: merge exits 0"
is "$(q "$T/miss.json" '[.missing_ranks, .ranks[2].state, .first_failure.rank, .waits[0].no_input]')" \
	'[[2],"missing",3,[2]]' "one rank missing: rank 2 named missing, rank 3 still first"
like "$("$CI" merge "$T"/dev4/r0 "$T"/dev4/r1 "$T"/dev4/r3)" "Missing: rank 2 \(no input holds it\)" \
	"one rank missing: the text says so"

# Damaged inputs: garbage, a truncated JSON document, a missing file; the merge goes on.
mkdir -p "$T/bad"
head -c 4096 /dev/urandom >"$T/bad/junk.cisnap"
"$CI" --json "$(ls "$T"/dev4/r1/*-hang.cisnap)" | head -c 500 >"$T/bad/cut.json"
mj "$T/bad.json" "$T"/dev4/r0 "$T"/dev4/r2 "$T"/dev4/r3 "$T/bad" "$T/nonexistent"
is "$rc" 0 "damaged inputs: merge exits 0"
is "$(q "$T/bad.json" '[.inputs[] | select(.status == "damaged") | .path | split("/")[-1]] | sort')" \
	'["cut.json","junk.cisnap","nonexistent"]' "damaged inputs: each named damaged"
like "$(q "$T/bad.json" '.inputs[] | select(.path | endswith("cut.json")) | .note')" "not JSON: .* line [0-9]+, column [0-9]+" \
	"damaged inputs: the cut JSON document's note says where the parser stopped"
is "$(q "$T/bad.json" '[.first_failure.rank, .missing_ranks]')" '[3,[1]]' \
	"damaged inputs: the good ones still merged (rank 1 missing, rank 3 first)"
mj "$T/allbad.json" "$T/bad/junk.cisnap" "$T/nonexistent"
is "$rc" 3 "only damaged inputs: exit 3"

# JSON documents of two ranks mixed with the cores of the others.
mkdir -p "$T/docs"
for r in 0 1; do "$CI" --json "$(ls "$T"/dev4/r$r/*-hang.cisnap)" >"$T/docs/rank$r.json"; done
is "$(jq -c '[.version, .job.communicators[0].rank, (.job.collectives | length > 0)]' "$T/docs/rank1.json")" \
	'[6,1,true]' "--json: schema 6 with the job part (rank, collectives)"
mj "$T/mixed.json" "$T/docs" "$T"/dev4/r2/core "$T"/dev4/r3/core
is "$(q "$T/mixed.json" '[.first_failure.rank, [.ranks[].input | split("/")[-1]]]')" \
	'[3,["rank0.json","rank1.json","core","core"]]' "JSON mixed with cores: every rank, rank 3 first"
is "$(q "$T/mixed.json" '[.ranks[0].state, .ranks[0].waits_in.seq]')" '["hung",7]' \
	"JSON mixed with cores: rank 0's wait read from its document"

# Duplicates (the same files twice; a core and the snapshots of one process) and another job.
mj "$T/dup.json" "$T"/dev4 "$T"/dev4/r1 "$T"/api2/r0
is "$(q "$T/dup.json" '[([.inputs[] | select(.status == "used")] | length), ([.inputs[] | select(.status == "other_job")] | length)]')" \
	'[4,1]' "duplicates and another job: 4 inputs used, the other job's process named"
is "$(q "$T/dup.json" '[.inputs[] | select(.status == "duplicate")] | length')" \
	"$(( $(ls "$T"/dev4/r*/* "$T"/dev4/r1/* "$T"/api2/r0/* | wc -l) - 5 ))" \
	"duplicates: every other input of a process named"

# Altered documents (jq): rank 1's all-reduce 5 with another count is a mismatch.
jq '(.job.collectives[] | select(.seq == 5) | .count) = 2048' "$T/docs/rank1.json" >"$T/mm1.json"
mj "$T/mm.json" "$T/docs/rank0.json" "$T/mm1.json" "$T"/dev4/r2/core "$T"/dev4/r3/core
is "$(q "$T/mm.json" '.mismatches | map([.seq, [.calls[] | [.rank, .count]]])')" '[[5,[[0,1024],[1,2048]]]]' \
	"desync by count: the mismatch at collective 5 between ranks 0 and 1"
like "$("$CI" merge "$T/docs/rank0.json" "$T/mm1.json" "$T"/dev4/r2/core "$T"/dev4/r3/core)" \
	"Mismatch at collective #5: rank 0 called ncclAllReduce \(count 1024, datatype 7\), rank 1 ncclAllReduce \(count 2048" \
	"desync by count: the text names both calls"

# The shutdown false positive.  Real peer memory first: tests/sim/ipc's exporter and importer
# under the recorder; their documents' peer_memory carry the same key for the IPC buffer.
mkdir -p "$T/exp" "$T/imp"
coproc EXP { cd "$T/exp" && CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" exec "$B/tests/sim/ipc" export; }
exp_pid=$EXP_PID
read -r _ ipc <&"${EXP[0]}"
read -r _ pid fd <&"${EXP[0]}"
read -r _ fabric <&"${EXP[0]}"
(cd "$T/imp" && CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/tests/sim/ipc" import "$ipc" "$pid" "$fd" "$fabric") >/dev/null 2>&1
exec {EXP[1]}>&-
wait "$exp_pid" 2>/dev/null
"$CI" --json "$(snap "$T/exp" exit)" | jq -c '.job.peer_memory | map(select(.kind == "ipc_export"))' >"$T/exp.peers"
"$CI" --json "$(snap "$T/imp" exit)" | jq -c '.job.peer_memory | map(select(.kind == "ipc_open")) | .[:1]' >"$T/imp.peers"
is "$(jq -r '.[0].key' "$T/exp.peers")" "$(jq -r '.[0].key' "$T/imp.peers")" \
	"peer memory: the importer's IPC open carries the exporter's key in its document"
# Planted on the job: rank 1 exported that buffer and left the communicator after collective 6,
# before rank 3's fault; rank 3 opened it and its diagnosis blames an address inside it.
"$CI" --json "$T"/dev4/r3/core >"$T/docs3.json"
fail=$(jq .job.failure_ns "$T/docs3.json")
inside=$(jq -r '.[0].address + 256' "$T/imp.peers")
jq --argjson gone $((fail - 1000000)) --slurpfile p "$T/exp.peers" '.job.collectives |= map(select(.seq <= 6) | .state = "finished")
	| .job.communicators[0].state = "destroyed" | .job.communicators[0].end_ns = $gone
	| .job.peer_memory = $p[0]' "$T/docs/rank1.json" >"$T/fp1.json"
jq --arg a "$(printf '0x%x' "$inside")" --slurpfile p "$T/imp.peers" \
	'.job.fault_address_hex = $a | .job.peer_memory = $p[0]' "$T/docs3.json" >"$T/fp3.json"
mj "$T/fp.json" "$T/docs/rank0.json" "$T/fp1.json" "$T"/dev4/r2/core "$T/fp3.json"
is "$(q "$T/fp.json" '[.ranks[3].faulted_on_memory_of, .first_failure.rank, .first_failure.decided_by]')" \
	'[1,1,"peer_exit"]' "shutdown false positive: rank 3 faulted on rank 1's buffer; rank 1's exit came first"
like "$("$CI" merge "$T/docs/rank0.json" "$T/fp1.json" "$T"/dev4/r2/core "$T/fp3.json")" \
	"Rank 3 faulted on rank 1's buffer after rank 1 exited" "shutdown false positive: said in words"
jq --arg a "$(printf '0x%x' $((inside + 1048576)))" '.job.fault_address_hex = $a' "$T/fp3.json" >"$T/fp3b.json"
mj "$T/fpno.json" "$T/docs/rank0.json" "$T/fp1.json" "$T"/dev4/r2/core "$T/fp3b.json"
is "$(q "$T/fpno.json" '.ranks[3].faulted_on_memory_of')" null \
	"shutdown false positive: not claimed for an address past the opened MiB"
jq '.job.communicators[0].end_ns = ($f + 1000000)' --argjson f "$fail" "$T/fp1.json" >"$T/fp1late.json"
mj "$T/fplate.json" "$T/docs/rank0.json" "$T/fp1late.json" "$T"/dev4/r2/core "$T/fp3.json"
is "$(q "$T/fplate.json" '.ranks[3].faulted_on_memory_of')" null \
	"shutdown false positive: not claimed when the owner left after the fault"

# Two ranks fault at the same collective number: time decides, and the report says which clock.
jq --argjson t $((fail - 5000000)) '.job.verdict = "device_fault" | .job.failure_ns = $t
	| .job.collectives |= map(select(.seq <= 6))' "$T/docs/rank1.json" >"$T/tie1.json"
mj "$T/tie.json" "$T/docs/rank0.json" "$T/tie1.json" "$T"/dev4/r2/core "$T/docs3.json"
# (jq reads times as doubles: 256 ns apart at this size, hence the bound on lead_ns.)
is "$(q "$T/tie.json" '[.first_failure.rank, .first_failure.decided_by, .first_failure.one_clock, .first_failure.runner_up, ((.first_failure.lead_ns - 5000000) | fabs < 1000)]')" \
	'[1,"time",true,3,true]' "equal collective numbers: the earlier failure (rank 1, 5 ms before rank 3), on one clock"
like "$("$CI" merge "$T/docs/rank0.json" "$T/tie1.json" "$T"/dev4/r2/core "$T/docs3.json")" \
	"decided by time \(the collective numbers are equal\): (4.99[0-9]|5.00[0-9]) ms before rank 3, one host and boot, one clock" \
	"equal numbers: said in words"
jq '.job.host = "other-host"' "$T/tie1.json" >"$T/tie1b.json"
mj "$T/tieb.json" "$T/docs/rank0.json" "$T/tie1b.json" "$T"/dev4/r2/core "$T/docs3.json"
is "$(q "$T/tieb.json" '[.first_failure.rank, .first_failure.one_clock]')" '[1,false]' \
	"equal numbers on two hosts: the clocks' uncertainty is said"

# 1,024 documents (rank 0's, its rank, pid and start changed by jq) merge without error; the
# time is bench/reader/merge.sh's, here only a generous bound.
mkdir -p "$T/k"
jq -c '. as $d | range(1024) | . as $i | $d | .job.communicators[0].rank = $i
	| .job.communicators[0].nranks = 1024 | .job.pid = 100000 + $i | .job.start_ns += $i' \
	"$T/docs/rank0.json" | split -l 1 -a 4 -d --additional-suffix=.json - "$T/k/rank"
start=$(date +%s)
mj "$T/k.json" "$T/k"
is "$rc $(q "$T/k.json" '[.nranks, ([.inputs[] | select(.status == "used")] | length), (.ranks | map(.state) | unique)]')" \
	'0 [1024,1024,["hung"]]' "1,024 JSON documents: every one a rank, each waiting"
ok "1,024 JSON documents: under 30 s" test $(($(date +%s) - start)) -lt 30
rm -rf "$T/k"

# Inputs of a job run without the recorder: its cores and their --json documents hold no record.
run_in "$T/norec" "$B/ncclengine" --ranks 2 --steps 6 --fault device --watchdog 1 --rank-dir "$T/norec/r"
"$CI" --json "$T/norec/r1/core" >"$T/norec/r1.json" 2>/dev/null
mj "$T/norec.json" "$T/norec/r0/core" "$T/norec/r1.json"
is "$rc" 3 "no records: exit 3"
like "$(q "$T/norec.json" '[.inputs[].note] | join(" | ")')" \
	"holds no cudainspect flight record.* \\| a cudainspect JSON document without a .*job.* part: written for an input without a flight record" \
	"no records: the core and the document each say why"

# Hostile strings from a document never reach the terminal raw.
jq '.job.host = "evil\u001b[31mhost" | .job.headline = "x\u0007\u001b]0;t\u0007"' "$T/docs/rank0.json" >"$T/evil.json"
"$CI" merge "$T/evil.json" "$T/docs/rank1.json" "$T"/dev4/r2/core "$T"/dev4/r3/core >"$T/evil.txt"
is "$(tr -d '\n' <"$T/evil.txt" | tr -d '[:print:]' | wc -c)" 0 "hostile strings: no control character in the text"

# Flags.
rc=0; "$CI" merge >/dev/null 2>&1 || rc=$?
is "$rc" 2 "no INPUT: exit 2"
rc=0; "$CI" merge --bogus "$T/docs" >/dev/null 2>&1 || rc=$?
is "$rc" 2 "an unknown flag: exit 2"
like "$("$CI" merge --help)" "Usage: cudainspect merge \[OPTIONS\] INPUT" "--help"
done_testing
