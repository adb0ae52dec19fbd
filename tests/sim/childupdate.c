/* cuGraphExecChildGraphNodeSetParams and child graphs through cuGraphAddNode (graphs.t).  An
 * exec's child-graph node runs the nodes of the graph given, "as though the nodes contained in
 * hNode's graph had the parameters contained in childGraph's nodes", for later launches only;
 * "the topology of childGraph, as well as the node insertion order, must match" (else
 * CUDA_ERROR_INVALID_VALUE), and "the update is recursive".  Host nodes write letters, so
 * each replay's order shows which nodes ran. */
#include "simtest.h"

#include <string.h>

static char seen[64];
static void put(void *arg)
{
	size_t n = strlen(seen);
	if (n + 1 < sizeof seen)
		seen[n] = (char)(uintptr_t)arg;
}

/* A graph of host nodes, one per letter of LETTERS, in a chain. */
static CUgraph host_chain(const char *letters)
{
	CUgraph g;
	MUST(cuGraphCreate(&g, 0));
	CUgraphNode prev = NULL, n;
	for (const char *p = letters; *p; p++) {
		CUDA_HOST_NODE_PARAMS hp = {put, (void *)(uintptr_t)*p};
		MUST(cuGraphAddHostNode(&n, g, prev ? &prev : NULL, prev ? 1 : 0, &hp));
		prev = n;
	}
	return g;
}

static const char *replay(CUgraphExec x, CUstream s)
{
	memset(seen, 0, sizeof seen);
	MUST(cuGraphLaunch(x, s));
	MUST(cuStreamSynchronize(s));
	return seen;
}

int main(void)
{
	CUmodule mod;
	simtest_setup(&mod);
	CUfunction step;
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

	CUgraph child = host_chain("b"), parent = host_chain("A");
	CUgraphNode first, cn, after;
	size_t one = 1;
	MUST(cuGraphGetNodes(parent, &first, &one));
	IS_CU(cuGraphAddChildGraphNode(&cn, parent, &first, 1, child), CUDA_SUCCESS);
	CUDA_HOST_NODE_PARAMS hc = {put, (void *)(uintptr_t)'C'};
	IS_CU(cuGraphAddHostNode(&after, parent, &cn, 1, &hc), CUDA_SUCCESS);
	CUgraphExec x;
	IS_CU(cuGraphInstantiateWithFlags(&x, parent, 0), CUDA_SUCCESS);
	is_str(replay(x, s), "AbC", "replay 1 runs the child's node");

	CUgraph other = host_chain("x"), longer = host_chain("xy"), kern;
	MUST(cuGraphCreate(&kern, 0));
	CUdeviceptr p;
	MUST(cuMemAlloc(&p, 4096));
	unsigned n1 = 1;
	void *kargs[] = {&p, &n1};
	CUDA_KERNEL_NODE_PARAMS kp = {.func = step, .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1,
				      .blockDimX = 32, .blockDimY = 1, .blockDimZ = 1, .kernelParams = kargs};
	CUgraphNode kn;
	MUST(cuGraphAddKernelNode(&kn, kern, NULL, 0, &kp));
	IS_CU(cuGraphExecChildGraphNodeSetParams(x, cn, longer), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecChildGraphNodeSetParams(x, cn, kern), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecChildGraphNodeSetParams(x, first, other), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecChildGraphNodeSetParams(x, cn, NULL), CUDA_ERROR_INVALID_VALUE);
	is_str(replay(x, s), "AbC", "refused updates change nothing");
	IS_CU(cuGraphExecChildGraphNodeSetParams(x, cn, other), CUDA_SUCCESS);
	is_str(replay(x, s), "AxC", "after the update the exec's child node runs the new graph's node");
	CUgraphExec x2;
	IS_CU(cuGraphInstantiateWithFlags(&x2, parent, 0), CUDA_SUCCESS);
	is_str(replay(x2, s), "AbC", "the graph's child node is unchanged (a new exec runs the old child)");

	/* recursive: a child graph with a child graph of its own */
	CUgraph inner = host_chain("q"), mid = host_chain("p"), top = host_chain("T");
	CUgraphNode mp, mc, tt, tc;
	MUST(cuGraphGetNodes(mid, &mp, &one));
	MUST(cuGraphAddChildGraphNode(&mc, mid, &mp, 1, inner));
	MUST(cuGraphGetNodes(top, &tt, &one));
	MUST(cuGraphAddChildGraphNode(&tc, top, &tt, 1, mid));
	CUgraph inner2 = host_chain("Q"), mid2 = host_chain("P"), flat2 = host_chain("PQ");
	CUgraphNode mp2, mc2;
	MUST(cuGraphGetNodes(mid2, &mp2, &one));
	MUST(cuGraphAddChildGraphNode(&mc2, mid2, &mp2, 1, inner2));
	CUgraphExec x3;
	IS_CU(cuGraphInstantiateWithFlags(&x3, top, 0), CUDA_SUCCESS);
	is_str(replay(x3, s), "Tpq", "a nested child graph replays inside its parent's");
	IS_CU(cuGraphExecChildGraphNodeSetParams(x3, tc, flat2), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecChildGraphNodeSetParams(x3, tc, mid2), CUDA_SUCCESS);
	is_str(replay(x3, s), "TPQ", "the update is recursive");

	/* cuGraphAddNode with CU_GRAPH_NODE_TYPE_GRAPH clones the child like cuGraphAddChildGraphNode */
	CUgraph viaparams = host_chain("A");
	CUgraphNode vf, vn;
	MUST(cuGraphGetNodes(viaparams, &vf, &one));
	CUgraphNodeParams np = {.type = CU_GRAPH_NODE_TYPE_GRAPH};
	np.graph.graph = child;
	np.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
	IS_CU(cuGraphAddNode(&vn, viaparams, &vf, NULL, 1, &np), CUDA_ERROR_NOT_SUPPORTED);
	np.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
	IS_CU(cuGraphAddNode(&vn, viaparams, &vf, NULL, 1, &np), CUDA_SUCCESS);
	CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
	IS_CU(cuGraphNodeGetType(vn, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_GRAPH, "cuGraphAddNode's child-graph node");
	CUgraph emb = NULL;
	IS_CU(cuGraphChildGraphNodeGetGraph(vn, &emb), CUDA_SUCCESS);
	ok(emb && emb != child, "it holds its own clone of the child");
	CUgraphExec x4;
	IS_CU(cuGraphInstantiateWithFlags(&x4, viaparams, 0), CUDA_SUCCESS);
	is_str(replay(x4, s), "Ab", "its replay runs the child's node");
	return simtest_done();
}
