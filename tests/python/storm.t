#!/usr/bin/env bash
# Python frames from several threads at once: tests/python/pystorm.py runs 4 Python threads
# launching through ctypes, each from code objects of its own made with exec() (new ones
# throughout, so code objects are interned on several threads together: the lock-free map, the
# per-thread caches, the code table).  Every recorded launch's Python frames must be the ones
# its thread noted just before it, in each thread's order.  Debian's python3.11.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/python-lib.sh"
need_python_tests
mkdir -p "$T/storm"
(cd "$T/storm" && LD_LIBRARY_PATH= LD_PRELOAD=$REC CUDAINSPECT_QUIET=1 CUDAINSPECT_SNAPSHOT=exit \
	CUDASIM_MODE=null timeout 120 /usr/bin/python3.11 "$TOP/tests/python/pystorm.py" "$SIM" "$T/storm/expect" 4 500) \
	>"$T/storm/out" 2>&1
is "$?" 0 "4 threads x 500 launches: the storm runs"
snap=$(ls "$T"/storm/*-exit.cisnap 2>/dev/null | head -1)
"$CLI" "$snap" --json=full >"$T/storm/r.json" 2>/dev/null
res=$(/usr/bin/python3.11 -c '
import json, sys
want = {int(k): v for k, v in json.load(open(sys.argv[1])).items()}
doc = json.load(open(sys.argv[2]))
got = {}
for l in sorted(doc["launches"], key=lambda l: l["seq"]):
    got.setdefault(l["thread"], []).append([[f["file"], f["function"], f["line"]] for f in l["stack"] if f["kind"] == "python"])
bad = sum(1 for t in want for a, b in zip(want[t], got.get(t, [])) if a != b)
print("threads %d launches %d bad %d" % (len(want), sum(len(got.get(t, [])) for t in want), bad))
' "$T/storm/expect" "$T/storm/r.json")
is "$res" "threads 4 launches 2000 bad 0" "every launch of every thread: the Python frames its thread noted"
like "$(/usr/bin/python3.11 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["record"]["python"]["code_objects"])' "$T/storm/r.json")" \
	"^[0-9]+$" "the code table is in the JSON"
done_testing
