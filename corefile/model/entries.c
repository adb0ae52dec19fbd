/* SPDX-License-Identifier: MIT */
/*
 * What the entries of each record section are, for the decoder and the model's accessors alike:
 * their layout and the fields that order them (ci_section_kinds), and the checks of their
 * references.  Every reference between entries (slots, strings, stacks, frames) is cleared when it
 * points nowhere: the tables once all are in (ci_check_tables), a ring or allocation entry as it is
 * copied into the model (ci_check_entry, also when a lazy model copies it on first use), and one
 * warning per section whose references had to be cleared.
 */
#include <stddef.h>
#include <stdio.h>

#include "model.h"

#define RING_BY_TIME(type) offsetof(type, time_ns), offsetof(type, seq)

const struct section_kind ci_section_kinds[CI_SECTION_KIND_MAX] = {
	[CI_SEC_HOST_MODULES] = { LAYOUT_TABLE, sizeof(struct ci_host_module), 0, 0, 0 },
	[CI_SEC_DEVICES] = { LAYOUT_TABLE, sizeof(struct ci_device), 0, 0, 0 },
	[CI_SEC_CONTEXTS] = { LAYOUT_TABLE, sizeof(struct ci_context), 0, 0, 0 },
	[CI_SEC_STREAMS] = { LAYOUT_TABLE, sizeof(struct ci_stream), 0, 0, 0 },
	[CI_SEC_CODE_MODULES] = { LAYOUT_TABLE, sizeof(struct ci_code_module), 0, 0, 0 },
	[CI_SEC_FUNCTIONS] = { LAYOUT_TABLE, sizeof(struct ci_function), 0, 0, 0 },
	[CI_SEC_LAUNCHES] = { LAYOUT_RING, sizeof(struct ci_launch), 0,
			      RING_BY_TIME(struct ci_launch) },
	[CI_SEC_ALLOCS] = { LAYOUT_ALLOCS, sizeof(struct ci_alloc), 0,
			    offsetof(struct ci_alloc, address), offsetof(struct ci_alloc, id) },
	[CI_SEC_FREES] = { LAYOUT_RING, sizeof(struct ci_alloc), 0,
			   offsetof(struct ci_alloc, free_ns), offsetof(struct ci_alloc, seq) },
	[CI_SEC_ERRORS] = { LAYOUT_RING, sizeof(struct ci_api_error), 0,
			    RING_BY_TIME(struct ci_api_error) },
	[CI_SEC_EVENTS] = { LAYOUT_RING, sizeof(struct ci_event), 0,
			    RING_BY_TIME(struct ci_event) },
	[CI_SEC_STACKS] = { LAYOUT_TABLE, sizeof(struct ci_stack), 0, 0, 0 },
	[CI_SEC_FRAMES] = { LAYOUT_BYTES, 8, 8, 0, 0 },
	[CI_SEC_STRINGS] = { LAYOUT_BYTES, 1, 1, 0, 0 },
	[CI_SEC_BREADCRUMBS] = { LAYOUT_BYTES, 4, 0, 0, 0 },
	[CI_SEC_THREADS] = { LAYOUT_TABLE, sizeof(struct ci_thread), 0, 0, 0 },
	[CI_SEC_SYMBOL_IMAGE] = { LAYOUT_BYTES, 1, 1, 0, 0 },
	[CI_SEC_GRAPHS] = { LAYOUT_TABLE, sizeof(struct ci_graph), 0, 0, 0 },
	[CI_SEC_GRAPH_NODES] = { LAYOUT_TABLE, sizeof(struct ci_graph_node), 0, 0, 0 },
	[CI_SEC_GRAPH_EXECS] = { LAYOUT_TABLE, sizeof(struct ci_graph_exec), 0, 0, 0 },
	[CI_SEC_GRAPH_LAUNCHES] = { LAYOUT_RING, sizeof(struct ci_graph_launch), 0,
				    RING_BY_TIME(struct ci_graph_launch) },
	[CI_SEC_KERNEL_LOG] = { LAYOUT_BYTES, 1, 1, 0, 0 },
	[CI_SEC_PYTHON] = { LAYOUT_TABLE, sizeof(struct ci_python), 0, 0, 0 },
	[CI_SEC_PY_CODES] = { LAYOUT_TABLE, sizeof(struct ci_py_code), 0, 0, 0 },
	[CI_SEC_NCCL_COMMS] = { LAYOUT_TABLE, sizeof(struct ci_nccl_comm), 0, 0, 0 },
	[CI_SEC_NCCL_CALLS] = { LAYOUT_RING, sizeof(struct ci_nccl_call), 0,
				RING_BY_TIME(struct ci_nccl_call) },
	[CI_SEC_JOB] = { LAYOUT_TABLE, sizeof(struct ci_job_var), 0, 0, 0 },
	[CI_SEC_PEER_MEMORY] = { LAYOUT_TABLE, sizeof(struct ci_peer_mem), 0, 0, 0 },
	[CI_SEC_ALLOC_GRANULES] = { LAYOUT_BYTES, 1, 1, 0, 0 },
};
#undef RING_BY_TIME

static bool slot_ok(const void *table, size_t count, size_t size, uint32_t slot)
{
	return slot < count && ci_le64((const uint8_t *)table + (size_t)slot * size) != 0;
}

/* Count a reference of a KIND entry to entry (or string offset) AT of TARGET, which cannot
 * resolve it: damage, unless part of TARGET is simply not in the input, or, on a live source,
 * the writer published it after TARGET was read. */
static void bad_ref(struct refcheck *r, uint32_t kind, uint32_t target, uint64_t at)
{
	if (!r->bad_refs)
		return;
	if (r->heads && at < r->heads[target])
		r->late[kind]++;
	else if (r->m->sections[target].missing)
		r->unresolved[kind]++;
	else
		r->bad_refs[kind]++;
}

/* Count damage in a KIND entry that is not a reference. */
static void bad_field(struct refcheck *r, uint32_t kind)
{
	if (r->bad_refs)
		r->bad_refs[kind]++;
}

/* Clear a slot reference to CI_NONE unless it names an accepted entry of TARGET. */
#define CHECK_SLOT(r, kind, field, target, table, count)                                    \
	do {                                                                                 \
		if ((field) != CI_NONE && !slot_ok((table), (count), sizeof *(table), (field))) { \
			bad_ref((r), (kind), (target), (field));                             \
			(field) = CI_NONE;                                                   \
		}                                                                            \
	} while (0)

static void check_string(struct refcheck *r, uint32_t kind, uint32_t *off)
{
	/* A string without its NUL within CI_STRING_MAX is damage: taken as it is, every reference
	 * to it would read to the end of the table (megabytes each, in every view and JSON). */
	uint64_t left = *off < r->m->strings_size ? r->m->strings_size - *off : 0;
	if (*off >= r->m->strings_size ||
	    !memchr(r->m->strings + *off, 0, left < CI_STRING_MAX + 1 ? left : CI_STRING_MAX + 1)) {
		bad_ref(r, kind, CI_SEC_STRINGS, *off);
		*off = 0;
	}
}

static void check_stack(struct refcheck *r, uint32_t kind, uint32_t *id)
{
	if (*id != 0 && (*id > r->m->stack_count || r->m->stacks[*id - 1].seq == 0)) {
		bad_ref(r, kind, CI_SEC_STACKS, *id - 1);
		*id = 0;
	}
}

#define M (r->m)
#define CHECK_CTX(kind, f) CHECK_SLOT(r, kind, f, CI_SEC_CONTEXTS, M->contexts, M->context_count)
#define CHECK_STREAM(kind, f) CHECK_SLOT(r, kind, f, CI_SEC_STREAMS, M->streams, M->stream_count)

/* The tables, once all are in: everything else refers to them. */
void ci_check_tables(struct decoder *d)
{
	struct ci_model *m = d->m;
	struct refcheck *r = &d->rc;
	/* Stacks first: everything else refers to them. */
	for (size_t i = 0; i < m->stack_count; i++) {
		struct ci_stack *s = &m->stacks[i];
		uint64_t end = 0;
		if (s->seq && (s->nframes > CI_MAX_STACK_FRAMES ||
			       !ci_add(s->frames_offset, s->nframes, &end) || end > m->frame_count)) {
			s->seq = 0;
			m->sections[CI_SEC_STACKS].accepted--;
			/* Frames the input lacks are missing, not damage. */
			bool lost = m->sections[CI_SEC_FRAMES].missing && s->nframes <= CI_MAX_STACK_FRAMES &&
				    end <= d->secs[CI_SEC_FRAMES].capacity;
			if (lost)
				m->sections[CI_SEC_STACKS].missing++;
			else
				m->sections[CI_SEC_STACKS].invalid++;
		}
	}
	check_string(r, 0, &m->header.exe_str);
	check_string(r, 0, &m->header.cmdline_str);
	for (size_t i = 0; i < m->nccl_comm_count; i++) {
		struct ci_nccl_comm *c = &m->nccl_comms[i];
		CHECK_CTX(CI_SEC_NCCL_COMMS, c->ctx);
		check_stack(r, CI_SEC_NCCL_COMMS, &c->stack);
	}
	for (size_t i = 0; i < m->job_var_count; i++) {
		check_string(r, CI_SEC_JOB, &m->job_vars[i].name_str);
		check_string(r, CI_SEC_JOB, &m->job_vars[i].value_str);
	}
	for (size_t i = 0; i < m->peer_mem_count; i++) {
		CHECK_CTX(CI_SEC_PEER_MEMORY, m->peer_mems[i].ctx);
		check_stack(r, CI_SEC_PEER_MEMORY, &m->peer_mems[i].stack);
	}
	for (size_t i = 0; i < m->python_count; i++) {
		check_string(r, CI_SEC_PYTHON, &m->python[i].why_str);
		if (m->python[i].layout_size > sizeof m->python[i].layout) {
			m->python[i].layout_size = 0;
			d->bad_refs[CI_SEC_PYTHON]++;
		}
	}
	for (size_t i = 0; i < m->py_code_count; i++) {
		check_string(r, CI_SEC_PY_CODES, &m->py_codes[i].qualname_str);
		check_string(r, CI_SEC_PY_CODES, &m->py_codes[i].filename_str);
		check_string(r, CI_SEC_PY_CODES, &m->py_codes[i].linetable_str);
	}
	for (size_t i = 0; i < m->host_module_count; i++) {
		struct ci_host_module *h = &m->host_modules[i];
		check_string(r, CI_SEC_HOST_MODULES, &h->path_str);
		if (h->build_id_len > sizeof h->build_id) {
			h->build_id_len = 0;
			d->bad_refs[CI_SEC_HOST_MODULES]++;
		}
	}
	for (size_t i = 0; i < m->device_count; i++) {
		CI_TERMINATE(m->devices[i].name);
		CI_TERMINATE(m->devices[i].pci_bus_id);
	}
	for (size_t i = 0; i < m->context_count; i++) {
		struct ci_context *c = &m->contexts[i];
		CHECK_SLOT(r, CI_SEC_CONTEXTS, c->device, CI_SEC_DEVICES, m->devices, m->device_count);
		check_stack(r, CI_SEC_CONTEXTS, &c->create_stack);
	}
	for (size_t i = 0; i < m->stream_count; i++) {
		struct ci_stream *s = &m->streams[i];
		CHECK_CTX(CI_SEC_STREAMS, s->ctx);
		if (s->crumb_slot != CI_NONE && s->crumb_slot >= m->crumb_count) {
			s->crumb_slot = CI_NONE;
			d->bad_refs[CI_SEC_STREAMS]++;
		}
		check_stack(r, CI_SEC_STREAMS, &s->create_stack);
	}
	for (size_t i = 0; i < m->code_module_count; i++) {
		struct ci_code_module *c = &m->code_modules[i];
		CHECK_CTX(CI_SEC_CODE_MODULES, c->ctx);
		check_string(r, CI_SEC_CODE_MODULES, &c->source_str);
		check_stack(r, CI_SEC_CODE_MODULES, &c->load_stack);
	}
	for (size_t i = 0; i < m->function_count; i++) {
		struct ci_function *f = &m->functions[i];
		CHECK_SLOT(r, CI_SEC_FUNCTIONS, f->code_module, CI_SEC_CODE_MODULES, m->code_modules, m->code_module_count);
		check_string(r, CI_SEC_FUNCTIONS, &f->name_str);
		if (f->nparams > CI_PARAMS_MAX && f->params_known) {
			f->params_known = 0; /* the layout cannot describe more than CI_PARAMS_MAX */
			d->bad_refs[CI_SEC_FUNCTIONS]++;
		}
		f->params_known = f->params_known ? 1 : 0;
	}
	for (size_t i = 0; i < m->thread_count; i++)
		CI_TERMINATE(m->threads[i].name);
	for (size_t i = 0; i < m->graph_count; i++) {
		struct ci_graph *g = &m->graphs[i];
		CHECK_CTX(CI_SEC_GRAPHS, g->ctx);
		CHECK_STREAM(CI_SEC_GRAPHS, g->stream);
		check_stack(r, CI_SEC_GRAPHS, &g->stack);
		check_stack(r, CI_SEC_GRAPHS, &g->end_stack);
		if (g->crumb_slot != CI_NONE && g->crumb_slot >= m->crumb_count) {
			g->crumb_slot = CI_NONE;
			d->bad_refs[CI_SEC_GRAPHS]++;
		}
	}
	for (size_t i = 0; i < m->graph_exec_count; i++) {
		struct ci_graph_exec *x = &m->graph_execs[i];
		CHECK_SLOT(r, CI_SEC_GRAPH_EXECS, x->graph, CI_SEC_GRAPHS, m->graphs, m->graph_count);
		check_stack(r, CI_SEC_GRAPH_EXECS, &x->stack);
	}
	for (size_t i = 0; i < m->graph_node_count; i++) {
		struct ci_graph_node *n = &m->graph_nodes[i];
		if (!n->seq)
			continue;
		CHECK_SLOT(r, CI_SEC_GRAPH_NODES, n->graph, CI_SEC_GRAPHS, m->graphs, m->graph_count);
		CHECK_SLOT(r, CI_SEC_GRAPH_NODES, n->exec, CI_SEC_GRAPH_EXECS, m->graph_execs, m->graph_exec_count);
		CHECK_SLOT(r, CI_SEC_GRAPH_NODES, n->function, CI_SEC_FUNCTIONS, m->functions, m->function_count);
		CHECK_STREAM(CI_SEC_GRAPH_NODES, n->stream);
		check_stack(r, CI_SEC_GRAPH_NODES, &n->stack);
		if (n->param_len > CI_LAUNCH_PARAM_BYTES) {
			n->param_len = CI_LAUNCH_PARAM_BYTES;
			d->bad_refs[CI_SEC_GRAPH_NODES]++;
		}
	}
}

/* One entry of a ring or of the allocation table, checked as it is copied into the model (the
 * tables are checked by then). */
void ci_check_entry(struct refcheck *r, uint32_t kind, void *entry)
{
	const struct ci_model *m = r->m;
	switch (kind) {
	case CI_SEC_LAUNCHES: {
		struct ci_launch *l = entry;
		CHECK_SLOT(r, CI_SEC_LAUNCHES, l->function, CI_SEC_FUNCTIONS, m->functions, m->function_count);
		CHECK_STREAM(CI_SEC_LAUNCHES, l->stream);
		CHECK_CTX(CI_SEC_LAUNCHES, l->ctx);
		check_stack(r, CI_SEC_LAUNCHES, &l->stack);
		if (l->api == CI_LAUNCH_GRAPH && ci_model_graph_launches_in_launches(m)) /* padding before */
			CHECK_SLOT(r, CI_SEC_LAUNCHES, l->exec, CI_SEC_GRAPH_EXECS, m->graph_execs,
				   m->graph_exec_count);
		if (l->param_len > CI_LAUNCH_PARAM_BYTES) {
			l->param_len = CI_LAUNCH_PARAM_BYTES;
			bad_field(r, CI_SEC_LAUNCHES);
		}
		break;
	}
	case CI_SEC_ALLOCS:
	case CI_SEC_FREES: {
		struct ci_alloc *a = entry;
		CHECK_CTX(kind, a->ctx);
		CHECK_STREAM(kind, a->stream);
		CHECK_STREAM(kind, a->free_stream);
		check_stack(r, kind, &a->stack);
		check_stack(r, kind, &a->free_stack);
		break;
	}
	case CI_SEC_ERRORS: {
		struct ci_api_error *e = entry;
		CHECK_CTX(CI_SEC_ERRORS, e->ctx);
		CHECK_STREAM(CI_SEC_ERRORS, e->stream);
		check_stack(r, CI_SEC_ERRORS, &e->stack);
		CI_TERMINATE(e->api);
		CI_TERMINATE(e->args);
		break;
	}
	case CI_SEC_EVENTS: {
		struct ci_event *e = entry;
		CHECK_CTX(CI_SEC_EVENTS, e->ctx);
		CHECK_STREAM(CI_SEC_EVENTS, e->stream);
		check_stack(r, CI_SEC_EVENTS, &e->stack);
		break;
	}
	case CI_SEC_GRAPH_LAUNCHES: {
		struct ci_graph_launch *g = entry;
		CHECK_SLOT(r, CI_SEC_GRAPH_LAUNCHES, g->exec, CI_SEC_GRAPH_EXECS, m->graph_execs, m->graph_exec_count);
		CHECK_STREAM(CI_SEC_GRAPH_LAUNCHES, g->stream);
		break;
	}
	case CI_SEC_NCCL_CALLS: {
		struct ci_nccl_call *c = entry;
		CHECK_SLOT(r, CI_SEC_NCCL_CALLS, c->comm, CI_SEC_NCCL_COMMS, m->nccl_comms, m->nccl_comm_count);
		CHECK_STREAM(CI_SEC_NCCL_CALLS, c->stream);
		CHECK_CTX(CI_SEC_NCCL_CALLS, c->ctx);
		check_stack(r, CI_SEC_NCCL_CALLS, &c->stack);
		break;
	}
	}
}

/* One warning per section whose references had to be cleared. */
void ci_report_references(struct decoder *d)
{
	struct ci_model *m = d->m;
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++) {
		const char *what = k ? ci_section_title(k) : "header";
		if (d->bad_refs[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s to entries, strings or stacks that do not exist %s "
					"cleared (the record is damaged)", what, (unsigned long long)d->bad_refs[k],
					d->bad_refs[k] == 1 ? "" : "s", d->bad_refs[k] == 1 ? "was" : "were");
		if (d->unresolved[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s into parts of the record that the input lacks %s "
					"cleared", what, (unsigned long long)d->unresolved[k],
					d->unresolved[k] == 1 ? "" : "s", d->unresolved[k] == 1 ? "was" : "were");
		if (d->late[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s to entries the running process published while "
					"the record was read %s cleared (read again for them)", what,
					(unsigned long long)d->late[k], d->late[k] == 1 ? "" : "s",
					d->late[k] == 1 ? "was" : "were");
	}
}
#undef M
