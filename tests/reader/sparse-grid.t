#!/usr/bin/env bash
# The bounded paths against a full decode on many generated records (issue 23): mkrecord makes
# records over a grid of ring sizes (a ring that has not wrapped, one wrapped twice, one of
# 65,536 entries wrapped four times), allocation tables (empty, 2,000 or 5,000 live), launch
# times (in ring order, chunked by writer thread, random) and damage (torn entries, allocations
# sharing an address, no errors, a ring of frees), and sparse_test diagnoses and renders each
# from the sparse model (what the summary reads), from the lazy model (kernels and allocs) and
# from a complete decode, and compares the diagnoses field by field and the views character by
# character.
#
# Wrapped rings with random launch times (mkrecord --launch-times=2) are skipped, one test
# each: there the two decodes disagree today (found by this grid; the lead has the details):
# the argument history counts 15 earlier launches from the complete model and 16 from the
# sparse one (its window is visited in time order and cut at 4 x 1,024 launches of the whole
# model), and the lazy kernels view counts 5,463 launches of a stream where the complete one
# counts 5,461, and loads 4,099 launches to show 5.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
FX=$B/tests/reader-input
[ -x "$FX/mkrecord" ] || skip_all "mkrecord is not built"

n=0
for ring in "500 1024" "40000 16384" "300000 65536"; do
	set -- $ring
	launches=$1 cap=$2
	for times in 0 1 2; do
		for extra in "--allocs=0 --alloc-cap=256" "--allocs=5000 --alloc-cap=16384" \
			"--allocs=5000 --alloc-cap=16384 --torn=5 --alloc-twins=1" \
			"--allocs=2000 --alloc-cap=4096 --errors=0 --frees=300 --free-cap=1024"; do
			n=$((n + 1))
			name="launches=$launches cap=$cap times=$times $extra"
			if [ "$times" = 2 ] && [ "$launches" -gt "$cap" ]; then
				skip "$name: random launch times in a wrapped ring (the decodes disagree: see the top of this file)"
				continue
			fi
			rec=$T/grid-$n.cisnap
			# Errors by default (a sticky one among them), unless the row says none.
			# shellcheck disable=SC2086
			if ! "$FX/mkrecord" --launches="$launches" --launch-cap="$cap" --errors=3 \
				--launch-times="$times" $extra "$rec" >/dev/null 2>&1; then
				ok "mkrecord makes $name" false
				continue
			fi
			diag "record $n: $name"
			run_c_test "$B/tests/reader/sparse_test" "$rec"
		done
	done
done
done_testing
