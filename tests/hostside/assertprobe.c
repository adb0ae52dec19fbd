/* SPDX-License-Identifier: MIT */
/*
 * A CUDA program without the recorder that dies the way many do: a CUDA call fails and an
 * assert() aborts (glibc keeps the assertion's text in __abort_msg), while a second thread
 * waits inside the driver, in cuStreamSynchronize.  tests/hostside/norecord.t reads its core.
 *
 *   assertprobe         cuMemAlloc of far more than the device has fails; assert aborts
 */
#include <assert.h>
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static CUcontext ctx;
static CUstream stream;

/* Never returns: the stream's host function, so that a synchronisation of that stream waits
 * inside the driver for as long as the process lives. */
static void CUDA_CB block_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
}

/* Waits inside the driver (cuStreamSynchronize) until the process dies. */
static void *waiter(void *arg)
{
	(void)arg;
	cuCtxSetCurrent(ctx);
	cuLaunchHostFunc(stream, block_forever, NULL);
	cuStreamSynchronize(stream);
	return NULL;
}

int main(void)
{
	CUdevice dev;
	CUresult r = cuInit(0);
	assert(r == CUDA_SUCCESS);
	r = cuDeviceGet(&dev, 0);
	assert(r == CUDA_SUCCESS);
	r = cuDevicePrimaryCtxRetain(&ctx, dev);
	assert(r == CUDA_SUCCESS);
	r = cuCtxSetCurrent(ctx);
	assert(r == CUDA_SUCCESS);
	r = cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	assert(r == CUDA_SUCCESS);
	pthread_t t;
	pthread_create(&t, NULL, waiter, NULL);
	usleep(100000);
	CUdeviceptr p;
	size_t huge = (size_t)1 << 50; /* 1 PiB: more than any device */
	r = cuMemAlloc(&p, huge);
	fprintf(stderr, "assertprobe: cuMemAlloc returned %d\n", (int)r);
	assert(r == CUDA_SUCCESS && "cuMemAlloc of the KV cache");
	return 0;
}
