/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the input side of the reader (errors, source*, locate,
 * decode, names) and its fuzzers: the bounds-checked byte cursor that every parser of untrusted
 * bytes goes through, overflow-checked size arithmetic, scope cleanup helpers, and the layout of
 * struct ci_source.  Nothing here is part of the public API (include/cudainspect/cudainspect.h).
 */
#ifndef CI_READER_INTERNAL_H
#define CI_READER_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"

/* ---------------------------------------------------------------------------------------- */
/* Scope cleanup                                                                              */

static inline void ci_freep(void *p) { free(*(void **)p); }
static inline void ci_closep(int *fd) { if (*fd >= 0) close(*fd); }
#define _cleanup_free_ __attribute__((cleanup(ci_freep)))
#define _cleanup_close_ __attribute__((cleanup(ci_closep)))
/* Hand a cleanup-owned pointer to someone else. */
#define ci_steal(p) ({ __typeof__(p) p_ = (p); (p) = NULL; p_; })

/* ---------------------------------------------------------------------------------------- */
/* Size arithmetic on untrusted values                                                        */

/* r = a + b, false on overflow. */
static inline bool ci_add(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }
/* r = a * b, false on overflow. */
static inline bool ci_mul(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
/* Whether [off, off + len) lies inside [0, size). */
static inline bool ci_range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* ---------------------------------------------------------------------------------------- */
/* Bounds-checked little-endian reader                                                        */

/* A cursor over bytes that may be hostile.  Every read checks the remaining length; a failed
 * read leaves the cursor at the end and sets `bad`, so a parser can read a run of fields and
 * check once. */
struct ci_bytes {
	const uint8_t *p;
	size_t len;
	size_t pos;
	bool bad;
};

static inline struct ci_bytes ci_bytes_make(const void *p, size_t len)
{
	return (struct ci_bytes){ .p = p, .len = len };
}
static inline size_t ci_bytes_left(const struct ci_bytes *b) { return b->len - b->pos; }
static inline bool ci_bytes_fail(struct ci_bytes *b)
{
	b->bad = true;
	b->pos = b->len;
	return false;
}
static inline bool ci_bytes_skip(struct ci_bytes *b, uint64_t n)
{
	if (n > ci_bytes_left(b))
		return ci_bytes_fail(b);
	b->pos += n;
	return true;
}
static inline bool ci_bytes_seek(struct ci_bytes *b, uint64_t pos)
{
	if (pos > b->len)
		return ci_bytes_fail(b);
	b->pos = pos;
	return true;
}
/* Copy n bytes out (the only way to get at a multi-byte structure). */
static inline bool ci_bytes_copy(struct ci_bytes *b, void *out, size_t n)
{
	if (n > ci_bytes_left(b)) {
		memset(out, 0, n);
		return ci_bytes_fail(b);
	}
	memcpy(out, b->p + b->pos, n);
	b->pos += n;
	return true;
}
/* Borrow n bytes in place as a sub-cursor. */
static inline bool ci_bytes_sub(struct ci_bytes *b, uint64_t n, struct ci_bytes *sub)
{
	if (n > ci_bytes_left(b)) {
		*sub = ci_bytes_make(NULL, 0);
		return ci_bytes_fail(b);
	}
	*sub = ci_bytes_make(b->p + b->pos, n);
	b->pos += n;
	return true;
}

#define CI_BYTES_LE(bits)                                                                    \
	static inline bool ci_bytes_u##bits(struct ci_bytes *b, uint##bits##_t *v)           \
	{                                                                                    \
		uint8_t raw[bits / 8];                                                       \
		uint##bits##_t x = 0;                                                        \
		if (!ci_bytes_copy(b, raw, sizeof raw)) {                                    \
			*v = 0;                                                              \
			return false;                                                        \
		}                                                                            \
		for (int i = (int)sizeof raw - 1; i >= 0; i--)                               \
			x = (uint##bits##_t)(x << 8 | raw[i]);                                \
		*v = x;                                                                      \
		return true;                                                                 \
	}
CI_BYTES_LE(16)
CI_BYTES_LE(32)
CI_BYTES_LE(64)
#undef CI_BYTES_LE

static inline bool ci_bytes_u8(struct ci_bytes *b, uint8_t *v) { return ci_bytes_copy(b, v, 1); }

/* A NUL-terminated string inside the remaining bytes; the cursor moves past the NUL.  *s points
 * into the input, which stays owned by the caller. */
static inline bool ci_bytes_cstr(struct ci_bytes *b, const char **s, size_t *slen)
{
	const uint8_t *start = b->p + b->pos;
	const uint8_t *nul = memchr(start, 0, ci_bytes_left(b));
	if (!nul) {
		*s = NULL;
		return ci_bytes_fail(b);
	}
	*s = (const char *)start;
	if (slen)
		*slen = (size_t)(nul - start);
	b->pos += (size_t)(nul - start) + 1;
	return true;
}

/* Little-endian loads from a buffer already known to be long enough (our own copies). */
static inline uint64_t ci_le64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v; /* x86-64 and aarch64 readers only: the record and the cores are little-endian */
}

/* ---------------------------------------------------------------------------------------- */
/* Caps on counts in hostile input (docs/READER-INTERNALS.md, "Caps").                        */

#define CI_MAX_NOTES          (1u << 20)
#define CI_MAX_THREADS        65536u
#define CI_MAX_MAPPINGS       (1u << 20)
#define CI_MAX_SEGMENTS       (1u << 22)   /* PT_LOADs; PN_XNUM allows 2^32 */
#define CI_MAX_SECTIONS       256u         /* record section directory */
#define CI_MAX_RECORD_SIZE    (64ull << 30)
#define CI_MAX_HEADER_SIZE    (64u << 10)
#define CI_MAX_ENTRY_SIZE     (64u << 10)
#define CI_MAX_STACK_FRAMES   1024u
#define CI_MAX_CANDIDATES     64u          /* records considered by locate */

/* ---------------------------------------------------------------------------------------- */
/* Sources                                                                                    */

/* One range of the process's address space as the input holds it: [start, end) of which the
 * first `captured` bytes are at file offset `offset` of the image; the rest was not dumped or is
 * past the end of a truncated file. */
struct ci_segment {
	uint64_t start, end;
	uint64_t offset;
	uint64_t captured;
	uint32_t flags;           /* PF_R/PF_W/PF_X for cores, the same bits for /proc maps */
	uint32_t index;           /* program header number (cores), for messages */
};

struct ci_source {
	struct ci_source_info info;
	struct ci_warnings warnings;
	struct ci_source_options opts;
	char *name;               /* for messages: the path, "pid 1234" or "buffer" */

	int fd;                   /* the file behind image (decompressed copy for .zst), or -1 */
	const uint8_t *image;     /* the input's bytes: mmap of the file or an owned copy */
	size_t image_size;
	bool image_mapped;        /* munmap() at close */
	void *owned_image;        /* free()d at close (buffer copies) */

	struct ci_segment *segs;  /* sorted by start, non-overlapping */
	size_t seg_count;

	struct Elf *elf;          /* libelf handle for core inputs (for libdwfl), or NULL */
	bool live;                /* reads may change between calls (pid, persistent file) */

	/* Core details used by locate. */
	uint64_t auxv_entry;      /* AT_ENTRY, 0 if unknown */

	/* Live process. */
	pid_t pid;
	int mem_fd;               /* /proc/PID/mem fallback, -1 until needed */
	bool vm_readv_failed;     /* process_vm_readv is not permitted: use mem_fd */

	uint64_t max_decompressed;/* cap for zstd output (fuzzers), 0 = none */
	bool decompressed;        /* image is our decompressed copy: never decompress twice */
	uint64_t progress_ns;     /* when progress was last printed; 0 = nothing on screen */
	unsigned refs;            /* the opener's, plus one per lazy model (ci_source_hold) */
};

/* source.c */
struct ci_error *ci_source_new(enum ci_source_kind kind, const char *name,
			       const struct ci_source_options *opts, struct ci_source **ret);
/* Another reference to SRC, released by ci_source_close (which closes at the last one). */
struct ci_source *ci_source_hold(struct ci_source *src);
/* Open SIZE bytes at IMAGE as if they were a file's content (the core fuzzer's entry point).
 * The caller keeps IMAGE alive until ci_source_close and until every lazy model decoded from it
 * is destroyed.  A zstd image decompresses to at most
 * MAX_DECOMPRESSED bytes (0 = no limit). */
struct ci_error *ci_source_open_memory(const char *name, const uint8_t *image, size_t size,
				       const struct ci_source_options *opts,
				       uint64_t max_decompressed, struct ci_source **ret);
struct ci_error *ci_source_add_segment(struct ci_source *src, const struct ci_segment *seg);
/* Sort segments by address and drop overlapping ones with a warning. */
void ci_source_sort_segments(struct ci_source *src);
/* The segment holding ADDR, or NULL. */
const struct ci_segment *ci_source_segment(const struct ci_source *src, uint64_t addr);
/* Pointer to LEN captured bytes at ADDR inside the image, or NULL (not captured, spans a
 * segment boundary, or a live pid). */
const uint8_t *ci_source_peek(const struct ci_source *src, uint64_t addr, size_t len);
/* The pages wholly inside [P, P + LEN) of a mapped image are not needed for a while: give
 * them back (the file keeps them; a later read maps them again).  Nothing for other images. */
void ci_source_release(const struct ci_source *src, const uint8_t *p, size_t len);
/* Bytes readable from ADDR on without a gap, up to MAX. */
uint64_t ci_source_available(struct ci_source *src, uint64_t addr, uint64_t max);
/* Progress on stderr when opts.progress is set: DONE of TOTAL units of WHAT; total 0 ends it. */
void ci_progress(struct ci_source *src, const char *what, uint64_t done, uint64_t total);

/* source_elf.c: parse SRC->image as an ELF core (kernel or gcore). */
struct ci_error *ci_source_load_core(struct ci_source *src);
/* source_zstd.c: decompress IMAGE into an unlinked temporary file; *fd_ret is its descriptor. */
struct ci_error *ci_source_decompress(struct ci_source *src, const uint8_t *image, size_t size,
				      int *fd_ret, uint64_t *size_ret);
bool ci_is_zstd(const uint8_t *image, size_t size);
/* source_pid.c: the live-process reader. */
struct ci_error *ci_source_read_pid(struct ci_source *src, uint64_t addr, void *buf, size_t len);
/* The first 8 bytes of COUNT pages from ADDR on; returns how many were readable (stops at the
 * first unreadable page). */
size_t ci_source_pid_page_heads(struct ci_source *src, uint64_t addr, uint64_t page_size,
				size_t count, uint64_t *heads);

/* decode.c: header plausibility, shared with locate's magic scan. */
bool ci_header_plausible(const struct ci_header *h, const char **why);

/* errors.c */
void ci_warnings_vadd(struct ci_warnings *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Human-readable size ("1.5 GiB") into BUF. */
const char *ci_format_size(uint64_t bytes, char *buf, size_t n);

#endif /* CI_READER_INTERNAL_H */
