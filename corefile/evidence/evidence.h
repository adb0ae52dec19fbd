/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: stage 4, evidence (corefile/evidence/).  What the diagnosis and
 * the renderers read of the evidence beyond the public struct ci_evidence (gather.c,
 * evidence_klog.c), and the kernel-log parser (kernel_log.c), which its unit tests and fuzzer
 * link alone.
 */
#ifndef CI_EVIDENCE_H
#define CI_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"
#include "model/model.h"

/* Whether a launch made at TIME_NS whose call failed can be the one behind EV's last error. */
static inline bool ci_evidence_failed_launch_at(const struct ci_evidence *ev, uint64_t time_ns)
{
	return ev->failed_launch_window && time_ns <= ev->failed_launch_to &&
	       time_ns >= ev->failed_launch_from;
}

struct ci_xid;
/* One line for an Xid: "Xid 31 at 0x7f1f_619ff000, FAULT_PDE read, GPC1 GPCCLIENT_T1_3" (the
 * address as the driver prints it), "Xid 43 (...): ...".  Strings from the log are scrubbed. */
void ci_xid_summary(const struct ci_xid *x, char *buf, size_t n);


/* ---------------------------------------------------------------------------------------- */
/* The kernel-log parser (kernel_log.c)                                                       */

/* The NVIDIA driver's Xid lines in a kernel log: parse them out of whatever form the log takes,
 * and say which of them belong to a crashed process.  Private to the reader (the evidence stage
 * calls it); not part of include/cudainspect/cudainspect.h.  docs/KERNEL-LOG.md describes the
 * formats, the fields, the selection rules and the sources of the fixtures.
 *
 * Input is a byte buffer the caller read or mapped: dmesg (with or without -T, --time-format=iso,
 * -x, -r), /dev/kmsg records, journalctl -k (short, short-monotonic, short-iso[-precise], json),
 * syslog files (RFC 3164 kern.log with or without the kernel's bracketed time, RFC 3339 as rsyslog
 * writes it, RFC 5424), or a gzip'ed nvidia-bug-report.log.gz.  Every line is recognised on its
 * own, so files that mix formats parse.  Nothing in the input is trusted: lines and items are
 * capped and what is dropped is counted; the work is linear in the input.
 *
 * Ownership: ci_klog_parse returns a struct ci_klog that owns every string its items point to;
 * ci_klog_destroy frees it (NULL is fine).  The input buffer may be freed once parse returns.
 * Strings from the log (raw, message, name, body, host...) are untrusted text: scrub them of
 * control characters before printing them to a terminal.
 */
struct ci_error;

/* ---------------------------------------------------------------------------------------- */
/* What a line looked like                                                                    */

/* Line formats: enum value, short name, what it is. */
#define CI_KLOG_FORMATS(X)                                                                        \
	X(CI_KLOG_FMT_UNKNOWN, "unknown", "no recognised prefix (the Xid is parsed, there is no time)") \
	X(CI_KLOG_FMT_DMESG, "dmesg", "dmesg: [seconds.micro] since boot")                          \
	X(CI_KLOG_FMT_DMESG_CTIME, "dmesg-T", "dmesg -T: [Www Mmm dd hh:mm:ss yyyy], local time")   \
	X(CI_KLOG_FMT_DMESG_ISO, "dmesg-iso", "dmesg --time-format=iso: ISO 8601 with zone")        \
	X(CI_KLOG_FMT_KMSG, "kmsg", "/dev/kmsg record: prio,seq,usec,flags;text")                    \
	X(CI_KLOG_FMT_SYSLOG, "syslog",                                                             \
	  "Mmm dd hh:mm:ss host kernel: (journalctl short, RFC 3164 kern.log), local time, no year") \
	X(CI_KLOG_FMT_JOURNAL_MONOTONIC, "journal-monotonic",                                       \
	  "journalctl -o short-monotonic: [seconds.micro] host kernel:")                             \
	X(CI_KLOG_FMT_ISO, "iso",                                                                    \
	  "ISO 8601 time host kernel: (journalctl short-iso[-precise], rsyslog RFC 3339)")           \
	X(CI_KLOG_FMT_RFC5424, "rfc5424", "RFC 5424: <pri>1 ISO-time host kernel - - - text")        \
	X(CI_KLOG_FMT_JOURNAL_JSON, "journal-json", "journalctl -o json: one object per line")

enum ci_klog_format {
#define CI_KLOG_FORMAT_ENUM(e, name, what) e,
	CI_KLOG_FORMATS(CI_KLOG_FORMAT_ENUM)
#undef CI_KLOG_FORMAT_ENUM
	CI_KLOG_FMT_COUNT
};
const char *ci_klog_format_name(enum ci_klog_format f);

/* Where a monotonic time came from.  Both count from boot and stop during suspend; the printk
 * clock is the kernel's own stamp of the message, the journal's is when journald received it. */
enum ci_klog_mono_source {
	CI_KLOG_MONO_NONE = 0,
	CI_KLOG_MONO_PRINTK,   /* dmesg [s.us], kmsg usec, syslog "kernel: [s.us]", _SOURCE_MONOTONIC_TIMESTAMP */
	CI_KLOG_MONO_JOURNAL,  /* __MONOTONIC_TIMESTAMP, journalctl -o short-monotonic */
};

/* What a wall-clock time is. */
enum ci_klog_wall {
	CI_KLOG_WALL_NONE = 0,
	CI_KLOG_WALL_UTC,           /* exact: zone given (ISO with offset, journal __REALTIME_TIMESTAMP) */
	CI_KLOG_WALL_LOCAL,         /* the logging host's local time, zone not given (dmesg -T) */
	CI_KLOG_WALL_LOCAL_NO_YEAR, /* local time without the year (RFC 3164, journalctl short) */
};

struct ci_klog_time {
	enum ci_klog_mono_source mono_source;
	uint64_t mono_us;           /* microseconds since boot, when mono_source != NONE */
	enum ci_klog_wall wall;
	/* WALL_UTC: microseconds since the epoch.  WALL_LOCAL: the local reading encoded as if it
	 * were UTC.  WALL_LOCAL_NO_YEAR: likewise, placed in the year 2000 (a leap year, so that
	 * 29 February fits); ci_klog_select picks the year from the window. */
	int64_t wall_us;
};

/* ---------------------------------------------------------------------------------------- */
/* Xid lines                                                                                  */

/* A PCI device as Xid lines print it: domain:bus:device, no function. */
struct ci_klog_pci {
	uint32_t domain;
	uint8_t bus;
	uint8_t device;
};

/* Parse a bus id in any of the forms tools print: "0000:3B:00.0" (cuDeviceGetPCIBusId),
 * "00000000:3B:00.0" (nvidia-smi), "3b:00.0", "0000:3b:00" (Xid lines), any case.  The function
 * is accepted and ignored.  False when `s` is none of these. */
bool ci_klog_pci_parse(const char *s, struct ci_klog_pci *ret);
static inline bool ci_klog_pci_equal(struct ci_klog_pci a, struct ci_klog_pci b)
{
	return a.domain == b.domain && a.bus == b.bus && a.device == b.device;
}

/* How the line gave the owning process. */
enum ci_xid_pid {
	CI_XID_PID_ABSENT = 0, /* not printed: drivers before ≈r440, or 570+ with no owner known */
	CI_XID_PID_NUMBER,     /* pid=N (the host's pid of the channel's owner) */
	CI_XID_PID_UNKNOWN,    /* pid='<unknown>' (515-565 with no channel known) */
};

/* Broad kinds of Xid, for ranking evidence. */
enum ci_xid_category {
	CI_XID_CAT_UNKNOWN = 0,  /* a number this table does not know: kept, never dropped */
	CI_XID_CAT_APP,          /* raised by what an application ran (13, 31, 43, 109...) */
	CI_XID_CAT_TEARDOWN,     /* cleanup after a fault (45) */
	CI_XID_CAT_HARDWARE,     /* memory, bus, link (48, 63, 64, 74, 79, 94, 95...) */
	CI_XID_CAT_DRIVER,       /* driver or GPU firmware (119, 120...) */
	CI_XID_CAT_RECOVERY,     /* what the GPU needs now (154) */
};

struct ci_xid_kind {
	uint32_t xid;
	const char *tag;         /* name in the driver's nverror.h, or NULL where it has none */
	enum ci_xid_category category;
	const char *meaning;     /* one short sentence */
};
/* The table entry for an Xid number, or NULL when the table does not know it. */
const struct ci_xid_kind *ci_xid_describe(uint32_t xid);
const char *ci_xid_category_name(enum ci_xid_category c);

/* Which unit made the access an MMU fault reports (from ENGINE and client). */
enum ci_xid_unit {
	CI_XID_UNIT_UNKNOWN = 0,
	CI_XID_UNIT_SM,          /* ENGINE GRAPHICS/GRn with a GPCCLIENT_T1_* client: a kernel's load or store */
	CI_XID_UNIT_COPY,        /* ENGINE CEn: a copy engine (memcpy/memset), not a kernel */
	CI_XID_UNIT_GRAPHICS,    /* graphics engine, other client (PROP, SCC, HUBCLIENT_*...) */
	CI_XID_UNIT_OTHER,       /* HOST*, BAR1, video engines... */
};

enum ci_xid_access {
	CI_XID_ACCESS_UNKNOWN = 0,
	CI_XID_ACCESS_READ,
	CI_XID_ACCESS_WRITE,
	CI_XID_ACCESS_ATOMIC,
	CI_XID_ACCESS_PREFETCH,
};

/* Xid 31, MMU fault.  The address is the GPU virtual address of the faulting 4 KiB page (the
 * same numbers as device pointers), not the byte. */
struct ci_xid_mmu {
	bool has_address;
	bool address_split;      /* printed as 0x<hi>_<lo8> (else plain hex) */
	uint64_t address;
	bool has_intr;
	uint32_t intr;
	char engine[16];         /* "GRAPHICS", "GR1", "CE0", "HOST2"... ("" if absent) */
	char client[32];         /* "GPCCLIENT_T1_3", "HUBCLIENT_CE0"... */
	int32_t gpc, tpc;        /* from GPCn / TPCn tokens, -1 if absent */
	char fault_type[40];     /* "FAULT_PDE", "FAULT_PTE", "FAULT_PRIV_VIOLATION"... */
	char access_type[32];    /* "ACCESS_TYPE_VIRT_READ"... (Pascal era: "ACCESS_TYPE_READ") */
	enum ci_xid_access access;
	bool physical;           /* ACCESS_TYPE_PHYS_* */
	enum ci_xid_unit unit;
};

/* Xid 13, graphics engine exception: one of the lines of a per-SM burst.  No address. */
enum ci_xid_gr_kind {
	CI_XID_GR_NONE = 0,
	CI_XID_GR_WARP,          /* "Graphics SM Warp Exception on (GPC g, TPC t[, SM s]): <error>" */
	CI_XID_GR_GLOBAL,        /* "Graphics SM Global Exception on (...): <error>" */
	CI_XID_GR_ESR,           /* "Graphics Exception: ESR 0xR=0xV ..." */
	CI_XID_GR_OTHER,         /* any other "Graphics ... Exception" line */
};
#define CI_XID_ESR_MAX 8
struct ci_xid_gr {
	enum ci_xid_gr_kind kind;
	int32_t gpc, tpc, sm;    /* -1 if absent */
	char error[64];          /* the text after "): " (WARP, GLOBAL, OTHER) */
	uint32_t n_esr;
	struct { uint32_t reg, value; } esr[CI_XID_ESR_MAX];
	/* ESR lines whose first register is a warp ESR (…648 before Volta, …730 + 0x80·SM after):
	 * the error code is its low 16 bits, named from the hardware's table when known. */
	bool has_warp_code;
	uint16_t warp_code;
	const char *warp_error;  /* "Out Of Range Address", ... or NULL for a code not in the table */
};

/* Flags of an item. */
#define CI_XID_RAW_CUT      0x1u  /* raw was longer than the copy kept (CI_KLOG_RAW_MAX) */
#define CI_XID_BODY_PARTIAL 0x2u  /* the body's own fields stop early (the driver caps bodies at 255 chars) */
#define CI_XID_DUPLICATE    0x4u  /* the same line already came from another part of a bug report */
#define CI_XID_ONE_BOOT     0x8u  /* the part of the log it came from shows one boot (no boot
				   * marker, boot id change or kernel start inside it) */

#define CI_KLOG_RAW_MAX 4096

/* One Xid line. */
struct ci_xid {
	uint64_t line;           /* 1-based line number in the (decompressed) input */
	enum ci_klog_format format;
	uint32_t flags;          /* CI_XID_* */
	const char *raw;         /* the input line, NUL-terminated copy (JSON: the whole object) */
	const char *message;     /* the kernel's message, from "NVRM: Xid" (JSON/kmsg decoded) */
	const char *part;        /* bug-report section the line came from ("dmesg", "/var/log/kern.log",
				  * "journalctl -b -1"...), or NULL outside a bug report */
	const char *host;        /* host name the log gives, or NULL */
	char boot_id[33];        /* 32 lower-case hex digits, "" when the log gives none */
	uint32_t boot_seq;       /* boot segment of the log: +1 at each boot marker or kernel start line */
	struct ci_klog_time time;
	size_t duplicate_of;     /* with CI_XID_DUPLICATE: index of the first copy */

	/* The prefix: NVRM: Xid (PCI:dddd:bb:dd[ GPU-I:gg[ GPU-CI:cc]]): N, [pid=P, name=N, ] */
	struct ci_klog_pci pci;
	bool pci_prefix;         /* "PCI:" printed (absent in ≈2012 drivers) */
	int32_t gpu_instance;    /* MIG GPU instance, -1 */
	int32_t compute_instance;/* MIG compute instance, -1 */
	uint32_t xid;
	enum ci_xid_pid pid_form;
	uint32_t pid;            /* with CI_XID_PID_NUMBER */
	const char *name;        /* name= as printed, NULL when absent or "<unknown>" */
	bool name_unknown;       /* name=<unknown> */
	const char *body;        /* the rest, without the " caused by previous Xid N" suffix */
	int32_t caused_by;       /* N of " caused by previous Xid N" (570.124.04+), -1 */
	bool has_channel;        /* "Ch 0000003a", "channel 0x00000201", "ch 12" */
	uint32_t channel;

	/* Per Xid: mmu for 31, gr for 13; recovery_action for 154 (the new action, -1 otherwise). */
	struct ci_xid_mmu mmu;
	struct ci_xid_gr gr;
	int32_t recovery_action;
};

/* "NVRM: GPU at PCI:0000:01:00: GPU-<uuid>": the log's only tie of a PCI id to a GPU UUID. */
struct ci_klog_gpu {
	struct ci_klog_pci pci;
	char uuid[64];           /* "GPU-8a9c…" as printed */
	uint64_t line;
};

struct ci_klog_stats {
	uint64_t bytes;          /* bytes of text read (decompressed) */
	uint64_t lines;
	uint64_t lines_too_long; /* skipped: longer than max_line */
	uint64_t xid_lines;      /* lines naming "NVRM: Xid (" */
	uint64_t malformed;      /* of those, lines without a readable PCI id and Xid number: not items */
	uint64_t dropped;        /* Xid lines past max_items (not parsed) or max_text */
	uint64_t json_bad;       /* lines that began as JSON but were not a readable object */
	uint64_t gpus_dropped;   /* GPU lines past the table's capacity */
	uint64_t per_format[CI_KLOG_FMT_COUNT]; /* items per line format */
	uint32_t boot_segments;  /* 1 + boot markers seen */
	bool gzip;               /* the input was gzip (one or more members) */
	bool gzip_damaged;       /* ... and its stream broke off: what came before it was parsed */
	bool decompress_capped;  /* ... and it inflated past max_decompressed: the rest was not read */
	bool bug_report;         /* an nvidia-bug-report log */
};

struct ci_klog {
	struct ci_xid *items;    /* in input order */
	size_t count;
	struct ci_klog_gpu *gpus;
	size_t gpu_count;
	struct ci_klog_stats stats;
	struct ci_klog_text *text_; /* private: the strings items point to */
};

/* Limits on what one parse may hold.  Zero fields take the defaults. */
struct ci_klog_options {
	size_t max_line;             /* longer lines are skipped and counted (default 16 KiB) */
	size_t max_items;            /* Xid lines kept; later ones are counted (default 100,000) */
	size_t max_text;             /* bytes of strings kept for items (default 64 MiB) */
	uint64_t max_decompressed;   /* gzip output read at most (default 4 GiB) */
};

/* Parse `len` bytes at `buf` (plain text or gzip, recognised by its magic).  `opts` may be NULL.
 * On success *ret is a new log (possibly with no items: text without Xid lines is not an
 * error).  Fails with CI_ERR_NOMEM, or CI_ERR_CORRUPT for gzip input that does not inflate at
 * all; a gzip stream that breaks off later keeps what came before (stats.gzip_damaged). */
struct ci_error *ci_klog_parse(const void *buf, size_t len, const struct ci_klog_options *opts,
			       struct ci_klog **ret);
void ci_klog_destroy(struct ci_klog *log);

/* ---------------------------------------------------------------------------------------- */
/* Which lines belong to a process                                                            */

/* What the caller knows of the process (each field optional: 0, NULL or false = unknown). */
struct ci_klog_process {
	uint32_t pid;                /* pid as the core or record has it (may be a container's view) */
	uint32_t host_pid;           /* the init namespace's pid, when known (NSpid) */
	const char *const *names;    /* comm names (process, and the thread that created the context);
				      * compared on their first 15 bytes, as the kernel truncates */
	size_t name_count;
	const char *const *pci_bus_ids; /* the devices it used, as recorded ("0000:3B:00.0") */
	size_t pci_count;
	const char *boot_id;         /* /proc/sys/kernel/random/boot_id (with or without dashes) */
	bool has_mono;               /* CLOCK_MONOTONIC window, microseconds */
	uint64_t mono_from_us, mono_to_us;
	bool has_wall;               /* CLOCK_REALTIME window, microseconds since the epoch */
	int64_t wall_from_us, wall_to_us;
	bool has_utc_offset;         /* the logging host's local time offset east of UTC, for */
	int32_t utc_offset_s;        /* zone-less times; unknown means any offset (±14 h) */
	uint64_t slack_us;           /* both windows widened by this much on each side */
	/* When the process started and when it first saw a sticky error, on the monotonic clock
	 * (microseconds; 0: unknown): a line of another pid stamped before the start cannot be
	 * the process's, and among lines matched by name the fault nearest the error is. */
	uint64_t start_mono_us;
	uint64_t sticky_mono_us;
};

/* Why a line belongs. */
#define CI_KLOG_RULES(X)                                                                         \
	X(CI_KLOG_RULE_NONE, "none", "does not belong")                                             \
	X(CI_KLOG_RULE_PID, "pid", "the line's pid is the process's")                                \
	X(CI_KLOG_RULE_NAME_TIME, "name+time",                                                      \
	  "no pid, or another (a container's process has a host pid): same name, inside the window") \
	X(CI_KLOG_RULE_COMPANION, "companion",                                                      \
	  "no pid or name: an Xid line with the process's pid on the same GPU within 1 s")         \
	X(CI_KLOG_RULE_GPU_TIME, "gpu+time", "no pid or name: one of the process's GPUs, inside the window")

/* Why a line does not belong. */
#define CI_KLOG_REJECTS(X)                                                                       \
	X(CI_KLOG_REJECT_NONE, "none", "belongs")                                                   \
	X(CI_KLOG_REJECT_GPU, "gpu", "on a GPU the process did not use")                             \
	X(CI_KLOG_REJECT_BOOT, "boot", "from another boot")                                          \
	X(CI_KLOG_REJECT_TIME, "time", "outside the time window")                                    \
	X(CI_KLOG_REJECT_PID, "pid", "another pid, and not the process's name inside the window")   \
	X(CI_KLOG_REJECT_NAME, "name", "no pid, and another process's name")                        \
	X(CI_KLOG_REJECT_COMPANION, "companion", "the Xid line next to it on that GPU names another process") \
	X(CI_KLOG_REJECT_UNPROVEN, "unproven",                                                      \
	  "nothing ties it to the process: no matching pid, and no time (or GPU) to narrow a name or GPU match") \
	X(CI_KLOG_REJECT_NOT_OWN, "not_own",                                                        \
	  "another process of the same name: the log has lines with the process's own pid")        \
	X(CI_KLOG_REJECT_BEFORE_START, "before_start",                                              \
	  "stamped before the process started: another process's")                                  \
	X(CI_KLOG_REJECT_FARTHER, "farther",                                                        \
	  "same name, but another process's fault lies nearer the process's first sticky error")

enum ci_klog_rule {
#define CI_KLOG_ENUM(e, name, what) e,
	CI_KLOG_RULES(CI_KLOG_ENUM)
};
enum ci_klog_reject {
	CI_KLOG_REJECTS(CI_KLOG_ENUM)
#undef CI_KLOG_ENUM
};

/* Which clock narrowed the line. */
enum ci_klog_basis {
	CI_KLOG_BASIS_NONE = 0,      /* no window, or no time comparable with it */
	CI_KLOG_BASIS_MONO,          /* monotonic, same boot */
	CI_KLOG_BASIS_WALL_UTC,      /* wall clock with its zone */
	CI_KLOG_BASIS_WALL_LOCAL,    /* local wall clock, with the offset the caller gave */
	CI_KLOG_BASIS_WALL_ANY_ZONE, /* local wall clock, zone unknown: any offset up to ±14 h */
};

struct ci_klog_match {
	bool belongs;
	enum ci_klog_rule rule;      /* when belongs */
	enum ci_klog_reject reject;  /* when not */
	enum ci_klog_basis basis;
	bool in_window;              /* with basis != NONE: the time lies inside the window */
	size_t companion;            /* COMPANION rule or reject: index of the line that decided, else SIZE_MAX */
	size_t event;                /* when belongs: which of the process's events (0, 1, ...: one fault
				      * prints an Xid 31 per faulting unit and Xid 13/43 around it; see
				      * ci_evidence_kernel_log), else SIZE_MAX */
};

/* Decide for every item of `log` whether it belongs to `proc`, in this order: the GPU (when
 * the process's devices are known), the boot (when both boot ids are known), the time window
 * (when a time is comparable: it only ever rejects), then the identity: pid; name inside the
 * window; for lines with neither, the pid of the nearest Xid line on the same GPU within 1 s,
 * else the GPU inside the window.  On success *ret is an array of log->count matches, in item
 * order, to be freed with free(). */
struct ci_error *ci_klog_select(const struct ci_klog *log, const struct ci_klog_process *proc,
				struct ci_klog_match **ret);
/* The lines one fault prints (an Xid 31 per faulting GPC or engine, Xid 13 per SM and error,
 * Xid 43) come within milliseconds: the H200 printed 396 Xid 13 lines in 632 ms.  A line of the
 * process this long after its previous one starts another event. */
#define CI_KLOG_EVENT_GAP_US (2ull * 1000000)
/* Group the lines that belong (MATCH from ci_klog_select) into the process's events, in log
 * order, setting MATCH[i].event: a line joins the event of the process's line before it when
 * both are on the same GPU and within CI_KLOG_EVENT_GAP_US on a clock both have (without one:
 * when they are next to each other in the log); a copy of a line from another part of a bug
 * report is in its original's event.  Returns the number of events. */
size_t ci_klog_group(const struct ci_klog *log, struct ci_klog_match *match);
/* How far apart X and Y were printed, in microseconds, on a clock both have; UINT64_MAX when
 * they have none in common. */
uint64_t ci_klog_gap_us(const struct ci_xid *x, const struct ci_xid *y);
const char *ci_klog_rule_name(enum ci_klog_rule r);
const char *ci_klog_rule_text(enum ci_klog_rule r);
const char *ci_klog_reject_name(enum ci_klog_reject r);
const char *ci_klog_reject_text(enum ci_klog_reject r);

#endif /* CI_EVIDENCE_H */
