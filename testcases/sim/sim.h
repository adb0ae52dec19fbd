/* Internal interface of the simulated CUDA driver (build/sim/libcuda.so.1).
 *
 * The simulator stands in for a GPU: it implements the driver entry points that the test engines
 * and the recorder use with the semantics documented in cuda.h, but kernels compute nothing.
 * Every stream runs its work in order on a worker thread; device memory is a reserved,
 * never-touched address range backed by a private shadow mapping; faults and hangs are injected
 * through CUDASIM_* variables (docs/SIMULATOR.md).  This header is shared by the sim's .c files
 * only; nothing outside testcases/sim/ includes it.
 *
 * Locking: one process-wide mutex (sim.lock) guards every object's mutable state in the normal
 * mode, with one condition variable (sim.progress) broadcast whenever work completes, a context
 * faults or a stream is torn down.  The address-space tables have their own leaf lock
 * (sim.mem_lock), which may be taken while holding sim.lock but never the other way round.  In
 * null mode (CUDASIM_MODE=null) the launch path takes no lock at all.
 */
#ifndef CUDASIM_SIM_H
#define CUDASIM_SIM_H

/* Build as the driver itself: the legacy prototypes (cuMemAlloc with 32-bit sizes, the plain
 * cuLaunchKernel next to cuLaunchKernel_ptsz, ...) are then all declared, so the compiler checks
 * every exported definition against its exact versioned ABI. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_EXPORT __attribute__((visibility("default")))
#define SIM_DRIVER_VERSION 13000

/* ---- objects ----------------------------------------------------------------------------- */

/* Every handle handed out points at a struct that starts with this header.  Objects are never
 * returned to malloc: a destroyed object keeps its memory with a dead magic (and may be reused
 * for a new object of the same kind), so checking a stale handle is safe, as with real drivers,
 * where stale handles are reported as invalid rather than crashing. */
enum sim_kind {
	SIM_KIND_CTX = 1,
	SIM_KIND_STREAM,
	SIM_KIND_EVENT,
	SIM_KIND_MODULE,
	SIM_KIND_FUNC,
	SIM_KIND_LIBRARY,
	SIM_KIND_KERNEL,
	SIM_KIND_GRAPH,
	SIM_KIND_GRAPH_EXEC,
	SIM_KIND_POOL,
	SIM_KIND_PHYS,
	SIM_KIND_GRAPH_NODE,
	SIM_KIND_COUNT
};
#define SIM_MAGIC(kind) (0x53494d00u | (unsigned)(kind)) /* "SIM" + kind */

struct sim_obj {
	_Atomic uint32_t magic;
	struct sim_obj *free_next;
	struct sim_obj *all_next; /* every object ever made, so none is ever unreachable */
};

void *sim_obj_new(enum sim_kind kind, size_t size);
void sim_obj_free(void *obj, enum sim_kind kind);
static inline int sim_obj_is(const void *h, enum sim_kind kind)
{
	/* Handles below one page are special values (NULL, CU_STREAM_LEGACY, ...), never objects. */
	if ((uintptr_t)h < 4096)
		return 0;
	return atomic_load_explicit(&((const struct sim_obj *)h)->magic, memory_order_acquire) ==
	       SIM_MAGIC(kind);
}

/* ---- configuration (CUDASIM_*) ------------------------------------------------------------ */

#define SIM_WATCH_MAX_N 16
/* Where a fault's access went (the address clause of CUDASIM_FAULT). */
enum sim_fault_where {
	SIM_FAULT_NOWHERE,   /* no address: a kernel writes no Xid 31 line */
	SIM_FAULT_ARG,       /* the value of argument `arg` plus `offset` */
	SIM_FAULT_ABS,       /* the absolute address `addr` */
};
enum sim_fault_access { SIM_ACCESS_DEFAULT, SIM_ACCESS_READ, SIM_ACCESS_WRITE, SIM_ACCESS_ATOMIC };

/* One NAME@N[:CLAUSE...] of CUDASIM_FAULT. */
struct sim_fault {
	unsigned long at;            /* the N-th launch (copy, set) of the name */
	CUresult error;              /* the sticky error it raises */
	enum sim_fault_where where;
	unsigned arg;                /* kernels: parameter index; copies: 0 destination, 1 source */
	int64_t offset;
	uint64_t addr;
	enum sim_fault_access access;
	int xid;                     /* 31 (MMU fault, needs an address) or 13 (SM exception); 0: 31
				      * when there is an address, else no line */
	/* The thread that faults, for GPU cores (block=N, thread=N: linear indexes; default the
	 * grid's last block, its thread 0). */
	int has_block, has_thread;
	unsigned long block, thread;
};

/* A name in CUDASIM_FAULT or CUDASIM_HANG: a kernel name, or ".copy" / ".set" for the copy
 * engine's copies and memsets (PTX names never start with a dot).  Launches (copies, sets) of
 * that name are counted process-wide and the listed ordinals fault or hang. */
struct sim_watch {
	char *name;
	atomic_ulong launches;
	struct sim_fault fault[SIM_WATCH_MAX_N];
	unsigned nfault;
	int needs_args;              /* a fault reads a kernel argument: launches keep a copy */
	unsigned long hang_at[SIM_WATCH_MAX_N];
	unsigned nhang;
	struct sim_watch *next;
};

enum sim_launch_fate { SIM_LAUNCH_OK, SIM_LAUNCH_FAULT, SIM_LAUNCH_HANG };

struct sim_config {
	unsigned kernel_us;
	int null_mode;
	int ndevices;
	size_t mem_bytes;
	int verbose;
	struct sim_watch *watches;
	struct sim_watch *copy_watch, *set_watch; /* ".copy" and ".set", or NULL */
	int klog_fd;                 /* CUDASIM_KERNEL_LOG, or -1 */
	int klog_kmsg;               /* CUDASIM_KERNEL_LOG_FORMAT=kmsg */
	int gpucore;                 /* CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1: write GPU cores */
};

/* ---- cost model (cost.c, CUDASIM_COST) ------------------------------------------------------ */

/* The kinds of entry point the cost model charges; each call of a kind spends that kind's
 * measured CPU time on the calling thread (docs/SIMULATOR.md, "Cost model"). */
enum sim_cost_kind {
	SIM_COST_LAUNCH,
	SIM_COST_MEMOP,
	SIM_COST_EVENT_RECORD,
	SIM_COST_EVENT_RECORD_TIMING,
	SIM_COST_QUERY,
	SIM_COST_SYNC,
	SIM_COST_ALLOC,
	SIM_COST_FREE,
	SIM_COST_ALLOC_ASYNC,
	SIM_COST_FREE_ASYNC,
	SIM_COST_GRAPH_LAUNCH,
	SIM_COST_COPY,
	SIM_COST_MEMSET,
	SIM_COST_CTX_QUERY,
	SIM_COST_CAPTURE_QUERY,
	SIM_COST_POINTER_QUERY,
	SIM_COST_NAME_QUERY,
	SIM_COST_KINDS
};
/* CUDASIM_COST's value ("h200", "none" or unset); -1 (said) when unknown. */
int sim_cost_configure(const char *value);
const char *sim_cost_model(void);
int sim_cost_on(void);
void sim_cost_spend(enum sim_cost_kind kind);
extern int sim_cost_active; /* set once by sim_configure, before any call is charged */
#define SIM_COST(kind)                                                                          \
	do {                                                                                    \
		if (__builtin_expect(sim_cost_active, 0))                                       \
			sim_cost_spend(kind);                                                   \
	} while (0)

/* ---- PTX images ---------------------------------------------------------------------------- */

struct sim_param {
	size_t offset, size;
};

/* One `.entry` of a PTX module, as parsed. */
struct sim_entry {
	char *name;
	unsigned nparams;
	struct sim_param *params;
	size_t param_bytes;
	unsigned maxntid;      /* product of .maxntid/.reqntid, 0 when absent */
	unsigned nregs;        /* from .maxnreg, else a plausible default */
	size_t static_shared;  /* bytes of `.shared` declared in the body */
	struct sim_watch *watch;
	/* For GPU cores (gpucore.c): the PTX line of the body's first global-memory access, and the
	 * `.loc FILE LINE` in effect there (0 when the PTX has no line information). */
	unsigned access_line, loc_file, loc_line;
};

/* A module-scope `.global` variable (for cuModuleGetGlobal). */
struct sim_global {
	char *name;
	size_t size, align;
};

#define SIM_PTX_FILES 64
struct sim_image {
	int ptx_major, ptx_minor, sm;
	unsigned nentries;
	struct sim_entry *entries;
	unsigned nglobals;
	struct sim_global *globals;
	unsigned nfiles;              /* PTX `.file N "name"` directives, the first SIM_PTX_FILES */
	struct { unsigned num; char *name; } files[SIM_PTX_FILES];
};

/* ptx.c: parse NUL-terminated PTX text; returns CUDA_SUCCESS, CUDA_ERROR_INVALID_IMAGE (not PTX
 * at all), CUDA_ERROR_INVALID_PTX (malformed) or CUDA_ERROR_UNSUPPORTED_PTX_VERSION. */
CUresult sim_ptx_parse(const char *text, struct sim_image **ret);
void sim_image_destroy(struct sim_image *img);
/* cubin.c: an ELF cubin's entries (names, parameter layout, attributes) and globals, in at most
 * LIMIT bytes (a fatbin member's size; UINT64_MAX: what its headers say); returns CUDA_SUCCESS,
 * CUDA_ERROR_INVALID_IMAGE (damaged) or CUDA_ERROR_NO_BINARY_FOR_GPU (not sm_90). */
CUresult sim_cubin_parse(const void *image, uint64_t limit, struct sim_image **ret);

/* Little-endian fields of images (fatbins, cubins), whatever the host's byte order. */
static inline uint16_t sim_le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t sim_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t sim_le64(const unsigned char *p) { return sim_le32(p) | (uint64_t)sim_le32(p + 4) << 32; }

/* ---- devices, contexts, streams -------------------------------------------------------------- */

struct sim_range;
struct sim_ctx;

struct sim_device {
	int ordinal;
	char name[64];
	CUuuid uuid;
	size_t total_mem;
	/* Device address window: PROT_NONE reservation, plus the shadow store holding the bytes. */
	uintptr_t va_base;
	size_t va_size;
	unsigned char *shadow;
	size_t used;              /* bytes allocated (under mem_lock) */
	struct sim_range *range_root; /* a treap ordered by base (mem.c; under mem_lock) */
	size_t nranges;
	/* Primary context (under sim.lock). */
	struct sim_ctx *primary;
	unsigned primary_refs;
	unsigned primary_flags;
	struct sim_pool *default_pool;
	struct sim_pool *current_pool;  /* cuDeviceSetMemPool (sim.lock) */
};

enum sim_stream_kind { SIM_STREAM_USER, SIM_STREAM_LEGACY, SIM_STREAM_PER_THREAD };
enum sim_capture { SIM_CAPTURE_NONE, SIM_CAPTURE_ACTIVE, SIM_CAPTURE_INVALIDATED };

struct sim_op;
struct sim_graph;

#define SIM_CAPTURE_DEPS 8 /* a capture's dependency set on one stream, at most */
struct sim_stream {
	struct sim_obj obj;
	struct sim_ctx *ctx;
	enum sim_stream_kind kind;
	unsigned flags;
	int priority;
	unsigned long long id;
	uint64_t uid;              /* unique for the lifetime of the process, never reused */
	/* Work queue (under sim.lock). */
	struct sim_op *head, *tail;
	uint64_t enqueued;         /* seq of the last op queued */
	_Atomic uint64_t completed; /* seq of the last op finished */
	pthread_cond_t work;
	int worker;                /* a worker thread runs for this stream */
	int closing;               /* destroyed: drain, then the worker recycles the stream */
	struct sim_stream *next_in_ctx;
	/* Stream capture (capture state changes under sim.lock; `capturing` read lock-free). */
	_Atomic int capturing;
	enum sim_capture capture_status;
	CUstreamCaptureMode capture_mode;
	struct sim_graph *capture_graph;
	unsigned long long capture_id;
	int capture_origin;        /* this stream began the capture (others joined via events) */
	int capture_into;          /* into the caller's graph (cuStreamBeginCaptureToGraph) */
	void *capture_thread;      /* per-thread state of the thread that began it */
	CUgraphNode capture_deps[SIM_CAPTURE_DEPS]; /* the capture's dependency set on this stream
				    * (cuStreamGetCaptureInfo): the node its last captured op became, plus
				    * those of the events it waited for since (sim.lock) */
	unsigned capture_ndeps;
	/* cuStreamSetAttribute values by attribute id (priority lives in `priority`; sim.lock). */
	CUstreamAttrValue attrs[CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN + 1];
};

/* Add NODE to S's capture dependency set unless there (sim.lock); false when the set is full. */
static inline int sim_capture_dep_add(struct sim_stream *s, CUgraphNode node)
{
	for (unsigned i = 0; i < s->capture_ndeps; i++)
		if (s->capture_deps[i] == node)
			return 1;
	if (s->capture_ndeps == SIM_CAPTURE_DEPS)
		return 0;
	s->capture_deps[s->capture_ndeps++] = node;
	return 1;
}

struct sim_ctx {
	struct sim_obj obj;
	struct sim_device *dev;
	unsigned flags;
	unsigned long long id;
	int tid;                    /* the thread that created it */
	int primary;
	_Atomic int sticky;         /* CUresult that poisons the context, 0 while healthy */
	struct sim_stream *legacy;
	struct sim_stream *streams; /* every stream of the context, legacy and per-thread included */
	unsigned workers;           /* worker threads alive for this context's streams */
	_Atomic int captures;       /* streams of this context with a capture (active or invalidated) */
	int closing;
};

/* ---- queued work ------------------------------------------------------------------------------ */

enum sim_op_kind {
	SIM_OP_KERNEL,
	SIM_OP_HOST_FN,
	SIM_OP_COPY,
	SIM_OP_SET,
	SIM_OP_WRITE,
	SIM_OP_WAIT_VALUE,
	SIM_OP_EVENT,
	SIM_OP_FREE,
	SIM_OP_MARKER,
};

/* "Wait until stream `s` has completed op `seq`"; `uid` detects a stream recycled meanwhile
 * (which implies it had drained, so the wait is satisfied). */
struct sim_dep {
	struct sim_stream *s;
	uint64_t uid, seq;
};

/* A kernel node's parameters as the driver copied them (cuGraphKernelNodeGetParams hands out
 * `ptr`, which points into `bytes`). */
struct sim_kparams {
	unsigned n;
	size_t len;
	void *ptr[64];
	unsigned char bytes[];
};

/* The part of an op that a graph node keeps: what to do, without queue bookkeeping. */
struct sim_work {
	enum sim_op_kind kind;
	/* Kernels, copies and sets: what CUDASIM_FAULT/CUDASIM_HANG decided when it was accepted. */
	enum sim_launch_fate fate;
	int count;                   /* decide the fate when accepted (not when captured) */
	int disabled;                /* an exec's node turned off (cuGraphNodeSetEnabled) */
	unsigned node_type;          /* markers standing for a graph node of another type (event
				      * record and wait, external semaphores): CUgraphNodeType + 1 */
	struct sim_graph **bodies;   /* a graph's conditional node (a marker): its body graphs,
				      * owned like `child` (u.cond says how many) */
	struct sim_graph *child;     /* a graph's child-graph node (a marker): its own clone, owned
				      * (never copied with the work; an exec holds it flattened) */
	unsigned long nth;           /* its ordinal among launches (copies, sets) of its name */
	const struct sim_fault *fault; /* for SIM_LAUNCH_FAULT */
	union {
		struct {
			struct sim_entry *entry;
			uint64_t *argv;  /* 8-byte argument values, kept only for watched kernels */
			uint64_t argok;  /* bit i: argv[i] is an 8-byte parameter */
			unsigned argc;
			CUfunction func; /* as launched, and its shape (graph nodes report them) */
			int tid;         /* the launching thread (watched kernels only), 0 if unknown */
			unsigned grid[3], block[3], shared;
			struct sim_kparams *kp; /* graph nodes only: the parameters, owned */
		} kernel;
		struct {
			CUhostFn fn;
			void *arg;
		} host;
		struct {
			void *dst;
			const void *src;
			size_t bytes;
			void *staging; /* owned copy of pageable source bytes, or NULL */
		} copy;
		struct {
			void *dst;
			uint32_t value;
			unsigned elem; /* 1, 2 or 4 bytes */
			size_t count;
		} set;
		struct {
			void *addr;
			uint64_t value;
			unsigned bits; /* 32 or 64 */
			unsigned flags;
		} mem;
		struct {
			struct sim_event *event;
			uint64_t generation;
		} event;
		struct {
			CUdeviceptr dptr;
			struct sim_device *dev;
		} free;
		struct {
			CUgraphConditionalNodeType type;
			unsigned size;   /* bodies */
			unsigned value;  /* the condition at each launch: its default value when
					  * CU_GRAPH_COND_ASSIGN_DEFAULT, else 0 (no device code sets it) */
		} cond;
		struct {
			CUexternalSemaphore *sems; /* owned, with the parameters after them */
			void *params;
			unsigned n;
			size_t param_size;
		} sem;
	} u;
};

struct sim_op {
	struct sim_op *next;
	uint64_t seq;
	unsigned ndeps;
	struct sim_dep *deps;
	struct sim_work work;
};

struct sim_event {
	struct sim_obj obj;
	struct sim_ctx *ctx;
	unsigned flags;
	/* Last record (under sim.lock). */
	int recorded;
	uint64_t generation;
	struct sim_dep point;
	int timed;                  /* the record op ran and stamped `when` */
	struct timespec when;
	struct sim_graph *capture_graph; /* recorded into a capture */
	CUgraphNode capture_deps[SIM_CAPTURE_DEPS]; /* ... after the recording stream's set */
	unsigned capture_ndeps;
};

/* ---- the process-wide state ------------------------------------------------------------------ */

struct sim_state {
	pthread_mutex_t lock;
	pthread_cond_t progress;
	pthread_mutex_t mem_lock;
	_Atomic int initialized;
	struct sim_config cfg;
	struct sim_device *devices;
	atomic_ullong next_id;
	_Atomic int global_captures;
	struct sim_hostmem *host;    /* host registrations and host allocations (mem_lock) */
	size_t nhost, cap_host;
};

extern struct sim_state sim;

/* Per-thread state. */
#define SIM_CTX_STACK 32
#define SIM_PT_STREAMS 8
struct sim_thread {
	struct sim_ctx *stack[SIM_CTX_STACK];
	int depth;
	CUstreamCaptureMode capture_mode;
	int own_strict_captures; /* this thread's captures begun in GLOBAL or THREAD_LOCAL mode */
	int own_global_captures;
	struct {
		struct sim_ctx *ctx;
		struct sim_stream *s;
		uint64_t uid;
	} pt[SIM_PT_STREAMS];
	int registered; /* thread-exit destructor armed */
};
extern __thread struct sim_thread sim_thr;

/* ---- helpers shared between files -------------------------------------------------------------- */

/* init.c */
static inline int sim_ready(void)
{
	return atomic_load_explicit(&sim.initialized, memory_order_acquire);
}
#define SIM_REQUIRE_INIT()                                                                     \
	do {                                                                                   \
		if (!sim_ready())                                                              \
			return CUDA_ERROR_NOT_INITIALIZED;                                     \
	} while (0)
void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct sim_device *sim_device_get(CUdevice dev);
unsigned long long sim_new_id(void);
struct sim_watch *sim_watch_find(const char *name);

/* ctx.c */
CUresult sim_ctx_current(struct sim_ctx **ret);          /* INVALID_CONTEXT when none */
CUresult sim_ctx_check(struct sim_ctx *ctx);              /* sticky error, if any */
CUresult sim_ctx_resolve(CUcontext h, struct sim_ctx **ret); /* NULL = current */
void sim_ctx_fault(struct sim_ctx *ctx, CUresult err);
static inline CUresult sim_ctx_sticky(struct sim_ctx *ctx)
{
	return (CUresult)atomic_load_explicit(&ctx->sticky, memory_order_acquire);
}

/* stream.c */
CUresult sim_stream_resolve(CUstream h, int per_thread, struct sim_stream **ret);
struct sim_stream *sim_stream_create_locked(struct sim_ctx *ctx, enum sim_stream_kind kind,
					    unsigned flags, int priority);
/* Queue work on a stream (or run it inline in null mode, or add it to a capture). */
CUresult sim_submit(struct sim_stream *s, const struct sim_work *w);
CUresult sim_submit_wait(struct sim_stream *s, const struct sim_work *w); /* and wait for it */
CUresult sim_stream_sync(struct sim_stream *s);
void sim_ctx_teardown_locked(struct sim_ctx *ctx); /* stop workers, free streams */
void sim_work_release(struct sim_work *w);
void sim_work_execute(struct sim_work *w, struct sim_ctx *ctx); /* for null mode & graphs */
int sim_capture_unsafe(void);    /* a potentially unsafe call is prohibited right now */
CUresult sim_capture_add(struct sim_stream *s, const struct sim_work *w);
static inline int sim_is_null(void) { return sim.cfg.null_mode; }

/* mem.c */
enum sim_range_kind { SIM_RANGE_ALLOC, SIM_RANGE_ASYNC, SIM_RANGE_RESERVE, SIM_RANGE_GLOBAL,
		      SIM_RANGE_IPC /* cuIpcOpenMemHandle: another process's allocation */ };
enum sim_host_kind { SIM_HOST_REGISTERED, SIM_HOST_ALLOC, SIM_HOST_MANAGED };

/* Translate [dptr, dptr+bytes) to host-accessible memory for the simulated copy engine:
 * device window → shadow store; registered/allocated/managed host memory → itself.
 * Returns NULL when the range is not valid device-accessible memory. */
void *sim_mem_translate(CUdeviceptr dptr, size_t bytes, int *pinned_host);
/* For the unified cuMemcpy: any pointer outside the device windows is host memory. */
void *sim_mem_translate_any(CUdeviceptr p, size_t bytes, int *is_device);
void *sim_mem_translate_fast(CUdeviceptr dptr); /* null mode: no validation, no lock */
int sim_host_is_pinned(const void *p, size_t bytes);
int sim_mem_is_managed(CUdeviceptr p);
void sim_mem_release(struct sim_device *dev, CUdeviceptr dptr);
CUresult sim_mem_alloc(struct sim_ctx *ctx, size_t bytes, enum sim_range_kind kind,
		       CUdeviceptr *ret);
void sim_mem_ctx_gone(struct sim_ctx *ctx); /* free what a destroyed context owned */
void sim_mem_init_device(struct sim_device *dev);

/* module.c */
struct sim_module {
	struct sim_obj obj;
	struct sim_ctx *ctx;
	struct sim_image *img;
	struct sim_func **funcs;      /* one per entry */
	CUdeviceptr *global_ptrs;     /* one per .global */
	struct sim_library *library;  /* owner, when made by cuLibraryGetModule */
};
struct sim_func {
	struct sim_obj obj;
	struct sim_module *module;
	struct sim_entry *entry;
	_Atomic int max_dynamic_shared;
};
struct sim_library {
	struct sim_obj obj;
	struct sim_image *img;
	struct sim_kernel **kernels;
	struct sim_module *module;    /* made on first use in a context */
};
struct sim_kernel {
	struct sim_obj obj;
	struct sim_library *library;
	struct sim_entry *entry;
	unsigned index;
	_Atomic int max_dynamic_shared;
};
struct sim_module *sim_module_of_library(struct sim_library *lib, struct sim_ctx *ctx, CUresult *err);
/* The entry behind a CUfunction (or a CUkernel cast to one), its module (NULL for a kernel) and
 * its MAX_DYNAMIC_SHARED_SIZE_BYTES attribute. */
struct sim_entry *sim_launch_entry(CUfunction h, struct sim_module **module, _Atomic int **max_dyn);
int sim_entry_max_dynamic_shared(const struct sim_entry *e, _Atomic int *attr);
void sim_modules_ctx_gone(struct sim_ctx *ctx);

/* graph.c */
struct sim_graph_node;
struct sim_graph {
	struct sim_obj obj;
	struct sim_ctx *ctx;
	unsigned long long id;         /* unique, never reused (an exec names its graph by it) */
	unsigned long long clone_of;   /* cuGraphClone: the original's id, else 0 */
	struct sim_work *nodes;        /* in the order they were added: the replay order */
	struct sim_graph_node **handles; /* the CUgraphNode of each */
	size_t nnodes, cap;
	struct sim_edge { size_t from, to; } *edges; /* dependencies, by node index */
	size_t nedges, cap_edges;
};
/* A CUgraphNode: its graph and its position there (nodes are never removed). */
struct sim_graph_node {
	struct sim_obj obj;
	struct sim_graph *graph;
	size_t index;
	CUgraphNodeType type;
};
struct sim_graph_exec {
	struct sim_obj obj;
	struct sim_ctx *ctx;
	unsigned long long graph_id;   /* the graph it was instantiated from */
	unsigned long long flags;
	struct sim_work *nodes;        /* under sim.lock: cuGraphExec*SetParams replace them */
	size_t nnodes;
	size_t *order;                 /* the replay order: node indexes, dependencies first */
	size_t *child_at;              /* per node: where its child graph's nodes start (0: none) */
	size_t *child_n;               /* ... and how many the child graph has */
	size_t *cond_owner;            /* per node: 1 + the conditional node whose body holds it, 0 */
	unsigned *cond_body;           /* ... and which body */
};
/* Append work to a graph as a new node; NULL when out of memory. */
struct sim_graph_node *sim_graph_append_locked(struct sim_graph *g, const struct sim_work *w);
void sim_work_copy(struct sim_work *dst, const struct sim_work *src);
struct sim_kparams *sim_kparams_copy(const struct sim_kparams *kp);

/* launch.c */
/* The work of a kernel node (cuGraphAddKernelNode, cuGraph*KernelNodeSetParams): validated as a
 * launch in `ctx` would be, with the parameters copied. */
CUresult sim_kernel_node_work(CUfunction f, const unsigned grid[3], const unsigned block[3],
			      unsigned shared, void **params, void **extra, struct sim_ctx *ctx,
			      struct sim_work *w);
enum sim_launch_fate sim_watch_fate(struct sim_watch *w, unsigned long *nth, const struct sim_fault **fault);

/* klog.c: the kernel log a real host would have (CUDASIM_KERNEL_LOG) */
CUresult sim_klog_configure(void);   /* at cuInit */
/* The Xid lines of a fault reached by `w` in `ctx`, appended to the log (no-op without one). */
void sim_klog_fault(const struct sim_work *w, struct sim_ctx *ctx);
/* The address a device-accessible host pointer of the copy engine stands for (mem.c). */
uint64_t sim_mem_device_address(const void *p);
/* The address the faulting access of `w` went to (its address clause); 0 when it has none. */
int sim_fault_address(const struct sim_work *w, uint64_t *addr);

/* gpucore.c: GPU core dumps (CUDA_ENABLE_COREDUMP_ON_EXCEPTION), docs/SIMULATOR.md */
CUresult sim_gpucore_configure(void);   /* at cuInit, after CUDASIM_FAULT */
/* A kernel fault reached by `w` in `ctx`: write the GPU core (and abort, unless told not to). */
void sim_gpucore_fault(const struct sim_work *w, struct sim_ctx *ctx);

#endif
