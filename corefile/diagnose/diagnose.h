/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: stage 5, diagnose (corefile/diagnose/).  The rule families, the
 * one context they run over, the findings they return and the module that words them; and the
 * graph replays the graphs family and the views read.
 *
 * A diagnosis (ci_diagnose, run.c) runs the families of CI_RULE_FAMILIES in that order over
 * one struct ci_rule_ctx.  A family reads the model, the evidence and what the families before it
 * decided, sets the structured results of the diagnosis (launch states, the faulting launch and
 * its confidence, attributions, the graph replay) and adds findings: an id from CI_FINDINGS with
 * the facts it concerns (a launch, an allocation, a kernel-log line, counts), never a sentence.
 * wording.c turns the findings into the reasoning and the evidence items, in their order.
 * Adding a rule family is a file and a row of CI_RULE_FAMILIES; a new finding is a row of
 * CI_FINDINGS and its case in wording.c (docs/READER-INTERNALS.md, "Rule families and
 * findings").
 */
#ifndef CI_DIAGNOSE_H
#define CI_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"
#include "evidence/evidence.h"
#include "model/model.h"

/* A value counts as "near" an allocation when it is closer than this or than its size. */
#define CI_NEAR_BYTES_MIN (1ull << 20)

/* ---------------------------------------------------------------------------------------- */
/* Findings                                                                                   */

/* Where a finding is worded: a part of the reasoning, or an evidence item of a kind. */
#define CI_WORDED_WHY 0

/* X(ID, WORD, WORDED): every finding a family can return, by family in the order they run.
 * WORD is its stable name (docs/READER-INTERNALS.md lists them with their facts); WORDED is
 * CI_WORDED_WHY or the enum ci_evidence_kind of the item it becomes.  The facts each sets:
 *   faulting.c  only_in_flight: launch, value (its stream's breadcrumb); open_unplaced: count
 *               (launches on streams without breadcrumbs); by_argument_history,
 *               by_bad_pointer: launch, count (how many suspects did), the pool; open_oldest,
 *               oldest_in_flight: launch, the pool.  The pool: total launches on `streams`
 *               streams, flags OPEN_ONLY and WINDOWS; on one stream, the range of its launch
 *               numbers that may have run (first, last) and the last known finished (value:
 *               its breadcrumb, or with flag SYNCED its last synchronization).
 *   losses.c    record_lost: section, count, flag DROPPED; confidence_capped: strength (the
 *               cap).  Consecutive losses are worded as one sentence.
 *   api_errors.c api_error: error, launch (the failed launch, or -1); record_missing: value
 *               (bytes in the input), total (the record's size).
 *   xid.c       xid_line: xid; xid_page: xid, where (the page), alloc; by_copy_engine: event
 *               (or -1), count; copy_touches_page: event, count; page_names_no_launch: xid,
 *               where, alloc; by_fault_address: launch, alloc, count, total (candidates),
 *               flags EXACT and KEPT; launch_touches_page: launch, alloc, flag EXACT;
 *               xid_others: count (another pid, the process's own in the log), total (stamped
 *               before it started), value (farther from its first sticky error);
 *               by_argument_relation, argument_explains_page: launch, where (the argument
 *               with its fault_* fields), alloc, count (launches that explain the page),
 *               total (candidates), flag KEPT.
 *   history.c   arg_left_history, arg_freed_since: launch, where (the argument), alloc.
 *   graphs.c    graph_not_recorded: launch, value (the exec); graph_node_by_page: node,
 *               count, alloc; graph_node_bad_pointer: node, count; graph_node_by_crumb,
 *               graph_only_node: node (of the diagnosis's graph replay).
 *   gpu_core.c  by_gpu_core: launch, count (candidates), total (unfinished), flags EXACT (the
 *               diagnosis's launch changed: KEPT when it was the record's own choice);
 *               gpu_core_mismatch: (the diagnosis's gpu->mismatch says why). */
#define CI_FINDINGS(X)                                                                       \
	X(CI_F_ONLY_IN_FLIGHT, "only_in_flight", CI_WORDED_WHY)                              \
	X(CI_F_OPEN_UNPLACED, "open_unplaced", CI_WORDED_WHY)                                \
	X(CI_F_ALL_FINISHED, "all_finished", CI_WORDED_WHY)                                  \
	X(CI_F_BY_HISTORY, "by_argument_history", CI_WORDED_WHY)                             \
	X(CI_F_BY_BAD_POINTER, "by_bad_pointer", CI_WORDED_WHY)                              \
	X(CI_F_OPEN_OLDEST, "open_oldest", CI_WORDED_WHY)                                    \
	X(CI_F_OLDEST_IN_FLIGHT, "oldest_in_flight", CI_WORDED_WHY)                          \
	X(CI_F_RECORD_LOST, "record_lost", CI_WORDED_WHY)                                    \
	X(CI_F_RECORD_TRUNCATED, "record_truncated", CI_WORDED_WHY)                          \
	X(CI_F_CONFIDENCE_CAPPED, "confidence_capped", CI_WORDED_WHY)                        \
	X(CI_F_API_ERROR, "api_error", CI_WORDED_WHY)                                        \
	X(CI_F_RECORD_MISSING, "record_missing", CI_WORDED_WHY)                              \
	X(CI_F_NO_FAILURE, "no_failure", CI_WORDED_WHY)                                      \
	X(CI_F_XID_LINE, "xid_line", CI_EVK_XID)                                             \
	X(CI_F_XID_PAGE, "xid_page", CI_EVK_XID_PAGE)                                        \
	X(CI_F_XID_OTHERS, "xid_others", CI_WORDED_WHY)                                      \
	X(CI_F_BY_COPY_ENGINE, "by_copy_engine", CI_WORDED_WHY)                              \
	X(CI_F_COPY_TOUCHES_PAGE, "copy_touches_page", CI_EVK_XID_LAUNCH)                    \
	X(CI_F_PAGE_NAMES_NO_LAUNCH, "page_names_no_launch", CI_WORDED_WHY)                  \
	X(CI_F_BY_FAULT_ADDRESS, "by_fault_address", CI_WORDED_WHY)                          \
	X(CI_F_LAUNCH_TOUCHES_PAGE, "launch_touches_page", CI_EVK_XID_LAUNCH)                \
	X(CI_F_BY_ARG_RELATION, "by_argument_relation", CI_WORDED_WHY)                       \
	X(CI_F_ARG_EXPLAINS_PAGE, "argument_explains_page", CI_EVK_XID_LAUNCH)               \
	X(CI_F_ARG_LEFT_HISTORY, "arg_left_history", CI_EVK_ARG_HISTORY)                     \
	X(CI_F_ARG_FREED_SINCE, "arg_freed_since", CI_EVK_ARG_HISTORY)                       \
	X(CI_F_GRAPH_NOT_RECORDED, "graph_not_recorded", CI_WORDED_WHY)                      \
	X(CI_F_GRAPH_NODE_BY_PAGE, "graph_node_by_page", CI_WORDED_WHY)                      \
	X(CI_F_GRAPH_NODE_BY_RELATION, "graph_node_by_relation", CI_WORDED_WHY)              \
	X(CI_F_GRAPH_NODE_BAD_POINTER, "graph_node_bad_pointer", CI_WORDED_WHY)              \
	X(CI_F_GRAPH_NODE_UNKNOWN, "graph_node_unknown", CI_WORDED_WHY)                      \
	X(CI_F_GRAPH_NODE_BY_CRUMB, "graph_node_by_crumb", CI_WORDED_WHY)                    \
	X(CI_F_GRAPH_ONLY_NODE, "graph_only_node", CI_WORDED_WHY)                            \
	X(CI_F_BY_GPU_CORE, "by_gpu_core", CI_WORDED_WHY)                                    \
	X(CI_F_GPU_CORE_MISMATCH, "gpu_core_mismatch", CI_WORDED_WHY)

enum ci_finding_id {
#define CI_FINDING_ENUM(id, word, worded) id,
	CI_FINDINGS(CI_FINDING_ENUM)
#undef CI_FINDING_ENUM
	CI_FINDING_COUNT
};

/* ci_finding.flags */
enum {
	CI_FINDING_OPEN_ONLY = 1u << 0, /* the pool: launches on streams without breadcrumbs */
	CI_FINDING_WINDOWS = 1u << 1,   /* the pool holds breadcrumb windows */
	CI_FINDING_DROPPED = 1u << 2,   /* the recorder could not store them (else: not in the
					 * input) */
	CI_FINDING_EXACT = 1u << 3,     /* the evidence leaves one possibility */
	CI_FINDING_KEPT = 1u << 4,      /* the driver's word kept the record's own choice */
	CI_FINDING_SYNCED = 1u << 5,    /* the pool's value: finished by a synchronization, past
					 * the breadcrumb */
};

/* One thing a rule family found: an id and the facts it concerns.  Unused indices are -1. */
struct ci_finding {
	enum ci_finding_id id;
	enum ci_confidence strength;  /* a suspect's: the confidence its rule gives; a cap: the
				       * most it leaves */
	bool decisive;                /* an evidence item the summary shows */
	unsigned flags;               /* CI_FINDING_* */
	ptrdiff_t launch;             /* index into model->launches */
	ptrdiff_t event;              /* a copy or set: index into model->events */
	ptrdiff_t error;              /* index into model->errors */
	ptrdiff_t xid;                /* index into evidence->kernel_log->items */
	ptrdiff_t node;               /* index into the diagnosis's graph replay's nodes */
	const struct ci_alloc *alloc; /* live or freed */
	/* An address and where it lies: an argument (arg, param_offset, relation, offset,
	 * history), a fault page. */
	struct ci_attribution where;
	uint32_t section;             /* a record section, CI_SEC_* */
	size_t count, total, streams; /* how many did, of how many, on how many streams */
	uint64_t value;               /* a breadcrumb, an exec handle, a size */
	uint64_t first, last;         /* a range of a stream's launch numbers */
};

/* The stable word of finding ID ("by_bad_pointer"), and where it is worded. */
const char *ci_finding_word(enum ci_finding_id id);
unsigned ci_finding_worded(enum ci_finding_id id);

/* Word findings F[0..N) of a diagnosis D of MODEL and EV: the reasoning (sentences, in order) in
 * *REASONING and the evidence items in *ITEMS (both malloc'd; free the items' texts too).  A
 * finding by which the driver's word decides (by_copy_engine, by_fault_address) turns what the
 * reasoning said until then into an evidence item of kind "rule" (rule "record").  -1 on
 * out-of-memory. */
int ci_findings_word(const struct ci_model *model, const struct ci_evidence *ev,
		     const struct ci_diagnosis *d, const struct ci_finding *f, size_t n,
		     char **reasoning, struct ci_evidence_item **items, size_t *count);

/* ---------------------------------------------------------------------------------------- */
/* Attributions (pointers.c; the vectors in context.c)                                       */

struct ci_attr_vec {
	struct ci_attribution *v;
	size_t n, cap;
};
/* context.c */
void ci_attr_vec_deinit(struct ci_attr_vec *av);
int ci_attr_push(struct ci_attr_vec *av, const struct ci_attribution *a);

/* Every pointer-sized argument of launch L that could be an address, unattributed yet: the
 * address in `address`, `launch` = TAG.  -1 on out-of-memory. */
int ci_attr_collect_args(const struct ci_model *m, const struct ci_launch *l, size_t tag,
			 struct ci_attr_vec *av);
/* Attribute the collected arguments AV, the history values HV (`arg`: the index of the argument
 * in AV they belong to, renumbered as implausible arguments are dropped) and the evidence's
 * addresses XV, in one pass over the live allocations, then the frees.  -1 on out-of-memory. */
int ci_attr_attribute(const struct ci_model *m, struct ci_attr_vec *av, struct ci_attr_vec *hv,
		      struct ci_attr_vec *xv);
/* Whether an attribution of AV tagged LAUNCH points into or near allocation ID, left it (its
 * history), or lies in it as the neighbour. */
bool ci_attr_launch_refers_to(const struct ci_attr_vec *av, size_t launch, uint64_t id);
/* xid.c: relate fault page PAGE (4 KiB aligned) to attributed argument A: set its fault_*
 * fields, the differences, the power of two and the multiple of its allocation's size, and the
 * best way the page fits it (reach, then a multiple, then 2^k; docs/USAGE.md, "The fault page
 * against the arguments"). */
void ci_fault_relate(struct ci_attribution *a, uint64_t page);
/* Whether related argument A fits the page better than B: a better kind of fit, then a tighter
 * one. */
bool ci_fault_fits_better(const struct ci_attribution *a, const struct ci_attribution *b);

/* ---------------------------------------------------------------------------------------- */
/* The context and the families                                                               */

/* The launches of each kind of suspect, by index into the model's launches. */
struct ci_suspects {
	size_t *in_flight, *window, *open;
	size_t n_in_flight, n_window, n_open;
};

struct ci_rule_ctx {
	/* What the diagnosis reads. */
	const struct ci_model *model;
	const struct ci_evidence *ev;
	const struct ci_diagnose_options *opts;
	struct ci_launch_briefs lb;   /* what is read of every launch, parallel to the model's */
	/* What it makes. */
	struct ci_diagnosis *diag;
	struct ci_finding *findings; size_t finding_count, finding_cap;
	bool failed;                  /* out of memory: the diagnosis fails */
	struct ci_finding scratch;    /* what ci_rule_add hands out when it fails */
	/* progress: launch indices by (stream, stream_seq, time); which are in a window (a
	 * breadcrumb window, or made since the stream's work was last known done); the suspects;
	 * and the candidates the driver's word weighs (in flight and windows, else the open
	 * windows). */
	size_t *order;
	uint8_t *window;
	struct ci_suspects sus;
	size_t *cand; size_t n_cand;
	/* errors: the verdict is a device fault or pending work, so launches are suspected. */
	bool suspecting;
	/* pointers: the suspects' arguments, their history values, the evidence's addresses (two
	 * per kernel-log line: its page's first and last byte, `launch` = the line). */
	struct ci_attr_vec args, history, pages;
	/* faulting: bad pointers decided (the record's losses cap lower). */
	bool pointer_rule;
};

/* Add finding ID to C, its indices -1: the caller fills in its facts.  Never NULL (out of
 * memory sets C->failed and hands out a scratch finding). */
struct ci_finding *ci_rule_add(struct ci_rule_ctx *c, enum ci_finding_id id);
/* F (added by ci_rule_add) names the faulting launch (F->launch, or a copy F->event with launch
 * -1) with confidence F->strength. */
void ci_rule_suspect(struct ci_rule_ctx *c, const struct ci_finding *f);
/* Lower the confidence to CAP; whether it was higher. */
bool ci_rule_cap(struct ci_rule_ctx *c, enum ci_confidence cap);

/* X(FUNCTION, NAME): the rule families in the order they run; each returns -1 on
 * out-of-memory.  Room after gpu_core for an NCCL family. */
#define CI_RULE_FAMILIES(X)                                                                  \
	X(ci_rules_progress, "progress")    /* progress.c: breadcrumbs, launch states, suspects */ \
	X(ci_rules_errors, "errors")        /* api_errors.c: errors, signal, verdict */          \
	X(ci_rules_pointers, "pointers")    /* pointers.c: attributions and argument history */  \
	X(ci_rules_faulting, "faulting")    /* faulting.c: the faulting launch by the record */  \
	X(ci_rules_losses, "losses")        /* losses.c: what the record lost */                 \
	X(ci_rules_kernel_log, "kernel_log") /* xid.c: the driver's Xid lines */                \
	X(ci_rules_gpu_core, "gpu_core")    /* gpu_core.c: a GPU core dump's faulting grid */    \
	X(ci_rules_history, "history")      /* history.c: the faulting launch's history */       \
	X(ci_rules_graphs, "graphs")        /* graphs.c: a graph launch's kernel node */

typedef int ci_rule_family_fn(struct ci_rule_ctx *c);
#define CI_RULE_FAMILY_DECL(fn, name) ci_rule_family_fn fn;
CI_RULE_FAMILIES(CI_RULE_FAMILY_DECL)
#undef CI_RULE_FAMILY_DECL

/* What the families share beyond the context. */
/* history.c: the same parameter of the suspects' kernels' earlier launches (HV), and the
 * attributions of AV made relative to the allocation those used (after ci_attr_attribute). */
int ci_history_collect(const struct ci_model *m, const struct ci_attr_vec *av, struct ci_attr_vec *hv);
int ci_history_apply(const struct ci_model *m, struct ci_attr_vec *av, const struct ci_attr_vec *hv);

/* ---------------------------------------------------------------------------------------- */
/* Graph replays (replay.c), beyond the public ci_graph_replay_expand: for the graphs family    */
/* and the views                                                                               */

/* Make node NODE of R (a kernel node) its faulting node: sets faulting_node and kernel. */
void ci_graph_replay_pick(const struct ci_model *m, struct ci_graph_replay *r, size_t node);

/* Where node I of R lies when it is inside a child graph or a conditional body: "node 0 of
 * the graph child-graph node 3 runs", "node 0 of body 1 of conditional node 3, if the device
 * chose it"; "" for the replayed graph's own nodes. */
const char *ci_graph_replay_node_where(const struct ci_graph_replay *r, size_t i, char *buf, size_t size);

/* R's node indices in tree order, each child-graph node followed by its graph's nodes
 * (malloc'd, node_count of them; NULL when out of memory: use index order). */
size_t *ci_graph_replay_order(const struct ci_graph_replay *r);

/* The graph tables chained for the views: per graph its own node versions and its execs, per
 * exec its versions (updates), each in table order; SIZE_MAX ends a chain. */
struct ci_graph_index {
	size_t *node_head, *node_next; /* graph slot -> first node entry; entry -> next */
	size_t *exec_head, *exec_next; /* graph slot -> first exec; exec -> next */
	size_t *upd_head, *upd_next;   /* exec slot -> first own version; entry -> next */
};
bool ci_graph_index_init(const struct ci_model *m, struct ci_graph_index *ix);
void ci_graph_index_deinit(struct ci_graph_index *ix);
/* GRAPH's latest own version of each ordinal, by ordinal (malloc'd array in *RET). */
size_t ci_graph_latest_nodes(const struct ci_model *m, const struct ci_graph_index *ix, uint32_t graph,
			     const struct ci_graph_node ***ret);

#endif /* CI_DIAGNOSE_H */
