/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the helpers the recorder and the reader share (common/): the size parser that
 * reads CUDAINSPECT_SIZE and --max-core-size, and the UTF-8 encoder of Python names.  One copy,
 * tested once.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/tap.h"
#include "size.h"
#include "utf8.h"

static void size_is(const char *s, unsigned long long want)
{
	uint64_t v = 12345;
	bool ok_ = ci_size_parse(s, &v);
	if (!ok(ok_ && v == want, "size '%s' is %llu", s, want))
		printf("# got %s %llu\n", ok_ ? "true" : "false", (unsigned long long)v);
}

static void size_bad(const char *s)
{
	uint64_t v = 12345;
	ok(!ci_size_parse(s, &v) && v == 12345, "'%s' is not a size, and nothing is written", s);
}

static void utf8_is(uint32_t cp, const char *want)
{
	char out[5] = { 0 };
	size_t n = ci_utf8_encode(cp, '?', out);
	if (!ok(n == strlen(want) && memcmp(out, want, n) == 0, "U+%04X as UTF-8", cp))
		printf("# got %zu bytes\n", n);
}

int main(void)
{
	size_is("0", 0);
	size_is("4096", 4096);
	size_is("64K", 64ull << 10);
	size_is("64M", 64ull << 20);
	size_is("64m", 64ull << 20);
	size_is("64MiB", 64ull << 20);
	size_is("64mib", 64ull << 20);
	size_is("64MB", 64ull << 20);
	size_is("2G", 2ull << 30);
	size_is("2T", 2ull << 40);
	size_is("16777215T", 16777215ull << 40);
	size_is("unlimited", UINT64_MAX);
	size_is("18446744073709551615", UINT64_MAX);
	const char *bad[] = { "", "-5", "+5", " 5", "5 ", "1X", "G", "16MM", "4Mi", "4iB", "4B",
			      "16777216T", "99999999999999999999", "0x10", "Unlimited", "1.5G" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		size_bad(bad[i]);

	utf8_is('A', "A");
	utf8_is(0xe9, "\xc3\xa9");
	utf8_is(0x202e, "\xe2\x80\xae");
	utf8_is(0xffff, "\xef\xbf\xbf");
	utf8_is(0x1f600, "\xf0\x9f\x98\x80");
	utf8_is(0x10ffff, "\xf4\x8f\xbf\xbf");
	utf8_is(0xd800, "?");
	utf8_is(0xdfff, "?");
	utf8_is(0x110000, "?");
	char out[4];
	ok(ci_utf8_encode(0xd800, 0xfffd, out) == 3 && memcmp(out, "\xef\xbf\xbd", 3) == 0,
	   "a surrogate as U+FFFD where the caller says so");
	ok(ci_utf8_encode(0, '?', out) == 1 && out[0] == 0, "U+0000 is a NUL byte");
	return done_testing();
}
