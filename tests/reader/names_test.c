/* SPDX-License-Identifier: MIT */
/*
 * Kernel names in the summary: the brief-name rule (ci_kernel_brief_name, docs/USAGE.md "The replay
 * in the summary") against hand-written expectations for real PyTorch, cuBLAS and CUTLASS names and
 * for the edge cases (operators, nested and unbalanced brackets, tiny widths and buffers); then a
 * faulting CUDA graph replay of 18 such kernels, built by hand (model.h) and rendered by the real
 * renderer: the summary collapses the runs of finished and not-started nodes, shows the faulting
 * node and its neighbours a line each, keeps every line within the width and cuts no name without
 * "…"; the graphs view and the JSON keep the full names.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/tap.h"
#include "model.h"
#include "report/session.h"

/* The mangled names as g++ writes them for the same declarations (the PyTorch clamp kernel with
 * its dispatch lambdas, cuBLAS's split-K reduction, a CUTLASS SIMT GEMM), and their demangled
 * forms as a real H200 run's report showed them. */
#define CLAMP_MANGLED                                                                              \
	"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_24clamp_scalar_kernel_implERNS_"   \
	"18TensorIteratorBaseERKN3c106ScalarES7_ENKUlvE_clEvENKUlvE5_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_"
#define SPLITK_MANGLED                                                                             \
	"_Z19splitKreduce_kernelILi32ELi16EiffffLb1ELb0ELb0EEv18cublasSplitKParamsIT5_EPKT2_PKT3_PT4_S5_" \
	"S5_S5_S5_PS1_PvlSB_Pi"
#define SGEMM_MANGLED "_ZN7cutlass7Kernel2I42cutlass_80_simt_sgemm_128x64_8x5_nn_align1EEvNT_6ParamsE"

static const char *const clamp =
	"void at::native::vectorized_elementwise_kernel<4, at::native::clamp_scalar_kernel_impl(at::"
	"TensorIteratorBase&, c10::Scalar const&, c10::Scalar const&)::{lambda()#1}::operator()() const::"
	"{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
	"clamp_scalar_kernel_impl(at::TensorIteratorBase&, c10::Scalar const&, c10::Scalar const&)::"
	"{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
	"std::array<char*, 2ul>)";
static const char *const sgemm =
	"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>(cutlass_80_simt_sgemm_128x64_"
	"8x5_nn_align1::Params)";
static const char *const splitk =
	"void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitK"
	"Params<float>, float const*, float const*, float*, float const*, float const*, float const*, float "
	"const*, float*, void*, long, float*, int*)";

/* The brief name of NAME at WIDTH, from a heap copy of exactly its size (so that ASan and
 * valgrind see any read past its end) into a heap buffer of N bytes. */
static char *brief_n(const char *name, size_t width, size_t n)
{
	static char out[1024];
	char *copy = strdup(name), *buf = malloc(n);
	ci_kernel_brief_name(copy, width, buf, n);
	snprintf(out, sizeof out, "%s", buf);
	free(buf);
	free(copy);
	return out;
}

static char *brief(const char *name, size_t width) { return brief_n(name, width, 256); }

static void test_brief_rule(void)
{
	/* The three real names: no return type, no parameters, template arguments elided. */
	is_str(brief(clamp, 0), "at::native::vectorized_elementwise_kernel<…>",
	       "clamp: template arguments with their lambda chains elided, no parameters");
	is_str(brief(sgemm, 0), "cutlass::Kernel2<…>", "CUTLASS: cutlass::Kernel2<…>");
	is_str(brief(splitk, 0), "splitKreduce_kernel<…>", "cuBLAS: splitKreduce_kernel<…>");
	/* Narrower: leading qualifiers go one at a time, then the end is cut with "…". */
	is_str(brief(clamp, 44), "at::native::vectorized_elementwise_kernel<…>", "clamp at 44: fits (44 columns)");
	is_str(brief(clamp, 43), "native::vectorized_elementwise_kernel<…>", "clamp at 43: without at::");
	is_str(brief(clamp, 39), "vectorized_elementwise_kernel<…>", "clamp at 39: without native:: either");
	is_str(brief(clamp, 20), "vectorized_elementw…", "clamp at 20: cut at the end with …");
	is_str(brief(clamp, 1), "…", "width 1: only the ellipsis");
	is_str(brief("embed_gather", 3), "em…", "width 3, no qualifier: cut with …");
	is_str(brief(sgemm, 12), "Kernel2<…>", "CUTLASS at 12: the qualifier goes before any cut");
	/* Names without templates, C names, empty names, the labels' placeholders. */
	is_str(brief("decode::matvec(float const*, float const*, float*, int, int, int, float const*)", 0),
	       "decode::matvec", "no templates: only the parameters go");
	is_str(brief("embed_gather", 0), "embed_gather", "a C name stays");
	is_str(brief("", 0), "", "empty stays empty");
	is_str(brief("", 5), "", "empty at a width stays empty");
	is_str(brief("<unknown function 0xf001>", 0), "<unknown function 0xf001>", "a placeholder is no template");
	/* Nested templates, expressions with '>' in parentheses, operators. */
	is_str(brief("void a<b<c<d> > >::e<(1>2), f<g> >(x<y>)", 0), "a<…>::e<…>",
	       "nested templates and a comparison in an argument");
	is_str(brief("bool std::operator< <int>(std::vector<int> const&, std::vector<int> const&)", 0),
	       "std::operator< <…>", "operator< is a name, its template arguments are elided");
	is_str(brief("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)", 0),
	       "std::operator<< <…>", "operator<<: the return type goes");
	is_str(brief("foo::operator()(int) const", 0), "foo::operator()", "operator(): its parameters go");
	is_str(brief("void std::less<void>::operator()<float, float>(float, float) const", 0),
	       "std::less<…>::operator()<…>", "a templated operator() of a template");
	is_str(brief("bool ns::cmp::operator>(ns::cmp const&) const", 0), "ns::cmp::operator>", "operator>");
	is_str(brief("x::operator new[](unsigned long)", 0), "x::operator new[]", "operator new[]");
	/* Scopes: anonymous namespaces go, a function scope keeps its lambda. */
	is_str(brief("void (anonymous namespace)::rms_norm<float>(float*, int)", 0), "rms_norm<…>",
	       "(anonymous namespace):: goes");
	is_str(brief("void at::(anonymous namespace)::softmax<float>(float*)", 0), "at::softmax<…>",
	       "... also inside a qualified name");
	is_str(brief("void ns::k<int>(int)::{lambda()#1}::operator()() const", 0),
	       "ns::k<…>(…)::{lambda()#1}::operator()", "a lambda in a function's scope: the scope's parameters elided");
	/* Malformed names: read to their end, never past it (the copies are exactly their size). */
	is_str(brief("void foo<int, bar<(int)", 0), "foo<…>", "an unclosed template list runs to the end");
	is_str(brief("void foo>(int", 0), "foo>", "an unclosed parameter list");
	is_str(brief(")))>>>", 0), ")))>>>", "only closing brackets");
	is_str(brief("f((((((", 0), "f", "only opening parentheses");
	is_str(brief("operator", 0), "operator", "the word operator alone");
	is_str(brief("x::operator", 0), "x::operator", "operator at the end");
	char deep[400];
	memset(deep, '<', sizeof deep - 1);
	deep[0] = 'f', deep[sizeof deep - 1] = '\0';
	is_str(brief(deep, 0), "f<…>", "398 nested '<': one elided list");
	is_str(brief("ünïcödé_kernel<int>(int)", 8), "ünïcödé…", "widths count characters, cuts whole ones");
	/* Buffers too small for the brief name end with "…" too, at a whole character. */
	is_str(brief_n(clamp, 0, 8), "at::…", "an 8-byte buffer: at::… (never half a name without …)");
	is_str(brief_n("ééééé", 0, 6), "é…", "a 6-byte buffer: é… (no half character)");
	is_str(brief_n(clamp, 0, 3), "", "a buffer too small for …: nothing");
	/* The short name (graphs and kernels views) keeps the rest but no longer cuts silently. */
	char buf[128];
	is_str(ci_kernel_short_name(clamp, buf, 32), "void at::native::vectorized_…",
	       "short name in 32 bytes: ends with …");
	is_str(ci_kernel_short_name("at::(anonymous namespace)::foo(int)", buf, sizeof buf),
	       "at::(anonymous namespace)::foo", "short name: an anonymous namespace is no parameter list");
	is_str(ci_kernel_short_name(sgemm, buf, sizeof buf), "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>",
	       "short name: the template arguments stay");
}

/* ---------------------------------------------------------------------------------------- */
/* A PyTorch-style graph replay, end to end through the renderer                              */

#define NODES 18 /* kernels sgemm, splitK, clamp, sgemm...; breadcrumb 13: node 13 ran */

static struct ci_model *graph_model(void)
{
	struct ci_model *m = mb_new();
	mb_device(m, "NVIDIA H200");
	mb_thread(m, 7, "python3");
	uint32_t f[3] = { mb_function(m, SGEMM_MANGLED, 0, NULL), mb_function(m, SPLITK_MANGLED, 0, NULL),
			  mb_function(m, CLAMP_MANGLED, 0, NULL) };
	uint32_t s = mb_stream(m, 0xa000, true, 0, 1);
	uint32_t g = mb_graph(m, 0x6000, CI_GRAPH_CAPTURED, NODES, true, 13);
	for (uint32_t i = 0; i < NODES; i++)
		mb_graph_node(m, g, i, CI_NODE_KERNEL, f[i % 3], 0, s, 1)->flags = CI_NODE_CRUMB;
	uint32_t x = mb_graph_exec(m, 0x7000, g, 2);
	mb_graph_launch(m, s, 1, x, 1, 5, CI_LAUNCH_CRUMB, 7);
	mb_error(m, 10, 700, 7, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	mb_finish(m);
	return m;
}

static char *render(const struct ci_report *r, enum ci_view view, bool json, int width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ci_render_options o = { .view = view, .width = width };
	struct ci_error *err = json ? ci_render_json(f, r, &o) : ci_render_text(f, r, &o);
	if (err) {
		printf("# render failed: %s\n", err->message);
		ci_error_destroy(err);
	}
	fclose(f);
	return text;
}

/* Whether S (a name as a line shows it) is one of the brief names, as it is or without leading
 * qualifiers, or a prefix of one ended with "…": never a name cut without saying so. */
static bool whole_or_marked(const char *s, size_t len)
{
	static const char *const briefs[] = { "at::native::vectorized_elementwise_kernel<…>",
					      "cutlass::Kernel2<…>", "splitKreduce_kernel<…>" };
	bool marked = len >= strlen("…") && !memcmp(s + len - strlen("…"), "…", strlen("…"));
	size_t body = marked ? len - strlen("…") : len;
	for (size_t i = 0; i < 3; i++)
		for (const char *b = briefs[i]; b; b = strstr(b, "::") ? strstr(b, "::") + 2 : NULL)
			if (marked ? !strncmp(b, s, body) : strlen(b) == len && !strncmp(b, s, len))
				return true;
	return false;
}

/* Check the summary at WIDTH: the graph block's lines (those starting "    node"), every name
 * on them, and every line's width. */
static void check_summary(const struct ci_report *r, int width, const char *want_run, const char *want_fault,
			  const char *want_before, const char *want_after, const char *want_tail)
{
	char *s = render(r, CI_VIEW_SUMMARY, false, width);
	size_t block = 0, names = 0, bad_names = 0, widest = 0;
	for (const char *l = s; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char ln[2048];
		snprintf(ln, sizeof ln, "%.*s", (int)len, l);
		if (ci_text_width(ln) > widest)
			widest = ci_text_width(ln);
		if (!strncmp(ln, "    node", 8)) {
			block++;
			if (!strncmp(ln, "    nodes ", 10)) { /* "N × NAME, N × NAME[, … (view: graphs)]" */
				for (char *p = strstr(ln, " × "); p; p = strstr(p, " × ")) {
					p += strlen(" × ");
					size_t n = strcspn(p, ",");
					names++;
					if (!whole_or_marked(p, n)) {
						bad_names++;
						printf("# a cut name: '%.*s'\n", (int)n, p);
					}
				}
			} else { /* "    node 13  RUNNING      NAME  grid …" */
				char *p = ln + 26, *q = strstr(p, "  ");
				size_t n = q ? (size_t)(q - p) : strlen(p);
				names++;
				if (!whole_or_marked(p, n)) {
					bad_names++;
					printf("# a cut name: '%.*s'\n", (int)n, p);
				}
			}
		}
		l += len + (e != NULL);
	}
	ok(widest <= (size_t)width, "width %d: no line of the summary is wider (widest %zu)", width, widest);
	is_int(block, 5, "width %d: the replay takes 5 lines (a run, 3 nodes, a run), not 18");
	ok(names >= 4 && !bad_names, "width %d: every name whole or ended with … (%zu names, %zu cut)", width, names,
	   bad_names);
	const char *want[] = { want_run, want_before, want_fault, want_after, want_tail };
	for (size_t i = 0; i < 5; i++) {
		char line[512];
		snprintf(line, sizeof line, "\n%s\n", want[i]);
		if (!ok(strstr(s, line) != NULL, "width %d: line '%s'", width, want[i]))
			printf("# summary:\n%s", s);
	}
	free(s);
}

static void test_graph_summary(void)
{
	struct ci_report *r = NULL;
	struct ci_request req = { .no_symbols = true };
	struct ci_error *err = ci_report_from_model(NULL, graph_model(), &req, &r);
	if (err) {
		printf("# report: %s\n", err->message);
		abort();
	}
	const struct ci_diagnosis *d = ci_report_diagnosis(r);
	ok(d->graph && d->graph->faulting_node == 13, "the diagnosis names node 13 (breadcrumb 13)");

	check_summary(r, 120,
		      "    nodes 0–11 finished: 4 × cutlass::Kernel2<…>, 4 × splitKreduce_kernel<…>, 4 × "
		      "vectorized_elementwise_kernel<…>",
		      "    node 13  RUNNING      splitKreduce_kernel<…>  grid (8,1,1) block (64,1,1)  <- faulted",
		      "    node 12  finished     cutlass::Kernel2<…>  grid (8,1,1) block (64,1,1)",
		      "    node 14  not started  at::native::vectorized_elementwise_kernel<…>  grid (8,1,1) block (64,1,1)",
		      "    nodes 15–17 not started: 1 × cutlass::Kernel2<…>, 1 × splitKreduce_kernel<…>, 1 × "
		      "vectorized_elementwise_kernel<…>");
	check_summary(r, 100,
		      "    nodes 0–11 finished: 4 × cutlass::Kernel2<…>, 4 × splitKreduce_kernel<…>, … (view: graphs)",
		      "    node 13  RUNNING      splitKreduce_kernel<…>  grid (8,1,1) block (64,1,1)  <- faulted",
		      "    node 12  finished     cutlass::Kernel2<…>  grid (8,1,1) block (64,1,1)",
		      "    node 14  not started  at::native::vectorized_elementwise_kernel<…>  grid (8,1,1) block (64,1,1)",
		      "    nodes 15–17 not started: 1 × cutlass::Kernel2<…>, 1 × splitKreduce_kernel<…>, … (view: "
		      "graphs)");
	check_summary(r, 60, "    nodes 0–11 finished: 4 × Kernel2<…>, … (view: graphs)",
		      "    node 13  RUNNING      splitKreduce_kernel<…>  <- faulted",
		      "    node 12  finished     cutlass::Kernel2<…>",
		      "    node 14  not started  vectorized_elementwise_kernel<…>",
		      "    nodes 15–17 not started: … (view: graphs)");

	/* The graphs view and the JSON keep the full names. */
	char *g = render(r, CI_VIEW_GRAPHS, false, 100);
	char *flat = strdup(g), *w = flat; /* wrapped lines joined again */
	for (const char *p = g; *p; p++) {
		if (*p == '\n') {
			while (p[1] == ' ')
				p++;
			*w++ = ' ';
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	char clamp_short[1024];
	ci_kernel_short_name(clamp, clamp_short, sizeof clamp_short);
	ok(strstr(flat, clamp_short) != NULL, "graphs view: the clamp kernel with its template arguments in full");
	ok(strstr(flat, "void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>") != NULL,
	   "graphs view: splitKreduce_kernel with its template arguments");
	free(flat);
	free(g);
	char *j = render(r, CI_VIEW_SUMMARY, true, 100);
	if (getenv("NAMES_JSON"))
		fputs(j, stderr);
	char want[1200];
	snprintf(want, sizeof want, "\"kernel\":\"%s\"", clamp);
	ok(strstr(j, want) != NULL, "JSON: the clamp kernel's full demangled name, parameters and all");
	free(j);
	ci_report_destroy(r);
}

int main(void)
{
	test_brief_rule();
	test_graph_summary();
	printf("1..%d\n", tap_n);
	return done_testing();
}
