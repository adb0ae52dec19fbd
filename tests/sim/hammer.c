/* Many threads using the driver at once (hammer.t, also under ThreadSanitizer against a TSan
 * build of the simulator).  Each thread launches on its own stream, on its per-thread default
 * stream and on a stream shared by all threads, writes a breadcrumb after every launch into its
 * own host-registered slot, records and waits on events across threads, runs host functions,
 * creates and destroys streams, allocates and frees, and synchronizes.  Checked: every call
 * succeeds, and each stream's breadcrumbs end at the number of launches made on it. */
#include "simtest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define MAX_THREADS 16

static CUcontext g_ctx;
static CUfunction g_step;
static CUstream g_shared;
static CUevent g_events[MAX_THREADS];
static uint64_t *g_slots;   /* 4 per thread: own, per-thread, shared, host-function count */
static CUdeviceptr g_dslots;
static int g_iters, g_threads;
static atomic_int g_failures;

static void count_host(void *arg)
{
	__atomic_fetch_add((uint64_t *)arg, 1, __ATOMIC_RELAXED);
}

#define CHECK(call)                                                                                \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			printf("# thread %d: %s -> %d\n", id, #call, (int)r_);                     \
			atomic_fetch_add(&g_failures, 1);                                          \
			return NULL;                                                               \
		}                                                                                  \
	} while (0)

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	CUstream own;
	CHECK(cuCtxSetCurrent(g_ctx));
	CHECK(cuStreamCreate(&own, id % 2 ? CU_STREAM_NON_BLOCKING : 0));
	CUdeviceptr slot = g_dslots + (CUdeviceptr)(id * 4 * sizeof(uint64_t));
	uint64_t *host = &g_slots[id * 4];
	for (int i = 1; i <= g_iters; i++) {
		CHECK(simtest_launch(g_step, own, 0));
		CHECK(cuStreamWriteValue64(own, slot, (uint64_t)i, 0));
		CHECK(simtest_launch(g_step, CU_STREAM_PER_THREAD, 0));
		CHECK(cuStreamWriteValue64(CU_STREAM_PER_THREAD, slot + 8, (uint64_t)i, 0));
		CHECK(cuLaunchHostFunc(own, count_host, &host[3]));
		if (i % 8 == 0) {
			/* the shared stream: each thread bumps its own slot there */
			CHECK(simtest_launch(g_step, g_shared, 0));
			CHECK(cuStreamWriteValue64(g_shared, slot + 16, (uint64_t)(i / 8), 0));
			CHECK(cuEventRecord(g_events[id], own));
			CHECK(cuStreamWaitEvent(CU_STREAM_PER_THREAD, g_events[(id + 1) % g_threads], 0));
			CUresult q = cuStreamQuery(own);
			if (q != CUDA_SUCCESS && q != CUDA_ERROR_NOT_READY)
				CHECK(q);
		}
		if (i % 32 == 0) {
			CUstream tmp;
			CUdeviceptr p;
			CHECK(cuStreamCreate(&tmp, 0));
			CHECK(cuMemAllocAsync(&p, 4096, tmp));
			CHECK(cuMemsetD32Async(p, (unsigned)i, 1024, tmp));
			CHECK(cuMemFreeAsync(p, tmp));
			CHECK(cuStreamDestroy(tmp));
			CHECK(cuMemAlloc(&p, 1 << 16));
			CHECK(cuMemFree(p));
			CHECK(cuStreamSynchronize(own));
		}
	}
	CHECK(cuStreamSynchronize(own));
	CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
	if (host[0] != (uint64_t)g_iters || host[1] != (uint64_t)g_iters || host[3] != (uint64_t)g_iters) {
		printf("# thread %d: breadcrumbs %lu/%lu, host functions %lu, want %d\n", id,
		       (unsigned long)host[0], (unsigned long)host[1], (unsigned long)host[3], g_iters);
		atomic_fetch_add(&g_failures, 1);
	}
	CHECK(cuStreamDestroy(own));
	return NULL;
}

int main(int argc, char **argv)
{
	g_threads = argc > 1 ? atoi(argv[1]) : 8;
	g_iters = argc > 2 ? atoi(argv[2]) : 256;
	if (g_threads < 1 || g_threads > MAX_THREADS)
		g_threads = 8;
	CUmodule mod;
	g_ctx = simtest_setup(&mod);
	MUST(cuModuleGetFunction(&g_step, mod, "step"));
	MUST(cuStreamCreate(&g_shared, CU_STREAM_NON_BLOCKING));
	for (int i = 0; i < g_threads; i++)
		MUST(cuEventCreate(&g_events[i], CU_EVENT_DISABLE_TIMING));
	size_t bytes = MAX_THREADS * 4 * sizeof(uint64_t);
	MUST(cuMemAllocHost((void **)&g_slots, bytes));
	memset(g_slots, 0, bytes);
	MUST(cuMemHostGetDevicePointer(&g_dslots, g_slots, 0));
	pthread_t t[MAX_THREADS];
	for (int i = 0; i < g_threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < g_threads; i++)
		pthread_join(t[i], NULL);
	is_int(atomic_load(&g_failures), 0, "every call from every thread succeeded with the expected results");
	MUST(cuStreamSynchronize(g_shared));
	int shared_ok = 1;
	for (int i = 0; i < g_threads; i++)
		shared_ok &= g_slots[i * 4 + 2] == (uint64_t)(g_iters / 8);
	ok(shared_ok, "breadcrumbs on the shared stream reached every thread's last value");
	IS_CU(cuCtxSynchronize(), CUDA_SUCCESS);
	return simtest_done();
}
