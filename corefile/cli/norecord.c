/* SPDX-License-Identifier: MIT */
/*
 * A core without a flight record: before the reader's "no flight record" message (exit code 4
 * keeps its meaning, docs/CLI.md), what the core's host side shows (corefile/hostside.c): the
 * crash, the threads in CUDA libraries, the abort message or C++ exception, the CUDA libraries
 * and driver, and the `cudainspect record -- ...` command for next time; as JSON with --json.
 */
#include <stdio.h>

#include "cli.h"

void cli_no_record_report(const struct cli_inspect_args *a, const struct ci_error *why,
			  const struct ci_evidence *klog)
{
	if (a->have_pid || !a->input)
		return;
	struct ci_source *src = NULL;
	struct ci_hostside *h = NULL;
	struct ci_source_options so = { .max_core_size = a->max_core_size,
					 .name = a->source_name };
	struct ci_error *err = ci_source_open(a->input, &so, &src);
	if (!err)
		err = ci_hostside_create(src, a->sym, &h);
	if (!err) {
		ci_hostside_render(stdout, h, a->json, why->message, a->render ? a->render->width : 0,
				   klog);
		fflush(stdout);
	}
	ci_error_destroy(err); /* a record file, or an unreadable core: the reader's message says it */
	ci_hostside_destroy(h);
	ci_source_close(src);
}
