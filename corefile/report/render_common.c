/* SPDX-License-Identifier: MIT */
/*
 * What the text and JSON renderers share beyond the labels of the model (model/labels.c) and the
 * text helpers of every stage (base/text.c): the short name of a kernel for tables, and printing
 * a report as its request says.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

char *ci_kernel_short_name(const char *name, char *buf, size_t n)
{
	int depth = 0;
	size_t i = 0;
	for (; name[i] && i + 1 < n; i++) {
		if (name[i] == '<')
			depth++;
		else if (name[i] == '>' && depth > 0)
			depth--;
		else if (name[i] == '(' && depth == 0 && i > 0)
			break;
		buf[i] = name[i];
	}
	buf[i] = '\0';
	return buf;
}
