/* SPDX-License-Identifier: MIT */
/*
 * NCCL: communicators and every collective, point-to-point and group call, seen through the
 * same doors as the driver (docs/RECORDER.md, "NCCL"): the exported symbols of nccl-api.h's
 * table, for programs linked with -lnccl (PyTorch's libtorch_cuda), and the interposed dlsym
 * for "nccl" + capital names looked up in a handle, for programs that dlopen libnccl.so.2 (vLLM's
 * pynccl, CuPy).  The real functions are looked up once: from the first handle a program looks
 * an NCCL name up in, or, at the first call of an exported wrapper, from the library after the
 * recorder (RTLD_NEXT); a second, different NCCL library in the process passes through unseen.
 *
 * What is recorded (record.h, "NCCL"): communicators in CI_SEC_NCCL_COMMS with an id that is
 * the same in every rank (derived from the unique id, never a pointer); every call in the
 * CI_SEC_NCCL_CALLS ring with its per-communicator number, arguments, stream and host stack.
 * Where a call stands on its stream comes from breadcrumbs: the call takes the stream's next
 * number like a launch, after the work NCCL enqueued for it, and gets a breadcrumb write of it
 * after it and, when the work before it has none, one of the stream's previous number before it
 * (launch.c's machinery, charged to the thread's budget).  A grouped call is enqueued by NCCL at
 * the outermost ncclGroupEnd, so that is where its number and breadcrumbs are written.
 *
 * Cost rules as for launches: after the first call of a thread and the first sight of a
 * communicator (which may ask NCCL about it, allocate its per-peer counters and start the
 * watchdog), a call takes no lock, allocates nothing and makes no system call; its driver calls
 * are the breadcrumb writes and, while some capture is active, cuStreamIsCapturing.
 *
 * The hang watchdog: a thread started with the first communicator (none in a process without
 * NCCL) wakes every quarter of CUDAINSPECT_NCCL_TIMEOUT (at most every second), reads each
 * communicator's latest call and its stream's breadcrumb from the record, and when one has
 * been outstanding that long writes the hang snapshot, once, so the evidence exists before a
 * launcher's watchdog kills the job.  It makes no CUDA call; the call path pays a few stores.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "nccl-api.h"

/* ---------------------------------------------------------------------------------------- */
/* The table                                                                                  */

enum ci_nfn {
#define CI_NFN_ENUM(name, hook, params, args) CI_NFN_##name,
	CI_NCCL_TABLE(CI_NFN_ENUM)
#undef CI_NFN_ENUM
	CI_NFN_WRAPPED,
#define CI_NFN_HELPER(name) CI_NFN_##name,
	CI_NCCL_HELPERS(CI_NFN_HELPER)
#undef CI_NFN_HELPER
	CI_NFN_COUNT
};

static const char *const ci_nfn_name[CI_NFN_COUNT] = {
#define CI_NFN_NAME(name, hook, params, args) [CI_NFN_##name] = #name,
	CI_NCCL_TABLE(CI_NFN_NAME)
#undef CI_NFN_NAME
#define CI_NFN_HNAME(name) [CI_NFN_##name] = #name,
	CI_NCCL_HELPERS(CI_NFN_HNAME)
#undef CI_NFN_HNAME
};

/* The real functions, published once (ci_nccl_state), and whether they were found. */
static void *ci_nccl_real[CI_NFN_COUNT];
enum { CI_NCCL_UNRESOLVED, CI_NCCL_PUBLISHING, CI_NCCL_READY };
static int ci_nccl_state; /* atomic */
/* The real library's code, [ci_nccl_lo, ci_nccl_lo + ci_nccl_span): NCCL calls its own exported
 * functions (ncclCommGetAsyncError from its proxy thread, ncclBroadcast from ncclBcast), which
 * then reach the wrappers; calls from there are NCCL's, not the program's, and pass through. */
static uintptr_t ci_nccl_lo, ci_nccl_span;

/* The extent of the loaded object holding ADDRESS (its PT_LOAD segments). */
struct ci_extent {
	uintptr_t address, lo, hi;
};
static int ci_extent_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct ci_extent *x = arg;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (x->address < lo || x->address >= hi)
		return 0;
	x->lo = lo;
	x->hi = hi;
	return 1;
}

static const void *const ci_nccl_wrapper[CI_NFN_WRAPPED];

/* Look every name up in HANDLE and publish the answers, unless another thread did first.
 * Lookups that find the recorder's own wrappers (a handle whose scope holds the recorder) are
 * no answer; neither is a handle without ncclAllReduce: nothing is published then. */
static void ci_nccl_resolve_from(void *handle)
{
	if (__atomic_load_n(&ci_nccl_state, __ATOMIC_ACQUIRE) == CI_NCCL_READY)
		return;
	ci_dlsym_resolve();
	if (!ci_real_dlsym)
		return;
	void *found[CI_NFN_COUNT];
	for (int i = 0; i < CI_NFN_COUNT; i++) {
		found[i] = ci_nfn_name[i] ? ci_real_dlsym(handle, ci_nfn_name[i]) : NULL;
		if (i < CI_NFN_WRAPPED && found[i] == ci_nccl_wrapper[i])
			found[i] = NULL;
	}
	if (!found[CI_NFN_ncclAllReduce])
		return;
	int expected = CI_NCCL_UNRESOLVED;
	if (!__atomic_compare_exchange_n(&ci_nccl_state, &expected, CI_NCCL_PUBLISHING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	struct ci_extent x = { .address = (uintptr_t)found[CI_NFN_ncclAllReduce] };
	if (dl_iterate_phdr(ci_extent_of, &x)) {
		ci_nccl_lo = x.lo;
		ci_nccl_span = x.hi - x.lo;
	}
	for (int i = 0; i < CI_NFN_COUNT; i++)
		__atomic_store_n(&ci_nccl_real[i], found[i], __ATOMIC_RELAXED);
	__atomic_store_n(&ci_nccl_state, CI_NCCL_READY, __ATOMIC_RELEASE);
}

/* Collect the paths of loaded objects whose name says NCCL (no dlopen inside the loader's
 * iteration: it holds the loader's lock). */
struct ci_nccl_paths {
	char path[8][512];
	int n;
};
static int ci_nccl_path_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct ci_nccl_paths *p = arg;
	const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	if (base && strstr(base, "nccl") && p->n < 8 && strlen(name) < sizeof p->path[0])
		strcpy(p->path[p->n++], name);
	return 0;
}

/* The library after the recorder in the global scope (a program linked with -lnccl), else a
 * loaded NCCL library that is not in it (dlopen'ed with RTLD_LOCAL, whose own calls of its
 * exported functions reach the recorder's): its handle, looked up without loading anything. */
static void ci_nccl_resolve_loaded(void)
{
	ci_nccl_resolve_from(RTLD_NEXT);
	if (__atomic_load_n(&ci_nccl_state, __ATOMIC_ACQUIRE) != CI_NCCL_UNRESOLVED)
		return;
	struct ci_nccl_paths paths = { .n = 0 }; /* once per process (two threads may both look) */
	dl_iterate_phdr(ci_nccl_path_of, &paths);
	for (int i = 0; i < paths.n; i++) {
		void *h = dlopen(paths.path[i], RTLD_NOW | RTLD_NOLOAD);
		if (!h)
			continue;
		ci_nccl_resolve_from(h);
		dlclose(h);
		if (__atomic_load_n(&ci_nccl_state, __ATOMIC_ACQUIRE) != CI_NCCL_UNRESOLVED)
			return;
	}
}

/* The real function FN, resolving the table from the library after the recorder when no door
 * has yet (a program linked with -lnccl calls the exported wrapper first). */
static void *ci_nccl_fn(int fn)
{
	void *p = __atomic_load_n(&ci_nccl_real[fn], __ATOMIC_RELAXED);
	if (CI_LIKELY(p != NULL))
		return p;
	if (__atomic_load_n(&ci_nccl_state, __ATOMIC_ACQUIRE) == CI_NCCL_UNRESOLVED)
		ci_nccl_resolve_loaded();
	for (int i = 0; i < 100000 && __atomic_load_n(&ci_nccl_state, __ATOMIC_ACQUIRE) ==
						  CI_NCCL_PUBLISHING; i++)
		CI_PAUSE();
	return __atomic_load_n(&ci_nccl_real[fn], __ATOMIC_RELAXED);
}

static ncclResult_t ci_nccl_missing(int fn)
{
	static int said;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		ci_say("%s was called, but the process has no NCCL library loaded (the call found "
		       "the recorder's export); returning ncclSystemError", ci_nfn_name[fn]);
	return ncclSystemError;
}

static int ci_nfn_by_name(const char *name)
{
	for (int i = 0; i < CI_NFN_WRAPPED; i++)
		if (!strcmp(name, ci_nfn_name[i]))
			return i;
	return -1;
}

void *ci_dlsym_nccl(void *handle, const char *name)
{
	ci_dlsym_resolve();
	if (!ci_real_dlsym)
		return NULL;
	void *p = ci_real_dlsym(handle, name);
	if (ci_on())
		ci_modules_loaded();
	int i = p ? ci_nfn_by_name(name) : -1;
	if (i < 0 || p == ci_nccl_wrapper[i] || !ci_nccl_wanted())
		return p;
	ci_nccl_resolve_from(handle);
	return __atomic_load_n(&ci_nccl_real[i], __ATOMIC_RELAXED) == p ? (void *)ci_nccl_wrapper[i]
									   : p;
}

/* ---------------------------------------------------------------------------------------- */
/* Per-thread state                                                                           */

/* A grouped call waiting for the outermost ncclGroupEnd. */
struct ci_nccl_pending {
	struct ci_nccl_call *e;
	uint64_t seq;             /* the entry's seq: it is still ours */
	uint32_t stream;
	uint32_t comm;
};
#define CI_NCCL_PENDING_MAX 256

struct ci_nccl_tls {
	uint32_t generation;      /* ci_generation when set up */
	uint32_t depth;           /* inside a wrapper's real call: nested NCCL calls pass through */
	uint32_t group_depth;     /* ncclGroupStart nesting */
	uint32_t group;           /* the open group's number */
	uint32_t groups;          /* groups begun */
	uint32_t npending;
	uint32_t epoch;           /* ci_object_epoch when the communicator cache was filled */
	uint32_t comm_slot;
	uint64_t comm_handle;
	struct ci_nccl_pending *pending; /* CI_NCCL_PENDING_MAX, mapped at the first group */
};
static __thread struct ci_nccl_tls ci_nccl_tls __attribute__((tls_model("initial-exec")));

static struct ci_nccl_tls *ci_nccl_thread(void)
{
	struct ci_nccl_tls *t = &ci_nccl_tls;
	uint32_t gen = __atomic_load_n(&ci_generation, __ATOMIC_RELAXED);
	if (CI_UNLIKELY(t->generation != gen)) {
		uint32_t depth = t->depth;
		struct ci_nccl_pending *pending = t->pending;
		memset(t, 0, sizeof *t);
		t->depth = depth;
		t->pending = pending;
		t->comm_slot = CI_NONE;
		t->generation = gen;
	}
	return t;
}

/* Whether this call, made from RET, is recorded: the recorder runs, NCCL is wanted, and it is
 * not NCCL calling its own exported functions (from its code, or from inside a wrapped call). */
static bool ci_nccl_recording(uintptr_t ret)
{
	if (CI_UNLIKELY(!ci_on())) {
		ci_ensure_started();
		if (!ci_on())
			return false;
	}
	return ci_cfg.nccl && ci_rec.sec[CI_SEC_NCCL_CALLS].dir && !ci_nccl_tls.depth &&
	       ret - ci_nccl_lo >= ci_nccl_span;
}

/* ---------------------------------------------------------------------------------------- */
/* Communicators                                                                              */

static void ci_nccl_watchdog_start(void);

/* What a communicator's entry is made of. */
struct ci_comm_args {
	uint64_t handle, comm_id, parent_id;
	int rank, nranks, device;
	uint32_t origin, flags;
	int color, key;
	ncclResult_t result;
};

static uint32_t ci_nccl_comm_register(struct ci_call *c, const struct ci_comm_args *a)
{
	uint32_t slot = ci_table_claim(CI_SEC_NCCL_COMMS);
	if (slot == CI_NONE)
		return CI_NONE;
	struct ci_nccl_priv *p = &ci_rec.nccl[slot];
	memset(p, 0, sizeof *p);
	p->nranks = a->nranks;
	p->wd_stream = CI_NONE;
	if (a->handle && a->nranks > 0 && a->nranks <= (1 << 20)) {
		size_t bytes = (size_t)a->nranks * 2 * sizeof(uint64_t);
		void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		p->p2p = m == MAP_FAILED ? NULL : m;
	}
	struct ci_nccl_comm *e = ci_entry(CI_SEC_NCCL_COMMS, slot);
	ci_entry_begin(&e->seq);
	e->handle = a->handle;
	e->comm_id = a->comm_id;
	e->parent_id = a->parent_id;
	e->init_ns = c->t0;
	e->end_ns = 0;
	e->colls = 0;
	e->p2p = 0;
	e->rank = a->rank;
	e->nranks = a->nranks;
	e->device = a->device;
	e->ctx = ci_ctx_current_slot();
	e->origin = a->origin;
	e->state = a->handle ? CI_NCCL_COMM_LIVE : CI_NCCL_COMM_INIT_FAILED;
	e->result = a->result;
	e->async_error = 0;
	e->color = a->color;
	e->key = a->key;
	e->tid = ci_thread()->tid;
	e->stack = ci_stack_of(c);
	e->flags = a->flags;
	e->pad = 0;
	ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	if (a->handle) {
		/* A handle NCCL hands out again after a destroy the recorder did not see. */
		if (ci_map_get(&ci_rec.nccl_map, a->handle) != CI_NONE) {
			ci_map_remove(&ci_rec.nccl_map, a->handle);
			__atomic_fetch_add(&ci_object_epoch, 1, __ATOMIC_RELEASE);
		}
		struct ci_map_slot *ms;
		uint32_t found;
		if (ci_map_claim(&ci_rec.nccl_map, a->handle, &ms, &found))
			ci_map_publish(ms, slot);
	}
	ci_job_record();
	ci_nccl_watchdog_start();
	return slot;
}

/* Ask NCCL (the real functions) A's size, rank and, when DEVICE, device; -1 for what it does
 * not answer. */
static void ci_nccl_describe(struct ci_nccl_tls *t, struct ci_comm_args *a, bool device)
{
	ncclResult_t (*ask[3])(const ncclComm_t, int *) = {
		ci_nccl_fn(CI_NFN_ncclCommCount), ci_nccl_fn(CI_NFN_ncclCommUserRank),
		device ? ci_nccl_fn(CI_NFN_ncclCommCuDevice) : NULL
	};
	int *out[3] = { &a->nranks, &a->rank, &a->device };
	t->depth++;
	for (int i = 0; i < 3; i++)
		if (ask[i] && ask[i]((ncclComm_t)a->handle, out[i]) != ncclSuccess)
			*out[i] = -1;
	t->depth--;
}

/* The slot of communicator HANDLE.  With DISCOVER, one first met here (made before the
 * recorder started, or out of its sight) is described by asking NCCL, once, and recorded if NCCL
 * knows it; calls on a communicator that is gone (a destroy the caller forgot) only look. */
static uint32_t ci_nccl_comm_slot(struct ci_nccl_tls *t, struct ci_call *c, uint64_t handle,
				  bool discover)
{
	if (!handle)
		return CI_NONE;
	uint32_t epoch = __atomic_load_n(&ci_object_epoch, __ATOMIC_ACQUIRE);
	if (t->comm_handle == handle && t->epoch == epoch)
		return t->comm_slot;
	uint32_t slot = ci_map_get(&ci_rec.nccl_map, handle);
	if (slot == CI_NONE) {
		if (!discover)
			return CI_NONE;
		struct ci_comm_args a = { .handle = handle, .rank = -1, .nranks = -1, .device = -1,
					  .origin = CI_NCCL_UNSEEN };
		ci_nccl_describe(t, &a, true);
		if (a.nranks <= 0)
			return CI_NONE; /* NCCL does not know it: not a communicator (any more) */
		slot = ci_nccl_comm_register(c, &a);
	}
	t->comm_handle = handle;
	t->comm_slot = slot;
	t->epoch = epoch;
	return slot;
}

static uint64_t ci_id_of(const ncclUniqueId *ids, int n)
{
	uint64_t h = CI_FNV_INIT;
	for (int i = 0; i < n; i++)
		h = ci_fnv(h, ids[i].internal, sizeof ids[i].internal);
	return h ? h : 1;
}

static int ci_current_device(void)
{
	CUdevice d = -1;
	return CI_REAL(cuCtxGetDevice, &d) == CUDA_SUCCESS ? (int)d : -1;
}

static bool ci_nccl_ok(ncclResult_t r)
{
	return r == ncclSuccess || r == ncclInProgress;
}

static uint32_t ci_config_flags(const ncclConfig_t *config)
{
	return config && config->blocking == 0 ? CI_NCCL_COMM_NONBLOCKING : 0;
}

static void ci_on_init_rank(struct ci_call *c, ncclResult_t r, ncclComm_t *comm, int nranks,
			    const ncclUniqueId *ids, int nids, int rank, uint32_t origin,
			    const ncclConfig_t *config)
{
	struct ci_comm_args a = {
		.handle = ci_nccl_ok(r) && comm ? CI_U64(*comm) : 0,
		.comm_id = ids ? ci_id_of(ids, nids) : 0,
		.rank = rank, .nranks = nranks, .device = ci_current_device(), .origin = origin,
		.flags = ci_config_flags(config), .result = r,
	};
	ci_nccl_comm_register(c, &a);
}

static void ci_on_init_all(struct ci_call *c, ncclResult_t r, ncclComm_t *comms, int ndev,
			   const int *devlist)
{
	/* All ranks are in this process: an id of the process and the call. */
	static uint32_t calls;
	struct {
		uint8_t boot_id[16];
		uint32_t pid, call;
		uint64_t start_ns, now_ns;
	} who;
	memcpy(who.boot_id, ci_rec.hdr->boot_id, sizeof who.boot_id);
	who.pid = ci_rec.hdr->pid;
	who.call = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	who.start_ns = ci_rec.hdr->start_realtime_ns;
	who.now_ns = c->t0;
	uint64_t id = ci_fnv(CI_FNV_INIT, &who, sizeof who);
	for (int i = 0; i < ndev && i < 4096; i++) {
		struct ci_comm_args a = {
			.handle = ci_nccl_ok(r) && comms ? CI_U64(comms[i]) : 0, .comm_id = id,
			.rank = i, .nranks = ndev, .device = devlist ? devlist[i] : i,
			.origin = CI_NCCL_INIT_ALL, .result = r,
		};
		ci_nccl_comm_register(c, &a);
		if (!a.handle)
			break; /* one entry says the call failed */
	}
}

/* A communicator made from PARENT (split or shrink): its id from the parent's, the number of
 * splits and shrinks the parent made before, and SALT (the color; the excluded ranks). */
static void ci_on_derived(struct ci_call *c, ncclResult_t r, ncclComm_t parent, ncclComm_t *out,
			  uint64_t salt, uint32_t origin, int color, int key,
			  const ncclConfig_t *config)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	uint32_t ps = ci_nccl_comm_slot(t, c, CI_U64(parent), true);
	uint64_t parent_id = 0;
	int device = -1;
	uint32_t n = 0;
	if (ps != CI_NONE) {
		const struct ci_nccl_comm *pe = ci_entry(CI_SEC_NCCL_COMMS, ps);
		parent_id = pe->comm_id;
		device = pe->device;
		n = __atomic_fetch_add(&ci_rec.nccl[ps].derived, 1, __ATOMIC_RELAXED);
	}
	uint64_t handle = ci_nccl_ok(r) && out ? CI_U64(*out) : 0;
	if (ci_nccl_ok(r) && !handle)
		return; /* NCCL_SPLIT_NOCOLOR: this rank is in no new communicator */
	struct {
		uint64_t parent;
		uint32_t n, origin;
		uint64_t salt;
	} from = { parent_id, n, origin, salt };
	struct ci_comm_args a = {
		.handle = handle,
		.comm_id = parent_id ? ci_fnv(CI_FNV_INIT, &from, sizeof from) : 0,
		.parent_id = parent_id, .rank = -1, .nranks = -1, .device = device,
		.origin = origin, .color = color, .key = key,
		.flags = config ? ci_config_flags(config)
			 : ps != CI_NONE ? ((const struct ci_nccl_comm *)ci_entry(CI_SEC_NCCL_COMMS, ps))->flags
					 : 0,
		.result = r,
	};
	if (handle && r == ncclSuccess)
		ci_nccl_describe(t, &a, false);
	ci_nccl_comm_register(c, &a);
}

/* ---------------------------------------------------------------------------------------- */
/* Calls                                                                                      */

/* One call, from its wrapper's pre half to its post half. */
struct ci_nccl_req {
	uint32_t op;
	int32_t datatype, redop, peer;
	uint64_t count, sendbuff, recvbuff;
	uint64_t comm_handle;
	CUstream stream;
	uint32_t comm;            /* slot */
	uint32_t sslot;
	uint64_t prior;
	uint64_t end_ns;          /* when the real call returned (0: at publishing) */
	uint32_t flags;
};

static bool ci_op_is_collective(uint32_t op)
{
	return op >= CI_NCCL_ALL_REDUCE && op <= CI_NCCL_SCATTER;
}

static bool ci_op_is_p2p(uint32_t op)
{
	return op == CI_NCCL_SEND || op == CI_NCCL_RECV;
}

/* Publish the ring entry of O; returns it (NULL when dropped) and its seq. */
static struct ci_nccl_call *ci_nccl_publish(struct ci_call *c, struct ci_nccl_tls *t,
					    const struct ci_nccl_req *o, ncclResult_t r,
					    uint64_t op_seq, uint64_t stream_seq, uint32_t group,
					    uint64_t *seq_out)
{
	uint64_t seq;
	struct ci_nccl_call *e = ci_ring_claim(CI_SEC_NCCL_CALLS, &seq);
	*seq_out = 0;
	uint32_t stack = ci_cfg.stack_mode != CI_STACKS_OFF ? ci_stack_of(c) : 0;
	if (!e)
		return NULL;
	e->time_ns = c->t0;
	e->duration_ns = (o->end_ns ? o->end_ns : ci_now()) - c->t0;
	e->comm_id = o->comm != CI_NONE ? ((const struct ci_nccl_comm *)ci_entry(CI_SEC_NCCL_COMMS, o->comm))->comm_id : 0;
	e->op_seq = op_seq;
	e->count = o->count;
	e->sendbuff = o->sendbuff;
	e->recvbuff = o->recvbuff;
	e->stream_seq = stream_seq;
	e->stream_prior = o->prior;
	e->op = o->op;
	e->datatype = o->datatype;
	e->redop = o->redop;
	e->peer = o->peer;
	e->comm = o->comm;
	e->stream = o->sslot;
	e->ctx = o->sslot != CI_NONE ? ci_rec.streams[o->sslot].ctx : CI_NONE;
	e->tid = ci_thread()->tid;
	e->stack = stack;
	e->result = (int32_t)r;
	e->group = group;
	e->flags = o->flags | (ci_nccl_ok(r) ? 0 : CI_NCCL_CALL_FAILED);
	(void)t;
	ci_entry_publish(&e->seq, seq);
	*seq_out = seq;
	return e;
}

/* The hang watchdog's view of communicator SLOT: its latest collective or point-to-point call
 * on a stream (when that one is overdue, ci_nccl_flag_oldest finds the call the rank hangs in). */
static void ci_nccl_watch(uint32_t slot, uint32_t sslot, uint64_t stream_seq, uint64_t ns)
{
	if (slot == CI_NONE)
		return;
	struct ci_nccl_priv *p = &ci_rec.nccl[slot];
	uint32_t g = __atomic_load_n(&p->wd_gen, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wd_gen, g + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&p->wd_stream, sslot, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wd_stream_seq, stream_seq, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wd_ns, ns, __ATOMIC_RELAXED);
	__atomic_store_n(&p->wd_gen, g + 2, __ATOMIC_RELEASE);
}

/* Whether the work before a call on stream SSLOT (launches up to PRIOR) is followed by a
 * breadcrumb of PRIOR: the last launch's own, or one written now if the budget allows it (the
 * one after the call is always written; this one only sharpens "not started" from a range of
 * launches that may not have run to none: on the H200 a write costs as much as a small NCCL
 * call's own CPU time, docs/PERFORMANCE.md). */
static bool ci_nccl_crumb_before(uint32_t sslot, uint64_t prior, uint64_t now)
{
	const struct ci_stream *s = ci_entry(CI_SEC_STREAMS, sslot);
	if (!prior)
		return false; /* nothing before it: it cannot wait for earlier work */
	return __atomic_load_n(&s->crumb_enqueued, __ATOMIC_RELAXED) == prior ||
	       (ci_crumb_allowed(now) && ci_crumb_now(sslot, prior, now));
}

/* Before a collective or point-to-point call: its communicator and stream, the stream's number
 * so far, and a breadcrumb of that number when the work before it has none. */
static void ci_nccl_op_pre(struct ci_call *c, struct ci_nccl_req *o, uint32_t op,
			   const void *sendbuff, const void *recvbuff, size_t count,
			   ncclDataType_t datatype, int redop, int peer, ncclComm_t comm,
			   cudaStream_t stream)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	*o = (struct ci_nccl_req){ .op = op, .datatype = (int32_t)datatype, .redop = redop,
				  .peer = peer, .count = count, .sendbuff = CI_U64(sendbuff),
				  .recvbuff = CI_U64(recvbuff), .comm_handle = CI_U64(comm),
				  .stream = (CUstream)stream, .sslot = CI_NONE };
	o->comm = ci_nccl_comm_slot(t, c, CI_U64(comm), true);
	o->sslot = ci_stream_slot(o->stream, c);
	if (o->sslot == CI_NONE)
		return;
	struct ci_stream *s = ci_entry(CI_SEC_STREAMS, o->sslot);
	o->prior = __atomic_load_n(&s->launches, __ATOMIC_RELAXED);
	struct ci_capture cap;
	if (CI_UNLIKELY(__atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0) &&
	    ci_capture_info(ci_rec.streams[o->sslot].handle, &cap)) {
		o->flags |= CI_NCCL_CALL_CAPTURED;
		return;
	}
	/* A grouped call is enqueued at the group's end: its prior number and breadcrumb are
	 * taken there (ci_nccl_group_end_pre). */
	if (!t->group_depth && ci_nccl_crumb_before(o->sslot, o->prior, c->t0))
		o->flags |= CI_NCCL_CALL_CRUMB_BEFORE;
}

static void ci_nccl_op_post(struct ci_call *c, struct ci_nccl_req *o, ncclResult_t r)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	o->end_ns = ci_now();
	uint64_t op_seq = 0, stream_seq = 0;
	bool ok = ci_nccl_ok(r);
	if (ok && o->comm != CI_NONE) {
		struct ci_nccl_comm *ce = ci_entry(CI_SEC_NCCL_COMMS, o->comm);
		struct ci_nccl_priv *p = &ci_rec.nccl[o->comm];
		if (ci_op_is_collective(o->op)) {
			op_seq = __atomic_add_fetch(&ce->colls, 1, __ATOMIC_RELAXED);
		} else if (ci_op_is_p2p(o->op)) {
			__atomic_fetch_add(&ce->p2p, 1, __ATOMIC_RELAXED);
			if (p->p2p && o->peer >= 0 && o->peer < p->nranks)
				op_seq = __atomic_add_fetch(
					&p->p2p[2 * o->peer + (o->op == CI_NCCL_RECV)], 1,
					__ATOMIC_RELAXED);
		}
	}
	bool grouped = t->group_depth > 0;
	if (grouped)
		o->flags |= CI_NCCL_CALL_IN_GROUP;
	else if (r == ncclSuccess && o->sslot != CI_NONE && !(o->flags & CI_NCCL_CALL_CAPTURED)) {
		stream_seq = ci_stream_take(o->sslot);
		if (ci_crumb_now(o->sslot, stream_seq, o->end_ns))
			o->flags |= CI_NCCL_CALL_CRUMB;
	}
	uint64_t seq;
	struct ci_nccl_call *e =
		ci_nccl_publish(c, t, o, r, op_seq, stream_seq, grouped ? t->group : 0, &seq);
	if (stream_seq && (o->flags & CI_NCCL_CALL_CRUMB))
		ci_nccl_watch(o->comm, o->sslot, stream_seq, c->t0);
	if (grouped && ok && e && t->pending && t->npending < CI_NCCL_PENDING_MAX &&
	    !(o->flags & CI_NCCL_CALL_CAPTURED) && o->sslot != CI_NONE)
		t->pending[t->npending++] =
			(struct ci_nccl_pending){ .e = e, .seq = seq, .stream = o->sslot,
						  .comm = o->comm };
}

/* The outermost ncclGroupEnd: NCCL enqueued the grouped calls now.  Each gets its stream's
 * next number, and each stream one breadcrumb after the last of them. */
static void ci_nccl_group_flush(struct ci_nccl_tls *t, ncclResult_t r, uint64_t now)
{
	uint32_t n = t->npending;
	t->npending = 0;
	if (r != ncclSuccess || !t->pending)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct ci_nccl_pending *q = &t->pending[i];
		uint64_t sseq = ci_stream_take(q->stream);
		if (__atomic_load_n(&q->e->seq, __ATOMIC_ACQUIRE) == q->seq)
			__atomic_store_n(&q->e->stream_seq, sseq, __ATOMIC_RELAXED);
		else
			q->e = NULL; /* the ring wrapped over it meanwhile */
		q->seq = sseq;   /* from here on: its stream number */
	}
	for (uint32_t i = 0; i < n; i++) {
		struct ci_nccl_pending *q = &t->pending[i];
		uint32_t s = q->stream;
		if (s == CI_NONE)
			continue;
		uint64_t last = 0;
		for (uint32_t j = i; j < n; j++)
			if (t->pending[j].stream == s && t->pending[j].seq > last)
				last = t->pending[j].seq;
		bool crumb = ci_crumb_now(s, last, now);
		for (uint32_t j = i; j < n; j++) {
			struct ci_nccl_pending *w = &t->pending[j];
			if (w->stream != s)
				continue;
			w->stream = CI_NONE;
			if (!crumb || !w->e)
				continue;
			__atomic_fetch_or(&w->e->flags, CI_NCCL_CALL_CRUMB, __ATOMIC_RELAXED);
			ci_nccl_watch(w->comm, s, w->seq, now);
		}
	}
}

static void ci_nccl_group_start(struct ci_call *c, ncclResult_t r)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	uint32_t group = 0;
	if (r == ncclSuccess && t->group_depth++ == 0) {
		t->group = ++t->groups;
		t->npending = 0;
		if (!t->pending) {
			void *m = mmap(NULL, CI_NCCL_PENDING_MAX * sizeof *t->pending,
				       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			t->pending = m == MAP_FAILED ? NULL : m;
		}
		group = t->group;
	} else if (r == ncclSuccess) {
		return; /* a nested group is part of the outer one */
	}
	struct ci_nccl_req o = { .op = CI_NCCL_GROUP_START, .datatype = -1, .redop = -1, .peer = -1,
				.comm = CI_NONE, .sslot = CI_NONE };
	uint64_t seq;
	ci_nccl_publish(c, t, &o, r, 0, 0, group, &seq);
}

/* Before the outermost ncclGroupEnd enqueues the grouped calls: each one's stream number so far,
 * and a breadcrumb of it where the work before has none (once per stream). */
static void ci_nccl_group_end_pre(struct ci_call *c)
{
	(void)c;
	struct ci_nccl_tls *t = ci_nccl_thread();
	if (t->group_depth != 1 || !t->pending)
		return;
	for (uint32_t i = 0; i < t->npending; i++) {
		struct ci_nccl_pending *q = &t->pending[i];
		const struct ci_stream *s = ci_entry(CI_SEC_STREAMS, q->stream);
		uint64_t prior = __atomic_load_n(&s->launches, __ATOMIC_RELAXED);
		bool crumb = ci_nccl_crumb_before(q->stream, prior, c->t0);
		if (__atomic_load_n(&q->e->seq, __ATOMIC_ACQUIRE) != q->seq)
			continue;
		__atomic_store_n(&q->e->stream_prior, prior, __ATOMIC_RELAXED);
		if (crumb)
			__atomic_fetch_or(&q->e->flags, CI_NCCL_CALL_CRUMB_BEFORE, __ATOMIC_RELAXED);
	}
}

static void ci_nccl_group_end(struct ci_call *c, ncclResult_t r)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	uint32_t group = 0;
	if (t->group_depth) {
		if (--t->group_depth)
			return; /* a nested group's end: the outer one enqueues */
		group = t->group;
		ci_nccl_group_flush(t, r, c->t0);
	} /* else: no group the recorder saw begin (NCCL refuses it, ncclInvalidUsage) */
	struct ci_nccl_req o = { .op = CI_NCCL_GROUP_END, .datatype = -1, .redop = -1, .peer = -1,
				.comm = CI_NONE, .sslot = CI_NONE };
	uint64_t seq;
	ci_nccl_publish(c, t, &o, r, 0, 0, group, &seq);
}

/* ncclCommAbort calls begun and ended (atomic).  Begun is counted before the real call: an
 * abort ends the collectives in flight, and their breadcrumbs then land as if they had finished
 * (the hang watchdog must not take that for the end of a delay). */
static int ci_nccl_aborts, ci_nccl_aborts_done;

/* Finalize, destroy, abort: the communicator's state, and an entry. */
static void ci_nccl_comm_end(struct ci_call *c, ncclResult_t r, ncclComm_t comm, uint32_t op)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	struct ci_nccl_req o = { .op = op, .datatype = -1, .redop = -1, .peer = -1,
				.comm_handle = CI_U64(comm), .sslot = CI_NONE };
	o.comm = ci_nccl_comm_slot(t, c, CI_U64(comm), false);
	if (o.comm != CI_NONE && (r == ncclSuccess || op == CI_NCCL_ABORT)) {
		struct ci_nccl_comm *e = ci_entry(CI_SEC_NCCL_COMMS, o.comm);
		uint32_t state = op == CI_NCCL_FINALIZE ? CI_NCCL_COMM_FINALIZED
				 : op == CI_NCCL_DESTROY ? CI_NCCL_COMM_DESTROYED
							 : CI_NCCL_COMM_ABORTED;
		/* Destroy after finalize, or abort after either, says what happened last. */
		__atomic_store_n(&e->state, state, __ATOMIC_RELAXED);
		__atomic_store_n(&e->end_ns, c->t0, __ATOMIC_RELAXED);
		if (op != CI_NCCL_FINALIZE) {
			ci_map_remove(&ci_rec.nccl_map, CI_U64(comm));
			__atomic_fetch_add(&ci_object_epoch, 1, __ATOMIC_RELEASE);
		}
	}
	uint64_t seq;
	ci_nccl_publish(c, t, &o, r, 0, 0, 0, &seq);
	if (op == CI_NCCL_ABORT)
		__atomic_fetch_add(&ci_nccl_aborts_done, 1, __ATOMIC_SEQ_CST);
}

/* ncclCommGetAsyncError: an entry only when its answer changes (watchdogs poll it). */
static void ci_nccl_async_error(struct ci_call *c, ncclResult_t r, ncclComm_t comm,
				const ncclResult_t *err)
{
	struct ci_nccl_tls *t = ci_nccl_thread();
	uint32_t slot = ci_nccl_comm_slot(t, c, CI_U64(comm), false);
	int32_t now = r == ncclSuccess && err ? (int32_t)*err : (int32_t)r;
	if (slot != CI_NONE) {
		struct ci_nccl_comm *e = ci_entry(CI_SEC_NCCL_COMMS, slot);
		if (__atomic_exchange_n(&e->async_error, now, __ATOMIC_RELAXED) == now)
			return;
	} else if (now == ncclSuccess) {
		return;
	}
	struct ci_nccl_req o = { .op = CI_NCCL_ASYNC_ERROR, .datatype = -1, .redop = -1, .peer = -1,
				.comm = slot, .sslot = CI_NONE,
				.count = r == ncclSuccess && err ? (uint64_t)(int64_t)*err : 0 };
	uint64_t seq;
	ci_nccl_publish(c, t, &o, r, 0, 0, 0, &seq);
}

/* ---------------------------------------------------------------------------------------- */
/* Hooks: CI_NP_<hook> before the real call, CI_NH_<hook> after it                            */

#define CI_NP_NONE(c, o, ...) ((void)0)

#define CI_NP_init_rank CI_NP_NONE
#define CI_NH_init_rank(c, o, r, comm, n, id, rank) \
	ci_on_init_rank(c, r, comm, n, &(id), 1, rank, CI_NCCL_INIT_RANK, NULL)
#define CI_NP_init_rank_config CI_NP_NONE
#define CI_NH_init_rank_config(c, o, r, comm, n, id, rank, cfg) \
	ci_on_init_rank(c, r, comm, n, &(id), 1, rank, CI_NCCL_INIT_RANK_CONFIG, cfg)
#define CI_NP_init_rank_scalable CI_NP_NONE
#define CI_NH_init_rank_scalable(c, o, r, comm, n, rank, nid, ids, cfg) \
	ci_on_init_rank(c, r, comm, n, ids, nid > 0 && nid <= 4096 ? nid : 0, rank, \
			CI_NCCL_INIT_RANK_SCALABLE, cfg)
#define CI_NP_init_all CI_NP_NONE
#define CI_NH_init_all(c, o, r, comms, ndev, devlist) ci_on_init_all(c, r, comms, ndev, devlist)
#define CI_NP_split CI_NP_NONE
#define CI_NH_split(c, o, r, comm, color, key, out, cfg) \
	ci_on_derived(c, r, comm, out, (uint64_t)(int64_t)(color), CI_NCCL_SPLIT, color, key, cfg)
#define CI_NP_shrink CI_NP_NONE
#define CI_NH_shrink(c, o, r, comm, ex, nex, out, cfg, fl)                                      \
	ci_on_derived(c, r, comm, out,                                                         \
		      ex && nex > 0 ? ci_fnv(CI_FNV_INIT, ex, (size_t)(nex < 4096 ? nex : 4096) * sizeof(int)) : 0, \
		      CI_NCCL_SHRINK, 0, 0, cfg)
#define CI_NP_finalize CI_NP_NONE
#define CI_NH_finalize(c, o, r, comm) ci_nccl_comm_end(c, r, comm, CI_NCCL_FINALIZE)
#define CI_NP_destroy CI_NP_NONE
#define CI_NH_destroy(c, o, r, comm) ci_nccl_comm_end(c, r, comm, CI_NCCL_DESTROY)
#define CI_NP_abort(c, o, comm) __atomic_fetch_add(&ci_nccl_aborts, 1, __ATOMIC_SEQ_CST)
#define CI_NH_abort(c, o, r, comm) ci_nccl_comm_end(c, r, comm, CI_NCCL_ABORT)
#define CI_NP_async_error CI_NP_NONE
#define CI_NH_async_error(c, o, r, comm, err) ci_nccl_async_error(c, r, comm, err)
#define CI_NP_group_start CI_NP_NONE
#define CI_NH_group_start(c, o, r) ci_nccl_group_start(c, r)
#define CI_NP_group_end(c, o) ci_nccl_group_end_pre(c)
#define CI_NH_group_end(c, o, r) ci_nccl_group_end(c, r)

#define CI_NH_OP(c, o, r, ...) ci_nccl_op_post(c, o, r)
#define CI_NP_all_reduce(c, o, sb, rb, n, dt, op, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_ALL_REDUCE, sb, rb, n, dt, (int)(op), -1, comm, s)
#define CI_NH_all_reduce CI_NH_OP
#define CI_NP_all_gather(c, o, sb, rb, n, dt, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_ALL_GATHER, sb, rb, n, dt, -1, -1, comm, s)
#define CI_NH_all_gather CI_NH_OP
#define CI_NP_reduce_scatter(c, o, sb, rb, n, dt, op, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_REDUCE_SCATTER, sb, rb, n, dt, (int)(op), -1, comm, s)
#define CI_NH_reduce_scatter CI_NH_OP
#define CI_NP_broadcast(c, o, sb, rb, n, dt, root, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_BROADCAST, sb, rb, n, dt, -1, root, comm, s)
#define CI_NH_broadcast CI_NH_OP
#define CI_NP_bcast(c, o, b, n, dt, root, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_BROADCAST, b, b, n, dt, -1, root, comm, s)
#define CI_NH_bcast CI_NH_OP
#define CI_NP_reduce(c, o, sb, rb, n, dt, op, root, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_REDUCE, sb, rb, n, dt, (int)(op), root, comm, s)
#define CI_NH_reduce CI_NH_OP
#define CI_NP_all_to_all(c, o, sb, rb, n, dt, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_ALL_TO_ALL, sb, rb, n, dt, -1, -1, comm, s)
#define CI_NH_all_to_all CI_NH_OP
#define CI_NP_gather(c, o, sb, rb, n, dt, root, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_GATHER, sb, rb, n, dt, -1, root, comm, s)
#define CI_NH_gather CI_NH_OP
#define CI_NP_scatter(c, o, sb, rb, n, dt, root, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_SCATTER, sb, rb, n, dt, -1, root, comm, s)
#define CI_NH_scatter CI_NH_OP
#define CI_NP_send(c, o, sb, n, dt, peer, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_SEND, sb, NULL, n, dt, -1, peer, comm, s)
#define CI_NH_send CI_NH_OP
#define CI_NP_recv(c, o, rb, n, dt, peer, comm, s) \
	ci_nccl_op_pre(c, o, CI_NCCL_RECV, NULL, rb, n, dt, -1, peer, comm, s)
#define CI_NH_recv CI_NH_OP

/* ---------------------------------------------------------------------------------------- */
/* The wrappers                                                                               */

#define CI_N_UNPAREN(...) __VA_ARGS__
#define CI_N_COMMA_ARGS(...) , ##__VA_ARGS__
#define CI_N_CALL(f, a) f a

/* The wrapper of one NCCL function: not recording (or NCCL calling itself), a straight call;
 * else the pre hook, the real call, the post hook.  errno is what NCCL left. */
#define CI_NCCL_WRAPPER(name_, hook_, params_, args_)                                           \
	CI_EXPORT ncclResult_t name_ params_                                                    \
	{                                                                                      \
		__typeof__(&name_) ci_fn_ = (__typeof__(&name_))ci_nccl_fn(CI_NFN_##name_);      \
		if (CI_UNLIKELY(!ci_fn_))                                                      \
			return ci_nccl_missing(CI_NFN_##name_);                                 \
		if (CI_UNLIKELY(!ci_nccl_recording((uintptr_t)__builtin_return_address(0))))   \
			return ci_fn_ args_;                                                    \
		struct ci_call ci_c_ = { .t0 = ci_time_marked(ci_now()),                       \
					 .frame = __builtin_frame_address(0),                  \
					 .ret = CI_U64(__builtin_return_address(0)),           \
					 .fn = CI_FN_COUNT,                                     \
					 .stream = CI_NONE,                                    \
					 .ctx = CI_NONE,                                       \
					 .pre_slot = CI_NONE };                                \
		struct ci_nccl_req ci_o_;                                                        \
		CI_N_CALL(CI_NP_##hook_, (&ci_c_, &ci_o_ CI_N_COMMA_ARGS args_));                \
		ci_nccl_tls.depth++;                                                           \
		ncclResult_t ci_r_ = ci_fn_ args_;                                             \
		ci_nccl_tls.depth--;                                                           \
		int ci_errno_ = errno;                                                         \
		CI_N_CALL(CI_NH_##hook_, (&ci_c_, &ci_o_, ci_r_ CI_N_COMMA_ARGS args_));         \
		errno = ci_errno_;                                                             \
		return ci_r_;                                                                  \
	}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
CI_NCCL_TABLE(CI_NCCL_WRAPPER)
#pragma GCC diagnostic pop

static const void *const ci_nccl_wrapper[CI_NFN_WRAPPED] = {
#define CI_NFN_WRAPPER(name, hook, params, args) [CI_NFN_##name] = (const void *)name,
	CI_NCCL_TABLE(CI_NFN_WRAPPER)
#undef CI_NFN_WRAPPER
};

/* ---------------------------------------------------------------------------------------- */
/* The hang watchdog                                                                          */

static int ci_wd_started;   /* atomic: the generation whose watchdog runs, 0 none */
#define CI_WD_STREAMS 64
/* The hang the watchdog flagged: the calls it flagged TIMEOUT (ring position, stream and number
 * on it) and the one it named, until they all finish with no abort begun since (a delay, not a
 * hang: flagged LATE instead, the snapshot removed, watched again) or an abort ends them (the
 * hang was real).  The watchdog thread's only. */
static struct ci_wd_hang {
	unsigned n;              /* calls flagged; 0: none (watching) */
	int aborts;              /* ci_nccl_aborts when it was said */
	uint64_t comm_id, op_seq, time_ns;
	int32_t rank, nranks;
	const char *what;        /* the named call's API name */
	struct ci_wd_call {
		uint64_t q;      /* ring position: the entry is this call while its seq is q + 1 */
		uint64_t stream_seq;
		uint32_t stream;
	} call[CI_WD_STREAMS];
} ci_wd_hang;

/* Whether breadcrumb SLOT's value says launch number N of its stream finished. */
static bool ci_crumb_reached(uint32_t slot, uint64_t n)
{
	const struct ci_sec *cs = ci_sec(CI_SEC_BREADCRUMBS);
	if (slot == CI_NONE || slot >= cs->capacity)
		return false;
	uint64_t v = __atomic_load_n((const uint64_t *)cs->base + slot, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&ci_rec.hdr->crumb_width, __ATOMIC_RELAXED) == 4)
		return (int32_t)((uint32_t)v - (uint32_t)n) >= 0;
	return v >= n;
}

/* The calls the hang is in: on every stream with NCCL calls, the oldest one its breadcrumb has
 * not reached, when it was made more than the timeout ago.  Calls are enqueued and return, so a
 * rank stuck in a collective has made later ones on the same stream (of this communicator or of
 * another, a split one) that wait behind it: the latest call (what the watchdog looks at) is not
 * where the rank hangs, the oldest unfinished one is.  Each gets CI_NCCL_CALL_TIMEOUT; the one of
 * the stream the watchdog saw stuck (STREAM) is returned for the message. */
static const struct ci_nccl_call *ci_nccl_flag_oldest(uint32_t stream, uint64_t now)
{
	struct ci_sec *ring = ci_sec(CI_SEC_NCCL_CALLS);
	uint64_t head = __atomic_load_n(&ring->dir->head, __ATOMIC_ACQUIRE);
	uint64_t first = head > ring->capacity ? head - ring->capacity : 0;
	struct { uint32_t stream; uint64_t stream_seq, q; struct ci_nccl_call *call; } oldest[CI_WD_STREAMS];
	unsigned n = 0;
	for (uint64_t q = first; q < head; q++) {
		struct ci_nccl_call *e = ci_entry(CI_SEC_NCCL_CALLS, q % ring->capacity);
		uint64_t sseq = __atomic_load_n(&e->stream_seq, __ATOMIC_RELAXED);
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != q + 1 || !sseq ||
		    e->stream == CI_NONE || (e->flags & CI_NCCL_CALL_FAILED) || now < e->time_ns ||
		    now - e->time_ns < ci_cfg.nccl_timeout_ns)
			continue;
		const struct ci_stream *s = ci_entry(CI_SEC_STREAMS, e->stream);
		if (ci_crumb_reached(s->crumb_slot, sseq))
			continue; /* finished */
		unsigned k = 0;
		while (k < n && oldest[k].stream != e->stream)
			k++;
		if (k == n) {
			if (n == CI_WD_STREAMS)
				continue;
			oldest[n++] = (__typeof__(oldest[0])){ e->stream, sseq, q, e };
		} else if (sseq < oldest[k].stream_seq) {
			oldest[k].stream_seq = sseq;
			oldest[k].q = q;
			oldest[k].call = e;
		}
	}
	const struct ci_nccl_call *named = NULL;
	for (unsigned k = 0; k < n; k++) {
		__atomic_fetch_or(&oldest[k].call->flags, CI_NCCL_CALL_TIMEOUT, __ATOMIC_RELAXED);
		ci_wd_hang.call[k] = (struct ci_wd_call){ oldest[k].q, oldest[k].stream_seq,
							  oldest[k].stream };
		if (oldest[k].stream == stream)
			named = oldest[k].call;
	}
	ci_wd_hang.n = n;
	return named;
}

static void ci_nccl_fire(uint32_t slot, uint32_t stream, uint64_t now, uint64_t age_ns)
{
	/* An abort under way may be what ends the calls about to be flagged: then none is a delay
	 * (-1 matches no count); one begun later changes the count. */
	ci_wd_hang.aborts = __atomic_load_n(&ci_nccl_aborts, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ci_nccl_aborts_done, __ATOMIC_SEQ_CST) != ci_wd_hang.aborts)
		ci_wd_hang.aborts = -1;
	const struct ci_nccl_call *e = ci_nccl_flag_oldest(stream, now);
	const struct ci_nccl_comm *ce = ci_entry(CI_SEC_NCCL_COMMS, slot);
	const char *what = "collective";
	uint64_t op_seq = 0;
	if (e) {
		op_seq = e->op_seq;
		age_ns = now - e->time_ns;
		if (e->comm != CI_NONE && e->comm < ci_sec(CI_SEC_NCCL_COMMS)->capacity)
			ce = ci_entry(CI_SEC_NCCL_COMMS, e->comm);
#define CI_OP_API(name, value, word, api) case name: what = api; break;
		switch (e->op) {
			CI_NCCL_OPS(CI_OP_API)
		default: break;
		}
#undef CI_OP_API
	}
	ci_wd_hang.what = what;
	ci_wd_hang.op_seq = op_seq;
	ci_wd_hang.comm_id = ce->comm_id;
	ci_wd_hang.rank = ce->rank;
	ci_wd_hang.nranks = ce->nranks;
	ci_wd_hang.time_ns = now - age_ns;
	bool snap = ci_cfg.snapshot_mask & 1u << CI_SNAP_HANG;
	ci_say("%s #%llu of NCCL communicator %016llx (rank %d of %d), the oldest call its stream has "
	       "not finished, is still outstanding after %.1f s (CUDAINSPECT_NCCL_TIMEOUT)%s", what,
	       (unsigned long long)op_seq, (unsigned long long)ce->comm_id, ce->rank, ce->nranks,
	       age_ns / 1e9, snap ? "; writing the hang snapshot" : "");
	if (snap)
		ci_snapshot_write(CI_SNAP_HANG);
}

/* Whether every call the watchdog flagged has finished (its breadcrumb landed) with no abort
 * begun since it flagged them: then it was a delay, not a hang.  A call whose ring entry was
 * reused since is known by the stream and number kept. */
static bool ci_nccl_hang_over(void)
{
	for (unsigned k = 0; k < ci_wd_hang.n; k++) {
		const struct ci_wd_call *w = &ci_wd_hang.call[k];
		const struct ci_stream *s = ci_entry(CI_SEC_STREAMS, w->stream);
		if (!ci_crumb_reached(s->crumb_slot, w->stream_seq))
			return false;
	}
	/* Read after the breadcrumbs: an abort counts itself before it releases the calls. */
	return __atomic_load_n(&ci_nccl_aborts, __ATOMIC_SEQ_CST) == ci_wd_hang.aborts;
}

/* The flagged calls finished: flag them LATE instead of TIMEOUT (LATE first: a snapshot taken
 * meanwhile sees both, and LATE wins), remove the hang snapshot (it shows a wait that ended; the
 * record keeps the calls), say so, and watch again. */
static void ci_nccl_delay_over(uint64_t now)
{
	struct ci_sec *ring = ci_sec(CI_SEC_NCCL_CALLS);
	for (unsigned k = 0; k < ci_wd_hang.n; k++) {
		uint64_t q = ci_wd_hang.call[k].q;
		struct ci_nccl_call *e = ci_entry(CI_SEC_NCCL_CALLS, q % ring->capacity);
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != q + 1)
			continue;
		__atomic_fetch_or(&e->flags, CI_NCCL_CALL_LATE, __ATOMIC_RELAXED);
		__atomic_fetch_and(&e->flags, ~(uint32_t)CI_NCCL_CALL_TIMEOUT, __ATOMIC_RELAXED);
	}
	char path[PATH_MAX + 256];
	bool removed = ci_snapshot_remove_hang(path, sizeof path);
	ci_say("%s #%llu of NCCL communicator %016llx (rank %d of %d) finished after all, within "
	       "%.1f s of the call: a delay, not a hang; its calls are flagged late%s%s; watching "
	       "for a hang again", ci_wd_hang.what, (unsigned long long)ci_wd_hang.op_seq,
	       (unsigned long long)ci_wd_hang.comm_id, ci_wd_hang.rank, ci_wd_hang.nranks,
	       (now - ci_wd_hang.time_ns) / 1e9, removed ? "; removed the hang snapshot " : "",
	       removed ? path : "");
	memset(&ci_wd_hang, 0, sizeof ci_wd_hang);
}

/* One look at every communicator: true when it found a hang. */
static bool ci_nccl_watch_all(void)
{
	if (!ci_on() || !ci_rec.nccl)
		return false;
	uint64_t now = ci_now();
	struct ci_sec *cs = ci_sec(CI_SEC_NCCL_COMMS);
	uint64_t n = __atomic_load_n(&cs->dir->head, __ATOMIC_ACQUIRE);
	for (uint64_t i = 0; i < n && i < cs->capacity; i++) {
		const struct ci_nccl_comm *ce = ci_entry(CI_SEC_NCCL_COMMS, i);
		if (__atomic_load_n(&ce->seq, __ATOMIC_ACQUIRE) != i + 1 ||
		    __atomic_load_n(&ce->state, __ATOMIC_RELAXED) != CI_NCCL_COMM_LIVE)
			continue;
		const struct ci_nccl_priv *p = &ci_rec.nccl[i];
		uint32_t g1 = __atomic_load_n(&p->wd_gen, __ATOMIC_ACQUIRE);
		uint32_t sslot = __atomic_load_n(&p->wd_stream, __ATOMIC_RELAXED);
		uint64_t sseq = __atomic_load_n(&p->wd_stream_seq, __ATOMIC_RELAXED);
		uint64_t ns = __atomic_load_n(&p->wd_ns, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((g1 & 1) || g1 != __atomic_load_n(&p->wd_gen, __ATOMIC_RELAXED) || !sseq ||
		    sslot == CI_NONE || now < ns || now - ns < ci_cfg.nccl_timeout_ns)
			continue;
		const struct ci_stream *s = ci_entry(CI_SEC_STREAMS, sslot);
		if (__atomic_load_n(&s->crumb_enqueued, __ATOMIC_ACQUIRE) < sseq ||
		    ci_crumb_reached(s->crumb_slot, sseq))
			continue;
		ci_nccl_fire((uint32_t)i, sslot, now, now - ns);
		return true;
	}
	return false;
}

static void *ci_nccl_watchdog(void *arg)
{
	uint32_t gen = (uint32_t)(uintptr_t)arg;
	uint64_t period = ci_cfg.nccl_timeout_ns / 4;
	if (period > 1000000000ull)
		period = 1000000000ull;
	if (period < 10000000ull)
		period = 10000000ull;
	struct timespec ts = { (time_t)(period / 1000000000ull), (long)(period % 1000000000ull) };
	memset(&ci_wd_hang, 0, sizeof ci_wd_hang); /* a fork child's: the parent's hang is not its */
	for (;;) {
		nanosleep(&ts, NULL);
		if (__atomic_load_n(&ci_generation, __ATOMIC_ACQUIRE) != gen)
			return NULL;
		if (!ci_wd_hang.n) {
			if (ci_nccl_watch_all() && !ci_wd_hang.n)
				return NULL; /* said, with no call to follow */
		} else if (__atomic_load_n(&ci_nccl_aborts, __ATOMIC_SEQ_CST) != ci_wd_hang.aborts) {
			return NULL; /* aborted: the hang was real, its flags stay */
		} else if (ci_nccl_hang_over())
			ci_nccl_delay_over(ci_now());
	}
}

/* Start the watchdog with the first communicator (once per record: a fork child's needs its
 * own). */
static void ci_nccl_watchdog_start(void)
{
	int gen = (int)__atomic_load_n(&ci_generation, __ATOMIC_ACQUIRE);
	if (!ci_cfg.nccl_timeout_ns || __atomic_load_n(&ci_wd_started, __ATOMIC_ACQUIRE) == gen ||
	    __atomic_exchange_n(&ci_wd_started, gen, __ATOMIC_ACQ_REL) == gen)
		return;
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;
	sigfillset(&all);
	/* Created with every signal blocked, so that it never takes one meant for the program. */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	if (pthread_create(&th, &attr, ci_nccl_watchdog, (void *)(uintptr_t)gen) == 0)
		pthread_setname_np(th, "cudainspect-wd");
	else
		ci_say("cannot start the NCCL hang watchdog thread; a hung collective will not "
		       "write the hang snapshot");
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
