#!/usr/bin/env bash
# Inputs that are not what they should be: each gives one clear message and the documented exit
# code (3 bad input, 4 no record; docs/CLI.md), never a crash.  Cores are synthetic (mkcore),
# damaged with dd at offsets the ELF specification fixes (e_ident[EI_CLASS] = 4, …).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$D/mkcore" ] && [ -x "$D/cidecode" ] || skip_all "fixtures not built (make check builds them)"

patch() { printf "$2" | dd of="$1" bs=1 seek="$3" conv=notrunc 2>/dev/null; } # file bytes offset
check() { # name exit regex
	is "$rc" "$2" "$1: exit $2"
	like "$out" "$3" "$1: message"
	unlike "$out" "AddressSanitizer|runtime error|Segmentation" "$1: no crash"
}

: >"$T/empty"; dec "$T/empty"; check "empty file" 3 "is empty \(0 bytes\)"
dec "$T/nonexistent"; check "missing file" 3 "no such file"
mkdir "$T/dir"; dec "$T/dir"; check "directory" 3 "is a directory"
# Only regular files are read; anything else is refused before it is opened, so nothing blocks
# (a FIFO with no writer used to hang the open).  timeout's 124 would mean a hang.
tdec() { out=$(timeout 10 "$D/cidecode" "$@" 2>&1); rc=$?; }
mkfifo "$T/fifo"; tdec "$T/fifo"; check "FIFO without a writer" 3 "fifo is a pipe \(FIFO\).*save the core to a file first"
if [ -x "$B/cudainspect" ]; then
	out=$(timeout 10 "$B/cudainspect" "$T/fifo" 2>&1); rc=$?; check "FIFO given to the CLI" 3 "^cudainspect: .*fifo is a pipe \(FIFO\)"
else
	for i in 1 2 3; do skip "cudainspect not built"; done
fi
out=$(printf 'x' | timeout 10 "$D/cidecode" /dev/stdin 2>&1); rc=$?; check "standard input from a pipe" 3 "/dev/stdin is a pipe \(FIFO\)"
tdec /dev/null; check "character device" 3 "/dev/null is a device, not a core dump"
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", 128 + int(rand() * 127) }' >"$T/random"
dec "$T/random"; check "random bytes" 3 "is not a core dump or a cudainspect record file"
printf 'hello, this is text\n' >"$T/text"; dec "$T/text"; check "text" 3 "looks like a text file"
printf 'hello' | gzip >"$T/core.gz"; dec "$T/core.gz"; check "gzip" 3 "gzip file; decompress it first"
dec "$D/crasher"; check "an executable" 3 "is an ELF executable or shared library, not a core dump"

"$D/mkcore" "$T/good.core"
# Standard input is read when it is a regular file (a redirection), like any other path.
out=$("$D/cidecode" /dev/stdin <"$T/good.core" 2>&1); rc=$?
is "$rc $(field source.kind) $(sec launches accepted)" "0 core 10" "standard input redirected from a core file"
cp "$T/good.core" "$T/c32"; patch "$T/c32" '\001' 4; dec "$T/c32"; check "32-bit ELF" 3 "is a 32-bit ELF file"
cp "$T/good.core" "$T/cbe"; patch "$T/cbe" '\002' 5; dec "$T/cbe"; check "big-endian ELF" 3 "big-endian"
cp "$T/good.core" "$T/cm"; patch "$T/cm" '\003\000' 18; dec "$T/cm"; check "wrong machine" 3 "ELF machine 3"
cp "$T/good.core" "$T/cph"; patch "$T/cph" '\040' 54; dec "$T/cph"; check "wrong phentsize" 3 "program header size is 32"
head -c 40 "$T/good.core" >"$T/cshort"; dec "$T/cshort"; check "cut ELF header" 3 "ELF header is cut short"
head -c 100 "$T/good.core" >"$T/cphdr"; dec "$T/cphdr"; check "cut program headers" 4 "core is truncated"
like "$out" "warning.source .*only 0 of [0-9]+ program headers are in the file" "cut program headers: warned"
cp "$T/good.core" "$T/cphoff"; patch "$T/cphoff" '\377\377\377\377' 32; dec "$T/cphoff"; check "program headers past EOF" 3 "past the end of the file"
cp "$T/good.core" "$T/cnum"; patch "$T/cnum" '\377\377' 56; dec "$T/cnum"; check "PN_XNUM without section 0" 3 "PN_XNUM but section header 0"

"$D/mkcore" --no-record "$T/norec.core"; dec "$T/norec.core"; check "core without the recorder" 4 "holds no cudainspect flight record"
"$D/mkcore" --major=3 "$T/v3.core"; dec "$T/v3.core"; check "unknown major in a core" 3 "format version 3\.[0-9]+, but this cudainspect .* reads version 1.x"
# A record that is there but whose header is damaged makes the input corrupt (3), not one without
# a record (4, "run it under the recorder", which would send the user the wrong way); this
# asserted 4 before.  The header is still not trusted: the message says what is wrong with it.
"$D/mkcore" --damage=header-size "$T/hdr.core"; dec "$T/hdr.core"
check "corrupt record header at the memfd" 3 "flight record at 0x10000000 \(where /memfd:cudainspect-record \(deleted\) is mapped\) has a corrupt header: the header size is impossible \(format 1.6, header 12 bytes"
unlike "$out" "Was the program run under the recorder" "corrupt record header at the memfd: not sent to the recorder"
"$D/mkcore" --damage=magic "$T/mag.core"; dec "$T/mag.core"
check "wrong magic at the memfd" 3 "corrupt header: it starts with 58 55 44 41 49 4e 53 50, not the magic \"CUDAINSP\""
"$D/mkcore" --damage=header-size --no-file-note "$T/hdrscan.core"; dec "$T/hdrscan.core"
check "corrupt record header found by the page scan" 3 "flight record at 0x10000000 \(a page that starts with the record magic\) has a corrupt header: the header size is impossible"
# Without its name or its magic nothing says a record was there.
"$D/mkcore" --damage=magic --no-file-note "$T/magscan.core"; dec "$T/magscan.core"
check "wrong magic and no name" 4 "holds no cudainspect flight record"
# Environment strings "CUDAINSPECT_…" at a page start match the magic but are no record.
"$D/mkcore" --no-record --env-page "$T/env.core"; dec "$T/env.core"
check "magic letters in environment strings" 4 "holds no cudainspect flight record.*Was the program run under the recorder"
# The recorder writes the magic last: a memfd whose magic is still zero is a record being set up.
"$D/mkcore" --damage=no-magic "$T/setup.core"; dec "$T/setup.core"
check "record being set up" 4 "has no magic yet: the recorder had not finished creating the record.*The program did run under the recorder"
# A damaged record beside an intact copy: the copy is read, the damaged one named in a warning.
"$D/mkcore" --damage=header-size --copy=0x30000000 "$T/copy.core"; dec "$T/copy.core"
is "$rc $(field location.method) $(field location.address)" "0 scan 0x30000000" "intact copy read beside a damaged record"
like "$out" "warning.source .*flight record at 0x10000000 \(where /memfd:cudainspect-record \(deleted\) is mapped\) has a corrupt header: the header size is impossible .*; ignored" "  the damaged one is named in a warning"
"$D/mkcore" --damage=misaligned "$T/sec.core"; dec "$T/sec.core"; check "corrupt section in a core" 0 "launches section .* is unusable"
"$D/mkcore" --damage=refs --torn=2 "$T/refs.core"; dec "$T/refs.core"; check "bad references and torn entries in a core" 0 "references to entries, strings or stacks that do not exist"
"$D/mkcore" --bad-note "$T/note.core"; dec "$T/note.core"; check "note larger than its segment" 0 "claims 5 name and 2147483647 description bytes"
done_testing
