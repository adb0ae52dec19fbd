/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the record decoder: the input is a record as GDB's JIT interface or a
 * snapshot would hand it over (ci_decode_buffer), and every accessor the renderers use is then
 * exercised on the model, so that a reference the decoder failed to check shows up as a
 * sanitizer report here rather than in a renderer.
 */
#include <stddef.h>
#include <stdint.h>

#include "source/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void use_stack(const struct ci_model *m, uint32_t id)
{
	size_t n;
	const uint64_t *f = ci_model_stack(m, id, &n);
	for (size_t i = 0; i < n; i++)
		sink += f[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ci_model *m;
	struct ci_error *err = ci_decode_buffer(data, size, &m);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	sink += strlen(ci_model_string(m, m->header.exe_str)) + strlen(m->header.host);
	for (size_t i = 0; i < m->host_module_count; i++)
		sink += strlen(ci_model_string(m, m->host_modules[i].path_str)) + m->host_modules[i].build_id_len;
	for (size_t i = 0; i < m->device_count; i++)
		sink += strlen(m->devices[i].name) + strlen(m->devices[i].pci_bus_id);
	for (size_t i = 0; i < m->context_count; i++)
		use_stack(m, m->contexts[i].create_stack);
	for (size_t i = 0; i < m->stream_count; i++) {
		const struct ci_stream *s = &m->streams[i];
		if (s->crumb_slot != CI_NONE)
			sink += m->crumbs[s->crumb_slot];
		if (s->ctx != CI_NONE)
			sink += m->contexts[s->ctx].handle;
		sink += strlen(ci_stream_kind_name(s->kind)) + strlen(ci_crumb_status_name(s->crumb_status));
	}
	for (size_t i = 0; i < m->function_count; i++) {
		const char *name = ci_model_function_name(m, (uint32_t)i);
		sink += name ? strlen(name) : 0;
		if (m->functions[i].code_module != CI_NONE)
			sink += m->code_modules[m->functions[i].code_module].handle;
	}
	for (size_t i = 0; i < m->launch_count; i++) {
		const struct ci_launch *l = &m->launches[i];
		const char *name = ci_model_function_name(m, l->function);
		sink += name ? strlen(name) : 0;
		if (l->stream != CI_NONE)
			sink += m->streams[l->stream].handle;
		if (l->ctx != CI_NONE)
			sink += m->contexts[l->ctx].handle;
		for (size_t b = 0; b < l->param_len; b++)
			sink += l->params[b];
		use_stack(m, l->stack);
		sink += strlen(ci_launch_api_name(l->api)) + strlen(ci_cuda_result_name(l->result));
	}
	const struct ci_alloc *tables[2] = { m->allocs, m->frees };
	size_t counts[2] = { m->alloc_count, m->free_count };
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < counts[t]; i++) {
			const struct ci_alloc *a = &tables[t][i];
			use_stack(m, a->stack);
			use_stack(m, a->free_stack);
			if (a->stream != CI_NONE)
				sink += m->streams[a->stream].handle;
			if (a->free_stream != CI_NONE)
				sink += m->streams[a->free_stream].handle;
			sink += strlen(ci_alloc_kind_name(a->kind));
		}
	for (size_t i = 0; i < m->error_count; i++) {
		const struct ci_api_error *e = &m->errors[i];
		sink += strlen(e->api) + strlen(e->args) + strlen(ci_cuda_result_text(e->result));
		use_stack(m, e->stack);
		if (e->stream != CI_NONE)
			sink += m->streams[e->stream].handle;
	}
	for (size_t i = 0; i < m->event_count; i++) {
		use_stack(m, m->events[i].stack);
		sink += strlen(ci_event_kind_name(m->events[i].kind));
	}
	for (size_t i = 0; i < m->thread_count; i++)
		sink += strlen(m->threads[i].name);
	for (size_t i = 0; i < m->warnings.count; i++)
		sink += strlen(m->warnings.items[i]);
	ci_model_destroy(m);
	return 0;
}
