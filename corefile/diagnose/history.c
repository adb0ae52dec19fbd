/* SPDX-License-Identifier: MIT */
/*
 * Argument history (docs/USAGE.md, "Argument history"): the same parameter of a kernel's earlier
 * launches says which allocation it points into.  Where they all used one allocation A and the
 * suspect's value lies outside A, near its end or start, the value left its history; where A was
 * freed before the suspect was made, it was freed since.  The pointers family gathers and applies
 * the history before the faulting launch is chosen (it weighs it); rule family "history" then
 * returns the faulting launch's arguments that left their history as evidence.
 */
#include <stdlib.h>

#include "diagnose.h"

/* The function a launch ran, as a key: its table slot, else the handle it was passed (0:
 * neither is known). */
static uint64_t function_key(const struct ci_launch *l)
{
	return l->function != CI_NONE ? (uint64_t)l->function + 1 : l->function_handle ? l->function_handle | (1ull << 63) : 0;
}

/* Whether ring seq SEQ is one of the newest CI_HISTORY_RING of the launch ring. */
static bool in_history_window(const struct ci_model *m, uint64_t seq)
{
	uint64_t head = m->sections[CI_SEC_LAUNCHES].head;
	return head <= CI_HISTORY_RING || seq + CI_HISTORY_RING > head;
}

/* For every suspect argument of AV, the same parameter of the earlier launches of the same
 * function (in the history window, newest first, at most CI_HISTORY_MAX): pushed to HV with
 * `launch` the earlier launch and `arg` the index of the suspect's attribution in AV.  The
 * launches are visited from the newest back; only those in the window's ring slots are loaded
 * (at most CI_HISTORY_RING), so the work is bounded whatever the ring holds, and every decode
 * that holds the window (complete, lazy or sparse) visits the same launches in the same order,
 * whatever their times. */
int ci_history_collect(const struct ci_model *m, const struct ci_attr_vec *av, struct ci_attr_vec *hv)
{
	size_t n = av->n;
	if (!n)
		return 0;
	uint32_t *taken = calloc(n, sizeof(*taken));
	uint64_t *fn = malloc(n * sizeof(*fn)), *seq = malloc(n * sizeof(*seq));
	if (!taken || !fn || !seq)
		goto fail;
	for (size_t k = 0; k < n; k++) {
		const struct ci_launch *s = ci_model_load_launch(m, av->v[k].launch);
		fn[k] = s ? function_key(s) : 0;
		seq[k] = s ? s->seq : 0;
	}
	size_t visited = 0, open = n;
	for (size_t i = m->launch_count; i-- > 0 && open && visited < CI_HISTORY_RING;) {
		if (!ci_model_launch_maybe_newest(m, i, CI_HISTORY_RING))
			continue;
		const struct ci_launch *l = ci_model_load_launch(m, i);
		visited++;
		uint64_t key = l ? function_key(l) : 0;
		if (!key || (l->flags & CI_LAUNCH_FAILED) || !in_history_window(m, l->seq))
			continue;
		size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
		for (size_t k = 0; k < n; k++) {
			const struct ci_attribution *a = &av->v[k];
			if (fn[k] != key || taken[k] >= CI_HISTORY_MAX || l->seq >= seq[k] ||
			    (size_t)a->param_offset + 8 > len)
				continue;
			struct ci_attribution h = { .launch = i, .arg = (uint32_t)k,
						    .param_offset = a->param_offset,
						    .address = ci_le64(l->params + a->param_offset) };
			if (ci_attr_push(hv, &h))
				goto fail;
			if (++taken[k] == CI_HISTORY_MAX)
				open--;
		}
	}
	free(taken);
	free(fn);
	free(seq);
	return 0;
fail:
	free(taken);
	free(fn);
	free(seq);
	return -1;
}

/* Whether the earlier launch behind history value H used allocation A while A was live. */
static bool used_live(const struct ci_model *m, const struct ci_attribution *h)
{
	if (!h->alloc || (h->relation != CI_REL_INSIDE && h->relation != CI_REL_FREED))
		return false;
	if (h->relation == CI_REL_INSIDE)
		return true;
	const struct ci_launch *l = ci_model_load_launch(m, h->launch);
	return l && l->time_ns >= h->alloc->time_ns && l->time_ns < h->alloc->free_ns;
}

/* Compare every suspect argument with its history (HV, attributed): where the earlier
 * launches used one allocation A and this value lies outside it, near its end or start, the
 * attribution becomes relative to A (history LEFT) with where it lies otherwise as the
 * neighbour, unless it lies inside a freed allocation (and no live one): then that stays the
 * attribution (a use after free) and the neighbour is A, with where the value lies against it;
 * where A was freed before this launch, FREED_SINCE; where it is still in A, SAME. */
int ci_history_apply(const struct ci_model *m, struct ci_attr_vec *av, const struct ci_attr_vec *hv)
{
	/* HV's entries by the suspect argument they belong to, newest first within each. */
	size_t *start = calloc(av->n + 1, sizeof(*start)), *by = malloc((hv->n + 1) * sizeof(*by));
	if (!start || !by) {
		free(start);
		free(by);
		return -1;
	}
	for (size_t j = 0; j < hv->n; j++)
		if (hv->v[j].arg < av->n)
			start[hv->v[j].arg + 1]++;
	for (size_t k = 0; k < av->n; k++)
		start[k + 1] += start[k];
	for (size_t j = 0, *fill = start; j < hv->n; j++)
		if (hv->v[j].arg < av->n)
			by[fill[hv->v[j].arg]++] = j;
	/* start[k] is now the end of argument k's entries. */
	for (size_t k = 0, b = 0; k < av->n; b = start[k], k++) {
		struct ci_attribution *a = &av->v[k];
		size_t e = start[k];
		uint32_t n = (uint32_t)(e - b), inside = 0;
		if (!n || !used_live(m, &hv->v[by[b]]))
			continue;
		const struct ci_alloc *A = hv->v[by[b]].alloc;
		for (size_t j = b; j < e; j++)
			inside += used_live(m, &hv->v[by[j]]) && hv->v[by[j]].alloc->id == A->id;
		a->history_launches = n;
		a->history_inside = inside;
		a->history_alloc = A;
		const struct ci_launch *l = ci_model_load_launch(m, a->launch);
		if (a->alloc && a->alloc->id == A->id) {
			bool freed = a->relation == CI_REL_FREED && l && A->free_ns && l->time_ns >= A->free_ns;
			a->history = freed && inside ? CI_HISTORY_FREED_SINCE : CI_HISTORY_SAME;
			continue;
		}
		/* Every earlier launch used A (two at least where the value is in another live
		 * allocation: one launch is no pattern), and the value is near A. */
		if (inside != n || (n < 2 && a->relation == CI_REL_INSIDE) || !A->size)
			continue;
		uint64_t end = A->address + A->size < A->address ? UINT64_MAX : A->address + A->size;
		uint64_t near = A->size > CI_NEAR_BYTES_MIN ? A->size : CI_NEAR_BYTES_MIN;
		enum ci_relation rel;
		uint64_t off;
		if (a->address >= end) {
			rel = CI_REL_PAST_END;
			off = a->address - end;
		} else if (a->address < A->address) {
			rel = CI_REL_BEFORE_START;
			off = A->address - a->address;
		} else {
			continue; /* inside A's range but attributed elsewhere: a smaller one inside it */
		}
		if (off >= near)
			continue;
		if (a->relation == CI_REL_FREED) {
			/* Inside a freed allocation and no live one: a use after free first; where it
			 * lies against A is the secondary fact. */
			a->neighbour_relation = rel;
			a->neighbour = A;
			a->neighbour_offset = off;
			a->history = CI_HISTORY_LEFT;
			continue;
		}
		a->neighbour_relation = a->relation;
		a->neighbour = a->alloc;
		a->neighbour_offset = a->offset;
		a->relation = rel;
		a->alloc = A;
		a->offset = off;
		a->history = CI_HISTORY_LEFT;
	}
	free(start);
	free(by);
	return 0;
}

int ci_rules_history(struct ci_rule_ctx *c)
{
	const struct ci_diagnosis *d = c->diag;
	for (size_t k = 0; d->faulting_launch >= 0 && k < c->args.n; k++) {
		const struct ci_attribution *a = &c->args.v[k];
		if (a->launch != (size_t)d->faulting_launch ||
		    (a->history != CI_HISTORY_LEFT && a->history != CI_HISTORY_FREED_SINCE))
			continue;
		struct ci_finding *f = ci_rule_add(c, a->history == CI_HISTORY_LEFT ? CI_F_ARG_LEFT_HISTORY
										   : CI_F_ARG_FREED_SINCE);
		f->launch = d->faulting_launch;
		f->where = *a;
		f->alloc = a->alloc;
		f->decisive = d->xid < 0;
	}
	return 0;
}
