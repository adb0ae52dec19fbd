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

# A record GDB is not handed (CUDAINSPECT_JIT=off) whose header is then damaged in the core: the
# plugin must say what the reader says (a corrupt header), not "no flight record", which would
# send the user to check whether the program ran under the recorder.
mkdir -p "$T/nojit"
( cd "$T/nojit" && rm -f core* && ulimit -c unlimited &&
	env LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$REC" CUDAINSPECT_QUIET=1 CUDAINSPECT_JIT=off \
		"$PROBE"; true ) >/dev/null 2>&1
ncore=$(ls -t "$T"/nojit/core* 2>/dev/null | head -n 1)
raddr=$([ -n "$ncore" ] && "$CLI" --json "$ncore" 2>/dev/null | jq -r '.record.address // empty')
# The file offset of the record: the PT_LOAD that holds its address, as eu-readelf lists it.
roff=
if [ -n "$raddr" ]; then
	while read -r _ off va _ fsz _; do
		if (( va <= raddr && raddr < va + fsz )); then roff=$(( off + raddr - va )); break; fi
	done < <(eu-readelf -l "$ncore" | awk '$1 == "LOAD" { print $1, $2, $3, $4, $5 }')
fi
if [ -n "$roff" ]; then
	out=$(gdb_batch "$PROBE" "$ncore" -ex "jit-reader-load $PLUGIN" -ex 'bt 1')
	like "$out" "^cudainspect: the core file $ncore holds a flight record, but GDB did not hand it over \\(the process ran with CUDAINSPECT_JIT=off" \
		"record not handed over (CUDAINSPECT_JIT=off): the plugin says why"
	cp "$ncore" "$T/nojit/damaged.core"
	# header_size (offset 12) = 12: impossible, as tests/reader-input/malformed.t damages it.
	printf '\014\000\000\000' | dd of="$T/nojit/damaged.core" bs=1 seek=$(( roff + 12 )) conv=notrunc 2>/dev/null
	out=$(gdb_batch "$PROBE" "$T/nojit/damaged.core" -ex "jit-reader-load $PLUGIN" -ex 'bt 1')
	like "$out" "^cudainspect: .*damaged.core: the flight record at .* has a corrupt header: the header size is impossible.* \\(GDB works as usual\\)" \
		"damaged record header: the plugin says the header is corrupt"
	unlike "$out" 'no flight record' "... not 'no flight record'"
	like "$out" '#0 .* in __pthread_kill|#0 .*pthread_kill' "... and GDB still shows the backtrace"
else
	for _ in 1 2 3 4; do skip "no recorded core with CUDAINSPECT_JIT=off"; done
fi
done_testing
