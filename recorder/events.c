/* SPDX-License-Identifier: MIT */
/*
 * The error ring and the event ring.  Every non-success CUresult of every wrapped call becomes
 * an error entry with the exact entry-point name, a short argument summary, the thread, time,
 * context, stream and host stack; results that poison the context (cuda.h: "leaves the process
 * in an inconsistent state", "cannot be used anymore") are flagged sticky, and the first one is
 * marked in the header and may trigger a snapshot.  CUDA_ERROR_NOT_READY from cuStreamQuery and
 * cuEventQuery is an answer, not an error (cuda.h: "not actually an error"): it goes to the
 * event ring instead, once per polling loop.
 *
 * The event ring holds synchronizations (with their duration), event records and waits, stream
 * captures, graph instantiations and launches, module loads, context and stream lifetimes,
 * cuInit, and copies and sets.
 */
#include <stdio.h>
#include <string.h>

#include "recorder.h"

/* cuda.h's sticky results (the context is unusable afterwards), from the table the build
 * generates from cuda.h's own wording for the reader too (corefile/names-curesult.awk), so the
 * recorder and the reader cannot disagree.  tests/recorder/unit.t checks it against cuda.h. */
static const uint8_t ci_sticky_results[] = {
#define CI_CURESULT(value, name, text, sticky) [value] = (sticky),
#include "cuda-results.h"
#undef CI_CURESULT
};

bool ci_result_is_sticky(CUresult r)
{
	return (unsigned)r < sizeof ci_sticky_results && ci_sticky_results[(unsigned)r];
}

/* "name=value, ..." in at most LEN bytes: small unsigned values in decimal, the rest in hex. */
static void ci_format_args(char *out, size_t len, const char *names, const uint64_t *vals,
			   const uint8_t *is_signed, unsigned n)
{
	size_t used = 0;
	out[0] = 0;
	const char *p = names;
	if (*p == '(')
		p++;
	for (unsigned i = 0; i < n && used + 1 < len; i++) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t nl = strcspn(p, ",)");
		char value[32];
		if (is_signed[i] && (int64_t)vals[i] < 0)
			snprintf(value, sizeof value, "%lld", (long long)vals[i]);
		else if (vals[i] <= 0xffff)
			snprintf(value, sizeof value, "%llu", (unsigned long long)vals[i]);
		else
			snprintf(value, sizeof value, "0x%llx", (unsigned long long)vals[i]);
		int w = snprintf(out + used, len - used, "%s%.*s=%s", i ? ", " : "", (int)nl, p,
				 value);
		if (w < 0 || used + (size_t)w >= len) {
			/* Mark the cut so no one reads a truncated value as the real one. */
			if (len > 4)
				memcpy(out + len - 4, "...", 4);
			return;
		}
		used += (size_t)w;
		p += nl;
	}
}

void ci_api_error_record(struct ci_call *c, CUresult result, const char *args,
			 const uint64_t *vals, const uint8_t *is_signed, unsigned nvals)
{
	if (!ci_on() || !ci_rec.base)
		return;
	struct ci_tls *t = ci_thread();
	uint32_t stack = ci_stack_of(c);
	if (c->ctx == CI_NONE && c->stream != CI_NONE)
		c->ctx = ci_rec.streams[c->stream].ctx;
	if (c->ctx == CI_NONE)
		c->ctx = ci_ctx_current_slot();
	ci_modules_refresh(false);
	bool sticky = ci_result_is_sticky(result);
	bool first = sticky && ci_sticky_claim();

	uint64_t now = ci_time_marked(ci_now()), seq;
	struct ci_api_error *e = ci_ring_claim(CI_SEC_ERRORS, &seq);
	if (e) {
		e->time_ns = now;
		e->result = (int32_t)result;
		e->tid = t->tid;
		e->stack = stack;
		e->ctx = c->ctx;
		e->stream = c->stream;
		e->flags = (sticky ? CI_ERROR_STICKY : 0) | (first ? CI_ERROR_FIRST_STICKY : 0);
		memset(e->api, 0, sizeof e->api);
		snprintf(e->api, sizeof e->api, "%s", ci_fn_name[c->fn]);
		ci_format_args(e->args, sizeof e->args, args, vals, is_signed, nvals);
		ci_entry_publish(&e->seq, seq);
		if (first)
			__atomic_store_n(&ci_rec.hdr->first_sticky_error_seq, seq, __ATOMIC_RELEASE);
	}
	if (first)
		ci_sticky_error_seen();
	else
		ci_sticky_wait();
}

void ci_event_record(struct ci_call *c, uint32_t kind, CUresult r, uint64_t a, uint64_t b,
		     uint64_t value, uint64_t duration_ns)
{
	if (!ci_rec.base)
		return;
	struct ci_tls *t = ci_thread();
	uint32_t stack = ci_stack_of(c);
	uint64_t seq;
	struct ci_event *e = ci_ring_claim(CI_SEC_EVENTS, &seq);
	if (!e)
		return;
	e->time_ns = c->t0;
	e->duration_ns = duration_ns;
	e->a = a;
	e->b = b;
	e->value = value;
	e->kind = kind;
	e->tid = t->tid;
	e->stream = c->stream;
	e->ctx = c->ctx;
	e->result = (int32_t)r;
	e->stack = stack;
	ci_entry_publish(&e->seq, seq);
}

/* ---------------------------------------------------------------------------------------- */
/* Hooks                                                                                      */

static void ci_resolve_stream(struct ci_call *c, CUstream s)
{
	c->stream = ci_stream_slot(s, c);
	if (c->stream != CI_NONE)
		c->ctx = ci_rec.streams[c->stream].ctx;
}

void ci_on_sync(struct ci_call *c, CUresult r, uint32_t kind, uint64_t handle)
{
	uint64_t done = ci_now();
	ci_modules_refresh_at(false, done);
	if (!handle) {
		CUcontext cur = NULL;
		CI_REAL(cuCtxGetCurrent, &cur);
		handle = CI_U64(cur);
	}
	c->ctx = c->failed ? ci_map_get(&ci_rec.ctx_map, handle) : ci_ctx_slot((CUcontext)handle);
	ci_event_record(c, kind, r, handle, 0, 0, done - c->t0);
}

/* Before a stream synchronization: the launches handed out on the stream so far.  A launch gets
 * its number after its driver call returned, so every one numbered up to this was enqueued before
 * the synchronization began, and is finished when it succeeds (format 1.3: the event's value).
 * Only a stream the recorder knows is looked up: a handle the driver may refuse is not asked
 * about. */
void ci_on_stream_sync_pre(struct ci_call *c, CUstream s)
{
	struct ci_call lookup = *c;
	lookup.failed = 1;
	uint32_t slot = ci_stream_slot(s, &lookup);
	c->pre_slot = slot;
	c->pre_value = slot != CI_NONE
			       ? __atomic_load_n(&((struct ci_stream *)ci_entry(CI_SEC_STREAMS, slot))->launches,
						 __ATOMIC_ACQUIRE)
			       : 0;
}

void ci_on_stream_sync(struct ci_call *c, CUresult r, CUstream s)
{
	uint64_t done = ci_now();
	ci_modules_refresh_at(false, done);
	ci_resolve_stream(c, s);
	uint64_t covered = c->stream != CI_NONE && c->pre_slot == c->stream ? c->pre_value : 0;
	ci_event_record(c, CI_EV_STREAM_SYNC, r, CI_U64(s), 0, covered, done - c->t0);
}

void ci_on_event_sync(struct ci_call *c, CUresult r, uint64_t event)
{
	uint64_t done = ci_now();
	ci_event_record(c, CI_EV_EVENT_SYNC, r, event, 0, 0, done - c->t0);
}

void ci_on_query(struct ci_call *c, CUresult r, uint32_t kind, CUstream s, uint64_t event)
{
	if (r == CUDA_SUCCESS)
		return;
	struct ci_tls *t = ci_thread();
	uint64_t what = kind == CI_EV_STREAM_QUERY ? CI_U64(s) : event;
	/* A polling loop: one event for the first "not ready", not one per poll. */
	if (r == CUDA_ERROR_NOT_READY && t->last_query == what && t->last_query_result == (int)r)
		return;
	t->last_query = what;
	t->last_query_result = (int)r;
	ci_time_marked(c->t0); /* recorded: later launches read the clock (recorder.h) */
	if (kind == CI_EV_STREAM_QUERY)
		ci_resolve_stream(c, s);
	ci_event_record(c, kind, r, what, 0, 0, 0);
}

void ci_on_event_record(struct ci_call *c, CUresult r, uint32_t kind, uint64_t event, CUstream s,
			unsigned flags)
{
	ci_resolve_stream(c, s);
	ci_event_record(c, kind, r, event, 0, flags, 0);
	/* In a capture an event record or wait is a fork or join of the capture's streams (a
	 * waiting stream joins the capture by this very call). */
	if (r == CUDA_SUCCESS && __atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0)
		ci_graph_captured(c, c->stream, NULL,
				  &(struct ci_node_args){ .type = kind == CI_EV_EVENT_RECORD
									  ? CI_NODE_EVENT_RECORD
									  : CI_NODE_EVENT_WAIT,
							  .a = event });
}

void ci_on_capture_begin(struct ci_call *c, CUresult r, CUstream s, unsigned mode,
			 uint64_t graph)
{
	if (r == CUDA_SUCCESS)
		__atomic_fetch_add(&ci_captures_active, 1, __ATOMIC_RELAXED);
	ci_resolve_stream(c, s);
	ci_event_record(c, CI_EV_CAPTURE_BEGIN, r, CI_U64(s), graph, mode, 0);
	if (r == CUDA_SUCCESS)
		ci_graph_capture_begin(c, c->stream, mode, graph);
}

void ci_on_capture_end_pre(struct ci_call *c, CUstream s)
{
	/* An invalidated capture returns no graph: remember which one it was building. */
	if (__atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0)
		c->pre_value = ci_graph_of_capture(ci_stream_slot(s, c));
}

void ci_on_capture_end(struct ci_call *c, CUresult r, CUstream s, uint64_t graph)
{
	/* An invalidated capture still ends; a call from the wrong thread does not. */
	if (r == CUDA_SUCCESS || r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
		int n = __atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED);
		while (n > 0 && !__atomic_compare_exchange_n(&ci_captures_active, &n, n - 1, true,
							     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	ci_resolve_stream(c, s);
	ci_event_record(c, CI_EV_CAPTURE_END, r, graph, CI_U64(s), 0, 0);
	if (r == CUDA_SUCCESS || r == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
		ci_graph_capture_end(c, r, graph, c->pre_value);
}

void ci_on_graph_instantiate(struct ci_call *c, CUresult r, uint64_t exec, uint64_t graph,
			     uint64_t flags)
{
	ci_event_record(c, CI_EV_GRAPH_INSTANTIATE, r, exec, graph, flags, 0);
	ci_graph_instantiated(c, r, exec, graph, flags);
}

void ci_on_copy(struct ci_call *c, CUresult r, uint32_t kind, uint64_t dst, uint64_t src,
		uint64_t bytes, CUstream s, bool has_stream)
{
	if (has_stream)
		ci_resolve_stream(c, s);
	else if (c->flags & CI_F_PTSZ)
		ci_resolve_stream(c, NULL); /* _ptds copies run on the per-thread stream */
	if (c->ctx == CI_NONE)
		c->ctx = ci_ctx_current_slot();
	ci_event_record(c, kind, r, dst, src, bytes, 0);
	if (r == CUDA_SUCCESS && __atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0)
		ci_graph_captured(c, c->stream, NULL,
				  &(struct ci_node_args){ .type = kind == CI_EV_MEMSET ? CI_NODE_MEMSET
										      : CI_NODE_MEMCPY,
							  .a = dst, .b = src, .bytes = bytes });
}
