/* SPDX-License-Identifier: MIT */
/*
 * What the record says of its own progress, read from its tables, breadcrumbs and small rings
 * (errors, events), never from the launches or allocations: per stream the breadcrumb the GPU
 * wrote back and the last successful synchronization that covered it; across the record the
 * first sticky error, the last error and the window in which the launch behind it failed.  The
 * evidence stage gathers these facts (struct ci_evidence); the sparse decode reads the launch ring
 * from its head back as far as they say the diagnosis will look (ci_model_launch_needs), before
 * it has read the launches.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define CUDA_ERROR_NOT_READY 600

/* The breadcrumb of stream ST as a full 64-bit per-stream launch number, or false when the
 * stream has none (breadcrumbs off, no slot). */
static bool stream_crumb(const struct ci_model *model, const struct ci_stream *st, uint64_t *ret)
{
	if (model->header.flags & CI_HDR_CRUMBS_OFF)
		return false;
	if (st->crumb_slot == CI_NONE || st->crumb_slot >= model->crumb_count)
		return false;
	uint64_t v = model->crumbs[st->crumb_slot];
	if (model->header.crumb_width == 4) {
		uint64_t hi = st->launches & ~0xffffffffull;
		v = hi | (v & 0xffffffffull);
		if (v > st->launches && hi)
			v -= 1ull << 32;
	}
	/* A value beyond what was handed out cannot be a real breadcrumb. */
	if (v > st->launches)
		v = st->launches;
	*ret = v;
	return true;
}

/* The first sticky error of MODEL's error ring: the one the recorder flagged, else the one the
 * header names, else the first with the sticky flag, else the first whose result is sticky by
 * cuda.h; -1 if none. */
static ptrdiff_t first_sticky_error(const struct ci_model *m)
{
	ptrdiff_t by_flag = -1, by_seq = -1, by_sticky = -1, by_result = -1;
	for (size_t i = 0; i < m->error_count && by_flag < 0; i++) {
		const struct ci_api_error *e = &m->errors[i];
		if (e->flags & CI_ERROR_FIRST_STICKY)
			by_flag = (ptrdiff_t)i;
		if (by_seq < 0 && m->header.first_sticky_error_seq &&
		    e->seq == m->header.first_sticky_error_seq)
			by_seq = (ptrdiff_t)i;
		if (by_sticky < 0 && (e->flags & CI_ERROR_STICKY))
			by_sticky = (ptrdiff_t)i;
		if (by_result < 0 && ci_cuda_result_is_sticky(e->result))
			by_result = (ptrdiff_t)i;
	}
	return by_flag >= 0 ? by_flag : by_seq >= 0 ? by_seq : by_sticky >= 0 ? by_sticky : by_result;
}

static void raise_to(uint64_t *bound, uint64_t t)
{
	if (t > *bound)
		*bound = t;
}

/* The event handles recorded so far, and where and when each was last recorded (an open-addressed
 * table: event rings hold up to a few hundred thousand entries). */
struct event_where {
	uint64_t handle;          /* 0: empty */
	uint64_t time_ns;
	uint32_t stream;
};

/* For every stream slot, the latest start time of a successful synchronization that covers it,
 * made before BEFORE_NS, from the event ring (ci_stream_facts.synced_ns), and the most launches
 * a successful synchronization of the stream itself found handed out when it began
 * (ci_stream_facts.synced_seq, format 1.3); BOUND and SEQ have model->stream_count entries. */
static void stream_sync_bounds(const struct ci_model *m, uint64_t before_ns, uint64_t *bound,
			       uint64_t *seq)
{
	memset(bound, 0, m->stream_count * sizeof(*bound));
	memset(seq, 0, m->stream_count * sizeof(*seq));
	size_t records = 0;
	for (size_t i = 0; i < m->event_count; i++)
		records += m->events[i].kind == CI_EV_EVENT_RECORD;
	size_t cap = 16;
	while (cap < 2 * records)
		cap *= 2;
	struct event_where *where = records ? calloc(cap, sizeof(*where)) : NULL;
	for (size_t i = 0; i < m->event_count; i++) {
		const struct ci_event *e = &m->events[i];
		if (e->result != 0 || e->time_ns >= before_ns)
			continue;
		switch (e->kind) {
		case CI_EV_STREAM_SYNC:
			if (e->stream < m->stream_count) {
				raise_to(&bound[e->stream], e->time_ns);
				/* No more than were ever handed out: a larger value is damage. */
				if (e->value <= m->streams[e->stream].launches)
					raise_to(&seq[e->stream], e->value);
			}
			break;
		case CI_EV_CTX_SYNC:
			for (size_t s = 0; e->ctx != CI_NONE && s < m->stream_count; s++)
				if (m->streams[s].seq && m->streams[s].ctx == e->ctx)
					raise_to(&bound[s], e->time_ns);
			break;
		case CI_EV_EVENT_RECORD:
		case CI_EV_EVENT_SYNC: {
			if (!where || !e->a)
				break;
			size_t h = (size_t)ci_alloc_hash(e->a) & (cap - 1);
			while (where[h].handle && where[h].handle != e->a)
				h = (h + 1) & (cap - 1);
			if (e->kind == CI_EV_EVENT_RECORD)
				where[h] = (struct event_where){ e->a, e->time_ns, e->stream };
			else if (where[h].handle && where[h].stream < m->stream_count)
				/* What the stream had queued when the event was recorded is done. */
				raise_to(&bound[where[h].stream], where[h].time_ns);
			break;
		}
		default:
			break;
		}
	}
	free(where);
}

int ci_model_facts(const struct ci_model *m, struct ci_error_facts *f, struct ci_stream_facts *streams)
{
	*f = (struct ci_error_facts){ .first_sticky_error = first_sticky_error(m), .last_error = -1 };
	for (size_t i = m->error_count; i-- > 0;)
		if (m->errors[i].result != CUDA_ERROR_NOT_READY) {
			f->last_error = (ptrdiff_t)i;
			break;
		}
	if (f->first_sticky_error < 0 && f->last_error >= 0) {
		uint64_t t = m->errors[f->last_error].time_ns;
		f->failed_launch_window = true;
		f->failed_launch_to = t;
		f->failed_launch_from = t > CI_FAILED_LAUNCH_NS ? t - CI_FAILED_LAUNCH_NS : 0;
	}
	if (!streams)
		return 0;
	size_t ns = m->stream_count;
	uint64_t *sync = calloc(ns ? 2 * ns : 1, sizeof *sync);
	if (!sync)
		return -1;
	/* Synchronizations after the fault say nothing: the context was poisoned by then. */
	stream_sync_bounds(m, f->first_sticky_error >= 0 ? m->errors[f->first_sticky_error].time_ns
							 : UINT64_MAX, sync, sync + ns);
	for (size_t s = 0; s < ns; s++) {
		struct ci_stream_facts *sf = &streams[s];
		*sf = (struct ci_stream_facts){ 0 };
		if (!m->streams[s].seq)
			continue;
		sf->has_crumb = stream_crumb(m, &m->streams[s], &sf->crumb);
		sf->synced_ns = sync[s];
		sf->synced_seq = sync[ns + s];
	}
	free(sync);
	return 0;
}

int ci_model_launch_needs(const struct ci_model *m, struct ci_launch_need *needs, uint64_t *earliest)
{
	struct ci_error_facts ef;
	struct ci_stream_facts *facts = calloc(m->stream_count ? m->stream_count : 1, sizeof *facts);
	if (!facts || ci_model_facts(m, &ef, facts)) {
		free(facts);
		return -1;
	}
	for (size_t s = 0; s < m->stream_count; s++) {
		const struct ci_stream *st = &m->streams[s];
		const struct ci_stream_facts *f = &facts[s];
		struct ci_launch_need *n = &needs[s];
		*n = (struct ci_launch_need){ 0 };
		if (!st->seq || st->launches == 0)
			continue;
		n->by_crumb = f->has_crumb;
		n->lo = f->has_crumb ? f->crumb : 0;
		/* A synchronization that found this many handed out saw them finish (1.3). */
		if (f->synced_seq > n->lo)
			n->lo = f->synced_seq;
		if (n->lo >= st->launches)
			continue;
		n->hi = st->launches;
		n->sync_ns = f->synced_ns;
		n->open = true;
	}
	/* An API error without a device fault: its failed launch, made just before it. */
	*earliest = ef.failed_launch_window ? ef.failed_launch_from : UINT64_MAX;
	free(facts);
	return 0;
}
