/* SPDX-License-Identifier: MIT */
/*
 * Finding CPython in a core or live process and merging its frames into the native stacks
 * (stage 6, called by symbolize.c).  The interpreter is the module that exports _PyRuntime
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

#include "python.h"
#include "reader-internal.h"

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
		/* Python first, where the user's code is, then the native stack as it was. */
		for (; p < np; p++)
			if (!py_frame_to(&out[o++], &pt->frames[p]))
				goto nomem;
		for (size_t i = 0; i < n; i++)
			out[o++] = (*frames)[i];
		if (n && np && !*note &&
		    asprintf(note, "the %zu Python frames are not merged into the native stack: %zu "
			     "interpreter frame%s for %zu entry frame%s", np, evals,
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
