#!/usr/bin/env bash
# The kernel log's Xid lines in the record (recorder/klog.c, common/kmsgread.c): a crashing
# engine on the simulated driver, whose fault makes the simulator append the driver's Xid lines
# to CUDASIM_KERNEL_LOG in /dev/kmsg's format; the recorder, pointed at that file by
# CUDAINSPECT_KMSG, reads it at the first sticky error and keeps this process's lines in the
# CI_SEC_KERNEL_LOG section, which recdump prints as the record holds it.  Expectations come
# from the simulator's own file (the lines it wrote, with the engine's pid), lines the test
# plants for other processes and GPUs, and the clocks' order.  Also: the clocks in the header,
# the section's bound, CUDAINSPECT_KMSG=off, and a log that cannot be read (missing, a FIFO,
# /dev/kmsg without CAP_SYSLOG) said once, with the engine's output and exit status unchanged.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder miniengine
ENGINE=$B/miniengine
# miniengine --fault oob plants its bug in paged_attention launch 34 (it says so with
# --verbose); the simulator is told where that launch's access went: 64 bytes past the end of
# the 262,144-byte buffer its parameter 0 points to.
FAULT='paged_attention@34:arg=0+262208'
is "$(LD_LIBRARY_PATH=$B/sim "$ENGINE" --fault oob --verbose 2>&1 | sed -n 's/^miniengine: CUDASIM_FAULT=//p')" \
	paged_attention@34 "the engine's planted fault is paged_attention launch 34"

# engine DIR [ENV...]: the engine under the recorder in DIR, its kernel log DIR/kern.log.
engine() {
	local dir=$1
	shift
	mkdir -p "$dir"
	run_in "$dir" env CUDASIM_KERNEL_LOG="$dir/kern.log" CUDASIM_KERNEL_LOG_FORMAT=kmsg \
		CUDAINSPECT_KMSG="$dir/kern.log" CUDAINSPECT_SNAPSHOT=error,signal "$@" \
		LD_PRELOAD="$REC" "$ENGINE" --fault oob --quiet
}
klog() { grep '^klog ' "$1" | sed 's/^klog //'; }

# ---- an Xid 31 ----------------------------------------------------------------------------
engine "$T/x31" CUDASIM_FAULT="$FAULT"
is "$rc" 134 "Xid 31: the engine aborts on the CUDA error as without the recorder"
like "$(cat "$T/x31/err")" "CUDA_ERROR_ILLEGAL_ADDRESS" "... after printing its error"
core=$(core_in "$T/x31")
ok "... and dumps core" test -n "$core"
"$DUMP" "$core" >"$T/x31.dump"
pid=$(field pid "$(grep '^header ' "$T/x31.dump")")
want=$(grep -E "NVRM: (GPU at|Xid \(PCI:0000:18:00\): 31, pid=$pid, )" "$T/x31/kern.log")
is "$(printf '%s\n' "$want" | wc -l)" 2 "the simulator wrote the GPU line and one Xid 31 for pid $pid"
is "$(klog "$T/x31.dump")" "$want" "the core's kernel-log section holds exactly those lines, as written"
like "$(klog "$T/x31.dump" | tail -1)" "^4,[0-9]+,[0-9]+,-;NVRM: Xid \(PCI:0000:18:00\): 31, pid=$pid, name=miniengine, .* faulted @ 0x[0-9a-f]+_[0-9a-f]{8}\. " \
	"... a /dev/kmsg record with the pid and the engine's name"
snapfile=$(snap "$T/x31" error)
"$DUMP" "$snapfile" >"$T/x31-snap.dump"
is "$(klog "$T/x31-snap.dump")" "$want" "the sticky-error snapshot has them too (read before it was written)"
like "$(grep '^kernel_log ' "$T/x31.dump")" "^kernel_log capacity=67000 head=[0-9]+ dropped=0$" \
	"the section is 67,000 bytes in a 32 MiB record (0.2 %), nothing dropped"

# The clocks: CLOCK_BOOTTIME at creation, the three clocks at the first sticky error, after the
# Xid line's stamp (the driver prints it when the fault happens, before the error is seen).
clocks=$(grep '^clocks ' "$T/x31.dump")
sm=$(field sticky_monotonic "$clocks") st=$(field start_monotonic "$clocks")
sr=$(field sticky_realtime "$clocks") str=$(field start_realtime "$clocks")
sb=$(field sticky_boottime "$clocks") stb=$(field start_boottime "$clocks")
xus=$(klog "$T/x31.dump" | tail -1 | cut -d, -f3)
ok "start_boottime is set and not before start_monotonic ($stb >= $st)" test "$stb" -ge "$st" -a "$st" -gt 0
ok "sticky_monotonic is after the start ($sm > $st)" test "$sm" -gt "$st"
ok "sticky_realtime is after start_realtime ($sr > $str)" test "$sr" -gt "$str"
# (Boot time runs ahead of monotonic only by the time the machine slept; the two readings at
# one instant are a few hundred ns apart.)
ok "sticky_boottime is not behind sticky_monotonic, and moved as much as it since the start (±50 ms)" \
	test "$sb" -ge $((sm - 1000000)) -a $(( (sb - stb) - (sm - st) )) -lt 50000000 -a $(( (sb - stb) - (sm - st) )) -gt -50000000
ok "the Xid line's stamp ($xus µs) lies between the start and the sticky error" \
	test "$xus" -ge $((st / 1000)) -a "$xus" -le $((sm / 1000))
# Whose lines are the process's (format 1.2): its start on the boot-time clock, from
# /proc/PID/stat (clock ticks), before the record's creation; its pids per namespace, the last
# being its own pid (the engine's verbose line names it).
psb=$(field proc_start_boottime "$clocks")
ok "proc_start_boottime ($psb) is set, before the record's creation ($stb), within 60 s" \
	test "$psb" -gt 0 -a "$psb" -le "$stb" -a $((stb - psb)) -lt 60000000000
nsp=$(field ns_pids "$clocks")
like "$nsp" "(^|,)$(sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p' "$T/x31.dump")(,0)*\$" \
	"ns_pids ($nsp) ends with the process's own pid"
summary=$("$B/cudainspect" "$core" 2>&1)
unlike "$summary" "kernel log section .*unusable|entry size is wrong" \
	"the reader takes the record's kernel-log section without a warning"
page=$(sed -n "s/.*31, pid=$pid, .* faulted @ \(0x[0-9a-f]*_[0-9a-f]*\)\. .*/\1/p" "$T/x31/kern.log")
like "$(printf '%s' "$summary" | tr -s '\n ' '  ')" "evidence: Xid 31 at $page .* the record's kernel log line 2, by pid" \
	"... and without a flag its summary's evidence is that Xid 31 ($page), from the record's lines"

# ---- other processes, other GPUs, old lines ----------------------------------------------
# Planted before the run (stamped far in the future, so that time does not decide, except the
# one stamped at 1 µs after boot): another pid; another pid with the engine's name (a process in
# a container, whose Xid pid is the host's); no pid on another GPU; no pid on the engine's GPU;
# an old line; a line that is not NVIDIA's.
mkdir -p "$T/mix"
future=99999999999
cat >"$T/mix/kern.log" <<EOF
4,900,$future,-;NVRM: Xid (PCI:0000:18:00): 31, pid=1, name=other, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
4,901,$future,-;NVRM: Xid (PCI:0000:18:00): 43, pid=4000000, name=miniengine, channel 0x00000009
4,902,$future,-;NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address
4,903,$future,-;NVRM: Xid (PCI:0000:18:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 1, SM 0): Out Of Range Address
4,904,1,-;NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.
4,905,$future,-;usb 1-1: new high-speed USB device number 2 using xhci_hcd
 SUBSYSTEM=usb
EOF
engine "$T/mix" CUDASIM_FAULT="$FAULT"
"$DUMP" "$(core_in "$T/mix")" >"$T/mix.dump"
pid=$(field pid "$(grep '^header ' "$T/mix.dump")")
got=$(klog "$T/mix.dump")
unlike "$got" "pid=1, " "another pid with another name: left out"
like "$got" "pid=4000000, name=miniengine" "another pid with the engine's name (a container's host pid): kept"
unlike "$got" "PCI:0000:3b:00" "no pid, on a GPU the engine did not use: left out"
like "$got" "GPC 1, TPC 1, SM 0" "no pid, on the engine's GPU: kept"
unlike "$got" ",904,1,-;" "a line stamped before the record began: left out"
unlike "$got" "usb|SUBSYSTEM" "lines that are not NVIDIA's (and continuation lines): left out"
like "$got" "31, pid=$pid, name=miniengine" "the engine's own Xid 31: kept"
is "$(printf '%s\n' "$got" | wc -l)" 4 "four lines in all (container name, no-owner line, GPU line, own Xid)"

# ---- an Xid 13 burst: warp and ESR lines without a pid, then Xid 43 with it ---------------
engine "$T/x13" CUDASIM_FAULT='paged_attention@34:xid=13'
"$DUMP" "$(core_in "$T/x13")" >"$T/x13.dump"
pid=$(field pid "$(grep '^header ' "$T/x13.dump")")
is "$(klog "$T/x13.dump")" "$(grep 'NVRM: ' "$T/x13/kern.log")" "Xid 13: every line of the burst is kept, as written"
like "$(klog "$T/x13.dump" | tail -1)" "43, pid=$pid, name=miniengine, channel" "... ending with the Xid 43 that names the engine"

# ---- the bound ----------------------------------------------------------------------------
mkdir -p "$T/big"
line="NVRM: Xid (PCI:0000:18:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 1, SM 0): Out Of Range Address"
awk -v l="$line" -v f=$future 'BEGIN { for (i = 0; i < 2000; i++) printf "4,%d,%s,-;%s\n", i, f, l }' >"$T/big/kern.log"
engine "$T/big" CUDASIM_FAULT="$FAULT"
"$DUMP" "$(core_in "$T/big")" >"$T/big.dump"
sec=$(grep '^kernel_log ' "$T/big.dump")
head=$(field head "$sec") dropped=$(field dropped "$sec")
kept=$(klog "$T/big.dump" | wc -l)
ok "2,000 lines of 130 bytes do not fit 67,000 bytes: $kept kept, $dropped counted as dropped" \
	test "$dropped" -gt 0 -a "$((kept + dropped))" -eq 2002
ok "... the section stays within its capacity ($head <= 67000)" test "$head" -le 67000
is "$rc" 134 "... and the engine ends as it does without the recorder"

# ---- off, and logs that cannot be read ----------------------------------------------------
engine "$T/off" CUDASIM_FAULT="$FAULT" CUDAINSPECT_KMSG=off
"$DUMP" "$(core_in "$T/off")" >"$T/off.dump"
like "$(grep '^kernel_log ' "$T/off.dump")" "head=0 " "CUDAINSPECT_KMSG=off: the section stays empty"
is "$(grep '^cudainspect: ' "$T/off/err" | grep -vc 'flight record written to')" 0 "... and nothing is said but where the snapshots went"
like "$(grep '^clocks ' "$T/off.dump")" "sticky_monotonic=[1-9]" "... the sticky clocks are still stamped"

# The engine's output without the recorder's lines: what it prints without the recorder.
run_in "$T/bare" env CUDASIM_FAULT="$FAULT" "$ENGINE" --fault oob --quiet
# (Which thread prints the error first varies: the messages without FILE:LINE, once each.)
errors() { grep -v '^cudainspect: ' "$1" | sed 's/^[^ ]*:[0-9]*: //' | sort -u; }
bare_rc=$rc bare_err=$(errors "$T/bare/err")
unread() { # DIR PATH: the engine with CUDAINSPECT_KMSG=PATH
	run_in "$1" env CUDASIM_FAULT="$FAULT" CUDAINSPECT_KMSG="$2" CUDAINSPECT_SNAPSHOT=none \
		LD_PRELOAD="$REC" timeout 20 "$ENGINE" --fault oob --quiet
}
unread "$T/missing" "$T/no-such-log"
is "$(grep -c 'kernel log cannot be read' "$T/missing/err")" 1 "a missing log: said once"
like "$(cat "$T/missing/err")" "kernel log cannot be read \($T/no-such-log: No such file or directory\), so the record has no Xid lines" \
	"... naming the file and why"
is "$rc $(errors "$T/missing/err")" "$bare_rc $bare_err" "... the engine's exit status and messages are as without the recorder"
mkdir -p "$T/fifo" && mkfifo "$T/fifo/log"
start=$SECONDS
unread "$T/fifo" "$T/fifo/log"
is "$rc" "$bare_rc" "a FIFO as the log: not opened for blocking reads, the engine ends as usual ($((SECONDS - start)) s)"
like "$(cat "$T/fifo/err")" "is not a character device or a regular file" "... said once"
ln -s "$T/x31/kern.log" "$T/fifo/link"
unread "$T/link" "$T/fifo/link"
like "$(cat "$T/link/err")" "is a symbolic link, which is not followed" "a symbolic link as the log: refused"
if [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ] && command -v setpriv >/dev/null &&
	setpriv --bounding-set=-syslog true 2>/dev/null; then
	run_in "$T/eperm" setpriv --inh-caps=-all --bounding-set=-syslog env CUDASIM_FAULT="$FAULT" \
		CUDAINSPECT_SNAPSHOT=none LD_PRELOAD="$REC" "$ENGINE" --fault oob --quiet
	like "$(cat "$T/eperm/err")" "kernel log cannot be read \(/dev/kmsg: Operation not permitted \(kernel.dmesg_restrict is 1: reading the kernel log needs CAP_SYSLOG\)\)" \
		"/dev/kmsg without CAP_SYSLOG under dmesg_restrict=1: EPERM, said with the reason"
	is "$(grep -c 'kernel log cannot be read' "$T/eperm/err") $rc" "1 $bare_rc" "... once; the engine ends as usual"
else
	skip "dmesg_restrict is not 1 here, or setpriv cannot drop CAP_SYSLOG"
	skip "dmesg_restrict is not 1 here, or setpriv cannot drop CAP_SYSLOG"
fi
done_testing
