/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: build a decoded record (struct ci_model) by hand, entry by entry, so that the
 * diagnosis and the renderers can be checked against expectations written down in the tests
 * themselves, independently of any recorder.  Arrays are malloc'd one by one, exactly as the
 * decoder owns them, so ci_model_destroy() frees a model built here.
 */
#ifndef CI_TEST_MODEL_H
#define CI_TEST_MODEL_H

#include <stdlib.h>
#include <string.h>

#include "cudainspect/cudainspect.h"

#define MB_GROW(arr, count)                                                                \
	do {                                                                               \
		(arr) = realloc((arr), ((count) + 1) * sizeof(*(arr)));                    \
		if (!(arr))                                                                \
			abort();                                                           \
		memset(&(arr)[(count)], 0, sizeof(*(arr)));                                \
	} while (0)

/* Monotonic clock origin of built records: launches at T0 + n ms are easy to read. */
#define MB_T0 1000000000ull
#define MB_MS 1000000ull

static inline uint32_t mb_str(struct ci_model *m, const char *s)
{
	if (!m->strings) {
		m->strings = calloc(1, 1);
		m->strings_size = 1;
	}
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)m->strings_size;
	m->strings = realloc(m->strings, m->strings_size + n);
	if (!m->strings)
		abort();
	memcpy(m->strings + off, s, n);
	m->strings_size += n;
	return off;
}

static inline struct ci_model *mb_new(void)
{
	struct ci_model *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	memcpy(m->header.magic, CI_RECORD_MAGIC, 8);
	m->header.major = CI_FORMAT_MAJOR;
	m->header.pid = 4242;
	m->header.start_monotonic_ns = MB_T0;
	m->header.crumb_width = 8;
	m->header.crumb_every_launches = 1;
	m->header.stack_mode = CI_STACKS_FAST;
	m->header.stack_depth = 16;
	strcpy(m->header.host, "testhost");
	strcpy(m->header.recorder_version, CUDAINSPECT_VERSION);
	m->header.exe_str = mb_str(m, "/opt/engine/bin/engine");
	m->header.cmdline_str = mb_str(m, "/opt/engine/bin/engine --model tiny");
	m->location.method = CI_LOCATE_BUFFER;
	static const int rings[] = { CI_SEC_LAUNCHES, CI_SEC_ALLOCS, CI_SEC_FREES, CI_SEC_ERRORS };
	for (size_t i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		m->sections[rings[i]].kind = (uint32_t)rings[i];
		m->sections[rings[i]].present = true;
		m->sections[rings[i]].capacity = 4096;
	}
	return m;
}

static inline void mb_device(struct ci_model *m, const char *name)
{
	MB_GROW(m->devices, m->device_count);
	struct ci_device *d = &m->devices[m->device_count];
	d->seq = m->device_count + 1;
	d->ordinal = (int32_t)m->device_count;
	d->cc_major = 9;
	d->sm_count = 132;
	d->total_mem = 141ull << 30;
	snprintf(d->name, sizeof(d->name), "%s", name);
	m->device_count++;
	MB_GROW(m->contexts, m->context_count);
	struct ci_context *c = &m->contexts[m->context_count];
	c->seq = m->context_count + 1;
	c->handle = 0x5000 + m->context_count;
	c->kind = CI_CTX_PRIMARY;
	c->device = (uint32_t)m->device_count - 1;
	m->context_count++;
}

static inline uint32_t mb_thread(struct ci_model *m, uint32_t tid, const char *name)
{
	MB_GROW(m->threads, m->thread_count);
	struct ci_thread *t = &m->threads[m->thread_count];
	t->seq = m->thread_count + 1;
	t->tid = tid;
	snprintf(t->name, sizeof(t->name), "%s", name);
	return (uint32_t)m->thread_count++;
}

/* A stream with its own breadcrumb slot (CRUMB true) or none; returns the slot. */
static inline uint32_t mb_stream(struct ci_model *m, uint64_t handle, bool crumb,
				 uint64_t crumb_value, uint64_t launched)
{
	MB_GROW(m->streams, m->stream_count);
	struct ci_stream *s = &m->streams[m->stream_count];
	s->seq = m->stream_count + 1;
	s->handle = handle;
	s->kind = CI_STREAM_CREATED;
	s->launches = launched;
	s->crumb_slot = CI_NONE;
	if (crumb) {
		MB_GROW(m->crumbs, m->crumb_count);
		m->crumbs[m->crumb_count] = crumb_value;
		s->crumb_slot = (uint32_t)m->crumb_count++;
		s->crumb_enqueued = launched;
	} else {
		s->crumb_status = CI_CRUMB_UNSUPPORTED;
	}
	return (uint32_t)m->stream_count++;
}

/* A function with NPARAMS parameters of the given sizes, naturally aligned. */
static inline uint32_t mb_function(struct ci_model *m, const char *name, uint32_t nparams,
				   const uint16_t *sizes)
{
	MB_GROW(m->functions, m->function_count);
	struct ci_function *f = &m->functions[m->function_count];
	f->seq = m->function_count + 1;
	f->handle = 0xf000 + m->function_count;
	f->kind = CI_FUNC_FUNCTION;
	f->code_module = CI_NONE;
	f->name_str = mb_str(m, name);
	f->nparams = nparams;
	f->params_known = sizes != NULL;
	uint16_t off = 0;
	for (uint32_t i = 0; sizes && i < nparams && i < CI_PARAMS_MAX; i++) {
		uint16_t a = sizes[i] >= 8 ? 8 : sizes[i];
		off = (uint16_t)((off + a - 1) / a * a);
		f->param_offset[i] = off;
		f->param_size[i] = sizes[i];
		off = (uint16_t)(off + sizes[i]);
	}
	return (uint32_t)m->function_count++;
}

static inline uint32_t mb_stack(struct ci_model *m, size_t n, const uint64_t *pcs)
{
	MB_GROW(m->stacks, m->stack_count);
	struct ci_stack *s = &m->stacks[m->stack_count];
	s->seq = m->stack_count + 1;
	s->frames_offset = (uint32_t)m->frame_count;
	s->nframes = (uint32_t)n;
	m->frames = realloc(m->frames, (m->frame_count + n + 1) * sizeof(*m->frames));
	if (!m->frames)
		abort();
	memcpy(m->frames + m->frame_count, pcs, n * sizeof(*pcs));
	m->frame_count += n;
	return (uint32_t)++m->stack_count;
}

/* A launch at MB_T0 + MS milliseconds; PARAMS are written as 8-byte words unless the function
 * has a layout, in which case they fill the parameters in order. */
static inline size_t mb_launch(struct ci_model *m, uint32_t stream, uint64_t stream_seq,
			       uint32_t fn, uint64_t ms, uint16_t flags, uint32_t tid, size_t nparams,
			       const uint64_t *params)
{
	MB_GROW(m->launches, m->launch_count);
	struct ci_launch *l = &m->launches[m->launch_count];
	l->seq = m->launch_count + 1;
	l->time_ns = MB_T0 + ms * MB_MS;
	l->stream_seq = stream_seq;
	l->function = fn;
	l->function_handle = fn != CI_NONE ? m->functions[fn].handle : 0xdead;
	l->stream = stream;
	l->ctx = 0;
	l->tid = tid;
	l->grid[0] = 64, l->grid[1] = 1, l->grid[2] = 1;
	l->block[0] = 128, l->block[1] = 1, l->block[2] = 1;
	l->api = CI_LAUNCH_KERNEL;
	l->flags = flags;
	const struct ci_function *f = fn != CI_NONE ? &m->functions[fn] : NULL;
	size_t len = 0;
	for (size_t i = 0; i < nparams; i++) {
		size_t off = f && f->params_known ? f->param_offset[i] : i * 8;
		size_t sz = f && f->params_known ? f->param_size[i] : 8;
		for (size_t b = 0; b < sz && b < 8 && off + b < CI_LAUNCH_PARAM_BYTES; b++)
			l->params[off + b] = (uint8_t)(params[i] >> (8 * b));
		if (off + sz > len)
			len = off + sz;
	}
	l->param_len = (uint16_t)len;
	m->sections[CI_SEC_LAUNCHES].accepted++;
	return m->launch_count++;
}

static inline struct ci_alloc *mb_alloc(struct ci_model *m, uint64_t id, uint64_t address,
					uint64_t size, uint32_t tid)
{
	MB_GROW(m->allocs, m->alloc_count);
	struct ci_alloc *a = &m->allocs[m->alloc_count++];
	a->seq = id;
	a->id = id;
	a->address = address;
	a->size = size;
	a->kind = CI_ALLOC_DEVICE;
	a->state = CI_ALLOC_LIVE;
	a->tid = tid;
	a->time_ns = MB_T0 + id * MB_MS;
	a->stream = CI_NONE;
	a->free_stream = CI_NONE;
	return a;
}

static inline struct ci_alloc *mb_free(struct ci_model *m, uint64_t id, uint64_t address,
				       uint64_t size, uint64_t free_ms, uint32_t free_tid)
{
	MB_GROW(m->frees, m->free_count);
	struct ci_alloc *a = &m->frees[m->free_count++];
	a->seq = m->free_count;
	a->id = id;
	a->address = address;
	a->size = size;
	a->kind = CI_ALLOC_DEVICE;
	a->state = CI_ALLOC_FREED;
	a->time_ns = MB_T0 + id * MB_MS;
	a->free_ns = MB_T0 + free_ms * MB_MS;
	a->free_tid = free_tid;
	a->stream = CI_NONE;
	a->free_stream = CI_NONE;
	return a;
}

static inline size_t mb_error(struct ci_model *m, uint64_t ms, int32_t result, uint32_t tid,
			      const char *api, uint32_t flags)
{
	MB_GROW(m->errors, m->error_count);
	struct ci_api_error *e = &m->errors[m->error_count];
	e->seq = m->error_count + 1;
	e->time_ns = MB_T0 + ms * MB_MS;
	e->result = result;
	e->tid = tid;
	e->ctx = 0;
	e->stream = CI_NONE;
	e->flags = flags;
	snprintf(e->api, sizeof(e->api), "%s", api);
	return m->error_count++;
}

/* An event (synchronization, event record...) at MB_T0 + MS milliseconds. */
static inline size_t mb_event(struct ci_model *m, uint64_t ms, uint32_t kind, uint64_t a,
			      uint32_t stream, uint32_t ctx, int32_t result)
{
	MB_GROW(m->events, m->event_count);
	struct ci_event *e = &m->events[m->event_count];
	e->seq = m->event_count + 1;
	e->time_ns = MB_T0 + ms * MB_MS;
	e->kind = kind;
	e->a = a;
	e->stream = stream;
	e->ctx = ctx;
	e->result = result;
	return m->event_count++;
}

/* A graph of ORIGIN with NODES ordinals; CRUMB: an in-graph breadcrumb slot holding CRUMB_VALUE. */
static inline uint32_t mb_graph(struct ci_model *m, uint64_t handle, uint32_t origin, uint32_t nodes,
				bool crumb, uint64_t crumb_value)
{
	MB_GROW(m->graphs, m->graph_count);
	struct ci_graph *g = &m->graphs[m->graph_count];
	g->seq = m->graph_count + 1;
	g->handle = handle;
	g->origin = origin;
	g->create_ns = MB_T0;
	g->nodes = nodes;
	g->ctx = 0;
	g->stream = CI_NONE;
	g->crumb_slot = CI_NONE;
	if (crumb) {
		MB_GROW(m->crumbs, m->crumb_count);
		m->crumbs[m->crumb_count] = crumb_value;
		g->crumb_slot = (uint32_t)m->crumb_count++;
	}
	m->sections[CI_SEC_GRAPHS].present = true;
	return (uint32_t)m->graph_count++;
}

/* A node version of GRAPH (the graph's own) added at MB_T0 + MS: a kernel of FN, else A is its
 * destination, event or embedded child graph. */
static inline struct ci_graph_node *mb_graph_node(struct ci_model *m, uint32_t graph, uint32_t ordinal,
						  uint32_t type, uint32_t fn, uint64_t a, uint32_t stream,
						  uint64_t ms)
{
	MB_GROW(m->graph_nodes, m->graph_node_count);
	struct ci_graph_node *e = &m->graph_nodes[m->graph_node_count];
	e->seq = m->graph_node_count + 1;
	e->time_ns = MB_T0 + ms * MB_MS;
	e->handle = 0x9000 + m->graph_node_count;
	e->graph = graph;
	e->exec = CI_NONE;
	e->ordinal = ordinal;
	e->type = type;
	e->function = type == CI_NODE_KERNEL ? fn : CI_NONE;
	e->function_handle = type == CI_NODE_KERNEL && fn != CI_NONE ? m->functions[fn].handle : 0;
	e->a = a;
	e->stream = stream;
	e->grid[0] = 8, e->grid[1] = 1, e->grid[2] = 1;
	e->block[0] = 64, e->block[1] = 1, e->block[2] = 1;
	for (size_t i = 0; i < CI_NODE_DEPS; i++)
		e->deps[i] = CI_NONE;
	m->graph_node_count++;
	return e;
}

/* An executable graph of GRAPH, instantiated at MB_T0 + MS with the graph's ordinals then. */
static inline uint32_t mb_graph_exec(struct ci_model *m, uint64_t handle, uint32_t graph, uint64_t ms)
{
	MB_GROW(m->graph_execs, m->graph_exec_count);
	struct ci_graph_exec *x = &m->graph_execs[m->graph_exec_count];
	x->seq = m->graph_exec_count + 1;
	x->handle = handle;
	x->graph_handle = m->graphs[graph].handle;
	x->graph = graph;
	x->nodes = m->graphs[graph].nodes;
	x->instantiate_ns = MB_T0 + ms * MB_MS;
	return (uint32_t)m->graph_exec_count++;
}

/* Replay REPLAY of exec EXEC on STREAM at MB_T0 + MS: its launch (returned) and graph launch. */
static inline size_t mb_graph_launch(struct ci_model *m, uint32_t stream, uint64_t stream_seq, uint32_t exec,
				     uint64_t replay, uint64_t ms, uint16_t flags, uint32_t tid)
{
	size_t li = mb_launch(m, stream, stream_seq, CI_NONE, ms, flags, tid, 0, NULL);
	struct ci_launch *l = &m->launches[li];
	l->api = CI_LAUNCH_GRAPH;
	l->function_handle = 0;
	l->aux = m->graph_execs[exec].handle;
	memset(l->grid, 0, sizeof l->grid);
	memset(l->block, 0, sizeof l->block);
	l->exec = exec; /* format 1.5's launch entry (mb_format_15); the list below, before */
	l->replay = replay;
	MB_GROW(m->graph_launches, m->graph_launch_count);
	struct ci_graph_launch *g = &m->graph_launches[m->graph_launch_count];
	g->seq = m->graph_launch_count + 1;
	g->time_ns = l->time_ns;
	g->exec_handle = l->aux;
	g->replay = replay;
	g->launch_seq = l->seq;
	g->stream_seq = stream_seq;
	g->exec = exec;
	g->stream = stream;
	g->tid = tid;
	m->graph_execs[exec].launches = replay;
	m->graph_launch_count++;
	return li;
}

/* The model as a format 1.5 record gives it: no graph-launch entries, each graph launch's exec
 * and replay in its launch entry (mb_graph_launch wrote both). */
static inline void mb_format_15(struct ci_model *m)
{
	m->header.major = 1;
	m->header.minor = 5;
	free(m->graph_launches);
	m->graph_launches = NULL;
	m->graph_launch_count = 0;
}

static int mb_cmp_alloc(const void *a, const void *b)
{
	const struct ci_alloc *x = a, *y = b;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* Sort what the decoder sorts: live allocations by address. */
static inline void mb_finish(struct ci_model *m)
{
	if (m->alloc_count)
		qsort(m->allocs, m->alloc_count, sizeof(*m->allocs), mb_cmp_alloc);
}

#endif /* CI_TEST_MODEL_H */
