/* Kernel launches: cuLaunchKernel, cuLaunchKernelEx and cuLaunchCooperativeKernel, with their
 * per-thread (_ptsz) twins, and the CUDASIM_FAULT / CUDASIM_HANG decision for each launch.
 *
 * A launch is validated as the driver documents it (handles, context, grid and block limits,
 * shared memory, parameter passing) and then queued on its stream as one op that occupies the
 * stream for CUDASIM_KERNEL_US.  Configuration errors return CUDA_ERROR_INVALID_VALUE and leave
 * the context healthy.  The fault/hang decision counts launches of each watched kernel name
 * process-wide, at launch time, so "the N-th launch" is the N-th launch call; the fault itself
 * happens when the stream reaches that launch.  Nothing here takes a lock unless the kernel is
 * watched (an atomic counter) or the stream is captured.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


/* Count one more launch (copy, set) of a watched name and say whether it faults or hangs. */
enum sim_launch_fate sim_watch_fate(struct sim_watch *w, unsigned long *nth, const struct sim_fault **fault)
{
	*nth = 0;
	if (!w)
		return SIM_LAUNCH_OK;
	unsigned long n = atomic_fetch_add_explicit(&w->launches, 1, memory_order_relaxed) + 1;
	*nth = n;
	for (unsigned i = 0; i < w->nfault; i++)
		if (w->fault[i].at == n) {
			*fault = &w->fault[i];
			return SIM_LAUNCH_FAULT;
		}
	for (unsigned i = 0; i < w->nhang; i++)
		if (w->hang_at[i] == n)
			return SIM_LAUNCH_HANG;
	return SIM_LAUNCH_OK;
}

struct sim_launch {
	unsigned grid[3], block[3];
	unsigned shared;
	int cooperative;
	unsigned cluster[3];
};

#define SIM_SMS 132

static CUresult sim_launch_check(const struct sim_launch *l, struct sim_entry *e, _Atomic int *dyn)
{
	static const unsigned grid_max[3] = {2147483647u, 65535, 65535};
	static const unsigned block_max[3] = {1024, 1024, 64};
	unsigned long long threads = 1, blocks = 1;
	for (int i = 0; i < 3; i++) {
		if (!l->grid[i] || !l->block[i] || l->grid[i] > grid_max[i] || l->block[i] > block_max[i])
			return CUDA_ERROR_INVALID_VALUE;
		threads *= l->block[i];
		blocks *= l->grid[i];
	}
	unsigned limit = e->maxntid ? e->maxntid : 1024;
	if (threads > limit)
		return CUDA_ERROR_INVALID_VALUE;
	if ((long long)l->shared > sim_entry_max_dynamic_shared(e, dyn))
		return CUDA_ERROR_INVALID_VALUE;
	if (l->cluster[0]) {
		unsigned long long csize = 1;
		for (int i = 0; i < 3; i++) {
			if (!l->cluster[i] || l->grid[i] % l->cluster[i])
				return CUDA_ERROR_INVALID_CLUSTER_SIZE;
			csize *= l->cluster[i];
		}
		if (csize > 8) /* the portable maximum; non-portable sizes need an opt-in */
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	}
	if (l->cooperative) {
		/* Every block must be resident at once: 2048 threads and 32 blocks per SM. */
		unsigned long long per_sm = 2048 / threads;
		if (per_sm > 32)
			per_sm = 32;
		if (blocks > per_sm * SIM_SMS)
			return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
	}
	return CUDA_SUCCESS;
}

/* The packed parameter buffer and its size from a launch's `extra` (NULL and 0 without). */
static void sim_extra_buffer(void **extra, const unsigned char **buf, size_t *size)
{
	*buf = NULL;
	*size = 0;
	for (unsigned i = 0; extra && i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			*buf = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			*size = *(size_t *)extra[i + 1];
	}
}

/* For a kernel whose fault reads an argument (CUDASIM_FAULT=NAME:arg=K+OFF): the parameter
 * values, as the driver copies them at launch; *OK marks the 8-byte ones (the only ones a fault
 * may read through), smaller ones are kept zero-extended for the GPU core's parameter memory.
 * NULL when there are none or no memory (the fault then writes no Xid line, as sim_klog_fault
 * says). */
static uint64_t *sim_launch_argv(const struct sim_entry *e, void **params, void **extra, uint64_t *ok,
				 unsigned *argc)
{
	unsigned n = e->nparams < 64 ? e->nparams : 64;
	uint64_t *argv = n ? calloc(n, sizeof(*argv)) : NULL;
	*ok = 0;
	*argc = 0;
	if (!argv)
		return NULL;
	const unsigned char *buf;
	size_t size;
	sim_extra_buffer(extra, &buf, &size);
	for (unsigned i = 0; i < n; i++) {
		const struct sim_param *p = &e->params[i];
		if (p->size == 0 || p->size > 8)
			continue;
		if (params)
			memcpy(&argv[i], params[i], p->size);
		else if (buf && p->offset + p->size <= size)
			memcpy(&argv[i], buf + p->offset, p->size);
		else
			continue;
		if (p->size == 8)
			*ok |= 1ull << i;
	}
	*argc = n;
	return argv;
}

/* A copy of the parameters as the kernel sees them, from kernelParams or the `extra` buffer;
 * NULL without memory (the node then reports no parameters). */
static struct sim_kparams *sim_kparams_make(const struct sim_entry *e, void **params, void **extra)
{
	unsigned n = e->nparams < 64 ? e->nparams : 64;
	struct sim_kparams *kp = calloc(1, sizeof(*kp) + e->param_bytes + 1);
	if (!kp)
		return NULL;
	kp->n = n;
	kp->len = e->param_bytes;
	const unsigned char *buf;
	size_t size;
	sim_extra_buffer(extra, &buf, &size);
	if (buf)
		memcpy(kp->bytes, buf, size < kp->len ? size : kp->len);
	for (unsigned i = 0; i < n; i++) {
		const struct sim_param *p = &e->params[i];
		if (params && params[i] && p->offset + p->size <= kp->len)
			memcpy(kp->bytes + p->offset, params[i], p->size);
		kp->ptr[i] = kp->bytes + p->offset;
	}
	return kp;
}

struct sim_kparams *sim_kparams_copy(const struct sim_kparams *kp)
{
	if (!kp)
		return NULL;
	struct sim_kparams *c = malloc(sizeof(*c) + kp->len + 1);
	if (!c)
		return NULL;
	memcpy(c, kp, sizeof(*c) + kp->len + 1);
	for (unsigned i = 0; i < kp->n; i++)
		c->ptr[i] = c->bytes + ((unsigned char *)kp->ptr[i] - kp->bytes);
	return c;
}

/* The driver copies the arguments at launch; reading them here makes a bad kernelParams array
 * fail the same way (a crash in the caller's data, not later). */
static CUresult sim_launch_params(struct sim_entry *e, void **params, void **extra)
{
	if (params && extra)
		return CUDA_ERROR_INVALID_VALUE;
	if (extra) {
		void *buf = NULL;
		size_t *size = NULL;
		for (unsigned i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				buf = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				size = extra[i + 1];
			else
				return CUDA_ERROR_INVALID_VALUE;
		}
		if (e->nparams && (!buf || !size || *size < e->param_bytes))
			return CUDA_ERROR_INVALID_VALUE;
		return CUDA_SUCCESS;
	}
	if (e->nparams && !params)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_is_null()) {
		unsigned char scratch[256];
		for (unsigned i = 0; i < e->nparams; i++) {
			size_t n = e->params[i].size < sizeof(scratch) ? e->params[i].size : sizeof(scratch);
			if (!params[i])
				return CUDA_ERROR_INVALID_VALUE;
			memcpy(scratch, params[i], n);
		}
		__asm__ volatile("" : : "r"(scratch) : "memory");
	}
	return CUDA_SUCCESS;
}

static CUresult sim_launch(CUfunction f, const struct sim_launch *l, CUstream h, void **params,
			   void **extra, int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_LAUNCH);
	struct sim_module *module;
	_Atomic int *dyn;
	struct sim_entry *e = sim_launch_entry(f, &module, &dyn);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (module && module->ctx != s->ctx)
		return CUDA_ERROR_INVALID_HANDLE; /* a function of another context */
	if ((r = sim_ctx_sticky(s->ctx)))
		return r;
	if ((r = sim_launch_check(l, e, dyn)) || (r = sim_launch_params(e, params, extra)))
		return r;
	/* Counted when accepted; a captured launch counts each time its graph is launched. */
	struct sim_work w = {.kind = SIM_OP_KERNEL, .count = 1,
			     .u.kernel = {.entry = e, .func = f,
					  .grid = {l->grid[0], l->grid[1], l->grid[2]},
					  .block = {l->block[0], l->block[1], l->block[2]},
					  .shared = l->shared}};
	if (e->watch && e->watch->needs_args)
		w.u.kernel.argv = sim_launch_argv(e, params, extra, &w.u.kernel.argok, &w.u.kernel.argc);
	if (e->watch && sim.cfg.gpucore)
		w.u.kernel.tid = (int)syscall(SYS_gettid); /* for the GPU core's grid table */
	/* A captured launch becomes a kernel node, which keeps its parameters
	 * (cuGraphKernelNodeGetParams). */
	if (atomic_load_explicit(&s->capturing, memory_order_relaxed))
		w.u.kernel.kp = sim_kparams_make(e, params, extra);
	return sim_submit(s, &w);
}

/* The work of a kernel node: validated as a launch in CTX, with its parameters copied. */
CUresult sim_kernel_node_work(CUfunction f, const unsigned grid[3], const unsigned block[3],
			      unsigned shared, void **params, void **extra, struct sim_ctx *ctx,
			      struct sim_work *w)
{
	struct sim_module *module;
	_Atomic int *dyn;
	struct sim_entry *e = sim_launch_entry(f, &module, &dyn);
	if (!e)
		return CUDA_ERROR_INVALID_VALUE; /* cuGraphAddKernelNode: "func" must be a function */
	if (module && ctx && module->ctx != ctx)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_launch l = {{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, shared, 0, {0, 0, 0}};
	CUresult r = sim_launch_check(&l, e, dyn);
	if (r || (r = sim_launch_params(e, params, extra)))
		return r;
	*w = (struct sim_work){.kind = SIM_OP_KERNEL, .count = 1,
			       .u.kernel = {.entry = e, .func = f,
					    .grid = {grid[0], grid[1], grid[2]},
					    .block = {block[0], block[1], block[2]},
					    .shared = shared}};
	if (e->watch && e->watch->needs_args)
		w->u.kernel.argv = sim_launch_argv(e, params, extra, &w->u.kernel.argok, &w->u.kernel.argc);
	w->u.kernel.kp = sim_kparams_make(e, params, extra);
	return CUDA_SUCCESS;
}

static CUresult sim_launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
				  unsigned by, unsigned bz, unsigned shared, CUstream h, void **params,
				  void **extra, int per_thread, int cooperative)
{
	struct sim_launch l = {{gx, gy, gz}, {bx, by, bz}, shared, cooperative, {0, 0, 0}};
	return sim_launch(f, &l, h, params, extra, per_thread);
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				   unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
				   unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
				   void **kernelParams, void **extra)
{
	return sim_launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
				 sharedMemBytes, hStream, kernelParams, extra, 0, 0);
}

SIM_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
					unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
					unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
					void **kernelParams, void **extra)
{
	return sim_launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
				 sharedMemBytes, hStream, kernelParams, extra, 1, 0);
}

SIM_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
					      unsigned int gridDimZ, unsigned int blockDimX,
					      unsigned int blockDimY, unsigned int blockDimZ,
					      unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)
{
	return sim_launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
				 sharedMemBytes, hStream, kernelParams, NULL, 0, 1);
}

SIM_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
						   unsigned int gridDimY, unsigned int gridDimZ,
						   unsigned int blockDimX, unsigned int blockDimY,
						   unsigned int blockDimZ, unsigned int sharedMemBytes,
						   CUstream hStream, void **kernelParams)
{
	return sim_launch_kernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
				 sharedMemBytes, hStream, kernelParams, NULL, 1, 1);
}

static CUresult sim_launch_ex(const CUlaunchConfig *config, CUfunction f, void **params, void **extra,
			      int per_thread)
{
	SIM_REQUIRE_INIT();
	if (!config || (config->numAttrs && !config->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_launch l = {{config->gridDimX, config->gridDimY, config->gridDimZ},
			       {config->blockDimX, config->blockDimY, config->blockDimZ},
			       config->sharedMemBytes, 0, {0, 0, 0}};
	for (unsigned i = 0; i < config->numAttrs; i++) {
		const CUlaunchAttribute *a = &config->attrs[i];
		switch (a->id) {
		case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
			l.cooperative = a->value.cooperative != 0;
			break;
		case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
			l.cluster[0] = a->value.clusterDim.x;
			l.cluster[1] = a->value.clusterDim.y;
			l.cluster[2] = a->value.clusterDim.z;
			if (!l.cluster[0] || !l.cluster[1] || !l.cluster[2])
				return CUDA_ERROR_INVALID_VALUE;
			break;
		case CU_LAUNCH_ATTRIBUTE_IGNORE:
		case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
		case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
		case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
		case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
		case CU_LAUNCH_ATTRIBUTE_PRIORITY:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
		case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
		case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
		case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
		case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
			break; /* scheduling hints: no effect on a simulated device */
		default:
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	return sim_launch(f, &l, config->hStream, params, extra, per_thread);
}

SIM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
	return sim_launch_ex(config, f, kernelParams, extra, 0);
}

SIM_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
	return sim_launch_ex(config, f, kernelParams, extra, 1);
}

/* ---- occupancy ------------------------------------------------------------------------------------ */

/* Resident blocks per SM for a kernel, by the sm_90 limits: 2048 threads and 32 blocks per SM,
 * 64K registers (allocated per warp in units of 256), 228 KiB of shared memory with 1 KiB
 * reserved per block. */
static int sim_blocks_per_sm(const struct sim_entry *e, _Atomic int *dyn_attr, int block, size_t dyn)
{
	unsigned limit = e->maxntid ? e->maxntid : 1024;
	if (block <= 0 || (unsigned)block > limit ||
	    (long long)dyn > sim_entry_max_dynamic_shared(e, dyn_attr))
		return 0;
	int warps = (block + 31) / 32;
	int by_threads = 64 / warps;
	int regs_per_warp = (int)((e->nregs * 32 + 255) / 256 * 256);
	int by_regs = 65536 / (regs_per_warp * warps);
	size_t smem = (e->static_shared + dyn + 127) / 128 * 128 + 1024;
	int by_smem = (int)(233472 / smem);
	int n = 32;
	if (by_threads < n)
		n = by_threads;
	if (by_regs < n)
		n = by_regs;
	if (by_smem < n)
		n = by_smem;
	return n;
}

/* Common front of the occupancy calls. */
static CUresult sim_occupancy_begin(CUfunction func, unsigned flags, struct sim_entry **e, _Atomic int **dyn_attr)
{
	SIM_REQUIRE_INIT();
	struct sim_module *module;
	if (!(*e = sim_launch_entry(func, &module, dyn_attr)))
		return CUDA_ERROR_INVALID_HANDLE;
	return flags > CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult sim_occupancy_blocks(int *numBlocks, CUfunction func, int blockSize, size_t dyn, unsigned flags)
{
	struct sim_entry *e;
	_Atomic int *dyn_attr;
	CUresult r = sim_occupancy_begin(func, flags, &e, &dyn_attr);
	if (r)
		return r;
	if (!numBlocks)
		return CUDA_ERROR_INVALID_VALUE;
	*numBlocks = sim_blocks_per_sm(e, dyn_attr, blockSize, dyn);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)
{
	return sim_occupancy_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	return sim_occupancy_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

/* The block size (a multiple of the warp size) that keeps the most threads resident per SM; the
 * larger block wins a tie. */
static CUresult sim_occupancy_block_size(int *minGridSize, int *blockSize, CUfunction func,
					 CUoccupancyB2DSize to_dyn, size_t dyn, int limit, unsigned flags)
{
	struct sim_entry *e;
	_Atomic int *dyn_attr;
	CUresult r = sim_occupancy_begin(func, flags, &e, &dyn_attr);
	if (r)
		return r;
	if (!minGridSize || !blockSize || limit < 0)
		return CUDA_ERROR_INVALID_VALUE;
	int max = e->maxntid ? (int)e->maxntid : 1024;
	if (limit && limit < max)
		max = limit;
	int best_size = 0, best_blocks = 0;
	for (int b = max / 32 * 32; b >= 32; b -= 32) {
		int n = sim_blocks_per_sm(e, dyn_attr, b, to_dyn ? to_dyn(b) : dyn);
		if (n * b > best_blocks * best_size) {
			best_size = b;
			best_blocks = n;
		}
	}
	*blockSize = best_size;
	*minGridSize = best_blocks * SIM_SMS;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
{
	return sim_occupancy_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags)
{
	return sim_occupancy_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags);
}
