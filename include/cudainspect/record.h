/* SPDX-License-Identifier: MIT */
/*
 * The cudainspect flight record: the one contract between the recorder (which writes it in a
 * live process) and the reader and GDB plugin (which decode it from a core, a snapshot file, a
 * persistent file, a live pid or GDB's JIT interface).
 *
 * The record is one contiguous, page-aligned region of fixed size.  It starts with
 * struct ci_header, which points (by offset from the start of the region, never by pointer) to a
 * directory of sections.  Every section holds fixed-size entries, except the byte areas
 * (strings, frames, breadcrumbs, symbol image).  All integers are little-endian, all structs
 * have explicit padding, and every size is pinned by a static assertion below, so the bytes mean
 * the same everywhere.  docs/FORMAT.md is the prose version of this file, including the
 * versioning rules.
 *
 * Publishing.  Every entry starts with a 64-bit `seq`.  A writer claims index I of a section by
 * an atomic add on the section's `head` (possibly in chunks), then takes the slot
 * (I % capacity) by atomically exchanging the slot's seq with CI_SEQ_BUSY; if the previous value
 * was already CI_SEQ_BUSY another writer owns the slot and this entry is dropped (counted in
 * `dropped`).  The writer then fills the payload and publishes it with a release store of
 * seq = I + 1.  Hence: seq == 0 means never written, seq == CI_SEQ_BUSY means being written (a
 * reader that finds it in a core or snapshot has found a torn entry), and any other value means
 * the payload is exactly the one published with that seq.  A reader of a live process copies
 * the entry and re-reads seq; it accepts the copy only if seq did not change.  A reader accepts
 * an entry only if (seq - 1) % capacity equals its slot and seq <= head.
 *
 * Fields that change after publication (destroy times, per-stream counters, states of the
 * allocation table) are naturally aligned 64- or 32-bit words updated with single atomic stores,
 * so they are never torn.
 */
#ifndef CUDAINSPECT_RECORD_H
#define CUDAINSPECT_RECORD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CI_RECORD_MAGIC "CUDAINSP" /* 8 bytes at offset 0, no NUL */
#define CI_RECORD_MAGIC_LEN 8

/* A reader refuses a major it does not know; it accepts any minor of a major it knows and
 * ignores what it does not understand (new sections, bytes past the entry sizes it knows). */
#define CI_FORMAT_MAJOR 1
#define CI_FORMAT_MINOR 6

/* How a reader finds the record (docs/FORMAT.md, "Locating"): the memfd backing it is named
 * CI_MEMFD_NAME, so NT_FILE and /proc/PID/maps show "/memfd:cudainspect-record (deleted)"; the
 * recorder exports CI_RECORD_SYMBOL, a `void *` holding the region's address (0 until
 * created); and the region starts a page with the magic.  The region is also registered with
 * GDB's JIT interface (__jit_debug_descriptor) as one jit_code_entry whose symfile is the whole
 * region. */
#define CI_MEMFD_NAME "cudainspect-record"
#define CI_RECORD_SYMBOL "cudainspect_record"
/* Record files (docs/FORMAT.md, "Files"): <dir>/<stem>[-<tag>]<suffix> with stem
 * cudainspect-<host>-<pid>-<start> (<start>: the record's start, UTC, to the microsecond, e.g.
 * 20250101T093012.123456Z) and <tag> 16 random hex digits, added only when the plain name is
 * taken.  Readers should pick files by their header (pid, start_realtime_ns, boot_id,
 * write_generation), never by name. */
#define CI_PERSISTENT_SUFFIX ".cirec"  /* <stem>[-<tag>].cirec */
#define CI_SNAPSHOT_SUFFIX ".cisnap"   /* <stem>[-<tag>]-<reason>.cisnap: signal, error, exit */

#define CI_SEQ_BUSY UINT64_MAX

/* Bounds the writer keeps and the reader relies on. */
/* A string of CI_SEC_STRINGS is at most this many bytes before its NUL: a reference to one whose
 * NUL is further is damage. */
#define CI_STRING_MAX 4096u
/* A thread claims launch-ring slots in chunks and abandons a chunk it has not filled within this
 * long, so two threads launching into one stream fill slots out of the stream's order for at
 * most this long (the reader's sparse scan reaches that far past what it needs). */
#define CI_LAUNCH_CHUNK_NS 1000000ull
/* Frames per recorded stack, at most (CUDAINSPECT_STACK_DEPTH): a stack with more is damage. */
#define CI_STACK_DEPTH_MAX 64u
/* Python frames a recorded stack may carry after its native ones (CUDAINSPECT_PYTHON), and the
 * most frames of both kinds a stack of the depot holds (more is damage). */
#define CI_PY_DEPTH_MAX 64u
#define CI_STACK_FRAMES_MAX (CI_STACK_DEPTH_MAX + CI_PY_DEPTH_MAX + 1)

/* Every enum of the record is one X-macro list, X(NAME, VALUE, WORD[, TITLE]): the enum follows
 * from it here, and the reader's name lookups (the WORDs are part of its JSON schema, so they
 * never change once published) and counts follow from the same list.  CI_RECORD_ENUM makes the
 * enum. */
#define CI_RECORD_ENUM_ENTRY(name, value, ...) name = value,
#define CI_RECORD_ENUM(tag, LIST) enum tag { LIST(CI_RECORD_ENUM_ENTRY) }
#define CI_SECTION_ALIGN 64u
#define CI_NAME_MAX 64 /* fixed inline name fields (host, thread names) */

/* ---------------------------------------------------------------------------------------- */
/* Header                                                                                     */

/* ci_header.state: what the process was doing when these bytes were taken. */
#define CI_RECORD_STATES(X)                                                                  \
	X(CI_STATE_LIVE, 1, "live")         /* process running (or killed without warning) */ \
	X(CI_STATE_EXITED, 2, "exited")     /* exit handlers ran */                          \
	X(CI_STATE_SIGNALED, 3, "signaled") /* a fatal signal handler ran; see fatal_* */
CI_RECORD_ENUM(ci_record_state, CI_RECORD_STATES);

/* ci_header.origin: how these bytes came to be where the reader found them. */
#define CI_RECORD_ORIGINS(X)                                                                 \
	X(CI_ORIGIN_MEMFD, 1, "memfd")           /* the in-process memfd mapping (cores, live   \
						    pids, GDB) */                               \
	X(CI_ORIGIN_PERSISTENT, 2, "persistent") /* a MAP_SHARED file under CUDAINSPECT_DIR */ \
	X(CI_ORIGIN_SNAPSHOT, 3, "snapshot")     /* a copy written by the recorder; see        \
						    snapshot_reason */
CI_RECORD_ENUM(ci_record_origin, CI_RECORD_ORIGINS);

/* ci_header.snapshot_reason; the word is also the REASON in a snapshot's file name. */
#define CI_SNAPSHOT_REASONS(X)                                                               \
	X(CI_SNAP_NONE, 0, "none")                                                          \
	X(CI_SNAP_SIGNAL, 1, "signal")       /* fatal signal */                              \
	X(CI_SNAP_STICKY_ERROR, 2, "error")  /* first sticky CUDA error (e.g.                 \
						CUDA_ERROR_ILLEGAL_ADDRESS) */                  \
	X(CI_SNAP_EXIT, 3, "exit")           /* normal exit */                               \
	X(CI_SNAP_REQUEST, 4, "request")     /* explicit request (SIGUSR, API) */       \
	X(CI_SNAP_HANG, 5, "hang")           /* 1.2: an NCCL collective outstanding past   \
						CUDAINSPECT_NCCL_TIMEOUT */
CI_RECORD_ENUM(ci_snapshot_reason, CI_SNAPSHOT_REASONS);

/* Stack capture modes (ci_header.stack_mode). */
#define CI_STACK_MODES(X)                                                                    \
	X(CI_STACKS_OFF, 0, "off")                                                          \
	X(CI_STACKS_FAST, 1, "fast")         /* frame-pointer walk validated against loaded   \
						modules */                                      \
	X(CI_STACKS_ACCURATE, 2, "accurate") /* DWARF CFI unwinding */
CI_RECORD_ENUM(ci_stack_mode, CI_STACK_MODES);

/* ci_header.flags */
#define CI_HDR_DEGRADED     (1u << 0) /* recorder fell back to pass-through at some point */
#define CI_HDR_TRUNCATED    (1u << 1) /* some table was full; see section `dropped` */
#define CI_HDR_CRUMBS_OFF   (1u << 2) /* breadcrumbs disabled by configuration */
#define CI_HDR_FORKED_CHILD (1u << 3) /* this record was created in a fork() child */

struct ci_header {
	char magic[8];                /* CI_RECORD_MAGIC */
	uint16_t major;               /* CI_FORMAT_MAJOR */
	uint16_t minor;               /* CI_FORMAT_MINOR */
	uint32_t header_size;         /* sizeof(struct ci_header) of the writer */
	uint64_t record_size;         /* bytes in the whole region, multiple of page_size */
	uint32_t page_size;
	uint32_t section_count;       /* entries in the section directory */
	uint64_t section_dir_offset;  /* from the start of the region */
	uint32_t section_entry_size;  /* sizeof(struct ci_section) of the writer */
	uint32_t pid;
	uint32_t ppid;
	uint32_t flags;               /* CI_HDR_* (atomic or-updates) */
	char host[CI_NAME_MAX];       /* gethostname(), NUL-terminated */
	char recorder_version[32];    /* e.g. "0.1.0", NUL-terminated */
	uint64_t start_realtime_ns;   /* CLOCK_REALTIME at record creation */
	uint64_t start_monotonic_ns;  /* CLOCK_MONOTONIC at the same instant */
	uint64_t record_base;         /* address of the region in the process that wrote it */
	uint32_t exe_str;             /* string offset: /proc/self/exe target */
	uint32_t cmdline_str;         /* string offset: argv joined by spaces, bounded */
	uint32_t stack_mode;          /* enum ci_stack_mode */
	uint32_t stack_depth;         /* max frames per stack */
	uint32_t crumb_every_launches; /* breadcrumb cadence K (1 = every launch, 0 = time only) */
	uint32_t crumb_every_us;      /* breadcrumb cadence T in microseconds (0 = not by time) */
	uint32_t param_bytes_max;     /* bytes of kernel parameters kept per launch */
	uint32_t crumb_width;         /* 8 (cuStreamWriteValue64) or 4 (32-bit fallback) */
	/* Mutable state, updated with atomic stores. */
	uint32_t state;               /* enum ci_record_state */
	uint32_t origin;              /* enum ci_record_origin (a snapshot rewrites it) */
	uint32_t snapshot_reason;     /* enum ci_snapshot_reason */
	int32_t fatal_signal;         /* signal number when state == SIGNALED */
	uint32_t fatal_tid;           /* thread that received it */
	int32_t fatal_si_code;
	uint64_t fatal_addr;          /* si_addr for SIGSEGV/SIGBUS/SIGILL/SIGFPE */
	uint64_t snapshot_monotonic_ns;
	uint64_t end_monotonic_ns;    /* exit or signal time */
	uint64_t first_sticky_error_seq; /* seq of the first sticky entry in the error ring, or 0 */
	uint64_t write_generation;    /* bumped by every snapshot write; lets readers spot reuse */
	uint8_t boot_id[16];          /* /proc/sys/kernel/random/boot_id as 16 bytes (0: unknown);
				       * with pid and start_realtime_ns it names one process */
	/* Format 1.1: the three clocks at one instant of the first sticky error (0: none yet), and
	 * CLOCK_BOOTTIME at creation, so that kernel-log times (monotonic, boot-time or wall clock)
	 * compare with the record's.  1.0 writers left these zero. */
	uint64_t sticky_realtime_ns;
	uint64_t sticky_monotonic_ns;
	uint64_t sticky_boottime_ns;
	uint64_t start_boottime_ns;
	/* Format 1.2: breadcrumbs spent within a budget (crumb_every_launches and crumb_every_us
	 * are then 0): the share of each thread's time they may take, in parts per million, and the
	 * cost of one write as last measured (ns, smoothed per thread; atomic).  0 in 1.1 records
	 * and under a fixed cadence. */
	uint32_t crumb_budget_ppm;
	uint32_t crumb_cost_ns;
	/* Format 1.2: whose kernel-log lines are the process's.  When the process started, on
	 * CLOCK_BOOTTIME (/proc/self/stat's starttime: clock-tick resolution; 0: unknown): a line
	 * stamped before it is another process's.  Its pid in each pid namespace its procfs shows,
	 * outermost first (/proc/self/status NSpid; unused entries 0; the last one is `pid`): a
	 * kernel log written in an outer namespace names the process by the pid of that one. */
	uint64_t proc_start_boottime_ns;
	uint32_t ns_pids[4];
	uint64_t reserved[6];
};

/* ---------------------------------------------------------------------------------------- */
/* Section directory                                                                          */

/* X(NAME, VALUE, WORD, TITLE): WORD names the section in JSON and in test output, TITLE in
 * messages and tables. */
#define CI_SECTION_KINDS(X)                                                                  \
	/* struct ci_host_module, append-only table */                                       \
	X(CI_SEC_HOST_MODULES, 1, "host_modules", "host modules")                            \
	/* struct ci_device, append-only table */                                            \
	X(CI_SEC_DEVICES, 2, "devices", "devices")                                           \
	/* struct ci_context, append-only table */                                           \
	X(CI_SEC_CONTEXTS, 3, "contexts", "contexts")                                        \
	/* struct ci_stream, append-only table */                                            \
	X(CI_SEC_STREAMS, 4, "streams", "streams")                                           \
	/* struct ci_code_module (CUmodule, CUlibrary), append-only */                       \
	X(CI_SEC_CODE_MODULES, 5, "code_modules", "code modules")                            \
	/* struct ci_function (CUfunction, CUkernel), append-only */                         \
	X(CI_SEC_FUNCTIONS, 6, "functions", "functions")                                     \
	/* struct ci_launch, ring */                                                         \
	X(CI_SEC_LAUNCHES, 7, "launches", "launches")                                        \
	/* struct ci_alloc, open-addressed table of live allocations */                      \
	X(CI_SEC_ALLOCS, 8, "allocations", "allocations")                                    \
	/* struct ci_alloc, ring of recent frees */                                          \
	X(CI_SEC_FREES, 9, "frees", "frees")                                                 \
	/* struct ci_api_error, ring */                                                      \
	X(CI_SEC_ERRORS, 10, "errors", "API errors")                                         \
	/* struct ci_event, ring */                                                          \
	X(CI_SEC_EVENTS, 11, "events", "events")                                             \
	/* struct ci_stack, stack depot index */                                             \
	X(CI_SEC_STACKS, 12, "stacks", "stacks")                                             \
	/* uint64_t return addresses, byte area (entry_size 8) */                            \
	X(CI_SEC_FRAMES, 13, "frames", "frames")                                             \
	/* NUL-terminated strings, byte area (entry_size 1) */                               \
	X(CI_SEC_STRINGS, 14, "strings", "strings")                                          \
	/* uint64_t per stream, written by the GPU (entry_size 8) */                         \
	X(CI_SEC_BREADCRUMBS, 15, "breadcrumbs", "breadcrumbs")                              \
	/* struct ci_thread, append-only table */                                            \
	X(CI_SEC_THREADS, 16, "threads", "threads")                                          \
	/* an ELF image of allocation symbols for GDB (byte area) */                         \
	X(CI_SEC_SYMBOL_IMAGE, 17, "symbol_image", "symbol image")                            \
	/* struct ci_python, one entry: the interpreter the recorder found (or why not) */    \
	X(CI_SEC_PYTHON, 18, "python", "Python")                                             \
	/* struct ci_py_code, append-only: Python code objects interned at first sight */     \
	X(CI_SEC_PY_CODES, 19, "python_codes", "Python code objects")                        \
	/* struct ci_graph, append-only table (18-19 are Python's) */                        \
	X(CI_SEC_GRAPHS, 20, "graphs", "graphs")                                             \
	/* struct ci_graph_node, append-only table: nodes and their updates */               \
	X(CI_SEC_GRAPH_NODES, 21, "graph_nodes", "graph nodes")                              \
	/* struct ci_graph_exec, append-only table */                                        \
	X(CI_SEC_GRAPH_EXECS, 22, "graph_execs", "executable graphs")                        \
	/* struct ci_graph_launch, ring */                                                   \
	X(CI_SEC_GRAPH_LAUNCHES, 23, "graph_launches", "graph launches")                     \
	/* kernel-log lines of this process (byte area, text ci_klog_parse reads: one /dev/kmsg \
	 * record or log line per '\\n'); 20-23 graphs are taken */                         \
	X(CI_SEC_KERNEL_LOG, 24, "kernel_log", "kernel log")                                 \
	/* 1.2: struct ci_nccl_comm, append-only table: NCCL communicators */                \
	X(CI_SEC_NCCL_COMMS, 25, "nccl_comms", "NCCL communicators")                          \
	/* 1.2: struct ci_nccl_call, ring: collectives, sends, receives, groups, aborts */    \
	X(CI_SEC_NCCL_CALLS, 26, "nccl_calls", "NCCL calls")                                  \
	/* 1.2: struct ci_job_var, append-only table: launcher variables (RANK, SLURM_*...) */ \
	X(CI_SEC_JOB, 27, "job", "job")                                                       \
	/* 1.2: struct ci_peer_mem, append-only table: CUDA IPC and VMM exports and imports */ \
	X(CI_SEC_PEER_MEMORY, 28, "peer_memory", "peer memory")                               \
	/* 1.3: bitmap (byte area), one bit per CI_ALLOC_GRANULE_BYTES of CI_SEC_ALLOCS */     \
	X(CI_SEC_ALLOC_GRANULES, 29, "alloc_granules", "allocation-table granules")
CI_RECORD_ENUM(ci_section_kind, CI_SECTION_KINDS);
/* Section kinds are below this (arrays indexed by kind have this many entries). */
#define CI_SECTION_KIND_MAX 32

/* CI_SEC_ALLOC_GRANULES: bit g (byte g / 8, from its lowest bit) is set once an entry was written
 * in bytes [g * CI_ALLOC_GRANULE_BYTES, (g + 1) * CI_ALLOC_GRANULE_BYTES) of the allocation table,
 * before the entry is published.  The table is open-addressed, so a few live allocations are
 * spread over all of it: a reader that looks allocations up (or a snapshot that copies them)
 * skips the granules whose bit is clear, which hold nothing.  Bits are never cleared. */
#define CI_ALLOC_GRANULE_BYTES 4096u

struct ci_section {
	uint32_t kind;        /* enum ci_section_kind */
	uint32_t entry_size;  /* bytes per entry; 1 or 8 for byte areas */
	uint64_t offset;      /* from the start of the region, CI_SECTION_ALIGN-aligned */
	uint64_t capacity;    /* entries (byte areas: entry_size units) */
	uint64_t head;        /* entries (units) ever claimed; rings wrap, tables stop */
	uint64_t dropped;     /* entries that could not be stored: full, contended, too long */
	uint64_t torn;        /* writer-side count of entries abandoned mid-write (usually 0) */
	uint64_t reserved[2];
};

/* ---------------------------------------------------------------------------------------- */
/* Tables                                                                                     */

/* Index into a table is its slot number; references between entries use slot numbers, with
 * CI_NONE meaning "no such entry".  Strings are byte offsets into CI_SEC_STRINGS; offset 0 is
 * the empty string.  Stack ids are CI_SEC_STACKS slot + 1; 0 means no stack. */
#define CI_NONE UINT32_MAX

/* A loaded host ELF object (executable, shared library, vdso). */
struct ci_host_module {
	uint64_t seq;
	uint64_t base;          /* load bias (dlpi_addr) */
	uint64_t start;         /* lowest PT_LOAD address */
	uint64_t end;           /* end of the highest PT_LOAD */
	uint64_t load_ns;       /* CLOCK_MONOTONIC */
	uint64_t unload_ns;     /* 0 while loaded (atomic store at dlclose) */
	uint32_t path_str;
	uint32_t build_id_len;  /* 0 if the object has no NT_GNU_BUILD_ID */
	uint8_t build_id[32];
};

struct ci_device {
	uint64_t seq;
	uint64_t total_mem;
	int32_t ordinal;        /* CUdevice */
	int32_t cc_major;
	int32_t cc_minor;
	int32_t sm_count;
	uint8_t uuid[16];
	char name[96];
	char pci_bus_id[16];
};

#define CI_CONTEXT_KINDS(X)                                                                  \
	X(CI_CTX_PRIMARY, 1, "primary")                                                     \
	X(CI_CTX_EXPLICIT, 2, "explicit")                                                   \
	X(CI_CTX_GREEN, 3, "green")
CI_RECORD_ENUM(ci_context_kind, CI_CONTEXT_KINDS);

struct ci_context {
	uint64_t seq;
	uint64_t handle;        /* CUcontext */
	uint64_t ctx_id;        /* cuCtxGetId, 0 if unknown */
	uint64_t create_ns;
	uint64_t destroy_ns;    /* 0 while alive */
	uint32_t device;        /* CI_SEC_DEVICES slot */
	uint32_t kind;          /* enum ci_context_kind */
	uint32_t flags;         /* creation flags */
	uint32_t create_tid;
	uint32_t create_stack;
	uint32_t pad;
};

#define CI_STREAM_KINDS(X)                                                                   \
	X(CI_STREAM_CREATED, 1, "created")       /* cuStreamCreate* */                      \
	X(CI_STREAM_LEGACY, 2, "legacy")         /* NULL / CU_STREAM_LEGACY under legacy    \
						    semantics */                            \
	X(CI_STREAM_PER_THREAD, 3, "per_thread") /* CU_STREAM_PER_THREAD or NULL through a  \
						    _ptsz entry point */
CI_RECORD_ENUM(ci_stream_kind, CI_STREAM_KINDS);

/* Why breadcrumbs are missing on a stream (ci_stream.crumb_status). */
#define CI_CRUMB_STATUSES(X)                                                                 \
	X(CI_CRUMB_OK, 0, "ok")                                                             \
	X(CI_CRUMB_DISABLED, 1, "disabled")       /* by configuration */                     \
	X(CI_CRUMB_CAPTURING, 2, "capturing")     /* skipped while the stream was capturing  \
						     (last reason seen) */                   \
	X(CI_CRUMB_UNSUPPORTED, 3, "unsupported") /* device cannot do stream memory ops */   \
	X(CI_CRUMB_REGISTER_FAILED, 4, "register_failed") /* host registration of the        \
							     breadcrumb page failed */       \
	X(CI_CRUMB_WRITE_FAILED, 5, "write_failed") /* cuStreamWriteValue* returned an error */ \
	X(CI_CRUMB_NO_SLOT, 6, "no_slot")         /* breadcrumb area full */
CI_RECORD_ENUM(ci_crumb_status, CI_CRUMB_STATUSES);

struct ci_stream {
	uint64_t seq;
	uint64_t handle;        /* CUstream as the application passed it (0, 1, 2 or a handle) */
	uint64_t stream_id;     /* cuStreamGetId, 0 if unknown */
	uint64_t create_ns;
	uint64_t destroy_ns;    /* 0 while alive */
	uint64_t launches;      /* per-stream launch sequence: last number handed out (atomic) */
	uint64_t crumb_enqueued;/* last launch sequence followed by a breadcrumb write (atomic) */
	uint64_t crumb_skipped; /* launches that got no breadcrumb because of crumb_status */
	uint32_t ctx;           /* CI_SEC_CONTEXTS slot */
	uint32_t kind;          /* enum ci_stream_kind */
	uint32_t flags;         /* CU_STREAM_* creation flags */
	int32_t priority;
	uint32_t owner_tid;     /* creating thread; for PER_THREAD streams, the owning thread */
	uint32_t crumb_slot;    /* index into CI_SEC_BREADCRUMBS, CI_NONE if none */
	uint32_t crumb_status;  /* enum ci_crumb_status (atomic) */
	uint32_t create_stack;
};

#define CI_CODE_MODULE_KINDS(X)                                                              \
	X(CI_CODE_MODULE, 1, "module")   /* CUmodule */                                     \
	X(CI_CODE_LIBRARY, 2, "library") /* CUlibrary (context-independent) */
CI_RECORD_ENUM(ci_code_module_kind, CI_CODE_MODULE_KINDS);

struct ci_code_module {
	uint64_t seq;
	uint64_t handle;
	uint64_t load_ns;
	uint64_t unload_ns;
	uint64_t image_size;    /* bytes of the image when known, else 0 */
	uint64_t image_hash;    /* FNV-1a 64 of the image bytes when known, else 0 */
	uint32_t kind;          /* enum ci_code_module_kind */
	uint32_t ctx;           /* CI_SEC_CONTEXTS slot, CI_NONE for libraries */
	uint32_t source_str;    /* file name, or "" when loaded from memory */
	uint32_t load_stack;
};

#define CI_FUNCTION_KINDS(X)                                                                 \
	X(CI_FUNC_FUNCTION, 1, "function") /* CUfunction */                                 \
	X(CI_FUNC_KERNEL, 2, "kernel")     /* CUkernel (may be launched cast to CUfunction) */
CI_RECORD_ENUM(ci_function_kind, CI_FUNCTION_KINDS);

#define CI_PARAMS_MAX 32 /* parameter layout entries kept per function */

struct ci_function {
	uint64_t seq;
	uint64_t handle;
	uint32_t kind;          /* enum ci_function_kind */
	uint32_t code_module;   /* CI_SEC_CODE_MODULES slot or CI_NONE */
	uint32_t name_str;      /* kernel name as the driver or the caller gave it (maybe mangled) */
	uint32_t nparams;       /* parameters reported by cuFuncGetParamInfo, 0 if unknown */
	uint32_t params_known;  /* 1 if the layout below is valid */
	uint32_t pad;
	uint16_t param_offset[CI_PARAMS_MAX];
	uint16_t param_size[CI_PARAMS_MAX];
};

/* ---------------------------------------------------------------------------------------- */
/* Rings                                                                                      */

/* X(NAME, VALUE, WORD, API): API is the entry point family as users know it. */
#define CI_LAUNCH_APIS(X)                                                                    \
	X(CI_LAUNCH_KERNEL, 1, "kernel", "cuLaunchKernel")           /* (_ptsz) */          \
	X(CI_LAUNCH_KERNEL_EX, 2, "kernel_ex", "cuLaunchKernelEx")   /* (_ptsz) */          \
	X(CI_LAUNCH_COOPERATIVE, 3, "cooperative", "cuLaunchCooperativeKernel") /* (_ptsz) */ \
	X(CI_LAUNCH_HOST_FUNC, 4, "host_func", "cuLaunchHostFunc")   /* (_ptsz) */          \
	X(CI_LAUNCH_GRAPH, 5, "graph", "cuGraphLaunch")              /* (_ptsz) */          \
	X(CI_LAUNCH_LEGACY, 6, "legacy", "cuLaunchGrid")             /* cuLaunch,           \
									cuLaunchGrid(Async) */
CI_RECORD_ENUM(ci_launch_api, CI_LAUNCH_APIS);

/* ci_launch.flags: X(NAME, BIT, WORD) */
#define CI_LAUNCH_FLAGS(X)                                                                   \
	/* came through a per-thread-default-stream entry */                                 \
	X(CI_LAUNCH_PTSZ, 0, "per_thread_stream")                                           \
	/* a breadcrumb write was enqueued right after it */                                 \
	X(CI_LAUNCH_CRUMB, 1, "breadcrumb")                                                 \
	/* the stream was capturing: not executed now */                                     \
	X(CI_LAUNCH_CAPTURED, 2, "captured")                                                \
	/* the launch call itself returned an error */                                       \
	X(CI_LAUNCH_FAILED, 3, "failed")                                                    \
	/* parameters came from `extra` (a packed buffer) */                                 \
	X(CI_LAUNCH_PARAMS_EXTRA, 4, "params_extra")                                        \
	/* more parameter bytes than param_bytes_max */                                      \
	X(CI_LAUNCH_PARAMS_CUT, 5, "params_cut")                                            \
	X(CI_LAUNCH_COOPERATIVE_ATTR, 6, "cooperative")                                     \
	/* programmatic dependent launch attributes */                                       \
	X(CI_LAUNCH_PDL, 7, "pdl")                                                          \
	/* 1.4: time_ns is its thread's previous launch's (no recorded call of any thread    \
	 * came in between): at most as late as the call, later than every other call before */ \
	X(CI_LAUNCH_TIME_SHARED, 8, "time_shared")
#define CI_RECORD_FLAG_ENTRY(name, bit, ...) name = 1u << bit,
enum ci_launch_flag { CI_LAUNCH_FLAGS(CI_RECORD_FLAG_ENTRY) };

#define CI_LAUNCH_PARAM_BYTES 128 /* inline parameter bytes per launch (upper bound) */

struct ci_launch {
	uint64_t seq;
	uint64_t time_ns;         /* CLOCK_MONOTONIC when the call was made */
	uint64_t stream_seq;      /* per-stream launch sequence number (1-based) */
	uint64_t aux;             /* CUgraphExec for graphs, CUhostFn for host functions */
	uint64_t function_handle; /* the CUfunction/CUkernel as passed (also if not in the table) */
	uint32_t function;        /* CI_SEC_FUNCTIONS slot or CI_NONE */
	uint32_t stream;          /* CI_SEC_STREAMS slot or CI_NONE */
	uint32_t ctx;             /* CI_SEC_CONTEXTS slot or CI_NONE */
	uint32_t tid;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t cluster[3];      /* from launch attributes, 0 if none */
	uint32_t shared_mem;
	uint32_t stack;           /* stack id */
	int32_t result;           /* CUresult the launch call returned */
	uint16_t api;             /* enum ci_launch_api */
	uint16_t flags;           /* CI_LAUNCH_* */
	int16_t priority;         /* launch attribute priority, 0 if none */
	uint16_t param_len;       /* valid bytes in params[] */
	uint32_t exec;            /* 1.5, graph launches: CI_SEC_GRAPH_EXECS slot or CI_NONE (was pad) */
	uint64_t replay;          /* 1.5, graph launches: the exec's replay number, 1-based, 0 if
				   * unknown (was reserved) */
	uint8_t params[CI_LAUNCH_PARAM_BYTES]; /* packed as the kernel sees them (param_offset) */
};

#define CI_ALLOC_KINDS(X)                                                                    \
	X(CI_ALLOC_DEVICE, 1, "device")             /* cuMemAlloc */                         \
	X(CI_ALLOC_PITCH, 2, "pitch")               /* cuMemAllocPitch */                    \
	X(CI_ALLOC_MANAGED, 3, "managed")           /* cuMemAllocManaged */                  \
	X(CI_ALLOC_ASYNC, 4, "async")               /* cuMemAllocAsync */                    \
	X(CI_ALLOC_POOL_ASYNC, 5, "pool_async")     /* cuMemAllocFromPoolAsync */            \
	X(CI_ALLOC_VMM_RESERVE, 6, "vmm_reserve")   /* cuMemAddressReserve */                \
	X(CI_ALLOC_VMM_MAP, 7, "vmm_map")           /* cuMemMap of a cuMemCreate handle */   \
	X(CI_ALLOC_HOST, 8, "host")                 /* cuMemAllocHost / cuMemHostAlloc */    \
	X(CI_ALLOC_HOST_REGISTER, 9, "host_register") /* cuMemHostRegister */                \
	X(CI_ALLOC_VMM_CREATE, 10, "vmm_create")    /* cuMemCreate (physical handle,         \
						       address 0) */                            \
	X(CI_ALLOC_IPC, 11, "ipc")                  /* 1.2: cuIpcOpenMemHandle: another       \
						       process's memory (aux = join key) */     \
	X(CI_ALLOC_VMM_IMPORT, 12, "vmm_import")    /* 1.2: cuMemImportFromShareableHandle    \
						       (address 0, aux = handle) */             \
	X(CI_ALLOC_VMM_MAP_PEER, 13, "vmm_map_peer") /* 1.2: cuMemMap of an imported handle   \
							(aux = the handle) */
CI_RECORD_ENUM(ci_alloc_kind, CI_ALLOC_KINDS);

/* ci_alloc.state, for the live table (the free ring always holds FREED). */
#define CI_ALLOC_STATES(X)                                                                   \
	X(CI_ALLOC_EMPTY, 0, "empty")                                                       \
	X(CI_ALLOC_LIVE, 1, "live")                                                         \
	X(CI_ALLOC_FREEING, 2, "freeing") /* being moved to the free ring */                \
	X(CI_ALLOC_TOMB, 3, "tomb")       /* freed; slot reusable */                        \
	X(CI_ALLOC_FREED, 4, "freed")
CI_RECORD_ENUM(ci_alloc_state, CI_ALLOC_STATES);

/* Live allocations are an open-addressed table keyed by address: home slot
 * ci_alloc_hash(address) % capacity, linear probing for at most CI_ALLOC_PROBE_MAX slots.
 * seq is the allocation id (global, 1-based) for LIVE entries; CI_SEQ_BUSY while written.
 * The free ring holds copies with the free fields filled in, seq = ring index + 1. */
#define CI_ALLOC_PROBE_MAX 256

static inline uint64_t ci_alloc_hash(uint64_t address)
{
	address ^= address >> 33;
	address *= 0xff51afd7ed558ccdULL;
	address ^= address >> 33;
	return address;
}

struct ci_alloc {
	uint64_t seq;
	uint64_t id;              /* allocation id, 1-based, never reused */
	uint64_t address;         /* device pointer (host pointer for HOST kinds) */
	uint64_t size;            /* bytes (pitch allocations: pitch * height) */
	uint64_t time_ns;
	uint64_t aux;             /* pitch; CUmemGenericAllocationHandle; pool; host flags */
	uint64_t free_ns;         /* free ring only */
	uint32_t state;           /* enum ci_alloc_state (atomic) */
	uint32_t kind;            /* enum ci_alloc_kind */
	uint32_t ctx;
	uint32_t stream;          /* async kinds */
	uint32_t tid;
	uint32_t stack;
	uint32_t free_tid;        /* free ring only */
	uint32_t free_stack;      /* free ring only */
	uint32_t free_stream;     /* cuMemFreeAsync stream, CI_NONE otherwise */
	uint32_t pad;
};

/* A non-success CUresult from any wrapped call. */
#define CI_API_NAME_MAX 40
#define CI_ARGS_MAX 120

/* ci_api_error.flags */
#define CI_ERROR_STICKY (1u << 0) /* the context is poisoned (illegal address, launch failure…) */
#define CI_ERROR_FIRST_STICKY (1u << 1)

struct ci_api_error {
	uint64_t seq;
	uint64_t time_ns;
	int32_t result;           /* CUresult */
	uint32_t tid;
	uint32_t stack;
	uint32_t ctx;             /* CI_NONE if unknown */
	uint32_t stream;          /* CI_NONE if none */
	uint32_t flags;           /* CI_ERROR_* */
	char api[CI_API_NAME_MAX];/* exact entry point, e.g. "cuStreamSynchronize_ptsz" */
	char args[CI_ARGS_MAX];   /* short argument summary */
};

#define CI_EVENT_KINDS(X)                                                                    \
	X(CI_EV_CTX_SYNC, 1, "ctx_sync")             /* a = ctx handle */                   \
	X(CI_EV_STREAM_SYNC, 2, "stream_sync")       /* a = stream handle; 1.3: value = launches handed out on it when it began */ \
	X(CI_EV_EVENT_SYNC, 3, "event_sync")         /* a = event */                        \
	X(CI_EV_EVENT_RECORD, 4, "event_record")     /* a = event, stream = where */        \
	X(CI_EV_STREAM_WAIT_EVENT, 5, "stream_wait_event") /* a = event, stream = waiter */ \
	X(CI_EV_CAPTURE_BEGIN, 6, "capture_begin")   /* value = mode */                     \
	X(CI_EV_CAPTURE_END, 7, "capture_end")       /* a = CUgraph */                      \
	X(CI_EV_GRAPH_INSTANTIATE, 8, "graph_instantiate") /* a = CUgraphExec, b = CUgraph, value = flags */ \
	X(CI_EV_GRAPH_LAUNCH, 9, "graph_launch")     /* a = CUgraphExec; 1.0-1.1 writers    \
							only: the launch and graph-launch  \
							rings hold every graph launch */   \
	X(CI_EV_MODULE_LOAD, 10, "module_load")      /* a = handle, value = code module     \
							slot */                             \
	X(CI_EV_MODULE_UNLOAD, 11, "module_unload")                                         \
	X(CI_EV_CTX_CREATE, 12, "ctx_create")                                               \
	X(CI_EV_CTX_DESTROY, 13, "ctx_destroy")                                             \
	X(CI_EV_STREAM_CREATE, 14, "stream_create")                                         \
	X(CI_EV_STREAM_DESTROY, 15, "stream_destroy")                                       \
	X(CI_EV_STREAM_QUERY, 16, "stream_query")    /* only recorded when it does not      \
							return success */                   \
	X(CI_EV_EVENT_QUERY, 17, "event_query")                                             \
	X(CI_EV_INIT, 18, "init")                    /* cuInit; value = flags */            \
	X(CI_EV_MEMCPY, 19, "memcpy")                /* a = dst, b = src, value = bytes */  \
	X(CI_EV_MEMSET, 20, "memset")                                                       \
	X(CI_EV_FORK, 21, "fork")                    /* value = child pid (parent) */
CI_RECORD_ENUM(ci_event_kind, CI_EVENT_KINDS);

struct ci_event {
	uint64_t seq;
	uint64_t time_ns;
	uint64_t duration_ns;     /* for synchronizations: how long the call took */
	uint64_t a;
	uint64_t b;
	uint64_t value;
	uint32_t kind;            /* enum ci_event_kind */
	uint32_t tid;
	uint32_t stream;          /* CI_SEC_STREAMS slot or CI_NONE */
	uint32_t ctx;
	int32_t result;           /* CUresult of the call */
	uint32_t stack;
};

/* Stack depot: stacks are deduplicated by content.  frames_offset indexes CI_SEC_FRAMES in
 * 8-byte units.  The first frame is the return address into the code that called CUDA. */
struct ci_stack {
	uint64_t seq;
	uint64_t hash;
	uint32_t frames_offset;
	uint32_t nframes;
};

/* A Python frame in CI_SEC_FRAMES: a word with CI_PYFRAME_TAG set (never a user-space
 * address), after the stack's native return addresses, innermost first.  Bits 20-51: the
 * CI_SEC_PY_CODES slot of its code object; bits 0-19: the instruction offset in code units
 * (CI_PYFRAME_NO_INSTR: unknown); CI_PYFRAME_ENTRY: the frame was called from C (the innermost
 * of one native _PyEval_EvalFrameDefault frame's run, which is where the reader merges it).
 * A word with the slot CI_PYFRAME_TRUNCATED ends a Python stack cut at CI_PY_DEPTH_MAX frames. */
#define CI_PYFRAME_TAG (1ull << 63)
#define CI_PYFRAME_ENTRY (1ull << 62)
#define CI_PYFRAME_SLOT(w) ((uint32_t)((w) >> 20))
#define CI_PYFRAME_INSTR(w) ((uint32_t)((w) & 0xfffff))
#define CI_PYFRAME_NO_INSTR 0xfffffu
#define CI_PYFRAME_TRUNCATED 0xffffffffu
#define CI_PYFRAME_NO_CODE 0xfffffffeu  /* the code table was full: the frame is unknown */
#define CI_PYFRAME_WORD(slot, instr, entry)                                                  \
	(CI_PYFRAME_TAG | ((entry) ? CI_PYFRAME_ENTRY : 0) | (uint64_t)(uint32_t)(slot) << 20 | \
	 ((instr) > CI_PYFRAME_NO_INSTR ? CI_PYFRAME_NO_INSTR : (instr)))

/* What the recorder found of a Python interpreter (ci_python.state). */
#define CI_PY_STATES(X)                                                                      \
	X(CI_PY_NONE, 0, "none")               /* not a Python process (no entry is written) */ \
	X(CI_PY_ON, 1, "on")                   /* Python frames are recorded */                \
	X(CI_PY_UNSUPPORTED, 2, "unsupported") /* Python, but not a layout the recorder knows: why */ \
	X(CI_PY_OFF, 3, "off")                 /* CUDAINSPECT_PYTHON=off */
CI_RECORD_ENUM(ci_python_state, CI_PY_STATES);

/* Section 18, one entry.  LAYOUT holds the offsets the recorder walked with: the struct
 * ci_py_layout of include/cudainspect/pylayout.h (LAYOUT_SIZE bytes of it), copied. */
struct ci_python {
	uint64_t seq;
	uint32_t state;           /* enum ci_python_state */
	uint32_t version;         /* PY_VERSION_HEX (Py_Version, or the debug offsets' version) */
	uint64_t runtime;         /* &_PyRuntime */
	uint64_t code_type;       /* &PyCode_Type */
	uint32_t why_str;         /* CI_PY_UNSUPPORTED: why, a sentence */
	uint32_t layout_size;
	uint8_t layout[160];
};

/* Section 19: a code object, copied at first sight so that snapshots (which hold no
 * interpreter memory) and code objects freed before the crash still resolve.  The line table
 * (co_linetable, in the format of ci_python.version) is hex in the string table, cut at
 * CI_PY_RECORD_LINETABLE_MAX bytes (lines past the cut are unknown). */
#define CI_PY_RECORD_LINETABLE_MAX 2047u
struct ci_py_code {
	uint64_t seq;
	uint64_t code;            /* the code object's address */
	uint64_t fingerprint;     /* the recorder's key: address, name object, first line */
	uint32_t qualname_str;    /* co_qualname (3.10: co_name) */
	uint32_t filename_str;    /* co_filename */
	uint32_t linetable_str;   /* hex */
	int32_t firstlineno;
};

struct ci_thread {
	uint64_t seq;
	uint64_t first_ns;        /* first CUDA call seen on the thread */
	uint32_t tid;
	uint32_t pad;
	char name[16];            /* PR_GET_NAME at first sight */
};

/* ---------------------------------------------------------------------------------------- */
/* Graphs (format 1.1)                                                                        */

/* How a graph came to be (ci_graph.origin). */
#define CI_GRAPH_ORIGINS(X)                                                                  \
	X(CI_GRAPH_CAPTURED, 1, "captured") /* cuStreamBeginCapture ... cuStreamEndCapture */ \
	X(CI_GRAPH_BUILT, 2, "built")       /* cuGraphCreate and cuGraphAdd*Node */          \
	X(CI_GRAPH_CAPTURED_INTO, 3, "captured_into") /* cuStreamBeginCaptureToGraph into a \
							 graph built or seen before */   \
	X(CI_GRAPH_UNSEEN, 4, "unseen")     /* first named by a call after its creation was  \
					       missed (made before the recorder started) */  \
	X(CI_GRAPH_CLONED, 5, "cloned")     /* cuGraphClone: the original's nodes, copied */ \
	X(CI_GRAPH_CHILD, 6, "child")       /* a child-graph node's embedded clone          \
					       (cuGraphAddChildGraphNode): the child's nodes */ \
	X(CI_GRAPH_BODY, 7, "conditional_body") /* a conditional node's body graph        \
						   (phGraph_out[i]), in slots one after    \
						   another, body by body */
CI_RECORD_ENUM(ci_graph_origin, CI_GRAPH_ORIGINS);

/* ci_graph.flags (atomic or-updates) */
#define CI_GRAPH_ENDED (1u << 0)       /* the capture ended with a graph */
#define CI_GRAPH_INVALIDATED (1u << 1) /* the capture was invalidated: no graph came of it */

/* A node's type: CUgraphNodeType + 1 (cuda.h), and the event joins a capture records. */
#define CI_NODE_TYPES(X)                                                                     \
	X(CI_NODE_KERNEL, 1, "kernel")                                                      \
	X(CI_NODE_MEMCPY, 2, "memcpy")                                                      \
	X(CI_NODE_MEMSET, 3, "memset")                                                      \
	X(CI_NODE_HOST, 4, "host")                                                          \
	X(CI_NODE_CHILD_GRAPH, 5, "child_graph")                                            \
	X(CI_NODE_EMPTY, 6, "empty")                                                        \
	X(CI_NODE_EVENT_WAIT, 7, "event_wait")                                              \
	X(CI_NODE_EVENT_RECORD, 8, "event_record")                                          \
	X(CI_NODE_SEM_SIGNAL, 9, "ext_semaphore_signal")                                    \
	X(CI_NODE_SEM_WAIT, 10, "ext_semaphore_wait")                                       \
	X(CI_NODE_MEM_ALLOC, 11, "mem_alloc")                                               \
	X(CI_NODE_MEM_FREE, 12, "mem_free")                                                 \
	X(CI_NODE_MEMOP, 13, "memop")                                                       \
	X(CI_NODE_CONDITIONAL, 14, "conditional")
CI_RECORD_ENUM(ci_node_type, CI_NODE_TYPES);

#define CI_NODE_DEPS 8 /* dependency ordinals kept per node version */

/* ci_graph_node.flags: CI_LAUNCH_PARAMS_EXTRA and CI_LAUNCH_PARAMS_CUT as for launches, and: */
#define CI_NODE_CRUMB (1u << 8)    /* followed by an in-graph breadcrumb write of its ordinal */
#define CI_NODE_UPDATE (1u << 9)   /* replaces node `ordinal` (cuGraph*SetParams) */
#define CI_NODE_DISABLED (1u << 10) /* cuGraphNodeSetEnabled(0) in `exec`: an empty node */
#define CI_NODE_DESTROYED (1u << 11) /* cuGraphDestroyNode: no longer a node of `graph` */

/* A graph, captured or built.  In-graph breadcrumbs: when crumb_slot is not CI_NONE, each
 * replay first writes 0 into breadcrumb slot crumb_slot, and after each kernel node marked
 * CI_NODE_CRUMB the GPU writes that node's ordinal + 1 there. */
struct ci_graph {
	uint64_t seq;
	uint64_t handle;          /* CUgraph */
	uint64_t capture_id;      /* cuStreamGetCaptureInfo's id, 0 for built graphs */
	uint64_t create_ns;       /* capture begin, cuGraphCreate */
	uint64_t end_ns;          /* capture end (atomic), 0 otherwise */
	uint64_t destroy_ns;      /* cuGraphDestroy (atomic), 0 while alive */
	uint32_t origin;          /* enum ci_graph_origin */
	uint32_t flags;           /* CI_GRAPH_* (atomic) */
	uint32_t ctx;             /* CI_SEC_CONTEXTS slot or CI_NONE */
	uint32_t stream;          /* the capture's origin stream slot, CI_NONE */
	uint32_t capture_mode;    /* CUstreamCaptureMode */
	uint32_t tid;
	uint32_t stack;           /* where it was created (capture begin, cuGraphCreate) */
	uint32_t end_stack;       /* capture end */
	uint32_t nodes;           /* ordinals handed out (atomic) */
	uint32_t nodes_dropped;   /* nodes the node table had no room for (atomic) */
	uint32_t crumb_slot;      /* index into CI_SEC_BREADCRUMBS, CI_NONE */
	uint32_t crumb_kernels;   /* kernels captured into it while it had a breadcrumb slot:
				     every CUDAINSPECT_GRAPH_CRUMB_EVERY-th carries CI_NODE_CRUMB */
};

/* A node of a graph (exec == CI_NONE) or an update of one node in one executable graph.  The
 * entries of one graph ordinal are its versions: the graph's node is the latest with exec
 * CI_NONE made before an instantiation, an exec's node the latest of its updates before a
 * launch, else the graph's. */
struct ci_graph_node {
	uint64_t seq;
	uint64_t time_ns;
	uint64_t handle;          /* CUgraphNode, 0 if unknown */
	uint64_t function_handle; /* kernels: CUfunction/CUkernel; host nodes: CUhostFn */
	uint64_t a;               /* memcpy, memset, memop: destination; events: CUevent;
				     child graphs: the embedded CUgraph (a CI_GRAPH_CHILD graph
				     of that handle), the child given when it is unknown;
				     conditional: the first body (a CI_GRAPH_BODY graph) */
	uint64_t b;               /* memcpy: source; memset, memop: value; conditional: bodies */
	uint64_t bytes;           /* memcpy, memset: bytes; conditional: CUgraphConditionalNodeType */
	uint32_t graph;           /* CI_SEC_GRAPHS slot */
	uint32_t exec;            /* CI_SEC_GRAPH_EXECS slot, CI_NONE for the graph's own */
	uint32_t ordinal;         /* 0-based, in the order the graph's nodes were added */
	uint32_t type;            /* enum ci_node_type */
	uint32_t function;        /* CI_SEC_FUNCTIONS slot or CI_NONE */
	uint32_t stream;          /* captured: the stream it was enqueued on, else CI_NONE */
	uint32_t tid;
	uint32_t stack;           /* where it was captured, added or updated */
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem;
	uint16_t flags;           /* CI_LAUNCH_PARAMS_*, CI_NODE_* */
	uint16_t param_len;       /* valid bytes in params[] */
	uint32_t dep_count;       /* the node's dependencies (built graphs; 0 for captured nodes) */
	uint32_t pad;
	uint8_t params[CI_LAUNCH_PARAM_BYTES]; /* as ci_launch.params */
	uint32_t deps[CI_NODE_DEPS]; /* the first CI_NODE_DEPS of them: ordinals, CI_NONE unknown */
};

/* An executable graph. */
struct ci_graph_exec {
	uint64_t seq;
	uint64_t handle;          /* CUgraphExec */
	uint64_t graph_handle;    /* the CUgraph it was instantiated from */
	uint64_t instantiate_ns;
	uint64_t destroy_ns;      /* atomic, 0 while alive */
	uint64_t flags;           /* CUDA_GRAPH_INSTANTIATE_FLAG_* */
	uint64_t launches;        /* cuGraphLaunch calls accepted so far (atomic) */
	uint32_t graph;           /* CI_SEC_GRAPHS slot or CI_NONE */
	uint32_t nodes;           /* the graph's ordinals at instantiation */
	uint32_t tid;
	uint32_t stack;
	uint32_t updates;         /* node updates recorded (atomic) */
	uint32_t pad;
};

/* One cuGraphLaunch: which exec, which stream, which replay.  Written up to format 1.4; from 1.5
 * the launch-ring entry of api graph holds the same (exec, replay) and readers make these from
 * it. */
struct ci_graph_launch {
	uint64_t seq;
	uint64_t time_ns;
	uint64_t exec_handle;
	uint64_t replay;          /* 1-based: the exec's launches counter after this one */
	uint64_t launch_seq;      /* seq of its CI_SEC_LAUNCHES entry, 0 if that was dropped */
	uint64_t stream_seq;      /* its number on its stream (as the launch entry's) */
	uint32_t exec;            /* CI_SEC_GRAPH_EXECS slot or CI_NONE */
	uint32_t stream;          /* CI_SEC_STREAMS slot or CI_NONE */
	uint32_t tid;
	int32_t result;
};

/* ---------------------------------------------------------------------------------------- */
/* NCCL, the job, peer memory (format 1.2)                                                    */

/* How a communicator came to be (ci_nccl_comm.origin).  X(NAME, VALUE, WORD, API). */
#define CI_NCCL_ORIGINS(X)                                                                   \
	X(CI_NCCL_INIT_RANK, 1, "init_rank", "ncclCommInitRank")                            \
	X(CI_NCCL_INIT_RANK_CONFIG, 2, "init_rank_config", "ncclCommInitRankConfig")        \
	X(CI_NCCL_INIT_RANK_SCALABLE, 3, "init_rank_scalable", "ncclCommInitRankScalable")  \
	X(CI_NCCL_INIT_ALL, 4, "init_all", "ncclCommInitAll")                               \
	X(CI_NCCL_SPLIT, 5, "split", "ncclCommSplit")                                       \
	X(CI_NCCL_SHRINK, 6, "shrink", "ncclCommShrink")                                    \
	X(CI_NCCL_UNSEEN, 7, "unseen", "")  /* first named by a later call: made before the  \
					       recorder started, or out of its sight */
CI_RECORD_ENUM(ci_nccl_origin, CI_NCCL_ORIGINS);

/* What became of a communicator (ci_nccl_comm.state, atomic). */
#define CI_NCCL_COMM_STATES(X)                                                               \
	X(CI_NCCL_COMM_LIVE, 1, "live")                                                     \
	X(CI_NCCL_COMM_FINALIZED, 2, "finalized")   /* ncclCommFinalize returned success */ \
	X(CI_NCCL_COMM_DESTROYED, 3, "destroyed")   /* ncclCommDestroy */                   \
	X(CI_NCCL_COMM_ABORTED, 4, "aborted")       /* ncclCommAbort */                     \
	X(CI_NCCL_COMM_INIT_FAILED, 5, "init_failed") /* the init call failed: no          \
							 communicator (handle 0) */
CI_RECORD_ENUM(ci_nccl_comm_state, CI_NCCL_COMM_STATES);

/* ci_nccl_comm.flags */
#define CI_NCCL_COMM_NONBLOCKING (1u << 0) /* ncclConfig_t.blocking = 0 */

/* A communicator, one per rank this process holds.  comm_id is the same in every rank of the
 * communicator and never a pointer: FNV-1a 64 of the ncclUniqueId's 128 bytes (of all nId ids
 * for ncclCommInitRankScalable); for ncclCommSplit and ncclCommShrink, of the parent's comm_id,
 * the number of splits and shrinks the parent had before (every rank makes them in the same
 * order) and the color (shrink: the excluded ranks); for ncclCommInitAll, of the process's boot
 * id, pid, time and call number (all its ranks are in this process). */
struct ci_nccl_comm {
	uint64_t seq;
	uint64_t handle;          /* ncclComm_t, 0 when the init failed */
	uint64_t comm_id;
	uint64_t parent_id;       /* split, shrink: the parent's comm_id; else 0 */
	uint64_t init_ns;         /* when the init call was made */
	uint64_t end_ns;          /* finalize, destroy or abort (atomic), 0 while live */
	uint64_t colls;           /* collectives issued: the last op_seq handed out (atomic) */
	uint64_t p2p;             /* sends and receives issued (atomic) */
	int32_t rank;             /* this process's rank in it, -1 unknown */
	int32_t nranks;
	int32_t device;           /* CUdevice (ncclCommCuDevice), -1 unknown */
	uint32_t ctx;             /* CI_SEC_CONTEXTS slot current at init, CI_NONE */
	uint32_t origin;          /* enum ci_nccl_origin */
	uint32_t state;           /* enum ci_nccl_comm_state (atomic) */
	int32_t result;           /* ncclResult_t of the init call (ncclInProgress: nonblocking) */
	int32_t async_error;      /* the last non-success ncclCommGetAsyncError reported (atomic) */
	int32_t color;            /* split: color and key; else 0 */
	int32_t key;
	uint32_t tid;
	uint32_t stack;
	uint32_t flags;           /* CI_NCCL_COMM_* */
	uint32_t pad;
};

/* What a call was (ci_nccl_call.op).  X(NAME, VALUE, WORD, API).  1-8 are collectives (op_seq
 * numbers them per communicator), 9-10 point-to-point (op_seq per peer and direction). */
#define CI_NCCL_OPS(X)                                                                       \
	X(CI_NCCL_ALL_REDUCE, 1, "all_reduce", "ncclAllReduce")                             \
	X(CI_NCCL_ALL_GATHER, 2, "all_gather", "ncclAllGather")                             \
	X(CI_NCCL_REDUCE_SCATTER, 3, "reduce_scatter", "ncclReduceScatter")                 \
	X(CI_NCCL_BROADCAST, 4, "broadcast", "ncclBroadcast")  /* and ncclBcast */          \
	X(CI_NCCL_REDUCE, 5, "reduce", "ncclReduce")                                        \
	X(CI_NCCL_ALL_TO_ALL, 6, "all_to_all", "ncclAlltoAll")                              \
	X(CI_NCCL_GATHER, 7, "gather", "ncclGather")                                        \
	X(CI_NCCL_SCATTER, 8, "scatter", "ncclScatter")                                     \
	X(CI_NCCL_SEND, 9, "send", "ncclSend")                                              \
	X(CI_NCCL_RECV, 10, "recv", "ncclRecv")                                             \
	X(CI_NCCL_GROUP_START, 11, "group_start", "ncclGroupStart")                         \
	X(CI_NCCL_GROUP_END, 12, "group_end", "ncclGroupEnd")                               \
	X(CI_NCCL_FINALIZE, 13, "finalize", "ncclCommFinalize")                             \
	X(CI_NCCL_DESTROY, 14, "destroy", "ncclCommDestroy")                                \
	X(CI_NCCL_ABORT, 15, "abort", "ncclCommAbort")                                      \
	X(CI_NCCL_ASYNC_ERROR, 16, "async_error", "ncclCommGetAsyncError") /* when its       \
							answer changes */
CI_RECORD_ENUM(ci_nccl_op, CI_NCCL_OPS);

/* ci_nccl_call.flags: X(NAME, BIT, WORD) */
#define CI_NCCL_CALL_FLAGS(X)                                                                \
	/* between ncclGroupStart and ncclGroupEnd: enqueued when the group ended */          \
	X(CI_NCCL_CALL_IN_GROUP, 0, "in_group")                                             \
	/* a breadcrumb of stream_seq was enqueued after it (its work done: finished) */      \
	X(CI_NCCL_CALL_CRUMB, 1, "breadcrumb")                                              \
	/* the work before it is followed by a breadcrumb of stream_prior (the last launch's, \
	 * or one the recorder wrote for it): "not started" is exact */                       \
	X(CI_NCCL_CALL_CRUMB_BEFORE, 2, "breadcrumb_before")                                \
	/* the stream was capturing: recorded into a graph, not run now */                    \
	X(CI_NCCL_CALL_CAPTURED, 3, "captured")                                             \
	/* the call returned an error (ncclInProgress is not one) */                          \
	X(CI_NCCL_CALL_FAILED, 4, "failed")                                                 \
	/* outstanding past CUDAINSPECT_NCCL_TIMEOUT: the hang snapshot was written for it    \
	 * (atomic or) */                                                                     \
	X(CI_NCCL_CALL_TIMEOUT, 5, "timeout")                                               \
	/* 1.6: it was TIMEOUT, then finished without an abort: a delay, not the hang (the    \
	 * watchdog cleared TIMEOUT, removed the hang snapshot and watches again) */          \
	X(CI_NCCL_CALL_LATE, 6, "late")
enum ci_nccl_call_flag { CI_NCCL_CALL_FLAGS(CI_RECORD_FLAG_ENTRY) };

/* One NCCL call.  Where it stands on its stream: the recorder numbers it on its stream like a
 * launch, after the work NCCL enqueued for it (stream_seq), and knows the stream's number before
 * it (stream_prior); with the stream's breadcrumb c: c >= stream_seq finished, c >= stream_prior
 * reached (in flight: waiting for the other ranks, or running), else not started.  Flags CRUMB
 * and CRUMB_BEFORE say the breadcrumbs that make this exact were enqueued. */
struct ci_nccl_call {
	uint64_t seq;
	uint64_t time_ns;         /* when the call was made */
	uint64_t duration_ns;     /* how long the call took (the host side: enqueueing, blocking) */
	uint64_t comm_id;         /* the communicator's comm_id (0 unknown) */
	uint64_t op_seq;          /* collectives: the communicator's number of it (1-based, the
				     same on every rank for the same collective); send, recv: its
				     number among this rank's calls to (from) `peer` on the
				     communicator; 0 for the rest and for failed calls */
	uint64_t count;           /* elements (sendcount, recvcount as the API names them);
				     async_error: the ncclResult_t reported */
	uint64_t sendbuff;
	uint64_t recvbuff;
	uint64_t stream_seq;      /* its number on its stream, 0 none (failed, captured, a group
				     not ended yet); a grouped call gets it at ncclGroupEnd
				     (atomic) */
	uint64_t stream_prior;    /* the stream's number when it was called */
	uint32_t op;              /* enum ci_nccl_op */
	int32_t datatype;         /* ncclDataType_t, -1 none */
	int32_t redop;            /* ncclRedOp_t, -1 none */
	int32_t peer;             /* send, recv: the peer; broadcast, reduce, gather, scatter: the
				     root; else -1 */
	uint32_t comm;            /* CI_SEC_NCCL_COMMS slot or CI_NONE */
	uint32_t stream;          /* CI_SEC_STREAMS slot or CI_NONE */
	uint32_t ctx;             /* CI_SEC_CONTEXTS slot or CI_NONE */
	uint32_t tid;
	uint32_t stack;
	int32_t result;           /* ncclResult_t the call returned */
	uint32_t group;           /* the calling thread's group number (1-based) when IN_GROUP or a
				     group start/end, else 0 */
	uint32_t flags;           /* CI_NCCL_CALL_* (atomic or) */
};

/* A launcher variable as the process had it (RANK, WORLD_SIZE, LOCAL_RANK, SLURM_PROCID,
 * OMPI_COMM_WORLD_RANK, CUDA_VISIBLE_DEVICES, ...: docs/FORMAT.md lists them), read when the
 * record was made and again when a communicator is made (a new entry when its value changed). */
struct ci_job_var {
	uint64_t seq;
	uint64_t time_ns;         /* when it was read */
	uint32_t name_str;
	uint32_t value_str;       /* cut at 511 bytes */
};

/* CUDA IPC and VMM sharing between processes (ci_peer_mem.kind).  X(NAME, VALUE, WORD, API). */
#define CI_PEER_KINDS(X)                                                                     \
	X(CI_PEER_IPC_EXPORT, 1, "ipc_export", "cuIpcGetMemHandle")                          \
	X(CI_PEER_IPC_OPEN, 2, "ipc_open", "cuIpcOpenMemHandle")                             \
	X(CI_PEER_IPC_CLOSE, 3, "ipc_close", "cuIpcCloseMemHandle")                          \
	X(CI_PEER_VMM_EXPORT, 4, "vmm_export", "cuMemExportToShareableHandle")               \
	X(CI_PEER_VMM_IMPORT, 5, "vmm_import", "cuMemImportFromShareableHandle")             \
	X(CI_PEER_VMM_MAP, 6, "vmm_map", "cuMemMap") /* of an imported handle */
CI_RECORD_ENUM(ci_peer_kind, CI_PEER_KINDS);

/* One export or import of device memory.  `key` is the same in the exporting and the importing
 * process, so the records of a job say whose memory an import is: FNV-1a 64 of the
 * CUipcMemHandle's 64 bytes (IPC) or of the fabric handle's (VMM, FABRIC), or of the file's
 * st_dev and st_ino (VMM, POSIX file descriptor: one open file passed between processes); 0
 * unknown. */
struct ci_peer_mem {
	uint64_t seq;
	uint64_t time_ns;
	uint64_t address;         /* the exported allocation, the opened or mapped range; 0 */
	uint64_t size;            /* bytes, 0 unknown */
	uint64_t handle;          /* CUmemGenericAllocationHandle (VMM kinds), else 0 */
	uint64_t key;
	uint64_t alloc_id;        /* the ALLOCS (FREES) id of the range or handle, 0 none */
	uint32_t kind;            /* enum ci_peer_kind */
	uint32_t handle_type;     /* CUmemAllocationHandleType (VMM), 0 for IPC */
	int32_t device;           /* the device the memory lives on, as the driver says (the
				     owner's), -1 unknown */
	uint32_t ctx;             /* CI_SEC_CONTEXTS slot or CI_NONE */
	uint32_t tid;
	uint32_t stack;
	int32_t result;           /* CUresult of the call */
	uint32_t pad;
};

/* ---------------------------------------------------------------------------------------- */
/* Size pins: changing any of these is a format change (see docs/FORMAT.md).                  */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(struct ci_header) == 400, "ci_header size");
_Static_assert(sizeof(struct ci_section) == 64, "ci_section size");
_Static_assert(sizeof(struct ci_host_module) == 88, "ci_host_module size");
_Static_assert(sizeof(struct ci_device) == 160, "ci_device size");
_Static_assert(sizeof(struct ci_context) == 64, "ci_context size");
_Static_assert(sizeof(struct ci_stream) == 96, "ci_stream size");
_Static_assert(sizeof(struct ci_code_module) == 64, "ci_code_module size");
_Static_assert(sizeof(struct ci_function) == 168, "ci_function size");
_Static_assert(sizeof(struct ci_launch) == 256, "ci_launch size");
_Static_assert(sizeof(struct ci_alloc) == 96, "ci_alloc size");
_Static_assert(sizeof(struct ci_api_error) == 200, "ci_api_error size");
_Static_assert(sizeof(struct ci_event) == 72, "ci_event size");
_Static_assert(sizeof(struct ci_stack) == 24, "ci_stack size");
_Static_assert(sizeof(struct ci_thread) == 40, "ci_thread size");
_Static_assert(sizeof(struct ci_python) == 200, "ci_python size");
_Static_assert(sizeof(struct ci_py_code) == 40, "ci_py_code size");
_Static_assert(sizeof(struct ci_graph) == 96, "ci_graph size");
_Static_assert(sizeof(struct ci_graph_node) == 288, "ci_graph_node size");
_Static_assert(sizeof(struct ci_graph_exec) == 80, "ci_graph_exec size");
_Static_assert(sizeof(struct ci_graph_launch) == 64, "ci_graph_launch size");
_Static_assert(sizeof(struct ci_nccl_comm) == 120, "ci_nccl_comm size");
_Static_assert(sizeof(struct ci_nccl_call) == 128, "ci_nccl_call size");
_Static_assert(sizeof(struct ci_job_var) == 24, "ci_job_var size");
_Static_assert(sizeof(struct ci_peer_mem) == 88, "ci_peer_mem size");
#define CI_SECTION_KIND_FITS(name, value, ...) _Static_assert(value < CI_SECTION_KIND_MAX, #name);
CI_SECTION_KINDS(CI_SECTION_KIND_FITS)
#undef CI_SECTION_KIND_FITS
#endif

#ifdef __cplusplus
}
#endif

#endif /* CUDAINSPECT_RECORD_H */
