# Compare the Python frames of cudainspect's JSON (or of pystack's output) with what
# pyengine.py wrote about its own threads.  Prints one "ok ROLE" or "bad ROLE: why" line per
# thread the engine described, and "gil ROLE" for the thread the report says holds the GIL.
#   compare.py EXPECT cudainspect REPORT.json
#   compare.py EXPECT pystack PYSTACK.txt     (pystack core CORE output: file, name, line)
#   compare.py --calls EXPECT.calls REPORT.json
#       the recorded stacks of the allocations and launches against what the engine wrote
#       before each call: "ok launch N", "ok alloc N" or "bad ...: why"
#   compare.py --calls-outer EXPECT.calls REPORT.json
#       the same where a library's frames lie inside the program's (numba-cuda's launch path)
#   compare.py --threads REPORT.json PYSTACK.txt
#       every thread pystack lists against the report's: "ok TID" or "bad TID: why", and
#       "gil TID" where both say the thread holds the GIL, "gil-differs TID" where they disagree
import json
import re
import sys

def ours(path):
    doc = json.load(open(path))
    threads = {}
    for t in doc["threads"]:
        frames = [(f["file"], f["function"], f["line"]) for f in t["frames"]
                  if f.get("kind") == "python"]
        threads[t["tid"]] = (frames, t.get("gil_holder", False))
    return threads


def pystack(path):
    # "Traceback for thread 123 (python3) [Has the GIL] (most recent call last):"
    # '    (Python) File "/x/pyengine.py", line 90, in launch'
    threads, cur = {}, None
    for line in open(path):
        m = re.match(r"Traceback for thread (\d+)", line)
        if m:
            cur = int(m.group(1))
            threads[cur] = ([], "Has the GIL" in line)
            continue
        m = re.match(r'\s+(?:\(Python\) )?File "(.*)", line (\d+), in (\S+)', line)
        if m and cur is not None:
            threads[cur][0].append((m.group(1), m.group(3), int(m.group(2))))
    for tid, (frames, gil) in threads.items():
        frames.reverse()  # pystack prints the most recent call last
    return threads


if sys.argv[1] in ("--calls", "--calls-outer"):
    # --calls-outer: a client whose library adds frames of its own between the program and the
    # driver (numba-cuda): what the program wrote must be the outermost recorded Python frames,
    # and the frames inside them the library's (installed under site-packages).
    outer = sys.argv[1] == "--calls-outer"
    calls = [json.loads(line) for line in open(sys.argv[2])]
    doc = json.load(open(sys.argv[3]))
    # In call order, as the program wrote them: launches by seq, allocations by id (the JSON
    # lists live allocations by address).
    recorded = {"launch": [l.get("stack") or [] for l in sorted(doc["launches"], key=lambda l: l["seq"])],
                "alloc": [a.get("stack") or [] for a in sorted(doc["allocations"], key=lambda a: a["id"])]}
    for kind in ("launch", "alloc"):
        want_all = [c["frames"] for c in calls if c["kind"] == kind]
        got_all = recorded[kind]
        if len(want_all) != len(got_all):
            print("bad %s: %d recorded, the engine made %d" % (kind, len(got_all), len(want_all)))
        for i, (want, stack) in enumerate(zip(want_all, got_all)):
            got = [(f["file"], f["function"], f["line"]) for f in stack if f.get("kind") == "python"]
            want = [(f[0], f[1], f[3]) for f in want]
            inner = got[:len(got) - len(want)] if outer else []
            if (got[len(got) - len(want):] if outer else got) != want:
                print("bad %s %d: got %s want %s%s" % (kind, i + 1, got, "outermost " if outer else "", want))
            elif outer and (not inner or any("/site-packages/" not in f[0] for f in inner)):
                print("bad %s %d: the frames inside the client's are not all the library's: %s" % (kind, i + 1, inner))
            else:
                print("ok %s %d" % (kind, i + 1))
    sys.exit(0)

if sys.argv[1] == "--threads":
    mine, theirs = ours(sys.argv[2]), pystack(sys.argv[3])
    for tid, (frames, gil) in sorted(theirs.items()):
        if tid not in mine:
            print("bad %d: not in the report" % tid)
            continue
        # pystack names functions by co_name; ours are qualified names.
        got = [(f, n.rsplit(".", 1)[-1] if n else n, l) for f, n, l in mine[tid][0]]
        print(("ok %d" % tid) if got == frames else "bad %d: got %s want %s" % (tid, got, frames))
        if gil != mine[tid][1]:
            print("gil-differs %d" % tid)
        elif gil:
            print("gil %d" % tid)
    if not theirs:
        print("bad: pystack listed no thread")
    sys.exit(0)

expect = [json.loads(line) for line in open(sys.argv[1])]
kind, path = sys.argv[2], sys.argv[3]
got = ours(path) if kind == "cudainspect" else pystack(path)
for e in expect:
    role, tid = e["role"], e["native_id"]
    if tid not in got:
        print("bad %s: thread %d not in the report" % (role, tid))
        continue
    frames, gil = got[tid]
    if kind == "cudainspect":
        want = [(f[0], f[1], f[3]) for f in e["frames"]]
    else:
        want = [(f[0], f[2], f[3]) for f in e["frames"]]
    # The worker waits inside a C function: its innermost frames are exactly the engine's.
    if frames == want:
        print("ok %s" % role)
    else:
        print("bad %s: got %s want %s" % (role, frames, want))
    if gil:
        print("gil %s" % role)
