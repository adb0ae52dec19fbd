#!/usr/bin/env bash
# Only regular files are ever opened.  A core's file list (NT_FILE), a live process's maps,
# --exe, --sysroot and --debuginfo-path can all name a FIFO (opening it waits for a writer
# forever) or a device (opening it can act); the reader must finish, name what it did not
# open, and never open it.  "Never opened" is observed two ways that do not depend on the
# reader: a FIFO with a writer waiting in open(2), which returns as soon as anyone opens the
# FIFO for reading (so the writer's marker file must not appear), and strace, where no open of
# a device path may be anything but O_PATH (which does not call the driver).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
CI=$B/cudainspect
[ -x "$D/mkcore" ] && [ -x "$D/crasher" ] && [ -x "$CI" ] || skip_all "fixtures not built (make check builds them)"

WRITERS=()
cleanup() { for p in "${WRITERS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
# fifo PATH: a FIFO with a writer blocked in open(2) until someone opens it for reading; then
# PATH.opened appears.
fifo() {
	rm -f "$1" "$1.opened"
	mkfifo "$1"
	( exec 3>"$1"; : >"$1.opened" ) 2>/dev/null &
	WRITERS+=($!)
}
never_opened() { # PATH NAME
	sleep 0.2
	ok "$2: $(basename "$1") was never opened (its writer still waits)" test ! -e "$1.opened"
}
have_strace=; command -v strace >/dev/null && have_strace=1
# LeakSanitizer cannot run under ptrace (strace, gdb): those runs of an ASan build skip it.
traced_env="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# traced NAME ARGS...: run the CLI under strace; sets $out, $rc and $opens (every open of a path)
traced() {
	local name=$1; shift
	if [ -n "$have_strace" ]; then
		out=$(env "$traced_env" timeout 30 strace -f -qq -e trace=open,openat -o "$T/strace" "$CI" "$@" 2>&1); rc=$?
		opens=$(grep -E 'open(at)?\(' "$T/strace")
	else
		out=$(timeout 30 "$CI" "$@" 2>&1); rc=$?
		opens=
	fi
}
# no_device_open PATH NAME: no open of PATH other than O_PATH in the last trace
no_device_open() {
	if [ -n "$have_strace" ]; then
		local bad
		bad=$(printf '%s\n' "$opens" | grep -F "\"$1\"" | grep -v O_PATH)
		is "$bad" "" "$2: $1 never opened for reading (strace: only O_PATH)"
	else
		skip "strace not installed"
	fi
}

# --- A synthetic core whose file list names a FIFO, devices and a link to a device, each at
# a mapping whose first page is an ELF header (what makes libdwfl open the file).
fifo "$T/lib.fifo"
ln -s /dev/zero "$T/zero-link"
devnode=
if mknod "$T/zero-node" c 1 5 2>/dev/null; then devnode=$T/zero-node; fi
"$D/mkcore" --map="$T/lib.fifo" --map=/dev/zero --map="$T/zero-link" ${devnode:+--map="$devnode"} \
	--map=/dev/null "$T/maps.core"
for view in summary threads; do
	traced "synthetic core, $view" --width 300 "$T/maps.core" "$view"
	is "$rc" 0 "synthetic core naming a FIFO and devices, $view: finishes, exit 0"
done
traced "synthetic core" --width 300 "$T/maps.core" all
like "$out" "lib\.fifo is a pipe \(FIFO\), not a regular file, so cudainspect did not open it" \
	"synthetic core: a warning names the FIFO it did not open"
never_opened "$T/lib.fifo" "synthetic core"
no_device_open /dev/zero "synthetic core"
no_device_open "$T/zero-link" "synthetic core"
no_device_open /dev/null "synthetic core"
if [ -n "$devnode" ]; then no_device_open "$devnode" "synthetic core"; else skip "mknod not permitted"; fi
out=$(timeout 30 "$CI" --json "$T/maps.core" 2>&1); rc=$?
is "$rc" 0 "synthetic core, --json: finishes, exit 0"

# --- A real kernel core of a program run from a copy, which mapped a copy of a library: the
# program and the library are then replaced by a FIFO and by a link to /dev/zero.
[ "$(cat /proc/sys/kernel/core_pattern)" = core ] || { skip "kernel.core_pattern is not 'core'"; done_testing; exit; }
mkdir -p "$T/bin" "$T/lib" "$T/run"
cp "$D/crasher" "$T/bin/crasher"
cp "$D/libcudainspect-rec-synth.so" "$T/lib/libmapped.so"
( ( cd "$T/run" && ulimit -c unlimited && exec "$T/bin/crasher" --map="$T/lib/libmapped.so" \
	--crash=segv ) >/dev/null 2>&1 || true ) 2>/dev/null
core=$(ls "$T"/run/core* 2>/dev/null | head -1)
[ -n "$core" ] || { skip "no core dump appeared"; done_testing; exit; }
like "$("$CI" --width 300 "$core" threads)" "main \(crasher\.c:[0-9]+\)" "real core, files in place: symbols"
mv "$T/bin/crasher" "$T/crasher.moved"
fifo "$T/bin/crasher"
rm "$T/lib/libmapped.so"
ln -s /dev/zero "$T/lib/libmapped.so"
traced "real core" --width 300 "$core" all
is "$rc" 0 "real core whose executable is now a FIFO and library a link to /dev/zero: exit 0"
like "$out" "crasher is a pipe \(FIFO\), not a regular file, so cudainspect did not open it" "real core: the FIFO is named"
never_opened "$T/bin/crasher" "real core"
no_device_open "$T/lib/libmapped.so" "real core"
# --exe, --sysroot and --debuginfo-path are looked in the same way.
like "$(timeout 30 "$CI" --width 300 --exe "$T/crasher.moved" "$core" threads 2>&1)" "main \(crasher\.c:[0-9]+\)" \
	"real core, --exe to the moved executable: symbols again"
fifo "$T/exe.fifo"
out=$(timeout 30 "$CI" --exe "$T/exe.fifo" "$core" 2>&1); rc=$?
is "$rc" 0 "--exe naming a FIFO: exit 0"
never_opened "$T/exe.fifo" "--exe"
mkdir -p "$T/root$T/bin"
fifo "$T/root$T/bin/crasher"
out=$(timeout 30 "$CI" --sysroot "$T/root" "$core" 2>&1); rc=$?
is "$rc" 0 "--sysroot holding a FIFO in place of the executable: exit 0"
never_opened "$T/root$T/bin/crasher" "--sysroot"
id=$(eu-readelf -n "$T/crasher.moved" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
if [ -n "$id" ]; then
	mkdir -p "$T/dbg/.build-id/${id:0:2}"
	fifo "$T/dbg/.build-id/${id:0:2}/${id:2}"
	fifo "$T/dbg/.build-id/${id:0:2}/${id:2}.debug"
	out=$(timeout 30 "$CI" --debuginfo-path "$T/dbg" "$core" threads 2>&1); rc=$?
	is "$rc" 0 "--debuginfo-path whose build-id tree holds FIFOs: exit 0"
	never_opened "$T/dbg/.build-id/${id:0:2}/${id:2}" "--debuginfo-path, the executable's build-id"
	never_opened "$T/dbg/.build-id/${id:0:2}/${id:2}.debug" "--debuginfo-path, its .debug"
else
	for i in 1 2 3; do skip "eu-readelf gives no build-id"; done
fi

# A file whose DWARF says part of it is in a dwz file (.gnu_debugaltlink) that is a FIFO:
# libdw would open that itself when it needs it, so the file is not used at all.
if command -v objcopy >/dev/null; then
	mkdir -p "$T/alt"
	fifo "$T/alt/common.fifo"
	{ printf '%s\0' "$T/alt/common.fifo"; printf '\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff\x10\x20\x30\x40\x50'; } >"$T/alt/link"
	objcopy --add-section .gnu_debugaltlink="$T/alt/link" "$T/crasher.moved" "$T/alt/crasher"
	out=$(timeout 30 "$CI" --width 300 --exe "$T/alt/crasher" "$core" all 2>&1); rc=$?
	is "$rc" 0 "--exe whose dwz link names a FIFO: exit 0"
	never_opened "$T/alt/common.fifo" "the dwz link"
	like "$out" "common\.fifo is a pipe \(FIFO\), not a regular file" "... and the warning names it"
else
	for i in 1 2 3; do skip "objcopy not installed"; done
fi

# --- A live process whose mapped library is deleted and replaced by a FIFO at its path.  As
# root the reader opens the mapped file itself (/proc/PID/map_files); as another user it
# finds the path through /proc/PID/root, and must refuse the FIFO there.
live() { # USER-PREFIX...: start the crasher (as that user), replace its library, read it
	mkdir -p "$T/live" && chmod 755 "$T" "$T/live"
	rm -f "$T/live/libgone.so"
	cp "$D/libcudainspect-rec-synth.so" "$T/live/libgone.so"
	chmod 755 "$T/live/libgone.so"
	"$@" "$D/crasher" --map="$T/live/libgone.so" --crash=hang --threads=1 >"$T/live.out" 2>&1 &
	lpid=$!
	# (up to 30 s: a loaded machine starts a process slowly)
	wait_for 60 grep -q "^ready" "$T/live.out"
	rm "$T/live/libgone.so"
	fifo "$T/live/libgone.so"
	chmod 666 "$T/live/libgone.so"
	out=$(timeout 30 "$@" "$CI" --width 300 --pid "$(sed -n 's/^pid=//p' "$T/live.out")" all 2>&1); rc=$?
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
}
live env
is "$rc" 0 "live process whose library became a FIFO: exit 0"
never_opened "$T/live/libgone.so" "live process"
if [ "$(id -u)" = 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	live setpriv --reuid=nobody --regid=nogroup --clear-groups
	is "$rc" 0 "the same as user nobody (no /proc/PID/map_files): exit 0"
	never_opened "$T/live/libgone.so" "as nobody"
	like "$out" "libgone\.so is a pipe \(FIFO\), not a regular file, so cudainspect did not open it" \
		"as nobody: the FIFO found through /proc/PID/root is named"
else
	for i in 1 2 3; do skip "not root, or setpriv cannot switch to nobody"; done
fi
done_testing
