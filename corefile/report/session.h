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
	/* The crash signature (corefile/fingerprint.c) and the four words it hashes. */
	char fingerprint[24];
	char fingerprint_basis[720];
};
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
};

/* The text renderer's state (render_text.c). */
struct ci_text_out;
typedef void ci_text_view_fn(struct ci_text_out *o);

struct ci_view_row {
	struct ci_view_info info;
	unsigned needs;           /* CI_NEEDS_* */
	ci_text_view_fn *text;
};

const struct ci_view_row *ci_view_row(enum ci_view view);
/* What JSON needs: everything. */
#define CI_JSON_NEEDS CI_NEEDS_EVERYTHING

/* Render REPORT as text in VIEW, as OPTS (NULL: the request's) say (render_text.c; the public
 * ci_render_text finds the view's function in the view table, print.c). */
struct ci_error *ci_text_print(FILE *f, const struct ci_report *report,
			       const struct ci_render_options *opts, ci_text_view_fn *view);
/* The text views (render_text.c). */
ci_text_view_fn ci_text_summary, ci_text_fault, ci_text_contexts, ci_text_streams,
	ci_text_kernels, ci_text_graphs, ci_text_allocs, ci_text_errors, ci_text_threads, ci_text_all;





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

#endif /* CI_SESSION_H */
