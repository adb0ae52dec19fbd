#!/usr/bin/env bash
# Getting the record out of a dying process, without changing how it dies.
#  - A real kernel core (ulimit -c unlimited) of a crashed engine contains the record: NT_FILE
#    names the memfd "/memfd:cudainspect-record (deleted)", and the core's bytes at that address
#    start with the magic and give the mapping's size (read with eu-readelf and od, not with the
#    reader).
#  - A hardware fault and abort() still kill the process with the same signal, core and siginfo
#    (si_code, fault address) as without the recorder; a signal snapshot is written first with
#    the signal in its header.
#  - A handler the program installed before CUDA started still runs; an ignored signal stays
#    ignored.
#  - fork: the child gets its own record (FORKED_CHILD, its parent as ppid); the parent's record
#    gets a fork event and none of the child's calls.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder miniengine tests/recorder/crashprobe
command -v eu-readelf >/dev/null || skip_all "eu-readelf (elfutils) is not installed"
CP=$B/tests/recorder/crashprobe

# --- the record in a kernel core -------------------------------------------------------------
run_in "$T/core" env CUDAINSPECT_SNAPSHOT=none CUDASIM_KERNEL_US=20 LD_PRELOAD="$REC" \
	"$B/miniengine" --steps 4 --fault oob
core=$(core_in "$T/core")
is "$rc" 134 "miniengine --fault oob: killed by SIGABRT under the recorder"
if [ -z "$core" ]; then
	skip "no core dump written (kernel.core_pattern is '$(cat /proc/sys/kernel/core_pattern)')"
else
	line=$(eu-readelf -n "$core" | grep '/memfd:cudainspect-record (deleted)')
	ok "NT_FILE names the memfd /memfd:cudainspect-record (deleted)" test -n "$line"
	start=$(awk '{split($1, a, "-"); print a[1]}' <<<"$line")
	size=$(awk '{print $3}' <<<"$line")
	# The PT_LOAD holding that address, with its file offset: read the first 24 bytes there.
	off=
	while read -r type poff vaddr _ fsize _; do
		[ "$type" = LOAD ] || continue
		if [ $((16#$start)) -ge $((vaddr)) ] && [ $((16#$start)) -lt $((vaddr + fsize)) ]; then
			off=$((poff + 16#$start - vaddr))
		fi
	done < <(eu-readelf -l "$core")
	ok "the mapping's contents are in the core (a PT_LOAD with file bytes covers it)" test -n "$off"
	magic=$(dd if="$core" bs=1 skip="${off:-0}" count=8 2>/dev/null)
	is "$magic" "CUDAINSP" "the record starts with the magic"
	rsize=$(od -An -tu8 -j$((${off:-0} + 16)) -N8 "$core" | tr -d ' ')
	is "$rsize" "$size" "header record_size equals the mapping's size ($size)"
	like "$("$DUMP" "$core" | grep '^header ')" 'state=3 origin=1 .*fatal_signal=6 ' \
		"decoded from the core: signaled by SIGABRT, found in memory (origin memfd)"
fi

# --- hardware fault: same death, same siginfo ---------------------------------------------------
sig_of() { eu-readelf -n "$1" | awk '/si_signo/ {print $2, $6} /fault address/ {print $3}' | tr -d ',' | tr '\n' ' '; }
run_in "$T/segv0" "$CP" segv
prc=$rc
pcore=$(core_in "$T/segv0")
run_in "$T/segv" env LD_PRELOAD="$REC" "$CP" segv
is "$rc" "$prc" "SIGSEGV: same exit status as without the recorder ($prc)"
rcore=$(core_in "$T/segv")
if [ -n "$pcore" ] && [ -n "$rcore" ]; then
	is "$(sig_of "$rcore")" "$(sig_of "$pcore")" "SIGSEGV: the core's siginfo is the original fault ($(sig_of "$pcore"))"
else
	skip "no core dumps to compare"
fi
s=$(snap "$T/segv" signal)
ok "signal snapshot written before dying" test -s "$s"
like "$(cat "$T/segv/err")" "^cudainspect: flight record written to ./cudainspect-.*-signal.cisnap" "... and said where"
h=$("$DUMP" "$s" | grep '^header ')
is "$(field state "$h") $(field reason "$h") $(field fatal_signal "$h") $(field fatal_si_code "$h") $(field fatal_addr "$h")" \
	"3 1 11 1 0x40" "snapshot header: signaled, reason signal, SIGSEGV, SEGV_MAPERR, address 0x40"
is "$(field fatal_tid "$h")" "$(field pid "$h")" "the main thread received it"

run_in "$T/abort0" "$CP" abort
prc=$rc
run_in "$T/abort" env LD_PRELOAD="$REC" "$CP" abort
is "$rc" "$prc" "abort(): same exit status as without the recorder ($prc)"
ok "abort(): a core, as without the recorder" test -n "$(core_in "$T/abort")" -o -z "$(core_in "$T/abort0")"
like "$("$DUMP" "$(snap "$T/abort" signal)" | grep '^header ')" 'fatal_signal=6 ' "abort(): snapshot says SIGABRT"

# --- the program's own handlers --------------------------------------------------------------
run_in "$T/handler" env LD_PRELOAD="$REC" "$CP" handler
is "$rc $(cat "$T/handler/out")" "42 crashprobe: own handler ran" "a SIGSEGV handler installed before CUDA still runs (exit 42)"
run_in "$T/ignore" env LD_PRELOAD="$REC" "$CP" ignore
is "$rc $(cat "$T/ignore/out")" "0 crashprobe: still running" "an ignored SIGTRAP stays ignored"

run_in "$T/nosnap" env CUDAINSPECT_SNAPSHOT=none LD_PRELOAD="$REC" "$CP" segv
ok "CUDAINSPECT_SNAPSHOT=none: no snapshot file" test -z "$(ls "$T"/nosnap/*.cisnap 2>/dev/null)"
run_in "$T/nosig" env CUDAINSPECT_SIGNALS=off LD_PRELOAD="$REC" "$CP" segv
ok "CUDAINSPECT_SIGNALS=off: no handler, no snapshot" test -z "$(ls "$T"/nosig/*.cisnap 2>/dev/null)"
mkdir -p "$T/sdir/snaps"
run_in "$T/sdir" env CUDAINSPECT_SNAPSHOT_DIR="$T/sdir/snaps" LD_PRELOAD="$REC" "$CP" segv
ok "CUDAINSPECT_SNAPSHOT_DIR: the snapshot goes there" test -n "$(ls "$T"/sdir/snaps/*-signal.cisnap 2>/dev/null)"
run_in "$T/baddir" env CUDAINSPECT_SNAPSHOT_DIR="$T/missing" LD_PRELOAD="$REC" "$CP" segv
like "$(head -1 "$T/baddir/err")" "^cudainspect: snapshots cannot be written to $T/missing \\(No such file or directory\\)" \
	"a snapshot directory that does not exist: said at start, not only at the crash"

# --- fork -----------------------------------------------------------------------------------
run_in "$T/fork" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$CP" fork
child=$(sed -n 's/crashprobe: child \([0-9]*\) exited 3/\1/p' "$T/fork/out")
ok "fork: the child ran and exited 3" test -n "$child"
child_snap=$(snap_of "$T/fork" "$child" exit)
parent_snap=$(ls "$T"/fork/*.cisnap | grep -vxF -- "$child_snap")
"$DUMP" "$parent_snap" >"$T/parent.dump"
"$DUMP" "$child_snap" >"$T/child.dump"
hp=$(grep '^header ' "$T/parent.dump")
hc=$(grep '^header ' "$T/child.dump")
is "$(field pid "$hc") $(field ppid "$hc")" "$child $(field pid "$hp")" "child's record: its own pid, the parent as ppid"
like "$hc" 'flags=0x[0-9a-f]*[89a-f] ' "child's record: flag FORKED_CHILD"
child_result=$(sed -n "s/crashprobe: child's launch -> //p" "$T/fork/out")
like "$(grep '^launch ' "$T/child.dump")" "result=$child_result " "child's record: the child's launch, with the driver's answer ($child_result)"
is "$(grep -c '^launch ' "$T/child.dump")" 1 "child's record: nothing of the parent's"
is "$(grep '^launch ' "$T/parent.dump" | sed 's/.*params=\([0-9a-f]*\).*/\1/' | tr '\n' ' ')" \
	"1100000000000000 3300000000000000 " "parent's record: only the parent's launches"
like "$(grep 'kind=fork' "$T/parent.dump")" "value=$child " "parent's record: a fork event naming the child"
done_testing
