/* SPDX-License-Identifier: MIT */
/*
 * Stage 5, symbolize and unwind, through elfutils libdwfl.  A core or a live pid reports the
 * modules its own memory shows (source_modules.c: the ELF headers at its file mappings, their
 * build-ids, the vDSO), each with a file this code opened itself; a record file, or a record
 * handed over without a source, reports the record's host module table (path, load bias,
 * build-id), checked against the files on disk.  libdwfl is never left to open a file by
 * name: every file goes through ci_open_regular (a FIFO, socket or device named by a core is
 * never opened), with its build-id checked, and libdwfl's callbacks for finding files and
 * debug info are ours.  Threads come from NT_PRSTATUS (cores), from the registers a debugger
 * hands over, or from the live threads, each stopped with PTRACE_SEIZE + PTRACE_INTERRUPT
 * only while it is unwound (source_pid.c).  Recorded stacks (launch, alloc, free, error) are
 * symbolized on demand and cached per address, because stacks repeat and the allocation view
 * of a large record asks for the same frames many times.  Everything here is best effort:
 * what cannot be found becomes a warning and a frame with only an address and module, never
 * an error.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize.h"
#include "model/model.h"

enum sym_mode {
	SYM_RECORD = 0, /* modules from the record's host module table */
	SYM_CORE,       /* modules and threads from an ELF core */
	SYM_PID,        /* modules and threads from a live process */
};

struct sym_cache_entry {
	uint64_t key;            /* address << 1 | is_return; 0 = empty slot */
	struct ci_frame *frames;
	size_t n;
};

/* libdebuginfod, loaded on first use and only with --debuginfod. */
struct sym_debuginfod {
	bool tried;
	debuginfod_client *client;
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*end)(debuginfod_client *);
};

struct ci_symbolizer {
	Dwfl_Callbacks callbacks; /* must outlive the Dwfl */
	char *debuginfo_path;     /* callbacks.debuginfo_path points here */
	char *sysroot;
	Dwfl *dwfl;
	enum sym_mode mode;
	pid_t pid;
	uint16_t machine;         /* of the source; 0 for records (any) */
	bool can_unwind;
	bool debuginfod;          /* libdwfl may ask debuginfod servers (--debuginfod) */
	struct sym_debuginfod dbgd;
	const char *exe_override; /* --exe */
	struct ci_source *src;
	const struct ci_model *model;
	struct ci_warnings warnings;
	struct sym_cache_entry *cache;
	size_t cache_cap, cache_used;
	/* Paths that were not regular files and were not opened (for one warning). */
	size_t refused;
	char refused_first[256];
	const char *refused_kind;
	/* The vDSO: libdwfl reads it from our copy of its image. */
	Dwfl_Module *vdso_mod;
	uint8_t *vdso_image;
	size_t vdso_size;
	/* dwfl_attach_state takes the machine from an ELF header: this one. */
	uint8_t machine_ehdr[sizeof(Elf64_Ehdr)];
	Elf *machine_elf;
	/* Unwinding from given registers (attach_given), instead of ptrace */
	bool given;
	struct ci_thread_registers *regs, regs_none;
	size_t nregs, regs_cap;
	DIR *taskdir;             /* /proc/PID/task, while libdwfl lists the threads */
	/* The last thread of a live process that could not be stopped, and why (an errno). */
	uint32_t stop_tid;
	int stop_error;
	unsigned stop_timeouts;
	bool stop_warned;
	/* The interpreter's threads (corefile/python.c), walked once, before the first unwind. */
	bool py_done;
	struct ci_py_state *py;
};

/* libdwfl's find_elf callback has no user pointer; the symbolizer in use is kept here for the
 * duration of each libdwfl call (one Dwfl per thread, as libdwfl requires). */
static __thread struct ci_symbolizer *sym_current;

/* How long a live thread may take to stop before it is left alone (the first one; later ones
 * get less, so that a process whose threads sleep in the kernel costs seconds, not minutes). */
#define STOP_TIMEOUT_MS 1000u
#define STOP_TIMEOUT_LATER_MS 100u
/* After this many threads that would not stop, the others are not asked at all. */
#define STOP_TIMEOUTS_MAX 5u

/* ---------------------------------------------------------------------------------------- */
/* Opening files: regular files only, with the right build-id                                 */

static void note_refused(struct ci_symbolizer *s, const char *path, unsigned mode)
{
	if (s->refused++ == 0) {
		ci_scrub(path, s->refused_first, sizeof(s->refused_first));
		s->refused_kind = ci_file_kind(mode);
	}
}

static void hex(const uint8_t *b, size_t n, char *out, size_t outn)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && o + 3 <= outn; i++)
		o += (size_t)snprintf(out + o, outn - o, "%02x", b[i]);
}

/* The name and build-id in ELF's .gnu_debugaltlink (its DWARF is partly in a dwz file). */
static bool elf_alt_link(Elf *elf, char *name, size_t name_len, uint8_t *id, size_t *id_len)
{
	size_t shstrndx, nscn = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || elf_getshdrnum(elf, &nscn) != 0)
		return false;
	/* Only the first sections are looked at: an object has a few dozen. */
	size_t i = 0;
	for (Elf_Scn *scn = NULL; i < 4096 && (scn = elf_nextscn(elf, scn)) != NULL; i++) {
		GElf_Shdr sh;
		const char *sname;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".gnu_debugaltlink") != 0)
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf)
			return false;
		const char *p = d->d_buf;
		size_t n = strnlen(p, d->d_size);
		if (n == 0 || n >= d->d_size || n >= name_len || d->d_size - n - 1 > 64 ||
		    d->d_size - n - 1 == 0)
			return false;
		memcpy(name, p, n + 1);
		*id_len = d->d_size - n - 1;
		memcpy(id, p + n + 1, *id_len);
		return true;
	}
	return false;
}

static int find_alt(struct ci_symbolizer *s, const char *file, const char *name, const uint8_t *id,
		    size_t id_len, char **file_name);

/* libdw looks for a missing dwz file itself (dwarf_getalt: under /usr/lib/debug/.build-id and
 * at the link's own path) with a plain open(), which a FIFO blocks and a device acts on.  So a
 * file with a dwz link is used only when its dwz file is found here, or when nothing that is
 * not a regular file stands where libdw would look. */
static bool alt_link_safe(struct ci_symbolizer *s, Elf *elf, const char *path)
{
	char name[4096];
	uint8_t id[64];
	size_t id_len = 0;
	if (!elf_alt_link(elf, name, sizeof(name), id, &id_len))
		return true;
	size_t refused = s->refused;
	int fd = find_alt(s, path, name, id, id_len, NULL);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return s->refused == refused;
}

/* Open PATH if it is a regular ELF file for the source's machine, whose GNU build-id is WANT
 * (when WANT_LEN > 0), and (with CHECK_ALT) whose dwz link cannot make libdw open anything;
 * else -1.  With FILE_NAME, *FILE_NAME gets a copy of PATH. */
static int open_elf_file(struct ci_symbolizer *s, const char *path, const uint8_t *want,
			 size_t want_len, bool check_alt, char **file_name)
{
	unsigned mode = 0;
	int fd = ci_open_regular(path, &mode);
	if (fd < 0) {
		if (errno == EINVAL)
			note_refused(s, path, mode);
		return -1;
	}
	bool ok = false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	    (!s->machine || eh.e_machine == s->machine)) {
		ok = true;
		if (want_len) {
			const void *bits = NULL;
			ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
			ok = n > 0 && (size_t)n == want_len && memcmp(bits, want, want_len) == 0;
		}
		if (ok && check_alt)
			ok = alt_link_safe(s, elf, path);
	}
	if (elf)
		elf_end(elf);
	if (ok && file_name && !(*file_name = strdup(path)))
		ok = false;
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* DIR/.build-id/xx/rest[SUFFIX] in every absolute directory of the debuginfo path, checked
 * against the build-id.  What libdwfl's build-id lookups do on disk, without their last
 * resort, the debuginfod client, whose loading (libdebuginfod, libcurl, GnuTLS) cost about
 * 5 ms of every report that met a module no longer matching its file. */
static int open_by_build_id(struct ci_symbolizer *s, const uint8_t *bits, size_t len,
			    const char *suffix, bool check_alt, char **file_name)
{
	if (len <= 1 || len > 64 || !s->debuginfo_path)
		return -1;
	char hexid[2 * 64 + 1];
	hex(bits, len, hexid, sizeof(hexid));
	char *dirs = strdup(s->debuginfo_path), *save = NULL;
	int fd = -1;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && fd < 0;
	     d = strtok_r(NULL, ":", &save)) {
		if (*d == '+' || *d == '-')
			d++;
		char *path = NULL;
		if (*d != '/' ||
		    asprintf(&path, "%s/.build-id/%.2s/%s%s", d, hexid, hexid + 2, suffix) < 0)
			continue;
		fd = open_elf_file(s, path, bits, len, check_alt, file_name);
		free(path);
	}
	free(dirs);
	return fd;
}

/* The dwz file NAME with build-id ID that FILE's DWARF refers to: in the build-id tree, then
 * at NAME itself (relative to FILE's directory, or under the sysroot). */
static int find_alt(struct ci_symbolizer *s, const char *file, const char *name, const uint8_t *id,
		    size_t id_len, char **file_name)
{
	int fd = open_by_build_id(s, id, id_len, ".debug", false, file_name);
	char *path = NULL;
	if (fd < 0 && name[0] == '/') {
		fd = open_elf_file(s, name, id, id_len, false, file_name);
		if (fd < 0 && s->sysroot && asprintf(&path, "%s%s", s->sysroot, name) >= 0)
			fd = open_elf_file(s, path, id, id_len, false, file_name);
	} else if (fd < 0 && file) {
		const char *slash = strrchr(file, '/');
		if (asprintf(&path, "%.*s/%s", slash ? (int)(slash - file) : 1, slash ? file : ".",
			     name) >= 0)
			fd = open_elf_file(s, path, id, id_len, false, file_name);
	}
	free(path);
	return fd;
}

/* The build-id libdwfl knows for MOD (from memory, or its main file). */
static size_t module_build_id(Dwfl_Module *mod, const uint8_t **bits)
{
	GElf_Addr vaddr;
	const unsigned char *b = NULL;
	int len = dwfl_module_build_id(mod, &b, &vaddr);
	*bits = b;
	return len > 0 ? (size_t)len : 0;
}

/* Executables and debug info from debuginfod servers (--debuginfod only): the client is
 * loaded here rather than through libdw, whose build-id lookups open files with plain open().
 * The file it gives is in its cache; it is checked to be regular all the same. */
static int debuginfod_fetch(struct ci_symbolizer *s, const uint8_t *id, size_t len, bool debug,
			    char **file_name)
{
	struct sym_debuginfod *d = &s->dbgd;
	if (!s->debuginfod || len == 0)
		return -1;
	if (!d->tried) {
		d->tried = true;
		void *lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (lib) {
			*(void **)&d->begin = dlsym(lib, "debuginfod_begin");
			*(void **)&d->find_executable = dlsym(lib, "debuginfod_find_executable");
			*(void **)&d->find_debuginfo = dlsym(lib, "debuginfod_find_debuginfo");
			*(void **)&d->end = dlsym(lib, "debuginfod_end");
			if (d->begin && d->find_executable && d->find_debuginfo && d->end)
				d->client = d->begin();
		}
		if (!d->client)
			ci_warnings_add(&s->warnings, "--debuginfod: libdebuginfod.so.1 cannot be loaded "
					"(install libdebuginfod1); nothing was downloaded");
	}
	if (!d->client)
		return -1;
	char *path = NULL;
	int fd = (debug ? d->find_debuginfo : d->find_executable)(d->client, id, (int)len, &path);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && file_name)
		*file_name = ci_steal(path);
	free(path);
	return fd < 0 ? -1 : fd;
}

/* ---------------------------------------------------------------------------------------- */
/* libdwfl's callbacks for finding files                                                      */

/* find_elf: called lazily for a module reported without a file (its file was missing, was not
 * a regular file, or had another build-id).  The vDSO comes from memory; anything else from
 * the build-id tree, then debuginfod when the user allowed it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)userdata;
	(void)modname;
	(void)base;
	struct ci_symbolizer *s = sym_current;
	*elfp = NULL;
	if (!s)
		return -1;
	if (mod == s->vdso_mod && s->vdso_image) {
		*elfp = elf_memory((char *)s->vdso_image, s->vdso_size);
		return -1;
	}
	const uint8_t *bits;
	size_t len = module_build_id(mod, &bits);
	int fd = open_by_build_id(s, bits, len, "", true, file_name);
	if (fd < 0)
		fd = debuginfod_fetch(s, bits, len, false, file_name);
	return fd;
}

/* find_debuginfo: separate debug info on disk: the build-id tree, then the .gnu_debuglink name
 * next to the file, in its .debug directory and under every absolute directory of the path
 * (what dwfl_standard_find_debuginfo does), checked against the module's build-id when it has
 * one; debuginfod only when the user allowed it.  libdwfl also asks here for a dwz file, with
 * the name from FILE's .gnu_debugaltlink. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			  const char *file, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	(void)userdata;
	(void)modname;
	(void)base;
	(void)crc;
	struct ci_symbolizer *s = sym_current;
	if (!s)
		return -1;
	if (file && debuglink && *debuglink) {
		char name[4096];
		uint8_t id[64];
		size_t id_len = 0;
		int ffd = ci_open_regular(file, NULL);
		Elf *elf = ffd >= 0 ? elf_begin(ffd, ELF_C_READ_MMAP, NULL) : NULL;
		bool alt = elf && elf_alt_link(elf, name, sizeof(name), id, &id_len) &&
			   strcmp(name, debuglink) == 0;
		if (elf)
			elf_end(elf);
		if (ffd >= 0)
			close(ffd);
		if (alt)
			return find_alt(s, file, name, id, id_len, debuginfo_file_name);
	}
	const uint8_t *bits;
	size_t len = module_build_id(mod, &bits);
	int fd = open_by_build_id(s, bits, len, ".debug", true, debuginfo_file_name);
	if (fd >= 0 || !file || !debuglink || !*debuglink || strchr(debuglink, '/') ||
	    !s->debuginfo_path)
		return fd >= 0 ? fd : debuginfod_fetch(s, bits, len, true, debuginfo_file_name);
	const char *slash = strrchr(file, '/');
	char *dir = slash ? strndup(file, (size_t)(slash - file)) : strdup(".");
	char *dirs = strdup(s->debuginfo_path), *save = NULL;
	for (char *d = dir && dirs ? strtok_r(dirs, ":", &save) : NULL; d && fd < 0;
	     d = strtok_r(NULL, ":", &save)) {
		if (*d == '+' || *d == '-')
			d++;
		char *path = NULL;
		int r = *d == '/' ? (dir[0] == '/' ? asprintf(&path, "%s%s/%s", d, dir, debuglink) : -1)
				  : asprintf(&path, "%s/%s/%s", dir, d, debuglink);
		if (r < 0)
			continue;
		fd = open_elf_file(s, path, bits, len, true, debuginfo_file_name);
		free(path);
	}
	/* The empty entry of the path: the debuglink file right next to the module. */
	if (fd < 0 && dir && len > 0) {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, debuglink) >= 0 && strcmp(path, file) != 0)
			fd = open_elf_file(s, path, bits, len, true, debuginfo_file_name);
		free(path);
	}
	free(dirs);
	free(dir);
	return fd >= 0 ? fd : debuginfod_fetch(s, bits, len, true, debuginfo_file_name);
}

static char *make_debuginfo_path(const struct ci_symbolizer_options *opts)
{
	char *p = NULL;
	const char *user = opts && opts->debuginfo_path ? opts->debuginfo_path : "";
	const char *sysroot = opts && opts->sysroot ? opts->sysroot : NULL;
	int r;
	if (sysroot)
		r = asprintf(&p, ":.debug%s%s:%s/usr/lib/debug:/usr/lib/debug", *user ? ":" : "", user,
			     sysroot);
	else
		r = asprintf(&p, ":.debug%s%s:/usr/lib/debug", *user ? ":" : "", user);
	return r < 0 ? NULL : p;
}

/* ---------------------------------------------------------------------------------------- */
/* Reporting the modules of a core or a live process                                          */

/* The file of module M (named PATH): for a core --exe for the executable, the path itself,
 * then under the sysroot; for a live process the very file it mapped
 * (/proc/PID/map_files, root only), then the path in its mount namespace. */
static int open_module_file(struct ci_symbolizer *s, const struct ci_module *m, const char *path,
			    char **file_name)
{
	const uint8_t *id = m->build_id;
	size_t len = m->build_id_len;
	char *p = NULL;
	int fd = -1;
	if (s->mode == SYM_PID) {
		if (asprintf(&p, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)s->pid, m->map_start,
			     m->map_end) >= 0)
			fd = open_elf_file(s, p, id, len, true, NULL);
		free(p);
		p = NULL;
		if (fd < 0 && path[0] == '/' && asprintf(&p, "/proc/%d/root%s", (int)s->pid, path) >= 0)
			fd = open_elf_file(s, p, id, len, true, NULL);
		free(p);
		if (fd >= 0 && !(*file_name = strdup(path))) {
			close(fd);
			fd = -1;
		}
		return fd;
	}
	if (m->executable && s->exe_override)
		fd = open_elf_file(s, s->exe_override, id, len, true, file_name);
	if (fd < 0 && path[0] == '/')
		fd = open_elf_file(s, path, id, len, true, file_name);
	if (fd < 0 && s->sysroot && path[0] == '/' && asprintf(&p, "%s%s", s->sysroot, path) >= 0)
		fd = open_elf_file(s, p, id, len, true, file_name);
	free(p);
	return fd;
}

/* The load bias of the executable whose header was not dumped, from its file FD: the
 * mapping at file offset 0 starts at its first page. */
static bool file_bias(int fd, const struct ci_module *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0;
	bool ok = false;
	GElf_Ehdr eh;
	if (elf && gelf_getehdr(elf, &eh) && elf_getphdrnum(elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && i < CI_MAX_MODULE_PHDRS && !ok; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset < 4096) {
				*bias = m->map_start - (ph.p_vaddr & ~(uint64_t)4095);
				ok = eh.e_type == ET_DYN || *bias == 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	return ok;
}

/* The vDSO's image, copied from the source for libdwfl (find_elf). */
static void copy_vdso(struct ci_symbolizer *s, const struct ci_module *m)
{
	uint64_t size = m->map_end > m->map_start ? m->map_end - m->map_start : 0;
	if (s->mode == SYM_CORE)
		size = ci_source_available(s->src, m->map_start, CI_MAX_VDSO_SIZE);
	if (size < sizeof(Elf64_Ehdr) || size > CI_MAX_VDSO_SIZE)
		return;
	uint8_t *image = malloc(size);
	if (!image || ci_source_read_quiet(s->src, m->map_start, image, size) != CI_READ_OK) {
		free(image);
		return;
	}
	s->vdso_image = image;
	s->vdso_size = size;
}

static void report_module(struct ci_symbolizer *s, const struct ci_module *m)
{
	char *name;
	if (m->vdso) {
		name = strdup("[vdso]");
	} else {
		/* The path as the process saw it, without the " (deleted)" of a replaced file. */
		size_t n = strlen(m->path), d = strlen(" (deleted)");
		if (n > d && strcmp(m->path + n - d, " (deleted)") == 0)
			n -= d;
		name = strndup(m->path, n);
	}
	if (!name)
		return;
	char *file = NULL;
	int fd = m->vdso ? -1 : open_module_file(s, m, name, &file);
	uint64_t bias = m->bias;
	Dwfl_Module *mod = NULL;
	if (fd >= 0 && (m->header_in_memory || file_bias(fd, m, &bias))) {
		/* ET_DYN with add_p_vaddr: placed at BIAS + p_vaddr, as the memory says. */
		mod = dwfl_report_elf(s->dwfl, name, file, fd, bias, true);
		if (mod)
			fd = -1; /* libdwfl owns it */
	}
	if (fd >= 0)
		close(fd);
	if (!mod && m->header_in_memory) {
		/* No file here: libdwfl asks find_elf when it needs one, and checks the build-id. */
		mod = dwfl_report_module(s->dwfl, name, m->start, m->end);
		if (mod && m->build_id_len)
			dwfl_module_report_build_id(mod, m->build_id, m->build_id_len, 0);
		if (mod && m->vdso) {
			s->vdso_mod = mod;
			copy_vdso(s, m);
		}
	}
	free(file);
	free(name);
}

/* Report the modules the source's memory shows; returns how many. */
static size_t report_source_modules(struct ci_symbolizer *s)
{
	struct ci_module *mods = NULL;
	size_t n = 0;
	struct ci_error *err = ci_source_modules(s->src, &mods, &n);
	if (err) {
		ci_warnings_add(&s->warnings, "%s", err->message);
		ci_error_destroy(err);
		return 0;
	}
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < n; i++)
		report_module(s, &mods[i]);
	dwfl_report_end(s->dwfl, NULL, NULL);
	free(mods);
	return n;
}

static bool pseudo_module(const char *path)
{
	return !*path || path[0] == '[' || strstr(path, "linux-vdso") || strstr(path, "linux-gate");
}

/* Report the record's host modules.  A module whose file is missing or has another build-id is
 * left out (its frames keep the module name and offset from the record) and a warning says so. */
static void report_record_modules(struct ci_symbolizer *s, const char *exe_override)
{
	const struct ci_model *m = s->model;
	const char *record_exe = ci_model_string(m, m->header.exe_str);
	size_t missing = 0, mismatched = 0, tried = 0;
	char first_missing[256] = "";

	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < m->host_module_count; i++) {
		if (tried++ == CI_MAX_MODULES) {
			ci_warnings_add(&s->warnings, "the record lists more than %u modules; the others "
					"are left out, and frames in them show module and offset only",
					CI_MAX_MODULES);
			break;
		}
		const struct ci_host_module *hm = &m->host_modules[i];
		if (hm->seq == 0 || hm->unload_ns != 0)
			continue;
		const char *path = ci_model_string(m, hm->path_str);
		if (pseudo_module(path))
			continue;
		bool is_exe = *record_exe && strcmp(path, record_exe) == 0;
		char *candidates[3] = { NULL, NULL, NULL };
		if (is_exe && exe_override)
			candidates[0] = strdup(exe_override);
		if (s->sysroot && path[0] == '/' && asprintf(&candidates[1], "%s%s", s->sysroot, path) < 0)
			candidates[1] = NULL;
		candidates[2] = strdup(path);
		/* The first candidate that is there (a regular file) is the one: a wrong build-id
		 * there is worth a warning, not a look further. */
		const char *file = NULL;
		int fd = -1;
		for (size_t c = 0; c < 3 && fd < 0; c++)
			if (candidates[c] && (fd = open_elf_file(s, candidates[c], NULL, 0, true, NULL)) >= 0)
				file = candidates[c];
		size_t id_len = hm->build_id_len <= sizeof(hm->build_id) ? hm->build_id_len : 0;
		if (fd < 0) {
			if (!missing++)
				ci_scrub(path, first_missing, sizeof(first_missing));
		} else if (id_len) {
			close(fd);
			fd = open_elf_file(s, file, hm->build_id, id_len, true, NULL);
			if (fd < 0 && mismatched++ == 0) {
				char want[80], got[80] = "none", shown[256];
				int gfd = ci_open_regular(file, NULL);
				Elf *elf = gfd >= 0 ? elf_begin(gfd, ELF_C_READ_MMAP, NULL) : NULL;
				const void *bits = NULL;
				ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
				if (n > 0)
					hex(bits, (size_t)n, got, sizeof(got));
				if (elf)
					elf_end(elf);
				if (gfd >= 0)
					close(gfd);
				hex(hm->build_id, id_len, want, sizeof(want));
				ci_warnings_add(&s->warnings,
						"%s has build-id %s but the record says %s: it is not the file "
						"the process ran, so its frames are shown without symbols (pass "
						"--sysroot or --exe to point at the right files)",
						ci_scrub(file, shown, sizeof(shown)), got, want);
			}
		}
		if (fd >= 0 && !dwfl_report_elf(s->dwfl, path, file, fd, hm->base, true)) {
			char shown[256];
			close(fd);
			ci_warnings_add(&s->warnings, "cannot read symbols of %s: %s",
					ci_scrub(file, shown, sizeof(shown)), dwfl_errmsg(-1));
		}
		for (size_t c = 0; c < 3; c++)
			free(candidates[c]);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (mismatched > 1)
		ci_warnings_add(&s->warnings, "%zu more modules of the record have another build-id "
				"than the file at their path, and are shown without symbols too",
				mismatched - 1);
	if (missing)
		ci_warnings_add(&s->warnings,
				"%zu module%s of the record (e.g. %s) %s not on this machine; %s "
				"frames show module and offset only (use --sysroot DIR to read them from a "
				"copy of the crashed machine's files)",
				missing, missing == 1 ? "" : "s", first_missing,
				missing == 1 ? "is" : "are", missing == 1 ? "its" : "their");
}

/* ---------------------------------------------------------------------------------------- */
/* Threads                                                                                    */

/* The machine's ELF header, for dwfl_attach_state (which takes the unwinder from it). */
static Elf *machine_elf(struct ci_symbolizer *s)
{
	if (s->machine_elf || !s->machine)
		return s->machine_elf;
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = s->machine, .e_version = EV_CURRENT,
			  .e_ehsize = sizeof(Elf64_Ehdr) };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(s->machine_ehdr, &eh, sizeof(eh));
	elf_version(EV_CURRENT);
	s->machine_elf = elf_memory((char *)s->machine_ehdr, sizeof(s->machine_ehdr));
	return s->machine_elf;
}

/* Registers as NT_PRSTATUS and PTRACE_GETREGSET give them (x86-64 user_regs_struct, aarch64
 * user_pt_regs) into the unwinder's DWARF numbering. */
static bool set_prstatus_registers(Dwfl_Thread *thread, uint16_t machine, const uint64_t *r,
				   size_t n)
{
	Dwarf_Word dw[32];
	if (machine == EM_X86_64 && n >= 27) {
		/* DWARF 0-15: rax rdx rcx rbx rsi rdi rbp rsp r8-r15; rip is the pc. */
		static const uint8_t from[16] = { 10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0 };
		for (size_t i = 0; i < 16; i++)
			dw[i] = r[from[i]];
		if (!dwfl_thread_state_registers(thread, 0, 16, dw))
			return false;
		dwfl_thread_state_register_pc(thread, r[16]);
		return true;
	}
	if (machine == EM_AARCH64 && n >= 33) {
		/* DWARF 0-30: x0-x30, 31: sp; then pc. */
		for (size_t i = 0; i < 32; i++)
			dw[i] = r[i];
		if (!dwfl_thread_state_registers(thread, 0, 32, dw))
			return false;
		dwfl_thread_state_register_pc(thread, r[32]);
		return true;
	}
	return false;
}

static bool source_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	return ci_source_read_quiet(s->src, addr, result, sizeof(*result)) == CI_READ_OK;
}

/* Threads of a core: NT_PRSTATUS order (the first is the one that crashed), the registers the
 * source parsed, memory through the source: libdwfl's own core callbacks would parse the
 * notes again and walk every program header for each word they read. */
static pid_t core_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	const struct ci_source_info *info = ci_source_info(s->src);
	size_t next = (size_t)(uintptr_t)*thread_argp; /* index + 1 of the last one; 0 first */
	/* libdwfl ends the list at tid 0 and fails at a negative one: a damaged note has them. */
	while (next < info->thread_count &&
	       (info->threads[next].tid == 0 || info->threads[next].tid > INT32_MAX))
		next++;
	if (next >= info->thread_count)
		return 0;
	*thread_argp = (void *)(uintptr_t)(next + 1);
	return (pid_t)info->threads[next].tid;
}

static bool core_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct ci_symbolizer *s = sym_current;
	size_t n = 0;
	const uint64_t *regs = s ? ci_source_thread_regs(s->src, (size_t)(uintptr_t)arg - 1, &n) : NULL;
	return regs && set_prstatus_registers(thread, s->machine, regs, n);
}

static const Dwfl_Thread_Callbacks core_callbacks = {
	.next_thread = core_next_thread,
	.memory_read = source_memory_read,
	.set_initial_registers = core_set_initial_registers,
};

/* The next thread of /proc/PID/task (from the first with FIRST), 0 at the end, -1 on error. */
static pid_t task_next(struct ci_symbolizer *s, bool first)
{
	if (first) {
		if (s->taskdir) {
			rewinddir(s->taskdir);
		} else {
			char path[64];
			snprintf(path, sizeof path, "/proc/%d/task", (int)s->pid);
			if (!(s->taskdir = opendir(path)))
				return -1;
		}
	}
	struct dirent *de;
	while (s->taskdir && (de = readdir(s->taskdir)) != NULL) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);
		if (!*end && tid && tid <= INT32_MAX)
			return (pid_t)tid;
	}
	return 0;
}

static void task_detach(Dwfl *dwfl, void *arg)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	if (s->taskdir)
		closedir(s->taskdir);
	s->taskdir = NULL;
	/* Nothing stays held past the symbolizer. */
	if (s->mode == SYM_PID)
		ci_source_pid_release_all(s->src);
}

/* Threads of a live process: each is stopped (source_pid.c) only from the moment libdwfl
 * asks for its registers until its frames are walked. */
static pid_t live_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	pid_t tid = task_next(s, *thread_argp == NULL);
	*thread_argp = s; /* never NULL: libdwfl takes NULL for "start again" */
	return tid;
}

static bool live_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct ci_symbolizer *s = arg;
	uint32_t tid = (uint32_t)dwfl_thread_tid(thread);
	uint64_t regs[CI_PRSTATUS_NREGS];
	size_t n = 0;
	int e = s->stop_timeouts >= STOP_TIMEOUTS_MAX
			? ECANCELED
			: ci_source_pid_stop(s->src, tid,
					     s->stop_timeouts ? STOP_TIMEOUT_LATER_MS : STOP_TIMEOUT_MS, regs, &n);
	if (!e && !set_prstatus_registers(thread, s->machine, regs, n)) {
		ci_source_pid_resume(s->src, tid);
		e = ENOEXEC;
	}
	if (e) {
		s->stop_tid = tid;
		s->stop_error = e;
		s->stop_timeouts += e == ETIMEDOUT;
		if (e == EPERM && !s->stop_warned) {
			s->stop_warned = true;
			ci_warnings_add(&s->warnings,
					"cannot stop the threads of process %d with ptrace to unwind them "
					"(Operation not permitted): run as the process's user or root, check "
					"/proc/sys/kernel/yama/ptrace_scope, and for a process a debugger "
					"holds, pass its registers (--registers)", (int)s->pid);
		}
		return false;
	}
	return true;
}

static void live_thread_detach(Dwfl_Thread *thread, void *arg)
{
	struct ci_symbolizer *s = arg;
	ci_source_pid_resume(s->src, (uint32_t)dwfl_thread_tid(thread));
}

static const Dwfl_Thread_Callbacks live_callbacks = {
	.next_thread = live_next_thread,
	.memory_read = source_memory_read,
	.set_initial_registers = live_set_initial_registers,
	.detach = task_detach,
	.thread_detach = live_thread_detach,
};

/* Why live thread TID has no frames, as a note, or NULL. */
static const char *stop_problem(const struct ci_symbolizer *s, uint32_t tid)
{
	if (s->mode != SYM_PID || s->given || s->stop_tid != tid || !s->stop_error)
		return NULL;
	switch (s->stop_error) {
	case EPERM:
		return "unwinding stopped after 0 frames: ptrace cannot stop the thread: Operation not "
		       "permitted (is a debugger attached, or does kernel.yama.ptrace_scope forbid it?)";
	case ETIMEDOUT:
		return "unwinding stopped after 0 frames: the thread did not stop when asked to (it "
		       "sleeps in the kernel, state D), so it was left running";
	case ESRCH:
		return "unwinding stopped after 0 frames: the thread exited meanwhile";
	case ECANCELED:
		return "unwinding stopped after 0 frames: not asked to stop, since several threads "
		       "before it did not stop either (they sleep in the kernel)";
	case ENOEXEC:
		return "unwinding stopped after 0 frames: its registers are not those of a 64-bit "
		       "x86-64 or aarch64 thread";
	default:
		return "unwinding stopped after 0 frames: ptrace cannot stop the thread";
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Unwinding a live process from given registers                                              */

/* A process that a debugger traces cannot be ptrace-stopped again; the debugger hands over
 * each thread's registers instead (ci_symbolizer_options.registers) and libdwfl unwinds from
 * them through these callbacks.  The threads are those of /proc/PID/task, in its order; memory
 * is read through the pid source (process_vm_readv), never with ptrace. */

#define GIVEN_NEEDED (1u << CI_REG_X86_64_RIP | 1u << CI_REG_X86_64_RSP)

static const struct ci_thread_registers *given_find(const struct ci_symbolizer *s, uint32_t tid)
{
	for (size_t i = 0; i < s->nregs; i++)
		if (s->regs[i].tid == tid)
			return &s->regs[i];
	return NULL;
}

/* Why thread TID of a process unwound from given registers has no frames, or NULL. */
static const char *given_problem(const struct ci_symbolizer *s, uint32_t tid)
{
	if (!s->given)
		return NULL;
	const struct ci_thread_registers *r = given_find(s, tid);
	if (!r)
		return "no registers were given for this thread, so it is not unwound";
	if ((r->valid & GIVEN_NEEDED) != GIVEN_NEEDED)
		return "the registers given for this thread lack rip or rsp, so it is not unwound";
	return NULL;
}

static pid_t given_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	pid_t tid = task_next(s, *thread_argp == NULL);
	if (tid > 0) {
		const struct ci_thread_registers *r = given_find(s, (uint32_t)tid);
		/* Never NULL: libdwfl takes a NULL argument for "start again". */
		*thread_argp = r ? (void *)r : (void *)&s->regs_none;
	}
	return tid;
}

static bool given_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct ci_thread_registers *r = arg;
	if ((r->valid & GIVEN_NEEDED) != GIVEN_NEEDED)
		return false;
	for (unsigned i = 0; i < CI_REG_X86_64_RIP; i++) {
		Dwarf_Word w = r->regs[i];
		if ((r->valid & 1u << i) && !dwfl_thread_state_registers(thread, (int)i, 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(thread, r->regs[CI_REG_X86_64_RIP]);
	return true;
}

static const Dwfl_Thread_Callbacks given_callbacks = {
	.next_thread = given_next_thread,
	.memory_read = source_memory_read,
	.set_initial_registers = given_set_initial_registers,
	.detach = task_detach,
};

/* Whether the executable of process PID is an x86-64 ELF (the only registers understood). */
static bool pid_is_x86_64(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	int fd = ci_open_regular(path, NULL);
	if (fd < 0)
		return true; /* unknown: let the unwinder try */
	bool ok = true;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	if (elf && gelf_getehdr(elf, &eh))
		ok = eh.e_machine == EM_X86_64;
	elf_end(elf);
	close(fd);
	return ok;
}

/* Attach the given registers' threads to S->dwfl (modules already reported from /proc). */
static void attach_given(struct ci_symbolizer *s, const struct ci_symbolizer_options *opts)
{
#ifndef __x86_64__
	(void)opts;
	ci_warnings_add(&s->warnings, "registers were given, but unwinding from them is supported "
			"on x86-64 only; the threads are not unwound");
	return;
#else
	if (!pid_is_x86_64(s->pid)) {
		ci_warnings_add(&s->warnings, "registers were given, but process %d is not an x86-64 "
				"program (the only registers understood); its threads are not "
				"unwound", (int)s->pid);
		return;
	}
	s->given = true;
	size_t skipped = 0;
	uint32_t first_skipped = 0;
	size_t lacking = 0;
	uint32_t first_lacking = 0;
	for (size_t i = 0; i < opts->register_count; i++) {
		const struct ci_thread_registers *r = &opts->registers[i];
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/task/%u", (int)s->pid, r->tid);
		if (!r->tid || given_find(s, r->tid) || access(path, F_OK) != 0) {
			if (!skipped++)
				first_skipped = r->tid;
			continue;
		}
		if ((r->valid & GIVEN_NEEDED) != GIVEN_NEEDED && !lacking++)
			first_lacking = r->tid;
		if (ci_vec_reserve((void **)&s->regs, &s->regs_cap, s->nregs + 1, sizeof(*s->regs)))
			break; /* out of memory: the threads not kept are not unwound */
		s->regs[s->nregs++] = *r;
	}
	if (skipped)
		ci_warnings_add(&s->warnings, "%zu thread%s of the registers given (e.g. %u) %s not a "
				"thread of process %d (or repeated); ignored", skipped,
				skipped == 1 ? "" : "s", first_skipped, skipped == 1 ? "is" : "are",
				(int)s->pid);
	if (lacking)
		ci_warnings_add(&s->warnings, "%zu thread%s of the registers given (e.g. %u) lack%s rip "
				"or rsp; %s not unwound", lacking, lacking == 1 ? "" : "s",
				first_lacking, lacking == 1 ? "s" : "", lacking == 1 ? "it is" : "they are");
	if (!dwfl_attach_state(s->dwfl, machine_elf(s), s->pid, &given_callbacks, s))
		ci_warnings_add(&s->warnings, "cannot unwind process %d from the registers given: %s",
				(int)s->pid, dwfl_errmsg(-1));
	else
		s->can_unwind = true;
#endif
}


/* ---------------------------------------------------------------------------------------- */
/* Creating                                                                                   */

/* Attach the threads of a core or live process (its modules are reported). */
static void attach_threads(struct ci_symbolizer *s, const struct ci_symbolizer_options *opts)
{
	const struct ci_source_info *info = ci_source_info(s->src);
	if (s->mode == SYM_PID && opts && opts->registers && opts->register_count) {
		attach_given(s, opts);
		return;
	}
	if (!machine_elf(s)) {
		ci_warnings_add(&s->warnings, "cannot unwind the threads: libelf cannot describe ELF "
				"machine %u (%s)", s->machine, elf_errmsg(-1));
		return;
	}
	const Dwfl_Thread_Callbacks *cb = s->mode == SYM_PID ? &live_callbacks : &core_callbacks;
	if (!dwfl_attach_state(s->dwfl, s->machine_elf, s->mode == SYM_PID ? s->pid : (pid_t)info->pid,
			       cb, s))
		ci_warnings_add(&s->warnings, "cannot unwind the threads of %s: %s",
				s->mode == SYM_PID ? "the process" : "the core", dwfl_errmsg(-1));
	else
		s->can_unwind = true;
}

struct ci_error *ci_symbolizer_create(struct ci_source *src, const struct ci_model *model,
				      const struct ci_symbolizer_options *opts,
				      struct ci_symbolizer **ret)
{
	struct ci_symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return ci_error_create(CI_ERR_NOMEM, "out of memory creating the symbolizer");
	s->src = src;
	s->model = model;
	s->debuginfo_path = make_debuginfo_path(opts);
	if (opts && opts->sysroot && *opts->sysroot) {
		s->sysroot = strdup(opts->sysroot);
		/* A trailing slash would double up with the absolute module paths. */
		size_t l = s->sysroot ? strlen(s->sysroot) : 0;
		while (l > 1 && s->sysroot[l - 1] == '/')
			s->sysroot[--l] = '\0';
	}
	if (!s->debuginfo_path || (opts && opts->sysroot && *opts->sysroot && !s->sysroot)) {
		ci_symbolizer_destroy(s);
		return ci_error_create(CI_ERR_NOMEM, "out of memory creating the symbolizer");
	}
	const struct ci_source_info *info = src ? ci_source_info(src) : NULL;
	const char *exe = opts ? opts->executable : NULL;
	s->mode = SYM_RECORD;
	if (info && (info->kind == CI_SOURCE_CORE || info->kind == CI_SOURCE_GCORE))
		s->mode = SYM_CORE;
	else if (info && info->kind == CI_SOURCE_PID)
		s->mode = SYM_PID;
	if (s->mode != SYM_RECORD) {
		s->machine = ci_source_machine(src);
		s->pid = (pid_t)info->pid;
	}

	s->debuginfod = opts && opts->debuginfod;
	s->exe_override = exe;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;

	sym_current = s;
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl) {
		ci_warnings_add(&s->warnings, "cannot start libdwfl: %s; frames are shown as addresses",
				dwfl_errmsg(-1));
		goto out;
	}
	if (s->mode == SYM_RECORD) {
		if (model)
			report_record_modules(s, exe);
		goto out;
	}
	if (report_source_modules(s) == 0 && model) {
		ci_warnings_add(&s->warnings,
				"%s shows no ELF file with its header in memory (%s); using the record's "
				"module table",
				s->mode == SYM_PID ? "the process" : "the core",
				s->mode == SYM_PID ? "an empty memory map" : "no NT_FILE note, or the "
				"headers were not dumped");
		report_record_modules(s, exe);
	}
	attach_threads(s, opts);
out:
	if (s->refused)
		ci_warnings_add(&s->warnings,
				"%s is %s, not a regular file, so cudainspect did not open it%s%s%s; only "
				"regular files are read (a FIFO would block, a device could act)",
				s->refused_first, s->refused_kind ? s->refused_kind : "not a regular file",
				s->refused > 1 ? " (nor " : "",
				s->refused > 1 ? "the other paths like it" : "",
				s->refused > 1 ? ")" : "");
	sym_current = NULL;
	*ret = s;
	return NULL;
}

static void frame_deinit(struct ci_frame *f)
{
	free(f->module);
	free(f->function);
	free(f->file);
}

void ci_frames_free(struct ci_frame *frames, size_t count)
{
	for (size_t i = 0; i < count; i++)
		frame_deinit(&frames[i]);
	free(frames);
}

void ci_thread_stacks_free(struct ci_thread_stack *stacks, size_t count)
{
	if (!stacks)
		return;
	for (size_t i = 0; i < count; i++) {
		ci_frames_free(stacks[i].frames, stacks[i].frame_count);
		free(stacks[i].note);
		free(stacks[i].python_note);
	}
	free(stacks);
}

void ci_symbolizer_destroy(struct ci_symbolizer *sym)
{
	if (!sym)
		return;
	if (sym->dwfl)
		dwfl_end(sym->dwfl);
	if (sym->mode == SYM_PID && sym->src)
		ci_source_pid_release_all(sym->src);
	if (sym->taskdir)
		closedir(sym->taskdir);
	/* libdwfl's Elf handles over these are gone with the Dwfl. */
	free(sym->vdso_image);
	if (sym->machine_elf)
		elf_end(sym->machine_elf);
	if (sym->dbgd.client)
		sym->dbgd.end(sym->dbgd.client);
	for (size_t i = 0; i < sym->cache_cap; i++)
		if (sym->cache[i].key)
			ci_frames_free(sym->cache[i].frames, sym->cache[i].n);
	free(sym->cache);
	ci_py_state_destroy(sym->py);
	free(sym->regs);
	free(sym->debuginfo_path);
	free(sym->sysroot);
	ci_warnings_deinit(&sym->warnings);
	free(sym);
}

struct ci_warnings *ci_symbolizer_warnings(struct ci_symbolizer *sym)
{
	return &sym->warnings;
}

/* ---------------------------------------------------------------------------------------- */
/* Symbolizing one address                                                                    */

struct frame_vec {
	struct ci_frame *v;
	size_t n, cap;
	bool failed;
};

static struct ci_frame *frame_push(struct frame_vec *fv)
{
	if (ci_vec_reserve((void **)&fv->v, &fv->cap, fv->n + 1, sizeof(*fv->v))) {
		fv->failed = true;
		return NULL;
	}
	struct ci_frame *f = &fv->v[fv->n++];
	memset(f, 0, sizeof(*f));
	return f;
}

static char *dup_name(const char *name)
{
	if (!name)
		return NULL;
	/* Symbol versions ("__libc_start_main@@GLIBC_2.34") are not part of the name. */
	const char *at = strchr(name, '@');
	char *plain = at ? strndup(name, (size_t)(at - name)) : strdup(name);
	if (!plain)
		return NULL;
	char *d = ci_demangle(plain);
	if (d) {
		free(plain);
		return d;
	}
	return plain;
}

static bool is_function_scope(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		n = dwarf_formstring(&attr);
	return n ? n : dwarf_diename(die);
}

/* The source position an inlined subroutine was called from. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inlined, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx = 0, ln = 0;
	Dwarf_Files *files;
	size_t nfiles;
	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &idx) == 0 &&
	    dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &ln) == 0)
		*line = (int)ln;
}

/* The record's host module containing ADDRESS, for frames libdwfl cannot place. */
static const struct ci_host_module *record_module(const struct ci_model *m, uint64_t address)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->host_module_count; i++) {
		const struct ci_host_module *hm = &m->host_modules[i];
		if (hm->seq && address >= hm->start && address < hm->end)
			return hm;
	}
	return NULL;
}

/* The C and C++ runtime: their frames (abort, raise, thread start, locks) get function names
 * from the symbol table but no source lines, because reading their DWARF (compressed, tens of
 * MiB where libc6-dbg is installed) cost a third of a report and says nothing about the crash. */
static bool c_runtime(const char *module)
{
	static const char *const prefixes[] = {
		"libc.so", "libc-", "ld-linux", "ld64.so", "libpthread", "libm.so", "libdl.so",
		"librt.so", "libstdc++.so", "libgcc_s.so",
	};
	const char *b = module ? strrchr(module, '/') : NULL;
	b = b ? b + 1 : module;
	for (size_t i = 0; b && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(b, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Whether ADDRESS starts the kernel's (or qemu-user's) signal return trampoline: a handler's
 * caller that lies in no module, e.g. qemu-user's page without a file (the kernel's is in the
 * vDSO, a module).  The instructions are the ABI's, as gdb's sigtramp unwinders match them:
 * aarch64 `mov x8, #139; svc #0`, x86-64 `mov $15, %rax; syscall`. */
static bool sigreturn_trampoline(struct ci_symbolizer *s, uint64_t address)
{
	static const uint8_t aarch64[8] = { 0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4 };
	static const uint8_t x86_64[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	const uint8_t *want = s->machine == EM_AARCH64 ? aarch64 : s->machine == EM_X86_64 ? x86_64 : NULL;
	size_t n = s->machine == EM_AARCH64 ? sizeof aarch64 : sizeof x86_64;
	uint8_t code[9];
	return want && s->src && ci_source_read_quiet(s->src, address, code, n) == CI_READ_OK &&
	       memcmp(code, want, n) == 0;
}

static void symbolize_into(struct ci_symbolizer *s, uint64_t address, bool is_return,
			   struct frame_vec *fv)
{
	uint64_t pc = is_return && address ? address - 1 : address;
	Dwfl_Module *mod = s && s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	size_t first = fv->n;

	if (!mod) {
		struct ci_frame *f = frame_push(fv);
		if (!f)
			return;
		f->address = address;
		const struct ci_host_module *hm = s ? record_module(s->model, pc) : NULL;
		if (hm) {
			const char *p = ci_model_string(s->model, hm->path_str);
			f->module = *p ? strdup(p) : NULL;
			f->module_offset = address - hm->base;
		} else if (s && is_return && sigreturn_trampoline(s, address)) {
			f->function = strdup("<signal handler called>");
		}
		return;
	}

	Dwarf_Addr start = 0;
	const char *mainfile = NULL;
	const char *modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, &mainfile, NULL);
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	const char *module = modname && *modname ? modname : mainfile;
	uint64_t module_offset = elf ? address - bias : address - start;

	GElf_Off sym_off = 0;
	GElf_Sym sym;
	const char *symname = dwfl_module_addrinfo(mod, pc, &sym_off, &sym, NULL, NULL, NULL);

	const char *line_file = NULL;
	int line_no = 0;
	bool lines = !c_runtime(module);
	Dwarf_Addr dwbias = 0;
	Dwarf_Die *cudie = lines ? dwfl_module_addrdie(mod, pc, &dwbias) : NULL;
	/* libdw hands out the nearest line of some line table even for code no compile unit
	 * covers (_start, PLT stubs: "_start (engine.h:32)" where addr2line says ??:?), so a line
	 * counts only inside its compile unit's ranges. */
	if (cudie && dwarf_haspc(cudie, pc - dwbias) != 1)
		cudie = NULL;
	Dwfl_Line *line = cudie ? dwfl_module_getsrc(mod, pc) : NULL;
	if (line)
		line_file = dwfl_lineinfo(line, NULL, &line_no, NULL, NULL, NULL);

	Dwarf_Die *scopes = NULL;
	int nscopes = cudie ? dwarf_getscopes(cudie, pc - dwbias, &scopes) : 0;
	int i = 0;
	while (i < nscopes && !is_function_scope(&scopes[i]))
		i++;

	if (i >= nscopes) {
		struct ci_frame *f = frame_push(fv);
		if (f) {
			f->function = dup_name(symname);
			f->function_offset = sym_off + (address - pc);
			f->file = line_file ? strdup(line_file) : NULL;
			f->line = line_no;
		}
	} else {
		/* Innermost first: the function at PC, then each caller it was inlined into. */
		const char *file = line_file;
		int ln = line_no;
		for (;;) {
			struct ci_frame *f = frame_push(fv);
			if (!f)
				break;
			const char *name = scope_name(&scopes[i]);
			bool inlined = dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;
			f->function = dup_name(name ? name : symname);
			if (!inlined && symname && name && strcmp(symname, name) == 0)
				f->function_offset = sym_off + (address - pc);
			f->file = file ? strdup(file) : NULL;
			f->line = ln;
			f->inlined = inlined;
			if (!inlined)
				break;
			call_site(cudie, &scopes[i], &file, &ln);
			int j = i + 1;
			while (j < nscopes && !is_function_scope(&scopes[j]))
				j++;
			if (j >= nscopes) {
				/* The outer function is not in the scopes: name it from the symtab. */
				f = frame_push(fv);
				if (f) {
					f->function = dup_name(symname);
					f->function_offset = sym_off + (address - pc);
					f->file = file ? strdup(file) : NULL;
					f->line = ln;
				}
				break;
			}
			i = j;
		}
	}
	free(scopes);
	for (size_t k = first; k < fv->n; k++) {
		fv->v[k].address = address;
		fv->v[k].module = module ? strdup(module) : NULL;
		fv->v[k].module_offset = module_offset;
	}
}

const struct ci_frame *ci_symbolize_cached(struct ci_symbolizer *sym, uint64_t address,
					   bool is_return, size_t *n)
{
	*n = 0;
	if (!sym)
		return NULL;
	uint64_t key = address << 1 | (is_return ? 1 : 0);
	if (key == 0)
		key = 2; /* address 0 as an activation: never a real frame, keep slot 0 = empty */
	if (sym->cache_used * 2 >= sym->cache_cap) {
		size_t cap = sym->cache_cap ? sym->cache_cap * 2 : 1024;
		struct sym_cache_entry *c = calloc(cap, sizeof(*c));
		if (!c)
			return NULL;
		for (size_t i = 0; i < sym->cache_cap; i++) {
			if (!sym->cache[i].key)
				continue;
			size_t h = (size_t)ci_alloc_hash(sym->cache[i].key) & (cap - 1);
			while (c[h].key)
				h = (h + 1) & (cap - 1);
			c[h] = sym->cache[i];
		}
		free(sym->cache);
		sym->cache = c;
		sym->cache_cap = cap;
	}
	size_t h = (size_t)ci_alloc_hash(key) & (sym->cache_cap - 1);
	while (sym->cache[h].key && sym->cache[h].key != key)
		h = (h + 1) & (sym->cache_cap - 1);
	if (!sym->cache[h].key) {
		struct frame_vec fv = { 0 };
		struct ci_symbolizer *saved = sym_current;
		sym_current = sym;
		symbolize_into(sym, address, is_return, &fv);
		sym_current = saved;
		if (fv.failed) {
			ci_frames_free(fv.v, fv.n);
			return NULL;
		}
		sym->cache[h].key = key;
		sym->cache[h].frames = fv.v;
		sym->cache[h].n = fv.n;
		sym->cache_used++;
	}
	*n = sym->cache[h].n;
	return sym->cache[h].frames;
}

static int frame_copy(struct ci_frame *dst, const struct ci_frame *src)
{
	*dst = *src;
	dst->module = src->module ? strdup(src->module) : NULL;
	dst->function = src->function ? strdup(src->function) : NULL;
	dst->file = src->file ? strdup(src->file) : NULL;
	if ((src->module && !dst->module) || (src->function && !dst->function) ||
	    (src->file && !dst->file)) {
		frame_deinit(dst);
		return -1;
	}
	return 0;
}

struct ci_error *ci_symbolize(struct ci_symbolizer *sym, uint64_t address, bool is_return,
			      struct ci_frame **frames, size_t *count)
{
	size_t n = 0;
	const struct ci_frame *src = ci_symbolize_cached(sym, address, is_return, &n);
	struct ci_frame one = { .address = address };
	if (!src) {
		if (sym)
			return ci_error_create(CI_ERR_NOMEM, "out of memory symbolizing 0x%" PRIx64,
					       address);
		src = &one;
		n = 1;
	}
	struct ci_frame *v = realloc(*frames, (*count + n) * sizeof(*v));
	if (!v)
		return ci_error_create(CI_ERR_NOMEM, "out of memory symbolizing 0x%" PRIx64, address);
	*frames = v;
	for (size_t i = 0; i < n; i++) {
		if (frame_copy(&v[*count], &src[i]))
			return ci_error_create(CI_ERR_NOMEM, "out of memory symbolizing 0x%" PRIx64,
					       address);
		(*count)++;
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Unwinding threads                                                                          */

/* Whether the code at PC (a call site for a return address: the address - 1) has call frame
 * information, i.e. whether the frame that called it can be justified. */
enum frame_cfi {
	CFI_FOUND,     /* the module's file (or debuginfo) describes PC */
	CFI_NO_FILE,   /* PC is in a known module whose file is not here */
	CFI_NONE,      /* the file is here but does not describe PC (hand-written or JIT code) */
	CFI_NO_MODULE, /* PC is in no module at all */
};

static enum frame_cfi frame_cfi_at(struct ci_symbolizer *s, uint64_t pc)
{
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
	if (!mod)
		return s->model && record_module(s->model, pc) ? CFI_NO_FILE : CFI_NO_MODULE;
	Dwarf_Addr bias;
	if (!dwfl_module_getelf(mod, &bias))
		return CFI_NO_FILE;
	Dwarf_CFI *cfi[2] = { dwfl_module_eh_cfi(mod, &bias), NULL };
	Dwarf_Addr dbias = 0;
	cfi[1] = cfi[0] ? NULL : dwfl_module_dwarf_cfi(mod, &dbias);
	for (size_t i = 0; i < 2; i++) {
		Dwarf_Frame *fr = NULL;
		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc - (i ? dbias : bias), &fr) == 0) {
			free(fr);
			return CFI_FOUND;
		}
	}
	return CFI_NONE;
}

/* The frame pointer's and stack pointer's DWARF register numbers, or false. */
static bool fp_registers(uint16_t machine, unsigned *fp, unsigned *sp)
{
	switch (machine) {
	case EM_X86_64: *fp = 6; *sp = 7; return true;   /* rbp, rsp */
	case EM_AARCH64: *fp = 29; *sp = 31; return true; /* x29, sp */
	default: return false;
	}
}

/* The PCs of one thread's walk.  libdwfl, past a frame without CFI, asks the architecture's
 * backend, which guesses the caller from the frame pointer or the link register whatever the
 * code did with them: that guess is never kept as a frame (a stale return address or a stack
 * word would be shown as a caller).  The walk stops there (NO_CFI) and fp_walk continues, if
 * it can, along frame records it checks one by one. */
struct pc_vec {
	uint64_t *pc;
	bool *activation;
	size_t n, cap, max;
	bool failed;
	struct ci_symbolizer *sym;
	bool no_cfi;                 /* the last frame kept has no CFI: what follows is a guess */
	enum frame_cfi why;          /* what it lacks */
	bool unjustified;            /* a guessed frame was refused, so the walk stopped */
	bool have_regs;              /* frame and stack pointer of the last frame kept */
	uint64_t fp, sp;
	size_t fp_first, fp_count;   /* pc[fp_first..] were found by frame pointers */
	size_t passed_over;          /* frame records in modules without their file, not shown */
	const char *fp_end;          /* why the frame-pointer walk ended */
	uint64_t fp_end_value;
};

static bool pc_push(struct pc_vec *pv, uint64_t pc, bool activation)
{
	size_t cap = pv->cap;
	if (ci_vec_reserve((void **)&pv->pc, &cap, pv->n + 1, sizeof(*pv->pc)) ||
	    ci_vec_reserve((void **)&pv->activation, &pv->cap, pv->n + 1, sizeof(*pv->activation))) {
		pv->failed = true;
		return false;
	}
	pv->pc[pv->n] = pc;
	pv->activation[pv->n] = activation;
	pv->n++;
	return true;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pc_vec *pv = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (pv->no_cfi) {
		pv->unjustified = true;
		return DWARF_CB_ABORT;
	}
	if (!pc_push(pv, pc, activation))
		return DWARF_CB_ABORT;
	unsigned fpr, spr;
	Dwarf_Word fp, sp;
	pv->have_regs = pv->sym && fp_registers(pv->sym->machine, &fpr, &spr) &&
			dwfl_frame_reg(state, fpr, &fp) == 0 && dwfl_frame_reg(state, spr, &sp) == 0;
	pv->fp = pv->have_regs ? fp : 0;
	pv->sp = pv->have_regs ? sp : 0;
	if (pv->sym) {
		pv->why = frame_cfi_at(pv->sym, activation || pc == 0 ? pc : pc - 1);
		pv->no_cfi = pv->why != CFI_FOUND;
	}
	return pv->n >= pv->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* How far above the stack pointer a frame record may be (a thread's stack is at most this). */
#define FP_STACK_SPAN ((uint64_t)256 << 20)
/* Frame records in modules without their file passed over in a row, at most. */
#define FP_PASS_MAX 32u

/* Continue PV past its last frame (one without CFI) along the frame-pointer chain: each record
 * {caller's frame pointer, return address} must lie on the stack above the last, aligned, and
 * its return address in a function whose CFI describes the call site; records whose return
 * address is in a module without its file cannot be checked and are passed over, not shown. */
static void fp_walk(struct ci_symbolizer *s, struct pc_vec *pv)
{
	pv->fp_first = pv->n;
	if (!pv->have_regs) {
		pv->fp_end = "the frame pointer of the last frame is not known";
		return;
	}
	uint64_t fp = pv->fp, lo = pv->sp, align = s->machine == EM_AARCH64 ? 16 : 8;
	unsigned passed = 0;
	while (pv->n < pv->max) {
		uint64_t rec[2];
		if (fp == 0) {
			pv->fp_end = "a null frame pointer (the end of the chain)";
			return;
		}
		if (fp < lo || fp - lo > FP_STACK_SPAN || fp % align) {
			pv->fp_end = "a frame pointer off the stack";
			pv->fp_end_value = fp;
			return;
		}
		if (ci_source_read_quiet(s->src, fp, rec, sizeof(rec)) != CI_READ_OK) {
			pv->fp_end = "a frame record that is not in the input";
			pv->fp_end_value = fp;
			return;
		}
		if (rec[1] == 0) {
			pv->fp_end = "the end of the chain";
			return;
		}
		enum frame_cfi c = frame_cfi_at(s, rec[1] - 1);
		if (c == CFI_NO_FILE && passed < FP_PASS_MAX) {
			passed++;
			pv->passed_over++;
		} else if (c == CFI_FOUND) {
			passed = 0;
			if (!pc_push(pv, rec[1], false))
				break;
			pv->fp_count++;
		} else {
			pv->fp_end = "a return address in no known function";
			pv->fp_end_value = rec[1];
			return;
		}
		lo = fp + 16;
		fp = rec[0];
	}
	if (!pv->fp_end)
		pv->fp_end = pv->failed ? "an allocation that failed" : "the frame limit";
}

/* The note of a walk that refused a guessed frame: where and why it stopped, and what the
 * frame-pointer walk found.  STOP is the (symbolized) frame without CFI, FIRST and LAST the
 * frame numbers found by frame pointers (FIRST > LAST: none). */
static char *unjustified_note(const struct pc_vec *pv, const struct ci_frame *stop, size_t nstop,
			      size_t first, size_t last)
{
	const char *mod = stop && stop->module ? strrchr(stop->module, '/') : NULL;
	mod = mod ? mod + 1 : stop ? stop->module : NULL;
	char where[300], shown[200];
	if (mod)
		snprintf(where, sizeof where, "%s+0x%" PRIx64, ci_scrub(mod, shown, sizeof(shown)),
			 stop->module_offset);
	else
		snprintf(where, sizeof where, "0x%" PRIx64, stop ? stop->address : 0);
	const char *lack = pv->why == CFI_NO_FILE ? "its file is not here: pass --sysroot DIR"
		: pv->why == CFI_NONE ? "the file has none for that address"
		: "the address is in no module";
	char *walk = NULL, *note = NULL;
	char end[80];
	snprintf(end, sizeof end, pv->fp_end_value ? "%s (0x%" PRIx64 ")" : "%s", pv->fp_end,
		 pv->fp_end_value);
	char passed[120] = "";
	if (pv->passed_over)
		snprintf(passed, sizeof passed, ", passing over %zu frame record%s in modules whose "
			 "files are not here", pv->passed_over, pv->passed_over == 1 ? "" : "s");
	char range[64];
	snprintf(range, sizeof range, first == last ? "frame #%zu" : "frames #%zu-#%zu", first, last);
	int r;
	if (first <= last)
		r = asprintf(&walk, "%s found by following frame pointers%s (frames between may be "
			     "missing); that walk ended at %s", range, passed, end);
	else
		r = asprintf(&walk, "following frame pointers found no frame%s: it ended at %s",
			     passed, end);
	if (r < 0)
		return NULL;
	if (asprintf(&note, "unwinding stopped after #%zu: no CFI for %s (%s), so the caller is not "
		     "guessed; %s", nstop, where, lack, walk) < 0)
		note = NULL;
	free(walk);
	return note;
}

struct unwind_ctx {
	struct ci_symbolizer *sym;
	size_t max_frames;
	struct ci_thread_stack *v;
	size_t n, cap;
	bool failed;
};

static void thread_label(struct ci_symbolizer *s, struct ci_thread_stack *t)
{
	const struct ci_source_info *info = s->src ? ci_source_info(s->src) : NULL;
	/* The record's name (set by the program) first; a core knows only the command name. */
	if (s->model)
		ci_thread_name(s->model, t->tid, t->name, sizeof(t->name));
	for (size_t i = 0; info && i < info->thread_count; i++)
		if (info->threads[i].tid == t->tid) {
			t->crashed = info->threads[i].crashed;
			if (!t->name[0])
				CI_SCRUB_FIELD(info->threads[i].name, t->name);
		}
}

/* The interpreter's thread states, once per symbolizer (a live process is read as it is at
 * the first unwind).  Why a Python process's frames cannot be read is one warning. */
static void python_load(struct ci_symbolizer *s)
{
	if (s->py_done)
		return;
	s->py_done = true;
	if (!s->src || s->mode == SYM_RECORD)
		return;
	char *why = NULL;
	s->py = ci_py_find(s->dwfl, s->src, &why);
	if (why)
		ci_warnings_add(&s->warnings, "%s", why);
	else if (s->py && s->py->note)
		ci_warnings_add(&s->warnings, "Python threads: %s", s->py->note);
	free(why);
}

/* Merge T's Python frames (if a thread state runs on it) into its native ones. */
static int python_stack(struct ci_symbolizer *s, struct ci_thread_stack *t)
{
	if (!s->py)
		return 0;
	const struct ci_source_info *info = ci_source_info(s->src);
	uint64_t fs_base = 0;
	for (size_t i = 0; info && i < info->thread_count; i++)
		if (info->threads[i].tid == t->tid && s->machine == EM_X86_64)
			fs_base = info->threads[i].regs[21];
	const struct ci_py_thread *pt = ci_py_thread_of(s->py, t->tid, fs_base);
	if (!pt)
		return 0;
	t->python = true;
	t->gil_holder = pt->gil;
	if (pt->note && !(t->python_note = strdup(pt->note)))
		return -1;
	return ci_py_merge(pt, &t->frames, &t->frame_count, &t->python_note);
}

/* Symbolize the unwound PCs into T (whose tid is set); R is what the frame walk returned.
 * Returns -1 on out-of-memory. */
static int fill_stack(struct ci_symbolizer *sym, struct ci_thread_stack *t, struct pc_vec *pv,
		      int r)
{
	thread_label(sym, t);
	/* The backend's guess past a frame without CFI failed: the same stop as a refused guess. */
	if (r == -1 && pv->no_cfi && pv->n) {
		pv->unjustified = true;
		r = 0;
	}
	const char *problem = NULL;
	if (r == -1 && !(problem = given_problem(sym, t->tid)))
		problem = stop_problem(sym, t->tid);
	if (problem) {
		if (!(t->note = strdup(problem)))
			pv->failed = true;
	} else if (r == -1) {
		const char *msg = dwfl_errmsg(-1);
		bool eperm = sym->mode == SYM_PID && msg && strstr(msg, "not permitted");
		if (asprintf(&t->note, "unwinding stopped after %zu frame%s: %s%s", pv->n,
			     pv->n == 1 ? "" : "s", msg ? msg : "unknown error",
			     eperm ? " (is a debugger attached, or does kernel.yama.ptrace_scope forbid "
				     "it?)" : "") < 0)
			t->note = NULL;
	} else if (pv->unjustified) {
		fp_walk(sym, pv);
	} else if (pv->n >= pv->max) {
		if (asprintf(&t->note, "stopped at %zu frames (the limit)", pv->max) < 0)
			t->note = NULL;
	}
	struct frame_vec fv = { 0 };
	size_t stop_at = 0, fp_from = 0; /* shown frame numbers of the stop and of the first found
					  * by frame pointers */
	for (size_t i = 0; i < pv->n && !fv.failed; i++) {
		size_t n;
		const struct ci_frame *f =
			ci_symbolize_cached(sym, pv->pc[i], !pv->activation[i], &n);
		if (!f) {
			fv.failed = true;
			break;
		}
		if (pv->unjustified && i + 1 == pv->fp_first)
			stop_at = fv.n + n - 1;
		if (pv->unjustified && i == pv->fp_first)
			fp_from = fv.n;
		for (size_t k = 0; k < n; k++) {
			struct ci_frame *d = frame_push(&fv);
			if (!d)
				break;
			if (frame_copy(d, &f[k])) {
				fv.n--;
				fv.failed = true;
				break;
			}
		}
	}
	if (pv->unjustified && !t->note && !fv.failed) {
		const struct ci_frame *stop = stop_at < fv.n ? &fv.v[stop_at] : NULL;
		size_t last = pv->fp_count ? fv.n - 1 : 0;
		if (!(t->note = unjustified_note(pv, stop, stop_at, pv->fp_count ? fp_from : 1, last)))
			pv->failed = true;
	}
	free(pv->pc);
	free(pv->activation);
	t->frames = fv.v;
	t->frame_count = fv.n;
	if (fv.failed || pv->failed)
		return -1;
	return python_stack(sym, t);
}

static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct unwind_ctx *u = arg;
	if (ci_vec_reserve((void **)&u->v, &u->cap, u->n + 1, sizeof(*u->v))) {
		u->failed = true;
		return DWARF_CB_ABORT;
	}
	struct ci_thread_stack *t = &u->v[u->n++];
	memset(t, 0, sizeof(*t));
	t->tid = (uint32_t)dwfl_thread_tid(thread);
	struct pc_vec pv = { .max = u->max_frames ? u->max_frames : 256, .sym = u->sym };
	int r = dwfl_thread_getframes(thread, frame_cb, &pv);
	if (fill_stack(u->sym, t, &pv, r)) {
		u->failed = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

struct one_thread {
	uint32_t tid;
	struct pc_vec pv;
	int r; /* what the frame walk returned; -2 until the thread is found */
};

static int one_thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct one_thread *one = arg;
	if ((uint32_t)dwfl_thread_tid(thread) != one->tid)
		return DWARF_CB_OK;
	one->r = dwfl_thread_getframes(thread, frame_cb, &one->pv);
	/* Not DWARF_CB_ABORT: stopping the walk early leaks the thread state in libdw 0.188. */
	return DWARF_CB_OK;
}

struct ci_error *ci_unwind_thread(struct ci_symbolizer *sym, uint32_t tid, size_t max_frames,
				  struct ci_thread_stack **ret)
{
	*ret = NULL;
	if (!sym || !sym->dwfl || !sym->can_unwind || !tid)
		return NULL;
	struct ci_thread_stack *t = calloc(1, sizeof(*t));
	if (!t)
		return ci_error_create(CI_ERR_NOMEM, "out of memory unwinding thread %u", tid);
	t->tid = tid;
	/* dwfl_getthreads, skipping the other threads, rather than dwfl_getthread_frames, which
	 * leaks a little in libdw 0.188 (LeakSanitizer in make check-asan). */
	struct one_thread one = { .tid = tid,
				  .pv = { .max = max_frames ? max_frames : 256, .sym = sym }, .r = -2 };
	struct ci_symbolizer *saved = sym_current;
	sym_current = sym;
	python_load(sym);
	dwfl_getthreads(sym->dwfl, one_thread_cb, &one);
	if (one.r == -2) {
		if (asprintf(&t->note, "thread %u is not in the input", tid) < 0)
			t->note = NULL;
		one.r = 0;
	}
	int failed = fill_stack(sym, t, &one.pv, one.r);
	sym_current = saved;
	if (failed) {
		ci_thread_stacks_free(t, 1);
		return ci_error_create(CI_ERR_NOMEM, "out of memory unwinding thread %u", tid);
	}
	*ret = t;
	return NULL;
}

struct ci_error *ci_unwind_threads(struct ci_symbolizer *sym, size_t max_frames,
				   struct ci_thread_stack **ret, size_t *count)
{
	struct unwind_ctx u = { .sym = sym, .max_frames = max_frames };
	*ret = NULL;
	*count = 0;
	if (!sym || !sym->dwfl || !sym->can_unwind)
		return NULL;
	struct ci_symbolizer *saved = sym_current;
	sym_current = sym;
	python_load(sym);
	int r = dwfl_getthreads(sym->dwfl, thread_cb, &u);
	sym_current = saved;
	if (u.failed) {
		ci_thread_stacks_free(u.v, u.n);
		return ci_error_create(CI_ERR_NOMEM, "out of memory unwinding threads");
	}
	if (r == -1)
		ci_warnings_add(&sym->warnings, "cannot list the threads: %s", dwfl_errmsg(-1));
	*ret = u.v;
	*count = u.n;
	return NULL;
}
