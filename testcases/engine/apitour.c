/*
 * apitour: a scripted walk through many kinds of CUDA driver calls, for the recorder's "every
 * recorded kind" tests and for comparing a driver with and without the recorder.  Each call
 * prints one line, `GROUP API -> RESULT [facts]`, where the facts are values that do not
 * depend on addresses (sizes, counts, names, equalities), so two runs can be compared line by
 * line.  Some calls are made to fail on purpose (group "errors"); a result other than the one
 * cuda.h documents is flagged UNEXPECTED and makes the exit status 1.
 * Groups: context module library memory pool vmm stream launch graph errors (docs/ENGINES.md).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

#define ANY ((CUresult)-1) /* any result is fine: the line records what the driver did */

static const char *group = "setup";
static unsigned calls, surprises;

static struct {
	CUdevice dev;
	CUcontext ctx;
	CUmodule module;
	CUfunction fill, noop, attention;
	CUstream stream;
	CUdeviceptr buf; /* 4 KiB scratch for kernels to fill */
} T;

__attribute__((format(printf, 4, 5))) static CUresult step(const char *api, CUresult got,
							   CUresult want, const char *fmt, ...)
{
	char facts[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(facts, sizeof facts, fmt, ap);
	va_end(ap);
	calls++;
	printf("%s %s -> %s%s%s", group, api, engine_error_name(got), *facts ? " " : "", facts);
	if (want != ANY && got != want) {
		printf(" UNEXPECTED (cuda.h says %s)", engine_error_name(want));
		surprises++;
	}
	printf("\n");
	return got;
}

/* Run `call` first, then report it (the facts may read its out-parameters). */
#define DO(want, api, call) ({ CUresult r_ = (call); step(api, r_, want, "%s", ""); })
#define DOF(want, api, call, ...) ({ CUresult r_ = (call); step(api, r_, want, __VA_ARGS__); })
#define OK(api, call) DO(CUDA_SUCCESS, api, call)
#define OKF(api, call, ...) DOF(CUDA_SUCCESS, api, call, __VA_ARGS__)

static const char *yes(int c)
{
	return c ? "yes" : "no";
}

/* Fill n u32 of dst with value on stream s with fill_u32 and return the launch result. */
static CUresult fill_launch(CUfunction f, CUdeviceptr dst, unsigned value, int n, CUstream s)
{
	void *args[] = {&dst, &value, &n};
	return cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, args, NULL);
}

/* 1 when the first n u32 at dst all equal value (synchronous copy back). */
static int holds(CUdeviceptr dst, unsigned value, int n)
{
	unsigned host[1024];
	if (n > 1024 || cuMemcpyDtoH(host, dst, n * sizeof *host) != CUDA_SUCCESS)
		return 0;
	for (int i = 0; i < n; i++)
		if (host[i] != value)
			return 0;
	return 1;
}

static void tour_context(void)
{
	CUcontext cur = NULL, made = NULL, popped = NULL;
	unsigned long long id = 0;
	CUdevice d = -1;
	OKF("cuCtxGetCurrent", cuCtxGetCurrent(&cur), "primary=%s", yes(cur == T.ctx));
	OKF("cuCtxGetId", cuCtxGetId(T.ctx, &id), "nonzero=%s", yes(id != 0));
	OKF("cuCtxGetDevice", cuCtxGetDevice(&d), "device=%d", d);
	if (OK("cuCtxCreate", cuCtxCreate(&made, NULL, 0, T.dev)) != CUDA_SUCCESS)
		return;
	OKF("cuCtxGetCurrent", cuCtxGetCurrent(&cur), "created=%s", yes(cur == made));
	OKF("cuCtxPopCurrent", cuCtxPopCurrent(&popped), "created=%s", yes(popped == made));
	OKF("cuCtxGetCurrent", cuCtxGetCurrent(&cur), "primary=%s", yes(cur == T.ctx));
	OK("cuCtxPushCurrent", cuCtxPushCurrent(made));
	OK("cuCtxSynchronize", cuCtxSynchronize());
	OK("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
	OK("cuCtxDestroy", cuCtxDestroy(made));
	OK("cuCtxSetCurrent", cuCtxSetCurrent(T.ctx));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Offsets and sizes of a function's parameters as "off/size ..." (ends at the first error,
 * which cuda.h says is CUDA_ERROR_INVALID_VALUE past the last parameter). */
static void param_layout(const char *api, CUresult (*info)(void *, size_t, size_t *, size_t *),
			 void *f)
{
	char text[256] = "";
	size_t used = 0, off, size, i;
	CUresult r = CUDA_SUCCESS;
	for (i = 0; i < 32 && (r = info(f, i, &off, &size)) == CUDA_SUCCESS; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "%s%zu/%zu", i ? " " : "",
					 off, size);
	step(api, r, CUDA_ERROR_INVALID_VALUE, "params=%zu layout=%s", i, text);
}

static CUresult func_param_info(void *f, size_t i, size_t *off, size_t *size)
{
	return cuFuncGetParamInfo((CUfunction)f, i, off, size);
}

static CUresult kernel_param_info(void *k, size_t i, size_t *off, size_t *size)
{
	return cuKernelGetParamInfo((CUkernel)k, i, off, size);
}

static void tour_module(void)
{
	unsigned count = 0;
	CUfunction fns[32];
	const char *names[32];
	CUfunction f;
	CUmodule m = NULL;
	int threads = 0;

	if (OKF("cuModuleGetFunctionCount", cuModuleGetFunctionCount(&count, T.module), "count=%u",
		count) != CUDA_SUCCESS || count > 32)
		return;
	OK("cuModuleEnumerateFunctions", cuModuleEnumerateFunctions(fns, count, T.module));
	unsigned named = 0;
	for (unsigned i = 0; i < count; i++)
		if (cuFuncGetName(&names[named], fns[i]) == CUDA_SUCCESS)
			named++;
	qsort(names, named, sizeof *names, by_name);
	char list[1024] = "";
	size_t used = 0;
	for (unsigned i = 0; i < named; i++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? "," : "",
					 names[i]);
	step("cuFuncGetName", named == count ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS,
	     "names=%s", list);
	OK("cuModuleGetFunction", cuModuleGetFunction(&f, T.module, KERNEL_MATVEC));
	const char *name = NULL;
	OKF("cuFuncGetName", cuFuncGetName(&name, f), "name=%s", name ? name : "(null)");
	param_layout("cuFuncGetParamInfo(paged_attention)", func_param_info, T.attention);
	param_layout("cuFuncGetParamInfo(noop)", func_param_info, T.noop);
	OKF("cuFuncGetAttribute", cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
						     T.fill),
	    "max_threads_positive=%s", yes(threads > 0));
	OKF("cuFuncGetModule", cuFuncGetModule(&m, T.fill), "same=%s", yes(m == T.module));
}

static void tour_library(void)
{
	CUlibrary lib = NULL, owner = NULL;
	CUkernel k = NULL;
	CUfunction f = NULL;
	CUmodule m = NULL;
	unsigned count = 0;
	const char *name = NULL;

	CUresult r = cuLibraryLoadData(&lib, engine_kernels_image(0), NULL, NULL, 0, NULL, NULL, 0);
	if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
		r = cuLibraryLoadData(&lib, engine_kernels_image(1), NULL, NULL, 0, NULL, NULL, 0);
	if (step("cuLibraryLoadData", r, CUDA_SUCCESS, "%s", "") != CUDA_SUCCESS)
		return;
	OKF("cuLibraryGetKernelCount", cuLibraryGetKernelCount(&count, lib), "count=%u", count);
	if (OK("cuLibraryGetKernel", cuLibraryGetKernel(&k, lib, "fill_u32")) == CUDA_SUCCESS) {
		OKF("cuKernelGetName", cuKernelGetName(&name, k), "name=%s", name ? name : "(null)");
		param_layout("cuKernelGetParamInfo(fill_u32)", kernel_param_info, k);
		OKF("cuKernelGetFunction", cuKernelGetFunction(&f, k), "nonnull=%s", yes(f != NULL));
		OKF("cuKernelGetLibrary", cuKernelGetLibrary(&owner, k), "same=%s", yes(owner == lib));
		/* Open question (docs/GPU-VALIDATION.md, item 2): is a CUkernel cast to CUfunction a
		 * valid cuFuncGetName handle?  Undocumented, so any answer is recorded. */
		name = NULL;
		DOF(ANY, "cuFuncGetName(CUkernel as CUfunction)", cuFuncGetName(&name, (CUfunction)k),
		    "name=%s", name ? name : "(null)");
		/* The CUDA 12 cudart path: launch the CUkernel cast to CUfunction. */
		OK("cuMemsetD32", cuMemsetD32(T.buf, 0, 256));
		OKF("cuLaunchKernel(CUkernel)", fill_launch((CUfunction)k, T.buf, 0x5a5a, 256, T.stream),
		    "%s", "");
		OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "filled=%s",
		    yes(holds(T.buf, 0x5a5a, 256)));
	}
	OKF("cuLibraryGetModule", cuLibraryGetModule(&m, lib), "nonnull=%s", yes(m != NULL));
	OK("cuLibraryUnload", cuLibraryUnload(lib));
}

static void tour_memory(void)
{
	CUdeviceptr d = 0, d2 = 0, base = 0, pitched = 0, managed = 0, mapped = 0, alias = 0;
	size_t size = 0, pitch = 0, free_b = 0, total_b = 0;
	unsigned mem_type = 0;
	unsigned char bytes[4096];
	void *host = NULL, *hostmap = NULL;
	int same_ptr_attr = 0;

	if (OK("cuMemAlloc", cuMemAlloc(&d, 1 << 20)) != CUDA_SUCCESS)
		return;
	OKF("cuMemGetAddressRange", cuMemGetAddressRange(&base, &size, d + 4096),
	    "base_is_alloc=%s size=%zu", yes(base == d), size);
	OKF("cuPointerGetAttribute", cuPointerGetAttribute(&mem_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
	    "device=%s", yes(mem_type == CU_MEMORYTYPE_DEVICE));
	OK("cuMemsetD32", cuMemsetD32(d, 0xabcd1234u, 1024));
	OKF("cuMemcpyDtoH", cuMemcpyDtoH(bytes, d, 4096), "pattern=%s",
	    yes(((unsigned *)bytes)[1023] == 0xabcd1234u));
	for (unsigned i = 0; i < sizeof bytes; i++)
		bytes[i] = (unsigned char)(i * 7);
	OK("cuMemcpyHtoD", cuMemcpyHtoD(d, bytes, sizeof bytes));
	OK("cuMemAlloc", cuMemAlloc(&d2, 4096));
	OK("cuMemcpyDtoD", cuMemcpyDtoD(d2, d, 4096));
	memset(bytes, 0, sizeof bytes);
	OKF("cuMemcpyDtoH", cuMemcpyDtoH(bytes, d2, 4096), "roundtrip=%s",
	    yes(bytes[4095] == (unsigned char)(4095 * 7)));
	OK("cuMemsetD8", cuMemsetD8(d2, 0x11, 4096));
	OK("cuMemFree", cuMemFree(d2));
	OK("cuMemFree", cuMemFree(d));

	OKF("cuMemAllocPitch", cuMemAllocPitch(&pitched, &pitch, 1000, 8, 4), "pitch_ok=%s",
	    yes(pitch >= 1000));
	if (pitched)
		OK("cuMemFree", cuMemFree(pitched));
	if (OK("cuMemAllocManaged", cuMemAllocManaged(&managed, 65536, CU_MEM_ATTACH_GLOBAL)) ==
	    CUDA_SUCCESS)
		OK("cuMemFree", cuMemFree(managed));
	if (OK("cuMemAllocHost", cuMemAllocHost(&host, 65536)) == CUDA_SUCCESS)
		OK("cuMemFreeHost", cuMemFreeHost(host));
	if (OK("cuMemHostAlloc", cuMemHostAlloc(&hostmap, 65536, CU_MEMHOSTALLOC_DEVICEMAP)) ==
	    CUDA_SUCCESS) {
		OKF("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&mapped, hostmap, 0),
		    "nonzero=%s", yes(mapped != 0));
		OK("cuMemFreeHost", cuMemFreeHost(hostmap));
	}
	/* Registered pageable memory, as the recorder registers its breadcrumb page. */
	long page = sysconf(_SC_PAGESIZE);
	void *reg = aligned_alloc((size_t)page, (size_t)page * 4);
	cuDeviceGetAttribute(&same_ptr_attr, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
			     T.dev);
	if (reg && OK("cuMemHostRegister", cuMemHostRegister(reg, (size_t)page * 4,
							       CU_MEMHOSTREGISTER_DEVICEMAP |
								       CU_MEMHOSTREGISTER_PORTABLE)) ==
			   CUDA_SUCCESS) {
		OKF("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&alias, reg, 0),
		    "equals_host=%s (attribute 91 = %d)", yes(alias == (CUdeviceptr)reg),
		    same_ptr_attr);
		OK("cuMemHostUnregister", cuMemHostUnregister(reg));
	}
	free(reg);
	OKF("cuMemGetInfo", cuMemGetInfo(&free_b, &total_b), "free_le_total=%s",
	    yes(free_b <= total_b && total_b > 0));
}

static void tour_pool(void)
{
	CUmemoryPool def = NULL, pool = NULL;
	CUdeviceptr a = 0, b = 0;
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.handleTypes = CU_MEM_HANDLE_TYPE_NONE,
		.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = T.dev},
	};
	OKF("cuDeviceGetDefaultMemPool", cuDeviceGetDefaultMemPool(&def, T.dev), "nonnull=%s",
	    yes(def != NULL));
	if (OK("cuMemPoolCreate", cuMemPoolCreate(&pool, &props)) != CUDA_SUCCESS)
		return;
	OK("cuMemAllocAsync", cuMemAllocAsync(&a, 1 << 16, T.stream));
	OK("cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&b, 1 << 16, pool, T.stream));
	OK("cuMemsetD32Async", cuMemsetD32Async(a, 7, 1 << 14, T.stream));
	OK("cuMemsetD32Async", cuMemsetD32Async(b, 9, 1 << 14, T.stream));
	OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "values=%s",
	    yes(holds(a, 7, 1024) && holds(b, 9, 1024)));
	OK("cuMemFreeAsync", cuMemFreeAsync(a, T.stream));
	OK("cuMemFreeAsync", cuMemFreeAsync(b, T.stream));
	OK("cuStreamSynchronize", cuStreamSynchronize(T.stream));
	OK("cuMemPoolDestroy", cuMemPoolDestroy(pool));
}

static void tour_vmm(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = T.dev},
	};
	CUmemAccessDesc access = {
		.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = T.dev},
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	size_t gran = 0;
	CUmemGenericAllocationHandle handle = 0;
	CUdeviceptr va = 0;

	if (OKF("cuMemGetAllocationGranularity",
		cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
		"nonzero=%s", yes(gran != 0)) != CUDA_SUCCESS || !gran)
		return;
	if (OK("cuMemCreate", cuMemCreate(&handle, 2 * gran, &prop, 0)) != CUDA_SUCCESS)
		return;
	/* Reserve twice what is mapped: the upper half stays reserved but unmapped. */
	if (OK("cuMemAddressReserve", cuMemAddressReserve(&va, 4 * gran, 0, 0, 0)) == CUDA_SUCCESS) {
		if (OK("cuMemMap", cuMemMap(va, 2 * gran, 0, handle, 0)) == CUDA_SUCCESS) {
			OK("cuMemSetAccess", cuMemSetAccess(va, 2 * gran, &access, 1));
			OK("cuLaunchKernel", fill_launch(T.fill, va, 0x77, 1024, T.stream));
			OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "filled=%s",
			    yes(holds(va, 0x77, 1024)));
			OK("cuMemUnmap", cuMemUnmap(va, 2 * gran));
		}
		OK("cuMemAddressFree", cuMemAddressFree(va, 4 * gran));
	}
	OK("cuMemRelease", cuMemRelease(handle));
}

static unsigned host_calls[4], host_ncalls;

static void CUDA_CB host_fn(void *arg)
{
	/* Runs on the driver's thread, in stream order; no CUDA calls allowed here. */
	host_calls[host_ncalls++ % 4] = (unsigned)(size_t)arg;
}

static void tour_stream(void)
{
	CUstream s = NULL;
	CUevent start = NULL, end = NULL;
	int least = 0, greatest = 0, prio = 0;
	unsigned flags = 0;
	unsigned long long id = 0;
	CUcontext c = NULL;
	float ms = -1;

	OK("cuCtxGetStreamPriorityRange", cuCtxGetStreamPriorityRange(&least, &greatest));
	if (OK("cuStreamCreateWithPriority",
	       cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, greatest)) != CUDA_SUCCESS)
		return;
	OKF("cuStreamGetPriority", cuStreamGetPriority(s, &prio), "greatest=%s", yes(prio == greatest));
	OKF("cuStreamGetFlags", cuStreamGetFlags(s, &flags), "flags=%u", flags);
	OKF("cuStreamGetId", cuStreamGetId(s, &id), "nonzero=%s", yes(id != 0));
	OKF("cuStreamGetCtx", cuStreamGetCtx(s, &c), "primary=%s", yes(c == T.ctx));
	OK("cuEventCreate", cuEventCreate(&start, CU_EVENT_DEFAULT));
	OK("cuEventCreate", cuEventCreate(&end, CU_EVENT_DEFAULT));
	OK("cuEventRecord", cuEventRecord(start, s));
	OK("cuLaunchKernel", fill_launch(T.fill, T.buf, 3, 1024, s));
	OK("cuEventRecord", cuEventRecord(end, s));
	OK("cuStreamWaitEvent", cuStreamWaitEvent(T.stream, end, 0));
	OK("cuEventSynchronize", cuEventSynchronize(end));
	OK("cuEventQuery", cuEventQuery(end));
	OKF("cuEventElapsedTime", cuEventElapsedTime(&ms, start, end), "nonnegative=%s", yes(ms >= 0));
	OK("cuStreamQuery", cuStreamQuery(s));

	/* Stream memory operations on registered host memory, the breadcrumb mechanism. */
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned long long *slot = aligned_alloc((size_t)page, (size_t)page);
	CUdeviceptr slot_dev = 0;
	if (slot && OK("cuMemHostRegister", cuMemHostRegister((void *)slot, (size_t)page,
							       CU_MEMHOSTREGISTER_DEVICEMAP)) ==
			    CUDA_SUCCESS) {
		slot[0] = slot[1] = 0;
		OK("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&slot_dev, (void *)slot, 0));
		OK("cuStreamWriteValue64", cuStreamWriteValue64(s, slot_dev, 42, 0));
		OK("cuStreamWaitValue64", cuStreamWaitValue64(s, slot_dev, 42, CU_STREAM_WAIT_VALUE_GEQ));
		OK("cuStreamWriteValue32", cuStreamWriteValue32(s, slot_dev + 8, 7, 0));
		/* cuda.h: NO_MEMORY_BARRIER "is not supported in the v2 API" (which cuda.h maps
		 * cuStreamWriteValue32 to); the H200's driver refuses it. */
		DO(CUDA_ERROR_INVALID_VALUE, "cuStreamWriteValue32(NO_MEMORY_BARRIER)",
		   cuStreamWriteValue32(s, slot_dev + 8, 8, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
		OKF("cuStreamSynchronize", cuStreamSynchronize(s), "slot=%llu slot32=%u", slot[0],
		    (unsigned)(slot[1] & 0xffffffffu));
		OK("cuMemHostUnregister", cuMemHostUnregister((void *)slot));
	}
	free((void *)slot);

	host_ncalls = 0;
	for (size_t i = 1; i <= 3; i++)
		OK("cuLaunchHostFunc", cuLaunchHostFunc(s, host_fn, (void *)i));
	OKF("cuStreamSynchronize", cuStreamSynchronize(s), "host_fn_order=%u,%u,%u", host_calls[0],
	    host_calls[1], host_calls[2]);
	OK("cuEventDestroy", cuEventDestroy(start));
	OK("cuEventDestroy", cuEventDestroy(end));
	OK("cuStreamDestroy", cuStreamDestroy(s));
}

static void tour_launch(void)
{
	int n = 1024;
	unsigned value;
	CUdeviceptr dst = T.buf;

	OK("cuLaunchKernel(legacy stream)", fill_launch(T.fill, T.buf, 1, n, NULL));
	OKF("cuCtxSynchronize", cuCtxSynchronize(), "filled=%s", yes(holds(T.buf, 1, n)));
	OK("cuLaunchKernel(per-thread stream)", fill_launch(T.fill, T.buf, 2, n, CU_STREAM_PER_THREAD));
	OKF("cuStreamSynchronize", cuStreamSynchronize(CU_STREAM_PER_THREAD), "filled=%s",
	    yes(holds(T.buf, 2, n)));
	OK("cuLaunchKernel(noop)", cuLaunchKernel(T.noop, 1, 1, 1, 1, 1, 1, 0, T.stream, NULL, NULL));

	/* Parameters packed into one buffer through `extra` instead of kernelParams. */
	struct {
		CUdeviceptr p;
		unsigned v;
		int n;
	} packed = {T.buf, 4, n};
	size_t packed_size = sizeof packed;
	void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
			 &packed_size, CU_LAUNCH_PARAM_END};
	OK("cuLaunchKernel(extra)", cuLaunchKernel(T.fill, n / 128, 1, 1, 128, 1, 1, 0, T.stream, NULL, extra));
	OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "filled=%s", yes(holds(T.buf, 4, n)));

	value = 5;
	void *args[] = {&dst, &value, &n};
	CUlaunchAttribute attrs[2];
	memset(attrs, 0, sizeof attrs);
	attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
	attrs[0].value.priority = 0;
	attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	attrs[1].value.clusterDim.x = 2;
	attrs[1].value.clusterDim.y = 1;
	attrs[1].value.clusterDim.z = 1;
	CUlaunchConfig cfg = {
		.gridDimX = (unsigned)n / 128, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = 128, .blockDimY = 1, .blockDimZ = 1,
		.sharedMemBytes = 0, .hStream = T.stream, .attrs = attrs, .numAttrs = 2,
	};
	OK("cuLaunchKernelEx(priority, cluster 2x1x1)", cuLaunchKernelEx(&cfg, T.fill, args, NULL));
	OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "filled=%s", yes(holds(T.buf, 5, n)));

	value = 6;
	OK("cuLaunchCooperativeKernel",
	   cuLaunchCooperativeKernel(T.fill, (unsigned)n / 128, 1, 1, 128, 1, 1, 0, T.stream, args));
	OKF("cuStreamSynchronize", cuStreamSynchronize(T.stream), "filled=%s", yes(holds(T.buf, 6, n)));
}

static void tour_graph(void)
{
	CUstream s = NULL;
	CUgraph graph = NULL;
	CUgraphExec exec = NULL;
	CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
	cuuint64_t capture_id = 0;

	if (OK("cuStreamCreate", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return;
	OK("cuMemsetD32", cuMemsetD32(T.buf, 0, 1024));
	OK("cuStreamBeginCapture", cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	OKF("cuStreamIsCapturing", cuStreamIsCapturing(s, &status), "active=%s",
	    yes(status == CU_STREAM_CAPTURE_STATUS_ACTIVE));
	OK("cuMemsetD32Async", cuMemsetD32Async(T.buf, 8, 1024, s));
	OK("cuLaunchKernel(captured)", fill_launch(T.fill, T.buf, 9, 512, s));
	OK("cuLaunchHostFunc(captured)", cuLaunchHostFunc(s, host_fn, (void *)(size_t)4));
	OKF("cuStreamGetCaptureInfo", cuStreamGetCaptureInfo(s, &status, &capture_id, NULL, NULL, NULL, NULL),
	    "active=%s", yes(status == CU_STREAM_CAPTURE_STATUS_ACTIVE));
	if (OK("cuStreamEndCapture", cuStreamEndCapture(s, &graph)) != CUDA_SUCCESS)
		goto out;
	/* Captured work is not executed by capturing. */
	step("(captured work not run)", CUDA_SUCCESS, CUDA_SUCCESS, "untouched=%s", yes(holds(T.buf, 0, 1024)));
	if (OK("cuGraphInstantiate", cuGraphInstantiate(&exec, graph, 0)) == CUDA_SUCCESS) {
		OK("cuGraphUpload", cuGraphUpload(exec, s));
		host_ncalls = 0;
		OK("cuGraphLaunch", cuGraphLaunch(exec, s));
		OK("cuGraphLaunch", cuGraphLaunch(exec, s));
		OKF("cuStreamSynchronize", cuStreamSynchronize(s), "replayed=%s host_fn_calls=%u",
		    yes(holds(T.buf, 9, 512) && holds(T.buf + 2048, 8, 512)), host_ncalls);
		OK("cuGraphExecDestroy", cuGraphExecDestroy(exec));
	}
	OK("cuGraphDestroy", cuGraphDestroy(graph));
out:
	OK("cuStreamDestroy", cuStreamDestroy(s));
}

static void tour_errors(void)
{
	CUdeviceptr d = 0;
	CUfunction f = NULL;
	CUevent ev = NULL;
	void *pfn = (void *)1;
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;

	DO(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc(0 bytes)", cuMemAlloc(&d, 0));
	DO(CUDA_ERROR_INVALID_VALUE, "cuMemFree(not an allocation)", cuMemFree((CUdeviceptr)0x1234));
	DO(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction(no_such_kernel)",
	   cuModuleGetFunction(&f, T.module, "no_such_kernel"));
	int n = 1;
	unsigned value = 0;
	void *args[] = {&T.buf, &value, &n};
	DO(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel(2048 threads per block)",
	   cuLaunchKernel(T.fill, 1, 1, 1, 2048, 1, 1, 0, T.stream, args, NULL));
	DO(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel(grid 0)",
	   cuLaunchKernel(T.fill, 0, 1, 1, 32, 1, 1, 0, T.stream, args, NULL));
	/* Not sticky: the context still works. */
	OK("cuStreamSynchronize", cuStreamSynchronize(T.stream));
	OK("cuEventCreate", cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	DO(CUDA_SUCCESS, "cuEventQuery(never recorded)", cuEventQuery(ev));
	OK("cuEventDestroy", cuEventDestroy(ev));
	DOF(CUDA_SUCCESS, "cuGetProcAddress(cuNoSuchEntryPoint)",
	    cuGetProcAddress("cuNoSuchEntryPoint", &pfn, CUDA_VERSION, 0, &status),
	    "pfn_null=%s status=%d", yes(pfn == NULL), (int)status);
	DO(CUDA_ERROR_INVALID_VALUE, "cuGetProcAddress(version 99999)",
	   cuGetProcAddress("cuLaunchKernel", &pfn, 99999, 0, &status));
}

static const struct {
	const char *name;
	void (*run)(void);
} groups[] = {
	{"context", tour_context}, {"module", tour_module}, {"library", tour_library},
	{"memory", tour_memory},   {"pool", tour_pool},     {"vmm", tour_vmm},
	{"stream", tour_stream},   {"launch", tour_launch}, {"graph", tour_graph},
	{"errors", tour_errors},
};
#define NGROUPS (sizeof groups / sizeof *groups)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: apitour [--only GROUP[,GROUP...]] [--list] [--help]\n"
		"Walks through many kinds of CUDA driver calls (exported symbols) and prints\n"
		"`GROUP API -> RESULT [facts]` per call.  Setup (init, primary context, module,\n"
		"a stream and a scratch buffer) always runs.\n"
		"  --only LIST  run only these groups (comma-separated)\n"
		"  --list       print the group names and exit\n"
		"Exit status: 0 every result as documented; 1 some result UNEXPECTED or setup\n"
		"failed; 2 bad usage; a failed setup call aborts like the engines' CHECK.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"only", required_argument, NULL, 'o'},
		{"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *only = NULL;
	int c;
	engine_prog = "apitour";
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': only = optarg; break;
		case 'l':
			for (unsigned i = 0; i < NGROUPS; i++)
				printf("%s\n", groups[i].name);
			return 0;
		case 'h': usage(stdout); return 0;
		default: fprintf(stderr, "apitour: see --help for the options\n"); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "apitour: unexpected argument '%s'; see --help\n", argv[optind]);
		return 2;
	}
	int selected[NGROUPS];
	for (unsigned i = 0; i < NGROUPS; i++)
		selected[i] = only == NULL;
	if (only) {
		char *list = strdup(only), *save = NULL;
		for (char *g = strtok_r(list, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
			unsigned i;
			for (i = 0; i < NGROUPS && strcmp(g, groups[i].name) != 0; i++)
				;
			if (i == NGROUPS) {
				fprintf(stderr, "apitour: unknown group '%s'; see --list\n", g);
				free(list); /* LeakSanitizer would turn exit 2 into 1 */
				return 2;
			}
			selected[i] = 1;
		}
		free(list);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	drv_open_direct(0);

	int version = 0, count = 0, cc_major = 0, cc_minor = 0;
	char name[128] = "";
	CHECK(cuInit(0));
	OKF("cuDriverGetVersion", cuDriverGetVersion(&version), "at_least_12000=%s",
	    yes(version >= 12000));
	OKF("cuDeviceGetCount", cuDeviceGetCount(&count), "some=%s", yes(count > 0));
	CHECK(cuDeviceGet(&T.dev, 0));
	OK("cuDeviceGetName", cuDeviceGetName(name, sizeof name, T.dev));
	cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, T.dev);
	cuDeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, T.dev);
	step("cuDeviceGetAttribute", CUDA_SUCCESS, CUDA_SUCCESS, "sm_90_or_newer=%s",
	     yes(cc_major >= 9));
	CHECK(cuDevicePrimaryCtxRetain(&T.ctx, T.dev));
	CHECK(cuCtxSetCurrent(T.ctx));
	CHECK(engine_load_kernels(&T.module, 1));
	CHECK(cuModuleGetFunction(&T.fill, T.module, "fill_u32"));
	CHECK(cuModuleGetFunction(&T.noop, T.module, "noop"));
	CHECK(cuModuleGetFunction(&T.attention, T.module, "paged_attention"));
	CHECK(cuStreamCreate(&T.stream, CU_STREAM_NON_BLOCKING));
	CHECK(cuMemAlloc(&T.buf, 4096));

	for (unsigned i = 0; i < NGROUPS; i++) {
		if (!selected[i])
			continue;
		group = groups[i].name;
		groups[i].run();
	}

	group = "teardown";
	OK("cuStreamSynchronize", cuStreamSynchronize(T.stream));
	OK("cuMemFree", cuMemFree(T.buf));
	OK("cuStreamDestroy", cuStreamDestroy(T.stream));
	OK("cuModuleUnload", cuModuleUnload(T.module));
	OK("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(T.dev));
	fprintf(stderr, "apitour: %u calls, %u unexpected results (device: %s, compute %d.%d)\n",
		calls, surprises, name, cc_major, cc_minor);
	return surprises ? 1 : 0;
}
