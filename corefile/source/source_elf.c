/* SPDX-License-Identifier: MIT */
/*
 * ELF core parsing for the source stage: the ELF header, program headers (PN_XNUM, unsorted,
 * p_filesz < p_memsz, truncated files) and the notes that describe the process (NT_PRSTATUS
 * threads and registers, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE, gdb's NT_GDB_TDESC).  Every
 * byte is read through the bounds-checked cursor from reader-internal.h over our own mmap, so a
 * hostile or truncated core gives a message, never a wild read; libelf is opened on the same
 * file only to hand libdwfl a handle.  Layouts: docs/READER-INTERNALS.md, "Stage 1: source".
 */
#include <elf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>

#include "source.h"

#define NT_SIGINFO_TYPE 0x53494749u  /* "SIGI" */
#define NT_FILE_TYPE    0x46494c45u  /* "FILE" */
#define NT_GDB_TDESC    0xff000000u  /* gdb's target description, only in gcore output */

/* Offsets in x86-64 / aarch64 struct elf_prstatus and elf_prpsinfo (docs/READER-INTERNALS.md). */
#define PRSTATUS_CURSIG  12
#define PRSTATUS_PID     32
#define PRSTATUS_REG     112
#define PRPSINFO_PID     24
#define PRPSINFO_FNAME   40
#define PRPSINFO_PSARGS  56
#define PRPSINFO_SIZE    136
#define X86_64_NREGS     27
#define AARCH64_NREGS    34

/* A thread's NT_SIGINFO: gdb writes one per thread. */
struct thread_sig {
	int32_t signo, code;
	uint64_t addr;
};

struct core_parse {
	struct ci_source *src;
	uint16_t machine;
	bool gcore;
	bool have_siginfo;
	bool have_file;                /* an NT_FILE note was seen */
	int32_t sig_signo, sig_code;
	uint64_t sig_addr;
	struct thread_sig *sigs;       /* SIGINFO per thread (gcore), parallel to info.threads */
	size_t threads_cap;
	char fname[17];
	uint64_t auxv_execfn;
	uint32_t notes_seen;
	bool notes_warned;
};

static void core_warn_once(struct core_parse *cp, const char *what, uint32_t note_no)
{
	if (cp->notes_warned)
		return;
	cp->notes_warned = true;
	ci_warnings_add(&cp->src->warnings,
			"%s: note %u (%s) is malformed and was skipped; the core may be damaged",
			cp->src->name, note_no, what);
}

static struct ci_error *core_add_thread(struct core_parse *cp, const struct ci_core_thread *t)
{
	struct ci_source_info *info = &cp->src->info;
	if (info->thread_count >= CI_MAX_THREADS) {
		if (info->thread_count == CI_MAX_THREADS)
			ci_warnings_add(&cp->src->warnings,
					"%s has more than %u threads; only the first %u are shown",
					cp->src->name, CI_MAX_THREADS, CI_MAX_THREADS);
		return NULL;
	}
	if (info->thread_count == cp->threads_cap) {
		size_t cap = cp->threads_cap ? cp->threads_cap * 2 : 16;
		struct ci_core_thread *threads = realloc(info->threads, cap * sizeof *threads);
		if (!threads)
			return ci_error_create(CI_ERR_NOMEM, "out of memory reading threads of %s", cp->src->name);
		info->threads = threads;
		struct thread_sig *sigs = realloc(cp->sigs, cap * sizeof *sigs);
		if (!sigs)
			return ci_error_create(CI_ERR_NOMEM, "out of memory reading threads of %s", cp->src->name);
		cp->sigs = sigs;
		cp->threads_cap = cap;
	}
	cp->sigs[info->thread_count] = (struct thread_sig){ 0 };
	info->threads[info->thread_count++] = *t;
	return NULL;
}

/* Keep every register of the thread just added (libdwfl unwinds from them). */
static struct ci_error *core_keep_regs(struct core_parse *cp, const uint64_t *regs)
{
	struct ci_source *src = cp->src;
	size_t n = src->info.thread_count;
	if (n == 0 || n > CI_MAX_THREADS)
		return NULL;
	if ((n & (n - 1)) == 0) {
		/* Grown by doubling, as the thread array is; n is capped above. */
		void *grown = realloc(src->thread_regs, 2 * n * sizeof *src->thread_regs);
		if (!grown)
			return ci_error_create(CI_ERR_NOMEM, "out of memory reading threads of %s", src->name);
		src->thread_regs = grown;
	}
	memcpy(src->thread_regs[n - 1], regs, sizeof *src->thread_regs);
	return NULL;
}

static struct ci_error *note_prstatus(struct core_parse *cp, struct ci_bytes desc, uint32_t note_no)
{
	struct ci_core_thread t = { 0 };
	uint16_t cursig;
	uint32_t pid;
	struct ci_bytes b = desc;
	ci_bytes_seek(&b, PRSTATUS_CURSIG);
	ci_bytes_u16(&b, &cursig);
	ci_bytes_seek(&b, PRSTATUS_PID);
	ci_bytes_u32(&b, &pid);
	if (b.bad) {
		core_warn_once(cp, "NT_PRSTATUS", note_no);
		return NULL;
	}
	t.tid = pid;
	t.cursig = (int16_t)cursig;
	size_t nregs = cp->machine == EM_AARCH64 ? AARCH64_NREGS : X86_64_NREGS;
	uint64_t regs[CI_PRSTATUS_NREGS] = { 0 };
	ci_bytes_seek(&b, PRSTATUS_REG);
	for (size_t i = 0; i < nregs; i++)
		ci_bytes_u64(&b, &regs[i]);
	if (b.bad) {
		/* Thread ids are still worth having without registers. */
		core_warn_once(cp, "NT_PRSTATUS registers", note_no);
	} else if (cp->machine == EM_AARCH64) {
		t.pc = regs[32];
		t.sp = regs[31];
		t.fp = regs[29];
	} else {
		t.pc = regs[16];
		t.sp = regs[19];
		t.fp = regs[4];
	}
	memcpy(t.regs, regs, sizeof t.regs);
	size_t before = cp->src->info.thread_count;
	struct ci_error *err = core_add_thread(cp, &t);
	if (!err && cp->src->info.thread_count > before)
		err = core_keep_regs(cp, b.bad ? (const uint64_t[CI_PRSTATUS_NREGS]){ 0 } : regs);
	return err;
}

static void note_siginfo(struct core_parse *cp, struct ci_bytes desc, uint32_t note_no)
{
	uint32_t signo, code;
	uint64_t addr;
	struct ci_bytes b = desc;
	ci_bytes_u32(&b, &signo);
	ci_bytes_skip(&b, 4);
	ci_bytes_u32(&b, &code);
	ci_bytes_skip(&b, 4);
	ci_bytes_u64(&b, &addr);
	if (b.bad) {
		core_warn_once(cp, "NT_SIGINFO", note_no);
		return;
	}
	/* si_addr is only an address for faults the kernel raised (si_code > 0); a kill() or
	 * raise() puts the sender's pid there instead. */
	int32_t s = (int32_t)signo, c = (int32_t)code;
	bool fault = c > 0 && (s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE || s == SIGTRAP);
	size_t n = cp->src->info.thread_count;
	if (n) {
		cp->sigs[n - 1] = (struct thread_sig){ .signo = s, .code = c, .addr = fault ? addr : 0 };
	}
	if (!cp->have_siginfo) {
		cp->have_siginfo = true;
		cp->sig_signo = s;
		cp->sig_code = c;
		cp->sig_addr = fault ? addr : 0;
	}
}

static char *dup_bounded(const uint8_t *p, size_t max)
{
	size_t n = strnlen((const char *)p, max);
	while (n && p[n - 1] == ' ')
		n--;
	return strndup((const char *)p, n);
}

static struct ci_error *note_prpsinfo(struct core_parse *cp, struct ci_bytes desc, uint32_t note_no)
{
	if (desc.len < PRPSINFO_SIZE) {
		core_warn_once(cp, "NT_PRPSINFO", note_no);
		return NULL;
	}
	struct ci_source_info *info = &cp->src->info;
	uint32_t pid = (uint32_t)ci_le64(desc.p + PRPSINFO_PID) & 0xffffffffu;
	info->pid = pid;
	memcpy(cp->fname, desc.p + PRPSINFO_FNAME, 16);
	cp->fname[16] = 0;
	free(info->psargs);
	info->psargs = dup_bounded(desc.p + PRPSINFO_PSARGS, 80);
	if (!info->psargs)
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", cp->src->name);
	return NULL;
}

static void note_auxv(struct core_parse *cp, struct ci_bytes desc)
{
	uint64_t type, val;
	while (ci_bytes_left(&desc) >= 16) {
		ci_bytes_u64(&desc, &type);
		ci_bytes_u64(&desc, &val);
		if (type == AT_NULL)
			break;
		if (type == AT_ENTRY)
			cp->src->auxv_entry = val;
		else if (type == AT_EXECFN)
			cp->auxv_execfn = val;
		else if (type == AT_SYSINFO_EHDR)
			cp->src->vdso_start = val;
	}
}

static struct ci_error *note_file(struct core_parse *cp, struct ci_bytes desc, uint32_t note_no)
{
	struct ci_source_info *info = &cp->src->info;
	uint64_t count, page_size;
	ci_bytes_u64(&desc, &count);
	ci_bytes_u64(&desc, &page_size);
	uint64_t table;
	if (desc.bad || !ci_mul(count, 24, &table) || table > ci_bytes_left(&desc)) {
		core_warn_once(cp, "NT_FILE", note_no);
		return NULL;
	}
	if (info->mappings) {
		ci_warnings_add(&cp->src->warnings, "%s has more than one NT_FILE note; using the first",
				cp->src->name);
		return NULL;
	}
	if (count > CI_MAX_MAPPINGS) {
		ci_warnings_add(&cp->src->warnings,
				"%s: NT_FILE lists %llu mappings; only the first %u are used",
				cp->src->name, (unsigned long long)count, CI_MAX_MAPPINGS);
		count = CI_MAX_MAPPINGS;
	}
	struct ci_bytes names = desc;
	if (!ci_bytes_skip(&names, table))
		return NULL;
	info->mappings = calloc(count ? count : 1, sizeof *info->mappings);
	if (!info->mappings)
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading mappings of %s", cp->src->name);
	size_t kept = 0;
	bool bad = false;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t start, end, pgoff, off;
		ci_bytes_u64(&desc, &start);
		ci_bytes_u64(&desc, &end);
		ci_bytes_u64(&desc, &pgoff);
		const char *path;
		size_t plen;
		if (!ci_bytes_cstr(&names, &path, &plen)) {
			bad = true;
			break;
		}
		/* file_ofs is in page_size units. */
		if (end < start || !ci_mul(pgoff, page_size, &off)) {
			bad = true;
			continue;
		}
		struct ci_mapping *m = &info->mappings[kept];
		m->path = strndup(path, plen);
		if (!m->path)
			return ci_error_create(CI_ERR_NOMEM, "out of memory reading mappings of %s", cp->src->name);
		m->start = start;
		m->end = end;
		m->file_offset = off;
		kept++;
	}
	info->mapping_count = kept;
	if (bad)
		core_warn_once(cp, "NT_FILE entries", note_no);
	return NULL;
}

static struct ci_error *parse_notes(struct core_parse *cp, struct ci_bytes notes, uint64_t align)
{
	while (ci_bytes_left(&notes) >= 12) {
		if (cp->notes_seen++ >= CI_MAX_NOTES) {
			ci_warnings_add(&cp->src->warnings, "%s has more than %u notes; the rest were ignored",
					cp->src->name, CI_MAX_NOTES);
			return NULL;
		}
		uint32_t note_no = cp->notes_seen - 1;
		uint32_t namesz, descsz, type;
		ci_bytes_u32(&notes, &namesz);
		ci_bytes_u32(&notes, &descsz);
		ci_bytes_u32(&notes, &type);
		uint64_t name_pad = ((uint64_t)namesz + align - 1) & ~(align - 1);
		uint64_t desc_pad = ((uint64_t)descsz + align - 1) & ~(align - 1);
		struct ci_bytes name, desc;
		ci_bytes_sub(&notes, namesz, &name);
		ci_bytes_skip(&notes, name_pad - namesz);
		ci_bytes_sub(&notes, descsz, &desc);
		/* The last note's padding may be missing; tolerate that. */
		if (!notes.bad && ci_bytes_left(&notes) >= desc_pad - descsz)
			ci_bytes_skip(&notes, desc_pad - descsz);
		if (notes.bad) {
			ci_warnings_add(&cp->src->warnings,
					"%s: note %u claims %u name and %u description bytes, more than the note "
					"segment holds; the notes after it are lost (truncated or damaged core)",
					cp->src->name, note_no, namesz, descsz);
			return NULL;
		}
		bool core_owner = name.len == 5 && memcmp(name.p, "CORE", 5) == 0;
		bool gdb_owner = name.len == 4 && memcmp(name.p, "GDB", 4) == 0;
		struct ci_error *err = NULL;
		if (gdb_owner && type == NT_GDB_TDESC)
			cp->gcore = true;
		if (!core_owner)
			continue;
		switch (type) {
		case NT_PRSTATUS: err = note_prstatus(cp, desc, note_no); break;
		case NT_PRPSINFO: err = note_prpsinfo(cp, desc, note_no); break;
		case NT_SIGINFO_TYPE: note_siginfo(cp, desc, note_no); break;
		case NT_AUXV: note_auxv(cp, desc); break;
		case NT_FILE_TYPE: cp->have_file = true; err = note_file(cp, desc, note_no); break;
		default: break;
		}
		if (err)
			return err;
	}
	return NULL;
}

/* The executable: the NT_FILE mapping that holds AT_ENTRY, else AT_EXECFN from the core's
 * memory, else the first word of psargs, else the command name. */
static struct ci_error *core_guess_executable(struct core_parse *cp)
{
	struct ci_source *src = cp->src;
	struct ci_source_info *info = &src->info;
	const char *guess = NULL;
	char execfn[4096];
	for (size_t i = 0; src->auxv_entry && i < info->mapping_count; i++)
		if (info->mappings[i].start <= src->auxv_entry && src->auxv_entry < info->mappings[i].end) {
			guess = info->mappings[i].path;
			break;
		}
	if (!guess && cp->auxv_execfn) {
		uint64_t n = ci_source_available(src, cp->auxv_execfn, sizeof execfn);
		struct ci_error *err = n ? ci_source_read(src, cp->auxv_execfn, execfn, n) : NULL;
		if (err)
			ci_error_destroy(err);
		else if (n && memchr(execfn, 0, n) && execfn[0])
			guess = execfn;
	}
	char first[81];
	if (!guess && info->psargs && *info->psargs) {
		size_t w = strcspn(info->psargs, " ");
		snprintf(first, sizeof first, "%.*s", (int)w, info->psargs);
		guess = first;
	}
	if (!guess && *cp->fname)
		guess = cp->fname;
	if (guess) {
		info->executable = strdup(guess);
		if (!info->executable)
			return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", src->name);
	}
	return NULL;
}

static void core_pick_signal(struct core_parse *cp)
{
	struct ci_source_info *info = &cp->src->info;
	if (!cp->gcore) {
		/* The kernel writes the dumping thread first. */
		if (info->thread_count)
			info->threads[0].crashed = true;
		if (cp->have_siginfo) {
			info->signal = cp->sig_signo;
			info->si_code = cp->sig_code;
			info->fault_addr = cp->sig_addr;
		} else if (info->thread_count) {
			info->signal = info->threads[0].cursig;
		}
		return;
	}
	/* gdb writes a SIGINFO per thread; the SIGSTOP of its attach is not a crash.  A thread
	 * that gdb had stopped at a real signal names the signal and the crashed thread. */
	for (size_t i = 0; i < info->thread_count; i++) {
		int32_t s = cp->sigs[i].signo;
		if (s == 0 || s == SIGSTOP || s == SIGTRAP)
			continue;
		info->threads[i].crashed = true;
		info->threads[i].cursig = s;
		info->signal = s;
		info->si_code = cp->sigs[i].code;
		info->fault_addr = cp->sigs[i].addr;
		return;
	}
}

/* One warning for all the program headers ignored for one reason. */
static void warn_ignored_headers(struct ci_source *src, uint64_t count, uint64_t first,
				 const char *why)
{
	if (count)
		ci_warnings_add(&src->warnings,
				"%s: %llu program header%s ignored (the first is number %llu): %s",
				src->name, (unsigned long long)count, count == 1 ? "" : "s",
				(unsigned long long)first, why);
}

/* What the ELF header of a core says of its program headers. */
struct elf_core {
	uint16_t machine;
	uint64_t phoff;
	uint64_t usable;          /* program headers the file holds (all of them unless truncated) */
	bool section_headers;     /* more than one section header: gcore writes them */
};

/* The ELF header of SRC's image: a 64-bit little-endian core of a machine this reader knows,
 * with a program header table that starts in the file (a table cut short is a warning). */
static struct ci_error *read_elf_header(struct ci_source *src, struct elf_core *ret)
{
	struct ci_bytes b = ci_bytes_make(src->image, src->image_size);
	uint8_t ident[EI_NIDENT];
	if (!ci_bytes_copy(&b, ident, sizeof ident))
		return ci_error_create(CI_ERR_FORMAT, "%s is too short to be an ELF core (%zu bytes)",
				       src->name, src->image_size);
	if (ident[EI_CLASS] == ELFCLASS32)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is a 32-bit ELF file; cudainspect reads cores of 64-bit processes "
				       "(x86-64, aarch64) only", src->name);
	if (ident[EI_CLASS] != ELFCLASS64)
		return ci_error_create(CI_ERR_FORMAT, "%s has an invalid ELF class (%u); the file is damaged",
				       src->name, ident[EI_CLASS]);
	if (ident[EI_DATA] != ELFDATA2LSB)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is a big-endian ELF file; cudainspect reads little-endian cores "
				       "(x86-64, aarch64) only", src->name);
	uint16_t type, machine, phentsize, phnum16, shentsize, shnum;
	uint32_t version, flags;
	uint64_t entry, phoff, shoff;
	uint16_t ehsize, shstrndx;
	ci_bytes_u16(&b, &type);
	ci_bytes_u16(&b, &machine);
	ci_bytes_u32(&b, &version);
	ci_bytes_u64(&b, &entry);
	ci_bytes_u64(&b, &phoff);
	ci_bytes_u64(&b, &shoff);
	ci_bytes_u32(&b, &flags);
	ci_bytes_u16(&b, &ehsize);
	ci_bytes_u16(&b, &phentsize);
	ci_bytes_u16(&b, &phnum16);
	ci_bytes_u16(&b, &shentsize);
	ci_bytes_u16(&b, &shnum);
	ci_bytes_u16(&b, &shstrndx);
	if (b.bad)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: the ELF header is cut short (%zu bytes); the core is truncated",
				       src->name, src->image_size);
	if (type == ET_EXEC || type == ET_DYN || type == ET_REL)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is an ELF %s, not a core dump; pass the core file the crash left "
				       "(see docs/USAGE.md for where cores go)",
				       src->name, type == ET_REL ? "object file" : "executable or shared library");
	if (type != ET_CORE)
		return ci_error_create(CI_ERR_FORMAT, "%s is an ELF file of type %u, not a core dump",
				       src->name, type);
	if (machine != EM_X86_64 && machine != EM_AARCH64)
		return ci_error_create(CI_ERR_FORMAT,
				       "%s is a core of a process for ELF machine %u; cudainspect reads x86-64 "
				       "and aarch64 cores", src->name, machine);
	if (phentsize != sizeof(Elf64_Phdr))
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: program header size is %u, not %zu; the core is damaged",
				       src->name, phentsize, sizeof(Elf64_Phdr));

	uint64_t phnum = phnum16;
	if (phnum16 == PN_XNUM) {
		/* More than 65534 headers: the real count is section header 0's sh_info. */
		struct ci_bytes sh = ci_bytes_make(src->image, src->image_size);
		uint32_t info32 = 0;
		if (shentsize == sizeof(Elf64_Shdr) && ci_bytes_seek(&sh, shoff) &&
		    ci_bytes_skip(&sh, offsetof(Elf64_Shdr, sh_info)) && ci_bytes_u32(&sh, &info32))
			phnum = info32;
		else
			return ci_error_create(CI_ERR_CORRUPT,
					       "%s: e_phnum is PN_XNUM but section header 0 with the real count "
					       "is missing; the core is damaged or truncated", src->name);
	}
	if (phnum > CI_MAX_SEGMENTS)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s claims %llu program headers (more than %u); the core is damaged",
				       src->name, (unsigned long long)phnum, CI_MAX_SEGMENTS);
	uint64_t table_end;
	if (!ci_mul(phnum, sizeof(Elf64_Phdr), &table_end) || !ci_add(table_end, phoff, &table_end))
		return ci_error_create(CI_ERR_CORRUPT, "%s: program header table offset 0x%llx is invalid",
				       src->name, (unsigned long long)phoff);
	if (phoff > src->image_size)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s: the program headers start at 0x%llx, past the end of the file "
				       "(size 0x%zx); the core is truncated",
				       src->name, (unsigned long long)phoff, src->image_size);
	uint64_t usable = phnum;
	if (table_end > src->image_size) {
		usable = (src->image_size - phoff) / sizeof(Elf64_Phdr);
		src->info.truncated = true;
		ci_warnings_add(&src->warnings,
				"%s: only %llu of %llu program headers are in the file (it ends at 0x%zx); "
				"the core is truncated and memory described by the rest is missing",
				src->name, (unsigned long long)usable, (unsigned long long)phnum,
				src->image_size);
	}
	/* gcore writes section headers (note0, load, .shstrtab); the kernel writes none, or only
	 * header 0 when it needs PN_XNUM. */
	*ret = (struct elf_core){ .machine = machine, .phoff = phoff, .usable = usable,
				  .section_headers = shnum > 1 && shoff };
	return NULL;
}

/* The note segments of a core, as its program headers place them. */
struct note_segs {
	struct { uint64_t off, len, align; } *v;
	size_t n, cap;
};

/* Program headers that are ignored are counted, and named once: a hostile file has millions. */
struct header_damage {
	uint64_t bad_range, wrapping, notes_cut, first_bad, first_wrap;
	uint64_t missing, missing_segs, described_end; /* PT_LOAD bytes past the end of the file */
};

/* Program header I: a PT_LOAD becomes a segment, a PT_NOTE is kept in NOTES for later. */
static struct ci_error *take_program_header(struct ci_source *src, struct ci_bytes *ph, uint64_t i,
					    struct header_damage *hd, struct note_segs *notes)
{
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
	ci_bytes_u32(ph, &p_type);
	ci_bytes_u32(ph, &p_flags);
	ci_bytes_u64(ph, &p_offset);
	ci_bytes_u64(ph, &p_vaddr);
	ci_bytes_u64(ph, &p_paddr);
	ci_bytes_u64(ph, &p_filesz);
	ci_bytes_u64(ph, &p_memsz);
	ci_bytes_u64(ph, &p_align);
	uint64_t file_end, vend;
	if (!ci_add(p_offset, p_filesz, &file_end)) {
		if (hd->bad_range++ == 0)
			hd->first_bad = i;
		return NULL;
	}
	if (file_end > hd->described_end)
		hd->described_end = file_end;
	uint64_t captured = p_filesz;
	if (p_offset >= src->image_size)
		captured = 0;
	else if (file_end > src->image_size)
		captured = src->image_size - p_offset;
	if (p_type == PT_LOAD) {
		if (p_memsz == 0)
			return NULL;
		if (!ci_add(p_vaddr, p_memsz, &vend)) {
			if (hd->wrapping++ == 0)
				hd->first_wrap = i;
			return NULL;
		}
		if (captured > p_memsz)
			captured = p_memsz;
		if (captured < p_filesz && captured < p_memsz) {
			hd->missing += (p_filesz < p_memsz ? p_filesz : p_memsz) - captured;
			hd->missing_segs++;
		}
		struct ci_segment seg = {
			.start = p_vaddr, .end = vend, .offset = p_offset, .captured = captured,
			.flags = p_flags, .index = (uint32_t)i,
		};
		return ci_source_add_segment(src, &seg);
	}
	if (p_type != PT_NOTE)
		return NULL;
	if (captured < p_filesz) {
		src->info.truncated = true;
		if (hd->notes_cut++ == 0)
			ci_warnings_add(&src->warnings,
					"%s: the notes (program header %llu) end past the end of "
					"the file; threads, signal and mappings may be incomplete",
					src->name, (unsigned long long)i);
	}
	if (ci_vec_reserve((void **)&notes->v, &notes->cap, notes->n + 1, sizeof(*notes->v)))
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", src->name);
	notes->v[notes->n].off = captured ? p_offset : 0;
	notes->v[notes->n].len = captured;
	notes->v[notes->n].align = p_align == 8 ? 8 : 4;
	notes->n++;
	return NULL;
}

/* The program headers of core EC: its segments, sorted, and its note segments; one warning per
 * kind of damage. */
static struct ci_error *read_program_headers(struct ci_source *src, const struct elf_core *ec,
					     struct note_segs *notes)
{
	struct header_damage hd = { 0 };
	struct ci_error *err = NULL;
	struct ci_bytes ph = ci_bytes_make(src->image, src->image_size);
	ci_bytes_seek(&ph, ec->phoff);
	for (uint64_t i = 0; i < ec->usable && !err; i++)
		err = take_program_header(src, &ph, i, &hd, notes);
	warn_ignored_headers(src, hd.bad_range, hd.first_bad, "their file range is impossible");
	warn_ignored_headers(src, hd.wrapping, hd.first_wrap, "they wrap around the address space");
	if (hd.missing) {
		char have[32], lost[32];
		src->info.truncated = true;
		ci_warnings_add(&src->warnings,
				"%s is truncated: the file ends at %s but its program headers describe data up "
				"to 0x%llx; %s of memory in %llu segments is missing and reads there report "
				"\"not captured\"",
				src->name, ci_fmt_size(src->image_size, have, sizeof have),
				(unsigned long long)hd.described_end, ci_fmt_size(hd.missing, lost, sizeof lost),
				(unsigned long long)hd.missing_segs);
	}
	if (!err)
		ci_source_sort_segments(src);
	return err;
}

/* What the notes say of the process: threads, signal, mappings, pid and thread names, the
 * executable. */
static struct ci_error *read_process(struct core_parse *cp, const struct note_segs *notes)
{
	struct ci_source *src = cp->src;
	struct ci_error *err = NULL;
	for (size_t i = 0; i < notes->n && !err; i++) {
		struct ci_bytes b = ci_bytes_make(src->image + notes->v[i].off, notes->v[i].len);
		err = parse_notes(cp, b, notes->v[i].align);
	}
	if (err)
		return err;
	if (!notes->n)
		ci_warnings_add(&src->warnings,
				"%s has no notes: no threads, signal or file mappings are known", src->name);
	/* qemu-user's cores have neither (a kernel's and gdb's have both): say what that costs. */
	else if (!cp->have_file || !cp->have_siginfo)
		ci_warnings_add(&src->warnings, "%s has no %s%s%s note (as in the cores qemu-user "
				"writes)%s%s", src->name, cp->have_file ? "" : "NT_FILE",
				!cp->have_file && !cp->have_siginfo ? " and no " : "",
				cp->have_siginfo ? "" : "NT_SIGINFO",
				cp->have_file ? "" : ": the files come from the record's module table "
				"or the executable's path",
				cp->have_siginfo ? "" : "; the signal is the one NT_PRSTATUS names, and "
				"its sender and fault address are unknown");
	src->info.kind = cp->gcore ? CI_SOURCE_GCORE : CI_SOURCE_CORE;
	core_pick_signal(cp);
	if (!src->info.pid && src->info.thread_count)
		src->info.pid = src->info.threads[0].tid;
	for (size_t i = 0; i < src->info.thread_count; i++)
		if (src->info.threads[i].tid == src->info.pid) {
			memcpy(src->info.threads[i].name, cp->fname, 15);
			src->info.threads[i].name[15] = 0;
		}
	return core_guess_executable(cp);
}

struct ci_error *ci_source_load_core(struct ci_source *src)
{
	struct elf_core ec;
	struct ci_error *err = read_elf_header(src, &ec);
	if (err)
		return err;
	src->machine = ec.machine;
	struct note_segs notes = { 0 };
	struct core_parse cp = { .src = src, .machine = ec.machine, .gcore = ec.section_headers };
	err = read_program_headers(src, &ec, &notes);
	if (!err)
		err = read_process(&cp, &notes);
	free(notes.v);
	free(cp.sigs);
	if (err)
		return err;

	/* A libelf handle for libdwfl, which takes the machine from it; the parse above never
	 * depends on it.  Over our own mapping, so that the SIGBUS guard covers it too. */
	elf_version(EV_CURRENT);
	src->elf = elf_memory((char *)src->image, src->image_size);
	if (!src->elf)
		ci_warnings_add(&src->warnings, "%s: libelf cannot open the core (%s); host backtraces "
				"will be unavailable", src->name, elf_errmsg(-1));
	return NULL;
}
