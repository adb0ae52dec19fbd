/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the renderers and of record-table symbolization on hand-built records
 * (model.h).  The record's host module table names this very test program, so recorded stacks
 * must come back as this file's functions and lines; a wrong build-id must be refused with a
 * warning.  Text views are checked for the summary's one-screen promise, compute-sanitizer
 * wording and scrubbing of hostile strings; JSON documents are written to DIR (argv[1]) for
 * tests/reader/render.t to check with jq.
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <unistd.h>

#include "../lib/tap.h"
#include "model.h"

static const char *dir;

/* Return addresses inside known functions of this file, as a recorder would capture them. */
static __attribute__((noipa)) uint64_t caller_pc(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}
static __attribute__((noipa)) uint64_t launch_site(void)
{
	uint64_t pc = caller_pc();
	__asm__ volatile("" ::: "memory");
	return pc;
}
static __attribute__((noipa)) uint64_t alloc_site(void)
{
	uint64_t pc = caller_pc();
	__asm__ volatile("" ::: "memory");
	return pc;
}

struct self_module {
	uint64_t base, start, end;
	uint8_t build_id[32];
	uint32_t build_id_len;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self_module *sm = arg;
	sm->base = info->dlpi_addr;
	sm->start = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			if (info->dlpi_addr + ph->p_vaddr < sm->start)
				sm->start = info->dlpi_addr + ph->p_vaddr;
			if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > sm->end)
				sm->end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
		if (ph->p_type == PT_NOTE) {
			const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
			const uint8_t *e = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= e) {
				const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
				const uint8_t *name = p + sizeof(*nh);
				const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 32) {
					memcpy(sm->build_id, desc, nh->n_descsz);
					sm->build_id_len = nh->n_descsz;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	return 1; /* the first object is the executable */
}

static void add_self_module(struct ci_model *m, bool wrong_build_id)
{
	struct self_module sm = { 0 };
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	dl_iterate_phdr(phdr_cb, &sm);
	MB_GROW(m->host_modules, m->host_module_count);
	struct ci_host_module *hm = &m->host_modules[m->host_module_count++];
	hm->seq = m->host_module_count;
	hm->base = sm.base;
	hm->start = sm.start;
	hm->end = sm.end;
	hm->path_str = mb_str(m, self);
	hm->build_id_len = sm.build_id_len;
	memcpy(hm->build_id, sm.build_id, sizeof(hm->build_id));
	if (wrong_build_id)
		hm->build_id[0] ^= 0xff;
	m->header.exe_str = hm->path_str;
}

#define KV_ADDR 0x7f0000000000ull
#define KV_SIZE 262144ull

/* The out-of-bounds scenario: attention_decode on stream 0xa000 is the only launch in flight
 * and its second argument is 64 bytes past the end of the 256 KiB KV cache (#11). */
static struct ci_model *oob_model(bool wrong_build_id)
{
	struct ci_model *m = mb_new();
	add_self_module(m, wrong_build_id);
	m->header.state = CI_STATE_SIGNALED;
	m->header.fatal_signal = 6;
	m->header.fatal_tid = 8;
	m->header.end_monotonic_ns = MB_T0 + 20 * MB_MS;
	mb_device(m, "NVIDIA H200");
	mb_thread(m, 7, "launcher");
	mb_thread(m, 8, "watcher");
	static const uint16_t sizes[] = { 8, 8, 4, 4 };
	uint32_t attn = mb_function(m, "attention_decode", 4, sizes);
	uint32_t norm = mb_function(m, "_Z7rmsnormPfPKfi", 3, sizes);
	uint64_t lsite = launch_site(), asite = alloc_site();
	uint32_t lstack = mb_stack(m, 1, &lsite);
	uint32_t astack = mb_stack(m, 1, &asite);
	struct ci_alloc *kv = mb_alloc(m, 11, KV_ADDR, KV_SIZE, 7);
	kv->stack = astack;
	mb_alloc(m, 12, 0x7f0000100000ull, 4096, 7)->stack = astack;
	uint32_t s = mb_stream(m, 0xa000, true, 2, 3);
	uint32_t s2 = mb_stream(m, 0xb000, true, 5, 5);
	uint64_t good[] = { 0x7f0000100000ull, KV_ADDR, 1, 2 };
	uint64_t bad[] = { 0x7f0000100000ull, KV_ADDR + KV_SIZE + 64, 3, 4 };
	for (uint64_t i = 1; i <= 5; i++)
		mb_launch(m, s2, i, norm, i, CI_LAUNCH_CRUMB, 7, 3, good);
	mb_launch(m, s, 1, attn, 6, CI_LAUNCH_CRUMB, 7, 4, good);
	mb_launch(m, s, 2, attn, 7, CI_LAUNCH_CRUMB, 7, 4, good);
	mb_launch(m, s, 3, attn, 8, CI_LAUNCH_CRUMB, 7, 4, bad);
	for (size_t i = 0; i < m->launch_count; i++)
		m->launches[i].stack = lstack;
	size_t e = mb_error(m, 9, 700, 8, "cuStreamSynchronize", CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY);
	/* Streams named by an error and an async allocation, for the JSON's stream keys. */
	m->errors[e].stream = s;
	m->allocs[1].stream = s2;
	mb_finish(m);
	return m;
}

struct rendered {
	char *text;
	size_t len;
};

static struct rendered render(const struct ci_report *r, enum ci_view view, bool json,
			      const struct ci_render_options *extra)
{
	struct rendered out = { 0 };
	FILE *f = open_memstream(&out.text, &out.len);
	struct ci_render_options o = extra ? *extra : (struct ci_render_options){ 0 };
	o.view = view;
	if (!o.width)
		o.width = 100;
	struct ci_error *err = json ? ci_render_json(f, r, &o) : ci_render_text(f, r, &o);
	if (err) {
		printf("# render failed: %s\n", err->message);
		ci_error_destroy(err);
	}
	fclose(f);
	return out;
}

static void save(const char *name, const struct rendered *r)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(r->text, 1, r->len, f);
		fclose(f);
	}
}

static size_t count_lines(const char *s, size_t *longest)
{
	size_t n = 0, w = 0;
	*longest = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			n++;
			if (w > *longest)
				*longest = w;
			w = 0;
		} else if (((unsigned char)*s & 0xc0) != 0x80) {
			w++;
		}
	}
	return n;
}

/* S with every line break and the indent after it turned into one space, so that wrapped
 * sentences can be searched (malloc'd). */
static char *flatten(const char *s)
{
	char *flat = strdup(s);
	size_t o = 0;
	for (size_t i = 0; flat[i]; i++) {
		if (flat[i] == '\n') {
			while (flat[i + 1] == ' ')
				i++;
			flat[o++] = ' ';
			continue;
		}
		flat[o++] = flat[i];
	}
	flat[o] = '\0';
	return flat;
}

/* S without any white space (malloc'd): what no wrapping may change. */
static char *squeeze(const char *s)
{
	char *out = malloc(strlen(s) + 1);
	size_t o = 0;
	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			out[o++] = *s;
	out[o] = '\0';
	return out;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			return true;
	return false;
}

/* A report made by the session from a model built by hand, for JSON (so that it holds what
 * every view shows); SYMBOLS: resolve the recorded stacks from the record's module table. */
struct fixture {
	struct ci_report *report;
	const struct ci_model *m;
	const struct ci_diagnosis *d;
	struct ci_report *r;
};

static void fixture_init(struct fixture *fx, struct ci_model *m, bool symbols)
{
	memset(fx, 0, sizeof(*fx));
	struct ci_request req = { .json = true, .no_symbols = !symbols };
	struct ci_error *err = ci_report_from_model(NULL, m, &req, &fx->report);
	if (err) {
		printf("# report: %s\n", err->message);
		abort();
	}
	fx->r = fx->report;
	fx->m = ci_report_model(fx->report);
	fx->d = ci_report_diagnosis(fx->report);
}

static void fixture_deinit(struct fixture *fx)
{
	ci_report_destroy(fx->report);
}

static void test_summary(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(false), true);
	struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, NULL);
	save("summary.txt", &s);
	size_t longest, lines = count_lines(s.text, &longest);
	ok(lines <= 40, "summary fits one screen (%zu lines <= 40)", lines);
	ok(longest <= 100, "no summary line is wider than 100 columns (widest %zu)", longest);
	ok(strstr(s.text, "Faulting kernel: attention_decode") != NULL, "summary names the faulting kernel");
	ok(strstr(s.text, "[confidence: high]") != NULL, "summary gives the confidence");
	char want[256];
	snprintf(want, sizeof(want),
		 "Address 0x%llx is 64 bytes after the nearest allocation #11 at 0x%llx of size "
		 "262,144 bytes",
		 (unsigned long long)(KV_ADDR + KV_SIZE + 64), (unsigned long long)KV_ADDR);
	/* The sentence may be wrapped; compare with the line breaks and indents removed. */
	char *flat = flatten(s.text);
	ok(strstr(flat, want) != NULL, "attribution worded like compute-sanitizer");
	free(flat);
	ok(strstr(s.text, "launch_site (render_test.c:") != NULL,
	   "the launch site is symbolized from the record's module table");
	ok(strstr(s.text, "allocated by thread 7 \"launcher\" at alloc_site (render_test.c:") != NULL,
	   "the allocation site and thread are shown");
	ok(strstr(s.text, "thread 8 \"watcher\"") != NULL, "the error thread is named");
	ok(strstr(s.text, "SIGABRT") != NULL, "the signal is named");
	ok(strstr(s.text, "What to do next") != NULL, "summary ends with what to do next");
	ok(strstr(s.text, "compute-sanitizer --kernel-name kns=attention_decode") != NULL,
	   "compute-sanitizer is suggested for the named kernel");
	ok(strstr(s.text, "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered")
		   != NULL, "the CUDA error is named and explained");
	ok(!has_control(s.text), "no control characters in the summary");
	free(s.text);

	struct rendered j = render(fx.r, CI_VIEW_SUMMARY, true, NULL);
	save("oob.json", &j);
	free(j.text);

	/* Every view renders. */
	static const enum ci_view views[] = { CI_VIEW_CONTEXTS, CI_VIEW_STREAMS, CI_VIEW_KERNELS,
					      CI_VIEW_ALLOCS, CI_VIEW_ERRORS, CI_VIEW_THREADS,
					      CI_VIEW_FAULT, CI_VIEW_ALL };
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		struct rendered v = render(fx.r, views[i], false, NULL);
		ok(v.len > 0 && !has_control(v.text), "view %d renders cleanly", (int)views[i]);
		if (views[i] == CI_VIEW_ALL)
			save("all.txt", &v);
		free(v.text);
	}

	/* kernels: --last and the filters. */
	struct ci_render_options ko = { .last = 2 };
	struct rendered k = render(fx.r, CI_VIEW_KERNELS, false, &ko);
	size_t rows = 0;
	for (const char *p = k.text; (p = strstr(p, "attention_decode")); p++)
		rows++;
	is_int(rows, 2, "kernels --last 2 shows two launches (the newest two are attention_decode)");
	free(k.text);
	ko = (struct ci_render_options){ .kernel_filter = "rmsnorm" };
	k = render(fx.r, CI_VIEW_KERNELS, false, &ko);
	ok(strstr(k.text, " rmsnorm\n") && !strstr(k.text, "_Z7") && !strstr(k.text, "attention_decode"),
	   "kernels --kernel rmsnorm keeps only the rmsnorm launches, demangled, parameters cut");
	free(k.text);
	ko = (struct ci_render_options){ .has_stream_filter = true, .stream_filter = 0xa000 };
	k = render(fx.r, CI_VIEW_KERNELS, false, &ko);
	ok(strstr(k.text, "last 3 of 3") && !strstr(k.text, "rmsnorm"),
	   "kernels --stream 0xa000 keeps that stream's three launches");
	free(k.text);
	fixture_deinit(&fx);
}

static void test_build_id_mismatch(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(true), true);
	struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, NULL);
	ok(strstr(s.text, "launch_site") == NULL, "a module with the wrong build-id gives no symbols");
	ok(strstr(s.text, "render_test+0x") != NULL, "... but frames keep module+offset");
	struct rendered j = render(fx.r, CI_VIEW_SUMMARY, true, NULL);
	ok(strstr(j.text, "\"warnings\":[") && strstr(strstr(j.text, "\"warnings\":["), "build-id"),
	   "... and a warning says why");
	free(j.text);
	free(s.text);
	fixture_deinit(&fx);
}

static void test_no_symbolizer(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(false), false);
	struct rendered s = render(fx.r, CI_VIEW_ALL, false, NULL);
	ok(s.len > 0 && strstr(s.text, "Faulting kernel: attention_decode"),
	   "without a symbolizer the report still renders (addresses only)");
	free(s.text);
	struct rendered j = render(fx.r, CI_VIEW_SUMMARY, true, NULL);
	save("nosym.json", &j);
	free(j.text);
	fixture_deinit(&fx);
}

/* A hostile record: names with terminal escapes, newlines, invalid UTF-8, unterminated fixed
 * fields.  Text must carry none of it raw; JSON must stay valid (checked by render.t). */
static void test_hostile(void)
{
	struct ci_model *m = mb_new();
	mb_device(m, "GPU\x1b]0;pwned\x07");
	mb_thread(m, 7, "t\x1b[31mred\n");
	uint32_t fn = mb_function(m, "evil\x1b[2J\n\"quoted\"\\ caf\xc3\xa9 \xff\xfe \xc2\x9b end", 0,
				  NULL);
	uint32_t s = mb_stream(m, 0x1, true, 0, 1);
	size_t l = mb_launch(m, s, 1, fn, 1, CI_LAUNCH_CRUMB, 7, 0, NULL);
	(void)l;
	size_t e = mb_error(m, 2, 700, 7, "x", CI_ERROR_STICKY);
	memset(m->errors[e].api, 'A', sizeof(m->errors[e].api));    /* not NUL-terminated */
	memset(m->errors[e].args, '\x1b', sizeof(m->errors[e].args));
	m->header.cmdline_str = mb_str(m, "engine \x1b[1m--bad\xe2\x82");
	memset(m->header.host, 0x9b, sizeof(m->header.host));       /* no NUL, all invalid */
	mb_finish(m);
	struct fixture fx;
	fixture_init(&fx, m, false);
	struct rendered t = render(fx.r, CI_VIEW_ALL, false, NULL);
	ok(t.len > 0 && !has_control(t.text), "hostile strings: no control characters in the text");
	ok(strstr(t.text, "caf\xc3\xa9") != NULL, "hostile strings: valid UTF-8 is kept");
	free(t.text);
	struct rendered j = render(fx.r, CI_VIEW_SUMMARY, true, NULL);
	save("hostile.json", &j);
	ok(!has_control(j.text), "hostile strings: no raw control characters in the JSON");
	free(j.text);
	fixture_deinit(&fx);
}

/* Wrapping: at 80 and 100 columns the summary fits (no line wider, at most 40 lines), and the
 * views lose nothing: each one, without its white space, is the same at 40 columns as at 1000
 * (the summary itself leaves out a frame and the error's number where it is narrow). */
static void test_widths(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(false), true);
	static const int widths[] = { 80, 100 };
	for (size_t i = 0; i < 2; i++) {
		struct ci_render_options ro = { .width = widths[i] };
		struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, &ro);
		size_t longest, lines = count_lines(s.text, &longest);
		ok(longest <= (size_t)widths[i], "width %d: no summary line is wider (widest %zu)",
		   widths[i], longest);
		ok(lines <= 40, "width %d: the summary has %zu lines (<= 40)", widths[i], lines);
		ok(!strstr(s.text, "...\n"), "width %d: no line is cut with '...'", widths[i]);
		char *flat = flatten(s.text);
		ok(strstr(flat, "CUDA_ERROR_ILLEGAL_ADDRESS") && strstr(flat, "an illegal memory access was "
									 "encountered"),
		   "width %d: the error and its explanation are whole", widths[i]);
		/* Under 100 columns the hint is its one-line form (render_text.c). */
		ok(strstr(flat, widths[i] < 100 ? "CUDA_LAUNCH_BLOCKING=1 (slow) or "
						  "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CMD"
						: "CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CMD for a GPU core dump") != NULL,
		   "width %d: the GPU core dump hint is whole", widths[i]);
		free(flat);
		free(s.text);
	}
	static const enum ci_view views[] = { CI_VIEW_FAULT, CI_VIEW_CONTEXTS, CI_VIEW_STREAMS,
					      CI_VIEW_KERNELS, CI_VIEW_ALLOCS, CI_VIEW_ERRORS };
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		struct ci_render_options narrow = { .width = 40 }, wide = { .width = 1000 };
		struct rendered a = render(fx.r, views[i], false, &narrow);
		struct rendered b = render(fx.r, views[i], false, &wide);
		size_t longest;
		count_lines(a.text, &longest);
		char *x = squeeze(a.text), *y = squeeze(b.text);
		ok(longest <= 40 && strcmp(x, y) == 0,
		   "view %d at 40 columns: every line fits (widest %zu) and nothing is lost", (int)views[i],
		   longest);
		free(x);
		free(y);
		free(a.text);
		free(b.text);
	}
	fixture_deinit(&fx);
}

/* Inside GDB the suggested commands are the cuda commands of cudainspect.gdb. */
static void test_gdb_hints(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(false), false);
	struct ci_render_options ro = { .hints = CI_HINTS_GDB };
	struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, &ro);
	ok(strstr(s.text, "\n  cuda fault ") && strstr(s.text, "\n  cuda kernels --stream 0xa000 "),
	   "--hints=gdb: cuda fault, cuda kernels --stream S");
	ok(!strstr(s.text, "cudainspect CORE"), "--hints=gdb: no cudainspect command lines");
	free(s.text);
	s = render(fx.r, CI_VIEW_SUMMARY, false, NULL);
	ok(strstr(s.text, "\n  cudainspect CORE fault ") != NULL, "default hints: cudainspect INPUT fault");
	free(s.text);
	fixture_deinit(&fx);
}

/* The allocation table was full: a pointer outside every recorded allocation may be inside one
 * that was not recorded, the summary says so and the confidence is capped. */
static void test_table_full(void)
{
	struct ci_model *m = oob_model(false);
	m->sections[CI_SEC_ALLOCS].dropped = 2000;
	m->header.flags |= CI_HDR_TRUNCATED;
	/* The bad pointer now lies far from every recorded allocation. */
	struct ci_launch *bad = &m->launches[m->launch_count - 1];
	uint64_t far = 0x7f5000000000ull;
	memcpy(bad->params + 8, &far, 8);
	struct fixture fx;
	fixture_init(&fx, m, false);
	is_int(fx.d->confidence, CI_CONF_MEDIUM, "table full: the only launch in flight is capped at medium");
	ok(strstr(fx.d->reasoning, "2,000 allocations were not recorded") != NULL,
	   "table full: the reasoning says what was lost");
	struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, NULL);
	char *flat = flatten(s.text);
	ok(strstr(flat, "[confidence: medium]") != NULL, "table full: the summary shows medium");
	ok(strstr(flat, "the allocation table was full (2,000 allocations not recorded)") != NULL,
	   "table full: the attribution says the address may be in an unrecorded allocation");
	free(flat);
	free(s.text);
	struct rendered j = render(fx.r, CI_VIEW_SUMMARY, true, NULL);
	save("full.json", &j);
	free(j.text);
	fixture_deinit(&fx);
}

/* Most of the record missing: no verdict on the GPU, and a name for the program even without
 * the record's strings. */
static void test_incomplete(void)
{
	struct ci_model *m = mb_new();
	m->header.exe_str = 0;
	m->header.cmdline_str = 0;
	m->header.record_size = 32u << 20;
	m->location.size = 1u << 20;
	m->sections[CI_SEC_LAUNCHES].missing = m->sections[CI_SEC_LAUNCHES].capacity;
	m->sections[CI_SEC_ERRORS].missing = m->sections[CI_SEC_ERRORS].capacity;
	mb_finish(m);
	struct fixture fx;
	fixture_init(&fx, m, false);
	is_int(fx.d->verdict, CI_VERDICT_INCOMPLETE, "a record mostly missing: verdict incomplete");
	struct rendered s = render(fx.r, CI_VIEW_SUMMARY, false, NULL);
	ok(strstr(s.text, "cudainspect: incomplete flight record of an unknown program (pid 4242)") != NULL,
	   "the title says the record is incomplete and names no empty program");
	ok(!strstr(s.text, "no CUDA failure"), "... and does not claim there was no failure");
	ok(strstr(s.text, "error ring is not in the input") != NULL, "... nor that there was no error");
	free(s.text);
	fixture_deinit(&fx);
}

/* Filters that name what the record does not have are errors, before anything is printed. */
static void test_filters(void)
{
	struct fixture fx;
	fixture_init(&fx, oob_model(false), false);
	struct {
		struct ci_render_options o;
		enum ci_view view;
		const char *what;
	} cases[] = {
		{ { .has_stream_filter = true, .stream_filter = 0x1234 }, CI_VIEW_KERNELS, "stream 0x1234" },
		{ { .has_stream_filter = true, .stream_filter = 0x1234 }, CI_VIEW_STREAMS, "stream (streams view)" },
		{ { .has_thread_filter = true, .thread_filter = 999 }, CI_VIEW_KERNELS, "thread 999" },
		{ { .kernel_filter = "no_such_kernel" }, CI_VIEW_KERNELS, "kernel no_such_kernel" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ci_request req = { .render = cases[i].o };
		struct ci_report *r = NULL;
		req.render.view = cases[i].view;
		struct ci_error *err = ci_report_from_model(NULL, oob_model(false), &req, &r);
		ok(err && err->code == CI_ERR_USAGE && !r,
		   "unknown %s: the report session refuses it with a usage error%s%s", cases[i].what,
		   err ? ": " : "", err ? err->message : "");
		ci_error_destroy(err);
		ci_report_destroy(r);
	}
	struct ci_render_options so = { .has_stream_filter = true, .stream_filter = 0xa000 };
	struct rendered st = render(fx.r, CI_VIEW_STREAMS, false, &so);
	ok(strstr(st.text, "stream 0xa000") && !strstr(st.text, "stream 0xb000"),
	   "streams --stream 0xa000 shows that stream only");
	free(st.text);
	fixture_deinit(&fx);
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : ".";
	test_summary();
	test_build_id_mismatch();
	test_no_symbolizer();
	test_hostile();
	test_widths();
	test_gdb_hints();
	test_table_full();
	test_incomplete();
	test_filters();
	printf("1..%d\n", tap_n);
	return done_testing();
}
