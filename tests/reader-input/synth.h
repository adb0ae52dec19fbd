/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: lays out a flight record per include/cudainspect/record.h with entries whose
 * content follows from their index (so a test knows what a correct decode must show without
 * asking the decoder), plus deliberate damage: torn entries, bad references, broken sections,
 * other versions.  It is not a second recorder: no CUDA, no concurrency, no protocol beyond
 * "write the payload, then seq".  Used by mkrecord (record files), crasher (records inside real
 * processes and their cores) and the fuzzers' seed corpus.
 */
#ifndef CI_TEST_SYNTH_H
#define CI_TEST_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "cudainspect/record.h"

/* Facts the fixture always writes (tests assert on them). */
#define SYNTH_STREAMS 3
#define SYNTH_FUNCTIONS 4
#define SYNTH_STACKS 2
#define SYNTH_FRAMES_PER_STACK 3
#define SYNTH_ALLOC_BASE 0x7f0000000000ull
#define SYNTH_ALLOC_STRIDE 0x100000ull
#define SYNTH_DEVICE_NAME "Synthetic GPU"
#define SYNTH_HOST "synth-host"

/* Damage a test can ask for; each changes one documented count (see mkrecord --help). */
enum synth_damage {
	SYNTH_OK = 0,
	SYNTH_BAD_MAGIC,        /* header magic wrong: not a record */
	SYNTH_BAD_HEADER_SIZE,  /* header_size 12: corrupt header */
	SYNTH_BAD_DIR,          /* directory offset past the record: corrupt header */
	SYNTH_SECTION_MISALIGNED, /* launches section offset + 8: section unusable */
	SYNTH_SECTION_OVERLAP,  /* events section placed over launches: one of them unusable */
	SYNTH_SECTION_PAST_END, /* errors capacity past the record end: section unusable */
	SYNTH_ENTRY_TOO_SMALL,  /* launches entry_size 64: section unusable */
	SYNTH_BAD_REFS,         /* 2 launches point at stream slot 77, 1 function name past strings */
	SYNTH_BAD_STACK,        /* stack 2's frames run past the frames area: stack invalid */
	SYNTH_SEQ_MISMATCH,     /* 1 launch carries a seq that does not fit its slot: invalid */
	SYNTH_DUP_SECTION,      /* the directory lists launches twice: second ignored */
	SYNTH_UNKNOWN_SECTION,  /* an extra section of kind 30: ignored */
	SYNTH_LATE_HEAD,        /* launches head 2 behind the published entries (snapshot race): 2 torn */
	SYNTH_NO_MAGIC,         /* magic still zero: a recorder that had not finished setting up */
	SYNTH_UNTERMINATED,     /* a 16 KiB string area of 'A's without one NUL: every string reference
				 * is damage (CI_STRING_MAX) */
	SYNTH_BIDI,             /* kernel_0's name holds U+202E (RIGHT-TO-LEFT OVERRIDE) */
	SYNTH_SHELL_NAME,       /* kernel_3 (the faulting one) is named k$(touch pwned)'x */
	SYNTH_MARKUP_NAME,      /* kernel_3 is named k"<&>' U+202E, \x01, an ESC
				 * colour sequence, \x7f and x: JSON and XML markup, controls */
};

struct synth_spec {
	uint16_t major, minor;
	uint32_t pid, ppid;
	uint64_t record_base;     /* address the record claims to live at */
	uint32_t origin, state, flags;
	uint32_t entry_pad;       /* extra bytes per entry (a newer minor's bigger entries) */
	uint32_t launches, launch_cap;
	uint32_t allocs, alloc_cap;
	uint32_t frees, free_cap;
	uint32_t errors, error_cap;
	uint32_t events, event_cap;
	uint32_t torn_launches;   /* newest N published launches left CI_SEQ_BUSY */
	uint32_t launch_times;    /* SYNTH_TIMES_*: how launch times relate to their seqs */
	uint32_t alloc_twins;     /* allocs 0 and 1 share an address, inserted id 2 first */
	uint32_t alloc_id_step;   /* alloc i gets id i * step % allocs + 1 (0: i + 1); step prime to allocs */
	uint32_t thread_count;
	uint32_t thread_tids[8];
	const char *thread_names[8];
	enum synth_damage damage;
	const char *kernel_log;   /* kernel-log text for a KERNEL_LOG section (format 1.1), or NULL */
	size_t kernel_log_len;
};

/* Launch times (synth_spec.launch_times).  SEQ: time = seq * 1000, the ring is in time order.
 * CHUNKED: three writer threads take slots in chunks of four, as the recorder's threads do, so
 * slot order is not time order, and threads 1 and 2 run in step (equal times).  RANDOM: times
 * from a small range, many equal, in no order.  A launch carries its mode in grid[1] (2, 3, 4)
 * so synth_launch_consistent can check it. */
enum { SYNTH_TIMES_SEQ = 0, SYNTH_TIMES_CHUNKED = 1, SYNTH_TIMES_RANDOM = 2 };
uint64_t synth_launch_time(uint32_t mode, uint64_t index);

/* Defaults: version 1.1 (CI_FORMAT_MINOR), 10 launches in a ring of 16, 5 allocs in a table of 64, 2 frees in a
 * ring of 8, 2 errors (one sticky 700), 4 events, 1 thread. */
void synth_defaults(struct synth_spec *spec);
/* Bytes the record needs (a multiple of 4096). */
size_t synth_size(const struct synth_spec *spec);
/* Lay the record out in BUF (synth_size bytes, zeroed by the caller). */
void synth_build(const struct synth_spec *spec, uint8_t *buf);
/* The launch a ring index I publishes has grid[0] == seq and time_ns == seq * 1000, so a
 * reader can check that an accepted entry is whole. */
int synth_launch_consistent(const struct ci_launch *l);
/* Fill launch ring slot for index I (used by the live writer in crasher). */
void synth_fill_launch(struct ci_launch *l, uint64_t index);
/* Parse "--name=value" options shared by mkrecord and crasher; returns 1 if ARG was one. */
int synth_parse_option(struct synth_spec *spec, const char *arg);
const char *synth_options_help(void);

#endif
