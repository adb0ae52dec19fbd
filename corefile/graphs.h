/* SPDX-License-Identifier: MIT */
/* What corefile/graphs.c offers the diagnosis beyond the public ci_graph_replay_expand. */
#ifndef CUDAINSPECT_GRAPHS_H
#define CUDAINSPECT_GRAPHS_H

#include "cudainspect/cudainspect.h"

/* Make node NODE of R (a kernel node) its faulting node: sets faulting_node and kernel. */
void ci_graph_replay_pick(const struct ci_model *m, struct ci_graph_replay *r, size_t node);

#endif
