#!/usr/bin/env bash
# The kernels and allocs views read what they show (issue 23): on a record whose launch ring has
# wrapped, `kernels --last 5` reads the ring back from its head only as far as the launches it
# shows and the diagnosis need (a sparse decode with a list), or, where that cannot be done,
# walks a lazy model back and loads only what it shows; `allocs -n 5` loads the first
# allocations; the rest is counted from the 32-byte keys of a lazy model, never copied.  sparse_test renders both views from that lazy model and from a
# complete decode, with and without N and --thread/--stream/--kernel filters, and compares them
# character by character (and checks that only a few launches were loaded).  Then the CLI's
# peak RSS: a 600,000-launch record with a 262,144-entry ring (64 MiB of launches) cost about
# 150 MiB when the views decoded the whole ring and allocation table, and about 30-40 MiB now
# (the summary of the same record: about 13 MiB).  The bound, 90 MiB, leaves a wide margin both
# ways; memory, not time, is asserted.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
FX=$B/tests/reader-input
[ -x "$CI" ] && [ -x "$FX/mkrecord" ] || skip_all "the CLI or mkrecord is not built"

rec=$T/wrapped.cisnap
chunked=$T/chunked.cisnap
"$FX/mkrecord" --launches=600000 --launch-cap=262144 --allocs=20000 --alloc-cap=65536 "$rec"
"$FX/mkrecord" --launches=600000 --launch-cap=262144 --allocs=20000 --alloc-cap=65536 \
	--launch-times=1 "$chunked"
run_c_test "$B/tests/reader/sparse_test" "$rec" "$chunked"

# The CLI reads the ring back from its head only as far as the five and the diagnosis need, and
# says how far instead of a count of the whole ring (the lazy count is the fallback, compared
# above).
out=$("$CI" "$rec" kernels --last 5)
flat=$(printf '%s\n' "$out" | sed -n '1,/^  seq /p' | tr -s ' \n' '  ')
like "$flat" "^Launches: last 5 \(the ring holds 262,144; 337,856 older launches were overwritten; the newest [0-9,]+ of its entries read\)" \
	"kernels --last 5: says how much of the ring was read"
read_n=$(printf '%s\n' "$flat" | sed -n 's/.*the newest \([0-9,]*\) of its.*/\1/p' | tr -d ,)
ok "... which is a few thousand entries, not the ring's 262,144 ($read_n)" \
	test "${read_n:-262144}" -lt 16384
is "$(printf '%s\n' "$out" | grep -c '^  [0-9]')" 5 "... and five launches are shown"
like "$(printf '%s\n' "$out" | grep -m1 '^  [0-9]')" "^  599996 " "... the newest five, oldest first"

if [ -x /usr/bin/time ]; then
	peak() { /usr/bin/time -f '%M' "$CI" "$@" 2>&1 >/dev/null | tail -1; }
	bound=$((90 * 1024))
	for f in "$rec" "$chunked"; do
		for view in "kernels --last 5" "kernels --last 5 --stream 0x0" "allocs -n 5"; do
			kib=$(peak "$f" $view)
			ok "$(basename "$f"): $view peaks at $kib KiB (at most $bound)" test "$kib" -le "$bound"
		done
	done
else
	skip "/usr/bin/time is not installed"
fi
done_testing
