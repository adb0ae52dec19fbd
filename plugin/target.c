/* SPDX-License-Identifier: MIT */
/*
 * Why GDB handed the JIT reader no flight record (see target.h): find GDB's core or traced
 * process through /proc, look for a record there with the reader library, and if there is one,
 * compare the recorder library the process ran with (its build-id, from the record's host
 * module table) with the file GDB read the JIT descriptor from.
 */
#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudainspect/cudainspect.h"

static bool fd_is_core(int fd)
{
	Elf64_Ehdr eh;
	return pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
	       !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_type == ET_CORE;
}

struct held_search {
	dev_t dev;
	ino_t ino;
};

/* LINK (/proc/PID/fd/N) is an ELF core file (and the file WANT names, unless NULL).  Only regular
 * files are opened: GDB's terminal and pipes are among its descriptors. */
static bool link_is_core(const char *link, const struct held_search *want)
{
	struct stat st;
	if (stat(link, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (want && (st.st_dev != want->dev || st.st_ino != want->ino)))
		return false;
	int fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	bool core = fd_is_core(fd);
	close(fd);
	return core;
}

/* Call FN(DIR/NAME, NAME, ARG) for each entry of DIR whose name is a number (a pid or a file
 * descriptor) until FN returns true; returns whether one did. */
static bool each_numbered(const char *dir,
			  bool (*fn)(const char *path, const char *name, void *arg), void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		char path[400];
		if (isdigit((unsigned char)e->d_name[0]) &&
		    snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
			found = fn(path, e->d_name, arg);
	}
	closedir(d);
	return found;
}

struct core_search {
	char *path;
	size_t len;
};

/* LINK (/proc/PID/fd/N) is an ELF core file: its path goes to the search. */
static bool fd_core(const char *link, const char *name, void *arg)
{
	struct core_search *s = arg;
	ssize_t n = readlink(link, s->path, s->len - 1);
	if (n <= 0 || s->path[0] != '/')
		return false;
	s->path[n] = 0;
	return link_is_core(link, NULL);
}

struct tracee_search {
	pid_t tracer, found;
};

/* DIR (/proc/PID) is a process traced by the search's tracer. */
static bool traced(const char *dir, const char *name, void *arg)
{
	struct tracee_search *s = arg;
	char status[420], line[256];
	snprintf(status, sizeof status, "%s/status", dir);
	FILE *f = fopen(status, "re");
	if (!f)
		return false;
	int tracer = -1;
	while (fgets(line, sizeof line, f) && sscanf(line, "TracerPid: %d", &tracer) != 1)
		;
	fclose(f);
	if (tracer != (int)s->tracer)
		return false;
	s->found = (pid_t)atoi(name);
	return true;
}

/* LINK (/proc/PID/fd/N) is the file of the search, and an ELF core. */
static bool fd_same_core(const char *link, const char *name, void *arg)
{
	return link_is_core(link, arg);
}

bool cigdb_holds_core(pid_t gdb_pid, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	char fds[64];
	snprintf(fds, sizeof fds, "/proc/%d/fd", (int)gdb_pid);
	struct held_search s = { st.st_dev, st.st_ino };
	return each_numbered(fds, fd_same_core, &s);
}

bool cigdb_traces(pid_t gdb_pid, pid_t lwp)
{
	char dir[64];
	snprintf(dir, sizeof dir, "/proc/%d", (int)lwp);
	struct tracee_search s = { gdb_pid, 0 };
	return traced(dir, "0", &s);
}

enum cigdb_target_kind cigdb_target_find(pid_t gdb_pid, char *path, size_t len, pid_t *pid)
{
	char fds[64];
	snprintf(fds, sizeof fds, "/proc/%d/fd", (int)gdb_pid);
	struct core_search core = { path, len };
	struct tracee_search tracee = { gdb_pid, 0 };
	if (each_numbered(fds, fd_core, &core))
		return CIGDB_TARGET_CORE;
	if (each_numbered("/proc", traced, &tracee)) {
		*pid = tracee.found;
		return CIGDB_TARGET_PROCESS;
	}
	return CIGDB_TARGET_NONE;
}

/* The NT_GNU_BUILD_ID of the ELF file PATH; false if it has none or cannot be read. */
static bool file_build_id(const char *path, uint8_t *id, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool found = false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; elf && !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (!found && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz <= 32) {
				memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
				*len = nh.n_descsz;
				found = true;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

enum module_file { MODULE_SAME, MODULE_REPLACED, MODULE_MISSING };

/* Whether host module M's file on disk is the one the process ran with (same build-id), another
 * one, or not there.  *PATH is its path. */
static enum module_file module_file(const struct ci_model *model, const struct ci_host_module *m,
				    const char **path)
{
	uint8_t id[32];
	size_t id_len = 0;
	*path = ci_model_string(model, m->path_str);
	if (!m->seq || m->unload_ns || !m->build_id_len || !*path || (*path)[0] != '/')
		return MODULE_SAME;
	if (access(*path, F_OK) != 0)
		return MODULE_MISSING;
	return file_build_id(*path, id, &id_len) && id_len == m->build_id_len &&
			       !memcmp(id, m->build_id, id_len)
		       ? MODULE_SAME
		       : MODULE_REPLACED;
}

/* Why a record that is in the core or process did not reach the plugin.  GDB finds the
 * recorder's JIT descriptor through the symbols of the library file on disk: if that file is
 * not the one the process ran with, it reads the wrong bytes; if it is missing, none.  The
 * recorder is the module whose name says so, else any replaced module is suspect. */
static void explain_unread(const struct ci_model *model, const char *what, char *msg, size_t len)
{
	const char *path = NULL, *p;
	enum module_file state = MODULE_SAME;
	for (size_t i = 0; model && i < model->host_module_count; i++) {
		enum module_file s = module_file(model, &model->host_modules[i], &p);
		bool named = s != MODULE_SAME && strstr(strrchr(p, '/'), "cudainspect");
		if (named || (s == MODULE_REPLACED && !path)) {
			path = p;
			state = s;
		}
		if (named)
			break;
	}
	const char *tail = "; `cuda summary` reads it from there directly";
	char shown[4096];
	if (state == MODULE_REPLACED)
		snprintf(msg, len,
			 "cudainspect: %s holds a flight record, but GDB did not hand it over: GDB "
			 "reads the recorder's JIT descriptor through the library files on disk, and "
			 "%s is not the one the process ran with (rebuilt or replaced since; GDB's "
			 "\"Unsupported JIT protocol version\" comes from that)%s",
			 what, ci_scrub(path, shown, sizeof shown), tail);
	else if (state == MODULE_MISSING)
		snprintf(msg, len,
			 "cudainspect: %s holds a flight record, but GDB did not hand it over: it finds "
			 "the recorder's JIT descriptor through the library the process ran with, %s, "
			 "which is not on this machine%s", what, ci_scrub(path, shown, sizeof shown), tail);
	else
		snprintf(msg, len,
			 "cudainspect: %s holds a flight record, but GDB did not hand it over (the "
			 "process ran with CUDAINSPECT_JIT=off, or its recorder library was stripped of "
			 "the symbols GDB looks for)%s", what, tail);
}

void cigdb_no_record_explain(pid_t gdb_pid, char *msg, size_t len)
{
	char path[4096] = "", what[4200];
	pid_t pid = 0;
	struct ci_error *err = NULL;
	struct ci_source *src = NULL;
	struct ci_model *model = NULL;
	struct ci_location loc;
	enum cigdb_target_kind kind = cigdb_target_find(gdb_pid, path, sizeof path, &pid);
	if (kind == CIGDB_TARGET_CORE) {
		char shown[4096];
		snprintf(what, sizeof what, "the core file %s", ci_scrub(path, shown, sizeof shown));
		err = ci_source_open(path, NULL, &src);
	} else if (kind == CIGDB_TARGET_PROCESS) {
		snprintf(what, sizeof what, "process %d", (int)pid);
		err = ci_source_open_pid(pid, NULL, &src);
	}
	if (kind != CIGDB_TARGET_NONE && !err && !(err = ci_locate(src, &loc))) {
		/* Only the host module table matters here: a decoding problem just leaves it out. */
		struct ci_error *derr = ci_decode(src, &loc, &model);
		ci_error_destroy(derr);
		explain_unread(model, what, msg, len);
	} else if (kind != CIGDB_TARGET_NONE && err && err->code != CI_ERR_NO_RECORD) {
		/* A record that is there but damaged, or a core that cannot be read, is not "no
		 * record": say what the reader found, as the CLI would. */
		snprintf(msg, len, "cudainspect: %s (GDB works as usual)", err->message);
	} else {
		int n = snprintf(msg, len, "cudainspect: no flight record in %s (%s); GDB works as usual",
			 kind == CIGDB_TARGET_NONE ? "this process" : what,
			 kind == CIGDB_TARGET_CORE
				 ? "the process did not run with libcudainspect-rec.so, or had not made "
				   "its first CUDA call"
				 : "it does not run with libcudainspect-rec.so, or has not made its first "
				   "CUDA call yet");
		/* A core: the gist of what its host side shows (ci_hostside_create), as `cuda
		 * summary` prints it in full. */
		struct ci_hostside *h = NULL;
		struct ci_error *herr = kind == CIGDB_TARGET_CORE && src && n > 0 && (size_t)n < len
						? ci_hostside_create(src, NULL, &h)
						: NULL;
		if (h) {
			char gist[2048], cmd[1024];
			const char *next = ci_hostside_next_command(h);
			ci_hostside_gist(h, gist, sizeof gist);
			snprintf(msg + n, len - (size_t)n,
				 "\ncudainspect: %s; `cuda summary` shows more%s%s", gist,
				 next ? "; next time: " : "", next ? ci_scrub(next, cmd, sizeof cmd) : "");
		}
		ci_error_destroy(herr);
		ci_hostside_destroy(h);
	}
	ci_error_destroy(err);
	ci_model_destroy(model);
	ci_source_close(src);
}
