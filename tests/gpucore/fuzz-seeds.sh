#!/usr/bin/env bash
# Seed corpus for the GPU core harness (tests/gpucore/fuzz_gpucore.c):
#   fuzz-seeds.sh BUILD_DIR CORPUS_DIR
# GPU cores the simulated driver writes for gcprobe (with and without line information, a write,
# a read and an atomic with an address, an assert without one, one thread, a 2-D block), a zstd
# copy of one, each one's relocated cubin alone, the first kilobytes of one, and, when the real
# H200 fixture is in ../shared, the relocated cubin of its faulting Triton kernel (5.5 KB: the
# 148 MB dump itself is never a seed).
set -eu
B=$1 C=$2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$C"
W=$(mktemp -d "${TMPDIR:-/tmp}/ci-gpucore-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
probe() { # NAME FAULT [GCPROBE ARGS...]
	local name=$1 fault=$2
	shift 2
	( cd "$W" && CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$W/$name.nvcudmp" \
		CUDA_COREDUMP_GENERATION_FLAGS=skip_abort CUDASIM_FAULT="$fault" \
		LD_LIBRARY_PATH="$B/sim" "$B/tests/gpucore/gcprobe" "$@" ) >/dev/null 2>&1 || true
	[ -s "$W/$name.nvcudmp" ] || return 0
	cp "$W/$name.nvcudmp" "$C/$name.nvcudmp"
	"$B/tests/gpucore/gpucore-dump" --save-cubin 0 "$C/$name.cubin" "$W/$name.nvcudmp" >/dev/null 2>&1 || true
}
probe store-loc 'probe_store:arg=0+4096:access=write:block=1:thread=3' --loc --grid 2 --block 8
probe load-ptx 'probe_store:arg=0-64:block=0:thread=0' --grid 1 --block 4
probe atomic 'probe_store:addr=0x10:access=atomic' --loc --grid 1 --block 32
probe assert 'probe_store:assert:thread=1' --grid 2,2 --block 2,2
probe one 'probe_store:arg=0+0x100000000' --grid 1 --block 1
if [ -s "$C/store-loc.nvcudmp" ]; then
	zstd -q -c "$C/store-loc.nvcudmp" > "$C/store-loc.nvcudmp.zst" 2>/dev/null || rm -f "$C/store-loc.nvcudmp.zst"
	head -c 2048 "$C/store-loc.nvcudmp" > "$C/store-loc-head"
fi
F=$TOP/../shared/gpu/gpucore-h200-illegal-address.zst
if [ -r "$F" ]; then
	"$B/tests/gpucore/gpucore-dump" --save-cubin 17 "$C/h200-paged_kv_write.cubin" "$F" >/dev/null 2>&1 || true
fi
