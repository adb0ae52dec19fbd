/* SPDX-License-Identifier: MIT */
/*
 * GPU core dumps: open one (plain or zstd), walk its section table once, build the tables of
 * devices, contexts, modules, grids, SMs, CTAs, warps and lanes by following sh_link/sh_info from
 * each table to its parent, join grids to their modules and CTAs to their grids, name kernels
 * from the modules' cubins, and find the exception the way cuda-gdb focuses it.  The format, its
 * sources and every rule used here are in docs/GPUCORE.md; the private interface is gpucore.h.
 *
 * The container is read with the reader's bounded cursor rather than libelf: a real dump has
 * about 840,000 sections (three per lane), and libelf would allocate a descriptor for each; here
 * a section header is read from the mapped file when it is needed, and only table sections are
 * remembered (their index, and the rows they became).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "gpucore/gpucore.h"
#include "base/base.h"
#include "source/source.h"

#define ELFOSABI_CUDA_ 51
#define EM_CUDA_ 190
#define CUDA_ABI_VERSION 7

/* sh_type of the dump's sections: SHT_LOUSER + n (docs/GPUCORE.md, "Sections"). */
enum {
	T_MANAGED = 1, T_GLOBAL, T_LOCAL, T_SHARED, T_REGS, T_ELF_IMG, T_RELF_IMG, T_BT, T_DEV,
	T_CTX, T_SM, T_GRID, T_CTA, T_WARP, T_LANE, T_MOD, T_PRED, T_PARAM, T_UREGS, T_UPRED,
	T_CBANK, T_META, T_CBU_BAR, T_MAX
};
#define SHT_CUDBG(n) (0x80000000u + (n))

/* ---------------------------------------------------------------------------------------- */
/* Words                                                                                      */

const char *ci_gpu_exception_name(uint32_t code)
{
	switch (code) {
#define EXC_NAME(v, name, words) case v: return name;
	CI_GPU_EXCEPTIONS(EXC_NAME)
#undef EXC_NAME
	case CI_GPU_EXCEPTION_UNKNOWN: return "UNKNOWN";
	}
	return NULL;
}

const char *ci_gpu_exception_words(uint32_t code, char *buf, size_t n)
{
	const char *words = NULL;
	switch (code) {
#define EXC_WORDS(v, name, w) case v: words = w; break;
	CI_GPU_EXCEPTIONS(EXC_WORDS)
#undef EXC_WORDS
	case CI_GPU_EXCEPTION_UNKNOWN: words = "Device Unknown Exception"; break;
	}
	if (words) {
		snprintf(buf, n, "%s", words);
		return buf;
	}
	const char *name = ci_gpu_exception_name(code);
	if (!name) {
		snprintf(buf, n, "unknown exception %u", code);
		return buf;
	}
	/* "WARP_MMU_FAULT" -> "Warp Mmu Fault": the debugger API's name, in cuda-gdb's style. */
	size_t o = 0;
	bool start = true;
	for (const char *p = name; *p && o + 1 < n; p++) {
		if (*p == '_') {
			buf[o++] = ' ';
			start = true;
			continue;
		}
		buf[o++] = start ? *p : (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		start = false;
	}
	if (n)
		buf[o < n ? o : n - 1] = 0;
	return buf;
}

const char *ci_gpu_grid_status_name(uint32_t status)
{
	static const char *const names[] = { "Invalid", "Pending", "Active", "Sleeping", "Terminated",
					     "Undetermined" };
	return status < sizeof names / sizeof names[0] ? names[status] : NULL;
}

const char *ci_gpu_kernel_type_name(uint32_t type)
{
	static const char *const names[] = { "unknown", "system", "application" };
	return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

const char *ci_gpu_coredump_flags_text(uint32_t flags, char *buf, size_t n)
{
	size_t o = 0;
	if (n)
		buf[0] = 0;
	for (unsigned bit = 0; bit < 32; bit++) {
		if (!(flags >> bit & 1))
			continue;
		const char *name = NULL;
		char tmp[16];
		switch (bit) {
#define FLAG_NAME(b, s) case b: name = s; break;
		CI_GPU_COREDUMP_FLAGS(FLAG_NAME)
#undef FLAG_NAME
		}
		if (!name) {
			snprintf(tmp, sizeof tmp, "bit%u", bit);
			name = tmp;
		}
		int w = snprintf(buf + o, n > o ? n - o : 0, "%s%s", o ? "," : "", name);
		if (w < 0 || (size_t)w >= n - o) {
			buf[o] = 0; /* no name cut in half */
			break;
		}
		o += (size_t)w;
	}
	return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Parsing state                                                                              */

#define gshdr ci_gpu_shdr

/* One table section and the rows it became: objects [first, first + count) of its kind. */
struct tabref {
	uint32_t sec;
	size_t first, count;
};

struct tabvec {
	struct tabref *v;
	size_t n, cap;
};

/* Warnings about hostile structure are counted per kind and said once (the first case, and how
 * many more), so that a file of a million bad sections makes one line each. */
enum wkind { W_LINK, W_PAST_END, W_ENTSIZE, W_DUP, W_CAP, W_STRING, W_CUBIN, W_LINES, W_EXTRA, W_COUNT };

struct ci_gpucore_priv {
	void *map;                /* the mapped file (the decompressed copy for zstd) */
	size_t map_size;
	/* A plain file is mapped under the host cores' SIGBUS guard (corefile/source/memory.c):
	 * this source holds its slot.  A page past the end of a file that shrank reads as zeros. */
	struct ci_source *guard;
	bool shrink_said;
	const uint8_t *img;       /* its bytes (map, or the caller's buffer) */
	uint64_t size;
	char *name;
	/* parsing */
	uint64_t shoff, shnum, shstrndx;
	bool have_strtab;
	uint64_t strtab_off, strtab_size;
	uint32_t *bytype[T_MAX];
	size_t nbytype[T_MAX], capbytype[T_MAX];
	struct tabvec tabs[T_MAX];
	size_t caps[T_MAX];       /* capacity of the model's array of each table type */
	size_t cap_devices, cap_memory;
	struct { char first[320]; uint64_t count; } warn[W_COUNT];
	size_t where_last;        /* the module of the last successful lookup */
};

static void pwarn(struct ci_gpucore *gc, enum wkind k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pwarn(struct ci_gpucore *gc, enum wkind k, const char *fmt, ...)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	if (ps->warn[k].count++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->warn[k].first, sizeof ps->warn[k].first, fmt, ap);
		va_end(ap);
	}
}

static void flush_warnings(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	for (int k = 0; k < W_COUNT; k++) {
		if (!ps->warn[k].count)
			continue;
		if (ps->warn[k].count == 1)
			ci_warnings_add(&gc->warnings, "%s: %s", gc->name, ps->warn[k].first);
		else
			ci_warnings_add(&gc->warnings, "%s: %s (and %llu more like it)", gc->name, ps->warn[k].first,
					(unsigned long long)(ps->warn[k].count - 1));
		ps->warn[k].count = 0;
	}
}

static bool shdr_read(const struct ci_gpucore_priv *ps, uint64_t i, struct gshdr *s)
{
	return i < ps->shnum && ci_gpu_elf_shdr(ps->img, (size_t)ps->size, ps->shoff, i, s);
}

/* The name of section I for messages ("section 34 (.cudbg.lntbl.dev0.sm0.cta0.wp0)"). */
static const char *sec_label(const struct ci_gpucore_priv *ps, uint64_t i, char *buf, size_t n)
{
	struct gshdr s, str;
	const char *name = NULL;
	if (shdr_read(ps, i, &s) && shdr_read(ps, ps->shstrndx, &str) && str.type == SHT_STRTAB &&
	    s.name < str.size && ci_range_ok(str.offset, str.size, ps->size)) {
		const char *p = (const char *)ps->img + str.offset + s.name;
		size_t left = (size_t)(str.size - s.name);
		if (memchr(p, 0, left < 128 ? left : 128))
			name = p;
	}
	char safe[130];
	if (name)
		ci_scrub(name, safe, sizeof safe);
	snprintf(buf, n, "section %llu%s%s%s", (unsigned long long)i, name ? " (" : "", name ? safe : "",
		 name ? ")" : "");
	return buf;
}

/* A string of .strtab at OFF (NULL, with a warning, when it is not a terminated string there). */
static const char *strtab_get(struct ci_gpucore *gc, uint64_t off, const char *what)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	if (!ps->have_strtab) {
		pwarn(gc, W_STRING, "there is no .strtab, so the %s and other names are not known", what);
		return NULL;
	}
	if (off >= ps->strtab_size) {
		pwarn(gc, W_STRING, "the %s is at .strtab offset %llu, past its end (%llu bytes)", what,
		      (unsigned long long)off, (unsigned long long)ps->strtab_size);
		return NULL;
	}
	const char *p = (const char *)ps->img + ps->strtab_off + off;
	size_t left = (size_t)(ps->strtab_size - off);
	if (!memchr(p, 0, left < CI_GPU_MAX_STRING ? left : CI_GPU_MAX_STRING)) {
		pwarn(gc, W_STRING, "the %s at .strtab offset %llu is not a terminated string of at most %u bytes",
		      what, (unsigned long long)off, CI_GPU_MAX_STRING);
		return NULL;
	}
	return p;
}

/* A row of a table: fields past its end read as 0 (fields are only ever appended). */
struct row {
	const uint8_t *p;
	uint64_t len;
};
static uint64_t rget(struct row r, uint64_t off, bool wide)
{
	struct ci_bytes b = ci_bytes_make(r.p, (size_t)r.len);
	uint64_t v = 0;
	uint32_t v32 = 0;
	if (ci_bytes_seek(&b, off)) {
		if (wide)
			ci_bytes_u64(&b, &v);
		else if (ci_bytes_u32(&b, &v32))
			v = v32;
	}
	return v;
}
#define r32(r, off) ((uint32_t)rget(r, off, false))
#define r64(r, off) rget(r, off, true)

static const char *type_label(unsigned t)
{
	static const char *const names[T_MAX] = {
		[T_MANAGED] = "managed memory section", [T_GLOBAL] = "global memory section",
		[T_LOCAL] = "local memory section", [T_SHARED] = "shared memory section",
		[T_REGS] = "register section", [T_ELF_IMG] = "module image",
		[T_RELF_IMG] = "relocated module image", [T_BT] = "backtrace", [T_DEV] = "device table",
		[T_CTX] = "context table", [T_SM] = "SM table", [T_GRID] = "grid table",
		[T_CTA] = "CTA table", [T_WARP] = "warp table", [T_LANE] = "lane table",
		[T_MOD] = "module table", [T_PRED] = "predicate section", [T_PARAM] = "parameter memory section",
		[T_UREGS] = "uniform register section", [T_UPRED] = "uniform predicate section",
		[T_CBANK] = "constant bank table", [T_META] = "metadata section",
		[T_CBU_BAR] = "convergence barrier section",
	};
	return t < T_MAX && names[t] ? names[t] : "section";
}

/* The rows of table section S (of type T): sets *ROWS, or warns and returns false. */
static bool table_rows(struct ci_gpucore *gc, uint32_t sec, const struct gshdr *s, unsigned t, uint64_t *rows)
{
	char lab[200];
	if (s->entsize == 0 || s->entsize > CI_GPU_MAX_ROW) {
		if (s->size)
			pwarn(gc, W_ENTSIZE, "%s, a %s, has row size %llu (1 to %u expected): left out",
			      sec_label(gc->priv_, sec, lab, sizeof lab), type_label(t),
			      (unsigned long long)s->entsize, CI_GPU_MAX_ROW);
		*rows = 0;
		return s->size == 0;
	}
	*rows = s->size / s->entsize;
	if (s->size % s->entsize)
		pwarn(gc, W_ENTSIZE, "%s, a %s of %llu bytes, is not a whole number of %llu-byte rows: the "
		      "partial row is left out", sec_label(gc->priv_, sec, lab, sizeof lab), type_label(t),
		      (unsigned long long)s->size, (unsigned long long)s->entsize);
	return true;
}

static struct row row_at(const struct ci_gpucore_priv *ps, const struct gshdr *s, uint64_t r)
{
	return (struct row){ ps->img + s->offset + r * s->entsize, s->entsize };
}

/* The parent object of section S through sh_link (a table of type PT) and sh_info (its row);
 * CI_GPU_NONE, with a warning, when the link does not lead to such a row. */
static size_t parent_of(struct ci_gpucore *gc, uint32_t sec, const struct gshdr *s, unsigned t, unsigned pt)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	const struct tabvec *tv = &ps->tabs[pt];
	size_t lo = 0, hi = tv->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tv->v[mid].sec < s->link)
			lo = mid + 1;
		else
			hi = mid;
	}
	char lab[200], plab[200];
	if (lo >= tv->n || tv->v[lo].sec != s->link) {
		pwarn(gc, W_LINK, "%s, a %s, links (sh_link) to %s, which is not a %s that was read: left out",
		      sec_label(ps, sec, lab, sizeof lab), type_label(t), sec_label(ps, s->link, plab, sizeof plab),
		      type_label(pt));
		return CI_GPU_NONE;
	}
	if (s->info >= tv->v[lo].count) {
		pwarn(gc, W_LINK, "%s, a %s, names row %u (sh_info) of %s, which has %zu rows: left out",
		      sec_label(ps, sec, lab, sizeof lab), type_label(t), s->info,
		      sec_label(ps, s->link, plab, sizeof plab), tv->v[lo].count);
		return CI_GPU_NONE;
	}
	return tv->v[lo].first + s->info;
}

static bool tab_add(struct ci_gpucore *gc, unsigned t, uint32_t sec, size_t first, size_t count)
{
	struct tabvec *tv = &gc->priv_->tabs[t];
	if (ci_vec_reserve((void **)&tv->v, &tv->cap, tv->n + 1, sizeof *tv->v) < 0)
		return false;
	tv->v[tv->n++] = (struct tabref){ sec, first, count };
	return true;
}

/* Room for ROWS more objects in *ARR (count *N, capacity *CAP) under CAP_MAX; false with a
 * warning when the cap would be passed, or out of memory (*NOMEM). */
static bool grow(struct ci_gpucore *gc, void **arr, size_t *cap, size_t n, uint64_t rows, size_t elem,
		 size_t cap_max, const char *what, bool *nomem)
{
	if (rows > cap_max || n > cap_max - rows) {
		pwarn(gc, W_CAP, "it holds more than %zu %s, the most this reader keeps: the rest are left out",
		      cap_max, what);
		return false;
	}
	if (ci_vec_reserve(arr, cap, n + (size_t)rows, elem) < 0) {
		*nomem = true;
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* The tables, parents first                                                                  */

#define SECS(t) for (size_t k_ = 0; k_ < ps->nbytype[t]; k_++)
#define SEC_INDEX(t) (ps->bytype[t][k_])

static struct ci_error *nomem(const struct ci_gpucore *gc)
{
	return ci_error_create(CI_ERR_NOMEM, "out of memory reading the GPU core %s", gc->name);
}

/* Row layouts: where each field of a table's row is (offset, width) and which member of the
 * model it fills.  Offsets are the published field order of docs/GPUCORE.md, "Tables"; a field
 * past a row's sh_entsize reads as 0. */
enum fkind { F_U32, F_U64, F_BOOL };
struct field {
	uint16_t off;
	uint8_t kind;
	uint16_t dst;
};
#define U32(T, m, o) { o, F_U32, offsetof(T, m) }
#define U64(T, m, o) { o, F_U64, offsetof(T, m) }
#define BOOL(T, m, o) { o, F_BOOL, offsetof(T, m) }
#define U32X3(T, m, o) U32(T, m[0], o), U32(T, m[1], (o) + 4), U32(T, m[2], (o) + 8)

#define D struct ci_gpu_device
static const struct field device_fields[] = {
	U32(D, dev_id, 24), U32(D, pci_bus, 28), U32(D, pci_dev, 32), U32(D, num_sms, 36),
	U32(D, warps_per_sm, 40), U32(D, lanes_per_warp, 44), U32(D, regs_per_lane, 48),
	U32(D, preds_per_lane, 52), U32(D, sm_major, 56), U32(D, sm_minor, 60),
	U32(D, instruction_size, 64), U32(D, status, 68), U32(D, uregs_per_warp, 72),
	U32(D, upreds_per_warp, 76), U32(D, barriers_per_warp, 80),
};
#undef D
#define C struct ci_gpu_context
static const struct field context_fields[] = {
	U64(C, id, 0), U64(C, shared_window, 8), U64(C, local_window, 16), U64(C, global_window, 24),
	U32(C, tid, 36),
};
#undef C
static const struct field module_fields[] = { U64(struct ci_gpu_module, handle, 0) };
#define G struct ci_gpu_grid
static const struct field grid_fields[] = {
	U64(G, id, 0), U64(G, context_id, 8), U64(G, function, 16), U64(G, function_entry, 24),
	U64(G, module_handle, 32), U64(G, parent_id, 40), U64(G, params_offset, 48),
	U32(G, kernel_type, 56), U32(G, origin, 60), U32(G, status, 64), U32(G, num_regs, 68),
	U32X3(G, grid_dim, 72), U32X3(G, block_dim, 84), U32(G, launch_blocking, 96),
	U32(G, host_tid, 100), U32X3(G, cluster_dim, 104), U32X3(G, preferred_cluster_dim, 120),
};
#undef G
#define S struct ci_gpu_sm
static const struct field sm_fields[] = {
	U32(S, sm_id, 0), U32(S, exception, 8), BOOL(S, error_pc_valid, 12), U64(S, error_pc, 16),
	BOOL(S, cluster_target_valid, 24), U32X3(S, cluster_target, 28),
};
#undef S
#define A struct ci_gpu_cta
static const struct field cta_fields[] = {
	U64(A, grid_id, 0), U32X3(A, block_idx, 8), U32X3(A, cluster_idx, 24), U32X3(A, cluster_dim, 40),
};
#undef A
#define W struct ci_gpu_warp
static const struct field warp_fields[] = {
	U64(W, error_pc, 0), U32(W, warp_id, 8), U32(W, valid_mask, 12), U32(W, active_mask, 16),
	U32(W, broken, 20), BOOL(W, error_pc_valid, 24), U32(W, num_regs, 32), U32(W, shared_mem_size, 40),
	U32(W, in_syscall_mask, 48), U32(W, cbu_active_mask, 52), U32(W, cbu_exited_mask, 56),
	U32(W, cbu_collective_mask, 60), U32(W, barrier_scope, 64), U64(W, barrier_info, 72),
};
#undef W
#define L struct ci_gpu_lane
static const struct field lane_fields[] = {
	U64(L, virtual_pc, 0), U64(L, phys_pc, 8), U32(L, ln, 16), U32X3(L, thread_idx, 20),
	U32(L, exception, 32), U32(L, call_depth, 36), U32(L, syscall_call_depth, 40),
	U32(L, cbu_state, 48),
};
#undef L

static void read_fields(void *obj, struct row w, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *dst = (char *)obj + f[i].dst;
		uint64_t v = f[i].kind == F_U64 ? r64(w, f[i].off) : r32(w, f[i].off);
		if (f[i].kind == F_U64)
			memcpy(dst, &v, sizeof v);
		else if (f[i].kind == F_BOOL)
			*(bool *)dst = v != 0;
		else
			memcpy(dst, &(uint32_t){ (uint32_t)v }, sizeof(uint32_t));
	}
}

#define NOFF SIZE_MAX
/* One kind of table: its section type and its parent's, where its objects go in the model, its
 * row layout, the members of each object that start as CI_GPU_NONE, the member that names the
 * parent, and the parent's members that record the run of children (NOFF: none kept). */
struct table_kind {
	unsigned t, pt;
	size_t arr, count, elem, cap_max;
	const char *what;
	const struct field *fields;
	size_t nfields;
	size_t none[3];
	size_t parent_member;
	size_t parent_arr, parent_elem, child_first, child_count;
};
#define GC_ARR(m) offsetof(struct ci_gpucore, m)
#define FIELDS(f) f, sizeof f / sizeof f[0]

static const struct table_kind table_kinds[] = {
	{ T_CTX, T_DEV, GC_ARR(contexts), GC_ARR(context_count), sizeof(struct ci_gpu_context),
	  CI_GPU_MAX_CONTEXTS, "contexts", FIELDS(context_fields),
	  { offsetof(struct ci_gpu_context, module_first), NOFF, NOFF }, offsetof(struct ci_gpu_context, device),
	  GC_ARR(devices), sizeof(struct ci_gpu_device), NOFF, NOFF },
	{ T_MOD, T_CTX, GC_ARR(modules), GC_ARR(module_count), sizeof(struct ci_gpu_module),
	  CI_GPU_MAX_MODULES, "modules", FIELDS(module_fields), { NOFF, NOFF, NOFF },
	  offsetof(struct ci_gpu_module, context), GC_ARR(contexts), sizeof(struct ci_gpu_context),
	  offsetof(struct ci_gpu_context, module_first), offsetof(struct ci_gpu_context, module_count) },
	{ T_GRID, T_DEV, GC_ARR(grids), GC_ARR(grid_count), sizeof(struct ci_gpu_grid),
	  CI_GPU_MAX_GRIDS, "grids", FIELDS(grid_fields),
	  { offsetof(struct ci_gpu_grid, context), offsetof(struct ci_gpu_grid, module), NOFF },
	  offsetof(struct ci_gpu_grid, device), GC_ARR(devices), sizeof(struct ci_gpu_device), NOFF, NOFF },
	{ T_SM, T_DEV, GC_ARR(sms), GC_ARR(sm_count), sizeof(struct ci_gpu_sm),
	  CI_GPU_MAX_SMS, "SMs", FIELDS(sm_fields), { offsetof(struct ci_gpu_sm, cta_first), NOFF, NOFF },
	  offsetof(struct ci_gpu_sm, device), GC_ARR(devices), sizeof(struct ci_gpu_device),
	  offsetof(struct ci_gpu_device, sm_first), offsetof(struct ci_gpu_device, sm_count) },
	{ T_CTA, T_SM, GC_ARR(ctas), GC_ARR(cta_count), sizeof(struct ci_gpu_cta),
	  CI_GPU_MAX_CTAS, "CTAs", FIELDS(cta_fields),
	  { offsetof(struct ci_gpu_cta, grid), offsetof(struct ci_gpu_cta, warp_first), NOFF },
	  offsetof(struct ci_gpu_cta, sm), GC_ARR(sms), sizeof(struct ci_gpu_sm),
	  offsetof(struct ci_gpu_sm, cta_first), offsetof(struct ci_gpu_sm, cta_count) },
	{ T_WARP, T_CTA, GC_ARR(warps), GC_ARR(warp_count), sizeof(struct ci_gpu_warp),
	  CI_GPU_MAX_WARPS, "warps", FIELDS(warp_fields), { offsetof(struct ci_gpu_warp, lane_first), NOFF, NOFF },
	  offsetof(struct ci_gpu_warp, cta), GC_ARR(ctas), sizeof(struct ci_gpu_cta),
	  offsetof(struct ci_gpu_cta, warp_first), offsetof(struct ci_gpu_cta, warp_count) },
	{ T_LANE, T_WARP, GC_ARR(lanes), GC_ARR(lane_count), sizeof(struct ci_gpu_lane),
	  CI_GPU_MAX_LANES, "lanes", FIELDS(lane_fields), { NOFF, NOFF, NOFF },
	  offsetof(struct ci_gpu_lane, warp), GC_ARR(warps), sizeof(struct ci_gpu_warp),
	  offsetof(struct ci_gpu_warp, lane_first), offsetof(struct ci_gpu_warp, lane_count) },
};

static struct ci_error *read_devices(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	char lab[200];
	if (ps->nbytype[T_DEV] == 0)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump without a device table (no section of type "
				       "CUDBG_SHT_DEV_TABLE): nothing in it can be placed on a device",
				       gc->name);
	bool nm = false;
	SECS(T_DEV) {
		uint32_t sec = SEC_INDEX(T_DEV);
		struct gshdr s;
		uint64_t rows;
		if (!shdr_read(ps, sec, &s) || !table_rows(gc, sec, &s, T_DEV, &rows))
			continue;
		if (ps->tabs[T_DEV].n) {
			pwarn(gc, W_DUP, "%s is a second device table: left out (a dump has one)",
			      sec_label(ps, sec, lab, sizeof lab));
			continue;
		}
		if (rows > CI_GPU_MAX_DEVICES) {
			pwarn(gc, W_CAP, "its device table has %llu rows, more than the %u devices this reader "
			      "keeps: the rest are left out", (unsigned long long)rows, CI_GPU_MAX_DEVICES);
			rows = CI_GPU_MAX_DEVICES;
		}
		if (!grow(gc, (void **)&gc->devices, &ps->cap_devices, 0, rows, sizeof *gc->devices,
			  CI_GPU_MAX_DEVICES, "devices", &nm))
			return nomem(gc);
		for (uint64_t r = 0; r < rows; r++) {
			struct row w = row_at(ps, &s, r);
			struct ci_gpu_device *d = &gc->devices[gc->device_count++];
			memset(d, 0, sizeof *d);
			read_fields(d, w, FIELDS(device_fields));
			d->name = strtab_get(gc, r64(w, 0), "device name");
			d->type = strtab_get(gc, r64(w, 8), "device type");
			d->sm_type = strtab_get(gc, r64(w, 16), "SM type");
			d->sm_first = CI_GPU_NONE;
		}
		if (!tab_add(gc, T_DEV, sec, 0, gc->device_count))
			return nomem(gc);
	}
	if (gc->device_count == 0)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump whose device table has no readable row",
				       gc->name);
	return NULL;
}

/* Every table section of kind K: each becomes a run of objects under its parent row. */
static struct ci_error *read_tables(struct ci_gpucore *gc, const struct table_kind *k)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	char lab[200];
	bool nm = false, capped = false;
	void **arr = (void **)((char *)gc + k->arr);
	size_t *count = (size_t *)((char *)gc + k->count);
	size_t *cap = &ps->caps[k->t];
	SECS(k->t) {
		uint32_t sec = SEC_INDEX(k->t);
		struct gshdr s;
		uint64_t rows;
		if (!shdr_read(ps, sec, &s) || !table_rows(gc, sec, &s, k->t, &rows))
			continue;
		size_t parent = parent_of(gc, sec, &s, k->t, k->pt);
		if (parent == CI_GPU_NONE)
			continue;
		char *pobj = *(char **)((char *)gc + k->parent_arr) + parent * k->parent_elem;
		size_t *pfirst = k->child_first != NOFF ? (size_t *)(pobj + k->child_first) : NULL;
		if (pfirst && *pfirst != CI_GPU_NONE) {
			pwarn(gc, W_DUP, "%s is a second %s for the same parent row: left out",
			      sec_label(ps, sec, lab, sizeof lab), type_label(k->t));
			continue;
		}
		if (capped || !grow(gc, arr, cap, *count, rows, k->elem, k->cap_max, k->what, &nm)) {
			if (nm)
				return nomem(gc);
			capped = true;
			continue;
		}
		size_t first = *count;
		for (uint64_t r = 0; r < rows; r++) {
			char *obj = (char *)*arr + (*count)++ * k->elem;
			memset(obj, 0, k->elem);
			read_fields(obj, row_at(ps, &s, r), k->fields, k->nfields);
			memcpy(obj + k->parent_member, &parent, sizeof parent);
			for (int n = 0; n < 3; n++)
				if (k->none[n] != NOFF)
					memcpy(obj + k->none[n], &(size_t){ CI_GPU_NONE }, sizeof(size_t));
		}
		if (pfirst) {
			*pfirst = first;
			memcpy(pobj + k->child_count, &(size_t){ (size_t)rows }, sizeof(size_t));
		}
		if (!tab_add(gc, k->t, sec, first, (size_t)rows))
			return nomem(gc);
	}
	return NULL;
}

/* Leaves: sections that hang off one row of a table (cubins, registers, parameters...): where
 * the section's file offset and its size (bytes, 4-byte words or rows) go in the parent object. */
enum leaf_unit { LEAF_BYTES, LEAF_WORDS, LEAF_ROWS };
struct leaf_kind {
	unsigned t, pt;
	size_t parent_arr, parent_elem, off_member, size_member;
	enum leaf_unit unit;
};
static const struct leaf_kind leaf_kinds[] = {
	{ T_RELF_IMG, T_MOD, GC_ARR(modules), sizeof(struct ci_gpu_module), offsetof(struct ci_gpu_module, cubin_offset),
	  offsetof(struct ci_gpu_module, cubin_size), LEAF_BYTES },
	{ T_ELF_IMG, T_MOD, GC_ARR(modules), sizeof(struct ci_gpu_module), offsetof(struct ci_gpu_module, image_offset),
	  offsetof(struct ci_gpu_module, image_size), LEAF_BYTES },
	{ T_PARAM, T_GRID, GC_ARR(grids), sizeof(struct ci_gpu_grid), offsetof(struct ci_gpu_grid, params_file_offset),
	  offsetof(struct ci_gpu_grid, params_size), LEAF_BYTES },
	{ T_SHARED, T_CTA, GC_ARR(ctas), sizeof(struct ci_gpu_cta), offsetof(struct ci_gpu_cta, shared_offset),
	  offsetof(struct ci_gpu_cta, shared_size), LEAF_BYTES },
	{ T_UREGS, T_WARP, GC_ARR(warps), sizeof(struct ci_gpu_warp), offsetof(struct ci_gpu_warp, uregs_offset),
	  offsetof(struct ci_gpu_warp, uregs_count), LEAF_WORDS },
	{ T_REGS, T_LANE, GC_ARR(lanes), sizeof(struct ci_gpu_lane), offsetof(struct ci_gpu_lane, regs_offset),
	  offsetof(struct ci_gpu_lane, regs_count), LEAF_WORDS },
	{ T_PRED, T_LANE, GC_ARR(lanes), sizeof(struct ci_gpu_lane), offsetof(struct ci_gpu_lane, preds_offset),
	  offsetof(struct ci_gpu_lane, preds_count), LEAF_WORDS },
	{ T_BT, T_LANE, GC_ARR(lanes), sizeof(struct ci_gpu_lane), NOFF, offsetof(struct ci_gpu_lane, bt_count),
	  LEAF_ROWS },
};

static struct ci_error *read_leaves(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	char lab[200];
	for (size_t k = 0; k < sizeof leaf_kinds / sizeof leaf_kinds[0]; k++) {
		const struct leaf_kind *lk = &leaf_kinds[k];
		SECS(lk->t) {
			uint32_t sec = SEC_INDEX(lk->t);
			struct gshdr s;
			if (!shdr_read(ps, sec, &s))
				continue;
			size_t o = parent_of(gc, sec, &s, lk->t, lk->pt);
			if (o == CI_GPU_NONE)
				continue;
			char *obj = *(char **)((char *)gc + lk->parent_arr) + o * lk->parent_elem;
			uint64_t n = lk->unit == LEAF_BYTES ? s.size
				     : lk->unit == LEAF_WORDS ? s.size / 4 : s.entsize ? s.size / s.entsize : 0;
			uint64_t have = 0;
			if (lk->unit == LEAF_BYTES) {
				memcpy(&have, obj + lk->size_member, sizeof have);
			} else {
				uint32_t h32;
				memcpy(&h32, obj + lk->size_member, sizeof h32);
				have = h32;
				n = n > UINT32_MAX ? UINT32_MAX : n;
			}
			if (have) {
				pwarn(gc, W_DUP, "%s is a second %s for the same row: left out",
				      sec_label(ps, sec, lab, sizeof lab), type_label(lk->t));
				continue;
			}
			if (lk->off_member != NOFF)
				memcpy(obj + lk->off_member, &s.offset, sizeof s.offset);
			if (lk->unit == LEAF_BYTES)
				memcpy(obj + lk->size_member, &n, sizeof n);
			else
				memcpy(obj + lk->size_member, &(uint32_t){ (uint32_t)n }, sizeof(uint32_t));
		}
	}
	/* Memory ranges: sh_addr is the address. */
	bool nm = false;
	for (unsigned t = T_MANAGED; t <= T_GLOBAL; t++) {
		SECS(t) {
			struct gshdr s;
			if (!shdr_read(ps, SEC_INDEX(t), &s) || s.size == 0)
				continue;
			if (!grow(gc, (void **)&gc->memory, &ps->cap_memory, gc->memory_count, 1, sizeof *gc->memory,
				  CI_GPU_MAX_MEMORY, "memory sections", &nm)) {
				if (nm)
					return nomem(gc);
				break;
			}
			gc->memory[gc->memory_count++] = (struct ci_gpu_memory){ s.addr, s.size, s.offset, t == T_MANAGED };
		}
	}
	return NULL;
}

static void read_meta(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	if (ps->nbytype[T_META] == 0)
		return;
	struct gshdr s;
	if (!shdr_read(ps, ps->bytype[T_META][0], &s))
		return;
	/* The r580 driver writes the metadata with sh_entsize 0: one row of sh_size bytes. */
	struct row w = { ps->img + s.offset, s.entsize && s.entsize < s.size ? s.entsize : s.size };
	if (w.len > CI_GPU_MAX_ROW)
		w.len = CI_GPU_MAX_ROW;
	gc->meta.present = true;
	gc->meta.generator = strtab_get(gc, r64(w, 0), "producer's name");
	gc->meta.driver_major = r32(w, 8);
	gc->meta.driver_minor = r32(w, 12);
	gc->meta.cuda_major = r32(w, 16);
	gc->meta.cuda_minor = r32(w, 20);
	gc->meta.flags = r32(w, 24);
	gc->meta.timestamp = r32(w, 28);
}

/* ---------------------------------------------------------------------------------------- */
/* Joins                                                                                      */

/* The join keys' order: by KEY1, then KEY2, then the row index (IA, IB), so equal keys keep
 * the table's order. */
static int key_cmp(uint64_t x1, uint64_t x2, size_t ia, uint64_t y1, uint64_t y2, size_t ib)
{
	if (x1 != y1)
		return x1 < y1 ? -1 : 1;
	if (x2 != y2)
		return x2 < y2 ? -1 : 1;
	return ia < ib ? -1 : 1;
}

static int grid_key_cmp(const void *a, const void *b, void *arg)
{
	const struct ci_gpucore *gc = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ci_gpu_grid *x = &gc->grids[i], *y = &gc->grids[j];
	return key_cmp(x->device, x->id, i, y->device, y->id, j);
}

static int context_key_cmp(const void *a, const void *b, void *arg)
{
	const struct ci_gpucore *gc = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ci_gpu_context *x = &gc->contexts[i], *y = &gc->contexts[j];
	return key_cmp(x->device, x->id, i, y->device, y->id, j);
}

static int module_key_cmp(const void *a, const void *b, void *arg)
{
	const struct ci_gpucore *gc = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return key_cmp(gc->modules[i].handle, 0, i, gc->modules[j].handle, 0, j);
}

static struct ci_gpu_module *module_checked(struct ci_gpucore *gc, size_t m);

static struct ci_cubin *module_cubin(struct ci_gpucore *gc, size_t m)
{
	struct ci_gpu_module *mod = module_checked(gc, m);
	if (!mod || !mod->cubin_size || mod->cubin_bad_)
		return NULL;
	if (mod->cubin_)
		return mod->cubin_;
	struct ci_gpucore_priv *ps = gc->priv_;
	char name[96];
	snprintf(name, sizeof name, "the cubin of module 0x%llx", (unsigned long long)mod->handle);
	struct ci_error *err = ci_cubin_open(name, ps->img + mod->cubin_offset, (size_t)mod->cubin_size, &mod->cubin_);
	if (err) {
		pwarn(gc, W_CUBIN, "%s", err->message);
		ci_error_destroy(err);
		mod->cubin_bad_ = true;
		mod->cubin_ = NULL;
		return NULL;
	}
	return mod->cubin_;
}

static struct ci_gpu_module *module_checked(struct ci_gpucore *gc, size_t m)
{
	return m < gc->module_count ? &gc->modules[m] : NULL;
}

static struct ci_error *join(struct ci_gpucore *gc)
{
	/* Grids by (device, id), for CTAs. */
	size_t *gidx = malloc((gc->grid_count ? gc->grid_count : 1) * sizeof *gidx);
	size_t *midx = malloc((gc->module_count ? gc->module_count : 1) * sizeof *midx);
	size_t *last_sm = malloc((gc->grid_count ? gc->grid_count : 1) * sizeof *last_sm);
	size_t *cidx = malloc((gc->context_count ? gc->context_count : 1) * sizeof *cidx);
	if (!gidx || !midx || !last_sm || !cidx) {
		free(gidx), free(midx), free(last_sm), free(cidx);
		return nomem(gc);
	}
	for (size_t i = 0; i < gc->context_count; i++)
		cidx[i] = i;
	qsort_r(cidx, gc->context_count, sizeof *cidx, context_key_cmp, gc);
	for (size_t i = 0; i < gc->grid_count; i++)
		gidx[i] = i, last_sm[i] = CI_GPU_NONE;
	qsort_r(gidx, gc->grid_count, sizeof *gidx, grid_key_cmp, gc);
	for (size_t i = 0; i < gc->module_count; i++)
		midx[i] = i;
	qsort_r(midx, gc->module_count, sizeof *midx, module_key_cmp, gc);

	for (size_t c = 0; c < gc->cta_count; c++) {
		struct ci_gpu_cta *cta = &gc->ctas[c];
		size_t dev = gc->sms[cta->sm].device;
		size_t lo = 0, hi = gc->grid_count;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct ci_gpu_grid *g = &gc->grids[gidx[mid]];
			if (g->device < dev || (g->device == dev && g->id < cta->grid_id))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < gc->grid_count && gc->grids[gidx[lo]].device == dev && gc->grids[gidx[lo]].id == cta->grid_id) {
			size_t g = gidx[lo];
			cta->grid = g;
			gc->grids[g].ctas++;
			gc->grids[g].warps += cta->warp_first == CI_GPU_NONE ? 0 : cta->warp_count;
			if (last_sm[g] != cta->sm) {
				/* CTAs of one SM are consecutive, so a change of SM is a new SM. */
				last_sm[g] = cta->sm;
				gc->grids[g].sms++;
			}
		}
	}
	for (size_t g = 0; g < gc->grid_count; g++) {
		struct ci_gpu_grid *gr = &gc->grids[g];
		/* The context: same device, same id. */
		size_t lo = 0, hi = gc->context_count;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct ci_gpu_context *c = &gc->contexts[cidx[mid]];
			if (c->device < gr->device || (c->device == gr->device && c->id < gr->context_id))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < gc->context_count && gc->contexts[cidx[lo]].device == gr->device &&
		    gc->contexts[cidx[lo]].id == gr->context_id)
			gr->context = cidx[lo];
		/* The module: the handle, preferring the grid's context. */
		lo = 0, hi = gc->module_count;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (gc->modules[midx[mid]].handle < gr->module_handle)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < gc->module_count && gc->modules[midx[k]].handle == gr->module_handle; k++) {
			const struct ci_gpu_module *m = &gc->modules[midx[k]];
			if (gc->contexts[m->context].device != gr->device)
				continue;
			if (gr->module == CI_GPU_NONE || m->context == gr->context)
				gr->module = midx[k];
		}
		struct ci_cubin *cb = gr->module != CI_GPU_NONE ? module_cubin(gc, gr->module) : NULL;
		if (cb)
			gr->function_name = ci_cubin_function_at_entry(cb, gr->function_entry);
	}
	free(gidx);
	free(midx);
	free(last_sm);
	free(cidx);
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Where a PC is                                                                              */

static bool where_in(struct ci_gpucore *gc, size_t m, uint64_t pc, struct ci_gpu_where *ret)
{
	struct ci_cubin *cb = module_cubin(gc, m);
	const char *fn;
	uint64_t start;
	if (!cb || !ci_cubin_function(cb, pc, &fn, &start))
		return false;
	ret->module = m;
	ret->function = fn;
	ret->function_start = start;
	ret->offset = pc - start;
	const char *file, *dir, *warn = NULL;
	uint32_t line;
	if (ci_cubin_line(cb, pc, &file, &dir, &line, &warn)) {
		ret->file = file;
		ret->dir = dir;
		ret->line = line;
	}
	if (warn)
		pwarn(gc, W_LINES, "the line table of module 0x%llx cannot be read to its end (%s): lines "
		      "after the damage are not known", (unsigned long long)gc->modules[m].handle, warn);
	gc->priv_->where_last = m;
	return true;
}

bool ci_gpucore_where(struct ci_gpucore *gc, uint64_t pc, size_t module, struct ci_gpu_where *ret)
{
	memset(ret, 0, sizeof *ret);
	ret->module = CI_GPU_NONE;
	bool found = (module != CI_GPU_NONE && where_in(gc, module, pc, ret)) ||
		     (gc->priv_->where_last != module && where_in(gc, gc->priv_->where_last, pc, ret));
	for (size_t m = 0; !found && m < gc->module_count; m++)
		if (m != module)
			found = where_in(gc, m, pc, ret);
	flush_warnings(gc);
	return found;
}

bool ci_gpucore_lane_reg(const struct ci_gpucore *gc, size_t lane, uint32_t reg, uint32_t *val)
{
	*val = 0;
	if (lane >= gc->lane_count)
		return false;
	if (reg == 255)
		return true;
	const struct ci_gpu_lane *l = &gc->lanes[lane];
	if (reg >= l->regs_count)
		return false;
	struct ci_bytes b = ci_bytes_make(gc->priv_->img, (size_t)gc->priv_->size);
	return ci_bytes_seek(&b, l->regs_offset + 4ull * reg) && ci_bytes_u32(&b, val);
}

bool ci_gpucore_warp_ureg(const struct ci_gpucore *gc, size_t warp, uint32_t ureg, uint32_t *val)
{
	*val = 0;
	if (warp >= gc->warp_count || ureg >= gc->warps[warp].uregs_count)
		return false;
	struct ci_bytes b = ci_bytes_make(gc->priv_->img, (size_t)gc->priv_->size);
	return ci_bytes_seek(&b, gc->warps[warp].uregs_offset + 4ull * ureg) && ci_bytes_u32(&b, val);
}

bool ci_gpucore_grid_params(const struct ci_gpucore *gc, size_t grid, uint64_t offset, uint64_t *val)
{
	*val = 0;
	if (grid >= gc->grid_count || !ci_range_ok(offset, 8, gc->grids[grid].params_size))
		return false;
	struct ci_bytes b = ci_bytes_make(gc->priv_->img, (size_t)gc->priv_->size);
	return ci_bytes_seek(&b, gc->grids[grid].params_file_offset + offset) && ci_bytes_u64(&b, val);
}

const uint8_t *ci_gpucore_module_cubin(const struct ci_gpucore *gc, size_t module, uint64_t *size)
{
	*size = 0;
	if (module >= gc->module_count || !gc->modules[module].cubin_size)
		return NULL;
	*size = gc->modules[module].cubin_size;
	return gc->priv_->img + gc->modules[module].cubin_offset;
}

/* ---------------------------------------------------------------------------------------- */
/* The exception, as cuda-gdb focuses it                                                      */

/* Whether lane L has a thread (its bit in the warp's valid mask; lanes past 31 count). */
static bool lane_valid(const struct ci_gpucore *gc, size_t l)
{
	const struct ci_gpu_lane *ln = &gc->lanes[l];
	return ln->ln >= 32 || (gc->warps[ln->warp].valid_mask >> ln->ln & 1);
}

/* Order of lanes in cuda-gdb's search: device, SM number, hardware warp, hardware lane. */
static bool lane_before(const struct ci_gpucore *gc, size_t a, size_t b)
{
	const struct ci_gpu_lane *x = &gc->lanes[a], *y = &gc->lanes[b];
	const struct ci_gpu_warp *wx = &gc->warps[x->warp], *wy = &gc->warps[y->warp];
	const struct ci_gpu_sm *sx = &gc->sms[gc->ctas[wx->cta].sm], *sy = &gc->sms[gc->ctas[wy->cta].sm];
	if (sx->device != sy->device)
		return sx->device < sy->device;
	if (sx->sm_id != sy->sm_id)
		return sx->sm_id < sy->sm_id;
	if (wx->warp_id != wy->warp_id)
		return wx->warp_id < wy->warp_id;
	return x->ln < y->ln;
}

static void fault_at_lane(struct ci_gpucore *gc, size_t l, uint32_t exception, enum ci_gpu_fault_kind kind)
{
	struct ci_gpu_fault *f = &gc->fault;
	const struct ci_gpu_lane *ln = &gc->lanes[l];
	const struct ci_gpu_warp *w = &gc->warps[ln->warp];
	const struct ci_gpu_cta *cta = &gc->ctas[w->cta];
	const struct ci_gpu_sm *sm = &gc->sms[cta->sm];
	f->kind = kind;
	f->exception = exception;
	f->lane = l;
	f->warp = ln->warp;
	f->cta = w->cta;
	f->sm = cta->sm;
	f->device = sm->device;
	f->grid = cta->grid;
	f->has_pc = true;
	f->pc = ln->virtual_pc;
	if (w->error_pc_valid) {
		f->error_pc_valid = true;
		f->error_pc = w->error_pc;
		f->error_pc_from = "warp";
	} else if (sm->error_pc_valid) {
		f->error_pc_valid = true;
		f->error_pc = sm->error_pc;
		f->error_pc_from = "SM";
	}
}

/* The access at the error PC, and the address it went to when the lane's registers show it. */
static void decode_access(struct ci_gpucore *gc)
{
	struct ci_gpu_fault *f = &gc->fault;
	struct ci_gpu_access *a = &f->access;
	if (!f->error_pc_valid)
		return;
	const struct ci_gpu_device *dev = &gc->devices[f->device];
	uint32_t isz = dev->instruction_size ? dev->instruction_size : 16;
	struct ci_cubin *cb = f->error_where.module != CI_GPU_NONE ? module_cubin(gc, f->error_where.module) : NULL;
	const uint8_t *code = cb && isz == 16 ? ci_cubin_code(cb, f->error_pc, 16) : NULL;
	if (!code) {
		a->status = CI_GPU_ACCESS_NO_CODE;
		return;
	}
	memcpy(a->insn, code, 16);
	a->have_insn = true;
	struct ci_sass_access sa;
	uint32_t major = dev->sm_major, minor = dev->sm_minor;
	if (!major && cb) {
		major = ci_cubin_sm(cb) / 10;
		minor = ci_cubin_sm(cb) % 10;
	}
	if (!ci_sass_decode_access(major, minor, code, &sa)) {
		a->status = CI_GPU_ACCESS_NOT_DECODED;
		return;
	}
	snprintf(a->text, sizeof a->text, "%s", sa.text);
	a->op = sa.op;
	a->kind = sa.kind;
	a->width = sa.width;
	a->base_reg = sa.base_reg;
	a->base_wide = sa.base_wide;
	a->offset = sa.offset;
	uint32_t lo = 0, hi = 0;
	if (f->lane == CI_GPU_NONE || !ci_gpucore_lane_reg(gc, f->lane, sa.base_reg, &lo) ||
	    (sa.base_wide && sa.base_reg != 255 && !ci_gpucore_lane_reg(gc, f->lane, sa.base_reg + 1, &hi))) {
		a->status = CI_GPU_ACCESS_NO_REGISTERS;
		return;
	}
	a->base_value = sa.base_wide ? (uint64_t)hi << 32 | lo : lo;
	a->address = a->base_value + (uint64_t)sa.offset;
	/* The registers are the lane's at its halted PC.  They are the access's own when nothing
	 * ran after it: the lane stopped at the instruction or right after it, and the instruction
	 * did not write its own address registers (a faulting load's result never arrives, but a
	 * reader cannot tell a load that completed; so a load into its own address counts as later). */
	bool overlap = sa.dst_reg >= 0 && sa.base_reg != 255 &&
		       ((uint32_t)sa.dst_reg == sa.base_reg || (sa.base_wide && (uint32_t)sa.dst_reg == sa.base_reg + 1));
	if (f->pc == f->error_pc || (f->pc == f->error_pc + isz && !overlap)) {
		a->status = CI_GPU_ACCESS_ADDRESS;
	} else {
		a->status = CI_GPU_ACCESS_STALE;
		a->instructions_after = f->pc > f->error_pc ? (uint32_t)((f->pc - f->error_pc) / isz > UINT32_MAX ? UINT32_MAX : (f->pc - f->error_pc) / isz) : 0;
	}
}

static void find_fault(struct ci_gpucore *gc)
{
	struct ci_gpu_fault *f = &gc->fault;
	memset(f, 0, sizeof *f);
	f->device = f->sm = f->cta = f->warp = f->lane = f->grid = CI_GPU_NONE;
	f->error_where.module = f->pc_where.module = CI_GPU_NONE;
	size_t best = CI_GPU_NONE, last_warp = CI_GPU_NONE;
	for (size_t l = 0; l < gc->lane_count; l++) {
		if (!gc->lanes[l].exception || !lane_valid(gc, l))
			continue;
		f->lanes_with_exception++;
		if (gc->lanes[l].warp != last_warp) {
			last_warp = gc->lanes[l].warp;
			f->warps_with_exception++;
		}
		if (best == CI_GPU_NONE || lane_before(gc, l, best))
			best = l;
	}
	for (size_t s = 0; s < gc->sm_count; s++)
		f->sms_with_exception += gc->sms[s].exception != 0;
	if (best != CI_GPU_NONE) {
		fault_at_lane(gc, best, gc->lanes[best].exception, CI_GPU_FAULT_LANE);
	} else {
		/* A warp with an error PC on an SM with an exception: its first active lane. */
		for (size_t l = 0; l < gc->lane_count; l++) {
			const struct ci_gpu_lane *ln = &gc->lanes[l];
			const struct ci_gpu_warp *w = &gc->warps[ln->warp];
			const struct ci_gpu_sm *sm = &gc->sms[gc->ctas[w->cta].sm];
			if (!w->error_pc_valid || !sm->exception || ln->ln >= 32 || !(w->active_mask >> ln->ln & 1))
				continue;
			if (best == CI_GPU_NONE || lane_before(gc, l, best))
				best = l;
		}
		if (best != CI_GPU_NONE) {
			const struct ci_gpu_warp *w = &gc->warps[gc->lanes[best].warp];
			fault_at_lane(gc, best, gc->sms[gc->ctas[w->cta].sm].exception, CI_GPU_FAULT_WARP);
		}
	}
	if (f->kind == CI_GPU_FAULT_NONE) {
		/* An SM's exception whose warp exited: no lane, the SM's error PC. */
		size_t sbest = CI_GPU_NONE;
		for (size_t s = 0; s < gc->sm_count; s++) {
			const struct ci_gpu_sm *sm = &gc->sms[s];
			if (!sm->exception)
				continue;
			if (sbest == CI_GPU_NONE || sm->device < gc->sms[sbest].device ||
			    (sm->device == gc->sms[sbest].device && sm->sm_id < gc->sms[sbest].sm_id))
				sbest = s;
		}
		if (sbest != CI_GPU_NONE) {
			const struct ci_gpu_sm *sm = &gc->sms[sbest];
			f->kind = CI_GPU_FAULT_SM;
			f->exception = sm->exception;
			f->sm = sbest;
			f->device = sm->device;
			f->error_pc_valid = sm->error_pc_valid;
			f->error_pc = sm->error_pc;
			f->error_pc_from = "SM";
		}
	}
	if (f->kind == CI_GPU_FAULT_NONE) {
		/* A warp stopped at a trap: broken, with active lanes. */
		for (size_t l = 0; l < gc->lane_count; l++) {
			const struct ci_gpu_lane *ln = &gc->lanes[l];
			const struct ci_gpu_warp *w = &gc->warps[ln->warp];
			if (!w->broken || ln->ln >= 32 || !(w->active_mask >> ln->ln & 1))
				continue;
			if (best == CI_GPU_NONE || lane_before(gc, l, best))
				best = l;
		}
		if (best != CI_GPU_NONE)
			fault_at_lane(gc, best, 0, CI_GPU_FAULT_TRAP);
	}
	if (f->kind == CI_GPU_FAULT_NONE)
		return;
	size_t module = f->grid != CI_GPU_NONE ? gc->grids[f->grid].module : CI_GPU_NONE;
	if (f->error_pc_valid)
		ci_gpucore_where(gc, f->error_pc, module, &f->error_where);
	if (f->has_pc)
		ci_gpucore_where(gc, f->pc, module, &f->pc_where);
	/* An SM-only fault: the grid is the one whose function holds the error PC, if one does. */
	if (f->grid == CI_GPU_NONE && f->error_where.module != CI_GPU_NONE)
		for (size_t g = 0; g < gc->grid_count; g++)
			if (gc->grids[g].device == f->device && gc->grids[g].module == f->error_where.module &&
			    gc->grids[g].function_entry == f->error_where.function_start) {
				f->grid = g;
				break;
			}
	decode_access(gc);
}

/* ---------------------------------------------------------------------------------------- */
/* The container                                                                              */

bool ci_gpucore_sniff(const uint8_t *p, size_t n)
{
	if (n < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0)
		return false;
	uint16_t type = (uint16_t)(p[16] | p[17] << 8), machine = (uint16_t)(p[18] | p[19] << 8);
	return p[EI_CLASS] == ELFCLASS64 && p[EI_DATA] == ELFDATA2LSB && p[EI_OSABI] == ELFOSABI_CUDA_ &&
	       type == ET_CORE && machine == EM_CUDA_;
}

/* What a file that is not a GPU core is, for the message. */
static const char *not_gpucore(const uint8_t *p, size_t n, char *buf, size_t len)
{
	if (n >= 4 && memcmp(p, ELFMAG, SELFMAG) == 0) {
		if (n < sizeof(Elf64_Ehdr)) {
			snprintf(buf, len, "an ELF file cut short inside its header (%zu bytes)", n);
			return buf;
		}
		uint16_t type = (uint16_t)(p[16] | p[17] << 8), machine = (uint16_t)(p[18] | p[19] << 8);
		if (type == ET_CORE && machine != EM_CUDA_)
			snprintf(buf, len, "a host core dump (ELF core of machine %u): read it as a host core, "
				 "not as a GPU core", machine);
		else if (machine == EM_CUDA_ && type != ET_CORE)
			snprintf(buf, len, "a cubin or other CUDA ELF image (e_type %u), not a core dump", type);
		else if (machine == EM_CUDA_)
			snprintf(buf, len, "an ELF core of the CUDA machine type with OS ABI %u, not 51 (ELFOSABI_CUDA)",
				 p[EI_OSABI]);
		else
			snprintf(buf, len, "an ELF file of type %u for machine %u, not a GPU core dump", type, machine);
		return buf;
	}
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		snprintf(buf, len, "a gzip file (GPU cores written with the gzip_compress flag are): "
			 "decompress it first (gunzip)");
		return buf;
	}
	if (n >= CI_RECORD_MAGIC_LEN && memcmp(p, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) == 0) {
		snprintf(buf, len, "a cudainspect record file, not a GPU core dump");
		return buf;
	}
	char hex[3 * 8 + 1] = "";
	for (size_t i = 0; i < n && i < 8; i++)
		snprintf(hex + 3 * i, sizeof hex - 3 * i, "%02x ", p[i]);
	if (*hex)
		hex[strlen(hex) - 1] = 0;
	snprintf(buf, len, "not an ELF file (it starts with %s)", *hex ? hex : "nothing");
	return buf;
}

static struct ci_error *parse(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	const uint8_t *p = ps->img;
	uint64_t size = ps->size;
	char what[200];
	if (size == 0)
		return ci_error_create(CI_ERR_FORMAT, "%s is empty (0 bytes): not a GPU core dump", gc->name);
	if (!ci_gpucore_sniff(p, (size_t)(size < sizeof(Elf64_Ehdr) ? size : sizeof(Elf64_Ehdr))))
		return ci_error_create(CI_ERR_FORMAT, "%s is not a CUDA GPU core dump: it is %s%s", gc->name,
				       not_gpucore(p, (size_t)size, what, sizeof what),
				       gc->compressed ? " (after zstd decompression)" : "");
	struct ci_gpu_ehdr eh;
	ci_gpu_elf_header(p, (size_t)size, &eh);
	gc->abi_version = eh.abi_version;
	if (eh.abi_version != CUDA_ABI_VERSION)
		ci_warnings_add(&gc->warnings,
				"%s: ELF ABI version %u, where the format this reader knows has %u: tables are "
				"read by the same rules (fields are only appended), but check what looks odd",
				gc->name, eh.abi_version, CUDA_ABI_VERSION);
	uint64_t shoff = eh.shoff;
	if (eh.shentsize != sizeof(Elf64_Shdr))
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump with section headers of %u bytes (64 expected): "
				       "it is damaged", gc->name, eh.shentsize);
	if (shoff == 0)
		return ci_error_create(CI_ERR_CORRUPT, "%s is a CUDA GPU core dump without a section table "
				       "(e_shoff 0): it is damaged", gc->name);
	/* More than 0xff00 sections (the usual case: three per lane): section 0 holds the count in
	 * sh_size and the name table's index in sh_link (ci_gpu_elf_header read them). */
	if (!ci_range_ok(shoff, sizeof(Elf64_Shdr), size))
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump cut short: its section table starts at offset "
				       "%llu, past the end of the file (%llu bytes). The driver writes the table "
				       "last, so nothing can be found in a truncated GPU core; get the complete file%s",
				       gc->name, (unsigned long long)shoff, (unsigned long long)size,
				       gc->compressed ? " (the zstd stream may have been cut short too)" : "");
	ps->shoff = shoff;
	ps->shnum = eh.shnum;
	ps->shstrndx = eh.shstrndx;
	gc->section_count = ps->shnum;
	if (ps->shnum > CI_GPU_MAX_SECTIONS)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump that claims %llu sections, more than the %u "
				       "this reader reads", gc->name, (unsigned long long)ps->shnum, CI_GPU_MAX_SECTIONS);
	uint64_t end;
	if (!ci_mul(ps->shnum, sizeof(Elf64_Shdr), &end) || !ci_add(end, shoff, &end) || end > size)
		return ci_error_create(CI_ERR_CORRUPT,
				       "%s is a CUDA GPU core dump cut short: its section table (%llu headers of 64 "
				       "bytes at offset %llu) ends at %llu, past the end of the file (%llu bytes). "
				       "The driver writes the table last, so nothing can be found in a truncated GPU "
				       "core; get the complete file%s",
				       gc->name, (unsigned long long)ps->shnum, (unsigned long long)shoff,
				       (unsigned long long)end, (unsigned long long)size,
				       gc->compressed ? " (the zstd stream may have been cut short too)" : "");

	/* One pass: sort section indexes by type; find .strtab. */
	struct gshdr str;
	bool names = shdr_read(ps, ps->shstrndx, &str) && str.type == SHT_STRTAB &&
		     ci_range_ok(str.offset, str.size, size);
	uint64_t strtabs = 0, other_strtab = 0;
	for (uint64_t i = 1; i < ps->shnum; i++) {
		struct gshdr s;
		shdr_read(ps, i, &s);
		if (s.type == SHT_STRTAB && i != ps->shstrndx) {
			strtabs++;
			other_strtab = i;
			const char *n = NULL;
			if (names && s.name < str.size) {
				n = (const char *)p + str.offset + s.name;
				if (!memchr(n, 0, (size_t)(str.size - s.name)))
					n = NULL;
			}
			if (n && strcmp(n, ".strtab") == 0 && ci_range_ok(s.offset, s.size, size) && !ps->have_strtab) {
				ps->have_strtab = true;
				ps->strtab_off = s.offset;
				ps->strtab_size = s.size;
			}
			continue;
		}
		if (s.type <= SHT_CUDBG(0) || s.type >= SHT_CUDBG(T_MAX))
			continue; /* not ours: skipped, as NVIDIA's reader skips unknown types */
		unsigned t = s.type - SHT_CUDBG(0);
		if (!ci_range_ok(s.offset, s.size, size)) {
			char lab[200];
			pwarn(gc, W_PAST_END, "%s, a %s of %llu bytes at offset %llu, lies past the end of the file "
			      "(%llu bytes): left out", sec_label(ps, i, lab, sizeof lab), type_label(t),
			      (unsigned long long)s.size, (unsigned long long)s.offset, (unsigned long long)size);
			continue;
		}
		if (ci_vec_reserve((void **)&ps->bytype[t], &ps->capbytype[t], ps->nbytype[t] + 1, sizeof(uint32_t)) < 0)
			return nomem(gc);
		ps->bytype[t][ps->nbytype[t]++] = (uint32_t)i;
	}
	/* No section named .strtab but exactly one other string table: that one. */
	struct gshdr os;
	if (!ps->have_strtab && strtabs == 1 && shdr_read(ps, other_strtab, &os) && ci_range_ok(os.offset, os.size, size)) {
		ps->have_strtab = true;
		ps->strtab_off = os.offset;
		ps->strtab_size = os.size;
	}

	struct ci_error *err;
	if ((err = read_devices(gc)))
		return err;
	read_meta(gc);
	for (size_t k = 0; k < sizeof table_kinds / sizeof table_kinds[0]; k++)
		if ((err = read_tables(gc, &table_kinds[k])))
			return err;
	if ((err = read_leaves(gc)) || (err = join(gc)))
		return err;
	find_fault(gc);
	flush_warnings(gc);
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening                                                                                    */

void ci_gpucore_destroy(struct ci_gpucore *gc)
{
	if (!gc)
		return;
	struct ci_gpucore_priv *ps = gc->priv_;
	for (size_t m = 0; m < gc->module_count; m++)
		ci_cubin_destroy(gc->modules[m].cubin_);
	free(gc->devices);
	free(gc->contexts);
	free(gc->modules);
	free(gc->grids);
	free(gc->sms);
	free(gc->ctas);
	free(gc->warps);
	free(gc->lanes);
	free(gc->memory);
	ci_warnings_deinit(&gc->warnings);
	if (ps) {
		for (int t = 0; t < T_MAX; t++) {
			free(ps->bytype[t]);
			free(ps->tabs[t].v);
		}
		if (ps->guard)
			ci_source_close(ps->guard); /* lets go of the guard before the mapping goes */
		if (ps->map)
			munmap(ps->map, ps->map_size);
		free(ps->name);
		free(ps);
	}
	free(gc);
}

static struct ci_error *gpucore_new(const char *name, struct ci_gpucore **ret)
{
	struct ci_gpucore *gc = calloc(1, sizeof *gc);
	if (!gc || !(gc->priv_ = calloc(1, sizeof *gc->priv_)) || !(gc->priv_->name = strdup(name))) {
		ci_gpucore_destroy(gc);
		return ci_error_create(CI_ERR_NOMEM, "out of memory opening %s", name);
	}
	gc->name = gc->priv_->name;
	gc->priv_->where_last = CI_GPU_NONE;
	gc->fault.device = gc->fault.sm = gc->fault.cta = gc->fault.warp = gc->fault.lane = gc->fault.grid = CI_GPU_NONE;
	*ret = gc;
	return NULL;
}

/* Decompress a zstd IMAGE through the reader's bounded decompressor into a mapped temporary
 * file that GC then reads. */
static struct ci_error *gpucore_unzstd(struct ci_gpucore *gc, const uint8_t *image, size_t size,
				       const struct ci_source_options *opts, uint64_t max_decompressed)
{
	struct ci_source *src;
	struct ci_error *err = ci_source_new(CI_SOURCE_CORE, gc->name, opts, &src);
	if (err)
		return err;
	if (max_decompressed)
		src->max_decompressed = max_decompressed;
	int fd = -1;
	uint64_t out = 0;
	err = ci_source_decompress(src, image, size, &fd, &out);
	for (size_t i = 0; i < src->warnings.count; i++)
		ci_warnings_add(&gc->warnings, "%s", src->warnings.items[i]);
	ci_source_close(src);
	if (err)
		return err;
	void *map = out ? mmap(NULL, (size_t)out, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	int e = errno;
	close(fd);
	if (out && map == MAP_FAILED)
		return ci_error_create(CI_ERR_IO, "%s: cannot map the decompressed GPU core (%s)", gc->name, strerror(e));
	struct ci_gpucore_priv *ps = gc->priv_;
	if (ps->map)
		munmap(ps->map, ps->map_size);
	ps->map = map;
	ps->map_size = (size_t)out;
	ps->img = map;
	ps->size = out;
	gc->compressed = true;
	return NULL;
}

struct ci_error *ci_gpucore_from_memory(const char *name, const void *image, size_t size,
					uint64_t max_decompressed, struct ci_gpucore **ret)
{
	struct ci_gpucore *gc;
	struct ci_error *err = gpucore_new(name ? name : "buffer", &gc);
	if (err)
		return err;
	gc->priv_->img = image;
	gc->priv_->size = size;
	gc->file_size = size;
	if (ci_is_zstd(image, size))
		err = gpucore_unzstd(gc, image, size, NULL, max_decompressed);
	if (!err)
		err = parse(gc);
	if (err) {
		ci_gpucore_destroy(gc);
		return err;
	}
	ci_gpucore_check_shrink(gc);
	*ret = gc;
	return NULL;
}

bool ci_gpucore_check_shrink(struct ci_gpucore *gc)
{
	struct ci_gpucore_priv *ps = gc->priv_;
	if (!ps->guard || !ci_source_guard_faulted(ps->guard))
		return false;
	if (!ps->shrink_said) {
		ps->shrink_said = true;
		ci_warnings_add(&gc->warnings, "%s shrank while it was read (a GPU core still being written, "
				"or changed by another program): what lay past its new end read as zeros, and "
				"the report may be wrong; read a complete copy", gc->name);
	}
	return true;
}

struct ci_error *ci_gpucore_open(const char *path, const struct ci_source_options *opts,
				 struct ci_gpucore **ret)
{
	if (!path || !*path)
		return ci_error_create(CI_ERR_USAGE, "no GPU core file given");
	unsigned mode = 0;
	int fd = ci_open_regular(path, &mode);
	if (fd < 0) {
		int e = errno;
		const char *kind = e == EINVAL ? ci_file_kind(mode) : NULL;
		if (kind)
			return ci_error_create(CI_ERR_IO, "%s is %s, not a regular file; cudainspect reads only "
					       "regular files: save the GPU core to a file first", path, kind);
		if (e == ENOENT)
			return ci_error_create(CI_ERR_IO, "%s: no such file", path);
		return ci_error_create(CI_ERR_IO, "cannot open %s: %s", path, strerror(e));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return ci_error_create(CI_ERR_IO, "cannot stat %s: %s", path, strerror(e));
	}
	struct ci_gpucore *gc;
	struct ci_error *err = gpucore_new(path, &gc);
	if (err) {
		close(fd);
		return err;
	}
	struct ci_gpucore_priv *ps = gc->priv_;
	gc->file_size = (uint64_t)st.st_size;
	if (st.st_size > 0) {
		void *map = MAP_FAILED;
		err = ci_source_new(CI_SOURCE_CORE, path, opts, &ps->guard);
		if (err) {
			close(fd);
			ci_gpucore_destroy(gc);
			return err;
		}
		void *guarded = ci_source_map(ps->guard, fd, (size_t)st.st_size, MAP_PRIVATE);
		if (guarded)
			map = guarded;
		if (map == MAP_FAILED) {
			int e = errno;
			close(fd);
			ci_gpucore_destroy(gc);
			return ci_error_create(CI_ERR_IO, "cannot map %s: %s", path, strerror(e));
		}
		ps->map = map;
		ps->map_size = (size_t)st.st_size;
		ps->img = map;
		ps->size = (uint64_t)st.st_size;
	}
	close(fd);
	if (ci_is_zstd(ps->img, (size_t)ps->size)) {
		void *compressed = ps->map;
		size_t csize = ps->map_size;
		ps->map = NULL; /* so that gpucore_unzstd does not unmap what it reads */
		err = gpucore_unzstd(gc, compressed, csize, opts, 0);
		if (ps->guard && ci_source_guard_faulted(ps->guard))
			ci_warnings_add(&gc->warnings, "%s shrank while it was decompressed: what lay past its "
					"new end read as zeros", gc->name);
		/* The decompressed copy is a private temporary file: no guard from here on. */
		ci_source_close(ps->guard);
		ps->guard = NULL;
		munmap(compressed, csize);
	}
	if (!err)
		err = parse(gc);
	if (err) {
		ci_gpucore_destroy(gc);
		return err;
	}
	*ret = gc;
	return NULL;
}

const char *ci_gpu_where_path(const struct ci_gpu_where *w, char *buf, size_t n)
{
	char f[512], d[512];
	if (!w->file)
		snprintf(buf, n, "%s", "");
	else if (w->file[0] == '/' || !w->dir || !*w->dir)
		snprintf(buf, n, "%s", ci_scrub(w->file, f, sizeof f));
	else
		snprintf(buf, n, "%s/%s", ci_scrub(w->dir, d, sizeof d), ci_scrub(w->file, f, sizeof f));
	return buf;
}

size_t ci_gpucore_warp_first_lane(const struct ci_gpucore *gc, size_t w, uint32_t *exception)
{
	const struct ci_gpu_warp *wp = &gc->warps[w];
	size_t first = CI_GPU_NONE;
	*exception = 0;
	for (size_t l = 0; wp->lane_first != CI_GPU_NONE && l < wp->lane_count; l++) {
		const struct ci_gpu_lane *ln = &gc->lanes[wp->lane_first + l];
		if (first == CI_GPU_NONE && (ln->ln >= 32 || (wp->valid_mask >> ln->ln & 1)))
			first = wp->lane_first + l;
		if (ln->exception && !*exception)
			*exception = ln->exception;
	}
	return first;
}
