/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the reader's output side: a record (as a snapshot or GDB would hand it
 * over) is decoded completely and sparsely (the launch ring read from its head back, the
 * allocation table looked up in place), diagnosed, and rendered as the summary, every view and
 * JSON (and lazily, as the full JSON document streams it), narrow and wide, so that whatever a hostile record makes of the diagnosis (windows,
 * synchronization bounds, attributions, capped confidences) and of the wrapping shows up as a
 * sanitizer report here; and the sparse diagnosis must be the complete one (compare.h), or the
 * harness aborts.  The input as a kernel name goes through the parameter-type reader too
 * (ci_param_element) and the summary's brief names (ci_kernel_brief_name): names come from
 * the record.  Built with the input side's harnesses
 * (bench/reader/build.mk).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "compare.h"
#include "report/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every view, JSON and the timeline of a report made for JSON (which prepares everything). */
static void render_all(const struct ci_report *r, FILE *sink)
{
	static const struct ci_render_options opts[] = {
		{ .view = CI_VIEW_SUMMARY, .width = 40, .hints = CI_HINTS_GDB },
		{ .view = CI_VIEW_SUMMARY, .width = 80 },
		{ .view = CI_VIEW_ALL, .width = 100, .freed = true },
		{ .view = CI_VIEW_KERNELS, .width = 60, .has_stream_filter = true, .stream_filter = 0,
		  .last = 5 },
		{ .view = CI_VIEW_NCCL, .width = 80, .last = 3 },
	};
	struct ci_error *err;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if ((err = ci_render_text(sink, r, &opts[i])))
			ci_error_destroy(err);
	if ((err = ci_render_json(sink, r, NULL)))
		ci_error_destroy(err);
	/* The timeline, as --trace and --timeline draw it. */
	if ((err = ci_render_trace(sink, r)))
		ci_error_destroy(err);
	if ((err = ci_render_timeline_svg(sink, r)))
		ci_error_destroy(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return 0;
	if (size < 4096) {
		char name[4096], type[24];
		memcpy(name, data, size);
		name[size] = '\0';
		for (uint32_t i = 0; i < 4; i++)
			if (ci_param_element(name, i, type, sizeof type) && !type[0])
				abort(); /* a size always comes with its type */
		/* The summary's brief names: within the width and the buffer, whatever the name. */
		static const size_t widths[] = { 0, 1, 3, 20, 80 };
		for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
			char brief[64];
			ci_kernel_brief_name(name, widths[w], brief, sizeof brief);
			if (strlen(brief) >= sizeof brief || (widths[w] && ci_text_width(brief) > widths[w]))
				abort();
			while (ci_kernel_brief_unqualify(brief))
				;
		}
	}
	struct ci_report *reports[2] = { NULL, NULL };
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
		struct ci_request req = { .json = true, .no_symbols = true };
		if ((err = ci_locate(src, &loc)) || (err = ci_decode_with(src, &loc, &o, &m)) ||
		    (err = ci_report_from_model(src, m, &req, &reports[sparse])))
			ci_error_destroy(err);
		else
			render_all(reports[sparse], sink);
		ci_source_close(src);
	}
	/* The sparse decode must diagnose what the complete one does, whatever the record. */
	char why[512];
	if (reports[0] && reports[1] &&
	    !cmp_diagnoses(ci_report_model(reports[0]), ci_report_diagnosis(reports[0]),
			   ci_report_model(reports[1]), ci_report_diagnosis(reports[1]), why,
			   sizeof why)) {
		fprintf(stderr, "fuzz_report: the sparse diagnosis differs from the complete one: %s\n",
			why);
		abort();
	}
	ci_report_destroy(reports[0]);
	ci_report_destroy(reports[1]);
	/* The full JSON document as --json=full makes it: a lazy model whose launches are read
	 * into scratch copies, and allocations a sweep of the table at a time into a window
	 * (ci_alloc_walk), while the document is written. */
	struct ci_source *src;
	struct ci_location loc;
	struct ci_model *m;
	struct ci_report *full = NULL;
	struct ci_error *err = ci_source_from_buffer(data, size, 0, &src);
	if (err) {
		ci_error_destroy(err);
		return 0;
	}
	struct ci_decode_options lazy = { .lazy = true };
	struct ci_request req = { .json = true, .json_full = true, .no_symbols = true };
	if ((err = ci_locate(src, &loc)) || (err = ci_decode_with(src, &loc, &lazy, &m)) ||
	    (err = ci_report_from_model(src, m, &req, &full)) || (err = ci_render_json(sink, full, NULL)))
		ci_error_destroy(err);
	ci_report_destroy(full);
	ci_source_close(src);
	return 0;
}
