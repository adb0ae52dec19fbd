/* SPDX-License-Identifier: MIT */
/*
 * timeprobe: launches back to back with other recorded calls between some of them, for
 * launch-times.t (which launches may share their predecessor's time, recorder.h "Launch
 * times").  Each launch passes its number (0..25) as its one u64 parameter:
 *   0..19  on the main thread, back to back;
 *          then a second thread allocates 4 KiB (cuMemAlloc) and ends;
 *   20..22 on the main thread;
 *          then the main thread frees that allocation (cuMemFree);
 *   23..25 on the main thread.
 */
#define PROBE_NAME "timeprobe"
#include "probe.h"
#include <pthread.h>
#include <stdint.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry time_k(\n\t.param .u64 n\n)\n{\n\tret;\n}\n";

static CUcontext ctx;
static CUdeviceptr block;

static void *allocator(void *arg)
{
	(void)arg;
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemAlloc(&block, 4096));
	return NULL;
}

static void launch(CUfunction f, CUstream s, uint64_t from, uint64_t to)
{
	for (uint64_t n = from; n <= to; n++) {
		void *params[] = { &n };
		CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
	}
}

int main(void)
{
	CUmodule mod;
	CUfunction f;
	CUstream s;
	ctx = probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "time_k"));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	launch(f, s, 0, 19);
	pthread_t t;
	if (pthread_create(&t, NULL, allocator, NULL) || pthread_join(t, NULL))
		return 1;
	launch(f, s, 20, 22);
	CHECK(cuMemFree(block));
	launch(f, s, 23, 25);
	CHECK(cuStreamSynchronize(s));
	printf("timeprobe: 26 launches\n");
	return 0;
}
