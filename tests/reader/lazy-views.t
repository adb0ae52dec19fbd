#!/usr/bin/env bash
# The kernels and allocs views read what they show (issue 23): on a record whose launch ring has
# wrapped, `kernels --last 5` walks the ring back from its head and loads only the launches it
# shows, and `allocs -n 5` the first allocations; the rest is counted from the 32-byte keys of a
# lazy model, never copied.  sparse_test renders both views from that lazy model and from a
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

out=$("$CI" "$rec" kernels --last 5)
like "$out" "^Launches: last 5 of 262144 \(the ring holds 262,144; 337,856 older launches were" \
	"kernels --last 5: the count is of the whole ring"
is "$(printf '%s\n' "$out" | grep -c '^  [0-9]')" 5 "... and five launches are shown"
like "$(printf '%s\n' "$out" | sed -n 3p)" "^  599996 " "... the newest five, oldest first"

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
