/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: the merge of a whole job's records (corefile/merge/, the
 * stage after the report).  Every input, whatever it is (a core, a snapshot, a persistent file,
 * or the JSON document `cudainspect --json` wrote on another host), is first reduced to the
 * same facts about one process: who it is (host, boot id, pid, launcher variables), what its
 * own diagnosis says, its NCCL communicators and collectives with their states, and the memory
 * it shared with its peers.  facts.c takes them from a report, facts_json.c from a document
 * (the document's "job" part is written by facts.c, so both ways read one shape); merge.c puts
 * the facts of all inputs side by side; merge_render.c words the result.
 */
#ifndef CI_MERGE_H
#define CI_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"

struct ci_json;

/* Where a collective stands, from its stream's breadcrumb (docs/FORMAT.md, "NCCL"). */
#define CI_JOB_CALL_STATES(X)                                                                \
	X(CI_JOB_CALL_UNKNOWN, 0, "unknown")                                                \
	X(CI_JOB_CALL_NOT_STARTED, 1, "not_started")                                        \
	X(CI_JOB_CALL_IN_FLIGHT, 2, "in_flight")                                            \
	X(CI_JOB_CALL_FINISHED, 3, "finished")                                              \
	X(CI_JOB_CALL_FAILED, 4, "failed") /* the call returned an error: never enqueued */
#define CI_JOB_ENUM_ENTRY(name, value, word) name = value,
enum ci_job_call_state { CI_JOB_CALL_STATES(CI_JOB_ENUM_ENTRY) };
const char *ci_job_call_state_name(unsigned s);
bool ci_job_call_state_parse(const char *word, unsigned *ret);

/* One collective (or a refused call) of a communicator, times on CLOCK_REALTIME. */
struct ci_job_call {
	uint64_t comm_id;
	uint64_t op_seq;          /* 0 for a refused call */
	uint64_t count;
	uint64_t time_ns;
	uint32_t op;              /* enum ci_nccl_op */
	int32_t datatype, redop, peer, result;
	unsigned state;           /* enum ci_job_call_state */
	bool timeout;             /* flagged by the recorder's hang watchdog */
};

struct ci_job_comm {
	uint64_t comm_id;
	uint64_t parent_id;
	uint64_t colls;           /* collectives issued */
	uint64_t end_ns;          /* destroy, finalize or abort (realtime), 0 while live */
	int32_t rank, nranks, device, async_error, result;
	uint32_t state;           /* enum ci_nccl_comm_state */
};

struct ci_job_peer {
	uint64_t key, address, size, time_ns;
	uint32_t kind;            /* enum ci_peer_kind */
	int32_t device;
};

struct ci_job_env {
	char *name, *value;
};

/* What one input says about its process, everything the merge reads. */
struct ci_job_facts {
	char host[CI_NAME_MAX];
	char boot_id[33];         /* hex, "" unknown */
	uint32_t pid;
	uint64_t start_ns;        /* the record's start, realtime */
	uint64_t end_ns;          /* the newest thing the input knows of (exit, signal, the newest
				     entry), realtime */
	char reason[16];          /* snapshot reason word, "" when not a snapshot */
	char kind[16];            /* the source kind ("core", "snapshot", "file", ...) */
	unsigned verdict;         /* enum ci_verdict */
	int32_t signal;
	char *headline;           /* the diagnosis in one line (scrubbed by the renderer) */
	char fingerprint[24];
	uint64_t failure_ns;      /* the first sticky error (or failed call), realtime, 0 none */
	uint64_t fault_address;   /* the address the diagnosis blames (argument or Xid page), 0 */
	uint64_t missing;         /* record entries the input lacks (truncated, not captured) */
	struct ci_job_env *vars; size_t var_count;
	struct ci_job_comm *comms; size_t comm_count;
	struct ci_job_call *calls; size_t call_count; /* by comm, then op_seq */
	struct ci_job_peer *peers; size_t peer_count;
};

void ci_job_facts_deinit(struct ci_job_facts *f);
/* The facts of REPORT (made for JSON: a full model). */
struct ci_error *ci_job_facts_from_report(const struct ci_report *report,
					  struct ci_job_facts *ret);
/* Write F as the "job" object of a JSON document (docs/JSON.md, "job"). */
void ci_job_facts_write(struct ci_json *w, const char *key, const struct ci_job_facts *f);
/* Read a document's "job" object from BUF (LEN bytes; JSON from another host: bounded by
 * CI_MERGE_JSON_MAX_BYTES and CI_MERGE_JSON_MAX_DEPTH).  CI_ERR_CORRUPT with where and what
 * when it is not one. */
#define CI_MERGE_JSON_MAX_BYTES (64u << 20)
#define CI_MERGE_JSON_MAX_DEPTH 64
struct ci_error *ci_job_facts_from_json(const char *buf, size_t len, struct ci_job_facts *ret);
/* The record's words for NCCL ops, communicator states and peer-memory kinds (record.h's
 * lists) and back (0: not one). */
const char *ci_job_op_word(uint32_t op);
const char *ci_job_comm_state_word(uint32_t state);
const char *ci_job_peer_kind_word(uint32_t kind);
uint32_t ci_job_op_value(const char *word);
/* The API function of an op ("ncclAllReduce"), "an NCCL call" for an unknown one. */
const char *ci_job_op_api(uint32_t op);
uint32_t ci_job_comm_state_value(const char *word);
uint32_t ci_job_peer_kind_value(const char *word);
/* Sort calls by communicator and number (after filling them). */
void ci_job_facts_sort(struct ci_job_facts *f);


/* ---------------------------------------------------------------------------------------- */
/* The merge (merge.c) and its analysis (analyse.c)                                          */

enum ci_merge_in_status {
	CI_MERGE_IN_USED = 0,     /* a rank of the job */
	CI_MERGE_IN_BAD,          /* cannot be read: note says why */
	CI_MERGE_IN_DUPLICATE,    /* the same process (or rank) as input same_as */
	CI_MERGE_IN_OTHER_JOB,    /* shares no communicator with the job */
};

struct ci_merge_input {
	char *path;
	unsigned status;          /* enum ci_merge_in_status */
	char *note;
	struct ci_job_facts facts;
	int rank;                 /* in the job's communicator, -1 */
	size_t same_as;           /* DUPLICATE: the input kept */
};

/* What a rank was doing when its input was written. */
#define CI_MERGE_RANK_STATES(X)                                                              \
	X(CI_RANK_MISSING, 0, "missing")       /* no input */                               \
	X(CI_RANK_FAULTED, 1, "faulted")       /* a device fault (sticky CUDA error) */     \
	X(CI_RANK_API_ERROR, 2, "api_error")   /* a refused NCCL or CUDA call */            \
	X(CI_RANK_HUNG, 3, "hung")             /* waiting in a collective */                \
	X(CI_RANK_EXITED, 4, "exited")         /* left the communicator, no error */        \
	X(CI_RANK_STOPPED, 5, "stopped")       /* none of these: killed between collectives */ \
	X(CI_RANK_ABORTED, 6, "aborted")       /* aborted its communicator, no error */
enum ci_merge_rank_state { CI_MERGE_RANK_STATES(CI_JOB_ENUM_ENTRY) };
const char *ci_merge_rank_state_name(unsigned s);

struct ci_merge_rank {
	ptrdiff_t input;          /* -1: missing */
	unsigned state;
	uint64_t wait_seq;        /* HUNG: the collective it waits in */
	uint64_t wait_comm;       /* ... of this communicator (the job's, else one it split off) */
	uint32_t wait_op;
	uint64_t reached;         /* the highest collective it reached (in flight or finished) */
	uint64_t finished;        /* the highest it finished */
	uint64_t timeout_seq;     /* the highest the recorder's hang watchdog flagged */
	uint64_t refused_seq;     /* the number a refused collective would have had, 0 none */
	bool until_abort;         /* HUNG, read from the watchdog's flag: its abort ended the wait */
	bool false_positive;      /* FAULTED on a peer's memory after the peer exited */
	int fp_owner;             /* ... that peer's rank */
};

/* One collective that ranks wait in, and who never arrived there.  Ranks are the job
 * communicator's, also for a collective of another communicator (a split of it). */
struct ci_merge_wait {
	uint64_t comm_id;
	int nranks;               /* the size of that communicator */
	size_t unseen;            /* of its ranks, how many no input holds (another communicator's
				     ranks without an input cannot be named in the job's) */
	uint64_t seq;
	uint32_t op;
	int *waiting; size_t waiting_count;
	int *absent; size_t absent_count;   /* with an input: never reached seq */
	int *missing; size_t missing_count; /* no input */
};

/* Two ranks' collectives of one number that differ (the classic desync). */
struct ci_merge_mismatch {
	uint64_t seq;
	int rank[2];
	const struct ci_job_call *call[2];
};

#define CI_MERGE_MISMATCH_MAX 8
struct ci_merge_analysis {
	uint64_t comm_id;         /* the job's communicator (most ranks), 0: none */
	int nranks;
	struct ci_merge_rank *ranks;
	size_t used, bad, duplicates, other_job, missing;
	struct ci_merge_wait *waits; size_t wait_count;
	struct ci_merge_mismatch mismatches[CI_MERGE_MISMATCH_MAX]; size_t mismatch_count;
	int first;                /* the rank that failed first, -1 */
	int runner_up;            /* decided by time: the next one, and how much later; else -1 */
	uint64_t lead_ns;
	const char *first_why;    /* how the clock decided: "collective", "time", "only" */
	bool one_clock;           /* every rank compared by time was on one host and boot */
	bool first_is_missing;    /* the first is a rank without input (only suspect) */
};
void ci_merge_analysis_deinit(struct ci_merge_analysis *a);

struct ci_merge {
	struct ci_request req;
	struct ci_merge_input *inputs; size_t input_count, input_cap;
	size_t skipped;           /* directory entries that do not look like inputs */
	bool analysed;
	struct ci_merge_analysis an;
};
/* Fill M->an from the inputs (once per set of inputs). */
struct ci_error *ci_merge_analyse(struct ci_merge *m);

#endif /* CI_MERGE_H */
