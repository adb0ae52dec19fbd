# Compare the Python frames of cudainspect's JSON (or of pystack's output) with what
# pyengine.py wrote about its own threads.  Prints one "ok ROLE" or "bad ROLE: why" line per
# thread the engine described, and "gil ROLE" for the thread the report says holds the GIL.
#   compare.py EXPECT cudainspect REPORT.json
#   compare.py EXPECT pystack PYSTACK.txt     (pystack core CORE output: file, name, line)
import json
import re
import sys

expect = [json.loads(line) for line in open(sys.argv[1])]
kind, path = sys.argv[2], sys.argv[3]


def ours():
    doc = json.load(open(path))
    threads = {}
    for t in doc["threads"]:
        frames = [(f["file"], f["function"], f["line"]) for f in t["frames"]
                  if f.get("kind") == "python"]
        threads[t["tid"]] = (frames, t.get("gil_holder", False))
    return threads


def pystack():
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


got = ours() if kind == "cudainspect" else pystack()
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
