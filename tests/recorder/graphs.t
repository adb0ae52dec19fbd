#!/usr/bin/env bash
# Graphs in the record (recorder/graphs.c): graphengine (testcases/engine/graphengine.c) captures
# one decode step per batch size over two streams joined by events, or builds it node by node
# and repoints the attention node of each executable graph before every replay; the record must
# hold the graphs, every node in capture order with its kernel, shape, stream and parameter
# bytes, each exec with its graph, every per-exec update, and every cuGraphLaunch with its exec,
# stream and replay number, linked to its launch-ring entry.  Expectations come from what the
# engine does and prints (its planted pointer), not from the recorder.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder graphengine tests/recorder/graphprobe

# le64 0xHEX: the 8 bytes of a pointer as params= prints them (little-endian hex).
le64() { printf '%016x' "$1" | sed 's/../& /g' | tr ' ' '\n' | grep . | tac | tr -d '\n'; }
# engine NAME ARGS...: run graphengine under the recorder, dump its signal snapshot.
engine() {
	local name=$1
	shift
	run_in "$T/$name" env CUDASIM_KERNEL_US=200 LD_PRELOAD="$REC" "$B/graphengine" "$@"
	"$DUMP" "$(snap "$T/$name" signal)" >"$T/$name.dump"
	planted=$(sed -n 's/^graphengine: planted //p' "$T/$name/out")
}

# ---- captured: batch sizes 1 and 4, steps alternate, step 5 (replay 3 of batch 1) faults
engine cap --steps 6 --fault-step 5
like "$(cat "$T/cap/err")" 'CUDA_ERROR_ILLEGAL_ADDRESS' "captured: the fault surfaced"
is "$(grep -c '^graph ' "$T/cap.dump")" 2 "captured: two graphs, one per batch size"
is "$(grep '^graph ' "$T/cap.dump" | sed 's/.* origin=\([a-z_]*\) flags=\([0-9]*\) .* nodes=\([0-9]*\) dropped=\([0-9]*\).*ended=\([01]\).*/\1 \2 \3 \4 \5/' | sort -u)" \
	"captured 1 10 0 1" "captured: both captured, ended, 10 nodes each, none dropped"
is "$(awk '/^node .* graph=0 /{print $6}' "$T/cap.dump" | tr '\n' ' ')" \
	"type=memset type=kernel type=event_record type=event_wait type=kernel type=event_record type=event_wait type=kernel type=kernel type=memcpy " \
	"captured: the nodes in capture order, with the fork and the join"
is "$(awk '/^node .* graph=0 .*type=kernel/{print $7}' "$T/cap.dump" | tr '\n' ' ')" \
	"fn=embed_gather fn=_ZN6decode6matvecEPKfS1_PfiiiS1_ fn=paged_attention fn=sample_token " \
	"captured: the four kernels"
mv=$(grep '^node .* graph=0 .*fn=_ZN6decode6matvec' "$T/cap.dump")
at=$(grep '^node .* graph=0 .*fn=paged_attention' "$T/cap.dump")
ok "captured: the MLP was captured on the second stream, attention on the first" \
	test "$(field stream "$mv")" != "$(field stream "$at")"
is "$(field grid "$at") $(field block "$at") $(field shm "$at")" "4,1,1 128,1,1 64" \
	"captured: attention's grid, block and shared memory (batch 1: 16 tokens x 4 bytes)"
like "$(field params "$at")" "^.{32}$(le64 "$planted")" "captured: attention's k_cache argument is the engine's KV cache"
at4=$(grep '^node .* graph=1 .*fn=paged_attention' "$T/cap.dump")
is "$(field shm "$at4")" 256 "captured: batch 4's attention has its own shape (64 tokens)"
like "$(field stack "$at")" 'graphengine\+' "captured: each node has its capture stack"
ok "captured: every captured node has a CUgraphNode, the fork and join none" \
	test "$(grep '^node ' "$T/cap.dump" | grep -v 'type=event' | grep -c 'handle=0x0 ')" = 0 -a \
	"$(grep '^node .*type=event' "$T/cap.dump" | grep -vc 'handle=0x0 ')" = 0
is "$(grep '^exec ' "$T/cap.dump" | sed 's/.* graph=\([0-9]\) nodes=\([0-9]*\) .*launches=\([0-9]*\) .*/\1 \2 \3/' | tr '\n' ' ')" \
	"0 10 3 1 10 2 " "captured: an exec per graph with all its nodes; 3 and 2 launches"
is "$(awk '/^glaunch /{print $4, $6}' "$T/cap.dump" | tr '\n' ' ')" \
	"exec=0 replay=1 exec=1 replay=1 exec=0 replay=2 exec=1 replay=2 exec=0 replay=3 " \
	"captured: every cuGraphLaunch with its exec and replay number"
last=$(grep '^glaunch ' "$T/cap.dump" | tail -1)
like "$(grep "^launch seq=$(field launch_seq "$last") " "$T/cap.dump")" "api=graph .* sseq=$(field sseq "$last") .*aux=$(field exec_handle "$last") " \
	"captured: the graph launch names its launch-ring entry (same stream number and exec)"
is "$(grep -c '^launch .*flags=0x4 ' "$T/cap.dump")" 8 "captured: the 8 captured kernel launches are in the launch ring too, flagged captured"

# In-graph breadcrumbs: a memory write after each captured kernel of its ordinal + 1 (matvec is
# ordinal 4, sample_token 8), reset by the graph's first node; the faulting replay of batch 1 got past
# matvec, batch 4's last replay finished.
g0=$(grep '^graph slot=0 ' "$T/cap.dump") g1=$(grep '^graph slot=1 ' "$T/cap.dump")
is "$(field crumb "$g0") $(field crumb "$g1")" "5 9" \
	"in-graph breadcrumbs: the faulting replay finished matvec (ordinal 4), the other graph all (8)"
is "$(grep '^node .*type=kernel' "$T/cap.dump" | grep -v 'exec=[0-9]' | grep -c 'flags=0x100 ')" 8 \
	"in-graph breadcrumbs: every captured kernel node is followed by one"
like "$(cat "$T/cap/out")" 'graph of batch 1 has 11 nodes' \
	"in-graph breadcrumbs: the application's cuGraphGetNodes sees the 6 nodes, 4 memory writes and the reset"
# CUDAINSPECT_GRAPH_CRUMB_EVERY=2: a write after the 2nd and 4th captured kernel only (matvec,
# ordinal 4, and sample_token, 8), so 2 writes and the reset; the faulting replay got past matvec.
run_in "$T/every2" env CUDASIM_KERNEL_US=200 CUDAINSPECT_GRAPH_CRUMB_EVERY=2 LD_PRELOAD="$REC" "$B/graphengine" --steps 6 --fault-step 5
"$DUMP" "$(snap "$T/every2" signal)" >"$T/every2.dump"
like "$(cat "$T/every2/out")" 'graph of batch 1 has 9 nodes' \
	"CUDAINSPECT_GRAPH_CRUMB_EVERY=2: cuGraphGetNodes sees the 6 nodes, 2 memory writes and the reset"
is "$(grep '^node .* graph=0 .*type=kernel' "$T/every2.dump" | sed 's/.* fn=\([^ ]*\) .* flags=\([^ ]*\) .*/\1 \2/' | tr '\n' ' ')" \
	"embed_gather 0x0 _ZN6decode6matvecEPKfS1_PfiiiS1_ 0x100 paged_attention 0x0 sample_token 0x100 " \
	"CUDAINSPECT_GRAPH_CRUMB_EVERY=2: the 2nd and the 4th kernel are marked"
is "$(grep '^graph ' "$T/every2.dump" | sed 's/.* crumb=\([^ ]*\) crumb_kernels=\([0-9]*\).*/\1 \2/' | tr '\n' ' ')" "5 4 9 4 " \
	"CUDAINSPECT_GRAPH_CRUMB_EVERY=2: breadcrumbs 5 (past matvec) and 9 (all), 4 kernels counted per graph"
run_in "$T/badevery" env CUDAINSPECT_GRAPH_CRUMB_EVERY=0 LD_PRELOAD="$REC" "$B/graphengine" --steps 2
like "$(cat "$T/badevery/err")" "CUDAINSPECT_GRAPH_CRUMB_EVERY='0' is not a kernel count from 1" \
	"CUDAINSPECT_GRAPH_CRUMB_EVERY=0: a configuration error, said"
run_in "$T/nocrumbs" env CUDASIM_KERNEL_US=200 CUDAINSPECT_GRAPH_CRUMBS=off LD_PRELOAD="$REC" "$B/graphengine" --steps 6 --fault-step 5
"$DUMP" "$(snap "$T/nocrumbs" signal)" >"$T/nocrumbs.dump"
like "$(cat "$T/nocrumbs/out")" 'graph of batch 1 has 6 nodes' "CUDAINSPECT_GRAPH_CRUMBS=off: the graph is the application's"
is "$(grep '^graph ' "$T/nocrumbs.dump" | sed 's/.*crumb_slot=\([^ ]*\) crumb=\([^ ]*\).*/\1 \2/' | sort -u)" "- -" \
	"CUDAINSPECT_GRAPH_CRUMBS=off: no breadcrumb slot"
is "$(grep -c '^node .*flags=0x100 ' "$T/nocrumbs.dump")" 0 "CUDAINSPECT_GRAPH_CRUMBS=off: no node marked"

# ---- built: the attention node repointed before every replay; step 3's cache was freed
engine built --mode explicit --steps 4 --fault-step 3
like "$(cat "$T/built/err")" 'CUDA_ERROR_ILLEGAL_ADDRESS' "built: the fault surfaced"
is "$(grep '^graph ' "$T/built.dump" | sed 's/.* origin=\([a-z]*\) .* nodes=\([0-9]*\) .*/\1 \2/' | sort -u)" "built 6" \
	"built: two built graphs of 6 nodes"
is "$(awk '/^node .* graph=0 exec=- /{print $6}' "$T/built.dump" | tr '\n' ' ')" \
	"type=memset type=kernel type=kernel type=kernel type=kernel type=memcpy " "built: the nodes in the order added"
ups=$(grep '^node .* exec=[0-9]' "$T/built.dump")
is "$(printf '%s\n' "$ups" | wc -l)" 3 "built: one update per replay"
is "$(printf '%s\n' "$ups" | awk '{print $4, $5, $6, $7}' | sort -u)" "exec=0 ordinal=3 type=kernel fn=paged_attention
exec=1 ordinal=3 type=kernel fn=paged_attention" "built: each update is the attention node (ordinal 3) of its exec"
like "$(printf '%s\n' "$ups" | tail -1)" "flags=0x200 .*params=.{32}$(le64 "$planted")" \
	"built: the last update points attention at the freed cache (flagged as an update)"
is "$(grep '^graph ' "$T/built.dump" | sed 's/.*crumb_slot=\([^ ]*\) .*/\1/' | sort -u)" "-" \
	"built: no in-graph breadcrumbs (they would be nodes the application did not add)"
is "$(grep '^exec ' "$T/built.dump" | sed 's/.* launches=\([0-9]*\) updates=\([0-9]*\).*/\1 \2/' | tr '\n' ' ')" "2 2 1 1 " \
	"built: launches and updates counted per exec"
# ---- built, updated the TensorRT-LLM way (a clone changed, the exec updated from it), MLP off
engine upd --mode explicit --steps 4 --fault-step 3 --update exec-update --skip-mlp
like "$(cat "$T/upd/err")" 'CUDA_ERROR_ILLEGAL_ADDRESS' "exec-update: the fault surfaced"
is "$(grep '^graph ' "$T/upd.dump" | sed 's/.* origin=\([a-z]*\) .* nodes=\([0-9]*\) .*/\1 \2/' | tr '\n' ' ')" \
	"built 6 cloned 6 built 6 cloned 6 " "exec-update: two graphs, each with its clone, all nodes copied"
is "$(grep -v 'flags=0x2' "$T/upd.dump" | awk '/^node .* graph=1 exec=- /{print $6}' | tr '\n' ' ')" \
	"type=memset type=kernel type=kernel type=kernel type=kernel type=memcpy " "exec-update: the clone's nodes, in order"
ok "exec-update: each cloned node has the CUgraphNode cuGraphNodeFindInClone gives" \
	test "$(grep '^node .* graph=1 exec=- ' "$T/upd.dump" | grep -c 'handle=0x0 ')" = 0
is "$(grep '^node .* graph=1 exec=- .*fn=paged_attention' "$T/upd.dump" | wc -l)" 3 \
	"exec-update: the clone's attention node: the copy and a version per cuGraphKernelNodeSetParams of its exec's replays"
dis=$(grep '^node .* graph=0 exec=0 .*fn=_ZN6decode6matvec' "$T/upd.dump" | head -1)
like "$dis" 'flags=0x600 ' "exec-update: cuGraphNodeSetEnabled(0) recorded as a disabled version of the MLP node"
is "$(grep '^node .* graph=0 exec=0 ' "$T/upd.dump" | wc -l)" 13 \
	"exec-update: exec 0 got the disable and, per replay (2), a version of each of its 6 nodes"
is "$(grep '^node .* graph=0 exec=0 .*fn=_ZN6decode6matvec' "$T/upd.dump" | grep -vc 'flags=0x600 ')" 0 \
	"exec-update: cuGraphExecUpdate keeps the MLP node disabled"
like "$(grep '^node .* graph=0 exec=0 .*fn=paged_attention' "$T/upd.dump" | tail -1)" "params=.{32}$(le64 "$planted")" \
	"exec-update: the exec's last attention version points at the freed cache"

# ---- capture modes and construction paths graphengine does not use (tests/recorder/graphprobe.c)
run_in "$T/probe" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/tests/recorder/graphprobe"
is "$rc" 0 "probe: runs"
"$DUMP" "$(snap "$T/probe" exit)" >"$T/probe.dump"
hostfn=$(sed -n 's/^graphprobe: hostfn //p' "$T/probe/out")
read -r p q < <(sed -n 's/^graphprobe: p \(0x[0-9a-f]*\) q \(0x[0-9a-f]*\)$/\1 \2/p' "$T/probe/out")
g0=$(grep '^graph slot=0 ' "$T/probe.dump")
is "$(field origin "$g0") $(field mode "$g0") $(field nodes "$g0") $(field flags "$g0")" "captured 1 4 1" \
	"probe: a thread-local capture (mode 1) of 4 nodes, ended"
is "$(awk '/^node .* graph=0 /{print $6}' "$T/probe.dump" | tr '\n' ' ')" "type=kernel type=host type=memset type=memcpy " \
	"probe: cuLaunchKernelEx, cuLaunchHostFunc, a memset and a copy became nodes in order"
ok "probe: says it emptied the capture's dependencies before the memset" \
	grep -q '^graphprobe: capture dependencies set to none before the memset$' "$T/probe/out"
is "$(awk '/^node .* graph=0 /{print $6}' "$T/probe.dump" | tr '\n' ' ') $(grep '^node .* graph=0 ' "$T/probe.dump" | sed 's/.* deps=\([^ ]*\) .*/\1/' | tr '\n' ' ')" \
	"type=kernel type=host type=memset type=memcpy  0: 1:0 0: 1:2 " \
	"probe: captured nodes' edges follow the capture (the host node after the kernel despite its breadcrumb write, none for the memset after cuStreamUpdateCaptureDependencies SET none)"
like "$(grep '^node .* graph=0 .*type=kernel' "$T/probe.dump")" "fn=probe_k .* grid=2,3,1 block=32,1,1 .*params=$(le64 "$p")07000000" \
	"probe: the cuLaunchKernelEx node's grid, block and parameters"
# An exec launched (the thread's last exec), destroyed, and a new one (in the simulator at the
# same address, as a driver may reuse a handle) launched: that launch names the new exec's own
# entry (another slot, one launch), replay 1.
read -r xa xb < <(sed -n 's/^graphprobe: execs \(0x[0-9a-f]*\) then \(0x[0-9a-f]*\)$/\1 \2/p' "$T/probe/out")
la=$(grep '^glaunch ' "$T/probe.dump" | tail -2 | head -1) lb=$(grep '^glaunch ' "$T/probe.dump" | tail -1)
sa=$(field exec "$la") sb=$(field exec "$lb")
is "$(field exec_handle "$la") $(field replay "$la") $(field exec_handle "$lb") $(field replay "$lb")" \
	"$xa 1 $xb 1" "probe: the two execs' launches, replay 1 each"
ok "probe: a new exec at a destroyed one's handle: its launch names its own entry" \
	test -n "$sa" -a -n "$sb" -a "$sa" != "$sb" -a \
	"$(grep -c "^exec slot=$sb handle=$xb .* launches=1 " "$T/probe.dump")" = 1 -a \
	"$(grep -c "^exec slot=$sa handle=$xa .* launches=1 " "$T/probe.dump")" = 1
like "$(grep '^node .* graph=0 .*type=host' "$T/probe.dump")" "func=$hostfn " "probe: the host node's function"
like "$(grep '^node .* graph=0 .*type=memset' "$T/probe.dump")" "a=$p b=0x5a bytes=64 " "probe: the memset's destination, value and size"
like "$(grep '^node .* graph=0 .*type=memcpy' "$T/probe.dump")" "a=$q b=$p bytes=64 " "probe: the copy's destination, source and size"
like "$(grep '^exec slot=0 ' "$T/probe.dump")" ' flags=0x1 launches=1 ' "probe: the instantiation flags (AUTO_FREE_ON_LAUNCH)"
g1=$(grep '^graph slot=1 ' "$T/probe.dump")
like "$(cat "$T/probe/out")" 'invalidated CUDA_ERROR_STREAM_CAPTURE_INVALIDATED' "probe: the relaxed capture was invalidated"
is "$(field mode "$g1") $(field flags "$g1") $(field nodes "$g1")" "2 2 1" \
	"probe: the relaxed capture (mode 2) is flagged invalidated, with the node captured before"
g2=$(grep '^graph slot=2 ' "$T/probe.dump")
is "$(field origin "$g2") $(field nodes "$g2")" "built 2" "probe: the cuGraphAddNode graph"
like "$(grep '^node .* graph=2 .*ordinal=0 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=5,1,1 block=64,1,1 ' \
	"probe: cuGraphAddNode's kernel node from the parameter union"
like "$(grep '^node .* graph=2 .*ordinal=1 ' "$T/probe.dump")" "type=memset .* a=$q b=0x11 bytes=64 " \
	"probe: cuGraphAddNode's memset node (16 elements of 4 bytes)"

like "$(cat "$T/probe/out")" 'after the exec.s memset update q holds 0x22$' \
	"probe: the exec's memset update took effect in the replay, the graph's did not"
like "$(grep '^node .* graph=2 exec=1 ordinal=1 ' "$T/probe.dump")" "type=memset .* a=$q b=0x22 bytes=32 flags=0x200 " \
	"probe: cuGraphExecMemsetNodeSetParams recorded as the exec's version"
like "$(grep '^node .* graph=2 exec=- ordinal=1 ' "$T/probe.dump" | tail -1)" "type=memset .* a=$q b=0x33 bytes=32 flags=0x200 " \
	"probe: cuGraphMemsetNodeSetParams recorded as the graph's new version"
g3=$(grep '^graph slot=3 ' "$T/probe.dump")
like "$(cat "$T/probe/out")" 'captured into the same graph: yes' "probe: cuStreamBeginCaptureToGraph captures into the caller's graph"
is "$(field origin "$g3") $(field nodes "$g3") $(field flags "$g3")" "captured_into 2 1" \
	"probe: the built graph became captured_into, its empty node and the captured kernel"
like "$(grep '^node .* graph=3 .*ordinal=1 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=4,1,1 .*flags=0x100 ' \
	"probe: the kernel captured into it, with its in-graph breadcrumb"
is "$(field crumb "$g3")" 2 "probe: its replay finished the kernel (ordinal 1)"
like "$(cat "$T/probe/out")" 'after cuGraphDestroyNode the graph has 2 node\(s\) and q holds 0x44$' \
	"probe: the destroyed memset node (0x55) is gone from the graph and from its replay"
like "$(grep '^node .* graph=4 exec=- ordinal=1 ' "$T/probe.dump" | tail -1)" "type=memset .* a=$q b=0x55 bytes=16 flags=0xa00 " \
	"probe: cuGraphDestroyNode recorded as a version of the node flagged destroyed (0x800)"
like "$("$B/cudainspect" "$(snap "$T/probe" exit)" graphs 2>&1)" "1    memset +$q = 0x55, 16 bytes after 0 \\(destroyed\\)" \
	"probe: the graphs view marks the node destroyed"
is "$(grep '^node .* graph=4 exec=- ordinal=1 ' "$T/probe.dump" | head -1 | sed 's/.* deps=\([^ ]*\) .*/\1/')" "1:0" \
	"probe: a node added after another records that ordinal as its dependency"
is "$(grep '^node .* graph=4 exec=- ordinal=2 ' "$T/probe.dump" | sed 's/.* deps=\([^ ]*\) .*/\1/' | tr '\n' ' ')" "0: 1:0 2:0,1 1:1 0: " \
	"probe: cuGraphAddDependencies (two edges), cuGraphRemoveDependencies and cuGraphDestroyNode each give the node a version with its edges"

read -r cg emb < <(sed -n 's/^graphprobe: child graph \(0x[0-9a-f]*\) embedded as \(0x[0-9a-f]*\)$/\1 \2/p' "$T/probe/out")
like "$(grep '^node .* graph=6 .*ordinal=1 ' "$T/probe.dump")" "type=child_graph .* a=$emb .* deps=1:0 " \
	"probe: the child-graph node (after the empty node) names the embedded graph cuGraphChildGraphNodeGetGraph gave"
g7=$(grep "^graph slot=7 handle=$emb " "$T/probe.dump")
is "$(field origin "$g7") $(field nodes "$g7")" "child 1" "probe: the embedded graph is recorded, origin child, with the child's node"
like "$(grep '^node .* graph=7 .*ordinal=0 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=6,1,1 block=32,1,1 ' \
	"probe: the embedded graph's kernel node is the child's (grid 6)"
like "$(grep "^graph slot=5 " "$T/probe.dump")" "handle=$cg origin=built .* nodes=1 " "probe: the child graph itself, as built"

read -r ev1 ev2 ev3 < <(sed -n 's/^graphprobe: events \(0x[0-9a-f]*\) \(0x[0-9a-f]*\) \(0x[0-9a-f]*\)$/\1 \2 \3/p' "$T/probe/out")
is "$(grep '^node .* graph=8 ' "$T/probe.dump" | awk '{print $4, $5, $6}' | tr '\n' ' ')" \
	"exec=- ordinal=0 type=event_record exec=- ordinal=1 type=ext_semaphore_signal exec=- ordinal=0 type=event_record exec=- ordinal=1 type=ext_semaphore_signal exec=5 ordinal=0 type=event_record exec=5 ordinal=1 type=ext_semaphore_signal " \
	"probe: the event and semaphore nodes, their graph versions (the setters), then the exec's"
is "$(grep '^node .* graph=8 .*type=event_record' "$T/probe.dump" | sed 's/.* a=\([^ ]*\) .* flags=\([^ ]*\) .*/\1 \2/' | tr '\n' ' ')" \
	"$ev1 0x0 $ev2 0x200 $ev3 0x200 " \
	"probe: cuGraphEventRecordNodeSetEvent and cuGraphExecEventRecordNodeSetEvent recorded with their events"
is "$(grep '^node .* graph=8 .*type=ext_semaphore_signal' "$T/probe.dump" | sed 's/.* a=\([^ ]*\) b=\([^ ]*\) .* flags=\([^ ]*\) .*/\1 \2 \3/' | tr '\n' ' ')" \
	"0x5e30 0x2 0x0 0x5e32 0x1 0x200 0x5e33 0x1 0x200 " \
	"probe: the semaphore node's first semaphore and count, as added, set in the graph and in the exec"
like "$(grep '^exec slot=5 ' "$T/probe.dump")" ' graph=8 .* updates=2 ' "probe: the exec counts its two updates"

g9=$(sed -n 's/^graphprobe: exec child node set to \(0x[0-9a-f]*\)$/\1/p' "$T/probe/out")
like "$(grep '^node .* graph=6 exec=4 ordinal=1 ' "$T/probe.dump")" "type=child_graph .* a=$g9 .* flags=0x200 " \
	"probe: cuGraphExecChildGraphNodeSetParams recorded as the exec's version of the child-graph node, naming the graph given"
g10=$(grep "^graph slot=10 " "$T/probe.dump")
is "$(field handle "$g10") $(field origin "$g10") $(field nodes "$g10")" "$g9 child 1" \
	"probe: ... and a graph of origin child with that handle holding a copy of its node"
like "$(grep '^node .* graph=10 .*ordinal=0 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=9,1,1 ' \
	"probe: the copy's kernel node is the given graph's (grid 9)"
like "$(grep "^graph slot=9 " "$T/probe.dump")" "handle=$g9 origin=built .* destroyed=1 " \
	"probe: the given graph keeps its own entry (and its destruction)"
like "$("$B/cudainspect" "$(snap "$T/probe" exit)" kernels 2>&1 | grep -A1 'replay 2 of exec' | tail -1)" 'node 1\.0 finished +probe_k +grid \(9,1,1\)' \
	"probe: the kernels view expands the replay after the update into the given graph's kernel (node 1.0, grid 9)"
emb10=$(sed -n 's/^graphprobe: cuGraphAddNode embedded \(0x[0-9a-f]*\)$/\1/p' "$T/probe/out")
like "$(grep '^node .* graph=11 .*ordinal=0 ' "$T/probe.dump")" "type=child_graph .* a=$emb10 " \
	"probe: cuGraphAddNode's child-graph node names the embedded clone"
g12=$(grep "^graph slot=12 " "$T/probe.dump")
is "$(field handle "$g12") $(field origin "$g12") $(field nodes "$g12")" "$emb10 child 1" \
	"probe: cuGraphAddNode's embedded clone is recorded with the child's node"
like "$(grep '^node .* graph=12 .*ordinal=0 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=6,1,1 ' \
	"probe: ... the kernel of g6 (grid 6)"

read -r b0 b1 < <(sed -n 's/^graphprobe: conditional bodies \(0x[0-9a-f]*\) \(0x[0-9a-f]*\)$/\1 \2/p' "$T/probe/out")
like "$(grep '^node .* graph=13 .*ordinal=0 ' "$T/probe.dump")" "type=conditional .* a=$b0 b=0x2 bytes=0 " \
	"probe: the conditional node: its first body, 2 bodies, type IF (0)"
is "$(grep '^graph slot=1[45] ' "$T/probe.dump" | sed 's/.* handle=\([^ ]*\) origin=\([^ ]*\) .* nodes=\([0-9]*\) .*/\1 \2 \3/' | tr '\n' ' ')" \
	"$b0 conditional_body 1 $b1 conditional_body 1 " "probe: its bodies, in slots one after the other, each with the node added to it"
like "$(grep '^node .* graph=14 .*ordinal=0 ' "$T/probe.dump")" 'type=kernel fn=probe_k .* grid=11,1,1 ' \
	"probe: the then body's kernel (grid 11)"
like "$(grep '^node .* graph=15 .*ordinal=0 ' "$T/probe.dump")" "type=host .*func=$hostfn " "probe: the else body's host node"
like "$("$B/cudainspect" "$(snap "$T/probe" exit)" kernels 2>&1 | grep -A1 "replay 1 of exec $(field handle "$(grep '^exec slot=6 ' "$T/probe.dump")")" | tail -1)" \
	'node 0\.0\.0 finished +probe_k +grid \(11,1,1\)' \
	"probe: the kernels view expands the conditional node into its then body's kernel (node 0.0.0)"

# ---- the tables full: a 1 MiB record keeps 128 node versions; 200 replays update 200 more
run_in "$T/full" env CUDASIM_MODE=null CUDAINSPECT_SIZE=1M CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" \
	"$B/graphengine" --mode explicit --steps 200
"$DUMP" "$(snap "$T/full" exit)" >"$T/full.dump"
sec=$(grep '^section graph_nodes ' "$T/full.dump")
is "$(field capacity "$sec") $(field accepted "$sec") $(field dropped "$sec")" "128 128 84" \
	"full: 12 nodes and 116 of the 200 updates fit, the other 84 are counted as dropped"
is "$(grep '^graph ' "$T/full.dump" | sed 's/.* dropped=\([0-9]*\) .*/\1/' | awk '{s += $1} END {print s}')" 84 \
	"full: each graph counts the versions it lost"
like "$(grep '^warning ' "$T/full.dump")" 'the graph nodes table was full: 84 were not recorded' "full: the reader warns"
like "$("$B/cudainspect" "$(snap "$T/full" exit)" graphs 2>&1)" '6 nodes \(42 node versions not recorded: the node table was full\)' \
	"full: the graphs view says so"
gl=$(grep '^section graph_launches ' "$T/full.dump")
is "$(field capacity "$gl") $(field head "$gl") $(grep -c '^glaunch .* replay=' "$T/full.dump")" "1 0 200" \
	"full: no graph-launch ring entries (format 1.5): all 200 replays come from the launch ring"
done_testing
