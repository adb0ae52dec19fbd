/* SPDX-License-Identifier: MIT */
/*
 * Decode stage, ordering: accepted ring and allocation-table entries become 32-byte keys (the
 * field that orders them, the slot, what diagnose reads of them) and are put in the model's
 * order, by time for rings and by address for allocations, in linear time where the record
 * allows (docs/READER-INTERNALS.md, "Order").  Then each entry is copied into the model in that
 * order and judged again on the copy.
 */
#include <stdio.h>
#include <sys/mman.h>

#include "model.h"

/* ---------------------------------------------------------------------------------------- */
/* Ordering                                                                                   */


/* Arrays of several MiB (the launches and allocations of a large record) cost more in page
 * faults than in copying; transparent huge pages, where the system offers them on request, cut
 * that cost about threefold.  The result is freed with free(). */
void *ci_alloc_big(size_t size)
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

void ci_ordering_deinit(struct ordering *o)
{
	free(o->keys);
}

/* Take accepted entry E in SLOT: its references are checked and counted on a copy of the part
 * that holds them (a launch's parameters are not read here). */
bool ci_ordering_add(struct decoder *d, struct ordering *o, const uint8_t *e, uint64_t slot)
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
	memcpy(&copy, e, o->kind == CI_SEC_LAUNCHES ? offsetof(struct ci_launch, params) : ci_section_kinds[o->kind].size);
	ci_check_entry(&d->rc, o->kind, &copy);
	struct order_key k = { .major = ci_le64((const uint8_t *)&copy + ci_section_kinds[o->kind].order_major),
			       .slot = (uint32_t)slot };
	if (o->kind == CI_SEC_LAUNCHES) {
		k.extra = copy.launch.stream_seq;
		k.a = copy.launch.stream;
		k.b = copy.launch.flags;
	} else if (o->kind == CI_SEC_ALLOCS) {
		/* The id too, so that passes over a lazy model's allocations never read the table:
		 * in address order, its pages are read in no order. */
		k.extra = copy.alloc.size;
		k.a = copy.alloc.kind;
		k.b = (uint32_t)copy.alloc.id;
		k.c = (uint32_t)(copy.alloc.id >> 32);
	}
	o->keys[o->n++] = k;
	return true;
}

static uint64_t ordering_minor(const struct ordering *o, uint64_t slot)
{
	return ci_le64(o->entries + slot * o->stride + ci_section_kinds[o->kind].order_minor);
}

/* Move the keys of K along the cycles of a permutation, in place: key FROM[OUT] goes to OUT.
 * Each cycle is followed once, FROM marking the places filled (it is consumed). */
static void permute_keys(struct order_key *k, size_t n, uint32_t *from)
{
	for (size_t start = 0; start < n; start++) {
		if (from[start] == start)
			continue;
		struct order_key first = k[start];
		size_t at = start;
		for (;;) {
			size_t src = from[at];
			from[at] = (uint32_t)at;
			if (src == start) {
				k[at] = first;
				break;
			}
			k[at] = k[src];
			at = src;
		}
	}
}

/* Sort the keys by major in linear time: a least-significant-digit radix sort, 11 bits a pass,
 * over the bits in which keys differ (about 32 for the times of a ring or the addresses of the
 * allocations, so three passes).  What it sorts is the keys' indexes (4 bytes a key, twice),
 * not the keys: a copy of those to sort into was 32 MiB of a table of a million allocations,
 * half of what a streamed document may take.  The keys are then moved in place.  Rings come
 * out of the record almost in time order already (each thread fills the slots it claimed in
 * chunks), and are only checked then. */
static bool order_scratch(struct decoder *d, size_t n);

static bool order_by_major(struct decoder *d, struct ordering *o)
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
	if (n > UINT32_MAX || !order_scratch(d, n))
		return false;
	unsigned passes = (64 - (unsigned)__builtin_clzll(diff) + DIGIT - 1) / DIGIT;
	size_t (*hist)[BUCKETS] = calloc(passes, sizeof *hist);
	if (!hist)
		return false;
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < passes; p++)
			hist[p][(k[i].major >> (p * DIGIT)) & (BUCKETS - 1)]++;
	uint32_t *from = d->scratch, *to = from + n;
	for (size_t i = 0; i < n; i++)
		from[i] = (uint32_t)i;
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = p * DIGIT;
		if (hist[p][(k[0].major >> shift) & (BUCKETS - 1)] == n)
			continue; /* every key has the same digit here */
		size_t sum = 0;
		for (unsigned v = 0; v < BUCKETS; v++) {
			size_t c = hist[p][v];
			hist[p][v] = sum;
			sum += c;
		}
		/* The keys are read in the order of the pass before: fetched ahead. */
		for (size_t i = 0; i < n; i++) {
			if (i + 16 < n)
				__builtin_prefetch(&k[from[i + 16]]);
			to[hist[p][(k[from[i]].major >> shift) & (BUCKETS - 1)]++] = from[i];
		}
		uint32_t *t = from;
		from = to;
		to = t;
	}
	free(hist);
	permute_keys(k, n, from);
	return true;
}

/* A key and its minor: the whole key moves, the brief that diagnose reads with its slot. */
struct tie {
	uint64_t minor;
	struct order_key key;
};

static int tie_cmp(const void *a, const void *b)
{
	const struct tie *x = a, *y = b;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return x->key.slot < y->key.slot ? -1 : x->key.slot > y->key.slot;
}

/* Entries with the same major go by minor (seq, allocation id), then slot.  Such runs are rare
 * and short (two launches in the same nanosecond, a VMM mapping at the start of its reserve);
 * a hostile record full of them costs an n log n sort, never more. */
static bool order_ties(struct decoder *d, struct ordering *o)
{
	struct order_key *k = o->keys;
	/* A lazy model keeps keys, not the entries: the pages ties were read from are given back
	 * now and then (when many launches share a time, most of the ring's are read). */
	size_t span = d->lazy ? d->secs[o->kind].capacity * o->stride : 0, next_release = 65536;
	for (size_t b = 0, e; b < o->n; b = e) {
		if (span && b >= next_release) {
			ci_source_release(d->src, o->entries, span);
			next_release = b + 65536;
		}
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
			t[i - b] = (struct tie){ ordering_minor(o, k[i].slot), k[i] };
		qsort(t, e - b, sizeof *t, tie_cmp);
		for (size_t i = b; i < e; i++)
			k[i] = t[i - b].key;
		free(t);
	}
	return true;
}

/* A ring's slots hold a few interleaved runs in time order: each writer thread fills the slots
 * it claimed in chunks, in its own time order.  Dealing the keys onto lanes (each key onto the
 * first lane whose last key is not later) recovers those runs, and merging the lanes sorts the
 * keys.  The merge writes where each key comes from (4 bytes a key) and then moves the keys
 * along the cycles of that permutation, in place: a copy of the keys to merge from was 32 MiB
 * of a 1 GiB record's million launches.  Returns false, with the keys untouched, when more
 * than LANES_MAX lanes are needed (many threads, or keys in no order: the allocation table),
 * or on out-of-memory. */
enum { LANES_MAX = 16 };

static bool order_by_lanes(struct ordering *o)
{
	struct order_key *k = o->keys;
	size_t n = o->n, next[LANES_MAX];
	uint64_t tail[LANES_MAX];
	unsigned lanes = 0;
	if (n > UINT32_MAX)
		return false;
	_cleanup_free_ uint8_t *lane = malloc(n ? n : 1);
	if (!lane)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned l = 0;
		while (l < lanes && tail[l] > k[i].major)
			l++;
		if (l == lanes) {
			if (lanes == LANES_MAX)
				return false;
			next[lanes++] = i; /* the lane's first key */
		}
		tail[l] = k[i].major;
		lane[i] = (uint8_t)l;
	}
	if (lanes <= 1)
		return true; /* one run: in order already */
	_cleanup_free_ uint32_t *from = malloc(n * sizeof *from);
	if (!from)
		return false;
	/* Merge: next[l] is lane l's next key (N when the lane is done); equal keys go by lane. */
	for (size_t out = 0; out < n; out++) {
		unsigned best = LANES_MAX;
		for (unsigned l = 0; l < lanes; l++)
			if (next[l] < n && (best == LANES_MAX || k[next[l]].major < k[next[best]].major))
				best = l;
		size_t i = next[best];
		from[out] = (uint32_t)i;
		while (++i < n && lane[i] != best)
			;
		next[best] = i;
	}
	permute_keys(k, n, from);
	return true;
}

/* Reverse keys [A, B) in place. */
static void reverse_keys(struct order_key *k, size_t a, size_t b)
{
	while (a + 1 < b) {
		struct order_key t = k[a];
		k[a++] = k[--b];
		k[b] = t;
	}
}

/* Sort the keys of O, in place. */
static bool sort_keys(struct decoder *d, struct ordering *o, uint64_t cap, uint64_t head)
{
	size_t n = o->n;
	/* A wrapped ring is oldest first from the slot the next entry would take: when that order
	 * is the time order (nothing to sort), the keys are turned round; else the sort does it. */
	if (ci_section_kinds[o->kind].layout == LAYOUT_RING && head > cap) {
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
			/* Turned round in place: [lo, n) first, then [0, lo). */
			reverse_keys(o->keys, 0, lo);
			reverse_keys(o->keys, lo, n);
			reverse_keys(o->keys, 0, n);
		}
	}
	return (order_by_lanes(o) || order_by_major(d, o)) && order_ties(d, o);
}

/* Room for the radix sort's two arrays of N key indexes in the decoder's scratch space, which
 * is kept from section to section (new memory costs more than the sorting).  Only that sort
 * needs it; the others need no space of the keys' size. */
static bool order_scratch(struct decoder *d, size_t n)
{
	size_t size = 2 * n * sizeof(uint32_t);
	if (d->scratch_size < size) {
		free(d->scratch);
		d->scratch = ci_alloc_big(size);
		d->scratch_size = d->scratch ? size : 0;
		if (!d->scratch)
			return false;
	}
	return true;
}

/* Put O's keys in the model's order, in place. */
bool ci_sort_ordering(struct decoder *d, struct ordering *o)
{
	const struct ci_section *sec = &d->secs[o->kind];
	return sort_keys(d, o, sec->capacity, sec->head);
}

/* Copy the accepted entries of O into a new array in the model's order, clearing their bad
 * references (counted when they were accepted).  Every copy is judged again, so what the model
 * holds is exactly what was accepted even if the input changed meanwhile (a file rewritten
 * under us). */
struct ci_error *ci_order_entries(struct decoder *d, struct ordering *o, void **ret,
				      size_t *count)
{
	const struct section_kind *sk = &ci_section_kinds[o->kind];
	const struct ci_section *sec = &d->secs[o->kind];
	struct ci_section_stats *stats = &d->m->sections[o->kind];
	struct judge judge = ci_judge_make(o->kind, sec->capacity, sec->head);
	struct refcheck quiet = { .m = d->m };
	size_t n = o->n;
	uint8_t *out = ci_alloc_big(n * sk->size);
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
		if (ci_classify(&judge, e, o->keys[j].slot) != V_ACCEPT ||
		    ci_le64(e + sk->order_major) != o->keys[j].major) {
			stats->accepted--;
			stats->torn++;
			continue;
		}
		ci_check_entry(&quiet, o->kind, e);
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

