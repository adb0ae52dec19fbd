/* SPDX-License-Identifier: MIT */
/*
 * Two tiny libraries for doors.t (built twice: -DNEXT_A and -DNEXT_B).  A's ci_next_probe asks
 * dlsym(RTLD_NEXT) for the next definition of its own name, which must be B's: RTLD_NEXT is
 * relative to the caller, so an interposed dlsym that answered relative to itself would hand A
 * its own function back and recurse.
 */
#include <dlfcn.h>

int ci_next_probe(void);

#ifdef NEXT_A
int ci_next_probe(void)
{
	int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "ci_next_probe");
	if (!next)
		return -2;
	if (next == ci_next_probe)
		return -1; /* would recurse */
	return 1 + next();
}
#else
int ci_next_probe(void)
{
	return 10;
}
#endif
