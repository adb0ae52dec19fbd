#!/usr/bin/env bash
# `cudainspect record -d DIR` in directories other users can reach (corefile/cli/record.c).
#  - DIR and its missing parents are created 0700 whatever the umask.
#  - A DIR that is a symbolic link, belongs to someone else, or is writable by others without
#    the sticky bit is refused (exit 2, the program not run) with what to do.
#  - After a crash the child's snapshot is found by what the files say of themselves: planted
#    records claiming the child's pid and a higher write_generation - another user's file, a
#    hard link with a future mtime, a symbolic link, a FIFO, a copy of an earlier run's record -
#    are never reported; the real one is, without hanging.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder cudainspect tests/recorder/crashprobe tests/recorder/recpatch
[ "${CI_SANITIZE:-}" = address ] &&
	skip_all "record preloads the recorder; an ASan-built recorder cannot be preloaded into an uninstrumented program"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip_all "needs root and setpriv (files of another user)"
CI=$B/cudainspect
CP=$B/tests/recorder/crashprobe
PATCH=$B/tests/recorder/recpatch
chmod 711 "$T"

# --- the directory ------------------------------------------------------------------------------
for mask in 000 777; do
	(umask $mask && "$CI" record -q -d "$T/u$mask/a/b" -- true)
	is "$? $(stat -c '%a' "$T/u$mask/a" "$T/u$mask/a/b" | tr '\n' ' ')" "0 700 700 " \
		"umask $mask: the record directory and its new parent are created 0700"
done

refused() { # NAME DIR WHY-REGEX
	rm -f "$T/ran"
	"$CI" record -d "$2" -- touch "$T/ran" 2>"$T/$1.err"
	is "$? $([ -e "$T/ran" ] && echo ran || echo not-run)" "2 not-run" "$1: refused (exit 2), the program not run"
	like "$(cat "$T/$1.err")" "$3" "$1: says why and what to do"
}
mkdir -p "$T/real" && ln -s "$T/real" "$T/link"
refused "a symbolic link" "$T/link" "record directory $T/link is a symbolic link; give the directory itself"
mkdir -p "$T/theirs" && chown nobody "$T/theirs"
refused "another user's directory" "$T/theirs" "record directory $T/theirs belongs to uid $(id -u nobody), not to you .*give a directory of your own"
mkdir -p "$T/open" && chmod 777 "$T/open"
refused "a world-writable directory" "$T/open" "record directory $T/open can be written by other users \\(mode 0777, no sticky bit\\).*chmod go-w"
mkdir -p "$T/sticky" && chmod 1777 "$T/sticky"
"$CI" record -q -d "$T/sticky" -- sh -c 'exit 5'
is "$?" 5 "a sticky world-writable directory of ours is accepted (exit status passed through)"
mkdir -p "$T/opencwd" && chmod 777 "$T/opencwd"
(cd "$T/opencwd" && "$CI" record -- sh -c 'exit 4' 2>"$T/opencwd.err")
is "$?" 4 "no -d, a current directory others can write: the program still runs"
like "$(cat "$T/opencwd.err")" "note: the snapshot directory \\. can be written by other users" "... with a note that its snapshots will not be reported"

# --- the snapshot, by its header ----------------------------------------------------------------------
D=$T/snaps
mkdir -p "$D" "$T/run" "$T/elsewhere"
# An earlier run's snapshot of ours, to copy later.
(cd "$T/run" && "$CI" record -q -d "$T/earlier" -- "$CP" segv >/dev/null 2>&1)
earlier=$(ls "$T"/earlier/*-signal.cisnap)
ok "an earlier crash left its snapshot" test -s "$earlier"

(cd "$T/run" && exec timeout -k 5 60 "$CI" record -d "$D" --persistent -- "$CP" -p segv >"$T/rec.out" 2>"$T/rec.err")&
job=$!
wait_for 60 grep -q ready "$T/rec.out"
pid=$(sed -n 's/^crashprobe: ready //p' "$T/rec.out")
live=$(ls "$D"/*-"$pid"-*.cirec 2>/dev/null)
ok "the child waits, its persistent record in DIR" test -n "$pid" -a -s "$live"
# Forgeries of the child's own record, all claiming a later snapshot (write_generation 99).
forge() { cp "$live" "$1" && "$PATCH" "$1" origin=3 state=3 write_generation=99; }
forge "$D/cudainspect-evil-$pid-a-signal.cisnap" && chown nobody "$D/cudainspect-evil-$pid-a-signal.cisnap"
forge "$T/elsewhere/hl" && ln "$T/elsewhere/hl" "$D/cudainspect-hl-$pid-b-signal.cisnap" &&
	touch -d '+1 hour' "$D/cudainspect-hl-$pid-b-signal.cisnap"
forge "$T/elsewhere/ln" && ln -s "$T/elsewhere/ln" "$D/cudainspect-ln-$pid-c-signal.cisnap"
mkfifo "$D/cudainspect-fifo-$pid-d-signal.cisnap"
cp "$earlier" "$D/cudainspect-old-$pid-e-signal.cisnap" &&
	"$PATCH" "$D/cudainspect-old-$pid-e-signal.cisnap" pid="$pid" write_generation=99 &&
	touch -d '+1 hour' "$D/cudainspect-old-$pid-e-signal.cisnap"
kill -USR1 "$pid"
wait $job
rc=$?
is "$rc" 139 "the child's crash is reported as SIGSEGV (128+11), not a timeout"
real=$(ls "$D" | grep -E "^cudainspect-$NAME_HOST-$pid-$NAME_START-signal\\.cisnap$")
ok "the child's own signal snapshot is in DIR" test -n "$real"
like "$(cat "$T/rec.err")" "record snapshot: $D/$real$" "record reports the child's own snapshot, none of the five planted ones"
like "$(cat "$T/rec.out")" "Signal    SIGSEGV" "... and prints its summary"
done_testing
