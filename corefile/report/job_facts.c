/* SPDX-License-Identifier: MIT */
/*
 * What one record says about its process (session.h, "job facts"): taken from a
 * finished report, and written as the "job" part of the JSON document so that a document from
 * another host carries the same facts (facts_json.c reads them back).  Times are turned from
 * the record's CLOCK_MONOTONIC into CLOCK_REALTIME here, the only clock that compares across
 * processes (and, with their clocks' own error, across hosts).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/session.h"

/* The record's monotonic time T on the realtime clock (0 stays 0: "not known"). */
static uint64_t realtime_of(const struct ci_header *h, uint64_t t)
{
	if (!t || !h->start_realtime_ns)
		return 0;
	return t - h->start_monotonic_ns + h->start_realtime_ns;
}

/* Where call C stands by its stream's breadcrumb (docs/FORMAT.md, "NCCL").  Without a
 * breadcrumb after it (the write failed: a fault poisoned the context between NCCL's enqueue and
 * the recorder's write; breadcrumbs off) a call has still not started when one of stream prior
 * was enqueued before it and never arrived, or when it was queued behind the launch the diagnosis
 * found faulting: a stream runs in order, and nothing runs after a fault (as sure as that
 * launch is: the report states its confidence). */
static unsigned call_state(const struct ci_report *r, const struct ci_nccl_call *c)
{
	const struct ci_model *m = r->model;
	if (c->flags & CI_NCCL_CALL_FAILED)
		return CI_JOB_CALL_FAILED;
	if (c->stream == CI_NONE || c->stream >= m->stream_count || !m->streams[c->stream].seq ||
	    !c->stream_seq || (c->flags & CI_NCCL_CALL_CAPTURED))
		return CI_JOB_CALL_UNKNOWN;
	const struct ci_stream *s = &m->streams[c->stream];
	bool crumb_known = s->crumb_slot < m->crumb_count;
	uint64_t crumb = crumb_known ? m->crumbs[s->crumb_slot] : 0;
	if (!(c->flags & CI_NCCL_CALL_CRUMB)) {
		if (crumb_known && (c->flags & CI_NCCL_CALL_CRUMB_BEFORE) && crumb < c->stream_prior)
			return CI_JOB_CALL_NOT_STARTED;
		ptrdiff_t f = r->diagnosis->faulting_launch;
		const struct ci_launch *l = f >= 0 ? ci_report_launch(r, (size_t)f) : NULL;
		if (l && l->stream == c->stream && l->stream_seq && l->stream_seq <= c->stream_prior)
			return CI_JOB_CALL_NOT_STARTED;
		return CI_JOB_CALL_UNKNOWN;
	}
	if (!crumb_known)
		return CI_JOB_CALL_UNKNOWN;
	if (crumb >= c->stream_seq)
		return CI_JOB_CALL_FINISHED;
	if (crumb >= c->stream_prior)
		return CI_JOB_CALL_IN_FLIGHT;
	return CI_JOB_CALL_NOT_STARTED;
}

/* The diagnosis in one line, as the single report's summary would put it first. */
static char *headline_of(const struct ci_report *r, const struct ci_job_facts *f)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	char buf[512], name[256];
	size_t n = 0;
	buf[0] = 0;
#define ADD(...) (n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, __VA_ARGS__))
	if (d->first_sticky_error >= 0)
		ADD("%s", ci_cuda_result_name(m->errors[d->first_sticky_error].result));
	else if (d->last_error >= 0)
		ADD("%s returned %s", m->errors[d->last_error].api,
		    ci_cuda_result_name(m->errors[d->last_error].result));
	if (d->faulting_launch >= 0) {
		const struct ci_launch *l = ci_report_launch(r, (size_t)d->faulting_launch);
		/* Numbered as the summary numbers it: on its stream. */
		ADD("%sin kernel %s (launch %" PRIu64 " on its stream, confidence %s)", n ? " " : "",
		    ci_launch_kernel_name(m, l, name, sizeof name), l->stream_seq,
		    ci_confidence_name(d->confidence));
	}
	for (size_t i = 0; i < f->call_count; i++)
		if (f->calls[i].state == CI_JOB_CALL_FAILED) {
			ADD("%s%s returned ncclResult %" PRId32, n ? "; " : "",
			    ci_job_op_api(f->calls[i].op), f->calls[i].result);
			break;
		}
	if (!n)
		ADD("%s", d->verdict == CI_VERDICT_PENDING ? "CUDA work in flight, no error"
							   : "no CUDA error recorded");
#undef ADD
	return strdup(buf);
}

/* The address the diagnosis blames: the Xid page, else an argument of the faulting launch in
 * memory of another process (the shutdown false positive's evidence), else 0. */
static uint64_t fault_address_of(const struct ci_diagnosis *d)
{
	if (d->xid >= 0 && d->xid_page.address)
		return d->xid_page.address;
	for (size_t i = 0; i < d->attribution_count; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		if (a->alloc && (a->alloc->kind == CI_ALLOC_IPC || a->alloc->kind == CI_ALLOC_VMM_IMPORT ||
				 a->alloc->kind == CI_ALLOC_VMM_MAP_PEER))
			return a->address;
	}
	return 0;
}

struct ci_error *ci_job_facts_from_report(const struct ci_report *r, struct ci_job_facts *f)
{
	const struct ci_model *m = r->model;
	const struct ci_header *h = &m->header;
	const struct ci_diagnosis *d = r->diagnosis;
	memset(f, 0, sizeof *f);
	char scratch[CI_NAME_MAX];
	snprintf(f->host, sizeof f->host, "%s", CI_SCRUB_FIELD(h->host, scratch));
	bool any = false;
	for (size_t i = 0; i < sizeof h->boot_id; i++)
		any |= h->boot_id[i] != 0;
	for (size_t i = 0; any && i < sizeof h->boot_id; i++)
		snprintf(f->boot_id + 2 * i, 3, "%02x", h->boot_id[i]);
	f->pid = h->pid ? h->pid : r->source ? r->source->pid : 0;
	f->start_ns = h->start_realtime_ns;
	if (h->origin == CI_ORIGIN_SNAPSHOT)
		snprintf(f->reason, sizeof f->reason, "%s",
			 h->snapshot_reason == CI_SNAP_SIGNAL ? "signal"
			 : h->snapshot_reason == CI_SNAP_STICKY_ERROR ? "error"
			 : h->snapshot_reason == CI_SNAP_EXIT ? "exit"
			 : h->snapshot_reason == CI_SNAP_REQUEST ? "request"
			 : h->snapshot_reason == CI_SNAP_HANG ? "hang" : "none");
	snprintf(f->kind, sizeof f->kind, "%s",
		 r->source ? ci_source_kind_name(r->source->kind) : "buffer");
	f->verdict = d->verdict;
	f->signal = d->signal;
	snprintf(f->fingerprint, sizeof f->fingerprint, "%s", ci_report_fingerprint(r));
	uint64_t newest = h->end_monotonic_ns;
	if (h->snapshot_monotonic_ns > newest)
		newest = h->snapshot_monotonic_ns;
	if (d->first_sticky_error >= 0)
		f->failure_ns = h->sticky_realtime_ns ? h->sticky_realtime_ns
			      : realtime_of(h, m->errors[d->first_sticky_error].time_ns);
	f->fault_address = fault_address_of(d);
	for (size_t i = 0; i < CI_SECTION_KIND_MAX; i++)
		f->missing += m->sections[i].missing;
	if (r->source && r->source->truncated && !f->missing)
		f->missing = 1;

	if (m->job_var_count && !(f->vars = calloc(m->job_var_count, sizeof f->vars[0])))
		goto nomem;
	for (size_t i = 0; i < m->job_var_count; i++) {
		const struct ci_job_var *v = &m->job_vars[i];
		if (!v->seq)
			continue;
		/* A variable read again keeps its newest value. */
		const char *name = ci_model_string(m, v->name_str);
		size_t k = 0;
		while (k < f->var_count && strcmp(f->vars[k].name, name) != 0)
			k++;
		if (k == f->var_count) {
			if (!(f->vars[k].name = strdup(name)))
				goto nomem;
			f->var_count++;
		}
		free(f->vars[k].value);
		if (!(f->vars[k].value = strdup(ci_model_string(m, v->value_str))))
			goto nomem;
	}

	if (m->nccl_comm_count && !(f->comms = calloc(m->nccl_comm_count, sizeof f->comms[0])))
		goto nomem;
	for (size_t i = 0; i < m->nccl_comm_count; i++) {
		const struct ci_nccl_comm *c = &m->nccl_comms[i];
		if (!c->seq)
			continue;
		f->comms[f->comm_count++] = (struct ci_job_comm){
			.comm_id = c->comm_id, .parent_id = c->parent_id, .colls = c->colls,
			.end_ns = realtime_of(h, c->end_ns), .rank = c->rank, .nranks = c->nranks,
			.device = c->device, .async_error = c->async_error, .result = c->result,
			.state = c->state,
		};
		if (c->end_ns > newest)
			newest = c->end_ns;
	}

	/* Collectives (they carry the job's logical clock) and refused calls (an API error). */
	if (m->nccl_call_count && !(f->calls = calloc(m->nccl_call_count, sizeof f->calls[0])))
		goto nomem;
	for (size_t i = 0; i < m->nccl_call_count; i++) {
		const struct ci_nccl_call *c = &m->nccl_calls[i];
		bool failed = c->flags & CI_NCCL_CALL_FAILED;
		if (c->time_ns > newest)
			newest = c->time_ns;
		if (!failed && !(c->op >= CI_NCCL_ALL_REDUCE && c->op <= CI_NCCL_SCATTER))
			continue;
		f->calls[f->call_count++] = (struct ci_job_call){
			.comm_id = c->comm_id, .op_seq = failed ? 0 : c->op_seq, .count = c->count,
			.time_ns = realtime_of(h, c->time_ns), .op = c->op, .datatype = c->datatype,
			.redop = c->redop, .peer = c->peer, .result = c->result,
			.state = call_state(r, c), .late = c->flags & CI_NCCL_CALL_LATE,
			/* LATE wins: the watchdog sets it before it clears TIMEOUT */
			.timeout = (c->flags & (CI_NCCL_CALL_TIMEOUT | CI_NCCL_CALL_LATE)) ==
				   CI_NCCL_CALL_TIMEOUT,
		};
		if (failed && !f->failure_ns)
			f->failure_ns = realtime_of(h, c->time_ns);
	}
	ci_job_facts_sort(f);

	if (m->peer_mem_count && !(f->peers = calloc(m->peer_mem_count, sizeof f->peers[0])))
		goto nomem;
	for (size_t i = 0; i < m->peer_mem_count; i++) {
		const struct ci_peer_mem *p = &m->peer_mems[i];
		if (!p->seq || p->result != 0)
			continue;
		f->peers[f->peer_count++] = (struct ci_job_peer){
			.key = p->key, .address = p->address, .size = p->size,
			.time_ns = realtime_of(h, p->time_ns), .kind = p->kind, .device = p->device,
		};
	}
	f->end_ns = realtime_of(h, newest);
	if (!(f->headline = headline_of(r, f)))
		goto nomem;
	return NULL;
nomem:
	ci_job_facts_deinit(f);
	return ci_error_create(CI_ERR_NOMEM, "out of memory gathering the job's facts");
}

void ci_job_facts_write(struct ci_json *w, const char *key, const struct ci_job_facts *f)
{
	ci_json_open(w, key, false);
	ci_json_str(w, "host", f->host);
	ci_json_str(w, "boot_id", f->boot_id[0] ? f->boot_id : NULL);
	ci_json_u64(w, "pid", f->pid);
	ci_json_u64(w, "start_ns", f->start_ns);
	ci_json_u64(w, "end_ns", f->end_ns);
	ci_json_str(w, "snapshot_reason", f->reason[0] ? f->reason : NULL);
	ci_json_str(w, "verdict", ci_verdict_name(f->verdict));
	ci_json_i64(w, "signal", f->signal);
	ci_json_str(w, "headline", f->headline);
	ci_json_str(w, "fingerprint", f->fingerprint[0] ? f->fingerprint : NULL);
	ci_json_u64(w, "failure_ns", f->failure_ns);
	ci_json_addr(w, "fault_address", f->fault_address);
	ci_json_u64(w, "missing_entries", f->missing);
	ci_json_open(w, "launcher", false);
	for (size_t i = 0; i < f->var_count; i++)
		ci_json_str(w, f->vars[i].name, f->vars[i].value);
	ci_json_close(w);
	ci_json_open(w, "communicators", true);
	for (size_t i = 0; i < f->comm_count; i++) {
		const struct ci_job_comm *c = &f->comms[i];
		ci_json_open(w, NULL, false);
		ci_json_hex(w, "id", c->comm_id);
		ci_json_hex(w, "parent", c->parent_id);
		ci_json_i64(w, "rank", c->rank);
		ci_json_i64(w, "nranks", c->nranks);
		ci_json_i64(w, "device", c->device);
		ci_json_str(w, "state", ci_job_comm_state_word(c->state));
		ci_json_u64(w, "collectives", c->colls);
		ci_json_u64(w, "end_ns", c->end_ns);
		ci_json_i64(w, "init_result", c->result);
		ci_json_i64(w, "async_error", c->async_error);
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_open(w, "collectives", true);
	for (size_t i = 0; i < f->call_count; i++) {
		const struct ci_job_call *c = &f->calls[i];
		ci_json_open(w, NULL, false);
		ci_json_hex(w, "communicator", c->comm_id);
		ci_json_u64(w, "seq", c->op_seq);
		ci_json_str(w, "op", ci_job_op_word(c->op));
		ci_json_u64(w, "count", c->count);
		ci_json_i64(w, "datatype", c->datatype);
		ci_json_i64(w, "redop", c->redop);
		ci_json_i64(w, "peer", c->peer);
		ci_json_str(w, "state", ci_job_call_state_name(c->state));
		ci_json_bool(w, "timeout", c->timeout);
		ci_json_bool(w, "late", c->late);
		ci_json_i64(w, "result", c->result);
		ci_json_u64(w, "time_ns", c->time_ns);
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_open(w, "peer_memory", true);
	for (size_t i = 0; i < f->peer_count; i++) {
		const struct ci_job_peer *p = &f->peers[i];
		ci_json_open(w, NULL, false);
		ci_json_str(w, "kind", ci_job_peer_kind_word(p->kind));
		ci_json_hex(w, "key", p->key);
		ci_json_addr(w, "address", p->address);
		ci_json_u64(w, "size", p->size);
		ci_json_i64(w, "device", p->device);
		ci_json_u64(w, "time_ns", p->time_ns);
		ci_json_close(w);
	}
	ci_json_close(w);
	ci_json_close(w);
}
