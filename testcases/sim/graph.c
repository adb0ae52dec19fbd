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

void sim_work_copy(struct sim_work *dst, const struct sim_work *src)
{
	*dst = *src;
	if (src->kind == SIM_OP_KERNEL && src->u.kernel.argv) {
		dst->u.kernel.argv = malloc(src->u.kernel.argc * sizeof(*dst->u.kernel.argv));
		if (dst->u.kernel.argv)
			memcpy(dst->u.kernel.argv, src->u.kernel.argv, src->u.kernel.argc * sizeof(*dst->u.kernel.argv));
		else
			dst->u.kernel.argc = 0; /* best effort without memory: no argument, no Xid line */
	}
	if (src->kind == SIM_OP_COPY && src->u.copy.staging) {
		dst->u.copy.staging = malloc(src->u.copy.bytes);
		if (dst->u.copy.staging)
			memcpy(dst->u.copy.staging, src->u.copy.staging, src->u.copy.bytes);
		else
			dst->u.copy.src = src->u.copy.staging; /* best effort without memory */
	}
}

void sim_graph_append_locked(struct sim_graph *g, const struct sim_work *w)
{
	if (g->nnodes == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 16;
		struct sim_work *n = realloc(g->nodes, ncap * sizeof(*n));
		if (!n)
			return;
		g->nodes = n;
		g->cap = ncap;
	}
	g->nodes[g->nnodes++] = *w;
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
		size_t before = s->capture_graph->nnodes;
		sim_graph_append_locked(s->capture_graph, &copy);
		if (s->capture_graph->nnodes == before)
			r = CUDA_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_unlock(&sim.lock);
	if (r)
		sim_work_release(&copy);
	return r;
}

static void sim_graph_nodes_free(struct sim_work *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sim_work_release(&nodes[i]);
	free(nodes);
}

/* ---- capture ------------------------------------------------------------------------------------- */

static CUresult sim_begin_capture(CUstream h, CUstreamCaptureMode mode, int per_thread)
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
	struct sim_graph *g = sim_obj_new(SIM_KIND_GRAPH, sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	g->ctx = s->ctx;
	pthread_mutex_lock(&sim.lock);
	if (s->capture_status != SIM_CAPTURE_NONE) {
		pthread_mutex_unlock(&sim.lock);
		sim_obj_free(g, SIM_KIND_GRAPH);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	s->capture_graph = g;
	s->capture_status = SIM_CAPTURE_ACTIVE;
	s->capture_mode = mode;
	s->capture_id = sim_new_id();
	s->capture_origin = 1;
	s->capture_thread = &sim_thr;
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
	int invalidated = 0;
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
		sim_graph_nodes_free(g->nodes, g->nnodes);
		sim_obj_free(g, SIM_KIND_GRAPH);
		pthread_mutex_unlock(&sim.lock);
		*phGraph = NULL;
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	}
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { return sim_end_capture(hStream, phGraph, 0); }
SIM_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { return sim_end_capture(hStream, phGraph, 1); }

static CUresult sim_capture_status(CUstream h, int per_thread, CUstreamCaptureStatus *status,
				   cuuint64_t *id, CUgraph *graph)
{
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

/* The simulator's graphs are linear, so the capture's "current dependencies" are never
 * reported: *numDependencies_out is 0. */
static CUresult sim_capture_info(CUstream h, int per_thread, CUstreamCaptureStatus *status, cuuint64_t *id,
				 CUgraph *graph, const CUgraphNode **deps, const CUgraphEdgeData **edges,
				 size_t *ndeps)
{
	CUresult r = sim_capture_status(h, per_thread, status, id, graph);
	if (r == CUDA_SUCCESS) {
		if (deps)
			*deps = NULL;
		if (edges)
			*edges = NULL;
		if (ndeps)
			*ndeps = 0;
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

static CUresult sim_instantiate(CUgraphExec *phGraphExec, CUgraph h)
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
	x->nodes = calloc(g->nnodes ? g->nnodes : 1, sizeof(*x->nodes));
	if (x->nodes) {
		for (size_t i = 0; i < g->nnodes; i++)
			sim_work_copy(&x->nodes[i], &g->nodes[i]);
		x->nnodes = g->nnodes;
	}
	pthread_mutex_unlock(&sim.lock);
	if (!x->nodes) {
		sim_obj_free(x, SIM_KIND_GRAPH_EXEC);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*phGraphExec = (CUgraphExec)x;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
	unsigned long long valid = CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
				   CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD |
				   CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
				   CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
	if (flags & ~valid)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_instantiate(phGraphExec, hGraph);
}

/* The pre-12.0 form with an error node and a log buffer. */
static CUresult sim_instantiate_logged(CUgraphExec *x, CUgraph g, CUgraphNode *err, char *log, size_t len)
{
	if (err)
		*err = NULL;
	if (log && len)
		log[0] = 0;
	return sim_instantiate(x, g);
}
SIM_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	return sim_instantiate_logged(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
SIM_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	return sim_instantiate_logged(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

static CUresult sim_graph_launch(CUgraphExec h, CUstream hs, int per_thread)
{
	SIM_REQUIRE_INIT();
	struct sim_graph_exec *x = sim_exec_get(h);
	if (!x)
		return CUDA_ERROR_INVALID_HANDLE;
	struct sim_stream *s;
	CUresult r = sim_stream_resolve(hs, per_thread, &s);
	if (r || (r = sim_ctx_sticky(s->ctx)))
		return r;
	if (s->ctx != x->ctx)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < x->nnodes && r == CUDA_SUCCESS; i++) {
		struct sim_work w;
		sim_work_copy(&w, &x->nodes[i]);
		/* Each replay is a launch (copy, set) again. */
		w.count = w.kind == SIM_OP_KERNEL || w.kind == SIM_OP_COPY || w.kind == SIM_OP_SET;
		r = sim_submit(s, &w);
	}
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
	sim_graph_nodes_free(x->nodes, x->nnodes);
	sim_obj_free(x, SIM_KIND_GRAPH_EXEC);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuGraphDestroy(CUgraph h)
{
	SIM_REQUIRE_INIT();
	struct sim_graph *g = sim_graph_get(h);
	if (!g)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&sim.lock);
	sim_graph_nodes_free(g->nodes, g->nnodes);
	sim_obj_free(g, SIM_KIND_GRAPH);
	pthread_mutex_unlock(&sim.lock);
	return CUDA_SUCCESS;
}
