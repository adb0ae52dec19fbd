/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the reader's output side: a record (as a snapshot or GDB would hand it
 * over) is decoded completely and sparsely (the launch ring read from its head back, the
 * allocation table looked up in place), diagnosed, and rendered as the summary, every view and
 * JSON, narrow and wide, so that whatever a hostile record makes of the diagnosis (windows,
 * synchronization bounds, attributions, capped confidences) and of the wrapping shows up as a
 * sanitizer report here.  Built with the input side's harnesses (bench/reader/build.mk).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cudainspect/cudainspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void report(struct ci_source *src, const struct ci_model *m, FILE *sink)
{
	struct ci_diagnosis *d;
	struct ci_error *err = ci_diagnose(m, ci_source_info(src), &d);
	if (err) {
		ci_error_destroy(err);
		return;
	}
	const struct ci_warnings *lists[2] = { ci_source_warnings(src), &m->warnings };
	struct ci_report r = { .source = ci_source_info(src), .model = m, .diagnosis = d,
			       .warnings = lists, .warning_lists = 2 };
	static const struct ci_render_options opts[] = {
		{ .view = CI_VIEW_SUMMARY, .width = 40, .hints = CI_HINTS_GDB },
		{ .view = CI_VIEW_SUMMARY, .width = 80 },
		{ .view = CI_VIEW_ALL, .width = 100, .freed = true },
		{ .view = CI_VIEW_KERNELS, .width = 60, .has_stream_filter = true, .stream_filter = 0,
		  .last = 5 },
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if ((err = ci_render_text(sink, &r, &opts[i])))
			ci_error_destroy(err);
	if ((err = ci_render_json(sink, &r, NULL)))
		ci_error_destroy(err);
	ci_diagnosis_destroy(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	for (int sparse = 0; sparse < 2; sparse++) {
		struct ci_source *src;
		struct ci_location loc;
		struct ci_model *m;
		struct ci_error *err = ci_source_from_buffer(data, size, 0, &src);
		if (err) {
			ci_error_destroy(err);
			return 0;
		}
		struct ci_decode_options o = { .lazy = sparse, .sparse = sparse };
		if ((err = ci_locate(src, &loc)) || (err = ci_decode_with(src, &loc, &o, &m))) {
			ci_error_destroy(err);
		} else {
			report(src, m, sink);
			ci_model_destroy(m);
		}
		ci_source_close(src);
	}
	return 0;
}
