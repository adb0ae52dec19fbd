/* SPDX-License-Identifier: MIT */
/*
 * libcudainspect: the reader library behind the `cudainspect` CLI and the GDB plugin.
 *
 * Stages, one source file each under corefile/, each a function of the previous one's output:
 *   source    -> a memory reader over an ELF core (plain or zstd), a record file (snapshot or
 *                persistent), a live pid, or a caller-supplied buffer (GDB, fuzzers);
 *   locate    -> where the flight record is in that memory;
 *   decode    -> a validated copy of the record (struct ci_model); input is untrusted;
 *   diagnose  -> per-stream progress, the faulting launch, pointer attributions, error timeline;
 *   symbolize -> host backtraces of the core's threads and symbols for recorded stacks (libdwfl);
 *   render    -> text views or one JSON document.
 *
 * Errors: every fallible function returns a struct ci_error * (NULL on success) and puts its
 * result in the last out-parameter, which is set only on success.  The caller owns the error and
 * frees it with ci_error_destroy().  Objects made by the _create and _open functions are freed by
 * the matching _destroy and _close functions, which accept NULL.
 */
#ifndef CUDAINSPECT_H
#define CUDAINSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cudainspect/record.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUDAINSPECT_VERSION "0.1.0"

/* ---------------------------------------------------------------------------------------- */
/* Errors and exit codes                                                                      */

/* Process exit codes of the `cudainspect` CLI (documented in docs/CLI.md). */
enum ci_exit {
	CI_EXIT_OK = 0,          /* report produced */
	CI_EXIT_INTERNAL = 1,    /* out of memory or a bug */
	CI_EXIT_USAGE = 2,       /* bad flags or arguments */
	CI_EXIT_BAD_INPUT = 3,   /* input missing, unreadable, not a core/record, or corrupt */
	CI_EXIT_NO_RECORD = 4,   /* input is fine but holds no flight record */
};

/* Error codes, with the exit code each maps to and a default message. */
#define CI_ERRORS(X)                                                                   \
	X(CI_ERR_NOMEM, CI_EXIT_INTERNAL, "out of memory")                             \
	X(CI_ERR_INTERNAL, CI_EXIT_INTERNAL, "internal error")                         \
	X(CI_ERR_USAGE, CI_EXIT_USAGE, "usage error")                                  \
	X(CI_ERR_IO, CI_EXIT_BAD_INPUT, "cannot read input")                           \
	X(CI_ERR_FORMAT, CI_EXIT_BAD_INPUT, "input is not a core or record file")      \
	X(CI_ERR_CORRUPT, CI_EXIT_BAD_INPUT, "input is corrupt")                       \
	X(CI_ERR_VERSION, CI_EXIT_BAD_INPUT, "unsupported record format version")      \
	X(CI_ERR_NO_RECORD, CI_EXIT_NO_RECORD, "no flight record found")               \
	X(CI_ERR_UNAVAILABLE, CI_EXIT_BAD_INPUT, "memory not captured in the input")

enum ci_error_code {
#define CI_ERROR_ENUM(code, exit, msg) code,
	CI_ERRORS(CI_ERROR_ENUM)
#undef CI_ERROR_ENUM
};

struct ci_error {
	enum ci_error_code code;
	char message[512];       /* full sentence(s): what happened, with path/address */
};

/* Make an error with a printf-style message.  Never returns NULL (falls back to a static
 * out-of-memory error, which ci_error_destroy ignores). */
struct ci_error *ci_error_create(enum ci_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), returns_nonnull));
void ci_error_destroy(struct ci_error *err);
/* The CLI exit code for an error code. */
enum ci_exit ci_error_exit(enum ci_error_code code);
const char *ci_error_code_name(enum ci_error_code code);

/* Warnings collected by any stage (truncated core, torn entries, missing debug info…), shown
 * by the renderers.  Owned by whoever embeds the list. */
struct ci_warnings {
	char **items;
	size_t count;
};
void ci_warnings_add(struct ci_warnings *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ci_warnings_deinit(struct ci_warnings *w);

/* Copy S into BUF (size N > 0) for a terminal or a JSON string, cut to fit: valid UTF-8 is
 * kept, control characters and invalid bytes become '?'.  Returns BUF.  For every string that
 * comes from an input (records, cores, /proc, GDB) before it is printed. */
char *ci_scrub(const char *s, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* Stage 1: source                                                                            */

/* X(NAME, VALUE, WORD): the reader's enums are X-macro lists like the record's (record.h,
 * CI_RECORD_ENUM); the WORDs are part of the JSON schema. */
#define CI_SOURCE_KINDS(X)                                                                   \
	X(CI_SOURCE_CORE, 1, "core")     /* ELF core from the kernel */                     \
	X(CI_SOURCE_GCORE, 2, "gcore")   /* ELF core written by gdb's gcore */              \
	X(CI_SOURCE_RECORD, 3, "record") /* a snapshot or persistent record file (starts    \
					    with the magic) */                              \
	X(CI_SOURCE_PID, 4, "pid")       /* a live process */                               \
	X(CI_SOURCE_BUFFER, 5, "buffer") /* caller-supplied bytes (GDB JIT entry, fuzzers,  \
					    tests) */
CI_RECORD_ENUM(ci_source_kind, CI_SOURCE_KINDS);

/* A thread of the process as the core or /proc sees it.  Registers are x86-64
 * user_regs_struct order (docs/READER-INTERNALS.md, "Stage 1: source"). */
struct ci_core_thread {
	uint32_t tid;
	int32_t cursig;          /* pr_cursig of this thread (kernel cores) */
	bool crashed;            /* the thread the kernel dumped first (received the signal) */
	uint64_t pc, sp, fp;
	uint64_t regs[27];       /* full user_regs_struct, for libdwfl */
	char name[16];           /* from /proc for live pids; from the record's thread table else */
};

/* A file-backed mapping from NT_FILE (cores) or /proc/PID/maps (live). */
struct ci_mapping {
	uint64_t start, end, file_offset;
	char *path;
};

struct ci_source_info {
	enum ci_source_kind kind;
	char *path;              /* the input as given; NULL for buffers and pids */
	uint32_t pid;            /* 0 if unknown */
	int32_t signal;          /* si_signo from NT_SIGINFO (0 if none or gcore) */
	int32_t si_code;
	uint64_t fault_addr;     /* si_addr for SIGSEGV/SIGBUS */
	char *executable;        /* best guess: NT_FILE/AT_EXECFN/psargs, /proc/PID/exe */
	char *psargs;            /* PRPSINFO pr_psargs or /proc/PID/cmdline */
	struct ci_core_thread *threads;
	size_t thread_count;
	struct ci_mapping *mappings;
	size_t mapping_count;
	bool truncated;          /* some segments are cut short by EOF */
	bool compressed;         /* input was zstd */
};

struct ci_source;

struct ci_source_options {
	bool progress;           /* print progress on stderr (the CLI sets it when stderr is a tty) */
	/* Added later, at the end (zero keeps the default): the most a zstd-compressed input may
	 * decompress to, in bytes.  0 means the default, 64 GiB; UINT64_MAX means no bound.  A
	 * larger input fails with CI_ERR_IO (exit 3) before it fills the temporary directory. */
	uint64_t max_core_size;
	/* Added later: what messages and ci_source_info.path call the input instead of the path it
	 * is opened by (a copy ci_spool made, /proc/self/fd/N); "-" (standard input) is "standard
	 * input" in messages.  NULL: the path. */
	const char *name;
};

/* Open PATH: an ELF core (kernel or gcore), a zstd-compressed core, or a record file.  The kind
 * is detected from the content, not the name.  Fails with CI_ERR_IO, CI_ERR_FORMAT or
 * CI_ERR_CORRUPT. */
struct ci_error *ci_source_open(const char *path, const struct ci_source_options *opts,
				struct ci_source **ret);
/* S as one shell word (and one GDB argument): as it is when it holds only characters no shell
 * interprets, else in single quotes ('\'' for a quote).  S cut short when BUF (N bytes) is too
 * small keeps its closing quote, so a cut word never leaves a quote open.  Returns BUF. */
char *ci_shell_quote(const char *s, char *buf, size_t n);

/* Copy all that the descriptor IN gives (standard input, a pipe) into an unlinked temporary
 * file ($TMPDIR, else a memfd), leaving whole zero blocks as holes, to open it as a file (through
 * /proc/self/fd/N, with OPTS->name saying what it was).  At most OPTS->max_core_size bytes (0:
 * 64 GiB), and never filling the temporary file system or passing the file size limit: each
 * fails with CI_ERR_IO; nothing at all is CI_ERR_FORMAT.  NAME names IN in messages.  On
 * success *FD_RET is the copy (the caller closes it) and *SIZE_RET its length. */
struct ci_error *ci_spool(int in, const char *name, const struct ci_source_options *opts,
			  int *fd_ret, uint64_t *size_ret);
/* Attach read-only to a live process (process_vm_readv or /proc/PID/mem). */
struct ci_error *ci_source_open_pid(pid_t pid, const struct ci_source_options *opts,
				    struct ci_source **ret);
/* Wrap LEN bytes at BUF that live at address BASE in the process (copied). */
struct ci_error *ci_source_from_buffer(const void *buf, size_t len, uint64_t base,
				       struct ci_source **ret);
void ci_source_close(struct ci_source *src);

const struct ci_source_info *ci_source_info(const struct ci_source *src);
struct ci_warnings *ci_source_warnings(struct ci_source *src);
/* The libelf handle of a core source (for libdwfl), or NULL. */
struct Elf *ci_source_elf(const struct ci_source *src);
/* The file descriptor that backs an ELF core (decompressed copy for .zst), or -1. */
int ci_source_fd(const struct ci_source *src);

/* Read LEN bytes at process address ADDR.  Fails with CI_ERR_UNAVAILABLE when any byte is not
 * in the input (not dumped, past a truncation, not mapped); never returns partial data. */
struct ci_error *ci_source_read(struct ci_source *src, uint64_t addr, void *buf, size_t len);
/* Whether the live process source reads a moving target (the decoder then uses seqlock reads). */
bool ci_source_is_live(const struct ci_source *src);

/* ---------------------------------------------------------------------------------------- */
/* Stage 2: locate                                                                            */

/* X(NAME, VALUE, WORD, PHRASE): PHRASE completes "found by …". */
#define CI_LOCATE_METHODS(X)                                                                 \
	/* the memfd name "/memfd:cudainspect…" in NT_FILE or maps */                         \
	X(CI_LOCATE_NT_FILE, 1, "nt_file", "its memfd name")                                 \
	/* the recorder's exported pointer symbol */                                         \
	X(CI_LOCATE_SYMBOL, 2, "symbol", "the recorder's symbol")                            \
	/* page-start magic scan */                                                          \
	X(CI_LOCATE_SCAN, 3, "scan", "a magic scan")                                         \
	/* the input is a record file */                                                     \
	X(CI_LOCATE_FILE, 4, "file", "being the input file")                                 \
	/* the caller's buffer */                                                            \
	X(CI_LOCATE_BUFFER, 5, "buffer", "the caller")
CI_RECORD_ENUM(ci_locate_method, CI_LOCATE_METHODS);

struct ci_location {
	uint64_t address;        /* where the record starts in the source's address space */
	uint64_t size;           /* header's record_size, as far as the source holds it */
	enum ci_locate_method method;
};

/* Find the flight record.  CI_ERR_NO_RECORD if there is none; CI_ERR_CORRUPT if there is one
 * (named, pointed to, or a page with the magic that agrees with the format in most fields) but
 * its header is damaged and no intact one was found. */
struct ci_error *ci_locate(struct ci_source *src, struct ci_location *ret);

/* ---------------------------------------------------------------------------------------- */
/* Stage 3: decode                                                                            */

/* Per-section decode statistics, the honest account of what was and was not trusted. */
struct ci_section_stats {
	uint32_t kind;
	bool present;
	uint64_t capacity;
	uint64_t head;           /* entries ever claimed (writer's count) */
	uint64_t accepted;       /* complete entries decoded */
	uint64_t torn;           /* BUSY or changing during a live read: not trusted */
	uint64_t invalid;        /* seq/slot mismatch or failed validation: not trusted */
	uint64_t overwritten;    /* head - capacity for rings: lost by design */
	uint64_t dropped;        /* writer's dropped counter */
	uint64_t missing;        /* not in the input (truncated core, uncaptured pages): unknown */
	uint64_t unread;         /* sparse models (ci_decode_options.sparse): entries not looked at */
};

/* The decoded record: copies of every accepted entry, in owned arrays, with every reference
 * (slot numbers, string offsets, stack ids) checked.  Invalid references are replaced by
 * CI_NONE / 0.  Strings are resolved through ci_model_string(), which never returns NULL. */
struct ci_model {
	struct ci_header header;
	struct ci_location location;
	struct ci_section_stats sections[CI_SECTION_KIND_MAX]; /* indexed by enum ci_section_kind */

	/* Tables keep their slot numbers: entry i of these arrays is slot i.  Slots that were
	 * never written or are invalid have seq == 0. */
	struct ci_host_module *host_modules; size_t host_module_count;
	struct ci_device *devices; size_t device_count;
	struct ci_context *contexts; size_t context_count;
	struct ci_stream *streams; size_t stream_count;
	struct ci_code_module *code_modules; size_t code_module_count;
	struct ci_function *functions; size_t function_count;
	struct ci_thread *threads; size_t thread_count;
	/* Python (sections 18 and 19; empty where the recorder found no interpreter). */
	struct ci_python *python; size_t python_count;
	struct ci_py_code *py_codes; size_t py_code_count;
	/* Graphs (format 1.1): tables, slot numbers kept; a node's versions share its graph and
	 * ordinal (record.h, struct ci_graph_node). */
	struct ci_graph *graphs; size_t graph_count;
	struct ci_graph_node *graph_nodes; size_t graph_node_count;
	struct ci_graph_exec *graph_execs; size_t graph_exec_count;
	/* NCCL communicators, launcher variables, peer memory (format 1.2): tables. */
	struct ci_nccl_comm *nccl_comms; size_t nccl_comm_count;
	struct ci_job_var *job_vars; size_t job_var_count;
	struct ci_peer_mem *peer_mems; size_t peer_mem_count;

	/* Rings: accepted entries only, sorted by time_ns then seq (oldest first).  In a lazy model
	 * (ci_decode_with) `launches` is NULL: read them with ci_model_launch(). */
	struct ci_launch *launches; size_t launch_count;
	struct ci_api_error *errors; size_t error_count;
	struct ci_event *events; size_t event_count;
	/* Format 1.5: made from the launches of api graph the model holds (none in a lazy model). */
	struct ci_graph_launch *graph_launches; size_t graph_launch_count;
	struct ci_nccl_call *nccl_calls; size_t nccl_call_count; /* format 1.2 */
	struct ci_alloc *frees; size_t free_count;
	/* Live allocations (state LIVE, complete), sorted by address (then id).  NULL in a lazy
	 * model: read them with ci_model_alloc(). */
	struct ci_alloc *allocs; size_t alloc_count;

	/* Breadcrumbs: crumbs[stream slot's crumb_slot]. */
	uint64_t *crumbs; size_t crumb_count;

	/* Stack depot: stack id N is stacks[N - 1]; frames are bounds-checked. */
	struct ci_stack *stacks; size_t stack_count;
	uint64_t *frames; size_t frame_count;

	char *strings; size_t strings_size;   /* always NUL-terminated at strings_size - 1 */
	/* Format 1.1: the record's kernel-log lines (CI_SEC_KERNEL_LOG), text as the recorder kept
	 * it; NULL and 0 when the record has none. */
	char *kernel_log; size_t kernel_log_size;

	struct ci_warnings warnings;

	/* Private to the library: how a lazy model reaches the entries it has not copied yet.  NULL
	 * in every other model, including models built by hand. */
	struct ci_model_lazy *lazy;
	/* A sparse model read with a list (ci_decode_options.list): model->launches holds the
	 * newest launches that match it, and LAUNCH_LIST_MATCHED counts the matching entries the
	 * scan looked at (all of the ring's when sections[launches].unread is 0). */
	bool launch_list;
	size_t launch_list_matched;
	/* The input has no record at all: this model is empty and stands in for one so that the
	 * host threads (with their Python stacks) of a core can still be shown (the threads view). */
	bool no_record;
};

/* An empty model for an input without a record (no_record set); NULL on out-of-memory. */
struct ci_model *ci_model_without_record(void);

/* Decode the record found at LOC.  Refuses an unknown major version (CI_ERR_VERSION) and a
 * header that cannot be trusted (CI_ERR_CORRUPT); everything below the header degrades entry
 * by entry and is counted in sections[].  The source is not changed (the later stages name a
 * thread from the record's thread table, then the source's).  On a live source (ci_source_is_live) each entry is read seq,
 * payload, seq and counted as torn if it changed. */
struct ci_error *ci_decode(struct ci_source *src, const struct ci_location *loc,
			   struct ci_model **ret);
/* The launches a view lists (the kernels view): the newest NEWEST that match all of what is
 * set. */
struct ci_launch_filter {
	size_t newest;            /* 0: no list */
	bool has_thread, has_stream;
	uint32_t thread;
	uint64_t stream;          /* a stream's handle or the driver's stream id */
	const char *kernel;       /* a substring of the demangled or mangled name; NULL or "": any */
	size_t per_stream;        /* besides: each stream's newest this many (0: none); launches
				   * of no known stream count as one stream */
	bool whole_ring;          /* judge and count every entry of the ring, keeping no more */
};
/* Whether launch L of MODEL matches F (NEWEST aside). */
bool ci_launch_filter_matches(const struct ci_model *model, const struct ci_launch_filter *f,
			      const struct ci_launch *l);

/* What ci_decode_with may do differently from ci_decode. */
struct ci_decode_options {
	/* Leave the launch ring and the live allocations where they are in the input and copy an
	 * entry only when ci_model_launch() or ci_model_alloc() first asks for it: for front ends
	 * that show a few entries of a large record (the CLI's summary).  model->launches and
	 * model->allocs are NULL then; counts, statistics, warnings and the order of the entries are
	 * as ci_decode() gives them.  Not done where the input cannot be read in place (a live
	 * process, a record split across segments): the model is complete then. */
	bool lazy;
	/* Read only what a report of the newest work needs (the CLI's summary, fault and streams
	 * views), so that it costs what it shows, not what the record holds.  The launch ring is
	 * judged from its head back until every stream's unfinished launches and the launches the
	 * diagnosis weighs are in: model->launches holds those, oldest first (every entry passed is
	 * judged and counted, only those are kept, so memory is what they take however far the
	 * scan goes).  The live allocations
	 * are not read at decode: alloc_count is 0, and the diagnosis looks up the few pointers it
	 * attributes in the table where it lies.  Statistics count what was looked at; `unread` in
	 * sections[] says what was not.  Not done where the input cannot be read in place (as for
	 * `lazy`).  Implies nothing about `lazy` for what it does read. */
	bool sparse;
	/* With `sparse`: the newest launches a view lists are read too (model->launch_list), the
	 * scan going on from the head until it has them and no further than that and the
	 * diagnosis ask. */
	struct ci_launch_filter list;
	/* With `sparse`: the live allocations are decoded (as lazily as `lazy` says) after all, for
	 * a view that lists them (alloc_count is theirs then). */
	bool every_alloc;
};
/* ci_decode with options (NULL: none).  A lazy model holds a reference to SRC, so that
 * ci_source_close() may come before ci_model_destroy(). */
struct ci_error *ci_decode_with(struct ci_source *src, const struct ci_location *loc,
				const struct ci_decode_options *opts, struct ci_model **ret);
/* Decode a record held entirely in memory (GDB JIT entry, fuzzers). */
struct ci_error *ci_decode_buffer(const void *buf, size_t len, struct ci_model **ret);
void ci_model_destroy(struct ci_model *model);

/* Launch I (0 <= I < launch_count) and live allocation I (0 <= I < alloc_count) of MODEL, in
 * the model's order, for every model: lazy ones copy the entry from the input, and check its
 * references, on first use.  NULL when I is out of range.  A lazy model must not be read from
 * two threads at once. */
const struct ci_launch *ci_model_launch(const struct ci_model *model, size_t i);
const struct ci_alloc *ci_model_alloc(const struct ci_model *model, size_t i);
/* String at OFF of the record's string table; "" if OFF is out of range. */
const char *ci_model_string(const struct ci_model *model, uint32_t off);
/* Frames of stack ID (1-based) or NULL with *n = 0. */
const uint64_t *ci_model_stack(const struct ci_model *model, uint32_t id, size_t *n);
/* Kernel name of a function slot, or NULL when the slot is CI_NONE, invalid or unnamed (the
 * "<unknown function 0x…>" style fallback is the renderer's job). */
const char *ci_model_function_name(const struct ci_model *model, uint32_t function_slot);
/* Names for enums, for renderers: the WORDs of the X-macro lists in record.h and here, stable
 * lowercase words; a value the list does not have reads "unknown". */
const char *ci_alloc_kind_name(uint32_t kind);
const char *ci_launch_api_name(uint32_t api);
const char *ci_event_kind_name(uint32_t kind);
const char *ci_node_type_name(uint32_t type);     /* "kernel", "memcpy": CI_NODE_TYPES */
const char *ci_graph_origin_name(uint32_t origin); /* "captured", "built": CI_GRAPH_ORIGINS */
const char *ci_stream_kind_name(uint32_t kind);
const char *ci_crumb_status_name(uint32_t status);
const char *ci_context_kind_name(uint32_t kind);
const char *ci_record_state_name(uint32_t state);
const char *ci_record_origin_name(uint32_t origin);
const char *ci_stack_mode_name(uint32_t mode);
const char *ci_python_state_name(uint32_t state); /* "on", "unsupported", "off" */
const char *ci_section_word(uint32_t kind);   /* "allocations": the JSON key */
const char *ci_section_title(uint32_t kind);  /* "API errors": messages and tables; NULL for a
					       * kind this reader does not know */
const char *ci_source_kind_name(uint32_t kind);
const char *ci_locate_method_phrase(uint32_t method); /* "its memfd name" */
/* The entry point family of a launch API ("cuLaunchKernel"), or "an unknown launch API". */
const char *ci_launch_api_text(uint32_t api);
/* The WORD of flag bit BIT of ci_launch.flags, NULL if none. */
const char *ci_launch_flag_word(unsigned bit);
/* CUresult name and description ("CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was
 * encountered"), from a table built from cuda.h; unknown codes give "CUresult 1234". */
const char *ci_cuda_result_name(int32_t result);
const char *ci_cuda_result_text(int32_t result);
/* Sticky errors poison the context (illegal address, launch failure, …). */
bool ci_cuda_result_is_sticky(int32_t result);

/* ---------------------------------------------------------------------------------------- */
/* Stage 4: evidence                                                                          */

/* What one stream's record says about its progress, besides its launches. */
struct ci_stream_facts {
	bool has_crumb;          /* breadcrumbs are on and the stream has a breadcrumb slot */
	uint64_t crumb;          /* the GPU's breadcrumb as a full 64-bit per-stream launch number:
				  * 32-bit breadcrumbs take their high half from the stream's launch
				  * counter; a value past the counter is clamped to it */
	uint64_t synced_ns;      /* the latest start time of a successful synchronization that
				  * covers the stream (cuStreamSynchronize of it, cuCtxSynchronize of
				  * its context, cuEventSynchronize of an event last recorded on it)
				  * made before the first sticky error: launches made before it had
				  * finished; 0 if no synchronization says so */
	uint64_t synced_seq;     /* 1.3: the stream's launches numbered up to this had finished:
				  * the launches handed out on it when a successful
				  * cuStreamSynchronize of it began (made before the first sticky
				  * error); 0 if none says so */
};

/* The facts a diagnosis reasons from, each gathered once from the decoded record (and a kernel
 * log), with where it came from in the comments.  GPU core dumps would join it here. */
struct ci_evidence {
	ptrdiff_t first_sticky_error;  /* index into model->errors (by the FIRST_STICKY flag, the
					* header's seq, the STICKY flag, then the result), or -1 */
	ptrdiff_t last_error;          /* the last error that is not CUDA_ERROR_NOT_READY, or -1 */
	/* Without a sticky error, the launch whose call returned the last error is one that failed
	 * and was made in [failed_launch_from, failed_launch_to] (the call is recorded when it
	 * starts, its error when it returns). */
	bool failed_launch_window;
	uint64_t failed_launch_from, failed_launch_to;
	struct ci_stream_facts *streams; size_t stream_count; /* by model stream slot */
	/* Kernel-log lines (docs/KERNEL-LOG.md, "How a report uses the lines"): the NVIDIA Xid
	 * lines of --kernel-log or of the record's kernel-log section, parsed, and for each one
	 * whether it belongs to the process and by which rule (ci_evidence_kernel_log).  NULL:
	 * no kernel log was given and the record holds none. */
	struct ci_klog *kernel_log;
	struct ci_klog_match *kernel_log_match;  /* kernel_log->count entries */
	size_t kernel_log_selected;              /* how many belong */
	size_t kernel_log_events;                /* how many events they make (ci_klog_match.event) */
	char *kernel_log_origin;                 /* "--kernel-log FILE", "the record's kernel log" */
	/* A GPU core dump given with the record (ci_request.gpu_core), read (corefile/gpucore/);
	 * owned by the report, NULL when none was given. */
	struct ci_gpucore *gpu_core;
	const char *gpu_core_path;
};

struct ci_klog;
struct ci_klog_match;
struct ci_gpucore;

/* Gather the evidence of MODEL.  Reads the tables, the breadcrumbs and the small rings (errors,
 * events), not the launches or allocations, so it can run on a model whose launch ring is still
 * to be read. */
struct ci_error *ci_evidence_gather(const struct ci_model *model, struct ci_evidence **ret);
void ci_evidence_destroy(struct ci_evidence *ev);
/* Add the kernel-log evidence to EV: LEN bytes of log text (any format docs/KERNEL-LOG.md
 * lists, gzip included) from ORIGIN (a phrase for messages), matched against what MODEL and
 * INFO (NULL: none) say of the process (pid, thread names, devices' PCI ids, boot id, the
 * record's clocks).  MODEL may be NULL (a core without a record): pid and names then come from
 * INFO alone.  Lines already there (the record's own) are replaced by the new log's. */
struct ci_error *ci_evidence_kernel_log(struct ci_evidence *ev, const struct ci_model *model,
					const struct ci_source_info *info, const void *buf,
					size_t len, const char *origin);
/* Free EV's kernel-log evidence and forget it (EV itself stays the caller's). */
void ci_evidence_kernel_log_clear(struct ci_evidence *ev);
/* Read a kernel log from PATH ("-": standard input) into *BUF (free it), at most
 * CI_KERNEL_LOG_MAX bytes; a file is opened as the reader opens every file (regular files
 * only).  CI_ERR_IO with a sentence on failure. */
#define CI_KERNEL_LOG_MAX (4ull << 30)
struct ci_error *ci_kernel_log_read(const char *path, char **buf, size_t *len);

/* ---------------------------------------------------------------------------------------- */
/* Stage 5: diagnose                                                                          */

#define CI_LAUNCH_STATES(X)                                                                  \
	X(CI_LS_UNKNOWN, 0, "unknown")         /* no breadcrumb information */              \
	X(CI_LS_FINISHED, 1, "finished")                                                    \
	X(CI_LS_IN_FLIGHT, 2, "in_flight")                                                  \
	X(CI_LS_NOT_STARTED, 3, "not_started")
CI_RECORD_ENUM(ci_launch_state, CI_LAUNCH_STATES);

#define CI_CONFIDENCES(X)                                                                    \
	X(CI_CONF_NONE, 0, "none")                                                          \
	X(CI_CONF_LOW, 1, "low")                                                            \
	X(CI_CONF_MEDIUM, 2, "medium")                                                      \
	X(CI_CONF_HIGH, 3, "high")                                                          \
	X(CI_CONF_EXACT, 4, "exact")           /* the driver's fault address leaves one operation */
CI_RECORD_ENUM(ci_confidence, CI_CONFIDENCES);

#define CI_RELATIONS(X)                                                                      \
	X(CI_REL_INSIDE, 1, "inside")                                                       \
	X(CI_REL_PAST_END, 2, "past_end")                                                   \
	X(CI_REL_BEFORE_START, 3, "before_start")                                           \
	X(CI_REL_FREED, 4, "freed")                                                         \
	X(CI_REL_UNKNOWN, 5, "unknown")
CI_RECORD_ENUM(ci_relation, CI_RELATIONS);

/* What kind of failure the record shows, which decides how the faulting launch is chosen. */
#define CI_VERDICTS(X)                                                                       \
	/* no error recorded and nothing in flight */                                        \
	X(CI_VERDICT_NONE, 0, "none")                                                       \
	/* a sticky error: the GPU faulted in some launch */                                 \
	X(CI_VERDICT_DEVICE_FAULT, 1, "device_fault")                                       \
	/* a CUDA call failed, no device fault (bad launch configuration…) */               \
	X(CI_VERDICT_API_ERROR, 2, "api_error")                                             \
	/* no error, but work in flight: hung, or killed in the middle */                    \
	X(CI_VERDICT_PENDING, 3, "pending")                                                 \
	/* most of the record is not in the input: nothing can be said */                   \
	X(CI_VERDICT_INCOMPLETE, 4, "incomplete")
CI_RECORD_ENUM(ci_verdict, CI_VERDICTS);

struct ci_stream_progress {
	uint32_t stream;         /* model stream slot */
	uint64_t crumb;          /* last breadcrumb value the GPU wrote */
	uint64_t launched;       /* last per-stream sequence handed out */
	/* Counts over the stream's launch numbers 1..launched, also those the ring no longer
	 * holds: finished up to the breadcrumb, and past it up to the last launch made before a
	 * synchronization that succeeded (breadcrumbs are spent within a budget, so they bound
	 * ranges of launches). */
	size_t finished, in_flight, not_started, unknown;
	ptrdiff_t oldest_unfinished; /* index into model->launches, -1 if none */
	uint64_t synced_ns;      /* launches made before this had finished, 0 if no
				  * synchronization says so (ci_diagnose) */
};

/* What the argument history says of an attribution (ci_attribution.history). */
#define CI_HISTORIES(X)                                                                      \
	X(CI_HISTORY_NONE, 0, "none")          /* no earlier launch used one allocation */  \
	X(CI_HISTORY_SAME, 1, "same")          /* the earlier launches used this allocation too */ \
	X(CI_HISTORY_LEFT, 2, "left")          /* they all used A; this value lies outside A */ \
	X(CI_HISTORY_FREED_SINCE, 3, "freed_since") /* they used A while it was live; A was freed \
						     * before this launch was made */
CI_RECORD_ENUM(ci_history, CI_HISTORIES);

/* How an argument explains a fault page that lies in no allocation a suspect references
 * (ci_attribution.fault_fit; docs/USAGE.md, "The fault page against the arguments"). */
#define CI_FAULT_FITS(X)                                                                     \
	X(CI_FIT_NONE, 0, "none")                                                           \
	/* within one allocation size past its allocation's end or before its start */       \
	X(CI_FIT_REACH, 1, "reach")                                                         \
	/* a whole number (2 or more) of its allocation's size from its start, within a page */ \
	X(CI_FIT_MULTIPLE, 2, "multiple")                                                   \
	/* the argument ± 2^k (k >= 20), give or take its allocation's size */               \
	X(CI_FIT_POWER_OF_TWO, 3, "power_of_two")
CI_RECORD_ENUM(ci_fault_fit, CI_FAULT_FITS);
/* Launch-ring entries the argument history looks back over (the newest ones), and earlier
 * launches it weighs per argument, at most. */
#define CI_HISTORY_RING 1024
#define CI_HISTORY_MAX 16

struct ci_attribution {
	size_t launch;           /* index into model->launches */
	uint32_t arg;            /* parameter index (8-byte word index when the layout is unknown) */
	uint32_t param_offset;   /* byte offset of the argument in the launch's params[] */
	uint64_t address;
	enum ci_relation relation;
	const struct ci_alloc *alloc; /* live (model->allocs) or freed (model->frees), or NULL */
	uint64_t offset;         /* from start (inside, before_start) or from end (past_end) */
	/* Argument history (docs/USAGE.md, "Argument history"): the same parameter of the earlier
	 * launches of the same function among the newest CI_HISTORY_RING launch-ring entries,
	 * newest first, at most CI_HISTORY_MAX of them.  With history LEFT, relation, alloc and
	 * offset are relative to history_alloc (the allocation the earlier launches used), and
	 * neighbour_* say where the value lies otherwise (inside a neighbour, a gap...); except
	 * where the value lies inside a freed allocation (and no live one): relation is FREED
	 * with that allocation (a use after free first), and neighbour is history_alloc, with
	 * where the value lies against it. */
	enum ci_history history;
	uint32_t history_launches;   /* earlier launches looked at */
	uint32_t history_inside;     /* of those, how many passed a pointer into history_alloc */
	const struct ci_alloc *history_alloc; /* live or freed, or NULL */
	enum ci_relation neighbour_relation;  /* with LEFT; 0 otherwise */
	const struct ci_alloc *neighbour;     /* with LEFT: live or freed, or NULL */
	uint64_t neighbour_offset;
	/* The diagnosis's fault page (xid_page) against this argument, when the page lies in no
	 * allocation a suspect references (fault_related set; the differences are page − x). */
	bool fault_related;
	enum ci_fault_fit fault_fit;   /* the best way it explains the page, or CI_FIT_NONE */
	int64_t fault_from_arg;        /* page − address */
	int64_t fault_from_start;      /* page − its allocation's start (with alloc) */
	int64_t fault_from_end;        /* page − its allocation's end (with alloc) */
	int8_t fault_pow2;             /* k >= 20 with fault_from_arg = ±2^k + fault_pow2_rest, -1 */
	int64_t fault_pow2_rest;
	int64_t fault_multiple;        /* q, |q| >= 2, with fault_from_start = q × size + rest; 0 */
	int64_t fault_multiple_rest;   /* within a page (MULTIPLE), or beside 2^k */
	/* The argument's element type, where the kernel's demangled parameter list says it (a C++
	 * kernel: "float const*" is 4 bytes; Triton and extern "C" kernels say nothing): size 0
	 * when unknown. */
	uint32_t element_size;
	char element_type[24];
};

/* One piece of evidence the diagnosis weighed (ci_diagnosis.evidence), for the renderers: the
 * summary shows the decisive ones, the fault view all of them, the JSON lists them. */
#define CI_EVIDENCE_KINDS(X)                                                                 \
	X(CI_EVK_XID, 1, "xid")                 /* a kernel-log Xid line of the process */  \
	X(CI_EVK_XID_PAGE, 2, "xid_page")       /* where an Xid 31 fault page lies */       \
	X(CI_EVK_XID_LAUNCH, 3, "xid_launch")   /* the in-flight operations that reference it */ \
	X(CI_EVK_ARG_HISTORY, 4, "argument_history") /* an argument left its history */     \
	X(CI_EVK_RULE, 5, "rule")               /* the rule that chose the faulting launch */
CI_RECORD_ENUM(ci_evidence_kind, CI_EVIDENCE_KINDS);

struct ci_evidence_item {
	enum ci_evidence_kind kind;
	char *text;              /* one sentence (strings from the log already scrubbed) */
	const char *rule;        /* the rule's word ("pid", "name+time", "exact"...) or NULL */
	bool decisive;           /* the summary shows it */
	ptrdiff_t launch;        /* index into model->launches, -1 if none */
	const struct ci_alloc *alloc; /* live or freed, or NULL */
	ptrdiff_t event;         /* a copy or set: index into model->events, -1 if none */
	ptrdiff_t xid;           /* index into evidence->kernel_log->items, -1 if none */
};

/* A graph launch expanded into the nodes its executable graph ran (corefile/graphs.c). */
struct ci_graph_node_state {
	const struct ci_graph_node *node;  /* the version this replay ran (model->graph_nodes) */
	const struct ci_graph_node *first; /* the graph's first version of that ordinal */
	enum ci_launch_state state;        /* in_flight: running when the record was taken */
	ptrdiff_t parent;                  /* the child-graph or conditional node (index into
					      nodes) it ran in, -1 for the replayed graph's own */
	uint32_t ordinal;                  /* its ordinal in its graph */
	uint32_t body;                     /* in a conditional node's body: which one (0-based) */
};
struct ci_graph_replay {
	size_t launch;             /* index into model->launches of the cuGraphLaunch */
	uint32_t exec, graph;      /* CI_SEC_GRAPH_EXECS / CI_SEC_GRAPHS slots, CI_NONE */
	uint64_t replay;           /* the exec's launch number, 0 when unknown */
	/* nodes[0 .. graph_nodes) are the replayed graph's, by ordinal; after them the nodes of
	 * its child-graph nodes' graphs (and theirs), each child's by ordinal after its parent. */
	struct ci_graph_node_state *nodes; size_t node_count;
	size_t graph_nodes;        /* the replayed graph's ordinals */
	size_t kernel_count;       /* kernel nodes among them, child graphs' included */
	bool children_cut;         /* child graphs not all expanded (nesting or size limits) */
	size_t destroyed_count;    /* ordinals destroyed before the instantiation: no nodes */
	bool crumb;                /* node states come from the in-graph breadcrumb */
	uint64_t crumb_value;      /* its value: ordinal + 1 of the last kernel node finished */
	size_t crumb_unfinished;   /* with crumb: the kernel nodes it leaves unfinished (in flight
				      or in a window: between breadcrumbs, finished or not) */
	ptrdiff_t faulting_node;   /* index into nodes, -1 when not identified */
	/* The faulting kernel node as a launch (function, grid, block, parameters, the capture or
	 * add stack), with the graph launch's stream, thread, time and number: what the views show
	 * as the faulting kernel.  Valid when faulting_node >= 0. */
	struct ci_launch kernel;
};
/* Expand launch LAUNCH (a cuGraphLaunch) of MODEL whose state is STATE; false when the record
 * has no graph tables for it (a 1.0 record, an exec it missed).  RET->nodes is malloc'd: free it
 * with ci_graph_replay_deinit. */
bool ci_graph_replay_expand(const struct ci_model *model, size_t launch, enum ci_launch_state state,
			    struct ci_graph_replay *ret);
void ci_graph_replay_deinit(struct ci_graph_replay *r);
/* Whether node I of R may have been running: its state and that of the replayed graph's node
 * it runs in (a child graph's, a conditional body's) are in flight or unknown. */
bool ci_graph_replay_unfinished(const struct ci_graph_replay *r, size_t i);
/* Node I of R as the reports name it: its ordinal ("7"), or for a node of a child graph the
 * child-graph node's name and its ordinal in that graph ("3.0"), for a node of a conditional
 * node's body the conditional node's name, the body and its ordinal there ("3.1.0"). */
const char *ci_graph_replay_node_name(const struct ci_graph_replay *r, size_t i, char *buf, size_t size);

struct ci_diagnosis {
	enum ci_verdict verdict;
	enum ci_launch_state *launch_state; /* parallel to model->launches */
	struct ci_stream_progress *streams; size_t stream_count;
	ptrdiff_t faulting_launch;   /* index into model->launches, -1 if none */
	enum ci_confidence confidence;
	char *reasoning;             /* one or more sentences: why this launch */
	struct ci_attribution *attributions; size_t attribution_count;
	ptrdiff_t first_sticky_error;/* index into model->errors, -1 if none */
	ptrdiff_t first_error;       /* first non-success of any kind, -1 if none */
	uint32_t error_tid;          /* thread that observed the first sticky (else last) error */
	int32_t signal;              /* from the source or the record header */
	uint32_t signal_tid;
	ptrdiff_t failed_launch;     /* API error: the launch whose call returned it, -1 if none */
	ptrdiff_t last_error;        /* last error that is not CUDA_ERROR_NOT_READY, -1 if none */
	/* Kernel-log evidence (docs/KERNEL-LOG.md, "How a report uses the lines"). */
	ptrdiff_t xid;               /* the Xid 31 line whose page was attributed: index into
				      * evidence->kernel_log->items, -1 if none */
	struct ci_attribution xid_page; /* where its page lies (launch and arg unused) */
	/* With the page in no recorded allocation: the live allocations nearest below and above
	 * it, or NULL. */
	const struct ci_alloc *xid_below, *xid_above;
	/* The argument the page fits, of the launch it names (fault_related set), when the page
	 * lies in no allocation a suspect references and an argument explains it. */
	struct ci_attribution xid_fit;
	ptrdiff_t faulting_copy;     /* an ENGINE CE fault: the copy or set it names, index into
				      * model->events, -1 if none */
	struct ci_evidence_item *evidence; size_t evidence_count;
	/* The faulting launch is a graph launch: its replay, nodes and faulting kernel node (the
	 * attributions of the faulting launch are that node's arguments).  NULL otherwise. */
	struct ci_graph_replay *graph;
	/* A GPU core dump joined with the record (docs/USAGE.md, "GPU core dumps"): NULL when none
	 * was given. */
	struct ci_gpu_join *gpu;
};

/* How the GPU core's faulting grid was matched to a recorded launch (ci_gpu_join.matched). */
#define CI_GPU_MATCHES(X)                                                                    \
	X(CI_GPU_MATCH_NAME, 1u << 0, "kernel")       /* the kernel's (mangled) name */       \
	X(CI_GPU_MATCH_DIMS, 1u << 1, "dimensions")   /* grid and block dimensions */         \
	X(CI_GPU_MATCH_CONTEXT, 1u << 2, "context")   /* the CUcontext (or its id) */         \
	X(CI_GPU_MATCH_THREAD, 1u << 3, "thread")     /* the host thread that launched it */  \
	X(CI_GPU_MATCH_UNFINISHED, 1u << 4, "unfinished") /* the only candidate the breadcrumbs \
							      * leave unfinished */              \
	X(CI_GPU_MATCH_ORDER, 1u << 5, "order")       /* the grid id is the launch's ordinal  \
						       * among the kernel's launches */   \
	X(CI_GPU_MATCH_ARGS, 1u << 6, "arguments")    /* the grid's parameter memory is the   \
						       * launch's recorded arguments */
enum {
#define CI_GPU_MATCH_ENUM(name, bit, word) name = bit,
	CI_GPU_MATCHES(CI_GPU_MATCH_ENUM)
#undef CI_GPU_MATCH_ENUM
};
struct ci_gpu_join {
	bool agrees;             /* false: the GPU core is of another run; `mismatch` says why and
				  * nothing of it is merged */
	char mismatch[512];
	ptrdiff_t launch;        /* the recorded launch of the faulting grid, -1 if none */
	unsigned matched;        /* CI_GPU_MATCH_* that held for it */
	size_t candidates;       /* recorded launches of the kernel with the grid's dimensions */
	size_t unfinished;       /* of those, the ones the breadcrumbs do not show finished */
	size_t with_args;        /* of those, the ones whose arguments the dump's grid holds */
	enum ci_confidence confidence; /* that `launch` is the grid */
	bool has_address;        /* the GPU core gives the faulting address (ci_gpu_access) */
	uint64_t address;
	struct ci_attribution address_at; /* the address against the allocations (launch, arg
					   * unused) */
	struct ci_attribution arg_fit;    /* the launch's argument it fits best (fault_related),
					   * fault_related false when none fits */
};
/* "kernel, dimensions, context": the CI_GPU_MATCH_* words of MATCHED in BUF. */
const char *ci_gpu_match_text(unsigned matched, char *buf, size_t n);

/* What the diagnosis takes besides the record and its evidence. */
struct ci_diagnose_options {
	/* The source's signal and crashed thread; NULL (e.g. a record handed over by GDB): the
	 * record header's fatal_* fields are used. */
	const struct ci_source_info *source;
	/* What a debugger that holds the process knows and the input cannot show: the signal it
	 * stopped the process at (not delivered yet) and the thread that received it (0: not
	 * known).  0: the source's and the record's own. */
	int signal;
	uint32_t signal_tid;
};

/* Diagnose MODEL from its EVIDENCE (ci_evidence_gather of the same model).  OPTS may be NULL.
 * Rules: docs/USAGE.md. */
struct ci_error *ci_diagnose(const struct ci_model *model, const struct ci_evidence *evidence,
			     const struct ci_diagnose_options *opts, struct ci_diagnosis **ret);
void ci_diagnosis_destroy(struct ci_diagnosis *diag);
const char *ci_launch_state_name(enum ci_launch_state s);   /* "finished", "in_flight", … */
const char *ci_confidence_name(enum ci_confidence c);       /* "low", "medium", "high", "exact" */
const char *ci_relation_name(enum ci_relation r);           /* "inside", "past_end", … */
const char *ci_history_name(enum ci_history h);             /* "none", "same", "left", … */
const char *ci_fault_fit_name(enum ci_fault_fit f);         /* "none", "reach", "multiple", … */
/* How the fault page fits argument A (its fault_* fields): "arg 0 + 2,199,023,321,088 B (2^41 +
 * 65,536 B; 131,072 × its 16.0 MiB allocation #12 from its start + 65,536 B)". */
const char *ci_fault_fit_phrase(const struct ci_attribution *a, char *buf, size_t size);
const char *ci_evidence_kind_name(enum ci_evidence_kind k); /* "xid", "xid_page", … */
const char *ci_verdict_name(enum ci_verdict v);             /* "device_fault", "api_error", … */

/* ---------------------------------------------------------------------------------------- */
/* Stage 6: symbolize and unwind                                                              */

struct ci_frame {
	uint64_t address;
	char *module;            /* path or NULL */
	uint64_t module_offset;
	char *function;          /* NULL if unknown; demangled when possible */
	uint64_t function_offset;
	char *file;              /* NULL if no line info */
	int line;
	bool inlined;            /* an inline frame at the same address as the next one */
	/* Added in schema 3: what kind of frame this is.  A Python frame (corefile/python.c) has
	 * the code object's address in ADDRESS, its qualified name in FUNCTION, its file and line,
	 * the instruction offset (code units) in INSTRUCTION and no module. */
	enum ci_frame_kind { CI_FRAME_NATIVE = 0, CI_FRAME_PYTHON } kind;
	int32_t instruction;     /* Python: instruction offset in code units, -1 unknown */
};

struct ci_thread_stack {
	uint32_t tid;
	char name[16];
	bool crashed;
	struct ci_frame *frames;
	size_t frame_count;
	char *note;              /* why unwinding stopped early, or NULL */
	/* Added for Python (schema 3): the thread runs Python code (a thread state of the
	 * process's interpreter maps to it), holds the GIL, and why its Python stack is short. */
	bool python;
	bool gil_holder;
	char *python_note;
};

struct ci_symbolizer;

/* Where a debugger holds a live process it traces, the kernel refuses the symbolizer's own
 * ptrace attach; the debugger can hand over each thread's registers instead (the CLI's
 * --registers) and the threads are unwound from them, memory read through the pid source.
 * x86-64 only.  regs[] uses the x86-64 DWARF numbering: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
 * 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, and CI_REG_X86_64_RIP (16) for rip. */
#define CI_REG_X86_64_RSP 7
#define CI_REG_X86_64_RIP 16
#define CI_REGS_X86_64 17
struct ci_thread_registers {
	uint32_t tid;            /* the thread (LWP) id */
	uint32_t valid;          /* bit N set: regs[N] is known */
	uint64_t regs[CI_REGS_X86_64];
};

struct ci_symbolizer_options {
	const char *sysroot;     /* prefix for module paths that do not open as they are */
	const char *executable;  /* --exe override */
	const char *debuginfo_path; /* extra debug directories (':'-separated) */
	bool debuginfod;         /* allow libdebuginfod lookups (off by default) */
	/* Added later, at the end (zero-initialized options keep the old behaviour): for a pid
	 * source, unwind from these registers instead of ptrace-attaching (see struct
	 * ci_thread_registers).  Threads of /proc/PID/task without an entry (or whose entry lacks
	 * rip or rsp) are listed without frames and a note; entries for threads the process does
	 * not have are ignored with a warning.  ci_symbolizer_create copies them. */
	const struct ci_thread_registers *registers;
	size_t register_count;
};

/* Build a symbolizer for SRC (a core: modules from the core; a live pid: its /proc maps; a
 * record/buffer, or SRC == NULL: the record's host module table, with --sysroot and build-id
 * checks).  Best effort: failures become warnings, not errors, except out of memory.
 * libdw consults DEBUGINFOD_URLS whenever it looks something up, so with debuginfod == false the
 * front end must also clear that variable (the CLI does). */
struct ci_error *ci_symbolizer_create(struct ci_source *src, const struct ci_model *model,
				      const struct ci_symbolizer_options *opts,
				      struct ci_symbolizer **ret);
void ci_symbolizer_destroy(struct ci_symbolizer *sym);
/* Symbolize ADDRESS (a return address when IS_RETURN, looked up at address - 1).  Appends to
 * *frames one frame, or several when inline frames exist. */
struct ci_error *ci_symbolize(struct ci_symbolizer *sym, uint64_t address, bool is_return,
			      struct ci_frame **frames, size_t *count);
/* Unwind every thread in a core or live process.  Empty (not an error) for records/buffers. */
struct ci_error *ci_unwind_threads(struct ci_symbolizer *sym, size_t max_frames,
				   struct ci_thread_stack **ret, size_t *count);
/* Unwind only thread TID (cheaper when one backtrace is all a view shows).  *RET is NULL when
 * the source has no threads; a thread that cannot be unwound gets no frames and a note.  Free
 * with ci_thread_stacks_free(*ret, 1). */
struct ci_error *ci_unwind_thread(struct ci_symbolizer *sym, uint32_t tid, size_t max_frames,
				  struct ci_thread_stack **ret);
void ci_frames_free(struct ci_frame *frames, size_t count);
void ci_thread_stacks_free(struct ci_thread_stack *stacks, size_t count);
struct ci_warnings *ci_symbolizer_warnings(struct ci_symbolizer *sym);

/* ---------------------------------------------------------------------------------------- */
/* Stage 7: render                                                                            */

/* The views, in the order of the view table (corefile/views.c), which names each one once. */
enum ci_view {
	CI_VIEW_SUMMARY = 0,
	CI_VIEW_CONTEXTS,
	CI_VIEW_STREAMS,
	CI_VIEW_KERNELS,
	CI_VIEW_ALLOCS,
	CI_VIEW_ERRORS,
	CI_VIEW_THREADS,
	CI_VIEW_FAULT,
	CI_VIEW_ALL,
	CI_VIEW_GRAPHS,
	CI_VIEW_NCCL,
};

/* The filters a view may accept (ci_view_info.filters): X(NAME, BIT, OPTION), NAME = 1 << BIT. */
#define CI_VIEW_FILTERS(X)                                                                   \
	X(CI_FILTER_STREAM, 0, "--stream")                                                  \
	X(CI_FILTER_THREAD, 1, "--thread")                                                  \
	X(CI_FILTER_KERNEL, 2, "--kernel")                                                  \
	X(CI_FILTER_LAST, 3, "--last")                                                      \
	X(CI_FILTER_FREED, 4, "--freed")
enum ci_view_filter { CI_VIEW_FILTERS(CI_RECORD_FLAG_ENTRY) };

/* One row of the view table: what the CLI's parser, --help, its filter checks, the GDB command
 * file (`cudainspect --list-views`) and docs/CLI.md say about a view. */
struct ci_view_info {
	const char *name;        /* "kernels" */
	enum ci_view view;
	unsigned filters;        /* enum ci_view_filter bits it accepts */
	const char *summary;     /* one line: what it shows */
	const char *gdb_help;    /* the rest of `help cuda NAME` (usage, examples), lines */
};

/* The rows, in table order: row I of ci_view_count(); the row of VIEW or named NAME, or NULL. */
size_t ci_view_count(void);
const struct ci_view_info *ci_view_at(size_t i);
const struct ci_view_info *ci_view_info(enum ci_view view);
const struct ci_view_info *ci_view_find(const char *name);
/* Whether VIEW shows host threads (and the signal they received). */
bool ci_view_shows_threads(enum ci_view view);
/* The option that sets filter bit BIT ("--stream" for bit 0), or NULL past the last. */
const char *ci_view_filter_option(unsigned bit);

/* How the text report phrases the commands it suggests ("What to do next"). */
enum ci_hints {
	CI_HINTS_CLI = 0,        /* `cudainspect CORE kernels --stream S` */
	CI_HINTS_GDB = 1,        /* `cuda kernels --stream S` (cudainspect.gdb), for reports inside GDB */
};

struct ci_render_options {
	enum ci_view view;
	size_t last;             /* kernels: last N launches (0 = default 20) */
	bool has_stream_filter; uint64_t stream_filter;   /* stream handle or id */
	bool has_thread_filter; uint32_t thread_filter;
	const char *kernel_filter;                        /* substring */
	bool freed;              /* allocs: include recent frees */
	int width;               /* terminal width, 0 = 100 */
	bool color;
	enum ci_hints hints;
	bool quiet;              /* text: no warnings (JSON keeps them: pipelines want them) */
	/* Which frames of host stacks text shows (JSON has them all, each with its kind). */
	enum ci_frames_shown { CI_FRAMES_BOTH = 0, CI_FRAMES_PYTHON, CI_FRAMES_NATIVE } frames;
	/* How the suggested commands name the input (`cudainspect INPUT_ARG fault`), as the user
	 * would type it again, e.g. "--coredump 4242"; NULL: the input's path, shell-quoted. */
	const char *input_arg;
};

/* A finished report (the report session below): every stage's result, for the renderers. */
struct ci_report;

/* Render REPORT as text, as OPTS say.  OPTS' view must be one the report was made for (its
 * request's view, or any view for a report made for CI_VIEW_ALL or JSON): the report holds the
 * model, the symbols and the host stacks that view shows, and rendering reads nothing else.
 * OPTS may be NULL: the request's own options. */
struct ci_error *ci_render_text(FILE *out, const struct ci_report *report,
				const struct ci_render_options *opts);
/* One JSON document (schema: docs/JSON.md, "version" key first), the whole report whatever the
 * view: the report must have been made for JSON (ci_request.json).  Bounded unless the request
 * says ci_request.json_full: everything the diagnosis names, and of the rest the newest
 * launches per stream, the newest allocations and frees, as many as below (docs/JSON.md,
 * "Bounded and full"); the document counts what it left out. */
#define CI_JSON_SCHEMA_VERSION 6
#define CI_JSON_LAUNCHES_PER_STREAM 256     /* the newest launches of each stream */
#define CI_JSON_UNFINISHED_PER_STREAM 4096  /* in flight or not started, among its newest this many */
#define CI_JSON_ALLOCATIONS 4096            /* the newest live allocations */
#define CI_JSON_FREES 1024                  /* the newest frees */
struct ci_error *ci_render_json(FILE *out, const struct ci_report *report,
				const struct ci_render_options *opts);

/* The record as a timeline (docs/USAGE.md, "Timeline"), for a report made with a full model
 * (ci_request.timeline or json): a Chrome Trace Event Format document (Perfetto,
 * chrome://tracing) with a track per stream and per host thread, or a self-contained SVG picture
 * of the last moments, 1200 pixels wide.  Both are bounded for huge records. */
struct ci_error *ci_render_trace(FILE *out, const struct ci_report *report);
struct ci_error *ci_render_timeline_svg(FILE *out, const struct ci_report *report);

/* A file the user named for an output (the CLI's --trace, --timeline), written safely: opened
 * before the report is made, so that a path that cannot be written fails at once; written
 * into a new private file (mode 0600) in its directory, which takes the name when complete.
 * The name may be a regular file of the user, which is replaced; a symbolic link, directory,
 * FIFO, device or another user's file there is refused.  "-" is standard output. */
struct ci_outfile;
/* WHAT names the output in messages ("--trace FILE").  CI_ERR_IO, with the path and why. */
struct ci_error *ci_outfile_open(const char *path, const char *what, struct ci_outfile **ret);
FILE *ci_outfile_stream(struct ci_outfile *of);
/* Give the written file its name (nothing for standard output) and free OF; on an error the
 * file is discarded. */
struct ci_error *ci_outfile_commit(struct ci_outfile *of);
/* Discard what was written (nothing for standard output) and free OF; NULL is fine. */
void ci_outfile_discard(struct ci_outfile *of);

/* ---------------------------------------------------------------------------------------- */
/* The report session: one call runs the stages                                              */

/* What a report is about: a file (PATH), a live process (PID, PATH NULL), or a record in
 * memory (BUFFER: BUFFER_SIZE bytes that lived at BUFFER_BASE in the process, e.g. what GDB's
 * JIT interface hands over). */
struct ci_input {
	const char *path;
	pid_t pid;
	const void *buffer;
	size_t buffer_size;
	uint64_t buffer_base;
};

/* What the report is for. */
struct ci_request {
	struct ci_render_options render; /* the view, its filters and how it is printed */
	bool json;               /* one JSON document (always the whole report) */
	bool json_full;          /* ... with every launch, allocation and free, not bounded */
	int signal;              /* ci_diagnose_options.signal: a debugger's stop signal, 0: none */
	uint32_t signal_tid;     /* ... and its thread (must be one of the input's), 0: unknown */
	bool held;               /* a debugger holds the live process stopped (without a signal) */
	struct ci_source_options source;
	struct ci_symbolizer_options symbols;
	/* A symbolizer that cannot be made leaves the report with addresses instead of failing
	 * it (the GDB plugin: the summary matters more than its symbols). */
	bool symbols_optional;
	/* No symbolizer at all: addresses only, no host backtraces (tests, fuzzers of hostile
	 * records, which name files to open). */
	bool no_symbols;
	/* A kernel log to take the driver's Xid lines from (the CLI's --kernel-log): a path, or
	 * "-" for standard input; NULL: only the lines the record holds. */
	const char *kernel_log;
	/* A GPU core dump of the same crash to join with the record (the CLI's --gpu-core): a
	 * path; NULL: none. */
	const char *gpu_core;
	/* A timeline will be drawn (ci_render_trace, ci_render_timeline_svg): every launch is read,
	 * as for JSON, whatever the view. */
	bool timeline;
};

/* Run the stages source -> locate -> decode -> evidence -> diagnose -> symbolize on IN for REQ:
 * the decode reads what the view needs (a sparse model for the views that show the newest
 * work), the symbolizer resolves the recorded stacks the view shows and unwinds the host threads
 * it shows.  The request's strings and registers are borrowed until ci_report_destroy.
 * Errors: each stage's, and CI_ERR_USAGE for a filter or signal thread the input does not have. */
struct ci_error *ci_report_create(const struct ci_input *in, const struct ci_request *req,
				  struct ci_report **ret);
/* The stages after decode, for a model decoded by the caller (tests, fuzzers) from SRC (NULL:
 * none).  Takes MODEL over (destroyed with the report, also on error); SRC stays the caller's
 * and must outlive the report. */
struct ci_error *ci_report_from_model(struct ci_source *src, struct ci_model *model,
				      const struct ci_request *req, struct ci_report **ret);
void ci_report_destroy(struct ci_report *report);
/* For an input without a flight record (ci_report_create failed with CI_ERR_NO_RECORD): print
 * to OUT the lines of KERNEL_LOG (a path or "-") that belong to the process the input holds, by
 * its pid and thread names, each with its fault address and the rule that matched, and say that
 * there is nothing to attribute them to (docs/KERNEL-LOG.md, "How a report uses the lines"). */
struct ci_error *ci_kernel_log_report_unrecorded(FILE *out, const struct ci_input *in,
						 const struct ci_source_options *sopts,
						 const char *kernel_log);
/* The same lines as evidence, for the JSON document of an input without a record: on success
 * EV holds them (release with ci_evidence_kernel_log_clear; EV->kernel_log stays NULL when the
 * input names no process) and *PID is the input's pid. */
struct ci_error *ci_kernel_log_unrecorded(const struct ci_input *in,
					  const struct ci_source_options *sopts,
					  const char *kernel_log, struct ci_evidence *ev, uint32_t *pid);
/* CUDA GPU core dumps (docs/GPUCORE.md; the CLI's report of one: docs/CLI.md, "GPU cores").
 * Whether the regular file at PATH is one, by content: an ELF header with EM_CUDA, ELFOSABI_CUDA
 * and ET_CORE, plain or at the start of a zstd stream.  False for anything else or an unreadable
 * file (opening it as a host input then says why). */
bool ci_gpucore_file(const char *path);
enum ci_gpucore_view { CI_GPUCORE_VIEW_SUMMARY = 0, CI_GPUCORE_VIEW_WARPS };
/* Read the GPU core at PATH (plain or zstd, bounded by SO->max_core_size) and print its report
 * to OUT: VIEW as text (the fault as cuda-gdb focuses it, with the instruction and address at the
 * error PC, devices, contexts and resident grids; or every warp), or with JSON the whole model
 * as one document (docs/JSON.md, "GPU cores").  RO: width and quiet (may be NULL).  Errors:
 * CI_ERR_IO, CI_ERR_FORMAT, CI_ERR_CORRUPT as ci_gpucore_open's. */
struct ci_error *ci_gpucore_report(FILE *out, const char *path, const struct ci_source_options *so,
				   enum ci_gpucore_view view, bool json,
				   const struct ci_render_options *ro);

/* What the host side of a core shows when the process ran without the recorder (no flight
 * record): the crashing thread and signal with its backtrace, the threads inside CUDA libraries
 * and the calls they were in, glibc's abort message, the C++ exception in flight at
 * std::terminate, the CUDA libraries and driver version that were loaded, and the command to run
 * next time.  The CLI prints it before its "no flight record" message (exit code 4, docs/CLI.md);
 * the GDB plugin says the gist in its banner. */
struct ci_hostside;
/* Gather what SRC (a core: kernel or gcore) shows.  CI_ERR_USAGE for another kind of input;
 * otherwise best effort: what cannot be read is a note or a warning.  OPTS may be NULL. */
struct ci_error *ci_hostside_create(struct ci_source *src, const struct ci_symbolizer_options *opts,
				    struct ci_hostside **ret);
void ci_hostside_destroy(struct ci_hostside *h);
/* Print it: text (WIDTH columns, 0 = 80) or the JSON document (docs/JSON.md, "Without a flight
 * record"), with WHY (the reader's "no flight record" message) inside, and in JSON the
 * process's kernel-log lines of KLOG (ci_kernel_log_unrecorded; NULL: none given). */
void ci_hostside_render(FILE *out, const struct ci_hostside *h, bool json, const char *why,
			unsigned width, const struct ci_evidence *klog);
/* One line for the GDB plugin's banner: signal, CUDA call, driver, abort message, next command. */
void ci_hostside_gist(const struct ci_hostside *h, char *buf, size_t n);
/* The command to run the program with next time (`cudainspect record -- ...`, shell-quoted; the
 * command line is the core's, so scrub it before printing), or NULL when the core does not
 * say. */
const char *ci_hostside_next_command(const struct ci_hostside *h);

/* Print the report as its request says: text or JSON on OUT. */
struct ci_error *ci_report_print(FILE *out, const struct ci_report *report);

/* What the report holds, owned by it. */
const struct ci_model *ci_report_model(const struct ci_report *report);
const struct ci_diagnosis *ci_report_diagnosis(const struct ci_report *report);
const struct ci_evidence *ci_report_evidence(const struct ci_report *report);
/* The crash signature: "ci1-" and 12 hex digits, the same for the same bug across processes,
 * hosts and builds (docs/USAGE.md, "The crash signature"); and the four words it hashes
 * (error, faulting kernel, launch site, relation of the bad address), space-separated. */
const char *ci_report_fingerprint(const struct ci_report *report);
const char *ci_report_fingerprint_basis(const struct ci_report *report);

/* ---------------------------------------------------------------------------------------- */
/* Merge: the records of a whole job (corefile/merge/, docs/CLI.md "merge")                   */

/* A merge of the inputs of one job (one per rank: cores, snapshots, persistent record files,
 * or JSON documents of `cudainspect --json`, schema 5 and later) into one report: each rank's
 * state, the first failure by the communicators' collective numbers, who waits for whom, and
 * mismatched collectives.  A bad input never fails the merge: it is named in the report. */
struct ci_merge;
/* REQ: how cores and record files are read (its source and symbol options; the merge makes the
 * summary's report of each); NULL: default source options, no symbols. */
struct ci_error *ci_merge_create(const struct ci_request *req, struct ci_merge **ret);
/* Add PATH: a file, or a directory whose files (and subdirectories, 4 levels deep) are taken
 * when their names look like inputs (core*, *.core, *.cisnap, *.cirec, *.json).  Fails only
 * when out of memory; an input that cannot be read is kept as a note. */
struct ci_error *ci_merge_add(struct ci_merge *merge, const char *path);
/* Add a JSON document held in memory (fuzzers, tests), named NAME in the report. */
struct ci_error *ci_merge_add_json(struct ci_merge *merge, const char *name, const char *buf,
				   size_t len);
/* Print the merged report: text WIDTH columns wide (0: 100), or the JSON document (docs/JSON.md,
 * "The merge document", CI_MERGE_SCHEMA_VERSION). */
#define CI_MERGE_SCHEMA_VERSION 1
struct ci_error *ci_merge_render(FILE *out, struct ci_merge *merge, bool json, unsigned width);
/* How many inputs were added, and how many of them could be used. */
size_t ci_merge_input_count(const struct ci_merge *merge);
size_t ci_merge_usable_count(const struct ci_merge *merge);
void ci_merge_destroy(struct ci_merge *merge);

#ifdef __cplusplus
}
#endif

#endif /* CUDAINSPECT_H */
