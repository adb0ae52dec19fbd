/* SPDX-License-Identifier: MIT */
/*
 * Stage 2, locate: where the flight record starts in the source's address space.  In order:
 * the memfd's name in NT_FILE or /proc/PID/maps ("/memfd:cudainspect-record", or a persistent
 * ".cirec" file mapped in place of it), the recorder's exported `cudainspect_record` pointer
 * (symbol from the library file on disk, value from the core), and a scan of page starts for the
 * magic whose header must also be plausible.  Several records (a fork child keeps its parent's
 * mapping) are ranked: the one written by the core's own pid wins and the others are named in a
 * warning.  A record that is there but whose header is damaged makes the input corrupt
 * (CI_ERR_CORRUPT, exit 3), not one without a record (exit 4).  Record files and buffers are the
 * record itself.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>

#include "source.h"

#define SCAN_PAGE 4096u
#define DELETED_SUFFIX " (deleted)"
#define RECORDER_LIB "libcudainspect-rec"
/* Files opened to look the record's symbol up, at most. */
#define LOCATE_SYMBOL_TRIES 16u

bool ci_header_plausible(const struct ci_header *h, const char **why)
{
	uint64_t dir_size, dir_end;
	if (memcmp(h->magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) != 0)
		*why = "the record magic is missing";
	else if (h->major != CI_FORMAT_MAJOR)
		/* Another major may lay out everything differently: the version is all we judge. */
		return h->major != 0 && h->major < 1000 ? true : (*why = "the format version is 0 or absurd", false);
	else if (h->header_size < sizeof(struct ci_header) || h->header_size > CI_MAX_HEADER_SIZE)
		*why = "the header size is impossible";
	else if (h->page_size < 4096 || h->page_size > (1u << 30) || (h->page_size & (h->page_size - 1)))
		*why = "the page size is not a power of two between 4 KiB and 1 GiB";
	else if (h->record_size < h->header_size || h->record_size > CI_MAX_RECORD_SIZE ||
		 h->record_size % h->page_size)
		*why = "the record size is impossible (too small, too large, or not a multiple of the page size)";
	else if (h->section_count > CI_MAX_SECTIONS)
		*why = "the section directory has too many entries";
	else if (h->section_entry_size < sizeof(struct ci_section) || h->section_entry_size > CI_MAX_ENTRY_SIZE)
		*why = "the section directory entry size is impossible";
	else if (!ci_mul(h->section_count, h->section_entry_size, &dir_size) ||
		 !ci_add(h->section_dir_offset, dir_size, &dir_end) ||
		 h->section_dir_offset < h->header_size || dir_end > h->record_size)
		*why = "the section directory lies outside the record or over the header";
	else
		return true;
	return false;
}

struct candidate {
	uint64_t addr;
	enum ci_locate_method method;
	struct ci_header header;
	bool base_matches;        /* header.record_base == addr */
};

struct locate {
	struct ci_source *src;
	struct candidate cands[CI_MAX_CANDIDATES];
	size_t count;
	/* The first record found whose header is not plausible (the memfd, the symbol's target, or a
	 * page that starts with the magic and agrees with the format in most fields): the input is
	 * corrupt, not without a record. */
	struct candidate damaged;
	const char *damaged_why;
	size_t damaged_count;
	/* Why each method found nothing, for the final message. */
	char nt_file_note[384];
	char symbol_note[384];
	bool recorder_seen;       /* a mapping named like the record, or the recorder library */
};

static const char *kind_word(const struct ci_source *src)
{
	return src->info.kind == CI_SOURCE_PID ? "its memory map" : "the core's file list (NT_FILE)";
}

static bool magic_is_zero(const struct ci_header *h)
{
	static const char zeros[CI_RECORD_MAGIC_LEN];
	return memcmp(h->magic, zeros, CI_RECORD_MAGIC_LEN) == 0;
}

/* A page found by the scan starts with the magic but its header is not plausible: a damaged
 * record, or eight bytes that happen to match (a string "CUDAINSPECT_…" in the environment)?
 * A damaged header still agrees with the format in most other fields; text and random bytes
 * agree with almost none. */
static bool scan_hit_is_record(const struct ci_header *h, uint32_t pid)
{
	int agree = (h->major == CI_FORMAT_MAJOR) + (h->minor < 1000) +
		    (h->header_size >= sizeof *h && h->header_size <= CI_MAX_HEADER_SIZE) +
		    (h->page_size >= 4096 && h->page_size <= (1u << 30) &&
		     (h->page_size & (h->page_size - 1)) == 0) +
		    (h->record_size && h->record_size % 4096 == 0 && h->record_size <= CI_MAX_RECORD_SIZE) +
		    (h->section_count >= 1 && h->section_count <= CI_MAX_SECTIONS) +
		    (h->section_entry_size >= sizeof(struct ci_section) &&
		     h->section_entry_size <= CI_MAX_ENTRY_SIZE) +
		    (pid && h->pid == pid);
	return agree >= 4;
}

/* Remember a header that was found but is not plausible, if it is evidence of a damaged record.
 * On a memfd named like the record, a magic of zeros is a recorder still setting up (it writes
 * the magic last): no record yet, not a damaged one, and *WHY says so. */
static void note_damaged(struct locate *lc, uint64_t addr, enum ci_locate_method method,
			 const struct ci_header *h, const char **why)
{
	if (method == CI_LOCATE_NT_FILE && magic_is_zero(h)) {
		*why = "its header has no magic yet: the recorder had not finished creating the record";
		return;
	}
	if (method == CI_LOCATE_SCAN && !scan_hit_is_record(h, lc->src->info.pid))
		return;
	if (lc->damaged_count && lc->damaged.addr == addr)
		return;
	if (lc->damaged_count++ == 0) {
		lc->damaged = (struct candidate){ .addr = addr, .method = method, .header = *h };
		lc->damaged_why = *why;
	}
}

/* What is wrong with the damaged record, for messages: the reason and the header's numbers (or
 * its first bytes when the magic is wrong, since then nothing else in it means anything). */
static void describe_damage(const struct locate *lc, char *buf, size_t n)
{
	const struct ci_header *h = &lc->damaged.header;
	if (memcmp(h->magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) != 0) {
		const uint8_t *b = (const uint8_t *)h->magic;
		snprintf(buf, n, "it starts with %02x %02x %02x %02x %02x %02x %02x %02x, not the magic \"%s\"",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], CI_RECORD_MAGIC);
		return;
	}
	snprintf(buf, n, "%s (format %u.%u, header %u bytes, page size %u, record size 0x%llx, %u "
		 "sections of %u bytes at 0x%llx)", lc->damaged_why, h->major, h->minor, h->header_size,
		 h->page_size, (unsigned long long)h->record_size, h->section_count,
		 h->section_entry_size, (unsigned long long)h->section_dir_offset);
}

/* Where the damaged record is, for messages: "0x… (where /memfd:… (deleted) is mapped)". */
static void damage_origin(const struct locate *lc, char *buf, size_t n)
{
	const struct ci_source_info *info = &lc->src->info;
	uint64_t addr = lc->damaged.addr;
	if (lc->damaged.method == CI_LOCATE_NT_FILE)
		for (size_t i = 0; i < info->mapping_count; i++)
			if (info->mappings[i].start == addr && info->mappings[i].file_offset == 0) {
				snprintf(buf, n, "0x%llx (where %s is mapped)", (unsigned long long)addr,
					 info->mappings[i].path);
				return;
			}
	snprintf(buf, n, "0x%llx (%s)", (unsigned long long)addr,
		 lc->damaged.method == CI_LOCATE_SYMBOL ? "where " CI_RECORD_SYMBOL " points"
		 : lc->damaged.method == CI_LOCATE_SCAN ? "a page that starts with the record magic"
							 : "named like the record");
}

/* Read and check the header at ADDR; add it as a candidate if it is plausible.  Returns false
 * with *why set when it is not. */
static bool try_candidate(struct locate *lc, uint64_t addr, enum ci_locate_method method,
			  const char **why)
{
	for (size_t i = 0; i < lc->count; i++)
		if (lc->cands[i].addr == addr)
			return true;
	struct ci_header h;
	if (ci_source_read_quiet(lc->src, addr, &h, sizeof h) != CI_READ_OK) {
		const struct ci_segment *seg = ci_source_segment(lc->src, addr);
		*why = seg && seg->captured < seg->end - seg->start && lc->src->info.truncated &&
				       seg->offset + seg->captured >= lc->src->image_size
			       ? "it lies past the end of the truncated core"
			       : "its first page is not in the input";
		return false;
	}
	if (!ci_header_plausible(&h, why)) {
		note_damaged(lc, addr, method, &h, why);
		return false;
	}
	if (lc->count == CI_MAX_CANDIDATES)
		return true;
	lc->cands[lc->count++] = (struct candidate){
		.addr = addr, .method = method, .header = h, .base_matches = h.record_base == addr,
	};
	return true;
}

static bool path_has_prefix(const char *path, const char *prefix)
{
	return strncmp(path, prefix, strlen(prefix)) == 0;
}

/* "/x/y/cudainspect-h-1.cirec (deleted)" -> true for the persistent-file suffix. */
static bool path_is_persistent(const char *path)
{
	size_t n = strlen(path), s = strlen(CI_PERSISTENT_SUFFIX), d = strlen(DELETED_SUFFIX);
	if (n >= d && strcmp(path + n - d, DELETED_SUFFIX) == 0)
		n -= d;
	return n >= s && memcmp(path + n - s, CI_PERSISTENT_SUFFIX, s) == 0;
}

static void locate_by_name(struct locate *lc)
{
	const struct ci_source_info *info = &lc->src->info;
	size_t named = 0;
	for (size_t i = 0; i < info->mapping_count; i++) {
		const struct ci_mapping *m = &info->mappings[i];
		bool memfd = path_has_prefix(m->path, "/memfd:" CI_MEMFD_NAME);
		if ((!memfd && !path_is_persistent(m->path)) || m->file_offset != 0)
			continue;
		named++;
		lc->recorder_seen = true;
		const char *why = NULL;
		if (!try_candidate(lc, m->start, CI_LOCATE_NT_FILE, &why))
			snprintf(lc->nt_file_note, sizeof lc->nt_file_note,
				 "%s maps %s at 0x%llx, but %s%s", kind_word(lc->src), m->path,
				 (unsigned long long)m->start, why,
				 memfd && strcmp(why, "its first page is not in the input") == 0
					 ? " (was bit 1 of /proc/PID/coredump_filter cleared?)"
				 : !memfd ? "; a persistent record file is not dumped into cores by default "
					    "(coredump_filter bit 3): run cudainspect on the .cirec file itself"
					  : "");
	}
	if (!named)
		snprintf(lc->nt_file_note, sizeof lc->nt_file_note, "%s has no /memfd:%s mapping%s",
			 kind_word(lc->src), CI_MEMFD_NAME,
			 info->mapping_count || info->kind == CI_SOURCE_PID ? "" : " (the core has no NT_FILE note)");
}

/* The value of SYMBOL in the ELF file at PATH and the page-truncated p_vaddr of the PT_LOAD that
 * maps file offset FILE_OFFSET, so that the run-time address is
 * symbol + (mapping start - that vaddr). */
static bool elf_symbol_and_base(const char *path, const char *symbol, uint64_t file_offset,
				uint64_t *value, uint64_t *seg_vaddr, const char **why)
{
	/* The path comes from the core: never block on a FIFO or open a device. */
	_cleanup_close_ int fd = ci_open_regular(path, NULL);
	if (fd < 0) {
		*why = errno == ENOENT ? "the file is no longer on disk"
		       : errno == EINVAL ? "it is not a regular file"
					 : "the file cannot be opened";
		return false;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		if (elf)
			elf_end(elf);
		*why = "the file is not a 64-bit ELF object";
		return false;
	}
	bool found_sym = false, found_seg = false;
	size_t phnum = 0;
	if (elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && !found_seg; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_offset & ~(uint64_t)(SCAN_PAGE - 1)) == file_offset) {
				*seg_vaddr = ph.p_vaddr & ~(uint64_t)(SCAN_PAGE - 1);
				found_seg = true;
			}
		}
	}
	for (Elf_Scn *scn = NULL; !found_sym && (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = data->d_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && strcmp(name, symbol) == 0) {
				*value = sym.st_value;
				found_sym = true;
				break;
			}
		}
	}
	elf_end(elf);
	if (!found_sym)
		*why = "the file does not define " CI_RECORD_SYMBOL;
	else if (!found_seg)
		*why = "the file's program headers do not match its mapping";
	return found_sym && found_seg;
}

static void locate_by_symbol(struct locate *lc)
{
	const struct ci_source_info *info = &lc->src->info;
	bool tried = false;
	unsigned tries = 0;
	for (size_t pass = 0; pass < 2 && !lc->count; pass++) {
		for (size_t i = 0; i < info->mapping_count && !lc->count; i++) {
			const struct ci_mapping *m = &info->mappings[i];
			const char *base = strrchr(m->path, '/');
			base = base ? base + 1 : m->path;
			/* Pass 0: the recorder library; pass 1: the executable (recorder linked in). */
			bool wanted = pass == 0 ? path_has_prefix(base, RECORDER_LIB)
						: info->executable && strcmp(m->path, info->executable) == 0;
			if (!wanted || m->file_offset != 0)
				continue;
			/* A file list can name the recorder a million times: a few tries tell. */
			if (tries++ == LOCATE_SYMBOL_TRIES)
				break;
			tried = tried || pass == 0;
			lc->recorder_seen = lc->recorder_seen || pass == 0;
			char path[4096];
			snprintf(path, sizeof path, "%s", m->path);
			size_t n = strlen(path), d = strlen(DELETED_SUFFIX);
			if (n > d && strcmp(path + n - d, DELETED_SUFFIX) == 0)
				path[n - d] = 0;
			uint64_t value = 0, seg_vaddr = 0;
			const char *why = NULL;
			if (!elf_symbol_and_base(path, CI_RECORD_SYMBOL, 0, &value, &seg_vaddr, &why)) {
				if (pass == 0)
					snprintf(lc->symbol_note, sizeof lc->symbol_note,
						 "the recorder %s is mapped, but %s", path, why);
				continue;
			}
			uint64_t where = m->start - seg_vaddr + value, ptr = 0;
			if (ci_source_read_quiet(lc->src, where, &ptr, sizeof ptr) != CI_READ_OK) {
				if (pass == 0)
					snprintf(lc->symbol_note, sizeof lc->symbol_note,
						 "the recorder %s is mapped, but its %s variable at 0x%llx is "
						 "not in the input", path, CI_RECORD_SYMBOL, (unsigned long long)where);
				continue;
			}
			if (ptr == 0) {
				snprintf(lc->symbol_note, sizeof lc->symbol_note,
					 "%s is loaded but had not created its record yet (%s is 0): the "
					 "process may have died before its first CUDA call",
					 path, CI_RECORD_SYMBOL);
				continue;
			}
			if (!try_candidate(lc, ptr, CI_LOCATE_SYMBOL, &why))
				snprintf(lc->symbol_note, sizeof lc->symbol_note,
					 "%s points to 0x%llx, but %s", CI_RECORD_SYMBOL,
					 (unsigned long long)ptr, why);
		}
	}
	if (!tried && !*lc->symbol_note)
		snprintf(lc->symbol_note, sizeof lc->symbol_note, "no %s.so is loaded", RECORDER_LIB);
}

static void scan_segment(struct locate *lc, const struct ci_segment *seg, uint64_t *done,
			 uint64_t total)
{
	struct ci_source *src = lc->src;
	uint64_t first = (seg->start + SCAN_PAGE - 1) & ~(uint64_t)(SCAN_PAGE - 1);
	if (first < seg->start || first >= seg->start + seg->captured)
		return;
	uint64_t pages = (seg->start + seg->captured - first) / SCAN_PAGE;
	const char *why;
	if (src->info.kind == CI_SOURCE_PID) {
		enum { CHUNK = 4096 };
		uint64_t heads[CHUNK];
		for (uint64_t p = 0; p < pages && lc->count < CI_MAX_CANDIDATES;) {
			size_t n = pages - p < CHUNK ? (size_t)(pages - p) : CHUNK;
			size_t got = ci_source_pid_page_heads(src, first + p * SCAN_PAGE, SCAN_PAGE, n, heads);
			for (size_t i = 0; i < got; i++)
				if (memcmp(&heads[i], CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0)
					try_candidate(lc, first + (p + i) * SCAN_PAGE, CI_LOCATE_SCAN, &why);
			p += got < n ? got + 1 : n; /* skip an unreadable page */
			*done += (uint64_t)n * SCAN_PAGE;
			ci_progress(src, "searching for the record in", *done, total);
		}
		return;
	}
	const uint8_t *base = src->image + seg->offset + (first - seg->start);
	for (uint64_t p = 0; p < pages && lc->count < CI_MAX_CANDIDATES; p++) {
		if (memcmp(base + p * SCAN_PAGE, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0)
			try_candidate(lc, first + p * SCAN_PAGE, CI_LOCATE_SCAN, &why);
		if ((p & 0xffff) == 0xffff) {
			*done += 0x10000ull * SCAN_PAGE;
			ci_progress(src, "searching for the record in", *done, total);
		}
	}
	*done += (pages & 0xffff) * SCAN_PAGE;
}

/* A live process may map terabytes it never touched (ASan's shadow, reserved arenas); reading
 * those page by page would take hours, so its larger mappings only have their first page
 * checked.  A core holds only what was dumped, so it is scanned whole. */
#define LIVE_SCAN_SEGMENT_MAX (16ull << 30)

static bool scan_whole(const struct ci_source *src, const struct ci_segment *seg)
{
	return src->info.kind != CI_SOURCE_PID || seg->captured <= LIVE_SCAN_SEGMENT_MAX;
}

static void locate_by_scan(struct locate *lc)
{
	struct ci_source *src = lc->src;
	uint64_t total = 0, done = 0, skipped = 0;
	const char *why;
	/* The record is its own mapping, so it usually starts one: first pages first (cheap). */
	for (size_t i = 0; i < src->seg_count && lc->count < CI_MAX_CANDIDATES; i++) {
		const struct ci_segment *seg = &src->segs[i];
		uint64_t head = 0;
		if (seg->captured >= sizeof(struct ci_header) && !(seg->start & (SCAN_PAGE - 1))) {
			if (ci_source_read_quiet(src, seg->start, &head, sizeof head) == CI_READ_OK &&
			    memcmp(&head, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0)
				try_candidate(lc, seg->start, CI_LOCATE_SCAN, &why);
		}
		if (scan_whole(src, seg))
			total += seg->captured;
		else
			skipped += seg->captured;
	}
	/* Then every page start (anonymous mappings merge, so a record may sit inside one),
	 * writable segments first, everything else only if that found nothing. */
	for (int writable = 1; writable >= 0 && !lc->count; writable--)
		for (size_t i = 0; i < src->seg_count && lc->count < CI_MAX_CANDIDATES; i++)
			if (((src->segs[i].flags & PF_W) != 0) == writable && scan_whole(src, &src->segs[i]))
				scan_segment(lc, &src->segs[i], &done, total);
	ci_progress(src, "searching", 0, 0);
	if (!lc->count && skipped) {
		char size[32];
		ci_warnings_add(&src->warnings,
				"%s: %s of mappings larger than 16 GiB were not searched page by page for the "
				"record (only their first page); if the record is there, search a core instead "
				"(gcore PID)", src->name, ci_fmt_size(skipped, size, sizeof size));
	}
}

/* Rank: written by this process, header agrees with where it was found, earlier method. */
static int candidate_rank(const struct candidate *c, uint32_t pid)
{
	return (pid && c->header.pid == pid ? 0 : 4) + (c->base_matches ? 0 : 2);
}

static struct ci_error *locate_choose(struct locate *lc, struct ci_location *ret)
{
	struct ci_source *src = lc->src;
	uint32_t pid = src->info.pid;
	size_t best = 0;
	for (size_t i = 1; i < lc->count; i++)
		if (candidate_rank(&lc->cands[i], pid) < candidate_rank(&lc->cands[best], pid))
			best = i;
	const struct candidate *c = &lc->cands[best];
	for (size_t i = 0; i < lc->count; i++) {
		if (i == best)
			continue;
		ci_warnings_add(&src->warnings,
				"%s holds another flight record at 0x%llx, written by pid %u%s; using the "
				"one at 0x%llx written by pid %u",
				src->name, (unsigned long long)lc->cands[i].addr, lc->cands[i].header.pid,
				lc->cands[i].header.flags & CI_HDR_FORKED_CHILD ? " (in a fork child)"
				: lc->cands[i].header.pid != pid ? " (inherited across fork()?)" : "",
				(unsigned long long)c->addr, c->header.pid);
	}
	if (pid && c->header.pid != pid && src->info.kind != CI_SOURCE_RECORD)
		ci_warnings_add(&src->warnings,
				"the flight record at 0x%llx was written by pid %u, but this is process %u: "
				"it was inherited across fork() and describes the parent's CUDA calls",
				(unsigned long long)c->addr, c->header.pid, pid);
	if (!c->base_matches && c->method == CI_LOCATE_SCAN)
		ci_warnings_add(&src->warnings,
				"the flight record at 0x%llx says it was created at 0x%llx; it may be a "
				"copy (e.g. a snapshot read into memory) rather than the live record",
				(unsigned long long)c->addr, (unsigned long long)c->header.record_base);
	uint64_t size = c->header.record_size;
	uint64_t avail = ci_source_available(src, c->addr, size);
	*ret = (struct ci_location){ .address = c->addr, .size = avail, .method = c->method };
	return NULL;
}

struct ci_error *ci_locate(struct ci_source *src, struct ci_location *ret)
{
	struct ci_header h;
	if (src->info.kind == CI_SOURCE_RECORD || src->info.kind == CI_SOURCE_BUFFER) {
		uint64_t start = src->seg_count ? src->segs[0].start : 0;
		if (src->image_size >= CI_RECORD_MAGIC_LEN &&
		    memcmp(src->image, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0) {
			/* The input is the record: decode judges the header. */
			uint64_t size = src->image_size;
			if (src->image_size >= sizeof h) {
				memcpy(&h, src->image, sizeof h);
				if (h.record_size < size)
					size = h.record_size;
			}
			*ret = (struct ci_location){
				.address = start, .size = size,
				.method = src->info.kind == CI_SOURCE_RECORD ? CI_LOCATE_FILE : CI_LOCATE_BUFFER,
			};
			return NULL;
		}
	}
	struct locate *lc = calloc(1, sizeof *lc);
	if (!lc)
		return ci_error_create(CI_ERR_NOMEM, "out of memory locating the record in %s", src->name);
	lc->src = src;
	if (src->info.kind != CI_SOURCE_BUFFER) {
		locate_by_name(lc);
		if (!lc->count)
			locate_by_symbol(lc);
	}
	if (!lc->count)
		locate_by_scan(lc);
	struct ci_error *err;
	char origin[4200], damage[384];
	if (lc->damaged_count) {
		damage_origin(lc, origin, sizeof origin);
		describe_damage(lc, damage, sizeof damage);
	}
	if (lc->count) {
		err = locate_choose(lc, ret);
		if (!err && lc->damaged_count)
			ci_warnings_add(&src->warnings,
					"%s: the flight record at %s has a corrupt header: %s; ignored%s",
					src->name, origin, damage,
					lc->damaged_count > 1 ? ", and so are the other damaged ones" : "");
	} else if (lc->damaged_count) {
		err = ci_error_create(CI_ERR_CORRUPT,
				      "%s: the flight record at %s has a corrupt header: %s. Nothing in the "
				      "record can be trusted; if the recorder wrote a snapshot (.cisnap) at "
				      "the crash, read that instead",
				      src->name, origin, damage);
	} else if (src->info.kind == CI_SOURCE_BUFFER) {
		err = ci_error_create(CI_ERR_NO_RECORD,
				      "the buffer does not hold a cudainspect flight record (no page starts "
				      "with the magic \"%s\" and a plausible header)", CI_RECORD_MAGIC);
	} else {
		char was[32], is[32], shrank[160] = "";
		ci_source_check_shrink(src);
		if (src->shrink_seen)
			snprintf(shrank, sizeof shrank,
				 "The file shrank from %s to %s while it was read (a core still being "
				 "written, or cut meanwhile): read it again once it is complete",
				 ci_fmt_size(src->image_size, was, sizeof was),
				 ci_fmt_size(src->shrunk_to, is, sizeof is));
		err = ci_error_create(CI_ERR_NO_RECORD,
				      "%s holds no cudainspect flight record: %s; %s; and no page starts with "
				      "a valid record header. %s",
				      src->name, lc->nt_file_note, lc->symbol_note,
				      *shrank ? shrank
				      : src->info.truncated
					      ? "The core is truncated, which may be why: get a complete core "
						"(check the disk space and the core size limit, ulimit -c)"
					      : lc->recorder_seen
					      ? "The program did run under the recorder"
					      : "Was the program run under the recorder (cudainspect record -- CMD, "
						"or LD_PRELOAD=libcudainspect-rec.so)?");
	}
	free(lc);
	return err;
}
