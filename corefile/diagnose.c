/* SPDX-License-Identifier: MIT */
/*
 * Stage 4, diagnose: from a decoded record, work out what the GPU was doing.  Per stream, the
 * breadcrumb value (the last per-stream launch sequence number the GPU itself wrote back) splits
 * the recorded launches into finished, in flight, not started and unknown; across streams one
 * launch is chosen as the faulting (or most suspect) one, with the rule that decided and a
 * confidence; pointer-sized arguments of the suspect launches are attributed to live or freed
 * allocations; and the API error timeline gives the first sticky error and the thread that saw
 * it.  Pure function of the model: no I/O, no libdw.  The rules are documented in docs/USAGE.md
 * ("How the faulting launch is chosen").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"
#include "render-internal.h"

#define CUDA_ERROR_NOT_READY 600
/* Suspect launches whose arguments are attributed, at most (bounds the work on huge rings). */
#define ATTRIBUTED_LAUNCHES_MAX 256
/* A value counts as "near" an allocation when it is closer than this or than its size. */
#define NEAR_BYTES_MIN (1ull << 20)
/* Allocations that may contain an address are searched this far back (VMM reserves). */
#define CONTAINER_LOOKBACK 64

const char *ci_launch_state_name(enum ci_launch_state s)
{
	switch (s) {
	case CI_LS_FINISHED: return "finished";
	case CI_LS_IN_FLIGHT: return "in_flight";
	case CI_LS_NOT_STARTED: return "not_started";
	case CI_LS_UNKNOWN: break;
	}
	return "unknown";
}

const char *ci_confidence_name(enum ci_confidence c)
{
	switch (c) {
	case CI_CONF_LOW: return "low";
	case CI_CONF_MEDIUM: return "medium";
	case CI_CONF_HIGH: return "high";
	case CI_CONF_EXACT: return "exact";
	case CI_CONF_NONE: break;
	}
	return "none";
}

const char *ci_relation_name(enum ci_relation r)
{
	switch (r) {
	case CI_REL_INSIDE: return "inside";
	case CI_REL_PAST_END: return "past_end";
	case CI_REL_BEFORE_START: return "before_start";
	case CI_REL_FREED: return "freed";
	case CI_REL_UNKNOWN: break;
	}
	return "unknown";
}

const char *ci_verdict_name(enum ci_verdict v)
{
	switch (v) {
	case CI_VERDICT_DEVICE_FAULT: return "device_fault";
	case CI_VERDICT_API_ERROR: return "api_error";
	case CI_VERDICT_PENDING: return "pending";
	case CI_VERDICT_NONE: break;
	}
	return "none";
}

void ci_diagnosis_destroy(struct ci_diagnosis *diag)
{
	if (!diag)
		return;
	free(diag->launch_state);
	free(diag->streams);
	free(diag->reasoning);
	free(diag->attributions);
	free(diag);
}

/* ---------------------------------------------------------------------------------------- */
/* Reasoning text                                                                             */

struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void text_add(struct text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = t->cap - t->len;
		int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->s && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 256;
		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->failed = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Per-stream progress                                                                        */

struct diag_ctx {
	const struct ci_model *model;
	struct ci_diagnosis *diag;
	struct ci_launch_briefs lb; /* what is read of every launch, parallel to the model's */
	size_t *order;      /* launch indices sorted by (stream, stream_seq, time) */
	uint8_t *window;    /* launch is in an "unknown, one of these is in flight" window */
};

static int cmp_launch_order(const void *a, const void *b, void *arg)
{
	struct ci_launch_briefs lb = *(const struct ci_launch_briefs *)arg;
	const struct ci_launch_brief *x = ci_brief_at(lb, *(const size_t *)a);
	const struct ci_launch_brief *y = ci_brief_at(lb, *(const size_t *)b);
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->stream_seq != y->stream_seq)
		return x->stream_seq < y->stream_seq ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Fill ORDER with the launch indices grouped by stream slot (unknown streams last) and sorted
 * by stream sequence within each stream.  A counting sort by stream keeps the time order, which
 * is almost always the stream order already, so only out-of-order streams are sorted: a full
 * sort of a wrapped ring of 250,000 launches was a tenth of the whole report. */
static int order_launches(const struct ci_model *m, struct ci_launch_briefs lb, size_t *order)
{
	size_t ns = m->stream_count, nl = m->launch_count;
	size_t *start = calloc(ns + 2, sizeof(*start));
	if (!start)
		return -1;
	for (size_t i = 0; i < nl; i++) {
		uint32_t s = ci_brief_at(lb, i)->stream;
		start[(s < ns ? s : ns) + 1]++;
	}
	for (size_t s = 1; s <= ns + 1; s++)
		start[s] += start[s - 1];
	for (size_t i = 0; i < nl; i++) {
		uint32_t s = ci_brief_at(lb, i)->stream;
		order[start[s < ns ? s : ns]++] = i;
	}
	/* start[s] is now the end of bucket s. */
	for (size_t s = 0, b = 0; s <= ns; b = start[s], s++) {
		size_t e = start[s];
		for (size_t k = b + 1; k < e; k++)
			if (cmp_launch_order(&order[k - 1], &order[k], &lb) > 0) {
				qsort_r(order + b, e - b, sizeof(*order), cmp_launch_order,
					&lb);
				break;
			}
	}
	free(start);
	return 0;
}

bool ci_stream_valid(const struct ci_model *model, uint32_t slot)
{
	return slot != CI_NONE && slot < model->stream_count && model->streams[slot].seq != 0;
}

/* Whether the launch took part in stream order: a failed call enqueued nothing, a captured
 * launch went into a graph and runs later as part of a graph launch. */
static bool launch_enqueued(uint32_t flags)
{
	return !(flags & (CI_LAUNCH_FAILED | CI_LAUNCH_CAPTURED));
}

/* The breadcrumb of stream ST as a full 64-bit sequence number, or false when the stream has
 * none.  With 32-bit breadcrumbs the high half is taken from the stream's own launch counter. */
static bool stream_crumb(const struct ci_model *model, const struct ci_stream *st, uint64_t *ret)
{
	if (model->header.flags & CI_HDR_CRUMBS_OFF)
		return false;
	if (st->crumb_slot == CI_NONE || st->crumb_slot >= model->crumb_count)
		return false;
	uint64_t v = model->crumbs[st->crumb_slot];
	if (model->header.crumb_width == 4) {
		uint64_t hi = st->launches & ~0xffffffffull;
		v = hi | (v & 0xffffffffull);
		if (v > st->launches && hi)
			v -= 1ull << 32;
	}
	/* A value beyond what was handed out cannot be a real breadcrumb. */
	if (v > st->launches)
		v = st->launches;
	*ret = v;
	return true;
}

static void classify_stream(struct diag_ctx *c, struct ci_stream_progress *p, size_t begin,
			    size_t end)
{
	const struct ci_model *m = c->model;
	enum ci_launch_state *state = c->diag->launch_state;
	const struct ci_stream *st = ci_stream_valid(m, p->stream) ? &m->streams[p->stream] : NULL;
	uint64_t crumb = 0;
	bool have_crumb = st && stream_crumb(m, st, &crumb);

	p->crumb = crumb;
	p->launched = st ? st->launches : 0;
	p->oldest_unfinished = -1;

	/* The first launch after the breadcrumb is exactly in flight when it is the very next one
	 * in stream order and a breadcrumb write followed it (which never arrived). */
	uint64_t expect = crumb + 1;
	size_t first_pending = end, window_end = end;
	for (size_t k = begin; k < end; k++) {
		size_t i = c->order[k];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		if (l->flags & CI_LAUNCH_FAILED) {
			state[i] = CI_LS_NOT_STARTED;
			if (l->stream_seq == expect)
				expect++;
			continue;
		}
		if (!launch_enqueued(l->flags) || !have_crumb || l->stream_seq == 0) {
			state[i] = CI_LS_UNKNOWN;
			continue;
		}
		if (l->stream_seq <= crumb) {
			state[i] = CI_LS_FINISHED;
			continue;
		}
		if (first_pending == end) {
			first_pending = k;
			if (l->stream_seq == expect && (l->flags & CI_LAUNCH_CRUMB)) {
				state[i] = CI_LS_IN_FLIGHT;
				window_end = k + 1;
				continue;
			}
		}
		if (window_end == end) {
			/* Unknown up to and including the next launch that carries a breadcrumb. */
			state[i] = CI_LS_UNKNOWN;
			c->window[i] = 1;
			if (l->flags & CI_LAUNCH_CRUMB)
				window_end = k + 1;
		} else {
			state[i] = CI_LS_NOT_STARTED;
		}
	}
	for (size_t k = begin; k < end; k++) {
		size_t i = c->order[k];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		switch (state[i]) {
		case CI_LS_FINISHED: p->finished++; break;
		case CI_LS_IN_FLIGHT: p->in_flight++; break;
		case CI_LS_NOT_STARTED:
			if (!(l->flags & CI_LAUNCH_FAILED))
				p->not_started++;
			break;
		case CI_LS_UNKNOWN: p->unknown++; break;
		}
		if (p->oldest_unfinished < 0 && launch_enqueued(l->flags) && state[i] != CI_LS_FINISHED)
			p->oldest_unfinished = (ptrdiff_t)i;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Pointer attribution                                                                        */

/* What attribution reads of an allocation (live ones without copying them out of a lazy model). */
static struct ci_alloc_brief alloc_brief(const struct ci_alloc *a)
{
	return (struct ci_alloc_brief){ a->address, a->size, a->kind };
}

static struct ci_alloc_brief live_brief(const struct ci_model *m, size_t i)
{
	struct ci_alloc_brief b;
	ci_model_alloc_brief(m, i, &b);
	return b;
}

static bool alloc_has_range(const struct ci_alloc_brief *a)
{
	return a->address != 0 && a->size != 0 && a->kind != CI_ALLOC_VMM_CREATE;
}

static bool alloc_contains(const struct ci_alloc_brief *a, uint64_t v)
{
	return alloc_has_range(a) && v >= a->address && v - a->address < a->size;
}

static uint64_t alloc_end(const struct ci_alloc_brief *a)
{
	uint64_t e = a->address + a->size;
	return e < a->address ? UINT64_MAX : e;
}

/* Index of the last live allocation with address <= V, or -1. */
static ptrdiff_t live_floor(const struct ci_model *m, uint64_t v)
{
	size_t lo = 0, hi = m->alloc_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (live_brief(m, mid).address <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ptrdiff_t)lo - 1;
}

/* Whether V looks like an address rather than a scalar: a canonical user-space value above 4 GiB
 * (where device and UVA pointers live), or anything within reach of a recorded allocation. */
static bool plausible_pointer(const struct ci_model *m, uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v < 0x10000 || v >= (1ull << 47))
		return false;
	if (v >= (1ull << 32))
		return true;
	return lo < hi && v + NEAR_BYTES_MIN >= lo && v <= hi + NEAR_BYTES_MIN;
}

static void attribute(const struct ci_model *m, uint64_t v, struct ci_attribution *a)
{
	a->address = v;
	a->relation = CI_REL_UNKNOWN;
	a->alloc = NULL;
	a->offset = 0;

	/* Inside a live allocation; the smallest container wins (a VMM map inside its reserve). */
	ptrdiff_t f = live_floor(m, v), best = -1;
	struct ci_alloc_brief bb = { 0 };
	for (ptrdiff_t j = f; j >= 0 && f - j < CONTAINER_LOOKBACK; j--) {
		struct ci_alloc_brief c = live_brief(m, (size_t)j);
		if (alloc_contains(&c, v) && (best < 0 || c.size < bb.size)) {
			best = j;
			bb = c;
		}
	}
	if (best >= 0) {
		a->relation = CI_REL_INSIDE;
		a->alloc = ci_model_alloc(m, (size_t)best);
		a->offset = v - bb.address;
		return;
	}
	/* Inside a recently freed allocation: the most recent free wins. */
	for (size_t j = m->free_count; j-- > 0;) {
		struct ci_alloc_brief fb = alloc_brief(&m->frees[j]);
		if (alloc_contains(&fb, v)) {
			a->relation = CI_REL_FREED;
			a->alloc = &m->frees[j];
			a->offset = v - fb.address;
			return;
		}
	}
	/* Near a live allocation: after the end of the one below, or before the one above. */
	ptrdiff_t below = -1, above = -1;
	struct ci_alloc_brief bl = { 0 }, ab = { 0 };
	for (ptrdiff_t j = f; j >= 0; j--)
		if (bl = live_brief(m, (size_t)j), alloc_has_range(&bl)) {
			below = j;
			break;
		}
	for (size_t j = (size_t)(f + 1); j < m->alloc_count; j++)
		if (ab = live_brief(m, j), alloc_has_range(&ab)) {
			above = (ptrdiff_t)j;
			break;
		}
	uint64_t d_after = below >= 0 && v >= alloc_end(&bl) ? v - alloc_end(&bl) : UINT64_MAX;
	uint64_t d_before = above >= 0 ? ab.address - v : UINT64_MAX;
	if (d_after <= d_before && below >= 0) {
		uint64_t near = bl.size > NEAR_BYTES_MIN ? bl.size : NEAR_BYTES_MIN;
		if (d_after < near) {
			a->relation = CI_REL_PAST_END;
			a->alloc = ci_model_alloc(m, (size_t)below);
			a->offset = d_after;
		}
	} else if (above >= 0) {
		uint64_t near = ab.size > NEAR_BYTES_MIN ? ab.size : NEAR_BYTES_MIN;
		if (d_before < near) {
			a->relation = CI_REL_BEFORE_START;
			a->alloc = ci_model_alloc(m, (size_t)above);
			a->offset = d_before;
		}
	}
}

static uint64_t read_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct attr_vec {
	struct ci_attribution *v;
	size_t n, cap;
};

static int attr_push(struct attr_vec *av, const struct ci_attribution *a)
{
	if (ci_vec_reserve((void **)&av->v, &av->cap, av->n + 1, sizeof(*av->v)))
		return -1;
	av->v[av->n++] = *a;
	return 0;
}

/* Attribute every pointer-sized argument of launch I.  Returns -1 on out-of-memory. */
static int attribute_launch(const struct ci_model *m, size_t i, uint64_t lo, uint64_t hi,
			    struct attr_vec *av)
{
	const struct ci_launch *l = ci_model_launch(m, i);
	if (!l)
		return 0;
	size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
	const struct ci_function *fn = NULL;
	if (l->function != CI_NONE && l->function < m->function_count &&
	    m->functions[l->function].seq != 0)
		fn = &m->functions[l->function];

	if (fn && fn->params_known) {
		uint32_t n = fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX;
		for (uint32_t k = 0; k < n; k++) {
			size_t off = fn->param_offset[k];
			if (fn->param_size[k] != 8 || off + 8 > len)
				continue;
			uint64_t v = read_le64(l->params + off);
			if (!plausible_pointer(m, v, lo, hi))
				continue;
			struct ci_attribution a = { .launch = i, .arg = k,
						    .param_offset = (uint32_t)off };
			attribute(m, v, &a);
			if (attr_push(av, &a))
				return -1;
		}
		return 0;
	}
	for (size_t off = 0; off + 8 <= len; off += 8) {
		uint64_t v = read_le64(l->params + off);
		if (!plausible_pointer(m, v, lo, hi))
			continue;
		struct ci_attribution a = { .launch = i, .arg = (uint32_t)(off / 8),
					    .param_offset = (uint32_t)off };
		attribute(m, v, &a);
		if (attr_push(av, &a))
			return -1;
	}
	return 0;
}

static bool launch_has_bad_pointer(const struct attr_vec *av, size_t i)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == i && av->v[k].relation != CI_REL_INSIDE)
			return true;
	return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Errors                                                                                     */

static void find_errors(const struct ci_model *m, struct ci_diagnosis *d)
{
	d->first_sticky_error = -1;
	d->first_error = m->error_count ? 0 : -1;
	d->last_error = -1;
	ptrdiff_t by_flag = -1, by_seq = -1, by_sticky = -1, by_result = -1;
	for (size_t i = 0; i < m->error_count; i++) {
		const struct ci_api_error *e = &m->errors[i];
		if (by_flag < 0 && (e->flags & CI_ERROR_FIRST_STICKY))
			by_flag = (ptrdiff_t)i;
		if (by_seq < 0 && m->header.first_sticky_error_seq &&
		    e->seq == m->header.first_sticky_error_seq)
			by_seq = (ptrdiff_t)i;
		if (by_sticky < 0 && (e->flags & CI_ERROR_STICKY))
			by_sticky = (ptrdiff_t)i;
		if (by_result < 0 && ci_cuda_result_is_sticky(e->result))
			by_result = (ptrdiff_t)i;
		if (e->result != CUDA_ERROR_NOT_READY)
			d->last_error = (ptrdiff_t)i;
	}
	d->first_sticky_error = by_flag >= 0 ? by_flag : by_seq >= 0 ? by_seq
			      : by_sticky >= 0 ? by_sticky : by_result;
	if (d->first_sticky_error >= 0)
		d->error_tid = m->errors[d->first_sticky_error].tid;
	else if (d->last_error >= 0)
		d->error_tid = m->errors[d->last_error].tid;
}

static void find_signal(const struct ci_model *m, const struct ci_source_info *info,
			struct ci_diagnosis *d)
{
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

/* ---------------------------------------------------------------------------------------- */
/* The faulting launch                                                                        */

static void describe_launch(struct text *t, const struct ci_model *m, size_t i)
{
	char name[256], stream[96];
	const struct ci_launch *l = ci_model_launch(m, i);
	if (!l)
		return;
	text_add(t, "%s (launch %llu on %s)", ci_launch_kernel_name(m, l, name, sizeof(name)),
		 (unsigned long long)l->stream_seq, ci_stream_label(m, l->stream, stream, sizeof(stream)));
}

static ptrdiff_t oldest_of(struct ci_launch_briefs lb, const size_t *v, size_t n)
{
	ptrdiff_t best = -1;
	for (size_t k = 0; k < n; k++)
		if (best < 0 || ci_brief_at(lb, v[k])->time_ns < ci_brief_at(lb, best)->time_ns)
			best = (ptrdiff_t)v[k];
	return best;
}

static void choose_faulting(struct diag_ctx *c, const size_t *in_flight, size_t n_in_flight,
			    const size_t *window, size_t n_window, const size_t *blind,
			    size_t n_blind, const struct attr_vec *av, struct text *why)
{
	struct ci_diagnosis *d = c->diag;
	if (n_in_flight == 1 && n_window == 0) {
		size_t i = in_flight[0];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		d->faulting_launch = (ptrdiff_t)i;
		d->confidence = CI_CONF_HIGH;
		text_add(why, "Rule: the only launch in flight. Its stream's breadcrumb reads %llu: "
			      "every launch up to that one finished, and the breadcrumb enqueued right "
			      "after this one never arrived. No other stream has work in flight.",
			 (unsigned long long)(l->stream_seq - 1));
		if (n_blind)
			text_add(why, " (%zu launches on streams without breadcrumbs cannot be "
				      "placed.)", n_blind);
		return;
	}

	/* Several candidates: in-flight launches first, else the unknown windows, else the
	 * streams without breadcrumbs. */
	const size_t *cand = in_flight;
	size_t n = n_in_flight;
	size_t all_n = n_in_flight + n_window;
	size_t *merged = NULL;
	if (n_window) {
		merged = malloc((all_n ? all_n : 1) * sizeof(*merged));
		if (merged) {
			memcpy(merged, in_flight, n_in_flight * sizeof(*merged));
			memcpy(merged + n_in_flight, window, n_window * sizeof(*merged));
			cand = merged;
			n = all_n;
		}
	}
	bool blind_only = false;
	if (n == 0) {
		cand = blind;
		n = n_blind;
		blind_only = true;
	}
	if (n == 0) {
		free(merged);
		if (d->verdict == CI_VERDICT_DEVICE_FAULT)
			text_add(why, "Every recorded launch finished according to the breadcrumbs, so "
				      "no launch can be named: the fault may come from a memory "
				      "operation, a graph, or launches the recorder did not see.");
		return;
	}

	size_t n_bad = 0;
	ptrdiff_t bad_oldest = -1;
	for (size_t k = 0; k < n; k++)
		if (launch_has_bad_pointer(av, cand[k])) {
			n_bad++;
			if (bad_oldest < 0 ||
			    ci_brief_at(c->lb, cand[k])->time_ns < ci_brief_at(c->lb, bad_oldest)->time_ns)
				bad_oldest = (ptrdiff_t)cand[k];
		}

	const char *pool = blind_only ? "launches are the newest on streams without breadcrumbs"
			   : n_window ? "launches may have been in flight"
				      : "launches were in flight";
	if (n_bad == 1) {
		d->faulting_launch = bad_oldest;
		d->confidence = blind_only ? CI_CONF_LOW : CI_CONF_MEDIUM;
		text_add(why, "Rule: the only suspect with a bad pointer. %zu %s; only this one "
			      "passes a pointer outside every live allocation.", n, pool);
	} else if (n_bad > 1) {
		d->faulting_launch = bad_oldest;
		d->confidence = CI_CONF_LOW;
		text_add(why, "Rule: the oldest suspect with a bad pointer. %zu %s; %zu of them pass "
			      "pointers outside every live allocation, and this is the oldest of those.",
			 n, pool, n_bad);
	} else {
		ptrdiff_t o = n_in_flight ? oldest_of(c->lb, in_flight, n_in_flight) : oldest_of(c->lb, cand, n);
		d->faulting_launch = o;
		d->confidence = CI_CONF_LOW;
		text_add(why, "Rule: the oldest launch in flight. %zu %s and none passes a pointer "
			      "outside the live allocations; this is the oldest, but any of them may be "
			      "the one.", n, pool);
	}

	if (n_window && !blind_only)
		text_add(why, " Breadcrumbs are not written after every launch, so on some streams "
			      "only a range of launches is known to contain the one in flight.");
	free(merged);
}

/* ---------------------------------------------------------------------------------------- */

static struct ci_error *nomem(void)
{
	return ci_error_create(CI_ERR_NOMEM, "out of memory while diagnosing the record");
}

struct ci_error *ci_diagnose(const struct ci_model *model, const struct ci_source_info *info,
			     struct ci_diagnosis **ret)
{
	const struct ci_model *m = model;
	struct ci_diagnosis *d = calloc(1, sizeof(*d));
	size_t nl = m->launch_count;
	struct diag_ctx c = { .model = m, .diag = d };
	struct attr_vec av = { 0 };
	struct text why = { 0 };
	size_t *in_flight = NULL, *window = NULL, *blind = NULL;
	size_t n_in_flight = 0, n_window = 0, n_blind = 0;

	if (!d)
		return nomem();
	d->faulting_launch = -1;
	d->failed_launch = -1;
	d->launch_state = calloc(nl ? nl : 1, sizeof(*d->launch_state));
	/* What is read of every launch: a lazy model has it at hand, else one pass copies it. */
	struct ci_launch_briefs lb = ci_model_launch_briefs(m);
	struct ci_launch_brief *own = NULL;
	if (!lb.base) {
		own = malloc((nl ? nl : 1) * sizeof(*own));
		for (size_t i = 0; own && i < nl; i++)
			ci_model_launch_brief(m, i, &own[i]);
		lb = (struct ci_launch_briefs){ (const uint8_t *)own, sizeof(*own) };
	}
	c.lb = lb;
	c.order = malloc((nl ? nl : 1) * sizeof(*c.order));
	c.window = calloc(nl ? nl : 1, 1);
	in_flight = malloc((nl ? nl : 1) * sizeof(size_t));
	window = malloc((nl ? nl : 1) * sizeof(size_t));
	blind = malloc((m->stream_count ? m->stream_count : 1) * sizeof(size_t));
	if (!d->launch_state || !lb.base || !c.order || !c.window || !in_flight || !window || !blind)
		goto oom;

	/* Per-stream progress, one entry per published stream. */
	size_t ns = 0;
	for (size_t s = 0; s < m->stream_count; s++)
		ns += m->streams[s].seq != 0;
	d->streams = calloc(ns ? ns : 1, sizeof(*d->streams));
	if (!d->streams)
		goto oom;
	if (order_launches(m, lb, c.order))
		goto oom;
	size_t k = 0;
	for (size_t s = 0; s < m->stream_count; s++) {
		while (k < nl && ci_brief_at(lb, c.order[k])->stream < s)
			k++; /* launches on unpublished or unknown streams stay unknown */
		size_t begin = k;
		while (k < nl && ci_brief_at(lb, c.order[k])->stream == s)
			k++;
		if (m->streams[s].seq == 0)
			continue;
		struct ci_stream_progress *p = &d->streams[d->stream_count++];
		p->stream = (uint32_t)s;
		classify_stream(&c, p, begin, k);
		/* Streams without breadcrumbs: their newest launch is a (weak) suspect. */
		uint64_t crumb;
		if (!stream_crumb(m, &m->streams[s], &crumb)) {
			ptrdiff_t newest = -1;
			for (size_t j = begin; j < k; j++)
				if (launch_enqueued(ci_brief_at(lb, c.order[j])->flags))
					newest = (ptrdiff_t)c.order[j];
			if (newest >= 0)
				blind[n_blind++] = (size_t)newest;
		}
	}
	for (size_t i = 0; i < nl; i++) {
		if (d->launch_state[i] == CI_LS_IN_FLIGHT)
			in_flight[n_in_flight++] = i;
		else if (c.window[i])
			window[n_window++] = i;
	}

	find_errors(m, d);
	find_signal(m, info, d);
	for (size_t i = nl; i-- > 0;)
		if (ci_brief_at(lb, i)->flags & CI_LAUNCH_FAILED) {
			d->failed_launch = (ptrdiff_t)i;
			break;
		}

	if (d->first_sticky_error >= 0)
		d->verdict = CI_VERDICT_DEVICE_FAULT;
	else if (d->last_error >= 0)
		d->verdict = CI_VERDICT_API_ERROR;
	else if (n_in_flight || n_window)
		d->verdict = CI_VERDICT_PENDING;
	else
		d->verdict = CI_VERDICT_NONE;
	if (d->verdict != CI_VERDICT_API_ERROR)
		d->failed_launch = -1;

	/* Attribute the arguments of every suspect launch (bounded), newest suspects last. */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < m->alloc_count + m->free_count; i++) {
		struct ci_alloc_brief b = i < m->alloc_count ? live_brief(m, i)
							     : alloc_brief(&m->frees[i - m->alloc_count]);
		if (alloc_has_range(&b)) {
			if (b.address < lo)
				lo = b.address;
			if (alloc_end(&b) > hi)
				hi = alloc_end(&b);
		}
	}
	size_t budget = ATTRIBUTED_LAUNCHES_MAX;
	const size_t *lists[3] = { in_flight, window, blind };
	size_t counts[3] = { n_in_flight, n_window, n_blind };
	if (d->verdict != CI_VERDICT_API_ERROR && d->verdict != CI_VERDICT_NONE)
		for (int li = 0; li < 3; li++) {
			if (li == 2 && (n_in_flight || n_window))
				break;
			for (size_t j = 0; j < counts[li] && budget; j++, budget--)
				if (attribute_launch(m, lists[li][j], lo, hi, &av))
					goto oom;
		}

	if (d->verdict == CI_VERDICT_DEVICE_FAULT || d->verdict == CI_VERDICT_PENDING)
		choose_faulting(&c, in_flight, n_in_flight, window, n_window, blind, n_blind, &av,
				&why);
	else if (d->verdict == CI_VERDICT_API_ERROR) {
		const struct ci_api_error *e = &m->errors[d->last_error];
		char api[CI_API_NAME_MAX + 1];
		text_add(&why, "No device fault was recorded (no sticky error). The last error is "
			       "%s from %s", ci_cuda_result_name(e->result),
			 CI_SCRUB_FIELD(e->api, api));
		if (d->failed_launch >= 0) {
			text_add(&why, "; the launch call for ");
			describe_launch(&why, m, (size_t)d->failed_launch);
			text_add(&why, " itself returned %s, so nothing was enqueued.",
				 ci_cuda_result_name(ci_model_launch(m, (size_t)d->failed_launch)->result));
		} else {
			text_add(&why, ".");
		}
	} else {
		text_add(&why, "No CUDA error was recorded and no launch is in flight.");
	}
	if (why.failed)
		goto oom;
	/* Keep the faulting launch's attributions first. */
	if (d->faulting_launch >= 0) {
		size_t w = 0;
		for (size_t j = 0; j < av.n; j++)
			if (av.v[j].launch == (size_t)d->faulting_launch) {
				struct ci_attribution t = av.v[j];
				memmove(&av.v[w + 1], &av.v[w], (j - w) * sizeof(t));
				av.v[w++] = t;
			}
	}
	d->attributions = av.v;
	d->attribution_count = av.n;
	d->reasoning = why.s ? why.s : strdup("");
	free(own);
	free(c.order);
	free(c.window);
	free(in_flight);
	free(window);
	free(blind);
	if (!d->reasoning) {
		ci_diagnosis_destroy(d);
		return nomem();
	}
	*ret = d;
	return NULL;

oom:
	free(own);
	free(c.order);
	free(c.window);
	free(in_flight);
	free(window);
	free(blind);
	free(av.v);
	free(why.s);
	ci_diagnosis_destroy(d);
	return nomem();
}
