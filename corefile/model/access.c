/* SPDX-License-Identifier: MIT */
/*
 * Decode stage, the model's accessors: entries, strings and stacks of a struct ci_model, and
 * the lazy and sparse models behind them.  A lazy model keeps the launch ring and the live
 * allocations in the input, ordered, and copies an entry when the stages after decode first ask
 * for it (renderers only read what was copied: ci_model_launch_loaded); a sparse model leaves
 * the allocation table unread and looks allocations up where they lie.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model.h"

/* ---------------------------------------------------------------------------------------- */
/* Lazy models                                                                                */

void ci_lazy_destroy(struct ci_model_lazy *lazy)
{
	if (!lazy)
		return;
	struct lazy_section *secs[] = { &lazy->launches, &lazy->allocs };
	for (size_t i = 0; i < 2; i++) {
		free(secs[i]->keys);
		free(secs[i]->copies);
		free(secs[i]->copied);
	}
	for (size_t i = 0; i < lazy->table.nfetched; i++)
		free(lazy->table.fetched[i]);
	free(lazy->table.fetched);
	free(lazy->table.fetched_slot);
	ci_source_close(lazy->src);
	free(lazy);
}

/* The model's link to the input it keeps entries in, made on first use. */
struct ci_error *ci_lazy_of(struct decoder *d, struct ci_model_lazy **ret)
{
	struct ci_model *m = d->m;
	if (!m->lazy) {
		m->lazy = calloc(1, sizeof *m->lazy);
		if (!m->lazy)
			return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record");
		m->lazy->src = ci_source_hold(d->src);
	}
	*ret = m->lazy;
	return NULL;
}

/* Keep O's entries (sorted) in the input: the model gets their count, and copies on demand. */
struct ci_error *ci_keep_lazily(struct decoder *d, struct ordering *o, size_t *count)
{
	struct ci_model_lazy *lz;
	struct ci_error *err = ci_lazy_of(d, &lz);
	if (err)
		return err;
	struct lazy_section *ls = o->kind == CI_SEC_LAUNCHES ? &lz->launches : &lz->allocs;
	/* Pages of the copies that are never touched cost nothing: in pages of 4 KiB, not 2 MiB
	 * where transparent huge pages are always on (the bounded JSON's 4,096 newest allocations
	 * lie anywhere in a million copies: 96 MiB of huge pages). */
	size_t size = o->n * ci_section_kinds[o->kind].size;
	ls->copies = malloc(size);
	ls->copied = calloc((o->n + 7) / 8, 1);
	if (!ls->copies || !ls->copied)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's %s",
				       ci_section_title(o->kind));
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = ((uintptr_t)ls->copies + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)ls->copies + size) & ~(page - 1);
	if (size >= (4u << 20) && a < b)
		madvise((void *)a, b - a, MADV_NOHUGEPAGE); /* advice only: failure changes nothing */
	ls->entries = o->entries;
	ls->stride = o->stride;
	ls->span = d->secs[o->kind].capacity * o->stride;
	ls->keys = ci_steal(o->keys);
	*count = o->n;
	return NULL;
}

/* Entry I of a lazy section, copied and reference-checked the first time. */
static const void *lazy_entry(const struct ci_model *m, uint32_t kind, struct lazy_section *ls,
			      size_t i)
{
	size_t size = ci_section_kinds[kind].size;
	uint8_t *copy = ls->copies + i * size;
	if (!(ls->copied[i / 8] & (1u << (i % 8)))) {
		memcpy(copy, ls->entries + ls->keys[i].slot * ls->stride, size);
		ci_check_entry(&(struct refcheck){ .m = m }, kind, copy);
		ls->copied[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	return copy;
}

const struct ci_launch *ci_model_launch(const struct ci_model *m, size_t i)
{
	if (i >= m->launch_count)
		return NULL;
	if (m->launches)
		return &m->launches[i];
	return m->lazy && m->lazy->launches.keys ? lazy_entry(m, CI_SEC_LAUNCHES, &m->lazy->launches, i)
						 : NULL;
}

const struct ci_alloc *ci_model_alloc(const struct ci_model *m, size_t i)
{
	if (i >= m->alloc_count)
		return NULL;
	if (m->allocs)
		return &m->allocs[i];
	struct lazy_section *ls = m->lazy ? &m->lazy->allocs : NULL;
	if (!ls || !ls->keys)
		return NULL;
	if (ls->copied[i / 8] & (1u << (i % 8)))
		return lazy_entry(m, CI_SEC_ALLOCS, ls, i);
	/* The first load of one, by the diagnosis: the pages it was read from are given back at
	 * once (the copy is kept).  Where the page cache maps the input 2 MiB at a time, each
	 * entry loaded so mapped 2 MiB of the table until the next pass gave them back. */
	const struct ci_alloc *a = lazy_entry(m, CI_SEC_ALLOCS, ls, i);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const uint8_t *e = ls->entries + ls->keys[i].slot * ls->stride;
	const uint8_t *from = e - (uintptr_t)e % page, *to = e + ls->stride;
	to += (page - (uintptr_t)to % page) % page;
	ci_source_release(m->lazy->src, from, (size_t)(to - from));
	return a;
}

/* Entry I of a lazy section copied into OUT (SIZE bytes) and its references checked, the
 * section's copy left as it is: the entry is read again if asked for again. */
static void lazy_peek(const struct ci_model *m, uint32_t kind, const struct lazy_section *ls, size_t i,
		      void *out, size_t size)
{
	if (ls->copied[i / 8] & (1u << (i % 8))) {
		memcpy(out, ls->copies + i * ci_section_kinds[kind].size, size);
		return;
	}
	memcpy(out, ls->entries + ls->keys[i].slot * ls->stride, size);
	ci_check_entry(&(struct refcheck){ .m = m }, kind, out);
}

bool ci_model_launch_peek(const struct ci_model *m, size_t i, struct ci_launch *out)
{
	if (i >= m->launch_count)
		return false;
	if (m->launches) {
		*out = m->launches[i];
		return true;
	}
	const struct lazy_section *ls = m->lazy ? &m->lazy->launches : NULL;
	if (!ls || !ls->keys)
		return false;
	lazy_peek(m, CI_SEC_LAUNCHES, ls, i, out, sizeof *out);
	return true;
}

bool ci_model_alloc_peek(const struct ci_model *m, size_t i, struct ci_alloc *out)
{
	if (i >= m->alloc_count)
		return false;
	if (m->allocs) {
		*out = m->allocs[i];
		return true;
	}
	const struct lazy_section *ls = m->lazy ? &m->lazy->allocs : NULL;
	if (!ls || !ls->keys)
		return false;
	lazy_peek(m, CI_SEC_ALLOCS, ls, i, out, sizeof *out);
	return true;
}

void ci_model_launches_release(const struct ci_model *m)
{
	const struct ci_model_lazy *lz = m->lazy;
	if (lz && lz->launches.keys)
		ci_source_release(lz->src, lz->launches.entries, lz->launches.span);
}

void ci_model_allocs_release(const struct ci_model *m)
{
	const struct ci_model_lazy *lz = m->lazy;
	if (lz && lz->allocs.keys)
		ci_source_release(lz->src, lz->allocs.entries, lz->allocs.span);
}

void ci_model_launches_read(const struct ci_model *m, size_t reads)
{
	if (reads % 4096 == 0)
		ci_model_launches_release(m);
}

/* Live allocations a sweep reads at most, in the order of their slots: 6 MiB of copies and
 * 1 MiB of slots for a pass over all of them (a million are 16 sweeps of the table). */
#define SWEEP_ALLOCS 65536u
/* A sweep gives the table's pages back behind it every this many bytes.  The page cache may
 * hold the input in folios of up to 2 MiB, each mapped whole on first touch: reading a
 * million allocations in address order (no order in the table), giving back every 16,384
 * reads, mapped the whole 115 MiB table. */
#define SWEEP_RELEASE_BYTES (2u << 20)

/* ORDER's N slots-and-indexes (slot in the high half) sorted by slot, in a table of SLOTS: a
 * least-significant-digit radix sort, 11 bits a pass, between ORDER and TMP; returns the one
 * that holds the result.  In order exactly: a sweep gives back the pages behind the slot it
 * reads, and a read behind that maps its folio again (4,096 groups of slots, unordered within
 * each, left 10 MiB of the table mapped).  qsort took a tenth of --json=full's time at a million
 * allocations. */
static const uint64_t *order_by_slot(uint64_t *order, uint64_t *tmp, size_t n, uint64_t slots)
{
	enum { DIGIT = 11, BUCKETS = 1 << DIGIT };
	uint64_t *from = order, *to = tmp;
	for (unsigned bit = 0; bit < 32 && (bit == 0 || (slots - 1) >> bit); bit += DIGIT) {
		size_t at[BUCKETS] = { 0 };
		for (size_t k = 0; k < n; k++)
			at[(from[k] >> (32 + bit)) & (BUCKETS - 1)]++;
		for (size_t v = 0, sum = 0; v < BUCKETS; v++) {
			size_t c = at[v];
			at[v] = sum;
			sum += c;
		}
		for (size_t k = 0; k < n; k++)
			to[at[(from[k] >> (32 + bit)) & (BUCKETS - 1)]++] = from[k];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	return from;
}

/* One sweep over a lazy model's allocation table: the live allocations from *NEXT on (up to
 * TO) that WANT marks (NULL: all), at most SWEEP_ALLOCS of them, read in the order of their
 * slots (ORDER: room for 2 * SWEEP_ALLOCS), each copied and its references checked, into
 * WINDOW + (i - *NEXT) * size, or into the section's copies (loaded) when WINDOW is NULL.  The
 * pages read are given back as the sweep leaves them.  *NEXT is left where it stopped. */
static void alloc_sweep(const struct ci_model *m, size_t *next, size_t to, const uint8_t *want,
			struct ci_alloc *window, uint64_t *order)
{
	struct lazy_section *ls = &m->lazy->allocs;
	size_t from = *next, n = 0, i = from;
	for (; i < to && n < SWEEP_ALLOCS; i++)
		if (!want || want[i])
			order[n++] = (uint64_t)ls->keys[i].slot << 32 | (uint32_t)(i - from);
	*next = i;
	const uint64_t *by_slot = order_by_slot(order, order + SWEEP_ALLOCS, n, ls->span / ls->stride);
	const uint8_t *released = ls->entries;
	ci_model_allocs_release(m); /* what earlier reads left mapped */
	for (size_t k = 0; k < n; k++) {
		const uint8_t *e = ls->entries + (by_slot[k] >> 32) * ls->stride;
		if (k + 8 < n)
			__builtin_prefetch(ls->entries + (by_slot[k + 8] >> 32) * ls->stride + 48);
		if ((size_t)(e - released) >= SWEEP_RELEASE_BYTES)
			ci_source_release_behind(m->lazy->src, &released, e);
		size_t at = from + (uint32_t)by_slot[k];
		if (window) {
			memcpy(&window[at - from], e, sizeof *window);
			ci_check_entry(&(struct refcheck){ .m = m }, CI_SEC_ALLOCS, &window[at - from]);
		} else {
			lazy_entry(m, CI_SEC_ALLOCS, ls, at);
		}
	}
	ci_model_allocs_release(m);
}

int ci_model_allocs_load(const struct ci_model *m, const uint8_t *want, size_t from, size_t to)
{
	if (!m->lazy || !m->lazy->allocs.keys)
		return 0;
	to = to < m->alloc_count ? to : m->alloc_count;
	_cleanup_free_ uint64_t *order = malloc(2 * SWEEP_ALLOCS * sizeof *order);
	if (!order)
		return -1;
	for (size_t i = from; i < to;)
		alloc_sweep(m, &i, to, want, NULL, order);
	return 0;
}

void ci_alloc_walk_init(struct ci_alloc_walk *w, const struct ci_model *m, size_t to)
{
	*w = (struct ci_alloc_walk){ .m = m, .to = to < m->alloc_count ? to : m->alloc_count };
}

void ci_alloc_walk_deinit(struct ci_alloc_walk *w)
{
	free(w->window);
	free(w->order);
	*w = (struct ci_alloc_walk){ 0 };
}

const struct ci_alloc *ci_alloc_walk_at(struct ci_alloc_walk *w, size_t i)
{
	const struct ci_model *m = w->m;
	const struct ci_alloc *a = ci_model_alloc_loaded(m, i);
	if (a || i >= m->alloc_count || !m->lazy || !m->lazy->allocs.keys)
		return a;
	if (i < w->from || i - w->from >= w->n) {
		if (!w->window)
			w->window = malloc(SWEEP_ALLOCS * sizeof *w->window);
		if (!w->order)
			w->order = malloc(2 * SWEEP_ALLOCS * sizeof *w->order);
		/* Without room for a sweep, one at a time as before. */
		if (!w->window || !w->order)
			return ci_model_alloc_peek(m, i, &w->one) ? &w->one : NULL;
		size_t next = i;
		alloc_sweep(m, &next, i < w->to ? w->to : i + 1, NULL, w->window, w->order);
		w->from = i;
		w->n = next - i;
	}
	return &w->window[i - w->from];
}

/* Entry I of a lazy section if it was copied already, else NULL. */
static const void *lazy_loaded(uint32_t kind, const struct lazy_section *ls, size_t i)
{
	if (!(ls->copied[i / 8] & (1u << (i % 8))))
		return NULL;
	return ls->copies + i * ci_section_kinds[kind].size;
}

const struct ci_launch *ci_model_launch_loaded(const struct ci_model *m, size_t i)
{
	if (i >= m->launch_count)
		return NULL;
	if (m->launches)
		return &m->launches[i];
	return m->lazy && m->lazy->launches.keys ? lazy_loaded(CI_SEC_LAUNCHES, &m->lazy->launches, i)
						 : NULL;
}

const struct ci_alloc *ci_model_alloc_loaded(const struct ci_model *m, size_t i)
{
	if (i >= m->alloc_count)
		return NULL;
	if (m->allocs)
		return &m->allocs[i];
	return m->lazy && m->lazy->allocs.keys ? lazy_loaded(CI_SEC_ALLOCS, &m->lazy->allocs, i) : NULL;
}

struct ci_launch_briefs ci_model_launch_briefs(const struct ci_model *m)
{
	if (m->launches || !m->lazy || !m->lazy->launches.keys)
		return (struct ci_launch_briefs){ NULL, 0 };
	return (struct ci_launch_briefs){ (const uint8_t *)&m->lazy->launches.keys[0].launch,
					  sizeof(struct order_key) };
}

void ci_model_launch_brief(const struct ci_model *m, size_t i, struct ci_launch_brief *b)
{
	if (m->launches) {
		const struct ci_launch *l = &m->launches[i];
		*b = (struct ci_launch_brief){ l->time_ns, l->stream_seq, l->stream, l->flags };
	} else if (m->lazy && m->lazy->launches.keys) {
		*b = m->lazy->launches.keys[i].launch;
	} else {
		*b = (struct ci_launch_brief){ 0, 0, CI_NONE, 0 };
	}
}

bool ci_model_launch_maybe_newest(const struct ci_model *m, size_t i, uint64_t window)
{
	const struct ci_section_stats *sec = &m->sections[CI_SEC_LAUNCHES];
	uint64_t head = sec->head, cap = sec->capacity;
	if (head <= window || i >= m->launch_count)
		return true;
	if (m->launches)
		return m->launches[i].seq + window > head;
	if (!m->lazy || !m->lazy->launches.keys || !cap)
		return true;
	/* Slots back from the newest one (that of seq HEAD), around the ring. */
	uint64_t slot = m->lazy->launches.keys[i].slot, newest = (head - 1) % cap;
	return (newest + cap - slot % cap) % cap < window;
}

void ci_model_alloc_brief(const struct ci_model *m, size_t i, struct ci_alloc_brief *b)
{
	if (m->allocs) {
		const struct ci_alloc *a = &m->allocs[i];
		*b = (struct ci_alloc_brief){ a->address, a->size, a->kind };
	} else if (m->lazy && m->lazy->allocs.keys) {
		*b = m->lazy->allocs.keys[i].alloc;
	} else {
		*b = (struct ci_alloc_brief){ 0, 0, 0 };
	}
}

/* Slots [FROM, TO) of a sparse model's allocation table where it lies, judged as decode would,
 * each accepted entry visited (VISIT may be NULL: counted only).  The pages go back to the page
 * cache a chunk at a time as the pass leaves them (*RELEASED: the first slot not given back), so
 * a table of a million slots (96 MiB) costs the reader's memory no more than a chunk. */
static size_t alloc_table_slots(const struct ci_model_lazy *lz, uint64_t from, uint64_t to,
				uint64_t *released, ci_alloc_visit *visit, void *arg)
{
	const struct alloc_table *t = &lz->table;
	const uint64_t chunk = 65536;
	size_t n = 0;
	for (uint64_t slot = from; slot < to; slot++) {
		if (slot - *released >= chunk) {
			ci_source_release(lz->src, t->entries + *released * t->stride,
					  (slot - *released) * t->stride);
			*released = slot;
		}
		const uint8_t *e = t->entries + slot * t->stride;
		if (slot + 8 < to)
			__builtin_prefetch(e + 8 * t->stride + 48);
		if (ci_le64(e) == 0 || ci_classify(&t->judge, e, slot) != V_ACCEPT)
			continue;
		n++;
		if (!visit)
			continue;
		struct ci_alloc a;
		memcpy(&a, e, sizeof a);
		struct ci_alloc_ref r = { a.address, a.size, a.id, a.kind, slot };
		visit(&r, arg);
	}
	return n;
}

/* One pass over a sparse model's allocation table; BY_GRANULE reads only the slots that touch a
 * granule the record says was written (format 1.3): the others' pages are not read at all. */
static size_t alloc_table_pass(const struct ci_model_lazy *lz, ci_alloc_visit *visit, void *arg,
			       bool by_granule)
{
	const struct alloc_table *t = &lz->table;
	uint64_t cap = t->judge.cap, released = 0;
	size_t n = 0;
	if (!by_granule) {
		n = alloc_table_slots(lz, 0, cap, &released, visit, arg);
	} else {
		uint64_t granules = (cap * t->stride + CI_ALLOC_GRANULE_BYTES - 1) / CI_ALLOC_GRANULE_BYTES;
		uint64_t next = 0; /* a slot across two marked granules is read once */
		for (uint64_t g = 0; g < granules; g++) {
			if (!t->granules[g / 8]) {
				g |= 7; /* eight clear granules */
				continue;
			}
			if (!(t->granules[g / 8] & (1u << (g % 8))))
				continue;
			uint64_t lo = g * CI_ALLOC_GRANULE_BYTES / t->stride;
			uint64_t hi = ((g + 1) * CI_ALLOC_GRANULE_BYTES - 1) / t->stride + 1;
			lo = lo > next ? lo : next;
			hi = hi < cap ? hi : cap;
			if (lo < hi)
				n += alloc_table_slots(lz, lo, hi, &released, visit, arg);
			next = hi > next ? hi : next;
		}
	}
	if (released < cap)
		ci_source_release(lz->src, t->entries + released * t->stride, (cap - released) * t->stride);
	return n;
}

size_t ci_model_each_alloc(const struct ci_model *m, ci_alloc_visit *visit, void *arg)
{
	struct ci_alloc_ref r;
	if (m->allocs) {
		for (size_t i = 0; i < m->alloc_count; i++) {
			const struct ci_alloc *a = &m->allocs[i];
			r = (struct ci_alloc_ref){ a->address, a->size, a->id, a->kind, i };
			visit(&r, arg);
		}
		return m->alloc_count;
	}
	const struct ci_model_lazy *lz = m->lazy;
	if (lz && lz->allocs.keys) {
		/* All from the keys: reading the ids where the entries lie mapped 47 MiB of a 1 GiB
		 * core for a thousand allocations (each read maps the 64 KiB around it). */
		const struct lazy_section *ls = &lz->allocs;
		for (size_t i = 0; i < m->alloc_count; i++) {
			const struct order_key *k = &ls->keys[i];
			r = (struct ci_alloc_ref){ k->alloc.address, k->alloc.size, (uint64_t)k->c << 32 | k->b,
						   k->alloc.kind, i };
			visit(&r, arg);
		}
		return m->alloc_count;
	}
	if (!lz || !lz->table.entries)
		return 0;
	/* A sparse model: the table where it lies, judged slot by slot as decode would, but for the
	 * granules the record says were never written (format 1.3), which are not read at all.  Its
	 * pages go back to the page cache a chunk at a time as the pass leaves them, so a table of a
	 * million slots (96 MiB) costs the reader's memory no more than a chunk. */
	struct alloc_table *t = &m->lazy->table;
	/* The bitmap is the record's word, untrusted: where its granules hold fewer live entries
	 * than the record's counts say there are, every slot is read after all (checked once). */
	if (t->granules && !t->granule_check)
		t->granule_check = alloc_table_pass(lz, NULL, NULL, true) >= t->min_live ? 1 : 2;
	return alloc_table_pass(lz, visit, arg, t->granule_check == 1);
}

const struct ci_alloc *ci_model_alloc_at(const struct ci_model *m, uint64_t handle)
{
	if (m->allocs || (m->lazy && m->lazy->allocs.keys))
		return handle < m->alloc_count ? ci_model_alloc(m, (size_t)handle) : NULL;
	struct alloc_table *t = m->lazy ? &m->lazy->table : NULL;
	if (!t || !t->entries || handle >= t->judge.cap)
		return NULL;
	for (size_t i = 0; i < t->nfetched; i++)
		if (t->fetched_slot[i] == handle)
			return t->fetched[i];
	if (t->nfetched == t->fetched_cap) {
		size_t cap = t->fetched_cap ? 2 * t->fetched_cap : 16;
		struct ci_alloc **f = realloc(t->fetched, cap * sizeof *f);
		if (f)
			t->fetched = f;
		uint64_t *fs = f ? realloc(t->fetched_slot, cap * sizeof *fs) : NULL;
		if (!fs)
			return NULL;
		t->fetched_slot = fs;
		t->fetched_cap = cap;
	}
	struct ci_alloc *a = malloc(sizeof *a);
	if (!a)
		return NULL;
	/* Judged again on the copy: what is handed out is what the rules accept. */
	memcpy(a, t->entries + handle * t->stride, sizeof *a);
	if (ci_classify(&t->judge, (const uint8_t *)a, handle) != V_ACCEPT) {
		free(a);
		return NULL;
	}
	ci_check_entry(&(struct refcheck){ .m = m }, CI_SEC_ALLOCS, a);
	t->fetched[t->nfetched] = a;
	t->fetched_slot[t->nfetched++] = handle;
	return a;
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
	free(m->python);
	free(m->py_codes);
	free(m->graphs);
	free(m->graph_nodes);
	free(m->graph_execs);
	free(m->graph_launches);
	free(m->nccl_comms);
	free(m->nccl_calls);
	free(m->job_vars);
	free(m->peer_mems);
	free(m->launches);
	free(m->errors);
	free(m->events);
	free(m->frees);
	free(m->allocs);
	free(m->crumbs);
	free(m->stacks);
	free(m->frames);
	free(m->strings);
	free(m->kernel_log);
	ci_lazy_destroy(m->lazy);
	ci_warnings_deinit(&m->warnings);
	free(m);
}

const char *ci_model_string(const struct ci_model *m, uint32_t off)
{
	/* Offset 0 is the empty string (record.h), whatever the bytes there say. */
	if (!m->strings || off == 0 || off >= m->strings_size)
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


bool ci_stream_valid(const struct ci_model *m, uint32_t slot)
{
	return slot != CI_NONE && slot < m->stream_count && m->streams[slot].seq != 0;
}

uint64_t ci_model_end_ns(const struct ci_model *model)
{
	if (model->header.end_monotonic_ns)
		return model->header.end_monotonic_ns;
	uint64_t t = model->header.snapshot_monotonic_ns;
	struct ci_launch_brief last;
	if (model->launch_count) {
		ci_model_launch_brief(model, model->launch_count - 1, &last);
		if (last.time_ns > t)
			t = last.time_ns;
	}
	if (model->error_count && model->errors[model->error_count - 1].time_ns > t)
		t = model->errors[model->error_count - 1].time_ns;
	if (model->event_count && model->events[model->event_count - 1].time_ns > t)
		t = model->events[model->event_count - 1].time_ns;
	if (model->free_count && model->frees[model->free_count - 1].free_ns > t)
		t = model->frees[model->free_count - 1].free_ns;
	return t;
}
