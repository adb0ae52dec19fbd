/* SPDX-License-Identifier: MIT */
/*
 * Stage 7, the timeline as a Chrome trace (`--trace FILE`): a Trace Event Format document
 * ("traceEvents", the JSON that the PyTorch profiler exports and Perfetto and chrome://tracing
 * open), written through the reports' one JSON writer (json_writer.c), which escapes every string
 * of the record.  The streams are pseudo-threads of a process "GPU streams", the host threads
 * threads of the recorded process; launches, graph nodes and synchronizations are complete events
 * ("X"), the rest instants ("i"); the first error and the crash are global instants.  Times are
 * the record's clock (CLOCK_MONOTONIC of the process) in microseconds from the timeline's start,
 * which "otherData" states.  What each box means is timeline.c's; docs/USAGE.md, "Timeline".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The pid of the "GPU streams" process: one past the largest pid Linux hands out (PID_MAX_LIMIT
 * is 2^22), so it is never the recorded process's. */
#define TRACE_GPU_PID 4194304u

struct trace {
	struct ci_json w;
	const struct ci_report *r;
	const struct ci_model *m;
	const struct ci_timeline *tl;
	uint32_t pid;            /* the recorded process */
};

/* The pid and tid of lane LANE. */
static void lane_ids(const struct trace *t, uint32_t lane, uint32_t *pid, uint64_t *tid)
{
	const struct ci_tl_lane *ln = &t->tl->lanes[lane];
	if (ln->kind == CI_TL_LANE_THREAD) {
		*pid = t->pid;
		*tid = ln->tid;
	} else {
		*pid = TRACE_GPU_PID;
		*tid = (uint64_t)lane + 1;
	}
}

static void metadata(struct trace *t, const char *what, uint32_t pid, uint64_t tid,
		     const char *name, uint64_t sort_index, bool sort)
{
	struct ci_json *w = &t->w;
	ci_json_open(w, NULL, false);
	ci_json_str(w, "name", what);
	ci_json_str(w, "ph", "M");
	ci_json_u64(w, "pid", pid);
	ci_json_u64(w, "tid", tid);
	ci_json_open(w, "args", false);
	if (sort)
		ci_json_u64(w, "sort_index", sort_index);
	else
		ci_json_str(w, "name", name);
	ci_json_close(w);
	ci_json_close(w);
}

static void write_metadata(struct trace *t)
{
	const struct ci_model *m = t->m;
	const struct ci_timeline *tl = t->tl;
	char name[256], label[160], tname[64];
	const char *exe = ci_model_string(m, m->header.exe_str);
	const char *base = exe && *exe ? strrchr(exe, '/') : NULL;
	snprintf(name, sizeof name, "%s (pid %" PRIu32 ")",
		 base ? base + 1 : exe && *exe ? exe : "process", t->pid);
	ci_scrub(name, label, sizeof label);
	metadata(t, "process_name", TRACE_GPU_PID, 0, "GPU streams", 0, false);
	metadata(t, "process_sort_index", TRACE_GPU_PID, 0, NULL, 0, true);
	metadata(t, "process_name", t->pid, 0, label, 0, false);
	metadata(t, "process_sort_index", t->pid, 0, NULL, 1, true);
	for (uint32_t lane = 0; lane < tl->lane_count; lane++) {
		const struct ci_tl_lane *ln = &tl->lanes[lane];
		uint32_t pid;
		uint64_t tid;
		lane_ids(t, lane, &pid, &tid);
		switch (ln->kind) {
		case CI_TL_LANE_STREAM:
			if (ln->stream == CI_NONE) {
				snprintf(name, sizeof name, "launches without a stream");
			} else {
				ci_stream_label(m, ln->stream, label, sizeof label);
				snprintf(name, sizeof name, "%s%s", label,
					 ln->left_out ? " (older launches left out)" : "");
			}
			break;
		case CI_TL_LANE_THREAD:
			ci_thread_name(m, ln->tid, tname, sizeof tname);
			snprintf(name, sizeof name, "thread %" PRIu32 "%s%s%s", ln->tid, *tname ? " (" : "",
				 tname, *tname ? ")" : "");
			break;
		case CI_TL_LANE_KERNEL_LOG:
			snprintf(name, sizeof name, "kernel log (NVIDIA Xid lines)");
			break;
		}
		metadata(t, "thread_name", pid, tid, name, 0, false);
		metadata(t, "thread_sort_index", pid, tid, NULL, lane, true);
	}
}

/* The fields every event has, its "args" object left open. */
static void event_head(struct trace *t, const struct ci_tl_item *it, const char *name,
		       const char *cat, const char *cname)
{
	struct ci_json *w = &t->w;
	uint32_t pid;
	uint64_t tid;
	lane_ids(t, it->lane, &pid, &tid);
	bool instant = it->end_why == CI_TL_END_INSTANT;
	ci_json_open(w, NULL, false);
	ci_json_str(w, "name", name);
	ci_json_str(w, "cat", cat);
	ci_json_str(w, "ph", instant ? "i" : "X");
	ci_json_thousandths(w, "ts", it->start - t->tl->t0);
	if (instant)
		ci_json_str(w, "s", "t");
	else
		ci_json_thousandths(w, "dur", it->end - it->start);
	ci_json_u64(w, "pid", pid);
	ci_json_u64(w, "tid", tid);
	if (cname)
		ci_json_str(w, "cname", cname);
	ci_json_open(w, "args", false);
	ci_json_u64(w, "time_ns", it->start);
	if (!instant)
		ci_json_u64(w, "end_ns", it->end);
}

static void event_tail(struct trace *t)
{
	ci_json_close(&t->w);
	ci_json_close(&t->w);
}

static const char *const end_words[] = {
	[CI_TL_END_NEXT] = "next_launch", [CI_TL_END_SYNC] = "synchronization",
	[CI_TL_END_RECORD] = "end_of_record", [CI_TL_END_CRASH] = "may_be_running",
	[CI_TL_END_INSTANT] = "instant",
};

/* "[FAULT] ", "[running?] ", "[queued] ": what a launch's name starts with. */
static const char *state_prefix(const struct ci_tl_item *it)
{
	if (it->faulting)
		return "[FAULT] ";
	switch (it->state) {
	case CI_LS_IN_FLIGHT: return "[running] ";
	case CI_LS_UNKNOWN: return "[running?] ";
	case CI_LS_NOT_STARTED: return "[queued] ";
	default: return "";
	}
}

static const char *state_cname(const struct ci_tl_item *it)
{
	if (it->faulting)
		return "terrible";
	switch (it->state) {
	case CI_LS_IN_FLIGHT:
	case CI_LS_UNKNOWN: return "yellow";
	case CI_LS_NOT_STARTED: return "grey";
	default: return NULL;
	}
}

static void dim3_str(struct ci_json *w, const char *key, const uint32_t v[3])
{
	char buf[48];
	snprintf(buf, sizeof buf, "%" PRIu32 ",%" PRIu32 ",%" PRIu32, v[0], v[1], v[2]);
	ci_json_str(w, key, buf);
}

static void write_launch(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_launch *l = ci_report_launch(t->r, it->index);
	char kname[512], name[560];
	ci_tl_launch_name(t->r, it, kname, sizeof kname);
	snprintf(name, sizeof name, "%s%s", state_prefix(it), kname);
	event_head(t, it, name, l->api == CI_LAUNCH_GRAPH ? "graph_launch" : "launch", state_cname(it));
	ci_json_u64(w, "seq", l->seq);
	ci_json_str(w, "kernel", kname);
	if (ci_stream_valid(t->m, l->stream))
		ci_json_hex(w, "stream", t->m->streams[l->stream].handle);
	else
		ci_json_null(w, "stream");
	ci_json_u64(w, "stream_seq", l->stream_seq);
	ci_json_u64(w, "thread", l->tid);
	ci_json_str(w, "api", ci_launch_api_name(l->api));
	dim3_str(w, "grid", l->grid);
	dim3_str(w, "block", l->block);
	ci_json_str(w, "state", ci_launch_state_name(it->state));
	ci_json_bool(w, "may_be_running", it->end_why == CI_TL_END_CRASH);
	ci_json_str(w, "end", end_words[it->end_why]);
	ci_json_bool(w, "faulting", it->faulting);
	event_tail(t);
}

static void write_node(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_graph_replay *g = it->replay;
	const struct ci_graph_node *nd = g->nodes[it->index].node;
	char kname[512], node[64], name[640];
	ci_tl_launch_name(t->r, it, kname, sizeof kname);
	ci_graph_replay_node_name(g, it->index, node, sizeof node);
	snprintf(name, sizeof name, "%snode %s: %s", state_prefix(it), node, kname);
	event_head(t, it, name, "graph_node", state_cname(it));
	ci_json_u64(w, "graph_launch", ci_report_launch(t->r, t->tl->items[it->parent].index)->seq);
	ci_json_u64(w, "replay", g->replay);
	ci_json_str(w, "node", node);
	ci_json_str(w, "kernel", kname);
	dim3_str(w, "grid", nd->grid);
	dim3_str(w, "block", nd->block);
	ci_json_str(w, "state", ci_launch_state_name(it->state));
	ci_json_bool(w, "node_times_known", false);
	ci_json_bool(w, "faulting", it->faulting);
	event_tail(t);
}

static void write_call(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_event *e = &t->m->events[it->index];
	static const char *const apis[] = {
		[CI_EV_CTX_SYNC] = "cuCtxSynchronize", [CI_EV_STREAM_SYNC] = "cuStreamSynchronize",
		[CI_EV_EVENT_SYNC] = "cuEventSynchronize", [CI_EV_MEMCPY] = "memcpy",
		[CI_EV_MEMSET] = "memset",
	};
	char name[128], size[32];
	if (it->kind == CI_TL_COPY)
		snprintf(name, sizeof name, "%s%s %s", it->faulting ? "[FAULT] " : "", apis[e->kind],
			 ci_fmt_size(e->value, size, sizeof size));
	else
		snprintf(name, sizeof name, "%s%s", apis[e->kind], e->result ? " (failed)" : "");
	event_head(t, it, name, it->kind == CI_TL_SYNC ? "synchronization" : "copy",
		   it->faulting || e->result ? "terrible" : NULL);
	ci_json_u64(w, "event", e->seq);
	ci_json_str(w, "kind", ci_event_kind_name(e->kind));
	ci_json_str(w, "result_name", ci_cuda_result_name(e->result));
	if (ci_stream_valid(t->m, e->stream))
		ci_json_hex(w, "stream", t->m->streams[e->stream].handle);
	else
		ci_json_null(w, "stream");
	if (it->kind == CI_TL_SYNC)
		ci_json_u64(w, "duration_ns", e->duration_ns);
	else
		ci_json_u64(w, "bytes", e->value);
	ci_json_bool(w, "faulting", it->faulting);
	event_tail(t);
}

static void write_alloc(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_alloc *a = it->kind == CI_TL_FREE || it->freed ? &t->m->frees[it->index]
								      : ci_report_alloc(t->r, it->index);
	char name[96], size[32];
	snprintf(name, sizeof name, "%s #%" PRIu64 " %s", it->kind == CI_TL_FREE ? "free" : "alloc",
		 a->id, ci_fmt_size(a->size, size, sizeof size));
	event_head(t, it, name, it->kind == CI_TL_FREE ? "free" : "allocation", NULL);
	ci_json_u64(w, "id", a->id);
	ci_json_addr(w, "address", a->address);
	ci_json_u64(w, "size", a->size);
	ci_json_str(w, "kind", ci_alloc_kind_name(a->kind));
	ci_json_bool(w, "freed", it->kind == CI_TL_FREE || it->freed);
	event_tail(t);
}

static void write_error(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_api_error *e = &t->m->errors[it->index];
	char api[CI_API_NAME_MAX + 1], args[CI_ARGS_MAX + 1], name[256];
	CI_SCRUB_FIELD(e->api, api);
	CI_SCRUB_FIELD(e->args, args);
	snprintf(name, sizeof name, "%s%s in %s", it->first_sticky ? "[first sticky error] " : "",
		 ci_cuda_result_name(e->result), api);
	bool sticky = (e->flags & CI_ERROR_STICKY) || ci_cuda_result_is_sticky(e->result);
	event_head(t, it, name, "error", sticky ? "terrible" : "bad");
	ci_json_u64(w, "seq", e->seq);
	ci_json_i64(w, "result", e->result);
	ci_json_str(w, "result_name", ci_cuda_result_name(e->result));
	ci_json_str(w, "api", api);
	ci_json_str(w, "args", args);
	ci_json_bool(w, "sticky", sticky);
	ci_json_bool(w, "first_sticky", it->first_sticky);
	event_tail(t);
}

static void write_faulting_call(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_launch *l = ci_report_launch(t->r, it->index);
	char kname[512], name[560];
	ci_tl_launch_name(t->r, it, kname, sizeof kname);
	snprintf(name, sizeof name, "[FAULT] launch of %s", kname);
	event_head(t, it, name, "launch_call", "terrible");
	ci_json_u64(w, "seq", l->seq);
	ci_json_str(w, "kernel", kname);
	ci_json_bool(w, "faulting", true);
	event_tail(t);
}

static void write_xid(struct trace *t, const struct ci_tl_item *it)
{
	struct ci_json *w = &t->w;
	const struct ci_xid *x = &t->r->evidence->kernel_log->items[it->index];
	char msg[256], name[300];
	ci_scrub(x->message ? x->message : "", msg, sizeof msg);
	snprintf(name, sizeof name, "Xid %" PRIu32 ": %s", x->xid, msg);
	event_head(t, it, name, "kernel_log", x->xid == 31 || x->xid == 13 ? "terrible" : "bad");
	ci_json_u64(w, "line", x->line);
	ci_json_u64(w, "xid", x->xid);
	ci_json_str(w, "message", msg);
	if (x->xid == 31 && x->mmu.has_address)
		ci_json_addr(w, "address", x->mmu.address);
	else
		ci_json_null(w, "address");
	ci_json_str(w, "clock", x->time.mono_source != CI_KLOG_MONO_NONE
				       ? "the kernel's monotonic stamp" : "UTC wall clock, moved by the record's start");
	event_tail(t);
}

/* A global instant (the first error, the crash): a line across every lane. */
static void write_global(struct trace *t, uint64_t at, const char *name, const char *cname)
{
	struct ci_json *w = &t->w;
	ci_json_open(w, NULL, false);
	ci_json_str(w, "name", name);
	ci_json_str(w, "cat", "marker");
	ci_json_str(w, "ph", "i");
	ci_json_thousandths(w, "ts", at - t->tl->t0);
	ci_json_str(w, "s", "g");
	ci_json_u64(w, "pid", t->pid);
	ci_json_u64(w, "tid", 0);
	ci_json_str(w, "cname", cname);
	ci_json_open(w, "args", false);
	ci_json_u64(w, "time_ns", at);
	ci_json_close(w);
	ci_json_close(w);
}

/* Ordered by time; at one time the longer box first (it holds the shorter), launches before
 * their nodes. */
static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct ci_timeline *tl = arg;
	const struct ci_tl_item *x = &tl->items[*(const size_t *)a];
	const struct ci_tl_item *y = &tl->items[*(const size_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return ia < ib ? -1 : ia > ib;
}

static void write_other_data(struct trace *t)
{
	struct ci_json *w = &t->w;
	const struct ci_timeline *tl = t->tl;
	const struct ci_header *h = &t->m->header;
	const struct ci_diagnosis *d = t->r->diagnosis;
	ci_json_open(w, "otherData", false);
	ci_json_str(w, "generator", "cudainspect " CUDAINSPECT_VERSION);
	ci_json_str(w, "clock", "ts: microseconds from origin_ns on the recorded process's "
				"CLOCK_MONOTONIC (the record's clock); *_ns: that clock in nanoseconds");
	ci_json_u64(w, "origin_ns", tl->t0);
	ci_json_u64(w, "end_ns", tl->t_end);
	ci_json_str(w, "end", tl->crash_known ? "the fatal signal or exit the record saw"
					      : "the record's last event (no crash time recorded)");
	ci_json_u64(w, "record_start_monotonic_ns", h->start_monotonic_ns);
	ci_json_u64(w, "record_start_realtime_ns", h->start_realtime_ns);
	if (tl->first_error_ns)
		ci_json_u64(w, "first_error_ns", tl->first_error_ns);
	else
		ci_json_null(w, "first_error_ns");
	ci_json_str(w, "verdict", ci_verdict_name(d->verdict));
	if (d->faulting_launch >= 0)
		ci_json_u64(w, "faulting_launch", ci_report_launch(t->r, (size_t)d->faulting_launch)->seq);
	else
		ci_json_null(w, "faulting_launch");
	ci_json_str(w, "fingerprint", ci_report_fingerprint(t->r));
	ci_json_str(w, "launch_boxes", "a launch's box starts at its call (GPU times are not "
				       "recorded) and ends at the next launch on its stream or a "
				       "synchronization that showed it done; one that may still have "
				       "been running ends at end_ns; graph nodes share their launch's box");
	ci_json_u64(w, "launches_per_stream_max", CI_TL_LAUNCHES_PER_STREAM);
	ci_json_u64(w, "launches_max", CI_TL_LAUNCHES_MAX);
	ci_json_u64(w, "launches_left_out", tl->launches_left_out);
	ci_json_u64(w, "allocations_left_out", tl->allocs_left_out);
	ci_json_u64(w, "frees_left_out", tl->frees_left_out);
	ci_json_u64(w, "calls_left_out", tl->calls_left_out);
	ci_json_u64(w, "errors_left_out", tl->errors_left_out);
	ci_json_u64(w, "kernel_log_lines_left_out", tl->xids_left_out);
	ci_json_u64(w, "kernel_log_lines_without_time", tl->xids_without_time);
	ci_json_u64(w, "graph_replays_not_expanded", tl->replays_not_expanded);
	ci_json_u64(w, "graph_nodes_left_out", tl->nodes_left_out);
	ci_json_close(w);
}

struct ci_error *ci_render_trace(FILE *f, const struct ci_report *r)
{
	struct trace tt = { .r = r, .m = r->model };
	struct trace *t = &tt;
	const struct ci_header *h = &r->model->header;
	t->pid = h->pid ? h->pid : r->source && r->source->pid ? r->source->pid : 1;
	struct ci_timeline *tl = ci_timeline_create(r);
	size_t *order = tl ? malloc((tl->count + 1) * sizeof *order) : NULL;
	if (!order) {
		ci_timeline_destroy(tl);
		return ci_error_create(CI_ERR_NOMEM, "out of memory making the trace");
	}
	t->tl = tl;
	for (size_t i = 0; i < tl->count; i++)
		order[i] = i;
	qsort_r(order, tl->count, sizeof *order, cmp_order, tl);

	ci_json_begin(&t->w, f);
	ci_json_open(&t->w, "traceEvents", true);
	write_metadata(t);
	bool first_done = !tl->first_error_ns;
	for (size_t k = 0; k < tl->count; k++) {
		const struct ci_tl_item *it = &tl->items[order[k]];
		if (!first_done && it->start >= tl->first_error_ns) {
			write_global(t, tl->first_error_ns, "first CUDA error", "terrible");
			first_done = true;
		}
		switch (it->kind) {
		case CI_TL_LAUNCH: write_launch(t, it); break;
		case CI_TL_NODE: write_node(t, it); break;
		case CI_TL_SYNC:
		case CI_TL_COPY: write_call(t, it); break;
		case CI_TL_ALLOC:
		case CI_TL_FREE: write_alloc(t, it); break;
		case CI_TL_ERROR: write_error(t, it); break;
		case CI_TL_CALL: write_faulting_call(t, it); break;
		case CI_TL_XID: write_xid(t, it); break;
		}
	}
	if (!first_done)
		write_global(t, tl->first_error_ns, "first CUDA error", "terrible");
	char sig[32], what[64];
	const struct ci_diagnosis *d = r->diagnosis;
	if (d->signal)
		snprintf(what, sizeof what, "crash: %s", ci_signal_name(d->signal, sig, sizeof sig));
	else
		snprintf(what, sizeof what, "%s", tl->crash_known ? "end of the process" : "end of the record");
	write_global(t, tl->t_end, what, "black");
	ci_json_close(&t->w);
	ci_json_str(&t->w, "displayTimeUnit", "ms");
	write_other_data(t);
	free(order);
	ci_timeline_destroy(tl);
	return ci_json_end(&t->w, "trace");
}
