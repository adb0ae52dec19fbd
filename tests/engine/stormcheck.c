/*
 * stormcheck: an LD_PRELOAD library for tests/engine/storm.t that stands between launchstorm
 * and the driver (door a: the exported cuLaunchKernel and cuLaunchKernel_ptsz) and checks every
 * storm_probe launch against the launch-storm contract, written out again here from
 * docs/ENGINES.md rather than taken from testcases/engine/storm.h, so that the check is
 * independent of the program under test.  At exit it prints one line to stderr:
 *     stormcheck: launches=N bad=M threads=T gaps=G
 * bad counts launches whose shape or parameters do not match their (thread, counter), gaps
 * counts launches whose counter is not the previous one of the same thread plus one.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#define MAX_THREADS 64

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*name_fn)(const char **, CUfunction);

static unsigned long long launches, bad, gaps;
static uint64_t last_i[MAX_THREADS];
static CUstream stream_of[MAX_THREADS];
static int seen[MAX_THREADS];

static int is_probe(CUfunction f)
{
	static name_fn get_name;
	const char *name = NULL;
	if (!get_name)
		get_name = (name_fn)dlsym(RTLD_NEXT, "cuFuncGetName");
	return get_name && get_name(&name, f) == CUDA_SUCCESS && name &&
	       strcmp(name, "storm_probe") == 0;
}

static void check(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		  unsigned bz, unsigned shared, CUstream stream, void **params)
{
	if (!params || !is_probe(f))
		return;
	uint64_t i = *(uint64_t *)params[0];
	uint32_t i7 = *(uint32_t *)params[1];
	int32_t t = *(int32_t *)params[2];
	uint64_t chk = *(uint64_t *)params[3];
	__atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
	if (t < 0 || t >= MAX_THREADS) {
		__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
		return;
	}
	int ok = gx == i % 1000 + 1 && gy == (unsigned)t + 1 && gz == 1 &&
		 bx == (i % 8 + 1) * 32 && by == 1 && bz == 1 && shared == (i % 4) * 256 &&
		 i7 == (uint32_t)(i * 7) && chk == (((uint64_t)t << 56) ^ (i * 0x9E3779B97F4A7C15ULL));
	/* Only thread t launches with index t, so its slot needs no synchronization. */
	if (!seen[t]) {
		seen[t] = 1;
		stream_of[t] = stream;
		ok = ok && i == 1;
	} else {
		ok = ok && stream == stream_of[t];
		if (i != last_i[t] + 1)
			__atomic_add_fetch(&gaps, 1, __ATOMIC_RELAXED);
	}
	last_i[t] = i;
	if (!ok)
		__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
}

#define STORMCHECK_WRAP(sym)                                                                    \
	CUresult sym(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,          \
		     unsigned by, unsigned bz, unsigned shared, CUstream stream, void **params, \
		     void **extra);                                                             \
	CUresult sym(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,          \
		     unsigned by, unsigned bz, unsigned shared, CUstream stream, void **params, \
		     void **extra)                                                              \
	{                                                                                       \
		static launch_fn real;                                                          \
		if (!real)                                                                      \
			real = (launch_fn)dlsym(RTLD_NEXT, #sym);                               \
		check(f, gx, gy, gz, bx, by, bz, shared, stream, params);                       \
		return real ? real(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)    \
			    : CUDA_ERROR_NOT_INITIALIZED;                                       \
	}

#undef cuLaunchKernel
STORMCHECK_WRAP(cuLaunchKernel)
STORMCHECK_WRAP(cuLaunchKernel_ptsz)

__attribute__((destructor)) static void report(void)
{
	unsigned threads = 0;
	for (int t = 0; t < MAX_THREADS; t++)
		threads += seen[t] != 0;
	fprintf(stderr, "stormcheck: launches=%llu bad=%llu threads=%u gaps=%llu\n", launches, bad,
		threads, gaps);
}
