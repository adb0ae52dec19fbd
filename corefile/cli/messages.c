/* SPDX-License-Identifier: MIT */
/*
 * What every piece of the `cudainspect` command says and parses the same way: "cudainspect:
 * <message>" on stderr, usage errors with a pointer to --help, numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

__attribute__((format(printf, 1, 0))) static void vsay(const char *fmt, va_list ap,
						      const char *tail)
{
	fputs("cudainspect: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap, "\n");
	va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap, "\nTry 'cudainspect --help'.\n");
	va_end(ap);
	return CI_EXIT_USAGE;
}

bool cli_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

char *cli_shell_word(const char *s, char *buf, size_t n)
{
	bool plain = *s != '\0';
	for (const char *p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("_./=:+,@%-", *p);
	size_t o = 0;
	if (plain) {
		snprintf(buf, n, "%s", s);
		return buf;
	}
	/* 'it'\''s': single quotes, each quote in S closed, escaped and reopened. */
	for (const char *p = s; o + 6 < n && (p == s || p[-1]); p++) {
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
