/* SPDX-License-Identifier: MIT */
/*
 * The merge's reasoning over the facts of every input (merge.h): which inputs are the job,
 * each rank's state, the collectives ranks wait in and who never arrived, mismatched
 * collectives, the shutdown false positive, and the first failure.  Waits are found in every
 * communicator of the job (the one with the most ranks, and those split off it), each with its
 * own numbers.  The collective numbers of the job's communicator are the logical clock: a rank that never reached collective k failed
 * before one that did; the realtime clock orders only ranks the numbers leave equal, and is
 * trusted exactly only within one host and boot.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"

#define WORD_OF(name, value, word) [value] = word,
static const char *const rank_state_words[] = { CI_MERGE_RANK_STATES(WORD_OF) };
#undef WORD_OF

const char *ci_merge_rank_state_name(unsigned s)
{
	return s < sizeof rank_state_words / sizeof rank_state_words[0] ? rank_state_words[s] : "?";
}

void ci_merge_analysis_deinit(struct ci_merge_analysis *a)
{
	for (size_t i = 0; i < a->wait_count; i++) {
		free(a->waits[i].waiting);
		free(a->waits[i].absent);
		free(a->waits[i].missing);
	}
	free(a->waits);
	free(a->ranks);
	memset(a, 0, sizeof *a);
}

static bool same_process(const struct ci_job_facts *a, const struct ci_job_facts *b)
{
	return a->pid == b->pid && a->start_ns == b->start_ns && strcmp(a->host, b->host) == 0 &&
	       strcmp(a->boot_id, b->boot_id) == 0;
}

static const struct ci_job_comm *comm_of(const struct ci_job_facts *f, uint64_t id)
{
	for (size_t i = 0; i < f->comm_count; i++)
		if (f->comms[i].comm_id == id)
			return &f->comms[i];
	return NULL;
}

static bool shows_wait(const struct ci_job_facts *f)
{
	for (size_t i = 0; i < f->call_count; i++)
		if (f->calls[i].state == CI_JOB_CALL_IN_FLIGHT)
			return true;
	return false;
}

static bool shows_abort(const struct ci_job_facts *f)
{
	for (size_t i = 0; i < f->comm_count; i++)
		if (f->comms[i].state == CI_NCCL_COMM_ABORTED)
			return true;
	return false;
}

/* The collective call SEQ of F on communicator ID, or NULL. */
static const struct ci_job_call *call_of(const struct ci_job_facts *f, uint64_t id, uint64_t seq)
{
	for (size_t i = 0; i < f->call_count; i++)
		if (f->calls[i].comm_id == id && f->calls[i].op_seq == seq)
			return &f->calls[i];
	return NULL;
}

/* Whether F has flagged late a collective G shows waited in: the recorder's watchdog saw that
 * wait end (a delay, format 1.6), so G, its hang snapshot, is older news than F. */
static bool ends_wait_of(const struct ci_job_facts *f, const struct ci_job_facts *g)
{
	for (size_t i = 0; i < g->call_count; i++) {
		const struct ci_job_call *w = &g->calls[i];
		const struct ci_job_call *c =
			w->state == CI_JOB_CALL_IN_FLIGHT ? call_of(f, w->comm_id, w->op_seq) : NULL;
		if (c && c->late)
			return true;
	}
	return false;
}

/* Whether call C of F finished because its communicator was aborted (as far as F tells). */
static bool ended_by_abort(const struct ci_job_facts *f, const struct ci_job_call *c)
{
	const struct ci_job_comm *cm =
		c && c->state == CI_JOB_CALL_FINISHED ? comm_of(f, c->comm_id) : NULL;
	return cm && cm->state == CI_NCCL_COMM_ABORTED;
}

/* Whether F shows a collective G waited in, flagged by the recorder's hang watchdog, ended by
 * an abort of its communicator: whatever F shows waiting began after that abort (the stream
 * moved on once the abort released the hung call), so G, the hang snapshot, tells the hang. */
static bool aborts_wait_of(const struct ci_job_facts *f, const struct ci_job_facts *g)
{
	for (size_t i = 0; i < g->call_count; i++) {
		const struct ci_job_call *w = &g->calls[i];
		if (w->state == CI_JOB_CALL_IN_FLIGHT && w->timeout &&
		    ended_by_abort(f, call_of(f, w->comm_id, w->op_seq)))
			return true;
	}
	return false;
}

/* Whether input A of a process tells more than input B of the same process. */
static bool newer_says_more(const struct ci_job_facts *a, const struct ci_job_facts *b)
{
	if (!a->missing != !b->missing)
		return !a->missing;
	if (ends_wait_of(a, b))
		return true;
	if (ends_wait_of(b, a))
		return false;
	if (aborts_wait_of(a, b))
		return false;
	if (aborts_wait_of(b, a))
		return true;
	if (shows_wait(a) && !shows_wait(b) && shows_abort(b))
		return true;
	if (shows_wait(b) && !shows_wait(a) && shows_abort(a))
		return false;
	return a->end_ns > b->end_ns;
}

/* The job's communicator: the one with the most ranks, then the most inputs holding it. */
static void choose_comm(struct ci_merge *m)
{
	struct ci_merge_analysis *a = &m->an;
	size_t best_inputs = 0;
	for (size_t i = 0; i < m->input_count; i++) {
		const struct ci_merge_input *in = &m->inputs[i];
		if (in->status != CI_MERGE_IN_USED)
			continue;
		for (size_t c = 0; c < in->facts.comm_count; c++) {
			const struct ci_job_comm *cm = &in->facts.comms[c];
			if (!cm->comm_id || cm->nranks <= 0 || cm->rank < 0 || cm->rank >= cm->nranks)
				continue;
			size_t holders = 0;
			for (size_t j = 0; j < m->input_count; j++)
				holders += m->inputs[j].status == CI_MERGE_IN_USED &&
					   comm_of(&m->inputs[j].facts, cm->comm_id);
			if (cm->nranks > a->nranks || (cm->nranks == a->nranks && holders > best_inputs)) {
				a->comm_id = cm->comm_id;
				a->nranks = cm->nranks;
				best_inputs = holders;
			}
		}
	}
}

/* Whether call C is in flight as a wait, not one begun after HUNG's abort (rank_state). */
static bool waits(const struct ci_job_call *c, const struct ci_job_call *hung)
{
	return c->state == CI_JOB_CALL_IN_FLIGHT &&
	       !(hung && !c->timeout && c->time_ns > hung->time_ns);
}

static void rank_state(struct ci_merge_analysis *a, const struct ci_job_facts *f,
		       struct ci_merge_rank *r)
{
	/* The oldest call the hang watchdog flagged that an abort ended (not a delay): the rank
	 * hung there.  A call in flight without the flag, enqueued after it, was not the oldest
	 * its stream had not finished when the watchdog looked: it began once the abort released
	 * the stream (a record written while the aborts went on), so it is no wait, and
	 * waits_before_abort reads the wait from the flag. */
	const struct ci_job_call *hung = NULL;
	for (size_t i = 0; i < f->call_count; i++) {
		const struct ci_job_call *c = &f->calls[i];
		if (c->timeout && !c->late && ended_by_abort(f, c) && (!hung || c->time_ns < hung->time_ns))
			hung = c;
	}
	bool failed_call = false;
	uint64_t failed_ns = 0;
	for (size_t i = 0; i < f->call_count; i++) {
		const struct ci_job_call *c = &f->calls[i];
		if (c->comm_id != a->comm_id)
			continue;
		if (c->state == CI_JOB_CALL_FAILED && !failed_call) {
			failed_call = true;
			failed_ns = c->time_ns;
		}
		if (waits(c, hung) || c->state == CI_JOB_CALL_FINISHED) {
			if (c->op_seq > r->reached)
				r->reached = c->op_seq;
		}
		if (c->state == CI_JOB_CALL_FINISHED && c->op_seq > r->finished)
			r->finished = c->op_seq;
		if (c->timeout && c->op_seq > r->timeout_seq)
			r->timeout_seq = c->op_seq;
		/* The oldest collective still in flight is the one it waits in. */
		if (waits(c, hung) && (!r->wait_seq || c->op_seq < r->wait_seq)) {
			r->wait_seq = c->op_seq;
			r->wait_op = c->op;
		}
	}
	/* Not waiting in the job's communicator: the oldest collective in flight in another one
	 * (a split of it) is the wait; a call refused there is an API error all the same. */
	const struct ci_job_call *other_wait = NULL, *other_timeout = NULL;
	bool other_failed = false;
	for (size_t i = 0; i < f->call_count; i++) {
		const struct ci_job_call *c = &f->calls[i];
		if (c->comm_id == a->comm_id)
			continue;
		other_failed |= c->state == CI_JOB_CALL_FAILED;
		if (waits(c, hung) && (!other_wait || c->time_ns < other_wait->time_ns))
			other_wait = c;
		if (c->timeout && (!other_timeout || c->time_ns < other_timeout->time_ns))
			other_timeout = c;
	}
	if (other_timeout) {
		r->timeout_other_seq = other_timeout->op_seq;
		r->timeout_other_comm = other_timeout->comm_id;
		r->timeout_other_op = other_timeout->op;
	}
	if (r->wait_seq)
		r->wait_comm = a->comm_id;
	else if (other_wait) {
		r->wait_seq = other_wait->op_seq;
		r->wait_op = other_wait->op;
		r->wait_comm = other_wait->comm_id;
	}
	/* A refused collective gets no number: it would have had the one after those issued
	 * before it. */
	if (failed_call) {
		r->refused_seq = 1;
		for (size_t i = 0; i < f->call_count; i++)
			if (f->calls[i].comm_id == a->comm_id && f->calls[i].op_seq &&
			    f->calls[i].time_ns <= failed_ns && f->calls[i].op_seq >= r->refused_seq)
				r->refused_seq = f->calls[i].op_seq + 1;
	}
	const struct ci_job_comm *cm = comm_of(f, a->comm_id);
	if (f->verdict == CI_VERDICT_DEVICE_FAULT)
		r->state = CI_RANK_FAULTED;
	else if (failed_call || other_failed || f->verdict == CI_VERDICT_API_ERROR)
		r->state = CI_RANK_API_ERROR;
	else if (r->wait_seq)
		r->state = CI_RANK_HUNG;
	else if (cm && cm->state == CI_NCCL_COMM_ABORTED)
		r->state = CI_RANK_ABORTED;
	else if ((cm && cm->state != CI_NCCL_COMM_LIVE) || strcmp(f->reason, "exit") == 0)
		r->state = CI_RANK_EXITED;
	else
		r->state = CI_RANK_STOPPED;
}

/* An abort releases the collectives the rank waited in (they complete), so a record written
 * after it shows no wait; the recorder's hang watchdog flagged, before, the oldest collective
 * each stream had not finished (timeout).  Such a rank waited in the lowest collective another
 * rank never reached, at most the flagged one; flagged only in another communicator, there. */
static void waits_before_abort(struct ci_merge *m)
{
	struct ci_merge_analysis *a = &m->an;
	for (int r = 0; r < a->nranks; r++) {
		struct ci_merge_rank *rk = &a->ranks[r];
		if (rk->state != CI_RANK_ABORTED)
			continue;
		if (!rk->timeout_seq && rk->timeout_other_seq) {
			/* The watchdog found it stuck in another communicator (a split of the
			 * job's): the flagged call is the oldest its stream had not finished. */
			rk->state = CI_RANK_HUNG;
			rk->wait_seq = rk->timeout_other_seq;
			rk->wait_comm = rk->timeout_other_comm;
			rk->wait_op = rk->timeout_other_op;
			rk->until_abort = true;
			continue;
		}
		if (!rk->timeout_seq)
			continue;
		uint64_t seq = rk->timeout_seq;
		for (int o = 0; o < a->nranks; o++)
			if (o != r && a->ranks[o].input >= 0 && a->ranks[o].state != CI_RANK_ABORTED &&
			    a->ranks[o].reached + 1 < seq)
				seq = a->ranks[o].reached + 1;
		rk->state = CI_RANK_HUNG;
		rk->wait_seq = seq;
		rk->wait_comm = a->comm_id;
		rk->until_abort = true;
		const struct ci_job_call *c = call_of(&m->inputs[rk->input].facts, a->comm_id, seq);
		rk->wait_op = c ? c->op : 0;
	}
}

static bool push(int **arr, size_t *n, int v)
{
	int *p = realloc(*arr, (*n + 1) * sizeof p[0]);
	if (!p)
		return false;
	p[(*n)++] = v;
	*arr = p;
	return true;
}

/* The highest collective of communicator ID that F reached (in flight or finished). */
static uint64_t reached_in(const struct ci_job_facts *f, uint64_t id)
{
	uint64_t n = 0;
	for (size_t i = 0; i < f->call_count; i++)
		if (f->calls[i].comm_id == id && f->calls[i].op_seq > n &&
		    (f->calls[i].state == CI_JOB_CALL_IN_FLIGHT ||
		     f->calls[i].state == CI_JOB_CALL_FINISHED))
			n = f->calls[i].op_seq;
	return n;
}

/* Who never arrived at collective SEQ of a communicator split off the job's: its members with
 * an input (named by their rank in the job) that did not reach it, and how many of its ranks
 * no input holds. */
static bool other_comm_absent(struct ci_merge *m, struct ci_merge_wait *wt)
{
	struct ci_merge_analysis *a = &m->an;
	size_t seen = 0;
	for (int o = 0; o < a->nranks; o++) {
		if (a->ranks[o].input < 0)
			continue;
		const struct ci_job_facts *f = &m->inputs[a->ranks[o].input].facts;
		const struct ci_job_comm *c = comm_of(f, wt->comm_id);
		if (!c)
			continue;
		seen++;
		if (!wt->nranks)
			wt->nranks = c->nranks;
		if (reached_in(f, wt->comm_id) < wt->seq && !push(&wt->absent, &wt->absent_count, o))
			return false;
	}
	wt->unseen = wt->nranks > 0 && (size_t)wt->nranks > seen ? (size_t)wt->nranks - seen : 0;
	return true;
}

static bool add_waits(struct ci_merge *m)
{
	struct ci_merge_analysis *a = &m->an;
	for (int r = 0; r < a->nranks; r++) {
		const struct ci_merge_rank *rk = &a->ranks[r];
		if (rk->state != CI_RANK_HUNG)
			continue;
		size_t w = 0;
		while (w < a->wait_count &&
		       (a->waits[w].seq != rk->wait_seq || a->waits[w].comm_id != rk->wait_comm))
			w++;
		if (w == a->wait_count) {
			struct ci_merge_wait *p = realloc(a->waits, (w + 1) * sizeof p[0]);
			if (!p)
				return false;
			a->waits = p;
			memset(&p[w], 0, sizeof p[w]);
			p[w].comm_id = rk->wait_comm;
			p[w].seq = rk->wait_seq;
			p[w].op = rk->wait_op;
			a->wait_count++;
			if (rk->wait_comm != a->comm_id) {
				if (!other_comm_absent(m, &p[w]))
					return false;
			} else {
				p[w].nranks = a->nranks;
			}
			for (int o = 0; o < a->nranks && rk->wait_comm == a->comm_id; o++) {
				const struct ci_merge_rank *ok = &a->ranks[o];
				bool fine = true;
				if (ok->input < 0)
					fine = push(&p[w].missing, &p[w].missing_count, o);
				else if (ok->reached < rk->wait_seq)
					fine = push(&p[w].absent, &p[w].absent_count, o);
				if (!fine)
					return false;
			}
		}
		if (!push(&a->waits[w].waiting, &a->waits[w].waiting_count, r))
			return false;
	}
	return true;
}

static void find_mismatches(struct ci_merge *m)
{
	struct ci_merge_analysis *a = &m->an;
	/* Against the lowest rank with an input, number by number. */
	int base = -1;
	for (int r = 0; r < a->nranks && base < 0; r++)
		if (a->ranks[r].input >= 0)
			base = r;
	if (base < 0)
		return;
	const struct ci_job_facts *bf = &m->inputs[a->ranks[base].input].facts;
	for (int r = base + 1; r < a->nranks; r++) {
		if (a->ranks[r].input < 0)
			continue;
		const struct ci_job_facts *f = &m->inputs[a->ranks[r].input].facts;
		for (size_t i = 0; i < f->call_count; i++) {
			const struct ci_job_call *c = &f->calls[i];
			if (c->comm_id != a->comm_id || !c->op_seq)
				continue;
			const struct ci_job_call *b = call_of(bf, a->comm_id, c->op_seq);
			if (!b || (b->op == c->op && b->count == c->count && b->datatype == c->datatype &&
				   b->redop == c->redop && b->peer == c->peer))
				continue;
			if (a->mismatch_count < CI_MERGE_MISMATCH_MAX)
				a->mismatches[a->mismatch_count++] = (struct ci_merge_mismatch){
					.seq = c->op_seq, .rank = { base, r }, .call = { b, c } };
			break; /* the first per rank: the later ones follow from it */
		}
	}
}

/* FAULTED rank R: did it fault on memory another rank exported, after that rank exited? */
static void shutdown_false_positive(struct ci_merge *m, int r)
{
	struct ci_merge_analysis *a = &m->an;
	const struct ci_job_facts *f = &m->inputs[a->ranks[r].input].facts;
	uint64_t addr = f->fault_address;
	if (!addr)
		return;
	for (size_t i = 0; i < f->peer_count; i++) {
		const struct ci_job_peer *p = &f->peers[i];
		if (p->kind != CI_PEER_IPC_OPEN && p->kind != CI_PEER_VMM_MAP &&
		    p->kind != CI_PEER_VMM_IMPORT)
			continue;
		if (!p->key || addr < p->address || addr - p->address >= (p->size ? p->size : 1))
			continue;
		for (int o = 0; o < a->nranks; o++) {
			if (o == r || a->ranks[o].input < 0)
				continue;
			const struct ci_job_facts *of = &m->inputs[a->ranks[o].input].facts;
			for (size_t k = 0; k < of->peer_count; k++) {
				const struct ci_job_peer *e = &of->peers[k];
				if (e->key != p->key || (e->kind != CI_PEER_IPC_EXPORT &&
							 e->kind != CI_PEER_VMM_EXPORT))
					continue;
				/* The owner's end: its communicator's, else its input's newest time. */
				const struct ci_job_comm *oc = comm_of(of, a->comm_id);
				uint64_t gone = oc && oc->end_ns ? oc->end_ns : of->end_ns;
				bool left = a->ranks[o].state == CI_RANK_EXITED ||
					    a->ranks[o].state == CI_RANK_FAULTED ||
					    a->ranks[o].state == CI_RANK_API_ERROR;
				if (left && gone && f->failure_ns && gone <= f->failure_ns) {
					a->ranks[r].false_positive = true;
					a->ranks[r].fp_owner = o;
					return;
				}
			}
		}
	}
}

/* When rank R's trouble began, on its host's clock: its failure, else its input's end. */
static uint64_t failure_time(const struct ci_merge *m, int r)
{
	const struct ci_job_facts *f = &m->inputs[m->an.ranks[r].input].facts;
	const struct ci_job_comm *c = comm_of(f, m->an.comm_id);
	if (f->failure_ns)
		return f->failure_ns;
	if (c && c->end_ns)
		return c->end_ns;
	return f->end_ns;
}

static void first_failure(struct ci_merge *m)
{
	struct ci_merge_analysis *a = &m->an;
	a->first = -1;
	a->runner_up = -1;
	/* Suspects: ranks that failed or left, except faults a peer's exit explains; a rank that
	 * exited is a suspect only where others wait for it. */
	uint64_t lowest_wait = 0; /* in the job's communicator, whose numbers REACHED counts */
	for (size_t w = 0; w < a->wait_count; w++)
		if (a->waits[w].comm_id == a->comm_id && (!lowest_wait || a->waits[w].seq < lowest_wait))
			lowest_wait = a->waits[w].seq;
	int best = -1;
	size_t suspects = 0;
	const struct ci_job_facts *bf = NULL;
	a->one_clock = true;
	for (int r = 0; r < a->nranks; r++) {
		const struct ci_merge_rank *rk = &a->ranks[r];
		bool suspect = rk->state == CI_RANK_FAULTED || rk->state == CI_RANK_API_ERROR ||
			       ((rk->state == CI_RANK_EXITED || rk->state == CI_RANK_STOPPED ||
				 rk->state == CI_RANK_ABORTED) &&
				lowest_wait && rk->reached < lowest_wait);
		if (!suspect)
			continue;
		suspects++;
		if (best < 0) {
			best = r;
			a->first_why = "only";
			bf = &m->inputs[rk->input].facts;
			continue;
		}
		const struct ci_merge_rank *bk = &a->ranks[best];
		const struct ci_job_facts *f = &m->inputs[rk->input].facts;
		/* A fault explained by a peer's exit comes after that exit. */
		if (bk->false_positive != rk->false_positive) {
			if (bk->false_positive)
				best = r, bf = f;
			a->first_why = "peer_exit";
			continue;
		}
		if (rk->reached != bk->reached) {
			if (rk->reached < bk->reached)
				best = r, bf = f;
			if (strcmp(a->first_why, "only") == 0)
				a->first_why = "collective";
			continue;
		}
		if (strcmp(f->host, bf->host) != 0 || strcmp(f->boot_id, bf->boot_id) != 0 ||
		    !f->boot_id[0])
			a->one_clock = false;
		a->first_why = "time";
		if (failure_time(m, r) < failure_time(m, best)) {
			a->runner_up = best;
			best = r, bf = f;
		} else if (a->runner_up < 0 || failure_time(m, r) < failure_time(m, a->runner_up)) {
			a->runner_up = r;
		}
	}
	if (best >= 0 && a->runner_up >= 0 && strcmp(a->first_why, "time") == 0)
		a->lead_ns = failure_time(m, a->runner_up) - failure_time(m, best);
	else
		a->runner_up = -1;
	a->first = best;
	if (best >= 0 || !lowest_wait)
		return;
	/* Nobody with an input failed, yet ranks wait: the rank without an input is the suspect. */
	for (size_t w = 0; w < a->wait_count; w++)
		if (a->waits[w].comm_id == a->comm_id && a->waits[w].seq == lowest_wait &&
		    a->waits[w].missing_count) {
			a->first = a->waits[w].missing[0];
			a->first_is_missing = true;
			a->first_why = "missing";
		}
}

struct ci_error *ci_merge_analyse(struct ci_merge *m)
{
	if (m->analysed)
		return NULL;
	struct ci_merge_analysis *a = &m->an;
	ci_merge_analysis_deinit(a);
	for (size_t i = 0; i < m->input_count; i++)
		if (m->inputs[i].status != CI_MERGE_IN_BAD) {
			m->inputs[i].status = CI_MERGE_IN_USED;
			m->inputs[i].rank = -1;
		}

	/* One process, several inputs (its hang and signal snapshots, its core, its JSON): the
	 * one that knows the most recent past is kept (a complete one before a damaged one), except that an abort erases a wait (the
	 * aborted collectives complete), so an input that shows a wait is kept over a later one
	 * that shows only the abort. */
	for (size_t i = 0; i < m->input_count; i++) {
		struct ci_merge_input *in = &m->inputs[i];
		if (in->status != CI_MERGE_IN_USED)
			continue;
		for (size_t j = 0; j < i; j++) {
			struct ci_merge_input *kept = &m->inputs[j];
			if (kept->status != CI_MERGE_IN_USED || !same_process(&in->facts, &kept->facts))
				continue;
			if (newer_says_more(&in->facts, &kept->facts)) {
				kept->status = CI_MERGE_IN_DUPLICATE;
				kept->same_as = i;
				for (size_t k = 0; k < i; k++)
					if (m->inputs[k].status == CI_MERGE_IN_DUPLICATE &&
					    m->inputs[k].same_as == j)
						m->inputs[k].same_as = i;
			} else {
				in->status = CI_MERGE_IN_DUPLICATE;
				in->same_as = j;
				break;
			}
		}
	}

	choose_comm(m);
	if (a->nranks > 0 && !(a->ranks = calloc((size_t)a->nranks, sizeof a->ranks[0])))
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	for (int r = 0; r < a->nranks; r++)
		a->ranks[r].input = -1;
	for (size_t i = 0; i < m->input_count; i++) {
		struct ci_merge_input *in = &m->inputs[i];
		if (in->status != CI_MERGE_IN_USED)
			continue;
		const struct ci_job_comm *c = a->comm_id ? comm_of(&in->facts, a->comm_id) : NULL;
		if (!c || c->rank < 0 || c->rank >= a->nranks) {
			in->status = CI_MERGE_IN_OTHER_JOB;
			continue;
		}
		struct ci_merge_rank *rk = &a->ranks[c->rank];
		if (rk->input >= 0) {
			/* Two processes as one rank: a restarted rank; the later one is kept. */
			struct ci_merge_input *other = &m->inputs[rk->input];
			if (other->facts.start_ns >= in->facts.start_ns) {
				in->status = CI_MERGE_IN_DUPLICATE;
				in->same_as = (size_t)rk->input;
				continue;
			}
			other->status = CI_MERGE_IN_DUPLICATE;
			other->same_as = i;
		}
		rk->input = (ptrdiff_t)i;
		in->rank = c->rank;
	}
	for (size_t i = 0; i < m->input_count; i++) {
		unsigned s = m->inputs[i].status;
		a->used += s == CI_MERGE_IN_USED;
		a->bad += s == CI_MERGE_IN_BAD;
		a->duplicates += s == CI_MERGE_IN_DUPLICATE;
		a->other_job += s == CI_MERGE_IN_OTHER_JOB;
	}
	for (int r = 0; r < a->nranks; r++) {
		struct ci_merge_rank *rk = &a->ranks[r];
		if (rk->input < 0) {
			a->missing++;
			continue;
		}
		rank_state(a, &m->inputs[rk->input].facts, rk);
	}
	waits_before_abort(m);
	for (int r = 0; r < a->nranks; r++)
		if (a->ranks[r].state == CI_RANK_FAULTED)
			shutdown_false_positive(m, r);
	if (!add_waits(m))
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	find_mismatches(m);
	first_failure(m);
	m->analysed = true;
	return NULL;
}
