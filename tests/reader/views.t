#!/usr/bin/env bash
# The view table (corefile/views.c) names each view once, and everything that lists views
# follows it: `--list-views`, `--help`'s VIEW line, the unknown-view message, the generated GDB
# command file (one documented `cuda NAME` per view, with the table's text) and docs/CLI.md's
# VIEW list, all in the table's order; and each view runs.
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
[ -x "$CI" ] || skip_all "the CLI is not built"
table=$("$CI" --list-views)
names=$(printf '%s\n' "$table" | sed -n 's/^view //p')
ok "--list-views lists views" test "$(printf '%s\n' "$names" | wc -l)" -ge 9
is "$(printf '%s\n' "$names" | head -1)" summary "the first view is the default, summary"
is "$(printf '%s\n' "$names" | sort | uniq -d)" "" "no view is listed twice"

help=$("$CI" --help | sed -n '/^VIEW /,/^$/p' | tr -s ' |\n' ' ' | sed 's/VIEW //; s/(default) //; s/ $//')
is "$help" "$(printf '%s ' $names | sed 's/ $//')" "--help's VIEW line: the table's views in its order"
msg=$("$CI" core no-such-view 2>&1)
is "$(printf '%s\n' "$msg" | sed -n "s/.*unknown view 'no-such-view' (\(.*\))/\1/p")" \
	"$(printf '%s, ' $names | sed 's/, $//')" "the unknown-view message lists the table's views"

doc=$(sed -n '/^## VIEW/,/^## /p' "$TOP/docs/CLI.md" | sed -n 's/^| `\([a-z]*\)`.*/\1/p')
is "$(printf '%s ' $doc)" "$(printf '%s ' $names)" "docs/CLI.md's VIEW list is the table, in its order"

G=$B/cudainspect.gdb
if [ -f "$G" ]; then
	is "$(sed -n 's/^define cuda \([a-z]*\)$/\1/p' "$G" | grep -vx -e json -e gpucore | tr '\n' ' ')" \
		"$(printf '%s ' $names)" "the GDB command file defines cuda NAME for each view, in order"
	for v in $names; do
		want=$(printf '%s\n' "$table" | sed -n "/^view $v\$/,/^\$/p" | sed -n 's/^\(summary\|help\) //p')
		got=$(sed -n "/^document cuda $v\$/,/^end\$/p" "$G" | sed '1d;$d')
		is "$got" "$want" "help cuda $v is the table's text"
	done
else
	skip "the GDB command file is not built"
fi

# Each view of the table runs on a record (mkrecord's index-derived record).
MK=$B/tests/reader-input/mkrecord
if [ -x "$MK" ]; then
	"$MK" "$T/r.cisnap"
	for v in $names; do
		"$CI" "$T/r.cisnap" "$v" >/dev/null 2>"$T/err"
		is "$?" 0 "view $v runs"
	done
else
	skip "mkrecord is not built"
fi
done_testing
