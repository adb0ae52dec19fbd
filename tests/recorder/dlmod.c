/* SPDX-License-Identifier: MIT */
/*
 * A library dlprobe loads with dlopen and launches a kernel from, two frames deep, so that the
 * launch's recorded stack shows whether the recorder knew the library at that moment (the fast
 * walker stops at a return address in no known module).
 */
#include <cuda.h>

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);

int dlmod_launch(void *launch, CUfunction fn);
/* Each function does something after its call, so neither call is a tail call. */
static volatile int dlmod_calls;

__attribute__((noinline)) static int dlmod_inner(launch_fn launch, CUfunction fn)
{
	int r = (int)launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
	dlmod_calls++;
	return r;
}

__attribute__((noinline)) int dlmod_launch(void *launch, CUfunction fn)
{
	int r = dlmod_inner((launch_fn)launch, fn);
	dlmod_calls++;
	return r;
}
