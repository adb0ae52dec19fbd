#!/usr/bin/env bash
# The GPU core joined with the host's record, end to end on the simulated driver: miniengine
# with a planted fault (CUDASIM_FAULT: the 5th paged_attention, block 3, thread 70, reading
# argument 2 + 64 bytes) under `cudainspect record --gpu-core`, which turns the driver's GPU core
# variables on, names the GPU core after the host core and reads both.  What must come out is
# what the test planted: the kernel, the block and thread, the launch whose argument 2 plus 64 is
# the dump's address, confidence exact.  Then the same through `CORE --gpu-core`, the GPU core
# found beside the core, a GPU core of another run (not merged, and said so), and bad input.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../engine/engine-lib.sh"
need_engines miniengine
CLI=$B/cudainspect
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
# The pair comes from `record`, whose ASan-built recorder cannot be preloaded into the engine
# (as record.t); the reader's side under ASan is what fuzz.t and cli.t run.
asan && skip_all "an ASan-built recorder cannot be preloaded into an uninstrumented program"
unset CUDA_COREDUMP_FILE CUDA_COREDUMP_GENERATION_FLAGS CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION CUDA_ENABLE_COREDUMP_ON_EXCEPTION
plan 24
PLANT='paged_attention@5:arg=2+64:block=3:thread=70'

# --- record --gpu-core --------------------------------------------------------------------------
d=$T/rec
mkdir -p "$d"
(cd "$d" && ulimit -c unlimited && CUDASIM_FAULT=$PLANT timeout 120 "$CLI" record --gpu-core --json -- \
	"$B/miniengine" --quiet >"$d/report.json" 2>"$d/err"); rc=$?
is "$rc" 134 "record --gpu-core: the program's abort passes through"
g=$(sed -n 's/^cudainspect: record: GPU core dump: //p' "$d/err")
ok "record names the GPU core it read ($g)" test -s "$g"
is "$g" "$(sed -n 's/^cudainspect: record: core dump: //p' "$d/err").gpucore" "the GPU core is named after the host core"
j() { jq -r "$1" "$d/report.json"; }
is "$(j '.diagnosis.gpu_core.agrees')" true "the GPU core agrees with the record"
is "$(j '.diagnosis.faulting_launch.kernel')" paged_attention "faulting kernel: the planted one"
is "$(j '.diagnosis.faulting_launch.confidence')" exact "confidence exact"
is "$(j '.diagnosis.gpu_core.launch')" "$(j '.diagnosis.faulting_launch.seq')" "the matched launch is the faulting launch"
like "$(j '.diagnosis.gpu_core.matched_by')" "^kernel, dimensions, .*arguments" "matched by kernel, dimensions and the arguments the dump holds"
is "$(j '.diagnosis.gpu_core.fault.block|map(tostring)|join(",")') $(j '.diagnosis.gpu_core.fault.thread|map(tostring)|join(",")')" \
	"3,0,0 70,0,0" "block 3 thread 70, as planted"
arg2=$(j '.diagnosis.faulting_launch.args[] | select(.index == 2) | .value_hex')
is "$(j '.diagnosis.gpu_core.address.address_hex')" "$(printf '0x%x' $((arg2 + 64)))" \
	"the address is the launch's argument 2 ($arg2) + 64"
is "$(j '.diagnosis.gpu_core.address.argument.arg') $(j '.diagnosis.gpu_core.address.argument.from_arg')" "2 64" \
	"... and the report relates it to argument 2, + 64"
like "$(j '.diagnosis.gpu_core.fault.error_pc.file'):$(j '.diagnosis.gpu_core.fault.error_pc.line')" \
	'^paged_attention\.ptx:[0-9]+$' "the error PC's line in the module's PTX"

# --- CORE --gpu-core, and beside --------------------------------------------------------------
core=${g%.gpucore}
txt=$("$CLI" --gpu-core "$g" "$core" 2>"$T/err")
like "$txt" "Faulting kernel: paged_attention +\\[confidence: exact\\]" "CORE --gpu-core: the kernel, exact"
like "$txt" "GPU core: Warp Illegal Address, block \\(3,0,0\\) thread \\(70,0,0\\)" "CORE --gpu-core: block and thread"
like "$(printf '%s' "$txt" | tr -s '\n ' '  ')" "$(printf '0x%x' $((arg2 + 64))) .*inside allocation #[0-9]+ at offset" \
	"CORE --gpu-core: the address in its allocation"
"$CLI" "$core" >"$T/beside" 2>"$T/err"
like "$(cat "$T/err")" "joining the GPU core kept beside the core" "the GPU core beside the core is joined, with a note"
like "$(cat "$T/beside")" "GPU core: Warp Illegal Address" "... into the report"

# --- another run's GPU core ------------------------------------------------------------
d2=$T/other
run_in "$d2" env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$d2/gpu.core" CUDASIM_FAULT=$PLANT "$B/miniengine" --quiet
json=$("$CLI" --json --gpu-core "$d2/gpu.core" "$core" 2>/dev/null)
is "$(printf '%s' "$json" | jq -r '.diagnosis.gpu_core.agrees') $(printf '%s' "$json" | jq -r '.diagnosis.gpu_core.fault')" "false null" \
	"another run's GPU core: not merged"
like "$(printf '%s' "$json" | jq -r '.diagnosis.reasoning')" "is not this record's: the GPU core's grid of paged_attention was launched by host thread [0-9]+" \
	"... the reasoning says why (the launching thread)"

# A GPU core of another program altogether (gcprobe's probe_store): no recorded launch has its
# kernel, so nothing is merged and the faulting launch stays the record's own.
PROBE=$B/tests/gpucore/gcprobe
if [ -x "$PROBE" ]; then
	mkdir -p "$T/probe"
	(cd "$T/probe" && ulimit -c 0 && CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$T/probe/gpu.core" \
		CUDASIM_FAULT=probe_store@1 "$PROBE" >/dev/null 2>&1)
	# The record's own choice: the core under a name with no GPU core beside it.
	ln "$core" "$T/probe/host.core"
	own=$("$CLI" --json "$T/probe/host.core" 2>/dev/null | jq -r '.diagnosis.faulting_launch.seq')
	json=$("$CLI" --json --gpu-core "$T/probe/gpu.core" "$core" 2>/dev/null)
	like "$(printf '%s' "$json" | jq -r '.diagnosis.gpu_core.agrees, .diagnosis.gpu_core.mismatch' | tr '\n' ' ')" \
		"^false no recorded launch is of probe_store with grid" "another program's GPU core: no launch of its kernel, not merged"
	is "$(printf '%s' "$json" | jq -r '.diagnosis.faulting_launch.seq')" "$own" "... and the faulting launch is the record's own"
else
	skip "gcprobe is not built"
	skip "gcprobe is not built"
fi

# --- bad input ----------------------------------------------------------------------------------
snap=$(ls "$d"/*.cisnap | head -1)
"$CLI" --gpu-core /etc/hostname "$snap" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 3 "--gpu-core with a file that is no GPU core: exit 3"
like "$(cat "$T/err")" "^cudainspect: --gpu-core: " "... saying it is --gpu-core's file"
"$CLI" --gpu-core "$g" "$g" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 2 "a GPU core as INPUT with --gpu-core: usage error"
done_testing
