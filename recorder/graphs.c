/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs: what each graph is made of, which executable graphs came from it, what changed
 * in them, and every launch of one (docs/RECORDER.md, "Graphs").
 *
 * Four tables (record.h): graphs (captured or built), their nodes with the versions later calls
 * gave them, executable graphs, and a ring of graph launches with each launch's replay number.
 * A node is recorded as it is captured (a launch, copy, set, host function, event record or
 * wait enqueued on a capturing stream) or added (cuGraphAdd*Node, cuGraphAddNode), with the
 * kernel's function, shape and parameter bytes, copied as for launches, and the host stack of
 * that moment.  Captured nodes learn their CUgraphNode from cuStreamGetCaptureInfo, whose
 * "dependencies" right after an operation are the node it became, so that a later
 * cuGraphExecKernelNodeSetParams names a node the record knows.
 *
 * Graph-building calls are rare (once per graph, per batch size), so they take one lock, ask
 * the driver what they need, and allocate nothing but record entries.  The graph launch path
 * (ci_graph_replay) takes no lock: the thread's last exec or a map lookup and an atomic add on
 * the exec's launch counter; the launch entry holds the rest (format 1.5).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"

static pthread_mutex_t ci_graph_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ci_capture_deps *ci_capture_deps_of(uint32_t sslot, uint64_t id, bool claim);

void ci_graphs_forget(void)
{
	pthread_mutex_init(&ci_graph_lock, NULL);
	ci_capture_deps_of(CI_NONE, 0, false); /* (the table is cleared there) */
}

/* Map KEY to SLOT, replacing what an older object with the same handle left (handles are
 * reused once their object is destroyed).  Under the lock. */
static void ci_map_put(struct ci_map *m, uint64_t key, uint32_t slot)
{
	ci_map_remove(m, key);
	struct ci_map_slot *ms;
	uint32_t found;
	if (ci_map_claim(m, key, &ms, &found))
		ci_map_publish(ms, slot);
}

static uint32_t ci_tid_now(void)
{
	return ci_thread()->tid;
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs                                                                                     */

static struct ci_graph *ci_graph_at(uint32_t slot)
{
	return slot == CI_NONE ? NULL : ci_entry(CI_SEC_GRAPHS, slot);
}

/* A new graph entry for HANDLE, which the handle map does not name (ci_graph_new_locked maps
 * it).  Under the lock. */
static uint32_t ci_graph_new_unmapped_locked(struct ci_call *c, uint64_t handle, uint32_t origin,
					     uint32_t ctx, uint32_t stream, uint32_t mode, uint64_t capture_id)
{
	if (!ci_sec(CI_SEC_GRAPHS)->dir)
		return CI_NONE;
	uint32_t slot = ci_table_claim(CI_SEC_GRAPHS);
	if (slot == CI_NONE)
		return CI_NONE;
	struct ci_graph *g = ci_graph_at(slot);
	if (!ci_entry_begin(&g->seq)) {
		ci_count_dropped(CI_SEC_GRAPHS);
		return CI_NONE;
	}
	memset((uint8_t *)g + 8, 0, sizeof *g - 8);
	g->handle = handle;
	g->capture_id = capture_id;
	g->create_ns = c->t0;
	g->origin = origin;
	g->ctx = ctx;
	g->stream = stream;
	g->capture_mode = mode;
	g->tid = ci_tid_now();
	g->stack = ci_stack_of(c);
	g->end_stack = 0;
	/* In-graph breadcrumbs only for graphs a capture builds: built ones could get theirs
	 * only by adding nodes the application did not ask for to a graph it still edits. */
	uint64_t crumb = ci_sec(CI_SEC_STREAMS)->capacity + slot;
	g->crumb_slot = ci_cfg.crumbs && ci_cfg.graph_crumbs &&
				(origin == CI_GRAPH_CAPTURED || origin == CI_GRAPH_CAPTURED_INTO) &&
				crumb < ci_sec(CI_SEC_BREADCRUMBS)->capacity
			? (uint32_t)crumb
			: CI_NONE;
	if (g->crumb_slot != CI_NONE)
		__atomic_store_n((uint64_t *)ci_entry(CI_SEC_BREADCRUMBS, crumb), 0, __ATOMIC_RELAXED);
	ci_entry_publish(&g->seq, (uint64_t)slot + 1);
	return slot;
}

/* A new graph entry for HANDLE (replacing an older graph with that handle in the map).  Under
 * the lock. */
static uint32_t ci_graph_new_locked(struct ci_call *c, uint64_t handle, uint32_t origin,
				    uint32_t ctx, uint32_t stream, uint32_t mode, uint64_t capture_id)
{
	uint32_t slot = ci_graph_new_unmapped_locked(c, handle, origin, ctx, stream, mode, capture_id);
	if (handle && slot != CI_NONE)
		ci_map_put(&ci_rec.graph_map, handle, slot);
	return slot;
}

/* The slot of graph HANDLE, registering it as unseen when the recorder missed its creation.
 * Under the lock. */
static uint32_t ci_graph_slot_locked(struct ci_call *c, uint64_t handle)
{
	if (!handle)
		return CI_NONE;
	uint32_t slot = ci_map_get(&ci_rec.graph_map, handle);
	if (slot != CI_NONE)
		return slot;
	return ci_graph_new_locked(c, handle, CI_GRAPH_UNSEEN, ci_ctx_current_slot(), CI_NONE, 0, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Nodes                                                                                      */

/* In-graph breadcrumbs need a driver that captures stream memory operations as nodes (CUDA
 * 11.7): asked once.  An operation a capture does not support would invalidate the
 * application's capture, so on older drivers, or once a write was refused, there are none.
 * 0: not asked yet, 1: yes, 2: no. */
static int ci_graph_crumbs_state;

static bool ci_graph_crumbs_capturable(void)
{
	int st = __atomic_load_n(&ci_graph_crumbs_state, __ATOMIC_RELAXED);
	if (!st) {
		int v = 0;
		st = CI_REAL(cuDriverGetVersion, &v) == CUDA_SUCCESS && v >= 11070 ? 1 : 2;
		__atomic_store_n(&ci_graph_crumbs_state, st, __ATOMIC_RELAXED);
		if (st == 2)
			ci_say("in-graph breadcrumbs are off: this driver (CUDA %d.%d) cannot capture "
			       "stream memory operations (CUDA 11.7 can); graphs are recorded without them",
			       v / 1000, v % 1000 / 10);
	}
	return st == 1;
}

/* A node table entry for a version of a node of G, being written (publish it); NULL when the
 * table is full or the slot busy, counted as dropped there and in G. */
static struct ci_graph_node *ci_node_claim_locked(struct ci_graph *g, uint32_t *slot)
{
	*slot = ci_table_claim(CI_SEC_GRAPH_NODES);
	struct ci_graph_node *e = *slot == CI_NONE ? NULL : ci_entry(CI_SEC_GRAPH_NODES, *slot);
	if (e && !ci_entry_begin(&e->seq)) {
		ci_count_dropped(CI_SEC_GRAPH_NODES);
		e = NULL;
	}
	if (!e && g)
		__atomic_fetch_add(&g->nodes_dropped, 1, __ATOMIC_RELAXED);
	return e;
}

/* Record one node version.  ORDINAL CI_NONE: a new node of GRAPH (the next ordinal). */
static uint32_t ci_node_record_locked(struct ci_call *c, uint32_t graph, uint32_t exec,
				      uint32_t ordinal, const struct ci_node_args *n, uint16_t flags)
{
	struct ci_graph *g = ci_graph_at(graph);
	if (!g || !ci_sec(CI_SEC_GRAPH_NODES)->dir)
		return CI_NONE;
	if (ordinal == CI_NONE)
		ordinal = __atomic_fetch_add(&g->nodes, 1, __ATOMIC_RELAXED);
	uint32_t slot;
	struct ci_graph_node *e = ci_node_claim_locked(g, &slot);
	if (!e)
		return CI_NONE;
	memset((uint8_t *)e + 8, 0, offsetof(struct ci_graph_node, params) - 8);
	uint32_t fslot = n->func && n->type == CI_NODE_KERNEL ? ci_function_slot(n->func) : CI_NONE;
	e->time_ns = c->t0;
	e->handle = n->handle;
	e->function_handle = n->func;
	e->a = n->a;
	e->b = n->b;
	e->bytes = n->bytes;
	e->graph = graph;
	e->exec = exec;
	e->ordinal = ordinal;
	e->type = n->type;
	e->function = fslot;
	e->stream = n->stream;
	e->tid = ci_tid_now();
	e->stack = ci_cfg.stack_mode != CI_STACKS_OFF ? ci_stack_of(c) : 0;
	memcpy(e->grid, n->grid, sizeof e->grid);
	memcpy(e->block, n->block, sizeof e->block);
	e->shared_mem = n->shared;
	uint16_t pflags = 0;
	const struct ci_func_priv *fp = fslot != CI_NONE ? &ci_rec.funcs[fslot] : NULL;
	e->param_len = n->type == CI_NODE_KERNEL
			       ? ci_params_copy(e->params, CI_LAUNCH_PARAM_BYTES, fp, n->params,
						 n->extra, &pflags)
			       : (memset(e->params, 0, sizeof e->params), 0);
	e->flags = flags | pflags;
	e->dep_count = n->dep_count;
	for (int i = 0; i < CI_NODE_DEPS; i++)
		e->deps[i] = i < (int)n->dep_count ? n->deps[i] : CI_NONE;
	ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	if (n->handle && exec == CI_NONE) {
		ci_map_put(&ci_rec.node_map, n->handle, slot);
	}
	return slot;
}

bool ci_capture_info(uint64_t stream, struct ci_capture *out)
{
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	cuuint64_t id = 0;
	CUgraph g = NULL;
	const CUgraphNode *deps = NULL;
	size_t n = 0;
	memset(out, 0, sizeof *out);
	CUresult r = CI_REAL(cuStreamGetCaptureInfo_v2, (CUstream)stream, &st, &id, &g, &deps, &n);
	if (r == CUDA_ERROR_NOT_FOUND) /* a driver before 11.3 */
		r = CI_REAL(cuStreamIsCapturing, (CUstream)stream, &st);
	if (r != CUDA_SUCCESS || st == CU_STREAM_CAPTURE_STATUS_NONE)
		return false;
	out->active = st == CU_STREAM_CAPTURE_STATUS_ACTIVE;
	out->id = id;
	out->graph = CI_U64(g);
	/* Right after an operation, the capture's dependency set is the node it became. */
	out->node = n == 1 && deps ? CI_U64(deps[0]) : 0;
	out->ndeps = deps ? (uint32_t)n : 0;
	for (uint32_t i = 0; i < out->ndeps && i < CI_NODE_DEPS; i++)
		out->deps[i] = CI_U64(deps[i]);
	return true;
}

/* The dependency set the next node captured on a stream gets: the capture's set right after
 * the stream's last captured operation (or cuStreamUpdateCaptureDependencies), by ordinal, so
 * that a capture forked and joined across streams by events keeps its edges.  A small table
 * (streams capturing at once), under the lock; a stream it has no room for gets no edges. */
#define CI_CAPTURE_STREAMS 64
static struct ci_capture_deps {
	uint64_t id; /* the capture, 0 = free */
	uint32_t sslot, graph, n, ord[CI_NODE_DEPS];
} ci_capture_deps[CI_CAPTURE_STREAMS];

static struct ci_capture_deps *ci_capture_deps_of(uint32_t sslot, uint64_t id, bool claim)
{
	struct ci_capture_deps *free_one = NULL;
	if (sslot == CI_NONE) { /* after fork: no capture came along */
		memset(ci_capture_deps, 0, sizeof ci_capture_deps);
		return NULL;
	}
	for (int i = 0; i < CI_CAPTURE_STREAMS; i++) {
		struct ci_capture_deps *d = &ci_capture_deps[i];
		if (d->id && d->sslot == sslot)
			return d->id == id || claim ? d : NULL;
		if (!free_one && (!d->id || ci_rec.streams[d->sslot].destroyed))
			free_one = d;
	}
	return claim ? free_one : NULL;
}

/* Remember CAP's dependency set for the next node of stream SSLOT (graph slot GRAPH). */
static void ci_capture_deps_save_locked(uint32_t sslot, uint32_t graph, const struct ci_capture *cap)
{
	struct ci_capture_deps *d = ci_capture_deps_of(sslot, cap->id, true);
	if (!d)
		return;
	d->id = cap->id;
	d->sslot = sslot;
	d->graph = graph;
	d->n = cap->ndeps;
	for (uint32_t i = 0; i < CI_NODE_DEPS; i++) {
		uint32_t ds = i < cap->ndeps ? ci_map_get(&ci_rec.node_map, cap->deps[i]) : CI_NONE;
		const struct ci_graph_node *e = ds != CI_NONE ? ci_entry(CI_SEC_GRAPH_NODES, ds) : NULL;
		d->ord[i] = e && e->graph == graph ? e->ordinal : CI_NONE;
	}
}

void ci_graph_captured(struct ci_call *c, uint32_t sslot, const struct ci_capture *known,
		       struct ci_node_args *n)
{
	/* The legacy stream never captures, and asking it while a blocking stream captures is
	 * an implicit dependency on that capture: leave it alone. */
	if (!ci_rec.base || sslot == CI_NONE || ci_rec.streams[sslot].kind == CI_STREAM_LEGACY)
		return;
	struct ci_capture cap;
	if (known)
		cap = *known;
	else if (!ci_capture_info(ci_rec.streams[sslot].handle, &cap))
		return;
	if (!cap.active || !cap.graph)
		return;
	/* An event record or wait in a capture forks or joins it without a node of its own. */
	n->handle = n->type == CI_NODE_EVENT_RECORD || n->type == CI_NODE_EVENT_WAIT ? 0 : cap.node;
	n->stream = sslot;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t graph = ci_map_get(&ci_rec.graph_map, cap.graph);
	if (graph == CI_NONE)
		graph = ci_graph_new_locked(c, cap.graph, CI_GRAPH_CAPTURED, ci_rec.streams[sslot].ctx,
					    sslot, 0, cap.id);
	struct ci_graph *g = ci_graph_at(graph);
	uint32_t crumb_slot = g ? g->crumb_slot : CI_NONE;
	/* Its dependencies: the set the capture had before it, as the stream last saw it. */
	const struct ci_capture_deps *d = ci_capture_deps_of(sslot, cap.id, false);
	if (d && d->graph == graph) {
		n->dep_count = d->n;
		memcpy(n->deps, d->ord, sizeof n->deps);
	}
	uint64_t at = 0;
	uint32_t width = 8;
	/* Every K-th kernel the capture adds is followed by a breadcrumb write: the ones between
	 * are a window the reader narrows with other evidence (docs/RECORDER.md). */
	if (crumb_slot != CI_NONE && n->type == CI_NODE_KERNEL &&
	    ++g->crumb_kernels % ci_cfg.graph_crumb_every == 0 && ci_graph_crumbs_capturable())
		at = ci_crumb_address(ci_rec.streams[sslot].ctx, crumb_slot, &width);
	uint32_t slot = ci_node_record_locked(c, graph, CI_NONE, CI_NONE, n, at ? CI_NODE_CRUMB : 0);
	ci_capture_deps_save_locked(sslot, graph, &cap);
	if (at && slot != CI_NONE) {
		/* The in-graph breadcrumb: a memory write node right after the kernel, of its
		 * ordinal + 1, into the graph's slot (docs/RECORDER.md, "In-graph breadcrumbs"). */
		struct ci_graph_node *e = ci_entry(CI_SEC_GRAPH_NODES, slot);
		struct ci_setup_scope sc;
		ci_setup_enter(&sc);
		CUresult r = ci_crumb_write(ci_rec.streams[sslot].handle, at, width, e->ordinal + 1ull);
		ci_setup_leave(&sc);
		if (r != CUDA_SUCCESS) {
			__atomic_fetch_and(&e->flags, (uint16_t)~CI_NODE_CRUMB, __ATOMIC_RELAXED);
			/* The driver refused the write in a capture: never try again. */
			__atomic_store_n(&ci_graph_crumbs_state, 2, __ATOMIC_RELAXED);
		} else {
			/* The write node stands for its kernel in the edges of later nodes (of this
			 * stream, and of streams that join after it). */
			struct ci_capture w;
			if (ci_capture_info(ci_rec.streams[sslot].handle, &w) && w.node && w.node != cap.node)
				ci_map_put(&ci_rec.node_map, w.node, slot);
		}
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_capture_deps_changed(struct ci_call *c, CUresult r, CUstream s)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	uint32_t sslot = ci_stream_slot(s, c);
	struct ci_capture cap;
	if (sslot == CI_NONE || !ci_capture_info(ci_rec.streams[sslot].handle, &cap) || !cap.graph)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t graph = ci_map_get(&ci_rec.graph_map, cap.graph);
	if (graph != CI_NONE)
		ci_capture_deps_save_locked(sslot, graph, &cap);
	pthread_mutex_unlock(&ci_graph_lock);
}

/* ---------------------------------------------------------------------------------------- */
/* Capture, instantiation, launches                                                           */

void ci_graph_capture_begin(struct ci_call *c, uint32_t sslot, unsigned mode, uint64_t into)
{
	if (!ci_rec.base || sslot == CI_NONE)
		return;
	struct ci_capture cap;
	if (!ci_capture_info(ci_rec.streams[sslot].handle, &cap))
		return;
	uint64_t handle = cap.graph ? cap.graph : into;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t slot = into ? ci_map_get(&ci_rec.graph_map, into) : CI_NONE;
	if (slot == CI_NONE)
		slot = ci_graph_new_locked(c, handle, into ? CI_GRAPH_CAPTURED_INTO : CI_GRAPH_CAPTURED,
					   ci_rec.streams[sslot].ctx, sslot, mode, cap.id);
	else if (ci_graph_at(slot)->origin == CI_GRAPH_BUILT) {
		struct ci_graph *g = ci_graph_at(slot);
		g->origin = CI_GRAPH_CAPTURED_INTO; /* 32-bit stores, never torn */
		/* What the capture adds may carry in-graph breadcrumbs now. */
		uint64_t crumb = ci_sec(CI_SEC_STREAMS)->capacity + slot;
		if (g->crumb_slot == CI_NONE && ci_cfg.crumbs && ci_cfg.graph_crumbs &&
		    crumb < ci_sec(CI_SEC_BREADCRUMBS)->capacity) {
			__atomic_store_n((uint64_t *)ci_entry(CI_SEC_BREADCRUMBS, crumb), 0, __ATOMIC_RELAXED);
			__atomic_store_n(&g->crumb_slot, (uint32_t)crumb, __ATOMIC_RELEASE);
		}
	}
	if (slot != CI_NONE)
		ci_capture_deps_save_locked(sslot, slot, &cap);
	uint32_t crumb_slot = slot != CI_NONE ? ci_graph_at(slot)->crumb_slot : CI_NONE;
	pthread_mutex_unlock(&ci_graph_lock);
	/* The in-graph breadcrumb's reset: a write of 0 into the graph's slot as the capture's
	 * first node, so that every replay starts from 0 on the GPU with no host call per replay
	 * (a write before each cuGraphLaunch cost as much as the graph launch itself on the H200).
	 * The dependencies saved above are the capture's as the application made them: the nodes
	 * it captures next are roots to it, as they are without the recorder. */
	uint32_t width = 8;
	uint64_t at = crumb_slot != CI_NONE && ci_graph_crumbs_capturable()
			      ? ci_crumb_address(ci_rec.streams[sslot].ctx, crumb_slot, &width)
			      : 0;
	if (at) {
		struct ci_setup_scope sc;
		ci_setup_enter(&sc);
		if (ci_crumb_write(ci_rec.streams[sslot].handle, at, width, 0) != CUDA_SUCCESS)
			__atomic_store_n(&ci_graph_crumbs_state, 2, __ATOMIC_RELAXED);
		ci_setup_leave(&sc);
	}
}

void ci_graph_capture_end(struct ci_call *c, CUresult r, uint64_t graph, uint64_t began)
{
	if (!ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t slot = graph || began ? ci_map_get(&ci_rec.graph_map, graph ? graph : began) : CI_NONE;
	/* An invalidated capture names no graph, before or after: the newest capture begun on
	 * this stream that has not ended. */
	struct ci_sec *gs = ci_sec(CI_SEC_GRAPHS);
	uint64_t head = gs->dir ? __atomic_load_n(&gs->dir->head, __ATOMIC_RELAXED) : 0;
	for (uint64_t i = head < gs->capacity ? head : gs->capacity; slot == CI_NONE && c->stream != CI_NONE && i-- > 0;) {
		const struct ci_graph *o = ci_graph_at((uint32_t)i);
		if (o->seq == i + 1 && o->stream == c->stream && o->origin != CI_GRAPH_BUILT &&
		    !(o->flags & (CI_GRAPH_ENDED | CI_GRAPH_INVALIDATED)))
			slot = (uint32_t)i;
	}
	struct ci_graph *g = ci_graph_at(slot);
	if (g) {
		__atomic_store_n(&g->end_ns, c->t0, __ATOMIC_RELAXED);
		g->end_stack = ci_cfg.stack_mode != CI_STACKS_OFF ? ci_stack_of(c) : 0;
		__atomic_fetch_or(&g->flags, r == CUDA_SUCCESS ? CI_GRAPH_ENDED : CI_GRAPH_INVALIDATED,
				  __ATOMIC_RELAXED);
		if (r != CUDA_SUCCESS && g->handle)
			ci_map_remove(&ci_rec.graph_map, g->handle); /* no graph came of it */
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

/* The graph a capture on stream SSLOT is building, for capture end (which loses it). */
uint64_t ci_graph_of_capture(uint32_t sslot)
{
	struct ci_capture cap;
	if (sslot == CI_NONE || !ci_capture_info(ci_rec.streams[sslot].handle, &cap))
		return 0;
	return cap.graph;
}

void ci_graph_created(struct ci_call *c, CUresult r, uint64_t graph)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	ci_graph_new_locked(c, graph, CI_GRAPH_BUILT, ci_ctx_current_slot(), CI_NONE, 0, 0);
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_destroyed(struct ci_call *c, CUresult r, uint64_t graph)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	struct ci_graph *g = ci_graph_at(ci_map_get(&ci_rec.graph_map, graph));
	if (g)
		__atomic_store_n(&g->destroy_ns, c->t0, __ATOMIC_RELAXED);
	ci_map_remove(&ci_rec.graph_map, graph);
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_node_added(struct ci_call *c, CUresult r, uint64_t graph, struct ci_node_args *n)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	n->stream = CI_NONE;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t slot = ci_graph_slot_locked(c, graph);
	/* Its dependencies (CI_DEPS put them in the call's scratch) by ordinal. */
	const CUgraphNode *deps = (const CUgraphNode *)(uintptr_t)c->pre_value;
	n->dep_count = deps ? c->pre_slot : 0;
	for (uint32_t i = 0; i < n->dep_count && i < CI_NODE_DEPS; i++) {
		uint32_t ds = ci_map_get(&ci_rec.node_map, CI_U64(deps[i]));
		const struct ci_graph_node *d = ds != CI_NONE ? ci_entry(CI_SEC_GRAPH_NODES, ds) : NULL;
		n->deps[i] = d && d->graph == slot ? d->ordinal : CI_NONE;
	}
	ci_node_record_locked(c, slot, CI_NONE, CI_NONE, n, 0);
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_node_updated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			   struct ci_node_args *n, uint16_t flags)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t nslot = ci_map_get(&ci_rec.node_map, node);
	uint32_t xslot = exec ? ci_map_get(&ci_rec.exec_map, exec) : CI_NONE;
	if (nslot != CI_NONE && (!exec || xslot != CI_NONE)) {
		const struct ci_graph_node *old = ci_entry(CI_SEC_GRAPH_NODES, nslot);
		/* A graph's new version is the one the handle names from now on (the map follows);
		 * an exec's leaves the map alone. */
		n->handle = node;
		n->stream = old->stream;
		if (!n->type)
			n->type = old->type;
		n->dep_count = old->dep_count;
		memcpy(n->deps, old->deps, sizeof n->deps);
		ci_node_record_locked(c, old->graph, xslot, old->ordinal, n, flags | CI_NODE_UPDATE);
		struct ci_graph_exec *x = xslot != CI_NONE ? ci_entry(CI_SEC_GRAPH_EXECS, xslot) : NULL;
		if (x)
			__atomic_fetch_add(&x->updates, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_instantiated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph,
			   uint64_t flags)
{
	if (r != CUDA_SUCCESS || !ci_rec.base || !ci_sec(CI_SEC_GRAPH_EXECS)->dir)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t gslot = ci_graph_slot_locked(c, graph);
	uint32_t slot = ci_table_claim(CI_SEC_GRAPH_EXECS);
	struct ci_graph_exec *x = slot == CI_NONE ? NULL : ci_entry(CI_SEC_GRAPH_EXECS, slot);
	if (x && !ci_entry_begin(&x->seq)) {
		ci_count_dropped(CI_SEC_GRAPH_EXECS);
		x = NULL;
	}
	if (x) {
		memset((uint8_t *)x + 8, 0, sizeof *x - 8);
		struct ci_graph *g = ci_graph_at(gslot);
		x->handle = exec;
		x->graph_handle = graph;
		x->instantiate_ns = c->t0;
		x->flags = flags;
		x->graph = gslot;
		x->nodes = g ? __atomic_load_n(&g->nodes, __ATOMIC_RELAXED) : 0;
		x->tid = ci_tid_now();
		x->stack = ci_stack_of(c);
		ci_entry_publish(&x->seq, (uint64_t)slot + 1);
		ci_map_put(&ci_rec.exec_map, exec, slot);
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_exec_destroyed(struct ci_call *c, CUresult r, uint64_t exec)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t slot = ci_map_get(&ci_rec.exec_map, exec);
	if (slot != CI_NONE) {
		struct ci_graph_exec *x = ci_entry(CI_SEC_GRAPH_EXECS, slot);
		__atomic_store_n(&x->destroy_ns, c->t0, __ATOMIC_RELAXED);
	}
	ci_map_remove(&ci_rec.exec_map, exec);
	pthread_mutex_unlock(&ci_graph_lock);
}

/* The launch path: no lock. */
uint64_t ci_graph_replay(CUresult r, uint64_t exec, uint32_t *slot_out)
{
	*slot_out = CI_NONE;
	if (!ci_rec.base)
		return 0;
	/* The thread's last exec, without the map: still the one HANDLE names while its entry
	 * says so and it was not destroyed (a handle reused after cuGraphExecDestroy is a new
	 * entry; the map names that one). */
	struct ci_tls *t = ci_thread();
	uint32_t slot = t->last_xslot;
	struct ci_graph_exec *x = NULL;
	if (exec && exec == t->last_exec && slot < ci_sec(CI_SEC_GRAPH_EXECS)->capacity) {
		x = ci_entry(CI_SEC_GRAPH_EXECS, slot);
		if (__atomic_load_n(&x->handle, __ATOMIC_RELAXED) != exec ||
		    __atomic_load_n(&x->destroy_ns, __ATOMIC_RELAXED))
			x = NULL;
	}
	if (!x) {
		slot = ci_map_get(&ci_rec.exec_map, exec);
		x = slot != CI_NONE ? ci_entry(CI_SEC_GRAPH_EXECS, slot) : NULL;
		t->last_exec = x ? exec : 0;
		t->last_xslot = slot;
	}
	if (!x)
		return 0;
	*slot_out = slot;
	return r == CUDA_SUCCESS ? __atomic_add_fetch(&x->launches, 1, __ATOMIC_RELAXED) : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Hooks of explicit construction and updates                                                 */

static struct ci_node_args ci_kernel_args(const CUDA_KERNEL_NODE_PARAMS *p)
{
	if (!p)
		return (struct ci_node_args){ .type = CI_NODE_KERNEL };
	return (struct ci_node_args){
		.type = CI_NODE_KERNEL,
		.func = p->func ? CI_U64(p->func) : CI_U64(p->kern),
		.grid = { p->gridDimX, p->gridDimY, p->gridDimZ },
		.block = { p->blockDimX, p->blockDimY, p->blockDimZ },
		.shared = p->sharedMemBytes,
		.params = p->kernelParams,
		.extra = p->extra,
	};
}

/* A 1D copy's addresses: device or unified pointers, host pointers as they are. */
static struct ci_node_args ci_memcpy_args(const CUDA_MEMCPY3D *p)
{
	struct ci_node_args n = { .type = CI_NODE_MEMCPY };
	if (!p)
		return n;
	n.a = (p->dstMemoryType == CU_MEMORYTYPE_HOST ? CI_U64(p->dstHost) : p->dstDevice) +
	      p->dstXInBytes;
	n.b = (p->srcMemoryType == CU_MEMORYTYPE_HOST ? CI_U64(p->srcHost) : p->srcDevice) +
	      p->srcXInBytes;
	n.bytes = (uint64_t)p->WidthInBytes * (p->Height ? p->Height : 1) * (p->Depth ? p->Depth : 1);
	return n;
}

static struct ci_node_args ci_memset_args(CUdeviceptr dst, unsigned value, unsigned elem,
					  size_t width, size_t height)
{
	return (struct ci_node_args){ .type = CI_NODE_MEMSET, .a = dst, .b = value,
				      .bytes = (uint64_t)elem * width * (height ? height : 1) };
}

/* cuGraphAddNode / cuGraphNodeSetParams: the parameter union by type. */
static struct ci_node_args ci_params_args(const CUgraphNodeParams *p)
{
	struct ci_node_args n = { 0 };
	if (!p)
		return n;
	n.type = (uint32_t)p->type + 1;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL: {
		const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
		CUDA_KERNEL_NODE_PARAMS v2 = { k->func, k->gridDimX, k->gridDimY, k->gridDimZ,
					       k->blockDimX, k->blockDimY, k->blockDimZ,
					       k->sharedMemBytes, k->kernelParams, k->extra,
					       k->kern, k->ctx };
		return ci_kernel_args(&v2);
	}
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		return ci_memcpy_args(&p->memcpy.copyParams);
	case CU_GRAPH_NODE_TYPE_MEMSET:
		return ci_memset_args(p->memset.dst, p->memset.value, p->memset.elementSize,
				      p->memset.width, p->memset.height);
	case CU_GRAPH_NODE_TYPE_HOST:
		n.func = CI_U64(p->host.fn);
		break;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		n.a = CI_U64(p->graph.graph);
		break;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		n.a = CI_U64(p->eventWait.event);
		break;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		n.a = CI_U64(p->eventRecord.event);
		break;
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
		n.a = CI_SEM_FIRST(&p->extSemSignal);
		n.b = CI_SEM_COUNT(&p->extSemSignal);
		break;
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
		n.a = CI_SEM_FIRST(&p->extSemWait);
		n.b = CI_SEM_COUNT(&p->extSemWait);
		break;
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		n.a = p->alloc.dptr;
		n.bytes = p->alloc.bytesize;
		break;
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		n.a = p->free.dptr;
		break;
	default:
		break;
	}
	return n;
}

void ci_on_graph_add_kernel(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_KERNEL_NODE_PARAMS *p)
{
	struct ci_node_args n = ci_kernel_args(p);
	n.handle = node;
	ci_graph_node_added(c, r, graph, &n);
}

void ci_on_graph_add_memcpy(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_MEMCPY3D *p)
{
	struct ci_node_args n = ci_memcpy_args(p);
	n.handle = node;
	ci_graph_node_added(c, r, graph, &n);
}

void ci_on_graph_add_memset(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_MEMSET_NODE_PARAMS *p)
{
	struct ci_node_args n = p ? ci_memset_args(p->dst, p->value, p->elementSize, p->width,
						   p->height)
				  : (struct ci_node_args){ .type = CI_NODE_MEMSET };
	n.handle = node;
	ci_graph_node_added(c, r, graph, &n);
}

void ci_on_graph_add(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint32_t type,
		     uint64_t func, uint64_t a, uint64_t bytes)
{
	struct ci_node_args n = { .type = type, .handle = node, .func = func, .a = a,
				  .bytes = bytes };
	ci_graph_node_added(c, r, graph, &n);
}

/* A conditional node: the node (`a` its first body, `b` how many, `bytes` the condition's type)
 * and each body the driver made (phGraph_out) as a graph of origin conditional_body, in slots
 * one after another under the graph lock, so that the reader finds body i at the first one's
 * slot + i, and the nodes the application then adds to a body land in it. */
static void ci_graph_conditional_added(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
				       const CUDA_CONDITIONAL_NODE_PARAMS *p)
{
	unsigned n = r == CUDA_SUCCESS && p->phGraph_out ? p->size : 0;
	struct ci_node_args a = { .type = CI_NODE_CONDITIONAL, .handle = node,
				  .a = n ? CI_U64(p->phGraph_out[0]) : 0, .b = n,
				  .bytes = (uint64_t)p->type };
	ci_graph_node_added(c, r, graph, &a);
	if (!n || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	const struct ci_graph *g = ci_graph_at(ci_map_get(&ci_rec.graph_map, graph));
	for (unsigned i = 0; i < n; i++)
		if (ci_graph_new_locked(c, CI_U64(p->phGraph_out[i]), CI_GRAPH_BODY, g ? g->ctx : CI_NONE, CI_NONE, 0,
					0) == CI_NONE)
			break; /* the table is full: the bodies after it are not recorded either */
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_on_graph_add_params(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUgraphNodeParams *p)
{
	/* A child graph is cloned into the node, as by cuGraphAddChildGraphNode. */
	if (p && p->type == CU_GRAPH_NODE_TYPE_GRAPH) {
		ci_on_graph_add_child(c, r, node, graph, CI_U64(p->graph.graph));
		return;
	}
	if (p && p->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
		ci_graph_conditional_added(c, r, node, graph, &p->conditional);
		return;
	}
	struct ci_node_args n = ci_params_args(p);
	n.handle = node;
	ci_graph_node_added(c, r, graph, &n);
}

void ci_on_graph_kernel_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_KERNEL_NODE_PARAMS *p)
{
	struct ci_node_args n = ci_kernel_args(p);
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

void ci_on_graph_params_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUgraphNodeParams *p)
{
	struct ci_node_args n = ci_params_args(p);
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Clones, exec updates, enabling                                                             */

/* The latest version of ORDINAL in GRAPH: the exec's own when EXEC is not CI_NONE and it has
 * one, else the graph's.  Under the lock. */
static const struct ci_graph_node *ci_node_latest_locked(uint32_t graph, uint32_t exec, uint32_t ordinal)
{
	const struct ci_graph_node *own = NULL, *base = NULL;
	struct ci_sec *sec = ci_sec(CI_SEC_GRAPH_NODES);
	uint64_t n = sec->dir ? __atomic_load_n(&sec->dir->head, __ATOMIC_RELAXED) : 0;
	for (uint64_t i = 0; i < n && i < sec->capacity; i++) {
		const struct ci_graph_node *e = ci_entry(CI_SEC_GRAPH_NODES, i);
		if (e->seq != i + 1 || e->graph != graph || e->ordinal != ordinal)
			continue;
		if (e->exec == CI_NONE)
			base = e;
		else if (exec != CI_NONE && e->exec == exec)
			own = e;
	}
	return own ? own : base;
}

/* Dependency list edits of ci_node_copy_locked. */
enum { CI_DEP_KEEP, CI_DEP_ADD, CI_DEP_REMOVE };

static void ci_deps_edit(struct ci_graph_node *e, int how, uint32_t ord)
{
	uint32_t kept = e->dep_count < CI_NODE_DEPS ? e->dep_count : CI_NODE_DEPS;
	if (how == CI_DEP_ADD) {
		if (kept < CI_NODE_DEPS)
			e->deps[kept] = ord;
		e->dep_count++;
		return;
	}
	/* Remove ORD, else one unknown ordinal, else one of those past the kept ones. */
	uint32_t at = kept;
	for (uint32_t i = 0; i < kept && at == kept; i++)
		if (e->deps[i] == ord)
			at = i;
	for (uint32_t i = 0; i < kept && at == kept; i++)
		if (e->deps[i] == CI_NONE)
			at = i;
	if (at == kept && e->dep_count <= CI_NODE_DEPS)
		return;
	for (uint32_t i = at; i + 1 < kept; i++)
		e->deps[i] = e->deps[i + 1];
	if (at < kept)
		e->deps[kept - 1] = CI_NONE;
	e->dep_count--;
}

/* A new version copied from SRC: of GRAPH's ordinal, for EXEC (CI_NONE: the graph's), with
 * HANDLE, flags changed by SET and CLEAR, its dependency list edited (HOW: CI_DEP_*, ORD); its
 * stack and thread are this call's, or SRC's when KEEP_ORIGIN (a copy in a clone: the node was
 * made where SRC was).  Under the lock. */
static void ci_node_copy_edit_locked(struct ci_call *c, const struct ci_graph_node *src, uint32_t graph,
				     uint32_t exec, uint64_t handle, uint16_t set, uint16_t clear, int how,
				     uint32_t ord, bool keep_origin)
{
	uint32_t slot;
	struct ci_graph_node *e = ci_node_claim_locked(ci_graph_at(graph), &slot);
	if (!e)
		return;
	memcpy((uint8_t *)e + 8, (const uint8_t *)src + 8, sizeof *e - 8);
	e->time_ns = c->t0;
	e->graph = graph;
	e->exec = exec;
	e->handle = handle;
	if (!keep_origin) {
		e->tid = ci_tid_now();
		e->stack = ci_cfg.stack_mode != CI_STACKS_OFF ? ci_stack_of(c) : 0;
	}
	e->flags = (uint16_t)((e->flags | set) & ~clear);
	if (how != CI_DEP_KEEP)
		ci_deps_edit(e, how, ord);
	ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	if (handle && exec == CI_NONE)
		ci_map_put(&ci_rec.node_map, handle, slot);
}

static void ci_node_copy_locked(struct ci_call *c, const struct ci_graph_node *src, uint32_t graph,
				uint32_t exec, uint64_t handle, uint16_t set, uint16_t clear)
{
	ci_node_copy_edit_locked(c, src, graph, exec, handle, set, clear, CI_DEP_KEEP, 0, false);
}

void ci_graph_edges(struct ci_call *c, CUresult r, const CUgraphNode *from, const CUgraphNode *to, size_t n,
		    bool add)
{
	if (r != CUDA_SUCCESS || !ci_rec.base || !from || !to)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	for (size_t i = 0; i < n; i++) {
		uint32_t ts = ci_map_get(&ci_rec.node_map, CI_U64(to[i]));
		uint32_t fs = ci_map_get(&ci_rec.node_map, CI_U64(from[i]));
		if (ts == CI_NONE)
			continue;
		/* The map names the graph's latest version of the node: the new one follows it. */
		const struct ci_graph_node *t = ci_entry(CI_SEC_GRAPH_NODES, ts);
		const struct ci_graph_node *f = fs != CI_NONE ? ci_entry(CI_SEC_GRAPH_NODES, fs) : NULL;
		ci_node_copy_edit_locked(c, t, t->graph, CI_NONE, t->handle, CI_NODE_UPDATE, 0,
					 add ? CI_DEP_ADD : CI_DEP_REMOVE,
					 f && f->graph == t->graph ? f->ordinal : CI_NONE, false);
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

/* For ci_graph_nodes_copy_locked: copies without node handles (none the application can name). */
static const CUgraphNode ci_no_handles[1];

/* Copy the latest versions of graph OS's nodes into graph CS, a copy of it whose node handles
 * cuGraphNodeFindInClone finds (HS NULL) or are HS[] in order, destroyed nodes left out (a child
 * graph's embedded clone: cuGraphGetNodes), each with the stack and thread of the node it copies. */
static void ci_graph_nodes_copy_locked(struct ci_call *c, uint32_t os, uint32_t cs, uint64_t clone,
				       const CUgraphNode *hs, size_t nh)
{
	const struct ci_graph *o = ci_graph_at(os);
	struct ci_graph *g = ci_graph_at(cs);
	if (!o || !g)
		return;
	/* A clone of a captured graph keeps its breadcrumb writes, into the original's slot. */
	g->crumb_slot = o->crumb_slot;
	uint32_t n = __atomic_load_n(&o->nodes, __ATOMIC_RELAXED);
	__atomic_store_n(&g->nodes, n, __ATOMIC_RELAXED);
	size_t k = 0;
	for (uint32_t ord = 0; ord < n; ord++) {
		const struct ci_graph_node *src = ci_node_latest_locked(os, CI_NONE, ord);
		if (!src)
			continue;
		CUgraphNode h = NULL;
		if (hs)
			h = !(src->flags & CI_NODE_DESTROYED) && k < nh ? hs[k++] : NULL;
		else if (src->handle &&
			 CI_REAL(cuGraphNodeFindInClone, &h, (CUgraphNode)src->handle, (CUgraph)clone) != CUDA_SUCCESS)
			h = NULL;
		ci_node_copy_edit_locked(c, src, cs, CI_NONE, CI_U64(h), 0, CI_NODE_UPDATE, CI_DEP_KEEP, 0, true);
	}
}

void ci_graph_cloned(struct ci_call *c, CUresult r, uint64_t clone, uint64_t original)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t os = ci_graph_slot_locked(c, original);
	const struct ci_graph *o = ci_graph_at(os);
	uint32_t cs = ci_graph_new_locked(c, clone, CI_GRAPH_CLONED, o ? o->ctx : CI_NONE, CI_NONE, 0, 0);
	ci_graph_nodes_copy_locked(c, os, cs, clone, NULL, 0);
	pthread_mutex_unlock(&ci_graph_lock);
}

/* cuGraphAddChildGraphNode: the node (its `a` the embedded clone cuGraphChildGraphNodeGetGraph
 * names), and that clone as a graph of origin child with the child's nodes. */
void ci_on_graph_add_child(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint64_t child)
{
	CUgraph emb = NULL;
	if (r != CUDA_SUCCESS || !ci_rec.base ||
	    CI_REAL(cuGraphChildGraphNodeGetGraph, (CUgraphNode)node, &emb) != CUDA_SUCCESS)
		emb = NULL;
	ci_on_graph_add(c, r, node, graph, CI_NODE_CHILD_GRAPH, 0, emb ? CI_U64(emb) : child, 0);
	if (!emb)
		return;
	size_t nh = 0;
	CUgraphNode *hs = NULL;
	if (CI_REAL(cuGraphGetNodes, emb, NULL, &nh) == CUDA_SUCCESS && nh && (hs = calloc(nh, sizeof(*hs))) &&
	    CI_REAL(cuGraphGetNodes, emb, hs, &nh) != CUDA_SUCCESS)
		nh = 0;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t os = ci_graph_slot_locked(c, child);
	const struct ci_graph *o = ci_graph_at(os);
	uint32_t cs = ci_graph_new_locked(c, CI_U64(emb), CI_GRAPH_CHILD, o ? o->ctx : CI_NONE, CI_NONE, 0, 0);
	ci_graph_nodes_copy_locked(c, os, cs, 0, hs ? hs : ci_no_handles, hs ? nh : 0);
	pthread_mutex_unlock(&ci_graph_lock);
	free(hs);
}

void ci_graph_exec_updated(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t xs = ci_map_get(&ci_rec.exec_map, exec);
	uint32_t gs = ci_graph_slot_locked(c, graph);
	struct ci_graph_exec *x = xs != CI_NONE ? ci_entry(CI_SEC_GRAPH_EXECS, xs) : NULL;
	/* The graphs are topologically identical (the driver checked): ordinal for ordinal, the
	 * exec now runs the new graph's nodes. */
	for (uint32_t ord = 0; x && gs != CI_NONE && ord < x->nodes; ord++) {
		const struct ci_graph_node *src = ci_node_latest_locked(gs, CI_NONE, ord);
		const struct ci_graph_node *cur = ci_node_latest_locked(x->graph, xs, ord);
		if (!src)
			continue;
		/* cuGraphExecUpdate leaves a node's enabled state as it was. */
		uint16_t keep = cur ? (uint16_t)(cur->flags & CI_NODE_DISABLED) : 0;
		ci_node_copy_locked(c, src, x->graph, xs, cur ? cur->handle : 0,
				    (uint16_t)(CI_NODE_UPDATE | keep), (uint16_t)(CI_NODE_DISABLED & ~keep));
	}
	if (x)
		__atomic_fetch_add(&x->updates, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_graph_node_enabled(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, unsigned enabled)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t xs = ci_map_get(&ci_rec.exec_map, exec);
	uint32_t ns = ci_map_get(&ci_rec.node_map, node);
	if (xs != CI_NONE && ns != CI_NONE) {
		const struct ci_graph_node *n = ci_entry(CI_SEC_GRAPH_NODES, ns);
		const struct ci_graph_node *cur = ci_node_latest_locked(n->graph, xs, n->ordinal);
		if (cur)
			ci_node_copy_locked(c, cur, n->graph, xs, node, CI_NODE_UPDATE | (enabled ? 0 : CI_NODE_DISABLED),
					    enabled ? CI_NODE_DISABLED : 0);
		struct ci_graph_exec *x = ci_entry(CI_SEC_GRAPH_EXECS, xs);
		__atomic_fetch_add(&x->updates, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ci_graph_lock);
}

/* cuGraphDestroyNode: a version of the node flagged destroyed (execs instantiated before keep
 * theirs: the reader compares times); the handle no longer names it. */
void ci_graph_node_destroyed(struct ci_call *c, CUresult r, uint64_t node)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t ns = ci_map_get(&ci_rec.node_map, node);
	if (ns != CI_NONE) {
		const struct ci_graph_node *n = ci_entry(CI_SEC_GRAPH_NODES, ns);
		uint32_t gs = n->graph, gone = n->ordinal;
		ci_node_copy_locked(c, n, gs, CI_NONE, node, CI_NODE_UPDATE | CI_NODE_DESTROYED, 0);
		/* "severs any dependencies of other nodes on hNode": their new versions lose it */
		const struct ci_graph *g = ci_graph_at(gs);
		uint32_t count = g ? __atomic_load_n(&g->nodes, __ATOMIC_RELAXED) : 0;
		for (uint32_t ord = 0; ord < count; ord++) {
			const struct ci_graph_node *o = ci_node_latest_locked(gs, CI_NONE, ord);
			bool on = false;
			for (uint32_t i = 0; o && !(o->flags & CI_NODE_DESTROYED) && i < CI_NODE_DEPS; i++)
				on |= i < o->dep_count && o->deps[i] == gone;
			if (on)
				ci_node_copy_edit_locked(c, o, gs, CI_NONE, o->handle, CI_NODE_UPDATE, 0, CI_DEP_REMOVE, gone, false);
		}
	}
	ci_map_remove(&ci_rec.node_map, node);
	pthread_mutex_unlock(&ci_graph_lock);
}

void ci_on_graph_memset_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_MEMSET_NODE_PARAMS *p)
{
	struct ci_node_args n = p ? ci_memset_args(p->dst, p->value, p->elementSize, p->width, p->height)
				  : (struct ci_node_args){ .type = CI_NODE_MEMSET };
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

void ci_on_graph_memcpy_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_MEMCPY3D *p)
{
	struct ci_node_args n = ci_memcpy_args(p);
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

void ci_on_graph_host_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			     const CUDA_HOST_NODE_PARAMS *p)
{
	struct ci_node_args n = { .type = CI_NODE_HOST, .func = p ? CI_U64(p->fn) : 0 };
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

/* External-semaphore nodes: `a` the first semaphore, `b` how many (the handles are opaque to
 * the reader; the count and the first say which set the node signals or waits for). */
void ci_on_graph_add_sem(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint32_t type,
			 uint64_t first, uint64_t count)
{
	struct ci_node_args n = { .type = type, .handle = node, .a = first, .b = count };
	ci_graph_node_added(c, r, graph, &n);
}

/* The setters whose parameters are `a` and `b` alone: events (cuGraph(Exec)EventRecordNodeSetEvent,
 * ...EventWaitNodeSetEvent: the new event, b 0) and external semaphores (first, count). */
void ci_on_graph_ab_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, uint32_t type,
			   uint64_t a, uint64_t b)
{
	struct ci_node_args n = { .type = type, .a = a, .b = b };
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}

/* cuGraphExecChildGraphNodeSetParams: the exec's child-graph node runs CHILD's nodes as they
 * are now.  The driver makes no graph the application can name, so the recorder makes one: a
 * graph of origin child with CHILD's handle (not in the handle map: CHILD keeps its own entry)
 * holding a copy of CHILD's nodes, and an exec version of the node naming it; the reader finds
 * it by the launch's time. */
void ci_on_graph_exec_child_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, uint64_t child)
{
	if (r != CUDA_SUCCESS || !ci_rec.base || !child)
		return;
	pthread_mutex_lock(&ci_graph_lock);
	uint32_t os = ci_graph_slot_locked(c, child);
	const struct ci_graph *o = ci_graph_at(os);
	uint32_t cs = ci_graph_new_unmapped_locked(c, child, CI_GRAPH_CHILD, o ? o->ctx : CI_NONE, CI_NONE, 0, 0);
	ci_graph_nodes_copy_locked(c, os, cs, 0, ci_no_handles, 0); /* the exec's copies: no handles */
	pthread_mutex_unlock(&ci_graph_lock);
	struct ci_node_args n = { .type = CI_NODE_CHILD_GRAPH, .a = child };
	ci_graph_node_updated(c, r, exec, node, &n, 0);
}
