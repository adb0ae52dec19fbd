#!/usr/bin/env bash
# Faults inside graph replays, on real kernel cores: graphengine (testcases/engine/graphengine.c)
# under the recorder on the simulated driver replays a decode step captured per batch size over
# two streams joined by events (or built node by node, its attention node repointed before every
# replay), and a fault is planted in one node of one replay.  The report must name the kernel
# node, not the graph: its kernel, grid and block, its arguments with pointer attribution, where
# it was captured and where the graph was launched, the replay number, and how far the replay
# got (the in-graph breadcrumb).  Expectations come from the engine: the replay it printed for
# the planted step, the pointer it planted, the source lines of its calls.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
recorder_preload
need_core_tests graphengine
SRC=$TOP/testcases/engine/graphengine.c
# line PATTERN: the source line of graphengine.c that matches (the test's own reading of it)
line() { grep -n -- "$1" "$SRC" | head -1 | cut -d: -f1; }
ATTN_CAPTURED=$(line 'cuLaunchKernel(f_attn')
EMBED_CAPTURED=$(line 'cuLaunchKernel(f_embed')
SAMPLE_CAPTURED=$(line 'cuLaunchKernel(f_sample')
GRAPH_LAUNCH=$(line 'cuGraphLaunch(execs')
EXEC_UPDATE=$(line 'cuGraphExecKernelNodeSetParams(execs')

# engine NAME ARGS...: graphengine in $T/NAME (core dumps on), its summary in $T/NAME.txt.  A
# breadcrumb after every launch (each cuGraphLaunch too): under the default budget whether the
# faulting replay's launch got one depends on how long earlier writes took, and with it what the
# report can say about the replay.
engine() {
	local dir=$T/$1; shift
	mkdir -p "$dir"
	( ( cd "$dir" && ulimit -c unlimited && export ${RECORDER_ENV:-CUDAINSPECT_QUIET=1} &&
		CUDAINSPECT_QUIET=1 CUDAINSPECT_CRUMB_EVERY=1 CUDASIM_KERNEL_US=200 LD_PRELOAD="$PRELOAD" \
		LD_LIBRARY_PATH="$B/sim" exec "$B/graphengine" "$@" ) >"$dir/out" 2>"$dir/err" || true ) 2>/dev/null
	core=$(ls "$dir"/core* 2>/dev/null | head -1)
	"$CI" --width 200 "$core" >"$T/$name.txt" 2>&1
	"$CI" --json "$core" >"$dir/report.json" 2>/dev/null
}
q() { jq -r "$2" "$T/$1/report.json"; }
# klog_engine NAME SETTING FAULT ARGS...: engine NAME under recorder SETTING with CUDASIM_FAULT
# FAULT, which the simulator logs as the driver would; the summary read with that kernel log.
klog_engine() {
	local n=$1 setting=$2 fault=$3
	shift 3
	name=$n
	RECORDER_ENV="$setting CUDASIM_FAULT=$fault CUDASIM_KERNEL_LOG=$T/$n/kern.log" engine "$n" "$@"
	"$CI" --width 200 --kernel-log "$T/$n/kern.log" "$core" >"$T/$n.txt" 2>&1
}
# replay_of NAME STEP: the replay the engine printed for that step
replay_of() { sed -n "s/^graphengine: step $2 batch [0-9]* replay \([0-9]*\)$/\1/p" "$T/$1/out"; }
node() { grep -E "^ +node [0-9]+ +[A-Za-z ]+ +$2 " "$T/$1.txt" | head -1 | awk '{print $3, $4}' | sed 's/ [a-z_:]*$//; s/not$/not started/'; }

# ---- captured, the attention node of step 5 (replay 3 of batch 1) reads a stale page
name=mid; engine mid --steps 6 --fault-step 5
ok "mid: a core was written" test -n "$core"
like "$(cat "$T/mid.txt")" 'Faulting kernel: paged_attention +\[confidence: high\]' \
	"mid: the faulting kernel is the attention node, not the graph"
unlike "$(cat "$T/mid.txt")" '<graph 0x' "mid: no graph placeholder anywhere in the summary"
like "$(cat "$T/mid.txt")" 'grid \(4,1,1\)  block \(128,1,1\)  shared memory 64 B  via cuGraphLaunch' \
	"mid: the node's grid, block and shared memory"
like "$(cat "$T/mid.txt")" "captured at capture_step \(graphengine.c:$ATTN_CAPTURED\)" \
	"mid: where the attention kernel was captured (graphengine.c:$ATTN_CAPTURED)"
like "$(cat "$T/mid.txt")" "graph launched at main \(graphengine.c:$GRAPH_LAUNCH\)" \
	"mid: where the graph was launched (graphengine.c:$GRAPH_LAUNCH)"
like "$(cat "$T/mid.txt")" "node 7 of captured graph 0x[0-9a-f]+ \(10 nodes, 4 kernels\), replay $(replay_of mid 5) of exec" \
	"mid: node 7 of the captured graph, replay $(replay_of mid 5) as the engine counted"
is "$(node mid embed_gather) / $(node mid decode::matvec) / $(node mid paged_attention) / $(node mid sample_token)" \
	"finished / finished / RUNNING / not started" \
	"mid: the in-graph breadcrumb: embed and the MLP (other stream) finished, attention running, sampling not started"
like "$(cat "$T/mid.txt")" "compute-sanitizer --kernel-name kns=paged_attention CMD" "mid: the hint names the real kernel"
like "$(cat "$T/mid.txt")" "graphs +# the graph and its nodes" "mid: the hint points at the graphs view"
planted=$(sed -n 's/^graphengine: planted //p' "$T/mid/out")
is "$(q mid .diagnosis.faulting_launch.kernel) $(q mid '.diagnosis.faulting_launch.grid|join(",")')" "paged_attention 4,1,1" \
	"mid JSON: faulting_launch is the node"
is "$(q mid .diagnosis.faulting_launch.args[2].value_hex)" "$planted" "mid JSON: its k_cache argument is the engine's KV cache"
is "$(q mid '.diagnosis.faulting_launch.graph | [.replay, .faulting_node, .breadcrumb_value] | join(" ")')" \
	"$(replay_of mid 5) 7 5" "mid JSON: replay, faulting node, breadcrumb value"
is "$(q mid '[.diagnosis.faulting_launch.graph.nodes[] | select(.type == "kernel") | .state] | join(" ")')" \
	"finished finished in_flight not_started" "mid JSON: kernel node states"
is "$(q mid '.diagnosis.faulting_launch.graph.graph_launch_stack[0].line')" "$GRAPH_LAUNCH" "mid JSON: the graph launch's stack"
is "$(q mid '.diagnosis.faulting_launch.stack[0].line')" "$ATTN_CAPTURED" "mid JSON: the node's capture stack"
is "$(q mid '[.graphs[] | .origin + ":" + (.nodes|tostring) + ":" + (.execs|length|tostring)] | join(" ")')" \
	"captured:10:1 captured:10:1" "mid JSON: graphs, their nodes and execs"
is "$(q mid '[.graph_launches[].replay] | join(" ")')" "1 1 2 2 3" "mid JSON: every graph launch with its replay number"
g=$("$CI" --width 200 "$core" graphs 2>&1)
like "$g" 'Graph 0x[0-9a-f]+: captured on stream 0x[0-9a-f]+, 10 nodes, in-graph breadcrumbs' "mid graphs view: how the graph was made"
like "$g" '7 +kernel +RUNNING +paged_attention grid \(4,1,1\) block \(128,1,1\) \+crumb after [0-9, ]+ on stream' "mid graphs view: the running node"
# Captured edges: capture_step forks the matvec onto the second stream after the embedding
# (event record, wait) and joins it back before the attention: attention after both.
ord_of() { printf '%s\n' "$g" | sed -n "s/^ *\([0-9]*\) *kernel .* $1 grid.*/\1/p" | head -1; }
EMB=$(ord_of embed_gather); MV=$(ord_of 'decode::matvec')
like "$g" " $MV +kernel +finished +decode::matvec grid \\(4,1,1\\) block \\(128,1,1\\) \\+crumb after $EMB on stream" \
	"mid graphs view: the forked node depends on the embedding it was forked after"
like "$g" "7 +kernel +RUNNING +paged_attention .* after $EMB, $MV on stream" \
	"mid graphs view: the joined node depends on both streams' last kernels"
is "$(q mid '[.diagnosis.faulting_launch.graph.nodes[] | select(.type == "kernel") | .deps | map(tostring) | join(",")] | join("/")')" \
	"0/$EMB/$EMB,$MV/7" "mid JSON: captured kernel nodes' dependency ordinals"
like "$g" 'event_wait +finished +event 0x[0-9a-f]+ \(waited for: joins the capture\) on stream' "mid graphs view: the join of the second stream"
like "$g" 'exec 0x[0-9a-f]+: 3 launches, 0 node updates, the faulting launch is one of its replays' "mid graphs view: the exec"
k=$("$CI" --width 200 "$core" kernels 2>&1)
like "$k" "replay 2 of exec 0x[0-9a-f]+, 4 kernel nodes:
 +node 1 +finished +embed_gather" "kernels view: a finished replay with its nodes inline"
like "$k" 'node 7 +RUNNING +paged_attention .*<- faulted' "kernels view: the faulting node inline"

# ---- the first and the last node of a replay
name=first; engine first --steps 6 --fault-step 5 --fault-node first
like "$(cat "$T/first.txt")" 'Faulting kernel: embed_gather ' "first: the first kernel node"
is "$(node first embed_gather) / $(node first decode::matvec) / $(node first sample_token)" "RUNNING / not started / not started" \
	"first: nothing had finished (breadcrumb 0)"
like "$(cat "$T/first.txt")" "captured at capture_step \(graphengine.c:$EMBED_CAPTURED\)" "first: its capture site"
name=last; engine last --steps 6 --fault-step 4 --fault-node last
like "$(cat "$T/last.txt")" "Faulting kernel: sample_token .*
.*
.*
.*
.*replay $(replay_of last 4) of exec" "last: the last kernel node, replay $(replay_of last 4) of the batch-4 graph"
is "$(node last paged_attention) / $(node last sample_token)" "finished / RUNNING" "last: everything before it finished"
like "$(cat "$T/last.txt")" "captured at capture_step \(graphengine.c:$SAMPLE_CAPTURED\)" "last: its capture site"

# ---- without in-graph breadcrumbs the node is not known, and no hint pretends it is
name=nocrumb; RECORDER_ENV=CUDAINSPECT_GRAPH_CRUMBS=off engine nocrumb --steps 6 --fault-step 5
like "$(cat "$T/nocrumb.txt")" 'Faulting kernel: one of the 4 kernels of a graph' "crumbs off: the kernel is not guessed"
like "$(cat "$T/nocrumb.txt")" 'no in-graph breadcrumb: the states of its nodes are unknown' "crumbs off: states unknown, said"
like "$(cat "$T/nocrumb.txt")" 'compute-sanitizer CMD ' "crumbs off: compute-sanitizer without a kernel filter"
unlike "$(cat "$T/nocrumb.txt")" 'kns=' "crumbs off: no placeholder filter"
is "$(q nocrumb '.diagnosis.faulting_launch.graph.faulting_node')" null "crumbs off JSON: faulting_node null"

# ---- in-graph breadcrumbs after every 2nd kernel only (CUDAINSPECT_GRAPH_CRUMB_EVERY=2: matvec and
# sample_token carry one): the breadcrumb says matvec finished (and embed before it); attention
# and sampling are a window, either may have been running, and nothing else chooses
name=every2; RECORDER_ENV=CUDAINSPECT_GRAPH_CRUMB_EVERY=2 engine every2 --steps 6 --fault-step 5
like "$(cat "$T/every2.txt")" 'Faulting kernel: one of 2 unfinished kernels of a graph \(of its 4\)' \
	"every 2nd: the window's two kernels, neither guessed"
is "$(node every2 embed_gather) / $(node every2 decode::matvec) / $(node every2 paged_attention) / $(node every2 sample_token)" \
	"finished / finished / unknown / unknown" "every 2nd: embed and matvec finished, attention and sampling a window"
like "$(cat "$T/every2.txt")" 'in-graph breadcrumb 5: how far this replay got; it leaves 2 kernel nodes unfinished \(running, or between breadcrumbs: finished or not\)' \
	"every 2nd: the window is said"
like "$(tr -s ' \n' ' ' < "$T/every2.txt")" 'its in-graph breadcrumb reads 5 and leaves 2 of them unfinished .*so the kernel that faulted is not known' \
	"every 2nd: the reasoning says why no node is named"
is "$(q every2 '.diagnosis.faulting_launch.graph | [.faulting_node, .breadcrumb_value, .unfinished_kernel_nodes] | map(tostring) | join(" ")')" \
	"null 5 2" "every 2nd JSON: no faulting node, breadcrumb 5, 2 kernel nodes unfinished"
# ---- the same window, and the kernel log's fault page 64 bytes into attention's k_cache: the page
# chooses within the window
klog_engine every2k CUDAINSPECT_GRAPH_CRUMB_EVERY=2 paged_attention@5:arg=2+64 --steps 6 --fault-step 5
like "$(cat "$T/every2k.txt")" 'Faulting kernel: paged_attention +\[confidence: exact\]' \
	"every 2nd, kernel log: the attention node, exact"
like "$(tr -s ' \n' ' ' < "$T/every2k.txt")" 'of the 2 kernel nodes its in-graph breadcrumb \(5\) leaves unfinished, only paged_attention \(node 7\) passes a pointer into or next to #[0-9]+, where the kernel log.s fault page lies' \
	"every 2nd, kernel log: the page chose among the window's nodes"
like "$(cat "$T/every2k.txt")" 'node 7 +unknown +paged_attention .*<- faulted' "every 2nd, kernel log: the node marked, its state honest"

# ---- built explicitly; the exec's attention node repointed at a freed KV cache for step 3
name=built; engine built --mode explicit --steps 4 --fault-step 3
like "$(cat "$T/built.txt")" 'Faulting kernel: paged_attention ' "built: the node with the freed pointer"
like "$(cat "$T/built.txt")" "node 3 of built graph 0x[0-9a-f]+ \(6 nodes, 4 kernels\), replay $(replay_of built 3) of exec" \
	"built: node 3 of the built graph, replay $(replay_of built 3)"
like "$(cat "$T/built.txt")" "added at main \(graphengine.c:$EXEC_UPDATE\)" \
	"built: the site of the update that gave the node its arguments (graphengine.c:$EXEC_UPDATE)"
like "$(cat "$T/built.txt")" 'node 3 +unknown +paged_attention .*\(updated in this exec\)' "built: the update is shown"
like "$(cat "$T/built.txt")" "arg 2 \(\+16\): Address $(sed -n 's/^graphengine: planted //p' "$T/built/out") is inside allocation #[0-9]+ .*FREED" \
	"built: arg 2 is the freed KV cache"
g=$("$CI" --width 200 "$(ls "$T"/built/core* | head -1)" graphs 2>&1)
like "$g" 'Graph 0x[0-9a-f]+: built, 6 nodes' "built graphs view: built"
like "$g" 'update +paged_attention grid \(4,1,1\)' "built graphs view: the per-exec updates"
# ---- built, a node added and destroyed again before the instantiation (cuGraphDestroyNode)
name=destroyed; engine destroyed --mode explicit --steps 4 --fault-step 3 --destroy-node
like "$(cat "$T/destroyed/out")" 'graph of batch 1 has 6 nodes' "destroyed: cuGraphGetNodes counts 6 nodes (the engine's output)"
like "$(cat "$T/destroyed.txt")" 'Faulting kernel: paged_attention ' "destroyed: the node with the freed pointer"
like "$(cat "$T/destroyed.txt")" "node 3 of built graph 0x[0-9a-f]+ \(6 nodes, 4 kernels\), replay $(replay_of destroyed 3) of exec" \
	"destroyed: the replay has 6 nodes and 4 kernels, as cuGraphGetNodes said"
is "$(grep -cE '^ +node [0-9]+ .*decode::matvec' "$T/destroyed.txt")" 1 "destroyed: the destroyed MLP node is not expanded"
like "$(cat "$T/destroyed.txt")" 'node 5 +[a-z ]+ +sample_token' "destroyed: the nodes after it keep their ordinals"
is "$(q destroyed '[.diagnosis.faulting_launch.graph.nodes[] | select(.kernel // "" | test("matvec"))] | length') $(q destroyed '.diagnosis.faulting_launch.graph.nodes | length')" "1 6" \
	"destroyed JSON: one MLP node in the replay, six nodes"
g=$("$CI" --width 200 "$(ls "$T"/destroyed/core* | head -1)" graphs 2>&1)
like "$g" '4    kernel +decode::matvec .*\(destroyed\)' "destroyed graphs view: ordinal 4 marked destroyed"
like "$g" '5    kernel +sample_token grid \(1,1,1\) block \(256,1,1\) after 3 ' \
	"destroyed graphs view: sample_token runs after the attention node (the edge build_step gave it)"
is "$(q destroyed '[.diagnosis.faulting_launch.graph.nodes[] | .deps | map(tostring) | join(",")] | join("/")')" "/0/1/2/3/5" \
	"destroyed JSON: each node's dependency ordinals, as build_step chained them"
# ---- built, updated from a changed clone (cuGraphExecUpdate), the MLP node disabled
EXEC_UPDATE2=$(line 'cuGraphExecUpdate(execs')
name=upd; engine upd --mode explicit --steps 4 --fault-step 3 --update exec-update --skip-mlp
like "$(cat "$T/upd.txt")" 'Faulting kernel: paged_attention ' "exec-update: the node with the freed pointer"
like "$(cat "$T/upd.txt")" "added at main \(graphengine.c:$EXEC_UPDATE2\)" \
	"exec-update: the site of the cuGraphExecUpdate that gave the node its arguments (graphengine.c:$EXEC_UPDATE2)"
like "$(cat "$T/upd.txt")" '\(6 nodes, 3 kernels\)' "exec-update: the disabled MLP is not counted as a kernel"
like "$(cat "$T/upd.txt")" 'decode::matvec .*\(disabled in this exec: an empty node\)' "exec-update: the disabled node is said"
like "$("$CI" --width 200 "$(ls "$T"/upd/core* | head -1)" graphs 2>&1)" 'Graph 0x[0-9a-f]+: cloned, 6 nodes' \
	"exec-update: the graphs view lists the clones"
# ---- without in-graph breadcrumbs, the kernel log's fault page names the node (the Xid rule
# weighs the suspect graph launches' kernel nodes): the attention node's access 64 bytes into
# its k_cache argument, logged by the simulator as the driver would
klog_engine klog CUDAINSPECT_GRAPH_CRUMBS=off paged_attention@5:arg=2+64 --steps 6 --fault-step 5
like "$(cat "$T/klog.txt")" 'Faulting kernel: paged_attention +\[confidence: exact\]' \
	"kernel log: the attention node, exact (the only suspect whose pointers reach the fault page)"
like "$(cat "$T/klog.txt")" 'only paged_attention \(node 7\) passes a pointer into or next to #[0-9]+, where the kernel log.s fault page lies' \
	"kernel log: the reasoning names the node the page points to"
like "$(cat "$T/klog.txt")" 'evidence: Xid 31 at 0x' "kernel log: the Xid line is the evidence"

# ---- the same without breadcrumbs, but the access 2^41 bytes past k_cache (an index bug's offset,
# as the H200's Triton store was): the page lies in no allocation, and the node is the one with an
# argument the page fits (issue 19)
klog_engine rel CUDAINSPECT_GRAPH_CRUMBS=off paged_attention@5:arg=2+2199023255552 --steps 6 --fault-step 5
# The engine's small buffers lie within 64 KiB of each other, so 2^41 from one is 2^41 from all
# (give or take): every node fits, and the page cannot tell them apart. The attention node's
# arg 0 starts the page the store hit (the store was at its arg 2, 1 KiB further), so it fits
# most closely; the confidence says the page does not decide.
like "$(cat "$T/rel.txt")" 'Faulting kernel: paged_attention +\[confidence: low\]' \
	"relation: the attention node, low (several nodes fit)"
like "$(tr -s ' \n' ' ' < "$T/rel.txt")" 'and [2-4] of its 4 kernel nodes have an argument it fits \(their allocations lie close together\); paged_attention \(node 7\) fits it most closely: the page is arg 0 \+ 2,199,023,255,552 B \(2\^41\)' \
	"relation: the reasoning says several nodes fit and names the closest, with the relation"
"$CI" --json --kernel-log "$T/rel/kern.log" "$core" >"$T/rel.json" 2>/dev/null
is "$(jq -r '[.diagnosis.attributions[] | select(.arg == 2) | .fault_page.fit] | first' "$T/rel.json")" "power_of_two" \
	"relation JSON: arg 2's fault page fits by a power of two"
is "$(jq -r '.diagnosis.faulting_launch.graph.faulting_node_name // .diagnosis.faulting_launch.graph.faulting_node' "$T/rel.json")" "7" \
	"relation JSON: node 7"

# ---- built, the attention stage a child graph (cuGraphAddChildGraphNode) whose kernel reads the
# second KV cache, freed before step 5: the report expands the child-graph node into its nodes
CHILD_ADD=$(line 'cuGraphAddChildGraphNode(&n, g')
CHILD_KERNEL=$(( CHILD_ADD - 1 ))   # the add_kernel call into the layer graph, just before it
name=child; engine child --mode explicit --child-graph --steps 6 --fault-step 5
planted=$(sed -n 's/^graphengine: planted //p' "$T/child/out")
like "$(cat "$T/child.txt")" 'Faulting kernel: paged_attention ' "child graph: the kernel inside the child graph, not the graph"
like "$(cat "$T/child.txt")" "node 3\.0 of built graph 0x[0-9a-f]+ \(6 nodes \+ 1 in child graphs, 4 kernels\), replay $(replay_of child 5) of exec" \
	"child graph: node 3.0 (node 0 of child-graph node 3), replay $(replay_of child 5) as the engine counted"
like "$(cat "$T/child.txt")" "build_step \(graphengine.c:$CHILD_KERNEL\)" \
	"child graph: where the kernel was added to the child graph (graphengine.c:$CHILD_KERNEL)"
like "$(cat "$T/child.txt")" "arg 2 \(\+16\): Address $planted is inside allocation #[0-9]+ .*FREED" \
	"child graph: arg 2 is the KV cache the engine freed"
like "$(cat "$T/child.txt")" 'node 3\.0 +unknown +paged_attention .*<- faulted' "child graph: the child's kernel listed in place"
is "$(grep -E '^ +node [0-9.]+ +(unknown|finished|RUNNING|not started) ' "$T/child.txt" | awk '{print $2}' | tr '\n' ' ')" "1 2 3.0 4 " \
	"child graph: the kernel nodes in graph order, the child's after its child-graph node"
like "$(cat "$T/child.txt")" 'compute-sanitizer --kernel-name kns=paged_attention CMD' "child graph: the hint names the kernel"
is "$(q child '.diagnosis.faulting_launch.graph | [.faulting_node, .faulting_node_name, .graph_nodes, .child_graph_nodes, .kernel_nodes] | map(tostring) | join(" ")')" \
	"3 3.0 6 1 4" "child graph JSON: faulting node 3 (the child-graph node), named 3.0; 6 + 1 nodes, 4 kernels"
is "$(q child '[.diagnosis.faulting_launch.graph.nodes[] | .node + ":" + .type + ":" + (.child_of // "-")] | join(" ")')" \
	"0:memset:- 1:kernel:- 2:kernel:- 3:child_graph:- 3.0:kernel:3 4:kernel:- 5:memcpy:-" \
	"child graph JSON: the replay's nodes, the child's after its node"
is "$(q child .diagnosis.faulting_launch.args[2].value_hex)" "$planted" "child graph JSON: k_cache is the freed cache"
is "$(q child '.diagnosis.faulting_launch.stack[1].line')" "$CHILD_KERNEL" "child graph JSON: the node's stack"
g=$("$CI" --width 200 "$(ls "$T"/child/core* | head -1)" graphs 2>&1)
like "$g" "Graph 0x[0-9a-f]+: child, 1 nodes
 +created at build_step \(graphengine.c:$CHILD_ADD\)" "child graph graphs view: the embedded clone, made where the node was added"
like "$g" 'the graph of child-graph node 3 of built graph 0x' "child graph graphs view: which node embeds it"
like "$g" '3    child_graph +unknown +0x[0-9a-f]+ after 2' "child graph graphs view: the child-graph node in its graph"
k=$("$CI" --width 200 "$(ls "$T"/child/core* | head -1)" kernels 2>&1)
like "$k" "replay 2 of exec 0x[0-9a-f]+, 4 kernel nodes:
 +node 1 +finished +embed_gather .*
 +node 2 +finished .*
 +node 3\.0 +finished +paged_attention" "child graph kernels view: a finished replay, the child's kernel inline"

# The sparse decode (the summary's) diagnoses every one of these cores as the complete one does.
# ---- built, the attention stage in the then body of a conditional IF node (its value 1 at each
# launch), reading the second KV cache, freed before step 5: the report expands the conditional
# node into its body's nodes and names the body's kernel by the freed pointer it passes
COND_ADD=$(line 'np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL')
name=cond; engine cond --mode explicit --conditional --steps 6 --fault-step 5
planted=$(sed -n 's/^graphengine: planted //p' "$T/cond/out")
like "$(cat "$T/cond.txt")" 'Faulting kernel: paged_attention ' "conditional: the kernel inside the body, not the graph"
like "$(cat "$T/cond.txt")" "node 3\.0\.0 of built graph 0x[0-9a-f]+ \(6 nodes \+ 1 in conditional bodies, 4 kernels\), replay $(replay_of cond 5) of exec" \
	"conditional: node 3.0.0 (node 0 of body 0 of conditional node 3), replay $(replay_of cond 5) as the engine counted"
like "$(cat "$T/cond.txt")" 'node 0 of body 0 of conditional node 3, if the device chose it' "conditional: the name explained"
like "$(cat "$T/cond.txt")" "arg 2 \(\+16\): Address $planted is inside allocation #[0-9]+ .*FREED" \
	"conditional: arg 2 is the KV cache the engine freed"
like "$(cat "$T/cond.txt")" 'node 3\.0\.0 \(node 0 of body 0 of conditional node 3, if the device chose it\), passes a pointer outside' \
	"conditional: named by the bad-pointer rule"
like "$(cat "$T/cond.txt")" 'node 3\.0\.0 +unknown +paged_attention .*<- faulted' "conditional: the body's kernel listed in place, its state unknown"
is "$(q cond '[.diagnosis.faulting_launch.graph.nodes[] | .node + ":" + .type + ":" + (.child_of // "-")] | join(" ")')" \
	"0:memset:- 1:kernel:- 2:kernel:- 3:conditional:- 3.0.0:kernel:3 4:kernel:- 5:memcpy:-" \
	"conditional JSON: the replay's nodes, the body's after its conditional node"
g=$("$CI" --width 200 "$(ls "$T"/cond/core* | head -1)" graphs 2>&1)
like "$g" '3    conditional +unknown +if, 1 body from 0x[0-9a-f]+ after 2' "conditional graphs view: the conditional node"
like "$g" "Graph 0x[0-9a-f]+: conditional_body, 1 nodes
 +created at build_step \(graphengine.c:$(( COND_ADD + 6 ))\)" "conditional graphs view: the body, made where the node was added"

run_c_test "$B/tests/reader/sparse_test" $(for n in mid first last nocrumb built upd klog child; do ls "$T/$n"/core* | head -1; done)
done_testing
