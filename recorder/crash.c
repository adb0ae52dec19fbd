/* SPDX-License-Identifier: MIT */
/*
 * Getting the record out of a dying process, and keeping it right across fork.
 *
 * A fatal signal the program does not handle itself (signals.c decides) comes here once: the
 * header notes it (state SIGNALED, fatal_*) and a snapshot file is written if configured.
 * Everything that path does is async-signal-safe: atomic stores, clock_gettime, nanosleep,
 * the system calls of safefile.c, write/lseek/ftruncate/close, memcpy, and static buffers.
 *
 * Snapshots (CUDAINSPECT_SNAPSHOT: on a fatal signal, on the first sticky CUDA error, at exit)
 * copy the region into <dir>/<stem>-<reason>.cisnap (safefile.h: created unnamed or under a
 * random name, exclusively, mode 0600, named when complete without replacing anything; the
 * stem names host, pid and start time, docs/FORMAT.md "Files").  Other threads may still be
 * recording while the copy is made, so entries are copied one by one as a reader of a live
 * process does: an entry whose seq changed during the copy is written with seq = CI_SEQ_BUSY,
 * which every reader rejects as torn; the header and section directory are copied last, so
 * that each head covers every entry copied.  The file is sparse (blocks of zeros are holes).
 *
 * fork: the child must not write into the parent's record (the mapping is shared).  The child
 * adds one CI_EV_FORK event to the parent's record, unmaps it and starts its own record on its
 * first CUDA call (header flag CI_HDR_FORKED_CHILD).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder.h"
#include "safefile.h"

static bool ci_atfork_installed;
/* atomic: 0, the tid of the thread noting the first fatal signal, or CI_FATAL_DONE */
static int ci_in_fatal;
#define CI_FATAL_DONE (-1)
enum { CI_STICKY_NONE, CI_STICKY_BUSY, CI_STICKY_DONE };
static int ci_sticky_state; /* atomic: the first sticky error, being handled, handled */
/* Longest wait for another thread's GDB registration (only a debugger makes it slow: it stops
 * the process to read each object, and the plugin decodes the record). */
#define CI_JIT_WAIT_MS 5000
static int ci_snapshot_busy; /* atomic: tid of the thread writing a snapshot, 0 if none */

/* The snapshot directory and the file names' stem, set when the record is created (no
 * formatting in a signal handler). */
static char ci_snap_dir[PATH_MAX];
static char ci_snap_stem[CI_SF_NAME_MAX];
static uint8_t ci_snap_buf[1 << 16] __attribute__((aligned(64)));
/* The last hang snapshot: its name in ci_snap_dir and the file it was, so that removing it
 * (ci_snapshot_remove_hang) never removes another file put at that name since.  Only the NCCL
 * watchdog thread writes hang snapshots. */
static char ci_hang_name[CI_SF_NAME_MAX];
static dev_t ci_hang_dev;
static ino_t ci_hang_ino;

/* ---------------------------------------------------------------------------------------- */
/* Async-signal-safe helpers                                                                  */

static size_t ci_strlcat(char *dst, const char *src, size_t size)
{
	size_t n = strlen(dst);
	while (*src && n + 1 < size)
		dst[n++] = *src++;
	dst[n] = 0;
	return n;
}

static bool ci_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		len -= (size_t)w;
	}
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Snapshots                                                                                  */

static bool ci_is_byte_area(uint32_t kind)
{
	return kind == CI_SEC_FRAMES || kind == CI_SEC_STRINGS || kind == CI_SEC_BREADCRUMBS ||
	       kind == CI_SEC_SYMBOL_IMAGE;
}

/* Copy one entry of N bytes (a multiple of 8) as a live reader does: accept it only if its
 * seq did not change while the words were read. */
static void ci_copy_entry(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	const uint64_t *s = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;
	uint64_t seq = __atomic_load_n(&s[0], __ATOMIC_ACQUIRE);
	for (uint32_t i = 1; i < n / 8; i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	d[0] = __atomic_load_n(&s[0], __ATOMIC_RELAXED) == seq ? seq : CI_SEQ_BUSY;
}

/* Snapshot files are sparse: a block of zeros (most of a young record: rings not yet wrapped,
 * empty tables, unused string and frame space) is skipped with lseek and stays a hole, and
 * ftruncate gives the file its full size at the end.  Bytes go through this sink, which decides
 * block by block (file offsets, CI_SNAP_BLOCK-aligned). */
#define CI_SNAP_BLOCK 4096u

struct ci_sink {
	int fd;
	uint64_t pos;    /* file offset of the block being assembled (or of the next byte) */
	uint64_t fd_pos; /* the descriptor's offset */
	uint32_t fill;   /* bytes of that block in ci_snap_block */
	bool ok;
};
static uint8_t ci_snap_block[CI_SNAP_BLOCK] __attribute__((aligned(64)));

static bool ci_all_zero(const uint8_t *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		if (w)
			return false;
	}
	for (; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Write N bytes (whole blocks, or the last bytes of the file) at the sink's position: runs of
 * blocks that are not all zero in one write each, zero blocks skipped. */
static void ci_sink_emit(struct ci_sink *s, const uint8_t *p, size_t n)
{
	while (s->ok && n) {
		size_t run = 0, b = n < CI_SNAP_BLOCK ? n : CI_SNAP_BLOCK;
		if (ci_all_zero(p, b)) {
			s->pos += b;
			p += b;
			n -= b;
			continue;
		}
		do {
			run += b;
			b = n - run < CI_SNAP_BLOCK ? n - run : CI_SNAP_BLOCK;
		} while (b && !ci_all_zero(p + run, b));
		if (s->fd_pos != s->pos && lseek(s->fd, (off_t)s->pos, SEEK_SET) < 0)
			s->ok = false;
		else if (!ci_write_all(s->fd, p, run))
			s->ok = false;
		s->pos += run;
		s->fd_pos = s->pos;
		p += run;
		n -= run;
	}
}

/* N bytes of zeros at the sink's position without reading anything: the block being assembled
 * is completed with zeros, whole blocks become holes, a partial last block starts zeroed. */
static void ci_sink_zeros(struct ci_sink *s, uint64_t n)
{
	if (!s->ok || !n)
		return;
	if (s->fill) {
		uint32_t k = CI_SNAP_BLOCK - s->fill < n ? CI_SNAP_BLOCK - s->fill : (uint32_t)n;
		memset(ci_snap_block + s->fill, 0, k);
		s->fill += k;
		n -= k;
		if (s->fill < CI_SNAP_BLOCK)
			return;
		s->fill = 0;
		ci_sink_emit(s, ci_snap_block, CI_SNAP_BLOCK);
	}
	s->pos += n / CI_SNAP_BLOCK * CI_SNAP_BLOCK;
	s->fill = (uint32_t)(n % CI_SNAP_BLOCK);
	memset(ci_snap_block, 0, s->fill);
}

static void ci_sink_put(struct ci_sink *s, const uint8_t *p, size_t n)
{
	while (s->ok && n) {
		if (!s->fill && n >= CI_SNAP_BLOCK) {
			size_t whole = n / CI_SNAP_BLOCK * CI_SNAP_BLOCK;
			ci_sink_emit(s, p, whole);
			p += whole;
			n -= whole;
			continue;
		}
		size_t k = CI_SNAP_BLOCK - s->fill < n ? CI_SNAP_BLOCK - s->fill : n;
		memcpy(ci_snap_block + s->fill, p, k);
		s->fill += (uint32_t)k;
		p += k;
		n -= k;
		if (s->fill == CI_SNAP_BLOCK) {
			s->fill = 0;
			ci_sink_emit(s, ci_snap_block, CI_SNAP_BLOCK);
		}
	}
}

/* Byte areas filled from the start, whose head says how far (strings and frames are appended;
 * the kernel log too): the snapshot copies them up to their head and leaves the rest a hole. */
static bool ci_is_appended_area(uint32_t kind)
{
	return kind == CI_SEC_FRAMES || kind == CI_SEC_STRINGS || kind == CI_SEC_KERNEL_LOG;
}

/* The entries of each section that were ever claimed, read once before the copy: a table's or
 * a ring's slots past its head (before a ring wraps) and an appended area's bytes past its head
 * were never written, so the snapshot leaves them as holes without reading them (a 1 GiB record
 * is mostly such slots, and reading them would make the kernel give the record zeroed pages),
 * and its directory says no more than was copied.  The allocation table (a hash table), the
 * breadcrumbs and the byte areas in between are copied whole. */
static uint64_t ci_snap_used[CI_REC_SECTION_MAX]; /* entries; UINT64_MAX: the whole section */

static void ci_snapshot_used(void)
{
	for (int k = 1; k < CI_REC_SECTION_MAX; k++) {
		const struct ci_sec *s = &ci_rec.sec[k];
		ci_snap_used[k] = UINT64_MAX;
		if (!s->dir || k == CI_SEC_ALLOCS ||
		    (!ci_is_appended_area(k) &&
		     (ci_is_byte_area(k) || s->entry_size < 8 || s->entry_size % 8)))
			continue;
		uint64_t head = __atomic_load_n(&s->dir->head, __ATOMIC_ACQUIRE);
		if (head < s->capacity)
			ci_snap_used[k] = head;
	}
}

/* Bytes [from, to) of the region into the sink, entry by entry inside sections with seq
 * entries (their never-claimed slots as holes); the symbol image as a hole (GDB's view of the
 * allocations, laid out up front for every slot: 40 % of a 1 GiB record, and only of use in
 * the process or its core, never read from a snapshot); other bytes (byte areas, gaps) as they
 * are. */
static void ci_snapshot_range(struct ci_sink *sink, uint64_t from, uint64_t to)
{
	const uint8_t *base = ci_rec.base;
	const struct ci_sec *img = &ci_rec.sec[CI_SEC_SYMBOL_IMAGE];
	uint64_t img_lo = img->dir ? (uint64_t)(img->base - base) : to;
	uint64_t img_hi = img->dir ? img_lo + img->capacity * img->entry_size : to;
	if (img->dir && from < img_lo && to > img_lo) {
		ci_snapshot_range(sink, from, img_lo);
		ci_sink_zeros(sink, (img_hi < to ? img_hi : to) - img_lo);
		if (img_hi < to)
			ci_snapshot_range(sink, img_hi, to);
		return;
	}
	while (sink->ok && from < to) {
		/* The section (with entries, or appended) containing FROM, if any. */
		const struct ci_sec *in = NULL, *area = NULL;
		uint64_t next = to;
		for (int k = 1; k < CI_REC_SECTION_MAX; k++) {
			const struct ci_sec *s = &ci_rec.sec[k];
			bool appended = ci_is_appended_area(k) && ci_snap_used[k] != UINT64_MAX;
			if (!s->dir || (!appended && (ci_is_byte_area(k) || s->entry_size < 8 ||
						       s->entry_size % 8)))
				continue;
			uint64_t lo = (uint64_t)(s->base - base), hi = lo + s->capacity * s->entry_size;
			if (from >= lo && from < hi)
				*(appended ? &area : &in) = s;
			else if (lo > from && lo < next)
				next = lo;
		}
		if (area) {
			/* Its bytes up to the head as they are, the rest a hole. */
			uint64_t lo = (uint64_t)(area->base - base);
			uint64_t hi = lo + area->capacity * area->entry_size;
			uint64_t used = lo + ci_snap_used[area - ci_rec.sec] * area->entry_size;
			hi = hi < to ? hi : to;
			used = used < hi ? used : hi;
			if (from < used) {
				ci_sink_put(sink, base + from, used - from);
				from = used;
			}
			ci_sink_zeros(sink, hi - from);
			from = hi;
		} else if (in) {
			uint64_t lo = (uint64_t)(in->base - base);
			uint64_t hi = lo + in->capacity * in->entry_size;
			uint64_t used = ci_snap_used[in - ci_rec.sec];
			if (used != UINT64_MAX && from >= lo + used * in->entry_size) {
				ci_sink_zeros(sink, hi - from);
				from = hi;
				continue;
			}
			if (used != UINT64_MAX)
				hi = lo + used * in->entry_size;
			uint64_t per = sizeof ci_snap_buf / in->entry_size;
			uint64_t first = (from - lo) / in->entry_size;
			uint64_t count = (hi - from) / in->entry_size;
			if (count > per)
				count = per;
			if (in == &ci_rec.sec[CI_SEC_ALLOCS]) {
				/* The hash table: slots never written stay holes, unread. */
				for (uint64_t i = 0; i < count; i++) {
					if (!ci_alloc_slot_written(first + i)) {
						ci_sink_zeros(sink, in->entry_size);
						continue;
					}
					ci_copy_entry(ci_snap_buf, in->base + (first + i) * in->entry_size,
						      in->entry_size);
					ci_sink_put(sink, ci_snap_buf, in->entry_size);
				}
				from += count * in->entry_size;
				continue;
			}
			for (uint64_t i = 0; i < count; i++)
				ci_copy_entry(ci_snap_buf + i * in->entry_size,
					      in->base + (first + i) * in->entry_size, in->entry_size);
			ci_sink_put(sink, ci_snap_buf, count * in->entry_size);
			from += count * in->entry_size;
		} else {
			ci_sink_put(sink, base + from, next - from);
			from = next;
		}
	}
}

/* The whole snapshot into FD.  The header and the section directory go last: each section's
 * `head` is then read after its entries were copied, so it counts every entry the copy holds (an
 * entry published during the copy is either in the file under a head that covers it, or not in
 * the file at all) - never "newer than head", which readers must treat as torn. */
static bool ci_snapshot_fd(int fd, enum ci_snapshot_reason reason)
{
	const struct ci_header *live = ci_rec.hdr;
	uint64_t meta = live->section_dir_offset +
			(uint64_t)live->section_count * live->section_entry_size;
	if (meta > sizeof ci_snap_buf || meta % 8 || meta > ci_rec.size)
		return false;
	struct ci_sink sink = { .fd = fd, .pos = meta / CI_SNAP_BLOCK * CI_SNAP_BLOCK,
				.fill = meta % CI_SNAP_BLOCK, .ok = true };
	memset(ci_snap_block, 0, sink.fill); /* rewritten by the header below */
	ci_snapshot_used();
	ci_snapshot_range(&sink, meta, ci_rec.size);
	if (sink.ok && sink.fill)
		ci_sink_emit(&sink, ci_snap_block, sink.fill);
	if (!sink.ok || ftruncate(fd, (off_t)ci_rec.size) != 0)
		return false;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	struct ci_header *h = (struct ci_header *)ci_snap_buf;
	memcpy(h, live, sizeof *h);
	const uint64_t *dir = (const uint64_t *)(ci_rec.base + live->section_dir_offset);
	uint64_t *out = (uint64_t *)(ci_snap_buf + live->section_dir_offset);
	for (uint64_t i = 0; i < (meta - live->section_dir_offset) / 8; i++)
		out[i] = __atomic_load_n(&dir[i], __ATOMIC_RELAXED);
	/* A section copied only up to the head read before the copy says that head: a slot claimed
	 * since is not in the file. */
	for (uint32_t i = 0; i < live->section_count; i++) {
		struct ci_section sec;
		uint8_t *at = ci_snap_buf + live->section_dir_offset + (uint64_t)i * live->section_entry_size;
		memcpy(&sec, at, sizeof sec);
		if (sec.kind > 0 && sec.kind < CI_REC_SECTION_MAX && ci_snap_used[sec.kind] != UINT64_MAX &&
		    sec.head > ci_snap_used[sec.kind]) {
			sec.head = ci_snap_used[sec.kind];
			memcpy(at, &sec, sizeof sec);
		}
	}
	h->origin = CI_ORIGIN_SNAPSHOT;
	h->snapshot_reason = reason;
	h->snapshot_monotonic_ns = ci_now();
	h->write_generation = __atomic_add_fetch(&ci_rec.hdr->write_generation, 1, __ATOMIC_RELAXED);
	return lseek(fd, 0, SEEK_SET) == 0 && ci_write_all(fd, ci_snap_buf, meta);
}

static const char *ci_reason_word(enum ci_snapshot_reason r)
{
	switch (r) {
	case CI_SNAP_SIGNAL: return "signal";
	case CI_SNAP_STICKY_ERROR: return "error";
	case CI_SNAP_EXIT: return "exit";
	case CI_SNAP_REQUEST: return "request";
	case CI_SNAP_HANG: return "hang";
	default: return "snapshot";
	}
}

/* Take the snapshot writer's slot.  A fatal signal waits (up to 5 s) for another thread's
 * snapshot to finish, so that the process does not die with half a file and no signal
 * snapshot; anything else gives up at once. */
static bool ci_snapshot_enter(bool wait)
{
	int me = (int)syscall(SYS_gettid);
	for (int i = 0; i < 5000; i++) {
		int expected = 0;
		if (__atomic_compare_exchange_n(&ci_snapshot_busy, &expected, me, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		if (!wait || expected == me)
			return false;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return false;
}

static bool ci_snapshot_write_waiting(enum ci_snapshot_reason reason, bool wait)
{
	if (!ci_rec.base || !ci_snap_stem[0] || !ci_snapshot_enter(wait))
		return false;
	int saved = errno;
	char tail[32] = "-";
	ci_strlcat(tail, ci_reason_word(reason), sizeof tail);
	ci_strlcat(tail, CI_SNAPSHOT_SUFFIX, sizeof tail);

	bool ok = false;
	struct ci_sf f = { .fd = -1 };
	/* Opened each time: a descriptor kept open would be the program's to see (and close). */
	int dirfd = ci_sf_open_dir(ci_snap_dir);
	if (dirfd >= 0 && ci_sf_create(&f, dirfd, ci_snap_stem, tail)) {
		if (!ci_snapshot_fd(f.fd, reason)) {
			ci_sf_discard(&f);
		} else if (ci_sf_publish(&f, ci_snap_stem, tail)) {
			struct stat st;
			bool known = reason == CI_SNAP_HANG && fstat(f.fd, &st) == 0;
			ok = close(f.fd) == 0;
			if (!ok) /* a late write error (network file systems): not a whole file */
				unlinkat(dirfd, f.name, 0);
			else if (known) {
				ci_hang_name[0] = 0;
				ci_strlcat(ci_hang_name, f.name, sizeof ci_hang_name);
				ci_hang_dev = st.st_dev;
				ci_hang_ino = st.st_ino;
			}
		}
	}
	bool not_dir = !ok && (errno == ENOTDIR || errno == ELOOP);
	if (dirfd >= 0)
		close(dirfd);
	/* Static (the writer's slot is held): a signal handler may run on a small stack. */
	static char where[PATH_MAX + CI_SF_NAME_MAX];
	where[0] = 0;
	ci_strlcat(where, ci_snap_dir, sizeof where);
	ci_strlcat(where, "/", sizeof where);
	ci_strlcat(where, f.name, sizeof where);
	if (ok)
		ci_say_parts("flight record written to ", where, NULL);
	else
		ci_say_parts("could not write a flight record snapshot into ", ci_snap_dir,
			     not_dir ? " (not a directory: a symbolic link is not followed)" : NULL);
	errno = saved;
	__atomic_store_n(&ci_snapshot_busy, 0, __ATOMIC_RELEASE);
	return ok;
}

/* Outside signal handlers: bring the module table up to date first. */
bool ci_snapshot_write(enum ci_snapshot_reason reason)
{
	ci_modules_refresh(true);
	return ci_snapshot_write_waiting(reason, false);
}

bool ci_snapshot_remove_hang(char *name, size_t size)
{
	if (!ci_hang_name[0])
		return false;
	int dirfd = ci_sf_open_dir(ci_snap_dir);
	struct stat st;
	bool ok = dirfd >= 0 && fstatat(dirfd, ci_hang_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		  st.st_dev == ci_hang_dev && st.st_ino == ci_hang_ino &&
		  unlinkat(dirfd, ci_hang_name, 0) == 0;
	if (dirfd >= 0)
		close(dirfd);
	snprintf(name, size, "%s/%s", ci_snap_dir, ci_hang_name);
	ci_hang_name[0] = 0;
	return ok;
}

static void ci_snapshot_prepare(void)
{
	const char *dir = ci_cfg.snapshot_dir[0] ? ci_cfg.snapshot_dir
			  : ci_cfg.dir[0]	   ? ci_cfg.dir
						   : ".";
	snprintf(ci_snap_dir, sizeof ci_snap_dir, "%s", dir);
	ci_sf_record_stem(ci_snap_stem, sizeof ci_snap_stem, ci_rec.hdr->host, ci_rec.hdr->pid,
			  ci_rec.hdr->start_realtime_ns);
	if (!ci_cfg.snapshot_mask)
		return;
	/* Better to hear it now than to find no file after the crash. */
	int dirfd = ci_sf_open_dir(dir);
	if (dirfd < 0 && (errno == ENOTDIR || errno == ELOOP))
		ci_say("snapshots cannot be written to %s (not a directory; a symbolic link is not "
		       "followed: name its target); set CUDAINSPECT_SNAPSHOT_DIR to a writable "
		       "directory", dir);
	else if (dirfd < 0 || access(dir, W_OK | X_OK) != 0)
		ci_say("snapshots cannot be written to %s (%s); set CUDAINSPECT_SNAPSHOT_DIR to a "
		       "writable directory", dir, strerror(errno));
	if (dirfd >= 0)
		close(dirfd);
}

bool ci_sticky_claim(void)
{
	int expected = CI_STICKY_NONE;
	return __atomic_compare_exchange_n(&ci_sticky_state, &expected, CI_STICKY_BUSY, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* The thread that claimed the first sticky error: the clocks and the kernel log's lines
 * (klog.c), then GDB (the record, whose registration
 * makes the plugin print the summary, and the symbol image as it is now), then the snapshot. */
void ci_sticky_error_seen(void)
{
	ci_klog_at_sticky();
	ci_jit_refresh(true, CI_JIT_WAIT_MS);
	__atomic_store_n(&ci_sticky_state, CI_STICKY_DONE, __ATOMIC_RELEASE);
	if (ci_cfg.snapshot_mask & 1u << CI_SNAP_STICKY_ERROR)
		ci_snapshot_write(CI_SNAP_STICKY_ERROR);
}

/* Any other thread returning an error meanwhile: an engine aborts on it, and a debugger would
 * stop the process with the registration half done.  Microseconds without a debugger. */
void ci_sticky_wait(void)
{
	for (int i = 0; __atomic_load_n(&ci_sticky_state, __ATOMIC_ACQUIRE) == CI_STICKY_BUSY; i++) {
		if (i < 1000) {
			CI_PAUSE();
			continue;
		}
		if (i >= 1000 + CI_JIT_WAIT_MS)
			break;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Fatal signals (signals.c decides which are)                                                */

void ci_fatal_record(int sig, const siginfo_t *info)
{
	int me = (int)syscall(SYS_gettid);
	int expected = 0;
	if (ci_rec.base && __atomic_compare_exchange_n(&ci_in_fatal, &expected, me, false,
						       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		struct ci_header *h = ci_rec.hdr;
		__atomic_store_n(&h->fatal_signal, sig, __ATOMIC_RELAXED);
		__atomic_store_n(&h->fatal_tid, (uint32_t)me, __ATOMIC_RELAXED);
		__atomic_store_n(&h->fatal_si_code, info ? info->si_code : 0, __ATOMIC_RELAXED);
		/* si_addr only for a fault the kernel sent (for kill and raise that field holds
		 * the sender's pid and uid). */
		if (info && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
		    (info->si_code > 0 || info->si_code == SI_KERNEL))
			__atomic_store_n(&h->fatal_addr, (uint64_t)(uintptr_t)info->si_addr,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&h->end_monotonic_ns, ci_now(), __ATOMIC_RELAXED);
		__atomic_store_n(&h->state, CI_STATE_SIGNALED, __ATOMIC_RELEASE);
		/* The symbol image as it is now (the record's summary was shown at the sticky
		 * error, if any; a debugger stops on the signal before this handler runs). */
		ci_jit_refresh(false, CI_JIT_WAIT_MS);
		if (ci_cfg.snapshot_mask & 1u << CI_SNAP_SIGNAL)
			ci_snapshot_write_waiting(CI_SNAP_SIGNAL, true);
		__atomic_store_n(&ci_in_fatal, CI_FATAL_DONE, __ATOMIC_RELEASE);
	} else if (expected > 0 && expected != me) {
		/* Another thread is already dying and writing the record out: do not kill the
		 * process under it (bounded, in case that thread is stuck). */
		for (int i = 0; i < 10000 && __atomic_load_n(&ci_in_fatal, __ATOMIC_ACQUIRE) > 0; i++) {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
		}
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Exit and fork                                                                              */

__attribute__((destructor)) static void ci_at_exit(void)
{
	if (!ci_rec.base || !ci_on())
		return;
	struct ci_header *h = ci_rec.hdr;
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == CI_STATE_LIVE) {
		__atomic_store_n(&h->end_monotonic_ns, ci_now(), __ATOMIC_RELAXED);
		__atomic_store_n(&h->state, CI_STATE_EXITED, __ATOMIC_RELEASE);
	}
	if (ci_cfg.snapshot_mask & 1u << CI_SNAP_EXIT)
		ci_snapshot_write(CI_SNAP_EXIT);
}

static void ci_fork_child(void)
{
	if (ci_rec.base) {
		/* One last entry in the parent's record, then let go of it. */
		uint64_t seq;
		struct ci_event *e = ci_ring_claim(CI_SEC_EVENTS, &seq);
		if (e) {
			e->time_ns = ci_now();
			e->duration_ns = 0;
			e->a = (uint64_t)getppid();
			e->b = 0;
			e->value = (uint64_t)getpid();
			e->kind = CI_EV_FORK;
			e->tid = (uint32_t)syscall(SYS_gettid);
			e->stream = CI_NONE;
			e->ctx = CI_NONE;
			e->result = 0;
			e->stack = 0;
			ci_entry_publish(&e->seq, seq);
		}
		ci_jit_forget();
		ci_record_forget();
	}
	ci_modules_forget();
	ci_crumbs_forget();
	ci_graphs_forget();
	ci_in_fatal = 0;
	ci_sticky_state = CI_STICKY_NONE;
	ci_snapshot_busy = 0;
	ci_captures_active = 0;
	ci_doors_after_fork_child();
}

void ci_crash_install(void)
{
	ci_snapshot_prepare();
	if (!ci_atfork_installed) {
		ci_atfork_installed = true;
		pthread_atfork(NULL, NULL, ci_fork_child);
	}
	if (ci_cfg.signals)
		ci_signals_install();
}
