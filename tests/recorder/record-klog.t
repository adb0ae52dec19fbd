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

# A log that cannot be read: one note; none with -q; nothing with CUDAINSPECT_KMSG=off.
crash "$T/d" CUDAINSPECT_KMSG="$T/no-such-log"
is "$(grep -c 'record: note: the kernel log cannot be read' "$T/d/err")" 1 "an unreadable log: one note from record"
ok "... and no file beside the core" test ! -e "$T/d/core.kernel-log"
is "$rc" 134 "... the exit status is the engine's"
crash "$T/e" CUDAINSPECT_KMSG=off
is "$(grep -c 'kernel log' "$T/e/err")" 0 "CUDAINSPECT_KMSG=off: nothing said, by record or the recorder"
ok "... no file" test ! -e "$T/e/core.kernel-log"
done_testing
