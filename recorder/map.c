/* SPDX-License-Identifier: MIT */
/*
 * Lock-free hash maps from a 64-bit key (a CUDA handle, a composite stream key, a hash) to a
 * 32-bit table slot, for the lookups the launch path makes on every call.  Open addressing with
 * linear probing; a key is inserted once (compare-and-swap on an empty slot) and its value
 * published after the inserting thread has set the entry up; removal leaves a tombstone.  The
 * maps live in private anonymous memory excluded from core dumps: they are caches, the record
 * holds the facts.  Each map has at least twice as many slots as the table it indexes has
 * entries, and table slots are never reused, so a map never fills beyond half.  Values are
 * stored plus one, so that zeroed memory reads as "being set up".
 */
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "recorder.h"

bool ci_map_init(struct ci_map *m, uint64_t min_capacity)
{
	uint64_t cap = 64;
	while (cap < 2 * min_capacity)
		cap <<= 1;
	size_t bytes = cap * sizeof(struct ci_map_slot);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	if (!ci_restricted)
		madvise(p, bytes, MADV_DONTDUMP); /* optional: smaller cores */
	m->slots = p;
	m->mask = cap - 1;
	return true;
}

/* Forget every key (fork child; single-threaded). */
void ci_map_reset(struct ci_map *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(struct ci_map_slot));
}

/* Wait (briefly) for another thread to finish setting up the entry of SLOT. */
static uint32_t ci_map_wait(const struct ci_map_slot *slot)
{
	for (int i = 0; i < 100000; i++) {
		uint32_t v = __atomic_load_n(&slot->value, __ATOMIC_ACQUIRE);
		if (v)
			return v == CI_NONE ? CI_NONE : v - 1;
		if (i > 100)
			sched_yield();
	}
	return CI_NONE;
}

uint32_t ci_map_get(const struct ci_map *m, uint64_t key)
{
	if (!m->slots)
		return CI_NONE;
	for (uint64_t i = ci_mix64(key), n = 0; n <= m->mask; i++, n++) {
		const struct ci_map_slot *s = &m->slots[i & m->mask];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (k == key)
			return ci_map_wait(s);
		if (!k)
			return CI_NONE;
	}
	return CI_NONE;
}

bool ci_map_claim(struct ci_map *m, uint64_t key, struct ci_map_slot **slot, uint32_t *value)
{
	*value = CI_NONE;
	if (!m->slots)
		return false;
	for (uint64_t i = ci_mix64(key), n = 0; n <= m->mask; i++, n++) {
		struct ci_map_slot *s = &m->slots[i & m->mask];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (!k) {
			uint64_t expected = 0;
			if (__atomic_compare_exchange_n(&s->key, &expected, key, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				*slot = s;
				return true;
			}
			k = expected;
		}
		if (k == key) {
			*value = ci_map_wait(s);
			return false;
		}
	}
	return false;
}

void ci_map_publish(struct ci_map_slot *slot, uint32_t value)
{
	__atomic_store_n(&slot->value, value == CI_NONE ? CI_NONE : value + 1, __ATOMIC_RELEASE);
}

void ci_map_remove(struct ci_map *m, uint64_t key)
{
	if (!m->slots)
		return;
	for (uint64_t i = ci_mix64(key), n = 0; n <= m->mask; i++, n++) {
		struct ci_map_slot *s = &m->slots[i & m->mask];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (k == key) {
			uint64_t expected = key;
			__atomic_compare_exchange_n(&s->key, &expected, CI_MAP_TOMB, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
			return;
		}
		if (!k)
			return;
	}
}
