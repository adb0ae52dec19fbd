/* SPDX-License-Identifier: MIT */
/*
 * The context the rule families share: findings (added, naming a suspect, capping the
 * confidence) and the vectors of attributions.  The families call it; it calls none of them.
 */
#include <stdlib.h>

#include "diagnose.h"

static const struct {
	const char *word;
	unsigned worded;
} finding_rows[] = {
#define CI_FINDING_ROW(id, word, worded) [id] = { word, worded },
	CI_FINDINGS(CI_FINDING_ROW)
#undef CI_FINDING_ROW
};

const char *ci_finding_word(enum ci_finding_id id)
{
	return (unsigned)id < CI_FINDING_COUNT ? finding_rows[id].word : "unknown";
}

unsigned ci_finding_worded(enum ci_finding_id id)
{
	return (unsigned)id < CI_FINDING_COUNT ? finding_rows[id].worded : CI_WORDED_WHY;
}

struct ci_finding *ci_rule_add(struct ci_rule_ctx *c, enum ci_finding_id id)
{
	struct ci_finding *f = &c->scratch;
	if (!c->failed && !ci_vec_reserve((void **)&c->findings, &c->finding_cap,
					  c->finding_count + 1, sizeof(*c->findings)))
		f = &c->findings[c->finding_count++];
	else
		c->failed = true;
	*f = (struct ci_finding){ .id = id, .launch = -1, .event = -1, .error = -1, .xid = -1,
				  .node = -1 };
	return f;
}

void ci_rule_suspect(struct ci_rule_ctx *c, const struct ci_finding *f)
{
	c->diag->faulting_launch = f->launch;
	c->diag->faulting_copy = f->event;
	c->diag->confidence = f->strength;
}

bool ci_rule_cap(struct ci_rule_ctx *c, enum ci_confidence cap)
{
	if (c->diag->confidence <= cap)
		return false;
	c->diag->confidence = cap;
	return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Attribution vectors                                                                        */

void ci_attr_vec_deinit(struct ci_attr_vec *av)
{
	free(av->v);
}

int ci_attr_push(struct ci_attr_vec *av, const struct ci_attribution *a)
{
	if (ci_vec_reserve((void **)&av->v, &av->cap, av->n + 1, sizeof(*av->v)))
		return -1;
	av->v[av->n++] = *a;
	return 0;
}
