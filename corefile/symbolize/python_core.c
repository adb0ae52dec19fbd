/* SPDX-License-Identifier: MIT */
/*
 * Finding CPython in a core or live process and merging its frames into the native stacks
 * (stage 6, called by dwfl.c).  The interpreter is the module that exports _PyRuntime
 * (the executable of a static build such as Debian's python3.11, or libpython of a shared
 * one); its version comes from the _Py_DebugOffsets block (3.13+), Py_Version (3.11+; in
 * .rodata, so read from the module's file when the core lacks it) or the module's file name
 * (3.10).  The walk itself is corefile/python.c.  Merging follows pystack and py-spy: each
 * native _PyEval_EvalFrameDefault frame runs the Python frames from the current one down to
 * the next entry frame, which go just inside it.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"
#include "model/model.h"

struct py_syms {
	Dwfl_Module *mod;
	uint64_t runtime, version_addr, code_type;
};

static int find_runtime(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			void *arg)
{
	struct py_syms *ps = arg;
	int n = dwfl_module_getsymtab(mod);
	uint64_t runtime = 0, version = 0, code_type = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *s = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!s || (s[0] != '_' && s[0] != 'P'))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF)
			continue;
		if (strcmp(s, "_PyRuntime") == 0)
			runtime = addr;
		else if (strcmp(s, "Py_Version") == 0)
			version = addr;
		else if (strcmp(s, "PyCode_Type") == 0)
			code_type = addr;
	}
	if (!runtime)
		return DWARF_CB_OK;
	ps->mod = mod;
	ps->runtime = runtime;
	ps->version_addr = version;
	ps->code_type = code_type;
	return DWARF_CB_ABORT;
}

static bool source_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return ci_source_read_quiet(arg, addr, buf, len) == CI_READ_OK;
}

/* The 8 bytes at ADDR of MOD's file (a constant in .rodata, which a core does not hold). */
static bool file_read_u64(Dwfl_Module *mod, uint64_t addr, uint64_t *v)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf || addr < bias)
		return false;
	uint64_t vaddr = addr - bias;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr >= sh.sh_size || sh.sh_size - (vaddr - sh.sh_addr) < 8)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t off = vaddr - sh.sh_addr;
		if (!d || !d->d_buf || d->d_size < off + 8)
			return false;
		memcpy(v, (const char *)d->d_buf + off, 8);
		return true;
	}
	return false;
}

/* "python3.11", "libpython3.12.so.1.0": the minor version in a file name, else 0. */
static unsigned name_minor(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path;
	const char *p = base ? strstr(base, "python3.") : NULL;
	if (!p)
		return 0;
	char *end;
	unsigned long minor = strtoul(p + 8, &end, 10);
	return end != p + 8 && minor < 100 ? (unsigned)minor : 0;
}

struct ci_py_state *ci_py_find(Dwfl *dwfl, struct ci_source *src, char **why)
{
	*why = NULL;
	struct py_syms ps = { 0 };
	if (!dwfl || !src)
		return NULL;
	dwfl_getmodules(dwfl, find_runtime, &ps, 0);
	if (!ps.runtime)
		return NULL; /* not a Python process: nothing to say */
	const char *modname = NULL;
	dwfl_module_info(ps.mod, NULL, NULL, NULL, NULL, NULL, &modname, NULL);
	struct ci_py_memory mem = { .read = source_read, .arg = src };
	struct ci_py_layout layout;
	const struct ci_py_layout *lay = NULL;
	uint32_t version = 0;
	uint64_t words[CI_PYD_WORDS];
	if (source_read(src, ps.runtime, words, sizeof(words)) &&
	    memcmp(words, CI_PY_DEBUG_COOKIE, 8) == 0) {
		const char *bad = ci_py_layout_from_debug_offsets(words, &layout, &version);
		if (bad) {
			if (asprintf(why, "Python frames: %s", bad) < 0)
				*why = NULL;
			return NULL;
		}
		lay = &layout;
	} else {
		uint64_t v = 0;
		unsigned minor = 0;
		if (ps.version_addr && (source_read(src, ps.version_addr, &v, 8) ||
					file_read_u64(ps.mod, ps.version_addr, &v)) &&
		    (v >> 24) == 3) {
			version = (uint32_t)v;
			minor = (unsigned)(v >> 16) & 0xff;
		} else if ((minor = name_minor(modname))) {
			version = 0x03000000u | minor << 16;
		}
		if (!minor) {
			if (asprintf(why, "Python frames: the version of the interpreter in %s is not "
				     "known (no Py_Version, no version in its name)",
				     modname ? modname : "?") < 0)
				*why = NULL;
			return NULL;
		}
		if (!(lay = ci_py_builtin_layout(minor))) {
			if (asprintf(why, "Python frames: Python 3.%u has no layout the reader knows "
				     "(3.10 to 3.13 are read)", minor) < 0)
				*why = NULL;
			return NULL;
		}
	}
	struct ci_py_state *st = ci_py_walk(&mem, lay, version, ps.runtime, ps.code_type);
	if (!st && asprintf(why, "Python frames: out of memory") < 0)
		*why = NULL;
	return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Merging                                                                                    */

static bool is_eval_frame(const struct ci_frame *f)
{
	static const char name[] = "_PyEval_EvalFrameDefault";
	return f->kind == CI_FRAME_NATIVE && f->function &&
	       strncmp(f->function, name, sizeof(name) - 1) == 0 &&
	       (f->function[sizeof(name) - 1] == '\0' || f->function[sizeof(name) - 1] == '.');
}

const struct ci_py_thread *ci_py_thread_of(const struct ci_py_state *st, uint32_t tid,
					   uint64_t fs_base)
{
	for (size_t i = 0; st && i < st->thread_count; i++) {
		const struct ci_py_thread *t = &st->threads[i];
		if (st->layout.tstate_native_thread_id ? t->native_thread_id == tid
						       : fs_base && t->thread_id == fs_base)
			return t;
	}
	return NULL;
}

static bool py_frame_to(struct ci_frame *d, const struct ci_py_frame *p)
{
	memset(d, 0, sizeof(*d));
	d->kind = CI_FRAME_PYTHON;
	d->address = p->code;
	d->instruction = p->instr;
	d->line = p->line;
	if (p->function && !(d->function = strdup(p->function)))
		return false;
	if (p->file && !(d->file = strdup(p->file)))
		return false;
	return true;
}

int ci_py_merge(const struct ci_py_thread *pt, struct ci_frame **frames, size_t *count,
		char **note)
{
	size_t evals = 0, entries = 0, n = *count, np = pt->frame_count;
	for (size_t i = 0; i < n; i++)
		evals += is_eval_frame(&(*frames)[i]);
	for (size_t i = 0; i < np; i++)
		entries += pt->frames[i].entry;
	struct ci_frame *out = calloc(n + np ? n + np : 1, sizeof(*out));
	if (!out)
		return -1;
	size_t o = 0, p = 0;
	bool merge = evals == entries && evals > 0;
	if (merge) {
		for (size_t i = 0; i < n; i++) {
			if (is_eval_frame(&(*frames)[i]))
				while (p < np) {
					if (!py_frame_to(&out[o++], &pt->frames[p]))
						goto nomem;
					if (pt->frames[p++].entry)
						break;
				}
			out[o++] = (*frames)[i];
		}
	} else {
		/* Two blocks in stack order: the native stack as it was (innermost, where the
		 * thread stopped), then the Python frames (the callers, where the user's code is);
		 * the note says they are not interleaved. */
		for (size_t i = 0; i < n; i++)
			out[o++] = (*frames)[i];
		for (; p < np; p++)
			if (!py_frame_to(&out[o++], &pt->frames[p]))
				goto nomem;
		if (n && np && !*note &&
		    asprintf(note, "the %zu Python frames follow the native stack, not merged into it: "
			     "%zu interpreter frame%s for %zu entry frame%s", np, evals,
			     evals == 1 ? "" : "s", entries, entries == 1 ? "" : "s") < 0)
			*note = NULL;
	}
	free(*frames);
	*frames = out;
	*count = o;
	return 0;
nomem:
	for (size_t i = 0; i < o; i++)
		if (out[i].kind == CI_FRAME_PYTHON) {
			free(out[i].function);
			free(out[i].file);
		}
	free(out);
	return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Recorded stacks (sections 18 and 19)                                                       */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Python frame word W of a recorded stack as a frame, from the model's code table. */
static bool recorded_frame(const struct ci_model *m, const struct ci_py_layout *l, uint64_t w,
			   struct ci_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = CI_FRAME_PYTHON;
	uint32_t slot = CI_PYFRAME_SLOT(w), instr = CI_PYFRAME_INSTR(w);
	f->instruction = instr == CI_PYFRAME_NO_INSTR ? -1 : (int32_t)instr;
	const char *name = slot == CI_PYFRAME_TRUNCATED ? "<more Python frames, not recorded>"
			   : slot == CI_PYFRAME_NO_CODE ? "<code object not recorded: table full>"
							: NULL;
	const struct ci_py_code *c = !name && slot < m->py_code_count && m->py_codes[slot].seq
					     ? &m->py_codes[slot] : NULL;
	if (!name && !c)
		name = "<code object not in the record>";
	if (name)
		return (f->function = strdup(name)) != NULL;
	f->address = c->code;
	const char *q = ci_model_string(m, c->qualname_str), *file = ci_model_string(m, c->filename_str);
	if ((q && *q && !(f->function = strdup(q))) || (file && *file && !(f->file = strdup(file))))
		return false;
	const char *hex = ci_model_string(m, c->linetable_str);
	size_t hl = hex ? strlen(hex) / 2 : 0;
	uint8_t *table = malloc(hl ? hl : 1);
	if (!table)
		return false;
	size_t k = 0;
	for (; k < hl; k++) {
		int hi = hexval(hex[2 * k]), lo = hexval(hex[2 * k + 1]);
		if (hi < 0 || lo < 0)
			break;
		table[k] = (uint8_t)(hi << 4 | lo);
	}
	if (l)
		f->line = ci_py_line(l, table, k, c->firstlineno, f->instruction);
	free(table);
	return true;
}

void ci_resolved_pcs_free(struct ci_resolved_pc *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		for (size_t k = 0; k < v[i].owned_python; k++) {
			free(v[i].owned[k].function);
			free(v[i].owned[k].file);
		}
		free(v[i].owned);
	}
	free(v);
}

/* Put frames PY[FROM..TO) before V's own frames. */
static int prepend(struct ci_resolved_pc *v, struct ci_frame *py, size_t from, size_t to)
{
	size_t np = to - from;
	struct ci_frame *o = calloc(np + v->count ? np + v->count : 1, sizeof(*o));
	if (!o)
		return -1;
	memcpy(o, py + from, np * sizeof(*o));
	if (v->count)
		memcpy(o + np, v->frames, v->count * sizeof(*o));
	v->owned = o;
	v->owned_python = np;
	v->frames = o;
	v->count += np;
	memset(py + from, 0, np * sizeof(*py)); /* moved */
	return 0;
}

int ci_py_resolve_recorded(const struct ci_model *m, const uint64_t *pcs, size_t n,
			   struct ci_resolved_pc *v)
{
	struct ci_py_layout layout, *l = NULL;
	if (m->python_count && m->python[0].seq && m->python[0].layout_size >= sizeof(layout)) {
		memcpy(&layout, m->python[0].layout, sizeof(layout));
		/* The minor and the line-table format are all the reader takes from it. */
		if (layout.minor >= 10 && layout.minor <= 13)
			l = &layout;
	}
	size_t np = 0, entries = 0, evals = 0, first_native = n;
	struct ci_frame *py = calloc(n, sizeof(*py));
	if (!py)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(pcs[i] & CI_PYFRAME_TAG)) {
			if (first_native == n)
				first_native = i;
			for (size_t k = 0; k < v[i].count; k++)
				evals += is_eval_frame(&v[i].frames[k]);
			continue;
		}
		if (!recorded_frame(m, l, pcs[i], &py[np])) {
			free(py[np].function);
			rc = -1;
			goto out;
		}
		entries += (pcs[i] & CI_PYFRAME_ENTRY) != 0;
		/* The entry bit goes with the frame, in the order of the words. */
		py[np].inlined = (pcs[i] & CI_PYFRAME_ENTRY) != 0;
		np++;
	}
	if (evals == entries && evals) {
		size_t p = 0;
		for (size_t i = 0; i < n && p < np; i++) {
			bool eval = false;
			for (size_t k = 0; k < v[i].count; k++)
				eval |= is_eval_frame(&v[i].frames[k]);
			if (!eval || (pcs[i] & CI_PYFRAME_TAG))
				continue;
			size_t from = p;
			while (p < np && !py[p++].inlined)
				;
			if (prepend(&v[i], py, from, p)) {
				rc = -1;
				goto out;
			}
		}
	} else if (np) {
		size_t at = first_native < n ? first_native : 0;
		if (prepend(&v[at], py, 0, np))
			rc = -1;
	}
out:
	for (size_t i = 0; i < n; i++)
		if (v[i].owned)
			for (size_t k = 0; k < v[i].owned_python; k++)
				v[i].owned[k].inlined = false;
	for (size_t i = 0; i < np; i++) {
		free(py[i].function);
		free(py[i].file);
	}
	free(py);
	return rc;
}
