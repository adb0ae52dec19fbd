#!/usr/bin/env bash
# Host stacks (CUDAINSPECT_STACKS off|fast|accurate): the first frame is the return address into
# the code that called the driver, symbolized here with addr2line (binutils), independently of
# the recorder and the reader; identical call sites share one depot entry; the depth limit holds.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crumbprobe tests/recorder/crashprobe
command -v addr2line >/dev/null || skip_all "addr2line (binutils) is not installed"
CRUMB=$B/tests/recorder/crumbprobe

probe() { # NAME VAR=VALUE...: crumbprobe's error snapshot dumped to $T/NAME.dump
	local name=$1
	shift
	run_in "$T/$name" env CUDASIM_FAULT=bad_k CUDASIM_KERNEL_US=1000 "$@" LD_PRELOAD="$REC" "$CRUMB"
	"$DUMP" "$(snap "$T/$name" error)" >"$T/$name.dump"
}
# frames NAME TAG: the stack of the launch with parameter TAG ("module+0xoff,...").
frames() { grep "^launch .*params=$2" "$T/$1.dump" | sed 's/.* stack=[0-9]*://'; }
# fn FRAME: the function addr2line names for crumbprobe+0xOFF (return address - 1).
fn() {
	local off=${1#crumbprobe+}
	addr2line -f -i -e "$CRUMB" "$(printf '0x%x' $((off - 1)))" | head -1
}

probe off CUDAINSPECT_STACKS=off
like "$(grep '^launch ' "$T/off.dump" | head -1)" ' stack=0:$' "off: no stacks"
like "$(grep '^header ' "$T/off.dump")" 'stack_mode=0 stack_depth=0 ' "off: header says so"

probe fast
f=$(frames fast a1)
first=${f%%,*}
like "$first" '^crumbprobe\+0x' "fast: the first frame is in the program"
is "$(fn "$first")" "launch" "fast: the first frame is crumbprobe's launch(), per addr2line"
second=$(cut -d, -f2 <<<"$f")
is "$(fn "$second")" "main" "fast: the second frame is main()"
ids=$(grep -E '^launch .*params=a[1-5]' "$T/fast.dump" | sed 's/.* stack=\([0-9]*\):.*/\1/' | sort -u | wc -l)
is "$ids" 1 "launches from the same call site share one depot entry"
like "$(grep '^header ' "$T/fast.dump")" 'stack_mode=1 stack_depth=16 ' "fast: header says mode and depth"

probe accurate CUDAINSPECT_STACKS=accurate
f=$(frames accurate a1)
is "$(fn "${f%%,*}")" "launch" "accurate: the first frame is launch()"
n_acc=$(tr ',' '\n' <<<"$f" | wc -l)
n_fast=$(frames fast a1 | tr ',' '\n' | wc -l)
ok "accurate: at least as deep as fast ($n_acc >= $n_fast)" test "$n_acc" -ge "$n_fast"

probe shallow CUDAINSPECT_STACK_DEPTH=2
is "$(frames shallow a1 | tr ',' '\n' | wc -l)" 2 "CUDAINSPECT_STACK_DEPTH=2: two frames"

# Allocation and free stacks: crashprobe dlopen allocates in main and frees in main.
run_in "$T/mod" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$B/tests/recorder/crashprobe" dlopen \
	"$B/tests/recorder/libnexta.so"
"$DUMP" "$(snap "$T/mod" exit)" >"$T/mod.dump"
fr=$(grep '^free ' "$T/mod.dump")
a=$(sed 's/.* stack=[0-9]*:\([^, ]*\).*/\1/' <<<"$fr")
b=$(sed 's/.* free_stack=[0-9]*:\([^, ]*\).*/\1/' <<<"$fr")
is "$(addr2line -f -e "$B/tests/recorder/crashprobe" "$(printf '0x%x' $((${a#crashprobe+} - 1)))" | head -1) $(addr2line -f -e "$B/tests/recorder/crashprobe" "$(printf '0x%x' $((${b#crashprobe+} - 1)))" | head -1)" \
	"main main" "the free ring keeps the allocation's and the free's stacks"
ok "... at different call sites" test "$a" != "$b"

# A thread keeps its last two stacks (stacks.c): calls that alternate between two sites (an
# allocation and its free, 2,000 times here) take the right one each time.
LB=$B/bench/recorder/launchbench
if [ -x "$LB" ]; then
	run_in "$T/alt" env CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$LB" alloc 1 1000 2
	"$DUMP" "$(snap "$T/alt" exit)" >"$T/alt.dump"
	pairs=$(grep '^free ' "$T/alt.dump" | sed 's/.* stack=\([0-9]*\):.* free_stack=\([0-9]*\):.*/\1 \2/' | sort | uniq -c)
	diag "free ring (count, allocation stack, free stack): $pairs"
	allocs=$(printf '%s\n' "$pairs" | awk '{ print $2 }' | sort -u)
	frees=$(printf '%s\n' "$pairs" | awk '{ print $3 }' | sort -u)
	ok "alternating calls: the free ring holds them ($(printf '%s\n' "$pairs" | awk '{ n += $1 } END { print n }') frees)" \
		test -n "$allocs" -a -n "$frees"
	is "$(comm -12 <(printf '%s\n' "$allocs") <(printf '%s\n' "$frees") | wc -l)" 0 \
		"... no stack is taken for both an allocation and a free"
	like "$(printf '%s\n' "$allocs" "$frees" | sort -u | tr '\n' ' ')" '^[1-9]' "... and each has one"
else
	for i in 1 2 3; do skip "launchbench is not built"; done
fi

# Host modules follow dlopen/dlclose.
like "$(grep '^hostmod .*libnexta.so' "$T/mod.dump")" 'build_id_len=20 unloaded=1' \
	"a library loaded after CUDA started is in the module table, marked unloaded after dlclose"
done_testing
