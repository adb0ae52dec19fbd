/* Explicitly built graphs (graphs.t): cuGraphCreate, cuGraphAdd{Kernel,Memset,Host,Memcpy,
 * Empty}Node, cuGraphGetNodes, cuGraphNodeGetType, cuGraphKernelNodeGet/SetParams,
 * cuGraphInstantiateWithParams, cuGraphClone, cuGraphNodeFindInClone, cuGraphNode{Set,Get}Enabled,
 * cuGraphExecUpdate, cuGraphExecKernelNodeSetParams, cuGraphDestroyNode and
 * cuGraph{Add,Remove}Dependencies (replays follow the edges), with the documented
 * semantics: nodes replay in the order they were added, an exec keeps the parameters it was
 * instantiated with until cuGraphExec*SetParams changes them, and that change leaves the graph
 * alone.  Run with CUDASIM_FAULT=step@4:arg=0+64: the graph has two kernel nodes, so the 4th launch of
 * `step` is the second kernel node of the second replay, whose pointer the test changed in
 * between; the fault's Xid line (CUDASIM_KERNEL_LOG, when set) names that pointer + 64 (its page). */
#include "simtest.h"

#include <stdatomic.h>
#include <string.h>

static atomic_int host_calls;
static void host_fn(void *arg)
{
	atomic_fetch_add(&host_calls, 1);
}

/* The address of the last "faulted @ 0xHI_LO" in the kernel log, 0 if none. */
/* The first ABI (cuda.h names the _v2 entry points since 12.3): old binaries call it. */
#undef cuGraphAddDependencies
#undef cuGraphRemoveDependencies
CUresult CUDAAPI cuGraphAddDependencies(CUgraph, const CUgraphNode *, const CUgraphNode *, size_t);
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph, const CUgraphNode *, const CUgraphNode *, size_t);

static char order_seen[16];
static void order_fn(void *arg)
{
	size_t n = strlen(order_seen);
	if (n + 1 < sizeof order_seen)
		order_seen[n] = (char)(uintptr_t)arg;
}

static unsigned long long log_fault_address(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[1024];
	unsigned long long addr = 0;
	while (f && fgets(line, sizeof line, f)) {
		const char *at = strstr(line, "faulted @ 0x");
		unsigned hi, lo;
		if (at && sscanf(at, "faulted @ 0x%x_%x", &hi, &lo) == 2)
			addr = (unsigned long long)hi << 32 | lo;
	}
	if (f)
		fclose(f);
	return addr;
}

int main(void)
{
	CUmodule mod;
	CUfunction step, noargs;
	simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	MUST(cuModuleGetFunction(&noargs, mod, "noargs"));
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUdeviceptr a, b, c;
	MUST(cuMemAlloc(&a, 4096));
	MUST(cuMemAlloc(&b, 4096));
	MUST(cuMemAlloc(&c, 4096));
	printf("# planted 0x%llx\n", (unsigned long long)c);
	unsigned char host[16];
	memset(host, 0, sizeof host);

	CUgraph g = NULL, other = NULL;
	IS_CU(cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	IS_CU(cuGraphCreate(&other, 0), CUDA_SUCCESS);

	CUDA_MEMSET_NODE_PARAMS ms = {.dst = a, .value = 0xab, .elementSize = 1, .width = 16, .height = 1};
	CUgraphNode n_set, n_k1, n_host, n_copy, n_k2, n_empty, n_foreign;
	IS_CU(cuGraphAddMemsetNode(&n_set, g, NULL, 0, &ms, NULL), CUDA_SUCCESS);
	unsigned n1 = 1;
	void *p1[] = {&a, &n1};
	CUDA_KERNEL_NODE_PARAMS kp = {.func = step, .gridDimX = 2, .gridDimY = 1, .gridDimZ = 1,
				      .blockDimX = 64, .blockDimY = 1, .blockDimZ = 1, .kernelParams = p1};
	IS_CU(cuGraphAddKernelNode(&n_k1, g, &n_set, 1, &kp), CUDA_SUCCESS);
	CUDA_HOST_NODE_PARAMS hp = {host_fn, NULL};
	IS_CU(cuGraphAddHostNode(&n_host, g, &n_k1, 1, &hp), CUDA_SUCCESS);
	CUDA_MEMCPY3D cp = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = a,
			    .dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = host,
			    .WidthInBytes = sizeof host, .Height = 1, .Depth = 1};
	IS_CU(cuGraphAddMemcpyNode(&n_copy, g, &n_host, 1, &cp, NULL), CUDA_SUCCESS);
	unsigned n2 = 2;
	void *p2[] = {&b, &n2};
	kp.kernelParams = p2;
	kp.gridDimX = 3;
	IS_CU(cuGraphAddKernelNode(&n_k2, g, &n_copy, 1, &kp), CUDA_SUCCESS);
	IS_CU(cuGraphAddEmptyNode(&n_empty, g, &n_k2, 1), CUDA_SUCCESS);
	IS_CU(cuGraphAddEmptyNode(&n_foreign, other, &n_k2, 1), CUDA_ERROR_INVALID_VALUE);
	CUgraphNode dup[2] = {n_k1, n_k1};
	IS_CU(cuGraphAddEmptyNode(&n_foreign, g, dup, 2), CUDA_ERROR_INVALID_VALUE);
	kp.blockDimX = 4096;
	IS_CU(cuGraphAddKernelNode(&n_foreign, g, NULL, 0, &kp), CUDA_ERROR_INVALID_VALUE);
	kp.blockDimX = 64;

	/* what the graph says about itself */
	size_t count = 0;
	IS_CU(cuGraphGetNodes(g, NULL, &count), CUDA_SUCCESS);
	is_int((int)count, 6, "cuGraphGetNodes counts the six nodes");
	CUgraphNode nodes[8];
	count = 8;
	IS_CU(cuGraphGetNodes(g, nodes, &count), CUDA_SUCCESS);
	ok(count == 6 && nodes[0] == n_set && nodes[1] == n_k1 && nodes[4] == n_k2 && nodes[6] == NULL &&
		   nodes[7] == NULL,
	   "cuGraphGetNodes lists them and NULLs the entries past them");
	CUgraphNodeType types[6];
	int all = 1;
	for (int i = 0; i < 6; i++)
		all &= cuGraphNodeGetType(nodes[i], &types[i]) == CUDA_SUCCESS;
	ok(all && types[0] == CU_GRAPH_NODE_TYPE_MEMSET && types[1] == CU_GRAPH_NODE_TYPE_KERNEL &&
		   types[2] == CU_GRAPH_NODE_TYPE_HOST && types[3] == CU_GRAPH_NODE_TYPE_MEMCPY &&
		   types[4] == CU_GRAPH_NODE_TYPE_KERNEL && types[5] == CU_GRAPH_NODE_TYPE_EMPTY,
	   "cuGraphNodeGetType gives each node's type");
	CUDA_KERNEL_NODE_PARAMS got;
	IS_CU(cuGraphKernelNodeGetParams(n_k2, &got), CUDA_SUCCESS);
	ok(got.func == step && got.gridDimX == 3 && got.blockDimX == 64 && got.kernelParams &&
		   *(CUdeviceptr *)got.kernelParams[0] == b && *(unsigned *)got.kernelParams[1] == 2,
	   "cuGraphKernelNodeGetParams gives the node's copy of the parameters");
	IS_CU(cuGraphKernelNodeGetParams(n_host, &got), CUDA_ERROR_INVALID_VALUE);

	/* instantiate, replay */
	CUgraphExec x;
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = {.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD, .hUploadStream = s};
	IS_CU(cuGraphInstantiateWithParams(&x, g, &ip), CUDA_SUCCESS);
	is_int(ip.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS, "cuGraphInstantiateWithParams: result_out");
	IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_int(atomic_load(&host_calls), 1, "the first replay ran the host node");
	is_int(host[15], 0xab, "the memcpy node ran after the memset node");

	/* cuGraphDestroyNode: "Removes hNode from its graph"; an exec made before keeps it */
	CUgraph d, dclone;
	CUgraphNode h1, h2, h3, found;
	CUgraphExec xd_before, xd_after;
	IS_CU(cuGraphCreate(&d, 0), CUDA_SUCCESS);
	IS_CU(cuGraphAddHostNode(&h1, d, NULL, 0, &hp), CUDA_SUCCESS);
	IS_CU(cuGraphAddHostNode(&h2, d, &h1, 1, &hp), CUDA_SUCCESS);
	IS_CU(cuGraphAddHostNode(&h3, d, &h2, 1, &hp), CUDA_SUCCESS);
	IS_CU(cuGraphInstantiateWithFlags(&xd_before, d, 0), CUDA_SUCCESS);
	IS_CU(cuGraphDestroyNode(h2), CUDA_SUCCESS);
	IS_CU(cuGraphDestroyNode(h2), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphDestroyNode(NULL), CUDA_ERROR_INVALID_VALUE);
	CUgraphNode dl[3] = {0};
	size_t dn = 3;
	IS_CU(cuGraphGetNodes(d, dl, &dn), CUDA_SUCCESS);
	ok(dn == 2 && dl[0] == h1 && dl[1] == h3 && !dl[2], "cuGraphGetNodes lists the two nodes left");
	IS_CU(cuGraphClone(&dclone, d), CUDA_SUCCESS);
	dn = 0;
	IS_CU(cuGraphGetNodes(dclone, NULL, &dn), CUDA_SUCCESS);
	is_int((int)dn, 2, "a clone made after has the two nodes");
	IS_CU(cuGraphNodeFindInClone(&found, h3, dclone), CUDA_SUCCESS);
	IS_CU(cuGraphInstantiateWithFlags(&xd_after, d, 0), CUDA_SUCCESS);
	atomic_store(&host_calls, 0);
	IS_CU(cuGraphLaunch(xd_after, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_int(atomic_load(&host_calls), 2, "an exec instantiated after the destroy runs two host nodes");
	IS_CU(cuGraphLaunch(xd_before, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_int(atomic_load(&host_calls), 5, "an exec instantiated before it still runs all three");
	IS_CU(cuGraphExecDestroy(xd_before), CUDA_SUCCESS);
	IS_CU(cuGraphExecDestroy(xd_after), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(dclone), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(d), CUDA_SUCCESS);
	atomic_store(&host_calls, 1); /* the count the rest of the test continues from */

	/* dependency edges: A, B, C added without any, then A made to depend on C */
	CUgraph e;
	CUgraphNode na, nb, nc;
	CUgraphExec xe;
	IS_CU(cuGraphCreate(&e, 0), CUDA_SUCCESS);
	CUDA_HOST_NODE_PARAMS op = {order_fn, (void *)(uintptr_t)'A'};
	IS_CU(cuGraphAddHostNode(&na, e, NULL, 0, &op), CUDA_SUCCESS);
	op.userData = (void *)(uintptr_t)'B';
	IS_CU(cuGraphAddHostNode(&nb, e, NULL, 0, &op), CUDA_SUCCESS);
	op.userData = (void *)(uintptr_t)'C';
	IS_CU(cuGraphAddHostNode(&nc, e, NULL, 0, &op), CUDA_SUCCESS);
	IS_CU(cuGraphAddDependencies(e, &nc, &na, 1), CUDA_SUCCESS);
	IS_CU(cuGraphAddDependencies(e, &nc, &na, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddDependencies(e, &na, &na, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphAddDependencies(e, &nc, &n_k1, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphRemoveDependencies(e, &nb, &na, 1), CUDA_ERROR_INVALID_VALUE);
	CUgraphEdgeData port = {.from_port = 1};
	IS_CU(cuGraphAddDependencies_v2(e, &nb, &na, &port, 1), CUDA_ERROR_NOT_SUPPORTED);
	IS_CU(cuGraphInstantiateWithFlags(&xe, e, 0), CUDA_SUCCESS);
	IS_CU(cuGraphLaunch(xe, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_str(order_seen, "BCA", "a replay runs A after C, the node it was made to depend on");
	IS_CU(cuGraphAddDependencies_v2(e, &na, &nc, NULL, 1), CUDA_SUCCESS);
	CUgraphExec xcycle;
	IS_CU(cuGraphInstantiateWithFlags(&xcycle, e, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphRemoveDependencies_v2(e, &na, &nc, NULL, 1), CUDA_SUCCESS);
	IS_CU(cuGraphRemoveDependencies(e, &nc, &na, 1), CUDA_SUCCESS);
	CUgraphExecUpdateResultInfo einfo = {0};
	IS_CU(cuGraphExecUpdate(xe, e, &einfo), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	is_int(einfo.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, "cuGraphExecUpdate: other edges, another topology");
	IS_CU(cuGraphAddDependencies(e, &nc, &nb, 1), CUDA_SUCCESS);
	IS_CU(cuGraphDestroyNode(nc), CUDA_SUCCESS);
	CUgraphExec xe2;
	IS_CU(cuGraphInstantiateWithFlags(&xe2, e, 0), CUDA_SUCCESS);
	memset(order_seen, 0, sizeof order_seen);
	IS_CU(cuGraphLaunch(xe2, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	is_str(order_seen, "AB", "cuGraphDestroyNode severs the destroyed node's edges");
	IS_CU(cuGraphExecDestroy(xe), CUDA_SUCCESS);
	IS_CU(cuGraphExecDestroy(xe2), CUDA_SUCCESS);
	IS_CU(cuGraphDestroy(e), CUDA_SUCCESS);

	/* clones, node enabling, whole-exec updates */
	CUgraph clone;
	IS_CU(cuGraphClone(&clone, g), CUDA_SUCCESS);
	size_t ncl = 0;
	IS_CU(cuGraphGetNodes(clone, NULL, &ncl), CUDA_SUCCESS);
	CUgraphNode k2c = NULL;
	IS_CU(cuGraphNodeFindInClone(&k2c, n_k2, clone), CUDA_SUCCESS);
	IS_CU(cuGraphKernelNodeGetParams(k2c, &got), CUDA_SUCCESS);
	ok(ncl == 6 && k2c != n_k2 && *(CUdeviceptr *)got.kernelParams[0] == b,
	   "cuGraphClone copies the nodes with their parameters; cuGraphNodeFindInClone finds them");
	IS_CU(cuGraphNodeFindInClone(&k2c, n_k2, other), CUDA_ERROR_INVALID_VALUE);
	unsigned en = 7;
	IS_CU(cuGraphNodeGetEnabled(x, n_k1, &en), CUDA_SUCCESS);
	is_int((int)en, 1, "nodes start enabled");
	IS_CU(cuGraphNodeSetEnabled(x, n_host, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphNodeSetEnabled(x, n_k1, 0), CUDA_SUCCESS);
	IS_CU(cuGraphNodeGetEnabled(x, n_k1, &en), CUDA_SUCCESS);
	is_int((int)en, 0, "cuGraphNodeSetEnabled(0) disables a kernel node of the exec");
	IS_CU(cuGraphNodeSetEnabled(x, n_k1, 1), CUDA_SUCCESS);
	CUgraphExecUpdateResultInfo info = {0};
	IS_CU(cuGraphExecUpdate(x, other, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	is_int(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, "cuGraphExecUpdate: another topology is refused");
	IS_CU(cuGraphExecUpdate(x, clone, &info), CUDA_SUCCESS);
	is_int(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS, "cuGraphExecUpdate from the clone succeeds");

	/* per-exec update between replays: the exec changes, the graph does not */
	void *p3[] = {&c, &n2};
	kp.kernelParams = p3;
	kp.func = noargs;
	IS_CU(cuGraphExecKernelNodeSetParams(x, n_k2, &kp), CUDA_ERROR_INVALID_VALUE);
	kp.func = step;
	IS_CU(cuGraphExecKernelNodeSetParams(x, n_host, &kp), CUDA_ERROR_INVALID_VALUE);
	CUgraphNode foreign_k;
	IS_CU(cuGraphAddKernelNode(&foreign_k, other, NULL, 0, &kp), CUDA_SUCCESS);
	IS_CU(cuGraphExecKernelNodeSetParams(x, foreign_k, &kp), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphExecKernelNodeSetParams(x, n_k2, &kp), CUDA_SUCCESS);
	IS_CU(cuGraphKernelNodeGetParams(n_k2, &got), CUDA_SUCCESS);
	ok(*(CUdeviceptr *)got.kernelParams[0] == b, "the graph's node keeps its parameters");

	/* replay 2: launches 3 (node 1) and 4 (node 4, now on c) of step; the 4th faults */
	IS_CU(cuGraphLaunch(x, s), CUDA_SUCCESS);
	IS_CU(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
	is_int(atomic_load(&host_calls), 2, "the faulting replay got past its host node");
	const char *log = getenv("CUDASIM_KERNEL_LOG");
	if (log) {
		unsigned long long at = log_fault_address(log);
		ok(at == ((c + 64) & ~0xfffull), "the fault's address is the updated pointer + 64 (its page)");
	}
	return simtest_done();
}
