/* Error codes of the driver API as cuda.h documents them: before cuInit, without a current
 * context, with invalid handles and values, bad launch configurations (which must not poison the
 * context), context stacks and primary-context retain counts, device queries.
 * With `errname CODE...`: print cuGetErrorName/cuGetErrorString of each code (errors.t). */
#include "simtest.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	/* The H200's driver refuses a CUkernel cast to CUfunction here (launches take it). */
	IS_CU(cuFuncGetName(&name, (CUfunction)k), CUDA_ERROR_INVALID_HANDLE);
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

/* Queries and hints beyond the engines' needs: stream attributes and device, PCI lookup, cache
 * preferences, occupancy (against the sm_90 limits: 2048 threads, 32 blocks, 64K registers and
 * 228 KiB shared memory per SM), pointer attribute sets, host allocation flags, memory pools,
 * managed-memory prefetch and advice. */
static void extras(CUfunction step)
{
	CUstream s, t;
	CUdevice dev = -1;
	MUST(cuStreamCreate(&s, 0));
	MUST(cuStreamCreate(&t, 0));
	IS_CU(cuStreamGetDevice(s, &dev), CUDA_SUCCESS);
	is_int(dev, 0, "cuStreamGetDevice");
	CUstreamAttrValue v = {0}, got = {0};
	v.priority = -3;
	IS_CU(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
	int prio = 0;
	MUST(cuStreamGetPriority(s, &prio));
	is_int(prio, -3, "setting the PRIORITY attribute sets the stream's priority");
	v.syncPolicy = CU_SYNC_POLICY_YIELD;
	IS_CU(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_SUCCESS);
	IS_CU(cuStreamCopyAttributes(t, s), CUDA_SUCCESS);
	IS_CU(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &got), CUDA_SUCCESS);
	is_int(got.syncPolicy, CU_SYNC_POLICY_YIELD, "attributes read back after cuStreamCopyAttributes");
	IS_CU(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_PRIORITY, &got), CUDA_SUCCESS);
	is_int(got.priority, -3, "priority copied too");
	IS_CU(cuStreamGetAttribute(t, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &got), CUDA_ERROR_INVALID_VALUE);

	char bus[32];
	MUST(cuDeviceGetPCIBusId(bus, sizeof(bus), 0));
	dev = -1;
	IS_CU(cuDeviceGetByPCIBusId(&dev, bus), CUDA_SUCCESS);
	is_int(dev, 0, "cuDeviceGetByPCIBusId finds what cuDeviceGetPCIBusId wrote");
	IS_CU(cuDeviceGetByPCIBusId(&dev, "0000:99:00.0"), CUDA_ERROR_INVALID_DEVICE);
	IS_CU(cuDeviceGetByPCIBusId(&dev, "bus zero"), CUDA_ERROR_INVALID_VALUE);

	CUfunc_cache cache = CU_FUNC_CACHE_PREFER_NONE;
	IS_CU(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1), CUDA_SUCCESS);
	IS_CU(cuCtxGetCacheConfig(&cache), CUDA_SUCCESS);
	is_int(cache, CU_FUNC_CACHE_PREFER_L1, "cache preference reads back");
	IS_CU(cuCtxSetCacheConfig((CUfunc_cache)7), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuFuncSetCacheConfig(step, CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
	MUST(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_NONE));

	/* step: 32 registers per thread (the default), no shared memory. */
	int blocks = -1, min_grid = -1, block = -1;
	IS_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, step, 256, 0), CUDA_SUCCESS);
	is_int(blocks, 8, "256 threads: 8 blocks per SM (2048 threads)");
	MUST(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, step, 32, 0));
	is_int(blocks, 32, "32 threads: 32 blocks per SM (the block limit)");
	MUST(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, step, 256, 40 * 1024));
	is_int(blocks, 5, "256 threads with 40 KiB shared: 5 blocks (228 KiB per SM)");
	MUST(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, step, 1025, 0));
	is_int(blocks, 0, "an impossible block size: 0 blocks");
	IS_CU(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, step, NULL, 0, 0), CUDA_SUCCESS);
	ok(block == 1024 && min_grid == 2 * 132, "largest block at full occupancy: %d threads, grid %d", block, min_grid);
	IS_CU(cuOccupancyMaxPotentialBlockSizeWithFlags(&min_grid, &block, step, NULL, 0, 256, 0), CUDA_SUCCESS);
	ok(block == 256 && min_grid == 8 * 132, "with a 256-thread limit: %d threads, grid %d", block, min_grid);

	CUdeviceptr d;
	MUST(cuMemAlloc(&d, 1000));
	CUpointer_attribute attrs[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
					CU_POINTER_ATTRIBUTE_HOST_POINTER};
	unsigned type = 0;
	size_t size = 0;
	void *host = (void *)1;
	void *data[3] = {&type, &size, &host};
	IS_CU(cuPointerGetAttributes(3, attrs, data, d + 10), CUDA_SUCCESS);
	ok(type == CU_MEMORYTYPE_DEVICE && size == 1000 && host == NULL,
	   "cuPointerGetAttributes: device memory, 1000 bytes, no host pointer");
	int local;
	type = 9;
	IS_CU(cuPointerGetAttributes(3, attrs, data, (CUdeviceptr)(uintptr_t)&local), CUDA_SUCCESS);
	ok(type == 0 && size == 0 && host == NULL, "an unknown pointer reads as zeros, without an error");
	MUST(cuMemFree(d));

	void *pinned;
	unsigned flags = 0;
	MUST(cuMemHostAlloc(&pinned, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
	IS_CU(cuMemHostGetFlags(&flags, (char *)pinned + 8), CUDA_SUCCESS);
	is_int(flags, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP, "cuMemHostGetFlags");
	IS_CU(cuMemHostGetFlags(&flags, &local), CUDA_ERROR_INVALID_VALUE);
	MUST(cuMemFreeHost(pinned));

	CUmemoryPool def, cur, mine;
	MUST(cuDeviceGetDefaultMemPool(&def, 0));
	IS_CU(cuDeviceGetMemPool(&cur, 0), CUDA_SUCCESS);
	ok(cur == def, "the current pool starts as the default pool");
	CUmemPoolProps props = {0};
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	MUST(cuMemPoolCreate(&mine, &props));
	IS_CU(cuDeviceSetMemPool(0, mine), CUDA_SUCCESS);
	MUST(cuMemAllocAsync(&d, 3000, s));
	cuuint64_t used = 0, high = 0, zero = 0, threshold = 1 << 20;
	IS_CU(cuMemPoolGetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used), CUDA_SUCCESS);
	ok(used >= 3000 && used < 8192, "cuMemAllocAsync draws from the pool set with cuDeviceSetMemPool (%llu)",
	   (unsigned long long)used);
	MUST(cuMemFreeAsync(d, s));
	MUST(cuStreamSynchronize(s));
	MUST(cuMemPoolGetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
	MUST(cuMemPoolGetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &high));
	ok(used == 0 && high >= 3000, "after the free: nothing used, the high watermark remains");
	IS_CU(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero), CUDA_SUCCESS);
	MUST(cuMemPoolGetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &high));
	is_int(high, 0, "the watermark resets");
	IS_CU(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold), CUDA_SUCCESS);
	threshold = 0;
	MUST(cuMemPoolGetAttribute(mine, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
	is_int(threshold, 1 << 20, "the release threshold reads back");
	IS_CU(cuMemPoolTrimTo(mine, 0), CUDA_SUCCESS);
	IS_CU(cuMemPoolDestroy(mine), CUDA_SUCCESS);
	MUST(cuDeviceGetMemPool(&cur, 0));
	ok(cur == def, "destroying the current pool falls back to the default one");
	IS_CU(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);

	CUdeviceptr managed;
	CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, bad = {CU_MEM_LOCATION_TYPE_DEVICE, 5};
	MUST(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
	IS_CU(cuMemPrefetchAsync(managed, 4096, loc, 0, s), CUDA_SUCCESS);
	IS_CU(cuMemPrefetchAsync(managed, 4096, bad, 0, s), CUDA_ERROR_INVALID_VALUE);
	MUST(cuMemAlloc(&d, 64));
	IS_CU(cuMemPrefetchAsync(d, 64, loc, 0, s), CUDA_ERROR_INVALID_VALUE); /* not managed */
	IS_CU(cuMemAdvise(managed, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, loc), CUDA_SUCCESS);
	IS_CU(cuMemAdvise(managed, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, bad), CUDA_ERROR_INVALID_VALUE);
	MUST(cuStreamSynchronize(s));
	MUST(cuMemFree(managed));
	MUST(cuMemFree(d));
	MUST(cuStreamDestroy(s));
	MUST(cuStreamDestroy(t));
}

/* CUDASIM_DEVICES=2 (api.t): each device has its own primary context, address window and UUID;
 * copies and events work across them. */
static int two_devices(void)
{
	int n = 0;
	MUST(cuInit(0));
	MUST(cuDeviceGetCount(&n));
	is_int(n, 2, "two devices");
	CUcontext c0, c1;
	MUST(cuDevicePrimaryCtxRetain(&c0, 0));
	MUST(cuDevicePrimaryCtxRetain(&c1, 1));
	ok(c0 != c1, "separate primary contexts");
	CUuuid u0, u1;
	MUST(cuDeviceGetUuid(&u0, 0));
	MUST(cuDeviceGetUuid(&u1, 1));
	ok(memcmp(&u0, &u1, sizeof(u0)) != 0, "distinct UUIDs");
	CUdeviceptr d0, d1;
	MUST(cuCtxSetCurrent(c0));
	MUST(cuMemAlloc(&d0, 4096));
	MUST(cuCtxSetCurrent(c1));
	MUST(cuMemAlloc(&d1, 4096));
	int ord0 = -1, ord1 = -1;
	IS_CU(cuPointerGetAttribute(&ord0, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d0), CUDA_SUCCESS);
	IS_CU(cuPointerGetAttribute(&ord1, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d1), CUDA_SUCCESS);
	ok(ord0 == 0 && ord1 == 1, "each pointer belongs to its device");
	char in[8] = "peer", out[8] = {0};
	MUST(cuMemcpyHtoD(d0, in, 8));
	IS_CU(cuMemcpyDtoD(d1, d0, 8), CUDA_SUCCESS); /* unified addressing: any direction */
	MUST(cuMemcpyDtoH(out, d1, 8));
	is_str(out, "peer", "a copy from device 0 memory to device 1 memory");
	CUevent ev;
	CUstream s0, s1;
	MUST(cuCtxSetCurrent(c0));
	MUST(cuStreamCreate(&s0, 0));
	MUST(cuEventCreate(&ev, 0));
	MUST(cuEventRecord(ev, s0));
	MUST(cuCtxSetCurrent(c1));
	MUST(cuStreamCreate(&s1, 0));
	IS_CU(cuStreamWaitEvent(s1, ev, 0), CUDA_SUCCESS); /* an event of another context */
	IS_CU(cuStreamSynchronize(s1), CUDA_SUCCESS);
	CUdevice dev = -1;
	MUST(cuCtxGetDevice(&dev));
	is_int(dev, 1, "the current context is device 1's");
	return simtest_done();
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
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		/* After fork, the child cannot use the driver the parent initialized. */
		CUmodule m;
		CUcontext c;
		simtest_setup(&m);
		pid_t pid = fork();
		if (pid == 0) {
			const char *a = NULL, *b = NULL;
			cuGetErrorName(cuCtxGetCurrent(&c), &a);
			cuGetErrorName(cuInit(0), &b);
			printf("%s %s\n", a, b);
			fflush(stdout);
			_exit(0);
		}
		int status;
		waitpid(pid, &status, 0);
		const char *p = NULL;
		cuGetErrorName(cuCtxSynchronize(), &p);
		printf("parent %s\n", p);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "two-devices") == 0)
		return two_devices();
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
	extras(step);
	return simtest_done();
}
