#!/usr/bin/env bash
# A program that reaches the driver only through dlopen + dlsym (tests/recorder/dlprobe.c):
# what the recorder says about CUDAINSPECT_DRIVER must be true and said once, and the host module
# table must follow the libraries the program loads and unloads between two CUDA calls - checked
# against addr2line on the library itself, independently of the recorder and the reader.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/rec-lib.sh"
need_recorder tests/recorder/dlprobe tests/recorder/libdlmod-a.so tests/recorder/libdlmod-b.so
DL=$B/tests/recorder/dlprobe
LIBA=$B/tests/recorder/libdlmod-a.so
LIBB=$B/tests/recorder/libdlmod-b.so

# A CUDAINSPECT_DRIVER that does not open: the driver the program loaded is recorded instead.
run_in "$T/driver" env CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1 CUDAINSPECT_SNAPSHOT=exit \
	LD_PRELOAD="$REC" "$DL" driver
is "$rc $(cat "$T/driver/out")" "0 cuInit=0" "bad CUDAINSPECT_DRIVER: the program's calls succeed"
is "$(grep -v '^cudainspect: flight record written to' "$T/driver/err")" \
	"cudainspect: cannot use CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1 (cannot open shared object file: No such file or directory); recording with the CUDA driver the program loaded instead" \
	"bad CUDAINSPECT_DRIVER: one line, the path once, and what happens instead"
f=$(snap "$T/driver" exit)
ok "bad CUDAINSPECT_DRIVER: recording did happen (exit snapshot)" test -n "$f"
like "$("$DUMP" "$f" | grep '^device ' | head -1)" '^device slot=0 ordinal=0 ' \
	"bad CUDAINSPECT_DRIVER: the record holds the program's device"

# No driver anywhere: the recorder's own cuInit (found through RTLD_DEFAULT) has nothing behind it.
run_in "$T/nodriver" env LD_LIBRARY_PATH= CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1 \
	LD_PRELOAD="$REC" "$DL" nodriver
is "$rc $(cat "$T/nodriver/out")" "0 cuInit=500 cuInit=500" \
	"no driver: cuInit returns CUDA_ERROR_NOT_FOUND (500), as the message says"
is "$(cat "$T/nodriver/err")" \
	"cudainspect: cannot use CUDAINSPECT_DRIVER=/nonexistent/libcuda.so.1 (cannot open shared object file: No such file or directory); the program has loaded no CUDA driver either; recording disabled (CUDA calls that reach no driver return CUDA_ERROR_NOT_FOUND)" \
	"no driver: one line for the whole run"

# Libraries loaded between two CUDA calls.
run_in "$T/mods" env CUDAINSPECT_SNAPSHOT=exit LD_PRELOAD="$REC" "$DL" modules "$LIBA" "$LIBB"
is "$rc" 0 "modules: dlprobe ran"
"$DUMP" "$(snap "$T/mods" exit)" >"$T/mods.dump"
like "$(grep '^hostmod .*/libdlmod-a\.so ' "$T/mods.dump")" 'unloaded=0$' \
	"a library loaded with dlopen is in the module table"
like "$(grep '^hostmod .*/libdlmod-b\.so ' "$T/mods.dump")" 'unloaded=1$' \
	"a library loaded and closed again between two CUDA calls is in the table, marked unloaded"
# The launch made from inside libdlmod-a right after dlopen: the fast walker crosses the
# library's two frames only if the library was known by then.
stack=$(grep '^launch seq=2 ' "$T/mods.dump" | sed 's/.* stack=[0-9]*://')
like "$stack" '^libdlmod-a\.so\+0x[0-9a-f]+,libdlmod-a\.so\+0x[0-9a-f]+,dlprobe\+0x' \
	"the launch from the new library has its frames and the caller's ($stack)"
fn() { # FRAME: the function addr2line names for libdlmod-a.so+0xOFF (return address - 1)
	local off=${1#libdlmod-a.so+}
	addr2line -f -e "$LIBA" "$(printf '0x%x' $((off - 1)))" | head -1
}
if command -v addr2line >/dev/null; then
	is "$(fn "$(cut -d, -f1 <<<"$stack")") $(fn "$(cut -d, -f2 <<<"$stack")")" \
		"dlmod_inner dlmod_launch" "... and they are dlmod_inner and dlmod_launch, per addr2line"
else
	skip "addr2line (binutils) is not installed"
fi
done_testing
