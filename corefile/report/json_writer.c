/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of the reports: the JSON document (render_json.c) and the Chrome trace
 * (render_trace.c) both write through it.  Strings from an input are escaped here and nowhere
 * else, so that no control character, invalid UTF-8 byte or bidirectional control of a hostile
 * record can break a document or reach a terminal through `jq -r`.  Output goes through a private
 * buffer: stdio's per-call locking made a 300 MB document of a large record take seconds.  The
 * layout is compact, one element per line at the top level and in the top-level arrays.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "session.h"

static void j_flush(struct ci_json *j)
{
	if (j->n)
		fwrite(j->buf, 1, j->n, j->f);
	j->n = 0;
}

static inline void j_putc(struct ci_json *j, char c)
{
	if (j->n == CI_JSON_BUF)
		j_flush(j);
	j->buf[j->n++] = c;
}

static void j_write(struct ci_json *j, const char *s, size_t len)
{
	if (j->n + len > CI_JSON_BUF) {
		j_flush(j);
		if (len > CI_JSON_BUF) {
			fwrite(s, 1, len, j->f);
			return;
		}
	}
	memcpy(j->buf + j->n, s, len);
	j->n += len;
}

static void j_puts(struct ci_json *j, const char *s)
{
	j_write(j, s, strlen(s));
}

static void j_put_u64(struct ci_json *j, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);
	do
		tmp[--i] = (char)('0' + v % 10);
	while (v /= 10);
	j_write(j, tmp + i, sizeof(tmp) - (size_t)i);
}

/* Write S as a JSON string: valid UTF-8 passes through, invalid bytes become U+FFFD, control
 * characters are escaped. */
static void j_string_raw(struct ci_json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	j_putc(j, '"');
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			j_putc(j, '\\');
			j_putc(j, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			static const char hexd[] = "0123456789abcdef";
			switch (c) {
			case '\n': j_puts(j, "\\n"); break;
			case '\t': j_puts(j, "\\t"); break;
			case '\r': j_puts(j, "\\r"); break;
			default:
				j_puts(j, "\\u00");
				j_putc(j, hexd[c >> 4]);
				j_putc(j, hexd[c & 15]);
				break;
			}
			p++;
		} else if (c < 0x80) {
			/* A run that needs no escape (printable ASCII but 0x22 '"' and 0x5c backslash) goes
			 * out in one copy: keys, names, paths. */
			const unsigned char *run = p;
			static const bool plain[256] = { [0x20 ... 0x21] = true, [0x23 ... 0x5b] = true,
							 [0x5d ... 0x7e] = true };
			while (plain[*p])
				p++;
			j_write(j, (const char *)run, (size_t)(p - run));
		} else {
			size_t l = ci_utf8_len(p);
			/* C1 controls and bidirectional controls are valid UTF-8 but must not reach a
			 * terminal through jq -r. */
			if (l == 0 || ci_utf8_unsafe(p, l)) {
				j_puts(j, "\\ufffd");
				p += l ? l : 1;
			} else {
				j_write(j, (const char *)p, l);
				p += l;
			}
		}
	}
	j_putc(j, '"');
}

static void j_sep(struct ci_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			j_putc(j, ',');
		/* One element per line at the top level and in the top-level arrays. */
		if (j->depth <= 2)
			j_putc(j, '\n');
		j->first[j->depth] = false;
	}
	if (key) {
		j_string_raw(j, key);
		j_putc(j, ':');
	}
}

void ci_json_begin(struct ci_json *j, FILE *f)
{
	j->f = f;
	j->n = 0;
	j->depth = 0;
	j->first[0] = true;
	ci_json_open(j, NULL, false);
}

struct ci_error *ci_json_end(struct ci_json *j, const char *what)
{
	ci_json_close(j);
	j_putc(j, '\n');
	j_flush(j);
	if (fflush(j->f) != 0 || ferror(j->f))
		return ci_error_create(CI_ERR_IO, "cannot write the %s: %m", what);
	return NULL;
}

void ci_json_open(struct ci_json *j, const char *key, bool array)
{
	j_sep(j, key);
	j_putc(j, array ? '[' : '{');
	if (j->depth + 1 < CI_JSON_DEPTH_MAX) {
		j->depth++;
		j->first[j->depth] = true;
		j->array[j->depth] = array;
	}
}

void ci_json_close(struct ci_json *j)
{
	bool array = j->array[j->depth];
	bool empty = j->first[j->depth];
	j->depth--;
	if (!empty && j->depth <= 1)
		j_putc(j, '\n');
	j_putc(j, array ? ']' : '}');
}

void ci_json_str(struct ci_json *j, const char *key, const char *s)
{
	j_sep(j, key);
	if (s)
		j_string_raw(j, s);
	else
		j_puts(j, "null");
}

void ci_json_u64(struct ci_json *j, const char *key, uint64_t v)
{
	j_sep(j, key);
	j_put_u64(j, v);
}

void ci_json_i64(struct ci_json *j, const char *key, int64_t v)
{
	j_sep(j, key);
	if (v < 0) {
		j_putc(j, '-');
		j_put_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		j_put_u64(j, (uint64_t)v);
	}
}

void ci_json_thousandths(struct ci_json *j, const char *key, uint64_t v)
{
	char frac[5];
	j_sep(j, key);
	j_put_u64(j, v / 1000);
	snprintf(frac, sizeof frac, ".%03u", (unsigned)(v % 1000));
	j_puts(j, frac);
}

void ci_json_bool(struct ci_json *j, const char *key, bool v)
{
	j_sep(j, key);
	j_puts(j, v ? "true" : "false");
}

void ci_json_null(struct ci_json *j, const char *key)
{
	j_sep(j, key);
	j_puts(j, "null");
}

void ci_json_hex(struct ci_json *j, const char *key, uint64_t v)
{
	static const char hexd[] = "0123456789abcdef";
	char tmp[20];
	int i = sizeof(tmp);
	do
		tmp[--i] = hexd[v & 15];
	while (v >>= 4);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	j_sep(j, key);
	j_putc(j, '"');
	j_write(j, tmp + i, sizeof(tmp) - (size_t)i);
	j_putc(j, '"');
}

void ci_json_addr(struct ci_json *j, const char *key, uint64_t v)
{
	char hk[64];
	ci_json_u64(j, key, v);
	snprintf(hk, sizeof(hk), "%s_hex", key);
	ci_json_hex(j, hk, v);
}
