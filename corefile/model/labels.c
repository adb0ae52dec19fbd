/* SPDX-License-Identifier: MIT */
/*
 * How the model's things are named in reports, by the diagnosis's wording and the renderers
 * alike: kernels (demangled), streams and threads, scrubbed (the record is untrusted input).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

char *ci_launch_kernel_name(const struct ci_model *model, const struct ci_launch *l, char *buf,
			    size_t n)
{
	const char *raw = NULL;
	if (l->function != CI_NONE && l->function < model->function_count &&
	    model->functions[l->function].seq != 0)
		raw = ci_model_function_name(model, l->function);
	if (l->api == CI_LAUNCH_HOST_FUNC && (!raw || !*raw)) {
		snprintf(buf, n, "<host function 0x%" PRIx64 ">", l->aux);
		return buf;
	}
	if (l->api == CI_LAUNCH_GRAPH && (!raw || !*raw)) {
		snprintf(buf, n, "<graph 0x%" PRIx64 ">", l->aux);
		return buf;
	}
	if (!raw || !*raw) {
		snprintf(buf, n, "<unknown function 0x%" PRIx64 ">", l->function_handle);
		return buf;
	}
	char *dem = ci_demangle(raw);
	if (ci_scrub_cut(dem ? dem : raw, buf, n)) /* a name longer than BUF says so */
		ci_text_mark_cut(buf, n);
	free(dem);
	return buf;
}

bool ci_launch_filter_matches(const struct ci_model *m, const struct ci_launch_filter *f,
			      const struct ci_launch *l)
{
	if (f->has_thread && l->tid != f->thread)
		return false;
	if (f->has_stream) {
		if (!ci_stream_valid(m, l->stream))
			return false;
		const struct ci_stream *st = &m->streams[l->stream];
		if (st->handle != f->stream && st->stream_id != f->stream)
			return false;
	}
	if (f->kernel && *f->kernel) {
		char name[1024];
		const char *raw = ci_model_function_name(m, l->function);
		if (!strstr(ci_launch_kernel_name(m, l, name, sizeof(name)), f->kernel) &&
		    !(raw && strstr(raw, f->kernel)))
			return false;
	}
	return true;
}

char *ci_stream_label(const struct ci_model *model, uint32_t slot, char *buf, size_t n)
{
	if (!ci_stream_valid(model, slot)) {
		snprintf(buf, n, "an unknown stream");
		return buf;
	}
	const struct ci_stream *st = &model->streams[slot];
	switch (st->kind) {
	case CI_STREAM_LEGACY:
		snprintf(buf, n, "the legacy default stream");
		break;
	case CI_STREAM_PER_THREAD:
		snprintf(buf, n, "the per-thread default stream of thread %" PRIu32, st->owner_tid);
		break;
	default:
		snprintf(buf, n, "stream 0x%" PRIx64, st->handle);
		break;
	}
	return buf;
}

char *ci_thread_name(const struct ci_model *model, uint32_t tid, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < model->thread_count; i++)
		if (model->threads[i].seq != 0 && model->threads[i].tid == tid)
			return ci_scrub_field(model->threads[i].name, sizeof(model->threads[i].name),
					      buf, n);
	return buf;
}
