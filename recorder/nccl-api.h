/* SPDX-License-Identifier: MIT */
/*
 * The one table of every NCCL function the recorder wraps (nccl.h of NCCL 2.28), one line each:
 *   X(function, hook, (parameters), (argument names))
 * nccl.c defines one exported wrapper per line under that name, and the compiler checks each
 * against nccl.h's own declaration.  `hook` names what the wrapper records (nccl.c maps it to
 * CI_NP_<hook>, run before the real call, and CI_NH_<hook>, run after it).
 *
 * CI_NCCL_HELPERS names the functions the recorder itself calls on the real library (through
 * the pointers it resolved, never through a wrapper) to describe a communicator it first meets
 * at a collective; they are not wrapped: the application reaches them untouched.
 */
#ifndef CI_RECORDER_NCCL_API_H
#define CI_RECORDER_NCCL_API_H

/* clang-format off */
#define CI_NCCL_TABLE(X) \
	X(ncclCommInitRank, init_rank, (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank), (comm, nranks, commId, rank)) \
	X(ncclCommInitRankConfig, init_rank_config, (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t *config), (comm, nranks, commId, rank, config)) \
	X(ncclCommInitRankScalable, init_rank_scalable, (ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds, ncclConfig_t *config), (newcomm, nranks, myrank, nId, commIds, config)) \
	X(ncclCommInitAll, init_all, (ncclComm_t *comm, int ndev, const int *devlist), (comm, ndev, devlist)) \
	X(ncclCommSplit, split, (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config), (comm, color, key, newcomm, config)) \
	X(ncclCommShrink, shrink, (ncclComm_t comm, int *excludeRanksList, int excludeRanksCount, ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags), (comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags)) \
	X(ncclCommFinalize, finalize, (ncclComm_t comm), (comm)) \
	X(ncclCommDestroy, destroy, (ncclComm_t comm), (comm)) \
	X(ncclCommAbort, abort, (ncclComm_t comm), (comm)) \
	X(ncclCommGetAsyncError, async_error, (ncclComm_t comm, ncclResult_t *asyncError), (comm, asyncError)) \
	X(ncclAllReduce, all_reduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, op, comm, stream)) \
	X(ncclAllGather, all_gather, (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, sendcount, datatype, comm, stream)) \
	X(ncclReduceScatter, reduce_scatter, (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, recvcount, datatype, op, comm, stream)) \
	X(ncclBroadcast, broadcast, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, root, comm, stream)) \
	X(ncclBcast, bcast, (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream), (buff, count, datatype, root, comm, stream)) \
	X(ncclReduce, reduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, op, root, comm, stream)) \
	X(ncclAlltoAll, all_to_all, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, comm, stream)) \
	X(ncclGather, gather, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, root, comm, stream)) \
	X(ncclScatter, scatter, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream), (sendbuff, recvbuff, count, datatype, root, comm, stream)) \
	X(ncclSend, send, (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream), (sendbuff, count, datatype, peer, comm, stream)) \
	X(ncclRecv, recv, (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream), (recvbuff, count, datatype, peer, comm, stream)) \
	X(ncclGroupStart, group_start, (void), ()) \
	X(ncclGroupEnd, group_end, (void), ())

#define CI_NCCL_HELPERS(X) \
	X(ncclCommCount) \
	X(ncclCommUserRank) \
	X(ncclCommCuDevice)
/* clang-format on */

#endif
