/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the reader's output side (diagnose.c, symbolize.c, render_text.c,
 * render_json.c): cached symbolization of recorded stacks, demangling, kernel and stream labels,
 * number formatting and the scrubbing of strings that come from untrusted records.
 */
#ifndef CUDAINSPECT_RENDER_INTERNAL_H
#define CUDAINSPECT_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"

/* Frames for ADDRESS from the symbolizer's cache (computed on first use).  The frames belong to
 * the symbolizer; NULL with *n = 0 when SYM is NULL or on out-of-memory. */
const struct ci_frame *ci_symbolize_cached(struct ci_symbolizer *sym, uint64_t address,
					   bool is_return, size_t *n);

/* Make room for NEED elements of ELEM bytes in the growable array *ARR of capacity *CAP
 * (doubling).  Returns -1 on out-of-memory, leaving the array as it was. */
int ci_vec_reserve(void **arr, size_t *cap, size_t need, size_t elem);

/* Demangled C++ name (malloc'd) or NULL when NAME is not mangled or no demangler is available
 * (libstdc++'s __cxa_demangle, loaded on first use). */
char *ci_demangle(const char *name);

/* Copy S into BUF (size N > 0) for a terminal or a JSON string: valid UTF-8 is kept, control
 * characters and invalid bytes become '?'.  Returns BUF. */
char *ci_scrub(const char *s, char *buf, size_t n);
/* Length of the valid UTF-8 sequence at S (1-4), 0 if S does not start one (S is NUL-terminated). */
size_t ci_utf8_len(const unsigned char *s);

/* "262,144" */
char *ci_fmt_count(uint64_t v, char *buf, size_t n);
/* "256.0 KiB" style, exact bytes below 1 KiB */
char *ci_fmt_size(uint64_t v, char *buf, size_t n);
/* "1.234 ms", "12.3 s": a duration in nanoseconds */
char *ci_fmt_duration(uint64_t ns, char *buf, size_t n);

/* The kernel name of launch L, demangled and scrubbed, or "<unknown function 0x…>". */
char *ci_launch_kernel_name(const struct ci_model *model, const struct ci_launch *l, char *buf,
			    size_t n);
/* NAME without its parameter list ("decode::matvec(float const*, int)" -> "decode::matvec"),
 * for tables; template arguments are kept. */
char *ci_kernel_short_name(const char *name, char *buf, size_t n);
/* "stream 0x55d0c0a0", "legacy stream", "per-thread stream of 4242", "stream ?" */
char *ci_stream_label(const struct ci_model *model, uint32_t slot, char *buf, size_t n);
/* Scrub a fixed-size record field (FIELD_LEN bytes, not necessarily NUL-terminated). */
char *ci_scrub_field(const char *field, size_t field_len, char *buf, size_t n);
#define CI_SCRUB_FIELD(field, buf) ci_scrub_field((field), sizeof(field), (buf), sizeof(buf))
/* Thread name from the record's thread table, scrubbed, or "" */
char *ci_thread_name(const struct ci_model *model, uint32_t tid, char *buf, size_t n);
/* The stream slot is valid and was published. */
bool ci_stream_valid(const struct ci_model *model, uint32_t slot);

/* Signal name ("SIGSEGV") or "signal N". */
const char *ci_signal_name(int sig, char *buf, size_t n);

/* The latest monotonic time the record knows: the fatal/exit time, else the newest entry. */
uint64_t ci_model_end_ns(const struct ci_model *model);

#endif /* CUDAINSPECT_RENDER_INTERNAL_H */
