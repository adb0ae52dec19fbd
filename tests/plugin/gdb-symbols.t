#!/usr/bin/env bash
# Device pointers in GDB, on real kernel cores of tests/plugin/gdbprobe (two cuMemAlloc, one
# cuMemFree, then use_buffers(live + 16, stale + 16) aborts) recorded on the simulated driver.
# The names come from the symbol image GDB's ELF reader loads, with or without the plugin:
# cuda_alloc_ID for live allocations, cuda_freed_ID for recent frees; the IDs must be the ones
# the CLI reports for the same addresses (`cudainspect --json CORE allocs --freed`).  Every GDB
# command in the issue's list must behave on such a pointer: no crash, no hang.  A second core
# (gdbprobe --reuse) reuses the freed range: the live allocation and the newer free must win.
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
ok "the CLI knows the freed allocation" test -n "$stale_id"

run_gdb() { gdb_batch "$@" "$PROBE" "$core" \
	-ex "print (void *) $live" -ex "print (void *) $stale" -ex "x/a &probe_live" -ex "x/a &probe_stale" \
	-ex "info symbol $live" -ex "info symbol $stale" -ex 'bt' \
	-ex "info line *$live" -ex "list *$live" -ex "list *$stale" -ex "break *$live" \
	-ex "disassemble $live" -ex "disassemble $stale" -ex 'echo @@alive@@\n'; }

# Without the plugin: the symbol image alone names live and freed allocations.
out=$(run_gdb)
like "$out" "= \(void \*\) $live <cuda_alloc_$live_id\+16>" "print: live pointer is <cuda_alloc_$live_id+16>"
like "$out" "= \(void \*\) $stale <cuda_freed_$stale_id\+16>" "print: freed pointer is <cuda_freed_$stale_id+16>"
like "$out" "<probe_live>:	$live <cuda_alloc_$live_id\+16>" "x/a: live pointer is named"
like "$out" "<probe_stale>:	$stale <cuda_freed_$stale_id\+16>" "x/a: freed pointer is named"
like "$out" "^cuda_alloc_$live_id \+ 16 in section \.cuda_alloc" "info symbol: cuda_alloc_$live_id + 16"
like "$out" "^cuda_freed_$stale_id \+ 16 in section \.cuda_freed" "info symbol: cuda_freed_$stale_id + 16 (a minimal symbol)"
like "$out" "use_buffers \(live=$live <cuda_alloc_$live_id\+16>, stale=$stale <cuda_freed_$stale_id\+16>\)" \
	"bt: both arguments named"
like "$out" "No line number information available for address $live <cuda_alloc_$live_id\+16>" \
	"info line *ADDR: no line information, said plainly"
like "$out" "Breakpoint 1 at $live" "break *ADDR: accepted like any address"
like "$out" "Dump of assembler code for function cuda_alloc_$live_id:" "disassemble ADDR: the allocation, by name"
like "$out" "Dump of assembler code for function cuda_freed_$stale_id:" "disassemble a freed pointer: the freed range, by name"
like "$out" '^@@alive@@$' "GDB survives every command (list, disassemble included)"
unlike "$out" 'Segmentation|internal-error|unexpected overlap' "no crash, no internal error, no section overlap"

# With the plugin: the same names (it adds none of its own), and still no crash.
out=$(run_gdb -ex "jit-reader-load $PLUGIN")
like "$out" "use_buffers \(live=$live <cuda_alloc_$live_id\+16>, stale=$stale <cuda_freed_$stale_id\+16>\)" \
	"with the plugin: bt names both arguments"
is "$(grep -c "in section \.cuda_freed" <<<"$out")" 1 "with the plugin: info symbol lists the freed pointer once"
like "$out" '^@@alive@@$' "GDB survives every command with the plugin"
unlike "$out" 'Segmentation|internal-error' "no crash with the plugin"
# Host symbols are untouched by the image's sections.
host=$(gdb_batch "$PROBE" "$core" -ex 'info symbol main' -ex "info symbol use_buffers")
like "$host" '^main in section \.text' "host symbols still resolve (main)"

# --- the freed range reused -------------------------------------------------------------------
# gdbprobe --reuse frees "stale" (64 KiB at S), then allocates a 4 KiB spacer at S and 16 KiB
# "reused" at S + 4 KiB (first fit), and frees the spacer.  Three ranges overlap at S: the
# older free (S, 64 KiB), the newer free (S, 4 KiB) and the live allocation (S + 4 KiB).
core=$(recorded_core "$PROBE" --reuse)
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "gdbprobe --reuse left no core"; }
read -r reused spacer < <(sed -n 's/^reused=\([^ ]*\) spacer=\([^ ]*\)$/\1 \2/p' "$T/run.out")
read -r _ stale _ < <(sed -n 's/^live=\([^ ]*\) stale=\([^ ]*\) .*/\1 \2/p' "$T/run.out")
json=$("$CLI" --json --freed "$core" allocs)
base=$(printf '0x%x' $((stale - 16)))
reused_id=$(jq -r --arg a "$(printf '0x%x' $((reused - 16)))" \
	'first(.allocations[] | select(.address_hex == $a) | .id) // empty' <<<"$json")
spacer_id=$(jq -r --arg a "$base" 'first(.frees[] | select(.address_hex == $a and .size == 4096) | .id) // empty' <<<"$json")
old_id=$(jq -r --arg a "$base" 'first(.frees[] | select(.address_hex == $a and .size == 65536) | .id) // empty' <<<"$json")
diag "reused $reused (alloc $reused_id), spacer $spacer (freed $spacer_id), old free $old_id"
ok "the CLI knows all three (live $reused_id, newer free $spacer_id, older free $old_id)" \
	test -n "$reused_id" -a -n "$spacer_id" -a -n "$old_id"
ok "the layout is the one planned: spacer at the old free's start, reused right after" \
	test "$spacer" = "$stale" -a $((reused - stale)) -eq 4096
deep=$(printf '0x%x' $((stale - 16 + 0x8000)))
out=$(gdb_batch "$PROBE" "$core" -ex "print (void *) $reused" -ex "x/a &probe_reused" \
	-ex 'echo @@reused@@\n' -ex "info symbol $reused" -ex 'echo @@stale@@\n' \
	-ex "print (void *) $stale" -ex "info symbol $stale" -ex 'echo @@deep@@\n' \
	-ex "info symbol $deep" -ex 'echo @@end@@\n')
block() { printf '%s\n' "$out" | sed -n "/^@@$1@@\$/,/^@@/p" | sed '1d;$d'; }
like "$out" "= \(void \*\) $reused <cuda_alloc_$reused_id\+16>" \
	"print: the live allocation wins over the older free it lies in"
like "$out" "<probe_reused>:	$reused <cuda_alloc_$reused_id\+16>" "x/a: likewise"
is "$(block reused)" "cuda_alloc_$reused_id + 16 in section .cuda_alloc of $(block reused | sed -n 's/.* of //p' | head -n 1)" \
	"info symbol on the live allocation: its name only, no freed one"
like "$(block stale)" "= \(void \*\) $stale <cuda_freed_$spacer_id\+16>" "print: the newer free wins over the older one"
is "$(block stale | grep -c 'in section')" 1 "info symbol on the newer free: one name"
like "$(block stale)" "^cuda_freed_$spacer_id \+ 16 in section \.cuda_freed" "... the newer free's"
is "$(block deep)" "No symbol matches $deep." \
	"the older free, partly reused, is named nowhere (no stale name beside a live one)"
done_testing
