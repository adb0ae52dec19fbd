#!/usr/bin/env bash
# The renderers on hand-built records: the summary's promises (render_test.c), then the JSON
# documents it wrote, checked with jq against the schema in docs/JSON.md.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
run_c_test "$B/tests/reader/render_test" "$T"

command -v jq >/dev/null || { skip "jq not installed (make deps)"; done_testing; exit; }
j=$T/oob.json
ok "oob.json is valid JSON" jq -e . "$j"
is "$(jq -r 'keys_unsorted[0]' "$j")" version '"version" is the first key'
is "$(jq -r .version "$j")" 6 "schema version 6"
for k in version process devices contexts streams launches allocations frees errors threads diagnosis; do
	is "$(jq -r "has(\"$k\")" "$j")" true "top-level key $k"
done
for k in pid executable signal crashed_thread; do
	is "$(jq -r ".process | has(\"$k\")" "$j")" true "process.$k"
done
is "$(jq -r .process.pid "$j")" 4242 "process.pid is the record's pid"
is "$(jq -r .process.signal "$j")" 6 "process.signal is SIGABRT (6) from the header"
is "$(jq -r .process.crashed_thread "$j")" 8 "process.crashed_thread"
f=.diagnosis.faulting_launch
is "$(jq -r "$f.kernel" "$j")" attention_decode "faulting launch kernel"
is "$(jq -r "$f.confidence" "$j")" high "faulting launch confidence"
is "$(jq -r "$f.state" "$j")" in_flight "faulting launch state"
is "$(jq -c "$f.grid" "$j")" "[64,1,1]" "grid is a 3-array"
is "$(jq -c "$f.block" "$j")" "[128,1,1]" "block is a 3-array"
is "$(jq -r "$f.stream" "$j")" 0xa000 "stream handle"
is "$(jq -r "$f.thread" "$j")" 7 "launching thread"
is "$(jq -r "$f.args | length" "$j")" 4 "four arguments from the layout"
is "$(jq -r "$f.args[1].value" "$j")" $((0x7f0000000000 + 262144 + 64)) "argument 1 value as a number"
is "$(jq -r "$f.args[2].size" "$j")" 4 "argument 2 is 4 bytes"
is "$(jq -r "$f.stack[0].function" "$j")" launch_site "the launch stack is symbolized"
like "$(jq -r "$f.stack[0].file" "$j")" 'render_test\.c$' "with a source file"
is "$(jq -r "$f.stack[0].line | type" "$j")" number "and a line number"
a='.diagnosis.attributions[] | select(.relation == "past_end")'
is "$(jq -r "$a | .allocation" "$j")" 11 "the past_end attribution names allocation #11"
is "$(jq -r "$a | .offset" "$j")" 64 "offset 64 from the end"
is "$(jq -r "$a | .arg" "$j")" 1 "of argument 1"
is "$(jq -r "$a | .launch" "$j")" "$(jq -r "$f.seq" "$j")" "attribution refers to the launch by seq"
is "$(jq -r '[.launches[].state] | unique | join(",")' "$j")" "finished,in_flight" "launch states"
is "$(jq -r '.allocations[0] | [.id, .address, .size, .kind, .thread] | join(" ")' "$j")" \
	"11 $((0x7f0000000000)) 262144 device 7" "allocation fields, addresses as numbers"
is "$(jq -r '.allocations[0].address_hex' "$j")" 0x7f0000000000 "hex twin of the address"
is "$(jq -r '.allocations[0].stack[0].function' "$j")" alloc_site "allocation stack"
is "$(jq -r '.errors[0] | [.result_name, .thread, .first_sticky] | join(" ")' "$j")" \
	"CUDA_ERROR_ILLEGAL_ADDRESS 8 true" "the error entry"
is "$(jq -r .diagnosis.error_thread "$j")" 8 "diagnosis.error_thread"
is "$(jq -r '.streams[0] | [.breadcrumb, .launched, .finished, .in_flight] | join(" ")' "$j")" \
	"2 3 2 1" "stream progress"

# A stream is named the same way everywhere (schema version 2): `stream` the handle as a hex
# string, `stream_slot` its slot in streams[]; null for both when there is none.
is "$(jq -r '[(.launches[], .allocations[], .errors[]) | .stream | select(. != null) |
	test("^0x[0-9a-f]+$")] | (length > 0) and all' "$j")" true "every stream is a hex handle string"
is "$(jq -r '. as $d | [(.launches[], .allocations[], .errors[]) | select(.stream != null) |
	.stream_slot as $s | .stream == ($d.streams | map(select(.slot == $s))[0].handle)] |
	(length > 0) and all' "$j")" true "... and its stream_slot names the stream with that handle"
is "$(jq -r '.errors[0] | [.stream, .stream_slot] | join(" ")' "$j")" "0xa000 0" "an error's stream"
is "$(jq -r '[.allocations[] | .stream] | map(. // "none") | join(" ")' "$j")" "none 0xb000" \
	"an allocation's stream (null when it has none)"
is "$(jq -r '[.allocations[] | select(.stream == null) | .stream_slot == null] | all' "$j")" true \
	"... with a null stream_slot too"
is "$(jq -r .diagnosis.allocations_not_recorded "$j")" 0 "allocations_not_recorded is 0 when the table kept all"
f=$T/full.json
is "$(jq -r .diagnosis.allocations_not_recorded "$f")" 2000 "a full table: allocations_not_recorded"
is "$(jq -r .diagnosis.confidence "$f")" medium "... and the confidence is capped"

n=$T/nosym.json
ok "nosym.json is valid JSON" jq -e . "$n"
is "$(jq -r '.diagnosis.faulting_launch.stack[0].function' "$n")" null "without symbols a frame's function is null"
is "$(jq -r '.diagnosis.faulting_launch.stack[0].address | type' "$n")" number "... and its address a number"

h=$T/hostile.json
ok "hostile.json is valid JSON" jq -e . "$h"
like "$(jq -r '.launches[0].symbol' "$h")" 'caf' "hostile kernel name survives as a string"
is "$(jq -r '.launches[0].symbol | test("\u001b")' "$h")" true "control characters are escaped, not dropped"
is "$(jq -r '.launches[0].symbol | test("\ufffd")' "$h")" true "invalid UTF-8 becomes U+FFFD"
is "$(jq -r '.errors[0].api | length' "$h")" 40 "an unterminated fixed field is cut at its size"
done_testing
