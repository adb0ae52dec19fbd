#!/usr/bin/env bash
# Record files (snapshots, persistent records) built by the mkrecord fixture, decoded by the
# cidecode driver: what a correct decode must show follows from the options given to mkrecord
# (synth.h: launch i has seq i+1, function i%4, stream i%3; alloc i lives at base+i*1MiB).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$D/mkrecord" ] && [ -x "$D/cidecode" ] || skip_all "fixtures not built (make check builds them)"

mk() { "$D/mkrecord" "$@" "$T/r.cisnap"; }

mk
dec --entries "$T/r.cisnap"
is "$rc" 0 "default record decodes"
is "$(field source.kind) $(field location.method) $(field header.pid)" "record file 4242" "record file located at offset 0 with its pid"
is "$(sec launches accepted) $(sec allocations accepted) $(sec frees accepted) $(sec errors accepted) $(sec events accepted)" \
   "10 5 2 2 4" "every published entry accepted"
is "$(sec functions accepted) $(sec streams accepted) $(sec devices accepted) $(sec threads accepted)" "4 3 1 1" "tables accepted"
is "$(printf '%s\n' "$out" | grep -c '^launch .*consistent=1')" 10 "every launch whole"
is "$(printf '%s\n' "$out" | awk '/^launch /{print $2}' | tr '\n' ' ')" \
   "seq=1 seq=2 seq=3 seq=4 seq=5 seq=6 seq=7 seq=8 seq=9 seq=10 " "launches oldest first"
like "$out" "launch seq=6 time=6000 function=kernel_1 stream=2 " "launch 6 names kernel_1 on stream 2"
addrs=$(printf '%s\n' "$out" | awk '/^alloc /{sub("address=", "", $3); print $3}')
is "$addrs" "$(printf '%s\n' "$addrs" | sort)" "live allocations sorted by address"
like "$out" "alloc id=3 address=0x7f0000200000 size=12288 kind=device" "alloc 3 at base + 2 MiB, 3 pages"
like "$out" "error seq=2 result=CUDA_ERROR_ILLEGAL_ADDRESS api=cuStreamSynchronize sticky=1" "sticky error decoded"
is "$(field header.exe)" "/opt/synth/engine" "header strings resolve"
like "$out" "stack 2 frames=3 first=0x401100" "stack depot resolves frames"
is "$(field source.live)" 0 "a snapshot is not read as live"

mk --launches=40 --launch-cap=16
dec --entries "$T/r.cisnap"
is "$(sec launches accepted) $(sec launches overwritten)" "16 24" "wrapped ring: capacity kept, the rest overwritten"
is "$(printf '%s\n' "$out" | awk '/^launch /{print $2}' | head -1)" "seq=25" "oldest surviving launch first"

# Order: launches by time then seq, whatever order the slots hold them in (checked here from
# the decoded lines alone); live allocations by address then id.
order() {
	printf '%s\n' "$out" | awk '/^launch / { split($2, s, "="); split($3, t, "=")
		if (n && (t[2] < pt || (t[2] == pt && s[2] + 0 <= ps))) bad++
		if (n && t[2] == pt) ties++
		pt = t[2] + 0; ps = s[2] + 0; n++; ok += / consistent=1$/ }
		END { print n + 0, ok + 0, bad + 0, (ties > 0) }'
}
mk --launches=100 --launch-cap=64 --launch-times=1
dec --entries "$T/r.cisnap"
is "$(order)" "64 64 0 1" "chunked slots (threads filling chunks of four): all whole, in time order, ties by seq"
mk --launches=300 --launch-cap=256 --launch-times=2
dec --entries "$T/r.cisnap"
is "$(order)" "256 256 0 1" "random times with many ties: time order, ties by seq"
mk --alloc-twins=1
dec --entries "$T/r.cisnap"
is "$(printf '%s\n' "$out" | awk '/^alloc /{ printf "%s %s ", $2, $3 }')" \
   "id=1 address=0x7f0000000000 id=2 address=0x7f0000000000 id=3 address=0x7f0000200000 id=4 address=0x7f0000300000 id=5 address=0x7f0000400000 " \
   "allocations at one address by id (the later one took the home slot)"

mk --torn=3
dec --entries "$T/r.cisnap"
is "$(sec launches accepted) $(sec launches torn)" "7 3" "torn launches counted, not trusted"
unlike "$out" "launch seq=(8|9|10) " "torn launches absent from the model"
like "$out" "warning.model launches: 3 entries were being written" "torn entries reported"

mk --minor=7 --entry-pad=24
dec --entries "$T/r.cisnap"
is "$rc $(sec launches accepted) $(sec allocations accepted)" "0 10 5" "newer minor with larger entries: known prefix read"
like "$out" "newer recorder \(format 1.7" "newer minor noted"

mk --major=2
dec --entries "$T/r.cisnap"
is "$rc" 3 "unknown major exits 3"
like "$out" "format version 2\.[0-9]+.*reads version 1.x only" "unknown major refused with the versions"

for d in header-size:"header size is impossible" dir:"section directory lies outside"; do
	mk --damage="${d%%:*}"; dec --entries "$T/r.cisnap"
	is "$rc" 3 "damaged header (${d%%:*}) exits 3"
	like "$out" "${d#*:}" "damaged header (${d%%:*}) explained"
done
mk --damage=magic; dec --entries "$T/r.cisnap"
is "$rc" 3 "no magic: not a record"
like "$out" "not a core dump or a cudainspect record file" "no magic explained"

for d in misaligned:launches:"not 64-byte aligned" past-end:errors:"extends past the end" \
         entry-size:launches:"entry size is wrong"; do
	IFS=: read -r dmg s why <<<"$d"
	mk --damage="$dmg"; dec --entries "$T/r.cisnap"
	is "$rc $(sec "$s" accepted)" "0 0" "$dmg: the $s section is not used, the rest decodes"
	like "$out" "warning.model the record's .* section .*$why" "$dmg: explained"
done
is "$(sec allocations accepted)" 5 "other sections unaffected by one bad section"

mk --damage=overlap; dec --entries "$T/r.cisnap"
like "$out" "warning.model the record's launches and events sections overlap" "overlapping sections detected"
is "$(( $(sec launches accepted) + $(sec events accepted) ))" 10 "only one of two overlapping sections used"

mk --damage=refs; dec --entries "$T/r.cisnap"
is "$(printf '%s\n' "$out" | grep -c '^launch .* stream=-1 ')" 2 "bad stream slots cleared to none"
like "$out" "function 3 name=\(none\)" "bad string offset cleared"
like "$out" "warning.model launches: 2 references" "bad references counted"

mk --damage=stack; dec --entries "$T/r.cisnap"
is "$(sec stacks accepted) $(sec stacks invalid)" "1 1" "stack with frames out of range invalid"
like "$out" "stack 2 frames=0" "invalid stack yields no frames"

mk --damage=seq; dec --entries "$T/r.cisnap"
is "$(sec launches accepted) $(sec launches invalid)" "9 1" "entry whose seq does not fit its slot invalid"

mk --damage=late-head; dec --entries "$T/r.cisnap"
is "$(sec launches accepted) $(sec launches torn) $(sec launches invalid)" "8 2 0" "entries published after the head was copied: torn, not damage"

mk --damage=dup; dec --entries "$T/r.cisnap"
like "$out" "lists the launches section twice" "duplicate section ignored with a warning"
is "$(sec launches accepted)" 10 "first of duplicate sections used"

mk --damage=unknown-section; dec --entries "$T/r.cisnap"
is "$rc $(sec launches accepted)" "0 10" "unknown section kind ignored"
unlike "$out" "warning" "no warning for a section of a newer minor"

mk --truncate=100; dec --entries "$T/r.cisnap"
is "$rc" 3 "record cut inside the header exits 3"
like "$out" "only 100 of the 400 header bytes" "cut header explained"
mk --truncate=8192; dec --entries "$T/r.cisnap"
full=$("$D/mkrecord" - | wc -c)
is "$rc $(field location.size)" "0 8192" "record cut after two pages: what is there decodes"
missing=$(printf '%s\n' "$out" | awk '$1 == "section" { for (i = 3; i <= NF; i++) if ($i ~ /^missing=/) { sub("missing=", "", $i); s += $i } } END { print s + 0 }')
ok "entries past the cut counted as missing ($missing)" test "$missing" -gt 0
like "$out" "only 8.0 KiB of the record's $((full / 1024)).0 KiB are in the input" "cut reported with sizes"

mk --launches=0 --allocs=0 --frees=0 --errors=0 --events=0; dec --entries "$T/r.cisnap"
is "$rc $(field model.launches) $(field model.allocs)" "0 0 0" "an empty record is fine"

mk --origin=2 --state=1; dec --entries "$T/r.cisnap"
is "$rc $(field source.live)" "0 1" "a persistent record of a live process is read seqlock-style"

# A lazy decode (the CLI's summary) must say what a complete one says, entry for entry; its
# entries are copied after the source is closed (cidecode --lazy), from the input it holds on to.
same_lazily() {
	local full lazy
	full=$("$D/cidecode" --entries "$@" 2>&1 | grep -v '^model\.lazy ')
	lazy=$("$D/cidecode" --entries --lazy "$@" 2>&1)
	printf '%s\n' "$lazy" | grep -q '^model\.lazy 1$' && [ "$full" = "$(printf '%s\n' "$lazy" | grep -v '^model\.lazy ')" ]
}
for opts in "" "--launches=300 --launch-cap=256 --launch-times=2" "--launches=100 --launch-cap=64 --launch-times=1" \
	    "--alloc-twins=1" "--damage=refs" "--torn=3" "--damage=late-head" "--minor=7 --entry-pad=24" \
	    "--truncate=12288"; do
	# shellcheck disable=SC2086
	mk $opts
	ok "lazy decode same as complete: ${opts:-defaults}" same_lazily "$T/r.cisnap"
done
mk --origin=2 --state=1; dec --lazy --entries "$T/r.cisnap"
is "$rc $(field model.lazy) $(field model.launches)" "0 0 10" "a record still being written is copied whole even when asked to be lazy"
done_testing
