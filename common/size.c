/* SPDX-License-Identifier: MIT */
/* Sizes as people write them (size.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "size.h"

bool ci_size_parse(const char *s, uint64_t *ret)
{
	if (strcmp(s, "unlimited") == 0) {
		*ret = UINT64_MAX;
		return true;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0))
		end += strlen(end);
	if (*end || v > UINT64_MAX >> shift)
		return false;
	*ret = (uint64_t)v << shift;
	return true;
}
