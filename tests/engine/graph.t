#!/usr/bin/env bash
# graphengine (testcases/engine/graphengine.c) on the simulated driver, without the recorder:
# it runs its steps as graph replays and exits 0; a planted fault aborts with the CUDA error line
# and a core at the planted step's synchronization; the simulator faults the launch the engine
# names (CUDASIM_FAULT, set by the engine, whatever the mode or node); bad arguments exit 2.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines graphengine
GE=$B/graphengine

for mode in capture explicit; do
	run_in "$T/ok-$mode" "$GE" --mode "$mode" --steps 7
	is "$rc" 0 "$mode: 7 steps exit 0"
	is "$(grep -c '^graphengine: step ' "$T/ok-$mode/out")" 7 "$mode: one line per step"
	is "$(sed -n 's/^graphengine: step 7 batch \([0-9]*\) replay \([0-9]*\)$/\1 \2/p' "$T/ok-$mode/out")" "1 4" \
		"$mode: step 7 is the 4th replay of the batch-1 graph (batch sizes alternate 1, 4)"
	like "$(cat "$T/ok-$mode/out")" 'graphengine: 7 steps done' "$mode: says it is done"
done
like "$(cat "$T/ok-capture/out")" 'graph of batch 4 has 6 nodes' "capture: the captured graph has the 6 operations (the fork and join are edges)"
like "$(cat "$T/ok-explicit/out")" 'graph of batch 4 has 6 nodes' "explicit: the built graph has its 6 nodes"

for node in first middle last; do
	run_in "$T/f-$node" env CUDASIM_VERBOSE=1 "$GE" --steps 6 --fault-step 3 --fault-node "$node"
	is "$rc" 134 "fault in the $node node: abort()"
	like "$(cat "$T/f-$node/err")" "graphengine.c:[0-9]+: CUDA error: CUDA_ERROR_ILLEGAL_ADDRESS" "fault in the $node node: the CUDA error line"
	ok "fault in the $node node: no step after the planted one" test "$(grep -c '^graphengine: step ' "$T/f-$node/out")" = 3
done
want() { case $1 in first) echo embed_gather ;; middle) echo paged_attention ;; last) echo sample_token ;; esac; }
for node in first middle last; do
	like "$(cat "$T/f-$node/err")" "kernel $(want "$node") \\(launch #3\\) faults" \
		"the simulator faults the 3rd launch of $(want "$node") (the planted step's)"
done
run_in "$T/f-upd" "$GE" --mode explicit --update exec-update --skip-mlp --steps 4 --fault-step 4
is "$rc" 134 "explicit, updated from a clone, MLP disabled: the freed cache faults"
run_in "$T/bad" "$GE" --fault-node nowhere
is "$rc" 2 "an unknown --fault-node exits 2"
run_in "$T/bad2" "$GE" --update exec-update
is "$rc" 2 "--update without --mode explicit exits 2"
like "$(cat "$T/bad2/err")" 'without --mode explicit' "... and says why"
run_in "$T/ok-child" "$GE" --mode explicit --child-graph --steps 4
is "$rc" 0 "--child-graph: four steps without a fault"
like "$(cat "$T/ok-child/out")" 'graph of batch 1 has 6 nodes' "--child-graph: the attention stage is one child-graph node of 6"
run_in "$T/f-child" env CUDASIM_VERBOSE=1 "$GE" --mode explicit --child-graph --steps 4 --fault-step 3
is "$rc" 134 "--child-graph: the cache freed before step 3 faults"
like "$(cat "$T/f-child/err")" 'kernel paged_attention \(launch #3\) faults' "--child-graph: the simulator faults the child's attention kernel in step 3"
run_in "$T/bad3" "$GE" --mode explicit --child-graph --update node
is "$rc" 2 "--child-graph with --update exits 2"
done_testing
