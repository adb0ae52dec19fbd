# Expands each "@CUDA_RUN@ VIEW" line of plugin/cudainspect.gdb.in into GDB commands that pipe
# `info target` into the helper (variable RUN, a path) with the define's arguments.  A GDB define
# sees its arguments as $arg0..$argN and fails on a reference past $argc, so there is one
# guarded pipe per argument count, up to MAX.
BEGIN { MAX = 9 }
$1 == "@CUDA_RUN@" {
	view = $2
	for (n = 0; n <= MAX; n++) {
		args = ""
		for (i = 0; i < n; i++)
			args = args " $arg" i
		printf "  if $argc == %d\n    pipe info target | '%s' %s%s\n  end\n", n, RUN, view, args
	}
	printf "  if $argc > %d\n    echo cuda %s: at most %d arguments\\n\n  end\n", MAX, view, MAX
	next
}
{ print }
