#!/usr/bin/env bash
# Launch storms: 16 threads launching as fast as they can on their own streams (build/launchstorm,
# testcases/engine/storm.h), under a ThreadSanitizer build of the recorder, and unsanitized on
# the asynchronous simulator; every recorded launch must match the storm contract (its grid,
# block, shared memory and parameters all follow from its own (thread, counter)), and none may
# be missing.  Threads sharing streams (shareprobe): every launch on a stream gets its own
# number, 1..N, none repeated or lost, also once a second thread joins a stream its first thread
# numbers without a locked add (recorder/launch.c).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder launchstorm tests/recorder/tsan/libcudainspect-rec.so tests/recorder/shareprobe
SHARE=$B/tests/recorder/shareprobe

# numbers DUMP SLOT: "COUNT ok" when the launches recorded on stream SLOT are numbered 1..COUNT.
numbers() {
	grep '^launch ' "$1" | grep " stream=$2 " | sed 's/.* sseq=\([0-9]*\) .*/\1/' | sort -n |
		awk 'BEGIN { ok = "ok" } $1 != NR { ok = "bad" } END { print NR, ok }'
}
# shared_streams DUMP WHAT: the created and the legacy stream of shareprobe, 8 x 2000 launches.
shared_streams() {
	local created legacy
	created=$(sed -n 's/^stream slot=\([0-9]*\) .*kind=created .*/\1/p' "$1")
	legacy=$(sed -n 's/^stream slot=\([0-9]*\) .*kind=legacy .*/\1/p' "$1")
	is "$(numbers "$1" "$created") $(numbers "$1" "$legacy")" "8000 ok 8000 ok" \
		"$2: 8 threads on a shared created stream and the legacy stream, launches numbered 1..8000 on each"
	is "$(grep -c '^stream .* launches=8000 ' "$1")" 2 "$2: each stream counted 8000 launches"
}

TSAN_RT=$(${CC:-gcc} -print-file-name=libtsan.so 2>/dev/null)
if [ "${CI_SANITIZE:-}" = address ]; then
	for i in 1 2 3 4 5 6; do skip "ThreadSanitizer cannot run in the ASan-built launchstorm (make check runs it)"; done
elif [ -e "$TSAN_RT" ]; then
	run_in "$T/tsan" env CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=exit \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" \
		LD_PRELOAD="$TSAN_RT $B/tests/recorder/tsan/libcudainspect-rec.so" \
		"$B/launchstorm" --threads 16 --launches 1000 --quiet
	is "$rc" 0 "16-thread storm under ThreadSanitizer: exits 0"
	ok "no ThreadSanitizer report" sh -c "! grep -q ThreadSanitizer '$T/tsan/err'"
	[ "$rc" = 0 ] || diag "$(head -30 "$T/tsan/err")"
	is "$("$DUMP" --storm "$(snap "$T/tsan" exit)" | tail -1)" "storm ok=16000 bad=0 other=0 torn=0 invalid=0 state=2" \
		"every one of the 16000 launches recorded, each consistent with its own counter"
	run_in "$T/tsan-share" env CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=exit \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0" \
		LD_PRELOAD="$TSAN_RT $B/tests/recorder/tsan/libcudainspect-rec.so" "$SHARE" 8 2000
	is "$rc" 0 "shared streams under ThreadSanitizer: exits 0, no report"
	[ "$rc" = 0 ] || diag "$(head -30 "$T/tsan-share/err")"
	"$DUMP" "$(snap "$T/tsan-share" exit)" >"$T/tsan-share.dump"
	shared_streams "$T/tsan-share.dump" "ThreadSanitizer"
else
	for i in 1 2 3 4 5 6; do skip "no ThreadSanitizer runtime ($TSAN_RT)"; done
fi

run_in "$T/async" env CUDASIM_KERNEL_US=1 CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_CRUMB_EVERY=1 \
	LD_PRELOAD="$REC" "$B/launchstorm" --threads 16 --launches 500 --sync-every 100 --quiet
is "$rc" 0 "16-thread storm on the asynchronous simulator: exits 0"
"$DUMP" "$(snap "$T/async" exit)" >"$T/async.dump"
is "$("$DUMP" --storm "$(snap "$T/async" exit)" | tail -1)" "storm ok=8000 bad=0 other=0 torn=0 invalid=0 state=2" \
	"all 8000 launches recorded and consistent"
# Each thread's stream: 500 launches, all finished (the storm synchronizes at the end), so with a
# breadcrumb after every launch the GPU's last breadcrumb on every stream is 500.
is "$(grep '^stream .*kind=created' "$T/async.dump" | grep -c ' launches=500 crumb_enqueued=500 .* crumb=500 ')" 16 \
	"16 streams, each with 500 launches and its last breadcrumb 500"

run_in "$T/ptsz" env CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" \
	"$B/launchstorm" --threads 8 --launches 1000 --ptsz --quiet
"$DUMP" "$(snap "$T/ptsz" exit)" >"$T/ptsz.dump"
is "$(grep -c '^stream .*kind=per_thread .* launches=1000 ' "$T/ptsz.dump")" 8 \
	"--ptsz: one per-thread default stream per thread, 1000 launches each"
run_in "$T/share" env CUDASIM_MODE=null CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$SHARE" 8 2000
is "$rc" 0 "shared streams: shareprobe exits 0"
"$DUMP" "$(snap "$T/share" exit)" >"$T/share.dump"
shared_streams "$T/share.dump" "recorder"
done_testing
