/* SPDX-License-Identifier: MIT */
/*
 * Stage 1, opening an input: only a regular file (ci_open_regular, memory.c), mapped, then told
 * apart by content, never by name: a zstd file is decompressed once (source_zstd.c) and told
 * apart again, an ELF core is parsed (source_elf.c), a record file is one segment, anything else
 * is refused with what it looks like.  Buffers (GDB's JIT entry, fuzzers) are copied.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "source.h"

static struct ci_error *source_setup_record(struct ci_source *src)
{
	src->info.kind = CI_SOURCE_RECORD;
	struct ci_segment seg = {
		.start = 0, .end = src->image_size, .offset = 0, .captured = src->image_size,
		.flags = 4 /* PF_R */,
	};
	struct ci_error *err = ci_source_add_segment(src, &seg);
	if (err)
		return err;
	if (src->image_size >= sizeof(struct ci_header)) {
		struct ci_header h;
		memcpy(&h, src->image, sizeof h);
		src->info.pid = h.pid;
		/* A persistent file of a process that may still be running changes under us: read
		 * it like a live process (copy, then re-check seq). */
		src->live = h.origin == CI_ORIGIN_PERSISTENT && h.state == CI_STATE_LIVE;
	}
	return NULL;
}

/* Names for the first bytes of common non-core files, so the message can say what it is. */
static const char *sniff_format(const uint8_t *p, size_t n)
{
	static const struct { const char *magic; size_t len; const char *what; } known[] = {
		{ "\x1f\x8b", 2, "a gzip file; decompress it first (gunzip)" },
		{ "\xfd" "7zXZ\0", 6, "an xz file; decompress it first (unxz)" },
		{ "\x04\x22\x4d\x18", 4, "an lz4 file (systemd-coredump can write these); decompress it first (lz4 -d)" },
		{ "BZh", 3, "a bzip2 file; decompress it first (bunzip2)" },
		{ "PK\x03\x04", 4, "a zip archive" },
		{ "NVIDIA", 6, "possibly a CUDA GPU core dump, which this version does not read" },
		{ "#!", 2, "a script" },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (n >= known[i].len && memcmp(p, known[i].magic, known[i].len) == 0)
			return known[i].what;
	size_t text = 0, look = n < 256 ? n : 256;
	for (size_t i = 0; i < look; i++)
		text += (p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\t' || p[i] == '\r';
	if (look && text == look)
		return "a text file";
	return NULL;
}

/* Decide what the image holds and set SRC up for it. */
static struct ci_error *source_setup(struct ci_source *src)
{
	const uint8_t *p = src->image;
	size_t n = src->image_size;
	if (n == 0)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is empty (0 bytes): not a core dump or record file. A core written "
				       "while the disk was full or with a core size limit of 0 looks like this",
				       src->name);
	if (ci_is_zstd(p, n)) {
		if (src->decompressed)
			return ci_error_create(CI_ERR_FORMAT,
					       "%s decompresses to another zstd stream; cudainspect decompresses "
					       "one level only. Decompress it with 'zstd -d' first",
					       src->name);
		int fd = -1;
		uint64_t size = 0;
		struct ci_error *err = ci_source_decompress(src, p, n, &fd, &size);
		if (err)
			return err;
		/* The compressed image is not read again: only the copy needs the guard. */
		ci_source_guard_remove(src);
		void *map = size ? ci_source_map(src, fd, size, MAP_PRIVATE) : NULL;
		if (size && !map) {
			int e = errno;
			close(fd);
			return ci_error_create(CI_ERR_IO, "%s: cannot map the decompressed core (%s)",
					       src->name, strerror(e));
		}
		if (src->image_mapped)
			munmap((void *)src->image, src->image_size);
		if (src->fd >= 0)
			close(src->fd);
		src->fd = fd;
		src->image = map;
		src->image_size = size;
		src->image_mapped = size != 0;
		src->decompressed = true;
		src->info.compressed = true;
		return source_setup(src);
	}
	if (n >= 4 && memcmp(p, "\x7f" "ELF", 4) == 0)
		return ci_source_load_core(src);
	if (n >= CI_RECORD_MAGIC_LEN && memcmp(p, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0)
		return source_setup_record(src);
	const char *what = sniff_format(p, n);
	char hex[3 * 8 + 1] = "";
	for (size_t i = 0; i < n && i < 8; i++)
		snprintf(hex + 3 * i, sizeof hex - 3 * i, "%02x ", p[i]);
	if (*hex)
		hex[strlen(hex) - 1] = 0;
	return ci_error_create(CI_ERR_FORMAT,
			       "%s is not a core dump or a cudainspect record file%s%s (it starts with %s%s). "
			       "Give an ELF core (plain or .zst), a .cisnap snapshot or a .cirec record",
			       src->name, what ? ": it looks like " : "", what ? what : "", hex,
			       src->info.compressed ? " after decompression" : "");
}

/* Why PATH, of mode MODE, cannot be an input; NULL for a regular file.  Only regular files are
 * read: they are mapped, and read where needed; a FIFO, socket or terminal would have to be read
 * to its end first (and opening a FIFO waits for a writer), a device is not a core. */
static const char *not_regular_reason(mode_t mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "is a directory, not a core dump or record file";
	if (S_ISFIFO(mode))
		return "is a pipe (FIFO), and cudainspect reads only regular files, which it maps instead "
		       "of reading them whole; save the core to a file first (e.g. coredumpctl dump PID "
		       "-o core, or redirect the pipe into a file)";
	if (S_ISSOCK(mode))
		return "is a socket; cudainspect reads only regular files: save the core to a file first";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "is a device, not a core dump or record file; give a regular file (e.g. "
		       "coredumpctl dump PID -o core)";
	return "is not a regular file; save the core to a file first (e.g. coredumpctl dump PID -o core)";
}

static struct ci_error *open_error(const char *path, int e)
{
	if (e == ENOENT)
		return ci_error_create(CI_ERR_IO, "%s: no such file", path);
	if (e == EACCES)
		return ci_error_create(CI_ERR_IO,
				       "%s: permission denied; cores are often readable by root only "
				       "(try sudo or fix the file's mode)", path);
	return ci_error_create(CI_ERR_IO, "cannot open %s: %s", path, strerror(e));
}

struct ci_error *ci_source_open(const char *path, const struct ci_source_options *opts,
				struct ci_source **ret)
{
	if (!path || !*path)
		return ci_error_create(CI_ERR_USAGE, "no input file given");
	/* A copy of standard input or of coredumpctl's output is opened by its /proc/self/fd name
	 * but called what the user gave (ci_spool). */
	const char *given = opts && opts->name ? opts->name : path;
	const char *shown = strcmp(given, "-") == 0 ? "standard input" : given;
	struct ci_source *src;
	struct ci_error *err = ci_source_new(CI_SOURCE_CORE, shown, opts, &src);
	if (err)
		return err;
	src->info.path = strdup(given);
	if (!src->info.path) {
		ci_source_close(src);
		return ci_error_create(CI_ERR_NOMEM, "out of memory opening %s", shown);
	}
	/* Opening a FIFO waits for a writer, opening a device can act: only a regular file is
	 * ever opened (ci_open_regular), whatever the path turns into meanwhile. */
	unsigned mode = 0;
	const char *why;
	src->fd = ci_open_regular(path, &mode);
	if (src->fd < 0) {
		int e = errno;
		ci_source_close(src);
		if (e == EINVAL && (why = not_regular_reason(mode)) != NULL)
			return ci_error_create(CI_ERR_IO, "%s %s", shown, why);
		return open_error(shown, e);
	}
	struct stat st;
	if (fstat(src->fd, &st) < 0) {
		int e = errno;
		ci_source_close(src);
		return ci_error_create(CI_ERR_IO, "cannot stat %s: %s", shown, strerror(e));
	}
	if (st.st_size > 0) {
		/* MAP_SHARED so that a persistent record file of a running process is seen as it
		 * is now; we never write. */
		void *map = ci_source_map(src, src->fd, (size_t)st.st_size, MAP_SHARED);
		if (!map) {
			int e = errno;
			ci_source_close(src);
			return ci_error_create(CI_ERR_IO, "cannot map %s: %s", shown, strerror(e));
		}
		src->image = map;
		src->image_size = (size_t)st.st_size;
		src->image_mapped = true;
	}
	err = source_setup(src);
	if (err) {
		ci_source_close(src);
		return err;
	}
	*ret = src;
	return NULL;
}

struct ci_error *ci_source_open_memory(const char *name, const uint8_t *image, size_t size,
				       const struct ci_source_options *opts,
				       uint64_t max_decompressed, struct ci_source **ret)
{
	struct ci_source *src;
	struct ci_error *err = ci_source_new(CI_SOURCE_CORE, name, opts, &src);
	if (err)
		return err;
	src->image = image;
	src->image_size = size;
	if (max_decompressed)
		src->max_decompressed = max_decompressed;
	err = source_setup(src);
	if (err) {
		ci_source_close(src);
		return err;
	}
	*ret = src;
	return NULL;
}

struct ci_error *ci_source_from_buffer(const void *buf, size_t len, uint64_t base,
				       struct ci_source **ret)
{
	uint64_t end;
	if (!ci_add(base, len, &end))
		return ci_error_create(CI_ERR_USAGE,
				       "a buffer of %zu bytes at 0x%llx would wrap around the address space",
				       len, (unsigned long long)base);
	struct ci_source *src;
	struct ci_error *err = ci_source_new(CI_SOURCE_BUFFER, "buffer", NULL, &src);
	if (err)
		return err;
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		ci_source_close(src);
		return ci_error_create(CI_ERR_NOMEM, "out of memory copying a %zu-byte buffer", len);
	}
	if (len)
		memcpy(copy, buf, len);
	src->image = copy;
	src->image_size = len;
	/* Owned copy: ci_source_close frees it through the segment-less path below. */
	struct ci_segment seg = { .start = base, .end = end, .offset = 0, .captured = len, .flags = 4 };
	if (len)
		err = ci_source_add_segment(src, &seg);
	if (err) {
		free(copy);
		src->image = NULL;
		ci_source_close(src);
		return err;
	}
	src->owned_image = copy;
	*ret = src;
	return NULL;
}
