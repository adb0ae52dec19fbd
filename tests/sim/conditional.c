/* Conditional nodes (graphs.t): cuGraphConditionalHandleCreate and cuGraphAddNode with
 * CU_GRAPH_NODE_TYPE_CONDITIONAL, whose body graphs come back in phGraph_out.  No device code
 * sets a condition in the simulator, so its value at each launch is the handle's
 * defaultLaunchValue when CU_GRAPH_COND_ASSIGN_DEFAULT is set, else 0; IF runs body 0 when it
 * is non-zero and body 1 (the else, size 2) when it is zero, WHILE its body once when non-zero,
 * SWITCH body[value] when value < size.  Host nodes write letters: each replay's string shows
 * which bodies ran. */
#include "simtest.h"

#include <string.h>

static char seen[64];
static void put(void *arg)
{
	size_t n = strlen(seen);
	if (n + 1 < sizeof seen)
		seen[n] = (char)(uintptr_t)arg;
}

static CUgraphNode host(CUgraph g, CUgraphNode *dep, char letter)
{
	CUgraphNode n;
	CUDA_HOST_NODE_PARAMS hp = {put, (void *)(uintptr_t)letter};
	MUST(cuGraphAddHostNode(&n, g, dep, dep ? 1 : 0, &hp));
	return n;
}

/* A graph A -> conditional (TYPE, SIZE bodies, handle of DEFAULT/FLAGS) -> Z, body b holding a
 * host node writing LETTERS[b]; the replay's letters. */
static const char *run_cond(CUstream s, CUgraphConditionalNodeType type, unsigned size, unsigned dflt,
			    unsigned flags, const char *letters)
{
	CUgraph g;
	MUST(cuGraphCreate(&g, 0));
	CUgraphConditionalHandle h;
	MUST(cuGraphConditionalHandleCreate(&h, g, NULL, dflt, flags));
	CUgraphNode a = host(g, NULL, 'A'), c;
	CUgraph bodies[8] = {0};
	CUgraphNodeParams np = {.type = CU_GRAPH_NODE_TYPE_CONDITIONAL};
	np.conditional.handle = h, np.conditional.type = type, np.conditional.size = size;
	np.conditional.phGraph_out = bodies;
	MUST(cuGraphAddNode(&c, g, &a, NULL, 1, &np));
	for (unsigned b = 0; b < size; b++)
		host(bodies[b], NULL, letters[b]);
	host(g, &c, 'Z');
	CUgraphExec x;
	MUST(cuGraphInstantiateWithFlags(&x, g, 0));
	memset(seen, 0, sizeof seen);
	MUST(cuGraphLaunch(x, s));
	MUST(cuStreamSynchronize(s));
	MUST(cuGraphExecDestroy(x));
	MUST(cuGraphDestroy(g));
	return seen;
}

int main(void)
{
	CUmodule mod;
	simtest_setup(&mod);
	CUstream s;
	MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUgraph g;
	MUST(cuGraphCreate(&g, 0));
	CUgraphConditionalHandle h;
	IS_CU(cuGraphConditionalHandleCreate(&h, g, NULL, 1, 2), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphConditionalHandleCreate(&h, NULL, NULL, 1, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuGraphConditionalHandleCreate(&h, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT), CUDA_SUCCESS);
	CUgraph bodies[3] = {0};
	CUgraphNodeParams np = {.type = CU_GRAPH_NODE_TYPE_CONDITIONAL};
	np.conditional.handle = h, np.conditional.phGraph_out = bodies;
	CUgraphNode c;
	np.conditional.type = CU_GRAPH_COND_TYPE_IF, np.conditional.size = 3;
	IS_CU(cuGraphAddNode(&c, g, NULL, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.conditional.type = CU_GRAPH_COND_TYPE_WHILE, np.conditional.size = 2;
	IS_CU(cuGraphAddNode(&c, g, NULL, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.conditional.type = CU_GRAPH_COND_TYPE_SWITCH, np.conditional.size = 0;
	IS_CU(cuGraphAddNode(&c, g, NULL, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.conditional.size = 3, np.conditional.handle = h + 8;
	IS_CU(cuGraphAddNode(&c, g, NULL, NULL, 0, &np), CUDA_ERROR_INVALID_VALUE);
	np.conditional.handle = h;
	IS_CU(cuGraphAddNode(&c, g, NULL, NULL, 0, &np), CUDA_SUCCESS);
	ok(bodies[0] && bodies[1] && bodies[2] && bodies[0] != bodies[1] && bodies[1] != bodies[2],
	   "the node's three body graphs come back in phGraph_out");
	CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
	IS_CU(cuGraphNodeGetType(c, &t), CUDA_SUCCESS);
	is_int(t, CU_GRAPH_NODE_TYPE_CONDITIONAL, "its type is CU_GRAPH_NODE_TYPE_CONDITIONAL");
	size_t nb = 9;
	IS_CU(cuGraphGetNodes(bodies[1], NULL, &nb), CUDA_SUCCESS);
	is_int((long long)nb, 0, "a body starts empty");
	MUST(cuGraphDestroy(g));

	is_str(run_cond(s, CU_GRAPH_COND_TYPE_IF, 2, 1, CU_GRAPH_COND_ASSIGN_DEFAULT, "te"), "AtZ",
	       "IF with the default value 1: the then body ran");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_IF, 2, 1, 0, "te"), "AeZ",
	       "IF with 1 not assigned (no CU_GRAPH_COND_ASSIGN_DEFAULT): the value is 0, the else body ran");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_IF, 1, 0, CU_GRAPH_COND_ASSIGN_DEFAULT, "t"), "AZ",
	       "IF with 0 and no else body: nothing ran");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_WHILE, 1, 3, CU_GRAPH_COND_ASSIGN_DEFAULT, "w"), "AwZ",
	       "WHILE with 3: the body ran once (no device code to change the value)");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_WHILE, 1, 0, CU_GRAPH_COND_ASSIGN_DEFAULT, "w"), "AZ",
	       "WHILE with 0: the body did not run");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_SWITCH, 3, 2, CU_GRAPH_COND_ASSIGN_DEFAULT, "abc"), "AcZ",
	       "SWITCH with 2: body 2 ran");
	is_str(run_cond(s, CU_GRAPH_COND_TYPE_SWITCH, 3, 7, CU_GRAPH_COND_ASSIGN_DEFAULT, "abc"), "AZ",
	       "SWITCH with 7 of 3 bodies: none ran");

	/* nested: a body holding a child graph and a conditional of its own; a clone keeps them */
	MUST(cuGraphCreate(&g, 0));
	CUgraphConditionalHandle on, off;
	MUST(cuGraphConditionalHandleCreate(&on, g, NULL, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
	MUST(cuGraphConditionalHandleCreate(&off, g, NULL, 0, CU_GRAPH_COND_ASSIGN_DEFAULT));
	CUgraph outer[1], inner[2], child;
	MUST(cuGraphCreate(&child, 0));
	host(child, NULL, 'k');
	np.conditional.handle = on, np.conditional.type = CU_GRAPH_COND_TYPE_IF, np.conditional.size = 1;
	np.conditional.phGraph_out = outer;
	MUST(cuGraphAddNode(&c, g, NULL, NULL, 0, &np));
	CUgraphNode b0 = host(outer[0], NULL, 'o'), cn, ic;
	MUST(cuGraphAddChildGraphNode(&cn, outer[0], &b0, 1, child));
	np.conditional.handle = off, np.conditional.size = 2, np.conditional.phGraph_out = inner;
	MUST(cuGraphAddNode(&ic, outer[0], &cn, NULL, 1, &np));
	host(inner[0], NULL, 'y');
	host(inner[1], NULL, 'n');
	CUgraph cl;
	MUST(cuGraphClone(&cl, g));
	CUgraphExec x;
	MUST(cuGraphInstantiateWithFlags(&x, cl, 0));
	MUST(cuGraphDestroy(g));
	memset(seen, 0, sizeof seen);
	MUST(cuGraphLaunch(x, s));
	MUST(cuStreamSynchronize(s));
	is_str(seen, "okn", "nested: the body's own node, its child graph's, its inner IF's else body (a clone's replay)");
	MUST(cuGraphExecDestroy(x));
	MUST(cuGraphDestroy(cl));
	return simtest_done();
}
