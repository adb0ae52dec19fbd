#!/usr/bin/env bash
# The symbol image (recorder/symimage.c): the C unit test checks it through libelf; here two
# independent ELF readers (elfutils' eu-readelf and binutils' readelf) must agree on the image
# the unit test writes: two live allocations, cuda_alloc_42 (1 MiB at 0x7f1234560000) and
# cuda_alloc_43 (8 KiB at 0x7f1234700000), each in its own allocated .cuda_alloc section; and an
# image of frees with cuda_freed_44.
. "$(dirname "$0")/../lib/tap.sh"

bin=$B/tests/plugin/symimage-test
[ -x "$bin" ] || skip_all "$bin not built (make check builds it)"

out=$("$bin" "$T/image.elf")
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
is "$rc" 0 "C unit test (libelf) passes"

syms=$(eu-readelf -s "$T/image.elf" 2>&1)
like "$syms" '7f1234560000 +1048576 +OBJECT +GLOBAL +DEFAULT +[0-9]+ cuda_alloc_42$' \
	"eu-readelf: cuda_alloc_42 at the allocation, 1 MiB"
like "$syms" '7f1234700000 +8192 +OBJECT +GLOBAL +DEFAULT +[0-9]+ cuda_alloc_43$' \
	"eu-readelf: cuda_alloc_43 at the allocation, 8 KiB"
is "$(printf '%s\n' "$syms" | grep -c 'cuda_alloc_')" 2 "eu-readelf: free slots have no name"

secs=$(readelf -W -S "$T/image.elf" 2>&1)
like "$secs" '\.cuda_alloc +NOBITS +00007f1234560000 [0-9a-f]+ 100000 00 +WA' \
	"readelf: 1 MiB allocated section at cuda_alloc_42"
like "$secs" '\.cuda_alloc +NOBITS +00007f1234700000 [0-9a-f]+ 002000 00 +WA' \
	"readelf: 8 KiB allocated section at cuda_alloc_43"
is "$(printf '%s\n' "$secs" | grep -c ' WA ')" 2 "readelf: only live slots are allocated"
unlike "$(readelf -W -s "$T/image.elf" 2>&1)" 'Warning|Error' "readelf reads the symbol table cleanly"

# The image of recent frees (written next to it): cuda_freed_44, 16 KiB at 0x7f1234800000, in an
# allocated .cuda_freed section.
like "$(eu-readelf -s "$T/image.elf.freed" 2>&1)" '7f1234800000 +16384 +OBJECT +GLOBAL +DEFAULT +[0-9]+ cuda_freed_44$' \
	"eu-readelf: cuda_freed_44 at the freed allocation, 16 KiB"
like "$(readelf -W -S "$T/image.elf.freed" 2>&1)" '\.cuda_freed +NOBITS +00007f1234800000 [0-9a-f]+ 004000 00 +WA' \
	"readelf: 16 KiB allocated .cuda_freed section at cuda_freed_44"
done_testing
