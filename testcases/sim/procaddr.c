/* cuGetProcAddress (the 4-argument CUDA 11.3 ABI) and cuGetProcAddress_v2 (CUDA 12.0, with the
 * symbol status), answered from the table in api.def.
 *
 * `symbol` is a base name ("cuMemAlloc"); the answer is the newest variant introduced at or before
 * `cudaVersion`.  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM prefers a variant's _ptsz/_ptds
 * twin when it exists at that version; LEGACY_STREAM and DEFAULT (this library is not built for
 * per-thread default streams) never return twins.  Pointers are the addresses of the exported
 * definitions themselves (the library links with -Bsymbolic-functions, so a preloaded interposer
 * cannot redirect them), which is what an interposer matching by address expects.
 */
#include "sim.h"

#include <cudaTypedefs.h>
#include <string.h>

/* Compile-time proof that every exported symbol has exactly the ABI of its PFN typedef. */
#define SIM_ABI_CHECK(sym, pfn)                                                                  \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&sym), pfn), #sym " has the wrong ABI");
#define SIM_API(base, sym, ver) SIM_ABI_CHECK(sym, PFN_##base##_v##ver)
#define SIM_API_PT(base, sym, ver, ptsym, ptver, kind)                                            \
	SIM_ABI_CHECK(sym, PFN_##base##_v##ver) SIM_ABI_CHECK(ptsym, PFN_##base##_v##ptver##_##kind)
#define SIM_API_AS(base, sym, ver, pfn) SIM_ABI_CHECK(sym, pfn)
#include "api.def"
#undef SIM_API
#undef SIM_API_PT
#undef SIM_API_AS

struct sim_proc {
	const char *base;
	int version;
	void *fn;
	void *pt_fn; /* per-thread twin, or NULL */
	int pt_version;
};

static const struct sim_proc sim_procs[] = {
#define SIM_API(base, sym, ver) {#base, ver, (void *)&sym, NULL, 0},
#define SIM_API_PT(base, sym, ver, ptsym, ptver, kind) {#base, ver, (void *)&sym, (void *)&ptsym, ptver},
#define SIM_API_AS(base, sym, ver, pfn) {#base, ver, (void *)&sym, NULL, 0},
#include "api.def"
#undef SIM_API
#undef SIM_API_PT
#undef SIM_API_AS
};

static CUresult sim_get_proc(const char *symbol, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	const cuuint64_t known = CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	if (!symbol || !pfn || (flags & ~known) || (flags & known) == known)
		return CUDA_ERROR_INVALID_VALUE;
	if (version > SIM_DRIVER_VERSION || version <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	const struct sim_proc *best = NULL;
	int found = 0;
	for (size_t i = 0; i < sizeof(sim_procs) / sizeof(sim_procs[0]); i++) {
		const struct sim_proc *p = &sim_procs[i];
		if (strcmp(p->base, symbol) != 0)
			continue;
		found = 1;
		if (p->version <= version && (!best || p->version > best->version))
			best = p;
	}
	if (best) {
		int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
		*pfn = per_thread && best->pt_fn && best->pt_version <= version ? best->pt_fn : best->fn;
	}
	if (status)
		*status = best ? CU_GET_PROC_ADDRESS_SUCCESS
			: found ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
				: CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_SUCCESS;
}

/* Both forms work before cuInit: cudart bootstraps through them. */
SIM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	return sim_get_proc(symbol, pfn, cudaVersion, flags, NULL);
}

SIM_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
					CUdriverProcAddressQueryResult *symbolStatus)
{
	return sim_get_proc(symbol, pfn, cudaVersion, flags, symbolStatus);
}
