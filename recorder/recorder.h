/* SPDX-License-Identifier: MIT */
/*
 * Internal interface of the flight recorder (build/libcudainspect-rec.so).  The recorder sees
 * every CUDA driver call through three doors (doors.c), records what it learns into the flight
 * record (record.c lays the region out; objects.c, launch.c, memory.c and events.c fill it) and
 * gets the record out of a dying process (crash.c).  The format is include/cudainspect/record.h;
 * docs/RECORDER.md explains the design and docs/ENVIRONMENT.md the configuration.
 *
 * Rules every file follows: after the one-time setup of a thread, stream, context or function,
 * the launch path takes no lock, allocates nothing and makes no system call; every entry is
 * published by the protocol of record.h (claim, exchange seq with CI_SEQ_BUSY, fill, release
 * store of seq); the recorder never changes what the application sees (return codes,
 * out-parameters, errno, stream semantics) and degrades to pass-through on any internal problem.
 */
#ifndef CI_RECORDER_H
#define CI_RECORDER_H

/* Build against cuda.h as the driver does: every versioned and legacy prototype is declared
 * (cuMemAlloc with its 32-bit ABI next to cuMemAlloc_v2, cuLaunchKernel next to
 * cuLaunchKernel_ptsz), so each wrapper is checked against the exact ABI of its name. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cudainspect/record.h"
#include "api.h"

/* The recorder reads nothing of the reader's API (include/cudainspect/cudainspect.h): its
 * version string, CI_RECORDER_VERSION, comes from the build (recorder/build.mk takes it from
 * there), and it keeps its own bound on section kinds. */
#define CI_REC_SECTION_MAX (CI_SEC_ALLOC_GRANULES + 1) /* one past the highest kind written */

#define CI_HIDDEN __attribute__((visibility("hidden")))
/* The read-mostly globals every launch reads (run state, generation, clock anchors, epochs),
 * together in one section: three cache lines instead of seven, which a real driver's work
 * between two launches evicts (callgrind, caches evicted: 29.8 -> 26.7 data lines missed per
 * launch; docs/PERFORMANCE.md).  Nothing written often goes there (ci_time_mark is not). */
#define CI_HOT __attribute__((section("ci_hot")))
#define CI_EXPORT __attribute__((visibility("default")))
/* For code that may run before a sanitizer runtime is initialised (interposed libc functions a
 * sanitizer's own start-up calls). */
#define CI_UNSANITIZED                                                                         \
	__attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
#define CI_LIKELY(x) __builtin_expect(!!(x), 1)
#define CI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#if defined(__x86_64__) || defined(__i386__)
#define CI_PAUSE() __builtin_ia32_pause()
#else
#define CI_PAUSE() __asm__ volatile("" ::: "memory")
#endif

/* ---------------------------------------------------------------------------------------- */
/* Entry points (doors.c)                                                                     */

enum ci_fn {
#define CI_FN_ENUM(name, hook, flags, params, args) CI_FN_##name,
	CI_API_TABLE(CI_FN_ENUM)
#undef CI_FN_ENUM
	CI_FN_COUNT
};

/* Real driver entry points, by enum ci_fn (NULL where the driver lacks the symbol). */
extern void *ci_real[CI_FN_COUNT];
extern const char *const ci_fn_name[CI_FN_COUNT];
extern const uint8_t ci_fn_flags[CI_FN_COUNT];

/* Call the real driver function NAME (never a wrapper, so the recorder never records itself).
 * Evaluates to CUDA_ERROR_NOT_FOUND when the driver lacks it. */
#define CI_REAL(name, ...)                                                                 \
	(ci_real[CI_FN_##name] ? ((__typeof__(&name))ci_real[CI_FN_##name])(__VA_ARGS__)   \
			       : CUDA_ERROR_NOT_FOUND)

/* Recorder state: CI_UNINIT until the first door is used, then CI_PASS (driver resolved, nothing
 * recorded) or CI_ON. */
enum ci_run_state { CI_UNINIT = 0, CI_PASS = 1, CI_ON = 2 };
extern int ci_run_state; /* atomic */

static inline bool ci_on(void)
{
	return __atomic_load_n(&ci_run_state, __ATOMIC_ACQUIRE) == CI_ON;
}
/* Resolve the driver and create the record, once (doors.c).  Safe to call from any door. */
void ci_ensure_started(void);
/* Messages (message.c): one line "cudainspect: ..." to CUDAINSPECT_LOG or to the original
 * stderr (never to a descriptor 2 the program reused), unless CUDAINSPECT_QUIET is set.
 * ci_say_parts concatenates its parts (NULL ends early) and is async-signal-safe. */
void ci_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ci_say_parts(const char *a, const char *b, const char *c);
/* Note what descriptor 2 is, once, when the recorder is loaded. */
void ci_messages_init(void);

/* One intercepted call, from the wrapper to its hook. */
struct ci_call {
	uint64_t t0;       /* CLOCK_MONOTONIC before the real call */
	void *frame;       /* the wrapper's frame (fast stack walks start here) */
	uint64_t ret;      /* return address into the caller */
	uint32_t fn;       /* enum ci_fn */
	uint32_t flags;    /* CI_F_* of the entry point */
	uint32_t stream;   /* stream slot the hook resolved, for the error entry */
	uint32_t ctx;      /* context slot, likewise */
	uint32_t stack;    /* stack id once captured (0 = not yet) */
	uint32_t pre_slot; /* scratch from a _pre hook */
	uint32_t failed;   /* the driver refused the call: its handles may be garbage, ask nothing */
	uint64_t pre_value;
};

/* ---------------------------------------------------------------------------------------- */
/* Configuration (config.c)                                                                   */

struct ci_config {
	bool disabled;
	bool quiet;
	bool verbose;
	uint64_t size;             /* record bytes */
	char dir[PATH_MAX];        /* persistent mode when non-empty */
	char snapshot_dir[PATH_MAX];
	unsigned snapshot_mask;    /* 1 << enum ci_snapshot_reason */
	int stack_mode;            /* enum ci_stack_mode */
	unsigned stack_depth;
	bool crumbs;
	bool graph_crumbs;         /* in-graph breadcrumbs (CUDAINSPECT_GRAPH_CRUMBS) */
	unsigned graph_crumb_every; /* one after every K-th captured kernel (_GRAPH_CRUMB_EVERY) */
	unsigned crumb_every;      /* K launches, 0 = time only (a cadence replaces the budget) */
	unsigned crumb_us;         /* T microseconds, 0 = not by time */
	unsigned crumb_budget_ppm; /* share of each thread's time breadcrumbs may take (parts per
				    * million; 0 = a fixed cadence above) */
	bool crumb_barrier;        /* flags 0 (memory barrier) or NO_MEMORY_BARRIER */
	unsigned crumb_width;      /* 0 = by device attribute, 4 or 8 forced */
	unsigned param_bytes;
	bool signals;
	bool jit;
	bool python;               /* CUDAINSPECT_PYTHON: Python frames with every stack */
	char driver[PATH_MAX];
	char log[PATH_MAX];        /* CUDAINSPECT_LOG: messages go there */
	char kmsg[PATH_MAX];       /* CUDAINSPECT_KMSG: the kernel log to read ("" = /dev/kmsg) */
	bool kmsg_off;             /* CUDAINSPECT_KMSG=off */
	bool nccl;                 /* CUDAINSPECT_NCCL: interpose NCCL (nccl.c) */
	uint64_t nccl_timeout_ns;  /* CUDAINSPECT_NCCL_TIMEOUT: a collective outstanding this long
				    * writes the hang snapshot; 0 = never */
	char notes[512];           /* warnings about the configuration, said at the first CUDA call */
};
extern struct ci_config ci_cfg;

#define CI_SIZE_DEFAULT (32ull << 20)
/* Breadcrumbs may take 0.25 % of a thread's time by default: on the H200 a breadcrumb costs about
 * 1.2 us of CPU (a second driver call as dear as the launch), so about one every 480 us of a
 * thread's time; the rest of the 1 % recording may cost is the launch's bookkeeping
 * (docs/RECORDER.md, "Breadcrumbs"). */
#define CI_CRUMB_BUDGET_DEFAULT 2500u
/* In-graph breadcrumbs after every K-th kernel a capture adds (docs/RECORDER.md, "In-graph
 * breadcrumbs"). */
#define CI_GRAPH_CRUMB_EVERY_DEFAULT 1u
/* A breadcrumb write that took longer than this was preempted or waited: it counts as this. */
#define CI_CRUMB_COST_MAX_NS 20000u
/* A collective outstanding this long writes the hang snapshot (CUDAINSPECT_NCCL_TIMEOUT): well
 * below the launchers' and PyTorch's watchdogs (10 minutes by default), so the evidence exists
 * before they kill the job, and long past any collective of a healthy decode step. */
#define CI_NCCL_TIMEOUT_DEFAULT_NS (30ull * 1000000000ull)
#define CI_SIZE_MIN (1ull << 20)
#define CI_SIZE_MAX (1ull << 30)

/* Parse the CUDAINSPECT_* environment into CFG.  On a bad value returns false with a message
 * in ERR (the recorder then passes through).  Prints nothing: warnings go to CFG->notes, said
 * at the first CUDA call (a shell or interpreter that never uses CUDA stays silent). */
bool ci_config_parse(struct ci_config *cfg, char *err, size_t errlen);

/* ---------------------------------------------------------------------------------------- */
/* Lock-free maps (map.c): 64-bit keys to 32-bit slot numbers, open addressing, insert-only
 * except for tombstones.  Used for handle -> table slot lookups on the launch path. */

struct ci_map_slot {
	uint64_t key;   /* 0 = empty, CI_MAP_TOMB = removed (atomic) */
	uint32_t value; /* slot + 1; 0 while the inserting thread sets the entry up (atomic) */
	uint32_t pad;
};
struct ci_map {
	struct ci_map_slot *slots;
	uint64_t mask;
};
#define CI_MAP_TOMB UINT64_MAX

/* Slot for KEY, or CI_NONE. */
uint32_t ci_map_get(const struct ci_map *m, uint64_t key);
/* Claim KEY: returns true and sets *SLOT when this thread inserted it (it must then call
 * ci_map_publish); false with *VALUE set when it already existed (CI_NONE if the map is full or
 * the other thread did not finish in time). */
bool ci_map_claim(struct ci_map *m, uint64_t key, struct ci_map_slot **slot, uint32_t *value);
void ci_map_publish(struct ci_map_slot *slot, uint32_t value);
void ci_map_remove(struct ci_map *m, uint64_t key);
bool ci_map_init(struct ci_map *m, uint64_t min_capacity);
void ci_map_reset(struct ci_map *m);

static inline uint64_t ci_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---------------------------------------------------------------------------------------- */
/* The record (record.c)                                                                      */

/* A section of the live record, with its directory entry and entries resolved once. */
struct ci_sec {
	struct ci_section *dir;
	uint8_t *base;
	uint64_t capacity;
	uint32_t entry_size;
};

/* Per-stream state that is not part of the format (one cache line each). */
struct ci_stream_priv {
	uint64_t handle;          /* the handle breadcrumbs are written through */
	uint64_t last_crumb_ns;   /* atomic */
	uint32_t ctx;             /* context slot */
	uint32_t kind;
	uint32_t destroyed;       /* atomic */
	uint32_t owner;           /* tid numbering launches without a locked add, 0 = none yet,
				   * CI_STREAM_SHARED once a second thread launched (launch.c) */
	uint32_t owner_busy;      /* 1 while the owner updates `launches` (atomic) */
	uint32_t pad[7];          /* to 64 bytes: one cache line per stream */
};
#define CI_STREAM_SHARED UINT32_MAX
_Static_assert(sizeof(struct ci_stream_priv) == 64, "ci_stream_priv is one cache line");

/* Per-context state that is not part of the format. */
struct ci_ctx_priv {
	uint64_t handle;
	uint64_t green;           /* CUgreenCtx it came from, 0 if none */
	uint64_t crumb_alias;     /* device address of the breadcrumb area, 0 = none (atomic) */
	uint32_t crumb_status;    /* enum ci_crumb_status for new streams (atomic) */
	uint32_t crumb_width;     /* 4 or 8 (atomic) */
	uint32_t crumb_ready;     /* 0 = not tried, 1 = being set up, 2 = done (atomic) */
	uint32_t device;          /* device slot */
};

/* How a launch copies a function's parameters (launch.c), worked out once from its layout and
 * CUDAINSPECT_PARAM_BYTES when the function is registered. */
#define CI_PLAN_GAPS 4         /* padding runs a plan zeroes itself (more: the whole area) */
#define CI_PLAN_GAPS_MANY 0xff
struct ci_func_priv {
	uint8_t known;            /* the driver gave the layout */
	uint8_t n;                /* parameters copied (those that fit) */
	uint8_t len;              /* bytes of ci_launch.params they cover */
	uint8_t cut;              /* CI_LAUNCH_PARAMS_CUT when some are left out, else 0 */
	uint8_t gaps;             /* bytes of [0, len) no parameter covers: runs of at most 16, at
				   * gap_off[0..gaps); CI_PLAN_GAPS_MANY when there are more */
	uint8_t gap_off[CI_PLAN_GAPS];
	uint8_t off[CI_PARAMS_MAX];
	uint8_t size[CI_PARAMS_MAX];
};
_Static_assert(CI_LAUNCH_PARAM_BYTES <= UINT8_MAX, "parameter offsets fit a byte");

/* Per-communicator state that is not part of the format (nccl.c). */
struct ci_nccl_priv {
	uint64_t *p2p;            /* sends to and receives from each peer: 2 * nranks counters */
	int32_t nranks;
	uint32_t derived;         /* splits and shrinks made from it so far (atomic) */
	/* The communicator's latest collective with a stream number, for the hang watchdog:
	 * written by the calling thread under a sequence count (gen odd while it changes). */
	uint32_t wd_gen;
	uint32_t wd_stream;
	uint64_t wd_stream_seq;
	uint64_t wd_ns;
};

struct ci_rec {
	uint8_t *base;
	uint64_t size;
	uint32_t page_size;
	bool persistent;
	char path[PATH_MAX];      /* persistent file path */
	struct ci_header *hdr;
	struct ci_sec sec[CI_REC_SECTION_MAX];
	/* Private lookup maps. */
	struct ci_map ctx_map;     /* CUcontext -> context slot */
	struct ci_map stream_map;  /* CUstream or composite key -> stream slot */
	struct ci_map func_map;    /* CUfunction/CUkernel -> function slot */
	struct ci_map module_map;  /* CUmodule/CUlibrary -> code module slot */
	struct ci_map stack_map;   /* stack hash -> stack slot */
	struct ci_map string_map;  /* string hash -> string offset */
	struct ci_map device_map;  /* CUdevice + 1 -> device slot */
	struct ci_map py_code_map; /* code object fingerprint -> CI_SEC_PY_CODES slot */
	struct ci_map graph_map;   /* CUgraph -> graph slot (graphs.c) */
	struct ci_map node_map;    /* CUgraphNode -> its newest node entry */
	struct ci_map exec_map;    /* CUgraphExec -> exec slot */
	struct ci_map nccl_map;    /* ncclComm_t -> communicator slot (nccl.c) */
	struct ci_stream_priv *streams; /* parallel to CI_SEC_STREAMS */
	struct ci_ctx_priv *ctxs;       /* parallel to CI_SEC_CONTEXTS */
	struct ci_func_priv *funcs;     /* parallel to CI_SEC_FUNCTIONS */
	struct ci_nccl_priv *nccl;      /* parallel to CI_SEC_NCCL_COMMS */
	void *symimage;            /* CI_SEC_SYMBOL_IMAGE base: the live allocations' image, NULL if
				    * absent */
	void *symfreed;            /* the frees' image, right after it */
	uint32_t alloc_probe_max;
};
extern struct ci_rec ci_rec;

/* Bumped when the record is replaced (fork child): thread-local caches compare against it. */
extern uint32_t ci_generation; /* atomic */
/* Bumped whenever a stream, context or code module goes away (its handle may be reused). */
extern uint32_t ci_object_epoch; /* atomic */

/* Section capacities for a record of SIZE bytes (also used by tests). */
struct ci_layout {
	uint64_t size;
	uint32_t page_size;
	uint64_t dir_offset;
	struct {
		uint32_t kind;
		uint32_t entry_size;
		uint64_t offset;
		uint64_t capacity;
	} sec[CI_REC_SECTION_MAX];
	uint32_t count;
};
bool ci_layout_compute(uint64_t size, uint32_t page_size, struct ci_layout *out);

/* Create the record region and lay it out; false (with a message said) on failure. */
bool ci_record_create(void);
/* Drop the record in a fork child (the parent keeps it) so that the child makes its own. */
void ci_record_forget(void);
/* Fill the record header's process fields (pid, times, exe, cmdline). */
void ci_record_describe_process(void);

/* Kernel-log lines (klog.c): note CLOCK_BOOTTIME and the creating thread's name when the
 * record is made; at the first sticky error (never in a signal handler) stamp the three clocks
 * in the header and keep this process's NVIDIA lines of the kernel log in CI_SEC_KERNEL_LOG. */
void ci_klog_note_start(void);
uint64_t ci_klog_start_boottime(void);
void ci_klog_at_sticky(void);

static inline struct ci_sec *ci_sec(enum ci_section_kind kind)
{
	return &ci_rec.sec[kind];
}
static inline void *ci_entry(enum ci_section_kind kind, uint64_t slot)
{
	struct ci_sec *s = &ci_rec.sec[kind];
	return s->base + slot * s->entry_size;
}

/* CLOCK_MONOTONIC nanoseconds, read through the TSC where the kernel trusts it (clock.c).
 * Inline: the launch path reads the clock, and a call into clock.c cost a quarter of that. */
void ci_clock_init(void);
uint64_t ci_now_slow(void);
#if defined(__x86_64__)
struct ci_tsc_anchor {
	uint64_t tsc, mono;  /* a simultaneous reading of both clocks */
	uint64_t mult;       /* ns per tick, 32.32 fixed point */
	uint64_t span;       /* ticks after which to take a new anchor (about one second) */
};
/* Two anchors; readers use the one ci_tsc_current names.  ci_tsc_state: 0 = not usable,
 * 1 = calibrating, 2 = in use. */
extern struct ci_tsc_anchor ci_tsc[2];
extern int ci_tsc_current, ci_tsc_state;
static inline uint64_t ci_now(void)
{
	if (CI_LIKELY(__atomic_load_n(&ci_tsc_state, __ATOMIC_ACQUIRE) == 2)) {
		const struct ci_tsc_anchor *a =
			&ci_tsc[__atomic_load_n(&ci_tsc_current, __ATOMIC_ACQUIRE)];
		uint64_t d = __builtin_ia32_rdtsc() - a->tsc;
		if (CI_LIKELY(d < a->span))
			return a->mono + (uint64_t)(((unsigned __int128)d * a->mult) >> 32);
	}
	return ci_now_slow();
}
#else
static inline uint64_t ci_now(void)
{
	return ci_now_slow();
}
#endif

/* Publishing (record.h): take slot SLOT of a section for an entry numbered SEQ (index + 1 for
 * rings and tables).  Returns false if another writer owns the slot (the entry is dropped). */
static inline bool ci_entry_begin(uint64_t *seq_field)
{
	return __atomic_exchange_n(seq_field, CI_SEQ_BUSY, __ATOMIC_ACQ_REL) != CI_SEQ_BUSY;
}
static inline void ci_entry_publish(uint64_t *seq_field, uint64_t seq)
{
	__atomic_store_n(seq_field, seq, __ATOMIC_RELEASE);
}
static inline void ci_count_dropped(enum ci_section_kind kind)
{
	__atomic_fetch_add(&ci_rec.sec[kind].dir->dropped, 1, __ATOMIC_RELAXED);
	__atomic_fetch_or(&ci_rec.hdr->flags, CI_HDR_TRUNCATED, __ATOMIC_RELAXED);
}
/* Claim the next slot of an append-only table; CI_NONE (counted as dropped) when full. */
uint32_t ci_table_claim(enum ci_section_kind kind);
/* Claim N consecutive slots of a table (for cache-line spacing); CI_NONE when full. */
uint32_t ci_table_claim_n(enum ci_section_kind kind, uint32_t n);
/* Claim the next index of a ring and return the entry; NULL if the slot is being written by
 * another thread (dropped).  *SEQ receives the seq to publish. */
void *ci_ring_claim(enum ci_section_kind kind, uint64_t *seq);
/* Intern a string into CI_SEC_STRINGS; 0 (the empty string) if it does not fit. */
uint32_t ci_string(const char *s, size_t maxlen);

/* Python frames (python.c).  ci_python_prepare looks the interpreter's symbols up (before the
 * start lock: dlsym may take the loader's lock); ci_python_init writes the Python section once
 * the record exists and says once why Python frames are not recorded where it is Python;
 * ci_python_capture appends the calling thread's Python frames (CI_PYFRAME_* words) to
 * FRAMES[N..MAX) and returns the new count: no GIL, no Python call, no lock, no system call. */
void ci_python_prepare(void);
void ci_python_init(void);
unsigned ci_python_capture(uint64_t *frames, unsigned n, unsigned max);
/* Whether ci_python_capture walks at all (a CPython process with a known layout): checked by
 * the stack capture before the call, so a process without Python pays one load. */
extern bool ci_python_walks;

/* ---------------------------------------------------------------------------------------- */
/* Threads (thread.c)                                                                         */

struct ci_tls {
	uint32_t generation;       /* ci_generation when set up; 0 = not set up */
	uint32_t tid;
	uint32_t slot;             /* CI_SEC_THREADS slot */
	uint32_t chunk;            /* launch ring chunk size now used */
	uint64_t lnext, lend;      /* launch ring indices claimed, not yet used */
	uint64_t lslot;            /* ring slot of lnext */
	uint64_t lchunk_ns;        /* when the chunk was claimed */
	uintptr_t stack_lo, stack_hi;
	uint64_t pt_ctx;           /* per-thread default stream cache: context handle */
	uint32_t pt_slot;          /* ... and its stream slot */
	uint32_t legacy_slot;
	uint64_t legacy_ctx;
	uint32_t ctx_epoch;        /* contexts destroyed when the two caches above were filled */
	uint32_t cache_epoch;      /* ci_object_epoch when the launch caches below were filled */
	uint64_t last_func;        /* the last CUfunction launched, and its slot */
	uint32_t last_fslot;
	uint32_t last_sslot;
	uint64_t last_stream;      /* the last created stream launched into, and its slot */
	uint64_t last_query;       /* dedup of NOT_READY polling */
	int32_t last_query_result;
	uint32_t in_setup;         /* recorder's own driver calls in progress on this thread */
	uint32_t crumb_cost_ns;    /* this thread's breadcrumb write cost, smoothed (budget mode) */
	uint64_t crumb_ready_ns;   /* no breadcrumb before this time (budget mode) */
	uint32_t crumb_stream;     /* the stream slot the last one went to (budget mode) */
	uint32_t crumb_other_stream; /* launched into another stream since (budget mode) */
	struct ci_last_stack *last_stack; /* this thread's last two stacks (stacks.c): their
					   * address here saves the launch a __tls_get_addr call */
	uint64_t stamp_ns;         /* the clock's last reading for a launch (ci_launch_now) */
	uint64_t stamp_mark;       /* ci_time_mark then */
	uint32_t stamp_left;       /* launches that may still share it */
	uint32_t last_xslot;       /* the last graph exec launched: its slot, checked at use */
	uint64_t last_exec;        /* ... and its handle */
};
extern __thread struct ci_tls ci_tls __attribute__((tls_model("initial-exec")));

void ci_thread_setup(struct ci_tls *t);
static inline struct ci_tls *ci_thread(void)
{
	struct ci_tls *t = &ci_tls;
	if (CI_UNLIKELY(t->generation != __atomic_load_n(&ci_generation, __ATOMIC_RELAXED)))
		ci_thread_setup(t);
	return t;
}

/* Launch times.  Reading the clock (rdtsc) is a quarter of what the recorder adds to a launch,
 * so a cuLaunchKernel(Ex) made right after its thread's previous one shares that one's time
 * when no recorded call of any thread came in between and at most CI_STAMP_SHARED launches did
 * (CI_LAUNCH_TIME_SHARED; docs/RECORDER.md, "Launch times").  Every other recorded call marks
 * ci_time_mark with its time before calling the driver, so a launch's time orders it exactly
 * against every allocation, free, synchronization, event and error of every thread: the shared
 * time is earlier than the launch and later than every such call that began before it. */
#define CI_STAMP_SHARED 7
extern uint64_t ci_time_mark; /* atomic: the time of the newest recorded non-launch call */
static inline uint64_t ci_time_marked(uint64_t now)
{
	__atomic_store_n(&ci_time_mark, now, __ATOMIC_RELAXED);
	return now;
}
/* The time of a launch beginning now; *SHARED tells whether it is its predecessor's. */
static inline uint64_t ci_launch_now(bool *shared)
{
	struct ci_tls *t = &ci_tls;
	uint64_t mark = __atomic_load_n(&ci_time_mark, __ATOMIC_RELAXED);
	if (CI_LIKELY(t->stamp_left && mark == t->stamp_mark)) {
		t->stamp_left--;
		*shared = true;
		return t->stamp_ns;
	}
	t->stamp_ns = ci_now();
	t->stamp_mark = mark;
	t->stamp_left = CI_STAMP_SHARED;
	return t->stamp_ns;
}

/* ---------------------------------------------------------------------------------------- */
/* Host stacks and modules (stacks.c, modules.c)                                              */

/* Capture the caller's stack for CALL (once; cached in call->stack) and return its id. */
uint32_t ci_stack_of(struct ci_call *call);
/* The calling thread's last two stacks, in dynamic TLS (too big for the initial-exec block of a
 * recorder that may be dlopen'd); ci_thread_setup keeps their address in ci_tls. */
struct ci_last_stack *ci_stack_last_of_thread(void);
/* The module list now (lock-free; a new one at every rescan, and old ones are never freed, so
 * it names its version), and whether ADDRESS lies in the executable code of a loaded module by
 * RANGES. */
const void *ci_code_ranges_now(void);
bool ci_code_address_in(const void *ranges, uint64_t address);
/* Bring the host module table up to date if a dlopen/dlclose happened (cheap when not). */
void ci_modules_refresh(bool force);
/* The same with the clock's reading NOW, which the caller has (a clock read less per call). */
void ci_modules_refresh_at(bool force, uint64_t now);
/* The program looked a symbol up: rescan now if the loader loaded or unloaded anything (no
 * 10 ms wait), so that a library it just loaded is known before its code calls CUDA. */
void ci_modules_loaded(void);
void ci_stacks_init(void);
void ci_stacks_prepare(void);

/* ---------------------------------------------------------------------------------------- */
/* Allocations (memory.c) and the freed ones GDB names (symfreed.c)                           */

/* Whether a live allocation that the symbol image names starts at ADDRESS (lock-free). */
bool ci_alloc_live_at(uint64_t address);
/* Whether allocation table slot SLOT may ever have been written (false: it is all zeros and a
 * snapshot leaves it a hole without reading it; lock-free, async-signal-safe).  A new record
 * starts with none written. */
bool ci_alloc_slot_written(uint64_t slot);
/* Lay out (at record creation) and drop the index of named frees for a ring of RING_CAPACITY. */
bool ci_symfreed_init(uint64_t ring_capacity);
void ci_symfreed_destroy(void);
/* A live allocation was published at [ADDRESS, ADDRESS + SIZE): frees named there go. */
void ci_symfreed_live(uint64_t address, uint64_t size);
/* Free ring slot SLOT now holds the free of allocation ID (of KIND): name it if it may be. */
void ci_symfreed_freed(uint32_t slot, uint64_t id, uint32_t kind, uint64_t address,
		       uint64_t size);

/* ---------------------------------------------------------------------------------------- */
/* CUDA objects (objects.c)                                                                   */

uint32_t ci_device_slot(CUdevice dev);
void ci_devices_record_all(void);
/* Context slot for handle CTX (registering it, kind guessed, when first seen). */
uint32_t ci_ctx_slot(CUcontext ctx);
uint32_t ci_ctx_current_slot(void);
uint32_t ci_ctx_register(CUcontext ctx, uint32_t kind, uint32_t flags, struct ci_call *call);
void ci_ctx_destroyed(CUcontext ctx);
/* Stream slot for a stream argument as the application passed it to entry point CALL. */
uint32_t ci_stream_slot(CUstream h, const struct ci_call *call);
uint32_t ci_stream_register(CUstream h, uint32_t kind, uint32_t flags, int priority,
			    uint32_t ctx_slot, struct ci_call *call);
void ci_stream_destroyed(CUstream h);
uint32_t ci_code_module_register(uint64_t handle, uint32_t kind, uint32_t ctx,
				 const char *source, const void *image, struct ci_call *call);
void ci_code_module_unloaded(uint64_t handle);
/* Function slot for a CUfunction/CUkernel, registering it (name, parameter layout) when
 * first seen.  NAME and MODULE may be unknown (NULL / CI_NONE). */
uint32_t ci_function_slot(uint64_t handle);
uint32_t ci_function_register(uint64_t handle, uint32_t kind, uint32_t module, const char *name);
/* Work out the parameter copy of function slot SLOT from its layout (launch.c). */
void ci_launch_plan(uint32_t slot, const struct ci_function *fn);
uint32_t ci_thread_slot(void);

/* Make the recorder's own driver calls safe inside a stream capture of this thread. */
struct ci_setup_scope {
	CUstreamCaptureMode saved;
	bool switched;
};
void ci_setup_enter(struct ci_setup_scope *s);
void ci_setup_leave(struct ci_setup_scope *s);

/* ---------------------------------------------------------------------------------------- */
/* Errors and events (events.c)                                                               */

/* Record a non-success RESULT of CALL: ARGS names the arguments ("(dptr, bytesize)"), VALS
 * their values, IS_SIGNED which are signed integers. */
void ci_api_error_record(struct ci_call *call, CUresult result, const char *args,
			 const uint64_t *vals, const uint8_t *is_signed, unsigned nvals);
/* Whether RESULT poisons the context: cuda.h's own wording, through the table generated from it
 * at build time ($(BUILD)/gen/cuda-results.h, corefile/names-curesult.awk). */
bool ci_result_is_sticky(CUresult r);
void ci_event_record(struct ci_call *call, uint32_t kind, CUresult r, uint64_t a, uint64_t b,
		     uint64_t value, uint64_t duration_ns);
extern int ci_captures_active; /* atomic: captures begun and not yet ended */

/* ---------------------------------------------------------------------------------------- */
/* Graphs (graphs.c)                                                                          */

/* What a node is, from the call that captured, added or changed it. */
struct ci_node_args {
	uint32_t type;            /* enum ci_node_type (0 on an update: the node's own) */
	uint32_t stream;          /* set by graphs.c */
	uint64_t handle;          /* CUgraphNode (set by graphs.c for captured nodes) */
	uint64_t func;            /* kernels: CUfunction/CUkernel; host nodes: CUhostFn */
	uint32_t grid[3], block[3], shared;
	void **params, **extra;
	uint64_t a, b, bytes;
	uint32_t dep_count, deps[CI_NODE_DEPS]; /* as ci_graph_node's (set by graphs.c) */
};
/* A stream's capture, from cuStreamGetCaptureInfo. */
struct ci_capture {
	bool active;              /* ACTIVE (not invalidated) */
	uint64_t id, graph, node; /* node: the one the last operation became, 0 if not one */
	uint32_t ndeps;           /* the capture's dependency set: its size, its first nodes */
	uint64_t deps[CI_NODE_DEPS];
};
/* Whether STREAM (a handle as a stream slot keeps it) is capturing (active or invalidated). */
bool ci_capture_info(uint64_t stream, struct ci_capture *out);
/* An operation enqueued on stream slot SSLOT became a node if the stream captures (KNOWN: its
 * capture as the caller asked after the operation, or NULL to ask). */
void ci_graph_captured(struct ci_call *c, uint32_t sslot, const struct ci_capture *known,
		       struct ci_node_args *n);
void ci_graph_capture_begin(struct ci_call *c, uint32_t sslot, unsigned mode, uint64_t into);
void ci_graph_capture_end(struct ci_call *c, CUresult r, uint64_t graph, uint64_t began);
/* cuStreamUpdateCaptureDependencies changed the dependency set of stream S's capture. */
void ci_graph_capture_deps_changed(struct ci_call *c, CUresult r, CUstream s);
uint64_t ci_graph_of_capture(uint32_t sslot);
void ci_graph_created(struct ci_call *c, CUresult r, uint64_t graph);
void ci_graph_destroyed(struct ci_call *c, CUresult r, uint64_t graph);
void ci_graph_node_added(struct ci_call *c, CUresult r, uint64_t graph, struct ci_node_args *n);
/* Node NODE changed: in the graph (EXEC 0) or in executable graph EXEC. */
void ci_graph_node_updated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			   struct ci_node_args *n, uint16_t flags);
void ci_graph_instantiated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph,
			   uint64_t flags);
void ci_graph_exec_destroyed(struct ci_call *c, CUresult r, uint64_t exec);
void ci_graph_cloned(struct ci_call *c, CUresult r, uint64_t clone, uint64_t original);
/* cuGraphExecUpdate: EXEC now runs GRAPH's parameters, ordinal for ordinal. */
void ci_graph_exec_updated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph);
void ci_graph_node_destroyed(struct ci_call *c, CUresult r, uint64_t node);
/* cuGraphAddDependencies (ADD) or cuGraphRemoveDependencies: N edges FROM[i] -> TO[i]. */
void ci_graph_edges(struct ci_call *c, CUresult r, const CUgraphNode *from, const CUgraphNode *to, size_t n,
		    bool add);
void ci_graph_node_enabled(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, unsigned enabled);
/* A cuGraphLaunch of EXEC: its replay number (0 when it failed or EXEC is unknown), and the
 * exec's slot in *SLOT (CI_NONE unknown).  No lock. */
uint64_t ci_graph_replay(CUresult r, uint64_t exec, uint32_t *slot);
void ci_graphs_forget(void);
/* Before a cuGraphLaunch: reset the in-graph breadcrumb of EXEC's graph on stream S. */
/* The device address of breadcrumb slot SLOT for context slot CTX (setting the context's
 * breadcrumbs up first if needed) and the width of its writes; 0 when breadcrumbs are off
 * there (launch.c). */
uint64_t ci_crumb_address(uint32_t ctx, uint32_t slot, uint32_t *width);
/* Enqueue the write of VALUE at ADDRESS (from ci_crumb_address) on STREAM. */
CUresult ci_crumb_write(uint64_t stream, uint64_t address, uint32_t width, uint64_t value);
/* The next number of stream slot SLOT for something that is not a launch (an NCCL call): one
 * locked add (launch.c). */
uint64_t ci_stream_take(uint32_t slot);
/* Enqueue a breadcrumb of VALUE on stream slot SLOT now (NOW: the caller's clock), whatever the
 * budget says (charged to it); true when it was enqueued (launch.c). */
bool ci_crumb_now(uint32_t slot, uint64_t value, uint64_t now);
/* Whether the calling thread's budget (or the cadence: every launch) allows a breadcrumb now. */
bool ci_crumb_allowed(uint64_t now);
/* Copy a kernel's parameters into OUT (CI_LAUNCH_PARAM_BYTES) as launch.c does for launches;
 * every byte of OUT past the length returned is zero after it.  OLD_LEN: how many of OUT's bytes
 * may be non-zero before (the length the entry had; CI_LAUNCH_PARAM_BYTES when not known). */
uint16_t ci_params_copy(uint8_t *out, uint32_t old_len, const struct ci_func_priv *fp,
			void **params, void **extra,
			uint16_t *flags);

/* ---------------------------------------------------------------------------------------- */
/* NCCL (nccl.c), the job (job.c), peer memory (peer.c)                                       */

/* glibc's dlsym (doors.c), resolved by ci_dlsym_resolve. */
typedef void *(*ci_dlsym_fn)(void *, const char *);
extern ci_dlsym_fn ci_real_dlsym;
void ci_dlsym_resolve(void);
/* The NCCL half of the interposed dlsym: NAME is "nccl" + capital, looked up in HANDLE. */
void *ci_dlsym_nccl(void *handle, const char *name);
/* Whether NCCL is to be interposed (configuration read, recording not disabled). */
bool ci_nccl_wanted(void);
/* Record the launcher variables (RANK, SLURM_PROCID, ...) that are new or changed. */
void ci_job_record(void);
/* The id of the live allocation of a kind in MATCH keyed by KEY (address, or handle for VMM
 * handles), 0 if none (memory.c). */
uint64_t ci_alloc_id_at(uint32_t match, uint64_t key);
/* FNV-1a 64 of N bytes, continuing from H (start with CI_FNV_INIT). */
#define CI_FNV_INIT 0xcbf29ce484222325ull
static inline uint64_t ci_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* ---------------------------------------------------------------------------------------- */
/* Crashes, snapshots, fork (crash.c), fatal signals (signals.c)                              */

/* Set at record creation: the process runs under a seccomp filter (ci_sf_restricted), so the
 * recorder makes no system call it can do without (madvise, memfd_create, fallocate, ...). */
extern bool ci_restricted;

void ci_crash_install(void);
/* A fatal signal the program does not handle: note it in the header (state SIGNALED, fatal_*)
 * and write the signal snapshot, once per process (other threads wait, bounded).
 * Async-signal-safe. */
void ci_fatal_record(int sig, const siginfo_t *info);
/* Put the recorder's handler in front of the fatal signals (signals.c); the program's own
 * handlers, earlier or later, run first (see signals.c). */
void ci_signals_install(void);
/* The real sigaction and signal (dlvsym), and the fork handler: from the constructor. */
void ci_signals_at_load(void);
/* Write a snapshot of the record for REASON; returns true on success. */
bool ci_snapshot_write(enum ci_snapshot_reason reason);
/* Remove the last hang snapshot this process wrote (a delay it described ended: the record
 * keeps its calls flagged LATE), if that file is still at its name; NAME gets its path.  True
 * when it was removed.  The NCCL watchdog thread's only. */
bool ci_snapshot_remove_hang(char *name, size_t size);
/* The first sticky error: CLAIM it (true for one caller only, who must then call
 * ci_sticky_error_seen); WAIT (bounded) while that caller is still re-registering with GDB, so
 * that a thread about to abort on an error does not stop a debugger before it. */
bool ci_sticky_claim(void);
void ci_sticky_error_seen(void);
void ci_sticky_wait(void);
void ci_jit_register(void);
/* Register the symbol image (and the record when RECORD) with GDB again, waiting up to
 * WAIT_MS for another thread's refresh.  Async-signal-safe. */
void ci_jit_refresh(bool record, int wait_ms);

/* Fork child: each part lets go of what belonged to the parent's record. */
void ci_doors_after_fork_child(void);
void ci_jit_forget(void);
void ci_modules_forget(void);
void ci_crumbs_forget(void);
/* A context went away: breadcrumb aliases registered through it may be stale. */
void ci_crumbs_ctx_gone(uint32_t ctx_slot);

/* ---------------------------------------------------------------------------------------- */
/* Hooks called by the generated wrappers (hooks.h maps the table's hook names to these).   */

#include "hooks.h"

#endif
