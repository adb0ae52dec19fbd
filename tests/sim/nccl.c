/* The simulated NCCL (build/sim/libnccl.so.2): its semantics across processes.  The program
 * loads the library as vLLM does (dlopen of libnccl.so.2, dlsym of each function), makes a
 * unique id, then forks one process per rank before any CUDA call; each rank reports its checks
 * into shared memory and the parent prints them as TAP, rank by rank.
 *
 *   nccl SCENARIO [NRANKS]     allreduce, missing, poisoned, p2p, split, initall, errors,
 *                              nonblocking, desync (docs/SIMULATOR.md, "The simulated NCCL")
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop

#include "simtest.h"

/* The NCCL functions, by dlsym. */
#define FUNCS(X)                                                                              \
	X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommInitRankConfig) X(ncclCommInitAll)   \
	X(ncclCommSplit) X(ncclCommDestroy) X(ncclCommAbort) X(ncclCommFinalize)              \
	X(ncclCommGetAsyncError) X(ncclCommCount) X(ncclCommUserRank) X(ncclCommCuDevice)     \
	X(ncclAllReduce) X(ncclBroadcast) X(ncclSend) X(ncclRecv) X(ncclGroupStart)           \
	X(ncclGroupEnd) X(ncclGetVersion) X(ncclGetErrorString) X(ncclGetLastError)
#define FIELD(f) __typeof__(&f) f;
static struct { FUNCS(FIELD) } N;

/* Results of the ranks, in shared memory: one line each. */
#define MAX_LINES 256
struct line {
	int pass;
	int rank;
	char text[120];
};
static struct results {
	int n;
	struct line l[MAX_LINES];
} *R;
static int me = -1;

__attribute__((format(printf, 2, 3))) static int check(int cond, const char *fmt, ...)
{
	int i = __atomic_fetch_add(&R->n, 1, __ATOMIC_SEQ_CST);
	if (i >= MAX_LINES)
		return cond;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(R->l[i].text, sizeof R->l[i].text, fmt, ap);
	va_end(ap);
	R->l[i].pass = cond;
	R->l[i].rank = me;
	return cond;
}
#define NOK(call) (call) == ncclSuccess

static ncclUniqueId ID;
static int NRANKS;
static CUcontext ctx;
static CUstream stream;
static CUdeviceptr buf;

/* This rank's context, stream, buffer and communicator. */
static ncclComm_t join(void)
{
	ctx = simtest_setup(NULL);
	MUST(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	MUST(cuMemAlloc(&buf, 4096));
	ncclComm_t comm = NULL;
	check(NOK(N.ncclCommInitRank(&comm, NRANKS, ID, me)), "init rank %d of %d", me, NRANKS);
	return comm;
}

static ncclResult_t allreduce(ncclComm_t comm)
{
	return N.ncclAllReduce((void *)buf, (void *)buf, 256, ncclFloat, ncclSum, comm, stream);
}

/* How long the stream took to finish (ms), or -1 when it did not within LIMIT ms. */
static double drain(double limit)
{
	double t0 = simtest_now_ms();
	while (cuStreamQuery(stream) == CUDA_ERROR_NOT_READY) {
		if (simtest_now_ms() - t0 > limit)
			return -1;
		usleep(2000);
	}
	return simtest_now_ms() - t0;
}

/* Every rank makes ten all-reduces; the last rank comes 300 ms late to the first. */
static void s_allreduce(void)
{
	ncclComm_t comm = join();
	int count = 0, rank = -1;
	N.ncclCommCount(comm, &count);
	N.ncclCommUserRank(comm, &rank);
	check(count == NRANKS && rank == me, "count %d, rank %d", count, rank);
	if (me == NRANKS - 1)
		usleep(300000);
	int ok_all = 1;
	for (int i = 0; i < 10; i++)
		ok_all &= allreduce(comm) == ncclSuccess;
	check(ok_all, "ten all-reduces enqueued");
	if (me == 0) {
		usleep(100000);
		check(cuStreamQuery(stream) == CUDA_ERROR_NOT_READY,
		      "while the last rank has not arrived, the stream has work pending");
	}
	double ms = drain(5000);
	check(ms >= 0, "the stream finished once every rank arrived (%.0f ms)", ms);
	ncclResult_t e = ncclInternalError;
	N.ncclCommGetAsyncError(comm, &e);
	check(e == ncclSuccess, "no asynchronous error");
	check(NOK(N.ncclCommDestroy(comm)), "destroy");
}

/* The last rank never calls the collective: the others stay blocked until it aborts; then they
 * see a remote error, abort, and their streams go on. */
static void s_missing(void)
{
	ncclComm_t comm = join();
	if (me == NRANKS - 1) {
		usleep(600000);
		check(NOK(N.ncclCommAbort(comm)), "the missing rank aborts");
		return;
	}
	check(NOK(allreduce(comm)), "all-reduce enqueued");
	usleep(300000);
	check(cuStreamQuery(stream) == CUDA_ERROR_NOT_READY, "blocked while a rank has not arrived");
	ncclResult_t e = ncclInternalError;
	N.ncclCommGetAsyncError(comm, &e);
	check(e == ncclSuccess, "no error yet (the rank is alive): %d", e);
	double t0 = simtest_now_ms();
	do {
		usleep(20000);
		N.ncclCommGetAsyncError(comm, &e);
	} while (e == ncclSuccess && simtest_now_ms() - t0 < 5000);
	check(e == ncclRemoteError, "after the missing rank aborted: ncclRemoteError (%d)", e);
	check(cuStreamQuery(stream) == CUDA_ERROR_NOT_READY, "still blocked");
	check(NOK(N.ncclCommAbort(comm)), "abort");
	check(drain(3000) >= 0, "abort released the stream");
}

/* Rank 0's context is poisoned by a faulting kernel: its later collectives fail. */
static void s_poisoned(void)
{
	ncclComm_t comm = join();
	CUmodule mod;
	CUfunction bad;
	MUST(cuModuleLoadData(&mod, simtest_ptx));
	MUST(cuModuleGetFunction(&bad, mod, "bad_kernel"));
	check(NOK(allreduce(comm)), "first all-reduce");
	check(drain(5000) >= 0, "first all-reduce finished");
	if (me == 0) {
		void *params[] = { &buf };
		MUST(cuLaunchKernel(bad, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
		check(cuStreamSynchronize(stream) == CUDA_ERROR_ILLEGAL_ADDRESS, "the kernel faulted");
		ncclResult_t r = allreduce(comm);
		check(r == ncclUnhandledCudaError, "the next all-reduce fails: %s",
		      N.ncclGetErrorString(r));
		ncclResult_t e = ncclSuccess;
		N.ncclCommGetAsyncError(comm, &e);
		check(e == ncclUnhandledCudaError, "and the communicator reports it (%d)", e);
		check(N.ncclGetLastError(comm)[0] != 0, "last error: %s", N.ncclGetLastError(comm));
		N.ncclCommAbort(comm);
		return;
	}
	check(NOK(allreduce(comm)), "second all-reduce enqueued");
	check(drain(600) < 0, "it never completes: rank 0 never arrives");
	check(NOK(N.ncclCommAbort(comm)), "abort");
	check(drain(3000) >= 0, "released");
}

/* Sends and receives around a ring, in a group; then a pair in order without a group. */
static void s_p2p(void)
{
	ncclComm_t comm = join();
	int next = (me + 1) % NRANKS, prev = (me + NRANKS - 1) % NRANKS;
	check(NOK(N.ncclGroupStart()), "group start");
	check(NOK(N.ncclSend((void *)buf, 64, ncclInt32, next, comm, stream)), "send to %d", next);
	check(NOK(N.ncclRecv((void *)(buf + 1024), 64, ncclInt32, prev, comm, stream)),
	      "receive from %d", prev);
	check(NOK(N.ncclGroupEnd()), "group end");
	check(drain(5000) >= 0, "the ring completed");
	if (me < 2 && NRANKS >= 2) {
		ncclResult_t a, b;
		if (me == 0) {
			a = N.ncclSend((void *)buf, 8, ncclInt32, 1, comm, stream);
			b = N.ncclRecv((void *)buf, 8, ncclInt32, 1, comm, stream);
		} else {
			a = N.ncclRecv((void *)buf, 8, ncclInt32, 0, comm, stream);
			b = N.ncclSend((void *)buf, 8, ncclInt32, 0, comm, stream);
		}
		check(a == ncclSuccess && b == ncclSuccess, "send/receive pair without a group");
		check(drain(5000) >= 0, "the pair completed");
	}
	check(NOK(N.ncclCommDestroy(comm)), "destroy");
}

/* Split by parity: two communicators of half the ranks, ranks by key. */
static void s_split(void)
{
	ncclComm_t comm = join(), child = NULL, none = (ncclComm_t)1;
	check(NOK(N.ncclCommSplit(comm, me % 2, me, &child, NULL)), "split by parity");
	int count = 0, rank = -1;
	N.ncclCommCount(child, &count);
	N.ncclCommUserRank(child, &rank);
	check(count == (NRANKS + 1 - me % 2) / 2 && rank == me / 2, "child: rank %d of %d", rank,
	      count);
	check(NOK(N.ncclAllReduce((void *)buf, (void *)buf, 16, ncclFloat, ncclMax, child, stream)),
	      "all-reduce in the child");
	check(drain(5000) >= 0, "completed among the child's ranks");
	check(NOK(N.ncclCommSplit(comm, me == 0 ? 0 : NCCL_SPLIT_NOCOLOR, 0, &none, NULL)),
	      "second split, only rank 0 has a color");
	check(me == 0 ? none != NULL : none == NULL, "NCCL_SPLIT_NOCOLOR gives no communicator");
	if (none)
		N.ncclCommDestroy(none);
	N.ncclCommDestroy(child);
	N.ncclCommDestroy(comm);
}

/* One process, two devices (CUDASIM_DEVICES=2): ncclCommInitAll and a grouped all-reduce. */
static void s_initall(void)
{
	ctx = simtest_setup(NULL);
	ncclComm_t comms[2] = { 0 };
	check(NOK(N.ncclCommInitAll(comms, 2, NULL)), "ncclCommInitAll on 2 devices");
	CUstream st[2];
	CUdeviceptr b[2];
	for (int i = 0; i < 2; i++) {
		int dev = -1;
		N.ncclCommCuDevice(comms[i], &dev);
		check(dev == i, "communicator %d is on device %d", i, dev);
		CUcontext c;
		MUST(cuDevicePrimaryCtxRetain(&c, i));
		MUST(cuCtxSetCurrent(c));
		MUST(cuStreamCreate(&st[i], 0));
		MUST(cuMemAlloc(&b[i], 256));
	}
	check(NOK(N.ncclGroupStart()), "group start");
	for (int i = 0; i < 2; i++)
		check(NOK(N.ncclAllReduce((void *)b[i], (void *)b[i], 8, ncclInt64, ncclSum, comms[i],
					  st[i])), "all-reduce of rank %d", i);
	check(NOK(N.ncclGroupEnd()), "group end");
	for (int i = 0; i < 2; i++) {
		CUcontext c;
		MUST(cuDevicePrimaryCtxRetain(&c, i));
		MUST(cuCtxSetCurrent(c));
		check(cuStreamSynchronize(st[i]) == CUDA_SUCCESS, "rank %d finished", i);
	}
}

/* Documented argument errors, in one process of one rank. */
static void s_errors(void)
{
	ncclComm_t comm = join();
	int v = 0;
	N.ncclGetVersion(&v);
	check(v == NCCL_VERSION_CODE, "version %d", v);
	check(N.ncclAllReduce((void *)buf, (void *)buf, 1, (ncclDataType_t)99, ncclSum, comm,
			      stream) == ncclInvalidArgument, "bad datatype: ncclInvalidArgument");
	check(N.ncclAllReduce((void *)buf, (void *)buf, 1, ncclFloat, (ncclRedOp_t)77, comm,
			      stream) == ncclInvalidArgument, "bad reduction: ncclInvalidArgument");
	check(N.ncclAllReduce(NULL, (void *)buf, 1, ncclFloat, ncclSum, comm, stream) ==
		      ncclInvalidArgument, "NULL buffer: ncclInvalidArgument");
	check(N.ncclBroadcast((void *)buf, (void *)buf, 1, ncclFloat, 5, comm, stream) ==
		      ncclInvalidArgument, "root out of range: ncclInvalidArgument");
	check(N.ncclAllReduce((void *)buf, (void *)buf, 1, ncclFloat, ncclSum, NULL, stream) ==
		      ncclInvalidArgument, "NULL communicator: ncclInvalidArgument");
	check(strstr(N.ncclGetLastError(comm), "communicator") != NULL, "last error: %s",
	      N.ncclGetLastError(comm));
	check(N.ncclGroupEnd() == ncclInvalidUsage, "ncclGroupEnd without a start: ncclInvalidUsage");
	ncclUniqueId bad;
	memset(&bad, 7, sizeof bad);
	ncclComm_t other;
	check(N.ncclCommInitRank(&other, 1, bad, 0) == ncclInvalidArgument,
	      "a unique id ncclGetUniqueId did not make: ncclInvalidArgument");
	check(NOK(N.ncclCommDestroy(comm)), "destroy");
	check(N.ncclAllReduce((void *)buf, (void *)buf, 1, ncclFloat, ncclSum, comm, stream) ==
		      ncclInvalidArgument, "a destroyed communicator: ncclInvalidArgument");
}

/* A nonblocking communicator: ncclInProgress until every rank joined. */
static void s_nonblocking(void)
{
	ctx = simtest_setup(NULL);
	MUST(cuStreamCreate(&stream, 0));
	MUST(cuMemAlloc(&buf, 4096));
	if (me == 1)
		usleep(300000);
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	cfg.blocking = 0;
	ncclComm_t comm = NULL;
	ncclResult_t r = N.ncclCommInitRankConfig(&comm, NRANKS, ID, me, &cfg);
	if (me == 0)
		check(r == ncclInProgress, "rank 0 first: ncclInProgress (%d)", r);
	ncclResult_t e;
	double t0 = simtest_now_ms();
	do
		N.ncclCommGetAsyncError(comm, &e);
	while (e == ncclInProgress && simtest_now_ms() - t0 < 5000);
	check(e == ncclSuccess, "then ncclSuccess once both joined");
	check(NOK(allreduce(comm)) && drain(5000) >= 0, "all-reduce");
	N.ncclCommDestroy(comm);
}

/* Rank 1 skips the second of three collectives: the other ranks' third never completes. */
static void s_desync(void)
{
	ncclComm_t comm = join();
	int n = me == 1 ? 2 : 3;
	for (int i = 0; i < n; i++)
		allreduce(comm);
	if (me == 1) {
		check(drain(5000) >= 0, "rank 1: its two collectives finished");
		usleep(700000);
		N.ncclCommAbort(comm);
		return;
	}
	check(drain(500) < 0, "rank %d: its third collective never finishes", me);
	N.ncclCommAbort(comm);
}

static const struct {
	const char *name;
	void (*fn)(void);
	int nranks;
} scenarios[] = {
	{ "allreduce", s_allreduce, 3 }, { "missing", s_missing, 3 },   { "poisoned", s_poisoned, 2 },
	{ "p2p", s_p2p, 4 },		 { "split", s_split, 4 },	{ "initall", s_initall, 1 },
	{ "errors", s_errors, 1 },	 { "nonblocking", s_nonblocking, 2 }, { "desync", s_desync, 3 },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: nccl SCENARIO [NRANKS]\n");
		return 2;
	}
	void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("Bail out! dlopen libnccl.so.2: %s\n", dlerror());
		return 1;
	}
#define LOOKUP(f)                                                                             \
	if (!(N.f = (__typeof__(N.f))dlsym(lib, #f))) {                                       \
		printf("Bail out! libnccl.so.2 has no %s\n", #f);                             \
		return 1;                                                                     \
	}
	FUNCS(LOOKUP)
	R = mmap(NULL, sizeof *R, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (size_t s = 0; s < sizeof scenarios / sizeof scenarios[0]; s++) {
		if (strcmp(argv[1], scenarios[s].name))
			continue;
		NRANKS = argc > 2 ? atoi(argv[2]) : scenarios[s].nranks;
		if (N.ncclGetUniqueId(&ID) != ncclSuccess) {
			printf("Bail out! ncclGetUniqueId\n");
			return 1;
		}
		pid_t pids[64];
		for (int r = 0; r < NRANKS && r < 64; r++) {
			if ((pids[r] = fork()) == 0) {
				me = r;
				scenarios[s].fn();
				_exit(0);
			}
		}
		int clean = 1;
		for (int r = 0; r < NRANKS && r < 64; r++) {
			int st;
			waitpid(pids[r], &st, 0);
			clean &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
		}
		plan(R->n + 1);
		for (int r = 0; r < NRANKS; r++)
			for (int i = 0; i < R->n && i < MAX_LINES; i++)
				if (R->l[i].rank == r)
					ok(R->l[i].pass, "%s: rank %d: %s", argv[1], r, R->l[i].text);
		ok(clean, "%s: every rank exited 0", argv[1]);
		return done_testing();
	}
	fprintf(stderr, "nccl: no scenario %s\n", argv[1]);
	return 2;
}
