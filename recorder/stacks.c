/* SPDX-License-Identifier: MIT */
/*
 * Host stacks of recorded calls, deduplicated in the stack depot (CI_SEC_STACKS indexes runs of
 * return addresses in CI_SEC_FRAMES; an id is slot + 1).  Three modes (CUDAINSPECT_STACKS):
 *   off       nothing is captured;
 *   fast      (default) a frame-pointer walk from the wrapper's frame: each frame pointer must
 *             lie in the thread's stack above the previous one and each return address in the
 *             executable code of a loaded module, else the walk stops, so code built without
 *             frame pointers yields a short stack rather than a wrong one or a fault;
 *   accurate  DWARF CFI unwinding with libgcc's unwinder (backtrace(3)), which also crosses code
 *             without frame pointers, at a few microseconds per stack.
 * The first frame is always the return address into the code that called the driver.
 * docs/RECORDER.md has the measured cost of each mode.
 */
#include <execinfo.h>
#include <string.h>

#include "recorder.h"

/* Before the start lock (doors.c): the first backtrace() loads libgcc_s with dlopen, which
 * takes the loader's lock; do it now, not inside a launch. */
void ci_stacks_prepare(void)
{
	if (ci_cfg.stack_mode == CI_STACKS_ACCURATE) {
		void *warm[4];
		backtrace(warm, 4);
	}
}

void ci_stacks_init(void)
{
	ci_modules_refresh(true);
}

/* Each thread's last two stacks: a loop that launches from one place (the common case, and the
 * whole of a Python program's inner loop), or alternates between two (an allocation and its
 * free, a launch and a synchronization), reuses their ids after a compare, without hashing and
 * the shared map.  Default TLS model: the recorder may be dlopen'd. */
struct ci_last_stack {
	uint32_t generation;
	uint32_t id;
	unsigned n;
	uint32_t used;            /* when it was last taken: the other one is replaced */
	/* Where its walk stopped at a word that is no code address (code without frame
	 * pointers: every walk from there ends the same way) and under which module list. */
	struct ci_walk_stop {
		uint64_t ret;
		const void *ranges;
		unsigned n;
	} stop;
	uint64_t frames[CI_STACK_FRAMES_MAX];
};
static __thread struct ci_last_stack ci_last_stack[2];

struct ci_last_stack *ci_stack_last_of_thread(void)
{
	return ci_last_stack;
}

/* Whether the NEW frames of the walk are LAST's, as its id under generation GEN: inline, a call
 * to memcmp costs more than comparing the few words of a native stack; a stack with Python
 * frames (40 and more words) is compared by memcmp's vector loop. */
static inline __attribute__((always_inline)) bool
ci_stack_same(const struct ci_last_stack *last, uint32_t gen, const uint64_t *frames, unsigned n)
{
	if (last->generation != gen || !last->id || last->n != n)
		return false;
	if (n > 24)
		return !memcmp(last->frames, frames, n * sizeof frames[0]);
	unsigned i = 0;
	while (i < n && last->frames[i] == frames[i])
		i++;
	return i == n;
}

/* The frame-pointer walk.  A return address is checked against the loaded modules' code (a
 * binary search over every module's ranges: with a few hundred libraries loaded, and the
 * driver's own work evicting them from the cache, the biggest part of the walk), except where it
 * equals the one at the same depth of this thread's last stack, which passed the check then, or
 * the word at which the last walk stopped, at the same depth, which failed it under the same
 * module list (a walk into code without frame pointers, Python's and most libraries', ends at
 * such a word every time).  A check that fails is remembered in both of the thread's last
 * stacks, RECENT (the fact holds whatever the frames above it; rare, and no store on the path of
 * every walk). */
static unsigned ci_walk_fast(const struct ci_tls *t, const struct ci_call *c, uint64_t *frames,
			     unsigned depth, const struct ci_last_stack *last,
			     struct ci_last_stack *recent)
{
	unsigned n = 0;
	frames[n++] = c->ret;
	uintptr_t fp = (uintptr_t)c->frame;
	uintptr_t lo = fp, hi = t->stack_hi;
	if (fp < t->stack_lo || fp >= hi)
		return n; /* an alternate stack, a fiber: only the caller is certain */
	fp = ((const uintptr_t *)fp)[0]; /* the caller's frame */
	unsigned known = last ? last->n : 0;
	while (n < depth) {
		if (fp <= lo || fp + 2 * sizeof(uintptr_t) > hi || (fp & (sizeof(uintptr_t) - 1)))
			break;
		const uintptr_t *f = (const uintptr_t *)fp;
		uintptr_t ret = f[1];
		if (CI_UNLIKELY(!(n < known && last->frames[n] == ret))) {
			const void *ranges = ci_code_ranges_now();
			if (last && last->stop.ret == ret && last->stop.n == n &&
			    last->stop.ranges == ranges)
				break;
			if (!ci_code_address_in(ranges, ret)) {
				recent[0].stop = recent[1].stop =
					(struct ci_walk_stop){ .ret = ret, .ranges = ranges, .n = n };
				break;
			}
		}
		frames[n++] = ret;
		lo = fp;
		fp = f[0];
	}
	return n;
}

static __attribute__((noinline)) unsigned ci_walk_accurate(const struct ci_call *c, uint64_t *frames,
							    unsigned depth)
{
	void *buf[CI_STACK_DEPTH_MAX + 16];
	int n = backtrace(buf, (int)depth + 16);
	/* Skip the recorder's own frames: start at the wrapper's return address. */
	int start = -1;
	for (int i = 0; i < n; i++) {
		if ((uint64_t)(uintptr_t)buf[i] == c->ret) {
			start = i;
			break;
		}
	}
	if (start < 0) {
		frames[0] = c->ret;
		return 1;
	}
	unsigned m = 0;
	for (int i = start; i < n && m < depth; i++)
		frames[m++] = (uint64_t)(uintptr_t)buf[i];
	return m;
}

static uint64_t ci_stack_hash(const uint64_t *frames, unsigned n)
{
	uint64_t h = n;
	for (unsigned i = 0; i < n; i++)
		h = ci_mix64(h ^ frames[i]) + i;
	return (h & ~(1ull << 63)) | 1; /* never empty, never a tombstone */
}

static bool ci_stack_equals(uint32_t slot, const uint64_t *frames, unsigned n)
{
	const struct ci_stack *s = ci_entry(CI_SEC_STACKS, slot);
	struct ci_sec *fs = ci_sec(CI_SEC_FRAMES);
	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != (uint64_t)slot + 1 || s->nframes != n ||
	    (uint64_t)s->frames_offset + n > fs->capacity)
		return false;
	return !memcmp(fs->base + (uint64_t)s->frames_offset * 8, frames, n * 8);
}

/* Store a new stack; 0 when the depot is full. */
static uint32_t ci_stack_store(const uint64_t *frames, unsigned n, uint64_t hash)
{
	struct ci_sec *fs = ci_sec(CI_SEC_FRAMES);
	uint32_t slot = ci_table_claim(CI_SEC_STACKS);
	if (slot == CI_NONE)
		return 0;
	uint64_t off = __atomic_fetch_add(&fs->dir->head, n, __ATOMIC_RELAXED);
	struct ci_stack *s = ci_entry(CI_SEC_STACKS, slot);
	ci_entry_begin(&s->seq);
	s->hash = hash;
	if (off + n <= fs->capacity && off + n < UINT32_MAX) {
		memcpy(fs->base + off * 8, frames, n * 8);
		s->frames_offset = (uint32_t)off;
		s->nframes = n;
	} else {
		/* Frames full: the entry still tells that a stack was taken. */
		ci_count_dropped(CI_SEC_FRAMES);
		s->frames_offset = 0;
		s->nframes = 0;
	}
	ci_entry_publish(&s->seq, (uint64_t)slot + 1);
	return slot + 1;
}

/* The stack of C, FRAMES[0..N), is not the one this thread took last (LAST): the one before
 * (OTHER), or one from the depot, which it then replaces.  Out of line: a launch loop takes the
 * same stack again and again, and the code of what it does not need stays out of its way. */
static __attribute__((noinline)) uint32_t ci_stack_other(struct ci_call *c, const uint64_t *frames,
							 unsigned n, uint32_t gen,
							 struct ci_last_stack *last,
							 struct ci_last_stack *other)
{
	if (ci_stack_same(other, gen, frames, n)) {
		other->used = last->used + 1;
		return c->stack = other->id;
	}
	uint64_t hash = ci_stack_hash(frames, n);
	struct ci_map_slot *ms;
	uint32_t found;
	if (ci_map_claim(&ci_rec.stack_map, hash, &ms, &found)) {
		uint32_t id = ci_stack_store(frames, n, hash);
		ci_map_publish(ms, id ? id - 1 : CI_NONE);
		c->stack = id;
	} else if (found != CI_NONE && ci_stack_equals(found, frames, n)) {
		c->stack = found + 1;
	} else {
		/* A hash collision (or a full map): store without deduplication. */
		c->stack = ci_stack_store(frames, n, hash);
	}
	if (c->stack) {
		/* The one not taken last makes room. */
		other->generation = gen;
		other->id = c->stack;
		other->n = n;
		other->used = last->used + 1;
		memcpy(other->frames, frames, n * sizeof(frames[0]));
	}
	return c->stack;
}

uint32_t ci_stack_of(struct ci_call *c)
{
	if (c->stack || ci_cfg.stack_mode == CI_STACKS_OFF || !ci_rec.base)
		return c->stack;
	uint64_t frames[CI_STACK_FRAMES_MAX];
	unsigned depth = ci_cfg.stack_depth;
	struct ci_tls *t = ci_thread();
	/* The one taken last is compared first, and lends the walk its checked addresses. */
	struct ci_last_stack *recent = t->last_stack;
	bool second = (int32_t)(recent[1].used - recent[0].used) > 0; /* wraps */
	struct ci_last_stack *last = &recent[second], *other = &recent[!second];
	uint32_t gen = __atomic_load_n(&ci_generation, __ATOMIC_RELAXED);
	unsigned n = CI_UNLIKELY(ci_cfg.stack_mode == CI_STACKS_ACCURATE)
			     ? ci_walk_accurate(c, frames, depth)
			     : ci_walk_fast(t, c, frames, depth, last->generation == gen ? last : NULL,
					    recent);
	if (ci_python_walks)
		n = ci_python_capture(frames, n, CI_STACK_FRAMES_MAX);
	if (CI_LIKELY(ci_stack_same(last, gen, frames, n)))
		return c->stack = last->id;
	return ci_stack_other(c, frames, n, gen, last, other);
}
