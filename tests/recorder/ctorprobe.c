/* SPDX-License-Identifier: MIT */
/*
 * ctorprobe: a program whose first CUDA call comes from a library constructor (ctorlib.c), for
 * start.t.  Built twice: linked with libctorearly.so (its constructor runs at start-up), and
 * (-DCTOR_DLOPEN) opening libctorthread.so from main.  Then it launches one kernel.
 */
#define PROBE_NAME "ctorprobe"
#include "probe.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry ctor_k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n";

#ifndef CTOR_DLOPEN
int ctorlib_finish(void);
#endif

int main(int argc, char **argv)
{
#ifdef CTOR_DLOPEN
	if (argc < 2) {
		fprintf(stderr, "usage: ctorprobe-dlopen LIBRARY\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*ctorlib_finish)(void) = h ? (int (*)(void))dlsym(h, "ctorlib_finish") : NULL;
	if (!ctorlib_finish) {
		fprintf(stderr, "ctorprobe: %s\n", dlerror());
		return 1;
	}
#else
	(void)argc;
	(void)argv;
#endif
	if (ctorlib_finish() != CUDA_SUCCESS)
		return 1;
	CUmodule mod;
	CUfunction f;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "ctor_k"));
	uint64_t tag = 7;
	void *params[] = { &tag };
	CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
	CHECK(cuCtxSynchronize());
	printf("ctorprobe: launched\n");
	return 0;
}
