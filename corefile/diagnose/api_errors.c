/* SPDX-License-Identifier: MIT */
/*
 * Rule family "errors": the API error timeline (the first error, the first sticky error and the
 * thread that saw it), the signal and the thread that received it, and from those and the
 * progress the verdict: a device fault (a sticky error), an API error (a call failed, nothing
 * faulted; the launch whose call returned it), pending work (no error, launches unfinished), an
 * incomplete record, or nothing.  Without a suspect to name, its findings say why.
 */
#include <stdlib.h>

#include "diagnose.h"

static void find_errors(const struct ci_model *m, const struct ci_evidence *ev,
			struct ci_diagnosis *d)
{
	d->first_error = m->error_count ? 0 : -1;
	d->last_error = ev->last_error;
	d->first_sticky_error = ev->first_sticky_error;
	if (d->first_sticky_error >= 0)
		d->error_tid = m->errors[d->first_sticky_error].tid;
	else if (d->last_error >= 0)
		d->error_tid = m->errors[d->last_error].tid;
}

static void find_signal(const struct ci_model *m, const struct ci_diagnose_options *opts,
			struct ci_diagnosis *d)
{
	const struct ci_source_info *info = opts ? opts->source : NULL;
	if (opts && opts->signal) {
		/* What a debugger that holds the process knows and the input cannot show: the
		 * signal it stopped the process at (not delivered yet) and the thread. */
		d->signal = opts->signal;
		d->signal_tid = opts->signal_tid;
		return;
	}
	if (info && info->signal > 0) {
		d->signal = info->signal;
		for (size_t i = 0; i < info->thread_count; i++)
			if (info->threads[i].crashed) {
				d->signal_tid = info->threads[i].tid;
				break;
			}
	}
	if (m->header.state == CI_STATE_SIGNALED && m->header.fatal_signal > 0) {
		if (!d->signal)
			d->signal = m->header.fatal_signal;
		if (!d->signal_tid && d->signal == m->header.fatal_signal)
			d->signal_tid = m->header.fatal_tid;
	}
}

/* Whether most of what a diagnosis reads is not in the input (a record file or core cut
 * short): the launches or the errors, or more than half of the record. */
static bool record_mostly_missing(const struct ci_model *m)
{
	const struct ci_section_stats *l = &m->sections[CI_SEC_LAUNCHES];
	const struct ci_section_stats *e = &m->sections[CI_SEC_ERRORS];
	return (l->present && l->capacity && l->missing * 2 > l->capacity) ||
	       (e->present && e->capacity && e->missing * 2 > e->capacity) ||
	       (m->location.size && m->location.size * 2 < m->header.record_size);
}

static enum ci_verdict verdict_of(const struct ci_model *m, const struct ci_diagnosis *d,
				  const struct ci_suspects *sus)
{
	enum ci_verdict v = d->first_sticky_error >= 0 ? CI_VERDICT_DEVICE_FAULT
			    : d->last_error >= 0      ? CI_VERDICT_API_ERROR
			    : sus->n_in_flight || sus->n_window ? CI_VERDICT_PENDING
							      : CI_VERDICT_NONE;
	if ((v == CI_VERDICT_NONE || v == CI_VERDICT_PENDING) && record_mostly_missing(m))
		v = CI_VERDICT_INCOMPLETE;
	return v;
}

/* The launch whose call returned the last error: one that failed just before it. */
static ptrdiff_t failed_launch(const struct ci_rule_ctx *c)
{
	for (size_t i = c->model->launch_count; i-- > 0;) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		if ((l->flags & CI_LAUNCH_FAILED) && ci_evidence_failed_launch_at(c->ev, l->time_ns))
			return (ptrdiff_t)i;
	}
	return -1;
}

int ci_rules_errors(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	struct ci_diagnosis *d = c->diag;
	find_errors(m, c->ev, d);
	find_signal(m, c->opts, d);
	d->verdict = verdict_of(m, d, &c->sus);
	c->suspecting = d->verdict == CI_VERDICT_DEVICE_FAULT || d->verdict == CI_VERDICT_PENDING;
	if (d->verdict == CI_VERDICT_API_ERROR)
		d->failed_launch = failed_launch(c);
	if (c->suspecting)
		return 0;
	struct ci_finding *f;
	switch (d->verdict) {
	case CI_VERDICT_API_ERROR:
		f = ci_rule_add(c, CI_F_API_ERROR);
		f->error = d->last_error;
		f->launch = d->failed_launch;
		break;
	case CI_VERDICT_INCOMPLETE:
		f = ci_rule_add(c, CI_F_RECORD_MISSING);
		f->value = m->location.size;
		f->total = m->header.record_size;
		break;
	default:
		ci_rule_add(c, CI_F_NO_FAILURE);
		break;
	}
	return 0;
}
