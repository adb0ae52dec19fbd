/*
 * The driver entry points the test engines call, as one table of function pointers, so that the
 * same engine code can reach the driver through each of the recorder's three doors:
 *
 *   direct          the exported cu* symbols, resolved by the dynamic linker (-lcuda);
 *   direct, ptsz    the same, compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM so that cuda.h
 *                   maps stream-taking calls to their _ptsz/_ptds symbols;
 *   bootstrap       what cudart does: dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2"),
 *                   ask it for "cuGetProcAddress" itself, then every entry point through it,
 *                   with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM when ptsz is wanted.
 *
 * ENGINE_DRIVER_FUNCS names every entry point once: field, base name (as cuda.h spells it and as
 * cuGetProcAddress takes it) and the PFN type of the variant cuda.h 13.0 maps the base name to.
 */
#ifndef ENGINE_DRV_H
#define ENGINE_DRV_H

#include <cuda.h>
#include <cudaTypedefs.h>

#define ENGINE_DRIVER_FUNCS(X)                                                                  \
	X(GetErrorName, cuGetErrorName, PFN_cuGetErrorName_v6000)                               \
	X(GetErrorString, cuGetErrorString, PFN_cuGetErrorString_v6000)                         \
	X(Init, cuInit, PFN_cuInit_v2000)                                                       \
	X(DriverGetVersion, cuDriverGetVersion, PFN_cuDriverGetVersion_v2020)                   \
	X(DeviceGet, cuDeviceGet, PFN_cuDeviceGet_v2000)                                        \
	X(DeviceGetCount, cuDeviceGetCount, PFN_cuDeviceGetCount_v2000)                         \
	X(DeviceGetName, cuDeviceGetName, PFN_cuDeviceGetName_v2000)                            \
	X(DeviceGetAttribute, cuDeviceGetAttribute, PFN_cuDeviceGetAttribute_v2000)             \
	X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, PFN_cuDevicePrimaryCtxRetain_v7000) \
	X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease,                                  \
	  PFN_cuDevicePrimaryCtxRelease_v11000)                                                 \
	X(CtxSetCurrent, cuCtxSetCurrent, PFN_cuCtxSetCurrent_v4000)                            \
	X(CtxGetCurrent, cuCtxGetCurrent, PFN_cuCtxGetCurrent_v4000)                            \
	X(StreamCreate, cuStreamCreate, PFN_cuStreamCreate_v2000)                               \
	X(StreamDestroy, cuStreamDestroy, PFN_cuStreamDestroy_v4000)                            \
	X(StreamSynchronize, cuStreamSynchronize, PFN_cuStreamSynchronize_v2000)                \
	X(StreamQuery, cuStreamQuery, PFN_cuStreamQuery_v2000)                                  \
	X(StreamWaitEvent, cuStreamWaitEvent, PFN_cuStreamWaitEvent_v3020)                      \
	X(StreamWaitValue32, cuStreamWaitValue32, PFN_cuStreamWaitValue32_v11070)               \
	X(StreamWriteValue32, cuStreamWriteValue32, PFN_cuStreamWriteValue32_v11070)            \
	X(StreamWriteValue64, cuStreamWriteValue64, PFN_cuStreamWriteValue64_v11070)            \
	X(EventCreate, cuEventCreate, PFN_cuEventCreate_v2000)                                  \
	X(EventRecord, cuEventRecord, PFN_cuEventRecord_v2000)                                  \
	X(EventSynchronize, cuEventSynchronize, PFN_cuEventSynchronize_v2000)                   \
	X(EventDestroy, cuEventDestroy, PFN_cuEventDestroy_v4000)                               \
	X(EventElapsedTime, cuEventElapsedTime, PFN_cuEventElapsedTime_v12080)                  \
	X(ModuleLoadData, cuModuleLoadData, PFN_cuModuleLoadData_v2000)                         \
	X(ModuleGetFunction, cuModuleGetFunction, PFN_cuModuleGetFunction_v2000)                \
	X(ModuleUnload, cuModuleUnload, PFN_cuModuleUnload_v2000)                               \
	X(MemAlloc, cuMemAlloc, PFN_cuMemAlloc_v3020)                                           \
	X(MemFree, cuMemFree, PFN_cuMemFree_v3020)                                              \
	X(MemAllocAsync, cuMemAllocAsync, PFN_cuMemAllocAsync_v11020)                           \
	X(MemFreeAsync, cuMemFreeAsync, PFN_cuMemFreeAsync_v11020)                              \
	X(MemHostAlloc, cuMemHostAlloc, PFN_cuMemHostAlloc_v2020)                               \
	X(MemFreeHost, cuMemFreeHost, PFN_cuMemFreeHost_v2000)                                  \
	X(MemHostRegister, cuMemHostRegister, PFN_cuMemHostRegister_v6050)                      \
	X(MemHostUnregister, cuMemHostUnregister, PFN_cuMemHostUnregister_v4000)                \
	X(MemHostGetDevicePointer, cuMemHostGetDevicePointer,                                  \
	  PFN_cuMemHostGetDevicePointer_v3020)                                                  \
	X(MemcpyHtoD, cuMemcpyHtoD, PFN_cuMemcpyHtoD_v3020)                                     \
	X(MemcpyHtoDAsync, cuMemcpyHtoDAsync, PFN_cuMemcpyHtoDAsync_v3020)                      \
	X(MemcpyDtoHAsync, cuMemcpyDtoHAsync, PFN_cuMemcpyDtoHAsync_v3020)                      \
	X(MemsetD32Async, cuMemsetD32Async, PFN_cuMemsetD32Async_v3020)                         \
	X(LaunchKernel, cuLaunchKernel, PFN_cuLaunchKernel_v4000)

/* Every entry point above, plus the two ABIs of cuCtxSynchronize: CUDA 13.0 added
 * cuCtxSynchronize_v2(CUcontext), and cuGetProcAddress("cuCtxSynchronize", 13000) returns it,
 * while the exported plain cuCtxSynchronize keeps the old (void) ABI.  Exactly one is set. */
struct drv {
#define ENGINE_DRV_FIELD(field, sym, pfn) pfn field;
	ENGINE_DRIVER_FUNCS(ENGINE_DRV_FIELD)
#undef ENGINE_DRV_FIELD
	PFN_cuCtxSynchronize_v2000 CtxSynchronize;
	PFN_cuCtxSynchronize_v13000 CtxSynchronize_v2;
	const char *door;  /* "direct", "direct-ptsz", "bootstrap", "bootstrap-ptsz" */
	int ptsz;          /* stream-taking calls go to the per-thread default stream variants */
	int version;       /* cudaVersion used with cuGetProcAddress (bootstrap only) */
};

/* The table the engines call through (CHECK prints errors with drv.GetErrorName). */
extern struct drv drv;

/* Fill `drv` with the exported symbols (legacy or _ptsz/_ptds variants).  Cannot fail. */
void drv_open_direct(int ptsz);

/* Fill `drv` the way cudart does (see above).  On failure prints what is missing and why to
 * stderr and returns -1; `verbose` lists every symbol resolved. */
int drv_open_bootstrap(int ptsz, int verbose);

/* cuCtxSynchronize through whichever ABI the table holds. */
CUresult drv_ctx_synchronize(CUcontext ctx);

#endif /* ENGINE_DRV_H */
