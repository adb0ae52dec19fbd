/* SPDX-License-Identifier: MIT */
/*
 * The kernel log's NVIDIA lines of one process (kmsgread.h).  The grammar of the lines is the
 * reader's (docs/KERNEL-LOG.md); this side only needs the prefix: the PCI id, the pid and the
 * name, to keep the lines that can be this process's and leave the host's other processes'
 * out of the record.  Everything else (times against the record's clocks, companions, boots)
 * is the reader's selection, which sees the kept lines as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kmsgread.h"

/* More than any ring buffer holds (the largest is 32 MiB): a regular file is read this far. */
#define CI_KMSG_FILE_MAX (256ull << 20)
#define CI_KMSG_RECORDS_MAX 4000000ull

uint64_t ci_kmsg_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* ---------------------------------------------------------------------------------------- */
/* Who                                                                                        */

static size_t ci_read_small(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	ssize_t n;
	do
		n = read(fd, out, len - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		n = 0;
	out[n] = 0;
	return (size_t)n;
}

static void ci_comm(const char *path, char out[16])
{
	char buf[64];
	size_t n = ci_read_small(path, buf, sizeof buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		n--;
	if (n > 15)
		n = 15;
	memcpy(out, buf, n);
	out[n] = 0;
}

void ci_kmsg_who_self(struct ci_kmsg_who *who)
{
	int saved = errno;
	who->pid = (uint32_t)getpid();
	who->host_pid = 0;
	/* NSpid lists the pid in each namespace from the one /proc was mounted in down to the
	 * process's own: the first is the host's only when /proc is the host's. */
	char status[4096];
	if (ci_read_small("/proc/self/status", status, sizeof status)) {
		const char *p = strstr(status, "\nNSpid:");
		if (p) {
			p += 7;
			while (*p == ' ' || *p == '\t')
				p++;
			uint64_t v = 0;
			while (*p >= '0' && *p <= '9' && v < UINT32_MAX)
				v = v * 10 + (uint64_t)(*p++ - '0');
			if (v && v < UINT32_MAX && v != who->pid)
				who->host_pid = (uint32_t)v;
		}
	}
	ci_comm("/proc/self/comm", who->names[0]);
	ci_comm("/proc/thread-self/comm", who->names[1]);
	if (!strcmp(who->names[0], who->names[1]))
		who->names[1][0] = 0;
	errno = saved;
}

static int ci_hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				    : -1;
}

/* "dddd:bb:dd" (the domain 1 to 8 hex digits), then '.', ')', ':' or the end; *END after it. */
static bool ci_pci_parse(const char *s, const char *lim, uint32_t *domain, uint8_t *bus,
			 uint8_t *device, const char **end)
{
	uint32_t part[3] = { 0, 0, 0 };
	int maxd[3] = { 8, 2, 2 };
	for (int i = 0; i < 3; i++) {
		int d = 0, v;
		while (s < lim && (v = ci_hexval(*s)) >= 0 && d < maxd[i]) {
			part[i] = part[i] << 4 | (uint32_t)v;
			s++;
			d++;
		}
		if (!d || (i < 2 && (s >= lim || *s != ':')))
			return false;
		if (i < 2)
			s++;
	}
	*domain = part[0];
	*bus = (uint8_t)part[1];
	*device = (uint8_t)part[2];
	*end = s;
	return true;
}

void ci_kmsg_who_add_pci(struct ci_kmsg_who *who, const char *bus_id)
{
	uint32_t domain;
	uint8_t bus, device;
	const char *end;
	if (!bus_id || who->pci_count >= CI_KMSG_PCI_MAX ||
	    !ci_pci_parse(bus_id, bus_id + strnlen(bus_id, 64), &domain, &bus, &device, &end))
		return;
	for (uint32_t i = 0; i < who->pci_count; i++)
		if (who->pci[i].domain == domain && who->pci[i].bus == bus &&
		    who->pci[i].device == device)
			return;
	who->pci[who->pci_count].domain = domain;
	who->pci[who->pci_count].bus = bus;
	who->pci[who->pci_count].device = device;
	who->pci_count++;
}

/* ---------------------------------------------------------------------------------------- */
/* One line                                                                                   */

static const char *ci_find(const char *s, const char *lim, const char *what)
{
	size_t n = strlen(what);
	if ((size_t)(lim - s) < n)
		return NULL;
	return memmem(s, (size_t)(lim - s), what, n);
}

/* The kmsg prefix "prio,seq,usec,flags[,more];": the text after it and the time. */
static bool ci_kmsg_prefix(const char *s, const char *lim, const char **text, uint64_t *us)
{
	const char *p = s;
	uint64_t v[3] = { 0, 0, 0 };
	for (int i = 0; i < 3; i++) {
		const char *start = p;
		while (p < lim && *p >= '0' && *p <= '9' && p - start < 20)
			v[i] = v[i] * 10 + (uint64_t)(*p++ - '0');
		if (p == start || p >= lim || *p != ',')
			return false;
		p++;
	}
	const char *semi = memchr(p, ';', (size_t)(lim - p) < 128 ? (size_t)(lim - p) : 128);
	if (!semi)
		return false;
	for (const char *q = p; q < semi; q++)
		if (*q == ' ')
			return false;
	*text = semi + 1;
	*us = v[2];
	return true;
}

static bool ci_gpu_ours(const struct ci_kmsg_who *who, uint32_t domain, uint8_t bus, uint8_t dev)
{
	if (!who->pci_count)
		return true; /* the devices are not known: the GPU says nothing */
	for (uint32_t i = 0; i < who->pci_count; i++)
		if (who->pci[i].domain == domain && who->pci[i].bus == bus && who->pci[i].device == dev)
			return true;
	return false;
}

static bool ci_name_ours(const struct ci_kmsg_who *who, const char *name, size_t n)
{
	if (n > 15)
		n = 15;
	for (int i = 0; i < 2; i++)
		if (who->names[i][0] && strlen(who->names[i]) == n && !memcmp(who->names[i], name, n))
			return true;
	return false;
}

/* 0 when the line is not kept, else the reason; counts in ST. */
static enum ci_kmsg_reason ci_judge(const struct ci_kmsg_who *who, const char *line, size_t len,
				    struct ci_kmsg_stats *st)
{
	const char *lim = line + len, *text = line;
	uint64_t us = 0;
	bool timed = ci_kmsg_prefix(line, lim, &text, &us);
	const char *p = ci_find(text, lim, "NVRM: Xid (");
	bool gpu_line = false;
	if (p)
		p += 11;
	else if ((p = ci_find(text, lim, "NVRM: GPU at ")))
		p += 13, gpu_line = true;
	else
		return 0;
	st->nvrm++;
	if (timed && who->from_us && us < who->from_us) {
		st->too_old++;
		return 0;
	}
	if (lim - p >= 4 && !memcmp(p, "PCI:", 4))
		p += 4;
	uint32_t domain;
	uint8_t bus, dev;
	const char *end;
	bool pci = ci_pci_parse(p, lim, &domain, &bus, &dev, &end);
	if (gpu_line) {
		if (!pci || !ci_find(end, lim, "GPU-") || !ci_gpu_ours(who, domain, bus, dev))
			return 0;
		return CI_KMSG_GPU_LINE;
	}
	/* "): N, " after the id (and any MIG instance ids). */
	const char *close = pci ? ci_find(end, lim - end > 40 ? end + 40 : lim, "): ") : NULL;
	if (!close)
		return 0; /* not an Xid line the reader would take either */
	p = close + 3;
	while (p < lim && *p >= '0' && *p <= '9')
		p++;
	if (lim - p >= 2 && p[0] == ',' && p[1] == ' ')
		p += 2;
	bool has_pid = false;
	uint64_t pid = 0;
	if (lim - p >= 4 && !memcmp(p, "pid=", 4)) {
		p += 4;
		const char *d = p;
		while (p < lim && *p >= '0' && *p <= '9' && pid < UINT32_MAX)
			pid = pid * 10 + (uint64_t)(*p++ - '0');
		has_pid = p > d;
		while (p < lim && *p != ',')
			p++; /* '<unknown>' */
		if (lim - p >= 2 && p[0] == ',' && p[1] == ' ')
			p += 2;
	}
	const char *name = NULL;
	size_t name_len = 0;
	if (lim - p >= 5 && !memcmp(p, "name=", 5)) {
		name = p + 5;
		const char *e = ci_find(name, lim - name > 64 ? name + 64 : lim, ", ");
		name_len = (size_t)((e ? e : lim) - name);
		if (name_len == 9 && !memcmp(name, "<unknown>", 9))
			name = NULL;
	}
	if (has_pid && (pid == who->pid || (who->host_pid && pid == who->host_pid)))
		return CI_KMSG_BY_PID;
	if (name && ci_name_ours(who, name, name_len))
		return CI_KMSG_BY_NAME;
	if (has_pid || name) {
		st->other_process++;
		return 0;
	}
	if (!ci_gpu_ours(who, domain, bus, dev)) {
		st->other_gpu++;
		return 0;
	}
	return CI_KMSG_NO_OWNER;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading                                                                                    */

int ci_kmsg_collect(const char *path, const struct ci_kmsg_who *who, char *buf, size_t len,
		    void (*keep)(void *arg, const char *line, size_t len, enum ci_kmsg_reason why),
		    void *arg, struct ci_kmsg_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!path)
		path = CI_KMSG_DEFAULT_PATH;
	if (len < CI_KMSG_RECORD_MAX)
		return EINVAL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno;
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !(S_ISCHR(sb.st_mode) || S_ISREG(sb.st_mode))) {
		close(fd);
		return EINVAL;
	}
	bool device = S_ISCHR(sb.st_mode);
	uint64_t deadline = ci_kmsg_now_us() + (who->budget_ns ? who->budget_ns / 1000 : 200000);
	uint64_t total = 0;
	size_t have = 0; /* file: bytes of an unfinished line at the start of BUF */
	bool skipping = false; /* file: inside a line longer than BUF */
	int err = 0;
	for (;;) {
		if ((st->records & 255) == 255 && ci_kmsg_now_us() > deadline) {
			st->cut_short = true;
			break;
		}
		if (st->records >= CI_KMSG_RECORDS_MAX || total >= CI_KMSG_FILE_MAX) {
			st->cut_short = true;
			break;
		}
		ssize_t n = read(fd, buf + have, len - have);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) { /* overwritten while we read: the next one follows */
				st->lost++;
				continue;
			}
			if (errno != EAGAIN)
				err = errno;
			break;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (device) {
			/* One record: its first line is the message, then " KEY=value" lines. */
			const char *nl = memchr(buf, '\n', (size_t)n);
			size_t l = nl ? (size_t)(nl - buf) : (size_t)n;
			st->records++;
			enum ci_kmsg_reason why = ci_judge(who, buf, l, st);
			if (why) {
				st->kept++;
				keep(arg, buf, l, why);
			}
			continue;
		}
		size_t end = have + (size_t)n, start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', end - start);
			if (!nl)
				break;
			size_t l = (size_t)(nl - (buf + start));
			if (!skipping && l && buf[start] != ' ') {
				st->records++;
				enum ci_kmsg_reason why = ci_judge(who, buf + start, l, st);
				if (why) {
					st->kept++;
					keep(arg, buf + start, l, why);
				}
			}
			skipping = false;
			start += l + 1;
		}
		have = end - start;
		if (have == len) { /* a line longer than the buffer: skip to its end */
			if (!skipping)
				st->too_long++;
			skipping = true;
			have = 0;
		} else if (start) {
			memmove(buf, buf + start, have);
		}
	}
	/* A last line without its newline (a file being written). */
	if (!device && have && !skipping && buf[0] != ' ') {
		st->records++;
		enum ci_kmsg_reason why = ci_judge(who, buf, have, st);
		if (why) {
			st->kept++;
			keep(arg, buf, have, why);
		}
	}
	close(fd);
	return err;
}

void ci_kmsg_explain(const char *path, int err, char *out, size_t len)
{
	if (!path)
		path = CI_KMSG_DEFAULT_PATH;
	bool dev = !strcmp(path, CI_KMSG_DEFAULT_PATH);
	char restrict_v[8] = "";
	if (dev && (err == EPERM || err == EACCES)) {
		ci_read_small("/proc/sys/kernel/dmesg_restrict", restrict_v, sizeof restrict_v);
		restrict_v[strcspn(restrict_v, "\n")] = 0;
	}
	if (dev && (err == EPERM || err == EACCES) && !strcmp(restrict_v, "1"))
		snprintf(out, len, "%s: %s (kernel.dmesg_restrict is 1: reading the kernel log needs "
			 "CAP_SYSLOG)", path, strerror(err));
	else if (dev && (err == EPERM || err == EACCES))
		snprintf(out, len, "%s: %s (no permission to read the kernel log: a container, or "
			 "a security policy)", path, strerror(err));
	else if (dev && err == ENOENT)
		snprintf(out, len, "%s does not exist (a container without the host's kernel log?)",
			 path);
	else if (err == ELOOP)
		snprintf(out, len, "%s is a symbolic link, which is not followed", path);
	else if (err == EINVAL)
		snprintf(out, len, "%s is not a character device or a regular file", path);
	else
		snprintf(out, len, "%s: %s", path, strerror(err));
}
