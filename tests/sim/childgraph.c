/* Child-graph nodes (graphs.t): cuGraphAddChildGraphNode clones the child graph into the node
 * ("The child graph is cloned in this call"), cuGraphChildGraphNodeGetGraph hands out that
 * embedded graph, cuGraphNodeGetType says CU_GRAPH_NODE_TYPE_GRAPH, and a replay runs the child's
 * nodes where the child node stands (host nodes record the order).  Run with
 * CUDASIM_FAULT=step@4:arg=0+64: the parent has one kernel node before the child node and the
 * child one kernel node (on the pointer planted below), so the 4th launch of `step` is the
 * child's kernel node in the second replay; the Xid line names its pointer + 64. */
#include "simtest.h"

#include <string.h>

static char order_seen[32];
static void order_fn(void *arg)
{
	size_t n = strlen(order_seen);
	if (n + 1 < sizeof order_seen)
		order_seen[n] = (char)(uintptr_t)arg;
}

int main(void)
{
	CUmodule mod;
	CUfunction step;
	simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUdeviceptr a, c;
	MUST(cuMemAlloc(&a, 4096));
	MUST(cuMemAlloc(&c, 4096));
	printf("# planted 0x%llx\n", (unsigned long long)c);

	CUgraph child, parent;
	MUST(cuGraphCreate(&child, 0));
	MUST(cuGraphCreate(&parent, 0));
	unsigned n1 = 1;
	void *pc[] = {&c, &n1};
	CUDA_KERNEL_NODE_PARAMS kp = {.func = step, .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1,
				      .blockDimX = 32, .blockDimY = 1, .blockDimZ = 1, .kernelParams = pc};
	CUDA_HOST_NODE_PARAMS hb = {order_fn, (void *)(uintptr_t)'b'}, ha = {order_fn, (void *)(uintptr_t)'A'},
			      hc = {order_fn, (void *)(uintptr_t)'C'};
	CUgraphNode c_host, c_k, p_host, p_k, p_child, p_after;
	IS_CU(cuGraphAddHostNode(&c_host, child, NULL, 0, &hb), CUDA_SUCCESS);
	IS_CU(cuGraphAddKernelNode(&c_k, child, &c_host, 1, &kp), CUDA_SUCCESS);

	IS_CU(cuGraphAddHostNode(&p_host, parent, NULL, 0, &ha), CUDA_SUCCESS);
	void *pa[] = {&a, &n1};
	kp.kernelParams = pa;
	IS_CU(cuGraphAddKernelNode(&p_k, parent, &p_host, 1, &kp), CUDA_SUCCESS);
	IS_CU(cuGraphAddChildGraphNode(&p_child, parent, &p_k, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddChildGraphNode(&p_child, parent, &p_k, 1, parent), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddChildGraphNode(&p_child, parent, &c_k, 1, child), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddChildGraphNode(&p_child, parent, &p_k, 1, child), CUDA_SUCCESS);
	IS_CU(cuGraphAddHostNode(&p_after, parent, &p_child, 1, &hc), CUDA_SUCCESS);

	CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
	IS_CU(cuGraphNodeGetType(p_child, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_GRAPH, "the child node's type is CU_GRAPH_NODE_TYPE_GRAPH");
	CUgraph emb = NULL;
	IS_CU(cuGraphChildGraphNodeGetGraph(p_k, &emb), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphChildGraphNodeGetGraph(p_child, &emb), CUDA_SUCCESS);
	ok(emb && emb != child, "the node holds its own clone of the child graph");
	/* A node added to the original afterwards is not in the node's clone. */
	CUgraphNode late;
	IS_CU(cuGraphAddEmptyNode(&late, child, NULL, 0), CUDA_SUCCESS);
	size_t nemb = 0, norig = 0;
	IS_CU(cuGraphGetNodes(emb, NULL, &nemb), CUDA_SUCCESS);
	IS_CU(cuGraphGetNodes(child, NULL, &norig), CUDA_SUCCESS);
	ok(nemb == 2 && norig == 3, "the embedded graph has the child's 2 nodes, the original 3");
	CUgraphNode en[2] = {0};
	IS_CU(cuGraphGetNodes(emb, en, &nemb), CUDA_SUCCESS);
	IS_CU(cuGraphNodeGetType(en[1], &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_KERNEL, "the embedded graph's second node is the kernel node");
	CUDA_KERNEL_NODE_PARAMS got;
	IS_CU(cuGraphKernelNodeGetParams(en[1], &got), CUDA_SUCCESS);
	ok(got.func == step && *(CUdeviceptr *)got.kernelParams[0] == c, "its parameters are the child's");

	/* A clone of the parent clones the embedded graph too. */
	CUgraph pclone;
	IS_CU(cuGraphClone(&pclone, parent), CUDA_SUCCESS);
	CUgraphNode cl_child;
	IS_CU(cuGraphNodeFindInClone(&cl_child, p_child, pclone), CUDA_SUCCESS);
	CUgraph cl_emb = NULL;
	IS_CU(cuGraphChildGraphNodeGetGraph(cl_child, &cl_emb), CUDA_SUCCESS);
	ok(cl_emb && cl_emb != emb, "a clone of the parent has its own embedded graph");
	IS_CU(cuGraphDestroy(pclone), CUDA_SUCCESS);

	CUgraphExec x;
	IS_CU(cuGraphInstantiateWithFlags(&x, parent, 0), CUDA_SUCCESS);
	/* replay 1: step launches 1 (parent) and 2 (child) */
	IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_str(order_seen, "AbC", "a replay runs the child's nodes where the child node stands");
	IS_CU(cuGraphDestroy(child), CUDA_SUCCESS); /* the node's clone lives on */
	/* replay 2: launch 3 of step is the parent's kernel node, launch 4 the child's: it faults */
	IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
	is_str(order_seen, "AbCAb", "the faulting replay stopped in the child graph");
	return simtest_done();
}
