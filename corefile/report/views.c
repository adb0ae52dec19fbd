/* SPDX-License-Identifier: MIT */
/*
 * The view table: every view of a report named once, with its text renderer, the filters it
 * accepts and what it needs from the stages before rendering (a full model or a sparse one,
 * which recorded stacks and host threads).  The CLI's parser, --help and filter checks, the GDB
 * command file (generated from `cudainspect --list-views` at build time) and docs/CLI.md's list
 * derive from it.  A new view is one row here and one ci_text_view_fn in render_text.c.
 */
#include <string.h>

#include "session.h"

static const struct ci_view_row rows[] = {
	{ { "summary", CI_VIEW_SUMMARY, 0,
	    "One-screen summary: what failed, the faulting kernel, pending work, next steps.",
	    "Usage: cuda summary [CLI OPTIONS]\n"
	    "Same as `cudainspect CORE` (or `cudainspect --pid PID`) for this core or process." },
	  CI_NEEDS_ONE_THREAD | CI_NEEDS_DIAGNOSIS_STACKS, ci_text_summary },
	{ { "fault", CI_VIEW_FAULT, 0,
	    "The faulting launch in full: the reasoning, every pointer argument and the\n"
	    "allocation it falls in, with the stacks that allocated and freed it.",
	    "Usage: cuda fault [CLI OPTIONS]" },
	  CI_NEEDS_DIAGNOSIS_STACKS, ci_text_fault },
	{ { "contexts", CI_VIEW_CONTEXTS, 0,
	    "Devices and CUDA contexts recorded in this process.",
	    "Usage: cuda contexts [CLI OPTIONS]" },
	  0, ci_text_contexts },
	{ { "streams", CI_VIEW_STREAMS, CI_FILTER_STREAM,
	    "Streams with their launches finished, in flight and not started (breadcrumbs).",
	    "Usage: cuda streams [CLI OPTIONS]" },
	  CI_NEEDS_DIAGNOSIS_STACKS, ci_text_streams },
	{ { "kernels", CI_VIEW_KERNELS,
	    CI_FILTER_STREAM | CI_FILTER_THREAD | CI_FILTER_KERNEL | CI_FILTER_LAST,
	    "The last kernel launches, newest last.",
	    "Usage: cuda kernels [N] [--stream S] [--kernel SUBSTR] [--thread TID]\n"
	    "N is how many launches to show (default 20).  S is a stream handle or id.\n"
	    "Example: cuda kernels 50 --kernel attn" },
	  CI_NEEDS_NEWEST_LAUNCHES | CI_NEEDS_LAUNCH_STACKS, ci_text_kernels },
	{ { "graphs", CI_VIEW_GRAPHS, 0,
	    "CUDA graphs: how each was captured or built, its nodes, its executable graphs\n"
	    "with their updates, and the replay in flight with the state of each node.",
	    "Usage: cuda graphs [CLI OPTIONS]" },
	  CI_NEEDS_FULL_MODEL | CI_NEEDS_DIAGNOSIS_STACKS, ci_text_graphs },
	{ { "allocs", CI_VIEW_ALLOCS, CI_FILTER_THREAD | CI_FILTER_LAST | CI_FILTER_FREED,
	    "Live device allocations, optionally with the recently freed ones.",
	    "Usage: cuda allocs [N] [freed] [--thread TID]\n"
	    "N shows the first N allocations; `freed` adds the ring of recent frees.\n"
	    "Example: cuda allocs freed" },
	  CI_NEEDS_EVERY_ALLOC | CI_NEEDS_ALLOC_STACKS | CI_NEEDS_FREE_STACKS, ci_text_allocs },
	{ { "errors", CI_VIEW_ERRORS, CI_FILTER_THREAD,
	    "CUDA driver calls that returned an error, oldest first, with their threads.",
	    "Usage: cuda errors [--thread TID]" },
	  CI_NEEDS_ERROR_STACKS, ci_text_errors },
	{ { "threads", CI_VIEW_THREADS, CI_FILTER_THREAD,
	    "Host threads with their stacks and the CUDA calls they made last.",
	    "Usage: cuda threads [--thread TID]" },
	  CI_NEEDS_THREADS, ci_text_threads },
	{ { "nccl", CI_VIEW_NCCL, CI_FILTER_LAST,
	    "NCCL communicators (rank, size, device, state) and their newest collectives with\n"
	    "their numbers and where each stands on its stream.",
	    "Usage: cuda nccl [N]\n"
	    "N is how many collectives to show per communicator (default 20).\n"
	    "The whole job's records side by side: cudainspect merge (docs/CLI.md)." },
	  0, ci_text_nccl },
	{ { "all", CI_VIEW_ALL,
	    CI_FILTER_STREAM | CI_FILTER_THREAD | CI_FILTER_KERNEL | CI_FILTER_LAST |
		    CI_FILTER_FREED,
	    "Every view above, then the record's own statistics and every warning.",
	    "Usage: cuda all [CLI OPTIONS]" },
	  CI_NEEDS_EVERYTHING, ci_text_all },
};

size_t ci_view_count(void)
{
	return sizeof rows / sizeof rows[0];
}

const struct ci_view_info *ci_view_at(size_t i)
{
	return i < sizeof rows / sizeof rows[0] ? &rows[i].info : NULL;
}

const struct ci_view_row *ci_view_row(enum ci_view view)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (rows[i].info.view == view)
			return &rows[i];
	return NULL;
}

const struct ci_view_info *ci_view_info(enum ci_view view)
{
	const struct ci_view_row *r = ci_view_row(view);
	return r ? &r->info : NULL;
}

const struct ci_view_info *ci_view_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof rows / sizeof rows[0]; i++)
		if (strcmp(rows[i].info.name, name) == 0)
			return &rows[i].info;
	return NULL;
}

bool ci_view_shows_threads(enum ci_view view)
{
	const struct ci_view_row *r = ci_view_row(view);
	return r && (r->needs & (CI_NEEDS_ONE_THREAD | CI_NEEDS_THREADS));
}

const char *ci_view_filter_option(unsigned bit)
{
#define CI_FILTER_OPTION(name, b, option) [b] = option,
	static const char *const options[] = { CI_VIEW_FILTERS(CI_FILTER_OPTION) };
#undef CI_FILTER_OPTION
	return bit < sizeof options / sizeof options[0] ? options[bit] : NULL;
}
