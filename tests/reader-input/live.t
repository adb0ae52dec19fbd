#!/usr/bin/env bash
# Processes that are still running: a gdb gcore of one, the live pid itself (read-only), and
# the seqlock rule under fire: a writer thread republishes launch entries as fast as it can
# while the reader decodes again and again; every entry the reader accepts must be whole
# (the fixture derives each launch's fields from its seq).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$D/crasher" ] && [ -x "$D/cidecode" ] || skip_all "fixtures not built (make check builds them)"

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
# start NAME ARGS…: run the crasher in the background until it says "ready"; sets $pid, $record, $tids.
start() {
	local name=$1; shift
	dir=$T/$name; mkdir -p "$dir"
	( cd "$dir" && exec "$D/crasher" "$@" ) >"$dir/out" 2>&1 &
	PIDS+=($!)
	wait_for 60 grep -q '^ready' "$dir/out"
	pid=$(sed -n 's/^pid=//p' "$dir/out")
	record=$(sed -n 's/^record=//p' "$dir/out")
	tids=$(sed -n 's/^tid=\([0-9]*\).*/\1/p' "$dir/out" | tr '\n' ' ')
}

start hang --mode=memfd --crash=hang --threads=2
ok "crasher is waiting" test -n "$pid"
dec --pid "$pid"
is "$rc $(field source.kind) $(field source.live)" "0 pid 1" "live process opened read-only"
is "$(field location.method) $(field location.address)" "nt_file $record" "record found through /proc/PID/maps"
is "$(sec launches accepted) $(sec allocations accepted)" "10 5" "record decoded from the live process"
set -- $tids
like "$out" "thread $2 crashed=0 cursig=0 name=ci-worker-1 " "thread names from /proc (comm), not the record"
is "$(field source.threads)" 3 "all threads listed"
is "$(field source.executable)" "$D/crasher" "executable from /proc/PID/exe"
ok "the process is still running afterwards" kill -0 "$pid"

if command -v gdb >/dev/null; then
	gdb -nx -p "$pid" -batch -ex "gcore $T/gcore" >"$T/gdb.log" 2>&1
	dec "$T/gcore"
	is "$rc $(field source.kind)" "0 gcore" "gdb's gcore recognised"
	is "$(field source.signal)" 0 "gcore: the attach SIGSTOP is not a crash"
	unlike "$out" "crashed=1" "gcore: no crashed thread"
	is "$(field location.method) $(field location.address) $(sec launches accepted)" "nt_file $record 10" \
	   "record found in the gcore"
	is "$(field source.threads)" 3 "gcore threads"
else
	for i in 1 2 3 4 5; do skip "gdb not installed"; done
fi

start writer --mode=memfd --crash=writer --threads=0 --launch-cap=64 --launches=64
dec --pid "$pid" --verify --repeat=2000
is "$rc" 0 "decoding a record being written"
is "$(field verify.inconsistent)" 0 "no half-written launch accepted in 2000 decodes"
ok "launches were accepted ($(field verify.accepted)), torn ones rejected ($(field verify.torn))" \
   test "$(field verify.accepted)" -gt 0

start persistent --mode=persistent --crash=writer --threads=0 --launch-cap=64 --launches=64
dec --verify --repeat=2000 "$dir/cudainspect-synth-$pid.cirec"
is "$rc $(field source.live)" "0 1" "persistent file of a running process read as live"
is "$(field verify.inconsistent)" 0 "no half-written launch accepted from the shared file"

start reserve --mode=none --crash=hang --threads=0 --reserve=1024
dec --pid "$pid"
is "$rc" 4 "a live process with 1 TiB of untouched mappings and no record: exit 4 (quickly)"
like "$out" "1.0 TiB of mappings larger than 16 GiB were not searched page by page" "the unsearched mappings are named"

dec --pid 999999999
is "$rc" 3 "a pid that does not exist exits 3"
like "$out" "process 999999999 does not exist" "missing pid explained"
sleep 100 & PIDS+=($!)
dec --pid $!
is "$rc" 4 "a process without the recorder exits 4"
done_testing
