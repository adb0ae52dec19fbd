/* SPDX-License-Identifier: MIT */
/*
 * zstd-compressed inputs (systemd-coredump writes cores as core.*.zst): decompress, streaming,
 * into an unlinked temporary file in $TMPDIR, so that the core is then mmapped and indexed like
 * any other and nothing is left behind.  Blocks of zeros become holes, which keeps the copy
 * small for cores with large untouched regions.  A stream cut short (a copy that stopped, a full
 * disk) keeps what decompressed and marks the source truncated, as a plain core cut short is;
 * corrupt data is an error.  Progress goes to stderr when the front end asks for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "reader-internal.h"

#define ZSTD_OUT_CHUNK (4u << 20)
#define HOLE_BLOCK 4096u

bool ci_is_zstd(const uint8_t *image, size_t size)
{
	return size >= 4 && image[0] == 0x28 && image[1] == 0xb5 && image[2] == 0x2f && image[3] == 0xfd;
}

/* An unlinked file in $TMPDIR (O_TMPFILE, else mkstemp + unlink), else a memfd. */
static int open_scratch(const char **where)
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
	*where = "memory (memfd)";
	return memfd_create("cudainspect-core", MFD_CLOEXEC);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zeros[HOLE_BLOCK];
	return n == HOLE_BLOCK && memcmp(p, zeros, n) == 0;
}

/* Write N bytes at OFF, leaving whole zero blocks as holes. */
static int write_sparse(int fd, const uint8_t *p, size_t n, uint64_t off)
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
			len = run;
		}
		i += len;
	}
	return 0;
}

struct ci_error *ci_source_decompress(struct ci_source *src, const uint8_t *image, size_t size,
				      int *fd_ret, uint64_t *size_ret)
{
	const char *where;
	_cleanup_close_ int fd = open_scratch(&where);
	if (fd < 0)
		return ci_error_create(CI_ERR_IO,
				       "cannot create a temporary file to decompress %s (%s); set TMPDIR to a "
				       "writable directory", src->name, strerror(errno));
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
			if (src->max_decompressed && total + ob.pos > src->max_decompressed) {
				err = ci_error_create(CI_ERR_CORRUPT,
						      "%s decompresses to more than %llu bytes, the limit here",
						      src->name, (unsigned long long)src->max_decompressed);
				break;
			}
			if (write_sparse(fd, out, ob.pos, total) < 0) {
				char need[32];
				int e = errno;
				err = ci_error_create(CI_ERR_IO,
						      "cannot write the decompressed copy of %s to %s after %s (%s); "
						      "set TMPDIR to a filesystem with more space, or run "
						      "'zstd -d' yourself and pass the result",
						      src->name, where, ci_format_size(total, need, sizeof need),
						      strerror(e));
				break;
			}
			total += ob.pos;
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
	if (err)
		return err;
	if (last != 0 && total == 0)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: the zstd stream ends before its first block is complete; the "
				       "compressed file is truncated and holds nothing that can be read",
				       src->name);
	if (last != 0) {
		/* Cut, not corrupt: keep what decompressed, as for a plain core cut short. */
		char have[32];
		src->info.truncated = true;
		ci_warnings_add(&src->warnings,
				"%s: the zstd stream ends in the middle of a frame (the compressed file is "
				"truncated); reading the %s that decompressed, and whatever the core "
				"held past them is missing",
				src->name, ci_format_size(total, have, sizeof have));
	}
	if (total == 0)
		return ci_error_create(CI_ERR_FORMAT, "%s decompresses to nothing (0 bytes)", src->name);
	if (ftruncate(fd, (off_t)total) < 0)
		return ci_error_create(CI_ERR_IO, "cannot size the decompressed copy of %s: %s",
				       src->name, strerror(errno));
	*fd_ret = fd;
	fd = -1;
	*size_ret = total;
	return NULL;
}
