/* SPDX-License-Identifier: MIT */
/*
 * GDB's JIT interface (docs/RECORDER.md, "GDB's JIT interface"): the record registers itself
 * as one jit_code_entry whose symfile is the whole region (the plugin's JIT reader recognises the magic), and each
 * part of the symbol image as one more entry (GDB's own ELF reader turns them into symbols for
 * live device allocations).  This works on live processes and on cores alike, since GDB reads
 * the descriptor from the inferior's memory.
 *
 * The descriptor and the breakpoint function are hidden: GDB looks the two names up per
 * objfile (in .symtab, which keeps hidden symbols as local ones), while hidden visibility keeps
 * them out of the dynamic symbol table, so another JIT producer in the process (LLVM ORC, a
 * program with its own descriptor) keeps binding to its own definitions instead of being
 * interposed by this preloaded library.  Do not strip the library with --strip-unneeded or
 * --strip-all: that removes the local symbols GDB needs (--strip-debug is fine).
 */
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gdb-jit.h"
#include "recorder.h"
#include "symimage.h"

CI_HIDDEN struct jit_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };

/* GDB puts a breakpoint here; the asm keeps the calls from being optimised away. */
CI_HIDDEN void __attribute__((noinline, used)) __jit_debug_register_code(void);
void __attribute__((noinline, used)) __jit_debug_register_code(void)
{
	__asm__ volatile("" ::: "memory");
}

#define CI_JIT_ENTRIES 256 /* the record plus up to 255 symbol image parts */
/* Two entries per registered object: a refresh links the spare one (GDB reads the object
 * afresh) before it unlinks the one GDB had, so that at no moment is a part of the image, or
 * the record, missing from the list - not for a debugger that stops the process in between, nor
 * in a core dumped in between.  Both entries of a pair name the same bytes. */
static struct jit_code_entry ci_jit_entries[CI_JIT_ENTRIES][2];
static uint8_t ci_jit_live[CI_JIT_ENTRIES]; /* which of the pair is linked */
static uint32_t ci_jit_count;
static int ci_jit_busy; /* atomic: tid of the thread (un)registering, 0 if none */

/* Take the registration lock, waiting up to WAIT_MS for another thread (never for this one: a
 * signal handler may interrupt its own thread's refresh).  Async-signal-safe. */
static bool ci_jit_lock(int wait_ms)
{
	int me = (int)syscall(SYS_gettid);
	for (int i = 0;; i++) {
		int expected = 0;
		if (__atomic_compare_exchange_n(&ci_jit_busy, &expected, me, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
		if (expected == me || i >= wait_ms)
			return false;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
}

static void ci_jit_unlock(void)
{
	__atomic_store_n(&ci_jit_busy, 0, __ATOMIC_RELEASE);
}

static void ci_jit_link(struct jit_code_entry *e)
{
	struct jit_descriptor *d = &__jit_debug_descriptor;
	e->prev_entry = NULL;
	e->next_entry = d->first_entry;
	if (d->first_entry)
		d->first_entry->prev_entry = e;
	d->first_entry = e;
	d->relevant_entry = e;
	d->action_flag = JIT_REGISTER_FN;
	__jit_debug_register_code();
}

static void ci_jit_unlink(struct jit_code_entry *e)
{
	struct jit_descriptor *d = &__jit_debug_descriptor;
	if (e->prev_entry)
		e->prev_entry->next_entry = e->next_entry;
	else if (d->first_entry == e)
		d->first_entry = e->next_entry;
	if (e->next_entry)
		e->next_entry->prev_entry = e->prev_entry;
	d->relevant_entry = e;
	d->action_flag = JIT_UNREGISTER_FN;
	__jit_debug_register_code();
	e->next_entry = e->prev_entry = NULL;
}

static void ci_jit_set(uint32_t i, const void *addr, uint64_t size)
{
	for (int k = 0; k < 2; k++) {
		ci_jit_entries[i][k].symfile_addr = addr;
		ci_jit_entries[i][k].symfile_size = size;
	}
	ci_jit_live[i] = 0;
}

void ci_jit_register(void)
{
	if (!ci_cfg.jit || !ci_rec.base || !ci_jit_lock(0))
		return;
	uint32_t n = 0;
	ci_jit_set(n++, ci_rec.base, ci_rec.size);
	/* The live allocations' parts, then the frees'. */
	const void *images[2] = { ci_rec.symimage, ci_rec.symfreed };
	uint32_t caps[2] = { (uint32_t)ci_sec(CI_SEC_ALLOCS)->capacity,
			     (uint32_t)ci_sec(CI_SEC_FREES)->capacity };
	for (int i = 0; i < 2; i++) {
		size_t off, size;
		for (uint32_t p = 0; images[i] && n < CI_JIT_ENTRIES &&
				     ci_symimage_part(caps[i], p, &off, &size);
		     p++)
			ci_jit_set(n++, (const char *)images[i] + off, size);
	}
	for (uint32_t i = 0; i < n; i++)
		ci_jit_link(&ci_jit_entries[i][0]);
	__atomic_store_n(&ci_jit_count, n, __ATOMIC_RELEASE);
	ci_jit_unlock();
}

/* GDB reads an object when it is registered, not when it changes: register the symbol image
 * (and, with RECORD, the record, which makes the plugin print the summary) again so that a
 * debugger attached to the live process sees them as they are now.  Waits up to WAIT_MS for a
 * refresh in progress on another thread.  Async-signal-safe. */
void ci_jit_refresh(bool record, int wait_ms)
{
	if (!__atomic_load_n(&ci_jit_count, __ATOMIC_ACQUIRE) || !ci_jit_lock(wait_ms))
		return;
	for (uint32_t i = record ? 0 : 1; i < ci_jit_count; i++) {
		uint8_t live = ci_jit_live[i];
		ci_jit_link(&ci_jit_entries[i][!live]);
		ci_jit_unlink(&ci_jit_entries[i][live]);
		ci_jit_live[i] = !live;
	}
	ci_jit_unlock();
}

/* Fork child: the entries point into the parent's record, which the child unmaps. */
void ci_jit_forget(void)
{
	for (uint32_t i = 0; i < ci_jit_count; i++)
		ci_jit_unlink(&ci_jit_entries[i][ci_jit_live[i]]);
	memset(ci_jit_entries, 0, sizeof ci_jit_entries);
	memset(ci_jit_live, 0, sizeof ci_jit_live);
	ci_jit_count = 0;
	ci_jit_busy = 0;
}
