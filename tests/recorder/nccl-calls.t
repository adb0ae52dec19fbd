#!/usr/bin/env bash
# The NCCL calls beyond a plain all-reduce, recorded through dlsym (tests/sim/nccl: each rank a
# process forked before CUDA, records in CUDAINSPECT_DIR): a group's send and receive are flagged
# in the group, numbered per peer, and get their stream numbers and one breadcrumb at the
# group's end; calls outside a group number on from there; ncclCommSplit gives each color's
# communicator one id in all its ranks, another per color, the parent's id and the rank by key;
# ncclCommInitAll records a communicator per device with one id; a nonblocking communicator is
# flagged and its first rank's init is ncclInProgress; refused calls have no number.  A call that
# reaches the recorder's exported wrapper while NCCL was loaded RTLD_LOCAL (as NCCL's own calls
# of its exported functions do) finds the library, with or without NCCL recording.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/sim/nccl sim/libnccl.so.2 bench/recorder/ncclbench
export CUDASIM_KERNEL_US=100

# scenario NAME [ARGS]: run tests/sim/nccl NAME under the recorder; dumps in $T/NAME/*.dump.
scenario() {
	local name=$1 f
	mkdir -p "$T/$name"
	env CUDAINSPECT_DIR="$T/$name" LD_PRELOAD="$REC" "$B/tests/sim/nccl" "$@" >"$T/$name.tap" 2>"$T/$name.err"
	ok "$name: the scenario passes under the recorder" grep -q "every rank exited 0" "$T/$name.tap"
	for f in "$T/$name"/*.cirec; do "$DUMP" "$f" >"${f%.cirec}.dump"; done
}
# of NAME RANK: the dump of that rank (by its first communicator).
of() { grep -l "^ncclcomm slot=0 .* rank=$2 " "$T/$1"/*.dump | head -1; }

scenario p2p 3
d=$(of p2p 0)
like "$(grep '^ncclcall .* op=send ' "$d" | head -1)" "op_seq=1 .* peer=1 .* sseq=[1-9][0-9]* .* state=finished flags=0x3 group=1 " \
	"p2p: rank 0's grouped send to 1: number 1, in group 1, a breadcrumb after it, finished"
like "$(grep '^ncclcall .* op=recv ' "$d" | head -1)" "op_seq=1 .* peer=2 .* state=finished flags=0x3 group=1 " \
	"p2p: rank 0's grouped receive from 2: number 1, group 1"
s1=$(field sseq "$(grep '^ncclcall .* op=send ' "$d" | head -1)")
s2=$(field sseq "$(grep '^ncclcall .* op=recv ' "$d" | head -1)")
is "$((s2 - s1))" 1 "p2p: the group's calls took consecutive stream numbers at the group's end"
is "$(grep -c '^ncclcall .* op=group_\(start\|end\) .* group=1 ' "$d")" 2 "p2p: group start and end, group 1"
like "$(grep '^ncclcall .* op=send ' "$d" | tail -1)" "op_seq=2 .* peer=1 .* flags=0x[0-9a-f]*[2367abef] group=0 " \
	"p2p: the ungrouped send to 1 is the second to that peer, with its breadcrumb"
like "$(grep '^ncclcall .* op=recv ' "$(of p2p 1)" | tail -1)" "op_seq=2 .* peer=0 " \
	"p2p: rank 1's ungrouped receive from 0 is its second from that peer"
like "$(grep '^ncclcomm ' "$d")" " colls=0 p2p=4 " "p2p: the communicator counts 4 point-to-point calls"

scenario split 4
parent=$(grep -h '^ncclcomm slot=0 ' "$T"/split/*.dump | sed 's/.* id=\([0-9a-f]*\) .*/\1/' | sort -u)
is "$(echo "$parent" | wc -l)" 1 "split: one parent id"
even=$(grep -h '^ncclcomm slot=1 .* color=0 ' "$T"/split/*.dump | sed 's/.* id=\([0-9a-f]*\) .*/\1/' | sort -u)
odd=$(grep -h '^ncclcomm slot=1 .* color=1 ' "$T"/split/*.dump | sed 's/.* id=\([0-9a-f]*\) .*/\1/' | sort -u)
ok "split: each color's communicator has one id in its ranks ($even, $odd), and they differ" \
	test "$(echo "$even" | wc -l)" = 1 -a "$(echo "$odd" | wc -l)" = 1 -a "$even" != "$odd"
is "$(grep -h '^ncclcomm slot=1 ' "$T"/split/*.dump | grep -c "parent=$parent origin=split ")" 4 \
	"split: the children name the parent's id"
like "$(grep '^ncclcomm slot=1 ' "$(of split 3)")" "rank=1 nranks=2 .* color=1 key=3 " \
	"split: rank 3 is rank 1 of 2 in color 1 (key 3)"
is "$(grep -h '^ncclcomm slot=2 ' "$T"/split/*.dump | wc -l)" 1 \
	"split: NCCL_SPLIT_NOCOLOR gives the other ranks no communicator"

mkdir -p "$T/initall"
CUDASIM_DEVICES=2 scenario initall
f=$(ls "$T"/initall/*.dump)
like "$(grep '^ncclcomm slot=0 ' "$f")" "origin=init_all .* rank=0 nranks=2 device=0 " "initall: rank 0 on device 0"
like "$(grep '^ncclcomm slot=1 ' "$f")" "origin=init_all .* rank=1 nranks=2 device=1 " "initall: rank 1 on device 1"
is "$(grep '^ncclcomm ' "$f" | sed 's/.* id=\([0-9a-f]*\) .*/\1/' | sort -u | wc -l)" 1 "initall: one id"
is "$(grep -c '^ncclcall .* op=all_reduce .* flags=0x3 group=1 ' "$f")" 2 \
	"initall: the grouped all-reduce of each rank, breadcrumb at the group's end"

scenario nonblocking
like "$(grep '^ncclcomm ' "$(of nonblocking 0)")" "origin=init_rank_config .* result=7 .* flags=1 " \
	"nonblocking: flagged nonblocking; rank 0's init answered ncclInProgress"

scenario errors
d=$(ls "$T"/errors/*.dump)
is "$(grep -c '^ncclcall .* op=all_reduce .* op_seq=0 .* flags=0x1[0-9a-f] .* result=4 ' "$d")" 5 \
	"errors: five refused all-reduces, no number, failed, ncclInvalidArgument"
like "$(grep '^ncclcall .* op=broadcast ' "$d")" "op_seq=0 .* peer=5 .* result=4 " "errors: the broadcast to root 5 is refused"
like "$(grep '^ncclcall .* op=group_end ' "$d")" "group=0 result=5 " "errors: ncclGroupEnd without a group: ncclInvalidUsage"
# The exported wrappers called before any door said where NCCL is, the library out of the
# global scope: they find it among the loaded objects.
for nccl in on off; do
	mkdir -p "$T/local-$nccl"
	(cd "$T/local-$nccl" && env CUDASIM_MODE=null NCCLBENCH_LOOKUP=default CUDAINSPECT_NCCL=$nccl \
		CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/bench/recorder/ncclbench" allreduce 50 1) \
		>"$T/local-$nccl.out" 2>&1
	like "$(cat "$T/local-$nccl.out")" "^ns_per_op " "RTLD_LOCAL library, CUDAINSPECT_NCCL=$nccl: the calls reach it"
done
"$DUMP" "$(snap "$T/local-on" exit)" >"$T/local-on.dump"
is "$(grep -c '^ncclcall .* op=all_reduce .* state=finished ' "$T/local-on.dump")" 100 \
	"RTLD_LOCAL library: its 100 all-reduces recorded (two runs of 50)"
done_testing
