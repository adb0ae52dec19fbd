# Expands each "@CUDA_RUN@ VIEW" line of plugin/cudainspect.gdb.in into GDB commands that pipe
# what GDB knows into the helper (variable RUN, a path) with the define's arguments.  A GDB
# define sees its arguments as $arg0..$argN and fails on a reference past $argc, so there is one
# guarded pipe per argument count, up to MAX.  Views that show host stacks or the signal
# (STACK_VIEWS) first ask the helper whether GDB holds a live process; then they pipe
# _cudainspect_state, which adds GDB's own stop signals and backtraces for it.
BEGIN {
	MAX = 9
	STACK_VIEWS["summary"] = STACK_VIEWS["threads"] = STACK_VIEWS["fault"] = STACK_VIEWS["json"] = 1
}
$1 == "@CUDA_RUN@" {
	view = $2
	source = "info target"
	if (view in STACK_VIEWS) {
		printf "  pipe info target | '%s' --held\n", RUN
		printf "  set $_cudainspect_held = $_shell_exitcode == 0\n"
		source = "_cudainspect_state"
	}
	for (n = 0; n <= MAX; n++) {
		args = ""
		for (i = 0; i < n; i++)
			args = args " $arg" i
		printf "  if $argc == %d\n    pipe %s | '%s' %s%s\n  end\n", n, source, RUN, view, args
	}
	printf "  if $argc > %d\n    echo cuda %s: at most %d arguments\\n\n  end\n", MAX, view, MAX
	next
}
{ print }
