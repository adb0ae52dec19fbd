/* SPDX-License-Identifier: MIT */
/*
 * Rule family "faulting": the faulting (or most suspect) launch by the record's own rules, where
 * the verdict is a device fault or pending work.  The only launch in flight is the one; among
 * several suspects (in flight, else in breadcrumb windows, else on streams without breadcrumbs)
 * the one whose argument left its history, else the only (or oldest) one passing a pointer
 * outside every live allocation, else the oldest.  Each rule is a finding that names its suspect
 * with a confidence; the kernel log's and the graphs' families may decide otherwise after it.
 */
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

static bool launch_left_history(const struct ci_attr_vec *av, size_t i)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == i && (av->v[k].history == CI_HISTORY_LEFT ||
					     av->v[k].history == CI_HISTORY_FREED_SINCE))
			return true;
	return false;
}

static bool launch_has_bad_pointer(const struct ci_attr_vec *av, size_t i)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == i && av->v[k].relation != CI_REL_INSIDE)
			return true;
	return false;
}

static ptrdiff_t oldest_of(struct ci_launch_briefs lb, const size_t *v, size_t n)
{
	ptrdiff_t best = -1;
	for (size_t k = 0; k < n; k++)
		if (best < 0 || ci_brief_at(lb, v[k])->time_ns < ci_brief_at(lb, best)->time_ns)
			best = (ptrdiff_t)v[k];
	return best;
}

/* The candidates of the open windows (streams without breadcrumbs) when no bad pointer
 * decides: per stream, the oldest launch made since its last synchronization (it had started;
 * those behind it may not have), or the newest when nothing bounds the window; then the oldest
 * of those. */
static ptrdiff_t open_pick(const struct ci_rule_ctx *c, const size_t *open, size_t n)
{
	ptrdiff_t best = -1;
	for (size_t k = 0; k < n; k++) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, open[k]);
		bool bounded = l->stream < c->model->stream_count && c->ev->streams[l->stream].synced_ns;
		/* Is open[k] its stream's representative? */
		bool rep = true;
		for (size_t j = 0; j < n && rep; j++) {
			const struct ci_launch_brief *o = ci_brief_at(c->lb, open[j]);
			if (j != k && o->stream == l->stream &&
			    (bounded ? o->stream_seq < l->stream_seq : o->stream_seq > l->stream_seq))
				rep = false;
		}
		if (rep && (best < 0 || l->time_ns < ci_brief_at(c->lb, best)->time_ns))
			best = (ptrdiff_t)open[k];
	}
	return best;
}

/* What the suspects CAND[0..N) are: on how many streams, how many left their argument history
 * and how many pass a bad pointer, and the oldest of each. */
struct weighing {
	size_t streams, n_hist, n_bad;
	ptrdiff_t hist_oldest, bad_oldest;
};

static struct weighing weigh(const struct ci_rule_ctx *c, const size_t *cand, size_t n)
{
	struct weighing w = { .hist_oldest = -1, .bad_oldest = -1 };
	for (size_t k = 0; k < n; k++) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, cand[k]);
		bool first_of_stream = true;
		for (size_t j = 0; j < k && first_of_stream; j++)
			first_of_stream = ci_brief_at(c->lb, cand[j])->stream != l->stream;
		w.streams += first_of_stream;
		if (launch_left_history(&c->args, cand[k])) {
			w.n_hist++;
			if (w.hist_oldest < 0 || l->time_ns < ci_brief_at(c->lb, w.hist_oldest)->time_ns)
				w.hist_oldest = (ptrdiff_t)cand[k];
		}
		if (launch_has_bad_pointer(&c->args, cand[k])) {
			w.n_bad++;
			if (w.bad_oldest < 0 || l->time_ns < ci_brief_at(c->lb, w.bad_oldest)->time_ns)
				w.bad_oldest = (ptrdiff_t)cand[k];
		}
	}
	return w;
}

/* Breadcrumbs are spent within a budget, so one bounds a range of launches: when the suspects
 * all lie on one stream, the range of its launch numbers that may have run (F's first, last) and
 * the last one known finished (value, flag SYNCED when a synchronization says so past the
 * breadcrumb), for "launches 91-110 of its stream may or may not have run; 90 had finished". */
static void window_range(const struct ci_rule_ctx *c, const size_t *cand, size_t n,
			 struct ci_finding *f)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t stream = ci_brief_at(c->lb, cand[0])->stream;
	for (size_t k = 0; k < n; k++) {
		uint64_t q = ci_brief_at(c->lb, cand[k])->stream_seq;
		lo = q < lo ? q : lo;
		hi = q > hi ? q : hi;
	}
	const struct ci_stream_progress *p = NULL;
	for (size_t i = 0; i < c->diag->stream_count && !p; i++)
		if (c->diag->streams[i].stream == stream)
			p = &c->diag->streams[i];
	if (!p || lo == UINT64_MAX || lo == 0)
		return;
	f->first = lo;
	f->last = hi;
	f->value = p->finished;
	if (p->finished > p->crumb)
		f->flags |= CI_FINDING_SYNCED;
}

/* Several suspects CAND[0..N): the rule that picks one. */
static void choose_among(struct ci_rule_ctx *c, const size_t *cand, size_t n, bool open_only)
{
	const struct ci_suspects *sus = &c->sus;
	struct weighing w = weigh(c, cand, n);
	struct ci_finding *f;
	if (w.n_hist) {
		f = ci_rule_add(c, CI_F_BY_HISTORY);
		f->launch = w.hist_oldest;
		f->count = w.n_hist;
		f->strength = w.n_hist == 1 && !open_only ? CI_CONF_MEDIUM : CI_CONF_LOW;
		c->pointer_rule = true;
	} else if (w.n_bad) {
		f = ci_rule_add(c, CI_F_BY_BAD_POINTER);
		f->launch = w.bad_oldest;
		f->count = w.n_bad;
		f->strength = w.n_bad == 1 && !open_only ? CI_CONF_MEDIUM : CI_CONF_LOW;
		c->pointer_rule = true;
	} else if (open_only) {
		f = ci_rule_add(c, CI_F_OPEN_OLDEST);
		f->launch = open_pick(c, cand, n);
		f->strength = CI_CONF_LOW;
	} else {
		f = ci_rule_add(c, CI_F_OLDEST_IN_FLIGHT);
		f->launch = sus->n_in_flight ? oldest_of(c->lb, sus->in_flight, sus->n_in_flight)
					     : oldest_of(c->lb, cand, n);
		f->strength = CI_CONF_LOW;
	}
	/* The pool the rule chose from. */
	f->total = n;
	f->streams = w.streams;
	f->flags = (open_only ? CI_FINDING_OPEN_ONLY : 0) | (sus->n_window ? CI_FINDING_WINDOWS : 0);
	if (sus->n_window && !open_only && w.streams == 1)
		window_range(c, cand, n, f);
	ci_rule_suspect(c, f);
}

int ci_rules_faulting(struct ci_rule_ctx *c)
{
	const struct ci_suspects *sus = &c->sus;
	if (!c->suspecting)
		return 0;
	if (sus->n_in_flight == 1 && sus->n_window == 0) {
		size_t i = sus->in_flight[0];
		struct ci_finding *f = ci_rule_add(c, CI_F_ONLY_IN_FLIGHT);
		f->launch = (ptrdiff_t)i;
		f->strength = CI_CONF_HIGH;
		f->value = ci_brief_at(c->lb, i)->stream_seq - 1;
		ci_rule_suspect(c, f);
		if (sus->n_open)
			ci_rule_add(c, CI_F_OPEN_UNPLACED)->count = sus->n_open;
		return 0;
	}
	/* Several candidates: in-flight launches first, else the unknown windows, else the
	 * streams without breadcrumbs. */
	const size_t *cand = sus->in_flight;
	size_t n = sus->n_in_flight, all_n = sus->n_in_flight + sus->n_window;
	_cleanup_free_ size_t *merged = NULL;
	if (sus->n_window && (merged = malloc((all_n ? all_n : 1) * sizeof(*merged)))) {
		memcpy(merged, sus->in_flight, sus->n_in_flight * sizeof(*merged));
		memcpy(merged + sus->n_in_flight, sus->window, sus->n_window * sizeof(*merged));
		cand = merged;
		n = all_n;
	}
	bool open_only = false;
	if (n == 0) {
		cand = sus->open;
		n = sus->n_open;
		open_only = true;
	}
	if (n == 0) {
		if (c->diag->verdict == CI_VERDICT_DEVICE_FAULT)
			ci_rule_add(c, CI_F_ALL_FINISHED);
		return 0;
	}
	choose_among(c, cand, n, open_only);
	return 0;
}
