/* SPDX-License-Identifier: MIT */
/*
 * Graph launches expanded into their nodes, for the diagnosis (stage 5) and the views.  A
 * cuGraphLaunch is one launch in the ring; the record's graph tables (record.h, sections 20-23)
 * say which executable graph it replayed (the graph-launch ring links it to the launch by seq),
 * which graph that exec came from, and every version of every node: an exec ran its graph's
 * latest version of each ordinal made before the instantiation, replaced by the exec's own
 * latest version made before the launch (cuGraphExec*SetParams).
 *
 * Node states come from the in-graph breadcrumb (docs/RECORDER.md): the ordinal + 1 of the last
 * kernel node with a breadcrumb write after it (CI_NODE_CRUMB) that the replay in flight
 * finished.  The nodes it depends on finished too: in a captured graph a node depends on the one
 * before it on its capture stream and, for an event wait (a join), on the event record it waits
 * for.  A node whose marked kernels before it all finished may have started; a marked kernel
 * after the one whose write the slot holds (a descendant of it) did not finish and holds back
 * the rest, while one on a parallel branch may have written earlier and does not.  Kernels without a write after them (every K-th
 * kernel has one with CUDAINSPECT_GRAPH_CRUMB_EVERY=K) and child-graph nodes may finish unseen,
 * so with the next marked kernel they are a window, as a stream's launches between breadcrumbs
 * are: unknown, one of them running, chosen among by other evidence (graphs.c).  A kernel left
 * alone is in flight.  A replay that finished (its stream's breadcrumb is past it) finished
 * every node, one that had not started started none; without an in-graph breadcrumb the states
 * of a replay in flight are unknown.
 *
 * A child-graph node runs the graph of origin child the recorder made of its embedded clone
 * (or, for an exec's version of the node, of the graph cuGraphExecChildGraphNodeSetParams gave):
 * its nodes are expanded after the replayed graph's (nested ones after theirs, within depth,
 * node and work limits) and take the child-graph node's state; to the breadcrumb a child-graph
 * node with kernels inside is one kernel without a write after it.  A conditional node's bodies (graphs of origin
 * conditional_body) are expanded the same way, body by body; which of them ran is decided on
 * the device, so their nodes' states are unknown unless the replay finished or had not started.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

#define GRAPH_NODES_MAX 65536 /* nodes expanded per replay, child graphs' included, at most */
#define GRAPH_CHILD_DEPTH 8   /* child graphs within child graphs, at most */
#define GRAPH_CHILD_WORK (1u << 22) /* table entries looked at to expand child graphs, at most */
#define GRAPH_BODIES_MAX 256  /* a conditional node's bodies expanded, at most */

static uint64_t ci_mix64_reader(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static bool slot_live(const void *table, size_t count, size_t size, uint32_t slot)
{
	return slot != CI_NONE && slot < count && ci_le64((const uint8_t *)table + (size_t)slot * size);
}

/* The graph-launch entry of launch L (newest first), or NULL. */
static const struct ci_graph_launch *graph_launch_of(const struct ci_model *m, const struct ci_launch *l)
{
	for (size_t i = m->graph_launch_count; i-- > 0;)
		if (m->graph_launches[i].launch_seq == l->seq)
			return &m->graph_launches[i];
	return NULL;
}

/* The exec behind L: its own (format 1.5) or its graph launch's, else the newest with L's
 * handle instantiated before it. */
static uint32_t exec_of(const struct ci_model *m, const struct ci_launch *l, uint64_t *replay)
{
	struct ci_graph_launch gl = { .exec = CI_NONE };
	const struct ci_graph_launch *ring;
	if (ci_model_graph_launches_in_launches(m))
		gl = ci_graph_launch_of_launch(l);
	else if ((ring = graph_launch_of(m, l)))
		gl = *ring;
	*replay = gl.replay;
	if (slot_live(m->graph_execs, m->graph_exec_count, sizeof *m->graph_execs, gl.exec))
		return gl.exec;
	uint32_t best = CI_NONE;
	for (size_t i = 0; i < m->graph_exec_count; i++) {
		const struct ci_graph_exec *x = &m->graph_execs[i];
		if (x->seq && x->handle == l->aux && x->instantiate_ns <= l->time_ns)
			best = (uint32_t)i;
	}
	return best;
}

/* Whether exec slot XS is a live exec of GRAPH. */
static bool replay_of(const struct ci_model *m, uint32_t xs, uint32_t graph)
{
	return xs < m->graph_exec_count && m->graph_execs[xs].seq && m->graph_execs[xs].graph == graph;
}

/* Whether a replay of GRAPH followed launch L (index LAUNCH): from format 1.5 a launch of the
 * launch ring after it (the ring is in time order; a sparse model holds every launch after the
 * faulting one), before that an entry of the graph-launch ring. */
static bool later_replay(const struct ci_model *m, size_t launch, const struct ci_launch *l,
			 uint32_t graph)
{
	uint64_t time_ns = l->time_ns;
	if (!ci_model_graph_launches_in_launches(m)) {
		for (size_t i = 0; i < m->graph_launch_count; i++)
			if (m->graph_launches[i].time_ns > time_ns && replay_of(m, m->graph_launches[i].exec, graph))
				return true;
		return false;
	}
	for (size_t i = launch + 1; i < m->launch_count; i++) {
		const struct ci_launch *o = ci_model_launch(m, i);
		if (o && o->api == CI_LAUNCH_GRAPH && o->time_ns > time_ns && replay_of(m, o->exec, graph))
			return true;
	}
	return false;
}

void ci_graph_replay_deinit(struct ci_graph_replay *r)
{
	if (r) {
		free(r->nodes);
		r->nodes = NULL;
		r->node_count = r->graph_nodes = 0;
	}
}

void ci_graph_replay_pick(const struct ci_model *m, struct ci_graph_replay *r, size_t node)
{
	const struct ci_launch *l = ci_model_launch(m, r->launch);
	const struct ci_graph_node *n = node < r->node_count ? r->nodes[node].node : NULL;
	if (!l || !n || n->type != CI_NODE_KERNEL) {
		r->faulting_node = -1;
		return;
	}
	r->faulting_node = (ptrdiff_t)node;
	struct ci_launch *k = &r->kernel;
	*k = *l; /* stream, context, thread, time, number, seq: the graph launch's */
	k->function = n->function;
	k->function_handle = n->function_handle;
	memcpy(k->grid, n->grid, sizeof k->grid);
	memcpy(k->block, n->block, sizeof k->block);
	memset(k->cluster, 0, sizeof k->cluster);
	k->shared_mem = n->shared_mem;
	k->stack = n->stack;
	k->param_len = n->param_len <= CI_LAUNCH_PARAM_BYTES ? n->param_len : CI_LAUNCH_PARAM_BYTES;
	memcpy(k->params, n->params, sizeof k->params);
	k->flags = (uint16_t)(l->flags | (n->flags & (CI_LAUNCH_PARAMS_EXTRA | CI_LAUNCH_PARAMS_CUT)));
}

/* States of a replay in flight from its breadcrumb value V (see the file comment). */
static void states_from_crumb(const struct ci_model *m, struct ci_graph_replay *r, uint64_t v)
{
	size_t n = r->graph_nodes, n1 = n ? n : 1;
	/* Per node: finished, barrier, kernel-ish, after the written one, ready, a kernel-ish
	 * ready one before it, after it (below), one byte each. */
	uint8_t *bits = calloc(n1, 7);
	size_t *dep1 = malloc(n1 * sizeof *dep1), *dep2 = malloc(n1 * sizeof *dep2);
	if (!bits || !dep1 || !dep2) {
		free(bits), free(dep1), free(dep2);
		return; /* states stay unknown */
	}
	uint8_t *done = bits, *barrier = bits + n1, *kernelish = bits + 2 * n1, *later = bits + 3 * n1,
		*ready = bits + 4 * n1, *before = bits + 5 * n1, *after = bits + 6 * n1;
	/* Dependencies by capture order: the previous node on the same stream, and for a join
	 * the event record it waits for.  Built graphs (no stream) are a chain.  One pass: the
	 * last index per stream slot (CI_NONE last) and per event, in open-addressed tables. */
	size_t nstreams = m->stream_count + 1, evcap = 64;
	while (evcap < 2 * n)
		evcap <<= 1;
	size_t *last_on = malloc(nstreams * sizeof *last_on);
	struct { uint64_t event; size_t at; } *ev = calloc(evcap, sizeof *ev);
	if (!last_on || !ev) {
		free(last_on), free(ev), free(bits), free(dep1), free(dep2);
		return;
	}
	for (size_t i = 0; i < nstreams; i++)
		last_on[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		dep1[i] = dep2[i] = SIZE_MAX;
		const struct ci_graph_node *a = r->nodes[i].first;
		if (!a)
			continue;
		size_t lane = a->stream < m->stream_count ? a->stream : m->stream_count;
		dep1[i] = last_on[lane];
		last_on[lane] = i;
		if (a->type != CI_NODE_EVENT_RECORD && a->type != CI_NODE_EVENT_WAIT)
			continue;
		size_t h = (size_t)(ci_mix64_reader(a->a) & (evcap - 1));
		while (ev[h].event && ev[h].event != a->a + 1)
			h = (h + 1) & (evcap - 1);
		if (a->type == CI_NODE_EVENT_RECORD) {
			ev[h].event = a->a + 1; /* + 1: event 0 is a key too */
			ev[h].at = i;
		} else if (ev[h].event) {
			dep2[i] = ev[h].at;
		}
	}
	free(last_on);
	free(ev);
	if (v && v - 1 < n) {
		done[v - 1] = 1;
		for (size_t i = (size_t)(v - 1) + 1; i-- > 0;)
			if (done[i]) {
				if (dep1[i] != SIZE_MAX)
					done[dep1[i]] = 1;
				if (dep2[i] != SIZE_MAX)
					done[dep2[i]] = 1;
			}
	}
	/* The nodes that bound what the breadcrumb says are the kernels a breadcrumb write follows
	 * (CI_NODE_CRUMB, on the captured version): one that did not finish holds back what
	 * depends on it.  Kernels without one (CUDAINSPECT_GRAPH_CRUMB_EVERY above 1, a write
	 * the driver refused) and child-graph nodes may have finished unseen, so what depends on
	 * them may have started: they are a window with the next barrier, as a stream's launches
	 * between two breadcrumbs are. */
	for (size_t i = 0; i < r->node_count; i++) {
		const struct ci_graph_node *e = r->nodes[i].node;
		if (!e || e->type != CI_NODE_KERNEL)
			continue;
		size_t top = i;
		while (r->nodes[top].parent >= 0)
			top = (size_t)r->nodes[top].parent;
		kernelish[top] = 1;
		const struct ci_graph_node *f = r->nodes[i].first ? r->nodes[i].first : e;
		if (top == i && (f->flags & CI_NODE_CRUMB))
			barrier[i] = 1;
	}
	/* Of those, the ones after the node whose write the slot holds (its descendants) did not
	 * finish, or their writes would have come later.  One on a parallel branch may have
	 * finished and written before it (the slot keeps the last write only), so what depends on
	 * it may have started.  Breadcrumb 0: no write since the reset, and none finished. */
	bool placed = v && v - 1 < n;
	for (size_t i = placed ? (size_t)(v - 1) : n; i < n; i++) {
		later[i] |= i == v - 1;
		if ((dep1[i] != SIZE_MAX && later[dep1[i]]) || (dep2[i] != SIZE_MAX && later[dep2[i]]))
			later[i] = 1;
	}
	/* ready[i]: every barrier among i's ancestors that holds back finished (computed in
	 * ordinal order). */
	for (size_t i = 0; i < n; i++) {
		ready[i] = 1;
		size_t ds[2] = { dep1[i], dep2[i] };
		for (int k = 0; k < 2; k++) {
			size_t d = ds[k];
			if (d == SIZE_MAX || done[d])
				continue;
			bool holds = barrier[d] && (!placed || later[d]);
			if (holds || !ready[d])
				ready[i] = 0;
		}
	}
	/* A kernel (or child graph with kernels) that is ready with another one before or after
	 * it among the ready nodes is in a window: finished, running or not started yet.  One
	 * alone was running. */
	for (size_t i = 0; i < n; i++) {
		size_t ds[2] = { dep1[i], dep2[i] };
		for (int k = 0; k < 2 && ready[i] && !done[i]; k++)
			if (ds[k] != SIZE_MAX && ready[ds[k]] && !done[ds[k]])
				before[i] |= before[ds[k]] | kernelish[ds[k]];
	}
	for (size_t i = n; i-- > 0;) {
		size_t ds[2] = { dep1[i], dep2[i] };
		for (int k = 0; k < 2 && ready[i] && !done[i]; k++)
			if (ds[k] != SIZE_MAX && ready[ds[k]] && !done[ds[k]])
				after[ds[k]] |= after[i] | kernelish[i];
	}
	for (size_t i = 0; i < n; i++) {
		const struct ci_graph_node *x = r->nodes[i].node;
		if (!x)
			continue;
		if (done[i])
			r->nodes[i].state = CI_LS_FINISHED;
		else if (ready[i] && kernelish[i] && (before[i] || after[i]))
			r->nodes[i].state = CI_LS_UNKNOWN;
		else if (ready[i])
			r->nodes[i].state = CI_LS_IN_FLIGHT;
		else
			r->nodes[i].state = CI_LS_NOT_STARTED;
	}
	free(bits), free(dep1), free(dep2);
}

/* The graph a child-graph node E runs: the newest of origin child with E's handle made by T
 * (the recorder copies the child's nodes into it when the node is added); a conditional node's
 * first body: the newest of origin conditional_body with that handle. */
static uint32_t graph_of_node(const struct ci_model *m, const struct ci_graph_node *e, uint64_t t)
{
	uint32_t origin = e->type == CI_NODE_CONDITIONAL ? CI_GRAPH_BODY : CI_GRAPH_CHILD;
	uint32_t best = CI_NONE;
	for (size_t i = 0; i < m->graph_count; i++) {
		const struct ci_graph *g = &m->graphs[i];
		if (g->seq && g->origin == origin && g->handle == e->a && g->create_ns <= t)
			best = (uint32_t)i;
	}
	return best;
}

/* Whether slot NEXT holds a body made with FIRST (the recorder writes a node's bodies one after
 * another in one call). */
static bool is_next_body(const struct ci_model *m, uint32_t first, size_t next)
{
	return next < m->graph_count && m->graphs[next].seq && m->graphs[next].origin == CI_GRAPH_BODY &&
	       m->graphs[next].create_ns == m->graphs[first].create_ns;
}

/* Append graph CS's nodes (their latest versions made by T) as the nodes of node I (body B of a
 * conditional node, else 0).  True when the limits stopped it. */
static bool append_graph(const struct ci_model *m, const struct ci_graph_index *ix, struct ci_graph_replay *r,
			 size_t i, uint32_t cs, uint32_t b, uint64_t t, size_t *work)
{
	size_t n = m->graphs[cs].nodes, base = r->node_count;
	if (n > GRAPH_NODES_MAX - base) {
		n = GRAPH_NODES_MAX - base;
		r->children_cut = true;
	}
	struct ci_graph_node_state *v = n ? realloc(r->nodes, (base + n) * sizeof *v) : NULL;
	if (!v) {
		r->children_cut |= n != 0;
		return n != 0;
	}
	r->nodes = v;
	r->node_count = base + n;
	memset(v + base, 0, n * sizeof *v);
	for (size_t k = 0; k < n; k++) {
		v[base + k].parent = (ptrdiff_t)i;
		v[base + k].ordinal = (uint32_t)k;
		v[base + k].body = b;
	}
	bool cut = false;
	for (size_t k = ix->node_head[cs]; k != SIZE_MAX; k = ix->node_next[k]) {
		const struct ci_graph_node *c = &m->graph_nodes[k];
		if (++*work >= GRAPH_CHILD_WORK) {
			r->children_cut = cut = true;
			break;
		}
		if (c->ordinal >= n || c->time_ns > t)
			continue;
		if (!v[base + c->ordinal].first)
			v[base + c->ordinal].first = c;
		v[base + c->ordinal].node = c;
	}
	for (size_t k = base; k < base + n; k++)
		if (v[k].node && (v[k].node->flags & CI_NODE_DESTROYED))
			v[k].node = v[k].first = NULL;
	return cut || r->node_count >= GRAPH_NODES_MAX;
}

/* Append the nodes of every child-graph node's graph after the replayed graph's, each child's
 * by ordinal (their latest versions made by INST_T, the instantiation), nested ones in turn.
 * An exec's own version of a child-graph node (cuGraphExecChildGraphNodeSetParams,
 * cuGraphExecUpdate), the latest made before the launch at LAUNCH_T, runs the graph as it was
 * when that version was made: its child graph, and the nodes of that graph and of those nested
 * in it, are looked up by that version's time, not the instantiation's.  A hostile
 * record's cycles and sizes end at the depth, node and work limits (children_cut). */
static void expand_children(const struct ci_model *m, struct ci_graph_replay *r, uint64_t inst_t,
			    uint64_t launch_t)
{
	bool any = false;
	for (size_t i = 0; i < r->node_count && !any; i++)
		any = r->nodes[i].node && (r->nodes[i].node->type == CI_NODE_CHILD_GRAPH ||
					   r->nodes[i].node->type == CI_NODE_CONDITIONAL);
	struct ci_graph_index ix;
	if (!any)
		return;
	if (!ci_graph_index_init(m, &ix)) {
		r->children_cut = true;
		return;
	}
	size_t work = 0;
	for (size_t i = 0; i < r->node_count; i++) { /* node_count grows: nested ones come too */
		const struct ci_graph_node *e = r->nodes[i].node;
		if (!e || (e->type != CI_NODE_CHILD_GRAPH && e->type != CI_NODE_CONDITIONAL) ||
		    (e->flags & CI_NODE_DISABLED))
			continue;
		size_t depth = 0;
		uint64_t t = e->exec != CI_NONE ? e->time_ns : inst_t;
		for (ptrdiff_t p = r->nodes[i].parent; p >= 0; p = r->nodes[p].parent) {
			depth++;
			if (r->nodes[p].node && r->nodes[p].node->exec != CI_NONE)
				t = r->nodes[p].node->time_ns;
		}
		if (t > launch_t)
			t = launch_t;
		work += m->graph_count;
		bool deep = depth >= GRAPH_CHILD_DEPTH || work >= GRAPH_CHILD_WORK;
		uint32_t cs = deep ? CI_NONE : graph_of_node(m, e, t);
		if (cs == CI_NONE) {
			r->children_cut |= deep;
			continue; /* a child the record did not see: its nodes are not known */
		}
		uint64_t bodies = e->type == CI_NODE_CONDITIONAL ? e->b : 1;
		if (bodies > GRAPH_BODIES_MAX) {
			bodies = GRAPH_BODIES_MAX;
			r->children_cut = true;
		}
		for (uint32_t b = 0; b < bodies && !append_graph(m, &ix, r, i, cs + b, b, t, &work); b++) {
			/* Body b + 1 is the next slot when that is a body made in the same call. */
			if (b + 1 < bodies && !is_next_body(m, cs, cs + b + 1))
				break;
		}
	}
	ci_graph_index_deinit(&ix);
}

/* A child graph's nodes ran as the child-graph node did: finished or not started with it.  One
 * in flight ran its only kernel, if it has one; of several the breadcrumb cannot say which. */
static void states_of_children(struct ci_graph_replay *r)
{
	size_t *kernels = calloc(r->node_count ? r->node_count : 1, sizeof *kernels);
	for (size_t i = r->graph_nodes; kernels && i < r->node_count; i++) {
		const struct ci_graph_node *e = r->nodes[i].node;
		if (e && e->type == CI_NODE_KERNEL && !(e->flags & CI_NODE_DISABLED))
			kernels[r->nodes[i].parent]++;
	}
	for (size_t i = r->graph_nodes; i < r->node_count; i++) { /* parents come first */
		enum ci_launch_state ps = r->nodes[r->nodes[i].parent].state;
		const struct ci_graph_node *e = r->nodes[i].node;
		const struct ci_graph_node *pe = r->nodes[r->nodes[i].parent].node;
		if (pe && pe->type == CI_NODE_CONDITIONAL) /* which body ran: the device's choice */
			r->nodes[i].state = CI_LS_UNKNOWN;
		else if (ps != CI_LS_IN_FLIGHT)
			r->nodes[i].state = ps;
		else
			r->nodes[i].state = kernels && kernels[r->nodes[i].parent] == 1 && e &&
						    e->type == CI_NODE_KERNEL ? CI_LS_IN_FLIGHT : CI_LS_UNKNOWN;
	}
	free(kernels);
}

const char *ci_graph_replay_node_name(const struct ci_graph_replay *r, size_t i, char *buf, size_t size)
{
	uint32_t path[2 * (GRAPH_CHILD_DEPTH + 2)];
	size_t depth = 0;
	for (ptrdiff_t p = (ptrdiff_t)i; p >= 0 && (size_t)p < r->node_count && depth + 1 < sizeof path / sizeof *path;
	     p = r->nodes[p].parent) {
		path[depth++] = r->nodes[p].ordinal;
		ptrdiff_t up = r->nodes[p].parent;
		if (up >= 0 && (size_t)up < r->node_count && r->nodes[up].node &&
		    r->nodes[up].node->type == CI_NODE_CONDITIONAL)
			path[depth++] = r->nodes[p].body; /* "3.1.0": node 0 of body 1 of node 3 */
	}
	size_t k = 0;
	buf[0] = '\0';
	while (depth-- > 0 && k < size)
		k += (size_t)snprintf(buf + k, size - k, "%s%" PRIu32, k ? "." : "", path[depth]);
	return buf;
}

static size_t order_from(const size_t *first, const size_t *count, size_t from, size_t n, size_t *out, size_t k)
{
	for (size_t i = from; i < from + n; i++) {
		out[k++] = i;
		if (count[i]) /* depth bounded by GRAPH_CHILD_DEPTH */
			k = order_from(first, count, first[i], count[i], out, k);
	}
	return k;
}

size_t *ci_graph_replay_order(const struct ci_graph_replay *r)
{
	size_t n = r->node_count ? r->node_count : 1;
	size_t *out = malloc(n * sizeof *out), *first = malloc(n * sizeof *first);
	size_t *count = calloc(n, sizeof *count);
	if (out && first && count) {
		for (size_t i = r->graph_nodes; i < r->node_count; i++) {
			size_t p = (size_t)r->nodes[i].parent;
			if (!count[p]++)
				first[p] = i; /* a child graph's nodes are contiguous */
		}
		order_from(first, count, 0, r->graph_nodes, out, 0);
	} else {
		free(out);
		out = NULL;
	}
	free(first);
	free(count);
	return out;
}

const char *ci_graph_replay_node_where(const struct ci_graph_replay *r, size_t i, char *buf, size_t size)
{
	const struct ci_graph_node_state *s = &r->nodes[i];
	const struct ci_graph_node *pe = s->parent >= 0 ? r->nodes[s->parent].node : NULL;
	char pn[64];
	buf[0] = '\0';
	if (s->parent < 0)
		return buf;
	ci_graph_replay_node_name(r, (size_t)s->parent, pn, sizeof pn);
	if (pe && pe->type == CI_NODE_CONDITIONAL)
		snprintf(buf, size, "node %" PRIu32 " of body %" PRIu32 " of conditional node %s, if the device chose it",
			 s->ordinal, s->body, pn);
	else
		snprintf(buf, size, "node %" PRIu32 " of the graph child-graph node %s runs", s->ordinal, pn);
	return buf;
}

bool ci_graph_replay_unfinished(const struct ci_graph_replay *r, size_t i)
{
	size_t top = i;
	while (r->nodes[top].parent >= 0)
		top = (size_t)r->nodes[top].parent;
	enum ci_launch_state st = r->nodes[i].state, ts = r->nodes[top].state;
	return (st == CI_LS_IN_FLIGHT || st == CI_LS_UNKNOWN) &&
	       (ts == CI_LS_IN_FLIGHT || ts == CI_LS_UNKNOWN);
}

bool ci_graph_replay_expand(const struct ci_model *m, size_t launch, enum ci_launch_state state,
			    struct ci_graph_replay *r)
{
	memset(r, 0, sizeof *r);
	r->launch = launch;
	r->exec = r->graph = CI_NONE;
	r->faulting_node = -1;
	const struct ci_launch *l = ci_model_launch(m, launch);
	if (!l || l->api != CI_LAUNCH_GRAPH || !m->graph_exec_count)
		return false;
	uint32_t xs = exec_of(m, l, &r->replay);
	if (xs == CI_NONE)
		return false;
	const struct ci_graph_exec *x = &m->graph_execs[xs];
	r->exec = xs;
	r->graph = x->graph;
	if (!slot_live(m->graphs, m->graph_count, sizeof *m->graphs, x->graph))
		return true; /* the exec without its graph: no nodes to show */
	const struct ci_graph *g = &m->graphs[x->graph];
	size_t n = x->nodes < GRAPH_NODES_MAX ? x->nodes : GRAPH_NODES_MAX;
	if (n && !(r->nodes = calloc(n, sizeof *r->nodes)))
		return true;
	r->node_count = r->graph_nodes = n;
	for (size_t i = 0; i < n; i++) {
		r->nodes[i].parent = -1;
		r->nodes[i].ordinal = (uint32_t)i;
	}
	/* Table order is the order the versions were written (under the recorder's lock). */
	for (size_t i = 0; i < m->graph_node_count; i++) {
		const struct ci_graph_node *e = &m->graph_nodes[i];
		if (!e->seq || e->graph != x->graph || e->ordinal >= n)
			continue;
		struct ci_graph_node_state *s = &r->nodes[e->ordinal];
		if (e->exec == CI_NONE && e->time_ns <= x->instantiate_ns) {
			if (!s->first)
				s->first = e;
			if (!s->node || s->node->exec == CI_NONE)
				s->node = e;
		} else if (e->exec == xs && e->time_ns <= l->time_ns) {
			s->node = e;
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* Destroyed before the instantiation: no longer a node (nor a dependency). */
		if (r->nodes[i].node && (r->nodes[i].node->flags & CI_NODE_DESTROYED)) {
			r->nodes[i].node = r->nodes[i].first = NULL;
			r->destroyed_count++;
		}
	}
	expand_children(m, r, x->instantiate_ns, l->time_ns);
	for (size_t i = 0; i < r->node_count; i++) {
		r->nodes[i].state = state == CI_LS_IN_FLIGHT ? CI_LS_UNKNOWN : state;
		if (r->nodes[i].node && r->nodes[i].node->type == CI_NODE_KERNEL &&
		    !(r->nodes[i].node->flags & CI_NODE_DISABLED))
			r->kernel_count++;
	}
	/* A launch whose stream cannot say whether it finished (its breadcrumb was not written:
	 * the context was poisoned first) still has the in-graph one, if no later replay of the
	 * same graph overwrote it. */
	if (state == CI_LS_UNKNOWN && g->crumb_slot != CI_NONE && !later_replay(m, launch, l, x->graph))
		state = CI_LS_IN_FLIGHT;
	if (state == CI_LS_IN_FLIGHT && g->crumb_slot != CI_NONE && g->crumb_slot < m->crumb_count) {
		r->crumb = true;
		r->crumb_value = m->crumbs[g->crumb_slot];
		states_from_crumb(m, r, r->crumb_value);
		states_of_children(r);
	}
	/* The faulting node when the facts leave one: the only kernel the breadcrumb leaves
	 * unfinished (running, or in a window), or the only kernel. */
	ptrdiff_t pick = -1;
	size_t running = 0;
	for (size_t i = 0; i < r->node_count; i++) {
		const struct ci_graph_node *e = r->nodes[i].node;
		if (!e || e->type != CI_NODE_KERNEL || (e->flags & CI_NODE_DISABLED))
			continue; /* a disabled node is an empty one */
		if (r->crumb ? ci_graph_replay_unfinished(r, i) : r->kernel_count == 1) {
			pick = (ptrdiff_t)i;
			running++;
		}
	}
	if (r->crumb)
		r->crumb_unfinished = running;
	if (running == 1)
		ci_graph_replay_pick(m, r, (size_t)pick);
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Index of the graph tables for the views: chains built in one pass (bounded work however
 * large the tables of a hostile record are). */

void ci_graph_index_deinit(struct ci_graph_index *ix)
{
	free(ix->node_head), free(ix->node_next), free(ix->exec_head), free(ix->exec_next);
	free(ix->upd_head), free(ix->upd_next);
	memset(ix, 0, sizeof *ix);
}

static void chain(size_t *head, size_t *next, size_t nheads, size_t i, uint32_t key)
{
	if (key < nheads) {
		next[i] = head[key];
		head[key] = i;
	}
}

bool ci_graph_index_init(const struct ci_model *m, struct ci_graph_index *ix)
{
	memset(ix, 0, sizeof *ix);
	size_t g = m->graph_count ? m->graph_count : 1, x = m->graph_exec_count ? m->graph_exec_count : 1;
	size_t n = m->graph_node_count ? m->graph_node_count : 1;
	ix->node_head = malloc(g * sizeof(size_t)), ix->exec_head = malloc(g * sizeof(size_t));
	ix->upd_head = malloc(x * sizeof(size_t)), ix->exec_next = malloc(x * sizeof(size_t));
	ix->node_next = malloc(n * sizeof(size_t)), ix->upd_next = malloc(n * sizeof(size_t));
	if (!ix->node_head || !ix->exec_head || !ix->upd_head || !ix->exec_next || !ix->node_next ||
	    !ix->upd_next) {
		ci_graph_index_deinit(ix);
		return false;
	}
	for (size_t i = 0; i < g; i++)
		ix->node_head[i] = ix->exec_head[i] = SIZE_MAX;
	for (size_t i = 0; i < x; i++)
		ix->upd_head[i] = SIZE_MAX;
	/* Backwards, so that each chain is in table order. */
	for (size_t i = m->graph_node_count; i-- > 0;) {
		const struct ci_graph_node *e = &m->graph_nodes[i];
		ix->node_next[i] = ix->upd_next[i] = SIZE_MAX;
		if (!e->seq)
			continue;
		if (e->exec == CI_NONE)
			chain(ix->node_head, ix->node_next, m->graph_count, i, e->graph);
		else
			chain(ix->upd_head, ix->upd_next, m->graph_exec_count, i, e->exec);
	}
	for (size_t i = m->graph_exec_count; i-- > 0;) {
		ix->exec_next[i] = SIZE_MAX;
		if (m->graph_execs[i].seq)
			chain(ix->exec_head, ix->exec_next, m->graph_count, i, m->graph_execs[i].graph);
	}
	return true;
}

static int cmp_node_ordinal(const void *a, const void *b)
{
	const struct ci_graph_node *x = *(const struct ci_graph_node *const *)a;
	const struct ci_graph_node *y = *(const struct ci_graph_node *const *)b;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return x < y ? -1 : x > y; /* table order */
}

size_t ci_graph_latest_nodes(const struct ci_model *m, const struct ci_graph_index *ix, uint32_t graph,
			     const struct ci_graph_node ***ret)
{
	*ret = NULL;
	size_t k = 0;
	if (graph >= m->graph_count)
		return 0;
	for (size_t i = ix->node_head[graph]; i != SIZE_MAX; i = ix->node_next[i])
		k++;
	const struct ci_graph_node **v = malloc((k ? k : 1) * sizeof *v);
	if (!v)
		return 0;
	k = 0;
	for (size_t i = ix->node_head[graph]; i != SIZE_MAX; i = ix->node_next[i])
		v[k++] = &m->graph_nodes[i];
	qsort(v, k, sizeof *v, cmp_node_ordinal);
	size_t w = 0;
	for (size_t i = 0; i < k; i++) {
		if (w && v[w - 1]->ordinal == v[i]->ordinal)
			w--; /* a later version of the same ordinal replaces it */
		v[w++] = v[i];
	}
	*ret = v;
	return w;
}
