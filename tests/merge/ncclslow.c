/*
 * ncclslow: an LD_PRELOAD library for tests/merge that stands between the recorder and NCCL
 * (preloaded after the recorder, for ncclengine-linked) and holds one ncclAllReduce back after
 * NCCL accepted it, so that a fault planted before it on the stream poisons the context before
 * the recorder writes the breadcrumb after the call: the write fails, as it can when the fault
 * comes in that window on a real GPU.
 *
 *   NCCLSLOW_RANK=R     only in the rank whose RANK variable is R (the launcher sets it)
 *   NCCLSLOW_CALL=N     the N-th ncclAllReduce of that process (1-based)
 *   NCCLSLOW_MS=MS      how long to hold it after NCCL returned (default 50)
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes" /* nccl.h's (void)-less declarations */
#include <nccl.h>
#pragma GCC diagnostic pop

typedef ncclResult_t (*all_reduce_fn)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
				      ncclComm_t, cudaStream_t);

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
			   cudaStream_t stream)
{
	static all_reduce_fn next;
	static long calls;
	if (!next)
		next = (all_reduce_fn)dlsym(RTLD_NEXT, "ncclAllReduce");
	if (!next)
		return ncclSystemError;
	ncclResult_t r = next(sendbuff, recvbuff, count, datatype, op, comm, stream);
	const char *rank = getenv("RANK"), *want = getenv("NCCLSLOW_RANK");
	const char *call = getenv("NCCLSLOW_CALL"), *ms = getenv("NCCLSLOW_MS");
	calls++;
	if (rank && want && call && !strcmp(rank, want) && calls == atol(call)) {
		long hold = ms ? atol(ms) : 50;
		struct timespec ts = { hold / 1000, (hold % 1000) * 1000000L };
		while (nanosleep(&ts, &ts))
			;
	}
	return r;
}
