/* SPDX-License-Identifier: MIT */
/*
 * `cudainspect record [OPTIONS] -- CMD ARGS...`: run a program under the flight recorder.  It
 * preloads libcudainspect-rec.so, lifts the core-size limit, points the recorder's snapshot
 * files at the record directory, runs CMD, and passes its exit status through.  When CMD dies
 * of a signal it says where the core and the record snapshot went (from the kernel's
 * core_pattern, which may pipe cores to systemd-coredump instead) and prints the summary of
 * whichever it found.
 *
 * The record directory may be shared with other users, so nothing there is trusted for its
 * name or time: the directory is created 0700 (common/safefile.c), refused if it is a link,
 * someone else's, or writable by others without the sticky bit; and the child's snapshot is the
 * file whose own header says it is: the child's pid, a start during the child's run on this
 * boot, the highest write_generation - among regular files of ours with a single link.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "safefile.h"

#define RECORDER_LIB CLI_RECORDER_LIB
/* Where the recorder writes snapshot files, and keeps a persistent record (docs/ENVIRONMENT.md). */
#define SNAPSHOT_DIR_ENV "CUDAINSPECT_SNAPSHOT_DIR"
#define PERSISTENT_DIR_ENV "CUDAINSPECT_DIR"
/* --gpu-core: the driver's GPU core dump on an exception, with the flags that leave out memory
 * and the images as loaded (the H200's dump of a small program: 148 MB, about 6 s; shared/gpu/
 * README.md), into the record directory under a name with the child's pid (%p), renamed after
 * the host core once it is known. */
#define GPU_CORE_FLAGS "skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_local_memory"
#define GPU_CORE_NAME "cudainspect-gpucore."

static const char record_usage[] =
	"Usage: cudainspect record [OPTIONS] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD under the cudainspect flight recorder with core dumps enabled.  If CMD\n"
	"dies of a signal, say where its core dump and record snapshot went and print\n"
	"the summary; if it exits with a nonzero status after the recorder wrote a\n"
	"snapshot (a CUDA error turned into an exception), print that snapshot's.\n"
	"\n"
	"Options:\n"
	"  -d, --dir DIR        write the recorder's snapshot files into DIR (created,\n"
	"                       mode 0700, if needed; it must be yours, not a link, and\n"
	"                       not writable by others; sets " SNAPSHOT_DIR_ENV ")\n"
	"      --persistent     also keep the record itself in a file in DIR (default:\n"
	"                       the current directory), so that it survives kill -9\n"
	"                       (sets " PERSISTENT_DIR_ENV ")\n"
	"      --preload PATH   the recorder library (default: " RECORDER_LIB "\n"
	"                       next to cudainspect, or in ../lib)\n"
	"      --no-core        leave the core-size limit as it is\n"
	"      --gpu-core       also have the driver write a GPU core dump on a kernel\n"
	"                       exception (CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 with\n"
	"                       the flags that skip memory), kept beside the host core\n"
	"                       as CORE.gpucore and joined with the record; costly:\n"
	"                       148 MB and ~6 s on an H200 for a small program\n"
	"  -j, --json           print the JSON report instead of the summary\n"
	"  -q, --quiet          no warnings, no notes\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: CMD's own exit status; 128+N when CMD was killed by signal N;\n"
	"2 for a usage error, 127 when CMD cannot be run.\n";

char *cli_find_recorder(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	static const char *const rel[] = { "", "/../lib", "/../lib/cudainspect",
					   "/../lib/x86_64-linux-gnu" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = NULL, *real;
		if (asprintf(&p, "%s%s/%s", self, rel[i], RECORDER_LIB) < 0)
			return NULL;
		real = realpath(p, NULL);
		free(p);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

static char *read_small_file(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return strdup(buf);
}

/* Append S to a glob pattern, escaping glob characters. */
static void glob_append(char *out, size_t n, size_t *o, const char *s)
{
	for (; *s && *o + 2 < n; s++) {
		if (strchr("*?[]\\", *s))
			out[(*o)++] = '\\';
		out[(*o)++] = *s;
	}
	out[*o] = '\0';
}

/* The newest file matching PATTERN that was modified at or after SINCE, or NULL: only a regular
 * file of ours with a single link (the kernel writes a core as the dumping user), never through
 * a symbolic link, so a planted link or hard link is not taken for the core. */
static char *newest_match(const char *pattern, time_t since)
{
	glob_t g;
	char *best = NULL;
	time_t best_t = 0;
	if (glob(pattern, 0, NULL, &g) != 0)
		return NULL;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		if (lstat(g.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime < since ||
		    st.st_uid != geteuid() || st.st_nlink != 1)
			continue;
		if (!best || st.st_mtime >= best_t) {
			free(best);
			best = strdup(g.gl_pathv[i]);
			best_t = st.st_mtime;
		}
	}
	globfree(&g);
	return best;
}

/* Where the kernel put the core of PID (COMM), following core_pattern; NULL if not found.
 * *PIPED is set when cores go to a program (e.g. systemd-coredump) instead of a file. */
static char *find_core(pid_t pid, const char *comm, time_t since, char **piped)
{
	char *pattern = read_small_file("/proc/sys/kernel/core_pattern");
	char *uses_pid = read_small_file("/proc/sys/kernel/core_uses_pid");
	char g[PATH_MAX], num[32];
	size_t o = 0;
	bool has_pid = false;
	*piped = NULL;
	if (!pattern)
		pattern = strdup("core");
	if (pattern && pattern[0] == '|') {
		*piped = pattern;
		free(uses_pid);
		return NULL;
	}
	g[0] = '\0';
	for (const char *p = pattern ? pattern : "core"; *p && o + 2 < sizeof(g); p++) {
		if (*p != '%') {
			char one[2] = { *p, 0 };
			glob_append(g, sizeof(g), &o, one);
			continue;
		}
		p++;
		switch (*p) {
		case '\0': p--; break;
		case '%': glob_append(g, sizeof(g), &o, "%"); break;
		case 'p':
		case 'P':
			snprintf(num, sizeof(num), "%d", (int)pid);
			glob_append(g, sizeof(g), &o, num);
			has_pid = true;
			break;
		case 'e': glob_append(g, sizeof(g), &o, comm); break;
		default: g[o++] = '*'; g[o] = '\0'; break; /* time, host, uid…: match anything */
		}
	}
	if (!has_pid && uses_pid && strcmp(uses_pid, "1") == 0 && o + 16 < sizeof(g)) {
		snprintf(num, sizeof(num), ".%d", (int)pid);
		glob_append(g, sizeof(g), &o, num);
	}
	free(pattern);
	free(uses_pid);
	char *core = newest_match(g, since);
	if (!core && !has_pid) {
		/* A plain "core" may have been written with the pid appended anyway. */
		snprintf(g + o, sizeof(g) - o, ".%d", (int)pid);
		core = newest_match(g, since);
	}
	return core;
}

/* The process the snapshot must come from: the child's pid, a record started while it ran. */
struct record_owner {
	pid_t pid;
	uint64_t from_ns, to_ns; /* CLOCK_REALTIME before the fork, after the wait */
	uint8_t boot_id[16];     /* this boot's; zeros if unknown */
};

/* The best record file of OWNER found so far. */
struct record_pick {
	char name[CI_SF_NAME_MAX];
	bool snapshot;           /* origin SNAPSHOT (a persistent record is the fallback) */
	uint64_t generation, when;
};

static bool boot_known(const uint8_t id[16])
{
	static const uint8_t zero[16];
	return memcmp(id, zero, 16) != 0;
}

/* NAME in DIRFD, if its header says it is OWNER's record; better than *BEST: a snapshot before
 * the persistent record, then the latest write_generation. */
static void consider_record(int dirfd, const char *name, const struct record_owner *owner,
			    struct record_pick *best)
{
	struct stat st;
	struct ci_header h;
	int fd = ci_sf_open_owned(dirfd, name, &st);
	if (fd < 0)
		return;
	ssize_t n = pread(fd, &h, sizeof h, 0);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h.magic, CI_RECORD_MAGIC, CI_RECORD_MAGIC_LEN) ||
	    h.major != CI_FORMAT_MAJOR || h.header_size < sizeof h)
		return;
	if (h.pid != (uint32_t)owner->pid || h.start_realtime_ns < owner->from_ns ||
	    h.start_realtime_ns > owner->to_ns)
		return;
	if (boot_known(owner->boot_id) && boot_known(h.boot_id) &&
	    memcmp(h.boot_id, owner->boot_id, sizeof h.boot_id))
		return;
	bool snapshot = h.origin == CI_ORIGIN_SNAPSHOT;
	if (!snapshot && h.origin != CI_ORIGIN_PERSISTENT)
		return;
	uint64_t when = snapshot ? h.snapshot_monotonic_ns : 0;
	if (best->name[0] && (best->snapshot > snapshot ||
			      (best->snapshot == snapshot &&
			       (best->generation > h.write_generation ||
				(best->generation == h.write_generation && best->when >= when)))))
		return;
	size_t len = strlen(name);
	if (len >= sizeof best->name)
		return; /* not a name the recorder writes; cut, it would name another file */
	memcpy(best->name, name, len + 1);
	best->snapshot = snapshot;
	best->generation = h.write_generation;
	best->when = when;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* OWNER's record in directory DIRFD (whose absolute path is DIR): the path of the best
 * snapshot, or of its persistent record, or NULL. */
static char *find_record(int dirfd, const char *dir, const struct record_owner *owner)
{
	int scan = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = scan >= 0 ? fdopendir(scan) : NULL;
	if (!d) {
		if (scan >= 0)
			close(scan);
		return NULL;
	}
	struct record_pick best = { .name = "" };
	for (struct dirent *e; (e = readdir(d));)
		if (!strncmp(e->d_name, "cudainspect-", 12) &&
		    (has_suffix(e->d_name, CI_SNAPSHOT_SUFFIX) ||
		     has_suffix(e->d_name, CI_PERSISTENT_SUFFIX)))
			consider_record(dirfd, e->d_name, owner, &best);
	closedir(d);
	char *path = NULL;
	if (best.name[0] && asprintf(&path, "%s/%s", dir, best.name) < 0)
		path = NULL;
	return path;
}

/* Why directory FD may not hold the records we read back (NULL if it may): it must be ours,
 * and not writable by others unless sticky (where they cannot replace our files). */
static const char *record_dir_unsafe(int fd)
{
	static char why[160];
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
		return "is not a directory";
	if (st.st_uid != geteuid()) {
		snprintf(why, sizeof why, "belongs to uid %u, not to you (uid %u): another user could "
			 "plant files there; give a directory of your own (-d DIR)",
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return why;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(why, sizeof why, "can be written by other users (mode %04o, no sticky bit), "
			 "who could replace the files in it: `chmod go-w` it, or give another "
			 "directory (-d DIR)", (unsigned)(st.st_mode & 07777));
		return why;
	}
	return NULL;
}

/* The directory's absolute path as the kernel resolved it (what was checked), else realpath. */
static char *dir_path(int fd, const char *fallback)
{
	char proc[64], buf[PATH_MAX];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, buf, sizeof buf - 1);
	if (n > 0 && buf[0] == '/') {
		buf[n] = '\0';
		return strdup(buf);
	}
	return realpath(fallback, NULL);
}

/* The realtime clock in nanoseconds. */
static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int prepend_env(const char *name, const char *value, char sep)
{
	const char *old = getenv(name);
	char *v = NULL;
	if (old && *old) {
		if (asprintf(&v, "%s%c%s", value, sep, old) < 0)
			return -1;
	} else {
		v = strdup(value);
	}
	if (!v)
		return -1;
	int r = setenv(name, v, 1);
	free(v);
	return r;
}

/* The child's snapshot by what the files say of themselves (find_record): in the snapshot
 * directory, else in the persistent record's directory. */
static char *child_snapshot(int snapfd, const char *snapdir, bool persistent, const char *absdir,
			    const struct record_owner *owner)
{
	char *snap = NULL;
	if (snapfd >= 0 && snapdir)
		snap = find_record(snapfd, snapdir, owner);
	if (!snap && persistent && absdir && (!snapdir || strcmp(absdir, snapdir))) {
		int pfd = open(absdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pfd >= 0 && !record_dir_unsafe(pfd))
			snap = find_record(pfd, absdir, owner);
		if (pfd >= 0)
			close(pfd);
	}
	return snap;
}

/* The summary (or the JSON) of INPUT, after the child is gone. */
/* The summary of what the child left; `kernel_log` (or NULL) is the file of its kernel-log lines. */
static void report_input(const char *input, bool json, bool quiet, const char *kernel_log,
			 const char *gpu_core)
{
	fflush(stderr);
	static struct ci_render_options render;
	struct ci_symbolizer_options sym = { 0 };
	render.view = CI_VIEW_SUMMARY;
	render.width = 100;
	struct cli_inspect_args a = { .input = input, .json = json, .quiet = quiet,
				      .render = &render, .sym = &sym, .kernel_log = kernel_log,
				      .gpu_core = gpu_core };
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("LD_PRELOAD");
	int r = cli_inspect(&a);
	if (r != CI_EXIT_OK)
		cli_error("record: the report could not be made (exit code %d)", r);
}

/* What `record` was asked to do. */
struct record_options {
	const char *dir, *preload;
	bool no_core, json, quiet, persistent, gpu_core;
	char **cmd;
};

/* The options before CMD.  0, or an exit code after saying why (or after --help: -1). */
static int parse_record_options(int argc, char **argv, struct record_options *o)
{
	enum { OPT_PRELOAD = 256, OPT_NO_CORE, OPT_PERSISTENT, OPT_GPU_CORE };
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "preload", required_argument, NULL, OPT_PRELOAD },
		{ "no-core", no_argument, NULL, OPT_NO_CORE },
		{ "persistent", no_argument, NULL, OPT_PERSISTENT },
		{ "gpu-core", no_argument, NULL, OPT_GPU_CORE },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	opterr = 0;
	optind = 1;
	/* "+": stop at the first non-option, which is CMD. */
	while ((c = getopt_long(argc, argv, "+:d:jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->dir = optarg; break;
		case OPT_PRELOAD: o->preload = optarg; break;
		case OPT_NO_CORE: o->no_core = true; break;
		case OPT_PERSISTENT: o->persistent = true; break;
		case OPT_GPU_CORE: o->gpu_core = true; break;
		case 'j': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'h': fputs(record_usage, stdout); return -1;
		case ':': return cli_usage_error("record: option '%s' needs an argument",
						 argv[optind - 1]);
		default: return cli_usage_error("record: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("record: no command to run (cudainspect record -- CMD ARGS...)");
	o->cmd = argv + optind;
	return 0;
}

/* Where the child runs and what it leaves: the recorder library, the record directory (open,
 * and its path), the directory snapshots are read back from (NULL: none that can be trusted). */
struct record_setup {
	char *lib;
	int snapfd;
	char *absdir, *snapdir;
};

static void record_setup_deinit(struct record_setup *r)
{
	if (r->snapfd >= 0)
		close(r->snapfd);
	free(r->lib);
	free(r->absdir);
	free(r->snapdir);
}

/* The record directory --dir names, created 0700 and checked like every directory `record`
 * reads back from.  0, or an exit code after saying why. */
static int make_record_dir(const char *dir, struct record_setup *r)
{
	bool created;
	r->snapfd = ci_sf_make_dir(dir, &created);
	if (r->snapfd < 0) {
		if (errno == ELOOP)
			cli_error("record: the record directory %s is a symbolic link; give the "
				  "directory itself (a link may lead into another user's "
				  "directory)", dir);
		else
			cli_error("record: cannot create the record directory %s: %s", dir,
				  strerror(errno));
		return CI_EXIT_USAGE;
	}
	const char *why = record_dir_unsafe(r->snapfd);
	if (why) {
		cli_error("record: the record directory %s %s", dir, why);
		return CI_EXIT_USAGE;
	}
	r->absdir = dir_path(r->snapfd, dir);
	r->snapdir = r->absdir ? strdup(r->absdir) : NULL;
	return 0;
}

/* Without --dir: where the recorder will write (docs/ENVIRONMENT.md), read back from there only
 * if no one else can replace the files in it. */
static void find_snapshot_dir(const struct record_options *o, struct record_setup *r)
{
	const char *where = getenv(SNAPSHOT_DIR_ENV);
	if (!where || !*where)
		where = getenv(PERSISTENT_DIR_ENV);
	if (!where || !*where)
		where = ".";
	r->snapfd = open(where, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	const char *why = r->snapfd >= 0 ? record_dir_unsafe(r->snapfd) : NULL;
	if (why) {
		if (!o->quiet)
			cli_error("record: note: the snapshot directory %s %s; snapshots "
				  "written there will not be reported", where, why);
		close(r->snapfd);
		r->snapfd = -1;
	} else if (r->snapfd >= 0) {
		r->snapdir = dir_path(r->snapfd, where);
	}
}

/* --gpu-core: the driver's variables for the child (ours replace any already set: the file must
 * be where the report looks for it).  0, or an exit code after saying why. */
static int set_up_gpu_core(const struct record_options *o, const struct record_setup *r)
{
	char file[PATH_MAX];
	if (!r->absdir || snprintf(file, sizeof file, "%s/" GPU_CORE_NAME "%%p", r->absdir) >= (int)sizeof file) {
		cli_error("record: --gpu-core: no directory to write the GPU core into");
		return CI_EXIT_USAGE;
	}
	if (setenv("CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "1", 1) ||
	    setenv("CUDA_COREDUMP_GENERATION_FLAGS", GPU_CORE_FLAGS, 1) ||
	    setenv("CUDA_COREDUMP_FILE", file, 1)) {
		cli_error("record: cannot set the environment: %s", strerror(errno));
		return CI_EXIT_INTERNAL;
	}
	if (!o->quiet)
		cli_error("record: note: GPU core dumps on: a kernel exception writes one (about 148 MB "
			  "and 6 s on an H200 for a small program) and aborts the program");
	return 0;
}

/* The GPU core the driver wrote for PID, moved beside the host core CORE as CORE.gpucore when
 * there is one (NULL: left where it is); its path (free it) or NULL when none was written. */
static char *child_gpu_core(const struct record_setup *r, pid_t pid, const char *core, bool quiet)
{
	char *path = NULL, *moved = NULL;
	if (!r->absdir || asprintf(&path, "%s/" GPU_CORE_NAME "%d", r->absdir, (int)pid) < 0)
		return NULL;
	struct stat st;
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		if (!quiet)
			cli_error("record: no GPU core was written (no kernel exception, or the driver "
				  "could not write %s)", path);
		free(path);
		return NULL;
	}
	if (core && asprintf(&moved, "%s" CLI_GPU_CORE_SUFFIX, core) >= 0 && rename(path, moved) == 0) {
		free(path);
		path = moved;
	} else {
		free(moved);
	}
	cli_error("record: GPU core dump: %s", path);
	return path;
}

/* The recorder preloaded, the record directory, the environment and the core-size limit for the
 * child.  0, or an exit code after saying why. */
static int set_up_record(const struct record_options *o, struct record_setup *r)
{
	r->lib = o->preload ? realpath(o->preload, NULL) : cli_find_recorder();
	if (!r->lib) {
		if (o->preload)
			cli_error("record: cannot use the recorder library %s: %s", o->preload,
				  strerror(errno));
		else
			cli_error("record: cannot find %s next to cudainspect or in ../lib; build it "
				  "(make) or pass --preload PATH", RECORDER_LIB);
		return CI_EXIT_USAGE;
	}
	int rc;
	if (o->dir && (rc = make_record_dir(o->dir, r)))
		return rc;
	if (!o->dir)
		r->absdir = realpath(".", NULL);
	if (prepend_env("LD_PRELOAD", r->lib, ':') != 0 ||
	    (o->dir && r->absdir && setenv(SNAPSHOT_DIR_ENV, r->absdir, 1) != 0) ||
	    (o->persistent && r->absdir && setenv(PERSISTENT_DIR_ENV, r->absdir, 1) != 0)) {
		cli_error("record: cannot set the environment: %s", strerror(errno));
		return CI_EXIT_INTERNAL;
	}
	if (!o->dir)
		find_snapshot_dir(o, r);
	if (o->gpu_core && (rc = set_up_gpu_core(o, r)))
		return rc;
	if (!o->no_core) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_CORE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && !o->quiet)
				cli_error("record: note: the hard core-size limit is %llu bytes; a large "
					  "core will be cut short", (unsigned long long)rl.rlim_max);
		}
	}
	return 0;
}

/* Run CMD to its end, like a shell: ^C goes to CMD, and we stay to report what happened.
 * OWNER gets the child's pid and when it ran.  False after saying why. */
static bool run_child(char **cmd, int snapfd, struct record_owner *owner, int *status)
{
	owner->from_ns = realtime_ns();
	ci_sf_boot_id(owner->boot_id);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		cli_error("record: cannot start %s: %s", cmd[0], strerror(errno));
		return false;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		if (snapfd >= 0)
			close(snapfd);
		execvp(cmd[0], cmd);
		fprintf(stderr, "cudainspect: record: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			cli_error("record: lost track of %s (pid %d): %s", cmd[0], (int)pid,
				  strerror(errno));
			return false;
		}
	}
	owner->pid = pid;
	owner->to_ns = realtime_ns();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return true;
}

/* CMD exited with status RC: a program that turns a CUDA error into an exception (PyTorch's
 * RuntimeError) exits without a core, and the snapshot the recorder wrote at the first sticky
 * error (or an API error's) holds the record: that is what to report. */
static void report_exit(const struct record_options *o, const struct record_setup *r,
			const struct record_owner *owner, int rc)
{
	if (rc == 0 || rc == 127)
		return;
	if (!o->quiet)
		cli_error("record: %s (pid %d) exited with status %d", o->cmd[0], (int)owner->pid, rc);
	char *snap = child_snapshot(r->snapfd, r->snapdir, o->persistent, r->absdir, owner);
	if (snap) {
		cli_error("record: record snapshot: %s", snap);
		char *gpu = o->gpu_core ? child_gpu_core(r, owner->pid, NULL, o->quiet) : NULL;
		report_input(snap, o->json, o->quiet, NULL, gpu);
		free(gpu);
	}
	free(snap);
}

/* CMD was killed by a signal (STATUS): where its core and its record snapshot went, the kernel
 * log's lines of it since START_US, and the report of the core (or the snapshot). */
static void report_kill(const struct record_options *o, const struct record_setup *r,
			const struct record_owner *owner, int status, time_t start, uint64_t start_us)
{
	int sig = WTERMSIG(status);
	pid_t pid = owner->pid;
	char **cmd = o->cmd, *piped = NULL;
	char comm[16];
	const char *base = strrchr(cmd[0], '/');
	snprintf(comm, sizeof(comm), "%s", base ? base + 1 : cmd[0]);
	char *core = WCOREDUMP(status) ? find_core(pid, comm, start, &piped) : NULL;
	if (core) {
		/* An absolute path, so that the commands the report suggests work from anywhere. */
		char *abs = realpath(core, NULL);
		if (abs) {
			free(core);
			core = abs;
		}
	}
	char *snap = child_snapshot(r->snapfd, r->snapdir, o->persistent, r->absdir, owner);

	cli_error("record: %s (pid %d) was killed by signal %d (%s)%s", cmd[0], (int)pid, sig,
		  strsignal(sig), WCOREDUMP(status) ? " and dumped core" : "");
	if (core)
		cli_error("record: core dump: %s", core);
	else if (piped)
		cli_error("record: the core went to the program in core_pattern (%s); get it with "
			  "`coredumpctl dump %d -o core.zst`", piped, (int)pid);
	else if (WCOREDUMP(status))
		cli_error("record: the core dump was not found where core_pattern says it goes");
	else
		cli_error("record: no core dump was written (core-size limit, or a signal that does "
			  "not dump core)");
	if (snap)
		cli_error("record: record snapshot: %s", snap);
	/* The lines beside the core go into the report below too (they replace the record's). */
	char *klog = cli_record_kernel_log(pid, comm, start_us, core ? core : snap, o->quiet);

	/* A persistent record is a file mapping, which cores do not include by default: then the
	 * snapshot is the one to read. */
	const char *input = core && !(o->persistent && snap) ? core : snap;
	char *gpu = o->gpu_core ? child_gpu_core(r, pid, core, o->quiet) : NULL;
	if (input)
		report_input(input, o->json, o->quiet, klog, gpu);
	free(gpu);
	free(klog);
	free(core);
	free(piped);
	free(snap);
}

int cli_record(int argc, char **argv)
{
	struct record_options o = { 0 };
	int rc = parse_record_options(argc, argv, &o);
	if (rc)
		return rc < 0 ? CI_EXIT_OK : rc;
	struct record_setup r __attribute__((cleanup(record_setup_deinit))) = { .snapfd = -1 };
	if ((rc = set_up_record(&o, &r)))
		return rc;
	time_t start = time(NULL);
	uint64_t start_us = cli_klog_now_us();
	struct record_owner owner = { 0 };
	int status = 0;
	if (!run_child(o.cmd, r.snapfd, &owner, &status))
		return CI_EXIT_INTERNAL;
	if (WIFEXITED(status)) {
		report_exit(&o, &r, &owner, WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	report_kill(&o, &r, &owner, status, start, start_us);
	return 128 + WTERMSIG(status);
}
