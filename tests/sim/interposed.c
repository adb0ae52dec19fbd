/* Run by procaddr.t with tests/sim/interposer.c preloaded: the driver's cuGetProcAddress must
 * return the driver's own cuLaunchKernel (what dlsym on the driver handle gives), not the
 * preloaded one that global symbol lookup finds.  Prints "ok" or what went wrong. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	if (!drv) {
		printf("cannot dlopen libcuda.so.1: %s\n", dlerror());
		return 1;
	}
	void *own = dlsym(drv, "cuLaunchKernel"), *global = dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
		(CUresult(*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))dlsym(drv, "cuGetProcAddress_v2");
	void *p = NULL;
	if (!gpa || gpa("cuLaunchKernel", &p, 13000, 0, NULL) != CUDA_SUCCESS) {
		printf("cuGetProcAddress_v2 unavailable or failed\n");
		return 1;
	}
	if (own == global)
		printf("the interposer is not preloaded (dlsym gives the same address)\n");
	else if (p != own)
		printf("cuGetProcAddress gave %p, the driver's function is %p (interposer %p)\n", p, own, global);
	else
		printf("ok\n");
	return 0;
}
