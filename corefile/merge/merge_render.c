/* SPDX-License-Identifier: MIT */
/*
 * The merged report (docs/CLI.md, "merge"; the JSON document in docs/JSON.md, "The merge
 * document"): the first failure, one line per rank, the collectives ranks wait in, the
 * mismatches, and what became of each input that is not a rank of the job.  Every string from
 * an input (hosts, paths, headlines, launcher variables) is scrubbed before it is printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merge/merge.h"
#include "report/session.h"

static const char *input_status_word(unsigned s)
{
	static const char *const words[] = { "used", "damaged", "duplicate", "other_job" };
	return s < 4 ? words[s] : "?";
}

/* "2026-12-05 00:41:07.123456 UTC" */
static const char *utc(uint64_t ns, char *buf, size_t n)
{
	if (!ns)
		return snprintf(buf, n, "unknown"), buf;
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t k = strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + k, n - k, ".%06" PRIu64 " UTC", ns % 1000000000u / 1000u);
	return buf;
}

static void rank_list(FILE *out, const int *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%d", i ? ", " : "", r[i]);
}

static const struct ci_job_facts *facts_of(const struct ci_merge *m, int r)
{
	ptrdiff_t i = m->an.ranks[r].input;
	return i >= 0 ? &m->inputs[i].facts : NULL;
}

/* The rank's state in words: "hung in ncclAllReduce #7". */
static void state_words(const struct ci_merge *m, int r, char *buf, size_t n)
{
	const struct ci_merge_rank *rk = &m->an.ranks[r];
	char sig[32];
	switch (rk->state) {
	case CI_RANK_HUNG:
		snprintf(buf, n, "hung in %s #%" PRIu64 "%s%s", ci_job_op_api(rk->wait_op), rk->wait_seq,
			 rk->wait_comm != m->an.comm_id ? " of another communicator" : "",
			 rk->until_abort ? " until it aborted" : "");
		break;
	case CI_RANK_FAULTED:
		if (rk->false_positive)
			snprintf(buf, n, "faulted on rank %d's memory after rank %d exited (after #%" PRIu64 ")",
				 rk->fp_owner, rk->fp_owner, rk->finished);
		else
			snprintf(buf, n, "faulted (device) after #%" PRIu64, rk->finished);
		break;
	case CI_RANK_API_ERROR:
		if (rk->refused_seq)
			snprintf(buf, n, "API error: its collective #%" PRIu64 " refused",
				 rk->refused_seq);
		else
			snprintf(buf, n, "API error after #%" PRIu64, rk->finished);
		break;
	case CI_RANK_EXITED:
		snprintf(buf, n, "exited after #%" PRIu64, rk->finished);
		break;
	case CI_RANK_ABORTED:
		snprintf(buf, n, "aborted its communicator after #%" PRIu64, rk->finished);
		break;
	case CI_RANK_STOPPED: {
		const struct ci_job_facts *f = facts_of(m, r);
		if (f && f->signal)
			snprintf(buf, n, "stopped by %s after #%" PRIu64,
				 ci_signal_name(f->signal, sig, sizeof sig), rk->finished);
		else
			snprintf(buf, n, "stopped after #%" PRIu64, rk->finished);
		break;
	}
	default:
		snprintf(buf, n, "no input");
	}
}

static void render_text(FILE *out, const struct ci_merge *m, unsigned width)
{
	const struct ci_merge_analysis *a = &m->an;
	char b1[512], b2[512], t[64];
	if (!a->comm_id) {
		fprintf(out, "cudainspect merge: no NCCL communicator in the %zu usable input(s) of "
			"%zu: nothing to put side by side.\n", ci_merge_usable_count(m), m->input_count);
		goto inputs;
	}
	fprintf(out, "cudainspect merge: NCCL communicator %016" PRIx64 ", %d ranks: %zu with an "
		"input, %zu missing\n\n", a->comm_id, a->nranks, a->used, a->missing);

	/* The first failure and the rank's own diagnosis. */
	if (a->first >= 0 && a->first_is_missing) {
		fprintf(out, "First failure: rank %d, most likely: it left no input, and the ranks "
			"waiting in a collective wait for it.\n", a->first);
	} else if (a->first >= 0) {
		const struct ci_merge_rank *rk = &a->ranks[a->first];
		const struct ci_merge_input *in = &m->inputs[rk->input];
		state_words(m, a->first, b1, sizeof b1);
		fprintf(out, "First failure: rank %d (host %s, pid %" PRIu32 ") %s", a->first,
			ci_scrub(in->facts.host, b2, sizeof b2), in->facts.pid, b1);
		fprintf(out, ", at %s", utc(in->facts.failure_ns ? in->facts.failure_ns
					     : in->facts.end_ns, t, sizeof t));
		if (strcmp(a->first_why, "collective") == 0)
			fprintf(out, ";\n  decided by collective numbers: it reached #%" PRIu64
				", the other failed ranks later ones", rk->reached);
		else if (strcmp(a->first_why, "time") == 0)
			fprintf(out, ";\n  decided by time (the collective numbers are equal): %" PRIu64
				".%03" PRIu64 " ms before rank %d, %s", a->lead_ns / 1000000,
				a->lead_ns / 1000 % 1000, a->runner_up,
				a->one_clock ? "one host and boot, one clock"
					     : "clocks of different hosts, only as good as their sync");
		else if (strcmp(a->first_why, "peer_exit") == 0)
			fprintf(out, ";\n  the other faults are explained by a peer's exit");
		fprintf(out, ".\n");
		/* A rank that left without an error while others wait for it: a desync. */
		if ((rk->state == CI_RANK_EXITED || rk->state == CI_RANK_ABORTED ||
		     rk->state == CI_RANK_STOPPED) && a->wait_count)
			fprintf(out, "  It left after collective #%" PRIu64 " while others wait in #%" PRIu64
				": the ranks issued different numbers of collectives (a desync: it skipped "
				"one, or they made one more).\n", rk->reached, a->waits[0].seq);
		fprintf(out, "  Its own diagnosis: %s", ci_scrub(in->facts.headline, b1, sizeof b1));
		if (in->facts.fingerprint[0])
			fprintf(out, "  [%s]", in->facts.fingerprint);
		fprintf(out, "\n  Its full report: cudainspect %s\n",
			ci_shell_quote(in->path, b2, sizeof b2));
	} else {
		fprintf(out, "First failure: none of the ranks with an input failed%s.\n",
			a->wait_count ? ", though some wait" : "");
	}
	for (int r = 0; r < a->nranks; r++)
		if (a->ranks[r].false_positive)
			fprintf(out, "Rank %d faulted on rank %d's buffer after rank %d exited: a "
				"consequence of that exit (a shutdown false positive), not rank %d's bug.\n",
				r, a->ranks[r].fp_owner, a->ranks[r].fp_owner, r);

	/* One line per rank. */
	fprintf(out, "\n%-5s %-20s %8s %4s  %s\n", "RANK", "HOST", "PID", "DEV", "STATE");
	for (int r = 0; r < a->nranks; r++) {
		const struct ci_job_facts *f = facts_of(m, r);
		state_words(m, r, b1, sizeof b1);
		if (!f) {
			fprintf(out, "%-5d %-20s %8s %4s  %s\n", r, "-", "-", "-", b1);
			continue;
		}
		const struct ci_job_comm *c = NULL;
		for (size_t i = 0; i < f->comm_count; i++)
			if (f->comms[i].comm_id == a->comm_id)
				c = &f->comms[i];
		char dev[16];
		snprintf(dev, sizeof dev, "%" PRId32, c ? c->device : -1);
		size_t room = width > 48 ? width - 42 : 20;
		if (room > sizeof b2)
			room = sizeof b2;
		fprintf(out, "%-5d %-20.20s %8" PRIu32 " %4s  %.*s\n", r, ci_scrub(f->host, b2, sizeof b2),
			f->pid, dev, (int)room, b1);
	}

	/* Who waits for whom. */
	for (size_t w = 0; w < a->wait_count; w++) {
		const struct ci_merge_wait *wt = &a->waits[w];
		fprintf(out, "\n%s #%" PRIu64, ci_job_op_api(wt->op), wt->seq);
		if (wt->comm_id != a->comm_id)
			fprintf(out, " of communicator %016" PRIx64 " (%d ranks)",
				wt->comm_id, wt->nranks);
		fprintf(out, ": rank%s ", wt->waiting_count > 1 ? "s" : "");
		rank_list(out, wt->waiting, wt->waiting_count);
		fprintf(out, " wait%s in it", wt->waiting_count > 1 ? "" : "s");
		if (wt->absent_count) {
			fprintf(out, "; never arrived: rank%s ", wt->absent_count > 1 ? "s" : "");
			rank_list(out, wt->absent, wt->absent_count);
		}
		if (wt->missing_count) {
			fprintf(out, "; no input from rank%s ", wt->missing_count > 1 ? "s" : "");
			rank_list(out, wt->missing, wt->missing_count);
		}
		if (wt->unseen)
			fprintf(out, "; %zu of its ranks in no input", wt->unseen);
		fprintf(out, ".\n");
	}

	/* Desync. */
	for (size_t i = 0; i < a->mismatch_count; i++) {
		const struct ci_merge_mismatch *x = &a->mismatches[i];
		fprintf(out, "\nMismatch at collective #%" PRIu64 ": rank %d called %s (count %" PRIu64
			", datatype %" PRId32 "), rank %d %s (count %" PRIu64 ", datatype %" PRId32
			"): the ranks are out of step (a desync).\n", x->seq, x->rank[0],
			ci_job_op_api(x->call[0]->op), x->call[0]->count, x->call[0]->datatype, x->rank[1],
			ci_job_op_api(x->call[1]->op), x->call[1]->count, x->call[1]->datatype);
	}
inputs:
	fprintf(out, "\nInputs: %zu: %zu used, %zu more of the same processes, %zu damaged, %zu of "
		"another job;\n  %zu rank%s without an input.\n", m->input_count, a->used, a->duplicates,
		a->bad, a->other_job, a->missing, a->missing == 1 ? "" : "s");
	for (size_t i = 0; i < m->input_count; i++) {
		const struct ci_merge_input *in = &m->inputs[i];
		if (in->status != CI_MERGE_IN_BAD && in->facts.missing)
			fprintf(out, "  %s: damaged: %" PRIu64 " record entries are not in it (truncated "
				"or not captured)%s\n", ci_scrub(in->path, b1, sizeof b1), in->facts.missing,
				in->status == CI_MERGE_IN_USED ? "; used as far as it goes" : "");
		/* Duplicates are the normal case (each rank leaves snapshots and a core): counted
		 * above, listed in the JSON document. */
		if (in->status == CI_MERGE_IN_USED || in->status == CI_MERGE_IN_DUPLICATE)
			continue;
		fprintf(out, "  %s: ", ci_scrub(in->path, b1, sizeof b1));
		if (in->status == CI_MERGE_IN_BAD)
			fprintf(out, "not used: %s\n", ci_scrub(in->note, b2, sizeof b2));
		else
			fprintf(out, "another job (host %s, pid %" PRIu32 ": no rank of communicator "
				"%016" PRIx64 ")\n", ci_scrub(in->facts.host, b2, sizeof b2), in->facts.pid,
				a->comm_id);
	}
	if (a->missing && a->comm_id) {
		fprintf(out, "  Missing: rank%s ", a->missing > 1 ? "s" : "");
		size_t k = 0;
		for (int r = 0; r < a->nranks; r++)
			if (a->ranks[r].input < 0)
				fprintf(out, "%s%d", k++ ? ", " : "", r);
		fprintf(out, " (no input holds %s).\n", a->missing > 1 ? "them" : "it");
	}
}

static void j_ranks(struct ci_json *w, const char *key, const int *r, size_t n)
{
	ci_json_open(w, key, true);
	for (size_t i = 0; i < n; i++)
		ci_json_i64(w, NULL, r[i]);
	ci_json_close(w);
}

static struct ci_error *render_json(FILE *out, const struct ci_merge *m)
{
	const struct ci_merge_analysis *a = &m->an;
	struct ci_json *w = malloc(sizeof *w);
	if (!w)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	ci_json_begin(w, out);
	ci_json_u64(w, "merge_version", CI_MERGE_SCHEMA_VERSION);
	if (a->comm_id)
		ci_json_hex(w, "communicator", a->comm_id);
	else
		ci_json_null(w, "communicator");
	ci_json_i64(w, "nranks", a->nranks);
	ci_json_open(w, "first_failure", false);
	if (a->first >= 0) {
		ci_json_i64(w, "rank", a->first);
		ci_json_str(w, "state", ci_merge_rank_state_name(a->ranks[a->first].state));
		ci_json_str(w, "decided_by", a->first_why);
		ci_json_bool(w, "one_clock", a->one_clock);
		if (a->runner_up >= 0) {
			ci_json_i64(w, "runner_up", a->runner_up);
			ci_json_u64(w, "lead_ns", a->lead_ns);
		} else {
			ci_json_null(w, "runner_up");
			ci_json_null(w, "lead_ns");
		}
	}
	ci_json_close(w);
	ci_json_open(w, "ranks", true);
	for (int r = 0; r < a->nranks; r++) {
		const struct ci_merge_rank *rk = &a->ranks[r];
		const struct ci_job_facts *f = facts_of(m, r);
		ci_json_open(w, NULL, false);
		ci_json_i64(w, "rank", r);
		ci_json_str(w, "state", ci_merge_rank_state_name(rk->state));
		if (f) {
			ci_json_str(w, "input", m->inputs[rk->input].path);
			ci_json_str(w, "host", f->host);
			ci_json_u64(w, "pid", f->pid);
			const struct ci_job_comm *c = NULL;
			for (size_t i = 0; i < f->comm_count; i++)
				if (f->comms[i].comm_id == a->comm_id)
					c = &f->comms[i];
			ci_json_i64(w, "device", c ? c->device : -1);
			ci_json_str(w, "verdict", ci_verdict_name(f->verdict));
			ci_json_str(w, "headline", f->headline);
			ci_json_str(w, "fingerprint", f->fingerprint[0] ? f->fingerprint : NULL);
			ci_json_u64(w, "reached", rk->reached);
			ci_json_u64(w, "finished", rk->finished);
			if (rk->state == CI_RANK_HUNG) {
				ci_json_open(w, "waits_in", false);
				ci_json_hex(w, "communicator", rk->wait_comm);
				ci_json_u64(w, "seq", rk->wait_seq);
				ci_json_str(w, "op", ci_job_op_word(rk->wait_op));
				ci_json_bool(w, "until_abort", rk->until_abort);
				ci_json_close(w);
			} else {
				ci_json_null(w, "waits_in");
			}
			if (rk->refused_seq)
				ci_json_u64(w, "refused_seq", rk->refused_seq);
			else
				ci_json_null(w, "refused_seq");
			ci_json_u64(w, "failure_ns", f->failure_ns);
			if (rk->false_positive)
				ci_json_i64(w, "faulted_on_memory_of", rk->fp_owner);
			else
				ci_json_null(w, "faulted_on_memory_of");
		}
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_open(w, "waits", true);
	for (size_t i = 0; i < a->wait_count; i++) {
		const struct ci_merge_wait *wt = &a->waits[i];
		ci_json_open(w, NULL, false);
		ci_json_hex(w, "communicator", wt->comm_id);
		ci_json_i64(w, "nranks", wt->nranks);
		ci_json_u64(w, "seq", wt->seq);
		ci_json_str(w, "op", ci_job_op_word(wt->op));
		j_ranks(w, "waiting", wt->waiting, wt->waiting_count);
		j_ranks(w, "never_arrived", wt->absent, wt->absent_count);
		j_ranks(w, "no_input", wt->missing, wt->missing_count);
		ci_json_u64(w, "unseen_ranks", wt->unseen);
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_open(w, "mismatches", true);
	for (size_t i = 0; i < a->mismatch_count; i++) {
		const struct ci_merge_mismatch *x = &a->mismatches[i];
		ci_json_open(w, NULL, false);
		ci_json_u64(w, "seq", x->seq);
		ci_json_open(w, "calls", true);
		for (int k = 0; k < 2; k++) {
			ci_json_open(w, NULL, false);
			ci_json_i64(w, "rank", x->rank[k]);
			ci_json_str(w, "op", ci_job_op_word(x->call[k]->op));
			ci_json_u64(w, "count", x->call[k]->count);
			ci_json_i64(w, "datatype", x->call[k]->datatype);
			ci_json_close(w);
		}
		ci_json_close(w);
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_open(w, "missing_ranks", true);
	for (int r = 0; r < a->nranks; r++)
		if (a->ranks[r].input < 0)
			ci_json_i64(w, NULL, r);
	ci_json_close(w);
	ci_json_open(w, "inputs", true);
	for (size_t i = 0; i < m->input_count; i++) {
		const struct ci_merge_input *in = &m->inputs[i];
		ci_json_open(w, NULL, false);
		ci_json_str(w, "path", in->path);
		ci_json_str(w, "status", input_status_word(in->status));
		if (in->status == CI_MERGE_IN_USED)
			ci_json_i64(w, "rank", in->rank);
		else
			ci_json_null(w, "rank");
		ci_json_str(w, "note", in->note);
		ci_json_u64(w, "missing_entries", in->facts.missing);
		if (in->status == CI_MERGE_IN_DUPLICATE)
			ci_json_str(w, "duplicate_of", m->inputs[in->same_as].path);
		ci_json_close(w);
	}
	ci_json_close(w);
	struct ci_error *err = ci_json_end(w, "merge document");
	free(w);
	return err;
}

struct ci_error *ci_merge_render(FILE *out, struct ci_merge *m, bool json, unsigned width)
{
	struct ci_error *err = ci_merge_analyse(m);
	if (err)
		return err;
	if (json)
		return render_json(out, m);
	render_text(out, m, width ? width : 100);
	return ferror(out) ? ci_error_create(CI_ERR_IO, "cannot write the merged report") : NULL;
}
