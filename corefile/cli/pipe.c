/* SPDX-License-Identifier: MIT */
/*
 * Cores that arrive through a pipe: `cudainspect -` reads one from standard input, and
 * `--coredump PID|MATCH` has systemd's coredumpctl write the newest matching core into a pipe.
 * Either is copied once into an unlinked temporary file (ci_spool: sparse, bounded by
 * --max-core-size), which the report then opens as /proc/self/fd/N like any core file, under
 * the name the user gave.  coredumpctl runs from PATH with an argv, never through a shell; what
 * it says about the crash (its `info` block, which `dump` prints on stderr) gives the one line
 * printed before the report and the reason when there is no core to read.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* What coredumpctl may say about one crash that we keep; more is cut. */
#define COREDUMPCTL_SAY_MAX (64u << 10)

/* The name a spooled copy is opened by (ci_source_open follows it to the copy itself). */
static char *fd_path(int fd)
{
	char *path = NULL;
	if (asprintf(&path, "/proc/self/fd/%d", fd) < 0)
		return NULL;
	return path;
}

/* Report a library error and give its exit code. */
static int fail(struct ci_error *err)
{
	int code = (int)ci_error_exit(err->code);
	cli_error("%s", err->message);
	ci_error_destroy(err);
	return code;
}

int cli_spool_stdin(const struct ci_source_options *so, char **path_ret)
{
	if (isatty(STDIN_FILENO))
		return cli_usage_error("standard input is a terminal; pipe a core into it "
				       "(coredumpctl dump PID | cudainspect -, zstd -dc core.zst | "
				       "cudainspect -)");
	int fd = -1;
	uint64_t size = 0;
	struct ci_error *err = ci_spool(STDIN_FILENO, "standard input", so, &fd, &size);
	if (err)
		return fail(err);
	if (!(*path_ret = fd_path(fd))) {
		close(fd);
		cli_error("out of memory");
		return CI_EXIT_INTERNAL;
	}
	return 0; /* the copy stays open, and so readable, until the process ends */
}

/* The value of "FIELD: value" in coredumpctl's info block, into BUF (empty when absent). */
static void info_field(const char *say, const char *field, char *buf, size_t n)
{
	size_t flen = strlen(field);
	*buf = '\0';
	for (const char *p = say; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		while (*p == ' ')
			p++;
		if (strncmp(p, field, flen) == 0 && p[flen] == ':' && p[flen + 1] == ' ') {
			const char *v = p + flen + 2, *e = strchrnul(v, '\n');
			size_t o = 0;
			for (; v < e && o + 1 < n; v++) {
				if (*v == '\033') { /* a color, should one come through: up to its 'm' */
					while (v + 1 < e && *v != 'm')
						v++;
					continue;
				}
				buf[o++] = *v;
			}
			buf[o] = '\0';
			return;
		}
	}
}

/* The last line coredumpctl printed that is not part of the info block: its error. */
static void last_message(const char *say, char *buf, size_t n)
{
	*buf = '\0';
	for (const char *p = say; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		/* The info block and its Message's stack trace are indented; errors are not. */
		const char *e = strchrnul(p, '\n');
		if (e > p && *p != ' ')
			snprintf(buf, n, "%.*s", (int)(e - p), p);
	}
}

/* Run coredumpctl with ARGV, its standard output into *OUT_FD (a pipe, read by the caller)
 * and its standard error into SAY_FD.  Its pid, or -1 after saying why (errno ENOENT: not
 * installed). */
static pid_t start_coredumpctl(char *const argv[], int *out_fd, int say_fd)
{
	int out[2], report[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(report, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
		    dup2(say_fd, STDERR_FILENO) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		/* Plain text: no colors, no pager, whatever the user's settings. */
		setenv("SYSTEMD_COLORS", "0", 1);
		setenv("SYSTEMD_LOG_COLOR", "0", 1);
		unsetenv("SYSTEMD_PAGER");
		execvp(argv[0], argv);
		int e = errno;
		(void)!write(report[1], &e, sizeof e);
		_exit(127);
	}
	int e = errno;
	close(out[1]);
	close(report[1]);
	if (pid < 0) {
		close(out[0]);
		close(report[0]);
		errno = e;
		return -1;
	}
	ssize_t n;
	while ((n = read(report[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n == (ssize_t)sizeof e) {
		close(out[0]);
		waitpid(pid, NULL, 0);
		errno = e;
		return -1;
	}
	*out_fd = out[0];
	return pid;
}

/* What coredumpctl said, NUL-terminated (at most COREDUMPCTL_SAY_MAX bytes), from SAY_FD. */
static char *read_say(int say_fd)
{
	char *say = calloc(1, COREDUMPCTL_SAY_MAX + 1);
	if (!say)
		return NULL;
	ssize_t n = pread(say_fd, say, COREDUMPCTL_SAY_MAX, 0);
	say[n > 0 ? n : 0] = '\0';
	return say;
}

/* Why there is no core to read, from the info block and coredumpctl's error; an exit code. */
static int no_core(const char *match, const char *say, int status)
{
	char storage[512], msg[512], pid[128];
	info_field(say, "Storage", storage, sizeof storage);
	info_field(say, "PID", pid, sizeof pid);
	last_message(say, msg, sizeof msg);
	if (strstr(say, "No match found") || strstr(say, "No coredumps found"))
		cli_error("--coredump %s: no core dump that systemd-coredump recorded matches it "
			  "(coredumpctl: %s); 'coredumpctl list' shows the ones there are", match,
			  *msg ? msg : "no match");
	else if (strcmp(storage, "none") == 0 || strstr(say, "has no core attached"))
		cli_error("--coredump %s: systemd-coredump recorded the crash of pid %s but did not "
			  "keep its core (Storage: none): it was larger than ProcessSizeMax= or "
			  "ExternalSizeMax=, or Storage=none, in coredump.conf. Raise them, or run the "
			  "program under 'cudainspect record' for a core of its own", match,
			  *pid ? pid : "?");
	else if (strstr(storage, "(missing)"))
		cli_error("--coredump %s: the core systemd-coredump kept is gone (%s); it was "
			  "probably cleaned up (systemd-tmpfiles, MaxUse= in coredump.conf)", match,
			  storage);
	else if (strstr(storage, "(inaccessible)"))
		cli_error("--coredump %s: the core is not readable by this user (%s); try sudo",
			  match, storage);
	else if (WIFEXITED(status))
		cli_error("--coredump %s: coredumpctl failed (exit %d)%s%s", match,
			  WEXITSTATUS(status), *msg ? ": " : "", msg);
	else
		cli_error("--coredump %s: coredumpctl was killed by signal %d", match,
			  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return CI_EXIT_BAD_INPUT;
}

/* "coredump: pid 4242 (engine), /usr/bin/engine, signal 11 (SEGV), at TIME", on OUT. */
static void say_crash(FILE *out, const char *say)
{
	char pid[128], exe[1024], sig[64], when[128], storage[512];
	info_field(say, "PID", pid, sizeof pid);
	info_field(say, "Executable", exe, sizeof exe);
	info_field(say, "Signal", sig, sizeof sig);
	info_field(say, "Timestamp", when, sizeof when);
	info_field(say, "Storage", storage, sizeof storage);
	fprintf(out, "coredump: pid %s%s%s%s%s%s%s%s\n", *pid ? pid : "?", *exe ? ", " : "", exe,
		*sig ? ", signal " : "", sig, *when ? ", at " : "", when,
		strstr(storage, "(truncated)") ? ", stored truncated" : "");
	fflush(out);
}

int cli_coredump(const char *match, const struct ci_source_options *so, bool json, char **path_ret)
{
	char *argv[] = { "coredumpctl", "--no-pager", "-1", "dump", "--", (char *)match, NULL };
	int say_fd = memfd_create("coredumpctl-stderr", MFD_CLOEXEC);
	if (say_fd < 0) {
		cli_error("--coredump: cannot make a file for coredumpctl's messages: %s",
			  strerror(errno));
		return CI_EXIT_INTERNAL;
	}
	int out = -1;
	pid_t pid = start_coredumpctl(argv, &out, say_fd);
	if (pid < 0) {
		int e = errno;
		close(say_fd);
		if (e == ENOENT)
			cli_error("--coredump needs systemd's coredumpctl, which is not on PATH (Debian: "
				  "apt install systemd-coredump); without it, save the core yourself and "
				  "give the file, or pipe it in: ... | cudainspect -");
		else
			cli_error("--coredump: cannot run coredumpctl: %s", strerror(e));
		return CI_EXIT_BAD_INPUT;
	}
	char name[300];
	snprintf(name, sizeof name, "coredump %s", match);
	int fd = -1;
	uint64_t size = 0;
	struct ci_error *err = ci_spool(out, name, so, &fd, &size);
	close(out);
	if (err)
		kill(pid, SIGTERM); /* it may be blocked writing what we no longer read */
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	char *say = read_say(say_fd);
	close(say_fd);
	int rc = 0;
	if (!say) {
		ci_error_destroy(err);
		cli_error("out of memory");
		rc = CI_EXIT_INTERNAL;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* The bound, not coredumpctl, stopped it: say that; else why coredumpctl failed. */
		if (err && err->code != CI_ERR_FORMAT) {
			rc = fail(err);
		} else {
			ci_error_destroy(err);
			rc = no_core(match, say, status);
		}
	} else if (err) {
		rc = fail(err);
	}
	if (rc) {
		free(say);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	say_crash(json ? stderr : stdout, say);
	free(say);
	if (!(*path_ret = fd_path(fd))) {
		close(fd);
		cli_error("out of memory");
		return CI_EXIT_INTERNAL;
	}
	return 0;
}
