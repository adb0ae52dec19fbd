/* SPDX-License-Identifier: MIT */
/*
 * Whether two diagnoses of the same input say the same, field by field: a sparse decode
 * (ci_decode_options.sparse) must diagnose exactly what a complete decode diagnoses.  Launches
 * are compared by ring seq (their indices differ between the two models), attributions with
 * their allocations.  Used by sparse_test.c (TAP, on real cores) and fuzz_report.c (aborts on any
 * difference).
 */
#ifndef CI_TEST_COMPARE_H
#define CI_TEST_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cudainspect/cudainspect.h"

/* The ring seq of launch I of M, 0 for none (every launch a diagnosis names is loaded). */
static unsigned long long cmp_seq_of(const struct ci_model *m, ptrdiff_t i)
{
	return i < 0 ? 0 : (unsigned long long)ci_model_launch(m, (size_t)i)->seq;
}

/* Compare diagnosis B of model MB with diagnosis A of model MA; the first difference is written
 * into WHY (size N) and false returned. */
static bool cmp_diagnoses(const struct ci_model *ma, const struct ci_diagnosis *a,
			  const struct ci_model *mb, const struct ci_diagnosis *b, char *why,
			  size_t n)
{
#define DIFF(cond, ...)                                                                      \
	do {                                                                                 \
		if (cond) {                                                                  \
			snprintf(why, n, __VA_ARGS__);                                       \
			return false;                                                        \
		}                                                                            \
	} while (0)
	DIFF(a->verdict != b->verdict, "verdict %s, %s", ci_verdict_name(a->verdict),
	     ci_verdict_name(b->verdict));
	DIFF(cmp_seq_of(ma, a->faulting_launch) != cmp_seq_of(mb, b->faulting_launch),
	     "faulting launch seq %llu, %llu", cmp_seq_of(ma, a->faulting_launch),
	     cmp_seq_of(mb, b->faulting_launch));
	DIFF(a->confidence != b->confidence, "confidence %s, %s", ci_confidence_name(a->confidence),
	     ci_confidence_name(b->confidence));
	DIFF(strcmp(a->reasoning, b->reasoning) != 0, "reasoning '%s', '%s'", a->reasoning,
	     b->reasoning);
	DIFF(cmp_seq_of(ma, a->failed_launch) != cmp_seq_of(mb, b->failed_launch),
	     "failed launch seq %llu, %llu", cmp_seq_of(ma, a->failed_launch),
	     cmp_seq_of(mb, b->failed_launch));
	DIFF(a->first_sticky_error != b->first_sticky_error || a->last_error != b->last_error ||
		     a->first_error != b->first_error,
	     "error timeline");
	DIFF(a->error_tid != b->error_tid, "error thread %u, %u", a->error_tid, b->error_tid);
	DIFF(a->signal != b->signal || a->signal_tid != b->signal_tid, "signal");
	/* The kernel-log evidence (events are a small ring, read whole by both decodes). */
	DIFF(a->xid != b->xid || a->faulting_copy != b->faulting_copy ||
		     a->xid_page.relation != b->xid_page.relation ||
		     a->xid_page.offset != b->xid_page.offset || !a->xid_page.alloc != !b->xid_page.alloc ||
		     (a->xid_page.alloc && a->xid_page.alloc->id != b->xid_page.alloc->id),
	     "kernel-log evidence");
	DIFF(a->evidence_count != b->evidence_count, "%zu, %zu evidence items", a->evidence_count,
	     b->evidence_count);
	for (size_t i = 0; i < a->evidence_count; i++)
		DIFF(a->evidence[i].kind != b->evidence[i].kind ||
			     strcmp(a->evidence[i].text, b->evidence[i].text) != 0 ||
			     cmp_seq_of(ma, a->evidence[i].launch) != cmp_seq_of(mb, b->evidence[i].launch),
		     "evidence item %zu: '%s', '%s'", i, a->evidence[i].text, b->evidence[i].text);
	DIFF(a->stream_count != b->stream_count, "%zu, %zu streams", a->stream_count, b->stream_count);
	for (size_t i = 0; i < a->stream_count; i++) {
		const struct ci_stream_progress *x = &a->streams[i], *y = &b->streams[i];
		DIFF(x->stream != y->stream || x->crumb != y->crumb || x->launched != y->launched ||
			     x->finished != y->finished || x->in_flight != y->in_flight ||
			     x->not_started != y->not_started || x->unknown != y->unknown ||
			     x->synced_ns != y->synced_ns ||
			     cmp_seq_of(ma, x->oldest_unfinished) != cmp_seq_of(mb, y->oldest_unfinished),
		     "progress of stream slot %u", x->stream);
	}
	DIFF(a->attribution_count != b->attribution_count, "%zu, %zu attributions",
	     a->attribution_count, b->attribution_count);
	for (size_t i = 0; i < a->attribution_count; i++) {
		const struct ci_attribution *x = &a->attributions[i], *y = &b->attributions[i];
		DIFF(cmp_seq_of(ma, (ptrdiff_t)x->launch) != cmp_seq_of(mb, (ptrdiff_t)y->launch) ||
			     x->arg != y->arg || x->address != y->address ||
			     x->relation != y->relation || x->offset != y->offset || !x->alloc != !y->alloc ||
			     (x->alloc && (x->alloc->id != y->alloc->id || x->alloc->size != y->alloc->size ||
					   x->alloc->stack != y->alloc->stack)) ||
			     x->history != y->history || x->history_launches != y->history_launches ||
			     x->history_inside != y->history_inside ||
			     !x->history_alloc != !y->history_alloc ||
			     (x->history_alloc && x->history_alloc->id != y->history_alloc->id) ||
			     x->neighbour_relation != y->neighbour_relation ||
			     x->neighbour_offset != y->neighbour_offset || !x->neighbour != !y->neighbour ||
			     (x->neighbour && x->neighbour->id != y->neighbour->id),
		     "attribution %zu", i);
	}
	DIFF(!a->graph != !b->graph, "a graph replay in one diagnosis only");
	if (a->graph) {
		const struct ci_graph_replay *x = a->graph, *y = b->graph;
		DIFF(x->exec != y->exec || x->graph != y->graph || x->replay != y->replay ||
			     x->faulting_node != y->faulting_node || x->crumb != y->crumb ||
			     x->crumb_value != y->crumb_value || x->node_count != y->node_count ||
			     x->graph_nodes != y->graph_nodes || x->children_cut != y->children_cut ||
			     x->kernel_count != y->kernel_count,
		     "graph replay");
		for (size_t i = 0; i < x->node_count; i++)
			DIFF(x->nodes[i].state != y->nodes[i].state || !x->nodes[i].node != !y->nodes[i].node ||
				     (x->nodes[i].node && x->nodes[i].node->seq != y->nodes[i].node->seq),
			     "graph node %zu", i);
		DIFF(x->faulting_node >= 0 && memcmp(&x->kernel, &y->kernel, sizeof x->kernel) != 0,
		     "the faulting kernel node");
	}
#undef DIFF
	return true;
}

#endif /* CI_TEST_COMPARE_H */
