/* SPDX-License-Identifier: MIT */
/*
 * Python frames with every recorded stack (CUDAINSPECT_PYTHON, on by default where an
 * interpreter is found).  At the first CUDA call the interpreter's symbols are looked up in the
 * process (the executable of a static build or libpython: _PyRuntime,
 * PyGILState_GetThisThreadState, Py_Version, PyCode_Type) and its layout chosen: the built-in
 * rows of include/cudainspect/pylayout.h for 3.10-3.12, the validated _Py_DebugOffsets block at
 * the start of _PyRuntime for 3.13.  The Python section (18) records what was found, or why not.
 *
 * Per stack, the calling thread's own frame chain is walked from its thread state, which
 * PyGILState_GetThisThreadState returns without the GIL (a pthread TSS read): the current
 * thread state of 3.10/3.11 is the GIL holder's, another thread's while ctypes or PyTorch
 * released the GIL.  Only the owning thread links and unlinks its frames, so reading them from
 * that thread is race-free, and the frames' code objects are alive while they run.  No GIL, no
 * Python call, no reference count, no lock, no system call.  Each code object is copied into
 * section 19 at first sight (qualified name, file name, first line, line table), keyed by its
 * address, name object and first line, so that snapshots and code objects freed before the
 * crash still resolve; the frames are CI_PYFRAME_* words after the native return addresses.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cudainspect/pylayout.h"
#include "recorder.h"
#include "utf8.h"

typedef void *(*ci_dlsym_fn)(void *, const char *);
extern ci_dlsym_fn ci_real_dlsym;

static struct {
	bool found;               /* a Python interpreter is in the process */
	bool on;                  /* frames are recorded */
	struct ci_py_layout l;
	int8_t row;               /* L's row of ci_py_layouts, -1: from _Py_DebugOffsets */
	void *(*this_thread)(void);
	uintptr_t runtime, code_type;
	uint32_t version;
	char why[200];
} ci_py;

_Static_assert(sizeof(struct ci_py_layout) <= sizeof(((struct ci_python *)0)->layout),
	       "the layout fits the Python section");

#define CI_LOAD(addr) (*(const uintptr_t *)(uintptr_t)(addr))
#define CI_LOAD32(addr) (*(const uint32_t *)(uintptr_t)(addr))
#define CI_LOAD8(addr) (*(const uint8_t *)(uintptr_t)(addr))

static void *ci_py_sym(const char *name)
{
	return ci_real_dlsym ? ci_real_dlsym(RTLD_DEFAULT, name) : dlsym(RTLD_DEFAULT, name);
}

void ci_python_prepare(void)
{
	memset(&ci_py, 0, sizeof ci_py);
	void *runtime = ci_py_sym("_PyRuntime");
	void *this_thread = ci_py_sym("PyGILState_GetThisThreadState");
	if (!runtime || !this_thread)
		return; /* not a Python process: nothing to say, nothing recorded */
	ci_py.found = true;
	ci_py.runtime = (uintptr_t)runtime;
	ci_py.this_thread = (void *(*)(void))this_thread;
	ci_py.code_type = (uintptr_t)ci_py_sym("PyCode_Type");
	if (!ci_cfg.python)
		return;
	const unsigned long *py_version = ci_py_sym("Py_Version");
	const char *(*get_version)(void) = (const char *(*)(void))ci_py_sym("Py_GetVersion");
	const struct ci_py_layout *l = NULL;
	ci_py.row = -1;
	if (!memcmp(runtime, CI_PY_DEBUG_COOKIE, 8)) {
		const char *bad = ci_py_layout_from_debug_offsets(runtime, &ci_py.l, &ci_py.version);
		if (bad) {
			snprintf(ci_py.why, sizeof ci_py.why, "%s", bad);
			return;
		}
		l = &ci_py.l;
	} else {
		unsigned minor = 0;
		if (py_version && (*py_version >> 24) == 3) {
			ci_py.version = (uint32_t)*py_version;
			minor = (unsigned)(*py_version >> 16) & 0xff;
		} else if (get_version) {
			/* 3.10 has no Py_Version: "3.10.13 (main, ...)" from a static buffer. */
			const char *v = get_version();
			unsigned major = 0, micro = 0;
			if (v && sscanf(v, "%u.%u.%u", &major, &minor, &micro) >= 2 && major == 3)
				ci_py.version = 0x03000000u | minor << 16 | (micro & 0xff) << 8;
			else
				minor = 0;
		}
		if (!minor) {
			snprintf(ci_py.why, sizeof ci_py.why, "the interpreter's version is not known");
			return;
		}
		for (size_t i = 0; i < sizeof ci_py_layouts / sizeof ci_py_layouts[0]; i++)
			if (ci_py_layouts[i].minor == minor) {
				l = &ci_py_layouts[i];
				ci_py.row = (int8_t)i;
			}
		if (!l) {
			snprintf(ci_py.why, sizeof ci_py.why,
				 "Python 3.%u has no layout the recorder knows (3.10 to 3.13)", minor);
			return;
		}
		ci_py.l = *l;
	}
	ci_py.on = true;
	ci_python_walks = true;
}

void ci_python_init(void)
{
	if (!ci_py.found)
		return;
	uint32_t state = !ci_cfg.python ? CI_PY_OFF : ci_py.on ? CI_PY_ON : CI_PY_UNSUPPORTED;
	if (state == CI_PY_UNSUPPORTED)
		ci_say("Python frames are not recorded: %s (native stacks only)", ci_py.why);
	uint32_t slot = ci_rec.sec[CI_SEC_PYTHON].base ? ci_table_claim(CI_SEC_PYTHON) : CI_NONE;
	if (slot == CI_NONE) {
		ci_py.on = false; /* an older layout without the section: no frames to explain */
		ci_python_walks = false;
		return;
	}
	struct ci_python *p = ci_entry(CI_SEC_PYTHON, slot);
	ci_entry_begin(&p->seq);
	p->state = state;
	p->version = ci_py.version;
	p->runtime = ci_py.runtime;
	p->code_type = ci_py.code_type;
	p->why_str = state == CI_PY_UNSUPPORTED ? ci_string(ci_py.why, sizeof ci_py.why) : 0;
	p->layout_size = ci_py.on ? (uint32_t)sizeof ci_py.l : 0;
	if (ci_py.on)
		memcpy(p->layout, &ci_py.l, sizeof ci_py.l);
	ci_entry_publish(&p->seq, (uint64_t)slot + 1);
}

/* A str object into the string table (compact strings: every code object's names are). */
static uint32_t ci_py_string(uintptr_t obj)
{
	const struct ci_py_layout *l = &ci_py.l;
	if (!obj)
		return 0;
	uint32_t state = CI_LOAD32(obj + l->unicode_state);
	unsigned kind = (state >> 2) & 7;
	bool compact = state & (1u << 5), ascii = state & (1u << 6);
	uintptr_t len = CI_LOAD(obj + l->unicode_length);
	if (!compact || (kind != 1 && kind != 2 && kind != 4))
		return 0;
	if (len > 255)
		len = 255;
	const uint8_t *data = (const uint8_t *)(obj + (ascii ? l->unicode_ascii_size
							     : l->unicode_compact_size));
	char buf[256 * 4 + 1];
	size_t o = 0;
	for (uintptr_t i = 0; i < len; i++) {
		uint32_t cp = kind == 1 ? data[i]
			      : kind == 2 ? ((const uint16_t *)data)[i] : ((const uint32_t *)data)[i];
		o += ci_utf8_encode(cp ? cp : '?', '?', buf + o); /* a NUL would end the name */
	}
	buf[o] = 0;
	return ci_string(buf, o);
}

static uint32_t ci_py_linetable(uintptr_t bytes)
{
	static const char hex[] = "0123456789abcdef";
	if (!bytes)
		return 0;
	uintptr_t n = CI_LOAD(bytes + ci_py.l.bytes_size);
	if (n > CI_PY_RECORD_LINETABLE_MAX)
		n = CI_PY_RECORD_LINETABLE_MAX;
	const uint8_t *p = (const uint8_t *)(bytes + ci_py.l.bytes_sval);
	char buf[2 * CI_PY_RECORD_LINETABLE_MAX + 1];
	for (uintptr_t i = 0; i < n; i++) {
		buf[2 * i] = hex[p[i] >> 4];
		buf[2 * i + 1] = hex[p[i] & 15];
	}
	buf[2 * n] = 0;
	return ci_string(buf, 2 * n);
}

static uint32_t ci_py_store(uintptr_t code, uintptr_t name, int32_t first, uint64_t key)
{
	uint32_t slot = ci_table_claim(CI_SEC_PY_CODES);
	if (slot == CI_NONE)
		return CI_PYFRAME_NO_CODE;
	const struct ci_py_layout *l = &ci_py.l;
	struct ci_py_code *e = ci_entry(CI_SEC_PY_CODES, slot);
	ci_entry_begin(&e->seq);
	e->code = code;
	e->fingerprint = key;
	e->firstlineno = first;
	e->qualname_str = ci_py_string(name);
	e->filename_str = ci_py_string(CI_LOAD(code + l->code_filename));
	e->linetable_str = ci_py_linetable(CI_LOAD(code + l->code_linetable));
	ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	return slot;
}

/* Each thread's last code objects and their slots, direct-mapped: a hit touches only the
 * frame and one word of the code object (its name), not the shared map and table or the code
 * object's type and first line (each a cache miss).  The name object guards against a new code
 * object at a freed one's address.  In front of it, the word each depth of the thread's last
 * walk made from its code object, name and instruction pointer: a launch loop walks the same
 * frames every time, and an equal triple makes an equal word (the entry mark aside), without
 * the cache's hash and compare or the word's arithmetic.  Default TLS model: the recorder may
 * be dlopen'd. */
static uint32_t ci_py_code_slot(uintptr_t code, uintptr_t name, int32_t first);
#define CI_PY_CACHE 128
struct ci_py_cache {
	uint32_t generation;
	struct {
		uintptr_t code, name;
		uint32_t slot;
	} e[CI_PY_CACHE];
	struct {
		uintptr_t code, name, instr;
		uint64_t word; /* without CI_PYFRAME_ENTRY */
	} last[CI_PY_DEPTH_MAX];
};
static __thread struct ci_py_cache ci_py_tls;

/* Where code object CODE goes in the cache: code objects are allocated close together, so the
 * address's low bits alone collide (two frames of one loop evicting each other every launch). */
static inline size_t ci_py_cache_index(uintptr_t code)
{
	return (size_t)(ci_mix64(code) >> 57) & (CI_PY_CACHE - 1);
}

/* A miss in CACHE at H for CODE (whose name object is NAME): the code table slot of CODE
 * (copied at first sight), now cached, or CI_NONE if it is not a code object. */
static uint32_t ci_py_code_miss(struct ci_py_cache *cache, size_t h, uintptr_t code,
				uintptr_t name)
{
	const struct ci_py_layout *l = &ci_py.l;
	if (ci_py.code_type && CI_LOAD(code + 8) != ci_py.code_type)
		return CI_NONE;
	int32_t first = (int32_t)CI_LOAD32(code + l->code_firstlineno);
	uint32_t slot = ci_py_code_slot(code, name, first);
	if (slot != CI_PYFRAME_NO_CODE) {
		cache->e[h].code = code;
		cache->e[h].name = name;
		cache->e[h].slot = slot;
	}
	return slot;
}

static uint32_t ci_py_code_slot(uintptr_t code, uintptr_t name, int32_t first)
{
	uint64_t key = (ci_mix64(code ^ ci_mix64(name + (uint32_t)first)) & ~(1ull << 63)) | 1;
	uint32_t slot = ci_map_get(&ci_rec.py_code_map, key);
	if (slot != CI_NONE && slot < ci_rec.sec[CI_SEC_PY_CODES].capacity) {
		const struct ci_py_code *e = ci_entry(CI_SEC_PY_CODES, slot);
		if (e->code == code && e->fingerprint == key)
			return slot;
	}
	struct ci_map_slot *ms;
	uint32_t found;
	if (ci_map_claim(&ci_rec.py_code_map, key, &ms, &found)) {
		slot = ci_py_store(code, name, first, key);
		ci_map_publish(ms, slot == CI_PYFRAME_NO_CODE ? CI_NONE : slot);
		return slot;
	}
	if (found != CI_NONE && found < ci_rec.sec[CI_SEC_PY_CODES].capacity) {
		const struct ci_py_code *e = ci_entry(CI_SEC_PY_CODES, found);
		if (e->code == code && e->fingerprint == key)
			return found;
	}
	return ci_py_store(code, name, first, key); /* a collision or a full map */
}

/* A miss in the last walk's words at depth D: the word of CODE (name NAME) at instruction
 * pointer AT (an index on 3.10), now remembered there, or 0 when CODE is no code object.  Out of
 * the walk's loop, which then keeps its values in registers. */
static __attribute__((noinline)) uint64_t ci_py_word_miss(struct ci_py_cache *cache, unsigned d,
							 uintptr_t code, uintptr_t name,
							 uintptr_t at)
{
	const struct ci_py_layout *l = &ci_py.l;
	size_t h = ci_py_cache_index(code);
	uint32_t slot;
	if (CI_LIKELY(cache->e[h].code == code && cache->e[h].name == name))
		slot = cache->e[h].slot;
	else if ((slot = ci_py_code_miss(cache, h, code, name)) == CI_NONE)
		return 0;
	uint32_t instr = CI_PYFRAME_NO_INSTR;
	if (l->instr_is_index) {
		if ((int32_t)at >= 0)
			instr = (uint32_t)at;
	} else if (at >= code + l->code_code_adaptive) {
		instr = (uint32_t)((at - (code + l->code_code_adaptive)) / 2);
	}
	uint64_t word = CI_PYFRAME_WORD(slot, instr, false);
	if (slot != CI_PYFRAME_NO_CODE) {
		cache->last[d].code = code;
		cache->last[d].name = name;
		cache->last[d].instr = at;
		cache->last[d].word = word;
	}
	return word;
}

/* How a frame says it was called from C: every frame (3.10), its is_entry byte (3.11), or a
 * shim frame owned by the C stack below it (3.12 and later: SHIM); ANY: as layout L says. */
enum ci_py_entry { CI_PY_ENTRY_SHIM, CI_PY_ENTRY_ANY };

/* The walk from frame F, its words from FRAMES[N] on, with layout L.  Each built-in row of
 * ci_py_layouts gets its own copy (L a constant there) whose offsets and tests are immediates,
 * so that the loop keeps its values in registers: about a tenth less time a frame than with
 * the offsets read from ci_py.l, which a _Py_DebugOffsets layout (3.13) still needs; there
 * ENTRY_KIND takes the tests that do not apply out of the loop. */
static inline __attribute__((always_inline)) unsigned
ci_py_walk(struct ci_py_cache *cache, uintptr_t f, uint64_t *frames, unsigned n, unsigned max,
	   const struct ci_py_layout *l, const enum ci_py_entry entry_kind)
{
	/* The offsets in locals: the recorder is built with -fno-strict-aliasing, so each store
	 * into FRAMES would otherwise reload them all from the layout. */
	const uint32_t o_prev = l->frame_previous, o_code = l->frame_code, o_instr = l->frame_instr,
		       o_owner = l->frame_owner, o_entry = l->frame_is_entry,
		       o_name = l->code_qualname ? l->code_qualname : l->code_name;
	const bool shim = entry_kind == CI_PY_ENTRY_SHIM;
	const bool index = !shim && l->instr_is_index;
	const bool every = !shim && l->minor == 10;
	const uint8_t cstack = shim || l->minor >= 11 ? l->owner_cstack : 0;
	const bool byte = !shim && o_entry != 0;
	const unsigned n0 = n;
	if (n >= max)
		return n;
	/* Cut at CI_PY_DEPTH_MAX frames or one word before FRAMES is full (for the mark). */
	const unsigned limit = max - 1 < n0 + CI_PY_DEPTH_MAX ? max - 1 : n0 + CI_PY_DEPTH_MAX;
	for (; f; f = CI_LOAD(f + o_prev)) {
		if (CI_UNLIKELY(n >= limit)) {
			frames[n++] = CI_PYFRAME_WORD(CI_PYFRAME_TRUNCATED, 0, 0);
			return n;
		}
		if (cstack && CI_LOAD8(f + o_owner) == cstack) {
			if (n > n0) /* the frame above is the entry of this shim's run */
				frames[n - 1] |= CI_PYFRAME_ENTRY;
			continue;
		}
		uintptr_t code = CI_LOAD(f + o_code);
		if (CI_UNLIKELY(!code))
			break;
		uintptr_t name = CI_LOAD(code + o_name);
		uintptr_t at = index ? CI_LOAD32(f + o_instr) : CI_LOAD(f + o_instr);
		bool entry = every || (byte && CI_LOAD8(f + o_entry));
		unsigned d = n - n0;
		uint64_t word;
		if (CI_LIKELY(cache->last[d].code == code && cache->last[d].name == name &&
			      cache->last[d].instr == at))
			word = cache->last[d].word;
		else if (!(word = ci_py_word_miss(cache, d, code, name, at)))
			break;
		frames[n++] = word | (entry ? CI_PYFRAME_ENTRY : 0);
	}
	if (n > n0)
		frames[n - 1] |= CI_PYFRAME_ENTRY; /* the outermost is always entered from C */
	return n;
}

bool ci_python_walks CI_HOT;

unsigned ci_python_capture(uint64_t *frames, unsigned n, unsigned max)
{
	if (!ci_py.on || !ci_rec.sec[CI_SEC_PY_CODES].base)
		return n;
	uintptr_t ts = (uintptr_t)ci_py.this_thread();
	if (!ts)
		return n; /* a thread Python never saw */
	struct ci_py_cache *cache = &ci_py_tls;
	/* Once: without this the compiler asks __tls_get_addr again for every frame. */
	__asm__("" : "+r"(cache));
	uint32_t gen = __atomic_load_n(&ci_generation, __ATOMIC_RELAXED);
	if (CI_UNLIKELY(cache->generation != gen)) {
		memset(cache, 0, sizeof *cache);
		cache->generation = gen; /* a new record (fork child): its slots are new */
	}
	const struct ci_py_layout *l = &ci_py.l;
	uintptr_t f = CI_LOAD(ts + l->tstate_frame);
	if (l->has_cframe && f)
		f = CI_LOAD(f + l->cframe_current_frame);
	_Static_assert(sizeof ci_py_layouts / sizeof ci_py_layouts[0] == 3, "a walk for each row");
	switch (ci_py.row) {
	case 0:
		return ci_py_walk(cache, f, frames, n, max, &ci_py_layouts[0], CI_PY_ENTRY_ANY);
	case 1:
		return ci_py_walk(cache, f, frames, n, max, &ci_py_layouts[1], CI_PY_ENTRY_ANY);
	case 2:
		return ci_py_walk(cache, f, frames, n, max, &ci_py_layouts[2], CI_PY_ENTRY_ANY);
	}
	if (l->minor > 10 && !l->instr_is_index && !l->frame_is_entry && l->owner_cstack)
		return ci_py_walk(cache, f, frames, n, max, l, CI_PY_ENTRY_SHIM);
	return ci_py_walk(cache, f, frames, n, max, l, CI_PY_ENTRY_ANY);
}
