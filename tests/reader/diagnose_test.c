/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the diagnosis (corefile/diagnose/) on records built by hand (model.h): the
 * per-stream breadcrumb inference, the choice of the faulting launch across streams and its
 * confidence, pointer attribution (inside, past the end, before the start, freed, unknown) with
 * the offsets docs/JSON.md defines, and the error timeline.  Every expectation follows from the
 * rules in docs/USAGE.md applied to the entries each test writes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/tap.h"
#include "model.h"

#define STICKY 700 /* CUDA_ERROR_ILLEGAL_ADDRESS */
#define INVALID_VALUE 1
#define NOT_READY 600

/* With CI_DIAGNOSIS_DUMP=FILE, every diagnosis the tests make is appended to FILE, field by
 * field: two builds of the reader must write the same file (tests/reader/same-reports.sh). */
static void dump(const struct ci_model *m, const struct ci_diagnosis *d)
{
	const char *path = getenv("CI_DIAGNOSIS_DUMP");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	fprintf(f, "diagnosis: %s, launch %td (%s), failed %td, copy %td, xid %td, errors %td %td %td, "
		"tid %u, signal %d %u\n", ci_verdict_name(d->verdict), d->faulting_launch,
		ci_confidence_name(d->confidence), d->failed_launch, d->faulting_copy, d->xid,
		d->first_error, d->first_sticky_error, d->last_error, d->error_tid, d->signal,
		d->signal_tid);
	fprintf(f, "why: %s\n", d->reasoning);
	for (size_t i = 0; i < d->evidence_count; i++) {
		const struct ci_evidence_item *it = &d->evidence[i];
		fprintf(f, "evidence %s %s%s launch %td event %td xid %td alloc %lld: %s\n",
			ci_evidence_kind_name(it->kind), it->rule ? it->rule : "-",
			it->decisive ? " decisive" : "", it->launch, it->event, it->xid,
			it->alloc ? (long long)it->alloc->id : -1LL, it->text);
	}
	for (size_t i = 0; i < d->attribution_count; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		fprintf(f, "attribution launch %zu arg %u +%u 0x%llx %s alloc %lld +%llu history %s %u/%u\n",
			a->launch, a->arg, a->param_offset, (unsigned long long)a->address,
			ci_relation_name(a->relation), a->alloc ? (long long)a->alloc->id : -1LL,
			(unsigned long long)a->offset, ci_history_name(a->history), a->history_inside,
			a->history_launches);
	}
	for (size_t i = 0; i < d->stream_count; i++)
		fprintf(f, "stream %u: %zu %zu %zu %zu oldest %td\n", d->streams[i].stream,
			d->streams[i].finished, d->streams[i].in_flight, d->streams[i].not_started,
			d->streams[i].unknown, d->streams[i].oldest_unfinished);
	for (size_t i = 0; i < m->launch_count; i++)
		fprintf(f, "%s%s", ci_launch_state_name(d->launch_state[i]),
			i + 1 < m->launch_count ? " " : "\n");
	if (d->graph)
		fprintf(f, "graph: node %td of %zu\n", d->graph->faulting_node, d->graph->node_count);
	fclose(f);
}

static struct ci_diagnosis *run(struct ci_model *m, const struct ci_source_info *info)
{
	struct ci_diagnosis *d = NULL;
	struct ci_evidence *ev = NULL;
	mb_finish(m);
	struct ci_diagnose_options o = { .source = info };
	struct ci_error *err = ci_evidence_gather(m, &ev);
	if (!err)
		err = ci_diagnose(m, ev, &o, &d);
	ci_evidence_destroy(ev);
	if (err) {
		printf("# ci_diagnose failed: %s\n", err->message);
		ci_error_destroy(err);
		abort();
	}
	dump(m, d);
	return d;
}

static const struct ci_attribution *attr_of(const struct ci_diagnosis *d, size_t launch,
					    uint32_t arg)
{
	for (size_t i = 0; i < d->attribution_count; i++)
		if (d->attributions[i].launch == launch && d->attributions[i].arg == arg)
			return &d->attributions[i];
	return NULL;
}

/* One stream, a breadcrumb after every launch, the GPU wrote 3 of 5. */
static void test_single_stream(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "rmsnorm", 0, NULL);
	uint32_t s = mb_stream(m, 0x1000, true, 3, 5);
	size_t l[5];
	for (int i = 0; i < 5; i++)
		l[i] = mb_launch(m, s, (uint64_t)i + 1, fn, (uint64_t)i, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);

	is_int(d->verdict, CI_VERDICT_DEVICE_FAULT, "single stream: a sticky error means a device fault");
	is_int(d->launch_state[l[0]], CI_LS_FINISHED, "launch 1 <= crumb 3: finished");
	is_int(d->launch_state[l[2]], CI_LS_FINISHED, "launch 3 <= crumb 3: finished");
	is_int(d->launch_state[l[3]], CI_LS_IN_FLIGHT, "launch 4 follows the crumb and carries one: in flight");
	is_int(d->launch_state[l[4]], CI_LS_NOT_STARTED, "launch 5 after the in-flight one: not started");
	is_int(d->faulting_launch, (long long)l[3], "the only launch in flight is the faulting one");
	is_int(d->confidence, CI_CONF_HIGH, "the only launch in flight: confidence high");
	ok(strstr(d->reasoning, "only launch in flight") != NULL, "reasoning names the rule");
	is_int(d->stream_count, 1, "one stream in the progress table");
	is_int(d->streams[0].finished, 3, "3 finished");
	is_int(d->streams[0].in_flight, 1, "1 in flight");
	is_int(d->streams[0].not_started, 1, "1 not started");
	is_int(d->streams[0].oldest_unfinished, (long long)l[3], "oldest unfinished is launch 4");
	is_int(d->first_sticky_error, 0, "the first sticky error is the only error");
	is_int(d->error_tid, 7, "the error was seen by thread 7");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Breadcrumbs every 2 launches: after crumb 2, launches 3 and 4 are a window of which one is in
 * flight, 5 and 6 have not started. */
static void test_cadence_window(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "gemm", 0, NULL);
	uint32_t s = mb_stream(m, 0x1000, true, 2, 6);
	size_t l[6];
	for (int i = 0; i < 6; i++)
		l[i] = mb_launch(m, s, (uint64_t)i + 1, fn, (uint64_t)i,
				 (i % 2) ? CI_LAUNCH_CRUMB : 0, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuCtxSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[l[1]], CI_LS_FINISHED, "cadence 2: launch 2 finished");
	is_int(d->launch_state[l[2]], CI_LS_UNKNOWN, "cadence 2: launch 3 unknown (in the window)");
	is_int(d->launch_state[l[3]], CI_LS_UNKNOWN, "cadence 2: launch 4 unknown (closes the window)");
	is_int(d->launch_state[l[4]], CI_LS_NOT_STARTED, "cadence 2: launch 5 not started");
	is_int(d->launch_state[l[5]], CI_LS_NOT_STARTED, "cadence 2: launch 6 not started");
	is_int(d->faulting_launch, (long long)l[2], "no bad pointers: the oldest of the window is named");
	is_int(d->confidence, CI_CONF_LOW, "a window of two: confidence low");
	is_int(d->streams[0].unknown, 2, "two unknown");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Two streams both stopped with a launch in flight; one launch passes a pointer 64 bytes past the
 * end of a 256 KiB allocation, the other only pointers inside allocations. */
static void test_two_streams_bad_pointer(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8, 8, 4 }; /* two pointers and an int */
	uint32_t attn = mb_function(m, "attention", 3, sizes);
	uint32_t norm = mb_function(m, "rmsnorm", 3, sizes);
	mb_alloc(m, 11, 0x7f0000000000ull, 262144, 1);
	mb_alloc(m, 12, 0x7f0000100000ull, 4096, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 1, 2);
	uint32_t b = mb_stream(m, 0xb000, true, 4, 5);
	uint64_t bad[] = { 0x7f0000000000ull + 262144 + 64, 0x7f0000100000ull, 7 };
	uint64_t good[] = { 0x7f0000000000ull + 16, 0x7f0000100000ull + 4095, 1 << 20 };
	mb_launch(m, a, 1, attn, 1, CI_LAUNCH_CRUMB, 7, 3, good);
	mb_launch(m, b, 4, norm, 2, CI_LAUNCH_CRUMB, 8, 3, good);
	size_t lb = mb_launch(m, b, 5, norm, 3, CI_LAUNCH_CRUMB, 8, 3, good);
	size_t la = mb_launch(m, a, 2, attn, 4, CI_LAUNCH_CRUMB, 7, 3, bad);
	mb_error(m, 10, STICKY, 8, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);

	is_int(d->launch_state[la], CI_LS_IN_FLIGHT, "stream A: launch 2 in flight");
	is_int(d->launch_state[lb], CI_LS_IN_FLIGHT, "stream B: launch 5 in flight");
	is_int(d->faulting_launch, (long long)la, "two in flight: the one with a bad pointer is named");
	is_int(d->confidence, CI_CONF_MEDIUM, "bad-pointer rule: confidence medium");
	ok(strstr(d->reasoning, "bad pointer") != NULL, "reasoning names the bad-pointer rule");
	const struct ci_attribution *p0 = attr_of(d, la, 0);
	ok(p0 && p0->relation == CI_REL_PAST_END, "arg 0 is past the end");
	ok(p0 && p0->alloc && p0->alloc->id == 11, "... of allocation #11");
	is_int(p0 ? p0->offset : 0, 64, "... by 64 bytes (offset counts from the end)");
	is_int(p0 ? p0->param_offset : 99, 0, "... at parameter offset 0");
	const struct ci_attribution *p1 = attr_of(d, la, 1);
	ok(p1 && p1->relation == CI_REL_INSIDE && p1->offset == 0 && p1->alloc->id == 12,
	   "arg 1 is inside allocation #12 at offset 0");
	ok(attr_of(d, la, 2) == NULL, "the 4-byte int parameter is not treated as a pointer");
	const struct ci_attribution *g1 = attr_of(d, lb, 1);
	ok(g1 && g1->relation == CI_REL_INSIDE && g1->offset == 4095,
	   "the other launch's last-byte pointer is inside at offset 4095");
	is_int(d->attributions[0].launch, (long long)la, "the faulting launch's attributions come first");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Two launches in flight, no bad pointers: the older one is named with low confidence. */
static void test_two_streams_oldest(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t a = mb_stream(m, 0xa000, true, 0, 1);
	uint32_t b = mb_stream(m, 0xb000, true, 0, 1);
	size_t lb = mb_launch(m, b, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, a, 1, fn, 2, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuCtxSynchronize", CI_ERROR_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->faulting_launch, (long long)lb, "no bad pointers: the oldest in-flight launch");
	is_int(d->confidence, CI_CONF_LOW, "oldest rule: confidence low");
	is_int(d->first_sticky_error, 0, "a STICKY flag without FIRST_STICKY still counts");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A stream without breadcrumbs cannot be judged; its newest launch is a weak suspect. */
static void test_no_breadcrumbs(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0xc000, false, 0, 3);
	size_t l[3];
	for (int i = 0; i < 3; i++)
		l[i] = mb_launch(m, s, (uint64_t)i + 1, fn, (uint64_t)i, 0, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[l[0]], CI_LS_UNKNOWN, "no breadcrumbs: unknown");
	is_int(d->streams[0].unknown, 3, "all three unknown");
	is_int(d->faulting_launch, (long long)l[2], "the newest launch of a blind stream is named");
	is_int(d->confidence, CI_CONF_LOW, "blind stream: confidence low");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* 32-bit breadcrumbs: the high half comes from the stream's launch counter. */
static void test_crumb32(void)
{
	struct ci_model *m = mb_new();
	m->header.crumb_width = 4;
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint64_t base = (1ull << 32) + 10;
	/* The GPU wrote the low half of base + 1; base + 2 is in flight. */
	uint32_t s = mb_stream(m, 0xd000, true, (base + 1) & 0xffffffffull, base + 3);
	size_t l1 = mb_launch(m, s, base + 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	size_t l2 = mb_launch(m, s, base + 2, fn, 2, CI_LAUNCH_CRUMB, 7, 0, NULL);
	size_t l3 = mb_launch(m, s, base + 3, fn, 3, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->streams[0].crumb, (long long)(base + 1), "32-bit crumb widened with the launch counter");
	is_int(d->launch_state[l1], CI_LS_FINISHED, "32-bit: finished");
	is_int(d->launch_state[l2], CI_LS_IN_FLIGHT, "32-bit: in flight");
	is_int(d->launch_state[l3], CI_LS_NOT_STARTED, "32-bit: not started");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A launch call that failed (bad block size) and no sticky error: an API error, nothing faulted,
 * and work still running on another stream is not blamed. */
static void test_api_error(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "sample", 0, NULL);
	uint32_t s = mb_stream(m, 0xe000, true, 2, 3);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, s, 2, fn, 2, CI_LAUNCH_CRUMB, 7, 0, NULL);
	size_t running = mb_launch(m, s, 3, fn, 3, CI_LAUNCH_CRUMB, 7, 0, NULL);
	size_t bad = mb_launch(m, s, 4, fn, 4, CI_LAUNCH_FAILED, 7, 0, NULL);
	m->launches[bad].result = INVALID_VALUE;
	m->launches[bad].block[0] = 2048;
	mb_error(m, 1, NOT_READY, 9, "cuStreamQuery", 0);
	mb_error(m, 4, INVALID_VALUE, 7, "cuLaunchKernel", 0);
	mb_error(m, 5, NOT_READY, 9, "cuStreamQuery", 0);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->verdict, CI_VERDICT_API_ERROR, "no sticky error but a failed call: api_error");
	is_int(d->faulting_launch, -1, "nothing faulted on the device");
	is_int(d->failed_launch, (long long)bad, "the failed launch is named");
	is_int(d->launch_state[bad], CI_LS_NOT_STARTED, "a failed launch never started");
	is_int(d->launch_state[running], CI_LS_IN_FLIGHT, "the launch before it is still running");
	is_int(d->last_error, 1, "CUDA_ERROR_NOT_READY is not the last error");
	is_int(d->first_error, 0, "first_error is the first entry of any kind");
	is_int(d->error_tid, 7, "the error thread is the one that got INVALID_VALUE");
	is_int(d->streams[0].not_started, 0, "a failed launch is not counted as not started");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* No error at all, one launch never finished (a hang): pending, and that launch is named. */
static void test_pending(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "spin", 0, NULL);
	uint32_t s = mb_stream(m, 0xf000, true, 1, 3);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	size_t hung = mb_launch(m, s, 2, fn, 2, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, s, 3, fn, 3, CI_LAUNCH_CRUMB, 7, 0, NULL);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->verdict, CI_VERDICT_PENDING, "no error, work in flight: pending");
	is_int(d->faulting_launch, (long long)hung, "the launch that never finished is named");
	is_int(d->error_tid, 0, "no error thread");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Attribution relations and offsets, with the layout unknown (8-byte words). */
static void test_attribution_relations(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL); /* layout unknown */
	const uint64_t A = 0x7f1000000000ull, B = 0x7f1000100000ull, F = 0x7f2000000000ull;
	mb_alloc(m, 1, A, 0x1000, 1);
	mb_alloc(m, 2, B, 0x1000, 1);
	mb_free(m, 3, F, 0x2000, 5, 9);
	uint32_t s = mb_stream(m, 0x1, true, 0, 1);
	uint64_t p[] = {
		A + 0x10,              /* inside #1 at +16 */
		A + 0x1000 + 0x20,     /* 32 bytes past the end of #1 (closer than #2's start) */
		B - 0x40,              /* 64 bytes before the start of #2 */
		F + 0x100,             /* inside freed #3 at +256 */
		0x7f5000000000ull,     /* far from everything */
		12345,                 /* a small integer: not a pointer */
		0x3ff0000000000000ull, /* 1.0 as a double: not a pointer */
		0,                     /* NULL: not attributed */
	};
	size_t l = mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 8, p);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *a;
	a = attr_of(d, l, 0);
	ok(a && a->relation == CI_REL_INSIDE && a->offset == 0x10 && a->alloc->id == 1,
	   "word 0: inside #1 at offset 16 from the start");
	a = attr_of(d, l, 1);
	ok(a && a->relation == CI_REL_PAST_END && a->offset == 0x20 && a->alloc->id == 1,
	   "word 1: past the end of #1 by 32 (offset from the end)");
	a = attr_of(d, l, 2);
	ok(a && a->relation == CI_REL_BEFORE_START && a->offset == 0x40 && a->alloc->id == 2,
	   "word 2: 64 bytes before the start of #2 (offset from the start)");
	a = attr_of(d, l, 3);
	ok(a && a->relation == CI_REL_FREED && a->offset == 0x100 && a->alloc->id == 3 &&
		   a->alloc->free_tid == 9,
	   "word 3: inside freed #3 at offset 256, freed by thread 9");
	a = attr_of(d, l, 4);
	ok(a && a->relation == CI_REL_UNKNOWN && a->alloc == NULL, "word 4: in no known allocation");
	ok(attr_of(d, l, 5) == NULL, "word 5: a small integer is not attributed");
	ok(attr_of(d, l, 6) == NULL, "word 6: a double is not attributed");
	ok(attr_of(d, l, 7) == NULL, "word 7: NULL is not attributed");
	is_int(attr_of(d, l, 3) ? attr_of(d, l, 3)->param_offset : 0, 24, "word 3 sits at byte 24");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A freed range reused by a live allocation: the live one wins. */
static void test_reused_address(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	const uint64_t A = 0x7f3000000000ull;
	mb_free(m, 1, A, 0x1000, 3, 7);
	mb_alloc(m, 2, A, 0x800, 7);
	uint32_t s = mb_stream(m, 0x1, true, 0, 1);
	uint64_t p[] = { A + 0x10, A + 0x900 };
	size_t l = mb_launch(m, s, 1, fn, 5, CI_LAUNCH_CRUMB, 7, 2, p);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *a = attr_of(d, l, 0);
	ok(a && a->relation == CI_REL_INSIDE && a->alloc->id == 2, "reused range: the live allocation wins");
	a = attr_of(d, l, 1);
	ok(a && a->relation == CI_REL_FREED && a->alloc->id == 1,
	   "past the live one but inside the older freed range: freed");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The signal and its thread come from the source when it has them, else from the header. */
static void test_signal(void)
{
	struct ci_model *m = mb_new();
	m->header.state = CI_STATE_SIGNALED;
	m->header.fatal_signal = 6;
	m->header.fatal_tid = 77;
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->signal, 6, "signal from the record header");
	is_int(d->signal_tid, 77, "signal thread from the record header");
	is_int(d->verdict, CI_VERDICT_NONE, "no error and nothing in flight: none");
	ci_diagnosis_destroy(d);

	struct ci_core_thread th[2] = { { .tid = 80 }, { .tid = 81, .crashed = true } };
	struct ci_source_info info = { .kind = CI_SOURCE_CORE, .signal = 11, .threads = th,
				       .thread_count = 2 };
	d = run(m, &info);
	is_int(d->signal, 11, "signal from the core");
	is_int(d->signal_tid, 81, "the crashed thread of the core");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Failed and captured launches do not break the "very next launch" rule. */
static void test_failed_in_sequence(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0x1, true, 1, 3);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, s, 2, fn, 2, CI_LAUNCH_FAILED, 7, 0, NULL);
	size_t l3 = mb_launch(m, s, 3, fn, 3, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[l3], CI_LS_IN_FLIGHT, "a failed launch in between keeps the next exact");
	is_int(d->confidence, CI_CONF_HIGH, "... with high confidence");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* No breadcrumbs (CUDAINSPECT_CRUMBS=off, a persistent record on disk, no stream memory ops):
 * an event recorded on the stream and synchronized bounds what had finished; every launch made
 * after it is a suspect, the bad-pointer rule first, with low confidence. */
static void test_open_window_event_sync(void)
{
	struct ci_model *m = mb_new();
	m->header.flags |= CI_HDR_CRUMBS_OFF;
	static const uint16_t sizes[] = { 8, 4 };
	uint32_t attn = mb_function(m, "paged_attention", 2, sizes);
	uint32_t samp = mb_function(m, "sample_token", 2, sizes);
	const uint64_t A = 0x7f4000000000ull;
	mb_alloc(m, 1, A, 0x10000, 7);
	uint32_t s = mb_stream(m, 0x100, true, 0, 8);
	uint64_t ok_p[] = { A + 0x100, 1 }, bad_p[] = { A + 0x10000 + 0x40, 1 };
	size_t l[8];
	for (int i = 0; i < 8; i++)
		l[i] = mb_launch(m, s, (uint64_t)i + 1, i == 5 ? attn : samp, 10 + (uint64_t)i,
				 0, 7, 2, i == 5 ? bad_p : ok_p);
	/* Event 0xe1 recorded after launch 4 (at 13.5 ms) and synchronized: launches 1-4 done. */
	mb_event(m, 13, CI_EV_EVENT_RECORD, 0xe1, s, 0, 0);
	m->events[0].time_ns += MB_MS / 2;
	mb_event(m, 14, CI_EV_EVENT_SYNC, 0xe1, CI_NONE, 0, 0);
	mb_error(m, 30, STICKY, 7, "cuEventSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[l[3]], CI_LS_FINISHED, "no breadcrumbs: launch 4, before the synchronized event, finished");
	is_int(d->launch_state[l[4]], CI_LS_UNKNOWN, "... launch 5, after it, unknown");
	is_int(d->streams[0].finished, 4, "... 4 finished by number");
	is_int(d->streams[0].unknown, 4, "... 4 unknown");
	ok(d->streams[0].synced_ns == m->events[0].time_ns, "... bounded by the event's record time");
	is_int(d->faulting_launch, (long long)l[5], "the launch with the bad pointer among those after the sync is named");
	is_int(d->confidence, CI_CONF_LOW, "... with low confidence (no breadcrumbs)");
	ok(strstr(d->reasoning, "Breadcrumbs are off") != NULL, "... and the reasoning says why");
	is_int(d->verdict, CI_VERDICT_DEVICE_FAULT, "a sticky error: device fault");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A cuCtxSynchronize bounds every stream of its context; without a bad pointer the oldest
 * launch made after it is named.  A synchronization after the sticky error does not count. */
static void test_open_window_ctx_sync(void)
{
	struct ci_model *m = mb_new();
	mb_device(m, "GPU");
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t a = mb_stream(m, 0xa, false, 0, 4), b = mb_stream(m, 0xb, false, 0, 4);
	m->streams[a].ctx = m->streams[b].ctx = 0;
	size_t la[4], lb[4];
	for (int i = 0; i < 4; i++) {
		la[i] = mb_launch(m, a, (uint64_t)i + 1, fn, 10 + 2 * (uint64_t)i, 0, 7, 0, NULL);
		lb[i] = mb_launch(m, b, (uint64_t)i + 1, fn, 11 + 2 * (uint64_t)i, 0, 8, 0, NULL);
	}
	mb_event(m, 14, CI_EV_CTX_SYNC, 0x5000, CI_NONE, 0, 0);  /* after a1, b1, a2 (10, 11, 12, 13) */
	mb_error(m, 30, STICKY, 7, "cuCtxSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	mb_event(m, 31, CI_EV_CTX_SYNC, 0x5000, CI_NONE, 0, 0); /* after the error: no bound */
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[lb[1]], CI_LS_FINISHED, "ctx sync: stream b's launch 2 (13 ms) finished");
	is_int(d->launch_state[la[2]], CI_LS_UNKNOWN, "ctx sync: stream a's launch 3 (14 ms) unknown");
	is_int(d->faulting_launch, (long long)la[2], "no bad pointer: the oldest launch after the sync");
	is_int(d->confidence, CI_CONF_LOW, "... low confidence");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Counts are over the stream's launch numbers, also when the ring holds only the newest. */
static void test_counts_by_number(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0x1, true, 990, 1000);
	for (uint64_t i = 991; i <= 1000; i++)
		mb_launch(m, s, i, fn, i, CI_LAUNCH_CRUMB, 7, 0, NULL);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->streams[0].finished, 990, "990 finished although the ring holds none of them");
	is_int(d->streams[0].in_flight, 1, "launch 991 in flight");
	is_int(d->streams[0].not_started, 9, "9 not started");
	is_int(d->verdict, CI_VERDICT_PENDING, "no error, work in flight: pending");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The record lost entries: the confidence is capped, lower when pointers decided. */
static void test_losses_cap(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0x1, true, 1, 3);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, s, 2, fn, 2, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	m->sections[CI_SEC_LAUNCHES].dropped = 5;
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->confidence, CI_CONF_MEDIUM, "launches not recorded: the only launch in flight is at most medium");
	ok(strstr(d->reasoning, "5 launches were not recorded") != NULL, "... and the reasoning says so");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = mb_new();
	static const uint16_t sizes[] = { 8 };
	fn = mb_function(m, "k", 1, sizes);
	mb_alloc(m, 1, 0x7f0000000000ull, 4096, 7);
	uint32_t a = mb_stream(m, 0xa, true, 0, 1), b = mb_stream(m, 0xb, true, 0, 1);
	uint64_t good[] = { 0x7f0000000010ull }, bad[] = { 0x7f0000001040ull };
	mb_launch(m, a, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 1, good);
	size_t lb = mb_launch(m, b, 1, fn, 2, CI_LAUNCH_CRUMB, 7, 1, bad);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	m->sections[CI_SEC_ALLOCS].dropped = 3;
	d = run(m, NULL);
	is_int(d->faulting_launch, (long long)lb, "table full: the bad-pointer rule still names its launch");
	is_int(d->confidence, CI_CONF_LOW, "... but the pointer may be in an unrecorded allocation: low");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A launch that failed long before the last error is not the one behind it. */
static void test_failed_launch_far(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0x1, true, 1, 1);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_launch(m, s, 0, fn, 2, CI_LAUNCH_FAILED, 7, 0, NULL);
	mb_error(m, 2, 1, 7, "cuLaunchKernel", 0);
	mb_error(m, 50, 1, 7, "cuMemcpyHtoD_v2", 0);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->verdict, CI_VERDICT_API_ERROR, "api error");
	is_int(d->failed_launch, -1, "the last error came from a copy 48 ms after the failed launch: none named");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The smallest container wins wherever it is: a VMM reserve with more than 64 mappings above
 * its start still holds an address none of them does. */
static void test_container_far_back(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "k", 0, NULL);
	const uint64_t R = 0x7f6000000000ull;
	struct ci_alloc *r = mb_alloc(m, 1, R, 1ull << 30, 7);
	r->kind = CI_ALLOC_VMM_RESERVE;
	for (uint64_t i = 0; i < 100; i++)
		mb_alloc(m, 2 + i, R + 0x100000 * (i + 1), 0x1000, 7)->kind = CI_ALLOC_VMM_MAP;
	uint32_t s = mb_stream(m, 0x1, true, 0, 1);
	uint64_t p[] = { R + 0x100000 * 101 + 0x10, R + 0x100000 * 7 + 0x8 };
	size_t l = mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 2, p);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *a = attr_of(d, l, 0);
	ok(a && a->relation == CI_REL_INSIDE && a->alloc->id == 1 && a->offset == 0x100000 * 101 + 0x10,
	   "an address past 100 mappings is inside the reserve (#1)");
	a = attr_of(d, l, 1);
	ok(a && a->relation == CI_REL_INSIDE && a->alloc->id == 8 && a->offset == 8,
	   "an address in a mapping is inside the mapping, not the reserve");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Most of the record missing: no verdict about the GPU. */
static void test_incomplete(void)
{
	struct ci_model *m = mb_new();
	m->sections[CI_SEC_ERRORS].missing = m->sections[CI_SEC_ERRORS].capacity;
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0x1, true, 1, 1);
	mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->verdict, CI_VERDICT_INCOMPLETE, "the error ring not in the input: incomplete, not none");
	ok(!strcmp(ci_verdict_name(d->verdict), "incomplete"), "... named incomplete");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}


/* Argument history: attn_decode's arg 1 pointed into the 262,144-byte KV buffer #2 in its 5
 * earlier launches; the 6th passes 64 bytes past its end, which lands inside the next
 * allocation #3 (carved right after it).  Another stream has an older kernel in flight whose
 * pointers are all good.  Without the history the 6th would look fine ("inside #3") and the
 * oldest launch in flight would be named. */
static void test_history_neighbour(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8, 8, 4 };
	uint32_t attn = mb_function(m, "attn_decode", 3, sizes);
	uint32_t mlp = mb_function(m, "mlp", 3, sizes);
	const uint64_t W = 0x7f1000000000ull, KV = W + (1 << 20), NEXT = KV + 262144;
	mb_alloc(m, 1, W, 1 << 20, 1);
	mb_alloc(m, 2, KV, 262144, 1);
	mb_alloc(m, 3, NEXT, 262144, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 5, 6);
	uint32_t b = mb_stream(m, 0xb000, true, 0, 1);
	size_t other = mb_launch(m, b, 1, mlp, 1, CI_LAUNCH_CRUMB, 8, 3, (uint64_t[]){ W, W + 64, 3 });
	for (int i = 0; i < 5; i++)
		mb_launch(m, a, (uint64_t)i + 1, attn, 2 + (uint64_t)i, CI_LAUNCH_CRUMB, 7, 3,
			  (uint64_t[]){ W, KV + (uint64_t)i * 4096, 1 });
	size_t bad = mb_launch(m, a, 6, attn, 9, CI_LAUNCH_CRUMB, 7, 3,
			       (uint64_t[]){ W, KV + 262144 + 64, 1 });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->launch_state[other], CI_LS_IN_FLIGHT, "history: the older mlp launch is in flight too");
	is_int(d->faulting_launch, (long long)bad, "history: the launch whose arg left its allocation is named");
	is_int(d->confidence, CI_CONF_MEDIUM, "history: confidence medium");
	ok(strstr(d->reasoning, "argument history") != NULL, "history: the reasoning names the rule");
	const struct ci_attribution *p = attr_of(d, bad, 1);
	ok(p && p->history == CI_HISTORY_LEFT, "history: arg 1 left the allocation of its history");
	ok(p && p->relation == CI_REL_PAST_END && p->alloc && p->alloc->id == 2 && p->offset == 64,
	   "history: arg 1 is 64 bytes past the end of #2");
	ok(p && p->neighbour && p->neighbour->id == 3 && p->neighbour_relation == CI_REL_INSIDE &&
	   p->neighbour_offset == 64, "history: ... and lies inside #3 at offset 64");
	ok(p && p->history_launches == 5 && p->history_inside == 5,
	   "history: 5 earlier launches looked at, all of them inside #2");
	const struct ci_attribution *w = attr_of(d, bad, 0);
	ok(w && w->history == CI_HISTORY_SAME && w->relation == CI_REL_INSIDE,
	   "history: arg 0 points where it always did");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The same, but #3 after the KV buffer was freed before the 6th launch (xidengine's stale
 * scenario): the address lies in a freed allocation and in no live one, so the use after free
 * comes first (relation FREED, #3 at offset 64) and the history is the neighbour (#2, 64 bytes
 * past its end). */
static void test_history_freed_neighbour(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8, 8 };
	uint32_t attn = mb_function(m, "attn_decode", 2, sizes);
	const uint64_t KV = 0x7f1000100000ull, NEXT = KV + 262144;
	mb_alloc(m, 2, KV, 262144, 1);
	mb_free(m, 3, NEXT, 65536, 8, 7);
	uint32_t a = mb_stream(m, 0xa000, true, 5, 6);
	for (uint64_t i = 0; i < 5; i++)
		mb_launch(m, a, i + 1, attn, 2 + i, CI_LAUNCH_CRUMB, 7, 2, (uint64_t[]){ KV, KV + i * 4096 });
	size_t bad = mb_launch(m, a, 6, attn, 9, CI_LAUNCH_CRUMB, 7, 2, (uint64_t[]){ KV, NEXT + 64 });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *p = attr_of(d, bad, 1);
	ok(p && p->relation == CI_REL_FREED && p->alloc && p->alloc->id == 3 && p->offset == 64,
	   "freed neighbour: arg 1 points into the freed #3 at offset 64");
	ok(p && p->history == CI_HISTORY_LEFT && p->neighbour && p->neighbour->id == 2 &&
	   p->neighbour_relation == CI_REL_PAST_END && p->neighbour_offset == 64,
	   "freed neighbour: ... and is 64 bytes past the end of #2, which the history used");
	is_int(d->faulting_launch, (long long)bad, "freed neighbour: that launch is named");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The other way: 64 bytes before the start of the buffer the earlier launches used, inside the
 * allocation before it. */
static void test_history_before_start(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8 };
	uint32_t k = mb_function(m, "rope", 1, sizes), o = mb_function(m, "other", 1, sizes);
	const uint64_t P = 0x7f4000000000ull, BUF = P + 65536;
	mb_alloc(m, 1, P, 65536, 1);
	mb_alloc(m, 2, BUF, 65536, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 3, 4), b = mb_stream(m, 0xb000, true, 0, 1);
	size_t other = mb_launch(m, b, 1, o, 1, CI_LAUNCH_CRUMB, 8, 1, (uint64_t[]){ P + 8 });
	for (uint64_t i = 0; i < 3; i++)
		mb_launch(m, a, i + 1, k, 2 + i, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ BUF + i * 256 });
	size_t l = mb_launch(m, a, 4, k, 6, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ BUF - 64 });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *p = attr_of(d, l, 0);
	ok(p && p->history == CI_HISTORY_LEFT && p->relation == CI_REL_BEFORE_START &&
	   p->alloc->id == 2 && p->offset == 64 && p->neighbour && p->neighbour->id == 1 &&
	   p->neighbour_offset == 65536 - 64,
	   "before start: 64 bytes before #2, inside #1 at offset 65,472");
	ok(d->faulting_launch == (ptrdiff_t)l && d->faulting_launch != (ptrdiff_t)other,
	   "before start: that launch outranks the older one in flight");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A parameter that walks over adjacent buffers (one per layer) is no pattern: no LEFT. */
static void test_history_layers(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8 };
	uint32_t mv = mb_function(m, "matvec", 1, sizes);
	const uint64_t B = 0x7f2000000000ull;
	for (uint64_t i = 0; i < 4; i++)
		mb_alloc(m, i + 1, B + i * 65536, 65536, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 3, 4);
	uint32_t b = mb_stream(m, 0xb000, true, 0, 1);
	size_t other = mb_launch(m, b, 1, mv, 1, CI_LAUNCH_CRUMB, 8, 1, (uint64_t[]){ B + 3 * 65536 + 8 });
	size_t l = 0;
	for (uint64_t i = 0; i < 4; i++)
		l = mb_launch(m, a, i + 1, mv, 2 + i, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ B + i * 65536 });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *p = attr_of(d, l, 0);
	ok(p && p->history == CI_HISTORY_NONE && p->relation == CI_REL_INSIDE && p->alloc->id == 4,
	   "layers: the 4th layer's buffer is not taken for an overrun of the 3rd");
	is_int(d->faulting_launch, (long long)other, "layers: the oldest launch in flight is named");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The earlier launches used #2 while it was live; it was freed before the in-flight launch,
 * which still passes it. */
static void test_history_freed(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8 };
	uint32_t k = mb_function(m, "embed", 1, sizes);
	uint32_t o = mb_function(m, "other", 1, sizes);
	const uint64_t T = 0x7f3000000000ull;
	mb_free(m, 2, T, 1 << 20, 6, 9);
	mb_alloc(m, 6, T + (4 << 20), 4096, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 2, 3);
	uint32_t b = mb_stream(m, 0xb000, true, 0, 1);
	mb_launch(m, a, 1, k, 3, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ T + 128 });
	mb_launch(m, a, 2, k, 4, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ T + 256 });
	size_t other = mb_launch(m, b, 1, o, 5, CI_LAUNCH_CRUMB, 8, 1, (uint64_t[]){ T + (4 << 20) });
	size_t l = mb_launch(m, a, 3, k, 7, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ T + 512 });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	const struct ci_attribution *p = attr_of(d, l, 0);
	ok(p && p->relation == CI_REL_FREED && p->history == CI_HISTORY_FREED_SINCE &&
	   p->history_launches == 2 && p->history_inside == 2 && p->history_alloc->id == 2,
	   "freed: arg 0 points into #2, freed since the 2 earlier launches used it");
	is_int(d->faulting_launch, (long long)l, "freed: that launch outranks the older one in flight");
	(void)other;
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The diagnosis of M with kernel-log TEXT (docs/KERNEL-LOG.md, "How a report uses the lines"). */
static struct ci_diagnosis *run_klog(struct ci_model *m, const char *text)
{
	struct ci_diagnosis *d = NULL;
	struct ci_evidence *ev = NULL;
	mb_finish(m);
	struct ci_error *err = ci_evidence_gather(m, &ev);
	if (!err)
		err = ci_evidence_kernel_log(ev, m, NULL, text, strlen(text), "test.log");
	if (!err)
		err = ci_diagnose(m, ev, NULL, &d);
	ci_evidence_destroy(ev);
	if (err) {
		printf("# ci_diagnose failed: %s\n", err->message);
		ci_error_destroy(err);
		abort();
	}
	dump(m, d);
	return d;
}

/* Two streams, each with one kernel in flight: k1 passes a pointer into #1, k2 into #2 (or
 * into ALLOC2 when given); #3 was freed.  Returns the two launches. */
static const char *xid_k2 = "k2"; /* k2's symbol */

static struct ci_model *xid_model(size_t *l1, size_t *l2, uint64_t arg2)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8 };
	uint32_t f1 = mb_function(m, "k1", 1, sizes), f2 = mb_function(m, xid_k2, 1, sizes);
	mb_alloc(m, 1, 0x7f1000100000ull, 65536, 1);
	mb_alloc(m, 2, 0x7f1000200000ull, 65536, 1);
	mb_free(m, 3, 0x7f1000300000ull, 65536, 4, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 0, 1), b = mb_stream(m, 0xb000, true, 0, 1);
	*l1 = mb_launch(m, a, 1, f1, 5, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ 0x7f1000100010ull });
	*l2 = mb_launch(m, b, 1, f2, 6, CI_LAUNCH_CRUMB, 7, 1,
			(uint64_t[]){ arg2 ? arg2 : 0x7f1000200010ull });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	return m;
}

#define XID31(pid, addr)                                                                     \
	"NVRM: Xid (PCI:0000:01:00): 31, pid=" pid ", name=engine, channel 0x00000009, intr "  \
	"00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_1 faulted @ " addr ". Fault is "  \
	"of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"

static void test_xid_pages(void)
{
	size_t l1, l2;
	struct ci_model *m = xid_model(&l1, &l2, 0);
	struct ci_diagnosis *d = run_klog(m, XID31("4242", "0x7f10_001ff000"));
	is_int(d->xid, 0, "xid: the line of the process is the one attributed");
	ok(d->xid_page.relation == CI_REL_BEFORE_START && d->xid_page.alloc &&
	   d->xid_page.alloc->id == 2 && d->xid_page.offset == 4096,
	   "xid: the page one page before #2 is before_start of #2 by 4,096 bytes");
	is_int(d->faulting_launch, (long long)l2, "xid: only k2 references #2: it is named");
	is_int(d->confidence, CI_CONF_EXACT, "xid: exactly one launch can have made the access: exact");
	ok(strstr(d->evidence[0].text, "one page before #2") != NULL, "xid: the evidence says 'one page before #2'");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = xid_model(&l1, &l2, 0);
	d = run_klog(m, XID31("4242", "0x0_00001000"));
	ok(d->xid == 0 && d->xid_page.alloc == NULL, "null page: attributed to nothing");
	ok(strstr(d->evidence[0].text, "the NULL page") != NULL, "null page: said so");
	is_int(d->confidence, CI_CONF_LOW, "null page: the record's own rule stands (oldest in flight, low)");
	is_int(d->faulting_launch, (long long)l1, "null page: the oldest launch in flight");
	ok(strstr(d->reasoning, "names no launch") != NULL, "null page: the reasoning says the page names no launch");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = xid_model(&l1, &l2, 0x7f1000300040ull);
	d = run_klog(m, XID31("4242", "0x7f10_00300000"));
	ok(d->xid_page.relation == CI_REL_FREED && d->xid_page.alloc && d->xid_page.alloc->id == 3,
	   "freed: the page inside the freed #3");
	ok(d->faulting_launch == (ptrdiff_t)l2 && d->confidence == CI_CONF_EXACT,
	   "freed: k2, whose pointer is into the freed #3, exact");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = xid_model(&l1, &l2, 0x7f1000100100ull);
	d = run_klog(m, XID31("4242", "0x7f10_00110000"));
	ok(d->xid_page.relation == CI_REL_PAST_END && d->xid_page.alloc->id == 1 && d->xid_page.offset == 0,
	   "several: the page right after #1");
	is_int(d->confidence, CI_CONF_MEDIUM, "several: both reference #1: medium");
	is_int(d->faulting_launch, (long long)l1, "several: the oldest of them");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = xid_model(&l1, &l2, 0);
	m->sections[CI_SEC_ALLOCS].dropped = 5;
	d = run_klog(m, XID31("4242", "0x7f10_001ff000"));
	ok(d->faulting_launch == (ptrdiff_t)l2 && d->confidence == CI_CONF_MEDIUM,
	   "lost allocations: the one referencing launch, at most medium");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	/* A page 2^44 + 4 KiB past #2's start, in no allocation: only k2's argument (#2 + 16) fits it,
	 * a power of two away; k1's (#1 + 16) is 2^44 + 1 MiB away, beyond its 64 KiB. */
	m = xid_model(&l1, &l2, 0);
	d = run_klog(m, XID31("4242", "0x8f10_00201000"));
	const struct ci_attribution *f2 = attr_of(d, l2, 0), *f1 = attr_of(d, l1, 0);
	ok(d->xid_page.alloc == NULL && d->faulting_launch == (ptrdiff_t)l2 &&
	   d->confidence == CI_CONF_MEDIUM, "2^44 away: k2 named by its argument, medium");
	ok(f2 && f2->fault_related && f2->fault_fit == CI_FIT_POWER_OF_TWO && f2->fault_pow2 == 44 &&
	   f2->fault_pow2_rest == 0x1000 - 0x10, "2^44 away: k2's arg 0 is + 2^44 + 4,080");
	ok(f1 && f1->fault_related && f1->fault_fit == CI_FIT_NONE, "2^44 away: k1's arg 0 fits not");
	ok(d->xid_fit.fault_related && d->xid_fit.launch == l2, "2^44 away: the diagnosis keeps the fit");
	ok(strstr(d->reasoning, "only this one (of 2) has an argument it fits") != NULL,
	   "2^44 away: the reasoning says so");
	ok(d->xid_below && d->xid_below->id == 2 && !d->xid_above,
	   "2^44 away: the nearest allocation below is #2, none above");
	ok(f2 && f2->element_size == 0, "2^44 away: k2 is an extern \"C\" name: no element size");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
	/* The same with k2 a C++ kernel, k2(float const*): the offset in floats too. */
	xid_k2 = "_Z2k2PKf";
	m = xid_model(&l1, &l2, 0);
	xid_k2 = "k2";
	d = run_klog(m, XID31("4242", "0x8f10_00201000"));
	f2 = attr_of(d, l2, 0);
	ok(f2 && f2->element_size == 4 && strcmp(f2->element_type, "float") == 0,
	   "k2(float const*): arg 0's elements are 4-byte floats");
	bool in_floats = false;
	for (size_t i = 0; i < d->evidence_count; i++)
		in_floats |= d->evidence[i].text &&
			     strstr(d->evidence[i].text, "= 4,398,046,512,124 float elements (2^44") != NULL;
	ok(in_floats, "... and the evidence gives the offset in them");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	/* Both arguments into #1: both fit, the page does not tell them apart; the record's own
	 * choice (k1, the oldest in flight) stays, low. */
	m = xid_model(&l1, &l2, 0x7f1000100100ull);
	d = run_klog(m, XID31("4242", "0x8f10_00100000"));
	ok(d->faulting_launch == (ptrdiff_t)l1 && d->confidence == CI_CONF_LOW,
	   "two fit: the record's choice k1 stays, low");
	ok(strstr(d->reasoning, "2 of the 2 have an argument it fits") != NULL &&
	   strstr(d->reasoning, "the one the record's own rules chose") != NULL,
	   "two fit: the reasoning says the page does not tell them apart");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	/* Far from every argument in every way: the page names no launch. */
	m = xid_model(&l1, &l2, 0);
	d = run_klog(m, XID31("4242", "0x12f45_6789a000"));
	ok(d->faulting_launch == (ptrdiff_t)l1 && d->confidence == CI_CONF_LOW && !d->xid_fit.fault_related,
	   "no fit: the oldest in flight, low");
	ok(strstr(d->reasoning, "so the page names no launch") != NULL, "no fit: said so");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	m = xid_model(&l1, &l2, 0);
	d = run_klog(m, XID31("999", "0x7f10_001ff000"));
	ok(d->xid < 0 && d->confidence == CI_CONF_LOW, "another pid: the line is not the process's");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* Every launch finished (no suspect arguments at all): the page is still attributed. */
static void test_xid_no_suspects(void)
{
	struct ci_model *m = mb_new();
	static const uint16_t sizes[] = { 8 };
	uint32_t f = mb_function(m, "k", 1, sizes);
	mb_alloc(m, 1, 0x7f1000100000ull, 65536, 1);
	uint32_t a = mb_stream(m, 0xa000, true, 1, 1);
	mb_launch(m, a, 1, f, 1, CI_LAUNCH_CRUMB, 7, 1, (uint64_t[]){ 0x7f1000100000ull });
	mb_error(m, 12, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run_klog(m, XID31("4242", "0x7f10_00110000"));
	ok(d->xid == 0 && d->xid_page.relation == CI_REL_PAST_END && d->xid_page.alloc &&
	   d->xid_page.alloc->id == 1, "no suspects: the page right after #1 is still attributed");
	is_int(d->faulting_launch, -1, "no suspects: no launch is named");
	ok(strstr(d->reasoning, "No launch that may have been in flight") != NULL,
	   "no suspects: the reasoning says no launch in flight references #1");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A copy-engine fault names the copy in flight that touches the page, not a kernel. */
static void test_xid_copy(void)
{
	size_t l1, l2;
	struct ci_model *m = xid_model(&l1, &l2, 0);
	size_t e = mb_event(m, 7, CI_EV_MEMCPY, 0x7f1000200000ull, 1, 0, 0);
	m->events[e].b = 0x5000000;
	m->events[e].value = 65536;
	mb_event(m, 8, CI_EV_MEMSET, 0x7f1000100000ull, 0, 0, 0); /* elsewhere */
	m->events[m->event_count - 1].value = 4096;
	struct ci_diagnosis *d = run_klog(m, "NVRM: Xid (PCI:0000:01:00): 31, pid=4242, name=engine, "
				      "channel 0x00000009, intr 00000000. MMU Fault: ENGINE CE0 "
				      "HUBCLIENT_CE0 faulted @ 0x7f10_00210000. Fault is of type "
				      "FAULT_PTE ACCESS_TYPE_VIRT_WRITE\n");
	is_int(d->faulting_copy, (long long)e, "copy: the copy whose destination ends at the page is named");
	is_int(d->faulting_launch, -1, "copy: no kernel is named");
	is_int(d->confidence, CI_CONF_EXACT, "copy: exactly one: exact");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A captured graph whose node 2 is a child-graph node (a memset and CHILD_KERNELS kernels inside),
 * its in-graph breadcrumb 2: nodes 0 and 1 finished.  The child graph's nodes follow its node in
 * the replay.  No breadcrumb write follows a child-graph node, so it may have finished unseen:
 * with a kernel after it (node 3, sample, TAIL_KERNEL) the child's kernel and node 3 are a
 * window; with a copy there instead, the child's kernel is the only one left unfinished. */
static struct ci_model *child_graph_model(uint32_t child_kernels, bool tail_kernel, size_t *gl)
{
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	uint32_t fa = mb_function(m, "embed", 0, NULL), fb = mb_function(m, "norm", 0, NULL);
	uint32_t fc = mb_function(m, "attention", 0, NULL), fd = mb_function(m, "sample", 0, NULL);
	uint32_t s = mb_stream(m, 0xa000, true, 0, 1);
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_CAPTURED, 4, true, 2);
	uint32_t c = mb_graph(m, 0x6100, CI_GRAPH_CHILD, 1 + child_kernels, false, 0);
	mb_graph_node(m, g, 0, CI_NODE_KERNEL, fa, 0, s, 1)->flags = CI_NODE_CRUMB;
	mb_graph_node(m, g, 1, CI_NODE_KERNEL, fb, 0, s, 1)->flags = CI_NODE_CRUMB;
	mb_graph_node(m, g, 2, CI_NODE_CHILD_GRAPH, CI_NONE, 0x6100, s, 1);
	if (tail_kernel)
		mb_graph_node(m, g, 3, CI_NODE_KERNEL, fd, 0, s, 1)->flags = CI_NODE_CRUMB;
	else
		mb_graph_node(m, g, 3, CI_NODE_MEMCPY, CI_NONE, 0xe000, s, 1);
	mb_graph_node(m, c, 0, CI_NODE_MEMSET, CI_NONE, 0xd000, CI_NONE, 1);
	for (uint32_t k = 0; k < child_kernels; k++)
		mb_graph_node(m, c, 1 + k, CI_NODE_KERNEL, fc, 0, CI_NONE, 1);
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	*gl = mb_graph_launch(m, s, 1, x, 1, 5, CI_LAUNCH_CRUMB, 7);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	return m;
}

static void test_child_graph(bool format_15)
{
	size_t gl;
	struct ci_model *m = child_graph_model(1, false, &gl);
	if (format_15) {
		mb_format_15(m);
		printf("# format 1.5: the graph launch's exec and replay from its launch entry\n");
	}
	struct ci_diagnosis *d = run(m, NULL);
	ok(d->graph && d->graph->exec == 0 && d->graph->replay == 1, "child graph: exec 0, replay 1");
	is_int(d->faulting_launch, (long long)gl, "child graph: the graph launch faulted");
	ok(d->graph && d->graph->graph_nodes == 4 && d->graph->node_count == 6,
	   "child graph: 4 nodes of the graph, the child's 2 after them");
	ok(d->graph && d->graph->kernel_count == 3, "child graph: 3 kernels, the child's counted");
	char name[64] = "";
	if (d->graph && d->graph->faulting_node >= 0)
		ci_graph_replay_node_name(d->graph, (size_t)d->graph->faulting_node, name, sizeof name);
	is_str(name, "2.1", "child graph: the child's kernel (node 1 of child-graph node 2) faulted");
	ok(d->graph && d->graph->nodes[5].state == CI_LS_IN_FLIGHT && d->graph->crumb_unfinished == 1,
	   "child graph: the child's kernel is the only one left unfinished, in flight");
	ok(d->graph && d->graph->nodes[1].state == CI_LS_FINISHED, "child graph: node 1 finished (breadcrumb 2)");
	uint32_t kf = d->graph ? d->graph->kernel.function : CI_NONE;
	is_str(kf < m->function_count ? m->strings + m->functions[kf].name_str : "", "attention",
	       "child graph: the faulting launch is the child's attention kernel");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	/* A kernel after the child-graph node: the child may have finished unseen and node 3 been
	 * running (its breadcrumb not yet written), so the two are a window and neither is named
	 * without a bad pointer.  (A reader that took the child for a kernel with a breadcrumb said
	 * node 3 had not started and named the child's kernel.) */
	m = child_graph_model(1, true, &gl);
	d = run(m, NULL);
	ok(d->graph && d->graph->kernel_count == 4 && d->graph->nodes[3].state == CI_LS_UNKNOWN &&
		   d->graph->nodes[5].state == CI_LS_UNKNOWN && d->graph->crumb_unfinished == 2,
	   "child graph then a kernel: both are a window, finished or not");
	ok(d->graph && d->graph->faulting_node < 0, "child graph then a kernel: no node named without a bad pointer");
	ok(d->graph && d->graph->nodes[0].state == CI_LS_FINISHED && d->graph->nodes[1].state == CI_LS_FINISHED,
	   "child graph then a kernel: nodes 0 and 1 finished");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);

	/* Two kernels in the child: the breadcrumb cannot say which ran, and neither is named. */
	m = child_graph_model(2, false, &gl);
	d = run(m, NULL);
	ok(d->graph && d->graph->node_count == 7 && d->graph->nodes[5].state == CI_LS_UNKNOWN &&
		   d->graph->nodes[6].state == CI_LS_UNKNOWN,
	   "child graph with 2 kernels running: their states are unknown");
	ok(d->graph && d->graph->faulting_node < 0, "child graph with 2 kernels: no node named without a bad pointer");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* The in-graph breadcrumb against replays played out: random captures (kernels on up to 3
 * streams, forks and joins by event record and wait, a breadcrumb write after every K-th
 * kernel) run node by node in a random order that respects the capture's dependencies, with
 * each write a step of its own after its kernel and before what depends on it, until a ready
 * kernel is chosen to fault; the slot holds the last write (0 before any).  Whatever the order,
 * the faulting kernel must be among the nodes the reader leaves unfinished, a node it says
 * finished must have finished, one it says had not started must not have, and a node it names
 * must be the faulting one.  (Taking every marked kernel for one that holds back what follows
 * it failed this on parallel branches: one may finish and write before the write the slot
 * keeps.) */
static uint64_t prop_rand(uint64_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return *x;
}

static void test_graph_crumb_played(void)
{
	enum { MAXN = 40, RUNS = 3000 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t bad_cand = 0, bad_fin = 0, bad_ns = 0, bad_pick = 0, runs = 0, exact = 0, windows = 0;
	for (int run = 0; run < RUNS; run++) {
		unsigned nstreams = 1 + (unsigned)(prop_rand(&rng) % 3), every = 1 + (unsigned)(prop_rand(&rng) % 3);
		unsigned n = 0, kernels = 0;
		uint32_t type[MAXN], lane[MAXN];
		uint64_t event[MAXN];
		size_t dep[MAXN][2];
		bool crumbed[MAXN];
		size_t last_on[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
		unsigned want = 4 + (unsigned)(prop_rand(&rng) % 20);
		while (n + 2 <= want) {
			unsigned a = (unsigned)(prop_rand(&rng) % nstreams), b = (unsigned)(prop_rand(&rng) % nstreams);
			if (nstreams > 1 && a != b && prop_rand(&rng) % 4 == 0) { /* a fork or join: a on b */
				uint64_t ev = 0xe000 + n;
				type[n] = CI_NODE_EVENT_RECORD, lane[n] = a, event[n] = ev, crumbed[n] = false;
				dep[n][0] = last_on[a], dep[n][1] = SIZE_MAX, last_on[a] = n, n++;
				type[n] = CI_NODE_EVENT_WAIT, lane[n] = b, event[n] = ev, crumbed[n] = false;
				dep[n][0] = last_on[b], dep[n][1] = n - 1, last_on[b] = n, n++;
			} else {
				type[n] = CI_NODE_KERNEL, lane[n] = a, event[n] = 0;
				crumbed[n] = ++kernels % every == 0;
				dep[n][0] = last_on[a], dep[n][1] = SIZE_MAX, last_on[a] = n, n++;
			}
		}
		/* Play it: a node is ready when its dependencies finished and, for a marked kernel,
		 * wrote; each step finishes a ready node or writes for a finished marked kernel. */
		bool fin[MAXN] = { false }, wrote[MAXN] = { false };
		uint64_t crumb = 0;
		size_t fault = SIZE_MAX;
		for (;;) {
			size_t ready[2 * MAXN], nr = 0, rk[MAXN], nk = 0;
			for (size_t i = 0; i < n; i++) {
				bool ok_deps = true;
				for (int k = 0; k < 2; k++) {
					size_t d = dep[i][k];
					if (d != SIZE_MAX && (!fin[d] || (crumbed[d] && !wrote[d])))
						ok_deps = false;
				}
				if (!fin[i] && ok_deps) {
					ready[nr++] = i;
					if (type[i] == CI_NODE_KERNEL)
						rk[nk++] = i;
				}
				if (fin[i] && crumbed[i] && !wrote[i])
					ready[nr++] = MAXN + i;
			}
			if (nk && (nr == nk || prop_rand(&rng) % 5 == 0)) {
				fault = rk[prop_rand(&rng) % nk];
				break;
			}
			if (!nr)
				break;
			size_t pick = ready[prop_rand(&rng) % nr];
			if (pick >= MAXN) {
				wrote[pick - MAXN] = true;
				crumb = pick - MAXN + 1;
			} else {
				fin[pick] = true;
			}
		}
		if (fault == SIZE_MAX)
			continue;
		runs++;
		struct ci_model *m = mb_new();
		mb_device(m, "NVIDIA H200");
		uint32_t fn = mb_function(m, "k", 0, NULL), sl[3];
		for (unsigned k = 0; k < nstreams; k++)
			sl[k] = mb_stream(m, 0xa000 + k, false, 0, 1);
		uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_CAPTURED, n, true, crumb);
		for (size_t i = 0; i < n; i++)
			mb_graph_node(m, g, (uint32_t)i, type[i], type[i] == CI_NODE_KERNEL ? fn : CI_NONE, event[i],
				      sl[lane[i]], 1)->flags = crumbed[i] ? CI_NODE_CRUMB : 0;
		uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
		size_t gl = mb_graph_launch(m, sl[0], 1, x, 1, 5, 0, 7);
		struct ci_graph_replay r;
		if (!ci_graph_replay_expand(m, gl, CI_LS_IN_FLIGHT, &r) || !r.crumb) {
			bad_cand++;
			ci_model_destroy(m);
			continue;
		}
		bad_cand += !ci_graph_replay_unfinished(&r, fault);
		for (size_t i = 0; i < n; i++) {
			bad_fin += r.nodes[i].state == CI_LS_FINISHED && !fin[i];
			bad_ns += r.nodes[i].state == CI_LS_NOT_STARTED && (fin[i] || i == fault);
		}
		bad_pick += r.faulting_node >= 0 && (size_t)r.faulting_node != fault;
		exact += r.faulting_node >= 0;
		windows += r.crumb_unfinished > 1;
		ci_graph_replay_deinit(&r);
		ci_model_destroy(m);
	}
	printf("# %zu replays played out: the faulting node named in %zu, a window or branches left in %zu\n",
	       runs, exact, windows);
	ok(runs > RUNS / 2, "played replays: most of them faulted (%zu of %d)", runs, RUNS);
	is_int((long long)bad_cand, 0, "played replays: the faulting kernel is always among those left unfinished");
	is_int((long long)bad_fin, 0, "played replays: a node said finished always finished");
	is_int((long long)bad_ns, 0, "played replays: a node said not started never started");
	is_int((long long)bad_pick, 0, "played replays: a node named is always the faulting one");
	ok(exact > 0 && windows > 0, "played replays: some name the node, some leave a window");
}

/* The in-graph breadcrumb of a replay whose stream cannot say how far it got (no breadcrumbs of
 * its own) is its own unless a later replay of the same graph may have written it: replays 1
 * and 2 of one exec, the graph's breadcrumb 1 (node 0 finished).  Replay 2 takes it; replay 1
 * does not.  Both formats: a graph-launch ring (1.4) and graph launches in the launch ring (1.5). */
static void test_later_replay(bool format_15)
{
	const char *f = format_15 ? "1.5" : "1.4";
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	uint32_t fa = mb_function(m, "embed", 0, NULL), fb = mb_function(m, "norm", 0, NULL);
	uint32_t s = mb_stream(m, 0xa000, false, 0, 2);
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_CAPTURED, 2, true, 1);
	mb_graph_node(m, g, 0, CI_NODE_KERNEL, fa, 0, s, 1)->flags = CI_NODE_CRUMB;
	mb_graph_node(m, g, 1, CI_NODE_KERNEL, fb, 0, s, 1)->flags = CI_NODE_CRUMB;
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	size_t l1 = mb_graph_launch(m, s, 1, x, 1, 5, 0, 7);
	size_t l2 = mb_graph_launch(m, s, 2, x, 2, 6, 0, 7);
	if (format_15)
		mb_format_15(m);
	struct ci_graph_replay r;
	ok(ci_graph_replay_expand(m, l1, CI_LS_UNKNOWN, &r) && !r.crumb && r.replay == 1,
	   "format %s: replay 1, followed by replay 2, does not take the graph's breadcrumb", f);
	ci_graph_replay_deinit(&r);
	ok(ci_graph_replay_expand(m, l2, CI_LS_UNKNOWN, &r) && r.crumb && r.crumb_value == 1 &&
		   r.replay == 2 && r.nodes[0].state == CI_LS_FINISHED,
	   "format %s: replay 2, the last, does: node 0 finished", f);
	ci_graph_replay_deinit(&r);
	ci_model_destroy(m);
}

/* cuGraphExecChildGraphNodeSetParams as the recorder keeps it: a built graph (an empty node, a
 * child-graph node embedding 0x6100, whose kernel is norm) instantiated at 2 ms and replayed at
 * 3 ms; at 4 ms the exec's child node was set to run graph 0x6200 (its own node: attention), so
 * the recorder made a graph of origin child with that handle, a copy of 0x6200's nodes then,
 * and an exec version of the node naming it; the replay at 5 ms faulted.  Later, at 7 ms,
 * another copy of 0x6200 (sample) was made for another update: after the launch, not its. */
static void test_exec_child_update(void)
{
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	uint32_t fb = mb_function(m, "norm", 0, NULL), fc = mb_function(m, "attention", 0, NULL);
	uint32_t fd = mb_function(m, "sample", 0, NULL);
	uint32_t s = mb_stream(m, 0xa000, true, 1, 2); /* its breadcrumb: replay 1 finished */
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_BUILT, 2, false, 0);
	uint32_t c1 = mb_graph(m, 0x6100, CI_GRAPH_CHILD, 1, false, 0);
	uint32_t g2 = mb_graph(m, 0x6200, CI_GRAPH_BUILT, 1, false, 0);
	mb_graph_node(m, g, 0, CI_NODE_EMPTY, CI_NONE, 0, CI_NONE, 1);
	uint64_t child_node = mb_graph_node(m, g, 1, CI_NODE_CHILD_GRAPH, CI_NONE, 0x6100, CI_NONE, 1)->handle;
	mb_graph_node(m, c1, 0, CI_NODE_KERNEL, fb, 0, CI_NONE, 1);
	mb_graph_node(m, g2, 0, CI_NODE_KERNEL, fc, 0, CI_NONE, 1);
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	size_t l1 = mb_graph_launch(m, s, 1, x, 1, 3, CI_LAUNCH_CRUMB, 7);
	uint32_t c2 = mb_graph(m, 0x6200, CI_GRAPH_CHILD, 1, false, 0);
	m->graphs[c2].create_ns = MB_T0 + 4 * MB_MS;
	mb_graph_node(m, c2, 0, CI_NODE_KERNEL, fc, 0, CI_NONE, 4);
	struct ci_graph_node *up = mb_graph_node(m, g, 1, CI_NODE_CHILD_GRAPH, CI_NONE, 0x6200, CI_NONE, 4);
	up->exec = x, up->flags = CI_NODE_UPDATE, up->handle = child_node;
	size_t l2 = mb_graph_launch(m, s, 2, x, 2, 5, CI_LAUNCH_CRUMB, 7);
	uint32_t c3 = mb_graph(m, 0x6200, CI_GRAPH_CHILD, 1, false, 0);
	m->graphs[c3].create_ns = MB_T0 + 7 * MB_MS;
	mb_graph_node(m, c3, 0, CI_NODE_KERNEL, fd, 0, CI_NONE, 7);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);

	struct ci_graph_replay r;
	ok(ci_graph_replay_expand(m, l1, CI_LS_FINISHED, &r) && r.node_count == 3 && r.nodes[2].node &&
		   r.nodes[2].node->function == fb,
	   "exec child update: the replay before it ran the embedded child's kernel (norm)");
	ci_graph_replay_deinit(&r);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->faulting_launch, (long long)l2, "exec child update: the replay after it faulted");
	char name[64] = "";
	if (d->graph && d->graph->faulting_node >= 0)
		ci_graph_replay_node_name(d->graph, (size_t)d->graph->faulting_node, name, sizeof name);
	is_str(name, "1.0", "exec child update: the faulting node is node 0 of child-graph node 1");
	uint32_t kf = d->graph ? d->graph->kernel.function : CI_NONE;
	is_str(kf < m->function_count ? m->strings + m->functions[kf].name_str : "", "attention",
	       "exec child update: it is the kernel of the graph the update gave, copied at the update");
	ok(d->graph && d->graph->node_count == 3 && d->graph->kernel_count == 1,
	   "exec child update: one child's nodes expanded, not the later copy's");
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

/* A conditional node's bodies as the recorder keeps them: a built graph (embed, an IF with an
 * else body, sample) replayed without breadcrumbs of its own, in flight when the context died;
 * the then body's kernel (attention) passes a pointer past its allocation.  The bodies' nodes
 * follow the conditional node, named by body ("1.0.0", "1.1.0"), their states unknown (the
 * device chose the body); the bad-pointer rule names the then body's kernel. */
static void test_conditional_bodies(void)
{
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	static const uint16_t sizes[] = { 8, 4 };
	uint32_t fa = mb_function(m, "embed", 2, sizes), fc = mb_function(m, "attention", 2, sizes);
	uint32_t fb = mb_function(m, "norm", 2, sizes), fd = mb_function(m, "sample", 2, sizes);
	const uint64_t A = 0x7f4000000000ull;
	mb_alloc(m, 1, A, 0x10000, 7);
	uint64_t ok_p[] = { A + 0x100, 1 }, bad_p[] = { A + 0x10000 + 0x40, 1 };
	uint32_t s = mb_stream(m, 0xa000, true, 0, 1);
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_BUILT, 3, false, 0);
	uint32_t b0 = mb_graph(m, 0x6300, CI_GRAPH_BODY, 1, false, 0);
	uint32_t b1 = mb_graph(m, 0x6310, CI_GRAPH_BODY, 1, false, 0);
	struct ci_graph_node *e[5];
	size_t first = m->graph_node_count; /* the five below, in order (the table moves as it grows) */
	e[0] = mb_graph_node(m, g, 0, CI_NODE_KERNEL, fa, 0, CI_NONE, 1);
	e[1] = mb_graph_node(m, g, 1, CI_NODE_CONDITIONAL, CI_NONE, 0x6300, CI_NONE, 1);
	e[1]->b = 2, e[1]->bytes = 0; /* two bodies, IF */
	e[2] = mb_graph_node(m, g, 2, CI_NODE_KERNEL, fd, 0, CI_NONE, 1);
	e[3] = mb_graph_node(m, b0, 0, CI_NODE_KERNEL, fc, 0, CI_NONE, 1);
	e[4] = mb_graph_node(m, b1, 0, CI_NODE_KERNEL, fb, 0, CI_NONE, 1);
	for (int i = 0; i < 5; i++) {
		e[i] = &m->graph_nodes[first + (size_t)i];
		if (i == 1)
			continue;
		memcpy(e[i]->params, i == 3 ? bad_p : ok_p, 12);
		e[i]->param_len = 12;
	}
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	size_t gl = mb_graph_launch(m, s, 1, x, 1, 5, CI_LAUNCH_CRUMB, 7);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	is_int(d->faulting_launch, (long long)gl, "conditional: the graph launch faulted");
	ok(d->graph && d->graph->graph_nodes == 3 && d->graph->node_count == 5 && d->graph->kernel_count == 4,
	   "conditional: 3 nodes of the graph, one of each body after them; 4 kernels");
	char name[64] = "", other[64] = "";
	if (d->graph && d->graph->faulting_node >= 0)
		ci_graph_replay_node_name(d->graph, (size_t)d->graph->faulting_node, name, sizeof name);
	is_str(name, "1.0.0", "conditional: the faulting node is node 0 of body 0 of conditional node 1");
	uint32_t kf = d->graph ? d->graph->kernel.function : CI_NONE;
	is_str(kf < m->function_count ? m->strings + m->functions[kf].name_str : "", "attention",
	       "conditional: named by the bad-pointer rule: the then body's attention kernel");
	if (d->graph && d->graph->node_count == 5)
		ci_graph_replay_node_name(d->graph, 4, other, sizeof other);
	is_str(other, "1.1.0", "conditional: the else body's node is 1.1.0");
	ok(d->graph && d->graph->node_count == 5 && d->graph->nodes[3].state == CI_LS_UNKNOWN &&
		   d->graph->nodes[4].state == CI_LS_UNKNOWN,
	   "conditional: the bodies' states are unknown (the device chose)");
	ci_diagnosis_destroy(d);

	/* Hostile: 2^40 bodies claimed, and body 0 holding a conditional node on itself. */
	e[1]->b = 1ull << 40;
	mb_graph_node(m, b0, 0, CI_NODE_CONDITIONAL, CI_NONE, 0x6300, CI_NONE, 1)->b = 1ull << 40;
	struct ci_graph_replay r;
	ok(ci_graph_replay_expand(m, gl, CI_LS_IN_FLIGHT, &r) && r.children_cut && r.node_count <= 65536,
	   "conditional, hostile: bodies and nesting cut at the limits (%zu nodes)", r.node_count);
	ci_graph_replay_deinit(&r);
	ci_model_destroy(m);
}

/* A hostile record: a child graph that contains itself (BIG false), or one that claims 4
 * billion nodes (BIG true). */
static void test_child_graph_hostile(bool big)
{
	const char *what = big ? "a child graph of 4 billion nodes" : "a child graph containing itself";
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	uint32_t fn = mb_function(m, "k", 0, NULL);
	uint32_t s = mb_stream(m, 0xa000, false, 0, 1);
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_BUILT, 1, false, 0);
	uint32_t c = mb_graph(m, 0x6100, CI_GRAPH_CHILD, big ? 0xffffffffu : 2, false, 0);
	mb_graph_node(m, g, 0, CI_NODE_CHILD_GRAPH, CI_NONE, 0x6100, CI_NONE, 1);
	mb_graph_node(m, c, big ? 7 : 0, CI_NODE_CHILD_GRAPH, CI_NONE, 0x6100, CI_NONE, 1);
	mb_graph_node(m, c, big ? 70000 : 1, CI_NODE_KERNEL, fn, 0, CI_NONE, 1);
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	size_t gl = mb_graph_launch(m, s, 1, x, 1, 5, 0, 7);
	mb_error(m, 10, STICKY, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	struct ci_diagnosis *d = run(m, NULL);
	struct ci_graph_replay r;
	ok(ci_graph_replay_expand(m, gl, CI_LS_IN_FLIGHT, &r), "%s: the replay expands", what);
	ok(r.children_cut, "%s: the limits cut the expansion, and say so", what);
	ok(r.node_count <= 65536, "%s: at most 65,536 nodes (%zu)", what, r.node_count);
	size_t deepest = 0;
	for (size_t i = 0; i < r.node_count; i++) {
		size_t depth = 0;
		for (ptrdiff_t p = r.nodes[i].parent; p >= 0; p = r.nodes[p].parent)
			depth++;
		if (depth > deepest)
			deepest = depth;
	}
	if (big) {
		is_int(r.node_count, 65536, "a child graph of 4 billion nodes: cut at 65,536");
	} else {
		is_int(deepest, 8, "a child graph containing itself: stops 8 levels down");
		is_int(r.kernel_count, 8, "a child graph containing itself: its kernel once per level");
	}
	char name[64];
	ok(strlen(ci_graph_replay_node_name(&r, r.node_count - 1, name, sizeof name)) > 0,
	   "%s: the last node has a name (%s)", what, name);
	ok(d->faulting_launch == (ptrdiff_t)gl, "%s: the diagnosis completes", what);
	ci_graph_replay_deinit(&r);
	ci_diagnosis_destroy(d);
	ci_model_destroy(m);
}

int main(void)
{
	test_xid_pages();
	test_xid_copy();
	test_xid_no_suspects();
	test_history_neighbour();
	test_history_layers();
	test_history_before_start();
	test_history_freed_neighbour();
	test_history_freed();
	test_single_stream();
	test_cadence_window();
	test_two_streams_bad_pointer();
	test_two_streams_oldest();
	test_no_breadcrumbs();
	test_crumb32();
	test_api_error();
	test_pending();
	test_attribution_relations();
	test_reused_address();
	test_signal();
	test_failed_in_sequence();
	test_open_window_event_sync();
	test_open_window_ctx_sync();
	test_counts_by_number();
	test_losses_cap();
	test_failed_launch_far();
	test_container_far_back();
	test_incomplete();
	test_child_graph(false);
	test_child_graph(true);
	test_later_replay(false);
	test_later_replay(true);
	test_graph_crumb_played();
	test_exec_child_update();
	test_conditional_bodies();
	test_child_graph_hostile(false);
	test_child_graph_hostile(true);
	printf("1..%d\n", tap_n);
	return done_testing();
}
