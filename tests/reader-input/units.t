#!/usr/bin/env bash
# Unit tests of the input side in C (names/errors, byte cursor, buffer sources, decode
# robustness on cut and damaged synthetic records), plus the whole CUresult table against
# cuda.h read independently here with sed.
. "$(dirname "$0")/../lib/tap.sh"
D=$B/tests/reader-input
[ -x "$D/test-names" ] && [ -x "$D/test-bytes" ] && [ -x "$D/test-shrink" ] && [ -x "$D/test-spool" ] || skip_all "unit tests not built (make check builds them)"

run_unit() { # name binary: run a C TAP program, report it as one test with its output on failure
	local out rc
	out=$("$2" 2>&1); rc=$?
	if [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		_tap_result 0 "$1 ($(printf '%s\n' "$out" | grep -c '^ok') checks)"
	else
		_tap_result 1 "$1"; diag "$(printf '%s\n' "$out" | grep -v '^ok')"
	fi
}
run_unit "names and errors" "$D/test-names"
run_unit "byte cursor, buffer sources, damaged records" "$D/test-bytes"
run_unit "a file that shrinks while it is read" "$D/test-shrink"
run_unit "a core through a pipe: sparse copy, bound, empty" "$D/test-spool"
if command -v valgrind >/dev/null 2>&1 && [ "${CI_SANITIZE:-}" = "" ]; then
	# The spool's descriptors and buffers: nothing leaks, no uninitialised byte is written.
	vg=$(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--trace-children=no "$D/test-spool" 2>&1); rc=$?
	is "$rc" 0 "test-spool under valgrind: no errors, no leaks"
	[ "$rc" -eq 0 ] || diag "$(printf '%s\n' "$vg" | grep -v '^ok' | head -30)"
else
	skip "valgrind is not installed (or the build is sanitized)"
fi

# Every "CUDA_…  = N" of the CUresult enum in cuda.h must come back by value.
CUDA_H=${CUDA_HOME:-/usr/local/cuda}/include/cuda.h
want=$(sed -n '/typedef enum cudaError_enum/,/} CUresult;/s/^ *\(CUDA_[A-Z0-9_]*\) *= *\([0-9]*\).*/\2 \1/p' "$CUDA_H")
values=$(printf '%s\n' "$want" | cut -d' ' -f1)
got=$("$D/test-names" $values | cut -d' ' -f1,2)
is "$got" "$want" "every CUresult of cuda.h has its name ($(printf '%s\n' "$want" | wc -l) values)"
# Sticky: the ones cuda.h says leave the process in an inconsistent state or the context unusable.
sticky=$("$D/test-names" 700 714 715 716 717 718 719 710 1 2 201 400 | awk '{print $3}' | tr -d '\n')
is "$sticky" "111111110000" "sticky errors per cuda.h's wording"
done_testing
