#!/usr/bin/env bash
# Snapshots of a big record write only what was used (issue 23): a 1 GiB record with 20,000 live
# allocations spread by the hash over its 1.09-million-slot table.  The snapshots leave the
# table's never-written slots, and the frames and strings past their heads, as holes without
# reading them; reading them made the kernel give the record a zeroed page for each, 280 MiB
# more memory (and half a second) for the crashing process.  What the snapshot holds must be
# what the core holds: every allocation, launch, error, context and section count, and the
# diagnosis, compared in the reader's JSON (module paths aside: the core names libc by its
# mapped path).  The crash's peak RSS with the snapshots must stay within 64 MiB of the same
# crash without them.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder bench/reader/bigcore
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
CI=$B/cudainspect

# crash DIR SNAPSHOTS CORE_LIMIT: bigcore faults under the recorder; its peak RSS in DIR/rss.
crash() {
	mkdir -p "$1"
	( cd "$1" && ulimit -c "$3" && CUDASIM_FAULT=bench_fault CUDAINSPECT_QUIET=1 \
		CUDAINSPECT_SIZE=1G CUDAINSPECT_SNAPSHOT=$2 LD_PRELOAD=$REC \
		/usr/bin/time -o "$1/rss" -f %M "$B/bench/reader/bigcore" --host-gib 0 --allocs 20000 \
		--launches 2000 --threads 2 ) >/dev/null 2>&1
}
[ -x /usr/bin/time ] || skip_all "/usr/bin/time is not installed"
crash "$T/with" signal,error unlimited
# Memory is measured without core dumps: writing one reads the whole record.
crash "$T/rss-with" signal,error 0
crash "$T/rss-without" none 0
core=$(ls "$T"/with/core* 2>/dev/null | head -1)
snap=$(ls "$T"/with/*-signal.cisnap 2>/dev/null | head -1)
[ -n "$core" ] || skip_all "bigcore left no core"
ok "the crash wrote a signal snapshot" test -n "$snap"
ok "... and an error snapshot" test -n "$(ls "$T"/with/*-error.cisnap 2>/dev/null)"

"$CI" --json=full "$core" >"$T/core.json"
"$CI" --json=full "$snap" >"$T/snap.json"
is "$(jq '.allocations | length' "$T/snap.json")" 20000 "the snapshot holds the 20,000 allocations"
part() { jq -cS "$2" "$1" | sed 's#"/usr/lib/#"/lib/#g'; }
for k in .allocations .launches .errors .contexts .streams .record.sections .diagnosis; do
	if [ "$(part "$T/snap.json" "$k")" = "$(part "$T/core.json" "$k")" ]; then
		ok "snapshot and core agree on $k" true
	else
		ok "snapshot and core agree on $k" false
		diag "$(diff <(part "$T/core.json" "$k" | jq -S .) <(part "$T/snap.json" "$k" | jq -S .) | head -20)"
	fi
done

with=$(tail -1 "$T/rss-with/rss") without=$(tail -1 "$T/rss-without/rss")
if [ "${CI_SANITIZE:-}" = address ]; then
	skip "peak RSS under ASan says little of the recorder's own"
else
	ok "the crash with snapshots peaks at $with KiB, without $without KiB (at most 64 MiB more)" \
		test "$with" -le $((without + 64 * 1024))
fi
done_testing
