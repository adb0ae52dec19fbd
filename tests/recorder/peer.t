#!/usr/bin/env bash
# Memory shared between processes, recorded (docs/RECORDER.md, "Peer memory"), with
# tests/sim/ipc's exporter and importer under the recorder: the exporter's IPC and VMM exports
# and the importer's opens, imports and mappings carry the same key, so the two records say whose
# memory each mapping is; the importer's mappings are allocations of their own kinds (ipc,
# vmm_import, vmm_map_peer), closed and unmapped ones in the free ring, with the device the
# driver names.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/sim/ipc
export CUDAINSPECT_SNAPSHOT=exit

mkdir -p "$T/exp" "$T/imp"
coproc EXP { cd "$T/exp" && LD_PRELOAD="$REC" exec "$B/tests/sim/ipc" export; }
exp_pid=$EXP_PID
read -r _ ipc <&"${EXP[0]}"
read -r _ pid fd <&"${EXP[0]}"
read -r _ fabric <&"${EXP[0]}"
(cd "$T/imp" && LD_PRELOAD="$REC" "$B/tests/sim/ipc" import "$ipc" "$pid" "$fd" "$fabric") >"$T/imp.tap" 2>&1
ok "the importer's checks pass under the recorder" sh -c "! grep -q '^not ok' '$T/imp.tap'"
exec {EXP[1]}>&-
wait "$exp_pid" 2>/dev/null
"$DUMP" "$(snap "$T/exp" exit)" >"$T/exp.dump"
"$DUMP" "$(snap "$T/imp" exit)" >"$T/imp.dump"

key() { sed -n "s/^peer .* kind=$2 .* key=\([0-9a-f]*\) .*/\1/p" "$1" | head -1; }
ipc_export=$(grep '^peer .* kind=ipc_export ' "$T/exp.dump")
like "$ipc_export" "size=1048576 .* alloc=[1-9][0-9]* type=0 device=0 result=0 " \
	"exporter: cuIpcGetMemHandle of the MiB allocation, its id, device 0"
is "$(grep -c '^peer .* kind=vmm_export .* type=1 device=0 result=0 ' "$T/exp.dump") $(grep -c '^peer .* kind=vmm_export .* type=8 device=0 result=0 ' "$T/exp.dump")" \
	"1 1" "exporter: the VMM handle exported as a file descriptor and as a fabric handle"
k=$(key "$T/exp.dump" ipc_export)
is "$(grep -c "^peer .* kind=ipc_open .* key=$k .* device=0 result=0 " "$T/imp.dump")" 2 \
	"importer: both opens carry the exporter's IPC key ($k)"
is "$(grep -c "^peer .* kind=ipc_close .* key=$k .* result=0 " "$T/imp.dump")" 2 \
	"importer: two closes with the key (the mapping stays in the table until the last one)"
like "$(grep '^peer .* kind=ipc_close ' "$T/imp.dump" | tail -1)" " result=1 " "importer: the third close is refused"
# The dump prints the key padded in peer lines and plain in aux: one time in 16 it starts with 0.
like "$(grep '^free .* kind=ipc ' "$T/imp.dump")" "size=1048576 aux=0x0*${k#"${k%%[!0]*}"} " \
	"importer: the IPC mapping, closed, is in the free ring with its key"
fdkey=$(sed -n 's/^peer .* kind=vmm_export .* key=\([0-9a-f]*\) .* type=1 .*/\1/p' "$T/exp.dump")
fabkey=$(sed -n 's/^peer .* kind=vmm_export .* key=\([0-9a-f]*\) .* type=8 .*/\1/p' "$T/exp.dump")
is "$(grep -c "^peer .* kind=vmm_import .* key=$fdkey .* type=1 device=0 result=0 " "$T/imp.dump")" 1 \
	"importer: the file descriptor's import has the exporter's key (the same open file)"
is "$(grep -c "^peer .* kind=vmm_import .* key=$fabkey .* type=8 device=0 result=0 " "$T/imp.dump")" 1 \
	"importer: the fabric handle's import has the exporter's key"
is "$(grep -c "^peer .* kind=vmm_map .* key=$fdkey " "$T/imp.dump") $(grep -c "^peer .* kind=vmm_map .* key=$fabkey " "$T/imp.dump")" \
	"1 1" "importer: each mapping of an imported handle carries its key"
like "$(grep '^alloc .* kind=vmm_map_peer ' "$T/imp.dump")" "size=2097152 " \
	"importer: the fabric mapping, still mapped at exit, is a live allocation of kind vmm_map_peer"
like "$(grep '^free .* kind=vmm_map_peer ' "$T/imp.dump")" "size=2097152 " \
	"importer: the unmapped one is in the free ring"
like "$(grep '^free .* kind=vmm_import ' "$T/imp.dump")" "address=0x0 " "importer: the released import is in the free ring"
is "$(grep -c '^alloc .* kind=vmm_map ' "$T/imp.dump")" 0 "importer: no mapping taken for one of its own"
done_testing
