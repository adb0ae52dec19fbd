/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect [OPTIONS] INPUT [VIEW]` and `--pid PID`: the command line (synopsis and exit codes
 * in docs/CLI.md, kept stable because the GDB command file calls it) into one report request, run
 * through the library's report session, printed; library errors become one `cudainspect:
 * <message>` line and the documented exit code.  A core without a record gets what its host
 * side shows (norecord.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"
#include "cli.h"
#include "size.h"


static const char usage_text[] =
	"Usage: cudainspect [OPTIONS] INPUT [VIEW]\n"
	"       cudainspect [OPTIONS] --pid PID [VIEW]\n"
	"       cudainspect [OPTIONS] --coredump PID|MATCH [VIEW]\n"
	"       cudainspect record [OPTIONS] -- CMD [ARGS...]\n"
	"       cudainspect merge [OPTIONS] INPUT...\n"
	"\n"
	"Say what the GPU was doing when a CUDA program died: the faulting kernel, what\n"
	"was pending on each stream, which allocation a bad pointer belongs to, and where\n"
	"launches and failing calls came from.  Reads the flight record that\n"
	"libcudainspect-rec.so keeps in the process.\n"
	"\n"
	"INPUT  a core dump (plain or zstd-compressed .zst), or a record file (.cisnap\n"
	"       snapshot, .cirec persistent record); `-`: a core on standard input\n"
	"       (coredumpctl dump PID | cudainspect -)\n"
	"@VIEWS@"
	"\n"
	"Options:\n"
	"  -p, --pid PID           read a live process (read-only; threads are stopped\n"
	"                          briefly one at a time to unwind them)\n"
	"      --coredump MATCH    the newest core systemd-coredump kept of a pid (or a\n"
	"                          coredumpctl match: a name, COREDUMP_EXE=...), through\n"
	"                          coredumpctl\n"
	"  -j, --json[=full]       one JSON document instead of text (docs/JSON.md): what\n"
	"                          the diagnosis used and the newest of the rest; =full:\n"
	"                          every launch, allocation and free\n"
	"  -n, --last N            kernels: the last N launches (default 20);\n"
	"                          allocs: the first N\n"
	"  -s, --stream S          kernels, streams: only stream S (handle or stream id;\n"
	"                          0x for hex)\n"
	"  -t, --thread TID        kernels, allocs, errors, threads: only thread TID\n"
	"  -k, --kernel SUBSTR     kernels: only kernels whose name contains SUBSTR\n"
	"  -f, --freed             allocs: also the recently freed allocations\n"
	"      --frames=WHICH      host stacks of Python programs: both (default: Python\n"
	"                          frames merged at the interpreter's frames), python\n"
	"                          or native\n"
	"      --signal SIG        the process is stopped at signal SIG (a name such as\n"
	"                          SIGSEGV, or a number), e.g. one a debugger holds\n"
	"      --signal-thread TID ... received by thread TID\n"
	"      --held              with --pid: a debugger holds the process stopped\n"
#ifdef __x86_64__
	"      --registers FILE    with --pid: unwind the threads from these registers\n"
	"                          (GDB's `info registers` per thread) instead of\n"
	"                          attaching, e.g. for a process a debugger holds\n"
	"                          (x86-64; `-`: standard input)\n"
#endif
	"      --hints=STYLE       phrase the suggested commands for `cli` (default) or\n"
	"                          `gdb` (the cuda commands of cudainspect.gdb)\n"
	"  -e, --exe PATH          the executable, when the one named in the core moved\n"
	"      --sysroot DIR       read the process's files under DIR (a copy of the\n"
	"                          crashed machine's root)\n"
	"      --debuginfo-path P  more directories for separate debug info (:-separated)\n"
	"      --debuginfod        allow downloads from the debuginfod servers in\n"
	"                          DEBUGINFOD_URLS (off by default: it is ignored)\n"
	"      --max-core-size SIZE  the most a .zst core may decompress to, or a core\n"
	"                          on standard input may hold (K, M, G, T suffixes;\n"
	"                          default 64G; 0 or unlimited: no bound)\n"
	"      --kernel-log FILE   the NVIDIA driver's Xid lines from a kernel log\n"
	"                          (dmesg, /dev/kmsg, journalctl -k, kern.log,\n"
	"                          nvidia-bug-report.log.gz; `-`: standard input)\n"
	"      --gpu-core FILE     join the GPU core dump of the same crash (written\n"
	"                          with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1) with the\n"
	"                          record: the faulting block, thread, PC, line and\n"
	"                          address; INPUT a GPU core alone: its own report\n"
	"      --gpu-core-trigger  with --pid: have the process's CUDA driver write a\n"
	"                          GPU core dump now, through the pipe it watches\n"
	"                          (CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1)\n"
	"      --trace FILE        also write the timeline as a Chrome trace (Perfetto,\n"
	"                          chrome://tracing; `-`: standard output, instead of\n"
	"                          the report)\n"
	"      --timeline FILE     also draw the last moments as an SVG picture (`-`:\n"
	"                          standard output, instead of the report)\n"
	"  -w, --width N           text width (default: the terminal's, else 100)\n"
	"      --color[=WHEN]      auto (default), always or never\n"
	"  -q, --quiet             no warnings\n"
	"      --list-views        the views, one block each (for the GDB command file)\n"
	"      --print-preload     the path of the recorder library `record` preloads,\n"
	"                          for LD_PRELOAD=$(cudainspect --print-preload) CMD\n"
	"  -h, --help              this text\n"
	"  -V, --version           the version\n"
	"\n"
	"Exit status: 0 report printed, 1 internal error, 2 usage error, 3 input\n"
	"missing, unreadable or corrupt (or a --trace, --timeline FILE that cannot be\n"
	"written), 4 input has no flight record (for a core, what its host side shows\n"
	"is printed first).\n"
	"Run `cudainspect record --help` for the record subcommand.\n"
	"Full reference: docs/CLI.md.\n";

/* "VIEW   summary (default) | fault | ...": the view table's names, wrapped at 80 columns. */
static void print_views_line(FILE *f)
{
	int col = fprintf(f, "VIEW  ");
	for (size_t i = 0; i < ci_view_count(); i++) {
		const char *name = ci_view_at(i)->name;
		char word[64];
		snprintf(word, sizeof word, " %s%s%s", name, i == 0 ? " (default)" : "",
			 i + 1 < ci_view_count() ? " |" : "");
		if (col + (int)strlen(word) > 79)
			col = fprintf(f, "\n      ");
		col += fprintf(f, "%s", word);
	}
	fputc('\n', f);
}

static void print_usage(FILE *f)
{
	const char *at = strstr(usage_text, "@VIEWS@");
	fwrite(usage_text, 1, (size_t)(at - usage_text), f);
	print_views_line(f);
	fputs(at + strlen("@VIEWS@"), f);
}

/* `--list-views`: each view as "view NAME", "summary LINE"..., "help LINE"..., "filters
 * OPTION...", "threads yes|no" (it shows host threads), then an empty line, for
 * plugin/expand.awk (the GDB command file). */
static void list_views(FILE *f)
{
	for (size_t i = 0; i < ci_view_count(); i++) {
		const struct ci_view_info *v = ci_view_at(i);
		fprintf(f, "view %s\n", v->name);
		for (const char *p = v->summary, *e; *p; p = *e ? e + 1 : e) {
			e = strchrnul(p, '\n');
			fprintf(f, "summary %.*s\n", (int)(e - p), p);
		}
		for (const char *p = v->gdb_help, *e; *p; p = *e ? e + 1 : e) {
			e = strchrnul(p, '\n');
			fprintf(f, "help %.*s\n", (int)(e - p), p);
		}
		fputs("filters", f);
		for (unsigned bit = 0; ci_view_filter_option(bit); bit++)
			if (v->filters & (1u << bit))
				fprintf(f, " %s", ci_view_filter_option(bit));
		fprintf(f, "\nthreads %s\n\n", ci_view_shows_threads(v->view) ? "yes" : "no");
	}
}

/* "the kernels and streams views": the views that accept filter BIT. */
static void views_accepting(unsigned bit, char *buf, size_t n)
{
	size_t count = 0, total = 0, used = 0;
	for (size_t i = 0; i < ci_view_count(); i++)
		total += ci_view_at(i)->view != CI_VIEW_ALL && (ci_view_at(i)->filters & (1u << bit));
	used += (size_t)snprintf(buf, n, "the");
	for (size_t i = 0; i < ci_view_count() && used < n; i++) {
		const struct ci_view_info *v = ci_view_at(i);
		if (v->view == CI_VIEW_ALL || !(v->filters & (1u << bit)))
			continue;
		count++;
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 count == 1 ? " " : count == total ? " and " : ", ", v->name);
	}
	if (used < n)
		snprintf(buf + used, n - used, " view%s", total == 1 ? "" : "s");
}

/* Report a library error (its message already says what to do) and give the exit code. */
static int fail(struct ci_error *err)
{
	int code = (int)ci_error_exit(err->code);
	cli_error("%s", err->message);
	ci_error_destroy(err);
	return code;
}

struct options {
	const char *input;
	const char *coredump;   /* --coredump MATCH */
	char *spooled;          /* the path of the copy of standard input or coredumpctl's core */
	int signal;
	uint32_t signal_tid;
	const char *registers;
	const char *kernel_log;
	const char *gpu_core;   /* --gpu-core FILE */
	bool gpu_core_trigger;  /* --gpu-core-trigger (with --pid) */
	const char *trace, *timeline;
	bool held;
	bool have_pid;
	pid_t pid;
	bool json, json_full;
	bool debuginfod;
	bool gpucore;           /* INPUT is a GPU core dump: its own report (docs/CLI.md, "GPU cores") */
	enum ci_gpucore_view gpucore_view;
	uint64_t max_core_size;
	const char *color;
	struct ci_render_options render;
	struct ci_symbolizer_options sym;
};

/* A size for --max-core-size (common/size.h); 0 or "unlimited" is no bound (UINT64_MAX). */
static bool parse_max_size(const char *s, uint64_t *ret)
{
	if (!ci_size_parse(s, ret))
		return false;
	if (*ret == 0)
		*ret = UINT64_MAX;
	return true;
}

/* A signal by name ("SIGSEGV", "segv") or number. */
static int parse_signal(const char *s)
{
	uint64_t v;
	if (cli_parse_u64(s, &v))
		return v >= 1 && v <= (uint64_t)SIGRTMAX ? (int)v : 0;
	const char *name = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (abbrev && strcasecmp(abbrev, name) == 0)
			return sig;
	}
	return 0;
}

static int terminal_width(void)
{
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 100;
}

enum { OPT_SYSROOT = 256, OPT_DEBUGINFO_PATH, OPT_DEBUGINFOD, OPT_COLOR, OPT_SIGNAL,
       OPT_SIGNAL_THREAD, OPT_HINTS, OPT_REGISTERS, OPT_LIST_VIEWS, OPT_HELD,
       OPT_MAX_CORE_SIZE, OPT_KERNEL_LOG, OPT_FRAMES, OPT_COREDUMP, OPT_PRINT_PRELOAD,
       OPT_TRACE, OPT_TIMELINE, OPT_GPU_CORE, OPT_GPU_CORE_TRIGGER };
static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "json", optional_argument, NULL, 'j' },
	{ "last", required_argument, NULL, 'n' },
	{ "stream", required_argument, NULL, 's' },
	{ "thread", required_argument, NULL, 't' },
	{ "kernel", required_argument, NULL, 'k' },
	{ "freed", no_argument, NULL, 'f' },
	{ "exe", required_argument, NULL, 'e' },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "debuginfo-path", required_argument, NULL, OPT_DEBUGINFO_PATH },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "width", required_argument, NULL, 'w' },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "signal-thread", required_argument, NULL, OPT_SIGNAL_THREAD },
	{ "hints", required_argument, NULL, OPT_HINTS },
	{ "registers", required_argument, NULL, OPT_REGISTERS },
	{ "list-views", no_argument, NULL, OPT_LIST_VIEWS },
	{ "held", no_argument, NULL, OPT_HELD },
	{ "max-core-size", required_argument, NULL, OPT_MAX_CORE_SIZE },
	{ "kernel-log", required_argument, NULL, OPT_KERNEL_LOG },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "coredump", required_argument, NULL, OPT_COREDUMP },
	{ "print-preload", no_argument, NULL, OPT_PRINT_PRELOAD },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "gpu-core", required_argument, NULL, OPT_GPU_CORE },
	{ "gpu-core-trigger", no_argument, NULL, OPT_GPU_CORE_TRIGGER },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

/* `--print-preload`: the recorder library as `record` finds it, one line.  -1 (printed), or
 * exit code 3 after saying why. */
static int print_preload(void)
{
	char *lib = cli_find_recorder();
	if (!lib) {
		cli_error("cannot find %s next to cudainspect or in ../lib (nor ../lib/cudainspect, "
			  "../lib/x86_64-linux-gnu); build it (make) or install it (make install)",
			  CLI_RECORDER_LIB);
		return CI_EXIT_BAD_INPUT;
	}
	printf("%s\n", lib);
	free(lib);
	return fflush(stdout) == 0 ? -1 : CI_EXIT_INTERNAL;
}

/* Option C of the inspect command (its argument in optarg) into O: 0, an exit code after
 * saying why, or -1 when it was all (--help, --version, --list-views: printed). */
static int parse_option(int c, char **argv, struct options *o)
{
	uint64_t v;
	switch (c) {
	case 'p':
		if (!cli_parse_u64(optarg, &v) || v == 0 || v > INT_MAX)
			return cli_usage_error("--pid needs a process id, not '%s'", optarg);
		o->have_pid = true;
		o->pid = (pid_t)v;
		break;
	case 'j':
		if (optarg && strcmp(optarg, "full") != 0)
			return cli_usage_error("--json takes no value or 'full', not '%s'", optarg);
		o->json = true;
		o->json_full = optarg != NULL;
		break;
	case 'n':
		if (!cli_parse_u64(optarg, &v) || v == 0 || v > SIZE_MAX / 2)
			return cli_usage_error("--last needs a positive count, not '%s'", optarg);
		o->render.last = (size_t)v;
		break;
	case 's':
		if (!cli_parse_u64(optarg, &v))
			return cli_usage_error("--stream needs a stream handle or id (e.g. 0x55d0c0a0 "
					       "or 3), not '%s'", optarg);
		o->render.has_stream_filter = true;
		o->render.stream_filter = v;
		break;
	case 't':
		if (!cli_parse_u64(optarg, &v) || v > UINT32_MAX)
			return cli_usage_error("--thread needs a thread id, not '%s'", optarg);
		o->render.has_thread_filter = true;
		o->render.thread_filter = (uint32_t)v;
		break;
	case 'k': o->render.kernel_filter = optarg; break;
	case 'f': o->render.freed = true; break;
	case 'e': o->sym.executable = optarg; break;
	case OPT_SYSROOT: o->sym.sysroot = optarg; break;
	case OPT_DEBUGINFO_PATH: o->sym.debuginfo_path = optarg; break;
	case OPT_DEBUGINFOD: o->debuginfod = true; break;
	case 'w':
		if (!cli_parse_u64(optarg, &v) || v < 40 || v > 10000)
			return cli_usage_error("--width needs a number of columns from 40 to "
					       "10000, not '%s'", optarg);
		o->render.width = (int)v;
		break;
	case OPT_COLOR:
		o->color = optarg ? optarg : "always";
		if (strcmp(o->color, "auto") && strcmp(o->color, "always") &&
		    strcmp(o->color, "never"))
			return cli_usage_error("--color takes auto, always or never, not '%s'",
					       o->color);
		break;
	case 'q': o->render.quiet = true; break;
	case OPT_SIGNAL:
		if (!(o->signal = parse_signal(optarg)))
			return cli_usage_error("--signal needs a signal name (SIGSEGV, SEGV) or "
					       "number, not '%s'", optarg);
		break;
	case OPT_SIGNAL_THREAD:
		if (!cli_parse_u64(optarg, &v) || v == 0 || v > INT_MAX)
			return cli_usage_error("--signal-thread needs a thread id, not '%s'", optarg);
		o->signal_tid = (uint32_t)v;
		break;
	case OPT_HINTS:
		if (strcmp(optarg, "cli") == 0)
			o->render.hints = CI_HINTS_CLI;
		else if (strcmp(optarg, "gdb") == 0)
			o->render.hints = CI_HINTS_GDB;
		else
			return cli_usage_error("--hints takes cli or gdb, not '%s'", optarg);
		break;
	case OPT_REGISTERS: o->registers = optarg; break;
	case OPT_LIST_VIEWS: list_views(stdout); return -1;
	case OPT_HELD: o->held = true; break;
	case OPT_FRAMES:
		if (strcmp(optarg, "both") == 0)
			o->render.frames = CI_FRAMES_BOTH;
		else if (strcmp(optarg, "python") == 0)
			o->render.frames = CI_FRAMES_PYTHON;
		else if (strcmp(optarg, "native") == 0)
			o->render.frames = CI_FRAMES_NATIVE;
		else
			return cli_usage_error("--frames takes both, python or native, not '%s'",
					       optarg);
		break;
	case OPT_MAX_CORE_SIZE:
		if (!parse_max_size(optarg, &o->max_core_size))
			return cli_usage_error("--max-core-size needs a size such as 200G, 512M or "
					       "unlimited, not '%s'", optarg);
		break;
	case OPT_KERNEL_LOG:
		if (!*optarg)
			return cli_usage_error("--kernel-log needs a file (dmesg, journalctl -k, "
					       "kern.log, nvidia-bug-report.log.gz) or '-'");
		o->kernel_log = optarg;
		break;
	case OPT_COREDUMP:
		if (!*optarg)
			return cli_usage_error("--coredump needs a pid or a coredumpctl match (a program "
					       "name, COREDUMP_EXE=PATH)");
		o->coredump = optarg;
		break;
	case OPT_GPU_CORE:
		if (!*optarg)
			return cli_usage_error("--gpu-core needs the GPU core dump file of the same crash");
		o->gpu_core = optarg;
		break;
	case OPT_GPU_CORE_TRIGGER: o->gpu_core_trigger = true; break;
	case OPT_PRINT_PRELOAD: return print_preload();
	case OPT_TRACE:
	case OPT_TIMELINE:
		if (!*optarg)
			return cli_usage_error("%s needs a file to write (or '-' for standard output)",
					       c == OPT_TRACE ? "--trace" : "--timeline");
		*(c == OPT_TRACE ? &o->trace : &o->timeline) = optarg;
		break;
	case 'h': print_usage(stdout); return -1;
	case 'V': printf("cudainspect %s\n", CUDAINSPECT_VERSION); return -1;
	case ':': return cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
	default:
		if (optopt)
			return cli_usage_error("unknown option '-%c'", optopt);
		return cli_usage_error("unknown option '%s'", argv[optind - 1]);
	}
	return 0;
}

/* Options that need or exclude each other. */
static int check_combinations(const struct options *o)
{
	if (o->signal_tid && !o->signal)
		return cli_usage_error("--signal-thread needs --signal (which signal the thread "
				       "received)");
	if (o->coredump && o->have_pid)
		return cli_usage_error("--coredump and --pid name two different inputs: give one");
	if (o->held && !o->have_pid)
		return cli_usage_error("--held needs --pid (a debugger holds a live process)");
	if (o->kernel_log && o->registers && strcmp(o->kernel_log, "-") == 0 &&
	    strcmp(o->registers, "-") == 0)
		return cli_usage_error("--kernel-log - and --registers - both read standard input: "
				       "give one of them as a file");
	bool trace_out = o->trace && strcmp(o->trace, "-") == 0;
	bool timeline_out = o->timeline && strcmp(o->timeline, "-") == 0;
	if (trace_out + timeline_out + (o->json && (trace_out || timeline_out)) > 1)
		return cli_usage_error("%s both write to standard output: give one of them a file",
				       trace_out && timeline_out ? "--trace - and --timeline -"
				       : trace_out ? "--trace - and --json" : "--timeline - and --json");
	if (o->gpu_core_trigger && !o->have_pid)
		return cli_usage_error("--gpu-core-trigger needs --pid (the live process whose CUDA "
				       "driver is to dump the GPU)");
	if (o->registers && !o->have_pid)
		return cli_usage_error("--registers needs --pid (the registers are those of a live "
				       "process's threads)");
	return 0;
}

/* A GPU core as INPUT: its views are summary and warps, and no host option applies. */
static int parse_gpucore_operands(struct options *o, const char *view)
{
	o->gpucore = true;
	if (!view || strcmp(view, "summary") == 0)
		o->gpucore_view = CI_GPUCORE_VIEW_SUMMARY;
	else if (strcmp(view, "warps") == 0)
		o->gpucore_view = CI_GPUCORE_VIEW_WARPS;
	else
		return cli_usage_error("%s is a GPU core dump: its views are summary and warps, not '%s' "
				       "(the host's views need the host core: cudainspect CORE --gpu-core %s)",
				       o->input, view, o->input);
	if (o->render.has_stream_filter || o->render.has_thread_filter || o->render.kernel_filter ||
	    o->render.last || o->render.freed || o->kernel_log || o->trace || o->timeline || o->signal ||
	    o->gpu_core)
		return cli_usage_error("%s is a GPU core dump: the host options (filters, --kernel-log, "
				       "--trace, --timeline, --signal, --gpu-core) do not apply to it", o->input);
	return 0;
}

/* INPUT (none with --pid) and VIEW, and the filters that VIEW takes. */
static int parse_operands(int argc, char **argv, struct options *o)
{
	int npos = argc - optind;
	const char *view = NULL;
	if (o->have_pid || o->coredump) {
		if (npos > 1)
			return cli_usage_error("with %s, give at most a VIEW, not '%s'",
					       o->have_pid ? "--pid" : "--coredump", argv[optind + 1]);
		view = npos ? argv[optind] : NULL;
	} else {
		if (npos == 0)
			return cli_usage_error("no INPUT: give a core dump or record file, or --pid PID");
		if (npos > 2)
			return cli_usage_error("too many arguments: '%s'", argv[optind + 2]);
		o->input = argv[optind];
		view = npos == 2 ? argv[optind + 1] : NULL;
		if (strcmp(o->input, "-") != 0 && ci_gpucore_file(o->input))
			return parse_gpucore_operands(o, view);
		if (strcmp(o->input, "-") == 0 && o->kernel_log && strcmp(o->kernel_log, "-") == 0)
			return cli_usage_error("INPUT - and --kernel-log - both read standard input: give "
					       "the kernel log as a file (journalctl -k -b > kernel.log)");
	}
	const struct ci_view_info *vi = ci_view_info(CI_VIEW_SUMMARY);
	if (view && !(vi = ci_view_find(view))) {
		char names[256];
		size_t used = 0;
		for (size_t i = 0; i < ci_view_count() && used < sizeof names; i++)
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
						 i ? ", " : "", ci_view_at(i)->name);
		return cli_usage_error("unknown view '%s' (%s)", view, names);
	}
	o->render.view = vi->view;
	/* Filters apply to some views (and to those parts of `all`); anywhere else they would be
	 * ignored without a word.  JSON is always complete (docs/CLI.md). */
	unsigned given = (o->render.has_stream_filter ? CI_FILTER_STREAM : 0) |
			 (o->render.has_thread_filter ? CI_FILTER_THREAD : 0) |
			 (o->render.kernel_filter ? CI_FILTER_KERNEL : 0) |
			 (o->render.last ? CI_FILTER_LAST : 0) | (o->render.freed ? CI_FILTER_FREED : 0);
	for (unsigned bit = 0; !o->json && ci_view_filter_option(bit); bit++)
		if ((given & (1u << bit)) && !(vi->filters & (1u << bit))) {
			char which[160];
			views_accepting(bit, which, sizeof which);
			return cli_usage_error("%s applies to %s, not to %s", ci_view_filter_option(bit),
					       which, view ? view : "the summary");
		}
	return 0;
}

/* Width and color as the terminal and the environment say, where no option did. */
static void settle_output(struct options *o)
{
	if (!o->render.width)
		o->render.width = terminal_width();
	const char *color = o->color ? o->color : "auto";
	if (strcmp(color, "always") == 0)
		o->render.color = true;
	else if (strcmp(color, "auto") == 0) {
		const char *term = getenv("TERM");
		o->render.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && term &&
				  strcmp(term, "dumb") != 0;
	}
	o->sym.debuginfod = o->debuginfod;
}

static int parse(int argc, char **argv, struct options *o)
{
	int c, r;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:jn:s:t:k:fe:w:qhV", longopts, NULL)) != -1)
		if ((r = parse_option(c, argv, o)))
			return r;
	if ((r = check_combinations(o)) || (r = parse_operands(argc, argv, o)))
		return r;
	settle_output(o);
	return 0;
}

int cli_inspect(const struct cli_inspect_args *a)
{
	struct ci_request req = {
		.render = *a->render,
		.json = a->json,
		.json_full = a->json_full,
		.signal = a->signal,
		.signal_tid = a->signal_tid,
		.held = a->held,
		.source = { .progress = isatty(STDERR_FILENO), .max_core_size = a->max_core_size,
			    .name = a->source_name },
		.symbols = *a->sym,
		.kernel_log = a->kernel_log,
		.gpu_core = a->gpu_core,
		.timeline = a->trace || a->timeline,
	};
	/* JSON keeps its warnings: a pipeline wants them even when a person does not. */
	req.render.quiet = a->quiet && !a->json;
	struct ci_input in = { .path = a->have_pid ? NULL : a->input, .pid = a->have_pid ? a->pid : 0 };
	struct ci_report *report = NULL;
	/* The timeline's files first: a path that cannot be written fails before the input is read. */
	struct ci_outfile *trace = NULL, *timeline = NULL;
	struct ci_error *err = NULL;
	if ((a->trace && (err = ci_outfile_open(a->trace, "--trace", &trace))) ||
	    (a->timeline && (err = ci_outfile_open(a->timeline, "--timeline", &timeline)))) {
		ci_outfile_discard(trace);
		return fail(err);
	}
	err = ci_report_create(&in, &req, &report);
	if (err && err->code == CI_ERR_NO_RECORD) {
		/* No record: what the host side shows, then the driver's lines for the process (in
		 * JSON, inside the one document). */
		struct ci_evidence klog = { 0 };
		uint32_t klog_pid = 0;
		if (a->kernel_log && a->json) {
			struct ci_error *e2 = ci_kernel_log_unrecorded(&in, &req.source, a->kernel_log,
								       &klog, &klog_pid);
			if (e2) {
				cli_error("%s", e2->message);
				ci_error_destroy(e2);
			}
		}
		cli_no_record_report(a, err, klog.kernel_log ? &klog : NULL);
		ci_evidence_kernel_log_clear(&klog);
		if (a->kernel_log && !a->json) {
			struct ci_error *e2 = ci_kernel_log_report_unrecorded(stdout, &in, &req.source,
									      a->kernel_log);
			if (e2) {
				cli_error("%s", e2->message);
				ci_error_destroy(e2);
			}
		}
	}
	/* The report on standard output, unless a timeline goes there instead. */
	bool to_stdout = (a->trace && strcmp(a->trace, "-") == 0) ||
			 (a->timeline && strcmp(a->timeline, "-") == 0);
	if (!err && !to_stdout)
		err = ci_report_print(stdout, report);
	if (!err && trace && !(err = ci_render_trace(ci_outfile_stream(trace), report))) {
		err = ci_outfile_commit(trace);
		trace = NULL;
	}
	if (!err && timeline && !(err = ci_render_timeline_svg(ci_outfile_stream(timeline), report))) {
		err = ci_outfile_commit(timeline);
		timeline = NULL;
	}
	ci_outfile_discard(trace);
	ci_outfile_discard(timeline);
	ci_report_destroy(report);
	return err ? fail(err) : CI_EXIT_OK;
}

int cli_inspect_main(int argc, char **argv)
{
	struct options o = { 0 };
	int r = parse(argc, argv, &o);
	if (r < 0)
		return CI_EXIT_OK;
	if (r > 0)
		return r;
	/* A write past the file size limit (ulimit -f) fails with EFBIG, which the reader
	 * reports, instead of killing it. */
	signal(SIGXFSZ, SIG_IGN);
	/* libdw asks debuginfod whenever DEBUGINFOD_URLS is set: downloads only when asked. */
	if (!o.debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	if (o.gpu_core_trigger)
		return cli_gpucore_trigger(o.pid, o.render.quiet);
	if (o.gpucore) {
		struct ci_source_options so = { .progress = isatty(STDERR_FILENO),
						.max_core_size = o.max_core_size };
		struct ci_error *err = ci_gpucore_report(stdout, o.input, &so, o.gpucore_view, o.json,
							 &o.render);
		return err ? fail(err) : CI_EXIT_OK;
	}
	struct ci_thread_registers *regs = NULL;
	if (o.registers) {
		int rc = cli_read_registers(o.registers, &regs, &o.sym.register_count);
		if (rc)
			return rc;
		o.sym.registers = regs;
	}
	/* The kernel log's lines `record` kept beside the core (docs/CLI.md), as if --kernel-log
	 * named them. */
	char *beside = NULL;
	bool piped = o.coredump || strcmp(o.input ? o.input : "", "-") == 0;
	if (!o.kernel_log && !o.have_pid && !piped &&
	    (beside = cli_beside_file(o.input, CLI_KERNEL_LOG_SUFFIX))) {
		o.kernel_log = beside;
		if (!o.render.quiet && !o.json)
			cli_error("note: reading the kernel log's lines kept beside the core, %s "
				  "(--kernel-log FILE reads another)", beside);
	}
	/* The same for the GPU core `record --gpu-core` names after the host core. */
	char *beside_gpu = NULL;
	if (!o.gpu_core && !o.have_pid && !piped &&
	    (beside_gpu = cli_beside_file(o.input, CLI_GPU_CORE_SUFFIX))) {
		o.gpu_core = beside_gpu;
		if (!o.render.quiet && !o.json)
			cli_error("note: joining the GPU core kept beside the core, %s (--gpu-core FILE "
				  "reads another)", beside_gpu);
	}
	/* A core through a pipe: copied once, then read as a file under the name given. */
	char input_arg[300], coredump_name[300];
	const char *source_name = NULL;
	if (piped) {
		struct ci_source_options so = { .progress = isatty(STDERR_FILENO),
						.max_core_size = o.max_core_size };
		if (o.coredump) {
			r = cli_coredump(o.coredump, &so, o.json, &o.spooled);
			/* The suggested commands run coredumpctl again: `cudainspect --coredump 4242 fault`. */
			char quoted[256];
			snprintf(input_arg, sizeof input_arg, "--coredump %s",
				 ci_shell_quote(o.coredump, quoted, sizeof quoted));
			o.render.input_arg = input_arg;
			snprintf(coredump_name, sizeof coredump_name, "coredump %s", o.coredump);
			source_name = coredump_name;
		} else {
			r = cli_spool_stdin(&so, &o.spooled);
			source_name = "-";
		}
		if (r) {
			free(regs);
			return r;
		}
		o.input = o.spooled;
	}
	struct cli_inspect_args a = {
		.input = o.input,
		.have_pid = o.have_pid,
		.pid = o.pid,
		.json = o.json,
		.json_full = o.json_full,
		.quiet = o.render.quiet,
		.signal = o.signal,
		.held = o.held,
		.signal_tid = o.signal_tid,
		.render = &o.render,
		.sym = &o.sym,
		.max_core_size = o.max_core_size,
		.kernel_log = o.kernel_log,
		.gpu_core = o.gpu_core,
		.source_name = source_name,
		.trace = o.trace,
		.timeline = o.timeline,
	};
	r = cli_inspect(&a);
	free(o.spooled);
	free(regs);
	free(beside);
	free(beside_gpu);
	return r;
}
