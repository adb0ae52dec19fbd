/* SPDX-License-Identifier: MIT */
/*
 * What each hook named in api.h records.  The generated wrapper calls CI_PRE_<hook>(call, args)
 * before the real driver call and CI_HOOK_<hook>(call, result, args) after it; the macros below
 * adapt each entry point's ABI (32-bit legacy sizes, pointer or integer device addresses,
 * versioned argument lists) to one recording function per kind of call, so cuMemAlloc and
 * cuMemAlloc_v2, or cuLaunchKernel and cuLaunchKernel_ptsz, share their code.  Included by
 * recorder.h only.
 */
#ifndef CI_RECORDER_HOOKS_H
#define CI_RECORDER_HOOKS_H

#define CI_U64(x) ((uint64_t)(uintptr_t)(x))
/* The value an out-parameter received, or 0 when the caller passed NULL. */
#define CI_OUT(p) ((p) ? CI_U64(*(p)) : 0)

#define CI_HOOK_none(c, r, ...) ((void)0)
#define CI_PRE_none(c, ...) ((void)0)

/* ---- init, contexts ---------------------------------------------------------------------- */
void ci_on_init(struct ci_call *c, CUresult r);
void ci_on_primary_retain(struct ci_call *c, CUresult r, uint64_t ctx, CUdevice dev);
void ci_on_primary_release(struct ci_call *c, CUresult r, CUdevice dev);
void ci_on_ctx_create(struct ci_call *c, CUresult r, uint64_t ctx, unsigned flags, CUdevice dev);
void ci_on_ctx_destroy(struct ci_call *c, CUresult r, uint64_t ctx);
void ci_on_ctx_from_green(struct ci_call *c, CUresult r, uint64_t ctx, uint64_t green);
void ci_on_green_ctx_destroy(struct ci_call *c, CUresult r, uint64_t green);
void ci_on_sync(struct ci_call *c, CUresult r, uint32_t kind, uint64_t handle);

#define CI_HOOK_h_init(c, r, fl) ci_on_init(c, r)
#define CI_PRE_h_init(c, ...) ((void)0)
#define CI_HOOK_h_primary_retain(c, r, pctx, dev) ci_on_primary_retain(c, r, CI_OUT(pctx), dev)
#define CI_PRE_h_primary_retain(c, ...) ((void)0)
#define CI_HOOK_h_primary_release(c, r, dev) ci_on_primary_release(c, r, dev)
#define CI_PRE_h_primary_release(c, ...) ((void)0)
#define CI_HOOK_h_ctx_create(c, r, pctx, fl, dev) ci_on_ctx_create(c, r, CI_OUT(pctx), fl, dev)
#define CI_PRE_h_ctx_create(c, ...) ((void)0)
#define CI_HOOK_h_ctx_create_v3(c, r, pctx, p, n, fl, dev) ci_on_ctx_create(c, r, CI_OUT(pctx), fl, dev)
#define CI_PRE_h_ctx_create_v3(c, ...) ((void)0)
#define CI_HOOK_h_ctx_create_v4(c, r, pctx, p, fl, dev) ci_on_ctx_create(c, r, CI_OUT(pctx), fl, dev)
#define CI_PRE_h_ctx_create_v4(c, ...) ((void)0)
#define CI_HOOK_h_ctx_destroy(c, r, ctx) ci_on_ctx_destroy(c, r, CI_U64(ctx))
#define CI_PRE_h_ctx_destroy(c, ...) ((void)0)
#define CI_HOOK_h_ctx_from_green(c, r, pctx, g) ci_on_ctx_from_green(c, r, CI_OUT(pctx), CI_U64(g))
#define CI_PRE_h_ctx_from_green(c, ...) ((void)0)
#define CI_HOOK_h_green_ctx_destroy(c, r, g) ci_on_green_ctx_destroy(c, r, CI_U64(g))
#define CI_PRE_h_green_ctx_destroy(c, ...) ((void)0)
#define CI_HOOK_h_ctx_sync(c, r) ci_on_sync(c, r, CI_EV_CTX_SYNC, 0)
#define CI_PRE_h_ctx_sync(c, ...) ((void)0)
#define CI_HOOK_h_ctx_sync_v2(c, r, ctx) ci_on_sync(c, r, CI_EV_CTX_SYNC, CI_U64(ctx))
#define CI_PRE_h_ctx_sync_v2(c, ...) ((void)0)

/* ---- streams, events, capture, graphs ------------------------------------------------------ */
void ci_on_stream_create(struct ci_call *c, CUresult r, uint64_t stream, unsigned flags,
			 int priority, uint64_t green);
void ci_on_stream_destroy(struct ci_call *c, CUresult r, CUstream s);
void ci_on_stream_sync_pre(struct ci_call *c, CUstream s);
void ci_on_stream_sync(struct ci_call *c, CUresult r, CUstream s);
void ci_on_query(struct ci_call *c, CUresult r, uint32_t kind, CUstream s, uint64_t event);
void ci_on_event_sync(struct ci_call *c, CUresult r, uint64_t event);
void ci_on_event_record(struct ci_call *c, CUresult r, uint32_t kind, uint64_t event, CUstream s,
			unsigned flags);
void ci_on_capture_begin(struct ci_call *c, CUresult r, CUstream s, unsigned mode,
			 uint64_t graph);
void ci_on_capture_end(struct ci_call *c, CUresult r, CUstream s, uint64_t graph);
void ci_on_capture_end_pre(struct ci_call *c, CUstream s);
void ci_on_graph_instantiate(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph,
			     uint64_t flags);
void ci_on_graph_launch(struct ci_call *c, CUresult r, uint64_t exec, CUstream s);
/* graphs.c */
void ci_on_graph_add_kernel(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_KERNEL_NODE_PARAMS *p);
void ci_on_graph_add_memcpy(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_MEMCPY3D *p);
void ci_on_graph_add_memset(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUDA_MEMSET_NODE_PARAMS *p);
void ci_on_graph_add_child(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint64_t child);
void ci_on_graph_add(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint32_t type,
		     uint64_t func, uint64_t a, uint64_t bytes);
void ci_on_graph_add_params(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph,
			    const CUgraphNodeParams *p);
void ci_on_graph_kernel_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_KERNEL_NODE_PARAMS *p);
void ci_on_graph_params_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUgraphNodeParams *p);
void ci_on_graph_memset_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_MEMSET_NODE_PARAMS *p);
void ci_on_graph_memcpy_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			       const CUDA_MEMCPY3D *p);
void ci_on_graph_host_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node,
			     const CUDA_HOST_NODE_PARAMS *p);
void ci_on_graph_exec_child_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, uint64_t child);
void ci_on_graph_add_sem(struct ci_call *c, CUresult r, uint64_t node, uint64_t graph, uint32_t type,
			 uint64_t first, uint64_t count);
void ci_on_graph_ab_update(struct ci_call *c, CUresult r, uint64_t exec, uint64_t node, uint32_t type,
			   uint64_t a, uint64_t b);
/* The CUDA 10 kernel node parameters as the 12.0 ones (kern and ctx NULL). */
#define CI_KNP_V2(p)                                                                           \
	((p) ? &(CUDA_KERNEL_NODE_PARAMS){ (p)->func, (p)->gridDimX, (p)->gridDimY, (p)->gridDimZ, \
					   (p)->blockDimX, (p)->blockDimY, (p)->blockDimZ,         \
					   (p)->sharedMemBytes, (p)->kernelParams, (p)->extra,     \
					   NULL, NULL }                                            \
	     : NULL)

#define CI_HOOK_h_stream_create(c, r, ps, fl) ci_on_stream_create(c, r, CI_OUT(ps), fl, 0, 0)
#define CI_PRE_h_stream_create(c, ...) ((void)0)
#define CI_HOOK_h_stream_create_prio(c, r, ps, fl, prio) ci_on_stream_create(c, r, CI_OUT(ps), fl, prio, 0)
#define CI_PRE_h_stream_create_prio(c, ...) ((void)0)
#define CI_HOOK_h_green_stream_create(c, r, ps, g, fl, prio) ci_on_stream_create(c, r, CI_OUT(ps), fl, prio, CI_U64(g))
#define CI_PRE_h_green_stream_create(c, ...) ((void)0)
#define CI_HOOK_h_stream_destroy(c, r, s) ci_on_stream_destroy(c, r, s)
#define CI_PRE_h_stream_destroy(c, ...) ((void)0)
#define CI_HOOK_h_stream_sync(c, r, s) ci_on_stream_sync(c, r, s)
#define CI_PRE_h_stream_sync(c, s) ci_on_stream_sync_pre(c, s)
#define CI_HOOK_h_stream_query(c, r, s) ci_on_query(c, r, CI_EV_STREAM_QUERY, s, 0)
#define CI_PRE_h_stream_query(c, ...) ((void)0)
#define CI_HOOK_h_event_query(c, r, e) ci_on_query(c, r, CI_EV_EVENT_QUERY, NULL, CI_U64(e))
#define CI_PRE_h_event_query(c, ...) ((void)0)
#define CI_HOOK_h_event_sync(c, r, e) ci_on_event_sync(c, r, CI_U64(e))
#define CI_PRE_h_event_sync(c, ...) ((void)0)
#define CI_HOOK_h_event_record(c, r, e, s) ci_on_event_record(c, r, CI_EV_EVENT_RECORD, CI_U64(e), s, 0)
#define CI_PRE_h_event_record(c, ...) ((void)0)
#define CI_HOOK_h_event_record_flags(c, r, e, s, fl) ci_on_event_record(c, r, CI_EV_EVENT_RECORD, CI_U64(e), s, fl)
#define CI_PRE_h_event_record_flags(c, ...) ((void)0)
#define CI_HOOK_h_stream_wait_event(c, r, s, e, fl) ci_on_event_record(c, r, CI_EV_STREAM_WAIT_EVENT, CI_U64(e), s, fl)
#define CI_PRE_h_stream_wait_event(c, ...) ((void)0)
/* The original cuStreamBeginCapture (CUDA 10.0) captured in what is now the global mode. */
#define CI_HOOK_h_capture_begin_v1(c, r, s) ci_on_capture_begin(c, r, s, CU_STREAM_CAPTURE_MODE_GLOBAL, 0)
#define CI_PRE_h_capture_begin_v1(c, ...) ((void)0)
#define CI_HOOK_h_capture_begin(c, r, s, mode) ci_on_capture_begin(c, r, s, mode, 0)
#define CI_PRE_h_capture_begin(c, ...) ((void)0)
#define CI_HOOK_h_capture_begin_to_graph(c, r, s, g, deps, data, n, mode) ci_on_capture_begin(c, r, s, mode, CI_U64(g))
#define CI_PRE_h_capture_begin_to_graph(c, ...) ((void)0)
#define CI_HOOK_h_capture_deps(c, r, s, ...) ci_graph_capture_deps_changed(c, r, s)
#define CI_PRE_h_capture_deps(c, ...) ((void)0)
#define CI_HOOK_h_capture_end(c, r, s, pg) ci_on_capture_end(c, r, s, CI_OUT(pg))
#define CI_PRE_h_capture_end(c, s, pg) ci_on_capture_end_pre(c, s)
#define CI_HOOK_h_graph_instantiate_v1(c, r, pe, g, en, log, n) ci_on_graph_instantiate(c, r, CI_OUT(pe), CI_U64(g), 0)
#define CI_PRE_h_graph_instantiate_v1(c, ...) ((void)0)
#define CI_HOOK_h_graph_instantiate_flags(c, r, pe, g, fl) ci_on_graph_instantiate(c, r, CI_OUT(pe), CI_U64(g), fl)
#define CI_PRE_h_graph_instantiate_flags(c, ...) ((void)0)
#define CI_HOOK_h_graph_instantiate_params(c, r, pe, g, p) ci_on_graph_instantiate(c, r, CI_OUT(pe), CI_U64(g), (p) ? (p)->flags : 0)
#define CI_PRE_h_graph_instantiate_params(c, ...) ((void)0)
#define CI_HOOK_h_graph_launch(c, r, e, s) ci_on_graph_launch(c, r, CI_U64(e), s)
#define CI_PRE_h_graph_launch(c, ...) ((void)0)
#define CI_HOOK_h_graph_create(c, r, pg, fl) ci_graph_created(c, r, CI_OUT(pg))
#define CI_PRE_h_graph_create(c, ...) ((void)0)
#define CI_HOOK_h_graph_destroy(c, r, g) ci_graph_destroyed(c, r, CI_U64(g))
#define CI_PRE_h_graph_destroy(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_destroy(c, r, e) ci_graph_exec_destroyed(c, r, CI_U64(e))
#define CI_PRE_h_graph_exec_destroy(c, ...) ((void)0)
/* The dependencies of a node added explicitly, for ci_graph_node_added (the call's scratch). */
#define CI_DEPS(c, d, n) ((c)->pre_value = CI_U64(d), (c)->pre_slot = (uint32_t)(n))
#define CI_HOOK_h_graph_add_kernel(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_kernel(c, r, CI_OUT(pn), CI_U64(g), p))
#define CI_PRE_h_graph_add_kernel(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_kernel_v1(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_kernel(c, r, CI_OUT(pn), CI_U64(g), CI_KNP_V2(p)))
#define CI_PRE_h_graph_add_kernel_v1(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_memcpy(c, r, pn, g, d, n, p, ctx) (CI_DEPS(c, d, n), ci_on_graph_add_memcpy(c, r, CI_OUT(pn), CI_U64(g), p))
#define CI_PRE_h_graph_add_memcpy(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_memset(c, r, pn, g, d, n, p, ctx) (CI_DEPS(c, d, n), ci_on_graph_add_memset(c, r, CI_OUT(pn), CI_U64(g), p))
#define CI_PRE_h_graph_add_memset(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_host(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_HOST, (p) ? CI_U64((p)->fn) : 0, 0, 0))
#define CI_PRE_h_graph_add_host(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_child(c, r, pn, g, d, n, child) (CI_DEPS(c, d, n), ci_on_graph_add_child(c, r, CI_OUT(pn), CI_U64(g), CI_U64(child)))
#define CI_PRE_h_graph_add_child(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_empty(c, r, pn, g, d, n) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_EMPTY, 0, 0, 0))
#define CI_PRE_h_graph_add_empty(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_event_record(c, r, pn, g, d, n, e) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_EVENT_RECORD, 0, CI_U64(e), 0))
#define CI_PRE_h_graph_add_event_record(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_event_wait(c, r, pn, g, d, n, e) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_EVENT_WAIT, 0, CI_U64(e), 0))
#define CI_PRE_h_graph_add_event_wait(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_memop(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_MEMOP, 0, 0, 0))
#define CI_PRE_h_graph_add_memop(c, ...) ((void)0)
/* External-semaphore nodes: `a` the first semaphore, `b` how many. */
#define CI_SEM_FIRST(p) ((p) && (p)->numExtSems && (p)->extSemArray ? CI_U64((p)->extSemArray[0]) : 0)
#define CI_SEM_COUNT(p) ((p) ? (uint64_t)(p)->numExtSems : 0)
#define CI_HOOK_h_graph_add_sem_signal(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_sem(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_SEM_SIGNAL, CI_SEM_FIRST(p), CI_SEM_COUNT(p)))
#define CI_PRE_h_graph_add_sem_signal(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_sem_wait(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_sem(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_SEM_WAIT, CI_SEM_FIRST(p), CI_SEM_COUNT(p)))
#define CI_PRE_h_graph_add_sem_wait(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_mem_alloc(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_MEM_ALLOC, 0, (p) ? (p)->dptr : 0, (p) ? (p)->bytesize : 0))
#define CI_PRE_h_graph_add_mem_alloc(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_mem_free(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add(c, r, CI_OUT(pn), CI_U64(g), CI_NODE_MEM_FREE, 0, p, 0))
#define CI_PRE_h_graph_add_mem_free(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_node(c, r, pn, g, d, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_params(c, r, CI_OUT(pn), CI_U64(g), p))
#define CI_PRE_h_graph_add_node(c, ...) ((void)0)
#define CI_HOOK_h_graph_add_node_v2(c, r, pn, g, d, dd, n, p) (CI_DEPS(c, d, n), ci_on_graph_add_params(c, r, CI_OUT(pn), CI_U64(g), p))
#define CI_PRE_h_graph_add_node_v2(c, ...) ((void)0)
#define CI_HOOK_h_graph_kernel_set(c, r, node, p) ci_on_graph_kernel_update(c, r, 0, CI_U64(node), p)
#define CI_PRE_h_graph_kernel_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_kernel_set_v1(c, r, node, p) ci_on_graph_kernel_update(c, r, 0, CI_U64(node), CI_KNP_V2(p))
#define CI_PRE_h_graph_kernel_set_v1(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_kernel_set(c, r, x, node, p) ci_on_graph_kernel_update(c, r, CI_U64(x), CI_U64(node), p)
#define CI_PRE_h_graph_exec_kernel_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_kernel_set_v1(c, r, x, node, p) ci_on_graph_kernel_update(c, r, CI_U64(x), CI_U64(node), CI_KNP_V2(p))
#define CI_PRE_h_graph_exec_kernel_set_v1(c, ...) ((void)0)
#define CI_HOOK_h_graph_clone(c, r, pg, o) ci_graph_cloned(c, r, CI_OUT(pg), CI_U64(o))
#define CI_PRE_h_graph_clone(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_update(c, r, x, g, info) ci_graph_exec_updated(c, r, CI_U64(x), CI_U64(g))
#define CI_PRE_h_graph_exec_update(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_update_v1(c, r, x, g, en, res) ci_graph_exec_updated(c, r, CI_U64(x), CI_U64(g))
#define CI_PRE_h_graph_exec_update_v1(c, ...) ((void)0)
#define CI_HOOK_h_graph_deps_add(c, r, g, from, to, n) ci_graph_edges(c, r, from, to, n, true)
#define CI_PRE_h_graph_deps_add(c, ...) ((void)0)
#define CI_HOOK_h_graph_deps_add_v2(c, r, g, from, to, ed, n) ci_graph_edges(c, r, from, to, n, true)
#define CI_PRE_h_graph_deps_add_v2(c, ...) ((void)0)
#define CI_HOOK_h_graph_deps_remove(c, r, g, from, to, n) ci_graph_edges(c, r, from, to, n, false)
#define CI_PRE_h_graph_deps_remove(c, ...) ((void)0)
#define CI_HOOK_h_graph_deps_remove_v2(c, r, g, from, to, ed, n) ci_graph_edges(c, r, from, to, n, false)
#define CI_PRE_h_graph_deps_remove_v2(c, ...) ((void)0)
#define CI_HOOK_h_graph_node_destroy(c, r, node) ci_graph_node_destroyed(c, r, CI_U64(node))
#define CI_PRE_h_graph_node_destroy(c, ...) ((void)0)
#define CI_HOOK_h_graph_node_enable(c, r, x, node, en) ci_graph_node_enabled(c, r, CI_U64(x), CI_U64(node), en)
#define CI_PRE_h_graph_node_enable(c, ...) ((void)0)
#define CI_HOOK_h_graph_memset_set(c, r, node, p) ci_on_graph_memset_update(c, r, 0, CI_U64(node), p)
#define CI_PRE_h_graph_memset_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_memset_set(c, r, x, node, p, ctx) ci_on_graph_memset_update(c, r, CI_U64(x), CI_U64(node), p)
#define CI_PRE_h_graph_exec_memset_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_memcpy_set(c, r, node, p) ci_on_graph_memcpy_update(c, r, 0, CI_U64(node), p)
#define CI_PRE_h_graph_memcpy_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_memcpy_set(c, r, x, node, p, ctx) ci_on_graph_memcpy_update(c, r, CI_U64(x), CI_U64(node), p)
#define CI_PRE_h_graph_exec_memcpy_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_host_set(c, r, node, p) ci_on_graph_host_update(c, r, 0, CI_U64(node), p)
#define CI_PRE_h_graph_host_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_host_set(c, r, x, node, p) ci_on_graph_host_update(c, r, CI_U64(x), CI_U64(node), p)
#define CI_PRE_h_graph_exec_host_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_event_record_set(c, r, node, e) ci_on_graph_ab_update(c, r, 0, CI_U64(node), CI_NODE_EVENT_RECORD, CI_U64(e), 0)
#define CI_PRE_h_graph_event_record_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_event_wait_set(c, r, node, e) ci_on_graph_ab_update(c, r, 0, CI_U64(node), CI_NODE_EVENT_WAIT, CI_U64(e), 0)
#define CI_PRE_h_graph_event_wait_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_event_record_set(c, r, x, node, e) ci_on_graph_ab_update(c, r, CI_U64(x), CI_U64(node), CI_NODE_EVENT_RECORD, CI_U64(e), 0)
#define CI_PRE_h_graph_exec_event_record_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_event_wait_set(c, r, x, node, e) ci_on_graph_ab_update(c, r, CI_U64(x), CI_U64(node), CI_NODE_EVENT_WAIT, CI_U64(e), 0)
#define CI_PRE_h_graph_exec_event_wait_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_sem_signal_set(c, r, node, p) ci_on_graph_ab_update(c, r, 0, CI_U64(node), CI_NODE_SEM_SIGNAL, CI_SEM_FIRST(p), CI_SEM_COUNT(p))
#define CI_PRE_h_graph_sem_signal_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_sem_wait_set(c, r, node, p) ci_on_graph_ab_update(c, r, 0, CI_U64(node), CI_NODE_SEM_WAIT, CI_SEM_FIRST(p), CI_SEM_COUNT(p))
#define CI_PRE_h_graph_sem_wait_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_sem_signal_set(c, r, x, node, p) ci_on_graph_ab_update(c, r, CI_U64(x), CI_U64(node), CI_NODE_SEM_SIGNAL, CI_SEM_FIRST(p), CI_SEM_COUNT(p))
#define CI_PRE_h_graph_exec_sem_signal_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_sem_wait_set(c, r, x, node, p) ci_on_graph_ab_update(c, r, CI_U64(x), CI_U64(node), CI_NODE_SEM_WAIT, CI_SEM_FIRST(p), CI_SEM_COUNT(p))
#define CI_PRE_h_graph_exec_sem_wait_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_child_set(c, r, x, node, g) ci_on_graph_exec_child_update(c, r, CI_U64(x), CI_U64(node), CI_U64(g))
#define CI_PRE_h_graph_exec_child_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_node_set(c, r, node, p) ci_on_graph_params_update(c, r, 0, CI_U64(node), p)
#define CI_PRE_h_graph_node_set(c, ...) ((void)0)
#define CI_HOOK_h_graph_exec_node_set(c, r, x, node, p) ci_on_graph_params_update(c, r, CI_U64(x), CI_U64(node), p)
#define CI_PRE_h_graph_exec_node_set(c, ...) ((void)0)

/* ---- modules, libraries, functions, kernels ------------------------------------------------ */
void ci_on_module_load(struct ci_call *c, CUresult r, uint64_t module, uint32_t kind,
		       const char *file, const void *image);
void ci_on_module_unload(struct ci_call *c, CUresult r, uint64_t module);
void ci_on_get_function(struct ci_call *c, CUresult r, uint64_t func, uint32_t kind,
			uint64_t module, const char *name);
void ci_on_enum_functions(struct ci_call *c, CUresult r, const uint64_t *funcs, unsigned n,
			  uint32_t kind, uint64_t module);
void ci_on_kernel_get_function(struct ci_call *c, CUresult r, uint64_t func, uint64_t kernel);

#define CI_HOOK_h_module_load_file(c, r, pm, f) ci_on_module_load(c, r, CI_OUT(pm), CI_CODE_MODULE, f, NULL)
#define CI_PRE_h_module_load_file(c, ...) ((void)0)
#define CI_HOOK_h_module_load_data(c, r, pm, img) ci_on_module_load(c, r, CI_OUT(pm), CI_CODE_MODULE, NULL, img)
#define CI_PRE_h_module_load_data(c, ...) ((void)0)
#define CI_HOOK_h_module_load_data_ex(c, r, pm, img, n, o, v) ci_on_module_load(c, r, CI_OUT(pm), CI_CODE_MODULE, NULL, img)
#define CI_PRE_h_module_load_data_ex(c, ...) ((void)0)
#define CI_HOOK_h_module_unload(c, r, m) ci_on_module_unload(c, r, CI_U64(m))
#define CI_PRE_h_module_unload(c, ...) ((void)0)
#define CI_HOOK_h_module_get_function(c, r, pf, m, name) ci_on_get_function(c, r, CI_OUT(pf), CI_FUNC_FUNCTION, CI_U64(m), name)
#define CI_PRE_h_module_get_function(c, ...) ((void)0)
#define CI_HOOK_h_module_enum_functions(c, r, fs, n, m) ci_on_enum_functions(c, r, (const uint64_t *)(fs), n, CI_FUNC_FUNCTION, CI_U64(m))
#define CI_PRE_h_module_enum_functions(c, ...) ((void)0)
#define CI_HOOK_h_library_load_data(c, r, pl, code, a, b, n, d, e, m) ci_on_module_load(c, r, CI_OUT(pl), CI_CODE_LIBRARY, NULL, code)
#define CI_PRE_h_library_load_data(c, ...) ((void)0)
#define CI_HOOK_h_library_load_file(c, r, pl, f, a, b, n, d, e, m) ci_on_module_load(c, r, CI_OUT(pl), CI_CODE_LIBRARY, f, NULL)
#define CI_PRE_h_library_load_file(c, ...) ((void)0)
#define CI_HOOK_h_library_unload(c, r, l) ci_on_module_unload(c, r, CI_U64(l))
#define CI_PRE_h_library_unload(c, ...) ((void)0)
#define CI_HOOK_h_library_get_kernel(c, r, pk, l, name) ci_on_get_function(c, r, CI_OUT(pk), CI_FUNC_KERNEL, CI_U64(l), name)
#define CI_PRE_h_library_get_kernel(c, ...) ((void)0)
#define CI_HOOK_h_library_enum_kernels(c, r, ks, n, l) ci_on_enum_functions(c, r, (const uint64_t *)(ks), n, CI_FUNC_KERNEL, CI_U64(l))
#define CI_PRE_h_library_enum_kernels(c, ...) ((void)0)
#define CI_HOOK_h_kernel_get_function(c, r, pf, k) ci_on_kernel_get_function(c, r, CI_OUT(pf), CI_U64(k))
#define CI_PRE_h_kernel_get_function(c, ...) ((void)0)

/* ---- launches (launch.c) ------------------------------------------------------------------- */
struct ci_launch_args {
	uint64_t func;
	uint32_t grid[3], block[3], cluster[3];
	uint32_t shared_mem;
	uint16_t api;
	uint16_t flags;
	int16_t priority;
	CUstream stream;
	void **params;
	void **extra;
	uint64_t aux;
	uint64_t replay;    /* graph launches: the exec's replay number (launch entry `replay`) */
	uint32_t exec_slot; /* ... and its CI_SEC_GRAPH_EXECS slot (`exec`; CI_NONE unknown) */
};
void ci_on_launch(struct ci_call *c, CUresult r, struct ci_launch_args *a);
void ci_on_launch_ex(struct ci_call *c, CUresult r, const CUlaunchConfig *config, CUfunction f,
		     void **params, void **extra);
void ci_on_launch_cooperative_multi(struct ci_call *c, CUresult r,
				    const CUDA_LAUNCH_PARAMS *list, unsigned n);

#define CI_LAUNCH_ARGS(api_, f, gx, gy, gz, bx, by, bz, sh, st, kp, ex, aux_)                   \
	(&(struct ci_launch_args){ .func = CI_U64(f), .grid = { gx, gy, gz },                    \
				   .block = { bx, by, bz }, .shared_mem = sh, .api = api_,        \
				   .stream = st, .params = kp, .extra = ex, .aux = aux_ })
#define CI_HOOK_h_launch_kernel(c, r, f, gx, gy, gz, bx, by, bz, sh, st, kp, ex)                 \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_KERNEL, f, gx, gy, gz, bx, by, bz, sh, st, kp, ex, 0))
#define CI_PRE_h_launch_kernel(c, ...) ((void)0)
#define CI_HOOK_h_launch_kernel_ex(c, r, cfg, f, kp, ex) ci_on_launch_ex(c, r, cfg, f, kp, ex)
#define CI_PRE_h_launch_kernel_ex(c, ...) ((void)0)
#define CI_HOOK_h_launch_cooperative(c, r, f, gx, gy, gz, bx, by, bz, sh, st, kp)                \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_COOPERATIVE, f, gx, gy, gz, bx, by, bz, sh, st, kp, NULL, 0))
#define CI_PRE_h_launch_cooperative(c, ...) ((void)0)
#define CI_HOOK_h_launch_cooperative_multi(c, r, list, n, fl) ci_on_launch_cooperative_multi(c, r, list, n)
#define CI_PRE_h_launch_cooperative_multi(c, ...) ((void)0)
#define CI_HOOK_h_launch_host_func(c, r, st, fn, ud)                                             \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_HOST_FUNC, 0, 0, 0, 0, 0, 0, 0, 0, st, NULL, NULL, CI_U64(fn)))
#define CI_PRE_h_launch_host_func(c, ...) ((void)0)
#define CI_HOOK_h_stream_add_callback(c, r, st, fn, ud, fl)                                      \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_HOST_FUNC, 0, 0, 0, 0, 0, 0, 0, 0, st, NULL, NULL, CI_U64(fn)))
#define CI_PRE_h_stream_add_callback(c, ...) ((void)0)
/* The pre-3.0 launch API takes the block shape and parameters from earlier cuFuncSet* and
 * cuParamSet* calls, which are not recorded: only the function and grid are known. */
#define CI_HOOK_h_launch_legacy(c, r, f)                                                         \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_LEGACY, f, 1, 1, 1, 0, 0, 0, 0, NULL, NULL, NULL, 0))
#define CI_PRE_h_launch_legacy(c, ...) ((void)0)
#define CI_HOOK_h_launch_grid(c, r, f, w, h)                                                     \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_LEGACY, f, w, h, 1, 0, 0, 0, 0, NULL, NULL, NULL, 0))
#define CI_PRE_h_launch_grid(c, ...) ((void)0)
#define CI_HOOK_h_launch_grid_async(c, r, f, w, h, st)                                           \
	ci_on_launch(c, r, CI_LAUNCH_ARGS(CI_LAUNCH_LEGACY, f, w, h, 1, 0, 0, 0, 0, st, NULL, NULL, 0))
#define CI_PRE_h_launch_grid_async(c, ...) ((void)0)

/* ---- memory (memory.c) --------------------------------------------------------------------- */
struct ci_alloc_args {
	uint32_t kind;
	uint64_t address;
	uint64_t size;
	uint64_t aux;
	CUstream stream;
	bool has_stream;
};
void ci_on_alloc(struct ci_call *c, CUresult r, const struct ci_alloc_args *a);
/* Frees: _pre takes the allocation out of the live table, the hook finishes or undoes it. */
void ci_on_free_pre(struct ci_call *c, uint32_t match, uint64_t key);
void ci_on_free(struct ci_call *c, CUresult r, CUstream stream, bool has_stream);
void ci_on_unmap_pre(struct ci_call *c, uint64_t address, uint64_t size);
void ci_on_unmap(struct ci_call *c, CUresult r, uint64_t address, uint64_t size);

/* Which kinds a free call may retire (bit per enum ci_alloc_kind). */
#define CI_MATCH(k) (1u << (k))
#define CI_MATCH_DEVICE                                                                        \
	(CI_MATCH(CI_ALLOC_DEVICE) | CI_MATCH(CI_ALLOC_PITCH) | CI_MATCH(CI_ALLOC_MANAGED) |    \
	 CI_MATCH(CI_ALLOC_ASYNC) | CI_MATCH(CI_ALLOC_POOL_ASYNC))

#define CI_ALLOC_ARGS(kind_, addr_, size_, aux_, st_, has_)                                    \
	(&(struct ci_alloc_args){ .kind = kind_, .address = addr_, .size = size_, .aux = aux_,  \
				  .stream = st_, .has_stream = has_ })
#define CI_HOOK_h_mem_alloc(c, r, pd, n)                                                         \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_DEVICE, CI_OUT(pd), n, 0, NULL, false))
#define CI_PRE_h_mem_alloc(c, ...) ((void)0)
#define CI_HOOK_h_mem_alloc_pitch(c, r, pd, pp, w, h, e)                                         \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_PITCH, CI_OUT(pd), CI_OUT(pp) * (uint64_t)(h), CI_OUT(pp), NULL, false))
#define CI_PRE_h_mem_alloc_pitch(c, ...) ((void)0)
#define CI_HOOK_h_mem_alloc_managed(c, r, pd, n, fl)                                             \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_MANAGED, CI_OUT(pd), n, fl, NULL, false))
#define CI_PRE_h_mem_alloc_managed(c, ...) ((void)0)
#define CI_HOOK_h_mem_alloc_async(c, r, pd, n, st)                                               \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_ASYNC, CI_OUT(pd), n, 0, st, true))
#define CI_PRE_h_mem_alloc_async(c, ...) ((void)0)
#define CI_HOOK_h_mem_alloc_pool(c, r, pd, n, pool, st)                                          \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_POOL_ASYNC, CI_OUT(pd), n, CI_U64(pool), st, true))
#define CI_PRE_h_mem_alloc_pool(c, ...) ((void)0)
#define CI_HOOK_h_mem_alloc_host(c, r, pp, n)                                                    \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_HOST, CI_OUT(pp), n, 0, NULL, false))
#define CI_PRE_h_mem_alloc_host(c, ...) ((void)0)
#define CI_HOOK_h_mem_host_alloc(c, r, pp, n, fl)                                                \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_HOST, CI_OUT(pp), n, fl, NULL, false))
#define CI_PRE_h_mem_host_alloc(c, ...) ((void)0)
#define CI_HOOK_h_mem_host_register(c, r, p, n, fl)                                              \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_HOST_REGISTER, CI_U64(p), n, fl, NULL, false))
#define CI_PRE_h_mem_host_register(c, ...) ((void)0)
#define CI_HOOK_h_mem_create(c, r, ph, n, prop, fl)                                              \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_VMM_CREATE, 0, n, CI_OUT(ph), NULL, false))
#define CI_PRE_h_mem_create(c, ...) ((void)0)
#define CI_HOOK_h_mem_address_reserve(c, r, pp, n, al, addr, fl)                                 \
	ci_on_alloc(c, r, CI_ALLOC_ARGS(CI_ALLOC_VMM_RESERVE, CI_OUT(pp), n, 0, NULL, false))
#define CI_PRE_h_mem_address_reserve(c, ...) ((void)0)
#define CI_HOOK_h_mem_map(c, r, p, n, off, h, fl) ci_on_mem_map(c, r, CI_U64(p), n, CI_U64(h))
#define CI_PRE_h_mem_map(c, ...) ((void)0)

/* ---- memory shared between processes (peer.c) ----------------------------------------------- */
void ci_on_ipc_get(struct ci_call *c, CUresult r, const CUipcMemHandle *h, CUdeviceptr dptr);
void ci_on_ipc_open(struct ci_call *c, CUresult r, const CUdeviceptr *pdptr, CUipcMemHandle h);
void ci_on_ipc_close_pre(struct ci_call *c, CUdeviceptr dptr);
void ci_on_ipc_close(struct ci_call *c, CUresult r, CUdeviceptr dptr);
void ci_on_mem_export(struct ci_call *c, CUresult r, const void *shareable, uint64_t handle,
		      uint32_t type);
void ci_on_mem_import(struct ci_call *c, CUresult r, const CUmemGenericAllocationHandle *ph,
		      void *os_handle, uint32_t type);
/* cuMemMap: of a handle made here (VMM_MAP) or imported (VMM_MAP_PEER, and a peer entry). */
void ci_on_mem_map(struct ci_call *c, CUresult r, uint64_t address, uint64_t size, uint64_t handle);

#define CI_HOOK_h_ipc_get(c, r, ph, d) ci_on_ipc_get(c, r, ph, d)
#define CI_PRE_h_ipc_get(c, ...) ((void)0)
#define CI_HOOK_h_ipc_open(c, r, pd, h, fl) ci_on_ipc_open(c, r, pd, h)
#define CI_PRE_h_ipc_open(c, ...) ((void)0)
#define CI_HOOK_h_ipc_close(c, r, d) ci_on_ipc_close(c, r, d)
#define CI_PRE_h_ipc_close(c, d) ci_on_ipc_close_pre(c, d)
#define CI_HOOK_h_mem_export(c, r, sh, h, t, fl) ci_on_mem_export(c, r, sh, CI_U64(h), t)
#define CI_PRE_h_mem_export(c, ...) ((void)0)
#define CI_HOOK_h_mem_import(c, r, ph, os, t) ci_on_mem_import(c, r, ph, os, t)
#define CI_PRE_h_mem_import(c, ...) ((void)0)

#define CI_PRE_h_mem_free(c, p) ci_on_free_pre(c, CI_MATCH_DEVICE, CI_U64(p))
#define CI_HOOK_h_mem_free(c, r, p) ci_on_free(c, r, NULL, false)
#define CI_PRE_h_mem_free_async(c, p, st) ci_on_free_pre(c, CI_MATCH_DEVICE, CI_U64(p))
#define CI_HOOK_h_mem_free_async(c, r, p, st) ci_on_free(c, r, st, true)
#define CI_PRE_h_mem_free_host(c, p) ci_on_free_pre(c, CI_MATCH(CI_ALLOC_HOST), CI_U64(p))
#define CI_HOOK_h_mem_free_host(c, r, p) ci_on_free(c, r, NULL, false)
#define CI_PRE_h_mem_host_unregister(c, p) ci_on_free_pre(c, CI_MATCH(CI_ALLOC_HOST_REGISTER), CI_U64(p))
#define CI_HOOK_h_mem_host_unregister(c, r, p) ci_on_free(c, r, NULL, false)
#define CI_PRE_h_mem_release(c, h)                                                              \
	ci_on_free_pre(c, CI_MATCH(CI_ALLOC_VMM_CREATE) | CI_MATCH(CI_ALLOC_VMM_IMPORT), CI_U64(h))
#define CI_HOOK_h_mem_release(c, r, h) ci_on_free(c, r, NULL, false)
#define CI_PRE_h_mem_address_free(c, p, n) ci_on_free_pre(c, CI_MATCH(CI_ALLOC_VMM_RESERVE), CI_U64(p))
#define CI_HOOK_h_mem_address_free(c, r, p, n) ci_on_free(c, r, NULL, false)
#define CI_PRE_h_mem_unmap(c, p, n) ci_on_unmap_pre(c, CI_U64(p), n)
#define CI_HOOK_h_mem_unmap(c, r, p, n) ci_on_unmap(c, r, CI_U64(p), n)

/* ---- copies and sets (events.c) ------------------------------------------------------------ */
void ci_on_copy(struct ci_call *c, CUresult r, uint32_t kind, uint64_t dst, uint64_t src,
		uint64_t bytes, CUstream s, bool has_stream);

#define CI_HOOK_h_memcpy(c, r, d, s, n) ci_on_copy(c, r, CI_EV_MEMCPY, CI_U64(d), CI_U64(s), n, NULL, false)
#define CI_PRE_h_memcpy(c, ...) ((void)0)
#define CI_HOOK_h_memcpy_async(c, r, d, s, n, st) ci_on_copy(c, r, CI_EV_MEMCPY, CI_U64(d), CI_U64(s), n, st, true)
#define CI_PRE_h_memcpy_async(c, ...) ((void)0)
#define CI_HOOK_h_memcpy_peer(c, r, d, dc, s, sc, n) ci_on_copy(c, r, CI_EV_MEMCPY, CI_U64(d), CI_U64(s), n, NULL, false)
#define CI_PRE_h_memcpy_peer(c, ...) ((void)0)
#define CI_HOOK_h_memcpy_peer_async(c, r, d, dc, s, sc, n, st) ci_on_copy(c, r, CI_EV_MEMCPY, CI_U64(d), CI_U64(s), n, st, true)
#define CI_PRE_h_memcpy_peer_async(c, ...) ((void)0)
/* Sets record the byte count: elements times the element size of the value argument. */
#define CI_HOOK_h_memset(c, r, d, v, n) ci_on_copy(c, r, CI_EV_MEMSET, CI_U64(d), v, (uint64_t)(n) * sizeof(v), NULL, false)
#define CI_PRE_h_memset(c, ...) ((void)0)
#define CI_HOOK_h_memset_async(c, r, d, v, n, st) ci_on_copy(c, r, CI_EV_MEMSET, CI_U64(d), v, (uint64_t)(n) * sizeof(v), st, true)
#define CI_PRE_h_memset_async(c, ...) ((void)0)

#endif
