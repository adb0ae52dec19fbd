#!/usr/bin/env bash
# GDB on a kernel core of the Python engine (tests/python/pyengine.py under the recorder, Debian's
# python3.11): `cuda threads` shows every thread's Python frames merged into the native ones, the
# same text as the CLI's `threads` view; `cuda threads --frames=python` passes the option on.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
. "$TOP/tests/plugin/gdb-lib.sh"
need_python_tests
need_gdb_parts "$CMDS" "$CLI"
py_core /usr/bin/python3.11 hostfunc "$T/gdb"
[ -n "$core" ] || skip_all "the engine left no core (rc $rc)"
main_tid=$(py_role_tid "$T/gdb/expect" main)

got=$(gdb_cuda /usr/bin/python3.11 "$core" -- cuda threads)
like "$got" "exit=0$" "cuda threads: exit 0"
like "$got" "Engine\.launch \(pyengine\.py:[0-9]+\) \[Python\]" "cuda threads: the main thread's Python frames"
like "$got" "\(holds the GIL\)" "cuda threads: the GIL holder is marked"
want=$("$CLI" "$core" threads 2>&1)
is "$(printf '%s\n' "$got" | sed '$d' | grep -E '^  #|^thread|^Threads')" \
	"$(printf '%s\n' "$want" | grep -E '^  #|^thread|^Threads')" "cuda threads: the CLI's frames, thread by thread"
got=$(gdb_cuda /usr/bin/python3.11 "$core" -- cuda threads --frames=python -t "$main_tid")
unlike "$got" "libc\.so|cuStreamSynchronize" "cuda threads --frames=python: no native frame"
like "$got" "<module> \(pyengine\.py:[0-9]+\) \[Python\]" "cuda threads --frames=python: down to <module>"
done_testing
