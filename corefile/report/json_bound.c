/* SPDX-License-Identifier: MIT */
/*
 * The bounded JSON document (docs/JSON.md, "Bounded and full"): a pipeline gets what the
 * diagnosis used and the newest of the rest, in a size that does not grow with the record.  The
 * session chooses the launches, live allocations and frees the document shows, from the briefs
 * of a sparse model that holds each stream's newest launches besides what the diagnosis weighs
 * (the ring's other entries judged and counted, not kept; or, where the sparse decode cannot be
 * done, of a lazy model), and loads those (renderers never decode); render_json.c skips the rest
 * and counts it.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"

void ci_json_bound_destroy(struct ci_json_bound *b)
{
	if (!b)
		return;
	for (int k = 0; k < SHOWN_KINDS; k++)
		free(b->shown[k]);
	free(b);
}

/* The allocations the diagnosis names (live or freed): their ids, at most this many. */
enum { NAMED_ALLOCS_MAX = 64 };

struct named_allocs {
	uint64_t id[NAMED_ALLOCS_MAX];
	size_t n;
	uint64_t newest_from;     /* ids at least this are among the newest CI_JSON_ALLOCATIONS */
	uint8_t *shown;           /* one per live allocation, COUNT of them */
	size_t count;
};

static void name_alloc(struct ci_json_bound *b, const struct ci_model *m, struct named_allocs *na,
		       const struct ci_alloc *a)
{
	if (!a)
		return;
	if (m->frees && a >= m->frees && a < m->frees + m->free_count)
		b->shown[SHOWN_FREES][a - m->frees] = 1;
	else if (na->n < NAMED_ALLOCS_MAX)
		na->id[na->n++] = a->id;
}

/* The newest CI_JSON_ALLOCATIONS ids: ids are gathered into room for twice as many, and when it
 * is full the newest half is kept (a selection, in linear time) and its oldest becomes the floor
 * that later ids must pass.  Sorting every id took 16 MiB for a million allocations (the ids
 * and qsort's own copy), and a heap of the newest spent a tenth of --json's time sifting ids
 * that came in increasing order (a table in address order, allocations made low to high). */
enum { NEWEST = CI_JSON_ALLOCATIONS };
struct newest_ids {
	uint64_t id[2 * NEWEST];
	size_t n;
	bool full;                /* NEWEST ids at least FLOOR were seen */
	uint64_t floor;
};

/* Put the K largest of V[0 .. N) first (K < N), in no order: quickselect. */
static void select_newest(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the K-th largest lies in [lo, hi) */
	while (hi - lo > 1) {
		uint64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		uint64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		/* Three ways: larger, equal, smaller than the pivot. */
		size_t gt = lo, i = lo, lt = hi;
		while (i < lt) {
			uint64_t x = v[i];
			if (x > pivot) {
				v[i++] = v[gt];
				v[gt++] = x;
			} else if (x < pivot) {
				v[i] = v[--lt];
				v[lt] = x;
			} else {
				i++;
			}
		}
		if (k < gt)
			hi = gt;
		else if (k >= lt)
			lo = lt;
		else
			return; /* the K-th is among the equal ones */
	}
}

static void visit_id(const struct ci_alloc_ref *a, void *arg)
{
	struct newest_ids *h = arg;
	if (h->full && a->id <= h->floor)
		return;
	h->id[h->n++] = a->id;
	if (h->n < 2 * NEWEST)
		return;
	select_newest(h->id, h->n, NEWEST);
	h->n = NEWEST;
	h->full = true;
	h->floor = h->id[0];
	for (size_t i = 1; i < NEWEST; i++)
		h->floor = h->id[i] < h->floor ? h->id[i] : h->floor;
}

/* The oldest of the newest NEWEST ids seen, or 0 when fewer were seen. */
static uint64_t newest_floor(struct newest_ids *h)
{
	if (h->n < NEWEST)
		return 0;
	if (h->n > NEWEST)
		select_newest(h->id, h->n, NEWEST);
	uint64_t floor = h->id[0];
	for (size_t i = 1; i < NEWEST; i++)
		floor = h->id[i] < floor ? h->id[i] : floor;
	return floor;
}

static void visit_shown(const struct ci_alloc_ref *a, void *arg)
{
	struct named_allocs *na = arg;
	if (a->handle >= na->count)
		return; /* a sparse model's slot: JSON never reads one (CI_JSON_BOUNDED_NEEDS) */
	bool named = a->id >= na->newest_from;
	for (size_t k = 0; k < na->n && !named; k++)
		named = na->id[k] == a->id;
	na->shown[a->handle] = named; /* the model's index: a lazy or complete model's handle */
}

/* The allocations shown: those named, and the newest CI_JSON_ALLOCATIONS by id (ids are handed
 * out in order, never reused). */
static bool choose_allocs(struct ci_model *m, struct named_allocs *na)
{
	if (m->alloc_count > CI_JSON_ALLOCATIONS) {
		_cleanup_free_ struct newest_ids *newest = calloc(1, sizeof *newest);
		if (!newest)
			return false;
		ci_model_each_alloc(m, visit_id, newest);
		na->newest_from = newest_floor(newest);
	}
	ci_model_each_alloc(m, visit_shown, na);
	/* Loaded in sweeps of the table (model.h); only where the model does not keep the entry (a
	 * sparse one) is one not loaded: not shown. */
	if (ci_model_allocs_load(m, na->shown, 0, m->alloc_count))
		return false;
	for (size_t i = 0; i < m->alloc_count; i++)
		if (na->shown[i] && !ci_model_alloc_loaded(m, i))
			na->shown[i] = 0;
	return true;
}

/* What the bounded document shows: the launches the diagnosis names, each stream's newest
 * CI_JSON_LAUNCHES_PER_STREAM and its unfinished ones among its newest
 * CI_JSON_UNFINISHED_PER_STREAM; the allocations and frees the attributions and the Xid page
 * name, the newest CI_JSON_ALLOCATIONS live ones and the newest CI_JSON_FREES frees.  Those
 * launches and allocations are loaded (a sparse model's that it does not keep are not shown).
 * False on out-of-memory. */
static bool choose(struct ci_json_bound *b, struct ci_report *r)
{
	struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	b->count[SHOWN_LAUNCHES] = m->launch_count;
	b->count[SHOWN_ALLOCS] = m->alloc_count;
	b->count[SHOWN_FREES] = m->free_count;
	for (int k = 0; k < SHOWN_KINDS; k++)
		if (!(b->shown[k] = calloc(b->count[k] ? b->count[k] : 1, 1)))
			return false;
	/* Launches, walking back from the newest; those of no known stream count as one stream. */
	_cleanup_free_ size_t *seen = calloc(m->stream_count + 1, sizeof *seen);
	if (!seen)
		return false;
	uint8_t *launch = b->shown[SHOWN_LAUNCHES];
	for (size_t i = m->launch_count; i-- > 0;) {
		struct ci_launch_brief lb;
		ci_model_launch_brief(m, i, &lb);
		size_t n = seen[ci_stream_valid(m, lb.stream) ? lb.stream : m->stream_count]++;
		enum ci_launch_state st = d->launch_state[i];
		launch[i] = n < CI_JSON_LAUNCHES_PER_STREAM ||
			    (n < CI_JSON_UNFINISHED_PER_STREAM && (st == CI_LS_IN_FLIGHT || st == CI_LS_NOT_STARTED));
	}
	ptrdiff_t named[2] = { d->faulting_launch, d->failed_launch };
	for (size_t i = 0; i < 2 + d->stream_count; i++) {
		ptrdiff_t li = i < 2 ? named[i] : d->streams[i - 2].oldest_unfinished;
		if (li >= 0 && (size_t)li < m->launch_count)
			launch[li] = 1;
	}
	struct named_allocs na = { .shown = b->shown[SHOWN_ALLOCS], .count = m->alloc_count };
	for (size_t i = 0; i < d->attribution_count; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		if (a->launch < m->launch_count)
			launch[a->launch] = 1;
		name_alloc(b, m, &na, a->alloc);
		name_alloc(b, m, &na, a->history_alloc);
		name_alloc(b, m, &na, a->neighbour);
	}
	name_alloc(b, m, &na, d->xid_page.alloc);
	name_alloc(b, m, &na, d->xid_below);
	name_alloc(b, m, &na, d->xid_above);
	for (size_t i = 0; i < m->launch_count; i++)
		if (launch[i] && !ci_model_load_launch(m, i))
			launch[i] = 0;
	if (!choose_allocs(m, &na))
		return false;
	for (size_t i = m->free_count > CI_JSON_FREES ? m->free_count - CI_JSON_FREES : 0; i < m->free_count; i++)
		b->shown[SHOWN_FREES][i] = 1;
	for (int k = 0; k < SHOWN_KINDS; k++)
		for (size_t i = 0; i < b->count[k]; i++)
			b->omitted[k] += !b->shown[k][i];
	/* A sparse model holds the launches the document may show; the ring's others were judged
	 * and counted, not kept (report.c). */
	const struct ci_section_stats *ls = &m->sections[CI_SEC_LAUNCHES];
	if (m->launch_list && ls->accepted > m->launch_count)
		b->omitted[SHOWN_LAUNCHES] += ls->accepted - m->launch_count;
	return true;
}

struct ci_json_bound *ci_json_bound_make(struct ci_report *r)
{
	struct ci_json_bound *b = calloc(1, sizeof *b);
	if (b && !choose(b, r)) {
		ci_json_bound_destroy(b);
		return NULL;
	}
	return b;
}
