# Writes cudainspect.gdb from plugin/cudainspect.gdb.in and the CLI's view table.  Run as
#   awk -v RUN=HELPER -f plugin/expand.awk VIEWS cudainspect.gdb.in
# VIEWS is `cudainspect --list-views`: blocks of "view NAME", "summary LINE"..., "help LINE"...,
# "filters ...", "threads yes|no", then an empty line.  In the command file, @CUDA_VIEWS@ becomes
# one documented `cuda NAME` per view, @CUDA_JSON_VIEWS@ the list of views for `help cuda json`,
# and each "@CUDA_RUN@ VIEW" line the commands that run the launcher (RUN, a path) for VIEW.
#
# The arguments are data, never shell text: a GDB define sees them as $arg0..$argN (and fails on
# a reference past $argc), so there is one guarded `set args` per argument count, up to MAX;
# GDB keeps that line raw, the command copies it into $_cudainspect_args, puts the program's
# own arguments back at once, and _cudainspect_input prints it after GDB's state, for the
# launcher to split.  The shell line of every `pipe` is fixed text.  Views that show host
# threads first ask the launcher whether GDB holds a live process, then pipe GDB's signals and
# registers too.
BEGIN {
	MAX = 9
	STATE["json"] = 1
	STATE["gpucore"] = 1
}
FNR == NR {
	if ($1 == "view") {
		name = $2
		order[++nviews] = name
	} else if ($1 == "summary" || $1 == "help") {
		line = substr($0, length($1) + 2)
		doc[name] = doc[name] line "\n"
	} else if ($1 == "threads" && $2 == "yes") {
		STATE[name] = 1
	}
	next
}
function run(view,    n, i, args) {
	printf "  set $_cudainspect_saved_args = $_gdb_setting_str(\"args\")\n"
	for (n = 0; n <= MAX; n++) {
		args = ""
		for (i = 0; i < n; i++)
			args = args " $arg" i
		printf "  if $argc == %d\n    set args%s\n  end\n", n, args
	}
	printf "  set $_cudainspect_args = $_gdb_setting_str(\"args\")\n"
	printf "  eval \"set args %%s\", $_cudainspect_saved_args\n"
	printf "  if $argc > %d\n    echo cuda %s: at most %d arguments\\n\n  else\n", MAX, view, MAX
	if (view in STATE) {
		printf "    pipe info target | '%s' --held\n", RUN
		printf "    set $_cudainspect_held = $_shell_exitcode == 0\n"
	} else {
		printf "    set $_cudainspect_held = 0\n"
	}
	printf "    pipe _cudainspect_input | '%s' %s\n  end\n", RUN, view
}
$1 == "@CUDA_RUN@" {
	run($2)
	next
}
$1 == "@CUDA_VIEWS@" {
	for (v = 1; v <= nviews; v++) {
		name = order[v]
		printf "define cuda %s\n", name
		run(name)
		printf "end\ndocument cuda %s\n%send\n", name, doc[name]
		if (v < nviews)
			printf "\n"
	}
	next
}
$1 == "@CUDA_JSON_VIEWS@" {
	# "VIEW is summary (default), fault, ... or all." wrapped at 80 columns, then the rest.
	text = "VIEW is"
	col = length(text)
	for (v = 1; v <= nviews; v++) {
		word = " " order[v] (v == 1 ? " (default)" : "") (v < nviews - 1 ? "," : v == nviews - 1 ? " or" : ".")
		if (col + length(word) > 80) {
			text = text "\n" substr(word, 2)
			col = length(word) - 1
		} else {
			text = text word
			col += length(word)
		}
	}
	rest = substr($0, length($1) + 1)
	print text rest
	next
}
{ print }
