/* SPDX-License-Identifier: MIT */
/*
 * Which recently freed allocations the symbol image names (its CI_SYMIMAGE_FREED image, one
 * slot per free ring slot), so that GDB's `info symbol`, `print`, `x/a` and backtraces say
 * `cuda_freed_42` for a stale device pointer, in cores and live processes alike.
 *
 * GDB must never see a freed range overlap a live allocation: of two overlapping sections it
 * keeps only the one that starts first (which may be the freed one, leaving part of the live
 * allocation unnamed), and `info symbol` lists both.  So a live allocation, when published,
 * hides every freed range it intersects (its address was reused).  Named freed ranges then stay
 * disjoint from live ones and from each other: every freed range was once a live allocation,
 * whose publication hid the older frees it overlapped.
 *
 * Finding those ranges without locks or allocation, in structures laid out when the record is
 * created: a named range whose size is in (2^(k-1), 2^k] is filed under level k by the (at most
 * two) 2^k-byte granules it touches, in a table of buckets of CI_FREED_BUCKET entries; and it is
 * counted, by the granule its start lies in, at the two coarser levels k + 6 and k + 12 (64 and
 * 4096 times coarser).  A new allocation probes, at each level that holds named ranges, the
 * granules it touches; when there are more than CI_FREED_PROBES of them (a large allocation
 * over small frees) it probes the granule of its start (ranges that cross it) and then walks
 * down from the first coarse level where it spans few granules, into the coarse granules whose
 * count is not zero, to the fine granules where ranges start: work bounded by the probes of a
 * few levels plus the ranges it hides.  Only an allocation of more than 2^(k+18) bytes over
 * ranges of level k (1 GiB over 4 KiB frees) looks at every slot instead.  Bucket entries are
 * checked against the slot's current range, so a stale entry costs a look; a full bucket hides
 * the range it evicts (a name is lost, never an overlap made).  A free and an allocation of the same address at the same moment are
 * settled by the slot's state (pending until named) and by checking the live table after
 * naming; a partial overlap racing that way may leave one name wrong until the slot is reused.
 */
#include <sys/mman.h>

#include "recorder.h"
#include "symimage.h"

#define CI_FREED_BUCKET 8   /* entries per bucket: one cache line */
#define CI_FREED_PROBES 64  /* granules probed at one level; also the coarse levels' fan-out */
#define CI_FREED_STEP 6     /* log2(CI_FREED_PROBES): coarse level j is 2^(6j) times coarser */
#define CI_FREED_COARSE 2   /* coarse levels counted */
#define CI_FREED_LEVEL_MIN 4
#define CI_FREED_LEVEL_MAX 62

/* A slot's state: NONE (names nothing), PENDING (being named), NAMED, HIDING (its counts are
 * being taken back; the range is still the slot's until then). */
enum { CI_FREED_NONE, CI_FREED_PENDING, CI_FREED_NAMED, CI_FREED_HIDING };

/* A free ring slot as this file sees it: the range it names (or is about to). */
struct ci_freed_slot {
	uint64_t start, end;
	uint32_t state; /* atomic */
	uint32_t pad;
};

static struct ci_freed_slot *ci_freed_slots;
static uint32_t ci_freed_capacity;
/* Bucket entries: 0 empty, else free ring slot + 1 (atomic). */
static uint64_t *ci_freed_buckets;
static uint64_t ci_freed_mask;   /* buckets - 1 */
/* Named ranges starting in each coarse granule, by hash (collisions only add probes). */
static uint32_t *ci_freed_counts;
static uint64_t ci_freed_count_mask;
static uint64_t ci_freed_levels; /* bit k: some range was filed at level k (atomic) */
static void *ci_freed_map;
static size_t ci_freed_bytes;

bool ci_symfreed_init(uint64_t ring_capacity)
{
	uint64_t buckets = 1, counts = 1;
	/* Two granules per range at most: a quarter of the entries in use at most. */
	while (buckets * CI_FREED_BUCKET < ring_capacity * 8)
		buckets <<= 1;
	/* Two coarse counts per range; collisions cost probes, not correctness. */
	while (counts < ring_capacity * 8)
		counts <<= 1;
	size_t slots = ring_capacity * sizeof(struct ci_freed_slot);
	size_t bucket_bytes = buckets * CI_FREED_BUCKET * sizeof(uint64_t);
	size_t bytes = slots + bucket_bytes + counts * sizeof(uint32_t);
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return false;
	if (!ci_restricted)
		madvise(m, bytes, MADV_DONTDUMP); /* optional: smaller cores */
	ci_freed_map = m;
	ci_freed_bytes = bytes;
	ci_freed_slots = m;
	ci_freed_capacity = (uint32_t)ring_capacity;
	ci_freed_buckets = (uint64_t *)((char *)m + slots);
	ci_freed_mask = buckets - 1;
	ci_freed_counts = (uint32_t *)((char *)m + slots + bucket_bytes);
	ci_freed_count_mask = counts - 1;
	ci_freed_levels = 0;
	return true;
}

void ci_symfreed_destroy(void)
{
	if (ci_freed_map)
		munmap(ci_freed_map, ci_freed_bytes);
	ci_freed_map = NULL;
	ci_freed_slots = NULL;
	ci_freed_capacity = 0;
}

/* The level of a range of SIZE bytes (> 0): the k with SIZE in (2^(k-1), 2^k]. */
static unsigned ci_freed_level(uint64_t size)
{
	unsigned k = size > 1 ? 64 - (unsigned)__builtin_clzll(size - 1) : 0;
	return k < CI_FREED_LEVEL_MIN ? CI_FREED_LEVEL_MIN : k;
}

static uint64_t *ci_freed_bucket(unsigned level, uint64_t granule)
{
	return ci_freed_buckets +
	       (ci_mix64(((uint64_t)level << 58) ^ granule) & ci_freed_mask) * CI_FREED_BUCKET;
}

/* The count of ranges of LEVEL starting in coarse granule COARSE of coarse level J (>= 1). */
static uint32_t *ci_freed_count(unsigned level, unsigned j, uint64_t coarse)
{
	uint64_t key = ((uint64_t)level << 58) ^ ((uint64_t)j << 52) ^ coarse ^ 0x9e3779b97f4a7c15ull;
	return &ci_freed_counts[ci_mix64(key) & ci_freed_count_mask];
}

/* Add DELTA to the coarse counts of a range of LEVEL starting at START. */
static void ci_freed_counts_add(unsigned level, uint64_t start, int32_t delta)
{
	for (unsigned j = 1; j <= CI_FREED_COARSE && level + CI_FREED_STEP * j < 64; j++)
		__atomic_fetch_add(ci_freed_count(level, j, start >> (level + CI_FREED_STEP * j)),
				   (uint32_t)delta, __ATOMIC_RELAXED);
}

/* Slot SLOT's range, if it names one (or is about to). */
static bool ci_freed_range(uint32_t slot, uint64_t *start, uint64_t *end)
{
	struct ci_freed_slot *s = &ci_freed_slots[slot];
	uint32_t state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	if (state != CI_FREED_PENDING && state != CI_FREED_NAMED)
		return false;
	*start = __atomic_load_n(&s->start, __ATOMIC_RELAXED);
	*end = __atomic_load_n(&s->end, __ATOMIC_RELAXED);
	return *end > *start;
}

/* Whether bucket entry ENTRY in bucket B still files its slot's range (under any of the
 * range's own granules: different granules may share a bucket). */
static bool ci_freed_entry_current(uint64_t entry, const uint64_t *b)
{
	uint64_t a, e;
	if (!entry || !ci_freed_range((uint32_t)(entry - 1), &a, &e))
		return false;
	unsigned level = ci_freed_level(e - a);
	for (uint64_t g = a >> level; g <= (e - 1) >> level; g++)
		if (ci_freed_bucket(level, g) == b)
			return true;
	return false;
}

/* Slot SLOT no longer names its range.  Whoever takes it from PENDING or NAMED takes its counts
 * back; anyone else waits for that (a few instructions) so that the range stays the slot's
 * until its counts are consistent. */
static void ci_freed_hide(uint32_t slot)
{
	struct ci_freed_slot *s = &ci_freed_slots[slot];
	uint32_t state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	for (;;) {
		if (state == CI_FREED_NONE)
			return;
		if (state == CI_FREED_HIDING) {
			CI_PAUSE();
			state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
			continue;
		}
		if (__atomic_compare_exchange_n(&s->state, &state, CI_FREED_HIDING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	uint64_t start = __atomic_load_n(&s->start, __ATOMIC_RELAXED);
	uint64_t end = __atomic_load_n(&s->end, __ATOMIC_RELAXED);
	ci_freed_counts_add(ci_freed_level(end - start), start, -1);
	/* A pending slot's owner finds it hidden and clears its own name. */
	if (state == CI_FREED_NAMED)
		ci_symimage_clear(ci_rec.symfreed, slot);
	__atomic_store_n(&s->state, CI_FREED_NONE, __ATOMIC_RELEASE);
}

/* File slot SLOT's range [START, END) of LEVEL under each granule it touches.  False when a
 * bucket could not take it (the range must then stay unnamed). */
static bool ci_freed_file(uint32_t slot, unsigned level, uint64_t start, uint64_t end)
{
	if (!(__atomic_load_n(&ci_freed_levels, __ATOMIC_RELAXED) >> level & 1))
		__atomic_fetch_or(&ci_freed_levels, 1ull << level, __ATOMIC_SEQ_CST);
	for (uint64_t g = start >> level; g <= (end - 1) >> level; g++) {
		uint64_t *b = ci_freed_bucket(level, g);
		bool filed = false;
		for (int tries = 0; !filed && tries < 2 * CI_FREED_BUCKET; tries++) {
			int i = (int)((tries + slot) % CI_FREED_BUCKET);
			bool evict = tries >= CI_FREED_BUCKET;
			uint64_t old = __atomic_load_n(&b[i], __ATOMIC_ACQUIRE);
			bool current = ci_freed_entry_current(old, b);
			if (current && !evict)
				continue;
			if (__atomic_compare_exchange_n(&b[i], &old, (uint64_t)slot + 1, false,
							__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
				/* The range it replaced can no longer be found: it goes unnamed. */
				if (current && old - 1 != slot)
					ci_freed_hide((uint32_t)(old - 1));
				filed = true;
			}
		}
		if (!filed)
			return false;
	}
	return true;
}

/* Hide the ranges filed under fine granule GRANULE of LEVEL that intersect [START, END). */
static void ci_freed_probe(unsigned level, uint64_t granule, uint64_t start, uint64_t end)
{
	uint64_t *b = ci_freed_bucket(level, granule), a, e;
	for (int i = 0; i < CI_FREED_BUCKET; i++) {
		uint64_t entry = __atomic_load_n(&b[i], __ATOMIC_ACQUIRE);
		if (entry && ci_freed_range((uint32_t)(entry - 1), &a, &e) && a < end && e > start)
			ci_freed_hide((uint32_t)(entry - 1));
	}
}

/* Hide the ranges of LEVEL that start inside coarse granule COARSE of coarse level J and in
 * [START, END), descending only where the counts say some range starts. */
static void ci_freed_descend(unsigned level, unsigned j, uint64_t coarse, uint64_t start,
			     uint64_t end)
{
	unsigned shift = level + CI_FREED_STEP * (j - 1); /* the level below, in bits */
	uint64_t lo = coarse << CI_FREED_STEP, hi = lo + CI_FREED_PROBES - 1;
	if (lo < start >> shift)
		lo = start >> shift;
	if (hi > (end - 1) >> shift)
		hi = (end - 1) >> shift;
	for (uint64_t sub = lo; sub <= hi; sub++) {
		if (j == 1)
			ci_freed_probe(level, sub, start, end);
		else if (__atomic_load_n(ci_freed_count(level, j - 1, sub), __ATOMIC_RELAXED))
			ci_freed_descend(level, j - 1, sub, start, end);
	}
}

void ci_symfreed_live(uint64_t address, uint64_t size)
{
	if (!ci_rec.symfreed || !ci_freed_slots || !size || address + size < address)
		return;
	uint64_t end = address + size;
	/* The allocation's entry, just published, must be visible before the buckets are read: a
	 * free filed meanwhile then finds it when it checks the live table after naming. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t levels = __atomic_load_n(&ci_freed_levels, __ATOMIC_RELAXED);
	for (unsigned level = CI_FREED_LEVEL_MIN; level < 64 && levels >> level; level++) {
		if (!(levels >> level & 1))
			continue;
		uint64_t g0 = address >> level, g1 = (end - 1) >> level;
		if (g1 - g0 < CI_FREED_PROBES) {
			for (uint64_t g = g0; g <= g1; g++)
				ci_freed_probe(level, g, address, end);
			continue;
		}
		/* Ranges that cross the start, then those that start inside, through the first
		 * coarse level where the allocation spans few granules. */
		ci_freed_probe(level, g0, address, end);
		unsigned j = 1, shift = level + CI_FREED_STEP;
		while (shift < 64 && ((end - 1) >> shift) - (address >> shift) >= CI_FREED_PROBES) {
			j++;
			shift += CI_FREED_STEP;
		}
		if (j > CI_FREED_COARSE || shift >= 64) {
			/* Huge next to this level (2^(k+18) bytes and more): look at every slot. */
			uint64_t a, e;
			for (uint32_t slot = 0; slot < ci_freed_capacity; slot++)
				if (ci_freed_range(slot, &a, &e) && a < end && e > address)
					ci_freed_hide(slot);
			return;
		}
		for (uint64_t c = address >> shift; c <= (end - 1) >> shift; c++)
			if (__atomic_load_n(ci_freed_count(level, j, c), __ATOMIC_RELAXED))
				ci_freed_descend(level, j, c, address, end);
	}
}

void ci_symfreed_freed(uint32_t slot, uint64_t id, uint32_t kind, uint64_t address,
		       uint64_t size)
{
	if (!ci_rec.symfreed || !ci_freed_slots || slot >= ci_freed_capacity)
		return;
	struct ci_freed_slot *s = &ci_freed_slots[slot];
	/* The ring slot's previous free is overwritten: its name goes first. */
	ci_freed_hide(slot);
	ci_symimage_clear(ci_rec.symfreed, slot);
	unsigned level = ci_freed_level(size);
	if (!ci_symimage_wants_freed(kind) || !size || address + size < address ||
	    level > CI_FREED_LEVEL_MAX)
		return;
	__atomic_store_n(&s->start, address, __ATOMIC_RELAXED);
	__atomic_store_n(&s->end, address + size, __ATOMIC_RELAXED);
	ci_freed_counts_add(level, address, 1);
	/* Visible before the bucket entries that lead to it (their exchange is a full barrier). */
	__atomic_store_n(&s->state, CI_FREED_PENDING, __ATOMIC_RELEASE);
	if (!ci_freed_file(slot, level, address, address + size)) {
		ci_freed_hide(slot);
		return;
	}
	ci_symimage_set(ci_rec.symfreed, slot, id, address, size);
	uint32_t pending = CI_FREED_PENDING;
	if (!__atomic_compare_exchange_n(&s->state, &pending, CI_FREED_NAMED, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
		/* A live allocation over the range hid it while it was being named. */
		ci_symimage_clear(ci_rec.symfreed, slot);
		return;
	}
	/* An allocation of the same address published meanwhile may have probed before the range
	 * was filed: the live one wins. */
	if (ci_alloc_live_at(address))
		ci_freed_hide(slot);
}
