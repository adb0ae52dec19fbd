/* SPDX-License-Identifier: MIT */
/*
 * Which job and rank a record belongs to: the launcher variables the process has (torchrun's
 * RANK and WORLD_SIZE, Slurm's, Open MPI's, PMI's, ...) go into CI_SEC_JOB when the record is
 * made and again whenever a communicator is made, as a new entry when one appeared or changed
 * (an engine may set them in-process before it starts its workers' communicators).  With the
 * header's host, boot id and pid, and the communicators' ids and ranks (nccl.c), the records of
 * one job can be put side by side (docs/FORMAT.md, "NCCL and the job").
 */
#include <stdlib.h>
#include <string.h>

#include "recorder.h"

/* Every variable kept, in one list (docs/FORMAT.md lists them too). */
static const char *const ci_job_names[] = {
	/* torchrun / torch.distributed.elastic */
	"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
	"NODE_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
	"TORCHELASTIC_RESTART_COUNT",
	/* Slurm */
	"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_STEP_ID",
	"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS", "SLURM_JOB_NAME",
	"SLURM_JOB_NODELIST",
	/* Open MPI, MPICH / Intel MPI (PMI), PMIx, MVAPICH */
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
	"OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE",
	"MPI_LOCALRANKID", "MV2_COMM_WORLD_RANK",
	/* Kubernetes indexed jobs; which GPUs the process sees */
	"JOB_COMPLETION_INDEX", "CUDA_VISIBLE_DEVICES",
};
#define CI_JOB_VARS (sizeof ci_job_names / sizeof ci_job_names[0])
#define CI_JOB_VALUE_MAX 511

/* What was recorded of each variable, for the record of generation ci_job_gen: a hash of its
 * value (0: not recorded). */
static uint64_t ci_job_seen[CI_JOB_VARS];
static uint32_t ci_job_gen;
static int ci_job_busy; /* atomic: one thread scans at a time; another finds it done */

void ci_job_record(void)
{
	struct ci_sec *sec = ci_sec(CI_SEC_JOB);
	if (!sec->dir || __atomic_exchange_n(&ci_job_busy, 1, __ATOMIC_ACQUIRE))
		return;
	uint32_t gen = __atomic_load_n(&ci_generation, __ATOMIC_RELAXED);
	if (ci_job_gen != gen) {
		memset(ci_job_seen, 0, sizeof ci_job_seen);
		ci_job_gen = gen;
	}
	uint64_t now = ci_now();
	for (size_t i = 0; i < CI_JOB_VARS; i++) {
		const char *v = getenv(ci_job_names[i]);
		if (!v)
			continue;
		size_t len = strnlen(v, CI_JOB_VALUE_MAX);
		uint64_t h = ci_fnv(CI_FNV_INIT, v, len) | 1;
		if (ci_job_seen[i] == h)
			continue;
		uint32_t slot = ci_table_claim(CI_SEC_JOB);
		if (slot == CI_NONE)
			break;
		ci_job_seen[i] = h;
		struct ci_job_var *e = ci_entry(CI_SEC_JOB, slot);
		ci_entry_begin(&e->seq);
		e->time_ns = now;
		e->name_str = ci_string(ci_job_names[i], 64);
		e->value_str = ci_string(v, len);
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	__atomic_store_n(&ci_job_busy, 0, __ATOMIC_RELEASE);
}
