/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: write a small synthetic x86-64 (or aarch64) ELF core holding a synthetic flight
 * record, with the layouts a real kernel on this machine will not produce on demand: more than
 * 65535 program headers (PN_XNUM), PT_LOADs in reverse order, a record split over two adjacent
 * PT_LOADs, overlapping segments, gdb-style section headers and note, no NT_FILE, a record whose
 * segment was not dumped, 8-byte note alignment, a note that runs past its segment, a page of
 * environment strings that starts with the magic's letters, an unnamed copy of the record,
 * hundreds of thousands of PT_LOADs (--filler), and file mappings whose first page holds an
 * ELF header (with a GNU build-id note) named after any path, such as a FIFO or a device
 * (--map=PATH, --maps=N).
 *
 *   mkcore [OPTIONS] OUT      (record options from synth.h are accepted too)
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

#define PAGE 4096u
#define EXE_START 0x400000ull
#define EXE_PATH "/opt/synth/engine"
#define MAP_START 0x50000000ull

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	const uint8_t *data;
	uint32_t flags;
};

static struct seg *segs;
static size_t nsegs, segs_cap;
static uint8_t *notes;
static size_t notes_len, notes_cap;
static unsigned note_align = 4;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p)
		abort();
	*cap = n;
	return p;
}

static void add_seg(uint64_t vaddr, uint64_t memsz, uint64_t filesz, const uint8_t *data, uint32_t flags)
{
	segs = grow(segs, &segs_cap, nsegs + 1, sizeof *segs);
	segs[nsegs++] = (struct seg){ .vaddr = vaddr, .memsz = memsz, .filesz = filesz, .data = data,
				      .flags = flags };
}

static void add_note(const char *name, uint32_t type, const void *desc, uint32_t descsz, uint32_t claim)
{
	notes = grow(notes, &notes_cap, notes_len + 12 + strlen(name) + descsz + 16, 1);
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	uint32_t hdr[3] = { namesz, claim ? claim : descsz, type };
	memcpy(notes + notes_len, hdr, 12);
	notes_len += 12;
	memcpy(notes + notes_len, name, namesz);
	notes_len += (namesz + note_align - 1) & ~(note_align - 1);
	memcpy(notes + notes_len, desc, descsz);
	notes_len += (descsz + note_align - 1) & ~(note_align - 1);
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The first page of a shared library as the kernel dumps it: an ELF header, a PT_LOAD for the
 * page and a PT_NOTE with a GNU build-id derived from K. */
static uint8_t *elf_page(uint16_t machine, unsigned k)
{
	uint8_t *p = calloc(1, PAGE);
	if (!p)
		abort();
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = machine, .e_version = EV_CURRENT,
			  .e_phoff = sizeof eh, .e_ehsize = sizeof eh,
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(p, &eh, sizeof eh);
	Elf64_Phdr ph[2] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R, .p_memsz = PAGE, .p_filesz = PAGE, .p_align = PAGE },
		{ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = 0x200, .p_vaddr = 0x200,
		  .p_filesz = 36, .p_memsz = 36, .p_align = 4 },
	};
	memcpy(p + sizeof eh, ph, sizeof ph);
	uint32_t nh[3] = { 4, 20, 3 /* NT_GNU_BUILD_ID */ };
	memcpy(p + 0x200, nh, sizeof nh);
	memcpy(p + 0x20c, "GNU", 4);
	for (int i = 0; i < 20; i++)
		p[0x210 + i] = (uint8_t)(0xb0 + i + k);
	return p;
}

int main(int argc, char **argv)
{
	struct synth_spec spec;
	synth_defaults(&spec);
	spec.origin = CI_ORIGIN_MEMFD;
	spec.state = CI_STATE_SIGNALED;
	uint64_t record_at = 0x10000000;
	uint64_t copy_at = 0;
	int no_record = 0, split = 0, reverse = 0, gdb = 0, uncaptured = 0, no_file = 0, overlap = 0;
	int bad_note = 0, threads = 2, env_page = 0;
	unsigned filler = 0, nmaps = 0, maps_count = 0;
	const char *maps[16];
	uint16_t machine = EM_X86_64;
	const char *out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (synth_parse_option(&spec, a))
			continue;
		if (strncmp(a, "--record=", 9) == 0)
			record_at = strtoull(a + 9, NULL, 0);
		else if (strcmp(a, "--no-record") == 0)
			no_record = 1;
		else if (strcmp(a, "--split") == 0)
			split = 1;
		else if (strcmp(a, "--reverse") == 0)
			reverse = 1;
		else if (strncmp(a, "--filler=", 9) == 0)
			filler = (unsigned)atoi(a + 9);
		else if (strncmp(a, "--map=", 6) == 0 && nmaps < 16)
			maps[nmaps++] = a + 6;
		else if (strncmp(a, "--maps=", 7) == 0)
			maps_count = (unsigned)atoi(a + 7);
		else if (strcmp(a, "--gdb") == 0)
			gdb = 1;
		else if (strcmp(a, "--uncaptured") == 0)
			uncaptured = 1;
		else if (strcmp(a, "--no-file-note") == 0)
			no_file = 1;
		else if (strcmp(a, "--overlap") == 0)
			overlap = 1;
		else if (strcmp(a, "--bad-note") == 0)
			bad_note = 1;
		else if (strncmp(a, "--copy=", 7) == 0)
			copy_at = strtoull(a + 7, NULL, 0);
		else if (strcmp(a, "--env-page") == 0)
			env_page = 1;
		else if (strncmp(a, "--threads=", 10) == 0)
			threads = atoi(a + 10);
		else if (strcmp(a, "--note-align=8") == 0)
			note_align = 8;
		else if (strcmp(a, "--machine=aarch64") == 0)
			machine = EM_AARCH64;
		else if (a[0] == '-') {
			fprintf(stderr, "usage: mkcore [--record=ADDR] [--no-record] [--split] [--reverse] "
					"[--filler=N] [--map=PATH]... [--maps=N] [--gdb] [--uncaptured] [--no-file-note] [--overlap] "
					"[--bad-note] [--env-page] [--copy=ADDR] [--threads=N] [--note-align=8] [--machine=aarch64] "
					"[record options] OUT\n%s", synth_options_help());
			return 2;
		} else
			out = a;
	}
	if (!out || threads < 1 || threads > 64)
		return 2;
	uint32_t pid = spec.pid;

	/* Memory: an executable page, the record, filler. */
	static uint8_t exe_page[PAGE];
	memcpy(exe_page, "\x7f" "ELF", 4);
	add_seg(EXE_START, 2 * PAGE, PAGE, exe_page, PF_R | PF_X);
	uint8_t *record = NULL;
	size_t rsize = 0;
	if (!no_record) {
		spec.record_base = record_at;
		rsize = synth_size(&spec);
		record = calloc(1, rsize);
		synth_build(&spec, record);
		if (split && rsize > 2 * PAGE) {
			add_seg(record_at, 2 * PAGE, uncaptured ? 0 : 2 * PAGE, record, PF_R | PF_W);
			add_seg(record_at + 2 * PAGE, rsize - 2 * PAGE, uncaptured ? 0 : rsize - 2 * PAGE,
				record + 2 * PAGE, PF_R | PF_W);
		} else {
			add_seg(record_at, rsize, uncaptured ? 0 : rsize, record, PF_R | PF_W);
		}
		if (overlap) {
			static uint8_t junk[PAGE];
			memset(junk, 0x5a, sizeof junk);
			add_seg(record_at + PAGE, PAGE, PAGE, junk, PF_R | PF_W);
		}
	}
	for (unsigned i = 0; i < filler; i++)
		add_seg(0x200000000ull + (uint64_t)i * 2 * PAGE, PAGE, 0, NULL, 0);
	/* File mappings with an ELF header: --map=PATH ones, then --maps=N named /nonexistent/N. */
	unsigned total_maps = nmaps + maps_count;
	for (unsigned i = 0; i < total_maps; i++)
		add_seg(MAP_START + (uint64_t)i * 2 * PAGE, PAGE, PAGE, elf_page(machine, i), PF_R);
	if (copy_at && record) {
		/* An undamaged copy of the record at COPY_AT that no note names (a snapshot read
		 * into memory): only the page scan finds it. */
		struct synth_spec good = spec;
		good.damage = SYNTH_OK;
		uint8_t *copy = calloc(1, rsize);
		synth_build(&good, copy);
		add_seg(copy_at, rsize, rsize, copy, PF_R | PF_W);
	}
	if (env_page) {
		/* A page of environment strings that starts with the magic's eight letters, as
		 * the stack of a process run with CUDAINSPECT_* variables may: not a record. */
		static uint8_t env[PAGE];
		static const char vars[] = "CUDAINSPECT_DIR=/var/tmp/records\0CUDAINSPECT_VERBOSE=1\0";
		memcpy(env, vars, sizeof vars);
		add_seg(0x7ffff7ff0000ull, PAGE, PAGE, env, PF_R | PF_W);
	}
	if (reverse)
		for (size_t i = 0; i < nsegs / 2; i++) {
			struct seg t = segs[i];
			segs[i] = segs[nsegs - 1 - i];
			segs[nsegs - 1 - i] = t;
		}

	/* Notes: PRPSINFO, then per thread PRSTATUS (+ SIGINFO once), AUXV, FILE. */
	uint8_t psinfo[136] = { 0 };
	put32(psinfo + 24, pid);
	memcpy(psinfo + 40, "engine", 6);
	memcpy(psinfo + 56, "/opt/synth/engine --fault oob", 29);
	for (int t = 0; t < threads; t++) {
		uint8_t prstatus[392] = { 0 };
		prstatus[12] = 11; /* pr_cursig */
		put32(prstatus + 32, pid + (uint32_t)t);
		if (machine == EM_AARCH64) {
			put64(prstatus + 112 + 32 * 8, 0x401100 + (uint64_t)t); /* pc */
			put64(prstatus + 112 + 31 * 8, 0x7ffff000 - (uint64_t)t * 0x1000); /* sp */
		} else {
			put64(prstatus + 112 + 16 * 8, 0x401100 + (uint64_t)t); /* rip */
			put64(prstatus + 112 + 19 * 8, 0x7ffff000 - (uint64_t)t * 0x1000); /* rsp */
		}
		add_note("CORE", NT_PRSTATUS, prstatus, machine == EM_AARCH64 ? 392 : 336, 0);
		if (t == 0) {
			add_note("CORE", NT_PRPSINFO, psinfo, sizeof psinfo, 0);
			uint8_t siginfo[128] = { 0 };
			put32(siginfo, 11);
			put32(siginfo + 8, 1);
			put64(siginfo + 16, 0xdead0);
			add_note("CORE", 0x53494749, siginfo, sizeof siginfo, 0);
			uint64_t auxv[4] = { AT_ENTRY, EXE_START + 0x100, AT_NULL, 0 };
			add_note("CORE", NT_AUXV, auxv, sizeof auxv, 0);
		}
	}
	if (!no_file) {
		size_t count = 1 + (record ? 1 : 0) + total_maps, cap = 16 + 24 * count + 64;
		for (unsigned i = 0; i < nmaps; i++)
			cap += strlen(maps[i]) + 1;
		cap += (size_t)maps_count * 32;
		uint8_t *file = calloc(1, cap);
		if (!file)
			abort();
		size_t n = 16;
		put64(file, count);
		put64(file + 8, PAGE);
		put64(file + n, EXE_START); put64(file + n + 8, EXE_START + 2 * PAGE); put64(file + n + 16, 0);
		n += 24;
		if (record) {
			put64(file + n, record_at); put64(file + n + 8, record_at + rsize); put64(file + n + 16, 0);
			n += 24;
		}
		for (unsigned i = 0; i < total_maps; i++) {
			uint64_t at = MAP_START + (uint64_t)i * 2 * PAGE;
			put64(file + n, at); put64(file + n + 8, at + PAGE); put64(file + n + 16, 0);
			n += 24;
		}
		memcpy(file + n, EXE_PATH, sizeof EXE_PATH);
		n += sizeof EXE_PATH;
		if (record) {
			const char *memfd = "/memfd:" CI_MEMFD_NAME " (deleted)";
			memcpy(file + n, memfd, strlen(memfd) + 1);
			n += strlen(memfd) + 1;
		}
		for (unsigned i = 0; i < total_maps; i++) {
			if (i < nmaps)
				n += (size_t)sprintf((char *)file + n, "%s", maps[i]) + 1;
			else
				n += (size_t)sprintf((char *)file + n, "/nonexistent/lib%u.so", i - nmaps) + 1;
		}
		add_note("CORE", 0x46494c45, file, (uint32_t)n, 0);
		free(file);
	}
	if (gdb)
		add_note("GDB", 0xff000000, "<target/>", 10, 0);
	if (bad_note)
		add_note("CORE", NT_AUXV, "x", 1, 0x7fffffff);

	/* Layout: ehdr, phdrs, [section headers], notes, page-aligned memory. */
	size_t phnum = nsegs + 1;
	int xnum = phnum >= PN_XNUM;
	size_t nshdr = gdb ? 3 : xnum ? 1 : 0;
	uint64_t phoff = sizeof(Elf64_Ehdr);
	uint64_t shoff = phoff + phnum * sizeof(Elf64_Phdr);
	uint64_t notes_off = shoff + nshdr * sizeof(Elf64_Shdr);
	uint64_t data = (notes_off + notes_len + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	for (size_t i = 0; i < nsegs; i++) {
		segs[i].offset = data;
		data += (segs[i].filesz + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	}
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = phoff;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = xnum ? PN_XNUM : (uint16_t)phnum;
	if (nshdr) {
		eh.e_shoff = shoff;
		eh.e_shentsize = sizeof(Elf64_Shdr);
		eh.e_shnum = (uint16_t)nshdr;
	}
	FILE *f = fopen(out, "wb");
	if (!f)
		return 1;
	fwrite(&eh, sizeof eh, 1, f);
	Elf64_Phdr note = { .p_type = PT_NOTE, .p_offset = notes_off, .p_filesz = notes_len,
			    .p_align = note_align };
	fwrite(&note, sizeof note, 1, f);
	for (size_t i = 0; i < nsegs; i++) {
		Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = segs[i].flags, .p_offset = segs[i].offset,
				  .p_vaddr = segs[i].vaddr, .p_filesz = segs[i].filesz,
				  .p_memsz = segs[i].memsz, .p_align = PAGE };
		fwrite(&ph, sizeof ph, 1, f);
	}
	for (size_t i = 0; i < nshdr; i++) {
		Elf64_Shdr sh = { 0 };
		if (i == 0 && xnum)
			sh.sh_info = (uint32_t)phnum;
		if (i == 1) {
			sh.sh_type = SHT_NOTE;
			sh.sh_offset = notes_off;
			sh.sh_size = notes_len;
		}
		fwrite(&sh, sizeof sh, 1, f);
	}
	fwrite(notes, 1, notes_len, f);
	for (size_t i = 0; i < nsegs; i++) {
		if (!segs[i].filesz)
			continue;
		fseek(f, (long)segs[i].offset, SEEK_SET);
		fwrite(segs[i].data, 1, segs[i].filesz, f);
	}
	/* Pad the last page so the file ends where the headers say. */
	if (fseek(f, (long)data - 1, SEEK_SET) == 0 && ftell(f) > 0) {
		long here = ftell(f);
		fseek(f, 0, SEEK_END);
		if (ftell(f) <= here) {
			fseek(f, (long)data - 1, SEEK_SET);
			fputc(0, f);
		}
	}
	free(record);
	return fclose(f) ? 1 : 0;
}
