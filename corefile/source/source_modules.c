/* SPDX-License-Identifier: MIT */
/*
 * The ELF modules (executable, shared libraries, vDSO) that a core or a live process shows in
 * its own memory: the file mappings at file offset 0 whose first bytes are an ELF header (the
 * kernel dumps that page of every such mapping by default, coredump_filter bit 4), with the
 * layout of their PT_LOADs, their load bias and the GNU build-id from their notes.  The
 * symbolizer reports these to libdwfl itself, and opens their files only when they are
 * regular files whose build-id matches, instead of letting dwfl_core_file_report open every
 * path the core names (a FIFO blocks it, a device acts) and walk the program headers once
 * per segment (minutes for a core with 400,000 of them).  Everything here is read from the
 * source with the bounds-checked cursor, at most CI_MAX_MODULES modules of at most
 * CI_MAX_MODULE_PHDRS program headers and CI_MAX_MODULE_NOTES bytes of notes each.
 */
#include <elf.h>
#include <stdio.h>

#include "source.h"

#define NT_GNU_BUILD_ID_TYPE 3u

/* The program headers of the ELF object whose header is in EH (64 bytes read at ADDR), read
 * from the source.  Returns the number of headers, 0 if they are not readable or not sane. */
static size_t module_phdrs(struct ci_source *src, uint64_t addr, const uint8_t *eh, uint16_t machine,
			   Elf64_Phdr *ph, uint16_t *type)
{
	struct ci_bytes b = ci_bytes_make(eh, sizeof(Elf64_Ehdr));
	uint8_t ident[EI_NIDENT];
	uint16_t e_type, e_machine, e_phentsize, e_phnum;
	uint64_t e_phoff;
	ci_bytes_copy(&b, ident, sizeof ident);
	ci_bytes_u16(&b, &e_type);
	ci_bytes_u16(&b, &e_machine);
	ci_bytes_skip(&b, 4 + 8);
	ci_bytes_u64(&b, &e_phoff);
	ci_bytes_skip(&b, 8 + 4 + 2);
	ci_bytes_u16(&b, &e_phentsize);
	ci_bytes_u16(&b, &e_phnum);
	if (b.bad || memcmp(ident, ELFMAG, SELFMAG) != 0 || ident[EI_CLASS] != ELFCLASS64 ||
	    ident[EI_DATA] != ELFDATA2LSB || (e_type != ET_EXEC && e_type != ET_DYN) ||
	    (machine && e_machine != machine) || e_phentsize != sizeof(Elf64_Phdr) || e_phnum == 0 ||
	    e_phnum > CI_MAX_MODULE_PHDRS)
		return 0;
	uint64_t at;
	if (!ci_add(addr, e_phoff, &at))
		return 0;
	uint8_t raw[CI_MAX_MODULE_PHDRS * sizeof(Elf64_Phdr)];
	if (ci_source_read_quiet(src, at, raw, (size_t)e_phnum * sizeof(Elf64_Phdr)) != CI_READ_OK)
		return 0;
	struct ci_bytes p = ci_bytes_make(raw, (size_t)e_phnum * sizeof(Elf64_Phdr));
	for (size_t i = 0; i < e_phnum; i++) {
		ci_bytes_u32(&p, &ph[i].p_type);
		ci_bytes_u32(&p, &ph[i].p_flags);
		ci_bytes_u64(&p, &ph[i].p_offset);
		ci_bytes_u64(&p, &ph[i].p_vaddr);
		ci_bytes_u64(&p, &ph[i].p_paddr);
		ci_bytes_u64(&p, &ph[i].p_filesz);
		ci_bytes_u64(&p, &ph[i].p_memsz);
		ci_bytes_u64(&p, &ph[i].p_align);
	}
	*type = e_type;
	return e_phnum;
}

/* The GNU build-id in the notes at [ADDR, ADDR + LEN) of the source, into M. */
static void module_build_id(struct ci_source *src, uint64_t addr, uint64_t len, uint64_t align,
			    struct ci_module *m)
{
	if (len > CI_MAX_MODULE_NOTES)
		len = CI_MAX_MODULE_NOTES;
	len = ci_source_available(src, addr, len);
	if (len < 12)
		return;
	_cleanup_free_ uint8_t *notes = malloc(len);
	if (!notes)
		return;
	if (ci_source_read_quiet(src, addr, notes, len) != CI_READ_OK)
		return;
	align = align == 8 ? 8 : 4;
	struct ci_bytes b = ci_bytes_make(notes, len);
	while (ci_bytes_left(&b) >= 12) {
		uint32_t namesz, descsz, type;
		ci_bytes_u32(&b, &namesz);
		ci_bytes_u32(&b, &descsz);
		ci_bytes_u32(&b, &type);
		struct ci_bytes name, desc;
		ci_bytes_sub(&b, namesz, &name);
		ci_bytes_skip(&b, (((uint64_t)namesz + align - 1) & ~(align - 1)) - namesz);
		uint64_t desc_at = b.pos;
		ci_bytes_sub(&b, descsz, &desc);
		ci_bytes_skip(&b, (((uint64_t)descsz + align - 1) & ~(align - 1)) - descsz);
		if (desc.len != descsz)
			return;
		if (type == NT_GNU_BUILD_ID_TYPE && name.len == 4 && memcmp(name.p, "GNU", 4) == 0 &&
		    descsz >= 1 && descsz <= sizeof m->build_id) {
			memcpy(m->build_id, desc.p, descsz);
			m->build_id_len = descsz;
			m->build_id_addr = addr + desc_at;
			return;
		}
	}
}

/* Describe the module whose ELF header lies at ADDR (the start of a file mapping, or the vDSO)
 * into M.  False if no sane ELF object is there. */
static bool module_at(struct ci_source *src, uint64_t addr, struct ci_module *m)
{
	uint8_t eh[sizeof(Elf64_Ehdr)];
	if (ci_source_read_quiet(src, addr, eh, sizeof eh) != CI_READ_OK)
		return false;
	Elf64_Phdr ph[CI_MAX_MODULE_PHDRS];
	uint16_t type = 0;
	size_t n = module_phdrs(src, addr, eh, src->machine, ph, &type);
	if (!n)
		return false;
	/* The mapping at file offset 0 is the PT_LOAD that starts in the file's first page;
	 * libdwfl places a module by its first PT_LOAD's p_vaddr & -p_align. */
	const Elf64_Phdr *first = NULL, *zero = NULL;
	uint64_t high = 0;
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t end;
		if (!ci_add(ph[i].p_vaddr, ph[i].p_memsz, &end))
			return false;
		if (!first)
			first = &ph[i];
		if (!zero && ph[i].p_offset < 4096)
			zero = &ph[i];
		if (end > high)
			high = end;
	}
	if (!first || !zero)
		return false;
	uint64_t align = first->p_align && (first->p_align & (first->p_align - 1)) == 0
				 ? first->p_align : 1;
	uint64_t bias = addr - (zero->p_vaddr & ~(uint64_t)4095);
	if (type == ET_EXEC && bias != 0)
		return false;
	uint64_t low = first->p_vaddr & ~(align - 1), start, end;
	/* A module of more than 1 TiB is no module. */
	if (high <= low || high - low > (1ull << 40) || !ci_add(low, bias, &start) ||
	    !ci_add(high, bias, &end))
		return false;
	*m = (struct ci_module){ .start = start, .end = end, .bias = bias, .type = type,
				 .map_start = addr, .header_in_memory = true };
	for (size_t i = 0; i < n; i++) {
		uint64_t at;
		if (ph[i].p_type == PT_NOTE && ci_add(ph[i].p_vaddr, bias, &at)) {
			module_build_id(src, at, ph[i].p_memsz, ph[i].p_align, m);
			if (m->build_id_len)
				break;
		}
	}
	return true;
}

static int module_cmp(const void *a, const void *b)
{
	const struct ci_module *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether PATH names the record or another memfd: never a file on disk. */
static bool path_is_memfd(const char *path)
{
	return strncmp(path, "/memfd:", 7) == 0;
}

struct ci_error *ci_source_modules(struct ci_source *src, struct ci_module **ret, size_t *count)
{
	*ret = NULL;
	*count = 0;
	const struct ci_source_info *info = &src->info;
	size_t cap = 16, n = 0, dropped = 0;
	struct ci_module *mods = malloc(cap * sizeof *mods);
	if (!mods)
		return ci_error_create(CI_ERR_NOMEM, "out of memory listing the modules of %s", src->name);
	bool have_exe = false;
	/* The executable: the file that holds AT_ENTRY (its code, not its first page, which is
	 * a mapping of its own), else the one the source names. */
	const char *entry_path = NULL;
	for (size_t i = 0; src->auxv_entry && i < info->mapping_count && !entry_path; i++)
		if (info->mappings[i].start <= src->auxv_entry && src->auxv_entry < info->mappings[i].end)
			entry_path = info->mappings[i].path;
	for (size_t i = 0; i <= info->mapping_count; i++) {
		struct ci_module m;
		bool vdso = i == info->mapping_count;
		if (vdso) {
			if (!src->vdso_start || !module_at(src, src->vdso_start, &m))
				continue;
			m.vdso = true;
			m.map_end = src->vdso_end ? src->vdso_end : m.end;
		} else {
			const struct ci_mapping *map = &info->mappings[i];
			if (map->file_offset != 0 || path_is_memfd(map->path))
				continue;
			bool exe = entry_path ? strcmp(map->path, entry_path) == 0
					      : info->executable && strcmp(map->path, info->executable) == 0;
			if (!module_at(src, map->start, &m)) {
				/* The executable is worth a module even when its header was not
				 * dumped: its file (or --exe) gives the layout. */
				if (!exe || have_exe)
					continue;
				m = (struct ci_module){ .start = map->start, .end = map->end,
							.map_start = map->start };
			}
			m.path = map->path;
			m.map_end = map->end;
			m.executable = exe && !have_exe;
			have_exe = have_exe || m.executable;
		}
		if (n == CI_MAX_MODULES) {
			dropped++;
			continue;
		}
		if (n == cap) {
			cap *= 2;
			struct ci_module *grown = realloc(mods, cap * sizeof *mods);
			if (!grown) {
				free(mods);
				return ci_error_create(CI_ERR_NOMEM, "out of memory listing the modules of %s",
						       src->name);
			}
			mods = grown;
		}
		mods[n++] = m;
	}
	if (dropped)
		ci_warnings_add(&src->warnings,
				"%s maps more than %u ELF files; the other %zu are left out, and frames in "
				"them show only an address", src->name, CI_MAX_MODULES, dropped);
	/* One module per address: a hostile file list may name overlapping ones. */
	qsort(mods, n, sizeof *mods, module_cmp);
	size_t kept = 0, overlapping = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && mods[i].start < mods[kept - 1].end) {
			overlapping++;
			continue;
		}
		mods[kept++] = mods[i];
	}
	if (overlapping)
		ci_warnings_add(&src->warnings,
				"%s: %zu ELF file mapping%s overlap%s another module; ignored (the file list "
				"is damaged)", src->name, overlapping, overlapping == 1 ? "" : "s",
				overlapping == 1 ? "s" : "");
	*ret = mods;
	*count = kept;
	return NULL;
}
