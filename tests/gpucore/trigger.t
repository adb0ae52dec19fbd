#!/usr/bin/env bash
# `cudainspect --pid PID --gpu-core-trigger` against a stand-in for the driver's pipe reader: a
# shell that, like the CUDA driver with CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1, has
# CUDA_COREDUMP_PIPE in its environment, makes the FIFO that template names (%h host, %p pid)
# and reads it.  The CLI must find the pipe from the process's environment and descriptors and
# write the 1 MiB the stand-in counts; without the variables, with no pipe held open, or without
# --pid it must refuse with the documented exit codes.
. "$(dirname "$0")/../lib/tap.sh"
CLI=$B/cudainspect
[ -x "$CLI" ] || skip_all "$CLI is not built"
plan 10

# A stand-in reader: makes the FIFO its environment's template names, says "ready", and counts
# what it reads (at most 2 MiB, for at most 30 s) into $T/got.
reader() {
	env "$@" bash -c '
		t=${CUDA_COREDUMP_PIPE:-corepipe.cuda.%h.%p}
		p=${t//%h/$(uname -n)}; p=${p//%p/$$}
		mkfifo "$p" || exit 1
		exec 3<>"$p"
		echo ready > "$0/ready"
		timeout 30 head -c 1048576 <&3 | wc -c > "$0/got"
		rm -f "$p"' "$T" &
	rpid=$!
	wait_for 10 test -s "$T/ready"
}

rm -f "$T/ready" "$T/got"
reader CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 CUDA_COREDUMP_PIPE="$T/corepipe.%h.%p"
"$CLI" --pid "$rpid" --gpu-core-trigger 2>"$T/err"; rc=$?
is "$rc" 0 "trigger: exit 0"
wait "$rpid"
is "$(cat "$T/got" 2>/dev/null | tr -d ' ')" 1048576 "the stand-in read 1 MiB from its pipe"
like "$(cat "$T/err")" "asked pid $rpid's CUDA driver for a GPU core dump \\(1 MiB written to $T/corepipe\\.[^ ]+\\.$rpid\\)" \
	"... and the CLI names the pipe it found"
like "$(cat "$T/err")" "writes it to core_%t_%h_%p.nvcudmp" "... and where the driver will write the dump (the default)"

# The documented default name, relative to the process's working directory.
rm -f "$T/ready" "$T/got"
cd "$T" && reader CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 CUDA_COREDUMP_FILE=/srv/dumps/gpu.%p && cd - >/dev/null
"$CLI" --pid "$rpid" --gpu-core-trigger 2>"$T/err"; rc=$?
wait "$rpid"
is "$rc $(cat "$T/got" 2>/dev/null | tr -d ' ')" "0 1048576" "the default corepipe.cuda.HOST.PID in its directory: 1 MiB"
like "$(cat "$T/err")" "writes it to /srv/dumps/gpu.%p" "... and the dump's name from its CUDA_COREDUMP_FILE"

# Refusals.
sleep 30 & s=$!
"$CLI" --pid "$s" --gpu-core-trigger 2>"$T/err"; rc=$?
is "$rc" 3 "a process without user-triggered dumps: exit 3"
like "$(cat "$T/err")" "user-triggered dumps are off \\(CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 is not in its environment" "... saying why"
kill "$s" 2>/dev/null
env CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 sleep 30 & s=$!
wait_for 5 grep -qa CUDA_ENABLE_USER_TRIGGERED_COREDUMP "/proc/$s/environ"
"$CLI" --pid "$s" --gpu-core-trigger 2>"$T/err"; rc=$?
like "$rc $(cat "$T/err")" "^3 .*user-triggered dumps on, but holds no pipe named like corepipe.cuda.%h.%p open" \
	"enabled but no pipe held open: exit 3, said so"
kill "$s" 2>/dev/null
"$CLI" --gpu-core-trigger 2>/dev/null; rc=$?
is "$rc" 2 "--gpu-core-trigger without --pid: usage error"
done_testing
