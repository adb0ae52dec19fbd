/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the kernel-log parser (corefile/kernel_log.c): the input is a kernel log
 * as a user would hand it over (text of any format, or gzip), parsed with small caps so that
 * every iteration is quick; every string of every item is read, and the selection runs for a
 * process built from the parsed lines themselves (so the pid, name, GPU and companion rules see
 * matches) and for one with every window and offset at its extremes.  Plain text is parsed a
 * second time behind a bug report's first line, so the bug-report rules (sections, parts,
 * duplicates) see every input too; both buffers are exactly as long as their bytes.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cudainspect/cudainspect.h"
#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void use(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void run_select(const struct ci_klog *log, const struct ci_klog_process *p)
{
	struct ci_klog_match *m;
	struct ci_error *err = ci_klog_select(log, p, &m);
	if (err) {
		ci_error_destroy(err);
		return;
	}
	for (size_t i = 0; i < log->count; i++) {
		sink += m[i].belongs + m[i].rule + m[i].reject + m[i].basis;
		if (m[i].companion != SIZE_MAX)
			sink += log->items[m[i].companion].xid; /* must index a real item */
		use(ci_klog_rule_name(m[i].rule));
		use(ci_klog_reject_text(m[i].reject));
	}
	/* Events: every event number below the count, on lines that belong. */
	size_t events = ci_klog_group(log, m);
	for (size_t i = 0; i < log->count; i++)
		if (m[i].event != SIZE_MAX && (!m[i].belongs || m[i].event >= events))
			__builtin_trap();
	free(m);
}

static void one(const uint8_t *data, size_t size)
{
	struct ci_klog_options o = { .max_line = 4096, .max_items = 2000, .max_text = 1 << 20,
				     .max_decompressed = 8 << 20 };
	struct ci_klog *log;
	struct ci_error *err = ci_klog_parse(data, size, &o, &log);
	if (err) {
		ci_error_destroy(err);
		return;
	}
	for (size_t i = 0; i < log->count; i++) {
		const struct ci_xid *x = &log->items[i];
		use(x->raw);
		use(x->message);
		use(x->part);
		use(x->host);
		use(x->name);
		use(x->body);
		use(x->boot_id);
		use(x->mmu.engine);
		use(x->mmu.client);
		use(x->mmu.fault_type);
		use(x->mmu.access_type);
		use(x->gr.error);
		use(x->gr.warp_error);
		use(ci_klog_format_name(x->format));
		const struct ci_xid_kind *k = ci_xid_describe(x->xid);
		if (k) {
			use(k->meaning);
			use(ci_xid_category_name(k->category));
		}
		if (x->flags & CI_XID_DUPLICATE)
			sink += log->items[x->duplicate_of].line;
		for (uint32_t e = 0; e < x->gr.n_esr; e++)
			sink += x->gr.esr[e].value;
	}
	for (size_t i = 0; i < log->gpu_count; i++)
		use(log->gpus[i].uuid);
	/* A process made of the log's own first line, and one at the extremes. */
	char pci[32] = "", boot[40] = "";
	const char *names[1] = { NULL }, *pcis[1] = { pci };
	struct ci_klog_process p = { .names = names, .name_count = 1, .pci_bus_ids = pcis, .pci_count = 1,
				     .has_mono = true, .mono_to_us = 60ull * 1000000, .has_wall = true,
				     .wall_from_us = 1700000000ll * 1000000, .wall_to_us = 1800000000ll * 1000000,
				     .slack_us = 2000000 };
	if (log->count) {
		const struct ci_xid *x = &log->items[0];
		p.pid = x->pid;
		names[0] = x->name;
		snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", (unsigned)x->pci.domain, x->pci.bus, x->pci.device);
		snprintf(boot, sizeof boot, "%s", x->boot_id);
		p.boot_id = boot;
		p.mono_from_us = x->time.mono_us;
		p.mono_to_us = x->time.mono_us + 1000000;
	}
	run_select(log, &p);
	struct ci_klog_process q = { .pid = 1, .host_pid = UINT32_MAX, .has_mono = true, .mono_to_us = UINT64_MAX,
				     .has_wall = true, .wall_from_us = INT64_MIN, .wall_to_us = INT64_MAX,
				     .has_utc_offset = true, .utc_offset_s = INT32_MIN, .slack_us = UINT64_MAX };
	run_select(log, &q);
	q.has_utc_offset = false;
	q.wall_from_us = -1;
	q.wall_to_us = 1;
	run_select(log, &q);
	ci_klog_destroy(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	static const char head[] = "Start of NVIDIA bug report log file.\n";
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return 0;
	uint8_t *br = malloc(sizeof head - 1 + size);
	if (!br)
		return 0;
	memcpy(br, head, sizeof head - 1);
	if (size)
		memcpy(br + sizeof head - 1, data, size);
	one(br, sizeof head - 1 + size);
	free(br);
	return 0;
}
