# Shared setup of the GDB tests (tests/plugin/gdb-*.t); source it after tests/lib/tap.sh.
#   need_gdb_parts PART...  skip the whole test unless GDB and these build outputs exist
#   gdb_batch ARGS...       real `gdb -nx -batch`, offline and deterministic; stdout+stderr
#   recorded CMD...         CMD on the simulated driver under the recorder (environment only)
#   recorded_core CMD...    run CMD recorded in $T with core dumps on; echoes the core's path
# Outputs are compared with the CLI's at the same width (100: no terminal).

REC=$B/libcudainspect-rec.so
PLUGIN=$B/cudainspect.so
CMDS=$B/cudainspect.gdb
CLI=$B/cudainspect
PROBE=$B/tests/plugin/gdbprobe
JITFN=$B/tests/plugin/jitfn.elf
export COLUMNS=100 NO_COLOR=1

need_gdb_parts() {
	if [ "${CI_SANITIZE:-}" = address ]; then
		skip_all "an ASan-instrumented plugin or recorder cannot load into GDB or an uninstrumented program"
	fi
	command -v gdb >/dev/null || skip_all "gdb is not installed (make deps)"
	local p
	for p in "$@"; do
		[ -e "$p" ] || skip_all "$p not built (make check builds it)"
	done
}

gdb_batch() {
	timeout 120 gdb -nx -batch -iex 'set debuginfod enabled off' -iex 'set width 0' \
		-iex 'set height 0' "$@" 2>&1
}

recorded() {
	env LD_LIBRARY_PATH="$B/sim" LD_PRELOAD="$REC" CUDAINSPECT_QUIET=1 "$@"
}

recorded_core() {
	rm -f "$T"/core "$T"/core.*
	( cd "$T" && ulimit -c unlimited && recorded "$@" ) >"$T/run.out" 2>"$T/run.err" || true
	ls -t "$T"/core* 2>/dev/null | head -n 1
}

# The summary and view outputs without the lines that name the input (the plugin reads a
# buffer from GDB, the CLI a core path).
strip_input_lines() {
	grep -v -e '^  cudainspect ' -e 'CORE' -e '^Input' || true
}

# gdb_cuda ARGS... -- COMMAND: what COMMAND prints in a batch GDB started with ARGS and the
# command file, without GDB's own start-up lines; the last line is "exit=N" ($_shell_exitcode).
gdb_cuda() {
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	gdb_batch -x "$CMDS" "${args[@]}" -ex 'echo @@begin@@\n' -ex "$*" \
		-ex 'printf "exit=%d\n", $_shell_exitcode' |
		sed -n '/^@@begin@@$/,$p' | sed 1d
}
