/* SPDX-License-Identifier: MIT */
/*
 * launchbench: the cost of a driver call as the calling thread pays it, for the recorder's
 * overhead benchmark (bench/recorder/run.sh runs it with and without the recorder and takes the
 * difference).  Meant for the simulated driver in null mode (CUDASIM_MODE=null), where a launch
 * costs the driver almost nothing, so that what is left is the recorder.
 *
 *   launchbench launch THREADS OPS REPS   cuLaunchKernel of a 3-parameter kernel, each thread
 *                                         on its own stream
 *   launchbench alloc THREADS OPS REPS    cuMemAlloc + cuMemFree of 4 KiB
 *   launchbench crumb THREADS OPS REPS    cuStreamWriteValue64 into host-registered memory,
 *                                         each thread on its own stream: the driver call a
 *                                         breadcrumb adds after each launch, measured alone
 *   launchbench graph THREADS OPS REPS    cuGraphLaunch of a graph of 4 kernel launches each
 *                                         thread captured on its own stream
 *   launchbench capture THREADS OPS REPS  cuLaunchKernel into a stream capture (relaxed mode),
 *                                         64 launches per capture; each op's share of the
 *                                         capture's begin, end and cuGraphDestroy included
 *
 * An optional fifth argument, DEPTH (0-200, default 0), makes each call from DEPTH nested frames
 * down, as an engine's launches come from deep native stacks (the fast stack walk's cost).
 *
 * Time is each thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over its OPS calls, so that 8 threads
 * on 2 cores measure the cost per call, not the machine's oversubscription.  Prints
 * "ns_per_op X": the median over REPS runs of the mean over threads.  Then "wall_ns_per_op X",
 * the same of the wall time from the first call to the end of the stream's work (a
 * cuStreamSynchronize after the last call, its CPU time not in ns_per_op): where the GPU is the
 * bottleneck (graph replays of tiny kernels) this is the device's time per op, which the
 * in-graph breadcrumbs' extra nodes may lengthen where the CPU's does not show it.
 *
 * LAUNCHBENCH_EVICT=1 runs 48 KiB of code and writes 64 KiB of data between two calls, as a
 * real driver's microseconds of work per call (and an interpreter's between two launches) do:
 * the recorder's code and data then come from the second-level cache or further at every call,
 * which a tight loop over the simulator's nearly empty calls never shows.  Its own time is in
 * both runs of a comparison, plain and recorded.
 */
#define PROBE_NAME "launchbench"
#include "../../tests/recorder/probe.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry bench_k(\n\t.param .u64 a,\n\t.param .u32 b,\n"
			  "\t.param .u64 c\n)\n{\n\tret;\n}\n";


static CUcontext ctx;
static CUfunction fn;
static long ops;
enum { MODE_LAUNCH, MODE_ALLOC, MODE_CRUMB, MODE_GRAPH, MODE_CAPTURE };
#define GRAPH_KERNELS 4
#define CAPTURE_LAUNCHES 64
static __thread CUgraphExec thread_exec;
static int mode;
static uint64_t crumbs[64];       /* host memory the crumb mode writes, one word per thread */
static CUdeviceptr crumbs_alias;
static pthread_barrier_t start;

static double clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One call of the measured kind. */
static inline __attribute__((always_inline)) void op(CUstream s, void **params, int thread,
						     uint64_t i)
{
	if (mode == MODE_ALLOC) {
		CUdeviceptr p;
		CHECK(cuMemAlloc(&p, 4096));
		CHECK(cuMemFree(p));
	} else if (mode == MODE_CRUMB) {
		CHECK(cuStreamWriteValue64(s, crumbs_alias + 8 * (CUdeviceptr)thread, i, 0));
	} else if (mode == MODE_GRAPH) {
		CHECK(cuGraphLaunch(thread_exec, s));
	} else if (mode == MODE_CAPTURE) {
		if (i % CAPTURE_LAUNCHES == 0)
			CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
		CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
		if (i % CAPTURE_LAUNCHES == CAPTURE_LAUNCHES - 1) {
			CUgraph g;
			CHECK(cuStreamEndCapture(s, &g));
			CHECK(cuGraphDestroy(g));
		}
	} else {
		CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
	}
}

static int depth;

/* LAUNCHBENCH_EVICT: first-level caches refilled with other code and data between calls. */
static int evict;
static __thread uint8_t evict_data[64 << 10];

static __attribute__((noinline)) void evict_caches(void)
{
#if defined(__x86_64__)
	/* 6,144 eight-byte nops: 48 KiB of instructions, more than the L1 instruction cache. */
	__asm__ volatile(".rept 6144\n\t.byte 0x0f,0x1f,0x84,0x00,0x00,0x00,0x00,0x00\n\t.endr" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile(".rept 12288\n\tnop\n\t.endr" ::: "memory");
#endif
	for (size_t i = 0; i < sizeof evict_data; i += 64)
		evict_data[i]++;
}

/* OP from D more frames down (not inlined, not a tail call: each level is a frame). */
static __attribute__((noinline)) void op_at(int d, CUstream s, void **params, int thread, uint64_t i)
{
	if (d > 0)
		op_at(d - 1, s, params, thread, i);
	else
		op(s, params, thread, i);
	__asm__ volatile("" ::: "memory");
}

struct worker_arg {
	int thread;
	double ns, wall_ns;
};

static void *worker(void *argp)
{
	struct worker_arg *arg = argp;
	CUstream s;
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	uint64_t a = 1, c = 3;
	uint32_t b = 2;
	void *params[] = { &a, &b, &c };
	if (mode == MODE_GRAPH) {
		CUgraph g;
		CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
		for (int k = 0; k < GRAPH_KERNELS; k++)
			CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
		CHECK(cuStreamEndCapture(s, &g));
		CHECK(cuGraphInstantiateWithFlags(&thread_exec, g, 0));
		CHECK(cuGraphDestroy(g));
	}
	/* Warm up: the first launch's setup of the thread, stream and function, and the first lap
	 * around the default record's launch ring (whose pages the kernel allocates on first
	 * touch), are not the steady cost. */
	for (int i = 0; i < (mode == MODE_ALLOC ? 2000 : 40000); i++)
		op(s, params, arg->thread, (uint64_t)i);
	CHECK(cuStreamSynchronize(s));
	pthread_barrier_wait(&start);
	double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC);
	long n = mode == MODE_CAPTURE ? (ops + CAPTURE_LAUNCHES - 1) / CAPTURE_LAUNCHES * CAPTURE_LAUNCHES : ops;
	for (long i = 0; i < n; i++) {
		a = (uint64_t)i;
		if (evict)
			evict_caches();
		op_at(depth, s, params, arg->thread, (uint64_t)i);
	}
	arg->ns = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n;
	CHECK(cuStreamSynchronize(s));
	arg->wall_ns = (clock_ns(CLOCK_MONOTONIC) - w0) / (double)n;
	if (thread_exec)
		CHECK(cuGraphExecDestroy(thread_exec));
	thread_exec = NULL;
	CHECK(cuStreamSynchronize(s));
	CHECK(cuStreamDestroy(s));
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "launch", "alloc", "crumb", "graph", "capture" };
	mode = -1;
	for (int k = 0; (argc == 5 || argc == 6) && k < 5; k++)
		if (!strcmp(argv[1], modes[k]))
			mode = k;
	if (mode < 0) {
		fprintf(stderr, "usage: launchbench launch|alloc|crumb|graph|capture THREADS OPS REPS [DEPTH]\n");
		return 2;
	}
	int threads = atoi(argv[2]);
	ops = atol(argv[3]);
	int reps = atoi(argv[4]);
	depth = argc == 6 ? atoi(argv[5]) : 0;
	evict = getenv("LAUNCHBENCH_EVICT") && atoi(getenv("LAUNCHBENCH_EVICT")) > 0;
	if (threads < 1 || threads > 64 || ops < 1 || reps < 1 || reps > 99 || depth < 0 ||
	    depth > 200) {
		fprintf(stderr, "launchbench: THREADS 1..64, OPS >= 1, REPS 1..99, DEPTH 0..200\n");
		return 2;
	}
	CUmodule mod;
	ctx = probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&fn, mod, "bench_k"));
	if (mode == MODE_CRUMB) {
		/* As the recorder registers its breadcrumb page. */
		CHECK(cuMemHostRegister(crumbs, sizeof crumbs,
					CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
		CHECK(cuMemHostGetDevicePointer(&crumbs_alias, crumbs, 0));
	}

	double per_rep[99], wall_rep[99];
	for (int r = 0; r < reps; r++) {
		pthread_t tid[64];
		struct worker_arg args[64];
		pthread_barrier_init(&start, NULL, (unsigned)threads);
		for (int t = 0; t < threads; t++) {
			args[t].thread = t;
			pthread_create(&tid[t], NULL, worker, &args[t]);
		}
		double sum = 0, wall = 0;
		for (int t = 0; t < threads; t++) {
			pthread_join(tid[t], NULL);
			sum += args[t].ns;
			wall += args[t].wall_ns;
		}
		pthread_barrier_destroy(&start);
		per_rep[r] = sum / threads;
		wall_rep[r] = wall / threads;
	}
	qsort(per_rep, (size_t)reps, sizeof per_rep[0], cmp);
	qsort(wall_rep, (size_t)reps, sizeof wall_rep[0], cmp);
	printf("ns_per_op %.1f\n", per_rep[reps / 2]);
	printf("wall_ns_per_op %.1f\n", wall_rep[reps / 2]);
	return 0;
}
