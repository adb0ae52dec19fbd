/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the symbol image (recorder/symimage.c): builds images, patches slots and checks
 * the result with libelf, independently of the writer's own layout code.  With a path argument
 * it also writes one image there, for the shell wrapper to feed to eu-readelf and readelf.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../recorder/symimage.h"
#include "../lib/tap.h"

struct seen {
	int symbols;       /* named symbols */
	int alloc_sections;/* SHF_ALLOC sections */
	int consistent;    /* symbols whose section is ALLOC and covers exactly their range */
};

/* Walk the image through libelf; find the symbol called NAME (if any) and count the rest. */
static int check_image_in(void *image, size_t size, const char *section, const char *name,
			  GElf_Sym *found, struct seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	Elf *elf = elf_memory(image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -1;
	size_t shnum = 0, shstrndx = 0;
	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return -1;
	}
	Elf_Scn *symscn = NULL, *shndxscn = NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB)
			symscn = scn;
		if (sh.sh_type == SHT_SYMTAB_SHNDX)
			shndxscn = scn;
		if (sh.sh_flags & SHF_ALLOC)
			seen->alloc_sections++;
	}
	int rc = -1;
	if (!symscn)
		goto out;
	GElf_Shdr symsh;
	gelf_getshdr(symscn, &symsh);
	Elf_Data *syms = elf_getdata(symscn, NULL);
	Elf_Data *xdata = shndxscn ? elf_getdata(shndxscn, NULL) : NULL;
	size_t n = symsh.sh_size / symsh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		if (!gelf_getsymshndx(syms, xdata, (int)i, &sym, &xndx))
			goto out;
		if (sym.st_name == 0)
			continue;
		const char *s = elf_strptr(elf, symsh.sh_link, sym.st_name);
		if (!s)
			goto out;
		seen->symbols++;
		size_t secidx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		GElf_Shdr sh;
		Elf_Scn *sec = elf_getscn(elf, secidx);
		if (sec && gelf_getshdr(sec, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_addr == sym.st_value && sh.sh_size == sym.st_size &&
		    GELF_ST_TYPE(sym.st_info) == STT_OBJECT &&
		    strcmp(elf_strptr(elf, shstrndx, sh.sh_name), section) == 0)
			seen->consistent++;
		if (name && strcmp(s, name) == 0)
			*found = sym;
	}
	rc = (int)shnum;
out:
	elf_end(elf);
	return rc;
}

static int check_image(void *image, size_t size, const char *name, GElf_Sym *found,
		       struct seen *seen)
{
	return check_image_in(image, size, CI_SYMIMAGE_SECTION, name, found, seen);
}

static void *image_new(uint32_t cap, size_t *size)
{
	*size = ci_symimage_size(cap);
	void *image = aligned_alloc(64, (*size + 63) & ~(size_t)63);
	memset(image, 0, *size);
	ci_symimage_init(image, *size, cap);
	return image;
}

int main(int argc, char **argv)
{
	elf_version(EV_CURRENT);
	plan(30);

	is_int(ci_symimage_size(0), 0, "no image for an empty table");
	ok(ci_symimage_size(1000) >= 1000 * (64 + 24 + CI_SYMIMAGE_NAME_WIDTH),
	   "size grows with the capacity");
	ok(ci_symimage_size(1000) % 8 == 0, "size is a multiple of 8");

	size_t size;
	void *image = image_new(8, &size);
	struct seen seen;
	GElf_Sym sym = {0};
	is_int(check_image(image, size, NULL, &sym, &seen), 5 + 8, "empty image: libelf reads 13 sections");
	is_int(seen.symbols, 0, "empty image: no named symbols");
	is_int(seen.alloc_sections, 0, "empty image: no ALLOC section");

	ci_symimage_set(image, 3, 42, 0x7f0000100000ull, 4096);
	ci_symimage_set(image, 7, 18446744073709551615ull, 0x7f0000200000ull, 256);
	ci_symimage_set(image, 8, 99, 0x1000, 16);     /* out of range: ignored */
	ci_symimage_set(image, 0, 5, 0x2000, 0);       /* empty range: ignored */
	memset(&sym, 0, sizeof(sym));
	check_image(image, size, "cuda_alloc_42", &sym, &seen);
	is_int(seen.symbols, 2, "two live allocations give two symbols");
	is_int(seen.consistent, 2, "each symbol sits in its own ALLOC section with the same range");
	is_int(sym.st_value, 0x7f0000100000ull, "cuda_alloc_42 value is the device address");
	is_int(sym.st_size, 4096, "cuda_alloc_42 size is the allocation size");
	memset(&sym, 0, sizeof(sym));
	check_image(image, size, "cuda_alloc_18446744073709551615", &sym, &seen);
	is_int(sym.st_size, 256, "the largest id fits the fixed-width name");

	ci_symimage_clear(image, 3);
	memset(&sym, 0, sizeof(sym));
	check_image(image, size, "cuda_alloc_42", &sym, &seen);
	is_int(seen.symbols, 1, "clear removes the symbol");
	is_int(seen.alloc_sections, 1, "clear removes the section from the address space");
	is_int(sym.st_size, 0, "cuda_alloc_42 is gone");

	ci_symimage_set(image, 3, 7, 0x7f0000300000ull, 512);
	memset(&sym, 0, sizeof(sym));
	check_image(image, size, "cuda_alloc_7", &sym, &seen);
	ok(seen.symbols == 2 && sym.st_value == 0x7f0000300000ull,
	   "a reused slot gets the new id, address and size (no trace of the old name)");
	free(image);

	/* Tables past CI_SYMIMAGE_PART_SLOTS are split into parts, each a complete ELF object that
	 * stays below GDB's 16-bit section index limit. */
	uint32_t big = 2 * CI_SYMIMAGE_PART_SLOTS + 100;
	image = image_new(big, &size);
	is_int(ci_symimage_part_count(big), 3, "a table of 2 parts + 100 slots has 3 parts");
	size_t off[3], psz[3];
	int parts_ok = 1;
	for (uint32_t p = 0; p < 3; p++)
		parts_ok &= ci_symimage_part(big, p, &off[p], &psz[p]);
	ok(parts_ok && !ci_symimage_part(big, 3, &off[0], &psz[0]) && off[0] == 0 &&
	   off[1] == psz[0] && off[2] == off[1] + psz[1] && off[2] + psz[2] == size,
	   "parts lie end to end and fill the image");
	ci_symimage_set(image, 0, 1, 0x100000000ull, 64);
	ci_symimage_set(image, CI_SYMIMAGE_PART_SLOTS, 2, 0x180000000ull, 96);
	ci_symimage_set(image, big - 1, 70000, 0x200000000ull, 128);
	ci_symimage_set(image, big, 70001, 0x300000000ull, 128); /* past the table: ignored */
	int total_syms = 0, total_consistent = 0, shnum_ok = 1;
	for (uint32_t p = 0; p < 3; p++) {
		memset(&sym, 0, sizeof(sym));
		int shnum = check_image((char *)image + off[p], psz[p], "cuda_alloc_70000", &sym, &seen);
		shnum_ok &= shnum > 0 && shnum < 32768;
		total_syms += seen.symbols;
		total_consistent += seen.consistent;
		if (p == 2)
			is_int(sym.st_value, 0x200000000ull, "the last slot's symbol is in the last part");
	}
	ok(shnum_ok, "every part has fewer than 32768 sections");
	is_int(total_syms, 3, "three slots set across three parts, the one past the table ignored");
	is_int(total_consistent, 3, "each symbol sits in its own section in its own part");
	/* An image of frees: the same layout, its own prefix and section name. */
	size_t fsize = ci_symimage_size(4);
	void *fimage = calloc(1, fsize);
	ci_symimage_init_kind(fimage, fsize, 4, CI_SYMIMAGE_FREED);
	ci_symimage_set(fimage, 2, 42, 0x7f0000400000ull, 8192);
	memset(&sym, 0, sizeof(sym));
	check_image_in(fimage, fsize, CI_SYMIMAGE_FREED_SECTION, "cuda_freed_42", &sym, &seen);
	ok(seen.symbols == 1 && seen.consistent == 1 && sym.st_value == 0x7f0000400000ull &&
	   sym.st_size == 8192, "an image of frees names cuda_freed_42 in its own .cuda_freed section");
	uint64_t a = 0, s = 0;
	ok(ci_symimage_get(fimage, 2, &a, &s) && a == 0x7f0000400000ull && s == 8192,
	   "get reads a named slot's range back");
	ok(!ci_symimage_get(fimage, 1, &a, &s) && !ci_symimage_get(fimage, 4, &a, &s),
	   "get: an unused slot and one past the table name nothing");
	ci_symimage_clear(fimage, 2);
	ok(!ci_symimage_get(fimage, 2, &a, &s), "get after clear: nothing");
	check_image_in(fimage, fsize, CI_SYMIMAGE_FREED_SECTION, NULL, &sym, &seen);
	is_int(seen.symbols + seen.alloc_sections, 0, "after clear libelf sees no symbol, no ALLOC section");
	if (argc > 1) {
		char path[4096];
		snprintf(path, sizeof(path), "%s.freed", argv[1]);
		ci_symimage_set(fimage, 0, 44, 0x7f1234800000ull, 0x4000);
		FILE *f = fopen(path, "w");
		ok(f && fwrite(fimage, 1, fsize, f) == fsize && fclose(f) == 0, "wrote %s", path);
	} else {
		ok(1, "no output file requested for the frees' image");
	}
	free(fimage);

	/* A foreign or too-small buffer is left alone. */
	char small[64] = {0};
	ci_symimage_init(small, sizeof(small), 8);
	ok(small[0] == 0, "init refuses a buffer smaller than the layout");
	char junk[4096] = {0};
	ci_symimage_set(junk, 0, 1, 0x1000, 16);
	ci_symimage_clear(junk, 0);
	ok(1, "set/clear on a zeroed buffer do not crash");
	free(image);

	if (argc > 1) {
		image = image_new(4, &size);
		ci_symimage_set(image, 1, 42, 0x7f1234560000ull, 0x100000);
		ci_symimage_set(image, 2, 43, 0x7f1234700000ull, 0x2000);
		FILE *f = fopen(argv[1], "w");
		ok(f && fwrite(image, 1, size, f) == size && fclose(f) == 0, "wrote %s", argv[1]);
		free(image);
	} else {
		ok(1, "no output file requested");
	}
	return done_testing();
}
