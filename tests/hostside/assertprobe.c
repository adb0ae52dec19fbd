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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static CUcontext ctx;
static CUstream stream;
static int host_fn_runs, waiter_tid;

/* Never returns: the stream's host function, so that a synchronisation of that stream waits
 * inside the driver for as long as the process lives. */
static void CUDA_CB block_forever(void *arg)
{
	(void)arg;
	__atomic_store_n(&host_fn_runs, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
}

/* Whether thread TID of this process sleeps in futex(), the only call that blocks in
 * cuStreamSynchronize (read from /proc/self/task/TID/syscall: the call's number, or
 * "running"). */
static int sleeps_in_futex(int tid)
{
	char path[64];
	long nr = -1;
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 1; /* the kernel does not say: nothing better to wait for */
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_futex;
}

/* Waits inside the driver (cuStreamSynchronize) until the process dies. */
static void *waiter(void *arg)
{
	(void)arg;
	cuCtxSetCurrent(ctx);
	cuLaunchHostFunc(stream, block_forever, NULL);
	__atomic_store_n(&waiter_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
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
	/* The driver's worker runs the host function and the waiter sleeps inside
	 * cuStreamSynchronize before the assertion fails (waited for, up to 60 s, not assumed
	 * after a fixed time). */
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int tid = __atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&host_fn_runs, __ATOMIC_ACQUIRE) && tid && sleeps_in_futex(tid))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 60)
			break;
		usleep(1000);
	}
	CUdeviceptr p;
	size_t huge = (size_t)1 << 50; /* 1 PiB: more than any device */
	r = cuMemAlloc(&p, huge);
	fprintf(stderr, "assertprobe: cuMemAlloc returned %d\n", (int)r);
	assert(r == CUDA_SUCCESS && "cuMemAlloc of the KV cache");
	return 0;
}
