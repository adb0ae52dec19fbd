#!/usr/bin/env bash
# Start-up from library constructors (recorder/doors.c, "Start-up"): the process's first CUDA
# call may come from a constructor, before the recorder's own constructor ran (the recorder must
# still read its configuration and record), or from a thread while a constructor run by dlopen
# holds the loader's lock and then calls CUDA too (the recorder's start-up must not wait for the
# loader while holding its own lock: that deadlocked).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/ctorprobe tests/recorder/ctorprobe-dlopen
P=$B/tests/recorder

# --- a dependency's constructor makes the first CUDA call ------------------------------------
run_in "$T/early" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$P/ctorprobe"
is "$rc" 0 "first CUDA call in a dependency's constructor: the program runs"
is "$(grep '^cudainspect:' "$T/early/err" | sed 's/ \..*//')" "cudainspect: flight record written to" \
	"the recorder says nothing but where the snapshot went (it used to say '; recording disabled')"
"$DUMP" "$(snap "$T/early" exit)" >"$T/early.dump" 2>&1
is "$(grep -c '^event .*kind=init ' "$T/early.dump") $(grep -c '^launch .*fn=ctor_k ' "$T/early.dump")" "2 1" \
	"recorded: the constructor's cuInit, main's cuInit and its launch"

# --- a constructor run by dlopen, and another thread, both start CUDA --------------------------
run_in "$T/dlopen" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" timeout 20 \
	"$P/ctorprobe-dlopen" "$P/libctorthread.so"
is "$rc" 0 "first CUDA calls from a thread and from a constructor inside dlopen: no deadlock"
is "$(grep -c "cuInit -> 0$" "$T/dlopen/out")" 2 "both cuInit calls succeed"
"$DUMP" "$(snap "$T/dlopen" exit)" >"$T/dlopen.dump" 2>&1
is "$(grep '^event .*kind=init ' "$T/dlopen.dump" | sed 's/.* tid=\([0-9]*\) .*/\1/' | sort -u | wc -l)" 2 \
	"recorded: cuInit from both threads"
like "$(grep '^launch ' "$T/dlopen.dump")" 'fn=ctor_k .*result=0 ' "recorded: the launch that followed"
done_testing
