/* SPDX-License-Identifier: MIT */
/*
 * Reading the kernel log's NVIDIA lines of one process, without blocking: the recorder does it
 * at the first sticky CUDA error (recorder/klog.c, into the record's CI_SEC_KERNEL_LOG section)
 * and `cudainspect record` after its child died (corefile/cli/record.c, into a file beside the
 * core).  Compiled into both; it depends on nothing but libc and the kernel, allocates nothing
 * (the caller gives the buffer) and is not for signal handlers (it reads the clock and may
 * read megabytes).  docs/RECORDER.md, "Kernel log", says what is kept and why.
 *
 * The log is /dev/kmsg (one record per read(), `prio,seq,usec,flags;text`, continuation lines
 * starting with a space) or, for tests, a regular file of such records, one per line (the
 * simulator's CUDASIM_KERNEL_LOG in kmsg format); lines without the kmsg prefix are taken with
 * no time.  Opened O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC; anything but a character
 * device or a regular file is refused.
 */
#ifndef CI_KMSGREAD_H
#define CI_KMSGREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CI_KMSG_DEFAULT_PATH "/dev/kmsg"
/* A /dev/kmsg record is at most this long (the kernel's CONSOLE_EXT_LOG_MAX); buffers given to
 * ci_kmsg_collect must be at least this big. */
#define CI_KMSG_RECORD_MAX 8192
#define CI_KMSG_PCI_MAX 16

/* Who the lines must belong to (every field optional: 0 or "" = unknown). */
struct ci_kmsg_who {
	uint32_t pid;             /* the process's pid, as it sees itself */
	uint32_t host_pid;        /* its pid in the init namespace, when known (Xid pids are those) */
	char names[2][16];        /* comm names (process, the thread that initialised CUDA) */
	uint64_t from_us;         /* CLOCK_MONOTONIC µs: older stamped lines are not this process's */
	uint32_t pci_count;       /* the devices it used, as Xid lines print them (no function) */
	struct { uint32_t domain; uint8_t bus, device; } pci[CI_KMSG_PCI_MAX];
	uint64_t budget_ns;       /* stop reading after this long (0: 200 ms) */
};

struct ci_kmsg_stats {
	uint64_t records;         /* records (lines) looked at */
	uint64_t nvrm;            /* of those, NVIDIA Xid or GPU lines */
	uint64_t kept;            /* passed to the callback */
	uint64_t other_process;   /* Xid lines of another pid or name */
	uint64_t other_gpu;       /* Xid lines with no owner, on a GPU the process did not use */
	uint64_t too_old;         /* NVIDIA lines stamped before from_us */
	uint64_t lost;            /* /dev/kmsg: records overwritten while reading (EPIPE) */
	uint64_t too_long;        /* file lines longer than the buffer: skipped */
	bool cut_short;           /* the time budget or the read cap ended the reading */
};

/* Why a line is kept (the callback's REASON). */
enum ci_kmsg_reason {
	CI_KMSG_BY_PID = 1,       /* pid= is the process's */
	CI_KMSG_BY_NAME,          /* another pid (a container's process has a host pid), its name */
	CI_KMSG_NO_OWNER,         /* no pid (or '<unknown>') and no other name, on its GPUs */
	CI_KMSG_GPU_LINE,         /* "NVRM: GPU at PCI:…: GPU-<uuid>" of one of its GPUs */
};

/* Fill WHO's identity from this process: pid, host pid (/proc/self/status NSpid), the names of
 * the process and of the calling thread. */
void ci_kmsg_who_self(struct ci_kmsg_who *who);
/* Add a device by its bus id as cuDeviceGetPCIBusId gives it ("0000:3B:00.0"); ignored when
 * unreadable or the table is full. */
void ci_kmsg_who_add_pci(struct ci_kmsg_who *who, const char *bus_id);

/* Read the log at PATH (NULL: /dev/kmsg) from its oldest record to its end, without blocking,
 * and call KEEP(ARG, LINE, LEN, REASON) for each NVIDIA line that belongs to WHO (LINE is the
 * record's first line without its newline, not NUL-terminated).  BUF (LEN >=
 * CI_KMSG_RECORD_MAX bytes) is the caller's scratch space.  Returns 0, or the errno that kept
 * the log from being opened or read (EPERM/EACCES: dmesg_restrict without CAP_SYSLOG; ENOENT;
 * ELOOP: a symbolic link; EINVAL: not a character device or regular file). */
int ci_kmsg_collect(const char *path, const struct ci_kmsg_who *who, char *buf, size_t len,
		    void (*keep)(void *arg, const char *line, size_t len, enum ci_kmsg_reason why),
		    void *arg, struct ci_kmsg_stats *st);

/* One sentence on why the log at PATH could not be read (ERR from ci_kmsg_collect), for the
 * recorder's and the CLI's messages: names dmesg_restrict and CAP_SYSLOG, containers. */
void ci_kmsg_explain(const char *path, int err, char *out, size_t len);

/* CLOCK_MONOTONIC in microseconds. */
uint64_t ci_kmsg_now_us(void);

#endif
