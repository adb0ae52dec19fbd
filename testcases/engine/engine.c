/*
 * Shared helpers of the test engines: CUDA error reporting, the embedded PTX, option parsing.
 * See engine.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

const char *engine_prog = "engine";
int engine_verbose;

/* Bounds of the PTX blob, defined by kernels_blob.S (.incbin of the generated PTX + NUL). */
extern const char engine_kernels_ptx_end[];

size_t engine_kernels_ptx_len(void)
{
	return (size_t)(engine_kernels_ptx_end - engine_kernels_ptx) - 1;
}

pid_t engine_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

uint64_t engine_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *engine_error_name(CUresult r)
{
	static __thread char buf[32];
	const char *name = NULL;
	if (drv.GetErrorName && drv.GetErrorName(r, &name) == CUDA_SUCCESS && name)
		return name;
	snprintf(buf, sizeof buf, "CUresult %d", (int)r);
	return buf;
}

void engine_cuda_fail(CUresult r, const char *call, const char *file, int line)
{
	const char *text = NULL;
	if (!drv.GetErrorString || drv.GetErrorString(r, &text) != CUDA_SUCCESS || !text)
		text = "unknown error";
	/* One write per line so that lines of threads failing together do not interleave. */
	fprintf(stderr, "%s:%d: CUDA error: %s: %s\n", file, line, engine_error_name(r), text);
	if (engine_verbose) {
		char name[17] = "";
		prctl(PR_GET_NAME, name, 0, 0, 0);
		fprintf(stderr, "%s: failed call %s on thread %d (%s)\n", engine_prog, call,
			(int)engine_tid(), name);
	}
	fflush(stderr);
	abort();
}

void engine_die(int status, const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", engine_prog, msg);
	exit(status);
}

const char *engine_kernels_image(int lowered)
{
	static char *copy;
	if (!lowered)
		return engine_kernels_ptx;
	if (!copy) {
		copy = strdup(engine_kernels_ptx);
		if (!copy)
			engine_die(1, "out of memory");
		/* ".version X.Y" is the first directive; ISA 8.0 (CUDA 12.0) covers sm_90 and
		 * everything these kernels use. */
		char *v = strstr(copy, "\n.version ");
		if (v) {
			v += strlen("\n.version ");
			size_t n = strcspn(v, "\n");
			memset(v, ' ', n);
			memcpy(v, "8.0", 3);
		}
	}
	return copy;
}

CUresult engine_load_kernels(CUmodule *module, int quiet)
{
	CUresult r = drv.ModuleLoadData(module, engine_kernels_image(0));
	if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
		if (!quiet)
			fprintf(stderr,
				"%s: note: the driver rejected the kernels' PTX ISA version "
				"(CUDA_ERROR_UNSUPPORTED_PTX_VERSION); retrying with ISA 8.0\n",
				engine_prog);
		r = drv.ModuleLoadData(module, engine_kernels_image(1));
	}
	return r;
}

unsigned long engine_parse_ulong(const char *opt, const char *arg, unsigned long min,
				 unsigned long max)
{
	char *end;
	errno = 0;
	if (!arg || !*arg || *arg == '-')
		goto bad;
	unsigned long v = strtoul(arg, &end, 0);
	if (errno || *end || v < min || v > max)
		goto bad;
	return v;
bad:
	fprintf(stderr, "%s: %s wants a number from %lu to %lu, got '%s'; see --help\n", engine_prog,
		opt, min, max, arg ? arg : "");
	exit(2);
}

void engine_setenv_default(const char *name, const char *value)
{
	const char *old = getenv(name);
	if (!old)
		setenv(name, value, 0);
	if (engine_verbose)
		fprintf(stderr, "%s: %s=%s%s\n", engine_prog, name, old ? old : value,
			old ? " (already set; left alone)" : "");
}
