/* SPDX-License-Identifier: MIT */
/*
 * The symbol image: small ELF objects kept inside the flight record (CI_SEC_SYMBOL_IMAGE) whose
 * symbol tables mirror two tables of the record slot by slot: the live allocation table
 * ("cuda_alloc_42", 42 being ci_alloc.id) and the ring of recent frees ("cuda_freed_42").  The
 * recorder registers each part of each image as its own entry with GDB's JIT interface, so
 * GDB's built-in ELF reader turns every live and every recently freed device allocation into a
 * minimal symbol; `print`, `x/a`, `info symbol` and backtrace arguments then name device
 * pointers, with or without the plugin.  Which frees are named (never where a live allocation
 * or a newer free lies) is recorder/symfreed.c's business; this file only lays out and patches
 * the images.
 *
 * Every slot owns one SHF_ALLOC section that covers exactly its allocation: GDB resolves an
 * address only through an objfile section containing it, and one section spanning all
 * allocations would overlap the sections of host libraries mapped between them, which makes GDB
 * drop one of the two ("unexpected overlap ... Will ignore section B") and breaks host symbols.
 * GDB 13.1 keeps a symbol's section index in a 16-bit field and crashes on ELF extended section
 * numbering, so one ELF object holds at most CI_SYMIMAGE_PART_SLOTS slots; bigger tables get
 * several parts laid end to end (part I holds slots [I * CI_SYMIMAGE_PART_SLOTS, ...)).
 *
 * Updates are O(1), lock-free, allocation-free and async-signal-safe: the allocation table calls
 * ci_symimage_set() after it publishes a live entry in slot S and ci_symimage_clear() when it
 * retires slot S (the free ring likewise).  One writer per slot at a time (the table's slot
 * ownership guarantees it).  A torn symbol in a core is harmless (GDB shows a wrong or no name
 * for that one address).
 *
 * GDB reads a part when its JIT entry is registered (and when it attaches or opens a core), not
 * on every change: a process started under GDB shows the allocations as of the last
 * registration (docs/GDB.md).
 */
#ifndef CUDAINSPECT_RECORDER_SYMIMAGE_H
#define CUDAINSPECT_RECORDER_SYMIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudainspect/record.h"

/* Bytes per slot name: "cuda_alloc_" + up to 20 decimal digits + NUL. */
#define CI_SYMIMAGE_NAME_WIDTH 32
#define CI_SYMIMAGE_PREFIX "cuda_alloc_"
#define CI_SYMIMAGE_FREED_PREFIX "cuda_freed_"
/* Name of every live allocation's section, and of every freed one's, as `info symbol` prints
 * them. */
#define CI_SYMIMAGE_SECTION ".cuda_alloc"
#define CI_SYMIMAGE_FREED_SECTION ".cuda_freed"
/* Slots per ELF object (part); about 2 MiB per full part. */
#define CI_SYMIMAGE_PART_SLOTS 16384u

/* Which table an image mirrors: its symbols' prefix and section name. */
enum ci_symimage_kind { CI_SYMIMAGE_LIVE, CI_SYMIMAGE_FREED };

/* Bytes an image needs for a table of CAPACITY slots (about 130 bytes per slot, a multiple of
 * 8).  0 if CAPACITY is 0 or too large to describe. */
size_t ci_symimage_size(uint32_t capacity);
/* Lay out an empty image of KIND in IMAGE (SIZE bytes from ci_symimage_size, 8-byte aligned,
 * zero-filled memory).  Does nothing if SIZE is too small. */
void ci_symimage_init_kind(void *image, size_t size, uint32_t capacity, enum ci_symimage_kind kind);
/* The same for the live allocation table. */
void ci_symimage_init(void *image, size_t size, uint32_t capacity);

/* Parts of an image, one JIT entry each: ceil(CAPACITY / CI_SYMIMAGE_PART_SLOTS). */
uint32_t ci_symimage_part_count(uint32_t capacity);
/* Where part PART lies: *OFFSET bytes from the image's start, *SIZE bytes long.  False if PART
 * is out of range. */
bool ci_symimage_part(uint32_t capacity, uint32_t part, size_t *offset, size_t *size);

/* Slot SLOT now names allocation ID at [ADDRESS, ADDRESS + SIZE).  Ignored for a slot out of
 * range or an empty range. */
void ci_symimage_set(void *image, uint32_t slot, uint64_t id, uint64_t address, uint64_t size);
/* Slot SLOT no longer names anything. */
void ci_symimage_clear(void *image, uint32_t slot);
/* Whether slot SLOT names something now, and then its range.  Lock-free: a slot being changed
 * may read as either value. */
bool ci_symimage_get(const void *image, uint32_t slot, uint64_t *address, uint64_t *size);

/* Whether live allocations of KIND (enum ci_alloc_kind) belong in the image.  Host-registered
 * memory is left out because its range belongs to host objects GDB already knows (a section
 * over a registered .bss buffer would hide one of the two); address reservations because they
 * would hide the cuMemMap ranges inside them; cuMemCreate handles because they have no
 * address.  The recorder still records all of them; only GDB's symbols skip them. */
static inline bool ci_symimage_wants(uint32_t kind)
{
	return kind != CI_ALLOC_HOST_REGISTER && kind != CI_ALLOC_VMM_RESERVE &&
	       kind != CI_ALLOC_VMM_CREATE && kind != CI_ALLOC_VMM_IMPORT;
}

/* Whether freed allocations of KIND are named: device memory only.  Freed host memory (pinned
 * or registered) goes back to the host, which reuses its addresses for its own objects. */
static inline bool ci_symimage_wants_freed(uint32_t kind)
{
	return kind == CI_ALLOC_DEVICE || kind == CI_ALLOC_PITCH || kind == CI_ALLOC_MANAGED ||
	       kind == CI_ALLOC_ASYNC || kind == CI_ALLOC_POOL_ASYNC || kind == CI_ALLOC_VMM_MAP;
}

#endif
