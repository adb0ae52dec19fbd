#!/usr/bin/env bash
# aarch64 (Grace Hopper hosts) as a tested platform: miniengine, the recorder and the simulated
# driver cross-built for aarch64 ($B/aarch64, tests/aarch64/build.mk) run a planted fault under
# qemu-aarch64, and the x86-64 reader reads the core qemu-user writes (no NT_FILE, no NT_SIGINFO,
# no ELF header pages).  Expectations come from the engine itself: it names the kernel the
# simulator faults (CUDASIM_FAULT=paged_attention@N), the tid of each worker and the threads that
# saw the error; the launch site is the LAUNCH line of forward() in miniengine.c.  The same core
# rewritten into a kernel's shape (tests/aarch64/kernelcore.py: NT_FILE from the guest's memory
# map, NT_SIGINFO, the ELF header pages) is read too, and an aarch64 abortprobe's core gives
# glibc's abort message.  Two qemu runs (qemu is slow); every check reads their cores.
. "$(dirname "$0")/../lib/tap.sh"
A=$B/aarch64
QEMU=$(command -v qemu-aarch64 || true)
SYSROOT=/usr/aarch64-linux-gnu
MAPSDUMP=$A/tests/aarch64/libmapsdump.so
[ -x "$A/miniengine" ] && [ -e "$MAPSDUMP" ] || skip_all "$A/miniengine is not built (no aarch64-linux-gnu-gcc: make deps installs gcc-aarch64-linux-gnu)"
[ -n "$QEMU" ] || skip_all "no qemu-aarch64 (make deps installs qemu-user)"
[ -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ] || skip_all "no aarch64 libc in $SYSROOT (libc6-dev-arm64-cross)"
[ "${CI_SANITIZE:-}" = address ] && diag "the aarch64 programs are built without sanitizers in every build"
plan 36
cd "$TOP" || exit 1

d=$T/oob
mkdir -p "$d"
rc=0
# The simulator keeps its default 80 GiB of device memory: the core must not carry it.
{ (ulimit -c unlimited && cd "$d" && exec timeout -k 5 120 "$QEMU" -L "$SYSROOT" \
	-E LD_LIBRARY_PATH="$A/sim" -E LD_PRELOAD="$A/libcudainspect-rec.so:$MAPSDUMP" \
	-E MAPSDUMP_OUT="$d/maps" "$A/miniengine" --fault oob --verbose) >"$d/out" 2>"$d/err"; } 2>/dev/null || rc=$?
# qemu re-raises the signal after writing the guest's core, so the host may dump qemu too.
rm -f "$d"/core "$d"/core.*
core=$(ls "$d"/qemu_*.core 2>/dev/null | head -1)
is "$rc" 134 "miniengine --fault oob under qemu-aarch64 aborts (SIGABRT)"
ok "qemu-user wrote the guest's core" test -s "$core"
[ -s "$core" ] || { diag "$(tail -5 "$d/err")"; }
size=$(stat -c %s "$core" 2>/dev/null || echo 0)
ok "the core holds no simulated device memory: $size bytes, under 1 GiB with 80 GiB simulated" \
	test "$size" -lt $((1 << 30))
ok "the core is an aarch64 ELF core" sh -c "file -b '$core' | grep -q 'ARM aarch64'"

err=$(cat "$d/err")
kernel=$(sed -n 's/.*CUDASIM_FAULT=\([A-Za-z_]*\)@[0-9]*$/\1/p' "$d/err" | head -1)
tid0=$(sed -n 's/.*thread 0 is tid \([0-9]*\) .*/\1/p' "$d/err" | head -1)
failed=$(sed -n 's/.*failed call .* on thread \([0-9]*\) (.*/\1/p' "$d/err" | sort -u | tr '\n' ' ')
isnt "$kernel" "" "the engine says which kernel the simulator faults"
launch_line=$(grep -n 'LAUNCH(w, E.k.attention' testcases/engine/miniengine.c | cut -d: -f1)

rep=$("$B/cudainspect" "$core" 2>&1)
rrc=$?
is "$rrc" 0 "the x86-64 reader reads the aarch64 qemu core (exit 0)"
like "$rep" "^Faulting kernel: $kernel " "it names the faulting kernel the engine planted ($kernel)"
like "$rep" "launch [0-9]+ on stream 0x[0-9a-f]+, by thread $tid0 \"engine-0\"" \
	"the launch was made by worker 0 (tid $tid0), where the fault was planted"
like "$rep" "launched at forward \(miniengine\.c:$launch_line\) miniengine\+0x" \
	"the launch site is forward() at miniengine.c:$launch_line"
json=$("$B/cudainspect" --json "$core" 2>/dev/null)
is "$(printf '%s' "$json" | jq -r '.warnings[]' 2>/dev/null | grep -c 'has no NT_FILE and no NT_SIGINFO note (as in the cores qemu-user writes)')" \
	1 "the report says what the qemu core lacks"
is "$(printf '%s' "$json" | jq -r '.diagnosis.faulting_launch.kernel + " " + (.diagnosis.faulting_launch.thread|tostring)' 2>/dev/null)" \
	"$kernel $tid0" "JSON: the faulting launch's kernel and thread"

thr=$("$B/cudainspect" "$core" threads 2>&1)
trc=$?
is "$trc" 0 "threads view: exit 0"
crashed=$(printf '%s\n' "$thr" | sed -n 's/^thread \([0-9]*\) .*(received SIGABRT).*/\1/p')
like " $failed" " $crashed " "the thread that received SIGABRT ($crashed) is one the engine says failed ($failed)"
like "$thr" "thread $tid0 \"engine-0\"" "threads view: worker 0 by tid and name"

# The crashed thread's stack, without aarch64 libc's file (its path in the record is
# /lib/libc.so.6, the x86-64 one here): no frame that the unwinder cannot justify.
stack=$(printf '%s\n' "$thr" | awk -v t="$crashed" '$1 == "thread" { on = ($2 == t) } on')
unlike "$stack" '#[0-9]+ +\?\? 0x' "without libc: no invented frame (an address in no module)"
like "$stack" "unwinding stopped after #0: no CFI for libc\.so\.6\+0x[0-9a-f]+ \(its file is not here" \
	"without libc: the stack stops at libc's frame and says why"
flat=$(printf '%s' "$stack" | tr '\n' ' ' | tr -s ' ')
like "$flat" "#[0-9]+ engine_cuda_fail \(engine\.c:[0-9]+\) miniengine\+0x.* found by following frame pointers" \
	"without libc: the program's frames are found by frame pointers, and it says so"
stale=$(printf '%s\n' "$stack" | grep -Ec '^ *#[0-9]+ +\?\? libc\.so\.6\+')
is "$stale" 1 "without libc: one libc frame (the crash pc), no stale return address as a second"

# Only the executable given (--exe): the same, in every thread.
unlike "$("$B/cudainspect" --exe "$A/miniengine" "$core" threads 2>&1)" '#[0-9]+ +\?\? 0x' \
	"--exe only: no thread shows an address in no module as a frame"

# With the cross libc (--sysroot): the whole stack, abort to the engine's worker, by CFI.
full=$("$B/cudainspect" --sysroot "$SYSROOT" "$core" threads 2>&1 |
	awk -v t="$crashed" '$1 == "thread" { on = ($2 == t) } on')
like "$(printf '%s' "$full" | tr '\n' ' ' | tr -s ' ')" "#[0-9]+ abort libc\.so\.6\+0x.*#[0-9]+ engine_cuda_fail \(engine\.c:[0-9]+\)" \
	"with --sysroot: abort, then engine_cuda_fail"
unlike "$full" "unwinding stopped" "with --sysroot: the crashed thread unwinds without a stop"

# ---- The kernel's shape: NT_FILE (paths as the guest saw them), NT_SIGINFO, header pages ----
rec=$(printf '%s' "$json" | jq -r '.record.address_hex + " " + (.record.size | tostring)')
kc=$d/kernel.core
python3 tests/aarch64/kernelcore.py "$core" "$d/maps" "$kc" --strip "$SYSROOT" --record $rec 2>"$d/kc.err"
is "$?" 0 "kernelcore.py rewrites the qemu core"
notes=$(eu-readelf -n "$kc" 2>&1)
like "$notes" "CORE +[0-9]+ +SIGINFO" "eu-readelf: the rewritten core has NT_SIGINFO"
like "$notes" "[0-9a-f]+-[0-9a-f]+ 00000000 [0-9]+ +/lib/libc\.so\.6" "eu-readelf: NT_FILE maps /lib/libc.so.6 (the guest's path)"
kjson=$("$B/cudainspect" --json "$kc" 2>/dev/null)
is "$?" 0 "kernel-shaped core: exit 0"
is "$(printf '%s' "$kjson" | jq -r '.warnings | map(select(test("NT_FILE|no ELF file with its header"))) | length')" 0 \
	"kernel-shaped core: no warning of a missing NT_FILE or header page"
is "$(printf '%s' "$kjson" | jq -r '.process.si_code')" -6 "the signal's si_code (SI_TKILL) comes from NT_SIGINFO"
is "$(printf '%s' "$kjson" | jq -r '.diagnosis.faulting_launch.kernel + " " + (.diagnosis.faulting_launch.thread|tostring)')" \
	"$kernel $tid0" "kernel-shaped core: the same faulting launch"
kthr=$("$B/cudainspect" "$kc" threads 2>&1 | awk -v t="$crashed" '$1 == "thread" { on = ($2 == t) } on')
# /lib/libc.so.6 here is x86-64's: its build-id is not the one in the header page, so unused.
like "$(printf '%s' "$kthr" | tr '\n' ' ' | tr -s ' ')" "unwinding stopped after #0: no CFI for libc\.so\.6\+0x[0-9a-f]+ \(its file is not here" \
	"kernel-shaped, without the aarch64 libc: stops at libc's frame and says why"
unlike "$kthr" '#[0-9]+ +\?\? 0x' "kernel-shaped, without the aarch64 libc: no invented frame"
kfull=$("$B/cudainspect" --sysroot "$SYSROOT" "$kc" threads 2>&1 | awk -v t="$crashed" '$1 == "thread" { on = ($2 == t) } on')
like "$(printf '%s' "$kfull" | tr '\n' ' ' | tr -s ' ')" "#[0-9]+ abort libc\.so\.6\+0x.*#[0-9]+ engine_cuda_fail \(engine\.c:[0-9]+\)" \
	"kernel-shaped, with --sysroot: abort, then engine_cuda_fail"
unlike "$kfull" "unwinding stopped" "kernel-shaped, with --sysroot: no stop"

# ---- glibc's abort message in an aarch64 core (an assert() that fails) ----------------------
a=$T/assert
mkdir -p "$a"
{ (ulimit -c unlimited && cd "$a" && exec timeout -k 5 120 "$QEMU" -L "$SYSROOT" \
	-E LD_PRELOAD="$MAPSDUMP" -E MAPSDUMP_OUT="$a/maps" \
	"$A/tests/aarch64/abortprobe") >"$a/out" 2>"$a/err"; } 2>/dev/null
rm -f "$a"/core "$a"/core.*
acore=$(ls "$a"/qemu_*.core 2>/dev/null | head -1)
assertion=$(grep 'Assertion' "$a/err")
python3 tests/aarch64/kernelcore.py "$acore" "$a/maps" "$a/kernel.core" --strip "$SYSROOT" 2>/dev/null
"$B/cudainspect" --json --sysroot "$SYSROOT" "$a/kernel.core" >"$a/k.json" 2>/dev/null
is "$?" 4 "abortprobe's kernel-shaped core: exit 4 (no record)"
isnt "$assertion" "" "abortprobe printed its assertion"
is "$(jq -r .host_side.abort_message "$a/k.json")" "$assertion" "aarch64: the abort message is glibc's __abort_msg, as printed"
"$B/cudainspect" --json "$acore" >"$a/q.json" 2>/dev/null
is "$(jq -r '(.host_side.abort_message // "none") + ": " + .host_side.abort_message_note' "$a/q.json")" \
	"none: libc.so is not mapped in the core" "thin qemu core: no abort message, and a note says why"
