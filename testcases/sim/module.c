/* Modules, libraries, kernels and functions.
 *
 * Images are PTX text (what `nvcc -ptx` writes), a cubin (cubin.c: its entries and their
 * parameters, no SASS is read), or a fatbin that carries uncompressed PTX or an uncompressed
 * sm_90 cubin (`nvcc -fatbin -Xfatbin -compress=false`); compressed fatbins are refused with
 * CUDA_ERROR_INVALID_IMAGE.  A module belongs to a
 * context; a library (cuLibraryLoadData) is context-free and gets a module in the context where
 * it is first used (cuLibraryGetModule, cuKernelGetFunction).  A CUkernel cast to CUfunction is
 * accepted wherever a function is (CUDA 12 semantics).
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- images ----------------------------------------------------------------------------------- */

#define SIM_FATBIN_MAGIC 0xBA55ED50u
#define SIM_FATBIN_WRAPPER_MAGIC 0x466243B1

/* Does the image start with these bytes?  Compared one by one so that a short, NUL-terminated
 * text image is never read past its end (no magic contains a NUL byte). */
static int sim_starts_with(const unsigned char *b, uint32_t magic)
{
	for (int i = 0; i < 4; i++)
		if (b[i] != (unsigned char)(magic >> (8 * i)))
			return 0;
	return 1;
}

/* Find an uncompressed cubin for this device, or an uncompressed PTX member, in a fatbin.  The
 * container layout (16-byte header, then members with kind/flags/size headers) is the one nvcc
 * writes; only what is needed is read. */
static CUresult sim_fatbin_image(const unsigned char *fb, struct sim_image **ret)
{
	uint16_t hdr = (uint16_t)(fb[6] | fb[7] << 8);
	uint64_t total = sim_le64(fb + 8);
	if (hdr < 16 || total > ((uint64_t)1 << 31))
		return CUDA_ERROR_INVALID_IMAGE;
	const unsigned char *p = fb + hdr, *end = fb + hdr + total;
	while (p + 0x40 <= end) {
		uint16_t kind = (uint16_t)(p[0] | p[1] << 8);
		uint32_t mhdr = sim_le32(p + 4);
		uint64_t size = sim_le64(p + 8);
		uint32_t flags = sim_le32(p + 0x28);
		if (mhdr < 0x40 || size > (uint64_t)(end - p) - mhdr)
			break;
		if (kind == 2 && !(flags & 0xa000) && size >= 64 && sim_starts_with(p + mhdr, 0x464c457fu)) {
			/* An uncompressed cubin for this device; others are skipped. */
			CUresult r = sim_cubin_parse(p + mhdr, size, ret);
			if (r != CUDA_ERROR_NO_BINARY_FOR_GPU)
				return r;
		}
		if (kind == 1 && !(flags & 0xa000)) { /* PTX, neither compression flag */
			char *text = malloc(size + 1);
			if (!text)
				return CUDA_ERROR_OUT_OF_MEMORY;
			memcpy(text, p + mhdr, size);
			text[size] = 0;
			CUresult r = sim_ptx_parse(text, ret);
			free(text);
			return r;
		}
		p += mhdr + size;
	}
	return CUDA_ERROR_INVALID_IMAGE;
}

static CUresult sim_image_load(const void *image, struct sim_image **ret)
{
	const unsigned char *b = image;
	if (!image)
		return CUDA_ERROR_INVALID_VALUE;
	if (sim_starts_with(b, SIM_FATBIN_WRAPPER_MAGIC)) {
		const unsigned char *data = *(const unsigned char *const *)(b + 8);
		if (!data || sim_le32(data) != SIM_FATBIN_MAGIC)
			return CUDA_ERROR_INVALID_IMAGE;
		return sim_fatbin_image(data, ret);
	}
	if (sim_starts_with(b, SIM_FATBIN_MAGIC))
		return sim_fatbin_image(b, ret);
	if (sim_starts_with(b, 0x464c457fu)) /* "\x7fELF": a cubin */
		return sim_cubin_parse(image, UINT64_MAX, ret); /* no length, as the driver gets none */
	return sim_ptx_parse(image, ret);
}

static CUresult sim_read_file(const char *path, char **ret)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return CUDA_ERROR_FILE_NOT_FOUND;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *n = realloc(buf, cap);
			if (!n) {
				free(buf);
				fclose(f);
				return CUDA_ERROR_OUT_OF_MEMORY;
			}
			buf = n;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = 0;
	*ret = buf;
	return CUDA_SUCCESS;
}

/* ---- modules -------------------------------------------------------------------------------------- */

/* Every live module, so a dying context can unload its own (sim.lock). */
static struct sim_module **sim_modules;
static size_t sim_nmodules, sim_cap_modules;

static void sim_module_free(struct sim_module *m)
{
	for (unsigned i = 0; m->funcs && m->img && i < m->img->nentries; i++)
		sim_obj_free(m->funcs[i], SIM_KIND_FUNC);
	free(m->funcs);
	free(m->global_ptrs);
	sim_image_destroy(m->img);
	sim_obj_free(m, SIM_KIND_MODULE);
}

/* Wrap a parsed image into a module of `ctx`; takes ownership of the image. */
static CUresult sim_module_create(struct sim_ctx *ctx, struct sim_image *img,
				  struct sim_library *lib, struct sim_module **ret)
{
	struct sim_module *m = sim_obj_new(SIM_KIND_MODULE, sizeof(*m));
	if (!m) {
		sim_image_destroy(img);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	m->ctx = ctx;
	m->img = img;
	m->library = lib;
	m->funcs = calloc(img->nentries ? img->nentries : 1, sizeof(*m->funcs));
	m->global_ptrs = calloc(img->nglobals ? img->nglobals : 1, sizeof(*m->global_ptrs));
	if (!m->funcs || !m->global_ptrs) {
		m->img = NULL;
		sim_module_free(m);
		sim_image_destroy(img);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (unsigned i = 0; i < img->nentries; i++) {
		struct sim_func *f = m->funcs[i] = sim_obj_new(SIM_KIND_FUNC, sizeof(*f));
		if (!f) {
			sim_module_free(m);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		f->module = m;
		f->entry = &img->entries[i];
		img->entries[i].watch = sim_watch_find(img->entries[i].name);
	}
	for (unsigned i = 0; i < img->nglobals; i++) {
		CUresult r = sim_mem_alloc(ctx, img->globals[i].size, SIM_RANGE_GLOBAL, &m->global_ptrs[i]);
		if (r) {
			while (i--)
				sim_mem_release(ctx->dev, m->global_ptrs[i]);
			sim_module_free(m);
			return r;
		}
	}
	pthread_mutex_lock(&sim.lock);
	if (sim_nmodules == sim_cap_modules) {
		size_t ncap = sim_cap_modules ? sim_cap_modules * 2 : 16;
		struct sim_module **n = realloc(sim_modules, ncap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&sim.lock);
			for (unsigned i = 0; i < img->nglobals; i++)
				sim_mem_release(ctx->dev, m->global_ptrs[i]);
			sim_module_free(m);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		sim_modules = n;
		sim_cap_modules = ncap;
	}
	sim_modules[sim_nmodules++] = m;
	pthread_mutex_unlock(&sim.lock);
	*ret = m;
	return CUDA_SUCCESS;
}

/* Unload (sim.lock held). */
static void sim_module_unload_locked(struct sim_module *m)
{
	for (size_t i = 0; i < sim_nmodules; i++)
		if (sim_modules[i] == m) {
			sim_modules[i] = sim_modules[--sim_nmodules];
			break;
		}
	if (m->library && m->library->module == m)
		m->library->module = NULL;
	for (unsigned i = 0; i < m->img->nglobals; i++)
			sim_mem_release(m->ctx->dev, m->global_ptrs[i]);
	sim_module_free(m);
}

void sim_modules_ctx_gone(struct sim_ctx *ctx)
{
	for (size_t i = sim_nmodules; i-- > 0;)
		if (sim_modules[i]->ctx == ctx)
			sim_module_unload_locked(sim_modules[i]);
}

static CUresult sim_module_load_image(CUmodule *module, const void *image)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r || (r = sim_ctx_sticky(ctx)))
		return r;
	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_image *img;
	if ((r = sim_image_load(image, &img)))
		return r;
	struct sim_module *m;
	if ((r = sim_module_create(ctx, img, NULL, &m)))
		return r;
	*module = (CUmodule)m;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	return sim_module_load_image(module, image);
}

SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
				       CUjit_option *options, void **optionValues)
{
	if (numOptions && (!options || !optionValues))
		return CUDA_ERROR_INVALID_VALUE;
	return sim_module_load_image(module, image); /* JIT options do not matter without a JIT */
}

SIM_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	return sim_module_load_image(module, fatCubin);
}

SIM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r || (r = sim_ctx_sticky(ctx)))
		return r;
	if (!module || !fname)
		return CUDA_ERROR_INVALID_VALUE;
	char *text;
	if ((r = sim_read_file(fname, &text)))
		return r;
	r = sim_module_load_image(module, text);
	free(text);
	return r;
}

static struct sim_module *sim_module_get(CUmodule h)
{
	return sim_obj_is(h, SIM_KIND_MODULE) ? (struct sim_module *)h : NULL;
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule h)
{
	SIM_REQUIRE_INIT();
	struct sim_module *m = sim_module_get(h);
	if (!m || m->library)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	if (sim_module_get(h))
		sim_module_unload_locked(m);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

static long sim_entry_index(const struct sim_image *img, const char *name)
{
	for (unsigned i = 0; i < img->nentries; i++)
		if (strcmp(img->entries[i].name, name) == 0)
			return i;
	return -1;
}

/* Lookups shared by modules (functions) and libraries (kernels): `objs` holds one handle per
 * entry of `img`. */
static CUresult sim_image_find(const struct sim_image *img, void *const *objs, const char *name, void **ret)
{
	if (!ret || !name)
		return CUDA_ERROR_INVALID_VALUE;
	long i = sim_entry_index(img, name);
	if (i < 0)
		return CUDA_ERROR_NOT_FOUND;
	*ret = objs[i];
	return CUDA_SUCCESS;
}

static CUresult sim_image_count(const struct sim_image *img, unsigned *count)
{
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = img->nentries;
	return CUDA_SUCCESS;
}

static CUresult sim_image_enumerate(const struct sim_image *img, void *const *objs, void **out, unsigned max)
{
	if (!out && max)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < max && i < img->nentries; i++)
		out[i] = objs[i];
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule h, const char *name)
{
	SIM_REQUIRE_INIT();
	struct sim_module *m = sim_module_get(h);
	return m ? sim_image_find(m->img, (void *const *)m->funcs, name, (void **)hfunc)
		 : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule h)
{
	SIM_REQUIRE_INIT();
	struct sim_module *m = sim_module_get(h);
	return m ? sim_image_count(m->img, count) : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule h)
{
	SIM_REQUIRE_INIT();
	struct sim_module *m = sim_module_get(h);
	return m ? sim_image_enumerate(m->img, (void *const *)m->funcs, (void **)functions, numFunctions)
		 : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule h, const char *name)
{
	SIM_REQUIRE_INIT();
	struct sim_module *m = sim_module_get(h);
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < m->img->nglobals; i++)
		if (strcmp(m->img->globals[i].name, name) == 0) {
			if (dptr)
				*dptr = m->global_ptrs[i];
			if (bytes)
				*bytes = m->img->globals[i].size;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

/* ---- libraries and kernels ------------------------------------------------------------------------ */

static struct sim_library *sim_library_get(CUlibrary h)
{
	return sim_obj_is(h, SIM_KIND_LIBRARY) ? (struct sim_library *)h : NULL;
}

static struct sim_kernel *sim_kernel_get(CUkernel h)
{
	return sim_obj_is(h, SIM_KIND_KERNEL) ? (struct sim_kernel *)h : NULL;
}

static CUresult sim_library_create(CUlibrary *library, const void *code, unsigned njit,
				   CUjit_option *jit, void **jitvals, unsigned nlib,
				   CUlibraryOption *libopt, void **libvals)
{
	SIM_REQUIRE_INIT();
	if (!library || !code || (njit && (!jit || !jitvals)) || (nlib && (!libopt || !libvals)))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_image *img;
	CUresult r = sim_image_load(code, &img);
	if (r)
		return r;
	struct sim_library *lib = sim_obj_new(SIM_KIND_LIBRARY, sizeof(*lib));
	if (!lib || !(lib->kernels = calloc(img->nentries ? img->nentries : 1, sizeof(*lib->kernels)))) {
		sim_obj_free(lib, SIM_KIND_LIBRARY);
		sim_image_destroy(img);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	lib->img = img;
	for (unsigned i = 0; i < img->nentries; i++) {
		struct sim_kernel *k = lib->kernels[i] = sim_obj_new(SIM_KIND_KERNEL, sizeof(*k));
		if (!k) {
			while (i--)
				sim_obj_free(lib->kernels[i], SIM_KIND_KERNEL);
			free(lib->kernels);
			sim_obj_free(lib, SIM_KIND_LIBRARY);
			sim_image_destroy(img);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		k->library = lib;
		k->entry = &img->entries[i];
		k->index = i;
		img->entries[i].watch = sim_watch_find(img->entries[i].name);
	}
	*library = (CUlibrary)lib;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
				      void **jitOptionsValues, unsigned int numJitOptions,
				      CUlibraryOption *libraryOptions, void **libraryOptionValues,
				      unsigned int numLibraryOptions)
{
	return sim_library_create(library, code, numJitOptions, jitOptions, jitOptionsValues,
				  numLibraryOptions, libraryOptions, libraryOptionValues);
}

SIM_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
					  CUjit_option *jitOptions, void **jitOptionsValues,
					  unsigned int numJitOptions, CUlibraryOption *libraryOptions,
					  void **libraryOptionValues, unsigned int numLibraryOptions)
{
	SIM_REQUIRE_INIT();
	if (!fileName || !library)
		return CUDA_ERROR_INVALID_VALUE;
	char *text;
	CUresult r = sim_read_file(fileName, &text);
	if (r)
		return r;
	r = sim_library_create(library, text, numJitOptions, jitOptions, jitOptionsValues,
			       numLibraryOptions, libraryOptions, libraryOptionValues);
	free(text);
	return r;
}

SIM_EXPORT CUresult cuLibraryUnload(CUlibrary h)
{
	SIM_REQUIRE_INIT();
	struct sim_library *lib = sim_library_get(h);
	if (!lib)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	if (lib->module)
		sim_module_unload_locked(lib->module);
	for (unsigned i = 0; i < lib->img->nentries; i++)
		sim_obj_free(lib->kernels[i], SIM_KIND_KERNEL);
	pthread_mutex_unlock(&sim.lock);
	free(lib->kernels);
	sim_image_destroy(lib->img);
	sim_obj_free(lib, SIM_KIND_LIBRARY);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary h, const char *name)
{
	SIM_REQUIRE_INIT();
	struct sim_library *lib = sim_library_get(h);
	return lib ? sim_image_find(lib->img, (void *const *)lib->kernels, name, (void **)pKernel)
		   : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary h)
{
	SIM_REQUIRE_INIT();
	struct sim_library *lib = sim_library_get(h);
	return lib ? sim_image_count(lib->img, count) : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary h)
{
	SIM_REQUIRE_INIT();
	struct sim_library *lib = sim_library_get(h);
	return lib ? sim_image_enumerate(lib->img, (void *const *)lib->kernels, (void **)kernels, numKernels)
		   : CUDA_ERROR_INVALID_HANDLE;
}

/* The library's module in `ctx`, made on first use.  A library used from a second context gets
 * its module moved there (the simulator keeps one module per library). */
struct sim_module *sim_module_of_library(struct sim_library *lib, struct sim_ctx *ctx, CUresult *err)
{
	pthread_mutex_lock(&sim.lock);
	struct sim_module *m = lib->module;
	if (m && m->ctx != ctx) {
		sim_module_unload_locked(m);
		m = NULL;
	}
	pthread_mutex_unlock(&sim.lock);
	if (m)
		return m;
	/* A module of its own over a private copy of the image, so the kernel and function views
	 * of an entry stay independent. */
	struct sim_image *img = calloc(1, sizeof(*img));
	if (!img) {
		*err = CUDA_ERROR_OUT_OF_MEMORY;
		return NULL;
	}
	*img = *lib->img;
	img->entries = calloc(img->nentries ? img->nentries : 1, sizeof(*img->entries));
	img->globals = calloc(img->nglobals ? img->nglobals : 1, sizeof(*img->globals));
	int oom = !img->entries || !img->globals;
	for (unsigned i = 0; !oom && i < img->nentries; i++) {
		struct sim_entry *src = &lib->img->entries[i], *dst = &img->entries[i];
		*dst = *src;
		dst->name = strdup(src->name);
		dst->params = malloc((src->nparams ? src->nparams : 1) * sizeof(*dst->params));
		if (!dst->name || !dst->params)
			oom = 1;
		else if (src->nparams)
			memcpy(dst->params, src->params, src->nparams * sizeof(*dst->params));
	}
	for (unsigned i = 0; !oom && i < img->nglobals; i++) {
		img->globals[i] = lib->img->globals[i];
		if (!(img->globals[i].name = strdup(lib->img->globals[i].name)))
			oom = 1;
	}
	if (oom) {
		sim_image_destroy(img);
		*err = CUDA_ERROR_OUT_OF_MEMORY;
		return NULL;
	}
	if ((*err = sim_module_create(ctx, img, lib, &m)))
		return NULL;
	pthread_mutex_lock(&sim.lock);
	if (lib->module) { /* another thread won the race */
		sim_module_unload_locked(m);
		m = lib->module;
	} else {
		lib->module = m;
	}
	pthread_mutex_unlock(&sim.lock);
	return m;
}

SIM_EXPORT CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary h)
{
	SIM_REQUIRE_INIT();
	struct sim_library *lib = sim_library_get(h);
	if (!lib)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pMod)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	struct sim_module *m = sim_module_of_library(lib, ctx, &r);
	if (!m)
		return r;
	*pMod = (CUmodule)m;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel h)
{
	SIM_REQUIRE_INIT();
	struct sim_kernel *k = sim_kernel_get(h);
	if (!k)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pFunc)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	struct sim_module *m = sim_module_of_library(k->library, ctx, &r);
	if (!m)
		return r;
	*pFunc = (CUfunction)m->funcs[k->index];
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel h)
{
	SIM_REQUIRE_INIT();
	struct sim_kernel *k = sim_kernel_get(h);
	if (!k)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pLib)
		return CUDA_ERROR_INVALID_VALUE;
	*pLib = (CUlibrary)k->library;
	return CUDA_SUCCESS;
}

/* ---- names, parameters, attributes ------------------------------------------------------------ */

/* Function or kernel behind a CUfunction handle (a CUkernel may be cast to CUfunction). */
static struct sim_entry *sim_func_entry(CUfunction h, _Atomic int **max_dyn)
{
	if (sim_obj_is(h, SIM_KIND_FUNC)) {
		struct sim_func *f = (struct sim_func *)h;
		if (max_dyn)
			*max_dyn = &f->max_dynamic_shared;
		return f->entry;
	}
	if (sim_obj_is(h, SIM_KIND_KERNEL)) {
		struct sim_kernel *k = (struct sim_kernel *)h;
		if (max_dyn)
			*max_dyn = &k->max_dynamic_shared;
		return k->entry;
	}
	return NULL;
}

struct sim_entry *sim_launch_entry(CUfunction h, struct sim_module **module, _Atomic int **max_dyn)
{
	*module = sim_obj_is(h, SIM_KIND_FUNC) ? ((struct sim_func *)h)->module : NULL;
	return sim_func_entry(h, max_dyn);
}

SIM_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_NAME_QUERY);
	/* Only a CUfunction: the real driver (580.159.04) answers CUDA_ERROR_INVALID_HANDLE for a
	 * CUkernel cast to CUfunction, which launches accept (cuKernelGetName names those). */
	struct sim_entry *e = sim_obj_is(hfunc, SIM_KIND_FUNC) ? sim_func_entry(hfunc, NULL) : NULL;
	if (!name || !hfunc)
		return CUDA_ERROR_INVALID_VALUE;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = e->name;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuKernelGetName(const char **name, CUkernel hfunc)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_NAME_QUERY);
	struct sim_kernel *k = sim_kernel_get(hfunc);
	if (!name || !hfunc)
		return CUDA_ERROR_INVALID_VALUE;
	if (!k)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = k->entry->name;
	return CUDA_SUCCESS;
}

static CUresult sim_param_info(struct sim_entry *e, size_t index, size_t *offset, size_t *size)
{
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!offset || index >= e->nparams)
		return CUDA_ERROR_INVALID_VALUE;
	*offset = e->params[index].offset;
	if (size)
		*size = e->params[index].size;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
	SIM_REQUIRE_INIT();
	return sim_param_info(sim_func_entry(func, NULL), paramIndex, paramOffset, paramSize);
}

SIM_EXPORT CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
	SIM_REQUIRE_INIT();
	struct sim_kernel *k = sim_kernel_get(kernel);
	return sim_param_info(k ? k->entry : NULL, paramIndex, paramOffset, paramSize);
}

SIM_EXPORT CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
	SIM_REQUIRE_INIT();
	if (!hmod)
		return CUDA_ERROR_INVALID_VALUE;
	if (sim_obj_is(hfunc, SIM_KIND_FUNC)) {
		*hmod = (CUmodule)((struct sim_func *)hfunc)->module;
		return CUDA_SUCCESS;
	}
	if (sim_obj_is(hfunc, SIM_KIND_KERNEL))
		return cuLibraryGetModule(hmod, (CUlibrary)((struct sim_kernel *)hfunc)->library);
	return CUDA_ERROR_INVALID_HANDLE;
}

#define SIM_SHARED_OPTIN 232448 /* bytes of shared memory per block with opt-in (sm_90) */
#define SIM_SHARED_DEFAULT 49152

int sim_entry_max_dynamic_shared(const struct sim_entry *e, _Atomic int *attr)
{
	int v = atomic_load(attr);
	return v ? v : (int)(SIM_SHARED_DEFAULT - (e->static_shared < SIM_SHARED_DEFAULT ? e->static_shared : SIM_SHARED_DEFAULT));
}

static CUresult sim_func_attribute(int *pi, CUfunction_attribute attrib, struct sim_entry *e, _Atomic int *dyn)
{
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = e->maxntid ? (int)e->maxntid : 1024; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = (int)e->static_shared; break;
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = (int)e->nregs; break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
	case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = sim_entry_max_dynamic_shared(e, dyn); break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = -1; break;
	case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *pi = 0; break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult sim_func_set_attribute(CUfunction_attribute attrib, int value, struct sim_entry *e, _Atomic int *dyn)
{
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		if (value < 0 || (size_t)value + e->static_shared > SIM_SHARED_OPTIN)
			return CUDA_ERROR_INVALID_VALUE;
		atomic_store(dyn, value);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		return value < -1 || value > 100 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

SIM_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
	SIM_REQUIRE_INIT();
	_Atomic int *dyn;
	struct sim_entry *e = sim_func_entry(hfunc, &dyn);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	return sim_func_attribute(pi, attrib, e, dyn);
}

SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
	SIM_REQUIRE_INIT();
	_Atomic int *dyn;
	struct sim_entry *e = sim_func_entry(hfunc, &dyn);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	return sim_func_set_attribute(attrib, value, e, dyn);
}

SIM_EXPORT CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_kernel *k = sim_kernel_get(kernel);
	if (!k)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!sim_device_get(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	return sim_func_attribute(pi, attrib, k->entry, &k->max_dynamic_shared);
}

SIM_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_kernel *k = sim_kernel_get(kernel);
	if (!k)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!sim_device_get(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	return sim_func_set_attribute(attrib, val, k->entry, &k->max_dynamic_shared);
}

SIM_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
	SIM_REQUIRE_INIT();
	if (!sim_func_entry(hfunc, NULL))
		return CUDA_ERROR_INVALID_HANDLE;
	if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS; /* a hint without effect here */
}
