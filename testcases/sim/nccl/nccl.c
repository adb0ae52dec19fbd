/* SPDX-License-Identifier: MIT */
/*
 * The simulated NCCL, build/sim/libnccl.so.2 (docs/SIMULATOR.md, "The simulated NCCL"): the
 * communicator, collective, point-to-point and group calls of nccl.h (2.28), with its exact
 * signatures and documented semantics, for processes on one machine, on top of the CUDA driver
 * (the simulated one in the tests) through its public API only.
 *
 * A communicator is a POSIX shared-memory object named from the unique id's random bytes; each
 * rank maps it and registers the mapping with cuMemHostRegister, so that its streams can wait
 * on words there.  A call is work on its stream, as on a GPU: an arrival (a host function that
 * runs when the stream reaches the call) and a wait (cuStreamWaitValue64 on a word of the
 * calling rank) that passes when the call is complete:
 *   - collective number k: every rank of the communicator has arrived at its k-th collective
 *     (the last rank to arrive releases everyone's wait);
 *   - send number m to p: p's stream reached its m-th receive from this rank, and the other way
 *     round for a receive.
 * So a rank that never arrives leaves the others' streams blocked, as on real hardware, and
 * anything queued behind them waits too.  ncclCommAbort releases the calling rank's waits (and
 * tells the others, whose ncclCommGetAsyncError then reports ncclRemoteError while they wait);
 * a poisoned context fails the rank's later calls with ncclUnhandledCudaError, as the driver
 * refuses the work.  A group (ncclGroupStart/End) queues its calls and enqueues them at the
 * outermost ncclGroupEnd, every arrival before any wait, so sends and receives in one group
 * progress together.  No data moves (kernels compute nothing in the simulator either).
 */
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
/* nccl.h declares these without a prototype. */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

#define SN_EXPORT __attribute__((visibility("default")))
#define SN_MAX_RANKS 64
#define SN_MAGIC "SIMNCCL1"
#define SN_SHM_MAGIC 0x4c43434e4d495343ull /* "CSIMNCCL" */
#define SN_COMM_MAGIC 0x6e63636c636f6d6dull
#define SN_DEAD_MAGIC 0x646561646465616dull
/* A released wait: far above any count, and still "greater or equal" cyclically. */
#define SN_RELEASED (1ull << 62)

enum { SN_FREE, SN_JOINED, SN_ABORTED, SN_DESTROYED };

/* The shared object of one communicator.  Counters written by the arrivals (host functions on
 * the ranks' streams) and the wait words the streams wait on (gates), written by whichever
 * arrival completes a call, or by ncclCommAbort for its own rank. */
struct sn_shm {
	uint64_t magic;
	int32_t nranks;           /* set by the first rank to join (atomic) */
	int32_t joined;           /* atomic */
	struct {
		int32_t state;    /* SN_* (atomic) */
		int32_t pid;
		int32_t device;
		int32_t split_seq; /* the last ncclCommSplit this rank posted (atomic) */
		int32_t color[2], key[2]; /* by split_seq % 2 */
		uint64_t coll;    /* collectives this rank's stream reached (atomic) */
		uint64_t coll_gate; /* its streams wait here for collectives */
	} rank[SN_MAX_RANKS];
	uint64_t sent[SN_MAX_RANKS][SN_MAX_RANKS];      /* [src][dst]: sends src's stream reached */
	uint64_t posted[SN_MAX_RANKS][SN_MAX_RANKS];    /* [dst][src]: receives dst's reached */
	uint64_t send_gate[SN_MAX_RANKS][SN_MAX_RANKS]; /* [src][dst]: src's send waits here */
	uint64_t recv_gate[SN_MAX_RANKS][SN_MAX_RANKS]; /* [dst][src]: dst's receive waits here */
};

struct sn_comm {
	uint64_t magic;           /* SN_COMM_MAGIC while usable, SN_DEAD_MAGIC after */
	struct sn_shm *shm;
	uint8_t id[NCCL_UNIQUE_ID_BYTES];
	int rank, nranks, device;
	int blocking;
	int ready;                /* every rank joined */
	int aborted, finalized;
	ncclResult_t async;       /* sticky asynchronous error */
	uint64_t colls;           /* collectives enqueued */
	uint64_t sends[SN_MAX_RANKS], recvs[SN_MAX_RANKS]; /* enqueued, by peer */
	int splits;
};

/* ---- errors -------------------------------------------------------------------------------- */

static __thread char sn_last_error[256];

static ncclResult_t sn_fail(ncclResult_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ncclResult_t sn_fail(ncclResult_t r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(sn_last_error, sizeof sn_last_error, fmt, ap);
	va_end(ap);
	if (getenv("CUDASIM_VERBOSE") && *getenv("CUDASIM_VERBOSE") == '1')
		fprintf(stderr, "cudasim-nccl: %s\n", sn_last_error);
	return r;
}

SN_EXPORT const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case ncclSuccess: return "no error";
	case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError: return "remote process exited or there was a network error";
	case ncclInProgress: return "NCCL operation in progress";
	default: return "unknown result code";
	}
}

SN_EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
	(void)comm;
	return sn_last_error;
}

SN_EXPORT ncclResult_t ncclGetVersion(int *version)
{
	if (!version)
		return sn_fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
	*version = NCCL_VERSION_CODE;
	return ncclSuccess;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static void sn_sleep_us(unsigned us)
{
	struct timespec ts = { 0, (long)us * 1000 };
	nanosleep(&ts, NULL);
}

static uint64_t sn_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* *P = max(*P, V): gates only ever go up, so a release (abort) sticks. */
static void sn_raise(uint64_t *p, uint64_t v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST,
						       __ATOMIC_RELAXED))
		;
}

/* Whether rank process PID is still there for its peers.  Real NCCL sees a peer go when its
 * sockets close, at its exit: a zombie (exited, not yet reaped by its launcher, which may be
 * waiting for another rank first) is gone.  A process writing its core dump has not exited. */
static int sn_alive(pid_t pid)
{
	if (pid <= 0)
		return 1;
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return 0;
	char path[40], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	const char *state = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold ')' */
	return !state || state[1] != ' ' || (state[2] != 'Z' && state[2] != 'X');
}

static struct sn_comm *sn_comm(ncclComm_t h)
{
	struct sn_comm *c = (struct sn_comm *)h;
	return c && c->magic == SN_COMM_MAGIC ? c : NULL;
}

static ncclResult_t sn_cuda(CUresult r, const char *what)
{
	if (r == CUDA_SUCCESS)
		return ncclSuccess;
	const char *name = "?";
	cuGetErrorName(r, &name);
	return sn_fail(ncclUnhandledCudaError, "%s failed: %s", what, name);
}

/* ---- unique ids and joining ------------------------------------------------------------------ */

SN_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	if (!id)
		return sn_fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
	memset(id, 0, sizeof *id);
	memcpy(id->internal, SN_MAGIC, 8);
	if (getrandom(id->internal + 8, 16, 0) != 16)
		return sn_fail(ncclSystemError, "getrandom: %s", strerror(errno));
	pid_t pid = getpid();
	memcpy(id->internal + 24, &pid, sizeof pid);
	return ncclSuccess;
}

/* Map the communicator of ID (created by whichever rank comes first). */
static ncclResult_t sn_shm_open(const uint8_t *id, struct sn_shm **ret)
{
	char name[64];
	int n = snprintf(name, sizeof name, "/cudasim-nccl-");
	for (int i = 8; i < 24; i++)
		n += snprintf(name + n, sizeof name - (size_t)n, "%02x", id[i]);
	int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return sn_fail(ncclSystemError, "shm_open %s: %s", name, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || (st.st_size < (off_t)sizeof(struct sn_shm) &&
			       ftruncate(fd, sizeof(struct sn_shm)))) {
		close(fd);
		return sn_fail(ncclSystemError, "sizing %s: %s", name, strerror(errno));
	}
	void *m = mmap(NULL, sizeof(struct sn_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return sn_fail(ncclSystemError, "mmap %s: %s", name, strerror(errno));
	struct sn_shm *s = m;
	uint64_t zero = 0;
	__atomic_compare_exchange_n(&s->magic, &zero, SN_SHM_MAGIC, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	*ret = s;
	return ncclSuccess;
}

static void sn_shm_unlink(const uint8_t *id)
{
	char name[64];
	int n = snprintf(name, sizeof name, "/cudasim-nccl-");
	for (int i = 8; i < 24; i++)
		n += snprintf(name + n, sizeof name - (size_t)n, "%02x", id[i]);
	shm_unlink(name);
}

/* Join communicator ID as RANK of NRANKS in the current context, without waiting for the
 * others (sn_wait_joined does). */
static ncclResult_t sn_join(const uint8_t *id, int nranks, int rank, int blocking,
			    struct sn_comm **ret)
{
	if (memcmp(id, SN_MAGIC, 8))
		return sn_fail(ncclInvalidArgument, "the unique id was not made by ncclGetUniqueId");
	if (nranks < 1 || nranks > SN_MAX_RANKS)
		return sn_fail(ncclInvalidArgument, "nranks %d: the simulated NCCL supports 1 to %d",
			       nranks, SN_MAX_RANKS);
	if (rank < 0 || rank >= nranks)
		return sn_fail(ncclInvalidArgument, "rank %d is not in [0, %d)", rank, nranks);
	CUcontext ctx = NULL;
	CUdevice dev = 0;
	if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx || cuCtxGetDevice(&dev) != CUDA_SUCCESS)
		return sn_fail(ncclUnhandledCudaError,
			       "no current CUDA context: make the rank's device current first");
	struct sn_shm *s = NULL;
	ncclResult_t r = sn_shm_open(id, &s);
	if (r)
		return r;
	int32_t want = 0;
	if (!__atomic_compare_exchange_n(&s->nranks, &want, nranks, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST) &&
	    want != nranks)
		return sn_fail(ncclInvalidArgument, "rank %d says %d ranks, another rank said %d", rank,
			       nranks, want);
	int32_t free_state = SN_FREE;
	if (!__atomic_compare_exchange_n(&s->rank[rank].state, &free_state, SN_JOINED, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return sn_fail(ncclInvalidUsage, "rank %d joined the communicator twice", rank);
	s->rank[rank].pid = getpid();
	s->rank[rank].device = dev;
	CUresult cr = cuMemHostRegister(s, sizeof *s,
					CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
	if (cr != CUDA_SUCCESS && cr != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
		return sn_cuda(cr, "cuMemHostRegister of the communicator");
	struct sn_comm *c = calloc(1, sizeof *c);
	if (!c)
		return sn_fail(ncclSystemError, "out of memory");
	c->magic = SN_COMM_MAGIC;
	c->shm = s;
	memcpy(c->id, id, sizeof c->id);
	c->rank = rank;
	c->nranks = nranks;
	c->device = dev;
	c->blocking = blocking;
	if (__atomic_add_fetch(&s->joined, 1, __ATOMIC_SEQ_CST) == nranks)
		sn_shm_unlink(id); /* everyone has it mapped: nothing is left behind */
	*ret = c;
	return ncclSuccess;
}

/* Whether every rank joined (a rank gone meanwhile is a remote error). */
static ncclResult_t sn_joined(struct sn_comm *c)
{
	if (c->ready)
		return ncclSuccess;
	if (__atomic_load_n(&c->shm->joined, __ATOMIC_SEQ_CST) >= c->nranks) {
		c->ready = 1;
		return ncclSuccess;
	}
	return ncclInProgress;
}

static ncclResult_t sn_wait_joined(struct sn_comm *c)
{
	while (sn_joined(c) == ncclInProgress)
		sn_sleep_us(1000);
	return ncclSuccess;
}

/* ---- groups (per thread) ------------------------------------------------------------------- */

enum sn_kind { SN_COLL, SN_SEND, SN_RECV };
struct sn_op {
	enum sn_kind kind;
	struct sn_comm *c;
	CUstream stream;
	int peer;
};
static __thread int sn_group_depth;
static __thread struct sn_op *sn_group_ops;
static __thread size_t sn_group_n, sn_group_cap;
static __thread struct sn_comm **sn_group_inits;
static __thread size_t sn_group_ninit, sn_group_capinit;
static __thread ncclResult_t sn_group_error;

SN_EXPORT ncclResult_t ncclGroupStart(void)
{
	sn_group_depth++;
	return ncclSuccess;
}

/* ---- arrivals (host functions on the streams) and waits ------------------------------------- */

struct sn_arrival {
	struct sn_shm *s;
	enum sn_kind kind;
	int rank, peer, nranks;
	uint64_t n;
};

static void sn_arrive(void *arg)
{
	struct sn_arrival *a = arg;
	struct sn_shm *s = a->s;
	switch (a->kind) {
	case SN_COLL: {
		__atomic_store_n(&s->rank[a->rank].coll, a->n, __ATOMIC_SEQ_CST);
		for (int q = 0; q < a->nranks; q++)
			if (sn_load(&s->rank[q].coll) < a->n)
				goto done; /* the last rank to arrive releases everyone */
		for (int q = 0; q < a->nranks; q++)
			sn_raise(&s->rank[q].coll_gate, a->n);
		break;
	}
	case SN_SEND:
		__atomic_store_n(&s->sent[a->rank][a->peer], a->n, __ATOMIC_SEQ_CST);
		if (sn_load(&s->posted[a->peer][a->rank]) >= a->n) {
			sn_raise(&s->send_gate[a->rank][a->peer], a->n);
			sn_raise(&s->recv_gate[a->peer][a->rank], a->n);
		}
		break;
	case SN_RECV:
		__atomic_store_n(&s->posted[a->rank][a->peer], a->n, __ATOMIC_SEQ_CST);
		if (sn_load(&s->sent[a->peer][a->rank]) >= a->n) {
			sn_raise(&s->recv_gate[a->rank][a->peer], a->n);
			sn_raise(&s->send_gate[a->peer][a->rank], a->n);
		}
		break;
	}
done:
	free(a);
}

/* Enqueue the arrival of OP; *GATE and *VALUE receive its wait. */
static ncclResult_t sn_enqueue_arrival(const struct sn_op *op, uint64_t **gate, uint64_t *value)
{
	struct sn_comm *c = op->c;
	struct sn_shm *s = c->shm;
	struct sn_arrival *a = malloc(sizeof *a);
	if (!a)
		return sn_fail(ncclSystemError, "out of memory");
	*a = (struct sn_arrival){ .s = s, .kind = op->kind, .rank = c->rank, .peer = op->peer,
				  .nranks = c->nranks };
	switch (op->kind) {
	case SN_COLL:
		a->n = ++c->colls;
		*gate = &s->rank[c->rank].coll_gate;
		break;
	case SN_SEND:
		a->n = ++c->sends[op->peer];
		*gate = &s->send_gate[c->rank][op->peer];
		break;
	case SN_RECV:
		a->n = ++c->recvs[op->peer];
		*gate = &s->recv_gate[c->rank][op->peer];
		break;
	}
	*value = a->n;
	CUresult r = cuLaunchHostFunc(op->stream, sn_arrive, a);
	if (r != CUDA_SUCCESS) {
		free(a);
		c->async = ncclUnhandledCudaError;
		return sn_cuda(r, "enqueueing the call on its stream");
	}
	return ncclSuccess;
}

static ncclResult_t sn_enqueue_wait(struct sn_comm *c, CUstream stream, uint64_t *gate,
				    uint64_t value)
{
	CUresult r = cuStreamWaitValue64(stream, (CUdeviceptr)(uintptr_t)gate, value,
					 CU_STREAM_WAIT_VALUE_GEQ);
	if (r != CUDA_SUCCESS) {
		c->async = ncclUnhandledCudaError;
		return sn_cuda(r, "enqueueing the call's wait on its stream");
	}
	return ncclSuccess;
}

/* Run OPS now: every arrival, then every wait. */
static ncclResult_t sn_run(const struct sn_op *ops, size_t n)
{
	uint64_t *gate[n ? n : 1], value[n ? n : 1];
	size_t done = 0;
	ncclResult_t r = ncclSuccess;
	for (; done < n && r == ncclSuccess; done++)
		r = sn_enqueue_arrival(&ops[done], &gate[done], &value[done]);
	if (r != ncclSuccess)
		done--;
	for (size_t i = 0; i < done && r == ncclSuccess; i++)
		r = sn_enqueue_wait(ops[i].c, ops[i].stream, gate[i], value[i]);
	return r;
}

/* A call: checked, then queued in the open group or run. */
static ncclResult_t sn_call(const char *fn, enum sn_kind kind, ncclComm_t comm,
			    cudaStream_t stream, int peer, const void *b1, const void *b2,
			    size_t count, ncclDataType_t dt, int redop, int root)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c)
		return sn_fail(ncclInvalidArgument, "%s: comm is not a communicator (NULL, or "
			       "destroyed)", fn);
	if (c->aborted || c->finalized)
		return sn_fail(ncclInvalidUsage, "%s: the communicator was %s", fn,
			       c->aborted ? "aborted" : "finalized");
	if (c->async && c->async != ncclInProgress)
		return sn_fail(c->async, "%s: the communicator has failed (%s)", fn,
			       ncclGetErrorString(c->async));
	if (sn_joined(c) != ncclSuccess)
		return sn_fail(ncclInvalidUsage, "%s: the communicator is still initializing", fn);
	if ((int)dt < 0 || dt >= ncclNumTypes)
		return sn_fail(ncclInvalidArgument, "%s: invalid datatype %d", fn, (int)dt);
	if (redop != -1 && (redop < 0 || redop >= ncclNumOps))
		return sn_fail(ncclInvalidArgument, "%s: invalid reduction operation %d", fn, redop);
	if (root != -1 && (root < 0 || root >= c->nranks))
		return sn_fail(ncclInvalidArgument, "%s: root %d is not a rank (0 to %d)", fn, root,
			       c->nranks - 1);
	if (kind != SN_COLL && (peer < 0 || peer >= c->nranks))
		return sn_fail(ncclInvalidArgument, "%s: peer %d is not a rank (0 to %d)", fn, peer,
			       c->nranks - 1);
	if (count && ((kind != SN_RECV && !b1) || (kind == SN_RECV && !b2) ||
		      (kind == SN_COLL && root == -1 && !b2)))
		return sn_fail(ncclInvalidArgument, "%s: a buffer is NULL", fn);
	struct sn_op op = { kind, c, (CUstream)stream, peer };
	if (sn_group_depth) {
		if (sn_group_n == sn_group_cap) {
			size_t cap = sn_group_cap ? 2 * sn_group_cap : 16;
			struct sn_op *p = realloc(sn_group_ops, cap * sizeof *p);
			if (!p)
				return sn_fail(ncclSystemError, "out of memory");
			sn_group_ops = p;
			sn_group_cap = cap;
		}
		sn_group_ops[sn_group_n++] = op;
		return ncclSuccess;
	}
	return sn_run(&op, 1);
}

SN_EXPORT ncclResult_t ncclGroupEnd(void)
{
	if (sn_group_depth == 0)
		return sn_fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
	if (--sn_group_depth)
		return ncclSuccess;
	ncclResult_t r = sn_group_error;
	sn_group_error = ncclSuccess;
	/* Communicators made in the group: joined now, each waiting for its peers once all are
	 * joined (ncclCommInitRank for several ranks from one thread). */
	for (size_t i = 0; i < sn_group_ninit; i++)
		if (sn_group_inits[i]->blocking)
			sn_wait_joined(sn_group_inits[i]);
	sn_group_ninit = 0;
	size_t n = sn_group_n;
	sn_group_n = 0;
	if (r == ncclSuccess)
		r = sn_run(sn_group_ops, n);
	return r;
}

/* ---- communicators ------------------------------------------------------------------------- */

static int sn_config_blocking(const ncclConfig_t *config, ncclResult_t *r)
{
	*r = ncclSuccess;
	if (!config)
		return 1;
	if (config->magic != 0xcafebeef || config->size < offsetof(ncclConfig_t, blocking) + sizeof(int)) {
		*r = sn_fail(ncclInvalidArgument, "the config was not initialized with "
			     "NCCL_CONFIG_INITIALIZER");
		return 1;
	}
	return config->blocking == NCCL_CONFIG_UNDEF_INT || config->blocking != 0;
}

static ncclResult_t sn_init(ncclComm_t *out, int nranks, const uint8_t *id, int rank,
			    const ncclConfig_t *config)
{
	if (!out)
		return sn_fail(ncclInvalidArgument, "comm is NULL");
	*out = NULL;
	ncclResult_t r;
	int blocking = sn_config_blocking(config, &r);
	if (r)
		return r;
	struct sn_comm *c;
	if ((r = sn_join(id, nranks, rank, blocking, &c)))
		return r;
	*out = (ncclComm_t)c;
	if (sn_group_depth) {
		if (sn_group_ninit == sn_group_capinit) {
			size_t cap = sn_group_capinit ? 2 * sn_group_capinit : 8;
			struct sn_comm **p = realloc(sn_group_inits, cap * sizeof *p);
			if (!p)
				return sn_fail(ncclSystemError, "out of memory");
			sn_group_inits = p;
			sn_group_capinit = cap;
		}
		sn_group_inits[sn_group_ninit++] = c;
		return ncclSuccess;
	}
	if (!blocking)
		return sn_joined(c);
	return sn_wait_joined(c);
}

SN_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
	return sn_init(comm, nranks, (const uint8_t *)commId.internal, rank, NULL);
}

SN_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
					      int rank, ncclConfig_t *config)
{
	return sn_init(comm, nranks, (const uint8_t *)commId.internal, rank, config);
}

SN_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank,
						int nId, ncclUniqueId *commIds, ncclConfig_t *config)
{
	if (nId < 1 || !commIds)
		return sn_fail(ncclInvalidArgument, "nId %d, commIds %p", nId, (void *)commIds);
	return sn_init(newcomm, nranks, (const uint8_t *)commIds[0].internal, myrank, config);
}

SN_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
	if (!comms || ndev < 1 || ndev > SN_MAX_RANKS)
		return sn_fail(ncclInvalidArgument, "ncclCommInitAll: comms %p, ndev %d",
			       (void *)comms, ndev);
	ncclUniqueId id;
	ncclResult_t r = ncclGetUniqueId(&id);
	if (r)
		return r;
	CUcontext saved = NULL;
	cuCtxGetCurrent(&saved);
	for (int i = 0; i < ndev && r == ncclSuccess; i++) {
		CUcontext ctx;
		CUdevice dev;
		if ((r = sn_cuda(cuDeviceGet(&dev, devlist ? devlist[i] : i), "cuDeviceGet")) ||
		    (r = sn_cuda(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")) ||
		    (r = sn_cuda(cuCtxSetCurrent(ctx), "cuCtxSetCurrent")))
			break;
		struct sn_comm *c;
		if ((r = sn_join((const uint8_t *)id.internal, ndev, i, 1, &c)) == ncclSuccess)
			comms[i] = (ncclComm_t)c;
	}
	cuCtxSetCurrent(saved);
	return r;
}

SN_EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c || !count)
		return sn_fail(ncclInvalidArgument, "ncclCommCount: comm or count is NULL");
	*count = c->nranks;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c || !rank)
		return sn_fail(ncclInvalidArgument, "ncclCommUserRank: comm or rank is NULL");
	*rank = c->rank;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c || !device)
		return sn_fail(ncclInvalidArgument, "ncclCommCuDevice: comm or device is NULL");
	*device = c->device;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
				     ncclConfig_t *config)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c || !newcomm)
		return sn_fail(ncclInvalidArgument, "ncclCommSplit: comm or newcomm is NULL");
	if (c->aborted || sn_joined(c) != ncclSuccess)
		return sn_fail(ncclInvalidUsage, "ncclCommSplit: the communicator is not usable");
	if (color < 0 && color != NCCL_SPLIT_NOCOLOR)
		return sn_fail(ncclInvalidArgument, "ncclCommSplit: color %d is negative", color);
	*newcomm = NULL;
	struct sn_shm *s = c->shm;
	int seq = ++c->splits;
	s->rank[c->rank].color[seq % 2] = color;
	s->rank[c->rank].key[seq % 2] = key;
	__atomic_store_n(&s->rank[c->rank].split_seq, seq, __ATOMIC_SEQ_CST);
	/* Every rank of the parent calls it: wait for their colors. */
	for (int q = 0; q < c->nranks; q++)
		while (__atomic_load_n(&s->rank[q].split_seq, __ATOMIC_SEQ_CST) < seq) {
			if (__atomic_load_n(&s->rank[q].state, __ATOMIC_SEQ_CST) != SN_JOINED ||
			    !sn_alive(s->rank[q].pid))
				return sn_fail(ncclRemoteError, "ncclCommSplit: rank %d is gone", q);
			sn_sleep_us(500);
		}
	if (color == NCCL_SPLIT_NOCOLOR)
		return ncclSuccess;
	int nranks = 0, rank = 0;
	for (int q = 0; q < c->nranks; q++) {
		int cq = s->rank[q].color[seq % 2], kq = s->rank[q].key[seq % 2];
		if (cq != color)
			continue;
		nranks++;
		if (kq < key || (kq == key && q < c->rank))
			rank++;
	}
	/* The child's id, the same in every member: the parent's, the split's number, the color. */
	uint8_t id[NCCL_UNIQUE_ID_BYTES];
	memcpy(id, c->id, sizeof id);
	uint64_t h = 0xcbf29ce484222325ull;
	const uint8_t *bytes[3] = { c->id + 8, (const uint8_t *)&seq, (const uint8_t *)&color };
	size_t lens[3] = { 16, sizeof seq, sizeof color };
	for (int p = 0; p < 3; p++)
		for (size_t i = 0; i < lens[p]; i++)
			h = (h ^ bytes[p][i]) * 0x100000001b3ull;
	memcpy(id + 8, &h, 8);
	h = (h ^ 0x5a) * 0x100000001b3ull;
	memcpy(id + 16, &h, 8);
	ncclResult_t r;
	int blocking = config ? sn_config_blocking(config, &r) : c->blocking;
	if (config && r)
		return r;
	struct sn_comm *child;
	if ((r = sn_join(id, nranks, rank, blocking, &child)))
		return r;
	*newcomm = (ncclComm_t)child;
	return blocking ? sn_wait_joined(child) : sn_joined(child);
}

/* Every call this rank enqueued has completed (its waits were released). */
static int sn_quiet(struct sn_comm *c)
{
	struct sn_shm *s = c->shm;
	if (sn_load(&s->rank[c->rank].coll_gate) < c->colls)
		return 0;
	for (int p = 0; p < c->nranks; p++)
		if (sn_load(&s->send_gate[c->rank][p]) < c->sends[p] ||
		    sn_load(&s->recv_gate[c->rank][p]) < c->recvs[p])
			return 0;
	return 1;
}

SN_EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c)
		return sn_fail(ncclInvalidArgument, "ncclCommFinalize: comm is not a communicator");
	if (c->finalized || c->aborted)
		return sn_fail(ncclInvalidUsage, "ncclCommFinalize: already %s",
			       c->aborted ? "aborted" : "finalized");
	/* Flush: every issued call completes (blocks for as long as a peer does not come). */
	while (!sn_quiet(c))
		sn_sleep_us(1000);
	c->finalized = 1;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c)
		return comm ? sn_fail(ncclInvalidArgument, "ncclCommDestroy: not a communicator")
			    : ncclSuccess;
	if (!c->finalized && !c->aborted)
		while (!sn_quiet(c))
			sn_sleep_us(1000);
	__atomic_store_n(&c->shm->rank[c->rank].state, SN_DESTROYED, __ATOMIC_SEQ_CST);
	/* The mapping stays: a stream may still read a wait word that was released. */
	c->magic = SN_DEAD_MAGIC;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c)
		return comm ? sn_fail(ncclInvalidArgument, "ncclCommAbort: not a communicator")
			    : ncclSuccess;
	struct sn_shm *s = c->shm;
	/* Release every wait of this rank; the others learn it from its state. */
	sn_raise(&s->rank[c->rank].coll_gate, SN_RELEASED);
	for (int p = 0; p < c->nranks; p++) {
		sn_raise(&s->send_gate[c->rank][p], SN_RELEASED);
		sn_raise(&s->recv_gate[c->rank][p], SN_RELEASED);
	}
	__atomic_store_n(&s->rank[c->rank].state, SN_ABORTED, __ATOMIC_SEQ_CST);
	c->aborted = 1;
	c->magic = SN_DEAD_MAGIC;
	return ncclSuccess;
}

SN_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
	struct sn_comm *c = sn_comm(comm);
	if (!c || !asyncError)
		return sn_fail(ncclInvalidArgument, "ncclCommGetAsyncError: comm or asyncError is "
			       "NULL (or not a communicator)");
	if (c->async) {
		*asyncError = c->async;
		return ncclSuccess;
	}
	if (sn_joined(c) == ncclInProgress) {
		*asyncError = ncclInProgress;
		return ncclSuccess;
	}
	*asyncError = ncclSuccess;
	/* A call still waiting for a rank that aborted or died never completes. */
	if (!sn_quiet(c))
		for (int q = 0; q < c->nranks; q++) {
			int st = __atomic_load_n(&c->shm->rank[q].state, __ATOMIC_SEQ_CST);
			if (q != c->rank && (st == SN_ABORTED || !sn_alive(c->shm->rank[q].pid))) {
				sn_fail(ncclRemoteError, "rank %d %s", q,
					st == SN_ABORTED ? "aborted" : "exited");
				*asyncError = ncclRemoteError;
				break;
			}
		}
	return ncclSuccess;
}

/* ---- collectives and point-to-point --------------------------------------------------------- */

SN_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
				     ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
				     cudaStream_t stream)
{
	return sn_call("ncclAllReduce", SN_COLL, comm, stream, 0, sendbuff, recvbuff, count,
		       datatype, (int)op, -1);
}

SN_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
				     ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	return sn_call("ncclAllGather", SN_COLL, comm, stream, 0, sendbuff, recvbuff, sendcount,
		       datatype, -1, -1);
}

SN_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
					 ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
					 cudaStream_t stream)
{
	return sn_call("ncclReduceScatter", SN_COLL, comm, stream, 0, sendbuff, recvbuff,
		       recvcount, datatype, (int)op, -1);
}

SN_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
				     ncclDataType_t datatype, int root, ncclComm_t comm,
				     cudaStream_t stream)
{
	/* sendbuff is only read on the root; recvbuff everywhere. */
	return sn_call("ncclBroadcast", SN_COLL, comm, stream, 0, recvbuff, sendbuff, count,
		       datatype, -1, root);
}

SN_EXPORT ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
				 ncclComm_t comm, cudaStream_t stream)
{
	return sn_call("ncclBcast", SN_COLL, comm, stream, 0, buff, buff, count, datatype, -1, root);
}

SN_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
				  ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
				  cudaStream_t stream)
{
	/* recvbuff may be NULL except on the root. */
	return sn_call("ncclReduce", SN_COLL, comm, stream, 0, sendbuff, recvbuff, count, datatype,
		       (int)op, root);
}

SN_EXPORT ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
				    ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	return sn_call("ncclAlltoAll", SN_COLL, comm, stream, 0, sendbuff, recvbuff, count,
		       datatype, -1, -1);
}

SN_EXPORT ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
				  ncclDataType_t datatype, int root, ncclComm_t comm,
				  cudaStream_t stream)
{
	return sn_call("ncclGather", SN_COLL, comm, stream, 0, sendbuff, recvbuff, count, datatype,
		       -1, root);
}

SN_EXPORT ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
				   ncclDataType_t datatype, int root, ncclComm_t comm,
				   cudaStream_t stream)
{
	return sn_call("ncclScatter", SN_COLL, comm, stream, 0, recvbuff, sendbuff, count,
		       datatype, -1, root);
}

SN_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
				int peer, ncclComm_t comm, cudaStream_t stream)
{
	return sn_call("ncclSend", SN_SEND, comm, stream, peer, sendbuff, NULL, count, datatype,
		       -1, -1);
}

SN_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
				ncclComm_t comm, cudaStream_t stream)
{
	return sn_call("ncclRecv", SN_RECV, comm, stream, peer, NULL, recvbuff, count, datatype,
		       -1, -1);
}
