/* SPDX-License-Identifier: MIT */
/*
 * A sparse decode (ci_decode_options.sparse: the launch ring read from its head back as far as
 * the diagnosis needs, the allocation table looked up where it lies) must diagnose exactly what
 * a complete decode of the same input diagnoses.  For every core or record named on the command
 * line this decodes both ways and compares the diagnosis field by field (verdict, faulting and
 * failed launch by ring seq, confidence, reasoning, per-stream progress, every attribution with
 * its allocation, tests/reader/compare.h) and every view that the CLI renders from a sparse
 * model (all but kernels, allocs and all), character by character, each made by the report
 * session from either model.  It also checks that the sparse decode read less than the whole
 * ring when the ring is large.  `--kernel-log=FILE` before paths adds that log to their reports.
 * TAP on
 * stdout; run by tests/reader/golden.t and tests/reader/full.t on real cores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "compare.h"

/* The report of PATH for VIEW, from a sparse or a complete decode, as the report session makes
 * it from a model (the CLI makes a sparse one for these views). */
/* --kernel-log=FILE before the paths: their reports read that kernel log too. */
static const char *kernel_log;

static struct ci_report *report_of(const char *path, bool sparse, enum ci_view view)
{
	struct ci_source *src = NULL;
	struct ci_model *m = NULL;
	struct ci_report *r = NULL;
	struct ci_location loc;
	struct ci_decode_options o = { .lazy = sparse, .sparse = sparse };
	struct ci_request req = { .render = { .view = view, .width = 100, .quiet = true },
				  .kernel_log = kernel_log };
	struct ci_error *err;
	if ((err = ci_source_open(path, NULL, &src)) || (err = ci_locate(src, &loc)) ||
	    (err = ci_decode_with(src, &loc, &o, &m)) ||
	    (err = ci_report_from_model(src, m, &req, &r))) {
		printf("# %s (%s): %s\n", path, sparse ? "sparse" : "complete", err->message);
		ci_error_destroy(err);
	}
	ci_source_close(src);
	return r;
}

static char *render(const struct ci_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ci_error *err = ci_report_print(f, r);
	if (err) {
		printf("# render: %s\n", err->message);
		ci_error_destroy(err);
	}
	fclose(f);
	return text;
}

static void compare(const char *path)
{
	for (size_t v = 0; v < ci_view_count(); v++) {
		const struct ci_view_info *vi = ci_view_at(v);
		/* The views that show everything need every launch: no sparse decode there. */
		if (vi->view == CI_VIEW_KERNELS || vi->view == CI_VIEW_ALLOCS || vi->view == CI_VIEW_ALL)
			continue;
		struct ci_report *c = report_of(path, false, vi->view);
		struct ci_report *s = report_of(path, true, vi->view);
		if (!ok(c && s, "%s: %s: both decodes made a report", path, vi->name)) {
			ci_report_destroy(c);
			ci_report_destroy(s);
			continue;
		}
		char why[512];
		if (v == 0 && !ok(cmp_diagnoses(ci_report_model(c), ci_report_diagnosis(c),
						ci_report_model(s), ci_report_diagnosis(s), why,
						sizeof why),
				  "%s: the sparse decode diagnoses what the complete one does", path))
			printf("# complete, sparse: %s\n", why);
		char *x = render(c), *y = render(s);
		if (!ok(x && y && strcmp(x, y) == 0, "%s: the %s view renders the same", path, vi->name))
			printf("# complete:\n%s\n# sparse:\n%s\n", x ? x : "", y ? y : "");
		free(x);
		free(y);
		if (v == 0) {
			/* A large ring is read from its head back, not whole. */
			const struct ci_model *cm = ci_report_model(c), *sm = ci_report_model(s);
			const struct ci_section_stats *ls = &sm->sections[CI_SEC_LAUNCHES];
			if (cm->launch_count > 4096)
				ok(ls->unread > ls->capacity / 2 && sm->launch_count < cm->launch_count / 2,
				   "%s: the sparse decode read %llu of %zu launches", path,
				   (unsigned long long)(cm->launch_count - ls->unread), cm->launch_count);
		}
		ci_report_destroy(c);
		ci_report_destroy(s);
	}
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--kernel-log=", 13) == 0)
			kernel_log = argv[i] + 13;
		else
			compare(argv[i]);
	}
	printf("1..%d\n", tap_n);
	return done_testing();
}
