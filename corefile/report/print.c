/* SPDX-License-Identifier: MIT */
/*
 * Stage 7's front doors: print a report as its request says (ci_report_print), as text in one of
 * the views of the view table (ci_render_text: the row's ci_text_view_fn, render_text.c) or as the
 * JSON document (ci_render_json, render_json.c).
 */
#include <stdio.h>

#include "session.h"

struct ci_error *ci_render_text(FILE *f, const struct ci_report *report,
				const struct ci_render_options *opts)
{
	enum ci_view view = (opts ? opts : &report->request.render)->view;
	const struct ci_view_row *row = ci_view_row(view);
	if (!row)
		return ci_error_create(CI_ERR_USAGE, "unknown view %d", (int)view);
	return ci_text_print(f, report, opts, row->text);
}

struct ci_error *ci_report_print(FILE *out, const struct ci_report *r)
{
	return r->request.json ? ci_render_json(out, r, NULL) : ci_render_text(out, r, NULL);
}
