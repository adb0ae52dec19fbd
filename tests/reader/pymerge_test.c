/* SPDX-License-Identifier: MIT */
/*
 * Python frames into a native stack (corefile/symbolize/python_core.c, ci_py_merge): with one
 * _PyEval_EvalFrameDefault per entry frame each run goes just inside its eval frame; when the
 * counts disagree (a stack walk that stopped inside libpython) the native stack comes first and
 * the Python frames after it, in stack order, with a note: never Python frames numbered before
 * the native frames they called.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/tap.h"
#include "symbolize/symbolize.h"
#include "cudainspect/cudainspect.h"

static struct ci_frame native(const char *fn)
{
	return (struct ci_frame){ .kind = CI_FRAME_NATIVE, .function = (char *)fn };
}

/* The frames as one string: native function names, "py:NAME" for Python frames. */
static char *order(const struct ci_frame *f, size_t n)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(buf);
		snprintf(buf + k, sizeof buf - k, "%s%s%s", i ? " " : "",
			 f[i].kind == CI_FRAME_PYTHON ? "py:" : "", f[i].function ? f[i].function : "?");
	}
	return buf;
}

static void free_python(struct ci_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == CI_FRAME_PYTHON) {
			free(f[i].function);
			free(f[i].file);
		}
	free(f);
}

int main(void)
{
	/* crash <- layer (entry) | step <- main (entry), innermost first. */
	struct ci_py_frame py[] = {
		{ .function = "crash", .file = "e.py", .line = 3, .instr = -1 },
		{ .function = "layer", .file = "e.py", .line = 9, .instr = -1, .entry = true },
		{ .function = "step", .file = "e.py", .line = 20, .instr = -1 },
		{ .function = "<module>", .file = "e.py", .line = 30, .instr = -1, .entry = true },
	};
	struct ci_py_thread pt = { .frames = py, .frame_count = 4 };

	static const char *const merged_in[] = { "abort", "c_check", "call_c",
		"_PyEval_EvalFrameDefault", "PyObject_Call", "_PyEval_EvalFrameDefault", "main" };
	size_t n = 7;
	struct ci_frame *f = calloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++)
		f[i] = native(merged_in[i]);
	char *note = NULL;
	is_int(ci_py_merge(&pt, &f, &n, &note), 0, "merged: ok");
	is_str(order(f, n), "abort c_check call_c py:crash py:layer _PyEval_EvalFrameDefault "
	       "PyObject_Call py:step py:<module> _PyEval_EvalFrameDefault main",
	       "merged: each run just inside its eval frame");
	ok(note == NULL, "merged: no note");
	free_python(f, n);

	/* The walk stopped inside libpython: one eval frame for two entry frames. */
	static const char *const cut_in[] = { "abort", "c_check", "_PyEval_EvalFrameDefault" };
	n = 3;
	f = calloc(n, sizeof *f);
	for (size_t i = 0; i < n; i++)
		f[i] = native(cut_in[i]);
	is_int(ci_py_merge(&pt, &f, &n, &note), 0, "not merged: ok");
	is_str(order(f, n), "abort c_check _PyEval_EvalFrameDefault py:crash py:layer py:step "
	       "py:<module>", "not merged: the native stack first, then the Python frames, in order");
	is_str(note, "the 4 Python frames follow the native stack, not merged into it: 1 "
	       "interpreter frame for 2 entry frames", "not merged: the note says so");
	free(note);
	free_python(f, n);

	/* No native frames at all: the Python frames alone, no note. */
	n = 0;
	f = NULL;
	note = NULL;
	is_int(ci_py_merge(&pt, &f, &n, &note), 0, "no native frames: ok");
	is_str(order(f, n), "py:crash py:layer py:step py:<module>", "no native frames: the Python ones");
	ok(note == NULL, "no native frames: no note");
	free_python(f, n);
	return done_testing();
}
