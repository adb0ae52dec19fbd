/* SPDX-License-Identifier: MIT */
/*
 * Allocations: the live table (CI_SEC_ALLOCS) and the ring of recent frees (CI_SEC_FREES), for
 * every allocation API (docs/RECORDER.md, "What it records"): plain, pitch, managed, async and
 * pool, VMM create, reserve and map, host allocation and registration.
 *
 * The live table is open-addressed by address (record.h: home slot ci_alloc_hash(address) %
 * capacity, at most CI_ALLOC_PROBE_MAX probes; cuMemCreate handles, which have no address, are
 * keyed by the handle).  An insert claims an EMPTY or TOMB slot by exchanging its seq with
 * CI_SEQ_BUSY, fills it, sets state LIVE and publishes seq = allocation id.  A free takes the
 * entry out *before* the real free (state LIVE -> FREEING, by compare-and-swap, so a racing
 * double free finds it taken): once the driver returns, the address may be handed out again by
 * another thread, whose insert must not meet the old entry.  If the free fails the entry goes
 * back to LIVE; if it succeeds a copy with the free's time, thread, stack and stream goes to the
 * free ring and the slot becomes TOMB.  Each live slot is mirrored in the symbol image, so GDB
 * names device pointers (recorder/symimage.h).
 */
#include <string.h>

#include "recorder.h"
#include "symimage.h"

static uint64_t ci_alloc_key(uint32_t kind, uint64_t address, uint64_t aux)
{
	return kind == CI_ALLOC_VMM_CREATE || kind == CI_ALLOC_VMM_IMPORT ? aux : address;
}

static struct ci_alloc *ci_alloc_at(uint64_t slot)
{
	return ci_entry(CI_SEC_ALLOCS, slot);
}

static uint32_t ci_alloc_take(uint32_t match, uint64_t key);

/* The table's granules that ever held an entry, one bit each, in the record
 * (CI_SEC_ALLOC_GRANULES, record.h): the hash table spreads a few allocations over all of it, and
 * a snapshot that read every slot would make the kernel give the record a zeroed page for each one
 * it never wrote (100 MiB at a 1 GiB record); a reader that looked every slot up would read
 * them all.  A record without the bitmap (none laid out) counts as written everywhere. */
static void ci_alloc_mark_written(uint64_t slot)
{
	struct ci_sec *bits = ci_sec(CI_SEC_ALLOC_GRANULES);
	uint64_t size = ci_sec(CI_SEC_ALLOCS)->entry_size;
	uint64_t g0 = slot * size / CI_ALLOC_GRANULE_BYTES;
	uint64_t g1 = (slot * size + size - 1) / CI_ALLOC_GRANULE_BYTES;
	for (uint64_t g = g0; bits->dir && g <= g1 && g / 8 < bits->capacity; g++) {
		uint8_t bit = (uint8_t)(1u << (g % 8));
		/* Set once per granule: later allocations there only read the byte. */
		if (!(__atomic_load_n(&bits->base[g / 8], __ATOMIC_RELAXED) & bit))
			__atomic_fetch_or(&bits->base[g / 8], bit, __ATOMIC_RELAXED);
	}
}

bool ci_alloc_slot_written(uint64_t slot)
{
	const struct ci_sec *bits = ci_sec(CI_SEC_ALLOC_GRANULES);
	uint64_t size = ci_sec(CI_SEC_ALLOCS)->entry_size;
	uint64_t g0 = slot * size / CI_ALLOC_GRANULE_BYTES;
	uint64_t g1 = (slot * size + size - 1) / CI_ALLOC_GRANULE_BYTES;
	for (uint64_t g = g0; g <= g1; g++)
		if (!bits->dir || g / 8 >= bits->capacity ||
		    __atomic_load_n(&bits->base[g / 8], __ATOMIC_RELAXED) & (1u << (g % 8)))
			return true;
	return false;
}

/* The kinds a new allocation of KIND can replace at the same address: an entry still live there
 * was freed out of the recorder's sight (before it started, or through a door it does not see). */
static uint32_t ci_alloc_class(uint32_t kind)
{
	return CI_MATCH(kind) & CI_MATCH_DEVICE ? CI_MATCH_DEVICE : CI_MATCH(kind);
}

void ci_on_alloc(struct ci_call *c, CUresult r, const struct ci_alloc_args *a)
{
	if (r != CUDA_SUCCESS || !ci_rec.base)
		return;
	for (uint32_t stale; (stale = ci_alloc_take(ci_alloc_class(a->kind),
					       ci_alloc_key(a->kind, a->address, a->aux))) != CI_NONE;) {
		struct ci_alloc *e = ci_alloc_at(stale);
		if (ci_rec.symimage && ci_symimage_wants(e->kind))
			ci_symimage_clear(ci_rec.symimage, stale);
		__atomic_store_n(&e->state, CI_ALLOC_TOMB, __ATOMIC_RELEASE);
	}
	struct ci_sec *sec = ci_sec(CI_SEC_ALLOCS);
	struct ci_tls *t = ci_thread();
	ci_modules_refresh_at(false, c->t0);
	if (a->has_stream)
		c->stream = ci_stream_slot(a->stream, c);
	c->ctx = c->stream != CI_NONE ? ci_rec.streams[c->stream].ctx : ci_ctx_current_slot();
	uint32_t stack = ci_stack_of(c);
	uint64_t key = ci_alloc_key(a->kind, a->address, a->aux);
	uint64_t home = ci_alloc_hash(key) % sec->capacity;
	for (uint64_t i = 0; i < CI_ALLOC_PROBE_MAX && i < sec->capacity; i++) {
		uint64_t slot = (home + i) % sec->capacity;
		struct ci_alloc *e = ci_alloc_at(slot);
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (state != CI_ALLOC_EMPTY && state != CI_ALLOC_TOMB)
			continue;
		uint64_t old = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		if (old == CI_SEQ_BUSY ||
		    !__atomic_compare_exchange_n(&e->seq, &old, CI_SEQ_BUSY, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (state != CI_ALLOC_EMPTY && state != CI_ALLOC_TOMB) {
			__atomic_store_n(&e->seq, old, __ATOMIC_RELEASE);
			continue;
		}
		ci_alloc_mark_written(slot);
		uint64_t id = __atomic_add_fetch(&sec->dir->head, 1, __ATOMIC_RELAXED);
		e->id = id;
		e->address = a->address;
		e->size = a->size;
		e->time_ns = c->t0;
		e->aux = a->aux;
		e->free_ns = 0;
		e->kind = a->kind;
		e->ctx = c->ctx;
		e->stream = c->stream;
		e->tid = t->tid;
		e->stack = stack;
		e->free_tid = 0;
		e->free_stack = 0;
		e->free_stream = CI_NONE;
		e->pad = 0;
		__atomic_store_n(&e->state, CI_ALLOC_LIVE, __ATOMIC_RELEASE);
		ci_entry_publish(&e->seq, id);
		if (ci_rec.symimage && ci_symimage_wants(a->kind)) {
			ci_symimage_set(ci_rec.symimage, (uint32_t)slot, id, a->address, a->size);
			/* The address was reused: its old names as a freed allocation go. */
			ci_symfreed_live(a->address, a->size);
		}
		return;
	}
	ci_count_dropped(CI_SEC_ALLOCS);
}

/* Take the live entry matching KEY (and one of the kinds in MATCH) out of the table. */
static uint32_t ci_alloc_take(uint32_t match, uint64_t key)
{
	struct ci_sec *sec = ci_sec(CI_SEC_ALLOCS);
	uint64_t home = ci_alloc_hash(key) % sec->capacity;
	for (uint64_t i = 0; i < CI_ALLOC_PROBE_MAX && i < sec->capacity; i++) {
		uint64_t slot = (home + i) % sec->capacity;
		struct ci_alloc *e = ci_alloc_at(slot);
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (state == CI_ALLOC_EMPTY)
			break; /* entries never sit past an empty slot of their probe run */
		if (state != CI_ALLOC_LIVE || !(match & CI_MATCH(e->kind)) ||
		    ci_alloc_key(e->kind, e->address, e->aux) != key)
			continue;
		uint32_t expected = CI_ALLOC_LIVE;
		if (__atomic_compare_exchange_n(&e->state, &expected, CI_ALLOC_FREEING, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (uint32_t)slot;
	}
	return CI_NONE;
}

void ci_on_free_pre(struct ci_call *c, uint32_t match, uint64_t key)
{
	c->pre_slot = ci_rec.base && key ? ci_alloc_take(match, key) : CI_NONE;
}

/* Move the taken entry SLOT to the free ring (the free succeeded) and retire its slot. */
static void ci_alloc_retire(struct ci_call *c, uint32_t slot, uint32_t free_stream)
{
	struct ci_alloc *e = ci_alloc_at(slot);
	uint64_t seq;
	struct ci_alloc *f = ci_ring_claim(CI_SEC_FREES, &seq);
	uint32_t ring_slot = f ? (uint32_t)((seq - 1) % ci_sec(CI_SEC_FREES)->capacity) : CI_NONE;
	if (f) {
		uint64_t keep = f->seq;
		memcpy(f, e, sizeof *f);
		f->seq = keep;
		f->free_ns = ci_now();
		f->state = CI_ALLOC_FREED;
		f->free_tid = ci_thread()->tid;
		f->free_stack = ci_stack_of(c);
		f->free_stream = free_stream;
		ci_entry_publish(&f->seq, seq);
	}
	if (ci_rec.symimage && ci_symimage_wants(e->kind))
		ci_symimage_clear(ci_rec.symimage, slot);
	/* The entry is another thread's to reuse once it is a tombstone. */
	uint64_t id = e->id, address = e->address, size = e->size;
	uint32_t kind = e->kind;
	__atomic_store_n(&e->state, CI_ALLOC_TOMB, __ATOMIC_RELEASE);
	if (ring_slot != CI_NONE)
		ci_symfreed_freed(ring_slot, id, kind, address, size);
}

bool ci_alloc_live_at(uint64_t address)
{
	struct ci_sec *sec = ci_sec(CI_SEC_ALLOCS);
	if (!sec->dir)
		return false;
	uint64_t home = ci_alloc_hash(address) % sec->capacity;
	for (uint64_t i = 0; i < CI_ALLOC_PROBE_MAX && i < sec->capacity; i++) {
		const struct ci_alloc *e = ci_alloc_at((home + i) % sec->capacity);
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (state == CI_ALLOC_EMPTY)
			break;
		if (state == CI_ALLOC_LIVE && e->kind != CI_ALLOC_VMM_CREATE &&
		    ci_symimage_wants(e->kind) && e->address == address)
			return true;
	}
	return false;
}

void ci_on_free(struct ci_call *c, CUresult r, CUstream stream, bool has_stream)
{
	uint32_t slot = c->pre_slot;
	if (slot == CI_NONE)
		return;
	struct ci_alloc *e = ci_alloc_at(slot);
	if (r != CUDA_SUCCESS) {
		/* The driver kept the allocation: so does the table. */
		__atomic_store_n(&e->state, CI_ALLOC_LIVE, __ATOMIC_RELEASE);
		return;
	}
	if (has_stream)
		c->stream = ci_stream_slot(stream, c);
	ci_modules_refresh_at(false, c->t0);
	ci_alloc_retire(c, slot, has_stream ? c->stream : CI_NONE);
}

/* cuMemUnmap(ptr, size) unmaps every mapping in the range, which may be several cuMemMap
 * calls laid end to end: take each. */
void ci_on_unmap_pre(struct ci_call *c, uint64_t address, uint64_t size)
{
	c->pre_slot = CI_NONE;
	c->pre_value = 0;
	if (!ci_rec.base)
		return;
	for (uint64_t at = address; at < address + size && c->pre_value < 64;) {
		uint32_t slot = ci_alloc_take(CI_MATCH(CI_ALLOC_VMM_MAP) | CI_MATCH(CI_ALLOC_VMM_MAP_PEER), at);
		if (slot == CI_NONE)
			break;
		struct ci_alloc *e = ci_alloc_at(slot);
		if (c->pre_slot == CI_NONE)
			c->pre_slot = slot;
		c->pre_value++;
		at += e->size ? e->size : 1;
	}
}

void ci_on_unmap(struct ci_call *c, CUresult r, uint64_t address, uint64_t size)
{
	if (c->pre_slot == CI_NONE)
		return;
	/* Find the entries taken before the call again: FREEING mappings in the range. */
	uint64_t taken = c->pre_value;
	for (uint64_t at = address; taken && at < address + size;) {
		struct ci_sec *sec = ci_sec(CI_SEC_ALLOCS);
		uint64_t home = ci_alloc_hash(at) % sec->capacity;
		uint64_t next = 0;
		for (uint64_t i = 0; i < CI_ALLOC_PROBE_MAX && i < sec->capacity; i++) {
			uint64_t slot = (home + i) % sec->capacity;
			struct ci_alloc *e = ci_alloc_at(slot);
			uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
			if (state == CI_ALLOC_EMPTY)
				break;
			if (state != CI_ALLOC_FREEING ||
			    (e->kind != CI_ALLOC_VMM_MAP && e->kind != CI_ALLOC_VMM_MAP_PEER) ||
			    e->address != at)
				continue;
			next = at + (e->size ? e->size : 1);
			if (r == CUDA_SUCCESS)
				ci_alloc_retire(c, (uint32_t)slot, CI_NONE);
			else
				__atomic_store_n(&e->state, CI_ALLOC_LIVE, __ATOMIC_RELEASE);
			break;
		}
		if (!next)
			break;
		taken--;
		at = next;
	}
}

uint64_t ci_alloc_id_at(uint32_t match, uint64_t key)
{
	struct ci_sec *sec = ci_sec(CI_SEC_ALLOCS);
	if (!sec->dir || !key)
		return 0;
	uint64_t home = ci_alloc_hash(key) % sec->capacity;
	for (uint64_t i = 0; i < CI_ALLOC_PROBE_MAX && i < sec->capacity; i++) {
		const struct ci_alloc *e = ci_alloc_at((home + i) % sec->capacity);
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (state == CI_ALLOC_EMPTY)
			break;
		if (state == CI_ALLOC_LIVE && (match & CI_MATCH(e->kind)) &&
		    ci_alloc_key(e->kind, e->address, e->aux) == key)
			return e->id;
	}
	return 0;
}
