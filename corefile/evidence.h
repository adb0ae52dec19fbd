/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: the rules of the evidence stage (corefile/evidence.c) that
 * the decoder needs before the evidence exists in full.  A sparse decode (ci_decode_options
 * .sparse) reads the launch ring from its head back only as far as the diagnosis will look;
 * how far that is follows from the same facts the diagnosis reasons from (breadcrumbs,
 * synchronizations, the first sticky error, the failed-launch window), so the decoder gathers
 * them from the tables and small rings it has already read and asks this module what it needs.
 */
#ifndef CI_EVIDENCE_H
#define CI_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"

/* Launches per stream that the diagnosis weighs when nothing bounds a stream's unfinished work
 * (no breadcrumbs and no synchronization): the newest this many. */
#define CI_OPEN_WINDOW_MAX 128
/* A launch call that failed is recorded at the start of the call, its error at the end: the
 * failed launch behind an API error is one made at most this long before the error. */
#define CI_FAILED_LAUNCH_NS 1000000ull

/* What the diagnosis will weigh of one stream's launches: those numbered past LO up to HI.
 * With a breadcrumb, LO is the breadcrumb.  Without one, LO is not known before the launches
 * are read: the launches made before SYNC_NS had finished (0: no synchronization says so),
 * else the newest CI_OPEN_WINDOW_MAX count. */
struct ci_launch_need {
	bool open;                /* the stream has unfinished work to find */
	bool by_crumb;
	uint64_t lo, hi;
	uint64_t sync_ns;
};

/* Fill NEEDS (model->stream_count entries) from EV for MODEL's streams. */
void ci_evidence_launch_needs(const struct ci_evidence *ev, const struct ci_model *model,
			      struct ci_launch_need *needs);

/* Whether a launch made at TIME_NS whose call failed can be the one behind EV's last error. */
static inline bool ci_evidence_failed_launch_at(const struct ci_evidence *ev, uint64_t time_ns)
{
	return ev->failed_launch_window && time_ns <= ev->failed_launch_to &&
	       time_ns >= ev->failed_launch_from;
}

/* Free EV's kernel-log evidence and forget it (corefile/evidence_klog.c). */
void ci_evidence_kernel_log_clear(struct ci_evidence *ev);

struct ci_xid;
/* One line for an Xid: "Xid 31 at 0x7f1f_619ff000, FAULT_PDE read, GPC1 GPCCLIENT_T1_3" (the
 * address as the driver prints it), "Xid 43 (...): ...".  Strings from the log are scrubbed. */
void ci_xid_summary(const struct ci_xid *x, char *buf, size_t n);

#endif /* CI_EVIDENCE_H */
