/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis in words: every sentence the reasoning and the evidence items say, one case per
 * finding id (diagnose.h, CI_FINDINGS), in the order the families found them.  Names from the
 * record (kernels, streams, APIs) and from the kernel log are scrubbed where they are read.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

/* Below this an address is a NULL pointer plus an offset. */
#define NULL_PAGE_END 0x10000ull

struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void text_add(struct text *t, const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		size_t room = t->cap - t->len;
		int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->s && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 256;
		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s) {
			t->failed = true;
			return;
		}
		t->s = s;
		t->cap = cap;
	}
}

/* The state of one wording: the reasoning so far and the evidence items. */
struct wording {
	const struct ci_model *m;
	const struct ci_evidence *ev;
	const struct ci_diagnosis *d;
	struct text why;
	struct ci_evidence_item *items;
	size_t n_items, cap_items;
	bool failed;
};

/* An evidence item for finding F with text T (taken over). */
static void item_add(struct wording *w, const struct ci_finding *f, enum ci_evidence_kind kind,
		     const char *rule, struct text *t)
{
	if (t->failed || !t->s || w->failed ||
	    ci_vec_reserve((void **)&w->items, &w->cap_items, w->n_items + 1, sizeof(*w->items))) {
		free(t->s);
		w->failed = true;
		return;
	}
	w->items[w->n_items++] = (struct ci_evidence_item){
		.kind = kind, .text = t->s, .rule = rule, .decisive = f->decisive,
		.launch = f->launch, .alloc = f->alloc, .event = f->event, .xid = f->xid,
	};
}

/* ---------------------------------------------------------------------------------------- */
/* Phrases                                                                                    */

/* "matvec (launch 42 on stream 0x55d0c0a0)" */
static void describe_launch(struct text *t, const struct ci_model *m, size_t i)
{
	char name[1024], stream[96];
	const struct ci_launch *l = ci_model_load_launch(m, i);
	if (!l)
		return;
	text_add(t, "%s (launch %llu on %s)", ci_launch_kernel_name(m, l, name, sizeof(name)),
		 (unsigned long long)l->stream_seq, ci_stream_label(m, l->stream, stream, sizeof(stream)));
}

/* "the copy of 4,096 bytes from 0x… to 0x… on stream 0x… by thread 42" */
static void describe_copy(struct text *t, const struct ci_model *m, const struct ci_event *e)
{
	char bytes[32], stream[96];
	if (e->kind == CI_EV_MEMCPY)
		text_add(t, "the copy of %s bytes from 0x%" PRIx64 " to 0x%" PRIx64,
			 ci_fmt_count(e->value, bytes, sizeof bytes), e->b, e->a);
	else
		text_add(t, "the set of %s bytes at 0x%" PRIx64, ci_fmt_count(e->value, bytes, sizeof bytes),
			 e->a);
	text_add(t, " on %s by thread %" PRIu32,
		 e->stream != CI_NONE ? ci_stream_label(m, e->stream, stream, sizeof stream)
				      : "no stream (a synchronous call)", e->tid);
}

/* Where a fault page lies: "64 bytes past the end of #2 (256.0 KiB)", "the NULL page", ... */
static void page_relation_text(const struct ci_attribution *p, char *buf, size_t n)
{
	char off[48], size[32];
	const struct ci_alloc *al = p->alloc;
	if (p->address < NULL_PAGE_END) {
		snprintf(buf, n, "the NULL page (a NULL pointer plus an offset)");
		return;
	}
	if (!al) {
		snprintf(buf, n, "in no recorded allocation, live or recently freed");
		return;
	}
	ci_fmt_size(al->size, size, sizeof size);
	ci_fmt_count(p->offset, off, sizeof off);
	switch (p->relation) {
	case CI_REL_INSIDE:
		snprintf(buf, n, "inside #%" PRIu64 " (%s) at offset %s", al->id, size, off);
		break;
	case CI_REL_FREED:
		snprintf(buf, n, "inside #%" PRIu64 " (%s), FREED, at offset %s", al->id, size, off);
		break;
	case CI_REL_PAST_END:
		if (p->offset == 0)
			snprintf(buf, n, "right after the end of #%" PRIu64 " (%s)", al->id, size);
		else
			snprintf(buf, n, "%s bytes past the end of #%" PRIu64 " (%s)", off, al->id, size);
		break;
	case CI_REL_BEFORE_START:
		if (p->offset % 4096 == 0 && p->offset / 4096 <= 4)
			snprintf(buf, n, "%s page%s before #%" PRIu64 " (%s)",
				 (const char *[]){ "", "one", "two", "three", "four" }[p->offset / 4096],
				 p->offset == 4096 ? "" : "s", al->id, size);
		else
			snprintf(buf, n, "%s bytes before the start of #%" PRIu64 " (%s)", off, al->id, size);
		break;
	default:
		snprintf(buf, n, "in no recorded allocation");
		break;
	}
}

/* "+ 65,536 B", "- 4,096 B" */
static void signed_bytes(struct text *t, int64_t v)
{
	char n[32];
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	text_add(t, "%s %s B", v < 0 ? "-" : "+", ci_fmt_count(m, n, sizeof n));
}

/* The fault page against argument A (xid.c, ci_fault_relate). */
static void fault_fit_text(struct text *t, const struct ci_attribution *a)
{
	char size[32], n[32];
	const struct ci_alloc *al = a->relation != CI_REL_UNKNOWN ? a->alloc : NULL;
	text_add(t, "arg %" PRIu32 " ", a->arg);
	signed_bytes(t, a->fault_from_arg);
	if (a->element_size) {
		/* A C++ kernel's parameter type: the same offset in elements, as an index bug
		 * computes it. */
		int64_t es = (int64_t)a->element_size, q = a->fault_from_arg / es,
			r = a->fault_from_arg % es;
		text_add(t, " = %s%s %s element%s", q < 0 ? "-" : "",
			 ci_fmt_count(q < 0 ? -(uint64_t)q : (uint64_t)q, n, sizeof n), a->element_type,
			 q == 1 || q == -1 ? "" : "s");
		if (r) {
			text_add(t, " ");
			signed_bytes(t, r);
		}
	}
	if (al)
		ci_fmt_size(al->size, size, sizeof size);
	switch (a->fault_fit) {
	case CI_FIT_REACH:
		if (a->fault_from_end >= 0)
			text_add(t, ", %s B past the end of its %s allocation #%" PRIu64,
				 ci_fmt_count((uint64_t)a->fault_from_end, n, sizeof n), size, al->id);
		else if (a->fault_from_start < 0)
			text_add(t, ", %s B before the start of its %s allocation #%" PRIu64,
				 ci_fmt_count(-(uint64_t)a->fault_from_start, n, sizeof n), size, al->id);
		text_add(t, " (within one allocation size)");
		break;
	case CI_FIT_MULTIPLE:
		text_add(t, ", %s%s × its %s allocation #%" PRIu64 " from its start",
			 a->fault_multiple < 0 ? "-" : "",
			 ci_fmt_count(a->fault_multiple < 0 ? -(uint64_t)a->fault_multiple
							    : (uint64_t)a->fault_multiple, n, sizeof n),
			 size, al->id);
		if (a->fault_multiple_rest) {
			text_add(t, " ");
			signed_bytes(t, a->fault_multiple_rest);
		}
		break;
	case CI_FIT_POWER_OF_TWO:
		text_add(t, " (%s2^%d", a->fault_from_arg < 0 ? "-" : "", a->fault_pow2);
		if (a->fault_pow2_rest) {
			text_add(t, " ");
			signed_bytes(t, a->fault_pow2_rest);
		}
		if (al && a->fault_multiple > 0) {
			text_add(t, "; %s × its %s allocation #%" PRIu64 " from its start",
				 ci_fmt_count((uint64_t)a->fault_multiple, n, sizeof n), size, al->id);
			if (a->fault_multiple_rest) {
				text_add(t, " ");
				signed_bytes(t, a->fault_multiple_rest);
			}
		}
		text_add(t, ")");
		break;
	case CI_FIT_NONE:
		break;
	}
}

const char *ci_fault_fit_phrase(const struct ci_attribution *a, char *buf, size_t size)
{
	struct text t = { 0 };
	fault_fit_text(&t, a);
	snprintf(buf, size, "%s", t.s && !t.failed ? t.s : "");
	free(t.s);
	return buf;
}

/* The faulting node's name ("7", or "3.0 (node 0 of the graph child-graph node 3 runs)"). */
static const char *node_name(const struct ci_graph_replay *g, char *buf, size_t size)
{
	char where[160];
	ci_graph_replay_node_name(g, (size_t)g->faulting_node, buf, size);
	if (*ci_graph_replay_node_where(g, (size_t)g->faulting_node, where, sizeof where)) {
		size_t k = strlen(buf);
		snprintf(buf + k, size - k, " (%s)", where);
	}
	return buf;
}

/* The suspects a rule chose from: "3 launches were in flight", "Breadcrumbs are off, ...". */
static const char *pool_text(const struct ci_finding *f, char *buf, size_t size)
{
	size_t n = f->total;
	if (f->flags & CI_FINDING_OPEN_ONLY)
		snprintf(buf, size, "Breadcrumbs are off, so every launch made since its "
			 "stream's last successful synchronization (at most the newest %d of a stream) "
			 "may be the one: %zu launch%s on %zu stream%s", CI_OPEN_WINDOW_MAX, n,
			 n == 1 ? "" : "es", f->streams, f->streams == 1 ? "" : "s");
	else if ((f->flags & CI_FINDING_WINDOWS) && f->first) {
		/* One stream's range (faulting.c window_range). */
		int k = f->first == f->last
				? snprintf(buf, size, "Launch %llu of its stream may or may not have run",
					   (unsigned long long)f->first)
				: snprintf(buf, size, "Launches %llu-%llu of its stream (%zu here) may or "
					   "may not have run", (unsigned long long)f->first,
					   (unsigned long long)f->last, n);
		if (f->value && k > 0 && (size_t)k < size)
			snprintf(buf + k, size - (size_t)k, "; %llu had finished (%s)",
				 (unsigned long long)f->value,
				 f->flags & CI_FINDING_SYNCED ? "its last synchronization" : "its breadcrumb");
	} else
		snprintf(buf, size, "%zu launch%s %s", n, n == 1 ? "" : "es",
			 f->flags & CI_FINDING_WINDOWS ? "may have been in flight" : "were in flight");
	return buf;
}

/* The kernel-log file a line came from, by its name (the JSON's kernel_log has the path). */
static const char *log_origin(const struct ci_evidence *ev)
{
	const char *origin = ev->kernel_log_origin;
	return strchr(origin, '/') ? strrchr(origin, '/') + 1 : origin;
}

static bool is_loss(enum ci_finding_id id)
{
	return id == CI_F_RECORD_LOST || id == CI_F_RECORD_TRUNCATED;
}

/* ---------------------------------------------------------------------------------------- */
/* One finding                                                                                */

/* The reasoning so far becomes an evidence item of kind "rule": the driver's word decides. */
static void supersede(struct wording *w, const struct ci_finding *f)
{
	if (!w->why.s || !w->why.len)
		return;
	struct text t = { 0 };
	text_add(&t, "%s", w->why.s + (w->why.s[0] == ' '));
	struct ci_finding rule = { .launch = -1, .event = -1, .error = -1, .xid = -1, .node = -1 };
	item_add(w, &rule, CI_EVK_RULE, "record", &t);
	w->why.len = 0;
	w->why.s[0] = '\0';
}

static void word_faulting(struct wording *w, const struct ci_finding *f)
{
	struct text *why = &w->why;
	char pool[320];
	switch (f->id) {
	case CI_F_ONLY_IN_FLIGHT:
		text_add(why, "Rule: the only launch in flight. Its stream's breadcrumb reads %llu: "
			      "every launch up to that one finished, and the breadcrumb enqueued right "
			      "after this one never arrived. No other stream has work in flight.",
			 (unsigned long long)f->value);
		break;
	case CI_F_OPEN_UNPLACED:
		text_add(why, " (%zu launches on streams without breadcrumbs cannot be placed.)", f->count);
		break;
	case CI_F_ALL_FINISHED:
		text_add(why, "Every recorded launch finished according to the breadcrumbs, so no launch "
			      "can be named: the fault may come from a memory operation, a graph, or "
			      "launches the recorder did not see.");
		break;
	case CI_F_BY_HISTORY:
		if (f->count == 1)
			text_add(why, "Rule: argument history. %s; only this one passes a pointer outside "
				      "the allocation its kernel used before.",
				 pool_text(f, pool, sizeof pool));
		else
			text_add(why, "Rule: argument history, the oldest. %s; %zu of them pass a pointer "
				      "outside the allocation their kernel used before, and this is the "
				      "oldest of those.", pool_text(f, pool, sizeof pool), f->count);
		break;
	case CI_F_BY_BAD_POINTER:
		if (f->count == 1)
			text_add(why, "Rule: the only suspect with a bad pointer. %s; only this one passes a "
				      "pointer outside every live allocation.", pool_text(f, pool, sizeof pool));
		else
			text_add(why, "Rule: the oldest suspect with a bad pointer. %s; %zu of them pass "
				      "pointers outside every live allocation, and this is the oldest of those.",
				 pool_text(f, pool, sizeof pool), f->count);
		break;
	case CI_F_OPEN_OLDEST:
		text_add(why, "Rule: no suspect passes a bad pointer. %s; this is the oldest launch "
			      "made since its stream's last synchronization (the newest, where there "
			      "was none), but any of them may be the one.", pool_text(f, pool, sizeof pool));
		break;
	case CI_F_OLDEST_IN_FLIGHT:
		text_add(why, "Rule: the oldest launch in flight. %s and none passes a pointer "
			      "outside the live allocations; this is the oldest, but any of them may be "
			      "the one.", pool_text(f, pool, sizeof pool));
		break;
	default:
		break;
	}
}

/* A run of losses is one sentence: "The record is incomplete: A; B, so the confidence is at
 * most medium." */
static void word_loss(struct wording *w, const struct ci_finding *f, const struct ci_finding *prev,
		      const struct ci_finding *next)
{
	struct text *why = &w->why;
	char n[32];
	switch (f->id) {
	case CI_F_RECORD_LOST:
		text_add(why, "%s%s %s were not recorded%s",
			 prev && is_loss(prev->id) ? "; " : " The record is incomplete: ",
			 ci_fmt_count(f->count, n, sizeof(n)), ci_section_title(f->section),
			 !(f->flags & CI_FINDING_DROPPED) ? " (not in the input)"
			 : f->section == CI_SEC_LAUNCHES  ? " (the ring was contended)"
							  : " (the table was full)");
		break;
	case CI_F_RECORD_TRUNCATED:
		text_add(why, "%sthe recorder says some table was full",
			 prev && is_loss(prev->id) ? "; " : " The record is incomplete: ");
		break;
	case CI_F_CONFIDENCE_CAPPED:
		text_add(why, "%s the confidence is at most %s.", prev && is_loss(prev->id) ? ", so" : " So",
			 ci_confidence_name(f->strength));
		return;
	default:
		return;
	}
	if (!next || (!is_loss(next->id) && next->id != CI_F_CONFIDENCE_CAPPED))
		text_add(why, ".");
}

static void word_verdict(struct wording *w, const struct ci_finding *f)
{
	const struct ci_model *m = w->m;
	struct text *why = &w->why;
	switch (f->id) {
	case CI_F_API_ERROR: {
		const struct ci_api_error *e = &m->errors[f->error];
		char api[CI_API_NAME_MAX + 1];
		text_add(why, "No device fault was recorded (no sticky error). The last error is "
			      "%s from %s", ci_cuda_result_name(e->result), CI_SCRUB_FIELD(e->api, api));
		if (f->launch >= 0) {
			text_add(why, "; the launch call for ");
			describe_launch(why, m, (size_t)f->launch);
			text_add(why, " itself returned %s, so nothing was enqueued.",
				 ci_cuda_result_name(ci_model_load_launch(m, (size_t)f->launch)->result));
		} else {
			text_add(why, ".");
		}
		break;
	}
	case CI_F_RECORD_MISSING: {
		char have[32], all[32];
		text_add(why, "Most of the record is not in the input (%s of its %s): the launches "
			      "and errors that would show a failure are missing, so nothing can be said "
			      "about what the GPU was doing. Read a complete core or record file.",
			 ci_fmt_size(f->value, have, sizeof(have)), ci_fmt_size(f->total, all, sizeof(all)));
		break;
	}
	case CI_F_NO_FAILURE:
		text_add(why, "No CUDA error was recorded and no launch is in flight.");
		break;
	default:
		break;
	}
}

/* "; with it, 395 more lines of the same event within 632 ms (Xid 13 ×395)": the other lines
 * of line I's event (F->count lines in all; ci_klog_group), by Xid, in the order first seen. */
static void event_tail(struct text *t, const struct ci_evidence *ev, size_t i, size_t count)
{
	const struct ci_klog *log = ev->kernel_log;
	if (count < 2 || !log)
		return;
	size_t e = ev->kernel_log_match[i].event;
	if (e == SIZE_MAX)
		return;
	uint32_t xids[6];
	size_t per[6] = { 0 }, kinds = 0, other = 0, first = SIZE_MAX, last = 0;
	for (size_t k = 0; k < log->count; k++) {
		if (ev->kernel_log_match[k].event != e || (log->items[k].flags & CI_XID_DUPLICATE))
			continue;
		first = first == SIZE_MAX ? k : first;
		last = k;
		if (k == i)
			continue;
		size_t j = 0;
		while (j < kinds && xids[j] != log->items[k].xid)
			j++;
		if (j == kinds && kinds < 6)
			xids[kinds++] = log->items[k].xid;
		if (j < kinds)
			per[j]++;
		else
			other++;
	}
	uint64_t span = first != SIZE_MAX ? ci_klog_gap_us(&log->items[first], &log->items[last])
					  : UINT64_MAX;
	char within[48] = "";
	if (span != UINT64_MAX && span < 1000)
		snprintf(within, sizeof within, " within 1 ms");
	else if (span != UINT64_MAX)
		snprintf(within, sizeof within, " within %llu ms", (unsigned long long)(span + 999) / 1000);
	text_add(t, "; with it, %zu more line%s of the same event%s (", count - 1,
		 count == 2 ? "" : "s", within);
	for (size_t j = 0; j < kinds; j++)
		text_add(t, "%sXid %" PRIu32 " ×%zu", j ? ", " : "", xids[j], per[j]);
	if (other)
		text_add(t, ", %zu of other Xids", other);
	text_add(t, ")");
}

static void word_kernel_log(struct wording *w, const struct ci_finding *f)
{
	const struct ci_model *m = w->m;
	const struct ci_evidence *ev = w->ev;
	struct text *why = &w->why, t = { 0 };
	char line[320] = "an Xid line", rel[160];
	const struct ci_xid *x = f->xid >= 0 ? &ev->kernel_log->items[f->xid] : NULL;
	const char *by = x ? ci_klog_rule_name(ev->kernel_log_match[f->xid].rule) : NULL;
	if (x)
		ci_xid_summary(x, line, sizeof line);
	switch (f->id) {
	case CI_F_XID_LINE:
		text_add(&t, "%s (%s line %" PRIu64 ", by %s)", line, log_origin(ev), x->line, by);
		event_tail(&t, ev, (size_t)f->xid, f->count);
		item_add(w, f, CI_EVK_XID, by, &t);
		break;
	case CI_F_XID_OTHERS: {
		size_t n = f->count + f->total + (size_t)f->value;
		const char *sep = "";
		text_add(why, " The log also holds %zu Xid line%s of other processes of the same name, not "
			      "used:", n, n == 1 ? "" : "s");
		if (f->count) {
			text_add(why, " %zu of another pid, where the process's own pid is in the log", f->count);
			sep = ";";
		}
		if (f->total) {
			text_add(why, "%s %zu stamped before the process started", sep, f->total);
			sep = ";";
		}
		if (f->value)
			text_add(why, "%s %llu farther from its first sticky error than the one taken", sep,
				 (unsigned long long)f->value);
		text_add(why, ".");
		break;
	}
	case CI_F_XID_PAGE:
		page_relation_text(&f->where, rel, sizeof rel);
		text_add(&t, "%s: the page lies %s; %s line %" PRIu64 ", by %s", line, rel,
			 log_origin(ev), x->line, by);
		event_tail(&t, ev, (size_t)f->xid, f->count);
		item_add(w, f, CI_EVK_XID_PAGE, by, &t);
		break;
	case CI_F_BY_COPY_ENGINE:
		supersede(w, f);
		text_add(why, "Rule: the driver's fault address. The Xid 31 comes from a copy engine, "
			      "so a copy or set made the access, not a kernel");
		if (f->count == 0)
			text_add(why, "; the record holds no copy or set in flight that touches that "
				      "page.");
		else if (f->count == 1)
			text_add(why, "; exactly one recorded copy or set in flight touches the page.");
		else
			text_add(why, "; %zu recorded copies or sets in flight touch the page, and this "
				      "is the oldest.", f->count);
		break;
	case CI_F_COPY_TOUCHES_PAGE: {
		struct text c = { 0 };
		describe_copy(&c, m, &m->events[f->event]);
		text_add(&t, "%s %s touches the page", f->count == 1 ? "only" : "of several, the oldest:",
			 c.s ? c.s : "a copy");
		free(c.s);
		item_add(w, f, CI_EVK_XID_LAUNCH, f->count == 1 ? "exact" : "oldest", &t);
		break;
	}
	case CI_F_PAGE_NAMES_NO_LAUNCH: {
		const struct ci_diagnosis *d = w->d;
		page_relation_text(&f->where, rel, sizeof rel);
		text_add(why, " Kernel log: %s; the page lies %s.", line, rel);
		if (f->alloc)
			text_add(why, " No launch that may have been in flight passes a pointer into or "
				      "next to #%" PRIu64 ".", f->alloc->id);
		else
			text_add(why, " Nothing in the record lies there.");
		if (!f->alloc && (d->xid_below || d->xid_above)) {
			char n[32], size[32];
			text_add(why, " The nearest live allocations are");
			if (d->xid_below)
				text_add(why, " #%" PRIu64 " (%s) %s B below", d->xid_below->id,
					 ci_fmt_size(d->xid_below->size, size, sizeof size),
					 ci_fmt_count(f->where.address - d->xid_below->address, n, sizeof n));
			if (d->xid_below && d->xid_above)
				text_add(why, " and");
			if (d->xid_above)
				text_add(why, " #%" PRIu64 " (%s) %s B above", d->xid_above->id,
					 ci_fmt_size(d->xid_above->size, size, sizeof size),
					 ci_fmt_count(d->xid_above->address - f->where.address, n, sizeof n));
			text_add(why, ".");
		}
		text_add(why, " No argument of a launch that may have been in flight lies within reach "
			      "of the page, a whole number of its allocation's size or a power of two "
			      "away, so the page names no launch.");
		break;
	}
	case CI_F_BY_ARG_RELATION: {
		supersede(w, f);
		text_add(why, "Rule: the fault page against the arguments. No suspect launch points "
			      "into or next to it; ");
		if (f->count == 1)
			text_add(why, "only this one (of %zu) has an argument it fits.", f->total);
		else
			text_add(why, "%zu of the %zu have an argument it fits (within reach of its "
				      "allocation, a whole number of its size or a power of two away), so the "
				      "page does not tell them apart; this is %s.",
				 f->count, f->total, f->flags & CI_FINDING_KEPT
							     ? "the one the record's own rules chose"
							     : "the one it fits most closely");
		break;
	}
	case CI_F_ARG_EXPLAINS_PAGE: {
		struct text l = { 0 };
		describe_launch(&l, m, (size_t)f->launch);
		text_add(&t, "fault page 0x%" PRIx64 " = ", w->d->xid_page.address & ~(uint64_t)0xfff);
		fault_fit_text(&t, &f->where);
		text_add(&t, ": %s %s", f->count == 1 ? "only" : "of several,", l.s ? l.s : "the launch");
		free(l.s);
		item_add(w, f, CI_EVK_XID_LAUNCH, ci_fault_fit_name(f->where.fault_fit), &t);
		break;
	}
	case CI_F_BY_FAULT_ADDRESS:
		supersede(w, f);
		if (f->flags & CI_FINDING_EXACT)
			text_add(why, "Rule: the driver's fault address. Of the %zu launch%s that may have been "
				      "in flight, only this one points into or next to #%" PRIu64 ", where the "
				      "page lies.", f->total, f->total == 1 ? "" : "es", f->alloc->id);
		else if (f->count == 1)
			text_add(why, "Rule: the driver's fault address. Only this launch points into or next "
				      "to #%" PRIu64 ", where the page lies, but the record lost allocations or "
				      "launches, so the confidence is at most medium.", f->alloc->id);
		else
			text_add(why, "Rule: the driver's fault address. %zu of the launches that may have "
				      "been in flight pass a pointer into or next to #%" PRIu64 ", where the "
				      "faulting page lies; this is %s.", f->count, f->alloc->id,
				 f->flags & CI_FINDING_KEPT ? "the one the record's own rules chose"
							    : "the oldest of them");
		break;
	case CI_F_LAUNCH_TOUCHES_PAGE: {
		bool exact = f->flags & CI_FINDING_EXACT;
		struct text l = { 0 };
		describe_launch(&l, m, (size_t)f->launch);
		text_add(&t, "%s %s passes a pointer into or next to #%" PRIu64, exact ? "only" : "of several,",
			 l.s ? l.s : "the launch", f->alloc->id);
		free(l.s);
		item_add(w, f, CI_EVK_XID_LAUNCH, exact ? "exact" : "several", &t);
		break;
	}
	default:
		break;
	}
}

static void word_history(struct wording *w, const struct ci_finding *f)
{
	const struct ci_attribution *a = &f->where;
	struct text t = { 0 };
	char off[48], off2[48];
	if (f->id == CI_F_ARG_LEFT_HISTORY && a->relation == CI_REL_FREED && a->neighbour)
		/* A use after free first (history.c): the history second. */
		text_add(&t, "arg %" PRIu32 " points into #%" PRIu64 ", FREED, at offset %s; this "
			     "parameter pointed into #%" PRIu64 " in the %" PRIu32 " earlier launch%s of "
			     "the kernel, and the address is %s%s %s",
			 a->arg, a->alloc->id, ci_fmt_count(a->offset, off, sizeof off), a->neighbour->id,
			 a->history_launches, a->history_launches == 1 ? "" : "es",
			 a->neighbour_offset ? ci_fmt_count(a->neighbour_offset, off2, sizeof off2) : "right",
			 a->neighbour_offset ? " bytes" : "",
			 a->neighbour_relation == CI_REL_PAST_END ? (a->neighbour_offset ? "past its end" : "after its end")
								  : "before its start");
	else if (f->id == CI_F_ARG_LEFT_HISTORY)
		text_add(&t, "arg %" PRIu32 " is %s bytes %s #%" PRIu64 ", which this parameter pointed "
			     "into in the %" PRIu32 " earlier launch%s of the kernel; it lies %s #%" PRIu64,
			 a->arg, ci_fmt_count(a->offset, off, sizeof off),
			 a->relation == CI_REL_PAST_END ? "past the end of" : "before the start of",
			 a->alloc->id, a->history_launches, a->history_launches == 1 ? "" : "es",
			 a->neighbour ? (a->neighbour_relation == CI_REL_INSIDE  ? "inside"
					 : a->neighbour_relation == CI_REL_FREED ? "inside FREED"
										  : "near")
				      : "in no allocation, not even near",
			 a->neighbour ? a->neighbour->id : a->alloc->id);
	else
		text_add(&t, "arg %" PRIu32 " points into #%" PRIu64 ", freed before this launch; %" PRIu32
			     " of the %" PRIu32 " earlier launches of the kernel used it while it was live",
			 a->arg, a->alloc->id, a->history_inside, a->history_launches);
	item_add(w, f, CI_EVK_ARG_HISTORY, ci_history_name(a->history), &t);
}

static void word_graph(struct wording *w, const struct ci_finding *f)
{
	const struct ci_model *m = w->m;
	const struct ci_graph_replay *g = w->d->graph;
	struct text *why = &w->why;
	char name[1024], nn[256];
	if (f->id == CI_F_GRAPH_NOT_RECORDED) {
		text_add(why, " It is a graph launch (exec 0x%llx) that the record has no graph "
			      "tables for (a recorder before format 1.1, or the exec was made before "
			      "the recorder started), so its kernels are not known.",
			 (unsigned long long)f->value);
		return;
	}
	if (!g)
		return;
	unsigned long long replay = (unsigned long long)g->replay;
	size_t kernels = g->kernel_count;
	const char *s = kernels == 1 ? "" : "s";
	/* The kernel nodes the rule chose among: all of them, or with an in-graph breadcrumb the
	 * ones it leaves unfinished (breadcrumbs follow only some kernels). */
	char pool[160];
	if (g->crumb)
		snprintf(pool, sizeof pool, "the %zu kernel node%s its in-graph breadcrumb (%llu) leaves unfinished",
			 g->crumb_unfinished, g->crumb_unfinished == 1 ? "" : "s",
			 (unsigned long long)g->crumb_value);
	else
		snprintf(pool, sizeof pool, "its %zu kernel node%s", kernels, s);
	if (f->node >= 0) {
		ci_launch_kernel_name(m, &g->kernel, name, sizeof(name));
		node_name(g, nn, sizeof nn);
	}
	switch (f->id) {
	case CI_F_GRAPH_NODE_BY_PAGE:
		text_add(why, " It is replay %llu of a graph; of %s, %s %s (node "
			      "%s) passes a pointer into or next to #%llu, where the kernel log's "
			      "fault page lies.", replay, pool,
			 f->count == 1 ? "only" : "the first of those that do,", name, nn,
			 (unsigned long long)f->alloc->id);
		break;
	case CI_F_GRAPH_NODE_BY_RELATION: {
		char fit[256];
		ci_fault_fit_phrase(&f->where, fit, sizeof fit);
		if (f->count == 1)
			text_add(why, " It is replay %llu of a graph; the kernel log's fault page lies in "
				      "no allocation, and of %s only %s (node %s) has an "
				      "argument it fits: the page is %s.", replay, pool, name, nn, fit);
		else
			text_add(why, " It is replay %llu of a graph; the kernel log's fault page lies in "
				      "no allocation, and %zu of %s have an argument it "
				      "fits (their allocations lie close together); %s (node %s) fits it "
				      "most closely: the page is %s.", replay, f->count, pool, name, nn, fit);
		break;
	}
	case CI_F_GRAPH_NODE_BAD_POINTER:
		text_add(why, " It is replay %llu of a graph; of %s %s %s, "
			      "node %s, passes a pointer outside every live allocation%s.", replay,
			 pool, f->count == 1 ? "only" : "the first of those that", name, nn,
			 f->count == 1 ? "" : " (others do too)");
		break;
	case CI_F_GRAPH_NODE_UNKNOWN:
		if (g->crumb)
			text_add(why, " It is replay %llu of a graph with %zu kernel node%s; its in-graph "
				      "breadcrumb reads %llu and leaves %zu of them unfinished (running, or "
				      "between breadcrumbs: finished or not), none passes a bad pointer, and "
				      "no kernel log's fault page points to one, so the kernel that faulted "
				      "is not known.", replay, kernels, s, (unsigned long long)g->crumb_value,
				 g->crumb_unfinished);
		else
			text_add(why, " It is replay %llu of a graph with %zu kernel node%s; the graph has "
				      "no in-graph breadcrumb (built explicitly, or "
				      "CUDAINSPECT_GRAPH_CRUMBS=off), and none passes a bad pointer, so the "
				      "kernel that faulted is not known.", replay, kernels, s);
		break;
	case CI_F_GRAPH_NODE_BY_CRUMB:
		text_add(why, " It is replay %llu of a graph: its in-graph breadcrumb reads %llu, so "
			      "the kernel nodes up to node %llu finished and node %s, %s, was running.",
			 replay, (unsigned long long)g->crumb_value,
			 (unsigned long long)(g->crumb_value ? g->crumb_value - 1 : 0), nn, name);
		if (!g->crumb_value)
			text_add(why, " (The breadcrumb is 0: no kernel of this replay had finished.)");
		break;
	case CI_F_GRAPH_ONLY_NODE:
		text_add(why, " It is replay %llu of a graph whose only kernel node is node %s, %s.",
			 replay, nn, name);
		break;
	default:
		break;
	}
}

/* The GPU core's findings (gpu_core.c). */
static void word_gpu_core(struct wording *w, const struct ci_finding *f)
{
	const struct ci_gpu_join *j = w->d->gpu;
	struct text *why = &w->why;
	char how[96], path[300];
	ci_scrub(w->ev && w->ev->gpu_core_path ? w->ev->gpu_core_path : "?", path, sizeof path);
	if (f->id == CI_F_GPU_CORE_MISMATCH) {
		text_add(why, "%sThe GPU core dump %s is not this record's: %s; it is not merged.",
			 why->len ? " " : "", path, j ? j->mismatch : "?");
		return;
	}
	if (f->flags & CI_FINDING_EXACT || (ptrdiff_t)f->launch == w->d->faulting_launch)
		supersede(w, f);
	struct text l = { 0 };
	describe_launch(&l, w->m, (size_t)f->launch);
	text_add(why, "Rule: the GPU core dump %s. Its faulting grid is %s, matched by %s", path,
		 l.s ? l.s : "the launch", j ? ci_gpu_match_text(j->matched, how, sizeof how) : "?");
	free(l.s);
	if (f->count == 1)
		text_add(why, "; no other recorded launch has its kernel and dimensions.");
	else if (j && (j->matched & CI_GPU_MATCH_ARGS) && j->with_args == 1)
		text_add(why, "; of the %zu recorded launches with its kernel and dimensions, the only one "
			      "that passed the arguments the dump's parameter memory holds.", f->count);
	else if (j && (j->matched & CI_GPU_MATCH_ORDER))
		text_add(why, "; of the %zu recorded launches with its kernel and dimensions, the one whose "
			      "number among the kernel's launches is the grid's id.", f->count);
	else if (j && (j->matched & CI_GPU_MATCH_UNFINISHED))
		text_add(why, "; of the %zu recorded launches with its kernel and dimensions, the only one "
			      "the breadcrumbs leave unfinished.", f->count);
	else
		text_add(why, "; of the %zu recorded launches with its kernel and dimensions (%zu unfinished), "
			      "the newest%s.", f->count, f->total,
			 f->total ? " unfinished" : ", though the breadcrumbs show all of them finished");
}

/* ---------------------------------------------------------------------------------------- */

int ci_findings_word(const struct ci_model *model, const struct ci_evidence *ev,
		     const struct ci_diagnosis *d, const struct ci_finding *f, size_t n,
		     char **reasoning, struct ci_evidence_item **items, size_t *count)
{
	struct wording w = { .m = model, .ev = ev, .d = d };
	for (size_t i = 0; i < n; i++) {
		const struct ci_finding *prev = i ? &f[i - 1] : NULL, *next = i + 1 < n ? &f[i + 1] : NULL;
		switch (f[i].id) {
		case CI_F_ONLY_IN_FLIGHT: case CI_F_OPEN_UNPLACED: case CI_F_ALL_FINISHED:
		case CI_F_BY_HISTORY: case CI_F_BY_BAD_POINTER: case CI_F_OPEN_OLDEST:
		case CI_F_OLDEST_IN_FLIGHT:
			word_faulting(&w, &f[i]);
			break;
		case CI_F_RECORD_LOST: case CI_F_RECORD_TRUNCATED: case CI_F_CONFIDENCE_CAPPED:
			word_loss(&w, &f[i], prev, next);
			break;
		case CI_F_API_ERROR: case CI_F_RECORD_MISSING: case CI_F_NO_FAILURE:
			word_verdict(&w, &f[i]);
			break;
		case CI_F_XID_LINE: case CI_F_XID_PAGE: case CI_F_XID_OTHERS: case CI_F_BY_COPY_ENGINE:
		case CI_F_COPY_TOUCHES_PAGE: case CI_F_PAGE_NAMES_NO_LAUNCH:
		case CI_F_BY_FAULT_ADDRESS: case CI_F_LAUNCH_TOUCHES_PAGE:
		case CI_F_BY_ARG_RELATION: case CI_F_ARG_EXPLAINS_PAGE:
			word_kernel_log(&w, &f[i]);
			break;
		case CI_F_ARG_LEFT_HISTORY: case CI_F_ARG_FREED_SINCE:
			word_history(&w, &f[i]);
			break;
		case CI_F_GRAPH_NOT_RECORDED: case CI_F_GRAPH_NODE_BY_PAGE: case CI_F_GRAPH_NODE_BY_RELATION:
		case CI_F_GRAPH_NODE_BAD_POINTER: case CI_F_GRAPH_NODE_UNKNOWN:
		case CI_F_GRAPH_NODE_BY_CRUMB: case CI_F_GRAPH_ONLY_NODE:
			word_graph(&w, &f[i]);
			break;
		case CI_F_BY_GPU_CORE: case CI_F_GPU_CORE_MISMATCH:
			word_gpu_core(&w, &f[i]);
			break;
		case CI_FINDING_COUNT:
			break;
		}
	}
	char *why = w.why.s ? w.why.s : strdup("");
	if (w.failed || w.why.failed || !why) {
		for (size_t i = 0; i < w.n_items; i++)
			free(w.items[i].text);
		free(w.items);
		free(why);
		return -1;
	}
	*reasoning = why;
	*items = w.items;
	*count = w.n_items;
	return 0;
}
