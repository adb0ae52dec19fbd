/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: stage 6, symbolize (corefile/symbolize/).  What the report
 * session reads of the symbolizer beyond the public API: its cache of recorded return addresses
 * and the Python frames merged into recorded stacks (dwfl.c, python_core.c); and the Python
 * walker (python.c): CPython's thread states, frames and code objects read out of a core or a
 * live process through a memory callback, so the walker knows nothing of libdwfl and the fuzzer
 * (tests/python/fuzz_python.c) can feed it a synthetic memory image.  Every pointer it follows is
 * untrusted: reads are bounded, chains have depth caps and cycle checks, and a chain that breaks
 * ends its stack with a note.
 */
#ifndef CI_SYMBOLIZE_H
#define CI_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"
#include "cudainspect/pylayout.h"

/* Frames for ADDRESS from the symbolizer's cache (computed on first use).  The frames belong to
 * the symbolizer; NULL with *n = 0 when SYM is NULL or on out-of-memory.  The symbolize stage of
 * the report session only: renderers read what it resolved (report/session.h). */
const struct ci_frame *ci_symbolize_cached(struct ci_symbolizer *sym, uint64_t address,
					   bool is_return, size_t *n);

/* A recorded return address and the frames it resolved to (several when inlined), owned by the
 * report's symbolizer; COUNT 0: not resolved (no symbolizer, or out of memory). */
struct ci_resolved_pc {
	const struct ci_frame *frames;
	size_t count;
	/* A Python frame word (CI_PYFRAME_TAG) resolves to no frames of its own; its frame goes
	 * to the native frame that ran it (corefile/python_core.c): FRAMES then points to OWNED,
	 * whose first OWNED_PYTHON frames are Python frames owned here, the rest copies of the
	 * symbolizer's (their strings are the symbolizer's). */
	struct ci_frame *owned;
	size_t owned_python;
	bool python_word;     /* a Python frame word: no frames of its own, shown where it went */
};
/* Resolve the Python words of recorded stack PCS[0..N) into V (whose native frames are
 * resolved) from the model's code table: merged at the native eval frames, or all before the
 * first frame when the counts disagree.  -1 on out-of-memory. */
int ci_py_resolve_recorded(const struct ci_model *m, const uint64_t *pcs, size_t n,
			   struct ci_resolved_pc *v);
void ci_resolved_pcs_free(struct ci_resolved_pc *v, size_t n);

/* ---------------------------------------------------------------------------------------- */
/* The Python walker (python.c) and its merge into native stacks (python_core.c)              */

/* Caps on what the input drives (docs/SECURITY.md). */
#define CI_PY_INTERPS_MAX 64
#define CI_PY_THREADS_MAX 4096
#define CI_PY_FRAMES_MAX 1024
#define CI_PY_STRING_MAX 1024      /* characters of a name or file name */
#define CI_PY_LINETABLE_MAX 65536  /* bytes of one code object's line table */

/* Read LEN bytes at ADDR of the inspected process into BUF; false if they are not there. */
typedef bool ci_py_read_fn(void *arg, uint64_t addr, void *buf, size_t len);

struct ci_py_memory {
	ci_py_read_fn *read;
	void *arg;
};

struct ci_py_frame {
	uint64_t code;      /* the code object's address */
	int32_t instr;      /* instruction offset in code units, -1 if unknown */
	bool entry;         /* called from C: the innermost of one native eval frame's run */
	char *function;     /* qualified name (3.10: the name), NULL if unreadable */
	char *file;         /* NULL if unreadable */
	int line;           /* 0 if unknown */
};

struct ci_py_thread {
	uint64_t tstate;
	uint64_t thread_id;        /* pthread_t */
	uint64_t native_thread_id; /* the LWP (3.11+), 0 if unknown */
	bool gil;                  /* holds the GIL */
	struct ci_py_frame *frames; /* innermost first */
	size_t frame_count;
	char *note;                /* why the stack ends early, or NULL */
};

struct ci_py_state {
	struct ci_py_layout layout;
	uint32_t version;          /* PY_VERSION_HEX when known, else 3.minor with zeros */
	uint64_t runtime;          /* &_PyRuntime */
	struct ci_py_thread *threads;
	size_t thread_count;
	char *note;                /* why the walk stopped early, or NULL */
};

/* The built-in row for 3.MINOR, or NULL. */
const struct ci_py_layout *ci_py_builtin_layout(unsigned minor);

/* The line of instruction INSTR (code units) in a code object whose first line is FIRSTLINENO
 * and whose line table is TABLE[0..LEN), in the format of LAYOUT's version.  0 if unknown. */
int ci_py_line(const struct ci_py_layout *layout, const uint8_t *table, size_t len,
	       int firstlineno, int32_t instr);

/* Walk every interpreter and thread state from RUNTIME (&_PyRuntime) with LAYOUT, reading
 * through MEM.  CODE_TYPE is &PyCode_Type (0: not checked).  Returns a state to free with
 * ci_py_state_destroy, or NULL on out-of-memory; problems of the input are notes in it. */
struct ci_py_state *ci_py_walk(const struct ci_py_memory *mem, const struct ci_py_layout *layout,
			       uint32_t version, uint64_t runtime, uint64_t code_type);
void ci_py_state_destroy(struct ci_py_state *state);

/* From here on: libdwfl and the reader's own types (corefile/python_core.c). */
struct Dwfl;
struct ci_source;
struct ci_frame;

/* Find the interpreter among the modules DWFL reported for SRC and walk it.  NULL with *WHY
 * NULL: not a Python process; NULL with *WHY set (to free): Python, but why its frames cannot
 * be read; else the state. */
struct ci_py_state *ci_py_find(struct Dwfl *dwfl, struct ci_source *src, char **why);
/* The Python thread running on OS thread TID (FS_BASE: its fs register, which is the pthread_t
 * that 3.10 records; 0 if unknown), or NULL. */
const struct ci_py_thread *ci_py_thread_of(const struct ci_py_state *st, uint32_t tid,
					   uint64_t fs_base);
/* Insert PT's frames into the native stack *FRAMES (*COUNT frames, innermost first): each run
 * just inside its _PyEval_EvalFrameDefault frame when the counts of eval frames and entry frames
 * agree, else all of them after the native ones (two blocks in stack order) with a note in *NOTE
 * (if it is NULL).  The native frames move
 * over (not copied); -1 on out-of-memory, the stack unchanged. */
int ci_py_merge(const struct ci_py_thread *pt, struct ci_frame **frames, size_t *count,
		char **note);

#endif /* CI_SYMBOLIZE_H */
