#!/usr/bin/env bash
# What a large kernel log adds to a report (`make bench`): the summary of a real core
# (xidengine's neighbour overrun, on the simulated driver) with and without `--kernel-log` of a
# MIB-MiB dmesg-style log: ordinary kernel chatter, one Xid line of another process every 1,000
# lines, and the crashed process's own Xid line near the end.  Prints `bench: NAME VALUE UNIT`
# lines; method and figures in docs/PERFORMANCE.md ("Kernel log").
#   bench/reader/klog.sh [--mib N] [--runs N] [--keep]
set -u
B=${CI_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
mib=100 runs=7 keep=false
while [ $# -gt 0 ]; do
	case $1 in
	--mib) mib=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--keep) keep=true; shift ;;
	*) echo "bench-klog: unknown argument $1" >&2; exit 2 ;;
	esac
done
for f in cudainspect libcudainspect-rec.so xidengine sim/libcuda.so.1 bench/reader/measure; do
	[ -e "$B/$f" ] || { echo "bench-klog: $B/$f is missing (make)" >&2; exit 1; }
done
M=$B/bench/reader/measure
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ci-bench-klog.XXXXXX")
$keep || trap 'rm -rf "$scratch"' EXIT
ulimit -c unlimited
# The outer subshell keeps bash's "Aborted (core dumped)" out of the output.
( ( cd "$scratch" && CUDAINSPECT_QUIET=1 LD_PRELOAD=$B/libcudainspect-rec.so LD_LIBRARY_PATH=$B/sim \
	CUDASIM_HANG=mlp@1 CUDASIM_FAULT=attn_decode@6:arg=1+262144 CUDASIM_KERNEL_LOG=$scratch/own.log \
	exec timeout 60 "$B/xidengine" neighbour ) >/dev/null 2>&1 ) 2>/dev/null
core=$(ls "$scratch"/core* 2>/dev/null | head -1)
own=$(grep 'NVRM: Xid' "$scratch/own.log" 2>/dev/null | head -1)
if [ -z "$core" ] || [ -z "$own" ]; then
	echo "bench-klog: no core or no Xid line appeared (core_pattern: $(cat /proc/sys/kernel/core_pattern))" >&2
	exit 1
fi
# The log: MIB MiB of lines as a busy host's dmesg has them.
awk -v bytes=$((mib * 1048576)) -v own="${own#*] }" 'BEGIN {
	srand(1)
	n = split("usb 1-1: new high-speed USB device number 4 using xhci_hcd|" \
		  "eth0: Link is Up - 25Gbps/Full - flow control off|" \
		  "audit: type=1400 audit(1700000000.123:456): apparmor=\"STATUS\" operation=\"profile_load\"|" \
		  "EXT4-fs (nvme0n1p2): re-mounted. Opts: errors=remount-ro. Quota mode: none.|" \
		  "nvidia-uvm: Loaded the UVM driver, major device number 509.|" \
		  "IPv6: ADDRCONF(NETDEV_CHANGE): veth1a2b3c: link becomes ready", text, "|")
	t = 1000.0
	while (size < bytes) {
		t += 0.000137
		if (++i % 1000 == 0)
			line = sprintf("NVRM: Xid (PCI:0000:3b:00): 31, pid=%d, name=python3, channel 0x0000001a, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 GPCCLIENT_T1_5 faulted @ 0x7f12_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ", 100000 + i % 7919, int(rand() * 2147483647) * 4096 % 4294967296)
		else
			line = text[1 + i % n]
		s = sprintf("[%12.6f] %s\n", t, line)
		printf "%s", s
		size += length(s)
		if (!put && size > bytes * 0.98) {
			print own
			put = 1
		}
	}
}' > "$scratch/big.log"
echo "bench: reader_klog_size $(( $(stat -c %s "$scratch/big.log") / 1048576 )) MiB"
echo "bench: reader_klog_xid_lines $(grep -c 'NVRM: Xid' "$scratch/big.log") count"
cat "$scratch/big.log" "$core" >/dev/null # page cache warm

. "$(dirname "$0")/median.sh"
read -r s0 k0 c0 < <(median "$B/cudainspect" -q "$core")
read -r s1 k1 c1 < <(median "$B/cudainspect" -q --kernel-log "$scratch/big.log" "$core")
echo "bench: reader_summary_time $s0 s"
echo "bench: reader_summary_klog_time $s1 s"
echo "bench: reader_klog_added $(awk -v a="$s1" -v b="$s0" 'BEGIN { printf "%.3f", a - b }') s"
echo "bench: reader_klog_added_cpu $(awk -v a="$c1" -v b="$c0" 'BEGIN { printf "%.3f", a - b }') s"
echo "bench: reader_summary_klog_peak_rss $((k1 / 1024)) MiB"
# The report still names the launch from the one line of the process.
conf=$("$B/cudainspect" --json --kernel-log "$scratch/big.log" "$core" 2>/dev/null |
	jq -r '.diagnosis.confidence' 2>/dev/null)
echo "bench: reader_klog_confidence_${conf:-none} 1 flag"
$keep && echo "bench-klog: kept $scratch"
exit 0
