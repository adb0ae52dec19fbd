/* Shared helpers for the simulator's C tests (tests/sim/NAME.c).  Each test is an ordinary driver
 * API program: it links against the toolkit's stub libcuda.so and runs against
 * build/sim/libcuda.so.1 through LD_LIBRARY_PATH, exactly as the engines do. */
#ifndef SIMTEST_H
#define SIMTEST_H
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tap.h"

/* A call that must succeed; on failure the test stops, since later results would be noise. */
#define MUST(call)                                                                                 \
	do {                                                                                       \
		CUresult r_ = (call);                                                              \
		if (r_ != CUDA_SUCCESS) {                                                          \
			const char *n_ = NULL;                                                     \
			cuGetErrorName(r_, &n_);                                                   \
			printf("Bail out! %s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
			       n_ ? n_ : "?");                                                     \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* Check a call's CUresult against the expected code, by name in the TAP line. */
#define IS_CU(call, want) is_int((call), (want), #call " == " #want)

/* A small module: a no-op kernel with a pointer and a count, and kernels for fault tests. */
static const char simtest_ptx[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	"\n"
	"// comments and a prototype must not confuse the reader\n"
	".visible .entry step(\n"
	"\t.param .u64 .ptr .global .align 4 step_param_0,\n"
	"\t.param .u32 step_param_1\n"
	")\n"
	"{\n"
	"\tret;\n"
	"}\n"
	".visible .entry bad_kernel(\n"
	"\t.param .u64 bad_kernel_param_0\n"
	")\n"
	"{\n"
	"\tret;\n"
	"}\n"
	".visible .entry noargs()\n"
	".maxntid 128, 1, 1\n"
	"{\n"
	"\t.shared .align 4 .b8 tile[1024];\n"
	"\tret;\n"
	"}\n";

static inline double simtest_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* cuInit + primary context of device 0 made current, and the test module loaded. */
static inline CUcontext simtest_setup(CUmodule *mod)
{
	CUcontext ctx;
	MUST(cuInit(0));
	MUST(cuDevicePrimaryCtxRetain(&ctx, 0));
	MUST(cuCtxSetCurrent(ctx));
	if (mod)
		MUST(cuModuleLoadData(mod, simtest_ptx));
	return ctx;
}

/* Launch `f` with a 1x1x1 grid and 32 threads; `arg` fills both parameters of `step`. */
static inline CUresult simtest_launch(CUfunction f, CUstream s, CUdeviceptr arg)
{
	unsigned n = 1;
	void *params[] = {&arg, &n};
	return cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}
/* End of a test: the plan goes last (TAP allows it), then the exit status. */
static inline int simtest_done(void)
{
	printf("1..%d\n", tap_n);
	return done_testing();
}
#endif
