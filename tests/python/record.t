#!/usr/bin/env bash
# Python frames recorded with every stack (recorder/python.c) and resolved by the reader from the
# record alone (sections 18 and 19): tests/python/pyengine.py under the recorder on every
# CPython here (Debian's python3.11 always, pyenv 3.10/3.12/3.13 where present).  Before each
# allocation and launch the engine writes its own stack (traceback.walk_stack); every recorded
# stack's Python frames (file, qualname, line) must be those, read from the kernel core and from
# the snapshot file (which holds no interpreter memory), including the launch made from a
# function deleted and collected before the crash.  Also: the Python section in the JSON,
# CUDAINSPECT_PYTHON=off, a program without Python (no section, same stacks), and the
# exception path: a CUDA error turned into RuntimeError, exit status 1, `cudainspect record`
# prints the summary of the error snapshot with the Python launch site.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests

pyjson() { /usr/bin/python3.11 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

for py in $(python_interpreters); do
	v=$(py_version "$py")
	full=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	py_core "$py" hostfunc "$T/$v"
	snap=$(ls "$T/$v"/*.cisnap 2>/dev/null | head -1)
	if [ -z "$core" ] || [ -z "$snap" ]; then
		ok "$v: the engine dumped core and wrote a snapshot (rc $rc)" false
		continue
	fi
	for input in core snapshot; do
		f=$core
		[ $input = snapshot ] && f=$snap
		"$CLI" "$f" --json >"$T/$v/$input.json" 2>/dev/null
		res=$(py_compare --calls "$T/$v/expect.calls" "$T/$v/$input.json")
		is "$(printf '%s\n' "$res" | grep -c '^ok launch')" 9 "$v, $input: 9 launch stacks with the engine's Python frames"
		is "$(printf '%s\n' "$res" | grep -c '^ok alloc')" 2 "$v, $input: the allocation's and the flag page registration's stacks with the engine's Python frames"
		unlike "$res" "^bad" "$v, $input: no stack differs"
	done
	is "$(pyjson "$T/$v/snapshot.json" 'd["record"]["python"]["state"], d["record"]["python"]["version"]')" \
		"on $full" "$v: the Python section: on, the interpreter's version"
	like "$(pyjson "$T/$v/snapshot.json" '[f["function"] for f in d["launches"][0]["stack"] if f["kind"] == "python"][:2]')" \
		"(Engine\.)?launch', 'transient'" "$v: the launch from a function deleted before the crash names it"
	summary=$("$CLI" "$snap" 2>&1)
	like "$summary" "launched at (Engine\.)?crash \(pyengine\.py:[0-9]+\) \[Python\]" "$v: the summary's launch site is the Python line"
	native=$("$CLI" "$snap" fault --frames=native 2>&1)
	unlike "$native" "\[Python\]" "$v: --frames=native: no Python frame in recorded stacks"
done

# With DWARF unwinding the native stack reaches the interpreter's eval frames: each run of
# recorded Python frames sits just inside (before) its _PyEval_EvalFrameDefault frame.
CUDAINSPECT_STACKS=accurate CUDAINSPECT_STACK_DEPTH=64 py_core /usr/bin/python3.11 hostfunc "$T/acc"
snap=$(ls "$T"/acc/*.cisnap 2>/dev/null | head -1)
"$CLI" "$snap" --json >"$T/acc/r.json" 2>/dev/null
# Launch 2 (the first of step()): launch, layers | the map lambda | step, serve, main, <module>.
is "$(pyjson "$T/acc/r.json" '" ".join(k for k in (("P" if f["kind"] == "python" else "E" if (f["function"] or "").startswith("_PyEval_EvalFrameDefault") else "") for f in sorted(d["launches"], key=lambda l: l["seq"])[1]["stack"]) if k)')" \
	"P P E P E P P P P E" "accurate stacks: a recorded launch's Python runs merged at its three eval frames"

# On every interpreter: each run of a recorded stack's Python frames is followed, within its
# physical frame (inlined frames first), by the _PyEval_EvalFrameDefault frame that ran it, and
# every one of the engine's 7 Python frames of that launch is there.
for py in $(python_interpreters); do
	v=$(py_version "$py")
	CUDAINSPECT_STACKS=accurate CUDAINSPECT_STACK_DEPTH=64 py_core "$py" hostfunc "$T/acc-$v"
	snap=$(ls "$T/acc-$v"/*.cisnap 2>/dev/null | head -1)
	"$CLI" "$snap" --json >"$T/acc-$v/r.json" 2>/dev/null
	is "$(pyjson "$T/acc-$v/r.json" '(lambda s: (sum(f["kind"] == "python" for f in s), all(any((g["function"] or "").startswith("_PyEval_EvalFrameDefault") for g in (lambda rest: rest[:next((k for k, g in enumerate(rest) if not g["inlined"]), len(rest)) + 1])([g for g in s[i + 1:] if g["kind"] != "python"][:8])) for i, f in enumerate(s) if f["kind"] == "python" and (i + 1 == len(s) or s[i + 1]["kind"] != "python"))))(sorted(d["launches"], key=lambda l: l["seq"])[1]["stack"])')" \
		"(7, True)" "$v, accurate stacks: the 7 Python frames of launch 2 merged, each run just inside its eval frame"
done

# CUDAINSPECT_PYTHON=off: native stacks only, and the section says off.
CUDAINSPECT_PYTHON=off py_core /usr/bin/python3.11 hostfunc "$T/off"
"$CLI" "$core" --json >"$T/off/r.json" 2>/dev/null
is "$(pyjson "$T/off/r.json" 'd["record"]["python"]["state"], sum(f["kind"] == "python" for l in d["launches"] for f in l["stack"])')" \
	"off 0" "CUDAINSPECT_PYTHON=off: no Python frame recorded, the section says off"

# A Python the recorder has no layout for (pyenv's 3.9, where present): said once at the first
# CUDA call, the section says why, native stacks only; the reader says so too.
py39=$(ls -d "$PYENV"/3.9.*/bin/python3.9 2>/dev/null | tail -1)
if [ -n "$py39" ]; then
	py_core "$py39" abort "$T/py39"
	is "$(grep -c 'Python frames are not recorded: Python 3.9 has no layout the recorder knows' "$T/py39/err")" 1 \
		"3.9: the recorder says once why there are no Python frames"
	"$CLI" "$core" --json >"$T/py39/r.json" 2>/dev/null
	is "$(pyjson "$T/py39/r.json" 'd["record"]["python"]["state"], sum(f["kind"] == "python" for l in d["launches"] for f in l["stack"]), any("Python 3.9 has no layout" in w for w in d["warnings"])')" \
		"unsupported 0 True" "3.9: section unsupported, native stacks only, the reader's warning"
else
	skip "no Python 3.9 here (pyenv)"
	skip "no Python 3.9 here (pyenv)"
fi

# A program without Python: no Python section, no Python word in any stack.
if [ -x "$B/miniengine" ]; then
	mkdir -p "$T/mini"
	LD_LIBRARY_PATH=$B/sim LD_PRELOAD=$REC CUDAINSPECT_QUIET=1 CUDAINSPECT_DIR=$T/mini \
		"$B/miniengine" --quiet --steps 2 >/dev/null 2>&1
	rec=$(ls "$T"/mini/*.cirec 2>/dev/null | head -1)
	"$CLI" "$rec" --json >"$T/mini.json" 2>/dev/null
	is "$(pyjson "$T/mini.json" 'd["record"]["python"], sum(f["kind"] != "native" for l in d["launches"] for f in l["stack"])')" \
		"None 0" "no Python: no section, native frames only"
else
	skip "miniengine is not built"
fi

# The exception path: the 5th launch faults, the next call returns 700, check() raises
# RuntimeError, the interpreter exits 1; the snapshot of the first sticky error has it all.
mkdir -p "$T/exc"
(cd "$T/exc" && CUDASIM_FAULT=py_step@5 LD_LIBRARY_PATH= timeout 60 "$CLI" record -- /usr/bin/python3.11 \
	"$ENGINE" "$SIM" "$T/exc/expect" exit) >"$T/exc/out" 2>"$T/exc/err"
is "$?" 1 "exception: cudainspect record passes exit status 1 through"
like "$(cat "$T/exc/err")" "RuntimeError: cu[A-Za-z_]+ failed: CUresult 700" "exception: the program's own traceback"
like "$(cat "$T/exc/err")" "record snapshot: .*-error\.cisnap" "exception: names the error snapshot"
like "$(cat "$T/exc/out")" "Faulting kernel: py_step" "exception: the summary follows"
like "$(cat "$T/exc/out")" "launched at Engine\.launch \(pyengine\.py:[0-9]+\) \[Python\]" "exception: the faulting launch's Python site"
snap=$(ls "$T"/exc/*-error.cisnap 2>/dev/null | head -1)
"$CLI" "$snap" --json >"$T/exc/r.json" 2>/dev/null
res=$(py_compare --calls "$T/exc/expect.calls" "$T/exc/r.json")
like "$res" "^ok launch 5$" "exception: the faulting launch's stack is the engine's"
done_testing
