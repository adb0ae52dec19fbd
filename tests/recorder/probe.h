/* SPDX-License-Identifier: MIT */
/*
 * Shared by the recorder's test and benchmark programs (the tests/recorder probes,
 * bench/recorder/launchbench.c): a CHECK that names the failing call, and the usual start of a
 * driver program (init, primary context of device 0, a module from PTX text).
 */
#ifndef CI_TEST_RECORDER_PROBE_H
#define CI_TEST_RECORDER_PROBE_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PROBE_NAME
#define PROBE_NAME "probe"
#endif

#define CHECK(call)                                                                            \
	do {                                                                                   \
		CUresult r_ = (call);                                                          \
		if (r_ != CUDA_SUCCESS) {                                                      \
			fprintf(stderr, PROBE_NAME ": line %d: %s -> %d\n", __LINE__, #call,   \
				(int)r_);                                                      \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

/* cuInit, device 0's primary context made current, PTX loaded as a module. */
static inline CUcontext probe_start(const char *ptx, CUmodule *mod)
{
	CUdevice dev;
	CUcontext ctx;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(mod, ptx));
	return ctx;
}

#endif
