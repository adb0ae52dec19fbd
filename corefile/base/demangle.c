/* SPDX-License-Identifier: MIT */
/*
 * C++ names demangled with libstdc++'s __cxa_demangle, loaded on first use: kernel names in
 * reports (model/labels.c) and function names of host frames (symbolize/).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "base.h"

typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);
static cxa_demangle_fn *cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	/* libstdc++ is on every system with gcc; loading it on demand keeps the reader a C
	 * program without a link-time C++ dependency. */
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			f = dlsym(h, "__cxa_demangle");
	}
	cxa_demangle = (cxa_demangle_fn *)f;
}

char *ci_demangle(const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&cxa_once, cxa_load);
	if (!cxa_demangle)
		return NULL;
	int status = -1;
	char *out = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
