/* SPDX-License-Identifier: MIT */
/*
 * Private to the reader library: what diagnose reads of every launch and every live allocation,
 * for every model.  A lazy model (ci_decode_options.lazy) keeps these fields, checked, for all
 * its entries while the entries themselves stay in the input; these accessors give them without
 * copying whole entries, and read the arrays of other models.  Decode (corefile/decode.c)
 * implements them; nothing here is part of the public API.
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

#endif /* CI_MODEL_INTERNAL_H */
