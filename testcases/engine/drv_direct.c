/*
 * Fills the driver table with the exported cu* symbols (door a).  This file is compiled twice:
 * once as is, and once with -DCUDA_API_PER_THREAD_DEFAULT_STREAM, under which cuda.h maps every
 * stream-taking base name to its _ptsz/_ptds symbol (cuLaunchKernel -> cuLaunchKernel_ptsz,
 * cuMemcpyHtoD -> cuMemcpyHtoD_v2_ptds, ...).  So the legacy and per-thread tables come from the
 * header's own mapping, not from a list of names kept here.
 */
#include "drv.h"

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define DRV_FILL drv_fill_direct_ptsz
#else
#define DRV_FILL drv_fill_direct_legacy
#endif

void DRV_FILL(struct drv *d);

void DRV_FILL(struct drv *d)
{
	/* `sym` expands through cuda.h's macros to the versioned (and per-thread) symbol. */
#define ENGINE_DRV_DIRECT(field, sym, pfn) d->field = sym;
	ENGINE_DRIVER_FUNCS(ENGINE_DRV_DIRECT)
#undef ENGINE_DRV_DIRECT
	/* The plain export keeps the (void) ABI; see struct drv. */
	d->CtxSynchronize = cuCtxSynchronize;
	d->CtxSynchronize_v2 = NULL;
}
