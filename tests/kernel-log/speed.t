#!/usr/bin/env bash
# The parser is linear and fast: 100 MiB of dmesg (the fixture repeated: about 370,000 Xid lines
# among 770,000) and the same text gzip'ed, parsed by klog-dump --time.  docs/KERNEL-LOG.md has
# the figures (well under 1 s); the test allows 2 s, as it shares a loaded machine.
. "$(dirname "$0")/../lib/tap.sh"
D=$B/tests/kernel-log
X=$TOP/tests/kernel-log/fixtures
[ -x "$D/klog-dump" ] || skip_all "klog-dump not built"
[ "${CI_SANITIZE:-}" = address ] && skip_all "timing is meaningless under ASan"
plan 4
cp "$X/dmesg.log" "$T/big"
while [ "$(stat -c %s "$T/big")" -lt 104857600 ]; do cat "$T/big" "$T/big" > "$T/big2"; mv "$T/big2" "$T/big"; done
head -c 104857600 "$T/big" > "$T/100m.log"; rm "$T/big"
gzip -1 -c "$T/100m.log" > "$T/100m.log.gz"
for f in 100m.log 100m.log.gz; do
	out=$("$D/klog-dump" --quiet --time "$T/$f")
	s=$(printf '%s\n' "$out" | sed -n 's/^time parse_s=\([0-9.]*\) .*/\1/p')
	like "$out" "bytes=104857600 .* items=100000 " "$f: 100 MiB read, the first 100,000 Xid lines kept"
	ok "$f: parsed in ${s:-?} s (at most 2)" awk -v s="${s:-99}" 'BEGIN { exit !(s <= 2) }'
done
done_testing
