#!/usr/bin/env bash
# Configuration (docs/ENVIRONMENT.md): bad values turn recording off with one clear line on
# stderr and the program runs unchanged; CUDAINSPECT_QUIET silences it; CUDAINSPECT_DISABLE
# records nothing; a misspelt variable is named; sizes take effect; a process that never uses
# CUDA gets no record at all.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crashprobe
CP=$B/tests/recorder/crashprobe

# run NAME VAR=VALUE...: crashprobe ignore (exits 0) under the recorder with an exit snapshot.
run() {
	local name=$1
	shift
	run_in "$T/$name" env CUDAINSPECT_SNAPSHOT=exit "$@" LD_PRELOAD="$REC" "$CP" ignore
}

run plain
is "$rc $(cat "$T/plain/out")" "0 crashprobe: still running" "baseline: runs, records"
ok "baseline: exit snapshot written" test -n "$(snap "$T/plain" exit)"
like "$(cat "$T/plain/err")" '^cudainspect: flight record written to ' "baseline: says where the snapshot is"

run badsize CUDAINSPECT_SIZE=lots
is "$rc $(cat "$T/badsize/out")" "0 crashprobe: still running" "bad CUDAINSPECT_SIZE: the program runs unchanged"
is "$(cat "$T/badsize/err")" "cudainspect: CUDAINSPECT_SIZE='lots' is not a size (use bytes or a K/M/G/T suffix, e.g. 64M); recording disabled, CUDA calls pass through unchanged" \
	"bad CUDAINSPECT_SIZE: one line that says what is wrong and what happens"
ok "bad CUDAINSPECT_SIZE: nothing recorded" test -z "$(snap "$T/badsize" exit)"

run quiet CUDAINSPECT_SIZE=lots CUDAINSPECT_QUIET=1
is "$(cat "$T/quiet/err")" "" "CUDAINSPECT_QUIET=1: silent"

run disabled CUDAINSPECT_DISABLE=1
is "$rc $(cat "$T/disabled/err")" "0 " "CUDAINSPECT_DISABLE=1: runs, says nothing"
ok "CUDAINSPECT_DISABLE=1: nothing recorded" test -z "$(snap "$T/disabled" exit)"

run typo CUDAINSPECT_STACK=off
like "$(cat "$T/typo/err")" '^cudainspect: ignoring unknown variable CUDAINSPECT_STACK \(see docs/ENVIRONMENT.md\)' \
	"a misspelt variable is named"

run small CUDAINSPECT_SIZE=4M
like "$("$DUMP" "$(snap "$T/small" exit)" | grep '^header ')" ' size=4194304 ' "CUDAINSPECT_SIZE=4M: a 4 MiB record"

run verbose CUDAINSPECT_VERBOSE=1 CUDAINSPECT_SIZE=1M
like "$(cat "$T/verbose/err")" '^cudainspect: recording into /memfd:cudainspect-record \(1 MiB: 942 launches, [0-9]+ live allocations' \
	"CUDAINSPECT_VERBOSE=1: where and how much"

run driver CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1
like "$(cat "$T/driver/err")" '^cudainspect: cannot use CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1 \(cannot open shared object file: No such file or directory\); recording with the CUDA driver the program loaded instead$' \
	"CUDAINSPECT_DRIVER that does not open: said, the program's driver used"
is "$rc" 0 "... and the program runs"

# No CUDA at all: nothing happens.
out=$(LD_PRELOAD=$REC sh -c 'echo hello' 2>&1)
is "$out" "hello" "a process that never calls CUDA: no output, no record"
done_testing
