#!/usr/bin/env bash
# Kernel-log evidence and argument history on real kernel cores: xidengine (two streams, an
# event, a watchdog thread) under the real recorder on the simulated driver, which appends the
# Xid line a real driver would print (CUDASIM_KERNEL_LOG).  The side stream's mlp kernel hangs
# (CUDASIM_HANG), so two launches are in flight when the planted fault hits.
#
# Expectations come from outside the reader: the pointers xidengine prints ("planted NAME=0x..."),
# the offsets this script plants through CUDASIM_FAULT, and the Xid line the simulator wrote
# (its address is read back with grep, not with the reader's parser).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/unit.sh"
CI=$B/cudainspect
recorder_preload
for f in cudainspect libcudainspect-rec.so sim/libcuda.so.1 xidengine tests/reader-input/mkrecord; do
	[ -e "$B/$f" ] || skip_all "$B/$f is not built"
done
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
unset CUDASIM_FAULT CUDASIM_HANG CUDASIM_MODE CUDASIM_KERNEL_US CUDASIM_KERNEL_LOG DEBUGINFOD_URLS
for v in $(env | sed -n 's/^\(CUDAINSPECT_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

# engine NAME SCENARIO FAULT [PRELOAD]: run xidengine SCENARIO in $T/NAME with CUDASIM_FAULT=FAULT,
# the mlp kernel hanging, the Xid lines in $T/NAME/kern.log and a core dump on.
engine() {
	local dir=$T/$1 sc=$2 fault=$3 pre=${4-$PRELOAD}
	mkdir -p "$dir"
	( ( cd "$dir" && ulimit -c unlimited && CUDAINSPECT_QUIET=1 LD_PRELOAD="$pre" \
		LD_LIBRARY_PATH="$B/sim" CUDASIM_HANG=mlp@1 CUDASIM_FAULT="$fault" \
		CUDASIM_KERNEL_LOG="$dir/kern.log" exec timeout 60 "$B/xidengine" "$sc" ) \
		>"$dir/out" 2>"$dir/err" || true ) 2>/dev/null
}
core_of() { ls "$T/$1"/core* 2>/dev/null | head -1; }
planted() { sed -n "s/^xidengine: planted $2=0x//p" "$T/$1/err" | head -1; }
# json NAME [ARGS...]: the JSON report of NAME's core in $T/NAME/report.json
json() { local n=$1; shift; "$CI" --json "$@" "$(core_of "$n")" >"$T/$n/report.json" 2>"$T/$n/json.err"; }
q() { jq -r "$2" "$T/$1/report.json"; }
id_at() { q "$1" ".allocations[] | select(.address_hex == \"0x$2\") | .id"; }
xid_page() { printf '%x' $(( 0x$(sed -nE 's/.*faulted @ 0x([0-9a-f]+)_([0-9a-f]{8}).*/\1\2/p' "$1" | head -1) )); }
fits() { # NAME FILE [LINES]: at most LINES (40) lines, none wider than 80
	local max=${3:-40}
	is "$(wc -l < "$2")" "$(awk -v max="$max" 'END { print (NR <= max ? NR : "over " max ": " NR) }' "$2")" "$1: the summary is within $max lines"
	is "$(awk 'length > 80' "$2" | wc -l)" 0 "$1: no line wider than 80 columns"
}

# ---- 1. Neighbour overrun: the 6th attn_decode's kv is 64 bytes past its buffer, inside the
# next allocation; the access goes one buffer further (past the end of that neighbour).
engine nb neighbour attn_decode@6:arg=1+262144
core=$(core_of nb)
ok "neighbour: the engine dumped core" test -n "$core"
kv=$(planted nb kv) next=$(planted nb next) bad=$(planted nb bad)
is "$bad" "$(printf '%x' $((0x$kv + 262144 + 64)))" "neighbour: the planted pointer is kv + 262,208"
json nb
kv_id=$(id_at nb "$kv") next_id=$(id_at nb "$next")
a='(.diagnosis.faulting_launch.seq as $s | .diagnosis.attributions[] | select(.launch == $s and .arg == 1))'
is "$(q nb '.diagnosis.faulting_launch.kernel') $(q nb '.diagnosis.confidence')" "attn_decode medium" \
	"neighbour, no kernel log: attn_decode is named by its argument history, medium"
is "$(q nb "$a.address_hex") $(q nb "$a.relation") $(q nb "$a.allocation") $(q nb "$a.offset")" \
	"0x$bad past_end $kv_id 64" "neighbour: arg 1 is 64 bytes past the end of the KV buffer #$kv_id"
is "$(q nb "$a.history.rule") $(q nb "$a.history.earlier_launches") $(q nb "$a.history.inside") $(q nb "$a.history.allocation")" \
	"left 5 5 $kv_id" "neighbour: which the 5 earlier launches all pointed into"
is "$(q nb "$a.history.neighbour_relation") $(q nb "$a.history.neighbour") $(q nb "$a.history.neighbour_offset")" \
	"inside $next_id 64" "neighbour: and it lies inside the next allocation #$next_id at offset 64"
like "$(q nb '.diagnosis.reasoning')" "Rule: argument history" "neighbour: the reasoning names the rule"
( cd "$T/nb" && "$CI" -w 80 core ) > "$T/nb/summary.txt"
like "$(tr -s ' \n' ' ' < "$T/nb/summary.txt")" \
	"0x$bad is 64 bytes past the end of #$kv_id \(256.0 KiB, allocated at neighbour\), which this parameter pointed into in the 5 earlier launches of attn_decode; it lies inside #$next_id at offset 64" \
	"neighbour: the summary says it in one sentence"
fits "neighbour" "$T/nb/summary.txt"

# ---- 2. The same core with its Xid line: the page is right after the neighbour; only
# attn_decode references it (through its history's neighbour): exact.
log=$T/nb/kern.log
page=$(xid_page "$log")
is "$page" "$(printf '%x' $(( (0x$bad + 262144) & ~0xfff )))" "neighbour: the simulator's Xid page is the access, down to 4 KiB"
json nb --kernel-log "$log"
is "$(q nb '.diagnosis.faulting_launch.kernel') $(q nb '.diagnosis.confidence')" "attn_decode exact" \
	"neighbour + Xid: attn_decode, exact"
is "$(q nb '.diagnosis.xid_page.address_hex') $(q nb '.diagnosis.xid_page.relation') $(q nb '.diagnosis.xid_page.allocation') $(q nb '.diagnosis.xid_page.offset')" \
	"0x$page past_end $next_id 0" "neighbour + Xid: the page lies right after the end of #$next_id"
is "$(q nb '.diagnosis.kernel_log.selected') $(q nb '.diagnosis.kernel_log.lines[0].rule')" "1 pid" \
	"neighbour + Xid: the line belongs by pid"
is "$(q nb '[.diagnosis.evidence[].kind] | join(",")')" "xid_page,rule,xid_launch,argument_history" \
	"neighbour + Xid: the evidence list (the page, the record's rule, the launch, the history)"
is "$(q nb '.diagnosis.evidence[] | select(.kind == "xid_launch") | "\(.launch) \(.allocation) \(.rule)"')" \
	"$(q nb '.diagnosis.faulting_launch.seq') $next_id exact" "neighbour + Xid: the launch item points at the launch and #$next_id"
sig1=$(q nb '.diagnosis.fingerprint.id')
( cd "$T/nb" && "$CI" -w 80 --kernel-log kern.log core ) > "$T/nb/summary-xid.txt"
like "$(tr -s ' \n' ' ' < "$T/nb/summary-xid.txt")" \
	"evidence: Xid 31 at 0x${page:0:4}_${page:4} \(FAULT_PTE read, GPC[0-9]\): the page lies right after the end of #$next_id \(256.0 KiB\); kern.log line 2, by pid" \
	"neighbour + Xid: the summary shows the line and where the page lies"
fits "neighbour + Xid" "$T/nb/summary-xid.txt"
"$CI" --kernel-log - "$core" fault < "$log" > "$T/nb/fault.txt"
like "$(cat "$T/nb/fault.txt")" "xid_page/pid: Xid 31" "fault view, log on standard input: every evidence item with its rule"
like "$(tr -s ' \n' ' ' < "$T/nb/fault.txt")" "kernel log: the kernel log on standard input: 1 Xid line, 1 of them the process's" \
	"fault view: how many lines the log had and how many are the process's"
like "$(tr -s ' \n' ' ' < "$T/nb/fault.txt")" "Signature $sig1 \(of: CUDA_ERROR_ILLEGAL_ADDRESS attn_decode attn_steps arg1:past_end:left\)" \
	"fault view: the signature and what it hashes"

# In GDB: `cuda summary --kernel-log FILE` hands the option and its value to the CLI.
if command -v gdb >/dev/null && [ -e "$B/cudainspect.gdb" ]; then
	( cd "$T/nb" && timeout 60 gdb -nx -batch -iex 'set debuginfod enabled off' \
		-ex "source $B/cudainspect.gdb" -ex "cuda summary --kernel-log kern.log" \
		"$B/xidengine" core ) > "$T/nb/gdb.txt" 2>&1
	like "$(cat "$T/nb/gdb.txt")" "Faulting kernel: attn_decode   \[confidence: exact\]" \
		"GDB: cuda summary --kernel-log FILE reads the log"
else
	skip "gdb or build/cudainspect.gdb is missing"
fi

# The file `cudainspect record` keeps beside a core (CORE.kernel-log) is used without the flag.
cp "$log" "$core.kernel-log"
json nb
is "$(q nb '.diagnosis.confidence') $(q nb '.diagnosis.kernel_log.origin')" "exact $core.kernel-log" \
	"CORE.kernel-log beside the core: used without --kernel-log"
rm -f "$core.kernel-log"

# ---- 3. A second run of the same bug: another pid, other addresses, the same signature.
engine nb2 neighbour attn_decode@6:arg=1+262144
json nb2 --kernel-log "$T/nb2/kern.log"
isnt "$(q nb2 '.process.pid')" "$(q nb '.process.pid')" "second run: another pid"
is "$(q nb2 '.diagnosis.fingerprint.id')" "$sig1" "second run: the same signature"

# ---- 4. The line for another pid (another process on the same GPU): not the process's.
sed -E 's/pid=[0-9]+, name=xidengine/pid=1, name=other/' "$log" > "$T/nb/other.log"
json nb --kernel-log "$T/nb/other.log"
is "$(q nb '.diagnosis.kernel_log.selected') $(q nb '.diagnosis.kernel_log.lines[0].reject') $(q nb '.diagnosis.xid_page')" \
	"0 pid null" "another pid: the line is rejected (pid) and names no page"
is "$(q nb '.diagnosis.confidence')" medium "another pid: the record's own rule stands"

# ---- 5. A container: the line has the host's pid, the core the container's; same name, in time.
sed -E 's/pid=[0-9]+,/pid=987654,/' "$log" > "$T/nb/host-pid.log"
json nb --kernel-log "$T/nb/host-pid.log"
is "$(q nb '.diagnosis.kernel_log.lines[0].rule') $(q nb '.diagnosis.confidence')" "name+time exact" \
	"container pid mismatch: the line belongs by name and time"

# ---- 6. No pid at all (570+ drivers omit pid and name when no owner is known).
sed -E 's/pid=[0-9]+, name=xidengine, //' "$log" > "$T/nb/no-pid.log"
json nb --kernel-log "$T/nb/no-pid.log"
is "$(q nb '.diagnosis.kernel_log.lines[0].pid') $(q nb '.diagnosis.kernel_log.lines[0].rule') $(q nb '.diagnosis.confidence')" \
	"null gpu+time exact" "no pid: the line belongs by GPU and time"

# ---- 6b. Every log format, made from the simulator's line: the message as it is, the times
# from its printk time and the record's clocks (CLOCK_REALTIME = start_realtime + (printk time -
# start_monotonic)), so that each format's clock falls inside the record's window.
msg=$(sed -n 's/^\[ *[0-9.]*\] //p' "$log" | grep 'NVRM: Xid')
mono=$(sed -n 's/^\[ *\([0-9.]*\)\] NVRM: Xid.*/\1/p' "$log")
mono_us=$(awk -v m="$mono" 'BEGIN { printf "%.0f", m * 1e6 }')
json nb
wall_us=$(( $(q nb '.record.start_realtime_ns') / 1000 + mono_us - $(q nb '.record.start_monotonic_ns') / 1000 ))
wall_s=$((wall_us / 1000000)) frac=$(printf '%06d' $((wall_us % 1000000)))
iso=$(date -u -d "@$wall_s" +%Y-%m-%dT%H:%M:%S).${frac}Z
printf '[%s] %s\n' "$(date -d "@$wall_s" '+%a %b %e %H:%M:%S %Y')" "$msg" > "$T/nb/f-dmesg-T.log"
printf '%s vm kernel: %s\n' "$(date -u -d "@$wall_s" +%Y-%m-%dT%H:%M:%S+0000)" "$msg" > "$T/nb/f-iso.log"
printf '[%s] vm kernel: %s\n' "$mono" "$msg" > "$T/nb/f-journal-monotonic.log"
jq -cn --arg m "$msg" --arg r "$wall_us" --arg s "$mono_us" \
	'{__REALTIME_TIMESTAMP: $r, __MONOTONIC_TIMESTAMP: $s, _SOURCE_MONOTONIC_TIMESTAMP: $s,
	  _TRANSPORT: "kernel", SYSLOG_IDENTIFIER: "kernel", PRIORITY: "4", MESSAGE: $m}' > "$T/nb/f-journal-json.log"
printf '%s vm kernel: [%s] %s\n' "$(date -d "@$wall_s" '+%b %e %H:%M:%S')" "$mono" "$msg" > "$T/nb/f-syslog.log"
printf '<4>1 %s vm kernel - - - %s\n' "$iso" "$msg" > "$T/nb/f-rfc5424.log"
{ echo "____________________________________________"; echo; echo "Start of NVIDIA bug report log file."; \
  cat "$log"; } | gzip > "$T/nb/f-dmesg.log"
for f in dmesg-T iso journal-monotonic journal-json syslog rfc5424 dmesg; do
	json nb --kernel-log "$T/nb/f-$f.log"
	is "$(q nb '.diagnosis.kernel_log.lines[0].format') $(q nb '.diagnosis.kernel_log.lines[0].rule') $(q nb '.diagnosis.confidence')" \
		"$f pid exact" "format $f$( [ $f = dmesg ] && echo ' (a gzip'"'"'ed bug report)'): parsed, selected by pid, exact"
done
# Time only narrows: the no-pid line an hour after the crash is not the process's.
awk '{ if (match($0, /^\[ *[0-9.]+\]/)) { t = substr($0, 2, RLENGTH - 2) + 3600; $0 = sprintf("[%12.6f]%s", t, substr($0, RLENGTH + 1)) } print }' \
	"$T/nb/no-pid.log" > "$T/nb/late.log"
json nb --kernel-log "$T/nb/late.log"
is "$(q nb '.diagnosis.kernel_log.lines[0].reject') $(q nb '.diagnosis.xid_page')" "time null" \
	"no pid, an hour late: rejected by time"

# ---- 6b. A stale pointer: the 6th attn_decode gets a pointer to a scratch buffer freed just
# before, which is also right after the end of the KV buffer the 5 earlier launches used. A use
# after free comes first; the history is second (issue 19, 3).
engine st stale attn_decode@6:arg=1
json st
kv=$(planted st kv) scratch=$(planted st scratch) bad=$(planted st bad)
is "$bad $(printf '%x' $(( 0x$kv + 262144 )))" "$scratch $scratch" "stale: the bad pointer is the scratch buffer, right after kv"
a='(.diagnosis.faulting_launch.seq as $s | .diagnosis.attributions[] | select(.launch == $s and .arg == 1))'
sid=$(q st ".frees[] | select(.address_hex == \"0x$scratch\") | .id") kid=$(id_at st "$kv")
is "$(q st '.diagnosis.faulting_launch.kernel') $(q st "$a.relation") $(q st "$a.allocation") $(q st "$a.offset")" \
	"attn_decode freed $sid 0" "stale: arg 1 is inside the freed scratch #$sid at offset 0 (primary)"
is "$(q st "$a.history.rule") $(q st "$a.history.allocation") $(q st "$a.history.neighbour") $(q st "$a.history.neighbour_relation") $(q st "$a.history.neighbour_offset")" \
	"left $kid $kid past_end 0" "stale: the history (#$kid) is second: right after its end"
like "$(q st '.diagnosis.fingerprint.basis')" "arg1:freed" "stale: the signature says freed"
( cd "$T/st" && "$CI" -w 80 core ) > "$T/st/summary.txt"
like "$(tr -s ' \n' ' ' < "$T/st/summary.txt")" \
	"arg 1 \(\+8\): Address 0x$scratch is inside allocation #$sid .*, at offset 0, which was FREED .* freed at attn_steps \(xidengine.c:[0-9]+\) This parameter pointed into #$kid in the 5 earlier launches of attn_decode; this address is right after its end\." \
	"stale: the summary says FREED first, with the free's site, then the history"
fits "stale" "$T/st/summary.txt"

# ---- 7. An index fault: every pointer is valid; embed reads 8 KiB past its 1 MiB table.
engine ix index embed@3:arg=0+1056768
json ix
table=$(planted ix table)
is "$(q ix '.diagnosis.faulting_launch.kernel') $(q ix '.diagnosis.confidence')" "mlp low" \
	"index fault, no kernel log: nothing points outside; the oldest in flight (mlp) is named, low"
json ix --kernel-log "$T/ix/kern.log"
tid=$(id_at ix "$table")
is "$(q ix '.diagnosis.faulting_launch.kernel') $(q ix '.diagnosis.confidence')" "embed exact" \
	"index fault + Xid: embed, the only launch with a pointer into the table, exact"
is "$(q ix '.diagnosis.xid_page.relation') $(q ix '.diagnosis.xid_page.allocation') $(q ix '.diagnosis.xid_page.offset')" \
	"past_end $tid $(( ((0x$table + 1056768) & ~0xfff) - (0x$table + 1048576) ))" \
	"index fault + Xid: the page lies past the end of the table #$tid"
is "$(q ix '.diagnosis.fingerprint.basis')" "CUDA_ERROR_ILLEGAL_ADDRESS embed index_fault xid31:past_end" \
	"index fault + Xid: the signature's words"
( cd "$T/ix" && "$CI" -w 80 --kernel-log kern.log core ) > "$T/ix/summary.txt"
fits "index fault + Xid" "$T/ix/summary.txt"

# ---- 7a. The index goes far: embed stores at its table + 2^41 + 64 KiB (the H200's Triton bug),
# a page in no allocation; only embed's arg 0 fits it (a power of two, 2,097,152 x its 1 MiB).
engine far index embed@3:arg=0+$(( (1 << 41) + 65536 ))
json far --kernel-log "$T/far/kern.log"
table=$(planted far table) tid=$(id_at far "$(planted far table)")
is "$(xid_page "$T/far/kern.log")" "$(printf '%x' $(( 0x$table + (1 << 41) + 65536 )))" 	"far index: the simulator's Xid page is the table + 2^41 + 64 KiB"
is "$(q far '.diagnosis.faulting_launch.kernel') $(q far '.diagnosis.confidence') $(q far '.diagnosis.xid_page.relation')" 	"embed medium unknown" "far index + Xid: the page lies in no allocation; embed is named by its argument, medium"
a='(.diagnosis.faulting_launch.seq as $s | .diagnosis.attributions[] | select(.launch == $s and .arg == 0) | .fault_page)'
is "$(q far "$a.fit") $(q far "$a.from_argument") $(q far "$a.power_of_two.exponent") $(q far "$a.power_of_two.rest") $(q far "$a.multiple.times") $(q far "$a.multiple.rest")" 	"power_of_two $(( (1 << 41) + 65536 )) 41 65536 2097152 65536" 	"far index + Xid: arg 0's relation: 2^41 + 65,536 = 2,097,152 x 1 MiB + 65,536"
is "$(q far '[.diagnosis.attributions[] | select(.fault_page.fit != "none")] | length')" 1 	"far index + Xid: no other argument of the launches in flight fits the page"
is "$(q far '.diagnosis.xid_page.nearest_below.allocation') $(q far '.diagnosis.xid_page.nearest_below.distance') $(q far '.diagnosis.xid_page.nearest_above')" 	"$tid $(( (1 << 41) + 65536 )) null" "far index + Xid: the nearest allocation is the table, 2^41 + 64 KiB below"
( cd "$T/far" && "$CI" -w 80 --kernel-log kern.log core ) > "$T/far/summary.txt"
like "$(tr -s ' \n' ' ' < "$T/far/summary.txt")" \
	"by pid; the page is arg 0 \+ 2,199,023,321,088 B \(2\^41 \+ 65,536 B; 2,097,152 × its 1.0 MiB allocation #$tid from its start \+ 65,536 B\) why: Rule: the fault page against the arguments\. No suspect launch points into or next to it; only this one \(of 2\) has an argument it fits\." \
	"far index + Xid: the summary shows the relation and the rule"
"$CI" --kernel-log "$T/far/kern.log" "$(core_of far)" fault > "$T/far/fault.txt"
like "$(tr -s ' \n' ' ' < "$T/far/fault.txt")" \
	"xid_launch/power_of_two: fault page 0x$(printf '%x' $(( 0x$table + (1 << 41) + 65536 ))) = arg 0 \+ 2,199,023,321,088 B \(2\^41 \+ 65,536 B; .*\): only embed \(launch 3 on stream" \
	"far index + Xid: the fault view lists the relation as evidence"
# "About 40 lines" (docs/USAGE.md): the argument the page fits takes two more.
fits "far index + Xid" "$T/far/summary.txt" 42

# A whole number of sizes away (1,000 x the 1 MiB table); and a page that fits nothing.
engine mul index embed@3:arg=0+$(( 1000 << 20 ))
json mul --kernel-log "$T/mul/kern.log"
a='(.diagnosis.attributions[] | select(.fault_page.fit != "none") | .fault_page)'
is "$(q mul '.diagnosis.faulting_launch.kernel') $(q mul "$a.fit") $(q mul "$a.multiple.times") $(q mul "$a.multiple.rest")" 	"embed multiple 1000 0" "1,000 x the table's size: embed, by a multiple, exactly"
engine none index embed@3:arg=0+$(( 0x123456789000 ))
json none --kernel-log "$T/none/kern.log"
is "$(q none '.diagnosis.faulting_launch.kernel') $(q none '.diagnosis.confidence') $(q none '[.diagnosis.attributions[] | select(.fault_page.fit != "none")] | length')" 	"mlp low 0" "a page 0x123456789000 away fits no argument: the record's own choice stays, low"
like "$(q none '.diagnosis.reasoning')" "The nearest live allocations are #$(id_at none "$(planted none table)") \(1.0 MiB\) 20,015,998,341,120 B below\. No argument" \
	"... and the reasoning names the nearest allocation"

# ---- 7b. The same index fault reported as an Xid 13 burst (no address) and its Xid 43.
engine x13 index embed@3:xid=13
json x13 --kernel-log "$T/x13/kern.log"
is "$(q x13 '[.diagnosis.kernel_log.lines[] | "\(.xid)/\(.rule)"] | join(" ")')" "13/companion 13/companion 43/pid" \
	"Xid 13: the burst belongs through the Xid 43 that names the pid"
is "$(q x13 '.diagnosis.xid_page') $(q x13 '[.diagnosis.evidence[] | select(.kind == "xid")] | length')" "null 1" \
	"Xid 13: no page to attribute; the three lines are one event, one evidence item"
is "$(q x13 '.diagnosis.kernel_log.events') $(q x13 '[.diagnosis.kernel_log.lines[].event] | join(" ")')" "1 0 0 0" \
	"Xid 13: JSON: one event, every line in it"
( cd "$T/x13" && "$CI" -w 80 --kernel-log kern.log core ) > "$T/x13/summary.txt"
like "$(cat "$T/x13/summary.txt")" "fault   # why this launch; the process's 3 kernel-log lines" \
	"Xid 13: the summary points to the fault view for the lines"
fits "Xid 13" "$T/x13/summary.txt"
"$CI" --kernel-log "$T/x13/kern.log" "$(core_of x13)" fault > "$T/x13/fault.txt"
like "$(tr -s ' \n' ' ' < "$T/x13/fault.txt")" "Xid 13 \(GPC [0-9], TPC [0-9], SM [01]\): Out Of Range Address, an SM exception in a kernel, no address" \
	"Xid 13: the warp line in the fault view"
like "$(tr -s ' \n' ' ' < "$T/x13/fault.txt")" "with it, 2 more lines of the same event within [0-9]+ ms \(Xid 13 ×1, Xid 43 ×1\)" \
	"Xid 13: the ESR line and the Xid 43 go with the warp line, as one event"
like "$(tr -s ' \n' ' ' < "$T/x13/fault.txt")" "3 of them the process's \(1 event\)" "Xid 13: the fault view counts the event"

# ---- 7c. A hostile name in a line (U+202E): nothing prints it raw.
sed -E "s/name=xidengine/name=xid$(printf '\xe2\x80\xae')gine/" "$log" > "$T/nb/bidi.log"
"$CI" --kernel-log "$T/nb/bidi.log" "$core" fault > "$T/nb/bidi.txt"
"$CI" --json --kernel-log "$T/nb/bidi.log" "$core" > "$T/nb/bidi.json"
is "$(cat "$T/nb/bidi.txt" "$T/nb/bidi.json" | grep -c "$(printf '\xe2\x80\xae')")" 0 \
	"U+202E in a line's name: not in the fault view or the JSON"
is "$(jq -r '.diagnosis.kernel_log.lines[0].rule' "$T/nb/bidi.json")" pid "U+202E in a line's name: it still belongs by pid"

# ---- 8. A copy-engine fault: the 2nd copy writes past its 64 KiB destination.
engine cp copy .copy@2:arg=0+65536
json cp --kernel-log "$T/cp/kern.log"
dst=$(planted cp dst)
is "$(q cp '.diagnosis.faulting_launch') $(q cp '.diagnosis.faulting_copy.kind') $(q cp '.diagnosis.faulting_copy.destination_hex') $(q cp '.diagnosis.faulting_copy.bytes') $(q cp '.diagnosis.confidence')" \
	"null memcpy 0x$dst 65536 exact" "copy engine: the copy is named, not a kernel, exact"
like "$(grep 'faulted @' "$T/cp/kern.log")" "ENGINE CE0" "copy engine: the line is a copy engine's"
( cd "$T/cp" && "$CI" -w 80 --kernel-log kern.log core ) > "$T/cp/summary.txt"
like "$(cat "$T/cp/summary.txt")" "Faulting copy: 65,536 bytes to 0x$dst   \[confidence: exact\]" "copy engine: the summary's heading"
fits "copy engine" "$T/cp/summary.txt"

# ---- 9. The kmsg format, and a sparse decode that agrees with a complete one.
CUDASIM_KERNEL_LOG_FORMAT=kmsg engine km neighbour attn_decode@6:arg=1+262144
like "$(tail -1 "$T/km/kern.log")" '^4,[0-9]+,[0-9]+,-;NVRM: Xid' "kmsg: the simulator wrote a /dev/kmsg record"
json km --kernel-log "$T/km/kern.log"
is "$(q km '.diagnosis.confidence') $(q km '.diagnosis.kernel_log.lines[0].format')" "exact kmsg" \
	"kmsg: the record parses and decides the same way"
run_c_test "$B/tests/reader/sparse_test" "$(core_of nb)" "$(core_of ix)" "$(core_of cp)"
run_c_test "$B/tests/reader/sparse_test" --kernel-log="$T/nb/kern.log" "$(core_of nb)" \
	--kernel-log="$T/ix/kern.log" "$(core_of ix)" --kernel-log="$T/cp/kern.log" "$(core_of cp)"

# ---- 10. Lines the record keeps (its kernel_log section) are used without any flag.
printf '[    0.000020] NVRM: Xid (PCI:0000:01:00): 31, pid=4242, name=synth-main, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_1 faulted @ 0x7f00_00203000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE\n' > "$T/synth.log"
"$B/tests/reader-input/mkrecord" --kernel-log="$T/synth.log" "$T/synth.cisnap"
"$B/tests/reader-input/mkrecord" "$T/plain.cisnap"
"$CI" --json "$T/plain.cisnap" > "$T/plain.json"
"$CI" --json "$T/synth.cisnap" > "$T/synth.json"
is "$(jq -r '.diagnosis.confidence' "$T/plain.json")" low "record without kernel-log lines: three in flight, low"
is "$(jq -r '.diagnosis | "\(.confidence) \(.faulting_launch.kernel) \(.kernel_log.origin) \(.xid_page.relation) \(.xid_page.allocation)"' "$T/synth.json")" \
	"exact kernel_3 the record's kernel log past_end 3" "record with its kernel_log section: used without a flag, exact"

# ---- 10b. End to end: `cudainspect record` with the recorder reading the simulator's lines as
# /dev/kmsg (CUDAINSPECT_KMSG): the record's own section, and CORE.kernel-log beside the core.
if [ "${CI_SANITIZE:-}" = address ]; then
	# `record` preloads the recorder by itself, and an ASan-built one needs its runtime first.
	for _ in 1 2 3; do skip "cudainspect record under ASan: the recorder it preloads is an ASan build"; done
else
	mkdir -p "$T/rec" && : > "$T/rec/kmsg" && chmod 600 "$T/rec/kmsg"
	( ( cd "$T/rec" && ulimit -c unlimited && LD_LIBRARY_PATH="$B/sim" CUDASIM_HANG=mlp@1 \
		CUDASIM_FAULT=attn_decode@6:arg=1+262144 CUDASIM_KERNEL_LOG="$T/rec/kmsg" \
		CUDASIM_KERNEL_LOG_FORMAT=kmsg CUDAINSPECT_KMSG="$T/rec/kmsg" \
		exec timeout 60 "$CI" record -- "$B/xidengine" neighbour ) > "$T/rec/out" 2> "$T/rec/err" || true ) 2>/dev/null
	like "$(cat "$T/rec/out")" "Faulting kernel: attn_decode   \[confidence: exact\]" \
		"record: the report it prints uses the lines kept beside the core: exact"
	ok "record: CORE.kernel-log was written" test -s "$T/rec/core.kernel-log"
	mv "$T/rec/core.kernel-log" "$T/rec/kept.log"
	"$CI" --json "$T/rec/core" > "$T/rec/report.json"
	is "$(jq -r '.diagnosis | "\(.confidence) \(.kernel_log.origin) \(.kernel_log.lines[0].rule)"' "$T/rec/report.json")" \
		"exact the record's kernel log pid" "record: without the file, the record's own kernel_log section decides: exact"
fi

# ---- 11. No record: exit 4, and the process's Xid line, with nothing to attribute it to.
engine nr neighbour attn_decode@6:arg=1+262144 ""
rc=0
"$CI" --kernel-log "$T/nr/kern.log" "$(core_of nr)" > "$T/nr/out.txt" 2> "$T/nr/err.txt" || rc=$?
is "$rc" 4 "no record: exit 4"
like "$(cat "$T/nr/err.txt")" "no cudainspect flight record" "no record: said on stderr"
p=$(xid_page "$T/nr/kern.log")
like "$(cat "$T/nr/out.txt")" "Xid 31 at 0x${p:0:4}_${p:4} \(FAULT_PTE read, GPC[0-9]\); line 2, by pid" \
	"no record: the process's Xid line is printed, with the rule"
like "$(tr -s ' \n' ' ' < "$T/nr/out.txt")" "nothing to attribute the fault address to" "no record: said plainly"
rc=0
"$CI" --json --kernel-log "$T/nr/kern.log" "$(core_of nr)" > "$T/nr/out.json" 2> /dev/null || rc=$?
is "$rc" 4 "no record, JSON: exit 4"
nrpid=$(sed -n 's/.*NVRM: Xid .*, pid=\([0-9]*\),.*/\1/p' "$T/nr/kern.log" | head -1)
is "$(jq -r '"\(.host_side.pid) \(.kernel_log.selected) \(.kernel_log.lines[0].belongs) \(.kernel_log.lines[0].rule) \(.kernel_log.lines[0].pid) \(.kernel_log.lines[0].address_hex)"' "$T/nr/out.json")" \
	"$nrpid 1 true pid $nrpid 0x$p" "no record, JSON: the one document holds the process's Xid line (pid, rule, page)"
like "$(jq -r .kernel_log.attribution "$T/nr/out.json")" "^none: without a flight record" "no record, JSON: nothing attributed, said"

# ---- 12. Bad input: a directory, a missing file.
rc=0; "$CI" --kernel-log "$T" "$core" > /dev/null 2> "$T/dir.err" || rc=$?
is "$rc" 3 "--kernel-log DIR: exit 3"
like "$(cat "$T/dir.err")" "not a regular file" "--kernel-log DIR: says why"
rc=0; "$CI" --kernel-log "$T/none.log" "$core" > /dev/null 2> "$T/none.err" || rc=$?
is "$rc" 3 "--kernel-log MISSING: exit 3"
done_testing
