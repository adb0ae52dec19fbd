/* SPDX-License-Identifier: MIT */
/*
 * The recorder's few messages ("cudainspect: ..."): where a snapshot went, why it is not
 * recording.  They go to the file CUDAINSPECT_LOG names, or to standard error, but only while
 * descriptor 2 is still the file it was when the recorder was loaded: a program that closes
 * its stderr and opens a data file (or a socket) that gets descriptor 2 must find none of our
 * bytes in it.  Each message checks (one fstat: messages are rare), and writes with one write()
 * call, so the fatal-signal handler can say where its snapshot went.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder.h"
#include "safefile.h"

static dev_t ci_stderr_dev;
static ino_t ci_stderr_ino;
static bool ci_stderr_known;

void ci_messages_init(void)
{
	struct stat st;
	int saved = errno;
	ci_stderr_known = fstat(STDERR_FILENO, &st) == 0;
	if (ci_stderr_known) {
		ci_stderr_dev = st.st_dev;
		ci_stderr_ino = st.st_ino;
	}
	errno = saved;
}

/* One line (with its newline) to the log file or the original stderr.  Async-signal-safe. */
static void ci_emit(const char *line, size_t n)
{
	if (ci_cfg.quiet)
		return;
	int saved = errno;
	if (ci_cfg.log[0]) {
		int fd = ci_sf_open_append(ci_cfg.log);
		if (fd >= 0) {
			ssize_t w = write(fd, line, n);
			(void)w;
			close(fd);
			errno = saved;
			return;
		}
		/* A log that cannot be used safely: the original stderr, if it is still there. */
	}
	struct stat st;
	if (ci_stderr_known && fstat(STDERR_FILENO, &st) == 0 && st.st_dev == ci_stderr_dev &&
	    st.st_ino == ci_stderr_ino) {
		ssize_t w = write(STDERR_FILENO, line, n);
		(void)w;
	}
	errno = saved;
}

void ci_say(const char *fmt, ...)
{
	if (ci_cfg.quiet)
		return;
	int saved = errno;
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "cudainspect: ");
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m >= 0) {
		n += m;
		if ((size_t)n > sizeof buf - 2)
			n = sizeof buf - 2;
		buf[n++] = '\n';
		ci_emit(buf, (size_t)n);
	}
	errno = saved;
}

void ci_say_parts(const char *a, const char *b, const char *c)
{
	if (ci_cfg.quiet)
		return;
	char msg[PATH_MAX + 256];
	size_t n = 0;
	const char *parts[] = { "cudainspect: ", a, b, c, "\n" };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		for (const char *p = parts[i]; p && *p && n + 2 < sizeof msg; p++)
			msg[n++] = *p;
	if (msg[n - 1] != '\n')
		msg[n++] = '\n'; /* cut short: still one line */
	ci_emit(msg, n);
}
