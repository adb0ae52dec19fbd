/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: the report session and what renders it (corefile/report/).  The
 * session (report.c) runs the stages for a request and holds every stage's result in struct
 * ci_report; the view table (views.c) says what each view needs of them; the renderers
 * (render_text.c, render_json.c) and the crash signature (fingerprint.c) read the report and
 * nothing else.  A core without a record gets the host-side report (hostside.c,
 * hostside_render.c), whose functions are public (cudainspect.h) and whose state is here.
 */
#ifndef CI_SESSION_H
#define CI_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"
#include "diagnose/diagnose.h"
#include "evidence/evidence.h"
#include "symbolize/symbolize.h"

/* ---------------------------------------------------------------------------------------- */
/* The report (report.c) as the renderers read it                                             */

struct ci_report {
	struct ci_request request;
	struct ci_source *src;            /* owned by the report unless from_model */
	bool owns_src;
	const struct ci_source_info *source;  /* NULL for a model without a source */
	struct ci_model *model;
	struct ci_evidence *evidence;
	struct ci_diagnosis *diagnosis;
	struct ci_symbolizer *symbolizer;     /* NULL: addresses only */
	struct ci_thread_stack *threads; size_t thread_count;
	/* Recorded stack id N (1-based) resolved: its frame I is pcs[N - 1][I]; pcs[N - 1] NULL
	 * for a stack the view does not show. */
	struct ci_resolved_pc **pcs;
	const struct ci_warnings *warnings[3]; size_t warning_lists;
	/* A lazy model's kernels view: how many launches of the whole ring match the request's
	 * filters (the session counts them; the renderer shows only the newest, loaded). */
	size_t launches_matched;
	size_t launches_from;     /* the oldest launch the walk looked at: those it loaded from */
	bool launches_counted;
	/* A bounded JSON report: the launches, allocations and frees it shows (json_bound.c);
	 * NULL for text and --json=full. */
	struct ci_json_bound *json_bound;
	/* The crash signature (corefile/fingerprint.c) and the four words it hashes. */
	char fingerprint[24];
	char fingerprint_basis[720];
};
/* What a bounded JSON document shows (docs/JSON.md, "Bounded and full"; json_bound.c): one
 * byte per launch, live allocation and free, 1 for shown; what it leaves out, counted. */
enum { SHOWN_LAUNCHES, SHOWN_ALLOCS, SHOWN_FREES, SHOWN_KINDS };
struct ci_json_bound {
	uint8_t *shown[SHOWN_KINDS];
	size_t count[SHOWN_KINDS], omitted[SHOWN_KINDS];
};
/* Choose what R's bounded document shows and load it from R's (lazy) model; NULL on
 * out-of-memory. */
struct ci_json_bound *ci_json_bound_make(struct ci_report *r);
void ci_json_bound_destroy(struct ci_json_bound *b);

/* Fill R's signature from its diagnosis and resolved stacks (the last step of the session). */
void ci_report_fingerprint_make(struct ci_report *r);

/* The resolution of frame I of recorded stack ID, or NULL when it was not resolved. */
static inline const struct ci_resolved_pc *ci_report_pc(const struct ci_report *r, uint32_t id,
							 size_t i)
{
	if (!r->pcs || id == 0 || id > r->model->stack_count || !r->pcs[id - 1])
		return NULL;
	const struct ci_resolved_pc *rp = &r->pcs[id - 1][i];
	return rp->count || rp->python_word ? rp : NULL;
}

/* Launch I and live allocation I of the report's model as the session loaded them (a lazy
 * model's entries are loaded for the launches the diagnosis names), else a placeholder (all
 * zeros, no function, no stream): renderers never decode (render_common.c). */
const struct ci_launch *ci_report_launch(const struct ci_report *r, size_t i);
const struct ci_alloc *ci_report_alloc(const struct ci_report *r, size_t i);

/* ---------------------------------------------------------------------------------------- */
/* The view table (views.c)                                                                   */

/* What a view needs from the stages before rendering (the report session reads these). */
enum {
	CI_NEEDS_FULL_MODEL = 1u << 0,    /* every launch and allocation (no sparse decode) */
	CI_NEEDS_ONE_THREAD = 1u << 1,    /* the host stack of the thread the summary shows */
	CI_NEEDS_THREADS = 1u << 2,       /* the host stacks of every thread */
	/* Recorded stacks it shows: */
	CI_NEEDS_DIAGNOSIS_STACKS = 1u << 3, /* of the launches the diagnosis names and of the
					      * allocations it attributes pointers to */
	CI_NEEDS_LAUNCH_STACKS = 1u << 4,
	CI_NEEDS_ALLOC_STACKS = 1u << 5,
	CI_NEEDS_FREE_STACKS = 1u << 6,
	CI_NEEDS_ERROR_STACKS = 1u << 7,
	CI_NEEDS_CONTEXT_STACKS = 1u << 8,
	CI_NEEDS_EVERYTHING = ((1u << 9) - 1) & ~CI_NEEDS_ONE_THREAD,
	/* A lazy model without the sparse decode: every launch and allocation counted and
	 * ordered by their briefs, only the entries the view shows copied (the newest launches
	 * that match the filters walking back from the ring's head, the first allocations). */
	CI_NEEDS_EVERY_BRIEF = 1u << 9,
	/* The sparse decode, reading also the newest launches that match the view's filters (the
	 * kernels view): the ring walked back from its head only as far as those need. */
	CI_NEEDS_NEWEST_LAUNCHES = 1u << 10,
	/* The sparse decode for the launches, every live allocation keyed (the allocs view). */
	CI_NEEDS_EVERY_ALLOC = 1u << 11,
	/* The sparse decode, reading also each stream's newest CI_JSON_LAUNCHES_PER_STREAM and
	 * judging and counting every other entry of the ring without keeping it (bounded JSON). */
	CI_NEEDS_STREAM_NEWEST = 1u << 12,
};

/* Launches the kernels view shows when no N is given. */
#define CI_KERNELS_DEFAULT 20

/* Launch L matches the stream, thread and kernel filters of OPT (render_common.c). */
/* The kernels view's filters as a model filter for the newest NEWEST launches. */
struct ci_launch_filter ci_render_launch_filter(const struct ci_render_options *opt, size_t newest);
bool ci_launch_matches(const struct ci_model *m, const struct ci_render_options *opt,
		       const struct ci_launch *l);

/* The text renderer's state (render_text.c). */
struct ci_text_out;
typedef void ci_text_view_fn(struct ci_text_out *o);

struct ci_view_row {
	struct ci_view_info info;
	unsigned needs;           /* CI_NEEDS_* */
	ci_text_view_fn *text;
};

const struct ci_view_row *ci_view_row(enum ci_view view);
/* What JSON needs: everything.  --json=full from a lazy model, which keys every launch and
 * allocation and reads each into a scratch copy as it is written, never keeping them
 * (render_json.c); a bounded document from a sparse model holding each stream's newest launches
 * besides what the diagnosis weighs, every live allocation keyed, and loads those it shows
 * (json_bound.c). */
#define CI_JSON_NEEDS ((CI_NEEDS_EVERYTHING & ~CI_NEEDS_FULL_MODEL) | CI_NEEDS_EVERY_BRIEF)
#define CI_JSON_BOUNDED_NEEDS \
	((CI_NEEDS_EVERYTHING & ~CI_NEEDS_FULL_MODEL) | CI_NEEDS_EVERY_ALLOC | CI_NEEDS_STREAM_NEWEST)

/* Render REPORT as text in VIEW, as OPTS (NULL: the request's) say (render_text.c; the public
 * ci_render_text finds the view's function in the view table, print.c). */
struct ci_error *ci_text_print(FILE *f, const struct ci_report *report,
			       const struct ci_render_options *opts, ci_text_view_fn *view);
/* The text views (render_text.c). */
ci_text_view_fn ci_text_summary, ci_text_fault, ci_text_contexts, ci_text_streams,
	ci_text_kernels, ci_text_graphs, ci_text_allocs, ci_text_errors, ci_text_threads, ci_text_all,
	ci_text_nccl;





/* NAME without its parameter list ("decode::matvec(float const*, int)" -> "decode::matvec"),
 * for tables; a return type and template arguments are kept.  A name longer than BUF (N bytes)
 * ends with "…".  Returns BUF. */
char *ci_kernel_short_name(const char *name, char *buf, size_t n);

/* NAME (demangled) as one short line, for the summary (docs/USAGE.md, "The replay in the
 * summary"): without a return type and parameters, every template argument list "<…>", the
 * parameters of a function scope "(…)", "(anonymous namespace)::" left out; then, while wider
 * than WIDTH columns (0: no limit), without its leading qualifiers one at a time; then cut to
 * WIDTH with "…" at the end.  Malformed names (unbalanced brackets) are read to their end, never past it.
 * Returns BUF (N bytes; a brief name longer than that ends with "…"). */
char *ci_kernel_brief_name(const char *name, size_t width, char *buf, size_t n);

/* Drop the leading qualifier of the brief name BRIEF in place ("cutlass::Kernel2<…>" ->
 * "Kernel2<…>"): false when it has none. */
bool ci_kernel_brief_unqualify(char *brief);



/* ---------------------------------------------------------------------------------------- */
/* The JSON writer (json_writer.c): the JSON report and the Chrome trace write through it     */

#define CI_JSON_DEPTH_MAX 32
#define CI_JSON_BUF 65536
struct ci_json {
	FILE *f;
	char buf[CI_JSON_BUF];
	size_t n;
	int depth;
	bool first[CI_JSON_DEPTH_MAX]; /* nothing written yet at this level */
	bool array[CI_JSON_DEPTH_MAX];
};
/* Start the document on F with its top-level object open. */
void ci_json_begin(struct ci_json *w, FILE *f);
/* Close the top-level object, end the line, flush: an error naming WHAT if F failed. */
struct ci_error *ci_json_end(struct ci_json *w, const char *what);
/* KEY (NULL: an array element) opening an object or an array; ci_json_close ends it. */
void ci_json_open(struct ci_json *w, const char *key, bool array);
void ci_json_close(struct ci_json *w);
/* KEY and a value: a string (escaped: control characters as \u00XX, invalid UTF-8, C1 and
 * bidirectional controls as U+FFFD; NULL is null), numbers, V / 1000 with three decimals
 * (nanoseconds as microseconds, exactly), a boolean, null, a hex string, and an address (the
 * number and KEY_hex). */
void ci_json_str(struct ci_json *w, const char *key, const char *s);
void ci_json_u64(struct ci_json *w, const char *key, uint64_t v);
void ci_json_i64(struct ci_json *w, const char *key, int64_t v);
void ci_json_thousandths(struct ci_json *w, const char *key, uint64_t v);
void ci_json_bool(struct ci_json *w, const char *key, bool v);
void ci_json_null(struct ci_json *w, const char *key);
void ci_json_hex(struct ci_json *w, const char *key, uint64_t v);
void ci_json_addr(struct ci_json *w, const char *key, uint64_t v);

/* render_gpucore.c, for the join's renderers too: the GPU core's fault as a JSON object under
 * KEY, and the access at its error PC in words ("write of 4 bytes at 0x… (STG.E …)" or why no
 * address is known). */
struct ci_gpucore;
struct ci_gpu_access;
void ci_gpucore_json_fault(struct ci_json *j, const char *key, struct ci_gpucore *gc);
/* A GPU core read already (GC) as ci_gpucore_report prints it: VIEW as text, or JSON. */
struct ci_error *ci_gpucore_render(FILE *out, struct ci_gpucore *gc, enum ci_gpucore_view view, bool json,
				   const struct ci_render_options *ro);
const char *ci_gpucore_fault_access_text(const struct ci_gpu_access *a, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* The timeline (timeline.c): what the Chrome trace (render_trace.c) and the SVG picture      */
/* (render_svg.c) draw, on the record's clock                                                 */

/* Bounds (docs/USAGE.md, "Timeline"): the newest launches per stream and in all, the newest
 * allocations, frees, synchronizations and copies, errors, kernel-log lines, graph replays
 * expanded into their kernel nodes and nodes per replay.  What is left out is counted. */
#define CI_TL_LAUNCHES_PER_STREAM 1000
#define CI_TL_LAUNCHES_MAX 20000
#define CI_TL_ALLOCS_MAX 1000
#define CI_TL_FREES_MAX 1000
#define CI_TL_CALLS_MAX 2000
#define CI_TL_ERRORS_MAX 1000
#define CI_TL_XIDS_MAX 256
#define CI_TL_REPLAYS_MAX 64
#define CI_TL_NODES_PER_REPLAY 256

enum ci_tl_kind {
	CI_TL_LAUNCH = 1,  /* on its stream's lane, from its call */
	CI_TL_NODE,        /* a kernel node of a graph launch (parent), inside its box */
	CI_TL_SYNC,        /* a synchronization call on its thread, as long as it took */
	CI_TL_COPY,        /* a copy or set (instant) */
	CI_TL_ALLOC,       /* an allocation (instant) */
	CI_TL_FREE,        /* a free (instant) */
	CI_TL_ERROR,       /* a failed CUDA call (instant) */
	CI_TL_CALL,        /* the faulting launch's call on its thread (instant) */
	CI_TL_XID,         /* a kernel-log line of the process (instant, its own lane) */
};

/* How a launch's end was chosen (ci_tl_item.end_why). */
enum ci_tl_end {
	CI_TL_END_NEXT = 1,  /* the next launch on its stream was made */
	CI_TL_END_SYNC,      /* a synchronization that covers it returned */
	CI_TL_END_RECORD,    /* nothing later bounds it: the end of the record (its breadcrumb was
			      * read then; or the last launch of a stream, queued) */
	CI_TL_END_CRASH,     /* it may still have been running: drawn to the end of the record */
	CI_TL_END_INSTANT,
};

struct ci_tl_item {
	enum ci_tl_kind kind;
	enum ci_launch_state state;  /* launches and nodes */
	enum ci_tl_end end_why;
	bool faulting;               /* the faulting launch, node or copy */
	bool first_sticky;           /* the first sticky error */
	uint32_t lane;               /* index into lanes */
	uint64_t start, end;         /* record clock (ns); end == start for an instant */
	uint64_t own_end;            /* launches: the end of its part of the lane (the next launch's
				      * call, or its end), within which its nodes are drawn */
	size_t index;                /* model->launches, events, errors, allocs or frees,
				      * replay node, kernel-log item */
	bool freed;                  /* CI_TL_ALLOC: index is into model->frees */
	size_t parent;               /* CI_TL_NODE: the item of its graph launch; its replay */
	const struct ci_graph_replay *replay;
};

enum ci_tl_lane_kind { CI_TL_LANE_STREAM = 1, CI_TL_LANE_THREAD, CI_TL_LANE_KERNEL_LOG };
struct ci_tl_lane {
	enum ci_tl_lane_kind kind;
	uint32_t stream;             /* model stream slot, CI_NONE: launches without a stream */
	uint32_t tid;
	size_t launches;             /* launches drawn */
	size_t left_out;             /* older launches left out by the bounds */
};

struct ci_timeline {
	uint64_t t0;                 /* the record's start (or its first event when earlier) */
	uint64_t t_end;              /* the crash (the record's end), or its last event */
	bool crash_known;            /* t_end is the time of the fatal signal or exit */
	uint64_t first_error_ns;     /* the first sticky error (else the first error), 0: none */
	struct ci_tl_lane *lanes; size_t lane_count;
	struct ci_tl_item *items; size_t count, cap;
	size_t launches_left_out, allocs_left_out, frees_left_out, calls_left_out,
		errors_left_out, xids_left_out, xids_without_time, replays_not_expanded,
		nodes_left_out;
	struct ci_graph_replay *replays; size_t replay_count; /* expanded here (owned) */
};

/* Build the timeline of REPORT (made with a full model: ci_request.timeline or json).  NULL
 * when out of memory. */
struct ci_timeline *ci_timeline_create(const struct ci_report *report);
void ci_timeline_destroy(struct ci_timeline *tl);
/* A launch item's display name ("paged_attention", "<graph 0x…>"), scrubbed, in BUF. */
char *ci_tl_launch_name(const struct ci_report *r, const struct ci_tl_item *it, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* A core without a record: what its host side shows (hostside.c, hostside_render.c)          */

/* A CUDA library mapped into the process (by file name). */
struct ci_cuda_lib {
	char *path;              /* as the core's file mappings name it */
	const char *family;      /* "CUDA driver", "CUDA runtime", "cuBLAS", "NCCL"... */
	char version[48];        /* from the file name ("580.65.06", "12.4.127"), "" if none */
};

/* A thread stopped inside a CUDA library. */
struct ci_cuda_thread {
	size_t stack;            /* index into threads[] */
	size_t entry;            /* its outermost frame inside a CUDA library: the call made */
	size_t caller;           /* the frame that made it (SIZE_MAX: none) */
	bool own;                /* a thread the library started itself (no caller of the program) */
	const struct ci_cuda_lib *lib;
};

struct ci_hostside {
	const char *input;       /* borrowed from the source info */
	uint32_t pid;
	int32_t signal, si_code;
	uint64_t fault_addr;
	char *executable, *psargs;
	bool psargs_cut;         /* 79+ bytes: the kernel keeps at most 80 of the command line */
	struct ci_thread_stack *threads; /* crashed thread first */
	size_t thread_count;
	struct ci_cuda_lib *libs;
	size_t lib_count;
	const char *driver_version; /* libcuda's, or NULL */
	struct ci_cuda_thread *cuda_threads;
	size_t cuda_thread_count;
	char *abort_message;     /* glibc's __abort_msg (assert, malloc checks...), or NULL */
	char *abort_note;        /* why it could not be read, or NULL */
	bool terminate;          /* std::terminate is on the crashed thread's stack */
	char *exception_type;    /* the in-flight C++ exception's type (demangled), or NULL */
	char *exception_what;    /* its what() for std::exception types that keep a string */
	char *exception_note;    /* why it could not be read, or NULL */
	bool no_exception;       /* std::terminate with no exception in flight (read: none) */
	char *next_command;      /* `cudainspect record -- ...`, shell-quoted */
	struct ci_warnings warnings;
};

/* ---------------------------------------------------------------------------------------- */
/* A process's job facts (job_facts.c, job_words.c): who it is, its NCCL communicators and
 * collectives with their states, and the memory it shared with its peers, as the JSON
 * document's "job" part, the nccl view and the summary's NCCL lines show them, and as the merge
 * stage (corefile/merge/) reads them from every rank's input.                                */

struct ci_json;


/* Where a collective stands, from its stream's breadcrumb (docs/FORMAT.md, "NCCL"). */
#define CI_JOB_CALL_STATES(X)                                                                \
	X(CI_JOB_CALL_UNKNOWN, 0, "unknown")                                                \
	X(CI_JOB_CALL_NOT_STARTED, 1, "not_started")                                        \
	X(CI_JOB_CALL_IN_FLIGHT, 2, "in_flight")                                            \
	X(CI_JOB_CALL_FINISHED, 3, "finished")                                              \
	X(CI_JOB_CALL_FAILED, 4, "failed") /* the call returned an error: never enqueued */
#define CI_JOB_ENUM_ENTRY(name, value, word) name = value,
enum ci_job_call_state { CI_JOB_CALL_STATES(CI_JOB_ENUM_ENTRY) };
const char *ci_job_call_state_name(unsigned s);
bool ci_job_call_state_parse(const char *word, unsigned *ret);

/* One collective (or a refused call) of a communicator, times on CLOCK_REALTIME. */
struct ci_job_call {
	uint64_t comm_id;
	uint64_t op_seq;          /* 0 for a refused call */
	uint64_t count;
	uint64_t time_ns;
	uint32_t op;              /* enum ci_nccl_op */
	int32_t datatype, redop, peer, result;
	unsigned state;           /* enum ci_job_call_state */
	bool timeout;             /* flagged by the recorder's hang watchdog */
	bool late;                /* flagged, then finished: a delay, not the hang (format 1.6) */
};

struct ci_job_comm {
	uint64_t comm_id;
	uint64_t parent_id;
	uint64_t colls;           /* collectives issued */
	uint64_t end_ns;          /* destroy, finalize or abort (realtime), 0 while live */
	int32_t rank, nranks, device, async_error, result;
	uint32_t state;           /* enum ci_nccl_comm_state */
};

struct ci_job_peer {
	uint64_t key, address, size, time_ns;
	uint32_t kind;            /* enum ci_peer_kind */
	int32_t device;
};

struct ci_job_env {
	char *name, *value;
};

/* What one input says about its process, everything the merge reads. */
struct ci_job_facts {
	char host[CI_NAME_MAX];
	char boot_id[33];         /* hex, "" unknown */
	uint32_t pid;
	uint64_t start_ns;        /* the record's start, realtime */
	uint64_t end_ns;          /* the newest thing the input knows of (exit, signal, the newest
				     entry), realtime */
	char reason[16];          /* snapshot reason word, "" when not a snapshot */
	char kind[16];            /* the source kind ("core", "snapshot", "file", ...) */
	unsigned verdict;         /* enum ci_verdict */
	int32_t signal;
	char *headline;           /* the diagnosis in one line (scrubbed by the renderer) */
	char fingerprint[24];
	uint64_t failure_ns;      /* the first sticky error (or failed call), realtime, 0 none */
	uint64_t fault_address;   /* the address the diagnosis blames (argument or Xid page), 0 */
	uint64_t missing;         /* record entries the input lacks (truncated, not captured) */
	struct ci_job_env *vars; size_t var_count;
	struct ci_job_comm *comms; size_t comm_count;
	struct ci_job_call *calls; size_t call_count; /* by comm, then op_seq */
	struct ci_job_peer *peers; size_t peer_count;
};

void ci_job_facts_deinit(struct ci_job_facts *f);
/* The facts of REPORT (made for JSON: a full model). */
struct ci_error *ci_job_facts_from_report(const struct ci_report *report,
					  struct ci_job_facts *ret);
/* Write F as the "job" object of a JSON document (docs/JSON.md, "job"). */
void ci_job_facts_write(struct ci_json *w, const char *key, const struct ci_job_facts *f);
/* The record's words for NCCL ops, communicator states and peer-memory kinds (record.h's
 * lists) and back (0: not one). */
const char *ci_job_op_word(uint32_t op);
const char *ci_job_comm_state_word(uint32_t state);
const char *ci_job_peer_kind_word(uint32_t kind);
uint32_t ci_job_op_value(const char *word);
/* The API function of an op ("ncclAllReduce"), "an NCCL call" for an unknown one. */
const char *ci_job_op_api(uint32_t op);
uint32_t ci_job_comm_state_value(const char *word);
uint32_t ci_job_peer_kind_value(const char *word);
/* Sort calls by communicator and number (after filling them). */
void ci_job_facts_sort(struct ci_job_facts *f);

#endif /* CI_SESSION_H */
