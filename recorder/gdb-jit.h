/* SPDX-License-Identifier: MIT */
/*
 * GDB's JIT interface as a producer sees it (GDB manual, "JIT Interface"; gdb/jit.h): a
 * descriptor named __jit_debug_descriptor holding a doubly linked list of in-memory object
 * files, and the function __jit_debug_register_code that GDB breaks on after each change.  One
 * copy, for the recorder (recorder/jit.c) and the tests that play or check a producer.
 */
#ifndef CUDAINSPECT_GDB_JIT_H
#define CUDAINSPECT_GDB_JIT_H

#include <stdint.h>

struct jit_code_entry {
	struct jit_code_entry *next_entry;
	struct jit_code_entry *prev_entry;
	const char *symfile_addr;
	uint64_t symfile_size;
};

struct jit_descriptor {
	uint32_t version;         /* 1 */
	uint32_t action_flag;     /* enum jit_action */
	struct jit_code_entry *relevant_entry;
	struct jit_code_entry *first_entry;
};

enum jit_action { JIT_NOACTION = 0, JIT_REGISTER_FN = 1, JIT_UNREGISTER_FN = 2 };

#endif
