/*
 * graphengine: a serving-style decode loop that runs every step as a CUDA graph, as vLLM,
 * SGLang and TensorRT-LLM do, with a planted fault inside one replay (docs/ENGINES.md).
 *
 * --mode capture (default): at start-up one decode step is captured per batch size (1 and 4) on
 * stream A, forking to stream B through an event for the MLP and joining back:
 *
 *   A: memset lse, embed_gather, record fork | B: wait fork, matvec, record join |
 *   A: wait join, paged_attention, sample_token, copy the token to pinned host memory
 *
 * Then each step copies its inputs (token, page table) into the static buffers the graph reads
 * and replays the graph of its batch size (steps alternate 1, 4, 1, ...), so step S is replay
 * (S + 1) / 2 of its graph.  --mode explicit builds the same step with cuGraphAdd*Node and,
 * before each replay, points the attention node of the executable graph at the KV cache of the
 * step (two caches, used in turn) with cuGraphExecKernelNodeSetParams, or (--update exec-update)
 * changes the node in a clone of the graph (cuGraphClone, cuGraphNodeFindInClone,
 * cuGraphKernelNodeSetParams) and updates the exec from the clone (cuGraphExecUpdate);
 * --skip-mlp disables the MLP node of each exec (cuGraphNodeSetEnabled); --destroy-node adds a
 * second MLP node after the attention node and removes it again (cuGraphDestroyNode) before the
 * graph is instantiated, as a builder drops an optional stage.  --child-graph (with --mode
 * explicit) builds the attention stage as a graph of its own and adds it as a child-graph node
 * (cuGraphAddChildGraphNode), as modular graph builders do per layer; nodes inside a child graph
 * are not repointed between replays, so its attention node reads the second KV cache throughout.
 * --conditional (with --mode explicit) puts the attention stage in the body of a conditional IF
 * node (cuGraphConditionalHandleCreate with the value 1 assigned at each launch, cuGraphAddNode
 * with CU_GRAPH_NODE_TYPE_CONDITIONAL; CUDA 12.3), as engines skip a stage on the device; like
 * --child-graph, its attention node reads the second KV cache throughout.
 *
 * --fault-step S plants a fault in step S (1-based), in the kernel --fault-node names: first
 * (embed_gather), middle (paged_attention, the default) or last (sample_token).  For the middle
 * node the fault is real: in capture mode step S copies a page table with a stale page number
 * (an index fault: the kernel reads far past k_cache); in explicit mode the exec's attention
 * node is pointed at the second KV cache after it was freed (a use after free); with
 * --child-graph or --conditional that cache is freed before step S while the body still reads it.  Under the
 * simulator CUDASIM_FAULT is set to the same launch (every step launches each kernel once, so it
 * is the S-th launch of that kernel) with the address the GPU would touch.  The fault surfaces
 * at the step's cuStreamSynchronize, which CHECK turns into abort(), as engines do.
 * Prints "graphengine: step S batch B replay R" per step, "graphengine: graph of batch B has N
 * nodes" (what cuGraphGetNodes says) and the planted pointer as "graphengine: planted 0x..."
 * (the address clause's base).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

enum { DIM = 256, HIDDEN = 512, VOCAB = 1024, N_HEADS = 4, HEAD_DIM = 64, PAGE_SIZE = 16,
       PAGES = 8, KV_DIM = N_HEADS * HEAD_DIM, MAX_BATCH = 4, NSIZES = 2 };
#define POISON_PAGE 0xFFFFFF00u

static const unsigned batch_sizes[NSIZES] = {1, MAX_BATCH};

struct buffers {
	CUdeviceptr tokens, table, x, w, y, q, out, kv[2][2], page_table, lse, logits, token_out;
	int *host_token;
};

struct step_args {
	int dim, vocab, rows, cols, act, n_ctx, page_size, head_dim;
	float scale, temperature;
	unsigned char write_lse;
	unsigned long long seed;
	unsigned step;
	CUdeviceptr residual;
	CUdeviceptr k_cache, v_cache;
	unsigned lse_n;
};

static CUfunction f_embed, f_matvec, f_attn, f_sample;

static CUdeviceptr alloc_zero(size_t bytes)
{
	CUdeviceptr p;
	CHECK(cuMemAlloc(&p, bytes));
	CHECK(cuMemsetD8(p, 0, bytes));
	return p;
}

/* The kernels' argument arrays for one step of batch B (pointers into A's storage). */
struct step_params {
	void *embed[5], *matvec[7], *attn[11], *sample[6];
};

static void step_params_fill(struct step_params *p, struct step_args *a, struct buffers *b)
{
	void *embed[] = {&b->tokens, &b->table, &b->x, &a->dim, &a->vocab};
	void *matvec[] = {&b->w, &b->x, &b->y, &a->rows, &a->cols, &a->act, &a->residual};
	void *attn[] = {&b->out, &b->q, &a->k_cache, &a->v_cache, &b->page_table, &b->lse,
			&a->n_ctx, &a->page_size, &a->head_dim, &a->scale, &a->write_lse};
	void *sample[] = {&b->logits, &a->vocab, &a->temperature, &a->seed, &a->step, &b->token_out};
	memcpy(p->embed, embed, sizeof embed);
	memcpy(p->matvec, matvec, sizeof matvec);
	memcpy(p->attn, attn, sizeof attn);
	memcpy(p->sample, sample, sizeof sample);
}

static void step_args_init(struct step_args *a, unsigned batch, const struct buffers *b)
{
	memset(a, 0, sizeof *a);
	a->dim = DIM * (int)batch;
	a->vocab = VOCAB;
	a->rows = HIDDEN;
	a->cols = DIM;
	a->act = 1;
	a->n_ctx = PAGE_SIZE * (int)batch;
	a->page_size = PAGE_SIZE;
	a->head_dim = HEAD_DIM;
	a->scale = 0.125f;
	a->temperature = 1.0f;
	a->write_lse = 1;
	a->seed = 42;
	a->k_cache = b->kv[0][0];
	a->v_cache = b->kv[0][1];
	a->lse_n = N_HEADS * batch;
}

static CUgraph capture_step(CUstream sa, CUstream sb, CUevent fork, CUevent join, struct buffers *b,
			    struct step_args *a, unsigned batch)
{
	struct step_params p;
	step_params_fill(&p, a, b);
	CUgraph g;
	CHECK(cuStreamBeginCapture(sa, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CHECK(cuMemsetD32Async(b->lse, 0, a->lse_n, sa));
	CHECK(cuLaunchKernel(f_embed, (DIM * batch + 255) / 256, 1, 1, 256, 1, 1, 0, sa, p.embed, NULL));
	CHECK(cuEventRecord(fork, sa));
	CHECK(cuStreamWaitEvent(sb, fork, 0));
	CHECK(cuLaunchKernel(f_matvec, HIDDEN / 128, 1, 1, 128, 1, 1, 0, sb, p.matvec, NULL));
	CHECK(cuEventRecord(join, sb));
	CHECK(cuStreamWaitEvent(sa, join, 0));
	CHECK(cuLaunchKernel(f_attn, N_HEADS, 1, 1, 128, 1, 1, (unsigned)a->n_ctx * 4, sa, p.attn, NULL));
	CHECK(cuLaunchKernel(f_sample, 1, 1, 1, 256, 1, 1, 0, sa, p.sample, NULL));
	CHECK(cuMemcpyDtoHAsync(b->host_token, b->token_out, sizeof(int), sa));
	CHECK(cuStreamEndCapture(sa, &g));
	return g;
}

static void add_kernel(CUgraph g, CUgraphNode *prev, CUgraphNode *node, CUfunction f, unsigned grid,
		       unsigned block, unsigned shared, void **params)
{
	CUDA_KERNEL_NODE_PARAMS kp = {.func = f, .gridDimX = grid, .gridDimY = 1, .gridDimZ = 1,
				      .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
				      .sharedMemBytes = shared, .kernelParams = params};
	CHECK(cuGraphAddKernelNode(node, g, prev, *prev ? 1 : 0, &kp));
	*prev = *node;
}

static int destroy_node; /* --destroy-node */
static int child_graph;  /* --child-graph */
static int conditional;  /* --conditional */

/* The same step, built node by node; *attn_node and *mlp_node get those nodes. */
static CUgraph build_step(struct buffers *b, struct step_args *a, unsigned batch, CUgraphNode *attn_node,
			  CUgraphNode *mlp_node)
{
	struct step_params p;
	step_params_fill(&p, a, b);
	CUgraph g;
	CUgraphNode prev = NULL, n;
	CHECK(cuGraphCreate(&g, 0));
	CUDA_MEMSET_NODE_PARAMS ms = {.dst = b->lse, .value = 0, .elementSize = 4, .width = a->lse_n,
				      .height = 1};
	CUcontext ctx;
	CHECK(cuCtxGetCurrent(&ctx));
	CHECK(cuGraphAddMemsetNode(&n, g, NULL, 0, &ms, ctx));
	prev = n;
	add_kernel(g, &prev, &n, f_embed, (DIM * batch + 255) / 256, 256, 0, p.embed);
	add_kernel(g, &prev, mlp_node, f_matvec, HIDDEN / 128, 128, 0, p.matvec);
	if (conditional) {
		/* The attention stage in the then body of an IF whose condition is 1 at each launch. */
		CUgraphConditionalHandle h;
		CUgraph body;
		CUgraphNode none = NULL;
		CHECK(cuGraphConditionalHandleCreate(&h, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
		CUgraphNodeParams np;
		memset(&np, 0, sizeof np);
		np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
		np.conditional.handle = h;
		np.conditional.type = CU_GRAPH_COND_TYPE_IF;
		np.conditional.size = 1;
		np.conditional.phGraph_out = &body;
		np.conditional.ctx = ctx;
		CHECK(cuGraphAddNode(&n, g, &prev, NULL, 1, &np));
		add_kernel(body, &none, attn_node, f_attn, N_HEADS, 128, (unsigned)a->n_ctx * 4, p.attn);
		prev = n;
	} else if (child_graph) {
		/* The attention stage as a sub-graph; the child-graph node holds a clone of it. */
		CUgraph layer;
		CUgraphNode none = NULL;
		CHECK(cuGraphCreate(&layer, 0));
		add_kernel(layer, &none, attn_node, f_attn, N_HEADS, 128, (unsigned)a->n_ctx * 4, p.attn);
		CHECK(cuGraphAddChildGraphNode(&n, g, &prev, 1, layer));
		CHECK(cuGraphDestroy(layer));
		prev = n;
	} else {
		add_kernel(g, &prev, attn_node, f_attn, N_HEADS, 128, (unsigned)a->n_ctx * 4, p.attn);
	}
	if (destroy_node) { /* an optional stage, dropped again: the next node follows attention */
		CUgraphNode from = prev, extra;
		add_kernel(g, &from, &extra, f_matvec, HIDDEN / 128, 128, 0, p.matvec);
		CHECK(cuGraphDestroyNode(extra));
	}
	add_kernel(g, &prev, &n, f_sample, 1, 256, 0, p.sample);
	CUDA_MEMCPY3D cp = {.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = b->token_out,
			    .dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = b->host_token,
			    .WidthInBytes = sizeof(int), .Height = 1, .Depth = 1};
	CHECK(cuGraphAddMemcpyNode(&n, g, &prev, 1, &cp, ctx));
	return g;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: graphengine [--mode capture|explicit] [--steps N] [--fault-step S]\n"
		"                   [--fault-node first|middle|last] [--update node|exec-update]\n"
		"                   [--skip-mlp] [--destroy-node] [--child-graph] [--conditional]\n"
		"                   [--verbose]\n"
		"Runs a decode step as a CUDA graph per batch size (1, 4) and replays it every step;\n"
		"--fault-step plants a fault in that step's replay (docs/ENGINES.md).\n"
		"Environment: sets CUDASIM_FAULT for --fault-step (for the simulated driver).\n");
}

int main(int argc, char **argv)
{
	engine_prog = "graphengine";
	unsigned steps = 12, fault_step = 0;
	int explicit_mode = 0, exec_update = 0, skip_mlp = 0, update_given = 0;
	const char *fault_node = "middle";
	static const struct option opts[] = {{"mode", 1, NULL, 'm'},   {"steps", 1, NULL, 's'},
					     {"fault-step", 1, NULL, 'f'}, {"fault-node", 1, NULL, 'n'},
					     {"update", 1, NULL, 'u'}, {"skip-mlp", 0, NULL, 'k'}, {"destroy-node", 0, NULL, 'd'}, {"child-graph", 0, NULL, 'c'},
					     {"conditional", 0, NULL, 'i'},
					     {"verbose", 0, NULL, 'v'}, {"help", 0, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	for (int c; (c = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "explicit"))
				explicit_mode = 1;
			else if (strcmp(optarg, "capture"))
				engine_die(2, "--mode wants capture or explicit, got '%s'", optarg);
			break;
		case 's': steps = (unsigned)engine_parse_ulong("--steps", optarg, 1, 100000); break;
		case 'f': fault_step = (unsigned)engine_parse_ulong("--fault-step", optarg, 0, 100000); break;
		case 'n':
			if (strcmp(optarg, "first") && strcmp(optarg, "middle") && strcmp(optarg, "last"))
				engine_die(2, "--fault-node wants first, middle or last, got '%s'", optarg);
			fault_node = optarg;
			break;
		case 'u':
			update_given = 1;
			if (!strcmp(optarg, "exec-update"))
				exec_update = 1;
			else if (strcmp(optarg, "node"))
				engine_die(2, "--update wants node or exec-update, got '%s'", optarg);
			break;
		case 'k': skip_mlp = 1; break;
		case 'd': destroy_node = 1; break;
		case 'c': child_graph = 1; break;
		case 'i': conditional = 1; break;
		case 'v': engine_verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || fault_step > steps ||
	    ((update_given || skip_mlp || destroy_node || child_graph || conditional) && !explicit_mode) ||
	    ((child_graph || conditional) && update_given) || (child_graph && conditional))
		engine_die(2, "unexpected arguments (--fault-step past --steps, --update, --skip-mlp, "
			      "--destroy-node, --child-graph or --conditional without --mode explicit, --update "
			      "with --child-graph or --conditional, or both of those); see --help");
	const char *fault_kernel = !strcmp(fault_node, "first")  ? "embed_gather"
				   : !strcmp(fault_node, "last") ? "sample_token"
								 : "paged_attention";
	drv_open_direct(0);
	/* The address the planted fault touches is known only once the buffers exist; the
	 * simulator reads CUDASIM_FAULT at cuInit, so the clause names the argument, not the
	 * address: k_cache (argument 2) plus the stale page's offset, or the freed cache itself. */
	unsigned long long poison_off = (unsigned long long)POISON_PAGE * PAGE_SIZE * KV_DIM * 4;
	if (fault_step) {
		char value[128];
		if (strcmp(fault_kernel, "paged_attention"))
			snprintf(value, sizeof value, "%s@%u", fault_kernel, fault_step);
		else
			snprintf(value, sizeof value, "paged_attention@%u:arg=2+%llu", fault_step,
				 explicit_mode ? 0ull : poison_off);
		engine_setenv_default("CUDASIM_FAULT", value);
	}
	CUcontext ctx;
	CUmodule mod;
	CHECK(cuInit(0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, 0));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(engine_load_kernels(&mod, 0));
	CHECK(cuModuleGetFunction(&f_embed, mod, "embed_gather"));
	CHECK(cuModuleGetFunction(&f_matvec, mod, KERNEL_MATVEC));
	CHECK(cuModuleGetFunction(&f_attn, mod, "paged_attention"));
	CHECK(cuModuleGetFunction(&f_sample, mod, "sample_token"));

	struct buffers b;
	b.tokens = alloc_zero(MAX_BATCH * sizeof(int));
	b.table = alloc_zero((size_t)VOCAB * DIM * MAX_BATCH * sizeof(float));
	b.x = alloc_zero((size_t)DIM * MAX_BATCH * sizeof(float));
	b.w = alloc_zero((size_t)HIDDEN * DIM * sizeof(float));
	b.y = alloc_zero((size_t)HIDDEN * sizeof(float));
	b.q = alloc_zero((size_t)KV_DIM * sizeof(float));
	b.out = alloc_zero((size_t)KV_DIM * sizeof(float));
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			b.kv[i][j] = alloc_zero((size_t)PAGES * PAGE_SIZE * KV_DIM * sizeof(float));
	b.page_table = alloc_zero(PAGES * sizeof(int));
	b.lse = alloc_zero(N_HEADS * MAX_BATCH * sizeof(float));
	b.logits = alloc_zero(VOCAB * sizeof(float));
	b.token_out = alloc_zero(sizeof(int));
	CHECK(cuMemHostAlloc((void **)&b.host_token, sizeof(int), 0));
	printf("graphengine: planted 0x%llx\n",
	       (unsigned long long)(explicit_mode ? b.kv[1][0] : b.kv[0][0]));

	CUstream sa, sb;
	CUevent fork, join;
	CHECK(cuStreamCreate(&sa, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&sb, CU_STREAM_NON_BLOCKING));
	CHECK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
	CHECK(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));

	/* Warm-up as engines do it: one graph per batch size, captured or built once. */
	struct step_args args[NSIZES];
	CUgraph graphs[NSIZES];
	CUgraphExec execs[NSIZES];
	CUgraphNode attn_nodes[NSIZES], mlp_nodes[NSIZES], clone_attn[NSIZES];
	CUgraph clones[NSIZES];
	for (int i = 0; i < NSIZES; i++) {
		step_args_init(&args[i], batch_sizes[i], &b);
		if (child_graph || conditional) { /* fixed at build time: the second cache */
			args[i].k_cache = b.kv[1][0];
			args[i].v_cache = b.kv[1][1];
		}
		graphs[i] = explicit_mode ? build_step(&b, &args[i], batch_sizes[i], &attn_nodes[i], &mlp_nodes[i])
					  : capture_step(sa, sb, fork, join, &b, &args[i], batch_sizes[i]);
		CHECK(cuGraphInstantiateWithFlags(&execs[i], graphs[i], 0));
		if (skip_mlp) /* as engines turn optional stages off without re-instantiating */
			CHECK(cuGraphNodeSetEnabled(execs[i], mlp_nodes[i], 0));
		if (exec_update) {
			/* TensorRT-LLM's way: change a copy of the graph, then update the exec from it. */
			CHECK(cuGraphClone(&clones[i], graphs[i]));
			CHECK(cuGraphNodeFindInClone(&clone_attn[i], attn_nodes[i], clones[i]));
		}
		size_t nodes = 0;
		CHECK(cuGraphGetNodes(graphs[i], NULL, &nodes));
		printf("graphengine: graph of batch %u has %zu nodes\n", batch_sizes[i], nodes);
	}
	fflush(stdout);

	int page_table[PAGES], token = 1;
	unsigned replays[NSIZES] = {0, 0};
	for (unsigned s = 1; s <= steps; s++) {
		int k = (int)((s - 1) % NSIZES);
		unsigned batch = batch_sizes[k];
		int planted = s == fault_step && !strcmp(fault_kernel, "paged_attention");
		for (int i = 0; i < PAGES; i++)
			page_table[i] = i;
		if (planted && !explicit_mode)
			page_table[0] = (int)POISON_PAGE; /* a stale page number */
		CHECK(cuMemcpyHtoDAsync(b.tokens, &token, sizeof token, sa));
		CHECK(cuMemcpyHtoDAsync(b.page_table, page_table, sizeof page_table, sa));
		if (explicit_mode && planted) { /* the second cache, freed while a graph reads it */
			CHECK(cuMemFree(b.kv[1][0]));
			CHECK(cuMemFree(b.kv[1][1]));
		}
		if (explicit_mode && !child_graph && !conditional) {
			/* This step's KV cache, the two used in turn; the planted step gets the
			 * second one just after it was freed (a use after free). */
			int kv = planted ? 1 : (int)(s % 2);
			struct step_args a = args[k];
			a.k_cache = b.kv[kv][0];
			a.v_cache = b.kv[kv][1];
			struct step_params p;
			step_params_fill(&p, &a, &b);
			CUDA_KERNEL_NODE_PARAMS kp = {.func = f_attn, .gridDimX = N_HEADS, .gridDimY = 1,
						      .gridDimZ = 1, .blockDimX = 128, .blockDimY = 1,
						      .blockDimZ = 1, .sharedMemBytes = (unsigned)a.n_ctx * 4,
						      .kernelParams = p.attn};
			if (exec_update) {
				CUgraphExecUpdateResultInfo info;
				CHECK(cuGraphKernelNodeSetParams(clone_attn[k], &kp));
				CHECK(cuGraphExecUpdate(execs[k], clones[k], &info));
			} else {
				CHECK(cuGraphExecKernelNodeSetParams(execs[k], attn_nodes[k], &kp));
			}
		}
		replays[k]++;
		printf("graphengine: step %u batch %u replay %u\n", s, batch, replays[k]);
		fflush(stdout);
		CHECK(cuGraphLaunch(execs[k], sa));
		CHECK(cuStreamSynchronize(sa));
		token = *b.host_token + 1;
	}
	for (int i = 0; i < NSIZES; i++) {
		CHECK(cuGraphExecDestroy(execs[i]));
		CHECK(cuGraphDestroy(graphs[i]));
		if (exec_update)
			CHECK(cuGraphDestroy(clones[i]));
	}
	printf("graphengine: %u steps done\n", steps);
	return 0;
}
