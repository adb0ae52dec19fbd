#!/usr/bin/env bash
# The bounded JSON document (issue 23 c; docs/JSON.md, "Bounded and full"): on a record with
# more launches, live allocations and frees than the bounds, `--json` keeps what the diagnosis
# used (the launches in flight, the faulting one, the allocation its pointer lies in) and each
# stream's newest launches, and counts what it left out so that shown + omitted is what the
# record holds; `--json=full` holds every entry.  The record is mkrecord's: launch i (from 0)
# is on stream i % 3 and passes SYNTH_ALLOC_BASE + (i % 5) * SYNTH_ALLOC_STRIDE + 16, each
# stream's breadcrumb is one short of its last launch (so its newest launch is in flight), and
# allocation ids are handed out in order (tests/reader-input/synth.c).
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkrecord
[ -x "$CI" ] && [ -x "$MK" ] || skip_all "$CI or $MK is not built"
command -v jq >/dev/null || skip_all "jq is not installed"
plan 26

# Bounds of include/cudainspect/cudainspect.h, as docs/JSON.md states them.
per_stream=256 allocs_max=4096 frees_max=1024
launches=40000 ring=16384 allocs=6000 frees=3000 free_ring=2048
"$MK" --launches=$launches --launch-cap=$ring --allocs=$allocs --alloc-cap=16384 \
	--frees=$frees --free-cap=$free_ring "$T/big.cisnap" >/dev/null 2>&1
"$CI" --json "$T/big.cisnap" >"$T/bounded.json"
is "$?" 0 "--json exits 0"
"$CI" --json=full "$T/big.cisnap" >"$T/full.json"
is "$?" 0 "--json=full exits 0"
b() { jq -r "$1" "$T/bounded.json"; }
f() { jq -r "$1" "$T/full.json"; }

# The full document holds every entry the record does.
is "$(f '[(.launches | length), (.allocations | length), (.frees | length)] | @tsv')" \
	"$ring	$allocs	$free_ring" "--json=full: every launch the ring holds, every live allocation, every free"
is "$(f '[.version, .bounds, .omitted.launches, .omitted.allocations, .omitted.frees] | @tsv')" \
	"6		0	0	0" "--json=full: schema 6, no bounds, nothing omitted"
is "$(b '[.version, .bounds.launches_per_stream, .bounds.allocations, .bounds.frees] | @tsv')" \
	"6	$per_stream	$allocs_max	$frees_max" "--json: schema 6 and its bounds"

# What is shown and what is omitted add up to the record's totals (counted by mkrecord's
# options and by the kernels view, not by the JSON).
kernels_total=$("$CI" "$T/big.cisnap" kernels --last 1 | sed -n 's/.*the ring holds \([0-9,]*\);.*/\1/p' | tr -d ,)
is "$kernels_total" "$ring" "the kernels view: the ring holds $ring launches"
is "$(b '(.launches | length) + .omitted.launches')" "$kernels_total" "launches shown + omitted = the ring's"
is "$(b '(.allocations | length) + .omitted.allocations')" "$allocs" "allocations shown + omitted = the record's $allocs"
is "$(b '(.frees | length) + .omitted.frees')" "$free_ring" "frees shown + omitted = the free ring's $free_ring"
ok "fewer launches than the ring's" test "$(b '.launches | length')" -lt $((ring / 4))

# Each stream's newest launches: mkrecord's launch seqs of stream s are s+1, s+4, ..., so the
# newest $per_stream of each are the seqs above launches - 3 * per_stream.
want=$(seq $((launches - 3 * per_stream + 1)) $launches | tr '\n' ' ')
got=$(b '[.launches[].seq | select(. > '$((launches - 3 * per_stream))')] | map(tostring) | join(" ")')
is "$got " "$want" "each stream's newest $per_stream launches, in order"
# The newest launch of each stream is in flight (its breadcrumb is one short).
is "$(b '[.launches[] | select(.state == "in_flight") | .seq] | map(tostring) | join(" ")')" \
	"$((launches - 2)) $((launches - 1)) $launches" "the launches in flight are there"
fseq=$(b '.diagnosis.faulting_launch.seq')
is "$(b "[.launches[] | select(.seq == $fseq)] | length")" 1 "the faulting launch ($fseq) is in launches"
# The allocation its pointer lies in: old (id (fseq - 1) % 5 + 1, below the newest 4,096), kept
# because the diagnosis attributes the pointer to it.
addr=$(printf '0x%x' $((0x7f0000000000 + (fseq - 1) % 5 * 0x100000)))
is "$(b "[.allocations[] | select(.address_hex == \"$addr\") | .id] | map(tostring) | join(\" \")")" \
	"$(((fseq - 1) % 5 + 1))" "the allocation the faulting pointer lies in ($addr), though old"
is "$(b "[.diagnosis.attributions[] | select(.launch == $fseq) | .allocation_address_hex] | .[0]")" "$addr" \
	"... which the diagnosis names"
# The newest live allocations by id, all of them.
is "$(b "[.allocations[].id | select(. > $((allocs - allocs_max)))] | length")" "$allocs_max" \
	"the newest $allocs_max allocations"
# The newest frees.
is "$(b '[.frees[].id] | sort | .[-1]')" "$(f '[.frees[].id] | sort | .[-1]')" "the newest free is there"

# The bounded document comes from a lazy model (only what it shows is read), the full one from
# a complete decode: each entry shown is the full document's, and so is everything else.
same() { # WHAT JQ-FILTER
	ok "$1: as in the full document" cmp <(b "$2" | sort) <(jq -r --slurpfile s <(b "$3") "$4" "$T/full.json" | sort)
}
same "the launches shown" '.launches[] | tojson' '[.launches[].seq]' \
	'($s[0] | map({(tostring): 1}) | add) as $k | .launches[] | select($k[.seq | tostring]) | tojson'
same "the allocations shown" '.allocations[] | tojson' '[.allocations[].id]' \
	'($s[0] | map({(tostring): 1}) | add) as $k | .allocations[] | select($k[.id | tostring]) | tojson'
same "the frees shown" '.frees[] | tojson' '[.frees[].id]' \
	'($s[0] | map({(tostring): 1}) | add) as $k | .frees[] | select($k[.id | tostring]) | tojson'
rest='del(.launches, .allocations, .frees, .bounds, .omitted)'
ok "everything else: as in the full document" cmp <(b "$rest") <(f "$rest")

# Below the bounds the two documents are the same but for the bounds.
"$MK" --launches=500 --launch-cap=1024 --allocs=50 --alloc-cap=256 --frees=20 --free-cap=64 \
	"$T/small.cisnap" >/dev/null 2>&1
ok "a record below the bounds: the same document" \
	cmp <("$CI" --json "$T/small.cisnap" | jq -S 'del(.bounds)') \
	<("$CI" --json=full "$T/small.cisnap" | jq -S 'del(.bounds)')

# The newest by id whatever the order of the table: allocation i (by address) gets id
# i * 7919 mod 20,000 + 1, so the ids come in no order from the keys (json_bound.c's selection).
"$MK" --allocs=20000 --alloc-cap=65536 --alloc-id-step=7919 "$T/ids.cisnap" >/dev/null 2>&1
"$CI" --json "$T/ids.cisnap" >"$T/ids.json"
is "$(jq '[([.allocations[].id | select(. > 20000 - 4096)] | length), .omitted.allocations + (.allocations | length)] | @tsv' -r "$T/ids.json")" \
	"$allocs_max	20000" "ids in no order of address: the newest $allocs_max shown, shown + omitted = 20000"
is "$(jq '[.allocations[] | ((.address - 139637976727552) / 1048576) as $i | select(.id != $i * 7919 % 20000 + 1)] | length' "$T/ids.json")" \
	0 "... each with the id mkrecord gave its address"
is "$(jq '[.allocations[].id | select(. <= 20000 - 4096)] - [.diagnosis.attributions[] | .allocation, .history.allocation?] | length' "$T/ids.json")" \
	0 "... the older ones shown are those the diagnosis names (its attributions, their history)"

# A value --json does not know is a usage error.
err=$("$CI" --json=fulll "$T/small.cisnap" 2>&1)
is "$? $err" "2 cudainspect: --json takes no value or 'full', not 'fulll'
Try 'cudainspect --help'." "--json=fulll: usage error (2), said"
