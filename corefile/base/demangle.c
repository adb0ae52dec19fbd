/* SPDX-License-Identifier: MIT */
/*
 * C++ names demangled with libstdc++'s __cxa_demangle, loaded on first use: kernel names in
 * reports (model/labels.c) and function names of host frames (symbolize/); and what a demangled
 * kernel's parameter list says of a pointer parameter's element type.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Scalar and vector types kernels take pointers to, with their sizes (CUDA's vector types are
 * aligned structs of these; PyTorch's and CUTLASS's half types are 2 bytes). */
static const struct { const char *name; uint32_t size; } element_types[] = {
	{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
	{ "int8_t", 1 }, { "uint8_t", 1 }, { "__nv_fp8_e4m3", 1 }, { "__nv_fp8_e5m2", 1 },
	{ "short", 2 }, { "unsigned short", 2 }, { "int16_t", 2 }, { "uint16_t", 2 },
	{ "__half", 2 }, { "half", 2 }, { "__nv_bfloat16", 2 }, { "c10::Half", 2 },
	{ "c10::BFloat16", 2 }, { "cutlass::half_t", 2 }, { "cutlass::bfloat16_t", 2 },
	{ "int", 4 }, { "unsigned int", 4 }, { "int32_t", 4 }, { "uint32_t", 4 }, { "float", 4 },
	{ "__half2", 4 }, { "__nv_bfloat162", 4 }, { "char4", 4 }, { "uchar4", 4 },
	{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 }, { "unsigned long long", 8 },
	{ "int64_t", 8 }, { "uint64_t", 8 }, { "double", 8 }, { "float2", 8 }, { "int2", 8 },
	{ "float4", 16 }, { "int4", 16 }, { "uint4", 16 }, { "double2", 16 },
};

static bool qualifier(const char *w)
{
	return strcmp(w, "const") == 0 || strcmp(w, "volatile") == 0 || strcmp(w, "__restrict__") == 0;
}

uint32_t ci_param_element(const char *name, uint32_t index, char *type, size_t n)
{
	if (n)
		type[0] = '\0';
	size_t len = name ? strlen(name) : 0;
	if (!len || name[len - 1] != ')')
		return 0;
	/* A demangler's output is balanced; anything else says nothing. */
	long balance = 0;
	for (size_t i = 0; i < len && balance >= 0; i++)
		balance += name[i] == '(' ? 1 : name[i] == ')' ? -1 : 0;
	if (balance != 0)
		return 0;
	/* The parameter list: the parenthesised group that ends the name. */
	size_t open = len - 1;
	int depth = 0;
	for (;; open--) {
		depth += name[open] == ')' ? 1 : name[open] == '(' ? -1 : 0;
		if (depth == 0)
			break;
		if (open == 0)
			return 0;
	}
	/* Parameter INDEX: split at the commas outside <>, () and []. */
	size_t from = open + 1, at = 0;
	depth = 0;
	for (size_t i = open + 1; i < len; i++) {
		char ch = name[i];
		if (ch == '<' || ch == '(' || ch == '[')
			depth++;
		else if ((ch == '>' || ch == ')' || ch == ']') && depth > 0)
			depth--;
		else if (ch == ')' && depth == 0 && i != len - 1)
			return 0;
		if ((ch == ',' && depth == 0) || i == len - 1) {
			if (at++ == index) {
				/* "float const*", "const __half* __restrict__": a pointer to one of
				 * the types above, its qualifiers aside. */
				char p[96];
				size_t k = 0;
				for (size_t j = from; j < i && k + 1 < sizeof p; j++)
					p[k++] = name[j];
				p[k] = '\0';
				char *star = strchr(p, '*');
				if (!star || strrchr(p, '*') != star)
					return 0;
				*star = '\0';
				char base[96] = "", *save = NULL;
				for (char *w = strtok_r(star + 1, " ", &save); w; w = strtok_r(NULL, " ", &save))
					if (!qualifier(w))
						return 0; /* "float* p", "float*&": not a plain pointer */
				for (char *w = strtok_r(p, " ", &save); w; w = strtok_r(NULL, " ", &save))
					if (!qualifier(w) && strlen(base) + strlen(w) + 2 < sizeof base) {
						if (base[0])
							strcat(base, " ");
						strcat(base, w);
					}
				for (size_t t = 0; t < sizeof element_types / sizeof *element_types; t++)
					if (strcmp(base, element_types[t].name) == 0) {
						if (n)
							snprintf(type, n, "%s", base);
						return element_types[t].size;
					}
				return 0;
			}
			from = i + 1;
		}
	}
	return 0;
}
