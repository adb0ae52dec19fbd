/* SPDX-License-Identifier: MIT */
/*
 * Stage 3, decode: validate the flight record and copy what can be trusted into a struct
 * ci_model.  The record is untrusted input.  The header and the section directory must be sound
 * (else CI_ERR_CORRUPT, or CI_ERR_VERSION for an unknown major); below that everything degrades
 * entry by entry: an entry is accepted only when it is complete under the publishing rules of
 * record.h, and every reference between entries (slots, strings, stacks, frames) is checked and
 * cleared when it points nowhere.  Each section's struct ci_section_stats says honestly what was
 * accepted, torn, invalid, overwritten, dropped or missing.  Entries are judged where they lie in
 * the mapped input and the accepted ones copied once, in the model's order; live sources (a
 * running process, a persistent file still being written) are copied chunk by chunk and read
 * seqlock-style: seq, payload, seq again.  Ordering is order.c's; what each section's entries
 * are and the checks of their references, entries.c's; the model's accessors, lazy and sparse
 * models among them, access.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>

#include "model.h"

/* Text from the record, scrubbed in place (it never grows: ci_scrub). */
static void scrub_in_place(char *s, size_t n)
{
	char buf[256];
	ci_scrub(s, buf, n < sizeof buf ? n : sizeof buf);
	memcpy(s, buf, strlen(buf) + 1);
}

/* ---------------------------------------------------------------------------------------- */
/* Reading entries                                                                            */

/* Read CNT entries of ESIZE bytes at A into BUF: in one go, else entry by entry.  An entry that
 * cannot be read is zeroed and marked ENTRY_MISSING in ST, or, on the seq passes of a live read
 * (ST NULL), gets the seq FILL, which no payload matches. */
static void read_chunk(struct ci_source *src, uint64_t a, uint64_t cnt, uint32_t esize, uint8_t *buf,
		       uint8_t *st, uint8_t fill)
{
	if (ci_source_read_quiet(src, a, buf, cnt * esize) == CI_READ_OK)
		return;
	for (uint64_t i = 0; i < cnt; i++) {
		if (ci_source_read_quiet(src, a + i * esize, buf + i * esize, esize) == CI_READ_OK)
			continue;
		memset(buf + i * esize, fill, st ? esize : 8);
		if (st)
			st[i] = ENTRY_MISSING;
	}
}

/* Entries are looked at in chunks of this many bytes: where they lie when the input holds the
 * section as one mapped piece, else copied (live processes, split or partly captured inputs). */
#define CHUNK_BYTES (256u << 10)
/* No entry past the head of an append-only table or of a ring that has not wrapped can be
 * accepted.  The only ones there are entries published after the head was copied (a snapshot of
 * a running process), right after it, so the scan stops at this many never-written slots in a
 * row past the head: the unused capacity of a large record is never touched. */
#define PAST_HEAD_RUN 256u

/* Buffers for a copied chunk. */
struct chunk {
	uint8_t *buf;             /* the chunk's entries */
	uint8_t *st;              /* ENTRY_* of each */
	uint64_t *seq1;           /* live sources: the seqs read before the payload */
	uint8_t *again;           /* live sources: the seq pass after it */
};

static void chunk_deinit(struct chunk *c)
{
	free(c->buf);
	free(c->st);
	free(c->seq1);
	free(c->again);
}

/* Copy CNT entries of ESIZE bytes at ADDR into C->buf, marking each in C->st.  Entries the input
 * does not hold are ENTRY_MISSING (zeroed).  On live sources the chunk is read three times, seq,
 * payload, seq (a seqlock read): entries whose seq changed meanwhile are ENTRY_TORN. */
static void read_entries(struct decoder *d, uint64_t addr, uint64_t cnt, uint32_t esize,
			 struct chunk *c)
{
	if (d->live) {
		read_chunk(d->src, addr, cnt, esize, c->again, NULL, 0xff);
		for (uint64_t i = 0; i < cnt; i++)
			c->seq1[i] = ci_le64(c->again + i * esize);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	memset(c->st, ENTRY_OK, cnt);
	read_chunk(d->src, addr, cnt, esize, c->buf, c->st, 0);
	if (!d->live)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	read_chunk(d->src, addr, cnt, esize, c->again, NULL, 0xfe);
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t s0 = c->seq1[i], sp = ci_le64(c->buf + i * esize), s2 = ci_le64(c->again + i * esize);
		if (c->st[i] == ENTRY_OK && (s0 != sp || sp != s2))
			c->st[i] = ENTRY_TORN;
	}
}

/* A live section's directory entry as it is now; false if it cannot be read or changed kind. */
static bool reread_section(struct decoder *d, uint32_t kind, struct ci_section *sec)
{
	return ci_source_read_quiet(d->src, d->dir_entry_addr[kind], sec, sizeof *sec) == CI_READ_OK &&
	       sec->kind == kind;
}

/* Re-read a live section's head after its entries, so entries published meanwhile pass the
 * seq <= head check. */
static void refresh_head(struct decoder *d, uint32_t kind)
{
	struct ci_section sec;
	if (!d->live || !reread_section(d, kind, &sec))
		return;
	if (sec.head >= d->secs[kind].head) {
		d->secs[kind].head = sec.head;
		d->m->sections[kind].head = sec.head;
		d->secs[kind].dropped = sec.dropped;
		d->m->sections[kind].dropped = sec.dropped;
	}
}

/* Decode a section of seq-carrying entries into an array of the structs this reader knows.
 * Tables come back indexed by slot (invalid slots zeroed, *count = highest accepted slot + 1);
 * rings and the allocation table come back as accepted entries only, in the model's order. */
static struct ci_error *decode_entries(struct decoder *d, uint32_t kind, void **ret, size_t *count)
{
	*ret = NULL;
	*count = 0;
	if (!d->usable[kind])
		return NULL;
	const struct ci_section *sec = &d->secs[kind];
	struct ci_section_stats *stats = &d->m->sections[kind];
	const struct section_kind *sk = &ci_section_kinds[kind];
	enum layout layout = sk->layout;
	size_t out_size = sk->size;
	uint32_t esize = sec->entry_size;
	uint64_t cap = sec->capacity, addr = d->base + sec->offset;
	/* Read only what the input holds: a hostile capacity then costs nothing, and the tail a
	 * truncated core lost is counted as missing.  Slot numbers stay those of the record. */
	uint64_t have = ci_source_available(d->src, addr, cap * esize) / esize;
	stats->missing += cap - have;
	if (have == 0)
		return NULL;
	/* Where the entries are looked at: in the mapped input when it holds the whole section in
	 * one piece and cannot change under us, else in copies (tables: the model's own array). */
	const uint8_t *inplace = d->live ? NULL : ci_source_peek(d->src, addr, have * esize);
	uint64_t per_chunk = CHUNK_BYTES / esize ? CHUNK_BYTES / esize : 1;
	struct chunk c __attribute__((cleanup(chunk_deinit))) = { 0 };
	_cleanup_free_ uint8_t *staging = NULL;
	struct ordering o __attribute__((cleanup(ci_ordering_deinit))) = { .kind = kind };
	uint8_t *out = NULL;
	bool nomem = false;
	if (layout == LAYOUT_TABLE)
		nomem |= !(out = calloc(have, out_size));
	else if (!inplace)
		nomem |= !(staging = malloc(have * out_size));
	if (layout != LAYOUT_TABLE) {
		/* Room for the entries that can be accepted: no more than the head (indexes claimed;
		 * allocation ids handed out), unless the source is live or the record lies: then the
		 * keys grow. */
		uint64_t most = sec->head < have ? sec->head : have;
		o.cap = most ? most : 1;
		nomem |= !(o.keys = ci_alloc_big(o.cap * sizeof *o.keys));
	}
	if (!inplace) {
		nomem |= !(c.buf = malloc(per_chunk * esize)) || !(c.st = malloc(per_chunk));
		if (d->live)
			nomem |= !(c.seq1 = malloc(per_chunk * sizeof *c.seq1)) ||
				 !(c.again = malloc(per_chunk * esize));
	}
	if (nomem) {
		free(out);
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding %llu %s of the record",
				       (unsigned long long)cap, ci_section_title(kind));
	}
	uint64_t last_slot = 0, zero_run = 0;
	bool stop = false;
	/* A lazy section is scanned once and read again only for the few entries a view shows. */
	bool lazy = inplace && d->lazy && (kind == CI_SEC_LAUNCHES || kind == CI_SEC_ALLOCS);
	const uint8_t *released = inplace;
	for (uint64_t first = 0, cnt; first < have && !stop; first += cnt) {
		cnt = have - first < per_chunk ? have - first : per_chunk;
		const uint8_t *p = inplace ? inplace + first * esize : c.buf;
		if (!inplace) {
			read_entries(d, addr + first * esize, cnt, esize, &c);
			refresh_head(d, kind);
			if (layout != LAYOUT_TABLE)
				ci_refresh_live_heads(d);
		}
		uint64_t head = d->secs[kind].head;
		struct judge judge = ci_judge_make(kind, cap, head);
		bool bounded = layout == LAYOUT_TABLE || (layout == LAYOUT_RING && head <= cap);
		for (uint64_t i = 0; i < cnt; i++) {
			uint64_t slot = first + i;
			const uint8_t *e = p + i * esize;
			/* An entry is read a cache line or two, a page apart every few entries: fetch ahead. */
			if (i + 16 < cnt)
				__builtin_prefetch(e + 16 * esize), __builtin_prefetch(e + 16 * esize + 64);
			if (!inplace && c.st[i] != ENTRY_OK) {
				if (c.st[i] == ENTRY_MISSING)
					stats->missing++;
				else
					stats->torn++;
				zero_run = 0;
				continue;
			}
			uint64_t seq = ci_le64(e);
			if (bounded && slot >= head) {
				zero_run = seq ? 0 : zero_run + 1;
				if (zero_run >= PAST_HEAD_RUN) {
					stop = true;
					break;
				}
			}
			if (seq == 0)
				continue;
			enum verdict v;
			if (layout == LAYOUT_TABLE) {
				/* Judged on the model's own copy: what is accepted is what it holds. */
				uint8_t *copy = out + slot * out_size;
				memcpy(copy, e, out_size);
				v = ci_classify(&judge, copy, slot);
				if (v == V_ACCEPT)
					last_slot = slot + 1;
				else
					memset(copy, 0, out_size);
			} else {
				v = ci_classify(&judge, e, slot);
				if (v == V_ACCEPT) {
					if (staging)
						memcpy(staging + slot * out_size, e, out_size);
					if (!ci_ordering_add(d, &o, e, slot))
						return ci_error_create(CI_ERR_NOMEM, "out of memory "
								       "decoding the record's %s", ci_section_title(kind));
				}
			}
			ci_count_verdict(stats, v);
		}
		if (lazy)
			ci_source_release_behind(d->src, &released, p + cnt * esize);
	}
	uint64_t head = d->secs[kind].head;
	if (layout == LAYOUT_RING && head > cap)
		stats->overwritten = head - cap;
	if (layout != LAYOUT_TABLE) {
		o.entries = inplace ? inplace : staging;
		o.stride = inplace ? esize : out_size;
		if (o.n == 0)
			return NULL;
		if (!ci_sort_ordering(d, &o))
			return ci_error_create(CI_ERR_NOMEM, "out of memory ordering the record's %s", ci_section_title(kind));
		if (lazy) {
			/* Sorting read the entries whose keys tie (by their seq): what the model keeps
			 * is the keys, not those pages. */
			ci_source_release(d->src, inplace, have * esize);
			return ci_keep_lazily(d, &o, count);
		}
		return ci_order_entries(d, &o, ret, count);
	}
	*count = last_slot;
	if (last_slot == 0) {
		free(out);
		return NULL;
	}
	/* Give back the unused tail (calloc'd pages never touched cost nothing, but the size). */
	uint8_t *shrunk = realloc(out, last_slot * out_size);
	*ret = shrunk ? shrunk : out;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Sparse models                                                                              */

/* Two threads that launch into one stream may fill launch-ring slots out of its order for as long
 * as one of them keeps an unused chunk of slots (CI_LAUNCH_CHUNK_NS, record.h), plus the time a
 * launch call may take besides: where the ring lacks some of a stream's unfinished launches, so
 * that they cannot all be counted, the scan goes on past the launches made this long before the
 * newest it needs.  The same holds for the newest launches a view lists. */
#define SPARSE_MARGIN_NS (CI_LAUNCH_CHUNK_NS + 200000ull)
/* The scan gives the pages it has passed back to the page cache every this many slots: what it
 * keeps is copied out of them at the end, read again then. */
#define SPARSE_RELEASE_SLOTS 65536u

/* What a sparse scan still has to find of one stream's launches (what the record's facts say the
 * diagnosis weighs, facts.c), and how many of them it has seen: of those numbered in
 * (lo, hi], for a stream without breadcrumbs those made after sync_ns. */
struct tail_need {
	struct ci_launch_need n;
	uint64_t seen;
	bool short_of;            /* closed while the ring lacks some: its late finds are kept */
	uint64_t nbits;           /* numbers hi, hi - 1, … told apart by bits (on demand) */
	uint8_t *bits;
};

/* Whether launch number SEQ is one of the stream's (1..hi) seen for the first time: a damaged
 * record may repeat a number, and counting it twice would end the scan before the launch the
 * complete decode weighs.  The bits cover as many numbers back from hi as the ring has slots
 * (no more of them can be in it).  -1 on out-of-memory. */
static int tail_first_sight(struct tail_need *tn, uint64_t seq, uint64_t cap)
{
	if (seq == 0 || seq > tn->n.hi)
		return 0;
	uint64_t back = tn->n.hi - seq;
	if (!tn->bits) {
		uint64_t span = tn->n.hi - (tn->n.by_crumb ? tn->n.lo : 0);
		tn->nbits = span < cap ? span : cap;
		if (!(tn->bits = calloc(tn->nbits / 8 + 1, 1)))
			return -1;
	}
	if (back >= tn->nbits)
		return 1;
	uint8_t bit = (uint8_t)(1u << (back % 8));
	if (tn->bits[back / 8] & bit)
		return 0;
	tn->bits[back / 8] |= bit;
	return 1;
}

/* Account launch K (a key, newest first) to its stream's need.  Returns 0 while the stream
 * still needs launches, 1 when all it needs are in, 2 when the ring lacks some of them and the
 * scan must go on for SPARSE_MARGIN_NS, -1 on out-of-memory.  Only an entry of the ring's
 * current lap (THIS_LAP) says where the stream's launches end: an older lap's entry survives in
 * a slot of a chunk that its thread claimed and left unused this lap, and lies among newer ones. */
static int tail_account(struct tail_need *tn, const struct order_key *k, bool this_lap, uint64_t cap)
{
	struct ci_launch_need *n = &tn->n;
	uint64_t seq = k->extra, t = k->major;
	if (n->by_crumb) {
		if (seq > n->lo && seq <= n->hi) {
			int first = tail_first_sight(tn, seq, cap);
			if (first < 0)
				return -1;
			if (first && ++tn->seen >= n->hi - n->lo)
				return 1;
		}
		return this_lap && seq <= n->lo + 1 ? 2 : 0;
	}
	if (seq > n->hi)
		return 0; /* not one of the stream's numbers: the diagnosis does not weigh it */
	if ((n->sync_ns && t < n->sync_ns) || (n->lo && seq <= n->lo)) {
		if (!this_lap)
			return 0;
		/* The first launch known finished (by its time, or by the count a synchronization
		 * of the stream found, which LO starts at): those after it are the window. */
		if (seq > n->lo)
			n->lo = seq;
		return tn->seen >= n->hi - n->lo ? 1 : 2;
	}
	int first = tail_first_sight(tn, seq, cap);
	if (first < 0)
		return -1;
	if (first && ++tn->seen >= CI_OPEN_WINDOW_MAX)
		return tn->seen >= n->hi - (seq ? seq - 1 : 0) ? 1 : this_lap ? 2 : 0;
	return 0;
}

/* Whether launch K of stream need TN (closed or not) is one the diagnosis may weigh. */
static bool tail_wanted(const struct tail_need *tn, const struct order_key *k)
{
	if (tn->n.open)
		return true;
	return tn->short_of && k->extra > tn->n.lo && k->extra <= tn->n.hi;
}

struct tail_needs {
	struct tail_need *v;
	size_t n;
};

static void tail_needs_deinit(struct tail_needs *t)
{
	for (size_t i = 0; t->v && i < t->n; i++)
		free(t->v[i].bits);
	free(t->v);
}

/* The newest launches a view lists (ci_decode_options.list) while the scan looks for them. */
struct tail_list {
	const struct ci_launch_filter *f;
	bool any;                 /* no filter: every launch matches */
	size_t found;             /* matching entries kept */
	uint64_t newest_ns;       /* once FOUND reaches f->newest: the oldest time among them */
};

/* Whether accepted entry E (in slot SLOT) matches the list's filter, judged on a checked copy. */
static bool tail_list_matches(struct decoder *d, const struct tail_list *tl, const uint8_t *e)
{
	if (tl->any)
		return true;
	struct ci_launch copy;
	memcpy(&copy, e, offsetof(struct ci_launch, params));
	ci_check_entry(&(struct refcheck){ .m = d->m }, CI_SEC_LAUNCHES, &copy);
	return ci_launch_filter_matches(d->m, tl->f, &copy);
}

/* Give the pages of ring indexes [FROM, TO) back to the page cache. */
static void release_ring(struct decoder *d, const uint8_t *base, uint64_t esize, uint64_t cap,
			 uint64_t from, uint64_t to)
{
	while (from < to) {
		uint64_t slot = from % cap, n = to - from;
		if (n > cap - slot)
			n = cap - slot;
		ci_source_release(d->src, base + slot * esize, n * esize);
		from += n;
	}
}

/* Read the launch ring of a sparse model from its head back: every stream's launches that have
 * not finished (past its breadcrumb or its last synchronization, at most CI_OPEN_WINDOW_MAX of
 * a stream that has neither), the launches around the last API error's failed one, the newest
 * CI_HISTORY_RING entries (the argument history's window), the newest launches a view lists
 * (ci_decode_options.list) and, where some of those are not in the ring, a margin
 * (SPARSE_MARGIN_NS).  Every entry the scan passes is judged and counted as decode_entries
 * judges it; only those are kept, copied into *RET in time order, so that what the scan keeps,
 * not how far it goes, is what it costs in memory.  Returns false when the ring must be read
 * whole instead (not in one mapped piece), with *ERR set on out-of-memory. */
static bool decode_launch_tail(struct decoder *d, void **ret, size_t *count, struct ci_error **err)
{
	const uint32_t kind = CI_SEC_LAUNCHES;
	struct ci_model *m = d->m;
	*ret = NULL;
	*count = 0;
	*err = NULL;
	if (!d->usable[kind] || d->live)
		return false;
	const struct ci_section *sec = &d->secs[kind];
	struct ci_section_stats *stats = &m->sections[kind];
	uint64_t cap = sec->capacity, head = sec->head, esize = sec->entry_size;
	uint64_t addr = d->base + sec->offset;
	if (cap == 0 || ci_source_available(d->src, addr, cap * esize) < cap * esize)
		return false;
	const uint8_t *inplace = ci_source_peek(d->src, addr, cap * esize);
	if (!inplace)
		return false;

	/* What each stream needs; a stream without unfinished work needs nothing.  The record's
	 * facts are read from the tables and small rings, which are in already (facts.c); an API
	 * error without a device fault also needs its failed launch, made just before it. */
	size_t ns = m->stream_count;
	struct tail_needs tn __attribute__((cleanup(tail_needs_deinit))) = {
		calloc(ns ? ns : 1, sizeof *tn.v), ns
	};
	struct tail_need *need = tn.v;
	_cleanup_free_ struct ci_launch_need *needs = calloc(ns ? ns : 1, sizeof *needs);
	uint64_t earliest;
	if (!need || !needs || ci_model_launch_needs(m, needs, &earliest)) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
		return false;
	}
	/* Around the failed launch everything is kept: which one failed is the diagnosis's call. */
	const uint64_t failed_from = earliest;
	size_t open = 0;
	for (size_t s = 0; s < ns; s++) {
		need[s].n = needs[s];
		open += needs[s].open;
	}
	struct tail_list list = { .f = &d->list, .newest_ns = UINT64_MAX };
	list.any = !d->list.has_thread && !d->list.has_stream && !(d->list.kernel && *d->list.kernel);
	m->launch_list = d->list.newest > 0 || d->list.per_stream > 0;
	/* Each stream's newest (the last bucket: launches of no known stream): how many are kept,
	 * and once that is PER_STREAM, the time before which the margin is passed. */
	size_t quota = d->list.per_stream;
	_cleanup_free_ uint64_t *per = quota ? calloc(2 * (ns + 1), sizeof *per) : NULL;
	if (quota && !per) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
		return false;
	}
	uint64_t *per_done_ns = per ? per + ns + 1 : NULL;
	for (size_t i = 0; per && i <= ns; i++)
		per_done_ns[i] = UINT64_MAX;

	struct ordering o __attribute__((cleanup(ci_ordering_deinit))) = { .kind = kind };
	o.cap = 1024;
	if (!(o.keys = malloc(o.cap * sizeof *o.keys))) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
		return false;
	}
	struct judge judge = ci_judge_make(kind, cap, head);
	uint64_t total = head < cap ? head : cap, scanned = 0, released = head;
	/* The argument history looks at the newest CI_HISTORY_RING entries whatever else is needed. */
	uint64_t history = total < CI_HISTORY_RING ? total : CI_HISTORY_RING;
	/* Once nothing is open, the scan ends at entries made SPARSE_MARGIN_NS before EARLIEST, and
	 * for the list before the oldest of the newest it lists. */
	for (uint64_t idx = head; idx-- > head - total;) {
		bool listing = list.f->newest && list.found < list.f->newest;
		if (!open && scanned >= history && !listing && earliest == UINT64_MAX &&
		    list.newest_ns == UINT64_MAX && !d->list.whole_ring && !quota)
			break;
		if (released - idx >= SPARSE_RELEASE_SLOTS) {
			release_ring(d, inplace, esize, cap, idx + 1, released);
			released = idx + 1;
		}
		uint64_t slot = idx % cap;
		const uint8_t *e = inplace + slot * esize;
		if (slot >= 16) /* the scan goes down: fetch ahead what it reads next */
			__builtin_prefetch(e - 16 * esize);
		scanned++;
		uint64_t seq = ci_le64(e);
		if (seq == 0)
			continue;
		enum verdict v = ci_classify(&judge, e, slot);
		ci_count_verdict(stats, v);
		if (v != V_ACCEPT)
			continue;
		/* Only an entry of this lap says when its slot was claimed. */
		bool this_lap = seq == idx + 1;
		uint64_t t = ci_le64(e + offsetof(struct ci_launch, time_ns));
		uint32_t raw_stream;
		memcpy(&raw_stream, e + offsetof(struct ci_launch, stream), sizeof raw_stream);
		bool matched = list.f->newest && (list.any || tail_list_matches(d, &list, e));
		m->launch_list_matched += matched;
		/* An older lap's entry, in a slot left unused this lap, is older than the entries
		 * around it: kept while the list is short, never counted for it. */
		bool listed = matched && (listing || t >= list.newest_ns);
		size_t bucket = raw_stream < ns ? raw_stream : ns;
		bool newest_of_stream = per && (per[bucket] < quota || t >= per_done_ns[bucket]);
		/* What neither the diagnosis nor the list can want is judged and counted, no more
		 * (its stream, if it has one, is checked below for those that may be wanted). */
		/* Reading the whole ring for its counts, every entry's references are checked and
		 * counted too, as a complete decode counts them. */
		if (scanned > history && !(failed_from != UINT64_MAX && t >= failed_from) && !listed &&
		    !newest_of_stream && !d->list.whole_ring &&
		    !(raw_stream < ns && (need[raw_stream].n.open || need[raw_stream].short_of)))
			goto next;
		if (!ci_ordering_add(d, &o, e, slot)) {
			*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
			return false;
		}
		const struct order_key *k = &o.keys[o.n - 1];
		uint32_t s = k->a;
		bool keep = scanned <= history || (failed_from != UINT64_MAX && t >= failed_from) ||
			    (s < ns && tail_wanted(&need[s], k));
		if (listed) {
			keep = true;
			if (this_lap && ++list.found == list.f->newest)
				list.newest_ns = t > SPARSE_MARGIN_NS ? t - SPARSE_MARGIN_NS : 0;
		}
		if (per) {
			/* Its checked stream: a reference that points nowhere is no known stream. */
			bucket = s < ns ? s : ns;
			if (per[bucket] < quota || t >= per_done_ns[bucket]) {
				keep = true;
				if (this_lap && ++per[bucket] == quota)
					per_done_ns[bucket] = t > SPARSE_MARGIN_NS ? t - SPARSE_MARGIN_NS : 0;
			}
		}
		if (s < ns && need[s].n.open && !(k->b & (CI_LAUNCH_FAILED | CI_LAUNCH_CAPTURED)) &&
		    k->extra) {
			int r = tail_account(&need[s], k, this_lap, cap);
			if (r < 0) {
				*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's "
						       "launches");
				return false;
			}
			if (r) {
				need[s].n.open = false;
				need[s].short_of = r == 2;
				open--;
				if (r == 2 && t < earliest)
					earliest = t;
			}
		}
		if (!keep)
			o.n--;
next:
		if (this_lap && !open && earliest != UINT64_MAX && t + SPARSE_MARGIN_NS < earliest)
			earliest = UINT64_MAX; /* the margin is passed */
		if (this_lap && list.found >= list.f->newest && list.newest_ns != UINT64_MAX &&
		    t < list.newest_ns)
			list.newest_ns = UINT64_MAX; /* the list's margin is passed */
	}
	release_ring(d, inplace, esize, cap, head - scanned, released);
	if (head > cap)
		stats->overwritten = head - cap;
	stats->unread = total - scanned;
	/* The keys were taken newest first: oldest first, they are nearly in time order. */
	for (size_t i = 0, j = o.n; i + 1 < j; i++, j--) {
		struct order_key t = o.keys[i];
		o.keys[i] = o.keys[j - 1];
		o.keys[j - 1] = t;
	}
	o.entries = inplace;
	o.stride = esize;
	if (o.n == 0)
		return true;
	if (!ci_sort_ordering(d, &o)) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory ordering the record's launches");
		return false;
	}
	*err = ci_order_entries(d, &o, ret, count);
	return !*err;
}

/* A sparse model leaves its allocation table where it is, for ci_model_each_alloc.  False when
 * it must be decoded (not in one mapped piece, a live source). */
static bool keep_alloc_table(struct decoder *d)
{
	const uint32_t kind = CI_SEC_ALLOCS;
	if (!d->usable[kind] || d->live)
		return false;
	const struct ci_section *sec = &d->secs[kind];
	uint64_t cap = sec->capacity, addr = d->base + sec->offset;
	if (cap == 0 || ci_source_available(d->src, addr, cap * sec->entry_size) < cap * sec->entry_size)
		return false;
	const uint8_t *inplace = ci_source_peek(d->src, addr, cap * sec->entry_size);
	struct ci_model_lazy *lz;
	if (!inplace || ci_lazy_of(d, &lz))
		return false;
	lz->table.entries = inplace;
	lz->table.stride = sec->entry_size;
	lz->table.judge = ci_judge_make(kind, cap, sec->head);
	d->m->sections[kind].unread = cap;
	/* Format 1.3: the granules of the table that were ever written, so that a look-up reads
	 * those and not the whole table.  Only a bitmap that covers all of it is used. */
	const uint32_t gk = CI_SEC_ALLOC_GRANULES;
	const struct ci_section *gs = &d->secs[gk];
	uint64_t granules = (cap * sec->entry_size + CI_ALLOC_GRANULE_BYTES - 1) / CI_ALLOC_GRANULE_BYTES;
	uint64_t bytes = (granules + 7) / 8, gaddr = d->base + gs->offset;
	if (d->usable[gk] && gs->capacity >= bytes && ci_source_available(d->src, gaddr, bytes) == bytes &&
	    (lz->table.granules = ci_source_peek(d->src, gaddr, bytes)))
		d->m->sections[gk].accepted = bytes;
	uint64_t frees = d->usable[CI_SEC_FREES] ? d->secs[CI_SEC_FREES].head : 0;
	lz->table.min_live = sec->head > frees ? sec->head - frees : 0;
	return true;
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
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's %s", ci_section_title(kind));
	/* Read in page-sized pieces so that a partly captured area keeps what is there. */
	uint32_t unit = sec->entry_size;
	uint64_t piece = 4096 / unit ? 4096 / unit : 1;
	for (uint64_t i = 0; i < units; i += piece) {
		uint64_t n = units - i < piece ? units - i : piece;
		if (ci_source_read_quiet(d->src, d->base + sec->offset + i * unit, raw + i * unit,
					 n * unit) != CI_READ_OK) {
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
	CI_TERMINATE(h->host);
	CI_TERMINATE(h->recorder_version);
	scrub_in_place(h->host, sizeof h->host);
	scrub_in_place(h->recorder_version, sizeof h->recorder_version);
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
				ci_fmt_size(have, a, sizeof a), ci_fmt_size(h->record_size, b, sizeof b),
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
		if (k == 0 || k >= CI_SECTION_KIND_MAX || !ci_section_title(k))
			continue; /* a section of a newer minor: ignored by the versioning rules */
		struct ci_section_stats *stats = &m->sections[k];
		if (stats->present) {
			ci_warnings_add(&m->warnings, "the record lists the %s section twice; the second "
					"(directory entry %u) is ignored", ci_section_title(k), i);
			continue;
		}
		*stats = (struct ci_section_stats){
			.kind = k, .present = true, .capacity = sec.capacity, .head = sec.head,
			.dropped = sec.dropped,
		};
		d->secs[k] = sec;
		d->live_heads[k] = sec.head;
		d->dir_entry_addr[k] = d->base + h->section_dir_offset + (uint64_t)i * h->section_entry_size;
		const char *why = NULL;
		uint64_t size, end;
		const struct section_kind *sk = &ci_section_kinds[k];
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
					ci_section_title(k), i, (unsigned long long)sec.offset,
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
						ci_section_title(a), ci_section_title(b), ci_section_title(loser));
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

/* Live sources: every section's head read again (entries published meanwhile are referred to
 * by what is read next; see struct refcheck). */
void ci_refresh_live_heads(struct decoder *d)
{
	if (!d->live)
		return;
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		struct ci_section sec;
		if (d->usable[k] && reread_section(d, k, &sec) && sec.head > d->live_heads[k])
			d->live_heads[k] = sec.head;
	}
}

/* Format 1.5: a graph launch is its launch-ring entry of api graph, which holds the exec's slot
 * and the replay number (the recorder writes no graph-launch ring entry any more, a locked
 * claim less per replay).  The model's list of graph launches is made of the launches it holds
 * (all of them, the tail of a sparse model's, none of a lazy model's: the stages after decode
 * read 1.5's from the launches). */
static struct ci_error *graph_launches_of_launches(struct ci_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->launch_count; i++)
		n += m->launches[i].api == CI_LAUNCH_GRAPH;
	if (!n)
		return NULL;
	struct ci_graph_launch *g = calloc(n, sizeof *g);
	if (!g)
		return ci_error_create(CI_ERR_NOMEM, "out of memory listing graph launches");
	n = 0;
	for (size_t i = 0; i < m->launch_count; i++) {
		if (m->launches[i].api == CI_LAUNCH_GRAPH)
			g[n++] = ci_graph_launch_of_launch(&m->launches[i]);
	}
	free(m->graph_launches);
	m->graph_launches = g;
	m->graph_launch_count = n;
	return NULL;
}

static struct ci_error *decode_sections(struct decoder *d)
{
	struct ci_model *m = d->m;
	struct ci_error *err = NULL;
	void *p;

#define DECODE(kind, arr, cnt)                                                               \
	do {                                                                                 \
		if ((err = decode_entries(d, kind, &p, &m->cnt)))                            \
			return err;                                                          \
		m->arr = p;                                                                  \
	} while (0)
	/* The tables first, the byte areas they point into after them: in a running process an
	 * entry published between the two reads then finds its frames and strings (read the
	 * other way round, a stack published meanwhile pointed past the frames read). */
	DECODE(CI_SEC_STACKS, stacks, stack_count);
	DECODE(CI_SEC_HOST_MODULES, host_modules, host_module_count);
	DECODE(CI_SEC_DEVICES, devices, device_count);
	DECODE(CI_SEC_CONTEXTS, contexts, context_count);
	DECODE(CI_SEC_STREAMS, streams, stream_count);
	DECODE(CI_SEC_CODE_MODULES, code_modules, code_module_count);
	DECODE(CI_SEC_FUNCTIONS, functions, function_count);
	DECODE(CI_SEC_THREADS, threads, thread_count);
	DECODE(CI_SEC_PYTHON, python, python_count);
	DECODE(CI_SEC_PY_CODES, py_codes, py_code_count);
	DECODE(CI_SEC_GRAPHS, graphs, graph_count);
	DECODE(CI_SEC_GRAPH_EXECS, graph_execs, graph_exec_count);
	DECODE(CI_SEC_GRAPH_NODES, graph_nodes, graph_node_count);
	DECODE(CI_SEC_NCCL_COMMS, nccl_comms, nccl_comm_count);
	DECODE(CI_SEC_JOB, job_vars, job_var_count);
	DECODE(CI_SEC_PEER_MEMORY, peer_mems, peer_mem_count);
	refresh_head(d, CI_SEC_STRINGS);
	refresh_head(d, CI_SEC_FRAMES);

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

	/* Kernel-log lines: the used part (text; the evidence stage parses it). */
	uint64_t nklog = area_units(d, CI_SEC_KERNEL_LOG, true);
	if ((err = decode_area(d, CI_SEC_KERNEL_LOG, &nklog, &p)))
		return err;
	m->kernel_log = nklog ? p : NULL;
	m->kernel_log_size = nklog;
	if (!nklog)
		free(p);
	m->sections[CI_SEC_KERNEL_LOG].accepted = nklog;

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

	/* Tables are checked before the rings, whose entries are checked as they are copied. */
	ci_refresh_live_heads(d);
	ci_check_tables(d);
	/* The small rings before the launches: a sparse read of the launch ring goes back as far
	 * as the errors and the synchronizations in the event ring say it must. */
	DECODE(CI_SEC_FREES, frees, free_count);
	DECODE(CI_SEC_ERRORS, errors, error_count);
	DECODE(CI_SEC_EVENTS, events, event_count);
	DECODE(CI_SEC_GRAPH_LAUNCHES, graph_launches, graph_launch_count);
	DECODE(CI_SEC_NCCL_CALLS, nccl_calls, nccl_call_count);
	if (!d->sparse || !decode_launch_tail(d, &p, &m->launch_count, &err)) {
		if (err)
			return err;
		DECODE(CI_SEC_LAUNCHES, launches, launch_count);
	} else {
		m->launches = p;
	}
	if (ci_model_graph_launches_in_launches(m) && m->launches && !m->graph_launch_count &&
	    (err = graph_launches_of_launches(m)))
		return err;
	if (!d->sparse || d->every_alloc || !keep_alloc_table(d))
		DECODE(CI_SEC_ALLOCS, allocs, alloc_count);
#undef DECODE

	ci_report_references(d);
	return NULL;
}

/* What the writer could not store, section by section (a full table, a contended ring slot, a
 * string or stack too long): the record says less than happened. */
static void report_dropped(struct decoder *d)
{
	struct ci_model *m = d->m;
	bool any = false;
	char n[32], size[32];
	ci_fmt_size(m->header.record_size, size, sizeof size);
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (!s->present || !s->dropped)
			continue;
		any = true;
		snprintf(n, sizeof n, "%llu", (unsigned long long)s->dropped);
		switch (k) {
		case CI_SEC_ALLOCS:
			ci_warnings_add(&m->warnings,
					"the allocation table was full: %s allocations were not recorded, "
					"so pointers into them cannot be attributed (the record is %s; a "
					"larger CUDAINSPECT_SIZE keeps more)", n, size);
			break;
		case CI_SEC_LAUNCHES:
		case CI_SEC_FREES:
		case CI_SEC_ERRORS:
		case CI_SEC_EVENTS:
			ci_warnings_add(&m->warnings,
					"%s: %s entr%s not recorded (another thread still held the slot)",
					ci_section_title(k), n, s->dropped == 1 ? "y was" : "ies were");
			break;
		case CI_SEC_STRINGS:
		case CI_SEC_FRAMES:
		case CI_SEC_STACKS:
		case CI_SEC_SYMBOL_IMAGE:
			ci_warnings_add(&m->warnings,
					"%s: %s did not fit in the record (names or stacks are missing; the "
					"record is %s, a larger CUDAINSPECT_SIZE keeps more)", ci_section_title(k), n,
					size);
			break;
		default:
			ci_warnings_add(&m->warnings,
					"the %s table was full: %s %s not recorded (the record is %s; a "
					"larger CUDAINSPECT_SIZE keeps more)", ci_section_title(k), n,
					s->dropped == 1 ? "was" : "were", size);
			break;
		}
	}
	if (!any && (m->header.flags & CI_HDR_TRUNCATED))
		ci_warnings_add(&m->warnings, "the recorder marked the record truncated: some table was "
				"full and entries were not recorded (the record is %s; a larger "
				"CUDAINSPECT_SIZE keeps more)", size);
}

/* One warning per section that had entries it could not trust. */
static void summarize(struct decoder *d)
{
	struct ci_model *m = d->m;
	report_dropped(d);
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (!s->present || !d->usable[k])
			continue;
		if (s->torn)
			ci_warnings_add(&m->warnings,
					"%s: %llu entr%s being written while the record was copied (torn), not used",
					ci_section_title(k), (unsigned long long)s->torn, s->torn == 1 ? "y was" : "ies were");
		if (s->invalid)
			ci_warnings_add(&m->warnings,
					"%s: %llu entr%s failed validation (damaged record), not used",
					ci_section_title(k), (unsigned long long)s->invalid, s->invalid == 1 ? "y" : "ies");
	}
	/* What is missing goes on one line: a truncated core loses many sections at once. */
	char line[512] = "";
	size_t used = 0;
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX && used < sizeof line; k++) {
		const struct ci_section_stats *s = &m->sections[k];
		if (s->present && d->usable[k] && s->missing)
			used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %llu", used ? ", " : "",
						 ci_section_title(k), (unsigned long long)s->missing);
	}
	if (used)
		ci_warnings_add(&m->warnings,
				"not in the input, so unknown (entries; bytes for strings): %s", line);
}

/* Name the source's threads from the record's thread table where /proc or the core had none. */
struct ci_error *ci_decode_with(struct ci_source *src, const struct ci_location *loc,
				const struct ci_decode_options *opts, struct ci_model **ret)
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
	d->rc = (struct refcheck){ m, d->bad_refs, d->unresolved, d->late,
				   d->live ? d->live_heads : NULL };
	d->lazy = opts && opts->lazy;
	d->sparse = opts && opts->sparse;
	if (d->sparse) {
		d->list = opts->list;
		d->every_alloc = opts->every_alloc;
	}
	m->location = *loc;
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++)
		m->sections[k].kind = k;
	struct ci_error *err = decode_header(d, loc);
	if (!err)
		err = decode_directory(d);
	if (!err)
		err = decode_sections(d);
	if (!err)
		summarize(d);
	free(d->scratch);
	free(d);
	if (err) {
		ci_model_destroy(m);
		return err;
	}
	*ret = m;
	return NULL;
}

struct ci_model *ci_model_without_record(void)
{
	struct ci_model *m = calloc(1, sizeof *m);
	for (uint32_t k = 0; m && k < CI_SECTION_KIND_MAX; k++)
		m->sections[k].kind = k;
	if (m)
		m->no_record = true;
	return m;
}

struct ci_error *ci_decode(struct ci_source *src, const struct ci_location *loc,
			   struct ci_model **ret)
{
	return ci_decode_with(src, loc, NULL, ret);
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

