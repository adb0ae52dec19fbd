/* SPDX-License-Identifier: MIT */
/*
 * nextprobe: linked with libnexta.so then libnextb.so (nextlib.c), so the global search order
 * is exe, [preloaded recorder], A, B.  A's ci_next_probe adds 1 to what dlsym(RTLD_NEXT) finds
 * after A: 11 when RTLD_NEXT is answered relative to A, -1 when an interposed dlsym answers
 * relative to itself (it would find A again).
 */
#include <stdio.h>

int ci_next_probe(void);

int main(void)
{
	printf("next probe -> %d\n", ci_next_probe());
	return 0;
}
