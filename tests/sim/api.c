/* Error codes of the driver API as cuda.h documents them: before cuInit, without a current
 * context, with invalid handles and values, bad launch configurations (which must not poison the
 * context), context stacks and primary-context retain counts, device queries.
 * With `errname CODE...`: print cuGetErrorName/cuGetErrorString of each code (errors.t). */
#include "simtest.h"

#include <string.h>

static void before_init(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr p;
	int n, v;
	IS_CU(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuStreamSynchronize(NULL), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuDriverGetVersion(&v), CUDA_SUCCESS);
	is_int(v, 13000, "cuDriverGetVersion works before cuInit and says 13000");
	const char *s = NULL;
	IS_CU(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s), CUDA_SUCCESS);
	is_str(s, "CUDA_ERROR_ILLEGAL_ADDRESS", "cuGetErrorName works before cuInit");
	IS_CU(cuInit(1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
	IS_CU(cuInit(0), CUDA_SUCCESS);
	IS_CU(cuInit(0), CUDA_SUCCESS);
}

static void devices(void)
{
	int n = -1, v = -1;
	char name[64];
	CUdevice dev;
	size_t mem = 0;
	IS_CU(cuDeviceGetCount(&n), CUDA_SUCCESS);
	is_int(n, 1, "one device by default");
	IS_CU(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
	IS_CU(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
	IS_CU(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
	IS_CU(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuDeviceGetName(name, sizeof(name), 0), CUDA_SUCCESS);
	ok(strstr(name, "H200") != NULL, "device name mentions H200: %s", name);
	IS_CU(cuDeviceTotalMem(&mem, 0), CUDA_SUCCESS);
	is_int(mem, 80ull << 30, "80 GiB by default");
	static const struct {
		CUdevice_attribute a;
		int want;
		const char *name;
	} attrs[] = {
		{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9, "compute capability major 9"},
		{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0, "compute capability minor 0"},
		{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132, "132 SMs"},
		{CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1, "unified addressing"},
		{CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 1, "host pointer usable"},
		{CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 1, "64-bit stream memops"},
		{CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024, "1024 threads per block"},
		{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152, "48 KiB shared per block"},
		{CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32, "warp size 32"},
	};
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		v = -1;
		cuDeviceGetAttribute(&v, attrs[i].a, 0);
		is_int(v, attrs[i].want, attrs[i].name);
	}
	IS_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 3), CUDA_ERROR_INVALID_DEVICE);
	char bus[32];
	IS_CU(cuDeviceGetPCIBusId(bus, sizeof(bus), 0), CUDA_SUCCESS);
	CUuuid a, b;
	IS_CU(cuDeviceGetUuid(&a, 0), CUDA_SUCCESS);
	IS_CU(cuDeviceGetUuid_v2(&b, 0), CUDA_SUCCESS);
	ok(memcmp(&a, &b, sizeof(a)) == 0, "both UUID entry points agree");
	const void *table = (const void *)1;
	CUuuid id = {{0}};
	IS_CU(cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
	ok(table == NULL, "cuGetExportTable hands out no table");
}

static void contexts(void)
{
	CUcontext ctx = NULL, prim, prim2, got;
	CUstream s;
	CUdeviceptr p;
	unsigned flags;
	int active;
	/* No current context yet. */
	IS_CU(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ok(got == NULL, "no current context at start");
	IS_CU(cuMemAlloc(&p, 64), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuStreamCreate(&s, 0), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuStreamSynchronize(NULL), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuModuleLoadData(&(CUmodule){0}, simtest_ptx), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuCtxPopCurrent(&got), CUDA_ERROR_INVALID_CONTEXT);

	/* Primary context: retain counts, state, release. */
	IS_CU(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	is_int(active, 0, "primary context inactive before retain");
	IS_CU(cuDevicePrimaryCtxRetain(&prim, 0), CUDA_SUCCESS);
	IS_CU(cuDevicePrimaryCtxRetain(&prim2, 0), CUDA_SUCCESS);
	ok(prim == prim2, "retaining twice gives the same context");
	IS_CU(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	is_int(active, 1, "active after retain");
	IS_CU(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	IS_CU(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	is_int(active, 1, "still active with one reference left");
	IS_CU(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC), CUDA_SUCCESS);
	IS_CU(cuDevicePrimaryCtxSetFlags(0, 0x1000), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuCtxDestroy(prim), CUDA_ERROR_INVALID_CONTEXT); /* primaries are released, not destroyed */

	/* Explicit contexts and the per-thread stack. */
	IS_CU(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	IS_CU(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ok(got == ctx, "cuCtxCreate makes the new context current");
	IS_CU(cuCtxPushCurrent(prim), CUDA_SUCCESS);
	IS_CU(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ok(got == prim, "push makes the primary current");
	IS_CU(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	is_int(flags, CU_CTX_SCHED_BLOCKING_SYNC, "primary context has the flags set on it");
	IS_CU(cuCtxPopCurrent(&got), CUDA_SUCCESS);
	ok(got == prim, "pop returns the primary");
	IS_CU(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ok(got == ctx, "the created context is current again");
	unsigned long long id1 = 0, id2 = 0;
	IS_CU(cuCtxGetId(ctx, &id1), CUDA_SUCCESS);
	IS_CU(cuCtxGetId(prim, &id2), CUDA_SUCCESS);
	ok(id1 && id2 && id1 != id2, "contexts have distinct ids");
	CUdevice dev = -1;
	IS_CU(cuCtxGetDevice_v2(&dev, prim), CUDA_SUCCESS);
	is_int(dev, 0, "cuCtxGetDevice_v2 on an explicit context");
	IS_CU(cuCtxSynchronize_v2(prim), CUDA_SUCCESS);
	CUevent ctx_event;
	CUstream ctx_stream;
	MUST(cuEventCreate(&ctx_event, 0));
	MUST(cuStreamCreate(&ctx_stream, 0));
	IS_CU(cuCtxDestroy(ctx), CUDA_SUCCESS);
	IS_CU(cuCtxGetCurrent(&got), CUDA_SUCCESS);
	ok(got == NULL, "destroying the current context pops it");
	IS_CU(cuCtxDestroy(ctx), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuEventQuery(ctx_event), CUDA_ERROR_INVALID_HANDLE); /* died with its context */
	IS_CU(cuStreamQuery(ctx_stream), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuCtxPushCurrent(ctx), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuCtxSetCurrent(ctx), CUDA_ERROR_INVALID_CONTEXT);
	IS_CU(cuCtxCreate(&ctx, NULL, 0, 7), CUDA_ERROR_INVALID_DEVICE);
	IS_CU(cuCtxSetCurrent(prim), CUDA_SUCCESS);
}

static void handles_and_values(CUfunction step)
{
	CUstream s, dead;
	CUevent ev, dead_ev;
	CUmodule mod;
	CUfunction f;
	CUdeviceptr p;
	IS_CU(cuStreamCreate(&s, 0x10), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuStreamCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	MUST(cuStreamCreate(&dead, 0));
	MUST(cuStreamDestroy(dead));
	IS_CU(cuStreamSynchronize(dead), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuStreamQuery(dead), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(simtest_launch(step, dead, 0), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuStreamDestroy(dead), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	MUST(cuEventCreate(&dead_ev, 0));
	MUST(cuEventDestroy(dead_ev));
	IS_CU(cuEventRecord(dead_ev, NULL), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuEventQuery(dead_ev), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuEventCreate(&ev, 0x100), CUDA_ERROR_INVALID_VALUE);
	MUST(cuEventCreate(&ev, 0));
	IS_CU(cuEventQuery(ev), CUDA_SUCCESS); /* never recorded: complete */
	float ms;
	IS_CU(cuEventElapsedTime(&ms, ev, ev), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuStreamWaitEvent(NULL, ev, 0), CUDA_SUCCESS); /* unrecorded: no-op */
	IS_CU(cuStreamWaitEvent(NULL, ev, 0x8), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuLaunchKernel((CUfunction)ev, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuModuleLoadData(&mod, "not ptx at all"), CUDA_ERROR_INVALID_IMAGE);
	IS_CU(cuModuleLoadData(&mod, "\x7f" "ELF\x02\x01\x01"), CUDA_ERROR_INVALID_IMAGE);
	IS_CU(cuModuleLoadData(&mod, ".version 8.0\n.target sm_90\n.entry broken(.param .u32 a,\n{ret;}"),
	      CUDA_ERROR_INVALID_PTX);
	IS_CU(cuModuleLoadData(&mod, ".version 9.9\n.target sm_90\n"), CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
	IS_CU(cuModuleLoadData(&mod, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuModuleLoad(&mod, "/nonexistent/kernels.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
	MUST(cuModuleLoadData(&mod, simtest_ptx));
	IS_CU(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
	MUST(cuModuleGetFunction(&f, mod, "step"));
	MUST(cuModuleUnload(mod));
	IS_CU(cuModuleGetFunction(&f, mod, "step"), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(simtest_launch(f, NULL, 0), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
	IS_CU(cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemAlloc(&p, 1ull << 40), CUDA_ERROR_OUT_OF_MEMORY);
	IS_CU(cuStreamDestroy(CU_STREAM_LEGACY), CUDA_ERROR_INVALID_HANDLE);
	MUST(cuEventDestroy(ev));
}

/* Bad configurations are refused with INVALID_VALUE and leave the context healthy. */
static void launch_configs(CUfunction step, CUfunction noargs)
{
	CUdeviceptr p;
	MUST(cuMemAlloc(&p, 256));
	unsigned n = 1;
	void *params[] = {&p, &n};
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 1025, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 32, 32, 2, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 1, 1, 65, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 0, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 0, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 65536, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 32, 1, 1, 48 * 1024 + 1, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	void *extra[] = {CU_LAUNCH_PARAM_END};
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 32, 1, 1, 0, NULL, params, extra), CUDA_ERROR_INVALID_VALUE);
	/* noargs: .maxntid 128 and 1 KiB of static shared memory. */
	IS_CU(cuLaunchKernel(noargs, 1, 1, 1, 129, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchKernel(noargs, 1, 1, 1, 128, 1, 1, 48 * 1024 - 1024, NULL, NULL, NULL), CUDA_SUCCESS);
	IS_CU(cuLaunchKernel(noargs, 1, 1, 1, 128, 1, 1, 48 * 1024 - 1023, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuFuncSetAttribute(noargs, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024), CUDA_SUCCESS);
	IS_CU(cuLaunchKernel(noargs, 1, 1, 1, 128, 1, 1, 100 * 1024, NULL, NULL, NULL), CUDA_SUCCESS);
	IS_CU(cuFuncSetAttribute(noargs, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024), CUDA_ERROR_INVALID_VALUE);
	CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, .value.clusterDim = {2, 1, 1}};
	CUlaunchConfig cfg = {3, 1, 1, 32, 1, 1, 0, NULL, &attr, 1};
	IS_CU(cuLaunchKernelEx(&cfg, step, params, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
	cfg.gridDimX = 4;
	IS_CU(cuLaunchKernelEx(&cfg, step, params, NULL), CUDA_SUCCESS);
	IS_CU(cuLaunchCooperativeKernel(step, 132 * 2 + 1, 1, 1, 1024, 1, 1, 0, NULL, params), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
	IS_CU(cuLaunchCooperativeKernel(step, 132 * 2, 1, 1, 1024, 1, 1, 0, NULL, params), CUDA_SUCCESS);
	IS_CU(cuCtxSynchronize(), CUDA_SUCCESS);
	IS_CU(cuLaunchKernel(step, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	MUST(cuMemFree(p));
}

static void names_and_params(CUmodule mod)
{
	CUfunction f;
	const char *name = NULL;
	size_t off = 99, size = 99;
	unsigned count = 0;
	MUST(cuModuleGetFunction(&f, mod, "step"));
	IS_CU(cuFuncGetName(&name, f), CUDA_SUCCESS);
	is_str(name, "step", "cuFuncGetName");
	IS_CU(cuFuncGetParamInfo(f, 1, &off, &size), CUDA_SUCCESS);
	ok(off == 8 && size == 4, "second parameter of step at 8, 4 bytes");
	IS_CU(cuFuncGetParamInfo(f, 2, &off, &size), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuFuncGetParamInfo(f, 0, &off, NULL), CUDA_SUCCESS);
	IS_CU(cuModuleGetFunctionCount(&count, mod), CUDA_SUCCESS);
	is_int(count, 3, "three kernels in the test module");
	CUmodule owner = NULL;
	IS_CU(cuFuncGetModule(&owner, f), CUDA_SUCCESS);
	ok(owner == mod, "cuFuncGetModule");
	int v = 0;
	IS_CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), CUDA_SUCCESS);
	is_int(v, 1024, "no .maxntid: 1024 threads");

	/* Libraries: context-free kernels, launchable as CUfunction (CUDA 12). */
	CUlibrary lib;
	CUkernel k;
	IS_CU(cuLibraryLoadData(&lib, simtest_ptx, NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
	IS_CU(cuLibraryGetKernel(&k, lib, "step"), CUDA_SUCCESS);
	IS_CU(cuLibraryGetKernel(&k, lib, "nope"), CUDA_ERROR_NOT_FOUND);
	MUST(cuLibraryGetKernel(&k, lib, "step"));
	IS_CU(cuKernelGetName(&name, k), CUDA_SUCCESS);
	is_str(name, "step", "cuKernelGetName");
	IS_CU(cuFuncGetName(&name, (CUfunction)k), CUDA_SUCCESS);
	IS_CU(cuKernelGetParamInfo(k, 1, &off, &size), CUDA_SUCCESS);
	ok(off == 8 && size == 4, "cuKernelGetParamInfo");
	IS_CU(simtest_launch((CUfunction)k, NULL, 0), CUDA_SUCCESS);
	CUfunction kf;
	IS_CU(cuKernelGetFunction(&kf, k), CUDA_SUCCESS);
	IS_CU(cuFuncGetName(&name, kf), CUDA_SUCCESS);
	is_str(name, "step", "the kernel's function has the same name");
	IS_CU(simtest_launch(kf, NULL, 0), CUDA_SUCCESS);
	CUlibrary back;
	IS_CU(cuKernelGetLibrary(&back, k), CUDA_SUCCESS);
	ok(back == lib, "cuKernelGetLibrary");
	IS_CU(cuLibraryGetKernelCount(&count, lib), CUDA_SUCCESS);
	is_int(count, 3, "cuLibraryGetKernelCount");
	IS_CU(cuCtxSynchronize(), CUDA_SUCCESS);
	IS_CU(cuLibraryUnload(lib), CUDA_SUCCESS);
	IS_CU(cuKernelGetName(&name, k), CUDA_ERROR_INVALID_HANDLE);
}

static int errnames(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		const char *n = NULL, *s = NULL;
		CUresult a = cuGetErrorName((CUresult)atoi(argv[i]), &n);
		CUresult b = cuGetErrorString((CUresult)atoi(argv[i]), &s);
		printf("%s %d %s %d %s\n", argv[i], a, n ? n : "(null)", b, s && *s ? "text" : "(none)");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "errname") == 0)
		return errnames(argc, argv);
	if (argc > 1 && strcmp(argv[1], "init") == 0) {
		const char *n = NULL;
		cuGetErrorName(cuInit(0), &n);
		printf("%s\n", n);
		return 0;
	}
	before_init();
	devices();
	contexts();
	CUmodule mod;
	CUfunction step, noargs;
	MUST(cuModuleLoadData(&mod, simtest_ptx));
	MUST(cuModuleGetFunction(&step, mod, "step"));
	MUST(cuModuleGetFunction(&noargs, mod, "noargs"));
	handles_and_values(step);
	launch_configs(step, noargs);
	names_and_params(mod);
	return simtest_done();
}
