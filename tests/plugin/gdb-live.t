#!/usr/bin/env bash
# GDB on live processes: attached to a running recorded process (gdbprobe --wait, blocked with
# its pointers on the stack), and a recorded process started under GDB that dies there.  The
# `cuda` commands must print what the CLI prints for the same pid, and device pointers must be
# named as on a core.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CMDS" "$CLI" "$PROBE" "$B/sim/libcuda.so.1"
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" = 0 ] || [ "$(id -u)" = 0 ] || skip_all "kernel.yama.ptrace_scope=$scope forbids attaching"

# --- attached ---------------------------------------------------------------------------------
env LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$REC" CUDAINSPECT_QUIET=1 "$PROBE" --wait \
	>"$T/probe.out" 2>"$T/probe.err" &
probe=$!
trap 'kill $probe 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do grep -q '^live=' "$T/probe.out" && break; sleep 0.1; done
read -r live stale pid < <(sed -n 's/^live=\([^ ]*\) stale=\([^ ]*\) pid=\(.*\)/\1 \2 \3/p' "$T/probe.out")
is "$pid" "$probe" "probe is waiting with its pointers (pid $probe)"

out=$(gdb_batch -x "$CMDS" -ex "jit-reader-load $PLUGIN" -p "$probe" \
	-ex "print (void *) $live" -ex "print (void *) $stale" -ex "info symbol $live" \
	-ex 'echo @@begin@@\n' -ex 'cuda allocs freed' -ex 'printf "exit=%d\n", $_shell_exitcode' \
	-ex 'echo @@end@@\n' -ex detach)
like "$out" "= \(void \*\) $live <cuda_alloc_[0-9]+\+16>" "attached: live pointer named"
like "$out" "= \(void \*\) $stale <cuda_freed_[0-9]+\+16>" "attached: freed pointer named (plugin)"
like "$out" "^cuda_alloc_[0-9]+ \+ 16 in section \.cuda_alloc" "attached: info symbol"
got=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d')
want=$("$CLI" --freed --pid "$probe" allocs 2>&1; echo "exit=$?")
is "$got" "$want" "attached: cuda allocs freed = cudainspect --freed --pid PID allocs"
ok "the process survives GDB's visit" kill -0 "$probe"
kill "$probe"; wait "$probe" 2>/dev/null

# --- started under GDB ------------------------------------------------------------------------
under_gdb() {
	gdb_batch -x "$CMDS" -iex "jit-reader-load $PLUGIN" \
		-iex "set environment LD_LIBRARY_PATH=$B/sim" -iex "set environment LD_PRELOAD=$REC" \
		-iex 'set environment CUDAINSPECT_QUIET=1' -iex 'set startup-with-shell off' \
		-iex "set environment CUDAINSPECT_SNAPSHOT_DIR=$T" -iex "cd $T" "$@"
}
out=$(under_gdb -ex run -ex 'print probe_live' \
	-ex 'echo @@begin@@\n' -ex 'cuda summary' -ex 'printf "exit=%d\n", $_shell_exitcode' \
	-ex 'echo @@end@@\n' -ex 'kill' --args "$PROBE")
like "$out" 'flight record registered by pid [0-9]+ \(no launches or errors yet\)' \
	"run: the plugin notes the record when the recorder registers it"
like "$out" 'Program received signal SIGABRT' "run: the probe stops on its abort"
like "$out" '^\$1 = \(float \*\) 0x[0-9a-f]+' "run: GDB reads the stopped process"
got=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d')
like "$got" '^cudainspect: no CUDA failure in gdbprobe' "run: cuda summary reads the stopped process"
like "$got" 'exit=0$' "run: cuda summary exit code 0"
unlike "$out" 'Segmentation|internal-error' "run: no crash"

# The engine's planted fault, with four worker threads: the recorder re-registers the record and
# its symbol image at the first sticky error, and every other thread that returns an error
# meanwhile waits for that, so when one of them aborts under GDB the plugin has printed the
# summary and every live allocation is a symbol.  Allocation 1 (the first weight tensor) is never
# freed; its address must be the one the CLI reports.  After the error every call fails, so the
# live allocations at the stop are those registered at the error.
out=$(under_gdb -ex run -ex 'print &cuda_alloc_1' -ex 'echo @@syms@@\n' \
	-ex 'info variables ^cuda_alloc_[0-9]*$' -ex 'echo @@begin@@\n' -ex 'cuda json allocs' \
	-ex 'echo @@end@@\n' -ex kill --args "$B/miniengine" --fault oob --quiet --threads 4)
like "$out" 'received signal SIGABRT' "run engine: stops on the CUDA error's abort"
summary_at=$(grep -n -m1 '^cudainspect: CUDA device fault in miniengine' <<<"$out" | cut -d: -f1)
abort_at=$(grep -n -m1 'received signal SIGABRT' <<<"$out" | cut -d: -f1)
ok "run engine: the plugin printed the summary at the sticky error, before the abort" \
	test -n "$summary_at" -a -n "$abort_at" -a "${summary_at:-0}" -lt "${abort_at:-0}"
json=$(printf '%s\n' "$out" | sed -n '/^@@begin@@$/,/^@@end@@$/p' | sed '1d;$d')
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
done_testing
