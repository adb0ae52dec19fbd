#!/usr/bin/env bash
# Seed corpus for the merge's JSON reader harness (corefile/fuzz/fuzz_merge_json.c):
#   fuzz-seeds.sh CORPUS_DIR
# The fixtures (the "job" parts of real documents ncclengine's ranks left: a rank hung in an
# all-reduce, the rank that faulted), each cut short, with one collective and one communicator,
# with peer memory, with the wrong type in a field, nested deep, and not JSON at all.
set -eu
F=$(cd "$(dirname "$0")/fixtures" && pwd) C=$1
mkdir -p "$C"
for f in "$F"/*.json; do
	b=$(basename "$f" .json)
	cp "$f" "$C/$b.json"
	head -c 300 "$f" > "$C/$b-cut.json"
	jq -c '.job.collectives |= .[:1] | .job.communicators |= .[:1]' "$f" > "$C/$b-one.json"
	jq -c '.job.peer_memory = [{"kind":"ipc_open","key":"0x1","address":4096,"address_hex":"0x1000","size":4096,"device":0,"time_ns":1}]' \
		"$f" > "$C/$b-peer.json"
	jq -c '.job.pid = "x"' "$f" > "$C/$b-type.json"
done
printf '{"version":5,"job":%s}' "$(printf '[%.0s' $(seq 70))" > "$C/deep.json"
printf 'not json\n' > "$C/text"
