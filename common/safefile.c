/* SPDX-License-Identifier: MIT */
/*
 * Safe creation and opening of the files the recorder and `cudainspect record` write and read
 * back (safefile.h says what each function guarantees; docs/SECURITY.md why).  Everything here
 * is a system call or plain computation on the caller's or a small stack buffer, so that the
 * recorder can use it from a fatal-signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif
#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 1
#endif

#define CI_SF_NEW (O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* ---------------------------------------------------------------------------------------- */
/* Bounded string building (no stdio: async-signal-safe)                                      */

struct ci_sf_out {
	char *p;
	size_t len; /* capacity including the NUL */
	size_t n;
	bool ok;
};

static void ci_sf_put(struct ci_sf_out *o, const char *s)
{
	for (; *s; s++) {
		if (o->n + 1 >= o->len) {
			o->ok = false;
			break;
		}
		o->p[o->n++] = *s;
	}
	o->p[o->n] = 0;
}

/* V in decimal, at least WIDTH digits. */
static void ci_sf_put_uint(struct ci_sf_out *o, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) || n < width);
	char s[24];
	for (int i = 0; i < n; i++)
		s[i] = tmp[n - 1 - i];
	s[n] = 0;
	ci_sf_put(o, s);
}

static void ci_sf_put_hex(struct ci_sf_out *o, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char s[2 * 16 + 1];
	size_t k = 0;
	for (size_t i = 0; i < n && i < 16; i++) {
		s[k++] = digits[b[i] >> 4];
		s[k++] = digits[b[i] & 15];
	}
	s[k] = 0;
	ci_sf_put(o, s);
}

/* "/proc/self/fd/FD" */
static void ci_sf_proc_fd(char *out, size_t len, int fd)
{
	struct ci_sf_out o = { out, len, 0, true };
	out[0] = 0;
	ci_sf_put(&o, "/proc/self/fd/");
	ci_sf_put_uint(&o, (uint64_t)fd, 1);
}

/* ---------------------------------------------------------------------------------------- */
/* Random bytes                                                                               */

static uint64_t ci_sf_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

/* SipHash-2-4 of the 16-byte message (M0, M1) under key (K0, K1): a PRF, so names derived from
 * it reveal nothing of the key (the kernel's AT_RANDOM) to whoever lists the directory. */
static uint64_t ci_sf_siphash(uint64_t k0, uint64_t k1, uint64_t m0, uint64_t m1)
{
	uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
#define CI_SIPROUND                                                                            \
	do {                                                                                   \
		v0 += v1; v1 = ci_sf_rotl(v1, 13); v1 ^= v0; v0 = ci_sf_rotl(v0, 32);          \
		v2 += v3; v3 = ci_sf_rotl(v3, 16); v3 ^= v2;                                   \
		v0 += v3; v3 = ci_sf_rotl(v3, 21); v3 ^= v0;                                   \
		v2 += v1; v1 = ci_sf_rotl(v1, 17); v1 ^= v2; v2 = ci_sf_rotl(v2, 32);          \
	} while (0)
	const uint64_t m[3] = { m0, m1, 16ull << 56 };
	for (int i = 0; i < 3; i++) {
		v3 ^= m[i];
		CI_SIPROUND;
		CI_SIPROUND;
		v0 ^= m[i];
	}
	v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		CI_SIPROUND;
#undef CI_SIPROUND
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t ci_sf_counter; /* atomic */

void ci_sf_random(void *out, size_t n, bool restricted)
{
	uint8_t *p = out;
	size_t got = 0;
	int saved = errno;
	while (!restricted && got < n) {
		long r = syscall(SYS_getrandom, p + got, n - got, GRND_NONBLOCK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* ENOSYS, EAGAIN before the pool is ready, a filter's EPERM */
		got += (size_t)r;
	}
	errno = saved;
	if (got == n)
		return;
	uint64_t k[2] = { 0, 0 };
	const void *at_random = (const void *)getauxval(AT_RANDOM);
	if (at_random)
		memcpy(k, at_random, sizeof k);
	else
		k[0] = (uint64_t)(uintptr_t)&k; /* no auxv entry: only the address layout is secret */
	while (got < n) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t c = __atomic_fetch_add(&ci_sf_counter, 1, __ATOMIC_RELAXED);
		uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		uint64_t h = ci_sf_siphash(k[0], k[1], c, t ^ ((uint64_t)getpid() << 40));
		size_t take = n - got < 8 ? n - got : 8;
		memcpy(p + got, &h, take);
		got += take;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Sandbox detection                                                                          */

static int ci_sf_filtered; /* atomic: a seccomp filter (or no way to tell) was seen */

/* The number after "Seccomp:" in a /proc status file, read in small pieces; -1 if absent. */
static int ci_sf_status_seccomp(int fd)
{
	static const char key[] = "\nSeccomp:";
	char buf[256];
	size_t k = 0;
	bool after = false;
	int mode = -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return mode;
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			if (!after) {
				if (c == key[k]) {
					if (!key[++k])
						after = true;
				} else {
					k = c == '\n';
				}
			} else if (c >= '0' && c <= '9') {
				mode = (mode < 0 ? 0 : mode * 10) + (c - '0');
			} else if (mode >= 0 || (c != ' ' && c != '\t')) {
				return mode;
			}
		}
	}
}

bool ci_sf_restricted(void)
{
	if (__atomic_load_n(&ci_sf_filtered, __ATOMIC_RELAXED))
		return true;
	int saved = errno;
	/* The calling thread's own status: a filter may be on one thread only. */
	int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	int mode = -1;
	if (fd >= 0) {
		mode = ci_sf_status_seccomp(fd);
		close(fd);
	}
	errno = saved;
	if (mode == 0)
		return false;
	__atomic_store_n(&ci_sf_filtered, 1, __ATOMIC_RELAXED);
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Names                                                                                      */

/* Days since 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm). */
static void ci_sf_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	unsigned doe = (unsigned)(days - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

void ci_sf_record_stem(char *out, size_t len, const char *host, uint32_t pid,
		       uint64_t start_realtime_ns)
{
	struct ci_sf_out o = { out, len, 0, true };
	out[0] = 0;
	ci_sf_put(&o, "cudainspect-");
	/* A host name is set by whoever runs the container: keep it to one harmless component. */
	char h[65];
	size_t n = 0;
	for (; host && host[n] && n < sizeof h - 1; n++) {
		char c = host[n];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '.' || c == '_';
		h[n] = plain ? c : '_';
	}
	h[n] = 0;
	ci_sf_put(&o, n ? h : "unknown");
	ci_sf_put(&o, "-");
	ci_sf_put_uint(&o, pid, 1);
	ci_sf_put(&o, "-");
	uint64_t s = start_realtime_ns / 1000000000ull;
	int64_t y;
	unsigned mo, d;
	ci_sf_civil((int64_t)(s / 86400), &y, &mo, &d);
	ci_sf_put_uint(&o, (uint64_t)y, 4);
	ci_sf_put_uint(&o, mo, 2);
	ci_sf_put_uint(&o, d, 2);
	ci_sf_put(&o, "T");
	ci_sf_put_uint(&o, s % 86400 / 3600, 2);
	ci_sf_put_uint(&o, s % 3600 / 60, 2);
	ci_sf_put_uint(&o, s % 60, 2);
	ci_sf_put(&o, ".");
	ci_sf_put_uint(&o, start_realtime_ns % 1000000000ull / 1000, 6);
	ci_sf_put(&o, "Z");
}

void ci_sf_boot_id(uint8_t out[16])
{
	char buf[64];
	uint8_t id[16];
	int digits = 0, saved = errno;
	memset(out, 0, 16);
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	errno = saved;
	for (ssize_t i = 0; i < n && digits < 32; i++) {
		char c = buf[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0 && c == '-')
			continue;
		if (v < 0)
			break;
		id[digits / 2] = (uint8_t)(digits % 2 ? id[digits / 2] << 4 | v : v);
		digits++;
	}
	if (digits == 32)
		memcpy(out, id, 16);
}

/* The final name for ATTEMPT: STEM + TAIL first, then STEM-TAG + TAIL with a fresh random
 * tag.  False if it does not fit or would not be a single path component. */
static bool ci_sf_final_name(char *out, const char *stem, const char *tail, int attempt,
			     bool restricted)
{
	if (strchr(stem, '/') || strchr(tail, '/') || !*stem)
		return false;
	struct ci_sf_out o = { out, CI_SF_NAME_MAX, 0, true };
	out[0] = 0;
	ci_sf_put(&o, stem);
	if (attempt) {
		uint8_t tag[8];
		ci_sf_random(tag, sizeof tag, restricted);
		ci_sf_put(&o, "-");
		ci_sf_put_hex(&o, tag, sizeof tag);
	}
	ci_sf_put(&o, tail);
	return o.ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Creating and publishing                                                                    */

int ci_sf_open_dir(const char *path)
{
	return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static void ci_sf_init(struct ci_sf *f, int dirfd)
{
	f->dirfd = dirfd;
	f->fd = -1;
	f->how = 0;
	f->tmp[0] = 0;
	f->name[0] = 0;
}

/* Mode 0600 whatever the umask: a umask of 0777 would otherwise leave a file nobody can read
 * back, and the file's creator can always change it through its descriptor. */
static void ci_sf_private(int fd)
{
	int saved = errno;
	if (fchmod(fd, 0600) != 0)
		errno = saved;
}

/* A new file under a free name: IN_PLACE, the final name STEM + TAIL, then tagged ones; else a
 * hidden random temporary name.  A taken name is never reused (planted ones stay planted), so
 * each try takes a fresh one, CI_SF_ATTEMPTS at most. */
static bool ci_sf_create_named(struct ci_sf *f, const char *stem, const char *tail, bool in_place)
{
	char *name = in_place ? f->name : f->tmp;
	for (int i = 0; i < CI_SF_ATTEMPTS; i++) {
		if (in_place) {
			if (!ci_sf_final_name(f->name, stem, tail, i, true)) {
				errno = ENAMETOOLONG;
				break;
			}
		} else {
			uint8_t r[8];
			ci_sf_random(r, sizeof r, false);
			struct ci_sf_out o = { f->tmp, sizeof f->tmp, 0, true };
			ci_sf_put(&o, ".cudainspect-");
			ci_sf_put_hex(&o, r, sizeof r);
			ci_sf_put(&o, ".tmp");
		}
		f->fd = openat(f->dirfd, name, O_RDWR | CI_SF_NEW, 0600);
		if (f->fd >= 0) {
			f->how = in_place ? CI_SF_INPLACE : CI_SF_TMPNAME;
			ci_sf_private(f->fd);
			return true;
		}
		if (errno != EEXIST)
			break;
	}
	int err = errno;
	name[0] = 0;
	errno = err;
	return false;
}

bool ci_sf_create(struct ci_sf *f, int dirfd, const char *stem, const char *tail)
{
	ci_sf_init(f, dirfd);
	bool restricted = ci_sf_restricted();
	if (restricted) {
		/* No linkat or renameat2 (a filter may kill on them): exclusive creation at the
		 * final name; the file is complete when its writer says so (for a record, when the
		 * magic at offset 0 is written, last). */
		return ci_sf_create_named(f, stem, tail, true);
	}
	/* Unnamed until complete, if /proc/self/fd leads to it: that is how linkat names it
	 * without privileges. */
	f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f->fd >= 0) {
		char proc[40];
		struct stat a, b;
		ci_sf_proc_fd(proc, sizeof proc, f->fd);
		if (fstat(f->fd, &a) == 0 && stat(proc, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			f->how = CI_SF_TMPFILE;
			ci_sf_private(f->fd);
			return true;
		}
		close(f->fd);
		f->fd = -1;
	}
	/* File systems without O_TMPFILE: a random hidden name. */
	return ci_sf_create_named(f, stem, tail, false);
}

/* Link the unnamed file F at NAME: directly with the capability to, else through /proc. */
static int ci_sf_link_tmpfile(struct ci_sf *f, const char *name)
{
	if (linkat(f->fd, "", f->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -1;
	char proc[40];
	ci_sf_proc_fd(proc, sizeof proc, f->fd);
	return linkat(AT_FDCWD, proc, f->dirfd, name, AT_SYMLINK_FOLLOW);
}

bool ci_sf_publish(struct ci_sf *f, const char *stem, const char *tail)
{
	if (f->fd < 0) {
		errno = EBADF;
		return false;
	}
	if (f->how == CI_SF_INPLACE)
		return true;
	char name[CI_SF_NAME_MAX];
	int err = EEXIST;
	for (int i = 0; i < CI_SF_ATTEMPTS && err == EEXIST; i++) {
		if (!ci_sf_final_name(name, stem, tail, i, false)) {
			err = ENAMETOOLONG;
			break;
		}
		int r;
		if (f->how == CI_SF_TMPFILE) {
			r = ci_sf_link_tmpfile(f, name);
		} else {
			r = (int)syscall(SYS_renameat2, f->dirfd, f->tmp, f->dirfd, name,
					 RENAME_NOREPLACE);
			if (r != 0 && errno != EEXIST) {
				/* No RENAME_NOREPLACE here (old kernel, some network and FUSE file
				 * systems): a hard link never replaces either. */
				r = linkat(f->dirfd, f->tmp, f->dirfd, name, 0);
				if (r == 0) {
					unlinkat(f->dirfd, f->tmp, 0);
				} else if (errno != EEXIST) {
					/* No hard links either: the file keeps its hidden name. */
					memcpy(f->name, f->tmp, sizeof f->tmp);
					f->tmp[0] = 0;
					f->how = CI_SF_INPLACE;
					return true;
				}
			}
			if (r == 0)
				f->tmp[0] = 0;
		}
		if (r == 0) {
			memcpy(f->name, name, sizeof name);
			f->how = CI_SF_INPLACE; /* named now: discarding it removes that name */
			return true;
		}
		err = errno;
	}
	ci_sf_discard(f);
	errno = err;
	return false;
}

void ci_sf_discard(struct ci_sf *f)
{
	int saved = errno;
	if (f->how == CI_SF_TMPNAME && f->tmp[0])
		unlinkat(f->dirfd, f->tmp, 0);
	else if (f->how == CI_SF_INPLACE && f->name[0])
		unlinkat(f->dirfd, f->name, 0);
	if (f->fd >= 0)
		close(f->fd);
	ci_sf_init(f, f->dirfd);
	errno = saved;
}

/* ---------------------------------------------------------------------------------------- */
/* Opening existing files                                                                     */

/* NAME in DIRFD, reopened with FLAGS only if it is a regular file of ours with one link.  The
 * check is made on a descriptor that opens nothing (O_PATH), and the reopening goes through
 * that descriptor when /proc allows, so what is opened is what was checked. */
static int ci_sf_open_checked(int dirfd, const char *name, int flags, struct stat *st)
{
	int p = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -1;
	struct stat a;
	if (fstat(p, &a) != 0 || !S_ISREG(a.st_mode) || a.st_uid != geteuid() || a.st_nlink != 1) {
		close(p);
		errno = EPERM;
		return -1;
	}
	char proc[40];
	ci_sf_proc_fd(proc, sizeof proc, p);
	flags |= O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd = open(proc, flags & ~O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		fd = openat(dirfd, name, flags);
	close(p);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || st->st_dev != a.st_dev || st->st_ino != a.st_ino ||
	    !S_ISREG(st->st_mode) || st->st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int ci_sf_open_owned(int dirfd, const char *name, struct stat *st)
{
	return ci_sf_open_checked(dirfd, name, O_RDONLY, st);
}

int ci_sf_open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | CI_SF_NEW, 0600);
	if (fd >= 0) {
		ci_sf_private(fd);
		return fd;
	}
	if (errno != EEXIST)
		return -1;
	struct stat st;
	return ci_sf_open_checked(AT_FDCWD, path, O_WRONLY | O_APPEND, &st);
}

/* ---------------------------------------------------------------------------------------- */
/* Directories                                                                                */

int ci_sf_make_dir(const char *path, bool *created)
{
	char buf[4096];
	size_t len = strlen(path);
	*created = false;
	if (!len || len >= sizeof buf) {
		errno = len ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = 0;
	int cur = open(buf[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -1;
	/* Created directories are 0700 exactly: mkdirat's mode is masked by the umask, so the
	 * umask is 077 while they are made. */
	mode_t old_umask = umask(077);
	char *p = buf;
	int err = 0;
	bool any = false;
	while (*p && !err) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *comp = p;
		char *end = strchr(p, '/');
		if (end)
			*end = 0;
		p = end ? end + 1 : comp + strlen(comp);
		while (*p == '/')
			p++;
		bool last = !*p;
		any = true;
		bool made = mkdirat(cur, comp, 0700) == 0;
		if (!made && errno != EEXIST) {
			err = errno;
			break;
		}
		int next = last ? openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				: openat(cur, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0) {
			struct stat st;
			err = errno;
			if (last && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				err = ELOOP;
		} else if (last) {
			*created = made;
		}
		close(cur);
		cur = next;
	}
	umask(old_umask);
	if (!err && !any) { /* "/" */
		close(cur);
		cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cur < 0)
			err = errno;
	}
	if (err) {
		if (cur >= 0)
			close(cur);
		errno = err;
		return -1;
	}
	return cur;
}
