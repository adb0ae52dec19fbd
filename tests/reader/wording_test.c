/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis's words, finding by finding (corefile/diagnose/wording.c): each kind of finding
 * a rule family returns, with its facts, is worded as the exact sentence below; consecutive
 * losses make one sentence; the driver's word turns the reasoning before it into an evidence
 * item of kind "rule".  The findings are made by hand here; diagnose_test.c checks which
 * findings the families return for a record.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/tap.h"
#include "diagnose/diagnose.h"
#include "model.h"

/* Whether S ends with END. */
static void like_end(const char *s, const char *end, const char *name)
{
	size_t n = s ? strlen(s) : 0, k = strlen(end);
	if (!ok(n >= k && strcmp(s + n - k, end) == 0, "%s", name))
		printf("# got '%s', want it to end with '%s'\n", s ? s : "(null)", end);
}

struct words {
	char *why;
	struct ci_evidence_item *items;
	size_t n;
};

static void words_free(struct words *w)
{
	free(w->why);
	for (size_t i = 0; i < w->n; i++)
		free(w->items[i].text);
	free(w->items);
}

static struct words word(const struct ci_model *m, const struct ci_diagnosis *d,
			 const struct ci_finding *f, size_t n)
{
	static const struct ci_evidence no_evidence;
	static const struct ci_diagnosis no_diagnosis;
	struct words w = { 0 };
	if (ci_findings_word(m, &no_evidence, d ? d : &no_diagnosis, f, n, &w.why, &w.items, &w.n)) {
		printf("# ci_findings_word failed\n");
		abort();
	}
	return w;
}

static struct ci_finding finding(enum ci_finding_id id)
{
	return (struct ci_finding){ .id = id, .launch = -1, .event = -1, .error = -1, .xid = -1,
				    .node = -1 };
}

/* One finding worded into the reasoning. */
static void why_is(const struct ci_model *m, struct ci_finding f, const char *want, const char *name)
{
	struct words w = word(m, NULL, &f, 1);
	is_str(w.why, want, name);
	is_int(w.n, 0, "... and no evidence item");
	words_free(&w);
}

static void test_table(void)
{
	bool unique = true, named = true;
	for (int i = 0; i < CI_FINDING_COUNT; i++) {
		named &= strcmp(ci_finding_word((enum ci_finding_id)i), "unknown") != 0;
		for (int j = 0; j < i; j++)
			unique &= strcmp(ci_finding_word((enum ci_finding_id)i),
					 ci_finding_word((enum ci_finding_id)j)) != 0;
	}
	ok(named && unique, "every finding id has a word of its own");
	is_str(ci_finding_word(CI_F_BY_BAD_POINTER), "by_bad_pointer", "the word of by_bad_pointer");
	is_int(ci_finding_worded(CI_F_XID_PAGE), CI_EVK_XID_PAGE, "xid_page becomes an xid_page item");
	is_int(ci_finding_worded(CI_F_ONLY_IN_FLIGHT), CI_WORDED_WHY, "only_in_flight is reasoning");
}

static void test_faulting(const struct ci_model *m)
{
	struct ci_finding f = finding(CI_F_ONLY_IN_FLIGHT);
	f.value = 41;
	why_is(m, f, "Rule: the only launch in flight. Its stream's breadcrumb reads 41: every launch "
		     "up to that one finished, and the breadcrumb enqueued right after this one never "
		     "arrived. No other stream has work in flight.", "only_in_flight");
	struct ci_finding two[2] = { f, finding(CI_F_OPEN_UNPLACED) };
	two[1].count = 3;
	struct words w = word(m, NULL, two, 2);
	like_end(w.why, " (3 launches on streams without breadcrumbs cannot be placed.)",
		 "open_unplaced follows the rule");
	words_free(&w);
	why_is(m, finding(CI_F_ALL_FINISHED),
	       "Every recorded launch finished according to the breadcrumbs, so no launch can be "
	       "named: the fault may come from a memory operation, a graph, or launches the "
	       "recorder did not see.", "all_finished");

	f = finding(CI_F_BY_HISTORY);
	f.count = 1;
	f.total = 4;
	why_is(m, f, "Rule: argument history. 4 launches were in flight; only this one passes a "
		     "pointer outside the allocation its kernel used before.",
	       "by_argument_history, one");
	f.count = 2;
	f.flags = CI_FINDING_WINDOWS;
	why_is(m, f, "Rule: argument history, the oldest. 4 launches may have been in flight; 2 of "
		     "them pass a pointer outside the allocation their kernel used before, and this is "
		     "the oldest of those.", "by_argument_history, several, windows");
	f = finding(CI_F_BY_BAD_POINTER);
	f.count = 1;
	f.total = 1;
	why_is(m, f, "Rule: the only suspect with a bad pointer. 1 launch were in flight; only this "
		     "one passes a pointer outside every live allocation.", "by_bad_pointer, one");
	f.count = 3;
	f.total = 5;
	f.streams = 1;
	f.flags = CI_FINDING_OPEN_ONLY;
	why_is(m, f, "Rule: the oldest suspect with a bad pointer. Breadcrumbs are off, so every "
		     "launch made since its stream's last successful synchronization (at most the "
		     "newest 128 of a stream) may be the one: 5 launches on 1 stream; 3 of them pass "
		     "pointers outside every live allocation, and this is the oldest of those.",
	       "by_bad_pointer, several, open windows");
	f = finding(CI_F_OPEN_OLDEST);
	f.total = 2;
	f.streams = 2;
	f.flags = CI_FINDING_OPEN_ONLY;
	why_is(m, f, "Rule: no suspect passes a bad pointer. Breadcrumbs are off, so every launch "
		     "made since its stream's last successful synchronization (at most the newest 128 "
		     "of a stream) may be the one: 2 launches on 2 streams; this is the oldest launch "
		     "made since its stream's last synchronization (the newest, where there was none), "
		     "but any of them may be the one.", "open_oldest");
	f = finding(CI_F_OLDEST_IN_FLIGHT);
	f.total = 2;
	why_is(m, f, "Rule: the oldest launch in flight. 2 launches were in flight and none passes a "
		     "pointer outside the live allocations; this is the oldest, but any of them may be "
		     "the one.", "oldest_in_flight");
	/* A range of one stream's launches (breadcrumbs spent within a budget). */
	f = finding(CI_F_BY_BAD_POINTER);
	f.total = 20;
	f.count = 1;
	f.streams = 1;
	f.flags = CI_FINDING_WINDOWS;
	f.first = 91;
	f.last = 110;
	f.value = 90;
	why_is(m, f, "Rule: the only suspect with a bad pointer. Launches 91-110 of its stream (20 "
		     "here) may or may not have run; 90 had finished (its breadcrumb); only this one "
		     "passes a pointer outside every live allocation.", "by_bad_pointer, one stream's range");
	f.flags |= CI_FINDING_SYNCED;
	f.first = f.last = 105;
	f.total = 1;
	f.value = 104;
	why_is(m, f, "Rule: the only suspect with a bad pointer. Launch 105 of its stream may or may "
		     "not have run; 104 had finished (its last synchronization); only this one passes a "
		     "pointer outside every live allocation.", "by_bad_pointer, one launch, by a synchronization");
}

static void test_xid_others(const struct ci_model *m)
{
	struct ci_finding f = finding(CI_F_XID_OTHERS);
	f.count = 2;
	f.total = 1;
	f.value = 3;
	why_is(m, f, " The log also holds 6 Xid lines of other processes of the same name, not used: 2 "
		     "of another pid, where the process's own pid is in the log; 1 stamped before the "
		     "process started; 3 farther from its first sticky error than the one taken.",
	       "xid_others");
	f.count = 0;
	f.value = 0;
	why_is(m, f, " The log also holds 1 Xid line of other processes of the same name, not used: 1 "
		     "stamped before the process started.", "xid_others, one reason");
}

static void test_losses(const struct ci_model *m)
{
	struct ci_finding f[3] = { finding(CI_F_RECORD_LOST), finding(CI_F_RECORD_LOST),
				   finding(CI_F_CONFIDENCE_CAPPED) };
	f[0].section = CI_SEC_ALLOCS;
	f[0].count = 1200;
	f[0].flags = CI_FINDING_DROPPED;
	f[1].section = CI_SEC_LAUNCHES;
	f[1].count = 5;
	f[1].flags = CI_FINDING_DROPPED;
	f[2].strength = CI_CONF_LOW;
	struct words w = word(m, NULL, f, 3);
	is_str(w.why, " The record is incomplete: 1,200 allocations were not recorded (the table was "
		      "full); 5 launches were not recorded (the ring was contended), so the confidence "
		      "is at most low.", "two losses and the cap: one sentence");
	words_free(&w);
	f[0].flags = 0;
	w = word(m, NULL, f, 1);
	is_str(w.why, " The record is incomplete: 1,200 allocations were not recorded (not in the "
		      "input).", "a loss without a cap ends the sentence");
	words_free(&w);
	why_is(m, finding(CI_F_RECORD_TRUNCATED),
	       " The record is incomplete: the recorder says some table was full.", "record_truncated");
}

static void test_verdicts(const struct ci_model *m, size_t error)
{
	struct ci_finding f = finding(CI_F_API_ERROR);
	f.error = (ptrdiff_t)error;
	why_is(m, f, "No device fault was recorded (no sticky error). The last error is "
		     "CUDA_ERROR_INVALID_VALUE from cuMemcpyHtoD_v2.", "api_error");
	f = finding(CI_F_RECORD_MISSING);
	f.value = 1 << 20;
	f.total = 32 << 20;
	why_is(m, f, "Most of the record is not in the input (1.0 MiB of its 32.0 MiB): the launches "
		     "and errors that would show a failure are missing, so nothing can be said about "
		     "what the GPU was doing. Read a complete core or record file.", "record_missing");
	why_is(m, finding(CI_F_NO_FAILURE), "No CUDA error was recorded and no launch is in flight.",
	       "no_failure");
}

/* The driver's word: what the reasoning said becomes a "rule" item; the launch it names is an
 * item of its own. */
static void test_supersede(const struct ci_model *m, size_t launch, const struct ci_alloc *a)
{
	struct ci_finding f[3] = { finding(CI_F_OLDEST_IN_FLIGHT), finding(CI_F_BY_FAULT_ADDRESS),
				   finding(CI_F_LAUNCH_TOUCHES_PAGE) };
	f[0].total = 2;
	f[1].launch = f[2].launch = (ptrdiff_t)launch;
	f[1].alloc = f[2].alloc = a;
	f[1].count = 1;
	f[1].total = 2;
	f[1].flags = f[2].flags = CI_FINDING_EXACT;
	f[2].decisive = true;
	struct words w = word(m, NULL, f, 3);
	is_str(w.why, "Rule: the driver's fault address. Of the 2 launches that may have been in "
		      "flight, only this one points into or next to #7, where the page lies.",
	       "by_fault_address, exact");
	is_int(w.n, 2, "two evidence items");
	if (w.n == 2) {
		is_int(w.items[0].kind, CI_EVK_RULE, "the record's rule became an item");
		is_str(w.items[0].rule, "record", "... of rule 'record'");
		like_end(w.items[0].text, "but any of them may be the one.", "... with what it said");
		is_int(w.items[1].kind, CI_EVK_XID_LAUNCH, "the launch that touches the page");
		is_str(w.items[1].text, "only attn (launch 2 on stream 0x1000) passes a pointer into or "
					"next to #7", "launch_touches_page");
		is_str(w.items[1].rule, "exact", "... rule exact");
		ok(w.items[1].decisive && w.items[1].launch == (ptrdiff_t)launch && w.items[1].alloc == a,
		   "... decisive, with its launch and allocation");
	}
	words_free(&w);
	f[1].flags = CI_FINDING_KEPT;
	f[1].count = 2;
	w = word(m, NULL, &f[1], 1);
	is_str(w.why, "Rule: the driver's fault address. 2 of the launches that may have been in "
		      "flight pass a pointer into or next to #7, where the faulting page lies; this is "
		      "the one the record's own rules chose.", "by_fault_address, several");
	words_free(&w);
	f[1].flags = 0;
	f[1].count = 1;
	w = word(m, NULL, &f[1], 1);
	is_str(w.why, "Rule: the driver's fault address. Only this launch points into or next to #7, "
		      "where the page lies, but the record lost allocations or launches, so the "
		      "confidence is at most medium.", "by_fault_address, lost");
	words_free(&w);
	struct ci_finding c = finding(CI_F_BY_COPY_ENGINE);
	c.count = 3;
	why_is(m, c, "Rule: the driver's fault address. The Xid 31 comes from a copy engine, so a copy "
		     "or set made the access, not a kernel; 3 recorded copies or sets in flight touch "
		     "the page, and this is the oldest.", "by_copy_engine");
}

static void test_history(const struct ci_model *m, size_t launch, const struct ci_alloc *a,
			 const struct ci_alloc *b)
{
	struct ci_finding f = finding(CI_F_ARG_LEFT_HISTORY);
	f.launch = (ptrdiff_t)launch;
	f.alloc = a;
	f.where = (struct ci_attribution){ .arg = 2, .relation = CI_REL_PAST_END, .alloc = a,
					   .offset = 64, .history = CI_HISTORY_LEFT,
					   .history_launches = 3, .history_inside = 3,
					   .neighbour_relation = CI_REL_INSIDE, .neighbour = b };
	struct words w = word(m, NULL, &f, 1);
	is_str(w.why, "", "arg_left_history: no reasoning");
	is_int(w.n, 1, "... one item");
	if (w.n == 1) {
		is_str(w.items[0].text, "arg 2 is 64 bytes past the end of #7, which this parameter "
					"pointed into in the 3 earlier launches of the kernel; it lies "
					"inside #8", "arg_left_history");
		is_str(w.items[0].rule, "left", "... rule left");
	}
	words_free(&w);
	/* A use after free first, the history second (history.c). */
	f.where.relation = CI_REL_FREED;
	f.where.alloc = b;
	f.where.neighbour = a;
	f.where.neighbour_relation = CI_REL_PAST_END;
	f.where.neighbour_offset = 0;
	w = word(m, NULL, &f, 1);
	is_str(w.n ? w.items[0].text : NULL, "arg 2 points into #8, FREED, at offset 64; this parameter "
		"pointed into #7 in the 3 earlier launches of the kernel, and the address is right "
		"after its end", "arg_left_history, freed");
	words_free(&w);
	f.where.neighbour_offset = 5120;
	w = word(m, NULL, &f, 1);
	like_end(w.n ? w.items[0].text : NULL, "and the address is 5,120 bytes past its end",
		 "arg_left_history, freed, farther");
	words_free(&w);
	f.where = (struct ci_attribution){ .arg = 2, .relation = CI_REL_PAST_END, .alloc = a,
					   .offset = 64, .history = CI_HISTORY_LEFT,
					   .history_launches = 3, .history_inside = 3,
					   .neighbour_relation = CI_REL_INSIDE, .neighbour = b };
	f.id = CI_F_ARG_FREED_SINCE;
	f.where.history = CI_HISTORY_FREED_SINCE;
	f.where.history_inside = 2;
	w = word(m, NULL, &f, 1);
	if (w.n == 1)
		is_str(w.items[0].text, "arg 2 points into #7, freed before this launch; 2 of the 3 "
					"earlier launches of the kernel used it while it was live",
		       "arg_freed_since");
	else
		ok(0, "arg_freed_since: one item");
	words_free(&w);
}

static void test_graph(const struct ci_model *m)
{
	struct ci_finding f = finding(CI_F_GRAPH_NOT_RECORDED);
	f.value = 0xabc;
	why_is(m, f, " It is a graph launch (exec 0xabc) that the record has no graph tables for (a "
		     "recorder before format 1.1, or the exec was made before the recorder started), so "
		     "its kernels are not known.", "graph_not_recorded");
	struct ci_graph_replay g = { .replay = 3, .kernel_count = 2, .faulting_node = -1 };
	struct ci_diagnosis d = { .graph = &g };
	f = finding(CI_F_GRAPH_NODE_UNKNOWN);
	struct words w = word(m, &d, &f, 1);
	is_str(w.why, " It is replay 3 of a graph with 2 kernel nodes; the graph has no in-graph "
		      "breadcrumb (built explicitly, or CUDAINSPECT_GRAPH_CRUMBS=off), and none passes a "
		      "bad pointer, so the kernel that faulted is not known.", "graph_node_unknown");
	words_free(&w);
}

/* The fault page against the arguments (xid.c, relation_rule): the page in no allocation a
 * suspect references, arg 0 of attn + 2^41 + 64 KiB, the way the H200's Triton store was. */
static void test_relation(const struct ci_model *m, size_t launch, const struct ci_alloc *a)
{
	struct ci_diagnosis d = { .faulting_launch = -1, .xid = -1 };
	d.xid_page.address = a->address + (1ull << 41) + 65536;
	struct ci_finding f[3] = { finding(CI_F_OLDEST_IN_FLIGHT), finding(CI_F_BY_ARG_RELATION),
				   finding(CI_F_ARG_EXPLAINS_PAGE) };
	f[0].total = 2;
	struct ci_attribution w0 = { .launch = launch, .arg = 0, .address = a->address, .alloc = a,
				     .relation = CI_REL_INSIDE };
	ci_fault_relate(&w0, d.xid_page.address);
	f[1].launch = f[2].launch = (ptrdiff_t)launch;
	f[1].where = f[2].where = w0;
	f[1].alloc = f[2].alloc = a;
	f[1].count = f[2].count = 1;
	f[1].total = 2;
	f[2].decisive = true;
	struct words w = word(m, &d, f, 3);
	is_str(w.why, "Rule: the fault page against the arguments. No suspect launch points into or "
		      "next to it; only this one (of 2) has an argument it fits.",
	       "by_argument_relation, one launch");
	is_int(w.n, 2, "the record's rule and the argument: two items");
	if (w.n == 2) {
		is_int(w.items[0].kind, CI_EVK_RULE, "the record's rule became an item");
		is_int(w.items[1].kind, CI_EVK_XID_LAUNCH, "the argument the page fits");
		is_str(w.items[1].text, "fault page 0x810000010000 = arg 0 + 2,199,023,321,088 B (2^41 "
					"+ 65,536 B; 2,097,152 × its 1.0 MiB allocation #7 from its start + "
					"65,536 B): only attn (launch 2 on stream 0x1000)",
		       "argument_explains_page, a power of two");
		is_str(w.items[1].rule, "power_of_two", "... rule power_of_two");
		ok(w.items[1].decisive, "... decisive");
	}
	words_free(&w);
	/* A multiple, and a reach. */
	w0.address = a->address + 256;
	d.xid_page.address = a->address + 3000 * (1ull << 20);
	ci_fault_relate(&w0, d.xid_page.address);
	f[2].where = w0;
	w = word(m, &d, &f[2], 1);
	is_str(w.n ? w.items[0].text : NULL, "fault page 0x7f00bb800000 = arg 0 + 3,145,727,744 B, "
		"3,000 × its 1.0 MiB allocation #7 from its start: only attn (launch 2 on stream 0x1000)",
	       "argument_explains_page, a multiple");
	words_free(&w);
	w0.address = a->address;
	d.xid_page.address = a->address + (1 << 20) + 8192;
	ci_fault_relate(&w0, d.xid_page.address);
	f[2].where = w0;
	f[2].count = 3;
	w = word(m, &d, &f[2], 1);
	is_str(w.n ? w.items[0].text : NULL, "fault page 0x7f0000102000 = arg 0 + 1,056,768 B, 8,192 B "
		"past the end of its 1.0 MiB allocation #7 (within one allocation size): of several, "
		"attn (launch 2 on stream 0x1000)", "argument_explains_page, reach, of several");
	is_str(w.n ? w.items[0].rule : NULL, "reach", "... rule reach");
	words_free(&w);
	f[1].count = 3;
	f[1].total = 5;
	f[1].flags = 0;
	w = word(m, &d, &f[1], 1);
	is_str(w.why, "Rule: the fault page against the arguments. No suspect launch points into or "
		      "next to it; 3 of the 5 have an argument it fits (within reach of its allocation, "
		      "a whole number of its size or a power of two away), so the page does not tell "
		      "them apart; this is the one it fits most closely.", "by_argument_relation, several");
	words_free(&w);
	/* None fits: the nearest allocations. */
	struct ci_finding g = finding(CI_F_PAGE_NAMES_NO_LAUNCH);
	g.where.address = d.xid_page.address = a->address + (1ull << 41) + 65536;
	d.xid_below = a;
	w = word(m, &d, &g, 1);
	like_end(w.why, "the page lies in no recorded allocation, live or recently freed. Nothing in "
			"the record lies there. The nearest live allocations are #7 (1.0 MiB) "
			"2,199,023,321,088 B below. No argument of a launch that may have been in flight "
			"lies within reach of the page, a whole number of its allocation's size or a "
			"power of two away, so the page names no launch.", "page_names_no_launch, nearest");
	words_free(&w);
}

int main(void)
{
	struct ci_model *m = mb_new();
	uint32_t fn = mb_function(m, "attn", 0, NULL);
	uint32_t s = mb_stream(m, 0x1000, true, 1, 2);
	mb_launch(m, s, 1, fn, 0, 0, 7, 0, NULL);
	size_t l2 = mb_launch(m, s, 2, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	mb_alloc(m, 7, 0x7f0000000000ull, 1 << 20, 1);
	mb_alloc(m, 8, 0x7f0000200000ull, 1 << 20, 1);
	size_t e = mb_error(m, 5, 1 /* CUDA_ERROR_INVALID_VALUE */, 7, "cuMemcpyHtoD_v2", 0);
	mb_finish(m);
	const struct ci_alloc *a = &m->allocs[0], *b = &m->allocs[1];

	test_table();
	test_faulting(m);
	test_losses(m);
	test_xid_others(m);
	test_verdicts(m, e);
	test_supersede(m, l2, a);
	test_relation(m, l2, a);
	test_history(m, l2, a, b);
	test_graph(m);
	ci_model_destroy(m);
	return done_testing();
}
