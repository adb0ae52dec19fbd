/* Contexts: primary contexts with retain counts, explicit contexts, and each thread's stack of
 * current contexts (cuCtxSetCurrent/Push/Pop), plus the sticky error that poisons a context after
 * a simulated fault.
 *
 * A context owns its streams (legacy, per-thread and user streams), modules and allocations;
 * destroying it, releasing the last primary reference or resetting the primary context tears all
 * of them down.  A poisoned context answers CUDA_ERROR_ILLEGAL_ADDRESS from every call that does
 * work in it until it is destroyed or reset, as on a GPU.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct sim_thread sim_thr;
extern __thread int sim_in_worker;

/* cuCtxGetLimit/SetLimit values, per context would be more faithful; the engines only read them. */
static size_t sim_limits[CU_LIMIT_MAX] = {
	[CU_LIMIT_STACK_SIZE] = 1024,
	[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20,
	[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20,
	[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
	[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
	[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
	[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
};
static CUfunc_cache sim_cache_config = CU_FUNC_CACHE_PREFER_NONE;
static pthread_mutex_t sim_limits_lock = PTHREAD_MUTEX_INITIALIZER;

static int sim_ctx_alive(const struct sim_ctx *ctx)
{
	return sim_obj_is(ctx, SIM_KIND_CTX);
}

CUresult sim_ctx_current(struct sim_ctx **ret)
{
	if (sim_thr.depth == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	struct sim_ctx *ctx = sim_thr.stack[sim_thr.depth - 1];
	if (!sim_ctx_alive(ctx))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*ret = ctx;
	return CUDA_SUCCESS;
}

CUresult sim_ctx_resolve(CUcontext h, struct sim_ctx **ret)
{
	if (!h)
		return sim_ctx_current(ret);
	if (!sim_ctx_alive((struct sim_ctx *)h))
		return CUDA_ERROR_INVALID_CONTEXT;
	*ret = (struct sim_ctx *)h;
	return CUDA_SUCCESS;
}

CUresult sim_ctx_check(struct sim_ctx *ctx)
{
	return sim_ctx_sticky(ctx);
}

void sim_ctx_fault(struct sim_ctx *ctx, CUresult err)
{
	int expected = 0;
	pthread_mutex_lock(&sim.lock);
	atomic_compare_exchange_strong(&ctx->sticky, &expected, (int)err);
	pthread_cond_broadcast(&sim.progress);
	pthread_mutex_unlock(&sim.lock);
}

static struct sim_ctx *sim_ctx_new_locked(struct sim_device *dev, unsigned flags, int primary)
{
	struct sim_ctx *ctx = sim_obj_new(SIM_KIND_CTX, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->dev = dev;
	ctx->flags = flags;
	ctx->primary = primary;
	ctx->id = sim_new_id();
	ctx->tid = (int)syscall(SYS_gettid);
	ctx->legacy = sim_stream_create_locked(ctx, SIM_STREAM_LEGACY, 0, 0);
	if (!ctx->legacy) {
		sim_obj_free(ctx, SIM_KIND_CTX);
		return NULL;
	}
	return ctx;
}

/* Tear a context down completely and recycle it.  Called with sim.lock held. */
static void sim_ctx_destroy_locked(struct sim_ctx *ctx)
{
	atomic_store_explicit(&ctx->obj.magic, 0, memory_order_release);
	sim_ctx_teardown_locked(ctx);
	sim_obj_free(ctx, SIM_KIND_CTX);
}

static int sim_flags_valid(unsigned flags)
{
	if (flags & ~(unsigned)CU_CTX_FLAGS_MASK)
		return 0;
	unsigned sched = flags & CU_CTX_SCHED_MASK;
	return sched == 0 || sched == CU_CTX_SCHED_SPIN || sched == CU_CTX_SCHED_YIELD ||
	       sched == CU_CTX_SCHED_BLOCKING_SYNC;
}

static void sim_thr_push(struct sim_ctx *ctx)
{
	if (sim_thr.depth == SIM_CTX_STACK) {
		/* Deeper than any real program goes; drop the bottom rather than fail the call. */
		memmove(sim_thr.stack, sim_thr.stack + 1, sizeof(sim_thr.stack[0]) * (SIM_CTX_STACK - 1));
		sim_thr.depth--;
	}
	sim_thr.stack[sim_thr.depth++] = ctx;
}

/* ---- primary contexts ------------------------------------------------------------------------ */

SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (!d->primary && !(d->primary = sim_ctx_new_locked(d, d->primary_flags, 1))) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	d->primary_refs++;
	*pctx = (CUcontext)d->primary;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

/* Common front of release and reset: they tear contexts down, which a host function may not. */
static CUresult sim_primary_begin(CUdevice dev, struct sim_device **d)
{
	SIM_REQUIRE_INIT();
	if (!(*d = sim_device_get(dev)))
		return CUDA_ERROR_INVALID_DEVICE;
	if (sim_in_worker)
		return CUDA_ERROR_NOT_PERMITTED;
	pthread_mutex_lock(&sim.lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	struct sim_device *d;
	CUresult r = sim_primary_begin(dev, &d);
	if (r)
		return r;
	if (d->primary_refs == 0) {
		r = CUDA_ERROR_INVALID_CONTEXT;
	} else if (--d->primary_refs == 0) {
		sim_ctx_destroy_locked(d->primary);
		d->primary = NULL;
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* Reset destroys everything the primary context holds and clears its sticky error; the handle
 * and the retain count stay, so the next use finds a fresh, healthy context. */
SIM_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	struct sim_device *d;
	CUresult r = sim_primary_begin(dev, &d);
	if (r)
		return r;
	struct sim_ctx *ctx = d->primary;
	if (ctx) {
		sim_ctx_teardown_locked(ctx);
		atomic_store(&ctx->sticky, 0);
		ctx->closing = 0;
		ctx->id = sim_new_id();
		ctx->flags = d->primary_flags;
		ctx->legacy = sim_stream_create_locked(ctx, SIM_STREAM_LEGACY, 0, 0);
		if (!ctx->legacy)
			r = CUDA_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!sim_flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	d->primary_flags = flags;
	if (d->primary)
		d->primary->flags = flags;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	*flags = d->primary_flags;
	*active = d->primary != NULL;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

/* ---- explicit contexts ----------------------------------------------------------------------- */

static CUresult sim_ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pctx || !sim_flags_valid(flags))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	struct sim_ctx *ctx = sim_ctx_new_locked(d, flags, 0);
	pthread_mutex_unlock(&sim.lock);
	if (!ctx)
		return CUDA_ERROR_OUT_OF_MEMORY;
	sim_thr_push(ctx);
	*pctx = (CUcontext)ctx;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	return sim_ctx_create(pctx, flags, dev);
}

SIM_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
				   unsigned int flags, CUdevice dev)
{
	if (numParams < 0 || (numParams > 0 && !paramsArray))
		return CUDA_ERROR_INVALID_VALUE;
	if (numParams > 0)
		return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
	return sim_ctx_create(pctx, flags, dev);
}

SIM_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				   unsigned int flags, CUdevice dev)
{
	if (ctxCreateParams) {
		if (ctxCreateParams->numExecAffinityParams < 0 ||
		    (ctxCreateParams->numExecAffinityParams > 0 && !ctxCreateParams->execAffinityParams))
			return CUDA_ERROR_INVALID_VALUE;
		if (ctxCreateParams->numExecAffinityParams > 0)
			return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
		if (ctxCreateParams->cigParams)
			return CUDA_ERROR_NOT_SUPPORTED;
	}
	return sim_ctx_create(pctx, flags, dev);
}

SIM_EXPORT CUresult cuCtxDestroy_v2(CUcontext h)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx = (struct sim_ctx *)h;
	if (!h || !sim_ctx_alive(ctx) || ctx->primary)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (sim_in_worker)
		return CUDA_ERROR_NOT_PERMITTED;
	/* "If the context is current to the calling thread then it is also popped." */
	if (sim_thr.depth > 0 && sim_thr.stack[sim_thr.depth - 1] == ctx)
		sim_thr.depth--;
	pthread_mutex_lock(&sim.lock);
	if (!sim_ctx_alive(ctx)) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	sim_ctx_destroy_locked(ctx);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

/* ---- the current-context stack ------------------------------------------------------------- */

SIM_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext h)
{
	SIM_REQUIRE_INIT();
	if (!h || !sim_ctx_alive((struct sim_ctx *)h))
		return CUDA_ERROR_INVALID_CONTEXT;
	sim_thr_push((struct sim_ctx *)h);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
	SIM_REQUIRE_INIT();
	if (sim_thr.depth == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	struct sim_ctx *ctx = sim_thr.stack[--sim_thr.depth];
	if (pctx)
		*pctx = (CUcontext)ctx;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext h)
{
	SIM_REQUIRE_INIT();
	if (!h) {
		if (sim_thr.depth > 0)
			sim_thr.depth--;
		return CUDA_SUCCESS;
	}
	if (!sim_ctx_alive((struct sim_ctx *)h))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (sim_thr.depth == 0)
		sim_thr.depth = 1;
	sim_thr.stack[sim_thr.depth - 1] = (struct sim_ctx *)h;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_CTX_QUERY);
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = sim_thr.depth ? (CUcontext)sim_thr.stack[sim_thr.depth - 1] : NULL;
	return CUDA_SUCCESS;
}

/* ---- queries ---------------------------------------------------------------------------------- */

SIM_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = ctx->dev->ordinal;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext h)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_resolve(h, &ctx);
	if (r)
		return r;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = ctx->dev->ordinal;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetId(CUcontext h, unsigned long long *ctxId)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_resolve(h, &ctx);
	if (r)
		return r;
	if (!ctxId)
		return CUDA_ERROR_INVALID_VALUE;
	*ctxId = ctx->id;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetFlags(unsigned int *flags)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = ctx->flags;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetApiVersion(CUcontext h, unsigned int *version)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_resolve(h, &ctx);
	if (r)
		return r;
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	*version = 3020;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!pvalue || limit < 0 || limit >= CU_LIMIT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_limits_lock);
	*pvalue = sim_limits[limit];
	pthread_mutex_unlock(&sim_limits_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (limit < 0 || limit >= CU_LIMIT_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_limits_lock);
	sim_limits[limit] = value;
	pthread_mutex_unlock(&sim_limits_lock);
	return CUDA_SUCCESS;
}

/* The cache preference is a hint; it is kept and read back (process-wide, like the limits). */
SIM_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!pconfig)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_limits_lock);
	*pconfig = sim_cache_config;
	pthread_mutex_unlock(&sim_limits_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim_limits_lock);
	sim_cache_config = config;
	pthread_mutex_unlock(&sim_limits_lock);
	return CUDA_SUCCESS;
}
