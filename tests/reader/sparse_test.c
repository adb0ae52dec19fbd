/* SPDX-License-Identifier: MIT */
/*
 * A sparse decode (ci_decode_options.sparse: the launch ring read from its head back as far as
 * the diagnosis needs, the allocation table looked up where it lies) must diagnose exactly what
 * a complete decode of the same input diagnoses.  For every core or record named on the command
 * line this decodes both ways and compares the diagnosis field by field (verdict, faulting and
 * failed launch by ring seq, confidence, reasoning, per-stream progress, every attribution with
 * its allocation) and the rendered summary and fault view, character by character.  It also
 * checks that the sparse decode read less than the whole ring when the ring is large.  TAP on
 * stdout; run by tests/reader/golden.t and tests/reader/full.t on real cores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "cudainspect/cudainspect.h"

struct run {
	struct ci_source *src;
	struct ci_model *m;
	struct ci_diagnosis *d;
};

static bool run_open(const char *path, bool sparse, struct run *r)
{
	struct ci_location loc;
	struct ci_decode_options o = { .lazy = sparse, .sparse = sparse };
	struct ci_error *err;
	memset(r, 0, sizeof(*r));
	if ((err = ci_source_open(path, NULL, &r->src)) || (err = ci_locate(r->src, &loc)) ||
	    (err = ci_decode_with(r->src, &loc, &o, &r->m)) ||
	    (err = ci_diagnose(r->m, ci_source_info(r->src), &r->d))) {
		printf("# %s: %s\n", path, err->message);
		ci_error_destroy(err);
		return false;
	}
	return true;
}

static void run_close(struct run *r)
{
	ci_diagnosis_destroy(r->d);
	ci_model_destroy(r->m);
	ci_source_close(r->src);
}

/* ok() with the two values shown when they differ. */
#define same(got, want, ...)                                                               \
	do {                                                                               \
		long long g_ = (long long)(got), w_ = (long long)(want);                   \
		if (!ok(g_ == w_, __VA_ARGS__))                                            \
			printf("# sparse %lld, complete %lld\n", g_, w_);                  \
	} while (0)

static unsigned long long seq_of(const struct ci_model *m, ptrdiff_t i)
{
	return i < 0 ? 0 : (unsigned long long)ci_model_launch(m, (size_t)i)->seq;
}

static char *render(const struct run *r, enum ci_view view)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const struct ci_warnings *none[1] = { NULL };
	struct ci_report rep = { .source = ci_source_info(r->src), .model = r->m, .diagnosis = r->d,
				 .warnings = none, .warning_lists = 0 };
	struct ci_render_options o = { .view = view, .width = 100 };
	struct ci_error *err = ci_render_text(f, &rep, &o);
	if (err) {
		printf("# render: %s\n", err->message);
		ci_error_destroy(err);
	}
	fclose(f);
	return text;
}

static void compare(const char *path)
{
	struct run c, s;
	if (!run_open(path, false, &c)) {
		ok(0, "%s: complete decode", path);
		return;
	}
	if (!run_open(path, true, &s)) {
		ok(0, "%s: sparse decode", path);
		run_close(&c);
		return;
	}
	const struct ci_diagnosis *a = c.d, *b = s.d;
	same(b->verdict, a->verdict, "%s: same verdict (%s)", path, ci_verdict_name(a->verdict));
	same(seq_of(s.m, b->faulting_launch), seq_of(c.m, a->faulting_launch),
	       "%s: same faulting launch", path);
	same(b->confidence, a->confidence, "%s: same confidence", path);
	ok(strcmp(a->reasoning, b->reasoning) == 0, "%s: same reasoning", path);
	same(seq_of(s.m, b->failed_launch), seq_of(c.m, a->failed_launch), "%s: same failed launch",
	       path);
	same(b->error_tid, a->error_tid, "%s: same error thread", path);
	bool streams = a->stream_count == b->stream_count;
	for (size_t i = 0; streams && i < a->stream_count; i++) {
		const struct ci_stream_progress *x = &a->streams[i], *y = &b->streams[i];
		streams = x->stream == y->stream && x->crumb == y->crumb && x->launched == y->launched &&
			  x->finished == y->finished && x->in_flight == y->in_flight &&
			  x->not_started == y->not_started && x->unknown == y->unknown &&
			  x->synced_ns == y->synced_ns &&
			  seq_of(c.m, x->oldest_unfinished) == seq_of(s.m, y->oldest_unfinished);
		if (!streams)
			printf("# stream slot %u differs\n", x->stream);
	}
	ok(streams, "%s: same progress on all %zu streams", path, a->stream_count);
	bool attrs = a->attribution_count == b->attribution_count;
	for (size_t i = 0; attrs && i < a->attribution_count; i++) {
		const struct ci_attribution *x = &a->attributions[i], *y = &b->attributions[i];
		attrs = seq_of(c.m, (ptrdiff_t)x->launch) == seq_of(s.m, (ptrdiff_t)y->launch) &&
			x->arg == y->arg && x->address == y->address && x->relation == y->relation &&
			x->offset == y->offset && !x->alloc == !y->alloc &&
			(!x->alloc || (x->alloc->id == y->alloc->id && x->alloc->size == y->alloc->size &&
				       x->alloc->stack == y->alloc->stack));
		if (!attrs)
			printf("# attribution %zu differs\n", i);
	}
	ok(attrs, "%s: the same %zu attributions", path, a->attribution_count);
	static const enum ci_view views[] = { CI_VIEW_SUMMARY, CI_VIEW_FAULT, CI_VIEW_STREAMS };
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		char *x = render(&c, views[v]), *y = render(&s, views[v]);
		ok(x && y && strcmp(x, y) == 0, "%s: view %d renders the same", path, (int)views[v]);
		free(x);
		free(y);
	}
	/* A large ring is read from its head back, not whole. */
	const struct ci_section_stats *ls = &s.m->sections[CI_SEC_LAUNCHES];
	if (c.m->launch_count > 4096)
		ok(ls->unread > ls->capacity / 2 && s.m->launch_count < c.m->launch_count / 2,
		   "%s: the sparse decode read %llu of %zu launches", path,
		   (unsigned long long)(c.m->launch_count - ls->unread), c.m->launch_count);
	run_close(&s);
	run_close(&c);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		compare(argv[i]);
	printf("1..%d\n", tap_n);
	return done_testing();
}
