/* SPDX-License-Identifier: MIT */
/*
 * The flight record's region: how a size becomes section capacities (ci_layout_compute), where
 * the bytes live (a memfd named CI_MEMFD_NAME so that kernel core dumps include it and name it
 * in NT_FILE, or a file under CUDAINSPECT_DIR that survives SIGKILL), the header, and the
 * generic claim/publish helpers every section uses.  docs/FORMAT.md describes the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder.h"
#include "safefile.h"
#include "symimage.h"

#ifndef CI_RECORDER_VERSION
#error "CI_RECORDER_VERSION is defined by recorder/build.mk"
#endif

struct ci_rec ci_rec CI_HIDDEN;
uint32_t ci_generation CI_HIDDEN CI_HOT = 1;
bool ci_forked_child CI_HIDDEN;

/* The region's address, for readers that find the recorder library but not the memfd (0 until
 * the record exists).  docs/FORMAT.md, "Locating". */
CI_EXPORT void *cudainspect_record;

/* ---------------------------------------------------------------------------------------- */
/* Layout                                                                                     */

/* Share of the record (per mille) and minimum capacity of each sized section. */
static const struct {
	uint32_t kind;
	uint32_t entry_size;
	uint32_t permille;
	uint32_t min;
} ci_shares[] = {
	{ CI_SEC_HOST_MODULES, sizeof(struct ci_host_module), 10, 64 },
	{ CI_SEC_DEVICES, sizeof(struct ci_device), 0, 64 },
	{ CI_SEC_CONTEXTS, sizeof(struct ci_context), 1, 64 },
	{ CI_SEC_STREAMS, sizeof(struct ci_stream), 20, 128 },
	{ CI_SEC_CODE_MODULES, sizeof(struct ci_code_module), 10, 32 },
	{ CI_SEC_FUNCTIONS, sizeof(struct ci_function), 50, 128 },
	{ CI_SEC_LAUNCHES, sizeof(struct ci_launch), 256, 256 }, /* 1.5: with graph launches' 6 */
	{ CI_SEC_ALLOCS, sizeof(struct ci_alloc), 220, 256 }, /* with their symbol image */
	{ CI_SEC_FREES, sizeof(struct ci_alloc), 60, 64 },   /* likewise */
	{ CI_SEC_ERRORS, sizeof(struct ci_api_error), 30, 64 },
	{ CI_SEC_EVENTS, sizeof(struct ci_event), 100, 256 },
	{ CI_SEC_STACKS, sizeof(struct ci_stack), 30, 256 },
	{ CI_SEC_FRAMES, 8, 120, 4096 },
	{ CI_SEC_STRINGS, 1, 50, 65536 },
	{ CI_SEC_GRAPHS, sizeof(struct ci_graph), 2, 64 }, /* before the breadcrumbs they use */
	{ CI_SEC_BREADCRUMBS, 8, 0, 0 },   /* one per stream slot, then one per graph slot */
	{ CI_SEC_THREADS, sizeof(struct ci_thread), 10, 64 },
	{ CI_SEC_GRAPH_NODES, sizeof(struct ci_graph_node), 20, 128 },
	{ CI_SEC_GRAPH_EXECS, sizeof(struct ci_graph_exec), 2, 64 },
	{ CI_SEC_GRAPH_LAUNCHES, sizeof(struct ci_graph_launch), 0, 1 }, /* 1.5: unused (launches) */
	{ CI_SEC_SYMBOL_IMAGE, 1, 0, 0 },  /* sized by the allocation table */
	{ CI_SEC_KERNEL_LOG, 1, 2, 4096 }, /* NVIDIA kernel-log lines (klog.c) */
	{ CI_SEC_PYTHON, sizeof(struct ci_python), 0, 1 },
	{ CI_SEC_PY_CODES, sizeof(struct ci_py_code), 3, 64 },
	/* 1.2: NCCL, the job and peer memory, in the 0.4 % the others leave. */
	{ CI_SEC_NCCL_COMMS, sizeof(struct ci_nccl_comm), 0, 64 },
	{ CI_SEC_NCCL_CALLS, sizeof(struct ci_nccl_call), 2, 128 },
	{ CI_SEC_JOB, sizeof(struct ci_job_var), 0, 64 },
	{ CI_SEC_PEER_MEMORY, sizeof(struct ci_peer_mem), 0, 64 },
	/* 1.3: which parts of the allocation table were ever written (memory.c). */
	{ CI_SEC_ALLOC_GRANULES, 1, 0, 0 },
};

static uint64_t ci_align(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* Allocation (or free ring) slots whose entries plus symbol image fit in BUDGET bytes. */
static uint64_t ci_alloc_capacity(uint64_t budget)
{
	uint64_t per_slot = sizeof(struct ci_alloc) + ci_symimage_size(65536) / 65536 + 1;
	uint64_t n = budget / per_slot;
	if (n > UINT32_MAX / 2)
		n = UINT32_MAX / 2;
	while (n > 256 && n * sizeof(struct ci_alloc) + ci_symimage_size((uint32_t)n) > budget)
		n -= n / 64 + 1;
	return n;
}

static bool ci_layout_try(uint64_t size, uint32_t page_size, uint32_t scale, struct ci_layout *l)
{
	memset(l, 0, sizeof *l);
	l->size = size;
	l->page_size = page_size;
	l->dir_offset = ci_align(sizeof(struct ci_header), CI_SECTION_ALIGN);
	l->count = sizeof ci_shares / sizeof ci_shares[0];
	uint64_t off = ci_align(l->dir_offset + l->count * sizeof(struct ci_section), page_size);
	uint64_t streams = 0, graphs = 0, allocs = 0, frees = 0;
	for (uint32_t i = 0; i < l->count; i++) {
		uint32_t kind = ci_shares[i].kind;
		uint64_t budget = size / 1000 * ci_shares[i].permille / 1000 * scale;
		uint64_t cap = ci_shares[i].entry_size ? budget / ci_shares[i].entry_size : 0;
		uint64_t align = CI_SECTION_ALIGN;
		if (kind == CI_SEC_ALLOCS || kind == CI_SEC_FREES)
			cap = ci_alloc_capacity(budget);
		if (cap < ci_shares[i].min)
			cap = ci_shares[i].min;
		if (kind == CI_SEC_STREAMS)
			cap &= ~1ull; /* streams take two slots each (objects.c) */
		if (kind == CI_SEC_BREADCRUMBS) {
			/* Registered with the driver on its own pages. */
			cap = ci_align((streams + graphs) * 8, page_size) / 8;
			align = page_size;
		}
		uint64_t bytes = cap * ci_shares[i].entry_size;
		if (kind == CI_SEC_ALLOC_GRANULES) {
			uint64_t granules = (allocs * sizeof(struct ci_alloc) + CI_ALLOC_GRANULE_BYTES - 1) /
					    CI_ALLOC_GRANULE_BYTES;
			cap = bytes = (granules + 7) / 8;
		}
		if (kind == CI_SEC_SYMBOL_IMAGE) {
			/* The live allocations' image, then the frees' (symfreed.c). */
			cap = bytes = ci_symimage_size((uint32_t)allocs) +
				     ci_symimage_size((uint32_t)frees);
			if (!bytes)
				continue;
		}
		if (kind == CI_SEC_STREAMS)
			streams = cap;
		if (kind == CI_SEC_GRAPHS)
			graphs = cap;
		if (kind == CI_SEC_ALLOCS)
			allocs = cap;
		if (kind == CI_SEC_FREES)
			frees = cap;
		off = ci_align(off, align);
		l->sec[i].kind = kind;
		l->sec[i].entry_size = ci_shares[i].entry_size;
		l->sec[i].offset = off;
		l->sec[i].capacity = cap;
		off += bytes;
		if (kind == CI_SEC_BREADCRUMBS)
			off = ci_align(off, page_size);
	}
	/* Drop the skipped (empty) entries so the directory has no holes. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < l->count; i++)
		if (l->sec[i].kind)
			l->sec[n++] = l->sec[i];
	l->count = n;
	return off <= size;
}

bool ci_layout_compute(uint64_t size, uint32_t page_size, struct ci_layout *out)
{
	if (!page_size || size < CI_SIZE_MIN || size % page_size)
		return false;
	/* The minimum capacities may not fit a small record at full share: shrink the shares
	 * until everything fits. */
	for (uint32_t scale = 1000; scale >= 100; scale -= 25)
		if (ci_layout_try(size, page_size, scale, out))
			return true;
	return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Claiming entries                                                                           */

uint32_t ci_table_claim_n(enum ci_section_kind kind, uint32_t n)
{
	struct ci_sec *s = &ci_rec.sec[kind];
	if (!s->dir)
		return CI_NONE;
	uint64_t head = __atomic_load_n(&s->dir->head, __ATOMIC_RELAXED);
	do {
		if (head + n > s->capacity || head + n >= CI_NONE) {
			ci_count_dropped(kind);
			return CI_NONE;
		}
	} while (!__atomic_compare_exchange_n(&s->dir->head, &head, head + n, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return (uint32_t)head;
}

uint32_t ci_table_claim(enum ci_section_kind kind)
{
	return ci_table_claim_n(kind, 1);
}

void *ci_ring_claim(enum ci_section_kind kind, uint64_t *seq)
{
	struct ci_sec *s = &ci_rec.sec[kind];
	if (!s->dir)
		return NULL;
	uint64_t idx = __atomic_fetch_add(&s->dir->head, 1, __ATOMIC_RELAXED);
	uint64_t *entry = (uint64_t *)(s->base + (idx % s->capacity) * s->entry_size);
	if (!ci_entry_begin(entry)) {
		ci_count_dropped(kind);
		return NULL;
	}
	*seq = idx + 1;
	return entry;
}

/* ---------------------------------------------------------------------------------------- */
/* Strings                                                                                    */

static uint64_t ci_string_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	/* Never 0 (empty map slot) nor all ones (tombstone). */
	return (h & ~(1ull << 63)) | 1;
}

static bool ci_string_at(uint32_t off, const char *s, size_t len)
{
	struct ci_sec *sec = ci_sec(CI_SEC_STRINGS);
	return off && off + len < sec->capacity && !memcmp(sec->base + off, s, len) &&
	       sec->base[off + len] == 0;
}

uint32_t ci_string(const char *s, size_t maxlen)
{
	struct ci_sec *sec = ci_sec(CI_SEC_STRINGS);
	if (!s || !*s || !sec->dir)
		return 0;
	size_t len = strnlen(s, maxlen);
	uint64_t h = ci_string_hash(s, len);
	struct ci_map_slot *slot;
	uint32_t found;
	bool mine = ci_map_claim(&ci_rec.string_map, h, &slot, &found);
	if (!mine && found != CI_NONE && ci_string_at(found, s, len))
		return found;
	uint64_t off = __atomic_fetch_add(&sec->dir->head, len + 1, __ATOMIC_RELAXED);
	uint32_t result = 0;
	if (off + len + 1 <= sec->capacity && off + len + 1 < CI_NONE) {
		memcpy(sec->base + off, s, len);
		sec->base[off + len] = 0;
		result = (uint32_t)off;
	} else {
		ci_count_dropped(CI_SEC_STRINGS);
	}
	if (mine)
		ci_map_publish(slot, result ? result : CI_NONE);
	return result;
}

/* ---------------------------------------------------------------------------------------- */
/* Creation                                                                                   */

bool ci_restricted CI_HIDDEN;

/* The process's clocks at the record's start: the persistent file's name carries the wall time,
 * and the header both (ci_record_describe_process). */
static uint64_t ci_start_realtime_ns, ci_start_monotonic_ns;

static uint64_t ci_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void ci_start_clocks(void)
{
	/* Both clocks as close together as possible, so a reader can convert record times. */
	uint64_t m1 = ci_clock(CLOCK_MONOTONIC);
	ci_start_realtime_ns = ci_clock(CLOCK_REALTIME);
	uint64_t m2 = ci_clock(CLOCK_MONOTONIC);
	ci_start_monotonic_ns = m1 + (m2 - m1) / 2;
	ci_klog_note_start();
}

/* Reserve SIZE bytes of blocks for FD; 0 or an errno.  posix_fallocate is the fallocate system
 * call; under a seccomp filter the recorder does what glibc does where that call is missing,
 * a one-byte write into every block (writing files is allowed wherever this one was made). */
static int ci_reserve_blocks(int fd, uint64_t size)
{
	if (!ci_restricted)
		return posix_fallocate(fd, 0, (off_t)size);
	struct stat st;
	uint64_t block = fstat(fd, &st) == 0 && st.st_blksize >= 512 ? (uint64_t)st.st_blksize : 4096;
	for (uint64_t off = 0; off < size; off += block) {
		uint64_t at = off + block < size ? off : size - 1;
		if (pwrite(fd, "", 1, (off_t)at) != 1)
			return errno ? errno : EIO;
	}
	return 0;
}

/* The persistent file, created unnamed (or, sandboxed, exclusively) and sized, not yet named
 * (it is published once the record is laid out).  Its descriptor, or (with a message said) -1
 * when recording is off, -2 when the record goes to memory instead. */
static int ci_persistent_create(struct ci_sf *f, int *dirfd, const char *stem, uint64_t size)
{
	*dirfd = ci_sf_open_dir(ci_cfg.dir);
	if (*dirfd < 0 || !ci_sf_create(f, *dirfd, stem, CI_PERSISTENT_SUFFIX)) {
		ci_say("cannot create the persistent record in %s: %s; recording disabled (create "
		       "the directory, or unset CUDAINSPECT_DIR)", ci_cfg.dir,
		       errno == ENOTDIR || errno == ELOOP ? "not a directory (a symbolic link is "
							     "not followed: name its target)"
							   : strerror(errno));
		if (*dirfd >= 0)
			close(*dirfd);
		*dirfd = -1;
		return -1;
	}
	/* A sparse file gets its blocks when a page is first written, through the mapping: on a
	 * full file system that write is a SIGBUS in the application.  Reserve every block now,
	 * or record in memory instead. */
	int err = ci_reserve_blocks(f->fd, size);
	if (!err && ftruncate(f->fd, (off_t)size) != 0)
		err = errno;
	if (err) {
		ci_say("cannot reserve %llu MiB for the persistent record in %s: %s; recording in "
		       "memory instead (in core dumps and snapshots, but lost on SIGKILL)",
		       (unsigned long long)(size >> 20), ci_cfg.dir, strerror(err));
		ci_sf_discard(f);
		close(*dirfd);
		*dirfd = -1;
		return -2;
	}
	return f->fd;
}

/* The rings launches write (kernels and graph replays, collectives), at most this many bytes of
 * each, get their pages now rather than as their first lap writes them: a page fault on the
 * shared mapping costs 1-2 µs here, and the launch ring's first lap takes one every 16
 * launches (about 100 ns a launch for its first 32,768).  A page of a memfd stays once
 * written, so this moves a cost every launching process pays anyway to the first CUDA call,
 * where the driver's own start takes far longer.  The other sections are written at the rate
 * of allocations and synchronizations and are left to fault. */
#define CI_POPULATE_MAX (16ull << 20)

static void ci_record_populate(void)
{
#ifdef MADV_POPULATE_WRITE
	static const uint32_t hot[] = { CI_SEC_LAUNCHES, CI_SEC_NCCL_CALLS };
	if (ci_restricted)
		return; /* a filter that allows only the calls recording makes */
	for (size_t i = 0; i < sizeof hot / sizeof hot[0]; i++) {
		const struct ci_sec *s = &ci_rec.sec[hot[i]];
		if (!s->dir)
			continue;
		uint64_t bytes = s->capacity * s->entry_size;
		if (bytes > CI_POPULATE_MAX)
			bytes = CI_POPULATE_MAX;
		uintptr_t from = (uintptr_t)s->base & ~(uintptr_t)(ci_rec.page_size - 1);
		uintptr_t to = (uintptr_t)s->base + bytes;
		/* Before Linux 5.14 (EINVAL) or without memory (ENOMEM): the faults come later. */
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
	}
#endif
}

static bool ci_private_alloc(void **p, size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return false;
	if (!ci_restricted)
		madvise(m, bytes, MADV_DONTDUMP); /* only for smaller cores: optional */
	*p = m;
	return true;
}

static bool ci_private_create(const struct ci_layout *l)
{
	uint64_t cap[CI_REC_SECTION_MAX] = { 0 };
	for (uint32_t i = 0; i < l->count; i++)
		cap[l->sec[i].kind] = l->sec[i].capacity;
	return ci_map_init(&ci_rec.ctx_map, cap[CI_SEC_CONTEXTS]) &&
	       ci_map_init(&ci_rec.stream_map, cap[CI_SEC_STREAMS]) &&
	       ci_map_init(&ci_rec.func_map, cap[CI_SEC_FUNCTIONS]) &&
	       ci_map_init(&ci_rec.module_map, cap[CI_SEC_CODE_MODULES]) &&
	       ci_map_init(&ci_rec.stack_map, cap[CI_SEC_STACKS]) &&
	       ci_map_init(&ci_rec.string_map, cap[CI_SEC_STRINGS] / 32) &&
	       ci_map_init(&ci_rec.device_map, cap[CI_SEC_DEVICES]) &&
	       ci_map_init(&ci_rec.py_code_map, cap[CI_SEC_PY_CODES]) &&
	       ci_map_init(&ci_rec.graph_map, cap[CI_SEC_GRAPHS]) &&
	       ci_map_init(&ci_rec.node_map, cap[CI_SEC_GRAPH_NODES]) &&
	       ci_map_init(&ci_rec.exec_map, cap[CI_SEC_GRAPH_EXECS]) &&
	       ci_map_init(&ci_rec.nccl_map, cap[CI_SEC_NCCL_COMMS]) &&
	       ci_private_alloc((void **)&ci_rec.nccl,
				cap[CI_SEC_NCCL_COMMS] * sizeof(struct ci_nccl_priv)) &&
	       ci_private_alloc((void **)&ci_rec.streams,
				cap[CI_SEC_STREAMS] * sizeof(struct ci_stream_priv)) &&
	       ci_private_alloc((void **)&ci_rec.ctxs,
				cap[CI_SEC_CONTEXTS] * sizeof(struct ci_ctx_priv)) &&
	       ci_private_alloc((void **)&ci_rec.funcs,
				cap[CI_SEC_FUNCTIONS] * sizeof(struct ci_func_priv)) &&
	       ci_symfreed_init(cap[CI_SEC_FREES]);
}

static void ci_private_destroy(void)
{
	struct ci_map *maps[] = { &ci_rec.ctx_map,   &ci_rec.stream_map, &ci_rec.func_map,
				  &ci_rec.module_map, &ci_rec.stack_map, &ci_rec.string_map,
				  &ci_rec.device_map, &ci_rec.py_code_map, &ci_rec.graph_map,
				  &ci_rec.node_map, &ci_rec.exec_map, &ci_rec.nccl_map };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		if (maps[i]->slots)
			munmap(maps[i]->slots, (maps[i]->mask + 1) * sizeof(struct ci_map_slot));
		maps[i]->slots = NULL;
	}
	if (ci_rec.streams && ci_rec.sec[CI_SEC_STREAMS].capacity)
		munmap(ci_rec.streams,
		       ci_rec.sec[CI_SEC_STREAMS].capacity * sizeof(struct ci_stream_priv));
	if (ci_rec.ctxs && ci_rec.sec[CI_SEC_CONTEXTS].capacity)
		munmap(ci_rec.ctxs, ci_rec.sec[CI_SEC_CONTEXTS].capacity * sizeof(struct ci_ctx_priv));
	if (ci_rec.funcs && ci_rec.sec[CI_SEC_FUNCTIONS].capacity)
		munmap(ci_rec.funcs,
		       ci_rec.sec[CI_SEC_FUNCTIONS].capacity * sizeof(struct ci_func_priv));
	if (ci_rec.nccl && ci_rec.sec[CI_SEC_NCCL_COMMS].capacity)
		munmap(ci_rec.nccl,
		       ci_rec.sec[CI_SEC_NCCL_COMMS].capacity * sizeof(struct ci_nccl_priv));
	ci_rec.streams = NULL;
	ci_rec.ctxs = NULL;
	ci_rec.funcs = NULL;
	ci_rec.nccl = NULL;
	ci_symfreed_destroy();
}

bool ci_record_create(void)
{
	ci_clock_init();
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	uint64_t size = ci_align(ci_cfg.size, page);
	struct ci_layout l;
	if (!ci_layout_compute(size, page, &l)) {
		ci_say("cannot lay out a record of %llu bytes; recording disabled",
		       (unsigned long long)size);
		return false;
	}

	/* Under a seccomp filter, no system call the recorder could do without (safefile.h). */
	ci_restricted = ci_sf_restricted();
	ci_start_clocks();
	char host[CI_NAME_MAX] = "", stem[CI_SF_NAME_MAX];
	gethostname(host, sizeof host - 1);
	ci_sf_record_stem(stem, sizeof stem, host, (uint32_t)getpid(), ci_start_realtime_ns);

	int fd = -1, dirfd = -1;
	struct ci_sf pf = { .fd = -1 };
	ci_rec.persistent = false;
	ci_rec.path[0] = 0;
	if (ci_cfg.dir[0]) {
		fd = ci_persistent_create(&pf, &dirfd, stem, size);
		if (fd == -1)
			return false;
		ci_rec.persistent = fd >= 0;
		if (fd < 0)
			fd = -1;
	}
	/* The memfd's name is how readers find the record in a core; for any failure (a filter
	 * that refuses or kills memfd_create is not asked at all), shared anonymous memory is
	 * dumped the same way and found by the exported pointer or the magic. */
	if (!ci_rec.persistent && !ci_restricted) {
		fd = memfd_create(CI_MEMFD_NAME, MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
			close(fd);
			fd = -1;
		}
	}
	bool anonymous = fd < 0;
	void *base;
	if (fd >= 0)
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	else
		base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		ci_say("cannot map a record of %llu bytes: %s; recording disabled",
		       (unsigned long long)size, strerror(errno));
		if (ci_rec.persistent) {
			ci_sf_discard(&pf);
			close(dirfd);
		} else if (fd >= 0) {
			close(fd);
		}
		return false;
	}

	/* The mapping keeps the memfd alive; an extra descriptor would be visible to the
	 * application (fd limits, programs that close or list their descriptors).  The
	 * persistent file's is kept until the file is named, below. */
	if (fd >= 0 && !ci_rec.persistent)
		close(fd);
	ci_rec.base = base;
	ci_rec.size = size;
	ci_rec.page_size = page;
	ci_rec.hdr = base;
	memset(ci_rec.sec, 0, sizeof ci_rec.sec);
	if (!ci_private_create(&l)) {
		ci_say("out of memory for the recorder's lookup tables; recording disabled");
		ci_private_destroy();
		munmap(base, size);
		if (ci_rec.persistent) {
			ci_sf_discard(&pf);
			close(dirfd);
		}
		return false;
	}

	struct ci_header *h = base;
	h->major = CI_FORMAT_MAJOR;
	h->minor = CI_FORMAT_MINOR;
	h->header_size = sizeof *h;
	h->record_size = size;
	h->page_size = page;
	h->section_count = l.count;
	h->section_dir_offset = l.dir_offset;
	h->section_entry_size = sizeof(struct ci_section);
	h->flags = (ci_cfg.crumbs ? 0 : CI_HDR_CRUMBS_OFF) |
		   (ci_forked_child ? CI_HDR_FORKED_CHILD : 0);
	snprintf(h->recorder_version, sizeof h->recorder_version, "%s", CI_RECORDER_VERSION);
	h->record_base = (uint64_t)(uintptr_t)base;
	h->stack_mode = (uint32_t)ci_cfg.stack_mode;
	h->stack_depth = ci_cfg.stack_mode == CI_STACKS_OFF ? 0 : ci_cfg.stack_depth;
	h->crumb_every_launches = ci_cfg.crumbs ? ci_cfg.crumb_every : 0;
	h->crumb_every_us = ci_cfg.crumbs ? ci_cfg.crumb_us : 0;
	h->crumb_budget_ppm = ci_cfg.crumbs ? ci_cfg.crumb_budget_ppm : 0;
	h->param_bytes_max = ci_cfg.param_bytes;
	h->crumb_width = ci_cfg.crumb_width ? ci_cfg.crumb_width : 8;
	h->state = CI_STATE_LIVE;
	h->origin = ci_rec.persistent ? CI_ORIGIN_PERSISTENT : CI_ORIGIN_MEMFD;

	struct ci_section *dir = (struct ci_section *)((uint8_t *)base + l.dir_offset);
	for (uint32_t i = 0; i < l.count; i++) {
		dir[i].kind = l.sec[i].kind;
		dir[i].entry_size = l.sec[i].entry_size;
		dir[i].offset = l.sec[i].offset;
		dir[i].capacity = l.sec[i].capacity;
		struct ci_sec *s = &ci_rec.sec[l.sec[i].kind];
		s->dir = &dir[i];
		s->base = (uint8_t *)base + l.sec[i].offset;
		s->capacity = l.sec[i].capacity;
		s->entry_size = l.sec[i].entry_size;
	}
	/* Offset 0 of the string table is the empty string. */
	ci_rec.sec[CI_SEC_STRINGS].dir->head = 1;
	struct ci_sec *img = &ci_rec.sec[CI_SEC_SYMBOL_IMAGE];
	ci_rec.symimage = img->dir ? img->base : NULL;
	ci_rec.symfreed = NULL;
	if (ci_rec.symimage) {
		uint32_t allocs = (uint32_t)ci_rec.sec[CI_SEC_ALLOCS].capacity;
		uint32_t frees = (uint32_t)ci_rec.sec[CI_SEC_FREES].capacity;
		size_t live = ci_symimage_size(allocs);
		ci_symimage_init(ci_rec.symimage, live, allocs);
		ci_rec.symfreed = (uint8_t *)ci_rec.symimage + live;
		ci_symimage_init_kind(ci_rec.symfreed, img->capacity - live, frees,
				      CI_SYMIMAGE_FREED);
	}

	ci_record_populate();
	ci_record_describe_process();
	ci_job_record();
	/* The magic last: a reader that finds it finds a complete header and directory. */
	memcpy(h->magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* The persistent file gets its name only now, complete, and never in place of a file
	 * planted at that name (safefile.h). */
	if (ci_rec.persistent) {
		bool named = ci_sf_publish(&pf, stem, CI_PERSISTENT_SUFFIX);
		if (named) {
			/* ci_path_var keeps CUDAINSPECT_DIR 64 bytes short of PATH_MAX. */
			if (snprintf(ci_rec.path, sizeof ci_rec.path, "%s/%s", ci_cfg.dir, pf.name) >=
			    (int)sizeof ci_rec.path)
				ci_rec.path[0] = 0;
			close(pf.fd);
		} else {
			ci_say("cannot name the persistent record in %s: %s; recording disabled",
			       ci_cfg.dir, strerror(errno));
		}
		close(dirfd);
		if (!named) {
			ci_private_destroy();
			munmap(base, size);
			memset(&ci_rec, 0, sizeof ci_rec);
			return false;
		}
	}
	__atomic_store_n(&cudainspect_record, base, __ATOMIC_RELEASE);

	if (ci_cfg.verbose)
		ci_say("recording into %s (%llu MiB: %llu launches, %llu live allocations, %llu "
		       "streams, %llu errors, %llu events)",
		       ci_rec.persistent ? ci_rec.path
		       : anonymous	 ? "shared anonymous memory"
					 : "/memfd:" CI_MEMFD_NAME,
		       (unsigned long long)(size >> 20),
		       (unsigned long long)ci_rec.sec[CI_SEC_LAUNCHES].capacity,
		       (unsigned long long)ci_rec.sec[CI_SEC_ALLOCS].capacity,
		       (unsigned long long)ci_rec.sec[CI_SEC_STREAMS].capacity / 2,
		       (unsigned long long)ci_rec.sec[CI_SEC_ERRORS].capacity,
		       (unsigned long long)ci_rec.sec[CI_SEC_EVENTS].capacity);
	return true;
}

void ci_record_forget(void)
{
	__atomic_store_n(&cudainspect_record, NULL, __ATOMIC_RELAXED);
	if (ci_rec.base)
		munmap(ci_rec.base, ci_rec.size);
	ci_private_destroy();
	memset(&ci_rec, 0, sizeof ci_rec);
	ci_forked_child = true;
	ci_time_marked(ci_now()); /* no launch shares a time from before the fork */
	__atomic_fetch_add(&ci_generation, 1, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------------------------------- */
/* The process                                                                                */

/* When the process started (CLOCK_BOOTTIME, from /proc/self/stat's starttime in clock ticks)
 * and its pids in the pid namespaces its procfs shows (/proc/self/status NSpid), for the
 * reader's choice of the process's own kernel-log lines. */
static void ci_record_pid_facts(struct ci_header *h)
{
	char buf[2048];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	long tick = sysconf(_SC_CLK_TCK);
	if (n > 0 && tick > 0) {
		buf[n] = 0;
		/* The comm may hold spaces and parentheses: fields resume after the last ')'. */
		char *p = strrchr(buf, ')');
		unsigned long long start = 0;
		/* After the comm: state is field 3, starttime field 22. */
		for (int field = 2; p && field < 22; field++)
			p = strchr(p + 1, ' ');
		if (p && sscanf(p + 1, "%llu", &start) == 1)
			h->proc_start_boottime_ns = start * (1000000000ull / (unsigned long long)tick);
	}
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	const char *line = strstr(buf, "\nNSpid:");
	if (!line)
		return;
	line += 8;
	for (unsigned i = 0; i < 4; i++) {
		char *end;
		unsigned long v = strtoul(line, &end, 10);
		if (end == line || v == 0 || v > UINT32_MAX)
			break;
		h->ns_pids[i] = (uint32_t)v;
		line = end;
	}
}

void ci_record_describe_process(void)
{
	struct ci_header *h = ci_rec.hdr;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	gethostname(h->host, sizeof h->host - 1);
	h->start_realtime_ns = ci_start_realtime_ns;
	h->start_monotonic_ns = ci_start_monotonic_ns;
	h->start_boottime_ns = ci_klog_start_boottime();
	ci_sf_boot_id(h->boot_id);
	ci_record_pid_facts(h);

	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		h->exe_str = ci_string(buf, sizeof buf);
	}
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (!buf[i])
					buf[i] = ' ';
			while (n > 0 && buf[n - 1] == ' ')
				n--;
			buf[n] = 0;
			h->cmdline_str = ci_string(buf, sizeof buf);
		}
	}
}
