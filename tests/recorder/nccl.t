#!/usr/bin/env bash
# NCCL under the recorder (docs/RECORDER.md, "NCCL"), with ncclengine on the simulated driver and
# NCCL.  Through dlsym (ncclengine: dlopen of libnccl.so.2) and through the exported symbols
# (ncclengine-linked): every rank records its communicator with the same id, its rank and size,
# and each all-reduce with the communicator's sequence number, its stream number and where it
# stands by the breadcrumbs (finished, in flight, not started); the launcher variables; the
# destroy.  With planted faults, the records say which rank never arrived: a device fault leaves
# the faulting rank's collective not started while the others' is in flight, and the hang
# snapshot, written by the recorder's watchdog before the engine's watchdog aborts, flags it; a
# desync leaves the skipping rank one collective behind; an API error is a failed call without
# a number.  CUDAINSPECT_NCCL=off records none of it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder ncclengine ncclengine-linked sim/libnccl.so.2
export CUDASIM_KERNEL_US=100

# engine NAME PROGRAM ARGS...: run the launcher under the recorder in $T/NAME, every snapshot on.
engine() {
	local name=$1 prog=$2
	shift 2
	run_in "$T/$name" env CUDAINSPECT_SNAPSHOT=signal,error,hang,exit CUDAINSPECT_NCCL_TIMEOUT=0.4 \
		LD_PRELOAD="$REC" "$B/$prog" "$@"
}
# dumps NAME REASON: recdump every snapshot of that reason into $T/NAME/PID.REASON.
dumps() {
	local f
	for f in "$T/$1"/cudainspect-*-"$2".cisnap; do
		[ -e "$f" ] && "$DUMP" "$f" >"$T/$1/$(name_pid "$f").$2"
	done
}
# rank_of DUMP: the rank its communicator says.
rank_of() { field rank "$(grep '^ncclcomm ' "$1" | head -1)"; }
# dump_of NAME REASON RANK: the dump of that rank.
dump_of() {
	local f
	for f in "$T/$1"/*."$2"; do
		[ "$(rank_of "$f")" = "$3" ] && echo "$f" && return
	done
}
# call_of DUMP OP_SEQ: the all_reduce line with that number.
call_of() { grep "^ncclcall .* op=all_reduce .* op_seq=$2 " "$1"; }

clean() { # NAME PROGRAM RANKS
	local name=$1 prog=$2 n=$3 f ids ranks seqs
	engine "$name" "$prog" --ranks "$n" --steps 5
	is "$rc" 0 "$name: $n ranks exit 0 under the recorder"
	dumps "$name" exit
	is "$(ls "$T/$name"/*.exit 2>/dev/null | wc -l)" "$n" "$name: one exit snapshot per rank"
	ids=$(grep -h '^ncclcomm ' "$T/$name"/*.exit | sed 's/.* id=\([0-9a-f]*\) .*/\1/' | sort -u)
	is "$(echo "$ids" | wc -l)" 1 "$name: the communicator id is the same in every rank ($ids)"
	ranks=$(for f in "$T/$name"/*.exit; do rank_of "$f"; done | sort -n | tr '\n' ' ')
	is "$ranks" "$(seq 0 $((n - 1)) | tr '\n' ' ')" "$name: ranks 0 to $((n - 1)), one each"
	like "$(grep -h '^ncclcomm ' "$T/$name"/*.exit | head -1)" \
		"origin=init_rank state=destroyed rank=[0-9]+ nranks=$n device=0 .* colls=10 " \
		"$name: initialised by ncclCommInitRank, destroyed, 10 collectives"
	for f in "$T/$name"/*.exit; do
		seqs=$(grep '^ncclcall .* op=all_reduce ' "$f" | sed 's/.* op_seq=\([0-9]*\) .*/\1/' | tr '\n' ' ')
		[ "$seqs" = "1 2 3 4 5 6 7 8 9 10 " ] || break
	done
	is "$seqs" "1 2 3 4 5 6 7 8 9 10 " "$name: every rank numbered its all-reduces 1 to 10"
	is "$(grep -h '^ncclcall .* op=all_reduce ' "$T/$name"/*.exit | grep -vc ' state=finished ')" 0 \
		"$name: every all-reduce finished by its breadcrumb"
	is "$(grep -h '^ncclcall .* op=all_reduce ' "$T/$name"/*.exit | grep -c ' count=1024 send=0x[0-9a-f]* recv=0x[0-9a-f]* dtype=7 redop=0 peer=-1 ')" \
		$((10 * n)) "$name: count, buffers, datatype (float) and reduction (sum) recorded"
	f=$(dump_of "$name" exit 1)
	like "$(grep '^ncclcall .* op=destroy ' "$f")" "result=0 " "$name: the destroy is recorded"
	like "$(grep '^job ' "$f" | tr '\n' ' ')" "job name=RANK value=1 job name=WORLD_SIZE value=$n job name=LOCAL_RANK value=1 " \
		"$name: rank 1's launcher variables"
	like "$(call_of "$f" 3)" " stack=[0-9]+:ncclengine" "$name: the host stack reaches the engine"
}
clean dlsym ncclengine 3
clean linked ncclengine-linked 2

# A device fault on rank 2 at step 3: its first matvec there faults, so it never reaches
# all-reduce 7; ranks 0 and 1 wait in it.
engine device ncclengine --ranks 3 --steps 6 --fault device --watchdog 2
dumps device hang
dumps device error
dumps device signal
for r in 0 1; do
	h=$(dump_of device hang $r)
	ok "device: rank $r wrote the hang snapshot" test -n "$h"
	like "$(call_of "$h" 7)" " state=in_flight " "device: rank $r: all-reduce 7 in flight"
	like "$(call_of "$h" 8)" " state=not_started " "device: rank $r: all-reduce 8 not started"
	is "$(grep -c '^ncclcall .* flags=0x[0-9a-f]*[2367abef][0-9a-f] ' "$h")" 1 \
		"device: rank $r: one call flagged timeout"
	like "$(call_of "$h" 7)" " flags=0x[0-9a-f]*[2367abef][0-9a-f] " \
		"device: rank $r: the flagged call is all-reduce 7, the oldest unfinished (not the latest, 8)"
	like "$(grep '^header ' "$h")" " reason=5 " "device: rank $r: the snapshot's reason is hang"
	s=$(dump_of device signal $r)
	ok "device: rank $r: the hang snapshot came before the abort's" \
		test "$(stat -c %Y "$(ls "$T"/device/*-"$(basename "$h" .hang)"-*-hang.cisnap)")" -le \
		"$(stat -c %Y "$(ls "$T"/device/*-"$(basename "$s" .signal)"-*-signal.cisnap)")"
	like "$(grep '^ncclcall .* op=abort ' "$s")" "result=0" "device: rank $r: its abort is recorded"
	like "$(grep '^ncclcomm ' "$s")" "state=aborted .* async=6 |state=aborted " "device: rank $r: communicator aborted"
done
e=$(dump_of device error 2)
# The fault surfaces at rank 2's first call after the faulting matvec ran: all-reduce 7 itself
# (recorded, not started) or, when the simulated device ran the matvec sooner (a loaded
# machine), an earlier call, so that the error snapshot was written before all-reduce 7 was made.
# When the fault came after NCCL accepted all-reduce 7 but before the recorder's breadcrumb
# after it, the write failed and the record alone leaves the call unknown; the reader then
# places it behind the faulting launch (docs/FORMAT.md, "NCCL"), which its JSON says.
c7=$(call_of "$e" 7)
st7=$(printf '%s\n' "$c7" | sed -n 's/.* state=\([a-z_]*\) .*/\1/p')
if [ "$st7" = unknown ] && command -v jq >/dev/null; then
	snap7=$(ls "$T"/device/cudainspect-*-"$(basename "$e" .error)"-*-error.cisnap)
	st7="$st7, reader $("$B/cudainspect" --json "$snap7" |
		jq -r '.job.collectives[] | select(.seq == 7) | .state')"
fi
ok "device: rank 2 (the faulting rank): all-reduce 7 never started (${st7:-not yet made})" \
	test -z "$c7" -o "$st7" = not_started -o "$st7" = "unknown, reader not_started"
like "$(call_of "$e" 6)" " state=finished " "device: rank 2: all-reduce 6 finished"
like "$(cat "$T/device/err")" "cudainspect: ncclAllReduce #7 of NCCL communicator [0-9a-f]{16} \(rank [01] of 3\), the oldest call its stream has not finished, is still outstanding after" \
	"device: the recorder said why it wrote the hang snapshot"

# Desync: rank 2 skips all-reduce 5 (step 2); the others hang in 12, rank 2 stops at 11.
engine desync ncclengine --ranks 3 --steps 6 --fault desync --fault-step 2 --watchdog 2
dumps desync hang
dumps desync exit
is "$(field op_seq "$(grep '^ncclcall .* op=all_reduce ' "$(dump_of desync exit 2)" | tail -1)")" 11 \
	"desync: rank 2's last collective is 11"
for r in 0 1; do
	like "$(call_of "$(dump_of desync hang $r)" 12)" " state=in_flight " "desync: rank $r is in collective 12"
done

# API error: rank 1's all-reduce 7 is refused; it gets no number.
engine api ncclengine --ranks 2 --steps 6 --fault api --watchdog 2
dumps api exit
dumps api hang
a=$(dump_of api exit 1)
like "$(grep '^ncclcall .* op=all_reduce .* dtype=42 ' "$a")" "op_seq=0 .* flags=0x1[0-9a-f] .* result=4 " \
	"api: rank 1's refused all-reduce: no number, failed, ncclInvalidArgument"
like "$(grep '^ncclcomm ' "$a")" "state=aborted" "api: rank 1 aborted its communicator"
like "$(call_of "$(dump_of api hang 0)" 7)" " state=in_flight " "api: rank 0 waits in all-reduce 7"

# Off: nothing of NCCL.
run_in "$T/off" env CUDAINSPECT_NCCL=off CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/ncclengine" --ranks 2 --steps 2
is "$rc" 0 "CUDAINSPECT_NCCL=off: runs"
dumps off exit
is "$(cat "$T"/off/*.exit | grep -c '^nccl')" 0 "CUDAINSPECT_NCCL=off: no communicator, no call"
done_testing
