/* SPDX-License-Identifier: MIT */
/*
 * Test driver for the reader's input side: opens an input (or --pid), locates and decodes the
 * flight record, and prints what each stage found as "key value" lines that shell tests can
 * grep: source facts, threads, the location, per-section decode statistics, model counts and,
 * with --entries, the entries themselves.  --lazy decodes lazily (ci_decode_options.lazy) and
 * closes the source before printing the entries, which the model then copies on demand from
 * the input it holds on to.  --verify checks that every accepted launch is whole
 * (the fixtures make each launch's fields a function of its seq).  On error it prints the
 * library's message and exits with ci_error_exit() of the error, as the CLI does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"
#include "synth.h"

static const char *kind_word(enum ci_source_kind k)
{
	switch (k) {
	case CI_SOURCE_CORE: return "core";
	case CI_SOURCE_GCORE: return "gcore";
	case CI_SOURCE_RECORD: return "record";
	case CI_SOURCE_PID: return "pid";
	case CI_SOURCE_BUFFER: return "buffer";
	}
	return "?";
}

static const char *method_word(enum ci_locate_method m)
{
	switch (m) {
	case CI_LOCATE_NT_FILE: return "nt_file";
	case CI_LOCATE_SYMBOL: return "symbol";
	case CI_LOCATE_SCAN: return "scan";
	case CI_LOCATE_FILE: return "file";
	case CI_LOCATE_BUFFER: return "buffer";
	}
	return "?";
}


static int fail(struct ci_error *err)
{
	fprintf(stderr, "cidecode: %s: %s\n", ci_error_code_name(err->code), err->message);
	int rc = ci_error_exit(err->code);
	ci_error_destroy(err);
	return rc;
}

static void print_source(const struct ci_source_info *info)
{
	printf("source.kind %s\n", kind_word(info->kind));
	printf("source.pid %u\n", info->pid);
	printf("source.signal %d\n", info->signal);
	printf("source.si_code %d\n", info->si_code);
	printf("source.fault_addr 0x%llx\n", (unsigned long long)info->fault_addr);
	printf("source.executable %s\n", info->executable ? info->executable : "");
	printf("source.psargs %s\n", info->psargs ? info->psargs : "");
	printf("source.truncated %d\n", info->truncated);
	printf("source.compressed %d\n", info->compressed);
	printf("source.threads %zu\n", info->thread_count);
	printf("source.mappings %zu\n", info->mapping_count);
}

/* After decode: the record names threads the core could not (kernel cores have no names but
 * the main thread's command name). */
static void print_threads(const struct ci_source_info *info, const struct ci_model *m)
{
	for (size_t i = 0; i < info->thread_count; i++) {
		const struct ci_core_thread *t = &info->threads[i];
		const char *name = t->name;
		for (size_t j = 0; m && !name[0] && j < m->thread_count; j++)
			if (m->threads[j].seq && m->threads[j].tid == t->tid && m->threads[j].name[0])
				name = m->threads[j].name;
		printf("thread %u crashed=%d cursig=%d name=%s pc=0x%llx sp=0x%llx\n", t->tid, t->crashed,
		       t->cursig, name, (unsigned long long)t->pc, (unsigned long long)t->sp);
	}
}

static void print_model(const struct ci_model *m, int entries)
{
	const struct ci_header *h = &m->header;
	printf("header.version %u.%u\n", h->major, h->minor);
	printf("header.pid %u\n", h->pid);
	printf("header.host %s\n", h->host);
	printf("header.record_base 0x%llx\n", (unsigned long long)h->record_base);
	printf("header.record_size %llu\n", (unsigned long long)h->record_size);
	printf("header.exe %s\n", ci_model_string(m, h->exe_str));
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (!ci_section_title(k))
			continue;
		printf("section %s present=%d capacity=%llu head=%llu accepted=%llu torn=%llu invalid=%llu "
		       "overwritten=%llu dropped=%llu missing=%llu\n",
		       ci_section_word(k), s->present, (unsigned long long)s->capacity,
		       (unsigned long long)s->head, (unsigned long long)s->accepted,
		       (unsigned long long)s->torn, (unsigned long long)s->invalid,
		       (unsigned long long)s->overwritten, (unsigned long long)s->dropped,
		       (unsigned long long)s->missing);
	}
	printf("model.host_modules %zu\nmodel.devices %zu\nmodel.contexts %zu\nmodel.streams %zu\n",
	       m->host_module_count, m->device_count, m->context_count, m->stream_count);
	printf("model.code_modules %zu\nmodel.functions %zu\nmodel.threads %zu\nmodel.launches %zu\n",
	       m->code_module_count, m->function_count, m->thread_count, m->launch_count);
	printf("model.allocs %zu\nmodel.frees %zu\nmodel.errors %zu\nmodel.events %zu\n",
	       m->alloc_count, m->free_count, m->error_count, m->event_count);
	printf("model.stacks %zu\nmodel.frames %zu\nmodel.crumbs %zu\nmodel.strings_size %zu\n",
	       m->stack_count, m->frame_count, m->crumb_count, m->strings_size);
	if (!entries)
		return;
	for (size_t i = 0; i < m->device_count; i++)
		if (m->devices[i].seq)
			printf("device %zu name=%s\n", i, m->devices[i].name);
	for (size_t i = 0; i < m->function_count; i++) {
		const char *name = ci_model_function_name(m, (uint32_t)i);
		printf("function %zu name=%s\n", i, name ? name : "(none)");
	}
	for (size_t i = 0; i < m->thread_count; i++)
		if (m->threads[i].seq)
			printf("rthread %u name=%s\n", m->threads[i].tid, m->threads[i].name);
	for (size_t i = 0; i < m->stack_count; i++) {
		size_t n;
		const uint64_t *f = ci_model_stack(m, (uint32_t)i + 1, &n);
		printf("stack %zu frames=%zu first=0x%llx\n", i + 1, n, n ? (unsigned long long)f[0] : 0ull);
	}
	for (size_t i = 0; i < m->launch_count; i++) {
		const struct ci_launch *l = ci_model_launch(m, i);
		const char *fn = ci_model_function_name(m, l->function);
		printf("launch seq=%llu time=%llu function=%s stream=%d grid=%u,%u,%u consistent=%d\n",
		       (unsigned long long)l->seq, (unsigned long long)l->time_ns, fn ? fn : "(none)",
		       l->stream == CI_NONE ? -1 : (int)l->stream, l->grid[0], l->grid[1], l->grid[2],
		       synth_launch_consistent(l));
	}
	for (size_t i = 0; i < m->alloc_count; i++) {
		const struct ci_alloc *a = ci_model_alloc(m, i);
		printf("alloc id=%llu address=0x%llx size=%llu kind=%s\n", (unsigned long long)a->id,
		       (unsigned long long)a->address, (unsigned long long)a->size, ci_alloc_kind_name(a->kind));
	}
	for (size_t i = 0; i < m->free_count; i++)
		printf("free id=%llu address=0x%llx\n", (unsigned long long)m->frees[i].id,
		       (unsigned long long)m->frees[i].address);
	for (size_t i = 0; i < m->error_count; i++)
		printf("error seq=%llu result=%s api=%s sticky=%d\n", (unsigned long long)m->errors[i].seq,
		       ci_cuda_result_name(m->errors[i].result), m->errors[i].api,
		       ci_cuda_result_is_sticky(m->errors[i].result));
	for (size_t i = 0; i < m->crumb_count; i++)
		printf("crumb %zu %llu\n", i, (unsigned long long)m->crumbs[i]);
}

int main(int argc, char **argv)
{
	const char *input = NULL;
	pid_t pid = 0;
	int entries = 0, verify = 0, repeat = 1;
	struct ci_decode_options dopts = { .lazy = false };
	struct ci_source_options opts = { .progress = false };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc)
			pid = atoi(argv[++i]);
		else if (strcmp(argv[i], "--entries") == 0)
			entries = 1;
		else if (strcmp(argv[i], "--lazy") == 0)
			dopts.lazy = true;
		else if (strcmp(argv[i], "--verify") == 0)
			verify = 1;
		else if (strcmp(argv[i], "--progress") == 0)
			opts.progress = true;
		else if (strncmp(argv[i], "--repeat=", 9) == 0)
			repeat = atoi(argv[i] + 9);
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: cidecode [--pid PID] [--entries] [--lazy] [--verify] [--repeat=N] [INPUT]\n");
			return 2;
		} else
			input = argv[i];
	}
	if (!input && !pid) {
		fprintf(stderr, "usage: cidecode [--pid PID] [--entries] [--lazy] [--verify] [--repeat=N] [INPUT]\n");
		return 2;
	}
	struct ci_source *src;
	struct ci_error *err = pid ? ci_source_open_pid(pid, &opts, &src) : ci_source_open(input, &opts, &src);
	if (err)
		return fail(err);
	print_source(ci_source_info(src));
	printf("source.live %d\n", ci_source_is_live(src));
	printf("source.elf %d\n", ci_source_elf(src) != NULL);
	struct ci_location loc;
	err = ci_locate(src, &loc);
	if (!err) {
		printf("location.method %s\n", method_word(loc.method));
		printf("location.address 0x%llx\n", (unsigned long long)loc.address);
		printf("location.size %llu\n", (unsigned long long)loc.size);
	}
	struct ci_model *m = NULL;
	unsigned long long inconsistent = 0, accepted = 0, torn = 0;
	for (int r = 0; !err && r < repeat; r++) {
		ci_model_destroy(m);
		m = NULL;
		err = ci_decode_with(src, &loc, &dopts, &m);
		for (size_t i = 0; !err && i < m->launch_count; i++)
			inconsistent += !synth_launch_consistent(ci_model_launch(m, i));
		if (!err) {
			accepted += m->sections[CI_SEC_LAUNCHES].accepted;
			torn += m->sections[CI_SEC_LAUNCHES].torn;
		}
	}
	print_threads(ci_source_info(src), err ? NULL : m);
	const struct ci_warnings *w = ci_source_warnings(src);
	for (size_t i = 0; i < w->count; i++)
		printf("warning.source %s\n", w->items[i]);
	if (err) {
		ci_source_close(src);
		return fail(err);
	}
	printf("model.lazy %d\n", m->launches == NULL && m->launch_count > 0);
	if (dopts.lazy) {
		ci_source_close(src);
		src = NULL;
	}
	print_model(m, entries);
	if (verify)
		printf("verify.decodes %d\nverify.accepted %llu\nverify.torn %llu\nverify.inconsistent %llu\n",
		       repeat, accepted, torn, inconsistent);
	for (size_t i = 0; i < m->warnings.count; i++)
		printf("warning.model %s\n", m->warnings.items[i]);
	ci_model_destroy(m);
	ci_source_close(src);
	return 0;
}
