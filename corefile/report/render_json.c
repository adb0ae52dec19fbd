/* SPDX-License-Identifier: MIT */
/*
 * Stage 6, JSON: the whole report as one document for crash pipelines, schema in docs/JSON.md
 * ("version" first, CI_JSON_SCHEMA_VERSION).  Addresses and sizes are JSON numbers (with a hex
 * string twin where a value may exceed 2^53); strings from the record are escaped by the writer
 * (json_writer.c) so that no control character or invalid UTF-8 byte of a hostile record can
 * break the document.  The output is compact, one array element per line, because a large
 * record holds hundreds of thousands of entries.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* The renderer's state around the writer (json_writer.c), whose calls the j_ names below
 * shorten. */
struct json {
	struct ci_json w;
	const struct ci_report *r;
	const struct ci_model *m;
	const struct ci_diagnosis *d;
	const struct ci_render_options *o;
	bool in_diagnosis;          /* writing diagnosis.faulting_launch */
	const struct ci_json_bound *bound; /* what a bounded document shows; NULL: everything */
	size_t peeked;              /* launches read into scratch copies so far */
};

/* Entry I of KIND is in the document: a bounded one shows what the session chose (json_bound.c). */
static bool shown(const struct json *j, int kind, size_t i)
{
	return !j->bound || j->bound->shown[kind][i];
}

/* Launch I for the document: loaded, else (a lazy model's in a full document) read into *COPY,
 * which is not kept: the document is written as the launches are read, and the pages of the
 * input they lie in are given back as it goes, so memory does not grow with the ring. */
static const struct ci_launch *launch_at(struct json *j, size_t i, struct ci_launch *copy)
{
	const struct ci_launch *l = ci_model_launch_loaded(j->m, i);
	if (l || !ci_model_launch_peek(j->m, i, copy))
		return ci_report_launch(j->r, i);
	ci_model_launches_read(j->m, ++j->peeked);
	return copy;
}

#define j_obj(j, key) ci_json_open(&(j)->w, key, false)
#define j_arr(j, key) ci_json_open(&(j)->w, key, true)
#define j_close(j) ci_json_close(&(j)->w)
#define j_str(j, key, s) ci_json_str(&(j)->w, key, s)
#define j_u64(j, key, v) ci_json_u64(&(j)->w, key, v)
#define j_i64(j, key, v) ci_json_i64(&(j)->w, key, v)
#define j_bool(j, key, v) ci_json_bool(&(j)->w, key, v)
#define j_null(j, key) ci_json_null(&(j)->w, key)
#define j_hex(j, key, v) ci_json_hex(&(j)->w, key, v)
#define j_addr(j, key, v) ci_json_addr(&(j)->w, key, v)

static void j_dim3(struct json *j, const char *key, const uint32_t v[3])
{
	j_arr(j, key);
	for (int i = 0; i < 3; i++)
		j_u64(j, NULL, v[i]);
	j_close(j);
}

/* Slot references: the number, or null for CI_NONE. */
static void j_slot(struct json *j, const char *key, uint32_t slot)
{
	if (slot == CI_NONE)
		j_null(j, key);
	else
		j_u64(j, key, slot);
}

/* A stream reference, the same everywhere: KEY the handle as the application passed it (a hex
 * string), KEY_slot the slot in `streams`; both null when unknown. */
static void j_stream(struct json *j, const char *key, uint32_t slot)
{
	char sk[48];
	snprintf(sk, sizeof(sk), "%s_slot", key);
	if (ci_stream_valid(j->m, slot)) {
		j_hex(j, key, j->m->streams[slot].handle);
		j_u64(j, sk, slot);
	} else {
		j_null(j, key);
		j_null(j, sk);
	}
}

/* ---------------------------------------------------------------------------------------- */

static void j_frame(struct json *j, const struct ci_frame *f)
{
	j_obj(j, NULL);
	j_addr(j, "address", f->address);
	j_str(j, "module", f->module);
	if (f->module)
		j_hex(j, "module_offset", f->module_offset);
	else
		j_null(j, "module_offset");
	j_str(j, "function", f->function);
	j_u64(j, "function_offset", f->function_offset);
	j_str(j, "file", f->file);
	if (f->file)
		j_i64(j, "line", f->line);
	else
		j_null(j, "line");
	j_bool(j, "inlined", f->inlined);
	j_str(j, "kind", f->kind == CI_FRAME_PYTHON ? "python" : "native");
	if (f->kind == CI_FRAME_PYTHON)
		j_i64(j, "instruction", f->instruction);
	j_close(j);
}

/* A recorded stack: return addresses, symbolized (inline frames expanded). */
static void j_stack(struct json *j, const char *key, uint32_t id)
{
	size_t n = 0;
	const uint64_t *pcs = ci_model_stack(j->m, id, &n);
	j_arr(j, key);
	for (size_t i = 0; pcs && i < n; i++) {
		const struct ci_resolved_pc *rp = ci_report_pc(j->r, id, i);
		struct ci_frame bare = { .address = pcs[i] };
		const struct ci_frame *fr = rp ? rp->frames : &bare;
		size_t nf = rp ? rp->count : 1;
		for (size_t k = 0; k < nf; k++)
			j_frame(j, &fr[k]);
	}
	j_close(j);
}

static void j_launch_fields(struct json *j, size_t i)
{
	const struct ci_model *m = j->m;
	const struct ci_diagnosis *d = j->d;
	/* A faulting graph launch whose kernel node is known is shown as that node (its kernel,
	 * shape, arguments and capture stack); diagnosis.faulting_launch.graph says more. */
	struct ci_launch copy;
	const struct ci_launch *l = d->graph && d->graph->faulting_node >= 0 && d->faulting_launch >= 0 &&
						    i == (size_t)d->faulting_launch && j->in_diagnosis
					    ? &d->graph->kernel
					    : launch_at(j, i, &copy);
	char name[512];
	j_u64(j, "seq", l->seq);
	j_str(j, "kernel", ci_launch_kernel_name(m, l, name, sizeof(name)));
	const char *raw = l->function != CI_NONE ? ci_model_function_name(m, l->function) : NULL;
	j_str(j, "symbol", raw && *raw ? raw : NULL);
	j_hex(j, "function_handle", l->function_handle);
	j_stream(j, "stream", l->stream);
	if (ci_stream_valid(m, l->stream))
		j_u64(j, "stream_id", m->streams[l->stream].stream_id);
	else
		j_null(j, "stream_id");
	j_u64(j, "stream_seq", l->stream_seq);
	j_slot(j, "context", l->ctx);
	j_u64(j, "thread", l->tid);
	j_u64(j, "time_ns", l->time_ns);
	j_dim3(j, "grid", l->grid);
	j_dim3(j, "block", l->block);
	j_dim3(j, "cluster", l->cluster);
	j_u64(j, "shared_mem", l->shared_mem);
	j_str(j, "api", ci_launch_api_name(l->api));
	j_i64(j, "result", l->result);
	j_str(j, "result_name", ci_cuda_result_name(l->result));
	j_arr(j, "flags");
	for (unsigned bit = 0; bit < 16; bit++)
		if ((l->flags & (1u << bit)) && ci_launch_flag_word(bit))
			j_str(j, NULL, ci_launch_flag_word(bit));
	j_close(j);
	j_str(j, "state", ci_launch_state_name(j->d->launch_state[i]));

	/* Arguments: from the parameter layout when known, else 8-byte words. */
	size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
	const struct ci_function *fn = l->function < m->function_count && m->functions[l->function].seq
					       ? &m->functions[l->function]
					       : NULL;
	bool known = fn && fn->params_known;
	j_bool(j, "args_layout_known", known);
	j_arr(j, "args");
	uint32_t n = known ? (fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX)
			   : (uint32_t)(len / 8);
	for (uint32_t k = 0; k < n; k++) {
		size_t off = known ? fn->param_offset[k] : (size_t)k * 8;
		size_t sz = known ? fn->param_size[k] : 8;
		j_obj(j, NULL);
		j_u64(j, "index", k);
		j_u64(j, "offset", off);
		j_u64(j, "size", sz);
		if (off + sz > len) {
			j_null(j, "value");
			j_str(j, "bytes", NULL);
		} else if (sz == 1 || sz == 2 || sz == 4 || sz == 8) {
			uint64_t v = 0;
			for (size_t b = sz; b-- > 0;)
				v = v << 8 | l->params[off + b];
			j_u64(j, "value", v);
			j_hex(j, "value_hex", v);
		} else {
			char hexs[2 * CI_LAUNCH_PARAM_BYTES + 1];
			size_t h = 0;
			for (size_t b = 0; b < sz; b++)
				h += (size_t)snprintf(hexs + h, sizeof(hexs) - h, "%02x",
						      l->params[off + b]);
			j_null(j, "value");
			j_str(j, "bytes", hexs);
		}
		j_close(j);
	}
	j_close(j);
	j_u64(j, "stack_id", l->stack);
	j_stack(j, "stack", l->stack);
}

static void j_launch(struct json *j, const char *key, size_t i)
{
	j_obj(j, key);
	j_launch_fields(j, i);
	j_close(j);
}

static void j_alloc(struct json *j, const struct ci_alloc *a, bool freed)
{
	j_obj(j, NULL);
	j_u64(j, "id", a->id);
	j_addr(j, "address", a->address);
	j_u64(j, "size", a->size);
	j_str(j, "kind", ci_alloc_kind_name(a->kind));
	j_slot(j, "context", a->ctx);
	j_stream(j, "stream", a->stream);
	j_u64(j, "thread", a->tid);
	j_u64(j, "time_ns", a->time_ns);
	j_hex(j, "aux", a->aux);
	j_u64(j, "stack_id", a->stack);
	j_stack(j, "stack", a->stack);
	if (freed) {
		j_u64(j, "free_thread", a->free_tid);
		j_u64(j, "free_time_ns", a->free_ns);
		j_stream(j, "free_stream", a->free_stream);
		j_u64(j, "free_stack_id", a->free_stack);
		j_stack(j, "free_stack", a->free_stack);
	}
	j_close(j);
}

static void j_error(struct json *j, const char *key, size_t i)
{
	const struct ci_api_error *e = &j->m->errors[i];
	char api[CI_API_NAME_MAX + 1], args[CI_ARGS_MAX + 1];
	/* The fixed-size fields need not be terminated in a hostile record. */
	memcpy(api, e->api, CI_API_NAME_MAX);
	api[CI_API_NAME_MAX] = '\0';
	memcpy(args, e->args, CI_ARGS_MAX);
	args[CI_ARGS_MAX] = '\0';
	j_obj(j, key);
	j_u64(j, "seq", e->seq);
	j_u64(j, "time_ns", e->time_ns);
	j_i64(j, "result", e->result);
	j_str(j, "result_name", ci_cuda_result_name(e->result));
	j_str(j, "result_text", ci_cuda_result_text(e->result));
	j_str(j, "api", api);
	j_str(j, "args", args);
	j_u64(j, "thread", e->tid);
	j_slot(j, "context", e->ctx);
	j_stream(j, "stream", e->stream);
	j_bool(j, "sticky", (e->flags & CI_ERROR_STICKY) || ci_cuda_result_is_sticky(e->result));
	j_bool(j, "first_sticky", (ptrdiff_t)i == j->d->first_sticky_error);
	j_u64(j, "stack_id", e->stack);
	j_stack(j, "stack", e->stack);
	j_close(j);
}

static void j_fixed_str(struct json *j, const char *key, const char *field, size_t n)
{
	char buf[256];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, field, n);
	buf[n] = '\0';
	j_str(j, key, buf);
}

static void j_section_stats(struct json *j, const struct ci_model *m)
{
	j_obj(j, "sections");
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (!ci_section_title(k) || !s->present)
			continue;
		j_obj(j, ci_section_word(k));
		j_u64(j, "capacity", s->capacity);
		j_u64(j, "head", s->head);
		j_u64(j, "accepted", s->accepted);
		j_u64(j, "torn", s->torn);
		j_u64(j, "invalid", s->invalid);
		j_u64(j, "overwritten", s->overwritten);
		j_u64(j, "dropped", s->dropped);
		j_u64(j, "missing", s->missing);
		j_close(j);
	}
	j_close(j);
}

/* ---------------------------------------------------------------------------------------- */
/* The document's parts, in order, one emitter each                                          */

static void j_part_generator(struct json *j)
{
	j_obj(j, "generator");
	j_str(j, "name", "cudainspect");
	j_str(j, "version", CUDAINSPECT_VERSION);
	j_close(j);
}

static void j_part_input(struct json *j)
{
	const struct ci_source_info *si = j->r->source;
	j_obj(j, "input");
	j_str(j, "path", si ? si->path : NULL);
	j_str(j, "kind", si ? ci_source_kind_name(si->kind) : "buffer");
	j_bool(j, "compressed", si && si->compressed);
	j_bool(j, "truncated", si && si->truncated);
	j_close(j);
}

static void j_part_record(struct json *j)
{
	const struct ci_model *m = j->m;
	const struct ci_header *h = &j->m->header;
	j_obj(j, "record");
	j_u64(j, "format_major", h->major);
	j_u64(j, "format_minor", h->minor);
	j_fixed_str(j, "recorder_version", h->recorder_version, sizeof(h->recorder_version));
	j_addr(j, "address", m->location.address);
	j_u64(j, "size", h->record_size);
	j_str(j, "origin", ci_record_origin_name(h->origin));
	j_str(j, "state", ci_record_state_name(h->state));
	j_u64(j, "start_realtime_ns", h->start_realtime_ns);
	j_u64(j, "start_monotonic_ns", h->start_monotonic_ns);
	j_u64(j, "end_monotonic_ns", h->end_monotonic_ns);
	j_str(j, "stack_mode", h->stack_mode == CI_STACKS_OFF || h->stack_mode == CI_STACKS_FAST
				       ? ci_stack_mode_name(h->stack_mode) : "accurate");
	j_u64(j, "breadcrumb_every_launches", h->crumb_every_launches);
	j_u64(j, "breadcrumb_every_us", h->crumb_every_us);
	j_u64(j, "breadcrumb_budget_ppm", h->crumb_budget_ppm);
	j_u64(j, "breadcrumb_cost_ns", h->crumb_cost_ns);
	j_u64(j, "breadcrumb_width", h->crumb_width);
	j_bool(j, "breadcrumbs_disabled", h->flags & CI_HDR_CRUMBS_OFF);
	j_bool(j, "degraded", h->flags & CI_HDR_DEGRADED);
	j_bool(j, "truncated", h->flags & CI_HDR_TRUNCATED);
	/* Schema 3: what the recorder found of a Python interpreter (section 18), or null. */
	const struct ci_python *py = m->python_count && m->python[0].seq ? &m->python[0] : NULL;
	if (py) {
		char version[32];
		snprintf(version, sizeof version, "%u.%u.%u", py->version >> 24 & 0xff,
			 py->version >> 16 & 0xff, py->version >> 8 & 0xff);
		j_obj(j, "python");
		j_str(j, "state", ci_python_state_name(py->state));
		j_str(j, "version", py->version ? version : NULL);
		j_str(j, "why", py->why_str ? ci_model_string(m, py->why_str) : NULL);
		j_u64(j, "code_objects", m->py_code_count);
		j_close(j);
	} else {
		j_null(j, "python");
	}
	j_section_stats(j, m);
	j_close(j);
}

static void j_part_process(struct json *j)
{
	const struct ci_model *m = j->m;
	const struct ci_diagnosis *d = j->d;
	const struct ci_source_info *si = j->r->source;
	const struct ci_header *h = &j->m->header;
	char sig[32];
	j_obj(j, "process");
	j_u64(j, "pid", h->pid ? h->pid : si ? si->pid : 0);
	j_u64(j, "ppid", h->ppid);
	j_fixed_str(j, "host", h->host, sizeof(h->host));
	const char *exe = ci_model_string(m, h->exe_str);
	j_str(j, "executable", *exe ? exe : si ? si->executable : NULL);
	const char *cmd = ci_model_string(m, h->cmdline_str);
	j_str(j, "cmdline", *cmd ? cmd : si ? si->psargs : NULL);
	if (d->signal) {
		j_i64(j, "signal", d->signal);
		j_str(j, "signal_name", ci_signal_name(d->signal, sig, sizeof(sig)));
	} else {
		j_null(j, "signal");
		j_null(j, "signal_name");
	}
	if (si && si->signal) {
		j_i64(j, "si_code", si->si_code);
		j_addr(j, "fault_address", si->fault_addr);
	} else if (h->state == CI_STATE_SIGNALED) {
		j_i64(j, "si_code", h->fatal_si_code);
		j_addr(j, "fault_address", h->fatal_addr);
	}
	if (d->signal_tid)
		j_u64(j, "crashed_thread", d->signal_tid);
	else
		j_null(j, "crashed_thread");
	j_bool(j, "live", si && si->kind == CI_SOURCE_PID);
	j_close(j);
}

static void j_part_devices(struct json *j)
{
	const struct ci_model *m = j->m;
	j_arr(j, "devices");
	for (size_t i = 0; i < m->device_count; i++) {
		const struct ci_device *dv = &m->devices[i];
		if (!dv->seq)
			continue;
		char uuid[40];
		size_t u = 0;
		for (int k = 0; k < 16; k++)
			u += (size_t)snprintf(uuid + u, sizeof(uuid) - u, "%02x%s", dv->uuid[k],
					      k == 3 || k == 5 || k == 7 || k == 9 ? "-" : "");
		j_obj(j, NULL);
		j_u64(j, "slot", i);
		j_i64(j, "ordinal", dv->ordinal);
		j_fixed_str(j, "name", dv->name, sizeof(dv->name));
		j_str(j, "uuid", uuid);
		j_fixed_str(j, "pci_bus_id", dv->pci_bus_id, sizeof(dv->pci_bus_id));
		j_i64(j, "cc_major", dv->cc_major);
		j_i64(j, "cc_minor", dv->cc_minor);
		j_i64(j, "sm_count", dv->sm_count);
		j_u64(j, "total_mem", dv->total_mem);
		j_close(j);
	}
	j_close(j);
}

static void j_part_contexts(struct json *j)
{
	const struct ci_model *m = j->m;
	j_arr(j, "contexts");
	for (size_t i = 0; i < m->context_count; i++) {
		const struct ci_context *c = &m->contexts[i];
		if (!c->seq)
			continue;
		j_obj(j, NULL);
		j_u64(j, "slot", i);
		j_hex(j, "handle", c->handle);
		j_u64(j, "id", c->ctx_id);
		j_slot(j, "device", c->device);
		j_str(j, "kind", ci_context_kind_name(c->kind));
		j_u64(j, "flags", c->flags);
		j_u64(j, "thread", c->create_tid);
		j_u64(j, "create_ns", c->create_ns);
		if (c->destroy_ns)
			j_u64(j, "destroy_ns", c->destroy_ns);
		else
			j_null(j, "destroy_ns");
		j_stack(j, "stack", c->create_stack);
		j_close(j);
	}
	j_close(j);
}

static void j_part_streams(struct json *j)
{
	const struct ci_model *m = j->m;
	const struct ci_diagnosis *d = j->d;
	const struct ci_header *h = &j->m->header;
	j_arr(j, "streams");
	for (size_t i = 0; i < d->stream_count; i++) {
		const struct ci_stream_progress *p = &d->streams[i];
		const struct ci_stream *st = &m->streams[p->stream];
		j_obj(j, NULL);
		j_u64(j, "slot", p->stream);
		j_hex(j, "handle", st->handle);
		j_u64(j, "id", st->stream_id);
		j_slot(j, "context", st->ctx);
		j_str(j, "kind", ci_stream_kind_name(st->kind));
		j_u64(j, "flags", st->flags);
		j_i64(j, "priority", st->priority);
		j_u64(j, "owner_thread", st->owner_tid);
		j_u64(j, "create_ns", st->create_ns);
		if (st->destroy_ns)
			j_u64(j, "destroy_ns", st->destroy_ns);
		else
			j_null(j, "destroy_ns");
		bool crumbs = st->crumb_slot != CI_NONE && !(h->flags & CI_HDR_CRUMBS_OFF);
		if (crumbs)
			j_u64(j, "breadcrumb", p->crumb);
		else
			j_null(j, "breadcrumb");
		j_str(j, "breadcrumb_status", ci_crumb_status_name(st->crumb_status));
		j_u64(j, "launched", p->launched);
		j_u64(j, "finished", p->finished);
		j_u64(j, "in_flight", p->in_flight);
		j_u64(j, "not_started", p->not_started);
		j_u64(j, "unknown", p->unknown);
		if (p->synced_ns)
			j_u64(j, "synced_ns", p->synced_ns);
		else
			j_null(j, "synced_ns");
		if (p->oldest_unfinished >= 0)
			j_u64(j, "oldest_unfinished", ci_report_launch(j->r, p->oldest_unfinished)->seq);
		else
			j_null(j, "oldest_unfinished");
		j_close(j);
	}
	j_close(j);
}

static void j_part_launches(struct json *j)
{
	const struct ci_model *m = j->m;
	j_arr(j, "launches");
	for (size_t i = 0; i < m->launch_count; i++)
		if (shown(j, SHOWN_LAUNCHES, i))
			j_launch(j, NULL, i);
	j_close(j);
	ci_model_launches_release(m);
}

/* The live allocations: those loaded, else (a lazy model's in a full document) read a sweep of
 * the table at a time into the walk's window, in address order, never kept (model.h). */
static void j_part_allocations(struct json *j)
{
	const struct ci_model *m = j->m;
	struct ci_alloc_walk walk;
	ci_alloc_walk_init(&walk, m, m->alloc_count);
	j_arr(j, "allocations");
	for (size_t i = 0; i < m->alloc_count; i++) {
		if (!shown(j, SHOWN_ALLOCS, i))
			continue;
		const struct ci_alloc *a = ci_alloc_walk_at(&walk, i);
		j_alloc(j, a ? a : ci_report_alloc(j->r, i), false);
	}
	j_close(j);
	ci_alloc_walk_deinit(&walk);
}

static void j_part_frees(struct json *j)
{
	const struct ci_model *m = j->m;
	j_arr(j, "frees");
	for (size_t i = 0; i < m->free_count; i++)
		if (shown(j, SHOWN_FREES, i))
			j_alloc(j, &m->frees[i], true);
	j_close(j);
}

static void j_part_errors(struct json *j)
{
	const struct ci_model *m = j->m;
	j_arr(j, "errors");
	for (size_t i = 0; i < m->error_count; i++)
		j_error(j, NULL, i);
	j_close(j);
}

static void j_part_threads(struct json *j)
{
	const struct ci_diagnosis *d = j->d;
	const struct ci_report *report = j->r;
	j_arr(j, "threads");
	for (size_t i = 0; i < report->thread_count; i++) {
		const struct ci_thread_stack *t = &report->threads[i];
		char name[sizeof(t->name) + 1];
		memcpy(name, t->name, sizeof(t->name));
		name[sizeof(t->name)] = '\0';
		j_obj(j, NULL);
		j_u64(j, "tid", t->tid);
		j_str(j, "name", name);
		j_bool(j, "crashed", t->crashed || (d->signal && t->tid == d->signal_tid));
		j_arr(j, "frames");
		for (size_t k = 0; k < t->frame_count; k++)
			j_frame(j, &t->frames[k]);
		j_close(j);
		j_str(j, "note", t->note);
		j_bool(j, "python", t->python);
		j_bool(j, "gil_holder", t->gil_holder);
		j_str(j, "python_note", t->python_note);
		j_close(j);
	}
	j_close(j);
}

/* One node version of a graph. */
static void j_graph_node(struct json *j, const struct ci_graph_node *e, const char *state,
			 const struct ci_graph_replay *g, size_t at)
{
	const struct ci_model *m = j->m;
	char name[512];
	j_obj(j, NULL);
	j_u64(j, "ordinal", e->ordinal);
	if (g) { /* a replay's node: its name ("3.0" in a child graph), the child-graph node's */
		j_str(j, "node", ci_graph_replay_node_name(g, at, name, sizeof name));
		if (g->nodes[at].parent >= 0)
			j_str(j, "child_of", ci_graph_replay_node_name(g, (size_t)g->nodes[at].parent, name, sizeof name));
		else
			j_null(j, "child_of");
		j_slot(j, "graph_slot", e->graph);
	}
	j_str(j, "type", ci_node_type_name(e->type));
	j_hex(j, "handle", e->handle);
	if (e->type == CI_NODE_KERNEL) {
		struct ci_launch k = { .function = e->function, .function_handle = e->function_handle };
		j_str(j, "kernel", ci_launch_kernel_name(m, &k, name, sizeof(name)));
		j_dim3(j, "grid", e->grid);
		j_dim3(j, "block", e->block);
		j_u64(j, "shared_mem", e->shared_mem);
		char hexs[2 * CI_LAUNCH_PARAM_BYTES + 1];
		size_t h = 0, len = e->param_len < CI_LAUNCH_PARAM_BYTES ? e->param_len : CI_LAUNCH_PARAM_BYTES;
		hexs[0] = '\0';
		for (size_t b = 0; b < len; b++)
			h += (size_t)snprintf(hexs + h, sizeof(hexs) - h, "%02x", e->params[b]);
		j_str(j, "params", hexs);
	} else {
		j_str(j, "kernel", NULL);
	}
	j_hex(j, "a", e->a);
	j_hex(j, "b", e->b);
	j_u64(j, "bytes", e->bytes);
	j_stream(j, "stream", e->stream);
	j_slot(j, "exec", e->exec);
	j_bool(j, "update", (e->flags & CI_NODE_UPDATE) != 0);
	j_bool(j, "breadcrumb", (e->flags & CI_NODE_CRUMB) != 0);
	j_bool(j, "disabled", (e->flags & CI_NODE_DISABLED) != 0);
	j_bool(j, "destroyed", (e->flags & CI_NODE_DESTROYED) != 0);
	j_u64(j, "dep_count", e->dep_count);
	j_arr(j, "deps");
	for (uint32_t i = 0; i < e->dep_count && i < CI_NODE_DEPS; i++)
		j_slot(j, NULL, e->deps[i]);
	j_close(j);
	j_u64(j, "time_ns", e->time_ns);
	if (state)
		j_str(j, "state", state);
	j_u64(j, "stack_id", e->stack);
	j_stack(j, "stack", e->stack);
	j_close(j);
}

/* diagnosis.faulting_launch.graph: the replay the faulting graph launch was. */
static void j_graph_replay(struct json *j, const struct ci_graph_replay *g)
{
	const struct ci_model *m = j->m;
	const struct ci_launch *gl = ci_report_launch(j->r, g->launch);
	j_obj(j, "graph");
	j_hex(j, "exec", gl->aux);
	j_slot(j, "exec_slot", g->exec);
	if (g->graph != CI_NONE && g->graph < m->graph_count && m->graphs[g->graph].seq)
		j_hex(j, "graph", m->graphs[g->graph].handle);
	else
		j_null(j, "graph");
	j_slot(j, "graph_slot", g->graph);
	j_u64(j, "replay", g->replay);
	j_u64(j, "kernel_nodes", g->kernel_count);
	/* faulting_node: the ordinal in the replayed graph (a child graph's kernel: the child-graph
	 * node it ran in); faulting_node_name the kernel node itself ("3.0"). */
	char nn[192];
	ptrdiff_t top = g->faulting_node;
	while (top >= 0 && g->nodes[top].parent >= 0)
		top = g->nodes[top].parent;
	if (top >= 0) {
		j_u64(j, "faulting_node", g->nodes[top].ordinal);
		j_str(j, "faulting_node_name", ci_graph_replay_node_name(g, (size_t)g->faulting_node, nn, sizeof nn));
	} else {
		j_null(j, "faulting_node");
		j_null(j, "faulting_node_name");
	}
	j_u64(j, "graph_nodes", g->graph_nodes);
	j_u64(j, "child_graph_nodes", g->node_count - g->graph_nodes);
	j_bool(j, "child_graphs_cut", g->children_cut);
	j_bool(j, "breadcrumb", g->crumb);
	if (g->crumb) {
		j_u64(j, "breadcrumb_value", g->crumb_value);
		j_u64(j, "unfinished_kernel_nodes", g->crumb_unfinished);
	} else {
		j_null(j, "breadcrumb_value");
		j_null(j, "unfinished_kernel_nodes");
	}
	j_u64(j, "graph_launch_stack_id", gl->stack);
	j_stack(j, "graph_launch_stack", gl->stack);
	j_arr(j, "nodes");
	size_t *order = ci_graph_replay_order(g); /* each child graph's nodes after its node */
	for (size_t at = 0; at < g->node_count; at++) {
		size_t i = order ? order[at] : at;
		if (g->nodes[i].node)
			j_graph_node(j, g->nodes[i].node, ci_launch_state_name(g->nodes[i].state), g, i);
	}
	free(order);
	j_close(j);
	j_close(j);
}

static void j_graph_launch(struct json *j, const struct ci_graph_launch *gl)
{
	j_obj(j, NULL);
	j_hex(j, "exec", gl->exec_handle);
	j_slot(j, "exec_slot", gl->exec);
	j_stream(j, "stream", gl->stream);
	j_u64(j, "replay", gl->replay);
	j_u64(j, "launch", gl->launch_seq);
	j_u64(j, "stream_seq", gl->stream_seq);
	j_u64(j, "thread", gl->tid);
	j_u64(j, "time_ns", gl->time_ns);
	j_str(j, "result_name", ci_cuda_result_name(gl->result));
	j_close(j);
}

static void j_part_graphs(struct json *j)
{
	const struct ci_model *m = j->m;
	struct ci_graph_index ix;
	bool ix_ok = ci_graph_index_init(m, &ix);
	j_arr(j, "graphs");
	for (size_t gi = 0; gi < m->graph_count; gi++) {
		const struct ci_graph *g = &m->graphs[gi];
		if (!g->seq)
			continue;
		j_obj(j, NULL);
		j_u64(j, "slot", gi);
		j_hex(j, "handle", g->handle);
		j_str(j, "origin", ci_graph_origin_name(g->origin));
		j_bool(j, "capture_ended", (g->flags & CI_GRAPH_ENDED) != 0);
		j_bool(j, "capture_invalidated", (g->flags & CI_GRAPH_INVALIDATED) != 0);
		j_stream(j, "stream", g->stream);
		j_u64(j, "capture_mode", g->capture_mode);
		j_u64(j, "nodes", g->nodes);
		j_u64(j, "nodes_not_recorded", g->nodes_dropped);
		j_bool(j, "breadcrumbs", g->crumb_slot != CI_NONE);
		j_bool(j, "destroyed", g->destroy_ns != 0);
		j_u64(j, "stack_id", g->stack);
		j_stack(j, "stack", g->stack);
		/* Versions by table order: the graph's own, then each exec's (exec not null). */
		j_arr(j, "node_versions");
		for (size_t k = ix_ok ? ix.node_head[gi] : SIZE_MAX; k != SIZE_MAX; k = ix.node_next[k])
			j_graph_node(j, &m->graph_nodes[k], NULL, NULL, 0);
		for (size_t xi = ix_ok ? ix.exec_head[gi] : SIZE_MAX; xi != SIZE_MAX; xi = ix.exec_next[xi])
			for (size_t k = ix.upd_head[xi]; k != SIZE_MAX; k = ix.upd_next[k])
				j_graph_node(j, &m->graph_nodes[k], NULL, NULL, 0);
		j_close(j);
		j_arr(j, "execs");
		for (size_t xi = ix_ok ? ix.exec_head[gi] : SIZE_MAX; xi != SIZE_MAX; xi = ix.exec_next[xi]) {
			const struct ci_graph_exec *x = &m->graph_execs[xi];
			j_obj(j, NULL);
			j_u64(j, "slot", xi);
			j_hex(j, "handle", x->handle);
			j_u64(j, "nodes", x->nodes);
			j_hex(j, "flags", x->flags);
			j_u64(j, "launches", x->launches);
			j_u64(j, "updates", x->updates);
			j_bool(j, "destroyed", x->destroy_ns != 0);
			j_u64(j, "stack_id", x->stack);
			j_stack(j, "stack", x->stack);
			j_close(j);
		}
		j_close(j);
		j_close(j);
	}
	j_close(j);
	j_arr(j, "graph_launches");
	if (ci_model_graph_launches_in_launches(m)) {
		/* Format 1.5: the launches of api graph the document shows (their entries hold the
		 * exec and the replay); a lazy model's are read again, not kept. */
		struct ci_launch copy;
		for (size_t i = 0; i < m->launch_count; i++) {
			if (!shown(j, SHOWN_LAUNCHES, i))
				continue;
			const struct ci_launch *l = launch_at(j, i, &copy);
			if (l && l->api == CI_LAUNCH_GRAPH) {
				struct ci_graph_launch gl = ci_graph_launch_of_launch(l);
				j_graph_launch(j, &gl);
			}
		}
		ci_model_launches_release(m);
	} else {
		for (size_t i = 0; i < m->graph_launch_count; i++)
			j_graph_launch(j, &m->graph_launches[i]);
	}
	j_close(j);
	if (ix_ok)
		ci_graph_index_deinit(&ix);
}

/* The kernel-log lines, at most this many (the counts say how many there were). */
#define J_KLOG_LINES_MAX 256

/* A fault address and where it lies (the Xid page, the GPU core's address): address, relation
 * ("null_page" in the first 64 KiB, "unknown" in no recorded allocation), allocation, offset. */
static void j_fault_address(struct json *j, const struct ci_attribution *a)
{
	j_addr(j, "address", a->address);
	j_str(j, "relation", a->address < 0x10000 ? "null_page" : a->alloc ?
			     ci_relation_name(a->relation) : "unknown");
	if (a->alloc) {
		j_u64(j, "allocation", a->alloc->id);
		j_u64(j, "offset", a->offset);
	} else {
		j_null(j, "allocation");
		j_null(j, "offset");
	}
}

/* diagnosis.gpu_core: the GPU core dump joined with the record (docs/JSON.md). */
static void j_gpu_core(struct json *j)
{
	const struct ci_gpu_join *g = j->d->gpu;
	struct ci_gpucore *gc = j->r->evidence ? j->r->evidence->gpu_core : NULL;
	char how[96];
	if (!g || !gc) {
		j_null(j, "gpu_core");
		return;
	}
	j_obj(j, "gpu_core");
	j_str(j, "path", j->r->evidence->gpu_core_path);
	j_bool(j, "agrees", g->agrees);
	j_str(j, "mismatch", g->agrees ? NULL : g->mismatch);
	if (g->launch >= 0)
		j_u64(j, "launch", ci_report_launch(j->r, (size_t)g->launch)->seq);
	else
		j_null(j, "launch");
	j_str(j, "matched_by", ci_gpu_match_text(g->matched, how, sizeof how));
	j_u64(j, "candidates", g->candidates);
	j_u64(j, "unfinished", g->unfinished);
	j_u64(j, "with_arguments", g->with_args);
	j_str(j, "confidence", g->agrees ? ci_confidence_name(g->confidence) : NULL);
	if (g->agrees)
		ci_gpucore_json_fault(&j->w, "fault", gc);
	else
		j_null(j, "fault");
	if (g->has_address) {
		const struct ci_attribution *a = &g->address_at;
		j_obj(j, "address");
		j_fault_address(j, a);
		if (g->arg_fit.fault_related && g->arg_fit.fault_fit != CI_FIT_NONE) {
			char fit[320];
			j_obj(j, "argument");
			j_u64(j, "arg", g->arg_fit.arg);
			j_str(j, "fit", ci_fault_fit_name(g->arg_fit.fault_fit));
			j_i64(j, "from_arg", g->arg_fit.fault_from_arg);
			j_str(j, "text", ci_fault_fit_phrase(&g->arg_fit, fit, sizeof fit));
			j_close(j);
		} else
			j_null(j, "argument");
		j_close(j);
	} else
		j_null(j, "address");
	j_close(j);
}

/* Schema 3: the evidence the diagnosis weighed, the kernel log's lines, the Xid page, the
 * faulting copy and the crash signature (docs/JSON.md). */
static void j_diag_evidence(struct json *j)
{
	const struct ci_model *m = j->m;
	const struct ci_diagnosis *d = j->d;
	const struct ci_evidence *ev = ci_report_evidence(j->r);
	j_arr(j, "evidence");
	for (size_t i = 0; i < d->evidence_count; i++) {
		const struct ci_evidence_item *it = &d->evidence[i];
		j_obj(j, NULL);
		j_str(j, "kind", ci_evidence_kind_name(it->kind));
		j_str(j, "text", it->text);
		j_str(j, "rule", it->rule);
		j_bool(j, "decisive", it->decisive);
		if (it->launch >= 0)
			j_u64(j, "launch", ci_report_launch(j->r, (size_t)it->launch)->seq);
		else
			j_null(j, "launch");
		if (it->alloc)
			j_u64(j, "allocation", it->alloc->id);
		else
			j_null(j, "allocation");
		if (it->event >= 0)
			j_u64(j, "event", m->events[it->event].seq);
		else
			j_null(j, "event");
		if (it->xid >= 0 && ev && ev->kernel_log)
			j_u64(j, "kernel_log_line", ev->kernel_log->items[it->xid].line);
		else
			j_null(j, "kernel_log_line");
		j_close(j);
	}
	j_close(j);
	if (d->xid >= 0) {
		const struct ci_attribution *p = &d->xid_page;
		j_obj(j, "xid_page");
		j_u64(j, "kernel_log_line", ev->kernel_log->items[d->xid].line);
		j_fault_address(j, p);
		/* In no recorded allocation: the nearest live ones (docs/JSON.md). */
		const struct ci_alloc *near[2] = { d->xid_below, d->xid_above };
		const char *names[2] = { "nearest_below", "nearest_above" };
		for (int k = 0; k < 2; k++) {
			if (!near[k]) {
				j_null(j, names[k]);
				continue;
			}
			j_obj(j, names[k]);
			j_u64(j, "allocation", near[k]->id);
			j_u64(j, "allocation_size", near[k]->size);
			j_u64(j, "distance", k ? near[k]->address - p->address : p->address - near[k]->address);
			j_close(j);
		}
		j_close(j);
	} else {
		j_null(j, "xid_page");
	}
	j_gpu_core(j);
	if (d->faulting_copy >= 0) {
		const struct ci_event *e = &m->events[d->faulting_copy];
		j_obj(j, "faulting_copy");
		j_u64(j, "event", e->seq);
		j_str(j, "kind", ci_event_kind_name(e->kind));
		j_addr(j, "destination", e->a);
		if (e->kind == CI_EV_MEMCPY)
			j_addr(j, "source", e->b);
		j_u64(j, "bytes", e->value);
		j_stream(j, "stream", e->stream);
		j_u64(j, "tid", e->tid);
		j_close(j);
	} else {
		j_null(j, "faulting_copy");
	}
	if (ev && ev->kernel_log) {
		const struct ci_klog *log = ev->kernel_log;
		j_obj(j, "kernel_log");
		j_str(j, "origin", ev->kernel_log_origin);
		j_u64(j, "xid_lines", log->count);
		j_u64(j, "selected", ev->kernel_log_selected);
		j_u64(j, "events", ev->kernel_log_events);
		j_arr(j, "lines");
		size_t shown = 0;
		for (size_t i = 0; i < log->count && shown < J_KLOG_LINES_MAX; i++, shown++) {
			const struct ci_xid *x = &log->items[i];
			const struct ci_klog_match *mt = &ev->kernel_log_match[i];
			j_obj(j, NULL);
			j_u64(j, "line", x->line);
			j_u64(j, "xid", x->xid);
			j_str(j, "format", ci_klog_format_name(x->format));
			j_bool(j, "belongs", mt->belongs);
			j_str(j, "rule", mt->belongs ? ci_klog_rule_name(mt->rule) : NULL);
			j_str(j, "reject", mt->belongs ? NULL : ci_klog_reject_name(mt->reject));
			if (mt->belongs && mt->event != SIZE_MAX)
				j_u64(j, "event", mt->event);
			else
				j_null(j, "event");
			if (x->pid_form == CI_XID_PID_NUMBER)
				j_u64(j, "pid", x->pid);
			else
				j_null(j, "pid");
			j_str(j, "name", x->name);
			char pci[32];
			snprintf(pci, sizeof pci, "%04x:%02x:%02x", x->pci.domain, x->pci.bus, x->pci.device);
			j_str(j, "pci", pci);
			if (x->xid == 31 && x->mmu.has_address)
				j_addr(j, "address", x->mmu.address);
			else
				j_null(j, "address");
			j_str(j, "message", x->message);
			j_close(j);
		}
		j_close(j);
		j_u64(j, "lines_omitted", log->count - shown);
		j_close(j);
	} else {
		j_null(j, "kernel_log");
	}
	j_obj(j, "fingerprint");
	j_str(j, "id", ci_report_fingerprint(j->r));
	j_str(j, "basis", ci_report_fingerprint_basis(j->r));
	j_close(j);
}

static void j_part_diagnosis(struct json *j)
{
	const struct ci_model *m = j->m;
	const struct ci_diagnosis *d = j->d;
	j_obj(j, "diagnosis");
	j_str(j, "verdict", ci_verdict_name(d->verdict));
	if (d->faulting_launch >= 0) {
		j_obj(j, "faulting_launch");
		j->in_diagnosis = true;
		j_launch_fields(j, (size_t)d->faulting_launch);
		j->in_diagnosis = false;
		j_str(j, "confidence", ci_confidence_name(d->confidence));
		if (d->graph)
			j_graph_replay(j, d->graph);
		else
			j_null(j, "graph");
		j_close(j);
	} else {
		j_null(j, "faulting_launch");
	}
	j_str(j, "confidence", ci_confidence_name(d->confidence));
	j_str(j, "reasoning", d->reasoning);
	if (d->failed_launch >= 0)
		j_launch(j, "failed_launch", (size_t)d->failed_launch);
	else
		j_null(j, "failed_launch");
	if (d->error_tid)
		j_u64(j, "error_thread", d->error_tid);
	else
		j_null(j, "error_thread");
	if (d->first_sticky_error >= 0)
		j_error(j, "first_sticky_error", (size_t)d->first_sticky_error);
	else
		j_null(j, "first_sticky_error");
	if (d->last_error >= 0)
		j_error(j, "last_error", (size_t)d->last_error);
	else
		j_null(j, "last_error");
	/* Pointers outside every recorded allocation may be inside one of these. */
	j_u64(j, "allocations_not_recorded", m->sections[CI_SEC_ALLOCS].dropped);
	j_arr(j, "attributions");
	for (size_t i = 0; i < d->attribution_count; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		j_obj(j, NULL);
		j_u64(j, "launch", ci_report_launch(j->r, a->launch)->seq);
		j_u64(j, "arg", a->arg);
		j_u64(j, "param_offset", a->param_offset);
		j_addr(j, "address", a->address);
		j_str(j, "relation", ci_relation_name(a->relation));
		if (a->alloc) {
			j_u64(j, "allocation", a->alloc->id);
			j_addr(j, "allocation_address", a->alloc->address);
			j_u64(j, "allocation_size", a->alloc->size);
			j_u64(j, "offset", a->offset);
		} else {
			j_null(j, "allocation");
			j_null(j, "offset");
		}
		/* The fault page against the argument (docs/JSON.md). */
		if (a->fault_related) {
			j_obj(j, "fault_page");
			j_str(j, "fit", ci_fault_fit_name(a->fault_fit));
			j_i64(j, "from_argument", a->fault_from_arg);
			if (a->alloc && a->relation != CI_REL_UNKNOWN) {
				j_i64(j, "from_allocation_start", a->fault_from_start);
				j_i64(j, "from_allocation_end", a->fault_from_end);
			} else {
				j_null(j, "from_allocation_start");
				j_null(j, "from_allocation_end");
			}
			if (a->fault_pow2 >= 0) {
				j_obj(j, "power_of_two");
				j_u64(j, "exponent", (uint64_t)a->fault_pow2);
				j_i64(j, "rest", a->fault_pow2_rest);
				j_close(j);
			} else {
				j_null(j, "power_of_two");
			}
			if (a->fault_multiple) {
				j_obj(j, "multiple");
				j_i64(j, "times", a->fault_multiple);
				j_i64(j, "rest", a->fault_multiple_rest);
				j_close(j);
			} else {
				j_null(j, "multiple");
			}
			if (a->element_size) {
				j_obj(j, "elements");
				j_str(j, "type", a->element_type);
				j_u64(j, "size", a->element_size);
				j_i64(j, "from_argument", a->fault_from_arg / (int64_t)a->element_size);
				j_i64(j, "rest", a->fault_from_arg % (int64_t)a->element_size);
				j_close(j);
			} else {
				j_null(j, "elements");
			}
			j_close(j);
		} else {
			j_null(j, "fault_page");
		}
		/* Argument history (docs/JSON.md). */
		j_obj(j, "history");
		j_str(j, "rule", ci_history_name(a->history));
		j_u64(j, "earlier_launches", a->history_launches);
		j_u64(j, "inside", a->history_inside);
		if (a->history_alloc)
			j_u64(j, "allocation", a->history_alloc->id);
		else
			j_null(j, "allocation");
		if (a->history == CI_HISTORY_LEFT) {
			j_str(j, "neighbour_relation", ci_relation_name(a->neighbour_relation));
			if (a->neighbour) {
				j_u64(j, "neighbour", a->neighbour->id);
				j_u64(j, "neighbour_offset", a->neighbour_offset);
			} else {
				j_null(j, "neighbour");
				j_null(j, "neighbour_offset");
			}
		}
		j_close(j);
		j_close(j);
	}
	j_close(j);
	j_diag_evidence(j);
	j_close(j);
}

/* Schema 5: what `cudainspect merge` needs of this process, so that a document from another
 * host merges like the core it came from (job_facts.c; docs/JSON.md, "job"). */
static void j_part_job(struct json *j)
{
	struct ci_job_facts f;
	struct ci_error *err = ci_job_facts_from_report(j->r, &f);
	if (err) {
		ci_error_destroy(err);
		j_null(j, "job");
		return;
	}
	ci_job_facts_write(&j->w, "job", &f);
	ci_job_facts_deinit(&f);
}

static void j_part_warnings(struct json *j)
{
	const struct ci_report *report = j->r;
	j_arr(j, "warnings");
	for (size_t l = 0; l < report->warning_lists; l++) {
		const struct ci_warnings *w = report->warnings[l];
		for (size_t i = 0; w && i < w->count; i++)
			j_str(j, NULL, w->items[i]);
	}
	j_close(j);
}

/* The bounds (null in a full document) and what they left out of launches, allocations and
 * frees (zeros in a full document): shown + omitted = the record's. */
static void j_part_omitted(struct json *j)
{
	const struct ci_json_bound *b = j->bound;
	if (b) {
		j_obj(j, "bounds");
		j_u64(j, "launches_per_stream", CI_JSON_LAUNCHES_PER_STREAM);
		j_u64(j, "unfinished_per_stream", CI_JSON_UNFINISHED_PER_STREAM);
		j_u64(j, "allocations", CI_JSON_ALLOCATIONS);
		j_u64(j, "frees", CI_JSON_FREES);
		j_close(j);
	} else {
		j_null(j, "bounds");
	}
	j_obj(j, "omitted");
	j_u64(j, "launches", b ? b->omitted[SHOWN_LAUNCHES] : 0);
	j_u64(j, "allocations", b ? b->omitted[SHOWN_ALLOCS] : 0);
	j_u64(j, "frees", b ? b->omitted[SHOWN_FREES] : 0);
	j_close(j);
}

static void (*const parts[])(struct json *) = {
	j_part_generator,
	j_part_input,
	j_part_record,
	j_part_process,
	j_part_devices,
	j_part_contexts,
	j_part_streams,
	j_part_launches,
	j_part_allocations,
	j_part_frees,
	j_part_errors,
	j_part_threads,
	j_part_graphs,
	j_part_diagnosis,
	j_part_job,
	j_part_warnings,
	j_part_omitted,
};

struct ci_error *ci_render_json(FILE *f, const struct ci_report *report,
				const struct ci_render_options *opts)
{
	struct json jj = { .r = report, .m = report->model, .d = report->diagnosis,
			   .o = opts ? opts : &report->request.render };
	struct json *j = &jj;
	j->bound = report->json_bound;

	ci_json_begin(&j->w, f);
	j_u64(j, "version", CI_JSON_SCHEMA_VERSION);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		parts[i](j);
	return ci_json_end(&j->w, "JSON report");
}
