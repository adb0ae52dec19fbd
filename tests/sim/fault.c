/* CUDASIM_FAULT and CUDASIM_HANG (run by fault.t with the variables set).
 *
 *   fault: CUDASIM_FAULT=step@5.  Stream s1 runs step launches each followed by a breadcrumb
 *          (cuStreamWriteValue64 of the launch number into host-registered memory) and a host
 *          function, held on a flag until all are queued; stream s2 is held on a flag with work
 *          queued behind it.  Expected: every call made before the fault returns success; breadcrumbs 1-4 land, 5 and later never
 *          do; no host function after the fault runs; s2 never resumes; from then on launches,
 *          syncs, queries, copies, events, allocations return CUDA_ERROR_ILLEGAL_ADDRESS; pure
 *          handle queries still work; cuDevicePrimaryCtxReset brings back a healthy context.
 *   count [ERROR]: CUDASIM_FAULT=noargs@3,step@2[:error] with launches of both names
 *          interleaved: the faulting launch is the 2nd step (counted per name), and the context
 *          is poisoned with ERROR (default CUDA_ERROR_ILLEGAL_ADDRESS).
 *   hang:  CUDASIM_HANG=step@2: the 2nd launch never completes; its stream stays NOT_READY and
 *          later breadcrumbs never land, while other streams keep running. */
#include "simtest.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static atomic_int host_ran[32];
static void host_mark(void *arg)
{
	atomic_store(&host_ran[(intptr_t)arg], 1);
}

static uint64_t *crumb_new(CUdeviceptr *d)
{
	uint64_t *c = aligned_alloc(4096, 4096);
	memset(c, 0, 4096);
	MUST(cuMemHostRegister(c, 4096, CU_MEMHOSTREGISTER_DEVICEMAP));
	MUST(cuMemHostGetDevicePointer(d, c, 0));
	return c;
}

static int fault_case(void)
{
	CUmodule mod;
	CUfunction step;
	CUcontext ctx = simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s1, s2;
	MUST(cuStreamCreate(&s1, 0));
	MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUdeviceptr dc, dev;
	uint64_t *crumb = crumb_new(&dc);
	volatile uint32_t *flag = (volatile uint32_t *)(crumb + 8);
	MUST(cuMemAlloc(&dev, 1024));
	CUevent ev;
	MUST(cuEventCreate(&ev, 0));

	/* s2: held, with a breadcrumb and a host function behind the hold */
	int before_ok = 1;
	before_ok &= cuStreamWaitValue32(s2, dc + 64, 1, CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS;
	before_ok &= cuStreamWriteValue64(s2, dc + 8, 77, 0) == CUDA_SUCCESS;
	before_ok &= cuLaunchHostFunc(s2, host_mark, (void *)31) == CUDA_SUCCESS;
	/* s1: held too until everything is queued (else a caller descheduled for the 4 ms that
	 * launches 1-4 take would see the fault at a later launch), then ten launches, each with
	 * its breadcrumb and host function */
	volatile uint32_t *go = (volatile uint32_t *)(crumb + 9);
	before_ok &= cuStreamWaitValue32(s1, dc + 72, 1, CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS;
	for (intptr_t i = 1; i <= 10; i++) {
		before_ok &= simtest_launch(step, s1, dev) == CUDA_SUCCESS;
		before_ok &= cuStreamWriteValue64(s1, dc, (uint64_t)i, 0) == CUDA_SUCCESS;
		before_ok &= cuLaunchHostFunc(s1, host_mark, (void *)i) == CUDA_SUCCESS;
	}
	before_ok &= cuEventRecord(ev, s1) == CUDA_SUCCESS;
	ok(before_ok, "every call made before the fault was reached returned success");
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);

	IS_CU(cuStreamSynchronize(s1), CUDA_ERROR_ILLEGAL_ADDRESS);
	is_int(*crumb, 4, "breadcrumbs of the launches before the faulting one landed, later ones did not");
	int host_ok = 1;
	for (int i = 1; i <= 10; i++)
		host_ok &= atomic_load(&host_ran[i]) == (i < 5);
	ok(host_ok, "host functions ran up to launch 4 and never after the fault");
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE); /* release s2: it must not resume */
	usleep(50 * 1000);
	ok(crumb[1] == 0 && !atomic_load(&host_ran[31]), "the other stream of the context stopped too");

	/* sticky: everything that does work in the context fails */
	CUdeviceptr p;
	char buf[16] = {0};
	IS_CU(simtest_launch(step, s1, dev), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(simtest_launch(step, NULL, dev), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamSynchronize(s2), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamQuery(s1), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuEventSynchronize(ev), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuEventQuery(ev), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuEventRecord(ev, s1), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuMemcpyHtoD(dev, buf, sizeof(buf)), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuMemcpyDtoHAsync(buf, dev, sizeof(buf), s1), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuMemAlloc(&p, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuMemFree(dev), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamWriteValue64(s1, dc, 99, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuStreamCreate(&(CUstream){0}, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
	IS_CU(cuModuleLoadData(&(CUmodule){0}, simtest_ptx), CUDA_ERROR_ILLEGAL_ADDRESS);
	/* describing the dead context still works */
	unsigned long long id;
	const char *name;
	CUcontext c;
	IS_CU(cuStreamGetId(s1, &id), CUDA_SUCCESS);
	IS_CU(cuStreamGetCtx(s1, &c), CUDA_SUCCESS);
	IS_CU(cuFuncGetName(&name, step), CUDA_SUCCESS);
	IS_CU(cuCtxGetId(ctx, &id), CUDA_SUCCESS);
	IS_CU(cuCtxGetCurrent(&c), CUDA_SUCCESS);
	is_int(*crumb, 4, "no breadcrumb moved after the fault");

	/* recovery */
	IS_CU(cuDevicePrimaryCtxReset(0), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s1), CUDA_ERROR_INVALID_HANDLE); /* reset destroyed the streams */
	MUST(cuModuleLoadData(&mod, simtest_ptx));
	MUST(cuModuleGetFunction(&step, mod, "step"));
	IS_CU(simtest_launch(step, NULL, 0), CUDA_SUCCESS); /* the 11th step: no fault */
	IS_CU(cuCtxSynchronize(), CUDA_SUCCESS);
	return simtest_done();
}

static int count_case(const char *want_error)
{
	CUmodule mod;
	CUfunction step, noargs;
	simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	MUST(cuModuleGetFunction(&noargs, mod, "noargs"));
	CUdeviceptr dc;
	uint64_t *crumb = crumb_new(&dc);
	/* noargs, step, noargs, step (the 2nd step: faults), ...  In null mode the fault happens
	 * inside the launch call, so the calls after it already fail. */
	CUresult r = CUDA_SUCCESS;
	for (uint64_t i = 1; i <= 6 && r == CUDA_SUCCESS; i++) {
		if (i % 2)
			r = cuLaunchKernel(noargs, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
		else
			r = simtest_launch(step, NULL, 0);
		if (r == CUDA_SUCCESS)
			r = cuStreamWriteValue64(NULL, dc, i, 0);
	}
	ok(r == CUDA_SUCCESS || r == CUDA_ERROR_ILLEGAL_ADDRESS, "queueing returns success or, once faulted, the sticky error");
	const char *got = NULL;
	cuGetErrorName(cuCtxSynchronize(), &got);
	is_str(got, want_error, "the context is poisoned with the configured error");
	is_int(*crumb, 3, "the second launch of step faulted (launches counted per name)");
	return simtest_done();
}

static int hang_case(void)
{
	CUmodule mod;
	CUfunction step;
	simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s1, s2;
	MUST(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUdeviceptr dc;
	uint64_t *crumb = crumb_new(&dc);
	for (uint64_t i = 1; i <= 3; i++) {
		MUST(simtest_launch(step, s1, 0));
		MUST(cuStreamWriteValue64(s1, dc, i, 0));
	}
	MUST(simtest_launch(step, s2, 0));
	MUST(cuStreamWriteValue64(s2, dc + 8, 42, 0));
	IS_CU(cuStreamSynchronize(s2), CUDA_SUCCESS);
	/* The launch before the hung one finishes (waited for, however loaded the machine is);
	 * then nothing more may happen: 50 ms for anything that could. */
	for (double t0 = simtest_now_ms(); !__atomic_load_n(crumb, __ATOMIC_ACQUIRE) &&
					    simtest_now_ms() - t0 < 60000;)
		usleep(1000);
	usleep(50 * 1000);
	IS_CU(cuStreamQuery(s1), CUDA_ERROR_NOT_READY);
	is_int(*crumb, 1, "the hung launch never completes and nothing after it runs");
	is_int(crumb[1], 42, "other streams keep running");
	return simtest_done(); /* exits with the worker still hung, as a hung process would */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fault";
	if (strcmp(mode, "count") == 0)
		return count_case(argc > 2 ? argv[2] : "CUDA_ERROR_ILLEGAL_ADDRESS");
	if (strcmp(mode, "hang") == 0)
		return hang_case();
	return fault_case();
}
