#!/usr/bin/env bash
# The Xid lines a faulting kernel, copy or memset leaves in CUDASIM_KERNEL_LOG (tests/sim/xid.c):
# the line appears, in the 580-series format, parses with the reader's kernel-log parser
# (klog-dump), and its address is the planted pointer plus the CUDASIM_FAULT offset rounded down
# to the 4 KiB page, computed here from the pointer the program prints.  Also the Xid 13 burst,
# the kmsg format, a second device, graph replays, null mode, and the file's safety rules.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
DUMP=$B/tests/kernel-log/klog-dump
[ -x "$DUMP" ] || skip_all "klog-dump is not built (make check builds it)"
export CUDASIM_KERNEL_US=1000
LOG=$T/kern.log

comment() { sed -n "s/^# $1 //p" "$T/xid.tap"; }   # a value the program printed
page() { printf '0x%x' $(( ($1 + $2) & ~0xfff )); }   # pointer + offset, down to the page
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
xid_items() { "$DUMP" "$LOG" | grep '^item='; }

# A kernel reads 64 bytes past the end of its 262,144-byte KV buffer: arg 1 (kv) + 262,208.
rm -f "$LOG"
CUDASIM_FAULT=attn@1:arg=1+262208 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
ok "kernel: program passes" tap_clean "$T/xid.tap"
pid=$(comment pid) kv=$(comment planted) t0=$(comment mono_before) t1=$(comment mono_after)
is "$(wc -l < "$LOG")" 2 "kernel: two lines, the GPU's UUID and one Xid"
is "$(stat -c %a "$LOG")" 600 "kernel: the log is created mode 0600"
like "$(head -1 "$LOG")" '^\[ *[0-9]+\.[0-9]{6}\] NVRM: GPU at PCI:0000:18:00: GPU-63756461-7369-6d2d-6465-760000000000$' \
	"kernel: first the GPU line with the device's UUID (\"cudasim-dev\", ordinal 0)"
like "$(tail -1 "$LOG")" "^\[ *[0-9]+\.[0-9]{6}\] NVRM: Xid \(PCI:0000:18:00\): 31, pid=$pid, name=xid, channel 0x[0-9a-f]{8}, intr 00000000\. MMU Fault: ENGINE GRAPHICS GPC[0-9] GPCCLIENT_T1_[0-9]+ faulted @ 0x[0-9a-f]+_[0-9a-f]{8}\. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ$" \
	"kernel: the Xid 31 line in the 580-series format"
item=$(xid_items)
is "$(printf '%s\n' "$item" | wc -l)" 1 "kernel: the parser finds one Xid line"
is "$(field "$item" address)" "$(page "$kv" 262208)" "kernel: its address is kv + 262208 rounded down to the page"
is "$(field "$item" xid) $(field "$item" pci) $(field "$item" pid) $(field "$item" name) $(field "$item" unit) $(field "$item" format)" \
	"31 0000:18:00 $pid xid sm dmesg" "kernel: Xid, PCI id (as cuDeviceGetPCIBusId says), pid, comm, an SM access, dmesg format"
mono=$(field "$item" mono_us)
ok "kernel: its time is CLOCK_MONOTONIC during the fault ($t0 <= $mono <= $t1)" test "$t0" -le "${mono:-0}" -a "${mono:-0}" -le "$t1"
sel=$("$DUMP" --pid "$pid" --pci "$(comment pci)" --mono "$t0:$t1" "$LOG" | grep '^item=')
like "$sel" " belongs=1 rule=pid basis=mono" "kernel: selected for the process by pid, inside its window"

# The same in /dev/kmsg's format, appended to the same file by a second process.
CUDASIM_FAULT=attn@1:arg=1+262208 CUDASIM_KERNEL_LOG=$LOG CUDASIM_KERNEL_LOG_FORMAT=kmsg sim_run xid kernel
kv2=$(comment planted)
items=$(xid_items)
is "$(printf '%s\n' "$items" | wc -l)" 2 "kmsg: appended after the first process's line, which stays"
second=$(printf '%s\n' "$items" | tail -1)
is "$(field "$second" format) $(field "$second" address)" "kmsg $(page "$kv2" 262208)" "kmsg: prio,seq,usec,-; records, same address rule"
like "$(tail -1 "$LOG")" '^4,[0-9]+,[0-9]+,-;NVRM: Xid \(PCI:0000:18:00\): 31, ' "kmsg: level 4, facility 0"

# Device 1: the PCI id follows cuDeviceGetPCIBusId.
rm -f "$LOG"
CUDASIM_DEVICES=2 CUDASIM_FAULT=attn@1:arg=1-64 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel 1
item=$(xid_items)
is "$(comment pci)" 0000:19:00.0 "device 1: cuDeviceGetPCIBusId says 0000:19:00.0"
is "$(field "$item" pci) $(field "$item" address)" "0000:19:00 $(page "$(comment planted)" -64)" \
	"device 1: the Xid names 0000:19:00; a negative offset (kv - 64) lands in the page before"

# An absolute address (NULL + 0x1234: below the device window, so no directory covers it).
rm -f "$LOG"
CUDASIM_FAULT=attn@1:addr=0x1234:access=write CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
like "$(tail -1 "$LOG")" 'faulted @ 0x0_00001000\. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE$' \
	"absolute address 0x1234, access=write: page 0x0_00001000, FAULT_PDE"

# Graph replays count as launches; the faulting replay keeps its own copy of the arguments.
rm -f "$LOG"
CUDASIM_FAULT=attn@2:arg=1+100 CUDASIM_KERNEL_LOG=$LOG sim_run xid graph
ok "graph: program passes" tap_clean "$T/xid.tap"
is "$(field "$(xid_items)" address)" "$(page "$(comment planted)" 100)" "graph: the 2nd replay faults at kv + 100"
# Null mode: the fault and its line happen inside the launch call.
rm -f "$LOG"
CUDASIM_MODE=null CUDASIM_FAULT=attn@1:arg=1+262208 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
ok "null mode: program passes" tap_clean "$T/xid.tap"
is "$(field "$(xid_items)" address)" "$(page "$(comment planted)" 262208)" "null mode: same line"

# Copy engine: the 2nd copy reads 4096 bytes past its source.
rm -f "$LOG"
CUDASIM_FAULT=.copy@2:arg=1+4096 CUDASIM_KERNEL_LOG=$LOG sim_run xid copy
ok "copy: program passes" tap_clean "$T/xid.tap"
item=$(xid_items)
is "$(field "$item" address) $(field "$item" engine) $(field "$item" client) $(field "$item" access) $(field "$item" unit)" \
	"$(page "$(comment planted)" 4096) CE0 HUBCLIENT_CE0 ACCESS_TYPE_VIRT_READ copy" \
	"copy: ENGINE CE0 HUBCLIENT_CE0, a read at the source + 4096"
rm -f "$LOG"
CUDASIM_FAULT=.set@1 CUDASIM_KERNEL_LOG=$LOG sim_run xid set
ok "set: program passes" tap_clean "$T/xid.tap"
item=$(xid_items)
is "$(field "$item" address) $(field "$item" access) $(field "$item" unit)" "$(page "$(comment planted)" 0) ACCESS_TYPE_VIRT_WRITE copy" \
	"set without a clause: a write at its destination's page"

# An index out of range inside a kernel: Xid 13 without an owner, then Xid 43 with the pid.
rm -f "$LOG"
CUDASIM_FAULT=attn@1:xid=13 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
pid=$(comment pid)
items=$("$DUMP" --pid "$pid" --pci "$(comment pci)" "$LOG" | grep '^item=')
is "$(printf '%s\n' "$items" | wc -l)" 3 "xid=13: three Xid lines"
is "$(printf '%s\n' "$items" | while read -r l; do printf '%s/%s/%s/%s ' "$(field "$l" xid)" "$(field "$l" pid)" "$(field "$l" gr)" "$(field "$l" rule)"; done)" \
	"13//warp/companion 13//esr/companion 43/$pid//pid " \
	"xid=13: warp and ESR lines without a pid belong through the Xid 43 that names it"
like "$(sed -n 2p "$LOG")" 'Graphics SM Warp Exception on \(GPC [0-9], TPC [0-9], SM [01]\): Out Of Range Address$' "xid=13: Out Of Range Address"
is "$(field "$(printf '%s\n' "$items" | sed -n 2p)" warp_code)" 0xe "xid=13: the ESR's warp code is 0x0e (out-of-range address)"
rm -f "$LOG"
CUDASIM_FAULT=attn@1:misaligned_address:xid=13 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel CUDA_ERROR_MISALIGNED_ADDRESS
like "$(sed -n 2p "$LOG")" '\): Misaligned Address$' "xid=13 with misaligned_address: Misaligned Address"

# No address clause: the simulator invents none, so no Xid 31 (the context still dies).
rm -f "$LOG"
CUDASIM_FAULT=attn@1 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
ok "no clause: program passes" tap_clean "$T/xid.tap"
ok "no clause: the log exists and stays empty" test -f "$LOG" -a ! -s "$LOG"
# An argument that is not a pointer-sized parameter: said on stderr, no line.
CUDASIM_FAULT=attn@1:arg=2+0 CUDASIM_KERNEL_LOG=$LOG sim_run xid kernel
like "$(cat "$T/xid.err")" "parameter 2 of attn is not an 8-byte parameter" "arg=2 (a u32): said on stderr"
ok "arg=2: no line" test ! -s "$LOG"

# The file: a symbolic link is not followed, a directory is refused, formats are checked.
ln -s "$T/target" "$T/link"
CUDASIM_FAULT=attn@1:arg=1 CUDASIM_KERNEL_LOG=$T/link sim_run xid init
is "$(comment cuInit)" 1 "a symbolic link as CUDASIM_KERNEL_LOG: cuInit fails (CUDA_ERROR_INVALID_VALUE)"
like "$(cat "$T/xid.err")" "symbolic link" "... and says why"
ok "... and nothing is created through it" test ! -e "$T/target"
CUDASIM_KERNEL_LOG=$T sim_run xid init
is "$(comment cuInit)" 1 "a directory as CUDASIM_KERNEL_LOG: cuInit fails"
for bad in 'CUDASIM_KERNEL_LOG_FORMAT=syslog' 'CUDASIM_FAULT=attn@1:arg=x' 'CUDASIM_FAULT=attn@1:arg=64' \
	'CUDASIM_FAULT=attn@1:arg=1+' 'CUDASIM_FAULT=attn@1:arg=-1' 'CUDASIM_FAULT=attn@1:addr=' 'CUDASIM_FAULT=attn@1:xid=14' \
	'CUDASIM_FAULT=attn@1:xid=31' 'CUDASIM_FAULT=attn@1:xid=13:arg=1' 'CUDASIM_FAULT=attn@1:xid=13:assert' \
	'CUDASIM_FAULT=attn@1:access=exec' 'CUDASIM_FAULT=.copy@1:xid=13' 'CUDASIM_FAULT=.copy@1:arg=2' \
	'CUDASIM_FAULT=.set@1:arg=1' 'CUDASIM_FAULT=.dma@1' 'CUDASIM_HANG=.copy@1'; do
	env "$bad" CUDASIM_KERNEL_LOG="$LOG" LD_LIBRARY_PATH="$B/sim" "$B/tests/sim/xid" init > "$T/xid.tap" 2> "$T/xid.err"
	is "$(comment cuInit) $(grep -c '^cudasim: ' "$T/xid.err")" "1 1" "$bad: cuInit fails with one line on stderr"
done
done_testing
