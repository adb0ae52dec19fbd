/* Event and external-semaphore nodes (graphs.t): cuGraphAddEventRecordNode and
 * cuGraphAddEventWaitNode, their Get/Set pairs and the cuGraphExec... setters, which "return
 * CUDA_ERROR_INVALID_VALUE" for a node of another type; a replay records the event where its node
 * stands (cuEventElapsedTime tells recorded events from the others), and the exec's setter
 * changes the event only that exec records.  External-semaphore nodes keep their own copy of the
 * handles and parameters ("owned by the node"); the simulator has no semaphores to signal, so
 * the handles here are opaque values and a replay passes over them. */
#include "simtest.h"

static int host_runs;
static void host_fn(void *arg)
{
	(void)arg;
	host_runs++;
}

int main(void)
{
	CUmodule mod;
	simtest_setup(&mod);
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUevent e1, e2, e3, ew;
	MUST(cuEventCreate(&e1, 0));
	MUST(cuEventCreate(&e2, 0));
	MUST(cuEventCreate(&e3, 0));
	MUST(cuEventCreate(&ew, 0));

	CUgraph g;
	MUST(cuGraphCreate(&g, 0));
	CUgraphNode rec1, host, rec2, wait, sig;
	CUDA_HOST_NODE_PARAMS hp = {host_fn, NULL};
	IS_CU(cuGraphAddEventRecordNode(&rec1, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddEventRecordNode(&rec1, g, NULL, 0, e1), CUDA_SUCCESS);
	IS_CU(cuGraphAddHostNode(&host, g, &rec1, 1, &hp), CUDA_SUCCESS);
	IS_CU(cuGraphAddEventRecordNode(&rec2, g, &host, 1, e1), CUDA_SUCCESS);
	MUST(cuEventRecord(ew, s)); /* the wait node's event, complete */
	IS_CU(cuGraphAddEventWaitNode(&wait, g, &rec2, 1, ew), CUDA_SUCCESS);

	CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
	IS_CU(cuGraphNodeGetType(rec1, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_EVENT_RECORD, "an event record node's type");
	IS_CU(cuGraphNodeGetType(wait, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_WAIT_EVENT, "an event wait node's type");
	CUevent got = NULL;
	IS_CU(cuGraphEventRecordNodeGetEvent(rec2, &got), CUDA_SUCCESS);
	ok(got == e1, "cuGraphEventRecordNodeGetEvent gives the node's event");
	IS_CU(cuGraphEventRecordNodeSetEvent(rec2, e2), CUDA_SUCCESS);
	IS_CU(cuGraphEventRecordNodeGetEvent(rec2, &got), CUDA_SUCCESS);
	ok(got == e2, "cuGraphEventRecordNodeSetEvent changed it");
	IS_CU(cuGraphEventWaitNodeGetEvent(wait, &got), CUDA_SUCCESS);
	ok(got == ew, "cuGraphEventWaitNodeGetEvent gives the wait node's event");
	/* a node of another type */
	IS_CU(cuGraphEventWaitNodeGetEvent(rec2, &got), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphEventWaitNodeSetEvent(rec2, e3), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphEventRecordNodeSetEvent(wait, e3), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphEventRecordNodeSetEvent(host, e3), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphEventRecordNodeSetEvent(rec2, NULL), CUDA_ERROR_INVALID_VALUE);

	/* external semaphores: opaque handles, the parameters copied into the node */
	CUexternalSemaphore sems[2] = {(CUexternalSemaphore)(uintptr_t)0x5e3a, (CUexternalSemaphore)(uintptr_t)0x5e3b};
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp[2] = {{.params.fence.value = 7}, {.params.fence.value = 8}};
	CUDA_EXT_SEM_SIGNAL_NODE_PARAMS snp = {sems, sp, 2};
	IS_CU(cuGraphAddExternalSemaphoresSignalNode(&sig, g, &wait, 1, &snp), CUDA_SUCCESS);
	IS_CU(cuGraphNodeGetType(sig, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL, "an external semaphore signal node's type");
	sems[0] = NULL; /* the node has its own copy */
	CUDA_EXT_SEM_SIGNAL_NODE_PARAMS sout = {0};
	IS_CU(cuGraphExternalSemaphoresSignalNodeGetParams(sig, &sout), CUDA_SUCCESS);
	ok(sout.numExtSems == 2 && sout.extSemArray != sems && sout.extSemArray[0] == (CUexternalSemaphore)(uintptr_t)0x5e3a &&
		   sout.paramsArray[1].params.fence.value == 8,
	   "the signal node's semaphores and parameters, in arrays of its own");
	CUDA_EXT_SEM_WAIT_NODE_PARAMS wout;
	IS_CU(cuGraphExternalSemaphoresWaitNodeGetParams(sig, &wout), CUDA_ERROR_INVALID_VALUE);
	sems[0] = (CUexternalSemaphore)(uintptr_t)0x5e3c;
	snp.numExtSems = 1;
	IS_CU(cuGraphExternalSemaphoresSignalNodeSetParams(sig, &snp), CUDA_SUCCESS);
	IS_CU(cuGraphExternalSemaphoresSignalNodeGetParams(sig, &sout), CUDA_SUCCESS);
	ok(sout.numExtSems == 1 && sout.extSemArray[0] == (CUexternalSemaphore)(uintptr_t)0x5e3c,
	   "cuGraphExternalSemaphoresSignalNodeSetParams replaced them");
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp = {0};
	CUDA_EXT_SEM_WAIT_NODE_PARAMS wnp = {sems, &wp, 1};
	IS_CU(cuGraphExternalSemaphoresWaitNodeSetParams(sig, &wnp), CUDA_ERROR_INVALID_VALUE);
	snp.numExtSems = 0;
	IS_CU(cuGraphExternalSemaphoresSignalNodeSetParams(sig, &snp), CUDA_ERROR_INVALID_VALUE);
	snp.numExtSems = 1;

	CUgraphExec x;
	IS_CU(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
	/* the exec's second record node records e3 instead of e2; the graph keeps e2 */
	IS_CU(cuGraphExecEventRecordNodeSetEvent(x, rec2, e3), CUDA_SUCCESS);
	IS_CU(cuGraphExecEventWaitNodeSetEvent(x, rec2, e3), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecEventRecordNodeSetEvent(x, wait, e3), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecEventWaitNodeSetEvent(x, wait, ew), CUDA_SUCCESS);
	IS_CU(cuGraphExecExternalSemaphoresSignalNodeSetParams(x, sig, &snp), CUDA_SUCCESS);
	IS_CU(cuGraphExecExternalSemaphoresWaitNodeSetParams(x, sig, &wnp), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphEventRecordNodeGetEvent(rec2, &got), CUDA_SUCCESS);
	ok(got == e2, "the exec's setter leaves the graph's node alone");
	IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_int(host_runs, 1, "the replay ran the host node");
	float ms = -1;
	IS_CU(cuEventElapsedTime(&ms, e1, e3), CUDA_SUCCESS);
	ok(ms >= 0, "the replay recorded e1 before e3 (%.3f ms apart)", (double)ms);
	IS_CU(cuEventElapsedTime(&ms, e1, e2), CUDA_ERROR_INVALID_HANDLE);

	/* cuGraphAddNode builds the same kinds from the parameter union */
	CUgraphNodeParams np = {.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD};
	np.eventRecord.event = e2;
	CUgraphNode un;
	IS_CU(cuGraphAddNode(&un, g, NULL, NULL, 0, &np), CUDA_SUCCESS);
	IS_CU(cuGraphEventRecordNodeGetEvent(un, &got), CUDA_SUCCESS);
	ok(got == e2, "cuGraphAddNode's event record node");
	np = (CUgraphNodeParams){.type = CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT};
	np.extSemWait.extSemArray = sems, np.extSemWait.paramsArray = &wp, np.extSemWait.numExtSems = 1;
	IS_CU(cuGraphAddNode(&un, g, NULL, NULL, 0, &np), CUDA_SUCCESS);
	IS_CU(cuGraphExternalSemaphoresWaitNodeGetParams(un, &wout), CUDA_SUCCESS);
	ok(wout.numExtSems == 1 && wout.extSemArray[0] == sems[0], "cuGraphAddNode's semaphore wait node");

	IS_CU(cuGraphExecDestroy(x), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(g), CUDA_SUCCESS);
	return simtest_done();
}
