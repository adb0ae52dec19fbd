#!/usr/bin/env bash
# JSON and the allocs view of a million live allocations in bounded memory (issue 23):
# `--json=full`, `--json` and `allocs` of a record whose allocation table holds 1,000,000 live allocations (1.4 million slots, 134
# MB: in 1.2 million, mkrecord's linear probing puts 27 of them past the 256 slots record.h allows,
# and decode rejects those) stay within the issue's 64 MiB.  They peaked at 162, 163 and 253 MiB
# when the radix sort took a copy of the 32-byte keys, the allocations were read from the table
# one by one in address order, which mapped all of it, and the allocs view kept a copy of each.  What mkrecord plants (tests/reader-input/synth.c) is the
# expectation: allocation i (from 0) has id i + 1, address SYNTH_ALLOC_BASE + i *
# SYNTH_ALLOC_STRIDE, size 4096 * (i + 1), time 100 + i, thread the record's pid (4242) and
# stack 1 (three frames), stored in the table by hash of its address.  Documents are read a
# line at a time (one element of a top-level array per line, docs/JSON.md): every allocation's
# id, address and size are checked, one in 9,973 and the last parsed whole; every row of the
# allocs view too.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkrecord
[ -x "$CI" ] && [ -x "$MK" ] || skip_all "$CI or $MK is not built"
command -v python3 >/dev/null || skip_all "python3 is not installed"
plan 14

allocs=1000000 newest=4096 # CI_JSON_ALLOCATIONS, as docs/JSON.md states it
"$MK" --allocs=$allocs --alloc-cap=1400000 "$T/rec" >/dev/null 2>&1
ok "mkrecord made a record of $allocs live allocations" test -s "$T/rec"

cat >"$T/check.py" <<'EOF'
# The document on stdin, a line at a time; prints what it found as key=value lines.
import json, re, sys
allocs, newest = int(sys.argv[1]), int(sys.argv[2])
BASE, STRIDE = 0x7f0000000000, 0x100000
head = re.compile(r'\{"id":(\d+),"address":(\d+),"address_hex":"0x([0-9a-f]+)","size":(\d+),')
shown, errors, parsed, newest_shown, last_address, order_errors = 0, 0, 0, 0, -1, 0
skeleton, in_allocs, last = [], False, None
for line in sys.stdin:
    s = line.rstrip("\n")
    if in_allocs and s in ("]", "],"):
        in_allocs = False
    elif in_allocs:
        m = head.match(s)
        if not m:
            errors += 1
            continue
        i, address = int(m.group(1)) - 1, int(m.group(2))
        errors += not (0 <= i < allocs and address == BASE + i * STRIDE
                       and int(m.group(3), 16) == address and int(m.group(4)) == 4096 * (i + 1))
        order_errors += address <= last_address
        last_address = address
        newest_shown += i + 1 > allocs - newest
        if shown % 9973 == 0:
            a = json.loads(s.rstrip(","))
            parsed += 1
            errors += not (a["time_ns"] == 100 + i and a["thread"] == 4242 and a["kind"] == "device"
                           and a["stack_id"] == 1 and len(a["stack"]) == 3)
        shown += 1
        last = s
        continue
    skeleton.append(s)
    in_allocs = in_allocs or s == '"allocations":['
if last:
    a = json.loads(last.rstrip(","))
    parsed += 1
    errors += a["time_ns"] != 100 + a["id"] - 1
doc = json.loads("\n".join(skeleton))
print("shown=%d newest=%d" % (shown, newest_shown))
print("errors=%d order_errors=%d parsed=%d" % (errors, order_errors, parsed))
print("omitted=%d" % doc["omitted"]["allocations"])
EOF

# Peak memory from /usr/bin/time (GNU time's %M, KiB), written to a file of its own.
run() { # MODE: the document through check.py into $T/MODE.found, the peak into $T/MODE.rss
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o "$T/$1.rss" -f '%M' "$CI" "--$1" "$T/rec" 2>"$T/$1.err" |
			python3 "$T/check.py" $allocs $newest >"$T/$1.found"
	else
		"$CI" "--$1" "$T/rec" 2>"$T/$1.err" | python3 "$T/check.py" $allocs $newest >"$T/$1.found"
	fi
	return "${PIPESTATUS[0]}"
}
got() { sed -n "s/^$2=//p" "$T/$1.found"; }
peak() { # MODE [NAME]: the peak against the issue's bound
	if [ "${CI_SANITIZE:-}" = address ]; then
		skip "peak memory is meaningless under ASan (its shadow memory)"
	elif [ -x /usr/bin/time ]; then
		local kib
		kib=$(tail -1 "$T/$1.rss")
		ok "${2:---$1} peaks at $kib KiB (at most 64 MiB)" test "${kib:-999999999}" -le $((64 * 1024))
	else
		skip "/usr/bin/time is not installed"
	fi
}

run json=full
is "$?" 0 "--json=full exits 0"
is "$(got json=full shown) $(got json=full omitted)" "$allocs newest=$newest 0" \
	"--json=full: every live allocation, none omitted"
like "$(got json=full errors)" "^0 order_errors=0 parsed=10[0-9]$" \
	"... each as planted (id, address, size; time, thread, kind, stack where parsed), by address"
peak json=full

# Bounded: the newest allocations by id, and those the diagnosis names; the rest counted.
run json
is "$?" 0 "--json exits 0"
shown=$(got json shown)
is "${shown#* }" "newest=$newest" "--json: the newest $newest allocations by id are shown"
is "$(($(got json omitted) + ${shown%% *}))" $allocs "... and the others counted as omitted"
like "$(got json errors)" "^0 order_errors=0 parsed=[1-9]" "... each shown one as planted, by address"
peak json

# The allocs view: every allocation a row, by address, as planted.
cat >"$T/rows.py" <<'EOF'
import sys
allocs = int(sys.argv[1])
BASE, STRIDE = 0x7f0000000000, 0x100000
rows = errors = 0
for line in sys.stdin:
    f = line.split()
    if not f or not f[0].startswith("#"):
        continue
    i = rows
    errors += not (f[0] == "#%d" % (i + 1) and f[1] == "0x%x" % (BASE + i * STRIDE)
                   and f[2] == "{:,}".format(4096 * (i + 1)) and f[3:5] == ["device", "4242"])
    rows += 1
print("rows=%d errors=%d" % (rows, errors))
EOF
if [ -x /usr/bin/time ]; then
	/usr/bin/time -o "$T/allocs.rss" -f '%M' "$CI" "$T/rec" allocs 2>"$T/allocs.err" |
		python3 "$T/rows.py" $allocs >"$T/allocs.found"
else
	"$CI" "$T/rec" allocs 2>"$T/allocs.err" | python3 "$T/rows.py" $allocs >"$T/allocs.found"
fi
is "${PIPESTATUS[0]}" 0 "allocs exits 0"
is "$(cat "$T/allocs.found")" "rows=$allocs errors=0" \
	"... a row for every allocation, by address, as planted (id, address, size, kind, thread)"
peak allocs "the allocs view"
is "$(cat "$T/json=full.err" "$T/json.err" "$T/allocs.err")" "" "nothing on standard error"
