# Shared by tests/recorder/*.t (sourced after tests/lib/tap.sh): the recorder, the simulated
# driver, the engines and recdump, and helpers to run a program under the recorder.

# run_in DIR CMD... (sets $rc; output in DIR/out and DIR/err) and core_in DIR come from the
# engines' helpers.
. "$(dirname "${BASH_SOURCE[0]}")/../engine/engine-lib.sh"

REC=$B/libcudainspect-rec.so
DUMP=$B/tests/recorder/recdump
PROBE=$B/tests/recorder/doorprobe

# need_recorder [PROGRAM...]: skip the file unless the recorder, recdump, the simulated driver
# and the named programs (relative to $B) are built; then put the simulator on the library path.
need_recorder() {
	local p
	if [ "${CI_SANITIZE:-}" = address ]; then
		# The recorder is an ASan build there: its runtime must be preloaded first, and
		# ASan turns core dumps off unless asked.  ASan's own handlers for fatal signals
		# would be the program's handlers, which run before the recorder's and end the
		# process themselves: these tests are about the recorder's, so ASan leaves them.
		local asan
		asan=$(${CC:-gcc} -print-file-name=libasan.so)
		[ -e "$asan" ] || skip_all "no ASan runtime to preload before the ASan-built recorder"
		REC="$asan $REC"
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}disable_coredump=0:detect_leaks=0:verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
	fi
	for p in libcudainspect-rec.so tests/recorder/recdump "$@"; do
		[ -e "$B/$p" ] || skip_all "$B/$p is not built (make check builds it)"
	done
	[ -e "$B/sim/libcuda.so.1" ] || skip_all "the simulated driver $B/sim/libcuda.so.1 is not built"
	export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDASIM_KERNEL_US CUDASIM_VERBOSE
	local v
	for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
	cd "$TOP" || exit 1
}

# rec CMD...: run CMD with the recorder preloaded.
rec() { LD_PRELOAD=$REC "$@"; }

# snap DIR REASON: the snapshot file of that reason in DIR.
snap() { ls "$1"/cudainspect-*-"$2".cisnap 2>/dev/null | head -1; }

# Record file names (docs/FORMAT.md, "Files"): cudainspect-HOST-PID-START[-TAG]-REASON.cisnap
# and cudainspect-HOST-PID-START[-TAG].cirec, HOST reduced to [A-Za-z0-9._], START the
# record's start in UTC to the microsecond, TAG 16 hex digits when the plain name was taken.
NAME_HOST=$(hostname | tr -c 'A-Za-z0-9._
' '_')
NAME_START='[0-9]{8}T[0-9]{6}\.[0-9]{6}Z'
NAME_TAG='-[0-9a-f]{16}'
# snap_of DIR PID REASON: the snapshot of process PID.
snap_of() { ls "$1"/cudainspect-*-"$2"-*-"$3".cisnap 2>/dev/null | head -1; }
# name_pid NAME: the pid in a record file's name.
name_pid() { basename "$1" | sed -E "s/^cudainspect-.*-([0-9]+)-$NAME_START(-[0-9a-f]{16})?(-[a-z]+\.cisnap|\.cirec)\$/\1/"; }

# field KEY LINE: the value of KEY=value in a recdump line.
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

# count PATTERN FILE: lines of FILE matching the extended regex.
count() { grep -cE -- "$1" "$2" || true; }
