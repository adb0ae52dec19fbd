/*
 * The driver table shared by the test engines, and the cudart-style bootstrap that fills it
 * through dlopen + dlsym("cuGetProcAddress_v2") + cuGetProcAddress (doors b and c of the
 * recorder; see drv.h and docs/RECORDER.md, "How it sees every driver call").
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "drv.h"
#include "engine.h"

struct drv drv;

void drv_fill_direct_legacy(struct drv *d);
void drv_fill_direct_ptsz(struct drv *d);

void drv_open_direct(int ptsz)
{
	if (ptsz)
		drv_fill_direct_ptsz(&drv);
	else
		drv_fill_direct_legacy(&drv);
	drv.door = ptsz ? "direct-ptsz" : "direct";
	drv.ptsz = ptsz;
	drv.version = CUDA_VERSION;
}

/* Name of the exported symbol at `p` (the variant the driver handed out), for --verbose. */
static const char *symbol_at(const void *p)
{
	Dl_info info;
	if (p && dladdr(p, &info) && info.dli_sname && info.dli_saddr == p)
		return info.dli_sname;
	return "?";
}

static int resolve(PFN_cuGetProcAddress_v12000 gpa, const char *symbol, void **pfn, int version,
		   cuuint64_t flags, int verbose)
{
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
	CUresult r = gpa(symbol, pfn, version, flags, &status);
	if (r != CUDA_SUCCESS || !*pfn) {
		fprintf(stderr,
			"%s: bootstrap: cuGetProcAddress(\"%s\", version %d, flags %llu) returned "
			"result %d, status %d and no entry point; the driver is too old or incomplete "
			"for this engine (run without --bootstrap to use the exported symbols)\n",
			engine_prog, symbol, version, (unsigned long long)flags, (int)r, (int)status);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "%s: bootstrap: %s -> %s\n", engine_prog, symbol, symbol_at(*pfn));
	return 0;
}

int drv_open_bootstrap(int ptsz, int verbose)
{
	memset(&drv, 0, sizeof drv);
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "%s: bootstrap: cannot load the CUDA driver: %s\n", engine_prog,
			dlerror());
		return -1;
	}
	PFN_cuGetProcAddress_v12000 gpa =
		(PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
	if (!gpa) {
		fprintf(stderr,
			"%s: bootstrap: libcuda.so.1 exports no cuGetProcAddress_v2 (a driver older "
			"than CUDA 12.0); run without --bootstrap\n",
			engine_prog);
		return -1;
	}
	cuuint64_t flags = ptsz ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
				: CU_GET_PROC_ADDRESS_DEFAULT;

	/* The driver's version bounds what may be asked for (a larger cudaVersion is an error),
	 * so it comes first, at the version that introduced cuDriverGetVersion. */
	if (resolve(gpa, "cuDriverGetVersion", (void **)&drv.DriverGetVersion, 2020, flags,
		    verbose))
		return -1;
	int driver_version = 0;
	if (drv.DriverGetVersion(&driver_version) != CUDA_SUCCESS || driver_version <= 0) {
		fprintf(stderr, "%s: bootstrap: cuDriverGetVersion failed\n", engine_prog);
		return -1;
	}
	int version = driver_version < CUDA_VERSION ? driver_version : CUDA_VERSION;

	/* Like cudart, look cuGetProcAddress itself up through cuGetProcAddress and use the
	 * answer from now on (an interposer hands back its own hook here). */
	void *self = NULL;
	if (resolve(gpa, "cuGetProcAddress", &self, version, flags, verbose))
		return -1;
	gpa = (PFN_cuGetProcAddress_v12000)self;

#define ENGINE_DRV_RESOLVE(field, sym, pfn)                                                     \
	if (resolve(gpa, #sym, (void **)&drv.field, version, flags, verbose))                   \
		return -1;
	ENGINE_DRIVER_FUNCS(ENGINE_DRV_RESOLVE)
#undef ENGINE_DRV_RESOLVE

	void *sync = NULL;
	if (resolve(gpa, "cuCtxSynchronize", &sync, version, flags, verbose))
		return -1;
	if (version >= 13000)
		drv.CtxSynchronize_v2 = (PFN_cuCtxSynchronize_v13000)sync;
	else
		drv.CtxSynchronize = (PFN_cuCtxSynchronize_v2000)sync;

	drv.door = ptsz ? "bootstrap-ptsz" : "bootstrap";
	drv.ptsz = ptsz;
	drv.version = version;
	return 0;
}

CUresult drv_ctx_synchronize(CUcontext ctx)
{
	if (drv.CtxSynchronize_v2)
		return drv.CtxSynchronize_v2(ctx);
	return drv.CtxSynchronize();
}
