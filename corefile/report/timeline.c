/* SPDX-License-Identifier: MIT */
/*
 * The timeline of a record, which the Chrome trace (render_trace.c) and the SVG picture
 * (render_svg.c) draw: a lane per stream (the streams of the diagnosis, as the JSON report lists
 * them), per host thread and one for the kernel log's lines, and on them the launches, the
 * kernel nodes of graph replays, synchronizations, copies, allocations, frees, errors and Xid
 * lines, all on the record's clock (CLOCK_MONOTONIC of the process, nanoseconds).
 *
 * The record holds when each launch was made, not when the GPU ran it, so a launch's box starts
 * at its call and ends at the first thing that bounds it: a finished launch at the next launch on
 * its stream or the return of a synchronization that covers it, whichever comes first (at the
 * end of the record when neither does: its breadcrumb was read then); a launch that may still
 * have been running (in flight, or unknown) at the end of the record; a launch that had not
 * started at the next launch (it was queued).  So on a lane the boxes of finished and queued
 * launches never overlap, and a box drawn to the end holds every later one: the boxes nest, as
 * trace viewers want.  Bounds (session.h) keep a huge record's timeline small; what they leave
 * out is counted.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static struct ci_tl_item *push(struct ci_timeline *tl, enum ci_tl_kind kind, uint32_t lane,
			       uint64_t start, size_t index)
{
	if (ci_vec_reserve((void **)&tl->items, &tl->cap, tl->count + 1, sizeof *tl->items))
		return NULL;
	struct ci_tl_item *it = &tl->items[tl->count++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	it->lane = lane;
	it->start = it->end = it->own_end = start;
	it->end_why = CI_TL_END_INSTANT;
	it->index = index;
	return it;
}

static uint32_t add_lane(struct ci_timeline *tl, size_t *cap, enum ci_tl_lane_kind kind,
			 uint32_t stream, uint32_t tid)
{
	if (ci_vec_reserve((void **)&tl->lanes, cap, tl->lane_count + 1, sizeof *tl->lanes))
		return CI_NONE;
	tl->lanes[tl->lane_count] = (struct ci_tl_lane){ .kind = kind, .stream = stream, .tid = tid };
	return (uint32_t)tl->lane_count++;
}

/* The lane of host thread TID, made on first use. */
struct lanes {
	struct ci_timeline *tl;
	size_t cap;
	uint32_t *by_stream;   /* stream slot -> lane, CI_NONE */
	size_t stream_count;
	uint32_t no_stream;    /* the lane of launches without a stream, CI_NONE */
	uint32_t kernel_log;
};

static uint32_t thread_lane(struct lanes *ls, uint32_t tid)
{
	struct ci_timeline *tl = ls->tl;
	for (size_t i = tl->lane_count; i-- > 0;)
		if (tl->lanes[i].kind == CI_TL_LANE_THREAD && tl->lanes[i].tid == tid)
			return (uint32_t)i;
	return add_lane(tl, &ls->cap, CI_TL_LANE_THREAD, CI_NONE, tid);
}

static uint32_t stream_lane(struct lanes *ls, uint32_t stream)
{
	if (stream < ls->stream_count && ls->by_stream[stream] != CI_NONE)
		return ls->by_stream[stream];
	if (ls->no_stream == CI_NONE)
		ls->no_stream = add_lane(ls->tl, &ls->cap, CI_TL_LANE_STREAM, CI_NONE, 0);
	return ls->no_stream;
}

/* ---------------------------------------------------------------------------------------- */
/* The clock: the record's start and end                                                    */

static void clock_bounds(const struct ci_report *r, struct ci_timeline *tl)
{
	const struct ci_model *m = r->model;
	const struct ci_header *h = &m->header;
	uint64_t lo = h->start_monotonic_ns ? h->start_monotonic_ns : UINT64_MAX, hi = 0;
#define SEE(t) do { uint64_t t_ = (t); if (t_ < lo) lo = t_; if (t_ > hi) hi = t_; } while (0)
	for (size_t i = 0; i < m->launch_count; i++)
		SEE(ci_report_launch(r, i)->time_ns);
	for (size_t i = 0; i < m->event_count; i++) {
		SEE(m->events[i].time_ns);
		SEE(add_sat(m->events[i].time_ns, m->events[i].duration_ns));
	}
	for (size_t i = 0; i < m->error_count; i++)
		SEE(m->errors[i].time_ns);
	for (size_t i = 0; i < m->alloc_count; i++)
		SEE(ci_report_alloc(r, i)->time_ns);
	for (size_t i = 0; i < m->free_count; i++) {
		SEE(m->frees[i].time_ns);
		SEE(m->frees[i].free_ns);
	}
#undef SEE
	if (lo == UINT64_MAX)
		lo = 0;
	tl->t0 = lo;
	tl->crash_known = h->end_monotonic_ns != 0 && h->end_monotonic_ns >= hi && h->end_monotonic_ns >= lo;
	tl->t_end = tl->crash_known ? h->end_monotonic_ns : hi > lo ? hi : lo;
	const struct ci_diagnosis *d = r->diagnosis;
	ptrdiff_t e = d->first_sticky_error >= 0 ? d->first_sticky_error : d->first_error;
	if (e >= 0 && (size_t)e < m->error_count)
		tl->first_error_ns = m->errors[e].time_ns;
}

/* ---------------------------------------------------------------------------------------- */
/* Launches                                                                                  */

/* Launches that enqueued nothing on their stream: captured into a graph, or the call failed. */
static bool drawn_launch(const struct ci_launch *l)
{
	return !(l->flags & (CI_LAUNCH_CAPTURED | CI_LAUNCH_FAILED));
}

static int add_launches(const struct ci_report *r, struct ci_timeline *tl, struct lanes *ls)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	size_t total = 0;
	for (size_t i = m->launch_count; i-- > 0;) {
		const struct ci_launch *l = ci_report_launch(r, i);
		if (!drawn_launch(l) && (ptrdiff_t)i != d->faulting_launch)
			continue;
		uint32_t lane = stream_lane(ls, l->stream);
		if (lane == CI_NONE)
			return -1;
		struct ci_tl_lane *ln = &tl->lanes[lane];
		if ((ln->launches >= CI_TL_LAUNCHES_PER_STREAM || total >= CI_TL_LAUNCHES_MAX) &&
		    (ptrdiff_t)i != d->faulting_launch) {
			ln->left_out++;
			tl->launches_left_out++;
			continue;
		}
		struct ci_tl_item *it = push(tl, CI_TL_LAUNCH, lane, l->time_ns, i);
		if (!it)
			return -1;
		it->state = d->launch_state[i];
		it->faulting = (ptrdiff_t)i == d->faulting_launch;
		tl->lanes[lane].launches++;
		total++;
	}
	return 0;
}

/* What a successful synchronization says: launches made before COVERS on stream KEY (or, for a
 * cuCtxSynchronize, on every stream of context KEY) had finished by DONE, when it returned. */
struct cover {
	bool ctx;
	uint32_t key;
	uint64_t covers, done;
};

static int cmp_cover(const void *a, const void *b)
{
	const struct cover *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->covers < y->covers ? -1 : x->covers > y->covers;
}

/* The covers of the event ring, in one pass: an event synchronization covers the stream its
 * event was last recorded on, up to that record (an open-addressed table of the last record of
 * each event handle).  Sorted by (kind, key, covers), each done made the minimum over the later
 * covers of its key: what bounds a launch made before covers.  Returns how many, -1 on no
 * memory. */
static ptrdiff_t make_covers(const struct ci_model *m, struct cover *out)
{
	size_t cap = 16;
	while (cap < 2 * m->event_count)
		cap *= 2;
	struct last { uint64_t handle, at; uint32_t stream; bool used; } *last = calloc(cap, sizeof *last);
	if (!last)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < m->event_count; i++) {
		const struct ci_event *e = &m->events[i];
		if (e->kind == CI_EV_EVENT_RECORD || e->kind == CI_EV_EVENT_SYNC) {
			size_t h = (size_t)(e->a * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
			while (last[h].used && last[h].handle != e->a)
				h = (h + 1) & (cap - 1);
			if (e->kind == CI_EV_EVENT_RECORD) {
				last[h] = (struct last){ e->a, e->time_ns, e->stream, true };
				continue;
			}
			if (last[h].used && e->result == 0 && last[h].stream != CI_NONE)
				out[n++] = (struct cover){ false, last[h].stream, last[h].at,
							   add_sat(e->time_ns, e->duration_ns) };
		} else if (e->result == 0 && e->kind == CI_EV_STREAM_SYNC && e->stream != CI_NONE) {
			out[n++] = (struct cover){ false, e->stream, e->time_ns, add_sat(e->time_ns, e->duration_ns) };
		} else if (e->result == 0 && e->kind == CI_EV_CTX_SYNC && e->ctx != CI_NONE) {
			out[n++] = (struct cover){ true, e->ctx, e->time_ns, add_sat(e->time_ns, e->duration_ns) };
		}
	}
	free(last);
	qsort(out, n, sizeof *out, cmp_cover);
	for (size_t k = n; k-- > 1;)
		if (out[k - 1].ctx == out[k].ctx && out[k - 1].key == out[k].key && out[k].done < out[k - 1].done)
			out[k - 1].done = out[k].done;
	return (ptrdiff_t)n;
}

/* When the covers of (CTX, KEY) showed a launch made at T done: the earliest return of one that
 * covers launches made before a time after T; 0 if none. */
static uint64_t done_by(const struct cover *c, size_t n, bool ctx, uint32_t key, uint64_t t)
{
	struct cover probe = { ctx, key, t, 0 };
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first cover past (ctx, key, t) */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_cover(&c[mid], &probe) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c[lo].ctx == ctx && c[lo].key == key ? c[lo].done : 0;
}

/* Items (pointers to them) by lane, then start. */
static int cmp_lane_time(const void *a, const void *b)
{
	const struct ci_tl_item *x = *(const struct ci_tl_item *const *)a;
	const struct ci_tl_item *y = *(const struct ci_tl_item *const *)b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int cmp_lane_launch(const void *a, const void *b, void *arg)
{
	const struct ci_report *r = arg;
	int c = cmp_lane_time(a, b);
	if (c)
		return c;
	const struct ci_tl_item *x = *(const struct ci_tl_item *const *)a;
	const struct ci_tl_item *y = *(const struct ci_tl_item *const *)b;
	const struct ci_launch *lx = ci_report_launch(r, x->index);
	const struct ci_launch *ly = ci_report_launch(r, y->index);
	if (lx->stream_seq != ly->stream_seq)
		return lx->stream_seq < ly->stream_seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Each launch's end (the file's comment says how): the launches sorted by lane and time. */
static int launch_ends(const struct ci_report *r, struct ci_timeline *tl)
{
	const struct ci_model *m = r->model;
	struct ci_tl_item **order = malloc((tl->count + 1) * sizeof *order);
	struct cover *covers = malloc((m->event_count + 1) * sizeof *covers);
	ptrdiff_t nc = covers ? make_covers(m, covers) : -1;
	if (!order || nc < 0) {
		free(order), free(covers);
		return -1;
	}
	size_t n = 0;
	for (size_t k = 0; k < tl->count; k++)
		if (tl->items[k].kind == CI_TL_LAUNCH)
			order[n++] = &tl->items[k];
	qsort_r(order, n, sizeof *order, cmp_lane_launch, (void *)r);
	for (size_t k = 0; k < n; k++) {
		struct ci_tl_item *it = order[k];
		const struct ci_tl_lane *ln = &tl->lanes[it->lane];
		bool last = k + 1 == n || order[k + 1]->lane != it->lane;
		uint64_t next = last ? tl->t_end : order[k + 1]->start;
		uint64_t done = 0, by_ctx = 0;
		if (ln->stream != CI_NONE && ci_stream_valid(m, ln->stream)) {
			done = done_by(covers, (size_t)nc, false, ln->stream, it->start);
			by_ctx = done_by(covers, (size_t)nc, true, m->streams[ln->stream].ctx, it->start);
			if (by_ctx && (!done || by_ctx < done))
				done = by_ctx;
		}
		switch (it->state) {
		case CI_LS_FINISHED:
			it->end = next, it->end_why = last ? CI_TL_END_RECORD : CI_TL_END_NEXT;
			if (done && done < it->end)
				it->end = done, it->end_why = CI_TL_END_SYNC;
			break;
		case CI_LS_NOT_STARTED:
			it->end = next, it->end_why = last ? CI_TL_END_RECORD : CI_TL_END_NEXT;
			break;
		default: /* in flight, or unknown: it may still have been running */
			it->end = tl->t_end, it->end_why = CI_TL_END_CRASH;
			break;
		}
		if (it->end > tl->t_end)
			it->end = tl->t_end;
		if (it->end < it->start)
			it->end = it->start;
		it->own_end = it->end < next ? it->end : next < it->start ? it->start : next;
	}
	free(order), free(covers);
	return 0;
}

/* Graph launches: their kernel nodes inside their box, in the replay's order, the box split
 * evenly among them (the record has no node times). */
static int add_nodes(const struct ci_report *r, struct ci_timeline *tl)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	tl->replays = calloc(CI_TL_REPLAYS_MAX, sizeof *tl->replays);
	if (!tl->replays)
		return -1;
	size_t launches = tl->count;
	/* Newest first: the items were added from the newest launch back. */
	for (size_t k = 0; k < launches; k++) {
		struct ci_tl_item *it = &tl->items[k];
		if (it->kind != CI_TL_LAUNCH || ci_report_launch(r, it->index)->api != CI_LAUNCH_GRAPH)
			continue;
		const struct ci_graph_replay *g = NULL;
		if ((ptrdiff_t)it->index == d->faulting_launch && d->graph) {
			g = d->graph;
		} else if (tl->replay_count < CI_TL_REPLAYS_MAX) {
			struct ci_graph_replay *own = &tl->replays[tl->replay_count];
			if (!ci_graph_replay_expand(m, it->index, it->state, own))
				continue;
			tl->replay_count++;
			g = own;
		} else {
			tl->replays_not_expanded++;
			continue;
		}
		size_t *ord = ci_graph_replay_order(g);
		size_t kernels = 0;
		for (size_t a = 0; a < g->node_count; a++) {
			const struct ci_graph_node *nd = g->nodes[ord ? ord[a] : a].node;
			kernels += nd && nd->type == CI_NODE_KERNEL;
		}
		size_t shown = kernels < CI_TL_NODES_PER_REPLAY ? kernels : CI_TL_NODES_PER_REPLAY;
		tl->nodes_left_out += kernels - shown;
		uint64_t from = it->start, span = it->own_end - it->start;
		uint32_t lane = it->lane;
		size_t j = 0;
		for (size_t a = 0; a < g->node_count && j < shown; a++) {
			size_t ni = ord ? ord[a] : a;
			const struct ci_graph_node *nd = g->nodes[ni].node;
			if (!nd || nd->type != CI_NODE_KERNEL)
				continue;
			/* The span split in SHOWN parts, computed so that no product overflows. */
			uint64_t s = from + span / shown * j + span % shown * j / shown;
			uint64_t e = from + span / shown * (j + 1) + span % shown * (j + 1) / shown;
			struct ci_tl_item *n = push(tl, CI_TL_NODE, lane, s, ni);
			if (!n) {
				free(ord);
				return -1;
			}
			n->end = n->own_end = e;
			n->end_why = CI_TL_END_NEXT;
			n->state = g->nodes[ni].state;
			n->parent = k;
			n->replay = g;
			n->faulting = g == d->graph && g->faulting_node == (ptrdiff_t)ni;
			j++;
		}
		free(ord);
	}
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The host side: calls, allocations, frees, errors; the kernel log                          */

struct newest {
	uint64_t t;
	size_t index;
	bool freed;
};

static int cmp_newest(const void *a, const void *b)
{
	const struct newest *x = a, *y = b;
	if (x->t != y->t)
		return x->t > y->t ? -1 : 1;
	return x->index > y->index ? -1 : x->index < y->index;
}

static int add_calls(const struct ci_report *r, struct ci_timeline *tl, struct lanes *ls)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	size_t taken = 0;
	for (size_t i = m->event_count; i-- > 0;) {
		const struct ci_event *e = &m->events[i];
		bool sync = e->kind == CI_EV_CTX_SYNC || e->kind == CI_EV_STREAM_SYNC ||
			    e->kind == CI_EV_EVENT_SYNC;
		if (!sync && e->kind != CI_EV_MEMCPY && e->kind != CI_EV_MEMSET)
			continue;
		if (taken >= CI_TL_CALLS_MAX && (ptrdiff_t)i != d->faulting_copy) {
			tl->calls_left_out++;
			continue;
		}
		uint32_t lane = thread_lane(ls, e->tid);
		struct ci_tl_item *it = lane == CI_NONE ? NULL
				       : push(tl, sync ? CI_TL_SYNC : CI_TL_COPY, lane, e->time_ns, i);
		if (!it)
			return -1;
		if (sync) {
			it->end = it->own_end = add_sat(e->time_ns, e->duration_ns);
			it->end_why = CI_TL_END_SYNC;
		}
		it->faulting = (ptrdiff_t)i == d->faulting_copy;
		taken++;
	}
	const struct ci_launch *fl = d->faulting_launch >= 0
					     ? ci_report_launch(r, (size_t)d->faulting_launch) : NULL;
	if (fl) {
		uint32_t lane = thread_lane(ls, fl->tid);
		struct ci_tl_item *it = lane == CI_NONE ? NULL
				       : push(tl, CI_TL_CALL, lane, fl->time_ns, (size_t)d->faulting_launch);
		if (!it)
			return -1;
		it->faulting = true;
	}
	return 0;
}

static int add_allocs(const struct ci_report *r, struct ci_timeline *tl, struct lanes *ls)
{
	const struct ci_model *m = r->model;
	size_t n = m->alloc_count + m->free_count;
	struct newest *all = malloc((n + 1) * sizeof *all);
	if (!all)
		return -1;
	/* Allocations, live and freed, by the time they were made. */
	for (size_t i = 0; i < m->alloc_count; i++)
		all[i] = (struct newest){ ci_report_alloc(r, i)->time_ns, i, false };
	for (size_t i = 0; i < m->free_count; i++)
		all[m->alloc_count + i] = (struct newest){ m->frees[i].time_ns, i, true };
	qsort(all, n, sizeof *all, cmp_newest);
	for (size_t k = 0; k < n; k++) {
		if (k >= CI_TL_ALLOCS_MAX) {
			tl->allocs_left_out = n - k;
			break;
		}
		const struct ci_alloc *a = all[k].freed ? &m->frees[all[k].index]
							: ci_report_alloc(r, all[k].index);
		uint32_t lane = thread_lane(ls, a->tid);
		struct ci_tl_item *it = lane == CI_NONE ? NULL
				       : push(tl, CI_TL_ALLOC, lane, a->time_ns, all[k].index);
		if (!it)
			goto fail;
		it->freed = all[k].freed;
	}
	/* Frees, by the time they were made. */
	for (size_t i = 0; i < m->free_count; i++)
		all[i] = (struct newest){ m->frees[i].free_ns, i, true };
	qsort(all, m->free_count, sizeof *all, cmp_newest);
	for (size_t k = 0; k < m->free_count; k++) {
		if (k >= CI_TL_FREES_MAX) {
			tl->frees_left_out = m->free_count - k;
			break;
		}
		const struct ci_alloc *a = &m->frees[all[k].index];
		uint32_t lane = thread_lane(ls, a->free_tid);
		if (lane == CI_NONE || !push(tl, CI_TL_FREE, lane, a->free_ns, all[k].index))
			goto fail;
	}
	free(all);
	return 0;
fail:
	free(all);
	return -1;
}

static int add_errors(const struct ci_report *r, struct ci_timeline *tl, struct lanes *ls)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	for (size_t i = m->error_count, k = 0; i-- > 0; k++) {
		if (k >= CI_TL_ERRORS_MAX && (ptrdiff_t)i != d->first_sticky_error) {
			tl->errors_left_out++;
			continue;
		}
		uint32_t lane = thread_lane(ls, m->errors[i].tid);
		struct ci_tl_item *it = lane == CI_NONE ? NULL
				       : push(tl, CI_TL_ERROR, lane, m->errors[i].time_ns, i);
		if (!it)
			return -1;
		it->first_sticky = (ptrdiff_t)i == d->first_sticky_error;
	}
	return 0;
}

/* The process's kernel-log lines whose time the record's clock can place: the printk or
 * journal monotonic stamp (microseconds; the kernel's clock, close to CLOCK_MONOTONIC), or a
 * UTC wall clock moved by the record's pair of start times. */
static int add_xids(const struct ci_report *r, struct ci_timeline *tl, struct lanes *ls)
{
	const struct ci_evidence *ev = r->evidence;
	const struct ci_header *h = &r->model->header;
	if (!ev || !ev->kernel_log)
		return 0;
	size_t shown = 0;
	for (size_t i = 0; i < ev->kernel_log->count; i++) {
		const struct ci_klog_match *mt = &ev->kernel_log_match[i];
		const struct ci_xid *x = &ev->kernel_log->items[i];
		if (!mt->belongs)
			continue;
		uint64_t t = 0;
		if (mt->basis == CI_KLOG_BASIS_MONO && x->time.mono_source != CI_KLOG_MONO_NONE &&
		    x->time.mono_us <= UINT64_MAX / 1000)
			t = x->time.mono_us * 1000;
		else if (mt->basis == CI_KLOG_BASIS_WALL_UTC && x->time.wall == CI_KLOG_WALL_UTC &&
			 h->start_realtime_ns && x->time.wall_us >= 0 &&
			 (uint64_t)x->time.wall_us <= UINT64_MAX / 1000) {
			int64_t delta = (int64_t)((uint64_t)x->time.wall_us * 1000 - h->start_realtime_ns);
			if (delta >= 0 || (uint64_t)-delta <= h->start_monotonic_ns)
				t = h->start_monotonic_ns + (uint64_t)delta;
		}
		if (!t) {
			tl->xids_without_time++;
			continue;
		}
		if (shown >= CI_TL_XIDS_MAX) {
			tl->xids_left_out++;
			continue;
		}
		if (ls->kernel_log == CI_NONE &&
		    (ls->kernel_log = add_lane(tl, &ls->cap, CI_TL_LANE_KERNEL_LOG, CI_NONE, 0)) == CI_NONE)
			return -1;
		if (!push(tl, CI_TL_XID, ls->kernel_log, t, i))
			return -1;
		shown++;
	}
	return 0;
}

static int cmp_lane_start(const void *a, const void *b)
{
	int c = cmp_lane_time(a, b);
	if (c)
		return c;
	size_t x = (*(const struct ci_tl_item *const *)a)->index, y = (*(const struct ci_tl_item *const *)b)->index;
	return x < y ? -1 : x > y;
}

/* A thread makes one call at a time: a synchronization that seems to outlast the next one of
 * its thread (clocks of a damaged record) is cut there, so the boxes of a thread never cross. */
static int clip_thread_calls(struct ci_timeline *tl)
{
	struct ci_tl_item **syncs = malloc((tl->count + 1) * sizeof *syncs);
	if (!syncs)
		return -1;
	size_t n = 0;
	for (size_t k = 0; k < tl->count; k++)
		if (tl->items[k].kind == CI_TL_SYNC)
			syncs[n++] = &tl->items[k];
	qsort(syncs, n, sizeof *syncs, cmp_lane_start);
	for (size_t k = 0; k + 1 < n; k++)
		if (syncs[k + 1]->lane == syncs[k]->lane && syncs[k]->end > syncs[k + 1]->start)
			syncs[k]->end = syncs[k]->own_end = syncs[k + 1]->start;
	free(syncs);
	return 0;
}

/* Re-base times that lie outside [t0, t_end] (a damaged record) so every item is inside. */
static void clamp_items(struct ci_timeline *tl)
{
	for (size_t k = 0; k < tl->count; k++) {
		struct ci_tl_item *it = &tl->items[k];
		if (it->start < tl->t0)
			it->start = tl->t0;
		if (it->start > tl->t_end)
			it->start = tl->t_end;
		if (it->end > tl->t_end)
			it->end = tl->t_end;
		if (it->end < it->start)
			it->end = it->start;
		if (it->own_end > it->end)
			it->own_end = it->end;
		if (it->own_end < it->start)
			it->own_end = it->start;
	}
}

void ci_timeline_destroy(struct ci_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->replay_count; i++)
		ci_graph_replay_deinit(&tl->replays[i]);
	free(tl->replays);
	free(tl->items);
	free(tl->lanes);
	free(tl);
}

struct ci_timeline *ci_timeline_create(const struct ci_report *r)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	struct ci_timeline *tl = calloc(1, sizeof *tl);
	if (!tl)
		return NULL;
	struct lanes ls = { .tl = tl, .no_stream = CI_NONE, .kernel_log = CI_NONE };
	clock_bounds(r, tl);
	ls.by_stream = malloc((m->stream_count + 1) * sizeof *ls.by_stream);
	if (!ls.by_stream)
		goto fail;
	ls.stream_count = m->stream_count;
	for (size_t s = 0; s < m->stream_count; s++)
		ls.by_stream[s] = CI_NONE;
	/* A lane per stream of the diagnosis, in its order (the JSON report's streams[]). */
	for (size_t k = 0; k < d->stream_count; k++) {
		uint32_t s = d->streams[k].stream;
		if (s >= m->stream_count || ls.by_stream[s] != CI_NONE)
			continue;
		if ((ls.by_stream[s] = add_lane(tl, &ls.cap, CI_TL_LANE_STREAM, s, 0)) == CI_NONE)
			goto fail;
	}
	if (add_launches(r, tl, &ls) || launch_ends(r, tl) || add_nodes(r, tl) ||
	    add_calls(r, tl, &ls) || add_allocs(r, tl, &ls) || add_errors(r, tl, &ls) ||
	    add_xids(r, tl, &ls) || clip_thread_calls(tl))
		goto fail;
	clamp_items(tl);
	free(ls.by_stream);
	return tl;
fail:
	free(ls.by_stream);
	ci_timeline_destroy(tl);
	return NULL;
}

char *ci_tl_launch_name(const struct ci_report *r, const struct ci_tl_item *it, char *buf, size_t n)
{
	const struct ci_model *m = r->model;
	if (it->kind == CI_TL_NODE) {
		const struct ci_graph_node *nd = it->replay->nodes[it->index].node;
		struct ci_launch k = { .function = nd->function, .function_handle = nd->function_handle };
		return ci_launch_kernel_name(m, &k, buf, n);
	}
	return ci_launch_kernel_name(m, ci_report_launch(r, it->index), buf, n);
}
