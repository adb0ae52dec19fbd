#!/usr/bin/env bash
# launchstorm: every launch that reaches the driver follows the launch-storm contract of
# docs/ENGINES.md (checked by launchspy from the parameters alone), per-thread counters have no
# gaps, each thread uses one stream, and --ptsz goes through cuLaunchKernel_ptsz.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/engine-lib.sh"
need_engines launchstorm
[ -e "$SPY" ] || skip_all "$SPY is not built (make check builds it)"

CUDASIM_MODE=null spy "" "$B/launchstorm" --threads 4 --launches 3000 >"$T/out" 2>"$T/err"
is "$?" 0 "4 threads x 3000 launches: exits 0"
like "$(cat "$T/err")" "^launchspy: storm=12000 bad=0 threads=4 gaps=0 legacy=12000 ptsz=0$" \
	"every launch consistent with its (thread, counter)"
like "$(cat "$T/out")" "^launchstorm: 4 threads, 12000 launches in [0-9.]+ s \([0-9]+ launches/s\), door direct$" \
	"summary"

CUDASIM_MODE=null spy "" "$B/launchstorm" --threads 3 --launches 1000 --ptsz --sync-every 0 2>"$T/err" >/dev/null
like "$(cat "$T/err")" "^launchspy: storm=3000 bad=0 threads=3 gaps=0 legacy=0 ptsz=3000$" \
	"--ptsz: consistent, all through cuLaunchKernel_ptsz"

# The asynchronous simulator (queued work, workers) with short kernels.
CUDASIM_KERNEL_US=1 spy "" "$B/launchstorm" --threads 2 --launches 500 --sync-every 50 2>"$T/err" >/dev/null
like "$(cat "$T/err")" "^launchspy: storm=1000 bad=0 threads=2 gaps=0 " "async simulator: consistent"

out=$(CUDASIM_MODE=null "$B/launchstorm" --threads 2 --launches 700 --bootstrap)
like "$out" "2 threads, 1400 launches .*door bootstrap$" "--bootstrap: runs through cuGetProcAddress"

start=$(date +%s)
out=$(CUDASIM_MODE=null timeout 20 "$B/launchstorm" --threads 2 --launches 0 --seconds 1)
is "$?" 0 "--seconds 1 with no launch limit: exits 0"
ok "--seconds 1 stops in time" test $(($(date +%s) - start)) -le 5

"$B/launchstorm" --launches 0 >/dev/null 2>&1
is "$?" 2 "--launches 0 without --seconds is a usage error"
done_testing
