/* SPDX-License-Identifier: MIT */
/*
 * Stage 7, the last moments as a picture (`--timeline FILE.svg`): one self-contained SVG, 1200
 * pixels wide, a lane per stream (its name on the left), the launches as boxes on a time axis in
 * milliseconds since the record started, the faulting launch red with its kernel's name, lines at
 * the first error and at the crash, and a legend.  It draws what timeline.c made: a launch that
 * may still have been running gets a whisker to the crash.  Names come from the record: scrubbed
 * (ci_scrub: no control or bidirectional characters), shortened (ci_kernel_brief_name) and
 * escaped for XML.  Bounded: at most SVG_LANES lanes and SVG_PER_LANE boxes a lane.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

#define SVG_WIDTH 1200
#define SVG_LABEL_W 230          /* the lane names' column */
#define SVG_RIGHT 1180           /* the plot's right edge */
#define SVG_TOP 64               /* the first lane */
#define SVG_LANE_H 34            /* a lane: a row for the faulting kernel's name, then its boxes */
#define SVG_LANES 24
#define SVG_PER_LANE 200
#define SVG_NEWEST 12            /* the window starts at the 12th newest launch of a lane */

#define COLOR_FINISHED "#7aa6d8"
#define COLOR_RUNNING "#f0b429"
#define COLOR_FAULT "#d62728"
#define COLOR_ERROR "#ff7f0e"

struct svg {
	FILE *f;
	const struct ci_report *r;
	const struct ci_timeline *tl;
	uint64_t lo, hi;             /* the window */
	uint32_t *lanes; size_t lane_count; /* timeline lanes drawn, in order */
	size_t hidden_lanes, hidden_boxes;
};

/* S, scrubbed, as XML character data or an attribute value. */
static void xml_text(FILE *f, const char *s)
{
	char clean[1024];
	ci_scrub(s, clean, sizeof clean);
	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*p, f); break;
		}
	}
}

static double x_of(const struct svg *s, uint64_t t)
{
	if (t < s->lo)
		t = s->lo;
	if (t > s->hi)
		t = s->hi;
	return SVG_LABEL_W + (double)(t - s->lo) * (SVG_RIGHT - SVG_LABEL_W) / (double)(s->hi - s->lo);
}

static bool in_window(const struct svg *s, const struct ci_tl_item *it)
{
	return it->kind == CI_TL_LAUNCH && it->end >= s->lo && it->start <= s->hi;
}

/* Which stream lanes to draw: those with launches, the faulting launch's and those with work
 * that may have been running first, at most SVG_LANES, in the timeline's order; and the window:
 * from the SVG_NEWEST-th newest launch of a drawn lane (and the faulting launch and the first
 * error) to the end of the record. */
static int choose(struct svg *s)
{
	const struct ci_timeline *tl = s->tl;
	s->lanes = calloc(tl->lane_count + 1, sizeof *s->lanes);
	uint8_t *rank = calloc(tl->lane_count + 1, 1);
	uint64_t *newest = calloc((tl->lane_count + 1) * SVG_NEWEST, sizeof *newest);
	if (!s->lanes || !rank || !newest) {
		free(rank), free(newest);
		return -1;
	}
	uint64_t fault_start = UINT64_MAX;
	for (size_t k = 0; k < tl->count; k++) {
		const struct ci_tl_item *it = &tl->items[k];
		if (it->kind != CI_TL_LAUNCH)
			continue;
		uint8_t want = it->faulting ? 3 : it->end_why == CI_TL_END_CRASH ? 2 : 1;
		if (rank[it->lane] < want)
			rank[it->lane] = want;
		if (it->faulting)
			fault_start = it->start;
		/* The lane's SVG_NEWEST newest starts, smallest first. */
		uint64_t *nw = &newest[(size_t)it->lane * SVG_NEWEST];
		if (it->start > nw[0]) {
			size_t j = 0;
			while (j + 1 < SVG_NEWEST && nw[j + 1] < it->start) {
				nw[j] = nw[j + 1];
				j++;
			}
			nw[j] = it->start;
		}
	}
	for (uint8_t want = 3; want >= 1; want--)
		for (uint32_t lane = 0; lane < tl->lane_count; lane++)
			if (rank[lane] == want) {
				if (s->lane_count < SVG_LANES)
					s->lanes[s->lane_count++] = lane;
				else
					s->hidden_lanes++;
			}
	/* Back in the timeline's order. */
	for (size_t a = 1; a < s->lane_count; a++)
		for (size_t b = a; b > 0 && s->lanes[b - 1] > s->lanes[b]; b--) {
			uint32_t x = s->lanes[b];
			s->lanes[b] = s->lanes[b - 1];
			s->lanes[b - 1] = x;
		}
	s->hi = tl->t_end;
	s->lo = s->hi;
	for (size_t i = 0; i < s->lane_count; i++) {
		const uint64_t *nw = &newest[(size_t)s->lanes[i] * SVG_NEWEST];
		size_t j = 0;
		while (j < SVG_NEWEST && nw[j] == 0)
			j++;
		if (j < SVG_NEWEST && nw[j] < s->lo)
			s->lo = nw[j];
	}
	if (fault_start < s->lo)
		s->lo = fault_start;
	if (tl->first_error_ns && tl->first_error_ns < s->lo)
		s->lo = tl->first_error_ns;
	uint64_t pad = (s->hi - s->lo) / 30;
	s->lo = s->lo - tl->t0 > pad ? s->lo - pad : tl->t0;
	if (s->hi <= s->lo)
		s->hi = s->lo + 1000;
	free(rank), free(newest);
	return 0;
}

static void lane_label(const struct svg *s, uint32_t lane, char *buf, size_t n)
{
	const struct ci_model *m = s->r->model;
	const struct ci_tl_lane *ln = &s->tl->lanes[lane];
	if (ln->stream == CI_NONE || !ci_stream_valid(m, ln->stream)) {
		snprintf(buf, n, "no stream");
		return;
	}
	const struct ci_stream *st = &m->streams[ln->stream];
	switch (st->kind) {
	case CI_STREAM_LEGACY: snprintf(buf, n, "legacy default stream"); break;
	case CI_STREAM_PER_THREAD:
		snprintf(buf, n, "per-thread stream (%" PRIu32 ")", st->owner_tid);
		break;
	default: snprintf(buf, n, "stream 0x%" PRIx64, st->handle); break;
	}
}

static void draw_box(struct svg *s, const struct ci_tl_item *it, double y)
{
	FILE *f = s->f;
	double x0 = x_of(s, it->start), x1 = x_of(s, it->own_end);
	/* Every box is seen; the faulting one stands out even when its launch was brief. */
	double min_w = it->faulting ? 5 : 1.5;
	if (x1 - x0 < min_w)
		x1 = x0 + min_w;
	char name[512], brief[256];
	ci_tl_launch_name(s->r, it, name, sizeof name);
	const char *fill = it->faulting ? COLOR_FAULT
			   : it->state == CI_LS_FINISHED ? COLOR_FINISHED
			   : it->state == CI_LS_NOT_STARTED ? "#ffffff" : COLOR_RUNNING;
	const char *stroke = it->faulting ? "#7f0000" : it->state == CI_LS_NOT_STARTED ? "#888888"
										     : "#ffffff";
	if (it->end_why == CI_TL_END_CRASH && it->end > it->own_end)
		fprintf(f, "<line class=\"running\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"4 2\"/>\n",
			x1, y + 14, x_of(s, it->end), y + 14, it->faulting ? COLOR_FAULT : COLOR_RUNNING);
	fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\" fill=\"%s\" "
		   "stroke=\"%s\" stroke-width=\"%s\"><title>",
		it->faulting ? "launch faulting" : "launch", x0, y, x1 - x0, fill, stroke,
		it->faulting ? "1" : "0.5");
	xml_text(f, name);
	fprintf(f, " (%s, seq %" PRIu64 ")</title></rect>\n", ci_launch_state_name(it->state),
		ci_report_launch(s->r, it->index)->seq);
	/* A name inside a box wide enough for a few characters (about 6.6 px each at 11 px). */
	size_t cols = (size_t)((x1 - x0 - 6) / 6.6);
	if (!it->faulting && cols >= 4) {
		ci_kernel_brief_name(name, cols, brief, sizeof brief);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#000\">", x0 + 3, y + 13);
		xml_text(f, brief);
		fputs("</text>\n", f);
	}
}

/* The faulting launch's name above its box, in red, where it fits (right of the box, else left). */
static void draw_fault_label(struct svg *s, const struct ci_tl_item *it, double y)
{
	char name[512], brief[256], text[300], node[64] = "";
	const struct ci_graph_replay *g = s->r->diagnosis->graph;
	if (g && g->faulting_node >= 0) { /* a graph launch: the kernel node that faulted */
		ci_launch_kernel_name(s->r->model, &g->kernel, name, sizeof name);
		snprintf(node, sizeof node, " (node ");
		ci_graph_replay_node_name(g, (size_t)g->faulting_node, node + 7, sizeof node - 8);
		strcat(node, ")");
	} else {
		ci_tl_launch_name(s->r, it, name, sizeof name);
	}
	ci_kernel_brief_name(name, 60, brief, sizeof brief);
	snprintf(text, sizeof text, "faulting: %s%s", brief, node);
	double x = x_of(s, it->start), w = (double)strlen(text) * 7.0;
	bool left = x + w > SVG_RIGHT;
	fprintf(s->f, "<text class=\"fault-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
		      "font-weight=\"bold\" fill=\"%s\" text-anchor=\"%s\">",
		left ? x_of(s, it->own_end) : x, y - 3, COLOR_FAULT, left ? "end" : "start");
	xml_text(s->f, text);
	fputs("</text>\n", s->f);
}

static void vline(struct svg *s, uint64_t t, double y0, double y1, const char *color,
		  const char *dash, const char *cls, const char *label)
{
	double x = x_of(s, t);
	fprintf(s->f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		      "stroke-width=\"2\"%s%s%s/>\n",
		cls, x, y0, x, y1, color, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
		dash ? "\"" : "");
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" text-anchor=\"end\">",
		x - 3, y0 - 2, color);
	xml_text(s->f, label);
	fputs("</text>\n", s->f);
}

static void axis(struct svg *s, double y)
{
	FILE *f = s->f;
	/* A step of 1, 2 or 5 times a power of ten nanoseconds, eight to twenty ticks. */
	uint64_t span = s->hi - s->lo, step = 1, mag = 1;
	while (step * 8 < span && step <= UINT64_MAX / 100) {
		uint64_t next = step == mag ? 2 * mag : step == 2 * mag ? 5 * mag : (mag *= 10);
		step = next;
	}
	int digits = 0; /* decimals of a millisecond the step needs */
	for (uint64_t d = 1000000; d > 1 && step % d; d /= 10)
		digits++;
	uint64_t div = 1;
	for (int i = digits; i < 6; i++)
		div *= 10;
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>\n", SVG_LABEL_W, y,
		SVG_RIGHT, y);
	uint64_t from = s->lo - s->tl->t0, to = s->hi - s->tl->t0;
	for (uint64_t v = (from + step - 1) / step * step; v <= to; v += step) {
		double x = x_of(s, s->tl->t0 + v);
		char frac[16] = "";
		if (digits)
			snprintf(frac, sizeof frac, ".%0*" PRIu64, digits, v % 1000000 / div);
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%" PRIu64 "%s</text>\n",
			x, y, x, y + 5, x, y + 17, v / 1000000, frac);
		if (v > UINT64_MAX - step)
			break;
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">ms since the record "
		   "started</text>\n", SVG_RIGHT, y + 31);
}

static void legend(struct svg *s, double y)
{
	FILE *f = s->f;
	static const struct { const char *fill, *stroke, *text; } keys[] = {
		{ COLOR_FINISHED, "#333333", "finished" },
		{ COLOR_RUNNING, "#333333", "may have been running (dashes: to the crash)" },
		{ "#ffffff", "#888888", "queued (not started)" },
		{ COLOR_FAULT, "#7f0000", "faulting launch" },
	};
	double x = 10;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"12\" fill=\"%s\" stroke=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
			x, y, keys[i].fill, keys[i].stroke,
			x + 24, y + 10, keys[i].text);
		x += 24 + 7.0 * (double)strlen(keys[i].text) + 18;
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
		   "stroke-dasharray=\"5 3\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">first error</text>\n",
		x, y - 2, x, y + 14, COLOR_ERROR, x + 6, y + 10);
	x += 90;
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>"
		   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">crash / end of record</text>\n",
		x, y - 2, x, y + 14, x + 6, y + 10);
	char note[320];
	snprintf(note, sizeof note, "Boxes start at the launch call; the record has no GPU times, so a "
		 "box ends at the next launch or the synchronization that showed it done.%s",
		 s->hidden_lanes || s->hidden_boxes ? " Some lanes or older boxes are left out." : "");
	fprintf(f, "<text x=\"10\" y=\"%.1f\" font-size=\"11\" fill=\"#555\">", y + 30);
	xml_text(f, note);
	fputs("</text>\n", f);
}

static void title(struct svg *s)
{
	const struct ci_report *r = s->r;
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	char text[512], name[512], brief[200], sig[32];
	const char *exe = ci_model_string(m, m->header.exe_str);
	const char *base = exe && *exe ? strrchr(exe, '/') : NULL;
	if (d->faulting_launch >= 0) {
		const struct ci_launch *l = d->graph && d->graph->faulting_node >= 0
						    ? &d->graph->kernel
						    : ci_report_launch(r, (size_t)d->faulting_launch);
		ci_launch_kernel_name(m, l, name, sizeof name);
		ci_kernel_brief_name(name, 60, brief, sizeof brief);
	} else {
		snprintf(brief, sizeof brief, "no faulting launch");
	}
	snprintf(text, sizeof text, "%s (pid %" PRIu32 "): %s, %s", base ? base + 1 : exe && *exe ? exe : "process",
		 m->header.pid, ci_verdict_name(d->verdict), brief);
	fputs("<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", s->f);
	xml_text(s->f, text);
	fputs("</text>\n", s->f);
	char span[32];
	snprintf(text, sizeof text, "the last %s before %s; %zu of %zu streams with launches",
		 ci_fmt_duration(s->hi - s->lo, span, sizeof span),
		 d->signal ? ci_signal_name(d->signal, sig, sizeof sig) : "the end of the record",
		 s->lane_count, s->lane_count + s->hidden_lanes);
	fputs("<text x=\"10\" y=\"40\" font-size=\"12\" fill=\"#333\">", s->f);
	xml_text(s->f, text);
	fputs("</text>\n", s->f);
}

struct ci_error *ci_render_timeline_svg(FILE *f, const struct ci_report *r)
{
	struct svg ss = { .f = f, .r = r };
	struct svg *s = &ss;
	struct ci_timeline *tl = ci_timeline_create(r);
	if (!tl || ((s->tl = tl), choose(s))) {
		free(s->lanes);
		ci_timeline_destroy(tl);
		return ci_error_create(CI_ERR_NOMEM, "out of memory making the timeline picture");
	}
	double lanes_bottom = SVG_TOP + (double)s->lane_count * SVG_LANE_H;
	int height = (int)lanes_bottom + 100;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		   "data-origin-ns=\"%" PRIu64 "\" data-window-start-ns=\"%" PRIu64 "\" "
		   "data-window-end-ns=\"%" PRIu64 "\" data-plot-x=\"%d %d\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		SVG_WIDTH, height, SVG_WIDTH, height, tl->t0, s->lo, s->hi, SVG_LABEL_W, SVG_RIGHT);
	title(s);
	for (size_t i = 0; i < s->lane_count; i++) {
		uint32_t lane = s->lanes[i];
		double top = SVG_TOP + (double)i * SVG_LANE_H, box_y = top + 12;
		char label[96];
		lane_label(s, lane, label, sizeof label);
		fprintf(f, "<g class=\"lane\" data-lane=\"%zu\">\n<rect x=\"%d\" y=\"%.1f\" width=\"%d\" "
			   "height=\"%d\" fill=\"%s\"/>\n<text x=\"10\" y=\"%.1f\" font-size=\"12\">",
			i, SVG_LABEL_W, top + 8, SVG_RIGHT - SVG_LABEL_W, SVG_LANE_H - 6,
			i % 2 ? "#f4f4f4" : "#fafafa", box_y + 13);
		xml_text(f, label);
		fputs("</text>\n", f);
		/* The lane's newest SVG_PER_LANE launches in the window (items are newest first). */
		size_t drawn = 0;
		const struct ci_tl_item *fault = NULL;
		for (size_t k = 0; k < tl->count; k++) {
			const struct ci_tl_item *it = &tl->items[k];
			if (it->lane != lane || !in_window(s, it))
				continue;
			if (drawn >= SVG_PER_LANE && !it->faulting) {
				s->hidden_boxes++;
				continue;
			}
			if (it->faulting)
				fault = it;
			else
				draw_box(s, it, box_y);
			drawn++;
		}
		if (fault) { /* last, so it is on top */
			draw_box(s, fault, box_y);
			draw_fault_label(s, fault, box_y);
		}
		fputs("</g>\n", f);
	}
	if (tl->first_error_ns && tl->first_error_ns >= s->lo)
		vline(s, tl->first_error_ns, SVG_TOP - 6, lanes_bottom + 4, COLOR_ERROR, "5 3",
		      "first-error", "first error");
	char sig[32];
	vline(s, tl->t_end, SVG_TOP - 6, lanes_bottom + 4, "#000", NULL, "crash",
	      r->diagnosis->signal ? ci_signal_name(r->diagnosis->signal, sig, sizeof sig) : "end");
	axis(s, lanes_bottom + 8);
	legend(s, lanes_bottom + 50);
	fputs("</svg>\n", f);
	free(s->lanes);
	ci_timeline_destroy(tl);
	if (fflush(f) != 0 || ferror(f))
		return ci_error_create(CI_ERR_IO, "cannot write the timeline picture: %m");
	return NULL;
}
