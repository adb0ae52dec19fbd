/* SPDX-License-Identifier: MIT */
/*
 * cudainspect-gdb-run: the launcher between the `cuda` GDB commands (cudainspect.gdb) and the
 * cudainspect CLI.  GDB pipes into it (`pipe _cudainspect_input | cudainspect-gdb-run VIEW`, a
 * shell line with no user text in it) its `info target`, for a live process it holds each
 * thread's stop signal and registers, and the command's arguments as GDB stored them.  It finds
 * the core file or the process GDB really has (the candidates `info target` names, checked
 * against GDB's open descriptors and its tracees: a file name can spoof that text), turns the
 * arguments into CLI options as data (gdb-input.h: no shell ever sees them), hands the CLI the
 * signal, the signal thread, the registers (on its standard input) and --hints=gdb, and leaves
 * the CLI's output untouched: any wording GDB needs the CLI produces itself.  It never writes a
 * file.
 *
 * Usage (from GDB only): cudainspect-gdb-run VIEW, VIEW a view of the CLI, "json", or
 * "gpucore" (the first argument the GPU core file to join, --gpu-core);
 * cudainspect-gdb-run --held exits 0 when GDB holds a live process, 1 otherwise.
 * Exit status: the CLI's (docs/CLI.md), or 1 when the CLI is missing, 2 for bad arguments, 3
 * when GDB has neither a core nor a live process.  CUDAINSPECT_CLI overrides the CLI's path;
 * a launcher built without one (the wheel's) runs the cudainspect next to itself.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"
#include "gdb-input.h"
#include "target.h"

#ifndef CUDAINSPECT_CLI_PATH
#define CUDAINSPECT_CLI_PATH "cudainspect"
#endif

/* GDB's state of a process with thousands of threads is a few MiB; this bounds a runaway. */
#define INPUT_MAX (256u << 20)

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cudainspect: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* All of standard input (GDB runs us with SIGPIPE ignored: we read to the end, so that GDB's
 * writes never fail). */
static char *read_all(size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (ssize_t r; buf; n += (size_t)r) {
		if (n == cap) {
			char *b = cap < INPUT_MAX ? realloc(buf, cap * 2) : NULL;
			if (!b) {
				free(buf);
				return NULL;
			}
			buf = b;
			cap *= 2;
		}
		r = read(STDIN_FILENO, buf + n, cap - n);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			break;
	}
	*len = n;
	return buf;
}

/* GDB: our parent, or the shell's parent when the shell forked us. */
static pid_t gdb_candidates[2];

static void find_gdb(void)
{
	gdb_candidates[0] = getppid();
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)gdb_candidates[0]);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "PPid: %d", &gdb_candidates[1]) == 1)
			break;
	if (f)
		fclose(f);
}

/* The core file GDB has open among those `info target` names, else the one it has open. */
static const char *verified_core(const struct cigdb_input *in, char *buf, size_t len)
{
	for (size_t i = 0; i < in->core_count; i++)
		for (int g = 0; g < 2; g++)
			if (gdb_candidates[g] > 1 && cigdb_holds_core(gdb_candidates[g], in->cores[i]))
				return in->cores[i];
	pid_t pid;
	for (int g = 0; in->core_count && g < 2; g++)
		if (gdb_candidates[g] > 1 &&
		    cigdb_target_find(gdb_candidates[g], buf, len, &pid) == CIGDB_TARGET_CORE)
			return buf;
	return NULL;
}

/* The live thread GDB traces among those `info target` names (the current one), or 0. */
static uint32_t verified_lwp(const struct cigdb_input *in)
{
	for (size_t i = 0; i < in->lwp_count; i++)
		for (int g = 0; g < 2; g++)
			if (gdb_candidates[g] > 1 && cigdb_traces(gdb_candidates[g], (pid_t)in->lwps[i]))
				return in->lwps[i];
	return 0;
}

/* A thread's process: its thread group. */
static pid_t thread_group(uint32_t lwp)
{
	char path[64], line[256];
	int tgid = 0;
	snprintf(path, sizeof path, "/proc/%u/status", lwp);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid > 0 ? tgid : (pid_t)lwp;
}

struct argv_vec {
	char *v[CIGDB_MAX_WORDS * 2 + 32];
	size_t n;
};

static void push(struct argv_vec *a, char *s)
{
	if (a->n + 1 < sizeof a->v / sizeof a->v[0])
		a->v[a->n++] = s;
}

/* The command's words as CLI options: a bare number is --last N (kernels, allocs), "freed" is
 * --freed, a view name selects the view of `cuda json`, options go as they are with the value of
 * those that take one.  Returns false after saying what is wrong. */
static bool translate(char **words, const char *command, bool json, const char **view,
		      struct argv_vec *a)
{
	static const char *const with_value[] = {
		"-n", "-s", "-t", "-k", "-w", "-e", "--last", "--stream", "--thread", "--kernel",
		"--width", "--exe", "--sysroot", "--debuginfo-path", "--kernel-log", "--gpu-core",
	};
	for (size_t i = 0; words[i]; i++) {
		char *w = words[i];
		bool takes = false;
		for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
			takes |= strcmp(w, with_value[k]) == 0;
		if (takes) {
			if (!words[i + 1]) {
				say("%s: option needs a value (see 'help %s')", command, command);
				return false;
			}
			push(a, w);
			push(a, words[++i]);
		} else if (w[0] == '-') {
			push(a, w);
		} else if (strcmp(w, "freed") == 0) {
			push(a, "--freed");
		} else if (w[0] && strspn(w, "0123456789") == strlen(w)) {
			push(a, "--last");
			push(a, w);
		} else if (json && !*view) {
			*view = w;
		} else {
			char shown[256];
			say("%s: unexpected argument '%s' (see 'help %s')", command,
			    ci_scrub(w, shown, sizeof shown), command);
			return false;
		}
	}
	return true;
}

/* Run the CLI with ARGV; STDIN_TEXT (LEN bytes, or NULL) on its standard input.  Returns its exit
 * status. */
static int run_cli(char **argv, const char *stdin_text, size_t len)
{
	int fds[2] = { -1, -1 };
	if (stdin_text && pipe(fds) != 0) {
		say("cannot make a pipe for the CLI: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		say("cannot start the CLI: %s", strerror(errno));
		return 1;
	}
	if (child == 0) {
		if (stdin_text) {
			dup2(fds[0], STDIN_FILENO);
			close(fds[0]);
			close(fds[1]);
		}
		execv(argv[0], argv);
		say("cannot run the cudainspect CLI %s: %s", argv[0], strerror(errno));
		_exit(1);
	}
	if (stdin_text) {
		close(fds[0]);
		/* The CLI may exit before it reads them all (a usage error): EPIPE then, not a signal
		 * (GDB runs us with SIGPIPE ignored, and so do we). */
		signal(SIGPIPE, SIG_IGN);
		for (size_t off = 0; off < len;) {
			ssize_t w = write(fds[1], stdin_text + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(fds[1]);
	}
	int status;
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		say("cudainspect-gdb-run is run by the 'cuda' GDB commands");
		return 2;
	}
	const char *view = argv[1];
	char command[64];
	snprintf(command, sizeof command, "cuda %s", view);
	size_t len = 0;
	char *text = read_all(&len);
	struct cigdb_input in;
	if (!text || cigdb_input_parse(text, len, &in)) {
		say("out of memory reading what GDB handed over");
		return 1;
	}
	find_gdb();
	char core_buf[4096];
	const char *core = verified_core(&in, core_buf, sizeof core_buf);
	uint32_t lwp = core ? 0 : verified_lwp(&in);
	if (strcmp(view, "--held") == 0)
		return !core && lwp ? 0 : 1;

	bool json = strcmp(view, "json") == 0;
	/* `cuda gpucore FILE`: the summary with FILE joined (--gpu-core), options after it. */
	bool gpucore = strcmp(view, "gpucore") == 0;
	const char *cli_view = json || gpucore ? "" : view;
	char **words = NULL;
	if (cigdb_split_words(in.args ? in.args : "", in.args ? in.args_len : 0, &words) < 0) {
		say("%s: too many arguments", command);
		return 2;
	}
	const char *cli = getenv("CUDAINSPECT_CLI");
	char beside[4096];
	if (!cli || !*cli)
		cli = CUDAINSPECT_CLI_PATH;
	if (cli[0] != '/') {
		/* No installed path compiled in (a wheel, which can be installed anywhere): the CLI
		 * in this launcher's own directory. */
		ssize_t n = readlink("/proc/self/exe", beside, sizeof beside - 1);
		char *slash = n > 0 ? memrchr(beside, '/', (size_t)n) : NULL;
		if (slash && (size_t)(slash - beside) + 1 + strlen(cli) < sizeof beside) {
			strcpy(slash + 1, cli);
			cli = beside;
		}
	}
	if (access(cli, X_OK) != 0) {
		say("the cudainspect CLI is not at %s; install it, or set CUDAINSPECT_CLI before "
		    "starting GDB", cli);
		return 1;
	}
	struct argv_vec a = { .n = 0 };
	push(&a, (char *)cli);
	if (json)
		push(&a, "--json");
	char sig[16], sig_tid[16], pid_text[16];
	const char *regs = NULL;
	size_t regs_len = 0;
	if (!core && lwp && in.have_state) {
		/* What the CLI cannot see of a process GDB holds: the signal GDB stopped it for (not
		 * delivered yet), and the threads' registers (a second tracer is refused, so it
		 * cannot unwind them itself). */
		const struct cigdb_signal *s = cigdb_stop_signal(&in, lwp);
		if (s) {
			snprintf(sig, sizeof sig, "%d", s->signo);
			snprintf(sig_tid, sizeof sig_tid, "%u", s->tid);
			push(&a, "--signal");
			push(&a, sig);
			push(&a, "--signal-thread");
			push(&a, sig_tid);
		} else {
			push(&a, "--held");
		}
		push(&a, "--hints=gdb");
		if (in.registers_len) {
			regs = in.registers;
			regs_len = in.registers_len;
			push(&a, "--registers");
			push(&a, "-");
		}
	}
	const char *json_view = NULL;
	char **options = words;
	if (gpucore) {
		if (!words[0] || words[0][0] == '-') {
			say("%s: give the GPU core dump of this crash: cuda gpucore FILE [OPTIONS]", command);
			return 2;
		}
		push(&a, "--gpu-core");
		push(&a, words[0]);
		options = words + 1;
	}
	if (!translate(options, command, json, &json_view, &a))
		return 2;
	if (json && json_view)
		cli_view = json_view;
	if (core) {
		push(&a, "--");
		push(&a, (char *)core);
	} else if (lwp) {
		snprintf(pid_text, sizeof pid_text, "%d", (int)thread_group(lwp));
		push(&a, "--pid");
		push(&a, pid_text);
	} else {
		say("GDB has neither a core file nor a live process here; open a core (core-file "
		    "FILE), attach (attach PID) or start the program (run), then try '%s' again",
		    command);
		return 3;
	}
	if (*cli_view)
		push(&a, (char *)cli_view);
	a.v[a.n] = NULL;
	int rc = run_cli(a.v, regs, regs_len);
	cigdb_words_free(words);
	cigdb_input_deinit(&in);
	free(text);
	return rc;
}
