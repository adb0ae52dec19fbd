/* SPDX-License-Identifier: MIT */
/*
 * The `cudainspect` command: a thin front end over libcudainspect.  It parses the command line
 * (synopsis and exit codes in docs/CLI.md, kept stable because the GDB command file calls it),
 * runs the stages source -> locate -> decode -> diagnose -> symbolize -> render, and turns
 * library errors into one `cudainspect: <message>` line and the documented exit code.  The
 * `record` subcommand lives in record.c.
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

#define MAX_THREAD_FRAMES 128

static const char usage_text[] =
	"Usage: cudainspect [OPTIONS] INPUT [VIEW]\n"
	"       cudainspect [OPTIONS] --pid PID [VIEW]\n"
	"       cudainspect record [OPTIONS] -- CMD [ARGS...]\n"
	"\n"
	"Say what the GPU was doing when a CUDA program died: the faulting kernel, what\n"
	"was pending on each stream, which allocation a bad pointer belongs to, and where\n"
	"launches and failing calls came from.  Reads the flight record that\n"
	"libcudainspect-rec.so keeps in the process.\n"
	"\n"
	"INPUT  a core dump (plain or zstd-compressed .zst), or a record file (.cisnap\n"
	"       snapshot, .cirec persistent record)\n"
	"VIEW   summary (default) | fault | contexts | streams | kernels | allocs |\n"
	"       errors | threads | all\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID           read a live process (read-only; threads are stopped\n"
	"                          briefly one at a time to unwind them)\n"
	"  -j, --json              one JSON document instead of text (docs/JSON.md)\n"
	"  -n, --last N            kernels: the last N launches (default 20);\n"
	"                          allocs: the first N\n"
	"  -s, --stream S          kernels, streams: only stream S (handle or stream id;\n"
	"                          0x for hex)\n"
	"  -t, --thread TID        kernels, allocs, errors, threads: only thread TID\n"
	"  -k, --kernel SUBSTR     kernels: only kernels whose name contains SUBSTR\n"
	"  -f, --freed             allocs: also the recently freed allocations\n"
	"      --signal SIG        the process is stopped at signal SIG (a name such as\n"
	"                          SIGSEGV, or a number), e.g. one a debugger holds\n"
	"      --signal-thread TID ... received by thread TID\n"
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
	"      --max-core-size SIZE  the most a .zst core may decompress to (K, M, G, T\n"
	"                          suffixes; default 64G; 0 or unlimited: no bound)\n"
	"  -w, --width N           text width (default: the terminal's, else 100)\n"
	"      --color[=WHEN]      auto (default), always or never\n"
	"  -q, --quiet             no warnings\n"
	"  -h, --help              this text\n"
	"  -V, --version           the version\n"
	"\n"
	"Exit status: 0 report printed, 1 internal error, 2 usage error, 3 input\n"
	"missing, unreadable or corrupt, 4 input has no flight record.\n"
	"Run `cudainspect record --help` for the record subcommand.\n"
	"Full reference: docs/CLI.md.\n";

static const struct {
	const char *name;
	enum ci_view view;
} views[] = {
	{ "summary", CI_VIEW_SUMMARY }, { "contexts", CI_VIEW_CONTEXTS },
	{ "streams", CI_VIEW_STREAMS }, { "kernels", CI_VIEW_KERNELS },
	{ "allocs", CI_VIEW_ALLOCS },   { "errors", CI_VIEW_ERRORS },
	{ "threads", CI_VIEW_THREADS }, { "fault", CI_VIEW_FAULT },
	{ "all", CI_VIEW_ALL },
};

__attribute__((format(printf, 1, 0))) static void vsay(const char *fmt, va_list ap,
						      const char *tail)
{
	fputs("cudainspect: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap, "\n");
	va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap, "\nTry 'cudainspect --help'.\n");
	va_end(ap);
	return CI_EXIT_USAGE;
}

bool cli_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
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
	int signal;
	uint32_t signal_tid;
	const char *registers;
	bool have_pid;
	pid_t pid;
	bool json;
	bool quiet;
	bool debuginfod;
	uint64_t max_core_size;
	const char *color;
	struct ci_render_options render;
	struct ci_symbolizer_options sym;
};

/* A size for --max-core-size: a number with an optional K, M, G or T (powers of 1024, an
 * optional "iB" or "B" after it); 0 or "unlimited" for no bound (UINT64_MAX). */
static bool parse_size(const char *s, uint64_t *ret)
{
	if (strcmp(s, "unlimited") == 0 || strcmp(s, "0") == 0) {
		*ret = UINT64_MAX;
		return true;
	}
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0))
		end += strlen(end);
	if (*end || v == 0 || v > UINT64_MAX >> shift)
		return false;
	*ret = (uint64_t)v << shift;
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

static bool view_needs_threads(const struct options *o)
{
	return o->json || o->render.view == CI_VIEW_SUMMARY || o->render.view == CI_VIEW_THREADS ||
	       o->render.view == CI_VIEW_ALL;
}

static int terminal_width(void)
{
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 100;
}

static int parse(int argc, char **argv, struct options *o)
{
	enum { OPT_SYSROOT = 256, OPT_DEBUGINFO_PATH, OPT_DEBUGINFOD, OPT_COLOR, OPT_SIGNAL,
	       OPT_SIGNAL_THREAD, OPT_HINTS, OPT_REGISTERS, OPT_MAX_CORE_SIZE };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
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
		{ "max-core-size", required_argument, NULL, OPT_MAX_CORE_SIZE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;
	uint64_t v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:jn:s:t:k:fe:w:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!cli_parse_u64(optarg, &v) || v == 0 || v > INT_MAX)
				return cli_usage_error("--pid needs a process id, not '%s'", optarg);
			o->have_pid = true;
			o->pid = (pid_t)v;
			break;
		case 'j': o->json = true; break;
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
		case 'q': o->quiet = true; break;
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
		case OPT_MAX_CORE_SIZE:
			if (!parse_size(optarg, &o->max_core_size))
				return cli_usage_error("--max-core-size needs a size such as 200G, 512M or "
						       "unlimited, not '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return -1;
		case 'V': printf("cudainspect %s\n", CUDAINSPECT_VERSION); return -1;
		case ':': return cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return cli_usage_error("unknown option '-%c'", optopt);
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->signal_tid && !o->signal)
		return cli_usage_error("--signal-thread needs --signal (which signal the thread "
				       "received)");
	if (o->registers && !o->have_pid)
		return cli_usage_error("--registers needs --pid (the registers are those of a live "
				       "process's threads)");
	int npos = argc - optind;
	const char *view = NULL;
	if (o->have_pid) {
		if (npos > 1)
			return cli_usage_error("with --pid, give at most a VIEW, not '%s'",
					       argv[optind + 1]);
		view = npos ? argv[optind] : NULL;
	} else {
		if (npos == 0)
			return cli_usage_error("no INPUT: give a core dump or record file, or --pid PID");
		if (npos > 2)
			return cli_usage_error("too many arguments: '%s'", argv[optind + 2]);
		o->input = argv[optind];
		view = npos == 2 ? argv[optind + 1] : NULL;
	}
	o->render.view = CI_VIEW_SUMMARY;
	if (view) {
		size_t i;
		for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
			if (strcmp(view, views[i].name) == 0)
				break;
		if (i == sizeof(views) / sizeof(views[0]))
			return cli_usage_error("unknown view '%s' (summary, fault, contexts, streams, "
					       "kernels, allocs, errors, threads, all)", view);
		o->render.view = views[i].view;
	}
	/* Filters apply to some views (and to those parts of `all`); anywhere else they would be
	 * ignored without a word.  JSON is always complete (docs/CLI.md). */
	enum ci_view vw = o->render.view;
	const char *vname = view ? view : "the summary";
	bool all = vw == CI_VIEW_ALL;
	if (!o->json) {
		if (o->render.has_stream_filter && vw != CI_VIEW_KERNELS && vw != CI_VIEW_STREAMS && !all)
			return cli_usage_error("--stream applies to the kernels and streams views, not "
					       "to %s", vname);
		if (o->render.has_thread_filter && vw != CI_VIEW_KERNELS && vw != CI_VIEW_ALLOCS &&
		    vw != CI_VIEW_ERRORS && vw != CI_VIEW_THREADS && !all)
			return cli_usage_error("--thread applies to the kernels, allocs, errors and "
					       "threads views, not to %s", vname);
		if (o->render.kernel_filter && vw != CI_VIEW_KERNELS && !all)
			return cli_usage_error("--kernel applies to the kernels view, not to %s", vname);
		if (o->render.last && vw != CI_VIEW_KERNELS && vw != CI_VIEW_ALLOCS && !all)
			return cli_usage_error("--last applies to the kernels and allocs views, not to %s",
					       vname);
		if (o->render.freed && vw != CI_VIEW_ALLOCS && !all)
			return cli_usage_error("--freed applies to the allocs view, not to %s", vname);
	}
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
	return 0;
}

int cli_inspect(const struct cli_inspect_args *a)
{
	struct ci_error *err;
	struct ci_source *src = NULL;
	struct ci_model *model = NULL;
	struct ci_diagnosis *diag = NULL;
	struct ci_symbolizer *sym = NULL;
	struct ci_thread_stack *threads = NULL;
	size_t nthreads = 0;
	struct ci_source_options sopts = { .progress = isatty(STDERR_FILENO),
					   .max_core_size = a->max_core_size };
	struct ci_location loc;
	int rc = CI_EXIT_OK;

	if (a->have_pid)
		err = ci_source_open_pid(a->pid, &sopts, &src);
	else
		err = ci_source_open(a->input, &sopts, &src);
	if (err)
		return fail(err);
	/* Views that show a few launches and allocations of a large record read only those: the
	 * newest launches and the allocations a pointer is looked up in (docs/PERFORMANCE.md). */
	enum ci_view view = a->render->view;
	bool few = !a->json && view != CI_VIEW_KERNELS && view != CI_VIEW_ALLOCS && view != CI_VIEW_ALL;
	struct ci_decode_options dopts = { .lazy = few, .sparse = few };
	if ((err = ci_locate(src, &loc)) || (err = ci_decode_with(src, &loc, &dopts, &model)) ||
	    (err = ci_diagnose(model, ci_source_info(src), &diag)) ||
	    (err = ci_symbolizer_create(src, model, a->sym, &sym))) {
		rc = fail(err);
		goto out;
	}
	if (a->signal) {
		/* What a debugger that holds the process knows and the input cannot show: the
		 * signal it stopped the process at (not delivered yet) and the thread. */
		const struct ci_source_info *si = ci_source_info(src);
		bool known = !a->signal_tid || !si->thread_count;
		for (size_t i = 0; !known && i < si->thread_count; i++)
			known = si->threads[i].tid == a->signal_tid;
		if (!known) {
			rc = cli_usage_error("--signal-thread %u: the input has no thread %u",
					     a->signal_tid, a->signal_tid);
			goto out;
		}
		diag->signal = a->signal;
		diag->signal_tid = a->signal_tid;
	}
	if (a->threads && !a->json && a->render->view == CI_VIEW_SUMMARY) {
		/* The summary shows one backtrace: unwind only that thread. */
		uint32_t tid = diag->error_tid ? diag->error_tid : diag->signal_tid;
		if (!tid && diag->faulting_launch >= 0)
			tid = ci_model_launch(model, diag->faulting_launch)->tid;
		if (!tid && ci_source_info(src)->thread_count)
			tid = ci_source_info(src)->threads[0].tid;
		if ((err = ci_unwind_thread(sym, tid, MAX_THREAD_FRAMES, &threads))) {
			rc = fail(err);
			goto out;
		}
		nthreads = threads ? 1 : 0;
	} else if (a->threads &&
		   (err = ci_unwind_threads(sym, MAX_THREAD_FRAMES, &threads, &nthreads))) {
		rc = fail(err);
		goto out;
	}
	const struct ci_warnings *lists[3] = { ci_source_warnings(src), &model->warnings,
					       ci_symbolizer_warnings(sym) };
	struct ci_report report = {
		.source = ci_source_info(src),
		.model = model,
		.diagnosis = diag,
		.symbolizer = sym,
		.threads = threads,
		.thread_count = nthreads,
		.warnings = lists,
		/* JSON keeps its warnings: a pipeline wants them even when a person does not. */
		.warning_lists = a->quiet && !a->json ? 0 : 3,
	};
	err = a->json ? ci_render_json(stdout, &report, a->render)
		      : ci_render_text(stdout, &report, a->render);
	if (err)
		rc = fail(err);
out:
	ci_thread_stacks_free(threads, nthreads);
	ci_symbolizer_destroy(sym);
	ci_diagnosis_destroy(diag);
	ci_model_destroy(model);
	ci_source_close(src);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "record") == 0)
		return cli_record(argc - 1, argv + 1);

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
	struct ci_thread_registers *regs = NULL;
	if (o.registers) {
		int rc = cli_read_registers(o.registers, &regs, &o.sym.register_count);
		if (rc)
			return rc;
		o.sym.registers = regs;
	}
	struct cli_inspect_args a = {
		.input = o.input,
		.have_pid = o.have_pid,
		.pid = o.pid,
		.json = o.json,
		.quiet = o.quiet,
		.threads = view_needs_threads(&o),
		.signal = o.signal,
		.signal_tid = o.signal_tid,
		.render = &o.render,
		.sym = &o.sym,
		.max_core_size = o.max_core_size,
	};
	r = cli_inspect(&a);
	free(regs);
	return r;
}
