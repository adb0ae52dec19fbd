/* SPDX-License-Identifier: MIT */
/*
 * dlprobe: a program that reaches the CUDA driver only through dlopen + dlsym (the way cudart
 * does), for dlopen.t.
 *
 *   dlprobe driver             dlopen libcuda.so.1, call cuInit: prints "cuInit=RESULT"
 *   dlprobe nodriver           no driver loaded: call the cuInit that dlsym(RTLD_DEFAULT) finds
 *                              (the recorder's), twice: prints "cuInit=RESULT cuInit=RESULT"
 *   dlprobe modules LIBA LIBB  launch dl_k once, dlopen LIBA (tests/recorder/dlmod.c) and launch
 *                              dl_k again from inside it (two frames deep); then dlopen LIBB and
 *                              dlclose it straight away, with no CUDA call in between
 */
#define PROBE_NAME "dlprobe"
#include "probe.h"
#include <dlfcn.h>
#include <string.h>

typedef CUresult (*init_fn)(unsigned);

static void *need(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "dlprobe: no %s: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static int modules(const char *liba, const char *libb)
{
	static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
				  ".visible .entry dl_k()\n{\n\tret;\n}\n";
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cuda) {
		fprintf(stderr, "dlprobe: %s\n", dlerror());
		return 1;
	}
	CUresult (*init)(unsigned) = need(cuda, "cuInit");
	CUresult (*device_get)(CUdevice *, int) = need(cuda, "cuDeviceGet");
	CUresult (*retain)(CUcontext *, CUdevice) = need(cuda, "cuDevicePrimaryCtxRetain");
	CUresult (*set_current)(CUcontext) = need(cuda, "cuCtxSetCurrent");
	CUresult (*load)(CUmodule *, const void *) = need(cuda, "cuModuleLoadData");
	CUresult (*get_function)(CUfunction *, CUmodule, const char *) =
		need(cuda, "cuModuleGetFunction");
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, CUstream, void **, void **) = need(cuda, "cuLaunchKernel");
	CUresult (*sync)(void) = need(cuda, "cuCtxSynchronize");
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CHECK(init(0));
	CHECK(device_get(&dev, 0));
	CHECK(retain(&ctx, dev));
	CHECK(set_current(ctx));
	CHECK(load(&mod, ptx));
	CHECK(get_function(&fn, mod, "dl_k"));
	CHECK(launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));

	/* From here to the launch inside LIBA: only dlopen and dlsym. */
	void *a = dlopen(liba, RTLD_NOW | RTLD_LOCAL);
	if (!a) {
		fprintf(stderr, "dlprobe: %s\n", dlerror());
		return 1;
	}
	int (*dlmod_launch)(void *, CUfunction) = need(a, "dlmod_launch");
	CHECK((CUresult)dlmod_launch((void *)launch, fn));

	/* Loaded and gone again with no CUDA call in between. */
	void *b = dlopen(libb, RTLD_NOW | RTLD_LOCAL);
	if (!b || dlclose(b)) {
		fprintf(stderr, "dlprobe: %s\n", dlerror());
		return 1;
	}
	CHECK(sync());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "driver")) {
		void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!cuda) {
			fprintf(stderr, "dlprobe: %s\n", dlerror());
			return 1;
		}
		init_fn init = (init_fn)need(cuda, "cuInit");
		printf("cuInit=%d\n", (int)init(0));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "nodriver")) {
		init_fn init = (init_fn)need(RTLD_DEFAULT, "cuInit");
		int r1 = (int)init(0);
		printf("cuInit=%d cuInit=%d\n", r1, (int)init(0));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "modules"))
		return modules(argv[2], argv[3]);
	fprintf(stderr, "usage: dlprobe driver | nodriver | modules LIBA LIBB\n");
	return 2;
}
