/* SPDX-License-Identifier: MIT */
/*
 * A core that arrives through a pipe (`coredumpctl dump PID | cudainspect -`, `zstd -dc
 * core.zst | cudainspect -`, or coredumpctl's output for --coredump): copied once into an
 * unlinked temporary file, the same kind of copy a .zst core is decompressed into
 * (source_zstd.c), so that it is then opened, mapped and told apart by content like any file.
 * Whole blocks of zeros become holes: a core's untouched regions take no space.  The copy is
 * bounded like a decompressed core: by --max-core-size (64 GiB by default), by the free space of
 * the temporary directory's file system and by the file size limit, each with its own message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

/* Reads fill the buffer before it is written, so that writes start at multiples of its size
 * and every zero block left out is a whole block of the file. */
#define SPOOL_CHUNK (1u << 20)
/* Progress is worth a line only for an input that takes a while. */
#define SPOOL_PROGRESS_FROM (256ull << 20)

/* Fill BUF from FD: up to N bytes, fewer only at the end of the input.  -1 with errno. */
static ssize_t read_full(int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "cudainspect: reading standard input: 1.2 GiB", at most five times a second; TOTAL 0 ends it. */
static void progress(const char *name, uint64_t total, bool end, uint64_t *last_ns)
{
	if (end) {
		if (*last_ns)
			fputs("\r\033[K", stderr);
		*last_ns = 0;
		return;
	}
	uint64_t now = now_ns();
	if (*last_ns && now - *last_ns < 200000000u)
		return;
	*last_ns = now;
	char sz[32];
	fprintf(stderr, "\r\033[Kcudainspect: reading %s: %s", name, ci_fmt_size(total, sz, sizeof sz));
	fflush(stderr);
}

static struct ci_error *over_limit(const struct ci_scratch *bg)
{
	char lim[32];
	return ci_error_create(CI_ERR_IO,
			       "%s holds more than %s, the bound on a core read from a pipe "
			       "(--max-core-size); reading stopped there. If it is a real core, raise "
			       "the bound with --max-core-size SIZE (or 'unlimited'), or save the core to "
			       "a file and pass that",
			       bg->name, ci_fmt_size(bg->limit, lim, sizeof lim));
}

static struct ci_error *write_error(const struct ci_scratch *bg, int e, uint64_t total)
{
	char lim[32], have[32];
	if (e == EFBIG)
		return ci_error_create(CI_ERR_IO,
				       "the copy of %s would be larger than the file size limit of %s "
				       "(ulimit -f); nothing past it was written. Raise it (ulimit -f "
				       "unlimited), or save the core to a file and pass that",
				       bg->name, ci_fmt_size(bg->fsize, lim, sizeof lim));
	return ci_error_create(CI_ERR_IO,
			       "cannot write the copy of %s to %s after %s (%s); set TMPDIR to a file "
			       "system with more space, or save the core to a file and pass that",
			       bg->name, bg->where, ci_fmt_size(total, have, sizeof have), strerror(e));
}

/* The copy, as far as it goes, into FD; *TOTAL its length. */
static struct ci_error *spool_copy(int in, int fd, struct ci_scratch *bg, bool show,
				   uint8_t *buf, uint64_t *total)
{
	uint64_t shown_ns = 0;
	struct ci_error *err = NULL;
	for (;;) {
		ssize_t n = read_full(in, buf, SPOOL_CHUNK);
		if (n < 0) {
			err = ci_error_create(CI_ERR_IO, "cannot read %s after %" PRIu64 " bytes: %s",
					      bg->name, *total, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if ((uint64_t)n > bg->limit - *total) {
			err = over_limit(bg);
			break;
		}
		if ((uint64_t)n > bg->fsize - *total) {
			err = write_error(bg, EFBIG, *total);
			break;
		}
		if (ci_scratch_write(fd, buf, (size_t)n, *total, &bg->written) < 0) {
			err = write_error(bg, errno, *total);
			break;
		}
		*total += (uint64_t)n;
		if ((err = ci_scratch_check_space(bg, fd, *total)))
			break;
		if (show && *total >= SPOOL_PROGRESS_FROM)
			progress(bg->name, *total, false, &shown_ns);
		if ((size_t)n < SPOOL_CHUNK)
			break;
	}
	if (show)
		progress(bg->name, 0, true, &shown_ns);
	return err;
}

struct ci_error *ci_spool(int in, const char *name, const struct ci_source_options *opts,
			  int *fd_ret, uint64_t *size_ret)
{
	struct ci_scratch bg = {
		.name = name,
		.doing = "reading",
		.done = "read",
		.instead = "save the core to a file and pass that",
		.limit = opts && opts->max_core_size ? opts->max_core_size : CI_DEFAULT_MAX_CORE_SIZE,
		.fsize = ci_scratch_fsize_limit(),
	};
	const char *where;
	_cleanup_close_ int fd = ci_scratch_open(&where);
	if (fd < 0)
		return ci_error_create(CI_ERR_IO,
				       "cannot create a temporary file to copy %s into (%s); set TMPDIR to "
				       "a writable directory", name, strerror(errno));
	bg.where = where;
	bg.check_space = strcmp(where, CI_SCRATCH_MEMFD) != 0;
	_cleanup_free_ uint8_t *buf = malloc(SPOOL_CHUNK);
	if (!buf)
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", name);
	uint64_t total = 0;
	struct ci_xfsz_hold hold;
	ci_xfsz_hold(&hold);
	struct ci_error *err = spool_copy(in, fd, &bg, opts && opts->progress, buf, &total);
	/* The size is set last: the holes at the end are part of the core. */
	if (!err && ftruncate(fd, (off_t)total) < 0)
		err = write_error(&bg, errno, total);
	ci_xfsz_release(&hold);
	if (err)
		return err;
	if (total == 0)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is empty: nothing came through the pipe, so there is no core to "
				       "read. Pipe a core into it, e.g. coredumpctl dump PID | "
				       "cudainspect -",
				       name);
	*fd_ret = fd;
	fd = -1;
	*size_ret = total;
	return NULL;
}
