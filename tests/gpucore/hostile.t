#!/usr/bin/env bash
# Files that are not GPU cores, or not whole ones, given to the GPU core reader
# (tests/gpucore/gpucore-dump): each is refused with exit 3 and a sentence that says what the
# file is, never a crash or a hang: missing, a directory, a FIFO, empty, random bytes, a program,
# a cubin, a host core, a gzip file, a GPU core cut short (plain and zstd), and a zstd stream
# larger than the bound on decompression.
. "$(dirname "$0")/../lib/tap.sh"
DUMP=$B/tests/gpucore/gpucore-dump PROBE=$B/tests/gpucore/gcprobe
[ -x "$DUMP" ] && [ -x "$PROBE" ] && [ -e "$B/sim/libcuda.so.1" ] || skip_all "gpucore-dump, gcprobe or the simulator is not built (make check builds them)"
unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDA_COREDUMP_GENERATION_FLAGS
plan 26
(cd "$T" && CUDASIM_KERNEL_US=0 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$T/gc" \
	CUDA_COREDUMP_GENERATION_FLAGS=skip_abort CUDASIM_FAULT='probe_store:arg=0+4096' \
	LD_LIBRARY_PATH="$B/sim" "$PROBE" --grid 2 --block 8) >/dev/null 2>&1
"$DUMP" --save-cubin 0 "$T/gc.cubin" "$T/gc" >/dev/null 2>&1

# refused FILE WHAT REGEX: exit 3, message matching REGEX.
refused() {
	local f=$1 what=$2 re=$3 out rc
	out=$(timeout 20 "$DUMP" "$f" 2>&1)
	rc=$?
	is "$rc" 3 "$what: exit 3"
	like "$out" "$re" "$what: says so"
}
refused "$T/none" "a missing file" "no such file"
mkdir "$T/dir"
refused "$T/dir" "a directory" "is a directory, not a regular file"
mkfifo "$T/fifo"
refused "$T/fifo" "a FIFO" "is a pipe \\(FIFO\\), not a regular file"
: >"$T/empty"
refused "$T/empty" "an empty file" "is empty \\(0 bytes\\)"
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", int(rand() * 256) }' </dev/null >"$T/random"
refused "$T/random" "random bytes" "is not a CUDA GPU core dump: it is not an ELF file \\(it starts with"
refused "$DUMP" "a program" "is not a CUDA GPU core dump: it is an ELF file of type 3 for machine 62"
refused "$T/gc.cubin" "a cubin" "a cubin or other CUDA ELF image"
core=$(with_core sh -c 'kill -SEGV $$')
if [ -n "$core" ]; then
	refused "$core" "a host core" "a host core dump \\(ELF core of machine 62\\)"
else
	skip "no host core (core_pattern does not write one here)"
	skip "no host core"
fi
gzip -c "$T/gc" >"$T/gc.gz"
refused "$T/gc.gz" "a gzip file" "a gzip file .*decompress it first"
size=$(stat -c %s "$T/gc")
head -c $((size / 2)) "$T/gc" >"$T/half"
refused "$T/half" "a GPU core cut in half" "cut short: its section table .* past the end of the file"
head -c 100 "$T/gc" >"$T/head"
refused "$T/head" "a GPU core's first 100 bytes" "cut short: its section table"
zstd -q -c "$T/gc" >"$T/gc.zst"
head -c $(($(stat -c %s "$T/gc.zst") / 2)) "$T/gc.zst" >"$T/half.zst"
refused "$T/half.zst" "a zstd GPU core cut in half" "the zstd stream ends .* truncated"
out=$("$DUMP" --max-core-size 1000 "$T/gc.zst" 2>&1)
like "$out" "would decompress to .* more than 1000 B, the bound on decompressed cores" "a zstd core over --max-core-size is refused before decompressing"
ok "the whole zstd GPU core reads" "$DUMP" "$T/gc.zst"
done_testing
