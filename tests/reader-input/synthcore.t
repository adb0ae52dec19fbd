#!/usr/bin/env bash
# Core layouts the kernel here will not produce on demand, written by the mkcore fixture:
# PN_XNUM (more than 65535 program headers), PT_LOADs in reverse order (kernel.core_sort_vma),
# a record split over two adjacent PT_LOADs, overlapping segments, gdb-style section headers,
# no NT_FILE, a record segment that was not dumped, aarch64 with 8-byte note alignment.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
[ -x "$D/mkcore" ] && [ -x "$D/cidecode" ] || skip_all "fixtures not built (make check builds them)"

core() { "$D/mkcore" "$@" "$T/c.core" && dec "$T/c.core"; }

core
is "$rc $(field source.kind) $(field location.method) $(field location.address)" "0 core nt_file 0x10000000" "plain synthetic core"
is "$(field source.pid) $(field source.signal) $(field source.fault_addr)" "4242 11 0xdead0" "PRPSINFO and SIGINFO"
like "$out" "thread 4242 crashed=1 cursig=11 name=engine pc=0x401100 sp=0x7ffff000" "x86-64 registers: rip and rsp"
like "$out" "thread 4243 crashed=0 " "second thread"
is "$(field source.executable)" /opt/synth/engine "executable: the NT_FILE mapping holding AT_ENTRY"

core --reverse
is "$rc $(field location.method) $(sec launches accepted)" "0 nt_file 10" "PT_LOADs in reverse order"

core --split
is "$rc $(field location.size) $(sec launches accepted) $(sec allocations accepted)" "0 28672 10 5" \
   "record split over two adjacent PT_LOADs reads across the boundary"

core --split --reverse --no-file-note
is "$rc $(field location.method) $(sec launches accepted)" "0 scan 10" "no NT_FILE: found by scan"

core --filler=70000
ok "mkcore wrote more than 65535 program headers" sh -c "eu-readelf -h '$T/c.core' | grep -q 'in \[0\].sh_info'"
is "$rc $(field location.method) $(sec launches accepted)" "0 nt_file 10" "PN_XNUM: real count from section header 0"

core --gdb
is "$rc $(field source.kind)" "0 gcore" "section headers and the GDB note mean gcore"

core --overlap
is "$rc $(sec launches accepted)" "0 10" "overlapping segment ignored"
like "$out" "overlaps program header" "overlap reported"

core --uncaptured
is "$rc" 4 "record segment not dumped: no record"
like "$out" "first page is not in the input \(was bit 1 of /proc/PID/coredump_filter cleared\?\)" "names the coredump_filter bit"

core --machine=aarch64 --note-align=8 --threads=3
is "$rc $(field source.threads)" "0 3" "aarch64 core with 8-byte aligned notes"
like "$out" "thread 4242 crashed=1 cursig=11 name=engine pc=0x401100 sp=0x7ffff000" "aarch64 registers: pc and sp"

core --threads=40
is "$(field source.threads)" 40 "forty threads"
done_testing
