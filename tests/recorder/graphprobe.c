/* SPDX-License-Identifier: MIT */
/*
 * graphprobe: the capture modes and construction paths graphengine does not use, for
 * graphs.t.  In thread-local mode it captures a cuLaunchKernelEx (grid 2x3x1), a host function,
 * a memset and a device-to-device copy (cuStreamUpdateCaptureDependencies SET none before the
 * memset); in relaxed mode a capture that cuStreamSynchronize
 * invalidates; it builds a graph with cuGraphAddNode (a kernel node and a memset node from
 * the parameter union), changes its memset node in the exec, then in the graph
 * (cuGraphExecMemsetNodeSetParams, cuGraphMemsetNodeSetParams); and it captures a launch into a graph it built (cuStreamBeginCaptureToGraph
 * after the graph's empty node); it destroys the second of two memset nodes of a graph it
 * built (cuGraphDestroyNode) and prints what is left, after making a third node follow both
 * (cuGraphAddDependencies) and then not the first (cuGraphRemoveDependencies); it changes an event
 * record node's event and an external-semaphore signal node's semaphores in the graph, then in
 * an exec; it sets an exec's child-graph node to another graph (cuGraphExecChildGraphNodeSetParams)
 * and adds a child-graph node with cuGraphAddNode; it adds a conditional node (IF with an else
 * body) and a node to each body.  Each graph that was made is launched once
 * (the one whose exec's child node was set, twice).  Prints what the test
 * compares with the record: "graphprobe: hostfn 0x..", "graphprobe: p 0x.. q 0x..",
 * "graphprobe: invalidated RESULT".
 */
#define PROBE_NAME "graphprobe"
#include "probe.h"

#include <string.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry probe_k(\n\t.param .u64 a,\n\t.param .u32 b\n)\n{\n\tret;\n}\n";

static void host_fn(void *arg)
{
	(void)arg;
}

int main(void)
{
	CUmodule mod;
	CUfunction k;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&k, mod, "probe_k"));
	CUstream a, b;
	CHECK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	CUdeviceptr p, q;
	CHECK(cuMemAlloc(&p, 4096));
	CHECK(cuMemAlloc(&q, 4096));
	printf("graphprobe: hostfn 0x%llx\n", (unsigned long long)(uintptr_t)host_fn);
	printf("graphprobe: p 0x%llx q 0x%llx\n", (unsigned long long)p, (unsigned long long)q);
	unsigned n = 7;
	void *params[] = { &p, &n };

	/* thread-local capture: every launch API kind and the copy engine */
	CUgraph g1, g2, g3;
	CUgraphExec x;
	CHECK(cuStreamBeginCapture(a, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
	CUlaunchConfig cfg = { .gridDimX = 2, .gridDimY = 3, .gridDimZ = 1, .blockDimX = 32,
			       .blockDimY = 1, .blockDimZ = 1, .hStream = a };
	CHECK(cuLaunchKernelEx(&cfg, k, params, NULL));
	CHECK(cuLaunchHostFunc(a, host_fn, NULL));
	/* the memset depends on nothing captured before it, the copy on the memset */
	CHECK(cuStreamUpdateCaptureDependencies(a, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
	printf("graphprobe: capture dependencies set to none before the memset\n");
	CHECK(cuMemsetD8Async(p, 0x5a, 64, a));
	CHECK(cuMemcpyDtoDAsync(q, p, 64, a));
	CHECK(cuStreamEndCapture(a, &g1));
	CHECK(cuGraphInstantiateWithFlags(&x, g1, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
	CHECK(cuGraphLaunch(x, a));
	CHECK(cuStreamSynchronize(a));

	/* relaxed capture invalidated by a synchronization of the capturing stream */
	CHECK(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_RELAXED));
	CHECK(cuLaunchKernel(k, 1, 1, 1, 32, 1, 1, 0, b, params, NULL));
	CUresult r = cuStreamSynchronize(b);
	CUresult e = cuStreamEndCapture(b, &g2);
	const char *name = "?";
	cuGetErrorName(e, &name);
	printf("graphprobe: invalidated %s (the synchronization: %d)\n", name, (int)r);

	/* cuGraphAddNode with the parameter union */
	CUgraphNode kn, mn;
	CHECK(cuGraphCreate(&g3, 0));
	CUgraphNodeParams np;
	memset(&np, 0, sizeof np);
	np.type = CU_GRAPH_NODE_TYPE_KERNEL;
	np.kernel.func = k;
	np.kernel.gridDimX = 5, np.kernel.gridDimY = 1, np.kernel.gridDimZ = 1;
	np.kernel.blockDimX = 64, np.kernel.blockDimY = 1, np.kernel.blockDimZ = 1;
	np.kernel.kernelParams = params;
	CHECK(cuGraphAddNode(&kn, g3, NULL, NULL, 0, &np));
	memset(&np, 0, sizeof np);
	np.type = CU_GRAPH_NODE_TYPE_MEMSET;
	np.memset.dst = q;
	np.memset.value = 0x11;
	np.memset.elementSize = 4;
	np.memset.width = 16;
	np.memset.height = 1;
	CHECK(cuGraphAddNode(&mn, g3, &kn, NULL, 1, &np));
	CUgraphExec x3;
	CHECK(cuGraphInstantiateWithFlags(&x3, g3, 0));
	CHECK(cuGraphLaunch(x3, a));
	CHECK(cuStreamSynchronize(a));
	/* the memset node changed in the exec (0x22), then in the graph (0x33) */
	CUDA_MEMSET_NODE_PARAMS ms = { .dst = q, .value = 0x22, .elementSize = 4, .width = 8, .height = 1 };
	CHECK(cuGraphExecMemsetNodeSetParams(x3, mn, &ms, NULL));
	ms.value = 0x33;
	CHECK(cuGraphMemsetNodeSetParams(mn, &ms));
	CHECK(cuGraphLaunch(x3, a));
	CHECK(cuStreamSynchronize(a));
	unsigned got = 0;
	CHECK(cuMemcpyDtoH(&got, q, sizeof got));
	printf("graphprobe: after the exec's memset update q holds 0x%x\n", got);

	/* a capture into a graph built before, after its node */
	CUgraph g4, g4_out = NULL;
	CUgraphNode first;
	CUgraphExec x4;
	CHECK(cuGraphCreate(&g4, 0));
	CHECK(cuGraphAddEmptyNode(&first, g4, NULL, 0));
	CHECK(cuStreamBeginCaptureToGraph(a, g4, &first, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CHECK(cuLaunchKernel(k, 4, 1, 1, 32, 1, 1, 0, a, params, NULL));
	CHECK(cuStreamEndCapture(a, &g4_out));
	printf("graphprobe: captured into the same graph: %s\n", g4_out == g4 ? "yes" : "no");
	CHECK(cuGraphInstantiateWithFlags(&x4, g4, 0));
	CHECK(cuGraphLaunch(x4, a));
	CHECK(cuStreamSynchronize(a));
	/* cuGraphDestroyNode: two memsets of q (0x44, then 0x55), the second destroyed */
	CUgraph g5;
	CUgraphNode m1, m2;
	CUgraphExec x5;
	CHECK(cuGraphCreate(&g5, 0));
	CUDA_MEMSET_NODE_PARAMS m = { .dst = q, .value = 0x44, .elementSize = 4, .width = 4, .height = 1 };
	CHECK(cuGraphAddMemsetNode(&m1, g5, NULL, 0, &m, NULL));
	m.value = 0x55;
	CHECK(cuGraphAddMemsetNode(&m2, g5, &m1, 1, &m, NULL));
	/* a third (0x66 at q + 64) made to follow both, then not the first, then the second goes */
	CUgraphNode m3, froms[2] = {m1, m2}, tos[2];
	m.dst = q + 64, m.value = 0x66;
	CHECK(cuGraphAddMemsetNode(&m3, g5, NULL, 0, &m, NULL));
	tos[0] = tos[1] = m3;
	CHECK(cuGraphAddDependencies(g5, froms, tos, NULL, 2));
	CHECK(cuGraphRemoveDependencies(g5, &m1, &m3, NULL, 1));
	CHECK(cuGraphDestroyNode(m2));
	size_t left = 0;
	CHECK(cuGraphGetNodes(g5, NULL, &left));
	CHECK(cuGraphInstantiateWithFlags(&x5, g5, 0));
	CHECK(cuGraphLaunch(x5, a));
	CHECK(cuStreamSynchronize(a));
	CHECK(cuMemcpyDtoH(&got, q, sizeof got));
	printf("graphprobe: after cuGraphDestroyNode the graph has %zu node(s) and q holds 0x%x\n", left, got);
	/* A child-graph node: g6 (a kernel node) embedded in g7 after an empty node. */
	CUgraph g6, g7, emb = NULL;
	CUgraphNode k6, e7, c7;
	CUgraphExec x7;
	CHECK(cuGraphCreate(&g6, 0));
	CUDA_KERNEL_NODE_PARAMS kp6 = { .func = k, .gridDimX = 6, .gridDimY = 1, .gridDimZ = 1,
					.blockDimX = 32, .blockDimY = 1, .blockDimZ = 1, .kernelParams = params };
	CHECK(cuGraphAddKernelNode(&k6, g6, NULL, 0, &kp6));
	CHECK(cuGraphCreate(&g7, 0));
	CHECK(cuGraphAddEmptyNode(&e7, g7, NULL, 0));
	CHECK(cuGraphAddChildGraphNode(&c7, g7, &e7, 1, g6));
	CHECK(cuGraphChildGraphNodeGetGraph(c7, &emb));
	printf("graphprobe: child graph 0x%llx embedded as 0x%llx\n", (unsigned long long)(uintptr_t)g6,
	       (unsigned long long)(uintptr_t)emb);
	CHECK(cuGraphInstantiateWithFlags(&x7, g7, 0));
	CHECK(cuGraphLaunch(x7, a));
	CHECK(cuStreamSynchronize(a));
	/* Event and external-semaphore nodes changed in the graph, then in an exec: g8 records
	 * ev1, then signals two semaphores (opaque handles: the simulator has none to import). */
	CUgraph g8;
	CUgraphNode r8, s8;
	CUgraphExec x8;
	CUevent ev1, ev2, ev3;
	CHECK(cuEventCreate(&ev1, 0));
	CHECK(cuEventCreate(&ev2, 0));
	CHECK(cuEventCreate(&ev3, 0));
	CHECK(cuGraphCreate(&g8, 0));
	CHECK(cuGraphAddEventRecordNode(&r8, g8, NULL, 0, ev1));
	CUexternalSemaphore sems[2] = { (CUexternalSemaphore)(uintptr_t)0x5e30, (CUexternalSemaphore)(uintptr_t)0x5e31 };
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sp[2];
	memset(sp, 0, sizeof sp);
	CUDA_EXT_SEM_SIGNAL_NODE_PARAMS snp = { sems, sp, 2 };
	CHECK(cuGraphAddExternalSemaphoresSignalNode(&s8, g8, &r8, 1, &snp));
	CHECK(cuGraphEventRecordNodeSetEvent(r8, ev2));
	sems[0] = (CUexternalSemaphore)(uintptr_t)0x5e32;
	snp.numExtSems = 1;
	CHECK(cuGraphExternalSemaphoresSignalNodeSetParams(s8, &snp));
	CHECK(cuGraphInstantiateWithFlags(&x8, g8, 0));
	CHECK(cuGraphExecEventRecordNodeSetEvent(x8, r8, ev3));
	sems[0] = (CUexternalSemaphore)(uintptr_t)0x5e33;
	CHECK(cuGraphExecExternalSemaphoresSignalNodeSetParams(x8, s8, &snp));
	CHECK(cuGraphLaunch(x8, a));
	CHECK(cuStreamSynchronize(a));
	printf("graphprobe: events 0x%llx 0x%llx 0x%llx\n", (unsigned long long)(uintptr_t)ev1,
	       (unsigned long long)(uintptr_t)ev2, (unsigned long long)(uintptr_t)ev3);
	CHECK(cuGraphExecDestroy(x8));
	CHECK(cuGraphDestroy(g8));
	/* x7's child node set to run g9's kernel (grid 9), launched again; then a child graph
	 * through cuGraphAddNode: g6 embedded in g10. */
	CUgraph g9, g10, emb10 = NULL;
	CUgraphNode k9, c10;
	CHECK(cuGraphCreate(&g9, 0));
	kp6.gridDimX = 9;
	CHECK(cuGraphAddKernelNode(&k9, g9, NULL, 0, &kp6));
	CHECK(cuGraphExecChildGraphNodeSetParams(x7, c7, g9));
	CHECK(cuGraphLaunch(x7, a));
	CHECK(cuStreamSynchronize(a));
	printf("graphprobe: exec child node set to 0x%llx\n", (unsigned long long)(uintptr_t)g9);
	CHECK(cuGraphCreate(&g10, 0));
	memset(&np, 0, sizeof np);
	np.type = CU_GRAPH_NODE_TYPE_GRAPH;
	np.graph.graph = g6;
	CHECK(cuGraphAddNode(&c10, g10, NULL, NULL, 0, &np));
	CHECK(cuGraphChildGraphNodeGetGraph(c10, &emb10));
	printf("graphprobe: cuGraphAddNode embedded 0x%llx\n", (unsigned long long)(uintptr_t)emb10);
	/* A conditional node (IF with an else body, the condition 1 by default) in g11, a kernel
	 * (grid 11) added to its then body, a host node to its else body. */
	CUgraph g11, bodies[2] = { NULL, NULL };
	CUgraphNode c11, k11, h11;
	CUgraphExec x11;
	CUgraphConditionalHandle cond;
	CHECK(cuGraphCreate(&g11, 0));
	CHECK(cuGraphConditionalHandleCreate(&cond, g11, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
	memset(&np, 0, sizeof np);
	np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
	np.conditional.handle = cond;
	np.conditional.type = CU_GRAPH_COND_TYPE_IF;
	np.conditional.size = 2;
	np.conditional.phGraph_out = bodies;
	CHECK(cuGraphAddNode(&c11, g11, NULL, NULL, 0, &np));
	kp6.gridDimX = 11;
	CHECK(cuGraphAddKernelNode(&k11, bodies[0], NULL, 0, &kp6));
	CUDA_HOST_NODE_PARAMS hp11 = { host_fn, NULL };
	CHECK(cuGraphAddHostNode(&h11, bodies[1], NULL, 0, &hp11));
	CHECK(cuGraphInstantiateWithFlags(&x11, g11, 0));
	CHECK(cuGraphLaunch(x11, a));
	CHECK(cuStreamSynchronize(a));
	printf("graphprobe: conditional bodies 0x%llx 0x%llx\n", (unsigned long long)(uintptr_t)bodies[0],
	       (unsigned long long)(uintptr_t)bodies[1]);
	CHECK(cuGraphExecDestroy(x11));
	/* An exec replayed (now the thread's last exec), destroyed, and a new one from the same
	 * graph replayed: its launch must name the new exec (the handle may be the old one's). */
	CUgraphExec xa, xb;
	CHECK(cuGraphInstantiateWithFlags(&xa, g11, 0));
	CHECK(cuGraphLaunch(xa, a));
	CHECK(cuStreamSynchronize(a));
	CHECK(cuGraphExecDestroy(xa));
	CHECK(cuGraphInstantiateWithFlags(&xb, g11, 0));
	CHECK(cuGraphLaunch(xb, a));
	CHECK(cuStreamSynchronize(a));
	printf("graphprobe: execs 0x%llx then 0x%llx\n", (unsigned long long)(uintptr_t)xa,
	       (unsigned long long)(uintptr_t)xb);
	CHECK(cuGraphExecDestroy(xb));
	CHECK(cuGraphDestroy(g11));
	CHECK(cuGraphDestroy(g10));
	CHECK(cuGraphDestroy(g9));
	CHECK(cuGraphExecDestroy(x7));
	CHECK(cuGraphDestroy(g7));
	CHECK(cuGraphDestroy(g6));
	CHECK(cuGraphExecDestroy(x5));
	CHECK(cuGraphDestroy(g5));
	CHECK(cuGraphExecDestroy(x4));
	CHECK(cuGraphExecDestroy(x3));
	CHECK(cuGraphExecDestroy(x));
	CHECK(cuGraphDestroy(g3));
	CHECK(cuGraphDestroy(g1));
	return 0;
}
