/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: the helpers of every stage (corefile/base/).  The bounds-checked
 * byte cursor that every parser of untrusted bytes goes through, overflow-checked size arithmetic,
 * scope cleanup helpers, the text helpers (the one scrubber, quoting, numbers), the caps on counts
 * in hostile input, the demangler and signal names.  Nothing here is part of the public API
 * (include/cudainspect/cudainspect.h).
 */
#ifndef CI_BASE_H
#define CI_BASE_H

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
/* Text (text.c): the one scrubber, quoting, numbers, growable arrays                         */

/* Make room for NEED elements of ELEM bytes in the growable array *ARR of capacity *CAP
 * (doubling).  Returns -1 on out-of-memory, leaving the array as it was. */
int ci_vec_reserve(void **arr, size_t *cap, size_t need, size_t elem);

/* Length of the valid UTF-8 sequence at S (1-4), 0 if S does not start one (S is NUL-terminated). */
size_t ci_utf8_len(const unsigned char *s);

/* Whether the valid L-byte UTF-8 sequence at P is a character a terminal must not be handed:
 * a C1 control or a bidirectional or invisible formatting character (U+202E and its kin). */
bool ci_utf8_unsafe(const unsigned char *p, size_t l);

/* ci_shell_quote is in the public header: the CLI quotes the words of the commands it suggests
 * with it too. */

/* "262,144" */
char *ci_fmt_count(uint64_t v, char *buf, size_t n);

/* "256.0 KiB" style, exact bytes below 1 KiB */
char *ci_fmt_size(uint64_t v, char *buf, size_t n);

/* "1.234 ms", "12.3 s": a duration in nanoseconds */
char *ci_fmt_duration(uint64_t ns, char *buf, size_t n);

/* ci_scrub (cudainspect.h), saying whether S was cut short to fit BUF (N bytes). */
bool ci_scrub_cut(const char *s, char *buf, size_t n);

/* Number of code points in S: its display width, near enough for names and paths. */
size_t ci_text_width(const char *s);

/* End S, a string cut short in a buffer of N bytes, with "…": after it where there is room,
 * else in place of as many of its last characters as that needs (never half a character);
 * trailing spaces go first. */
char *ci_text_mark_cut(char *s, size_t n);

/* Cut S (in a buffer of N bytes) to WIDTH columns if it is wider: its first WIDTH - 1
 * characters and "…" (WIDTH 0: nothing).  Returns S. */
char *ci_text_fit(char *s, size_t n, size_t width);

/* Scrub a fixed-size record field (FIELD_LEN bytes, not necessarily NUL-terminated). */
char *ci_scrub_field(const char *field, size_t field_len, char *buf, size_t n);
#define CI_SCRUB_FIELD(field, buf) ci_scrub_field((field), sizeof(field), (buf), sizeof(buf))

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
#define CI_MAX_STACK_FRAMES   CI_STACK_FRAMES_MAX  /* record.h: native and Python frames */
#define CI_MAX_CANDIDATES     64u          /* records considered by locate */
#define CI_MAX_MODULES        8192u        /* ELF modules reported to libdwfl */
#define CI_MAX_MODULE_PHDRS   256u         /* program headers of one module, read from memory */
#define CI_MAX_MODULE_NOTES   (64u << 10)  /* bytes of one module's notes searched for a build-id */
#define CI_MAX_VDSO_SIZE      (1u << 20)   /* the vDSO image copied for libdwfl */
/* Default bound on what a .zst input may decompress to (ci_source_options.max_core_size). */
#define CI_DEFAULT_MAX_CORE_SIZE (64ull << 30)
/* Registers kept per NT_PRSTATUS thread: x86-64 user_regs_struct (27), aarch64 user_pt_regs (34). */
#define CI_PRSTATUS_NREGS     34u

/* Signal name ("SIGSEGV") or "signal N". */
const char *ci_signal_name(int sig, char *buf, size_t n);

/* demangle.c: the demangled C++ name (malloc'd) or NULL when NAME is not mangled or no demangler
 * is available (libstdc++'s __cxa_demangle, loaded on first use). */
char *ci_demangle(const char *name);
/* The element size of pointer parameter INDEX (from 0) of the demangled kernel NAME
 * ("attn(float const*, __half*, int)": 0 -> 4 "float", 1 -> 2 "__half"), with the element type
 * in TYPE; 0 when the parameter is no pointer to a scalar or vector type of a known size. */
uint32_t ci_param_element(const char *name, uint32_t index, char *type, size_t n);

/* errors.c */
void ci_warnings_vadd(struct ci_warnings *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* CI_BASE_H */
