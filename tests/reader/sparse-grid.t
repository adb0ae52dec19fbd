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
# With random times and torn entries in a wrapped ring, a stream's unfinished launches are
# never all found (some are torn) and no launch's time says the scan may stop, so the sparse
# decode reads the whole ring there (SPARSE_MAY_READ_ALL: sparse_test requires less elsewhere);
# it still keeps only what the diagnosis weighs, which sparse_test checks on every record.  The
# grid also found the argument history visiting the newest 4,096
# launches by time, which with random times left out some of the window's launches in a
# complete decode but not in a sparse one (now the window's slots, every decode alike:
# corefile/diagnose/history.c), and, with random launch times (mkrecord --launch-times=2) in
# the ring wrapped twice, the lazy kernels view counting 5,463 launches of a stream where the
# complete decode counts 5,461 (`kernels --last 7 --stream`): ordering launches that share a
# time moved their slots but not the stream, stream seq and flags kept beside them
# (corefile/model/order.c, order_ties).
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
			may_read_all=
			if [ "$times" = 2 ] && [ "$launches" -gt "$cap" ] && [ -z "${extra##*--torn*}" ]; then
				may_read_all=1
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
			SPARSE_MAY_READ_ALL=$may_read_all run_c_test "$B/tests/reader/sparse_test" "$rec"
		done
	done
done
done_testing
