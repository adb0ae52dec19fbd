/* SPDX-License-Identifier: MIT */
/*
 * crumbprobe: a fault whose breadcrumb outcome is known from the program's own logic, for
 * crumbs.t.  Set CUDASIM_FAULT=bad_k (the test does).
 *   stream B: 3 launches, synchronized (finished); then a wait on a host flag that is never
 *             set, then 2 more launches (cannot start);
 *   per-thread default stream: 2 launches, synchronized (finished);
 *   stream A: 5 launches, synchronized (finished); then a wait on a second host flag, bad_k
 *             (faults) and 4 more launches; the flag is set once all are queued.
 * So when the fault surfaces: A has finished exactly 5, B exactly 3, the per-thread stream 2.
 * The program then synchronizes A (CUDA_ERROR_ILLEGAL_ADDRESS, the first sticky error, which
 * makes the recorder write its error snapshot) and exits 0 if that error came back.
 */
#define PROBE_NAME "crumbprobe"
#include "probe.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry ok_k(\n\t.param .u64 ok_k_param_0\n)\n{\n\tret;\n}\n"
			  ".visible .entry bad_k(\n\t.param .u64 bad_k_param_0\n)\n{\n\tret;\n}\n";


static void launch(CUfunction f, CUstream s, uint64_t tag)
{
	void *params[] = { &tag };
	CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
}

/* Stream S waits until the host sets *FLAG (on its own page) to 1. */
static void wait_for(CUstream s, uint32_t *flag)
{
	CUdeviceptr d;
	CHECK(cuMemHostRegister(flag, sizeof *flag, CU_MEMHOSTREGISTER_DEVICEMAP));
	CHECK(cuMemHostGetDevicePointer(&d, flag, 0));
	CHECK(cuStreamWaitValue32(s, d, 1, CU_STREAM_WAIT_VALUE_GEQ));
}

int main(void)
{
	CUmodule mod;
	CUfunction ok_k, bad_k;
	CUstream a, b;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&ok_k, mod, "ok_k"));
	CHECK(cuModuleGetFunction(&bad_k, mod, "bad_k"));
	CHECK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));

	for (int i = 1; i <= 3; i++)
		launch(ok_k, b, 0xb0 + i);
	CHECK(cuStreamSynchronize(b));
	static uint32_t never __attribute__((aligned(4096)));
	wait_for(b, &never);
	launch(ok_k, b, 0xb4);
	launch(ok_k, b, 0xb5);

	for (int i = 1; i <= 2; i++)
		launch(ok_k, CU_STREAM_PER_THREAD, 0xc0 + i);
	CHECK(cuStreamSynchronize(CU_STREAM_PER_THREAD));

	for (int i = 1; i <= 5; i++)
		launch(ok_k, a, 0xa0 + i);
	CHECK(cuStreamSynchronize(a));
	static uint32_t go __attribute__((aligned(4096)));
	wait_for(a, &go);
	launch(bad_k, a, 0xa6);
	for (int i = 7; i <= 10; i++)
		launch(ok_k, a, 0xa0 + i);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	CUresult r = cuStreamSynchronize(a);
	printf("crumbprobe: cuStreamSynchronize(A) -> %d\n", (int)r);
	return r == CUDA_ERROR_ILLEGAL_ADDRESS ? 0 : 1;
}
