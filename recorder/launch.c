/* SPDX-License-Identifier: MIT */
/*
 * Launches and breadcrumbs: the hot path.
 *
 * Every launch API (cuLaunchKernel, Ex, cooperative, host functions and callbacks, graph
 * launches, the legacy cuLaunch*) ends in ci_on_launch, which gives the launch its per-stream
 * sequence number, enqueues the breadcrumb, and publishes an entry in the launch ring with the
 * function, grid, block, stream, context, thread, time and the first bytes of the kernel's
 * parameters, laid out as the kernel sees them.
 *
 * Breadcrumbs (docs/RECORDER.md, "Breadcrumbs", "Breadcrumbs elsewhere"): right after a
 * launch the recorder enqueues cuStreamWriteValue64(stream, alias + 8 * crumb_slot,
 * stream_seq) into the same stream, so the GPU itself writes "launch N of this stream has
 * finished" into host memory inside the record.
 * After a fault, launches with stream_seq <= the breadcrumb finished, the next one was running
 * and the rest never started, with no CUDA call at analysis time.  The breadcrumb area is
 * registered once (cuMemHostRegister, PORTABLE | DEVICEMAP) when the first context launches;
 * devices without 64-bit stream memory operations get 32-bit writes into the low half.  While a
 * stream is capturing, the write would become a node of the captured graph, so it is skipped and
 * the stream says why (crumb_status, crumb_skipped).
 *
 * Cost rules: after the first launch of a thread, stream, context and function, this path takes
 * no lock, allocates nothing and makes no system call; its only driver calls are the breadcrumb
 * write, cuCtxGetCurrent for the NULL and per-thread streams, and cuStreamIsCapturing while some
 * capture is active in the process.  One locked instruction per launch (the exchange that
 * takes the ring slot, which the publishing protocol requires); the stream's number needs a
 * second one only on streams that several threads launch into (ci_stream_next_shared).  The
 * first launch of a second thread on a stream waits, bounded, for its first thread's update.
 */
#include <string.h>
#include <time.h>

#include "recorder.h"

/* ---------------------------------------------------------------------------------------- */
/* Breadcrumb registration, once per process and per context                                 */

enum { CI_REG_NONE, CI_REG_BUSY, CI_REG_DONE, CI_REG_FAILED };
static int ci_crumb_reg;           /* atomic */
static uint32_t ci_crumb_reg_ctx = CI_NONE; /* context slot that registered the area */
static CUresult ci_crumb_reg_error;

/* Register the breadcrumb area in context CTX (current or pushed).  Returns the status for
 * streams of that context. */
static uint32_t ci_crumbs_register(void)
{
	int expected = CI_REG_NONE;
	if (__atomic_compare_exchange_n(&ci_crumb_reg, &expected, CI_REG_BUSY, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		struct ci_sec *cs = ci_sec(CI_SEC_BREADCRUMBS);
		CUresult r = CI_REAL(cuMemHostRegister_v2, cs->base, cs->capacity * 8,
				     CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
		if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
			r = CUDA_SUCCESS;
		ci_crumb_reg_error = r;
		__atomic_store_n(&ci_crumb_reg, r == CUDA_SUCCESS ? CI_REG_DONE : CI_REG_FAILED,
				 __ATOMIC_RELEASE);
		if (r != CUDA_SUCCESS) {
			const char *name = "?";
			CI_REAL(cuGetErrorName, r, &name);
			ci_say("breadcrumbs are off: the driver refused to register the record's "
			       "breadcrumb page (%s)%s; launches are still recorded",
			       name, ci_rec.persistent ? " - a record on a disk file system cannot "
							 "be pinned, put CUDAINSPECT_DIR on a tmpfs"
						       : "");
		}
		return r == CUDA_SUCCESS ? CI_CRUMB_OK : CI_CRUMB_REGISTER_FAILED;
	}
	for (int i = 0; i < 1000000; i++) {
		int s = __atomic_load_n(&ci_crumb_reg, __ATOMIC_ACQUIRE);
		if (s == CI_REG_DONE)
			return CI_CRUMB_OK;
		if (s == CI_REG_FAILED)
			return CI_CRUMB_REGISTER_FAILED;
		CI_PAUSE();
	}
	return CI_CRUMB_REGISTER_FAILED;
}

/* One-time breadcrumb setup of context slot CTX: registration, device alias and width. */
static void ci_crumbs_ctx_setup(uint32_t ctx_slot)
{
	struct ci_ctx_priv *p = &ci_rec.ctxs[ctx_slot];
	uint32_t expected = 0;
	if (!__atomic_compare_exchange_n(&p->crumb_ready, &expected, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 1000000 && __atomic_load_n(&p->crumb_ready, __ATOMIC_ACQUIRE) == 1;
		     i++)
			CI_PAUSE();
		return;
	}
	struct ci_setup_scope sc;
	ci_setup_enter(&sc);
	/* The driver registers host memory in the current context: make it this one. */
	CUcontext cur = NULL, ctx = (CUcontext)p->handle;
	CI_REAL(cuCtxGetCurrent, &cur);
	bool pushed = cur != ctx && CI_REAL(cuCtxPushCurrent_v2, ctx) == CUDA_SUCCESS;
	uint32_t status = ci_crumbs_register();
	uint64_t alias = 0;
	if (status == CI_CRUMB_OK) {
		CUdeviceptr d = 0;
		if (CI_REAL(cuMemHostGetDevicePointer_v2, &d, ci_sec(CI_SEC_BREADCRUMBS)->base, 0) ==
			    CUDA_SUCCESS &&
		    d)
			alias = d;
		else
			status = CI_CRUMB_REGISTER_FAILED;
	}
	uint32_t width = ci_cfg.crumb_width;
	if (!width) {
		int can64 = 0;
		CUdevice dev = -1;
		CI_REAL(cuCtxGetDevice, &dev);
		if (CI_REAL(cuDeviceGetAttribute, &can64,
			    CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev) != CUDA_SUCCESS)
			can64 = 0;
		width = can64 ? 8 : 4;
	}
	if (width == 4)
		__atomic_store_n(&ci_rec.hdr->crumb_width, 4, __ATOMIC_RELAXED);
	if (pushed) {
		CUcontext popped;
		CI_REAL(cuCtxPopCurrent_v2, &popped);
	}
	if (status == CI_CRUMB_OK && ci_crumb_reg_ctx == CI_NONE)
		ci_crumb_reg_ctx = ctx_slot;
	p->crumb_width = width;
	__atomic_store_n(&p->crumb_status, status, __ATOMIC_RELAXED);
	__atomic_store_n(&p->crumb_alias, alias, __ATOMIC_RELEASE);
	__atomic_store_n(&p->crumb_ready, 2, __ATOMIC_RELEASE);
	ci_setup_leave(&sc);
}

/* A context went away: if it held the registration, every alias may be stale. */
void ci_crumbs_ctx_gone(uint32_t slot)
{
	if (slot != ci_crumb_reg_ctx)
		return;
	ci_crumb_reg_ctx = CI_NONE;
	__atomic_store_n(&ci_crumb_reg, CI_REG_NONE, __ATOMIC_RELEASE);
	struct ci_sec *s = ci_sec(CI_SEC_CONTEXTS);
	uint64_t n = __atomic_load_n(&s->dir->head, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < s->capacity; i++) {
		__atomic_store_n(&ci_rec.ctxs[i].crumb_alias, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&ci_rec.ctxs[i].crumb_ready, 0, __ATOMIC_RELEASE);
	}
}

/* Fork child: nothing is registered in the new record yet. */
void ci_crumbs_forget(void)
{
	ci_crumb_reg = CI_REG_NONE;
	ci_crumb_reg_ctx = CI_NONE;
}

/* A counter of one stream, which normally one thread launches into: a plain read-modify-write
 * (atomic load and store, no locked instruction); two threads racing on one stream may lose a
 * count, never tear it. */
static void ci_count_up(uint64_t *counter)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

static void ci_crumb_skip(struct ci_stream *s, uint32_t status)
{
	if (__atomic_load_n(&s->crumb_status, __ATOMIC_RELAXED) != status)
		__atomic_store_n(&s->crumb_status, status, __ATOMIC_RELAXED);
	ci_count_up(&s->crumb_skipped);
}

uint64_t ci_crumb_address(uint32_t ctx, uint32_t slot, uint32_t *width)
{
	if (ctx == CI_NONE || slot == CI_NONE)
		return 0;
	struct ci_ctx_priv *cp = &ci_rec.ctxs[ctx];
	if (CI_UNLIKELY(__atomic_load_n(&cp->crumb_ready, __ATOMIC_ACQUIRE) != 2))
		ci_crumbs_ctx_setup(ctx);
	uint64_t alias = __atomic_load_n(&cp->crumb_alias, __ATOMIC_ACQUIRE);
	*width = cp->crumb_width;
	return alias ? alias + 8ull * slot : 0;
}

/* The flags of every breadcrumb write: CUDAINSPECT_CRUMB_BARRIER=off asks for
 * CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER, which cuda.h says the v2 API does not support and the
 * H200's driver refuses; the first refusal switches to the default flags for good, says so once,
 * and the write is made again. */
static unsigned ci_crumb_wflags CI_HOT = ~0u; /* ~0: not yet chosen */

static unsigned ci_crumb_flags(void)
{
	unsigned f = __atomic_load_n(&ci_crumb_wflags, __ATOMIC_RELAXED);
	if (CI_UNLIKELY(f == ~0u)) {
		f = ci_cfg.crumb_barrier ? CU_STREAM_WRITE_VALUE_DEFAULT
					 : CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER;
		__atomic_store_n(&ci_crumb_wflags, f, __ATOMIC_RELAXED);
	}
	return f;
}

CUresult ci_crumb_write(uint64_t stream, uint64_t address, uint32_t width, uint64_t value)
{
	unsigned f = ci_crumb_flags();
	CUresult r = width == 4 ? CI_REAL(cuStreamWriteValue32_v2, (CUstream)stream, address,
					  (cuuint32_t)value, f)
				: CI_REAL(cuStreamWriteValue64_v2, (CUstream)stream, address, value, f);
	if (CI_UNLIKELY(r == CUDA_ERROR_INVALID_VALUE && f != CU_STREAM_WRITE_VALUE_DEFAULT)) {
		unsigned expected = f;
		if (__atomic_compare_exchange_n(&ci_crumb_wflags, &expected,
						CU_STREAM_WRITE_VALUE_DEFAULT, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			ci_say("CUDAINSPECT_CRUMB_BARRIER=off: the driver refuses breadcrumb writes "
			       "without a memory barrier (cuda.h: CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER "
			       "is not supported by the v2 API); breadcrumbs use the barrier");
		r = ci_crumb_write(stream, address, width, value);
	}
	return r;
}

/* Budget mode: a breadcrumb when the thread's share of time allows one.  Each write is timed;
 * its cost, smoothed over the thread's writes (clamped, so that a write preempted once does not
 * silence the thread), sets the interval after which the next one is allowed: cost / share.  The
 * allowance never accumulates beyond one interval, so after an idle spell the next two launches
 * get breadcrumbs and the rest are spaced again.  On the H200 (1.2 us a write, 0.25 %) that is
 * about one every 480 us; on the simulator without a cost model, every few microseconds. */
static void ci_crumb_spent(struct ci_tls *t, uint64_t start, uint64_t end)
{
	uint64_t cost = end > start ? end - start : 1;
	if (cost > CI_CRUMB_COST_MAX_NS)
		cost = CI_CRUMB_COST_MAX_NS;
	uint32_t avg = t->crumb_cost_ns ? (uint32_t)((7ull * t->crumb_cost_ns + cost) / 8)
					: (uint32_t)cost;
	t->crumb_cost_ns = avg ? avg : 1;
	uint64_t interval = (uint64_t)t->crumb_cost_ns * 1000000u / ci_cfg.crumb_budget_ppm;
	uint64_t from = t->crumb_ready_ns + interval < end ? end - interval : t->crumb_ready_ns;
	t->crumb_ready_ns = from + interval;
	__atomic_store_n(&ci_rec.hdr->crumb_cost_ns, t->crumb_cost_ns, __ATOMIC_RELAXED);
}

static bool ci_crumb_emit(struct ci_tls *t, struct ci_stream_priv *p, struct ci_stream *s,
			  uint64_t seq, uint64_t now);

/* After launch SEQ on stream SLOT: write the breadcrumb if the budget (or the cadence) says
 * so. */
static void ci_crumb_after(struct ci_tls *t, uint32_t slot, struct ci_stream *s, uint64_t seq,
			   uint64_t now, bool always, uint16_t *flags)
{
	struct ci_stream_priv *p = &ci_rec.streams[slot];
	if (!ci_cfg.crumbs || s->crumb_slot == CI_NONE) {
		ci_count_up(&s->crumb_skipped);
		return;
	}
	bool budget = ci_cfg.crumb_budget_ppm != 0;
	bool due;
	if (budget) {
		/* A stream's first launch always gets one (else its window would reach back to
		 * its start), and so does a host function (rare, dearer than a breadcrumb, and
		 * application code on the driver's thread: a crash there is placed exactly); after
		 * that, when the thread's budget allows, the next launch gets
		 * it unless it is on the stream the thread's last one went to and the thread has
		 * launched into another stream since: streams take turns. */
		if (always || !__atomic_load_n(&p->last_crumb_ns, __ATOMIC_RELAXED))
			due = true;
		else
			due = now >= t->crumb_ready_ns &&
			      !(slot == t->crumb_stream && t->crumb_other_stream);
		if (slot != t->crumb_stream)
			t->crumb_other_stream = 1;
	} else {
		due = ci_cfg.crumb_every == 1 ||
		      (ci_cfg.crumb_every && seq % ci_cfg.crumb_every == 0) ||
		      (ci_cfg.crumb_us && now - __atomic_load_n(&p->last_crumb_ns, __ATOMIC_RELAXED) >=
						  (uint64_t)ci_cfg.crumb_us * 1000);
	}
	if (!due)
		return;
	if (budget) {
		__atomic_store_n(&p->last_crumb_ns, now | 1, __ATOMIC_RELAXED); /* tried: never 0 */
		t->crumb_stream = slot;
		t->crumb_other_stream = 0;
	}
	if (ci_crumb_emit(t, p, s, seq, now))
		*flags |= CI_LAUNCH_CRUMB;
}

/* Enqueue the breadcrumb write of SEQ on stream S (private part P) now; true when it was
 * enqueued.  Budget mode charges its cost to thread T. */
static bool ci_crumb_emit(struct ci_tls *t, struct ci_stream_priv *p, struct ci_stream *s,
			  uint64_t seq, uint64_t now)
{
	bool budget = ci_cfg.crumb_budget_ppm != 0;
	if (p->ctx == CI_NONE) {
		ci_crumb_skip(s, CI_CRUMB_REGISTER_FAILED);
		return false;
	}
	struct ci_ctx_priv *cp = &ci_rec.ctxs[p->ctx];
	if (CI_UNLIKELY(__atomic_load_n(&cp->crumb_ready, __ATOMIC_ACQUIRE) != 2))
		ci_crumbs_ctx_setup(p->ctx);
	uint64_t alias = __atomic_load_n(&cp->crumb_alias, __ATOMIC_ACQUIRE);
	if (!alias) {
		uint32_t st = __atomic_load_n(&cp->crumb_status, __ATOMIC_RELAXED);
		ci_crumb_skip(s, st != CI_CRUMB_OK ? st : CI_CRUMB_REGISTER_FAILED);
		return false;
	}
	CUdeviceptr at = alias + 8ull * s->crumb_slot;
	uint64_t w0 = budget ? ci_now() : 0;
	CUresult r = ci_crumb_write(p->handle, at, cp->crumb_width, seq);
	if (budget)
		ci_crumb_spent(t, w0, ci_now());
	if (r != CUDA_SUCCESS) {
		if (r == CUDA_ERROR_NOT_SUPPORTED) {
			/* No stream memory operations on this device: stop trying in this context. */
			__atomic_store_n(&cp->crumb_status, CI_CRUMB_UNSUPPORTED, __ATOMIC_RELAXED);
			__atomic_store_n(&cp->crumb_alias, 0, __ATOMIC_RELEASE);
		}
		ci_crumb_skip(s, r == CUDA_ERROR_NOT_SUPPORTED ? CI_CRUMB_UNSUPPORTED
							  : CI_CRUMB_WRITE_FAILED);
		return false;
	}
	__atomic_store_n(&s->crumb_enqueued, seq, __ATOMIC_RELEASE);
	if (ci_cfg.crumb_us)
		__atomic_store_n(&p->last_crumb_ns, now, __ATOMIC_RELAXED);
	return true;
}

bool ci_crumb_allowed(uint64_t now)
{
	if (!ci_cfg.crumbs)
		return false;
	if (ci_cfg.crumb_budget_ppm)
		return now >= ci_thread()->crumb_ready_ns;
	return ci_cfg.crumb_every == 1;
}

bool ci_crumb_now(uint32_t slot, uint64_t value, uint64_t now)
{
	if (slot == CI_NONE || !ci_cfg.crumbs)
		return false;
	struct ci_stream *s = ci_entry(CI_SEC_STREAMS, slot);
	if (s->crumb_slot == CI_NONE)
		return false;
	struct ci_tls *t = ci_thread();
	struct ci_stream_priv *p = &ci_rec.streams[slot];
	if (ci_cfg.crumb_budget_ppm)
		__atomic_store_n(&p->last_crumb_ns, now | 1, __ATOMIC_RELAXED);
	return ci_crumb_emit(t, p, s, value, now);
}

/* ---------------------------------------------------------------------------------------- */
/* Per-stream launch numbers                                                                  */

/* Every launch on a stream gets the next number, also when several threads launch into it.  A
 * locked add costs as much as a third of the recorder's work per launch, and almost every
 * stream is launched into by one thread only: that thread (the owner, the first to launch) bumps
 * the number with a plain load and store, inside a window marked by owner_busy.  The first launch
 * from any other thread makes the stream shared for good: it swaps the owner for
 * CI_STREAM_SHARED, waits for a window in progress to close, and from then on every thread uses
 * the locked add.  This is Dekker's handshake: the owner stores owner_busy, then has a full
 * barrier (the locked exchange that takes its launch-ring slot, ci_launch_slot), then reads
 * owner; the other thread stores owner, has a full barrier, then reads owner_busy - so at least
 * one of them sees the other. */

/* The next number of stream S for a thread that does not own it (one-time setup: claiming or
 * sharing the stream, with a bounded wait). */
static __attribute__((noinline)) uint64_t ci_stream_next_shared(struct ci_stream_priv *p, struct ci_stream *s,
								 uint32_t tid)
{
	uint32_t owner = __atomic_load_n(&p->owner, __ATOMIC_ACQUIRE);
	while (owner != CI_STREAM_SHARED && owner != tid) {
		/* Unowned: claim it (this launch still takes the locked add: the claim came after
		 * the barrier).  Owned by another thread: share it. */
		uint32_t want = owner ? CI_STREAM_SHARED : tid;
		if (!__atomic_compare_exchange_n(&p->owner, &owner, want, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_ACQUIRE))
			continue;
		if (want == CI_STREAM_SHARED) {
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			for (int i = 0; i < 100000 && __atomic_load_n(&p->owner_busy, __ATOMIC_ACQUIRE);
			     i++) {
				if (i < 1000) {
					CI_PAUSE();
				} else {
					struct timespec us = { 0, 10000 };
					nanosleep(&us, NULL);
				}
			}
		}
		break;
	}
	return __atomic_add_fetch(&s->launches, 1, __ATOMIC_RELAXED);
}

uint64_t ci_stream_take(uint32_t slot)
{
	struct ci_stream_priv *p = &ci_rec.streams[slot];
	struct ci_stream *s = ci_entry(CI_SEC_STREAMS, slot);
	uint32_t tid = ci_thread()->tid;
	uint32_t owner = __atomic_load_n(&p->owner, __ATOMIC_ACQUIRE);
	/* A locked add is safe beside the owner's plain updates only when this thread is the
	 * owner or the stream is shared already; anything else shares it first. */
	if (owner == tid || owner == CI_STREAM_SHARED)
		return __atomic_add_fetch(&s->launches, 1, __ATOMIC_RELAXED);
	return ci_stream_next_shared(p, s, tid);
}

/* ---------------------------------------------------------------------------------------- */
/* The launch ring                                                                            */

#define CI_CHUNK_MAX 64

/* The next launch-ring slot of this thread.  A thread that launches often claims indices in
 * chunks (up to 64, and at most 1/64 of the ring, so that many threads' chunks rarely overlap
 * in a small ring) so that threads do not contend on the shared head: with 8 threads on 2
 * CPUs, chunks of 16 cost 11 ns more per launch than chunks of 64 (docs/PERFORMANCE.md).  A
 * chunk not used up within a millisecond is dropped, so a slow thread never holds old indices
 * that would overwrite newer entries later. */
static struct ci_launch *ci_launch_slot(struct ci_tls *t, uint64_t now, uint64_t *seq)
{
	struct ci_sec *s = ci_sec(CI_SEC_LAUNCHES);
	if (CI_UNLIKELY(t->lnext >= t->lend || now - t->lchunk_ns > CI_LAUNCH_CHUNK_NS)) {
		uint32_t chunk = 1;
		if (t->lend && t->lnext >= t->lend && now - t->lchunk_ns <= CI_LAUNCH_CHUNK_NS)
			chunk = t->chunk * 2 > CI_CHUNK_MAX ? CI_CHUNK_MAX : t->chunk * 2;
		if (CI_UNLIKELY(chunk > 1 && chunk > s->capacity / 64))
			chunk = s->capacity / 64 > 1 ? (uint32_t)(s->capacity / 64) : 1;
		t->chunk = chunk;
		t->lnext = __atomic_fetch_add(&s->dir->head, chunk, __ATOMIC_RELAXED);
		t->lend = t->lnext + chunk;
		t->lslot = t->lnext % s->capacity; /* one division per chunk */
		t->lchunk_ns = now;
	}
	uint64_t idx = t->lnext++;
	uint64_t slot = t->lslot;
	t->lslot = slot + 1 == s->capacity ? 0 : slot + 1;
	struct ci_launch *e = (struct ci_launch *)(s->base + slot * sizeof *e);
	if (!ci_entry_begin(&e->seq)) {
		ci_count_dropped(CI_SEC_LAUNCHES);
		return NULL;
	}
	*seq = idx + 1;
	return e;
}

/* Ask for the lines of this thread's next ring entry, for writing, once this launch is done: a
 * ring entry is written once per lap of a ring of megabytes, so its lines come from far away,
 * and the exchange that takes the slot (ci_entry_begin) waits for its first one.  Only within
 * the chunk (the next slot after it is not known yet); a hint, never a fault. */
static inline void ci_launch_prefetch_next(const struct ci_tls *t)
{
	if (CI_UNLIKELY(t->lnext >= t->lend))
		return;
	const uint8_t *next = ci_sec(CI_SEC_LAUNCHES)->base + t->lslot * sizeof(struct ci_launch);
	_Static_assert(sizeof(struct ci_launch) % 64 == 0, "ring entries are whole cache lines");
#pragma GCC unroll 8
	for (unsigned off = 0; off < sizeof(struct ci_launch); off += 64) {
#if defined(__x86_64__)
		/* prefetchw (a no-op before Broadwell); __builtin_prefetch would emit a read. */
		__asm__ volatile("prefetchw %0" : : "m"(next[off]));
#else
		__builtin_prefetch(next + off, 1, 3);
#endif
	}
}

void ci_launch_plan(uint32_t slot, const struct ci_function *fn)
{
	struct ci_func_priv *p = &ci_rec.funcs[slot];
	memset(p, 0, sizeof *p);
	p->gaps = CI_PLAN_GAPS_MANY; /* no plan: ci_params_copy clears */
	if (!fn->params_known)
		return;
	uint32_t max = ci_cfg.param_bytes, n = fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX;
	uint32_t i = 0, len = 0;
	uint64_t covered[CI_LAUNCH_PARAM_BYTES / 64] = { 0 }; /* a bit per byte */
	for (; i < n; i++) {
		uint32_t off = fn->param_offset[i], size = fn->param_size[i];
		if (off + size > max)
			break;
		p->off[i] = (uint8_t)off;
		p->size[i] = (uint8_t)size;
		if (off + size > len)
			len = off + size;
		for (uint32_t b = off; b < off + size; b++)
			covered[b / 64] |= 1ull << (b % 64);
	}
	p->n = (uint8_t)i;
	p->len = (uint8_t)len;
	p->cut = i < fn->nparams ? CI_LAUNCH_PARAMS_CUT : 0;
	/* The padding between parameters, as runs the copy zeroes with one 16-byte store each. */
	uint32_t gaps = 0;
	for (uint32_t b = 0; b < len && gaps != CI_PLAN_GAPS_MANY;) {
		if (covered[b / 64] >> (b % 64) & 1) {
			b++;
			continue;
		}
		uint32_t end = b;
		while (end < len && !(covered[end / 64] >> (end % 64) & 1))
			end++;
		if (gaps == CI_PLAN_GAPS || end - b > 16 || b + 16 > CI_LAUNCH_PARAM_BYTES) {
			gaps = CI_PLAN_GAPS_MANY;
		} else {
			p->gap_off[gaps++] = (uint8_t)b;
		}
		b = end;
	}
	/* No parameter bytes: ci_params_copy records none and leaves the flags alone. */
	p->gaps = max ? (uint8_t)gaps : CI_PLAN_GAPS_MANY;
	p->known = 1;
}

/* Zero the parameter bytes an older entry left; vector stores, not a `rep stos`, which costs
 * more than the rest of the copy at this size. */
static void ci_params_clear(uint8_t *out)
{
	typedef uint64_t ci_v16 __attribute__((vector_size(16), aligned(8), may_alias));
	_Static_assert(CI_LAUNCH_PARAM_BYTES == 8 * sizeof(ci_v16), "eight stores clear the params");
	ci_v16 *v = (ci_v16 *)out, z = { 0, 0 };
	v[0] = z, v[1] = z, v[2] = z, v[3] = z, v[4] = z, v[5] = z, v[6] = z, v[7] = z;
}

/* The copy along a plan (FP known): each parameter from its own pointer. */
static inline void ci_params_planned(uint8_t *out, const struct ci_func_priv *fp, void **params)
{
	/* Locals: the byte stores below may alias the plan, which would be reloaded after each. */
	uint32_t n = fp->n;
	const uint8_t *offs = fp->off, *sizes = fp->size;
	/* Zero the padding first (a store of 16 that runs into the next parameters, which are
	 * copied after it); with CI_PLAN_GAPS_MANY the caller cleared everything. */
	if (CI_UNLIKELY(fp->gaps) && fp->gaps != CI_PLAN_GAPS_MANY) {
		typedef uint64_t ci_v16 __attribute__((vector_size(16), aligned(1), may_alias));
		uint32_t gaps = fp->gaps;
		uint8_t gap_off[CI_PLAN_GAPS];
		memcpy(gap_off, fp->gap_off, sizeof gap_off);
		for (uint32_t g = 0; g < gaps; g++)
			*(ci_v16 *)(out + gap_off[g]) = (ci_v16){ 0, 0 };
	}
	for (uint32_t i = 0; i < n; i++) {
		const void *src = params[i];
		uint8_t *dst = out + offs[i];
		uint32_t size = sizes[i];
		if (CI_UNLIKELY(!src))
			memset(dst, 0, size); /* not skipped: the bytes may be an older entry's */
		else if (size == 8) /* the usual sizes without a call into memcpy */
			memcpy(dst, src, 8);
		else if (size == 4)
			memcpy(dst, src, 4);
		else
			memcpy(dst, src, size);
	}
}

/* Whether the copy along plan FP writes every byte an older entry of OLD_LEN bytes left: the
 * bytes past an entry's param_len are zero (ci_params_copy's promise), so a plan at least as
 * long that zeroes its own padding needs no clearing first. */
static inline bool ci_params_cover(const struct ci_func_priv *fp, uint32_t old_len)
{
	return fp->gaps != CI_PLAN_GAPS_MANY && old_len <= fp->len; /* gaps known: known too */
}

/* Copy the kernel's parameters as the kernel sees them (the function's plan, from the offsets
 * cuFuncGetParamInfo gave), or the packed buffer passed through `extra`. */
uint16_t ci_params_copy(uint8_t *out, uint32_t old_len, const struct ci_func_priv *fp,
			void **params, void **extra, uint16_t *flags)
{
	uint32_t max = ci_cfg.param_bytes;
	if (!max)
		return 0; /* every entry's param_len is 0 and its bytes zero */
	bool planned = params && fp && fp->known;
	if (old_len && (!planned || !ci_params_cover(fp, old_len)))
		ci_params_clear(out); /* past param_len all is zero already */
	if (planned) {
		ci_params_planned(out, fp, params);
		*flags |= fp->cut;
		return fp->len;
	}
	if (extra) {
		const void *buf = NULL;
		size_t size = 0;
		for (int i = 0; i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				buf = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
				size = *(const size_t *)extra[i + 1];
		}
		if (buf && size) {
			*flags |= CI_LAUNCH_PARAMS_EXTRA;
			if (size > max) {
				*flags |= CI_LAUNCH_PARAMS_CUT;
				size = max;
			}
			memcpy(out, buf, size);
			return (uint16_t)size;
		}
	}
	return 0;
}

/* A failed launch records no parameters (its pointers may be garbage): no bytes past
 * param_len 0, as ci_params_copy promises. */
static __attribute__((cold, noinline)) void ci_launch_failed_params(struct ci_launch *e,
								    uint32_t old_len)
{
	if (old_len)
		ci_params_clear(e->params);
	e->param_len = 0;
}

/* Whether launch A on stream SSLOT (S) went into a stream capture: then it is recorded into the
 * graph, not run now, and gets no sequence number and no breadcrumb.  Out of the launch's way
 * (the code of a launch that no capture is under stays in fewer cache lines). */
static __attribute__((noinline, cold)) bool ci_launch_captured(struct ci_call *c, const struct ci_launch_args *a,
							       uint32_t sslot, struct ci_stream *s)
{
	struct ci_capture cap;
	if (!ci_capture_info(ci_rec.streams[sslot].handle, &cap))
		return false;
	ci_crumb_skip(s, CI_CRUMB_CAPTURING);
	ci_graph_captured(c, sslot, &cap,
			  &(struct ci_node_args){
				  .type = a->api == CI_LAUNCH_HOST_FUNC ? CI_NODE_HOST : CI_NODE_KERNEL,
				  .func = a->api == CI_LAUNCH_HOST_FUNC ? a->aux : a->func,
				  .grid = { a->grid[0], a->grid[1], a->grid[2] },
				  .block = { a->block[0], a->block[1], a->block[2] },
				  .shared = a->shared_mem,
				  .params = a->params,
				  .extra = a->extra });
	return true;
}

/* Record a launch (of any api: kernels, host functions, graph replays). */
static void ci_launch_record(struct ci_call *c, CUresult r, struct ci_launch_args *a)
{
	struct ci_tls *t = ci_thread();
	/* The last function and stream this thread launched, cached until some stream, context
	 * or module goes away (their handles may then be reused). */
	uint32_t epoch = __atomic_load_n(&ci_object_epoch, __ATOMIC_ACQUIRE);
	if (CI_UNLIKELY(t->cache_epoch != epoch)) {
		t->cache_epoch = epoch;
		t->last_func = t->last_stream = 0;
	}
	uint32_t fslot = CI_NONE, sslot;
	if (CI_LIKELY(a->func)) {
		if (CI_LIKELY(a->func == t->last_func)) {
			fslot = t->last_fslot;
		} else if (r != CUDA_SUCCESS) {
			/* Maybe not a function at all: look it up, ask the driver nothing. */
			fslot = ci_map_get(&ci_rec.func_map, a->func);
		} else {
			fslot = ci_function_slot(a->func);
			t->last_func = fslot != CI_NONE ? a->func : 0;
			t->last_fslot = fslot;
		}
	}
	uint64_t sh = CI_U64(a->stream);
	if (CI_LIKELY(sh > (uint64_t)(uintptr_t)CU_STREAM_PER_THREAD && sh == t->last_stream)) {
		sslot = t->last_sslot;
	} else {
		sslot = ci_stream_slot(a->stream, c);
		if (sh > (uint64_t)(uintptr_t)CU_STREAM_PER_THREAD && sslot != CI_NONE) {
			t->last_stream = sh;
			t->last_sslot = sslot;
		}
	}
	struct ci_stream *s = sslot != CI_NONE ? ci_entry(CI_SEC_STREAMS, sslot) : NULL;
	c->stream = sslot;
	c->ctx = s ? s->ctx : CI_NONE;
	uint16_t flags = a->flags | (c->flags & CI_F_PTSZ ? CI_LAUNCH_PTSZ : 0) |
			 (c->flags & CI_F_TIME_SHARED ? CI_LAUNCH_TIME_SHARED : 0);
	bool numbered = false;
	if (CI_UNLIKELY(r != CUDA_SUCCESS)) {
		flags |= CI_LAUNCH_FAILED;
	} else if (CI_LIKELY(s)) {
		if (CI_UNLIKELY(__atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0) &&
		    ci_launch_captured(c, a, sslot, s))
			flags |= CI_LAUNCH_CAPTURED;
		else
			numbered = true;
	}
	/* Take the ring slot first: its locked exchange is the owner's barrier (above). */
	struct ci_stream_priv *p = numbered ? &ci_rec.streams[sslot] : NULL;
	bool owned = p && __atomic_load_n(&p->owner, __ATOMIC_RELAXED) == t->tid;
	if (CI_LIKELY(owned))
		__atomic_store_n(&p->owner_busy, 1, __ATOMIC_RELAXED);
	uint64_t seq;
	struct ci_launch *e = ci_launch_slot(t, c->t0, &seq);
	uint64_t stream_seq = 0;
	if (CI_LIKELY(owned)) {
#if !defined(__x86_64__) && !defined(__i386__)
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* x86: the exchange was one */
#endif
		if (CI_LIKELY(__atomic_load_n(&p->owner, __ATOMIC_RELAXED) == t->tid)) {
			stream_seq = __atomic_load_n(&s->launches, __ATOMIC_RELAXED) + 1;
			__atomic_store_n(&s->launches, stream_seq, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&p->owner_busy, 0, __ATOMIC_RELEASE);
	}
	if (CI_LIKELY(numbered)) {
		if (CI_UNLIKELY(!stream_seq))
			stream_seq = ci_stream_next_shared(p, s, t->tid);
		ci_crumb_after(t, sslot, s, stream_seq, c->t0, a->api == CI_LAUNCH_HOST_FUNC, &flags);
	}
	uint32_t stack = ci_cfg.stack_mode != CI_STACKS_OFF ? ci_stack_of(c) : 0;
	if (CI_UNLIKELY(!e))
		return;
	e->time_ns = c->t0;
	e->stream_seq = stream_seq;
	e->aux = a->aux;
	e->function_handle = a->func;
	e->function = fslot;
	e->stream = sslot;
	e->ctx = c->ctx;
	e->tid = t->tid;
	memcpy(e->grid, a->grid, sizeof e->grid);
	memcpy(e->block, a->block, sizeof e->block);
	memcpy(e->cluster, a->cluster, sizeof e->cluster);
	e->shared_mem = a->shared_mem;
	e->stack = stack;
	e->result = (int32_t)r;
	e->api = a->api;
	e->priority = a->priority;
	e->exec = a->exec_slot;
	e->replay = a->replay;
	const struct ci_func_priv *fp = fslot != CI_NONE ? &ci_rec.funcs[fslot] : NULL;
	uint32_t old_len = e->param_len; /* what this slot's previous entry left in params[] */
	if (CI_LIKELY(r == CUDA_SUCCESS && fp && a->params && ci_params_cover(fp, old_len))) {
		/* The usual launch, inline: a kernel whose plan overwrites what the slot held. */
		ci_params_planned(e->params, fp, a->params);
		flags |= fp->cut;
		e->param_len = fp->len;
	} else if (r == CUDA_SUCCESS) {
		e->param_len = ci_params_copy(e->params, old_len, fp, a->params, a->extra, &flags);
	} else {
		ci_launch_failed_params(e, old_len);
	}
	e->flags = flags;
	ci_entry_publish(&e->seq, seq);
	ci_launch_prefetch_next(t);
}

void ci_on_launch(struct ci_call *c, CUresult r, struct ci_launch_args *a)
{
#ifdef CI_BENCH_INTERPOSED
	/* bench/recorder's libcudainspect-rec-interposed.so, never installed: what interposing
	 * the driver costs a launch by itself (the wrapper, its clock, errno), nothing recorded. */
	(void)c, (void)r, (void)a;
#else
	ci_launch_record(c, r, a);
#endif
}

void ci_on_launch_ex(struct ci_call *c, CUresult r, const CUlaunchConfig *config, CUfunction f,
		     void **params, void **extra)
{
	struct ci_launch_args a = { .func = CI_U64(f), .api = CI_LAUNCH_KERNEL_EX,
				    .params = params, .extra = extra };
	if (config) {
		a.grid[0] = config->gridDimX;
		a.grid[1] = config->gridDimY;
		a.grid[2] = config->gridDimZ;
		a.block[0] = config->blockDimX;
		a.block[1] = config->blockDimY;
		a.block[2] = config->blockDimZ;
		a.shared_mem = config->sharedMemBytes;
		a.stream = config->hStream;
		for (unsigned i = 0; config->attrs && i < config->numAttrs && i < 64; i++) {
			const CUlaunchAttribute *at = &config->attrs[i];
			switch (at->id) {
			case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
				if (at->value.cooperative)
					a.flags |= CI_LAUNCH_COOPERATIVE_ATTR;
				break;
			case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
				a.cluster[0] = at->value.clusterDim.x;
				a.cluster[1] = at->value.clusterDim.y;
				a.cluster[2] = at->value.clusterDim.z;
				break;
			case CU_LAUNCH_ATTRIBUTE_PRIORITY:
				a.priority = (int16_t)at->value.priority;
				break;
			case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
				if (at->value.programmaticStreamSerializationAllowed)
					a.flags |= CI_LAUNCH_PDL;
				break;
			case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
				a.flags |= CI_LAUNCH_PDL;
				break;
			default:
				break;
			}
		}
	}
	ci_on_launch(c, r, &a);
}

void ci_on_launch_cooperative_multi(struct ci_call *c, CUresult r,
				    const CUDA_LAUNCH_PARAMS *list, unsigned n)
{
	for (unsigned i = 0; list && i < n && i < 64; i++) {
		const CUDA_LAUNCH_PARAMS *p = &list[i];
		ci_on_launch(c, r,
			     CI_LAUNCH_ARGS(CI_LAUNCH_COOPERATIVE, p->function, p->gridDimX,
					    p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
					    p->blockDimZ, p->sharedMemBytes, p->hStream,
					    p->kernelParams, NULL, 0));
	}
}

void ci_on_graph_launch(struct ci_call *c, CUresult r, uint64_t exec, CUstream s)
{
	/* The launch entry says all there is: the exec's slot and replay number too (format
	 * 1.5: no graph-launch ring entry any more, a locked claim and 14 ns less per replay). */
	struct ci_launch_args *a = CI_LAUNCH_ARGS(CI_LAUNCH_GRAPH, 0, 0, 0, 0, 0, 0, 0, 0, s, NULL,
						  NULL, exec);
	a->replay = ci_graph_replay(r, exec, &a->exec_slot);
	ci_launch_record(c, r, a);
}
