/* SPDX-License-Identifier: MIT */
/*
 * The crash signature: a short, stable fingerprint of a diagnosis, so that a crash pipeline
 * groups the same bug across processes, hosts and builds.  It hashes four words, each chosen to
 * stay the same when only addresses, pids, times, thread ids, load addresses or the order of
 * unrelated work change: the error (the CUresult name of the first sticky error, else of the
 * last error, else the verdict), the faulting kernel (its symbol as the record names it, "copy"
 * or "set" for a copy-engine fault, "-" when none is named), the launch site (the first
 * function of the launch's recorded stack outside the CUDA libraries, "-" without symbols) and
 * the relation of the bad address (the faulting launch's first bad argument, "arg1:past_end:left",
 * else where the driver's fault page lies, "xid31:past_end").  docs/USAGE.md ("The crash signature")
 * says what changes it and what does not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

/* Libraries whose frames are not the application's launch site. */
static bool cuda_library(const char *module)
{
	static const char *const prefixes[] = {
		"libcuda.", "libcudart", "libcublas", "libcudnn", "libnccl", "libcufft", "libcurand",
		"libcusparse", "libcusolver", "libnvrtc", "libtorch_cuda", "libc10_cuda",
		"libcudainspect",
	};
	if (!module)
		return false;
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The first named frame of recorded stack ID outside the CUDA libraries, or "-". */
static void launch_site(const struct ci_report *r, uint32_t id, char *buf, size_t n)
{
	size_t np = 0;
	snprintf(buf, n, "-");
	if (!ci_model_stack(r->model, id, &np))
		return;
	for (size_t i = 0; i < np; i++) {
		const struct ci_resolved_pc *rp = ci_report_pc(r, id, i);
		for (size_t k = 0; rp && k < rp->count; k++) {
			const struct ci_frame *f = &rp->frames[k];
			if (f->function && !cuda_library(f->module)) {
				ci_scrub(f->function, buf, n);
				return;
			}
		}
	}
}

void ci_report_fingerprint_make(struct ci_report *r)
{
	const struct ci_model *m = r->model;
	const struct ci_diagnosis *d = r->diagnosis;
	char error[64], kernel[256] = "-", site[256] = "-", rel[96] = "none";
	ptrdiff_t ei = d->first_sticky_error >= 0 ? d->first_sticky_error : d->last_error;
	snprintf(error, sizeof error, "%s", ei >= 0 ? ci_cuda_result_name(m->errors[ei].result)
						    : ci_verdict_name(d->verdict));
	if (d->faulting_launch >= 0 || (d->faulting_launch < 0 && d->failed_launch >= 0)) {
		size_t li = (size_t)(d->faulting_launch >= 0 ? d->faulting_launch : d->failed_launch);
		const struct ci_launch *l = ci_report_launch(r, li);
		const char *raw = ci_model_function_name(m, l->function);
		if (raw && *raw)
			ci_scrub(raw, kernel, sizeof kernel);
		launch_site(r, l->stack, site, sizeof site);
	} else if (d->faulting_copy >= 0) {
		const struct ci_event *e = &m->events[d->faulting_copy];
		snprintf(kernel, sizeof kernel, "%s", e->kind == CI_EV_MEMCPY ? "copy" : "set");
		launch_site(r, e->stack, site, sizeof site);
	}
	/* The faulting launch's bad argument first (there with or without a kernel log), else
	 * where the driver's fault page lies. */
	{
		for (size_t i = 0; d->faulting_launch >= 0 && i < d->attribution_count; i++) {
			const struct ci_attribution *a = &d->attributions[i];
			if (a->launch != (size_t)d->faulting_launch || a->relation == CI_REL_INSIDE)
				continue;
			snprintf(rel, sizeof rel, "arg%" PRIu32 ":%s%s%s", a->arg,
				 ci_relation_name(a->relation), a->history != CI_HISTORY_NONE &&
				 a->history != CI_HISTORY_SAME ? ":" : "",
				 a->history != CI_HISTORY_NONE && a->history != CI_HISTORY_SAME
					 ? ci_history_name(a->history) : "");
			break;
		}
	}
	if (strcmp(rel, "none") == 0 && d->xid >= 0) {
		const struct ci_attribution *p = &d->xid_page;
		snprintf(rel, sizeof rel, "xid31:%s", p->address < 0x10000 ? "null_page"
						    : p->alloc ? ci_relation_name(p->relation) : "unknown");
	}
	snprintf(r->fingerprint_basis, sizeof r->fingerprint_basis, "%s %s %s %s", error, kernel,
		 site, rel);
	/* FNV-1a, 64 bits, of the basis: 12 hex digits are plenty to group crashes. */
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *c = r->fingerprint_basis; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	snprintf(r->fingerprint, sizeof r->fingerprint, "ci1-%012" PRIx64, h >> 16);
}

const char *ci_report_fingerprint(const struct ci_report *r) { return r->fingerprint; }
const char *ci_report_fingerprint_basis(const struct ci_report *r) { return r->fingerprint_basis; }
