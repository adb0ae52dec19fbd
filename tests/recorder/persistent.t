#!/usr/bin/env bash
# Persistent mode (CUDAINSPECT_DIR): the record is a shared file mapping, so it survives SIGKILL
# with everything recorded up to the kill.  Repeated kill -9 during a 4-thread launch storm must
# never leave a record whose accepted launches include a torn one: every accepted storm launch
# must match the storm contract (testcases/engine/storm.h), whatever the moment of the kill.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder launchstorm miniengine

# storm_started DIR: the storm recording into DIR has launches in its record.
storm_started() {
	local f
	f=$(ls "$1"/cudainspect-*.cirec 2>/dev/null | head -1)
	[ -n "$f" ] && "$DUMP" --storm "$f" 2>/dev/null | tail -1 | grep -q '^storm ok=[1-9]'
}
# storm_killed DIR DELAY: start a storm recording into DIR, SIGKILL it DELAY seconds after its
# record holds launches (waited for: a loaded machine may take longer than DELAY to start it).
storm_killed() {
	mkdir -p "$1"
	CUDASIM_MODE=null CUDAINSPECT_DIR=$1 CUDAINSPECT_QUIET=1 LD_PRELOAD=$REC \
		"$B/launchstorm" --threads 4 --launches 0 --seconds 30 --sync-every 0 --quiet &
	local pid=$!
	wait_for 60 storm_started "$1"
	sleep "$2"
	kill -9 $pid
	wait $pid 2>/dev/null
}

storm_killed "$T/one" 0.5
f=$(ls "$T"/one/cudainspect-*.cirec 2>/dev/null | head -1)
ok "SIGKILL: the persistent record file is there" test -s "$f"
"$DUMP" "$f" >"$T/one.dump"
h=$(grep '^header ' "$T/one.dump")
is "$(field state "$h") $(field origin "$h")" "1 2" "header: still live (killed without warning), persistent origin"
out=$("$DUMP" --storm "$f" | tail -1)
like "$out" '^storm ok=[1-9][0-9]* bad=0 ' "decodable, launches recorded up to the kill, all consistent ($out)"

# Many kills at varying moments.  A torn entry must be rejected, never accepted.
bad=0 torn=0 runs=0 empty=0
for delay in 0.05 0.11 0.17 0.23 0.29 0.07 0.13 0.19 0.31 0.37 0.09 0.21; do
	d=$T/k$runs
	storm_killed "$d" $delay
	f=$(ls "$d"/cudainspect-*.cirec 2>/dev/null | head -1)
	runs=$((runs + 1))
	[ -n "$f" ] || { empty=$((empty + 1)); continue; }
	line=$("$DUMP" --storm "$f" | tail -1)
	case $line in
	"storm ok=0 "*) empty=$((empty + 1)) ;;
	esac
	b=$(field bad "$line")
	bad=$((bad + ${b:-1}))
	torn=$((torn + $(field torn "$line")))
	rm -f "$f"
done
is "$bad" 0 "$runs kills during the storm: no accepted launch was torn or mixed"
ok "the kills landed mid-storm ($((runs - empty)) of $runs records had launches; $torn torn entries rejected)" \
	test $((runs - empty)) -ge $((runs / 2))

# A clean exit in persistent mode: the file stays, state exited.
run_in "$T/clean" env CUDASIM_KERNEL_US=20 CUDAINSPECT_DIR="$T/clean" LD_PRELOAD="$REC" \
	"$B/miniengine" --steps 2 --quiet
f=$(ls "$T"/clean/cudainspect-*.cirec 2>/dev/null | head -1)
ok "clean exit: the record file stays" test -s "$f"
like "$("$DUMP" "$f" | grep '^header ')" 'state=2 origin=2 ' "clean exit: state exited"
like "$(basename "$f")" "^cudainspect-$NAME_HOST-[0-9]+-$NAME_START\.cirec$" "file named cudainspect-HOST-PID-START.cirec"
is "$(name_pid "$f")" "$(field pid "$("$DUMP" "$f" | grep '^header ')")" "... with the pid of its header"
is "$(stat -c '%a %u %h' "$f")" "600 $(id -u) 1" "... mode 0600, ours, one link"

# CUDAINSPECT_DIR that does not exist: one clear message, the program runs unchanged.
run_in "$T/nodir" env CUDASIM_KERNEL_US=20 CUDAINSPECT_DIR="$T/missing" LD_PRELOAD="$REC" \
	"$B/miniengine" --steps 2 --quiet
is "$rc" 0 "missing CUDAINSPECT_DIR: the program still runs"
like "$(cat "$T/nodir/err")" "^cudainspect: cannot create the persistent record in $T/missing: No such file or directory; recording disabled" \
	"missing CUDAINSPECT_DIR: says what happened and that recording is off"
is "$(grep -c cudainspect "$T/nodir/err")" 1 "... once"

# CUDAINSPECT_DIR on a file system too small for the record (a 3 MiB tmpfs, a 32 MiB record):
# the recorder must not leave a sparse file whose pages fault (SIGBUS) when the application's
# calls are recorded into them.  It says so once and records in memory instead.
small_fs() {
	[ "$(id -u)" = 0 ] || { skip "a small tmpfs needs root to mount"; return; }
	mkdir -p "$T/full" "$T/fullrun"
	if ! mount -t tmpfs -o size=3m tmpfs "$T/full" 2>/dev/null; then
		skip "cannot mount a tmpfs here"
		return
	fi
	trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
	run_in "$T/fullrun" env CUDASIM_KERNEL_US=20 CUDAINSPECT_DIR="$T/full" \
		CUDAINSPECT_SNAPSHOT=exit CUDAINSPECT_SNAPSHOT_DIR="$T/fullrun" LD_PRELOAD="$REC" \
		"$B/miniengine" --steps 4 --quiet
	is "$rc" 0 "full file system: the program runs to its end (no SIGBUS)"
	is "$(grep -c '^cudainspect: cannot reserve 32 MiB for the persistent record in '"$T/full"': No space left on device; recording in memory instead' "$T/fullrun/err")" 1 \
		"full file system: said once, with the reason and what happens instead"
	is "$(ls "$T/full")" "" "full file system: no partial record file left behind"
	f=$(snap "$T/fullrun" exit)
	ok "full file system: still recorded (exit snapshot written)" test -n "$f"
	like "$("$DUMP" "$f" | grep -c '^launch ')" '^[1-9][0-9]*$' "full file system: the snapshot holds the launches"
	umount "$T/full"
}
small_fs
done_testing
