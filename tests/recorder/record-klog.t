#!/usr/bin/env bash
# `cudainspect record` keeps the kernel log's NVIDIA lines of its dead child beside the core
# (corefile/cli/record_klog.c): `<core>.kernel-log`, read like the recorder reads it
# (CUDAINSPECT_KMSG: here the simulator's CUDASIM_KERNEL_LOG in kmsg format), created safely (a
# planted link at the name is not followed), and a log that cannot be read is one note.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder miniengine cudainspect
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || skip_all "kernel.core_pattern is not 'core'"
CI=$B/cudainspect
FAULT='paged_attention@34:arg=0+262208' # as tests/recorder/kernel-log.t says

# crash DIR [ENV...]: `record` runs the engine in DIR; its kernel log is DIR/kern.log.
crash() {
	local dir=$1
	shift
	mkdir -p "$dir"
	run_in "$dir" env CUDASIM_FAULT="$FAULT" CUDASIM_KERNEL_LOG="$dir/kern.log" \
		CUDASIM_KERNEL_LOG_FORMAT=kmsg CUDAINSPECT_KMSG="$dir/kern.log" "$@" \
		"$CI" record -d "$dir/snaps" -- "$B/miniengine" --fault oob --quiet
}

crash "$T/a"
is "$rc" 134 "record passes the engine's SIGABRT through"
pid=$(sed -n 's/.*(pid \([0-9]*\)) was killed by signal.*/\1/p' "$T/a/err")
like "$(cat "$T/a/err")" "record: kernel log: $T/a/core\.kernel-log \(2 NVIDIA lines of pid $pid\)" \
	"record says where the kernel log's lines went"
is "$(cat "$T/a/core.kernel-log")" "$(grep -E "NVRM: (GPU at|Xid \(PCI:0000:18:00\): 31, pid=$pid, )" "$T/a/kern.log")" \
	"the file beside the core holds the simulator's GPU line and Xid 31 for that pid, as written"
is "$(stat -c '%a %u' "$T/a/core.kernel-log")" "600 $(id -u)" "... mode 0600, ours"

# The reader uses them: in record's own summary, and in `cudainspect CORE` later, without a
# flag.  The engine here keeps no lines in its record (CUDAINSPECT_KMSG=off for it alone), so
# the evidence can only come from the file beside the core.
mkdir -p "$T/u"
run_in "$T/u" env CUDASIM_FAULT="$FAULT" CUDASIM_KERNEL_LOG="$T/u/kern.log" CUDASIM_KERNEL_LOG_FORMAT=kmsg \
	CUDAINSPECT_KMSG="$T/u/kern.log" "$CI" record -d "$T/u/snaps" -- env CUDAINSPECT_KMSG=off \
	"$B/miniengine" --fault oob --quiet
page=$(sed -n 's/.* faulted @ \(0x[0-9a-f]*_[0-9a-f]*\)\. .*/\1/p' "$T/u/kern.log")
like "$page" "^0x[0-9a-f]+_[0-9a-f]{8}$" "(the simulator's Xid 31 names page $page)"
like "$(cat "$T/u/out")" "evidence: Xid 31 at $page " "record's summary has the Xid 31 evidence, from the file beside the core"
out=$(cd "$T/u" && "$CI" core 2>&1)
like "$out" "note: reading the kernel log's lines kept beside the core, core\.kernel-log" \
	"cudainspect CORE later: the file beside the core is read without a flag, and said"
like "$out" "evidence: Xid 31 at $page " "... and its Xid 31 is the evidence"
: >"$T/empty.log"
out=$(cd "$T/u" && "$CI" --kernel-log "$T/empty.log" core 2>&1)
unlike "$out" "kept beside the core|evidence: Xid" "--kernel-log FILE: that log instead, the one beside the core left alone"
cp "$T/u/core.kernel-log" "$T/u/saved.kernel-log"
chown nobody "$T/u/core.kernel-log" 2>/dev/null && {
	unlike "$(cd "$T/u" && "$CI" core 2>&1)" "kept beside the core|evidence: Xid 31" "a file beside the core owned by another user: not read (no note, no evidence from it)"
} || skip "cannot chown (not root)"
rm -f "$T/u/core.kernel-log"
ln -s "$T/u/saved.kernel-log" "$T/u/core.kernel-log"
unlike "$(cd "$T/u" && "$CI" core 2>&1)" "kept beside the core|evidence: Xid 31" "a symbolic link beside the core: not read (no note, no evidence from it)"

# Another process's lines in the same log stay out.
mkdir -p "$T/b"
printf '4,900,99999999999,-;NVRM: Xid (PCI:0000:18:00): 31, pid=1, name=other, channel 0x00000009, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n' >"$T/b/kern.log"
crash "$T/b"
unlike "$(cat "$T/b/core.kernel-log")" "pid=1, " "a line of another pid is not kept"

# A link planted at the name: not followed; the lines get a tagged name instead.
mkdir -p "$T/c"
printf 'private\n' >"$T/victim"
ln -s "$T/victim" "$T/c/core.kernel-log"
crash "$T/c"
is "$(cat "$T/victim")" private "a link planted at core.kernel-log: its target is unchanged"
tagged=$(ls "$T"/c/core-*.kernel-log 2>/dev/null | head -1)
like "$tagged" "/core-[0-9a-f]{16}\.kernel-log$" "... the lines went to a tagged name ($tagged)"
like "$(cat "$T/c/err")" "record: kernel log: $tagged " "... which record names"

# No core (a core-size limit of 0, which --no-core keeps): the lines go beside the snapshot.
mkdir -p "$T/n"
{ ( cd "$T/n" && ulimit -c 0 && exec env CUDASIM_FAULT="$FAULT" CUDASIM_KERNEL_LOG="$T/n/kern.log" \
	CUDASIM_KERNEL_LOG_FORMAT=kmsg CUDAINSPECT_KMSG="$T/n/kern.log" \
	"$CI" record --no-core -d "$T/n/snaps" -- "$B/miniengine" --fault oob --quiet ) >"$T/n/out" 2>"$T/n/err"; } 2>/dev/null
snapfile=$(sed -n 's/.*record: record snapshot: //p' "$T/n/err")
like "$(cat "$T/n/err")" "record: kernel log: $snapfile\.kernel-log \(2 NVIDIA lines" "no core: the lines go beside the snapshot ($snapfile.kernel-log)"
ok "... which exists" test -s "$snapfile.kernel-log"

# A log that cannot be read: one note; none with -q; nothing with CUDAINSPECT_KMSG=off.
crash "$T/d" CUDAINSPECT_KMSG="$T/no-such-log"
is "$(grep -c 'record: note: the kernel log cannot be read' "$T/d/err")" 1 "an unreadable log: one note from record"
ok "... and no file beside the core" test ! -e "$T/d/core.kernel-log"
is "$rc" 134 "... the exit status is the engine's"
crash "$T/e" CUDAINSPECT_KMSG=off
is "$(grep -c 'kernel log' "$T/e/err")" 0 "CUDAINSPECT_KMSG=off: nothing said, by record or the recorder"
ok "... no file" test ! -e "$T/e/core.kernel-log"
done_testing
