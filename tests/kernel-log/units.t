#!/usr/bin/env bash
# The kernel-log parser's unit tests (tests/kernel-log/test-kernel-log.c: the real Xid lines of
# fixtures/xid-lines.txt in every log format with values read off the lines by hand, the bug
# report, corner cases of each format, malformed lines, caps, selection rules), and the number
# of Xid lines klog-dump finds in each fixture against a count made with grep.
. "$(dirname "$0")/../lib/tap.sh"
D=$B/tests/kernel-log
X=$TOP/tests/kernel-log/fixtures
[ -x "$D/test-kernel-log" ] && [ -x "$D/klog-dump" ] || skip_all "kernel-log tests not built (make check builds them)"
out=$("$D/test-kernel-log" "$X" 2>&1); rc=$?
if [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
	ok "unit tests ($(printf '%s\n' "$out" | grep -c '^ok') checks)" true
else
	ok "unit tests" false; diag "$(printf '%s\n' "$out" | grep -v '^ok' | head -40)"
fi
for f in "$X"/*.log "$X"/journal.json; do
	n=$(grep -c 'NVRM: Xid (' "$f")
	got=$("$D/klog-dump" --quiet "$f" | sed -n 's/^stats .* items=\([0-9]*\) .*/\1/p')
	is "$got" "$n" "$(basename "$f"): $n Xid lines, as grep counts them"
done
# The same bug report through gzip, as one member and as one member per section.
gzip -n -c "$X/bugreport.log" > "$T/one.gz"
( cd "$T" && csplit -s -z -f sec "$X/bugreport.log" '/^____/' '{*}' && for s in sec*; do gzip -n -c "$s"; done > many.gz )
n=$(grep -c 'NVRM: Xid (' "$X/bugreport.log")
for g in one many; do
	s=$("$D/klog-dump" --quiet "$T/$g.gz" | grep '^stats')
	like "$s" " items=$n .* gzip=1 damaged=0 capped=0 bug_report=1" "bug report gzip'ed ($g member(s)): $n Xid lines"
done
# Read from standard input, as `--kernel-log -` will.
s=$("$D/klog-dump" --quiet - < "$X/dmesg.log" | grep '^stats')
like "$s" " items=$(grep -c 'NVRM: Xid (' "$X/dmesg.log") " "standard input"
done_testing
