#!/usr/bin/env bash
# The JIT reader without GDB (tests/plugin/reader-harness plays GDB's part), on synthetic record
# files from the reader's fixture (tests/reader-input/mkrecord) and on bytes that are not
# records: what it claims and gives back (no symbols of its own), what it says when no record
# arrives, and damaged records, which must never crash it (this test also runs under ASan+UBSan
# in `make check-asan`).
. "$(dirname "$0")/../lib/tap.sh"
H=$B/tests/plugin/reader-harness
MK=$B/tests/reader-input/mkrecord
CLI=$B/cudainspect
for p in "$H" "$MK" "$CLI"; do [ -x "$p" ] || skip_all "$p not built (make check builds it)"; done
export COLUMNS=100 NO_COLOR=1

"$MK" "$T/rec.cisnap"
out=$("$H" "$T/rec.cisnap" 2>&1)
like "$out" "== $T/rec.cisnap: status success" "a flight record is claimed"
is "$(printf '%s\n' "$out" | grep -m1 '^cudainspect: [A-Z]')" "$("$CLI" "$T/rec.cisnap" | head -n 1)" \
	"its summary's headline is the CLI's"
like "$out" '^cudainspect [0-9.]+: JIT reader loaded' "the reader announces itself when loaded"
# Device pointers, live and freed, are the symbol image's to name (recorder/symimage.h): the
# reader opens no symbol table of its own, so no GDB command can meet one.
unlike "$out" '^(block|symtab) ' "the reader adds no symbols of its own"

"$MK" --state=1 --launches=0 --errors=0 "$T/idle.cisnap"
out=$("$H" "$T/idle.cisnap" 2>&1)
like "$out" 'cudainspect: flight record registered by pid 4242 \(no launches or errors yet\)' \
	"a live record with nothing in it gets one line, not a summary"
unlike "$out" '^Faulting kernel' "no summary for it"

# Not ours: GDB's ELF reader (or nobody) must get these back untouched and silently.
printf 'CUDAINS' >"$T/short"
: >"$T/empty"
for f in "$B/tests/plugin/jitfn.elf" "$T/short" "$T/empty"; do
	out=$("$H" "$f" 2>&1)
	like "$out" "== $f: status fail" "not a record, handed back: ${f##*/}"
	is "$(printf '%s\n' "$out" | grep -vc -e '^==' -e 'JIT reader loaded')" 0 "nothing printed for ${f##*/}"
done

# Damaged records: claimed (so GDB adds nothing), explained, never a crash.
for d in header-size dir misaligned overlap past-end entry-size refs stack seq dup unknown-section; do
	"$MK" --damage=$d "$T/d.cisnap"
	out=$("$H" "$T/d.cisnap" 2>&1)
	rc=$?
	ok "damage=$d: reader survives (exit $rc)" test $rc -eq 0
	like "$out" "== $T/d.cisnap: status success" "damage=$d: claimed"
done
for n in 16 200 4096; do
	"$MK" --truncate=$n "$T/t.cisnap"
	out=$("$H" "$T/t.cisnap" 2>&1)
	rc=$?
	ok "truncated to $n bytes: reader survives (exit $rc)" test $rc -eq 0
	like "$out" 'cannot be decoded|^cudainspect: ' "truncated to $n bytes: says what it could do"
done
"$MK" --major=9 "$T/v.cisnap"
like "$("$H" "$T/v.cisnap" 2>&1)" 'cannot be decoded: .*' "an unknown major version is explained"

# The first unwind after no record says so, once; after a record, never.
out=$("$H" --unwind "$T/short" 2>&1)
is "$(printf '%s\n' "$out" | grep -c '^cudainspect: no flight record in this process (')" 1 "no record: said once"
is "$(printf '%s\n' "$out" | grep -c '^unwind fail')" 3 "the reader never claims to unwind a frame"
out=$("$H" --unwind "$T/rec.cisnap" 2>&1)
unlike "$out" 'no flight record' "after a record: no such line"

# No record handed over while GDB holds a core (the harness keeps it open as GDB does): the
# reader looks at the core itself.  mkcore (the reader's fixture) writes cores with and without
# a record; its modules carry no build-id, so nothing can be blamed on a replaced library.
MKCORE=$B/tests/reader-input/mkcore
if [ -x "$MKCORE" ]; then
	"$MKCORE" "$T/with.core" && "$MKCORE" --no-record "$T/without.core"
	out=$("$H" --unwind --hold "$T/with.core" "$T/short" 2>&1)
	like "$out" "^cudainspect: the core file $T/with.core holds a flight record, but GDB did not hand it over \(.*CUDAINSPECT_JIT=off.*\); \`cuda summary\` reads it from there directly$" \
		"a core with a record GDB did not hand over: said so, with the causes left, and cuda summary"
	unlike "$out" 'no flight record' "... not 'no flight record'"
	out=$("$H" --unwind --hold "$T/without.core" "$T/short" 2>&1)
	like "$out" "^cudainspect: no flight record in the core file $T/without.core \(the process did not run with libcudainspect-rec.so" \
		"a core without a record: 'no flight record in the core file'"
else
	skip "$MKCORE not built"
	skip "$MKCORE not built"
	skip "$MKCORE not built"
fi
done_testing
