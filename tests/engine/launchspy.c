/*
 * launchspy: an LD_PRELOAD library for tests/engine that stands between an engine and the
 * driver at the exported symbols (door a) and tells the tests what really reached the driver,
 * independently of what the engine says about itself.
 *
 *  - LAUNCHSPY_LOG=FILE: one line per successful call, in call order:
 *        launch NAME ORDINAL ENTRY TID STREAM P0,P1,...  (parameters as hex, by
 *                                         cuFuncGetParamInfo sizes; ORDINAL counts per name)
 *        alloc ADDRESS SIZE ENTRY                  (cuMemAlloc_v2, cuMemAllocAsync[_ptsz])
 *        free ADDRESS ENTRY                        (cuMemFree_v2)
 *  - always, at exit, one line on stderr checking storm_probe launches against the launch-storm
 *    contract of docs/ENGINES.md (written out again here, not taken from storm.h) and counting
 *    launches per entry point:
 *        launchspy: storm=N bad=M threads=T gaps=G legacy=L ptsz=P
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cuda.h>

#define MAX_THREADS 64

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);

static unsigned long long storm, bad, gaps, legacy_calls, ptsz_calls;
static uint64_t last_i[MAX_THREADS];
static CUstream stream_of[MAX_THREADS];
static int seen[MAX_THREADS];

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static struct name_count {
	char name[64];
	unsigned long long n;
} counts[64];

static void *real(const char *sym)
{
	void *p = dlsym(RTLD_NEXT, sym);
	if (!p) {
		fprintf(stderr, "launchspy: no %s after this library\n", sym);
		abort();
	}
	return p;
}

static const char *func_name(CUfunction f)
{
	static CUresult (*get)(const char **, CUfunction);
	const char *name = NULL;
	if (!get)
		get = (CUresult(*)(const char **, CUfunction))real("cuFuncGetName");
	return get(&name, f) == CUDA_SUCCESS && name ? name : "?";
}

static void check_storm(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned shared, CUstream stream, void **params)
{
	uint64_t i = *(uint64_t *)params[0];
	uint32_t i7 = *(uint32_t *)params[1];
	int32_t t = *(int32_t *)params[2];
	uint64_t chk = *(uint64_t *)params[3];
	__atomic_add_fetch(&storm, 1, __ATOMIC_RELAXED);
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

static void log_launch(CUfunction f, const char *entry, CUstream stream, void **params)
{
	static CUresult (*info)(CUfunction, size_t, size_t *, size_t *);
	if (!info)
		info = (CUresult(*)(CUfunction, size_t, size_t *, size_t *))real("cuFuncGetParamInfo");
	const char *name = func_name(f);
	char text[1024];
	size_t used = 0, off, size;
	for (size_t i = 0; params && i < 32 && info(f, i, &off, &size) == CUDA_SUCCESS; i++) {
		uint64_t v = 0;
		memcpy(&v, params[i], size < 8 ? size : 8);
		used += (size_t)snprintf(text + used, sizeof text - used, "%s%llx", i ? "," : "",
					 (unsigned long long)v);
		if (used >= sizeof text)
			break;
	}
	pthread_mutex_lock(&log_lock);
	unsigned k;
	for (k = 0; k < 64 && counts[k].name[0] && strcmp(counts[k].name, name) != 0; k++)
		;
	if (k < 64) {
		if (!counts[k].name[0])
			snprintf(counts[k].name, sizeof counts[k].name, "%s", name);
		counts[k].n++;
		fprintf(log_file, "launch %s %llu %s %ld %p %s\n", name, counts[k].n, entry,
			(long)syscall(SYS_gettid), (void *)stream, text);
	}
	pthread_mutex_unlock(&log_lock);
}

static CUresult spy_launch(const char *entry, launch_fn fn, CUfunction f, unsigned gx,
			   unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			   unsigned shared, CUstream stream, void **params, void **extra)
{
	__atomic_add_fetch(strstr(entry, "_ptsz") ? &ptsz_calls : &legacy_calls, 1, __ATOMIC_RELAXED);
	if (params && strcmp(func_name(f), "storm_probe") == 0)
		check_storm(gx, gy, gz, bx, by, bz, shared, stream, params);
	CUresult r = fn(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
	if (r == CUDA_SUCCESS && log_file)
		log_launch(f, entry, stream, params);
	return r;
}

#define LAUNCHSPY_LAUNCH(sym)                                                                   \
	CUresult sym(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,          \
		     unsigned by, unsigned bz, unsigned shared, CUstream stream, void **params, \
		     void **extra);                                                             \
	CUresult sym(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,          \
		     unsigned by, unsigned bz, unsigned shared, CUstream stream, void **params, \
		     void **extra)                                                              \
	{                                                                                       \
		static launch_fn fn;                                                            \
		if (!fn)                                                                        \
			fn = (launch_fn)real(#sym);                                             \
		return spy_launch(#sym, fn, f, gx, gy, gz, bx, by, bz, shared, stream, params,  \
				  extra);                                                       \
	}

#undef cuLaunchKernel
LAUNCHSPY_LAUNCH(cuLaunchKernel)
LAUNCHSPY_LAUNCH(cuLaunchKernel_ptsz)

static void log_alloc(const char *entry, CUresult r, CUdeviceptr p, size_t size)
{
	if (r != CUDA_SUCCESS || !log_file)
		return;
	pthread_mutex_lock(&log_lock);
	fprintf(log_file, "alloc %llx %zu %s\n", (unsigned long long)p, size, entry);
	pthread_mutex_unlock(&log_lock);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size)
{
	static CUresult (*fn)(CUdeviceptr *, size_t);
	if (!fn)
		fn = (CUresult(*)(CUdeviceptr *, size_t))real("cuMemAlloc_v2");
	CUresult r = fn(p, size);
	log_alloc("cuMemAlloc_v2", r, *p, size);
	return r;
}

#define LAUNCHSPY_ALLOC_ASYNC(sym)                                                              \
	CUresult sym(CUdeviceptr *p, size_t size, CUstream s);                                  \
	CUresult sym(CUdeviceptr *p, size_t size, CUstream s)                                   \
	{                                                                                       \
		static CUresult (*fn)(CUdeviceptr *, size_t, CUstream);                         \
		if (!fn)                                                                        \
			fn = (CUresult(*)(CUdeviceptr *, size_t, CUstream))real(#sym);          \
		CUresult r = fn(p, size, s);                                                    \
		log_alloc(#sym, r, *p, size);                                                   \
		return r;                                                                       \
	}

#undef cuMemAllocAsync
LAUNCHSPY_ALLOC_ASYNC(cuMemAllocAsync)
LAUNCHSPY_ALLOC_ASYNC(cuMemAllocAsync_ptsz)

CUresult cuMemFree_v2(CUdeviceptr p)
{
	static CUresult (*fn)(CUdeviceptr);
	if (!fn)
		fn = (CUresult(*)(CUdeviceptr))real("cuMemFree_v2");
	CUresult r = fn(p);
	if (r == CUDA_SUCCESS && log_file) {
		pthread_mutex_lock(&log_lock);
		fprintf(log_file, "free %llx cuMemFree_v2\n", (unsigned long long)p);
		fflush(log_file);
		pthread_mutex_unlock(&log_lock);
	}
	return r;
}

__attribute__((constructor)) static void open_log(void)
{
	const char *path = getenv("LAUNCHSPY_LOG");
	if (path && *path) {
		log_file = fopen(path, "w");
		if (!log_file) {
			perror(path);
			abort();
		}
		/* Line-buffered: the engines under test die by abort() without flushing. */
		setvbuf(log_file, NULL, _IOLBF, 0);
	}
}

__attribute__((destructor)) static void report(void)
{
	unsigned threads = 0;
	for (int t = 0; t < MAX_THREADS; t++)
		threads += seen[t] != 0;
	fprintf(stderr, "launchspy: storm=%llu bad=%llu threads=%u gaps=%llu legacy=%llu ptsz=%llu\n",
		storm, bad, threads, gaps, legacy_calls, ptsz_calls);
}
