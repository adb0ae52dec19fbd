/* SPDX-License-Identifier: MIT */
/*
 * Which address ranges the JIT reader names after recently freed allocations: a pure function
 * of the decoded record, kept apart from the GDB glue so that its precedence rules are tested
 * without GDB (tests/plugin/freed-test.c).
 */
#ifndef CUDAINSPECT_PLUGIN_FREED_H
#define CUDAINSPECT_PLUGIN_FREED_H

#include <stddef.h>
#include <stdint.h>

#include "cudainspect/cudainspect.h"

#define CI_FREED_PREFIX "cuda_freed_"

struct ci_freed_range {
	uint64_t start, end;  /* [start, end) */
	uint64_t id;          /* allocation id of the freed allocation */
};

/* The parts of recently freed device allocations (model->frees) that GDB may name
 * "cuda_freed_<id>", sorted by start and disjoint.  Precedence: a live allocation (any kind)
 * wins over every free, a newer free over an older one, and a loaded host module's range is
 * never named (host memory gets reused by the host).  Freed pinned or registered host memory
 * is left out for the same reason.  *RET is malloc'd (NULL when *N is 0).  Returns 0, or -1
 * when out of memory. */
int ci_freed_ranges(const struct ci_model *model, struct ci_freed_range **ret, size_t *n);

#endif
