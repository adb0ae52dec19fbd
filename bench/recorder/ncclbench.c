/* SPDX-License-Identifier: MIT */
/*
 * ncclbench: the cost of an NCCL collective as the calling thread pays it, for the recorder's
 * overhead benchmark (bench/recorder/run.sh runs it with and without the recorder and takes the
 * difference).  Meant for the simulated driver in null mode with the simulated NCCL and a
 * communicator of one rank, where a collective completes inline, so that what is left is the
 * recorder (and the simulated NCCL's own driver calls: a host function and a stream wait).
 *
 *   ncclbench allreduce OPS REPS   ncclAllReduce on one stream, back to back
 *   ncclbench step OPS REPS        a kernel launch then ncclAllReduce, as a decode layer: the
 *                                  per-op figure is the pair's
 *
 * NCCL is reached as vLLM does, dlopen("libnccl.so.2") and dlsym.  Time is the thread's CPU
 * time over OPS ops; prints "ns_per_op X", the median over REPS runs.
 */
#define PROBE_NAME "ncclbench"
#include "../../tests/recorder/probe.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry bench_k(\n\t.param .u64 a,\n\t.param .u32 b,\n"
			  "\t.param .u64 c\n)\n{\n\tret;\n}\n";

static double thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "allreduce") && strcmp(argv[1], "step"))) {
		fprintf(stderr, "usage: ncclbench allreduce|step OPS REPS\n");
		return 2;
	}
	int step = !strcmp(argv[1], "step");
	long ops = atol(argv[2]);
	int reps = atoi(argv[3]);
	if (ops < 1 || reps < 1 || reps > 99) {
		fprintf(stderr, "ncclbench: OPS >= 1, REPS 1..99\n");
		return 2;
	}
	void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "ncclbench: %s\n", dlerror());
		return 1;
	}
	/* NCCLBENCH_LOOKUP=default: find the functions in the global scope, where the library
	 * (loaded RTLD_LOCAL) is not: only an interposer's exports are (the tests' way of calling
	 * the recorder's exported wrappers before any door told it where NCCL is). */
	__typeof__(&ncclGetUniqueId) get_id = (__typeof__(get_id))dlsym(lib, "ncclGetUniqueId");
	const char *how = getenv("NCCLBENCH_LOOKUP");
	if (how && !strcmp(how, "default"))
		lib = RTLD_DEFAULT;
	__typeof__(&ncclCommInitRank) init = (__typeof__(init))dlsym(lib, "ncclCommInitRank");
	__typeof__(&ncclAllReduce) allreduce = (__typeof__(allreduce))dlsym(lib, "ncclAllReduce");
	__typeof__(&ncclCommDestroy) destroy = (__typeof__(destroy))dlsym(lib, "ncclCommDestroy");
	if (!get_id || !init || !allreduce || !destroy) {
		fprintf(stderr, "ncclbench: libnccl.so.2 lacks a function\n");
		return 1;
	}
	CUmodule mod;
	CUfunction fn;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&fn, mod, "bench_k"));
	CUstream s;
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUdeviceptr buf;
	CHECK(cuMemAlloc(&buf, 4096));
	ncclUniqueId id;
	ncclComm_t comm;
	if (get_id(&id) != ncclSuccess || init(&comm, 1, id, 0) != ncclSuccess) {
		fprintf(stderr, "ncclbench: cannot make a communicator\n");
		return 1;
	}
	uint64_t a = buf, c = 7;
	uint32_t b = 3;
	void *params[] = { &a, &b, &c };
	double per[100];
	for (int rep = 0; rep <= reps; rep++) { /* run 0 warms up */
		double t0 = thread_ns();
		for (long i = 0; i < ops; i++) {
			if (step)
				CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
			if (allreduce((void *)buf, (void *)buf, 256, ncclFloat, ncclSum, comm, s) !=
			    ncclSuccess) {
				fprintf(stderr, "ncclbench: ncclAllReduce failed\n");
				return 1;
			}
		}
		if (rep)
			per[rep - 1] = (thread_ns() - t0) / (double)ops;
	}
	CHECK(cuStreamSynchronize(s));
	destroy(comm);
	qsort(per, (size_t)reps, sizeof per[0], cmp);
	printf("ns_per_op %.1f\n", per[reps / 2]);
	return 0;
}
