/* SPDX-License-Identifier: MIT */
/*
 * Stage 1, source: one memory reader over whatever the user gave us.  This file is the source
 * object and the reads every later stage goes through: a sorted index of segments over an mmap
 * of the file, where bytes past p_filesz or past the end of a truncated file are "not captured"
 * and never read as zeros, guarded against the file shrinking under the mapping; a live
 * process's memory is read through the reader its opener set (source_pid.c).  Opening and telling
 * the kinds of input apart is open.c's; the ELF parser is in source_elf.c, zstd in
 * source_zstd.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "source.h"

struct ci_error *ci_source_new(enum ci_source_kind kind, const char *name,
			       const struct ci_source_options *opts, struct ci_source **ret)
{
	struct ci_source *src = calloc(1, sizeof *src);
	if (!src)
		return ci_error_create(CI_ERR_NOMEM, "out of memory opening %s", name);
	src->name = strdup(name);
	if (!src->name) {
		free(src);
		return ci_error_create(CI_ERR_NOMEM, "out of memory opening %s", name);
	}
	src->info.kind = kind;
	src->fd = -1;
	src->refs = 1;
	src->mem_fd = -1;
	src->guard = -1;
	if (opts)
		src->opts = *opts;
	src->max_decompressed = src->opts.max_core_size ? src->opts.max_core_size
							 : CI_DEFAULT_MAX_CORE_SIZE;
	*ret = src;
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening only regular files                                                                 */

const char *ci_file_kind(unsigned mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a pipe (FIFO)";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return "not a regular file";
}

int ci_open_regular(const char *path, unsigned *mode_ret)
{
	if (mode_ret)
		*mode_ret = 0;
	/* O_PATH resolves the name without opening the file: a FIFO does not wait for a writer
	 * and a device's driver is not called. */
	int pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	struct stat st, st2;
	if (fstat(pfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISREG(st.st_mode) ? errno : EINVAL;
		if (mode_ret && e == EINVAL)
			*mode_ret = st.st_mode;
		close(pfd);
		errno = e;
		return -1;
	}
	/* Reopening the O_PATH descriptor opens the very inode checked above. */
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
	int fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		/* No /proc: the path again, which O_NONBLOCK keeps from waiting on a FIFO swapped in
		 * meanwhile; the check below refuses anything that is not the same file. */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int e = errno;
	close(pfd);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, &st2) < 0 || !S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		if (mode_ret)
			*mode_ret = S_ISREG(st2.st_mode) ? st.st_mode : st2.st_mode;
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* ---------------------------------------------------------------------------------------- */
/* Mappings that shrink                                                                       */

/* A core still being written by a pipeline, or a file cut (truncate, a full disk in another
 * program) while it is read, loses the pages past its new end from our mapping, and touching
 * them raises SIGBUS.  Every mapped image is registered here; the handler puts a page of
 * zeros in place of the one that faulted and notes it, so that the read that faulted
 * completes, and the next read of the source (ci_source_check_shrink) shrinks the segments to
 * what the file still holds and warns: reads of the lost part then fail as not captured.  Any
 * other SIGBUS goes where it would have gone without us.  The handler is installed while at
 * least one image is mapped. */
#define GUARD_SLOTS 256

struct guard_slot {
	_Atomic uintptr_t start, end;  /* 0: free */
	_Atomic bool faulted;
};

static struct guard_slot guard_slots[GUARD_SLOTS];
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned guard_users;
static struct sigaction guard_previous;
static uintptr_t guard_page;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	for (size_t i = 0; si->si_code > 0 && i < GUARD_SLOTS; i++) {
		uintptr_t start = atomic_load(&guard_slots[i].start);
		if (!start || a < start || a >= atomic_load(&guard_slots[i].end))
			continue;
		void *page = (void *)(a & ~(guard_page - 1));
		if (mmap(page, guard_page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		    MAP_FAILED)
			break;
		atomic_store(&guard_slots[i].faulted, true);
		return;
	}
	/* Not ours: the previous handler, or the default action. */
	if ((guard_previous.sa_flags & SA_SIGINFO) && guard_previous.sa_sigaction) {
		guard_previous.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(guard_previous.sa_flags & SA_SIGINFO) && guard_previous.sa_handler != SIG_DFL &&
	    guard_previous.sa_handler != SIG_IGN) {
		guard_previous.sa_handler(sig);
		return;
	}
	if (si->si_code <= 0 && guard_previous.sa_handler == SIG_IGN)
		return; /* a SIGBUS sent with kill(), which was ignored before */
	/* The default action: a fault repeats when the instruction does, a sent signal is sent
	 * again. */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigaction(SIGBUS, &dfl, NULL);
	if (si->si_code <= 0)
		raise(SIGBUS);
}

static void guard_add(struct ci_source *src, const void *p, size_t len)
{
	pthread_mutex_lock(&guard_lock);
	for (int i = 0; i < GUARD_SLOTS; i++) {
		if (atomic_load(&guard_slots[i].start))
			continue;
		if (guard_users++ == 0) {
			guard_page = (uintptr_t)sysconf(_SC_PAGESIZE);
			struct sigaction sa = { .sa_sigaction = guard_handler,
						.sa_flags = SA_SIGINFO | SA_ONSTACK };
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, &guard_previous);
		}
		atomic_store(&guard_slots[i].faulted, false);
		atomic_store(&guard_slots[i].end, (uintptr_t)p + len);
		atomic_store(&guard_slots[i].start, (uintptr_t)p);
		src->guard = i;
		break;
	}
	/* All slots taken (256 sources open at once): this one is read unguarded. */
	pthread_mutex_unlock(&guard_lock);
}

void ci_source_guard_remove(struct ci_source *src)
{
	if (src->guard < 0)
		return;
	pthread_mutex_lock(&guard_lock);
	atomic_store(&guard_slots[src->guard].start, 0);
	atomic_store(&guard_slots[src->guard].end, 0);
	src->guard = -1;
	if (--guard_users == 0) {
		/* Put back what was there, unless someone installed another handler since. */
		struct sigaction now;
		if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
		    now.sa_sigaction == guard_handler)
			sigaction(SIGBUS, &guard_previous, NULL);
	}
	pthread_mutex_unlock(&guard_lock);
}

/* Map SIZE bytes of FD read-only for SRC, guarded; NULL with errno on failure. */
void *ci_source_map(struct ci_source *src, int fd, size_t size, int flags)
{
	void *map = mmap(NULL, size, PROT_READ, flags, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	guard_add(src, map, size);
	return map;
}

bool ci_source_guard_faulted(const struct ci_source *src)
{
	return src->guard >= 0 && atomic_load(&guard_slots[src->guard].faulted);
}

void ci_source_check_shrink(const struct ci_source *csrc)
{
	if (csrc->guard < 0 || csrc->shrink_seen || !atomic_load(&guard_slots[csrc->guard].faulted))
		return;
	/* The one place a reader changes the source: what it holds really changed. */
	struct ci_source *src = (struct ci_source *)csrc;
	src->shrink_seen = true;
	struct stat st;
	uint64_t now = fstat(src->fd, &st) == 0 && st.st_size >= 0 ? (uint64_t)st.st_size : 0;
	if (now > src->image_size)
		now = src->image_size;
	src->shrunk_to = now;
	for (size_t i = 0; i < src->seg_count; i++) {
		struct ci_segment *seg = &src->segs[i];
		uint64_t have = seg->offset >= now ? 0 : now - seg->offset;
		if (seg->captured > have)
			seg->captured = have;
	}
	src->info.truncated = true;
	char was[32], is[32];
	ci_warnings_add(&src->warnings,
			"%s shrank from %s to %s while it was read (a core still being written, or a "
			"file cut meanwhile); what lay past the new end is missing, and what was read "
			"from it before this was noticed came out as zeros: read a complete copy of the "
			"core for a report you can trust",
			src->name, ci_fmt_size(src->image_size, was, sizeof was),
			ci_fmt_size(now, is, sizeof is));
}

/* ---------------------------------------------------------------------------------------- */

struct ci_source *ci_source_hold(struct ci_source *src)
{
	src->refs++;
	return src;
}

void ci_source_close(struct ci_source *src)
{
	if (!src)
		return;
	if (--src->refs > 0)
		return; /* a lazy model still reads from it */
	if (src->process)
		src->process->release(src);
	struct ci_source_info *info = &src->info;
	free(info->path);
	free(info->executable);
	free(info->psargs);
	free(info->threads);
	for (size_t i = 0; i < info->mapping_count; i++)
		free(info->mappings[i].path);
	free(info->mappings);
	ci_warnings_deinit(&src->warnings);
	free(src->segs);
	if (src->elf)
		elf_end(src->elf);
	ci_source_guard_remove(src);
	if (src->image_mapped)
		munmap((void *)src->image, src->image_size);
	free(src->owned_image);
	free(src->thread_regs);
	if (src->fd >= 0)
		close(src->fd);
	if (src->mem_fd >= 0)
		close(src->mem_fd);
	free(src->name);
	free(src);
}

const struct ci_source_info *ci_source_info(const struct ci_source *src) { return &src->info; }
struct ci_warnings *ci_source_warnings(struct ci_source *src)
{
	ci_source_check_shrink(src);
	return &src->warnings;
}
uint16_t ci_source_machine(const struct ci_source *src) { return src->machine; }

const uint64_t *ci_source_thread_regs(const struct ci_source *src, size_t i, size_t *nregs)
{
	*nregs = 0;
	if (!src->thread_regs || i >= src->info.thread_count)
		return NULL;
	*nregs = src->machine == EM_AARCH64 ? 34 : 27;
	return src->thread_regs[i];
}
struct Elf *ci_source_elf(const struct ci_source *src) { return src->elf; }
bool ci_source_is_live(const struct ci_source *src) { return src->live; }

int ci_source_fd(const struct ci_source *src)
{
	if (src->info.kind != CI_SOURCE_CORE && src->info.kind != CI_SOURCE_GCORE)
		return -1;
	return src->fd;
}

/* ---------------------------------------------------------------------------------------- */
/* Segments                                                                                   */

struct ci_error *ci_source_add_segment(struct ci_source *src, const struct ci_segment *seg)
{
	if (src->seg_count >= CI_MAX_SEGMENTS)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s has more than %u memory segments; refusing to index it",
				       src->name, CI_MAX_SEGMENTS);
	/* Grow by doubling; seg_count is bounded above, so the size cannot overflow. */
	if ((src->seg_count & (src->seg_count - 1)) == 0) {
		size_t cap = src->seg_count ? src->seg_count * 2 : 16;
		struct ci_segment *segs = realloc(src->segs, cap * sizeof *segs);
		if (!segs)
			return ci_error_create(CI_ERR_NOMEM, "out of memory indexing %s", src->name);
		src->segs = segs;
	}
	src->segs[src->seg_count++] = *seg;
	return NULL;
}

static int segment_cmp(const void *a, const void *b)
{
	const struct ci_segment *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void ci_source_sort_segments(struct ci_source *src)
{
	if (src->seg_count == 0)
		return;
	/* Kernels with core_sort_vma=1 write VMAs smallest first, and hostile files anything, so
	 * never rely on the file's order. */
	qsort(src->segs, src->seg_count, sizeof *src->segs, segment_cmp);
	/* A live process's maps can change between the chunks the kernel writes them in: that
	 * is no damage. */
	bool live = src->info.kind == CI_SOURCE_PID;
	const char *what = live ? "mapping" : "program header";
	size_t kept = 0, dropped = 0;
	for (size_t i = 0; i < src->seg_count; i++) {
		if (kept && src->segs[i].start < src->segs[kept - 1].end) {
			if (dropped++ == 0)
				ci_warnings_add(&src->warnings,
						"%s: %s %u (0x%llx-0x%llx) overlaps %s %u; ignoring the later "
						"one (%s)",
						src->name, what, src->segs[i].index,
						(unsigned long long)src->segs[i].start,
						(unsigned long long)src->segs[i].end, what,
						src->segs[kept - 1].index,
						live ? "the process mapped or unmapped memory while its maps "
						       "were read"
						     : "the core is damaged or was not written by Linux or gdb");
			continue;
		}
		src->segs[kept++] = src->segs[i];
	}
	if (dropped > 1)
		ci_warnings_add(&src->warnings, "%s: %zu overlapping %ss ignored in all", src->name,
				dropped, what);
	src->seg_count = kept;
}

const struct ci_segment *ci_source_segment(const struct ci_source *src, uint64_t addr)
{
	size_t lo = 0, hi = src->seg_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (src->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ci_segment *seg = &src->segs[lo - 1];
	return addr < seg->end ? seg : NULL;
}

const uint8_t *ci_source_peek(const struct ci_source *src, uint64_t addr, size_t len)
{
	if (!src->image)
		return NULL;
	ci_source_check_shrink(src);
	const struct ci_segment *seg = ci_source_segment(src, addr);
	if (!seg)
		return NULL;
	uint64_t off = addr - seg->start;
	if (!ci_range_ok(off, len, seg->captured))
		return NULL;
	/* captured was clipped to the image when the segment was indexed. */
	return src->image + seg->offset + off;
}

void ci_source_release(const struct ci_source *src, const uint8_t *p, size_t len)
{
	if (!src->image_mapped || p < src->image || p + len > src->image + src->image_size)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + len) & ~(page - 1);
	if (a < b)
		madvise((void *)a, b - a, MADV_DONTNEED); /* advice: a failure costs only memory */
}

void ci_source_release_behind(const struct ci_source *src, const uint8_t **released, const uint8_t *p)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const uint8_t *to = p - (uintptr_t)p % page;
	if (to <= *released)
		return;
	ci_source_release(src, *released - (uintptr_t)*released % page, (size_t)(to - *released) + (uintptr_t)*released % page);
	*released = to;
}

uint64_t ci_source_available(struct ci_source *src, uint64_t addr, uint64_t max)
{
	uint64_t got = 0;
	while (got < max) {
		const struct ci_segment *seg = ci_source_segment(src, addr);
		if (!seg)
			break;
		uint64_t off = addr - seg->start;
		if (off >= seg->captured)
			break;
		uint64_t n = seg->captured - off;
		if (n > max - got)
			n = max - got;
		got += n;
		addr += n;
		/* Continue only into a segment that starts exactly here. */
		if (off + n < seg->end - seg->start || addr == 0)
			break;
	}
	return got;
}

/* Where a read of an image source stopped: the address and its segment (NULL: in none). */
struct read_miss {
	uint64_t addr;
	const struct ci_segment *seg;
	uint64_t file_offset;     /* CI_READ_FAILED: where the file shrank under the copy */
};

/* Copy LEN bytes at ADDR of an image source into BUF, or say where it stopped. */
static enum ci_read image_read(struct ci_source *src, uint64_t addr, void *buf, size_t len,
			       struct read_miss *miss)
{
	ci_source_check_shrink(src);
	uint8_t *out = buf;
	uint64_t end;
	*miss = (struct read_miss){ addr, NULL, 0 };
	if (!ci_add(addr, len, &end))
		return CI_READ_UNAVAILABLE;
	while (len) {
		const struct ci_segment *seg = ci_source_segment(src, addr);
		uint64_t off = seg ? addr - seg->start : 0;
		if (!seg || off >= seg->captured) {
			*miss = (struct read_miss){ addr, seg, 0 };
			return CI_READ_UNAVAILABLE;
		}
		uint64_t n = seg->captured - off;
		if (n > len)
			n = len;
		/* A page that vanishes during this copy reads as zeros (the guard above); the
		 * check after it says so. */
		memcpy(out, src->image + seg->offset + off, n);
		if (src->guard >= 0 && atomic_load(&guard_slots[src->guard].faulted) &&
		    !src->shrink_seen) {
			ci_source_check_shrink(src);
			if (seg->offset + off + n > src->shrunk_to) {
				*miss = (struct read_miss){ addr, seg, seg->offset + off };
				return CI_READ_FAILED;
			}
		}
		out += n;
		addr += n;
		len -= n;
	}
	return CI_READ_OK;
}

enum ci_read ci_source_read_quiet(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	struct read_miss miss;
	if (src->process)
		return src->process->read_quiet(src, addr, buf, len);
	return image_read(src, addr, buf, len, &miss);
}

struct ci_error *ci_source_read(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	if (src->process)
		return src->process->read(src, addr, buf, len);
	/* The expected case costs no error object; only a miss is explained. */
	struct read_miss miss;
	enum ci_read r = image_read(src, addr, buf, len, &miss);
	const struct ci_segment *seg = miss.seg;
	if (r == CI_READ_OK)
		return NULL;
	if (r == CI_READ_FAILED)
		return ci_error_create(CI_ERR_IO,
				       "%s shrank while it was read: address 0x%llx lay at file offset "
				       "0x%llx, past its new end (0x%llx)", src->name,
				       (unsigned long long)miss.addr, (unsigned long long)miss.file_offset,
				       (unsigned long long)src->shrunk_to);
	if (miss.addr == addr && addr + len < addr)
		return ci_error_create(CI_ERR_UNAVAILABLE,
				       "%s: a read of %zu bytes at 0x%llx wraps around the address space",
				       src->name, len, (unsigned long long)addr);
	if (!seg)
		return ci_error_create(CI_ERR_UNAVAILABLE,
				       "%s: address 0x%llx is not in any memory segment of the input",
				       src->name, (unsigned long long)miss.addr);
	return ci_error_create(CI_ERR_UNAVAILABLE,
			       "%s: address 0x%llx is in memory the input does not contain (%s)",
			       src->name, (unsigned long long)miss.addr,
			       src->shrink_seen && seg->offset + seg->captured >= src->shrunk_to
				       ? "past the end of the file, which was truncated while it was read"
			       : seg->offset + seg->captured >= src->image_size &&
					       seg->captured < seg->end - seg->start
				       ? "past the end of a truncated file"
				       : "not dumped");
}

void ci_progress(struct ci_source *src, const char *what, uint64_t done, uint64_t total)
{
	if (!src->opts.progress)
		return;
	if (total == 0) {
		if (src->progress_ns)
			fputs("\r\033[K", stderr);
		src->progress_ns = 0;
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	/* At most five updates a second: progress must not cost more than the work. */
	if (src->progress_ns && now - src->progress_ns < 200000000u)
		return;
	src->progress_ns = now;
	fprintf(stderr, "\rcudainspect: %s %s: %3u%%", what, src->name,
		(unsigned)(done >= total ? 100 : done * 100 / total));
	fflush(stderr);
}
