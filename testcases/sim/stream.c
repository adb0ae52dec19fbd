/* Streams, their worker threads, events and synchronization.
 *
 * Each stream has a FIFO of ops executed in order by one worker thread, started on the stream's
 * first op, so work is asynchronous to the caller as on a GPU.  Ordering between streams is
 * expressed as dependencies on (stream, sequence number) points, taken when an op is queued:
 *  - an op on the legacy default stream waits for everything already queued on the context's
 *    blocking streams (user streams without CU_STREAM_NON_BLOCKING, and per-thread default
 *    streams), and an op on a blocking stream waits for everything already queued on the legacy
 *    stream (the "Stream synchronization behavior" section of the driver documentation);
 *  - cuStreamWaitEvent makes later work wait for the event's recorded point.
 * When a kernel op marked to fault executes, the context is poisoned: every worker of the context
 * stops before its next op (the faulting op and everything after it never complete) and later
 * calls return the sticky error.  In null mode there are no workers: ops run inline.
 */
#include "sim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__thread int sim_in_worker;

/* ---- stream objects ------------------------------------------------------------------------- */

struct sim_stream *sim_stream_create_locked(struct sim_ctx *ctx, enum sim_stream_kind kind,
					    unsigned flags, int priority)
{
	struct sim_stream *s = sim_obj_new(SIM_KIND_STREAM, sizeof(*s));
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->kind = kind;
	s->flags = flags;
	s->priority = priority;
	s->id = sim_new_id();
	s->uid = s->id;
	pthread_cond_init(&s->work, NULL);
	s->next_in_ctx = ctx->streams;
	ctx->streams = s;
	return s;
}

static void sim_ops_free(struct sim_op *op)
{
	while (op) {
		struct sim_op *next = op->next;
		sim_work_release(&op->work);
		free(op->deps);
		free(op);
		op = next;
	}
}

/* Unlink a drained or abandoned stream from its context and recycle it (sim.lock held). */
static void sim_stream_recycle_locked(struct sim_stream *s)
{
	struct sim_ctx *ctx = s->ctx;
	for (struct sim_stream **p = &ctx->streams; *p; p = &(*p)->next_in_ctx)
		if (*p == s) {
			*p = s->next_in_ctx;
			break;
		}
	sim_ops_free(s->head);
	s->head = s->tail = NULL;
	s->uid = 0;
	pthread_cond_destroy(&s->work);
	sim_obj_free(s, SIM_KIND_STREAM);
}

/* Per-thread default streams die with their thread. */
static pthread_key_t sim_thread_key;
static pthread_once_t sim_thread_key_once = PTHREAD_ONCE_INIT;

static void sim_thread_exit(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&sim.lock);
	for (int i = 0; i < SIM_PT_STREAMS; i++) {
		struct sim_stream *s = sim_thr.pt[i].s;
		struct sim_ctx *ctx = sim_thr.pt[i].ctx;
		if (!s || !sim_obj_is(ctx, SIM_KIND_CTX) || ctx->id != sim_thr.pt[i].uid)
			continue;
		s->closing = 1;
		if (s->worker)
			pthread_cond_signal(&s->work);
		else
			sim_stream_recycle_locked(s);
		sim_thr.pt[i].s = NULL;
	}
	pthread_mutex_unlock(&sim.lock);
}

static void sim_thread_key_init(void)
{
	pthread_key_create(&sim_thread_key, sim_thread_exit);
}

static CUresult sim_stream_per_thread(struct sim_ctx *ctx, struct sim_stream **ret)
{
	int slot = -1;
	/* The entry stays valid while the same context instance (same id) lives: per-thread
	 * streams are only recycled by context teardown or by this thread's exit. */
	for (int i = 0; i < SIM_PT_STREAMS; i++) {
		if (sim_thr.pt[i].s && sim_thr.pt[i].ctx == ctx && sim_thr.pt[i].uid == ctx->id) {
			*ret = sim_thr.pt[i].s;
			return CUDA_SUCCESS;
		}
		if (slot < 0 && (!sim_thr.pt[i].s || !sim_obj_is(sim_thr.pt[i].ctx, SIM_KIND_CTX) ||
				 sim_thr.pt[i].ctx->id != sim_thr.pt[i].uid))
			slot = i;
	}
	if (slot < 0)
		slot = 0; /* more live contexts than slots: forget the oldest mapping */
	pthread_once(&sim_thread_key_once, sim_thread_key_init);
	if (!sim_thr.registered) {
		pthread_setspecific(sim_thread_key, &sim_thr);
		sim_thr.registered = 1;
	}
	pthread_mutex_lock(&sim.lock);
	struct sim_stream *s = sim_stream_create_locked(ctx, SIM_STREAM_PER_THREAD, 0, 0);
	pthread_mutex_unlock(&sim.lock);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	sim_thr.pt[slot].ctx = ctx;
	sim_thr.pt[slot].s = s;
	sim_thr.pt[slot].uid = ctx->id;
	*ret = s;
	return CUDA_SUCCESS;
}

/* NULL means the legacy stream, or the per-thread stream when reached through a _ptsz/_ptds
 * entry point; CU_STREAM_LEGACY and CU_STREAM_PER_THREAD name them explicitly. */
CUresult sim_stream_resolve(CUstream h, int per_thread, struct sim_stream **ret)
{
	if (h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD || h == NULL) {
		struct sim_ctx *ctx;
		CUresult r = sim_ctx_current(&ctx);
		if (r)
			return r;
		if (h == CU_STREAM_PER_THREAD || (h == NULL && per_thread))
			return sim_stream_per_thread(ctx, ret);
		*ret = ctx->legacy;
		return CUDA_SUCCESS;
	}
	struct sim_stream *s = (struct sim_stream *)h;
	if (!sim_obj_is(s, SIM_KIND_STREAM))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!sim_obj_is(s->ctx, SIM_KIND_CTX))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*ret = s;
	return CUDA_SUCCESS;
}

/* ---- executing work ---------------------------------------------------------------------------- */

static void sim_sleep_us(unsigned us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int sim_wait_value_holds(const struct sim_work *w)
{
	uint64_t cur, v = w->u.mem.value;
	if (w->u.mem.bits == 64)
		cur = __atomic_load_n((uint64_t *)w->u.mem.addr, __ATOMIC_ACQUIRE);
	else
		cur = __atomic_load_n((uint32_t *)w->u.mem.addr, __ATOMIC_ACQUIRE);
	switch (w->u.mem.flags & 0xf) {
	case CU_STREAM_WAIT_VALUE_GEQ:
		/* Cyclic comparison, as documented: (int)(*addr - value) >= 0. */
		return w->u.mem.bits == 64 ? (int64_t)(cur - v) >= 0 : (int32_t)(uint32_t)(cur - v) >= 0;
	case CU_STREAM_WAIT_VALUE_EQ: return cur == v;
	case CU_STREAM_WAIT_VALUE_AND: return (cur & v) != 0;
	case CU_STREAM_WAIT_VALUE_NOR:
		return w->u.mem.bits == 64 ? ~(cur | v) != 0 : (uint32_t) ~(cur | v) != 0;
	default: return 1;
	}
}

static void sim_write_value(const struct sim_work *w)
{
	/* Release semantics: everything the stream did before is visible before the value. */
	if (w->u.mem.bits == 64)
		__atomic_store_n((uint64_t *)w->u.mem.addr, w->u.mem.value, __ATOMIC_RELEASE);
	else
		__atomic_store_n((uint32_t *)w->u.mem.addr, (uint32_t)w->u.mem.value, __ATOMIC_RELEASE);
}

static void sim_set_memory(const struct sim_work *w)
{
	unsigned char *p = w->u.set.dst;
	switch (w->u.set.elem) {
	case 1: memset(p, (int)(w->u.set.value & 0xff), w->u.set.count); break;
	case 2:
		for (size_t i = 0; i < w->u.set.count; i++)
			memcpy(p + 2 * i, &(uint16_t){(uint16_t)w->u.set.value}, 2);
		break;
	default:
		for (size_t i = 0; i < w->u.set.count; i++)
			memcpy(p + 4 * i, &w->u.set.value, 4);
		break;
	}
}

static void sim_stamp_event(const struct sim_work *w)
{
	struct sim_event *ev = w->u.event.event;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&sim.lock);
	if (sim_obj_is(ev, SIM_KIND_EVENT) && ev->generation == w->u.event.generation) {
		ev->when = now;
		ev->timed = 1;
	}
	pthread_mutex_unlock(&sim.lock);
}

/* A kernel, copy or set selected by CUDASIM_FAULT is reached: the driver logs its Xid lines
 * (CUDASIM_KERNEL_LOG) and the context is poisoned. */
static void sim_report_fault(const struct sim_work *w, struct sim_ctx *ctx)
{
	const char *name = "?";
	cuGetErrorName(w->fault->error, &name);
	if (sim.cfg.verbose)
		sim_log("%s %s (launch #%lu) faults: context %llu now returns %s",
			w->kind == SIM_OP_KERNEL ? "kernel" : "copy engine",
			w->kind == SIM_OP_KERNEL ? w->u.kernel.entry->name : w->kind == SIM_OP_COPY ? ".copy" : ".set",
			w->nth, ctx->id, name);
	sim_klog_fault(w, ctx);
	if (w->kind == SIM_OP_KERNEL)
		sim_gpucore_fault(w, ctx);
	sim_ctx_fault(ctx, w->fault->error);
}

/* Null mode and graph replay in null mode: run one piece of work on the calling thread. */
void sim_work_execute(struct sim_work *w, struct sim_ctx *ctx)
{
	if (w->fate == SIM_LAUNCH_FAULT) {
		sim_report_fault(w, ctx);
		return;
	}
	switch (w->kind) {
	case SIM_OP_KERNEL:
		break;
	case SIM_OP_HOST_FN: w->u.host.fn(w->u.host.arg); break;
	case SIM_OP_COPY:
		memmove(w->u.copy.dst, w->u.copy.staging ? w->u.copy.staging : w->u.copy.src,
			w->u.copy.bytes);
		break;
	case SIM_OP_SET: sim_set_memory(w); break;
	case SIM_OP_WRITE: sim_write_value(w); break;
	case SIM_OP_WAIT_VALUE: break; /* null mode does not block streams (docs/SIMULATOR.md) */
	case SIM_OP_EVENT: sim_stamp_event(w); break;
	case SIM_OP_FREE: sim_mem_release(w->u.free.dev, w->u.free.dptr); break;
	case SIM_OP_MARKER: break;
	}
}

void sim_work_release(struct sim_work *w)
{
	if (w->node_type == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL + 1 ||
	    w->node_type == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT + 1) {
		free(w->u.sem.sems);
		w->u.sem.sems = NULL;
		w->u.sem.params = NULL;
	}
	if (w->kind == SIM_OP_COPY) {
		free(w->u.copy.staging);
		w->u.copy.staging = NULL;
	} else if (w->kind == SIM_OP_KERNEL) {
		free(w->u.kernel.argv);
		w->u.kernel.argv = NULL;
		free(w->u.kernel.kp);
		w->u.kernel.kp = NULL;
	}
}

/* Run one op on its worker.  Returns 1 when it completed, 0 when the stream must stop there
 * (the op faulted, hung until teardown, or the context was poisoned meanwhile).  Called without
 * sim.lock. */
static int sim_op_run(struct sim_stream *s, struct sim_op *op)
{
	struct sim_work *w = &op->work;
	struct sim_ctx *ctx = s->ctx;
	if (w->fate == SIM_LAUNCH_FAULT) {
		sim_report_fault(w, ctx);
		return 0;
	}
	switch (w->kind) {
	case SIM_OP_KERNEL:
		if (w->fate == SIM_LAUNCH_HANG) {
			if (sim.cfg.verbose)
				sim_log("kernel %s (launch #%lu) hangs: stream %llu blocks forever",
					w->u.kernel.entry->name, w->nth, s->id);
			pthread_mutex_lock(&sim.lock);
			while (!ctx->closing)
				pthread_cond_wait(&sim.progress, &sim.lock);
			pthread_mutex_unlock(&sim.lock);
			return 0;
		}
		if (sim.cfg.kernel_us)
			sim_sleep_us(sim.cfg.kernel_us);
		return 1;
	case SIM_OP_WAIT_VALUE:
		for (unsigned spins = 0; !sim_wait_value_holds(w); spins++) {
			if (sim_ctx_sticky(ctx) || ctx->closing)
				return 0;
			if (spins > 100)
				sim_sleep_us(50);
		}
		return 1;
	default:
		sim_work_execute(w, ctx);
		return 1;
	}
}

static int sim_dep_done(const struct sim_dep *d)
{
	struct sim_stream *t = d->s;
	return t->uid != d->uid || atomic_load(&t->completed) >= d->seq || t->closing ||
	       sim_ctx_sticky(t->ctx);
}

static int sim_deps_done(const struct sim_op *op)
{
	for (unsigned i = 0; i < op->ndeps; i++)
		if (!sim_dep_done(&op->deps[i]))
			return 0;
	return 1;
}

static void *sim_worker_main(void *arg)
{
	struct sim_stream *s = arg;
	struct sim_ctx *ctx = s->ctx;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals belong to the application's threads */
	pthread_setname_np(pthread_self(), "cudasim-stream"); /* recognisable in cores and gdb */
	sim_in_worker = 1;

	pthread_mutex_lock(&sim.lock);
	for (;;) {
		if (ctx->closing)
			break;
		if (sim_ctx_sticky(ctx)) {
			/* The context died: this stream does nothing more, but lingers until the
			 * context is destroyed, or exits if the stream itself was destroyed. */
			if (s->closing)
				break;
			pthread_cond_wait(&s->work, &sim.lock);
			continue;
		}
		struct sim_op *op = s->head;
		if (!op) {
			if (s->closing)
				break;
			pthread_cond_wait(&s->work, &sim.lock);
			continue;
		}
		if (!sim_deps_done(op)) {
			pthread_cond_wait(&sim.progress, &sim.lock);
			continue;
		}
		pthread_mutex_unlock(&sim.lock);
		int done = sim_op_run(s, op);
		pthread_mutex_lock(&sim.lock);
		/* A kernel that was running when another stream faulted is killed with it. */
		if (done && !sim_ctx_sticky(ctx) && !ctx->closing) {
			s->head = op->next;
			if (!s->head)
				s->tail = NULL;
			atomic_store(&s->completed, op->seq);
			op->next = NULL;
			sim_ops_free(op);
		}
		pthread_cond_broadcast(&sim.progress);
	}
	s->worker = 0;
	ctx->workers--;
	if (s->closing && !ctx->closing)
		sim_stream_recycle_locked(s);
	pthread_cond_broadcast(&sim.progress);
	pthread_mutex_unlock(&sim.lock);
	return NULL;
}

static CUresult sim_worker_start_locked(struct sim_stream *s)
{
	pthread_attr_t attr;
	pthread_t tid;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&tid, &attr, sim_worker_main, s);
	pthread_attr_destroy(&attr);
	if (rc) {
		sim_log("cannot start a stream worker thread: %s", strerror(rc));
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	s->worker = 1;
	s->ctx->workers++;
	return CUDA_SUCCESS;
}

/* Blocking streams are those the legacy stream synchronizes with. */
static int sim_stream_blocking(const struct sim_stream *s)
{
	return s->kind == SIM_STREAM_PER_THREAD ||
	       (s->kind == SIM_STREAM_USER && !(s->flags & CU_STREAM_NON_BLOCKING));
}

static int sim_dep_add(struct sim_op *op, unsigned *cap, struct sim_stream *t, uint64_t seq)
{
	if (atomic_load(&t->completed) >= seq)
		return 0;
	if (op->ndeps == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 4;
		struct sim_dep *d = realloc(op->deps, ncap * sizeof(*d));
		if (!d)
			return -1;
		op->deps = d;
		*cap = ncap;
	}
	op->deps[op->ndeps++] = (struct sim_dep){t, t->uid, seq};
	return 0;
}

/* Queue `w` on `s` (sim.lock held) after `extra` (may be NULL).  Takes ownership of the work's
 * resources on success.  Returns the op's sequence number in *seq. */
static CUresult sim_enqueue_locked(struct sim_stream *s, const struct sim_work *w,
				   const struct sim_dep *extra, uint64_t *seq)
{
	struct sim_ctx *ctx = s->ctx;
	CUresult r = sim_ctx_sticky(ctx);
	if (r)
		return r;
	if (s->closing || ctx->closing)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_op *op = calloc(1, sizeof(*op));
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	unsigned cap = 0;
	int bad = 0;
	op->work = *w;
	if (s->kind == SIM_STREAM_LEGACY) {
		for (struct sim_stream *t = ctx->streams; t; t = t->next_in_ctx)
			if (t != s && sim_stream_blocking(t))
				bad |= sim_dep_add(op, &cap, t, t->enqueued);
	} else if (sim_stream_blocking(s)) {
		bad |= sim_dep_add(op, &cap, ctx->legacy, ctx->legacy->enqueued);
	}
	if (extra && !sim_dep_done(extra))
		bad |= sim_dep_add(op, &cap, extra->s, extra->seq);
	if (!bad && !s->worker && sim_worker_start_locked(s) != CUDA_SUCCESS)
		bad = 1;
	if (bad) {
		free(op->deps);
		free(op);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	op->seq = ++s->enqueued;
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_signal(&s->work);
	if (seq)
		*seq = op->seq;
	return CUDA_SUCCESS;
}

/* The legacy stream may not take work while a blocking stream of its context captures: that
 * would make the legacy stream depend on captured work (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT). */
static CUresult sim_legacy_capture_check_locked(struct sim_stream *s)
{
	if (s->kind != SIM_STREAM_LEGACY || !atomic_load(&s->ctx->captures))
		return CUDA_SUCCESS;
	CUresult r = CUDA_SUCCESS;
	for (struct sim_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
		if (sim_stream_blocking(t) && t->capture_status == SIM_CAPTURE_ACTIVE) {
			t->capture_status = SIM_CAPTURE_INVALIDATED;
			r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
		}
	return r;
}

/* A launch (copy, set) counts for CUDASIM_FAULT/CUDASIM_HANG once it is accepted for execution. */
static void sim_launch_count(struct sim_work *w)
{
	if (!w->count)
		return;
	struct sim_watch *watch = w->kind == SIM_OP_KERNEL ? w->u.kernel.entry->watch
				  : w->kind == SIM_OP_COPY ? sim.cfg.copy_watch
				  : w->kind == SIM_OP_SET  ? sim.cfg.set_watch
							   : NULL;
	w->fate = sim_watch_fate(watch, &w->nth, &w->fault);
}

static CUresult sim_submit_dep(struct sim_stream *s, const struct sim_work *w,
			       const struct sim_dep *extra, int wait)
{
	CUresult r;
	struct sim_work copy = *w;
	if (atomic_load_explicit(&s->capturing, memory_order_acquire)) {
		if (wait) {
			sim_work_release(&copy);
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
		return sim_capture_add(s, &copy);
	}
	if (sim_is_null()) {
		r = sim_ctx_sticky(s->ctx);
		if (r == CUDA_SUCCESS && s->kind == SIM_STREAM_LEGACY && atomic_load(&s->ctx->captures)) {
			pthread_mutex_lock(&sim.lock);
			r = sim_legacy_capture_check_locked(s);
			pthread_mutex_unlock(&sim.lock);
		}
		if (r == CUDA_SUCCESS) {
			sim_launch_count(&copy);
			sim_work_execute(&copy, s->ctx);
		}
		sim_work_release(&copy);
		return r;
	}
	uint64_t seq;
	pthread_mutex_lock(&sim.lock);
	r = sim_legacy_capture_check_locked(s);
	if (r == CUDA_SUCCESS && !(r = sim_ctx_sticky(s->ctx)))
		sim_launch_count(&copy);
	if (r == CUDA_SUCCESS)
		r = sim_enqueue_locked(s, &copy, extra, &seq);
	if (r != CUDA_SUCCESS) {
		pthread_mutex_unlock(&sim.lock);
		sim_work_release(&copy);
		return r;
	}
	if (wait) {
		while (atomic_load(&s->completed) < seq && !sim_ctx_sticky(s->ctx) && !s->ctx->closing)
			pthread_cond_wait(&sim.progress, &sim.lock);
		r = sim_ctx_sticky(s->ctx);
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

CUresult sim_submit(struct sim_stream *s, const struct sim_work *w)
{
	return sim_submit_dep(s, w, NULL, 0);
}

CUresult sim_submit_wait(struct sim_stream *s, const struct sim_work *w)
{
	return sim_submit_dep(s, w, NULL, 1);
}

/* ---- synchronization ---------------------------------------------------------------------------- */

CUresult sim_stream_sync(struct sim_stream *s)
{
	if (sim_in_worker)
		return CUDA_ERROR_NOT_PERMITTED;
	if (atomic_load(&s->capturing)) {
		pthread_mutex_lock(&sim.lock);
		s->capture_status = SIM_CAPTURE_INVALIDATED;
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if (sim_is_null())
		return sim_ctx_sticky(s->ctx);
	if (s->kind == SIM_STREAM_LEGACY) {
		/* Synchronizing the legacy stream is an action on it: wait for a marker that itself
		 * waits for every blocking stream. */
		struct sim_work marker = {.kind = SIM_OP_MARKER};
		return sim_submit_wait(s, &marker);
	}
	pthread_mutex_lock(&sim.lock);
	uint64_t target = s->enqueued;
	struct sim_ctx *ctx = s->ctx;
	while (atomic_load(&s->completed) < target && !sim_ctx_sticky(ctx) && !ctx->closing)
		pthread_cond_wait(&sim.progress, &sim.lock);
	CUresult r = sim_ctx_sticky(ctx);
	pthread_mutex_unlock(&sim.lock);
	return r;
}

static CUresult sim_ctx_sync(struct sim_ctx *ctx)
{
	if (sim_in_worker)
		return CUDA_ERROR_NOT_PERMITTED;
	if (sim_capture_unsafe())
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (sim_is_null())
		return sim_ctx_sticky(ctx);
	pthread_mutex_lock(&sim.lock);
	for (;;) {
		int pending = 0;
		for (struct sim_stream *s = ctx->streams; s; s = s->next_in_ctx)
			if (atomic_load(&s->completed) < s->enqueued)
				pending = 1;
		if (!pending || sim_ctx_sticky(ctx) || ctx->closing)
			break;
		pthread_cond_wait(&sim.progress, &sim.lock);
	}
	CUresult r = sim_ctx_sticky(ctx);
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuCtxSynchronize(void)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_SYNC);
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	return r ? r : sim_ctx_sync(ctx);
}

SIM_EXPORT CUresult cuCtxSynchronize_v2(CUcontext h)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_SYNC);
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_resolve(h, &ctx);
	return r ? r : sim_ctx_sync(ctx);
}

/* Stop every worker of a dying context, wait for them, and free its streams, modules and memory
 * (sim.lock held; it is released while waiting). */
void sim_ctx_teardown_locked(struct sim_ctx *ctx)
{
	ctx->closing = 1;
	for (struct sim_stream *s = ctx->streams; s; s = s->next_in_ctx)
		pthread_cond_signal(&s->work);
	pthread_cond_broadcast(&sim.progress);
	while (ctx->workers)
		pthread_cond_wait(&sim.progress, &sim.lock);
	while (ctx->streams) {
		struct sim_stream *s = ctx->streams;
		if (s->capture_status != SIM_CAPTURE_NONE && s->capture_origin)
			atomic_fetch_sub(&sim.global_captures,
					 s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
		sim_stream_recycle_locked(s);
	}
	atomic_store(&ctx->captures, 0);
	ctx->legacy = NULL;
	sim_modules_ctx_gone(ctx);
	sim_mem_ctx_gone(ctx);
}

/* ---- stream API --------------------------------------------------------------------------------- */

static CUresult sim_stream_create(CUstream *ph, unsigned flags, int priority)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = sim_ctx_sticky(ctx)))
		return r;
	/* Out-of-range priorities are clamped, as documented. */
	if (priority > 0)
		priority = 0;
	if (priority < -5)
		priority = -5;
	pthread_mutex_lock(&sim.lock);
	struct sim_stream *s = sim_stream_create_locked(ctx, SIM_STREAM_USER, flags, priority);
	pthread_mutex_unlock(&sim.lock);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*ph = (CUstream)s;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	return sim_stream_create(phStream, Flags, 0);
}

SIM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
	return sim_stream_create(phStream, flags, priority);
}

/* Destroying a stream with pending work returns at once; the work still completes, then the
 * stream is released (cuda.h). */
SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream h)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s = (struct sim_stream *)h;
	if (!sim_obj_is(s, SIM_KIND_STREAM) || s->kind != SIM_STREAM_USER)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	if (!sim_obj_is(s, SIM_KIND_STREAM)) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	atomic_store(&s->obj.magic, 0);
	s->closing = 1;
	if (s->capture_status != SIM_CAPTURE_NONE)
		atomic_fetch_sub(&s->ctx->captures, 1);
	if (s->capture_status != SIM_CAPTURE_NONE && s->capture_origin)
		atomic_fetch_sub(&sim.global_captures, s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
	if (s->worker)
		pthread_cond_signal(&s->work);
	else
		sim_stream_recycle_locked(s);
	pthread_cond_broadcast(&sim.progress);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

static CUresult sim_stream_synchronize(CUstream h, int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_SYNC);
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	return r ? r : sim_stream_sync(s);
}
SIM_EXPORT CUresult cuStreamSynchronize(CUstream hStream) { return sim_stream_synchronize(hStream, 0); }
SIM_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) { return sim_stream_synchronize(hStream, 1); }

static CUresult sim_stream_query(CUstream h, int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_QUERY);
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (atomic_load(&s->capturing)) {
		pthread_mutex_lock(&sim.lock);
		s->capture_status = SIM_CAPTURE_INVALIDATED;
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if ((r = sim_ctx_sticky(s->ctx)) || sim_is_null())
		return r;
	pthread_mutex_lock(&sim.lock);
	int pending = atomic_load(&s->completed) < s->enqueued;
	if (s->kind == SIM_STREAM_LEGACY)
		for (struct sim_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
			if (sim_stream_blocking(t) && atomic_load(&t->completed) < t->enqueued)
				pending = 1;
	pthread_mutex_unlock(&sim.lock);
	return pending ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamQuery(CUstream hStream) { return sim_stream_query(hStream, 0); }
SIM_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) { return sim_stream_query(hStream, 1); }

static CUresult sim_stream_get_id(CUstream h, unsigned long long *id, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	*id = s->id;
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId) { return sim_stream_get_id(hStream, streamId, 0); }
SIM_EXPORT CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId) { return sim_stream_get_id(hStream, streamId, 1); }

static CUresult sim_stream_get_ctx(CUstream h, CUcontext *pctx, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = (CUcontext)s->ctx;
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) { return sim_stream_get_ctx(hStream, pctx, 0); }
SIM_EXPORT CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) { return sim_stream_get_ctx(hStream, pctx, 1); }

static CUresult sim_stream_get_flags(CUstream h, unsigned *flags, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = s->flags;
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) { return sim_stream_get_flags(hStream, flags, 0); }
SIM_EXPORT CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) { return sim_stream_get_flags(hStream, flags, 1); }

static CUresult sim_stream_get_priority(CUstream h, int *priority, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!priority)
		return CUDA_ERROR_INVALID_VALUE;
	*priority = s->priority;
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int *priority) { return sim_stream_get_priority(hStream, priority, 0); }
SIM_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { return sim_stream_get_priority(hStream, priority, 1); }

static CUresult sim_stream_get_device(CUstream h, CUdevice *device, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = s->ctx->dev->ordinal;
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) { return sim_stream_get_device(hStream, device, 0); }
SIM_EXPORT CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) { return sim_stream_get_device(hStream, device, 1); }

/* Stream attributes: the access policy window, synchronization policy, memory synchronization
 * domain (map) are kept and read back; the priority is the stream's own. */
static int sim_stream_attr_valid(CUstreamAttrID attr)
{
	return attr == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW ||
	       attr == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY || attr == CU_LAUNCH_ATTRIBUTE_PRIORITY ||
	       attr == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP || attr == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
}

static CUresult sim_stream_attribute(CUstream h, CUstreamAttrID attr, CUstreamAttrValue *get,
				     const CUstreamAttrValue *set, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!sim_stream_attr_valid(attr) || (!get && !set))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (set && attr == CU_LAUNCH_ATTRIBUTE_PRIORITY)
		s->priority = set->priority > 0 ? 0 : set->priority < -5 ? -5 : set->priority;
	else if (set)
		s->attrs[attr] = *set;
	if (get) {
		*get = s->attrs[attr];
		if (attr == CU_LAUNCH_ATTRIBUTE_PRIORITY)
			get->priority = s->priority;
	}
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out) { return sim_stream_attribute(hStream, attr, value_out, NULL, 0); }
SIM_EXPORT CUresult cuStreamGetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out) { return sim_stream_attribute(hStream, attr, value_out, NULL, 1); }
SIM_EXPORT CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value) { return sim_stream_attribute(hStream, attr, NULL, value, 0); }
SIM_EXPORT CUresult cuStreamSetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value) { return sim_stream_attribute(hStream, attr, NULL, value, 1); }

static CUresult sim_stream_copy_attributes(CUstream hdst, CUstream hsrc, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *dst, *src;
	CUresult r = sim_stream_resolve(hdst, per_thread, &dst);
	if (r || (r = sim_stream_resolve(hsrc, per_thread, &src)))
		return r;
	pthread_mutex_lock(&sim.lock);
	memcpy(dst->attrs, src->attrs, sizeof(dst->attrs));
	dst->priority = src->priority;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) { return sim_stream_copy_attributes(dst, src, 0); }
SIM_EXPORT CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) { return sim_stream_copy_attributes(dst, src, 1); }

/* ---- host functions ------------------------------------------------------------------------------- */

static CUresult sim_launch_host_func(CUstream h, CUhostFn fn, void *arg, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!fn)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w = {.kind = SIM_OP_HOST_FN, .u.host = {fn, arg}};
	return sim_submit(s, &w);
}
SIM_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) { return sim_launch_host_func(hStream, fn, userData, 0); }
SIM_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData) { return sim_launch_host_func(hStream, fn, userData, 1); }

/* cuStreamAddCallback: the callback also receives the stream and a status, which is always
 * CUDA_SUCCESS because a failed stream never reaches its callbacks here. */
struct sim_callback {
	CUstreamCallback cb;
	CUstream stream;
	void *arg;
};

static void sim_callback_trampoline(void *p)
{
	struct sim_callback c = *(struct sim_callback *)p;
	free(p);
	c.cb(c.stream, CUDA_SUCCESS, c.arg);
}

static CUresult sim_stream_add_callback(CUstream h, CUstreamCallback cb, void *arg, unsigned flags,
				       int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!cb || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (atomic_load(&s->capturing))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	struct sim_callback *c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*c = (struct sim_callback){cb, h, arg};
	struct sim_work w = {.kind = SIM_OP_HOST_FN, .u.host = {sim_callback_trampoline, c}};
	if ((r = sim_submit(s, &w)))
		free(c);
	return r;
}
SIM_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) { return sim_stream_add_callback(hStream, callback, userData, flags, 0); }
SIM_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) { return sim_stream_add_callback(hStream, callback, userData, flags, 1); }

/* ---- events --------------------------------------------------------------------------------------- */

/* An event dies with its context, as on real drivers. */
static struct sim_event *sim_event_get(CUevent h)
{
	if (!sim_obj_is(h, SIM_KIND_EVENT))
		return NULL;
	struct sim_event *ev = (struct sim_event *)h;
	return sim_obj_is(ev->ctx, SIM_KIND_CTX) ? ev : NULL;
}

SIM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	SIM_REQUIRE_INIT();
	struct sim_ctx *ctx;
	CUresult r = sim_ctx_current(&ctx);
	if (r)
		return r;
	unsigned valid = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
	if (!phEvent || (Flags & ~valid) ||
	    ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)))
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = sim_ctx_sticky(ctx)))
		return r;
	struct sim_event *ev = sim_obj_new(SIM_KIND_EVENT, sizeof(*ev));
	if (!ev)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ev->ctx = ctx;
	ev->flags = Flags;
	*phEvent = (CUevent)ev;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuEventDestroy_v2(CUevent h)
{
	SIM_REQUIRE_INIT();
	struct sim_event *ev = sim_event_get(h);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	sim_obj_free(ev, SIM_KIND_EVENT);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

static CUresult sim_event_record(CUevent h, CUstream hs, unsigned flags, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_event *ev = sim_event_get(h);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	SIM_COST(ev->flags & CU_EVENT_DISABLE_TIMING ? SIM_COST_EVENT_RECORD
						     : SIM_COST_EVENT_RECORD_TIMING);
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(hs, per_thread, &s);
	if (r)
		return r;
	if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = sim_ctx_sticky(s->ctx)))
		return r;
	if (s->ctx != ev->ctx)
		return CUDA_ERROR_INVALID_HANDLE; /* event and stream must share a context */
	pthread_mutex_lock(&sim.lock);
	if (atomic_load(&s->capturing)) {
		/* Recorded into the capture: later waits on it join the capture (fork/join). */
		ev->capture_graph = s->capture_graph;
		memcpy(ev->capture_deps, s->capture_deps, sizeof ev->capture_deps);
		ev->capture_ndeps = s->capture_ndeps;
		ev->recorded = 1;
		ev->generation = sim_new_id();
		ev->point = (struct sim_dep){0};
		pthread_mutex_unlock(&sim.lock);
		return CUDA_SUCCESS;
	}
	ev->capture_graph = NULL;
	ev->generation = sim_new_id();
	ev->timed = 0;
	ev->recorded = 1;
	if (sim_is_null()) {
		ev->point = (struct sim_dep){0};
		clock_gettime(CLOCK_MONOTONIC, &ev->when);
		ev->timed = 1;
		pthread_mutex_unlock(&sim.lock);
		return CUDA_SUCCESS;
	}
	struct sim_work w = {.kind = SIM_OP_EVENT, .u.event = {ev, ev->generation}};
	uint64_t seq;
	r = sim_legacy_capture_check_locked(s);
	if (r == CUDA_SUCCESS)
		r = sim_enqueue_locked(s, &w, NULL, &seq);
	if (r == CUDA_SUCCESS)
		ev->point = (struct sim_dep){s, s->uid, seq};
	else
		ev->recorded = 0;
	pthread_mutex_unlock(&sim.lock);
	return r;
}
SIM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return sim_event_record(hEvent, hStream, 0, 0); }
SIM_EXPORT CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return sim_event_record(hEvent, hStream, 0, 1); }
SIM_EXPORT CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) { return sim_event_record(hEvent, hStream, flags, 0); }
SIM_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) { return sim_event_record(hEvent, hStream, flags, 1); }

/* An event is complete when it was never recorded or its recorded point has been reached. */
static int sim_event_done_locked(const struct sim_event *ev)
{
	return !ev->recorded || !ev->point.s || sim_dep_done(&ev->point);
}

SIM_EXPORT CUresult cuEventQuery(CUevent h)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_QUERY);
	struct sim_event *ev = sim_event_get(h);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	CUresult r = sim_ctx_sticky(ev->ctx);
	if (r)
		return r;
	pthread_mutex_lock(&sim.lock);
	if (ev->capture_graph)
		r = CUDA_ERROR_CAPTURED_EVENT;
	else if (!sim_event_done_locked(ev))
		r = CUDA_ERROR_NOT_READY;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuEventSynchronize(CUevent h)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_SYNC);
	struct sim_event *ev = sim_event_get(h);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	if (sim_in_worker)
		return CUDA_ERROR_NOT_PERMITTED;
	pthread_mutex_lock(&sim.lock);
	if (ev->capture_graph) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_CAPTURED_EVENT;
	}
	while (!sim_event_done_locked(ev) && !sim_ctx_sticky(ev->ctx))
		pthread_cond_wait(&sim.progress, &sim.lock);
	CUresult r = sim_ctx_sticky(ev->ctx);
	pthread_mutex_unlock(&sim.lock);
	return r;
}

static CUresult sim_event_elapsed(float *ms, CUevent hstart, CUevent hend)
{
	SIM_REQUIRE_INIT();
	struct sim_event *a = sim_event_get(hstart), *b = sim_event_get(hend);
	if (!ms)
		return CUDA_ERROR_INVALID_VALUE;
	if (!a || !b)
		return CUDA_ERROR_INVALID_HANDLE;
	CUresult r = sim_ctx_sticky(a->ctx);
	if (r || (r = sim_ctx_sticky(b->ctx)))
		return r;
	pthread_mutex_lock(&sim.lock);
	if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING || !a->recorded || !b->recorded)
		r = CUDA_ERROR_INVALID_HANDLE;
	else if (!a->timed || !b->timed)
		r = CUDA_ERROR_NOT_READY;
	else
		*ms = (float)((double)(b->when.tv_sec - a->when.tv_sec) * 1e3 +
			      (double)(b->when.tv_nsec - a->when.tv_nsec) / 1e6);
	pthread_mutex_unlock(&sim.lock);
	return r;
}
SIM_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) { return sim_event_elapsed(pMilliseconds, hStart, hEnd); }
SIM_EXPORT CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) { return sim_event_elapsed(pMilliseconds, hStart, hEnd); }

static CUresult sim_stream_wait_event(CUstream hs, CUevent h, unsigned flags, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(hs, per_thread, &s);
	if (r)
		return r;
	struct sim_event *ev = sim_event_get(h);
	if (!ev)
		return CUDA_ERROR_INVALID_HANDLE;
	if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = sim_ctx_sticky(s->ctx)))
		return r;
	pthread_mutex_lock(&sim.lock);
	if (ev->capture_graph) {
		/* Waiting on an event recorded in a capture joins this stream to that capture. */
		if (!atomic_load(&s->capturing)) {
			struct sim_graph *g = ev->capture_graph;
			s->capture_graph = g;
			s->capture_status = SIM_CAPTURE_ACTIVE;
			s->capture_origin = 0;
			s->capture_id = sim_new_id();
			s->capture_ndeps = 0;
			atomic_store(&s->capturing, 1);
			atomic_fetch_add(&s->ctx->captures, 1);
		}
		/* Joined: the stream's next node depends on what the event was recorded after too. */
		if (s->capture_graph == ev->capture_graph)
			for (unsigned i = 0; i < ev->capture_ndeps; i++)
				sim_capture_dep_add(s, ev->capture_deps[i]);
		pthread_mutex_unlock(&sim.lock);
		return CUDA_SUCCESS;
	}
	if (atomic_load(&s->capturing)) {
		/* A captured stream may not depend on uncaptured work. */
		pthread_mutex_unlock(&sim.lock);
		if (!ev->recorded || !ev->point.s)
			return CUDA_SUCCESS;
		return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
	}
	if (!ev->recorded || !ev->point.s || sim_is_null()) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_SUCCESS;
	}
	struct sim_work marker = {.kind = SIM_OP_MARKER};
	struct sim_dep point = ev->point;
	r = sim_legacy_capture_check_locked(s);
	if (r == CUDA_SUCCESS)
		r = sim_enqueue_locked(s, &marker, &point, NULL);
	pthread_mutex_unlock(&sim.lock);
	return r;
}
SIM_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) { return sim_stream_wait_event(hStream, hEvent, Flags, 0); }
SIM_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) { return sim_stream_wait_event(hStream, hEvent, Flags, 1); }
