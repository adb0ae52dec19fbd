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
 * ring when the ring is large.  The kernels and allocs views are rendered from a lazy model
 * without the sparse decode (only the launches and allocations they show are loaded: what the
 * CLI makes for allocs, and for kernels where the sparse decode cannot be done) and compared with
 * the complete decode's, with and without N and filters; the kernels view also from a sparse
 * model read with its list (what the CLI makes for it), launch for launch; and the bounded JSON
 * document from the sparse model the CLI makes for it against a lazy model's, byte for byte.
 * `--kernel-log=FILE` before paths adds that log to their reports.
 * TAP on
 * stdout; run by tests/reader/golden.t and tests/reader/full.t on real cores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "compare.h"
#include "model/model.h"

/* The report of PATH for VIEW, from a sparse or a complete decode, as the report session makes
 * it from a model (the CLI makes a sparse one for these views). */
/* --kernel-log=FILE before the paths: their reports read that kernel log too. */
static const char *kernel_log;

/* The bounded JSON document instead of the view (report_with). */
static bool as_json;

static struct ci_report *report_with(const char *path, struct ci_decode_options o,
				      const struct ci_render_options *render)
{
	bool sparse = o.lazy;
	struct ci_source *src = NULL;
	struct ci_model *m = NULL;
	struct ci_report *r = NULL;
	struct ci_location loc;
	struct ci_request req = { .render = *render, .kernel_log = kernel_log, .json = as_json };
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

static struct ci_report *report_of(const char *path, bool sparse, enum ci_view view)
{
	struct ci_decode_options o = { .lazy = sparse, .sparse = sparse };
	struct ci_render_options render = { .view = view, .width = 100, .quiet = true };
	return report_with(path, o, &render);
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

/* The kernels and allocs views from a lazy model without the sparse decode, as the CLI makes
 * them, against the complete decode's, for the view's N and filters in OPT. */
static void compare_lazy(const char *path, const struct ci_render_options *opt, const char *what)
{
	struct ci_report *c = report_with(path, (struct ci_decode_options){ 0 }, opt);
	struct ci_report *l = report_with(path, (struct ci_decode_options){ .lazy = true }, opt);
	if (ok(c && l, "%s: %s: both decodes made a report", path, what)) {
		char *x = render(c), *y = render(l);
		if (!ok(x && y && strcmp(x, y) == 0, "%s: %s renders the same from the lazy model", path,
			what))
			printf("# complete:\n%s\n# lazy:\n%s\n", x ? x : "", y ? y : "");
		free(x);
		free(y);
		/* Only the launches shown (and those the diagnosis names) were loaded. */
		const struct ci_model *lm = ci_report_model(l);
		size_t loaded = 0;
		for (size_t i = 0; lm && i < lm->launch_count; i++)
			loaded += ci_model_launch_loaded(lm, i) != NULL;
		if (opt->view == CI_VIEW_KERNELS && lm->launch_count > 4096)
			ok(loaded < lm->launch_count / 8, "%s: %s loaded %zu of %zu launches", path, what,
			   loaded, lm->launch_count);
	}
	ci_report_destroy(c);
	ci_report_destroy(l);
	if (opt->view != CI_VIEW_ALLOCS)
		return;
	/* What the CLI makes for allocs: the sparse decode, every live allocation keyed. */
	c = report_with(path, (struct ci_decode_options){ 0 }, opt);
	l = report_with(path, (struct ci_decode_options){ .lazy = true, .sparse = true,
							  .every_alloc = true }, opt);
	if (ok(c && l, "%s: %s: both decodes made a report (sparse)", path, what)) {
		char *x = render(c), *y = render(l);
		if (!ok(x && y && strcmp(x, y) == 0, "%s: %s renders the same from the sparse model",
			path, what))
			printf("# complete:\n%s\n# sparse:\n%s\n", x ? x : "", y ? y : "");
		free(x);
		free(y);
	}
	ci_report_destroy(c);
	ci_report_destroy(l);
}

/* The kernels view as the CLI makes it: from a sparse model read with the view's list (the
 * newest launches that match its filters), against the complete decode's.  Every line but the
 * first is the same; the first is too when the scan read the whole ring, else it says how far
 * it read instead of counting what it did not read. */
static void compare_listed(const char *path, const struct ci_render_options *opt, const char *what)
{
	struct ci_decode_options so = {
		.lazy = true, .sparse = true,
		.list = { .newest = opt->last ? opt->last : 20,
			  .has_thread = opt->has_thread_filter, .thread = opt->thread_filter,
			  .has_stream = opt->has_stream_filter, .stream = opt->stream_filter,
			  .kernel = opt->kernel_filter },
	};
	struct ci_report *c = report_with(path, (struct ci_decode_options){ 0 }, opt);
	struct ci_report *s = report_with(path, so, opt);
	if (ok(c && s, "%s: %s: both decodes made a report (listed)", path, what)) {
		char *x = render(c), *y = render(s);
		/* The header may wrap: the launches start at the column titles. */
		char *xb = x ? strstr(x, "\n  seq ") : NULL, *yb = y ? strstr(y, "\n  seq ") : NULL;
		const struct ci_model *sm = ci_report_model(s);
		uint64_t unread = sm ? sm->sections[CI_SEC_LAUNCHES].unread : 0;
		if (!ok(xb && yb && strcmp(xb, yb) == 0, "%s: %s lists the same launches from the sparse "
			"model", path, what))
			printf("# complete:\n%s\n# sparse:\n%s\n", x ? x : "", y ? y : "");
		if (x && y && xb && yb && unread == 0) {
			ok(xb - x == yb - y && strncmp(x, y, (size_t)(xb - x)) == 0,
			   "%s: %s: the whole ring was read, and counted as the complete decode counts it",
			   path, what);
		} else if (x && y && xb && yb) {
			/* "Launches: last N" the same, then the entries read instead of a count. */
			const char *cut = strstr(x, " of ");
			size_t head = cut && cut < xb ? (size_t)(cut - x) : 0;
			char flat[1024];
			size_t n = 0;
			for (const char *q = y; q < yb && n + 1 < sizeof flat; q++) {
				if (*q == '\n')
					q += strspn(q + 1, " "), flat[n++] = ' '; /* unwrap */
				else
					flat[n++] = *q;
			}
			flat[n] = 0;
			ok(strncmp(x, y, head) == 0 && strstr(flat, "of its entries read)"),
			   "%s: %s: read %llu entries short of the ring's end, and says how far it read",
			   path, what, (unsigned long long)unread);
		}
		free(x);
		free(y);
	}
	ci_report_destroy(c);
	ci_report_destroy(s);
}

/* The bounded JSON document as the CLI makes it (a sparse model with each stream's newest
 * launches, the whole ring counted) against the one from a lazy model keying every launch:
 * byte for byte. */
static void compare_json(const char *path)
{
	struct ci_render_options opt = { .width = 100, .quiet = true };
	struct ci_decode_options so = {
		.lazy = true, .sparse = true, .every_alloc = true,
		.list = { .per_stream = CI_JSON_LAUNCHES_PER_STREAM, .whole_ring = true },
	};
	as_json = true;
	struct ci_report *l = report_with(path, (struct ci_decode_options){ .lazy = true }, &opt);
	struct ci_report *s = report_with(path, so, &opt);
	as_json = false;
	if (ok(l && s, "%s: --json: both decodes made a report", path)) {
		char *x = render(l), *y = render(s);
		if (!ok(x && y && strcmp(x, y) == 0, "%s: --json is the same from the sparse model", path)) {
			/* The first difference, not two whole documents. */
			size_t i = 0;
			while (x && y && x[i] && x[i] == y[i])
				i++;
			printf("# lazy:   %.200s\n# sparse: %.200s\n", x ? x + (i > 80 ? i - 80 : 0) : "",
			       y ? y + (i > 80 ? i - 80 : 0) : "");
		}
		free(x);
		free(y);
	}
	ci_report_destroy(l);
	ci_report_destroy(s);
}

static void compare_lazy_views(const char *path)
{
	/* The filters name the newest launch's thread, stream and kernel. */
	struct ci_report *c = report_of(path, false, CI_VIEW_KERNELS);
	if (!c)
		return;
	const struct ci_model *m = ci_report_model(c);
	const struct ci_launch *newest = m->launch_count ? ci_model_launch_loaded(m, m->launch_count - 1)
							: NULL;
	static char kernel[64];
	const char *fn = newest ? ci_model_function_name(m, newest->function) : NULL;
	snprintf(kernel, sizeof kernel, "%.6s", fn ? fn : "");
	struct ci_render_options base = { .width = 100, .quiet = true };
	struct ci_render_options k = base, k5 = base, kt = base, ks = base, kk = base, kts = base;
	struct ci_render_options a = base, a3 = base, af = base, at = base;
	k.view = k5.view = kt.view = ks.view = kk.view = kts.view = CI_VIEW_KERNELS;
	a.view = a3.view = af.view = at.view = CI_VIEW_ALLOCS;
	k5.last = 5;
	kt.last = 3;
	kts.last = 1000;
	if (newest) {
		kt.has_thread_filter = kts.has_thread_filter = true;
		kt.thread_filter = kts.thread_filter = newest->tid;
		ks.last = 7;
		if (newest->stream < m->stream_count) {
			ks.has_stream_filter = kts.has_stream_filter = true;
			ks.stream_filter = kts.stream_filter = m->streams[newest->stream].handle;
		}
		if (*kernel) {
			kk.last = 4;
			kk.kernel_filter = kernel;
		}
	}
	a3.last = 3;
	af.last = 2;
	af.freed = true;
	at.last = 50;
	if (newest) {
		at.has_thread_filter = true;
		at.thread_filter = newest->tid;
	}
	ci_report_destroy(c);
	compare_lazy(path, &k, "kernels");
	compare_lazy(path, &k5, "kernels --last 5");
	compare_lazy(path, &kt, "kernels --last 3 --thread");
	if (ks.has_stream_filter)
		compare_lazy(path, &ks, "kernels --last 7 --stream");
	if (kk.kernel_filter)
		compare_lazy(path, &kk, "kernels --last 4 --kernel");
	compare_lazy(path, &kts, "kernels --last 1000 --thread --stream");
	compare_listed(path, &k, "kernels");
	compare_listed(path, &k5, "kernels --last 5");
	compare_listed(path, &kt, "kernels --last 3 --thread");
	if (ks.has_stream_filter)
		compare_listed(path, &ks, "kernels --last 7 --stream");
	if (kk.kernel_filter)
		compare_listed(path, &kk, "kernels --last 4 --kernel");
	compare_listed(path, &kts, "kernels --last 1000 --thread --stream");
	compare_lazy(path, &a, "allocs");
	compare_lazy(path, &a3, "allocs --last 3");
	compare_lazy(path, &af, "allocs --last 2 --freed");
	compare_lazy(path, &at, "allocs --last 50 --thread");
}

static void compare(const char *path)
{
	compare_lazy_views(path);
	compare_json(path);
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
			if (cm->launch_count > 4096) {
				const char *all = getenv("SPARSE_MAY_READ_ALL");
				ok(ls->unread > ls->capacity / 2 || (all && *all),
				   "%s: the sparse decode read %llu of %zu launches", path,
				   (unsigned long long)(cm->launch_count - ls->unread), cm->launch_count);
				/* Memory: what it keeps, however far it read. */
				ok(sm->launch_count < cm->launch_count / 2,
				   "%s: the sparse decode kept %zu of %zu launches", path, sm->launch_count,
				   cm->launch_count);
			}
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
