#!/usr/bin/env bash
# Regenerate tests/kernel-log/fixtures/*.log from fixtures/xid-lines.txt: the same real Xid
# lines (sources in docs/KERNEL-LOG.md) wrapped the way each tool prints kernel messages.  The
# output is committed; run this only after changing xid-lines.txt or the scheme below, and
# update the expectations in test-kernel-log.c to match.
#
# Scheme (test-kernel-log.c relies on it): Xid line i (0-based) was logged at
#   monotonic  1000 + 10*i s + 1111*i us since boot
#   wall clock boot at 2024-03-05 10:00:00 UTC, so 1709632800 + monotonic; local time is UTC+1
# journald received each message 2345 us after the kernel stamped it.  Each file starts with
# two header lines (the kernel's first messages) and has one other message after every Xid line.
set -eu
export LC_ALL=C
cd "$(dirname "$0")/fixtures"
mapfile -t lines < xid-lines.txt
BOOT=1709632800
BOOT_ID=0b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b
HOST=gpuhost
NOISE='audit: type=1400 audit(1709633801.500:42): apparmor="STATUS" operation="profile_load" name="nvidia_modprobe"'

us6() { printf '%06d' "$1"; }
# mono seconds and microseconds of Xid line i; the noise line after it is 5 s later
mono_s() { echo $((1000 + 10 * $1)); }
mono_u() { echo $((1111 * $1)); }
utc() { date -u -d "@$1" "$2"; }           # epoch seconds, format
loc() { date -u -d "@$(($1 + 3600))" "$2"; }  # the host's local time (UTC+1)
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }

# emit FORMAT MONO_S MONO_U TEXT
emit() {
	local f=$1 s=$2 u=$3 text=$4 w=$((BOOT + $2))
	case $f in
	dmesg) printf '[%5d.%s] %s\n' "$s" "$(us6 "$u")" "$text" ;;
	dmesg-T) printf '[%s] %s\n' "$(loc "$w" '+%a %b %e %H:%M:%S %Y')" "$text" ;;
	dmesg-iso) printf '%s,%s+01:00 %s\n' "$(loc "$w" '+%Y-%m-%dT%H:%M:%S')" "$(us6 "$u")" "$text" ;;
	kmsg) printf '4,%d,%d%s,-;%s\n' "$((700 + s))" "$s" "$(us6 "$u")" "$text" ;;
	journal-short) printf '%s %s kernel: %s\n' "$(loc "$w" '+%b %d %H:%M:%S')" "$HOST" "$text" ;;
	journal-short-monotonic)
		local r=$((u + 2345))
		printf '[%5d.%s] %s kernel: %s\n' "$((s + r / 1000000))" "$(us6 $((r % 1000000)))" "$HOST" "$text" ;;
	journal-short-iso) printf '%s %s kernel: %s\n' "$(loc "$w" '+%Y-%m-%dT%H:%M:%S+0100')" "$HOST" "$text" ;;
	journal.json)
		printf '{"__CURSOR":"s=6f1e;i=%x;b=%s","__REALTIME_TIMESTAMP":"%d","__MONOTONIC_TIMESTAMP":"%d","_BOOT_ID":"%s","_TRANSPORT":"kernel","PRIORITY":"4","SYSLOG_FACILITY":"0","SYSLOG_IDENTIFIER":"kernel","_SOURCE_MONOTONIC_TIMESTAMP":"%d","_HOSTNAME":"%s","MESSAGE":%s}\n' \
			"$s" "$BOOT_ID" "$((w * 1000000 + u + 2345))" "$((s * 1000000 + u + 2345))" "$BOOT_ID" \
			"$((s * 1000000 + u))" "$HOST" "$(json_str "$text")" ;;
	kern.log) printf '%s %s kernel: [%5d.%s] %s\n' "$(loc "$w" '+%b %e %H:%M:%S')" "$HOST" "$s" "$(us6 "$u")" "$text" ;;
	syslog.log) printf '%s %s kernel: %s\n' "$(loc "$w" '+%b %e %H:%M:%S')" "$HOST" "$text" ;;
	rsyslog-iso.log) printf '%s.%s+01:00 %s kernel: %s\n' "$(loc "$w" '+%Y-%m-%dT%H:%M:%S')" "$(us6 "$u")" "$HOST" "$text" ;;
	rfc5424.log) printf '<4>1 %s.%sZ %s kernel - - - %s\n' "$(utc "$w" '+%Y-%m-%dT%H:%M:%S')" "$(us6 "$u")" "$HOST" "$text" ;;
	esac
}

gen() { # FORMAT: header, then each Xid line and one noise line
	local f=$1 i
	emit "$f" 0 0 'Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)'
	emit "$f" 0 0 'Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=2d3c4b5a ro quiet'
	for i in "${!lines[@]}"; do
		emit "$f" "$(mono_s "$i")" "$(mono_u "$i")" "${lines[$i]}"
		emit "$f" "$(($(mono_s "$i") + 5))" 0 "$NOISE"
		# /dev/kmsg carries a device dictionary on continuation lines for dev_printk messages
		if [ "$f" = kmsg ]; then printf ' SUBSYSTEM=pci\n DEVICE=+pci:0000:db:00.0\n'; fi
	done
}

for f in dmesg dmesg-T dmesg-iso kmsg journal-short journal-short-monotonic journal-short-iso; do
	gen "$f" > "$f.log"
done
gen journal.json > journal.json
for f in kern.log syslog.log rsyslog-iso.log rfc5424.log; do
	gen "$f" > "$f"
done

# An nvidia-bug-report.log excerpt, laid out as nvidia-bug-report.sh writes it: separators of 44
# underscores; the "Scanning kernel log files" section with the NVRM lines grep'ed from
# /var/log/kern.log and from the journal of this boot; then the full dmesg.  The test gzips each
# section as its own member, as the script does.
sep=____________________________________________
{
	printf '%s\n\nStart of NVIDIA bug report log file.  Please include this file, along\n' "$sep"
	printf 'with a detailed description of your problem, when reporting a graphics\ndriver bug.\n\n'
	printf 'nvidia-bug-report.sh Version: 35201381\n\nDate: Tue Mar  5 11:30:00 CET 2024\n\n'
	printf '%s\n\n*** /etc/issue\nDebian GNU/Linux 12 \\n \\l\n\n' "$sep"
	printf '%s\n\nScanning kernel log files for NVIDIA kernel messages:\n\n  /var/log/kern.log:\n' "$sep"
	gen kern.log | grep -e NVRM -e nvidia-
	printf '\n  journalctl -b -0:\n'
	gen journal-short | grep -e NVRM -e nvidia-
	printf '\n%s\n\ndmesg:\n\n' "$sep"
	gen dmesg
	printf '%s\n\n*** /proc/version\nLinux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n\n' "$sep"
	printf '%s\n\nEnd of NVIDIA bug report log file.\n' "$sep"
} > bugreport.log
