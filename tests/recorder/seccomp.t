#!/usr/bin/env bash
# Under a seccomp filter (tests/recorder/seccompprobe.c: raw BPF, prctl(PR_SET_SECCOMP)) that
# kills or traps on the system calls a program need not make - memfd_create, renameat2, linkat,
# fallocate, rename, link, prctl(PR_GET_NAME) - the recorder changes nothing about how the
# program runs or dies: it makes none of those calls (common/safefile.h, ci_sf_restricted),
# yet still records: in shared anonymous memory (found in the core), into snapshots created in
# place, into a persistent file whose blocks it reserves by writing.  The same when the filter
# comes after the recorder started, and for another user.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/seccompprobe
SP=$B/tests/recorder/seccompprobe
CALLS=memfd_create,renameat2,linkat,fallocate,rename,link,prctl:16 # 16: PR_GET_NAME
want_out="seccompprobe: 2 launches"

for action in kill trap; do
	run_in "$T/$action-self" "$SP" "$action" "$CALLS" self prctl:16
	is "$rc" 159 "$action: the filter is real (the program's own prctl(PR_GET_NAME) ends it with SIGSYS)"
	run_in "$T/$action-0" "$SP" "$action" "$CALLS"
	is "$rc $(cat "$T/$action-0/out")" "0 $want_out" "$action: the program runs under the filter without the recorder"

	run_in "$T/$action-1" env CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_VERBOSE=1 LD_PRELOAD="$REC" "$SP" "$action" "$CALLS"
	is "$rc $(cat "$T/$action-1/out")" "0 $want_out" "$action: the same with the recorder"
	like "$(cat "$T/$action-1/err")" '^cudainspect: recording into shared anonymous memory ' "$action: recording, in shared anonymous memory"
	s=$(snap "$T/$action-1" exit)
	is "$("$DUMP" "$s" 2>/dev/null | grep -c '^launch ')" 2 "$action: the exit snapshot holds both launches"
	is "$(stat -c '%a %u' "$s")" "600 $(id -u)" "$action: ... mode 0600, ours"

	mkdir -p "$T/$action-p/rec"
	run_in "$T/$action-p" env CUDAINSPECT_DIR="$T/$action-p/rec" CUDAINSPECT_SNAPSHOT=none LD_PRELOAD="$REC" "$SP" "$action" "$CALLS"
	f=$(ls "$T/$action-p/rec"/*.cirec 2>/dev/null)
	is "$rc $("$DUMP" "$f" 2>/dev/null | grep -c '^launch ')" "0 2" "$action: persistent mode works (exit 0, both launches in the .cirec)"
	like "$(stat -c '%a %s' "$f")" "^600 $((32 << 20))$" "$action: ... a private file of the full size"

	run_in "$T/$action-segv0" "$SP" "$action" "$CALLS" segv
	rc0=$rc
	run_in "$T/$action-segv" env CUDAINSPECT_SNAPSHOT=signal LD_PRELOAD="$REC" "$SP" "$action" "$CALLS" segv
	is "$rc $rc0" "139 139" "$action: a crash under the filter: SIGSEGV, with the recorder as without"
	is "$(field fatal_signal "$("$DUMP" "$(snap "$T/$action-segv" signal)" 2>/dev/null | grep '^header ')")" 11 \
		"$action: ... with a signal snapshot written from the handler"

	run_in "$T/$action-after" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$SP" "$action" "$CALLS" after
	is "$rc $(cat "$T/$action-after/out")" "0 $want_out" "$action, filter installed after the recorder started: runs as without it"
	is "$("$DUMP" "$(snap "$T/$action-after" exit)" 2>/dev/null | grep -c '^launch ')" 2 "$action, filter after start: exit snapshot written"
done

# A filter that answers EPERM (getrandom too: names then come from the fallback generator).
run_in "$T/eperm" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$SP" eperm "$CALLS,getrandom"
is "$rc $(cat "$T/eperm/out")" "0 $want_out" "eperm: runs as without the recorder"
ok "eperm: exit snapshot written" test -n "$(snap "$T/eperm" exit)"

# The record of a process under the filter, in its core.
if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
	run_in "$T/core" env CUDAINSPECT_SNAPSHOT=none LD_PRELOAD="$REC" "$SP" kill "$CALLS" segv
	c=$(core_in "$T/core")
	like "$("$DUMP" "$c" 2>/dev/null | grep '^header ')" ' state=3 origin=1 .*fatal_signal=11 ' "the core holds the record (found without the memfd's name)"
else
	skip "kernel.core_pattern is not 'core'"
fi

# Another user: the recorder as nobody, under the filter.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/nobody" && chown nobody "$T/nobody"
	run_in "$T/nobody" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$SP" kill "$CALLS"
	s=$(snap "$T/nobody" exit)
	is "$rc $(cat "$T/nobody/out")" "0 $want_out" "as nobody: runs under the filter with the recorder"
	is "$(stat -c '%a %U' "$s" 2>/dev/null)" "600 nobody" "as nobody: the snapshot is nobody's, mode 0600"
else
	skip "needs root and setpriv"
	skip "needs root and setpriv"
fi
done_testing
