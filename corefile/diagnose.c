/* SPDX-License-Identifier: MIT */
/*
 * Stage 4, diagnose: from a decoded record, work out what the GPU was doing.  Per stream, the
 * breadcrumb value (the last per-stream launch sequence number the GPU itself wrote back) splits
 * the recorded launches into finished, in flight, not started and unknown; across streams one
 * launch is chosen as the faulting (or most suspect) one, with the rule that decided and a
 * confidence; pointer-sized arguments of the suspect launches are attributed to live or freed
 * allocations and compared with the same parameter of the kernel's earlier launches (argument
 * history); where the evidence holds the driver's Xid lines, the fault page is attributed too and
 * names the launch (or copy) that can have made the access; and the API error timeline gives the
 * first sticky error and the thread that saw it.  Pure function of the model and its evidence:
 * no I/O, no libdw.  The rules are documented in docs/USAGE.md ("How the faulting launch is
 * chosen") and docs/KERNEL-LOG.md ("How a report uses the lines").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "graphs.h"
#include "kernel-log.h"
#include "model-internal.h"
#include "reader-internal.h"
#include "render-internal.h"

#define CUDA_ERROR_NOT_READY 600
/* Suspect launches whose arguments are attributed, at most (bounds the work on huge rings). */
#define ATTRIBUTED_LAUNCHES_MAX 256
/* A value counts as "near" an allocation when it is closer than this or than its size. */
#define NEAR_BYTES_MIN (1ull << 20)

void ci_diagnosis_destroy(struct ci_diagnosis *diag)
{
	if (!diag)
		return;
	free(diag->launch_state);
	free(diag->streams);
	free(diag->reasoning);
	free(diag->attributions);
	if (diag->graph)
		ci_graph_replay_deinit(diag->graph);
	free(diag->graph);
	for (size_t i = 0; i < diag->evidence_count; i++)
		free(diag->evidence[i].text);
	free(diag->evidence);
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

static void text_deinit(struct text *t)
{
	free(t->s);
}

/* ---------------------------------------------------------------------------------------- */
/* Stream facts                                                                               */

bool ci_stream_valid(const struct ci_model *model, uint32_t slot)
{
	return slot != CI_NONE && slot < model->stream_count && model->streams[slot].seq != 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Per-stream progress                                                                        */

enum { IN_CRUMB_WINDOW = 1, IN_OPEN_WINDOW = 2 };

struct diag_ctx {
	const struct ci_model *model;
	const struct ci_evidence *ev;
	struct ci_diagnosis *diag;
	struct ci_launch_briefs lb; /* what is read of every launch, parallel to the model's */
	size_t *order;      /* launch indices sorted by (stream, stream_seq, time) */
	uint8_t *window;    /* IN_CRUMB_WINDOW: between two breadcrumbs, one of them in flight;
			     * IN_OPEN_WINDOW: made since the stream's work was last known done */
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
 * is almost always the stream order already, so only out-of-order streams are sorted. */
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

/* Whether the launch took part in stream order: a failed call enqueued nothing, a captured
 * launch went into a graph and runs later as part of a graph launch. */
static bool launch_enqueued(uint32_t flags)
{
	return !(flags & (CI_LAUNCH_FAILED | CI_LAUNCH_CAPTURED));
}

/* Whether launch L has one of its stream's numbers 1..launched.  One past the stream's counter
 * cannot be in a core (the number is handed out before the launch is recorded): it is damage,
 * or in a live read a launch made after the stream table was read, which the diagnosis of what
 * the table says does not weigh (a sparse decode does not even read it). */
static bool numbered(const struct ci_stream_progress *p, const struct ci_launch_brief *l)
{
	return l->stream_seq != 0 && l->stream_seq <= p->launched;
}

/* The ring seq of launch I (which ring slot it was written to, in claim order). */
static uint64_t ring_seq(const struct diag_ctx *c, size_t i)
{
	const struct ci_launch *l = ci_model_load_launch(c->model, i);
	return l ? l->seq : 0;
}

/* Whether ORDER[K] is a launch the diagnosis weighs: enqueued, with one of its stream's numbers,
 * and, when a damaged record repeats that number, the entry written last (the highest ring seq):
 * the sparse scan reads the ring from its head back, so that is the one it finds. */
static bool weighed(const struct diag_ctx *c, const struct ci_stream_progress *p, size_t begin,
		    size_t k, size_t end)
{
	size_t i = c->order[k];
	const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
	if (!launch_enqueued(l->flags) || !numbered(p, l))
		return false;
	/* Entries with the same number are next to it in ORDER (sorted by number, then time). */
	for (size_t j = k; j > begin; j--) {
		const struct ci_launch_brief *o = ci_brief_at(c->lb, c->order[j - 1]);
		if (o->stream_seq != l->stream_seq)
			break;
		if (launch_enqueued(o->flags) && ring_seq(c, c->order[j - 1]) > ring_seq(c, i))
			return false;
	}
	for (size_t j = k + 1; j < end; j++) {
		const struct ci_launch_brief *o = ci_brief_at(c->lb, c->order[j]);
		if (o->stream_seq != l->stream_seq)
			break;
		if (launch_enqueued(o->flags) && ring_seq(c, c->order[j]) > ring_seq(c, i))
			return false;
	}
	return true;
}

static void oldest_unfinished(struct diag_ctx *c, struct ci_stream_progress *p, size_t begin,
			      size_t end)
{
	for (size_t k = begin; k < end && p->oldest_unfinished < 0; k++) {
		size_t i = c->order[k];
		if (weighed(c, p, begin, k, end) && c->diag->launch_state[i] != CI_LS_FINISHED)
			p->oldest_unfinished = (ptrdiff_t)i;
	}
}

/* A stream without breadcrumbs: what was made before its last synchronization finished; of the
 * rest nothing is known, and the newest CI_OPEN_WINDOW_MAX of them are its window. */
static void classify_open(struct diag_ctx *c, struct ci_stream_progress *p, size_t begin,
			  size_t end)
{
	enum ci_launch_state *state = c->diag->launch_state;
	uint64_t bound = c->ev->streams[p->stream].synced_ns, done = 0;
	size_t open = 0;
	p->synced_ns = bound;
	for (size_t k = begin; k < end; k++) {
		size_t i = c->order[k];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		if (l->flags & CI_LAUNCH_FAILED) {
			state[i] = CI_LS_NOT_STARTED;
		} else if (!weighed(c, p, begin, k, end)) {
			state[i] = CI_LS_UNKNOWN;
		} else if (bound && l->time_ns < bound) {
			state[i] = CI_LS_FINISHED;
			if (l->stream_seq > done)
				done = l->stream_seq;
		} else {
			state[i] = CI_LS_UNKNOWN;
			open++;
		}
	}
	for (size_t k = end; k-- > begin && open;) {
		size_t i = c->order[k];
		if (state[i] == CI_LS_UNKNOWN && weighed(c, p, begin, k, end) &&
		    open-- <= CI_OPEN_WINDOW_MAX)
			c->window[i] = IN_OPEN_WINDOW;
	}
	p->finished = done < p->launched ? done : p->launched;
	p->unknown = p->launched - p->finished;
	oldest_unfinished(c, p, begin, end);
}

/* The stream's last launch known finished: its breadcrumb CRUMB, or past it, the launches made
 * before the start of its last successful synchronization (a synchronize, or a query or event
 * that said the work was done), as long as the ring holds them one after the other.  Breadcrumbs
 * are spent within a budget, so the launches since the last one are often many; an engine's
 * synchronizations close most of them. */
static uint64_t synced_through(const struct diag_ctx *c, const struct ci_stream_progress *p,
			       size_t begin, size_t end, uint64_t crumb)
{
	uint64_t bound = c->ev->streams[p->stream].synced_ns;
	if (!bound)
		return crumb;
	for (size_t k = begin; k < end; k++) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, c->order[k]);
		if (!weighed(c, p, begin, k, end) || l->stream_seq <= crumb)
			continue;
		if (l->stream_seq != crumb + 1 || l->time_ns >= bound)
			break;
		crumb = l->stream_seq;
	}
	return crumb;
}

/* States and counts of one stream's launches, ORDER[BEGIN..END), in stream order.  Counts are
 * over the stream's launch numbers 1..launched, whether the ring still holds them or not:
 * launches up to the breadcrumb finished; the next one is exactly in flight when a breadcrumb
 * write followed it, else the launches up to the next one that carries a breadcrumb are a window
 * of which one is in flight; later ones have not started. */
static void classify_stream(struct diag_ctx *c, struct ci_stream_progress *p, size_t begin,
			    size_t end)
{
	const struct ci_model *m = c->model;
	enum ci_launch_state *state = c->diag->launch_state;
	const struct ci_stream *st = &m->streams[p->stream];
	const struct ci_stream_facts *f = &c->ev->streams[p->stream];
	uint64_t crumb = f->crumb;
	p->launched = st->launches;
	p->oldest_unfinished = -1;
	if (!f->has_crumb) {
		classify_open(c, p, begin, end);
		return;
	}
	p->crumb = crumb;
	crumb = synced_through(c, p, begin, end, crumb);
	p->synced_ns = f->synced_ns;

	uint64_t expect = crumb + 1, window_seq = 0;
	bool exact = false;
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
		if (!weighed(c, p, begin, k, end)) {
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
				window_seq = l->stream_seq;
				exact = true;
				continue;
			}
		}
		if (window_end == end) {
			/* Unknown up to and including the next launch that carries a breadcrumb. */
			state[i] = CI_LS_UNKNOWN;
			c->window[i] = IN_CRUMB_WINDOW;
			if (l->flags & CI_LAUNCH_CRUMB) {
				window_end = k + 1;
				window_seq = l->stream_seq;
			}
		} else {
			state[i] = CI_LS_NOT_STARTED;
		}
	}
	p->finished = crumb;
	if (crumb < p->launched) {
		/* Where the window ends when the ring does not hold its last launch: nothing is
		 * known past the breadcrumb then. */
		uint64_t last = window_seq && window_seq <= p->launched ? window_seq : p->launched;
		if (exact)
			p->in_flight = 1;
		else
			p->unknown = last - crumb;
		p->not_started = p->launched - last;
	}
	oldest_unfinished(c, p, begin, end);
}

/* ---------------------------------------------------------------------------------------- */
/* Pointer attribution                                                                        */

static struct ci_alloc_brief alloc_brief(const struct ci_alloc *a)
{
	return (struct ci_alloc_brief){ a->address, a->size, a->kind };
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

/* Whether V looks like an address rather than a scalar: a canonical user-space value above 4 GiB
 * (where device and UVA pointers live), or anything within reach of a recorded allocation. */
static bool plausible_pointer(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (v < 0x10000 || v >= (1ull << 47))
		return false;
	if (v >= (1ull << 32))
		return true;
	return lo < hi && v + NEAR_BYTES_MIN >= lo && v <= hi + NEAR_BYTES_MIN;
}

/* A live allocation found for an address: the smallest one containing it, the nearest below
 * (largest start <= the address) and the nearest above. */
struct found {
	bool have;
	uint64_t address, size, id, handle;
};

/* Allocations are compared by (address, id), the order in which the decoder sorts them. */
static bool found_after(const struct ci_alloc_ref *r, const struct found *f)
{
	return !f->have || r->address > f->address || (r->address == f->address && r->id > f->id);
}

static void found_set(struct found *f, const struct ci_alloc_ref *r)
{
	*f = (struct found){ true, r->address, r->size, r->id, r->handle };
}

/* One pass over the live allocations answers every address at once (VALS, sorted, unique):
 * no sorted index is needed, so a sparse model reads its table once and sorts nothing. */
struct lookup {
	const uint64_t *vals;
	size_t n;
	struct found *inside;     /* [n] */
	struct found *below_at;   /* [n]: largest start among allocations first >= vals[k] */
	struct found *above_at;   /* [n + 1]: smallest start among those whose first >= is k */
	uint64_t lo, hi;          /* lowest start and highest end of every allocation */
};

static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void lookup_visit(const struct ci_alloc_ref *r, void *arg)
{
	struct lookup *lk = arg;
	struct ci_alloc_brief b = { r->address, r->size, r->kind };
	if (!alloc_has_range(&b))
		return;
	uint64_t end = alloc_end(&b);
	if (b.address < lk->lo)
		lk->lo = b.address;
	if (end > lk->hi)
		lk->hi = end;
	size_t k0 = lower_bound(lk->vals, lk->n, b.address);
	for (size_t k = k0; k < lk->n && lk->vals[k] < end; k++) {
		struct found *f = &lk->inside[k];
		if (!f->have || r->size < f->size || (r->size == f->size && found_after(r, f)))
			found_set(f, r);
	}
	if (k0 < lk->n && found_after(r, &lk->below_at[k0]))
		found_set(&lk->below_at[k0], r);
	struct found *a = &lk->above_at[k0];
	if (k0 > 0 && (!a->have || r->address < a->address ||
		       (r->address == a->address && r->id < a->id)))
		found_set(a, r);
}

/* Attribute address V (vals[K] of LK) to memory. */
static void attribute(const struct ci_model *m, const struct lookup *lk, size_t k,
		      const struct found *below, const struct found *above, struct ci_attribution *a)
{
	uint64_t v = lk->vals[k];
	a->address = v;
	a->relation = CI_REL_UNKNOWN;
	a->alloc = NULL;
	a->offset = 0;
	/* Inside a live allocation; the smallest container wins (a VMM map inside its reserve). */
	const struct ci_alloc *al;
	if (lk->inside[k].have && (al = ci_model_alloc_at(m, lk->inside[k].handle))) {
		a->relation = CI_REL_INSIDE;
		a->alloc = al;
		a->offset = v - lk->inside[k].address;
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
	uint64_t below_end = below->have ? (below->address + below->size < below->address
						    ? UINT64_MAX : below->address + below->size) : 0;
	uint64_t d_after = below->have && v >= below_end ? v - below_end : UINT64_MAX;
	uint64_t d_before = above->have ? above->address - v : UINT64_MAX;
	if (d_after <= d_before && below->have) {
		uint64_t near = below->size > NEAR_BYTES_MIN ? below->size : NEAR_BYTES_MIN;
		if (d_after < near && (al = ci_model_alloc_at(m, below->handle))) {
			a->relation = CI_REL_PAST_END;
			a->alloc = al;
			a->offset = d_after;
		}
	} else if (above->have) {
		uint64_t near = above->size > NEAR_BYTES_MIN ? above->size : NEAR_BYTES_MIN;
		if (d_before < near && (al = ci_model_alloc_at(m, above->handle))) {
			a->relation = CI_REL_BEFORE_START;
			a->alloc = al;
			a->offset = d_before;
		}
	}
}

struct attr_vec {
	struct ci_attribution *v;
	size_t n, cap;
};

static void attr_vec_deinit(struct attr_vec *av)
{
	free(av->v);
}

static int attr_push(struct attr_vec *av, const struct ci_attribution *a)
{
	if (ci_vec_reserve((void **)&av->v, &av->cap, av->n + 1, sizeof(*av->v)))
		return -1;
	av->v[av->n++] = *a;
	return 0;
}

/* Every pointer-sized argument of launch L that could be an address, unattributed yet (the
 * address in `address`, `launch` = TAG).  Returns -1 on out-of-memory. */
static int collect_args_of(const struct ci_model *m, const struct ci_launch *l, size_t i,
			   struct attr_vec *av)
{
	if (!l)
		return 0;
	size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
	const struct ci_function *fn = NULL;
	if (l->function != CI_NONE && l->function < m->function_count &&
	    m->functions[l->function].seq != 0)
		fn = &m->functions[l->function];
	bool layout = fn && fn->params_known;
	uint32_t n = layout ? (fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX)
			    : (uint32_t)(len / 8);
	for (uint32_t k = 0; k < n; k++) {
		size_t off = layout ? fn->param_offset[k] : (size_t)k * 8;
		if ((layout && fn->param_size[k] != 8) || off + 8 > len)
			continue;
		uint64_t v = ci_le64(l->params + off);
		if (v < 0x10000 || v >= (1ull << 47))
			continue;
		struct ci_attribution a = { .launch = i, .arg = k, .param_offset = (uint32_t)off,
					    .address = v };
		if (attr_push(av, &a))
			return -1;
	}
	return 0;
}

static int collect_args(const struct ci_model *m, size_t i, struct attr_vec *av)
{
	return collect_args_of(m, ci_model_load_launch(m, i), i, av);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Attribute the collected arguments: one pass over the live allocations for all of them, then
 * the frees.  Values that turn out not to be plausible pointers are dropped. */
static int attribute_all(const struct ci_model *m, struct attr_vec *av, struct attr_vec *hv,
			 struct attr_vec *xv)
{
	/* The Xid pages are attributed with the history values (after them in HV). */
	size_t n_hist = hv->n;
	for (size_t i = 0; i < xv->n; i++)
		if (attr_push(hv, &xv->v[i]))
			return -1;
	size_t n = av->n, nh = hv->n;
	if (!n && !nh)
		return 0;
	uint64_t *vals = malloc((n + nh) * sizeof(*vals));
	struct found *f = calloc(3 * (n + nh) + 1, sizeof(*f));
	uint32_t *remap = malloc((n ? n : 1) * sizeof(*remap));
	if (!vals || !f || !remap) {
		free(vals);
		free(f);
		free(remap);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		vals[i] = av->v[i].address;
	for (size_t i = 0; i < nh; i++)
		vals[n + i] = hv->v[i].address;
	qsort(vals, n + nh, sizeof(*vals), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < n + nh; i++)
		if (!u || vals[i] != vals[u - 1])
			vals[u++] = vals[i];
	struct lookup lk = { vals, u, f, f + u, f + 2 * u, UINT64_MAX, 0 };
	ci_model_each_alloc(m, lookup_visit, &lk);
	for (size_t j = 0; j < m->free_count; j++) {
		struct ci_alloc_brief b = alloc_brief(&m->frees[j]);
		if (alloc_has_range(&b)) {
			if (b.address < lk.lo)
				lk.lo = b.address;
			if (alloc_end(&b) > lk.hi)
				lk.hi = alloc_end(&b);
		}
	}
	/* below[k]: the largest start <= vals[k] (a prefix maximum); above[k]: the smallest
	 * start > vals[k] (a suffix minimum over the allocations whose first >= is past k). */
	for (size_t k = 1; k < u; k++)
		if (lk.below_at[k - 1].have &&
		    (!lk.below_at[k].have || lk.below_at[k - 1].address > lk.below_at[k].address ||
		     (lk.below_at[k - 1].address == lk.below_at[k].address &&
		      lk.below_at[k - 1].id > lk.below_at[k].id)))
			lk.below_at[k] = lk.below_at[k - 1];
	for (size_t k = u; k > 0; k--)
		if (lk.above_at[k].have &&
		    (!lk.above_at[k - 1].have || lk.above_at[k].address < lk.above_at[k - 1].address ||
		     (lk.above_at[k].address == lk.above_at[k - 1].address &&
		      lk.above_at[k].id < lk.above_at[k - 1].id)))
			lk.above_at[k - 1] = lk.above_at[k];
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		struct ci_attribution a = av->v[i];
		/* History values name their suspect's index, which moves as values are dropped. */
		bool keep = plausible_pointer(a.address, lk.lo, lk.hi);
		remap[i] = keep ? (uint32_t)w : UINT32_MAX;
		if (!keep)
			continue;
		size_t k = lower_bound(vals, u, a.address);
		attribute(m, &lk, k, &lk.below_at[k], &lk.above_at[k + 1], &a);
		av->v[w++] = a;
	}
	av->n = w;
	for (size_t j = 0; j < n_hist; j++)
		hv->v[j].arg = hv->v[j].arg < n ? remap[hv->v[j].arg] : UINT32_MAX;
	free(remap);
	/* The earlier launches' values are attributed as they are (kept in place: the history
	 * refers to them by index). */
	for (size_t i = 0; i < nh; i++) {
		struct ci_attribution *a = &hv->v[i];
		size_t k = lower_bound(vals, u, a->address);
		if (i >= n_hist || plausible_pointer(a->address, lk.lo, lk.hi))
			attribute(m, &lk, k, &lk.below_at[k], &lk.above_at[k + 1], a);
		else
			a->relation = CI_REL_UNKNOWN;
	}
	for (size_t i = 0; i < xv->n; i++)
		xv->v[i] = hv->v[n_hist + i];
	hv->n = n_hist;
	free(vals);
	free(f);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Argument history                                                                           */

/* The function a launch ran, as a key: its table slot, else the handle it was passed (0:
 * neither is known). */
static uint64_t function_key(const struct ci_launch *l)
{
	return l->function != CI_NONE ? (uint64_t)l->function + 1 : l->function_handle ? l->function_handle | (1ull << 63) : 0;
}

/* Whether ring seq SEQ is one of the newest CI_HISTORY_RING of the launch ring. */
static bool in_history_window(const struct ci_model *m, uint64_t seq)
{
	uint64_t head = m->sections[CI_SEC_LAUNCHES].head;
	return head <= CI_HISTORY_RING || seq + CI_HISTORY_RING > head;
}

/* For every suspect argument of AV, the same parameter of the earlier launches of the same
 * function (in the history window, newest first, at most CI_HISTORY_MAX): pushed to HV with
 * `launch` the earlier launch and `arg` the index of the suspect's attribution in AV.  The
 * launches are visited from the newest back, at most 4 * CI_HISTORY_RING of them, so the work
 * is bounded whatever the ring holds. */
static int collect_history(const struct ci_model *m, const struct attr_vec *av, struct attr_vec *hv)
{
	size_t n = av->n;
	if (!n)
		return 0;
	uint32_t *taken = calloc(n, sizeof(*taken));
	uint64_t *fn = malloc(n * sizeof(*fn)), *seq = malloc(n * sizeof(*seq));
	if (!taken || !fn || !seq)
		goto fail;
	for (size_t k = 0; k < n; k++) {
		const struct ci_launch *s = ci_model_load_launch(m, av->v[k].launch);
		fn[k] = s ? function_key(s) : 0;
		seq[k] = s ? s->seq : 0;
	}
	size_t visited = 0, open = n;
	for (size_t i = m->launch_count; i-- > 0 && open && visited < 4 * CI_HISTORY_RING;) {
		const struct ci_launch *l = ci_model_load_launch(m, i);
		visited++;
		uint64_t key = l ? function_key(l) : 0;
		if (!key || (l->flags & CI_LAUNCH_FAILED) || !in_history_window(m, l->seq))
			continue;
		size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
		for (size_t k = 0; k < n; k++) {
			const struct ci_attribution *a = &av->v[k];
			if (fn[k] != key || taken[k] >= CI_HISTORY_MAX || l->seq >= seq[k] ||
			    (size_t)a->param_offset + 8 > len)
				continue;
			struct ci_attribution h = { .launch = i, .arg = (uint32_t)k,
						    .param_offset = a->param_offset,
						    .address = ci_le64(l->params + a->param_offset) };
			if (attr_push(hv, &h))
				goto fail;
			if (++taken[k] == CI_HISTORY_MAX)
				open--;
		}
	}
	free(taken);
	free(fn);
	free(seq);
	return 0;
fail:
	free(taken);
	free(fn);
	free(seq);
	return -1;
}

/* Whether the earlier launch behind history value H used allocation A while A was live. */
static bool used_live(const struct ci_model *m, const struct ci_attribution *h)
{
	if (!h->alloc || (h->relation != CI_REL_INSIDE && h->relation != CI_REL_FREED))
		return false;
	if (h->relation == CI_REL_INSIDE)
		return true;
	const struct ci_launch *l = ci_model_load_launch(m, h->launch);
	return l && l->time_ns >= h->alloc->time_ns && l->time_ns < h->alloc->free_ns;
}

/* Compare every suspect argument with its history (HV, attributed): where the earlier
 * launches used one allocation A and this value lies outside it, near its end or start, the
 * attribution becomes relative to A (history LEFT) with where it lies otherwise as the
 * neighbour; where A was freed before this launch, FREED_SINCE; where it is still in A, SAME. */
static int apply_history(const struct ci_model *m, struct attr_vec *av, const struct attr_vec *hv)
{
	/* HV's entries by the suspect argument they belong to, newest first within each. */
	size_t *start = calloc(av->n + 1, sizeof(*start)), *by = malloc((hv->n + 1) * sizeof(*by));
	if (!start || !by) {
		free(start);
		free(by);
		return -1;
	}
	for (size_t j = 0; j < hv->n; j++)
		if (hv->v[j].arg < av->n)
			start[hv->v[j].arg + 1]++;
	for (size_t k = 0; k < av->n; k++)
		start[k + 1] += start[k];
	for (size_t j = 0, *fill = start; j < hv->n; j++)
		if (hv->v[j].arg < av->n)
			by[fill[hv->v[j].arg]++] = j;
	/* start[k] is now the end of argument k's entries. */
	for (size_t k = 0, b = 0; k < av->n; b = start[k], k++) {
		struct ci_attribution *a = &av->v[k];
		size_t e = start[k];
		uint32_t n = (uint32_t)(e - b), inside = 0;
		if (!n || !used_live(m, &hv->v[by[b]]))
			continue;
		const struct ci_alloc *A = hv->v[by[b]].alloc;
		for (size_t j = b; j < e; j++)
			inside += used_live(m, &hv->v[by[j]]) && hv->v[by[j]].alloc->id == A->id;
		a->history_launches = n;
		a->history_inside = inside;
		a->history_alloc = A;
		const struct ci_launch *l = ci_model_load_launch(m, a->launch);
		if (a->alloc && a->alloc->id == A->id) {
			bool freed = a->relation == CI_REL_FREED && l && A->free_ns && l->time_ns >= A->free_ns;
			a->history = freed && inside ? CI_HISTORY_FREED_SINCE : CI_HISTORY_SAME;
			continue;
		}
		/* Every earlier launch used A (two at least where the value is in another live
		 * allocation: one launch is no pattern), and the value is near A. */
		if (inside != n || (n < 2 && a->relation == CI_REL_INSIDE) || !A->size)
			continue;
		uint64_t end = A->address + A->size < A->address ? UINT64_MAX : A->address + A->size;
		uint64_t near = A->size > NEAR_BYTES_MIN ? A->size : NEAR_BYTES_MIN;
		enum ci_relation rel;
		uint64_t off;
		if (a->address >= end) {
			rel = CI_REL_PAST_END;
			off = a->address - end;
		} else if (a->address < A->address) {
			rel = CI_REL_BEFORE_START;
			off = A->address - a->address;
		} else {
			continue; /* inside A's range but attributed elsewhere: a smaller one inside it */
		}
		if (off >= near)
			continue;
		a->neighbour_relation = a->relation;
		a->neighbour = a->alloc;
		a->neighbour_offset = a->offset;
		a->relation = rel;
		a->alloc = A;
		a->offset = off;
		a->history = CI_HISTORY_LEFT;
	}
	free(start);
	free(by);
	return 0;
}

static bool launch_left_history(const struct attr_vec *av, size_t i)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == i && (av->v[k].history == CI_HISTORY_LEFT ||
					     av->v[k].history == CI_HISTORY_FREED_SINCE))
			return true;
	return false;
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

/* ---------------------------------------------------------------------------------------- */
/* What the record lost                                                                       */

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

/* Say what the record lost that bears on the choice of the faulting launch, and cap the
 * confidence accordingly: entries the recorder could not store (a full table, a contended
 * ring) or that the input does not hold.  POINTER_RULE: bad pointers decided. */
static void record_losses(const struct ci_model *m, struct ci_diagnosis *d, bool pointer_rule,
			  struct text *why)
{
	static const uint32_t tables[] = {
		CI_SEC_ALLOCS, CI_SEC_LAUNCHES, CI_SEC_STREAMS, CI_SEC_FUNCTIONS, CI_SEC_CONTEXTS,
	};
	enum ci_confidence cap = CI_CONF_EXACT;
	bool said = false;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct ci_section_stats *s = &m->sections[tables[i]];
		if (!s->present || (!s->dropped && !s->missing))
			continue;
		char n[32];
		text_add(why, "%s%s %s were not recorded%s", said ? "; " : " The record is incomplete: ",
			 ci_fmt_count(s->dropped ? s->dropped : s->missing, n, sizeof(n)),
			 ci_section_title(tables[i]),
			 s->dropped ? (tables[i] == CI_SEC_LAUNCHES ? " (the ring was contended)"
								: " (the table was full)")
				    : " (not in the input)");
		said = true;
		enum ci_confidence c = tables[i] == CI_SEC_ALLOCS && pointer_rule ? CI_CONF_LOW
										   : CI_CONF_MEDIUM;
		if (c < cap)
			cap = c;
	}
	if (!said && (m->header.flags & CI_HDR_TRUNCATED)) {
		text_add(why, " The record is incomplete: the recorder says some table was full");
		said = true;
		cap = CI_CONF_MEDIUM;
	}
	if (!said)
		return;
	if (d->faulting_launch >= 0 && d->confidence > cap) {
		d->confidence = cap;
		text_add(why, ", so the confidence is at most %s.", ci_confidence_name(cap));
	} else {
		text_add(why, ".");
	}
}

/* ---------------------------------------------------------------------------------------- */
/* A faulting graph launch: the kernel node                                                    */

#define GRAPH_ATTRIBUTED_NODES_MAX 64
#define GRAPH_SUSPECTS_MAX 8 /* suspect graph launches whose nodes the Xid rule weighs */

static bool launch_refers_to(const struct attr_vec *av, size_t launch, uint64_t id);

/* Before the driver's word is weighed (xid_rule): the arguments of the kernel nodes of the
 * suspect graph launches, as the graph launches' own (tagged with their index), so that a
 * kernel log's fault page can name a graph launch; graph_fault keeps only the faulting node's. */
static int graph_suspect_args(const struct ci_model *m, const struct ci_diagnosis *d, const size_t *cand,
			      size_t n_cand, struct attr_vec *av)
{
	struct attr_vec gv = { 0 }, no_hist = { 0 }, no_xid = { 0 };
	size_t graphs = 0;
	int fail = 0;
	for (size_t k = 0; k < n_cand && graphs < GRAPH_SUSPECTS_MAX && !fail; k++) {
		const struct ci_launch *l = ci_model_load_launch(m, cand[k]);
		struct ci_graph_replay r;
		if (!l || l->api != CI_LAUNCH_GRAPH ||
		    !ci_graph_replay_expand(m, cand[k], d->launch_state[cand[k]], &r))
			continue;
		graphs++;
		for (size_t i = 0, n = 0; i < r.node_count && n < GRAPH_ATTRIBUTED_NODES_MAX && !fail; i++) {
			const struct ci_graph_node *e = r.nodes[i].node;
			if (!e || e->type != CI_NODE_KERNEL || (e->flags & CI_NODE_DISABLED))
				continue;
			n++;
			ci_graph_replay_pick(m, &r, i);
			fail = collect_args_of(m, &r.kernel, cand[k], &gv);
		}
		ci_graph_replay_deinit(&r);
	}
	if (!fail)
		fail = attribute_all(m, &gv, &no_hist, &no_xid);
	for (size_t k = 0; !fail && k < gv.n; k++)
		fail = attr_push(av, &gv.v[k]);
	attr_vec_deinit(&gv);
	attr_vec_deinit(&no_hist);
	attr_vec_deinit(&no_xid);
	return fail;
}

/* The faulting node's name ("7", or "3.0 (node 0 of the graph child-graph node 3 runs)"). */
static const char *node_name(const struct ci_graph_replay *g, char *buf, size_t size)
{
	char where[160];
	ci_graph_replay_node_name(g, (size_t)g->faulting_node, buf, size);
	if (*ci_graph_replay_node_where(g, (size_t)g->faulting_node, where, sizeof where)) {
		size_t k = strlen(buf);
		snprintf(buf + k, size - k, " (%s)", where);
	}
	return buf;
}

/* The faulting launch is a cuGraphLaunch: expand it (corefile/graphs.c), name the kernel node
 * the in-graph breadcrumb or the graph's shape leaves, else the only one (or oldest) passing a
 * bad pointer, and attribute that node's arguments as the faulting launch's. */
static int graph_fault(const struct ci_model *m, const struct ci_evidence *ev, struct ci_diagnosis *d,
		       struct attr_vec *av, struct text *why)
{
	size_t fl = (size_t)d->faulting_launch;
	const struct ci_launch *l = ci_model_load_launch(m, fl);
	if (!l || l->api != CI_LAUNCH_GRAPH)
		return 0;
	struct ci_graph_replay *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	if (!ci_graph_replay_expand(m, fl, d->launch_state[fl], g)) {
		free(g);
		text_add(why, " It is a graph launch (exec 0x%llx) that the record has no graph "
			      "tables for (a recorder before format 1.1, or the exec was made before "
			      "the recorder started), so its kernels are not known.",
			 (unsigned long long)l->aux);
		return 0;
	}
	d->graph = g;
	/* The arguments of the candidate kernel nodes, tagged by node index. */
	struct attr_vec nav = { 0 };
	size_t cands = 0;
	for (size_t i = 0; i < g->node_count && cands < GRAPH_ATTRIBUTED_NODES_MAX; i++) {
		const struct ci_graph_node *e = g->nodes[i].node;
		if (!e || e->type != CI_NODE_KERNEL || (e->flags & CI_NODE_DISABLED))
			continue;
		if (g->faulting_node >= 0 && (size_t)g->faulting_node != i)
			continue;
		if (g->faulting_node < 0 && g->nodes[i].state != CI_LS_UNKNOWN &&
		    g->nodes[i].state != CI_LS_IN_FLIGHT)
			continue;
		struct ci_graph_replay tmp = *g;
		ci_graph_replay_pick(m, &tmp, i);
		cands++;
		if (collect_args_of(m, &tmp.kernel, i, &nav)) {
			attr_vec_deinit(&nav);
			return -1;
		}
	}
	struct attr_vec no_hist = { 0 }, no_xid = { 0 };
	int fail = attribute_all(m, &nav, &no_hist, &no_xid);
	attr_vec_deinit(&no_hist);
	attr_vec_deinit(&no_xid);
	if (fail) {
		attr_vec_deinit(&nav);
		return -1;
	}
	char name[1024], nn[256];
	/* The driver's word: a kernel log's fault page (a kernel's access) names the nodes that
	 * pass a pointer into or next to its allocation. */
	bool by_xid = false;
	const struct ci_alloc *A = d->xid >= 0 ? d->xid_page.alloc : NULL;
	if (A && ev->kernel_log && (size_t)d->xid < ev->kernel_log->count &&
	    ev->kernel_log->items[d->xid].mmu.unit == CI_XID_UNIT_COPY)
		A = NULL;
	if (A && g->faulting_node < 0) {
		size_t n = 0;
		ptrdiff_t first = -1;
		for (size_t i = 0; i < g->node_count; i++)
			if (g->nodes[i].node && g->nodes[i].node->type == CI_NODE_KERNEL &&
			    launch_refers_to(&nav, i, A->id)) {
				n++;
				if (first < 0)
					first = (ptrdiff_t)i;
			}
		if (first >= 0) {
			ci_graph_replay_pick(m, g, (size_t)first);
			by_xid = true;
			if (n > 1 && d->confidence > CI_CONF_MEDIUM)
				d->confidence = CI_CONF_MEDIUM;
			text_add(why, " It is replay %llu of a graph; of its %zu kernel node%s, %s %s (node "
				      "%s) passes a pointer into or next to #%llu, where the kernel log's "
				      "fault page lies.",
				 (unsigned long long)g->replay, g->kernel_count, g->kernel_count == 1 ? "" : "s",
				 n == 1 ? "only" : "the first of those that do,",
				 ci_launch_kernel_name(m, &g->kernel, name, sizeof(name)), node_name(g, nn, sizeof nn),
				 (unsigned long long)A->id);
		}
	}
	if (g->faulting_node < 0) {
		/* Nodes passing a bad pointer: nav's tags are node indices, ascending (collected
		 * node by node; attribute_all keeps the order). */
		size_t bad = 0;
		ptrdiff_t first_bad = -1, last_counted = -1;
		for (size_t k = 0; k < nav.n; k++) {
			ptrdiff_t i = (ptrdiff_t)nav.v[k].launch;
			if (nav.v[k].relation == CI_REL_INSIDE || i == last_counted)
				continue;
			bad++;
			last_counted = i;
			if (first_bad < 0)
				first_bad = i;
		}
		if (first_bad >= 0) {
			ci_graph_replay_pick(m, g, (size_t)first_bad);
			if (bad > 1 && d->confidence > CI_CONF_LOW)
				d->confidence = CI_CONF_LOW;
			text_add(why, " It is replay %llu of a graph; of its %zu kernel node%s %s %s, "
				      "node %s, passes a pointer outside every live allocation%s.",
				 (unsigned long long)g->replay, g->kernel_count,
				 g->kernel_count == 1 ? "" : "s", bad == 1 ? "only" : "the first of those that",
				 ci_launch_kernel_name(m, &g->kernel, name, sizeof(name)), node_name(g, nn, sizeof nn),
				 bad == 1 ? "" : " (others do too)");
		} else {
			text_add(why, " It is replay %llu of a graph with %zu kernel node%s; %s, and none "
				      "passes a bad pointer, so the kernel that faulted is not known.",
				 (unsigned long long)g->replay, g->kernel_count,
				 g->kernel_count == 1 ? "" : "s",
				 g->crumb ? "its in-graph breadcrumb does not single one out"
					  : "the graph has no in-graph breadcrumb (built explicitly, "
					    "or CUDAINSPECT_GRAPH_CRUMBS=off)");
		}
	} else if (by_xid) {
		/* said above */
	} else if (g->crumb) {
		text_add(why, " It is replay %llu of a graph: its in-graph breadcrumb reads %llu, so "
			      "the kernel nodes up to node %llu finished and node %s, %s, was running.",
			 (unsigned long long)g->replay, (unsigned long long)g->crumb_value,
			 (unsigned long long)(g->crumb_value ? g->crumb_value - 1 : 0), node_name(g, nn, sizeof nn),
			 ci_launch_kernel_name(m, &g->kernel, name, sizeof(name)));
		if (!g->crumb_value)
			text_add(why, " (The breadcrumb is 0: no kernel of this replay had finished.)");
	} else {
		text_add(why, " It is replay %llu of a graph whose only kernel node is node %s, %s.",
			 (unsigned long long)g->replay, node_name(g, nn, sizeof nn),
			 ci_launch_kernel_name(m, &g->kernel, name, sizeof(name)));
	}
	/* The faulting node's arguments are the faulting launch's. */
	for (size_t j = 0; j < nav.n; j++)
		if (g->faulting_node >= 0 && nav.v[j].launch == (size_t)g->faulting_node) {
			struct ci_attribution a = nav.v[j];
			a.launch = fl;
			if (attr_push(av, &a)) {
				attr_vec_deinit(&nav);
				return -1;
			}
		}
	attr_vec_deinit(&nav);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The faulting launch                                                                        */

static void describe_launch(struct text *t, const struct ci_model *m, size_t i)
{
	char name[1024], stream[96];
	const struct ci_launch *l = ci_model_load_launch(m, i);
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

/* The candidates of the open windows (streams without breadcrumbs) when no bad pointer
 * decides: per stream, the oldest launch made since its last synchronization (it had started;
 * those behind it may not have), or the newest when nothing bounds the window; then the oldest
 * of those. */
static ptrdiff_t open_pick(const struct diag_ctx *c, const size_t *open, size_t n)
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

/* The candidates' pool when they all lie on one stream: "launches 91-110 of its stream may or
 * may not have run; 90 had finished (its breadcrumb)".  Breadcrumbs are spent within a budget,
 * so one bounds a range of launches; the stream's last synchronization may close more of it. */
static bool window_pool(const struct diag_ctx *c, const size_t *cand, size_t n, char *pool,
			size_t len)
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
		return false;
	if (lo == hi)
		snprintf(pool, len, "Launch %llu of its stream may or may not have run", (unsigned long long)lo);
	else
		snprintf(pool, len, "Launches %llu-%llu of its stream (%zu here) may or may not have run",
			 (unsigned long long)lo, (unsigned long long)hi, n);
	size_t used = strlen(pool);
	if (p->finished && used < len)
		snprintf(pool + used, len - used, "; %llu had finished (%s)",
			 (unsigned long long)p->finished,
			 p->finished > p->crumb ? "its last synchronization" : "its breadcrumb");
	return true;
}

static void choose_faulting(struct diag_ctx *c, const size_t *in_flight, size_t n_in_flight,
			    const size_t *window, size_t n_window, const size_t *open,
			    size_t n_open, const struct attr_vec *av, struct text *why)
{
	struct ci_diagnosis *d = c->diag;
	bool pointer_rule = false;
	if (n_in_flight == 1 && n_window == 0) {
		size_t i = in_flight[0];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		d->faulting_launch = (ptrdiff_t)i;
		d->confidence = CI_CONF_HIGH;
		text_add(why, "Rule: the only launch in flight. Its stream's breadcrumb reads %llu: "
			      "every launch up to that one finished, and the breadcrumb enqueued right "
			      "after this one never arrived. No other stream has work in flight.",
			 (unsigned long long)(l->stream_seq - 1));
		if (n_open)
			text_add(why, " (%zu launches on streams without breadcrumbs cannot be "
				      "placed.)", n_open);
		record_losses(c->model, d, false, why);
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
	bool open_only = false;
	if (n == 0) {
		cand = open;
		n = n_open;
		open_only = true;
	}
	if (n == 0) {
		free(merged);
		if (d->verdict == CI_VERDICT_DEVICE_FAULT)
			text_add(why, "Every recorded launch finished according to the breadcrumbs, so "
				      "no launch can be named: the fault may come from a memory "
				      "operation, a graph, or launches the recorder did not see.");
		record_losses(c->model, d, false, why);
		return;
	}

	size_t n_bad = 0, streams = 0, n_hist = 0;
	ptrdiff_t bad_oldest = -1, hist_oldest = -1;
	for (size_t k = 0; k < n; k++) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, cand[k]);
		bool first_of_stream = true;
		for (size_t j = 0; j < k && first_of_stream; j++)
			first_of_stream = ci_brief_at(c->lb, cand[j])->stream != l->stream;
		streams += first_of_stream;
		if (launch_left_history(av, cand[k])) {
			n_hist++;
			if (hist_oldest < 0 || l->time_ns < ci_brief_at(c->lb, hist_oldest)->time_ns)
				hist_oldest = (ptrdiff_t)cand[k];
		}
		if (launch_has_bad_pointer(av, cand[k])) {
			n_bad++;
			if (bad_oldest < 0 || l->time_ns < ci_brief_at(c->lb, bad_oldest)->time_ns)
				bad_oldest = (ptrdiff_t)cand[k];
		}
	}

	char pool[320];
	if (open_only)
		snprintf(pool, sizeof(pool), "Breadcrumbs are off, so every launch made since its "
			 "stream's last successful synchronization (at most the newest %d of a stream) "
			 "may be the one: %zu launch%s on %zu stream%s", CI_OPEN_WINDOW_MAX, n,
			 n == 1 ? "" : "es", streams, streams == 1 ? "" : "s");
	else if (n_window && streams == 1 && window_pool(c, cand, n, pool, sizeof(pool)))
		;
	else
		snprintf(pool, sizeof(pool), "%zu launch%s %s", n, n == 1 ? "" : "es",
			 n_window ? "may have been in flight" : "were in flight");
	if (n_hist) {
		d->faulting_launch = hist_oldest;
		d->confidence = n_hist == 1 && !open_only ? CI_CONF_MEDIUM : CI_CONF_LOW;
		pointer_rule = true;
		if (n_hist == 1)
			text_add(why, "Rule: argument history. %s; only this one passes a pointer outside "
				      "the allocation its kernel's earlier launches used there.", pool);
		else
			text_add(why, "Rule: argument history, the oldest. %s; %zu of them pass a pointer "
				      "outside the allocation their kernel's earlier launches used there, and "
				      "this is the oldest of those.", pool, n_hist);
	} else if (n_bad == 1) {
		d->faulting_launch = bad_oldest;
		d->confidence = open_only ? CI_CONF_LOW : CI_CONF_MEDIUM;
		pointer_rule = true;
		text_add(why, "Rule: the only suspect with a bad pointer. %s; only this one passes a "
			      "pointer outside every live allocation.", pool);
	} else if (n_bad > 1) {
		d->faulting_launch = bad_oldest;
		d->confidence = CI_CONF_LOW;
		pointer_rule = true;
		text_add(why, "Rule: the oldest suspect with a bad pointer. %s; %zu of them pass "
			      "pointers outside every live allocation, and this is the oldest of those.",
			 pool, n_bad);
	} else if (open_only) {
		d->faulting_launch = open_pick(c, cand, n);
		d->confidence = CI_CONF_LOW;
		text_add(why, "Rule: no suspect passes a bad pointer. %s; this is the oldest launch "
			      "made since its stream's last synchronization (the newest, where there "
			      "was none), but any of them may be the one.", pool);
	} else {
		ptrdiff_t o = n_in_flight ? oldest_of(c->lb, in_flight, n_in_flight) : oldest_of(c->lb, cand, n);
		d->faulting_launch = o;
		d->confidence = CI_CONF_LOW;
		text_add(why, "Rule: the oldest launch in flight. %s and none passes a pointer "
			      "outside the live allocations; this is the oldest, but any of them may be "
			      "the one.", pool);
	}

	record_losses(c->model, d, pointer_rule, why);
	free(merged);
}

/* ---------------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------------- */
/* Evidence items and the driver's fault address                                              */

struct item_vec {
	struct ci_evidence_item *v;
	size_t n, cap;
	bool failed;
};

static void item_vec_deinit(struct item_vec *iv)
{
	for (size_t i = 0; i < iv->n; i++)
		free(iv->v[i].text);
	free(iv->v);
}

__attribute__((format(printf, 3, 4)))
static struct ci_evidence_item *item_add(struct item_vec *iv, enum ci_evidence_kind kind,
					 const char *fmt, ...)
{
	if (iv->failed || ci_vec_reserve((void **)&iv->v, &iv->cap, iv->n + 1, sizeof(*iv->v))) {
		iv->failed = true;
		return NULL;
	}
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	int r = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (r < 0) {
		iv->failed = true;
		return NULL;
	}
	struct ci_evidence_item *it = &iv->v[iv->n++];
	*it = (struct ci_evidence_item){ .kind = kind, .text = text, .launch = -1, .event = -1,
					 .xid = -1 };
	return it;
}

/* Xid 31 lines whose page the diagnosis attributes, at most. */
#define XID_PAGES_MAX 16
/* Below this an address is a NULL pointer plus an offset. */
#define NULL_PAGE_END 0x10000ull

/* The Xid 31 lines that belong to the process and carry an address: their page's first and
 * last byte go to XV (launch = the line's index), to be attributed with the arguments. */
static int collect_xid_pages(const struct ci_evidence *ev, struct attr_vec *xv)
{
	const struct ci_klog *log = ev->kernel_log;
	size_t pages = 0;
	for (size_t i = 0; log && i < log->count && pages < XID_PAGES_MAX; i++) {
		const struct ci_xid *x = &log->items[i];
		if (!ev->kernel_log_match[i].belongs || x->xid != 31 || !x->mmu.has_address ||
		    (x->flags & CI_XID_DUPLICATE))
			continue;
		uint64_t page = x->mmu.address & ~0xfffull;
		struct ci_attribution a = { .launch = i, .address = page };
		if (attr_push(xv, &a))
			return -1;
		a.address = page + 0xfff;
		if (attr_push(xv, &a))
			return -1;
		pages++;
	}
	return 0;
}

/* Where the page of Xid line I lies, from its two attributed bytes in XV. */
static bool xid_page_of(const struct attr_vec *xv, size_t i, struct ci_attribution *ret)
{
	const struct ci_attribution *first = NULL, *last = NULL;
	for (size_t k = 0; k < xv->n; k++)
		if (xv->v[k].launch == i) {
			if (!first)
				first = &xv->v[k];
			else
				last = &xv->v[k];
		}
	if (!first || !last)
		return false;
	*ret = *first;
	/* A page that holds the start of an allocation overlaps it: "inside" that one. */
	if (first->relation != CI_REL_INSIDE && first->relation != CI_REL_FREED &&
	    (last->relation == CI_REL_INSIDE || last->relation == CI_REL_FREED)) {
		*ret = *last;
		ret->address = first->address;
		ret->offset = 0;
	}
	return true;
}

/* "64 bytes past the end of #2 (256.0 KiB)", "the NULL page", ... */
static void page_relation_text(const struct ci_attribution *p, char *buf, size_t n)
{
	char off[48], size[32];
	const struct ci_alloc *al = p->alloc;
	if (p->address < NULL_PAGE_END) {
		snprintf(buf, n, "the NULL page (a NULL pointer plus an offset)");
		return;
	}
	if (!al) {
		snprintf(buf, n, "in no recorded allocation, live or recently freed");
		return;
	}
	ci_fmt_size(al->size, size, sizeof size);
	ci_fmt_count(p->offset, off, sizeof off);
	switch (p->relation) {
	case CI_REL_INSIDE:
		snprintf(buf, n, "inside #%" PRIu64 " (%s) at offset %s", al->id, size, off);
		break;
	case CI_REL_FREED:
		snprintf(buf, n, "inside #%" PRIu64 " (%s), FREED, at offset %s", al->id, size, off);
		break;
	case CI_REL_PAST_END:
		if (p->offset == 0)
			snprintf(buf, n, "right after the end of #%" PRIu64 " (%s)", al->id, size);
		else
			snprintf(buf, n, "%s bytes past the end of #%" PRIu64 " (%s)", off, al->id, size);
		break;
	case CI_REL_BEFORE_START:
		if (p->offset % 4096 == 0 && p->offset / 4096 <= 4)
			snprintf(buf, n, "%s page%s before #%" PRIu64 " (%s)",
				 (const char *[]){ "", "one", "two", "three", "four" }[p->offset / 4096],
				 p->offset == 4096 ? "" : "s", al->id, size);
		else
			snprintf(buf, n, "%s bytes before the start of #%" PRIu64 " (%s)", off, al->id, size);
		break;
	default:
		snprintf(buf, n, "in no recorded allocation");
		break;
	}
}

/* Whether attribution A (of a suspect's argument) references allocation ID: points into it,
 * near it, or left it (argument history), or lies in it as the neighbour. */
static bool refers_to(const struct ci_attribution *a, uint64_t id)
{
	return (a->alloc && a->alloc->id == id) || (a->history_alloc && a->history_alloc->id == id) ||
	       (a->neighbour && a->neighbour->id == id);
}

static bool launch_refers_to(const struct attr_vec *av, size_t launch, uint64_t id)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == launch && refers_to(&av->v[k], id))
			return true;
	return false;
}

/* The copies and sets that may have been running when the copy engine faulted on page
 * [PAGE, PAGE + 4 KiB): recorded before the first sticky error, after the last synchronization
 * that covers their stream, and touching that page or the page's allocation A (destination, or
 * a copy's source, within one page of its range). */
static bool copy_touches(const struct ci_event *e, uint64_t page, const struct ci_alloc *A)
{
	uint64_t ends[2] = { e->a, e->kind == CI_EV_MEMCPY ? e->b : 0 };
	for (int k = 0; k < 2; k++) {
		uint64_t x = ends[k];
		if (!x)
			continue;
		uint64_t lo = (x & ~0xfffull) > 4096 ? (x & ~0xfffull) - 4096 : 0;
		uint64_t hi = x + e->value + 4096 < x ? UINT64_MAX : x + e->value + 4096;
		if (page + 4096 > lo && page < hi)
			return true;
		if (A && A->size && x >= A->address && x - A->address < A->size)
			return true;
	}
	return false;
}

static void describe_copy(struct text *t, const struct ci_model *m, const struct ci_event *e)
{
	char bytes[32], stream[96];
	if (e->kind == CI_EV_MEMCPY)
		text_add(t, "the copy of %s bytes from 0x%" PRIx64 " to 0x%" PRIx64,
			 ci_fmt_count(e->value, bytes, sizeof bytes), e->b, e->a);
	else
		text_add(t, "the set of %s bytes at 0x%" PRIx64, ci_fmt_count(e->value, bytes, sizeof bytes),
			 e->a);
	text_add(t, " on %s by thread %" PRIu32,
		 e->stream != CI_NONE ? ci_stream_label(m, e->stream, stream, sizeof stream)
				      : "no stream (a synchronous call)", e->tid);
}

/* Reasoning and evidence from the driver's Xid lines (docs/KERNEL-LOG.md, "How a report uses
 * the lines"): the first Xid 31 of the process names a page; the suspects whose arguments
 * reference the page's allocation (or, by their history, the allocation next to it) are the
 * launches that can have made the access; a copy-engine fault names the copy or set instead. */
static void xid_rule(struct diag_ctx *c, bool decide, const size_t *cand, size_t n_cand,
		     const struct attr_vec *av, const struct attr_vec *xv, struct item_vec *iv,
		     struct text *why)
{
	const struct ci_model *m = c->model;
	const struct ci_evidence *ev = c->ev;
	const struct ci_klog *log = ev->kernel_log;
	struct ci_diagnosis *d = c->diag;
	if (!log)
		return;
	char line[320], rel[160];
	/* The log is named by its file name in the items (the JSON's kernel_log has the path). */
	const char *origin = ev->kernel_log_origin;
	if (strchr(origin, '/'))
		origin = strrchr(origin, '/') + 1;
	/* Every line that belongs, as evidence; the first Xid 31 with an address decides. */
	size_t shown = 0;
	for (size_t i = 0; i < log->count; i++) {
		const struct ci_klog_match *mt = &ev->kernel_log_match[i];
		const struct ci_xid *x = &log->items[i];
		if (!mt->belongs || (x->flags & CI_XID_DUPLICATE))
			continue;
		struct ci_attribution page;
		bool decides = d->xid < 0 && x->xid == 31 && x->mmu.has_address &&
			       xid_page_of(xv, i, &page);
		if (!decides && shown >= 8)
			continue;
		shown++;
		ci_xid_summary(x, line, sizeof line);
		struct ci_evidence_item *it;
		if (decides) {
			d->xid = (ptrdiff_t)i;
			d->xid_page = page;
			page_relation_text(&page, rel, sizeof rel);
			it = item_add(iv, CI_EVK_XID_PAGE, "%s: the page lies %s; %s line %" PRIu64
				      ", by %s", line, rel, origin, x->line,
				      ci_klog_rule_name(mt->rule));
			if (it) {
				it->decisive = true;
				it->alloc = page.alloc;
			}
		} else {
			it = item_add(iv, CI_EVK_XID, "%s (%s line %" PRIu64 ", by %s)", line,
				      origin, x->line, ci_klog_rule_name(mt->rule));
		}
		if (it) {
			it->rule = ci_klog_rule_name(mt->rule);
			it->xid = (ptrdiff_t)i;
		}
	}
	if (d->xid < 0 || !decide)
		return;
	const struct ci_xid *x = &log->items[d->xid];
	const struct ci_alloc *A = d->xid_page.alloc;
	ci_xid_summary(x, line, sizeof line);
	page_relation_text(&d->xid_page, rel, sizeof rel);

	if (x->mmu.unit == CI_XID_UNIT_COPY) {
		/* A copy engine: a copy or set, not a kernel. */
		uint64_t sticky_ns = d->first_sticky_error >= 0 ? m->errors[d->first_sticky_error].time_ns
								: UINT64_MAX;
		ptrdiff_t first = -1;
		size_t n = 0;
		for (size_t i = 0; i < m->event_count; i++) {
			const struct ci_event *e = &m->events[i];
			if ((e->kind != CI_EV_MEMCPY && e->kind != CI_EV_MEMSET) || e->result != 0 ||
			    e->time_ns > sticky_ns)
				continue;
			if (e->stream < ev->stream_count && ev->streams[e->stream].synced_ns &&
			    e->time_ns < ev->streams[e->stream].synced_ns)
				continue;
			if (!copy_touches(e, d->xid_page.address, A))
				continue;
			if (first < 0)
				first = (ptrdiff_t)i;
			n++;
		}
		d->faulting_launch = -1;
		if (why->s && why->len) {
			struct ci_evidence_item *r = item_add(iv, CI_EVK_RULE, "%s",
							      why->s + (why->s[0] == ' '));
			if (r)
				r->rule = "record";
			why->len = 0;
			why->s[0] = '\0';
		}
		text_add(why, "Rule: the driver's fault address. The Xid 31 comes from a copy engine, "
			      "so a copy or set made the access, not a kernel");
		if (n == 0) {
			d->confidence = CI_CONF_NONE;
			text_add(why, "; the record holds no copy or set in flight that touches that "
				      "page.");
			return;
		}
		d->faulting_copy = first;
		/* A copy the event ring lost may be the one. */
		const struct ci_section_stats *se = &m->sections[CI_SEC_EVENTS];
		d->confidence = n > 1 ? CI_CONF_LOW : se->dropped || se->missing ? CI_CONF_MEDIUM
									   : CI_CONF_EXACT;
		if (n == 1)
			text_add(why, "; exactly one recorded copy or set in flight touches the page.");
		else
			text_add(why, "; %zu recorded copies or sets in flight touch the page, and this "
				      "is the oldest.", n);
		struct text t = { 0 };
		describe_copy(&t, m, &m->events[first]);
		struct ci_evidence_item *it = item_add(iv, CI_EVK_XID_LAUNCH, "%s %s touches the page",
						       n == 1 ? "only" : "of several, the oldest:",
						       t.s ? t.s : "a copy");
		text_deinit(&t);
		if (it) {
			it->event = first;
			it->decisive = true;
			it->rule = n == 1 ? "exact" : "oldest";
		}
		return;
	}

	/* A kernel's access: the suspects that reference the page's allocation. */
	size_t n = 0;
	ptrdiff_t oldest = -1;
	for (size_t k = 0; A && k < n_cand; k++)
		if (launch_refers_to(av, cand[k], A->id)) {
			n++;
			if (oldest < 0 || ci_brief_at(c->lb, cand[k])->time_ns <
						  ci_brief_at(c->lb, (size_t)oldest)->time_ns)
				oldest = (ptrdiff_t)cand[k];
		}
	bool keep = d->faulting_launch >= 0 && A && launch_refers_to(av, (size_t)d->faulting_launch, A->id);
	if (n == 0) {
		text_add(why, " Kernel log: %s; the page lies %s.", line, rel);
		if (A)
			text_add(why, " No launch that may have been in flight passes a pointer into or "
				      "next to #%" PRIu64 ".", A->id);
		else
			text_add(why, " Nothing in the record lies there, so the page names no "
				      "launch.");
		return;
	}
	ptrdiff_t pick = keep ? d->faulting_launch : oldest;
	/* Exact only when the record saw every allocation and launch: one it lost may be the
	 * page's, or the access's. */
	const struct ci_section_stats *sa = &m->sections[CI_SEC_ALLOCS], *sl = &m->sections[CI_SEC_LAUNCHES];
	bool lost = sa->dropped || sa->missing || sl->dropped || sl->missing ||
		    (m->header.flags & CI_HDR_TRUNCATED);
	bool exact = n == 1 && n_cand > 0 && !lost;
	d->faulting_launch = pick;
	d->confidence = exact ? CI_CONF_EXACT : CI_CONF_MEDIUM;
	/* The driver's word decides: the rules from the record alone become evidence. */
	if (why->s && why->len) {
		struct ci_evidence_item *r = item_add(iv, CI_EVK_RULE, "%s", why->s + (why->s[0] == ' '));
		if (r)
			r->rule = "record";
		why->len = 0;
		why->s[0] = '\0';
	}
	if (exact)
		text_add(why, "Rule: the driver's fault address. Of the %zu launch%s that may have been "
			      "in flight, only this one points into or next to #%" PRIu64 ", where the "
			      "page lies.", n_cand, n_cand == 1 ? "" : "es", A->id);
	else if (n == 1)
		text_add(why, "Rule: the driver's fault address. Only this launch points into or next "
			      "to #%" PRIu64 ", where the page lies, but the record lost allocations or "
			      "launches, so the confidence is at most medium.", A->id);
	else
		text_add(why, "Rule: the driver's fault address. %zu of the launches that may have "
			      "been in flight pass a pointer into or next to #%" PRIu64 ", where the "
			      "faulting page lies; this is %s.", n, A->id,
			 keep ? "the one the record's own rules chose" : "the oldest of them");
	struct text t = { 0 };
	describe_launch(&t, m, (size_t)pick);
	struct ci_evidence_item *it = item_add(iv, CI_EVK_XID_LAUNCH, "%s %s passes a pointer into or "
					       "next to #%" PRIu64, exact ? "only" : "of several,",
					       t.s ? t.s : "the launch", A->id);
	text_deinit(&t);
	if (it) {
		it->launch = pick;
		it->alloc = A;
		it->decisive = true;
		it->rule = exact ? "exact" : "several";
	}
}

/* The argument-history items of the faulting launch. */
static void history_items(const struct ci_diagnosis *d, const struct attr_vec *av,
			  struct item_vec *iv)
{
	for (size_t k = 0; d->faulting_launch >= 0 && k < av->n; k++) {
		const struct ci_attribution *a = &av->v[k];
		if (a->launch != (size_t)d->faulting_launch ||
		    (a->history != CI_HISTORY_LEFT && a->history != CI_HISTORY_FREED_SINCE))
			continue;
		char off[48];
		struct ci_evidence_item *it;
		if (a->history == CI_HISTORY_LEFT)
			it = item_add(iv, CI_EVK_ARG_HISTORY, "arg %" PRIu32 " is %s bytes %s #%" PRIu64
				      ", which this parameter pointed into in the %" PRIu32 " earlier "
				      "launch%s of the kernel; it lies %s #%" PRIu64, a->arg,
				      ci_fmt_count(a->offset, off, sizeof off),
				      a->relation == CI_REL_PAST_END ? "past the end of" : "before the start of",
				      a->alloc->id, a->history_launches, a->history_launches == 1 ? "" : "es",
				      a->neighbour ? (a->neighbour_relation == CI_REL_INSIDE ? "inside"
						      : a->neighbour_relation == CI_REL_FREED ? "inside FREED"
						      : "near") : "in no allocation, not even near",
				      a->neighbour ? a->neighbour->id : a->alloc->id);
		else
			it = item_add(iv, CI_EVK_ARG_HISTORY, "arg %" PRIu32 " points into #%" PRIu64
				      ", freed before this launch; %" PRIu32 " of the %" PRIu32 " earlier "
				      "launches of the kernel used it while it was live", a->arg,
				      a->alloc->id, a->history_inside, a->history_launches);
		if (it) {
			it->launch = d->faulting_launch;
			it->alloc = a->alloc;
			it->rule = ci_history_name(a->history);
			it->decisive = d->xid < 0;
		}
	}
}

static struct ci_error *nomem(void)
{
	return ci_error_create(CI_ERR_NOMEM, "out of memory while diagnosing the record");
}

static void diagnosis_destroyp(struct ci_diagnosis **d) { ci_diagnosis_destroy(*d); }
#define _cleanup_diagnosis_ __attribute__((cleanup(diagnosis_destroyp)))

/* The launches of each kind of suspect, by index into the model's launches. */
struct suspects {
	size_t *in_flight, *window, *open;
	size_t n_in_flight, n_window, n_open;
};

static void suspects_deinit(struct suspects *s)
{
	free(s->in_flight);
	free(s->window);
	free(s->open);
}

/* Per-stream progress, one entry per published stream, and the suspects it leaves. */
static int classify_streams(struct diag_ctx *c, struct suspects *sus)
{
	const struct ci_model *m = c->model;
	struct ci_diagnosis *d = c->diag;
	size_t nl = m->launch_count, ns = 0;
	for (size_t s = 0; s < m->stream_count; s++)
		ns += m->streams[s].seq != 0;
	d->streams = calloc(ns ? ns : 1, sizeof(*d->streams));
	if (!d->streams || order_launches(m, c->lb, c->order))
		return -1;
	size_t k = 0;
	for (size_t s = 0; s < m->stream_count; s++) {
		while (k < nl && ci_brief_at(c->lb, c->order[k])->stream < s)
			k++; /* launches on unpublished or unknown streams stay unknown */
		size_t begin = k;
		while (k < nl && ci_brief_at(c->lb, c->order[k])->stream == s)
			k++;
		if (m->streams[s].seq == 0)
			continue;
		struct ci_stream_progress *p = &d->streams[d->stream_count++];
		p->stream = (uint32_t)s;
		classify_stream(c, p, begin, k);
	}
	for (size_t i = 0; i < nl; i++) {
		if (d->launch_state[i] == CI_LS_IN_FLIGHT)
			sus->in_flight[sus->n_in_flight++] = i;
		else if (c->window[i] == IN_CRUMB_WINDOW)
			sus->window[sus->n_window++] = i;
		else if (c->window[i] == IN_OPEN_WINDOW)
			sus->open[sus->n_open++] = i;
	}
	return 0;
}

static enum ci_verdict verdict_of(const struct ci_model *m, const struct ci_diagnosis *d,
				  const struct suspects *sus)
{
	enum ci_verdict v = d->first_sticky_error >= 0 ? CI_VERDICT_DEVICE_FAULT
			    : d->last_error >= 0      ? CI_VERDICT_API_ERROR
			    : sus->n_in_flight || sus->n_window ? CI_VERDICT_PENDING
							      : CI_VERDICT_NONE;
	if ((v == CI_VERDICT_NONE || v == CI_VERDICT_PENDING) && record_mostly_missing(m))
		v = CI_VERDICT_INCOMPLETE;
	return v;
}

/* The reasoning of a verdict other than a fault or pending work. */
static void explain_other(const struct ci_model *m, const struct ci_diagnosis *d, struct text *why)
{
	if (d->verdict == CI_VERDICT_API_ERROR) {
		const struct ci_api_error *e = &m->errors[d->last_error];
		char api[CI_API_NAME_MAX + 1];
		text_add(why, "No device fault was recorded (no sticky error). The last error is "
			      "%s from %s", ci_cuda_result_name(e->result),
			 CI_SCRUB_FIELD(e->api, api));
		if (d->failed_launch >= 0) {
			text_add(why, "; the launch call for ");
			describe_launch(why, m, (size_t)d->failed_launch);
			text_add(why, " itself returned %s, so nothing was enqueued.",
				 ci_cuda_result_name(ci_model_load_launch(m, (size_t)d->failed_launch)->result));
		} else {
			text_add(why, ".");
		}
	} else if (d->verdict == CI_VERDICT_INCOMPLETE) {
		char have[32], all[32];
		text_add(why, "Most of the record is not in the input (%s of its %s): the launches "
			      "and errors that would show a failure are missing, so nothing can be said "
			      "about what the GPU was doing. Read a complete core or record file.",
			 ci_fmt_size(m->location.size, have, sizeof(have)),
			 ci_fmt_size(m->header.record_size, all, sizeof(all)));
	} else {
		text_add(why, "No CUDA error was recorded and no launch is in flight.");
	}
}

struct ci_error *ci_diagnose(const struct ci_model *model, const struct ci_evidence *ev,
			     const struct ci_diagnose_options *opts, struct ci_diagnosis **ret)
{
	const struct ci_model *m = model;
	size_t nl = m->launch_count, slots = nl ? nl : 1;
	_cleanup_diagnosis_ struct ci_diagnosis *d = calloc(1, sizeof(*d));
	_cleanup_free_ struct ci_launch_brief *own = NULL;
	_cleanup_free_ size_t *order = malloc(slots * sizeof(*order));
	_cleanup_free_ uint8_t *window = calloc(slots, 1);
	struct suspects sus __attribute__((cleanup(suspects_deinit))) = {
		.in_flight = malloc(slots * sizeof(size_t)),
		.window = malloc(slots * sizeof(size_t)),
		.open = malloc(slots * sizeof(size_t)),
	};
	struct attr_vec av __attribute__((cleanup(attr_vec_deinit))) = { 0 };
	struct attr_vec hv __attribute__((cleanup(attr_vec_deinit))) = { 0 };
	struct attr_vec xv __attribute__((cleanup(attr_vec_deinit))) = { 0 };
	struct item_vec iv __attribute__((cleanup(item_vec_deinit))) = { 0 };
	struct text why __attribute__((cleanup(text_deinit))) = { 0 };

	if (!d || !order || !window || !sus.in_flight || !sus.window || !sus.open)
		return nomem();
	d->faulting_launch = -1;
	d->failed_launch = -1;
	d->xid = -1;
	d->faulting_copy = -1;
	if (!(d->launch_state = calloc(slots, sizeof(*d->launch_state))))
		return nomem();
	/* What is read of every launch: a lazy model has it at hand, else one pass copies it. */
	struct ci_launch_briefs lb = ci_model_launch_briefs(m);
	if (!lb.base) {
		if (!(own = malloc(slots * sizeof(*own))))
			return nomem();
		for (size_t i = 0; i < nl; i++)
			ci_model_launch_brief(m, i, &own[i]);
		lb = (struct ci_launch_briefs){ (const uint8_t *)own, sizeof(*own) };
	}
	struct diag_ctx c = { .model = m, .ev = ev, .diag = d, .lb = lb, .order = order,
			      .window = window };

	find_errors(m, ev, d);
	find_signal(m, opts, d);
	if (classify_streams(&c, &sus))
		return nomem();
	d->verdict = verdict_of(m, d, &sus);
	/* The launch whose call returned the last error: one that failed just before it. */
	if (d->verdict == CI_VERDICT_API_ERROR)
		for (size_t i = nl; i-- > 0;) {
			const struct ci_launch_brief *l = ci_brief_at(lb, i);
			if ((l->flags & CI_LAUNCH_FAILED) && ci_evidence_failed_launch_at(ev, l->time_ns)) {
				d->failed_launch = (ptrdiff_t)i;
				break;
			}
		}

	/* Attribute the arguments of every suspect launch (bounded), newest suspects last. */
	bool suspecting = d->verdict == CI_VERDICT_DEVICE_FAULT || d->verdict == CI_VERDICT_PENDING;
	size_t budget = ATTRIBUTED_LAUNCHES_MAX;
	const size_t *lists[3] = { sus.in_flight, sus.window, sus.open };
	size_t counts[3] = { sus.n_in_flight, sus.n_window, sus.n_open };
	for (int li = 0; suspecting && li < 3; li++) {
		if (li == 2 && (sus.n_in_flight || sus.n_window))
			break;
		for (size_t j = 0; j < counts[li] && budget; j++, budget--)
			if (collect_args(m, lists[li][j], &av))
				return nomem();
	}
	if (collect_history(m, &av, &hv) || collect_xid_pages(ev, &xv) ||
	    attribute_all(m, &av, &hv, &xv))
		return nomem();
	if (apply_history(m, &av, &hv))
		return nomem();

	if (suspecting)
		choose_faulting(&c, sus.in_flight, sus.n_in_flight, sus.window, sus.n_window, sus.open,
				sus.n_open, &av, &why);
	else
		explain_other(m, d, &why);
	/* The driver's word on the fault, where a kernel log gave it: the launches that may have
	 * been in flight, or those made since their stream's last synchronization. */
	bool inflight = sus.n_in_flight || sus.n_window;
	size_t n_cand = inflight ? sus.n_in_flight + sus.n_window : sus.n_open;
	_cleanup_free_ size_t *cand = malloc((n_cand ? n_cand : 1) * sizeof(*cand));
	if (!cand)
		return nomem();
	if (inflight) {
		memcpy(cand, sus.in_flight, sus.n_in_flight * sizeof(*cand));
		memcpy(cand + sus.n_in_flight, sus.window, sus.n_window * sizeof(*cand));
	} else {
		memcpy(cand, sus.open, sus.n_open * sizeof(*cand));
	}
	if (suspecting && ev->kernel_log && graph_suspect_args(m, d, cand, n_cand, &av))
		return nomem();
	xid_rule(&c, suspecting, cand, n_cand, &av, &xv, &iv, &why);
	history_items(d, &av, &iv);
	/* The node arguments graph_suspect_args lent the graph launches served the Xid rule: a
	 * graph launch's own arguments are its faulting node's (graph_fault), no other's. */
	size_t kept = 0;
	for (size_t k = 0; k < av.n; k++) {
		const struct ci_launch *fl = ci_model_load_launch(m, av.v[k].launch);
		if (!fl || fl->api != CI_LAUNCH_GRAPH)
			av.v[kept++] = av.v[k];
	}
	av.n = kept;
	if (suspecting && d->faulting_launch >= 0 && graph_fault(m, ev, d, &av, &why))
		return nomem();
	if (why.failed || iv.failed)
		return nomem();
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
	d->attribution_count = av.n;
	d->attributions = ci_steal(av.v);
	d->evidence_count = iv.n;
	d->evidence = ci_steal(iv.v);
	iv.n = 0;
	d->reasoning = why.s ? ci_steal(why.s) : strdup("");
	if (!d->reasoning)
		return nomem();
	*ret = ci_steal(d);
	return NULL;
}
