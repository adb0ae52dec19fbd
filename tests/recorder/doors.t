#!/usr/bin/env bash
# The three doors (docs/RECORDER.md, "How it sees every driver call"): exported symbols, the interposed dlsym, and
# cuGetProcAddress / cuGetProcAddress_v2.  With the recorder the driver's answers are unchanged
# (results, statuses, which versioned variant) and every pointer handed out is the recorder's
# wrapper of exactly that variant; stream semantics (legacy vs per-thread) are preserved; launches
# through every door land in the record with the stream the entry point implies; dlsym stays
# caller-relative for RTLD_NEXT and binds for dlsym@GLIBC_2.2.5.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/doorprobe tests/recorder/nextprobe miniengine

# --- cuGetProcAddress: same answers, swapped pointers --------------------------------------
"$PROBE" procaddr >"$T/plain" 2>&1
rec "$PROBE" procaddr >"$T/rec" 2>&1
is "$(sed 's/@recorder//g' "$T/rec")" "$(cat "$T/plain")" \
	"procaddr: same results, statuses and variants with and without the recorder"
ok "procaddr: without the recorder no pointer is the recorder's" sh -c "! grep -q @recorder '$T/plain'"
# Every non-null pointer is the recorder's wrapper, except cuGetExportTable, which passes through.
like "$(grep -v cuGetExportTable "$T/rec" | grep -E 'ptr=cu' | grep -vc @recorder)" '^0$' \
	"procaddr: every pointer handed out is a wrapper"
like "$(grep 'cuGetExportTable' "$T/rec")" 'ptr=cuGetExportTable$' "cuGetExportTable passes through"
like "$(cat "$T/rec")" 'v2 cuLaunchKernel 13000 2 -> result=0 status=0 ptr=cuLaunchKernel_ptsz@recorder' \
	"per-thread flag: the _ptsz wrapper"
like "$(cat "$T/rec")" 'v1 cuLaunchKernel 13000 1 -> result=0 ptr=cuLaunchKernel@recorder' \
	"legacy flag through the 11.3 ABI: the legacy wrapper"
like "$(cat "$T/rec")" 'v2 cuCtxCreate 11040 0 -> result=0 status=0 ptr=cuCtxCreate_v3@recorder' \
	"version 11.4: the _v3 ABI, not the newest"
like "$(cat "$T/rec")" 'v2 cuNoSuchEntryPoint 13000 0 -> result=0 status=1 ptr=null' \
	"unknown symbol: success, NULL, SYMBOL_NOT_FOUND"
like "$(cat "$T/rec")" 'second level cuMemFree -> result=0 ptr=cuMemFree_v2@recorder' \
	"cuGetProcAddress obtained through cuGetProcAddress is the hook too"

# --- dlsym ----------------------------------------------------------------------------------
like "$(rec "$PROBE" oldsym)" 'dlsym@GLIBC_2.2.5 cuLaunchKernel_ptsz -> cuLaunchKernel_ptsz@recorder' \
	"dlsym@GLIBC_2.2.5 (cudart's reference) reaches the interposed dlsym"
is "$(rec "$B/tests/recorder/nextprobe")" "next probe -> 11" \
	"dlsym(RTLD_NEXT) from a library still finds the definition after that library"

# --- stream semantics -------------------------------------------------------------------------
CUDASIM_KERNEL_US=1000 "$PROBE" streams >"$T/plain" 2>&1
CUDASIM_KERNEL_US=1000 rec "$PROBE" streams >"$T/rec" 2>&1
like "$(cat "$T/rec")" 'entry point: cuLaunchKernel_ptsz@recorder' "streams: launches go through the wrappers"
is "$(grep stream "$T/rec")" "$(printf '%s\n' 'per-thread default stream: ran' \
	'legacy default stream: blocked' 'legacy default stream after release: ran')" \
	"legacy NULL stream waits for a blocked stream, the per-thread one does not (CUDA semantics)"
is "$(grep stream "$T/rec")" "$(grep stream "$T/plain")" "streams: same behaviour without the recorder"

# --- launches through each door ---------------------------------------------------------------
run_in "$T/launch" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_CRUMB_EVERY=1 LD_PRELOAD="$REC" "$PROBE" launch
is "$rc" 0 "launch probe exits 0 under the recorder"
"$DUMP" "$(snap "$T/launch" exit)" >"$T/launch/dump"
launch_of() { grep "^launch .*params=0$1" "$T/launch/dump"; }
stream_kind() { grep "^stream slot=$(field stream "$1") " "$T/launch/dump" | sed 's/.* kind=\([a-z_]*\).*/\1/'; }
for door in a b c d e; do
	ok "door $door: its launch is recorded" test -n "$(launch_of $door)"
done
l=$(launch_of a)
is "$(stream_kind "$l") $(field flags "$l")" "legacy 0x2" "exported cuLaunchKernel, NULL: legacy stream, breadcrumb, no PTSZ"
l=$(launch_of b)
is "$(stream_kind "$l") $(field flags "$l")" "per_thread 0x3" "dlsym cuLaunchKernel_ptsz, NULL: per-thread stream, PTSZ"
l=$(launch_of c)
is "$(stream_kind "$l") $(field flags "$l")" "created 0x3" "cuGetProcAddress_v2 per-thread, created stream"
l=$(launch_of e)
is "$(stream_kind "$l")" "per_thread" "cuGetProcAddress_v2 per-thread, NULL: per-thread stream"
l=$(launch_of d)
is "$(stream_kind "$l") $(field flags "$l")" "legacy 0x2" "cuGetProcAddress (11.3 ABI) legacy flag, NULL: legacy stream"
is "$(field fn "$(launch_of c)") $(field grid "$(launch_of c)")" "probe_k 12,1,1" "function name and grid recorded"
is "$(field params "$(launch_of c)")" "0c000000000000002400000000000000f3ffffffffffffff" \
	"parameters packed at the offsets cuFuncGetParamInfo gives (u64, u32 at 8, u64 at 16)"

# --- the engine's doors ------------------------------------------------------------------------
for mode in "" "--ptsz" "--bootstrap" "--bootstrap --ptsz"; do
	dir="$T/engine$(echo "$mode" | tr -d ' -')"
	# shellcheck disable=SC2086
	run_in "$dir" env CUDAINSPECT_SNAPSHOT=exit CUDASIM_KERNEL_US=20 LD_PRELOAD="$REC" \
		"$B/miniengine" --steps 2 $mode
	is "$rc" 0 "miniengine ${mode:-(direct)}: exits 0 under the recorder"
	"$DUMP" "$(snap "$dir" exit)" >"$dir/dump"
	# The engine counts its own launches ("..., N launches, door ...").
	want=$(sed -n 's/.* \([0-9][0-9]*\) launches.*/\1/p' "$dir/out")
	is "$(count '^launch ' "$dir/dump")" "${want:-?}" "miniengine ${mode:-(direct)}: every launch recorded"
	pt=$(grep -E '^launch ' "$dir/dump" | awk '{print $0}' | grep -c 'flags=0x[0-9a-f]*[13579bdf] ' || true)
	case $mode in
	*ptsz*) ok "miniengine $mode: launches came through _ptsz entry points ($pt)" test "$pt" -gt 0 ;;
	*) is "$pt" 0 "miniengine ${mode:-(direct)}: no launch through a _ptsz entry point" ;;
	esac
done
done_testing
