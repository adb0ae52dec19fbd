/* SPDX-License-Identifier: MIT */
/*
 * What the host side of a core shows when the process ran without the recorder (no flight
 * record): the crashing thread and signal with its backtrace, the threads inside CUDA libraries
 * and the calls they were in, glibc's abort message, the C++ exception in flight at
 * std::terminate, the CUDA libraries and driver version that were loaded, and the command to
 * run next time.  corefile/hostside.c gathers it, hostside_render.c prints it; the CLI prints
 * it before its "no flight record" message (exit code 4, docs/CLI.md) and the GDB plugin says
 * the gist in its banner.  Private to the reader (not part of cudainspect.h).
 */
#ifndef CUDAINSPECT_HOSTSIDE_H
#define CUDAINSPECT_HOSTSIDE_H

#include <stdio.h>

#include "cudainspect/cudainspect.h"

/* A CUDA library mapped into the process (by file name). */
struct ci_cuda_lib {
	char *path;              /* as the core's file mappings name it */
	const char *family;      /* "CUDA driver", "CUDA runtime", "cuBLAS", "NCCL"... */
	char version[48];        /* from the file name ("580.65.06", "12.4.127"), "" if none */
};

/* A thread stopped inside a CUDA library. */
struct ci_cuda_thread {
	size_t stack;            /* index into threads[] */
	size_t entry;            /* its outermost frame inside a CUDA library: the call made */
	size_t caller;           /* the frame that made it (SIZE_MAX: none) */
	bool own;                /* a thread the library started itself (no caller of the program) */
	const struct ci_cuda_lib *lib;
};

struct ci_hostside {
	const char *input;       /* borrowed from the source info */
	uint32_t pid;
	int32_t signal, si_code;
	uint64_t fault_addr;
	char *executable, *psargs;
	bool psargs_cut;         /* 79+ bytes: the kernel keeps at most 80 of the command line */
	struct ci_thread_stack *threads; /* crashed thread first */
	size_t thread_count;
	struct ci_cuda_lib *libs;
	size_t lib_count;
	const char *driver_version; /* libcuda's, or NULL */
	struct ci_cuda_thread *cuda_threads;
	size_t cuda_thread_count;
	char *abort_message;     /* glibc's __abort_msg (assert, malloc checks...), or NULL */
	char *abort_note;        /* why it could not be read, or NULL */
	bool terminate;          /* std::terminate is on the crashed thread's stack */
	char *exception_type;    /* the in-flight C++ exception's type (demangled), or NULL */
	char *exception_what;    /* its what() for std::exception types that keep a string */
	char *exception_note;    /* why it could not be read, or NULL */
	bool no_exception;       /* std::terminate with no exception in flight (read: none) */
	char *next_command;      /* `cudainspect record -- ...`, shell-quoted */
	struct ci_warnings warnings;
};

/* Gather what SRC (a core: kernel or gcore) shows.  CI_ERR_USAGE for another kind of input;
 * otherwise best effort: what cannot be read is a note or a warning. */
struct ci_error *ci_hostside_create(struct ci_source *src, const struct ci_symbolizer_options *opts,
				    struct ci_hostside **ret);
void ci_hostside_destroy(struct ci_hostside *h);

/* Print it: text (WIDTH columns, 0 = 80) or the JSON document (docs/JSON.md, "Without a flight
 * record"), with WHY (the reader's "no flight record" message) inside, and in JSON the
 * process's kernel-log lines of KLOG (ci_kernel_log_unrecorded; NULL: none given). */
struct ci_evidence;
void ci_hostside_render(FILE *out, const struct ci_hostside *h, bool json, const char *why,
			unsigned width, const struct ci_evidence *klog);

/* One line for the GDB plugin's banner: signal, CUDA call, driver, abort message, next command. */
void ci_hostside_gist(const struct ci_hostside *h, char *buf, size_t n);

#endif
