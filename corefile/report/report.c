/* SPDX-License-Identifier: MIT */
/*
 * The report session: one call takes an input and a request (view, filters, signal, registers,
 * options) and runs the stages in order, source -> locate -> decode -> evidence -> diagnose ->
 * symbolize, each reading only what the stages before it produced; the result is a finished
 * report that the renderers print without reading anything else.  What each view needs (a full
 * or a sparse model, which recorded stacks, which host threads) comes from the view table
 * (corefile/views.c).  The CLI, `cudainspect record` and the GDB plugin are thin callers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpucore/gpucore.h"
#include "session.h"

/* Frames of a host thread's backtrace, at most. */
#define THREAD_FRAMES_MAX 128

static unsigned request_needs(const struct ci_request *req)
{
	const struct ci_view_row *row = ci_view_row(req->render.view);
	unsigned needs = row ? row->needs : CI_NEEDS_EVERYTHING;
	if (req->json)
		needs = req->json_full ? CI_JSON_NEEDS : CI_JSON_BOUNDED_NEEDS;
	return req->timeline ? needs | CI_NEEDS_FULL_MODEL : needs;
}

void ci_report_destroy(struct ci_report *r)
{
	if (!r)
		return;
	if (r->pcs) {
		for (size_t i = 0; i < r->model->stack_count; i++) {
			size_t n = 0;
			if (r->pcs[i])
				ci_model_stack(r->model, (uint32_t)i + 1, &n);
			ci_resolved_pcs_free(r->pcs[i], n);
		}
		free(r->pcs);
	}
	ci_thread_stacks_free(r->threads, r->thread_count);
	ci_json_bound_destroy(r->json_bound);
	ci_symbolizer_destroy(r->symbolizer);
	ci_diagnosis_destroy(r->diagnosis);
	if (r->evidence)
		ci_gpucore_destroy(r->evidence->gpu_core);
	ci_evidence_destroy(r->evidence);
	ci_model_destroy(r->model);
	ci_source_close(r->src);
	free(r);
}

static void report_destroyp(struct ci_report **r) { ci_report_destroy(*r); }
#define _cleanup_report_ __attribute__((cleanup(report_destroyp)))

static struct ci_error *nomem(void)
{
	return ci_error_create(CI_ERR_NOMEM, "out of memory making the report");
}

/* ---------------------------------------------------------------------------------------- */
/* Checks of the request against the input                                                   */

/* The thread a debugger says received its signal must be one the input has. */
static struct ci_error *check_signal_thread(const struct ci_report *r)
{
	const struct ci_source_info *si = r->source;
	uint32_t tid = r->request.signal_tid;
	if (!r->request.signal || !tid || !si || !si->thread_count)
		return NULL;
	for (size_t i = 0; i < si->thread_count; i++)
		if (si->threads[i].tid == tid)
			return NULL;
	return ci_error_create(CI_ERR_USAGE, "--signal-thread %" PRIu32 ": the input has no thread %"
			       PRIu32, tid, tid);
}

/* A filter that names a stream, thread or kernel the record does not know is an error, said
 * before anything is printed: an empty table would look like "nothing happened there". */
static struct ci_error *check_filters(const struct ci_report *r)
{
	const struct ci_render_options *opt = &r->request.render;
	const struct ci_model *m = r->model;
	if (opt->has_stream_filter) {
		char known[256] = "";
		size_t used = 0, n = 0;
		bool found = false;
		for (size_t i = 0; i < m->stream_count; i++) {
			const struct ci_stream *st = &m->streams[i];
			if (!st->seq)
				continue;
			found |= st->handle == opt->stream_filter || st->stream_id == opt->stream_filter;
			if (n++ < 4 && used < sizeof(known))
				used += (size_t)snprintf(known + used, sizeof(known) - used, "%s0x%" PRIx64,
							 used ? ", " : "", st->handle);
		}
		if (!found)
			return ci_error_create(CI_ERR_USAGE,
					       "--stream 0x%" PRIx64 ": the record has no stream with that "
					       "handle or id (%s%s%s; view: streams)", opt->stream_filter,
					       n ? "it has " : "it has no streams", known, n > 4 ? ", ..." : "");
	}
	if (opt->has_thread_filter) {
		uint32_t tid = opt->thread_filter;
		bool found = false;
		for (size_t i = 0; !found && i < m->thread_count; i++)
			found = m->threads[i].seq && m->threads[i].tid == tid;
		for (size_t i = 0; !found && r->source && i < r->source->thread_count; i++)
			found = r->source->threads[i].tid == tid;
		for (size_t i = 0; !found && i < r->thread_count; i++)
			found = r->threads[i].tid == tid;
		for (size_t i = 0; !found && i < m->error_count; i++)
			found = m->errors[i].tid == tid;
		if (!found)
			return ci_error_create(CI_ERR_USAGE,
					       "--thread %" PRIu32 ": no thread %" PRIu32 " made a CUDA call "
					       "the record holds, and the input has no such thread (view: "
					       "threads lists them)", tid, tid);
	}
	if (opt->kernel_filter && *opt->kernel_filter) {
		bool found = false;
		char name[1024];
		for (size_t i = 0; !found && i < m->function_count; i++) {
			const char *raw = ci_model_function_name(m, (uint32_t)i);
			char *dem = raw ? ci_demangle(raw) : NULL;
			found = raw && (strstr(raw, opt->kernel_filter) ||
					(dem && strstr(ci_scrub(dem, name, sizeof(name)), opt->kernel_filter)));
			free(dem);
		}
		char shown[256];
		if (!found)
			return ci_error_create(CI_ERR_USAGE,
					       "--kernel '%s': no kernel the record knows has that in its "
					       "name (view: kernels lists the launches)",
					       ci_scrub(opt->kernel_filter, shown, sizeof shown));
	}
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Symbolize: the host threads and the recorded stacks the view shows                         */

/* The thread whose backtrace the summary shows: the one that observed the error, else the one
 * that received the signal, else the one that launched the suspect, else the first. */
static uint32_t summary_thread(const struct ci_report *r)
{
	const struct ci_diagnosis *d = r->diagnosis;
	uint32_t tid = d->error_tid ? d->error_tid : d->signal_tid;
	if (!tid && d->faulting_launch >= 0)
		tid = ci_report_launch(r, (size_t)d->faulting_launch)->tid;
	if (!tid && r->source && r->source->thread_count)
		tid = r->source->threads[0].tid;
	return tid;
}

static struct ci_error *unwind(struct ci_report *r, unsigned needs)
{
	if (needs & CI_NEEDS_THREADS)
		return ci_unwind_threads(r->symbolizer, THREAD_FRAMES_MAX, &r->threads,
					 &r->thread_count);
	if (!(needs & CI_NEEDS_ONE_THREAD))
		return NULL;
	struct ci_error *err = ci_unwind_thread(r->symbolizer, summary_thread(r), THREAD_FRAMES_MAX,
						&r->threads);
	r->thread_count = r->threads ? 1 : 0;
	return err;
}

/* Resolve every frame of recorded stack ID, once. */
static int resolve_stack(struct ci_report *r, uint32_t id)
{
	size_t n = 0;
	const uint64_t *pcs = ci_model_stack(r->model, id, &n);
	if (!pcs || !n || r->pcs[id - 1])
		return 0;
	struct ci_resolved_pc *v = calloc(n, sizeof *v);
	if (!v)
		return -1;
	bool python = false;
	for (size_t i = 0; i < n; i++) {
		if (pcs[i] & CI_PYFRAME_TAG)
			python = v[i].python_word = true;
		else
			v[i].frames = ci_symbolize_cached(r->symbolizer, pcs[i], true, &v[i].count);
	}
	r->pcs[id - 1] = v;
	return python ? ci_py_resolve_recorded(r->model, pcs, n, v) : 0;
}

static int resolve_alloc(struct ci_report *r, const struct ci_alloc *a, bool freed)
{
	return resolve_stack(r, a->stack) || (freed && resolve_stack(r, a->free_stack));
}

/* The launches the diagnosis names, loaded from a lazy model (the renderers never decode), with
 * their stacks and those of the allocations it attributes pointers to when STACKS. */
static int load_diagnosed(struct ci_report *r, bool stacks)
{
	const struct ci_diagnosis *d = r->diagnosis;
	ptrdiff_t named[2] = { d->faulting_launch, d->failed_launch };
	for (size_t i = 0; i < 2 + d->stream_count + d->attribution_count; i++) {
		ptrdiff_t li = i < 2 ? named[i]
			       : i < 2 + d->stream_count ? d->streams[i - 2].oldest_unfinished
							 : (ptrdiff_t)d->attributions[i - 2 - d->stream_count].launch;
		const struct ci_launch *l = li >= 0 ? ci_model_load_launch(r->model, (size_t)li) : NULL;
		if (l && stacks && resolve_stack(r, l->stack))
			return -1;
	}
	if (stacks && d->faulting_copy >= 0 && resolve_stack(r, r->model->events[d->faulting_copy].stack))
		return -1;
	for (size_t i = 0; stacks && i < d->attribution_count; i++) {
		const struct ci_attribution *a = &d->attributions[i];
		if (a->alloc && resolve_alloc(r, a->alloc, a->relation == CI_REL_FREED))
			return -1;
	}
	/* The graphs' own stacks (bounded tables): the faulting node's capture stack, and what
	 * the graphs view shows. */
	const struct ci_model *m = r->model;
	for (size_t i = 0; stacks && i < m->graph_count; i++)
		if (m->graphs[i].seq && resolve_stack(r, m->graphs[i].stack))
			return -1;
	for (size_t i = 0; stacks && i < m->graph_exec_count; i++)
		if (m->graph_execs[i].seq && resolve_stack(r, m->graph_execs[i].stack))
			return -1;
	for (size_t i = 0; stacks && i < m->graph_node_count; i++)
		if (m->graph_nodes[i].seq && resolve_stack(r, m->graph_nodes[i].stack))
			return -1;
	return 0;
}

/* A lazy model's kernels and allocs views: load what they show.  The kernels view shows the
 * newest N launches that match the filters: the ring is walked back from its head until N match
 * (with filters each launch is read into a scratch copy and only those that match are loaded);
 * the older ones are only counted (by their briefs when no thread or kernel filter asks for
 * more, else each read into a scratch copy, never kept).  The allocs view shows the first N
 * allocations by address (all without N).  -1 on out-of-memory. */
static int load_shown(struct ci_report *r, unsigned needs)
{
	struct ci_model *m = r->model;
	const struct ci_render_options *opt = &r->request.render;
	if ((needs & CI_NEEDS_LAUNCH_STACKS) && !m->launches && ci_model_launch_briefs(m).base) {
		size_t want = opt->last ? opt->last : CI_KERNELS_DEFAULT, found = 0, i = m->launch_count;
		bool by_entry = opt->has_thread_filter || (opt->kernel_filter && *opt->kernel_filter);
		bool filtered = by_entry || opt->has_stream_filter;
		size_t peeked = 0;
		while (i > 0 && found < want) {
			struct ci_launch copy;
			if (filtered && !ci_model_launch_loaded(m, --i)) {
				/* Looked at in a scratch copy: only the matching ones are kept. */
				if (!ci_model_launch_peek(m, i, &copy) || !ci_launch_matches(m, opt, &copy))
					continue;
				if (++peeked % 16384 == 0)
					ci_model_launches_release(m);
			} else if (!filtered) {
				--i;
			}
			const struct ci_launch *l = ci_model_load_launch(m, i);
			if (!l)
				return -1;
			found += ci_launch_matches(m, opt, l);
		}
		r->launches_from = i;
		size_t older = 0;
		if (!filtered) {
			older = i;
		} else {
			while (i-- > 0) {
				struct ci_launch copy;
				struct ci_launch_brief b;
				ci_model_launch_brief(m, i, &b);
				if (by_entry) {
					if (!ci_model_launch_peek(m, i, &copy))
						continue;
				} else {
					copy = (struct ci_launch){ .stream = b.stream };
				}
				older += ci_launch_matches(m, opt, &copy);
				/* Counted entries are not kept: nor are the pages they were read from. */
				if (by_entry && i % 16384 == 0)
					ci_model_launches_release(m);
			}
		}
		r->launches_matched = found + older;
		r->launches_counted = true;
	}
	/* The allocs view's allocations are not loaded: the view reads them a sweep of the table at
	 * a time as it prints them (render_text.c), as their stacks are resolved (below). */
	return 0;
}

static int resolve_stacks(struct ci_report *r, unsigned needs)
{
	const struct ci_model *m = r->model;
	if (m->stack_count && !(r->pcs = calloc(m->stack_count, sizeof *r->pcs)))
		return -1;
	if (load_diagnosed(r, needs & CI_NEEDS_DIAGNOSIS_STACKS))
		return -1;
	if (r->request.json && !r->request.json_full && !(r->json_bound = ci_json_bound_make(r)))
		return -1;
	else if (!r->request.json &&
		 (needs & (CI_NEEDS_EVERY_BRIEF | CI_NEEDS_NEWEST_LAUNCHES | CI_NEEDS_EVERY_ALLOC)) &&
		 load_shown(r, needs))
		return -1;
	if (!r->symbolizer || !m->stack_count)
		return 0;
	/* The full JSON document streams a lazy model's entries (render_json.c): the stacks of
	 * all of them, each read into a scratch copy, the pages given back as the walk goes. */
	bool every = r->request.json && r->request.json_full;
	for (size_t i = 0; (needs & CI_NEEDS_LAUNCH_STACKS) && i < m->launch_count; i++) {
		struct ci_launch lc;
		const struct ci_launch *l = ci_model_launch_loaded(m, i);
		if (!l && every && ci_model_launch_peek(m, i, &lc)) {
			l = &lc;
			ci_model_launches_read(m, i + 1);
		}
		if (l && resolve_stack(r, l->stack))
			return -1;
	}
	/* The allocations: those the full JSON document and a text view show (the first --last N of
	 * a lazy model's in the allocs view) read in sweeps, those a bounded document shows loaded. */
	bool walk_allocs = every || !r->request.json;
	size_t allocs = m->alloc_count, last = r->request.render.last;
	if (!r->request.json && !m->allocs && last && last < allocs)
		allocs = last;
	struct ci_alloc_walk walk __attribute__((cleanup(ci_alloc_walk_deinit)));
	ci_alloc_walk_init(&walk, m, allocs);
	for (size_t i = 0; (needs & CI_NEEDS_ALLOC_STACKS) && i < allocs; i++) {
		const struct ci_alloc *a = walk_allocs ? ci_alloc_walk_at(&walk, i) : ci_model_alloc_loaded(m, i);
		if (a && resolve_alloc(r, a, false))
			return -1;
	}
	if (every)
		ci_model_launches_release(m);
	for (size_t i = 0; (needs & CI_NEEDS_FREE_STACKS) && i < m->free_count; i++)
		if (resolve_alloc(r, &m->frees[i], true))
			return -1;
	for (size_t i = 0; (needs & CI_NEEDS_ERROR_STACKS) && i < m->error_count; i++)
		if (resolve_stack(r, m->errors[i].stack))
			return -1;
	for (size_t i = 0; (needs & CI_NEEDS_CONTEXT_STACKS) && i < m->context_count; i++)
		if (m->contexts[i].seq && resolve_stack(r, m->contexts[i].create_stack))
			return -1;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The stages after decode                                                                    */

/* The kernel-log lines: those the record keeps, replaced by the --kernel-log file's when one
 * is given (a log the user hands over is the whole story; the record's are a copy of part).
 * The file `cudainspect record` keeps beside a core is found, and checked, by the CLI
 * (cli_beside_file), which passes it as that file. */
static struct ci_error *kernel_log_evidence(struct ci_report *r)
{
	struct ci_error *err = NULL;
	const struct ci_model *m = r->model;
	if (m->kernel_log_size &&
	    (err = ci_evidence_kernel_log(r->evidence, m, r->source, m->kernel_log,
					  m->kernel_log_size, "the record's kernel log")))
		return err;
	const char *path = r->request.kernel_log;
	if (!path)
		return NULL;
	char *buf = NULL, shown[300], origin[320];
	size_t len = 0;
	if ((err = ci_kernel_log_read(path, &buf, &len)))
		return err;
	snprintf(origin, sizeof origin, "%s", strcmp(path, "-") == 0 ? "the kernel log on standard input"
								    : ci_scrub(path, shown, sizeof shown));
	err = ci_evidence_kernel_log(r->evidence, m, r->source, buf, len, origin);
	free(buf);
	return err;
}

/* The GPU core dump of --gpu-core, read whole (the diagnosis joins it with the record; a file
 * that is not a GPU core, or is cut, fails the report with the reader's sentence). */
static struct ci_error *gpu_core_evidence(struct ci_report *r)
{
	const char *path = r->request.gpu_core;
	if (!path)
		return NULL;
	struct ci_source_options so = r->request.source;
	so.name = NULL;
	struct ci_error *err = ci_gpucore_open(path, &so, &r->evidence->gpu_core);
	if (err) {
		struct ci_error *e2 = ci_error_create(err->code, "--gpu-core: %s", err->message);
		ci_error_destroy(err);
		return e2;
	}
	r->evidence->gpu_core_path = path;
	return NULL;
}

static struct ci_error *report_finish(struct ci_report *r)
{
	struct ci_error *err;
	unsigned needs = request_needs(&r->request);
	struct ci_diagnose_options dopts = {
		.source = r->source,
		.signal = r->request.signal,
		.signal_tid = r->request.signal_tid,
	};
	if ((err = check_signal_thread(r)) || (err = ci_evidence_gather(r->model, &r->evidence)) ||
	    (err = kernel_log_evidence(r)) || (err = gpu_core_evidence(r)) ||
	    (err = ci_diagnose(r->model, r->evidence, &dopts, &r->diagnosis)))
		return err;
	if (!r->request.no_symbols &&
	    (err = ci_symbolizer_create(r->src, r->model, &r->request.symbols, &r->symbolizer))) {
		if (!r->request.symbols_optional || err->code == CI_ERR_NOMEM)
			return err;
		ci_error_destroy(err);
		r->symbolizer = NULL;
	}
	if (r->symbolizer && (err = unwind(r, needs)))
		return err;
	/* A filter naming nothing is said before the view's launches are looked for. */
	if (!r->request.json && (err = check_filters(r)))
		return err;
	if (resolve_stacks(r, needs))
		return nomem();
	r->warning_lists = 0;
	if (r->src)
		r->warnings[r->warning_lists++] = ci_source_warnings(r->src);
	r->warnings[r->warning_lists++] = &r->model->warnings;
	if (r->symbolizer)
		r->warnings[r->warning_lists++] = ci_symbolizer_warnings(r->symbolizer);
	ci_report_fingerprint_make(r);
	return NULL;
}

struct ci_error *ci_report_from_model(struct ci_source *src, struct ci_model *model,
				      const struct ci_request *req, struct ci_report **ret)
{
	_cleanup_report_ struct ci_report *r = calloc(1, sizeof *r);
	if (!r) {
		ci_model_destroy(model);
		return nomem();
	}
	r->model = model;
	r->request = *req;
	if (src) {
		r->src = ci_source_hold(src);
		r->source = ci_source_info(src);
	}
	struct ci_error *err = report_finish(r);
	if (err)
		return err;
	*ret = ci_steal(r);
	return NULL;
}

struct ci_error *ci_report_create(const struct ci_input *in, const struct ci_request *req,
				  struct ci_report **ret)
{
	struct ci_error *err;
	struct ci_source *src = NULL;
	if (in->path)
		err = ci_source_open(in->path, &req->source, &src);
	else if (in->buffer)
		err = ci_source_from_buffer(in->buffer, in->buffer_size, in->buffer_base, &src);
	else
		err = ci_source_open_pid(in->pid, &req->source, &src);
	if (err)
		return err;
	/* Views that show a few launches and allocations of a large record read only those: the
	 * newest launches and the allocations a pointer is looked up in (docs/PERFORMANCE.md);
	 * the kernels view, the newest launches that match its filters besides; the allocs view,
	 * every live allocation, keyed lazily; the bounded JSON, each stream's newest launches,
	 * every entry of the ring judged and counted (not keyed) for what it leaves out. */
	unsigned needs = request_needs(req);
	bool few = !(needs & CI_NEEDS_FULL_MODEL);
	struct ci_decode_options dopts = { .lazy = few,
					   .sparse = few && !(needs & CI_NEEDS_EVERY_BRIEF) };
	dopts.every_alloc = dopts.sparse && (needs & CI_NEEDS_EVERY_ALLOC);
	if (dopts.sparse && (needs & CI_NEEDS_NEWEST_LAUNCHES))
		dopts.list = ci_render_launch_filter(&req->render, req->render.last ? req->render.last
										   : CI_KERNELS_DEFAULT);
	if (dopts.sparse && (needs & CI_NEEDS_STREAM_NEWEST))
		dopts.list = (struct ci_launch_filter){ .per_stream = CI_JSON_LAUNCHES_PER_STREAM,
							.whole_ring = true };
	struct ci_location loc;
	struct ci_model *model = NULL;
	err = ci_locate(src, &loc);
	if (err && err->code == CI_ERR_NO_RECORD && req->render.view == CI_VIEW_THREADS &&
	    !req->json && ci_source_info(src)->kind != CI_SOURCE_RECORD) {
		/* A core or process without a record still has host threads, and Python stacks in
		 * them: the threads view shows those (and says why there is nothing else). */
		if (!(model = ci_model_without_record())) {
			ci_source_close(src);
			return err;
		}
		ci_error_destroy(err);
		err = ci_report_from_model(src, model, req, ret);
	} else if (!err && !(err = ci_decode_with(src, &loc, &dopts, &model))) {
		err = ci_report_from_model(src, model, req, ret);
	}
	ci_source_close(src);
	return err;
}
