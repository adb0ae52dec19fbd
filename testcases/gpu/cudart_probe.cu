/*
 * cudart_probe: a minimal CUDA runtime program for the GPU run (testcases/gpu/run.sh), built
 * three ways by `make gpu-prep` (static cudart, shared cudart, static with
 * --default-stream per-thread) so that libprocaddr-log.so can log how each cudart bootstraps
 * the driver (interpose.md §6.1): initialization, an allocation, a launch, a synchronization,
 * and a driver entry point fetched through cudaGetDriverEntryPointByVersion.
 * Exit status 0 when every call succeeded, 1 otherwise (each failure printed).
 */
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void probe_fill(int *p, int v)
{
	p[threadIdx.x] = v;
}

static int failures;

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		std::fprintf(stderr, "cudart_probe: %s: %s\n", what, cudaGetErrorString(e));
		failures++;
	}
}

int main()
{
	int *d = nullptr, h[32] = {0};
	int runtime = 0, driver = 0;
	check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
	check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
	check(cudaMalloc(&d, sizeof h), "cudaMalloc");
	probe_fill<<<1, 32>>>(d, 7);
	check(cudaGetLastError(), "launch");
	check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	check(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "cudaMemcpy");
	if (h[31] != 7) {
		std::fprintf(stderr, "cudart_probe: the kernel's result did not come back\n");
		failures++;
	}
	void *fn = nullptr;
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	check(cudaGetDriverEntryPointByVersion("cuFuncGetName", &fn, 12030, cudaEnableDefault, &q),
	      "cudaGetDriverEntryPointByVersion");
	check(cudaFree(d), "cudaFree");
	std::printf("cudart_probe: runtime %d, driver %d, cuFuncGetName entry %s, %d failures\n",
		    runtime, driver, fn ? "found" : "missing", failures);
	return failures ? 1 : 0;
}
