#!/usr/bin/env bash
# miniengine --fault KIND on the simulated driver: each kind aborts (SIGABRT) with the CUDA error
# line real engines print and leaves a core; the launch that the engine planted is the one the
# simulated driver faults (checked through launchspy, which logs what reached the driver: the
# N-th paged_attention launch, N from docs/ENGINES.md's formula, carries the planted pointer);
# crossthread's error surfaces on another thread than the launching one; a fault that does not
# surface gives exit status 3.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines miniengine
[ -e "$SPY" ] || skip_all "$SPY is not built (make check builds it)"

ILLEGAL='^testcases/engine/miniengine\.c:[0-9]+: CUDA error: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered$'

# nth KIND THREADS STREAMS LAYERS STEPS: which paged_attention launch the fault hits (ENGINES.md):
# step F = steps/2 of worker 0, stream 0, layer L-1 (oob, crossthread) or 0 (uaf, multistream).
nth() {
	local layer=0
	case $1 in oob | crossthread) layer=$(($4 - 1)) ;; esac
	echo $(($5 / 2 * $2 * $3 * $4 + layer + 1))
}

# field N of the spy log line of paged_attention launch ORDINAL (fields: launch NAME ORDINAL
# ENTRY TID STREAM PARAMS); param I (0-based) of that line.
spy_line() { grep "^launch paged_attention $2 " "$1"; }
spy_param() { spy_line "$1" "$2" | awk '{print $7}' | cut -d, -f$(($3 + 1)); }

# 1 when hex address A lies inside any allocation logged in LOG, else 0.
inside_alloc() { # log addr
	local a=$((0x$2)) kind addr size rest found=0
	while read -r kind addr size rest; do
		[ "$kind" = alloc ] && [ $a -ge $((0x$addr)) ] && [ $a -lt $((0x$addr + size)) ] && found=1
	done <"$1"
	echo $found
}

check_core() { # dir label
	if asan; then
		skip "$2: core dump (ASan disables core dumps)"
	else
		ok "$2: left a core dump" test -s "$(core_in "$1")"
	fi
}

for kind in oob uaf multistream crossthread; do
	d=$T/$kind
	mkdir -p "$d"
	run_in "$d" env LAUNCHSPY_LOG="$d/spy.log" LD_PRELOAD="$SPY" \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		"$B/miniengine" --fault $kind --verbose
	err=$(cat "$d/err")
	is "$rc" 134 "$kind: aborts with SIGABRT"
	like "$err" "$ILLEGAL" "$kind: prints the CUDA_ERROR_ILLEGAL_ADDRESS line"
	n=$(nth $kind 2 2 2 8)
	like "$err" "CUDASIM_FAULT=paged_attention@$n\$" "$kind: tells the simulator to fault paged_attention #$n"
	isnt "$(spy_line "$d/spy.log" "$n")" "" "$kind: paged_attention #$n reached the driver"
	check_core "$d" "$kind"
done

# The planted pointers, seen by the driver in exactly that launch.
for kind in oob multistream crossthread; do
	log=$T/$kind/spy.log
	n=$(nth $kind 2 2 2 8)
	k_cache=$(spy_param "$log" "$n" 2)
	kv_end=$(awk '$1 == "alloc" && $3 % 2097152 == 0 && $3 <= 2097152 * 4 { print $2, $3 }' "$log" |
		while read -r a s; do hexadd "$a" "$s"; echo; done | head -1)
	is "$k_cache" "$(hexadd "$kv_end" 256)" "$kind: launch #$n's k_cache is 256 bytes past the end of the KV cache"
	is "$(inside_alloc "$log" "$k_cache")" 0 "$kind: no allocation contains that k_cache"
	prev=$(spy_param "$log" $((n - 1)) 2)
	is "$(inside_alloc "$log" "$prev")" 1 "$kind: the launch before it had a valid k_cache"
done
log=$T/uaf/spy.log
n=$(nth uaf 2 2 2 8)
lse=$(spy_param "$log" "$n" 5)
freed=$(awk '$1 == "free" { print $2; exit }' "$log")
is "$lse" "$freed" "uaf: launch #$n's lse is the freed workspace"
free_line=$(grep -n "^free $freed " "$log" | cut -d: -f1)
launch_line=$(grep -n "^launch paged_attention $n " "$log" | cut -d: -f1)
ok "uaf: the free reached the driver before the launch" test "$free_line" -lt "$launch_line"

# multistream: the other stream of worker 0 had a step's work queued behind the fault.
log=$T/multistream/spy.log
n=$(nth multistream 2 2 2 8)
read -r tid stream <<<"$(spy_line "$log" "$n" | awk '{print $5, $6}')"
after=$(awk -v n="$n" -v tid="$tid" -v s="$stream" '
	$1 == "launch" && $2 == "paged_attention" && $3 == n { on = 1; next }
	on && $1 == "launch" && $5 == tid && $6 != s { c++ } END { print c + 0 }' "$log")
is "$after" 22 "multistream: worker 0 queued a whole step (22 launches) on its other stream after the fault"

# crossthread: launched by worker 0, observed by worker 1.
err=$(cat "$T/crossthread/err")
launcher=$(spy_line "$T/crossthread/spy.log" "$(nth crossthread 2 2 2 8)" | awk '{print $5}')
observer=$(sed -n 's/^miniengine: failed call .* on thread \([0-9]*\) .*/\1/p' <<<"$err")
worker1=$(sed -n 's/^miniengine: thread 1 is tid \([0-9]*\) .*/\1/p' <<<"$err")
like "$launcher" '^[0-9]+$' "crossthread: the spy saw the launching thread"
is "$(wc -l <<<"$observer")" 1 "crossthread: exactly one thread observed the error"
isnt "$observer" "$launcher" "crossthread: the observing thread is not the launching one"
is "$observer" "$worker1" "crossthread: worker 1 observed it"
like "$err" "failed call drv.EventSynchronize" "crossthread: observed in an event synchronization"

# A larger shape and the other doors give the same determinism.
d=$T/oob-big
run_in "$d" env LAUNCHSPY_LOG="$d/spy.log" LD_PRELOAD="$SPY" \
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	"$B/miniengine" --fault oob --threads 3 --streams 3 --layers 4 --steps 10 --verbose
n=$(nth oob 3 3 4 10)
is "$n" 184 "oob 3x3, 4 layers, 10 steps: the formula gives launch #184"
like "$(cat "$d/err")" "CUDASIM_FAULT=paged_attention@184\$" "oob 3x3: the engine computes the same"
is "$(inside_alloc "$d/spy.log" "$(spy_param "$d/spy.log" 184 2)")" 0 "oob 3x3: launch #184 has the planted k_cache"
for mode in --ptsz --bootstrap; do
	run_in "$T/oob$mode" "$B/miniengine" --fault oob $mode
	is "$rc" 134 "oob $mode: aborts"
	like "$(cat "$T/oob$mode/err")" "$ILLEGAL" "oob $mode: CUDA_ERROR_ILLEGAL_ADDRESS line"
done

# badlaunch: an API error, no device fault, nothing told to the simulator.
d=$T/badlaunch
run_in "$d" "$B/miniengine" --fault badlaunch --verbose
is "$rc" 134 "badlaunch: aborts with SIGABRT"
like "$(cat "$d/err")" '^testcases/engine/miniengine\.c:[0-9]+: CUDA error: CUDA_ERROR_INVALID_VALUE: ' \
	"badlaunch: prints the CUDA_ERROR_INVALID_VALUE line"
unlike "$(cat "$d/err")" "CUDASIM_FAULT" "badlaunch: sets no CUDASIM_FAULT"
check_core "$d" badlaunch

# The user's CUDASIM_FAULT wins; then the planted fault does not surface: exit 3.
d=$T/not-surfaced
run_in "$d" env CUDASIM_FAULT=noop@1 "$B/miniengine" --fault oob --verbose
is "$rc" 3 "a planted fault that does not surface: exit 3"
like "$(cat "$d/err")" "CUDASIM_FAULT=noop@1 \(already set; left alone\)" "an existing CUDASIM_FAULT is left alone"
like "$(cat "$d/err")" "did not surface" "exit 3 says the planted fault did not surface"
done_testing
