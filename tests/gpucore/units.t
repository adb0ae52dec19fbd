#!/usr/bin/env bash
# The GPU core reader's unit tests (tests/gpucore/test-gpucore.c): the SASS decoder against
# nvdisasm's readings, the words, damaged tables, and a GPU core the simulator writes (and its
# cubin) cut at every length and damaged at every byte; then the DWARF line reader on shared
# objects gcc links with DWARF 2, 3, 4 and 5 line tables (read as if they were cubins; linked, so
# that DWARF 5's string offsets are relocated, as they are in a driver's relocated cubin).
. "$(dirname "$0")/../lib/tap.sh"
TG=$B/tests/gpucore/test-gpucore DUMP=$B/tests/gpucore/gpucore-dump PROBE=$B/tests/gpucore/gcprobe
[ -x "$TG" ] && [ -x "$PROBE" ] && [ -e "$B/sim/libcuda.so.1" ] || skip_all "test-gpucore, gcprobe or the simulator is not built (make check builds them)"
unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDA_COREDUMP_GENERATION_FLAGS
(cd "$T" && CUDASIM_KERNEL_US=0 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$T/gc" \
	CUDA_COREDUMP_GENERATION_FLAGS=skip_abort CUDASIM_FAULT='probe_store:arg=0+4096:block=1:thread=3' \
	LD_LIBRARY_PATH="$B/sim" "$PROBE" --loc --grid 2 --block 8) >/dev/null 2>&1
"$DUMP" --save-cubin 0 "$T/gc.cubin" "$T/gc" >/dev/null 2>&1
[ -s "$T/gc" ] && [ -s "$T/gc.cubin" ] || { echo "1..1"; echo "not ok 1 - the simulator wrote no GPU core"; exit 1; }
"$TG" "$T/gc" "$T/gc.cubin" | sed '/^1\.\./d'
units_rc=${PIPESTATUS[0]}
# test-gpucore printed its own TAP lines; count them into ours.
_tap_n=$("$TG" "$T/gc" "$T/gc.cubin" 2>/dev/null | grep -c '^\(not \)\?ok ')
[ "$units_rc" -eq 0 ] || _tap_fail=$((_tap_fail + 1))
printf 'int f(int x)\n{\n\treturn x + 1;\n}\n' >"$T/lt.c"
for v in 2 3 4 5; do
	if gcc -g -gdwarf-$v -O0 -shared -nostdlib -fPIC "$T/lt.c" -o "$T/lt$v.so" 2>/dev/null; then
		got=$("$TG" --line "$T/lt$v.so" 2>&1)
		is "${got##*/}" "lt.c:2" "DWARF $v line table: the function's first line"
	else
		skip "gcc cannot write DWARF $v"
	fi
done
done_testing
