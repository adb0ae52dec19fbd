/* SPDX-License-Identifier: MIT */
/*
 * Stage 5, symbolize and unwind, through elfutils libdwfl.  A core reports its modules from the
 * core itself (link_map, NT_FILE, build-ids) and its threads from NT_PRSTATUS; a live pid from
 * /proc (threads are stopped one at a time with ptrace while they are unwound, as eu-stack
 * does, or, for a process a debugger holds, unwound from the registers it hands over); a
 * record file, or a record handed over without a source, from the record's host module table
 * (path, load bias, build-id), checked against the files on disk.  Recorded stacks
 * (launch, alloc, free, error) are symbolized on demand and cached per address, because stacks
 * repeat and the allocation view of a large record asks for the same frames many times.
 * Everything here is best effort: what cannot be found becomes a warning and a frame with only
 * an address and module, never an error.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render-internal.h"

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

struct ci_symbolizer {
	Dwfl_Callbacks callbacks; /* must outlive the Dwfl */
	char *debuginfo_path;     /* callbacks.debuginfo_path points here */
	char *sysroot;
	Dwfl *dwfl;
	enum sym_mode mode;
	pid_t pid;
	bool can_unwind;
	bool debuginfod;          /* libdwfl may ask debuginfod servers (--debuginfod) */
	const char *exe_override; /* --exe */
	const char *exe_name;     /* the executable as the core names it (for --exe) */
	struct ci_source *src;
	const struct ci_model *model;
	struct ci_warnings warnings;
	struct sym_cache_entry *cache;
	size_t cache_cap, cache_used;
	/* Unwinding from given registers (attach_given), instead of ptrace */
	bool given;
	struct ci_thread_registers *regs, regs_none;
	size_t nregs, regs_cap;
	DIR *taskdir;             /* /proc/PID/task, while libdwfl lists the threads */
};

/* libdwfl's find_elf callback has no user pointer; the symbolizer in use is kept here for the
 * duration of each libdwfl call (one Dwfl per thread, as libdwfl requires). */
static __thread struct ci_symbolizer *sym_current;

/* ---------------------------------------------------------------------------------------- */
/* Demangling                                                                                 */

typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);
static cxa_demangle_fn *cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	/* libstdc++ is on every system with gcc; loading it on demand keeps the reader a C
	 * program without a link-time C++ dependency. */
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			f = dlsym(h, "__cxa_demangle");
	}
	cxa_demangle = (cxa_demangle_fn *)f;
}

char *ci_demangle(const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&cxa_once, cxa_load);
	if (!cxa_demangle)
		return NULL;
	int status = -1;
	char *out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---------------------------------------------------------------------------------------- */
/* Module lookup callbacks                                                                    */

static int open_under_sysroot(const char *sysroot, const char *path, char **file_name)
{
	if (!sysroot || !path || path[0] != '/')
		return -1;
	char *full = NULL;
	if (asprintf(&full, "%s%s", sysroot, path) < 0)
		return -1;
	int fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(full);
		return -1;
	}
	*file_name = full;
	return fd;
}

/* The open file at PATH when its GNU build-id is WANT, else -1.  With FILE_NAME, *FILE_NAME gets
 * a copy of PATH. */
static int open_with_build_id(const char *path, const unsigned char *want, int want_len,
			      char **file_name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bool match = false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		const void *bits = NULL;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
		match = n > 0 && n == want_len && memcmp(bits, want, (size_t)n) == 0;
		elf_end(elf);
	}
	if (match && file_name && !(*file_name = strdup(path)))
		match = false;
	if (!match) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What libdwfl's build-id lookups do on disk, without their last resort: the debuginfod client,
 * whose loading (libdebuginfod, libcurl, GnuTLS) cost about 5 ms of every report that met a
 * module no longer matching its file, even with no server configured.  Looks for
 * DIR/.build-id/xx/rest[.debug] in every absolute directory of the debuginfo path. */
static int open_by_build_id(struct ci_symbolizer *s, Dwfl_Module *mod, bool debug,
			    char **file_name)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 1 || !s->debuginfo_path)
		return -1;
	char hexid[2 * 64 + 1];
	size_t o = 0;
	for (int i = 0; i < len && o + 3 <= sizeof(hexid); i++)
		o += (size_t)snprintf(hexid + o, sizeof(hexid) - o, "%02x", bits[i]);
	char *dirs = strdup(s->debuginfo_path), *save = NULL;
	int fd = -1;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && fd < 0;
	     d = strtok_r(NULL, ":", &save)) {
		if (*d == '+' || *d == '-')
			d++;
		char *path = NULL;
		if (*d != '/' || asprintf(&path, "%s/.build-id/%.2s/%s%s", d, hexid, hexid + 2,
					  debug ? ".debug" : "") < 0)
			continue;
		fd = open_with_build_id(path, bits, len, file_name);
		free(path);
	}
	free(dirs);
	return fd;
}

/* The find_elf callback for cores and record module tables: called lazily for modules whose
 * file did not open, or opened with the wrong build-id (libdwfl checks it).  The build-id
 * directories, then the sysroot; debuginfod only when the user allowed it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct ci_symbolizer *s = sym_current;
	*elfp = NULL;
	if (!s || s->debuginfod || (s->exe_override && s->exe_name && modname &&
				    strcmp(modname, s->exe_name) == 0)) {
		/* dwfl_build_id_find_elf also puts the --exe file in for the core's executable. */
		int fd = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
		if (fd >= 0 || *elfp || !s)
			return fd;
	} else {
		int fd = open_by_build_id(s, mod, false, file_name);
		if (fd >= 0)
			return fd;
	}
	return s->mode == SYM_CORE ? open_under_sysroot(s->sysroot, modname, file_name) : -1;
}

/* Separate debug info on disk: the build-id tree, then the .gnu_debuglink name next to the file,
 * in its .debug directory and under every absolute directory of the path (what
 * dwfl_standard_find_debuginfo does), checked against the module's build-id when it has one; the
 * network (debuginfod) only when the user allowed it. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			  const char *file, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	struct ci_symbolizer *s = sym_current;
	if (!s || s->debuginfod)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file, debuglink, crc,
						    debuginfo_file_name);
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file, debuglink, crc,
					      debuginfo_file_name);
	if (fd >= 0 || !file || !debuglink || !*debuglink || strchr(debuglink, '/') ||
	    !s->debuginfo_path)
		return fd;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);
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
		if (len > 0) {
			fd = open_with_build_id(path, bits, len, debuginfo_file_name);
		} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 &&
			   !(*debuginfo_file_name = strdup(path))) {
			close(fd);
			fd = -1;
		}
		free(path);
	}
	/* The empty entry of the path: the debuglink file right next to the module. */
	if (fd < 0 && dir) {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, debuglink) >= 0 && strcmp(path, file) != 0)
			fd = len > 0 ? open_with_build_id(path, bits, len, debuginfo_file_name) : -1;
		free(path);
	}
	free(dirs);
	free(dir);
	return fd;
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
/* Unwinding a live process from given registers                                              */

/* A process that a debugger traces cannot be ptrace-attached again, so
 * dwfl_linux_proc_attach fails; the debugger hands over each thread's registers instead
 * (ci_symbolizer_options.registers) and libdwfl unwinds from them through these callbacks.
 * The threads are those of /proc/PID/task, in its order (as dwfl_linux_proc_attach lists
 * them); memory is read through the pid source (process_vm_readv), never with ptrace. */

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
	if (!*thread_argp) {
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
	while ((de = readdir(s->taskdir)) != NULL) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);
		if (*end || !tid || tid > INT32_MAX)
			continue;
		const struct ci_thread_registers *r = given_find(s, (uint32_t)tid);
		/* Never NULL: libdwfl takes a NULL argument for "start again". */
		*thread_argp = r ? (void *)r : (void *)&s->regs_none;
		return (pid_t)tid;
	}
	return 0;
}

static bool given_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	struct ci_error *err = ci_source_read(s->src, addr, result, sizeof(*result));
	if (err) {
		ci_error_destroy(err);
		return false;
	}
	return true;
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

static void given_detach(Dwfl *dwfl, void *arg)
{
	(void)dwfl;
	struct ci_symbolizer *s = arg;
	if (s->taskdir)
		closedir(s->taskdir);
	s->taskdir = NULL;
}

static const Dwfl_Thread_Callbacks given_callbacks = {
	.next_thread = given_next_thread,
	.memory_read = given_memory_read,
	.set_initial_registers = given_set_initial_registers,
	.detach = given_detach,
};

/* Whether the executable of process PID is an x86-64 ELF (the only registers understood). */
static bool pid_is_x86_64(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
	if (!dwfl_attach_state(s->dwfl, NULL, s->pid, &given_callbacks, s))
		ci_warnings_add(&s->warnings, "cannot unwind process %d from the registers given: %s",
				(int)s->pid, dwfl_errmsg(-1));
	else
		s->can_unwind = true;
#endif
}

/* ---------------------------------------------------------------------------------------- */
/* Creating                                                                                   */

static bool build_id_matches(const char *path, const uint8_t *want, size_t want_len,
			     char *got_hex, size_t got_hex_len)
{
	bool ok = true;
	got_hex[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		const void *bits = NULL;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &bits);
		if (n > 0) {
			size_t o = 0;
			for (ssize_t i = 0; i < n && o + 3 < got_hex_len; i++)
				o += (size_t)snprintf(got_hex + o, got_hex_len - o, "%02x",
						      ((const uint8_t *)bits)[i]);
			ok = (size_t)n == want_len && memcmp(bits, want, want_len) == 0;
		} else {
			ok = false;
			snprintf(got_hex, got_hex_len, "none");
		}
		elf_end(elf);
	} else {
		ok = false;
	}
	close(fd);
	return ok;
}

static void hex(const uint8_t *b, size_t n, char *out, size_t outn)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && o + 3 < outn; i++)
		o += (size_t)snprintf(out + o, outn - o, "%02x", b[i]);
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
	size_t missing = 0, mismatched = 0;
	char first_missing[256] = "";

	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < m->host_module_count; i++) {
		const struct ci_host_module *hm = &m->host_modules[i];
		if (hm->seq == 0 || hm->unload_ns != 0)
			continue;
		const char *path = ci_model_string(m, hm->path_str);
		if (pseudo_module(path))
			continue;
		char *file = NULL;
		bool is_exe = *record_exe && strcmp(path, record_exe) == 0;
		if (is_exe && exe_override)
			file = strdup(exe_override);
		else if (s->sysroot && path[0] == '/' && asprintf(&file, "%s%s", s->sysroot, path) < 0)
			file = NULL;
		if (!file || access(file, R_OK) != 0) {
			free(file);
			file = strdup(path);
		}
		if (!file)
			continue;
		if (access(file, R_OK) != 0) {
			if (!missing++)
				ci_scrub(path, first_missing, sizeof(first_missing));
			free(file);
			continue;
		}
		char got[80];
		if (hm->build_id_len > 0 && hm->build_id_len <= sizeof(hm->build_id) &&
		    !build_id_matches(file, hm->build_id, hm->build_id_len, got, sizeof(got))) {
			char want[80], shown[256];
			hex(hm->build_id, hm->build_id_len, want, sizeof(want));
			ci_warnings_add(&s->warnings,
					"%s has build-id %s but the record says %s: it is not the file the "
					"process ran, so its frames are shown without symbols (pass "
					"--sysroot or --exe to point at the right files)",
					ci_scrub(file, shown, sizeof(shown)), *got ? got : "none", want);
			mismatched++;
			free(file);
			continue;
		}
		if (!dwfl_report_elf(s->dwfl, path, file, -1, hm->base, true)) {
			char shown[256];
			ci_warnings_add(&s->warnings, "cannot read symbols of %s: %s",
					ci_scrub(file, shown, sizeof(shown)), dwfl_errmsg(-1));
		}
		free(file);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (missing)
		ci_warnings_add(&s->warnings,
				"%zu module%s of the record (e.g. %s) %s not on this machine; %s "
				"frames show module and offset only (use --sysroot DIR to read them from a "
				"copy of the crashed machine's files)",
				missing, missing == 1 ? "" : "s", first_missing,
				missing == 1 ? "is" : "are", missing == 1 ? "its" : "their");
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
	if (info && (info->kind == CI_SOURCE_CORE || info->kind == CI_SOURCE_GCORE) &&
	    ci_source_elf(src))
		s->mode = SYM_CORE;
	else if (info && info->kind == CI_SOURCE_PID)
		s->mode = SYM_PID;

	s->debuginfod = opts && opts->debuginfod;
	s->exe_override = exe;
	s->exe_name = info ? info->executable : NULL;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->callbacks.find_elf = s->mode == SYM_PID ? dwfl_linux_proc_find_elf : find_elf;

	sym_current = s;
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl) {
		ci_warnings_add(&s->warnings, "cannot start libdwfl: %s; frames are shown as addresses",
				dwfl_errmsg(-1));
		goto out;
	}
	switch (s->mode) {
	case SYM_CORE: {
		Elf *core = ci_source_elf(src);
		dwfl_report_begin(s->dwfl);
		int n = dwfl_core_file_report(s->dwfl, core, exe);
		if (dwfl_report_end(s->dwfl, NULL, NULL) != 0 || n < 0) {
			ci_warnings_add(&s->warnings,
					"cannot list the modules of the core (%s); using the record's "
					"module table", dwfl_errmsg(-1));
			dwfl_end(s->dwfl);
			s->dwfl = dwfl_begin(&s->callbacks);
			s->mode = SYM_RECORD;
			if (s->dwfl)
				report_record_modules(s, exe);
			break;
		}
		if (dwfl_core_file_attach(s->dwfl, core) < 0)
			ci_warnings_add(&s->warnings, "cannot read the threads of the core: %s",
					dwfl_errmsg(-1));
		else
			s->can_unwind = true;
		break;
	}
	case SYM_PID:
		s->pid = (pid_t)info->pid;
		dwfl_report_begin(s->dwfl);
		if (dwfl_linux_proc_report(s->dwfl, s->pid) != 0 ||
		    dwfl_report_end(s->dwfl, NULL, NULL) != 0) {
			ci_warnings_add(&s->warnings,
					"cannot list the modules of process %d from /proc; using the "
					"record's module table", (int)s->pid);
			dwfl_end(s->dwfl);
			s->callbacks.find_elf = find_elf;
			s->dwfl = dwfl_begin(&s->callbacks);
			s->mode = SYM_RECORD;
			if (s->dwfl)
				report_record_modules(s, exe);
			break;
		}
		if (opts && opts->registers && opts->register_count) {
			attach_given(s, opts);
		} else {
			int r = dwfl_linux_proc_attach(s->dwfl, s->pid, false);
			if (r != 0)
				ci_warnings_add(&s->warnings,
						"cannot attach to process %d to unwind its threads (%s); "
						"run as the process owner or root, and check "
						"/proc/sys/kernel/yama/ptrace_scope",
						(int)s->pid, r > 0 ? strerror(r) : dwfl_errmsg(-1));
			else
				s->can_unwind = true;
		}
		break;
	case SYM_RECORD:
		if (model)
			report_record_modules(s, exe);
		break;
	}
out:
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
	}
	free(stacks);
}

void ci_symbolizer_destroy(struct ci_symbolizer *sym)
{
	if (!sym)
		return;
	if (sym->dwfl)
		dwfl_end(sym->dwfl);
	for (size_t i = 0; i < sym->cache_cap; i++)
		if (sym->cache[i].key)
			ci_frames_free(sym->cache[i].frames, sym->cache[i].n);
	free(sym->cache);
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

struct pc_vec {
	uint64_t *pc;
	bool *activation;
	size_t n, cap, max;
	bool failed;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pc_vec *pv = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	size_t cap = pv->cap;
	if (ci_vec_reserve((void **)&pv->pc, &cap, pv->n + 1, sizeof(*pv->pc)) ||
	    ci_vec_reserve((void **)&pv->activation, &pv->cap, pv->n + 1, sizeof(*pv->activation))) {
		pv->failed = true;
		return DWARF_CB_ABORT;
	}
	pv->pc[pv->n] = pc;
	pv->activation[pv->n] = activation;
	pv->n++;
	return pv->n >= pv->max ? DWARF_CB_ABORT : DWARF_CB_OK;
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

/* Symbolize the unwound PCs into T (whose tid is set); R is what the frame walk returned.
 * Returns -1 on out-of-memory. */
static int fill_stack(struct ci_symbolizer *sym, struct ci_thread_stack *t, struct pc_vec *pv,
		      int r)
{
	thread_label(sym, t);
	const char *problem = r == -1 ? given_problem(sym, t->tid) : NULL;
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
	} else if (pv->n >= pv->max) {
		if (asprintf(&t->note, "stopped at %zu frames (the limit)", pv->max) < 0)
			t->note = NULL;
	}
	struct frame_vec fv = { 0 };
	for (size_t i = 0; i < pv->n && !fv.failed; i++) {
		size_t n;
		const struct ci_frame *f =
			ci_symbolize_cached(sym, pv->pc[i], !pv->activation[i], &n);
		if (!f) {
			fv.failed = true;
			break;
		}
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
	free(pv->pc);
	free(pv->activation);
	t->frames = fv.v;
	t->frame_count = fv.n;
	return fv.failed || pv->failed ? -1 : 0;
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
	struct pc_vec pv = { .max = u->max_frames ? u->max_frames : 256 };
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
	struct one_thread one = { .tid = tid, .pv = { .max = max_frames ? max_frames : 256 },
				  .r = -2 };
	struct ci_symbolizer *saved = sym_current;
	sym_current = sym;
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
