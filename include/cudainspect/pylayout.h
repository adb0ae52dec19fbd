/* CPython's in-memory layout, as far as cudainspect reads it: the offsets that lead from
 * _PyRuntime to every thread state, its frames and their code objects, on x86-64 default
 * (GIL) builds.  CPython 3.10, 3.11 and 3.12 have no self-description, so their rows are
 * tables here, checked against each interpreter's own headers by tests/python/layout.t
 * (tests/python/layout-probe.c compiled with Py_BUILD_CORE); 3.13 and later describe
 * themselves in the _Py_DebugOffsets block at the start of _PyRuntime, which the reader
 * copies into the same struct (corefile/python.c, ci_py_layout_from_debug_offsets) after
 * validating it.  What the debug offsets do not give (the _PyCFrame indirection, owner
 * values, the line-table format) stays per minor version.
 *
 * Shared by the reader and the recorder; plain C, no CPython header needed. */
#ifndef CUDAINSPECT_PYLAYOUT_H
#define CUDAINSPECT_PYLAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Every offset is in bytes from the start of its object; 0 means "not in this version"
 * where the field is optional (the table says which). */
struct ci_py_layout {
	uint32_t minor;                 /* 3.MINOR */
	/* _PyRuntimeState */
	uint32_t runtime_interpreters_head;
	uint32_t runtime_tstate_current; /* <= 3.11: gilstate.tstate_current (the GIL holder) */
	/* PyInterpreterState */
	uint32_t interp_next;
	uint32_t interp_threads_head;   /* tstate_head (3.10), threads.head */
	uint32_t interp_gil_locked;     /* >= 3.12: _gil.locked (an int) */
	uint32_t interp_gil_holder;     /* >= 3.12: _gil.last_holder */
	/* PyThreadState */
	uint32_t tstate_next;
	uint32_t tstate_interp;
	uint32_t tstate_frame;          /* frame (3.10), cframe (3.11, 3.12), current_frame */
	uint32_t cframe_current_frame;  /* 3.11, 3.12: _PyCFrame.current_frame (has_cframe) */
	uint32_t tstate_thread_id;      /* pthread_t */
	uint32_t tstate_native_thread_id; /* >= 3.11: the LWP */
	/* PyFrameObject (3.10) or _PyInterpreterFrame */
	uint32_t frame_code;            /* f_code, f_executable (3.13: code object or None) */
	uint32_t frame_previous;        /* f_back (3.10), previous */
	uint32_t frame_instr;           /* f_lasti (3.10, int), prev_instr, instr_ptr (3.13) */
	uint32_t frame_owner;           /* >= 3.11: owner (a byte) */
	uint32_t frame_is_entry;        /* 3.11: is_entry (a byte) */
	/* PyCodeObject */
	uint32_t code_filename;
	uint32_t code_name;
	uint32_t code_qualname;         /* >= 3.11 */
	uint32_t code_firstlineno;      /* an int */
	uint32_t code_linetable;        /* a bytes object */
	uint32_t code_code_adaptive;    /* >= 3.11: the bytecode, inline */
	/* PyASCIIObject and PyBytesObject */
	uint32_t unicode_length;
	uint32_t unicode_state;
	uint32_t unicode_ascii_size;    /* data of a compact ASCII string starts here */
	uint32_t unicode_compact_size;  /* data of a compact non-ASCII string starts here */
	uint32_t bytes_size;
	uint32_t bytes_sval;
	/* Flags, by version */
	uint8_t has_cframe;             /* tstate_frame points to a _PyCFrame (3.11, 3.12) */
	uint8_t instr_is_index;         /* frame_instr is an int of code units (3.10) */
	uint8_t owner_cstack;           /* the owner value of C-stack shim frames (3.12+: 3), 0: none */
	uint8_t linetable_311;          /* the 3.11+ location table, else the 3.10 one */
	uint8_t code_may_be_none;       /* f_executable may be Py_None (3.13 shim frames) */
	uint8_t from_debug_offsets;     /* copied from _Py_DebugOffsets, not this table */
	uint8_t reserved;
};

/* Generator and shim owners (3.11+: FRAME_OWNED_BY_THREAD 0, _GENERATOR 1, _FRAME_OBJECT 2,
 * and _CSTACK 3 from 3.12). */
#define CI_PY_OWNER_GENERATOR 1

/* The built-in rows (offsets verified against the 3.10.13, 3.11.2, 3.11.7 and 3.12.1 headers). */
static const struct ci_py_layout ci_py_layouts[] = {
	{ .minor = 10,
	  .runtime_interpreters_head = 32, .runtime_tstate_current = 568,
	  .interp_next = 0, .interp_threads_head = 8,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .tstate_thread_id = 176,
	  .frame_code = 32, .frame_previous = 24, .frame_instr = 96,
	  .code_filename = 104, .code_name = 112, .code_firstlineno = 40, .code_linetable = 120,
	  .unicode_length = 16, .unicode_state = 32, .unicode_ascii_size = 48,
	  .unicode_compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .instr_is_index = 1 },
	{ .minor = 11,
	  .runtime_interpreters_head = 40, .runtime_tstate_current = 576,
	  .interp_next = 0, .interp_threads_head = 16,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_frame = 56, .cframe_current_frame = 8,
	  .tstate_thread_id = 152, .tstate_native_thread_id = 160,
	  .frame_code = 32, .frame_previous = 48, .frame_instr = 56, .frame_owner = 69,
	  .frame_is_entry = 68,
	  .code_filename = 112, .code_name = 120, .code_qualname = 128, .code_firstlineno = 72,
	  .code_linetable = 136, .code_code_adaptive = 184,
	  .unicode_length = 16, .unicode_state = 32, .unicode_ascii_size = 48,
	  .unicode_compact_size = 72, .bytes_size = 16, .bytes_sval = 32,
	  .has_cframe = 1, .linetable_311 = 1 },
	{ .minor = 12,
	  .runtime_interpreters_head = 40,
	  .interp_next = 0, .interp_threads_head = 72, .interp_gil_locked = 1056,
	  .interp_gil_holder = 1048,
	  .tstate_next = 8, .tstate_interp = 16, .tstate_frame = 56, .cframe_current_frame = 0,
	  .tstate_thread_id = 136, .tstate_native_thread_id = 144,
	  .frame_code = 0, .frame_previous = 8, .frame_instr = 56, .frame_owner = 70,
	  .code_filename = 112, .code_name = 120, .code_qualname = 128, .code_firstlineno = 68,
	  .code_linetable = 136, .code_code_adaptive = 192,
	  .unicode_length = 16, .unicode_state = 32, .unicode_ascii_size = 40,
	  .unicode_compact_size = 56, .bytes_size = 16, .bytes_sval = 32,
	  .has_cframe = 1, .owner_cstack = 3, .linetable_311 = 1 },
};

/* The _Py_DebugOffsets block of 3.13 (at offset 0 of _PyRuntime): its cookie and the 8-byte
 * words the reader takes from it, by index (cookie = word 0).  3.14 changed the frame's
 * executable into a tagged stack reference and renumbered the owners, so only minor 13 is
 * accepted until that is handled and tested. */
#define CI_PY_DEBUG_COOKIE "xdebugpy"
enum ci_py_debug_word {
	CI_PYD_VERSION = 1, CI_PYD_FREE_THREADED = 2,
	CI_PYD_RUNTIME_SIZE = 3, CI_PYD_RUNTIME_INTERPRETERS_HEAD = 5,
	CI_PYD_INTERP_SIZE = 6, CI_PYD_INTERP_NEXT = 8, CI_PYD_INTERP_THREADS_HEAD = 9,
	CI_PYD_INTERP_GIL_LOCKED = 17, CI_PYD_INTERP_GIL_HOLDER = 18,
	CI_PYD_TSTATE_SIZE = 19, CI_PYD_TSTATE_NEXT = 21, CI_PYD_TSTATE_INTERP = 22,
	CI_PYD_TSTATE_CURRENT_FRAME = 23, CI_PYD_TSTATE_THREAD_ID = 24,
	CI_PYD_TSTATE_NATIVE_THREAD_ID = 25,
	CI_PYD_FRAME_SIZE = 28, CI_PYD_FRAME_PREVIOUS = 29, CI_PYD_FRAME_EXECUTABLE = 30,
	CI_PYD_FRAME_INSTR_PTR = 31, CI_PYD_FRAME_OWNER = 33,
	CI_PYD_CODE_SIZE = 34, CI_PYD_CODE_FILENAME = 35, CI_PYD_CODE_NAME = 36,
	CI_PYD_CODE_QUALNAME = 37, CI_PYD_CODE_LINETABLE = 38, CI_PYD_CODE_FIRSTLINENO = 39,
	CI_PYD_CODE_CODE_ADAPTIVE = 43,
	CI_PYD_BYTES_SIZE = 64, CI_PYD_BYTES_OB_SIZE = 65, CI_PYD_BYTES_OB_SVAL = 66,
	CI_PYD_UNICODE_SIZE = 67, CI_PYD_UNICODE_STATE = 68, CI_PYD_UNICODE_LENGTH = 69,
	CI_PYD_UNICODE_ASCII_SIZE = 70,
	CI_PYD_WORDS = 73,            /* the words of the 3.13 block (through gc.collecting) */
};

/* Fill *OUT from the _Py_DebugOffsets block W (CI_PYD_WORDS 8-byte words read from the start of
 * _PyRuntime).  Returns NULL, or why the block is refused (a static sentence): no cookie, a
 * version other than 3.13, a free-threaded build, a size or offset out of bounds. */
/* A struct size the debug block gives must be sane, and every field offset inside it. */
#define CI_PYD_STRUCT_MAX (1u << 20)

/* The fields taken from the block: the struct's size word, the field's word, the bytes read
 * at that offset, and where the offset goes. */
static const struct ci_pyd_field {
	uint8_t size_word, field_word, width;
	uint16_t dst; /* offsetof(struct ci_py_layout, ...) */
} ci_pyd_fields[] = {
#define CI_PYD_F(size, field, width, member) { size, field, width, offsetof(struct ci_py_layout, member) }
	CI_PYD_F(CI_PYD_RUNTIME_SIZE, CI_PYD_RUNTIME_INTERPRETERS_HEAD, 8, runtime_interpreters_head),
	CI_PYD_F(CI_PYD_INTERP_SIZE, CI_PYD_INTERP_NEXT, 8, interp_next),
	CI_PYD_F(CI_PYD_INTERP_SIZE, CI_PYD_INTERP_THREADS_HEAD, 8, interp_threads_head),
	CI_PYD_F(CI_PYD_INTERP_SIZE, CI_PYD_INTERP_GIL_LOCKED, 4, interp_gil_locked),
	CI_PYD_F(CI_PYD_INTERP_SIZE, CI_PYD_INTERP_GIL_HOLDER, 8, interp_gil_holder),
	CI_PYD_F(CI_PYD_TSTATE_SIZE, CI_PYD_TSTATE_NEXT, 8, tstate_next),
	CI_PYD_F(CI_PYD_TSTATE_SIZE, CI_PYD_TSTATE_INTERP, 8, tstate_interp),
	CI_PYD_F(CI_PYD_TSTATE_SIZE, CI_PYD_TSTATE_CURRENT_FRAME, 8, tstate_frame),
	CI_PYD_F(CI_PYD_TSTATE_SIZE, CI_PYD_TSTATE_THREAD_ID, 8, tstate_thread_id),
	CI_PYD_F(CI_PYD_TSTATE_SIZE, CI_PYD_TSTATE_NATIVE_THREAD_ID, 8, tstate_native_thread_id),
	CI_PYD_F(CI_PYD_FRAME_SIZE, CI_PYD_FRAME_PREVIOUS, 8, frame_previous),
	CI_PYD_F(CI_PYD_FRAME_SIZE, CI_PYD_FRAME_EXECUTABLE, 8, frame_code),
	CI_PYD_F(CI_PYD_FRAME_SIZE, CI_PYD_FRAME_INSTR_PTR, 8, frame_instr),
	CI_PYD_F(CI_PYD_FRAME_SIZE, CI_PYD_FRAME_OWNER, 1, frame_owner),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_FILENAME, 8, code_filename),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_NAME, 8, code_name),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_QUALNAME, 8, code_qualname),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_LINETABLE, 8, code_linetable),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_FIRSTLINENO, 4, code_firstlineno),
	CI_PYD_F(CI_PYD_CODE_SIZE, CI_PYD_CODE_CODE_ADAPTIVE, 0, code_code_adaptive),
	CI_PYD_F(CI_PYD_BYTES_SIZE, CI_PYD_BYTES_OB_SIZE, 8, bytes_size),
	CI_PYD_F(CI_PYD_BYTES_SIZE, CI_PYD_BYTES_OB_SVAL, 0, bytes_sval),
	CI_PYD_F(CI_PYD_UNICODE_SIZE, CI_PYD_UNICODE_STATE, 4, unicode_state),
	CI_PYD_F(CI_PYD_UNICODE_SIZE, CI_PYD_UNICODE_LENGTH, 8, unicode_length),
#undef CI_PYD_F
};

static inline const char *ci_py_layout_from_debug_offsets(const uint64_t *w,
							   struct ci_py_layout *out,
							   uint32_t *version)
{
	if (memcmp(&w[0], CI_PY_DEBUG_COOKIE, 8) != 0)
		return "no _Py_DebugOffsets cookie at _PyRuntime";
	uint64_t v = w[CI_PYD_VERSION];
	if (v >> 32 || (v >> 24) != 3)
		return "the _Py_DebugOffsets version is not a Python 3 version";
	*version = (uint32_t)v;
	if (((v >> 16) & 0xff) != 13)
		return "this Python's _Py_DebugOffsets layout is not one the reader knows (3.13 only: "
		       "3.14 tags frame pointers and renumbers frame owners)";
	if (w[CI_PYD_FREE_THREADED])
		return "a free-threaded build (not supported yet)";
	struct ci_py_layout l = { .minor = 13, .has_cframe = 0, .owner_cstack = 3,
				  .linetable_311 = 1, .code_may_be_none = 1,
				  .from_debug_offsets = 1 };
	for (size_t i = 0; i < sizeof(ci_pyd_fields) / sizeof(ci_pyd_fields[0]); i++) {
		const struct ci_pyd_field *f = &ci_pyd_fields[i];
		uint64_t size = w[f->size_word], off = w[f->field_word];
		if (size == 0 || size > CI_PYD_STRUCT_MAX || off > size || f->width > size - off)
			return "a _Py_DebugOffsets size or offset is out of bounds (damaged)";
		uint32_t off32 = (uint32_t)off;
		memcpy((char *)&l + f->dst, &off32, sizeof(off32));
	}
	uint64_t ascii = w[CI_PYD_UNICODE_ASCII_SIZE];
	if (ascii < 24 || ascii > 256)
		return "the _Py_DebugOffsets string header size is out of bounds (damaged)";
	l.unicode_ascii_size = (uint32_t)ascii;
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject (3.12+). */
	l.unicode_compact_size = (uint32_t)ascii + 16;
	*out = l;
	return NULL;
}

#endif
