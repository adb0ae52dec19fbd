/* SPDX-License-Identifier: MIT */
/*
 * Rule family "graphs": where the faulting launch is a cuGraphLaunch, expand it into the nodes its
 * executable graph ran (replay.c) and name the kernel node: the one the in-graph breadcrumb or the
 * graph's shape leaves, else the first passing a pointer into or next to the kernel log's fault
 * page, else the one with an argument that page fits (a page in no allocation), else the only
 * (or first) passing a bad pointer.  That node's arguments become the
 * faulting launch's attributions; a graph launch has no others.
 */
#include <stdlib.h>

#include "diagnose.h"

#define GRAPH_ATTRIBUTED_NODES_MAX 64

/* The arguments of the candidate kernel nodes of G, tagged by node index, attributed. */
static int node_args(const struct ci_model *m, const struct ci_graph_replay *g, struct ci_attr_vec *nav)
{
	size_t cands = 0;
	for (size_t i = 0; i < g->node_count && cands < GRAPH_ATTRIBUTED_NODES_MAX; i++) {
		const struct ci_graph_node *e = g->nodes[i].node;
		if (!e || e->type != CI_NODE_KERNEL || (e->flags & CI_NODE_DISABLED))
			continue;
		if (g->faulting_node >= 0 && (size_t)g->faulting_node != i)
			continue;
		if (g->faulting_node < 0 && !ci_graph_replay_unfinished(g, i))
			continue;
		struct ci_graph_replay tmp = *g;
		ci_graph_replay_pick(m, &tmp, i);
		cands++;
		if (ci_attr_collect_args(m, &tmp.kernel, i, nav))
			return -1;
	}
	struct ci_attr_vec no_hist = { 0 }, no_xid = { 0 };
	int fail = ci_attr_attribute(m, nav, &no_hist, &no_xid);
	ci_attr_vec_deinit(&no_hist);
	ci_attr_vec_deinit(&no_xid);
	return fail;
}

/* The driver's word: a kernel log's fault page (a kernel's access) names the nodes that pass a
 * pointer into or next to its allocation; the first of them is picked. */
static bool node_by_page(struct ci_rule_ctx *c, struct ci_graph_replay *g, const struct ci_attr_vec *nav)
{
	const struct ci_evidence *ev = c->ev;
	const struct ci_diagnosis *d = c->diag;
	const struct ci_alloc *A = d->xid >= 0 ? d->xid_page.alloc : NULL;
	if (A && ev->kernel_log && (size_t)d->xid < ev->kernel_log->count &&
	    ev->kernel_log->items[d->xid].mmu.unit == CI_XID_UNIT_COPY)
		A = NULL;
	if (!A)
		return false;
	size_t n = 0;
	ptrdiff_t first = -1;
	for (size_t i = 0; i < g->node_count; i++)
		if (g->nodes[i].node && g->nodes[i].node->type == CI_NODE_KERNEL &&
		    ci_attr_launch_refers_to(nav, i, A->id)) {
			n++;
			if (first < 0)
				first = (ptrdiff_t)i;
		}
	if (first < 0)
		return false;
	ci_graph_replay_pick(c->model, g, (size_t)first);
	if (n > 1)
		ci_rule_cap(c, CI_CONF_MEDIUM);
	struct ci_finding *f = ci_rule_add(c, CI_F_GRAPH_NODE_BY_PAGE);
	f->node = first;
	f->count = n;
	f->alloc = A;
	return true;
}

/* The kernel log's fault page lies in no allocation (an index bug's huge offset): the node
 * with an argument the page fits (xid.c, ci_fault_relate: within reach, a whole number of
 * sizes or a power of two away), the tightest fit where several nodes have one (low). */
static bool node_by_relation(struct ci_rule_ctx *c, struct ci_graph_replay *g, struct ci_attr_vec *nav)
{
	const struct ci_evidence *ev = c->ev;
	const struct ci_diagnosis *d = c->diag;
	if (d->xid < 0 || d->xid_page.alloc || !ev->kernel_log || (size_t)d->xid >= ev->kernel_log->count ||
	    ev->kernel_log->items[d->xid].mmu.unit == CI_XID_UNIT_COPY)
		return false;
	uint64_t page = d->xid_page.address & ~0xfffull;
	ptrdiff_t best = -1;
	size_t nodes = 0, last_node = SIZE_MAX;
	for (size_t k = 0; k < nav->n; k++) {
		struct ci_attribution *a = &nav->v[k];
		ci_fault_relate(a, page);
		if (a->fault_fit == CI_FIT_NONE)
			continue;
		if (a->launch != last_node)
			nodes++, last_node = a->launch; /* NAV is node by node, in order */
		if (best < 0 || ci_fault_fits_better(a, &nav->v[best]))
			best = (ptrdiff_t)k;
	}
	if (best < 0)
		return false;
	size_t node = nav->v[best].launch;
	ci_graph_replay_pick(c->model, g, node);
	ci_rule_cap(c, nodes > 1 ? CI_CONF_LOW : nav->v[best].fault_fit == CI_FIT_REACH ? CI_CONF_HIGH
											 : CI_CONF_MEDIUM);
	char name[1024];
	ci_launch_kernel_name(c->model, &g->kernel, name, sizeof name);
	nav->v[best].element_size = ci_param_element(name, nav->v[best].arg, nav->v[best].element_type,
						      sizeof nav->v[best].element_type);
	struct ci_finding *f = ci_rule_add(c, CI_F_GRAPH_NODE_BY_RELATION);
	f->node = (ptrdiff_t)node;
	f->count = nodes;
	f->where = nav->v[best];
	return true;
}

/* No breadcrumb or shape singles a node out: the only (or first) node passing a bad pointer.
 * NAV's tags are node indices, ascending (collected node by node; attribution keeps the order). */
static void node_by_bad_pointer(struct ci_rule_ctx *c, struct ci_graph_replay *g,
				const struct ci_attr_vec *nav)
{
	size_t bad = 0;
	ptrdiff_t first_bad = -1, last_counted = -1;
	for (size_t k = 0; k < nav->n; k++) {
		ptrdiff_t i = (ptrdiff_t)nav->v[k].launch;
		if (nav->v[k].relation == CI_REL_INSIDE || i == last_counted)
			continue;
		bad++;
		last_counted = i;
		if (first_bad < 0)
			first_bad = i;
	}
	if (first_bad < 0) {
		ci_rule_add(c, CI_F_GRAPH_NODE_UNKNOWN);
		return;
	}
	ci_graph_replay_pick(c->model, g, (size_t)first_bad);
	if (bad > 1)
		ci_rule_cap(c, CI_CONF_LOW);
	struct ci_finding *f = ci_rule_add(c, CI_F_GRAPH_NODE_BAD_POINTER);
	f->node = first_bad;
	f->count = bad;
}

/* The faulting launch is a cuGraphLaunch: its replay, kernel node and that node's arguments. */
static int graph_fault(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	struct ci_diagnosis *d = c->diag;
	size_t fl = (size_t)d->faulting_launch;
	const struct ci_launch *l = ci_model_load_launch(m, fl);
	if (!l || l->api != CI_LAUNCH_GRAPH)
		return 0;
	struct ci_graph_replay *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	if (!ci_graph_replay_expand(m, fl, d->launch_state[fl], g)) {
		free(g);
		struct ci_finding *f = ci_rule_add(c, CI_F_GRAPH_NOT_RECORDED);
		f->launch = (ptrdiff_t)fl;
		f->value = l->aux;
		return 0;
	}
	d->graph = g;
	struct ci_attr_vec nav __attribute__((cleanup(ci_attr_vec_deinit))) = { 0 };
	if (node_args(m, g, &nav))
		return -1;
	if (g->faulting_node >= 0)
		ci_rule_add(c, g->crumb ? CI_F_GRAPH_NODE_BY_CRUMB : CI_F_GRAPH_ONLY_NODE)->node =
			g->faulting_node;
	else if (!node_by_page(c, g, &nav) && !node_by_relation(c, g, &nav))
		node_by_bad_pointer(c, g, &nav);
	/* The faulting node's arguments are the faulting launch's. */
	for (size_t j = 0; j < nav.n; j++)
		if (g->faulting_node >= 0 && nav.v[j].launch == (size_t)g->faulting_node) {
			struct ci_attribution a = nav.v[j];
			a.launch = fl;
			if (ci_attr_push(&c->args, &a))
				return -1;
		}
	return 0;
}

int ci_rules_graphs(struct ci_rule_ctx *c)
{
	/* The node arguments the kernel-log family lent the graph launches served the Xid rule: a
	 * graph launch's own arguments are its faulting node's, no other's. */
	size_t kept = 0;
	for (size_t k = 0; k < c->args.n; k++) {
		const struct ci_launch *fl = ci_model_load_launch(c->model, c->args.v[k].launch);
		if (!fl || fl->api != CI_LAUNCH_GRAPH)
			c->args.v[kept++] = c->args.v[k];
	}
	c->args.n = kept;
	if (c->suspecting && c->diag->faulting_launch >= 0)
		return graph_fault(c);
	return 0;
}
