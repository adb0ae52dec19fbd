/* CUDASIM_MODE=null (nullmode.t): work completes inline on the calling thread, without worker
 * threads or sleeping, and faults still poison the context.  `nullmode rate THREADS N` prints
 * the launch rate (launch + breadcrumb pairs per second per thread) for a rough scalability
 * check. */
#include "simtest.h"

#include <dirent.h>
#include <pthread.h>
#include <string.h>

static int threads_in_process(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int ran;
static void host_fn(void *arg)
{
	ran = *(int *)arg;
}

static CUcontext g_ctx;
static CUfunction g_step;
static long g_n;

static void *launcher(void *arg)
{
	MUST(cuCtxSetCurrent(g_ctx));
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	uint64_t *crumb = aligned_alloc(64, 64);
	CUdeviceptr dc;
	MUST(cuMemHostRegister(crumb, 64, 0));
	MUST(cuMemHostGetDevicePointer(&dc, crumb, 0));
	double t0 = simtest_now_ms();
	for (long i = 0; i < g_n; i++) {
		MUST(simtest_launch(g_step, s, 0));
		MUST(cuStreamWriteValue64(s, dc, (uint64_t)i, 0));
	}
	*(double *)arg = simtest_now_ms() - t0;
	return NULL;
}

static int rate(int nthreads, long n)
{
	CUmodule mod;
	g_ctx = simtest_setup(&mod);
	MUST(cuModuleGetFunction(&g_step, mod, "step"));
	g_n = n;
	pthread_t t[64];
	double ms[64];
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, launcher, &ms[i]);
	double worst = 0;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		if (ms[i] > worst)
			worst = ms[i];
	}
	printf("%d threads: %.0f launches/s per thread\n", nthreads, n / (worst / 1e3));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "rate") == 0)
		return rate(atoi(argv[2]), atol(argv[3]));
	CUmodule mod;
	CUfunction step;
	simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s;
	MUST(cuStreamCreate(&s, 0));
	uint64_t *crumb = aligned_alloc(64, 64);
	*crumb = 0;
	CUdeviceptr dc, dev;
	MUST(cuMemHostRegister(crumb, 64, 0));
	MUST(cuMemHostGetDevicePointer(&dc, crumb, 0));
	MUST(cuMemAlloc(&dev, 64));

	/* 20000 launches at the default 200 us would take 4 s if kernels occupied their stream. */
	double t0 = simtest_now_ms();
	for (int i = 1; i <= 20000; i++) {
		MUST(simtest_launch(step, s, dev));
		MUST(cuStreamWriteValue64(s, dc, (uint64_t)i, 0));
	}
	double ms = simtest_now_ms() - t0;
	ok(ms < 1000, "20000 launches + breadcrumbs complete in %.1f ms (no kernel time)", ms);
	is_int(*crumb, 20000, "each breadcrumb is written by the time its call returns");
	IS_CU(cuStreamQuery(s), CUDA_SUCCESS);
	is_int(threads_in_process(), 1, "no worker threads");
	int tag = 7;
	MUST(cuLaunchHostFunc(s, host_fn, &tag));
	is_int(ran, 7, "host functions run inline");
	char in[8] = "abcdefg", out[8] = {0};
	MUST(cuMemcpyHtoDAsync(dev, in, 8, s));
	MUST(cuMemcpyDtoHAsync(out, dev, 8, s));
	is_str(out, "abcdefg", "async copies complete inline");
	CUevent a, b;
	float el = -1;
	MUST(cuEventCreate(&a, 0));
	MUST(cuEventCreate(&b, 0));
	MUST(cuEventRecord(a, s));
	MUST(cuEventRecord(b, s));
	IS_CU(cuEventQuery(b), CUDA_SUCCESS);
	IS_CU(cuEventElapsedTime(&el, a, b), CUDA_SUCCESS);
	ok(el >= 0 && el < 100, "events are stamped inline (%.3f ms)", el);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);

	/* CUDASIM_FAULT=step@20003 (nullmode.t): the launch itself returns success, the context
	 * is poisoned immediately, the breadcrumb after it is refused. */
	IS_CU(simtest_launch(step, s, dev), CUDA_SUCCESS);
	IS_CU(simtest_launch(step, s, dev), CUDA_SUCCESS);
	IS_CU(simtest_launch(step, s, dev), CUDA_SUCCESS);
	IS_CU(cuStreamWriteValue64(s, dc, 1, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
	is_int(*crumb, 20000, "nothing written after the fault");
	return simtest_done();
}
