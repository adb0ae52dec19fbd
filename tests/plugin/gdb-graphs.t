#!/usr/bin/env bash
# GDB on a real kernel core of graphengine (testcases/engine/graphengine.c: the attention node of
# a captured decode-step graph faults in its 3rd replay): the JIT reader's summary names the
# kernel node, and `cuda graphs` and `cuda kernels` print what the CLI prints for the same core.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CMDS" "$CLI" "$B/graphengine" "$B/sim/libcuda.so.1"

core=$(recorded_core env CUDASIM_KERNEL_US=200 "$B/graphengine" --steps 6 --fault-step 5)
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "graphengine left no core"; }
after=$(gdb_batch -ex "jit-reader-load $PLUGIN" "$B/graphengine" "$core")
like "$after" 'Faulting kernel: paged_attention' "the JIT reader's summary names the kernel node"
like "$after" 'node 7 of captured graph 0x[0-9a-f]+ \(10 nodes, 4 kernels\), replay 3 of exec' \
	"... with its graph and replay"
like "$after" 'CORE graphs +# the graph and its nodes' "... and suggests the graphs view"
for view in graphs kernels; do
	got=$(gdb_cuda "$B/graphengine" "$core" -- cuda $view)
	want=$("$CLI" "$core" "$view" 2>&1; echo "exit=$?")
	is "$got" "$want" "cuda $view prints what the CLI prints, exit code included"
done
like "$(gdb_batch -x "$CMDS" -ex 'help cuda graphs')" 'CUDA graphs: how each was captured or built' "help cuda graphs"
done_testing
