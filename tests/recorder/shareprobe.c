/* SPDX-License-Identifier: MIT */
/*
 * shareprobe: threads launching into streams they share, for storm.t.
 *   shareprobe THREADS LAUNCHES
 * Thread 0 launches LAUNCHES times, alternating between one created stream and the legacy default
 * stream (NULL); the other threads do the same, starting once thread 0 is a quarter of the way
 * through (so the streams are first used by one thread, then shared while it keeps launching).
 * Every launch on a stream must get its own number: a recorder that lost or repeated one would
 * show it in the record (storm.t checks the numbers on each stream are exactly 1..N).
 */
#define PROBE_NAME "shareprobe"
#include "probe.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry share_k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n";

static CUcontext ctx;
static CUfunction f;
static CUstream shared;
static long launches;
static long first_done; /* atomic: launches thread 0 has made */

static void *worker(void *arg)
{
	long index = (long)(intptr_t)arg;
	CHECK(cuCtxSetCurrent(ctx));
	while (index && __atomic_load_n(&first_done, __ATOMIC_ACQUIRE) < launches / 4)
		;
	for (long i = 0; i < launches; i++) {
		uint64_t tag = (uint64_t)index << 32 | (uint64_t)i;
		void *params[] = { &tag };
		CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, i % 2 ? NULL : shared, params, NULL));
		if (!index)
			__atomic_store_n(&first_done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[1]) : 0;
	launches = argc > 2 ? atol(argv[2]) : 0;
	if (threads < 1 || threads > 64 || launches < 4) {
		fprintf(stderr, "usage: shareprobe THREADS(1-64) LAUNCHES(>=4)\n");
		return 2;
	}
	CUmodule mod;
	ctx = probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "share_k"));
	CHECK(cuStreamCreate(&shared, CU_STREAM_NON_BLOCKING));
	pthread_t tid[64];
	for (long t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t);
	for (int t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	CHECK(cuStreamSynchronize(shared));
	CHECK(cuStreamSynchronize(NULL));
	printf("shareprobe: %d threads x %ld launches\n", threads, launches);
	return 0;
}
