/* SPDX-License-Identifier: MIT */
/*
 * The host side of a core without a flight record (hostside.h).  Everything read from the core
 * is untrusted: every pointer is followed through ci_source_read (which fails rather than read
 * what the core does not hold), every length is bounded, and what cannot be proven (the magic
 * of a C++ exception header, the length libstdc++ keeps before a string) is not reported.
 *
 * glibc's abort message: `__abort_msg` (a GLIBC_PRIVATE pointer in libc's .bss) points to
 * `{ unsigned int size; char msg[]; }`, set by assert() and by glibc's own fatal checks (malloc,
 * fortify) before they abort; a plain abort() leaves it NULL.
 *
 * The C++ exception: after std::terminate the exception that could not be caught is the
 * crashing thread's "caught" one (`__cxa_throw` calls `__cxa_begin_catch` on it before
 * terminate), the head of the thread-local `__cxa_eh_globals` that `__cxa_get_globals()`
 * returns.  That function's code (read from its library's file, as mapped) gives the TLS
 * address: a local/general-dynamic `lea tls_index(%rip),%rdi; call __tls_get_addr; add $k,%rax`
 * (the module id and offset from the GOT in the core, the block from the thread's DTV), or an
 * initial-exec `mov tpoff@GOT(%rip),%rax; add %fs:0,%rax`.  The header is the Itanium ABI's
 * `__cxa_exception` (x86-64: 112 bytes, the unwind header at 80 whose exception_class is
 * "GNUCC++\0"), the thrown object right after it; its type_info names the type, and for the
 * std::exception classes that keep a message (runtime_error, logic_error and their
 * descendants: a copy-on-write string after the vtable pointer) the message is what().
 * The exception is read on x86-64 only, the abort message on aarch64 too; elsewhere a note says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"

#define CI_PATH_BASE(p) (strrchr((p), '/') ? strrchr((p), '/') + 1 : (p))

/* ---------------------------------------------------------------------------------------- */
/* CUDA libraries                                                                             */

static const struct {
	const char *prefix; /* file name starts with this, then '.', '_' or '-' */
	const char *family;
} cuda_families[] = {
	{ "libcuda.so", "CUDA driver" },
	{ "libcudart.so", "CUDA runtime" },
	{ "libcublasLt.so", "cuBLASLt" },
	{ "libcublas.so", "cuBLAS" },
	{ "libcudnn", "cuDNN" },
	{ "libnccl.so", "NCCL" },
	{ "libcufft", "cuFFT" },
	{ "libcurand.so", "cuRAND" },
	{ "libcusparse", "cuSPARSE" },
	{ "libcusolver", "cuSOLVER" },
	{ "libnvrtc", "NVRTC" },
	{ "libnvJitLink.so", "nvJitLink" },
	{ "libcupti.so", "CUPTI" },
	{ "libnvToolsExt.so", "NVTX" },
	{ "libnvidia-ptxjitcompiler.so", "PTX JIT compiler (driver)" },
	{ "libnvidia-ml.so", "NVML (driver)" },
	{ "libcudadebugger.so", "CUDA debugger (driver)" },
	{ "libnvinfer", "TensorRT" },
	{ "libtorch_cuda", "PyTorch (CUDA)" },
	{ "libc10_cuda.so", "PyTorch c10 (CUDA)" },
	{ "libcudainspect-rec.so", "cudainspect recorder" },
};

static const char *cuda_family(const char *path)
{
	const char *base = CI_PATH_BASE(path);
	for (size_t i = 0; i < sizeof cuda_families / sizeof cuda_families[0]; i++) {
		size_t n = strlen(cuda_families[i].prefix);
		if (!strncmp(base, cuda_families[i].prefix, n) &&
		    (base[n] == 0 || base[n] == '.' || base[n] == '_' || base[n] == '-'))
			return cuda_families[i].family;
	}
	return NULL;
}

/* "580.65.06" of "libcuda.so.580.65.06" (digits and dots after ".so."). */
static void lib_version(const char *path, char *out, size_t n)
{
	const char *so = strstr(CI_PATH_BASE(path), ".so.");
	out[0] = 0;
	if (!so)
		return;
	so += 4;
	size_t k = strspn(so, "0123456789.");
	if (k && !so[k] && k < n)
		snprintf(out, n, "%.*s", (int)k, so);
}

static struct ci_error *find_libs(struct ci_hostside *h, const struct ci_source_info *info)
{
	size_t driver = SIZE_MAX; /* an index: the list moves as it grows */
	for (size_t i = 0; i < info->mapping_count; i++) {
		const char *p = info->mappings[i].path;
		const char *fam = p ? cuda_family(p) : NULL;
		if (!fam)
			continue;
		bool seen = false;
		for (size_t k = 0; k < h->lib_count && !seen; k++)
			seen = !strcmp(h->libs[k].path, p);
		if (seen)
			continue;
		struct ci_cuda_lib *l = realloc(h->libs, (h->lib_count + 1) * sizeof *l);
		if (!l)
			return ci_error_create(CI_ERR_NOMEM, "out of memory listing the CUDA libraries");
		h->libs = l;
		l = &h->libs[h->lib_count];
		memset(l, 0, sizeof *l);
		if (!(l->path = strdup(p)))
			return ci_error_create(CI_ERR_NOMEM, "out of memory listing the CUDA libraries");
		h->lib_count++;
		l->family = fam;
		lib_version(p, l->version, sizeof l->version);
		if (strstr(fam, "driver") && !strchr(l->version, '.'))
			l->version[0] = 0; /* libcuda.so.1: the soname's number, not a version */
		/* The driver's version is libcuda's file name (libcuda.so.1 links to it). */
		if (!strcmp(fam, "CUDA driver") && strchr(l->version, '.'))
			driver = h->lib_count - 1;
	}
	if (driver != SIZE_MAX)
		h->driver_version = h->libs[driver].version;
	if (!h->driver_version)
		for (size_t k = 0; k < h->lib_count; k++)
			if (strstr(h->libs[k].family, "(driver)") && strchr(h->libs[k].version, '.'))
				h->driver_version = h->libs[k].version;
	return NULL;
}

static const struct ci_cuda_lib *lib_of(const struct ci_hostside *h, const char *module)
{
	if (!module)
		return NULL;
	for (size_t k = 0; k < h->lib_count; k++)
		if (!strcmp(h->libs[k].path, module) ||
		    !strcmp(CI_PATH_BASE(h->libs[k].path), CI_PATH_BASE(module)))
			return &h->libs[k];
	/* A link name (libcuda.so.1 for libcuda.so.580.65.06): the library of that family. */
	const char *fam = cuda_family(module);
	for (size_t k = 0; fam && k < h->lib_count; k++)
		if (h->libs[k].family == fam)
			return &h->libs[k];
	return NULL;
}

static struct ci_error *find_cuda_threads(struct ci_hostside *h)
{
	for (size_t t = 0; t < h->thread_count; t++) {
		const struct ci_thread_stack *s = &h->threads[t];
		size_t entry = SIZE_MAX;
		const struct ci_cuda_lib *lib = NULL;
		for (size_t f = 0; f < s->frame_count; f++) {
			const struct ci_cuda_lib *l = cuda_family(s->frames[f].module ? s->frames[f].module : "")
							      ? lib_of(h, s->frames[f].module)
							      : NULL;
			if (l && strcmp(l->family, "cudainspect recorder")) {
				entry = f;
				lib = l;
			}
		}
		if (entry == SIZE_MAX)
			continue;
		struct ci_cuda_thread *c = realloc(h->cuda_threads, (h->cuda_thread_count + 1) * sizeof *c);
		if (!c)
			return ci_error_create(CI_ERR_NOMEM, "out of memory listing threads");
		h->cuda_threads = c;
		/* Called from the program, or a thread the library runs itself (only the C
		 * library's thread start above it). */
		bool own = true;
		for (size_t f = entry + 1; f < s->frame_count && own; f++) {
			const char *m = s->frames[f].module ? CI_PATH_BASE(s->frames[f].module) : "";
			own = !strncmp(m, "libc.so", 7) || !strncmp(m, "libc-", 5) ||
			      !strncmp(m, "libpthread", 10);
		}
		c[h->cuda_thread_count++] = (struct ci_cuda_thread){
			.stack = t, .entry = entry,
			.caller = entry + 1 < s->frame_count ? entry + 1 : SIZE_MAX, .lib = lib,
			.own = own,
		};
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* A library's file, as the core maps it                                                      */

/* PATH (a name from the core: untrusted) opened for reading only if it is a regular file
 * (ci_open_regular: a device or FIFO named there is never opened). */
static int open_regular(const char *path)
{
	return ci_open_regular(path, NULL);
}

struct mod_file {
	int fd;
	Elf *elf;
	uint64_t bias;           /* load address - link address */
	const char *path;        /* the core's name for it */
};

static void mod_close(struct mod_file *m)
{
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	m->elf = NULL;
	m->fd = -1;
}

/* The mapped library whose file name starts with one of NAMES: its file opened (SYSROOT first
 * when given) and its load bias from the mapping of its first page.  False with a note. */
static bool mod_open(const struct ci_source_info *info, const char *const *names, const char *sysroot,
		     struct mod_file *m, char *note, size_t n)
{
	m->fd = -1;
	m->elf = NULL;
	m->path = NULL;
	uint64_t start = 0;
	for (size_t i = 0; i < info->mapping_count && !m->path; i++) {
		const char *p = info->mappings[i].path;
		if (!p || info->mappings[i].file_offset)
			continue;
		for (const char *const *q = names; *q && !m->path; q++)
			if (!strncmp(CI_PATH_BASE(p), *q, strlen(*q)))
				m->path = p, start = info->mappings[i].start;
	}
	if (!m->path) {
		snprintf(note, n, "%s is not mapped in the core", names[0]);
		return false;
	}
	char buf[PATH_MAX];
	if (sysroot && *sysroot && snprintf(buf, sizeof buf, "%s%s", sysroot, m->path) < (int)sizeof buf)
		m->fd = open_regular(buf);
	if (m->fd < 0)
		m->fd = open_regular(m->path);
	if (m->fd < 0) {
		char shown[256];
		snprintf(note, n, "%s is not on this machine as a regular file (%s)",
			 ci_scrub(m->path, shown, sizeof shown), strerror(errno));
		return false;
	}
	elf_version(EV_CURRENT);
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0;
	GElf_Ehdr eh;
	if (!m->elf || !gelf_getehdr(m->elf, &eh) || elf_getphdrnum(m->elf, &phnum)) {
		snprintf(note, n, "%s is not an ELF file", CI_PATH_BASE(m->path));
		mod_close(m);
		return false;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0) {
			m->bias = start - (ph.p_vaddr & ~0xfffull);
			return true;
		}
	}
	snprintf(note, n, "%s has no segment at file offset 0", CI_PATH_BASE(m->path));
	mod_close(m);
	return false;
}

/* The link-time value of dynamic (or static) symbol NAME, 0 if absent. */
static uint64_t mod_symbol(struct mod_file *m, const char *name)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count && i < 10000000; i++) {
			GElf_Sym s;
			const char *nm;
			if (gelf_getsym(d, (int)i, &s) && s.st_value && s.st_shndx != SHN_UNDEF &&
			    (nm = elf_strptr(m->elf, sh.sh_link, s.st_name)) && !strcmp(nm, name))
				return s.st_value;
		}
	}
	return 0;
}

/* LEN bytes of the file's contents at link address VADDR. */
static bool mod_bytes(struct mod_file *m, uint64_t vaddr, void *buf, size_t len)
{
	size_t phnum = 0;
	if (elf_getphdrnum(m->elf, &phnum))
		return false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz && len <= ph.p_filesz - (vaddr - ph.p_vaddr))
			return pread(m->fd, buf, len, (off_t)(ph.p_offset + vaddr - ph.p_vaddr)) == (ssize_t)len;
	}
	return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading the core                                                                           */

static bool rd(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	struct ci_error *err = ci_source_read(src, addr, buf, len);
	ci_error_destroy(err);
	return !err;
}

static bool rd64(struct ci_source *src, uint64_t addr, uint64_t *v)
{
	return rd(src, addr, v, sizeof *v);
}

/* Bytes the core left out because they are the mapped file's own (read-only data of a
 * library or the executable: type names, string literals), read from that file as GDB does;
 * the file on disk may have changed since, so what is read this way is checked by its use. */
static bool rd_file(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	const struct ci_source_info *info = ci_source_info(src);
	for (size_t i = 0; i < info->mapping_count; i++) {
		const struct ci_mapping *mp = &info->mappings[i];
		if (!mp->path || addr < mp->start || addr >= mp->end || len > mp->end - addr)
			continue;
		int fd = open_regular(mp->path);
		bool ok = fd >= 0 &&
			  pread(fd, buf, len, (off_t)(mp->file_offset + (addr - mp->start))) == (ssize_t)len;
		if (fd >= 0)
			close(fd);
		return ok;
	}
	return false;
}

/* A NUL-terminated string of at most MAX bytes at ADDR (read page by page), malloc'd; NULL if
 * any byte before the NUL is not in the core or there is no NUL within MAX. */
static char *rd_cstr(struct ci_source *src, uint64_t addr, size_t max, size_t *len)
{
	char *s = malloc(max + 1);
	size_t got = 0;
	while (s && got < max) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);
		if (chunk > max - got)
			chunk = max - got;
		if (!rd(src, addr + got, s + got, chunk) && !rd_file(src, addr + got, s + got, chunk))
			break;
		char *nul = memchr(s + got, 0, chunk);
		if (nul) {
			if (len)
				*len = (size_t)(nul - s);
			return s;
		}
		got += chunk;
	}
	free(s);
	return NULL;
}

static void set_note(char **note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_note(char **note, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(*note);
	if (vasprintf(note, fmt, ap) < 0)
		*note = NULL;
	va_end(ap);
}

static void read_abort_message(struct ci_hostside *h, struct ci_source *src,
			       const struct ci_source_info *info, const char *sysroot)
{
	static const char *const libc[] = { "libc.so", "libc-2.", NULL };
	struct mod_file m;
	char note[512];
	if (!mod_open(info, libc, sysroot, &m, note, sizeof note)) {
		set_note(&h->abort_note, "%s", note);
		return;
	}
	uint64_t sym = mod_symbol(&m, "__abort_msg"), p = 0;
	mod_close(&m);
	if (!sym) {
		set_note(&h->abort_note, "this libc has no __abort_msg");
		return;
	}
	if (!rd64(src, m.bias + sym, &p)) {
		set_note(&h->abort_note, "libc's data is not in the core");
		return;
	}
	if (!p)
		return; /* abort() without a message (the program printed its own, if any) */
	uint32_t size = 0;
	if (!rd(src, p, &size, sizeof size) || size < 8 || size > (1u << 20)) {
		set_note(&h->abort_note, "__abort_msg points to something unreadable");
		return;
	}
	size_t len = 0;
	char *msg = rd_cstr(src, p + 4, size - 4 < 4096 ? size - 4 : 4096, &len);
	if (!msg) {
		set_note(&h->abort_note, "the abort message is not in the core");
		return;
	}
	while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		msg[--len] = 0;
	h->abort_message = msg;
}

/* The address of the thread's __cxa_eh_globals (see the top of the file), or 0 with a note. */
static uint64_t eh_globals_address(struct ci_source *src, struct mod_file *m, uint64_t fn,
				   uint64_t fs_base, char **note)
{
	uint8_t c[48];
	if (!mod_bytes(m, fn, c, sizeof c)) {
		set_note(note, "__cxa_get_globals' code is not in %s", CI_PATH_BASE(m->path));
		return 0;
	}
	size_t i = 0;
	if (!memcmp(c, "\xf3\x0f\x1e\xfa", 4)) /* endbr64 */
		i += 4;
	if (!memcmp(c + i, "\x48\x83\xec", 3)) /* sub $n,%rsp */
		i += 4;
	else if (c[i] == 0x50) /* push %rax */
		i += 1;
	int32_t rel;
	if (c[i] == 0x66) /* general dynamic: data16 prefix */
		i++;
	if (!memcmp(c + i, "\x48\x8d\x3d", 3)) { /* lea tls_index(%rip),%rdi */
		memcpy(&rel, c + i + 3, 4);
		uint64_t index = fn + i + 7 + (uint64_t)(int64_t)rel;
		i += 7;
		while (i < sizeof c - 5 && (c[i] == 0x66 || c[i] == 0x48))
			i++;
		if (c[i] != 0xe8) { /* call __tls_get_addr */
			set_note(note, "__cxa_get_globals' code is not a form this reader knows");
			return 0;
		}
		i += 5;
		if (!memcmp(c + i, "\x48\x83\xc4", 3))
			i += 4;
		else if (c[i] == 0x5a || c[i] == 0x59) /* pop */
			i += 1;
		int64_t add = 0;
		if (!memcmp(c + i, "\x48\x05", 2)) {
			int32_t k;
			memcpy(&k, c + i + 2, 4);
			add = k;
		} else if (!memcmp(c + i, "\x48\x83\xc0", 3)) {
			add = (int8_t)c[i + 3];
		}
		uint64_t ti[2], dtv, block;
		if (!rd(src, m->bias + index, ti, sizeof ti) || !ti[0] || ti[0] > 1u << 20 ||
		    !rd64(src, fs_base + 8, &dtv) || !rd64(src, dtv + 16 * ti[0], &block) || !block ||
		    block == UINT64_MAX) {
			set_note(note, "libstdc++'s thread-local data of the crashing thread is not in the core");
			return 0;
		}
		return block + ti[1] + (uint64_t)add;
	}
	if (!memcmp(c + i, "\x48\x8b\x05", 3) && !memcmp(c + i + 7, "\x64\x48\x03\x04\x25\0\0\0\0", 9)) {
		memcpy(&rel, c + i + 3, 4); /* initial exec */
		uint64_t got = fn + i + 7 + (uint64_t)(int64_t)rel, tpoff;
		if (!rd64(src, m->bias + got, &tpoff)) {
			set_note(note, "libstdc++'s thread-local offsets are not in the core");
			return 0;
		}
		return fs_base + tpoff;
	}
	set_note(note, "__cxa_get_globals' code is not a form this reader knows");
	return 0;
}

static void read_exception(struct ci_hostside *h, struct ci_source *src,
			   const struct ci_source_info *info, const char *sysroot)
{
	static const char *const libstdcxx[] = { "libstdc++.so", NULL };
	const struct ci_core_thread *t = NULL;
	for (size_t i = 0; i < info->thread_count && !t; i++)
		if (info->threads[i].crashed)
			t = &info->threads[i];
	if (!t && info->thread_count)
		t = &info->threads[0];
	uint64_t fs_base = t ? t->regs[21] : 0; /* user_regs_struct: fs_base */
	if (!fs_base) {
		set_note(&h->exception_note, "the crashing thread's thread pointer is not in the core");
		return;
	}
	struct mod_file m;
	char note[512];
	if (!mod_open(info, libstdcxx, sysroot, &m, note, sizeof note)) {
		set_note(&h->exception_note, "%s", note);
		return;
	}
	uint64_t fn = mod_symbol(&m, "__cxa_get_globals");
	uint64_t g = fn ? eh_globals_address(src, &m, fn, fs_base, &h->exception_note) : 0;
	if (!fn)
		set_note(&h->exception_note, "this libstdc++ has no __cxa_get_globals");
	mod_close(&m);
	uint64_t caught;
	if (!g)
		return;
	if (!rd64(src, g, &caught)) {
		set_note(&h->exception_note, "the crashing thread's exception state is not in the core");
		return;
	}
	if (!caught) {
		h->no_exception = true;
		set_note(&h->exception_note, "no C++ exception is in flight on the crashing thread");
		return;
	}
	/* The __cxa_exception header: type_info * at 0, the unwind header at 80. */
	uint64_t hdr[14];
	if (!rd(src, caught, hdr, sizeof hdr)) {
		set_note(&h->exception_note, "the exception's header is not in the core");
		return;
	}
	uint64_t cls = hdr[10];
	if (cls >> 8 != 0x474e5543432b2bull /* "GNUCC++" */ || (cls & 0xff) > 1) {
		set_note(&h->exception_note, "the exception's header does not look like libstdc++'s");
		return;
	}
	if ((cls & 0xff) == 1) {
		set_note(&h->exception_note, "the exception was rethrown from an exception_ptr (its type is not read)");
		return;
	}
	uint64_t name_ptr;
	bool got_ptr = rd64(src, hdr[0] + 8, &name_ptr) ||
		       rd_file(src, hdr[0] + 8, &name_ptr, sizeof name_ptr);
	char *name = got_ptr ? rd_cstr(src, name_ptr, 1024, NULL) : NULL;
	if (!name) {
		set_note(&h->exception_note, "the exception's type is not in the core");
		return;
	}
	const char *mangled = name[0] == '*' ? name + 1 : name;
	char *z = NULL, *d = NULL;
	if (asprintf(&z, "_Z%s", mangled) >= 0)
		d = ci_demangle(z);
	free(z);
	h->exception_type = d ? d : strdup(mangled);
	free(name);
	/* what(): a copy-on-write string after the vtable pointer, checked against the length
	 * libstdc++ keeps 24 bytes before its characters. */
	uint64_t obj = caught + 112, str, rep[2];
	size_t len = 0;
	char *what;
	if (rd64(src, obj + 8, &str) && str > 24 && rd(src, str - 24, rep, sizeof rep) &&
	    rep[0] <= 4096 && rep[0] <= rep[1] && (what = rd_cstr(src, str, 4096, &len))) {
		if (len == rep[0])
			h->exception_what = what;
		else
			free(what);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* The command for next time                                                                  */

static bool shell_plain(const char *w)
{
	if (!*w)
		return false;
	for (const char *p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%^", *p))
			return false;
	return true;
}

static char *next_command(const char *psargs, const char *exe)
{
	const char *line = psargs && *psargs ? psargs : exe;
	if (!line || !*line)
		return NULL;
	size_t cap = strlen(line) * 4 + 64, used;
	char *out = malloc(cap), *words = strdup(line);
	if (!out || !words) {
		free(out);
		free(words);
		return NULL;
	}
	used = (size_t)snprintf(out, cap, "cudainspect record --");
	for (char *save, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		out[used++] = ' ';
		if (shell_plain(w)) {
			used += (size_t)snprintf(out + used, cap - used, "%s", w);
			continue;
		}
		out[used++] = '\'';
		for (const char *p = w; *p; p++) {
			if (*p == '\'') {
				memcpy(out + used, "'\\''", 4);
				used += 4;
			} else {
				out[used++] = *p;
			}
		}
		out[used++] = '\'';
		out[used] = 0;
	}
	free(words);
	return out;
}

/* ---------------------------------------------------------------------------------------- */

const char *ci_hostside_next_command(const struct ci_hostside *h)
{
	return h->next_command;
}

void ci_hostside_destroy(struct ci_hostside *h)
{
	if (!h)
		return;
	ci_thread_stacks_free(h->threads, h->thread_count);
	for (size_t i = 0; i < h->lib_count; i++)
		free(h->libs[i].path);
	free(h->libs);
	free(h->cuda_threads);
	free(h->executable);
	free(h->psargs);
	free(h->abort_message);
	free(h->abort_note);
	free(h->exception_type);
	free(h->exception_what);
	free(h->exception_note);
	free(h->next_command);
	ci_warnings_deinit(&h->warnings);
	free(h);
}

struct ci_error *ci_hostside_create(struct ci_source *src, const struct ci_symbolizer_options *opts,
				    struct ci_hostside **ret)
{
	*ret = NULL;
	const struct ci_source_info *info = ci_source_info(src);
	if (info->kind != CI_SOURCE_CORE && info->kind != CI_SOURCE_GCORE)
		return ci_error_create(CI_ERR_USAGE, "the host-side report is for core files");
	struct ci_hostside *h = calloc(1, sizeof *h);
	if (!h)
		return ci_error_create(CI_ERR_NOMEM, "out of memory");
	h->input = info->path;
	h->pid = info->pid;
	h->signal = info->signal;
	h->si_code = info->si_code;
	h->fault_addr = info->fault_addr;
	h->executable = info->executable ? strdup(info->executable) : NULL;
	h->psargs = info->psargs ? strdup(info->psargs) : NULL;
	h->psargs_cut = h->psargs && strlen(h->psargs) >= 79;
	struct ci_error *err = find_libs(h, info);

	struct ci_symbolizer *sym = NULL;
	struct ci_symbolizer_options o = opts ? *opts : (struct ci_symbolizer_options){ 0 };
	if (!err)
		err = ci_symbolizer_create(src, NULL, &o, &sym);
	if (!err) {
		struct ci_error *uerr = ci_unwind_threads(sym, 64, &h->threads, &h->thread_count);
		if (uerr) {
			ci_warnings_add(&h->warnings, "the threads could not be unwound: %s", uerr->message);
			ci_error_destroy(uerr);
		}
		struct ci_warnings *w = ci_symbolizer_warnings(sym);
		for (size_t i = 0; w && i < w->count; i++)
			ci_warnings_add(&h->warnings, "%s", w->items[i]);
	}
	ci_symbolizer_destroy(sym);
	/* The crashed thread first. */
	for (size_t i = 1; !err && i < h->thread_count; i++) {
		if (h->threads[i].crashed && !h->threads[0].crashed) {
			struct ci_thread_stack t = h->threads[i];
			memmove(h->threads + 1, h->threads, i * sizeof t);
			h->threads[0] = t;
			break;
		}
	}
	if (!err)
		err = find_cuda_threads(h);
	if (err) {
		ci_hostside_destroy(h);
		return err;
	}
	if (h->thread_count)
		for (size_t f = 0; f < h->threads[0].frame_count; f++) {
			const char *fn = h->threads[0].frames[f].function;
			if (fn && (strstr(fn, "std::terminate") || strstr(fn, "__cxa_throw") ||
				   strstr(fn, "__cxxabiv1::__terminate")))
				h->terminate = true;
		}
	const char *sysroot = opts ? opts->sysroot : NULL;
	/* __abort_msg is a symbol and two loads: any 64-bit little-endian core.  The exception
	 * decodes x86-64 code and needs fs_base; aarch64's thread pointer (tpidr_el0) is in an
	 * NT_ARM_TLS note this reader does not keep. */
	if (src->machine == EM_X86_64 || src->machine == EM_AARCH64)
		read_abort_message(h, src, info, sysroot);
	else
		set_note(&h->abort_note, "read on x86-64 and aarch64 cores only");
	if (h->terminate && src->machine == EM_X86_64)
		read_exception(h, src, info, sysroot);
	else if (h->terminate)
		set_note(&h->exception_note, "read on x86-64 cores only");
	h->next_command = next_command(h->psargs, h->executable);
	*ret = h;
	return NULL;
}
