/* Minimal TAP for C unit tests: plan(n); ok(cond, fmt, ...); is_int(got, want, name);
 * done_testing() returns the process exit code. */
#ifndef CI_TEST_TAP_H
#define CI_TEST_TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void plan(int n) { printf("1..%d\n", n); }

__attribute__((format(printf, 2, 3))) static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define is_int(got, want, name)                                                            \
	do {                                                                               \
		long long g_ = (long long)(got), w_ = (long long)(want);                   \
		if (!ok(g_ == w_, "%s", name))                                             \
			printf("# got %lld, want %lld\n", g_, w_);                         \
	} while (0)

#define is_str(got, want, name)                                                            \
	do {                                                                               \
		const char *g_ = (got), *w_ = (want);                                      \
		if (!ok(g_ && w_ && strcmp(g_, w_) == 0, "%s", name))                      \
			printf("# got '%s', want '%s'\n", g_ ? g_ : "(null)", w_);          \
	} while (0)

static inline int done_testing(void)
{
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}
#endif
