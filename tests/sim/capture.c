/* Stream capture and graph replay (capture.t).  Captured launches, breadcrumb writes and host
 * functions do not run; the graph replays them in order each time it is launched; global-mode
 * capture refuses unsafe calls on every thread that has not switched to relaxed mode; a
 * capture is invalidated by synchronizing the capturing stream or by implicit legacy-stream
 * dependencies; events join other streams to a capture.  Run with CUDASIM_FAULT=step@7: launch 1
 * is the uncaptured one on `other`, replays 1 and 2 of the two-launch graph are launches 2-5, so
 * the 3rd replay faults at its 2nd node.  Captured launches and refused ones do not count. */
#include "simtest.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int host_calls;
static void host_fn(void *arg)
{
	atomic_fetch_add(&host_calls, 1);
}

static CUcontext g_ctx;
static CUresult other_thread_alloc, other_thread_relaxed_alloc;
static void *other_thread(void *arg)
{
	CUdeviceptr p;
	MUST(cuCtxSetCurrent(g_ctx));
	other_thread_alloc = cuMemAlloc(&p, 64);
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	MUST(cuThreadExchangeStreamCaptureMode(&mode));
	other_thread_relaxed_alloc = cuMemAlloc(&p, 64);
	if (other_thread_relaxed_alloc == CUDA_SUCCESS)
		MUST(cuMemFree(p));
	MUST(cuThreadExchangeStreamCaptureMode(&mode));
	return NULL;
}

int main(void)
{
	CUmodule mod;
	CUfunction step;
	g_ctx = simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s, other;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	MUST(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
	uint64_t *crumb = aligned_alloc(64, 64);
	memset(crumb, 0, 64);
	CUdeviceptr dc;
	MUST(cuMemHostRegister(crumb, 64, 0));
	MUST(cuMemHostGetDevicePointer(&dc, crumb, 0));

	CUstreamCaptureStatus st = -1;
	IS_CU(cuStreamIsCapturing(s, &st), CUDA_SUCCESS);
	is_int(st, CU_STREAM_CAPTURE_STATUS_NONE, "not capturing before BeginCapture");
	IS_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	IS_CU(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
	IS_CU(cuStreamIsCapturing(s, &st), CUDA_SUCCESS);
	is_int(st, CU_STREAM_CAPTURE_STATUS_ACTIVE, "cuStreamIsCapturing reports the capture");
	cuuint64_t id = 0;
	CUgraph g_info = NULL;
	size_t ndeps = 9;
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, NULL, NULL, &ndeps), CUDA_SUCCESS);
	ok(id != 0 && g_info != NULL && ndeps == 0, "cuStreamGetCaptureInfo_v3 gives id and graph");

	IS_CU(simtest_launch(step, s, 0), CUDA_SUCCESS);
	const CUgraphNode *deps = NULL;
	CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	ok(ndeps == 1 && deps && cuGraphNodeGetType(deps[0], &type) == CUDA_SUCCESS &&
		   type == CU_GRAPH_NODE_TYPE_KERNEL,
	   "after a launch the capture depends on the kernel node it became");
	CUgraphNode first_node = ndeps == 1 ? deps[0] : NULL;
	/* cuStreamUpdateCaptureDependencies (_v2 through cuda.h): SET none, then the kernel node again */
	IS_CU(cuStreamUpdateCaptureDependencies(s, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	is_int((int)ndeps, 0, "cuStreamUpdateCaptureDependencies SET with no nodes empties the dependency set");
	IS_CU(cuStreamUpdateCaptureDependencies(s, &first_node, NULL, 1, 7), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuStreamUpdateCaptureDependencies(s, &first_node, NULL, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	ok(ndeps == 1 && deps && deps[0] == first_node, "... and ADD puts the kernel node back");
	IS_CU(cuStreamWriteValue64(s, dc, 1, 0), CUDA_SUCCESS);
	IS_CU(cuLaunchHostFunc(s, host_fn, NULL), CUDA_SUCCESS);
	IS_CU(simtest_launch(step, s, 0), CUDA_SUCCESS);
	IS_CU(cuStreamWriteValue64(s, dc, 2, 0), CUDA_SUCCESS);

	/* unsafe calls during a global capture */
	CUdeviceptr p;
	IS_CU(cuMemAlloc(&p, 64), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	pthread_t t;
	pthread_create(&t, NULL, other_thread, NULL);
	pthread_join(t, NULL);
	is_int(other_thread_alloc, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "another thread's cuMemAlloc is refused (GLOBAL mode)");
	is_int(other_thread_relaxed_alloc, CUDA_SUCCESS, "after cuThreadExchangeStreamCaptureMode(RELAXED) it works");
	CUstreamCaptureMode mode = 7;
	IS_CU(cuThreadExchangeStreamCaptureMode(&mode), CUDA_ERROR_INVALID_VALUE);
	IS_CU(simtest_launch(step, other, 0), CUDA_SUCCESS); /* other streams are not captured */
	IS_CU(cuStreamSynchronize(other), CUDA_SUCCESS);

	/* fork/join through events */
	CUevent fork, join;
	MUST(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
	MUST(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	CUgraphNode s_last = ndeps == 1 ? deps[0] : NULL;
	IS_CU(cuEventRecord(fork, s), CUDA_SUCCESS);
	IS_CU(cuStreamWaitEvent(other, fork, 0), CUDA_SUCCESS);
	IS_CU(cuStreamIsCapturing(other, &st), CUDA_SUCCESS);
	is_int(st, CU_STREAM_CAPTURE_STATUS_ACTIVE, "waiting on a captured event joins the capture");
	IS_CU(cuStreamGetCaptureInfo(other, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	ok(s_last && ndeps == 1 && deps[0] == s_last, "the joined stream depends on the node the event was recorded after");
	IS_CU(cuLaunchHostFunc(other, host_fn, NULL), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(other, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	CUgraphNode other_last = ndeps == 1 ? deps[0] : NULL;
	IS_CU(cuEventRecord(join, other), CUDA_SUCCESS);
	IS_CU(cuStreamWaitEvent(s, join, 0), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	ok(other_last && ndeps == 2 && deps[0] == s_last && deps[1] == other_last,
	   "after the join the capture depends on both streams' last nodes");
	IS_CU(cuStreamUpdateCaptureDependencies(s, &other_last, NULL, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	is_int((int)ndeps, 2, "ADD of a node the set has leaves it as it was");
	IS_CU(cuStreamUpdateCaptureDependencies(s, &other_last, NULL, 1, CU_STREAM_SET_CAPTURE_DEPENDENCIES), CUDA_SUCCESS);
	IS_CU(cuStreamGetCaptureInfo(s, &st, &id, &g_info, &deps, NULL, &ndeps), CUDA_SUCCESS);
	ok(ndeps == 1 && deps[0] == other_last, "SET replaces the set");
	IS_CU(cuStreamEndCapture(other, &g_info), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);

	is_int(crumb[0], 0, "nothing captured has run");
	is_int(atomic_load(&host_calls), 0, "no captured host function has run");
	CUgraph graph = NULL;
	IS_CU(cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
	ok(graph != NULL, "EndCapture gives a graph");
	CUgraphNode nodes[16];
	size_t nnodes = 16;
	IS_CU(cuGraphGetNodes(graph, nodes, &nnodes), CUDA_SUCCESS);
	ok(nnodes == 6 && nodes[0] == first_node, "the graph's first node is the one the capture named");
	IS_CU(cuStreamIsCapturing(other, &st), CUDA_SUCCESS);
	is_int(st, CU_STREAM_CAPTURE_STATUS_NONE, "ending the capture ends it on joined streams");
	IS_CU(cuMemAlloc(&p, 64), CUDA_SUCCESS);
	MUST(cuMemFree(p));

	CUgraphExec exec;
	IS_CU(cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
	IS_CU(cuGraphUpload(exec, s), CUDA_SUCCESS);
	IS_CU(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_int(crumb[0], 2, "replay wrote the breadcrumbs in order");
	is_int(atomic_load(&host_calls), 2, "replay ran both host functions");
	crumb[0] = 0;
	IS_CU(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	ok(crumb[0] == 2 && atomic_load(&host_calls) == 4, "a second launch replays it again");

	/* invalidation */
	CUstream c;
	MUST(cuStreamCreate(&c, 0));
	IS_CU(cuStreamBeginCapture(c, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(c), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	IS_CU(cuStreamIsCapturing(c, &st), CUDA_SUCCESS);
	is_int(st, CU_STREAM_CAPTURE_STATUS_INVALIDATED, "synchronizing a capturing stream invalidates it");
	CUgraph bad = (CUgraph)1;
	IS_CU(cuStreamEndCapture(c, &bad), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ok(bad == NULL, "no graph from an invalidated capture");
	IS_CU(cuStreamBeginCapture(c, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
	IS_CU(simtest_launch(step, NULL, 0), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT); /* legacy stream */
	IS_CU(cuStreamEndCapture(c, &bad), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	IS_CU(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	IS_CU(cuStreamEndCapture(c, &bad), CUDA_ERROR_ILLEGAL_STATE);
	IS_CU(cuStreamUpdateCaptureDependencies(c, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES), CUDA_ERROR_ILLEGAL_STATE);

	/* replays count as launches: step@7 is the second node of the third replay */
	crumb[0] = 0;
	IS_CU(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
	is_int(crumb[0], 1, "the third replay faulted at its second launch");
	IS_CU(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(graph), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(graph), CUDA_ERROR_INVALID_HANDLE);
	return simtest_done();
}
