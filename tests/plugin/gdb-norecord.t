#!/usr/bin/env bash
# A core of a process without the recorder (gdbprobe on the simulated driver, no LD_PRELOAD):
# the plugin says there is no flight record once and GDB is otherwise unaffected (same
# backtrace as without the plugin); `cuda summary` prints the CLI's "no flight record" message
# and its documented exit code 4 (docs/CLI.md).  And a core that has a record GDB cannot read
# (its recorder library replaced on disk): the plugin says which, and `cuda summary` works.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$PLUGIN" "$CMDS" "$CLI" "$PROBE" "$REC" "$B/sim/libcuda.so.1"

rm -f "$T"/core*
( cd "$T" && ulimit -c unlimited && LD_LIBRARY_PATH="$B/sim" "$PROBE"; true ) >/dev/null 2>&1
core=$(ls -t "$T"/core* 2>/dev/null | head -n 1)
[ -n "$core" ] || skip_all "gdbprobe left no core"

plain=$(gdb_batch "$PROBE" "$core" -ex bt)
with=$(gdb_batch "$PROBE" "$core" -ex "jit-reader-load $PLUGIN" -ex bt)
like "$with" "^cudainspect: no flight record in the core file $core \\(the process did not run with libcudainspect-rec.so" \
	"plugin: a clear 'no flight record' line, naming the core"
is "$(printf '%s\n' "$with" | grep -c 'no flight record')" 1 "plugin: said once"
is "$(printf '%s\n' "$with" | grep '^#')" "$(printf '%s\n' "$plain" | grep '^#')" \
	"plugin: the backtrace is the same as without it"
like "$with" '#[0-9]+ .* in use_buffers' "the backtrace reaches use_buffers"

got=$(gdb_cuda "$PROBE" "$core" -- cuda summary)
want=$("$CLI" "$core" 2>&1; echo "exit=$?")
is "$got" "$want" "cuda summary = the CLI's answer"
like "$got" 'no cudainspect flight record' "cuda summary: says there is no flight record"
like "$got" 'exit=4$' "cuda summary: exit code 4 (no record)"

got=$(gdb_cuda "$PROBE" -- cuda summary)
like "$got" 'GDB has neither a core file nor a live process' "no core, no process: says what to do"
like "$got" 'exit=3$' "no core, no process: exit code 3"

# A core whose recorder library was replaced on disk since the process ran (here by another
# build of the recorder, the ThreadSanitizer one): GDB takes the JIT descriptor's address from
# the file on disk and reads the wrong bytes, so the record never reaches the plugin although it
# is in the core.  The plugin must say that, not "no flight record", and point to cuda summary.
OTHER=$B/tests/recorder/tsan/libcudainspect-rec.so
if [ -e "$OTHER" ] && ! cmp -s "$OTHER" "$REC"; then
	mkdir -p "$T/lib" "$T/mm"
	cp "$REC" "$T/lib/libcudainspect-rec.so"
	( cd "$T/mm" && ulimit -c unlimited &&
		env LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$T/lib/libcudainspect-rec.so" \
			CUDAINSPECT_QUIET=1 "$PROBE"; true ) >/dev/null 2>&1
	mcore=$(ls -t "$T"/mm/core* 2>/dev/null | head -n 1)
	cp "$OTHER" "$T/lib/libcudainspect-rec.so"
	out=$(gdb_batch "$PROBE" "$mcore" -ex "jit-reader-load $PLUGIN" -ex 'bt 1')
	like "$out" "^cudainspect: the core file $mcore holds a flight record, but GDB did not hand it over: .* $T/lib/libcudainspect-rec.so is not the one the process ran with \\(rebuilt or replaced since" \
		"replaced recorder library: the plugin says the record is there and which file is wrong"
	like "$out" "\`cuda summary\` reads it from there directly" "... and points to cuda summary"
	unlike "$out" 'no flight record' "... not 'no flight record'"
	got=$(gdb_cuda "$PROBE" "$mcore" -- cuda summary)
	like "$got" '^cudainspect: no CUDA failure in gdbprobe' "replaced recorder library: cuda summary reports the record"
	like "$got" 'exit=0$' "... with exit code 0"
else
	for _ in 1 2 3 4 5; do skip "no second build of the recorder ($OTHER)"; done
fi
done_testing
