/* SPDX-License-Identifier: MIT */
/*
 * Live processes as a source (`cudainspect --pid PID`): memory through process_vm_readv (or
 * /proc/PID/mem where that is refused), mappings from /proc/PID/maps, threads and their names
 * from /proc/PID/task.  Reading never stops the process, so everything read may change between
 * two reads; the decoder knows (ci_source_is_live) and re-checks each entry's seq.  Only the
 * unwinder stops a thread, one at a time and for as long as its stack is walked
 * (ci_source_pid_stop): with PTRACE_SEIZE and PTRACE_INTERRUPT, which send no SIGSTOP, so that
 * when the reader dies, however it dies, the kernel detaches and the thread runs on; a
 * PTRACE_ATTACH leaves its SIGSTOP behind as a group stop (every thread in state T, no tracer).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "source.h"

#define PID_CMDLINE_MAX 4096

static struct ci_error *pid_error(struct ci_source *src, int e, const char *what)
{
	if (e == ESRCH || e == ENOENT)
		return ci_error_create(CI_ERR_IO, "process %d does not exist (or has exited)", (int)src->pid);
	if (e == EPERM || e == EACCES)
		return ci_error_create(CI_ERR_IO,
				       "cannot %s of process %d: permission denied. Run cudainspect as the "
				       "process's user or as root; kernel.yama.ptrace_scope=2 or 3 also forbids it",
				       what, (int)src->pid);
	return ci_error_create(CI_ERR_IO, "cannot %s of process %d: %s", what, (int)src->pid, strerror(e));
}

static ssize_t pid_read_raw(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	if (!src->vm_readv_failed) {
		struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
		ssize_t n = process_vm_readv(src->pid, &local, 1, &remote, 1, 0);
		if (n >= 0 || (errno != EPERM && errno != ENOSYS))
			return n;
		src->vm_readv_failed = true;
	}
	if (src->mem_fd < 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/mem", (int)src->pid);
		src->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (src->mem_fd < 0)
			return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(src->mem_fd, (uint8_t *)buf + done, len - done, (off_t)(addr + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : n;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

enum ci_read ci_source_read_pid_quiet(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	return len == 0 || pid_read_raw(src, addr, buf, len) == (ssize_t)len ? CI_READ_OK
									   : CI_READ_UNAVAILABLE;
}

struct ci_error *ci_source_read_pid(struct ci_source *src, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return NULL;
	ssize_t n = pid_read_raw(src, addr, buf, len);
	if (n == (ssize_t)len)
		return NULL;
	if (n < 0 && (errno == ESRCH || errno == EPERM || errno == EACCES))
		return pid_error(src, errno, "read the memory");
	return ci_error_create(CI_ERR_UNAVAILABLE,
			       "process %d: %zu bytes at 0x%llx are not readable (not mapped or unmapped "
			       "meanwhile)", (int)src->pid, len, (unsigned long long)addr);
}

static struct ci_error *pid_load_maps(struct ci_source *src)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)src->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return pid_error(src, errno, "read the memory map");
	struct ci_source_info *info = &src->info;
	size_t cap = 0;
	char *line = NULL;
	size_t linecap = 0;
	struct ci_error *err = NULL;
	uint32_t index = 0;
	while (!err && getline(&line, &linecap, f) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int pathpos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pathpos) < 4 ||
		    end <= start)
			continue;
		char *p = pathpos ? line + pathpos : line + strlen(line);
		p[strcspn(p, "\n")] = 0;
		if (strcmp(p, "[vdso]") == 0 && !src->vdso_start) {
			src->vdso_start = start;
			src->vdso_end = end;
		}
		if (perms[0] == 'r' && strcmp(p, "[vvar]") != 0 && strcmp(p, "[vsyscall]") != 0) {
			struct ci_segment seg = {
				.start = start, .end = end, .captured = end - start, .index = index,
				.flags = (perms[0] == 'r' ? 4u : 0) | (perms[1] == 'w' ? 2u : 0) |
					 (perms[2] == 'x' ? 1u : 0),
			};
			err = ci_source_add_segment(src, &seg);
		}
		index++;
		if (err || p[0] != '/' || info->mapping_count >= CI_MAX_MAPPINGS)
			continue;
		if (info->mapping_count == cap) {
			cap = cap ? cap * 2 : 64;
			struct ci_mapping *m = realloc(info->mappings, cap * sizeof *m);
			if (!m) {
				err = ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", path);
				break;
			}
			info->mappings = m;
		}
		struct ci_mapping *m = &info->mappings[info->mapping_count];
		m->start = start;
		m->end = end;
		m->file_offset = off;
		m->path = strdup(p);
		if (!m->path)
			err = ci_error_create(CI_ERR_NOMEM, "out of memory reading %s", path);
		else
			info->mapping_count++;
	}
	free(line);
	fclose(f);
	if (!err)
		ci_source_sort_segments(src);
	return err;
}

static int tid_cmp(const void *a, const void *b)
{
	const struct ci_core_thread *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct ci_error *pid_load_threads(struct ci_source *src)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)src->pid);
	DIR *d = opendir(path);
	if (!d)
		return pid_error(src, errno, "list the threads");
	struct ci_source_info *info = &src->info;
	size_t cap = 0;
	struct dirent *de;
	struct ci_error *err = NULL;
	while (!err && (de = readdir(d)) != NULL) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);
		if (*end || !tid || info->thread_count >= CI_MAX_THREADS)
			continue;
		if (info->thread_count == cap) {
			cap = cap ? cap * 2 : 16;
			struct ci_core_thread *t = realloc(info->threads, cap * sizeof *t);
			if (!t) {
				err = ci_error_create(CI_ERR_NOMEM, "out of memory listing threads");
				break;
			}
			info->threads = t;
		}
		struct ci_core_thread *t = &info->threads[info->thread_count++];
		memset(t, 0, sizeof *t);
		t->tid = (uint32_t)tid;
		char comm[80];
		snprintf(comm, sizeof comm, "/proc/%d/task/%lu/comm", (int)src->pid, tid);
		FILE *f = fopen(comm, "re");
		if (f) {
			if (fgets(t->name, sizeof t->name, f))
				t->name[strcspn(t->name, "\n")] = 0;
			fclose(f);
		}
	}
	closedir(d);
	if (info->threads)
		qsort(info->threads, info->thread_count, sizeof *info->threads, tid_cmp);
	return err;
}

static struct ci_error *pid_load_identity(struct ci_source *src)
{
	char path[64], buf[PID_CMDLINE_MAX];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)src->pid);
	ssize_t n = readlink(path, buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		src->info.executable = strdup(buf);
		if (!src->info.executable)
			return ci_error_create(CI_ERR_NOMEM, "out of memory");
	}
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)src->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] == 0)
					buf[i] = ' ';
			while (n && buf[n - 1] == ' ')
				n--;
			buf[n] = 0;
			src->info.psargs = strdup(buf);
			if (!src->info.psargs)
				return ci_error_create(CI_ERR_NOMEM, "out of memory");
		}
	}
	return NULL;
}

/* Whether process PID can be read at all: a zombie (exited, not reaped) or a dead process has
 * no memory left, and a kernel thread never had any; each gets its own message rather than
 * the "no record" an empty memory map would lead to. */
static struct ci_error *pid_check_state(struct ci_source *src)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)src->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pid_error(src, errno, "read the state");
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return pid_error(src, n < 0 ? errno : ESRCH, "read the state");
	buf[n] = 0;
	/* "PID (COMM) S ...": the command may hold spaces and parentheses, the state follows the
	 * last ')'. */
	const char *close_paren = strrchr(buf, ')');
	char state = close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
	if (state == 'Z')
		return ci_error_create(CI_ERR_IO,
				       "process %d is a zombie: it has exited and its parent has not reaped "
				       "it yet, so its memory is gone. Read its core dump instead (or the "
				       "recorder's .cisnap snapshot)", (int)src->pid);
	if (state == 'X' || state == 'x')
		return ci_error_create(CI_ERR_IO, "process %d has exited; its memory is gone. Read its "
				       "core dump instead (or the recorder's .cisnap snapshot)", (int)src->pid);
	return NULL;
}

static const struct ci_source_process process_reader = {
	.read = ci_source_read_pid,
	.read_quiet = ci_source_read_pid_quiet,
	.release = ci_source_pid_release_all,
};

struct ci_error *ci_source_open_pid(pid_t pid, const struct ci_source_options *opts,
				    struct ci_source **ret)
{
	if (pid <= 0)
		return ci_error_create(CI_ERR_USAGE, "invalid pid %d", (int)pid);
	char name[32];
	snprintf(name, sizeof name, "pid %d", (int)pid);
	struct ci_source *src;
	struct ci_error *err = ci_source_new(CI_SOURCE_PID, name, opts, &src);
	if (err)
		return err;
	src->pid = pid;
	src->info.pid = (uint32_t)pid;
	src->live = true;
	src->process = &process_reader;
#if defined(__x86_64__)
	src->machine = EM_X86_64;
#elif defined(__aarch64__)
	src->machine = EM_AARCH64;
#endif
	err = pid_check_state(src);
	if (!err)
		err = pid_load_maps(src);
	if (!err)
		err = pid_load_threads(src);
	if (!err)
		err = pid_load_identity(src);
	/* The process may have exited since it was looked at: an empty map says so. */
	if (!err && src->seg_count == 0) {
		err = pid_check_state(src);
		if (!err)
			err = ci_error_create(CI_ERR_IO,
					      "process %d has no user memory (it has exited meanwhile, or it is "
					      "a kernel thread)", (int)pid);
	}
	/* Find out now, with a clear message, whether we may read its memory at all. */
	for (size_t i = 0; !err && i < src->seg_count; i++) {
		uint8_t byte;
		if (pid_read_raw(src, src->segs[i].start, &byte, 1) == 1)
			break;
		if (errno == EPERM || errno == EACCES || errno == ESRCH)
			err = pid_error(src, errno, "read the memory");
	}
	if (err) {
		ci_source_close(src);
		return err;
	}
	*ret = src;
	return NULL;
}

size_t ci_source_pid_page_heads(struct ci_source *src, uint64_t addr, uint64_t page_size,
				size_t count, uint64_t *heads)
{
	enum { BATCH = 512 };
	struct iovec local[BATCH], remote[BATCH];
	size_t done = 0;
	while (done < count) {
		size_t n = count - done < BATCH ? count - done : BATCH;
		for (size_t i = 0; i < n; i++) {
			local[i] = (struct iovec){ &heads[done + i], 8 };
			remote[i] = (struct iovec){ (void *)(uintptr_t)(addr + (done + i) * page_size), 8 };
		}
		ssize_t got = src->vm_readv_failed ? -1
						    : process_vm_readv(src->pid, local, n, remote, n, 0);
		if (got < 0) {
			/* One page at a time through the fallback reader. */
			for (size_t i = 0; i < n; i++)
				if (pid_read_raw(src, addr + (done + i) * page_size, &heads[done + i], 8) != 8)
					return done + i;
			done += n;
			continue;
		}
		done += (size_t)got / 8;
		if ((size_t)got < n * 8)
			return done;
	}
	return done;
}

/* ---------------------------------------------------------------------------------------- */
/* Stopping one thread to read its registers                                                 */

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait up to TIMEOUT_MS for seized thread TID to stop.  0 when it did (with *SIG the signal
 * it stopped for, to be delivered at the detach, or 0), else an errno value. */
static int pid_wait_stop(pid_t tid, unsigned timeout_ms, int *sig)
{
	uint64_t deadline = now_ms() + timeout_ms;
	long nap_ns = 20000;
	*sig = 0;
	for (;;) {
		int status;
		pid_t r = waitpid(tid, &status, __WALL | WNOHANG);
		if (r == tid) {
			if (WIFEXITED(status) || WIFSIGNALED(status))
				return ESRCH;
			if (WIFSTOPPED(status)) {
				/* PTRACE_EVENT_STOP: our interrupt, or a group stop; otherwise it
				 * stopped to receive a signal, which the detach delivers. */
				if (status >> 16 != PTRACE_EVENT_STOP)
					*sig = WSTOPSIG(status);
				return 0;
			}
		} else if (r < 0 && errno != EINTR) {
			return errno;
		}
		if (now_ms() >= deadline)
			return ETIMEDOUT;
		struct timespec nap = { 0, nap_ns };
		nanosleep(&nap, NULL);
		if (nap_ns < 1000000)
			nap_ns *= 2;
	}
}

/* Threads seized that had not stopped when we gave up on them: detached as soon as they stop. */
static void pid_retry_pending(struct ci_source *src, unsigned timeout_ms)
{
	size_t kept = 0;
	for (size_t i = 0; i < src->pending_count; i++) {
		int sig;
		int e = pid_wait_stop((pid_t)src->pending[i], timeout_ms, &sig);
		if (e == ETIMEDOUT) {
			src->pending[kept++] = src->pending[i];
			continue;
		}
		if (e == 0)
			ptrace(PTRACE_DETACH, (pid_t)src->pending[i], NULL, (void *)(uintptr_t)sig);
	}
	src->pending_count = kept;
}

int ci_source_pid_stop(struct ci_source *src, uint32_t tid, unsigned timeout_ms, uint64_t *regs,
		       size_t *nregs)
{
	*nregs = 0;
	if (src->info.kind != CI_SOURCE_PID || !tid || src->stopped_tid)
		return EINVAL;
	if (src->pending_count)
		pid_retry_pending(src, 0);
	/* No options: PTRACE_O_EXITKILL would kill the process with the reader. */
	if (ptrace(PTRACE_SEIZE, (pid_t)tid, NULL, NULL) != 0)
		return errno;
	int e = 0, sig = 0;
	if (ptrace(PTRACE_INTERRUPT, (pid_t)tid, NULL, NULL) != 0)
		e = errno;
	else
		e = pid_wait_stop((pid_t)tid, timeout_ms, &sig);
	if (e == ETIMEDOUT) {
		/* It may stop later (leaving uninterruptible sleep): detach it then, or the kernel
		 * does when we exit. */
		if (src->pending_count < sizeof src->pending / sizeof src->pending[0])
			src->pending[src->pending_count++] = tid;
		return e;
	}
	if (e) {
		ptrace(PTRACE_DETACH, (pid_t)tid, NULL, NULL);
		return e;
	}
	src->stopped_tid = tid;
	src->stopped_sig = sig;
	uint64_t raw[CI_PRSTATUS_NREGS] = { 0 };
	struct iovec iov = { raw, sizeof raw };
	if (ptrace(PTRACE_GETREGSET, (pid_t)tid, (void *)(uintptr_t)NT_PRSTATUS, &iov) != 0) {
		e = errno;
		ci_source_pid_resume(src, tid);
		return e;
	}
	memcpy(regs, raw, sizeof raw);
	*nregs = iov.iov_len / sizeof raw[0];
	return 0;
}

void ci_source_pid_resume(struct ci_source *src, uint32_t tid)
{
	if (!tid || src->stopped_tid != tid)
		return;
	ptrace(PTRACE_DETACH, (pid_t)tid, NULL, (void *)(uintptr_t)src->stopped_sig);
	src->stopped_tid = 0;
	src->stopped_sig = 0;
}

void ci_source_pid_release_all(struct ci_source *src)
{
	if (src->stopped_tid)
		ci_source_pid_resume(src, src->stopped_tid);
	/* A last, short wait for threads that would not stop. */
	if (src->pending_count)
		pid_retry_pending(src, 200);
}
