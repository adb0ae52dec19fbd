/* SPDX-License-Identifier: MIT */
/*
 * What the text and JSON renderers (and the crash signature) read of a report: its launches and
 * allocations as the session loaded them, the short name of a kernel for tables; and what the
 * front ends read of it (ci_report_model...).  The labels of the model's things are the model's
 * (model/labels.c), the text helpers of every stage in base/text.c.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* ---------------------------------------------------------------------------------------- */
/* Kernel names as a C++ demangler writes them: "void ns::kernel<args>(params)"               */

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '$';
}

/* What follows "operator" in an operator's name, longest first. */
static const char *const operator_tokens[] = {
	"()", "[]", "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
	"--", "->", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "^", "&",
	"|", "~", "!", "=", "<", ">", ",",
};

/* The length of the operator's name at P in NAME ("operator()", "operator<", "operator new[]"),
 * 0 if none starts there: its brackets open no template arguments and no parameters. */
static size_t operator_len(const char *name, const char *p)
{
	if (strncmp(p, "operator", 8) || (p > name && ident_char(p[-1])) || ident_char(p[8]))
		return 0;
	const char *q = p + 8;
	if (*q == ' ' && ident_char(q[1])) { /* new, delete, co_await, a conversion */
		for (q++; ident_char(*q); q++)
			;
		if (!strncmp(q, "[]", 2))
			q += 2;
		return (size_t)(q - p);
	}
	for (size_t i = 0; i < sizeof(operator_tokens) / sizeof(*operator_tokens); i++) {
		size_t l = strlen(operator_tokens[i]);
		if (!strncmp(q, operator_tokens[i], l))
			return 8 + l;
	}
	return 8;
}

#define NAME_GROUP_DEPTH 64

/* The end of the bracketed group that opens at P in NAME ('<', '(', '[' or '{'): just past its
 * closing bracket, or the end of NAME where it never closes (a cut or malformed name, or one
 * nested deeper than NAME_GROUP_DEPTH).  A '>' inside parentheses is a comparison, and a closing
 * bracket with no opener of its kind is ignored. */
static const char *group_end(const char *name, const char *p)
{
	char open[NAME_GROUP_DEPTH];
	size_t depth = 0;
	for (; *p; p++) {
		size_t ol = operator_len(name, p);
		if (ol) {
			p += ol - 1;
			continue;
		}
		char c = *p;
		if (c == '<' || c == '(' || c == '[' || c == '{') {
			if (depth == NAME_GROUP_DEPTH)
				return p + strlen(p);
			open[depth++] = c;
			continue;
		}
		char want = c == '>' ? '<' : c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : 0;
		if (!want || (want == '<' && (!depth || open[depth - 1] != '<')))
			continue;
		size_t k = depth;
		while (k > 0 && open[k - 1] != want)
			k--;
		if (!k)
			continue;
		depth = k - 1;
		if (!depth)
			return p + 1;
	}
	return p;
}

/* P past the qualifiers of a member function (" const", " volatile", " &", " &&"). */
static const char *after_qualifiers(const char *p)
{
	for (;;) {
		if (!strncmp(p, " const", 6) && !ident_char(p[6]))
			p += 6;
		else if (!strncmp(p, " volatile", 9) && !ident_char(p[9]))
			p += 9;
		else if (!strncmp(p, " &", 2))
			p += p[2] == '&' ? 3 : 2;
		else
			return p;
	}
}

/* Where NAME's name proper starts (*START: past a return type, "void ") and where its parameter
 * list does (*PARAMS: the first parenthesis at the top level that is no scope, i.e. not followed
 * by "::" as "(anonymous namespace)::" and "f(int)::{lambda()#1}" are; the end of NAME if none). */
static void name_bounds(const char *name, const char **start, const char **params)
{
	const char *p = name;
	*start = name;
	while (*p) {
		size_t ol = operator_len(name, p);
		if (ol) {
			p += ol;
			if (p[0] == ' ' && p[1] == '<') /* "operator< <int>": no return type before */
				p++;
		} else if (*p == '(') {
			const char *q = after_qualifiers(group_end(name, p));
			if ((q[0] != ':' || q[1] != ':') && p > *start)
				break;
			p = q;
		} else if (*p == '<' || *p == '[' || *p == '{') {
			p = group_end(name, p);
		} else {
			if (*p == ' ')
				*start = p + 1;
			p++;
		}
	}
	*params = p;
}

/* A string built in a buffer of N bytes: what does not fit is dropped, at a whole character,
 * and CUT says so. */
struct name_out {
	char *buf;
	size_t n, len;
	bool cut;
};

static void name_put(struct name_out *w, const char *s, size_t l)
{
	if (w->cut)
		return;
	if (w->len + l + 1 > w->n) {
		l = w->n > w->len + 1 ? w->n - w->len - 1 : 0;
		while (l > 0 && ((unsigned char)s[l] & 0xc0) == 0x80)
			l--;
		w->cut = true;
	}
	memcpy(w->buf + w->len, s, l);
	w->len += l;
	w->buf[w->len] = '\0';
}

/* End W's string: trailing spaces dropped, "…" where it was cut. */
static char *name_done(struct name_out *w)
{
	while (w->len > 0 && w->buf[w->len - 1] == ' ')
		w->buf[--w->len] = '\0';
	return w->cut ? ci_text_mark_cut(w->buf, w->n) : w->buf;
}

char *ci_kernel_short_name(const char *name, char *buf, size_t n)
{
	if (!n)
		return buf;
	struct name_out w = { buf, n, 0, false };
	const char *start, *params;
	name_bounds(name ? name : "", &start, &params);
	buf[0] = '\0';
	if (!name)
		return buf;
	name_put(&w, name, (size_t)(params - name));
	return name_done(&w);
}

bool ci_kernel_brief_unqualify(char *brief)
{
	for (const char *p = brief; *p;) {
		size_t ol = operator_len(brief, p);
		if (ol) {
			p += ol;
		} else if (*p == '<' || *p == '(' || *p == '[' || *p == '{') {
			p = group_end(brief, p);
		} else if (p[0] == ':' && p[1] == ':' && p[2]) {
			memmove(brief, p + 2, strlen(p + 2) + 1);
			return true;
		} else {
			p++;
		}
	}
	return false;
}

char *ci_kernel_brief_name(const char *name, size_t width, char *buf, size_t n)
{
	if (!n)
		return buf;
	struct name_out w = { buf, n, 0, false };
	buf[0] = '\0';
	if (!name)
		name = "";
	if (*name == '<') { /* a placeholder of the labels' ("<unknown function 0x…>"), no C++ */
		name_put(&w, name, strlen(name));
	} else {
		const char *start, *params;
		name_bounds(name, &start, &params);
		for (const char *p = start; p < params && !w.cut;) {
			size_t ol = operator_len(name, p);
			const char *e = p + 1;
			if (ol) {
				e = p + ol;
				name_put(&w, p, ol);
			} else if (!strncmp(p, "(anonymous namespace)::", 23)) {
				e = p + 23; /* noise: the name is unique enough without it */
			} else if (*p == '(') { /* a function's scope: "f(…)::{lambda()#1}" */
				e = after_qualifiers(group_end(name, p));
				name_put(&w, "(…)", strlen("(…)"));
			} else if (*p == '<') {
				e = group_end(name, p);
				name_put(&w, "<…>", strlen("<…>"));
			} else {
				if (*p == '[' || *p == '{') /* "[abi:cxx11]", "{lambda()#1}" as they are */
					e = group_end(name, p);
				name_put(&w, p, (size_t)(e - p));
			}
			p = e;
		}
	}
	name_done(&w);
	if (width) {
		while (ci_text_width(buf) > width && ci_kernel_brief_unqualify(buf))
			;
		ci_text_fit(buf, n, width);
	}
	return buf;
}

const struct ci_model *ci_report_model(const struct ci_report *r) { return r->model; }
const struct ci_diagnosis *ci_report_diagnosis(const struct ci_report *r) { return r->diagnosis; }
const struct ci_evidence *ci_report_evidence(const struct ci_report *r) { return r->evidence; }

/* A launch or allocation the session did not load: zeros, no function and no stream, so that a
 * renderer asked for one prints "<unknown function>" instead of failing. */
static const struct ci_launch placeholder_launch = {
	.function = CI_NONE, .stream = CI_NONE, .ctx = CI_NONE,
};
static const struct ci_alloc placeholder_alloc = {
	.ctx = CI_NONE, .stream = CI_NONE, .free_stream = CI_NONE,
};

struct ci_launch_filter ci_render_launch_filter(const struct ci_render_options *opt, size_t newest)
{
	return (struct ci_launch_filter){
		.newest = newest,
		.has_thread = opt->has_thread_filter,
		.thread = opt->thread_filter,
		.has_stream = opt->has_stream_filter,
		.stream = opt->stream_filter,
		.kernel = opt->kernel_filter,
	};
}

bool ci_launch_matches(const struct ci_model *m, const struct ci_render_options *opt,
		       const struct ci_launch *l)
{
	struct ci_launch_filter f = ci_render_launch_filter(opt, 0);
	return ci_launch_filter_matches(m, &f, l);
}

const struct ci_launch *ci_report_launch(const struct ci_report *r, size_t i)
{
	const struct ci_launch *l = ci_model_launch_loaded(r->model, i);
	return l ? l : &placeholder_launch;
}

const struct ci_alloc *ci_report_alloc(const struct ci_report *r, size_t i)
{
	const struct ci_alloc *a = ci_model_alloc_loaded(r->model, i);
	return a ? a : &placeholder_alloc;
}
