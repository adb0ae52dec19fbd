/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of ci_spool, the copy of a core that arrives through a pipe (`cudainspect -`,
 * --coredump): the copy holds the same bytes, whole zero blocks take no space (st_blocks far
 * below the size, also for zeros at the end, which only the final ftruncate makes part of the
 * file), the --max-core-size bound stops it with its message, and an empty pipe is an error.
 * A child process writes into the pipe, in pieces of odd sizes as a pipe delivers them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source/source.h"
#include "tap.h"

#define MiB (1u << 20)

/* The test input: 3 MiB + 100 bytes of data, 16 MiB of zeros, 1 MiB of data, 20 MiB of zeros. */
static size_t build(uint8_t **ret)
{
	size_t n = 3 * MiB + 100 + 16 * MiB + 1 * MiB + 20 * MiB;
	uint8_t *p = calloc(1, n);
	if (!p)
		abort();
	for (size_t i = 0; i < 3 * MiB + 100; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	for (size_t i = 3 * MiB + 100 + 16 * MiB; i < 3 * MiB + 100 + 17 * MiB; i++)
		p[i] = (uint8_t)(i * 13 + 5);
	*ret = p;
	return n;
}

/* A pipe fed by a child with LEN bytes of P, in writes of 1000 to 70000 bytes. */
static int feed(const uint8_t *p, size_t len, pid_t *child)
{
	int fds[2];
	if (pipe(fds) < 0)
		abort();
	*child = fork();
	if (*child == 0) {
		close(fds[0]);
		size_t off = 0, step = 1000;
		while (off < len) {
			size_t n = len - off < step ? len - off : step;
			ssize_t w = write(fds[1], p + off, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			step = step * 3 % 70000 + 1000;
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static struct ci_error *spool(const uint8_t *p, size_t len, uint64_t limit, int *fd, uint64_t *size)
{
	pid_t child;
	int in = feed(p, len, &child);
	struct ci_source_options so = { .max_core_size = limit };
	struct ci_error *err = ci_spool(in, "standard input", &so, fd, size);
	close(in);
	kill(child, SIGKILL); /* a child the bound left writing */
	waitpid(child, NULL, 0);
	return err;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	uint8_t *p;
	size_t n = build(&p);
	int fd = -1;
	uint64_t size = 0;
	struct ci_error *err = spool(p, n, 0, &fd, &size);
	ok(!err, "a 40 MiB core through a pipe is copied%s%s", err ? ": " : "", err ? err->message : "");
	ci_error_destroy(err);
	is_int(size, n, "the copy's length is the input's");
	struct stat st;
	ok(fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == n, "the file is that long");
	uint8_t *back = malloc(n);
	ok(back && pread(fd, back, n, 0) == (ssize_t)n && memcmp(back, p, n) == 0,
	   "the copy holds the same bytes");
	/* 4 MiB + 100 bytes of data: with holes, well under 8 MiB of blocks (file systems
	 * without holes would hold all 40). */
	ok((uint64_t)st.st_blocks * 512 < 8ull * MiB,
	   "the zero runs are holes: %llu bytes of blocks for a %zu-byte copy",
	   (unsigned long long)st.st_blocks * 512, n);
	if (fd >= 0)
		close(fd);
	free(back);

	fd = -1;
	err = spool(p, n, 1 * MiB, &fd, &size);
	ok(err && err->code == CI_ERR_IO && ci_error_exit(err->code) == CI_EXIT_BAD_INPUT,
	   "--max-core-size 1M stops a 40 MiB input (exit 3)");
	ok(err && strstr(err->message, "more than 1.0 MiB") && strstr(err->message, "--max-core-size"),
	   "... saying the bound and the flag: %s", err ? err->message : "");
	ok(fd == -1, "... and gives no copy");
	ci_error_destroy(err);

	err = spool(p, 1 * MiB, 1 * MiB, &fd, &size);
	ok(!err && size == 1 * MiB, "an input exactly as large as the bound is copied");
	ci_error_destroy(err);
	if (!err)
		close(fd);

	fd = -1;
	err = spool(p, 0, 0, &fd, &size);
	ok(err && err->code == CI_ERR_FORMAT && strstr(err->message, "standard input is empty"),
	   "an empty pipe: %s", err ? err->message : "(no error)");
	ok(fd == -1, "... and gives no copy");
	ci_error_destroy(err);
	free(p);
	return done_testing();
}
