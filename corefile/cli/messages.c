/* SPDX-License-Identifier: MIT */
/*
 * What every piece of the `cudainspect` command says and parses the same way: "cudainspect:
 * <message>" on stderr, usage errors with a pointer to --help, numbers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
