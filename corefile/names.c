/* SPDX-License-Identifier: MIT */
/*
 * Names for renderers: the record's enums as stable lowercase words (these appear in the JSON
 * output, so they never change once published), and CUresult names, descriptions and
 * stickiness from a table generated from cuda.h at build time (corefile/names-curesult.awk into
 * $(BUILD)/gen/cuda-results.h).  Descriptions are the first sentence of cuda.h's doc comment,
 * except for the errors users meet most, where the short text the CUDA runtime prints
 * ("an illegal memory access was encountered") is what people search for.
 */
#include <stdio.h>

#include "reader-internal.h"

struct ci_curesult {
	int32_t value;
	const char *name;
	const char *text;
	bool sticky;
};

static const struct ci_curesult ci_curesults[] = {
#define CI_CURESULT(v, n, t, s) { v, n, t, s },
#include "cuda-results.h"
#undef CI_CURESULT
};

/* The runtime's error strings (cudaGetErrorString, same numbers as CUresult for these), which
 * are the words in every user's log.  Everything else uses the cuda.h sentence. */
static const struct { int32_t value; const char *text; } ci_short_texts[] = {
	{ 0, "no error" },
	{ 1, "invalid argument" },
	{ 2, "out of memory" },
	{ 3, "initialization error" },
	{ 4, "driver shutting down" },
	{ 100, "no CUDA-capable device is detected" },
	{ 101, "invalid device ordinal" },
	{ 200, "device kernel image is invalid" },
	{ 201, "invalid device context" },
	{ 209, "no kernel image is available for execution on the device" },
	{ 214, "uncorrectable ECC error encountered" },
	{ 400, "invalid resource handle" },
	{ 500, "named symbol not found" },
	{ 600, "device not ready" },
	{ 700, "an illegal memory access was encountered" },
	{ 701, "too many resources requested for launch" },
	{ 702, "the launch timed out and was terminated" },
	{ 709, "context is destroyed" },
	{ 710, "device-side assert triggered" },
	{ 714, "hardware stack error" },
	{ 715, "an illegal instruction was encountered" },
	{ 716, "misaligned address" },
	{ 717, "operation not supported on global/shared address space" },
	{ 718, "invalid program counter" },
	{ 719, "unspecified launch failure" },
	{ 720, "too many blocks in cooperative launch" },
	{ 800, "operation not permitted" },
	{ 801, "operation not supported" },
	{ 900, "operation not permitted when stream is capturing" },
	{ 901, "operation failed due to a previous error during capture" },
	{ 999, "unknown error" },
};

static const struct ci_curesult *ci_curesult_find(int32_t value)
{
	size_t lo = 0, hi = sizeof ci_curesults / sizeof ci_curesults[0];
	/* cuda.h lists the values in increasing order; fall back to a scan if a future one does
	 * not, rather than trusting the order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ci_curesults[mid].value == value)
			return &ci_curesults[mid];
		if (ci_curesults[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < sizeof ci_curesults / sizeof ci_curesults[0]; i++)
		if (ci_curesults[i].value == value)
			return &ci_curesults[i];
	return NULL;
}

const char *ci_cuda_result_name(int32_t result)
{
	static __thread char buf[32];
	const struct ci_curesult *r = ci_curesult_find(result);
	if (r)
		return r->name;
	snprintf(buf, sizeof buf, "CUresult %d", result);
	return buf;
}

const char *ci_cuda_result_text(int32_t result)
{
	static __thread char buf[64];
	for (size_t i = 0; i < sizeof ci_short_texts / sizeof ci_short_texts[0]; i++)
		if (ci_short_texts[i].value == result)
			return ci_short_texts[i].text;
	const struct ci_curesult *r = ci_curesult_find(result);
	if (r)
		return r->text;
	snprintf(buf, sizeof buf, "CUresult %d (not in this cudainspect's cuda.h)", result);
	return buf;
}

bool ci_cuda_result_is_sticky(int32_t result)
{
	const struct ci_curesult *r = ci_curesult_find(result);
	return r && r->sticky;
}

/* Enum words: index by value; gaps and out-of-range values read "unknown". */
#define CI_NAME_LOOKUP(fn, ...)                                                              \
	const char *fn(uint32_t v)                                                           \
	{                                                                                    \
		static const char *const names[] = { __VA_ARGS__ };                          \
		if (v < sizeof names / sizeof names[0] && names[v])                          \
			return names[v];                                                     \
		return "unknown";                                                            \
	}

CI_NAME_LOOKUP(ci_alloc_kind_name,
	[CI_ALLOC_DEVICE] = "device",
	[CI_ALLOC_PITCH] = "pitch",
	[CI_ALLOC_MANAGED] = "managed",
	[CI_ALLOC_ASYNC] = "async",
	[CI_ALLOC_POOL_ASYNC] = "pool_async",
	[CI_ALLOC_VMM_RESERVE] = "vmm_reserve",
	[CI_ALLOC_VMM_MAP] = "vmm_map",
	[CI_ALLOC_HOST] = "host",
	[CI_ALLOC_HOST_REGISTER] = "host_register",
	[CI_ALLOC_VMM_CREATE] = "vmm_create")

CI_NAME_LOOKUP(ci_launch_api_name,
	[CI_LAUNCH_KERNEL] = "kernel",
	[CI_LAUNCH_KERNEL_EX] = "kernel_ex",
	[CI_LAUNCH_COOPERATIVE] = "cooperative",
	[CI_LAUNCH_HOST_FUNC] = "host_func",
	[CI_LAUNCH_GRAPH] = "graph",
	[CI_LAUNCH_LEGACY] = "legacy")

CI_NAME_LOOKUP(ci_event_kind_name,
	[CI_EV_CTX_SYNC] = "ctx_sync",
	[CI_EV_STREAM_SYNC] = "stream_sync",
	[CI_EV_EVENT_SYNC] = "event_sync",
	[CI_EV_EVENT_RECORD] = "event_record",
	[CI_EV_STREAM_WAIT_EVENT] = "stream_wait_event",
	[CI_EV_CAPTURE_BEGIN] = "capture_begin",
	[CI_EV_CAPTURE_END] = "capture_end",
	[CI_EV_GRAPH_INSTANTIATE] = "graph_instantiate",
	[CI_EV_GRAPH_LAUNCH] = "graph_launch",
	[CI_EV_MODULE_LOAD] = "module_load",
	[CI_EV_MODULE_UNLOAD] = "module_unload",
	[CI_EV_CTX_CREATE] = "ctx_create",
	[CI_EV_CTX_DESTROY] = "ctx_destroy",
	[CI_EV_STREAM_CREATE] = "stream_create",
	[CI_EV_STREAM_DESTROY] = "stream_destroy",
	[CI_EV_STREAM_QUERY] = "stream_query",
	[CI_EV_EVENT_QUERY] = "event_query",
	[CI_EV_INIT] = "init",
	[CI_EV_MEMCPY] = "memcpy",
	[CI_EV_MEMSET] = "memset",
	[CI_EV_FORK] = "fork")

CI_NAME_LOOKUP(ci_stream_kind_name,
	[CI_STREAM_CREATED] = "created",
	[CI_STREAM_LEGACY] = "legacy",
	[CI_STREAM_PER_THREAD] = "per_thread")

CI_NAME_LOOKUP(ci_crumb_status_name,
	[CI_CRUMB_OK] = "ok",
	[CI_CRUMB_DISABLED] = "disabled",
	[CI_CRUMB_CAPTURING] = "capturing",
	[CI_CRUMB_UNSUPPORTED] = "unsupported",
	[CI_CRUMB_REGISTER_FAILED] = "register_failed",
	[CI_CRUMB_WRITE_FAILED] = "write_failed",
	[CI_CRUMB_NO_SLOT] = "no_slot")
