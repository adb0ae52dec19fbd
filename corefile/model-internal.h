/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: what diagnose reads of every launch and every live allocation,
 * for every kind of model, and the per-stream facts that both decode and diagnose need.  A lazy
 * model (ci_decode_options.lazy) keeps the launch and allocation fields diagnose reads, checked,
 * for all its entries while the entries themselves stay in the input; a sparse model
 * (ci_decode_options.sparse) has not read its allocation table at all and looks allocations up
 * where they lie.  These accessors hide the difference.  Decode (corefile/decode.c) implements
 * all of them, the stream facts too (the input side's tests and fuzzers link decode without
 * diagnose); nothing here is part of the public API.
 */
#ifndef CI_MODEL_INTERNAL_H
#define CI_MODEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"

struct ci_launch_brief {
	uint64_t time_ns;
	uint64_t stream_seq;
	uint32_t stream;          /* model stream slot or CI_NONE */
	uint32_t flags;           /* CI_LAUNCH_* */
};

struct ci_alloc_brief {
	uint64_t address;
	uint64_t size;
	uint32_t kind;            /* enum ci_alloc_kind */
};

/* The briefs of all launches, launch i's at base + i * stride. */
struct ci_launch_briefs {
	const uint8_t *base;
	size_t stride;
};

static inline const struct ci_launch_brief *ci_brief_at(struct ci_launch_briefs v, size_t i)
{
	return (const struct ci_launch_brief *)(const void *)(v.base + i * v.stride);
}

/* A lazy model's launch briefs where they are, or { NULL, 0 } for other models (read those one
 * by one with ci_model_launch_brief). */
struct ci_launch_briefs ci_model_launch_briefs(const struct ci_model *model);

/* Launch I (< launch_count) and live allocation I (< alloc_count) of MODEL, briefly. */
void ci_model_launch_brief(const struct ci_model *model, size_t i, struct ci_launch_brief *b);
void ci_model_alloc_brief(const struct ci_model *model, size_t i, struct ci_alloc_brief *b);

/* A live allocation as ci_model_each_alloc hands it over: what lookups compare, and a handle
 * that ci_model_alloc_at turns into the whole entry. */
struct ci_alloc_ref {
	uint64_t address;
	uint64_t size;
	uint64_t id;
	uint32_t kind;
	uint64_t handle;
};

typedef void ci_alloc_visit(const struct ci_alloc_ref *a, void *arg);

/* Call VISIT for every live allocation of MODEL, in no particular order: the model's array, a
 * lazy model's keys, or, in a sparse model, every slot of the table in the input that decode's
 * rules accept (judged then; nothing is copied).  Returns the number visited. */
size_t ci_model_each_alloc(const struct ci_model *model, ci_alloc_visit *visit, void *arg);
/* The live allocation behind HANDLE, owned by MODEL and valid until ci_model_destroy (a sparse
 * model copies and checks it on first use); NULL when it cannot be read any more. */
const struct ci_alloc *ci_model_alloc_at(const struct ci_model *model, uint64_t handle);

/* ---------------------------------------------------------------------------------------- */
/* Stream facts, shared by decode's sparse scan and diagnose                                */

/* The breadcrumb of stream ST as a full 64-bit per-stream launch number, or false when the
 * stream has none (breadcrumbs off, no slot).  32-bit breadcrumbs take their high half from the
 * stream's launch counter; a value past the counter is clamped to it. */
bool ci_stream_crumb(const struct ci_model *model, const struct ci_stream *st, uint64_t *ret);

/* When no launch can still be running on a stream: for every stream slot, the latest start
 * time of a successful synchronization that covers it (cuStreamSynchronize of the stream,
 * cuCtxSynchronize of its context, cuEventSynchronize of an event last recorded on it, taking
 * the record's time), made before BEFORE_NS, from the event ring.  Launches made before
 * BOUND[slot] had finished; 0 means no such synchronization.  BOUND has model->stream_count
 * entries. */
void ci_stream_sync_bounds(const struct ci_model *model, uint64_t before_ns, uint64_t *bound);

/* The first sticky error of MODEL's error ring (by flag, header seq, sticky flag, result), or
 * -1. */
ptrdiff_t ci_first_sticky_error(const struct ci_model *model);

/* Launches per stream that the diagnosis weighs when nothing bounds a stream's unfinished work
 * (no breadcrumbs and no synchronization): the newest this many. */
#define CI_OPEN_WINDOW_MAX 128
/* A launch call that failed is recorded at the start of the call, its error at the end: the
 * failed launch behind an API error is one made at most this long before the error. */
#define CI_FAILED_LAUNCH_NS 1000000ull

#endif /* CI_MODEL_INTERNAL_H */
