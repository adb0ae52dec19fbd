/*
 * Helpers shared by the test engines (miniengine, launchstorm, apitour) and the GPU probes:
 * the CHECK macro that turns any CUDA error into the line real engines print followed by
 * abort(), access to the kernels' PTX embedded in each binary, option parsing, thread ids.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "drv.h"

/* Short program name for messages ("miniengine"). */
extern const char *engine_prog;
/* --verbose: failed CHECKs also name the call and the thread. */
extern int engine_verbose;

/* Check a CUresult: on error print
 *     FILE:LINE: CUDA error: CUDA_ERROR_NAME: description
 * (names from cuGetErrorName/cuGetErrorString through the driver table) and abort(), as
 * inference engines do.  With --verbose a second line names the call and the thread. */
#define CHECK(call) engine_check((call), #call, __FILE__, __LINE__)

__attribute__((noreturn)) void engine_cuda_fail(CUresult r, const char *call, const char *file,
						 int line);

static inline void engine_check(CUresult r, const char *call, const char *file, int line)
{
	if (__builtin_expect(r != CUDA_SUCCESS, 0))
		engine_cuda_fail(r, call, file, line);
}

/* Print "PROG: message" and exit with `status` (never for CUDA errors; those abort). */
__attribute__((noreturn, format(printf, 2, 3))) void engine_die(int status, const char *fmt, ...);

/* Name of a CUresult ("CUDA_ERROR_INVALID_VALUE"), or "CUresult N" when the driver has none. */
const char *engine_error_name(CUresult r);

/* The PTX built from testcases/engine/kernels.cu, NUL-terminated, and its length without the
 * NUL. */
extern const char engine_kernels_ptx[];
size_t engine_kernels_ptx_len(void);

/* PTX image to load: the embedded one, or (lowered != 0) a copy whose `.version` line is
 * lowered to 8.0 for drivers older than the toolkit that wrote it (they answer
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION).  The lowered copy lives until exit. */
const char *engine_kernels_image(int lowered);

/* cuModuleLoadData of the kernels through the driver table, retrying once with the lowered
 * image on CUDA_ERROR_UNSUPPORTED_PTX_VERSION (and saying so unless quiet). */
CUresult engine_load_kernels(CUmodule *module, int quiet);

/* Kernel names as they appear in the PTX (decode::matvec is C++ and therefore mangled). */
#define KERNEL_MATVEC "_ZN6decode6matvecEPKfS1_PfiiiS1_"

/* Parse an unsigned option value in [min, max]; on error print why and exit 2. */
unsigned long engine_parse_ulong(const char *opt, const char *arg, unsigned long min,
				 unsigned long max);

/* Linux thread id of the caller. */
pid_t engine_tid(void);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t engine_now_ns(void);

/* setenv(name, value) unless the variable is already set (the user's choice wins); with
 * --verbose says which value is in effect. */
void engine_setenv_default(const char *name, const char *value);

#endif /* ENGINE_H */
