/* SPDX-License-Identifier: MIT */
/*
 * Rule family "progress": per stream, the breadcrumb value (the last per-stream launch number the
 * GPU itself wrote back) splits the recorded launches into finished, in flight, not started and
 * unknown; a stream without breadcrumbs knows only what its last synchronization finished.  What
 * is left unfinished are the suspects: launches in flight, launches in a window between two
 * breadcrumbs (one of them in flight), and, on streams without breadcrumbs, the launches made
 * since their work was last known done.  No findings: the families after it reason from these.
 */
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

enum { IN_CRUMB_WINDOW = 1, IN_OPEN_WINDOW = 2 };


static int cmp_launch_order(const void *a, const void *b, void *arg)
{
	struct ci_launch_briefs lb = *(const struct ci_launch_briefs *)arg;
	const struct ci_launch_brief *x = ci_brief_at(lb, *(const size_t *)a);
	const struct ci_launch_brief *y = ci_brief_at(lb, *(const size_t *)b);
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->stream_seq != y->stream_seq)
		return x->stream_seq < y->stream_seq ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Fill ORDER with the launch indices grouped by stream slot (unknown streams last) and sorted
 * by stream sequence within each stream.  A counting sort by stream keeps the time order, which
 * is almost always the stream order already, so only out-of-order streams are sorted. */
static int order_launches(const struct ci_model *m, struct ci_launch_briefs lb, size_t *order)
{
	size_t ns = m->stream_count, nl = m->launch_count;
	size_t *start = calloc(ns + 2, sizeof(*start));
	if (!start)
		return -1;
	for (size_t i = 0; i < nl; i++) {
		uint32_t s = ci_brief_at(lb, i)->stream;
		start[(s < ns ? s : ns) + 1]++;
	}
	for (size_t s = 1; s <= ns + 1; s++)
		start[s] += start[s - 1];
	for (size_t i = 0; i < nl; i++) {
		uint32_t s = ci_brief_at(lb, i)->stream;
		order[start[s < ns ? s : ns]++] = i;
	}
	/* start[s] is now the end of bucket s. */
	for (size_t s = 0, b = 0; s <= ns; b = start[s], s++) {
		size_t e = start[s];
		for (size_t k = b + 1; k < e; k++)
			if (cmp_launch_order(&order[k - 1], &order[k], &lb) > 0) {
				qsort_r(order + b, e - b, sizeof(*order), cmp_launch_order,
					&lb);
				break;
			}
	}
	free(start);
	return 0;
}

/* Whether the launch took part in stream order: a failed call enqueued nothing, a captured
 * launch went into a graph and runs later as part of a graph launch. */
static bool launch_enqueued(uint32_t flags)
{
	return !(flags & (CI_LAUNCH_FAILED | CI_LAUNCH_CAPTURED));
}

/* Whether launch L has one of its stream's numbers 1..launched.  One past the stream's counter
 * cannot be in a core (the number is handed out before the launch is recorded): it is damage,
 * or in a live read a launch made after the stream table was read, which the diagnosis of what
 * the table says does not weigh (a sparse decode does not even read it). */
static bool numbered(const struct ci_stream_progress *p, const struct ci_launch_brief *l)
{
	return l->stream_seq != 0 && l->stream_seq <= p->launched;
}

/* The ring seq of launch I (which ring slot it was written to, in claim order). */
static uint64_t ring_seq(const struct ci_rule_ctx *c, size_t i)
{
	const struct ci_launch *l = ci_model_load_launch(c->model, i);
	return l ? l->seq : 0;
}

/* Whether ORDER[K] is a launch the diagnosis weighs: enqueued, with one of its stream's numbers,
 * and, when a damaged record repeats that number, the entry written last (the highest ring seq):
 * the sparse scan reads the ring from its head back, so that is the one it finds. */
static bool weighed(const struct ci_rule_ctx *c, const struct ci_stream_progress *p, size_t begin,
		    size_t k, size_t end)
{
	size_t i = c->order[k];
	const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
	if (!launch_enqueued(l->flags) || !numbered(p, l))
		return false;
	/* Entries with the same number are next to it in ORDER (sorted by number, then time). */
	for (size_t j = k; j > begin; j--) {
		const struct ci_launch_brief *o = ci_brief_at(c->lb, c->order[j - 1]);
		if (o->stream_seq != l->stream_seq)
			break;
		if (launch_enqueued(o->flags) && ring_seq(c, c->order[j - 1]) > ring_seq(c, i))
			return false;
	}
	for (size_t j = k + 1; j < end; j++) {
		const struct ci_launch_brief *o = ci_brief_at(c->lb, c->order[j]);
		if (o->stream_seq != l->stream_seq)
			break;
		if (launch_enqueued(o->flags) && ring_seq(c, c->order[j]) > ring_seq(c, i))
			return false;
	}
	return true;
}

static void oldest_unfinished(struct ci_rule_ctx *c, struct ci_stream_progress *p, size_t begin,
			      size_t end)
{
	for (size_t k = begin; k < end && p->oldest_unfinished < 0; k++) {
		size_t i = c->order[k];
		if (weighed(c, p, begin, k, end) && c->diag->launch_state[i] != CI_LS_FINISHED)
			p->oldest_unfinished = (ptrdiff_t)i;
	}
}

/* A stream without breadcrumbs: what was made before its last synchronization finished; of the
 * rest nothing is known, and the newest CI_OPEN_WINDOW_MAX of them are its window. */
static void classify_open(struct ci_rule_ctx *c, struct ci_stream_progress *p, size_t begin,
			  size_t end)
{
	enum ci_launch_state *state = c->diag->launch_state;
	uint64_t bound = c->ev->streams[p->stream].synced_ns, done = 0;
	uint64_t seq_done = c->ev->streams[p->stream].synced_seq; /* 1.3 */
	size_t open = 0;
	p->synced_ns = bound;
	for (size_t k = begin; k < end; k++) {
		size_t i = c->order[k];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		if (l->flags & CI_LAUNCH_FAILED) {
			state[i] = CI_LS_NOT_STARTED;
		} else if (!weighed(c, p, begin, k, end)) {
			state[i] = CI_LS_UNKNOWN;
		} else if ((bound && l->time_ns < bound) || l->stream_seq <= seq_done) {
			state[i] = CI_LS_FINISHED;
			if (l->stream_seq > done)
				done = l->stream_seq;
		} else {
			state[i] = CI_LS_UNKNOWN;
			open++;
		}
	}
	for (size_t k = end; k-- > begin && open;) {
		size_t i = c->order[k];
		if (state[i] == CI_LS_UNKNOWN && weighed(c, p, begin, k, end) &&
		    open-- <= CI_OPEN_WINDOW_MAX)
			c->window[i] = IN_OPEN_WINDOW;
	}
	if (seq_done > done)
		done = seq_done;
	p->finished = done < p->launched ? done : p->launched;
	p->unknown = p->launched - p->finished;
	oldest_unfinished(c, p, begin, end);
}

/* The stream's last launch known finished: its breadcrumb CRUMB, or past it, the launches made
 * before the start of its last successful synchronization, as long as the ring holds them one
 * after the other.  Breadcrumbs are spent within a budget, so the launches since the last one
 * are often many; an engine's synchronizations close most of them. */
static uint64_t synced_through(const struct ci_rule_ctx *c, const struct ci_stream_progress *p,
			       size_t begin, size_t end, uint64_t crumb)
{
	uint64_t bound = c->ev->streams[p->stream].synced_ns;
	if (!bound)
		return crumb;
	for (size_t k = begin; k < end; k++) {
		const struct ci_launch_brief *l = ci_brief_at(c->lb, c->order[k]);
		if (!weighed(c, p, begin, k, end) || l->stream_seq <= crumb)
			continue;
		if (l->stream_seq != crumb + 1 || l->time_ns >= bound)
			break;
		crumb = l->stream_seq;
	}
	return crumb;
}

/* States and counts of one stream's launches, ORDER[BEGIN..END), in stream order.  Counts are
 * over the stream's launch numbers 1..launched, whether the ring still holds them or not:
 * launches up to the breadcrumb finished; the next one is exactly in flight when a breadcrumb
 * write followed it, else the launches up to the next one that carries a breadcrumb are a window
 * of which one is in flight; later ones have not started. */
static void classify_stream(struct ci_rule_ctx *c, struct ci_stream_progress *p, size_t begin,
			    size_t end)
{
	const struct ci_model *m = c->model;
	enum ci_launch_state *state = c->diag->launch_state;
	const struct ci_stream *st = &m->streams[p->stream];
	const struct ci_stream_facts *f = &c->ev->streams[p->stream];
	uint64_t crumb = f->crumb;
	p->launched = st->launches;
	p->oldest_unfinished = -1;
	if (!f->has_crumb) {
		classify_open(c, p, begin, end);
		return;
	}
	p->crumb = crumb;
	/* A synchronization of the stream saw the launches it found handed out finish (1.3). */
	if (f->synced_seq > crumb)
		crumb = f->synced_seq;
	crumb = synced_through(c, p, begin, end, crumb);
	p->synced_ns = f->synced_ns;

	uint64_t expect = crumb + 1, window_seq = 0;
	bool exact = false;
	size_t first_pending = end, window_end = end;
	for (size_t k = begin; k < end; k++) {
		size_t i = c->order[k];
		const struct ci_launch_brief *l = ci_brief_at(c->lb, i);
		if (l->flags & CI_LAUNCH_FAILED) {
			state[i] = CI_LS_NOT_STARTED;
			if (l->stream_seq == expect)
				expect++;
			continue;
		}
		if (!weighed(c, p, begin, k, end)) {
			state[i] = CI_LS_UNKNOWN;
			continue;
		}
		if (l->stream_seq <= crumb) {
			state[i] = CI_LS_FINISHED;
			continue;
		}
		if (first_pending == end) {
			first_pending = k;
			if (l->stream_seq == expect && (l->flags & CI_LAUNCH_CRUMB)) {
				state[i] = CI_LS_IN_FLIGHT;
				window_end = k + 1;
				window_seq = l->stream_seq;
				exact = true;
				continue;
			}
		}
		if (window_end == end) {
			/* Unknown up to and including the next launch that carries a breadcrumb. */
			state[i] = CI_LS_UNKNOWN;
			c->window[i] = IN_CRUMB_WINDOW;
			if (l->flags & CI_LAUNCH_CRUMB) {
				window_end = k + 1;
				window_seq = l->stream_seq;
			}
		} else {
			state[i] = CI_LS_NOT_STARTED;
		}
	}
	p->finished = crumb;
	if (crumb < p->launched) {
		/* Where the window ends when the ring does not hold its last launch: nothing is
		 * known past the breadcrumb then. */
		uint64_t last = window_seq && window_seq <= p->launched ? window_seq : p->launched;
		if (exact)
			p->in_flight = 1;
		else
			p->unknown = last - crumb;
		p->not_started = p->launched - last;
	}
	oldest_unfinished(c, p, begin, end);
}

/* Per-stream progress, one entry per published stream, and the suspects it leaves. */
static int classify_streams(struct ci_rule_ctx *c, struct ci_suspects *sus)
{
	const struct ci_model *m = c->model;
	struct ci_diagnosis *d = c->diag;
	size_t nl = m->launch_count, ns = 0;
	for (size_t s = 0; s < m->stream_count; s++)
		ns += m->streams[s].seq != 0;
	d->streams = calloc(ns ? ns : 1, sizeof(*d->streams));
	if (!d->streams || order_launches(m, c->lb, c->order))
		return -1;
	size_t k = 0;
	for (size_t s = 0; s < m->stream_count; s++) {
		while (k < nl && ci_brief_at(c->lb, c->order[k])->stream < s)
			k++; /* launches on unpublished or unknown streams stay unknown */
		size_t begin = k;
		while (k < nl && ci_brief_at(c->lb, c->order[k])->stream == s)
			k++;
		if (m->streams[s].seq == 0)
			continue;
		struct ci_stream_progress *p = &d->streams[d->stream_count++];
		p->stream = (uint32_t)s;
		classify_stream(c, p, begin, k);
	}
	for (size_t i = 0; i < nl; i++) {
		if (d->launch_state[i] == CI_LS_IN_FLIGHT)
			sus->in_flight[sus->n_in_flight++] = i;
		else if (c->window[i] == IN_CRUMB_WINDOW)
			sus->window[sus->n_window++] = i;
		else if (c->window[i] == IN_OPEN_WINDOW)
			sus->open[sus->n_open++] = i;
	}
	return 0;
}

/* The candidates the driver's word weighs: the launches that may have been in flight, or those
 * made since their stream's last synchronization. */
static int candidates(struct ci_rule_ctx *c)
{
	const struct ci_suspects *sus = &c->sus;
	bool inflight = sus->n_in_flight || sus->n_window;
	size_t n = inflight ? sus->n_in_flight + sus->n_window : sus->n_open;
	if (!(c->cand = malloc((n ? n : 1) * sizeof(*c->cand))))
		return -1;
	if (inflight) {
		memcpy(c->cand, sus->in_flight, sus->n_in_flight * sizeof(*c->cand));
		memcpy(c->cand + sus->n_in_flight, sus->window, sus->n_window * sizeof(*c->cand));
	} else {
		memcpy(c->cand, sus->open, sus->n_open * sizeof(*c->cand));
	}
	c->n_cand = n;
	return 0;
}

int ci_rules_progress(struct ci_rule_ctx *c)
{
	return classify_streams(c, &c->sus) || candidates(c) ? -1 : 0;
}
