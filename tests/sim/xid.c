/* The Xid lines the simulator writes to CUDASIM_KERNEL_LOG (run by xid.t with the variables
 * set; xid.t parses the log with the reader's kernel-log parser and checks the lines against the
 * pointers this program prints as TAP comments).
 *
 *   kernel [DEV]  attn(q, kv, n) faults (CUDASIM_FAULT=attn@1:...) on device DEV (default 0)
 *   graph         attn captured in a graph; the 2nd replay faults (CUDASIM_FAULT=attn@2:...)
 *   copy          the 2nd copy (a device-to-device one) faults (CUDASIM_FAULT=.copy@2:...)
 *   set           the 1st memset faults (CUDASIM_FAULT=.set@1)
 *   init          only cuInit: prints its result (malformed variables)
 *
 * Comments printed: "# planted 0x..." (kv, the pointer the fault's arg= clause names, or the
 * copy's source / the set's destination), "# dst 0x...", "# pid N", "# pci BUSID",
 * "# mono_before US" and "# mono_after US" (CLOCK_MONOTONIC around the faulting work).
 */
#include "simtest.h"

#include <string.h>
#include <unistd.h>

static const char xid_ptx[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	".visible .entry attn(\n"
	"\t.param .u64 .ptr .global .align 4 attn_q,\n"
	"\t.param .u64 .ptr .global .align 4 attn_kv,\n"
	"\t.param .u32 attn_n\n"
	")\n"
	"{\n"
	"\tret;\n"
	"}\n";

#define KV_BYTES 262144

static unsigned long long mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
}

static CUcontext setup(int dev, CUfunction *attn)
{
	CUdevice d;
	CUcontext ctx;
	CUmodule mod;
	MUST(cuInit(0));
	MUST(cuDeviceGet(&d, dev));
	MUST(cuDevicePrimaryCtxRetain(&ctx, d));
	MUST(cuCtxSetCurrent(ctx));
	MUST(cuModuleLoadData(&mod, xid_ptx));
	MUST(cuModuleGetFunction(attn, mod, "attn"));
	char bus[32];
	MUST(cuDeviceGetPCIBusId(bus, sizeof(bus), d));
	printf("# pid %d\n# pci %s\n", (int)getpid(), bus);
	return ctx;
}

static CUresult launch_attn(CUfunction f, CUstream s, CUdeviceptr q, CUdeviceptr kv)
{
	unsigned n = 64;
	void *params[] = {&q, &kv, &n};
	return cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kernel";
	if (strcmp(mode, "init") == 0) {
		printf("# cuInit %d\n", (int)cuInit(0));
		return 0;
	}
	CUfunction attn;
	int dev = argc > 2 ? atoi(argv[2]) : 0;
	setup(dev, &attn);
	CUdeviceptr q, kv, other;
	MUST(cuMemAlloc(&q, 4096));
	MUST(cuMemAlloc(&kv, KV_BYTES));
	MUST(cuMemAlloc(&other, KV_BYTES));
	unsigned long long before = 0;
	if (strcmp(mode, "kernel") == 0) {
		printf("# planted 0x%llx\n", (unsigned long long)kv);
		before = mono_us();
		IS_CU(launch_attn(attn, NULL, q, kv), CUDA_SUCCESS);
	} else if (strcmp(mode, "graph") == 0) {
		CUstream s;
		CUgraph g;
		CUgraphExec x;
		MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
		MUST(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
		IS_CU(launch_attn(attn, s, q, kv), CUDA_SUCCESS);
		MUST(cuStreamEndCapture(s, &g));
		MUST(cuGraphInstantiateWithFlags(&x, g, 0));
		printf("# planted 0x%llx\n", (unsigned long long)kv);
		before = mono_us();
		IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
		IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
		IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	} else if (strcmp(mode, "copy") == 0) {
		unsigned char host[64] = {1};
		printf("# planted 0x%llx\n# dst 0x%llx\n", (unsigned long long)kv, (unsigned long long)other);
		before = mono_us();
		IS_CU(cuMemcpyHtoD(other, host, sizeof(host)), CUDA_SUCCESS);
		IS_CU(cuMemcpyDtoD(other, kv, 4096), CUDA_SUCCESS);
	} else if (strcmp(mode, "set") == 0) {
		printf("# planted 0x%llx\n", (unsigned long long)(kv + 8192));
		before = mono_us();
		IS_CU(cuMemsetD32(kv + 8192, 7, 16), CUDA_SUCCESS);
	} else {
		printf("Bail out! unknown mode %s\n", mode);
		return 2;
	}
	IS_CU(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
	printf("# mono_before %llu\n# mono_after %llu\n", before, mono_us());
	return simtest_done();
}
