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
 * seqlock-style: seq, payload, seq again.  A lazy model (ci_decode_options.lazy) keeps the launch
 * ring and the live allocations in the input, ordered, and copies an entry when it is asked for.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>

#include "evidence.h"
#include "model-internal.h"
#include "reader-internal.h"

/* How a section's entries are laid out (record.h). */
enum layout {
	LAYOUT_TABLE,     /* append-only: slot i holds seq i + 1 */
	LAYOUT_RING,      /* slot (seq - 1) % capacity, several laps */
	LAYOUT_ALLOCS,    /* open-addressed by address, seq = allocation id */
	LAYOUT_BYTES,     /* byte or word area without seq */
};

struct section_kind {
	enum layout layout;       /* 0 (LAYOUT_TABLE) for kinds this reader does not know: see
				   * ci_section_title */
	uint32_t size;            /* bytes this reader knows (minimum entry_size) */
	uint32_t fixed_size;      /* byte areas: required entry_size (0 = any >= size) */
	/* Rings and the allocation table: the model's order is by the 64-bit fields at these
	 * offsets (time then seq; free time then seq; address then id). */
	uint16_t order_major, order_minor;
};

#define RING_BY_TIME(type) offsetof(type, time_ns), offsetof(type, seq)

static const struct section_kind kinds[CI_SECTION_KIND_MAX] = {
	[CI_SEC_HOST_MODULES] = { LAYOUT_TABLE, sizeof(struct ci_host_module), 0, 0, 0 },
	[CI_SEC_DEVICES] = { LAYOUT_TABLE, sizeof(struct ci_device), 0, 0, 0 },
	[CI_SEC_CONTEXTS] = { LAYOUT_TABLE, sizeof(struct ci_context), 0, 0, 0 },
	[CI_SEC_STREAMS] = { LAYOUT_TABLE, sizeof(struct ci_stream), 0, 0, 0 },
	[CI_SEC_CODE_MODULES] = { LAYOUT_TABLE, sizeof(struct ci_code_module), 0, 0, 0 },
	[CI_SEC_FUNCTIONS] = { LAYOUT_TABLE, sizeof(struct ci_function), 0, 0, 0 },
	[CI_SEC_LAUNCHES] = { LAYOUT_RING, sizeof(struct ci_launch), 0,
			      RING_BY_TIME(struct ci_launch) },
	[CI_SEC_ALLOCS] = { LAYOUT_ALLOCS, sizeof(struct ci_alloc), 0,
			    offsetof(struct ci_alloc, address), offsetof(struct ci_alloc, id) },
	[CI_SEC_FREES] = { LAYOUT_RING, sizeof(struct ci_alloc), 0,
			   offsetof(struct ci_alloc, free_ns), offsetof(struct ci_alloc, seq) },
	[CI_SEC_ERRORS] = { LAYOUT_RING, sizeof(struct ci_api_error), 0,
			    RING_BY_TIME(struct ci_api_error) },
	[CI_SEC_EVENTS] = { LAYOUT_RING, sizeof(struct ci_event), 0,
			    RING_BY_TIME(struct ci_event) },
	[CI_SEC_STACKS] = { LAYOUT_TABLE, sizeof(struct ci_stack), 0, 0, 0 },
	[CI_SEC_FRAMES] = { LAYOUT_BYTES, 8, 8, 0, 0 },
	[CI_SEC_STRINGS] = { LAYOUT_BYTES, 1, 1, 0, 0 },
	[CI_SEC_BREADCRUMBS] = { LAYOUT_BYTES, 4, 0, 0, 0 },
	[CI_SEC_THREADS] = { LAYOUT_TABLE, sizeof(struct ci_thread), 0, 0, 0 },
	[CI_SEC_SYMBOL_IMAGE] = { LAYOUT_BYTES, 1, 1, 0, 0 },
};
#undef RING_BY_TIME

/* Entry states while reading. */
enum { ENTRY_OK = 0, ENTRY_MISSING = 1, ENTRY_TORN = 2 };

/* Clears references that point nowhere in entries of a model, counting them unless the
 * counters are NULL (entries a lazy model copies later were counted when decoded).  On a live
 * source a reference to an entry that the writer published after its table was read (below the
 * table's head as read again now) is not damage: it is counted as late. */
struct refcheck {
	const struct ci_model *m;
	uint64_t *bad_refs, *unresolved, *late;   /* per section kind */
	const uint64_t *heads;    /* live sources: each section's head as last read, else NULL */
};

struct decoder {
	struct ci_source *src;
	struct ci_model *m;
	uint64_t base;
	bool live;
	bool lazy;                /* ci_decode_options.lazy */
	struct ci_section secs[CI_SECTION_KIND_MAX];
	bool usable[CI_SECTION_KIND_MAX];
	uint64_t dir_entry_addr[CI_SECTION_KIND_MAX]; /* for re-reading head on live sources */
	uint64_t bad_refs[CI_SECTION_KIND_MAX];   /* point nowhere: damage */
	uint64_t unresolved[CI_SECTION_KIND_MAX]; /* point into a part the input lacks */
	uint64_t late[CI_SECTION_KIND_MAX];       /* live: point to entries published meanwhile */
	uint64_t live_heads[CI_SECTION_KIND_MAX]; /* live: every section's head as last read */
	bool sparse;              /* ci_decode_options.sparse */
	void *scratch;                            /* for sorting, see sort_ordering */
	size_t scratch_size;
	struct refcheck rc;                       /* over m, counting into the two above */
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
	struct ci_error *err = ci_source_read(d->src, d->dir_entry_addr[kind], sec, sizeof *sec);
	if (err) {
		ci_error_destroy(err);
		return false;
	}
	return sec->kind == kind;
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

enum verdict { V_SKIP, V_ACCEPT, V_TORN, V_INVALID };

/* The numbers an entry is judged against: its section's capacity and head as last read. */
struct judge {
	uint32_t kind;
	uint64_t cap, head;
	uint64_t lap_base;        /* rings: seq - 1 of slot 0 in the newest lap (no division per entry) */
};

static struct judge judge_make(uint32_t kind, uint64_t cap, uint64_t head)
{
	return (struct judge){ kind, cap, head, head ? (head - 1) / cap * cap : 0 };
}

/* What the publishing rules of record.h make of entry E (at least the bytes this reader knows)
 * found in SLOT. */
static inline enum verdict classify(const struct judge *j, const uint8_t *e, uint64_t slot)
{
	enum layout layout = kinds[j->kind].layout;
	uint64_t seq = ci_le64(e), cap = j->cap;
	if (seq == CI_SEQ_BUSY)
		return V_TORN;
	if (seq == 0)
		return V_SKIP;
	if (layout == LAYOUT_ALLOCS) {
		struct ci_alloc a;
		memcpy(&a, e, sizeof a);
		if (a.state == CI_ALLOC_EMPTY || a.state == CI_ALLOC_TOMB)
			return V_SKIP;
		if (a.state == CI_ALLOC_FREEING)
			return V_TORN; /* between the table and the free ring */
		uint64_t home = ci_alloc_hash(a.address) % cap, end;
		uint64_t dist = slot >= home ? slot - home : slot + cap - home;
		return a.state == CI_ALLOC_LIVE && a.id == seq && dist < CI_ALLOC_PROBE_MAX &&
			       ci_add(a.address, a.size, &end) ? V_ACCEPT : V_INVALID;
	}
	/* In its slot: (seq - 1) % capacity == slot.  Most entries are of the newest lap or the one
	 * before, which is checked without dividing. */
	uint64_t s1 = seq - 1;
	bool in_slot = layout == LAYOUT_TABLE ? s1 == slot
		       : s1 == slot + j->lap_base || (j->lap_base >= cap && s1 == slot + j->lap_base - cap) ||
				 s1 % cap == slot;
	/* Published after `head` was copied (a snapshot taken while other threads ran): whole,
	 * probably, but outside what record.h lets a reader trust. */
	if (in_slot && seq > j->head && seq - j->head <= cap)
		return V_TORN;
	if (!in_slot || seq > j->head)
		return V_INVALID;
	/* The free ring holds FREED copies only. */
	if (j->kind == CI_SEC_FREES) {
		uint32_t state;
		memcpy(&state, e + offsetof(struct ci_alloc, state), sizeof state);
		if (state != CI_ALLOC_FREED)
			return V_INVALID;
	}
	return V_ACCEPT;
}

static void count_verdict(struct ci_section_stats *stats, enum verdict v)
{
	stats->accepted += v == V_ACCEPT;
	stats->torn += v == V_TORN;
	stats->invalid += v == V_INVALID;
}

/* ---------------------------------------------------------------------------------------- */
/* Ordering                                                                                   */

static void check_entry(struct refcheck *r, uint32_t kind, void *entry);
static void refresh_live_heads(struct decoder *d);

/* Arrays of several MiB (the launches and allocations of a large record) cost more in page
 * faults than in copying; transparent huge pages, where the system offers them on request, cut
 * that cost about threefold.  The result is freed with free(). */
static void *alloc_big(size_t size)
{
	const size_t huge = 2u << 20;
	void *p;
	if (size < 2 * huge)
		return malloc(size ? size : 1);
	if (posix_memalign(&p, huge, size))
		return NULL;
	madvise(p, size / huge * huge, MADV_HUGEPAGE); /* advice only: failure changes nothing */
	return p;
}

/* An accepted entry of a ring or of the allocation table on its way into the model: the field
 * that orders it (time, free time, address), where it is, and what diagnose reads of every
 * launch and allocation, with its references checked (a lazy model keeps these).  Slots fit in
 * 32 bits: a section lies inside a record of at most 64 GiB, and these entries are >= 72 bytes. */
struct order_key {
	union {
		struct {
			uint64_t major;
			uint64_t extra;   /* launches: stream_seq; allocations: size */
			uint32_t a;       /* launches: stream slot; allocations: kind */
			uint32_t b;       /* launches: flags */
		};
		struct ci_launch_brief launch; /* the same, as diagnose reads them */
		struct ci_alloc_brief alloc;
	};
	uint32_t slot;
	uint32_t pad;
};
_Static_assert(offsetof(struct ci_launch_brief, stream_seq) == 8 && offsetof(struct ci_launch_brief, stream) == 16 &&
		       offsetof(struct ci_launch_brief, flags) == 20 && offsetof(struct ci_alloc_brief, kind) == 16,
	       "briefs overlay the keys");

/* The accepted entries of one section: entry `slot` is at ENTRIES + slot * STRIDE. */
struct ordering {
	uint32_t kind;
	const uint8_t *entries;
	size_t stride;
	struct order_key *keys;   /* accepted entries, in slot order until sorted */
	struct order_key *tmp;    /* as many, while sorting: the decoder's scratch space */
	size_t n, cap;
};

static void ordering_deinit(struct ordering *o)
{
	free(o->keys);
}

/* Take accepted entry E in SLOT: its references are checked and counted on a copy of the part
 * that holds them (a launch's parameters are not read here). */
static bool ordering_add(struct decoder *d, struct ordering *o, const uint8_t *e, uint64_t slot)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		struct order_key *k = realloc(o->keys, cap * sizeof *k);
		if (!k)
			return false;
		o->keys = k;
		o->cap = cap;
	}
	union {
		struct ci_launch launch;
		struct ci_alloc alloc;
		struct ci_api_error error;
		struct ci_event event;
	} copy;
	memcpy(&copy, e, o->kind == CI_SEC_LAUNCHES ? offsetof(struct ci_launch, params) : kinds[o->kind].size);
	check_entry(&d->rc, o->kind, &copy);
	struct order_key k = { .major = ci_le64((const uint8_t *)&copy + kinds[o->kind].order_major),
			       .slot = (uint32_t)slot };
	if (o->kind == CI_SEC_LAUNCHES) {
		k.extra = copy.launch.stream_seq;
		k.a = copy.launch.stream;
		k.b = copy.launch.flags;
	} else if (o->kind == CI_SEC_ALLOCS) {
		k.extra = copy.alloc.size;
		k.a = copy.alloc.kind;
	}
	o->keys[o->n++] = k;
	return true;
}

static uint64_t ordering_minor(const struct ordering *o, uint64_t slot)
{
	return ci_le64(o->entries + slot * o->stride + kinds[o->kind].order_minor);
}

/* Sort the keys by major in linear time: a least-significant-digit radix sort, 11 bits a pass,
 * over the bits in which keys differ (about 32 for the times of a ring or the addresses of the
 * allocations, so three passes).  Rings come out of the record almost in time order already
 * (each thread fills the slots it claimed in chunks), and are only checked then. */
static bool order_by_major(struct ordering *o)
{
	enum { DIGIT = 11, BUCKETS = 1 << DIGIT };
	struct order_key *k = o->keys;
	size_t n = o->n;
	uint64_t diff = 0;
	bool sorted = true;
	for (size_t i = 1; i < n; i++) {
		diff |= k[i].major ^ k[0].major;
		sorted &= k[i - 1].major <= k[i].major;
	}
	if (sorted)
		return true;
	unsigned passes = (64 - (unsigned)__builtin_clzll(diff) + DIGIT - 1) / DIGIT;
	size_t (*hist)[BUCKETS] = calloc(passes, sizeof *hist);
	if (!hist)
		return false;
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < passes; p++)
			hist[p][(k[i].major >> (p * DIGIT)) & (BUCKETS - 1)]++;
	struct order_key *from = k, *to = o->tmp;
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = p * DIGIT;
		if (hist[p][(from[0].major >> shift) & (BUCKETS - 1)] == n)
			continue; /* every key has the same digit here */
		size_t sum = 0;
		for (unsigned v = 0; v < BUCKETS; v++) {
			size_t c = hist[p][v];
			hist[p][v] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[hist[p][(from[i].major >> shift) & (BUCKETS - 1)]++] = from[i];
		struct order_key *t = from;
		from = to;
		to = t;
	}
	free(hist);
	o->keys = from;
	o->tmp = to;
	return true;
}

struct tie {
	uint64_t minor, slot;
};

static int tie_cmp(const void *a, const void *b)
{
	const struct tie *x = a, *y = b;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Entries with the same major go by minor (seq, allocation id), then slot.  Such runs are rare
 * and short (two launches in the same nanosecond, a VMM mapping at the start of its reserve);
 * a hostile record full of them costs an n log n sort, never more. */
static bool order_ties(struct ordering *o)
{
	struct order_key *k = o->keys;
	for (size_t b = 0, e; b < o->n; b = e) {
		for (e = b + 1; e < o->n && k[e].major == k[b].major; e++)
			;
		if (e - b < 2)
			continue;
		bool sorted = true;
		uint64_t prev = ordering_minor(o, k[b].slot);
		for (size_t i = b + 1; i < e; i++) {
			uint64_t minor = ordering_minor(o, k[i].slot);
			sorted &= prev < minor || (prev == minor && k[i - 1].slot < k[i].slot);
			prev = minor;
		}
		if (sorted)
			continue;
		struct tie *t = malloc((e - b) * sizeof *t);
		if (!t)
			return false;
		for (size_t i = b; i < e; i++)
			t[i - b] = (struct tie){ ordering_minor(o, k[i].slot), k[i].slot };
		qsort(t, e - b, sizeof *t, tie_cmp);
		for (size_t i = b; i < e; i++)
			k[i].slot = t[i - b].slot;
		free(t);
	}
	return true;
}

/* A ring's slots hold a few interleaved runs in time order: each writer thread fills the slots
 * it claimed in chunks, in its own time order.  Dealing the keys onto lanes (each key onto the
 * first lane whose last key is not later) recovers those runs, and merging the lanes sorts the
 * keys in two passes.  Returns false, with the keys untouched, when more than LANES_MAX lanes
 * are needed (many threads, or keys in no order: the allocation table), or on out-of-memory. */
enum { LANES_MAX = 16 };

static bool order_by_lanes(struct ordering *o)
{
	struct order_key *k = o->keys;
	size_t n = o->n, start[LANES_MAX + 1] = { 0 };
	uint64_t tail[LANES_MAX];
	unsigned lanes = 0;
	_cleanup_free_ uint8_t *lane = malloc(n ? n : 1);
	if (!lane)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned l = 0;
		while (l < lanes && tail[l] > k[i].major)
			l++;
		if (l == lanes && lanes++ == LANES_MAX)
			return false;
		tail[l] = k[i].major;
		start[l + 1]++;
		lane[i] = (uint8_t)l;
	}
	for (unsigned l = 1; l <= lanes; l++)
		start[l] += start[l - 1];
	size_t pos[LANES_MAX];
	memcpy(pos, start, sizeof pos);
	for (size_t i = 0; i < n; i++)
		o->tmp[pos[lane[i]]++] = k[i];
	/* Merge: pos[l] walks lane l from start[l] to start[l + 1]. */
	memcpy(pos, start, sizeof pos);
	for (size_t out = 0; out < n; out++) {
		unsigned best = LANES_MAX;
		for (unsigned l = 0; l < lanes; l++)
			if (pos[l] < start[l + 1] &&
			    (best == LANES_MAX || o->tmp[pos[l]].major < o->tmp[pos[best]].major))
				best = l;
		k[out] = o->tmp[pos[best]++];
	}
	return true;
}

/* Sort the keys of O, in place or swapped with O->tmp (as large). */
static bool sort_keys(struct ordering *o, uint64_t cap, uint64_t head)
{
	size_t n = o->n;
	/* A wrapped ring is oldest first from the slot the next entry would take: when that order
	 * is the time order (nothing to sort), the keys are turned round; else the sort does it. */
	if (kinds[o->kind].layout == LAYOUT_RING && head > cap) {
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (o->keys[mid].slot < head % cap)
				lo = mid + 1;
			else
				hi = mid;
		}
		bool sorted = lo == 0 || o->keys[n - 1].major <= o->keys[0].major;
		for (size_t i = 1; i < n && sorted; i++)
			sorted = i == lo || o->keys[i - 1].major <= o->keys[i].major;
		if (sorted && lo) {
			memcpy(o->tmp, o->keys + lo, (n - lo) * sizeof *o->tmp);
			memcpy(o->tmp + (n - lo), o->keys, lo * sizeof *o->tmp);
			struct order_key *t = o->keys;
			o->keys = o->tmp;
			o->tmp = t;
		}
	}
	return (order_by_lanes(o) || order_by_major(o)) && order_ties(o);
}

/* Put O's keys in the model's order. */
static bool sort_ordering(struct decoder *d, struct ordering *o)
{
	const struct ci_section *sec = &d->secs[o->kind];
	uint64_t cap = sec->capacity, head = sec->head;
	size_t n = o->n;
	/* The sorts work out of place, in the decoder's scratch space, which is kept from section
	 * to section (new memory costs more than the sorting). */
	if (d->scratch_size < n * sizeof *o->tmp) {
		free(d->scratch);
		d->scratch = alloc_big(n * sizeof *o->tmp);
		d->scratch_size = d->scratch ? n * sizeof *o->tmp : 0;
		if (!d->scratch)
			return false;
	}
	struct order_key *keys = o->keys;
	o->tmp = d->scratch;
	bool ok = sort_keys(o, cap, head);
	/* Whichever buffer does not hold the keys now is the scratch space. */
	if (o->keys != keys) {
		d->scratch = keys;
		d->scratch_size = o->cap * sizeof *keys;
		o->cap = n;
	}
	o->tmp = NULL;
	return ok;
}

/* Copy the accepted entries of O into a new array in the model's order, clearing their bad
 * references (counted when they were accepted).  Every copy is judged again, so what the model
 * holds is exactly what was accepted even if the input changed meanwhile (a file rewritten
 * under us). */
static struct ci_error *order_entries(struct decoder *d, struct ordering *o, void **ret,
				      size_t *count)
{
	const struct section_kind *sk = &kinds[o->kind];
	const struct ci_section *sec = &d->secs[o->kind];
	struct ci_section_stats *stats = &d->m->sections[o->kind];
	struct judge judge = judge_make(o->kind, sec->capacity, sec->head);
	struct refcheck quiet = { .m = d->m };
	size_t n = o->n;
	uint8_t *out = alloc_big(n * sk->size);
	if (!out)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's %s", ci_section_title(o->kind));
	size_t kept = 0;
	for (size_t j = 0; j < n; j++) {
		/* Allocations are copied in address order from a table in hash order: fetch ahead. */
		if (j + 8 < n) {
			const uint8_t *next = o->entries + o->keys[j + 8].slot * o->stride;
			for (size_t off = 0; off < sk->size; off += 64)
				__builtin_prefetch(next + off);
		}
		uint8_t *e = out + kept * sk->size;
		memcpy(e, o->entries + o->keys[j].slot * o->stride, sk->size);
		if (classify(&judge, e, o->keys[j].slot) != V_ACCEPT ||
		    ci_le64(e + sk->order_major) != o->keys[j].major) {
			stats->accepted--;
			stats->torn++;
			continue;
		}
		check_entry(&quiet, o->kind, e);
		kept++;
	}
	if (kept == 0) {
		free(out);
		out = NULL;
	}
	*ret = out;
	*count = kept;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Lazy models                                                                                */

/* A section of a lazy model: its accepted entries stay where they are in the input. */
struct lazy_section {
	const uint8_t *entries;   /* entry `slot` at entries + slot * stride, in the source's image */
	size_t stride;
	struct order_key *keys;   /* the model's order */
	uint8_t *copies;          /* entry i at copies + i * (known size), copied on first use */
	uint8_t *copied;          /* one bit per entry */
};

/* A sparse model's allocation table, unread, where it lies in the input. */
struct alloc_table {
	const uint8_t *entries;   /* slot s at entries + s * stride; NULL when not kept */
	size_t stride;
	struct judge judge;
	struct ci_alloc **fetched; /* copies handed out by ci_model_alloc_at, by slot */
	uint64_t *fetched_slot;
	size_t nfetched, fetched_cap;
};

struct ci_model_lazy {
	struct ci_source *src;    /* a reference, which keeps the input mapped */
	struct lazy_section launches, allocs;
	struct alloc_table table;
};

static void lazy_destroy(struct ci_model_lazy *lazy)
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
static struct ci_error *lazy_of(struct decoder *d, struct ci_model_lazy **ret)
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
static struct ci_error *keep_lazily(struct decoder *d, struct ordering *o, size_t *count)
{
	struct ci_model_lazy *lz;
	struct ci_error *err = lazy_of(d, &lz);
	if (err)
		return err;
	struct lazy_section *ls = o->kind == CI_SEC_LAUNCHES ? &lz->launches : &lz->allocs;
	/* Pages of the copies that are never touched cost nothing. */
	ls->copies = malloc(o->n * kinds[o->kind].size);
	ls->copied = calloc((o->n + 7) / 8, 1);
	if (!ls->copies || !ls->copied)
		return ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's %s",
				       ci_section_title(o->kind));
	ls->entries = o->entries;
	ls->stride = o->stride;
	ls->keys = ci_steal(o->keys);
	*count = o->n;
	return NULL;
}

/* Entry I of a lazy section, copied and reference-checked the first time. */
static const void *lazy_entry(const struct ci_model *m, uint32_t kind, struct lazy_section *ls,
			      size_t i)
{
	size_t size = kinds[kind].size;
	uint8_t *copy = ls->copies + i * size;
	if (!(ls->copied[i / 8] & (1u << (i % 8)))) {
		memcpy(copy, ls->entries + ls->keys[i].slot * ls->stride, size);
		check_entry(&(struct refcheck){ .m = m }, kind, copy);
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
	return m->lazy && m->lazy->allocs.keys ? lazy_entry(m, CI_SEC_ALLOCS, &m->lazy->allocs, i) : NULL;
}

/* Entry I of a lazy section if it was copied already, else NULL. */
static const void *lazy_loaded(uint32_t kind, const struct lazy_section *ls, size_t i)
{
	if (!(ls->copied[i / 8] & (1u << (i % 8))))
		return NULL;
	return ls->copies + i * kinds[kind].size;
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
		const struct lazy_section *ls = &lz->allocs;
		for (size_t i = 0; i < m->alloc_count; i++) {
			const struct order_key *k = &ls->keys[i];
			uint64_t id = ci_le64(ls->entries + k->slot * ls->stride + offsetof(struct ci_alloc, id));
			r = (struct ci_alloc_ref){ k->alloc.address, k->alloc.size, id, k->alloc.kind, i };
			visit(&r, arg);
		}
		return m->alloc_count;
	}
	if (!lz || !lz->table.entries)
		return 0;
	/* A sparse model: the table where it lies, judged slot by slot as decode would. */
	const struct alloc_table *t = &lz->table;
	size_t n = 0;
	for (uint64_t slot = 0; slot < t->judge.cap; slot++) {
		const uint8_t *e = t->entries + slot * t->stride;
		if (slot + 8 < t->judge.cap)
			__builtin_prefetch(e + 8 * t->stride + 48);
		if (ci_le64(e) == 0 || classify(&t->judge, e, slot) != V_ACCEPT)
			continue;
		struct ci_alloc a;
		memcpy(&a, e, sizeof a);
		r = (struct ci_alloc_ref){ a.address, a.size, a.id, a.kind, slot };
		visit(&r, arg);
		n++;
	}
	return n;
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
	if (classify(&t->judge, (const uint8_t *)a, handle) != V_ACCEPT) {
		free(a);
		return NULL;
	}
	check_entry(&(struct refcheck){ .m = m }, CI_SEC_ALLOCS, a);
	t->fetched[t->nfetched] = a;
	t->fetched_slot[t->nfetched++] = handle;
	return a;
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
	const struct section_kind *sk = &kinds[kind];
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
	struct ordering o __attribute__((cleanup(ordering_deinit))) = { .kind = kind };
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
		nomem |= !(o.keys = alloc_big(o.cap * sizeof *o.keys));
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
	for (uint64_t first = 0, cnt; first < have && !stop; first += cnt) {
		cnt = have - first < per_chunk ? have - first : per_chunk;
		const uint8_t *p = inplace ? inplace + first * esize : c.buf;
		if (!inplace) {
			read_entries(d, addr + first * esize, cnt, esize, &c);
			refresh_head(d, kind);
			if (layout != LAYOUT_TABLE)
				refresh_live_heads(d);
		}
		uint64_t head = d->secs[kind].head;
		struct judge judge = judge_make(kind, cap, head);
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
				v = classify(&judge, copy, slot);
				if (v == V_ACCEPT)
					last_slot = slot + 1;
				else
					memset(copy, 0, out_size);
			} else {
				v = classify(&judge, e, slot);
				if (v == V_ACCEPT) {
					if (staging)
						memcpy(staging + slot * out_size, e, out_size);
					if (!ordering_add(d, &o, e, slot))
						return ci_error_create(CI_ERR_NOMEM, "out of memory "
								       "decoding the record's %s", ci_section_title(kind));
				}
			}
			count_verdict(stats, v);
		}
		if (lazy)
			ci_source_release(d->src, p, cnt * esize);
	}
	uint64_t head = d->secs[kind].head;
	if (layout == LAYOUT_RING && head > cap)
		stats->overwritten = head - cap;
	if (layout != LAYOUT_TABLE) {
		o.entries = inplace ? inplace : staging;
		o.stride = inplace ? esize : out_size;
		if (o.n == 0)
			return NULL;
		if (!sort_ordering(d, &o))
			return ci_error_create(CI_ERR_NOMEM, "out of memory ordering the record's %s", ci_section_title(kind));
		if (lazy)
			return keep_lazily(d, &o, count);
		return order_entries(d, &o, ret, count);
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

/* The most launch-ring entries a sparse decode looks at before it gives up and reads the whole
 * ring (4 MiB of entries). */
#define SPARSE_SCAN_MAX 16384u
/* Two threads that launch into one stream may fill launch-ring slots out of its order for as long
 * as one of them keeps an unused chunk of slots (the recorder abandons one after 1 ms, about
 * the time a launch call may take besides): where the ring lacks some of a stream's unfinished
 * launches, so that they cannot all be counted, the scan goes on past the launches made this
 * long before the newest it needs. */
#define SPARSE_MARGIN_NS 1200000ull

/* What a sparse scan still has to find of one stream's launches (what the evidence says the
 * diagnosis weighs, corefile/evidence.h), and how many of them it has seen: of those numbered in
 * (lo, hi], for a stream without breadcrumbs those made after sync_ns. */
struct tail_need {
	struct ci_launch_need n;
	uint64_t seen;
};

/* Account launch K (a key, newest first) to its stream's need.  Returns 0 while the stream
 * still needs launches, 1 when all it needs are in, 2 when the ring lacks some of them and the
 * scan must go on for SPARSE_MARGIN_NS. */
static int tail_account(struct tail_need *tn, const struct order_key *k)
{
	struct ci_launch_need *n = &tn->n;
	uint64_t seq = k->extra, t = k->major;
	if (n->by_crumb) {
		if (seq > n->lo && seq <= n->hi && ++tn->seen >= n->hi - n->lo)
			return 1;
		return seq <= n->lo + 1 ? 2 : 0;
	}
	if (n->sync_ns && t < n->sync_ns) {
		/* The first launch known finished: those after it are the window. */
		n->lo = seq;
		return tn->seen >= n->hi - n->lo ? 1 : 2;
	}
	if (++tn->seen >= CI_OPEN_WINDOW_MAX)
		return tn->seen >= n->hi - (seq ? seq - 1 : 0) ? 1 : 2;
	return 0;
}

/* Read the launch ring of a sparse model from its head back: every stream's launches that have
 * not finished (past its breadcrumb or its last synchronization, at most CI_OPEN_WINDOW_MAX of
 * a stream that has neither), the launch that failed behind the last API error, and, where
 * some of those are not in the ring, a margin (SPARSE_MARGIN_NS).  The entries are judged as
 * decode_entries judges them and copied into *RET in time order.  Returns false when the ring
 * must be read whole instead (not in one mapped piece, or the scan reached SPARSE_SCAN_MAX),
 * with *ERR set on out-of-memory. */
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

	/* What each stream needs; a stream without unfinished work needs nothing.  The evidence
	 * reads the tables and small rings, which are in already. */
	size_t ns = m->stream_count;
	_cleanup_free_ struct tail_need *need = calloc(ns ? ns : 1, sizeof *need);
	_cleanup_free_ struct ci_launch_need *needs = calloc(ns ? ns : 1, sizeof *needs);
	struct ci_evidence *ev = NULL;
	if (!need || !needs || (*err = ci_evidence_gather(m, &ev))) {
		if (!*err)
			*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
		return false;
	}
	ci_evidence_launch_needs(ev, m, needs);
	size_t open = 0;
	for (size_t s = 0; s < ns; s++) {
		need[s].n = needs[s];
		open += needs[s].open;
	}
	/* An API error without a device fault: its failed launch, made just before it. */
	uint64_t earliest = ev->failed_launch_window ? ev->failed_launch_from : UINT64_MAX;
	ci_evidence_destroy(ev);

	struct ordering o __attribute__((cleanup(ordering_deinit))) = { .kind = kind };
	o.cap = 1024;
	if (!(o.keys = malloc(o.cap * sizeof *o.keys))) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
		return false;
	}
	struct judge judge = judge_make(kind, cap, head);
	uint64_t total = head < cap ? head : cap, scanned = 0;
	/* Once nothing is open, the scan ends at entries made SPARSE_MARGIN_NS before EARLIEST. */
	/* What the scan counts, to be undone when the whole ring is read after all. */
	struct ci_section_stats saved = *stats;
	uint64_t saved_refs[3] = { d->bad_refs[kind], d->unresolved[kind], d->late[kind] };
	for (uint64_t idx = head; open || earliest != UINT64_MAX ? idx-- > head - total : false;) {
		if (scanned == SPARSE_SCAN_MAX) {
			*stats = saved;
			d->bad_refs[kind] = saved_refs[0];
			d->unresolved[kind] = saved_refs[1];
			d->late[kind] = saved_refs[2];
			return false;
		}
		uint64_t slot = idx % cap;
		const uint8_t *e = inplace + slot * esize;
		scanned++;
		uint64_t seq = ci_le64(e);
		if (seq == 0)
			continue;
		enum verdict v = classify(&judge, e, slot);
		count_verdict(stats, v);
		if (v != V_ACCEPT)
			continue;
		if (!ordering_add(d, &o, e, slot)) {
			*err = ci_error_create(CI_ERR_NOMEM, "out of memory decoding the record's launches");
			return false;
		}
		/* Only an entry of this lap says when its slot was claimed. */
		bool this_lap = seq == idx + 1;
		const struct order_key *k = &o.keys[o.n - 1];
		uint32_t s = k->a;
		uint64_t t = k->major;
		if (s < ns && need[s].n.open && !(k->b & (CI_LAUNCH_FAILED | CI_LAUNCH_CAPTURED)) &&
		    k->extra) {
			int r = tail_account(&need[s], k);
			if (r) {
				need[s].n.open = false;
				open--;
				if (r == 2 && t < earliest)
					earliest = t;
			}
		}
		if (!open && (earliest == UINT64_MAX || (this_lap && t + SPARSE_MARGIN_NS < earliest)))
			break;
	}
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
	if (!sort_ordering(d, &o)) {
		*err = ci_error_create(CI_ERR_NOMEM, "out of memory ordering the record's launches");
		return false;
	}
	*err = order_entries(d, &o, ret, count);
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
	if (!inplace || lazy_of(d, &lz))
		return false;
	lz->table.entries = inplace;
	lz->table.stride = sec->entry_size;
	lz->table.judge = judge_make(kind, cap, sec->head);
	d->m->sections[kind].unread = cap;
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

/* Count a reference of a KIND entry to entry (or string offset) AT of TARGET, which cannot
 * resolve it: damage, unless part of TARGET is simply not in the input, or, on a live source,
 * the writer published it after TARGET was read. */
static void bad_ref(struct refcheck *r, uint32_t kind, uint32_t target, uint64_t at)
{
	if (!r->bad_refs)
		return;
	if (r->heads && at < r->heads[target])
		r->late[kind]++;
	else if (r->m->sections[target].missing)
		r->unresolved[kind]++;
	else
		r->bad_refs[kind]++;
}

/* Count damage in a KIND entry that is not a reference. */
static void bad_field(struct refcheck *r, uint32_t kind)
{
	if (r->bad_refs)
		r->bad_refs[kind]++;
}

/* Clear a slot reference to CI_NONE unless it names an accepted entry of TARGET. */
#define CHECK_SLOT(r, kind, field, target, table, count)                                    \
	do {                                                                                 \
		if ((field) != CI_NONE && !slot_ok((table), (count), sizeof *(table), (field))) { \
			bad_ref((r), (kind), (target), (field));                             \
			(field) = CI_NONE;                                                   \
		}                                                                            \
	} while (0)

static void check_string(struct refcheck *r, uint32_t kind, uint32_t *off)
{
	if (*off >= r->m->strings_size) {
		bad_ref(r, kind, CI_SEC_STRINGS, *off);
		*off = 0;
	}
}

static void check_stack(struct refcheck *r, uint32_t kind, uint32_t *id)
{
	if (*id != 0 && (*id > r->m->stack_count || r->m->stacks[*id - 1].seq == 0)) {
		bad_ref(r, kind, CI_SEC_STACKS, *id - 1);
		*id = 0;
	}
}

#define M (r->m)
#define CHECK_CTX(kind, f) CHECK_SLOT(r, kind, f, CI_SEC_CONTEXTS, M->contexts, M->context_count)
#define CHECK_STREAM(kind, f) CHECK_SLOT(r, kind, f, CI_SEC_STREAMS, M->streams, M->stream_count)

/* The tables, once all are in: everything else refers to them. */
static void check_tables(struct decoder *d)
{
	struct ci_model *m = d->m;
	struct refcheck *r = &d->rc;
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
	check_string(r, 0, &m->header.exe_str);
	check_string(r, 0, &m->header.cmdline_str);
	for (size_t i = 0; i < m->host_module_count; i++) {
		struct ci_host_module *h = &m->host_modules[i];
		check_string(r, CI_SEC_HOST_MODULES, &h->path_str);
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
		CHECK_SLOT(r, CI_SEC_CONTEXTS, c->device, CI_SEC_DEVICES, m->devices, m->device_count);
		check_stack(r, CI_SEC_CONTEXTS, &c->create_stack);
	}
	for (size_t i = 0; i < m->stream_count; i++) {
		struct ci_stream *s = &m->streams[i];
		CHECK_CTX(CI_SEC_STREAMS, s->ctx);
		if (s->crumb_slot != CI_NONE && s->crumb_slot >= m->crumb_count) {
			s->crumb_slot = CI_NONE;
			d->bad_refs[CI_SEC_STREAMS]++;
		}
		check_stack(r, CI_SEC_STREAMS, &s->create_stack);
	}
	for (size_t i = 0; i < m->code_module_count; i++) {
		struct ci_code_module *c = &m->code_modules[i];
		CHECK_CTX(CI_SEC_CODE_MODULES, c->ctx);
		check_string(r, CI_SEC_CODE_MODULES, &c->source_str);
		check_stack(r, CI_SEC_CODE_MODULES, &c->load_stack);
	}
	for (size_t i = 0; i < m->function_count; i++) {
		struct ci_function *f = &m->functions[i];
		CHECK_SLOT(r, CI_SEC_FUNCTIONS, f->code_module, CI_SEC_CODE_MODULES, m->code_modules, m->code_module_count);
		check_string(r, CI_SEC_FUNCTIONS, &f->name_str);
		if (f->nparams > CI_PARAMS_MAX && f->params_known) {
			f->params_known = 0; /* the layout cannot describe more than CI_PARAMS_MAX */
			d->bad_refs[CI_SEC_FUNCTIONS]++;
		}
		f->params_known = f->params_known ? 1 : 0;
	}
	for (size_t i = 0; i < m->thread_count; i++)
		TERMINATE(m->threads[i].name);
}

/* One entry of a ring or of the allocation table, checked as it is copied into the model (the
 * tables are checked by then). */
static void check_entry(struct refcheck *r, uint32_t kind, void *entry)
{
	const struct ci_model *m = r->m;
	switch (kind) {
	case CI_SEC_LAUNCHES: {
		struct ci_launch *l = entry;
		CHECK_SLOT(r, CI_SEC_LAUNCHES, l->function, CI_SEC_FUNCTIONS, m->functions, m->function_count);
		CHECK_STREAM(CI_SEC_LAUNCHES, l->stream);
		CHECK_CTX(CI_SEC_LAUNCHES, l->ctx);
		check_stack(r, CI_SEC_LAUNCHES, &l->stack);
		if (l->param_len > CI_LAUNCH_PARAM_BYTES) {
			l->param_len = CI_LAUNCH_PARAM_BYTES;
			bad_field(r, CI_SEC_LAUNCHES);
		}
		break;
	}
	case CI_SEC_ALLOCS:
	case CI_SEC_FREES: {
		struct ci_alloc *a = entry;
		CHECK_CTX(kind, a->ctx);
		CHECK_STREAM(kind, a->stream);
		CHECK_STREAM(kind, a->free_stream);
		check_stack(r, kind, &a->stack);
		check_stack(r, kind, &a->free_stack);
		break;
	}
	case CI_SEC_ERRORS: {
		struct ci_api_error *e = entry;
		CHECK_CTX(CI_SEC_ERRORS, e->ctx);
		CHECK_STREAM(CI_SEC_ERRORS, e->stream);
		check_stack(r, CI_SEC_ERRORS, &e->stack);
		TERMINATE(e->api);
		TERMINATE(e->args);
		break;
	}
	case CI_SEC_EVENTS: {
		struct ci_event *e = entry;
		CHECK_CTX(CI_SEC_EVENTS, e->ctx);
		CHECK_STREAM(CI_SEC_EVENTS, e->stream);
		check_stack(r, CI_SEC_EVENTS, &e->stack);
		break;
	}
	}
}

/* One warning per section whose references had to be cleared. */
static void report_references(struct decoder *d)
{
	struct ci_model *m = d->m;
	for (uint32_t k = 0; k < CI_SECTION_KIND_MAX; k++) {
		const char *what = k ? ci_section_title(k) : "header";
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
		if (d->late[k])
			ci_warnings_add(&m->warnings,
					"%s: %llu reference%s to entries the running process published while "
					"the record was read %s cleared (read again for them)", what,
					(unsigned long long)d->late[k], d->late[k] == 1 ? "" : "s",
					d->late[k] == 1 ? "was" : "were");
	}
}
#undef M

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
static void refresh_live_heads(struct decoder *d)
{
	if (!d->live)
		return;
	for (uint32_t k = 1; k < CI_SECTION_KIND_MAX; k++) {
		struct ci_section sec;
		if (d->usable[k] && reread_section(d, k, &sec) && sec.head > d->live_heads[k])
			d->live_heads[k] = sec.head;
	}
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
	refresh_live_heads(d);
	check_tables(d);
	/* The small rings before the launches: a sparse read of the launch ring goes back as far
	 * as the errors and the synchronizations in the event ring say it must. */
	DECODE(CI_SEC_FREES, frees, free_count);
	DECODE(CI_SEC_ERRORS, errors, error_count);
	DECODE(CI_SEC_EVENTS, events, event_count);
	if (!d->sparse || !decode_launch_tail(d, &p, &m->launch_count, &err)) {
		if (err)
			return err;
		DECODE(CI_SEC_LAUNCHES, launches, launch_count);
	} else {
		m->launches = p;
	}
	if (!d->sparse || !keep_alloc_table(d))
		DECODE(CI_SEC_ALLOCS, allocs, alloc_count);
#undef DECODE

	report_references(d);
	return NULL;
}

/* What the writer could not store, section by section (a full table, a contended ring slot, a
 * string or stack too long): the record says less than happened. */
static void report_dropped(struct decoder *d)
{
	struct ci_model *m = d->m;
	bool any = false;
	char n[32], size[32];
	ci_format_size(m->header.record_size, size, sizeof size);
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
	free(d->scratch);
	free(d);
	if (err) {
		ci_model_destroy(m);
		return err;
	}
	*ret = m;
	return NULL;
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
	lazy_destroy(m->lazy);
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
