/* SPDX-License-Identifier: MIT */
/*
 * Freed-allocation ranges for the JIT reader (see freed.h).  Works on a list of covered,
 * disjoint intervals: live allocations and host modules first, then every free from newest to
 * oldest, each contributing only the parts nothing covers yet.
 */
#include "freed.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct interval {
	uint64_t start, end;
};

struct interval_set {
	struct interval *v;
	size_t n, cap;
};

static bool freed_kind_named(uint32_t kind)
{
	switch (kind) {
	case CI_ALLOC_DEVICE:
	case CI_ALLOC_PITCH:
	case CI_ALLOC_MANAGED:
	case CI_ALLOC_ASYNC:
	case CI_ALLOC_POOL_ASYNC:
	case CI_ALLOC_VMM_MAP:
		return true;
	default:
		return false;
	}
}

/* Index of the first interval whose end lies past ADDR. */
static size_t interval_first_after(const struct interval_set *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Add [start, end), merging with what it touches. */
static int interval_add(struct interval_set *s, uint64_t start, uint64_t end)
{
	size_t i = interval_first_after(s, start > 0 ? start - 1 : 0);
	size_t j = i;
	while (j < s->n && s->v[j].start <= end) {
		if (s->v[j].start < start)
			start = s->v[j].start;
		if (s->v[j].end > end)
			end = s->v[j].end;
		j++;
	}
	if (i == j) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct interval *v = realloc(s->v, cap * sizeof(*v));
			if (!v)
				return -1;
			s->v = v;
			s->cap = cap;
		}
		memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
		s->n++;
	} else if (j - i > 1) {
		memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof(*s->v));
		s->n -= j - i - 1;
	}
	s->v[i] = (struct interval){ start, end };
	return 0;
}

static int range_push(struct ci_freed_range **v, size_t *n, size_t *cap,
		      struct ci_freed_range r)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct ci_freed_range *nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return -1;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = r;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct ci_freed_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int ci_freed_ranges(const struct ci_model *model, struct ci_freed_range **ret, size_t *n)
{
	struct interval_set covered = { 0 };
	struct ci_freed_range *out = NULL;
	size_t count = 0, cap = 0;
	int rc = -1;

	*ret = NULL;
	*n = 0;
	for (size_t i = 0; i < model->alloc_count; i++) {
		const struct ci_alloc *a = &model->allocs[i];
		if (a->size && a->address + a->size > a->address &&
		    interval_add(&covered, a->address, a->address + a->size))
			goto out;
	}
	for (size_t i = 0; i < model->host_module_count; i++) {
		const struct ci_host_module *m = &model->host_modules[i];
		if (m->seq && !m->unload_ns && m->end > m->start &&
		    interval_add(&covered, m->start, m->end))
			goto out;
	}
	/* model->frees is oldest first: walk it backwards so newer frees claim addresses first. */
	for (size_t k = model->free_count; k-- > 0;) {
		const struct ci_alloc *f = &model->frees[k];
		uint64_t start = f->address, end = f->address + f->size;
		if (!freed_kind_named(f->kind) || f->size == 0 || end < start)
			continue;
		uint64_t at = start;
		for (size_t i = interval_first_after(&covered, start);
		     i < covered.n && covered.v[i].start < end && at < end; i++) {
			if (covered.v[i].start > at &&
			    range_push(&out, &count, &cap,
				       (struct ci_freed_range){ at, covered.v[i].start, f->id }))
				goto out;
			if (covered.v[i].end > at)
				at = covered.v[i].end;
		}
		if (at < end &&
		    range_push(&out, &count, &cap, (struct ci_freed_range){ at, end, f->id }))
			goto out;
		if (interval_add(&covered, start, end))
			goto out;
	}
	if (count)
		qsort(out, count, sizeof(*out), range_cmp);
	*ret = out;
	*n = count;
	out = NULL;
	rc = 0;
out:
	free(out);
	free(covered.v);
	return rc;
}
