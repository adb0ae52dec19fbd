/* SPDX-License-Identifier: MIT */
/*
 * Stage 3, decode: validate the flight record and copy what can be trusted into a struct
 * ci_model.  The record is untrusted input.  The header and the section directory must be sound
 * (else CI_ERR_CORRUPT, or CI_ERR_VERSION for an unknown major); below that everything degrades
 * entry by entry: an entry is accepted only when it is complete under the publishing rules of
 * record.h, and every reference between entries (slots, strings, stacks, frames) is checked and
 * cleared when it points nowhere.  Each section's struct ci_section_stats says honestly what was
 * accepted, torn, invalid, overwritten, dropped or missing.  Live sources (a running process, a
 * persistent file still being written) are read seqlock-style: seq, payload, seq again.
 */
#include <stdio.h>

#include "reader-internal.h"

/* How a section's entries are laid out (record.h). */
enum layout {
	LAYOUT_TABLE,     /* append-only: slot i holds seq i + 1 */
	LAYOUT_RING,      /* slot (seq - 1) % capacity, several laps */
	LAYOUT_ALLOCS,    /* open-addressed by address, seq = allocation id */
	LAYOUT_BYTES,     /* byte or word area without seq */
};

struct section_kind {
	const char *name;         /* for messages */
	enum layout layout;
	uint32_t size;            /* bytes this reader knows (minimum entry_size) */
	uint32_t fixed_size;      /* byte areas: required entry_size (0 = any >= size) */
};

static const struct section_kind kinds[CI_SECTION_KIND_MAX] = {
	[CI_SEC_HOST_MODULES] = { "host modules", LAYOUT_TABLE, sizeof(struct ci_host_module), 0 },
	[CI_SEC_DEVICES] = { "devices", LAYOUT_TABLE, sizeof(struct ci_device), 0 },
	[CI_SEC_CONTEXTS] = { "contexts", LAYOUT_TABLE, sizeof(struct ci_context), 0 },
	[CI_SEC_STREAMS] = { "streams", LAYOUT_TABLE, sizeof(struct ci_stream), 0 },
	[CI_SEC_CODE_MODULES] = { "code modules", LAYOUT_TABLE, sizeof(struct ci_code_module), 0 },
	[CI_SEC_FUNCTIONS] = { "functions", LAYOUT_TABLE, sizeof(struct ci_function), 0 },
	[CI_SEC_LAUNCHES] = { "launches", LAYOUT_RING, sizeof(struct ci_launch), 0 },
	[CI_SEC_ALLOCS] = { "allocations", LAYOUT_ALLOCS, sizeof(struct ci_alloc), 0 },
	[CI_SEC_FREES] = { "frees", LAYOUT_RING, sizeof(struct ci_alloc), 0 },
	[CI_SEC_ERRORS] = { "API errors", LAYOUT_RING, sizeof(struct ci_api_error), 0 },
	[CI_SEC_EVENTS] = { "events", LAYOUT_RING, sizeof(struct ci_event), 0 },
	[CI_SEC_STACKS] = { "stacks", LAYOUT_TABLE, sizeof(struct ci_stack), 0 },
	[CI_SEC_FRAMES] = { "frames", LAYOUT_BYTES, 8, 8 },
	[CI_SEC_STRINGS] = { "strings", LAYOUT_BYTES, 1, 1 },
	[CI_SEC_BREADCRUMBS] = { "breadcrumbs", LAYOUT_BYTES, 4, 0 },
	[CI_SEC_THREADS] = { "threads", LAYOUT_TABLE, sizeof(struct ci_thread), 0 },
	[CI_SEC_SYMBOL_IMAGE] = { "symbol image", LAYOUT_BYTES, 1, 1 },
};

/* Entry states while reading. */
enum { ENTRY_OK = 0, ENTRY_MISSING = 1, ENTRY_TORN = 2 };

struct decoder {
	struct ci_source *src;
	struct ci_model *m;
	uint64_t base;
	bool live;
	struct ci_section secs[CI_SECTION_KIND_MAX];
	bool usable[CI_SECTION_KIND_MAX];
	uint64_t dir_entry_addr[CI_SECTION_KIND_MAX]; /* for re-reading head on live sources */
	uint64_t bad_refs[CI_SECTION_KIND_MAX];   /* point nowhere: damage */
	uint64_t unresolved[CI_SECTION_KIND_MAX]; /* point into a part the input lacks */
};

bool ci_header_plausible(const struct ci_header *h, const char **why)
{
	uint64_t dir_size, dir_end;
	if (memcmp(h->magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) != 0)
		*why = "the record magic is missing";
	else if (h->major != CI_FORMAT_MAJOR)
		/* Another major may lay out everything differently: the version is all we judge. */
		return h->major != 0 && h->major < 1000 ? true : (*why = "the format version is 0 or absurd", false);
	else if (h->header_size < sizeof(struct ci_header) || h->header_size > CI_MAX_HEADER_SIZE)
		*why = "the header size is impossible";
	else if (h->page_size < 4096 || h->page_size > (1u << 30) || (h->page_size & (h->page_size - 1)))
		*why = "the page size is not a power of two between 4 KiB and 1 GiB";
	else if (h->record_size < h->header_size || h->record_size > CI_MAX_RECORD_SIZE ||
		 h->record_size % h->page_size)
		*why = "the record size is impossible (too small, too large, or not a multiple of the page size)";
	else if (h->section_count > CI_MAX_SECTIONS)
		*why = "the section directory has too many entries";
	else if (h->section_entry_size < sizeof(struct ci_section) || h->section_entry_size > CI_MAX_ENTRY_SIZE)
		*why = "the section directory entry size is impossible";
	else if (!ci_mul(h->section_count, h->section_entry_size, &dir_size) ||
		 !ci_add(h->section_dir_offset, dir_size, &dir_end) ||
		 h->section_dir_offset < h->header_size || dir_end > h->record_size)
		*why = "the section directory lies outside the record or over the header";
	else
		return true;
	return false;
}

/* Copy of a fixed char field, NUL-terminated in place. */
#define TERMINATE(field) ((field)[sizeof(field) - 1] = 0)

/* Text from the record for a message: printable ASCII only. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

/* ---------------------------------------------------------------------------------------- */
/* Reading entries                                                                            */

/* Read CNT entries of ESIZE bytes at A into BUF: in one go, else entry by entry.  An entry that
 * cannot be read is zeroed and marked ENTRY_MISSING in ST, or, on the seq passes of a live read
 * (ST NULL), gets the seq FILL, which no payload matches. */
static void read_chunk(struct ci_source *src, uint64_t a, uint64_t cnt, uint32_t esize, uint8_t *buf,
		       uint8_t *st, uint8_t fill)
{
	struct ci_error *err = ci_source_read(src, a, buf, cnt * esize);
	if (!err)
		return;
	ci_error_destroy(err);
	for (uint64_t i = 0; i < cnt; i++) {
		err = ci_source_read(src, a + i * esize, buf + i * esize, esize);
		if (!err)
			continue;
		ci_error_destroy(err);
		memset(buf + i * esize, fill, st ? esize : 8);
		if (st)
			st[i] = ENTRY_MISSING;
	}
}

/* Read N entries of ESIZE bytes at ADDR into OUT, marking each in ST.  Entries the input does
 * not hold are ENTRY_MISSING (zeroed).  On live sources every chunk is read three times, seq,
 * payload, seq (a seqlock read): entries whose seq changed meanwhile are ENTRY_TORN. */
static struct ci_error *read_entries(struct decoder *d, uint64_t addr, uint64_t n, uint32_t esize,
				     uint8_t *out, uint8_t *st)
{
	uint64_t per_chunk = (256u << 10) / esize;
	if (per_chunk == 0)
		per_chunk = 1;
	_cleanup_free_ uint64_t *seq1 = NULL;
	_cleanup_free_ uint8_t *again = NULL;
	if (d->live) {
		seq1 = malloc(per_chunk * sizeof *seq1);
		again = malloc(per_chunk * esize);
		if (!seq1 || !again)
			return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record");
	}
	for (uint64_t first = 0; first < n; first += per_chunk) {
		uint64_t cnt = n - first < per_chunk ? n - first : per_chunk;
		uint64_t a = addr + first * esize;
		uint8_t *o = out + first * esize;
		uint8_t *s = st + first;
		if (d->live) {
			read_chunk(d->src, a, cnt, esize, again, NULL, 0xff);
			for (uint64_t i = 0; i < cnt; i++)
				seq1[i] = ci_le64(again + i * esize);
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		}
		memset(s, ENTRY_OK, cnt);
		read_chunk(d->src, a, cnt, esize, o, s, 0);
		if (!d->live)
			continue;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		read_chunk(d->src, a, cnt, esize, again, NULL, 0xfe);
		for (uint64_t i = 0; i < cnt; i++) {
			uint64_t s0 = seq1[i], sp = ci_le64(o + i * esize), s2 = ci_le64(again + i * esize);
			if (s[i] == ENTRY_OK && (s0 != sp || sp != s2))
				s[i] = ENTRY_TORN;
		}
	}
	return NULL;
}

/* Re-read a live section's head after its entries, so entries published meanwhile pass the
 * seq <= head check. */
static void refresh_head(struct decoder *d, uint32_t kind)
{
	if (!d->live)
		return;
	struct ci_section sec;
	struct ci_error *err = ci_source_read(d->src, d->dir_entry_addr[kind], &sec, sizeof sec);
	if (err) {
		ci_error_destroy(err);
		return;
	}
	if (sec.kind == kind && sec.head >= d->secs[kind].head) {
		d->secs[kind].head = sec.head;
		d->m->sections[kind].head = sec.head;
		d->secs[kind].dropped = sec.dropped;
		d->m->sections[kind].dropped = sec.dropped;
	}
}

/* Decode a section of seq-carrying entries into an array of OUT_SIZE-byte structs.  Tables come
 * back indexed by slot (invalid slots zeroed, *count = highest accepted slot + 1); rings and the
 * allocation table come back as accepted entries only. */
static struct ci_error *decode_entries(struct decoder *d, uint32_t kind, void **ret, size_t *count)
{
	*ret = NULL;
	*count = 0;
	if (!d->usable[kind])
		return NULL;
	const struct ci_section *sec = &d->secs[kind];
	struct ci_section_stats *stats = &d->m->sections[kind];
	size_t out_size = kinds[kind].size;
	enum layout layout = kinds[kind].layout;
	uint64_t cap = sec->capacity;
	/* Read only what the input holds: a hostile capacity then costs nothing, and the tail a
	 * truncated core lost is counted as missing.  Slot numbers stay those of the record. */
	uint64_t have = ci_source_available(d->src, d->base + sec->offset, cap * sec->entry_size) /
			sec->entry_size;
	stats->missing += cap - have;
	if (have == 0)
		return NULL;
	_cleanup_free_ uint8_t *raw = malloc(have * sec->entry_size);
	_cleanup_free_ uint8_t *st = malloc(have);
	uint8_t *out = calloc(have, out_size);
	if (!raw || !st || !out) {
		free(out);
		return ci_error_create(CI_ERR_NOMEM,
				       "out of memory decoding %llu %s of the record",
				       (unsigned long long)cap, kinds[kind].name);
	}
	struct ci_error *err = read_entries(d, d->base + sec->offset, have, sec->entry_size, raw, st);
	if (err) {
		free(out);
		return err;
	}
	refresh_head(d, kind);
	uint64_t head = d->secs[kind].head;
	size_t kept = 0, last_slot = 0;
	for (uint64_t i = 0; i < have; i++) {
		const uint8_t *e = raw + i * sec->entry_size;
		uint64_t seq = ci_le64(e);
		if (st[i] == ENTRY_MISSING) {
			stats->missing++;
			continue;
		}
		if (st[i] == ENTRY_TORN || seq == CI_SEQ_BUSY) {
			stats->torn++;
			continue;
		}
		if (seq == 0)
			continue;
		bool valid;
		if (layout == LAYOUT_ALLOCS) {
			struct ci_alloc a;
			memcpy(&a, e, sizeof a);
			if (a.state == CI_ALLOC_EMPTY || a.state == CI_ALLOC_TOMB)
				continue;
			if (a.state == CI_ALLOC_FREEING) {
				stats->torn++; /* between the table and the free ring */
				continue;
			}
			uint64_t home = ci_alloc_hash(a.address) % cap, end;
			uint64_t dist = (i + cap - home) % cap;
			valid = a.state == CI_ALLOC_LIVE && a.id == seq && dist < CI_ALLOC_PROBE_MAX &&
				ci_add(a.address, a.size, &end);
		} else {
			bool in_slot = (seq - 1) % cap == i && (layout != LAYOUT_TABLE || seq - 1 == i);
			/* Published after `head` was copied (a snapshot taken while other threads ran):
			 * whole, probably, but outside what record.h lets a reader trust. */
			if (in_slot && seq > head && seq - head <= cap) {
				stats->torn++;
				continue;
			}
			valid = in_slot && seq <= head;
		}
		if (!valid) {
			stats->invalid++;
			continue;
		}
		stats->accepted++;
		if (layout == LAYOUT_TABLE) {
			memcpy(out + i * out_size, e, out_size);
			last_slot = i + 1;
		} else {
			memcpy(out + kept * out_size, e, out_size);
			kept++;
		}
	}
	if (layout == LAYOUT_RING && head > cap)
		stats->overwritten = head - cap;
	*count = layout == LAYOUT_TABLE ? last_slot : kept;
	if (*count == 0) {
		free(out);
		out = NULL;
	}
	*ret = out;
	return NULL;
}

/* Byte and word areas: strings, frames, breadcrumbs.  Units past what the input holds read as
 * zeros and are counted as missing. */
static struct ci_error *decode_area(struct decoder *d, uint32_t kind, uint64_t *unitsp, void **ret)
{
	*ret = NULL;
	uint64_t units = *unitsp;
	if (d->usable[kind] && units) {
		/* Past what the input holds nothing is read (see decode_entries). */
		const struct ci_section *s = &d->secs[kind];
		uint64_t have = ci_source_available(d->src, d->base + s->offset, units * s->entry_size) /
				s->entry_size;
		d->m->sections[kind].missing += units - have;
		*unitsp = units = have;
	}
	if (!d->usable[kind] || units == 0) {
		*unitsp = 0;
		*ret = calloc(1, 8);
		return *ret ? NULL : ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record");
	}
	const struct ci_section *sec = &d->secs[kind];
	struct ci_section_stats *stats = &d->m->sections[kind];
	uint8_t *raw = calloc(units, sec->entry_size);
	if (!raw)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's %s", kinds[kind].name);
	/* Read in page-sized pieces so that a partly captured area keeps what is there. */
	uint32_t unit = sec->entry_size;
	uint64_t piece = 4096 / unit ? 4096 / unit : 1;
	for (uint64_t i = 0; i < units; i += piece) {
		uint64_t n = units - i < piece ? units - i : piece;
		struct ci_error *err = ci_source_read(d->src, d->base + sec->offset + i * unit,
						      raw + i * unit, n * unit);
		if (err) {
			ci_error_destroy(err);
			memset(raw + i * unit, 0, n * unit);
			stats->missing += n;
		} else {
			stats->accepted += n;
		}
	}
	*ret = raw;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* References                                                                                 */

static bool slot_ok(const void *table, size_t count, size_t size, uint32_t slot)
{
	return slot < count && ci_le64((const uint8_t *)table + (size_t)slot * size) != 0;
}

/* Count a reference of a KIND entry that TARGET cannot resolve: damage, unless part of TARGET
 * is simply not in the input. */
static void bad_ref(struct decoder *d, uint32_t kind, uint32_t target)
{
	if (d->m->sections[target].missing)
		d->unresolved[kind]++;
	else
		d->bad_refs[kind]++;
}

/* Clear a slot reference to CI_NONE unless it names an accepted entry of TARGET. */
#define CHECK_SLOT(d, kind, field, target, table, count)                                    \
	do {                                                                                 \
		if ((field) != CI_NONE && !slot_ok((table), (count), sizeof *(table), (field))) { \
			(field) = CI_NONE;                                                   \
			bad_ref((d), (kind), (target));                                      \
		}                                                                            \
	} while (0)

static void check_string(struct decoder *d, uint32_t kind, uint32_t *off)
{
	if (*off >= d->m->strings_size) {
		*off = 0;
		bad_ref(d, kind, CI_SEC_STRINGS);
	}
}

static void check_stack(struct decoder *d, uint32_t kind, uint32_t *id)
{
	if (*id != 0 && (*id > d->m->stack_count || d->m->stacks[*id - 1].seq == 0)) {
		*id = 0;
		bad_ref(d, kind, CI_SEC_STACKS);
	}
}

#define M (d->m)
#define CHECK_CTX(kind, f) CHECK_SLOT(d, kind, f, CI_SEC_CONTEXTS, M->contexts, M->context_count)
#define CHECK_STREAM(kind, f) CHECK_SLOT(d, kind, f, CI_SEC_STREAMS, M->streams, M->stream_count)

static void check_references(struct decoder *d)
{
	struct ci_model *m = d->m;
	/* Stacks first: everything else refers to them. */
	for (size_t i = 0; i < m->stack_count; i++) {
		struct ci_stack *s = &m->stacks[i];
		uint64_t end = 0;
		if (s->seq && (s->nframes > CI_MAX_STACK_FRAMES ||
			       !ci_add(s->frames_offset, s->nframes, &end) || end > m->frame_count)) {
			s->seq = 0;
			m->sections[CI_SEC_STACKS].accepted--;
			/* Frames the input lacks are missing, not damage. */
			bool lost = m->sections[CI_SEC_FRAMES].missing && s->nframes <= CI_MAX_STACK_FRAMES &&
				    end <= d->secs[CI_SEC_FRAMES].capacity;
			if (lost)
				m->sections[CI_SEC_STACKS].missing++;
			else
				m->sections[CI_SEC_STACKS].invalid++;
		}
	}
	check_string(d, 0, &m->header.exe_str);
	check_string(d, 0, &m->header.cmdline_str);
	for (size_t i = 0; i < m->host_module_count; i++) {
		struct ci_host_module *h = &m->host_modules[i];
		check_string(d, CI_SEC_HOST_MODULES, &h->path_str);
		if (h->build_id_len > sizeof h->build_id) {
			h->build_id_len = 0;
			d->bad_refs[CI_SEC_HOST_MODULES]++;
		}
	}
	for (size_t i = 0; i < m->device_count; i++) {
		TERMINATE(m->devices[i].name);
		TERMINATE(m->devices[i].pci_bus_id);
	}
	for (size_t i = 0; i < m->context_count; i++) {
		struct ci_context *c = &m->contexts[i];
		CHECK_SLOT(d, CI_SEC_CONTEXTS, c->device, CI_SEC_DEVICES, m->devices, m->device_count);
		check_stack(d, CI_SEC_CONTEXTS, &c->create_stack);
	}
	for (size_t i = 0; i < m->stream_count; i++) {
		struct ci_stream *s = &m->streams[i];
		CHECK_CTX(CI_SEC_STREAMS, s->ctx);
		if (s->crumb_slot != CI_NONE && s->crumb_slot >= m->crumb_count) {
			s->crumb_slot = CI_NONE;
			d->bad_refs[CI_SEC_STREAMS]++;
		}
		check_stack(d, CI_SEC_STREAMS, &s->create_stack);
	}
	for (size_t i = 0; i < m->code_module_count; i++) {
		struct ci_code_module *c = &m->code_modules[i];
		CHECK_CTX(CI_SEC_CODE_MODULES, c->ctx);
		check_string(d, CI_SEC_CODE_MODULES, &c->source_str);
		check_stack(d, CI_SEC_CODE_MODULES, &c->load_stack);
	}
	for (size_t i = 0; i < m->function_count; i++) {
		struct ci_function *f = &m->functions[i];
		CHECK_SLOT(d, CI_SEC_FUNCTIONS, f->code_module, CI_SEC_CODE_MODULES, m->code_modules, m->code_module_count);
		check_string(d, CI_SEC_FUNCTIONS, &f->name_str);
		if (f->nparams > CI_PARAMS_MAX && f->params_known) {
			f->params_known = 0; /* the layout cannot describe more than CI_PARAMS_MAX */
			d->bad_refs[CI_SEC_FUNCTIONS]++;
		}
		f->params_known = f->params_known ? 1 : 0;
	}
	for (size_t i = 0; i < m->thread_count; i++)
		TERMINATE(m->threads[i].name);
	for (size_t i = 0; i < m->launch_count; i++) {
		struct ci_launch *l = &m->launches[i];
		CHECK_SLOT(d, CI_SEC_LAUNCHES, l->function, CI_SEC_FUNCTIONS, m->functions, m->function_count);
		CHECK_STREAM(CI_SEC_LAUNCHES, l->stream);
		CHECK_CTX(CI_SEC_LAUNCHES, l->ctx);
		check_stack(d, CI_SEC_LAUNCHES, &l->stack);
		if (l->param_len > CI_LAUNCH_PARAM_BYTES) {
			l->param_len = CI_LAUNCH_PARAM_BYTES;
			d->bad_refs[CI_SEC_LAUNCHES]++;
		}
	}
	struct { struct ci_alloc *a; size_t n; uint32_t kind; } allocs[] = {
		{ m->allocs, m->alloc_count, CI_SEC_ALLOCS }, { m->frees, m->free_count, CI_SEC_FREES },
	};
	for (size_t t = 0; t < 2; t++) {
		for (size_t i = 0; i < allocs[t].n; i++) {
			struct ci_alloc *a = &allocs[t].a[i];
			uint32_t k = allocs[t].kind;
			CHECK_CTX(k, a->ctx);
			CHECK_STREAM(k, a->stream);
			CHECK_STREAM(k, a->free_stream);
			check_stack(d, k, &a->stack);
			check_stack(d, k, &a->free_stack);
		}
	}
	for (size_t i = 0; i < m->error_count; i++) {
		struct ci_api_error *e = &m->errors[i];
		CHECK_CTX(CI_SEC_ERRORS, e->ctx);
		CHECK_STREAM(CI_SEC_ERRORS, e->stream);
		check_stack(d, CI_SEC_ERRORS, &e->stack);
		TERMINATE(e->api);
		TERMINATE(e->args);
	}
	for (size_t i = 0; i < m->event_count; i++) {
		struct ci_event *e = &m->events[i];
		CHECK_CTX(CI_SEC_EVENTS, e->ctx);
		CHECK_STREAM(CI_SEC_EVENTS, e->stream);
		check_stack(d, CI_SEC_EVENTS, &e->stack);
	}
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++) {
		const char *what = k ? kinds[k].name : "header";
		if (d->bad_refs[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s to entries, strings or stacks that do not exist %s "
					"cleared (the record is damaged)", what, (unsigned long long)d->bad_refs[k],
					d->bad_refs[k] == 1 ? "" : "s", d->bad_refs[k] == 1 ? "was" : "were");
		if (d->unresolved[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s into parts of the record that the input lacks %s "
					"cleared", what, (unsigned long long)d->unresolved[k],
					d->unresolved[k] == 1 ? "" : "s", d->unresolved[k] == 1 ? "was" : "were");
	}
}
#undef M

/* ---------------------------------------------------------------------------------------- */
/* Sorting                                                                                    */

#define TIME_SEQ_CMP(name, type)                                                             \
	static int name(const void *a, const void *b)                                        \
	{                                                                                    \
		const type *x = a, *y = b;                                                   \
		if (x->time_ns != y->time_ns)                                                \
			return x->time_ns < y->time_ns ? -1 : 1;                             \
		return x->seq < y->seq ? -1 : x->seq > y->seq;                               \
	}
TIME_SEQ_CMP(launch_cmp, struct ci_launch)
TIME_SEQ_CMP(error_cmp, struct ci_api_error)
TIME_SEQ_CMP(event_cmp, struct ci_event)

static int free_cmp(const void *a, const void *b)
{
	const struct ci_alloc *x = a, *y = b;
	if (x->free_ns != y->free_ns)
		return x->free_ns < y->free_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int alloc_addr_cmp(const void *a, const void *b)
{
	const struct ci_alloc *x = a, *y = b;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* ---------------------------------------------------------------------------------------- */
/* Header and directory                                                                       */

static struct ci_error *decode_header(struct decoder *d, const struct ci_location *loc)
{
	struct ci_model *m = d->m;
	struct ci_source *src = d->src;
	struct ci_header *h = &m->header;
	uint64_t avail = ci_source_available(src, loc->address, sizeof *h);
	if (avail < 16) {
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: only %llu bytes of the flight record at 0x%llx are in the input; "
				       "not even its header can be read", src->name,
				       (unsigned long long)avail, (unsigned long long)loc->address);
	}
	/* A short header is zero-padded so the version can still be judged first. */
	memset(h, 0, sizeof *h);
	struct ci_error *err = ci_source_read(src, loc->address, h, avail);
	if (err)
		return err;
	if (memcmp(h->magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) != 0)
		return ci_error_create(CI_ERR_CORRUPT, "%s: there is no flight record at 0x%llx (no magic)",
				       src->name, (unsigned long long)loc->address);
	TERMINATE(h->host);
	TERMINATE(h->recorder_version);
	sanitize(h->host);
	sanitize(h->recorder_version);
	if (h->major != CI_FORMAT_MAJOR)
		return ci_error_create(CI_ERR_VERSION,
				       "%s: the flight record at 0x%llx uses format version %u.%u, but this "
				       "cudainspect (%s) reads version %u.x only%s%s%s. Use a cudainspect at "
				       "least as new as the recorder that wrote it",
				       src->name, (unsigned long long)loc->address, h->major, h->minor,
				       CUDAINSPECT_VERSION, CI_FORMAT_MAJOR,
				       avail >= sizeof *h && *h->recorder_version ? " (it was written by recorder " : "",
				       avail >= sizeof *h ? h->recorder_version : "",
				       avail >= sizeof *h && *h->recorder_version ? ")" : "");
	if (avail < sizeof *h)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: only %llu of the %zu header bytes of the flight record at 0x%llx are "
				       "in the input (truncated core?)", src->name, (unsigned long long)avail,
				       sizeof *h, (unsigned long long)loc->address);
	const char *why = NULL;
	if (!ci_header_plausible(h, &why))
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: the flight record header at 0x%llx is corrupt: %s. Nothing in it "
				       "can be trusted", src->name, (unsigned long long)loc->address, why);
	if (h->minor > CI_FORMAT_MINOR)
		ci_warnings_add(&m->warnings,
				"the record was written by a newer recorder (format %u.%u, this reader knows "
				"%u.%u); what this reader does not know is ignored",
				h->major, h->minor, CI_FORMAT_MAJOR, CI_FORMAT_MINOR);
	uint64_t have = ci_source_available(src, loc->address, h->record_size);
	if (have < h->record_size) {
		char a[32], b[32];
		ci_warnings_add(&m->warnings,
				"only %s of the record's %s are in the input (%s); entries in the missing part "
				"are counted as missing, not trusted",
				ci_format_size(have, a, sizeof a), ci_format_size(h->record_size, b, sizeof b),
				src->info.kind == CI_SOURCE_RECORD ? "the file is shorter than the record"
				: src->info.truncated           ? "the core is truncated"
								 : "pages not captured");
	}
	return NULL;
}

static struct ci_error *decode_directory(struct decoder *d)
{
	struct ci_model *m = d->m;
	const struct ci_header *h = &m->header;
	uint64_t dir_size = (uint64_t)h->section_count * h->section_entry_size;
	_cleanup_free_ uint8_t *dir = malloc(dir_size ? dir_size : 1);
	if (!dir)
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading the section directory");
	struct ci_error *err = ci_source_read(d->src, d->base + h->section_dir_offset, dir, dir_size);
	if (err) {
		ci_error_destroy(err);
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: the flight record's section directory (offset 0x%llx, %llu bytes) is "
				       "not in the input, so none of its sections can be found",
				       d->src->name, (unsigned long long)h->section_dir_offset,
				       (unsigned long long)dir_size);
	}
	uint64_t dir_end = h->section_dir_offset + dir_size;
	for (uint32_t i = 0; i < h->section_count; i++) {
		struct ci_section sec;
		memcpy(&sec, dir + (size_t)i * h->section_entry_size, sizeof sec);
		uint32_t k = sec.kind;
		if (k == 0 || k >= CI_SECTION_KIND_MAX || !kinds[k].name)
			continue; /* a section of a newer minor: ignored by the versioning rules */
		struct ci_section_stats *stats = &m->sections[k];
		if (stats->present) {
			ci_warnings_add(&m->warnings, "the record lists the %s section twice; the second "
					"(directory entry %u) is ignored", kinds[k].name, i);
			continue;
		}
		*stats = (struct ci_section_stats){
			.kind = k, .present = true, .capacity = sec.capacity, .head = sec.head,
			.dropped = sec.dropped,
		};
		d->secs[k] = sec;
		d->dir_entry_addr[k] = d->base + h->section_dir_offset + (uint64_t)i * h->section_entry_size;
		const char *why = NULL;
		uint64_t size, end;
		const struct section_kind *sk = &kinds[k];
		if (sk->fixed_size ? sec.entry_size != sk->fixed_size
				   : sec.entry_size < sk->size || sec.entry_size > CI_MAX_ENTRY_SIZE ||
					     sec.entry_size % (sk->layout == LAYOUT_BYTES ? 4 : 8))
			why = "its entry size is wrong";
		else if (k == CI_SEC_BREADCRUMBS && sec.entry_size != 4 && sec.entry_size != 8)
			why = "breadcrumbs must be 4 or 8 bytes wide";
		else if (sec.offset % CI_SECTION_ALIGN)
			why = "its offset is not 64-byte aligned";
		else if (!ci_mul(sec.capacity, sec.entry_size, &size) || !ci_add(sec.offset, size, &end) ||
			 end > h->record_size)
			why = "it extends past the end of the record";
		else if (size && (sec.offset < h->header_size ||
				  (sec.offset < dir_end && end > h->section_dir_offset)))
			why = "it overlaps the header or the section directory";
		if (why) {
			ci_warnings_add(&m->warnings,
					"the record's %s section (directory entry %u: offset 0x%llx, %llu entries "
					"of %u bytes) is unusable: %s; none of its entries are used",
					sk->name, i, (unsigned long long)sec.offset,
					(unsigned long long)sec.capacity, sec.entry_size, why);
			stats->invalid = sec.capacity;
			continue;
		}
		d->usable[k] = true;
	}
	/* Sections must not overlap each other: the later one (by offset) loses. */
	for (uint32_t a = 1; a < CI_SECTION_KIND_MAX; a++) {
		for (uint32_t b = 1; b < CI_SECTION_KIND_MAX; b++) {
			if (a == b || !d->usable[a] || !d->usable[b])
				continue;
			const struct ci_section *x = &d->secs[a], *y = &d->secs[b];
			uint64_t xe = x->offset + x->capacity * x->entry_size;
			uint64_t ye = y->offset + y->capacity * y->entry_size;
			if (x->offset == xe || y->offset == ye)
				continue;
			if (x->offset <= y->offset && y->offset < xe) {
				uint32_t loser = (x->offset < y->offset || a < b) ? b : a;
				ci_warnings_add(&m->warnings,
						"the record's %s and %s sections overlap; the %s section is not used",
						kinds[a].name, kinds[b].name, kinds[loser].name);
				d->usable[loser] = false;
				m->sections[loser].invalid = d->secs[loser].capacity;
			}
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Driver                                                                                     */

static uint64_t area_units(const struct decoder *d, uint32_t kind, bool by_head)
{
	if (!d->usable[kind])
		return 0;
	const struct ci_section *s = &d->secs[kind];
	return by_head && s->head < s->capacity ? s->head : s->capacity;
}

static struct ci_error *decode_sections(struct decoder *d)
{
	struct ci_model *m = d->m;
	struct ci_error *err = NULL;
	void *p;

	/* Strings: the used part, always NUL-terminated. */
	uint64_t nstr = area_units(d, CI_SEC_STRINGS, true);
	if ((err = decode_area(d, CI_SEC_STRINGS, &nstr, &p)))
		return err;
	char *strings = realloc(p, nstr + 1);
	if (!strings) {
		free(p);
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's strings");
	}
	strings[nstr] = 0;
	m->strings = strings;
	m->strings_size = nstr + 1;

	uint64_t nframes = area_units(d, CI_SEC_FRAMES, true);
	if ((err = decode_area(d, CI_SEC_FRAMES, &nframes, &p)))
		return err;
	m->frames = p;
	m->frame_count = nframes;

	uint64_t ncrumbs = area_units(d, CI_SEC_BREADCRUMBS, false);
	if ((err = decode_area(d, CI_SEC_BREADCRUMBS, &ncrumbs, &p)))
		return err;
	if (d->usable[CI_SEC_BREADCRUMBS] && d->secs[CI_SEC_BREADCRUMBS].entry_size == 4) {
		/* 32-bit breadcrumbs (no 64-bit stream memory ops): widen in place from the end. */
		uint64_t *wide = realloc(p, (ncrumbs ? ncrumbs : 1) * sizeof *wide);
		if (!wide) {
			free(p);
			return ci_error_create(CI_ERR_NOMEM, "out of memory decoding breadcrumbs");
		}
		for (uint64_t i = ncrumbs; i-- > 0;) {
			uint32_t v;
			memcpy(&v, (uint8_t *)wide + i * 4, 4);
			wide[i] = v;
		}
		p = wide;
	}
	m->crumbs = p;
	m->crumb_count = ncrumbs;
	if (d->usable[CI_SEC_SYMBOL_IMAGE])
		m->sections[CI_SEC_SYMBOL_IMAGE].accepted = d->secs[CI_SEC_SYMBOL_IMAGE].head;

#define DECODE(kind, arr, cnt)                                                               \
	do {                                                                                 \
		if ((err = decode_entries(d, kind, &p, &m->cnt)))                            \
			return err;                                                          \
		m->arr = p;                                                                  \
	} while (0)
	DECODE(CI_SEC_STACKS, stacks, stack_count);
	DECODE(CI_SEC_HOST_MODULES, host_modules, host_module_count);
	DECODE(CI_SEC_DEVICES, devices, device_count);
	DECODE(CI_SEC_CONTEXTS, contexts, context_count);
	DECODE(CI_SEC_STREAMS, streams, stream_count);
	DECODE(CI_SEC_CODE_MODULES, code_modules, code_module_count);
	DECODE(CI_SEC_FUNCTIONS, functions, function_count);
	DECODE(CI_SEC_THREADS, threads, thread_count);
	DECODE(CI_SEC_LAUNCHES, launches, launch_count);
	DECODE(CI_SEC_ALLOCS, allocs, alloc_count);
	DECODE(CI_SEC_FREES, frees, free_count);
	DECODE(CI_SEC_ERRORS, errors, error_count);
	DECODE(CI_SEC_EVENTS, events, event_count);
#undef DECODE

	/* The free ring holds FREED copies only. */
	size_t kept = 0;
	for (size_t i = 0; i < m->free_count; i++) {
		if (m->frees[i].state != CI_ALLOC_FREED) {
			m->sections[CI_SEC_FREES].accepted--;
			m->sections[CI_SEC_FREES].invalid++;
			continue;
		}
		m->frees[kept++] = m->frees[i];
	}
	m->free_count = kept;

	check_references(d);
	if (m->launches)
		qsort(m->launches, m->launch_count, sizeof *m->launches, launch_cmp);
	if (m->errors)
		qsort(m->errors, m->error_count, sizeof *m->errors, error_cmp);
	if (m->events)
		qsort(m->events, m->event_count, sizeof *m->events, event_cmp);
	if (m->frees)
		qsort(m->frees, m->free_count, sizeof *m->frees, free_cmp);
	if (m->allocs)
		qsort(m->allocs, m->alloc_count, sizeof *m->allocs, alloc_addr_cmp);
	return NULL;
}

/* One warning per section that had entries it could not trust. */
static void summarize(struct decoder *d)
{
	struct ci_model *m = d->m;
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (!s->present || !d->usable[k])
			continue;
		if (s->torn)
			ci_warnings_add(&m->warnings,
					"%s: %llu entr%s being written while the record was copied (torn), not used",
					kinds[k].name, (unsigned long long)s->torn, s->torn == 1 ? "y was" : "ies were");
		if (s->invalid)
			ci_warnings_add(&m->warnings,
					"%s: %llu entr%s failed validation (damaged record), not used",
					kinds[k].name, (unsigned long long)s->invalid, s->invalid == 1 ? "y" : "ies");
	}
	/* What is missing goes on one line: a truncated core loses many sections at once. */
	char line[512] = "";
	size_t used = 0;
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX && used < sizeof line; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (s->present && d->usable[k] && s->missing)
			used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %llu", used ? ", " : "",
						 kinds[k].name, (unsigned long long)s->missing);
	}
	if (used)
		ci_warnings_add(&m->warnings,
				"not in the input, so unknown (entries; bytes for strings): %s", line);
}

/* Name the source's threads from the record's thread table where /proc or the core had none. */
static void name_source_threads(struct ci_source *src, const struct ci_model *m)
{
	struct ci_source_info *info = &src->info;
	for (size_t i = 0; i < info->thread_count; i++) {
		for (size_t j = 0; j < m->thread_count; j++) {
			const struct ci_thread *t = &m->threads[j];
			if (t->seq && t->tid == info->threads[i].tid && t->name[0] && !info->threads[i].name[0]) {
				memcpy(info->threads[i].name, t->name, sizeof info->threads[i].name);
				break;
			}
		}
	}
}

struct ci_error *ci_decode(struct ci_source *src, const struct ci_location *loc,
			   struct ci_model **ret)
{
	struct ci_model *m = calloc(1, sizeof *m);
	if (!m)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record");
	struct decoder *d = calloc(1, sizeof *d);
	if (!d) {
		free(m);
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record");
	}
	d->src = src;
	d->m = m;
	d->base = loc->address;
	d->live = ci_source_is_live(src);
	m->location = *loc;
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++)
		m->sections[k].kind = k;
	struct ci_error *err = decode_header(d, loc);
	if (!err)
		err = decode_directory(d);
	if (!err)
		err = decode_sections(d);
	if (!err) {
		summarize(d);
		name_source_threads(src, m);
	}
	free(d);
	if (err) {
		ci_model_destroy(m);
		return err;
	}
	*ret = m;
	return NULL;
}

struct ci_error *ci_decode_buffer(const void *buf, size_t len, struct ci_model **ret)
{
	struct ci_source *src;
	struct ci_error *err = ci_source_from_buffer(buf, len, 0, &src);
	if (err)
		return err;
	struct ci_location loc;
	err = ci_locate(src, &loc);
	if (!err)
		err = ci_decode(src, &loc, ret);
	if (!err) {
		/* Locate's warnings (another record in the buffer) belong to the model now. */
		for (size_t i = 0; i < src->warnings.count; i++)
			ci_warnings_add(&(*ret)->warnings, "%s", src->warnings.items[i]);
	}
	ci_source_close(src);
	return err;
}

void ci_model_destroy(struct ci_model *m)
{
	if (!m)
		return;
	free(m->host_modules);
	free(m->devices);
	free(m->contexts);
	free(m->streams);
	free(m->code_modules);
	free(m->functions);
	free(m->threads);
	free(m->launches);
	free(m->errors);
	free(m->events);
	free(m->frees);
	free(m->allocs);
	free(m->crumbs);
	free(m->stacks);
	free(m->frames);
	free(m->strings);
	ci_warnings_deinit(&m->warnings);
	free(m);
}

const char *ci_model_string(const struct ci_model *m, uint32_t off)
{
	if (!m->strings || off >= m->strings_size)
		return "";
	return m->strings + off;
}

const uint64_t *ci_model_stack(const struct ci_model *m, uint32_t id, size_t *n)
{
	*n = 0;
	if (id == 0 || id > m->stack_count || m->stacks[id - 1].seq == 0)
		return NULL;
	const struct ci_stack *s = &m->stacks[id - 1];
	if (s->nframes == 0)
		return NULL;
	*n = s->nframes;
	return m->frames + s->frames_offset;
}

const char *ci_model_function_name(const struct ci_model *m, uint32_t slot)
{
	if (slot >= m->function_count || m->functions[slot].seq == 0)
		return NULL;
	const char *name = ci_model_string(m, m->functions[slot].name_str);
	return *name ? name : NULL;
}
