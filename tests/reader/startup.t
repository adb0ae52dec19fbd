#!/usr/bin/env bash
# A live process read while it starts up: the recorder publishes stacks, strings, streams and
# functions while the reader copies the record.  Everything published before the reader looked
# is consistent, and what the writer published meanwhile is "late" or torn, never invalid or
# damage (issue 3: "a record being written is read consistently or reported as torn").  Before
# the reader read the frames and strings after the tables, about one read in twenty of an engine
# starting up counted stacks published meanwhile as invalid (pointing past the frames it had
# read) and references to them as damage.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
recorder_preload
for f in tests/reader-input/cidecode libcudainspect-rec.so sim/libcuda.so.1 miniengine; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built"
done
unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDASIM_KERNEL_US
for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

engines=${STARTUP_ENGINES:-8} reads=${STARTUP_READS:-40}
runs=0 decoded=0 bad=0 late=0 first_bad=
for _ in $(seq "$engines"); do
	( CUDAINSPECT_QUIET=1 LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$B/sim" \
		exec "$B/miniengine" --hang --quiet ) >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq "$reads"); do
		out=$("$B/tests/reader-input/cidecode" --pid "$pid" 2>/dev/null) || continue
		runs=$((runs + 1))
		case $out in *"section launches"*) decoded=$((decoded + 1)) ;; esac
		hit=$(printf '%s\n' "$out" | grep -E ' invalid=[1-9]|damaged')
		if [ -n "$hit" ]; then
			bad=$((bad + 1))
			[ -n "$first_bad" ] || first_bad=$hit
		fi
		printf '%s\n' "$out" | grep -q 'published while the record was read' && late=$((late + 1))
	done
	kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
done
ok "the engines' records were read while they started ($decoded of $runs reads decoded)" \
	test "$decoded" -ge $((engines * reads / 4))
is "$bad" 0 "no read of a starting engine finds invalid entries or damage"
[ -z "$first_bad" ] || diag "$first_bad"
diag "$late of $runs reads met references to entries published meanwhile (counted as late)"
done_testing
