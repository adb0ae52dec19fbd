/* SPDX-License-Identifier: MIT */
/*
 * The one table of every driver entry point the recorder wraps, one line each:
 *   X(exported symbol, hook, flags, (parameters), (argument names))
 * The symbol is the exact versioned name the driver exports (cuMemAlloc_v2, cuLaunchKernel_ptsz,
 * the legacy cuMemAlloc with its 32-bit ABI, ...) and the parameters are that name's ABI as
 * cuda.h declares it when built as the driver (__CUDA_API_VERSION_INTERNAL): doors.c defines one
 * exported wrapper per line and the compiler checks each against cuda.h's declaration.  The
 * list is every `cu*` function cuda.h 13.0 declares and the 13.0 driver exports, except
 * cuGetExportTable, which always passes through untouched (docs/RECORDER.md).
 *
 * `hook` names what the wrapper records (hooks.h maps it to CI_HOOK_<hook>, run after the real
 * call, and CI_PRE_<hook>, run before it); `none` records only a non-success result.  Flags:
 * CI_F_PTSZ for per-thread-default-stream entry points (_ptsz, _ptds), CI_F_QUERY where
 * CUDA_ERROR_NOT_READY is an answer rather than an error, CI_F_MANUAL (with hook `manual`) when
 * doors.c writes the wrapper by hand (cuGetProcAddress and cuGetProcAddress_v2).
 */
#ifndef CI_RECORDER_API_H
#define CI_RECORDER_API_H

#define CI_F_PTSZ 1u
#define CI_F_QUERY 2u
#define CI_F_MANUAL 4u
#define CI_F_TIME_SHARED 8u /* set at run time: the launch shares its predecessor's time */

/* clang-format off */
#define CI_API_TABLE(X) \
	X(cuGetErrorString, none, 0, (CUresult error, const char **pStr), (error, pStr)) \
	X(cuGetErrorName, none, 0, (CUresult error, const char **pStr), (error, pStr)) \
	X(cuInit, h_init, 0, (unsigned int Flags), (Flags)) \
	X(cuDriverGetVersion, none, 0, (int *driverVersion), (driverVersion)) \
	X(cuDeviceGet, none, 0, (CUdevice *device, int ordinal), (device, ordinal)) \
	X(cuDeviceGetCount, none, 0, (int *count), (count)) \
	X(cuDeviceGetName, none, 0, (char *name, int len, CUdevice dev), (name, len, dev)) \
	X(cuDeviceGetUuid_v2, none, 0, (CUuuid *uuid, CUdevice dev), (uuid, dev)) \
	X(cuDeviceGetLuid, none, 0, (char *luid, unsigned int *deviceNodeMask, CUdevice dev), (luid, deviceNodeMask, dev)) \
	X(cuDeviceTotalMem_v2, none, 0, (size_t *bytes, CUdevice dev), (bytes, dev)) \
	X(cuDeviceGetTexture1DLinearMaxWidth, none, 0, (size_t *maxWidthInElements, CUarray_format format, unsigned numChannels, CUdevice dev), (maxWidthInElements, format, numChannels, dev)) \
	X(cuDeviceGetAttribute, none, 0, (int *pi, CUdevice_attribute attrib, CUdevice dev), (pi, attrib, dev)) \
	X(cuDeviceGetHostAtomicCapabilities, none, 0, (unsigned int* capabilities, const CUatomicOperation* operations, unsigned int count, CUdevice dev), (capabilities, operations, count, dev)) \
	X(cuDeviceGetNvSciSyncAttributes, none, 0, (void *nvSciSyncAttrList, CUdevice dev, int flags), (nvSciSyncAttrList, dev, flags)) \
	X(cuDeviceSetMemPool, none, 0, (CUdevice dev, CUmemoryPool pool), (dev, pool)) \
	X(cuDeviceGetMemPool, none, 0, (CUmemoryPool *pool, CUdevice dev), (pool, dev)) \
	X(cuDeviceGetDefaultMemPool, none, 0, (CUmemoryPool *pool_out, CUdevice dev), (pool_out, dev)) \
	X(cuDeviceGetExecAffinitySupport, none, 0, (int *pi, CUexecAffinityType type, CUdevice dev), (pi, type, dev)) \
	X(cuFlushGPUDirectRDMAWrites, none, 0, (CUflushGPUDirectRDMAWritesTarget target, CUflushGPUDirectRDMAWritesScope scope), (target, scope)) \
	X(cuDeviceGetProperties, none, 0, (CUdevprop *prop, CUdevice dev), (prop, dev)) \
	X(cuDeviceComputeCapability, none, 0, (int *major, int *minor, CUdevice dev), (major, minor, dev)) \
	X(cuDevicePrimaryCtxRetain, h_primary_retain, 0, (CUcontext *pctx, CUdevice dev), (pctx, dev)) \
	X(cuDevicePrimaryCtxRelease_v2, h_primary_release, 0, (CUdevice dev), (dev)) \
	X(cuDevicePrimaryCtxSetFlags_v2, none, 0, (CUdevice dev, unsigned int flags), (dev, flags)) \
	X(cuDevicePrimaryCtxGetState, none, 0, (CUdevice dev, unsigned int *flags, int *active), (dev, flags, active)) \
	X(cuDevicePrimaryCtxReset_v2, h_primary_release, 0, (CUdevice dev), (dev)) \
	X(cuCtxCreate_v4, h_ctx_create_v4, 0, (CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev), (pctx, ctxCreateParams, flags, dev)) \
	X(cuCtxDestroy_v2, h_ctx_destroy, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxPushCurrent_v2, none, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxPopCurrent_v2, none, 0, (CUcontext *pctx), (pctx)) \
	X(cuCtxSetCurrent, none, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxGetCurrent, none, 0, (CUcontext *pctx), (pctx)) \
	X(cuCtxGetDevice, none, 0, (CUdevice *device), (device)) \
	X(cuCtxGetDevice_v2, none, 0, (CUdevice *device, CUcontext ctx), (device, ctx)) \
	X(cuCtxGetFlags, none, 0, (unsigned int *flags), (flags)) \
	X(cuCtxSetFlags, none, 0, (unsigned int flags), (flags)) \
	X(cuCtxGetId, none, 0, (CUcontext ctx, unsigned long long *ctxId), (ctx, ctxId)) \
	X(cuCtxSynchronize, h_ctx_sync, 0, (void), ()) \
	X(cuCtxSynchronize_v2, h_ctx_sync_v2, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxSetLimit, none, 0, (CUlimit limit, size_t value), (limit, value)) \
	X(cuCtxGetLimit, none, 0, (size_t *pvalue, CUlimit limit), (pvalue, limit)) \
	X(cuCtxGetCacheConfig, none, 0, (CUfunc_cache *pconfig), (pconfig)) \
	X(cuCtxSetCacheConfig, none, 0, (CUfunc_cache config), (config)) \
	X(cuCtxGetApiVersion, none, 0, (CUcontext ctx, unsigned int *version), (ctx, version)) \
	X(cuCtxGetStreamPriorityRange, none, 0, (int *leastPriority, int *greatestPriority), (leastPriority, greatestPriority)) \
	X(cuCtxResetPersistingL2Cache, none, 0, (void), ()) \
	X(cuCtxGetExecAffinity, none, 0, (CUexecAffinityParam *pExecAffinity, CUexecAffinityType type), (pExecAffinity, type)) \
	X(cuCtxRecordEvent, none, 0, (CUcontext hCtx, CUevent hEvent), (hCtx, hEvent)) \
	X(cuCtxWaitEvent, none, 0, (CUcontext hCtx, CUevent hEvent), (hCtx, hEvent)) \
	X(cuCtxAttach, none, 0, (CUcontext *pctx, unsigned int flags), (pctx, flags)) \
	X(cuCtxDetach, none, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxGetSharedMemConfig, none, 0, (CUsharedconfig *pConfig), (pConfig)) \
	X(cuCtxSetSharedMemConfig, none, 0, (CUsharedconfig config), (config)) \
	X(cuModuleLoad, h_module_load_file, 0, (CUmodule *module, const char *fname), (module, fname)) \
	X(cuModuleLoadData, h_module_load_data, 0, (CUmodule *module, const void *image), (module, image)) \
	X(cuModuleLoadDataEx, h_module_load_data_ex, 0, (CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues), (module, image, numOptions, options, optionValues)) \
	X(cuModuleLoadFatBinary, h_module_load_data, 0, (CUmodule *module, const void *fatCubin), (module, fatCubin)) \
	X(cuModuleUnload, h_module_unload, 0, (CUmodule hmod), (hmod)) \
	X(cuModuleGetLoadingMode, none, 0, (CUmoduleLoadingMode *mode), (mode)) \
	X(cuModuleGetFunction, h_module_get_function, 0, (CUfunction *hfunc, CUmodule hmod, const char *name), (hfunc, hmod, name)) \
	X(cuModuleGetFunctionCount, none, 0, (unsigned int *count, CUmodule mod), (count, mod)) \
	X(cuModuleEnumerateFunctions, h_module_enum_functions, 0, (CUfunction *functions, unsigned int numFunctions, CUmodule mod), (functions, numFunctions, mod)) \
	X(cuModuleGetGlobal_v2, none, 0, (CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name), (dptr, bytes, hmod, name)) \
	X(cuLinkCreate_v2, none, 0, (unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut), (numOptions, options, optionValues, stateOut)) \
	X(cuLinkAddData_v2, none, 0, (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name, unsigned int numOptions, CUjit_option *options, void **optionValues), (state, type, data, size, name, numOptions, options, optionValues)) \
	X(cuLinkAddFile_v2, none, 0, (CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions, CUjit_option *options, void **optionValues), (state, type, path, numOptions, options, optionValues)) \
	X(cuLinkComplete, none, 0, (CUlinkState state, void **cubinOut, size_t *sizeOut), (state, cubinOut, sizeOut)) \
	X(cuLinkDestroy, none, 0, (CUlinkState state), (state)) \
	X(cuModuleGetTexRef, none, 0, (CUtexref *pTexRef, CUmodule hmod, const char *name), (pTexRef, hmod, name)) \
	X(cuModuleGetSurfRef, none, 0, (CUsurfref *pSurfRef, CUmodule hmod, const char *name), (pSurfRef, hmod, name)) \
	X(cuLibraryLoadData, h_library_load_data, 0, (CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions, void** libraryOptionValues, unsigned int numLibraryOptions), (library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions)) \
	X(cuLibraryLoadFromFile, h_library_load_file, 0, (CUlibrary *library, const char *fileName, CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues, unsigned int numLibraryOptions), (library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions)) \
	X(cuLibraryUnload, h_library_unload, 0, (CUlibrary library), (library)) \
	X(cuLibraryGetKernel, h_library_get_kernel, 0, (CUkernel *pKernel, CUlibrary library, const char *name), (pKernel, library, name)) \
	X(cuLibraryGetKernelCount, none, 0, (unsigned int *count, CUlibrary lib), (count, lib)) \
	X(cuLibraryEnumerateKernels, h_library_enum_kernels, 0, (CUkernel *kernels, unsigned int numKernels, CUlibrary lib), (kernels, numKernels, lib)) \
	X(cuLibraryGetModule, none, 0, (CUmodule *pMod, CUlibrary library), (pMod, library)) \
	X(cuKernelGetFunction, h_kernel_get_function, 0, (CUfunction *pFunc, CUkernel kernel), (pFunc, kernel)) \
	X(cuKernelGetLibrary, none, 0, (CUlibrary *pLib, CUkernel kernel), (pLib, kernel)) \
	X(cuLibraryGetGlobal, none, 0, (CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name), (dptr, bytes, library, name)) \
	X(cuLibraryGetManaged, none, 0, (CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name), (dptr, bytes, library, name)) \
	X(cuLibraryGetUnifiedFunction, none, 0, (void **fptr, CUlibrary library, const char *symbol), (fptr, library, symbol)) \
	X(cuKernelGetAttribute, none, 0, (int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev), (pi, attrib, kernel, dev)) \
	X(cuKernelSetAttribute, none, 0, (CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev), (attrib, val, kernel, dev)) \
	X(cuKernelSetCacheConfig, none, 0, (CUkernel kernel, CUfunc_cache config, CUdevice dev), (kernel, config, dev)) \
	X(cuKernelGetName, none, 0, (const char **name, CUkernel hfunc), (name, hfunc)) \
	X(cuKernelGetParamInfo, none, 0, (CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize), (kernel, paramIndex, paramOffset, paramSize)) \
	X(cuMemGetInfo_v2, none, 0, (size_t *free, size_t *total), (free, total)) \
	X(cuMemAlloc_v2, h_mem_alloc, 0, (CUdeviceptr *dptr, size_t bytesize), (dptr, bytesize)) \
	X(cuMemAllocPitch_v2, h_mem_alloc_pitch, 0, (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes), (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes)) \
	X(cuMemFree_v2, h_mem_free, 0, (CUdeviceptr dptr), (dptr)) \
	X(cuMemGetAddressRange_v2, none, 0, (CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr), (pbase, psize, dptr)) \
	X(cuMemAllocHost_v2, h_mem_alloc_host, 0, (void **pp, size_t bytesize), (pp, bytesize)) \
	X(cuMemFreeHost, h_mem_free_host, 0, (void *p), (p)) \
	X(cuMemHostAlloc, h_mem_host_alloc, 0, (void **pp, size_t bytesize, unsigned int Flags), (pp, bytesize, Flags)) \
	X(cuMemHostGetDevicePointer_v2, none, 0, (CUdeviceptr *pdptr, void *p, unsigned int Flags), (pdptr, p, Flags)) \
	X(cuMemHostGetFlags, none, 0, (unsigned int *pFlags, void *p), (pFlags, p)) \
	X(cuMemAllocManaged, h_mem_alloc_managed, 0, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags), (dptr, bytesize, flags)) \
	X(cuDeviceRegisterAsyncNotification, none, 0, (CUdevice device, CUasyncCallback callbackFunc, void *userData, CUasyncCallbackHandle *callback), (device, callbackFunc, userData, callback)) \
	X(cuDeviceUnregisterAsyncNotification, none, 0, (CUdevice device, CUasyncCallbackHandle callback), (device, callback)) \
	X(cuDeviceGetByPCIBusId, none, 0, (CUdevice *dev, const char *pciBusId), (dev, pciBusId)) \
	X(cuDeviceGetPCIBusId, none, 0, (char *pciBusId, int len, CUdevice dev), (pciBusId, len, dev)) \
	X(cuIpcGetEventHandle, none, 0, (CUipcEventHandle *pHandle, CUevent event), (pHandle, event)) \
	X(cuIpcOpenEventHandle, none, 0, (CUevent *phEvent, CUipcEventHandle handle), (phEvent, handle)) \
	X(cuIpcGetMemHandle, h_ipc_get, 0, (CUipcMemHandle *pHandle, CUdeviceptr dptr), (pHandle, dptr)) \
	X(cuIpcOpenMemHandle_v2, h_ipc_open, 0, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags)) \
	X(cuIpcCloseMemHandle, h_ipc_close, 0, (CUdeviceptr dptr), (dptr)) \
	X(cuMemHostRegister_v2, h_mem_host_register, 0, (void *p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags)) \
	X(cuMemHostUnregister, h_mem_host_unregister, 0, (void *p), (p)) \
	X(cuMemcpy_ptds, h_memcpy, CI_F_PTSZ, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), (dst, src, ByteCount)) \
	X(cuMemcpyPeer_ptds, h_memcpy_peer, CI_F_PTSZ, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount), (dstDevice, dstContext, srcDevice, srcContext, ByteCount)) \
	X(cuMemcpyHtoD_v2_ptds, h_memcpy, CI_F_PTSZ, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount), (dstDevice, srcHost, ByteCount)) \
	X(cuMemcpyDtoH_v2_ptds, h_memcpy, CI_F_PTSZ, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount), (dstHost, srcDevice, ByteCount)) \
	X(cuMemcpyDtoD_v2_ptds, h_memcpy, CI_F_PTSZ, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount), (dstDevice, srcDevice, ByteCount)) \
	X(cuMemcpyDtoA_v2_ptds, none, CI_F_PTSZ, (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount), (dstArray, dstOffset, srcDevice, ByteCount)) \
	X(cuMemcpyAtoD_v2_ptds, none, CI_F_PTSZ, (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstDevice, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyHtoA_v2_ptds, none, CI_F_PTSZ, (CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount), (dstArray, dstOffset, srcHost, ByteCount)) \
	X(cuMemcpyAtoH_v2_ptds, none, CI_F_PTSZ, (void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstHost, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyAtoA_v2_ptds, none, CI_F_PTSZ, (CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstArray, dstOffset, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpy2D_v2_ptds, none, CI_F_PTSZ, (const CUDA_MEMCPY2D *pCopy), (pCopy)) \
	X(cuMemcpy2DUnaligned_v2_ptds, none, CI_F_PTSZ, (const CUDA_MEMCPY2D *pCopy), (pCopy)) \
	X(cuMemcpy3D_v2_ptds, none, CI_F_PTSZ, (const CUDA_MEMCPY3D *pCopy), (pCopy)) \
	X(cuMemcpy3DPeer_ptds, none, CI_F_PTSZ, (const CUDA_MEMCPY3D_PEER *pCopy), (pCopy)) \
	X(cuMemcpyAsync_ptsz, h_memcpy_async, CI_F_PTSZ, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream), (dst, src, ByteCount, hStream)) \
	X(cuMemcpyPeerAsync_ptsz, h_memcpy_peer_async, CI_F_PTSZ, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream), (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream)) \
	X(cuMemcpyHtoDAsync_v2_ptsz, h_memcpy_async, CI_F_PTSZ, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream), (dstDevice, srcHost, ByteCount, hStream)) \
	X(cuMemcpyDtoHAsync_v2_ptsz, h_memcpy_async, CI_F_PTSZ, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstHost, srcDevice, ByteCount, hStream)) \
	X(cuMemcpyDtoDAsync_v2_ptsz, h_memcpy_async, CI_F_PTSZ, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstDevice, srcDevice, ByteCount, hStream)) \
	X(cuMemcpyHtoAAsync_v2_ptsz, none, CI_F_PTSZ, (CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount, CUstream hStream), (dstArray, dstOffset, srcHost, ByteCount, hStream)) \
	X(cuMemcpyAtoHAsync_v2_ptsz, none, CI_F_PTSZ, (void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream), (dstHost, srcArray, srcOffset, ByteCount, hStream)) \
	X(cuMemcpy2DAsync_v2_ptsz, none, CI_F_PTSZ, (const CUDA_MEMCPY2D *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpy3DAsync_v2_ptsz, none, CI_F_PTSZ, (const CUDA_MEMCPY3D *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpy3DPeerAsync_ptsz, none, CI_F_PTSZ, (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpyBatchAsync_v2_ptsz, none, CI_F_PTSZ, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream), (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream)) \
	X(cuMemcpy3DBatchAsync_v2_ptsz, none, CI_F_PTSZ, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags, CUstream hStream), (numOps, opList, flags, hStream)) \
	X(cuMemsetD8_v2_ptds, h_memset, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned char uc, size_t N), (dstDevice, uc, N)) \
	X(cuMemsetD16_v2_ptds, h_memset, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned short us, size_t N), (dstDevice, us, N)) \
	X(cuMemsetD32_v2_ptds, h_memset, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned int ui, size_t N), (dstDevice, ui, N)) \
	X(cuMemsetD2D8_v2_ptds, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height), (dstDevice, dstPitch, uc, Width, Height)) \
	X(cuMemsetD2D16_v2_ptds, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height), (dstDevice, dstPitch, us, Width, Height)) \
	X(cuMemsetD2D32_v2_ptds, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height), (dstDevice, dstPitch, ui, Width, Height)) \
	X(cuMemsetD8Async_ptsz, h_memset_async, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream), (dstDevice, uc, N, hStream)) \
	X(cuMemsetD16Async_ptsz, h_memset_async, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream), (dstDevice, us, N, hStream)) \
	X(cuMemsetD32Async_ptsz, h_memset_async, CI_F_PTSZ, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream), (dstDevice, ui, N, hStream)) \
	X(cuMemsetD2D8Async_ptsz, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, uc, Width, Height, hStream)) \
	X(cuMemsetD2D16Async_ptsz, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, us, Width, Height, hStream)) \
	X(cuMemsetD2D32Async_ptsz, none, CI_F_PTSZ, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, ui, Width, Height, hStream)) \
	X(cuArrayCreate_v2, none, 0, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray), (pHandle, pAllocateArray)) \
	X(cuArrayGetDescriptor_v2, none, 0, (CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
	X(cuArrayGetSparseProperties, none, 0, (CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUarray array), (sparseProperties, array)) \
	X(cuMipmappedArrayGetSparseProperties, none, 0, (CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUmipmappedArray mipmap), (sparseProperties, mipmap)) \
	X(cuArrayGetMemoryRequirements, none, 0, (CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements, CUarray array, CUdevice device), (memoryRequirements, array, device)) \
	X(cuMipmappedArrayGetMemoryRequirements, none, 0, (CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements, CUmipmappedArray mipmap, CUdevice device), (memoryRequirements, mipmap, device)) \
	X(cuArrayGetPlane, none, 0, (CUarray *pPlaneArray, CUarray hArray, unsigned int planeIdx), (pPlaneArray, hArray, planeIdx)) \
	X(cuArrayDestroy, none, 0, (CUarray hArray), (hArray)) \
	X(cuArray3DCreate_v2, none, 0, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray), (pHandle, pAllocateArray)) \
	X(cuArray3DGetDescriptor_v2, none, 0, (CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
	X(cuMipmappedArrayCreate, none, 0, (CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc, unsigned int numMipmapLevels), (pHandle, pMipmappedArrayDesc, numMipmapLevels)) \
	X(cuMipmappedArrayGetLevel, none, 0, (CUarray *pLevelArray, CUmipmappedArray hMipmappedArray, unsigned int level), (pLevelArray, hMipmappedArray, level)) \
	X(cuMipmappedArrayDestroy, none, 0, (CUmipmappedArray hMipmappedArray), (hMipmappedArray)) \
	X(cuMemGetHandleForAddressRange, none, 0, (void *handle, CUdeviceptr dptr, size_t size, CUmemRangeHandleType handleType, unsigned long long flags), (handle, dptr, size, handleType, flags)) \
	X(cuMemBatchDecompressAsync_ptsz, none, CI_F_PTSZ, (CUmemDecompressParams *paramsArray, size_t count, unsigned int flags, size_t *errorIndex, CUstream stream), (paramsArray, count, flags, errorIndex, stream)) \
	X(cuMemAddressReserve, h_mem_address_reserve, 0, (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags), (ptr, size, alignment, addr, flags)) \
	X(cuMemAddressFree, h_mem_address_free, 0, (CUdeviceptr ptr, size_t size), (ptr, size)) \
	X(cuMemCreate, h_mem_create, 0, (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags), (handle, size, prop, flags)) \
	X(cuMemRelease, h_mem_release, 0, (CUmemGenericAllocationHandle handle), (handle)) \
	X(cuMemMap, h_mem_map, 0, (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags), (ptr, size, offset, handle, flags)) \
	X(cuMemMapArrayAsync_ptsz, none, CI_F_PTSZ, (CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream), (mapInfoList, count, hStream)) \
	X(cuMemUnmap, h_mem_unmap, 0, (CUdeviceptr ptr, size_t size), (ptr, size)) \
	X(cuMemSetAccess, none, 0, (CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count), (ptr, size, desc, count)) \
	X(cuMemGetAccess, none, 0, (unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr), (flags, location, ptr)) \
	X(cuMemExportToShareableHandle, h_mem_export, 0, (void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags), (shareableHandle, handle, handleType, flags)) \
	X(cuMemImportFromShareableHandle, h_mem_import, 0, (CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType), (handle, osHandle, shHandleType)) \
	X(cuMemGetAllocationGranularity, none, 0, (size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option), (granularity, prop, option)) \
	X(cuMemGetAllocationPropertiesFromHandle, none, 0, (CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle), (prop, handle)) \
	X(cuMemRetainAllocationHandle, none, 0, (CUmemGenericAllocationHandle *handle, void *addr), (handle, addr)) \
	X(cuMemFreeAsync_ptsz, h_mem_free_async, CI_F_PTSZ, (CUdeviceptr dptr, CUstream hStream), (dptr, hStream)) \
	X(cuMemAllocAsync_ptsz, h_mem_alloc_async, CI_F_PTSZ, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream), (dptr, bytesize, hStream)) \
	X(cuMemPoolTrimTo, none, 0, (CUmemoryPool pool, size_t minBytesToKeep), (pool, minBytesToKeep)) \
	X(cuMemPoolSetAttribute, none, 0, (CUmemoryPool pool, CUmemPool_attribute attr, void *value), (pool, attr, value)) \
	X(cuMemPoolGetAttribute, none, 0, (CUmemoryPool pool, CUmemPool_attribute attr, void *value), (pool, attr, value)) \
	X(cuMemPoolSetAccess, none, 0, (CUmemoryPool pool, const CUmemAccessDesc *map, size_t count), (pool, map, count)) \
	X(cuMemPoolGetAccess, none, 0, (CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location), (flags, memPool, location)) \
	X(cuMemPoolCreate, none, 0, (CUmemoryPool *pool, const CUmemPoolProps *poolProps), (pool, poolProps)) \
	X(cuMemPoolDestroy, none, 0, (CUmemoryPool pool), (pool)) \
	X(cuMemGetDefaultMemPool, none, 0, (CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type), (pool_out, location, type)) \
	X(cuMemGetMemPool, none, 0, (CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type), (pool, location, type)) \
	X(cuMemSetMemPool, none, 0, (CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool), (location, type, pool)) \
	X(cuMemAllocFromPoolAsync_ptsz, h_mem_alloc_pool, CI_F_PTSZ, (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream), (dptr, bytesize, pool, hStream)) \
	X(cuMemPoolExportToShareableHandle, none, 0, (void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags), (handle_out, pool, handleType, flags)) \
	X(cuMemPoolImportFromShareableHandle, none, 0, (CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags), (pool_out, handle, handleType, flags)) \
	X(cuMemPoolExportPointer, none, 0, (CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr), (shareData_out, ptr)) \
	X(cuMemPoolImportPointer, none, 0, (CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData), (ptr_out, pool, shareData)) \
	X(cuMulticastCreate, none, 0, (CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop), (mcHandle, prop)) \
	X(cuMulticastAddDevice, none, 0, (CUmemGenericAllocationHandle mcHandle, CUdevice dev), (mcHandle, dev)) \
	X(cuMulticastBindMem, none, 0, (CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUmemGenericAllocationHandle memHandle, size_t memOffset, size_t size, unsigned long long flags), (mcHandle, mcOffset, memHandle, memOffset, size, flags)) \
	X(cuMulticastBindAddr, none, 0, (CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUdeviceptr memptr, size_t size, unsigned long long flags), (mcHandle, mcOffset, memptr, size, flags)) \
	X(cuMulticastUnbind, none, 0, (CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset, size_t size), (mcHandle, dev, mcOffset, size)) \
	X(cuMulticastGetGranularity, none, 0, (size_t *granularity, const CUmulticastObjectProp *prop, CUmulticastGranularity_flags option), (granularity, prop, option)) \
	X(cuPointerGetAttribute, none, 0, (void *data, CUpointer_attribute attribute, CUdeviceptr ptr), (data, attribute, ptr)) \
	X(cuMemPrefetchAsync_v2_ptsz, none, CI_F_PTSZ, (CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream), (devPtr, count, location, flags, hStream)) \
	X(cuMemAdvise_v2, none, 0, (CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location), (devPtr, count, advice, location)) \
	X(cuMemPrefetchBatchAsync_ptsz, none, CI_F_PTSZ, (CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream)) \
	X(cuMemDiscardBatchAsync_ptsz, none, CI_F_PTSZ, (CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, flags, hStream)) \
	X(cuMemDiscardAndPrefetchBatchAsync_ptsz, none, CI_F_PTSZ, (CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream)) \
	X(cuMemRangeGetAttribute, none, 0, (void *data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr, size_t count), (data, dataSize, attribute, devPtr, count)) \
	X(cuMemRangeGetAttributes, none, 0, (void **data, size_t *dataSizes, CUmem_range_attribute *attributes, size_t numAttributes, CUdeviceptr devPtr, size_t count), (data, dataSizes, attributes, numAttributes, devPtr, count)) \
	X(cuPointerSetAttribute, none, 0, (const void *value, CUpointer_attribute attribute, CUdeviceptr ptr), (value, attribute, ptr)) \
	X(cuPointerGetAttributes, none, 0, (unsigned int numAttributes, CUpointer_attribute *attributes, void **data, CUdeviceptr ptr), (numAttributes, attributes, data, ptr)) \
	X(cuStreamCreate, h_stream_create, 0, (CUstream *phStream, unsigned int Flags), (phStream, Flags)) \
	X(cuStreamCreateWithPriority, h_stream_create_prio, 0, (CUstream *phStream, unsigned int flags, int priority), (phStream, flags, priority)) \
	X(cuStreamGetPriority_ptsz, none, CI_F_PTSZ, (CUstream hStream, int *priority), (hStream, priority)) \
	X(cuStreamGetDevice_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUdevice *device), (hStream, device)) \
	X(cuStreamGetFlags_ptsz, none, CI_F_PTSZ, (CUstream hStream, unsigned int *flags), (hStream, flags)) \
	X(cuStreamGetId_ptsz, none, CI_F_PTSZ, (CUstream hStream, unsigned long long *streamId), (hStream, streamId)) \
	X(cuStreamGetCtx_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUcontext *pctx), (hStream, pctx)) \
	X(cuStreamGetCtx_v2_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx), (hStream, pCtx, pGreenCtx)) \
	X(cuStreamWaitEvent_ptsz, h_stream_wait_event, CI_F_PTSZ, (CUstream hStream, CUevent hEvent, unsigned int Flags), (hStream, hEvent, Flags)) \
	X(cuStreamAddCallback_ptsz, h_stream_add_callback, CI_F_PTSZ, (CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags), (hStream, callback, userData, flags)) \
	X(cuStreamBeginCapture_v2_ptsz, h_capture_begin, CI_F_PTSZ, (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode)) \
	X(cuStreamBeginCaptureToGraph_ptsz, h_capture_begin_to_graph, CI_F_PTSZ, (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode), (hStream, hGraph, dependencies, dependencyData, numDependencies, mode)) \
	X(cuThreadExchangeStreamCaptureMode, none, 0, (CUstreamCaptureMode *mode), (mode)) \
	X(cuStreamEndCapture_ptsz, h_capture_end, CI_F_PTSZ, (CUstream hStream, CUgraph *phGraph), (hStream, phGraph)) \
	X(cuStreamIsCapturing_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamCaptureStatus *captureStatus), (hStream, captureStatus)) \
	X(cuStreamGetCaptureInfo_v3_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out)) \
	X(cuStreamUpdateCaptureDependencies_v2_ptsz, h_capture_deps, CI_F_PTSZ, (CUstream hStream, CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags), (hStream, dependencies, dependencyData, numDependencies, flags)) \
	X(cuStreamAttachMemAsync_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags), (hStream, dptr, length, flags)) \
	X(cuStreamQuery_ptsz, h_stream_query, CI_F_PTSZ|CI_F_QUERY, (CUstream hStream), (hStream)) \
	X(cuStreamSynchronize_ptsz, h_stream_sync, CI_F_PTSZ, (CUstream hStream), (hStream)) \
	X(cuStreamDestroy_v2, h_stream_destroy, 0, (CUstream hStream), (hStream)) \
	X(cuStreamCopyAttributes_ptsz, none, CI_F_PTSZ, (CUstream dst, CUstream src), (dst, src)) \
	X(cuStreamGetAttribute_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out), (hStream, attr, value_out)) \
	X(cuStreamSetAttribute_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value), (hStream, attr, value)) \
	X(cuEventCreate, none, 0, (CUevent *phEvent, unsigned int Flags), (phEvent, Flags)) \
	X(cuEventRecord_ptsz, h_event_record, CI_F_PTSZ, (CUevent hEvent, CUstream hStream), (hEvent, hStream)) \
	X(cuEventRecordWithFlags_ptsz, h_event_record_flags, CI_F_PTSZ, (CUevent hEvent, CUstream hStream, unsigned int flags), (hEvent, hStream, flags)) \
	X(cuEventQuery, h_event_query, CI_F_QUERY, (CUevent hEvent), (hEvent)) \
	X(cuEventSynchronize, h_event_sync, 0, (CUevent hEvent), (hEvent)) \
	X(cuEventDestroy_v2, none, 0, (CUevent hEvent), (hEvent)) \
	X(cuEventElapsedTime_v2, none, 0, (float *pMilliseconds, CUevent hStart, CUevent hEnd), (pMilliseconds, hStart, hEnd)) \
	X(cuImportExternalMemory, none, 0, (CUexternalMemory *extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc), (extMem_out, memHandleDesc)) \
	X(cuExternalMemoryGetMappedBuffer, none, 0, (CUdeviceptr *devPtr, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc), (devPtr, extMem, bufferDesc)) \
	X(cuExternalMemoryGetMappedMipmappedArray, none, 0, (CUmipmappedArray *mipmap, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc), (mipmap, extMem, mipmapDesc)) \
	X(cuDestroyExternalMemory, none, 0, (CUexternalMemory extMem), (extMem)) \
	X(cuImportExternalSemaphore, none, 0, (CUexternalSemaphore *extSem_out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *semHandleDesc), (extSem_out, semHandleDesc)) \
	X(cuSignalExternalSemaphoresAsync_ptsz, none, CI_F_PTSZ, (const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
	X(cuWaitExternalSemaphoresAsync_ptsz, none, CI_F_PTSZ, (const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
	X(cuDestroyExternalSemaphore, none, 0, (CUexternalSemaphore extSem), (extSem)) \
	X(cuStreamWaitValue32_v2_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue64_v2_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWriteValue32_v2_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWriteValue64_v2_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamBatchMemOp_v2_ptsz, none, CI_F_PTSZ, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
	X(cuFuncGetAttribute, none, 0, (int *pi, CUfunction_attribute attrib, CUfunction hfunc), (pi, attrib, hfunc)) \
	X(cuFuncSetAttribute, none, 0, (CUfunction hfunc, CUfunction_attribute attrib, int value), (hfunc, attrib, value)) \
	X(cuFuncSetCacheConfig, none, 0, (CUfunction hfunc, CUfunc_cache config), (hfunc, config)) \
	X(cuFuncGetModule, none, 0, (CUmodule *hmod, CUfunction hfunc), (hmod, hfunc)) \
	X(cuFuncGetName, none, 0, (const char **name, CUfunction hfunc), (name, hfunc)) \
	X(cuFuncGetParamInfo, none, 0, (CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize), (func, paramIndex, paramOffset, paramSize)) \
	X(cuFuncIsLoaded, none, 0, (CUfunctionLoadingState *state, CUfunction function), (state, function)) \
	X(cuFuncLoad, none, 0, (CUfunction function), (function)) \
	X(cuLaunchKernel_ptsz, h_launch_kernel, CI_F_PTSZ, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra)) \
	X(cuLaunchKernelEx_ptsz, h_launch_kernel_ex, CI_F_PTSZ, (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra), (config, f, kernelParams, extra)) \
	X(cuLaunchCooperativeKernel_ptsz, h_launch_cooperative, CI_F_PTSZ, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams)) \
	X(cuLaunchCooperativeKernelMultiDevice, h_launch_cooperative_multi, 0, (CUDA_LAUNCH_PARAMS *launchParamsList, unsigned int numDevices, unsigned int flags), (launchParamsList, numDevices, flags)) \
	X(cuLaunchHostFunc_ptsz, h_launch_host_func, CI_F_PTSZ, (CUstream hStream, CUhostFn fn, void *userData), (hStream, fn, userData)) \
	X(cuFuncSetBlockShape, none, 0, (CUfunction hfunc, int x, int y, int z), (hfunc, x, y, z)) \
	X(cuFuncSetSharedSize, none, 0, (CUfunction hfunc, unsigned int bytes), (hfunc, bytes)) \
	X(cuParamSetSize, none, 0, (CUfunction hfunc, unsigned int numbytes), (hfunc, numbytes)) \
	X(cuParamSeti, none, 0, (CUfunction hfunc, int offset, unsigned int value), (hfunc, offset, value)) \
	X(cuParamSetf, none, 0, (CUfunction hfunc, int offset, float value), (hfunc, offset, value)) \
	X(cuParamSetv, none, 0, (CUfunction hfunc, int offset, void *ptr, unsigned int numbytes), (hfunc, offset, ptr, numbytes)) \
	X(cuLaunch, h_launch_legacy, 0, (CUfunction f), (f)) \
	X(cuLaunchGrid, h_launch_grid, 0, (CUfunction f, int grid_width, int grid_height), (f, grid_width, grid_height)) \
	X(cuLaunchGridAsync, h_launch_grid_async, 0, (CUfunction f, int grid_width, int grid_height, CUstream hStream), (f, grid_width, grid_height, hStream)) \
	X(cuParamSetTexRef, none, 0, (CUfunction hfunc, int texunit, CUtexref hTexRef), (hfunc, texunit, hTexRef)) \
	X(cuFuncSetSharedMemConfig, none, 0, (CUfunction hfunc, CUsharedconfig config), (hfunc, config)) \
	X(cuGraphCreate, h_graph_create, 0, (CUgraph *phGraph, unsigned int flags), (phGraph, flags)) \
	X(cuGraphAddKernelNode_v2, h_graph_add_kernel, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphKernelNodeGetParams_v2, none, 0, (CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphKernelNodeSetParams_v2, h_graph_kernel_set, 0, (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddMemcpyNode, h_graph_add_memcpy, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx), (phGraphNode, hGraph, dependencies, numDependencies, copyParams, ctx)) \
	X(cuGraphMemcpyNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams), (hNode, nodeParams)) \
	X(cuGraphMemcpyNodeSetParams, h_graph_memcpy_set, 0, (CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddMemsetNode, h_graph_add_memset, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx), (phGraphNode, hGraph, dependencies, numDependencies, memsetParams, ctx)) \
	X(cuGraphMemsetNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphMemsetNodeSetParams, h_graph_memset_set, 0, (CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddHostNode, h_graph_add_host, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphHostNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphHostNodeSetParams, h_graph_host_set, 0, (CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddChildGraphNode, h_graph_add_child, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUgraph childGraph), (phGraphNode, hGraph, dependencies, numDependencies, childGraph)) \
	X(cuGraphChildGraphNodeGetGraph, none, 0, (CUgraphNode hNode, CUgraph *phGraph), (hNode, phGraph)) \
	X(cuGraphAddEmptyNode, h_graph_add_empty, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies), (phGraphNode, hGraph, dependencies, numDependencies)) \
	X(cuGraphAddEventRecordNode, h_graph_add_event_record, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event), (phGraphNode, hGraph, dependencies, numDependencies, event)) \
	X(cuGraphEventRecordNodeGetEvent, none, 0, (CUgraphNode hNode, CUevent *event_out), (hNode, event_out)) \
	X(cuGraphEventRecordNodeSetEvent, h_graph_event_record_set, 0, (CUgraphNode hNode, CUevent event), (hNode, event)) \
	X(cuGraphAddEventWaitNode, h_graph_add_event_wait, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event), (phGraphNode, hGraph, dependencies, numDependencies, event)) \
	X(cuGraphEventWaitNodeGetEvent, none, 0, (CUgraphNode hNode, CUevent *event_out), (hNode, event_out)) \
	X(cuGraphEventWaitNodeSetEvent, h_graph_event_wait_set, 0, (CUgraphNode hNode, CUevent event), (hNode, event)) \
	X(cuGraphAddExternalSemaphoresSignalNode, h_graph_add_sem_signal, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphExternalSemaphoresSignalNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *params_out), (hNode, params_out)) \
	X(cuGraphExternalSemaphoresSignalNodeSetParams, h_graph_sem_signal_set, 0, (CUgraphNode hNode, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddExternalSemaphoresWaitNode, h_graph_add_sem_wait, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphExternalSemaphoresWaitNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_EXT_SEM_WAIT_NODE_PARAMS *params_out), (hNode, params_out)) \
	X(cuGraphExternalSemaphoresWaitNodeSetParams, h_graph_sem_wait_set, 0, (CUgraphNode hNode, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphAddBatchMemOpNode, h_graph_add_memop, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphBatchMemOpNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out), (hNode, nodeParams_out)) \
	X(cuGraphBatchMemOpNodeSetParams, none, 0, (CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams), (hNode, nodeParams)) \
	X(cuGraphExecBatchMemOpNodeSetParams, none, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphAddMemAllocNode, h_graph_add_mem_alloc, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphMemAllocNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out), (hNode, params_out)) \
	X(cuGraphAddMemFreeNode, h_graph_add_mem_free, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUdeviceptr dptr), (phGraphNode, hGraph, dependencies, numDependencies, dptr)) \
	X(cuGraphMemFreeNodeGetParams, none, 0, (CUgraphNode hNode, CUdeviceptr *dptr_out), (hNode, dptr_out)) \
	X(cuDeviceGraphMemTrim, none, 0, (CUdevice device), (device)) \
	X(cuDeviceGetGraphMemAttribute, none, 0, (CUdevice device, CUgraphMem_attribute attr, void* value), (device, attr, value)) \
	X(cuDeviceSetGraphMemAttribute, none, 0, (CUdevice device, CUgraphMem_attribute attr, void* value), (device, attr, value)) \
	X(cuGraphClone, h_graph_clone, 0, (CUgraph *phGraphClone, CUgraph originalGraph), (phGraphClone, originalGraph)) \
	X(cuGraphNodeFindInClone, none, 0, (CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph), (phNode, hOriginalNode, hClonedGraph)) \
	X(cuGraphNodeGetType, none, 0, (CUgraphNode hNode, CUgraphNodeType *type), (hNode, type)) \
	X(cuGraphGetNodes, none, 0, (CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes), (hGraph, nodes, numNodes)) \
	X(cuGraphGetRootNodes, none, 0, (CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes), (hGraph, rootNodes, numRootNodes)) \
	X(cuGraphGetEdges_v2, none, 0, (CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edgeData, size_t *numEdges), (hGraph, from, to, edgeData, numEdges)) \
	X(cuGraphNodeGetDependencies_v2, none, 0, (CUgraphNode hNode, CUgraphNode *dependencies, CUgraphEdgeData *edgeData, size_t *numDependencies), (hNode, dependencies, edgeData, numDependencies)) \
	X(cuGraphNodeGetDependentNodes_v2, none, 0, (CUgraphNode hNode, CUgraphNode *dependentNodes, CUgraphEdgeData *edgeData, size_t *numDependentNodes), (hNode, dependentNodes, edgeData, numDependentNodes)) \
	X(cuGraphAddDependencies_v2, h_graph_deps_add_v2, 0, (CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edgeData, size_t numDependencies), (hGraph, from, to, edgeData, numDependencies)) \
	X(cuGraphRemoveDependencies_v2, h_graph_deps_remove_v2, 0, (CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edgeData, size_t numDependencies), (hGraph, from, to, edgeData, numDependencies)) \
	X(cuGraphDestroyNode, h_graph_node_destroy, 0, (CUgraphNode hNode), (hNode)) \
	X(cuGraphInstantiateWithFlags, h_graph_instantiate_flags, 0, (CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags), (phGraphExec, hGraph, flags)) \
	X(cuGraphInstantiateWithParams_ptsz, h_graph_instantiate_params, CI_F_PTSZ, (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams), (phGraphExec, hGraph, instantiateParams)) \
	X(cuGraphExecGetFlags, none, 0, (CUgraphExec hGraphExec, cuuint64_t *flags), (hGraphExec, flags)) \
	X(cuGraphExecKernelNodeSetParams_v2, h_graph_exec_kernel_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphExecMemcpyNodeSetParams, h_graph_exec_memcpy_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D *copyParams, CUcontext ctx), (hGraphExec, hNode, copyParams, ctx)) \
	X(cuGraphExecMemsetNodeSetParams, h_graph_exec_memset_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx), (hGraphExec, hNode, memsetParams, ctx)) \
	X(cuGraphExecHostNodeSetParams, h_graph_exec_host_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphExecChildGraphNodeSetParams, h_graph_exec_child_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph), (hGraphExec, hNode, childGraph)) \
	X(cuGraphExecEventRecordNodeSetEvent, h_graph_exec_event_record_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event), (hGraphExec, hNode, event)) \
	X(cuGraphExecEventWaitNodeSetEvent, h_graph_exec_event_wait_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event), (hGraphExec, hNode, event)) \
	X(cuGraphExecExternalSemaphoresSignalNodeSetParams, h_graph_exec_sem_signal_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphExecExternalSemaphoresWaitNodeSetParams, h_graph_exec_sem_wait_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphNodeSetEnabled, h_graph_node_enable, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled), (hGraphExec, hNode, isEnabled)) \
	X(cuGraphNodeGetEnabled, none, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled), (hGraphExec, hNode, isEnabled)) \
	X(cuGraphUpload_ptsz, none, CI_F_PTSZ, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
	X(cuGraphLaunch_ptsz, h_graph_launch, CI_F_PTSZ, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
	X(cuGraphExecDestroy, h_graph_exec_destroy, 0, (CUgraphExec hGraphExec), (hGraphExec)) \
	X(cuGraphDestroy, h_graph_destroy, 0, (CUgraph hGraph), (hGraph)) \
	X(cuGraphExecUpdate_v2, h_graph_exec_update, 0, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo), (hGraphExec, hGraph, resultInfo)) \
	X(cuGraphKernelNodeCopyAttributes, none, 0, (CUgraphNode dst, CUgraphNode src), (dst, src)) \
	X(cuGraphKernelNodeGetAttribute, none, 0, (CUgraphNode hNode, CUkernelNodeAttrID attr, CUkernelNodeAttrValue *value_out), (hNode, attr, value_out)) \
	X(cuGraphKernelNodeSetAttribute, none, 0, (CUgraphNode hNode, CUkernelNodeAttrID attr, const CUkernelNodeAttrValue *value), (hNode, attr, value)) \
	X(cuGraphDebugDotPrint, none, 0, (CUgraph hGraph, const char *path, unsigned int flags), (hGraph, path, flags)) \
	X(cuUserObjectCreate, none, 0, (CUuserObject *object_out, void *ptr, CUhostFn destroy, unsigned int initialRefcount, unsigned int flags), (object_out, ptr, destroy, initialRefcount, flags)) \
	X(cuUserObjectRetain, none, 0, (CUuserObject object, unsigned int count), (object, count)) \
	X(cuUserObjectRelease, none, 0, (CUuserObject object, unsigned int count), (object, count)) \
	X(cuGraphRetainUserObject, none, 0, (CUgraph graph, CUuserObject object, unsigned int count, unsigned int flags), (graph, object, count, flags)) \
	X(cuGraphReleaseUserObject, none, 0, (CUgraph graph, CUuserObject object, unsigned int count), (graph, object, count)) \
	X(cuGraphAddNode_v2, h_graph_add_node_v2, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, CUgraphNodeParams *nodeParams), (phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams)) \
	X(cuGraphNodeSetParams, h_graph_node_set, 0, (CUgraphNode hNode, CUgraphNodeParams *nodeParams), (hNode, nodeParams)) \
	X(cuGraphExecNodeSetParams, h_graph_exec_node_set, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphConditionalHandleCreate, none, 0, (CUgraphConditionalHandle *pHandle_out, CUgraph hGraph, CUcontext ctx, unsigned int defaultLaunchValue, unsigned int flags), (pHandle_out, hGraph, ctx, defaultLaunchValue, flags)) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor, none, 0, (int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize), (numBlocks, func, blockSize, dynamicSMemSize)) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, none, 0, (int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags), (numBlocks, func, blockSize, dynamicSMemSize, flags)) \
	X(cuOccupancyMaxPotentialBlockSize, none, 0, (int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit), (minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit)) \
	X(cuOccupancyMaxPotentialBlockSizeWithFlags, none, 0, (int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags), (minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags)) \
	X(cuOccupancyAvailableDynamicSMemPerBlock, none, 0, (size_t *dynamicSmemSize, CUfunction func, int numBlocks, int blockSize), (dynamicSmemSize, func, numBlocks, blockSize)) \
	X(cuOccupancyMaxPotentialClusterSize, none, 0, (int *clusterSize, CUfunction func, const CUlaunchConfig *config), (clusterSize, func, config)) \
	X(cuOccupancyMaxActiveClusters, none, 0, (int *numClusters, CUfunction func, const CUlaunchConfig *config), (numClusters, func, config)) \
	X(cuTexRefSetArray, none, 0, (CUtexref hTexRef, CUarray hArray, unsigned int Flags), (hTexRef, hArray, Flags)) \
	X(cuTexRefSetMipmappedArray, none, 0, (CUtexref hTexRef, CUmipmappedArray hMipmappedArray, unsigned int Flags), (hTexRef, hMipmappedArray, Flags)) \
	X(cuTexRefSetAddress_v2, none, 0, (size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr, size_t bytes), (ByteOffset, hTexRef, dptr, bytes)) \
	X(cuTexRefSetAddress2D_v3, none, 0, (CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch), (hTexRef, desc, dptr, Pitch)) \
	X(cuTexRefSetFormat, none, 0, (CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents), (hTexRef, fmt, NumPackedComponents)) \
	X(cuTexRefSetAddressMode, none, 0, (CUtexref hTexRef, int dim, CUaddress_mode am), (hTexRef, dim, am)) \
	X(cuTexRefSetFilterMode, none, 0, (CUtexref hTexRef, CUfilter_mode fm), (hTexRef, fm)) \
	X(cuTexRefSetMipmapFilterMode, none, 0, (CUtexref hTexRef, CUfilter_mode fm), (hTexRef, fm)) \
	X(cuTexRefSetMipmapLevelBias, none, 0, (CUtexref hTexRef, float bias), (hTexRef, bias)) \
	X(cuTexRefSetMipmapLevelClamp, none, 0, (CUtexref hTexRef, float minMipmapLevelClamp, float maxMipmapLevelClamp), (hTexRef, minMipmapLevelClamp, maxMipmapLevelClamp)) \
	X(cuTexRefSetMaxAnisotropy, none, 0, (CUtexref hTexRef, unsigned int maxAniso), (hTexRef, maxAniso)) \
	X(cuTexRefSetBorderColor, none, 0, (CUtexref hTexRef, float *pBorderColor), (hTexRef, pBorderColor)) \
	X(cuTexRefSetFlags, none, 0, (CUtexref hTexRef, unsigned int Flags), (hTexRef, Flags)) \
	X(cuTexRefGetAddress_v2, none, 0, (CUdeviceptr *pdptr, CUtexref hTexRef), (pdptr, hTexRef)) \
	X(cuTexRefGetArray, none, 0, (CUarray *phArray, CUtexref hTexRef), (phArray, hTexRef)) \
	X(cuTexRefGetMipmappedArray, none, 0, (CUmipmappedArray *phMipmappedArray, CUtexref hTexRef), (phMipmappedArray, hTexRef)) \
	X(cuTexRefGetAddressMode, none, 0, (CUaddress_mode *pam, CUtexref hTexRef, int dim), (pam, hTexRef, dim)) \
	X(cuTexRefGetFilterMode, none, 0, (CUfilter_mode *pfm, CUtexref hTexRef), (pfm, hTexRef)) \
	X(cuTexRefGetFormat, none, 0, (CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef), (pFormat, pNumChannels, hTexRef)) \
	X(cuTexRefGetMipmapFilterMode, none, 0, (CUfilter_mode *pfm, CUtexref hTexRef), (pfm, hTexRef)) \
	X(cuTexRefGetMipmapLevelBias, none, 0, (float *pbias, CUtexref hTexRef), (pbias, hTexRef)) \
	X(cuTexRefGetMipmapLevelClamp, none, 0, (float *pminMipmapLevelClamp, float *pmaxMipmapLevelClamp, CUtexref hTexRef), (pminMipmapLevelClamp, pmaxMipmapLevelClamp, hTexRef)) \
	X(cuTexRefGetMaxAnisotropy, none, 0, (int *pmaxAniso, CUtexref hTexRef), (pmaxAniso, hTexRef)) \
	X(cuTexRefGetBorderColor, none, 0, (float *pBorderColor, CUtexref hTexRef), (pBorderColor, hTexRef)) \
	X(cuTexRefGetFlags, none, 0, (unsigned int *pFlags, CUtexref hTexRef), (pFlags, hTexRef)) \
	X(cuTexRefCreate, none, 0, (CUtexref *pTexRef), (pTexRef)) \
	X(cuTexRefDestroy, none, 0, (CUtexref hTexRef), (hTexRef)) \
	X(cuSurfRefSetArray, none, 0, (CUsurfref hSurfRef, CUarray hArray, unsigned int Flags), (hSurfRef, hArray, Flags)) \
	X(cuSurfRefGetArray, none, 0, (CUarray *phArray, CUsurfref hSurfRef), (phArray, hSurfRef)) \
	X(cuTexObjectCreate, none, 0, (CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc, const CUDA_TEXTURE_DESC *pTexDesc, const CUDA_RESOURCE_VIEW_DESC *pResViewDesc), (pTexObject, pResDesc, pTexDesc, pResViewDesc)) \
	X(cuTexObjectDestroy, none, 0, (CUtexObject texObject), (texObject)) \
	X(cuTexObjectGetResourceDesc, none, 0, (CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject), (pResDesc, texObject)) \
	X(cuTexObjectGetTextureDesc, none, 0, (CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject), (pTexDesc, texObject)) \
	X(cuTexObjectGetResourceViewDesc, none, 0, (CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject), (pResViewDesc, texObject)) \
	X(cuSurfObjectCreate, none, 0, (CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc), (pSurfObject, pResDesc)) \
	X(cuSurfObjectDestroy, none, 0, (CUsurfObject surfObject), (surfObject)) \
	X(cuSurfObjectGetResourceDesc, none, 0, (CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject), (pResDesc, surfObject)) \
	X(cuTensorMapEncodeTiled, none, 0, (CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides, const cuuint32_t *boxDim, const cuuint32_t *elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill), (tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, boxDim, elementStrides, interleave, swizzle, l2Promotion, oobFill)) \
	X(cuTensorMapEncodeIm2col, none, 0, (CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides, const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner, cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn, const cuuint32_t *elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill), (tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, pixelBoxLowerCorner, pixelBoxUpperCorner, channelsPerPixel, pixelsPerColumn, elementStrides, interleave, swizzle, l2Promotion, oobFill)) \
	X(cuTensorMapEncodeIm2colWide, none, 0, (CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides, int pixelBoxLowerCornerWidth, int pixelBoxUpperCornerWidth, cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn, const cuuint32_t *elementStrides, CUtensorMapInterleave interleave, CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill), (tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, pixelBoxLowerCornerWidth, pixelBoxUpperCornerWidth, channelsPerPixel, pixelsPerColumn, elementStrides, interleave, mode, swizzle, l2Promotion, oobFill)) \
	X(cuTensorMapReplaceAddress, none, 0, (CUtensorMap *tensorMap, void *globalAddress), (tensorMap, globalAddress)) \
	X(cuDeviceCanAccessPeer, none, 0, (int *canAccessPeer, CUdevice dev, CUdevice peerDev), (canAccessPeer, dev, peerDev)) \
	X(cuCtxEnablePeerAccess, none, 0, (CUcontext peerContext, unsigned int Flags), (peerContext, Flags)) \
	X(cuCtxDisablePeerAccess, none, 0, (CUcontext peerContext), (peerContext)) \
	X(cuDeviceGetP2PAttribute, none, 0, (int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice), (value, attrib, srcDevice, dstDevice)) \
	X(cuDeviceGetP2PAtomicCapabilities, none, 0, (unsigned int* capabilities, const CUatomicOperation* operations, unsigned int count, CUdevice srcDevice, CUdevice dstDevice), (capabilities, operations, count, srcDevice, dstDevice)) \
	X(cuGraphicsUnregisterResource, none, 0, (CUgraphicsResource resource), (resource)) \
	X(cuGraphicsSubResourceGetMappedArray, none, 0, (CUarray *pArray, CUgraphicsResource resource, unsigned int arrayIndex, unsigned int mipLevel), (pArray, resource, arrayIndex, mipLevel)) \
	X(cuGraphicsResourceGetMappedMipmappedArray, none, 0, (CUmipmappedArray *pMipmappedArray, CUgraphicsResource resource), (pMipmappedArray, resource)) \
	X(cuGraphicsResourceGetMappedPointer_v2, none, 0, (CUdeviceptr *pDevPtr, size_t *pSize, CUgraphicsResource resource), (pDevPtr, pSize, resource)) \
	X(cuGraphicsResourceSetMapFlags_v2, none, 0, (CUgraphicsResource resource, unsigned int flags), (resource, flags)) \
	X(cuGraphicsMapResources_ptsz, none, CI_F_PTSZ, (unsigned int count, CUgraphicsResource *resources, CUstream hStream), (count, resources, hStream)) \
	X(cuGraphicsUnmapResources_ptsz, none, CI_F_PTSZ, (unsigned int count, CUgraphicsResource *resources, CUstream hStream), (count, resources, hStream)) \
	X(cuGetProcAddress_v2, manual, CI_F_MANUAL, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus), (symbol, pfn, cudaVersion, flags, symbolStatus)) \
	X(cuCoredumpGetAttribute, none, 0, (CUcoredumpSettings attrib, void* value, size_t *size), (attrib, value, size)) \
	X(cuCoredumpGetAttributeGlobal, none, 0, (CUcoredumpSettings attrib, void *value, size_t *size), (attrib, value, size)) \
	X(cuCoredumpSetAttribute, none, 0, (CUcoredumpSettings attrib, void* value, size_t *size), (attrib, value, size)) \
	X(cuCoredumpSetAttributeGlobal, none, 0, (CUcoredumpSettings attrib, void *value, size_t *size), (attrib, value, size)) \
	X(cuGreenCtxCreate, none, 0, (CUgreenCtx* phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags), (phCtx, desc, dev, flags)) \
	X(cuGreenCtxDestroy, h_green_ctx_destroy, 0, (CUgreenCtx hCtx), (hCtx)) \
	X(cuCtxFromGreenCtx, h_ctx_from_green, 0, (CUcontext *pContext, CUgreenCtx hCtx), (pContext, hCtx)) \
	X(cuDeviceGetDevResource, none, 0, (CUdevice device, CUdevResource* resource, CUdevResourceType type), (device, resource, type)) \
	X(cuCtxGetDevResource, none, 0, (CUcontext hCtx, CUdevResource* resource, CUdevResourceType type), (hCtx, resource, type)) \
	X(cuGreenCtxGetDevResource, none, 0, (CUgreenCtx hCtx, CUdevResource* resource, CUdevResourceType type), (hCtx, resource, type)) \
	X(cuDevSmResourceSplitByCount, none, 0, (CUdevResource* result, unsigned int* nbGroups, const CUdevResource* input, CUdevResource* remaining, unsigned int useFlags, unsigned int minCount), (result, nbGroups, input, remaining, useFlags, minCount)) \
	X(cuDevResourceGenerateDesc, none, 0, (CUdevResourceDesc *phDesc, CUdevResource *resources, unsigned int nbResources), (phDesc, resources, nbResources)) \
	X(cuGreenCtxRecordEvent, none, 0, (CUgreenCtx hCtx, CUevent hEvent), (hCtx, hEvent)) \
	X(cuGreenCtxWaitEvent, none, 0, (CUgreenCtx hCtx, CUevent hEvent), (hCtx, hEvent)) \
	X(cuStreamGetGreenCtx, none, 0, (CUstream hStream, CUgreenCtx *phCtx), (hStream, phCtx)) \
	X(cuGreenCtxStreamCreate, h_green_stream_create, 0, (CUstream* phStream, CUgreenCtx greenCtx, unsigned int flags, int priority), (phStream, greenCtx, flags, priority)) \
	X(cuGreenCtxGetId, none, 0, (CUgreenCtx greenCtx, unsigned long long *greenCtxId), (greenCtx, greenCtxId)) \
	X(cuLogsRegisterCallback, none, 0, (CUlogsCallback callbackFunc, void *userData, CUlogsCallbackHandle *callback_out), (callbackFunc, userData, callback_out)) \
	X(cuLogsUnregisterCallback, none, 0, (CUlogsCallbackHandle callback), (callback)) \
	X(cuLogsCurrent, none, 0, (CUlogIterator *iterator_out, unsigned int flags), (iterator_out, flags)) \
	X(cuLogsDumpToFile, none, 0, (CUlogIterator *iterator, const char *pathToFile, unsigned int flags), (iterator, pathToFile, flags)) \
	X(cuLogsDumpToMemory, none, 0, (CUlogIterator *iterator, char *buffer, size_t *size, unsigned int flags), (iterator, buffer, size, flags)) \
	X(cuMemHostRegister, h_mem_host_register, 0, (void *p, size_t bytesize, unsigned int Flags), (p, bytesize, Flags)) \
	X(cuGraphicsResourceSetMapFlags, none, 0, (CUgraphicsResource resource, unsigned int flags), (resource, flags)) \
	X(cuLinkCreate, none, 0, (unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut), (numOptions, options, optionValues, stateOut)) \
	X(cuLinkAddData, none, 0, (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name, unsigned int numOptions, CUjit_option *options, void **optionValues), (state, type, data, size, name, numOptions, options, optionValues)) \
	X(cuLinkAddFile, none, 0, (CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions, CUjit_option *options, void **optionValues), (state, type, path, numOptions, options, optionValues)) \
	X(cuTexRefSetAddress2D_v2, none, 0, (CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch), (hTexRef, desc, dptr, Pitch)) \
	X(cuDeviceTotalMem, none, 0, (unsigned int *bytes, CUdevice dev), (bytes, dev)) \
	X(cuCtxCreate, h_ctx_create, 0, (CUcontext *pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev)) \
	X(cuCtxCreate_v2, h_ctx_create, 0, (CUcontext *pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev)) \
	X(cuCtxCreate_v3, h_ctx_create_v3, 0, (CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags, CUdevice dev), (pctx, paramsArray, numParams, flags, dev)) \
	X(cuModuleGetGlobal, none, 0, (CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod, const char *name), (dptr, bytes, hmod, name)) \
	X(cuMemGetInfo, none, 0, (unsigned int *free, unsigned int *total), (free, total)) \
	X(cuMemAlloc, h_mem_alloc, 0, (CUdeviceptr_v1 *dptr, unsigned int bytesize), (dptr, bytesize)) \
	X(cuMemAllocPitch, h_mem_alloc_pitch, 0, (CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes, unsigned int Height, unsigned int ElementSizeBytes), (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes)) \
	X(cuMemFree, h_mem_free, 0, (CUdeviceptr_v1 dptr), (dptr)) \
	X(cuMemGetAddressRange, none, 0, (CUdeviceptr_v1 *pbase, unsigned int *psize, CUdeviceptr_v1 dptr), (pbase, psize, dptr)) \
	X(cuMemAllocHost, h_mem_alloc_host, 0, (void **pp, unsigned int bytesize), (pp, bytesize)) \
	X(cuMemHostGetDevicePointer, none, 0, (CUdeviceptr_v1 *pdptr, void *p, unsigned int Flags), (pdptr, p, Flags)) \
	X(cuMemcpyHtoD, none, 0, (CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount), (dstDevice, srcHost, ByteCount)) \
	X(cuMemcpyDtoH, none, 0, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount), (dstHost, srcDevice, ByteCount)) \
	X(cuMemcpyDtoD, none, 0, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount), (dstDevice, srcDevice, ByteCount)) \
	X(cuMemcpyDtoA, none, 0, (CUarray dstArray, unsigned int dstOffset, CUdeviceptr_v1 srcDevice, unsigned int ByteCount), (dstArray, dstOffset, srcDevice, ByteCount)) \
	X(cuMemcpyAtoD, none, 0, (CUdeviceptr_v1 dstDevice, CUarray srcArray, unsigned int srcOffset, unsigned int ByteCount), (dstDevice, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyHtoA, none, 0, (CUarray dstArray, unsigned int dstOffset, const void *srcHost, unsigned int ByteCount), (dstArray, dstOffset, srcHost, ByteCount)) \
	X(cuMemcpyAtoH, none, 0, (void *dstHost, CUarray srcArray, unsigned int srcOffset, unsigned int ByteCount), (dstHost, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyAtoA, none, 0, (CUarray dstArray, unsigned int dstOffset, CUarray srcArray, unsigned int srcOffset, unsigned int ByteCount), (dstArray, dstOffset, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyHtoAAsync, none, 0, (CUarray dstArray, unsigned int dstOffset, const void *srcHost, unsigned int ByteCount, CUstream hStream), (dstArray, dstOffset, srcHost, ByteCount, hStream)) \
	X(cuMemcpyAtoHAsync, none, 0, (void *dstHost, CUarray srcArray, unsigned int srcOffset, unsigned int ByteCount, CUstream hStream), (dstHost, srcArray, srcOffset, ByteCount, hStream)) \
	X(cuMemcpy2D, none, 0, (const CUDA_MEMCPY2D_v1 *pCopy), (pCopy)) \
	X(cuMemcpy2DUnaligned, none, 0, (const CUDA_MEMCPY2D_v1 *pCopy), (pCopy)) \
	X(cuMemcpy3D, none, 0, (const CUDA_MEMCPY3D_v1 *pCopy), (pCopy)) \
	X(cuMemcpyHtoDAsync, none, 0, (CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount, CUstream hStream), (dstDevice, srcHost, ByteCount, hStream)) \
	X(cuMemcpyDtoHAsync, none, 0, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream), (dstHost, srcDevice, ByteCount, hStream)) \
	X(cuMemcpyDtoDAsync, none, 0, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream), (dstDevice, srcDevice, ByteCount, hStream)) \
	X(cuMemcpy2DAsync, none, 0, (const CUDA_MEMCPY2D_v1 *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpy3DAsync, none, 0, (const CUDA_MEMCPY3D_v1 *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemsetD8, none, 0, (CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N), (dstDevice, uc, N)) \
	X(cuMemsetD16, none, 0, (CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N), (dstDevice, us, N)) \
	X(cuMemsetD32, none, 0, (CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N), (dstDevice, ui, N)) \
	X(cuMemsetD2D8, none, 0, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned char uc, unsigned int Width, unsigned int Height), (dstDevice, dstPitch, uc, Width, Height)) \
	X(cuMemsetD2D16, none, 0, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned short us, unsigned int Width, unsigned int Height), (dstDevice, dstPitch, us, Width, Height)) \
	X(cuMemsetD2D32, none, 0, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned int ui, unsigned int Width, unsigned int Height), (dstDevice, dstPitch, ui, Width, Height)) \
	X(cuArrayCreate, none, 0, (CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *pAllocateArray), (pHandle, pAllocateArray)) \
	X(cuArrayGetDescriptor, none, 0, (CUDA_ARRAY_DESCRIPTOR_v1 *pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
	X(cuArray3DCreate, none, 0, (CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *pAllocateArray), (pHandle, pAllocateArray)) \
	X(cuArray3DGetDescriptor, none, 0, (CUDA_ARRAY3D_DESCRIPTOR_v1 *pArrayDescriptor, CUarray hArray), (pArrayDescriptor, hArray)) \
	X(cuTexRefSetAddress, none, 0, (unsigned int *ByteOffset, CUtexref hTexRef, CUdeviceptr_v1 dptr, unsigned int bytes), (ByteOffset, hTexRef, dptr, bytes)) \
	X(cuTexRefSetAddress2D, none, 0, (CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR_v1 *desc, CUdeviceptr_v1 dptr, unsigned int Pitch), (hTexRef, desc, dptr, Pitch)) \
	X(cuTexRefGetAddress, none, 0, (CUdeviceptr_v1 *pdptr, CUtexref hTexRef), (pdptr, hTexRef)) \
	X(cuGraphicsResourceGetMappedPointer, none, 0, (CUdeviceptr_v1 *pDevPtr, unsigned int *pSize, CUgraphicsResource resource), (pDevPtr, pSize, resource)) \
	X(cuCtxDestroy, h_ctx_destroy, 0, (CUcontext ctx), (ctx)) \
	X(cuCtxPopCurrent, none, 0, (CUcontext *pctx), (pctx)) \
	X(cuCtxPushCurrent, none, 0, (CUcontext ctx), (ctx)) \
	X(cuStreamDestroy, h_stream_destroy, 0, (CUstream hStream), (hStream)) \
	X(cuEventDestroy, none, 0, (CUevent hEvent), (hEvent)) \
	X(cuEventElapsedTime, none, 0, (float *pMilliseconds, CUevent hStart, CUevent hEnd), (pMilliseconds, hStart, hEnd)) \
	X(cuDevicePrimaryCtxRelease, h_primary_release, 0, (CUdevice dev), (dev)) \
	X(cuDevicePrimaryCtxReset, h_primary_release, 0, (CUdevice dev), (dev)) \
	X(cuDevicePrimaryCtxSetFlags, none, 0, (CUdevice dev, unsigned int flags), (dev, flags)) \
	X(cuDeviceGetUuid, none, 0, (CUuuid *uuid, CUdevice dev), (uuid, dev)) \
	X(cuMemcpyHtoD_v2, h_memcpy, 0, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount), (dstDevice, srcHost, ByteCount)) \
	X(cuMemcpyDtoH_v2, h_memcpy, 0, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount), (dstHost, srcDevice, ByteCount)) \
	X(cuMemcpyDtoD_v2, h_memcpy, 0, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount), (dstDevice, srcDevice, ByteCount)) \
	X(cuMemcpyDtoA_v2, none, 0, (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount), (dstArray, dstOffset, srcDevice, ByteCount)) \
	X(cuMemcpyAtoD_v2, none, 0, (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstDevice, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyHtoA_v2, none, 0, (CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount), (dstArray, dstOffset, srcHost, ByteCount)) \
	X(cuMemcpyAtoH_v2, none, 0, (void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstHost, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyAtoA_v2, none, 0, (CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount), (dstArray, dstOffset, srcArray, srcOffset, ByteCount)) \
	X(cuMemcpyHtoAAsync_v2, none, 0, (CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount, CUstream hStream), (dstArray, dstOffset, srcHost, ByteCount, hStream)) \
	X(cuMemcpyAtoHAsync_v2, none, 0, (void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream), (dstHost, srcArray, srcOffset, ByteCount, hStream)) \
	X(cuMemcpy2D_v2, none, 0, (const CUDA_MEMCPY2D *pCopy), (pCopy)) \
	X(cuMemcpy2DUnaligned_v2, none, 0, (const CUDA_MEMCPY2D *pCopy), (pCopy)) \
	X(cuMemcpy3D_v2, none, 0, (const CUDA_MEMCPY3D *pCopy), (pCopy)) \
	X(cuMemcpyHtoDAsync_v2, h_memcpy_async, 0, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream), (dstDevice, srcHost, ByteCount, hStream)) \
	X(cuMemcpyDtoHAsync_v2, h_memcpy_async, 0, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstHost, srcDevice, ByteCount, hStream)) \
	X(cuMemcpyDtoDAsync_v2, h_memcpy_async, 0, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), (dstDevice, srcDevice, ByteCount, hStream)) \
	X(cuMemcpy2DAsync_v2, none, 0, (const CUDA_MEMCPY2D *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpy3DAsync_v2, none, 0, (const CUDA_MEMCPY3D *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemsetD8_v2, h_memset, 0, (CUdeviceptr dstDevice, unsigned char uc, size_t N), (dstDevice, uc, N)) \
	X(cuMemsetD16_v2, h_memset, 0, (CUdeviceptr dstDevice, unsigned short us, size_t N), (dstDevice, us, N)) \
	X(cuMemsetD32_v2, h_memset, 0, (CUdeviceptr dstDevice, unsigned int ui, size_t N), (dstDevice, ui, N)) \
	X(cuMemsetD2D8_v2, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height), (dstDevice, dstPitch, uc, Width, Height)) \
	X(cuMemsetD2D16_v2, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height), (dstDevice, dstPitch, us, Width, Height)) \
	X(cuMemsetD2D32_v2, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height), (dstDevice, dstPitch, ui, Width, Height)) \
	X(cuMemcpy, h_memcpy, 0, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), (dst, src, ByteCount)) \
	X(cuMemcpyAsync, h_memcpy_async, 0, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream), (dst, src, ByteCount, hStream)) \
	X(cuMemcpyPeer, h_memcpy_peer, 0, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount), (dstDevice, dstContext, srcDevice, srcContext, ByteCount)) \
	X(cuMemcpyPeerAsync, h_memcpy_peer_async, 0, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream), (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream)) \
	X(cuMemcpy3DPeer, none, 0, (const CUDA_MEMCPY3D_PEER *pCopy), (pCopy)) \
	X(cuMemcpy3DPeerAsync, none, 0, (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream), (pCopy, hStream)) \
	X(cuMemcpyBatchAsync, none, 0, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx, CUstream hStream), (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream)) \
	X(cuMemcpy3DBatchAsync, none, 0, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx, unsigned long long flags, CUstream hStream), (numOps, opList, failIdx, flags, hStream)) \
	X(cuMemcpyBatchAsync_ptsz, none, CI_F_PTSZ, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx, CUstream hStream), (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream)) \
	X(cuMemcpy3DBatchAsync_ptsz, none, CI_F_PTSZ, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx, unsigned long long flags, CUstream hStream), (numOps, opList, failIdx, flags, hStream)) \
	X(cuMemcpyBatchAsync_v2, none, 0, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream), (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream)) \
	X(cuMemcpy3DBatchAsync_v2, none, 0, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags, CUstream hStream), (numOps, opList, flags, hStream)) \
	X(cuMemsetD8Async, h_memset_async, 0, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream), (dstDevice, uc, N, hStream)) \
	X(cuMemsetD16Async, h_memset_async, 0, (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream), (dstDevice, us, N, hStream)) \
	X(cuMemsetD32Async, h_memset_async, 0, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream), (dstDevice, ui, N, hStream)) \
	X(cuMemsetD2D8Async, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, uc, Width, Height, hStream)) \
	X(cuMemsetD2D16Async, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, us, Width, Height, hStream)) \
	X(cuMemsetD2D32Async, none, 0, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream), (dstDevice, dstPitch, ui, Width, Height, hStream)) \
	X(cuStreamGetPriority, none, 0, (CUstream hStream, int *priority), (hStream, priority)) \
	X(cuStreamGetId, none, 0, (CUstream hStream, unsigned long long *streamId), (hStream, streamId)) \
	X(cuStreamGetFlags, none, 0, (CUstream hStream, unsigned int *flags), (hStream, flags)) \
	X(cuStreamGetDevice, none, 0, (CUstream hStream, CUdevice *device), (hStream, device)) \
	X(cuStreamGetCtx, none, 0, (CUstream hStream, CUcontext *pctx), (hStream, pctx)) \
	X(cuStreamGetCtx_v2, none, 0, (CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx), (hStream, pCtx, pGreenCtx)) \
	X(cuStreamWaitEvent, h_stream_wait_event, 0, (CUstream hStream, CUevent hEvent, unsigned int Flags), (hStream, hEvent, Flags)) \
	X(cuStreamAddCallback, h_stream_add_callback, 0, (CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags), (hStream, callback, userData, flags)) \
	X(cuStreamAttachMemAsync, none, 0, (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags), (hStream, dptr, length, flags)) \
	X(cuStreamQuery, h_stream_query, CI_F_QUERY, (CUstream hStream), (hStream)) \
	X(cuStreamSynchronize, h_stream_sync, 0, (CUstream hStream), (hStream)) \
	X(cuEventRecord, h_event_record, 0, (CUevent hEvent, CUstream hStream), (hEvent, hStream)) \
	X(cuEventRecordWithFlags, h_event_record_flags, 0, (CUevent hEvent, CUstream hStream, unsigned int flags), (hEvent, hStream, flags)) \
	X(cuLaunchKernel, h_launch_kernel, 0, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra)) \
	X(cuLaunchKernelEx, h_launch_kernel_ex, 0, (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra), (config, f, kernelParams, extra)) \
	X(cuLaunchHostFunc, h_launch_host_func, 0, (CUstream hStream, CUhostFn fn, void *userData), (hStream, fn, userData)) \
	X(cuGraphicsMapResources, none, 0, (unsigned int count, CUgraphicsResource *resources, CUstream hStream), (count, resources, hStream)) \
	X(cuGraphicsUnmapResources, none, 0, (unsigned int count, CUgraphicsResource *resources, CUstream hStream), (count, resources, hStream)) \
	X(cuStreamWriteValue32, none, 0, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue32, none, 0, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWriteValue64, none, 0, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue64, none, 0, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamBatchMemOp, none, 0, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
	X(cuStreamWriteValue32_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue32_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWriteValue64_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue64_ptsz, none, CI_F_PTSZ, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamBatchMemOp_ptsz, none, CI_F_PTSZ, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
	X(cuStreamWriteValue32_v2, none, 0, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue32_v2, none, 0, (CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWriteValue64_v2, none, 0, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamWaitValue64_v2, none, 0, (CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags), (stream, addr, value, flags)) \
	X(cuStreamBatchMemOp_v2, none, 0, (CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags), (stream, count, paramArray, flags)) \
	X(cuMemPrefetchAsync, none, 0, (CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream), (devPtr, count, dstDevice, hStream)) \
	X(cuMemPrefetchAsync_ptsz, none, CI_F_PTSZ, (CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream), (devPtr, count, dstDevice, hStream)) \
	X(cuMemPrefetchAsync_v2, none, 0, (CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream), (devPtr, count, location, flags, hStream)) \
	X(cuMemAdvise, none, 0, (CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device), (devPtr, count, advice, device)) \
	X(cuMemPrefetchBatchAsync, none, 0, (CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream)) \
	X(cuMemDiscardBatchAsync, none, 0, (CUdeviceptr *dptrs, size_t *sizes, size_t count, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, flags, hStream)) \
	X(cuMemDiscardAndPrefetchBatchAsync, none, 0, (CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream), (dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream)) \
	X(cuLaunchCooperativeKernel, h_launch_cooperative, 0, (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams), (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams)) \
	X(cuSignalExternalSemaphoresAsync, none, 0, (const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
	X(cuWaitExternalSemaphoresAsync, none, 0, (const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream), (extSemArray, paramsArray, numExtSems, stream)) \
	X(cuStreamBeginCapture, h_capture_begin_v1, 0, (CUstream hStream), (hStream)) \
	X(cuStreamBeginCapture_ptsz, h_capture_begin_v1, CI_F_PTSZ, (CUstream hStream), (hStream)) \
	X(cuStreamBeginCapture_v2, h_capture_begin, 0, (CUstream hStream, CUstreamCaptureMode mode), (hStream, mode)) \
	X(cuStreamBeginCaptureToGraph, h_capture_begin_to_graph, 0, (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode), (hStream, hGraph, dependencies, dependencyData, numDependencies, mode)) \
	X(cuStreamEndCapture, h_capture_end, 0, (CUstream hStream, CUgraph *phGraph), (hStream, phGraph)) \
	X(cuStreamIsCapturing, none, 0, (CUstream hStream, CUstreamCaptureStatus *captureStatus), (hStream, captureStatus)) \
	X(cuStreamGetCaptureInfo, none, 0, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out), (hStream, captureStatus_out, id_out)) \
	X(cuStreamGetCaptureInfo_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out), (hStream, captureStatus_out, id_out)) \
	X(cuStreamGetCaptureInfo_v2, none, 0, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, size_t *numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out)) \
	X(cuStreamGetCaptureInfo_v2_ptsz, none, CI_F_PTSZ, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, size_t *numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, numDependencies_out)) \
	X(cuStreamGetCaptureInfo_v3, none, 0, (CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out), (hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out)) \
	X(cuGraphAddKernelNode, h_graph_add_kernel_v1, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuGraphKernelNodeGetParams, none, 0, (CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams), (hNode, nodeParams)) \
	X(cuGraphKernelNodeSetParams, h_graph_kernel_set_v1, 0, (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams), (hNode, nodeParams)) \
	X(cuGraphExecKernelNodeSetParams, h_graph_exec_kernel_set_v1, 0, (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams), (hGraphExec, hNode, nodeParams)) \
	X(cuGraphInstantiateWithParams, h_graph_instantiate_params, 0, (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams), (phGraphExec, hGraph, instantiateParams)) \
	X(cuGraphExecUpdate, h_graph_exec_update_v1, 0, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out, CUgraphExecUpdateResult *updateResult_out), (hGraphExec, hGraph, hErrorNode_out, updateResult_out)) \
	X(cuGraphUpload, none, 0, (CUgraphExec hGraph, CUstream hStream), (hGraph, hStream)) \
	X(cuGraphLaunch, h_graph_launch, 0, (CUgraphExec hGraph, CUstream hStream), (hGraph, hStream)) \
	X(cuGraphGetEdges, none, 0, (CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges), (hGraph, from, to, numEdges)) \
	X(cuGraphNodeGetDependencies, none, 0, (CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies), (hNode, dependencies, numDependencies)) \
	X(cuGraphNodeGetDependentNodes, none, 0, (CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes), (hNode, dependentNodes, numDependentNodes)) \
	X(cuGraphAddDependencies, h_graph_deps_add, 0, (CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies), (hGraph, from, to, numDependencies)) \
	X(cuGraphRemoveDependencies, h_graph_deps_remove, 0, (CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies), (hGraph, from, to, numDependencies)) \
	X(cuGraphAddNode, h_graph_add_node, 0, (CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUgraphNodeParams *nodeParams), (phGraphNode, hGraph, dependencies, numDependencies, nodeParams)) \
	X(cuStreamCopyAttributes, none, 0, (CUstream dstStream, CUstream srcStream), (dstStream, srcStream)) \
	X(cuStreamGetAttribute, none, 0, (CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value), (hStream, attr, value)) \
	X(cuStreamSetAttribute, none, 0, (CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *param), (hStream, attr, param)) \
	X(cuIpcOpenMemHandle, none, 0, (CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags), (pdptr, handle, Flags)) \
	X(cuGraphInstantiate, h_graph_instantiate_v1, 0, (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
	X(cuGraphInstantiate_v2, h_graph_instantiate_v1, 0, (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
	X(cuMemMapArrayAsync, none, 0, (CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream), (mapInfoList, count, hStream)) \
	X(cuMemFreeAsync, h_mem_free_async, 0, (CUdeviceptr dptr, CUstream hStream), (dptr, hStream)) \
	X(cuMemAllocAsync, h_mem_alloc_async, 0, (CUdeviceptr *dptr, size_t bytesize, CUstream hStream), (dptr, bytesize, hStream)) \
	X(cuMemAllocFromPoolAsync, h_mem_alloc_pool, 0, (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream), (dptr, bytesize, pool, hStream)) \
	X(cuStreamUpdateCaptureDependencies, h_capture_deps, 0, (CUstream hStream, CUgraphNode *dependencies, size_t numDependencies, unsigned int flags), (hStream, dependencies, numDependencies, flags)) \
	X(cuStreamUpdateCaptureDependencies_ptsz, h_capture_deps, CI_F_PTSZ, (CUstream hStream, CUgraphNode *dependencies, size_t numDependencies, unsigned int flags), (hStream, dependencies, numDependencies, flags)) \
	X(cuStreamUpdateCaptureDependencies_v2, h_capture_deps, 0, (CUstream hStream, CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags), (hStream, dependencies, dependencyData, numDependencies, flags)) \
	X(cuMemBatchDecompressAsync, none, 0, (CUmemDecompressParams *paramsArray, size_t count, unsigned int flags, size_t *errorIndex, CUstream stream), (paramsArray, count, flags, errorIndex, stream)) \
	X(cuGetProcAddress, manual, CI_F_MANUAL, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags), (symbol, pfn, cudaVersion, flags)) \
	X(cuCheckpointProcessGetRestoreThreadId, none, 0, (int pid, int *tid), (pid, tid)) \
	X(cuCheckpointProcessGetState, none, 0, (int pid, CUprocessState *state), (pid, state)) \
	X(cuCheckpointProcessLock, none, 0, (int pid, CUcheckpointLockArgs *args), (pid, args)) \
	X(cuCheckpointProcessCheckpoint, none, 0, (int pid, CUcheckpointCheckpointArgs *args), (pid, args)) \
	X(cuCheckpointProcessRestore, none, 0, (int pid, CUcheckpointRestoreArgs *args), (pid, args)) \
	X(cuCheckpointProcessUnlock, none, 0, (int pid, CUcheckpointUnlockArgs *args), (pid, args)) \
	/* end of table */
/* clang-format on */

#endif
