/* SPDX-License-Identifier: MIT */
/*
 * Code points to UTF-8, for the names the recorder copies out of Python string objects and the
 * ones the reader reads out of a core: the same bytes on both sides (common/).
 */
#ifndef CI_COMMON_UTF8_H
#define CI_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Write code point CP as UTF-8 at OUT (room for 4 bytes); returns the bytes written, 1 to 4.
 * What no text should hold becomes '?': U+0000 (it would end the string), the surrogates
 * U+D800..U+DFFF, and values past U+10FFFF. */
size_t ci_utf8_encode(uint32_t cp, char *out);

#endif /* CI_COMMON_UTF8_H */
