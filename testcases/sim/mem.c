/* Simulated device memory: the address window, the allocator, host memory, pointer queries and
 * the virtual memory management (VMM) calls.
 *
 * Each device reserves a PROT_NONE, MAP_NORESERVE address window that is never touched, so device
 * pointers look like UVA pointers and nothing behind them lands in a host core.  The bytes live
 * in a second private mapping of the same size (the shadow store, marked MADV_DONTDUMP), at the
 * same offset: copies and memsets go there, so data round-trips.  The shadow is reserved
 * PROT_NONE too and only the pages that allocations and VMM mappings use are made accessible
 * (sim_shadow_commit; freed ones are emptied but stay so), since a core writer that ignores
 * MADV_DONTDUMP (qemu-user's) dumps every readable mapping: a real driver's device memory is in
 * no host core, and the simulator's reservation is not in one either.  Allocations are placed first
 * fit, 512-byte aligned (2 MiB for 2 MiB and larger), and freed ranges are reused.  Host memory
 * that is registered or allocated through the driver is device-accessible at its own address
 * (CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 1); managed memory is ordinary host memory too.
 */
#include "sim.h"
#include <errno.h>
#include <signal.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIM_GRANULARITY ((size_t)2 << 20)

struct sim_phys {
	struct sim_obj obj;
	struct sim_device *dev;
	size_t size;
	unsigned maps;
	int released;
	unsigned handle_types;    /* CUmemAllocationProp.requestedHandleTypes */
	int imported;             /* cuMemImportFromShareableHandle made it */
};

struct sim_map {
	CUdeviceptr base;
	size_t size;
	struct sim_phys *phys;
	unsigned access; /* CUmemAccess_flags granted through cuMemSetAccess */
};

struct sim_range {
	CUdeviceptr base;
	size_t size;  /* what the caller asked for */
	size_t span;  /* what the allocator set aside */
	enum sim_range_kind kind;
	struct sim_ctx *ctx;
	unsigned long long buffer_id;
	int freeing;  /* a cuMemFreeAsync is queued */
	struct sim_pool *pool; /* stream-ordered allocations: the pool they came from */
	struct sim_map *maps; /* reservations only */
	size_t nmaps;
	/* The device's range tree (below): children, priority, and the subtree's extent and widest
	 * gap, kept by sim_range_update. */
	struct sim_range *left, *right;
	uint64_t prio;
	CUdeviceptr min_base, max_end;
	size_t max_gap;
};

struct sim_hostmem {
	uintptr_t base;
	size_t size;
	enum sim_host_kind kind;
	unsigned flags;
	struct sim_ctx *ctx;
	size_t mapped; /* bytes to munmap for memory the driver allocated */
	unsigned long long buffer_id;
};

struct sim_pool {
	struct sim_obj obj;
	struct sim_device *dev;
	int reuse[3];            /* CU_MEMPOOL_ATTR_REUSE_* (1..3) */
	cuuint64_t threshold;    /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
	cuuint64_t used;         /* CU_MEMPOOL_ATTR_USED_MEM_CURRENT, under mem_lock */
	cuuint64_t used_high;    /* CU_MEMPOOL_ATTR_USED_MEM_HIGH, under mem_lock */
};

static size_t sim_page;

static size_t sim_align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

void sim_mem_init_device(struct sim_device *dev)
{
	sim_page = (size_t)sysconf(_SC_PAGESIZE);
	/* Twice the memory size of address space, so fragmentation and VMM reservations fit. */
	size_t size = dev->total_mem * 2;
	void *win = mmap(NULL, size + SIM_GRANULARITY, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (win == MAP_FAILED)
		return;
	uintptr_t base = sim_align_up((uintptr_t)win, SIM_GRANULARITY);
	madvise(win, size + SIM_GRANULARITY, MADV_DONTDUMP);
	void *shadow = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (shadow == MAP_FAILED) {
		munmap(win, size + SIM_GRANULARITY);
		return;
	}
	madvise(shadow, size, MADV_DONTDUMP);
	dev->shadow = shadow;
	dev->va_size = size;
	dev->va_base = base;
}

static struct sim_device *sim_mem_device_of(CUdeviceptr p)
{
	for (int i = 0; i < sim.cfg.ndevices; i++) {
		struct sim_device *d = &sim.devices[i];
		if (p >= d->va_base && p - d->va_base < d->va_size)
			return d;
	}
	return NULL;
}

/* ---- the range tree ---------------------------------------------------------------------------
 *
 * A device's ranges live in a treap ordered by base, so finding, inserting and removing one costs
 * O(log n) however many are live (an engine may hold a million).  Each node also knows its
 * subtree's lowest base, highest end and widest gap between two of its ranges, which is all the
 * first-fit search needs to skip a subtree with no room: placement stays the lowest fitting gap,
 * as it was with the sorted array.  Priorities come from a fixed-seed generator, so a run places
 * the same allocations at the same addresses every time. */

static uint64_t sim_range_prio_state = 0x9e3779b97f4a7c15ull;

static uint64_t sim_range_prio(void)
{
	/* xorshift64*: mem_lock held, so the state needs no atomics. */
	uint64_t x = sim_range_prio_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	sim_range_prio_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void sim_range_update(struct sim_range *n)
{
	CUdeviceptr end = n->base + n->span;
	n->min_base = n->base;
	n->max_end = end;
	n->max_gap = 0;
	if (n->left) {
		n->min_base = n->left->min_base;
		n->max_gap = n->left->max_gap;
		if (n->base - n->left->max_end > n->max_gap)
			n->max_gap = n->base - n->left->max_end;
	}
	if (n->right) {
		n->max_end = n->right->max_end;
		if (n->right->max_gap > n->max_gap)
			n->max_gap = n->right->max_gap;
		if (n->right->min_base - end > n->max_gap)
			n->max_gap = n->right->min_base - end;
	}
}

/* Split T into the ranges below BASE (*lo) and the rest (*hi). */
static void sim_range_split(struct sim_range *t, CUdeviceptr base, struct sim_range **lo,
			    struct sim_range **hi)
{
	if (!t) {
		*lo = *hi = NULL;
	} else if (t->base < base) {
		sim_range_split(t->right, base, &t->right, hi);
		sim_range_update(t);
		*lo = t;
	} else {
		sim_range_split(t->left, base, lo, &t->left);
		sim_range_update(t);
		*hi = t;
	}
}

/* Join two treaps, every base in A below every base in B. */
static struct sim_range *sim_range_merge(struct sim_range *a, struct sim_range *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->right = sim_range_merge(a->right, b);
		sim_range_update(a);
		return a;
	}
	b->left = sim_range_merge(a, b->left);
	sim_range_update(b);
	return b;
}

/* The range containing p (by span), or NULL.  mem_lock held. */
static struct sim_range *sim_range_find(struct sim_device *dev, CUdeviceptr p)
{
	struct sim_range *n = dev->range_root, *below = NULL;
	while (n) {
		if (n->base <= p) {
			below = n;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return below && p - below->base < below->span ? below : NULL;
}

static struct sim_range *sim_range_exact(struct sim_device *dev, CUdeviceptr p)
{
	struct sim_range *r = sim_range_find(dev, p);
	return r && r->base == p ? r : NULL;
}

/* The lowest base at or above p, or END when no range starts there. */
static CUdeviceptr sim_range_next_base(struct sim_device *dev, CUdeviceptr p, CUdeviceptr end)
{
	CUdeviceptr next = end;
	for (struct sim_range *n = dev->range_root; n;) {
		if (n->base >= p) {
			next = n->base;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return next;
}

/* The lowest address at ALIGN where SPAN bytes fit in T's gaps, the space between LO (the end of
 * the range before T) and HI (the base of the range after it) counted; 0 when none does. */
static CUdeviceptr sim_range_first_fit(const struct sim_range *t, CUdeviceptr lo, CUdeviceptr hi,
				       size_t span, size_t align)
{
	if (!t) {
		CUdeviceptr cand = sim_align_up(lo, align);
		return cand >= lo && cand < hi && hi - cand >= span ? cand : 0;
	}
	/* No gap in or around this subtree is even SPAN wide: nothing here fits. */
	if (t->min_base - lo < span && t->max_gap < span && hi - t->max_end < span)
		return 0;
	CUdeviceptr at = sim_range_first_fit(t->left, lo, t->base, span, align);
	if (!at)
		at = sim_range_first_fit(t->right, t->base + t->span, hi, span, align);
	return at;
}

/* First fit: the lowest gap of `span` bytes at `align`, or exactly at `hint` when that is free. */
static CUresult sim_range_insert_locked(struct sim_device *dev, size_t span, size_t align,
					CUdeviceptr hint, struct sim_range **ret)
{
	uintptr_t end = dev->va_base + dev->va_size;
	uintptr_t at = 0;
	if (hint && hint % align == 0 && hint >= dev->va_base && hint + span <= end &&
	    !sim_range_find(dev, hint) && sim_range_next_base(dev, hint, end) >= hint + span)
		at = hint;
	if (!at)
		at = sim_range_first_fit(dev->range_root, dev->va_base, end, span, align);
	if (!at)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct sim_range *r = calloc(1, sizeof(*r));
	if (!r)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r->base = at;
	r->span = span;
	r->buffer_id = sim_new_id();
	r->prio = sim_range_prio();
	sim_range_update(r);
	struct sim_range *lo, *hi;
	sim_range_split(dev->range_root, at, &lo, &hi);
	dev->range_root = sim_range_merge(sim_range_merge(lo, r), hi);
	dev->nranges++;
	*ret = r;
	return CUDA_SUCCESS;
}

/* Make the shadow pages of a live range readable and writable (every page it touches: pages
 * it shares with a neighbour are already so, or harmlessly become so).  0, or -1 with errno. */
static int sim_shadow_commit(struct sim_device *dev, CUdeviceptr base, size_t span)
{
	uintptr_t lo = (base - dev->va_base) / sim_page * sim_page;
	uintptr_t hi = sim_align_up(base - dev->va_base + span, sim_page);
	return mprotect(dev->shadow + lo, hi - lo, PROT_READ | PROT_WRITE);
}

/* Give the shadow pages of a dead range back to the kernel.  They stay accessible: work queued
 * before the free (a graph's memset node, a copy) may still write through a pointer translated
 * while the range was live, as it could on a GPU. */
static void sim_shadow_discard(struct sim_device *dev, CUdeviceptr base, size_t span)
{
	uintptr_t lo = sim_align_up(base - dev->va_base, sim_page);
	uintptr_t hi = (base - dev->va_base + span) / sim_page * sim_page;
	if (hi > lo)
		madvise(dev->shadow + lo, hi - lo, MADV_DONTNEED);
}

/* What a range's end gives back: its bytes, its pool's share, its shadow pages, its mappings. */
static void sim_range_destroy(struct sim_device *dev, struct sim_range *r)
{
	if (r->kind != SIM_RANGE_RESERVE)
		dev->used -= r->span;
	if (r->pool)
		r->pool->used -= r->span;
	sim_shadow_discard(dev, r->base, r->span);
	free(r->maps);
	free(r);
	dev->nranges--;
}

/* Unlink the range based at BASE from T; returns the new subtree. */
static struct sim_range *sim_range_unlink(struct sim_range *t, CUdeviceptr base,
					  struct sim_range **gone)
{
	if (!t)
		return NULL;
	if (t->base == base) {
		*gone = t;
		return sim_range_merge(t->left, t->right);
	}
	if (base < t->base)
		t->left = sim_range_unlink(t->left, base, gone);
	else
		t->right = sim_range_unlink(t->right, base, gone);
	sim_range_update(t);
	return t;
}

static void sim_range_remove_locked(struct sim_device *dev, struct sim_range *r)
{
	struct sim_range *gone = NULL;
	dev->range_root = sim_range_unlink(dev->range_root, r->base, &gone);
	if (gone)
		sim_range_destroy(dev, gone);
}

/* Remove every range CTX owns from T in one pass; returns the new subtree. */
static struct sim_range *sim_range_drop_ctx(struct sim_device *dev, struct sim_range *t,
					    const struct sim_ctx *ctx)
{
	if (!t)
		return NULL;
	t->left = sim_range_drop_ctx(dev, t->left, ctx);
	t->right = sim_range_drop_ctx(dev, t->right, ctx);
	if (t->ctx == ctx) {
		struct sim_range *rest = sim_range_merge(t->left, t->right);
		sim_range_destroy(dev, t);
		return rest;
	}
	sim_range_update(t);
	return t;
}

/* A destroyed pool's outstanding allocations stay live but count towards no pool. */
static void sim_range_forget_pool(struct sim_range *t, const struct sim_pool *pool)
{
	for (; t; t = t->right) {
		if (t->pool == pool)
			t->pool = NULL;
		sim_range_forget_pool(t->left, pool);
	}
}

static CUresult sim_mem_alloc_from(struct sim_ctx *ctx, size_t bytes, enum sim_range_kind kind,
				   struct sim_pool *pool, CUdeviceptr *ret)
{
	struct sim_device *dev = ctx->dev;
	if (bytes == 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (bytes > dev->total_mem)
		return CUDA_ERROR_OUT_OF_MEMORY;
	size_t align = bytes >= SIM_GRANULARITY ? SIM_GRANULARITY : 512;
	size_t span = sim_align_up(bytes, align);
	struct sim_range *r;
	pthread_mutex_lock(&sim.mem_lock);
	CUresult res = CUDA_ERROR_OUT_OF_MEMORY;
	if (dev->used + span <= dev->total_mem &&
	    (res = sim_range_insert_locked(dev, span, align, 0, &r)) == CUDA_SUCCESS) {
		r->size = bytes;
		r->kind = kind;
		r->ctx = ctx;
		r->pool = pool;
		dev->used += span;
		*ret = r->base;
		if (sim_shadow_commit(dev, r->base, span)) {
			r->pool = NULL; /* not counted in the pool yet */
			sim_range_remove_locked(dev, r);
			res = CUDA_ERROR_OUT_OF_MEMORY;
		} else if (pool) {
			pool->used += span;
			if (pool->used > pool->used_high)
				pool->used_high = pool->used;
		}
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return res;
}

CUresult sim_mem_alloc(struct sim_ctx *ctx, size_t bytes, enum sim_range_kind kind, CUdeviceptr *ret)
{
	return sim_mem_alloc_from(ctx, bytes, kind, NULL, ret);
}

void sim_mem_release(struct sim_device *dev, CUdeviceptr dptr)
{
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *r = sim_range_exact(dev, dptr);
	if (r)
		sim_range_remove_locked(dev, r);
	pthread_mutex_unlock(&sim.mem_lock);
}

/* ---- host memory table ------------------------------------------------------------------------ */

/* Index of the host entry overlapping [p, p+bytes), or -1.  mem_lock held. */
static long sim_host_find(uintptr_t p, size_t bytes)
{
	for (size_t i = 0; i < sim.nhost; i++) {
		struct sim_hostmem *h = &sim.host[i];
		if (p < h->base + h->size && h->base < p + (bytes ? bytes : 1))
			return (long)i;
	}
	return -1;
}

static long sim_host_containing(uintptr_t p, size_t bytes)
{
	long i = sim_host_find(p, bytes);
	if (i < 0)
		return -1;
	struct sim_hostmem *h = &sim.host[i];
	return p >= h->base && p + bytes <= h->base + h->size ? i : -1;
}

static CUresult sim_host_add(uintptr_t base, size_t size, enum sim_host_kind kind, unsigned flags,
			     struct sim_ctx *ctx, size_t mapped)
{
	pthread_mutex_lock(&sim.mem_lock);
	if (sim_host_find(base, size) >= 0) {
		pthread_mutex_unlock(&sim.mem_lock);
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	}
	if (sim.nhost == sim.cap_host) {
		size_t ncap = sim.cap_host ? sim.cap_host * 2 : 16;
		struct sim_hostmem *n = realloc(sim.host, ncap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&sim.mem_lock);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		sim.host = n;
		sim.cap_host = ncap;
	}
	sim.host[sim.nhost++] = (struct sim_hostmem){base, size, kind, flags, ctx, mapped, sim_new_id()};
	pthread_mutex_unlock(&sim.mem_lock);
	return CUDA_SUCCESS;
}

static void sim_host_remove_locked(size_t i)
{
	struct sim_hostmem *h = &sim.host[i];
	if (h->mapped)
		munmap((void *)h->base, h->mapped);
	sim.host[i] = sim.host[--sim.nhost];
}

int sim_host_is_pinned(const void *p, size_t bytes)
{
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing((uintptr_t)p, bytes);
	int pinned = i >= 0 && sim.host[i].kind != SIM_HOST_MANAGED;
	pthread_mutex_unlock(&sim.mem_lock);
	return pinned;
}

int sim_mem_is_managed(CUdeviceptr p)
{
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing(p, 1);
	int managed = i >= 0 && sim.host[i].kind == SIM_HOST_MANAGED;
	pthread_mutex_unlock(&sim.mem_lock);
	return managed;
}

/* ---- translation for the copy engine ------------------------------------------------------------ */

/* The copy engine works on translated pointers; a fault reports the address the application
 * gave.  The shadow store sits at the device window's offsets, and host memory the device can
 * reach is at its own address. */
uint64_t sim_mem_device_address(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	for (int i = 0; i < sim.cfg.ndevices; i++) {
		struct sim_device *d = &sim.devices[i];
		uintptr_t s = (uintptr_t)d->shadow;
		if (s && a >= s && a - s < d->va_size)
			return d->va_base + (a - s);
	}
	return a;
}

void *sim_mem_translate(CUdeviceptr dptr, size_t bytes, int *pinned_host)
{
	if (pinned_host)
		*pinned_host = 0;
	if (dptr + bytes < dptr)
		return NULL;
	struct sim_device *dev = sim_mem_device_of(dptr);
	void *ret = NULL;
	pthread_mutex_lock(&sim.mem_lock);
	if (dev) {
		struct sim_range *r = sim_range_find(dev, dptr);
		if (r) {
			if (r->kind == SIM_RANGE_RESERVE) {
				for (size_t m = 0; m < r->nmaps; m++) {
					struct sim_map *map = &r->maps[m];
					if (dptr >= map->base && dptr + bytes <= map->base + map->size &&
					    (map->access & CU_MEM_ACCESS_FLAGS_PROT_READWRITE) ==
						    CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
						ret = dev->shadow + (dptr - dev->va_base);
				}
			} else if (dptr + bytes <= r->base + r->size && !r->freeing) {
				ret = dev->shadow + (dptr - dev->va_base);
			}
		}
	} else if (sim_host_containing(dptr, bytes) >= 0) {
		ret = (void *)(uintptr_t)dptr;
		if (pinned_host)
			*pinned_host = 1;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return ret;
}

void *sim_mem_translate_any(CUdeviceptr p, size_t bytes, int *is_device)
{
	*is_device = sim_mem_device_of(p) != NULL;
	if (*is_device)
		return sim_mem_translate(p, bytes, NULL);
	return (void *)(uintptr_t)p;
}

/* Null mode: stream memory operations skip validation, so the breadcrumb path takes no lock. */
void *sim_mem_translate_fast(CUdeviceptr dptr)
{
	struct sim_device *dev = sim_mem_device_of(dptr);
	return dev ? dev->shadow + (dptr - dev->va_base) : (void *)(uintptr_t)dptr;
}

void sim_mem_ctx_gone(struct sim_ctx *ctx)
{
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_device *dev = ctx->dev;
	dev->range_root = sim_range_drop_ctx(dev, dev->range_root, ctx);
	for (long i = (long)sim.nhost - 1; i >= 0; i--)
		if (sim.host[i].ctx == ctx)
			sim_host_remove_locked((size_t)i);
	pthread_mutex_unlock(&sim.mem_lock);
}

/* ---- API: device allocations --------------------------------------------------------------------- */

/* Common prologue of calls that need a healthy current context. */
static CUresult sim_mem_ctx(struct sim_ctx **ctx)
{
	SIM_REQUIRE_INIT();
	CUresult r = sim_ctx_current(ctx);
	if (r)
		return r;
	if (sim_capture_unsafe())
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	return sim_ctx_sticky(*ctx);
}

SIM_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r || (r = sim_ctx_sticky(ctx)))
		return r;
	if (!free_bytes || !total)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	*total = ctx->dev->total_mem;
	*free_bytes = ctx->dev->total_mem - ctx->dev->used;
	pthread_mutex_unlock(&sim.mem_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	SIM_COST(SIM_COST_ALLOC);
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_mem_alloc(ctx, bytesize, SIM_RANGE_ALLOC, dptr);
}

SIM_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				       size_t Height, unsigned int ElementSizeBytes)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (!dptr || !pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	size_t pitch = sim_align_up(WidthInBytes, 512);
	if (Height > SIZE_MAX / pitch)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if ((r = sim_mem_alloc(ctx, pitch * Height, SIM_RANGE_ALLOC, dptr)) == CUDA_SUCCESS)
		*pPitch = pitch;
	return r;
}

static CUresult sim_host_map(size_t bytes, void **ret, size_t *mapped)
{
	*mapped = sim_align_up(bytes, sim_page);
	void *p = mmap(NULL, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*ret = p;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (!dptr || !bytesize || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
		return CUDA_ERROR_INVALID_VALUE;
	void *p;
	size_t mapped;
	if ((r = sim_host_map(bytesize, &p, &mapped)))
		return r;
	if ((r = sim_host_add((uintptr_t)p, bytesize, SIM_HOST_MANAGED, flags, ctx, mapped))) {
		munmap(p, mapped);
		return r;
	}
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	SIM_COST(SIM_COST_FREE);
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (dptr == 0)
		return CUDA_SUCCESS;
	struct sim_device *dev = sim_mem_device_of(dptr);
	r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	if (dev) {
		struct sim_range *rg = sim_range_exact(dev, dptr);
		if (rg && !rg->freeing && (rg->kind == SIM_RANGE_ALLOC || rg->kind == SIM_RANGE_ASYNC)) {
			sim_range_remove_locked(dev, rg);
			r = CUDA_SUCCESS;
		}
	} else {
		long i = sim_host_containing(dptr, 1);
		if (i >= 0 && sim.host[i].kind == SIM_HOST_MANAGED && sim.host[i].base == dptr) {
			sim_host_remove_locked((size_t)i);
			r = CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r || (r = sim_ctx_sticky(ctx)))
		return r;
	struct sim_device *dev = sim_mem_device_of(dptr);
	r = CUDA_ERROR_NOT_FOUND;
	pthread_mutex_lock(&sim.mem_lock);
	if (dev) {
		struct sim_range *rg = sim_range_find(dev, dptr);
		if (rg) {
			CUdeviceptr base = rg->base;
			size_t size = rg->size;
			int found = rg->kind != SIM_RANGE_RESERVE && dptr < rg->base + rg->size;
			for (size_t m = 0; rg->kind == SIM_RANGE_RESERVE && m < rg->nmaps; m++)
				if (dptr >= rg->maps[m].base && dptr < rg->maps[m].base + rg->maps[m].size) {
					base = rg->maps[m].base;
					size = rg->maps[m].size;
					found = 1;
				}
			if (found) {
				if (pbase)
					*pbase = base;
				if (psize)
					*psize = size;
				r = CUDA_SUCCESS;
			}
		}
	} else {
		long i = sim_host_containing(dptr, 1);
		if (i >= 0 && sim.host[i].kind != SIM_HOST_REGISTERED) {
			if (pbase)
				*pbase = sim.host[i].base;
			if (psize)
				*psize = sim.host[i].size;
			r = CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

/* ---- API: host memory ------------------------------------------------------------------------- */

static CUresult sim_host_alloc(void **pp, size_t bytesize, unsigned flags)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	unsigned valid = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
	if (!pp || !bytesize || (flags & ~valid))
		return CUDA_ERROR_INVALID_VALUE;
	void *p;
	size_t mapped;
	if ((r = sim_host_map(bytesize, &p, &mapped)))
		return r;
	if ((r = sim_host_add((uintptr_t)p, bytesize, SIM_HOST_ALLOC, flags, ctx, mapped))) {
		munmap(p, mapped);
		return r;
	}
	*pp = p;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	return sim_host_alloc(pp, bytesize, CU_MEMHOSTALLOC_DEVICEMAP);
}

SIM_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	return sim_host_alloc(pp, bytesize, Flags);
}

SIM_EXPORT CUresult cuMemFreeHost(void *p)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing((uintptr_t)p, 1);
	if (p && i >= 0 && sim.host[i].kind == SIM_HOST_ALLOC && sim.host[i].base == (uintptr_t)p) {
		sim_host_remove_locked((size_t)i);
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	unsigned valid = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
			 CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
	if (!p || !bytesize || (Flags & ~valid) || sim_mem_device_of((CUdeviceptr)(uintptr_t)p))
		return CUDA_ERROR_INVALID_VALUE;
	if (Flags & CU_MEMHOSTREGISTER_IOMEMORY)
		return CUDA_ERROR_NOT_SUPPORTED; /* no PCI BARs to map here */
	return sim_host_add((uintptr_t)p, bytesize, SIM_HOST_REGISTERED, Flags, ctx, 0);
}

SIM_EXPORT CUresult cuMemHostUnregister(void *p)
{
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	r = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing((uintptr_t)p, 1);
	if (i >= 0 && sim.host[i].kind == SIM_HOST_REGISTERED && sim.host[i].base == (uintptr_t)p) {
		sim_host_remove_locked((size_t)i);
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r || (r = sim_ctx_sticky(ctx)))
		return r;
	if (!pdptr || !p || Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing((uintptr_t)p, 1);
	r = i >= 0 && sim.host[i].kind != SIM_HOST_MANAGED ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&sim.mem_lock);
	if (r == CUDA_SUCCESS)
		*pdptr = (CUdeviceptr)(uintptr_t)p; /* the device sees host memory at its own address */
	return r;
}

/* ---- API: pointer attributes ------------------------------------------------------------------- */

struct sim_ptr_facts {
	struct sim_ctx *ctx;
	CUmemorytype type;
	int managed, device;
	CUdeviceptr base;
	size_t size;
	unsigned long long buffer_id;
	int host_accessible;
};

static int sim_ptr_facts(CUdeviceptr p, struct sim_ptr_facts *f)
{
	struct sim_device *dev = sim_mem_device_of(p);
	int found = 0;
	memset(f, 0, sizeof(*f));
	pthread_mutex_lock(&sim.mem_lock);
	if (dev) {
		struct sim_range *r = sim_range_find(dev, p);
		if (r) {
			f->ctx = r->ctx;
			f->type = CU_MEMORYTYPE_DEVICE;
			f->device = dev->ordinal;
			f->base = r->base;
			f->size = r->size;
			f->buffer_id = r->buffer_id;
			found = r->kind != SIM_RANGE_RESERVE;
			for (size_t m = 0; r->kind == SIM_RANGE_RESERVE && m < r->nmaps; m++)
				if (p >= r->maps[m].base && p < r->maps[m].base + r->maps[m].size) {
					f->base = r->maps[m].base;
					f->size = r->maps[m].size;
					found = 1;
				}
		}
	} else {
		long i = sim_host_containing(p, 1);
		if (i >= 0) {
			struct sim_hostmem *h = &sim.host[i];
			f->ctx = h->ctx;
			f->managed = h->kind == SIM_HOST_MANAGED;
			f->type = f->managed ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
			f->device = h->ctx ? h->ctx->dev->ordinal : 0;
			f->base = h->base;
			f->size = h->size;
			f->buffer_id = h->buffer_id;
			f->host_accessible = 1;
			found = 1;
		}
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return found;
}

SIM_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_POINTER_QUERY);
	struct sim_ptr_facts f;
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_ptr_facts(ptr, &f))
		return CUDA_ERROR_INVALID_VALUE;
	if (f.ctx) {
		CUresult r = sim_ctx_sticky(f.ctx);
		if (r)
			return r;
	}
	switch (attribute) {
	case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = (CUcontext)f.ctx; break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned int *)data = f.type; break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!f.host_accessible)
			return CUDA_ERROR_INVALID_VALUE;
		*(void **)data = (void *)(uintptr_t)ptr;
		break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = f.buffer_id; break;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(int *)data = f.managed; break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = f.device; break;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = f.base; break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = f.size; break;
	case CU_POINTER_ATTRIBUTE_MAPPED: *(int *)data = 1; break;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		*(unsigned int *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
		break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* Several attributes at once; an attribute that does not apply to the pointer reads as zero
 * bytes rather than failing the whole call (cuda.h), and an unknown pointer gives zeros too. */
SIM_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
					   void **data, CUdeviceptr ptr)
{
	SIM_REQUIRE_INIT();
	if (!numAttributes || !attributes || !data)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < numAttributes; i++) {
		if (!data[i])
			return CUDA_ERROR_INVALID_VALUE;
		CUresult r = cuPointerGetAttribute(data[i], attributes[i], ptr);
		if (r == CUDA_ERROR_INVALID_VALUE) {
			/* Size of the zero answer: pointers and 64-bit values, else 32 bits. */
			switch (attributes[i]) {
			case CU_POINTER_ATTRIBUTE_CONTEXT:
			case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
			case CU_POINTER_ATTRIBUTE_HOST_POINTER:
			case CU_POINTER_ATTRIBUTE_BUFFER_ID:
			case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
			case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
			case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
				memset(data[i], 0, 8);
				break;
			default:
				memset(data[i], 0, 4);
				break;
			}
		} else if (r) {
			return r;
		}
	}
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!pFlags || !p)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing((uintptr_t)p, 1);
	r = i >= 0 && sim.host[i].kind == SIM_HOST_ALLOC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*pFlags = sim.host[i].flags;
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

/* ---- API: managed-memory hints ------------------------------------------------------------------ */

static int sim_location_valid(CUmemLocation loc)
{
	if (loc.type == CU_MEM_LOCATION_TYPE_DEVICE)
		return sim_device_get(loc.id) != NULL;
	return loc.type == CU_MEM_LOCATION_TYPE_HOST || loc.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
	       loc.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

static int sim_range_is_managed(CUdeviceptr p, size_t bytes)
{
	pthread_mutex_lock(&sim.mem_lock);
	long i = sim_host_containing(p, bytes);
	int managed = bytes && i >= 0 && sim.host[i].kind == SIM_HOST_MANAGED;
	pthread_mutex_unlock(&sim.mem_lock);
	return managed;
}

/* Managed memory is host memory here: a prefetch has nothing to move, but it is still an
 * operation in stream order. */
static CUresult sim_prefetch(CUdeviceptr p, size_t count, CUmemLocation loc, unsigned flags,
			     CUstream h, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (flags || !sim_location_valid(loc) || !sim_range_is_managed(p, count))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w = {.kind = SIM_OP_MARKER};
	return sim_submit(s, &w);
}

SIM_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream)
{
	return sim_prefetch(devPtr, count, location, flags, hStream, 0);
}

SIM_EXPORT CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream)
{
	return sim_prefetch(devPtr, count, location, flags, hStream, 1);
}

SIM_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)
{
	SIM_REQUIRE_INIT();
	if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
		return CUDA_ERROR_INVALID_VALUE;
	int needs_location = advice != CU_MEM_ADVISE_SET_READ_MOSTLY && advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY;
	if ((needs_location && !sim_location_valid(location)) || !sim_range_is_managed(devPtr, count))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* ---- API: stream-ordered allocation ------------------------------------------------------------ */

static struct sim_pool *sim_pool_get(CUmemoryPool h)
{
	return sim_obj_is(h, SIM_KIND_POOL) ? (struct sim_pool *)h : NULL;
}

static struct sim_pool *sim_default_pool(struct sim_device *d)
{
	pthread_mutex_lock(&sim.lock);
	if (!d->default_pool && (d->default_pool = sim_obj_new(SIM_KIND_POOL, sizeof(struct sim_pool))))
		d->default_pool->dev = d;
	if (!d->current_pool)
		d->current_pool = d->default_pool;
	struct sim_pool *p = d->default_pool;
	pthread_mutex_unlock(&sim.lock);
	return p;
}

SIM_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pool_out)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_pool *p = sim_default_pool(d);
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pool_out = (CUmemoryPool)p;
	return CUDA_SUCCESS;
}

/* The pool cuMemAllocAsync uses: the default one unless cuDeviceSetMemPool chose another. */
SIM_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_default_pool(d))
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim.lock);
	*pool = (CUmemoryPool)d->current_pool;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool h)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	struct sim_pool *p = sim_pool_get(h);
	if (!p || p->dev != d)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_default_pool(d))
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim.lock);
	d->current_pool = p;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

/* Get (set == 0) or set one pool attribute. */
static CUresult sim_pool_attribute(CUmemoryPool h, CUmemPool_attribute attr, void *value, int set)
{
	SIM_REQUIRE_INIT();
	struct sim_pool *p = sim_pool_get(h);
	if (!p || !value)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_SUCCESS;
	int *flag = NULL;
	cuuint64_t *u64 = value;
	pthread_mutex_lock(&sim.mem_lock);
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		flag = &p->reuse[attr - 1];
		if (set)
			*flag = *(int *)value != 0;
		else
			*(int *)value = *flag;
		break;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		if (set)
			p->threshold = *u64;
		else
			*u64 = p->threshold;
		break;
	/* Freed blocks go straight back to the device, so reserved equals used. */
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
		if (set)
			r = CUDA_ERROR_INVALID_VALUE;
		else
			*u64 = p->used;
		break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		/* Only resetting the watermark to zero is allowed; it restarts from current use. */
		if (set && *u64 != 0)
			r = CUDA_ERROR_INVALID_VALUE;
		else if (set)
			p->used_high = p->used;
		else
			*u64 = p->used_high;
		break;
	default:
		r = CUDA_ERROR_INVALID_VALUE;
		break;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool h, CUmemPool_attribute attr, void *value)
{
	return sim_pool_attribute(h, attr, value, 1);
}

SIM_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool h, CUmemPool_attribute attr, void *value)
{
	return sim_pool_attribute(h, attr, value, 0);
}

SIM_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool h, size_t minBytesToKeep)
{
	SIM_REQUIRE_INIT();
	return sim_pool_get(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; /* nothing is cached */
}

SIM_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
	SIM_REQUIRE_INIT();
	if (!pool || !poolProps || poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_device *d = sim_device_get(poolProps->location.id);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	struct sim_pool *p = sim_obj_new(SIM_KIND_POOL, sizeof(*p));
	if (!p)
		return CUDA_ERROR_OUT_OF_MEMORY;
	p->dev = d;
	*pool = (CUmemoryPool)p;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool h)
{
	SIM_REQUIRE_INIT();
	struct sim_pool *p = sim_pool_get(h);
	if (!p || p == p->dev->default_pool)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (p->dev->current_pool == p)
		p->dev->current_pool = p->dev->default_pool;
	pthread_mutex_unlock(&sim.lock);
	pthread_mutex_lock(&sim.mem_lock);
	sim_range_forget_pool(p->dev->range_root, p);
	pthread_mutex_unlock(&sim.mem_lock);
	sim_obj_free(p, SIM_KIND_POOL);
	return CUDA_SUCCESS;
}

static CUresult sim_alloc_async(CUdeviceptr *dptr, size_t bytes, struct sim_pool *pool, CUstream h,
				int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_ALLOC_ASYNC);
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (!dptr || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (pool && pool->dev != s->ctx->dev)
		return CUDA_ERROR_INVALID_VALUE;
	if (!pool) {
		if (!sim_default_pool(s->ctx->dev))
			return CUDA_ERROR_OUT_OF_MEMORY;
		pthread_mutex_lock(&sim.lock);
		pool = s->ctx->dev->current_pool;
		pthread_mutex_unlock(&sim.lock);
	}
	/* Graph memory nodes are not simulated (docs/SIMULATOR.md). */
	if (atomic_load(&s->capturing))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	/* The address is known at once; the memory is usable in stream order. */
	return sim_mem_alloc_from(s->ctx, bytes, SIM_RANGE_ASYNC, pool, dptr);
}

SIM_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) { return sim_alloc_async(dptr, bytesize, NULL, hStream, 0); }
SIM_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) { return sim_alloc_async(dptr, bytesize, NULL, hStream, 1); }

static CUresult sim_alloc_from_pool(CUdeviceptr *dptr, size_t bytes, CUmemoryPool h, CUstream s, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_pool *pool = sim_pool_get(h);
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_alloc_async(dptr, bytes, pool, s, per_thread);
}
SIM_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) { return sim_alloc_from_pool(dptr, bytesize, pool, hStream, 0); }
SIM_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) { return sim_alloc_from_pool(dptr, bytesize, pool, hStream, 1); }

static CUresult sim_free_async(CUdeviceptr dptr, CUstream h, int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_FREE_ASYNC);
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (atomic_load(&s->capturing))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	struct sim_device *dev = sim_mem_device_of(dptr);
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *rg = sim_range_exact(dev, dptr);
	int ok = rg && !rg->freeing && (rg->kind == SIM_RANGE_ASYNC || rg->kind == SIM_RANGE_ALLOC);
	if (ok)
		rg->freeing = 1;
	pthread_mutex_unlock(&sim.mem_lock);
	if (!ok)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w = {.kind = SIM_OP_FREE, .u.free = {dptr, dev}};
	return sim_submit(s, &w);
}
SIM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) { return sim_free_async(dptr, hStream, 0); }
SIM_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) { return sim_free_async(dptr, hStream, 1); }

/* ---- API: virtual memory management -------------------------------------------------------------- */

static struct sim_device *sim_prop_device(const CUmemAllocationProp *prop)
{
	if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return NULL;
	return sim_device_get(prop->location.id);
}

SIM_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
						  CUmemAllocationGranularity_flags option)
{
	SIM_REQUIRE_INIT();
	if (!granularity || !sim_prop_device(prop) ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = SIM_GRANULARITY;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				const CUmemAllocationProp *prop, unsigned long long flags)
{
	SIM_REQUIRE_INIT();
	struct sim_device *dev = sim_prop_device(prop);
	if (!handle || !dev || flags || !size || size % SIM_GRANULARITY)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	int room = dev->used + size <= dev->total_mem;
	if (room)
		dev->used += size;
	pthread_mutex_unlock(&sim.mem_lock);
	if (!room)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct sim_phys *ph = sim_obj_new(SIM_KIND_PHYS, sizeof(*ph));
	if (!ph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ph->dev = dev;
	ph->size = size;
	ph->handle_types = prop->requestedHandleTypes;
	ph->imported = 0;
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)ph;
	return CUDA_SUCCESS;
}

static void sim_phys_put_locked(struct sim_phys *ph)
{
	if (ph->released && ph->maps == 0) {
		if (!ph->imported)
			ph->dev->used -= ph->size;
		sim_obj_free(ph, SIM_KIND_PHYS);
	}
}

SIM_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	SIM_REQUIRE_INIT();
	struct sim_phys *ph = (struct sim_phys *)(uintptr_t)handle;
	if (!sim_obj_is(ph, SIM_KIND_PHYS) || ph->released)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	ph->released = 1;
	sim_phys_put_locked(ph);
	pthread_mutex_unlock(&sim.mem_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
					CUdeviceptr addr, unsigned long long flags)
{
	SIM_REQUIRE_INIT();
	if (!ptr || !size || size % SIM_GRANULARITY || flags || (alignment & (alignment - 1)))
		return CUDA_ERROR_INVALID_VALUE;
	if (alignment < SIM_GRANULARITY)
		alignment = SIM_GRANULARITY;
	/* Reservations are process-wide; they come from the device 0 window (all windows are one
	 * unified address space as far as callers can tell). */
	struct sim_device *dev = addr ? sim_mem_device_of(addr) : NULL;
	if (!dev)
		dev = &sim.devices[0];
	struct sim_range *r;
	pthread_mutex_lock(&sim.mem_lock);
	CUresult res = sim_range_insert_locked(dev, size, alignment, addr, &r);
	if (res == CUDA_SUCCESS) {
		r->size = size;
		r->kind = SIM_RANGE_RESERVE;
		*ptr = r->base;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return res;
}

SIM_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	SIM_REQUIRE_INIT();
	struct sim_device *dev = sim_mem_device_of(ptr);
	if (!dev)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *rg = sim_range_exact(dev, ptr);
	if (rg && rg->kind == SIM_RANGE_RESERVE && rg->size == size && rg->nmaps == 0) {
		sim_range_remove_locked(dev, rg);
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

/* The reservation that contains all of [ptr, ptr+size), or NULL.  mem_lock held. */
static struct sim_range *sim_reservation_of(CUdeviceptr ptr, size_t size)
{
	struct sim_device *dev = sim_mem_device_of(ptr);
	if (!dev)
		return NULL;
	struct sim_range *r = sim_range_find(dev, ptr);
	if (!r)
		return NULL;
	if (r->kind != SIM_RANGE_RESERVE || ptr + size > r->base + r->size || ptr + size < ptr)
		return NULL;
	return r;
}

SIM_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			     CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	SIM_REQUIRE_INIT();
	struct sim_phys *ph = (struct sim_phys *)(uintptr_t)handle;
	if (!size || size % SIM_GRANULARITY || ptr % SIM_GRANULARITY || offset % SIM_GRANULARITY || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_obj_is(ph, SIM_KIND_PHYS) || ph->released)
		return CUDA_ERROR_INVALID_HANDLE;
	if (offset + size > ph->size || offset + size < offset)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *res = sim_reservation_of(ptr, size);
	int overlap = 0;
	for (size_t m = 0; res && m < res->nmaps; m++)
		if (ptr < res->maps[m].base + res->maps[m].size && res->maps[m].base < ptr + size)
			overlap = 1;
	if (res && !overlap) {
		struct sim_map *n = realloc(res->maps, (res->nmaps + 1) * sizeof(*n));
		if (n)
			res->maps = n;
		if (n && sim_shadow_commit(sim_mem_device_of(ptr), ptr, size) == 0) {
			res->maps[res->nmaps++] = (struct sim_map){ptr, size, ph, 0};
			ph->maps++;
			r = CUDA_SUCCESS;
		} else {
			r = CUDA_ERROR_OUT_OF_MEMORY;
		}
	} else if (overlap) {
		r = CUDA_ERROR_ALREADY_MAPPED;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	SIM_REQUIRE_INIT();
	if (!size)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *res = sim_reservation_of(ptr, size);
	struct sim_device *dev = sim_mem_device_of(ptr);
	for (size_t m = 0; res && m < res->nmaps;) {
		struct sim_map *map = &res->maps[m];
		if (map->base >= ptr && map->base + map->size <= ptr + size) {
			struct sim_phys *ph = map->phys;
			sim_shadow_discard(dev, map->base, map->size);
			*map = res->maps[--res->nmaps];
			ph->maps--;
			sim_phys_put_locked(ph);
			r = CUDA_SUCCESS;
		} else {
			m++;
		}
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

SIM_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				   size_t count)
{
	SIM_REQUIRE_INIT();
	if (!size || !desc || !count)
		return CUDA_ERROR_INVALID_VALUE;
	unsigned access = 0;
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
		    !sim_device_get(desc[i].location.id) ||
		    (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
		     desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		     desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
			return CUDA_ERROR_INVALID_VALUE;
		access |= desc[i].flags;
	}
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *res = sim_reservation_of(ptr, size);
	/* Every byte of the range must be mapped. */
	size_t covered = 0;
	for (size_t m = 0; res && m < res->nmaps; m++)
		if (res->maps[m].base >= ptr && res->maps[m].base + res->maps[m].size <= ptr + size)
			covered += res->maps[m].size;
	if (res && covered == size) {
		for (size_t m = 0; m < res->nmaps; m++)
			if (res->maps[m].base >= ptr && res->maps[m].base + res->maps[m].size <= ptr + size)
				res->maps[m].access = access;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	return r;
}

/* ---- sharing memory between processes: CUDA IPC and VMM shareable handles ------------------ */

/* What a CUipcMemHandle, a shareable file or a fabric handle carries: the exporter, its device
 * and the allocation.  The importing process gets memory of the same size on that device (each
 * process has its own bytes: the simulator shares no device memory between processes). */
#define SIM_SHARE_IPC "SIMIPC01"
#define SIM_SHARE_VMM "SIMVMM01"
struct sim_share {
	char magic[8];
	int32_t pid;
	int32_t device;
	uint64_t size;
	uint64_t base;            /* IPC: the exporter's address; VMM: its handle */
};
_Static_assert(sizeof(struct sim_share) <= sizeof(CUipcMemHandle), "fits an IPC handle");
_Static_assert(sizeof(struct sim_share) <= sizeof(CUmemFabricHandle), "fits a fabric handle");

/* IPC handles this process opened (mem_lock). */
static struct sim_opened {
	int32_t pid;
	uint64_t base;            /* the exporter's */
	CUdeviceptr local;
	struct sim_device *dev;
	unsigned refs;
} *sim_opened;
static size_t sim_nopened;

SIM_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_device *dev = sim_mem_device_of(dptr);
	struct sim_share sh = { .pid = getpid() };
	r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_range *rg = dev ? sim_range_exact(dev, dptr) : NULL;
	/* The base of a cuMemAlloc allocation, as documented. */
	if (rg && rg->kind == SIM_RANGE_ALLOC) {
		memcpy(sh.magic, SIM_SHARE_IPC, 8);
		sh.device = dev->ordinal;
		sh.size = rg->size;
		sh.base = dptr;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.mem_lock);
	if (r == CUDA_SUCCESS) {
		memset(pHandle, 0, sizeof *pHandle);
		memcpy(pHandle->reserved, &sh, sizeof sh);
	}
	return r;
}

SIM_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	struct sim_share sh;
	memcpy(&sh, handle.reserved, sizeof sh);
	if (!pdptr || (Flags & ~CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
		return CUDA_ERROR_INVALID_VALUE;
	if (memcmp(sh.magic, SIM_SHARE_IPC, 8) || !sh.size)
		return CUDA_ERROR_INVALID_HANDLE;
	/* "by one CUcontext per CUdevice per other process": never the exporter itself. */
	if (sh.pid == getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	if (kill(sh.pid, 0) != 0 && errno == ESRCH)
		return CUDA_ERROR_MAP_FAILED; /* the exporter is gone, and its memory with it */
	pthread_mutex_lock(&sim.mem_lock);
	for (size_t i = 0; i < sim_nopened; i++)
		if (sim_opened[i].refs && sim_opened[i].pid == sh.pid && sim_opened[i].base == sh.base) {
			sim_opened[i].refs++;
			*pdptr = sim_opened[i].local;
			pthread_mutex_unlock(&sim.mem_lock);
			return CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&sim.mem_lock);
	CUdeviceptr local;
	if ((r = sim_mem_alloc(ctx, sh.size, SIM_RANGE_IPC, &local)))
		return r;
	pthread_mutex_lock(&sim.mem_lock);
	struct sim_opened *n = realloc(sim_opened, (sim_nopened + 1) * sizeof *n);
	if (n) {
		sim_opened = n;
		sim_opened[sim_nopened++] = (struct sim_opened){ sh.pid, sh.base, local, ctx->dev, 1 };
	}
	pthread_mutex_unlock(&sim.mem_lock);
	if (!n) {
		sim_mem_release(ctx->dev, local);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pdptr = local;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_mem_ctx(&ctx);
	if (r)
		return r;
	struct sim_device *dev = NULL;
	r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.mem_lock);
	for (size_t i = 0; i < sim_nopened; i++)
		if (sim_opened[i].refs && sim_opened[i].local == dptr) {
			if (--sim_opened[i].refs == 0)
				dev = sim_opened[i].dev;
			r = CUDA_SUCCESS;
			break;
		}
	pthread_mutex_unlock(&sim.mem_lock);
	if (dev)
		sim_mem_release(dev, dptr);
	return r;
}

SIM_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
							   CUmemGenericAllocationHandle handle)
{
	SIM_REQUIRE_INIT();
	struct sim_phys *ph = (struct sim_phys *)(uintptr_t)handle;
	if (!prop || !sim_obj_is(ph, SIM_KIND_PHYS) || ph->released)
		return CUDA_ERROR_INVALID_VALUE;
	memset(prop, 0, sizeof *prop);
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = ph->dev->ordinal;
	prop->requestedHandleTypes = (CUmemAllocationHandleType)ph->handle_types;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
						 CUmemAllocationHandleType handleType,
						 unsigned long long flags)
{
	SIM_REQUIRE_INIT();
	struct sim_phys *ph = (struct sim_phys *)(uintptr_t)handle;
	if (!shareableHandle || flags || !sim_obj_is(ph, SIM_KIND_PHYS) || ph->released)
		return CUDA_ERROR_INVALID_VALUE;
	if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
	    handleType != CU_MEM_HANDLE_TYPE_FABRIC)
		return CUDA_ERROR_NOT_SUPPORTED;
	/* Only a type the allocation was created for (requestedHandleTypes). */
	if (!(ph->handle_types & handleType))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_share sh = { .pid = getpid(), .device = ph->dev->ordinal, .size = ph->size,
				.base = handle };
	memcpy(sh.magic, SIM_SHARE_VMM, 8);
	if (handleType == CU_MEM_HANDLE_TYPE_FABRIC) {
		memset(shareableHandle, 0, sizeof(CUmemFabricHandle));
		memcpy(shareableHandle, &sh, sizeof sh);
		return CUDA_SUCCESS;
	}
	/* A file of its own, whose descriptor another process can receive (SCM_RIGHTS,
	 * pidfd_getfd, /proc/PID/fd). */
	int fd = memfd_create("cudasim-vmm", MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (pwrite(fd, &sh, sizeof sh, 0) != (ssize_t)sizeof sh) {
		close(fd);
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	*(int *)shareableHandle = fd;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
						   CUmemAllocationHandleType shHandleType)
{
	SIM_REQUIRE_INIT();
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_share sh;
	if (shHandleType == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		int fd = (int)(intptr_t)osHandle;
		if (pread(fd, &sh, sizeof sh, 0) != (ssize_t)sizeof sh)
			return CUDA_ERROR_INVALID_HANDLE;
	} else if (shHandleType == CU_MEM_HANDLE_TYPE_FABRIC) {
		if (!osHandle)
			return CUDA_ERROR_INVALID_VALUE;
		memcpy(&sh, osHandle, sizeof sh);
	} else {
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (memcmp(sh.magic, SIM_SHARE_VMM, 8) || !sh.size || sh.size % SIM_GRANULARITY)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_device *dev = sim_device_get(sh.device);
	if (!dev)
		dev = &sim.devices[0];
	struct sim_phys *ph = sim_obj_new(SIM_KIND_PHYS, sizeof(*ph));
	if (!ph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ph->dev = dev;
	ph->size = sh.size;
	ph->handle_types = shHandleType;
	ph->imported = 1;
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)ph;
	return CUDA_SUCCESS;
}
