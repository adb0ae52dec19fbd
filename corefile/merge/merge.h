/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: the merge of a whole job's records (corefile/merge/, the
 * stage after the report).  Every input, whatever it is (a core, a snapshot, a persistent file,
 * or the JSON document `cudainspect --json` wrote on another host), is first reduced to the
 * same facts about one process: who it is (host, boot id, pid, launcher variables), what its
 * own diagnosis says, its NCCL communicators and collectives with their states, and the memory
 * it shared with its peers.  The report stage takes them from a report (report/job_facts.c,
 * declared in report/session.h), facts_json.c from a document (the document's "job" part is
 * written by job_facts.c, so both ways read one shape); merge.c puts
 * the facts of all inputs side by side; merge_render.c words the result.
 */
#ifndef CI_MERGE_H
#define CI_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"
#include "report/session.h"

/* Read a document's "job" object from BUF (LEN bytes; JSON from another host: bounded by
 * CI_MERGE_JSON_MAX_BYTES and CI_MERGE_JSON_MAX_DEPTH).  CI_ERR_CORRUPT with where and what
 * when it is not one. */
#define CI_MERGE_JSON_MAX_BYTES (64u << 20)
#define CI_MERGE_JSON_MAX_DEPTH 64
struct ci_error *ci_job_facts_from_json(const char *buf, size_t len, struct ci_job_facts *ret);

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
	uint64_t timeout_other_seq; /* ... none in the job's communicator: the oldest flagged in
				     another one (a split), that communicator and its op */
	uint64_t timeout_other_comm;
	uint32_t timeout_other_op;
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
