/*
 * ncclengine: a tensor-parallel decode loop on N ranks, one process per GPU, on the driver API
 * and NCCL (docs/ENGINES.md).  As vLLM does, each rank loads libnccl.so.2 with dlopen and finds
 * its functions with dlsym (ncclengine-linked calls them through its own symbols, linked with
 * -lnccl, as PyTorch does).  Run without --rank it is the launcher: it makes the unique id, starts
 * N copies of itself with --rank and the usual launcher variables (RANK, WORLD_SIZE, LOCAL_RANK,
 * LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and waits for them; with --rank-dir PREFIX rank R
 * runs in the directory PREFIX<R> (made), so that each rank leaves its own core and snapshots.
 *
 * Each rank: a communicator of N ranks (ncclCommInitRank), a stream, and for every decode step
 * LAYERS times a column-parallel matvec (tp_matvec) followed by an all-reduce of its output, then
 * a sampling kernel (tp_sample) and a synchronization.  A watchdog thread, as PyTorch's, polls
 * ncclCommGetAsyncError and the step in flight; a step that has not finished after --watchdog
 * seconds is reported in PyTorch's words, the communicator aborted and the process aborted
 * (SIGABRT), which is how a hung rank dies under a serving engine.
 *
 * Planted faults (--fault, on rank --fault-rank at step --fault-step):
 *   device   the rank's first matvec of that step faults (the launcher sets CUDASIM_FAULT for
 *            that rank only): its synchronization returns CUDA_ERROR_ILLEGAL_ADDRESS and it
 *            aborts (CHECK); it never arrives at the step's all-reduce, so the others hang in
 *            it until their watchdogs abort them.
 *   desync   the rank skips the first all-reduce of that step: its collectives are one behind
 *            from there on; it finishes its loop, the others hang in their last all-reduce.
 *   api      the rank passes an invalid datatype to that all-reduce (ncclInvalidArgument); it
 *            says so, aborts its communicator and exits 1; the others hang.  With --split even
 *            and an even rank, it is the step's all-reduce of the split communicator instead:
 *            the other even ranks hang in that one, the odd ranks in the step's first
 *            all-reduce of the whole communicator.
 *
 * --split even: the even ranks also form a communicator of their own (ncclCommSplit, color 0;
 * the odd ranks pass NCCL_SPLIT_NOCOLOR), as pipeline stages or a second tensor-parallel group
 * do, and each step begins with an all-reduce on it, on the same stream.
 *
 * stdout: "ncclengine: rank R: ..." lines; the launcher's "ncclengine: rank R exited with status
 * S" / "was killed by signal S" for each rank.  Exit status: the launcher 0 when every rank
 * exited 0, else 1; a rank 0, or 1 (api), or dies by SIGABRT.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "engine.h"

static const char tp_ptx[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	".visible .entry tp_matvec(\n"
	"\t.param .u64 .ptr .global .align 4 tp_matvec_w,\n"
	"\t.param .u64 .ptr .global .align 4 tp_matvec_x,\n"
	"\t.param .u64 .ptr .global .align 4 tp_matvec_y,\n"
	"\t.param .u32 tp_matvec_rows,\n"
	"\t.param .u32 tp_matvec_cols\n"
	")\n"
	"{\n\tret;\n}\n"
	".visible .entry tp_sample(\n"
	"\t.param .u64 .ptr .global .align 4 tp_sample_x,\n"
	"\t.param .u64 .ptr .global .align 4 tp_sample_token,\n"
	"\t.param .u32 tp_sample_n\n"
	")\n"
	"{\n\tret;\n}\n";

#define HIDDEN 1024

/* The NCCL functions the engine calls. */
#define NCCL_FUNCS(X)                                                                          \
	X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommDestroy) X(ncclCommAbort)             \
	X(ncclCommGetAsyncError) X(ncclAllReduce) X(ncclGetErrorString) X(ncclGetLastError)    \
	X(ncclCommSplit)
#define NCCL_FIELD(f) __typeof__(&f) f;
static struct { NCCL_FUNCS(NCCL_FIELD) } nccl;

static void nccl_open(void)
{
#ifdef NCCLENGINE_LINKED
#define NCCL_LINK(f) nccl.f = f;
	NCCL_FUNCS(NCCL_LINK)
#else
	void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		engine_die(2, "cannot load libnccl.so.2: %s", dlerror());
#define NCCL_SYM(f)                                                                            \
	if (!(nccl.f = (__typeof__(nccl.f))dlsym(lib, #f)))                                    \
		engine_die(2, "libnccl.so.2 has no %s", #f);
	NCCL_FUNCS(NCCL_SYM)
#endif
}

/* Options. */
static const char *rank_dir; /* --rank-dir PREFIX: rank R runs in PREFIX<R>/ */
static int ranks = 2, steps = 20, layers = 2, rank = -1, fault_rank = -1, fault_step = -1;
static double watchdog_s = 5;
static const char *fault = "none";
static const char *split = "none";

/* ---- the launcher ---------------------------------------------------------------------------- */

static int launch(char **argv)
{
	ncclUniqueId id;
	ncclResult_t r = nccl.ncclGetUniqueId(&id);
	if (r != ncclSuccess)
		engine_die(1, "ncclGetUniqueId: %s", nccl.ncclGetErrorString(r));
	char hex[2 * NCCL_UNIQUE_ID_BYTES + 1];
	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)id.internal[i]);
	pid_t pids[64];
	for (int r2 = 0; r2 < ranks; r2++) {
		char rs[16], ws[16];
		snprintf(rs, sizeof rs, "%d", r2);
		snprintf(ws, sizeof ws, "%d", ranks);
		fflush(NULL);
		if ((pids[r2] = fork()) == 0) {
			setenv("NCCLENGINE_ID", hex, 1);
			setenv("RANK", rs, 1);
			setenv("LOCAL_RANK", rs, 1);
			setenv("WORLD_SIZE", ws, 1);
			setenv("LOCAL_WORLD_SIZE", ws, 1);
			setenv("MASTER_ADDR", "127.0.0.1", 1);
			setenv("MASTER_PORT", "29500", 1);
			if (!strcmp(fault, "device") && r2 == fault_rank) {
				/* The first matvec of the fault step, on this rank only. */
				char spec[64];
				snprintf(spec, sizeof spec, "tp_matvec@%d", fault_step * layers + 1);
				setenv("CUDASIM_FAULT", spec, 1);
			}
			/* One directory per rank, as a job leaves its cores on shared storage (the
			 * cores of one directory would all be named "core"). */
			if (rank_dir) {
				char dir[4096];
				snprintf(dir, sizeof dir, "%s%d", rank_dir, r2);
				if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || chdir(dir) != 0)
					engine_die(1, "%s: %s", dir, strerror(errno));
			}
			char *args[64];
			int n = 0;
			for (int i = 0; argv[i] && n < 60; i++)
				args[n++] = argv[i];
			args[n++] = "--rank";
			args[n++] = rs;
			args[n] = NULL;
			execv("/proc/self/exe", args);
			_exit(127);
		}
	}
	int worst = 0;
	for (int r2 = 0; r2 < ranks; r2++) {
		int st;
		while (waitpid(pids[r2], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st))
			printf("ncclengine: rank %d was killed by signal %d\n", r2, WTERMSIG(st));
		else
			printf("ncclengine: rank %d exited with status %d\n", r2, WEXITSTATUS(st));
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			worst = 1;
	}
	return worst;
}

/* ---- a rank ---------------------------------------------------------------------------------- */

static ncclComm_t comm;
static ncclComm_t sub;                  /* --split even: the even ranks' communicator, else NULL */
static CUstream stream;
static uint64_t colls;                  /* all-reduces issued */
static volatile uint64_t waiting_since; /* the step being waited for began (0: none) */
static volatile int waiting_step;
static volatile uint64_t waiting_coll;
static volatile int aborting;           /* the watchdog is taking the process down */
static volatile int finished;           /* the communicator is being destroyed */

static void *watchdog(void *arg)
{
	(void)arg;
	ncclResult_t last = ncclSuccess;
	while (!finished) {
		usleep(50000);
		if (finished)
			break;
		ncclResult_t e = ncclSuccess;
		nccl.ncclCommGetAsyncError(comm, &e);
		if (e != last && e != ncclSuccess)
			printf("ncclengine: rank %d: NCCL reports an asynchronous error: %s\n", rank,
			       nccl.ncclGetErrorString(e));
		last = e;
		uint64_t since = waiting_since;
		if (!since || engine_now_ns() - since < (uint64_t)(watchdog_s * 1e9))
			continue;
		/* PyTorch's ProcessGroupNCCL watchdog says it this way. */
		printf("ncclengine: [Rank %d] Watchdog caught collective operation timeout: "
		       "WorkNCCL(SeqNum=%llu, OpType=ALLREDUCE, NumelIn=%d, NumelOut=%d, "
		       "Timeout(ms)=%d) ran for %llu milliseconds before timing out.\n",
		       rank, (unsigned long long)waiting_coll, HIDDEN, HIDDEN, (int)(watchdog_s * 1000),
		       (unsigned long long)((engine_now_ns() - since) / 1000000));
		printf("ncclengine: rank %d: aborting the communicator (step %d)\n", rank, waiting_step);
		fflush(stdout);
		aborting = 1;
		if (sub)
			nccl.ncclCommAbort(sub);
		nccl.ncclCommAbort(comm);
		abort();
	}
	return NULL;
}

static void launch_kernel(CUfunction f, void **params)
{
	CHECK(cuLaunchKernel(f, HIDDEN / 128, 1, 1, 128, 1, 1, 0, stream, params, NULL));
}

static int run_rank(void)
{
	const char *hex = getenv("NCCLENGINE_ID");
	ncclUniqueId id;
	if (!hex || strlen(hex) != 2 * NCCL_UNIQUE_ID_BYTES)
		engine_die(2, "rank %d: NCCLENGINE_ID is missing (start ranks through the launcher)",
			   rank);
	for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		id.internal[i] = (char)v;
	}
	drv_open_direct(0); /* CHECK names errors through the driver table */
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction matvec, sample;
	int ndev = 0;
	CHECK(cuInit(0));
	CHECK(cuDeviceGetCount(&ndev));
	CHECK(cuDeviceGet(&dev, rank % (ndev ? ndev : 1)));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, tp_ptx));
	CHECK(cuModuleGetFunction(&matvec, mod, "tp_matvec"));
	CHECK(cuModuleGetFunction(&sample, mod, "tp_sample"));
	CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	CUdeviceptr w, x, y, token;
	unsigned rows = HIDDEN / (unsigned)ranks, cols = HIDDEN, n = HIDDEN;
	CHECK(cuMemAlloc(&w, (size_t)rows * cols * sizeof(float)));
	CHECK(cuMemAlloc(&x, HIDDEN * sizeof(float)));
	CHECK(cuMemAlloc(&y, HIDDEN * sizeof(float)));
	CHECK(cuMemAlloc(&token, sizeof(int)));

	ncclResult_t r = nccl.ncclCommInitRank(&comm, ranks, id, rank);
	if (r != ncclSuccess)
		engine_die(1, "rank %d: ncclCommInitRank: %s", rank, nccl.ncclGetErrorString(r));
	printf("ncclengine: rank %d of %d on device %d, pid %d\n", rank, ranks, (int)dev,
	       (int)getpid());
	fflush(stdout);
	if (!strcmp(split, "even")) {
		r = nccl.ncclCommSplit(comm, rank % 2 ? NCCL_SPLIT_NOCOLOR : 0, rank, &sub, NULL);
		if (r != ncclSuccess)
			engine_die(1, "rank %d: ncclCommSplit: %s", rank, nccl.ncclGetErrorString(r));
	}
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog, NULL);

	void *mv[] = { &w, &x, &y, &rows, &cols };
	void *sm[] = { &x, &token, &n };
	for (int step = 0; step < steps; step++) {
		if (sub) {
			bool here = rank == fault_rank && step == fault_step && !strcmp(fault, "api");
			if (here)
				printf("ncclengine: rank %d: planted: datatype 42 in the split "
				       "communicator's all-reduce %d\n", rank, step + 1);
			r = nccl.ncclAllReduce((void *)y, (void *)x, HIDDEN,
					       here ? (ncclDataType_t)42 : ncclFloat, ncclSum, sub, stream);
			if (r != ncclSuccess) {
				printf("ncclengine: rank %d: NCCL error in ncclAllReduce: %s (%s)\n", rank,
				       nccl.ncclGetErrorString(r), nccl.ncclGetLastError(sub));
				fflush(stdout);
				nccl.ncclCommAbort(sub);
				nccl.ncclCommAbort(comm);
				exit(1);
			}
		}
		for (int l = 0; l < layers; l++) {
			launch_kernel(matvec, mv);
			bool here = rank == fault_rank && step == fault_step && l == 0 &&
				    !(sub && !strcmp(fault, "api"));
			if (here && !strcmp(fault, "desync")) {
				printf("ncclengine: rank %d: planted: skipping all-reduce %llu (step %d)\n",
				       rank, (unsigned long long)colls + 1, step);
				continue;
			}
			ncclDataType_t dt = ncclFloat;
			if (here && !strcmp(fault, "api")) {
				dt = (ncclDataType_t)42;
				printf("ncclengine: rank %d: planted: datatype 42 in all-reduce %llu\n",
				       rank, (unsigned long long)colls + 1);
			}
			r = nccl.ncclAllReduce((void *)y, (void *)x, HIDDEN, dt, ncclSum, comm, stream);
			if (r == ncclUnhandledCudaError)
				/* The context is poisoned: a kernel of this rank faulted, and whether
				 * the all-reduce or the step's synchronization sees it first depends
				 * on timing.  Report the CUDA error the same way either time. */
				CHECK(cuStreamSynchronize(stream));
			if (r != ncclSuccess) {
				printf("ncclengine: rank %d: NCCL error in ncclAllReduce: %s (%s)\n", rank,
				       nccl.ncclGetErrorString(r), nccl.ncclGetLastError(comm));
				fflush(stdout);
				nccl.ncclCommAbort(comm);
				exit(1);
			}
			colls++;
		}
		launch_kernel(sample, sm);
		waiting_coll = colls;
		waiting_step = step;
		waiting_since = engine_now_ns();
		CHECK(cuStreamSynchronize(stream));
		while (aborting)
			pause(); /* the abort released the stream; the watchdog ends the process */
		waiting_since = 0;
	}
	finished = 1;
	pthread_join(wd, NULL);
	if (sub)
		nccl.ncclCommDestroy(sub);
	r = nccl.ncclCommDestroy(comm);
	printf("ncclengine: rank %d: %d steps, %llu all-reduces, destroy: %s\n", rank, steps,
	       (unsigned long long)colls, nccl.ncclGetErrorString(r));
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ncclengine [--ranks N] [--steps S] [--layers L] [--watchdog SEC]\n"
			"                  [--fault none|device|desync|api] [--fault-rank R] "
			"[--fault-step K] [--rank-dir PREFIX] [--rank R]\n"
			"                  [--split none|even]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	engine_prog = "ncclengine";
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		if (!strcmp(a, "--ranks"))
			ranks = (int)engine_parse_ulong(a, v, 1, 64);
		else if (!strcmp(a, "--steps"))
			steps = (int)engine_parse_ulong(a, v, 1, 1000000);
		else if (!strcmp(a, "--layers"))
			layers = (int)engine_parse_ulong(a, v, 1, 1000);
		else if (!strcmp(a, "--watchdog"))
			watchdog_s = atof(v);
		else if (!strcmp(a, "--fault"))
			fault = v;
		else if (!strcmp(a, "--fault-rank"))
			fault_rank = (int)engine_parse_ulong(a, v, 0, 63);
		else if (!strcmp(a, "--fault-step"))
			fault_step = (int)engine_parse_ulong(a, v, 0, 1000000);
		else if (!strcmp(a, "--split"))
			split = v;
		else if (!strcmp(a, "--rank-dir"))
			rank_dir = v;
		else if (!strcmp(a, "--rank"))
			rank = (int)engine_parse_ulong(a, v, 0, 63);
		else
			usage();
		i++;
	}
	if (strcmp(fault, "none") && strcmp(fault, "device") && strcmp(fault, "desync") &&
	    strcmp(fault, "api"))
		usage();
	if (strcmp(split, "none") && strcmp(split, "even"))
		usage();
	if (fault_rank < 0)
		fault_rank = ranks - 1;
	if (fault_step < 0)
		fault_step = steps / 2;
	if (watchdog_s <= 0)
		watchdog_s = 5;
	nccl_open();
	return rank < 0 ? launch(argv) : run_rank();
}
