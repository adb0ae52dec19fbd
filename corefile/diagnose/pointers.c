/* SPDX-License-Identifier: MIT */
/*
 * Rule family "pointers": every pointer-sized argument of the suspect launches that could be an
 * address is attributed to memory: inside a live allocation (the smallest that contains it),
 * inside a recently freed one, or just past the end or before the start of the nearest live one.
 * The same pass attributes the values the same parameter had in the earlier launches of the
 * kernel (the argument history, history.c) and the addresses the evidence brings (the kernel
 * log's fault pages, xid.c): one pass over the live allocations answers every address at once,
 * so a sparse model reads its table once and sorts nothing.  No findings: the attributions are
 * the diagnosis's, and the families after it reason from them.
 */
#include <stdlib.h>

#include "diagnose.h"

/* Suspect launches whose arguments are attributed, at most (bounds the work on huge rings). */
#define ATTRIBUTED_LAUNCHES_MAX 256
/* Xid 31 lines whose page the diagnosis attributes, at most. */
#define XID_PAGES_MAX 16

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
	return lo < hi && v + CI_NEAR_BYTES_MIN >= lo && v <= hi + CI_NEAR_BYTES_MIN;
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
		uint64_t near = below->size > CI_NEAR_BYTES_MIN ? below->size : CI_NEAR_BYTES_MIN;
		if (d_after < near && (al = ci_model_alloc_at(m, below->handle))) {
			a->relation = CI_REL_PAST_END;
			a->alloc = al;
			a->offset = d_after;
		}
	} else if (above->have) {
		uint64_t near = above->size > CI_NEAR_BYTES_MIN ? above->size : CI_NEAR_BYTES_MIN;
		if (d_before < near && (al = ci_model_alloc_at(m, above->handle))) {
			a->relation = CI_REL_BEFORE_START;
			a->alloc = al;
			a->offset = d_before;
		}
	}
}

int ci_attr_collect_args(const struct ci_model *m, const struct ci_launch *l, size_t i,
			 struct ci_attr_vec *av)
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
		if (ci_attr_push(av, &a))
			return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One pass over the live allocations for all the values, then the frees.  Arguments that turn
 * out not to be plausible pointers are dropped. */
int ci_attr_attribute(const struct ci_model *m, struct ci_attr_vec *av, struct ci_attr_vec *hv,
		      struct ci_attr_vec *xv)
{
	/* The Xid pages are attributed with the history values (after them in HV). */
	size_t n_hist = hv->n;
	for (size_t i = 0; i < xv->n; i++)
		if (ci_attr_push(hv, &xv->v[i]))
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

/* Whether attribution A (of a suspect's argument) references allocation ID: points into it,
 * near it, or left it (argument history), or lies in it as the neighbour. */
static bool refers_to(const struct ci_attribution *a, uint64_t id)
{
	return (a->alloc && a->alloc->id == id) || (a->history_alloc && a->history_alloc->id == id) ||
	       (a->neighbour && a->neighbour->id == id);
}

bool ci_attr_launch_refers_to(const struct ci_attr_vec *av, size_t launch, uint64_t id)
{
	for (size_t k = 0; k < av->n; k++)
		if (av->v[k].launch == launch && refers_to(&av->v[k], id))
			return true;
	return false;
}

/* The evidence's addresses, attributed with the arguments: the fault pages of the kernel log's
 * Xid 31 lines that belong to the process (their first and last byte, `launch` = the line). */
static int evidence_addresses(const struct ci_evidence *ev, struct ci_attr_vec *xv)
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
		if (ci_attr_push(xv, &a))
			return -1;
		a.address = page + 0xfff;
		if (ci_attr_push(xv, &a))
			return -1;
		pages++;
	}
	return 0;
}

int ci_rules_pointers(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	const struct ci_suspects *sus = &c->sus;
	/* The arguments of every suspect launch (bounded), newest suspects last. */
	size_t budget = ATTRIBUTED_LAUNCHES_MAX;
	const size_t *lists[3] = { sus->in_flight, sus->window, sus->open };
	size_t counts[3] = { sus->n_in_flight, sus->n_window, sus->n_open };
	for (int li = 0; c->suspecting && li < 3; li++) {
		if (li == 2 && (sus->n_in_flight || sus->n_window))
			break;
		for (size_t j = 0; j < counts[li] && budget; j++, budget--)
			if (ci_attr_collect_args(m, ci_model_load_launch(m, lists[li][j]), lists[li][j],
						 &c->args))
				return -1;
	}
	if (ci_history_collect(m, &c->args, &c->history) || evidence_addresses(c->ev, &c->pages) ||
	    ci_attr_attribute(m, &c->args, &c->history, &c->pages))
		return -1;
	return ci_history_apply(m, &c->args, &c->history);
}
