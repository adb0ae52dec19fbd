/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the kernel-log parser (corefile/kernel_log.c) on the fixtures in
 * tests/kernel-log/fixtures/: the real Xid lines of fixtures/xid-lines.txt (sources in
 * docs/KERNEL-LOG.md) in every log format, a bug report gzip'ed as nvidia-bug-report.sh does it,
 * JSON, kmsg and syslog corner cases, malformed and truncated lines, caps, and the selection
 * rules on a scenario log.  Every expected value below was read off the fixture lines by hand
 * (or follows from the time scheme documented in mkfixtures.sh); none comes from the parser.
 *
 *   test-kernel-log FIXTURE_DIR
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cudainspect/cudainspect.h"
#include "evidence/evidence.h"
#include "tap.h"

static const char *dir;

/* ---- fixtures ---------------------------------------------------------------------------- */

static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("Bail out! cannot open %s\n", path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static struct ci_klog *parse_text(const char *text, size_t len, const struct ci_klog_options *o)
{
	struct ci_klog *log = NULL;
	struct ci_error *err = ci_klog_parse(text, len, o, &log);
	if (err) {
		printf("# parse failed: %s\n", err->message);
		ci_error_destroy(err);
		return NULL;
	}
	return log;
}

static struct ci_klog *parse_str(const char *text)
{
	return parse_text(text, strlen(text), NULL);
}

/* Append one gzip member holding [p, p+n) to out. */
static void gzip_member(const char *p, size_t n, unsigned char **out, size_t *out_len)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(1);
	size_t cap = deflateBound(&z, n);
	*out = realloc(*out, *out_len + cap);
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = *out + *out_len;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(1);
	*out_len += cap - z.avail_out;
	deflateEnd(&z);
}

/* ---- what each real line says (read off fixtures/xid-lines.txt) ------------------------------ */

struct want {
	const char *src;
	uint32_t dom;
	uint8_t bus, dev;
	bool pci_prefix;
	uint32_t xid;
	enum ci_xid_pid pid_form;
	uint32_t pid;
	const char *name;     /* NULL: none */
	bool name_unknown;
	int64_t channel;      /* -1: none */
	int caused_by;
	/* 31 */
	uint64_t addr;
	const char *engine, *client, *fault, *access;
	int gpc;
	enum ci_xid_unit unit;
	enum ci_xid_access acc;
	/* 13 */
	enum ci_xid_gr_kind gr;
	int ggpc, gtpc, gsm;
	const char *error;
	uint32_t esr0_reg, esr0_val, n_esr;
	int warp_code;        /* -1: none */
	const char *warp_error;
	/* other */
	int recovery;
	const char *body;
};

#define NO -1
static const struct want lines[] = {
	{ "dxvk#1027", 0, 0x01, 0x00, true, 31, CI_XID_PID_ABSENT, 0, NULL, false, 0x3a, NO,
	  0x1700592000, "GRAPHICS", "GPCCLIENT_T1_3", "FAULT_PDE", "ACCESS_TYPE_READ", NO, CI_XID_UNIT_SM, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "dxvk#1799", 0, 0xc1, 0x00, true, 31, CI_XID_PID_NUMBER, 12890, NULL, false, 0x3e, NO,
	  0x18c710000, "GRAPHICS", "HUBCLIENT_SCC", "FAULT_PTE", "ACCESS_TYPE_VIRT_READ", NO, CI_XID_UNIT_GRAPHICS, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "pytorch#51382", 0, 0xdb, 0x00, true, 31, CI_XID_PID_NUMBER, 13641, NULL, false, 0x08, NO,
	  0x7fd790743000, "GRAPHICS", "GPCCLIENT_T1_10", "FAULT_PDE", "ACCESS_TYPE_VIRT_READ", NO, CI_XID_UNIT_SM, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "ogkm#363", 0, 0x08, 0x00, true, 31, CI_XID_PID_NUMBER, 169800, "chrome", false, 0x23, NO,
	  0x0abe0000, "CE0", "HUBCLIENT_HSCE0", "FAULT_PTE", "ACCESS_TYPE_VIRT_READ", NO, CI_XID_UNIT_COPY, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "chia-gigahorse#301", 0, 0x0a, 0x00, true, 31, CI_XID_PID_NUMBER, 13332, "cuda_plot_k32_v", false, 0x10, NO,
	  0x7f295b8c9000, "CE2", "HUBCLIENT_CE0", "FAULT_PRIV_VIOLATION", "ACCESS_TYPE_VIRT_READ", NO, CI_XID_UNIT_COPY, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "quadrants#589", 1, 0x00, 0x00, true, 31, CI_XID_PID_NUMBER, 37803, "[pytest-xdist r", false, 0x201, NO,
	  0x70a2c8000000, "GRAPHICS", "GPCCLIENT_T1_0", "FAULT_PDE", "ACCESS_TYPE_VIRT_WRITE", 0, CI_XID_UNIT_SM, CI_XID_ACCESS_WRITE,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "ogkm#1030", 0, 0x01, 0x00, true, 31, CI_XID_PID_NUMBER, 13705, "UnrealEditor", false, 0x0c, NO,
	  0x0, "GRAPHICS", "GPCCLIENT_PROP_0", "FAULT_PDE", "ACCESS_TYPE_VIRT_READ", 2, CI_XID_UNIT_GRAPHICS, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "abhik.ai", 0, 0xc1, 0x00, true, 31, CI_XID_PID_NUMBER, 2646416, "python", false, 0x1a, NO,
	  0x725ffb800000, "GRAPHICS", "GPCCLIENT_T1_5", "FAULT_PDE", "ACCESS_TYPE_VIRT_READ", 10, CI_XID_UNIT_SM, CI_XID_ACCESS_READ,
	  0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, NULL },
	{ "john#2491", 0, 0x05, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 0, 0, NO, "Out Of Range Address", 0, 0, 0, NO, NULL, NO, NULL },
	{ "john#2491", 0, 0x05, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_GLOBAL, 0, 0, NO, "Physical Multiple Warp Errors", 0, 0, 0, NO, NULL, NO, NULL },
	{ "john#2491", 0, 0x05, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_ESR, NO, NO, NO, NULL, 0x504648, 0x1000e, 4, 0x0e, "Out Of Range Address", NO, NULL },
	{ "silentarmy#6", 0, 0x05, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 0, 0, NO, "Misaligned Address", 0, 0, 0, NO, NULL, NO, NULL },
	{ "relion#436", 0, 0x65, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 1, 0, 0, "Illegal Instruction Encoding", 0, 0, 0, NO, NULL, NO, NULL },
	{ "relion#436", 0, 0x65, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_ESR, NO, NO, NO, NULL, 0x50c730, 0x30009, 4, 0x09, "Illegal Instruction Encoding", NO, NULL },
	{ "vllm#5901", 0, 0x43, 0x00, true, 13, CI_XID_PID_UNKNOWN, 0, NULL, true, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_ESR, NO, NO, NO, NULL, 0x52e7b0, 0x101000e, 4, 0x0e, "Out Of Range Address", NO, NULL },
	{ "gpud#46", 0, 0x9d, 0x00, true, 13, CI_XID_PID_UNKNOWN, 0, NULL, true, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 7, 7, 0, "Illegal Instruction Parameter", 0, 0, 0, NO, NULL, NO, NULL },
	{ "gpud#46", 0, 0x9d, 0x00, true, 13, CI_XID_PID_UNKNOWN, 0, NULL, true, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_ESR, NO, NO, NO, NULL, 0x57c730, 0xc04000b, 4, 0x0b, "Illegal Instruction Parameter", NO, NULL },
	{ "TensorRT-LLM#15610", 0, 0x70, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 1, 1, 1, "MMU Fault", 0, 0, 0, NO, NULL, NO, NULL },
	{ "TensorRT-LLM#15610", 0, 0x70, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_ESR, NO, NO, NO, NULL, 0x5167b0, 0x80f0017, 4, 0x17, "MMU Fault", NO, NULL },
	{ "ds4#621", 0xf, 0x01, 0x00, true, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL, NO, 0, 0,
	  CI_XID_GR_WARP, 1, 2, 0, "Out Of Range Address", 0, 0, 0, NO, NULL, NO, NULL },
	{ "ds4#621", 0xf, 0x01, 0x00, true, 43, CI_XID_PID_NUMBER, 914871, "ds4-server", false, 0x2, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "channel 0x00000002" },
	{ "pytorch#51382", 0, 0x3d, 0x00, true, 43, CI_XID_PID_NUMBER, 35521, NULL, false, 0x8, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "Ch 00000008" },
	{ "chia-gigahorse#301", 0, 0x0a, 0x00, true, 45, CI_XID_PID_UNKNOWN, 0, NULL, true, 0x8, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "Ch 00000008" },
	{ "ogkm#1150", 0, 0xdc, 0x00, true, 45, CI_XID_PID_NUMBER, 1818990, "python3", false, 0x1, 149, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "Ch 00000001" },
	{ "NVSentinel#516", 3, 0x00, 0x00, true, 74, CI_XID_PID_UNKNOWN, 0, NULL, true, NO, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO,
	  "NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" },
	{ "ogkm#1151", 0, 0x06, 0x00, true, 79, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "GPU has fallen off the bus." },
	{ "kern_gpu_error_cont_ga100.c", 0, 0x01, 0x00, true, 94, CI_XID_PID_NUMBER, 7062, NULL, false, NO, NO, 0, NULL, NULL, NULL,
	  NULL, NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "Contained: CE User Channel (0x9). RST: No, D-RST: No" },
	{ "gpud#46", 0, 0xcb, 0x00, true, 109, CI_XID_PID_NUMBER, 1797828, "pt_main_thread", false, 0x8, NO, 0, NULL, NULL, NULL,
	  NULL, NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005" },
	{ "vllm#40652", 1, 0x6c, 0x00, true, 119, CI_XID_PID_NUMBER, 10200, "NvmlTaskRunner", false, NO, NO, 0, NULL, NULL, NULL,
	  NULL, NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO,
	  "Timeout after 45s of waiting for RPC response from GPU5 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 24174 (0x20801322 0x808)." },
	{ "ogkm#829", 0, 0x02, 0x00, true, 120, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO,
	  "GSP task exception: load access page fault (cause:0xd) @ pc:0x140ca4a, partition:4#0, task:3" },
	{ "ogkm#446", 0, 0x0b, 0x00, true, 154, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, 1, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)" },
	{ "pastebin gn6mYmM4", 0, 0x01, 0x00, false, 13, CI_XID_PID_ABSENT, 0, NULL, false, NO, NO, 0, NULL, NULL, NULL, NULL,
	  NO, 0, 0, 0, NO, NO, NO, NULL, 0, 0, 0, NO, NULL, NO, "0005 00000000" },
};
#define NLINES (sizeof lines / sizeof lines[0])

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Compare one parsed item with its expectation; on mismatch say which field. */
static const char *item_mismatch(const struct ci_xid *x, const struct want *w)
{
	if (x->pci.domain != w->dom || x->pci.bus != w->bus || x->pci.device != w->dev)
		return "pci";
	if (x->pci_prefix != w->pci_prefix)
		return "pci_prefix";
	if (x->gpu_instance != -1 || x->compute_instance != -1)
		return "mig";
	if (x->xid != w->xid)
		return "xid";
	if (x->pid_form != w->pid_form || (w->pid_form == CI_XID_PID_NUMBER && x->pid != w->pid))
		return "pid";
	if (!str_eq(x->name, w->name) || x->name_unknown != w->name_unknown)
		return "name";
	if (x->has_channel != (w->channel >= 0) || (w->channel >= 0 && x->channel != (uint32_t)w->channel))
		return "channel";
	if (x->caused_by != w->caused_by)
		return "caused_by";
	if (x->recovery_action != w->recovery)
		return "recovery_action";
	if (w->body && !str_eq(x->body, w->body))
		return "body";
	if (w->xid == 31) {
		const struct ci_xid_mmu *m = &x->mmu;
		if (!m->has_address || !m->address_split || m->address != w->addr)
			return "address";
		if (!str_eq(m->engine, w->engine) || !str_eq(m->client, w->client))
			return "engine/client";
		if (!str_eq(m->fault_type, w->fault) || !str_eq(m->access_type, w->access) || m->access != w->acc)
			return "fault/access";
		if (m->gpc != w->gpc || m->tpc != -1 || m->unit != w->unit || m->physical)
			return "gpc/unit";
		if (x->flags & CI_XID_BODY_PARTIAL)
			return "partial";
	} else if (x->mmu.has_address || x->mmu.engine[0]) {
		return "mmu on a non-31";
	}
	if (w->xid == 13) {
		const struct ci_xid_gr *g = &x->gr;
		if (g->kind != w->gr)
			return "gr kind";
		if (g->gpc != w->ggpc || g->tpc != w->gtpc || g->sm != w->gsm)
			return "gpc/tpc/sm";
		if (w->error && !str_eq(g->error, w->error))
			return "error";
		if (w->gr == CI_XID_GR_ESR && (g->n_esr != w->n_esr || g->esr[0].reg != w->esr0_reg || g->esr[0].value != w->esr0_val))
			return "esr";
		if (g->has_warp_code != (w->warp_code >= 0) || (w->warp_code >= 0 && g->warp_code != w->warp_code))
			return "warp code";
		if (!str_eq(g->warp_error, w->warp_error))
			return "warp error";
	} else if (x->gr.kind) {
		return "gr on a non-13";
	}
	return NULL;
}

/* ---- per-format times (the scheme of mkfixtures.sh) ---------------------------------------- */

#define BOOT 1709632800ll        /* 2024-03-05 10:00:00 UTC */
#define Y2000_MAR5 952214400ll   /* 2000-03-05 00:00:00 UTC */
#define LOCAL 3600ll             /* the fixture host's local time is UTC+1 */
#define JOURNAL_DELAY 2345ll

static int64_t mono_us(size_t i) { return (1000 + 10 * (int64_t)i) * 1000000 + 1111 * (int64_t)i; }
static int64_t mono_s(size_t i) { return 1000 + 10 * (int64_t)i; }

struct format_case {
	const char *file;
	enum ci_klog_format fmt;
	enum ci_klog_mono_source mono;
	enum ci_klog_wall wall;
	int stride;              /* lines per Xid line */
	const char *host;
};

/* The expected wall time (microseconds) of line i in a file of this case. */
static int64_t want_wall(const struct format_case *fc, size_t i)
{
	const char *f = fc->file;
	int64_t utc_s = BOOT + mono_s(i), frac = 1111 * (int64_t)i;
	if (!strcmp(f, "dmesg-T.log"))
		return (utc_s + LOCAL) * 1000000;
	if (!strcmp(f, "journal-short.log") || !strcmp(f, "syslog.log") || !strcmp(f, "kern.log"))
		return (Y2000_MAR5 + 11 * 3600 + mono_s(i)) * 1000000; /* 11:00 local is boot */
	if (!strcmp(f, "journal-short-iso.log"))
		return utc_s * 1000000;
	if (!strcmp(f, "journal.json"))
		return utc_s * 1000000 + frac + JOURNAL_DELAY;
	return utc_s * 1000000 + frac; /* dmesg-iso, rsyslog-iso, rfc5424: microseconds and a zone */
}

static int64_t want_mono(const struct format_case *fc, size_t i)
{
	return mono_us(i) + (fc->mono == CI_KLOG_MONO_JOURNAL ? JOURNAL_DELAY : 0);
}

static const struct format_case formats[] = {
	{ "dmesg.log", CI_KLOG_FMT_DMESG, CI_KLOG_MONO_PRINTK, CI_KLOG_WALL_NONE, 2, NULL },
	{ "dmesg-T.log", CI_KLOG_FMT_DMESG_CTIME, CI_KLOG_MONO_NONE, CI_KLOG_WALL_LOCAL, 2, NULL },
	{ "dmesg-iso.log", CI_KLOG_FMT_DMESG_ISO, CI_KLOG_MONO_NONE, CI_KLOG_WALL_UTC, 2, NULL },
	{ "kmsg.log", CI_KLOG_FMT_KMSG, CI_KLOG_MONO_PRINTK, CI_KLOG_WALL_NONE, 4, NULL },
	{ "journal-short.log", CI_KLOG_FMT_SYSLOG, CI_KLOG_MONO_NONE, CI_KLOG_WALL_LOCAL_NO_YEAR, 2, "gpuhost" },
	{ "journal-short-monotonic.log", CI_KLOG_FMT_JOURNAL_MONOTONIC, CI_KLOG_MONO_JOURNAL, CI_KLOG_WALL_NONE, 2, "gpuhost" },
	{ "journal-short-iso.log", CI_KLOG_FMT_ISO, CI_KLOG_MONO_NONE, CI_KLOG_WALL_UTC, 2, "gpuhost" },
	{ "journal.json", CI_KLOG_FMT_JOURNAL_JSON, CI_KLOG_MONO_PRINTK, CI_KLOG_WALL_UTC, 2, "gpuhost" },
	{ "kern.log", CI_KLOG_FMT_SYSLOG, CI_KLOG_MONO_PRINTK, CI_KLOG_WALL_LOCAL_NO_YEAR, 2, "gpuhost" },
	{ "syslog.log", CI_KLOG_FMT_SYSLOG, CI_KLOG_MONO_NONE, CI_KLOG_WALL_LOCAL_NO_YEAR, 2, "gpuhost" },
	{ "rsyslog-iso.log", CI_KLOG_FMT_ISO, CI_KLOG_MONO_NONE, CI_KLOG_WALL_UTC, 2, "gpuhost" },
	{ "rfc5424.log", CI_KLOG_FMT_RFC5424, CI_KLOG_MONO_NONE, CI_KLOG_WALL_UTC, 2, "gpuhost" },
};

static void check_items(const char *what, const struct ci_klog *log, size_t first, const struct format_case *fc,
			bool check_lines)
{
	for (size_t i = 0; i < NLINES; i++) {
		const struct ci_xid *x = &log->items[first + i];
		const struct want *w = &lines[i];
		const char *bad = item_mismatch(x, w);
		if (!bad && x->format != fc->fmt)
			bad = "format";
		if (!bad && check_lines && x->line != 3 + (uint64_t)fc->stride * i)
			bad = "line number";
		if (!bad && (x->time.mono_source != fc->mono || (fc->mono && (int64_t)x->time.mono_us != want_mono(fc, i))))
			bad = "monotonic time";
		if (!bad && (x->time.wall != fc->wall || (fc->wall && x->time.wall_us != want_wall(fc, i))))
			bad = "wall time";
		if (!bad && !str_eq(x->host, fc->host))
			bad = "host";
		if (!bad && fc->fmt == CI_KLOG_FMT_JOURNAL_JSON && strcmp(x->boot_id, "0b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b"))
			bad = "boot id";
		if (!bad && (!x->raw || !x->message || strncmp(x->message, "NVRM: Xid (", 11) != 0 ||
			     !strstr(x->raw, x->message + 11)))
			bad = "raw/message";
		if (!ok(!bad, "%s: line %zu (%s, Xid %u)", what, i, w->src, w->xid))
			printf("# wrong %s: raw '%s'\n", bad, x->raw ? x->raw : "(null)");
	}
}

static void test_formats(void)
{
	for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		size_t len;
		char *text = slurp(formats[f].file, &len);
		struct ci_klog *log = parse_text(text, len, NULL);
		free(text);
		if (!ok(log && log->count == NLINES, "%s: %zu Xid lines", formats[f].file, NLINES)) {
			printf("# got %zu\n", log ? log->count : 0);
			ci_klog_destroy(log);
			continue;
		}
		ok(log->stats.malformed == 0 && log->stats.dropped == 0 && log->stats.xid_lines == NLINES &&
		   log->stats.per_format[formats[f].fmt] == NLINES && log->stats.boot_segments == 1 &&
		   log->stats.lines == 2 + NLINES * (uint64_t)formats[f].stride,
		   "%s: stats", formats[f].file);
		check_items(formats[f].file, log, 0, &formats[f], true);
		ci_klog_destroy(log);
	}
}

/* ---- the bug report --------------------------------------------------------------------------- */

static void test_bug_report(void)
{
	size_t len;
	char *text = slurp("bugreport.log", &len);
	/* nvidia-bug-report.sh pipes every section through gzip on its own: one member each. */
	unsigned char *gz = NULL;
	size_t gz_len = 0;
	const char *sec = text, *end = text + len;
	while (sec < end) {
		const char *next = strstr(sec + 1, "\n____");
		next = next ? next + 1 : end;
		gzip_member(sec, (size_t)(next - sec), &gz, &gz_len);
		sec = next;
	}
	struct ci_klog *log = parse_text((const char *)gz, gz_len, NULL);
	ok(log && log->stats.gzip && log->stats.bug_report && !log->stats.gzip_damaged && log->count == 3 * NLINES,
	   "bug report: gzip members, 3 x %zu Xid lines", NLINES);
	if (log && log->count == 3 * NLINES) {
		static const struct format_case kern = { "kern.log", CI_KLOG_FMT_SYSLOG, CI_KLOG_MONO_PRINTK,
							 CI_KLOG_WALL_LOCAL_NO_YEAR, 2, "gpuhost" };
		static const struct format_case journal = { "journal-short.log", CI_KLOG_FMT_SYSLOG, CI_KLOG_MONO_NONE,
							    CI_KLOG_WALL_LOCAL_NO_YEAR, 2, "gpuhost" };
		static const struct format_case dmesg = { "dmesg.log", CI_KLOG_FMT_DMESG, CI_KLOG_MONO_PRINTK,
							  CI_KLOG_WALL_NONE, 2, NULL };
		check_items("bug report kern.log", log, 0, &kern, false);
		check_items("bug report journal", log, NLINES, &journal, false);
		check_items("bug report dmesg", log, 2 * NLINES, &dmesg, false);
		bool parts = true, dups = true, lines_ok = true;
		for (size_t i = 0; i < 3 * NLINES; i++) {
			const struct ci_xid *x = &log->items[i];
			const char *want = i < NLINES ? "/var/log/kern.log" : i < 2 * NLINES ? "journalctl -b -0" : "dmesg";
			parts &= str_eq(x->part, want);
			if (i < NLINES)
				dups &= !(x->flags & CI_XID_DUPLICATE);
			else
				dups &= (x->flags & CI_XID_DUPLICATE) && x->duplicate_of == i % NLINES;
			/* The item's line number points at its raw line in the decompressed text. */
			const char *p = text;
			for (uint64_t l = 1; l < x->line && p; l++)
				p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
			lines_ok &= p && strncmp(p, x->raw, strlen(x->raw)) == 0 && p[strlen(x->raw)] == '\n';
		}
		ok(parts, "bug report: each line names its part");
		ok(dups, "bug report: the journal's and dmesg's copies are duplicates of kern.log's, in order");
		ok(lines_ok, "bug report: line numbers count the decompressed text");
		ok(log->stats.boot_segments == 1 && (log->items[2 * NLINES].flags & CI_XID_ONE_BOOT),
		   "bug report: dmesg's kernel start does not open a second boot");
	}
	ci_klog_destroy(log);
	/* Cut short, as a partial download: what inflated is kept. */
	log = parse_text((const char *)gz, gz_len * 2 / 3, NULL);
	ok(log && log->stats.gzip_damaged && log->count > 0 && log->count < 3 * NLINES,
	   "bug report cut at 2/3: damaged, %zu lines kept", log ? log->count : 0);
	ci_klog_destroy(log);
	/* The decompression cap stops reading. */
	struct ci_klog_options o = { .max_decompressed = 4096 };
	log = parse_text((const char *)gz, gz_len, &o);
	ok(log && log->stats.decompress_capped && log->stats.bytes <= 4096, "max_decompressed caps the inflated bytes");
	ci_klog_destroy(log);
	/* A bug report whose last line, a separator, has no newline; the bytes are not
	 * NUL-terminated (ASan builds see a read past them). */
	static const char tail[] = "Start of NVIDIA bug report log file\n____________________";
	char *exact = malloc(sizeof tail - 1);
	memcpy(exact, tail, sizeof tail - 1);
	log = parse_text(exact, sizeof tail - 1, NULL);
	ok(log && log->stats.bug_report && log->count == 0, "a bug report ending in a separator without a newline");
	ci_klog_destroy(log);
	free(exact);
	/* gzip magic and nothing that inflates. */
	static const unsigned char junk[] = { 0x1f, 0x8b, 0x08, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x03, 0x99, 0x99, 0x99 };
	struct ci_error *err = ci_klog_parse(junk, sizeof junk, NULL, &log);
	ok(err && err->code == CI_ERR_CORRUPT, "gzip that does not inflate: CI_ERR_CORRUPT");
	if (err)
		printf("# %s\n", err->message);
	ci_error_destroy(err);
	free(gz);
	free(text);
}

/* ---- corner cases of each format ------------------------------------------------------------ */

static const struct ci_xid *only(const struct ci_klog *log)
{
	return log && log->count == 1 ? &log->items[0] : NULL;
}

static void test_json(void)
{
	/* MESSAGE as journald writes text that is not clean UTF-8: an array of bytes.  Here
	 * "NVRM: Xid (PCI:0000:3b:00): 43, pid=7, Ch 00000001" with a 0xff byte at the end. */
	const char *msg = "NVRM: Xid (PCI:0000:3b:00): 43, pid=7, Ch 00000001";
	char line[2048];
	int n = snprintf(line, sizeof line, "{\"_BOOT_ID\":\"0B6E3C1F-5A2D-4E8F-9A7B-6C5D4E3F2A1B\",\"MESSAGE\":[");
	for (const char *p = msg; *p; p++)
		n += snprintf(line + n, sizeof line - (size_t)n, "%d,", (unsigned char)*p);
	snprintf(line + n, sizeof line - (size_t)n, "255],\"__MONOTONIC_TIMESTAMP\":\"77\"}\n");
	struct ci_klog *log = parse_str(line);
	const struct ci_xid *x = only(log);
	ok(x && x->xid == 43 && x->pid == 7 && x->has_channel && x->channel == 1 && x->body &&
	   strcmp(x->body, "Ch 00000001\xff") == 0 && x->time.mono_source == CI_KLOG_MONO_JOURNAL && x->time.mono_us == 77 &&
	   strcmp(x->boot_id, "0b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b") == 0,
	   "json: MESSAGE as a byte array; dashed upper-case _BOOT_ID; __MONOTONIC_TIMESTAMP without the source one");
	ci_klog_destroy(log);
	/* Escapes, extra fields of every JSON type, spaces, a name with a quote and a non-ASCII
	 * letter, and numbers as bare numbers. */
	log = parse_str("{ \"A\" : [1, {\"b\": [true, null, -2.5e3]}] , \"MESSAGE\" : \"NVRM: Xid (PCI:0000:3b:00): 31, pid=8, "
			"name=caf\\u00e9 \\\"x\\\", channel 0x00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC3 "
			"GPCCLIENT_T1_7 faulted @ 0x7f00_12345000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_ATOMIC\", "
			"\"__REALTIME_TIMESTAMP\": 1709633800000001, \"_HOSTNAME\": \"h\\/1\" }");
	x = only(log);
	ok(x && x->name && strcmp(x->name, "caf\xc3\xa9 \"x\"") == 0 && x->mmu.address == 0x7f0012345000ull &&
	   x->mmu.access == CI_XID_ACCESS_ATOMIC && x->mmu.gpc == 3 && x->time.wall == CI_KLOG_WALL_UTC &&
	   x->time.wall_us == 1709633800000001ll && x->host && strcmp(x->host, "h/1") == 0,
	   "json: escapes, nested values skipped, bare numbers");
	ci_klog_destroy(log);
	/* Broken objects are counted, not parsed; a JSON line without NVRM costs nothing. */
	log = parse_str("{\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 43, pid=1\n"
			"{\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 43, pid=1\",,}\n"
			"{\"MESSAGE\":[300]}\n"
			"{\"MESSAGE\":\"systemd-journald: started\",\"_BOOT_ID\":\"11111111111111111111111111111111\"}\n"
			"{\"MESSAGE\":\"x\",\"_BOOT_ID\":\"22222222222222222222222222222222\"}\n");
	ok(log && log->count == 0 && log->stats.json_bad == 3 && log->stats.boot_segments == 2,
	   "json: 3 broken objects counted, a boot id change opens a boot segment");
	ci_klog_destroy(log);
}

static void test_kmsg(void)
{
	/* A caller id field (newer kernels), an escaped byte, and continuation lines. */
	struct ci_klog *log = parse_str("4,1234,5678901,-,caller=T321;NVRM: Xid (PCI:0000:3b:00): 43, pid=99, name=a\\x5cb, "
					"channel 0x00000004\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n"
					"6,1235,5678999,c;NVRM: GPU at PCI:0000:3b:00: GPU-8a9c2d3e-1f2a-4b5c-8d7e-0f1e2d3c4b5a\n");
	const struct ci_xid *x = log && log->count == 1 ? &log->items[0] : NULL;
	ok(x && x->format == CI_KLOG_FMT_KMSG && x->time.mono_us == 5678901 && x->name && strcmp(x->name, "a\\b") == 0 &&
	   x->channel == 4 && log->gpu_count == 1 && strcmp(log->gpus[0].uuid, "GPU-8a9c2d3e-1f2a-4b5c-8d7e-0f1e2d3c4b5a") == 0 &&
	   log->gpus[0].pci.bus == 0x3b && log->gpus[0].line == 4,
	   "kmsg: extra header field, \\x escapes, continuation lines, the GPU UUID line");
	ci_klog_destroy(log);
}

/* Every format in one file, and the prefixes of dmesg -x, dmesg -r and Talos. */
static void test_mixed(void)
{
	static const char text[] =
		"[  12.000001] NVRM: Xid (PCI:0000:3b:00): 43, pid=1, Ch 00000001\n"
		"3,9,13000002,-;NVRM: Xid (PCI:0000:3b:00): 43, pid=2, Ch 00000001\n"
		"Mar  5 11:16:40 h kernel: NVRM: Xid (PCI:0000:3b:00): 43, pid=3, Ch 00000001\r\n"
		"{\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 43, pid=4, Ch 00000001\"}\n"
		"2024-03-05T10:16:40.5Z h kernel: NVRM: Xid (PCI:0000:3b:00): 43, pid=5, Ch 00000001\n"
		"kern  :warn  : [  14.000003] NVRM: Xid (PCI:0000:3b:00): 43, pid=6, Ch 00000001\n"
		"<4>[  15.000004] NVRM: Xid (PCI:0000:3b:00): 43, pid=7, Ch 00000001\n"
		"172.20.0.2: kern: warning: [2024-03-05T10:16:41.25Z]: NVRM: Xid (PCI:0000:3b:00): 43, pid=8, Ch 00000001\n"
		"Mar 05 11:16:40.123456 h kernel: NVRM: Xid (PCI:0000:3b:00): 43, pid=9, Ch 00000001\n"
		"some tool said: NVRM: Xid (PCI:0000:3b:00): 43, pid=10, Ch 00000001\n";
	static const enum ci_klog_format want[] = {
		CI_KLOG_FMT_DMESG, CI_KLOG_FMT_KMSG, CI_KLOG_FMT_SYSLOG, CI_KLOG_FMT_JOURNAL_JSON, CI_KLOG_FMT_ISO,
		CI_KLOG_FMT_DMESG, CI_KLOG_FMT_DMESG, CI_KLOG_FMT_ISO, CI_KLOG_FMT_SYSLOG, CI_KLOG_FMT_UNKNOWN,
	};
	struct ci_klog *log = parse_str(text);
	bool good = log && log->count == 10;
	for (size_t i = 0; good && i < 10; i++)
		good = log->items[i].format == want[i] && log->items[i].pid == i + 1 && log->items[i].line == i + 1;
	ok(good, "one file mixing ten prefixes: each line recognised on its own");
	if (good) {
		ok(log->items[0].time.mono_us == 12000001 && log->items[5].time.mono_us == 14000003 &&
		   log->items[6].time.mono_us == 15000004, "dmesg, dmesg -x and dmesg -r times");
		ok(log->items[4].time.wall_us == 1709633800500000ll && log->items[7].time.wall_us == 1709633801250000ll &&
		   log->items[7].host && strcmp(log->items[7].host, "172.20.0.2") == 0,
		   "ISO fractions and zone Z; Talos' node as the host");
		ok(log->items[8].time.wall_us == (Y2000_MAR5 + 11 * 3600 + 1000) * 1000000 + 123456 &&
		   strcmp(log->items[2].body, "Ch 00000001") == 0,
		   "journalctl short-precise fraction; CR of CRLF dropped");
		ok(log->items[9].time.mono_source == 0 && log->items[9].time.wall == 0, "unknown prefix: no time, Xid kept");
	}
	ci_klog_destroy(log);
}

static void test_malformed(void)
{
	/* Lines that name an Xid but have no readable PCI id or number are counted, not kept. */
	struct ci_klog *log = parse_str("NVRM: Xid (PCI:0000:\n"
					"NVRM: Xid (PCI:zz:00): 31, pid=1\n"
					"NVRM: Xid (PCI:0000:3b:00): , pid=1\n"
					"NVRM: Xid (PCI:0000:3b:00) 31\n"
					"NVRM: Xid (PCI:0000:3b:00): 99999999999, pid=1\n"
					"NVRM: Xid (PCI:0000:3b:00): 31\n");
	ok(log && log->count == 1 && log->stats.malformed == 5 && log->stats.xid_lines == 6 &&
	   log->items[0].xid == 31 && log->items[0].body[0] == 0 && (log->items[0].flags & CI_XID_BODY_PARTIAL),
	   "5 malformed Xid lines counted; a bare 'Xid 31' is kept with an empty, partial body");
	ci_klog_destroy(log);
	/* A body cut short (the driver caps it at 255 characters, logs get truncated). */
	log = parse_str("[ 1.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=12, name=python, channel 0x00000008, intr 00000000. "
			"MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_2 faulted @ 0x7f1f_619ff000. Fault is of ty\n"
			"[ 2.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=12, name=pyth");
	ok(log && log->count == 2 && log->items[0].mmu.has_address && log->items[0].mmu.address == 0x7f1f619ff000ull &&
	   !log->items[0].mmu.fault_type[0] && (log->items[0].flags & CI_XID_BODY_PARTIAL) &&
	   log->items[1].name && strcmp(log->items[1].name, "pyth") == 0 && !log->items[1].mmu.has_address &&
	   log->items[0].time.mono_us == 1000000,
	   "truncated Xid 31 bodies: what is there is parsed, the item says partial; no newline at the end");
	ci_klog_destroy(log);
	/* NUL bytes, a line over the cap, and the item cap. */
	char big[40000];
	memset(big, 'x', sizeof big);
	memcpy(big, "NVRM: Xid (PCI:0000:3b:00): 31", 30);
	big[sizeof big - 1] = '\n';
	char text[sizeof big + 512];
	size_t n = 0;
	memcpy(text + n, "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 43, pid=1\0, Ch 0\n", 52);
	n += 52;
	memcpy(text + n, big, sizeof big);
	n += sizeof big;
	n += (size_t)sprintf(text + n, "[ 3.0] NVRM: Xid (PCI:0000:3b:00): 43, pid=3, Ch 00000003\n");
	log = parse_text(text, n, NULL);
	ok(log && log->count == 2 && log->stats.lines_too_long == 1 && log->items[1].line == 3 && log->items[1].pid == 3 &&
	   log->items[0].pid == 1,
	   "a 40000-byte line is skipped and counted, line numbers go on; a NUL byte ends nothing");
	ci_klog_destroy(log);
	size_t len;
	char *dm = slurp("dmesg.log", &len);
	struct ci_klog_options o = { .max_items = 5 };
	log = parse_text(dm, len, &o);
	ok(log && log->count == 5 && log->stats.dropped == NLINES - 5 && log->stats.xid_lines == NLINES,
	   "max_items 5: 5 kept, %zu counted as dropped", NLINES - 5);
	ci_klog_destroy(log);
	o = (struct ci_klog_options){ .max_line = 100 };
	log = parse_text(dm, len, &o);
	/* Counted with awk: 60 lines of dmesg.log are over 100 bytes, 27 of them Xid lines. */
	ok(log && log->count == 5 && log->stats.lines_too_long == 60 && log->stats.xid_lines == 5,
	   "max_line 100: the 60 longer lines skipped and counted");
	if (log && log->count != 5)
		printf("# %zu items, %" PRIu64 " too long\n", log->count, log->stats.lines_too_long);
	ci_klog_destroy(log);
	free(dm);
	log = parse_text(NULL, 0, NULL);
	ok(log && log->count == 0 && log->stats.lines == 0, "empty input: no items, no error");
	ci_klog_destroy(log);
}

static void test_prefix_eras(void)
{
	/* MIG instance ids (synthetic line in the documented prefix grammar), an unknown Xid, a
	 * 5-digit PCI domain, a decimal "ch", and the catalog. */
	struct ci_klog *log = parse_str(
		"NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:02): 31, pid=4242, name=vllm_worker, channel 0x00000010, intr "
		"00000000. MMU Fault: ENGINE GR1 GPC0 TPC3 GPCCLIENT_T1_1 faulted @ 0x7fe0_00001000. Fault is of type "
		"FAULT_PDE ACCESS_TYPE_PHYS_WRITE\n"
		"NVRM: Xid (PCI:0000:3b:00): 999, pid=4242, name=vllm_worker, Something new: 0x1234\n"
		"NVRM: Xid (PCI:10000:01:00): 43, pid=1, ch 12\n"
		"NVRM: Xid (PCI:0000:3b:00): 31, pid=1, channel 0x00000001, intr 00000000. MMU Fault: ENGINE CE3 "
		"HUBCLIENT_CE1 faulted @ 0x7f0012345000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_WRITE\n");
	const struct ci_xid *x = log && log->count == 4 ? log->items : NULL;
	ok(x && x[0].gpu_instance == 1 && x[0].compute_instance == 2 && x[0].pci.bus == 0x3b && x[0].mmu.tpc == 3 &&
	   x[0].mmu.gpc == 0 && strcmp(x[0].mmu.engine, "GR1") == 0 && x[0].mmu.unit == CI_XID_UNIT_SM && x[0].mmu.physical &&
	   x[0].mmu.access == CI_XID_ACCESS_WRITE,
	   "MIG GPU-I/GPU-CI ids, GR1 engine, TPC token, physical access");
	ok(x && x[1].xid == 999 && strcmp(x[1].body, "Something new: 0x1234") == 0 && !ci_xid_describe(999),
	   "an unknown Xid keeps its number and body");
	ok(x && x[2].pci.domain == 0x10000 && x[2].channel == 12, "5-digit PCI domain; 'ch 12' is decimal");
	ok(x && x[3].mmu.address == 0x7f0012345000ull && !x[3].mmu.address_split && x[3].mmu.unit == CI_XID_UNIT_COPY,
	   "a plain hex fault address; CE3 is a copy engine");
	ci_klog_destroy(log);
	static const uint32_t known[] = { 13, 31, 43, 45, 48, 63, 64, 74, 79, 94, 95, 109, 119, 120, 154 };
	bool all = true;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		const struct ci_xid_kind *k = ci_xid_describe(known[i]);
		all &= k && k->xid == known[i] && k->meaning && k->meaning[0] && k->category != CI_XID_CAT_UNKNOWN;
	}
	ok(all, "the catalog describes 13 31 43 45 48 63 64 74 79 94 95 109 119 120 154");
	ok(ci_xid_describe(31)->category == CI_XID_CAT_APP && ci_xid_describe(79)->category == CI_XID_CAT_HARDWARE &&
	   ci_xid_describe(45)->category == CI_XID_CAT_TEARDOWN && ci_xid_describe(154)->category == CI_XID_CAT_RECOVERY &&
	   ci_xid_describe(119)->category == CI_XID_CAT_DRIVER && !ci_xid_describe(149) && !ci_xid_describe(0),
	   "categories; 149 and 0 are unknown");
	struct ci_klog_pci p;
	ok(ci_klog_pci_parse("0000:3B:00.0", &p) && p.domain == 0 && p.bus == 0x3b && p.device == 0 &&
	   ci_klog_pci_parse("00000001:3b:1f.3", &p) && p.domain == 1 && p.device == 0x1f && ci_klog_pci_parse("3b:00.0", &p) &&
	   p.bus == 0x3b && ci_klog_pci_parse("0000:3b:00", &p) && !ci_klog_pci_parse("3b", &p) &&
	   !ci_klog_pci_parse("0000:3b:00.0x", &p) && !ci_klog_pci_parse("0000:3b:100", &p) && !ci_klog_pci_parse("", &p),
	   "bus id forms: cuDeviceGetPCIBusId, nvidia-smi, short, Xid; junk refused");
}

/* ---- selection ---------------------------------------------------------------------------------- */

/* A scenario log (synthetic lines in the grammar of the real ones), dmesg format; the
 * process is pid 4242 on 0000:3B:00.0, alive from 99 s to 120 s after boot. */
static const char scenario[] =
	/* 0 */ "[  100.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=vllm_engine, channel 0x00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_2 faulted @ 0x7f1f_619ff000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 1 */ "[  100.500000] NVRM: Xid (PCI:0000:3b:00): 31, pid=999, name=other_proc, channel 0x00000020, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 2 */ "[  101.000000] NVRM: Xid (PCI:0000:5e:00): 31, pid=5555, name=vllm_engine, channel 0x00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00001000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 3 */ "[  102.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=31337, name=vllm_engine, channel 0x00000011, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00002000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 4 */ "[  103.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 2, SM 0): Out Of Range Address\n"
	/* 5 */ "[  103.000001] NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception: ESR 0x50e730=0x101000e 0x50e734=0x4 0x50e728=0x1f81fb60 0x50e72c=0x1174\n"
	/* 6 */ "[  103.200000] NVRM: Xid (PCI:0000:3b:00): 43, pid=4242, name=vllm_engine, channel 0x00000010\n"
	/* 7 */ "[  104.000000] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Illegal Instruction Encoding\n"
	/* 8 */ "[  104.100000] NVRM: Xid (PCI:0000:3b:00): 43, pid=999, name=other_proc, channel 0x00000020\n"
	/* 9 */ "[  105.500000] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
	/* 10 */ "[  107.000000] NVRM: Xid (PCI:0000:3b:00 GPU-I:01 GPU-CI:00): 31, pid=4242, channel 0x00000012, intr 00000000. MMU Fault: ENGINE GR1 GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00003000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 11 */ "[  108.000000] NVRM: Xid (PCI:0000:3b:00): 45, pid=4242, name=vllm_engine, Ch 00000010 caused by previous Xid 31\n"
	/* 12 */ "[  108.500000] NVRM: Xid (PCI:0000:3b:00): 999, pid=4242, Unheard of\n"
	/* 13 */ "[  110.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid='<unknown>', name=<unknown>, Ch 00000013, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f00_00004000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 14 */ "[  500.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=vllm_engine, channel 0x00000010, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f00_00005000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
	/* 15 */ "[  111.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=vllm_engine_wit, channel 0x00000010\n";

struct sel_want {
	bool belongs;
	int rule_or_reject;
	size_t companion;
};
#define YES(r) { true, CI_KLOG_RULE_##r, SIZE_MAX }
#define NOT(r) { false, CI_KLOG_REJECT_##r, SIZE_MAX }

static void check_select(const char *what, const struct ci_klog *log, const struct ci_klog_process *p,
			 const struct sel_want *w, size_t n)
{
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, p, &m);
	if (!ok(!err && m && log->count == n, "%s: selected", what)) {
		ci_error_destroy(err);
		free(m);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool good = m[i].belongs == w[i].belongs &&
			    (w[i].belongs ? (int)m[i].rule == w[i].rule_or_reject : (int)m[i].reject == w[i].rule_or_reject) &&
			    (w[i].companion == SIZE_MAX || m[i].companion == w[i].companion);
		if (!ok(good, "%s: line %zu %s (%s)", what, i, w[i].belongs ? "belongs" : "does not belong",
			w[i].belongs ? ci_klog_rule_name((enum ci_klog_rule)w[i].rule_or_reject)
				     : ci_klog_reject_name((enum ci_klog_reject)w[i].rule_or_reject)))
			printf("# got belongs=%d rule=%s reject=%s companion=%zu\n", m[i].belongs, ci_klog_rule_name(m[i].rule),
			       ci_klog_reject_name(m[i].reject), m[i].companion);
	}
	free(m);
}

static void test_select(void)
{
	struct ci_klog *log = parse_str(scenario);
	if (!ok(log && log->count == 16, "scenario: 16 Xid lines")) {
		ci_klog_destroy(log);
		return;
	}
	ok(log->items[10].gpu_instance == 1 && log->items[10].compute_instance == 0 && log->items[11].caused_by == 31 &&
	   strcmp(log->items[11].body, "Ch 00000010") == 0 && log->items[15].name &&
	   strcmp(log->items[15].name, "vllm_engine_wit") == 0,
	   "scenario: MIG ids, caused-by suffix, a comm cut to 15 bytes");
	static const char *const names[] = { "vllm_engine" };
	static const char *const long_names[] = { "vllm_engine_with_a_long_name" };
	static const char *const pcis[] = { "0000:3B:00.0" };
	struct ci_klog_process host = {
		.pid = 4242, .names = names, .name_count = 1, .pci_bus_ids = pcis, .pci_count = 1,
		.has_mono = true, .mono_from_us = 99000000, .mono_to_us = 120000000,
	};
	/* Line 3 has the process's name and another pid inside the window: with the process's own
	 * pid in the log (lines 0, 6, 10...), it is another process of that name. */
	static const struct sel_want w_host[16] = {
		YES(PID), NOT(PID), NOT(GPU), NOT(NOT_OWN), { true, CI_KLOG_RULE_COMPANION, 6 },
		{ true, CI_KLOG_RULE_COMPANION, 6 }, YES(PID), { false, CI_KLOG_REJECT_COMPANION, 8 }, NOT(PID),
		YES(GPU_TIME), YES(PID), YES(PID), YES(PID), YES(GPU_TIME), NOT(TIME), YES(PID),
	};
	check_select("host pid", log, &host, w_host, 16);
	/* The core was taken inside a container: pid 17 there, the log has host pids. */
	struct ci_klog_process container = host;
	container.pid = 17;
	static const struct sel_want w_container[16] = {
		YES(NAME_TIME), NOT(PID), NOT(GPU), YES(NAME_TIME), { true, CI_KLOG_RULE_COMPANION, 6 },
		{ true, CI_KLOG_RULE_COMPANION, 6 }, YES(NAME_TIME), NOT(COMPANION), NOT(PID), YES(GPU_TIME), NOT(PID),
		YES(NAME_TIME), NOT(PID), YES(GPU_TIME), NOT(TIME), NOT(PID),
	};
	check_select("container pid", log, &container, w_container, 16);
	/* Known by its host pid (NSpid) too: pid rules again. */
	container.host_pid = 4242;
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, &container, &m);
	ok(!err && m[0].rule == CI_KLOG_RULE_PID && m[10].rule == CI_KLOG_RULE_PID && m[12].belongs,
	   "container pid with its host pid: matched by pid");
	ci_error_destroy(err);
	free(m);
	/* No window: time cannot narrow, so name and GPU matches stay unproven; companions need no
	 * window (their nearness is within the log). */
	struct ci_klog_process no_time = host;
	no_time.has_mono = false;
	static const struct sel_want w_no_time[16] = {
		YES(PID), NOT(PID), NOT(GPU), NOT(PID), { true, CI_KLOG_RULE_COMPANION, 6 },
		{ true, CI_KLOG_RULE_COMPANION, 6 }, YES(PID), NOT(COMPANION), NOT(PID), NOT(UNPROVEN), YES(PID),
		YES(PID), YES(PID), NOT(UNPROVEN), YES(PID), YES(PID),
	};
	check_select("no time window", log, &no_time, w_no_time, 16);
	/* Devices unknown: nothing is rejected for its GPU, and a GPU cannot prove a line. */
	struct ci_klog_process no_gpu = host;
	no_gpu.pci_count = 0;
	static const struct sel_want w_no_gpu[16] = {
		YES(PID), NOT(PID), NOT(NOT_OWN), NOT(NOT_OWN), { true, CI_KLOG_RULE_COMPANION, 6 },
		{ true, CI_KLOG_RULE_COMPANION, 6 }, YES(PID), NOT(COMPANION), NOT(PID), NOT(UNPROVEN), YES(PID),
		YES(PID), YES(PID), NOT(UNPROVEN), NOT(TIME), YES(PID),
	};
	check_select("devices unknown", log, &no_gpu, w_no_gpu, 16);
	/* The comm is cut at 15 bytes in the kernel: a longer name matches its first 15 only. */
	struct ci_klog_process long_name = container;
	long_name.host_pid = 0;
	long_name.names = long_names;
	err = ci_klog_select(log, &long_name, &m);
	ok(!err && m[15].belongs && m[15].rule == CI_KLOG_RULE_NAME_TIME && !m[0].belongs && m[0].reject == CI_KLOG_REJECT_PID,
	   "a 28-byte process name matches the kernel's 15-byte comm 'vllm_engine_wit', not 'vllm_engine'");
	ci_error_destroy(err);
	free(m);
	/* Slack widens the window: line 14 at 500 s joins with 400 s of slack. */
	struct ci_klog_process slack = host;
	slack.slack_us = 400000000;
	err = ci_klog_select(log, &slack, &m);
	ok(!err && m[14].belongs && m[14].rule == CI_KLOG_RULE_PID && m[14].basis == CI_KLOG_BASIS_MONO && m[14].in_window,
	   "slack widens the window");
	ci_error_destroy(err);
	free(m);
	ci_klog_destroy(log);
}

/* The Xid lines of the first H200 run (fixtures/xid-lines-h200-580.159.04.txt: 16 runs' Xid 31
 * and 43 lines, several processes of one name, among 396 Xid 13 lines): for every run, as the
 * run's own record would describe it (its pid, its name, a window from its start, its first
 * sticky error just after its own line), its own lines are chosen and every other run's line of
 * the same name in the window is rejected, and why: with its pid in the log (not_own, or
 * before_start when stamped before it started), and as a container's process knows itself
 * (another pid: the log has host pids), by time alone (before_start, farther). */
static void test_select_h200(void)
{
	size_t len = 0;
	char *text = slurp("xid-lines-h200-580.159.04.txt", &len);
	struct ci_klog *log = parse_text(text, len, NULL);
	free(text);
	if (!ok(log && log->count == 413, "H200 lines: 413 Xid lines (16 Xid 31, 1 Xid 43, 396 Xid 13)")) {
		ci_klog_destroy(log);
		return;
	}
	size_t runs = 0, own_ok = 0, others_ok = 0, container_ok = 0, rejected = 0, before = 0;
	for (size_t i = 0; i < log->count; i++) {
		const struct ci_xid *run = &log->items[i];
		if (run->pid_form != CI_XID_PID_NUMBER || !run->name || (run->xid != 31 && run->xid != 43))
			continue;
		runs++;
		const char *names[] = { run->name };
		uint64_t t = run->time.mono_us;
		/* Started 2 s before its fault (imports, a model's load), window to 1 s after. */
		struct ci_klog_process p = {
			.pid = run->pid, .names = names, .name_count = 1, .has_mono = true,
			.mono_from_us = t - 1500000, .mono_to_us = t + 1000000, .slack_us = 10000000,
			.start_mono_us = t - 2000000, .sticky_mono_us = t + 100000,
		};
		for (int container = 0; container < 2; container++) {
			if (container)
				p.pid = 7; /* the log names it by its host pid, which it does not know */
			struct ci_klog_match *m = NULL;
			struct ci_error *err = ci_klog_select(log, &p, &m);
			bool own = !err, others = !err;
			for (size_t j = 0; !err && j < log->count; j++) {
				const struct ci_xid *x = &log->items[j];
				if (x->pid_form != CI_XID_PID_NUMBER)
					continue;
				if (x->pid == run->pid) {
					own = own && m[j].belongs;
				} else {
					others = others && !m[j].belongs;
					bool same_name = x->name && !strcmp(x->name, run->name);
					if (same_name && m[j].reject != CI_KLOG_REJECT_TIME)
						rejected++;
					if (same_name && m[j].reject == CI_KLOG_REJECT_BEFORE_START)
						before++;
					if (same_name && m[j].reject != CI_KLOG_REJECT_TIME &&
					    m[j].reject != CI_KLOG_REJECT_NOT_OWN &&
					    m[j].reject != CI_KLOG_REJECT_BEFORE_START &&
					    m[j].reject != CI_KLOG_REJECT_FARTHER)
						others = false;
				}
			}
			if (!container) {
				own_ok += own;
				others_ok += others;
			} else {
				container_ok += own && others;
			}
			ci_error_destroy(err);
			free(m);
		}
	}
	ok(runs == 17, "H200 lines: 17 runs' own Xid 31/43 lines (%zu)", runs);
	ok(own_ok == runs, "H200 lines: every run's own lines chosen by its pid (%zu of %zu)", own_ok, runs);
	ok(others_ok == runs, "H200 lines: no other run's line chosen, each rejected for a reason (%zu of %zu)",
	   others_ok, runs);
	ok(container_ok == runs, "H200 lines, in a container (host pids in the log): every run's own lines "
	   "chosen by time, the others rejected (%zu of %zu)", container_ok, runs);
	ok(rejected > 0 && before > 0, "H200 lines: %zu earlier same-name lines rejected inside the window "
	   "(%zu of them as stamped before the process started)", rejected, before);
	/* The case the first report got wrong: pid 794's crash with pid 756's line 6 s before it. */
	const char *py[] = { "python3" };
	struct ci_klog_process p794 = {
		.pid = 794, .names = py, .name_count = 1, .has_mono = true, .mono_from_us = 84000000,
		.mono_to_us = 86000000, .slack_us = 10000000, .start_mono_us = 81000000,
		.sticky_mono_us = 85400000,
	};
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, &p794, &m);
	ok(!err && m[1].belongs && m[1].rule == CI_KLOG_RULE_PID && !m[0].belongs &&
	   m[0].reject == CI_KLOG_REJECT_NOT_OWN,
	   "pid 794: its own line (pid) chosen, pid 756's of 6 s earlier rejected: not its own");
	ci_error_destroy(err);
	free(m);
	p794.pid = 12; /* in a container */
	err = ci_klog_select(log, &p794, &m);
	ok(!err && m[1].belongs && m[1].rule == CI_KLOG_RULE_NAME_TIME && !m[0].belongs &&
	   m[0].reject == CI_KLOG_REJECT_BEFORE_START,
	   "pid 794 in a container: its line chosen by name and time, pid 756's stamped before it started");
	ci_error_destroy(err);
	free(m);
	ci_klog_destroy(log);
}

/* One fault, many lines (ci_klog_group): on the H200, pid 979's Xid 43 and, 6 s later, a burst
 * of 396 Xid 13 lines without a pid (632 ms) on the same GPU; with a window over both and the
 * GPU known, the 397 lines of the process make two events, the burst one of them; pid 1045's
 * Xid 31 after it is not the process's and in no event. */
static void test_group_h200(void)
{
	size_t len = 0;
	char *text = slurp("xid-lines-h200-580.159.04.txt", &len);
	struct ci_klog *log = parse_text(text, len, NULL);
	free(text);
	if (!ok(log != NULL, "H200 events: parsed"))
		return;
	const char *py[] = { "python3" }, *gpu[] = { "0000:00:06.0" };
	struct ci_klog_process p = {
		.pid = 979, .names = py, .name_count = 1, .pci_bus_ids = gpu, .pci_count = 1,
		.has_mono = true, .mono_from_us = 139000000, .mono_to_us = 147000000, .slack_us = 1000000,
	};
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, &p, &m);
	if (!ok(!err, "H200 events: selected")) {
		ci_error_destroy(err);
		ci_klog_destroy(log);
		return;
	}
	size_t belongs = 0, xid43 = SIZE_MAX, thirteen = 0, thirteen_event = SIZE_MAX, mixed = 0;
	size_t events = ci_klog_group(log, m), other31 = SIZE_MAX;
	for (size_t i = 0; i < log->count; i++) {
		const struct ci_xid *x = &log->items[i];
		belongs += m[i].belongs;
		if (x->xid == 43 && m[i].belongs)
			xid43 = m[i].event;
		if (x->xid == 13 && m[i].belongs) {
			thirteen++;
			mixed += thirteen_event != SIZE_MAX && m[i].event != thirteen_event;
			thirteen_event = m[i].event;
		}
		if (x->xid == 31 && x->pid == 1045)
			other31 = m[i].belongs ? 0 : m[i].event;
	}
	is_int(belongs, 397, "H200 events: the Xid 43 and the 396 Xid 13 lines are the process's");
	is_int(events, 2, "H200 events: they make two events");
	ok(xid43 == 0 && thirteen == 396 && thirteen_event == 1 && mixed == 0,
	   "H200 events: the Xid 43 is event 0, the whole burst event 1");
	ok(other31 == SIZE_MAX, "H200 events: pid 1045's Xid 31 is in no event");
	uint64_t gap = ci_klog_gap_us(&log->items[5], &log->items[400]);
	ok(gap != UINT64_MAX && gap < 1000000, "H200 events: the burst spans under a second (%llu us)",
	   (unsigned long long)gap);
	free(m);
	ci_klog_destroy(log);
}

/* Events without the H200: another GPU splits, a pause longer than 2 s splits, lines without
 * a time are one event only when next to each other in the log. */
static void test_group_rules(void)
{
	static const char text[] =
		"[  10.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=42, name=eng, channel 0x0000000a, intr 0. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_4 faulted @ 0x7f00_00001000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
		"[  10.001000] NVRM: Xid (PCI:0000:3b:00): 31, pid=42, name=eng, channel 0x0000000a, intr 0. MMU Fault: ENGINE GRAPHICS GPC6 GPCCLIENT_T1_4 faulted @ 0x7f00_00001000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
		"[  10.002000] NVRM: Xid (PCI:0000:86:00): 31, pid=42, name=eng, channel 0x0000000a, intr 0. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_4 faulted @ 0x7f00_00002000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
		"[  10.500000] NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=eng, channel 0x0000000a\n"
		"[  13.000000] NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=eng, channel 0x0000000b\n"
		"NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=eng, channel 0x0000000c\n"
		"NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=eng, channel 0x0000000d\n"
		"NVRM: Xid (PCI:0000:3b:00): 43, pid=77, name=other, channel 0x0000000e\n"
		"NVRM: Xid (PCI:0000:3b:00): 43, pid=42, name=eng, channel 0x0000000f\n";
	struct ci_klog *log = parse_text(text, sizeof text - 1, NULL);
	if (!ok(log && log->count == 9, "group rules: 9 lines")) {
		ci_klog_destroy(log);
		return;
	}
	const char *names[] = { "eng" };
	struct ci_klog_process p = { .pid = 42, .names = names, .name_count = 1 };
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, &p, &m);
	if (!ok(!err, "group rules: selected")) {
		ci_error_destroy(err);
		ci_klog_destroy(log);
		return;
	}
	size_t events = ci_klog_group(log, m);
	char got[64] = "";
	for (size_t i = 0; i < log->count; i++) {
		size_t k = strlen(got);
		if (m[i].event == SIZE_MAX)
			snprintf(got + k, sizeof got - k, "%s-", i ? " " : "");
		else
			snprintf(got + k, sizeof got - k, "%s%zu", i ? " " : "", m[i].event);
	}
	is_str(got, "0 0 1 0 2 2 2 - 3", "group rules: GPC1+GPC6 and the Xid 43 0.5 s later are one "
	       "event (the other GPU's line between is another), 2.5 s later another, time-less "
	       "neighbours join it, another process's line between splits");
	is_int(events, 4, "group rules: 4 events");
	free(m);
	ci_klog_destroy(log);
}

static void test_select_clocks(void)
{
	size_t len;
	/* Boot ids: the journal says which boot each line is from. */
	char *text = slurp("journal.json", &len);
	struct ci_klog *log = parse_text(text, len, NULL);
	free(text);
	struct ci_klog_process p = { .pid = 13641, .boot_id = "0b6e3c1f-5a2d-4e8f-9a7b-6c5d4e3f2a1c",
				     .has_mono = true, .mono_from_us = 0, .mono_to_us = UINT64_MAX / 2 };
	struct ci_klog_match *m = NULL;
	struct ci_error *err = ci_klog_select(log, &p, &m);
	bool all_boot = !err && log->count == NLINES;
	for (size_t i = 0; all_boot && i < NLINES; i++)
		all_boot = !m[i].belongs && m[i].reject == CI_KLOG_REJECT_BOOT;
	ok(all_boot, "journal lines of another boot: rejected for the boot");
	free(m);
	/* Same boot, a wall-clock window of one second around line 2 (pid 13641). */
	p.boot_id = "0b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b";
	p.has_mono = false;
	p.has_wall = true;
	p.wall_from_us = (BOOT + mono_s(2)) * 1000000 - 500000;
	p.wall_to_us = (BOOT + mono_s(2)) * 1000000 + 500000;
	err = ci_klog_select(log, &p, &m);
	ok(!err && m[2].belongs && m[2].rule == CI_KLOG_RULE_PID && m[2].basis == CI_KLOG_BASIS_WALL_UTC &&
	   !m[1].belongs && m[1].reject == CI_KLOG_REJECT_TIME && m[3].reject == CI_KLOG_REJECT_TIME,
	   "journal __REALTIME_TIMESTAMP against a wall-clock window");
	free(m);
	ci_klog_destroy(log);
	/* Local times without a zone (dmesg -T, syslog without a year). */
	const char *files[] = { "dmesg-T.log", "syslog.log" };
	for (int f = 0; f < 2; f++) {
		text = slurp(files[f], &len);
		log = parse_text(text, len, NULL);
		free(text);
		struct ci_klog_process q = { .pid = 13641, .has_wall = true,
					     .wall_from_us = (BOOT + mono_s(2)) * 1000000 - 2000000,
					     .wall_to_us = (BOOT + mono_s(2)) * 1000000 + 2000000,
					     .has_utc_offset = true, .utc_offset_s = 3600 };
		err = ci_klog_select(log, &q, &m);
		ok(!err && m[2].belongs && m[2].basis == CI_KLOG_BASIS_WALL_LOCAL && m[1].reject == CI_KLOG_REJECT_TIME &&
		   m[3].reject == CI_KLOG_REJECT_TIME,
		   "%s: local time with the host's offset narrows to the second", files[f]);
		free(m);
		q.utc_offset_s = 0; /* the wrong offset: an hour off, every line is outside */
		err = ci_klog_select(log, &q, &m);
		ok(!err && m[2].reject == CI_KLOG_REJECT_TIME, "%s: with a wrong offset the line falls outside", files[f]);
		free(m);
		q.has_utc_offset = false; /* any zone: ±14 h keeps them all in */
		err = ci_klog_select(log, &q, &m);
		ok(!err && m[2].belongs && m[2].basis == CI_KLOG_BASIS_WALL_ANY_ZONE && m[1].reject == CI_KLOG_REJECT_PID &&
		   m[3].reject == CI_KLOG_REJECT_PID,
		   "%s: zone unknown: ±14 h, lines of other pids rejected by pid", files[f]);
		free(m);
		ci_klog_destroy(log);
	}
	/* A year-less date at the turn of the year: Dec 31 in the log, Jan 1 in the window. */
	log = parse_str("Dec 31 23:59:58 h kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 00000001\n"
			"Feb 29 12:00:00 h kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 00000001\n");
	struct ci_klog_process ny = { .pid = 7, .has_wall = true, .wall_from_us = 1735689600ll * 1000000 - 5000000,
				      .wall_to_us = 1735689600ll * 1000000 + 5000000, .has_utc_offset = true };
	err = ci_klog_select(log, &ny, &m);
	ok(!err && log->count == 2 && m[0].belongs && m[1].reject == CI_KLOG_REJECT_TIME,
	   "RFC 3164 time without a year: Dec 31 23:59:58 fits a window around 2025-01-01; Feb 29 does not");
	free(m);
	ci_klog_destroy(log);
	/* Without boot ids, a dmesg with two kernel starts cannot be compared by monotonic time. */
	log = parse_str("[    0.000000] Linux version 6.1.0\n[  100.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 01\n"
			"[    0.000000] Linux version 6.1.0\n[  100.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 02\n");
	struct ci_klog_process mono = { .pid = 7, .has_mono = true, .mono_from_us = 0, .mono_to_us = 1 };
	err = ci_klog_select(log, &mono, &m);
	ok(!err && log->count == 2 && log->stats.boot_segments == 2 && !(log->items[0].flags & CI_XID_ONE_BOOT) &&
	   log->items[0].boot_seq == 0 && log->items[1].boot_seq == 1 && m[0].belongs && m[0].basis == CI_KLOG_BASIS_NONE,
	   "two kernel starts in one dmesg: two boots, monotonic times not compared");
	free(m);
	ci_klog_destroy(log);
	log = parse_str("-- Boot 0b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b --\n"
			"[  100.000000] h kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 01\n"
			"-- Boot 1b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b --\n"
			"[  100.000000] h kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=7, Ch 02\n");
	mono.boot_id = "1b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b";
	mono.mono_to_us = 200000000;
	err = ci_klog_select(log, &mono, &m);
	ok(!err && log->count == 2 && strcmp(log->items[1].boot_id, "1b6e3c1f5a2d4e8f9a7b6c5d4e3f2a1b") == 0 &&
	   m[0].reject == CI_KLOG_REJECT_BOOT && m[1].belongs && m[1].basis == CI_KLOG_BASIS_MONO,
	   "journalctl -- Boot ID -- markers give each line its boot");
	free(m);
	ci_klog_destroy(log);
	/* No process at all: nothing belongs, and nothing crashes. */
	log = parse_str(scenario);
	err = ci_klog_select(log, NULL, &m);
	bool none = !err;
	for (size_t i = 0; none && i < log->count; i++)
		none = !m[i].belongs;
	ok(none, "an unknown process: no line belongs");
	free(m);
	m = NULL;
	err = ci_klog_select(NULL, NULL, &m);
	ok(!err && m, "no log at all: an empty answer");
	free(m);
	ci_klog_destroy(log);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-kernel-log FIXTURE_DIR\n");
		return 2;
	}
	dir = argv[1];
	test_formats();
	test_bug_report();
	test_json();
	test_kmsg();
	test_mixed();
	test_malformed();
	test_prefix_eras();
	test_select();
	test_select_h200();
	test_group_h200();
	test_group_rules();
	test_select_clocks();
	printf("1..%d\n", tap_n);
	return done_testing();
}
