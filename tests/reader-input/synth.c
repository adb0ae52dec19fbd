/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: the synthetic flight record builder declared in synth.h.  Sections are laid out
 * one after another, 64-byte aligned, after the header and directory; every entry's content is
 * a function of its index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

struct layout_sec {
	uint32_t kind, entry_size;
	uint64_t capacity, head;
	uint64_t offset;
};

enum { NSEC = 17, NSEC_MAX = 18 };

/* Sections of S: the 17 every record has, plus the kernel log when S gives one. */
static int nsec(const struct synth_spec *s) { return s->kernel_log_len ? NSEC + 1 : NSEC; }

void synth_defaults(struct synth_spec *s)
{
	memset(s, 0, sizeof *s);
	s->major = CI_FORMAT_MAJOR;
	s->minor = CI_FORMAT_MINOR;
	s->pid = 4242;
	s->ppid = 1;
	s->origin = CI_ORIGIN_SNAPSHOT;
	s->state = CI_STATE_SIGNALED;
	s->launches = 10;
	s->launch_cap = 16;
	s->allocs = 5;
	s->alloc_cap = 64;
	s->frees = 2;
	s->free_cap = 8;
	s->errors = 2;
	s->error_cap = 8;
	s->events = 4;
	s->event_cap = 16;
	s->thread_count = 1;
	s->thread_tids[0] = 4242;
	s->thread_names[0] = "synth-main";
}

static uint32_t pad(const struct synth_spec *s, uint32_t size) { return size + s->entry_pad; }

static size_t plan(const struct synth_spec *s, struct layout_sec *secs)
{
	struct layout_sec plan_[NSEC] = {
		{ CI_SEC_HOST_MODULES, pad(s, sizeof(struct ci_host_module)), 4, 2, 0 },
		{ CI_SEC_DEVICES, pad(s, sizeof(struct ci_device)), 2, 1, 0 },
		{ CI_SEC_CONTEXTS, pad(s, sizeof(struct ci_context)), 4, 1, 0 },
		{ CI_SEC_STREAMS, pad(s, sizeof(struct ci_stream)), 8, SYNTH_STREAMS, 0 },
		{ CI_SEC_CODE_MODULES, pad(s, sizeof(struct ci_code_module)), 4, 1, 0 },
		{ CI_SEC_FUNCTIONS, pad(s, sizeof(struct ci_function)), 8, SYNTH_FUNCTIONS, 0 },
		{ CI_SEC_LAUNCHES, pad(s, sizeof(struct ci_launch)), s->launch_cap, s->launches, 0 },
		{ CI_SEC_ALLOCS, pad(s, sizeof(struct ci_alloc)), s->alloc_cap, s->allocs, 0 },
		{ CI_SEC_FREES, pad(s, sizeof(struct ci_alloc)), s->free_cap, s->frees, 0 },
		{ CI_SEC_ERRORS, pad(s, sizeof(struct ci_api_error)), s->error_cap, s->errors, 0 },
		{ CI_SEC_EVENTS, pad(s, sizeof(struct ci_event)), s->event_cap, s->events, 0 },
		{ CI_SEC_STACKS, pad(s, sizeof(struct ci_stack)), 8, SYNTH_STACKS, 0 },
		{ CI_SEC_FRAMES, 8, 64, SYNTH_STACKS * SYNTH_FRAMES_PER_STACK, 0 },
		{ CI_SEC_STRINGS, 1, s->damage == SYNTH_UNTERMINATED ? 16384 : 4096, 0, 0 },
		{ CI_SEC_BREADCRUMBS, 8, 8, SYNTH_STREAMS, 0 },
		{ CI_SEC_THREADS, pad(s, sizeof(struct ci_thread)), 16, s->thread_count, 0 },
		{ CI_SEC_SYMBOL_IMAGE, 1, 256, 0, 0 },
	};
	uint64_t off = 512 + 32 * 64; /* header, then room for the directory */
	for (int i = 0; i < NSEC; i++) {
		plan_[i].offset = off;
		off += (plan_[i].capacity * plan_[i].entry_size + 63) & ~63ull;
	}
	memcpy(secs, plan_, sizeof plan_);
	if (s->kernel_log_len) {
		/* Format 1.1's kernel-log lines, after everything else. */
		secs[NSEC] = (struct layout_sec){ CI_SEC_KERNEL_LOG, 1, s->kernel_log_len + 64,
						  s->kernel_log_len, off };
		off += (s->kernel_log_len + 64 + 63) & ~63ull;
	}
	return (off + 4095) & ~4095ull;
}

size_t synth_size(const struct synth_spec *s)
{
	struct layout_sec secs[NSEC_MAX];
	return plan(s, secs);
}

static struct layout_sec *find(struct layout_sec *secs, uint32_t kind)
{
	for (int i = 0; i < NSEC_MAX; i++)
		if (secs[i].kind == kind)
			return &secs[i];
	abort();
}

#define ENTRY(buf, sec, i) ((buf) + (sec)->offset + (uint64_t)(i) * (sec)->entry_size)

/* Append S to the string area; returns its offset. */
static uint32_t add_string(uint8_t *buf, struct layout_sec *strs, const char *s)
{
	if (strs->head == 0)
		strs->head = 1; /* offset 0 is the empty string */
	uint32_t off = (uint32_t)strs->head;
	size_t n = strlen(s) + 1;
	memcpy(buf + strs->offset + off, s, n);
	strs->head += n;
	return off;
}

void synth_fill_launch(struct ci_launch *l, uint64_t index)
{
	uint64_t seq = index + 1;
	memset(l, 0, sizeof *l);
	l->time_ns = seq * 1000;
	l->stream_seq = index / SYNTH_STREAMS + 1;
	l->function_handle = 0xf000 + index % SYNTH_FUNCTIONS;
	l->function = (uint32_t)(index % SYNTH_FUNCTIONS);
	l->stream = (uint32_t)(index % SYNTH_STREAMS);
	l->ctx = 0;
	l->tid = 4242;
	l->grid[0] = (uint32_t)seq;
	l->grid[1] = 2;
	l->grid[2] = 1;
	l->block[0] = 128;
	l->block[1] = 1;
	l->block[2] = 1;
	l->stack = 1;
	l->api = CI_LAUNCH_KERNEL;
	l->flags = CI_LAUNCH_CRUMB;
	uint64_t ptr = SYNTH_ALLOC_BASE + (index % 5) * SYNTH_ALLOC_STRIDE + 16;
	memcpy(l->params, &ptr, 8);
	memcpy(l->params + 8, &seq, 8);
	l->param_len = 16;
	l->seq = seq;
}

uint64_t synth_launch_time(uint32_t mode, uint64_t index)
{
	if (mode == SYNTH_TIMES_CHUNKED) {
		uint64_t chunk = index / 4, thread = chunk % 3, nth = chunk / 3 * 4 + index % 4;
		return 1000 + nth * 1000 + (thread ? 500 : 0);
	}
	if (mode == SYNTH_TIMES_RANDOM) {
		uint64_t x = (index + 1) * 0x9e3779b97f4a7c15ull;
		x ^= x >> 29;
		return 1000 + (x % 64) * 1000;
	}
	return (index + 1) * 1000;
}

int synth_launch_consistent(const struct ci_launch *l)
{
	uint64_t p;
	memcpy(&p, l->params + 8, 8);
	return l->grid[0] == (uint32_t)l->seq && l->grid[1] >= 2 && l->grid[1] <= 4 &&
	       l->time_ns == synth_launch_time(l->grid[1] - 2, l->seq - 1) && p == l->seq &&
	       l->stream_seq == (l->seq - 1) / SYNTH_STREAMS + 1;
}

static void put_seq(uint8_t *e, uint64_t seq) { memcpy(e, &seq, 8); }

void synth_build(const struct synth_spec *s, uint8_t *buf)
{
	struct layout_sec secs[NSEC_MAX] = { 0 };
	size_t size = plan(s, secs);
	struct layout_sec *strs = find(secs, CI_SEC_STRINGS);

	struct ci_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN);
	h.major = s->major;
	h.minor = s->minor;
	h.header_size = sizeof h;
	h.record_size = size;
	h.page_size = 4096;
	h.section_count = (uint32_t)nsec(s);
	h.section_dir_offset = 512;
	h.section_entry_size = 64;
	h.pid = s->pid;
	h.ppid = s->ppid;
	h.flags = s->flags;
	snprintf(h.host, sizeof h.host, "%s", SYNTH_HOST);
	snprintf(h.recorder_version, sizeof h.recorder_version, "synth-1");
	h.start_realtime_ns = 1700000000ull * 1000000000ull;
	h.start_monotonic_ns = 1000;
	h.record_base = s->record_base;
	h.exe_str = add_string(buf, strs, "/opt/synth/engine");
	h.cmdline_str = add_string(buf, strs, "/opt/synth/engine --fault oob");
	h.stack_mode = CI_STACKS_FAST;
	h.stack_depth = 16;
	h.crumb_every_launches = 1;
	h.param_bytes_max = CI_LAUNCH_PARAM_BYTES;
	h.crumb_width = 8;
	h.state = s->state;
	h.origin = s->origin;
	h.fatal_signal = 11;
	h.fatal_tid = s->pid;
	h.fatal_addr = 0x1234;

	/* Host modules, device, context. */
	struct layout_sec *sec = find(secs, CI_SEC_HOST_MODULES);
	for (uint32_t i = 0; i < sec->head; i++) {
		struct ci_host_module m = { .seq = i + 1, .base = 0x400000 + i * 0x100000,
					    .start = 0x400000 + i * 0x100000, .end = 0x480000 + i * 0x100000,
					    .build_id_len = 20 };
		m.path_str = add_string(buf, strs, i ? "/lib/libsynth.so" : "/opt/synth/engine");
		memset(m.build_id, 0xa0 + (int)i, 20);
		memcpy(ENTRY(buf, sec, i), &m, sizeof m);
	}
	sec = find(secs, CI_SEC_DEVICES);
	struct ci_device dev = { .seq = 1, .total_mem = 80ull << 30, .ordinal = 0, .cc_major = 9,
				 .sm_count = 132 };
	snprintf(dev.name, sizeof dev.name, "%s", SYNTH_DEVICE_NAME);
	snprintf(dev.pci_bus_id, sizeof dev.pci_bus_id, "0000:01:00.0");
	memcpy(ENTRY(buf, sec, 0), &dev, sizeof dev);
	sec = find(secs, CI_SEC_CONTEXTS);
	struct ci_context ctx = { .seq = 1, .handle = 0xc0c0, .ctx_id = 1, .device = 0,
				  .kind = CI_CTX_PRIMARY, .create_tid = s->pid, .create_stack = 1 };
	memcpy(ENTRY(buf, sec, 0), &ctx, sizeof ctx);

	sec = find(secs, CI_SEC_STREAMS);
	for (uint32_t i = 0; i < SYNTH_STREAMS; i++) {
		uint64_t launched = s->launches / SYNTH_STREAMS + (i < s->launches % SYNTH_STREAMS);
		struct ci_stream st = { .seq = i + 1, .handle = i ? 0x5000 + i : 0, .stream_id = i + 1,
					.launches = launched, .crumb_enqueued = launched, .ctx = 0,
					.kind = i ? CI_STREAM_CREATED : CI_STREAM_LEGACY, .owner_tid = s->pid,
					.crumb_slot = i, .crumb_status = CI_CRUMB_OK, .create_stack = 2 };
		memcpy(ENTRY(buf, sec, i), &st, sizeof st);
	}
	sec = find(secs, CI_SEC_CODE_MODULES);
	struct ci_code_module cm = { .seq = 1, .handle = 0xd0d0, .kind = CI_CODE_MODULE, .ctx = 0 };
	cm.source_str = add_string(buf, strs, "kernels.cubin");
	memcpy(ENTRY(buf, sec, 0), &cm, sizeof cm);
	sec = find(secs, CI_SEC_FUNCTIONS);
	for (uint32_t i = 0; i < SYNTH_FUNCTIONS; i++) {
		char name[32];
		snprintf(name, sizeof name, "kernel_%u", i);
		struct ci_function f = { .seq = i + 1, .handle = 0xf000 + i, .kind = CI_FUNC_FUNCTION,
					 .code_module = 0, .nparams = 2, .params_known = 1 };
		f.name_str = add_string(buf, strs, name);
		f.param_offset[1] = 8;
		f.param_size[0] = 8;
		f.param_size[1] = 8;
		memcpy(ENTRY(buf, sec, i), &f, sizeof f);
	}
	/* Stacks and frames. */
	sec = find(secs, CI_SEC_STACKS);
	struct layout_sec *frames = find(secs, CI_SEC_FRAMES);
	for (uint32_t i = 0; i < SYNTH_STACKS; i++) {
		struct ci_stack st = { .seq = i + 1, .hash = 0x51ac0 + i,
				       .frames_offset = i * SYNTH_FRAMES_PER_STACK,
				       .nframes = SYNTH_FRAMES_PER_STACK };
		memcpy(ENTRY(buf, sec, i), &st, sizeof st);
		for (uint32_t f = 0; f < SYNTH_FRAMES_PER_STACK; f++) {
			uint64_t pc = 0x401000 + i * 0x100 + f * 0x10;
			memcpy(ENTRY(buf, frames, i * SYNTH_FRAMES_PER_STACK + f), &pc, 8);
		}
	}
	sec = find(secs, CI_SEC_BREADCRUMBS);
	for (uint32_t i = 0; i < SYNTH_STREAMS; i++) {
		/* Stream i finished all but its last launch. */
		uint64_t launched = s->launches / SYNTH_STREAMS + (i < s->launches % SYNTH_STREAMS);
		uint64_t crumb = launched ? launched - 1 : 0;
		memcpy(ENTRY(buf, sec, i), &crumb, 8);
	}
	sec = find(secs, CI_SEC_THREADS);
	for (uint32_t i = 0; i < s->thread_count && i < 8; i++) {
		struct ci_thread t = { .seq = i + 1, .first_ns = 500 + i, .tid = s->thread_tids[i] };
		snprintf(t.name, sizeof t.name, "%s", s->thread_names[i] ? s->thread_names[i] : "");
		memcpy(ENTRY(buf, sec, i), &t, sizeof t);
	}

	/* Launch ring: indexes 0 .. launches-1, the last `launch_cap` survive. */
	sec = find(secs, CI_SEC_LAUNCHES);
	for (uint64_t i = 0; i < s->launches; i++) {
		struct ci_launch l;
		synth_fill_launch(&l, i);
		l.time_ns = synth_launch_time(s->launch_times, i);
		l.grid[1] = 2 + s->launch_times;
		memcpy(ENTRY(buf, sec, i % sec->capacity), &l, sizeof l);
	}
	for (uint32_t t = 0; t < s->torn_launches && t < s->launches; t++)
		put_seq(ENTRY(buf, sec, (s->launches - 1 - t) % sec->capacity), CI_SEQ_BUSY);

	/* Live allocations: open addressing keyed by address. */
	sec = find(secs, CI_SEC_ALLOCS);
	for (uint32_t n = 0; n < s->allocs; n++) {
		/* Twins: alloc 1 goes in first, at alloc 0's address, so it takes the home slot. */
		uint32_t i = s->alloc_twins && n < 2 && s->allocs >= 2 ? 1 - n : n;
		uint64_t at = s->alloc_twins && i == 1 ? 0 : i;
		/* Ids out of address order where asked: allocations made high to low, or in no order. */
		uint64_t id = s->alloc_id_step ? (uint64_t)i * s->alloc_id_step % s->allocs + 1 : i + 1;
		struct ci_alloc a = { .seq = id, .id = id,
				      .address = SYNTH_ALLOC_BASE + at * SYNTH_ALLOC_STRIDE,
				      .size = 0x1000ull * (i + 1), .time_ns = 100 + i, .state = CI_ALLOC_LIVE,
				      .kind = CI_ALLOC_DEVICE, .ctx = 0, .stream = CI_NONE, .tid = s->pid,
				      .stack = 1, .free_stream = CI_NONE };
		uint64_t slot = ci_alloc_hash(a.address) % sec->capacity;
		while (((struct ci_alloc *)(void *)ENTRY(buf, sec, slot))->state != CI_ALLOC_EMPTY)
			slot = (slot + 1) % sec->capacity;
		memcpy(ENTRY(buf, sec, slot), &a, sizeof a);
	}
	sec = find(secs, CI_SEC_FREES);
	for (uint64_t i = 0; i < s->frees; i++) {
		struct ci_alloc a = { .seq = i + 1, .id = 1000 + i, .address = 0x7e0000000000ull + i * 0x10000,
				      .size = 0x800, .time_ns = 50 + i, .free_ns = 60 + i, .state = CI_ALLOC_FREED,
				      .kind = CI_ALLOC_DEVICE, .ctx = 0, .stream = CI_NONE, .tid = s->pid,
				      .stack = 2, .free_tid = s->pid, .free_stack = 1, .free_stream = CI_NONE };
		memcpy(ENTRY(buf, sec, i % sec->capacity), &a, sizeof a);
	}
	sec = find(secs, CI_SEC_ERRORS);
	for (uint64_t i = 0; i < s->errors; i++) {
		struct ci_api_error e = { .seq = i + 1, .time_ns = 20000 + i, .result = i ? 700 : 1,
					  .tid = s->pid, .stack = 1, .ctx = 0, .stream = 1,
					  .flags = i == 1 ? CI_ERROR_STICKY | CI_ERROR_FIRST_STICKY : 0 };
		snprintf(e.api, sizeof e.api, i ? "cuStreamSynchronize" : "cuMemAlloc_v2");
		snprintf(e.args, sizeof e.args, "arg summary %llu", (unsigned long long)i);
		memcpy(ENTRY(buf, sec, i % sec->capacity), &e, sizeof e);
	}
	sec = find(secs, CI_SEC_EVENTS);
	for (uint64_t i = 0; i < s->events; i++) {
		struct ci_event e = { .seq = i + 1, .time_ns = 300 + i, .kind = CI_EV_STREAM_SYNC,
				      .tid = s->pid, .stream = (uint32_t)(i % SYNTH_STREAMS), .ctx = 0,
				      .stack = 0 };
		memcpy(ENTRY(buf, sec, i % sec->capacity), &e, sizeof e);
	}

	/* Damage. */
	struct layout_sec *launches = find(secs, CI_SEC_LAUNCHES);
	switch (s->damage) {
	case SYNTH_BAD_MAGIC: h.magic[0] = 'X'; break;
	case SYNTH_NO_MAGIC: memset(h.magic, 0, sizeof h.magic); break;
	case SYNTH_BAD_HEADER_SIZE: h.header_size = 12; break;
	case SYNTH_BAD_DIR: h.section_dir_offset = size; break;
	case SYNTH_SECTION_MISALIGNED: launches->offset += 8; break;
	case SYNTH_SECTION_OVERLAP: find(secs, CI_SEC_EVENTS)->offset = launches->offset; break;
	case SYNTH_SECTION_PAST_END: find(secs, CI_SEC_ERRORS)->capacity = size; break;
	case SYNTH_ENTRY_TOO_SMALL: launches->entry_size = 64; break;
	case SYNTH_BAD_REFS: {
		for (int i = 0; i < 2 && (uint32_t)i < s->launches; i++) {
			struct ci_launch *l = (struct ci_launch *)(void *)ENTRY(buf, launches, i % launches->capacity);
			l->stream = 77;
		}
		struct layout_sec *fn = find(secs, CI_SEC_FUNCTIONS);
		((struct ci_function *)(void *)ENTRY(buf, fn, 3))->name_str = 1u << 30;
		break;
	}
	case SYNTH_BAD_STACK: {
		struct layout_sec *st = find(secs, CI_SEC_STACKS);
		((struct ci_stack *)(void *)ENTRY(buf, st, 1))->frames_offset = 1000;
		break;
	}
	case SYNTH_UNTERMINATED: {
		struct layout_sec *st = find(secs, CI_SEC_STRINGS);
		memset(buf + st->offset, 'A', st->capacity);
		st->head = st->capacity;
		break;
	}
	case SYNTH_BIDI: {
		/* "kernel_0" becomes "kern" U+202E "l_0": one byte more, over the NUL's neighbour. */
		struct layout_sec *fn = find(secs, CI_SEC_FUNCTIONS);
		uint32_t off = ((struct ci_function *)(void *)ENTRY(buf, fn, 0))->name_str;
		memcpy(buf + find(secs, CI_SEC_STRINGS)->offset + off, "kern\xe2\x80\xae", 7);
		break;
	}
	case SYNTH_SHELL_NAME: {
		struct layout_sec *fn = find(secs, CI_SEC_FUNCTIONS);
		((struct ci_function *)(void *)ENTRY(buf, fn, 3))->name_str =
			add_string(buf, strs, "k$(touch pwned)'x");
		break;
	}
	case SYNTH_MARKUP_NAME: {
		struct layout_sec *fn = find(secs, CI_SEC_FUNCTIONS);
		((struct ci_function *)(void *)ENTRY(buf, fn, 3))->name_str =
			add_string(buf, strs, "k\"<&>'\xe2\x80\xae\x01\x1b[31m\x7fx");
		break;
	}
	case SYNTH_SEQ_MISMATCH:
		if (s->launches)
			put_seq(ENTRY(buf, launches, (s->launches - 1) % launches->capacity),
				s->launches + 1 + launches->capacity);
		break;
	default: break;
	}

	memcpy(buf, &h, sizeof h);
	/* The directory. */
	uint32_t n = 0;
	if (s->kernel_log_len)
		memcpy(buf + find(secs, CI_SEC_KERNEL_LOG)->offset, s->kernel_log, s->kernel_log_len);
	for (int i = 0; i < nsec(s); i++, n++) {
		struct ci_section d = { .kind = secs[i].kind, .entry_size = secs[i].entry_size,
					.offset = secs[i].offset, .capacity = secs[i].capacity,
					.head = secs[i].head };
		if (d.kind == CI_SEC_LAUNCHES && s->torn_launches)
			d.torn = 0;
		if (d.kind == CI_SEC_LAUNCHES && s->damage == SYNTH_LATE_HEAD && d.head >= 2)
			d.head -= 2;
		memcpy(buf + 512 + n * 64, &d, sizeof d);
	}
	if (s->damage == SYNTH_DUP_SECTION || s->damage == SYNTH_UNKNOWN_SECTION) {
		struct ci_section d = { .kind = s->damage == SYNTH_DUP_SECTION ? CI_SEC_LAUNCHES : 30,
					.entry_size = 8, .offset = find(secs, CI_SEC_SYMBOL_IMAGE)->offset,
					.capacity = 1, .head = 1 };
		memcpy(buf + 512 + n * 64, &d, sizeof d);
		n++;
	}
	struct ci_header *hp = (struct ci_header *)(void *)buf;
	hp->section_count = n;
}

static const struct { const char *name; enum synth_damage damage; } damages[] = {
	{ "none", SYNTH_OK }, { "magic", SYNTH_BAD_MAGIC }, { "header-size", SYNTH_BAD_HEADER_SIZE },
	{ "dir", SYNTH_BAD_DIR }, { "misaligned", SYNTH_SECTION_MISALIGNED },
	{ "overlap", SYNTH_SECTION_OVERLAP }, { "past-end", SYNTH_SECTION_PAST_END },
	{ "entry-size", SYNTH_ENTRY_TOO_SMALL }, { "refs", SYNTH_BAD_REFS },
	{ "stack", SYNTH_BAD_STACK }, { "seq", SYNTH_SEQ_MISMATCH }, { "dup", SYNTH_DUP_SECTION },
	{ "unknown-section", SYNTH_UNKNOWN_SECTION }, { "late-head", SYNTH_LATE_HEAD },
	{ "no-magic", SYNTH_NO_MAGIC }, { "unterminated", SYNTH_UNTERMINATED }, { "bidi", SYNTH_BIDI },
	{ "shell-name", SYNTH_SHELL_NAME }, { "markup-name", SYNTH_MARKUP_NAME },
};

int synth_parse_option(struct synth_spec *s, const char *arg)
{
	static const struct { const char *name; size_t off; int bits; } nums[] = {
#define NUM(n, f, b) { n, offsetof(struct synth_spec, f), b }
		NUM("--major=", major, 16), NUM("--minor=", minor, 16), NUM("--pid=", pid, 32),
		NUM("--launches=", launches, 32), NUM("--launch-cap=", launch_cap, 32),
		NUM("--allocs=", allocs, 32), NUM("--alloc-cap=", alloc_cap, 32),
		NUM("--frees=", frees, 32), NUM("--free-cap=", free_cap, 32),
		NUM("--errors=", errors, 32), NUM("--events=", events, 32), NUM("--event-cap=", event_cap, 32),
		NUM("--torn=", torn_launches, 32), NUM("--entry-pad=", entry_pad, 32),
		NUM("--origin=", origin, 32), NUM("--state=", state, 32), NUM("--flags=", flags, 32),
		NUM("--launch-times=", launch_times, 32), NUM("--alloc-twins=", alloc_twins, 32),
		NUM("--alloc-id-step=", alloc_id_step, 32),
		NUM("--base=", record_base, 64),
#undef NUM
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		size_t n = strlen(nums[i].name);
		if (strncmp(arg, nums[i].name, n) != 0)
			continue;
		unsigned long long v = strtoull(arg + n, NULL, 0);
		void *p = (char *)s + nums[i].off;
		if (nums[i].bits == 16)
			*(uint16_t *)p = (uint16_t)v;
		else if (nums[i].bits == 32)
			*(uint32_t *)p = (uint32_t)v;
		else
			*(uint64_t *)p = v;
		return 1;
	}
	if (strncmp(arg, "--damage=", 9) == 0) {
		for (size_t i = 0; i < sizeof damages / sizeof damages[0]; i++)
			if (strcmp(arg + 9, damages[i].name) == 0) {
				s->damage = damages[i].damage;
				return 1;
			}
		fprintf(stderr, "unknown damage %s\n", arg + 9);
		exit(2);
	}
	return 0;
}

const char *synth_options_help(void)
{
	return "  --major=N --minor=N --pid=N --base=ADDR --origin=N --state=N --flags=N\n"
	       "  --launches=N --launch-cap=N --allocs=N --alloc-cap=N --frees=N --free-cap=N\n"
	       "  --errors=N --events=N --event-cap=N --torn=N --entry-pad=N\n"
	       "  --launch-times=0|1|2 (seq, chunked, random) --alloc-twins=1\n"
	       "  --alloc-id-step=P (allocation i gets id i * P mod allocs + 1; P prime to allocs)\n"
	       "  --damage=none|magic|header-size|dir|misaligned|overlap|past-end|entry-size|refs|\n"
	       "           stack|seq|dup|unknown-section|late-head|no-magic\n";
}
