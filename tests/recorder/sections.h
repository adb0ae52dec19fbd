/* SPDX-License-Identifier: MIT */
/* Section kinds as words (record.h's, as in the JSON), for the recorder's test programs' output. */
#ifndef CI_TEST_RECORDER_SECTIONS_H
#define CI_TEST_RECORDER_SECTIONS_H
#include "cudainspect/record.h"

#define SECTION_WORD(name, value, word, title) [value] = word,
static const char *const section_words[CI_SECTION_KIND_MAX] = { CI_SECTION_KINDS(SECTION_WORD) };
#undef SECTION_WORD
#endif
