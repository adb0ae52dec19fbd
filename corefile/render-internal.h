/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the reader's output side (diagnose.c, symbolize.c, render_text.c,
 * render_json.c): cached symbolization of recorded stacks, demangling, kernel and stream labels,
 * number formatting and the scrubbing of strings that come from untrusted records.
 */
#ifndef CUDAINSPECT_RENDER_INTERNAL_H
#define CUDAINSPECT_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"
#include "model-internal.h"
#include "reader-internal.h"

/* Frames for ADDRESS from the symbolizer's cache (computed on first use).  The frames belong to
 * the symbolizer; NULL with *n = 0 when SYM is NULL or on out-of-memory.  The symbolize stage of
 * the report session only: renderers read what it resolved (struct ci_report). */
const struct ci_frame *ci_symbolize_cached(struct ci_symbolizer *sym, uint64_t address,
					   bool is_return, size_t *n);

/* ---------------------------------------------------------------------------------------- */
/* The report (corefile/report.c) as the renderers read it                                    */

/* A recorded return address and the frames it resolved to (several when inlined), owned by the
 * report's symbolizer; COUNT 0: not resolved (no symbolizer, or out of memory). */
struct ci_resolved_pc {
	const struct ci_frame *frames;
	size_t count;
	/* A Python frame word (CI_PYFRAME_TAG) resolves to no frames of its own; its frame goes
	 * to the native frame that ran it (corefile/python_core.c): FRAMES then points to OWNED,
	 * whose first OWNED_PYTHON frames are Python frames owned here, the rest copies of the
	 * symbolizer's (their strings are the symbolizer's). */
	struct ci_frame *owned;
	size_t owned_python;
	bool python_word;     /* a Python frame word: no frames of its own, shown where it went */
};
/* Resolve the Python words of recorded stack PCS[0..N) into V (whose native frames are
 * resolved) from the model's code table: merged at the native eval frames, or all before the
 * first frame when the counts disagree.  -1 on out-of-memory. */
int ci_py_resolve_recorded(const struct ci_model *m, const uint64_t *pcs, size_t n,
			   struct ci_resolved_pc *v);
void ci_resolved_pcs_free(struct ci_resolved_pc *v, size_t n);

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
 * model's entries are loaded for the launches the diagnosis names), else a placeholder
 * (all zeros, no function, no stream): renderers never decode. */
const struct ci_launch *ci_report_launch(const struct ci_report *r, size_t i);
const struct ci_alloc *ci_report_alloc(const struct ci_report *r, size_t i);

/* ---------------------------------------------------------------------------------------- */
/* The view table (corefile/views.c)                                                          */

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

/* The text renderer's state (corefile/render_text.c). */
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

/* The text views (render_text.c). */
ci_text_view_fn ci_text_summary, ci_text_fault, ci_text_contexts, ci_text_streams,
	ci_text_kernels, ci_text_graphs, ci_text_allocs, ci_text_errors, ci_text_threads, ci_text_all;


/* Demangled C++ name (malloc'd) or NULL when NAME is not mangled or no demangler is available
 * (libstdc++'s __cxa_demangle, loaded on first use). */
char *ci_demangle(const char *name);



/* The kernel name of launch L, demangled and scrubbed, or "<unknown function 0x…>". */
char *ci_launch_kernel_name(const struct ci_model *model, const struct ci_launch *l, char *buf,
			    size_t n);
/* NAME without its parameter list ("decode::matvec(float const*, int)" -> "decode::matvec"),
 * for tables; template arguments are kept. */
char *ci_kernel_short_name(const char *name, char *buf, size_t n);
/* "stream 0x55d0c0a0", "legacy stream", "per-thread stream of 4242", "stream ?" */
char *ci_stream_label(const struct ci_model *model, uint32_t slot, char *buf, size_t n);
/* Thread name from the record's thread table, scrubbed, or "" */
char *ci_thread_name(const struct ci_model *model, uint32_t tid, char *buf, size_t n);

/* Signal name ("SIGSEGV") or "signal N". */
const char *ci_signal_name(int sig, char *buf, size_t n);

/* The latest monotonic time the record knows: the fatal/exit time, else the newest entry. */
uint64_t ci_model_end_ns(const struct ci_model *model);

#endif /* CUDAINSPECT_RENDER_INTERNAL_H */
