/* SPDX-License-Identifier: MIT */
/*
 * The symbol image: a small ELF object kept inside the flight record (CI_SEC_SYMBOL_IMAGE) whose
 * symbol table mirrors the live allocation table, one symbol slot per allocation slot.  The
 * recorder registers it as its own entry with GDB's JIT interface, so GDB's built-in ELF reader
 * turns every live device allocation into a minimal symbol ("cuda_alloc_42"); `print`, `x/a`,
 * `info symbol` and backtrace arguments then name device pointers, with or without the plugin.
 *
 * Updates are O(1), lock-free and allocation-free: the allocation table calls
 * ci_symimage_set() after it publishes a live entry in slot S and ci_symimage_clear() when it
 * retires slot S.  A torn symbol in a core is harmless (GDB shows a wrong or no name).
 */
#ifndef CUDAINSPECT_RECORDER_SYMIMAGE_H
#define CUDAINSPECT_RECORDER_SYMIMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes the image needs for an allocation table of ALLOC_CAPACITY slots. */
size_t ci_symimage_size(uint32_t alloc_capacity);
/* Lay out an empty image in IMAGE (SIZE bytes from ci_symimage_size, zero-filled memory). */
void ci_symimage_init(void *image, size_t size, uint32_t alloc_capacity);
/* Slot SLOT now holds live allocation ID at [ADDRESS, ADDRESS + SIZE). */
void ci_symimage_set(void *image, uint32_t slot, uint64_t id, uint64_t address, uint64_t size);
/* Slot SLOT no longer holds a live allocation. */
void ci_symimage_clear(void *image, uint32_t slot);

#endif
