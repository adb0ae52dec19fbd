/* SPDX-License-Identifier: MIT */
/*
 * Printing the host-side report of a core without a flight record (hostside.h): the text the
 * CLI shows before its "no flight record" message, the JSON document (docs/JSON.md, "Without a
 * flight record"), and the one line of the GDB plugin's banner.  Every string from the core is
 * scrubbed (ci_scrub) before it is printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

#define TEXT_FRAMES 16 /* frames of the crashed thread's backtrace in the text */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "?";
}

/* "function (file:line) in module" of a frame, scrubbed, cut to N. */
static char *frame_text(const struct ci_frame *f, char *buf, size_t n)
{
	char fn[256], file[256], mod[128];
	ci_scrub(f->function ? f->function : "??", fn, sizeof fn);
	ci_scrub(base_name(f->module), mod, sizeof mod);
	if (f->kind == CI_FRAME_PYTHON)
		snprintf(buf, n, "%s (%s:%d) [Python]", fn,
			 f->file ? ci_scrub(base_name(f->file), file, sizeof file) : "??", f->line);
	else if (f->file)
		snprintf(buf, n, "%s (%s:%d) in %s", fn, ci_scrub(base_name(f->file), file, sizeof file),
			 f->line, mod);
	else
		snprintf(buf, n, "%s in %s", fn, mod);
	return buf;
}

/* LEAD then TEXT, wrapped at spaces to WIDTH columns, continuation lines indented by INDENT
 * (a word longer than a line is broken); one newline at the end. */
static void wrapped(FILE *out, const char *lead, const char *text, unsigned indent, unsigned width)
{
	size_t col = strlen(lead), room = width > indent + 20 ? width : indent + 20;
	fputs(lead, out);
	const char *p = text;
	while (*p) {
		size_t n = strlen(p);
		if (col + n <= room) {
			fputs(p, out);
			break;
		}
		size_t cut = room > col ? room - col : 1, k = cut;
		while (k > 0 && p[k] != ' ')
			k--;
		if (k == 0)
			k = cut; /* no space: break the word */
		fwrite(p, 1, k, out);
		p += k;
		while (*p == ' ')
			p++;
		fprintf(out, "\n%*s", (int)indent, "");
		col = indent;
	}
	fputc('\n', out);
}

static const char *signal_text(const struct ci_hostside *h, char *buf, size_t n)
{
	char name[32];
	const char *what = h->signal > 0 ? strsignal(h->signal) : NULL;
	if (!h->signal)
		snprintf(buf, n, "no signal (the core was written by gcore or on request)");
	else if (h->fault_addr && (h->signal == 11 || h->signal == 7))
		snprintf(buf, n, "%s (%s) at address 0x%" PRIx64, ci_signal_name(h->signal, name, sizeof name),
			 what ? what : "?", h->fault_addr);
	else
		snprintf(buf, n, "%s (%s)", ci_signal_name(h->signal, name, sizeof name), what ? what : "?");
	return buf;
}

static void text(FILE *out, const struct ci_hostside *h, const char *why, unsigned width)
{
	char a[512], b[512], c[512];
	/* The recorder may have been loaded and the record kept outside the core (a persistent
	 * record under CUDAINSPECT_DIR, a snapshot): then "ran without it" would be wrong. */
	bool recorder = false;
	for (size_t i = 0; i < h->lib_count; i++)
		recorder |= strcmp(h->libs[i].family, "cudainspect recorder") == 0;
	snprintf(b, sizeof b,
		 recorder ? "%s (pid %u) had the cudainspect recorder loaded, but the core holds no "
			    "record (a persistent record or a snapshot may hold it; see below)."
			  : "%s (pid %u) ran without the cudainspect recorder.",
		 ci_scrub(base_name(h->executable), a, sizeof a), h->pid);
	wrapped(out, "No flight record: ", b, 2, width);
	fprintf(out, "What the core's host side shows:\n\n");
	const struct ci_thread_stack *t = h->thread_count ? &h->threads[0] : NULL;
	if (t && t->crashed)
		fprintf(out, "Crash: %s in thread %u\n", signal_text(h, a, sizeof a), t->tid);
	else
		fprintf(out, "Crash: %s\n", signal_text(h, a, sizeof a));
	if (h->abort_message)
		wrapped(out, "  abort message: ", ci_scrub(h->abort_message, a, sizeof a), 4, width);
	if (h->exception_type) {
		wrapped(out, "  C++ exception in flight at std::terminate: ",
			ci_scrub(h->exception_type, a, sizeof a), 4, width);
		if (h->exception_what)
			wrapped(out, "    what(): ", ci_scrub(h->exception_what, a, sizeof a), 6, width);
	} else if (h->terminate && h->no_exception) {
		fprintf(out, "  std::terminate with no C++ exception in flight (not an uncaught exception)\n");
	} else if (h->terminate && h->exception_note) {
		fprintf(out, "  std::terminate, exception not read: %s\n", ci_scrub(h->exception_note, a, sizeof a));
	}
	if (t) {
		size_t n = t->frame_count < TEXT_FRAMES ? t->frame_count : TEXT_FRAMES;
		for (size_t f = 0; f < n; f++)
			fprintf(out, "  #%-2zu %s\n", f, frame_text(&t->frames[f], a, sizeof a));
		if (t->frame_count > n)
			fprintf(out, "  ... %zu more frames (cudainspect CORE threads shows them all)\n",
				t->frame_count - n);
		if (t->note)
			fprintf(out, "  (%s)\n", ci_scrub(t->note, a, sizeof a));
	}
	fprintf(out, "\nThreads inside CUDA libraries:");
	if (!h->cuda_thread_count)
		fprintf(out, " none\n");
	else
		fprintf(out, "\n");
	for (size_t i = 0; i < h->cuda_thread_count; i++) {
		const struct ci_cuda_thread *ct = &h->cuda_threads[i];
		const struct ci_thread_stack *s = &h->threads[ct->stack];
		if (ct->own)
			continue;
		fprintf(out, "  thread %u%s: %s\n", s->tid, s->crashed ? " (crashed)" : "",
			frame_text(&s->frames[ct->entry], a, sizeof a));
		if (ct->caller != SIZE_MAX)
			fprintf(out, "    called from %s\n", frame_text(&s->frames[ct->caller], b, sizeof b));
	}
	/* The libraries' own threads (started by the library, nothing of the program's above
	 * them), one line per library. */
	for (size_t i = 0; i < h->cuda_thread_count; i++) {
		const struct ci_cuda_thread *ct = &h->cuda_threads[i];
		const char *mod = h->threads[ct->stack].frames[ct->entry].module;
		bool first = ct->own;
		for (size_t k = 0; k < i && first; k++)
			first = !(h->cuda_threads[k].own && h->cuda_threads[k].lib == ct->lib);
		if (!first)
			continue;
		size_t used = 0, count = 0;
		c[0] = 0;
		for (size_t k = i; k < h->cuda_thread_count; k++)
			if (h->cuda_threads[k].own && h->cuda_threads[k].lib == ct->lib && used + 16 < sizeof c) {
				used += (size_t)snprintf(c + used, sizeof c - used, "%s%u", count ? ", " : "",
							 h->threads[h->cuda_threads[k].stack].tid);
				count++;
			}
		fprintf(out, "  %zu thread%s of %s itself: %s\n", count, count == 1 ? "" : "s",
			ci_scrub(base_name(mod), b, sizeof b), c);
	}
	fprintf(out, "\nCUDA libraries loaded:");
	fprintf(out, h->lib_count ? "\n" : " none (no CUDA library is mapped in the core)\n");
	for (size_t i = 0; i < h->lib_count; i++)
		fprintf(out, "  %s (%s%s%s)\n", ci_scrub(base_name(h->libs[i].path), a, sizeof a),
			h->libs[i].family, h->libs[i].version[0] ? " " : "", h->libs[i].version);
	if (h->driver_version)
		fprintf(out, "Driver version: %s (from libcuda's file name)\n", h->driver_version);
	else if (h->lib_count)
		fprintf(out, "Driver version: unknown (no library file name of the driver gives it)\n");
	if (h->next_command) {
		fprintf(out, recorder ? "\nNext time, let the recorder keep the core and the record together:\n  %s\n"
				      : "\nNext time, run it under the recorder:\n  %s\n",
			ci_scrub(h->next_command, c, sizeof c));
		if (h->psargs_cut)
			fprintf(out, "  (the core keeps only the first 80 bytes of the command line: "
				     "complete it)\n");
	}
	for (size_t i = 0; i < h->warnings.count; i++)
		fprintf(out, "warning: %s\n", ci_scrub(h->warnings.items[i], a, sizeof a));
	(void)why;
}

/* ---------------------------------------------------------------------------------------- */
/* JSON                                                                                       */

static void jstr(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	size_t n = strlen(s) + 1;
	char *buf = malloc(n < 16 ? 16 : n);
	if (!buf) {
		fputs("null", out);
		return;
	}
	ci_scrub(s, buf, n < 16 ? 16 : n);
	fputc('"', out);
	for (const char *p = buf; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
	free(buf);
}

static void jkey(FILE *out, const char *key, const char *s)
{
	fprintf(out, "\"%s\":", key);
	jstr(out, s);
}

static void jframe(FILE *out, const struct ci_frame *f)
{
	fprintf(out, "{\"address\":%" PRIu64 ",\"address_hex\":\"0x%" PRIx64 "\",", f->address, f->address);
	jkey(out, "module", f->module);
	fputc(',', out);
	jkey(out, "function", f->function);
	fputc(',', out);
	jkey(out, "file", f->file);
	if (f->file)
		fprintf(out, ",\"line\":%d", f->line);
	else
		fputs(",\"line\":null", out);
	fprintf(out, ",\"kind\":\"%s\"}", f->kind == CI_FRAME_PYTHON ? "python" : "native");
}

/* The kernel-log lines of the process, as the report with a record gives them (docs/JSON.md:
 * `kernel_log`), and `attribution` saying why no allocation or launch is named. */
#define KLOG_JSON_LINES_MAX 256
static void json_kernel_log(FILE *out, const struct ci_evidence *ev)
{
	const struct ci_klog *log = ev->kernel_log;
	fputs(",\n\"kernel_log\":{", out);
	jkey(out, "origin", ev->kernel_log_origin);
	fprintf(out, ",\"xid_lines\":%zu,\"selected\":%zu,\"lines\":[", log->count,
		ev->kernel_log_selected);
	size_t shown = 0;
	for (size_t i = 0; i < log->count && shown < KLOG_JSON_LINES_MAX; i++, shown++) {
		const struct ci_xid *x = &log->items[i];
		const struct ci_klog_match *mt = &ev->kernel_log_match[i];
		fprintf(out, "%s{\"line\":%" PRIu64 ",\"xid\":%" PRIu32 ",", shown ? "," : "", x->line,
			x->xid);
		jkey(out, "format", ci_klog_format_name(x->format));
		fprintf(out, ",\"belongs\":%s,", mt->belongs ? "true" : "false");
		jkey(out, "rule", mt->belongs ? ci_klog_rule_name(mt->rule) : NULL);
		fputc(',', out);
		jkey(out, "reject", mt->belongs ? NULL : ci_klog_reject_name(mt->reject));
		if (x->pid_form == CI_XID_PID_NUMBER)
			fprintf(out, ",\"pid\":%" PRIu32 ",", x->pid);
		else
			fputs(",\"pid\":null,", out);
		jkey(out, "name", x->name);
		fprintf(out, ",\"pci\":\"%04x:%02x:%02x\",", x->pci.domain, x->pci.bus, x->pci.device);
		if (x->xid == 31 && x->mmu.has_address)
			fprintf(out, "\"address\":%" PRIu64 ",\"address_hex\":\"0x%" PRIx64 "\",",
				x->mmu.address, x->mmu.address);
		else
			fputs("\"address\":null,\"address_hex\":null,", out);
		jkey(out, "message", x->message);
		fputc('}', out);
	}
	fprintf(out, "],\"lines_omitted\":%zu,", log->count - shown);
	jkey(out, "attribution", "none: without a flight record no allocation, launch or copy of the "
				 "process is known");
	fputc('}', out);
}

static void json(FILE *out, const struct ci_hostside *h, const char *why,
		 const struct ci_evidence *klog)
{
	char name[32];
	fprintf(out, "{\"version\":%d,\n\"generator\":{\"name\":\"cudainspect\",\"version\":\"%s\"},\n",
		CI_JSON_SCHEMA_VERSION, CUDAINSPECT_VERSION);
	fputs("\"input\":{", out);
	jkey(out, "path", h->input);
	fputs(",\"kind\":\"core\"},\n\"record\":null,\n", out);
	jkey(out, "no_flight_record", why);
	fputs(",\n\"host_side\":{", out);
	fprintf(out, "\"pid\":%u,", h->pid);
	jkey(out, "executable", h->executable);
	fputc(',', out);
	jkey(out, "command_line", h->psargs);
	fprintf(out, ",\"command_line_cut\":%s,", h->psargs_cut ? "true" : "false");
	if (h->signal)
		fprintf(out, "\"signal\":{\"number\":%d,\"name\":\"%s\",\"code\":%d,\"fault_address\":%" PRIu64
			     ",\"fault_address_hex\":\"0x%" PRIx64 "\"},",
			h->signal, ci_signal_name(h->signal, name, sizeof name), h->si_code, h->fault_addr,
			h->fault_addr);
	else
		fputs("\"signal\":null,", out);
	if (h->thread_count && h->threads[0].crashed)
		fprintf(out, "\"crashed_thread\":%u,", h->threads[0].tid);
	else
		fputs("\"crashed_thread\":null,", out);
	jkey(out, "abort_message", h->abort_message);
	fputc(',', out);
	jkey(out, "abort_message_note", h->abort_note);
	fprintf(out, ",\"terminate\":%s,\"exception\":", h->terminate ? "true" : "false");
	if (h->exception_type || h->exception_note) {
		fputc('{', out);
		jkey(out, "type", h->exception_type);
		fputc(',', out);
		jkey(out, "what", h->exception_what);
		fputc(',', out);
		jkey(out, "note", h->exception_note);
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputc(',', out);
	jkey(out, "driver_version", h->driver_version);
	fputc(',', out);
	jkey(out, "next_command", h->next_command);
	fputs(",\n\"cuda_libraries\":[", out);
	for (size_t i = 0; i < h->lib_count; i++) {
		fputs(i ? ",\n{" : "\n{", out);
		jkey(out, "path", h->libs[i].path);
		fputc(',', out);
		jkey(out, "family", h->libs[i].family);
		fputc(',', out);
		jkey(out, "version", h->libs[i].version[0] ? h->libs[i].version : NULL);
		fputc('}', out);
	}
	fputs("],\n\"threads\":[", out);
	for (size_t t = 0; t < h->thread_count; t++) {
		const struct ci_thread_stack *s = &h->threads[t];
		fprintf(out, "%s{\"tid\":%u,\"crashed\":%s,\"cuda_call\":", t ? ",\n" : "\n", s->tid,
			s->crashed ? "true" : "false");
		const struct ci_cuda_thread *ct = NULL;
		for (size_t i = 0; i < h->cuda_thread_count; i++)
			if (h->cuda_threads[i].stack == t)
				ct = &h->cuda_threads[i];
		if (ct) {
			fputc('{', out);
			jkey(out, "library", ct->lib ? ct->lib->path : s->frames[ct->entry].module);
			fputc(',', out);
			jkey(out, "function", s->frames[ct->entry].function);
			fprintf(out, ",\"frame\":%zu,\"library_thread\":%s}", ct->entry,
				ct->own ? "true" : "false");
		} else {
			fputs("null", out);
		}
		fputs(",\"frames\":[", out);
		for (size_t f = 0; f < s->frame_count; f++) {
			if (f)
				fputc(',', out);
			jframe(out, &s->frames[f]);
		}
		fputs("],", out);
		jkey(out, "note", s->note);
		fputc('}', out);
	}
	fputs("],\n\"warnings\":[", out);
	for (size_t i = 0; i < h->warnings.count; i++) {
		if (i)
			fputc(',', out);
		jstr(out, h->warnings.items[i]);
	}
	fputs("]}", out);
	if (klog && klog->kernel_log)
		json_kernel_log(out, klog);
	fputs("}\n", out);
}

void ci_hostside_render(FILE *out, const struct ci_hostside *h, bool as_json, const char *why,
			unsigned width, const struct ci_evidence *klog)
{
	if (as_json)
		json(out, h, why, klog);
	else
		text(out, h, why, width ? width : 100);
}

void ci_hostside_gist(const struct ci_hostside *h, char *buf, size_t n)
{
	char sig[128], call[320] = "", drv[96] = "", ab[200] = "", a[256];
	signal_text(h, sig, sizeof sig);
	for (size_t i = 0, have = 0; i < h->cuda_thread_count; i++) {
		const struct ci_cuda_thread *ct = &h->cuda_threads[i];
		const struct ci_thread_stack *s = &h->threads[ct->stack];
		if (!ct->own && (!have++ || s->crashed))
			snprintf(call, sizeof call, "; thread %u was in %s", s->tid,
				 frame_text(&s->frames[ct->entry], a, sizeof a));
	}
	if (h->driver_version)
		snprintf(drv, sizeof drv, "; driver %s", h->driver_version);
	if (h->abort_message)
		snprintf(ab, sizeof ab, "; abort message: %s", ci_scrub(h->abort_message, a, 160));
	else if (h->exception_type)
		snprintf(ab, sizeof ab, "; C++ exception %s", ci_scrub(h->exception_type, a, 160));
	snprintf(buf, n, "the host side shows %s%s%s%s", sig, call, drv, ab);
}
