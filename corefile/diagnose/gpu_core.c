/* SPDX-License-Identifier: MIT */
/*
 * The gpu_core rule family: a GPU core dump of the same crash (ci_evidence.gpu_core) names the
 * faulting grid by the GPU's own state.  Match that grid to a recorded launch: same kernel (the
 * cubin's mangled name is the name the driver gave the recorder), same grid and block
 * dimensions, then the context and the launching host thread where the dump and the record both
 * say them, and among the launches still alike the one that passed the arguments the dump's
 * parameter memory holds, the one the breadcrumbs leave unfinished, the one whose ordinal among
 * the kernel's launches is the grid id, else the newest.  A dump whose kernel and dimensions no recorded launch has, whose launching thread
 * is not the launch's, or that was written before the record began, is another run's: the join
 * says so and merges nothing (docs/USAGE.md, "GPU core dumps").  Matched, the launch becomes the
 * faulting one, and the address the dump gives (the access at the error PC) is attributed like an
 * Xid fault page: to an allocation, live or freed, and against the launch's arguments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "gpucore/gpucore.h"

const char *ci_gpu_match_text(unsigned matched, char *buf, size_t n)
{
	static const struct { unsigned bit; const char *word; } words[] = {
#define CI_GPU_MATCH_ROW(name, bit, word) { bit, word },
		CI_GPU_MATCHES(CI_GPU_MATCH_ROW)
#undef CI_GPU_MATCH_ROW
	};
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0] && used < n; i++)
		if (matched & words[i].bit)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", words[i].word);
	return buf;
}

/* Whether the N bytes at OFFSET of GRID's parameter memory in the dump are those at the same
 * offset of L's recorded arguments; false also when either lacks them. */
static bool param_equal(const struct ci_gpucore *gc, size_t grid, const struct ci_launch *l,
			size_t len, uint32_t offset, uint32_t n)
{
	uint64_t dumped, recorded = 0;
	if (n == 0 || n > 8 || offset + n > len)
		return false;
	/* The dump is read 8 bytes at a time: a parameter at its very end is read from 8 bytes
	 * before, where there are 8. */
	uint32_t at = offset, shift = 0;
	if (!ci_gpucore_grid_params(gc, grid, at, &dumped)) {
		if (offset + n < 8 || !ci_gpucore_grid_params(gc, grid, offset + n - 8, &dumped))
			return false;
		shift = 8 - n;
	}
	memcpy(&recorded, l->params + offset, n);
	dumped >>= 8 * shift;
	if (n < 8)
		dumped &= (1ull << (8 * n)) - 1;
	return dumped == recorded;
}

/* Whether GRID's parameter memory in the dump holds L's recorded arguments (the record keeps
 * the first CI_LAUNCH_PARAM_BYTES): each parameter by the kernel's layout where the record
 * knows it (padding between parameters is whatever the caller's buffer held), else each 8-byte
 * word; at least one. */
static bool args_match(const struct ci_model *m, const struct ci_gpucore *gc, size_t grid,
		       const struct ci_launch *l)
{
	size_t len = l->param_len < CI_LAUNCH_PARAM_BYTES ? l->param_len : CI_LAUNCH_PARAM_BYTES;
	const struct ci_function *fn = l->function != CI_NONE && l->function < m->function_count
					       ? &m->functions[l->function] : NULL;
	size_t compared = 0;
	if (fn && fn->params_known) {
		for (uint32_t i = 0; i < fn->nparams && i < CI_PARAMS_MAX; i++) {
			if (fn->param_offset[i] + (size_t)fn->param_size[i] > len || fn->param_size[i] > 8)
				continue; /* past what the record keeps, or a struct: not compared */
			if (!param_equal(gc, grid, l, len, fn->param_offset[i], fn->param_size[i]))
				return false;
			compared++;
		}
		return compared > 0;
	}
	for (uint32_t k = 0; k + 8 <= len; k += 8, compared++)
		if (!param_equal(gc, grid, l, len, k, 8))
			return false;
	return compared > 0;
}

/* How one recorded launch compares with the dump's faulting grid (G, index GRID). */
static unsigned launch_matches(const struct ci_model *m, const struct ci_gpucore *gc, size_t grid,
			       const struct ci_launch *l)
{
	const struct ci_gpu_grid *g = &gc->grids[grid];
	unsigned got = 0;
	const char *name = l->function != CI_NONE && l->function < m->function_count
				   ? ci_model_function_name(m, l->function) : NULL;
	if (name && g->function_name && strcmp(name, g->function_name) == 0)
		got |= CI_GPU_MATCH_NAME;
	if (memcmp(l->grid, g->grid_dim, sizeof l->grid) == 0 &&
	    memcmp(l->block, g->block_dim, sizeof l->block) == 0)
		got |= CI_GPU_MATCH_DIMS;
	if (l->ctx != CI_NONE && l->ctx < m->context_count &&
	    (m->contexts[l->ctx].handle == g->context_id ||
	     (m->contexts[l->ctx].ctx_id && m->contexts[l->ctx].ctx_id == g->context_id)))
		got |= CI_GPU_MATCH_CONTEXT;
	if (g->host_tid && l->tid == g->host_tid)
		got |= CI_GPU_MATCH_THREAD;
	if (args_match(m, gc, grid, l))
		got |= CI_GPU_MATCH_ARGS;
	return got;
}

/* The best candidate so far against launch I: the arguments the dump holds first, then
 * unfinished, then the grid's ordinal, then more facts matched, then the newer. */
static bool better(const struct ci_rule_ctx *c, size_t i, unsigned mi, ptrdiff_t best, unsigned mb)
{
	if (best < 0)
		return true;
	bool ui = c->diag->launch_state[i] != CI_LS_FINISHED;
	bool ub = c->diag->launch_state[best] != CI_LS_FINISHED;
	if ((mi ^ mb) & CI_GPU_MATCH_ARGS)
		return mi & CI_GPU_MATCH_ARGS;
	if (ui != ub)
		return ui;
	if ((mi ^ mb) & CI_GPU_MATCH_ORDER)
		return mi & CI_GPU_MATCH_ORDER;
	if (__builtin_popcount(mi) != __builtin_popcount(mb))
		return __builtin_popcount(mi) > __builtin_popcount(mb);
	return true; /* the model's order is by time: later is newer */
}

/* Why the dump is not this record's, in J->mismatch; false when nothing says so. */
static bool another_run(const struct ci_model *m, const struct ci_gpucore *gc, const struct ci_gpu_grid *g,
			const struct ci_launch *l, unsigned got, struct ci_gpu_join *j)
{
	char name[160]; /* a long C++ name is cut (ci_scrub marks nothing: the start says enough) */
	ci_scrub(g->function_name ? g->function_name : "?", name, sizeof name);
	if (!l) {
		snprintf(j->mismatch, sizeof j->mismatch,
			 "no recorded launch is of %s with grid (%u,%u,%u) and block (%u,%u,%u), the GPU core's "
			 "faulting grid", name, g->grid_dim[0], g->grid_dim[1], g->grid_dim[2], g->block_dim[0],
			 g->block_dim[1], g->block_dim[2]);
		return true;
	}
	if (g->host_tid && !(got & CI_GPU_MATCH_THREAD)) {
		snprintf(j->mismatch, sizeof j->mismatch,
			 "the GPU core's grid of %s was launched by host thread %u; the record's launches of it "
			 "by other threads (thread %u for the newest)", name, g->host_tid, l->tid);
		return true;
	}
	uint64_t start_s = m->header.start_realtime_ns / 1000000000ull;
	if (gc->meta.present && gc->meta.timestamp && start_s && gc->meta.timestamp + 1 < start_s) {
		snprintf(j->mismatch, sizeof j->mismatch,
			 "the GPU core was written at %u (Unix time), %" PRIu64 " s before the recorded process "
			 "started", gc->meta.timestamp, start_s - gc->meta.timestamp);
		return true;
	}
	return false;
}

/* The dump's address against the allocations and against launch L's arguments: into J, and the
 * arguments, if the diagnosis has none of L's yet, into C->args for the summary. */
static int attribute_address(struct ci_rule_ctx *c, const struct ci_launch *l, size_t launch,
			     struct ci_gpu_join *j)
{
	struct ci_attr_vec av = { 0 }, hv = { 0 }, xv = { 0 };
	struct ci_attribution x = { .launch = launch, .address = j->address };
	int rc = -1;
	if (ci_attr_collect_args(c->model, l, launch, &av) || ci_attr_push(&xv, &x) ||
	    ci_attr_attribute(c->model, &av, &hv, &xv))
		goto out;
	j->address_at = xv.v[0];
	ptrdiff_t best = -1;
	for (size_t i = 0; i < av.n; i++) {
		struct ci_attribution a = av.v[i];
		ci_fault_relate(&a, j->address);
		if (a.fault_fit != CI_FIT_NONE && (best < 0 || ci_fault_fits_better(&a, &j->arg_fit))) {
			j->arg_fit = a;
			best = (ptrdiff_t)i;
		}
	}
	if (best < 0)
		memset(&j->arg_fit, 0, sizeof j->arg_fit);
	bool have = false;
	for (size_t i = 0; i < c->args.n && !have; i++)
		have = c->args.v[i].launch == launch;
	for (size_t i = 0; i < av.n && !have; i++)
		if (ci_attr_push(&c->args, &av.v[i]))
			goto out;
	rc = 0;
out:
	ci_attr_vec_deinit(&av);
	ci_attr_vec_deinit(&hv);
	ci_attr_vec_deinit(&xv);
	return rc;
}

int ci_rules_gpu_core(struct ci_rule_ctx *c)
{
	const struct ci_model *m = c->model;
	struct ci_gpucore *gc = c->ev ? c->ev->gpu_core : NULL;
	if (!gc)
		return 0;
	struct ci_gpu_join *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	c->diag->gpu = j;
	j->launch = -1;
	const struct ci_gpu_fault *f = &gc->fault;
	if (f->kind == CI_GPU_FAULT_NONE || f->grid == CI_GPU_NONE) {
		snprintf(j->mismatch, sizeof j->mismatch, "the GPU core names no faulting grid (%s)",
			 f->kind == CI_GPU_FAULT_NONE ? "no exception was found on the device"
						      : "the faulting SM's grid is not in the dump");
		ci_rule_add(c, CI_F_GPU_CORE_MISMATCH);
		return 0;
	}
	const struct ci_gpu_grid *g = &gc->grids[f->grid];
	ptrdiff_t best = -1, best_any = -1;
	unsigned mb = 0;
	struct ci_launch l;
	/* The grid id as an ordinal among the kernel's launches (the simulator numbers grids so;
	 * the driver's ids are its own), only where the record holds every launch. */
	bool every_launch = m->launch_count && ci_model_launch_peek(m, 0, &l) && l.seq == 1;
	uint64_t nth = 0;
	size_t with_args = 0;
	for (size_t i = 0; i < m->launch_count; i++) {
		if (!ci_model_launch_peek(m, i, &l))
			continue;
		unsigned got = launch_matches(m, gc, f->grid, &l);
		nth += (got & CI_GPU_MATCH_NAME) != 0;
		if ((got & (CI_GPU_MATCH_NAME | CI_GPU_MATCH_DIMS)) != (CI_GPU_MATCH_NAME | CI_GPU_MATCH_DIMS))
			continue;
		if (every_launch && nth == g->id)
			got |= CI_GPU_MATCH_ORDER;
		j->candidates++;
		j->unfinished += c->diag->launch_state[i] != CI_LS_FINISHED;
		with_args += (got & CI_GPU_MATCH_ARGS) != 0;
		best_any = (ptrdiff_t)i;
		if (g->host_tid && !(got & CI_GPU_MATCH_THREAD))
			continue; /* launched by another thread: not this grid */
		if (better(c, i, got, best, mb)) {
			best = (ptrdiff_t)i;
			mb = got;
		}
	}
	const struct ci_launch *chosen = best >= 0 ? ci_model_load_launch(m, (size_t)best)
				       : best_any >= 0 ? ci_model_load_launch(m, (size_t)best_any) : NULL;
	unsigned got = chosen ? launch_matches(m, gc, f->grid, chosen) : 0;
	if (another_run(m, gc, g, chosen, got, j)) {
		ci_rule_add(c, CI_F_GPU_CORE_MISMATCH);
		return 0;
	}
	j->agrees = true;
	j->launch = best;
	j->matched = mb;
	j->with_args = with_args;
	bool unfinished = c->diag->launch_state[best] != CI_LS_FINISHED;
	if (unfinished && j->unfinished == 1)
		j->matched |= CI_GPU_MATCH_UNFINISHED;
	/* Exact: nothing else recorded is that grid, or only it passed the arguments the dump holds,
	 * or only it is unfinished, or only it has the grid's ordinal.  Else the newest unfinished alike is the
	 * likeliest (the dump holds the grid resident at the fault). */
	bool only_args = (j->matched & CI_GPU_MATCH_ARGS) && with_args == 1;
	j->confidence = j->candidates == 1 || only_args ||
					(j->matched & (CI_GPU_MATCH_UNFINISHED | CI_GPU_MATCH_ORDER))
				? CI_CONF_EXACT
			: unfinished ? CI_CONF_HIGH : CI_CONF_MEDIUM;
	struct ci_finding *fd = ci_rule_add(c, CI_F_BY_GPU_CORE);
	fd->launch = best;
	fd->count = j->candidates;
	fd->total = j->unfinished;
	fd->strength = j->confidence;
	fd->decisive = true;
	if (c->diag->faulting_launch == best)
		fd->flags |= CI_FINDING_KEPT;
	if (j->confidence >= c->diag->confidence || c->diag->faulting_launch < 0) {
		fd->flags |= CI_FINDING_EXACT * (j->confidence == CI_CONF_EXACT);
		ci_rule_suspect(c, fd);
		/* The GPU's own word: a kernel faulted, whatever the host saw of it (with core dumps
		 * on, the driver aborts the process before any call returns the error). */
		if (c->diag->verdict != CI_VERDICT_INCOMPLETE)
			c->diag->verdict = CI_VERDICT_DEVICE_FAULT;
	}
	if (f->access.status == CI_GPU_ACCESS_ADDRESS) {
		j->has_address = true;
		j->address = f->access.address;
		return attribute_address(c, chosen, (size_t)best, j);
	}
	return 0;
}
