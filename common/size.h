/* SPDX-License-Identifier: MIT */
/*
 * Sizes as people write them, read the same way by the recorder (CUDAINSPECT_SIZE) and the
 * reader (`cudainspect --max-core-size`): part of the helpers both link (common/).
 */
#ifndef CI_COMMON_SIZE_H
#define CI_COMMON_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* S as a number of bytes: decimal digits with an optional K, M, G or T (powers of 1024, either
 * case), which may be followed by "iB" or "B" ("64M", "64MiB", "64mb"); or "unlimited", which is
 * UINT64_MAX.  "0" is 0: what no size means is the caller's.  False, *RET untouched, for
 * anything else: a sign, spaces, another suffix, a value past 2^64 - 1. */
bool ci_size_parse(const char *s, uint64_t *ret);

#endif /* CI_COMMON_SIZE_H */
