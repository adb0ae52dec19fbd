/* SPDX-License-Identifier: MIT */
/*
 * Errors and warnings of the reader library: error objects with a code (from the CI_ERRORS
 * X-macro in cudainspect.h), the CLI exit code each maps to, and a full-sentence message; and the
 * growable warning lists every stage appends to.  Allocation failure never loses an error: a
 * static out-of-memory error stands in, and ci_error_destroy knows not to free it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

static struct ci_error ci_enomem = {
	.code = CI_ERR_NOMEM,
	.message = "out of memory",
};

struct ci_error *ci_error_create(enum ci_error_code code, const char *fmt, ...)
{
	struct ci_error *err = malloc(sizeof *err);
	if (!err)
		return &ci_enomem;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	/* A message cut at the buffer's end says so rather than stopping mid-word silently. */
	if (n >= (int)sizeof err->message)
		memcpy(err->message + sizeof err->message - 4, "...", 4);
	return err;
}

void ci_error_destroy(struct ci_error *err)
{
	if (err != &ci_enomem)
		free(err);
}

enum ci_exit ci_error_exit(enum ci_error_code code)
{
	switch (code) {
#define CI_ERROR_EXIT(c, exit, msg) case c: return exit;
	CI_ERRORS(CI_ERROR_EXIT)
#undef CI_ERROR_EXIT
	}
	return CI_EXIT_INTERNAL;
}

const char *ci_error_code_name(enum ci_error_code code)
{
	switch (code) {
#define CI_ERROR_NAME(c, exit, msg) case c: return #c;
	CI_ERRORS(CI_ERROR_NAME)
#undef CI_ERROR_NAME
	}
	return "CI_ERR_UNKNOWN";
}

void ci_warnings_vadd(struct ci_warnings *w, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return; /* a warning lost to out-of-memory is not worth failing the report */
	char **items = realloc(w->items, (w->count + 1) * sizeof *items);
	if (!items) {
		free(s);
		return;
	}
	items[w->count++] = s;
	w->items = items;
}

void ci_warnings_add(struct ci_warnings *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ci_warnings_vadd(w, fmt, ap);
	va_end(ap);
}

void ci_warnings_deinit(struct ci_warnings *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->count; i++)
		free(w->items[i]);
	free(w->items);
	w->items = NULL;
	w->count = 0;
}
