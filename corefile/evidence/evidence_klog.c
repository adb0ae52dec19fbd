/* SPDX-License-Identifier: MIT */
/*
 * Stage 4, evidence from the kernel log: the NVIDIA driver's Xid lines of a log the user hands
 * over (--kernel-log) or of the record's own kernel-log section, parsed (corefile/kernel_log.c)
 * and matched to the process from what the record and the core say of it: its pid, the names
 * of its threads, the PCI ids of the devices it used, the boot id and the record's clocks.  The
 * diagnosis (corefile/diagnose/xid.c) attributes the fault address of the lines that belong.  The
 * rules are in docs/KERNEL-LOG.md ("How a report uses the lines").
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence.h"

/* Both time windows are widened by this much on each side: the driver prints an Xid when it
 * services the fault, before the process sees the error, and clocks of different sources
 * drift apart a little. */
#define KLOG_SLACK_US (10ull * 1000000)
/* Names compared per process, at most (threads of the record and the core). */
#define KLOG_NAMES_MAX 256

struct ci_error *ci_kernel_log_read(const char *path, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	bool in = strcmp(path, "-") == 0;
	unsigned mode = 0;
	int fd = in ? STDIN_FILENO : ci_open_regular(path, &mode);
	if (fd < 0) {
		const char *kind = errno == EINVAL ? ci_file_kind(mode) : NULL;
		char shown[256];
		ci_scrub(path, shown, sizeof shown);
		if (kind)
			return ci_error_create(CI_ERR_IO, "--kernel-log %s: is %s, not a regular file "
					       "(use '-' to read a pipe from standard input)", shown, kind);
		return ci_error_create(CI_ERR_IO, "--kernel-log %s: %s", shown, strerror(errno));
	}
	/* A regular file is read into one buffer of its size; a pipe grows one. */
	size_t cap = 1 << 16, n = 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < CI_KERNEL_LOG_MAX)
		cap = (size_t)st.st_size + 1;
	char *p = malloc(cap);
	struct ci_error *err = NULL;
	while (p) {
		if (n == cap) {
			if (cap >= CI_KERNEL_LOG_MAX) {
				err = ci_error_create(CI_ERR_IO, "--kernel-log %s: longer than %llu GiB; "
						      "give the part around the crash (e.g. journalctl -k "
						      "--since/--until)", in ? "-" : path,
						      (unsigned long long)(CI_KERNEL_LOG_MAX >> 30));
				break;
			}
			char *q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				p = NULL;
				break;
			}
			p = q;
			cap *= 2;
		}
		ssize_t r = read(fd, p + n, cap - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
			if (errno == EAGAIN) {
				/* A non-blocking descriptor (ci_open_regular's): regular files do not
				 * block, so this is a pipe on stdin: wait for it. */
				fd_set s;
				FD_ZERO(&s);
				FD_SET(fd, &s);
				select(fd + 1, &s, NULL, NULL, NULL);
			}
			continue;
		}
		if (r < 0) {
			char shown[256];
			err = ci_error_create(CI_ERR_IO, "--kernel-log %s: read failed: %s",
					      ci_scrub(in ? "-" : path, shown, sizeof shown), strerror(errno));
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!in)
		close(fd);
	if (!p && !err)
		err = ci_error_create(CI_ERR_NOMEM, "out of memory reading the kernel log");
	if (err) {
		free(p);
		return err;
	}
	*buf = p;
	*len = n;
	return NULL;
}

/* The 16 bytes of a boot id as /proc/sys/kernel/random/boot_id's 32 hex digits, or "". */
static void boot_id_hex(const uint8_t id[16], char out[33])
{
	bool any = false;
	for (int i = 0; i < 16; i++)
		any |= id[i] != 0;
	out[0] = '\0';
	for (int i = 0; any && i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

static void add_name(const char **names, size_t *n, const char *name)
{
	if (!name || !*name || *n >= KLOG_NAMES_MAX)
		return;
	for (size_t i = 0; i < *n; i++)
		if (strncmp(names[i], name, 15) == 0)
			return;
	names[(*n)++] = name;
}

void ci_evidence_kernel_log_clear(struct ci_evidence *ev)
{
	ci_klog_destroy(ev->kernel_log);
	free(ev->kernel_log_match);
	free(ev->kernel_log_origin);
	ev->kernel_log = NULL;
	ev->kernel_log_match = NULL;
	ev->kernel_log_origin = NULL;
	ev->kernel_log_selected = 0;
	ev->kernel_log_events = 0;
}

struct ci_error *ci_evidence_kernel_log(struct ci_evidence *ev, const struct ci_model *m,
					const struct ci_source_info *si, const void *buf,
					size_t len, const char *origin)
{
	struct ci_klog *log = NULL;
	struct ci_error *err = ci_klog_parse(buf, len, NULL, &log);
	if (err)
		return err;
	struct ci_klog_process p = { .slack_us = KLOG_SLACK_US };
	const char *names[KLOG_NAMES_MAX];
	const char *pcis[64];
	char boot[33] = "";
	size_t nn = 0, np = 0;
	/* The pid: the record's (the process's own view), else the core's; and its pid in the
	 * outermost pid namespace the recorder saw (NSpid, format 1.2), which a log written
	 * there names. */
	p.pid = m && m->header.pid ? m->header.pid : si ? si->pid : 0;
	if (m && m->header.ns_pids[0] && m->header.ns_pids[0] != p.pid)
		p.host_pid = m->header.ns_pids[0];
	if (si) {
		for (size_t i = 0; i < si->thread_count; i++)
			if (si->threads[i].tid == p.pid)
				add_name(names, &nn, si->threads[i].name);
		for (size_t i = 0; i < si->thread_count; i++)
			add_name(names, &nn, si->threads[i].name);
	}
	if (m) {
		for (size_t i = 0; i < m->thread_count; i++)
			if (m->threads[i].seq)
				add_name(names, &nn, m->threads[i].name);
		for (size_t i = 0; i < m->device_count && np < 64; i++)
			if (m->devices[i].seq && m->devices[i].pci_bus_id[0])
				pcis[np++] = m->devices[i].pci_bus_id;
		boot_id_hex(m->header.boot_id, boot);
		/* The window: from the record's creation to its end (the fatal signal or exit, the
		 * snapshot, the first sticky error, the last error: whichever is latest). */
		const struct ci_header *h = &m->header;
		uint64_t end = h->end_monotonic_ns;
		if (h->snapshot_monotonic_ns > end)
			end = h->snapshot_monotonic_ns;
		if (h->sticky_monotonic_ns > end)
			end = h->sticky_monotonic_ns;
		for (size_t i = 0; i < m->error_count; i++)
			if (m->errors[i].time_ns > end)
				end = m->errors[i].time_ns;
		/* When the process started (format 1.2: /proc/self/stat on the boot-time clock, moved
		 * to the monotonic one by the pair read at the record's creation), and when it saw its
		 * first sticky error. */
		if (h->proc_start_boottime_ns && h->start_boottime_ns >= h->proc_start_boottime_ns &&
		    h->start_monotonic_ns >= h->start_boottime_ns - h->proc_start_boottime_ns)
			p.start_mono_us = (h->start_monotonic_ns -
					   (h->start_boottime_ns - h->proc_start_boottime_ns)) / 1000;
		p.sticky_mono_us = h->sticky_monotonic_ns / 1000;
		if (h->start_monotonic_ns && end >= h->start_monotonic_ns) {
			p.has_mono = true;
			p.mono_from_us = h->start_monotonic_ns / 1000;
			p.mono_to_us = end / 1000;
			if (h->start_realtime_ns) {
				p.has_wall = true;
				p.wall_from_us = (int64_t)(h->start_realtime_ns / 1000);
				p.wall_to_us = p.wall_from_us + (int64_t)((end - h->start_monotonic_ns) / 1000);
			}
		}
	}
	/* Names are NUL-terminated within their 16 bytes; the threads' copies need not be. */
	char own[KLOG_NAMES_MAX][16];
	for (size_t i = 0; i < nn; i++) {
		memcpy(own[i], names[i], 15);
		own[i][15] = '\0';
		names[i] = own[i];
	}
	char pci_own[64][17];
	for (size_t i = 0; i < np; i++) {
		memcpy(pci_own[i], pcis[i], 16);
		pci_own[i][16] = '\0';
		pcis[i] = pci_own[i];
	}
	p.names = names;
	p.name_count = nn;
	p.pci_bus_ids = np ? pcis : NULL;
	p.pci_count = np;
	p.boot_id = boot[0] ? boot : NULL;
	struct ci_klog_match *match = NULL;
	if ((err = ci_klog_select(log, &p, &match))) {
		ci_klog_destroy(log);
		return err;
	}
	char *o = strdup(origin);
	if (!o) {
		ci_klog_destroy(log);
		free(match);
		return ci_error_create(CI_ERR_NOMEM, "out of memory reading the kernel log");
	}
	ci_evidence_kernel_log_clear(ev);
	ev->kernel_log = log;
	ev->kernel_log_match = match;
	ev->kernel_log_origin = o;
	for (size_t i = 0; i < log->count; i++)
		ev->kernel_log_selected += match[i].belongs;
	ev->kernel_log_events = ci_klog_group(log, match);
	return NULL;
}

void ci_xid_summary(const struct ci_xid *x, char *buf, size_t n)
{
	static const char *const access[] = { "", " read", " write", " atomic", " prefetch" };
	char fault[48], engine[24], client[40], where[96] = "";
	const struct ci_xid_mmu *mm = &x->mmu;
	if (x->xid == 31 && mm->has_address) {
		ci_scrub(mm->fault_type[0] ? mm->fault_type : "MMU fault", fault, sizeof fault);
		ci_scrub(mm->engine, engine, sizeof engine);
		ci_scrub(mm->client, client, sizeof client);
		if (mm->unit == CI_XID_UNIT_COPY)
			snprintf(where, sizeof where, ", ENGINE %s, a copy engine", engine);
		else if (mm->gpc >= 0)
			snprintf(where, sizeof where, ", GPC%d", (int)mm->gpc);
		else if (client[0])
			snprintf(where, sizeof where, ", %s", client);
		snprintf(buf, n, "Xid 31 at 0x%" PRIx64 "_%08" PRIx64 " (%s%s%s%s)", mm->address >> 32,
			 (uint64_t)(mm->address & 0xffffffffu), fault,
			 mm->access < sizeof access / sizeof *access ? access[mm->access] : "",
			 mm->physical ? " (physical)" : "", where);
		return;
	}
	const struct ci_xid_kind *k = ci_xid_describe(x->xid);
	char body[160];
	ci_scrub(x->body ? x->body : "", body, sizeof body);
	char err[64], sm[24] = "";
	if (x->xid == 13 && x->gr.kind == CI_XID_GR_WARP) {
		if (x->gr.sm >= 0)
			snprintf(sm, sizeof sm, ", SM %d", (int)x->gr.sm);
		snprintf(buf, n, "Xid 13 (GPC %d, TPC %d%s): %s, an SM exception in a kernel, no address",
			 (int)x->gr.gpc, (int)x->gr.tpc, sm, ci_scrub(x->gr.error, err, sizeof err));
	} else if (x->xid == 13 && x->gr.kind == CI_XID_GR_ESR && x->gr.has_warp_code) {
		snprintf(buf, n, "Xid 13 ESR: warp error 0x%02x (%s)", x->gr.warp_code,
			 x->gr.warp_error ? x->gr.warp_error : "a code this reader does not know");
	} else if (k)
		snprintf(buf, n, "Xid %" PRIu32 " (%s): %s", x->xid, k->meaning, body);
	else
		snprintf(buf, n, "Xid %" PRIu32 " (a number this reader does not know): %s", x->xid, body);
}

struct ci_error *ci_kernel_log_unrecorded(const struct ci_input *in,
					  const struct ci_source_options *sopts,
					  const char *kernel_log, struct ci_evidence *ev, uint32_t *pid)
{
	struct ci_source *src = NULL;
	struct ci_error *err;
	*ev = (struct ci_evidence){ 0 };
	*pid = 0;
	if (in->path)
		err = ci_source_open(in->path, sopts, &src);
	else if (in->pid)
		err = ci_source_open_pid(in->pid, sopts, &src);
	else
		return NULL;
	if (err)
		return err;
	char *buf = NULL;
	size_t len = 0;
	if (!(err = ci_kernel_log_read(kernel_log, &buf, &len)))
		err = ci_evidence_kernel_log(ev, NULL, ci_source_info(src), buf, len,
					     strcmp(kernel_log, "-") == 0 ? "standard input" : kernel_log);
	free(buf);
	*pid = ci_source_info(src)->pid;
	ci_source_close(src);
	if (err)
		ci_evidence_kernel_log_clear(ev);
	return err;
}

struct ci_error *ci_kernel_log_report_unrecorded(FILE *out, const struct ci_input *in,
						 const struct ci_source_options *sopts,
						 const char *kernel_log)
{
	struct ci_evidence ev;
	uint32_t pid;
	struct ci_error *err = ci_kernel_log_unrecorded(in, sopts, kernel_log, &ev, &pid);
	if (err || !ev.kernel_log)
		return err;
	char origin[300], text[400];
	ci_scrub(ev.kernel_log_origin, origin, sizeof origin);
	fprintf(out, "\nKernel log (%s): %zu Xid line%s, %zu of them process %" PRIu32 "'s\n", origin,
		ev.kernel_log->count, ev.kernel_log->count == 1 ? "" : "s", ev.kernel_log_selected,
		pid);
	size_t shown = 0;
	bool address = false;
	for (size_t i = 0; i < ev.kernel_log->count && shown < 16; i++) {
		const struct ci_xid *x = &ev.kernel_log->items[i];
		if (!ev.kernel_log_match[i].belongs || (x->flags & CI_XID_DUPLICATE))
			continue;
		ci_xid_summary(x, text, sizeof text);
		fprintf(out, "  %s; line %" PRIu64 ", by %s\n", text, x->line,
			ci_klog_rule_name(ev.kernel_log_match[i].rule));
		address |= x->xid == 31 && x->mmu.has_address;
		shown++;
	}
	if (address)
		fprintf(out, "  Without a flight record there is nothing to attribute the fault address "
			"to:\n  no allocation, launch or copy of the process is known.\n");
	else if (!ev.kernel_log_selected)
		fprintf(out, "  None names the process (its pid or thread names) inside the log.\n");
	fflush(out);
	ci_evidence_kernel_log_clear(&ev);
	return NULL;
}
