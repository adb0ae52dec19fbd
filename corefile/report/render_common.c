/* SPDX-License-Identifier: MIT */
/*
 * What the text and JSON renderers (and the crash signature) read of a report: its launches and
 * allocations as the session loaded them, the short name of a kernel for tables; and what the
 * front ends read of it (ci_report_model...).  The labels of the model's things are the model's
 * (model/labels.c), the text helpers of every stage in base/text.c.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

char *ci_kernel_short_name(const char *name, char *buf, size_t n)
{
	int depth = 0;
	size_t i = 0;
	for (; name[i] && i + 1 < n; i++) {
		if (name[i] == '<')
			depth++;
		else if (name[i] == '>' && depth > 0)
			depth--;
		else if (name[i] == '(' && depth == 0 && i > 0)
			break;
		buf[i] = name[i];
	}
	buf[i] = '\0';
	return buf;
}

const struct ci_model *ci_report_model(const struct ci_report *r) { return r->model; }
const struct ci_diagnosis *ci_report_diagnosis(const struct ci_report *r) { return r->diagnosis; }
const struct ci_evidence *ci_report_evidence(const struct ci_report *r) { return r->evidence; }

/* A launch or allocation the session did not load: zeros, no function and no stream, so that a
 * renderer asked for one prints "<unknown function>" instead of failing. */
static const struct ci_launch placeholder_launch = {
	.function = CI_NONE, .stream = CI_NONE, .ctx = CI_NONE,
};
static const struct ci_alloc placeholder_alloc = {
	.ctx = CI_NONE, .stream = CI_NONE, .free_stream = CI_NONE,
};

const struct ci_launch *ci_report_launch(const struct ci_report *r, size_t i)
{
	const struct ci_launch *l = ci_model_launch_loaded(r->model, i);
	return l ? l : &placeholder_launch;
}

const struct ci_alloc *ci_report_alloc(const struct ci_report *r, size_t i)
{
	const struct ci_alloc *a = ci_model_alloc_loaded(r->model, i);
	return a ? a : &placeholder_alloc;
}
