#!/usr/bin/env bash
# Device pointers in GDB, on a real kernel core of tests/plugin/gdbprobe (two cuMemAlloc, one
# cuMemFree, then use_buffers(live + 16, stale + 16) aborts) recorded on the simulated driver.
# Names come from two places the test checks against each other: the symbol image GDB's ELF
# reader loads (cuda_alloc_ID) and the plugin's freed blocks (cuda_freed_ID); the IDs must be
# the ones the CLI reports for the same addresses (`cudainspect --json CORE allocs --freed`).
# Every GDB command in the issue's list must behave on such a pointer: no crash, no hang.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CLI" "$PROBE" "$B/sim/libcuda.so.1"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"

core=$(recorded_core "$PROBE")
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "gdbprobe left no core"; }
read -r live stale _ < <(sed -n 's/^live=\([^ ]*\) stale=\([^ ]*\) .*/\1 \2/p' "$T/run.out")
base_live=$(printf '0x%x' $((live - 16)))
base_stale=$(printf '0x%x' $((stale - 16)))
json=$("$CLI" --json --freed "$core" allocs)
live_id=$(jq -r --arg a "$base_live" 'first(.allocations[] | select(.address_hex == $a) | .id) // empty' <<<"$json")
stale_id=$(jq -r --arg a "$base_stale" '[.frees[] | select(.address_hex == $a) | .id] | last // empty' <<<"$json")
diag "live $live (alloc $live_id), stale $stale (alloc $stale_id)"
ok "the CLI knows the live allocation" test -n "$live_id" -a "$live_id" != null

run_gdb() { gdb_batch "$@" "$PROBE" "$core" \
	-ex "print (void *) $live" -ex "print (void *) $stale" -ex "x/a &probe_live" -ex "x/a &probe_stale" \
	-ex "info symbol $live" -ex "info symbol $stale" -ex 'bt' \
	-ex "info line *$live" -ex "list *$live" -ex "list *$stale" -ex "break *$live" \
	-ex "disassemble $live" -ex "disassemble $stale" -ex 'echo @@alive@@\n'; }

# Without the plugin: the symbol image alone names live allocations.
out=$(run_gdb)
like "$out" "= \(void \*\) $live <cuda_alloc_$live_id\+16>" "print: live pointer is <cuda_alloc_$live_id+16>"
like "$out" "<probe_live>:	$live <cuda_alloc_$live_id\+16>" "x/a: live pointer is named"
like "$out" "^cuda_alloc_$live_id \+ 16 in section \.cuda_alloc" "info symbol: cuda_alloc_$live_id + 16"
like "$out" "use_buffers \(live=$live <cuda_alloc_$live_id\+16>, stale=$stale\)" \
	"bt: live argument named, freed one not (no plugin)"
like "$out" "No line number information available for address $live <cuda_alloc_$live_id\+16>" \
	"info line *ADDR: no line information, said plainly"
like "$out" "Breakpoint 1 at $live" "break *ADDR: accepted like any address"
like "$out" "Dump of assembler code for function cuda_alloc_$live_id:" "disassemble ADDR: the allocation, by name"
like "$out" '^@@alive@@$' "GDB survives every command (list, disassemble included)"
unlike "$out" 'Segmentation|internal-error|unexpected overlap' "no crash, no internal error, no section overlap"

# With the plugin: recently freed allocations too.
out=$(run_gdb -ex "jit-reader-load $PLUGIN")
ok "the CLI knows the freed allocation" test -n "$stale_id"
like "$out" "= \(void \*\) $stale <cuda_freed_$stale_id\+16>" "print: freed pointer is <cuda_freed_$stale_id+16>"
like "$out" "<probe_stale>:	$stale <cuda_freed_$stale_id\+16>" "x/a: freed pointer is named"
like "$out" "use_buffers \(live=$live <cuda_alloc_$live_id\+16>, stale=$stale <cuda_freed_$stale_id\+16>\)" \
	"bt: both arguments named"
like "$out" "No symbol matches $stale" "info symbol on a freed pointer: GDB's plain answer (no minimal symbol)"
like "$out" '^@@alive@@$' "GDB survives every command with the plugin"
unlike "$out" 'Segmentation|internal-error' "no crash with the plugin"
# Host symbols are untouched by the image's sections.
host=$(gdb_batch "$PROBE" "$core" -ex 'info symbol main' -ex "info symbol use_buffers")
like "$host" '^main in section \.text' "host symbols still resolve (main)"
done_testing
