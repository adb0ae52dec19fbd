/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect record [OPTIONS] -- CMD ARGS...`: run a program under the flight recorder.  It
 * preloads libcudainspect-rec.so, lifts the core-size limit, points the recorder's snapshot
 * files at the record directory, runs CMD, and passes its exit status through.  When CMD dies
 * of a signal it says where the core and the record snapshot went (from the kernel's
 * core_pattern, which may pipe cores to systemd-coredump instead) and prints the summary of
 * whichever it found.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define RECORDER_LIB "libcudainspect-rec.so"
/* Where the recorder writes snapshot files, and keeps a persistent record (docs/ENVIRONMENT.md). */
#define SNAPSHOT_DIR_ENV "CUDAINSPECT_SNAPSHOT_DIR"
#define PERSISTENT_DIR_ENV "CUDAINSPECT_DIR"

static const char record_usage[] =
	"Usage: cudainspect record [OPTIONS] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD under the cudainspect flight recorder with core dumps enabled.  If CMD\n"
	"dies of a signal, say where its core dump and record snapshot went and print\n"
	"the summary.\n"
	"\n"
	"Options:\n"
	"  -d, --dir DIR        write the recorder's snapshot files into DIR (created if\n"
	"                       needed; sets " SNAPSHOT_DIR_ENV ")\n"
	"      --persistent     also keep the record itself in a file in DIR (default:\n"
	"                       the current directory), so that it survives kill -9\n"
	"                       (sets " PERSISTENT_DIR_ENV ")\n"
	"      --preload PATH   the recorder library (default: " RECORDER_LIB "\n"
	"                       next to cudainspect, or in ../lib)\n"
	"      --no-core        leave the core-size limit as it is\n"
	"  -j, --json           print the JSON report instead of the summary\n"
	"  -q, --quiet          no warnings, no notes\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: CMD's own exit status; 128+N when CMD was killed by signal N;\n"
	"2 for a usage error, 127 when CMD cannot be run.\n";

/* The recorder library: next to this executable (build tree), or in ../lib (installed). */
static char *find_recorder(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	static const char *const rel[] = { "", "/../lib", "/../lib/cudainspect",
					   "/../lib/x86_64-linux-gnu" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = NULL, *real;
		if (asprintf(&p, "%s%s/%s", self, rel[i], RECORDER_LIB) < 0)
			return NULL;
		real = realpath(p, NULL);
		free(p);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

static int mkdir_p(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return -1;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return r;
}

static char *read_small_file(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return strdup(buf);
}

/* Append S to a glob pattern, escaping glob characters. */
static void glob_append(char *out, size_t n, size_t *o, const char *s)
{
	for (; *s && *o + 2 < n; s++) {
		if (strchr("*?[]\\", *s))
			out[(*o)++] = '\\';
		out[(*o)++] = *s;
	}
	out[*o] = '\0';
}

/* The newest regular file matching PATTERN that was modified at or after SINCE, or NULL. */
static char *newest_match(const char *pattern, time_t since)
{
	glob_t g;
	char *best = NULL;
	time_t best_t = 0;
	if (glob(pattern, 0, NULL, &g) != 0)
		return NULL;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		if (stat(g.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime < since)
			continue;
		if (!best || st.st_mtime >= best_t) {
			free(best);
			best = strdup(g.gl_pathv[i]);
			best_t = st.st_mtime;
		}
	}
	globfree(&g);
	return best;
}

/* Where the kernel put the core of PID (COMM), following core_pattern; NULL if not found.
 * *PIPED is set when cores go to a program (e.g. systemd-coredump) instead of a file. */
static char *find_core(pid_t pid, const char *comm, time_t since, char **piped)
{
	char *pattern = read_small_file("/proc/sys/kernel/core_pattern");
	char *uses_pid = read_small_file("/proc/sys/kernel/core_uses_pid");
	char g[PATH_MAX], num[32];
	size_t o = 0;
	bool has_pid = false;
	*piped = NULL;
	if (!pattern)
		pattern = strdup("core");
	if (pattern && pattern[0] == '|') {
		*piped = pattern;
		free(uses_pid);
		return NULL;
	}
	g[0] = '\0';
	for (const char *p = pattern ? pattern : "core"; *p && o + 2 < sizeof(g); p++) {
		if (*p != '%') {
			char one[2] = { *p, 0 };
			glob_append(g, sizeof(g), &o, one);
			continue;
		}
		p++;
		switch (*p) {
		case '\0': p--; break;
		case '%': glob_append(g, sizeof(g), &o, "%"); break;
		case 'p':
		case 'P':
			snprintf(num, sizeof(num), "%d", (int)pid);
			glob_append(g, sizeof(g), &o, num);
			has_pid = true;
			break;
		case 'e': glob_append(g, sizeof(g), &o, comm); break;
		default: g[o++] = '*'; g[o] = '\0'; break; /* time, host, uid…: match anything */
		}
	}
	if (!has_pid && uses_pid && strcmp(uses_pid, "1") == 0 && o + 16 < sizeof(g)) {
		snprintf(num, sizeof(num), ".%d", (int)pid);
		glob_append(g, sizeof(g), &o, num);
	}
	free(pattern);
	free(uses_pid);
	char *core = newest_match(g, since);
	if (!core && !has_pid) {
		/* A plain "core" may have been written with the pid appended anyway. */
		snprintf(g + o, sizeof(g) - o, ".%d", (int)pid);
		core = newest_match(g, since);
	}
	return core;
}

static char *find_snapshot(const char *dir, pid_t pid, time_t since)
{
	char g[PATH_MAX];
	size_t o = 0;
	char tail[64];
	g[0] = '\0';
	glob_append(g, sizeof(g), &o, dir);
	snprintf(tail, sizeof(tail), "/cudainspect-*-%d-*" CI_SNAPSHOT_SUFFIX, (int)pid);
	if (o + strlen(tail) + 1 >= sizeof(g))
		return NULL;
	memcpy(g + o, tail, strlen(tail) + 1);
	char *snap = newest_match(g, since);
	if (snap)
		return snap;
	snprintf(g + o, sizeof(g) - o, "/cudainspect-*-%d" CI_PERSISTENT_SUFFIX, (int)pid);
	return newest_match(g, since);
}

static int prepend_env(const char *name, const char *value, char sep)
{
	const char *old = getenv(name);
	char *v = NULL;
	if (old && *old) {
		if (asprintf(&v, "%s%c%s", value, sep, old) < 0)
			return -1;
	} else {
		v = strdup(value);
	}
	if (!v)
		return -1;
	int r = setenv(name, v, 1);
	free(v);
	return r;
}

int cli_record(int argc, char **argv)
{
	enum { OPT_PRELOAD = 256, OPT_NO_CORE, OPT_PERSISTENT };
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "preload", required_argument, NULL, OPT_PRELOAD },
		{ "no-core", no_argument, NULL, OPT_NO_CORE },
		{ "persistent", no_argument, NULL, OPT_PERSISTENT },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL, *preload = NULL;
	bool no_core = false, json = false, quiet = false, persistent = false;
	int c;
	opterr = 0;
	optind = 1;
	/* "+": stop at the first non-option, which is CMD. */
	while ((c = getopt_long(argc, argv, "+:d:jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case OPT_PRELOAD: preload = optarg; break;
		case OPT_NO_CORE: no_core = true; break;
		case OPT_PERSISTENT: persistent = true; break;
		case 'j': json = true; break;
		case 'q': quiet = true; break;
		case 'h': fputs(record_usage, stdout); return CI_EXIT_OK;
		case ':': return cli_usage_error("record: option '%s' needs an argument",
						 argv[optind - 1]);
		default: return cli_usage_error("record: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("record: no command to run (cudainspect record -- CMD ARGS...)");
	char **cmd = argv + optind;

	char *lib = preload ? realpath(preload, NULL) : find_recorder();
	if (!lib) {
		if (preload)
			cli_error("record: cannot use the recorder library %s: %s", preload,
				  strerror(errno));
		else
			cli_error("record: cannot find %s next to cudainspect or in ../lib; build it "
				  "(make) or pass --preload PATH", RECORDER_LIB);
		return CI_EXIT_USAGE;
	}
	if (dir && mkdir_p(dir) != 0) {
		cli_error("record: cannot create the record directory %s: %s", dir, strerror(errno));
		free(lib);
		return CI_EXIT_USAGE;
	}
	char *absdir = realpath(dir ? dir : ".", NULL);
	if (prepend_env("LD_PRELOAD", lib, ':') != 0 ||
	    (dir && absdir && setenv(SNAPSHOT_DIR_ENV, absdir, 1) != 0) ||
	    (persistent && absdir && setenv(PERSISTENT_DIR_ENV, absdir, 1) != 0)) {
		cli_error("record: cannot set the environment: %s", strerror(errno));
		free(lib);
		free(absdir);
		return CI_EXIT_INTERNAL;
	}
	if (!no_core) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_CORE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && !quiet)
				cli_error("record: note: the hard core-size limit is %llu bytes; a large "
					  "core will be cut short", (unsigned long long)rl.rlim_max);
		}
	}

	time_t start = time(NULL);
	/* Like a shell: ^C goes to CMD, and we stay to report what happened. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		cli_error("record: cannot start %s: %s", cmd[0], strerror(errno));
		free(lib);
		free(absdir);
		return CI_EXIT_INTERNAL;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "cudainspect: record: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			cli_error("record: lost track of %s (pid %d): %s", cmd[0], (int)pid,
				  strerror(errno));
			free(lib);
			free(absdir);
			return CI_EXIT_INTERNAL;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	int rc;
	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
		if (rc != 0 && rc != 127 && !quiet)
			cli_error("record: %s (pid %d) exited with status %d", cmd[0], (int)pid, rc);
		free(lib);
		free(absdir);
		return rc;
	}
	int sig = WTERMSIG(status);
	rc = 128 + sig;
	char comm[16];
	const char *base = strrchr(cmd[0], '/');
	snprintf(comm, sizeof(comm), "%s", base ? base + 1 : cmd[0]);
	char *piped = NULL;
	char *core = WCOREDUMP(status) ? find_core(pid, comm, start, &piped) : NULL;
	if (core) {
		/* An absolute path, so that the commands the report suggests work from anywhere. */
		char *abs = realpath(core, NULL);
		if (abs) {
			free(core);
			core = abs;
		}
	}
	const char *snapdir = getenv(SNAPSHOT_DIR_ENV);
	char *snap = find_snapshot(snapdir ? snapdir : ".", pid, start);
	if (!snap && persistent && absdir)
		snap = find_snapshot(absdir, pid, start);

	cli_error("record: %s (pid %d) was killed by signal %d (%s)%s", cmd[0], (int)pid, sig,
		  strsignal(sig), WCOREDUMP(status) ? " and dumped core" : "");
	if (core)
		cli_error("record: core dump: %s", core);
	else if (piped)
		cli_error("record: the core went to the program in core_pattern (%s); get it with "
			  "`coredumpctl dump %d -o core.zst`", piped, (int)pid);
	else if (WCOREDUMP(status))
		cli_error("record: the core dump was not found where core_pattern says it goes");
	else
		cli_error("record: no core dump was written (core-size limit, or a signal that does "
			  "not dump core)");
	if (snap)
		cli_error("record: record snapshot: %s", snap);

	const char *input = core ? core : snap;
	if (input) {
		fflush(stderr);
		static struct ci_render_options render;
		struct ci_symbolizer_options sym = { 0 };
		render.view = CI_VIEW_SUMMARY;
		render.width = 100;
		struct cli_inspect_args a = { .input = input, .json = json, .quiet = quiet,
					      .render = &render, .sym = &sym };
		unsetenv("DEBUGINFOD_URLS");
		unsetenv("LD_PRELOAD");
		int r = cli_inspect(&a);
		if (r != CI_EXIT_OK)
			cli_error("record: the report could not be made (exit code %d)", r);
	}
	free(core);
	free(piped);
	free(snap);
	free(lib);
	free(absdir);
	return rc;
}
