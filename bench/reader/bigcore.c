/* SPDX-License-Identifier: MIT */
/*
 * Benchmark fixture: a CUDA driver-API program that makes a *large* crash for the reader's
 * benchmark (bench/reader/run.sh).  It touches HOST_GIB GiB of host memory, keeps ALLOCS device
 * allocations alive, launches LAUNCHES kernels from THREADS threads (enough to wrap the
 * recorder's launch ring), then launches a kernel with a pointer past the end of an allocation
 * (the simulated driver faults it through CUDASIM_FAULT), synchronizes, and aborts on the
 * CUDA error like an engine's error check, so the kernel writes a core.  Runs on the simulated
 * driver (LD_LIBRARY_PATH=build/sim) or a real one.
 *
 *   bigcore [--host-gib G] [--allocs N] [--launches N] [--threads T] [--fault-at K]
 *
 * --fault-at K puts the bad pointer 64 bytes past the end of allocation K (0-based; default the
 * last), and the program names it on stderr ("bigcore: planted pointer ..."), so a test can hold
 * the report's attribution against it.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		CUresult r_ = (call);                                                      \
		if (r_ != CUDA_SUCCESS) {                                                  \
			const char *n_ = "?";                                              \
			cuGetErrorName(r_, &n_);                                           \
			fprintf(stderr, "%s:%d: CUDA error: %s (%s)\n", __FILE__, __LINE__, n_, \
				#call);                                                    \
			abort();                                                           \
		}                                                                          \
	} while (0)

static const char ptx[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	".visible .entry bench_step(.param .u64 bench_step_p0, .param .u64 bench_step_p1,\n"
	"                           .param .u32 bench_step_n)\n"
	"{\n\tret;\n}\n"
	".visible .entry bench_fault(.param .u64 bench_fault_p0, .param .u32 bench_fault_n)\n"
	"{\n"
	"\t.reg .b64 %rd<2>;\n"
	"\t.reg .b32 %r<2>;\n"
	"\tld.param.u64 %rd1, [bench_fault_p0];\n"
	"\tmov.u32 %r1, 1;\n"
	"\tst.global.u32 [%rd1], %r1;\n"
	"\tret;\n"
	"}\n";

static CUcontext ctx;
static CUfunction step_fn;
static CUdeviceptr *allocs;
static size_t nallocs;
static long launches_per_thread;

static void *launcher(void *arg)
{
	long t = (long)arg;
	CUstream s;
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (long i = 0; i < launches_per_thread; i++) {
		CUdeviceptr a = allocs[(size_t)(t * 7919 + i) % nallocs];
		CUdeviceptr b = allocs[(size_t)(t * 104729 + i * 31) % nallocs];
		unsigned n = (unsigned)i;
		void *params[] = { &a, &b, &n };
		CHECK(cuLaunchKernel(step_fn, (unsigned)(i % 64) + 1, 1, 1, 128, 1, 1, 0, s, params,
				     NULL));
	}
	CHECK(cuStreamSynchronize(s));
	return NULL;
}

static long arg_long(int argc, char **argv, const char *name, long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return atol(argv[i + 1]);
	return def;
}

int main(int argc, char **argv)
{
	long host_gib = arg_long(argc, argv, "--host-gib", 8);
	nallocs = (size_t)arg_long(argc, argv, "--allocs", 100000);
	long launches = arg_long(argc, argv, "--launches", 200000);
	long threads = arg_long(argc, argv, "--threads", 4);
	long fault_at = arg_long(argc, argv, "--fault-at", (long)nallocs - 1);
	if (host_gib < 0 || nallocs < 1 || launches < 1 || threads < 1 || threads > 64 ||
	    fault_at < 0 || (size_t)fault_at >= nallocs) {
		fprintf(stderr, "usage: bigcore [--host-gib G] [--allocs N] [--launches N] "
				"[--threads T] [--fault-at K]\n");
		return 2;
	}
	launches_per_thread = launches / threads;

	/* Host memory first: the core's size is mostly this. */
	const size_t chunk = 256ul << 20;
	for (long i = 0; i < host_gib * 4; i++) {
		void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("bigcore: mmap");
			return 1;
		}
		memset(p, 0x5a + (int)i, chunk);
	}

	CUdevice dev;
	CUmodule mod;
	CUfunction fault_fn;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, ptx));
	CHECK(cuModuleGetFunction(&step_fn, mod, "bench_step"));
	CHECK(cuModuleGetFunction(&fault_fn, mod, "bench_fault"));

	allocs = calloc(nallocs, sizeof(*allocs));
	if (!allocs)
		return 1;
	for (size_t i = 0; i < nallocs; i++)
		CHECK(cuMemAlloc(&allocs[i], 4096 * (1 + i % 4)));

	pthread_t tid[64];
	for (long t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, launcher, (void *)t);
	for (long t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);

	/* The planted fault: 64 bytes past the end of allocation K (the last by default). */
	CUstream s;
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	size_t k = (size_t)fault_at;
	CUdeviceptr bad = allocs[k] + 4096 * (1 + k % 4) + 64;
	fprintf(stderr, "bigcore: planted pointer 0x%llx, 64 bytes past allocation %zu at 0x%llx; "
			"the first allocation is at 0x%llx\n",
		(unsigned long long)bad, k, (unsigned long long)allocs[k],
		(unsigned long long)allocs[0]);
	unsigned one = 1;
	void *params[] = { &bad, &one };
	CHECK(cuLaunchKernel(fault_fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
	CHECK(cuStreamSynchronize(s));
	fprintf(stderr, "bigcore: the planted fault did not surface (set CUDASIM_FAULT=bench_fault)\n");
	return 3;
}
