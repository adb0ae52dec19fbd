#!/usr/bin/env bash
# The `cuda` commands treat their arguments and GDB's text as data (issue 8): arguments with
# shell syntax reach the CLI literally (no file appears, nothing runs: the CLI's own error
# message shows the word it got), and an executable whose name holds a newline and a fake
# "Local core dump file:" block pointing at another core does not make `cuda summary` read that
# core.  The launcher's parser has its unit tests and a libFuzzer run here too.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/gdb-lib.sh"
need_gdb_parts "$REC" "$CMDS" "$CLI" "$PROBE" "$B/sim/libcuda.so.1" "$B/tests/plugin/gdbinput_test"

# --- the parser ---------------------------------------------------------------------------------
out=$("$B/tests/plugin/gdbinput_test")
ok "parser unit tests pass" test $? -eq 0
[ $? -eq 0 ] || diag "$(grep -v '^ok' <<<"$out")"
if [ -x "$B/fuzz/fuzz_gdb_input" ] && [ "${CI_SANITIZE:-}" != address ]; then
	mkdir -p "$T/corpus" "$B/fuzz/artifacts"
	cp "$TOP"/tests/plugin/gdb-input-seeds/* "$T/corpus/"
	"$B/fuzz/fuzz_gdb_input" -max_total_time="${CI_FUZZ_SECONDS_GDB:-30}" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/artifacts/fuzz_gdb_input-" "$T/corpus" >"$T/fuzz.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/fuzz.log")
	ok "fuzz_gdb_input: ${runs:-?} inputs without a crash" test $rc -eq 0
	[ $rc -eq 0 ] || diag "$(grep -A20 -E 'ERROR|runtime error' "$T/fuzz.log" | head -30)"
else
	skip "fuzz_gdb_input not built (clang with libFuzzer), or an ASan build"
fi

core=$(recorded_core "$PROBE")
[ -n "$core" ] || skip_all "gdbprobe left no core"

# --- arguments are data ---------------------------------------------------------------------
cd "$T" || exit 1
rm -f f pwned pwned2 pwned3
got=$(gdb_cuda "$PROBE" "$core" -- "cuda kernels --kernel 'rms>f'")
like "$got" "--kernel 'rms>f': no kernel" "quoted '>' reaches the CLI as one word"
ok "no file f was written by a redirection" test ! -e f
got=$(gdb_cuda "$PROBE" "$core" -- 'cuda kernels --kernel rms>f')
like "$got" "--kernel 'rms>f': no kernel" "unquoted '>' too"
ok "still no file f" test ! -e f
got=$(gdb_cuda "$PROBE" "$core" -- 'cuda kernels --kernel $(touch${IFS}pwned)')
like "$got" 'no kernel' "\$(...) reaches the CLI as a word"
ok "nothing ran: no file pwned" test ! -e pwned
gdb_cuda "$PROBE" "$core" -- 'cuda kernels --kernel `touch${IFS}pwned2`' >/dev/null
ok "backticks ran nothing" test ! -e pwned2
gdb_cuda "$PROBE" "$core" -- 'cuda kernels --kernel a|touch${IFS}pwned3' >/dev/null
ok "a '|' in an argument splits no pipe" test ! -e pwned3
got=$(gdb_cuda "$PROBE" "$core" -- 'cuda kernels --kernel "a b\"c"')
like "$got" "--kernel 'a b\"c': no kernel" "double quotes group words, \\\" is a quote"
got=$(gdb_cuda "$PROBE" "$core" -- 'cuda errors 1 2 3 4 5 6 7 8 9 10')
like "$got" 'at most 9 arguments' "ten arguments: refused before anything runs"
# The program's own arguments are GDB's again after each command.
got=$(gdb_batch -x "$CMDS" -ex 'set args --orig "x y"' "$PROBE" "$core" -ex 'cuda kernels 3' \
	-ex 'show args')
like "$got" 'is "--orig "x y""' "the program's arguments are restored"

# --- a spoofed `info target` ------------------------------------------------------------------
# A copy of the probe whose name holds a newline and a fake core block naming another core of
# the probe in GDB's working directory (a file name cannot hold a '/', so the fake path is
# relative).  GDB prints the name in `info target` before the real core's block.
mkdir -p "$T/other"
other=$( cd "$T/other" && T="$T/other" recorded_core "$PROBE" )
[ -n "$other" ] && mv "$other" "$T/core.other"
evil="$T/evil
Local core dump file:
	\`core.other', file type elf64-x86-64."
if [ -n "$other" ] && cp "$PROBE" "$evil" 2>/dev/null; then
	mkdir -p "$T/real"
	( cd "$T/real" && ulimit -c unlimited && recorded "$evil" ) >/dev/null 2>&1
	realcore=$(ls -t "$T"/real/core* 2>/dev/null | head -1)
	target=$(gdb_batch "$evil" "$realcore" -ex 'info target')
	like "$target" "Local core dump file:
	\`core.other'" "GDB's info target shows the fake block"
	got=$(gdb_cuda "$evil" "$realcore" -- 'cuda json')
	is "$(jq -r .input.path <<<"$got" 2>/dev/null)" "$realcore" \
		"cuda json reads the core GDB has open, not the one the name spoofs"
	is "$(jq -r .process.pid <<<"$got" 2>/dev/null)" \
		"$("$CLI" --json "$realcore" | jq -r .process.pid)" "... and reports its process"
else
	for i in 1 2 3; do skip "cannot make a file whose name holds a newline here"; done
fi
done_testing
