/* SPDX-License-Identifier: MIT */
/*
 * Rule family "losses": what the record lost that bears on the choice of the faulting launch:
 * entries the recorder could not store (a full table, a contended ring) or that the input does
 * not hold.  Each is a finding; where a suspect was named, the confidence is capped (low when bad
 * pointers decided and allocations are missing, else medium) and the cap is a finding too.
 */
#include "diagnose.h"

int ci_rules_losses(struct ci_rule_ctx *c)
{
	static const uint32_t tables[] = {
		CI_SEC_ALLOCS, CI_SEC_LAUNCHES, CI_SEC_STREAMS, CI_SEC_FUNCTIONS, CI_SEC_CONTEXTS,
	};
	const struct ci_model *m = c->model;
	if (!c->suspecting)
		return 0;
	enum ci_confidence cap = CI_CONF_EXACT;
	bool lost = false;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct ci_section_stats *s = &m->sections[tables[i]];
		if (!s->present || (!s->dropped && !s->missing))
			continue;
		struct ci_finding *f = ci_rule_add(c, CI_F_RECORD_LOST);
		f->section = tables[i];
		f->count = s->dropped ? s->dropped : s->missing;
		f->flags = s->dropped ? CI_FINDING_DROPPED : 0;
		lost = true;
		enum ci_confidence t = tables[i] == CI_SEC_ALLOCS && c->pointer_rule ? CI_CONF_LOW
										     : CI_CONF_MEDIUM;
		if (t < cap)
			cap = t;
	}
	if (!lost && (m->header.flags & CI_HDR_TRUNCATED)) {
		ci_rule_add(c, CI_F_RECORD_TRUNCATED);
		lost = true;
		cap = CI_CONF_MEDIUM;
	}
	if (lost && c->diag->faulting_launch >= 0 && ci_rule_cap(c, cap))
		ci_rule_add(c, CI_F_CONFIDENCE_CAPPED)->strength = cap;
	return 0;
}
