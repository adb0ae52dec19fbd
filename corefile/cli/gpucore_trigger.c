/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect --pid PID --gpu-core-trigger`: ask the CUDA driver inside a live (typically hung)
 * process to write a GPU core dump now, through the pipe it watches when user-triggered dumps
 * are on (CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1; docs/GPUCORE.md, "The driver's cheaper
 * evidence").  The pipe's name is CUDA_COREDUMP_PIPE from the process's environment, else the
 * driver's documented default `corepipe.cuda.HOSTNAME.PID` (relative to the process's working
 * directory); `%h`, `%p` and `%%` are expanded, `%t` (the driver's start time) matches any
 * digits.  The FIFO must be one the process holds open: it is found among /proc/PID/fd and
 * reopened through that descriptor, so a file planted under the name elsewhere is never
 * written.  What is written is 1 MiB of zeros, as vLLM's guide does (`dd if=/dev/zero bs=1M
 * count=1`: a short write may not trigger), within a bounded time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define TRIGGER_BYTES (1u << 20)
#define TRIGGER_TIMEOUT_MS 10000
#define ENVIRON_MAX (4u << 20)
#define DEFAULT_PIPE "corepipe.cuda.%h.%p"

/* The value of NAME in the NUL-separated environment ENV (LEN bytes), or NULL. */
static const char *env_value(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < len;) {
		const char *e = env + i;
		size_t el = strnlen(e, len - i);
		if (el > nl && strncmp(e, name, nl) == 0 && e[nl] == '=')
			return e + nl + 1;
		i += el + 1;
	}
	return NULL;
}

/* /proc/PID/environ, NUL-terminated, into *RET (free it); its length in *LEN.  False after
 * saying why. */
static bool read_environ(pid_t pid, char **ret, size_t *len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		cli_error("--gpu-core-trigger: cannot read the environment of pid %d (%s): %s", (int)pid,
			  path, strerror(errno));
		return false;
	}
	char *buf = malloc(ENVIRON_MAX + 1);
	size_t n = buf ? fread(buf, 1, ENVIRON_MAX, f) : 0;
	fclose(f);
	if (!buf) {
		cli_error("out of memory");
		return false;
	}
	buf[n] = '\0';
	*ret = buf;
	*len = n;
	return true;
}

/* TEMPLATE as an fnmatch pattern for PID: %h the host name, %p the pid, %% a percent sign, %t
 * any digits; the other characters that fnmatch reads are escaped.  Relative to CWD when not
 * absolute.  False when it does not fit. */
static bool pipe_pattern(const char *template, pid_t pid, const char *cwd, char *out, size_t n)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	size_t o = 0;
#define PUT(c) do { if (o + 1 >= n) return false; out[o++] = (c); } while (0)
	if (template[0] != '/') {
		for (const char *c = cwd; *c; c++) {
			if (strchr("*?[\\", *c))
				PUT('\\');
			PUT(*c);
		}
		PUT('/');
	}
	for (const char *t = template; *t; t++) {
		char lit[32];
		const char *s = NULL;
		if (*t == '%' && t[1]) {
			t++;
			if (*t == 'h')
				s = host;
			else if (*t == 'p')
				s = (snprintf(lit, sizeof lit, "%d", (int)pid), lit);
			else if (*t == 't') {
				PUT('[');
				PUT('0');
				PUT('-');
				PUT('9');
				PUT(']');
				PUT('*');
				continue;
			} else if (*t == '%')
				s = "%";
			else {
				PUT('%');
				s = (lit[0] = *t, lit[1] = '\0', lit);
			}
		}
		char one[2] = { *t, '\0' };
		for (const char *c = s ? s : one; *c; c++) {
			if (strchr("*?[\\", *c))
				PUT('\\');
			PUT(*c);
		}
	}
	out[o] = '\0';
	return true;
#undef PUT
}

/* The descriptor of PID that holds a FIFO whose path matches PATTERN: its number, the path in
 * SHOWN; -1 when none. */
static int find_pipe_fd(pid_t pid, const char *pattern, char *shown, size_t n)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int found = -1;
	struct dirent *de;
	while (found < 0 && (de = readdir(d))) {
		char link[PATH_MAX + 80], target[PATH_MAX];
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(link, sizeof link, "%s/%s", dir, de->d_name);
		ssize_t l = readlink(link, target, sizeof target - 1);
		struct stat st;
		if (l <= 0 || stat(link, &st) != 0 || !S_ISFIFO(st.st_mode))
			continue;
		target[l] = '\0';
		if (fnmatch(pattern, target, FNM_PATHNAME) == 0) {
			found = atoi(de->d_name);
			snprintf(shown, n, "%s", target);
		}
	}
	closedir(d);
	return found;
}

/* Write TRIGGER_BYTES zeros to FD (non-blocking) within TRIGGER_TIMEOUT_MS; the bytes written. */
static size_t write_zeros(int fd)
{
	static const char zeros[64 << 10];
	size_t done = 0;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (done < TRIGGER_BYTES) {
		size_t want = TRIGGER_BYTES - done < sizeof zeros ? TRIGGER_BYTES - done : sizeof zeros;
		ssize_t w = write(fd, zeros, want);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			break;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = TRIGGER_TIMEOUT_MS - ((now.tv_sec - start.tv_sec) * 1000 +
						  (now.tv_nsec - start.tv_nsec) / 1000000);
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		if (left <= 0 || poll(&p, 1, (int)left) <= 0 || (p.revents & (POLLERR | POLLHUP)))
			break;
	}
	return done;
}

int cli_gpucore_trigger(pid_t pid, bool quiet)
{
	char *env = NULL;
	size_t len = 0;
	if (!read_environ(pid, &env, &len))
		return CI_EXIT_BAD_INPUT;
	const char *on = env_value(env, len, "CUDA_ENABLE_USER_TRIGGERED_COREDUMP");
	const char *template = env_value(env, len, "CUDA_COREDUMP_PIPE");
	char tbuf[1100], dump[1100];
	snprintf(tbuf, sizeof tbuf, "%s", template && *template ? template : DEFAULT_PIPE);
	const char *file = env_value(env, len, "CUDA_COREDUMP_FILE");
	snprintf(dump, sizeof dump, "%s", file && *file ? file : "core_%t_%h_%p.nvcudmp");
	bool enabled = on && (strcmp(on, "1") == 0 || strcasecmp(on, "true") == 0 || strcasecmp(on, "yes") == 0);
	free(env);

	char cwd_link[64], cwd[PATH_MAX], pattern[2 * PATH_MAX], pipe_path[PATH_MAX];
	snprintf(cwd_link, sizeof cwd_link, "/proc/%d/cwd", (int)pid);
	ssize_t cl = readlink(cwd_link, cwd, sizeof cwd - 1);
	cwd[cl > 0 ? cl : 0] = '\0';
	char shown[300];
	if (!pipe_pattern(tbuf, pid, cwd, pattern, sizeof pattern)) {
		cli_error("--gpu-core-trigger: the pipe's name in pid %d's CUDA_COREDUMP_PIPE is too long",
			  (int)pid);
		return CI_EXIT_BAD_INPUT;
	}
	int fdnum = find_pipe_fd(pid, pattern, pipe_path, sizeof pipe_path);
	if (fdnum < 0) {
		if (!enabled)
			cli_error("--gpu-core-trigger: pid %d has no GPU core pipe open: user-triggered dumps "
				  "are off (CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 is not in its environment; set "
				  "it, with CUDA_COREDUMP_PIPE, before the program starts)", (int)pid);
		else
			cli_error("--gpu-core-trigger: pid %d has user-triggered dumps on, but holds no pipe "
				  "named like %s open (the driver opens it when CUDA initializes)", (int)pid,
				  ci_scrub(tbuf, shown, sizeof shown));
		return CI_EXIT_BAD_INPUT;
	}
	/* Reopened through the process's own descriptor: the very FIFO it reads. */
	char via[80];
	snprintf(via, sizeof via, "/proc/%d/fd/%d", (int)pid, fdnum);
	int fd = open(via, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		cli_error("--gpu-core-trigger: cannot open the GPU core pipe %s of pid %d: %s",
			  ci_scrub(pipe_path, shown, sizeof shown), (int)pid,
			  errno == ENXIO ? "nobody reads it" : strerror(errno));
		return CI_EXIT_BAD_INPUT;
	}
	size_t done = write_zeros(fd);
	close(fd);
	if (done < TRIGGER_BYTES) {
		cli_error("--gpu-core-trigger: wrote %zu of %u bytes to the GPU core pipe %s of pid %d "
			  "before it stopped reading (after %d s)", done, TRIGGER_BYTES,
			  ci_scrub(pipe_path, shown, sizeof shown), (int)pid, TRIGGER_TIMEOUT_MS / 1000);
		return done ? CI_EXIT_OK : CI_EXIT_BAD_INPUT;
	}
	if (!quiet) {
		char d[300];
		cli_error("note: asked pid %d's CUDA driver for a GPU core dump (1 MiB written to %s); it "
			  "writes it to %s (CUDA_COREDUMP_FILE; %%h host, %%p pid, %%t time), then read it with "
			  "`cudainspect GPUCORE`", (int)pid, ci_scrub(pipe_path, shown, sizeof shown),
			  ci_scrub(dump, d, sizeof d));
	}
	return CI_EXIT_OK;
}
