/* Kernel parameter layouts read from nvcc-generated PTX (params.t passes the path of the PTX that
 * `nvcc -ptx` wrote from tests/sim/params.cu, and of an uncompressed fatbin of it).
 *
 * The expected offsets are computed here by the C compiler: a kernel's parameter buffer is laid
 * out like a struct of its parameters (each aligned to its own alignment), so offsetof() on a C
 * struct with the same members, in the same order, is an independent statement of what
 * cuFuncGetParamInfo must return.  Also: names (including a C++ mangled one, whose spelling the
 * Itanium ABI fixes), launch bounds, static shared memory, and that every truncation of the PTX
 * is refused with an error rather than crashing or half-loading. */
#include "simtest.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct small { char c; short s; };
struct mixed { int a; double b; char c; };
struct wide { alignas(16) float x; float y, z, w; };    /* __align__(16) float4-like */
struct int4_ { alignas(16) int x; int y, z, w; };        /* CUDA int4 */

struct scalars_args { char a; double b; int *p; short h; float f; unsigned long long u; bool flag; };
struct structs_args { char a; struct small s; struct mixed m; char b; struct wide w; struct int4_ v; const float *in; };
struct mangled_args { int n; const float *x; float *y; float alpha; };

#define FIELD(T, m) {offsetof(T, m), sizeof(((T *)0)->m)}

static void check_layout(CUmodule mod, const char *what, const char *name, const size_t (*want)[2], size_t n)
{
	CUfunction f;
	if (cuModuleGetFunction(&f, mod, name) != CUDA_SUCCESS) {
		ok(0, "%s: %s found", what, name);
		return;
	}
	int all = 1;
	for (size_t i = 0; i < n; i++) {
		size_t off = 0, size = 0;
		if (cuFuncGetParamInfo(f, i, &off, &size) != CUDA_SUCCESS || off != want[i][0] || size != want[i][1]) {
			printf("# %s param %zu: got offset %zu size %zu, want %zu %zu\n", name, i, off, size,
			       want[i][0], want[i][1]);
			all = 0;
		}
	}
	size_t off;
	ok(all && cuFuncGetParamInfo(f, n, &off, NULL) == CUDA_ERROR_INVALID_VALUE,
	   "%s: %s: %zu parameter offsets and sizes match the C layout", what, name, n);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}

/* The kernels of params.cu in MOD (from WHAT: PTX or a cubin): layouts, names, bounds. */
static void check_kernels(CUmodule mod, const char *what)
{
	static const size_t scalars[][2] = {
		FIELD(struct scalars_args, a), FIELD(struct scalars_args, b), FIELD(struct scalars_args, p),
		FIELD(struct scalars_args, h), FIELD(struct scalars_args, f), FIELD(struct scalars_args, u),
		FIELD(struct scalars_args, flag),
	};
	static const size_t structs[][2] = {
		FIELD(struct structs_args, a), FIELD(struct structs_args, s), FIELD(struct structs_args, m),
		FIELD(struct structs_args, b), FIELD(struct structs_args, w), FIELD(struct structs_args, v),
		FIELD(struct structs_args, in),
	};
	static const size_t mangled[][2] = {
		FIELD(struct mangled_args, n), FIELD(struct mangled_args, x), FIELD(struct mangled_args, y),
		FIELD(struct mangled_args, alpha),
	};
	check_layout(mod, what, "layout_scalars", scalars, 7);
	check_layout(mod, what, "layout_structs", structs, 7);
	/* layout_mangled(int, const float *, float *, float) in the Itanium C++ ABI */
	check_layout(mod, what, "_Z14layout_manglediPKfPff", mangled, 4);
	check_layout(mod, what, "layout_empty", NULL, 0);

	unsigned count = 0;
	MUST(cuModuleGetFunctionCount(&count, mod));
	ok(count == 5, "%s: five kernels in params.cu", what);
	CUfunction fns[8];
	int names_ok = count <= 8;
	MUST(cuModuleEnumerateFunctions(fns, count, mod));
	for (unsigned i = 0; names_ok && i < count; i++) {
		const char *name = NULL;
		CUfunction again;
		names_ok = cuFuncGetName(&name, fns[i]) == CUDA_SUCCESS &&
			   cuModuleGetFunction(&again, mod, name) == CUDA_SUCCESS && again == fns[i];
	}
	ok(names_ok, "%s: every enumerated function's name finds it again", what);

	CUfunction bounded;
	MUST(cuModuleGetFunction(&bounded, mod, "layout_bounded"));
	int v = 0;
	MUST(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, bounded));
	ok(v == 256, "%s: __launch_bounds__(256) -> max 256 threads (%d)", what, v);
	MUST(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, bounded));
	ok(v == 64 * sizeof(float), "%s: __shared__ float tile[64] -> 256 bytes of static shared memory (%d)", what, v);
	CUdeviceptr out;
	MUST(cuMemAlloc(&out, 4096));
	void *params[] = {&out};
	ok(cuLaunchKernel(bounded, 1, 1, 1, 257, 1, 1, 0, NULL, params, NULL) == CUDA_ERROR_INVALID_VALUE,
	   "%s: 257 threads are refused", what);
	ok(cuLaunchKernel(bounded, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL) == CUDA_SUCCESS, "%s: 256 launch", what);
	IS_CU(cuCtxSynchronize(), CUDA_SUCCESS);
	MUST(cuMemFree(out));

}

/* A cubin with byte AT set to V: loads, or is refused as damaged, never a crash. */
static int cubin_mutant(const char *cubin, size_t len, size_t at, unsigned char v)
{
	char *m = malloc(len);
	memcpy(m, cubin, len);
	m[at] = (char)v;
	CUmodule mod;
	CUresult r = cuModuleLoadData(&mod, m);
	if (r == CUDA_SUCCESS)
		MUST(cuModuleUnload(mod));
	free(m);
	return r == CUDA_SUCCESS || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_NO_BINARY_FOR_GPU;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: params PTX [FATBIN [CUBIN CUBIN_SM80 [CUBIN_FATBIN]]]\n");
		return 2;
	}
	simtest_setup(NULL);
	CUmodule mod;
	IS_CU(cuModuleLoad(&mod, argv[1]), CUDA_SUCCESS);

	check_kernels(mod, "PTX");

	/* Every prefix of the PTX either loads (if it ends after a complete entry) or is refused
	 * with an error; never a crash. */
	size_t len = 0;
	char *ptx = slurp(argv[1], &len);
	ok(ptx != NULL, "read %s", argv[1]);
	int refused = 0, loaded = 0, bad_code = 0;
	for (size_t cut = 0; ptx && cut < len; cut += 7) {
		char *part = strndup(ptx, cut);
		CUmodule m;
		CUresult r = cuModuleLoadData(&m, part);
		if (r == CUDA_SUCCESS) {
			loaded++;
			MUST(cuModuleUnload(m));
		} else if (r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE) {
			refused++;
		} else {
			bad_code++;
		}
		free(part);
	}
	ok(refused > 0 && loaded > 0 && bad_code == 0,
	   "truncated PTX: %d refused, %d loaded (cut between entries), %d other codes", refused, loaded, bad_code);

	/* The same kernels through a library, and through an uncompressed fatbin. */
	CUlibrary lib;
	IS_CU(cuLibraryLoadFromFile(&lib, argv[1], NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
	CUkernel k;
	size_t off, size;
	IS_CU(cuLibraryGetKernel(&k, lib, "layout_structs"), CUDA_SUCCESS);
	IS_CU(cuKernelGetParamInfo(k, 4, &off, &size), CUDA_SUCCESS);
	ok(off == offsetof(struct structs_args, w) && size == 16, "cuKernelGetParamInfo on a library kernel");
	if (argc > 2) {
		char *fatbin = slurp(argv[2], &len);
		CUmodule fm;
		IS_CU(cuModuleLoadFatBinary(&fm, fatbin), CUDA_SUCCESS);
		CUfunction f;
		IS_CU(cuModuleGetFunction(&f, fm, "layout_scalars"), CUDA_SUCCESS);
		free(fatbin);
	}
	/* A cubin of the same kernels (nvcc -cubin -arch=sm_90): the same layouts, names and bounds
	 * from its ELF attributes; one for sm_80 has no code for this device; damaged ones are
	 * refused, never a crash; a fatbin that carries only the sm_90 cubin loads. */
	if (argc > 4) {
		size_t clen = 0;
		char *cubin = slurp(argv[3], &clen);
		CUmodule cm;
		IS_CU(cubin ? cuModuleLoadData(&cm, cubin) : CUDA_ERROR_FILE_NOT_FOUND, CUDA_SUCCESS);
		if (cubin)
			check_kernels(cm, "cubin");
		char *old = slurp(argv[4], &len);
		IS_CU(old ? cuModuleLoadData(&cm, old) : CUDA_ERROR_FILE_NOT_FOUND, CUDA_ERROR_NO_BINARY_FOR_GPU);
		free(old);
		int survived = 1, tried = 0;
		/* Every byte of the sections' contents (symbols, strings, attributes, code) set to
		 * 0xff, then to 0; the ELF and section headers say how far the image goes (it comes
		 * without a length, as the real driver's does), so they are changed only below. */
		uint64_t shoff = 0;
		if (cubin && clen > 64)
			memcpy(&shoff, cubin + 0x28, 8);
		for (size_t at = 64; cubin && at < clen && at < shoff; at++) {
			survived &= cubin_mutant(cubin, clen, at, 0xff) & cubin_mutant(cubin, clen, at, 0);
			tried++;
		}
		ok(cubin && survived, "damaged cubins (%d bytes changed one at a time): loaded or refused", tried);
		if (cubin && clen > 64) {
			char *far = malloc(clen);
			memcpy(far, cubin, clen);
			uint64_t big = (uint64_t)1 << 40;
			memcpy(far + 0x28, &big, 8);
			IS_CU(cuModuleLoadData(&cm, far), CUDA_ERROR_INVALID_IMAGE);
			free(far);
		}
		free(cubin);
		if (argc > 5) {
			char *fb = slurp(argv[5], &len);
			CUmodule fm;
			IS_CU(fb ? cuModuleLoadFatBinary(&fm, fb) : CUDA_ERROR_FILE_NOT_FOUND, CUDA_SUCCESS);
			CUfunction f;
			IS_CU(fb ? cuModuleGetFunction(&f, fm, "layout_structs") : CUDA_ERROR_FILE_NOT_FOUND, CUDA_SUCCESS);
			free(fb);
		}
	}
	free(ptx);
	return simtest_done();
}
