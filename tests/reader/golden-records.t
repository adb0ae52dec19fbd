#!/usr/bin/env bash
# Golden reports of synthetic records (mkrecord: index-derived content, the same bytes on every
# run): every text view and the JSON document of each, byte for byte, against the reviewed text
# in tests/reader/golden/records/NAME.txt.  A change of the reader that must not change a word
# of its output keeps these equal; one that does rewrites them with GOLDEN_UPDATE=1, and the
# diff is reviewed before committing.  (tests/reader/same-reports.sh compares every report the
# whole suite asks for, before and after a change.)
. "$(dirname "$0")/../lib/tap.sh"
CI=$B/cudainspect
MK=$B/tests/reader-input/mkrecord
[ -x "$CI" ] && [ -x "$MK" ] || skip_all "$CI or $MK is not built"
GOLDEN=$TOP/tests/reader/golden/records
small="--launches=6 --launch-cap=8 --allocs=3 --alloc-cap=8 --frees=2 --free-cap=4 --events=3"

# The synthetic process's Xid 31 past allocation #3, an Xid 13 burst line, another process's.
cat >"$T/kern.log" <<'LOG'
[    0.000020] NVRM: Xid (PCI:0000:01:00): 31, pid=4242, name=synth-main, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_1 faulted @ 0x7f00_00203000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
4,812,21,-;NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address
[    0.000030] NVRM: Xid (PCI:0000:01:00): 31, pid=77, name=other, channel 0x00000002, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_CE0 faulted @ 0x0_00001000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
LOG

# NAME MKRECORD-OPTIONS: the bad-pointer rule; the driver's fault address; breadcrumbs off
# (open windows); a full table (the record's losses); torn entries (the only launch in flight).
records="plain:
kernel-log:--kernel-log=$T/kern.log
crumbs-off:--flags=4
table-full:--flags=2
torn:--torn=2"

views=$("$CI" --list-views | sed -n 's/^view //p')
while IFS=: read -r name opts; do
	mkdir -p "$T/$name"
	# shellcheck disable=SC2086 # the options, split on purpose
	"$MK" $small $opts "$T/$name/record" >/dev/null 2>&1 || { _tap_result 1 "mkrecord $name"; continue; }
	got=$T/$name.txt
	( cd "$T/$name" && for v in $views; do
		echo "=== $v"
		"$CI" --width 100 record "$v" 2>&1; echo "=== exit $?"
	done
	echo "=== json"
	"$CI" --json record 2>&1; echo "=== exit $?" ) >"$got"
	if [ -n "${GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$GOLDEN"
		cp "$got" "$GOLDEN/$name.txt"
		skip "golden/records/$name.txt rewritten (GOLDEN_UPDATE)"
	elif diff -u "$GOLDEN/$name.txt" "$got" >"$T/$name.diff"; then
		_tap_result 0 "every view of the $name record, text and JSON"
	else
		_tap_result 1 "every view of the $name record, text and JSON"
		diag "$(head -60 "$T/$name.diff")"
	fi
done <<<"$records"
done_testing
