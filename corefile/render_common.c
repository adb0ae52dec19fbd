/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the text and JSON renderers and the diagnosis: labels for kernels, streams
 * and threads (scrubbed: the record is untrusted input), signal names, the record's end time.
 * The text helpers of every stage (scrubbing, quoting, numbers) are in text.c.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-internal.h"
#include "render-internal.h"

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
	ci_scrub(dem ? dem : raw, buf, n);
	free(dem);
	return buf;
}

char *ci_kernel_short_name(const char *name, char *buf, size_t n)
{
	int depth = 0;
	size_t i = 0;
	for (; name[i] && i + 1 < n; i++) {
		if (name[i] == '<')
			depth++;
		else if (name[i] == '>' && depth > 0)
			depth--;
		else if (name[i] == '(' && depth == 0 && i > 0)
			break;
		buf[i] = name[i];
	}
	buf[i] = '\0';
	return buf;
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

const char *ci_signal_name(int sig, char *buf, size_t n)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}

uint64_t ci_model_end_ns(const struct ci_model *model)
{
	if (model->header.end_monotonic_ns)
		return model->header.end_monotonic_ns;
	uint64_t t = model->header.snapshot_monotonic_ns;
	struct ci_launch_brief last;
	if (model->launch_count) {
		ci_model_launch_brief(model, model->launch_count - 1, &last);
		if (last.time_ns > t)
			t = last.time_ns;
	}
	if (model->error_count && model->errors[model->error_count - 1].time_ns > t)
		t = model->errors[model->error_count - 1].time_ns;
	if (model->event_count && model->events[model->event_count - 1].time_ns > t)
		t = model->events[model->event_count - 1].time_ns;
	if (model->free_count && model->frees[model->free_count - 1].free_ns > t)
		t = model->frees[model->free_count - 1].free_ns;
	return t;
}

