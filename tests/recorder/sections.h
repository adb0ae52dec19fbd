/* SPDX-License-Identifier: MIT */
/* Section kinds as words, for the recorder's test programs' output. */
#ifndef CI_TEST_RECORDER_SECTIONS_H
#define CI_TEST_RECORDER_SECTIONS_H
#include "cudainspect/record.h"

static const char *const section_words[CI_SECTION_KIND_MAX] = {
	[CI_SEC_HOST_MODULES] = "host_modules", [CI_SEC_DEVICES] = "devices",
	[CI_SEC_CONTEXTS] = "contexts",		[CI_SEC_STREAMS] = "streams",
	[CI_SEC_CODE_MODULES] = "code_modules", [CI_SEC_FUNCTIONS] = "functions",
	[CI_SEC_LAUNCHES] = "launches",		[CI_SEC_ALLOCS] = "allocs",
	[CI_SEC_FREES] = "frees",		[CI_SEC_ERRORS] = "errors",
	[CI_SEC_EVENTS] = "events",		[CI_SEC_STACKS] = "stacks",
	[CI_SEC_FRAMES] = "frames",		[CI_SEC_STRINGS] = "strings",
	[CI_SEC_BREADCRUMBS] = "breadcrumbs",	[CI_SEC_THREADS] = "threads",
	[CI_SEC_SYMBOL_IMAGE] = "symbol_image",
};
#endif
