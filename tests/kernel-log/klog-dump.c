/* SPDX-License-Identifier: MIT */
/*
 * klog-dump: run the kernel-log parser (corefile/kernel_log.c) on a file and print what it found,
 * one "key=value ..." line per Xid, for the shell tests (tests/kernel-log, tests/sim/xid.t)
 * and for measuring it on large logs.
 *
 *   klog-dump [--quiet] [--time] [--max-items N] [--max-line N] [selection...] FILE|-
 *   selection: --pid N --host-pid N --name COMM (repeatable) --pci BUSID (repeatable)
 *              --boot ID --mono FROM_US:TO_US --wall FROM_US:TO_US --utc-offset S --slack US
 *
 * With any selection option each item line also says belongs=0|1 rule=... reject=... basis=...
 * Strings from the log are printed with control characters (and, but for the body, which comes
 * last, spaces) escaped as \xNN, so one item stays one line.  Exit status: 0, or 1 when the parse
 * failed (the message on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudainspect/cudainspect.h"
#include "evidence/evidence.h"

/* Spaces are escaped too except in the body, which goes last. */
static void put_str(const char *key, const char *s)
{
	if (!s)
		return;
	printf(" %s=", key);
	bool last = strcmp(key, "body") == 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p == ' ' && !last) || *p < ' ' || *p >= 0x7f || *p == '\\')
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
			}
			buf = b;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

static bool range(const char *s, uint64_t *from, uint64_t *to)
{
	char *e;
	*from = strtoull(s, &e, 10);
	if (*e != ':')
		return false;
	*to = strtoull(e + 1, &e, 10);
	return !*e;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ci_klog_options opts = { 0 };
	struct ci_klog_process proc = { 0 };
	const char *names[16], *pcis[16], *path = NULL;
	bool quiet = false, timing = false, select = false;
	uint64_t a, b;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(o, "--quiet") == 0) {
			quiet = true;
			continue;
		}
		if (strcmp(o, "--time") == 0) {
			timing = true;
			continue;
		}
		if (o[0] != '-' || strcmp(o, "-") == 0) {
			path = o;
			continue;
		}
		if (!v)
			goto usage;
		i++;
		if (strcmp(o, "--max-items") == 0)
			opts.max_items = strtoul(v, NULL, 10);
		else if (strcmp(o, "--max-line") == 0)
			opts.max_line = strtoul(v, NULL, 10);
		else if ((select = true), strcmp(o, "--pid") == 0)
			proc.pid = (uint32_t)strtoul(v, NULL, 10);
		else if (strcmp(o, "--host-pid") == 0)
			proc.host_pid = (uint32_t)strtoul(v, NULL, 10);
		else if (strcmp(o, "--name") == 0 && proc.name_count < 16)
			names[proc.name_count++] = v;
		else if (strcmp(o, "--pci") == 0 && proc.pci_count < 16)
			pcis[proc.pci_count++] = v;
		else if (strcmp(o, "--boot") == 0)
			proc.boot_id = v;
		else if (strcmp(o, "--mono") == 0 && range(v, &a, &b)) {
			proc.has_mono = true;
			proc.mono_from_us = a;
			proc.mono_to_us = b;
		} else if (strcmp(o, "--wall") == 0 && range(v, &a, &b)) {
			proc.has_wall = true;
			proc.wall_from_us = (int64_t)a;
			proc.wall_to_us = (int64_t)b;
		} else if (strcmp(o, "--utc-offset") == 0) {
			proc.has_utc_offset = true;
			proc.utc_offset_s = (int32_t)strtol(v, NULL, 10);
		} else if (strcmp(o, "--slack") == 0)
			proc.slack_us = strtoull(v, NULL, 10);
		else
			goto usage;
	}
	if (!path)
		goto usage;
	proc.names = names;
	proc.pci_bus_ids = pcis;
	size_t len;
	char *buf = read_all(path, &len);
	if (!buf) {
		fprintf(stderr, "klog-dump: %s: %s\n", path, strerror(errno));
		return 1;
	}
	struct ci_klog *log;
	double t0 = now_s();
	struct ci_error *err = ci_klog_parse(buf, len, &opts, &log);
	double t1 = now_s();
	free(buf);
	if (err) {
		fprintf(stderr, "klog-dump: %s: %s\n", path, err->message);
		ci_error_destroy(err);
		return 1;
	}
	struct ci_klog_match *m = NULL;
	if (select && (err = ci_klog_select(log, &proc, &m))) {
		fprintf(stderr, "klog-dump: %s\n", err->message);
		ci_error_destroy(err);
		ci_klog_destroy(log);
		return 1;
	}
	for (size_t i = 0; !quiet && i < log->count; i++) {
		const struct ci_xid *x = &log->items[i];
		printf("item=%zu line=%" PRIu64 " format=%s xid=%" PRIu32 " pci=%04" PRIx32 ":%02x:%02x", i, x->line,
		       ci_klog_format_name(x->format), x->xid, x->pci.domain, x->pci.bus, x->pci.device);
		if (x->gpu_instance >= 0)
			printf(" gi=%d", x->gpu_instance);
		if (x->compute_instance >= 0)
			printf(" ci=%d", x->compute_instance);
		if (x->pid_form == CI_XID_PID_NUMBER)
			printf(" pid=%" PRIu32, x->pid);
		else if (x->pid_form == CI_XID_PID_UNKNOWN)
			printf(" pid=unknown");
		put_str("name", x->name);
		if (x->has_channel)
			printf(" channel=0x%" PRIx32, x->channel);
		if (x->caused_by >= 0)
			printf(" caused_by=%d", x->caused_by);
		if (x->mmu.has_address)
			printf(" address=0x%" PRIx64, x->mmu.address);
		if (x->xid == 31) {
			put_str("engine", x->mmu.engine);
			put_str("client", x->mmu.client);
			put_str("fault", x->mmu.fault_type);
			put_str("access", x->mmu.access_type);
			if (x->mmu.gpc >= 0)
				printf(" gpc=%d", x->mmu.gpc);
			static const char *const units[] = { "unknown", "sm", "copy", "graphics", "other" };
			printf(" unit=%s", units[x->mmu.unit]);
		}
		if (x->gr.kind) {
			static const char *const kinds[] = { "none", "warp", "global", "esr", "other" };
			printf(" gr=%s", kinds[x->gr.kind]);
			if (x->gr.error[0])
				put_str("error", x->gr.error);
			if (x->gr.has_warp_code)
				printf(" warp_code=0x%x", x->gr.warp_code);
			put_str("warp_error", x->gr.warp_error);
		}
		if (x->time.mono_source)
			printf(" mono_us=%" PRIu64 " mono=%s", x->time.mono_us,
			       x->time.mono_source == CI_KLOG_MONO_PRINTK ? "printk" : "journal");
		if (x->time.wall) {
			static const char *const walls[] = { "none", "utc", "local", "local-no-year" };
			printf(" wall_us=%" PRId64 " wall=%s", x->time.wall_us, walls[x->time.wall]);
		}
		if (x->boot_id[0])
			printf(" boot=%s", x->boot_id);
		put_str("host", x->host);
		put_str("part", x->part);
		if (x->flags & CI_XID_DUPLICATE)
			printf(" duplicate_of=%zu", x->duplicate_of);
		if (m) {
			static const char *const bases[] = { "none", "mono", "wall-utc", "wall-local", "wall-any-zone" };
			printf(" belongs=%d", m[i].belongs);
			if (m[i].belongs)
				printf(" rule=%s", ci_klog_rule_name(m[i].rule));
			else
				printf(" reject=%s", ci_klog_reject_name(m[i].reject));
			printf(" basis=%s", bases[m[i].basis]);
			if (m[i].companion != SIZE_MAX)
				printf(" companion=%zu", m[i].companion);
		}
		put_str("body", x->body);
		printf("\n");
	}
	const struct ci_klog_stats *s = &log->stats;
	printf("stats bytes=%" PRIu64 " lines=%" PRIu64 " items=%zu xid_lines=%" PRIu64 " malformed=%" PRIu64
	       " dropped=%" PRIu64 " too_long=%" PRIu64 " json_bad=%" PRIu64 " gpus=%zu boots=%" PRIu32
	       " gzip=%d damaged=%d capped=%d bug_report=%d\n",
	       s->bytes, s->lines, log->count, s->xid_lines, s->malformed, s->dropped, s->lines_too_long,
	       s->json_bad, log->gpu_count, s->boot_segments, s->gzip, s->gzip_damaged, s->decompress_capped,
	       s->bug_report);
	for (size_t i = 0; !quiet && i < log->gpu_count; i++)
		printf("gpu pci=%04" PRIx32 ":%02x:%02x uuid=%s line=%" PRIu64 "\n", log->gpus[i].pci.domain,
		       log->gpus[i].pci.bus, log->gpus[i].pci.device, log->gpus[i].uuid, log->gpus[i].line);
	if (timing)
		printf("time parse_s=%.3f mib_per_s=%.0f\n", t1 - t0, (double)s->bytes / (1 << 20) / (t1 - t0));
	free(m);
	ci_klog_destroy(log);
	return 0;
usage:
	fprintf(stderr, "usage: klog-dump [--quiet] [--time] [--max-items N] [--max-line N] [--pid N] [--host-pid N]\n"
			"                 [--name COMM] [--pci BUSID] [--boot ID] [--mono FROM:TO] [--wall FROM:TO]\n"
			"                 [--utc-offset S] [--slack US] FILE|-\n");
	return 2;
}
