#!/usr/bin/env bash
# GDB on live processes: attached to a running recorded process (gdbprobe --wait, blocked with
# its pointers on the stack), a recorded process started under GDB that aborts there, and the
# engine's planted fault under GDB.  Every `cuda` command runs on each.  Views that only read
# the record must print what the CLI prints for the same pid (run from the same GDB session, on
# the pid GDB reports in `info proc`).  GDB holds the process, so the CLI cannot ptrace it and the
# signal is not delivered yet: views with host stacks and the signal get GDB's stop signal and
# each thread's registers, from which the CLI unwinds the threads itself (--registers).  They
# must name the signal GDB reported and show the probe's own call chain (main -> use_buffers,
# where the probe's source waits or aborts) in the CLI's frame format, never "Operation not
# permitted"; and the CLI's unwind from GDB's registers must equal its own unwind of the same
# process stopped without GDB (SIGSTOP).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CMDS" "$CLI" "$PROBE" "$B/sim/libcuda.so.1"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" = 0 ] || [ "$(id -u)" = 0 ] || skip_all "kernel.yama.ptrace_scope=$scope forbids attaching"

RECORD_VIEWS="contexts streams kernels allocs errors"
# every_view: GDB arguments that run each `cuda` command between markers, each record view
# also through the CLI itself on the pid GDB holds (@@cli VIEW@@).
every_view() {
	local v
	for v in summary threads fault json $RECORD_VIEWS; do
		printf -- '-ex\necho @@cuda %s@@\\n\n-ex\ncuda %s\n-ex\nprintf "exit=%%d\\n", $_shell_exitcode\n' "$v" "$v"
	done
	for v in $RECORD_VIEWS fault; do
		printf -- '-ex\necho @@cli %s@@\\n\n-ex\npipe info proc | sh -c '"'"'read -r _ p; %s --pid "$p" %s 2>&1; echo "exit=$?"'"'"'\n' \
			"$v" "$CLI" "$v"
	done
	printf -- '-ex\necho @@end@@\\n\n'
}
mapfile -t VIEWS < <(every_view)
# Where the probe waits and aborts, from its source (use_buffers: pause() in a loop, else abort()).
pause_line=$(grep -n 'pause();' "$TOP/tests/plugin/gdbprobe.c" | cut -d: -f1)
abort_line=$(awk '/pause\(\);/ { p = 1 } p && /abort\(\);/ { print NR; exit }' "$TOP/tests/plugin/gdbprobe.c")
# The registers the `cuda` commands have GDB hand to the CLI (cudainspect.gdb, _cudainspect_state).
regs_cmd='thread apply all -s frame apply level 0 -q info registers rip rsp rbp rbx r12 r13 r14 r15 rax rcx rdx rsi rdi r8 r9 r10 r11'
# block NAME: the output between the marker @@NAME@@ and the next marker.
block() { printf '%s\n' "$out" | sed -n "/^@@$1@@\$/,/^@@/p" | sed '1d;$d'; }

check_record_views() { # WHERE
	local v
	for v in $RECORD_VIEWS; do
		is "$(block "cuda $v")" "$(block "cli $v")" "$1: cuda $v = the CLI's output for the same pid"
	done
	# The suggested commands of a GDB-held process become cuda commands (docs/GDB.md).
	is "$(block 'cuda fault')" "$(block 'cli fault' | sed "s/cudainspect --pid $2 /cuda /g")" \
		"$1: cuda fault = the CLI's output (its suggestions as cuda commands)"
	local all
	all=$(printf '%s\n' "$out" | sed -n '/^@@cuda summary@@$/,/^@@cli /p')
	unlike "$all" 'not permitted|unwinding stopped' "$1: no command says it could not unwind"
	is "$(printf '%s\n' "$all" | grep -c '^exit=0$')" 9 "$1: every cuda command exits 0"
}

# --- attached ---------------------------------------------------------------------------------
env LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$REC" CUDAINSPECT_QUIET=1 "$PROBE" --wait \
	>"$T/probe.out" 2>"$T/probe.err" &
probe=$!
trap 'kill $probe 2>/dev/null; rm -rf "$T"' EXIT
wait_for 60 grep -q '^live=' "$T/probe.out"
read -r live stale pid < <(sed -n 's/^live=\([^ ]*\) stale=\([^ ]*\) pid=\(.*\)/\1 \2 \3/p' "$T/probe.out")
is "$pid" "$probe" "probe is waiting with its pointers (pid $probe)"
cli_json=$("$CLI" --json --pid "$probe")

out=$(gdb_batch -x "$CMDS" -ex "jit-reader-load $PLUGIN" -p "$probe" \
	-ex "print (void *) $live" -ex "print (void *) $stale" -ex "info symbol $live" \
	-ex 'echo @@begin@@\n' -ex 'cuda allocs freed' -ex 'printf "exit=%d\n", $_shell_exitcode' \
	-ex 'echo @@end@@\n' "${VIEWS[@]}" \
	-ex "pipe $regs_cmd | cat > $T/regs" -ex 'echo @@cli registers@@\n' \
	-ex "shell '$CLI' --pid $probe --registers '$T/regs' threads 2>&1; echo exit=\$?" \
	-ex 'echo @@cli registers json@@\n' -ex "shell '$CLI' --json --pid $probe --registers '$T/regs' 2>&1" \
	-ex 'echo @@end@@\n' -ex detach)
like "$out" "= \(void \*\) $live <cuda_alloc_[0-9]+\+16>" "attached: live pointer named"
like "$out" "= \(void \*\) $stale <cuda_freed_[0-9]+\+16>" "attached: freed pointer named"
like "$out" "^cuda_alloc_[0-9]+ \+ 16 in section \.cuda_alloc" "attached: info symbol"
got=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d')
want=$("$CLI" --freed --pid "$probe" allocs 2>&1; echo "exit=$?")
is "$got" "$want" "attached: cuda allocs freed = cudainspect --freed --pid PID allocs"
check_record_views attached "$probe"
s=$(block 'cuda summary')
is "$(head -n 1 <<<"$s")" "$(jq -r '"cudainspect: no CUDA failure in gdbprobe (pid \(.process.pid))"' <<<"$cli_json")" \
	"attached: cuda summary's headline"
like "$s" '^Signal    none: GDB holds the process stopped$' "attached: summary says GDB holds it (no signal)"
like "$s" "^Thread $probe \"gdbprobe\"" "attached: summary names the probe's thread"
like "$s" "^  #[0-9]+  use_buffers \\(gdbprobe\\.c:$pause_line\\) gdbprobe\\+0x[0-9a-f]+\$" \
	"attached: summary shows where it waits (use_buffers at the pause, line $pause_line), in the CLI's frames"
unlike "$s" ' in use_buffers \(|stack from GDB' "attached: summary's frames are not GDB's"
s=$(block 'cuda threads')
like "$s" '^Threads: 1$' "attached: cuda threads counts the probe's one thread"
like "$s" "^thread $probe \"gdbprobe\"\$" "attached: cuda threads names it"
like "$(tr '\n' ' ' <<<"$s")" "#[0-9]+ +use_buffers \\(gdbprobe\\.c:$pause_line\\) gdbprobe\\+0x[0-9a-f]+ +#[0-9]+ +main \\(gdbprobe\\.c:[0-9]+\\) gdbprobe\\+0x" \
	"attached: its stack is main -> use_buffers, in the CLI's frames"
j=$(block 'cuda json' | sed '$d')
is "$(jq -c '[.process.live, .process.signal, .process.crashed_thread]' <<<"$j")" '[true,null,null]' \
	"attached: cuda json: live, no signal"
is "$(jq -c '.threads[0].note' <<<"$j")" null "attached: cuda json: no note (the CLI unwound the thread)"
like "$(jq -r '[.threads[0].frames[] | "\(.function)"] | join(" ")' <<<"$j")" ' use_buffers main ' \
	"attached: cuda json: the thread's frames, main -> use_buffers"
is "$(jq -r '.threads[0].frames[] | select(.function == "use_buffers") | "\(.file | sub(".*/"; "")):\(.line)"' <<<"$j")" \
	"gdbprobe.c:$pause_line" "attached: cuda json: use_buffers at the pause"
is "$(jq -c .allocations <<<"$j")" "$(jq -c .allocations <<<"$cli_json")" \
	"attached: cuda json allocations = the CLI's"
# The same process stopped without GDB (SIGSTOP): the CLI attaches and unwinds it itself.
kill -STOP "$probe"
wait_for 60 grep -q '^State:.*T' "/proc/$probe/status"
own=$("$CLI" --pid "$probe" threads 2>&1; echo "exit=$?")
own_json=$("$CLI" --json --pid "$probe" 2>&1)
kill -CONT "$probe"
like "$own" 'use_buffers \(gdbprobe' "attached: the CLI unwinds the probe stopped without GDB"
is "$(block 'cli registers')" "$own" \
	"attached: cudainspect --pid PID --registers FILE (GDB holds it) = the CLI's own unwind without GDB"
is "$(block 'cuda threads')" "$own" "attached: cuda threads = the CLI's own unwind without GDB"
is "$(block 'cli registers json' | jq -c .threads)" "$(jq -c .threads <<<"$own_json")" \
	"attached: --registers JSON threads = the CLI's own without GDB"
ok "the process survives GDB's visit" kill -0 "$probe"
kill "$probe"; wait "$probe" 2>/dev/null

# --- started under GDB ------------------------------------------------------------------------
under_gdb() {
	gdb_batch -x "$CMDS" -iex "jit-reader-load $PLUGIN" \
		-iex "set environment LD_LIBRARY_PATH=$B/sim" -iex "set environment LD_PRELOAD=$REC" \
		-iex 'set environment CUDAINSPECT_QUIET=1' -iex 'set startup-with-shell off' \
		-iex "set environment CUDAINSPECT_SNAPSHOT_DIR=$T" -iex "cd $T" "$@"
}
out=$(under_gdb -ex run -ex 'print probe_live' "${VIEWS[@]}" -ex 'kill' --args "$PROBE")
pid=$(sed -n 's/^live=.* pid=\([0-9]*\)$/\1/p' <<<"$out")
like "$out" 'flight record registered by pid [0-9]+ \(no launches or errors yet\)' \
	"run: the plugin notes the record when the recorder registers it"
like "$out" 'Program received signal SIGABRT' "run: the probe stops on its abort (pid $pid)"
like "$out" '^\$1 = \(float \*\) 0x[0-9a-f]+' "run: GDB reads the stopped process"
check_record_views run "$pid"
s=$(block 'cuda summary')
like "$s" '^cudainspect: no CUDA failure in gdbprobe' "run: cuda summary reads the stopped process"
like "$s" "^Signal    SIGABRT received by thread $pid \"gdbprobe\"" "run: summary names the signal GDB stopped for"
like "$s" "^Thread $pid \"gdbprobe\" \\(received SIGABRT\\)" "run: summary's thread received it"
like "$s" "^  #[0-9]+  use_buffers \\(gdbprobe\\.c:$abort_line\\) gdbprobe\\+0x[0-9a-f]+\$" \
	"run: summary shows use_buffers where it aborts (line $abort_line), in the CLI's frames"
s=$(block 'cuda threads')
like "$s" "^thread $pid \"gdbprobe\" \\(received SIGABRT\\)\$" "run: cuda threads marks the thread"
like "$(tr '\n' ' ' <<<"$s")" "#[0-9]+ +abort [^ ]+\\+0x[0-9a-f]+ +#[0-9]+ +use_buffers \\(gdbprobe\\.c:$abort_line\\) gdbprobe\\+0x[0-9a-f]+ +#[0-9]+ +main \\(gdbprobe\\.c:" \
	"run: cuda threads: main -> use_buffers -> abort, in the CLI's frames"
j=$(block 'cuda json' | sed '$d')
is "$(jq -c '[.process.signal, .process.signal_name, .process.crashed_thread]' <<<"$j")" "[6,\"SIGABRT\",$pid]" \
	"run: cuda json names the signal and its thread"
is "$(jq -c --argjson p "$pid" '[.threads[] | select(.tid == $p) | .crashed]' <<<"$j")" '[true]' \
	"run: cuda json marks that thread crashed"
like "$(jq -r --argjson p "$pid" '[.threads[] | select(.tid == $p) | .frames[].function] | join(" ")' <<<"$j")" \
	' abort use_buffers main ' "run: cuda json: that thread's frames, main -> use_buffers -> abort"
unlike "$out" 'Segmentation|internal-error' "run: no crash"

# The engine's planted fault, with four worker threads: the recorder re-registers the record and
# its symbol image at the first sticky error, and every other thread that returns an error
# meanwhile waits for that, so when one of them aborts under GDB the plugin has printed the
# summary and every live allocation is a symbol.  Allocation 1 (the first weight tensor) is never
# freed; its address must be the one the CLI reports.  After the error every call fails, so the
# live allocations at the stop are those registered at the error.
out=$(under_gdb -ex run -ex 'print &cuda_alloc_1' -ex 'echo @@syms@@\n' \
	-ex 'info variables ^cuda_alloc_[0-9]*$' -ex 'echo @@begin@@\n' -ex 'cuda json allocs' \
	-ex 'echo @@summary@@\n' -ex 'cuda summary' -ex 'echo @@threads@@\n' -ex 'cuda threads' \
	-ex 'echo @@end@@\n' -ex kill \
	--args "$B/miniengine" --fault oob --quiet --threads 4)
like "$out" 'received signal SIGABRT' "run engine: stops on the CUDA error's abort"
summary_at=$(grep -n -m1 '^cudainspect: CUDA device fault in miniengine' <<<"$out" | cut -d: -f1)
abort_at=$(grep -n -m1 'received signal SIGABRT' <<<"$out" | cut -d: -f1)
ok "run engine: the plugin printed the summary at the sticky error, before the abort" \
	test -n "$summary_at" -a -n "$abort_at" -a "${summary_at:-0}" -lt "${abort_at:-0}"
json=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,/^@@summary@@$/p' | sed '1d;$d')
a1=$(jq -r 'first(.allocations[] | select(.id == 1) | .address_hex) // empty' <<<"$json")
ok "run engine: cuda json allocs lists allocation 1" test -n "$a1"
like "$out" "^\\\$1 = \\(<data variable, no debug info> \\*\\) $a1 <cuda_alloc_1>" \
	"run engine: cuda_alloc_1 is a symbol at the CLI's address (refreshed at the sticky error)"
# Every live allocation the symbol image covers (recorder/symimage.h: not host-registered
# memory, address reservations or cuMemCreate handles), as "ADDRESS cuda_alloc_ID".
want=$(jq -r '.allocations[] | select(.size > 0 and (.kind | IN("host_register",
	"vmm_reserve", "vmm_create") | not)) | "\(.address_hex) cuda_alloc_\(.id)"' <<<"$json" | sort -u)
got=$(printf '%s\n' "$out" | sed -n '/^@@syms@@$/,/^@@begin@@$/p' |
	awk '$1 ~ /^0x/ && $2 ~ /^cuda_alloc_[0-9]+$/ { sub(/^0x0*/, "0x", $1); print $1, $2 }' |
	sort -u)
ok "run engine: more than one thread's allocations to check ($(wc -l <<<"$want") live)" \
	test "$(wc -l <<<"$want")" -gt 8
is "$got" "$want" "run engine: every live allocation is a symbol at its address (all parts registered)"
# GDB names the thread it stopped for ("Thread N \"engine-K\" received signal SIGABRT"); the
# summary's Signal line must name the same one.
who=$(sed -n 's/^Thread [0-9]* "\([^"]*\)" received signal SIGABRT.*/\1/p' <<<"$out" | head -n 1)
s=$(printf '%s\n' "$out" | sed -n '/^@@summary@@$/,/^@@threads@@$/p')
like "$s" "^Signal    SIGABRT received by thread [0-9]+ \"$who\"" \
	"run engine: the summary names the thread GDB stopped for ($who)"
like "$s" '^Faulting kernel: paged_attention' "run engine: and the planted kernel"
unlike "$s" 'not permitted|unwinding stopped' "run engine: no unwinding failure"
# Every thread of the engine (main and four workers) unwound by the CLI from GDB's registers.
s=$(printf '%s\n' "$out" | sed -n '/^@@threads@@$/,/^@@end@@$/p')
n=$(sed -n 's/^Threads: \([0-9]*\)$/\1/p' <<<"$s")
ok "run engine: cuda threads lists the main thread and the workers ($n)" test "${n:-0}" -ge 5
is "$(grep -c '^  #0 ' <<<"$s")" "$n" "run engine: cuda threads: every thread has frames"
like "$s" ' main \(' "run engine: cuda threads: the main thread's stack"
unlike "$s" 'not permitted|unwinding stopped|no registers|stack from GDB' "run engine: cuda threads: no thread without the CLI's frames"
done_testing
