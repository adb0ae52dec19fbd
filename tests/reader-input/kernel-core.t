#!/usr/bin/env bash
# Real kernel cores of the crasher fixture (a process holding a synthetic record the way the
# recorder does), one per locate method and failure mode, plus zstd-compressed and truncated
# copies.  Expected values come from what the crasher printed before it died (pid, thread ids,
# record address), from the kernel's own description of the core (eu-readelf), and from the
# fixture's documented record content.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$D/crasher" ] && [ -x "$D/cidecode" ] || skip_all "fixtures not built (make check builds them)"
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core' (cores would not land in the test directory)"

# crash NAME ARGS…: run the crasher in $T/NAME with core dumps on; sets $dir, $core, $pid,
# $record and $tids (space-separated, main thread first).
crash() {
	local name=$1; shift
	dir=$T/$name; mkdir -p "$dir"
	# The extra subshell keeps bash's "Segmentation fault (core dumped)" notice out of the TAP.
	( ( cd "$dir" && ulimit -c unlimited && exec "$D/crasher" "$@" ) >"$dir/out" 2>&1; true ) 2>/dev/null
	core=$(ls -t "$dir"/core* 2>/dev/null | head -1)
	pid=$(sed -n 's/^pid=//p' "$dir/out")
	record=$(sed -n 's/^record=//p' "$dir/out")
	tids=$(sed -n 's/^tid=\([0-9]*\).*/\1/p' "$dir/out" | tr '\n' ' ')
}

crash memfd --mode=memfd --threads=2 --crash-thread=1
ok "kernel core written" test -s "$core"
dec "$core"
is "$rc" 0 "memfd core decodes"
is "$(field source.kind)" core "kernel core recognised"
is "$(field source.pid)" "$pid" "pid from PRPSINFO"
is "$(field source.signal) $(field source.si_code) $(field source.fault_addr)" "11 1 0x1234" \
   "SIGSEGV, SEGV_MAPERR at the address the crasher wrote to"
set -- $tids
like "$out" "thread $2 crashed=1 cursig=11 name=rec-worker-1 " "the worker that faulted is the crashed thread, named from the record"
like "$out" "thread $1 crashed=0 cursig=11 name=crasher " "main thread named from PRPSINFO"
like "$out" "thread $3 crashed=0 .*name=rec-worker-2 " "other worker present"
is "$(field source.threads)" 3 "three threads"
is "$(field source.executable)" "$D/crasher" "executable from NT_FILE and AT_ENTRY"
like "$(field source.psargs)" "^$D/crasher --mode=memfd" "psargs from PRPSINFO"
is "$(field location.method) $(field location.address)" "nt_file $record" "record found by its memfd name at its address"
is "$(field header.pid) $(field header.record_base)" "$pid $record" "the record is the crashed process's"
is "$(sec launches accepted) $(sec allocations accepted) $(sec threads accepted)" "10 5 3" "record decoded from the core"
is "$(field source.elf)" 1 "libelf handle for libdwfl"

crash abort --mode=memfd --crash=abort --threads=0
dec "$core"
is "$(field source.signal) $(field source.fault_addr)" "6 0x0" "abort: SIGABRT and no fault address (si_code from tkill)"

crash symbol --mode=symbol --lib="$D/libcudainspect-rec-synth.so"
dec "$core"
is "$rc $(field location.method) $(field location.address)" "0 symbol $record" "found through the exported cudainspect_record pointer"

# The exported pointer leads to a record whose header is damaged: corrupt input, exit 3.
crash symbad --mode=symbol --lib="$D/libcudainspect-rec-synth.so" --damage=header-size
dec "$core"
is "$rc" 3 "damaged record behind the exported pointer exits 3"
like "$out" "flight record at $record \(where cudainspect_record points\) has a corrupt header: the header size is impossible" "  and says what is wrong with it"

crash scan --mode=scan
dec "$core"
is "$rc $(field location.method) $(field location.address)" "0 scan $record" "found by the page-start magic scan"

crash none --mode=none
dec "$core"
is "$rc" 4 "core without a record exits 4"
like "$out" "holds no cudainspect flight record.*Was the program run under the recorder" "no record explained, with what to do"

crash libzero --mode=lib-zero --lib="$D/libcudainspect-rec-synth.so"
dec "$core"
is "$rc" 4 "recorder loaded without a record exits 4"
like "$out" "had not created its record yet" "recorder loaded but record not created: said so"

crash fork --mode=fork
dec "$core"
is "$rc $(field header.pid) $(field source.pid)" "0 $pid $pid" "fork child: its own record chosen over the inherited one"
like "$out" "warning.source .* holds another flight record at 0x[0-9a-f]+, written by pid [0-9]+" "the other record is reported"

crash persistent --mode=persistent
dec "$core"
is "$rc" 4 "persistent record not in the core exits 4"
like "$out" "cudainspect-synth-$pid.cirec.*run cudainspect on the .cirec file itself" "points to the .cirec file"
dec "$dir/cudainspect-synth-$pid.cirec"
is "$rc $(field source.kind) $(field header.pid) $(sec launches accepted)" "0 record $pid 10" "the .cirec file itself decodes"

# zstd, as systemd-coredump stores cores.
if command -v zstd >/dev/null; then
	base=$T/memfd/core
	zstd -q -f -o "$T/core.zst" "$base"
	dec "$T/core.zst"
	is "$rc $(field source.compressed) $(field source.kind) $(field location.method)" "0 1 core nt_file" "zstd core read directly"
	is "$(sec launches accepted) $(field source.signal)" "10 11" "same content as the plain core"
	progress=$("$D/cidecode" --progress "$T/core.zst" 2>&1 >/dev/null)
	like "$progress" "cudainspect: decompressing .*core.zst: +[0-9]+%" "progress shown while decompressing when asked (the CLI asks on a tty)"
	# Cut in half: what zstd decoded is read, as the same bytes would be as a plain core.
	head -c $(( $(stat -c %s "$T/core.zst") / 2 )) "$T/core.zst" >"$T/half.zst"
	zst_vs_plain "$T/half.zst" "$base"
	is "$(field source.truncated)" 1 "truncated zstd: the source is truncated"
	like "$out" "warning.source .*half.zst: the zstd stream ends in the middle of a frame \(the compressed file is truncated\); reading the" "truncated zstd: warned"
	is "$zcut" "$plain" "truncated zstd reads as the bytes zstd gets out of it, as a plain core"
	cp "$T/core.zst" "$T/bad.zst"
	printf '\377\377\377\377\377\377\377\377' | dd of="$T/bad.zst" bs=1 seek=100 conv=notrunc 2>/dev/null
	dec "$T/bad.zst"
	is "$rc" 3 "corrupt zstd exits 3"
	like "$out" "zstd data is corrupt" "corrupt zstd explained"
	# A core padded to a multiple of 4 MiB (the decompressor's buffer): the stream ends exactly
	# when the buffer fills, which once read as a truncated stream.
	cp "$base" "$T/padded.core"
	truncate -s $(( ($(stat -c %s "$base") / 4194304 + 1) * 4194304 )) "$T/padded.core"
	zstd -q -f -o "$T/padded.zst" "$T/padded.core"
	dec "$T/padded.zst"
	is "$rc $(sec launches accepted)" "0 10" "zstd core of a size that is a multiple of 4 MiB"
else
	for i in $(seq 9); do skip "zstd not installed"; done
fi

# Truncated copies: the offset of the record's PT_LOAD comes from eu-readelf, not from us.
crash trunc --mode=memfd --threads=0
addr=$(printf '0x%016x' "$record")
off=$(eu-readelf -l "$core" | awk -v a="$addr" '$1 == "LOAD" && $3 == a { print $2; exit }')
ok "eu-readelf shows the record's PT_LOAD" test -n "$off"
cp "$core" "$T/cut.core"
truncate -s $(( off + 8192 )) "$T/cut.core"
dec "$T/cut.core"
is "$rc $(field source.truncated) $(field location.size)" "0 1 8192" "core cut two pages into the record: located, 8 KiB available"
# synth layout: header+directory take 2560 bytes, then tables up to 5888, then 256-byte launches:
# (8192 - 5888) / 256 = 9 launch slots survive, 7 are gone.
is "$(sec launches accepted) $(sec launches missing)" "9 7" "launches in the kept pages decoded, the rest missing"
like "$out" "warning.source .* is truncated: the file ends at" "truncation reported by the source"
like "$out" "warning.model only 8.0 KiB of the record's .* \(the core is truncated\)" "record cut reported by decode"
lazy=$("$D/cidecode" --entries --lazy "$T/cut.core" 2>&1 | grep -v '^model\.lazy ')
full=$("$D/cidecode" --entries "$T/cut.core" 2>&1 | grep -v '^model\.lazy ')
is "$lazy" "$full" "truncated core: the lazy decode says what the complete one says"
truncate -s $(( off )) "$T/cut.core"
dec "$T/cut.core"
is "$rc" 4 "core cut before the record exits 4"
like "$out" "lies past the end of the truncated core" "says the record was cut off"
done_testing
