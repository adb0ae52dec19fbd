#!/usr/bin/env bash
# A core of a process without the recorder (gdbprobe on the simulated driver, no LD_PRELOAD):
# the plugin says there is no flight record once and GDB is otherwise unaffected (same
# backtrace as without the plugin); `cuda summary` prints the CLI's "no flight record" message
# and its documented exit code 4 (docs/CLI.md).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$PLUGIN" "$CMDS" "$CLI" "$PROBE" "$B/sim/libcuda.so.1"

rm -f "$T"/core*
( cd "$T" && ulimit -c unlimited && LD_LIBRARY_PATH="$B/sim" "$PROBE"; true ) >/dev/null 2>&1
core=$(ls -t "$T"/core* 2>/dev/null | head -n 1)
[ -n "$core" ] || skip_all "gdbprobe left no core"

plain=$(gdb_batch "$PROBE" "$core" -ex bt)
with=$(gdb_batch "$PROBE" "$core" -ex "jit-reader-load $PLUGIN" -ex bt)
like "$with" 'cudainspect: no flight record has been registered in this process' \
	"plugin: a clear 'no flight record' line"
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
done_testing
