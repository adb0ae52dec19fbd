/*
 * miniengine: a small multi-threaded, multi-stream transformer decode loop on the CUDA driver
 * API, with planted bugs, for testing cudainspect.  Each worker thread decodes one sequence per
 * stream; each step launches embedding, per layer RMS norm / QKV matvec / rotary / KV-cache
 * append / paged attention / output and MLP matvecs, then final norm, LM head and sampling, and
 * copies the sampled token back to pinned host memory.  Workers step together (a barrier per
 * step, as tensor-parallel ranks do), which also makes the launch that a planted fault hits
 * deterministic, so the simulated driver can be told about it (CUDASIM_FAULT) before cuInit.
 * The planted launch waits on a host-mapped gate until every worker has queued its step, so the
 * error surfaces at a step's cuEventSynchronize, never at a launch, whatever the timing (--hold
 * does the same for every step, for faults injected from outside with CUDASIM_FAULT).
 * Every CUDA call goes through CHECK, which prints the error and aborts like real engines.
 * docs/ENGINES.md documents the options, the scenarios and the exit codes.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

enum fault_kind {
	FAULT_NONE,
	FAULT_OOB,
	FAULT_UAF,
	FAULT_MULTISTREAM,
	FAULT_CROSSTHREAD,
	FAULT_BADLAUNCH,
};

static const char *const fault_names[] = {"none", "oob", "uaf", "multistream", "crossthread",
					  "badlaunch"};

#define MAX_THREADS 64
#define MAX_STREAMS 16
#define MAX_LAYERS 64
#define MAX_STEPS 8192 /* attention keeps n_ctx scores in 32 KiB of shared memory */

/* Model shape: small enough for the simulator, a real computation on a GPU. */
enum {
	DIM = 256,
	N_HEADS = 4,
	HEAD_DIM = 64,
	HIDDEN = 512,
	VOCAB = 1024,
	PAGE_SIZE = 16,
	KV_DIM = DIM,
};
#define WORKSPACE_BYTES ((size_t)32 << 20) /* per worker, like FlashInfer's workspace buffer */
#define KV_ROUND ((size_t)2 << 20)         /* KV cache sized in whole 2 MiB pages */
#define OOB_PAST 256                       /* oob: k_cache lands this far past the cache */
#define POISON_PAGE 0xFFFFFF00u            /* oob: stale page numbers, far past any mapping */
#define WAIT_LIMIT_S 120                   /* no wait in this program is longer */

struct options {
	unsigned threads, streams, steps, layers;
	enum fault_kind fault;
	int hang, bootstrap, ptsz, quiet, hold;
	unsigned long long seed;
	unsigned hang_timeout_s;
};

/* Memory shared with the GPU through a host-mapped page: the planted launch's gate, the --hold
 * flags and the hang kernel's release flag and status. */
struct control {
	volatile unsigned int release;     /* --hang: spin_wait returns once non-zero */
	volatile unsigned int gate;        /* --fault: the planted launch waits until >= 1 */
	volatile unsigned int spin_status; /* spin_wait: 1 released, 2 timed out */
	volatile unsigned int hold[MAX_THREADS]; /* --hold: worker i's step S waits until > S */
};

struct layer_weights {
	CUdeviceptr attn_norm, wqkv, wo, mlp_norm, w1, w2;
};

struct kernels {
	CUfunction embed, rmsnorm, matvec, rope, kv_append, attention, sample, spin;
};

/* One sequence, decoded on its own stream. */
struct seq {
	CUstream stream; /* NULL: the thread's per-thread default stream (--ptsz, stream 0) */
	CUevent done;
	CUdeviceptr x, h, qkv, att, mlp, logits, token;
	CUdeviceptr page_table; /* this sequence's row */
	int *host_token;        /* pinned; the token fed back each step */
};

struct worker {
	unsigned index;
	pthread_t thread;
	pid_t tid;
	struct seq seqs[MAX_STREAMS];
	CUdeviceptr workspace;
	int *host_tokens;
	unsigned long long checksum;
	unsigned long launches;
};

/* Where the planted fault strikes: worker 0, stream `stream`, step `step`, layer `layer`,
 * which is launch number `nth` of `kernel` in the process. */
struct plan {
	unsigned step, stream, layer;
	unsigned long long nth;
	const char *kernel;
};

struct rope_cfg {
	float theta;
	int rot_dim;
	int n_heads;
};

static struct engine {
	struct options opt;
	struct plan plan;
	CUcontext ctx;
	CUmodule module;
	struct kernels k;
	CUdeviceptr embed, final_norm, lm_head;
	struct layer_weights layers[MAX_LAYERS];
	CUdeviceptr page_table, poison_row;
	size_t pages_per_seq;
	CUdeviceptr kv;
	size_t kv_bytes, plane_bytes;
	CUstream loader;
	CUevent ready, fault_event;
	struct control *ctl;
	CUdeviceptr ctl_dev;
	pthread_barrier_t init_barrier, step_barrier;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate_open;
	int queued; /* workers other than 0 that have queued the planted step */
	CUevent handoff;
	int handoff_posted;
	struct worker workers[MAX_THREADS];
} E = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: miniengine [OPTIONS]\n"
		"A small multi-threaded, multi-stream decode loop on the CUDA driver API with\n"
		"planted bugs, for testing cudainspect (docs/ENGINES.md).\n"
		"\n"
		"  --threads N       worker threads (default 2, at most %d)\n"
		"  --streams N       streams (sequences) per thread (default 2, at most %d)\n"
		"  --steps N         decode steps (default 8, at most %d)\n"
		"  --layers N        transformer layers (default 2, at most %d)\n"
		"  --fault KIND      plant a bug at step steps/2; KIND is one of\n"
		"                      oob          attention reads past the end of the KV cache\n"
		"                      uaf          attention writes into a freed workspace\n"
		"                      multistream  fault on stream 0 while other streams wait\n"
		"                      crossthread  thread 0 launches the fault, thread 1 sees it\n"
		"                      badlaunch    a launch with 2048 threads per block\n"
		"  --hang            one launch never completes (spin_wait); the engine blocks\n"
		"                    in cuEventSynchronize; on a GPU SIGUSR1 releases it\n"
		"  --hang-timeout S  on a GPU, spin_wait gives up after S seconds (default 0: never)\n"
		"  --hold            every step waits on a host-mapped flag until its worker has\n"
		"                    queued all of it: a fault injected with CUDASIM_FAULT then\n"
		"                    surfaces at the step's cuEventSynchronize, never at a launch\n"
		"  --bootstrap       reach the driver like cudart: dlopen + dlsym(cuGetProcAddress_v2)\n"
		"                    + cuGetProcAddress for every entry point\n"
		"  --ptsz            per-thread default stream: _ptsz/_ptds entry points (with\n"
		"                    --bootstrap: CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);\n"
		"                    stream 0 of each thread is its per-thread default stream\n"
		"  --seed N          seed for weights and sampling (default 1)\n"
		"  --quiet           print nothing but errors\n"
		"  --verbose         say what happens: thread ids, the planted fault, resolved\n"
		"                    entry points; failed CHECKs also name the call and thread\n"
		"  --dump-ptx        print the embedded kernels' PTX and exit\n"
		"  --help            this text\n"
		"\n"
		"Environment: sets CUDASIM_FAULT (for --fault) or CUDASIM_HANG (for --hang) for the\n"
		"simulated driver unless already set.\n"
		"Exit status: 0 done; 1 setup failed; 2 bad usage; 3 the planted fault did not\n"
		"surface; a CUDA error aborts (SIGABRT) after printing FILE:LINE: CUDA error: ...\n",
		MAX_THREADS, MAX_STREAMS, MAX_STEPS, MAX_LAYERS);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_HANG_TIMEOUT = 256, OPT_DUMP_PTX };
	static const struct option longopts[] = {
		{"threads", required_argument, NULL, 't'},
		{"streams", required_argument, NULL, 's'},
		{"steps", required_argument, NULL, 'n'},
		{"layers", required_argument, NULL, 'l'},
		{"fault", required_argument, NULL, 'f'},
		{"hang", no_argument, NULL, 'H'},
		{"hang-timeout", required_argument, NULL, OPT_HANG_TIMEOUT},
		{"hold", no_argument, NULL, 'o'},
		{"bootstrap", no_argument, NULL, 'b'},
		{"ptsz", no_argument, NULL, 'p'},
		{"seed", required_argument, NULL, 'S'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"dump-ptx", no_argument, NULL, OPT_DUMP_PTX},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct options){.threads = 2, .streams = 2, .steps = 8, .layers = 2, .seed = 1};
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->threads = engine_parse_ulong("--threads", optarg, 1, MAX_THREADS); break;
		case 's': o->streams = engine_parse_ulong("--streams", optarg, 1, MAX_STREAMS); break;
		case 'n': o->steps = engine_parse_ulong("--steps", optarg, 1, MAX_STEPS); break;
		case 'l': o->layers = engine_parse_ulong("--layers", optarg, 1, MAX_LAYERS); break;
		case 'f':
			o->fault = FAULT_NONE;
			for (unsigned i = 1; i < sizeof fault_names / sizeof *fault_names; i++)
				if (strcmp(optarg, fault_names[i]) == 0)
					o->fault = (enum fault_kind)i;
			if (o->fault == FAULT_NONE) {
				fprintf(stderr,
					"miniengine: unknown fault kind '%s'; use oob, uaf, "
					"multistream, crossthread or badlaunch\n",
					optarg);
				exit(2);
			}
			break;
		case 'H': o->hang = 1; break;
		case OPT_HANG_TIMEOUT:
			o->hang_timeout_s = engine_parse_ulong("--hang-timeout", optarg, 0, 86400);
			break;
		case 'o': o->hold = 1; break;
		case 'b': o->bootstrap = 1; break;
		case 'p': o->ptsz = 1; break;
		case 'S': o->seed = engine_parse_ulong("--seed", optarg, 0, ~0ul); break;
		case 'q': o->quiet = 1; break;
		case 'v': engine_verbose = 1; break;
		case OPT_DUMP_PTX:
			fwrite(engine_kernels_ptx, 1, engine_kernels_ptx_len(), stdout);
			exit(fflush(stdout) == 0 ? 0 : 1);
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "miniengine: see --help for the options\n");
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "miniengine: unexpected argument '%s'; see --help\n", argv[optind]);
		exit(2);
	}
	if (o->hang && o->fault != FAULT_NONE) {
		fprintf(stderr, "miniengine: --hang and --fault exclude each other\n");
		exit(2);
	}
	if (o->fault == FAULT_MULTISTREAM && o->streams < 2) {
		fprintf(stderr, "miniengine: --fault multistream needs --streams 2 or more\n");
		exit(2);
	}
	if (o->fault == FAULT_CROSSTHREAD && o->threads < 2) {
		fprintf(stderr, "miniengine: --fault crossthread needs --threads 2 or more\n");
		exit(2);
	}
	if (o->quiet)
		engine_verbose = 0;
}

/* Where the fault strikes, and which launch of its kernel that is in the whole process: every
 * worker launches `layers` attention kernels per stream per step, and all workers have finished
 * launching step F-1 before worker 0 starts step F (barrier) while the others wait at step F
 * until the fault is launched (gate). */
static void plan_fault(void)
{
	const struct options *o = &E.opt;
	struct plan *p = &E.plan;
	p->step = o->steps / 2;
	p->stream = 0;
	p->layer = 0;
	p->kernel = "paged_attention";
	switch (o->fault) {
	case FAULT_OOB:
	case FAULT_CROSSTHREAD:
		p->layer = o->layers - 1;
		break;
	case FAULT_BADLAUNCH:
		p->kernel = "rmsnorm";
		break;
	default:
		break;
	}
	p->nth = (unsigned long long)p->step * o->threads * o->streams * o->layers +
		 (unsigned long long)p->stream * o->layers + p->layer + 1;

	char value[128];
	if (o->hang) {
		p->kernel = "spin_wait";
		p->nth = 1; /* only --hang launches spin_wait, once */
		engine_setenv_default("CUDASIM_HANG", "spin_wait@1");
	} else if (o->fault != FAULT_NONE && o->fault != FAULT_BADLAUNCH) {
		/* badlaunch is an API error, not a device fault: nothing to tell the simulator. */
		snprintf(value, sizeof value, "%s@%llu", p->kernel, p->nth);
		engine_setenv_default("CUDASIM_FAULT", value);
	}
}

/* ---- deterministic host data --------------------------------------------------------------- */

static unsigned long long rng_state;

static float rng_uniform(float scale)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((float)(rng_state >> 40) / (float)(1u << 24) * 2.0f - 1.0f) * scale;
}

/* Allocate a tensor of n floats and start its upload on the loader stream.  The staging buffer
 * stays alive until the loader is synchronized (pageable async copies may still read it). */
static CUdeviceptr upload_tensor(size_t n, float scale, float fill, float **staging_list,
				 unsigned *staging_n)
{
	CUdeviceptr d;
	float *host = malloc(n * sizeof *host);
	if (!host)
		engine_die(1, "out of host memory for weights");
	for (size_t i = 0; i < n; i++)
		host[i] = scale != 0.0f ? rng_uniform(scale) : fill;
	CHECK(drv.MemAlloc(&d, n * sizeof *host));
	CHECK(drv.MemcpyHtoDAsync(d, host, n * sizeof *host, E.loader));
	staging_list[(*staging_n)++] = host;
	return d;
}

/* ---- gate and hand-off between workers ----------------------------------------------------- */

/* Wait until *flag reaches at least n. */
static void timed_wait_until(int *flag, int n, const char *what)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += WAIT_LIMIT_S;
	pthread_mutex_lock(&E.lock);
	while (*flag < n) {
		if (pthread_cond_timedwait(&E.cond, &E.lock, &deadline) != 0 && *flag < n) {
			pthread_mutex_unlock(&E.lock);
			engine_die(3, "--fault %s: %s within %d s; the planted fault did not surface",
				   fault_names[E.opt.fault], what, WAIT_LIMIT_S);
		}
	}
	pthread_mutex_unlock(&E.lock);
}

static void set_flag(int *flag)
{
	pthread_mutex_lock(&E.lock);
	*flag = 1;
	pthread_cond_broadcast(&E.cond);
	pthread_mutex_unlock(&E.lock);
}

static void count_up(int *counter)
{
	pthread_mutex_lock(&E.lock);
	++*counter;
	pthread_cond_broadcast(&E.cond);
	pthread_mutex_unlock(&E.lock);
}

/* ---- the decode step ----------------------------------------------------------------------- */

#define LAUNCH(w, f, grid, block, shmem, stream, args)                                         \
	do {                                                                                   \
		CHECK(drv.LaunchKernel((f), (grid), 1, 1, (block), 1, 1, (shmem), (stream),    \
				       (args), NULL));                                         \
		(w)->launches++;                                                               \
	} while (0)

static void say_planted(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say_planted(struct worker *w, const char *fmt, ...)
{
	if (!engine_verbose)
		return;
	va_list ap;
	char msg[512];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "miniengine: thread %u (tid %d) plants %s: %s\n", w->index, (int)w->tid,
		fault_names[E.opt.fault], msg);
}

/* One decode step of one sequence.  `plant` is the fault kind when this is the planted
 * launch's step and stream, else FAULT_NONE; `workspace` is the workspace pointer this
 * sequence's attention uses (stale after a resize under --fault uaf). */
static void forward(struct worker *w, unsigned si, unsigned step, enum fault_kind plant,
		    CUdeviceptr workspace)
{
	struct seq *q = &w->seqs[si];
	CUstream st = q->stream;
	CUdeviceptr none = 0;
	int dim = DIM, vocab = VOCAB, rows, cols, act, pos = (int)step, n_ctx = (int)step + 1;
	int page_size = PAGE_SIZE, kv_dim = KV_DIM, head_dim = HEAD_DIM;
	float eps = 1e-5f, scale = 0.125f /* 1/sqrt(HEAD_DIM) */, temperature = 0.8f;
	unsigned char write_lse = 1;
	struct rope_cfg rope = {.theta = 10000.0f, .rot_dim = HEAD_DIM, .n_heads = N_HEADS};
	CUdeviceptr q_vec = q->qkv, k_vec = q->qkv + DIM * sizeof(float),
		    v_vec = q->qkv + 2 * DIM * sizeof(float);
	CUdeviceptr lse = workspace + si * 256;

	if (E.opt.hold)
		CHECK(drv.StreamWaitValue32(st, E.ctl_dev + offsetof(struct control, hold) +
						    w->index * sizeof(E.ctl->hold[0]),
					    step + 1, CU_STREAM_WAIT_VALUE_GEQ));
	CHECK(drv.MemcpyHtoDAsync(q->token, q->host_token, sizeof(int), st));
	void *embed_args[] = {&q->token, &E.embed, &q->x, &dim, &vocab};
	LAUNCH(w, E.k.embed, DIM / 128, 128, 0, st, embed_args);

	for (unsigned l = 0; l < E.opt.layers; l++) {
		struct layer_weights *lw = &E.layers[l];
		CUdeviceptr k_cache = E.kv + (size_t)l * 2 * E.plane_bytes;
		CUdeviceptr v_cache = k_cache + E.plane_bytes;
		CUdeviceptr page_table = q->page_table;
		int here = plant != FAULT_NONE && l == E.plan.layer;

		void *norm1[] = {&q->x, &lw->attn_norm, &q->h, &dim, &eps};
		if (here && plant == FAULT_BADLAUNCH) {
			/* The hidden size copied into the block size: 2048 threads per block.  The
			 * stream's earlier work is waited for first, so that nothing is in flight
			 * when the launch fails and the process dies, whatever the timing. */
			CHECK(drv.StreamSynchronize(st));
			say_planted(w, "rmsnorm on stream %u with 2048 threads per block", si);
			LAUNCH(w, E.k.rmsnorm, 1, 2048, 0, st, norm1);
		}
		LAUNCH(w, E.k.rmsnorm, 1, 256, 0, st, norm1);

		rows = 3 * DIM, cols = DIM, act = 0;
		void *qkv[] = {&lw->wqkv, &q->h, &q->qkv, &rows, &cols, &act, &none};
		LAUNCH(w, E.k.matvec, (rows + 127) / 128, 128, 0, st, qkv);

		void *rope_args[] = {&q_vec, &k_vec, &pos, &rope};
		LAUNCH(w, E.k.rope, N_HEADS, HEAD_DIM / 2, 0, st, rope_args);

		void *append[] = {&k_vec, &v_vec, &k_cache, &v_cache, &page_table, &pos, &page_size,
				  &kv_dim};
		LAUNCH(w, E.k.kv_append, KV_DIM / 256, 256, 0, st, append);

		if (here && (plant == FAULT_OOB || plant == FAULT_MULTISTREAM ||
			     plant == FAULT_CROSSTHREAD)) {
			/* A stale layer offset and a stale page-table row: k_cache lands
			 * OOB_PAST bytes past the end of the KV cache and the pages are far
			 * beyond any mapping, so a GPU really faults. */
			k_cache = E.kv + E.kv_bytes + OOB_PAST;
			v_cache = k_cache + E.plane_bytes;
			page_table = E.poison_row;
			say_planted(w,
				    "paged_attention launch #%llu on stream %u, layer %u: k_cache "
				    "0x%llx is %d bytes past the end of the KV cache [0x%llx, +%zu)",
				    E.plan.nth, si, l, (unsigned long long)k_cache, OOB_PAST,
				    (unsigned long long)E.kv, E.kv_bytes);
		}
		if (here && plant == FAULT_UAF)
			say_planted(w,
				    "paged_attention launch #%llu on stream %u, layer %u: lse 0x%llx "
				    "is inside the freed workspace",
				    E.plan.nth, si, l, (unsigned long long)lse);
		if (here && plant != FAULT_BADLAUNCH) {
			/* Hold the fault until the step is queued (run_step releases it): else a
			 * caller slower than the stream would see it at a later launch. */
			CHECK(drv.StreamWaitValue32(st, E.ctl_dev + offsetof(struct control, gate), 1,
						    CU_STREAM_WAIT_VALUE_GEQ));
		}
		void *attn[] = {&q->att, &q_vec, &k_cache, &v_cache, &page_table, &lse,
				&n_ctx, &page_size, &head_dim, &scale, &write_lse};
		LAUNCH(w, E.k.attention, N_HEADS, 128, E.opt.steps * sizeof(float), st, attn);
		if (here && plant != FAULT_BADLAUNCH && plant != FAULT_CROSSTHREAD)
			set_flag(&E.gate_open); /* the count is fixed now: let the others go */

		rows = DIM, cols = DIM, act = 0;
		void *wo[] = {&lw->wo, &q->att, &q->x, &rows, &cols, &act, &q->x};
		LAUNCH(w, E.k.matvec, (rows + 127) / 128, 128, 0, st, wo);

		void *norm2[] = {&q->x, &lw->mlp_norm, &q->h, &dim, &eps};
		LAUNCH(w, E.k.rmsnorm, 1, 256, 0, st, norm2);

		rows = HIDDEN, cols = DIM, act = 1;
		void *up[] = {&lw->w1, &q->h, &q->mlp, &rows, &cols, &act, &none};
		LAUNCH(w, E.k.matvec, (rows + 127) / 128, 128, 0, st, up);

		rows = DIM, cols = HIDDEN, act = 0;
		void *down[] = {&lw->w2, &q->mlp, &q->x, &rows, &cols, &act, &q->x};
		LAUNCH(w, E.k.matvec, (rows + 127) / 128, 128, 0, st, down);
	}

	void *norm[] = {&q->x, &E.final_norm, &q->h, &dim, &eps};
	LAUNCH(w, E.k.rmsnorm, 1, 256, 0, st, norm);
	rows = VOCAB, cols = DIM, act = 0;
	void *head[] = {&E.lm_head, &q->h, &q->logits, &rows, &cols, &act, &none};
	LAUNCH(w, E.k.matvec, (rows + 127) / 128, 128, 0, st, head);
	unsigned long long seed = E.opt.seed * 1000003u + w->index * 131u + si;
	unsigned int step32 = step;
	void *sample[] = {&q->logits, &vocab, &temperature, &seed, &step32, &q->token};
	LAUNCH(w, E.k.sample, 1, 256, 0, st, sample);

	CHECK(drv.MemcpyDtoHAsync(q->host_token, q->token, sizeof(int), st));
	CHECK(drv.EventRecord(q->done, st));
}

static void plant_hang(struct worker *w)
{
	unsigned long long timeout_ns = E.opt.hang_timeout_s * 1000000000ull;
	CUdeviceptr flag = E.ctl_dev + offsetof(struct control, release);
	CUdeviceptr status = E.ctl_dev + offsetof(struct control, spin_status);
	void *args[] = {&flag, &timeout_ns, &status};
	LAUNCH(w, E.k.spin, 1, 1, 0, w->seqs[0].stream, args);
}

static void run_step(struct worker *w, unsigned step)
{
	int planted = w->index == 0 && step == E.plan.step;
	enum fault_kind plant = planted ? E.opt.fault : FAULT_NONE;

	if (planted && E.opt.hang)
		plant_hang(w);
	for (unsigned si = 0; si < E.opt.streams; si++) {
		CUdeviceptr workspace = w->workspace;
		if (plant == FAULT_UAF && si == E.plan.stream) {
			/* Grow the workspace: allocate the new one, free the old one, but this
			 * sequence's attention still has the old pointer (like a stale plan). */
			CUdeviceptr bigger;
			CHECK(drv.MemAlloc(&bigger, 2 * WORKSPACE_BYTES));
			CHECK(drv.MemFree(w->workspace));
			say_planted(w, "workspace 0x%llx freed and replaced by 0x%llx",
				    (unsigned long long)workspace, (unsigned long long)bigger);
			w->workspace = bigger;
		}
		if (plant == FAULT_MULTISTREAM && si > 0)
			CHECK(drv.StreamWaitEvent(w->seqs[si].stream, E.fault_event, 0));
		forward(w, si, step, si == E.plan.stream ? plant : FAULT_NONE, workspace);
		if (plant == FAULT_MULTISTREAM && si == 0)
			CHECK(drv.EventRecord(E.fault_event, w->seqs[0].stream));
		if (plant == FAULT_CROSSTHREAD && si == 0) {
			/* Hand the step's completion to thread 1 and make no CUDA call until it
			 * has seen the outcome: the error must surface on the other thread. */
			if (engine_verbose)
				fprintf(stderr,
					"miniengine: thread 0 (tid %d) launched the faulting "
					"paged_attention and hands its event to thread 1\n",
					(int)w->tid);
			E.handoff = w->seqs[0].done;
			set_flag(&E.handoff_posted);
			__atomic_store_n(&E.ctl->gate, 1, __ATOMIC_RELEASE); /* a store, no CUDA call */
			int never = 0;
			timed_wait_until(&never, 1, "thread 1 did not observe a CUDA error");
		}
	}
	if (plant != FAULT_NONE && plant != FAULT_BADLAUNCH && plant != FAULT_CROSSTHREAD) {
		/* Every other worker has queued its step too before the gate opens: then no
		 * launch can meet the error, which surfaces at a cuEventSynchronize. */
		timed_wait_until(&E.queued, (int)E.opt.threads - 1,
				 "the other workers did not queue their step");
		if (engine_verbose)
			fprintf(stderr,
				"miniengine: thread 0 (tid %d): step %u queued on all %u stream(s) of "
				"all %u thread(s); opening the gate in front of the fault on stream 0\n",
				(int)w->tid, step, E.opt.streams, E.opt.threads);
		__atomic_store_n(&E.ctl->gate, 1, __ATOMIC_RELEASE);
	} else if (w->index != 0 && E.opt.fault != FAULT_NONE && step == E.plan.step) {
		count_up(&E.queued);
	}
	if (E.opt.hold)
		__atomic_store_n(&E.ctl->hold[w->index], step + 1, __ATOMIC_RELEASE);
	if (planted && E.opt.hang) {
		/* Tests wait for this line before inspecting the live process. */
		fprintf(stderr,
			"miniengine: hang planted: stream 0 of thread 0 is blocked behind spin_wait; "
			"pid %d waits in cuEventSynchronize (on a GPU, SIGUSR1 releases it)\n",
			(int)getpid());
		fflush(stderr);
	}
	for (unsigned si = 0; si < E.opt.streams; si++) {
		struct seq *q = &w->seqs[si];
		CHECK(drv.EventSynchronize(q->done));
		int token = *q->host_token % VOCAB;
		if (token < 0)
			token += VOCAB;
		*q->host_token = token;
		w->checksum = w->checksum * 1000003u + (unsigned)token;
	}
	if (planted && E.opt.hang && E.ctl->spin_status == 2 && !E.opt.quiet)
		fprintf(stderr, "miniengine: spin_wait timed out after %u s (--hang-timeout)\n",
			E.opt.hang_timeout_s);
	if (plant != FAULT_NONE)
		engine_die(3,
			   "--fault %s: step %u completed without a CUDA error; the planted fault "
			   "did not surface",
			   fault_names[plant], step);
}

/* Thread 1 under --fault crossthread: wait for thread 0's event and synchronize on it. */
static void observe_handoff(struct worker *w)
{
	timed_wait_until(&E.handoff_posted, 1, "thread 0 did not hand over its event");
	if (engine_verbose)
		fprintf(stderr, "miniengine: thread 1 (tid %d) synchronizes on thread 0's event\n",
			(int)w->tid);
	CHECK(drv.EventSynchronize(E.handoff));
	engine_die(3, "--fault crossthread: thread 0's work completed without a CUDA error; the "
		      "planted fault did not surface");
}

static void setup_worker(struct worker *w)
{
	unsigned S = E.opt.streams;
	CHECK(drv.MemHostAlloc((void **)&w->host_tokens, S * sizeof(int), CU_MEMHOSTALLOC_PORTABLE));
	CHECK(drv.MemAlloc(&w->workspace, WORKSPACE_BYTES));
	for (unsigned si = 0; si < S; si++) {
		struct seq *q = &w->seqs[si];
		if (E.opt.ptsz && si == 0)
			q->stream = NULL; /* per-thread default stream through _ptsz entries */
		else
			CHECK(drv.StreamCreate(&q->stream, CU_STREAM_NON_BLOCKING));
		CHECK(drv.EventCreate(&q->done, CU_EVENT_DISABLE_TIMING));
		q->host_token = &w->host_tokens[si];
		*q->host_token = (int)((E.opt.seed + w->index * 31u + si * 7u) % VOCAB);
		/* Activations come from the stream-ordered pool, as in engines that use
		 * cudaMallocAsync. */
		CHECK(drv.MemAllocAsync(&q->x, DIM * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->h, DIM * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->qkv, 3 * DIM * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->att, DIM * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->mlp, HIDDEN * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->logits, VOCAB * sizeof(float), q->stream));
		CHECK(drv.MemAllocAsync(&q->token, 256, q->stream));
	}
}

static void teardown_worker(struct worker *w)
{
	for (unsigned si = 0; si < E.opt.streams; si++) {
		struct seq *q = &w->seqs[si];
		CUdeviceptr *bufs[] = {&q->x, &q->h, &q->qkv, &q->att, &q->mlp, &q->logits, &q->token};
		for (unsigned i = 0; i < sizeof bufs / sizeof *bufs; i++)
			CHECK(drv.MemFreeAsync(*bufs[i], q->stream));
		CHECK(drv.StreamSynchronize(q->stream));
		CHECK(drv.EventDestroy(q->done));
		if (q->stream)
			CHECK(drv.StreamDestroy(q->stream));
	}
	CHECK(drv.MemFree(w->workspace));
	CHECK(drv.MemFreeHost(w->host_tokens));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];
	snprintf(name, sizeof name, "engine-%u", w->index);
	pthread_setname_np(pthread_self(), name);
	w->tid = engine_tid();
	if (engine_verbose)
		fprintf(stderr, "miniengine: thread %u is tid %d (%s)\n", w->index, (int)w->tid, name);

	CHECK(drv.CtxSetCurrent(E.ctx));
	setup_worker(w);
	pthread_barrier_wait(&E.init_barrier); /* main now allocates the KV cache, last */
	pthread_barrier_wait(&E.init_barrier); /* page table and KV cache are being uploaded */
	for (unsigned si = 0; si < E.opt.streams; si++) {
		struct seq *q = &w->seqs[si];
		q->page_table = E.page_table +
				(size_t)(w->index * E.opt.streams + si) * E.pages_per_seq * sizeof(int);
		CHECK(drv.StreamWaitEvent(q->stream, E.ready, 0));
	}

	int faulting = E.opt.fault != FAULT_NONE;
	for (unsigned step = 0; step < E.opt.steps; step++) {
		pthread_barrier_wait(&E.step_barrier);
		if (faulting && step == E.plan.step && w->index != 0) {
			if (E.opt.fault == FAULT_CROSSTHREAD && w->index == 1)
				observe_handoff(w);
			timed_wait_until(&E.gate_open, 1, "worker 0 did not launch the planted fault");
		}
		run_step(w, step);
	}
	teardown_worker(w);
	return NULL;
}

static void release_hang(int sig)
{
	(void)sig;
	if (E.ctl)
		E.ctl->release = 1;
}

static void load_model(void)
{
	const struct options *o = &E.opt;
	float *staging[6 * MAX_LAYERS + 8];
	unsigned n = 0;
	float w_scale = 0.06f; /* ~1/sqrt(DIM): keeps activations in range */

	rng_state = o->seed * 0x9E3779B97F4A7C15ULL + 1;
	E.embed = upload_tensor((size_t)VOCAB * DIM, 1.0f, 0, staging, &n);
	for (unsigned l = 0; l < o->layers; l++) {
		struct layer_weights *lw = &E.layers[l];
		lw->attn_norm = upload_tensor(DIM, 0, 1.0f, staging, &n);
		lw->wqkv = upload_tensor((size_t)3 * DIM * DIM, w_scale, 0, staging, &n);
		lw->wo = upload_tensor((size_t)DIM * DIM, w_scale, 0, staging, &n);
		lw->mlp_norm = upload_tensor(DIM, 0, 1.0f, staging, &n);
		lw->w1 = upload_tensor((size_t)HIDDEN * DIM, w_scale, 0, staging, &n);
		lw->w2 = upload_tensor((size_t)DIM * HIDDEN, 0.04f, 0, staging, &n);
	}
	E.final_norm = upload_tensor(DIM, 0, 1.0f, staging, &n);
	E.lm_head = upload_tensor((size_t)VOCAB * DIM, w_scale, 0, staging, &n);
	CHECK(drv.StreamSynchronize(E.loader));
	for (unsigned i = 0; i < n; i++)
		free(staging[i]);
}

/* Page table (one row per sequence plus one stale row for the oob scenarios) and the KV cache.
 * The KV cache is allocated after every other buffer, as engines size it from what is left,
 * so nothing is allocated right after its end. */
static int *alloc_kv_cache(void)
{
	const struct options *o = &E.opt;
	size_t seqs = (size_t)o->threads * o->streams;
	E.pages_per_seq = (o->steps + PAGE_SIZE - 1) / PAGE_SIZE;
	size_t rows = seqs + 1, entries = rows * E.pages_per_seq;
	int *table = malloc(entries * sizeof *table);
	if (!table)
		engine_die(1, "out of host memory for the page table");
	for (size_t i = 0; i < seqs * E.pages_per_seq; i++)
		table[i] = (int)i;
	for (size_t i = 0; i < E.pages_per_seq; i++)
		table[seqs * E.pages_per_seq + i] = (int)(POISON_PAGE - i);
	CHECK(drv.MemAlloc(&E.page_table, entries * sizeof *table));
	E.poison_row = E.page_table + seqs * E.pages_per_seq * sizeof *table;
	CHECK(drv.MemcpyHtoDAsync(E.page_table, table, entries * sizeof *table, E.loader));

	E.plane_bytes = seqs * E.pages_per_seq * PAGE_SIZE * KV_DIM * sizeof(float);
	E.kv_bytes = (o->layers * 2 * E.plane_bytes + KV_ROUND - 1) / KV_ROUND * KV_ROUND;
	CHECK(drv.MemAlloc(&E.kv, E.kv_bytes));
	CHECK(drv.MemsetD32Async(E.kv, 0, E.kv_bytes / 4, E.loader));
	return table;
}

int main(int argc, char **argv)
{
	engine_prog = "miniengine";
	parse_options(argc, argv, &E.opt);
	const struct options *o = &E.opt;

	if (o->fault != FAULT_NONE || o->hang)
		plan_fault();
	if (o->bootstrap) {
		if (drv_open_bootstrap(o->ptsz, engine_verbose))
			return 1;
	} else {
		drv_open_direct(o->ptsz);
	}

	CUdevice dev;
	int count = 0;
	char dev_name[128] = "";
	CHECK(drv.Init(0));
	CHECK(drv.DeviceGetCount(&count));
	if (count < 1)
		engine_die(1, "no CUDA device");
	CHECK(drv.DeviceGet(&dev, 0));
	CHECK(drv.DeviceGetName(dev_name, sizeof dev_name, dev));
	CHECK(drv.DevicePrimaryCtxRetain(&E.ctx, dev));
	CHECK(drv.CtxSetCurrent(E.ctx));
	if (engine_verbose)
		fprintf(stderr, "miniengine: pid %d, device 0: %s, door %s, main thread tid %d\n",
			(int)getpid(), dev_name, drv.door, (int)engine_tid());

	CHECK(engine_load_kernels(&E.module, o->quiet));
	struct {
		CUfunction *f;
		const char *name;
	} fns[] = {
		{&E.k.embed, "embed_gather"},  {&E.k.rmsnorm, "rmsnorm"},
		{&E.k.matvec, KERNEL_MATVEC},  {&E.k.rope, "rope"},
		{&E.k.kv_append, "kv_append"}, {&E.k.attention, "paged_attention"},
		{&E.k.sample, "sample_token"}, {&E.k.spin, "spin_wait"},
	};
	for (unsigned i = 0; i < sizeof fns / sizeof *fns; i++)
		CHECK(drv.ModuleGetFunction(fns[i].f, E.module, fns[i].name));

	CHECK(drv.MemHostAlloc((void **)&E.ctl, 4096,
			       CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
	memset((void *)E.ctl, 0, sizeof *E.ctl);
	CHECK(drv.MemHostGetDevicePointer(&E.ctl_dev, (void *)E.ctl, 0));
	if (o->hang)
		signal(SIGUSR1, release_hang);

	CHECK(drv.StreamCreate(&E.loader, CU_STREAM_NON_BLOCKING));
	CHECK(drv.EventCreate(&E.ready, CU_EVENT_DISABLE_TIMING));
	CHECK(drv.EventCreate(&E.fault_event, CU_EVENT_DISABLE_TIMING));
	load_model();

	pthread_barrier_init(&E.init_barrier, NULL, o->threads + 1);
	pthread_barrier_init(&E.step_barrier, NULL, o->threads);
	for (unsigned t = 0; t < o->threads; t++) {
		E.workers[t].index = t;
		if (pthread_create(&E.workers[t].thread, NULL, worker_main, &E.workers[t]))
			engine_die(1, "cannot start worker thread %u", t);
	}
	pthread_barrier_wait(&E.init_barrier);
	int *table = alloc_kv_cache();
	CHECK(drv.EventRecord(E.ready, E.loader));
	pthread_barrier_wait(&E.init_barrier);

	unsigned long long checksum = 0;
	unsigned long launches = 0;
	for (unsigned t = 0; t < o->threads; t++) {
		pthread_join(E.workers[t].thread, NULL);
		checksum = checksum * 31 + E.workers[t].checksum;
		launches += E.workers[t].launches;
	}

	CHECK(drv.StreamSynchronize(E.loader));
	free(table);
	CHECK(drv_ctx_synchronize(E.ctx));
	CHECK(drv.MemFree(E.kv));
	CHECK(drv.MemFree(E.page_table));
	CHECK(drv.MemFree(E.embed));
	CHECK(drv.MemFree(E.final_norm));
	CHECK(drv.MemFree(E.lm_head));
	for (unsigned l = 0; l < o->layers; l++) {
		struct layer_weights *lw = &E.layers[l];
		CUdeviceptr all[] = {lw->attn_norm, lw->wqkv, lw->wo, lw->mlp_norm, lw->w1, lw->w2};
		for (unsigned i = 0; i < sizeof all / sizeof *all; i++)
			CHECK(drv.MemFree(all[i]));
	}
	CHECK(drv.EventDestroy(E.ready));
	CHECK(drv.EventDestroy(E.fault_event));
	CHECK(drv.StreamDestroy(E.loader));
	CHECK(drv.MemFreeHost((void *)E.ctl));
	CHECK(drv.ModuleUnload(E.module));
	CHECK(drv.DevicePrimaryCtxRelease(dev));

	if (!o->quiet)
		printf("miniengine: done: %u threads x %u streams, %u steps, %u layers, %lu "
		       "launches, door %s, token checksum %016llx\n",
		       o->threads, o->streams, o->steps, o->layers, launches, drv.door, checksum);
	return 0;
}
