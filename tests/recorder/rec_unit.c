/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the recorder's parts that need no driver: the record layout for every size,
 * configuration parsing, the lock-free maps, the claim/publish protocol against the reader's
 * decoder (a table that fills up, a ring that wraps, an entry left BUSY), string interning, the
 * list registered with GDB's JIT interface across refreshes, snapshots (sparse, byte-exact, and
 * consistent while another thread publishes), the launch rings' pages taken at creation.
 * Linked with the recorder's objects; run by unit.t (also under ASan).
 *
 *   rec_unit            TAP tests
 *   rec_unit --sticky   print the CUresult values the recorder treats as sticky (0..1000)
 *   rec_unit --layout SIZE   print the section capacities for a record of SIZE bytes
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"
#include "../../recorder/recorder.h"
#include "../../recorder/symimage.h"
#include "../lib/tap.h"
#include "sections.h"

static uint64_t cap_of(const struct ci_layout *l, uint32_t kind)
{
	for (uint32_t i = 0; i < l->count; i++)
		if (l->sec[i].kind == kind)
			return l->sec[i].capacity;
	return 0;
}

static void test_layout(uint64_t size)
{
	struct ci_layout l;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	if (!ok(ci_layout_compute(size, page, &l), "layout of %llu MiB", (unsigned long long)(size >> 20)))
		return;
	ok(l.count == 29, "%llu MiB: 29 sections (got %u)", (unsigned long long)(size >> 20), l.count);
	bool inside = true, aligned = true, disjoint = true, kinds = true;
	uint64_t header_end = l.dir_offset + l.count * sizeof(struct ci_section);
	for (uint32_t i = 0; i < l.count; i++) {
		uint64_t bytes = l.sec[i].capacity * l.sec[i].entry_size;
		if (l.sec[i].offset < header_end || l.sec[i].offset + bytes > size)
			inside = false;
		if (l.sec[i].offset % CI_SECTION_ALIGN)
			aligned = false;
		for (uint32_t j = 0; j < i; j++) {
			uint64_t bj = l.sec[j].capacity * l.sec[j].entry_size;
			if (l.sec[i].offset < l.sec[j].offset + bj && l.sec[j].offset < l.sec[i].offset + bytes)
				disjoint = false;
			if (l.sec[i].kind == l.sec[j].kind)
				kinds = false;
		}
		if (l.sec[i].kind == CI_SEC_BREADCRUMBS &&
		    (l.sec[i].offset % page || bytes % page ||
		     l.sec[i].capacity < cap_of(&l, CI_SEC_STREAMS) + cap_of(&l, CI_SEC_GRAPHS)))
			aligned = false;
	}
	ok(inside, "%llu MiB: every section after the directory and inside the record",
	   (unsigned long long)(size >> 20));
	ok(aligned, "%llu MiB: sections 64-byte aligned, breadcrumbs on their own pages, one per stream and graph slot",
	   (unsigned long long)(size >> 20));
	ok(disjoint && kinds, "%llu MiB: sections disjoint, one per kind", (unsigned long long)(size >> 20));
	ok(cap_of(&l, CI_SEC_LAUNCHES) >= 256 && cap_of(&l, CI_SEC_ALLOCS) >= 256 &&
		   cap_of(&l, CI_SEC_STREAMS) >= 128 && cap_of(&l, CI_SEC_STREAMS) % 2 == 0,
	   "%llu MiB: minimum capacities", (unsigned long long)(size >> 20));
}

static void test_layouts(void)
{
	test_layout(CI_SIZE_MIN);
	test_layout(4ull << 20);
	test_layout(CI_SIZE_DEFAULT);
	test_layout(256ull << 20);
	test_layout(CI_SIZE_MAX);
	struct ci_layout l;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	uint64_t allocs = ci_layout_compute(CI_SIZE_MAX, page, &l) ? cap_of(&l, CI_SEC_ALLOCS) : 0;
	ok(allocs >= 2 * 100000,
	   "largest record: room for 100,000 live allocations at half load (%llu slots)",
	   (unsigned long long)allocs);
	ok(!ci_layout_compute(CI_SIZE_MIN - page, page, &l), "below the minimum size: refused");
	ok(!ci_layout_compute(CI_SIZE_MIN + 1, page, &l), "not a page multiple: refused");
}

/* ---------------------------------------------------------------------------------------- */

static void clear_env(void)
{
	static const char *const vars[] = {
		"CUDAINSPECT_DISABLE", "CUDAINSPECT_QUIET", "CUDAINSPECT_SIZE", "CUDAINSPECT_STACKS",
		"CUDAINSPECT_STACK_DEPTH", "CUDAINSPECT_CRUMBS", "CUDAINSPECT_CRUMB_EVERY",
		"CUDAINSPECT_CRUMB_US", "CUDAINSPECT_CRUMB_WIDTH", "CUDAINSPECT_PARAM_BYTES",
		"CUDAINSPECT_CRUMB_BUDGET",
		"CUDAINSPECT_SNAPSHOT", "CUDAINSPECT_DIR", "CUDAINSPECT_SIGNALS",
	};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
}

static bool parse_with(const char *var, const char *value, struct ci_config *cfg, char *err)
{
	clear_env();
	setenv("CUDAINSPECT_QUIET", "1", 1);
	if (var)
		setenv(var, value, 1);
	return ci_config_parse(cfg, err, 256);
}

/* A fresh record of SIZE under the default configuration otherwise (quiet). */
static bool new_record(const char *size)
{
	char err[256];
	return parse_with("CUDAINSPECT_SIZE", size, &ci_cfg, err) && ci_record_create();
}

static void test_config(void)
{
	struct ci_config cfg;
	char err[256];
	ok(parse_with(NULL, NULL, &cfg, err), "defaults parse");
	ok(cfg.size == 32ull << 20 && cfg.stack_mode == CI_STACKS_FAST && cfg.stack_depth == 16 &&
		   cfg.crumbs && cfg.crumb_every == 0 && cfg.crumb_us == 0 &&
		   cfg.crumb_budget_ppm == 2500 && cfg.param_bytes == 128 && cfg.signals && cfg.jit,
	   "defaults: 32 MiB, fast stacks of 16, breadcrumbs within 0.25 %% of a thread's time, 128 "
	   "parameter bytes");
	ok(cfg.snapshot_mask == (1u << CI_SNAP_SIGNAL | 1u << CI_SNAP_STICKY_ERROR | 1u << CI_SNAP_HANG),
	   "default snapshots: fatal signal, first sticky error, NCCL hang");
	ok(parse_with("CUDAINSPECT_SIZE", "64M", &cfg, err) && cfg.size == 64ull << 20, "SIZE=64M");
	ok(parse_with("CUDAINSPECT_SIZE", "2GiB", &cfg, err) == false && strstr(err, "out of range"),
	   "SIZE=2GiB refused: %s", err);
	ok(!parse_with("CUDAINSPECT_SIZE", "lots", &cfg, err) && strstr(err, "CUDAINSPECT_SIZE='lots'"),
	   "SIZE=lots refused: %s", err);
	ok(parse_with("CUDAINSPECT_STACKS", "accurate", &cfg, err) && cfg.stack_mode == CI_STACKS_ACCURATE,
	   "STACKS=accurate");
	ok(parse_with("CUDAINSPECT_STACKS", "off", &cfg, err) && cfg.stack_mode == CI_STACKS_OFF,
	   "STACKS=off");
	ok(!parse_with("CUDAINSPECT_STACKS", "fastest", &cfg, err), "STACKS=fastest refused: %s", err);
	ok(!parse_with("CUDAINSPECT_STACK_DEPTH", "65", &cfg, err), "STACK_DEPTH=65 refused");
	ok(parse_with("CUDAINSPECT_CRUMB_EVERY", "8", &cfg, err) && cfg.crumb_every == 8 &&
		   !cfg.crumb_budget_ppm,
	   "CRUMB_EVERY=8: a cadence, no budget");
	ok(parse_with("CUDAINSPECT_CRUMB_BUDGET", "2%", &cfg, err) && cfg.crumb_budget_ppm == 20000,
	   "CRUMB_BUDGET=2%%");
	ok(parse_with("CUDAINSPECT_CRUMB_BUDGET", "0.25", &cfg, err) && cfg.crumb_budget_ppm == 2500,
	   "CRUMB_BUDGET=0.25 (percent)");
	ok(!parse_with("CUDAINSPECT_CRUMB_BUDGET", "0", &cfg, err) && strstr(err, "share of time"),
	   "CRUMB_BUDGET=0 refused: %s", err);
	ok(!parse_with("CUDAINSPECT_CRUMB_BUDGET", "101%", &cfg, err), "CRUMB_BUDGET=101%% refused");
	ok(!parse_with("CUDAINSPECT_CRUMB_BUDGET", "half", &cfg, err), "CRUMB_BUDGET=half refused");
	clear_env();
	setenv("CUDAINSPECT_CRUMB_EVERY", "4", 1);
	setenv("CUDAINSPECT_CRUMB_BUDGET", "1%", 1);
	ok(!ci_config_parse(&cfg, err, 256) && strstr(err, "exclude"),
	   "CRUMB_BUDGET with CRUMB_EVERY refused: %s", err);
	clear_env();
	ok(!parse_with("CUDAINSPECT_CRUMB_EVERY", "0", &cfg, err) && strstr(err, "never"),
	   "CRUMB_EVERY=0 alone refused: %s", err);
	ok(parse_with("CUDAINSPECT_CRUMB_WIDTH", "32", &cfg, err) && cfg.crumb_width == 4, "CRUMB_WIDTH=32");
	ok(!parse_with("CUDAINSPECT_PARAM_BYTES", "129", &cfg, err), "PARAM_BYTES=129 refused");
	ok(parse_with("CUDAINSPECT_SNAPSHOT", "exit", &cfg, err) && cfg.snapshot_mask == 1u << CI_SNAP_EXIT,
	   "SNAPSHOT=exit");
	ok(parse_with("CUDAINSPECT_SNAPSHOT", "none", &cfg, err) && cfg.snapshot_mask == 0, "SNAPSHOT=none");
	ok(!parse_with("CUDAINSPECT_SNAPSHOT", "signal,crash", &cfg, err) && strstr(err, "'crash'"),
	   "SNAPSHOT=signal,crash refused: %s", err);
	ok(!parse_with("CUDAINSPECT_SIGNALS", "maybe", &cfg, err) && strstr(err, "boolean"),
	   "SIGNALS=maybe refused: %s", err);
	clear_env();
}

/* ---------------------------------------------------------------------------------------- */

static void test_map(void)
{
	struct ci_map m = { 0 };
	ok(ci_map_init(&m, 100), "map init");
	struct ci_map_slot *s;
	uint32_t v;
	ok(ci_map_get(&m, 42) == CI_NONE, "missing key: CI_NONE");
	ok(ci_map_claim(&m, 42, &s, &v), "first claim wins");
	ci_map_publish(s, 7);
	ok(ci_map_get(&m, 42) == 7, "published value found");
	ok(!ci_map_claim(&m, 42, &s, &v) && v == 7, "second claim sees the value");
	ci_map_remove(&m, 42);
	ok(ci_map_get(&m, 42) == CI_NONE, "removed");
	ok(ci_map_claim(&m, 42, &s, &v), "re-inserted after removal");
	ci_map_publish(s, 0);
	ok(ci_map_get(&m, 42) == 0, "slot 0 is a value, not 'pending'");
	bool all = true;
	for (uint64_t k = 1000; k < 1200; k++) {
		if (!ci_map_claim(&m, k, &s, &v))
			all = false;
		else
			ci_map_publish(s, (uint32_t)k);
	}
	for (uint64_t k = 1000; k < 1200; k++)
		if (ci_map_get(&m, k) != k)
			all = false;
	ok(all, "200 keys in a map sized for 100 (power-of-two rounding): all found");
}

/* ---------------------------------------------------------------------------------------- */

static struct ci_model *decode_live(void)
{
	struct ci_model *model = NULL;
	struct ci_error *err = ci_decode_buffer(ci_rec.base, ci_rec.size, &model);
	if (err) {
		printf("# decode: %s\n", err->message);
		ci_error_destroy(err);
	}
	return model;
}

static void test_protocol(void)
{
	if (!ok(new_record("1M"), "a 1 MiB record is created without a driver"))
		return;
	ok(!memcmp(ci_rec.base, CI_RECORD_MAGIC, 8), "it starts with the magic");
	ok(((uintptr_t)ci_rec.base & 4095) == 0, "at a page boundary");

	/* Strings: offset 0 is "", equal strings share one offset. */
	uint32_t a = ci_string("paged_attention", 100), b = ci_string("paged_attention", 100);
	uint32_t c = ci_string("rmsnorm", 100);
	ok(a && a == b && c && c != a, "strings interned (%u %u %u)", a, b, c);
	ok(ci_string("", 10) == 0, "empty string is offset 0");

	/* A table fills up: the rest are counted as dropped and the header says truncated. */
	struct ci_sec *ts = ci_sec(CI_SEC_CONTEXTS);
	uint64_t cap = ts->capacity, claimed = 0;
	for (uint64_t i = 0; i < cap + 5; i++) {
		uint32_t slot = ci_table_claim(CI_SEC_CONTEXTS);
		if (slot == CI_NONE)
			continue;
		claimed++;
		struct ci_context *e = ci_entry(CI_SEC_CONTEXTS, slot);
		ci_entry_begin(&e->seq);
		e->handle = 0x1000 + slot;
		e->device = CI_NONE;
		e->kind = CI_CTX_EXPLICIT;
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	ok(claimed == cap && ts->dir->head == cap && ts->dir->dropped == 5,
	   "table of %llu: %llu claimed, head stops at capacity, 5 dropped",
	   (unsigned long long)cap, (unsigned long long)claimed);
	ok(ci_rec.hdr->flags & CI_HDR_TRUNCATED, "header flag TRUNCATED set");

	/* A ring wraps: entries published by index, one left half-written. */
	struct ci_sec *es = ci_sec(CI_SEC_EVENTS);
	uint64_t n = es->capacity + 10;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t seq;
		struct ci_event *e = ci_ring_claim(CI_SEC_EVENTS, &seq);
		if (!e)
			continue;
		e->time_ns = 1000 + i;
		e->kind = CI_EV_STREAM_SYNC;
		e->a = seq * 3;
		e->stream = e->ctx = CI_NONE;
		if (i == n - 2)
			continue; /* the writer "died" here: seq stays CI_SEQ_BUSY */
		ci_entry_publish(&e->seq, seq);
	}
	struct ci_model *m = decode_live();
	if (!ok(m != NULL, "the reader decodes the record"))
		return;
	bool whole = true;
	for (size_t i = 0; i < m->event_count; i++)
		if (m->events[i].a != m->events[i].seq * 3)
			whole = false;
	ok(m->event_count == es->capacity - 1, "wrapped ring: capacity - 1 events accepted (%zu)",
	   m->event_count);
	ok(whole, "every accepted event is the one published with its seq");
	ok(m->sections[CI_SEC_EVENTS].torn == 1, "the half-written event is counted torn, not accepted");
	ok(m->sections[CI_SEC_CONTEXTS].dropped == 5, "the reader sees the dropped count");
	size_t ctxs = 0;
	for (size_t i = 0; i < m->context_count; i++)
		ctxs += m->contexts[i].seq != 0;
	ok(ctxs == cap, "every context accepted (%zu)", ctxs);
	ok(!strcmp(ci_model_string(m, a), "paged_attention"), "string readable through the reader");
	ci_model_destroy(m);
}

/* A kernel's parameter layout: N parameters at OFF with SIZE bytes, planned in function slot
 * SLOT of the record test_protocol created. */
static const struct ci_func_priv *plan_of(uint32_t slot, unsigned n, const uint16_t *off,
					  const uint16_t *size)
{
	struct ci_function fn = { .nparams = n, .params_known = 1 };
	for (unsigned i = 0; i < n; i++) {
		fn.param_offset[i] = off[i];
		fn.param_size[i] = size[i];
	}
	ci_launch_plan(slot, &fn);
	return &ci_rec.funcs[slot];
}

/* What a launch entry's params[] must hold: each parameter's bytes at its offset, zeros
 * everywhere else (gaps, and past the end, whatever the slot held before). */
static void expected_params(uint8_t *want, unsigned n, const uint16_t *off, const uint16_t *size,
			    void **params)
{
	memset(want, 0, CI_LAUNCH_PARAM_BYTES);
	for (unsigned i = 0; i < n; i++)
		if (params[i])
			memcpy(want + off[i], params[i], size[i]);
}

/* The parameter copy clears only when the plan does not overwrite what the slot's older entry
 * left; the bytes must come out as if it always cleared. */
static void test_params(void)
{
	if (!ci_rec.base || ci_sec(CI_SEC_FUNCTIONS)->capacity < 4)
		return;
	uint64_t p0 = 0x1111111111111111ull, p1 = 0x2222222222222222ull, p3 = 0x4444444444444444ull;
	uint32_t p2 = 0x33333333u, p4 = 0x55555555u;
	void *params[] = { &p0, &p1, &p2, &p3, &p4 };
	/* A gap: 4 bytes of padding before the second 8-byte parameter (offsets as nvcc lays
	 * out (u64, u32, u64)). */
	uint16_t gap_off[] = { 0, 8, 16 }, gap_size[] = { 8, 4, 8 };
	void *gap_params[] = { &p0, &p2, &p1 };
	uint16_t long_off[] = { 0, 8, 16, 20, 24 }, long_size[] = { 8, 8, 4, 4, 8 };
	void *long_params[] = { &p0, &p1, &p2, &p4, &p3 };
	uint16_t short_off[] = { 0, 8 }, short_size[] = { 8, 8 };
	const struct ci_func_priv *gap = plan_of(0, 3, gap_off, gap_size);
	const struct ci_func_priv *lng = plan_of(1, 5, long_off, long_size);
	const struct ci_func_priv *shrt = plan_of(2, 2, short_off, short_size);
	ok(gap->known && gap->gaps == 1 && gap->gap_off[0] == 12 && gap->len == 24,
	   "a layout with padding is planned with its gap at 12 (%u gaps)", gap->gaps);
	ok(!lng->gaps && lng->len == 32 && !shrt->gaps && shrt->len == 16,
	   "layouts without padding are planned without gaps (%u %u)", lng->len, shrt->len);
	/* Padding of 24 bytes (a 32-byte aligned parameter after a u64): more than a gap's store. */
	uint16_t wide_off[] = { 0, 32 }, wide_size[] = { 8, 8 };
	const struct ci_func_priv *wide = plan_of(3, 2, wide_off, wide_size);
	ok(wide->gaps == CI_PLAN_GAPS_MANY, "a 24-byte gap: the copy clears everything (%u)",
	   wide->gaps);

	uint8_t out[CI_LAUNCH_PARAM_BYTES], want[CI_LAUNCH_PARAM_BYTES];
	memset(out, 0xee, sizeof out); /* an entry of unknown content: old length unknown */
	uint16_t flags = 0;
	uint16_t len = ci_params_copy(out, CI_LAUNCH_PARAM_BYTES, gap, gap_params, NULL, &flags);
	expected_params(want, 3, gap_off, gap_size, gap_params);
	ok(len == 24 && !memcmp(out, want, sizeof out), "the gap and the rest are zero over old bytes");
	len = ci_params_copy(out, len, lng, long_params, NULL, &flags);
	expected_params(want, 5, long_off, long_size, long_params);
	ok(len == 32 && !memcmp(out, want, sizeof out), "a dense layout over a shorter entry");
	len = ci_params_copy(out, len, shrt, params, NULL, &flags);
	expected_params(want, 2, short_off, short_size, params);
	ok(len == 16 && !memcmp(out, want, sizeof out),
	   "a shorter dense layout clears what the longer entry left");
	p0 = 0x6666666666666666ull;
	len = ci_params_copy(out, len, shrt, params, NULL, &flags);
	expected_params(want, 2, short_off, short_size, params);
	ok(len == 16 && !memcmp(out, want, sizeof out), "the same layout again: the new values");
	void *null_params[] = { &p0, NULL };
	len = ci_params_copy(out, len, shrt, null_params, NULL, &flags);
	expected_params(want, 2, short_off, short_size, null_params);
	ok(len == 16 && !memcmp(out, want, sizeof out), "a NULL parameter pointer records zeros");
	len = ci_params_copy(out, len, shrt, params, NULL, &flags); /* bytes 12..15 not zero */
	len = ci_params_copy(out, len, gap, gap_params, NULL, &flags);
	expected_params(want, 3, gap_off, gap_size, gap_params);
	ok(len == 24 && !memcmp(out, want, sizeof out), "a layout with a gap over a dense entry");
	len = ci_params_copy(out, len, wide, params, NULL, &flags);
	expected_params(want, 2, wide_off, wide_size, params);
	ok(len == 40 && !memcmp(out, want, sizeof out), "a wide gap over a shorter entry");
	len = ci_params_copy(out, len, lng, long_params, NULL, &flags);
	expected_params(want, 5, long_off, long_size, long_params);
	ok(len == 32 && !memcmp(out, want, sizeof out), "a dense layout over a longer one with a gap");
	ok(flags == 0, "nothing was cut (flags %#x)", flags);
	memset(&ci_rec.funcs[0], 0, 4 * sizeof ci_rec.funcs[0]);
}

/* GDB's side of the JIT interface: the list the recorder registers. */
#include "../../recorder/gdb-jit.h"
extern struct jit_descriptor __jit_debug_descriptor;

/* The list holds the record and every part of the symbol image, each exactly once, linked both
 * ways. */
static void check_jit_list(const char *when)
{
	uint32_t parts = ci_symimage_part_count((uint32_t)ci_sec(CI_SEC_ALLOCS)->capacity) +
			 ci_symimage_part_count((uint32_t)ci_sec(CI_SEC_FREES)->capacity);
	const struct jit_code_entry *first = __jit_debug_descriptor.first_entry;
	const char *seen[64];
	size_t n = 0;
	bool linked = !first || !first->prev_entry, distinct = true, record = false, inside = true;
	for (const struct jit_code_entry *e = first; e && n < 64; e = e->next_entry) {
		if (e->next_entry && e->next_entry->prev_entry != e)
			linked = false;
		for (size_t j = 0; j < n; j++)
			distinct &= seen[j] != e->symfile_addr;
		seen[n++] = e->symfile_addr;
		if (e->symfile_addr == (const char *)ci_rec.base && e->symfile_size == ci_rec.size)
			record = true;
		else if (e->symfile_addr < (const char *)ci_rec.symimage ||
			 e->symfile_addr + e->symfile_size >
				 (const char *)ci_rec.symimage + ci_sec(CI_SEC_SYMBOL_IMAGE)->capacity)
			inside = false;
	}
	ok(n == 1 + parts && linked && distinct && record && inside,
	   "JIT list %s: the record and %u image parts, each once (%zu entries%s%s%s%s)", when, parts,
	   n, linked ? "" : ", broken links", distinct ? "" : ", duplicates",
	   record ? "" : ", no record", inside ? "" : ", an entry outside the image");
}

static void test_jit(void)
{
	if (!ok(new_record("48M"), "a 48 MiB record")) /* several parts of the symbol image */
		return;
	ci_jit_register();
	check_jit_list("after registration");
	ci_jit_refresh(true, 0);
	check_jit_list("after a refresh of the record and the image");
	ci_jit_refresh(false, 0);
	ci_jit_refresh(false, 0);
	check_jit_list("after two refreshes of the image");
	ok(__jit_debug_descriptor.action_flag == 2, "the last action is an unregistration (of the "
	   "entry replaced)");
}


/* ---------------------------------------------------------------------------------------- */
/* Which frees the symbol image names (symfreed.c)                                            */

/* Whether free ring slot SLOT is named, at START with SIZE bytes. */
static bool freed_named(uint32_t slot, uint64_t start, uint64_t size)
{
	uint64_t a, s;
	return ci_symimage_get(ci_rec.symfreed, slot, &a, &s) && a == start && s == size;
}

static bool freed_hidden(uint32_t slot)
{
	uint64_t a, s;
	return !ci_symimage_get(ci_rec.symfreed, slot, &a, &s);
}

static void test_symfreed(void)
{
	if (!ok(new_record("4M") && ci_rec.symfreed, "a 4 MiB record with an image of frees"))
		return;
	const uint64_t X = 0x7f0000000000ull;
	ci_symfreed_freed(0, 1, CI_ALLOC_DEVICE, X, 0x10000);
	ok(freed_named(0, X, 0x10000), "a device free is named");
	ci_symfreed_freed(1, 2, CI_ALLOC_HOST, X + 0x100000, 0x1000);
	ok(freed_hidden(1), "a freed host allocation is not (the host reuses it)");
	ci_symfreed_live(X + 0x4000, 0x1000);
	ok(freed_hidden(0), "a live allocation starting inside a named free hides it");

	ci_symfreed_freed(2, 3, CI_ALLOC_DEVICE, X + 0x200000, 0x1000);
	ci_symfreed_live(X + 0x1f0000, 0x20000);
	ok(freed_hidden(2), "a live allocation around a named free hides it");

	ci_symfreed_freed(3, 4, CI_ALLOC_DEVICE, X + 0x300000, 0x1000);
	ci_symfreed_freed(4, 5, CI_ALLOC_DEVICE, X + 0x400000, 0x1000);
	ci_symfreed_live(X + 0x300000, 0x800);
	ok(freed_hidden(3) && freed_named(4, X + 0x400000, 0x1000),
	   "a live allocation at a free's start hides that one only");

	/* 4 KiB frees under a 4 MiB allocation: more granules than probed, so every slot is
	 * looked at. */
	ci_symfreed_freed(5, 6, CI_ALLOC_DEVICE, X + 0x1000000, 0x1000);
	ci_symfreed_freed(6, 7, CI_ALLOC_DEVICE, X + 0x13ff000, 0x1000);
	ci_symfreed_freed(7, 8, CI_ALLOC_DEVICE, X + 0x1400000, 0x1000);
	ci_symfreed_live(X + 0x1000000, 0x400000);
	ok(freed_hidden(5) && freed_hidden(6) && freed_named(7, X + 0x1400000, 0x1000),
	   "a large allocation hides the small frees it covers and no other");

	ci_symfreed_freed(4, 9, CI_ALLOC_DEVICE, X + 0x500000, 0x2000);
	ok(freed_named(4, X + 0x500000, 0x2000), "a ring slot's new free replaces its old name");
	ci_symfreed_live(X + 0x400000, 0x1000);
	ok(freed_named(4, X + 0x500000, 0x2000),
	   "the old range of a reused ring slot is no longer the slot's");

	/* A whole ring of small frees, then one allocation over all of them. */
	uint32_t cap = (uint32_t)ci_sec(CI_SEC_FREES)->capacity, named = 0;
	for (uint32_t s = 8; s < cap; s++)
		ci_symfreed_freed(s, 100 + s, CI_ALLOC_DEVICE, X + 0x10000000ull + (uint64_t)s * 0x200,
				  0x200);
	for (uint32_t s = 8; s < cap; s++)
		named += !freed_hidden(s);
	ok(named == cap - 8, "%u adjacent 512-byte frees are all named (%u)", cap - 8, named);
	named = 0;
	ci_symfreed_live(X + 0x10000000ull, (uint64_t)cap * 0x200);
	for (uint32_t s = 8; s < cap; s++)
		named += !freed_hidden(s);
	ok(named == 0, "a live allocation over %u small frees hides them all (%u left)", cap - 8,
	   named);
}

/* ---------------------------------------------------------------------------------------- */
/* Snapshots                                                                                  */

static char snap_dir[256];

/* The snapshot file of REASON in snap_dir (the only one), read whole and removed (NULL if
 * missing); *ST its stat, NAME its file name. */
static uint8_t *snapshot_read(const char *reason, struct stat *st, char *name, size_t namelen)
{
	char path[512], tail[32];
	snprintf(tail, sizeof tail, "-%s.cisnap", reason);
	DIR *d = opendir(snap_dir);
	int found = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		size_t n = strlen(de->d_name), t = strlen(tail);
		if (n > t && !strcmp(de->d_name + n - t, tail) && found++ == 0)
			snprintf(name, namelen, "%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (found != 1)
		return NULL;
	snprintf(path, sizeof path, "%s/%s", snap_dir, name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	uint8_t *buf = NULL;
	if (fstat(fd, st) == 0 && (buf = malloc((size_t)st->st_size + 1)) &&
	    read(fd, buf, (size_t)st->st_size) != st->st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	unlink(path);
	return buf;
}

/* The name a snapshot of REASON of the record with header H must have (docs/FORMAT.md,
 * "Files"), with libc's own calendar arithmetic. */
static void expected_snapshot_name(const struct ci_header *h, const char *reason, char *out,
				   size_t len)
{
	time_t s = (time_t)(h->start_realtime_ns / 1000000000ull);
	struct tm tm;
	char when[32];
	char host[sizeof h->host];
	gmtime_r(&s, &tm);
	strftime(when, sizeof when, "%Y%m%dT%H%M%S", &tm);
	/* The documented reduction of the host name to [A-Za-z0-9._]. */
	snprintf(host, sizeof host, "%s", h->host);
	for (char *c = host; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._", *c))
			*c = '_';
	snprintf(out, len, "cudainspect-%s-%u-%s.%06lluZ-%s.cisnap", host, h->pid, when,
		 (unsigned long long)(h->start_realtime_ns % 1000000000ull / 1000), reason);
}

/* Whether files in DIR keep holes (tmpfs and ext4 do; some file systems allocate every block). */
static bool dir_keeps_holes(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/hole", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct stat st;
	bool holes = fd >= 0 && ftruncate(fd, 1 << 20) == 0 && fstat(fd, &st) == 0 &&
		     st.st_blocks * 512 < (1 << 19);
	if (fd >= 0)
		close(fd);
	unlink(path);
	return holes;
}

/* Other threads publishing while a snapshot is written, made deterministic: while
 * publish_on_write is set, every write(2) to a file (the snapshot's, from the recorder's
 * objects linked into this program) first publishes that many events (a = seq * 3), as another
 * thread could between any two steps of the copy. */
static int publish_on_write;
static uint64_t published_during;

ssize_t write(int fd, const void *buf, size_t n)
{
	for (int i = 0; fd > 2 && i < publish_on_write; i++) {
		uint64_t seq;
		struct ci_event *e = ci_ring_claim(CI_SEC_EVENTS, &seq);
		if (!e)
			continue;
		e->time_ns = seq;
		e->kind = CI_EV_STREAM_SYNC;
		e->a = seq * 3;
		e->stream = e->ctx = CI_NONE;
		ci_entry_publish(&e->seq, seq);
		published_during++;
	}
	return syscall(SYS_write, fd, buf, n);
}

static void test_snapshot(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(snap_dir, sizeof snap_dir, "%s/rec_unit.XXXXXX", tmp);
	if (!ok(mkdtemp(snap_dir) != NULL, "scratch directory for snapshots"))
		return;
	clear_env();
	setenv("CUDAINSPECT_QUIET", "1", 1);
	setenv("CUDAINSPECT_SIZE", "8M", 1);
	setenv("CUDAINSPECT_SIGNALS", "0", 1);
	setenv("CUDAINSPECT_SNAPSHOT_DIR", snap_dir, 1);
	char err[256];
	ci_config_parse(&ci_cfg, err, sizeof err);
	if (!ok(ci_record_create(), "an 8 MiB record"))
		return;
	ci_crash_install();

	/* An idle record: the file is the region's bytes (but for the snapshot's own header
	 * fields), full size, and mostly holes. */
	struct stat st;
	char name[256] = "", want[256];
	ok(ci_snapshot_write(CI_SNAP_EXIT), "snapshot of an idle record written");
	uint8_t *f = snapshot_read("exit", &st, name, sizeof name);
	if (!ok(f != NULL, "snapshot file read back"))
		return;
	const struct ci_header *h = (const void *)f;
	expected_snapshot_name(h, "exit", want, sizeof want);
	ok(!strcmp(name, want), "named host-pid-start-reason: %s (want %s)", name, want);
	ok((st.st_mode & 07777) == 0600 && st.st_uid == geteuid() && st.st_nlink == 1,
	   "mode 0600, ours, one link (mode %o)", (unsigned)(st.st_mode & 07777));
	uint64_t meta = h->section_dir_offset + (uint64_t)h->section_count * h->section_entry_size;
	ok((uint64_t)st.st_size == ci_rec.size, "full size: %lld bytes", (long long)st.st_size);
	/* ... but the symbol image, which a snapshot leaves as a hole (docs/FORMAT.md). */
	const struct ci_sec *img = &ci_rec.sec[CI_SEC_SYMBOL_IMAGE];
	uint64_t img_lo = img->dir ? (uint64_t)(img->base - ci_rec.base) : ci_rec.size;
	uint64_t img_hi = img->dir ? img_lo + img->capacity * img->entry_size : ci_rec.size;
	bool img_zero = true, img_in_memory = false;
	for (uint64_t i = img_lo; i < img_hi; i++) {
		img_zero = img_zero && !f[i];
		img_in_memory = img_in_memory || ci_rec.base[i];
	}
	ok(img->dir && img_hi > img_lo && img_zero && img_in_memory,
	   "the symbol image (%llu bytes, laid out in memory) is a hole in the snapshot",
	   (unsigned long long)(img_hi - img_lo));
	ok(!memcmp(f + meta, ci_rec.base + meta, img_lo - meta) &&
		   !memcmp(f + img_hi, ci_rec.base + img_hi, ci_rec.size - img_hi) &&
		   !memcmp(f + h->section_dir_offset, ci_rec.base + h->section_dir_offset,
			   meta - h->section_dir_offset),
	   "the directory and every other section byte for byte as in memory");
	ok(h->origin == CI_ORIGIN_SNAPSHOT && h->snapshot_reason == CI_SNAP_EXIT &&
		   !memcmp(h->magic, CI_RECORD_MAGIC, 8) && h->record_size == ci_rec.size,
	   "header: magic, size, origin snapshot, reason exit");
	if (dir_keeps_holes(snap_dir))
		ok(st.st_blocks * 512 < (blkcnt_t)(ci_rec.size / 4),
		   "sparse: %lld KiB on disk for a %llu KiB record", (long long)st.st_blocks / 2,
		   (unsigned long long)(ci_rec.size >> 10));
	else
		printf("# not checked: the file system under %s allocates holes\n", snap_dir);
	free(f);

	/* Events published while the snapshot is written are either in it, under a `head` that
	 * covers them, or not in it at all: never newer than their head (counted torn). */
	publish_on_write = 20;
	ok(ci_snapshot_write(CI_SNAP_EXIT), "snapshot written while events are published");
	publish_on_write = 0;
	f = snapshot_read("exit", &st, name, sizeof name);
	struct ci_model *m = NULL;
	struct ci_error *e = f ? ci_decode_buffer(f, (size_t)st.st_size, &m) : NULL;
	if (e) {
		printf("# decode: %s\n", e->message);
		ci_error_destroy(e);
	}
	if (ok(m != NULL, "that snapshot decodes (%llu events published during it)",
	       (unsigned long long)published_during)) {
		bool whole = true;
		for (size_t i = 0; i < m->event_count; i++)
			whole &= m->events[i].a == m->events[i].seq * 3;
		ok(published_during > 0 && m->sections[CI_SEC_EVENTS].torn == 0,
		   "no event counted torn (%llu)", (unsigned long long)m->sections[CI_SEC_EVENTS].torn);
		ok(whole, "every accepted event (%zu) is the one published with its seq",
		   m->event_count);
	}
	ci_model_destroy(m);
	free(f);
	rmdir(snap_dir);
}

/* Resident pages of [P, P + BYTES) by mincore, and the pages looked at. */
static size_t resident_pages(const void *p, uint64_t bytes, size_t *pages)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p & ~(page - 1), to = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
	size_t n = (to - from) / page, in = 0;
	unsigned char *v = malloc(n ? n : 1);
	*pages = n;
	if (!v || mincore((void *)from, to - from, v) != 0) {
		free(v);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in;
}

/* The rings launches write get their pages when the record is created (MADV_POPULATE_WRITE,
 * Linux 5.14), not one page fault every 16 launches of their first lap; the other sections
 * still get theirs as they are written. */
static void test_populate(void)
{
	bool can = false;
#ifdef MADV_POPULATE_WRITE /* else the recorder was built without it too */
	void *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	can = probe != MAP_FAILED && madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
	if (probe != MAP_FAILED)
		munmap(probe, 4096);
#endif
	if (!can) {
		for (int i = 0; i < 4; i++)
			ok(1, "# SKIP this kernel has no MADV_POPULATE_WRITE (Linux 5.14)");
		return;
	}
	if (!ok(new_record("32M"), "a 32 MiB record"))
		return;
	static const struct { uint32_t kind; const char *name; } rings[] = {
		{ CI_SEC_LAUNCHES, "launch ring" },
		{ CI_SEC_NCCL_CALLS, "NCCL-call ring" },
	};
	for (size_t i = 0; i < sizeof rings / sizeof rings[0]; i++) {
		const struct ci_sec *sec = &ci_rec.sec[rings[i].kind];
		size_t pages = 0;
		size_t in = resident_pages(sec->base, sec->capacity * sec->entry_size, &pages);
		ok(pages > 0 && in == pages, "the %s's pages are resident before any launch (%zu of %zu)",
		   rings[i].name, in, pages);
	}
	/* The event ring, written at the rate of synchronizations, is left to fault in. */
	const struct ci_sec *ev = &ci_rec.sec[CI_SEC_EVENTS];
	size_t pages = 0, in = resident_pages(ev->base, ev->capacity * ev->entry_size, &pages);
	ok(pages > 16 && in < pages / 2, "the event ring's are not (%zu of %zu)", in, pages);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--sticky")) {
		for (int r = 0; r <= 1000; r++)
			if (ci_result_is_sticky((CUresult)r))
				printf("%d\n", r);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--layout")) {
		struct ci_layout l;
		if (!ci_layout_compute(strtoull(argv[2], NULL, 0), (uint32_t)sysconf(_SC_PAGESIZE), &l))
			return 1;
		for (uint32_t i = 0; i < l.count; i++)
			printf("%s %llu\n", section_words[l.sec[i].kind], (unsigned long long)l.sec[i].capacity);
		return 0;
	}
	test_layouts();
	test_config();
	test_map();
	test_protocol();
	test_params();
	test_jit();
	test_symfreed();
	test_snapshot();
	test_populate();
	printf("1..%d\n", tap_n);
	return done_testing();
}
