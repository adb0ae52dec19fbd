#!/usr/bin/env bash
# Another JIT producer in a recorded process: gdbprobe --jit registers its own in-memory ELF
# (tests/plugin/jitfn.c, linked at 0x30000000) through its own __jit_debug_descriptor, as LLVM
# ORC does, and dies under the jitted function.  With the plugin loaded GDB must still load
# that object (the reader hands it back) — `bt` names jitted_call and its source line — and
# still summarize the flight record and name device pointers.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$PROBE" "$JITFN" "$B/sim/libcuda.so.1"

core=$(recorded_core "$PROBE" --jit "$JITFN")
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "gdbprobe --jit left no core"; }
read -r live _ < <(sed -n 's/^live=\([^ ]*\) .*/\1/p' "$T/run.out")

for when in after before; do
	if [ $when = after ]; then
		out=$(gdb_batch "$PROBE" "$core" -ex "jit-reader-load $PLUGIN" -ex bt -ex 'maint info jit')
	else
		out=$(gdb_batch -iex "jit-reader-load $PLUGIN" "$PROBE" "$core" -ex bt -ex 'maint info jit')
	fi
	like "$out" '#[0-9]+ +0x0*3000[0-9a-f]+ in jitted_call \(use=.*\) at .*jitfn\.c:[0-9]+' \
		"plugin loaded $when: bt goes through the other producer's jitted_call"
	like "$out" "jitted_call \(.*live=$live <cuda_alloc_[0-9]+\+16>" \
		"plugin loaded $when: device pointer named in the jitted frame"
	like "$out" '^cudainspect: (no CUDA failure|CUDA)' \
		"plugin loaded $when: the flight record still reaches the plugin"
	unlike "$out" 'Segmentation|internal-error' "plugin loaded $when: no crash"
done
done_testing
