/* SPDX-License-Identifier: MIT */
/*
 * Stage 6, text: the one-screen summary (most important first, ending with what to do next) and
 * the views (contexts, streams, kernels, graphs, allocs, errors, threads, nccl, fault, all); the
 * NCCL state is read as the merge reads it (report/job_facts.c).  Every string that comes from the
 * record is scrubbed before it reaches the terminal; lines and paragraphs are wrapped at the
 * requested width, never cut.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpucore/gpucore.h"
#include "session.h"

#define SUMMARY_FRAMES 3        /* launch-site and error-thread frames in the summary */
#define PYTHON_SUMMARY_FRAMES 8 /* Python frames of the error thread in the summary */
#define NARROW 100              /* below this width the summary's launch site has a frame less */
#define SUMMARY_ATTRIBUTIONS 3
#define SUMMARY_STREAMS 2
#define SUMMARY_WARNINGS 3
#define SUMMARY_NCCL_COMMS 2    /* communicators the summary names */
#define NCCL_CALLS_DEFAULT 20   /* collectives per communicator the nccl view shows */

struct ci_text_out {
	FILE *f;
	int width;
	bool color;
	const struct ci_report *r;
	const struct ci_render_options *o;
	const struct ci_model *m;
	const struct ci_diagnosis *d;
	const char *input;   /* how to name the input in suggested commands */
	bool bold;           /* put_wrapped prints a heading (in color: bold) */
};

/* ---------------------------------------------------------------------------------------- */
/* Output primitives                                                                          */

/* Length in bytes of the UTF-8 sequence at S (1 for anything that is not one). */
static size_t cp_len(const char *s)
{
	size_t n = 1;
	while (s[n] && ((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	return n;
}

/* Print S wrapped at the width, never cut: continuation lines are indented four columns past
 * the line's own indent, and break at spaces (a word longer than a line is broken).  Returns the
 * number of lines printed. */
static int put_wrapped(struct ci_text_out *o, const char *s)
{
	size_t w = (size_t)o->width;
	const char *on = o->bold && o->color ? "\033[1m" : "", *off = *on ? "\033[0m" : "";
	if (ci_text_width(s) <= w) {
		fprintf(o->f, "%s%s%s\n", on, s, off);
		return 1;
	}
	/* "Error     text…": continuation under the text; "  text…": four columns in. */
	size_t lead = strspn(s, " "), label = 0;
	if (!lead) {
		const char *sp = strstr(s, "  ");
		if (sp && sp - s < 12 && !memchr(s, ' ', (size_t)(sp - s)))
			label = (size_t)(sp - s) + strspn(sp, " ");
	}
	size_t indent = label ? label : lead + 4;
	if (indent > w / 2)
		indent = w / 2;
	const char *p = s;
	int lines = 0;
	for (bool first = true; *p; first = false) {
		size_t avail = w - (first ? 0 : indent), n = 0;
		const char *q = p, *space = NULL;
		for (; *q && n < avail; q += cp_len(q), n++)
			if (*q == ' ' && q > p + (first ? lead : 0))
				space = q;
		const char *cut = !*q || *q == ' ' ? q : space ? space : q;
		const char *end = cut;
		while (end > p && end[-1] == ' ')
			end--;
		if (!first)
			fprintf(o->f, "%*s", (int)indent, "");
		fputs(on, o->f);
		fwrite(p, 1, (size_t)(end - p), o->f);
		fprintf(o->f, "%s\n", off);
		lines++;
		for (p = cut; *p == ' '; p++)
			;
	}
	return lines;
}

__attribute__((format(printf, 2, 3))) static void line(struct ci_text_out *o, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int l = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (l >= (int)sizeof(buf)) /* never cut without saying so */
		ci_text_mark_cut(buf, sizeof(buf));
	put_wrapped(o, buf);
}

static void heading(struct ci_text_out *o, const char *s)
{
	o->bold = true;
	put_wrapped(o, s);
	o->bold = false;
}

/* Word-wrap TEXT at the width with INDENT spaces before every line but the first, which gets
 * FIRST (e.g. a label).  Returns the number of lines printed. */
static int para(struct ci_text_out *o, const char *first, int indent, const char *text)
{
	int lines = 0;
	size_t w = (size_t)o->width;
	size_t col = ci_text_width(first);
	bool line_empty = true; /* no word on this line yet */
	fputs(first, o->f);
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		size_t wl = 0;
		for (const char *q = p; q < e; q++)
			wl += ((unsigned char)*q & 0xc0) != 0x80;
		if (!line_empty && col + 1 + wl > w) {
			fprintf(o->f, "\n%*s", indent, "");
			lines++;
			col = (size_t)indent;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', o->f);
			col++;
		}
		fwrite(p, 1, (size_t)(e - p), o->f);
		col += wl;
		line_empty = false;
		p = e;
	}
	fputc('\n', o->f);
	return lines + 1;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

/* The kernel of launch L without its parameter list, for tables. */
static char *short_kernel(struct ci_text_out *o, const struct ci_launch *l, char *buf, size_t n)
{
	char full[2048];
	return ci_kernel_short_name(ci_launch_kernel_name(o->m, l, full, sizeof(full)), buf, n);
}

/* "decode_step (main.c:214) miniengine+0x2a31" */
static char *fmt_frame(const struct ci_frame *f, char *buf, size_t n)
{
	char fn[256], file[256], mod[256];
	size_t o = 0;
	if (f->kind == CI_FRAME_PYTHON) {
		/* "Engine.launch (engine.py:42) [Python]" */
		if (f->file)
			snprintf(buf, n, "%s (%s:%d) [Python]",
				 f->function ? ci_scrub(f->function, fn, sizeof(fn)) : "??",
				 ci_scrub(base_name(f->file), file, sizeof(file)), f->line);
		else
			snprintf(buf, n, "%s [Python]",
				 f->function ? ci_scrub(f->function, fn, sizeof(fn)) : "??");
		return buf;
	}
	if (f->function)
		o += (size_t)snprintf(buf + o, n - o, "%s", ci_scrub(f->function, fn, sizeof(fn)));
	else
		o += (size_t)snprintf(buf + o, n - o, "??");
	if (o < n && f->file)
		o += (size_t)snprintf(buf + o, n - o, " (%s:%d)",
				      ci_scrub(base_name(f->file), file, sizeof(file)), f->line);
	if (o < n && f->inlined)
		o += (size_t)snprintf(buf + o, n - o, " [inlined]");
	if (o < n && f->module)
		snprintf(buf + o, n - o, " %s+0x%" PRIx64,
			 ci_scrub(base_name(f->module), mod, sizeof(mod)), f->module_offset);
	else if (o < n)
		snprintf(buf + o, n - o, " 0x%" PRIx64, f->address);
	return buf;
}

/* Whether frame F is in one of the N functions NAMES. */
static bool frame_in(const struct ci_frame *f, const char *const *names, size_t n)
{
	for (size_t i = 0; f->function && i < n; i++)
		if (strcmp(f->function, names[i]) == 0)
			return true;
	return false;
}

/* Where every thread starts: frames below these say nothing about the crash. */
static bool is_thread_start(const struct ci_frame *f)
{
	static const char *const names[] = {
		"start_thread", "clone", "__clone", "__clone3", "_start", "__libc_start_main",
		"__libc_start_main_impl", "__libc_start_call_main",
	};
	return frame_in(f, names, sizeof(names) / sizeof(names[0]));
}

/* A Python frame of an installed package's code (numba's launch machinery, a framework's
 * wrappers) rather than the program's own: the user's line is further out. */
static bool library_frame(const struct ci_frame *f)
{
	return f->kind == CI_FRAME_PYTHON && f->file &&
	       (strstr(f->file, "/site-packages/") || strstr(f->file, "/dist-packages/"));
}

/* The innermost Python frame of stack ID (N entries) outside installed packages, or NULL. */
static const struct ci_frame *user_frame(struct ci_text_out *o, uint32_t id, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ci_resolved_pc *p = ci_report_pc(o->r, id, i);
		for (size_t k = 0; p && k < p->count; k++)
			if (p->frames[k].kind == CI_FRAME_PYTHON && !library_frame(&p->frames[k]))
				return &p->frames[k];
	}
	return NULL;
}

/* Print up to MAX frames of recorded stack ID (return addresses), each on its own line after
 * PREFIX (the first) or an indent of the same width.  Returns lines printed. */
static int print_stack(struct ci_text_out *o, const char *prefix, uint32_t id, size_t max)
{
	size_t n = 0;
	const uint64_t *pcs = ci_model_stack(o->m, id, &n);
	int lines = 0;
	size_t indent = ci_text_width(prefix);
	if (!pcs || n == 0) {
		line(o, "%s(no stack recorded)", prefix);
		return 1;
	}
	size_t shown = 0;
	bool user_shown = false;
	/* With Python frames: those first (where the user's code is), then the native ones. */
	enum ci_frames_shown which = o->o->frames;
	bool python = false;
	for (size_t i = 0; i < n; i++)
		python |= (pcs[i] & CI_PYFRAME_TAG) != 0;
	for (int pass = python ? 0 : 1; pass < 2; pass++) {
		if ((pass == 0 && which == CI_FRAMES_NATIVE) || (pass == 1 && python && which == CI_FRAMES_PYTHON))
			continue;
		for (size_t i = 0; i < n && shown < max; i++) {
			const struct ci_resolved_pc *rp = ci_report_pc(o->r, id, i);
			struct ci_frame bare = { .address = pcs[i] };
			const struct ci_frame *fr = rp ? rp->frames : &bare;
			size_t nf = rp ? rp->count : 1;
			if (pass == 1 && shown && nf && fr[0].kind == CI_FRAME_NATIVE && is_thread_start(&fr[0]))
				break;
			for (size_t k = 0; k < nf && shown < max; k++) {
				char buf[768];
				if ((fr[k].kind == CI_FRAME_PYTHON) != (pass == 0))
					continue;
				line(o, "%*s%s", (int)(shown ? indent : 0), shown ? "" : prefix,
				     fmt_frame(&fr[k], buf, sizeof(buf)));
				lines++;
				shown++;
				user_shown |= fr[k].kind == CI_FRAME_PYTHON && !library_frame(&fr[k]);
			}
		}
	}
	/* Only a package's frames fit (numba's launch path): the program's own line as well. */
	const struct ci_frame *u = python && which != CI_FRAMES_NATIVE && !user_shown ? user_frame(o, id, n) : NULL;
	if (u && shown) {
		char buf[768];
		line(o, "%*s… %s (the innermost frame outside site-packages)", (int)indent, "",
		     fmt_frame(u, buf, sizeof(buf)));
		lines++;
	}
	return lines;
}

/* One-line launch site ("decode_step (main.c:214) miniengine+0x2a31") or "". */
static char *stack_site(struct ci_text_out *o, uint32_t id, char *buf, size_t n)
{
	size_t np = 0;
	const uint64_t *pcs = ci_model_stack(o->m, id, &np);
	buf[0] = '\0';
	if (!pcs || np == 0)
		return buf;
	const struct ci_resolved_pc *rp = ci_report_pc(o->r, id, 0);
	struct ci_frame bare = { .address = pcs[0] };
	const struct ci_frame *f = rp && rp->count ? &rp->frames[0] : &bare;
	/* A stack with Python frames: its innermost one outside installed packages is the user's
	 * launch site, else its innermost one. */
	const struct ci_frame *u = o->o->frames != CI_FRAMES_NATIVE ? user_frame(o, id, np) : NULL;
	for (size_t i = 0; !u && o->o->frames != CI_FRAMES_NATIVE && i < np; i++) {
		const struct ci_resolved_pc *p = ci_report_pc(o->r, id, i);
		size_t k = 0;
		while (p && k < p->count && p->frames[k].kind != CI_FRAME_PYTHON)
			k++;
		if (p && k < p->count) {
			f = &p->frames[k];
			break;
		}
	}
	if (u)
		f = u;
	if (f->function && f->file) {
		/* Function and line say it all; the module would only crowd a one-line site. */
		char fn[256], file[256];
		snprintf(buf, n, "%s (%s:%d)", ci_scrub(f->function, fn, sizeof(fn)),
			 ci_scrub(base_name(f->file), file, sizeof(file)), f->line);
		return buf;
	}
	fmt_frame(f, buf, n);
	return buf;
}

static const char *end_word(struct ci_text_out *o)
{
	if (o->d && o->d->signal)
		return "the crash";
	if (o->m->header.state == CI_STATE_EXITED)
		return "exit";
	if (o->m->header.origin == CI_ORIGIN_SNAPSHOT)
		return "the snapshot";
	return "the newest entry";
}

/* "1.2 ms before the crash" */
static char *ago(struct ci_text_out *o, uint64_t t, char *buf, size_t n)
{
	uint64_t end = ci_model_end_ns(o->m);
	char d[32];
	if (!t || !end)
		snprintf(buf, n, "at an unknown time");
	else if (t <= end)
		snprintf(buf, n, "%s before %s", ci_fmt_duration(end - t, d, sizeof(d)), end_word(o));
	else
		snprintf(buf, n, "%s after %s", ci_fmt_duration(t - end, d, sizeof(d)), end_word(o));
	return buf;
}

/* Time since the record started, for tables: "12.345678 s" */
static char *rel_time(struct ci_text_out *o, uint64_t t, char *buf, size_t n)
{
	uint64_t s0 = o->m->header.start_monotonic_ns;
	if (!t || t < s0)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%.6f", (double)(t - s0) / 1e9);
	return buf;
}

static char *thread_desc(struct ci_text_out *o, uint32_t tid, char *buf, size_t n)
{
	char name[32];
	ci_thread_name(o->m, tid, name, sizeof(name));
	for (size_t i = 0; !name[0] && o->r->source && i < o->r->source->thread_count; i++)
		if (o->r->source->threads[i].tid == tid)
			CI_SCRUB_FIELD(o->r->source->threads[i].name, name);
	if (name[0])
		snprintf(buf, n, "thread %" PRIu32 " \"%s\"", tid, name);
	else
		snprintf(buf, n, "thread %" PRIu32, tid);
	return buf;
}

static const char *cmdline(struct ci_text_out *o)
{
	const char *c = ci_model_string(o->m, o->m->header.cmdline_str);
	if (!*c && o->r->source && o->r->source->psargs)
		c = o->r->source->psargs;
	return c;
}

static const char *executable(struct ci_text_out *o)
{
	const char *e = ci_model_string(o->m, o->m->header.exe_str);
	if (!*e && o->r->source && o->r->source->executable)
		e = o->r->source->executable;
	return e;
}

/* The program's name for a title: the executable's base name, else the command line's first
 * word's, else a phrase that says it is not known (a record cut short lost its strings). */
static char *program_name(struct ci_text_out *o, char *buf, size_t n)
{
	const char *e = executable(o), *c = cmdline(o);
	if (*e) {
		ci_scrub(base_name(e), buf, n);
	} else if (*c) {
		char word[256];
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(c, " "), c);
		ci_scrub(base_name(word), buf, n);
	} else {
		snprintf(buf, n, "an unknown program");
	}
	return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Attribution wording (compute-sanitizer style)                                             */

/* "the 5 earlier launches", "4 of the 5 earlier launches" */
static void history_count(const struct ci_attribution *a, char *buf, size_t n)
{
	if (a->history_inside == a->history_launches)
		snprintf(buf, n, "the %" PRIu32 " earlier launch%s", a->history_inside,
			 a->history_inside == 1 ? "" : "es");
	else
		snprintf(buf, n, "%" PRIu32 " of the %" PRIu32 " earlier launches", a->history_inside,
			 a->history_launches);
}

/* What the argument history adds: "which this parameter pointed into in the 5 earlier
 * launches of attn_decode; it lies inside allocation #3 at offset 64". */
static void history_text(struct ci_text_out *o, const struct ci_attribution *a, char *buf, size_t n)
{
	char name[1024], cnt[64], off[48];
	*buf = '\0';
	if (a->history != CI_HISTORY_LEFT && a->history != CI_HISTORY_FREED_SINCE)
		return;
	short_kernel(o, ci_report_launch(o->r, a->launch), name, sizeof(name));
	history_count(a, cnt, sizeof(cnt));
	int k = snprintf(buf, n, " This parameter pointed into #%" PRIu64 " in %s of %s%s",
			 a->history_alloc->id, cnt, name,
			 a->history == CI_HISTORY_FREED_SINCE ? ", while it was live; it was freed before "
								"this launch was made." : "");
	if (k < 0 || (size_t)k >= n || a->history == CI_HISTORY_FREED_SINCE)
		return;
	const struct ci_alloc *nb = a->neighbour;
	if (nb && nb == a->history_alloc && a->relation == CI_REL_FREED && !a->neighbour_offset)
		/* A use after free first (history.c): where it lies against the history's. */
		snprintf(buf + k, n - (size_t)k, "; this address is right %s.",
			 a->neighbour_relation == CI_REL_PAST_END ? "after its end" : "before its start");
	else if (nb && nb == a->history_alloc && a->relation == CI_REL_FREED)
		snprintf(buf + k, n - (size_t)k, "; this address is %s bytes %s.",
			 ci_fmt_count(a->neighbour_offset, off, sizeof(off)),
			 a->neighbour_relation == CI_REL_PAST_END ? "past its end" : "before its start");
	else if (!nb)
		snprintf(buf + k, n - (size_t)k, "; it lies in no recorded allocation.");
	else if (a->neighbour_relation == CI_REL_INSIDE || a->neighbour_relation == CI_REL_FREED)
		snprintf(buf + k, n - (size_t)k, "; it lies inside %s#%" PRIu64 " at offset %s.",
			 a->neighbour_relation == CI_REL_FREED ? "FREED " : "", nb->id,
			 ci_fmt_count(a->neighbour_offset, off, sizeof(off)));
	else
		snprintf(buf + k, n - (size_t)k, "; it lies %s bytes %s allocation #%" PRIu64 ".",
			 ci_fmt_count(a->neighbour_offset, off, sizeof(off)),
			 a->neighbour_relation == CI_REL_PAST_END ? "after" : "before", nb->id);
}

static void attribution_text(struct ci_text_out *o, const struct ci_attribution *a, bool full,
			     char *buf, size_t n)
{
	char size[48], off[48], when[96], who[64], freed[224] = "", hist[512] = "";
	const struct ci_alloc *al = a->alloc;
	if (full)
		history_text(o, a, hist, sizeof(hist));
	if (al && (a->relation == CI_REL_INSIDE || a->relation == CI_REL_FREED)) {
		if (a->relation == CI_REL_FREED)
			snprintf(freed, sizeof(freed), ", which was FREED %s by %s",
				 ago(o, al->free_ns, when, sizeof(when)),
				 thread_desc(o, al->free_tid, who, sizeof(who)));
		snprintf(buf, n,
			 "Address 0x%" PRIx64 " is inside allocation #%" PRIu64 " at 0x%" PRIx64
			 " of size %s bytes (%s), at offset %s%s.%s",
			 a->address, al->id, al->address, ci_fmt_count(al->size, size, sizeof(size)),
			 ci_alloc_kind_name(al->kind), ci_fmt_count(a->offset, off, sizeof(off)), freed,
			 hist);
		return;
	}
	/* An address outside what was recorded may be inside what was not. */
	char lost[160] = "";
	uint64_t dropped = o->m->sections[CI_SEC_ALLOCS].dropped;
	if (dropped)
		snprintf(lost, sizeof(lost), " But the allocation table was full (%s allocations not "
			 "recorded): it may be inside one of those.", ci_fmt_count(dropped, off, sizeof(off)));
	const char *where = a->relation == CI_REL_PAST_END ? "after" : "before";
	if (!al) {
		snprintf(buf, n,
			 "Address 0x%" PRIx64 " is not inside or near any recorded allocation "
			 "(live or recently freed).%s", a->address, lost);
		return;
	}
	if (a->history == CI_HISTORY_LEFT) {
		snprintf(buf, n,
			 "Address 0x%" PRIx64 " is %s bytes %s allocation #%" PRIu64 " at 0x%" PRIx64
			 " of size %s bytes (%s).%s",
			 a->address, ci_fmt_count(a->offset, off, sizeof(off)),
			 a->relation == CI_REL_PAST_END ? "past the end of" : "before the start of",
			 al->id, al->address, ci_fmt_count(al->size, size, sizeof(size)),
			 ci_alloc_kind_name(al->kind), hist);
		return;
	}
	snprintf(buf, n,
		 "Address 0x%" PRIx64 " is %s bytes %s the nearest allocation #%" PRIu64
		 " at 0x%" PRIx64 " of size %s bytes (%s).%s",
		 a->address, ci_fmt_count(a->offset, off, sizeof(off)), where, al->id, al->address,
		 ci_fmt_count(al->size, size, sizeof(size)), ci_alloc_kind_name(al->kind), lost);
}

static void print_attribution(struct ci_text_out *o, const struct ci_attribution *a, bool full)
{
	char text[1152], label[64], site[768], who[64];
	snprintf(label, sizeof(label), "  arg %" PRIu32 " (+%" PRIu32 "): ", a->arg, a->param_offset);
	if (!full && a->history == CI_HISTORY_LEFT && a->alloc && a->relation != CI_REL_FREED) {
		/* The summary's one sentence: "0x… is 64 bytes past the end of #2 (262,144 B,
		 * allocated at load_weights), which this parameter pointed into in the 5 earlier
		 * launches of attn_decode; it lies inside #3 at offset 64." */
		char size[32], off[48], hist[512], name[1024], cnt[64];
		stack_site(o, a->alloc->stack, site, sizeof(site));
		history_text(o, a, hist, sizeof(hist));
		const char *rest = strchr(hist, ';');
		short_kernel(o, ci_report_launch(o->r, a->launch), name, sizeof(name));
		history_count(a, cnt, sizeof(cnt));
		site[strcspn(site, " ")] = '\0';
		const char *site_word = *site ? site : NULL;
		int k = snprintf(text, sizeof(text), "0x%" PRIx64 " is %s bytes %s #%" PRIu64 " (%s%s%s), which "
			 "this parameter pointed into in %s of %s%s", a->address,
			 ci_fmt_count(a->offset, off, sizeof(off)),
			 a->relation == CI_REL_PAST_END ? "past the end of" : "before the start of",
			 a->alloc->id, ci_fmt_size(a->alloc->size, size, sizeof(size)),
			 site_word ? ", allocated at " : "", site_word ? site_word : "", cnt, name,
			 rest ? rest : ".");
		if (k < 0)
			return;
		para(o, label, 6, text);
		return;
	}
	attribution_text(o, a, full, text, sizeof(text));
	para(o, label, 6, text);
	if (full && a->fault_related && a->fault_fit != CI_FIT_NONE) {
		char fit[320];
		snprintf(text, sizeof text, "the fault page is %s", ci_fault_fit_phrase(a, fit, sizeof fit));
		para(o, "      ", 6, text);
	}
	if (!a->alloc)
		return;
	if (!full) {
		stack_site(o, a->alloc->stack, site, sizeof(site));
		line(o, "      allocated by %s at %s", thread_desc(o, a->alloc->tid, who, sizeof(who)),
		     *site ? site : "(no stack recorded)");
		if (a->relation == CI_REL_FREED) {
			stack_site(o, a->alloc->free_stack, site, sizeof(site));
			line(o, "      freed at %s", *site ? site : "(no stack recorded)");
		}
		if (a->relation == CI_REL_FREED && a->history == CI_HISTORY_LEFT) {
			/* The argument history, second to the use after free. */
			char hist[512];
			history_text(o, a, hist, sizeof hist);
			if (*hist)
				para(o, "      ", 6, hist + 1);
		}
		return;
	}
	char when[96];
	line(o, "      allocated %s by %s:", ago(o, a->alloc->time_ns, when, sizeof(when)),
	     thread_desc(o, a->alloc->tid, who, sizeof(who)));
	print_stack(o, "        ", a->alloc->stack, 16);
	if (a->relation == CI_REL_FREED) {
		line(o, "      freed %s by %s:", ago(o, a->alloc->free_ns, when, sizeof(when)),
		     thread_desc(o, a->alloc->free_tid, who, sizeof(who)));
		print_stack(o, "        ", a->alloc->free_stack, 16);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Summary                                                                                    */

static void summary_process(struct ci_text_out *o)
{
	char buf[512], sig[32], who[64];
	const struct ci_header *h = &o->m->header;
	const char *cmd = cmdline(o);
	/* The pid is in the title; the host only where it fits (the JSON has both). */
	const char *what = *cmd ? cmd : executable(o);
	char host[CI_NAME_MAX + 1], text[700];
	int n = snprintf(text, sizeof(text), "Process   %s",
			 *what ? ci_scrub(what, buf, sizeof(buf)) : "unknown (its name is not in the input)");
	if (n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, "  (host %s)", CI_SCRUB_FIELD(h->host, host));
	if (ci_text_width(text) > (size_t)o->width)
		text[n] = '\0';
	line(o, "%s", text);
	bool live = o->r->source && o->r->source->kind == CI_SOURCE_PID;
	if (o->d->signal)
		line(o, "Signal    %s received by %s%s", ci_signal_name(o->d->signal, sig, sizeof(sig)),
		     o->d->signal_tid ? thread_desc(o, o->d->signal_tid, who, sizeof(who))
				      : "an unknown thread",
		     live ? " (the process is alive, stopped at it)" : "");
	else if (live && o->r->request.held)
		line(o, "Signal    none: %s holds the process stopped",
		     o->o->hints == CI_HINTS_GDB ? "GDB" : "a debugger");
	else if (live)
		line(o, "Signal    none: the process is alive (read without stopping it)");
	else if (h->state == CI_STATE_EXITED)
		line(o, "Signal    none: the process exited normally");
	else
		line(o, "Signal    none recorded");
	size_t nd = 0;
	for (size_t i = 0; i < o->m->device_count; i++) {
		const struct ci_device *dv = &o->m->devices[i];
		if (!dv->seq)
			continue;
		if (nd++ >= 2)
			continue;
		char name[128], mem[32];
		line(o, "Device    %d: %s (sm_%d%d, %d SMs, %s)", dv->ordinal,
		     CI_SCRUB_FIELD(dv->name, name), dv->cc_major, dv->cc_minor, dv->sm_count,
		     ci_fmt_size(dv->total_mem, mem, sizeof(mem)));
	}
	if (nd > 2)
		line(o, "          and %zu more devices (view: contexts)", nd - 2);
	if (nd == 0)
		line(o, "Device    none recorded (the process never initialized CUDA?)");
}

/* The first sticky (else the last) error; BRIEF leaves the number out of the first line where
 * it would not fit (the errors view and the JSON have it). */
static void summary_error(struct ci_text_out *o, bool brief)
{
	const struct ci_diagnosis *d = o->d;
	ptrdiff_t ei = d->first_sticky_error >= 0 ? d->first_sticky_error : d->last_error;
	if (ei < 0) {
		const struct ci_section_stats *es = &o->m->sections[CI_SEC_ERRORS];
		if (es->present && es->missing && !es->accepted)
			line(o, "Error     unknown: the record's error ring is not in the input");
		else
			line(o, "Error     no CUDA error recorded");
		return;
	}
	const struct ci_api_error *e = &o->m->errors[ei];
	char api[CI_API_NAME_MAX + 1], who[64], when[96];
	char num[24];
	snprintf(num, sizeof(num), " (%d)", e->result);
	if (brief && 10 + strlen(ci_cuda_result_name(e->result)) + strlen(num) + 2 +
			     ci_text_width(ci_cuda_result_text(e->result)) > (size_t)o->width)
		num[0] = '\0';
	line(o, "Error     %s%s: %s", ci_cuda_result_name(e->result), num,
	     ci_cuda_result_text(e->result));
	line(o, "          %s by %s in %s, %s",
	     d->first_sticky_error >= 0 ? "first returned" : "returned",
	     CI_SCRUB_FIELD(e->api, api), thread_desc(o, e->tid, who, sizeof(who)),
	     ago(o, e->time_ns, when, sizeof(when)));
}

/* Launch I as the views show it: a faulting graph launch whose kernel node the diagnosis
 * named is that node (its kernel, shape, arguments and capture stack). */
static const struct ci_launch *shown_launch(const struct ci_text_out *o, size_t i)
{
	const struct ci_diagnosis *d = o->d;
	if (d->graph && d->graph->faulting_node >= 0 && d->faulting_launch >= 0 &&
	    i == (size_t)d->faulting_launch)
		return &d->graph->kernel;
	return ci_report_launch(o->r, i);
}

/* "graph 0x55…": the graph of slot SLOT, or "a graph the record lacks". */
static const char *graph_label(const struct ci_model *m, uint32_t slot, char *buf, size_t n)
{
	if (slot != CI_NONE && slot < m->graph_count && m->graphs[slot].seq)
		snprintf(buf, n, "%s graph 0x%" PRIx64, ci_graph_origin_name(m->graphs[slot].origin),
			 m->graphs[slot].handle);
	else
		snprintf(buf, n, "a graph the record lacks");
	return buf;
}

static const char *node_state_text(enum ci_launch_state s)
{
	switch (s) {
	case CI_LS_FINISHED: return "finished";
	case CI_LS_IN_FLIGHT: return "RUNNING";
	case CI_LS_NOT_STARTED: return "not started";
	default: return "unknown";
	}
}

/* Kernel node I of replay G, a line: its node number, state, name, grid and block, what the exec
 * changed, whether it faulted.  BRIEF (the summary): the name is the brief one; where it does not
 * fit the width beside the grid and block, those are left out (the faulting node's are on the
 * launch's line, every node's in the graphs view), and if it still does not fit it loses leading
 * qualifiers and then its end ("…").  Else the name is the full one without parameters. */
static void replay_node_line(struct ci_text_out *o, const struct ci_graph_replay *g, size_t i,
			     const char *indent, bool brief)
{
	const struct ci_graph_node *e = g->nodes[i].node;
	struct ci_launch k = { .function = e->function, .function_handle = e->function_handle };
	char name[4096], shown[1024], nn[64], head[128], dims[112];
	const char *note = e->flags & CI_NODE_DISABLED ? "  (disabled in this exec: an empty node)"
			   : e->exec != CI_NONE        ? "  (updated in this exec)" : "";
	const char *fault = o->d->graph == g && g->faulting_node == (ptrdiff_t)i ? "  <- faulted" : "";
	snprintf(head, sizeof head, "%snode %-3s %-12s ", indent, ci_graph_replay_node_name(g, i, nn, sizeof nn),
		 node_state_text(g->nodes[i].state));
	snprintf(dims, sizeof dims, "  grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") block (%" PRIu32 ",%" PRIu32
		 ",%" PRIu32 ")", e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1], e->block[2]);
	ci_launch_kernel_name(o->m, &k, name, sizeof name);
	if (!brief) {
		ci_kernel_short_name(name, shown, sizeof shown);
	} else {
		size_t used = ci_text_width(head) + ci_text_width(note) + ci_text_width(fault);
		size_t w = (size_t)o->width, dw = ci_text_width(dims);
		ci_kernel_brief_name(name, 0, shown, sizeof shown);
		if (used + dw + ci_text_width(shown) > w) {
			dims[0] = '\0';
			ci_kernel_brief_name(name, w > used ? w - used : 1, shown, sizeof shown);
		}
	}
	line(o, "%s%s%s%s%s", head, shown, dims, note, fault);
}

#define RUN_NAMES 16 /* kernel names a collapsed run counts (more: "… (view: graphs)") */

struct run_name {
	char name[256]; /* brief, unlimited */
	char shown[256];
	size_t count;
	bool bare; /* no qualifier left to drop */
};

/* Whether the run line of NAMES[0..SHOWN) with HEAD and TAIL fits the width once the widest
 * names lose leading qualifiers one at a time; it is written to BUF either way. */
static bool run_line_fits(struct ci_text_out *o, struct run_name *names, size_t shown, const char *head,
			  const char *tail, char *buf, size_t n)
{
	for (size_t j = 0; j < shown; j++) {
		memcpy(names[j].shown, names[j].name, sizeof(names[j].shown));
		names[j].bare = false;
	}
	for (;;) {
		size_t len = (size_t)snprintf(buf, n, "%s", head);
		for (size_t j = 0; j < shown && len < n; j++)
			len += (size_t)snprintf(buf + len, n - len, "%s%zu × %s", j ? ", " : "", names[j].count,
						names[j].shown);
		if (len < n)
			snprintf(buf + len, n - len, "%s%s", *tail && shown ? ", " : "", tail);
		if (ci_text_width(buf) <= (size_t)o->width)
			return true;
		size_t widest = SIZE_MAX;
		for (size_t j = 0; j < shown; j++)
			if (!names[j].bare && (widest == SIZE_MAX ||
					       ci_text_width(names[j].shown) > ci_text_width(names[widest].shown)))
				widest = j;
		if (widest == SIZE_MAX)
			return false;
		names[widest].bare = !ci_kernel_brief_unqualify(names[widest].shown);
	}
}

/* Kernel nodes KS[FROM..TO] of replay G, all in one state, a line: "nodes 0–11 finished: 4 ×
 * cutlass::Kernel2<…>, 4 × splitKreduce_kernel<…>", counted by brief name in the order they
 * first run.  Where that is wider than the width, the widest names lose leading qualifiers; then
 * the names at the end are left out, whole, for "… (view: graphs)". */
static void replay_run_line(struct ci_text_out *o, const struct ci_graph_replay *g, const size_t *ks,
			    size_t from, size_t to, const char *indent)
{
	struct run_name *names = calloc(RUN_NAMES, sizeof(*names));
	char a[64], z[64], head[256], buf[8192];
	if (!names)
		return;
	size_t nn = 0;
	bool more = false;
	for (size_t at = from; at <= to; at++) {
		const struct ci_graph_node *e = g->nodes[ks[at]].node;
		struct ci_launch k = { .function = e->function, .function_handle = e->function_handle };
		char full[4096], b[sizeof(names->name)];
		ci_kernel_brief_name(ci_launch_kernel_name(o->m, &k, full, sizeof full), 0, b, sizeof b);
		size_t j = 0;
		while (j < nn && strcmp(names[j].name, b))
			j++;
		if (j == nn && nn == RUN_NAMES) {
			more = true;
			continue;
		}
		if (j == nn)
			memcpy(names[nn++].name, b, sizeof b);
		names[j].count++;
	}
	snprintf(head, sizeof head, "%snodes %s–%s %s: ", indent,
		 ci_graph_replay_node_name(g, ks[from], a, sizeof a), ci_graph_replay_node_name(g, ks[to], z, sizeof z),
		 node_state_text(g->nodes[ks[from]].state));
	for (size_t shown = nn;; shown--)
		if (run_line_fits(o, names, shown, head, shown < nn || more ? "… (view: graphs)" : "", buf,
				  sizeof buf) || !shown)
			break;
	put_wrapped(o, buf);
	free(names);
}

/* The kernel nodes of a replay with their states, at most MAX lines.  SUMMARY: a run of three or
 * more nodes in one state (finished, not started, unknown) that are neither the faulting node
 * nor next to it is one line (replay_run_line), and names are brief; else a line per node. */
static void graph_node_lines(struct ci_text_out *o, const struct ci_graph_replay *g, const char *indent,
			     size_t max, bool summary)
{
	size_t *order = ci_graph_replay_order(g), nk = 0;
	size_t *ks = malloc((g->node_count ? g->node_count : 1) * sizeof(*ks));
	if (!ks) {
		free(order);
		line(o, "%s(out of memory: the replay's kernel nodes are not shown)", indent);
		return;
	}
	ptrdiff_t fpos = -1; /* the faulting node's place among the kernel nodes */
	for (size_t at = 0; at < g->node_count; at++) {
		size_t i = order ? order[at] : at;
		const struct ci_graph_node *e = g->nodes[i].node;
		if (!e || e->type != CI_NODE_KERNEL)
			continue;
		if (o->d->graph == g && g->faulting_node == (ptrdiff_t)i)
			fpos = (ptrdiff_t)nk;
		ks[nk++] = i;
	}
	/* A line of its own: the faulting node, its neighbours, a running node. */
#define OWN_LINE(p)                                                                                     \
	(!summary || g->nodes[ks[p]].state == CI_LS_IN_FLIGHT ||                                        \
	 (fpos >= 0 && (size_t)(p) + 1 >= (size_t)fpos && (size_t)(p) <= (size_t)fpos + 1))
	size_t lines = 0;
	for (size_t at = 0; at < nk; lines++) {
		if (lines >= max) {
			line(o, "%s… and %zu more kernel nodes (view: graphs)", indent, nk - at);
			break;
		}
		size_t end = at;
		while (!OWN_LINE(at) && end + 1 < nk && !OWN_LINE(end + 1) &&
		       g->nodes[ks[end + 1]].state == g->nodes[ks[at]].state)
			end++;
		if (end >= at + 2) {
			replay_run_line(o, g, ks, at, end, indent);
		} else { /* one or two nodes: a line each says more in as many lines */
			end = at;
			replay_node_line(o, g, ks[at], indent, summary);
		}
		at = end + 1;
	}
#undef OWN_LINE
	free(ks);
	free(order);
}

/* What a faulting graph launch adds: which node of which graph, which replay, where the graph
 * was launched, and how far the replay got. */
static void graph_fault_lines(struct ci_text_out *o, size_t frames, bool summary)
{
	const struct ci_graph_replay *g = o->d->graph;
	if (!g)
		return;
	const struct ci_model *m = o->m;
	const struct ci_launch *gl = ci_report_launch(o->r, g->launch);
	char graph[96], nodes[96] = "", nn[64], inner[96] = "";
	if (g->faulting_node >= 0)
		snprintf(nodes, sizeof(nodes), "node %s of ",
			 ci_graph_replay_node_name(g, (size_t)g->faulting_node, nn, sizeof nn));
	if (g->node_count > g->graph_nodes) {
		bool child = false, body = false; /* what the extra nodes are in */
		for (size_t i = g->graph_nodes; i < g->node_count; i++) {
			const struct ci_graph_node *pe = g->nodes[g->nodes[i].parent].node;
			body |= pe && pe->type == CI_NODE_CONDITIONAL;
			child |= !pe || pe->type != CI_NODE_CONDITIONAL;
		}
		snprintf(inner, sizeof inner, " + %zu in %s%s", g->node_count - g->graph_nodes,
			 child && body ? "child graphs and conditional bodies" : body ? "conditional bodies" : "child graphs",
			 g->children_cut ? " (not all: limits)" : "");
	}
	const struct ci_graph_exec *x = g->exec != CI_NONE ? &m->graph_execs[g->exec] : NULL;
	line(o, "  %s%s (%zu nodes%s, %zu kernels), replay %" PRIu64 " of exec 0x%" PRIx64, nodes,
	     graph_label(m, g->graph, graph, sizeof(graph)), g->graph_nodes - g->destroyed_count, inner,
	     g->kernel_count, g->replay, x ? x->handle : gl->aux);
	char where[160];
	if (g->faulting_node >= 0 && *ci_graph_replay_node_where(g, (size_t)g->faulting_node, where, sizeof where))
		line(o, "  (node %s: %s)", nn, where);
	print_stack(o, "  graph launched at ", gl->stack, frames);
	if (g->crumb && g->crumb_unfinished > 1)
		line(o, "  in-graph breadcrumb %" PRIu64 ": how far this replay got; it leaves %zu "
			"kernel nodes unfinished (running, or between breadcrumbs: finished or not)",
		     g->crumb_value, g->crumb_unfinished);
	else if (g->crumb)
		line(o, "  in-graph breadcrumb %" PRIu64 ": how far this replay got", g->crumb_value);
	else if (o->d->launch_state[g->launch] == CI_LS_IN_FLIGHT)
		line(o, "  no in-graph breadcrumb: the states of its nodes are unknown");
	graph_node_lines(o, g, "    ", 12, summary);
}

static void launch_lines(struct ci_text_out *o, size_t li, size_t frames)
{
	const struct ci_launch *l = shown_launch(o, li);
	char stream[96], who[64], when[96], smem[32];
	char nth[48] = "a launch";
	if (l->stream_seq)
		snprintf(nth, sizeof(nth), "launch %" PRIu64, l->stream_seq);
	line(o, "  %s on %s, by %s, %s", nth, ci_stream_label(o->m, l->stream, stream, sizeof(stream)),
	     thread_desc(o, l->tid, who, sizeof(who)), ago(o, l->time_ns, when, sizeof(when)));
	line(o, "  grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")  block (%" PRIu32 ",%" PRIu32
	     ",%" PRIu32 ")  shared memory %s  via %s",
	     l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
	     ci_fmt_size(l->shared_mem, smem, sizeof(smem)), ci_launch_api_text(l->api));
	const struct ci_graph_replay *g = o->d->graph;
	bool node = g && l == &g->kernel;
	print_stack(o, !node ? "  launched at " : g->crumb || (g->graph != CI_NONE &&
				 o->m->graphs[g->graph].origin != CI_GRAPH_BUILT) ? "  captured at " : "  added at ",
		    l->stack, frames);
}

/* The faulting copy or set (an ENGINE CE fault): what it was, where it was made. */
static void copy_lines(struct ci_text_out *o, bool summary)
{
	const struct ci_diagnosis *d = o->d;
	const struct ci_event *e = &o->m->events[d->faulting_copy];
	char buf[320], bytes[32], stream[96], who[64], when[96];
	ci_fmt_count(e->value, bytes, sizeof bytes);
	if (e->kind == CI_EV_MEMCPY)
		snprintf(buf, sizeof buf, "Faulting copy: %s bytes to 0x%" PRIx64 "   [confidence: %s]",
			 bytes, e->a, ci_confidence_name(d->confidence));
	else
		snprintf(buf, sizeof buf, "Faulting set: %s bytes at 0x%" PRIx64 "   [confidence: %s]",
			 bytes, e->a, ci_confidence_name(d->confidence));
	heading(o, buf);
	if (e->kind == CI_EV_MEMCPY)
		line(o, "  from 0x%" PRIx64 " (a copy engine made the access, not a kernel)", e->b);
	line(o, "  on %s, by %s, %s",
	     e->stream != CI_NONE ? ci_stream_label(o->m, e->stream, stream, sizeof stream)
				  : "no stream (a synchronous call)",
	     thread_desc(o, e->tid, who, sizeof who), ago(o, e->time_ns, when, sizeof when));
	print_stack(o, "  called at ", e->stack, summary ? SUMMARY_FRAMES : 32);
}

/* The decisive evidence, one item (the driver's fault address, else an argument's history),
 * in a paragraph of its own. */
static void summary_evidence(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	for (size_t i = 0; i < d->evidence_count; i++)
		if (d->evidence[i].decisive && d->evidence[i].kind == CI_EVK_XID_PAGE) {
			/* A page in no referenced allocation: with the argument it fits. */
			char fit[320], text[1024];
			const char *t = d->evidence[i].text;
			if (d->xid_fit.fault_related && (ptrdiff_t)d->xid_fit.launch == d->faulting_launch) {
				snprintf(text, sizeof text, "%s; the page is %s", t,
					 ci_fault_fit_phrase(&d->xid_fit, fit, sizeof fit));
				t = text;
			}
			para(o, "  evidence: ", 12, t);
			return;
		}
}

/* Where the GPU core's address lies among the allocations: "inside allocation #12 at offset
 * 4,096", "in no recorded allocation". */
static const char *gpu_address_place(const struct ci_attribution *a, char *buf, size_t n)
{
	char off[32];
	if (!a->alloc)
		snprintf(buf, n, "in no recorded allocation");
	else if (a->relation == CI_REL_INSIDE || a->relation == CI_REL_FREED)
		snprintf(buf, n, "inside %sallocation #%" PRIu64 " at offset %s",
			 a->relation == CI_REL_FREED ? "FREED " : "", a->alloc->id,
			 ci_fmt_count(a->offset, off, sizeof off));
	else
		snprintf(buf, n, "%s bytes %s allocation #%" PRIu64, ci_fmt_count(a->offset, off, sizeof off),
			 a->relation == CI_REL_PAST_END ? "after" : "before", a->alloc->id);
	return buf;
}

/* The GPU core joined with the record (docs/USAGE.md, "GPU core dumps"): the GPU's own word on
 * the faulting thread, line, PC and address. */
static void gpu_core_lines(struct ci_text_out *o)
{
	const struct ci_gpu_join *j = o->d->gpu;
	struct ci_gpucore *gc = o->r->evidence ? o->r->evidence->gpu_core : NULL;
	char buf[1400], how[96], fn[512], path[1100], place[160], fit[320], words[64];
	if (!j || !gc)
		return;
	if (!j->agrees)
		return; /* the reasoning says why it was not merged */
	const struct ci_gpu_fault *f = &gc->fault;
	int n = snprintf(buf, sizeof buf, "%s", ci_gpu_exception_words(f->exception, words, sizeof words));
	if (f->cta != CI_GPU_NONE)
		n += snprintf(buf + n, sizeof buf - (size_t)n, ", block (%u,%u,%u)", gc->ctas[f->cta].block_idx[0],
			      gc->ctas[f->cta].block_idx[1], gc->ctas[f->cta].block_idx[2]);
	if (f->lane != CI_GPU_NONE)
		n += snprintf(buf + n, sizeof buf - (size_t)n, " thread (%u,%u,%u)", gc->lanes[f->lane].thread_idx[0],
			      gc->lanes[f->lane].thread_idx[1], gc->lanes[f->lane].thread_idx[2]);
	snprintf(buf + n, sizeof buf - (size_t)n, "   [grid matched by %s: %s]",
		 ci_gpu_match_text(j->matched, how, sizeof how), ci_confidence_name(j->confidence));
	para(o, "  GPU core: ", 12, buf);
	const struct ci_gpu_where *w = f->error_pc_valid ? &f->error_where : &f->pc_where;
	uint64_t pc = f->error_pc_valid ? f->error_pc : f->pc;
	if (w->module != CI_GPU_NONE) {
		char *dem = ci_demangle(w->function);
		ci_scrub(dem ? dem : w->function, fn, sizeof fn);
		free(dem);
		n = snprintf(buf, sizeof buf, "PC %s+0x%" PRIx64 " (0x%" PRIx64 ")", fn, w->offset, pc);
		if (w->line)
			snprintf(buf + n, sizeof buf - (size_t)n, " at %s:%u", ci_gpu_where_path(w, path, sizeof path),
				 w->line);
		para(o, "            ", 12, buf);
	}
	if (f->access.status != CI_GPU_ACCESS_NONE) {
		ci_gpucore_fault_access_text(&f->access, buf, sizeof buf);
		if (j->has_address) {
			n = (int)strlen(buf);
			n += snprintf(buf + n, sizeof buf - (size_t)n, ", %s",
				      gpu_address_place(&j->address_at, place, sizeof place));
			if (j->arg_fit.fault_related && j->arg_fit.fault_fit != CI_FIT_NONE)
				snprintf(buf + n, sizeof buf - (size_t)n, "; = %s",
					 ci_fault_fit_phrase(&j->arg_fit, fit, sizeof fit));
		}
		para(o, "            ", 12, buf);
	}
}

static void summary_fault(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	char name[1024], buf[1152]; /* C++ and numba names run long */
	fputc('\n', o->f);
	switch (d->verdict) {
	case CI_VERDICT_DEVICE_FAULT:
	case CI_VERDICT_PENDING:
		if (d->faulting_launch < 0 && d->faulting_copy >= 0) {
			copy_lines(o, true);
			summary_evidence(o);
			para(o, "  why: ", 7, d->reasoning);
			return;
		}
		if (d->faulting_launch < 0) {
			if (d->verdict == CI_VERDICT_PENDING)
				return;
			heading(o, "Faulting kernel: not identified");
			para(o, "  ", 2, d->reasoning);
			return;
		}
		snprintf(buf, sizeof(buf), "%s kernel: %s   [confidence: %s]",
			 d->verdict == CI_VERDICT_PENDING ? "Unfinished" : "Faulting",
			 ci_launch_kernel_name(o->m, shown_launch(o, d->faulting_launch), name,
					       sizeof(name)),
			 ci_confidence_name(d->confidence));
		if (d->graph && d->graph->faulting_node < 0 && d->graph->crumb)
			snprintf(buf, sizeof(buf), "%s kernel: one of %zu unfinished kernels of a graph "
				 "(of its %zu)   [confidence: %s]",
				 d->verdict == CI_VERDICT_PENDING ? "Unfinished" : "Faulting",
				 d->graph->crumb_unfinished, d->graph->kernel_count,
				 ci_confidence_name(d->confidence));
		else if (d->graph && d->graph->faulting_node < 0)
			snprintf(buf, sizeof(buf), "%s kernel: one of the %zu kernels of a graph   "
				 "[confidence: %s]", d->verdict == CI_VERDICT_PENDING ? "Unfinished" : "Faulting",
				 d->graph->kernel_count, ci_confidence_name(d->confidence));
		break;
	case CI_VERDICT_API_ERROR:
		if (d->failed_launch >= 0) {
			snprintf(buf, sizeof(buf), "Failed launch: %s (no device fault)",
				 ci_launch_kernel_name(o->m, ci_report_launch(o->r, d->failed_launch), name,
						       sizeof(name)));
			heading(o, buf);
			launch_lines(o, (size_t)d->failed_launch, SUMMARY_FRAMES);
			const struct ci_launch *l = ci_report_launch(o->r, d->failed_launch);
			line(o, "  the launch call returned %s: %s", ci_cuda_result_name(l->result),
			     ci_cuda_result_text(l->result));
			uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
			if (threads > 1024)
				line(o, "  the block has %" PRIu64 " threads: CUDA allows at most 1024 per "
					"block", threads);
			else if (!threads || !l->grid[0] || !l->grid[1] || !l->grid[2])
				line(o, "  a grid or block dimension is 0");
		} else {
			heading(o, "API error (no device fault)");
			para(o, "  ", 2, d->reasoning);
		}
		return;
	case CI_VERDICT_NONE:
		heading(o, "No CUDA failure recorded");
		para(o, "  ", 2, d->reasoning);
		return;
	case CI_VERDICT_INCOMPLETE:
		heading(o, "Incomplete record: nothing can be said about the GPU");
		para(o, "  ", 2, d->reasoning);
		return;
	}
	heading(o, buf);
	launch_lines(o, (size_t)d->faulting_launch,
		     o->width < NARROW ? SUMMARY_FRAMES - 1 : SUMMARY_FRAMES);
	graph_fault_lines(o, o->width < NARROW ? SUMMARY_FRAMES - 1 : SUMMARY_FRAMES, true);
	if (d->gpu && d->gpu->agrees && d->gpu->launch == d->faulting_launch)
		gpu_core_lines(o);
	summary_evidence(o);
	para(o, "  why: ", 7, d->reasoning);
}

/* One line for an attribution the summary does not show in full: "arg 3 (+24): 0x7f…0100,
 * 65,792 bytes after allocation #50". */
static void attribution_brief(struct ci_text_out *o, const struct ci_attribution *a)
{
	char off[48], rel[96];
	const struct ci_alloc *al = a->alloc;
	if (!al)
		snprintf(rel, sizeof(rel), "in no recorded allocation");
	else if (a->relation == CI_REL_INSIDE || a->relation == CI_REL_FREED)
		snprintf(rel, sizeof(rel), "inside %sallocation #%" PRIu64 " at offset %s",
			 a->relation == CI_REL_FREED ? "FREED " : "", al->id,
			 ci_fmt_count(a->offset, off, sizeof(off)));
	else
		snprintf(rel, sizeof(rel), "%s bytes %s allocation #%" PRIu64 "%s",
			 ci_fmt_count(a->offset, off, sizeof(off)),
			 a->relation == CI_REL_PAST_END ? "after" : "before", al->id,
			 a->history == CI_HISTORY_LEFT ? " (its earlier launches' one)" : "");
	line(o, "  arg %" PRIu32 " (+%" PRIu32 "): 0x%" PRIx64 ", %s", a->arg, a->param_offset,
	     a->address, rel);
}

static void summary_attributions(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	if (d->faulting_launch < 0)
		return;
	size_t bad = 0, inside = 0, shown = 0;
	for (size_t i = 0; i < d->attribution_count; i++)
		if (d->attributions[i].launch == (size_t)d->faulting_launch) {
			if (d->attributions[i].relation == CI_REL_INSIDE)
				inside++;
			else
				bad++;
		}
	if (!bad && !inside)
		return;
	fputc('\n', o->f);
	heading(o, "Pointer arguments");
	/* The bad pointers are the reason to look; good ones only when there is no bad one.  The
	 * first in full, the next ones a line each. */
	for (size_t i = 0; i < d->attribution_count && shown < SUMMARY_ATTRIBUTIONS; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		if (a->launch != (size_t)d->faulting_launch || ((a->relation == CI_REL_INSIDE) != !bad))
			continue;
		if (shown++ == 0)
			print_attribution(o, a, false);
		else
			attribution_brief(o, a);
	}
	size_t rest = bad + inside - shown;
	if (rest)
		line(o, "  and %zu more argument%s%s (view: fault)", rest, rest == 1 ? "" : "s",
		     bad > shown ? "" : " inside live allocations");
}

static void summary_pending(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	size_t n = 0, shown = 0;
	uint32_t fault_stream =
		d->faulting_launch >= 0 ? ci_report_launch(o->r, (size_t)d->faulting_launch)->stream : CI_NONE;
	/* The faulting launch's own stream is described above. */
	for (size_t i = 0; i < d->stream_count; i++)
		n += d->streams[i].oldest_unfinished >= 0 && d->streams[i].stream != fault_stream;
	if (!n)
		return;
	fputc('\n', o->f);
	char title[96];
	snprintf(title, sizeof(title), "%s with unfinished work%s",
		 fault_stream != CI_NONE ? "Other streams" : "Streams",
		 n > SUMMARY_STREAMS ? " (the first two; view: streams)" : "");
	heading(o, title);
	for (size_t i = 0; i < d->stream_count && shown < SUMMARY_STREAMS; i++) {
		const struct ci_stream_progress *p = &d->streams[i];
		if (p->oldest_unfinished < 0 || p->stream == fault_stream)
			continue;
		char stream[96], name[1024], unknown[48] = "";
		const struct ci_launch *l = ci_report_launch(o->r, p->oldest_unfinished);
		if (p->unknown && p->in_flight)
			snprintf(unknown, sizeof(unknown), ", %zu unknown", p->unknown);
		line(o, "  %s: %s %s (launch %" PRIu64 " of %" PRIu64 "%s)",
		     ci_stream_label(o->m, p->stream, stream, sizeof(stream)),
		     short_kernel(o, l, name, sizeof(name)),
		     p->in_flight ? "in flight" : p->unknown ? "maybe in flight" : "unfinished",
		     l->stream_seq, p->launched, unknown);
		shown++;
	}
}

static bool is_abort_frame(const struct ci_frame *f)
{
	static const char *const names[] = {
		"raise", "abort", "gsignal", "pthread_kill", "__pthread_kill_implementation",
		"__pthread_kill_internal", "__GI_raise", "__GI_abort", "__restore_rt",
	};
	return frame_in(f, names, sizeof(names) / sizeof(names[0]));
}

static const struct ci_thread_stack *find_thread(struct ci_text_out *o, uint32_t tid)
{
	for (size_t i = 0; i < o->r->thread_count; i++)
		if (o->r->threads[i].tid == tid)
			return &o->r->threads[i];
	return NULL;
}

static void summary_error_thread(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	uint32_t tid = d->error_tid ? d->error_tid : d->signal_tid;
	bool launcher = false;
	if (!tid && d->faulting_launch >= 0) {
		/* A hang: the thread that launched the stuck kernel is the one to look at. */
		tid = ci_report_launch(o->r, d->faulting_launch)->tid;
		launcher = true;
	}
	const struct ci_thread_stack *t = tid ? find_thread(o, tid) : NULL;
	if (!t && o->r->thread_count)
		t = &o->r->threads[0];
	if (!t)
		return;
	char who[64], sig[32], title[160];
	const char *role = t->tid == d->error_tid && d->error_tid
				   ? (t->tid == d->signal_tid && d->signal ? "observed the error and received "
									   : "observed the error")
			   : t->tid == d->signal_tid && d->signal ? "received "
			   : launcher && t->tid == tid		  ? "launched it"
								  : "first thread";
	/* Start where the program's own code is: past a signal handler (the recorder's, which
	 * may be waiting for another thread's snapshot) and past abort/raise. */
	size_t skip = 0;
	for (size_t i = 0; i < t->frame_count; i++)
		if (t->frames[i].function && strcmp(t->frames[i].function, "__restore_rt") == 0)
			skip = i + 1;
	while (skip < t->frame_count && is_abort_frame(&t->frames[skip]))
		skip++;
	if (skip == t->frame_count)
		skip = 0;
	char from[48] = "";
	if (skip)
		snprintf(from, sizeof(from), ", from frame #%zu", skip);
	snprintf(title, sizeof(title), "Thread %s (%s%s)%s",
		 thread_desc(o, t->tid, who, sizeof(who)) + 7, role,
		 d->signal && t->tid == d->signal_tid ? ci_signal_name(d->signal, sig, sizeof(sig)) : "",
		 from);
	/* The frames below are numbered: where the title does not fit, "from frame #N" goes. */
	size_t tl = ci_text_width(title);
	if (tl > (size_t)o->width && *from && tl - strlen(from) <= (size_t)o->width)
		title[strlen(title) - strlen(from)] = '\0';
	fputc('\n', o->f);
	heading(o, title);
	/* In stack order, innermost first, as gdb numbers them: the native frames from where the
	 * program's own code is (until the first Python frame), then a Python thread's Python
	 * frames (all of them up to the limit: the user's code), the native ones between them
	 * left to the threads view.  Never a frame number out of order. */
	enum ci_frames_shown which = o->o->frames;
	bool python = t->python && which != CI_FRAMES_NATIVE;
	size_t shown = 0, i = skip, last = skip;
	if (which != CI_FRAMES_PYTHON)
		for (; i < t->frame_count && shown < SUMMARY_FRAMES; i++) {
			char buf[768];
			if (t->frames[i].kind == CI_FRAME_PYTHON || (shown && is_thread_start(&t->frames[i])))
				break;
			line(o, "  #%-2zu %s", i, fmt_frame(&t->frames[i], buf, sizeof(buf)));
			last = i + 1;
			shown++;
		}
	if (python) {
		size_t py = 0, first = t->frame_count;
		for (size_t k = which == CI_FRAMES_PYTHON ? 0 : last; k < t->frame_count; k++)
			if (t->frames[k].kind == CI_FRAME_PYTHON) {
				first = k;
				break;
			}
		if (first > last && first < t->frame_count && shown)
			line(o, "  … %zu native frame%s (view: threads)", first - last,
			     first - last == 1 ? "" : "s");
		for (size_t k = first; k < t->frame_count && py < PYTHON_SUMMARY_FRAMES; k++)
			if (t->frames[k].kind == CI_FRAME_PYTHON) {
				char buf[768];
				line(o, "  #%-2zu %s", k, fmt_frame(&t->frames[k], buf, sizeof(buf)));
				py++;
			}
		if (t->python_note)
			line(o, "  (%s)", t->python_note);
	}
	if (t->frame_count == 0)
		line(o, "  (no frames%s%s)", t->note ? ": " : "", t->note ? t->note : "");
}

/* A suggested command and what it gives, on one line when it fits, else on two. */
static void hint(struct ci_text_out *o, const char *cmd, const char *what)
{
	if (ci_text_width(cmd) + ci_text_width(what) + 7 <= (size_t)o->width) {
		line(o, "  %s   # %s", cmd, what);
	} else {
		line(o, "  %s", cmd);
		line(o, "      # %s", what);
	}
}

/* The command that shows VIEW (with ARGS): `cudainspect INPUT VIEW ARGS`, or inside GDB the
 * `cuda VIEW ARGS` command of cudainspect.gdb. */
static char *view_cmd(struct ci_text_out *o, const char *view, const char *args, char *buf, size_t n)
{
	if (o->o->hints == CI_HINTS_GDB)
		snprintf(buf, n, "cuda %s%s%s", view, *args ? " " : "", args);
	else
		snprintf(buf, n, "cudainspect %s %s%s%s", o->input, view, *args ? " " : "", args);
	return buf;
}

static void summary_next(struct ci_text_out *o, const char *sig)
{
	const struct ci_diagnosis *d = o->d;
	char name[1024], cmd[1280], args[64];
	fputc('\n', o->f);
	/* The crash signature, where the title line had no room for it. */
	snprintf(cmd, sizeof cmd, "What to do next%s%s%s", sig ? "   [" : "", sig ? sig : "",
		 sig ? "]" : "");
	heading(o, cmd);
	if (d->verdict == CI_VERDICT_DEVICE_FAULT || d->verdict == CI_VERDICT_PENDING) {
		/* Lines of the process that decided nothing are in the fault view: say so here. */
		const struct ci_evidence *ev = ci_report_evidence(o->r);
		char why[96] = "why this launch; every argument with its stacks";
		if (ev && ev->kernel_log_selected && d->xid < 0)
			snprintf(why, sizeof why, "why this launch; the process's %zu kernel-log line%s",
				 ev->kernel_log_selected, ev->kernel_log_selected == 1 ? "" : "s");
		hint(o, view_cmd(o, "fault", "", cmd, sizeof(cmd)), why);
		if (d->faulting_launch >= 0) {
			const struct ci_launch *l = shown_launch(o, d->faulting_launch);
			if (d->graph)
				hint(o, view_cmd(o, "graphs", "", cmd, sizeof(cmd)),
				     "the graph and its nodes");
			if (ci_stream_valid(o->m, l->stream)) {
				snprintf(args, sizeof(args), "--stream 0x%" PRIx64,
					 o->m->streams[l->stream].handle);
				hint(o, view_cmd(o, "kernels", args, cmd, sizeof(cmd)), "what ran before it");
			}
			if (d->verdict == CI_VERDICT_DEVICE_FAULT) {
				/* compute-sanitizer matches a substring of the (mangled) name; without a
				 * name there is nothing to filter on, and no placeholder to fill in. */
				const char *raw = ci_model_function_name(o->m, l->function);
				char arg[300], word[320];
				if (raw && *raw) {
					snprintf(arg, sizeof(arg), "kns=%s", ci_scrub(raw, name, sizeof(name)));
					snprintf(cmd, sizeof(cmd), "compute-sanitizer --kernel-name %s CMD",
						 ci_shell_quote(arg, word, sizeof(word)));
				} else {
					snprintf(cmd, sizeof(cmd), "compute-sanitizer CMD");
				}
				hint(o, cmd, "where it faults");
			}
		}
		/* Which launch faulted is settled when the driver's address says it (exact). */
		if (d->verdict == CI_VERDICT_DEVICE_FAULT) {
			/* One line also at 80 columns, so that the summary keeps to one screen. */
			if (d->confidence != CI_CONF_EXACT)
				line(o, o->width < NARROW
						? "  CUDA_LAUNCH_BLOCKING=1 (slow) or CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CMD"
						: "  CUDA_LAUNCH_BLOCKING=1 CMD (slow), or "
						  "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CMD for a GPU core dump");
		} else {
			hint(o, view_cmd(o, "streams", "", cmd, sizeof(cmd)),
			     "what every stream is waiting for");
		}
	} else if (d->verdict == CI_VERDICT_API_ERROR) {
		hint(o, view_cmd(o, "errors", "", cmd, sizeof(cmd)),
		     "every failed CUDA call, in order, with stacks");
		if (d->failed_launch >= 0)
			line(o, "  fix the launch configuration: at most 1024 threads per block, no zero "
				"dimension");
	} else if (d->verdict == CI_VERDICT_INCOMPLETE) {
		hint(o, view_cmd(o, "all", "", cmd, sizeof(cmd)), "what the part in the input holds");
	} else {
		hint(o, view_cmd(o, "threads", "", cmd, sizeof(cmd)), "host backtraces of every thread");
	}
	const struct ci_source_info *si = o->r->source;
	if (o->o->hints == CI_HINTS_CLI && !o->o->input_arg && si && si->path &&
	    strcmp(si->path, "-") == 0)
		para(o, "  ", 4, "CORE: this core came from standard input, which is read once: save "
			 "it to a file to run these (... | tee core | cudainspect -), or run them on "
			 "the file it came from");
}


/* ---------------------------------------------------------------------------------------- */
/* NCCL: the record's communicators and collectives, read as the merge reads them             */
/* (report/job_facts.c), so that the single report and `cudainspect merge` never disagree.        */

/* Where collective C stands, in the words of the kernels view. */
static const char *nccl_state_text(const struct ci_job_call *c)
{
	switch (c->state) {
	case CI_JOB_CALL_FINISHED: return "finished";
	case CI_JOB_CALL_IN_FLIGHT: return "IN FLIGHT";
	case CI_JOB_CALL_NOT_STARTED: return "not started";
	case CI_JOB_CALL_FAILED: return "FAILED";
	}
	return "unknown";
}

/* Not known to have finished, and not a guess: in flight, not started or refused. */
static bool nccl_unfinished(const struct ci_job_call *c)
{
	return c->state == CI_JOB_CALL_IN_FLIGHT || c->state == CI_JOB_CALL_NOT_STARTED ||
	       c->state == CI_JOB_CALL_FAILED;
}

/* What the recorder's hang watchdog said of call C, as a suffix. */
static const char *nccl_watchdog_note(const struct ci_job_call *c)
{
	return c->timeout ? " past the hang timeout" : c->late ? " late (a delay)" : "";
}

/* "ncclAllReduce #7 IN FLIGHT past the hang timeout" (the summary's words). */
static void nccl_call_words(const struct ci_job_call *c, char *buf, size_t n)
{
	if (c->op_seq)
		snprintf(buf, n, "%s #%" PRIu64 " %s%s", ci_job_op_api(c->op), c->op_seq,
			 nccl_state_text(c), nccl_watchdog_note(c));
	else
		snprintf(buf, n, "%s refused (ncclResult %" PRId32 ")", ci_job_op_api(c->op), c->result);
}

/* "0x9f3c…: rank 3 of 4, device 0, live, 6 collectives". */
static void nccl_comm_words(const struct ci_job_comm *c, char *buf, size_t n)
{
	snprintf(buf, n, "communicator 0x%016" PRIx64 ": rank %" PRId32 " of %" PRId32
		 ", device %" PRId32 ", %s, %" PRIu64 " collective%s", c->comm_id, c->rank, c->nranks,
		 c->device, ci_job_comm_state_word(c->state), c->colls, c->colls == 1 ? "" : "s");
}

/* The facts of the report, or false (said on the output) when they cannot be had. */
static bool nccl_facts(struct ci_text_out *o, struct ci_job_facts *f)
{
	struct ci_error *err = ci_job_facts_from_report(o->r, f);
	if (!err)
		return true;
	line(o, "  NCCL state not shown: %s", err->message);
	ci_error_destroy(err);
	return false;
}

/* The summary's lines, in its header block ("NCCL      ..."): a line per communicator (at most
 * SUMMARY_NCCL_COMMS), and under it its oldest collective not finished with how many more are
 * not (else its newest); nothing for a process without NCCL. */
static void summary_nccl(struct ci_text_out *o)
{
	if (!o->m->nccl_comm_count)
		return;
	struct ci_job_facts f;
	if (!nccl_facts(o, &f))
		return;
	char buf[256], cmd[1280];
	for (size_t i = 0; i < f.comm_count && i < SUMMARY_NCCL_COMMS; i++) {
		const struct ci_job_comm *c = &f.comms[i];
		const struct ci_job_call *newest = NULL, *oldest = NULL;
		size_t unfinished = 0;
		uint64_t reached = 0; /* the newest numbered one before OLDEST */
		for (size_t k = 0; k < f.call_count; k++) {
			const struct ci_job_call *x = &f.calls[k];
			if (x->comm_id != c->comm_id)
				continue;
			newest = x;
			if (nccl_unfinished(x) && !unfinished++)
				oldest = x;
		}
		for (size_t k = 0; oldest && k < f.call_count; k++) {
			const struct ci_job_call *x = &f.calls[k];
			if (x->comm_id == c->comm_id && x != oldest && x->op_seq > reached &&
			    x->time_ns <= oldest->time_ns)
				reached = x->op_seq;
		}
		line(o, "%srank %" PRId32 " of %" PRId32 " in 0x%016" PRIx64 " (device %" PRId32
		     ", %s, %" PRIu64 " collectives)", i ? "          " : "NCCL      ", c->rank, c->nranks,
		     c->comm_id, c->device, ci_job_comm_state_word(c->state), c->colls);
		if (!newest)
			continue;
		nccl_call_words(oldest ? oldest : newest, buf, sizeof buf);
		size_t at = strlen(buf);
		/* A refused call has no number: the one it would have followed says when. */
		if (oldest && !oldest->op_seq && reached)
			at += (size_t)snprintf(buf + at, sizeof buf - at, " after #%" PRIu64, reached);
		if (unfinished > 1 && at < sizeof buf)
			snprintf(buf + at, sizeof buf - at, "; %zu more unfinished", unfinished - 1);
		line(o, "            %s%s", oldest ? "" : "newest: ", buf);
	}
	if (f.comm_count > SUMMARY_NCCL_COMMS)
		line(o, "          and %zu more communicators: %s", f.comm_count - SUMMARY_NCCL_COMMS,
		     view_cmd(o, "nccl", "", cmd, sizeof cmd));
	ci_job_facts_deinit(&f);
}

static void print_warnings(struct ci_text_out *o, size_t max)
{
	size_t total = 0, shown = 0;
	if (o->o->quiet)
		return;
	for (size_t l = 0; l < o->r->warning_lists; l++)
		if (o->r->warnings[l])
			total += o->r->warnings[l]->count;
	if (!total)
		return;
	fputc('\n', o->f);
	heading(o, "Warnings");
	for (size_t l = 0; l < o->r->warning_lists; l++) {
		const struct ci_warnings *w = o->r->warnings[l];
		for (size_t i = 0; w && i < w->count && shown < max; i++, shown++) {
			char buf[1024];
			para(o, "  ", 4, ci_scrub(w->items[i], buf, sizeof(buf)));
		}
	}
	if (total > shown)
		line(o, "  and %zu more (view: all)", total - shown);
}

void ci_text_summary(struct ci_text_out *o)
{
	char title[1280], name[1024];
	const char *what = o->d->verdict == CI_VERDICT_DEVICE_FAULT ? "CUDA device fault in"
			   : o->d->verdict == CI_VERDICT_API_ERROR  ? "CUDA API error in"
			   : o->d->verdict == CI_VERDICT_PENDING    ? "CUDA work still in flight in"
			   : o->d->verdict == CI_VERDICT_INCOMPLETE ? "incomplete flight record of"
								    : "no CUDA failure in";
	int n = snprintf(title, sizeof(title), "cudainspect: %s %s (pid %" PRIu32 ")", what,
			 program_name(o, name, sizeof(name)), o->m->header.pid);
	/* The crash signature where it fits the title line, else on its own line below. */
	const char *sig = ci_report_fingerprint(o->r);
	bool in_title = sig[0] && o->d->verdict != CI_VERDICT_NONE && n > 0 &&
			(size_t)n + 4 + strlen(sig) <= (size_t)o->width;
	if (in_title)
		snprintf(title + n, sizeof(title) - (size_t)n, "  [%s]", sig);
	heading(o, title);
	summary_process(o);
	summary_error(o, true);
	summary_nccl(o);
	summary_fault(o);
	if (o->d->gpu && o->d->gpu->agrees && o->d->gpu->launch != o->d->faulting_launch)
		gpu_core_lines(o); /* matched, but a stronger rule kept its own launch */
	summary_attributions(o);
	summary_pending(o);
	summary_error_thread(o);
	summary_next(o, in_title || o->d->verdict == CI_VERDICT_NONE ? NULL : sig);
	print_warnings(o, SUMMARY_WARNINGS);
}

/* ---------------------------------------------------------------------------------------- */
/* Views                                                                                      */

void ci_text_contexts(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	heading(o, "Devices");
	size_t nd = 0;
	for (size_t i = 0; i < m->device_count; i++) {
		const struct ci_device *dv = &m->devices[i];
		if (!dv->seq)
			continue;
		char name[128], mem[32], pci[24], uuid[40];
		size_t u = 0;
		for (int k = 0; k < 16; k++)
			u += (size_t)snprintf(uuid + u, sizeof(uuid) - u, "%02x%s", dv->uuid[k],
					      k == 3 || k == 5 || k == 7 || k == 9 ? "-" : "");
		line(o, "  %d  %s  sm_%d%d  %d SMs  %s  PCI %s  GPU-%s", dv->ordinal,
		     CI_SCRUB_FIELD(dv->name, name), dv->cc_major, dv->cc_minor, dv->sm_count,
		     ci_fmt_size(dv->total_mem, mem, sizeof(mem)),
		     CI_SCRUB_FIELD(dv->pci_bus_id, pci), uuid);
		nd++;
	}
	if (!nd)
		line(o, "  none recorded");
	fputc('\n', o->f);
	heading(o, "Contexts");
	line(o, "  %-4s %-18s %-6s %-9s %-10s %-28s %-8s %s", "slot", "handle", "device", "kind",
	     "flags", "created by", "streams", "state");
	size_t nc = 0;
	for (size_t i = 0; i < m->context_count; i++) {
		const struct ci_context *c = &m->contexts[i];
		if (!c->seq)
			continue;
		size_t streams = 0;
		for (size_t s = 0; s < m->stream_count; s++)
			streams += m->streams[s].seq && m->streams[s].ctx == i;
		int dev = c->device < m->device_count && m->devices[c->device].seq
				  ? m->devices[c->device].ordinal
				  : -1;
		const char *kind = ci_context_kind_name(c->kind);
		if (strcmp(kind, "unknown") == 0)
			kind = "?";
		char who[64], st[112], when[96], flags[16];
		snprintf(flags, sizeof(flags), "0x%" PRIx32, c->flags);
		if (c->destroy_ns)
			snprintf(st, sizeof(st), "destroyed %s", ago(o, c->destroy_ns, when, sizeof(when)));
		else
			snprintf(st, sizeof(st), "alive");
		line(o, "  %-4zu 0x%-16" PRIx64 " %-6d %-9s %-10s %-28s %-8zu %s", i, c->handle, dev,
		     kind, flags, thread_desc(o, c->create_tid, who, sizeof(who)), streams, st);
		nc++;
	}
	if (!nc)
		line(o, "  none recorded");
}

static const char *launch_state_text(struct ci_text_out *o, size_t i)
{
	const struct ci_launch *l = ci_report_launch(o->r, i);
	if (l->flags & CI_LAUNCH_FAILED)
		return "FAILED";
	if (l->flags & CI_LAUNCH_CAPTURED)
		return "captured";
	switch (o->d->launch_state[i]) {
	case CI_LS_FINISHED: return "finished";
	case CI_LS_IN_FLIGHT: return "IN FLIGHT";
	case CI_LS_NOT_STARTED: return "not started";
	case CI_LS_UNKNOWN: break;
	}
	return "unknown";
}

void ci_text_streams(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	const struct ci_diagnosis *d = o->d;
	heading(o, "Streams");
	for (size_t i = 0; i < d->stream_count; i++) {
		const struct ci_stream_progress *p = &d->streams[i];
		const struct ci_stream *st = &m->streams[p->stream];
		if (o->o->has_stream_filter && st->handle != o->o->stream_filter &&
		    st->stream_id != o->o->stream_filter)
			continue;
		char label[96], who[64], when[96], prio[32] = "";
		if (st->priority)
			snprintf(prio, sizeof(prio), ", priority %" PRId32, st->priority);
		line(o, "  %s (id %" PRIu64 ", context %" PRIu32 ", flags 0x%" PRIx32 "%s), created by %s%s%s",
		     ci_stream_label(m, p->stream, label, sizeof(label)), st->stream_id, st->ctx,
		     st->flags, prio, thread_desc(o, st->owner_tid, who, sizeof(who)),
		     st->destroy_ns ? ", destroyed " : "",
		     st->destroy_ns ? ago(o, st->destroy_ns, when, sizeof(when)) : "");
		const char *why = (m->header.flags & CI_HDR_CRUMBS_OFF) ? "disabled"
				  : ci_crumb_status_name(st->crumb_status);
		if ((st->crumb_slot == CI_NONE || (m->header.flags & CI_HDR_CRUMBS_OFF)) && p->synced_ns &&
		    p->launched)
			line(o, "      no breadcrumbs (%s): %" PRIu64 " launched; %zu finished by a "
				"synchronization %s, %zu unknown", why, p->launched, p->finished,
			     ago(o, p->synced_ns, when, sizeof(when)), p->unknown);
		else if (st->crumb_slot == CI_NONE || (m->header.flags & CI_HDR_CRUMBS_OFF))
			line(o, "      no breadcrumbs (%s): %" PRIu64 " launched, states unknown", why,
			     p->launched);
		else
			line(o, "      breadcrumb %" PRIu64 " of %" PRIu64 " launched: %zu finished, %zu in "
				"flight, %zu not started, %zu unknown",
			     p->crumb, p->launched, p->finished, p->in_flight, p->not_started, p->unknown);
		if (p->oldest_unfinished >= 0) {
			char name[1024], site[768];
			const struct ci_launch *l = ci_report_launch(o->r, p->oldest_unfinished);
			stack_site(o, l->stack, site, sizeof(site));
			line(o, "      oldest unfinished: %s (launch %" PRIu64 ", %s)%s%s",
			     short_kernel(o, l, name, sizeof(name)), l->stream_seq,
			     launch_state_text(o, (size_t)p->oldest_unfinished), *site ? " at " : "", site);
		}
		if (st->crumb_status != CI_CRUMB_OK && st->crumb_slot != CI_NONE)
			line(o, "      breadcrumbs: %s (%" PRIu64 " launches without one)",
			     ci_crumb_status_name(st->crumb_status), st->crumb_skipped);
	}
	if (!d->stream_count)
		line(o, "  none recorded");
}

static bool launch_selected(struct ci_text_out *o, const struct ci_launch *l)
{
	return ci_launch_matches(o->m, o->o, l);
}

void ci_text_kernels(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	size_t want = o->o->last ? o->o->last : CI_KERNELS_DEFAULT;
	/* The newest WANT matching launches, walking back from the ring's head: a lazy model has
	 * loaded those, from the newest down to launches_from, and counted the rest (report.c). */
	size_t shown = 0, first = m->launch_count;
	size_t from = !m->launches && o->r->launches_counted ? o->r->launches_from : 0;
	for (size_t i = m->launch_count; i-- > from && shown < want;) {
		const struct ci_launch *l = ci_model_launch_loaded(m, i);
		if (l && launch_selected(o, l)) {
			shown++;
			first = i;
		}
	}
	const struct ci_section_stats *ss = &m->sections[CI_SEC_LAUNCHES];
	bool filtered = o->o->has_stream_filter || o->o->has_thread_filter ||
			(o->o->kernel_filter && *o->o->kernel_filter);
	char total[32], over[32], looked[32];
	ci_fmt_count(ss->capacity, total, sizeof(total));
	ci_fmt_count(ss->overwritten, over, sizeof(over));
	if (m->launch_list && ss->unread) {
		/* A sparse read stopped short of the ring's end: what it did not read is not counted. */
		uint64_t held = ss->head < ss->capacity ? ss->head : ss->capacity;
		ci_fmt_count(held > ss->unread ? held - ss->unread : 0, looked, sizeof(looked));
		line(o, "Launches: last %zu%s (the ring holds %s; %s older launches were overwritten; "
			"the newest %s of its entries read)", shown, filtered ? " matching the filters" : "",
		     total, over, looked);
	} else {
		size_t matched = 0;
		if (m->launch_list)
			matched = m->launch_list_matched;
		else if (m->launches || !o->r->launches_counted)
			for (size_t i = 0; i < m->launch_count; i++)
				matched += launch_selected(o, ci_report_launch(o->r, i));
		else
			matched = o->r->launches_matched;
		line(o, "Launches: last %zu of %zu%s (the ring holds %s; %s older launches were "
			"overwritten)", shown, matched, filtered ? " matching the filters" : "", total, over);
	}
	line(o, "  %-6s %-10s %-7s %-15s %-5s %-11s %s", "seq", "time (s)", "thread", "stream", "#",
	     "state", "kernel");
	for (size_t i = first; i < m->launch_count; i++) {
		const struct ci_launch *l = ci_model_launch_loaded(m, i);
		if (!l || !launch_selected(o, l))
			continue;
		char t[32], stream[32], name[1024], site[768];
		if (ci_stream_valid(m, l->stream))
			snprintf(stream, sizeof(stream), "0x%" PRIx64, m->streams[l->stream].handle);
		else
			snprintf(stream, sizeof(stream), "?");
		line(o, "  %-6" PRIu64 " %-10s %-7" PRIu32 " %-15s %-5" PRIu64 " %-11s %s", l->seq,
		     rel_time(o, l->time_ns, t, sizeof(t)), l->tid, stream, l->stream_seq,
		     launch_state_text(o, i), short_kernel(o, l, name, sizeof(name)));
		stack_site(o, l->stack, site, sizeof(site));
		if (l->api == CI_LAUNCH_GRAPH) /* no grid of its own: its nodes follow */
			line(o, "         cuGraphLaunch%s%s", *site ? " at " : "", site);
		else
			line(o, "         grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") block (%" PRIu32 ",%" PRIu32
			     ",%" PRIu32 ")%s%s", l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
			     l->block[2], *site ? " at " : "", site);
		if (l->api == CI_LAUNCH_GRAPH) {
			/* The replay inline: the kernels the exec ran (the faulting one's states). */
			const struct ci_graph_replay *fg = o->d->graph;
			struct ci_graph_replay own;
			const struct ci_graph_replay *g = fg && fg->launch == i ? fg : NULL;
			if (!g && ci_graph_replay_expand(m, i, o->d->launch_state[i], &own))
				g = &own;
			if (g) {
				line(o, "         replay %" PRIu64 " of exec 0x%" PRIx64 ", %zu kernel node%s:", g->replay,
				     l->aux, g->kernel_count, g->kernel_count == 1 ? "" : "s");
				graph_node_lines(o, g, "           ", 16, false);
			}
			if (g == &own)
				ci_graph_replay_deinit(&own);
		}
	}
}

/* One node version, a line: ordinal, type, what it does, where it was captured or added. */
static void graph_node_line(struct ci_text_out *o, const struct ci_graph_node *e, const char *state)
{
	char what[1200], site[768], stream[96] = "", after[128] = "";
	if (e->dep_count) { /* a built graph's edges: the ordinals it runs after */
		size_t k = (size_t)snprintf(after, sizeof(after), " after");
		for (uint32_t i = 0; i < e->dep_count && i < CI_NODE_DEPS && k < sizeof(after); i++)
			k += e->deps[i] == CI_NONE ? (size_t)snprintf(after + k, sizeof(after) - k, "%s ?", i ? "," : "")
						   : (size_t)snprintf(after + k, sizeof(after) - k, "%s %" PRIu32,
								      i ? "," : "", e->deps[i]);
		if (e->dep_count > CI_NODE_DEPS && k < sizeof(after))
			snprintf(after + k, sizeof(after) - k, " and %" PRIu32 " more", e->dep_count - CI_NODE_DEPS);
	}
	switch (e->type) {
	case CI_NODE_KERNEL: {
		struct ci_launch k = { .function = e->function, .function_handle = e->function_handle };
		char name[4096], shortn[1024];
		ci_kernel_short_name(ci_launch_kernel_name(o->m, &k, name, sizeof(name)), shortn, sizeof(shortn));
		snprintf(what, sizeof(what), "%s grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") block (%" PRIu32
			 ",%" PRIu32 ",%" PRIu32 ")%s", shortn, e->grid[0], e->grid[1], e->grid[2],
			 e->block[0], e->block[1], e->block[2],
			 e->flags & CI_NODE_DISABLED ? " (disabled)" : e->flags & CI_NODE_CRUMB ? " +crumb" : "");
		break;
	}
	case CI_NODE_MEMCPY:
		snprintf(what, sizeof(what), "0x%" PRIx64 " <- 0x%" PRIx64 ", %" PRIu64 " bytes", e->a, e->b, e->bytes);
		break;
	case CI_NODE_MEMSET:
		snprintf(what, sizeof(what), "0x%" PRIx64 " = 0x%" PRIx64 ", %" PRIu64 " bytes", e->a, e->b, e->bytes);
		break;
	case CI_NODE_HOST:
		snprintf(what, sizeof(what), "host function 0x%" PRIx64, e->function_handle);
		break;
	case CI_NODE_EVENT_RECORD:
	case CI_NODE_EVENT_WAIT:
		snprintf(what, sizeof(what), "event 0x%" PRIx64 "%s", e->a,
			 e->handle ? "" : e->type == CI_NODE_EVENT_RECORD ? " (recorded in the capture)"
									  : " (waited for: joins the capture)");
		break;
	case CI_NODE_CONDITIONAL: {
		static const char *const kinds[] = { "if", "while", "switch" };
		snprintf(what, sizeof(what), "%s, %" PRIu64 " bod%s from 0x%" PRIx64,
			 e->bytes < 3 ? kinds[e->bytes] : "condition", e->b, e->b == 1 ? "y" : "ies", e->a);
		break;
	}
	case CI_NODE_SEM_SIGNAL:
	case CI_NODE_SEM_WAIT:
		if (e->b)
			snprintf(what, sizeof(what), "%" PRIu64 " semaphore%s from 0x%" PRIx64, e->b,
				 e->b == 1 ? "" : "s", e->a);
		else
			snprintf(what, sizeof(what), "semaphores not recorded");
		break;
	default:
		snprintf(what, sizeof(what), "0x%" PRIx64, e->a);
		break;
	}
	if (e->stream != CI_NONE && ci_stream_valid(o->m, e->stream))
		snprintf(stream, sizeof(stream), " on stream 0x%" PRIx64, o->m->streams[e->stream].handle);
	stack_site(o, e->stack, site, sizeof(site));
	line(o, "    %-4" PRIu32 " %-12s %s%s%s%s%s%s%s%s", e->ordinal, ci_node_type_name(e->type),
	     state ? state : "", state ? "  " : "", what, after, stream,
	     e->flags & CI_NODE_DESTROYED ? " (destroyed)" : "", *site ? " at " : "", site);
}

void ci_text_graphs(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	const struct ci_graph_replay *fg = o->d->graph;
	size_t ng = 0;
	for (size_t i = 0; i < m->graph_count; i++)
		ng += m->graphs[i].seq != 0;
	char n1[32];
	struct ci_graph_index ix;
	bool ix_ok = ci_graph_index_init(m, &ix);
	/* Format 1.5: the replays the execs counted (a graph launch is a launch-ring entry, and a
	 * sparse model holds only the ring's tail); before, the graph-launch ring's entries. */
	bool in_launches = ci_model_graph_launches_in_launches(m);
	uint64_t replays = in_launches ? 0 : m->graph_launch_count;
	for (size_t i = 0; in_launches && i < m->graph_exec_count; i++)
		replays += m->graph_execs[i].seq ? m->graph_execs[i].launches : 0;
	line(o, "Graphs: %zu, executable graphs: %zu, graph launches%s: %s%s", ng, m->graph_exec_count,
	     in_launches ? "" : " in the ring", ci_fmt_count(replays, n1, sizeof(n1)),
	     m->sections[CI_SEC_GRAPHS].present ? "" : " (the record has no graph tables)");
	for (size_t gi = 0; gi < m->graph_count; gi++) {
		const struct ci_graph *g = &m->graphs[gi];
		if (!g->seq)
			continue;
		char stream[96] = "", site[768];
		if (g->stream != CI_NONE)
			snprintf(stream, sizeof(stream), " on %s", ci_stream_label(m, g->stream, site, sizeof(site)));
		fputc('\n', o->f);
		char lost[96] = "";
		if (g->nodes_dropped)
			snprintf(lost, sizeof(lost), " (%" PRIu32 " node version%s not recorded: the node table "
				 "was full)", g->nodes_dropped, g->nodes_dropped == 1 ? "" : "s");
		line(o, "Graph 0x%" PRIx64 ": %s%s, %" PRIu32 " nodes%s%s%s%s", g->handle,
		     ci_graph_origin_name(g->origin), stream, g->nodes, lost,
		     g->flags & CI_GRAPH_INVALIDATED ? ", capture invalidated" : "",
		     g->crumb_slot != CI_NONE ? ", in-graph breadcrumbs" : "", g->destroy_ns ? ", destroyed" : "");
		print_stack(o, g->origin == CI_GRAPH_CAPTURED || g->origin == CI_GRAPH_CAPTURED_INTO ? "  captured at " : "  created at ", g->stack, 3);
		/* A child graph: the child-graph node that embeds it (bounded: a hostile record's
		 * tables are not scanned once per graph without end). */
		for (size_t k = 0; g->origin == CI_GRAPH_CHILD && k < m->graph_node_count && k < (1u << 20); k++) {
			const struct ci_graph_node *e = &m->graph_nodes[k];
			if (e->seq && e->type == CI_NODE_CHILD_GRAPH && e->a == g->handle && e->exec == CI_NONE &&
			    e->graph < m->graph_count && m->graphs[e->graph].seq) {
				line(o, "  the graph of child-graph node %" PRIu32 " of %s", e->ordinal,
				     graph_label(m, e->graph, site, sizeof(site)));
				break;
			}
		}
		/* Its nodes as the graph has them (latest versions of its own), or as the faulting
		 * replay ran them. */
		const struct ci_graph_node **latest = NULL;
		size_t nl = ix_ok ? ci_graph_latest_nodes(m, &ix, (uint32_t)gi, &latest) : 0;
		for (size_t k = 0; k < nl; k++) {
			const struct ci_graph_node *last = latest[k];
			uint32_t ord = last->ordinal;
			const char *state = NULL;
			/* The faulting replay's entry for this node: of the replayed graph by ordinal,
			 * of a child graph the first of the replay's that ran it. */
			ptrdiff_t at = -1;
			if (fg && fg->graph == gi && ord < fg->graph_nodes)
				at = (ptrdiff_t)ord;
			for (size_t j = fg ? fg->graph_nodes : 0; fg && at < 0 && j < fg->node_count; j++)
				if (fg->nodes[j].node && fg->nodes[j].node->graph == gi && fg->nodes[j].ordinal == ord)
					at = (ptrdiff_t)j;
			if (at >= 0 && fg->nodes[at].node) {
				state = node_state_text(fg->nodes[at].state);
				if (fg->nodes[at].state == CI_LS_IN_FLIGHT && fg->nodes[at].node->type != CI_NODE_KERNEL)
					state = "in flight"; /* no breadcrumb of its own: maybe done */
				last = fg->nodes[at].node;
			}
			graph_node_line(o, last, state);
		}
		free(latest);
		for (size_t xi = ix_ok ? ix.exec_head[gi] : SIZE_MAX; xi != SIZE_MAX; xi = ix.exec_next[xi]) {
			const struct ci_graph_exec *x = &m->graph_execs[xi];
			char s2[768];
			stack_site(o, x->stack, s2, sizeof(s2));
			line(o, "  exec 0x%" PRIx64 ": %" PRIu64 " launch%s, %" PRIu32 " node update%s%s%s%s%s", x->handle,
			     x->launches, x->launches == 1 ? "" : "es", x->updates, x->updates == 1 ? "" : "s",
			     fg && fg->exec == xi ? ", the faulting launch is one of its replays" : "",
			     x->destroy_ns ? ", destroyed" : "", *s2 ? ", instantiated at " : "", s2);
			for (size_t k = ix.upd_head[xi]; k != SIZE_MAX; k = ix.upd_next[k])
				graph_node_line(o, &m->graph_nodes[k], "update");
			if (fg && fg->exec == xi)
				line(o, "    replay %" PRIu64 " %s%s", fg->replay,
				     launch_state_text(o, fg->launch), fg->crumb ? " (states above from its in-graph breadcrumb)" : "");
		}
	}
	if (ix_ok)
		ci_graph_index_deinit(&ix);
	else if (m->graph_count)
		line(o, "(out of memory: the graphs' nodes and executable graphs are not shown)");
}

static int cmp_free_time(const void *a, const void *b)
{
	const struct ci_alloc *x = *(const struct ci_alloc *const *)a;
	const struct ci_alloc *y = *(const struct ci_alloc *const *)b;
	return x->free_ns < y->free_ns ? -1 : x->free_ns > y->free_ns;
}

void ci_text_allocs(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	uint64_t by_kind_n[16] = { 0 }, by_kind_bytes[16] = { 0 }, total = 0;
	for (size_t i = 0; i < m->alloc_count; i++) {
		/* Every allocation's brief (a lazy model loads only those the table shows). */
		struct ci_alloc_brief a;
		ci_model_alloc_brief(m, i, &a);
		uint32_t k = a.kind < 16 ? a.kind : 0;
		by_kind_n[k]++;
		by_kind_bytes[k] += a.size;
		total += a.size;
	}
	char n1[32], n2[32];
	const struct ci_section_stats *ss = &m->sections[CI_SEC_ALLOCS];
	line(o, "Live allocations: %s, %s in all%s", ci_fmt_count(m->alloc_count, n1, sizeof(n1)),
	     ci_fmt_size(total, n2, sizeof(n2)),
	     ss->dropped ? " (the table was full: some allocations were not recorded)" : "");
	for (uint32_t k = 0; k < 16; k++)
		if (by_kind_n[k])
			line(o, "  %-14s %12s  %s", ci_alloc_kind_name(k),
			     ci_fmt_count(by_kind_n[k], n1, sizeof(n1)),
			     ci_fmt_size(by_kind_bytes[k], n2, sizeof(n2)));
	size_t want = o->o->last ? o->o->last : m->alloc_count;
	line(o, "  %-7s %-16s %-14s %-12s %-7s %s", "id", "address", "size (bytes)", "kind", "thread",
	     "allocated at");
	/* A lazy model's allocations are read a sweep of the table at a time, not kept (model.h). */
	struct ci_alloc_walk walk __attribute__((cleanup(ci_alloc_walk_deinit)));
	ci_alloc_walk_init(&walk, m, want);
	for (size_t i = 0; i < m->alloc_count && i < want; i++) {
		const struct ci_alloc *a = ci_alloc_walk_at(&walk, i);
		if (!a)
			a = ci_report_alloc(o->r, i);
		if (o->o->has_thread_filter && a->tid != o->o->thread_filter)
			continue;
		char sz[32], site[768], id[24];
		snprintf(id, sizeof(id), "#%" PRIu64, a->id);
		line(o, "  %-7s 0x%-14" PRIx64 " %-14s %-12s %-7" PRIu32 " %s", id, a->address,
		     ci_fmt_count(a->size, sz, sizeof(sz)), ci_alloc_kind_name(a->kind), a->tid,
		     stack_site(o, a->stack, site, sizeof(site)));
	}
	if (want < m->alloc_count)
		line(o, "  ... %zu more (--last N shows the first N by address)", m->alloc_count - want);
	if (!o->o->freed) {
		if (m->free_count)
			line(o, "(%zu recently freed allocations: --freed shows them)", m->free_count);
		return;
	}
	fputc('\n', o->f);
	const struct ci_section_stats *fs = &m->sections[CI_SEC_FREES];
	line(o, "Recently freed: %zu, newest last (%s older frees were overwritten)", m->free_count,
	     ci_fmt_count(fs->overwritten, n1, sizeof(n1)));
	line(o, "  %-7s %-16s %-14s %-12s %-7s %-10s %s", "id", "address", "size (bytes)", "kind",
	     "by", "freed (s)", "freed at");
	const struct ci_alloc **v = malloc((m->free_count ? m->free_count : 1) * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < m->free_count; i++)
		v[i] = &m->frees[i];
	qsort(v, m->free_count, sizeof(*v), cmp_free_time);
	for (size_t i = 0; i < m->free_count; i++) {
		const struct ci_alloc *a = v[i];
		char sz[32], t[32], site[768], id[24];
		snprintf(id, sizeof(id), "#%" PRIu64, a->id);
		line(o, "  %-7s 0x%-14" PRIx64 " %-14s %-12s %-7" PRIu32 " %-10s %s", id, a->address,
		     ci_fmt_count(a->size, sz, sizeof(sz)), ci_alloc_kind_name(a->kind), a->free_tid,
		     rel_time(o, a->free_ns, t, sizeof(t)),
		     stack_site(o, a->free_stack, site, sizeof(site)));
	}
	free(v);
}

void ci_text_errors(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	const struct ci_diagnosis *d = o->d;
	const struct ci_section_stats *es = &m->sections[CI_SEC_ERRORS];
	char n1[32];
	line(o, "CUDA errors: %zu recorded, oldest first (%s older ones were overwritten)",
	     m->error_count, ci_fmt_count(es->overwritten, n1, sizeof(n1)));
	for (size_t i = 0; i < m->error_count; i++) {
		const struct ci_api_error *e = &m->errors[i];
		if (o->o->has_thread_filter && e->tid != o->o->thread_filter)
			continue;
		char t[32], api[CI_API_NAME_MAX + 1], args[CI_ARGS_MAX + 1], who[64];
		const char *mark = (ptrdiff_t)i == d->first_sticky_error ? "  <- first sticky error"
				   : (e->flags & CI_ERROR_STICKY)	  ? "  (sticky)"
									  : "";
		line(o, "  %-10s %s -> %s (%d)%s", rel_time(o, e->time_ns, t, sizeof(t)),
		     CI_SCRUB_FIELD(e->api, api), ci_cuda_result_name(e->result), e->result, mark);
		CI_SCRUB_FIELD(e->args, args);
		line(o, "             in %s%s%s", thread_desc(o, e->tid, who, sizeof(who)),
		     args[0] ? "; " : "", args);
		print_stack(o, "             at ", e->stack, 3);
	}
	if (d->signal) {
		char sig[32], who[64];
		line(o, "  %-10s %s received %s", "(end)", thread_desc(o, d->signal_tid, who, sizeof(who)),
		     ci_signal_name(d->signal, sig, sizeof(sig)));
	}
}

void ci_text_threads(struct ci_text_out *o)
{
	if (!o->r->thread_count) {
		const struct ci_source_info *si = o->r->source;
		if (si && si->kind == CI_SOURCE_RECORD)
			line(o, "Threads: a record file holds no thread registers, so there are no host "
				"backtraces; read the core instead");
		else
			line(o, "Threads: no host backtraces available");
		return;
	}
	if (o->m->no_record)
		line(o, "No cudainspect flight record in this input (the program did not run under the "
			"recorder): host threads only");
	line(o, "Threads: %zu", o->r->thread_count);
	for (size_t i = 0; i < o->r->thread_count; i++) {
		const struct ci_thread_stack *t = &o->r->threads[i];
		if (o->o->has_thread_filter && t->tid != o->o->thread_filter)
			continue;
		char who[64], sig[32];
		fputc('\n', o->f);
		line(o, "%s%s%s%s%s", thread_desc(o, t->tid, who, sizeof(who)),
		     t->crashed || (o->d->signal && t->tid == o->d->signal_tid) ? " (received " : "",
		     t->crashed || (o->d->signal && t->tid == o->d->signal_tid)
			     ? ci_signal_name(o->d->signal, sig, sizeof(sig)) : "",
		     t->crashed || (o->d->signal && t->tid == o->d->signal_tid) ? ")" : "",
		     o->d->error_tid == t->tid ? " (observed the CUDA error)" : "");
		if (t->gil_holder)
			line(o, "  (holds the GIL)");
		for (size_t k = 0; k < t->frame_count; k++) {
			char buf[768];
			bool py = t->frames[k].kind == CI_FRAME_PYTHON;
			if ((py && o->o->frames == CI_FRAMES_NATIVE) ||
			    (!py && o->o->frames == CI_FRAMES_PYTHON))
				continue;
			line(o, "  #%-3zu %s", k, fmt_frame(&t->frames[k], buf, sizeof(buf)));
		}
		if (t->python_note)
			line(o, "  (Python: %s)", t->python_note);
		if (t->note)
			line(o, "  (%s)", t->note);
	}
}

static void params_dump(struct ci_text_out *o, const struct ci_launch *l)
{
	size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
	const struct ci_function *fn = l->function < o->m->function_count &&
						       o->m->functions[l->function].seq
					       ? &o->m->functions[l->function]
					       : NULL;
	if (fn && fn->params_known) {
		uint32_t n = fn->nparams < CI_PARAMS_MAX ? fn->nparams : CI_PARAMS_MAX;
		line(o, "  parameters (%" PRIu32 ", %zu bytes recorded%s):", fn->nparams, len,
		     (l->flags & CI_LAUNCH_PARAMS_CUT) ? ", cut short" : "");
		for (uint32_t k = 0; k < n; k++) {
			size_t off = fn->param_offset[k], sz = fn->param_size[k];
			char hexs[80] = "";
			size_t h = 0;
			if (off + sz <= len && sz <= 16) {
				if (sz == 8 || sz == 4 || sz == 2 || sz == 1) {
					uint64_t v = 0;
					for (size_t b = sz; b-- > 0;)
						v = v << 8 | l->params[off + b];
					snprintf(hexs, sizeof(hexs), "0x%" PRIx64, v);
				} else {
					for (size_t b = 0; b < sz && h + 3 < sizeof(hexs); b++)
						h += (size_t)snprintf(hexs + h, sizeof(hexs) - h, "%02x",
								      l->params[off + b]);
				}
			} else {
				snprintf(hexs, sizeof(hexs), off + sz > len ? "(not recorded)" : "(%zu bytes)",
					 sz);
			}
			line(o, "    %2" PRIu32 "  +%-4zu %3zu B  %s", k, off, sz, hexs);
		}
		return;
	}
	line(o, "  parameters: %zu bytes, layout unknown (8-byte words):", len);
	for (size_t off = 0; off + 8 <= len; off += 8) {
		uint64_t v = 0;
		for (size_t b = 8; b-- > 0;)
			v = v << 8 | l->params[off + b];
		line(o, "    +%-4zu 0x%016" PRIx64, off, v);
	}
}

/* Every piece of evidence and the rule that weighed it; the kernel log's lines that were not
 * taken, counted by reason. */
static void fault_evidence(struct ci_text_out *o)
{
	const struct ci_diagnosis *d = o->d;
	const struct ci_evidence *ev = ci_report_evidence(o->r);
	if (!d->evidence_count && !(ev && ev->kernel_log))
		return;
	fputc('\n', o->f);
	heading(o, "Evidence");
	for (size_t i = 0; i < d->evidence_count; i++) {
		const struct ci_evidence_item *it = &d->evidence[i];
		char label[64];
		snprintf(label, sizeof label, "  %s%s%s: ", ci_evidence_kind_name(it->kind),
			 it->rule ? "/" : "", it->rule ? it->rule : "");
		para(o, label, 6, it->text);
	}
	if (!ev || !ev->kernel_log)
		return;
	const struct ci_klog *log = ev->kernel_log;
	char text[512];
	size_t used = (size_t)snprintf(text, sizeof text, "%s: %zu Xid line%s, %zu of them the "
				       "process's", ev->kernel_log_origin, log->count,
				       log->count == 1 ? "" : "s", ev->kernel_log_selected);
	if (ev->kernel_log_selected > ev->kernel_log_events && ev->kernel_log_events)
		used += (size_t)snprintf(text + used, sizeof text - used, " (%zu event%s)",
					 ev->kernel_log_events, ev->kernel_log_events == 1 ? "" : "s");
	size_t by[16] = { 0 };
	for (size_t i = 0; i < log->count; i++)
		if (!ev->kernel_log_match[i].belongs && ev->kernel_log_match[i].reject < 16)
			by[ev->kernel_log_match[i].reject]++;
	for (int r = 1; r < 16 && used < sizeof text; r++)
		if (by[r])
			used += (size_t)snprintf(text + used, sizeof text - used, "; %zu %s", by[r],
						 ci_klog_reject_text((enum ci_klog_reject)r));
	if (used < sizeof text)
		snprintf(text + used, sizeof text - used, " (rules: docs/KERNEL-LOG.md).");
	para(o, "  kernel log: ", 6, text);
}

void ci_text_fault(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	const struct ci_diagnosis *d = o->d;
	char name[1024], buf[1280];
	snprintf(buf, sizeof(buf), "Diagnosis: %s", ci_verdict_name(d->verdict));
	heading(o, buf);
	para(o, "  ", 2, d->reasoning);
	ptrdiff_t li = d->faulting_launch >= 0 ? d->faulting_launch : d->failed_launch;
	if (li >= 0) {
		const struct ci_launch *l = shown_launch(o, li);
		fputc('\n', o->f);
		snprintf(buf, sizeof(buf), "%s %s (confidence: %s)",
			 d->faulting_launch >= 0 ? "Launch" : "Failed launch",
			 ci_launch_kernel_name(m, l, name, sizeof(name)),
			 ci_confidence_name(d->faulting_launch >= 0 ? d->confidence : CI_CONF_HIGH));
		heading(o, buf);
		const char *raw = ci_model_function_name(m, l->function);
		char rawc[256];
		if (raw && *raw)
			line(o, "  symbol %s, function handle 0x%" PRIx64, ci_scrub(raw, rawc, sizeof(rawc)),
			     l->function_handle);
		launch_lines(o, (size_t)li, 32);
		if (l->cluster[0])
			line(o, "  cluster (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", l->cluster[0],
			     l->cluster[1], l->cluster[2]);
		line(o, "  ring seq %" PRIu64 ", state %s, call returned %s", l->seq,
		     launch_state_text(o, (size_t)li), ci_cuda_result_name(l->result));
		if (d->faulting_launch >= 0)
			graph_fault_lines(o, 32, false);
		params_dump(o, l);
	}
	if (d->faulting_launch < 0 && d->faulting_copy >= 0) {
		fputc('\n', o->f);
		copy_lines(o, false);
	}
	fault_evidence(o);
	if (d->attribution_count) {
		fputc('\n', o->f);
		heading(o, "Pointer arguments of suspect launches");
		/* Per launch (the faulting one first, as the diagnosis orders them), bad pointers
		 * before the ones inside live allocations. */
		for (size_t i = 0; i < d->attribution_count; i++) {
			size_t ai = d->attributions[i].launch;
			if (i > 0 && d->attributions[i - 1].launch == ai)
				continue;
			const struct ci_launch *l = shown_launch(o, ai);
			line(o, " %s, launch %" PRIu64 " (%s):",
			     ci_launch_kernel_name(m, l, name, sizeof(name)), l->stream_seq,
			     launch_state_text(o, ai));
			for (int pass = 0; pass < 2; pass++)
				for (size_t k = i; k < d->attribution_count && d->attributions[k].launch == ai;
				     k++) {
					const struct ci_attribution *a = &d->attributions[k];
					if ((a->relation == CI_REL_INSIDE) == (pass == 1))
						print_attribution(o, a, true);
				}
		}
	}
	fputc('\n', o->f);
	heading(o, "Stream progress");
	for (size_t i = 0; i < d->stream_count; i++) {
		const struct ci_stream_progress *p = &d->streams[i];
		char label[96];
		line(o, "  %s: breadcrumb %" PRIu64 " of %" PRIu64 "; %zu finished, %zu in flight, %zu "
			"not started, %zu unknown",
		     ci_stream_label(m, p->stream, label, sizeof(label)), p->crumb, p->launched,
		     p->finished, p->in_flight, p->not_started, p->unknown);
	}
	if (!d->stream_count)
		line(o, "  no streams recorded");
	fputc('\n', o->f);
	summary_error(o, false);
	char basis[sizeof o->r->fingerprint_basis];
	line(o, "Signature %s  (of: %s)", ci_report_fingerprint(o->r),
	     ci_scrub(ci_report_fingerprint_basis(o->r), basis, sizeof basis));
}

static void view_record(struct ci_text_out *o)
{
	const struct ci_model *m = o->m;
	const struct ci_header *h = &m->header;
	char rv[40], sz[32];
	heading(o, "Record");
	line(o, "  format %u.%u, recorder %s, %s at 0x%" PRIx64 " (found by %s)", h->major, h->minor,
	     CI_SCRUB_FIELD(h->recorder_version, rv), ci_fmt_size(h->record_size, sz, sizeof(sz)),
	     m->location.address, ci_locate_method_phrase(m->location.method));
	const char *stacks = h->stack_mode == CI_STACKS_OFF || h->stack_mode == CI_STACKS_FAST
				     ? ci_stack_mode_name(h->stack_mode) : "accurate";
	if (h->crumb_budget_ppm)
		line(o, "  stacks %s (depth %" PRIu32 "), breadcrumbs within %.3g %% of each thread's "
			"time (a write costs %" PRIu32 " ns here) (%" PRIu32 "-bit)%s",
		     stacks, h->stack_depth, h->crumb_budget_ppm / 10000.0, h->crumb_cost_ns,
		     h->crumb_width * 8, (h->flags & CI_HDR_CRUMBS_OFF) ? ", disabled" : "");
	else
		line(o, "  stacks %s (depth %" PRIu32 "), breadcrumbs every %" PRIu32 " launches / %" PRIu32
			" us (%" PRIu32 "-bit)%s",
		     stacks, h->stack_depth, h->crumb_every_launches, h->crumb_every_us,
		     h->crumb_width * 8, (h->flags & CI_HDR_CRUMBS_OFF) ? ", disabled" : "");
	line(o, "  %-17s %10s %10s %10s %8s %8s %11s %8s %8s", "section", "capacity", "written",
	     "accepted", "torn", "invalid", "overwritten", "dropped", "missing");
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		/* The byte areas have no entries to count. */
		if (!ci_section_title(k) || !s->present || k == CI_SEC_FRAMES || k == CI_SEC_STRINGS ||
		    k == CI_SEC_BREADCRUMBS || k == CI_SEC_SYMBOL_IMAGE || k == CI_SEC_KERNEL_LOG)
			continue;
		line(o, "  %-17s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64
			" %11" PRIu64 " %8" PRIu64 " %8" PRIu64,
		     ci_section_title(k), s->capacity, s->head, s->accepted, s->torn, s->invalid, s->overwritten,
		     s->dropped, s->missing);
	}
}

void ci_text_nccl(struct ci_text_out *o)
{
	struct ci_job_facts f;
	heading(o, "NCCL communicators");
	if (!nccl_facts(o, &f))
		return;
	if (!f.comm_count) {
		line(o, "  none recorded: the process made no NCCL call the recorder saw (the recorder "
			"interposes libnccl.so.2's public API)");
		ci_job_facts_deinit(&f);
		return;
	}
	char cnt[32], buf[256];
	size_t want = o->o->last ? o->o->last : NCCL_CALLS_DEFAULT;
	for (size_t i = 0; i < f.comm_count; i++) {
		const struct ci_job_comm *c = &f.comms[i];
		nccl_comm_words(c, buf, sizeof buf);
		if (i)
			fputc('\n', o->f);
		line(o, "%s", buf);
		if (c->parent_id)
			line(o, "  split from communicator 0x%016" PRIx64, c->parent_id);
		if (c->result)
			line(o, "  its init returned ncclResult %" PRId32, c->result);
		if (c->async_error)
			line(o, "  ncclCommGetAsyncError reported ncclResult %" PRId32, c->async_error);
		size_t total = 0, shown = 0;
		for (size_t k = 0; k < f.call_count; k++)
			total += f.calls[k].comm_id == c->comm_id;
		if (!total) {
			line(o, "  no collective recorded");
			continue;
		}
		/* The newest WANT, oldest first (calls are sorted by number; refused ones first). */
		line(o, "  %-6s %-20s %-12s %-12s %-8s %-6s %s", "#", "call", "state", "elements",
		     "datatype", "redop", "peer");
		for (size_t k = 0; k < f.call_count; k++) {
			const struct ci_job_call *x = &f.calls[k];
			if (x->comm_id != c->comm_id || total - shown++ > want)
				continue;
			char seq[24], note[64];
			snprintf(seq, sizeof seq, x->op_seq ? "%" PRIu64 : "-", x->op_seq);
			if (x->state == CI_JOB_CALL_FAILED)
				snprintf(note, sizeof note, " returned ncclResult %" PRId32, x->result);
			else
				snprintf(note, sizeof note, "%s", nccl_watchdog_note(x));
			line(o, "  %-6s %-20s %-12s %-12s %-8" PRId32 " %-6" PRId32 " %" PRId32 "%s", seq,
			     ci_job_op_api(x->op), nccl_state_text(x), ci_fmt_count(x->count, cnt, sizeof cnt),
			     x->datatype, x->redop, x->peer, note);
		}
		if (total > want)
			line(o, "  (%zu older not shown: --last N shows N)", total - want);
	}
	fputc('\n', o->f);
	para(o, "", 0, "States come from each collective's stream breadcrumb: IN FLIGHT is reached "
		 "on the stream (waiting for the other ranks, or running), not started is behind "
		 "unfinished work.  An abort ends the collectives in flight, so after one they read "
		 "finished: \"past the hang timeout\" marks the one that waited (the recorder's "
		 "CUDAINSPECT_NCCL_TIMEOUT); \"late\" one that waited that long and then finished: a delay, "
		 "not the hang.  For the whole job: cudainspect merge.");
	ci_job_facts_deinit(&f);
}

void ci_text_all(struct ci_text_out *o)
{
	static ci_text_view_fn *const parts[] = {
		ci_text_summary, ci_text_fault, ci_text_contexts, ci_text_streams, ci_text_kernels,
		ci_text_graphs, ci_text_allocs, ci_text_errors, ci_text_threads,
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		parts[i](o);
		fputs("\n\n", o->f);
	}
	/* NCCL only where there is some: the other reports stay as they were. */
	if (o->m->nccl_comm_count) {
		ci_text_nccl(o);
		fputs("\n\n", o->f);
	}
	view_record(o);
	print_warnings(o, SIZE_MAX);
}

struct ci_error *ci_text_print(FILE *f, const struct ci_report *report,
			       const struct ci_render_options *opts, ci_text_view_fn *view)
{
	struct ci_text_out o = {
		.f = f,
		.r = report,
		.o = opts ? opts : &report->request.render,
		.m = report->model,
		.d = report->diagnosis,
	};
	o.width = o.o->width > 0 ? o.o->width : 100;
	if (o.width < 40)
		o.width = 40;
	o.color = o.o->color;
	char input[512];
	const struct ci_source_info *si = report->source;
	if (o.o->input_arg)
		snprintf(input, sizeof(input), "%s", o.o->input_arg);
	else if (si && si->kind == CI_SOURCE_PID)
		snprintf(input, sizeof(input), "--pid %" PRIu32, si->pid);
	else if (si && si->path && strcmp(si->path, "-") == 0)
		/* Standard input is gone once read: the commands name a saved copy (summary_next). */
		snprintf(input, sizeof(input), "CORE");
	else if (si && si->path) {
		/* Suggested commands are pasted into a shell: the path is one word there. */
		char shown[512];
		ci_shell_quote(ci_scrub(si->path, shown, sizeof(shown)), input, sizeof(input));
	}
	else
		snprintf(input, sizeof(input), "CORE");
	o.input = input;

	view(&o);
	if (fflush(f) != 0 || ferror(f))
		return ci_error_create(CI_ERR_IO, "cannot write the report: %m");
	return NULL;
}
