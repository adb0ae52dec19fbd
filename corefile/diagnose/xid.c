/* SPDX-License-Identifier: MIT */
/*
 * Rule family "kernel_log": the driver's Xid lines (docs/KERNEL-LOG.md, "How a report uses the
 * lines").  Every line that belongs to the process is evidence; the first Xid 31 with an address
 * names a page, attributed with the arguments (pointers.c).  Where launches are suspected, the
 * suspects whose arguments reference the page's allocation (or, by their history, the allocation
 * next to it) are the launches that can have made the access, and the driver's word decides over
 * the record's own rules; a copy-engine fault names the copy or set instead.
 */
#include <stdlib.h>

#include "diagnose.h"

#define GRAPH_ATTRIBUTED_NODES_MAX 64
#define GRAPH_SUSPECTS_MAX 8 /* suspect graph launches whose nodes the Xid rule weighs */

/* Where the page of Xid line I lies, from its two attributed bytes in XV. */
static bool xid_page_of(const struct ci_attr_vec *xv, size_t i, struct ci_attribution *ret)
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

/* The arguments of the kernel nodes of the suspect graph launches, as the graph launches' own
 * (tagged with their index), so that a kernel log's fault page can name a graph launch; the
 * graphs family keeps only the faulting node's. */
static int graph_suspect_args(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	struct ci_attr_vec gv = { 0 }, no_hist = { 0 }, no_xid = { 0 };
	size_t graphs = 0;
	int fail = 0;
	for (size_t k = 0; k < c->n_cand && graphs < GRAPH_SUSPECTS_MAX && !fail; k++) {
		const struct ci_launch *l = ci_model_load_launch(m, c->cand[k]);
		struct ci_graph_replay r;
		if (!l || l->api != CI_LAUNCH_GRAPH ||
		    !ci_graph_replay_expand(m, c->cand[k], c->diag->launch_state[c->cand[k]], &r))
			continue;
		graphs++;
		for (size_t i = 0, n = 0; i < r.node_count && n < GRAPH_ATTRIBUTED_NODES_MAX && !fail; i++) {
			const struct ci_graph_node *e = r.nodes[i].node;
			if (!e || e->type != CI_NODE_KERNEL || (e->flags & CI_NODE_DISABLED))
				continue;
			n++;
			ci_graph_replay_pick(m, &r, i);
			fail = ci_attr_collect_args(m, &r.kernel, c->cand[k], &gv);
		}
		ci_graph_replay_deinit(&r);
	}
	if (!fail)
		fail = ci_attr_attribute(m, &gv, &no_hist, &no_xid);
	for (size_t k = 0; !fail && k < gv.n; k++)
		fail = ci_attr_push(&c->args, &gv.v[k]);
	ci_attr_vec_deinit(&gv);
	ci_attr_vec_deinit(&no_hist);
	ci_attr_vec_deinit(&no_xid);
	return fail;
}

/* The process's lines as evidence, an event each (ci_klog_group: one fault prints several;
 * the first eight events, and the one that decides): the first Xid 31 with an address decides,
 * its page becomes the diagnosis's, and the other lines of its event go with it. */
static void xid_lines(struct ci_rule_ctx *c)
{
	const struct ci_evidence *ev = c->ev;
	const struct ci_klog *log = ev->kernel_log;
	struct ci_diagnosis *d = c->diag;
	struct ci_attribution page;
	for (size_t i = 0; i < log->count && d->xid < 0; i++) {
		const struct ci_xid *x = &log->items[i];
		if (ev->kernel_log_match[i].belongs && !(x->flags & CI_XID_DUPLICATE) && x->xid == 31 &&
		    x->mmu.has_address && xid_page_of(&c->pages, i, &page)) {
			d->xid = (ptrdiff_t)i;
			d->xid_page = page;
		}
	}
	size_t decisive = d->xid >= 0 ? ev->kernel_log_match[d->xid].event : SIZE_MAX;
	size_t shown = 0, next = 0; /* events are numbered in the order of their first line */
	for (size_t i = 0; i < log->count; i++) {
		size_t e = ev->kernel_log_match[i].event;
		if (!ev->kernel_log_match[i].belongs || (log->items[i].flags & CI_XID_DUPLICATE) ||
		    e != next)
			continue;
		next++;
		if (e != decisive && shown >= 8)
			continue;
		shown++;
		struct ci_finding *f = ci_rule_add(c, e == decisive ? CI_F_XID_PAGE : CI_F_XID_LINE);
		f->xid = e == decisive ? d->xid : (ptrdiff_t)i;
		for (size_t k = i; k < log->count; k++)
			f->count += ev->kernel_log_match[k].event == e &&
				    !(log->items[k].flags & CI_XID_DUPLICATE);
		if (e == decisive) {
			f->where = d->xid_page;
			f->alloc = d->xid_page.alloc;
			f->decisive = true;
		}
	}
	/* The lines of other processes of the same name the log also holds, and why they are not
	 * the process's (evidence/kernel_log.c, settle_identity). */
	size_t not_own = 0, before = 0, farther = 0;
	for (size_t i = 0; i < log->count; i++) {
		if (log->items[i].flags & CI_XID_DUPLICATE)
			continue;
		enum ci_klog_reject r = ev->kernel_log_match[i].reject;
		not_own += r == CI_KLOG_REJECT_NOT_OWN;
		before += r == CI_KLOG_REJECT_BEFORE_START;
		farther += r == CI_KLOG_REJECT_FARTHER;
	}
	if (not_own + before + farther) {
		struct ci_finding *f = ci_rule_add(c, CI_F_XID_OTHERS);
		f->count = not_own;
		f->total = before;
		f->value = farther;
	}
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

/* A copy engine faulted: a copy or set made the access, not a kernel. */
static void copy_engine_rule(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	const struct ci_evidence *ev = c->ev;
	const struct ci_diagnosis *d = c->diag;
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
		if (!copy_touches(e, d->xid_page.address, d->xid_page.alloc))
			continue;
		if (first < 0)
			first = (ptrdiff_t)i;
		n++;
	}
	/* A copy the event ring lost may be the one. */
	const struct ci_section_stats *se = &m->sections[CI_SEC_EVENTS];
	struct ci_finding *f = ci_rule_add(c, CI_F_BY_COPY_ENGINE);
	f->event = first;
	f->count = n;
	f->strength = n == 0 ? CI_CONF_NONE : n > 1 ? CI_CONF_LOW
					 : se->dropped || se->missing ? CI_CONF_MEDIUM : CI_CONF_EXACT;
	ci_rule_suspect(c, f);
	if (n == 0)
		return;
	f = ci_rule_add(c, CI_F_COPY_TOUCHES_PAGE);
	f->event = first;
	f->count = n;
	f->decisive = true;
}

/* ---- The fault page against the arguments (docs/USAGE.md, "The fault page against the
 * arguments").  An index bug adds a large offset to a valid base, so the page lies in no
 * allocation; what can still tie it to a launch is a clean relation to one of its arguments.
 * Each test is one a random page passes rarely (at most about 1 in 500 per argument): */
#define FIT_PAGE 4096ull
#define FIT_POW2_MIN 20           /* 2^k from 1 MiB up */
#define FIT_POW2_SLACK (64ull << 10) /* the rest may be up to max(size, this) */
#define FIT_POW2_FAR 1024ull      /* and 2^k at least this many times that */
#define FIT_MULTIPLE_MIN (1ull << 20) /* allocations of 1 MiB or more */

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

void ci_fault_relate(struct ci_attribution *a, uint64_t page)
{
	const struct ci_alloc *al = a->relation != CI_REL_UNKNOWN ? a->alloc : NULL;
	uint64_t size = al ? al->size : 0;
	a->fault_related = true;
	a->fault_fit = CI_FIT_NONE;
	a->fault_from_arg = (int64_t)(page - a->address);
	a->fault_from_start = a->fault_from_end = 0;
	a->fault_pow2 = -1;
	a->fault_pow2_rest = 0;
	a->fault_multiple = 0;
	a->fault_multiple_rest = 0;
	uint64_t slack = size > FIT_POW2_SLACK ? size : FIT_POW2_SLACK;
	uint64_t mag = magnitude(a->fault_from_arg);
	if (mag >= (1ull << FIT_POW2_MIN)) {
		int k = 63 - __builtin_clzll(mag);
		uint64_t lo = mag - (1ull << k);
		uint64_t hi = k < 62 ? (1ull << (k + 1)) - mag : UINT64_MAX;
		if (hi < lo)
			k++, lo = hi;
		if (k < 63 && lo < slack && (1ull << k) / FIT_POW2_FAR >= slack) {
			int64_t p = (int64_t)(1ull << k);
			a->fault_pow2 = (int8_t)k;
			a->fault_pow2_rest = a->fault_from_arg - (a->fault_from_arg < 0 ? -p : p);
			a->fault_fit = CI_FIT_POWER_OF_TWO;
		}
	}
	if (!size)
		return;
	a->fault_from_start = (int64_t)(page - al->address);
	a->fault_from_end = (int64_t)(page - (al->address + size));
	if (size >= FIT_MULTIPLE_MIN && size <= INT64_MAX) {
		int64_t s = (int64_t)size, q = a->fault_from_start / s, r = a->fault_from_start % s;
		if (r < 0)
			q--, r += s;
		/* The page starts at the q-th boundary or ends there (an access just below it). */
		if ((uint64_t)r >= size - FIT_PAGE)
			q++, r -= s;
		if ((q >= 2 || q <= -2) && r >= -(int64_t)FIT_PAGE && r < (int64_t)FIT_PAGE) {
			a->fault_multiple = q;
			a->fault_multiple_rest = r;
			a->fault_fit = CI_FIT_MULTIPLE;
		} else if (a->fault_pow2 >= 0 && (1ull << a->fault_pow2) % size == 0 &&
			   a->fault_from_arg > 0) {
			/* 2^k is itself a whole number of sizes: say so beside it. */
			a->fault_multiple = (int64_t)((1ull << a->fault_pow2) / size);
			a->fault_multiple_rest = a->fault_from_start - (int64_t)(1ull << a->fault_pow2);
		}
	}
	bool after = a->fault_from_end >= 0 && (uint64_t)a->fault_from_end < size;
	bool before = a->fault_from_start < 0 && magnitude(a->fault_from_start) < size + FIT_PAGE;
	bool inside = a->fault_from_start >= 0 && a->fault_from_end < 0;
	if (after || before || inside)
		a->fault_fit = CI_FIT_REACH;
}

/* The live allocations nearest below and above ADDRESS. */
struct nearest {
	uint64_t address;
	bool below, above;
	struct ci_alloc_ref lo, hi;
};

static void nearest_visit(const struct ci_alloc_ref *r, void *arg)
{
	struct nearest *n = arg;
	if (!r->size)
		return;
	if (r->address <= n->address) {
		if (!n->below || r->address > n->lo.address)
			n->below = true, n->lo = *r;
	} else if (!n->above || r->address < n->hi.address) {
		n->above = true, n->hi = *r;
	}
}

/* How far the page lies from where argument A's fit puts it: smaller fits better. */
static uint64_t fit_slack(const struct ci_attribution *a)
{
	switch (a->fault_fit) {
	case CI_FIT_REACH:
		return a->fault_from_end >= 0 ? (uint64_t)a->fault_from_end
		       : a->fault_from_start < 0 ? magnitude(a->fault_from_start) : 0;
	case CI_FIT_MULTIPLE:
		return magnitude(a->fault_multiple_rest);
	case CI_FIT_POWER_OF_TWO:
		return magnitude(a->fault_pow2_rest);
	case CI_FIT_NONE:
		break;
	}
	return UINT64_MAX;
}

bool ci_fault_fits_better(const struct ci_attribution *a, const struct ci_attribution *b)
{
	if (a->fault_fit != b->fault_fit)
		return a->fault_fit < b->fault_fit;
	return fit_slack(a) < fit_slack(b);
}

/* No suspect references the page's allocation: relate the page to every suspect's arguments.
 * The launches with an argument that explains it: one names the launch (high for reach, medium
 * otherwise); several leave the record's choice if it is one of them, else the tightest fit,
 * low.  False when none does. */
static bool relation_rule(struct ci_rule_ctx *c)
{
	struct ci_diagnosis *d = c->diag;
	uint64_t page = d->xid_page.address & ~(FIT_PAGE - 1);
	ptrdiff_t best = -1, tightest = -1;
	size_t n = 0;
	bool kept = false;
	for (size_t k = 0; k < c->n_cand; k++) {
		ptrdiff_t mine = -1;
		char name[1024] = "";
		const struct ci_launch *cl = ci_model_launch(c->model, c->cand[k]);
		if (cl)
			ci_launch_kernel_name(c->model, cl, name, sizeof name);
		for (size_t i = 0; i < c->args.n; i++) {
			struct ci_attribution *a = &c->args.v[i];
			if (a->launch != c->cand[k])
				continue;
			ci_fault_relate(a, page);
			a->element_size = ci_param_element(name, a->arg, a->element_type,
							   sizeof a->element_type);
			if (a->fault_fit != CI_FIT_NONE && (mine < 0 || ci_fault_fits_better(a, &c->args.v[mine])))
				mine = (ptrdiff_t)i;
		}
		if (mine < 0)
			continue;
		n++;
		size_t l = c->cand[k];
		if ((ptrdiff_t)l == d->faulting_launch)
			kept = true, best = mine;
		if (tightest < 0 || ci_fault_fits_better(&c->args.v[mine], &c->args.v[tightest]))
			tightest = mine;
	}
	if (!n)
		return false;
	if (!kept)
		best = tightest;
	const struct ci_attribution *a = &c->args.v[best];
	struct ci_finding *f = ci_rule_add(c, CI_F_BY_ARG_RELATION);
	f->launch = (ptrdiff_t)a->launch;
	f->where = *a;
	f->alloc = a->alloc;
	f->count = n;
	f->total = c->n_cand;
	f->flags = kept ? CI_FINDING_KEPT : 0;
	f->strength = n > 1 ? CI_CONF_LOW : a->fault_fit == CI_FIT_REACH ? CI_CONF_HIGH : CI_CONF_MEDIUM;
	if (kept && d->confidence > f->strength)
		f->strength = d->confidence;
	ci_rule_suspect(c, f);
	d->xid_fit = *a;
	f = ci_rule_add(c, CI_F_ARG_EXPLAINS_PAGE);
	f->launch = (ptrdiff_t)a->launch;
	f->where = *a;
	f->alloc = a->alloc;
	f->count = n;
	f->decisive = true;
	return true;
}

/* A kernel's access: the suspects that reference the page's allocation. */
static void kernel_rule(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	const struct ci_diagnosis *d = c->diag;
	const struct ci_alloc *A = d->xid_page.alloc;
	size_t n = 0;
	ptrdiff_t oldest = -1;
	for (size_t k = 0; A && k < c->n_cand; k++)
		if (ci_attr_launch_refers_to(&c->args, c->cand[k], A->id)) {
			n++;
			if (oldest < 0 || ci_brief_at(c->lb, c->cand[k])->time_ns <
						  ci_brief_at(c->lb, (size_t)oldest)->time_ns)
				oldest = (ptrdiff_t)c->cand[k];
		}
	bool keep = d->faulting_launch >= 0 && A &&
		    ci_attr_launch_refers_to(&c->args, (size_t)d->faulting_launch, A->id);
	struct ci_finding *f;
	if (!A && d->xid_page.address >= FIT_PAGE) {
		struct nearest near = { .address = d->xid_page.address };
		ci_model_each_alloc(m, nearest_visit, &near);
		c->diag->xid_below = near.below ? ci_model_alloc_at(m, near.lo.handle) : NULL;
		c->diag->xid_above = near.above ? ci_model_alloc_at(m, near.hi.handle) : NULL;
	}
	if (n == 0 && relation_rule(c))
		return;
	if (n == 0) {
		f = ci_rule_add(c, CI_F_PAGE_NAMES_NO_LAUNCH);
		f->xid = d->xid;
		f->where = d->xid_page;
		f->alloc = A;
		return;
	}
	/* Exact only when the record saw every allocation and launch: one it lost may be the
	 * page's, or the access's. */
	const struct ci_section_stats *sa = &m->sections[CI_SEC_ALLOCS], *sl = &m->sections[CI_SEC_LAUNCHES];
	bool lost = sa->dropped || sa->missing || sl->dropped || sl->missing ||
		    (m->header.flags & CI_HDR_TRUNCATED);
	bool exact = n == 1 && c->n_cand > 0 && !lost;
	f = ci_rule_add(c, CI_F_BY_FAULT_ADDRESS);
	f->launch = keep ? d->faulting_launch : oldest;
	f->alloc = A;
	f->count = n;
	f->total = c->n_cand;
	f->flags = (exact ? CI_FINDING_EXACT : 0) | (keep ? CI_FINDING_KEPT : 0);
	f->strength = exact ? CI_CONF_EXACT : CI_CONF_MEDIUM;
	ci_rule_suspect(c, f);
	ptrdiff_t pick = f->launch;
	f = ci_rule_add(c, CI_F_LAUNCH_TOUCHES_PAGE);
	f->launch = pick;
	f->alloc = A;
	f->flags = exact ? CI_FINDING_EXACT : 0;
	f->decisive = true;
}

int ci_rules_kernel_log(struct ci_rule_ctx *c)
{
	const struct ci_evidence *ev = c->ev;
	struct ci_diagnosis *d = c->diag;
	if (!ev->kernel_log)
		return 0;
	if (c->suspecting && graph_suspect_args(c))
		return -1;
	xid_lines(c);
	if (d->xid < 0 || !c->suspecting)
		return 0;
	if (ev->kernel_log->items[d->xid].mmu.unit == CI_XID_UNIT_COPY)
		copy_engine_rule(c);
	else
		kernel_rule(c);
	return 0;
}
