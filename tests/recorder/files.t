#!/usr/bin/env bash
# The files the recorder writes (common/safefile.c): snapshots and the persistent record, in a
# directory other users can write to (mode 1777, like /tmp), with names planted by another user
# (nobody) - symbolic links to a victim file, FIFOs, world-writable files, a hundred names -
# both at every name the previous recorder would have used for the pid (planted before the
# program starts) and at the names this one will use (learned from the persistent file while
# the program waits, as an attacker who lists the directory would).  Properties: the victim is
# unchanged (checksum), every planted entry is unchanged, nothing hangs (timeout), recording is
# never disabled, and every file written is a new regular file, mode 0600 whatever the umask,
# of the recording user, with one link.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/crashprobe
CP=$B/tests/recorder/crashprobe
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip_all "needs root and setpriv (to plant as another user)"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
chmod 711 "$T" # nobody may pass through to the directories below

# The victim: another user's private file.
mkdir -p "$T/home" && chmod 755 "$T/home"
printf 'secret of nobody\n' >"$T/home/victim"
chown nobody "$T/home/victim" && chmod 600 "$T/home/victim"
VSUM=$(cksum <"$T/home/victim")
victim_ok() { is "$(cksum <"$T/home/victim") $(stat -c '%a %U' "$T/home/victim")" "$VSUM 600 nobody" "$1: the victim file is unchanged"; }

shared() { mkdir -p "$1" && chmod 1777 "$1"; }
# private_file NAME FILE: FILE is a regular file of ours, mode 0600, one link, and decodes.
private_file() {
	is "$(stat -c '%F %a %u %h' "$2" 2>/dev/null)" "regular file 600 $(id -u) 1" "$1: $(basename "$2"): regular, 0600, ours, one link"
	ok "$1: ... and it decodes" sh -c "'$DUMP' '$2' | grep -q '^header '"
}

# --- names the previous recorder used, planted before the program starts ----------------------
# plant-exec.sh WHAT DIR CMD...: plants (as nobody) for its own pid, then becomes CMD.
#  persistent: 100 persistent names (cudainspect-HOST-PID[-N].cirec) as links to the victim;
#  links:      links to the victim at the temporary snapshot names (NAME.cisnap.tmp);
#  fifo:       a FIFO at the signal snapshot's temporary name.
cat >"$T/plant-exec.sh" <<'EOF'
#!/bin/sh
what=$1 dir=$2 pid=$$
shift 2
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c '
	what=$1 dir=$2 victim=$3 pid=$4 host=$(hostname)
	case $what in
	persistent)
		ln -s "$victim" "$dir/cudainspect-$host-$pid.cirec"
		i=1; while [ $i -le 99 ]; do ln -s "$victim" "$dir/cudainspect-$host-$pid-$i.cirec"; i=$((i + 1)); done ;;
	links)
		for r in exit signal error; do ln -s "$victim" "$dir/cudainspect-$host-$pid-$r.cisnap.tmp"; done ;;
	fifo)
		mkfifo "$dir/cudainspect-$host-$pid-signal.cisnap.tmp" ;;
	esac' plant "$what" "$dir" "$VICTIM" "$pid"
exec "$@"
EOF
chmod 755 "$T/plant-exec.sh"
export VICTIM=$T/home/victim
shared "$T/old"
run_in "$T/old-run" "$T/plant-exec.sh" persistent "$T/old" \
	env CUDAINSPECT_DIR="$T/old" CUDAINSPECT_SNAPSHOT=none LD_PRELOAD="$REC" "$CP" exit
is "$rc" 0 "100 old persistent names planted: the program runs to its end"
victim_ok "100 old persistent names planted"
is "$(find "$T/old" -maxdepth 1 -type l -lname "$VICTIM" | wc -l)" 100 "... all 100 links are still there, unchanged"
f=$(find "$T/old" -maxdepth 1 -type f -name '*.cirec')
like "$(basename "$f")" "^cudainspect-$NAME_HOST-[0-9]+-$NAME_START\\.cirec$" "... still recording persistently, under the new name"
private_file "100 old persistent names planted" "$f"

shared "$T/oldsnap"
run_in "$T/oldsnap" "$T/plant-exec.sh" links "$T/oldsnap" \
	env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$CP" exit
victim_ok "links at the old temporary snapshot names"
is "$(find "$T/oldsnap" -maxdepth 1 -type l -lname "$VICTIM" | wc -l)" 3 "... the links are still there"
private_file "links at the old temporary snapshot names" "$(snap "$T/oldsnap" exit)"

shared "$T/oldfifo"
run_in "$T/oldfifo" "$T/plant-exec.sh" fifo "$T/oldfifo" \
	env CUDAINSPECT_SNAPSHOT=signal LD_PRELOAD="$REC" "$CP" segv
is "$rc" 139 "FIFO at the old temporary signal snapshot name: the crash is not held up (SIGSEGV, not a timeout)"
private_file "FIFO at the old temporary signal snapshot name" "$(snap "$T/oldfifo" signal)"

# --- the names this recorder will use, learned while the program waits ----------------------------
# planted NAME MODE PLANT: run crashprobe -p MODE recording into $T/NAME; once it waits, call
# PLANT STEM (STEM: the path of its persistent file less .cirec), then let it go on.
planted() {
	local name=$1 mode=$2 plant=$3 d=$T/$1 i pid f
	shared "$d"
	mkdir -p "$T/$name-run"
	(cd "$T/$name-run" && exec env CUDAINSPECT_DIR="$d" CUDAINSPECT_SNAPSHOT=exit,signal \
		LD_PRELOAD="$REC" timeout -k 5 30 "$CP" -p "$mode" >out 2>err)&
	local job=$!
	wait_for 60 grep -q ready "$T/$name-run/out"
	pid=$(sed -n 's/^crashprobe: ready //p' "$T/$name-run/out")
	f=$(ls "$d"/cudainspect-*-"$pid"-*.cirec 2>/dev/null)
	STEM=${f%.cirec}
	"$plant" "$STEM"
	kill -USR1 "$pid"
	wait $job 2>/dev/null
	rc=$?
}
plant_exit() {
	as_nobody sh -c 'ln -s "$2" "$1-exit.cisnap"; i=0
		while [ $i -lt 100 ]; do : >"$1-$(printf %016x $i)-exit.cisnap"; i=$((i + 1)); done' plant "$1" "$VICTIM"
}
planted link exit plant_exit
is "$rc" 0 "link and 100 names at the exit snapshot's names: exit 0"
victim_ok "link at the exit snapshot's name"
is "$(readlink "$STEM-exit.cisnap")" "$VICTIM" "... the link is still there"
is "$(find "$T/link" -name "$(basename "$STEM")-*-exit.cisnap" -user nobody -size 0 | wc -l)" 100 "... the 100 planted files are untouched"
s=$(find "$T/link" -name "$(basename "$STEM")-*-exit.cisnap" -user root)
like "$(basename "$s")" "^$(basename "$STEM")$NAME_TAG-exit\\.cisnap$" "... the snapshot took a free name, with a random tag"
private_file "link at the exit snapshot's name" "$s"

plant_fifo() { as_nobody mkfifo "$1-signal.cisnap"; }
planted fifo segv plant_fifo
is "$rc" 139 "FIFO at the signal snapshot's name: the crash is not held up (SIGSEGV, not a timeout)"
ok "... the FIFO is still a FIFO" test -p "$STEM-signal.cisnap"
s=$(find "$T/fifo" -name "$(basename "$STEM")-*-signal.cisnap" -type f)
private_file "FIFO at the signal snapshot's name" "$s"

plant_open() { as_nobody sh -c 'umask 0; : >"$1-signal.cisnap"; chmod 666 "$1-signal.cisnap"' plant "$1"; }
planted open segv plant_open
is "$rc" 139 "world-writable file at the signal snapshot's name: SIGSEGV as usual"
is "$(stat -c '%s %a %U' "$STEM-signal.cisnap")" "0 666 nobody" "... that file received nothing"
s=$(find "$T/open" -name "$(basename "$STEM")-*-signal.cisnap" -user root)
private_file "world-writable file at the signal snapshot's name" "$s"

# --- modes whatever the umask, for another user too -------------------------------------------------
for mask in 000 777; do
	mkdir -p "$T/umask$mask" && chown nobody "$T/umask$mask"
	run_in "$T/umask$mask" setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "umask $mask; exec env CUDAINSPECT_DIR=. CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD='$REC' '$CP' exit"
	for f in "$(ls "$T/umask$mask"/*.cirec)" "$(snap "$T/umask$mask" exit)"; do
		is "$(stat -c '%a %U %h' "$f")" "600 nobody 1" "umask $mask, as nobody: $(basename "$f" | sed 's/.*\.//') file is 0600, nobody's, one link"
		ok "umask $mask: nobody can read it back" as_nobody "$DUMP" "$f"
	done
	is "$(ls -A "$T/umask$mask" | grep -c '^\.cudainspect-')" 0 "umask $mask: no temporary file left behind"
done

# --- without O_TMPFILE's way to a name: a random temporary name, renamed without replacing ------
if unshare -m true 2>/dev/null; then
	mkdir -p "$T/noproc" "$T/empty" && chown nobody "$T/noproc"
	# /proc/self/fd hidden: the unnamed file could not be linked, so a temporary name is used.
	run_in "$T/noproc" unshare -m sh -c "mount --bind '$T/empty' /proc/\$\$/fd && exec setpriv --reuid=nobody --regid=nogroup --clear-groups env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD='$REC' '$CP' exit"
	s=$(snap "$T/noproc" exit)
	is "$rc $(stat -c '%a %U' "$s" 2>/dev/null)" "0 600 nobody" "without /proc/self/fd: the snapshot is still written, 0600, nobody's"
	is "$(ls -A "$T/noproc" | grep -c '^\.cudainspect-')" 0 "without /proc/self/fd: its temporary name is gone"
else
	skip "unshare -m is not allowed here"
	skip "unshare -m is not allowed here"
fi

# --- a directory given as a symbolic link is not followed ---------------------------------------------
mkdir -p "$T/target" "$T/linkrun" && ln -s "$T/target" "$T/dirlink"
run_in "$T/linkrun" env CUDAINSPECT_SNAPSHOT_DIR="$T/dirlink" CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$CP" exit
like "$(cat "$T/linkrun/err")" "^cudainspect: snapshots cannot be written to $T/dirlink \\(not a directory; a symbolic link is not followed" \
	"CUDAINSPECT_SNAPSHOT_DIR a symbolic link: said at start"
is "$rc $(ls -A "$T/target")" "0 " "... nothing written through it, the program runs"
run_in "$T/linkrun" env CUDAINSPECT_DIR="$T/dirlink" LD_PRELOAD="$REC" "$CP" exit
like "$(cat "$T/linkrun/err")" "^cudainspect: cannot create the persistent record in $T/dirlink: not a directory \\(a symbolic link is not followed" \
	"CUDAINSPECT_DIR a symbolic link: said, recording off"
is "$rc $(ls -A "$T/target")" "0 " "... nothing written through it, the program runs"


# --- a set-user-ID program: its environment is the caller's, so it chooses nothing ----------------
# crashprobe linked with the recorder, set-user-ID root, run by nobody with variables that would
# make root write its record and messages into root's own files.
LP=$B/tests/recorder/crashprobe-linked
if [ -x "$LP" ] && [ "${CI_SANITIZE:-}" != address ] && as_nobody test -x "$LP"; then
	mkdir -p "$T/suid/rootonly" && chmod 755 "$T/suid" && chmod 700 "$T/suid/rootonly"
	printf 'root log\n' >"$T/suid/rootonly/log" && chmod 600 "$T/suid/rootonly/log"
	lsum=$(cksum <"$T/suid/rootonly/log")
	cp "$LP" "$T/suid/probe" && chmod 4755 "$T/suid/probe"
	vars="CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_SNAPSHOT_DIR=$T/suid/rootonly CUDAINSPECT_LOG=$T/suid/rootonly/log CUDAINSPECT_VERBOSE=1"
	(cd "$T/suid" && env $vars ./probe exit >"$T/suid/root.out" 2>&1)
	ok "control: root running it with those variables records there" test -n "$(snap "$T/suid/rootonly" exit)"
	rm -f "$T"/suid/rootonly/*.cisnap && printf 'root log\n' >"$T/suid/rootonly/log"
	(cd "$T/suid" && as_nobody env $vars ./probe exit >"$T/suid/out" 2>&1)
	rc=$?
	if findmnt -n -o OPTIONS --target "$T" 2>/dev/null | grep -qw nosuid; then
		skip "$T is mounted nosuid"; skip "-"; skip "-"
	else
		is "$rc" 0 "set-user-ID, run by nobody: the program runs"
		is "$(ls "$T/suid/rootonly" | grep -c cisnap)" 0 "set-user-ID: no snapshot where the caller's variable said"
		is "$(cksum <"$T/suid/rootonly/log")" "$lsum" "set-user-ID: root's file named by CUDAINSPECT_LOG is unchanged"
	fi
else
	skip "no linked probe, or nobody cannot run it"; skip "-"; skip "-"; skip "-"
fi
done_testing
