/* SPDX-License-Identifier: MIT */
/*
 * CPython's threads and frames, read from the inspected process's memory (corefile/python.h):
 * _PyRuntime → interpreters → thread states → frame chains → code objects, with each
 * version's layout (include/cudainspect/pylayout.h) and line-table format.  Nothing read is
 * trusted: every read goes through the caller's callback and may fail, every chain has a cap
 * and a cycle check, and a broken chain ends its stack with a note.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "symbolize.h"
#include "utf8.h"

const struct ci_py_layout *ci_py_builtin_layout(unsigned minor)
{
	for (size_t i = 0; i < sizeof(ci_py_layouts) / sizeof(ci_py_layouts[0]); i++)
		if (ci_py_layouts[i].minor == minor)
			return &ci_py_layouts[i];
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Line tables                                                                                */

struct lt_cursor {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static unsigned lt_byte(struct lt_cursor *c)
{
	if (c->pos >= c->len) {
		c->bad = true;
		return 0;
	}
	return c->p[c->pos++];
}

static uint64_t lt_varint(struct lt_cursor *c)
{
	unsigned b = lt_byte(c);
	uint64_t v = b & 63;
	for (unsigned shift = 6; (b & 64) && !c->bad; shift += 6) {
		if (shift > 60) {
			c->bad = true;
			break;
		}
		b = lt_byte(c);
		v |= (uint64_t)(b & 63) << shift;
	}
	return v;
}

/* A signed varint; deltas beyond +-2^30 lines are damage (no file is that long). */
static int64_t lt_svarint(struct lt_cursor *c)
{
	uint64_t u = lt_varint(c);
	if (u >> 31) {
		c->bad = true;
		return 0;
	}
	return (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}

/* 3.11+ (Objects/locations.md): entries of (kind, length in code units). */
static int line_311(const uint8_t *t, size_t len, int firstlineno, int32_t instr)
{
	struct lt_cursor c = { .p = t, .len = len };
	int64_t line = firstlineno, addr = 0;
	while (c.pos < c.len && !c.bad) {
		unsigned first = lt_byte(&c);
		if (!(first & 0x80))
			return 0;
		unsigned kind = (first >> 3) & 15, length = (first & 7) + 1;
		bool none = false;
		switch (kind) {
		case 15:
			none = true;
			break;
		case 14:
			line += lt_svarint(&c);
			lt_varint(&c);
			lt_varint(&c);
			lt_varint(&c);
			break;
		case 13:
			line += lt_svarint(&c);
			break;
		case 10: case 11: case 12:
			line += kind - 10;
			lt_byte(&c);
			lt_byte(&c);
			break;
		default:
			lt_byte(&c);
			break;
		}
		if (c.bad || line < -(1 << 30) || line > (1 << 30))
			return 0;
		if (instr >= addr && instr < addr + length)
			return none || line < 0 ? 0 : (int)line;
		addr += length;
	}
	return 0;
}

/* 3.10 (Objects/lnotab_notes.txt): (byte delta, signed line delta) pairs; -128: no line. */
static int line_310(const uint8_t *t, size_t len, int firstlineno, int32_t instr)
{
	int64_t line = firstlineno, start = 0, target = (int64_t)instr * 2;
	for (size_t i = 0; i + 1 < len; i += 2) {
		int delta = (int8_t)t[i + 1];
		bool none = delta == -128;
		if (!none)
			line += delta;
		int64_t end = start + t[i];
		if (target >= start && target < end)
			return none || line < 0 || line > (1 << 30) ? 0 : (int)line;
		start = end;
	}
	return 0;
}

int ci_py_line(const struct ci_py_layout *layout, const uint8_t *table, size_t len,
	       int firstlineno, int32_t instr)
{
	if (!table || instr < 0)
		return 0;
	return layout->linetable_311 ? line_311(table, len, firstlineno, instr)
				     : line_310(table, len, firstlineno, instr);
}

/* ---------------------------------------------------------------------------------------- */
/* Reading objects                                                                            */

struct walk {
	const struct ci_py_memory *mem;
	const struct ci_py_layout *l;
	uint64_t code_type;
	bool nomem;
	/* Code objects already read: open addressing on the address. */
	struct code_entry {
		uint64_t addr;
		char *function, *file;
		uint8_t *table;
		size_t table_len;
		int firstlineno;
		bool valid;
	} *codes;
	size_t codes_cap, codes_used;
	size_t frames_total;
};

static bool rd(struct walk *w, uint64_t addr, void *buf, size_t len)
{
	uint64_t end;
	if (!addr || !ci_add(addr, len, &end))
		return false;
	return w->mem->read(w->mem->arg, addr, buf, len);
}

static bool rd_ptr(struct walk *w, uint64_t addr, uint64_t *v)
{
	*v = 0;
	return rd(w, addr, v, 8);
}

static bool rd_field(struct walk *w, uint64_t base, uint32_t off, uint64_t *v)
{
	uint64_t a;
	*v = 0;
	return ci_add(base, off, &a) && rd_ptr(w, a, v);
}

/* A str object as UTF-8 (compact strings only: every name and file name of a code object is
 * one), NULL if unreadable.  Longer strings are cut at CI_PY_STRING_MAX characters. */
static char *read_str(struct walk *w, uint64_t obj)
{
	const struct ci_py_layout *l = w->l;
	uint64_t length, a;
	uint32_t state;
	if (!rd_field(w, obj, l->unicode_length, &length) || !ci_add(obj, l->unicode_state, &a) ||
	    !rd(w, a, &state, 4))
		return NULL;
	unsigned kind = (state >> 2) & 7;
	bool compact = state & (1u << 5), ascii = state & (1u << 6);
	if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1) ||
	    length > (1u << 30))
		return NULL;
	size_t n = length > CI_PY_STRING_MAX ? CI_PY_STRING_MAX : (size_t)length;
	uint8_t raw[CI_PY_STRING_MAX * 4];
	if (!ci_add(obj, ascii ? l->unicode_ascii_size : l->unicode_compact_size, &a) ||
	    (n && !rd(w, a, raw, n * kind)))
		return NULL;
	char *s = malloc(n * 4 + 1);
	if (!s) {
		w->nomem = true;
		return NULL;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t cp = kind == 1 ? raw[i]
			      : kind == 2 ? (uint32_t)(raw[2 * i] | raw[2 * i + 1] << 8)
					  : (uint32_t)(raw[4 * i] | raw[4 * i + 1] << 8 |
						       raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24);
		o += ci_utf8_encode(cp ? cp : '?', '?', s + o); /* a NUL would end the name */
	}
	s[o] = '\0';
	return s;
}

/* The bytes of a bytes object (the line table), NULL if unreadable or too long. */
static uint8_t *read_bytes(struct walk *w, uint64_t obj, size_t *len)
{
	uint64_t size, a;
	*len = 0;
	if (!rd_field(w, obj, w->l->bytes_size, &size) || size > CI_PY_LINETABLE_MAX ||
	    !ci_add(obj, w->l->bytes_sval, &a))
		return NULL;
	uint8_t *b = malloc(size ? size : 1);
	if (!b) {
		w->nomem = true;
		return NULL;
	}
	if (size && !rd(w, a, b, size)) {
		free(b);
		return NULL;
	}
	*len = size;
	return b;
}

static size_t code_hash(uint64_t addr, size_t cap)
{
	return (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

/* The code object at ADDR, read once; NULL on out-of-memory. */
static struct code_entry *code_get(struct walk *w, uint64_t addr)
{
	if (w->codes_used * 2 >= w->codes_cap) {
		size_t cap = w->codes_cap ? w->codes_cap * 2 : 64;
		struct code_entry *n = calloc(cap, sizeof(*n));
		if (!n) {
			w->nomem = true;
			return NULL;
		}
		for (size_t i = 0; i < w->codes_cap; i++) {
			if (!w->codes[i].addr)
				continue;
			size_t h = code_hash(w->codes[i].addr, cap);
			while (n[h].addr)
				h = (h + 1) & (cap - 1);
			n[h] = w->codes[i];
		}
		free(w->codes);
		w->codes = n;
		w->codes_cap = cap;
	}
	size_t h = code_hash(addr, w->codes_cap);
	while (w->codes[h].addr && w->codes[h].addr != addr)
		h = (h + 1) & (w->codes_cap - 1);
	struct code_entry *e = &w->codes[h];
	if (e->addr)
		return e;
	e->addr = addr;
	w->codes_used++;
	const struct ci_py_layout *l = w->l;
	uint64_t type = 0, name = 0, file = 0, table = 0, a;
	int32_t first = 0;
	if (w->code_type && (!rd_ptr(w, addr + 8, &type) || type != w->code_type))
		return e; /* not a code object: valid stays false */
	if (!rd_field(w, addr, l->code_qualname ? l->code_qualname : l->code_name, &name) ||
	    !rd_field(w, addr, l->code_filename, &file) ||
	    !rd_field(w, addr, l->code_linetable, &table) || !ci_add(addr, l->code_firstlineno, &a) ||
	    !rd(w, a, &first, 4))
		return e;
	e->valid = true;
	e->function = read_str(w, name);
	e->file = read_str(w, file);
	e->firstlineno = first;
	e->table = read_bytes(w, table, &e->table_len);
	return e;
}

/* ---------------------------------------------------------------------------------------- */
/* Walking                                                                                    */

static void note(struct walk *w, char **dst, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct walk *w, char **dst, const char *fmt, ...)
{
	if (*dst)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(dst, fmt, ap) < 0) {
		*dst = NULL;
		w->nomem = true;
	}
	va_end(ap);
}

/* Whether ADDR is among the first N of SEEN (chains are short; cycles are rare). */
static bool seen_before(const uint64_t *seen, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (seen[i] == addr)
			return true;
	return false;
}

static void walk_frames(struct walk *w, struct ci_py_thread *t)
{
	const struct ci_py_layout *l = w->l;
	uint64_t frame = 0;
	if (!rd_field(w, t->tstate, l->tstate_frame, &frame)) {
		note(w, &t->note, "the thread state at 0x%" PRIx64 " is not readable", t->tstate);
		return;
	}
	if (l->has_cframe && frame) {
		uint64_t cframe = frame;
		if (!rd_field(w, cframe, l->cframe_current_frame, &frame)) {
			note(w, &t->note, "the C frame at 0x%" PRIx64 " is not readable", cframe);
			return;
		}
	}
	size_t cap = 0, nseen = 0, seen_cap = 0;
	uint64_t *seen = NULL;
	for (size_t depth = 0; frame; depth++) {
		if (depth >= CI_PY_FRAMES_MAX) {
			note(w, &t->note, "stopped at %d Python frames (the limit)", CI_PY_FRAMES_MAX);
			break;
		}
		if (w->frames_total >= (size_t)CI_PY_FRAMES_MAX * 64) {
			note(w, &t->note, "stopped: more than %d Python frames in all (the limit)",
			     CI_PY_FRAMES_MAX * 64);
			break;
		}
		if (seen_before(seen, nseen, frame)) {
			note(w, &t->note, "the frame chain loops back to 0x%" PRIx64 " (damaged)", frame);
			break;
		}
		if (ci_vec_reserve((void **)&seen, &seen_cap, nseen + 1, sizeof(*seen))) {
			w->nomem = true;
			break;
		}
		seen[nseen++] = frame;
		uint64_t code = 0, prev = 0, instr = 0, a;
		uint8_t owner = 0, is_entry = 0;
		if (!rd_field(w, frame, l->frame_code, &code) ||
		    !rd_field(w, frame, l->frame_previous, &prev) ||
		    !rd_field(w, frame, l->frame_instr, &instr) ||
		    (l->minor >= 11 && (!ci_add(frame, l->frame_owner, &a) || !rd(w, a, &owner, 1))) ||
		    (l->frame_is_entry && (!ci_add(frame, l->frame_is_entry, &a) ||
					   !rd(w, a, &is_entry, 1)))) {
			note(w, &t->note, "the frame at 0x%" PRIx64 " is not readable", frame);
			break;
		}
		if (l->owner_cstack && owner == l->owner_cstack) {
			/* A shim between two C-level eval calls: the frame above it was called from C. */
			if (t->frame_count)
				t->frames[t->frame_count - 1].entry = true;
			frame = prev;
			continue;
		}
		struct code_entry *ce = code_get(w, code);
		if (!ce)
			break;
		if (!ce->valid) {
			note(w, &t->note, "the frame at 0x%" PRIx64 " has no readable code object (0x%"
			     PRIx64 "); the stack ends here", frame, code);
			break;
		}
		int32_t off = -1;
		if (l->instr_is_index) {
			off = (int32_t)(uint32_t)instr;
		} else {
			uint64_t start;
			if (ci_add(code, l->code_code_adaptive, &start) && instr >= start &&
			    instr - start < (1u << 30))
				off = (int32_t)((instr - start) / 2);
		}
		if (ci_vec_reserve((void **)&t->frames, &cap, t->frame_count + 1, sizeof(*t->frames))) {
			w->nomem = true;
			break;
		}
		struct ci_py_frame *f = &t->frames[t->frame_count++];
		w->frames_total++;
		memset(f, 0, sizeof(*f));
		f->code = code;
		f->instr = off;
		f->entry = l->minor == 10 || is_entry;
		if (ce->function && !(f->function = strdup(ce->function)))
			w->nomem = true;
		if (ce->file && !(f->file = strdup(ce->file)))
			w->nomem = true;
		f->line = ci_py_line(l, ce->table, ce->table_len, ce->firstlineno, off);
		frame = prev;
	}
	/* The outermost frame is always entered from C (the module's or the thread's start). */
	if (t->frame_count)
		t->frames[t->frame_count - 1].entry = true;
	free(seen);
}

static void walk_threads(struct walk *w, struct ci_py_state *st, uint64_t runtime,
			 uint64_t interp, size_t *cap)
{
	const struct ci_py_layout *l = w->l;
	uint64_t ts = 0, current = 0, gil_holder = 0, a;
	int32_t gil_locked = 0;
	if (l->runtime_tstate_current)
		rd_field(w, runtime, l->runtime_tstate_current, &current);
	if (l->interp_gil_holder && rd_field(w, interp, l->interp_gil_holder, &gil_holder) &&
	    ci_add(interp, l->interp_gil_locked, &a) && rd(w, a, &gil_locked, 4) && gil_locked)
		current = gil_holder;
	if (!rd_field(w, interp, l->interp_threads_head, &ts)) {
		note(w, &st->note, "the interpreter state at 0x%" PRIx64 " is not readable", interp);
		return;
	}
	size_t first = st->thread_count;
	for (; ts && !w->nomem; ) {
		if (st->thread_count >= CI_PY_THREADS_MAX) {
			note(w, &st->note, "stopped at %d Python threads (the limit)", CI_PY_THREADS_MAX);
			return;
		}
		for (size_t i = first; i < st->thread_count; i++)
			if (st->threads[i].tstate == ts) {
				note(w, &st->note, "the thread list loops back to 0x%" PRIx64 " (damaged)",
				     ts);
				return;
			}
		uint64_t back = 0, next = 0;
		if (!rd_field(w, ts, l->tstate_interp, &back) || back != interp ||
		    !rd_field(w, ts, l->tstate_next, &next)) {
			note(w, &st->note, "the thread state at 0x%" PRIx64 " does not belong to the "
			     "interpreter at 0x%" PRIx64 " (damaged, or not the layout of Python 3.%u)",
			     ts, interp, l->minor);
			return;
		}
		if (ci_vec_reserve((void **)&st->threads, cap, st->thread_count + 1,
				   sizeof(*st->threads))) {
			w->nomem = true;
			return;
		}
		struct ci_py_thread *t = &st->threads[st->thread_count++];
		memset(t, 0, sizeof(*t));
		t->tstate = ts;
		rd_field(w, ts, l->tstate_thread_id, &t->thread_id);
		if (l->tstate_native_thread_id)
			rd_field(w, ts, l->tstate_native_thread_id, &t->native_thread_id);
		t->gil = current && current == ts;
		walk_frames(w, t);
		ts = next;
	}
}

struct ci_py_state *ci_py_walk(const struct ci_py_memory *mem, const struct ci_py_layout *layout,
			       uint32_t version, uint64_t runtime, uint64_t code_type)
{
	struct ci_py_state *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->layout = *layout;
	st->version = version;
	st->runtime = runtime;
	struct walk w = { .mem = mem, .l = &st->layout, .code_type = code_type };
	uint64_t interp = 0;
	size_t cap = 0;
	uint64_t seen[CI_PY_INTERPS_MAX];
	size_t nseen = 0;
	if (!rd_field(&w, runtime, layout->runtime_interpreters_head, &interp))
		note(&w, &st->note, "_PyRuntime at 0x%" PRIx64 " is not in the input", runtime);
	else if (!interp)
		note(&w, &st->note, "the interpreter was not running (no interpreter state)");
	while (interp && !w.nomem) {
		if (nseen >= CI_PY_INTERPS_MAX) {
			note(&w, &st->note, "stopped at %d interpreters (the limit)", CI_PY_INTERPS_MAX);
			break;
		}
		if (seen_before(seen, nseen, interp)) {
			note(&w, &st->note, "the interpreter list loops (damaged)");
			break;
		}
		seen[nseen++] = interp;
		walk_threads(&w, st, runtime, interp, &cap);
		if (!rd_field(&w, interp, layout->interp_next, &interp))
			break;
	}
	for (size_t i = 0; i < w.codes_cap; i++) {
		free(w.codes[i].function);
		free(w.codes[i].file);
		free(w.codes[i].table);
	}
	free(w.codes);
	if (w.nomem) {
		ci_py_state_destroy(st);
		return NULL;
	}
	return st;
}

void ci_py_state_destroy(struct ci_py_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->thread_count; i++) {
		struct ci_py_thread *t = &st->threads[i];
		for (size_t k = 0; k < t->frame_count; k++) {
			free(t->frames[k].function);
			free(t->frames[k].file);
		}
		free(t->frames);
		free(t->note);
	}
	free(st->threads);
	free(st->note);
	free(st);
}
