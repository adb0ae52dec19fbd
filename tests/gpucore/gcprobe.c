/* SPDX-License-Identifier: MIT */
/*
 * gcprobe: one kernel launch that the simulated driver is told to fault (CUDASIM_FAULT), for the
 * GPU cores the simulator writes (tests/gpucore/sim.t, fuzz-seeds.sh).  The kernel comes from a
 * small PTX module, with line information (.file/.loc, as nvcc -lineinfo writes it) or without.
 *
 *   gcprobe [--loc] [--grid X,Y,Z] [--block X,Y,Z] [--print-ptx]
 *
 * Prints its pid ("pid N"), the launch's buffer address ("buffer 0x...") and the error the
 * synchronization returned ("result CUDA_ERROR_..."); exit 0 when that is an error, 1 when the
 * kernel did not fault.  --print-ptx prints the module's PTX and exits.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* probe_store(out, n): out[tid] = tid; line 42 of /src/probe/probe.cu with --loc. */
static const char ptx_head[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	"\n"
	".visible .entry probe_store(\n"
	"\t.param .u64 probe_store_param_0,\n"
	"\t.param .u32 probe_store_param_1\n"
	")\n"
	"{\n"
	"\t.reg .b32 %r<4>;\n"
	"\t.reg .b64 %rd<5>;\n"
	"\n"
	"\tld.param.u64 %rd1, [probe_store_param_0];\n"
	"\tmov.u32 %r1, %tid.x;\n";
static const char ptx_loc[] = "\t.loc 1 42 5\n";
static const char ptx_tail[] =
	"\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tmul.wide.u32 %rd3, %r1, 4;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tst.global.u32 [%rd4], %r1;\n"
	"\tret;\n"
	"}\n";
static const char ptx_files[] = "\t.file 1 \"/src/probe/probe.cu\"\n";

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS) {
		const char *name = "?";
		cuGetErrorName(r, &name);
		fprintf(stderr, "gcprobe: %s: %s\n", what, name);
		exit(2);
	}
}

static void dims(const char *s, unsigned d[3])
{
	d[0] = d[1] = d[2] = 1;
	if (sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]) < 1 || !d[0] || !d[1] || !d[2]) {
		fprintf(stderr, "gcprobe: '%s' is not X[,Y[,Z]]\n", s);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	int loc = 0, print = 0;
	unsigned grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--loc") == 0)
			loc = 1;
		else if (strcmp(argv[i], "--print-ptx") == 0)
			print = 1;
		else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc)
			dims(argv[++i], grid);
		else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc)
			dims(argv[++i], block);
		else {
			fprintf(stderr, "usage: gcprobe [--loc] [--grid X,Y,Z] [--block X,Y,Z] [--print-ptx]\n");
			return 2;
		}
	}
	char ptx[2048];
	snprintf(ptx, sizeof ptx, "%s%s%s%s", ptx_head, loc ? ptx_loc : "", ptx_tail, loc ? ptx_files : "");
	if (print) {
		fputs(ptx, stdout);
		return 0;
	}
	printf("pid %d\n", (int)getpid());
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr buf;
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	check(cuModuleLoadData(&mod, ptx), "cuModuleLoadData");
	check(cuModuleGetFunction(&fn, mod, "probe_store"), "cuModuleGetFunction");
	unsigned n = grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
	check(cuMemAlloc(&buf, (size_t)n * 4), "cuMemAlloc");
	printf("buffer 0x%llx\n", (unsigned long long)buf);
	fflush(stdout);
	void *args[] = {&buf, &n};
	check(cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, args, NULL),
	      "cuLaunchKernel");
	CUresult r = cuCtxSynchronize();
	const char *name = "?";
	cuGetErrorName(r, &name);
	printf("result %s\n", name);
	return r == CUDA_SUCCESS;
}
