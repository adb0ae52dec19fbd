#!/usr/bin/env bash
# Explicitly built graphs (tests/sim/graphs.c): construction, node queries, instantiation with
# parameters, an exec's kernel node updated between replays, and a fault planted in that node of
# the second replay, whose Xid line names the updated pointer; async and null mode.  Child-graph
# nodes (tests/sim/childgraph.c): the fault planted in the child graph's kernel node of the
# second replay names the pointer that program planted.  Event and external-semaphore nodes
# (tests/sim/eventnodes.c): their Get/Set pairs and exec setters, wrong node types refused, a
# replay records the events of its exec.  cuGraphExecChildGraphNodeSetParams and child graphs
# through cuGraphAddNode (tests/sim/childupdate.c): which host nodes each replay ran.
# Conditional nodes (tests/sim/conditional.c): which bodies IF, WHILE and SWITCH ran.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
export CUDASIM_KERNEL_US=100
# $1: the test program; $2: what its faulting node is.  Both run with CUDASIM_FAULT=step@4:arg=0+64.
graph_run() {
	local prog=$1 what=$2
	rm -f "$T/$prog.log"
	CUDASIM_FAULT=step@4:arg=0+64 CUDASIM_KERNEL_LOG=$T/$prog.log sim_run "$prog"; ok "$prog.c exits 0" test $? -eq 0
	ok "$prog.c: all pass" tap_clean "$T/$prog.tap"
	local planted=$(sed -n 's/^# planted //p' "$T/$prog.tap")
	like "$(grep Xid "$T/$prog.log")" "faulted @ $(printf '0x%x_%08x' $(( (planted + 64) >> 32 )) $(( (planted + 64) & 0xfffff000 )))" \
		"the Xid line names $what pointer + 64, down to the page"
	CUDASIM_FAULT=step@4:arg=0+64 CUDASIM_MODE=null sim_run "$prog"; ok "$prog.c in null mode exits 0" test $? -eq 0
	ok "$prog.c in null mode: all pass" tap_clean "$T/$prog.tap"
}
graph_run graphs "the updated node's"
graph_run childgraph "the child graph's kernel"
for mode in async null; do
	for prog in eventnodes childupdate conditional; do
		CUDASIM_MODE=$mode sim_run $prog; ok "$prog.c ($mode mode) exits 0" test $? -eq 0
		ok "$prog.c ($mode mode): all pass" tap_clean "$T/$prog.tap"
	done
done
done_testing
