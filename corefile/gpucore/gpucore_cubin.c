/* SPDX-License-Identifier: MIT */
/*
 * Cubins inside GPU cores: the relocated ELF image of each module, whose function symbols are
 * GPU addresses (a kernel's symbol value is its entry, and each function lives in its own
 * .text.NAME section at that address) and whose .debug_line, when the code was built with
 * -lineinfo or -G (or by Triton), maps those addresses to source lines.
 *
 * The image is as hostile as the rest of the core: it is read through the reader's bounded
 * cursor, the section and symbol counts are capped, and the line program is a small DWARF 2-5
 * interpreter over the same cursor (libdw wants a .debug_info the cubins of -lineinfo do not
 * have, and a parser of our own is what the fuzzer exercises).  Names point into the image, which
 * the caller keeps alive.
 */
#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpucore/gpucore.h"
#include "base/base.h"
#include "source/source.h"

#define EM_CUDA_ 190

#define cb_section ci_gpu_shdr

struct cb_func {
	uint64_t value, size;
	const char *name;
	uint32_t shndx;
};

struct cb_file {
	const char *name, *dir;
};

/* One row of the line table turned into the range of addresses it covers. */
struct cb_range {
	uint64_t start, end;
	uint32_t file;              /* index in files */
	uint32_t line;
};

struct ci_cubin {
	char *name;
	const uint8_t *p;
	size_t size;
	uint32_t e_flags;
	size_t shstrndx;            /* the section name table */
	struct cb_section *secs;
	size_t nsecs;
	struct cb_func *funcs;      /* sorted by value */
	size_t nfuncs;
	bool lines_done;
	const struct cb_section *debug_str, *debug_line_str; /* for DWARF 5 string forms */
	const char *lines_warning;
	struct cb_file *files;
	size_t nfiles, cap_files;
	struct cb_range *ranges;    /* sorted by start */
	size_t nranges, cap_ranges;
};

void ci_cubin_destroy(struct ci_cubin *cb)
{
	if (!cb)
		return;
	free(cb->name);
	free(cb->secs);
	free(cb->funcs);
	free(cb->files);
	free(cb->ranges);
	free(cb);
}

unsigned ci_cubin_sm(const struct ci_cubin *cb)
{
	/* e_flags keep the SM in bits 8-15 for cubins of this ABI (0x5a0d5a: sm_90). */
	return cb->e_flags >> 8 & 0xff;
}

/* A NUL-terminated string at OFF of section S, or NULL. */
static const char *section_string(const struct ci_cubin *cb, const struct cb_section *s, uint64_t off)
{
	if (s->type == SHT_NOBITS || off >= s->size)
		return NULL;
	const char *start = (const char *)cb->p + s->offset + off;
	size_t left = (size_t)(s->size - off);
	if (!memchr(start, 0, left < CI_GPU_MAX_STRING ? left : CI_GPU_MAX_STRING))
		return NULL;
	return start;
}

static const char *section_name(const struct ci_cubin *cb, size_t shstrndx, const struct cb_section *s)
{
	if (shstrndx >= cb->nsecs)
		return NULL;
	return section_string(cb, &cb->secs[shstrndx], s->name);
}

static int func_cmp(const void *a, const void *b)
{
	const struct cb_func *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Among symbols at one address, the sized one first, then by name for stable output. */
	if ((x->size == 0) != (y->size == 0))
		return x->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static struct ci_error *load_symbols(struct ci_cubin *cb)
{
	size_t cap = 0;
	for (size_t i = 0; i < cb->nsecs; i++) {
		const struct cb_section *s = &cb->secs[i];
		if (s->type != SHT_SYMTAB || s->entsize < sizeof(Elf64_Sym) || s->link >= cb->nsecs)
			continue;
		const struct cb_section *str = &cb->secs[s->link];
		struct ci_bytes b = ci_bytes_make(cb->p + s->offset, (size_t)s->size);
		uint64_t rows = s->size / s->entsize;
		for (uint64_t r = 0; r < rows; r++) {
			struct ci_bytes row;
			uint32_t st_name;
			uint8_t info, other;
			uint16_t shndx;
			uint64_t value, size;
			if (!ci_bytes_seek(&b, r * s->entsize) || !ci_bytes_sub(&b, s->entsize, &row))
				break;
			ci_bytes_u32(&row, &st_name);
			ci_bytes_u8(&row, &info);
			ci_bytes_u8(&row, &other);
			ci_bytes_u16(&row, &shndx);
			ci_bytes_u64(&row, &value);
			ci_bytes_u64(&row, &size);
			if (row.bad || ELF64_ST_TYPE(info) != STT_FUNC)
				continue;
			const char *name = section_string(cb, str, st_name);
			if (!name || !*name)
				continue;
			if (cb->nfuncs >= CI_GPU_MAX_CUBIN_SYMBOLS)
				return ci_error_create(CI_ERR_CORRUPT, "%s has more than %u function symbols",
						       cb->name, CI_GPU_MAX_CUBIN_SYMBOLS);
			if (ci_vec_reserve((void **)&cb->funcs, &cap, cb->nfuncs + 1, sizeof *cb->funcs) < 0)
				return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", cb->name);
			cb->funcs[cb->nfuncs++] = (struct cb_func){ value, size, name, shndx };
		}
	}
	if (cb->nfuncs)
		qsort(cb->funcs, cb->nfuncs, sizeof *cb->funcs, func_cmp);
	return NULL;
}

bool ci_gpu_elf_header(const uint8_t *p, size_t n, struct ci_gpu_ehdr *ret)
{
	struct ci_bytes b = ci_bytes_make(p, n);
	uint8_t ident[EI_NIDENT];
	uint16_t shnum, shstrndx;
	uint32_t version;
	uint64_t u64;
	memset(ret, 0, sizeof *ret);
	if (!ci_bytes_copy(&b, ident, sizeof ident) || memcmp(ident, ELFMAG, SELFMAG) != 0 ||
	    ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
		return false;
	ret->osabi = ident[EI_OSABI];
	ret->abi_version = ident[EI_ABIVERSION];
	ci_bytes_u16(&b, &ret->type);
	ci_bytes_u16(&b, &ret->machine);
	ci_bytes_u32(&b, &version);
	ci_bytes_u64(&b, &u64);              /* e_entry */
	ci_bytes_u64(&b, &u64);              /* e_phoff */
	ci_bytes_u64(&b, &ret->shoff);
	ci_bytes_u32(&b, &ret->flags);
	ci_bytes_skip(&b, 6);                /* e_ehsize, e_phentsize, e_phnum */
	ci_bytes_u16(&b, &ret->shentsize);
	ci_bytes_u16(&b, &shnum);
	ci_bytes_u16(&b, &shstrndx);
	if (b.bad)
		return false;
	ret->shnum = shnum;
	ret->shstrndx = shstrndx;
	/* Section 0 holds the real count (sh_size) and name table index (sh_link) when they do not
	 * fit in the header. */
	struct ci_bytes s0 = ci_bytes_make(p, n);
	uint64_t size0;
	uint32_t link0;
	if (ret->shoff && ci_bytes_seek(&s0, ret->shoff) && ci_bytes_skip(&s0, 32) && ci_bytes_u64(&s0, &size0) &&
	    ci_bytes_u32(&s0, &link0)) {
		if (shnum == 0)
			ret->shnum = size0;
		if (shstrndx == SHN_XINDEX)
			ret->shstrndx = link0;
	}
	return true;
}

bool ci_gpu_elf_shdr(const uint8_t *p, size_t n, uint64_t shoff, uint64_t i, struct ci_gpu_shdr *ret)
{
	struct ci_bytes b = ci_bytes_make(p, n);
	uint64_t align, off;
	if (!ci_mul(i, sizeof(Elf64_Shdr), &off) || !ci_add(off, shoff, &off) || !ci_bytes_seek(&b, off))
		return false;
	ci_bytes_u32(&b, &ret->name);
	ci_bytes_u32(&b, &ret->type);
	ci_bytes_u64(&b, &ret->flags);
	ci_bytes_u64(&b, &ret->addr);
	ci_bytes_u64(&b, &ret->offset);
	ci_bytes_u64(&b, &ret->size);
	ci_bytes_u32(&b, &ret->link);
	ci_bytes_u32(&b, &ret->info);
	ci_bytes_u64(&b, &align);
	ci_bytes_u64(&b, &ret->entsize);
	return !b.bad;
}

struct ci_error *ci_cubin_open(const char *name, const uint8_t *p, size_t size, struct ci_cubin **ret)
{
	struct ci_gpu_ehdr eh;
	if (!ci_gpu_elf_header(p, size, &eh))
		return ci_error_create(CI_ERR_CORRUPT, "%s is not a 64-bit little-endian ELF image", name);
	if (eh.machine != EM_CUDA_)
		return ci_error_create(CI_ERR_CORRUPT, "%s is not a cubin (e_machine %u, not 190 EM_CUDA)",
				       name, eh.machine);
	if (eh.shentsize != sizeof(Elf64_Shdr))
		return ci_error_create(CI_ERR_CORRUPT, "%s: section header size %u, not 64", name, eh.shentsize);
	uint64_t count = eh.shnum, strndx = eh.shstrndx, shoff = eh.shoff;
	uint32_t flags = eh.flags;
	if (count > CI_GPU_MAX_CUBIN_SECTIONS)
		return ci_error_create(CI_ERR_CORRUPT, "%s claims %llu sections (at most %u are read)", name,
				       (unsigned long long)count, CI_GPU_MAX_CUBIN_SECTIONS);
	uint64_t table_end;
	if (!ci_mul(count, sizeof(Elf64_Shdr), &table_end) || !ci_add(table_end, shoff, &table_end) ||
	    table_end > size)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: its section table (%llu headers at offset 0x%llx) is past its end (%zu bytes)",
				       name, (unsigned long long)count, (unsigned long long)shoff, size);
	struct ci_cubin *cb = calloc(1, sizeof *cb);
	if (!cb || !(cb->name = strdup(name)) || !(cb->secs = calloc(count ? count : 1, sizeof *cb->secs))) {
		ci_cubin_destroy(cb);
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", name);
	}
	cb->p = p;
	cb->size = size;
	cb->e_flags = flags;
	cb->nsecs = (size_t)count;
	for (size_t i = 0; i < cb->nsecs; i++) {
		struct cb_section *s = &cb->secs[i];
		bool ok = ci_gpu_elf_shdr(p, size, shoff, i, s);
		/* A section whose bytes are not inside the image reads as empty. */
		if (!ok || (s->type != SHT_NOBITS && !ci_range_ok(s->offset, s->size, size)))
			s->size = 0, s->type = SHT_NULL;
	}
	cb->shstrndx = strndx < cb->nsecs ? (size_t)strndx : SIZE_MAX;
	struct ci_error *err = load_symbols(cb);
	if (err) {
		ci_cubin_destroy(cb);
		return err;
	}
	*ret = cb;
	return NULL;
}

/* How many of the N elements of ELEM bytes at BASE, sorted by the uint64_t at KEY_OFF, have a
 * key below ADDR (or, with OR_EQUAL, at most ADDR). */
static size_t count_below(const void *base, size_t n, size_t elem, size_t key_off, uint64_t addr, bool or_equal)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;
		memcpy(&key, (const char *)base + mid * elem + key_off, sizeof key);
		if (key < addr || (or_equal && key == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *ci_cubin_function_at_entry(struct ci_cubin *cb, uint64_t addr)
{
	size_t lo = count_below(cb->funcs, cb->nfuncs, sizeof *cb->funcs, offsetof(struct cb_func, value), addr, false);
	return lo < cb->nfuncs && cb->funcs[lo].value == addr ? cb->funcs[lo].name : NULL;
}

bool ci_cubin_function(struct ci_cubin *cb, uint64_t addr, const char **name, uint64_t *start)
{
	/* The last function starting at or below ADDR. */
	size_t lo = count_below(cb->funcs, cb->nfuncs, sizeof *cb->funcs, offsetof(struct cb_func, value), addr, true);
	/* Symbols at the same address sort sized first; walk back over the run to find one that
	 * covers ADDR (a size of 0 covers what its section holds). */
	for (size_t i = lo; i-- > 0;) {
		const struct cb_func *f = &cb->funcs[i];
		if (i + 1 < lo && f->value != cb->funcs[lo - 1].value)
			break;
		bool inside;
		if (f->size)
			inside = addr - f->value < f->size;
		else if (f->shndx < cb->nsecs) {
			const struct cb_section *s = &cb->secs[f->shndx];
			inside = addr >= s->addr && addr - s->addr < s->size;
		} else
			inside = false;
		if (inside) {
			*name = f->name;
			*start = f->value;
			return true;
		}
	}
	return false;
}

const uint8_t *ci_cubin_code(struct ci_cubin *cb, uint64_t addr, size_t n)
{
	for (size_t i = 0; i < cb->nsecs; i++) {
		const struct cb_section *s = &cb->secs[i];
		if (s->type != SHT_PROGBITS || !(s->flags & SHF_EXECINSTR) || addr < s->addr)
			continue;
		uint64_t off = addr - s->addr;
		if (ci_range_ok(off, n, s->size))
			return cb->p + s->offset + off;
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* The line table                                                                             */

/* LEB128 numbers of at most 10 bytes (64 bits); a longer run of continuation bytes is damage. */
static bool leb(struct ci_bytes *b, uint64_t *v, bool is_signed)
{
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t c;
	do {
		if (shift >= 70 || !ci_bytes_u8(b, &c))
			return ci_bytes_fail(b);
		if (shift < 64)
			r |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	if (is_signed && shift < 64 && (c & 0x40))
		r |= ~(uint64_t)0 << shift;
	*v = r;
	return true;
}
static bool uleb(struct ci_bytes *b, uint64_t *v) { return leb(b, v, false); }
static bool sleb(struct ci_bytes *b, int64_t *v)
{
	uint64_t u;
	if (!leb(b, &u, true))
		return false;
	*v = (int64_t)u;
	return true;
}

static const struct cb_section *find_section(const struct ci_cubin *cb, const char *want)
{
	for (size_t i = 0; i < cb->nsecs; i++) {
		const char *n = section_name(cb, cb->shstrndx, &cb->secs[i]);
		if (n && strcmp(n, want) == 0 && cb->secs[i].type != SHT_NOBITS && cb->secs[i].type != SHT_NULL)
			return &cb->secs[i];
	}
	return NULL;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cb_range *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* A string given by FORM in a DWARF 5 entry. */
static bool form_string(const struct ci_cubin *cb, struct ci_bytes *b, uint64_t form, bool dwarf64,
			const char **s)
{
	uint64_t off = 0;
	uint32_t off32;
	*s = NULL;
	switch (form) {
	case 0x08: /* DW_FORM_string */
		return ci_bytes_cstr(b, s, NULL);
	case 0x0e: /* DW_FORM_strp */
	case 0x1f: /* DW_FORM_line_strp */
		if (dwarf64) {
			if (!ci_bytes_u64(b, &off))
				return false;
		} else {
			if (!ci_bytes_u32(b, &off32))
				return false;
			off = off32;
		}
		const struct cb_section *str = form == 0x0e ? cb->debug_str : cb->debug_line_str;
		*s = str ? section_string(cb, str, off) : NULL;
		return true;
	default:
		return ci_bytes_fail(b);
	}
}

/* Skip a DWARF 5 entry field of FORM, or read it as a number into *V. */
static bool form_value(struct ci_bytes *b, uint64_t form, bool dwarf64, uint64_t *v)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t len;
	*v = 0;
	switch (form) {
	case 0x0b: if (!ci_bytes_u8(b, &u8)) return false; *v = u8; return true;
	case 0x05: if (!ci_bytes_u16(b, &u16)) return false; *v = u16; return true;
	case 0x06: if (!ci_bytes_u32(b, &u32)) return false; *v = u32; return true;
	case 0x07: return ci_bytes_u64(b, v);
	case 0x0f: return uleb(b, v);
	case 0x1e: return ci_bytes_skip(b, 16); /* data16: an MD5 */
	case 0x09: return uleb(b, &len) && ci_bytes_skip(b, len); /* block */
	case 0x08: { const char *s; return ci_bytes_cstr(b, &s, NULL); }
	case 0x0e: case 0x1f: return ci_bytes_skip(b, dwarf64 ? 8 : 4);
	default: return ci_bytes_fail(b);
	}
}

struct line_unit {
	uint16_t version;
	bool dwarf64;
	uint8_t min_inst, max_ops, default_stmt, line_range, opcode_base;
	int8_t line_base;
	uint8_t std_lengths[256];
	const char **dirs;
	size_t ndirs;
	size_t file_first, file_count;   /* in cb->files */
};

static bool add_file(struct ci_cubin *cb, struct line_unit *u, const char *name, uint64_t dir)
{
	if (ci_vec_reserve((void **)&cb->files, &cb->cap_files, cb->nfiles + 1, sizeof *cb->files) < 0)
		return false;
	cb->files[cb->nfiles++] = (struct cb_file){ name, dir < u->ndirs ? u->dirs[dir] : NULL };
	u->file_count++;
	return true;
}

/* Read a unit's directory and file tables (DWARF 2-4: lists ended by an empty string; DWARF 5:
 * described entry formats). */
static const char *unit_tables(struct ci_cubin *cb, struct ci_bytes *h, struct line_unit *u, size_t *dcap)
{
	if (u->version < 5) {
		for (;;) {
			const char *d;
			if (!ci_bytes_cstr(h, &d, NULL))
				return "its directory table is cut short";
			if (!*d)
				break;
			if (ci_vec_reserve((void **)&u->dirs, dcap, u->ndirs + 2, sizeof *u->dirs) < 0)
				return "out of memory";
			if (u->ndirs == 0)
				u->dirs[u->ndirs++] = NULL; /* entry 0: the compilation directory, not listed */
			u->dirs[u->ndirs++] = d;
		}
		for (;;) {
			const char *f;
			uint64_t dir, mtime, len;
			if (!ci_bytes_cstr(h, &f, NULL))
				return "its file table is cut short";
			if (!*f)
				break;
			if (!uleb(h, &dir) || !uleb(h, &mtime) || !uleb(h, &len))
				return "its file table is cut short";
			if (!add_file(cb, u, f, dir))
				return "out of memory";
		}
		return NULL;
	}
	for (int pass = 0; pass < 2; pass++) {
		uint8_t nfmt;
		uint64_t fmt[16][2], count;
		if (!ci_bytes_u8(h, &nfmt) || nfmt > 16)
			return "its entry formats cannot be read";
		for (unsigned i = 0; i < nfmt; i++)
			if (!uleb(h, &fmt[i][0]) || !uleb(h, &fmt[i][1]))
				return "its entry formats cannot be read";
		if (!uleb(h, &count) || count > ci_bytes_left(h))
			return "its directory or file count is larger than the table";
		for (uint64_t e = 0; e < count; e++) {
			const char *path = NULL;
			uint64_t dir = 0;
			for (unsigned i = 0; i < nfmt; i++) {
				uint64_t v;
				if (fmt[i][0] == 1) { /* DW_LNCT_path */
					if (!form_string(cb, h, fmt[i][1], u->dwarf64, &path))
						return "an entry's path cannot be read";
				} else if (!form_value(h, fmt[i][1], u->dwarf64, &v)) {
					return "an entry cannot be read";
				} else if (fmt[i][0] == 2) { /* DW_LNCT_directory_index */
					dir = v;
				}
			}
			if (pass == 0) {
				if (ci_vec_reserve((void **)&u->dirs, dcap, u->ndirs + 1, sizeof *u->dirs) < 0)
					return "out of memory";
				u->dirs[u->ndirs++] = path;
			} else if (!add_file(cb, u, path ? path : "?", dir)) {
				return "out of memory";
			}
		}
	}
	return NULL;
}

struct line_state {
	uint64_t address;
	uint64_t file;
	uint64_t line;
	bool have_prev;
	uint64_t prev_address, prev_file, prev_line;
};

static const char *emit_row(struct ci_cubin *cb, const struct line_unit *u, struct line_state *st, bool end)
{
	/* The previous row covers [its address, this address). */
	if (st->have_prev && st->address > st->prev_address && st->prev_line) {
		if (cb->nranges >= CI_GPU_MAX_LINE_ROWS)
			return "it has more rows than are kept";
		if (ci_vec_reserve((void **)&cb->ranges, &cb->cap_ranges, cb->nranges + 1, sizeof *cb->ranges) < 0)
			return "out of memory";
		/* Files count from 1 before DWARF 5, from 0 in it. */
		uint64_t idx = u->version >= 5 ? st->prev_file : st->prev_file - 1;
		uint32_t file = idx < u->file_count ? (uint32_t)(u->file_first + idx) : UINT32_MAX;
		cb->ranges[cb->nranges++] = (struct cb_range){ st->prev_address, st->address, file,
							       st->prev_line > UINT32_MAX ? 0 : (uint32_t)st->prev_line };
	}
	st->have_prev = !end;
	st->prev_address = st->address;
	st->prev_file = st->file;
	st->prev_line = st->line;
	return NULL;
}

/* Run one unit's line program over the cursor PROG. */
static const char *run_program(struct ci_cubin *cb, const struct line_unit *u, struct ci_bytes *prog)
{
	struct line_state st = { .file = 1, .line = 1 };
	const char *why;
	while (ci_bytes_left(prog)) {
		uint8_t op;
		ci_bytes_u8(prog, &op);
		if (op >= u->opcode_base) {
			unsigned adj = op - u->opcode_base;
			st.address += (uint64_t)(adj / u->line_range) * u->min_inst;
			st.line += (uint64_t)((int64_t)u->line_base + adj % u->line_range);
			if ((why = emit_row(cb, u, &st, false)))
				return why;
			continue;
		}
		uint64_t v;
		int64_t sv;
		uint16_t u16;
		switch (op) {
		case 0: { /* extended */
			uint64_t len;
			uint8_t sub;
			struct ci_bytes ext;
			if (!uleb(prog, &len) || len == 0 || !ci_bytes_sub(prog, len, &ext))
				return "an extended opcode runs past the unit";
			ci_bytes_u8(&ext, &sub);
			if (sub == 1) { /* DW_LNE_end_sequence */
				if ((why = emit_row(cb, u, &st, true)))
					return why;
				st = (struct line_state){ .file = 1, .line = 1 };
			} else if (sub == 2) { /* DW_LNE_set_address */
				uint32_t a32;
				if (len - 1 == 8)
					ci_bytes_u64(&ext, &st.address);
				else if (len - 1 == 4 && ci_bytes_u32(&ext, &a32))
					st.address = a32;
				else
					return "DW_LNE_set_address has an address of an odd size";
				/* A new address starts afresh: no range across the jump. */
				st.have_prev = false;
			} else if (sub == 3 && u->version < 5) { /* DW_LNE_define_file */
				const char *f;
				uint64_t dir, x;
				if (!ci_bytes_cstr(&ext, &f, NULL) || !uleb(&ext, &dir) || !uleb(&ext, &x) || !uleb(&ext, &x))
					return "DW_LNE_define_file cannot be read";
				if (!add_file(cb, (struct line_unit *)u, f, dir))
					return "out of memory";
			}
			break;
		}
		case 1: /* DW_LNS_copy */
			if ((why = emit_row(cb, u, &st, false)))
				return why;
			break;
		case 2: if (!uleb(prog, &v)) return "cut short"; st.address += v * u->min_inst; break;
		case 3: if (!sleb(prog, &sv)) return "cut short"; st.line += (uint64_t)sv; break;
		case 4: if (!uleb(prog, &v)) return "cut short"; st.file = v; break;
		case 5: if (!uleb(prog, &v)) return "cut short"; break;          /* column */
		case 6: case 7: case 10: case 11: break;                          /* stmt, block, prologue, epilogue */
		case 8: st.address += (uint64_t)((255 - u->opcode_base) / u->line_range) * u->min_inst; break;
		case 9: if (!ci_bytes_u16(prog, &u16)) return "cut short"; st.address += u16; break;
		case 12: if (!uleb(prog, &v)) return "cut short"; break;          /* isa */
		default:
			/* An opcode this reader does not know: skip its operands as the header says. */
			for (unsigned i = 0; i < u->std_lengths[op]; i++)
				if (!uleb(prog, &v))
					return "cut short";
			break;
		}
	}
	return NULL;
}

static const char *decode_lines(struct ci_cubin *cb)
{
	const struct cb_section *s = find_section(cb, ".debug_line");
	if (!s)
		return NULL; /* no line information: not damage */
	cb->debug_str = find_section(cb, ".debug_str");
	cb->debug_line_str = find_section(cb, ".debug_line_str");
	struct ci_bytes sec = ci_bytes_make(cb->p + s->offset, (size_t)s->size);
	const char *why = NULL;
	while (ci_bytes_left(&sec) && !why) {
		struct line_unit u = { 0 };
		uint32_t len32;
		uint64_t len, hlen;
		struct ci_bytes unit, h;
		size_t dcap = 0;
		if (!ci_bytes_u32(&sec, &len32))
			return "a unit header is cut short";
		if (len32 == 0xffffffffu) {
			u.dwarf64 = true;
			if (!ci_bytes_u64(&sec, &len))
				return "a unit header is cut short";
		} else {
			len = len32;
		}
		if (!ci_bytes_sub(&sec, len, &unit))
			return "a unit is longer than the section";
		if (!ci_bytes_u16(&unit, &u.version) || u.version < 2 || u.version > 5)
			return "a unit has a DWARF version other than 2 to 5";
		if (u.version >= 5) {
			uint8_t asz, ssz;
			ci_bytes_u8(&unit, &asz);
			ci_bytes_u8(&unit, &ssz);
		}
		if (u.dwarf64) {
			if (!ci_bytes_u64(&unit, &hlen))
				return "a unit header is cut short";
		} else {
			uint32_t h32;
			if (!ci_bytes_u32(&unit, &h32))
				return "a unit header is cut short";
			hlen = h32;
		}
		if (!ci_bytes_sub(&unit, hlen, &h))
			return "a unit's header is longer than the unit";
		ci_bytes_u8(&h, &u.min_inst);
		u.max_ops = 1;
		if (u.version >= 4)
			ci_bytes_u8(&h, &u.max_ops);
		ci_bytes_u8(&h, &u.default_stmt);
		ci_bytes_copy(&h, &u.line_base, 1);
		ci_bytes_u8(&h, &u.line_range);
		ci_bytes_u8(&h, &u.opcode_base);
		if (h.bad || u.line_range == 0 || u.opcode_base == 0)
			return "a unit header has a line range or opcode base of 0";
		for (unsigned i = 1; i < u.opcode_base; i++)
			ci_bytes_u8(&h, &u.std_lengths[i]);
		u.file_first = cb->nfiles;
		why = unit_tables(cb, &h, &u, &dcap);
		if (!why)
			why = run_program(cb, &u, &unit);
		free(u.dirs);
	}
	if (cb->nranges)
		qsort(cb->ranges, cb->nranges, sizeof *cb->ranges, range_cmp);
	return why;
}

bool ci_cubin_line(struct ci_cubin *cb, uint64_t addr, const char **file, const char **dir,
		   uint32_t *line, const char **warn)
{
	if (!cb->lines_done) {
		cb->lines_done = true;
		const char *why = decode_lines(cb);
		if (why) {
			/* Keep what decoded before the damage; say it once. */
			cb->lines_warning = why;
			if (warn)
				*warn = why;
		}
	}
	size_t lo = count_below(cb->ranges, cb->nranges, sizeof *cb->ranges, offsetof(struct cb_range, start), addr, true);
	if (lo == 0)
		return false;
	const struct cb_range *r = &cb->ranges[lo - 1];
	if (addr >= r->end || r->file == UINT32_MAX || r->file >= cb->nfiles)
		return false;
	*file = cb->files[r->file].name;
	*dir = cb->files[r->file].dir;
	*line = r->line;
	return true;
}
