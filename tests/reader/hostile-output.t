#!/usr/bin/env bash
# What the reader prints is safe whatever the record holds (issue 8): every suggested command
# can be pasted into a shell (the input's path and kernel names are quoted: pasting runs what it
# says and nothing else), bidirectional and invisible formatting characters never reach the
# terminal (nor `jq -r` of the JSON), and a string table without terminators neither floods the
# output nor lets a string run past CI_STRING_MAX (4096 bytes).
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkrecord
[ -x "$CI" ] && [ -x "$MK" ] || skip_all "the CLI or mkrecord is not built"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
cd "$T" || exit 1

# --- pasted hints ---------------------------------------------------------------------------
mkdir -p paste && cd paste || exit 1
name="r\$(touch pwned)'q \`touch pwned2\` \$HOME;x.cisnap"
"$MK" "$name"
ok "a record under a hostile name" test -f "$name"
out=$("$CI" --width 200 "$name")
is "$?" 0 "summary of it: exit 0"
hints=$(printf '%s\n' "$out" | sed -n 's/^  \(cudainspect .*\)   # .*/\1/p')
ok "the summary suggests cudainspect commands" test -n "$hints"
while IFS= read -r cmd; do
	[ -n "$cmd" ] || continue
	# Paste it as a user would, with the real CLI first on PATH.
	got=$(PATH="$B:$PATH" sh -c "$cmd" 2>&1); rc=$?
	rest=${cmd##*.cisnap\' }       # the view and its options, after the quoted path
	want=$("$CI" "$name" $rest 2>&1)
	is "$rc" 0 "pasted hint '$rest' runs"
	is "$got" "$want" "... and shows what the CLI shows for that file"
done <<<"$hints"
ok "no pasted hint ran \$(...) or backticks" test ! -e pwned -a ! -e pwned2
cd "$T" || exit 1

"$MK" --damage=shell-name sh.cisnap
cs=$("$CI" --width 200 sh.cisnap | sed -n 's/^  \(compute-sanitizer --kernel-name .*\) CMD   # .*/\1/p')
ok "the compute-sanitizer hint names the kernel" test -n "$cs"
words=$(sh -c "printf '%s\n' $(printf '%s' "${cs#compute-sanitizer }")")
is "$words" "--kernel-name
kns=k\$(touch pwned)'x" "the shell splits it into the option and the kernel's exact name"
ok "and runs nothing" test ! -e pwned

# --- bidirectional controls -------------------------------------------------------------------
"$MK" --damage=bidi bidi.cisnap
rlo=$(printf '\342\200\256')
for v in summary fault kernels all; do
	t=$("$CI" --width 200 bidi.cisnap $v 2>&1)
	ok "$v view: no RIGHT-TO-LEFT OVERRIDE" test "$(printf '%s' "$t" | grep -c "$rlo")" -eq 0
done
like "$("$CI" bidi.cisnap kernels)" 'kern\?0' "the kernel name shows it as ?"
j=$("$CI" --json bidi.cisnap)
ok "JSON: no raw U+202E" test "$(printf '%s' "$j" | grep -c "$rlo")" -eq 0
ok "jq -r of every string: none either" \
	test "$(printf '%s' "$j" | jq -r '.. | strings' | grep -c "$rlo")" -eq 0

# --- unterminated strings ---------------------------------------------------------------------
"$MK" --damage=unterminated unt.cisnap
size=$(stat -c %s unt.cisnap)
"$CI" --json unt.cisnap >unt.json; rc=$?
is "$rc" 0 "a string area without terminators: JSON made"
jsize=$(stat -c %s unt.json)
ok "the JSON is not flooded ($jsize bytes for a $size-byte record, at most 4x)" test "$jsize" -le $((4 * size))
longest=$(jq -r '[.. | strings | length] | max' unt.json)
ok "no string in it is longer than CI_STRING_MAX ($longest)" test "${longest:-99999}" -le 4096
like "$("$CI" unt.cisnap 2>&1)" "references to entries, strings or stacks that do not exist were cleared" \
	"the summary says the string references were damage"
done_testing
