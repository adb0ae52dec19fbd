#!/usr/bin/env bash
# The allocation table's granule bitmap (format 1.3, CI_SEC_ALLOC_GRANULES): the recorder sets
# the bit of every 4 KiB of the open-addressed table it writes an entry into, and the summary,
# which looks a bad pointer up in the table where it lies, reads only those granules (issue 23:
# the summary never walks the whole table).  A real record from bench/reader/bigcore under the
# recorder (200 planted allocations, a planted pointer 64 bytes past the last): every live entry's
# granule is marked, few others are, and the summary attributes the pointer as bigcore says; with
# the bitmap cleared in a copy it still does (the bitmap is checked against the record's counts),
# and with damage that keeps them consistent it does not (the bitmap is what it reads), while
# the allocs view, which decodes the whole table, lists all 200.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../recorder/rec-lib.sh"
CI=$B/cudainspect
BIG=$B/bench/reader/bigcore
[ -x "$CI" ] && [ -x "$BIG" ] || skip_all "the CLI or bench/reader/bigcore is not built"
command -v python3 >/dev/null || skip_all "python3 is not installed"
need_recorder
top=$(cd "$(dirname "$0")/../.." && pwd)

# Where the format puts what the check reads (record.h, compiled here: not restated by hand).
printf '%s\n' '#include <stddef.h>' '#include <stdio.h>' '#include "cudainspect/record.h"' \
	'int main(void) { printf("%zu %zu %zu %zu %zu %zu %zu %u %d %d %zu %zu\n",' \
	'offsetof(struct ci_header, section_count), offsetof(struct ci_header, section_dir_offset),' \
	'offsetof(struct ci_header, section_entry_size), offsetof(struct ci_section, kind),' \
	'offsetof(struct ci_section, entry_size), offsetof(struct ci_section, offset),' \
	'offsetof(struct ci_section, capacity), CI_ALLOC_GRANULE_BYTES, CI_SEC_ALLOCS,' \
	'CI_SEC_ALLOC_GRANULES, offsetof(struct ci_section, head), offsetof(struct ci_alloc, id));' \
	'return 0; }' >"$T/off.c"
${CC:-cc} -I"$top/include" -o "$T/off" "$T/off.c" || skip_all "no C compiler for the offsets"
read -r -a OFF < <("$T/off")

run_in "$T/big" env CUDASIM_MODE=null CUDASIM_FAULT=bench_fault CUDAINSPECT_QUIET=1 \
	CUDAINSPECT_SIZE=64M CUDAINSPECT_SNAPSHOT=signal LD_PRELOAD="$REC" "$BIG" --host-gib 0 \
	--allocs 200 --launches 2000 --threads 1
snap=$(snap "$T/big" signal)
cp "$T/big/err" "$T/big.err" 2>/dev/null
ok "bigcore crashed and left its signal snapshot" test -s "$snap"
planted=$(sed -n 's/^bigcore: planted pointer \(0x[0-9a-f]*\), 64 bytes past allocation .*/\1/p' "$T/big.err")
ok "bigcore says where it planted the pointer ($planted)" test -n "$planted"

# The record's bytes, read and damaged by one script: its directory, the allocation table and
# the bitmap.  check: what the bitmap marks against the table; clear: the bitmap zeroed; hide:
# entry #200's granules unmarked and the ids handed out lowered by the entries that hides.
cat >"$T/granules.py" <<'PY'
import struct, sys
path, mode = sys.argv[1], sys.argv[2]
cnt_o, dir_o, esz_o, k_o, es_o, off_o, cap_o, gbytes, k_allocs, k_gran, head_o, id_o = map(int, sys.argv[3:])
data = bytearray(open(path, 'rb').read())
count = struct.unpack_from('<I', data, cnt_o)[0]
diroff = struct.unpack_from('<Q', data, dir_o)[0]
desz = struct.unpack_from('<I', data, esz_o)[0]
secs = {}
for i in range(count):
    base = diroff + i * desz
    secs[struct.unpack_from('<I', data, base + k_o)[0]] = base
if k_gran not in secs:
    print('no-bitmap')
    sys.exit()
def sec(k):
    b = secs[k]
    return (b, struct.unpack_from('<I', data, b + es_o)[0], struct.unpack_from('<Q', data, b + off_o)[0],
            struct.unpack_from('<Q', data, b + cap_o)[0])
ab, aes, aoff, acap = sec(k_allocs)
gb, _, goff, gcap = sec(k_gran)
spans = lambda s: {s * aes // gbytes, (s * aes + aes - 1) // gbytes}
isset = lambda g: data[goff + g // 8] >> (g % 8) & 1
used = [s for s in range(acap) if struct.unpack_from('<Q', data, aoff + s * aes)[0]]
if mode == 'check':
    granules = (acap * aes + gbytes - 1) // gbytes
    unmarked = sum(1 for s in used if not all(isset(g) for g in spans(s)))
    marked = sum(bin(b).count('1') for b in data[goff:goff + gcap])
    print('covers=%d live=%d unmarked=%d marked=%d granules=%d' %
          (gcap * 8 >= granules, len(used), unmarked, marked, granules))
    sys.exit()
if mode == 'clear':
    data[goff:goff + gcap] = bytes(gcap)
else:
    for s in used:
        if struct.unpack_from('<Q', data, aoff + s * aes + id_o)[0] == 200:
            for g in spans(s):
                data[goff + g // 8] &= ~(1 << (g % 8)) & 0xff
    # Entries sharing those granules are hidden too: the ids handed out drop by as many.
    hidden = sum(1 for s in used if not any(isset(g) for g in spans(s)))
    head = struct.unpack_from('<Q', data, ab + head_o)[0]
    struct.pack_into('<Q', data, ab + head_o, head - hidden)
open(path, 'wb').write(data)
PY
check=$(python3 "$T/granules.py" "$snap" check "${OFF[@]}")
diag "$check"
like "$check" "covers=1 " "the bitmap covers the whole allocation table"
like "$check" " live=200 " "the table holds the 200 planted allocations"
like "$check" " unmarked=0 " "every entry's granule is marked"
marked=$(printf '%s\n' "$check" | sed -n 's/.* marked=\([0-9]*\).*/\1/p')
granules=$(printf '%s\n' "$check" | sed -n 's/.* granules=\([0-9]*\).*/\1/p')
ok "at most two granules an entry are marked ($marked of $granules)" \
	test "${marked:-99999}" -le 400 -a "${marked:-0}" -lt "${granules:-0}"

out=$("$CI" "$snap" 2>&1)
like "$out" "Address $planted is 64 bytes after the nearest allocation #200" \
	"the summary attributes the planted pointer through the bitmap"

# The bitmap is the record's word: where it holds fewer live entries than the record's counts
# say (ids handed out less frees), every slot is read.  Cleared in a copy, the summary still
# finds the allocation.
damage() { python3 "$T/granules.py" "$1" "$2" "${OFF[@]}"; }
cp "$snap" "$T/cleared.cisnap"
damage "$T/cleared.cisnap" clear
like "$("$CI" "$T/cleared.cisnap" 2>&1)" "Address $planted is 64 bytes after the nearest allocation #200" \
	"with the bitmap cleared the summary reads every slot and still finds the allocation"
# Consistent-looking damage shows that a consistent bitmap is what the summary reads: entry
# #200's granules unmarked and the ids handed out one fewer (199 live, 199 found).
cp "$snap" "$T/hidden.cisnap"
damage "$T/hidden.cisnap" hide
unlike "$("$CI" "$T/hidden.cisnap" 2>&1)" "nearest allocation #200" \
	"with #200's granule unmarked and the counts agreeing, the summary does not read it"
like "$("$CI" "$T/hidden.cisnap" allocs 2>&1)" "Live allocations: 200," \
	"... while the allocs view, which decodes the whole table, lists all 200"
done_testing
