/* SPDX-License-Identifier: MIT */
/*
 * Code points to UTF-8: the names the recorder copies out of Python string objects and the ones
 * the reader reads out of a core (the same bytes on both sides), and the escapes of a kernel
 * log's JSON lines (common/).
 */
#ifndef CI_COMMON_UTF8_H
#define CI_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Write code point CP as UTF-8 at OUT (room for 4 bytes); returns the bytes written, 1 to 4.
 * A value that is no character (a surrogate U+D800..U+DFFF, or past U+10FFFF) is written as
 * INVALID instead: '?' where a name is copied, U+FFFD where a log's escapes are decoded.
 * U+0000 is written as a NUL byte: a caller that makes a C string replaces it first. */
size_t ci_utf8_encode(uint32_t cp, uint32_t invalid, char *out);

#endif /* CI_COMMON_UTF8_H */
