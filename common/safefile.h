/* SPDX-License-Identifier: MIT */
/*
 * Creating and opening files in directories that other users may write to, for everything the
 * recorder (snapshots, the persistent record, the message log) and `cudainspect record` (its
 * record directory, the snapshots it reads back) touch.  Compiled into both; it depends on
 * nothing but libc and the kernel, and everything the recorder calls from its fatal-signal
 * handler (ci_sf_create, ci_sf_publish, ci_sf_discard, ci_sf_open_append, ci_sf_restricted) is
 * async-signal-safe: system calls, stack buffers of a few hundred bytes, no malloc, no stdio,
 * no locks.  docs/SECURITY.md states what this protects against.
 *
 * A new file is created exclusively (O_EXCL, or unnamed with O_TMPFILE), never through a link
 * (O_NOFOLLOW; the directory is opened once with O_DIRECTORY | O_NOFOLLOW and used through
 * *at() calls), without blocking (O_NONBLOCK: a FIFO at a name cannot stall the caller), mode
 * 0600 whatever the umask (fchmod after creation).  It gets its final name only when complete,
 * by linkat() of the unnamed file or renameat2(RENAME_NOREPLACE) of a temporary one with a
 * random name, so a planted file, link or FIFO at the final name is never written, followed or
 * replaced: the name then gets a random tag ("-" and 16 hex digits) before its tail, and however
 * many names are planted, a free one is found.
 */
#ifndef CI_SAFEFILE_H
#define CI_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Longest final name: stem + "-" + 16 hex digits + tail, with its NUL. */
#define CI_SF_NAME_MAX 224
/* Attempts at a free final (or temporary) name before giving up: the first without a tag, the
 * others with a fresh random one each (a planted name cannot be guessed, so one is plenty). */
#define CI_SF_ATTEMPTS 8

enum ci_sf_how {
	CI_SF_TMPFILE = 1, /* unnamed (O_TMPFILE) until published with linkat */
	CI_SF_TMPNAME = 2, /* a random hidden name, renamed without replacing */
	CI_SF_INPLACE = 3, /* created at its final name (sandboxed: no linkat/renameat2) */
};

/* A file being created in a directory.  The directory descriptor is the caller's. */
struct ci_sf {
	int dirfd;
	int fd;                      /* read-write, close-on-exec; -1 when none */
	int how;                     /* enum ci_sf_how */
	char tmp[40];                /* the temporary name (CI_SF_TMPNAME) */
	char name[CI_SF_NAME_MAX];   /* the final name, once published (at once for INPLACE) */
};

/* Open directory PATH for ci_sf_create: O_PATH | O_DIRECTORY | O_NOFOLLOW, so a symbolic link
 * as its last component is refused (ENOTDIR or ELOOP); links earlier in the path are followed
 * as the user wrote them.  Returns the descriptor or -1 with errno. */
int ci_sf_open_dir(const char *path);

/* Create a new, empty, private file in DIRFD that will be named STEM + TAIL (for instance
 * "cudainspect-host-42-20250101T000000.000000Z" + "-signal.cisnap").  In a sandbox
 * (ci_sf_restricted) it is created at that final name at once (or at a tagged one).  Returns
 * false with errno when no file could be made.  The file's descriptor is F->fd. */
bool ci_sf_create(struct ci_sf *f, int dirfd, const char *stem, const char *tail);
/* Give the complete file its final name (F->name): STEM + TAIL, or STEM-TAG + TAIL when that
 * is taken; never replaces anything.  F->fd stays open (the caller closes it).  On failure the
 * file is discarded and errno says why. */
bool ci_sf_publish(struct ci_sf *f, const char *stem, const char *tail);
/* Remove a file that was not completed (unnamed, temporary or in place) and close it. */
void ci_sf_discard(struct ci_sf *f);

/* Open PATH for appending messages: created 0600 if missing; an existing one must be a regular
 * file of ours with one link.  Never follows a last-component link, never blocks, never opens
 * a device.  Returns the descriptor or -1. */
int ci_sf_open_append(const char *path);
/* Open NAME in DIRFD for reading only if it is a regular file owned by the effective user with
 * exactly one link (not a link planted to one of our files); *ST gets its status.  Never
 * follows a link, never blocks on a FIFO, never opens a device.  Returns the descriptor or -1
 * with errno (EPERM for a file that is not acceptable). */
int ci_sf_open_owned(int dirfd, const char *name, struct stat *st);

/* Create directory PATH and any missing parents, each mode 0700 whatever the umask (it sets
 * the umask for the moment: not for use inside other programs, only in `cudainspect record`).
 * The last component must not be a symbolic link.  Returns a descriptor of it (O_RDONLY |
 * O_DIRECTORY) or -1 with errno; *CREATED says whether it was made now. */
int ci_sf_make_dir(const char *path, bool *created);

/* Whether this thread runs under a seccomp filter (or that cannot be told): then the recorder
 * makes none of the system calls it could do without (memfd_create, getrandom, linkat,
 * renameat2, fallocate, madvise, prctl), because a filter may kill or trap on any of them.
 * Filters are never removed, so a positive answer is kept; a negative one is checked again
 * each time (a filter may be installed later, on any thread).  Reads /proc/thread-self/status. */
bool ci_sf_restricted(void);

/* The stem shared by a process's record files: "cudainspect-HOST-PID-START", with HOST reduced
 * to [A-Za-z0-9._] (anything else becomes '_', at most 64 bytes) and START the record's
 * CLOCK_REALTIME start in UTC to the microsecond ("20250101T093012.123456Z"), so two processes
 * with one pid (containers, pid reuse) get different names. */
void ci_sf_record_stem(char *out, size_t len, const char *host, uint32_t pid,
		       uint64_t start_realtime_ns);

/* The kernel's boot id (/proc/sys/kernel/random/boot_id, a random UUID per boot) as 16 bytes;
 * zeros when it cannot be read.  Records carry it (ci_header.boot_id) so that a reader can tell
 * a process of this boot from one of an earlier boot with the same pid and a close start. */
void ci_sf_boot_id(uint8_t out[16]);

/* N random bytes: getrandom() when allowed, else SipHash-2-4 keyed by the kernel's AT_RANDOM
 * over a counter and the clock (unpredictable to other users, who cannot read our auxv). */
void ci_sf_random(void *out, size_t n, bool restricted);

#endif
