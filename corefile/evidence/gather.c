/* SPDX-License-Identifier: MIT */
/*
 * Stage 4, evidence: the facts a diagnosis reasons from, gathered once, each with a rule that
 * says where it comes from.  What the record says of its own progress (per stream the breadcrumb
 * and the last synchronization that covered it; the first sticky error, the last error and the
 * failed-launch window) is read by the model (corefile/model/facts.c), which the sparse decode
 * needs before the launches are read; the kernel-log lines are gathered in evidence_klog.c; the
 * argument history is read from the launches by the diagnosis (its window, the newest
 * CI_HISTORY_RING ring entries, is one the sparse decode always reads).  GPU core dumps would
 * belong here too.
 */
#include <stdlib.h>

#include "evidence.h"

struct ci_error *ci_evidence_gather(const struct ci_model *m, struct ci_evidence **ret)
{
	struct ci_evidence *ev = calloc(1, sizeof *ev);
	size_t ns = m->stream_count;
	struct ci_error_facts f;
	if (ev)
		ev->streams = calloc(ns ? ns : 1, sizeof *ev->streams);
	if (!ev || !ev->streams || ci_model_facts(m, &f, ev->streams)) {
		ci_evidence_destroy(ev);
		return ci_error_create(CI_ERR_NOMEM, "out of memory gathering the record's evidence");
	}
	ev->stream_count = ns;
	ev->first_sticky_error = f.first_sticky_error;
	ev->last_error = f.last_error;
	ev->failed_launch_window = f.failed_launch_window;
	ev->failed_launch_from = f.failed_launch_from;
	ev->failed_launch_to = f.failed_launch_to;
	*ret = ev;
	return NULL;
}

void ci_evidence_destroy(struct ci_evidence *ev)
{
	if (!ev)
		return;
	ci_evidence_kernel_log_clear(ev);
	free(ev->streams);
	free(ev);
}
