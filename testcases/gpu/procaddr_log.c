/*
 * libprocaddr-log.so: an LD_PRELOAD library that logs how a program reaches the CUDA driver,
 * for docs/GPU-VALIDATION.md, item 1: every dlsym of a driver (cuX...) name, every dlvsym and dlmopen, and every
 * cuGetProcAddress / cuGetProcAddress_v2 call (symbol, cudaVersion, flags, result, status, the
 * pointer returned and which exported symbol, if any, sits at that address).  Requests for
 * "cuGetProcAddress*" through either door are answered with this library's hooks, so the
 * lookups cudart makes through the pointer it got are logged too.  It changes no answer
 * otherwise.  One line per event goes to the file named by PROCADDR_LOG (appended), else to
 * stderr.  The real dlsym/dlvsym/dlmopen are found by reading libc's (or libdl's) dynamic
 * symbol table, because asking dlvsym for them would call this library's own dlvsym.
 * Limitation: dlsym(RTLD_NEXT, ...) is forwarded from here, so "next" means next after this
 * library, not after the caller (docs/RECORDER.md, "What interposers get wrong").
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cudaTypedefs.h>

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);

static dlsym_fn real_dlsym;
static dlvsym_fn real_dlvsym;
static dlmopen_fn real_dlmopen;
static PFN_cuGetProcAddress_v11030 real_gpa1;
static PFN_cuGetProcAddress_v12000 real_gpa2;
static int log_fd = 2;

/* ---- finding libc's own functions ------------------------------------------------------ */

struct lookup {
	const char *name;
	void *addr;
};

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t p)
{
	/* ld.so relocates these entries in place on x86-64; be safe where it does not. */
	return p < info->dlpi_addr ? p + info->dlpi_addr : p;
}

static int find_symbol(struct dl_phdr_info *info, size_t size, void *data)
{
	struct lookup *l = data;
	(void)size;
	if (l->addr || !info->dlpi_name ||
	    (!strstr(info->dlpi_name, "/libc.so") && !strstr(info->dlpi_name, "/libdl.so")))
		return 0;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const uint32_t *hash = NULL;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)dyn_ptr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)dyn_ptr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_GNU_HASH)
			hash = (const uint32_t *)dyn_ptr(info, dyn->d_un.d_ptr);
	}
	if (!symtab || !strtab || !hash)
		return 0;
	uint32_t nbuckets = hash[0], symoffset = hash[1], bloom_size = hash[2];
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)&hash[4] + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = gnu_hash(l->name);
	uint32_t i = buckets[h % nbuckets];
	if (i < symoffset)
		return 0;
	for (;; i++) {
		uint32_t h2 = chain[i - symoffset];
		const ElfW(Sym) *s = &symtab[i];
		if ((h2 | 1) == (h | 1) && s->st_shndx != SHN_UNDEF && s->st_value &&
		    strcmp(strtab + s->st_name, l->name) == 0) {
			l->addr = (void *)(info->dlpi_addr + s->st_value);
			return 1;
		}
		if (h2 & 1)
			return 0;
	}
}

static void *libc_function(const char *name)
{
	struct lookup l = {name, NULL};
	dl_iterate_phdr(find_symbol, &l);
	return l.addr;
}

/* ---- logging ----------------------------------------------------------------------------- */

__attribute__((format(printf, 1, 2))) static void logf_line(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	ssize_t w = write(log_fd, line, (size_t)n); /* one write per line: threads do not mix */
	(void)w;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : (path && *path ? path : "(main program)");
}

/* Object that contains code address `pc`. */
static const char *object_of(const void *pc)
{
	Dl_info info;
	return dladdr(pc, &info) ? base_name(info.dli_fname) : "?";
}

static void handle_name(void *handle, char *out, size_t len)
{
	struct link_map *map = NULL;
	if (handle == RTLD_DEFAULT)
		snprintf(out, len, "RTLD_DEFAULT");
	else if (handle == RTLD_NEXT)
		snprintf(out, len, "RTLD_NEXT");
	else if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map)
		snprintf(out, len, "%s", base_name(map->l_name));
	else
		snprintf(out, len, "%p", handle);
}

/* "exported=NAME" when p is the address of an exported symbol, else where it points. */
static void describe(const void *p, char *out, size_t len)
{
	Dl_info info;
	if (!p)
		snprintf(out, len, "null");
	else if (!dladdr(p, &info) || !info.dli_sname)
		snprintf(out, len, "unexported in %s", dladdr(p, &info) ? base_name(info.dli_fname) : "?");
	else if (info.dli_saddr == p)
		snprintf(out, len, "exported=%s in %s", info.dli_sname, base_name(info.dli_fname));
	else
		snprintf(out, len, "inside %s+0x%lx in %s", info.dli_sname,
			 (unsigned long)((const char *)p - (const char *)info.dli_saddr),
			 base_name(info.dli_fname));
}

__attribute__((constructor)) static void procaddr_init(void)
{
	real_dlsym = (dlsym_fn)libc_function("dlsym");
	real_dlvsym = (dlvsym_fn)libc_function("dlvsym");
	real_dlmopen = (dlmopen_fn)libc_function("dlmopen");
	const char *path = getenv("PROCADDR_LOG");
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0)
			log_fd = fd;
	}
	logf_line("procaddr: start pid=%d dlsym=%s dlvsym=%s dlmopen=%s", (int)getpid(),
		  real_dlsym ? "found" : "MISSING", real_dlvsym ? "found" : "MISSING",
		  real_dlmopen ? "found" : "MISSING");
}

/* ---- cuGetProcAddress hooks --------------------------------------------------------------- */

/* The driver's handle; loads it only when `load` (a lookup of another cu* name must not). */
static void *libcuda(int load)
{
	static void *h;
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | (load ? 0 : RTLD_NOLOAD));
	return h;
}

CUresult hook_gpa1(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult hook_gpa2(const char *symbol, void **pfn, int version, cuuint64_t flags,
		   CUdriverProcAddressQueryResult *status);

/* Hand our hooks out for the driver's cuGetProcAddress functions; returns 1 if swapped. */
static int swap_to_hook(void **pfn)
{
	if (!pfn || !*pfn)
		return 0;
	if (*pfn == (void *)real_gpa2 || (!real_gpa2 && real_dlsym && libcuda(0) &&
					   *pfn == real_dlsym(libcuda(0), "cuGetProcAddress_v2"))) {
		real_gpa2 = (PFN_cuGetProcAddress_v12000)*pfn;
		*pfn = (void *)hook_gpa2;
		return 1;
	}
	if (*pfn == (void *)real_gpa1 || (!real_gpa1 && real_dlsym && libcuda(0) &&
					   *pfn == real_dlsym(libcuda(0), "cuGetProcAddress"))) {
		real_gpa1 = (PFN_cuGetProcAddress_v11030)*pfn;
		*pfn = (void *)hook_gpa1;
		return 1;
	}
	return 0;
}

static void log_gpa(const char *api, const void *caller, const char *symbol, int version,
		    cuuint64_t flags, CUresult r, int status, const void *orig, int hooked)
{
	char what[256];
	describe(orig, what, sizeof what);
	logf_line("procaddr: %s caller=%s symbol=%s version=%d flags=%llu -> result=%d status=%d %s%s",
		  api, object_of(caller), symbol ? symbol : "(null)", version,
		  (unsigned long long)flags, (int)r, status, what, hooked ? " (hooked)" : "");
}

CUresult hook_gpa1(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	if (!real_gpa1 && real_dlsym && libcuda(1))
		real_gpa1 = (PFN_cuGetProcAddress_v11030)real_dlsym(libcuda(1), "cuGetProcAddress");
	if (!real_gpa1)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = real_gpa1(symbol, pfn, version, flags);
	void *orig = r == CUDA_SUCCESS && pfn ? *pfn : NULL;
	int hooked = r == CUDA_SUCCESS && swap_to_hook(pfn);
	log_gpa("cuGetProcAddress", __builtin_return_address(0), symbol, version, flags, r, -1, orig,
		hooked);
	return r;
}

CUresult hook_gpa2(const char *symbol, void **pfn, int version, cuuint64_t flags,
		   CUdriverProcAddressQueryResult *status)
{
	if (!real_gpa2 && real_dlsym && libcuda(1))
		real_gpa2 = (PFN_cuGetProcAddress_v12000)real_dlsym(libcuda(1), "cuGetProcAddress_v2");
	if (!real_gpa2)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = real_gpa2(symbol, pfn, version, flags, status);
	void *orig = r == CUDA_SUCCESS && pfn ? *pfn : NULL;
	int hooked = r == CUDA_SUCCESS && swap_to_hook(pfn);
	log_gpa("cuGetProcAddress_v2", __builtin_return_address(0), symbol, version, flags, r,
		status ? (int)*status : -1, orig, hooked);
	return r;
}

/* Door a: programs linked with -lcuda that call cuGetProcAddress directly. */
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	return hook_gpa1(symbol, pfn, version, flags);
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
			     CUdriverProcAddressQueryResult *status)
{
	return hook_gpa2(symbol, pfn, version, flags, status);
}

/* ---- the dl* doors ------------------------------------------------------------------------ */

/* Driver API names: "cu" and a capital (cuInit, cuLaunchKernel_ptsz), not cudaMalloc or cublasCreate. */
static int is_driver_name(const char *s)
{
	return s && s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z';
}

void *dlsym(void *handle, const char *symbol)
{
	if (!real_dlsym)
		procaddr_init();
	void *p = real_dlsym ? real_dlsym(handle, symbol) : NULL;
	if (is_driver_name(symbol)) {
		char h[128], what[256];
		void *orig = p;
		int hooked = swap_to_hook(&p);
		handle_name(handle, h, sizeof h);
		describe(orig, what, sizeof what);
		logf_line("procaddr: dlsym caller=%s handle=%s symbol=%s -> %s%s",
			  object_of(__builtin_return_address(0)), h, symbol, what,
			  hooked ? " (hooked)" : "");
	}
	return p;
}

void *dlvsym(void *handle, const char *symbol, const char *version)
{
	if (!real_dlvsym)
		procaddr_init();
	void *p = real_dlvsym ? real_dlvsym(handle, symbol, version) : NULL;
	char h[128], what[256];
	void *orig = p;
	int hooked = is_driver_name(symbol) && swap_to_hook(&p);
	handle_name(handle, h, sizeof h);
	describe(orig, what, sizeof what);
	logf_line("procaddr: dlvsym caller=%s handle=%s symbol=%s version=%s -> %s%s",
		  object_of(__builtin_return_address(0)), h, symbol, version, what, hooked ? " (hooked)" : "");
	return p;
}

void *dlmopen(Lmid_t lmid, const char *file, int flags)
{
	if (!real_dlmopen)
		procaddr_init();
	void *h = real_dlmopen ? real_dlmopen(lmid, file, flags) : NULL;
	logf_line("procaddr: dlmopen caller=%s lmid=%ld file=%s flags=0x%x -> %s",
		  object_of(__builtin_return_address(0)), (long)lmid, file ? file : "(null)", flags,
		  h ? "handle" : "NULL");
	return h;
}
