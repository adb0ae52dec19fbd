#!/usr/bin/env bash
# A fault the program handles is not a crash (recorder/signals.c).  Programs whose own SIGSEGV,
# SIGBUS, SIGFPE, SIGILL or SIGABRT handler recovers (siglongjmp, or fixing the page and
# returning, as JITs and runtimes do) - installed before the recorder started or after - run
# exactly as without the recorder (same output, same exit status, their handler on the stack it
# asked for, with its siginfo) and get no signal snapshot and a record that says "exited".  A
# handler that gives up (resets the default and returns, or restores the old action and
# re-raises, as Python's faulthandler does) or returns from abort()'s SIGABRT still ends in a
# crash: same death, same core siginfo as without the recorder, and a signal snapshot.  The
# old actions sigaction and signal report are the ones the program would see without it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crashprobe
CP=$B/tests/recorder/crashprobe

# both NAME ARGS...: crashprobe ARGS without ($T/NAME.0) and with the recorder ($T/NAME.1,
# snapshots at a fatal signal and at exit); same exit status and output.  Sets rc0, rc1.
both() {
	local name=$1
	shift
	run_in "$T/$name.0" "$CP" "$@"
	rc0=$rc
	run_in "$T/$name.1" env CUDAINSPECT_SNAPSHOT=signal,exit LD_PRELOAD="$REC" "$CP" "$@"
	rc1=$rc
	is "$rc1 $(cat "$T/$name.1/out")" "$rc0 $(cat "$T/$name.0/out")" \
		"$name: exit status and output as without the recorder ($rc0)"
}
# header NAME REASON: the header line of the snapshot of REASON in $T/NAME.1.
header() { "$DUMP" "$(snap "$T/$1.1" "$2")" 2>/dev/null | grep '^header '; }
# sig_of CORE: si_signo, si_code and fault address of a core's NT_SIGINFO.
sig_of() { eu-readelf -n "$1" | awk '/si_signo/ {print $2, $6} /fault address/ {print $3}' | tr -d ',' | tr '\n' ' '; }

for sig in segv bus fpe ill abrt; do
	for when in before after; do
		n=recover-$sig-$when
		both "$n" recover "$sig" "$when"
		is "$(cat "$T/$n.0/out")" "crashprobe: recovered 3 $sig faults, on the alternate stack: yes, siginfo: yes" \
			"$n: the program's handler ran 3 times, on its alternate stack, with siginfo"
		ok "$n: no signal snapshot" test -z "$(snap "$T/$n.1" signal)"
		h=$(header "$n" exit)
		is "$(field state "$h") $(field fatal_signal "$h")" "2 0" "$n: the record says exited, no fatal signal"
	done
done

both fixup fixup
is "$(cat "$T/fixup.0/out")" "crashprobe: fixed up, read back 42" "fixup: the handler made the page writable and the write was done again"
ok "fixup: no signal snapshot" test -z "$(snap "$T/fixup.1" signal)"
is "$(field state "$(header fixup exit)")" 2 "fixup: the record says exited"

# Handlers that give up: a crash, as without the recorder.
for mode in giveup reraise; do
	for when in before after; do
		n=$mode-$when
		both "$n" "$mode" "$when"
		is "$rc0" 139 "$n: the program dies of SIGSEGV without the recorder"
		h=$(header "$n" signal)
		is "$(field state "$h") $(field fatal_signal "$h")" "3 11" "$n: signal snapshot, signaled by SIGSEGV"
		c0=$(core_in "$T/$n.0") c1=$(core_in "$T/$n.1")
		if [ -n "$c0" ] && [ -n "$c1" ] && command -v eu-readelf >/dev/null; then
			is "$(sig_of "$c1")" "$(sig_of "$c0")" "$n: the core's siginfo is the one without the recorder ($(sig_of "$c0"))"
		else
			skip "no cores to compare"
		fi
	done
done
is "$(field fatal_si_code "$(header giveup-after signal)") $(field fatal_addr "$(header giveup-after signal)")" "1 0x40" \
	"giveup: the fault noted is the original one (SEGV_MAPERR at 0x40)"
is "$(field fatal_addr "$(header reraise-after signal)")" 0x0 "reraise: a raised SIGSEGV has no fault address"

both aborthandler aborthandler
is "$rc0 $(cat "$T/aborthandler.0/out")" "134 crashprobe: abort handler ran" "aborthandler: abort() still kills after the handler returns"
is "$(field fatal_signal "$(header aborthandler signal)")" 6 "aborthandler: a signal snapshot noting SIGABRT"

# What sigaction and signal answer: the program's own actions, never the recorder's.
both query query
like "$(cat "$T/query.1/out")" "^sigaction\(SEGV\) replaced: default
sigaction\(SEGV\) now: on_query siginfo=1 restart=1 nodefer=1 resethand=0 usr2=1
signal\(BUS\) replaced: default
signal\(BUS\) replaced: on_query2
sigaction\(BUS\) now: ignore
sysv_signal\(FPE\) replaced: default
sigaction\(FPE\) now: on_query2 resethand=1 nodefer=1
signal\(ILL, SIG_ERR\): SIG_ERR
sigaction\(TRAP\) now: default
signal\(USR1\) replaced: default$" "query: each call answers with the program's own handlers and flags"

# CUDAINSPECT_SIGNALS=off: the recorder is not in the way at all.
run_in "$T/off" env CUDAINSPECT_SIGNALS=off CUDAINSPECT_SNAPSHOT=signal,exit LD_PRELOAD="$REC" "$CP" recover segv after
is "$rc $(cat "$T/off/out")" "0 $(cat "$T/recover-segv-after.0/out")" "CUDAINSPECT_SIGNALS=off: the program's handler runs as without the recorder"
done_testing
