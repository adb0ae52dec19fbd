/* SPDX-License-Identifier: MIT */
/*
 * zstd-compressed inputs (systemd-coredump writes cores as core.*.zst): decompress, streaming,
 * into an unlinked temporary file in $TMPDIR, so that the core is then mmapped and indexed like
 * any other and nothing is left behind.  Blocks of zeros become holes, which keeps the copy
 * small for cores with large untouched regions.  A stream cut short (a copy that stopped, a full
 * disk) keeps what decompressed and marks the source truncated, as a plain core cut short is;
 * corrupt data is an error.  Progress goes to stderr when the front end asks for it.
 *
 * A small file can expand without end (a 731 KB stream holds 20 GB of one repeated byte), so
 * the copy is bounded: by the decompressed size (ci_source_options.max_core_size, 64 GiB by
 * default; refused at once when the frame header declares more), by the free space of the
 * temporary directory's filesystem (checked as the copy grows: it stops while 5% of the
 * filesystem, at most 1 GiB, is still free), and by the file size limit (ulimit -f), whose
 * SIGXFSZ is held off in this thread so that the write fails with EFBIG instead of killing
 * the reader.  Each has its own message (CI_ERR_IO, exit 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "source.h"

#define ZSTD_OUT_CHUNK (4u << 20)
#define HOLE_BLOCK 4096u
/* How often (bytes really written) the free space is looked at again, and what is left free. */
#define SPACE_CHECK_EVERY (16u << 20)
#define SPACE_RESERVE_MAX (1ull << 30)
#define SPACE_RESERVE_PERCENT 5u

bool ci_is_zstd(const uint8_t *image, size_t size)
{
	return size >= 4 && image[0] == 0x28 && image[1] == 0xb5 && image[2] == 0x2f && image[3] == 0xfd;
}

int ci_scratch_open(const char **where)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	*where = dir;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/cudainspect-XXXXXX", dir) < sizeof path) {
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0) {
			unlink(path);
			return fd;
		}
	}
	*where = CI_SCRATCH_MEMFD;
	return memfd_create("cudainspect-core", MFD_CLOEXEC);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zeros[HOLE_BLOCK];
	return n == HOLE_BLOCK && memcmp(p, zeros, n) == 0;
}

int ci_scratch_write(int fd, const uint8_t *p, size_t n, uint64_t off, uint64_t *written)
{
	size_t i = 0;
	while (i < n) {
		size_t len = n - i < HOLE_BLOCK ? n - i : HOLE_BLOCK;
		if (!all_zero(p + i, len)) {
			/* Merge consecutive non-zero blocks into one write. */
			size_t run = len;
			while (i + run < n) {
				size_t next = n - i - run < HOLE_BLOCK ? n - i - run : HOLE_BLOCK;
				if (all_zero(p + i + run, next))
					break;
				run += next;
			}
			size_t done = 0;
			while (done < run) {
				ssize_t w = pwrite(fd, p + i + done, run - done, (off_t)(off + i + done));
				if (w < 0) {
					if (errno == EINTR)
						continue;
					return -1;
				}
				done += (size_t)w;
			}
			*written += run;
			len = run;
		}
		i += len;
	}
	return 0;
}

static char *size_text(uint64_t v, char *buf, size_t n)
{
	return ci_fmt_size(v, buf, n);
}

static struct ci_error *over_limit(const struct ci_scratch *bg, uint64_t declared)
{
	char lim[32], got[32];
	const char *next = "If it is a real core, raise the bound with --max-core-size SIZE (or "
			   "'unlimited'), or decompress it yourself with 'zstd -d' and pass the result";
	if (declared)
		return ci_error_create(CI_ERR_IO,
				       "%s would decompress to %s (its zstd frame header says so), more than "
				       "%s, the bound on decompressed cores; nothing was decompressed. %s",
				       bg->src->name, size_text(declared, got, sizeof got),
				       size_text(bg->limit, lim, sizeof lim), next);
	return ci_error_create(CI_ERR_IO,
			       "%s decompresses to more than %s, the bound on decompressed cores (a small "
			       ".zst can expand without end); decompression stopped there. %s",
			       bg->src->name, size_text(bg->limit, lim, sizeof lim), next);
}

uint64_t ci_scratch_fsize_limit(void)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
		       ? (uint64_t)rl.rlim_cur : UINT64_MAX;
}

/* SIZE: what the frame header declares, or 0 when the copy grew past the limit. */
static struct ci_error *over_fsize(const struct ci_scratch *bg, uint64_t size)
{
	char lim[32], sz[32], got[48] = "";
	if (size)
		snprintf(got, sizeof got, " (%s)", size_text(size, sz, sizeof sz));
	return ci_error_create(CI_ERR_IO,
			       "the decompressed copy of %s%s would be larger than the file size limit "
			       "of %s (ulimit -f); nothing past it was written. Raise it (ulimit -f "
			       "unlimited), or decompress the core yourself with 'zstd -d' where the "
			       "limit allows and pass the result",
			       bg->src->name, got, size_text(bg->fsize, lim, sizeof lim));
}

struct ci_error *ci_scratch_check_space(struct ci_scratch *bg, int fd, uint64_t total)
{
	if (!bg->check_space || bg->written < bg->next_check)
		return NULL;
	bg->next_check = bg->written + SPACE_CHECK_EVERY;
	struct statvfs vfs;
	if (fstatvfs(fd, &vfs) < 0 || vfs.f_frsize == 0)
		return NULL;
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	uint64_t fs = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	uint64_t reserve = fs / 100 * SPACE_RESERVE_PERCENT;
	if (reserve > SPACE_RESERVE_MAX)
		reserve = SPACE_RESERVE_MAX;
	if (avail >= reserve + SPACE_CHECK_EVERY)
		return NULL;
	char done[32], left[32], kept[32];
	return ci_error_create(CI_ERR_IO,
			       "%s %s would fill the file system of %s: %s of it %s (%s written), and "
			       "only %s is still free, which cudainspect leaves to others (it stops "
			       "while %u%% of the file system, at most 1 GiB, is free); set TMPDIR to a "
			       "file system with more space, or %s",
			       bg->doing, bg->name, bg->where, bg->done, size_text(total, done, sizeof done),
			       size_text(bg->written, kept, sizeof kept), size_text(avail, left, sizeof left),
			       SPACE_RESERVE_PERCENT, bg->instead);
}

static struct ci_error *write_error(const struct ci_scratch *bg, int e, uint64_t total, uint64_t want)
{
	(void)want;
	if (e == EFBIG)
		return over_fsize(bg, 0);
	char have[32];
	return ci_error_create(CI_ERR_IO,
			       "cannot write the decompressed copy of %s to %s after %s (%s); set "
			       "TMPDIR to a filesystem with more space, or run 'zstd -d' yourself and "
			       "pass the result",
			       bg->src->name, bg->where, size_text(total, have, sizeof have), strerror(e));
}

void ci_xfsz_hold(struct ci_xfsz_hold *h)
{
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &set, &h->old);
	h->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

void ci_xfsz_release(struct ci_xfsz_hold *h)
{
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGXFSZ);
	if (!h->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
		struct timespec zero = { 0, 0 };
		sigtimedwait(&set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &h->old, NULL);
}

struct ci_error *ci_source_decompress(struct ci_source *src, const uint8_t *image, size_t size,
				      int *fd_ret, uint64_t *size_ret)
{
	struct ci_scratch bg = { .src = src, .name = src->name, .limit = src->max_decompressed,
				 .doing = "decompressing", .done = "decompressed",
				 .instead = "decompress the core yourself with 'zstd -d' and pass the result" };
	bg.fsize = ci_scratch_fsize_limit();
	/* A frame that declares its size is refused before anything is written. */
	unsigned long long declared = ZSTD_getFrameContentSize(image, size);
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR) {
		if (declared > bg.limit)
			return over_limit(&bg, declared);
		if (declared > bg.fsize)
			return over_fsize(&bg, declared);
	}
	const char *where;
	_cleanup_close_ int fd = ci_scratch_open(&where);
	if (fd < 0)
		return ci_error_create(CI_ERR_IO,
				       "cannot create a temporary file to decompress %s (%s); set TMPDIR to a "
				       "writable directory", src->name, strerror(errno));
	bg.where = where;
	bg.check_space = strcmp(where, CI_SCRATCH_MEMFD) != 0;
	ZSTD_DStream *zs = ZSTD_createDStream();
	if (!zs)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decompressing %s", src->name);
	_cleanup_free_ uint8_t *out = malloc(ZSTD_OUT_CHUNK);
	if (!out) {
		ZSTD_freeDStream(zs);
		return ci_error_create(CI_ERR_NOMEM, "out of memory decompressing %s", src->name);
	}
	ZSTD_initDStream(zs);
	ZSTD_inBuffer in = { image, size, 0 };
	uint64_t total = 0;
	size_t last = 1;
	struct ci_error *err = NULL;
	struct ci_xfsz_hold hold;
	ci_xfsz_hold(&hold);
	for (;;) {
		ZSTD_outBuffer ob = { out, ZSTD_OUT_CHUNK, 0 };
		last = ZSTD_decompressStream(zs, &ob, &in);
		if (ZSTD_isError(last)) {
			ZSTD_ErrorCode code = ZSTD_getErrorCode(last);
			if (code == ZSTD_error_frameParameter_windowTooLarge)
				err = ci_error_create(CI_ERR_CORRUPT,
						      "%s needs a larger zstd window than cudainspect allows; "
						      "decompress it with 'zstd -d --memory=2048MB' and pass the result",
						      src->name);
			else
				err = ci_error_create(CI_ERR_CORRUPT,
						      "%s: the zstd data is corrupt near compressed offset %zu (%s); "
						      "the file is damaged",
						      src->name, in.pos, ZSTD_getErrorName(last));
			break;
		}
		if (ob.pos) {
			if (total + ob.pos > bg.limit) {
				err = over_limit(&bg, 0);
				break;
			}
			if (total + ob.pos > bg.fsize) {
				err = over_fsize(&bg, 0);
				break;
			}
			if (ci_scratch_write(fd, out, ob.pos, total, &bg.written) < 0) {
				err = write_error(&bg, errno, total, total + ob.pos);
				break;
			}
			total += ob.pos;
			if ((err = ci_scratch_check_space(&bg, fd, total)))
				break;
		}
		ci_progress(src, "decompressing", in.pos, in.size);
		/* With all input consumed: a frame that ended (`last` 0) is done, since zstd takes
		 * its last byte only once all its output is out, and calling again would start a new
		 * frame and overwrite `last` (a core whose size is a multiple of the output buffer
		 * used to be called truncated).  A frame cut short may still hold decoded bytes that
		 * did not fit into the output buffer: call again until it has room to spare. */
		if (in.pos == in.size && (last == 0 || ob.pos < ob.size))
			break;
	}
	ci_progress(src, "decompressing", 0, 0);
	ZSTD_freeDStream(zs);
	if (!err && last != 0 && total == 0)
		err = ci_error_create(CI_ERR_CORRUPT,
				      "%s: the zstd stream ends before its first block is complete; the "
				      "compressed file is truncated and holds nothing that can be read",
				      src->name);
	if (!err && total == 0)
		err = ci_error_create(CI_ERR_FORMAT, "%s decompresses to nothing (0 bytes)", src->name);
	/* The size is set last: the holes at the end are part of the core. */
	if (!err && ftruncate(fd, (off_t)total) < 0)
		err = errno == EFBIG ? over_fsize(&bg, 0)
				     : ci_error_create(CI_ERR_IO, "cannot size the decompressed copy of %s: %s",
						       src->name, strerror(errno));
	ci_xfsz_release(&hold);
	if (err)
		return err;
	if (last != 0) {
		/* Cut, not corrupt: keep what decompressed, as for a plain core cut short. */
		char have[32];
		src->info.truncated = true;
		ci_warnings_add(&src->warnings,
				"%s: the zstd stream ends in the middle of a frame (the compressed file is "
				"truncated); reading the %s that decompressed, and whatever the core "
				"held past them is missing",
				src->name, ci_fmt_size(total, have, sizeof have));
	}
	*fd_ret = fd;
	fd = -1;
	*size_ret = total;
	return NULL;
}
