/* SPDX-License-Identifier: MIT */
/*
 * The table of loaded host modules (CI_SEC_HOST_MODULES: path, load bias, address range,
 * build-id), so that a reader can symbolize recorded stacks away from the machine, and the
 * sorted list of executable ranges the fast stack walker validates return addresses against.
 *
 * glibc counts loads and unloads (dlpi_adds/dlpi_subs); the table is rescanned when those counts
 * changed, checked at these moments:
 *  - dlclose (interposed here): before the real one, so that a library loaded since the last
 *    scan is recorded while it is still mapped, and after it, to note what went;
 *  - dlsym (interposed in doors.c): how a program reaches a library it has just loaded, so the
 *    library is known before its code calls CUDA.  dlopen itself is not wrapped: glibc applies
 *    its caller's RPATH, RUNPATH, $ORIGIN and namespace (from the return address), which a
 *    wrapper would replace with the recorder's;
 *  - calls off the launch path (module loads, context and stream creation, allocations and
 *    frees, synchronizations, errors, first launch of a new kernel), at most every 10 ms (the
 *    check takes the loader's lock); snapshots always.
 * The launch path never checks.  A module unloaded since the last scan keeps its entry with
 * unload_ns set.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder.h"

struct ci_code_range {
	uint64_t lo, hi;
};
struct ci_code_ranges {
	uint32_t n;
	struct ci_code_range r[];
};

/* Published with a release store; old lists are never freed, so a concurrent walker may keep
 * reading one (a handful of lists per dlopen storm, each a few KiB). */
static struct ci_code_ranges *ci_ranges;

struct ci_known_module {
	uint64_t base;
	uint32_t slot;
	bool present;
	char *path;
};
static struct ci_known_module *ci_known;
static size_t ci_nknown, ci_known_cap;
static unsigned long long ci_seen_adds = ~0ull, ci_seen_subs = ~0ull;
static pthread_mutex_t ci_modules_lock = PTHREAD_MUTEX_INITIALIZER;

const void *ci_code_ranges_now(void)
{
	return __atomic_load_n(&ci_ranges, __ATOMIC_ACQUIRE);
}

bool ci_code_address_in(const void *ranges, uint64_t a)
{
	const struct ci_code_ranges *rs = ranges;
	if (!rs)
		return true; /* not scanned yet: accept, the stack bounds still guard the walk */
	size_t lo = 0, hi = rs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a < rs->r[mid].lo)
			hi = mid;
		else if (a >= rs->r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static int ci_counters_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;
	if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
		return 1;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

static void ci_build_id(const struct dl_phdr_info *info, uint8_t *out, uint32_t *len)
{
	*len = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof *n;
			const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4)) {
				uint32_t l = n->n_descsz > 32 ? 32 : n->n_descsz;
				memcpy(out, desc, l);
				*len = l;
				return;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
}

struct ci_scan {
	struct ci_code_ranges *ranges;
	uint32_t cap;
	uint64_t now;
};

static void ci_range_add(struct ci_scan *s, uint64_t lo, uint64_t hi)
{
	if (s->ranges->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 256;
		struct ci_code_ranges *r = realloc(s->ranges, sizeof *r + cap * sizeof r->r[0]);
		if (!r)
			return;
		s->ranges = r;
		s->cap = cap;
	}
	s->ranges->r[s->ranges->n++] = (struct ci_code_range){ lo, hi };
}

static void ci_module_record(const struct dl_phdr_info *info, const char *path, uint64_t start,
			     uint64_t end, uint64_t now)
{
	if (ci_nknown == ci_known_cap) {
		size_t cap = ci_known_cap ? ci_known_cap * 2 : 64;
		struct ci_known_module *k = realloc(ci_known, cap * sizeof *k);
		if (!k)
			return;
		ci_known = k;
		ci_known_cap = cap;
	}
	uint32_t slot = ci_table_claim(CI_SEC_HOST_MODULES);
	if (slot != CI_NONE) {
		struct ci_host_module *e = ci_entry(CI_SEC_HOST_MODULES, slot);
		ci_entry_begin(&e->seq);
		e->base = info->dlpi_addr;
		e->start = start;
		e->end = end;
		e->load_ns = now;
		e->unload_ns = 0;
		e->path_str = ci_string(path, CI_STRING_MAX);
		ci_build_id(info, e->build_id, &e->build_id_len);
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	ci_known[ci_nknown++] = (struct ci_known_module){ .base = info->dlpi_addr, .slot = slot,
							  .present = true, .path = strdup(path) };
}

static int ci_scan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ci_scan *s = data;
	(void)size;
	char exe[4096];
	const char *path = info->dlpi_name;
	if (!path || !*path) {
		/* The main program has an empty name; the vdso a made-up one. */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		path = exe;
	}
	uint64_t start = UINT64_MAX, end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (lo < start)
			start = lo;
		if (hi > end)
			end = hi;
		if (ph->p_flags & PF_X)
			ci_range_add(s, lo, hi);
	}
	if (start == UINT64_MAX)
		return 0;
	for (size_t i = 0; i < ci_nknown; i++) {
		if (ci_known[i].base == info->dlpi_addr && !strcmp(ci_known[i].path, path)) {
			ci_known[i].present = true;
			return 0;
		}
	}
	ci_module_record(info, path, start, end, s->now);
	return 0;
}

static int ci_cmp_range(const void *a, const void *b)
{
	const struct ci_code_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void ci_modules_refresh(bool force)
{
	ci_modules_refresh_at(force, ci_now());
}

void ci_modules_refresh_at(bool force, uint64_t now)
{
	if (!ci_rec.base)
		return;
	unsigned long long c[2] = { 0, 0 };
	/* Asking the loader takes its lock: at most every 10 ms, unless forced. */
	static uint64_t last_check; /* atomic */
	if (!now)
		now = ci_now(); /* a call that read no clock */
	if (!force) {
		uint64_t last = __atomic_load_n(&last_check, __ATOMIC_RELAXED);
		if (now - last < 10000000 || !__atomic_compare_exchange_n(&last_check, &last, now,
									   false, __ATOMIC_RELAXED,
									   __ATOMIC_RELAXED))
			return;
	}
	/* The loader's counts only grow: equal counts, nothing loaded or unloaded since the last
	 * scan (and no new list of code ranges, whose old ones are never freed). */
	dl_iterate_phdr(ci_counters_cb, c);
	if (c[0] == __atomic_load_n(&ci_seen_adds, __ATOMIC_RELAXED) &&
	    c[1] == __atomic_load_n(&ci_seen_subs, __ATOMIC_RELAXED))
		return;
	/* Never wait: a thread inside dlopen (holding the loader's lock) may be the one calling
	 * CUDA from a constructor while another refresh holds this lock. */
	if (pthread_mutex_trylock(&ci_modules_lock))
		return;
	dl_iterate_phdr(ci_counters_cb, c);
	struct ci_scan s = { .ranges = calloc(1, sizeof(struct ci_code_ranges)), .now = ci_now() };
	if (s.ranges) {
		for (size_t i = 0; i < ci_nknown; i++)
			ci_known[i].present = false;
		dl_iterate_phdr(ci_scan_cb, &s);
		/* Gone since the last scan: close their entries. */
		size_t kept = 0;
		for (size_t i = 0; i < ci_nknown; i++) {
			if (!ci_known[i].present) {
				if (ci_known[i].slot != CI_NONE) {
					struct ci_host_module *e =
						ci_entry(CI_SEC_HOST_MODULES, ci_known[i].slot);
					__atomic_store_n(&e->unload_ns, s.now, __ATOMIC_RELAXED);
				}
				free(ci_known[i].path);
				continue;
			}
			ci_known[kept++] = ci_known[i];
		}
		ci_nknown = kept;
		qsort(s.ranges->r, s.ranges->n, sizeof s.ranges->r[0], ci_cmp_range);
		__atomic_store_n(&ci_ranges, s.ranges, __ATOMIC_RELEASE);
		__atomic_store_n(&ci_seen_adds, c[0], __ATOMIC_RELAXED);
		__atomic_store_n(&ci_seen_subs, c[1], __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&ci_modules_lock);
}

/* Fork child: the new record starts with an empty module table. */
void ci_modules_forget(void)
{
	for (size_t i = 0; i < ci_nknown; i++)
		free(ci_known[i].path);
	ci_nknown = 0;
	ci_seen_adds = ci_seen_subs = ~0ull;
	pthread_mutex_init(&ci_modules_lock, NULL);
}

void ci_modules_loaded(void)
{
	int saved = errno;
	ci_modules_refresh(true);
	errno = saved;
}

/* dlclose, interposed (it needs no caller identity, unlike dlopen): a library loaded since the
 * last scan gets its entry, build-id included, while it is still mapped, and what the call
 * unloaded gets its unload time.  Unversioned, so dlclose@GLIBC_2.2.5 and @GLIBC_2.34 both
 * bind here. */
typedef int (*ci_dlclose_fn)(void *);
static ci_dlclose_fn ci_real_dlclose;

static void ci_find_real_dlclose(void) __attribute__((no_sanitize_address, no_sanitize_thread,
						     no_sanitize_undefined));
static void ci_find_real_dlclose(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		ci_dlclose_fn f = (ci_dlclose_fn)dlvsym(RTLD_NEXT, "dlclose", versions[i]);
		if (f) {
			__atomic_store_n(&ci_real_dlclose, f, __ATOMIC_RELEASE);
			return;
		}
	}
}

CI_EXPORT int dlclose(void *handle)
{
	if (!__atomic_load_n(&ci_real_dlclose, __ATOMIC_ACQUIRE))
		ci_find_real_dlclose();
	ci_dlclose_fn real = __atomic_load_n(&ci_real_dlclose, __ATOMIC_ACQUIRE);
	if (!real)
		return -1;
	bool on = ci_on();
	if (on)
		ci_modules_loaded();
	int r = real(handle);
	if (on && r == 0)
		ci_modules_loaded();
	return r;
}
