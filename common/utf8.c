/* SPDX-License-Identifier: MIT */
/* Code points to UTF-8 (utf8.h). */
#include "utf8.h"

size_t ci_utf8_encode(uint32_t cp, uint32_t invalid, char *out)
{
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp >= 0x110000)
		cp = invalid;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 63));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 63));
		out[2] = (char)(0x80 | (cp & 63));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 63));
	out[2] = (char)(0x80 | ((cp >> 6) & 63));
	out[3] = (char)(0x80 | (cp & 63));
	return 4;
}
