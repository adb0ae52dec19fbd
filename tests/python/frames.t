#!/usr/bin/env bash
# Python stacks of every thread, read from real kernel cores of tests/python/pyengine.py (a
# Python engine on the simulated driver through ctypes, under the recorder) on every CPython
# this machine has: Debian's /usr/bin/python3.11 always, the pyenv 3.10, 3.12 and 3.13 builds
# where they are installed.  Expected stacks are the ones each engine thread wrote about
# itself (traceback.walk_stack); the GIL holder is the spinning thread while the main thread
# waits in cuStreamSynchronize with the GIL released (ctypes.CDLL), and the main thread when
# it calls abort() through ctypes.PyDLL.  Also: the merge with the native stack at the
# interpreter's eval frames, --frames=python|native, the JSON frame kind.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests

for py in $(python_interpreters); do
	v=$(py_version "$py")
	py_core "$py" hostfunc "$T/$v"
	if [ -z "$core" ]; then
		ok "$v: the engine dumped core (rc $rc: $(tail -1 "$T/$v/err"))" false
		continue
	fi
	"$CLI" "$core" --json >"$T/$v/report.json" 2>"$T/$v/report.err"
	is "$?" 0 "$v: the report is made"
	res=$(py_compare "$T/$v/expect" cudainspect "$T/$v/report.json")
	for role in main worker spinner; do
		like "$res" "^ok $role$" "$v: $role thread: every Python frame (file, qualname, line) as the engine saw it"
	done
	is "$(printf '%s\n' "$res" | grep '^gil' | tr '\n' ' ')" "gil spinner " \
		"$v: the spinner holds the GIL, not the main thread waiting in a ctypes call"
	main_tid=$(py_role_tid "$T/$v/expect" main)
	text=$("$CLI" "$core" threads -t "$main_tid" 2>&1)
	like "$text" "Engine\.launch \(pyengine\.py:[0-9]+\) \[Python\]|launch \(pyengine\.py" \
		"$v: threads view: Python frames in the text"
	native=$("$CLI" "$core" threads -t "$main_tid" --frames=native 2>&1)
	unlike "$native" "\[Python\]" "$v: --frames=native: no Python frame"
	like "$native" "cuStreamSynchronize" "$v: --frames=native: the native frames"
	python=$("$CLI" "$core" threads -t "$main_tid" --frames=python 2>&1)
	unlike "$python" "cuStreamSynchronize|libc\.so" "$v: --frames=python: no native frame"
	if [ "$v" != 3.10 ]; then
		# 3.11+: one native eval frame per entry frame, each run of Python frames just inside
		# its _PyEval_EvalFrameDefault (pystack's and py-spy's merge).
		order=$(printf '%s\n' "$text" | grep -oE '\[Python\]|_PyEval_EvalFrameDefault' | uniq -c |
			awk '{ printf "%s%s ", $2 == "[Python]" ? "P" : "E", $1 }')
		like "$order" "^P3 E1 P1 E1 P4 E1 $" "$v: merged: crash/launch/layers, the map lambda, step..<module>, each above its eval frame"
	fi
	unlike "$(cat "$T/$v/report.err")" "Python" "$v: no Python warning"
done

# The main thread calls abort() with the GIL held (ctypes.PyDLL).
v=$(py_version /usr/bin/python3.11)
py_core /usr/bin/python3.11 abort "$T/abort"
if [ -n "$core" ]; then
	"$CLI" "$core" --json >"$T/abort/report.json" 2>/dev/null
	res=$(py_compare "$T/abort/expect" cudainspect "$T/abort/report.json")
	like "$res" "^ok main$" "abort: main thread's Python frames"
	is "$(printf '%s\n' "$res" | grep '^gil' | tr '\n' ' ')" "gil main " "abort: the main thread holds the GIL"
	summary=$("$CLI" "$core" 2>&1)
	like "$summary" "Engine\.crash \(pyengine\.py:[0-9]+\) \[Python\]" "abort: the summary shows the crashing thread's Python frames"
	# The thread's frames in stack order, as gdb numbers them: the native ones where it
	# stopped (abort's caller), then the Python ones (issue 19: never #6 #7 #3 #4).
	nums=$(printf '%s\n' "$summary" | sed -n '/^Thread .*received SIGABRT/,/^$/p' | sed -n 's/^  #\([0-9]*\) .*/\1/p' | tr '\n' ' ')
	sorted=$(printf '%s\n' $nums | sort -n | tr '\n' ' ')
	ok "abort: the summary shows numbered frames" test -n "$nums"
	is "$nums" "$sorted" "abort: the summary's frame numbers ascend"
	first_py=$(printf '%s\n' "$summary" | sed -n '/^Thread .*received SIGABRT/,/^$/p' | grep -n '\[Python\]' | head -1 | cut -d: -f1)
	first_native=$(printf '%s\n' "$summary" | sed -n '/^Thread .*received SIGABRT/,/^$/p' | grep -nE '^  #[0-9]+ ' | grep -v '\[Python\]' | head -1 | cut -d: -f1)
	ok "abort: the native frames where it stopped come before the Python frames" \
		test "${first_native:-99}" -lt "${first_py:-0}"
else
	ok "abort: the engine dumped core" false
fi

# A live hung engine (--pid): the main thread waits in a ctypes call; its Python frames are read
# from the running process.
mkdir -p "$T/live"
(cd "$T/live" && LD_PRELOAD=$REC CUDAINSPECT_QUIET=1 exec /usr/bin/python3.11 "$ENGINE" "$SIM" "$T/live/expect" hang) \
	>/dev/null 2>&1 &
pid=$!
# The main thread writes its stack, then sleeps in libc's sleep(): wait until it is in that
# system call (clock_nanosleep: 230 on x86-64, 115 on arm64), not a fixed time after the line
# (where the kernel does not say which call a thread is in, the line alone).
nanosleep_nr=230; [ "$(uname -m)" = aarch64 ] && nanosleep_nr=115
main_sleeps() {
	local nr
	grep -q '"main"' "$T/live/expect" || return 1
	nr=$(cut -d' ' -f1 "/proc/$pid/task/$pid/syscall") || return 0
	[ "$nr" = "$nanosleep_nr" ]
}
wait_for 60 main_sleeps
"$CLI" --pid "$pid" --json >"$T/live/report.json" 2>"$T/live/err"
res=$(py_compare "$T/live/expect" cudainspect "$T/live/report.json")
# The same process as a gcore (gdb's core: its own notes, every thread stopped by gdb), for
# machines whose kernel cores go elsewhere (core_pattern piped to systemd-coredump).
if [ "${CI_SANITIZE:-}" = address ]; then
	# gcore writes out the ASan-built recorder's shadow memory too: minutes, for nothing here.
	gres="skip"
elif command -v gcore >/dev/null; then
	timeout 120 gcore -o "$T/live/gcore" "$pid" >/dev/null 2>&1
	g=$(ls "$T"/live/gcore* 2>/dev/null | head -1)
	"$CLI" "$g" --json >"$T/live/gcore.json" 2>/dev/null
	gres=$(py_compare "$T/live/expect" cudainspect "$T/live/gcore.json")
else
	gres="gcore is not installed"
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
like "$res" "^ok main$" "live --pid: the hung main thread's Python frames"
like "$res" "^ok worker$" "live --pid: the worker's"
if [ "$gres" = skip ]; then
	skip "gcore of the hung engine: not under ASan (the recorder's shadow memory would be dumped)"
else
	like "$gres" "^ok main$" "gcore of the hung engine: the main thread's Python frames"
fi

# A core of a Python engine that never ran under the recorder: the threads view still shows
# every thread's Python stack (and says there is no record); the other views exit 4.
PRELOAD= py_core /usr/bin/python3.11 abort "$T/norec"
if [ -n "$core" ]; then
	text=$("$CLI" "$core" threads --frames=python 2>&1)
	is "$?" 0 "no record: the threads view exits 0"
	like "$text" "^No cudainspect flight record in this input" "no record: says so"
	want=$(/usr/bin/python3.11 -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["role"] == "main":
        print(" ".join("%s:%d" % (f[1], f[3]) for f in d["frames"]))' "$T/norec/expect")
	main_tid=$(py_role_tid "$T/norec/expect" main)
	got=$("$CLI" "$core" threads -t "$main_tid" --frames=python 2>&1 |
		sed -n 's/^  #[0-9]* *\(.*\) (pyengine\.py:\([0-9]*\)) \[Python\]$/\1:\2/p' | tr '\n' ' ')
	is "$got" "$want " "no record: the main thread's Python frames are the engine's"
	summary=$("$CLI" "$core" 2>&1)
	is "$?" 4 "no record: the summary still exits 4"
	like "$summary" "#[0-9]+ +Engine\.crash \(pyengine\.py:[0-9]+\) \[Python\]" \
		"no record: the host side report shows the crashed thread's Python frames"
else
	ok "no record: the engine dumped core" false
fi
done_testing
