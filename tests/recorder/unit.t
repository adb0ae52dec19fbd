#!/usr/bin/env bash
# Unit tests of the recorder without a driver (rec_unit: layout, configuration, maps, the
# publishing protocol read back by the reader's decoder), and the sticky-error list checked
# against cuda.h's own wording.  Runs under ASan too.
. "$(dirname "$0")/../lib/tap.sh"
U=$B/tests/recorder/rec_unit
[ -x "$U" ] || skip_all "$U is not built (make check builds it)"
CUDA_H=${CUDA_HOME:-/usr/local/cuda}/include/cuda.h
[ -f "$CUDA_H" ] || skip_all "no cuda.h at $CUDA_H"

out=$("$U")
rc=$?
# Re-emit rec_unit's TAP as one test each, so prove shows what failed.
while IFS= read -r line; do
	case $line in
	"ok "*) _tap_result 0 "${line#ok * - }" ;;
	"not ok "*) _tap_result 1 "${line#not ok * - }" ;;
	"#"*) diag "${line#\# }" ;;
	esac
done <<<"$out"
is "$rc" 0 "rec_unit exits 0"

# cuda.h marks the errors that poison a context: "leaves the process in an inconsistent state"
# or the context "cannot be used anymore".  Collect those values from the doc comments.
want=$(awk '
	/typedef enum cudaError_enum/ { on = 1 }
	on && /}[ \t]*CUresult;/ { on = 0 }
	!on { next }
	/\/\*\*/ { doc = "" }
	/^[ \t]*\*/ { doc = doc " " $0 }
	/^[ \t]*CUDA_[A-Z0-9_]+[ \t]*=[ \t]*[0-9]+/ {
		v = $0; sub(/^[^=]*=[ \t]*/, "", v); sub(/[^0-9].*/, "", v)
		gsub(/[ \t*]+/, " ", doc)
		if (doc ~ /inconsistent state/ || doc ~ /cannot be used anymore/) print v
		doc = ""
	}' "$CUDA_H" | sort -n | tr '\n' ' ')
got=$("$U" --sticky | sort -n | tr '\n' ' ')
ok "cuda.h names some sticky errors ($want)" test -n "$want"
is "$got" "$want" "the recorder's sticky list is cuda.h's"
done_testing
