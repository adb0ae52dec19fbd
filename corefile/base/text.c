/* SPDX-License-Identifier: MIT */
/*
 * The reader's text helpers (reader-internal.h), for every stage: the one scrubber of untrusted
 * strings (what a terminal, a JSON document or a shell must never be handed), the one shell
 * quoting of suggested commands, the number, size and duration formatters, and the growable
 * array.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* Length of the valid UTF-8 sequence at S (1-4), or 0 if S does not start one.  Overlong forms,
 * surrogates and code points above U+10FFFF are invalid. */
/* Length of the valid UTF-8 sequence at S (1-4), or 0 if S does not start one.  Overlong forms,
 * surrogates and code points above U+10FFFF are invalid. */
size_t ci_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)
			return 0;
		if (c == 0xed && s[1] >= 0xa0)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)
			return 0;
		if (c == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

bool ci_utf8_unsafe(const unsigned char *p, size_t l)
{
	if (l == 2)
		/* C1 controls U+0080..U+009F; U+061C ARABIC LETTER MARK. */
		return (p[0] == 0xc2 && p[1] < 0xa0) || (p[0] == 0xd8 && p[1] == 0x9c);
	if (l != 3)
		return false;
	uint32_t cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	/* Zero-width characters and marks, the embeddings and overrides (U+202A..U+202E, the
	 * "Trojan Source" characters), invisible operators, the isolates, the BOM and the
	 * interlinear annotation controls: each changes how a terminal shows the text around it
	 * without showing itself. */
	return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb);
}

char *ci_scrub(const char *s, char *buf, size_t n)
{
	ci_scrub_cut(s, buf, n);
	return buf;
}

bool ci_scrub_cut(const char *s, char *buf, size_t n)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p && o + 1 < n) {
		size_t l = ci_utf8_len(p);
		if (l == 1 && (*p < 0x20 || *p == 0x7f))
			l = 0;
		if (l == 0 || ci_utf8_unsafe(p, l)) {
			buf[o++] = '?';
			p += l ? l : 1;
			continue;
		}
		if (o + l >= n)
			break;
		memcpy(buf + o, p, l);
		o += l;
		p += l;
	}
	buf[o] = '\0';
	return *p != '\0';
}

size_t ci_text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The start of the last character of S[0..LEN) (LEN > 0). */
static size_t last_char(const char *s, size_t len)
{
	do
		len--;
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80);
	return len;
}

char *ci_text_mark_cut(char *s, size_t n)
{
	if (!n)
		return s;
	size_t len = strlen(s);
	while (len > 0 && s[len - 1] == ' ')
		len--;
	while (len > 0 && len + sizeof("…") > n)
		len = last_char(s, len);
	if (len + sizeof("…") > n)
		s[0] = '\0';
	else
		memcpy(s + len, "…", sizeof("…"));
	return s;
}

char *ci_text_fit(char *s, size_t n, size_t width)
{
	if (!n || ci_text_width(s) <= width)
		return s;
	size_t keep = 0;
	for (size_t cols = 0; s[keep] && cols + 1 < width; cols++)
		do
			keep++;
		while (((unsigned char)s[keep] & 0xc0) == 0x80);
	s[width ? keep : 0] = '\0';
	return width ? ci_text_mark_cut(s, n) : s;
}

int ci_vec_reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	void *v = realloc(*arr, n * elem);
	if (!v)
		return -1;
	*arr = v;
	*cap = n;
	return 0;
}

char *ci_fmt_count(uint64_t v, char *buf, size_t n)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;
	for (int i = 0; i < len && o + 1 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0 && o + 2 < n)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

char *ci_fmt_size(uint64_t v, char *buf, size_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (v < 1024) {
		snprintf(buf, n, "%" PRIu64 " B", v);
		return buf;
	}
	double d = (double)v;
	int u = -1;
	while (d >= 1024 && u < 5) {
		d /= 1024;
		u++;
	}
	snprintf(buf, n, "%.1f %s", d, units[u]);
	return buf;
}

char *ci_fmt_duration(uint64_t ns, char *buf, size_t n)
{
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", (double)ns / 1e9);
	return buf;
}

char *ci_scrub_field(const char *field, size_t field_len, char *buf, size_t n)
{
	size_t l = field_len < n - 1 ? field_len : n - 1;
	memcpy(buf, field, l);
	buf[l] = '\0';
	/* Scrubbing never makes a string longer, so it can work in place. */
	return ci_scrub(buf, buf, n);
}

char *ci_shell_quote(const char *s, char *buf, size_t n)
{
	/* Words of these characters mean the same to every shell, and to GDB's argument splitting
	 * (plugin/gdb-input.h), quoted or not. */
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
				   "_@%+=:,./-";
	if (*s && strspn(s, safe) == strlen(s)) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	size_t o = 0;
	for (const char *p = s; o + 6 < n; p++) {
		if (p == s)
			buf[o++] = '\'';
		if (!*p)
			break;
		if (*p == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

const char *ci_signal_name(int sig, char *buf, size_t n)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}
