/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: what diagnose reads of every launch and every live allocation,
 * for every kind of model.  A lazy model (ci_decode_options.lazy) keeps the launch and
 * allocation fields diagnose reads, checked, for all its entries while the entries themselves
 * stay in the input; a sparse model
 * (ci_decode_options.sparse) has not read its allocation table at all and looks allocations up
 * where they lie.  These accessors hide the difference.  Decode (corefile/decode.c) implements
 * all of them; nothing here is part of the public API.
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

/* Launch I and live allocation I of MODEL, in the model's order, for the stages after decode:
 * ci_model_launch and ci_model_alloc (a lazy model's entry is copied from the input and its
 * references checked on first use).  The renderers use ci_model_launch_loaded and
 * ci_model_alloc_loaded, which never copy: NULL for an entry a lazy model has not loaded. */
#define ci_model_load_launch ci_model_launch
#define ci_model_load_alloc ci_model_alloc
const struct ci_launch *ci_model_launch_loaded(const struct ci_model *model, size_t i);
const struct ci_alloc *ci_model_alloc_loaded(const struct ci_model *model, size_t i);

/* The stream slot is valid and was published. */
bool ci_stream_valid(const struct ci_model *model, uint32_t slot);

#endif /* CI_MODEL_INTERNAL_H */
