/* SPDX-License-Identifier: MIT */
/*
 * The driver's own evidence, kept in the record: at the first sticky CUDA error the recorder
 * reads the three clocks together into the header (so that kernel-log times, printed on the
 * monotonic, boot-time or wall clock, compare with the record's), then reads the kernel log's
 * NVIDIA lines of this process (kmsgread.c) into CI_SEC_KERNEL_LOG, before the GDB
 * registration and the snapshot, so both have them.  The NVIDIA driver prints its Xid line when
 * it services the fault's interrupt, before the process can see the error at its next
 * synchronisation, so the line is there when the recorder looks.
 *
 * Never from a signal handler: the first sticky error is seen in a wrapper, on the thread that
 * made the call.  Never blocking: O_NONBLOCK, read to the end of what is there, within a time
 * budget.  When the log cannot be read (kernel.dmesg_restrict without CAP_SYSLOG, a container,
 * a path that is not a log) it says so once.  CUDAINSPECT_KMSG names another log (tests hand
 * the simulator's CUDASIM_KERNEL_LOG in kmsg format) or turns this off.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kmsgread.h"
#include "recorder.h"

/* The comm of the thread that created the record (the first CUDA call, normally cuInit): the
 * name an Xid line gives is the RM client creator's, the thread that initialised CUDA. */
static char ci_klog_init_comm[16];
static uint64_t ci_klog_start_boottime_ns;
static bool ci_klog_said;
/* Scratch for one /dev/kmsg record or a file's lines; used once, by the thread that claimed
 * the first sticky error. */
static char ci_klog_buf[CI_KMSG_RECORD_MAX * 2];

static uint64_t ci_klog_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ci_klog_note_start(void)
{
	ci_klog_start_boottime_ns = ci_klog_clock(CLOCK_BOOTTIME);
	int saved = errno;
	char buf[32];
	int fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	size_t l = n > 0 ? (size_t)n : 0;
	while (l && (buf[l - 1] == '\n' || !buf[l - 1]))
		l--;
	if (l > 15)
		l = 15;
	memcpy(ci_klog_init_comm, buf, l);
	ci_klog_init_comm[l] = 0;
	errno = saved;
}

uint64_t ci_klog_start_boottime(void)
{
	return ci_klog_start_boottime_ns;
}

static void ci_klog_keep(void *arg, const char *line, size_t len, enum ci_kmsg_reason why)
{
	(void)arg;
	(void)why;
	struct ci_sec *s = ci_sec(CI_SEC_KERNEL_LOG);
	if (!s->dir)
		return;
	uint64_t head = __atomic_load_n(&s->dir->head, __ATOMIC_RELAXED);
	if (head > s->capacity || len + 1 > s->capacity - head) {
		ci_count_dropped(CI_SEC_KERNEL_LOG);
		return;
	}
	uint8_t *out = s->base + head;
	for (size_t i = 0; i < len; i++)
		out[i] = line[i] ? (uint8_t)line[i] : ' '; /* one line per '\n', no NUL inside */
	out[len] = '\n';
	__atomic_store_n(&s->dir->head, head + len + 1, __ATOMIC_RELEASE);
}

void ci_klog_at_sticky(void)
{
	if (!ci_rec.base)
		return;
	struct ci_header *h = ci_rec.hdr;
	/* One instant on the three clocks: monotonic around the other two. */
	uint64_t m1 = ci_klog_clock(CLOCK_MONOTONIC);
	uint64_t real = ci_klog_clock(CLOCK_REALTIME);
	uint64_t boot = ci_klog_clock(CLOCK_BOOTTIME);
	uint64_t m2 = ci_klog_clock(CLOCK_MONOTONIC);
	__atomic_store_n(&h->sticky_realtime_ns, real, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sticky_boottime_ns, boot, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sticky_monotonic_ns, m1 + (m2 - m1) / 2, __ATOMIC_RELEASE);

	if (ci_cfg.kmsg_off || !ci_sec(CI_SEC_KERNEL_LOG)->dir)
		return;
	int saved = errno;
	struct ci_kmsg_who who;
	memset(&who, 0, sizeof who);
	ci_kmsg_who_self(&who);
	if (ci_klog_init_comm[0] && strcmp(ci_klog_init_comm, who.names[0]))
		memcpy(who.names[1], ci_klog_init_comm, sizeof who.names[1]);
	/* Lines stamped before the record began are not this process's (a second of slack for
	 * the printk clock's drift from CLOCK_MONOTONIC). */
	uint64_t start_us = h->start_monotonic_ns / 1000;
	who.from_us = start_us > 1000000 ? start_us - 1000000 : 0;
	struct ci_sec *dev = ci_sec(CI_SEC_DEVICES);
	uint64_t ndev = dev->dir ? __atomic_load_n(&dev->dir->head, __ATOMIC_ACQUIRE) : 0;
	for (uint64_t i = 0; i < ndev && i < dev->capacity; i++) {
		const struct ci_device *d = ci_entry(CI_SEC_DEVICES, i);
		char id[sizeof d->pci_bus_id + 1];
		memcpy(id, d->pci_bus_id, sizeof d->pci_bus_id);
		id[sizeof d->pci_bus_id] = 0;
		if (__atomic_load_n(&d->seq, __ATOMIC_ACQUIRE) && id[0])
			ci_kmsg_who_add_pci(&who, id);
	}
	who.budget_ns = 200000000ull;
	struct ci_kmsg_stats st;
	const char *path = ci_cfg.kmsg[0] ? ci_cfg.kmsg : NULL;
	int err = ci_kmsg_collect(path, &who, ci_klog_buf, sizeof ci_klog_buf, ci_klog_keep, NULL,
				  &st);
	if (err && !ci_klog_said) {
		ci_klog_said = true;
		static char why[PATH_MAX + 160]; /* static: the calling thread's stack may be small */
		ci_kmsg_explain(path, err, why, sizeof why);
		ci_say("the kernel log cannot be read (%s), so the record has no Xid lines; give "
		       "`cudainspect core --kernel-log FILE` a saved dmesg or journalctl -k instead "
		       "(CUDAINSPECT_KMSG=off stops trying)", why);
	} else if (!err && ci_cfg.verbose) {
		ci_say("kernel log %s: %llu NVIDIA lines of this process kept of %llu records%s",
		       path ? path : CI_KMSG_DEFAULT_PATH, (unsigned long long)st.kept,
		       (unsigned long long)st.records,
		       st.cut_short ? " (stopped early: time or size bound)" : "");
	}
	errno = saved;
}
