/* Stream capture and the graphs it produces.
 *
 * While a stream captures, launches, copies, memsets, memory operations and host functions queued
 * on it are appended to the capture's graph instead of running.  Recording an event in a captured
 * stream and waiting for it in another stream joins that stream to the capture (fork/join).  A
 * captured graph is a linear list of work in capture order; cuGraphLaunch queues it on the launch
 * stream in that order, which is one valid order of any graph the capture could have produced.
 * Kernel nodes count as launches (for CUDASIM_FAULT/CUDASIM_HANG) each time the graph is launched.
 *
 * Capture modes follow cuStreamBeginCapture's documentation: in GLOBAL mode "potentially unsafe"
 * calls (allocation, synchronous copies, context synchronization, ...) are refused with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED on every thread that has not switched itself to RELAXED
 * with cuThreadExchangeStreamCaptureMode.
 */
#include "sim.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int sim_capture_unsafe(void)
{
	switch (sim_thr.capture_mode) {
	case CU_STREAM_CAPTURE_MODE_RELAXED:
		return 0;
	case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
		return sim_thr.own_strict_captures > 0;
	default:
		return sim_thr.own_strict_captures > 0 ||
		       atomic_load(&sim.global_captures) - sim_thr.own_global_captures > 0;
	}
}

SIM_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	SIM_REQUIRE_INIT();
	if (!mode || *mode < CU_STREAM_CAPTURE_MODE_GLOBAL || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	CUstreamCaptureMode old = sim_thr.capture_mode;
	sim_thr.capture_mode = *mode;
	*mode = old;
	return CUDA_SUCCESS;
}

/* A deep copy of work; a kernel node's parameter copy only WITH_PARAMS (an exec keeps it, a
 * replay does not need it). */
static void sim_work_dup(struct sim_work *dst, const struct sim_work *src, int with_params)
{
	*dst = *src;
	dst->child = NULL; /* cloned where it matters (cuGraphClone), flattened by an exec */
	dst->bodies = NULL; /* likewise */
	if (src->kind == SIM_OP_KERNEL) {
		dst->u.kernel.kp = with_params ? sim_kparams_copy(src->u.kernel.kp) : NULL;
		if (src->u.kernel.argv) {
			dst->u.kernel.argv = malloc(src->u.kernel.argc * sizeof(*dst->u.kernel.argv));
			if (dst->u.kernel.argv)
				memcpy(dst->u.kernel.argv, src->u.kernel.argv, src->u.kernel.argc * sizeof(*dst->u.kernel.argv));
			else
				dst->u.kernel.argc = 0; /* best effort without memory: no argument, no Xid line */
		}
	}
	if (src->u.sem.sems && (src->node_type == CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL + 1 ||
				src->node_type == CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT + 1)) {
		size_t len = src->u.sem.n * (sizeof(CUexternalSemaphore) + src->u.sem.param_size);
		dst->u.sem.sems = malloc(len);
		if (dst->u.sem.sems) {
			memcpy(dst->u.sem.sems, src->u.sem.sems, len);
			dst->u.sem.params = dst->u.sem.sems + src->u.sem.n;
		} else {
			dst->u.sem.n = 0; /* best effort without memory: a node without semaphores */
			dst->u.sem.params = NULL;
		}
	}
	if (src->kind == SIM_OP_COPY && src->u.copy.staging) {
		dst->u.copy.staging = malloc(src->u.copy.bytes);
		if (dst->u.copy.staging)
			memcpy(dst->u.copy.staging, src->u.copy.staging, src->u.copy.bytes);
		else
			dst->u.copy.src = src->u.copy.staging; /* best effort without memory */
	}
}

void sim_work_copy(struct sim_work *dst, const struct sim_work *src)
{
	sim_work_dup(dst, src, 1);
}

static CUgraphNodeType sim_work_node_type(const struct sim_work *w)
{
	if (w->child)
		return CU_GRAPH_NODE_TYPE_GRAPH;
	if (w->node_type)
		return (CUgraphNodeType)(w->node_type - 1);
	switch (w->kind) {
	case SIM_OP_KERNEL: return CU_GRAPH_NODE_TYPE_KERNEL;
	case SIM_OP_HOST_FN: return CU_GRAPH_NODE_TYPE_HOST;
	case SIM_OP_COPY: return CU_GRAPH_NODE_TYPE_MEMCPY;
	case SIM_OP_SET: return CU_GRAPH_NODE_TYPE_MEMSET;
	case SIM_OP_WRITE:
	case SIM_OP_WAIT_VALUE: return CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
	case SIM_OP_EVENT: return CU_GRAPH_NODE_TYPE_EVENT_RECORD;
	case SIM_OP_FREE: return CU_GRAPH_NODE_TYPE_MEM_FREE;
	default: return CU_GRAPH_NODE_TYPE_EMPTY;
	}
}

struct sim_graph_node *sim_graph_append_locked(struct sim_graph *g, const struct sim_work *w)
{
	if (g->nnodes == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 16;
		struct sim_work *n = realloc(g->nodes, ncap * sizeof(*n));
		if (!n)
			return NULL;
		g->nodes = n;
		struct sim_graph_node **h = realloc(g->handles, ncap * sizeof(*h));
		if (!h)
			return NULL;
		g->handles = h;
		g->cap = ncap;
	}
	struct sim_graph_node *node = sim_obj_new(SIM_KIND_GRAPH_NODE, sizeof(*node));
	if (!node)
		return NULL;
	node->graph = g;
	node->index = g->nnodes;
	node->type = sim_work_node_type(w);
	g->handles[g->nnodes] = node;
	g->nodes[g->nnodes++] = *w;
	return node;
}

/* Takes ownership of the work's resources. */
CUresult sim_capture_add(struct sim_stream *s, const struct sim_work *w)
{
	struct sim_work copy = *w;
	pthread_mutex_lock(&sim.lock);
	CUresult r = CUDA_SUCCESS;
	if (s->capture_status == SIM_CAPTURE_INVALIDATED)
		r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	else if (s->capture_status != SIM_CAPTURE_ACTIVE || !s->capture_graph)
		r = CUDA_ERROR_ILLEGAL_STATE;
	else {
		struct sim_graph_node *node = sim_graph_append_locked(s->capture_graph, &copy);
		if (!node)
			r = CUDA_ERROR_OUT_OF_MEMORY;
		else
			s->capture_deps[0] = (CUgraphNode)node, s->capture_ndeps = 1;
	}
	pthread_mutex_unlock(&sim.lock);
	if (r)
		sim_work_release(&copy);
	return r;
}

/* ---- dependency edges (under sim.lock) ---- */

static ptrdiff_t sim_edge_find(const struct sim_graph *g, size_t from, size_t to)
{
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to)
			return (ptrdiff_t)i;
	return -1;
}

/* Room for N more edges; false when out of memory. */
static bool sim_edges_reserve(struct sim_graph *g, size_t n)
{
	if (g->nedges + n <= g->cap_edges)
		return true;
	size_t ncap = g->cap_edges ? g->cap_edges : 16;
	while (ncap < g->nedges + n)
		ncap *= 2;
	struct sim_edge *e = realloc(g->edges, ncap * sizeof(*e));
	if (!e)
		return false;
	g->edges = e;
	g->cap_edges = ncap;
	return true;
}

/* Node indexes of G, dependencies first (Kahn's algorithm, the lowest ready index first: the
 * order of addition wherever the edges allow it); NULL for a cycle or out of memory. */
static size_t *sim_graph_order(const struct sim_graph *g, CUresult *r)
{
	size_t n = g->nnodes;
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), *indeg = calloc(n ? n : 1, sizeof(*indeg));
	uint8_t *done = calloc(n ? n : 1, 1);
	*r = CUDA_ERROR_OUT_OF_MEMORY;
	if (!order || !indeg || !done)
		goto fail;
	for (size_t i = 0; i < g->nedges; i++)
		indeg[g->edges[i].to]++;
	for (size_t k = 0; k < n; k++) {
		size_t pick = n;
		for (size_t i = 0; i < n && pick == n; i++)
			if (!done[i] && !indeg[i])
				pick = i;
		if (pick == n) {
			*r = CUDA_ERROR_INVALID_VALUE; /* a cycle */
			goto fail;
		}
		done[pick] = 1;
		order[k] = pick;
		for (size_t i = 0; i < g->nedges; i++)
			if (g->edges[i].from == pick)
				indeg[g->edges[i].to]--;
	}
	free(indeg);
	free(done);
	*r = CUDA_SUCCESS;
	return order;
fail:
	free(order), free(indeg), free(done);
	return NULL;
}

static void sim_graph_free_locked(struct sim_graph *g);
/* The graphs a node owns: a child graph, a conditional node's bodies. */
static void sim_work_graphs_free_locked(struct sim_work *w)
{
	if (w->child)
		sim_graph_free_locked(w->child);
	for (unsigned b = 0; w->bodies && b < w->u.cond.size; b++)
		if (w->bodies[b])
			sim_graph_free_locked(w->bodies[b]);
	free(w->bodies);
	w->child = NULL;
	w->bodies = NULL;
}
static void sim_graph_nodes_free(struct sim_work *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sim_work_release(&nodes[i]);
		sim_work_graphs_free_locked(&nodes[i]);
	}
	free(nodes);
}

/* Conditional handles (cuGraphConditionalHandleCreate): the graph's, freed with it. */
struct sim_cond {
	struct sim_cond *next;
	const struct sim_graph *graph;
	unsigned dflt, flags;
};
static struct sim_cond *sim_conds; /* sim.lock */

static void sim_conds_free_locked(const struct sim_graph *g)
{
	for (struct sim_cond **p = &sim_conds; *p;) {
		struct sim_cond *c = *p;
		if (c->graph == g) {
			*p = c->next;
			free(c);
		} else {
			p = &c->next;
		}
	}
}

/* A graph's nodes and their handles (under sim.lock). */
static void sim_graph_free_locked(struct sim_graph *g)
{
	sim_graph_nodes_free(g->nodes, g->nnodes);
	for (size_t i = 0; i < g->nnodes; i++)
		sim_obj_free(g->handles[i], SIM_KIND_GRAPH_NODE);
	free(g->handles);
	free(g->edges);
	sim_conds_free_locked(g);
	sim_obj_free(g, SIM_KIND_GRAPH);
}

/* ---- capture ------------------------------------------------------------------------------------- */

static struct sim_graph *sim_graph_get(CUgraph h);
static struct sim_graph_node *sim_node_get(CUgraphNode h);

/* Begin a capture on stream H into a new graph, or (INTO) into an existing one after its
 * node LAST (cuStreamBeginCaptureToGraph; NULL: no dependency). */
static CUresult sim_begin_capture_into(CUstream h, CUstreamCaptureMode mode, int per_thread,
				       struct sim_graph *into, CUgraphNode last)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	if (s->kind == SIM_STREAM_LEGACY)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	struct sim_graph *g = into ? into : sim_obj_new(SIM_KIND_GRAPH, sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (!into) {
		g->ctx = s->ctx;
		g->id = sim_new_id();
	}
	pthread_mutex_lock(&sim.lock);
	if (s->capture_status != SIM_CAPTURE_NONE) {
		pthread_mutex_unlock(&sim.lock);
		if (!into)
			sim_obj_free(g, SIM_KIND_GRAPH);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	if (into && !g->ctx)
		g->ctx = s->ctx;
	s->capture_into = into != NULL;
	s->capture_graph = g;
	s->capture_status = SIM_CAPTURE_ACTIVE;
	s->capture_mode = mode;
	s->capture_id = sim_new_id();
	s->capture_origin = 1;
	s->capture_thread = &sim_thr;
	s->capture_deps[0] = last;
	s->capture_ndeps = last != NULL;
	atomic_fetch_add(&s->ctx->captures, 1);
	atomic_store_explicit(&s->capturing, 1, memory_order_release);
	pthread_mutex_unlock(&sim.lock);
	if (mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		sim_thr.own_strict_captures++;
	if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
		sim_thr.own_global_captures++;
		atomic_fetch_add(&sim.global_captures, 1);
	}
	return CUDA_SUCCESS;
}

static CUresult sim_begin_capture(CUstream h, CUstreamCaptureMode mode, int per_thread)
{
	return sim_begin_capture_into(h, mode, per_thread, NULL, NULL);
}

/* "Begins graph capture on a stream to an existing graph ... dependencies: the set of nodes the
 * first captured operation will depend on"; they must be nodes of hGraph (the simulator appends
 * after the graph's nodes, an order that honours them); default edge data only. */
static CUresult sim_begin_capture_to_graph(CUstream h, CUgraph hGraph, const CUgraphNode *deps,
					   const CUgraphEdgeData *data, size_t ndeps,
					   CUstreamCaptureMode mode, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(hGraph);
	if (!g || (ndeps && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < ndeps; i++) {
		struct sim_graph_node *d = sim_node_get(deps[i]);
		if (!d || d->graph != g)
			return CUDA_ERROR_INVALID_VALUE;
		if (data && (data[i].from_port || data[i].to_port || data[i].type))
			return CUDA_ERROR_NOT_SUPPORTED;
	}
	return sim_begin_capture_into(h, mode, per_thread, g, ndeps ? deps[ndeps - 1] : NULL);
}

SIM_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
						const CUgraphEdgeData *dependencyData, size_t numDependencies,
						CUstreamCaptureMode mode)
{
	return sim_begin_capture_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode, 0);
}
SIM_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
						     const CUgraphEdgeData *dependencyData, size_t numDependencies,
						     CUstreamCaptureMode mode)
{
	return sim_begin_capture_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode, 1);
}

SIM_EXPORT CUresult cuStreamBeginCapture(CUstream hStream) { return sim_begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 0); }
SIM_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream hStream) { return sim_begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, 1); }
SIM_EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) { return sim_begin_capture(hStream, mode, 0); }
SIM_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) { return sim_begin_capture(hStream, mode, 1); }

static CUresult sim_end_capture(CUstream h, CUgraph *phGraph, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (s->capture_status == SIM_CAPTURE_NONE) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	if (!s->capture_origin) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
	}
	if (s->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED && s->capture_thread != (void *)&sim_thr) {
		pthread_mutex_unlock(&sim.lock);
		return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	}
	struct sim_graph *g = s->capture_graph;
	int invalidated = 0, into = s->capture_into;
	/* End the capture on the origin and on every stream that joined it. */
	struct sim_ctx *ctx = s->ctx;
	for (struct sim_stream *t = ctx->streams; t; t = t->next_in_ctx) {
		if (t->capture_graph != g)
			continue;
		invalidated |= t->capture_status == SIM_CAPTURE_INVALIDATED;
		atomic_fetch_sub(&ctx->captures, 1);
		atomic_store(&t->capturing, 0);
		t->capture_status = SIM_CAPTURE_NONE;
		t->capture_graph = NULL;
	}
	pthread_mutex_unlock(&sim.lock);
	if (s->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		sim_thr.own_strict_captures--;
	if (s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
		sim_thr.own_global_captures--;
		atomic_fetch_sub(&sim.global_captures, 1);
	}
	if (invalidated) {
		pthread_mutex_lock(&sim.lock);
		if (!into)
			sim_graph_free_locked(g); /* the caller's own graph stays, with what was added */
		pthread_mutex_unlock(&sim.lock);
		*phGraph = NULL;
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { return sim_end_capture(hStream, phGraph, 0); }
SIM_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { return sim_end_capture(hStream, phGraph, 1); }

/* cuStreamUpdateCaptureDependencies (_v2, default edge data only): "Modifies the dependency set
 * of a capturing stream" (ADD or SET); "CUDA_ERROR_ILLEGAL_STATE if the stream is not
 * capturing".  At most SIM_CAPTURE_DEPS nodes in the set (more: CUDA_ERROR_NOT_SUPPORTED); ADD
 * leaves out a node the set has already. */
static CUresult sim_update_capture_deps(CUstream h, int per_thread, CUgraphNode *deps, const CUgraphEdgeData *ed,
					size_t n, unsigned flags)
{
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if ((flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES && flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES) ||
	    (n && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	static const CUgraphEdgeData zero;
	for (size_t i = 0; ed && i < n; i++)
		if (memcmp(&ed[i], &zero, sizeof zero))
			return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&sim.lock);
	if (s->capture_status != SIM_CAPTURE_ACTIVE)
		r = CUDA_ERROR_ILLEGAL_STATE;
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct sim_graph_node *d = sim_node_get(deps[i]);
		if (!d || d->graph != s->capture_graph)
			r = CUDA_ERROR_INVALID_VALUE;
	}
	if (r == CUDA_SUCCESS && flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES) {
		if (n > SIM_CAPTURE_DEPS)
			r = CUDA_ERROR_NOT_SUPPORTED;
		else
			s->capture_ndeps = 0;
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++)
		if (!sim_capture_dep_add(s, deps[i]))
			r = CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies, size_t numDependencies,
						      unsigned int flags)
{
	return sim_update_capture_deps(hStream, 0, dependencies, NULL, numDependencies, flags);
}
SIM_EXPORT CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies,
							   size_t numDependencies, unsigned int flags)
{
	return sim_update_capture_deps(hStream, 1, dependencies, NULL, numDependencies, flags);
}
SIM_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
							 const CUgraphEdgeData *dependencyData, size_t numDependencies,
							 unsigned int flags)
{
	return sim_update_capture_deps(hStream, 0, dependencies, dependencyData, numDependencies, flags);
}
SIM_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
							      const CUgraphEdgeData *dependencyData,
							      size_t numDependencies, unsigned int flags)
{
	return sim_update_capture_deps(hStream, 1, dependencies, dependencyData, numDependencies, flags);
}

static CUresult sim_capture_status(CUstream h, int per_thread, CUstreamCaptureStatus *status,
				   cuuint64_t *id, CUgraph *graph)
{
	SIM_COST(SIM_COST_CAPTURE_QUERY);
	SIM_REQUIRE_INIT();
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(h, per_thread, &s);
	if (r)
		return r;
	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	if (!atomic_load(&s->ctx->captures)) {
		/* No capture anywhere in the context: answer without the lock (the recorder asks
		 * before each breadcrumb while any capture runs in the process). */
		*status = CU_STREAM_CAPTURE_STATUS_NONE;
		if (graph)
			*graph = NULL;
		return CUDA_SUCCESS;
	}
	pthread_mutex_lock(&sim.lock);
	if (s->kind == SIM_STREAM_LEGACY) {
		/* Asking the legacy stream while a blocking stream captures would be an implicit
		 * dependency on the capture. */
		for (struct sim_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
			if (t->capture_status == SIM_CAPTURE_ACTIVE &&
			    (t->kind == SIM_STREAM_PER_THREAD || !(t->flags & CU_STREAM_NON_BLOCKING)))
				r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	}
	switch (s->capture_status) {
	case SIM_CAPTURE_ACTIVE: *status = CU_STREAM_CAPTURE_STATUS_ACTIVE; break;
	case SIM_CAPTURE_INVALIDATED: *status = CU_STREAM_CAPTURE_STATUS_INVALIDATED; break;
	default: *status = CU_STREAM_CAPTURE_STATUS_NONE; break;
	}
	if (id && s->capture_status != SIM_CAPTURE_NONE)
		*id = s->capture_id;
	if (graph)
		*graph = s->capture_status == SIM_CAPTURE_ACTIVE ? (CUgraph)s->capture_graph : NULL;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus) { return sim_capture_status(hStream, 0, captureStatus, NULL, NULL); }
SIM_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus) { return sim_capture_status(hStream, 1, captureStatus, NULL, NULL); }

SIM_EXPORT CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{
	return sim_capture_status(hStream, 0, captureStatus_out, id_out, NULL);
}
SIM_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{
	return sim_capture_status(hStream, 1, captureStatus_out, id_out, NULL);
}

/* The capture's "current dependencies": the node the stream's last captured operation became
 * (after a join, the node the event was recorded after), none at the start.  The array is the
 * stream's and stays valid until its next captured operation, as documented. */
static CUresult sim_capture_info(CUstream h, int per_thread, CUstreamCaptureStatus *status, cuuint64_t *id,
				 CUgraph *graph, const CUgraphNode **deps, const CUgraphEdgeData **edges,
				 size_t *ndeps)
{
	CUresult r = sim_capture_status(h, per_thread, status, id, graph);
	struct sim_stream *s = NULL;
	if (r == CUDA_SUCCESS && (deps || ndeps) && sim_stream_resolve(h, per_thread, &s) != CUDA_SUCCESS)
		s = NULL;
	int active = r == CUDA_SUCCESS && *status == CU_STREAM_CAPTURE_STATUS_ACTIVE && s && s->capture_ndeps;
	if (r == CUDA_SUCCESS) {
		if (deps)
			*deps = active ? s->capture_deps : NULL;
		if (edges)
			*edges = NULL;
		if (ndeps)
			*ndeps = active ? s->capture_ndeps : 0;
	}
	return r;
}

SIM_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
					      cuuint64_t *id_out, CUgraph *graph_out,
					      const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{
	return sim_capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out);
}
SIM_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
						   cuuint64_t *id_out, CUgraph *graph_out,
						   const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{
	return sim_capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out);
}
SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
					      cuuint64_t *id_out, CUgraph *graph_out,
					      const CUgraphNode **dependencies_out,
					      const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
	return sim_capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out);
}
SIM_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
						   cuuint64_t *id_out, CUgraph *graph_out,
						   const CUgraphNode **dependencies_out,
						   const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
	return sim_capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out);
}

/* ---- graphs ------------------------------------------------------------------------------------- */

static struct sim_graph *sim_graph_get(CUgraph h)
{
	return sim_obj_is(h, SIM_KIND_GRAPH) ? (struct sim_graph *)h : NULL;
}

static struct sim_graph_exec *sim_exec_get(CUgraphExec h)
{
	return sim_obj_is(h, SIM_KIND_GRAPH_EXEC) ? (struct sim_graph_exec *)h : NULL;
}

static struct sim_graph_node *sim_node_get(CUgraphNode h)
{
	return sim_obj_is(h, SIM_KIND_GRAPH_NODE) ? (struct sim_graph_node *)h : NULL;
}

SIM_EXPORT CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	SIM_REQUIRE_INIT();
	if (!phGraph || flags) /* "flags: Graph creation flags, must be 0" */
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_graph *g = sim_obj_new(SIM_KIND_GRAPH, sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct sim_ctx *ctx = NULL;
	if (sim_ctx_current(&ctx) != CUDA_SUCCESS)
		ctx = NULL; /* graphs belong to no context; a launch checks its nodes' */
	g->ctx = ctx;
	g->id = sim_new_id();
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}

/* Add work as a node of hGraph after `deps`, which must be nodes of that graph.  Nodes replay in
 * the order they were added, which honours every dependency given here (a dependency exists
 * before its dependents).  Takes ownership of the work's resources. */
static CUresult sim_graph_add(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
			      struct sim_work *w)
{
	CUresult r = CUDA_SUCCESS;
	struct sim_graph *g = sim_graph_get(hGraph);
	if (!ph || !g || (ndeps && !deps))
		r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	for (size_t i = 0; r == CUDA_SUCCESS && i < ndeps; i++) {
		struct sim_graph_node *d = sim_node_get(deps[i]);
		if (!d || d->graph != g)
			r = CUDA_ERROR_INVALID_VALUE;
		for (size_t j = 0; j < i && r == CUDA_SUCCESS; j++)
			if (deps[j] == deps[i])
				r = CUDA_ERROR_INVALID_VALUE; /* "must not contain duplicates" */
	}
	struct sim_graph_node *node = NULL;
	if (r == CUDA_SUCCESS && (!sim_edges_reserve(g, ndeps) || !(node = sim_graph_append_locked(g, w))))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; node && i < ndeps; i++)
		g->edges[g->nedges++] = (struct sim_edge){sim_node_get(deps[i])->index, node->index};
	pthread_mutex_unlock(&sim.lock);
	if (r) {
		sim_work_release(w);
		return r;
	}
	*ph = (CUgraphNode)node;
	return CUDA_SUCCESS;
}

/* The context a kernel node's function runs in: its module's, else the current one. */
static struct sim_ctx *sim_node_ctx(struct sim_graph *g)
{
	struct sim_ctx *ctx = NULL;
	if (g && g->ctx)
		return g->ctx;
	return sim_ctx_current(&ctx) == CUDA_SUCCESS ? ctx : NULL;
}

static CUresult sim_kernel_params_work(const CUDA_KERNEL_NODE_PARAMS *p, struct sim_graph *g,
				       struct sim_work *w)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	CUfunction f = p->func ? p->func : (CUfunction)p->kern;
	unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
	unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
	return sim_kernel_node_work(f, grid, block, p->sharedMemBytes, p->kernelParams, p->extra,
				    sim_node_ctx(g), w);
}

static CUDA_KERNEL_NODE_PARAMS sim_kernel_params_v2(const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	return (CUDA_KERNEL_NODE_PARAMS){p->func, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
					 p->blockDimY, p->blockDimZ, p->sharedMemBytes,
					 p->kernelParams, p->extra, NULL, NULL};
}

SIM_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					    size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	CUresult r = sim_kernel_params_work(nodeParams, sim_graph_get(hGraph), &w);
	return r ? r : sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
}

SIM_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					 size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	if (!nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS p = sim_kernel_params_v2(nodeParams);
	return cuGraphAddKernelNode_v2(phGraphNode, hGraph, dependencies, numDependencies, &p);
}

/* 1D copies between host, device and unified memory; arrays and 2D/3D shapes are not simulated. */
static CUresult sim_memcpy_params_work(const CUDA_MEMCPY3D *p, struct sim_work *w)
{
	if (!p || !p->WidthInBytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->Height > 1 || p->Depth > 1 || p->srcY || p->srcZ || p->dstY || p->dstZ || p->srcLOD || p->dstLOD ||
	    p->srcMemoryType == CU_MEMORYTYPE_ARRAY || p->dstMemoryType == CU_MEMORYTYPE_ARRAY)
		return CUDA_ERROR_NOT_SUPPORTED;
	size_t n = p->WidthInBytes;
	void *d = NULL;
	const void *src = NULL;
	int dev;
	switch (p->dstMemoryType) {
	case CU_MEMORYTYPE_HOST: d = (char *)p->dstHost + p->dstXInBytes; break;
	case CU_MEMORYTYPE_DEVICE: d = sim_mem_translate(p->dstDevice + p->dstXInBytes, n, NULL); break;
	case CU_MEMORYTYPE_UNIFIED: d = sim_mem_translate_any(p->dstDevice + p->dstXInBytes, n, &dev); break;
	default: break;
	}
	switch (p->srcMemoryType) {
	case CU_MEMORYTYPE_HOST: src = (const char *)p->srcHost + p->srcXInBytes; break;
	case CU_MEMORYTYPE_DEVICE: src = sim_mem_translate(p->srcDevice + p->srcXInBytes, n, NULL); break;
	case CU_MEMORYTYPE_UNIFIED: src = sim_mem_translate_any(p->srcDevice + p->srcXInBytes, n, &dev); break;
	default: break;
	}
	if (!d || !src)
		return CUDA_ERROR_INVALID_VALUE;
	*w = (struct sim_work){.kind = SIM_OP_COPY, .count = 1, .u.copy = {d, src, n, NULL}};
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					 size_t numDependencies, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	CUresult r = sim_memcpy_params_work(p, &w);
	return r ? r : sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
}

static CUresult sim_memset_params_work(const CUDA_MEMSET_NODE_PARAMS *p, struct sim_work *w)
{
	if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->width ||
	    p->dst % p->elementSize)
		return CUDA_ERROR_INVALID_VALUE;
	if (p->height > 1)
		return CUDA_ERROR_NOT_SUPPORTED; /* 2D sets are not simulated */
	if (p->width > SIZE_MAX / p->elementSize)
		return CUDA_ERROR_INVALID_VALUE;
	void *d = sim_mem_translate(p->dst, p->width * p->elementSize, NULL);
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	*w = (struct sim_work){.kind = SIM_OP_SET, .count = 1,
			       .u.set = {d, p->value, p->elementSize, p->width}};
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					 size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	CUresult r = sim_memset_params_work(memsetParams, &w);
	return r ? r : sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
}

SIM_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				       size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	if (!nodeParams || !nodeParams->fn)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w = {.kind = SIM_OP_HOST_FN, .u.host = {nodeParams->fn, nodeParams->userData}};
	return sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
}

SIM_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					size_t numDependencies)
{
	SIM_REQUIRE_INIT();
	struct sim_work w = {.kind = SIM_OP_MARKER};
	return sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
}

static CUresult sim_event_node_work(CUevent event, CUgraphNodeType type, struct sim_work *w);
static CUresult sim_sem_node_work(CUexternalSemaphore *sems, const void *params, unsigned n, size_t psize,
				  CUgraphNodeType type, struct sim_work *w);
#define SIM_SEM_WORK(p, kind, type, w)                                                         \
	((p) ? sim_sem_node_work((p)->extSemArray, (p)->paramsArray, (p)->numExtSems, sizeof(kind), type, w) \
	     : CUDA_ERROR_INVALID_VALUE)
static CUresult sim_child_node_add(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
				   CUgraph childGraph);

/* "Creates a conditional handle associated with hGraph ... flags: Currently must be
 * CU_GRAPH_COND_ASSIGN_DEFAULT or 0"; the handle lives as long as its graph. */
SIM_EXPORT CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph, CUcontext ctx,
						   unsigned int defaultLaunchValue, unsigned int flags)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(hGraph);
	if (!pHandle_out || !g || (flags & ~(unsigned)CU_GRAPH_COND_ASSIGN_DEFAULT))
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_cond *c = malloc(sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*c = (struct sim_cond){.graph = g, .dflt = defaultLaunchValue, .flags = flags};
	pthread_mutex_lock(&sim.lock);
	c->next = sim_conds;
	sim_conds = c;
	pthread_mutex_unlock(&sim.lock);
	*pHandle_out = (CUgraphConditionalHandle)(uintptr_t)c;
	return CUDA_SUCCESS;
}

#define SIM_COND_BODIES_MAX 256 /* SWITCH bodies per node, at most (a simulator's bound) */

/* A conditional node (cuGraphAddNode): its bodies are new graphs, handed out in phGraph_out
 * ("CUDA-owned ... Valid for the lifetime of the conditional node"); the handle must be one
 * cuGraphConditionalHandleCreate made. */
static CUresult sim_cond_node_add(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
				  CUDA_CONDITIONAL_NODE_PARAMS *p)
{
	struct sim_graph *g = sim_graph_get(hGraph);
	unsigned n = p->size;
	if (!g || !p->phGraph_out || !n ||
	    (p->type == CU_GRAPH_COND_TYPE_IF && n > 2) || (p->type == CU_GRAPH_COND_TYPE_WHILE && n != 1) ||
	    (p->type != CU_GRAPH_COND_TYPE_IF && p->type != CU_GRAPH_COND_TYPE_WHILE &&
	     p->type != CU_GRAPH_COND_TYPE_SWITCH))
		return CUDA_ERROR_INVALID_VALUE;
	if (n > SIM_COND_BODIES_MAX)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&sim.lock);
	const struct sim_cond *c = sim_conds;
	while (c && (uintptr_t)c != (uintptr_t)p->handle)
		c = c->next;
	struct sim_work w = {.kind = SIM_OP_MARKER, .node_type = CU_GRAPH_NODE_TYPE_CONDITIONAL + 1,
			     .u.cond = {p->type, n, c && (c->flags & CU_GRAPH_COND_ASSIGN_DEFAULT) ? c->dflt : 0}};
	CUresult r = c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS && !(w.bodies = calloc(n, sizeof(*w.bodies))))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	for (unsigned b = 0; r == CUDA_SUCCESS && b < n; b++) {
		struct sim_graph *body = sim_obj_new(SIM_KIND_GRAPH, sizeof(*body));
		if (!body) {
			r = CUDA_ERROR_OUT_OF_MEMORY;
			break;
		}
		body->ctx = g->ctx;
		body->id = sim_new_id();
		w.bodies[b] = body;
	}
	if (r)
		sim_work_graphs_free_locked(&w);
	pthread_mutex_unlock(&sim.lock);
	if (r)
		return r;
	struct sim_graph **bodies = w.bodies;
	r = sim_graph_add(ph, hGraph, deps, ndeps, &w);
	pthread_mutex_lock(&sim.lock);
	if (r) {
		w.bodies = bodies;
		sim_work_graphs_free_locked(&w);
	} else {
		for (unsigned b = 0; b < n; b++)
			p->phGraph_out[b] = (CUgraph)bodies[b];
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* cuGraphAddNode: the parameter union by type (kernel, memset, host, empty, event,
 * external-semaphore, child-graph and conditional nodes are simulated; other types
 * CUDA_ERROR_NOT_SUPPORTED).  "On return ... fields may be modified",
 * the documentation says; nothing needs to be. */
static CUresult sim_graph_add_params(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
				     CUgraphNodeParams *p)
{
	SIM_REQUIRE_INIT();
	if (!p || p->reserved0[0] || p->reserved0[1] || p->reserved0[2] || p->reserved2)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w;
	CUresult r;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL: {
		const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
		CUDA_KERNEL_NODE_PARAMS v2 = {k->func, k->gridDimX, k->gridDimY, k->gridDimZ, k->blockDimX,
					      k->blockDimY, k->blockDimZ, k->sharedMemBytes, k->kernelParams,
					      k->extra, k->kern, k->ctx};
		r = sim_kernel_params_work(&v2, sim_graph_get(hGraph), &w);
		break;
	}
	case CU_GRAPH_NODE_TYPE_MEMSET: {
		const CUDA_MEMSET_NODE_PARAMS_v2 *m = &p->memset;
		CUDA_MEMSET_NODE_PARAMS v1 = {m->dst, m->pitch, m->value, m->elementSize, m->width, m->height};
		r = sim_memset_params_work(&v1, &w);
		break;
	}
	case CU_GRAPH_NODE_TYPE_HOST:
		if (!p->host.fn)
			return CUDA_ERROR_INVALID_VALUE;
		w = (struct sim_work){.kind = SIM_OP_HOST_FN, .u.host = {p->host.fn, p->host.userData}};
		r = CUDA_SUCCESS;
		break;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		w = (struct sim_work){.kind = SIM_OP_MARKER};
		r = CUDA_SUCCESS;
		break;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		r = sim_event_node_work(p->eventWait.event, p->type, &w);
		break;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		r = sim_event_node_work(p->eventRecord.event, p->type, &w);
		break;
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
		r = SIM_SEM_WORK(&p->extSemSignal, CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, p->type, &w);
		break;
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
		r = SIM_SEM_WORK(&p->extSemWait, CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, p->type, &w);
		break;
	case CU_GRAPH_NODE_TYPE_CONDITIONAL:
		return sim_cond_node_add(ph, hGraph, deps, ndeps, &p->conditional);
	case CU_GRAPH_NODE_TYPE_GRAPH:
		/* cloned, as by cuGraphAddChildGraphNode; a graph moved into the node is not simulated */
		if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
			return CUDA_ERROR_NOT_SUPPORTED;
		return sim_child_node_add(ph, hGraph, deps, ndeps, p->graph.graph);
	default:
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	return r ? r : sim_graph_add(ph, hGraph, deps, ndeps, &w);
}

SIM_EXPORT CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				   size_t numDependencies, CUgraphNodeParams *nodeParams)
{
	return sim_graph_add_params(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* Edge data other than the default (all zeros) is not simulated. */
SIM_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				      const CUgraphEdgeData *dependencyData, size_t numDependencies,
				      CUgraphNodeParams *nodeParams)
{
	for (size_t i = 0; dependencyData && i < numDependencies; i++)
		if (dependencyData[i].from_port || dependencyData[i].to_port || dependencyData[i].type)
			return CUDA_ERROR_NOT_SUPPORTED;
	return sim_graph_add_params(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* "If numNodes is higher than the actual number of nodes, the remaining entries in nodes will be
 * set to NULL, and the number of nodes actually obtained will be returned in numNodes." */
SIM_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(hGraph);
	if (!g || !numNodes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	/* Destroyed nodes (a NULL handle) are no longer the graph's. */
	size_t i = 0, k = 0;
	for (; i < g->nnodes && (!nodes || k < *numNodes); i++)
		if (g->handles[i]) {
			if (nodes)
				nodes[k] = (CUgraphNode)g->handles[i];
			k++;
		}
	if (nodes)
		for (size_t j = k; j < *numNodes; j++)
			nodes[j] = NULL;
	*numNodes = k;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

/* "Removes hNode from its graph. This operation also severs any dependencies of other nodes on
 * hNode and vice versa. Nodes which belong to a graph which contains allocation or free nodes
 * cannot be destroyed. Any attempt to do so will return an error."  The node's place stays, as
 * an empty node without a handle (replays keep their order; execs already instantiated keep
 * theirs: the documentation's "does not affect" instantiated graphs). */
SIM_EXPORT CUresult cuGraphDestroyNode(CUgraphNode hNode)
{
	SIM_REQUIRE_INIT();
	CUresult r = CUDA_SUCCESS;
	pthread_mutex_lock(&sim.lock);
	struct sim_graph_node *n = sim_node_get(hNode);
	struct sim_graph *g = n ? n->graph : NULL;
	if (!n || !g || n->index >= g->nnodes || g->handles[n->index] != n)
		r = CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; r == CUDA_SUCCESS && i < g->nnodes; i++)
		if (g->handles[i] && g->nodes[i].kind == SIM_OP_FREE)
			r = CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_SUCCESS) {
		sim_work_release(&g->nodes[n->index]);
		sim_work_graphs_free_locked(&g->nodes[n->index]);
		g->nodes[n->index] = (struct sim_work){.kind = SIM_OP_MARKER};
		g->handles[n->index] = NULL;
		size_t k = 0; /* "severs any dependencies of other nodes on hNode and vice versa" */
		for (size_t i = 0; i < g->nedges; i++)
			if (g->edges[i].from != n->index && g->edges[i].to != n->index)
				g->edges[k++] = g->edges[i];
		g->nedges = k;
		sim_obj_free(n, SIM_KIND_GRAPH_NODE);
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* cuGraphAddDependencies / cuGraphRemoveDependencies (and _v2, default edge data only):
 * "Specifying an existing dependency will return an error", "Specifying a non-existing
 * dependency will return an error"; every node must be of hGraph. */
static CUresult sim_dependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
				 const CUgraphEdgeData *edgeData, size_t n, int add)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(hGraph);
	if (!g || (n && (!from || !to)))
		return CUDA_ERROR_INVALID_VALUE;
	static const CUgraphEdgeData zero;
	for (size_t i = 0; edgeData && i < n; i++)
		if (memcmp(&edgeData[i], &zero, sizeof zero))
			return CUDA_ERROR_NOT_SUPPORTED; /* ports and programmatic edges: not simulated */
	CUresult r = CUDA_SUCCESS;
	pthread_mutex_lock(&sim.lock);
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct sim_graph_node *a = sim_node_get(from[i]), *b = sim_node_get(to[i]);
		if (!a || !b || a->graph != g || b->graph != g || a == b)
			r = CUDA_ERROR_INVALID_VALUE;
		else if ((sim_edge_find(g, a->index, b->index) >= 0) == add)
			r = CUDA_ERROR_INVALID_VALUE;
		for (size_t j = 0; r == CUDA_SUCCESS && j < i; j++)
			if (from[j] == from[i] && to[j] == to[i])
				r = CUDA_ERROR_INVALID_VALUE;
	}
	if (r == CUDA_SUCCESS && add && !sim_edges_reserve(g, n))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		size_t a = sim_node_get(from[i])->index, b = sim_node_get(to[i])->index;
		if (add)
			g->edges[g->nedges++] = (struct sim_edge){a, b};
		else {
			ptrdiff_t at = sim_edge_find(g, a, b); /* checked above */
			g->edges[at] = g->edges[--g->nedges];
		}
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					   size_t numDependencies)
{
	return sim_dependencies(hGraph, from, to, NULL, numDependencies, 1);
}
SIM_EXPORT CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					      const CUgraphEdgeData *edgeData, size_t numDependencies)
{
	return sim_dependencies(hGraph, from, to, edgeData, numDependencies, 1);
}
SIM_EXPORT CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					      size_t numDependencies)
{
	return sim_dependencies(hGraph, from, to, NULL, numDependencies, 0);
}
SIM_EXPORT CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
						 const CUgraphEdgeData *edgeData, size_t numDependencies)
{
	return sim_dependencies(hGraph, from, to, edgeData, numDependencies, 0);
}

SIM_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!n || !type)
		return CUDA_ERROR_INVALID_VALUE;
	*type = n->type;
	return CUDA_SUCCESS;
}

static CUresult sim_kernel_node_get(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *p)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!n || !p || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	const struct sim_work *w = &n->graph->nodes[n->index];
	*p = (CUDA_KERNEL_NODE_PARAMS){w->u.kernel.func, w->u.kernel.grid[0], w->u.kernel.grid[1],
				       w->u.kernel.grid[2], w->u.kernel.block[0], w->u.kernel.block[1],
				       w->u.kernel.block[2], w->u.kernel.shared,
				       w->u.kernel.kp ? w->u.kernel.kp->ptr : NULL, NULL, NULL,
				       (CUcontext)n->graph->ctx};
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	return sim_kernel_node_get(hNode, nodeParams);
}

SIM_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	CUDA_KERNEL_NODE_PARAMS p;
	CUresult r = nodeParams ? sim_kernel_node_get(hNode, &p) : CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*nodeParams = (CUDA_KERNEL_NODE_PARAMS_v1){p.func, p.gridDimX, p.gridDimY, p.gridDimZ,
							   p.blockDimX, p.blockDimY, p.blockDimZ,
							   p.sharedMemBytes, p.kernelParams, p.extra};
	return r;
}

/* Replace node N's work in the graph (exec NULL) or in exec X, after checking it is a node of
 * TYPE there; an exec's node keeps its enabled state.  Takes ownership of the work. */
static CUresult sim_node_replace(struct sim_graph_exec *x, struct sim_graph_node *n, CUgraphNodeType type,
				 struct sim_work *w)
{
	CUresult r = CUDA_SUCCESS;
	pthread_mutex_lock(&sim.lock);
	struct sim_work *slot = NULL;
	if (n->type != type)
		r = CUDA_ERROR_INVALID_VALUE;
	else if (!x)
		slot = &n->graph->nodes[n->index];
	else if (n->graph->id != x->graph_id || n->index >= x->nnodes)
		r = CUDA_ERROR_INVALID_VALUE; /* not a node of the graph the exec came from */
	else
		slot = &x->nodes[n->index];
	if (slot) {
		struct sim_work old = *slot;
		*slot = *w;
		slot->disabled = x ? old.disabled : 0;
		sim_work_release(&old);
	}
	pthread_mutex_unlock(&sim.lock);
	if (r)
		sim_work_release(w);
	return r;
}

SIM_EXPORT CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w;
	CUresult r = sim_kernel_params_work(nodeParams, n->graph, &w);
	return r ? r : sim_node_replace(NULL, n, CU_GRAPH_NODE_TYPE_KERNEL, &w);
}

SIM_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	if (!nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS p = sim_kernel_params_v2(nodeParams);
	return cuGraphKernelNodeSetParams_v2(hNode, &p);
}

/* "Sets the parameters of a kernel node in an executable graph ... hNode must not have been
 * removed from the original graph.  The func field of nodeParams cannot be modified and must
 * match the original value" (cuda.h); later launches use the new values, the graph does not
 * change. */
SIM_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
						      const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_exec *x = sim_exec_get(hGraphExec);
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!x || !n || !nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	int same_func = n->graph->id == x->graph_id && n->index < x->nnodes &&
			x->nodes[n->index].kind == SIM_OP_KERNEL &&
			x->nodes[n->index].u.kernel.func ==
				(nodeParams->func ? nodeParams->func : (CUfunction)nodeParams->kern);
	pthread_mutex_unlock(&sim.lock);
	if (!same_func)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w;
	CUresult r = sim_kernel_params_work(nodeParams, n->graph, &w);
	return r ? r : sim_node_replace(x, n, CU_GRAPH_NODE_TYPE_KERNEL, &w);
}

/* The exec's copy of node hNode (under sim.lock). */
static CUresult sim_exec_node_slot(CUgraphExec hGraphExec, CUgraphNode hNode, struct sim_work **ret)
{
	struct sim_graph_exec *x = sim_exec_get(hGraphExec);
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!x || !n || n->graph->id != x->graph_id || n->index >= x->nnodes)
		return CUDA_ERROR_INVALID_VALUE;
	*ret = &x->nodes[n->index];
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
						   const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	if (!nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	CUDA_KERNEL_NODE_PARAMS p = sim_kernel_params_v2(nodeParams);
	return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &p);
}

/* "Creates a copy of originalGraph and returns it in phGraphClone. All parameters are copied
 * into the cloned graph"; cuGraphNodeFindInClone finds a node's copy there. */
/* A deep copy of graph O (child graphs cloned too), under sim.lock; NULL when out of memory. */
static struct sim_graph *sim_graph_clone_locked(const struct sim_graph *o)
{
	struct sim_graph *g = sim_obj_new(SIM_KIND_GRAPH, sizeof(*g));
	if (!g)
		return NULL;
	g->id = sim_new_id();
	CUresult r = CUDA_SUCCESS;
	g->ctx = o->ctx;
	g->clone_of = o->id;
	for (size_t i = 0; i < o->nnodes && r == CUDA_SUCCESS; i++) {
		struct sim_work w;
		sim_work_copy(&w, &o->nodes[i]);
		if (o->nodes[i].child && !(w.child = sim_graph_clone_locked(o->nodes[i].child))) {
			sim_work_release(&w);
			r = CUDA_ERROR_OUT_OF_MEMORY;
			break;
		}
		if (o->nodes[i].bodies) {
			bool oom = !(w.bodies = calloc(w.u.cond.size, sizeof(*w.bodies)));
			for (unsigned b = 0; !oom && b < w.u.cond.size; b++)
				oom = !(w.bodies[b] = sim_graph_clone_locked(o->nodes[i].bodies[b]));
			if (oom) {
				sim_work_release(&w);
				sim_work_graphs_free_locked(&w);
				r = CUDA_ERROR_OUT_OF_MEMORY;
				break;
			}
		}
		struct sim_graph_node *cn = sim_graph_append_locked(g, &w);
		if (!cn) {
			sim_work_release(&w);
			sim_work_graphs_free_locked(&w);
			r = CUDA_ERROR_OUT_OF_MEMORY;
		} else if (!o->handles[i]) { /* destroyed in the original: an empty place */
			g->handles[i] = NULL;
			sim_obj_free(cn, SIM_KIND_GRAPH_NODE);
		}
	}
	if (r == CUDA_SUCCESS && !sim_edges_reserve(g, o->nedges))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	if (r == CUDA_SUCCESS && o->nedges) {
		memcpy(g->edges, o->edges, o->nedges * sizeof(*g->edges));
		g->nedges = o->nedges;
	}
	if (r) {
		sim_graph_free_locked(g);
		return NULL;
	}
	return g;
}

SIM_EXPORT CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *o = sim_graph_get(originalGraph);
	if (!phGraphClone || !o)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	struct sim_graph *g = sim_graph_clone_locked(o);
	pthread_mutex_unlock(&sim.lock);
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phGraphClone = (CUgraph)g;
	return CUDA_SUCCESS;
}

/* cuGraphAddChildGraphNode: "The node executes an embedded child graph. The child graph is
 * cloned in this call."  cuGraphChildGraphNodeGetGraph hands out that embedded clone ("does not
 * clone the graph. Changes to the graph will be reflected in the node"). */
SIM_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					     size_t numDependencies, CUgraph childGraph)
{
	SIM_REQUIRE_INIT();
	return sim_child_node_add(phGraphNode, hGraph, dependencies, numDependencies, childGraph);
}

static CUresult sim_child_node_add(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				   size_t numDependencies, CUgraph childGraph)
{
	struct sim_graph *c = sim_graph_get(childGraph);
	if (!c || childGraph == hGraph)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	struct sim_work w = {.kind = SIM_OP_MARKER, .child = sim_graph_clone_locked(c)};
	pthread_mutex_unlock(&sim.lock);
	if (!w.child)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct sim_graph *child = w.child;
	CUresult r = sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w);
	if (r) {
		pthread_mutex_lock(&sim.lock);
		sim_graph_free_locked(child);
		pthread_mutex_unlock(&sim.lock);
	}
	return r;
}

SIM_EXPORT CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
	SIM_REQUIRE_INIT();
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	struct sim_graph_node *n = sim_node_get(hNode);
	if (n && phGraph && n->graph && n->index < n->graph->nnodes && n->graph->nodes[n->index].child) {
		*phGraph = (CUgraph)n->graph->nodes[n->index].child;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *n = sim_node_get(hOriginalNode);
	struct sim_graph *c = sim_graph_get(hClonedGraph);
	if (!phNode || !n || !c)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (c->clone_of == n->graph->id && n->index < c->nnodes) {
		*phNode = (CUgraphNode)c->handles[n->index];
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* "Sets the specified node to be enabled or disabled. Disabled nodes are functionally equivalent
 * to empty nodes until they are reenabled ... Only kernel, memset and memcpy nodes are
 * supported", in one exec, for its later launches. */
static CUresult sim_exec_node_slot(CUgraphExec hGraphExec, CUgraphNode hNode, struct sim_work **ret);

SIM_EXPORT CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
	SIM_REQUIRE_INIT();
	struct sim_work *w;
	pthread_mutex_lock(&sim.lock);
	CUresult r = sim_exec_node_slot(hGraphExec, hNode, &w);
	if (r == CUDA_SUCCESS && w->kind != SIM_OP_KERNEL && w->kind != SIM_OP_SET && w->kind != SIM_OP_COPY)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		w->disabled = !isEnabled;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
	SIM_REQUIRE_INIT();
	struct sim_work *w;
	if (!isEnabled)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	CUresult r = sim_exec_node_slot(hGraphExec, hNode, &w);
	if (r == CUDA_SUCCESS)
		*isEnabled = !w->disabled;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

/* cuGraphExecUpdate: the graph must be topologically identical (the same nodes in the same
 * order, each of the same type; the simulator's graphs are chains); kernel functions must stay
 * in their context.  Then the exec takes the graph's parameters for its later launches. */
static CUresult sim_exec_update(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResult *result,
				CUgraphNode *error_node)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_exec *x = sim_exec_get(hGraphExec);
	struct sim_graph *g = sim_graph_get(hGraph);
	*result = CU_GRAPH_EXEC_UPDATE_ERROR;
	*error_node = NULL;
	if (!x || !g)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	CUresult r = CUDA_SUCCESS;
	CUresult ro;
	size_t *order = g->nnodes == x->nnodes ? sim_graph_order(g, &ro) : NULL;
	if (!order || memcmp(order, x->order, g->nnodes * sizeof(*order))) {
		/* another node count, or edges that order the nodes otherwise */
		*result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
		r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
	}
	free(order);
	for (size_t i = 0; r == CUDA_SUCCESS && i < g->nnodes; i++) {
		if (g->nodes[i].kind != x->nodes[i].kind) {
			*result = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
			*error_node = (CUgraphNode)g->handles[i];
			r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
		}
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < g->nnodes; i++) {
		struct sim_work w;
		sim_work_copy(&w, &g->nodes[i]);
		w.disabled = x->nodes[i].disabled;
		sim_work_release(&x->nodes[i]);
		x->nodes[i] = w;
	}
	if (r == CUDA_SUCCESS)
		*result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
	pthread_mutex_unlock(&sim.lock);
	return r;
}

SIM_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
	CUgraphExecUpdateResult res;
	CUgraphNode err;
	if (!resultInfo)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = sim_exec_update(hGraphExec, hGraph, &res, &err);
	resultInfo->result = res;
	resultInfo->errorNode = err;
	resultInfo->errorFromNode = NULL;
	return r;
}

SIM_EXPORT CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
				      CUgraphExecUpdateResult *updateResult_out)
{
	CUgraphExecUpdateResult res;
	CUgraphNode err;
	if (!hErrorNode_out || !updateResult_out)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = sim_exec_update(hGraphExec, hGraph, &res, &err);
	*updateResult_out = res;
	*hErrorNode_out = err;
	return r;
}

/* The memset, memcpy and host setters: of the graph's node, or of one exec's (for its later
 * launches, the graph unchanged), as for kernel nodes. */
static CUresult sim_set_node(int exec_form, CUgraphExec hx, CUgraphNode hNode, CUgraphNodeType type,
			     CUresult built, struct sim_work *w)
{
	struct sim_graph_node *n = sim_node_get(hNode);
	struct sim_graph_exec *x = exec_form ? sim_exec_get(hx) : NULL;
	if (built == CUDA_SUCCESS && (!n || (exec_form && !x))) {
		sim_work_release(w);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return built ? built : sim_node_replace(x, n, type, w);
}

SIM_EXPORT CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(0, NULL, hNode, CU_GRAPH_NODE_TYPE_MEMSET, sim_memset_params_work(nodeParams, &w), &w);
}
SIM_EXPORT CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
						   const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(1, hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMSET, sim_memset_params_work(memsetParams, &w), &w);
}
SIM_EXPORT CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(0, NULL, hNode, CU_GRAPH_NODE_TYPE_MEMCPY, sim_memcpy_params_work(nodeParams, &w), &w);
}
SIM_EXPORT CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
						   const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(1, hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMCPY, sim_memcpy_params_work(copyParams, &w), &w);
}
static CUresult sim_host_params_work(const CUDA_HOST_NODE_PARAMS *p, struct sim_work *w)
{
	if (!p || !p->fn)
		return CUDA_ERROR_INVALID_VALUE;
	*w = (struct sim_work){.kind = SIM_OP_HOST_FN, .u.host = {p->fn, p->userData}};
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(0, NULL, hNode, CU_GRAPH_NODE_TYPE_HOST, sim_host_params_work(nodeParams, &w), &w);
}
SIM_EXPORT CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
						 const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(1, hGraphExec, hNode, CU_GRAPH_NODE_TYPE_HOST, sim_host_params_work(nodeParams, &w), &w);
}

/* Event record and wait nodes: markers naming the event (the simulator keeps them as empty
 * work); a replay records the event, or makes the stream wait for it, where the node stands
 * (sim_graph_launch).  "event must outlive the node", as for the real driver. */
static CUresult sim_event_node_work(CUevent event, CUgraphNodeType type, struct sim_work *w)
{
	if (!sim_obj_is(event, SIM_KIND_EVENT))
		return CUDA_ERROR_INVALID_VALUE;
	*w = (struct sim_work){.kind = SIM_OP_MARKER, .node_type = (unsigned)type + 1,
			       .u.event = {(struct sim_event *)event, 0}};
	return CUDA_SUCCESS;
}
static CUresult sim_event_node_add(CUgraphNode *ph, CUgraph hGraph, const CUgraphNode *deps, size_t ndeps,
				   CUevent event, CUgraphNodeType type)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	CUresult r = sim_event_node_work(event, type, &w);
	return r ? r : sim_graph_add(ph, hGraph, deps, ndeps, &w);
}
SIM_EXPORT CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					      size_t numDependencies, CUevent event)
{
	return sim_event_node_add(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
SIM_EXPORT CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					    size_t numDependencies, CUevent event)
{
	return sim_event_node_add(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}
/* The graph's event of a node of TYPE; CUDA_ERROR_INVALID_VALUE for a node of another type. */
static CUresult sim_event_node_get(CUgraphNode hNode, CUgraphNodeType type, CUevent *out)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *n = sim_node_get(hNode);
	if (!n || !out || n->type != type)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	*out = (CUevent)n->graph->nodes[n->index].u.event.event;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
SIM_EXPORT CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
	return sim_event_node_get(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out);
}
SIM_EXPORT CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
	return sim_event_node_get(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out);
}
/* The graph's node (EXEC_FORM 0) or exec HX's gets EVENT. */
static CUresult sim_event_node_set(int exec_form, CUgraphExec hx, CUgraphNode hNode, CUevent event, CUgraphNodeType type)
{
	SIM_REQUIRE_INIT();
	struct sim_work w;
	return sim_set_node(exec_form, hx, hNode, type, sim_event_node_work(event, type, &w), &w);
}
SIM_EXPORT CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event)
{
	return sim_event_node_set(0, NULL, hNode, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
SIM_EXPORT CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{
	return sim_event_node_set(0, NULL, hNode, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}
SIM_EXPORT CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
	return sim_event_node_set(1, hGraphExec, hNode, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
SIM_EXPORT CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
	return sim_event_node_set(1, hGraphExec, hNode, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

/* External semaphore signal and wait nodes: the simulator has no external semaphores to
 * import, so a replay does nothing there; the node keeps its own copy of the handles and
 * parameters ("The extSemArray and paramsArray returned in params_out, are owned by the node"). */
static CUresult sim_sem_node_work(CUexternalSemaphore *sems, const void *params, unsigned n, size_t psize,
				  CUgraphNodeType type, struct sim_work *w)
{
	if (!n || !sems || !params || n > (SIZE_MAX / 2) / (sizeof(*sems) + psize))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < n; i++)
		if (!sems[i])
			return CUDA_ERROR_INVALID_VALUE;
	CUexternalSemaphore *own = malloc(n * (sizeof(*own) + psize));
	if (!own)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(own, sems, n * sizeof(*own));
	memcpy(own + n, params, n * psize);
	*w = (struct sim_work){.kind = SIM_OP_MARKER, .node_type = (unsigned)type + 1,
			       .u.sem = {own, own + n, n, psize}};
	return CUDA_SUCCESS;
}
/* The graph's node of TYPE: its arrays, owned by the node. */
static CUresult sim_sem_node_get(CUgraphNode hNode, CUgraphNodeType type, CUexternalSemaphore **sems,
				 const void **params, unsigned *n)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_node *node = sim_node_get(hNode);
	if (!node || !sems || node->type != type)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	const struct sim_work *w = &node->graph->nodes[node->index];
	*sems = w->u.sem.sems;
	*params = w->u.sem.params;
	*n = w->u.sem.n;
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
/* The add, get, set and exec-set entry points of the signal (KIND Signal) and wait nodes. */
#define SIM_SEM_NODE_API(KIND, NODE_PARAMS, SEM_PARAMS, TYPE)                                  \
	SIM_EXPORT CUresult cuGraphAddExternalSemaphores##KIND##Node(                            \
		CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,       \
		size_t numDependencies, const NODE_PARAMS *nodeParams)                           \
	{                                                                                        \
		SIM_REQUIRE_INIT();                                                              \
		struct sim_work w;                                                               \
		CUresult r = SIM_SEM_WORK(nodeParams, SEM_PARAMS, TYPE, &w);                     \
		return r ? r : sim_graph_add(phGraphNode, hGraph, dependencies, numDependencies, &w); \
	}                                                                                        \
	SIM_EXPORT CUresult cuGraphExternalSemaphores##KIND##NodeGetParams(CUgraphNode hNode,    \
									   NODE_PARAMS *params_out) \
	{                                                                                        \
		const void *p = NULL;                                                            \
		CUresult r = params_out ? sim_sem_node_get(hNode, TYPE, &params_out->extSemArray, &p, \
							   &params_out->numExtSems)              \
					: CUDA_ERROR_INVALID_VALUE;                              \
		if (r == CUDA_SUCCESS)                                                           \
			params_out->paramsArray = p;                                             \
		return r;                                                                        \
	}                                                                                        \
	SIM_EXPORT CUresult cuGraphExternalSemaphores##KIND##NodeSetParams(CUgraphNode hNode,    \
									   const NODE_PARAMS *nodeParams) \
	{                                                                                        \
		SIM_REQUIRE_INIT();                                                              \
		struct sim_work w;                                                               \
		return sim_set_node(0, NULL, hNode, TYPE, SIM_SEM_WORK(nodeParams, SEM_PARAMS, TYPE, &w), &w); \
	}                                                                                        \
	SIM_EXPORT CUresult cuGraphExecExternalSemaphores##KIND##NodeSetParams(                  \
		CUgraphExec hGraphExec, CUgraphNode hNode, const NODE_PARAMS *nodeParams)        \
	{                                                                                        \
		SIM_REQUIRE_INIT();                                                              \
		struct sim_work w;                                                               \
		return sim_set_node(1, hGraphExec, hNode, TYPE, SIM_SEM_WORK(nodeParams, SEM_PARAMS, TYPE, &w), &w); \
	}
SIM_SEM_NODE_API(Signal, CUDA_EXT_SEM_SIGNAL_NODE_PARAMS, CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS,
		 CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL)
SIM_SEM_NODE_API(Wait, CUDA_EXT_SEM_WAIT_NODE_PARAMS, CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS,
		 CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT)

/* The nodes an exec of G holds: G's own, then those of each child graph (recursively). */
static size_t sim_graph_flat_count(const struct sim_graph *g)
{
	size_t n = g->nnodes;
	for (size_t i = 0; i < g->nnodes; i++) {
		if (g->nodes[i].child)
			n += sim_graph_flat_count(g->nodes[i].child);
		for (unsigned b = 0; g->nodes[i].bodies && b < g->nodes[i].u.cond.size; b++)
			n += sim_graph_flat_count(g->nodes[i].bodies[b]);
	}
	return n;
}

/* Instantiation flattens: G's nodes are copied at x->nodes[*pn...] (the top graph's at their own
 * indexes, so a CUgraphNode names its exec node), and the replay order gets G's order with each
 * child-graph node (an empty node) followed by its graph's nodes in their own order, and each
 * conditional node (an empty node) by its bodies' nodes, body by body, marked as theirs (OWNER
 * 1 + the conditional node's index, BODY): a launch runs the body the condition selects. */
static CUresult sim_exec_flatten(struct sim_graph_exec *x, const struct sim_graph *g, size_t *pn, size_t *po,
				 size_t owner, unsigned body)
{
	size_t base = *pn;
	for (size_t i = 0; i < g->nnodes; i++) {
		sim_work_copy(&x->nodes[base + i], &g->nodes[i]);
		x->cond_owner[base + i] = owner;
		x->cond_body[base + i] = body;
		/* An explicitly built graph runs in the context of its kernels. */
		if (!x->ctx && g->nodes[i].kind == SIM_OP_KERNEL) {
			struct sim_module *m = NULL;
			_Atomic int *dyn;
			sim_launch_entry(g->nodes[i].u.kernel.func, &m, &dyn);
			if (m)
				x->ctx = m->ctx;
		}
	}
	*pn += g->nnodes;
	CUresult r;
	size_t *order = sim_graph_order(g, &r);
	for (size_t k = 0; order && k < g->nnodes && r == CUDA_SUCCESS; k++) {
		x->order[(*po)++] = base + order[k];
		if (g->nodes[order[k]].child) {
			x->child_at[base + order[k]] = *pn;
			x->child_n[base + order[k]] = g->nodes[order[k]].child->nnodes;
			r = sim_exec_flatten(x, g->nodes[order[k]].child, pn, po, owner, body);
		}
		const struct sim_work *w = &g->nodes[order[k]];
		for (unsigned b = 0; w->bodies && b < w->u.cond.size && r == CUDA_SUCCESS; b++)
			r = sim_exec_flatten(x, w->bodies[b], pn, po, base + order[k] + 1, b);
	}
	free(order);
	return r;
}

/* Whether graph C matches the child graph exec X holds at AT (N nodes): as many nodes, each of
 * the same kind and type, child graphs where it has them, recursively (edges are not compared:
 * the simulator replays in insertion order where they allow).  With APPLY, X takes C's nodes'
 * parameters, keeping each node's enabled state.  Under sim.lock. */
static bool sim_exec_child_match_locked(struct sim_graph_exec *x, size_t at, size_t n, const struct sim_graph *c,
					bool apply)
{
	if (c->nnodes != n || at + n > x->nnodes)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct sim_work *cur = &x->nodes[at + i];
		const struct sim_work *w = &c->nodes[i];
		if (w->kind != cur->kind || w->node_type != cur->node_type || !w->child != !x->child_at[at + i])
			return false;
		if (w->child && !sim_exec_child_match_locked(x, x->child_at[at + i], x->child_n[at + i], w->child, apply))
			return false;
		if (apply) {
			struct sim_work copy;
			sim_work_copy(&copy, w);
			copy.disabled = cur->disabled;
			sim_work_release(cur);
			*cur = copy;
		}
	}
	return true;
}

/* cuGraphExecChildGraphNodeSetParams: "Updates the work represented by hNode in hGraphExec as
 * though the nodes contained in hNode's graph had the parameters contained in childGraph's
 * nodes at instantiation ... The topology of childGraph, as well as the node insertion order,
 * must match"; for later launches only, the graph's node unchanged. */
SIM_EXPORT CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_exec *x = sim_exec_get(hGraphExec);
	struct sim_graph_node *n = sim_node_get(hNode);
	struct sim_graph *c = sim_graph_get(childGraph);
	if (!x || !n || !c)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sim.lock);
	if (n->type == CU_GRAPH_NODE_TYPE_GRAPH && n->graph->id == x->graph_id && n->index < x->nnodes &&
	    x->child_at[n->index] &&
	    sim_exec_child_match_locked(x, x->child_at[n->index], x->child_n[n->index], c, false)) {
		sim_exec_child_match_locked(x, x->child_at[n->index], x->child_n[n->index], c, true);
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&sim.lock);
	return r;
}

static CUresult sim_instantiate(CUgraphExec *phGraphExec, CUgraph h, unsigned long long flags)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(h);
	if (!phGraphExec)
		return CUDA_ERROR_INVALID_VALUE;
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_graph_exec *x = sim_obj_new(SIM_KIND_GRAPH_EXEC, sizeof(*x));
	if (!x)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&sim.lock);
	x->ctx = g->ctx;
	x->graph_id = g->id;
	x->flags = flags;
	size_t total = sim_graph_flat_count(g), pn = 0, po = 0;
	x->nodes = calloc(total ? total : 1, sizeof(*x->nodes));
	x->order = malloc((total ? total : 1) * sizeof(*x->order));
	x->child_at = calloc(total ? total : 1, sizeof(*x->child_at));
	x->child_n = calloc(total ? total : 1, sizeof(*x->child_n));
	x->cond_owner = calloc(total ? total : 1, sizeof(*x->cond_owner));
	x->cond_body = calloc(total ? total : 1, sizeof(*x->cond_body));
	CUresult ro = x->nodes && x->order && x->child_at && x->child_n && x->cond_owner && x->cond_body
			      ? sim_exec_flatten(x, g, &pn, &po, 0, 0)
			      : CUDA_ERROR_OUT_OF_MEMORY;
	if (x->nodes)
		x->nnodes = pn;
	if (ro) {
		if (x->nodes)
			sim_graph_nodes_free(x->nodes, x->nnodes);
		free(x->order);
		free(x->child_at);
		free(x->child_n);
		free(x->cond_owner);
		free(x->cond_body);
		x->nodes = NULL, x->order = NULL, x->child_at = x->child_n = x->cond_owner = NULL;
		x->cond_body = NULL;
	}
	pthread_mutex_unlock(&sim.lock);
	if (!x->nodes) {
		sim_obj_free(x, SIM_KIND_GRAPH_EXEC);
		return ro;
	}
	*phGraphExec = (CUgraphExec)x;
	return CUDA_SUCCESS;
}

static const unsigned long long sim_instantiate_flags =
	CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
	CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

SIM_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
	if (flags & ~sim_instantiate_flags)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_instantiate(phGraphExec, hGraph, flags);
}

/* The pre-12.0 form with an error node and a log buffer. */
static CUresult sim_instantiate_logged(CUgraphExec *x, CUgraph g, CUgraphNode *err, char *log, size_t len)
{
	if (err)
		*err = NULL;
	if (log && len)
		log[0] = 0;
	return sim_instantiate(x, g, 0);
}
SIM_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	return sim_instantiate_logged(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
SIM_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	return sim_instantiate_logged(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

/* cuGraphInstantiateWithParams: flags as above; CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD uploads on
 * hUploadStream (nothing to do here); the outcome goes to result_out. */
static CUresult sim_instantiate_params(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	p->hErrNode_out = NULL;
	CUresult r = p->flags & ~sim_instantiate_flags ? CUDA_ERROR_INVALID_VALUE
						       : sim_instantiate(phGraphExec, hGraph, p->flags);
	p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
	return r;
}
SIM_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	return sim_instantiate_params(phGraphExec, hGraph, instantiateParams);
}
SIM_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	return sim_instantiate_params(phGraphExec, hGraph, instantiateParams);
}

/* Whether conditional node W runs body B at a launch: IF runs body 0 when the condition is
 * non-zero, else body 1 if it has one; WHILE its body while it is non-zero, which no device code
 * can change here, so once (docs/SIMULATOR.md); SWITCH body `value` when there is one. */
static bool sim_cond_selects(const struct sim_work *w, unsigned b)
{
	unsigned v = w->u.cond.value;
	switch (w->u.cond.type) {
	case CU_GRAPH_COND_TYPE_IF: return v ? b == 0 : b == 1 && w->u.cond.size == 2;
	case CU_GRAPH_COND_TYPE_WHILE: return v && b == 0;
	case CU_GRAPH_COND_TYPE_SWITCH: return v == b && v < w->u.cond.size;
	default: return false;
	}
}

static CUresult sim_graph_launch(CUgraphExec h, CUstream hs, int per_thread)
{
	SIM_REQUIRE_INIT();
	SIM_COST(SIM_COST_GRAPH_LAUNCH);
	struct sim_graph_exec *x = sim_exec_get(h);
	if (!x)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(hs, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (x->ctx && s->ctx != x->ctx)
		return CUDA_ERROR_INVALID_VALUE;
	/* This replay's copy of the nodes, taken at once: cuGraphExec*SetParams may change them
	 * for the next one meanwhile. */
	pthread_mutex_lock(&sim.lock);
	size_t n = x->nnodes;
	struct sim_work *works = malloc((n ? n : 1) * sizeof(*works));
	unsigned char *runs = malloc(n ? n : 1);
	if (!works || !runs) {
		pthread_mutex_unlock(&sim.lock);
		free(works);
		free(runs);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	for (size_t i = 0; i < n; i++) {
		/* A conditional body's node runs when its conditional node ran and selected that body
		 * (conditional nodes come before their bodies in the replay order). */
		size_t at = x->order[i], o = x->cond_owner[at];
		runs[at] = !o || (runs[o - 1] && sim_cond_selects(&x->nodes[o - 1], x->cond_body[at]));
		if (runs[at])
			sim_work_dup(&works[i], &x->nodes[at], 0);
		else
			works[i] = (struct sim_work){.kind = SIM_OP_MARKER};
	}
	pthread_mutex_unlock(&sim.lock);
	free(runs);
	size_t i = 0;
	for (; i < n && r == CUDA_SUCCESS; i++) {
		if (works[i].disabled) { /* an empty node until reenabled */
			sim_work_release(&works[i]);
			works[i] = (struct sim_work){.kind = SIM_OP_MARKER};
		}
		/* Event nodes record the event, or wait for it, at their place in the replay. */
		struct sim_event *ev = works[i].u.event.event;
		if (works[i].node_type == CU_GRAPH_NODE_TYPE_EVENT_RECORD + 1) {
			r = per_thread ? cuEventRecord_ptsz((CUevent)ev, hs) : cuEventRecord((CUevent)ev, hs);
			continue;
		}
		if (works[i].node_type == CU_GRAPH_NODE_TYPE_WAIT_EVENT + 1) {
			r = per_thread ? cuStreamWaitEvent_ptsz(hs, (CUevent)ev, 0) : cuStreamWaitEvent(hs, (CUevent)ev, 0);
			continue;
		}
		/* Each replay is a launch (copy, set) again. */
		works[i].count = works[i].kind == SIM_OP_KERNEL || works[i].kind == SIM_OP_COPY ||
				 works[i].kind == SIM_OP_SET;
		r = sim_submit(s, &works[i]);
	}
	for (; i < n; i++)
		sim_work_release(&works[i]);
	free(works);
	/* The launch was accepted: a fault reached while queueing it (in null mode, inside this
	 * call) surfaces later, as on a GPU; the nodes left are dropped with the context. */
	return r == CUDA_ERROR_ILLEGAL_ADDRESS ? CUDA_SUCCESS : r;
}

SIM_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { return sim_graph_launch(hGraphExec, hStream, 0); }
SIM_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return sim_graph_launch(hGraphExec, hStream, 1); }

static CUresult sim_graph_upload(CUgraphExec h, CUstream hs, int per_thread)
{
	SIM_REQUIRE_INIT();
	if (!sim_exec_get(h))
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(hs, per_thread, &s);
	return r ? r : sim_ctx_sticky(s->ctx); /* nothing to upload to a simulated device */
}

SIM_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) { return sim_graph_upload(hGraphExec, hStream, 0); }
SIM_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) { return sim_graph_upload(hGraphExec, hStream, 1); }

SIM_EXPORT CUresult cuGraphExecDestroy(CUgraphExec h)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_exec *x = sim_exec_get(h);
	if (!x)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	sim_graph_nodes_free(x->nodes, x->nnodes);
	x->nodes = NULL;
	free(x->order);
	free(x->child_at);
	free(x->child_n);
	free(x->cond_owner);
	free(x->cond_body);
	x->order = NULL, x->child_at = x->child_n = x->cond_owner = NULL;
	x->cond_body = NULL;
	sim_obj_free(x, SIM_KIND_GRAPH_EXEC);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphDestroy(CUgraph h)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(h);
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	sim_graph_free_locked(g);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
