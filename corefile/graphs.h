/* SPDX-License-Identifier: MIT */
/* What corefile/graphs.c offers the diagnosis beyond the public ci_graph_replay_expand. */
#ifndef CUDAINSPECT_GRAPHS_H
#define CUDAINSPECT_GRAPHS_H

#include "cudainspect/cudainspect.h"

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

#endif
