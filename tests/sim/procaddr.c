/* cuGetProcAddress / cuGetProcAddress_v2 semantics (cuda.h "Driver Entry Point Access").
 *
 * Without arguments: fixed cases whose expected answers come from cuda.h and cudaTypedefs.h
 * (which variant each CUDA version introduced), each compared with dlsym() of the expected
 * versioned symbol in the driver library.  With `--table`: reads "base symbol version [ptsymbol
 * ptversion]" lines (api.def, extracted by procaddr.t) on stdin and checks every row the same
 * way at its own version, one version below, and with each flag. */
#include "simtest.h"

#include <dlfcn.h>
#include <string.h>

static void *drv;

static void *sym(const char *name)
{
	void *p = dlsym(drv, name);
	if (!p)
		printf("# dlsym(%s) failed: %s\n", name, dlerror());
	return p;
}

/* Ask through the _v2 ABI and check pointer and status. */
static void expect(const char *base, int version, cuuint64_t flags, const char *want_sym,
		   CUdriverProcAddressQueryResult want_status)
{
	void *p = (void *)1;
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
	CUresult r = cuGetProcAddress_v2(base, &p, version, flags, &st);
	void *want = want_sym ? sym(want_sym) : NULL;
	ok(r == CUDA_SUCCESS && p == want && st == want_status,
	   "%s @%d flags %llu -> %s (status %d)", base, version, (unsigned long long)flags,
	   want_sym ? want_sym : "NULL", (int)want_status);
	if (r != CUDA_SUCCESS || p != want || st != want_status)
		printf("# got r=%d p=%p st=%d\n", (int)r, p, (int)st);
}

#define LEGACY CU_GET_PROC_ADDRESS_LEGACY_STREAM
#define PTDS CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
#define FOUND CU_GET_PROC_ADDRESS_SUCCESS
#define NOT_FOUND CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
#define TOO_NEW CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT

static int fixed_cases(void)
{
	/* Before cuInit: cudart bootstraps through cuGetProcAddress. */
	expect("cuInit", 13000, 0, "cuInit", FOUND);
	expect("cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2", FOUND);
	expect("cuGetProcAddress", 11080, 0, "cuGetProcAddress", FOUND);
	expect("cuGetProcAddress", 11020, 0, NULL, TOO_NEW);
	MUST(cuInit(0));

	/* Versioned ABIs: the newest variant introduced at or before the requested version. */
	expect("cuMemAlloc", 13000, 0, "cuMemAlloc_v2", FOUND);
	expect("cuMemAlloc", 3020, LEGACY, "cuMemAlloc_v2", FOUND);
	expect("cuCtxCreate", 13000, 0, "cuCtxCreate_v4", FOUND);
	expect("cuCtxCreate", 12050, 0, "cuCtxCreate_v4", FOUND);
	expect("cuCtxCreate", 12040, 0, "cuCtxCreate_v3", FOUND);
	expect("cuCtxCreate", 11040, 0, "cuCtxCreate_v3", FOUND);
	expect("cuCtxCreate", 11030, 0, "cuCtxCreate_v2", FOUND);
	expect("cuCtxSynchronize", 12090, 0, "cuCtxSynchronize", FOUND);
	expect("cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2", FOUND);
	expect("cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2", FOUND);
	expect("cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2", FOUND);
	expect("cuEventElapsedTime", 12060, 0, "cuEventElapsedTime", FOUND);
	expect("cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2", FOUND);
	expect("cuStreamGetCaptureInfo", 12030, 0, "cuStreamGetCaptureInfo_v3", FOUND);
	expect("cuStreamGetCaptureInfo", 12020, 0, "cuStreamGetCaptureInfo_v2", FOUND);
	expect("cuGraphInstantiate", 12000, 0, "cuGraphInstantiateWithFlags", FOUND);
	expect("cuGraphInstantiate", 11080, 0, "cuGraphInstantiate_v2", FOUND);
	expect("cuLibraryLoadData", 12000, 0, "cuLibraryLoadData", FOUND);
	expect("cuLibraryLoadData", 11080, 0, NULL, TOO_NEW);
	expect("cuFuncGetName", 12020, 0, NULL, TOO_NEW);

	/* Per-thread default stream twins: only when asked for, only where they exist. */
	expect("cuLaunchKernel", 13000, 0, "cuLaunchKernel", FOUND);
	expect("cuLaunchKernel", 13000, LEGACY, "cuLaunchKernel", FOUND);
	expect("cuLaunchKernel", 13000, PTDS, "cuLaunchKernel_ptsz", FOUND);
	expect("cuLaunchKernel", 6050, PTDS, "cuLaunchKernel", FOUND); /* _ptsz came with 7.0 */
	expect("cuMemcpyHtoD", 13000, PTDS, "cuMemcpyHtoD_v2_ptds", FOUND);
	expect("cuMemcpyHtoD", 13000, LEGACY, "cuMemcpyHtoD_v2", FOUND);
	expect("cuMemcpyHtoDAsync", 13000, PTDS, "cuMemcpyHtoDAsync_v2_ptsz", FOUND);
	expect("cuStreamWriteValue64", 13000, PTDS, "cuStreamWriteValue64_v2_ptsz", FOUND);
	expect("cuStreamWriteValue64", 13000, 0, "cuStreamWriteValue64_v2", FOUND);
	expect("cuStreamWriteValue64", 11060, PTDS, "cuStreamWriteValue64_ptsz", FOUND);
	expect("cuStreamBeginCapture", 13000, PTDS, "cuStreamBeginCapture_v2_ptsz", FOUND);
	expect("cuStreamSynchronize", 13000, PTDS, "cuStreamSynchronize_ptsz", FOUND);
	expect("cuMemAlloc", 13000, PTDS, "cuMemAlloc_v2", FOUND); /* no twin: legacy */
	expect("cuEventSynchronize", 13000, PTDS, "cuEventSynchronize", FOUND);

	/* Unknown and malformed requests. */
	expect("cuNoSuchEntryPoint", 13000, 0, NULL, NOT_FOUND);
	expect("cuMemAlloc_v2", 13000, 0, NULL, NOT_FOUND); /* versioned names are not base names */
	expect("", 13000, 0, NULL, NOT_FOUND);
	void *p;
	CUdriverProcAddressQueryResult st;
	IS_CU(cuGetProcAddress_v2("cuInit", &p, 13010, 0, &st), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGetProcAddress_v2("cuInit", &p, 0, 0, &st), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGetProcAddress_v2("cuInit", &p, 13000, LEGACY | PTDS, &st), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGetProcAddress_v2("cuInit", &p, 13000, 4, &st), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGetProcAddress_v2(NULL, &p, 13000, 0, &st), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGetProcAddress_v2("cuInit", NULL, 13000, 0, &st), CUDA_ERROR_INVALID_VALUE);
	p = (void *)1;
	IS_CU(cuGetProcAddress_v2("cuInit", &p, 13000, 0, NULL), CUDA_SUCCESS);
	ok(p == sym("cuInit"), "symbolStatus is optional");

	/* The 4-argument ABI is a separate function with the same answers. */
	CUresult (*v1)(const char *, void **, int, cuuint64_t) =
		(CUresult(*)(const char *, void **, int, cuuint64_t))sym("cuGetProcAddress");
	ok(v1 && (void *)v1 != sym("cuGetProcAddress_v2"), "cuGetProcAddress and _v2 are two functions");
	p = NULL;
	IS_CU(v1("cuLaunchKernel", &p, 12000, PTDS), CUDA_SUCCESS);
	ok(p == sym("cuLaunchKernel_ptsz"), "v1 ABI honours flags");
	p = (void *)1;
	IS_CU(v1("cuNoSuchEntryPoint", &p, 12000, 0), CUDA_SUCCESS);
	ok(p == NULL, "v1 ABI: unknown symbol gives NULL");
	IS_CU(v1("cuInit", &p, 13010, 0), CUDA_ERROR_INVALID_VALUE);

	/* What cudart does: ask for cuGetProcAddress itself, then everything through it. */
	CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
	IS_CU(cuGetProcAddress_v2("cuGetProcAddress", (void **)&gpa, 13000, 0, NULL), CUDA_SUCCESS);
	p = NULL;
	ok(gpa && gpa("cuStreamQuery", &p, 13000, PTDS, &st) == CUDA_SUCCESS &&
		   p == sym("cuStreamQuery_ptsz"),
	   "bootstrap through the returned cuGetProcAddress_v2");
	return simtest_done();
}

/* One row of api.def: check it at its version with each flag, and just below its version. */
static void table_row(const char *base, const char *symbol, int version, const char *ptsym, int ptversion)
{
	void *want = sym(symbol), *p = NULL;
	CUdriverProcAddressQueryResult st;
	/* A newer row for the same base wins at 13000; at the row's own version it must be this
	 * one unless another row has the very same version (cuGraphInstantiate has one alias). */
	CUresult r = cuGetProcAddress_v2(base, &p, version, LEGACY, &st);
	ok(r == CUDA_SUCCESS && p == want && st == FOUND, "%s @%d legacy -> %s", base, version, symbol);
	r = cuGetProcAddress_v2(base, &p, version, PTDS, &st);
	void *want_pt = ptsym && ptversion <= version ? sym(ptsym) : want;
	ok(r == CUDA_SUCCESS && p == want_pt && st == FOUND, "%s @%d per-thread -> %s", base, version,
	   ptsym && ptversion <= version ? ptsym : symbol);
	if (ptsym) {
		r = cuGetProcAddress_v2(base, &p, 13000, PTDS, &st);
		ok(r == CUDA_SUCCESS && p != NULL && p != want, "%s @13000 per-thread is not the legacy %s",
		   base, symbol);
	}
	r = cuGetProcAddress_v2(base, &p, version - 10, LEGACY, &st);
	ok(r == CUDA_SUCCESS && p != want, "%s @%d is not yet %s", base, version - 10, symbol);
}

int main(int argc, char **argv)
{
	drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!drv) {
		printf("Bail out! libcuda.so.1 not loaded: %s\n", dlerror());
		return 1;
	}
	if (argc < 2)
		return fixed_cases();
	MUST(cuInit(0));
	char line[512];
	while (fgets(line, sizeof(line), stdin)) {
		char base[128], symbol[128], ptsym[128] = "";
		int version, ptversion = 0;
		int n = sscanf(line, "%127s %127s %d %127s %d", base, symbol, &version, ptsym, &ptversion);
		if (n == 3 || n == 5)
			table_row(base, symbol, version, n == 5 ? ptsym : NULL, ptversion);
		else
			ok(0, "malformed table line: %s", line);
	}
	return simtest_done();
}
