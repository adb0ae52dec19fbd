#!/usr/bin/env bash
# GDB on a real kernel core of the test engine (miniengine --fault oob on the simulated driver
# under the recorder): the JIT reader's summary, loaded after and before the core, and every
# `cuda` command of cudainspect.gdb.  Expectations: the engine plants its oob fault in
# paged_attention (testcases/engine/miniengine.c, plan_fault), and each `cuda` command must
# print exactly what the CLI prints for the same core and view.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$PLUGIN" "$CMDS" "$CLI" "$B/miniengine" "$B/sim/libcuda.so.1"

core=$(recorded_core "$B/miniengine" --fault oob --quiet)
[ -n "$core" ] || { diag "$(cat "$T/run.err")"; skip_all "miniengine --fault oob left no core"; }
cli_summary=$("$CLI" "$core" 2>&1)

# Loaded after the core (the README's form, with an absolute path in the build tree).
after=$(gdb_batch -ex "jit-reader-load $PLUGIN" "$B/miniengine" "$core")
like "$after" 'cudainspect [0-9.]+: JIT reader loaded' "after the core: banner"
like "$after" 'Faulting kernel: paged_attention' "after the core: summary names the planted kernel"
is "$(printf '%s\n' "$after" | grep -m1 '^cudainspect: CUDA')" \
	"$(printf '%s\n' "$cli_summary" | grep -m1 '^cudainspect: CUDA')" \
	"after the core: headline is the CLI's"
is "$(printf '%s\n' "$after" | grep -m1 '^Faulting kernel')" \
	"$(printf '%s\n' "$cli_summary" | grep -m1 '^Faulting kernel')" \
	"after the core: faulting-kernel line is the CLI's"
unlike "$after" 'Segmentation|internal-error' "after the core: no GDB crash"
# GDB read the record's JIT entry before the reader existed and said so once; the reader then
# got it anyway (docs/GDB.md).
ok "after the core: at most GDB's one 'not an object file' line" \
	test "$(printf '%s\n' "$after" | grep -c 'not an object file')" -le 1

# Loaded before the core: GDB hands the record over while it opens the core.
before=$(gdb_batch -iex "jit-reader-load $PLUGIN" "$B/miniengine" "$core" -ex 'bt 1')
like "$before" 'Faulting kernel: paged_attention' "before the core: summary names the planted kernel"
like "$before" '#0 ' "before the core: GDB still shows the stack"
unlike "$before" 'no flight record' "before the core: no 'no flight record' line"
unlike "$before" 'not an object file|Segmentation|internal-error' "before the core: no complaint at all"

# Each cuda command against the CLI on the same core.
for view in summary contexts streams kernels allocs errors threads fault; do
	got=$(gdb_cuda "$B/miniengine" "$core" -- cuda $view)
	want=$("$CLI" "$core" "$view" 2>&1; echo "exit=$?")
	is "$got" "$want" "cuda $view prints what the CLI prints, exit code included"
done
is "$(gdb_cuda "$B/miniengine" "$core" -- cuda kernels 3 --kernel attention)" \
	"$("$CLI" --last 3 --kernel attention "$core" kernels 2>&1; echo "exit=$?")" \
	"cuda kernels 3 --kernel attention = cudainspect --last 3 --kernel attention CORE kernels"
is "$(gdb_cuda "$B/miniengine" "$core" -- cuda allocs freed)" \
	"$("$CLI" --freed "$core" allocs 2>&1; echo "exit=$?")" \
	"cuda allocs freed = cudainspect --freed CORE allocs"
got=$(gdb_cuda "$B/miniengine" "$core" -- cuda json)
is "$got" "$("$CLI" --json "$core" 2>&1; echo "exit=$?")" "cuda json = cudainspect --json CORE"
ok "cuda json is one JSON document with a version" jq -e .version <<<"$(sed '$d' <<<"$got")"
got=$(gdb_cuda "$B/miniengine" "$core" -- cuda kernels bogus)
like "$got" "cuda kernels: unexpected argument 'bogus'" "a bad argument is named"
like "$got" 'exit=2$' "a bad argument gives exit code 2"

# help: every prefix and subcommand documented (GDB 13.1 crashes on help otherwise).
help=$(gdb_batch -x "$CMDS" -ex 'help cuda' -ex 'help cuda kernels' -ex 'help cuda json' -ex 'echo alive\n')
for sub in summary contexts streams kernels allocs errors threads fault json; do
	like "$help" "^cuda $sub -- [A-Z]" "help cuda lists cuda $sub with its doc line"
done
like "$help" 'Usage: cuda kernels \[N\]' "help cuda kernels shows its usage"
like "$help" '^alive$' "GDB survives help on every level"
done_testing
