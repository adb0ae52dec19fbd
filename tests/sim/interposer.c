/* A preloadable shim exporting cuLaunchKernel, as the recorder does: used by procaddr.t to check
 * that the driver's cuGetProcAddress still answers its own function, not the shim's. */
#include <cuda.h>

__attribute__((visibility("default"))) CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
							      unsigned gz, unsigned bx, unsigned by,
							      unsigned bz, unsigned shared, CUstream s,
							      void **params, void **extra)
{
	return CUDA_ERROR_NOT_SUPPORTED;
}
