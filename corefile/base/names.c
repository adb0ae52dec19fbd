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

#include "base.h"

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

/* Enum words, from the X-macro lists (record.h, cudainspect.h): index by value; gaps and
 * out-of-range values read "unknown". */
#define CI_WORD_ENTRY(name, value, word, ...) [value] = word,
#define CI_SECOND_ENTRY(name, value, word, second, ...) [value] = second,
static const char *ci_word_at(const char *const *words, size_t n, uint32_t v, const char *none)
{
	return v < n && words[v] ? words[v] : none;
}
#define CI_WORDS(fn, type, LIST, ENTRY, none)                                                \
	const char *fn(type v)                                                               \
	{                                                                                    \
		static const char *const words[] = { LIST(ENTRY) };                           \
		return ci_word_at(words, sizeof words / sizeof words[0], (uint32_t)v, none); \
	}

CI_WORDS(ci_alloc_kind_name, uint32_t, CI_ALLOC_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_launch_api_name, uint32_t, CI_LAUNCH_APIS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_launch_api_text, uint32_t, CI_LAUNCH_APIS, CI_SECOND_ENTRY, "an unknown launch API")
CI_WORDS(ci_event_kind_name, uint32_t, CI_EVENT_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_node_type_name, uint32_t, CI_NODE_TYPES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_graph_origin_name, uint32_t, CI_GRAPH_ORIGINS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_stream_kind_name, uint32_t, CI_STREAM_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_crumb_status_name, uint32_t, CI_CRUMB_STATUSES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_context_kind_name, uint32_t, CI_CONTEXT_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_record_state_name, uint32_t, CI_RECORD_STATES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_record_origin_name, uint32_t, CI_RECORD_ORIGINS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_stack_mode_name, uint32_t, CI_STACK_MODES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_python_state_name, uint32_t, CI_PY_STATES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_section_word, uint32_t, CI_SECTION_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_section_title, uint32_t, CI_SECTION_KINDS, CI_SECOND_ENTRY, NULL)
CI_WORDS(ci_source_kind_name, uint32_t, CI_SOURCE_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_locate_method_phrase, uint32_t, CI_LOCATE_METHODS, CI_SECOND_ENTRY, "the caller")
CI_WORDS(ci_launch_state_name, enum ci_launch_state, CI_LAUNCH_STATES, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_confidence_name, enum ci_confidence, CI_CONFIDENCES, CI_WORD_ENTRY, "none")
CI_WORDS(ci_relation_name, enum ci_relation, CI_RELATIONS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_history_name, enum ci_history, CI_HISTORIES, CI_WORD_ENTRY, "none")
CI_WORDS(ci_fault_fit_name, enum ci_fault_fit, CI_FAULT_FITS, CI_WORD_ENTRY, "none")
CI_WORDS(ci_evidence_kind_name, enum ci_evidence_kind, CI_EVIDENCE_KINDS, CI_WORD_ENTRY, "unknown")
CI_WORDS(ci_verdict_name, enum ci_verdict, CI_VERDICTS, CI_WORD_ENTRY, "none")

#define CI_FLAG_WORD(name, bit, word) [bit] = word,
const char *ci_launch_flag_word(unsigned bit)
{
	static const char *const words[] = { CI_LAUNCH_FLAGS(CI_FLAG_WORD) };
	return ci_word_at(words, sizeof words / sizeof words[0], bit, NULL);
}
