/* SPDX-License-Identifier: MIT */
/*
 * Stage 5, diagnose: from a decoded record and its evidence, work out what the GPU was doing.
 * A diagnosis runs the rule families of CI_RULE_FAMILIES (diagnose.h) in order over one context:
 * per-stream progress from the breadcrumbs, the errors and the verdict, the pointer arguments of
 * the suspect launches and their history, the faulting launch by the record's own rules, what the
 * record lost, the driver's kernel-log lines, the faulting launch's argument history and a graph
 * launch's kernel node.  Each family sets the diagnosis's structured results and returns findings;
 * wording.c words them.  Pure function of the model and its evidence: no I/O, no libdw.  The
 * rules are documented in docs/USAGE.md ("How the faulting launch is chosen") and
 * docs/KERNEL-LOG.md ("How a report uses the lines").
 */
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"

void ci_diagnosis_destroy(struct ci_diagnosis *diag)
{
	if (!diag)
		return;
	free(diag->launch_state);
	free(diag->streams);
	free(diag->reasoning);
	free(diag->attributions);
	if (diag->graph)
		ci_graph_replay_deinit(diag->graph);
	free(diag->graph);
	free(diag->gpu);
	for (size_t i = 0; i < diag->evidence_count; i++)
		free(diag->evidence[i].text);
	free(diag->evidence);
	free(diag);
}

/* ---------------------------------------------------------------------------------------- */
/* The run                                                                                    */

static const struct {
	ci_rule_family_fn *run;
	const char *name;
} families[] = {
#define CI_RULE_FAMILY_ROW(fn, name) { fn, name },
	CI_RULE_FAMILIES(CI_RULE_FAMILY_ROW)
#undef CI_RULE_FAMILY_ROW
};

static void rule_ctx_deinit(struct ci_rule_ctx *c)
{
	free(c->findings);
	free(c->order);
	free(c->window);
	free(c->sus.in_flight);
	free(c->sus.window);
	free(c->sus.open);
	free(c->cand);
	ci_attr_vec_deinit(&c->args);
	ci_attr_vec_deinit(&c->history);
	ci_attr_vec_deinit(&c->pages);
}

static struct ci_error *nomem(void)
{
	return ci_error_create(CI_ERR_NOMEM, "out of memory while diagnosing the record");
}

static void diagnosis_destroyp(struct ci_diagnosis **d) { ci_diagnosis_destroy(*d); }
#define _cleanup_diagnosis_ __attribute__((cleanup(diagnosis_destroyp)))

/* The faulting launch's attributions first, the others in their order. */
static void faulting_first(struct ci_attr_vec *av, ptrdiff_t faulting)
{
	if (faulting < 0)
		return;
	size_t w = 0;
	for (size_t j = 0; j < av->n; j++)
		if (av->v[j].launch == (size_t)faulting) {
			struct ci_attribution t = av->v[j];
			memmove(&av->v[w + 1], &av->v[w], (j - w) * sizeof(t));
			av->v[w++] = t;
		}
}

struct ci_error *ci_diagnose(const struct ci_model *model, const struct ci_evidence *ev,
			     const struct ci_diagnose_options *opts, struct ci_diagnosis **ret)
{
	const struct ci_model *m = model;
	size_t nl = m->launch_count, slots = nl ? nl : 1;
	_cleanup_diagnosis_ struct ci_diagnosis *d = calloc(1, sizeof(*d));
	_cleanup_free_ struct ci_launch_brief *own = NULL;
	struct ci_rule_ctx c __attribute__((cleanup(rule_ctx_deinit))) = {
		.model = m, .ev = ev, .opts = opts, .diag = d,
		.order = malloc(slots * sizeof(size_t)),
		.window = calloc(slots, 1),
		.sus = { .in_flight = malloc(slots * sizeof(size_t)),
			 .window = malloc(slots * sizeof(size_t)),
			 .open = malloc(slots * sizeof(size_t)) },
	};
	if (!d || !c.order || !c.window || !c.sus.in_flight || !c.sus.window || !c.sus.open)
		return nomem();
	d->faulting_launch = -1;
	d->failed_launch = -1;
	d->xid = -1;
	d->faulting_copy = -1;
	if (!(d->launch_state = calloc(slots, sizeof(*d->launch_state))))
		return nomem();
	/* What is read of every launch: a lazy model has it at hand, else one pass copies it. */
	c.lb = ci_model_launch_briefs(m);
	if (!c.lb.base) {
		if (!(own = malloc(slots * sizeof(*own))))
			return nomem();
		for (size_t i = 0; i < nl; i++)
			ci_model_launch_brief(m, i, &own[i]);
		c.lb = (struct ci_launch_briefs){ (const uint8_t *)own, sizeof(*own) };
	}

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i].run(&c) || c.failed)
			return nomem();

	if (ci_findings_word(m, ev, d, c.findings, c.finding_count, &d->reasoning, &d->evidence,
			     &d->evidence_count))
		return nomem();
	faulting_first(&c.args, d->faulting_launch);
	d->attribution_count = c.args.n;
	d->attributions = ci_steal(c.args.v);
	*ret = ci_steal(d);
	return NULL;
}
