/*
 * costprobe: what each kind of driver call costs the calling thread on the driver it runs on,
 * without the recorder.  The table it prints is what the simulator's cost model
 * (CUDASIM_COST=h200, docs/SIMULATOR.md) reproduces, and what the recorder's breadcrumb budget
 * is weighed against (docs/RECORDER.md, "Breadcrumbs").
 *
 * For each kind it times N calls in chunks of 256 (the stream is synchronized between chunks,
 * outside the timed part, so a full push buffer never blocks a timed call), 5 repetitions, at 1
 * and at T threads (each thread its own stream), and prints the median wall nanoseconds per call
 * of the median thread:
 *     costprobe: KIND THREADS NS_PER_CALL [min max]
 * It also says which stream-memory-operation flags the driver accepts where:
 *     costprobe: accept ENTRY FLAGS MEMORY RESULT
 * and what the name queries answer for a library's kernel (cuFuncGetName on a CUkernel cast to
 * CUfunction is refused by the real driver).
 *   costprobe [--threads T] [--calls N] [--only KIND,...]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cuda.h>
#include <dlfcn.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5
#define CHUNK 256
#define MAX_THREADS 16

static const char *errname(CUresult r)
{
	const char *n = NULL;
	if (cuGetErrorName(r, &n) != CUDA_SUCCESS || !n)
		return "CUresult?";
	return n;
}

#define CK(call)                                                                               \
	do {                                                                                   \
		CUresult r_ = (call);                                                          \
		if (r_ != CUDA_SUCCESS) {                                                      \
			fprintf(stderr, "costprobe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
				errname(r_));                                                  \
			exit(1);                                                               \
		}                                                                              \
	} while (0)

static CUcontext ctx;
static CUmodule module;
static CUfunction noop;
static CUlibrary library;
static CUkernel lib_noop;
static volatile uint64_t *host_slots; /* registered, 8 slots per thread */
static CUdeviceptr host_alias, dev_slots;
static unsigned opt_threads = 8, opt_calls = 20000;
static const char *opt_only;
static pthread_barrier_t barrier;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What one thread holds for the calls. */
struct worker {
	unsigned index;
	CUstream stream;
	CUevent ev_notiming, ev_timing;
	CUgraphExec graph;
	CUdeviceptr buf;
	void *pageable, *pinned;
	double ns[REPS];
	CUresult failed;
};

typedef CUresult (*op_fn)(struct worker *w, uint64_t i);

static CUresult op_launch(struct worker *w, uint64_t i)
{
	return cuLaunchKernel(noop, 1, 1, 1, 32, 1, 1, 0, w->stream, NULL, NULL);
}

static CUresult op_launch_ex(struct worker *w, uint64_t i)
{
	CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32,
			       .blockDimY = 1, .blockDimZ = 1, .hStream = w->stream };
	return cuLaunchKernelEx(&cfg, noop, NULL, NULL);
}

static CUresult op_write64(struct worker *w, uint64_t i)
{
	return cuStreamWriteValue64(w->stream, host_alias + 64 * w->index, i, 0);
}

static CUresult op_write32(struct worker *w, uint64_t i)
{
	return cuStreamWriteValue32(w->stream, host_alias + 64 * w->index + 8, (cuuint32_t)i, 0);
}

static CUresult op_launch_write64(struct worker *w, uint64_t i)
{
	CUresult r = op_launch(w, i);
	return r ? r : op_write64(w, i);
}

static CUresult op_batch_write64(struct worker *w, uint64_t i)
{
	CUstreamBatchMemOpParams p;
	memset(&p, 0, sizeof p);
	p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
	p.writeValue.address = host_alias + 64 * w->index + 16;
	p.writeValue.value64 = i;
	return cuStreamBatchMemOp(w->stream, 1, &p, 0);
}

static CUresult op_event_record(struct worker *w, uint64_t i)
{
	return cuEventRecord(w->ev_notiming, w->stream);
}

static CUresult op_event_record_timing(struct worker *w, uint64_t i)
{
	return cuEventRecord(w->ev_timing, w->stream);
}

static CUresult op_event_query(struct worker *w, uint64_t i)
{
	CUresult r = cuEventQuery(w->ev_notiming);
	return r == CUDA_ERROR_NOT_READY ? CUDA_SUCCESS : r;
}

static CUresult op_stream_query(struct worker *w, uint64_t i)
{
	CUresult r = cuStreamQuery(w->stream);
	return r == CUDA_ERROR_NOT_READY ? CUDA_SUCCESS : r;
}

static CUresult op_stream_sync_idle(struct worker *w, uint64_t i)
{
	return cuStreamSynchronize(w->stream);
}

static CUresult op_launch_sync(struct worker *w, uint64_t i)
{
	CUresult r = op_launch(w, i);
	return r ? r : cuStreamSynchronize(w->stream);
}

static CUresult op_ctx_get_current(struct worker *w, uint64_t i)
{
	CUcontext c;
	return cuCtxGetCurrent(&c);
}

static CUresult op_is_capturing(struct worker *w, uint64_t i)
{
	CUstreamCaptureStatus st;
	return cuStreamIsCapturing(w->stream, &st);
}

static CUresult op_capture_info(struct worker *w, uint64_t i)
{
	CUstreamCaptureStatus st;
	cuuint64_t id;
	return cuStreamGetCaptureInfo(w->stream, &st, &id, NULL, NULL, NULL, NULL);
}

static CUresult op_pointer_attr(struct worker *w, uint64_t i)
{
	CUdeviceptr p;
	return cuPointerGetAttribute(&p, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, w->buf);
}

static CUresult op_alloc_free(struct worker *w, uint64_t i)
{
	CUdeviceptr p;
	CUresult r = cuMemAlloc(&p, 4096);
	return r ? r : cuMemFree(p);
}

static CUresult op_alloc_free_async(struct worker *w, uint64_t i)
{
	CUdeviceptr p;
	CUresult r = cuMemAllocAsync(&p, 4096, w->stream);
	return r ? r : cuMemFreeAsync(p, w->stream);
}

static CUresult op_graph_launch(struct worker *w, uint64_t i)
{
	return cuGraphLaunch(w->graph, w->stream);
}

static CUresult op_copy_pageable(struct worker *w, uint64_t i)
{
	return cuMemcpyHtoDAsync(w->buf, w->pageable, 64, w->stream);
}

static CUresult op_copy_pinned(struct worker *w, uint64_t i)
{
	return cuMemcpyHtoDAsync(w->buf, w->pinned, 64, w->stream);
}

static CUresult op_memset(struct worker *w, uint64_t i)
{
	return cuMemsetD32Async(w->buf, (unsigned)i, 16, w->stream);
}

static CUresult op_func_get_name(struct worker *w, uint64_t i)
{
	const char *n;
	return cuFuncGetName(&n, noop);
}

static CUresult op_kernel_get_name(struct worker *w, uint64_t i)
{
	const char *n;
	return cuKernelGetName(&n, lib_noop);
}

static const struct kind {
	const char *name;
	op_fn fn;
	unsigned divide; /* fewer calls for the slow kinds */
	int threads;     /* also at T threads */
} kinds[] = {
	{ "launch", op_launch, 1, 1 },
	{ "launch_ex", op_launch_ex, 1, 1 },
	{ "write64", op_write64, 1, 1 },
	{ "write32", op_write32, 1, 0 },
	{ "launch+write64", op_launch_write64, 1, 1 },
	{ "batch_write64", op_batch_write64, 1, 0 },
	{ "event_record", op_event_record, 1, 1 },
	{ "event_record_timing", op_event_record_timing, 1, 0 },
	{ "event_query", op_event_query, 1, 0 },
	{ "stream_query", op_stream_query, 1, 0 },
	{ "stream_sync_idle", op_stream_sync_idle, 1, 0 },
	{ "launch+sync", op_launch_sync, 4, 0 },
	{ "ctx_get_current", op_ctx_get_current, 1, 0 },
	{ "stream_is_capturing", op_is_capturing, 1, 0 },
	{ "stream_get_capture_info", op_capture_info, 1, 0 },
	{ "pointer_get_attribute", op_pointer_attr, 1, 0 },
	{ "alloc+free", op_alloc_free, 10, 1 },
	{ "alloc_async+free_async", op_alloc_free_async, 4, 0 },
	{ "graph_launch4", op_graph_launch, 2, 1 },
	{ "copy_htod_async_pageable", op_copy_pageable, 4, 0 },
	{ "copy_htod_async_pinned", op_copy_pinned, 2, 0 },
	{ "memset_async", op_memset, 1, 0 },
	{ "func_get_name", op_func_get_name, 1, 0 },
	{ "kernel_get_name", op_kernel_get_name, 1, 0 },
};

static const struct kind *cur_kind;
static unsigned cur_threads;

static void worker_setup(struct worker *w)
{
	CK(cuCtxSetCurrent(ctx));
	CK(cuStreamCreate(&w->stream, CU_STREAM_NON_BLOCKING));
	CK(cuEventCreate(&w->ev_notiming, CU_EVENT_DISABLE_TIMING));
	CK(cuEventCreate(&w->ev_timing, CU_EVENT_DEFAULT));
	CK(cuMemAlloc(&w->buf, 4096));
	w->pageable = calloc(1, 4096);
	CK(cuMemAllocHost(&w->pinned, 4096));
	/* A graph of 4 kernel nodes in a chain, captured. */
	CUgraph g;
	CK(cuStreamBeginCapture(w->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
	for (int k = 0; k < 4; k++)
		CK(op_launch(w, 0));
	CK(cuStreamEndCapture(w->stream, &g));
	CK(cuGraphInstantiate(&w->graph, g, 0));
	CK(cuGraphDestroy(g));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	CK(cuCtxSetCurrent(ctx));
	unsigned n = opt_calls / cur_kind->divide;
	for (int rep = -1; rep < REPS; rep++) { /* rep -1 warms up */
		pthread_barrier_wait(&barrier);
		uint64_t spent = 0, i = 1;
		for (unsigned done = 0; done < n;) {
			unsigned chunk = n - done < CHUNK ? n - done : CHUNK;
			uint64_t t0 = now_ns();
			for (unsigned k = 0; k < chunk; k++, i++) {
				CUresult r = cur_kind->fn(w, i);
				if (r != CUDA_SUCCESS && !w->failed)
					w->failed = r;
			}
			spent += now_ns() - t0;
			done += chunk;
			cuStreamSynchronize(w->stream);
		}
		if (rep >= 0)
			w->ns[rep] = (double)spent / n;
	}
	return NULL;
}

static void run_kind(const struct kind *k, struct worker *ws, unsigned threads)
{
	cur_kind = k;
	cur_threads = threads;
	pthread_t tid[MAX_THREADS];
	pthread_barrier_init(&barrier, NULL, threads);
	for (unsigned t = 0; t < threads; t++) {
		ws[t].failed = CUDA_SUCCESS;
		pthread_create(&tid[t], NULL, worker_main, &ws[t]);
	}
	for (unsigned t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	pthread_barrier_destroy(&barrier);
	for (unsigned t = 0; t < threads; t++) {
		if (ws[t].failed) {
			printf("costprobe: %s %u refused %s\n", k->name, threads, errname(ws[t].failed));
			return;
		}
	}
	/* Median over repetitions of the median thread's figure. */
	double per_rep[REPS], th[MAX_THREADS];
	for (int r = 0; r < REPS; r++) {
		for (unsigned t = 0; t < threads; t++)
			th[t] = ws[t].ns[r];
		qsort(th, threads, sizeof th[0], cmp_double);
		per_rep[r] = th[threads / 2];
	}
	qsort(per_rep, REPS, sizeof per_rep[0], cmp_double);
	printf("costprobe: %s %u %.0f [%.0f %.0f]\n", k->name, threads, per_rep[REPS / 2], per_rep[0],
	       per_rep[REPS - 1]);
	fflush(stdout);
}

static int wanted(const char *name)
{
	if (!opt_only)
		return 1;
	size_t n = strlen(name);
	for (const char *p = opt_only; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* Which stream-memory-operation flags the driver takes, per entry point and memory kind. */
static void acceptance(struct worker *w)
{
	typedef CUresult (*w32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
	typedef CUresult (*w64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
	static const char *const entries[] = { "cuStreamWriteValue32_v2", "cuStreamWriteValue64_v2",
					       "cuStreamWriteValue32", "cuStreamWriteValue64" };
	for (size_t e = 0; e < 4; e++) {
		void *f = dlsym(RTLD_DEFAULT, entries[e]);
		for (unsigned flags = 0; flags < 2; flags++) {
			for (int mem = 0; mem < 2; mem++) {
				CUdeviceptr at = mem ? dev_slots : host_alias + 32;
				CUresult r = CUDA_ERROR_NOT_FOUND;
				if (f && strstr(entries[e], "32"))
					r = ((w32_fn)f)(w->stream, at, 7, flags);
				else if (f)
					r = ((w64_fn)f)(w->stream, at, 7, flags);
				CUresult s = cuStreamSynchronize(w->stream);
				printf("costprobe: accept %s %s %s %s%s%s\n", entries[e],
				       flags ? "NO_MEMORY_BARRIER" : "DEFAULT",
				       mem ? "device-memory" : "registered-host", f ? errname(r) : "absent",
				       s ? " then sync " : "", s ? errname(s) : "");
			}
		}
	}
	int v = -1;
	CUdevice dev;
	CK(cuCtxGetDevice(&dev));
	static const struct {
		const char *name;
		CUdevice_attribute a;
	} attrs[] = {
		{ "CAN_USE_STREAM_MEM_OPS_V1", CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 },
		{ "CAN_USE_64_BIT_STREAM_MEM_OPS", CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS },
		{ "CAN_USE_STREAM_WAIT_VALUE_NOR", CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR },
		{ "CAN_FLUSH_REMOTE_WRITES", CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES },
	};
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		CUresult r = cuDeviceGetAttribute(&v, attrs[i].a, dev);
		printf("costprobe: attribute %s %d%s%s\n", attrs[i].name, r ? -1 : v, r ? " " : "",
		       r ? errname(r) : "");
	}
	/* Names of a library's kernel. */
	const char *n = NULL;
	CUresult r = cuKernelGetName(&n, lib_noop);
	printf("costprobe: name cuKernelGetName(CUkernel) %s %s\n", errname(r), r ? "-" : n);
	r = cuFuncGetName(&n, (CUfunction)lib_noop);
	printf("costprobe: name cuFuncGetName((CUfunction)CUkernel) %s %s\n", errname(r), r ? "-" : n);
	CUfunction kf;
	r = cuKernelGetFunction(&kf, lib_noop);
	if (!r)
		r = cuFuncGetName(&n, kf);
	printf("costprobe: name cuFuncGetName(cuKernelGetFunction(CUkernel)) %s %s\n", errname(r),
	       r ? "-" : n);
	fflush(stdout);
}

extern const char engine_kernels_ptx[];

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "threads", 1, NULL, 't' },
						  { "calls", 1, NULL, 'n' },
						  { "only", 1, NULL, 'o' },
						  { "help", 0, NULL, 'h' },
						  { NULL, 0, NULL, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "t:n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': opt_threads = (unsigned)atoi(optarg); break;
		case 'n': opt_calls = (unsigned)atoi(optarg); break;
		case 'o': opt_only = optarg; break;
		case 'h':
			printf("usage: costprobe [--threads T (2..%d)] [--calls N] [--only KIND,...]\n",
			       MAX_THREADS);
			return 0;
		default: return 2;
		}
	}
	if (opt_threads < 2 || opt_threads > MAX_THREADS || opt_calls < CHUNK) {
		fprintf(stderr, "costprobe: --threads 2..%d, --calls >= %d\n", MAX_THREADS, CHUNK);
		return 2;
	}
	CUdevice dev;
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuModuleLoadData(&module, engine_kernels_ptx));
	CK(cuModuleGetFunction(&noop, module, "noop"));
	CK(cuLibraryLoadData(&library, engine_kernels_ptx, NULL, NULL, 0, NULL, NULL, 0));
	CK(cuLibraryGetKernel(&lib_noop, library, "noop"));
	void *page;
	if (posix_memalign(&page, 4096, 4096))
		return 1;
	memset(page, 0, 4096);
	host_slots = page;
	CK(cuMemHostRegister(page, 4096, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP));
	CK(cuMemHostGetDevicePointer(&host_alias, page, 0));
	CK(cuMemAlloc(&dev_slots, 4096));
	char name[128] = "?";
	cuDeviceGetName(name, sizeof name, dev);
	int version = 0;
	cuDriverGetVersion(&version);
	printf("costprobe: device %s driver %d\n", name, version);

	struct worker ws[MAX_THREADS];
	memset(ws, 0, sizeof ws);
	for (unsigned t = 0; t < opt_threads; t++) {
		ws[t].index = t;
		worker_setup(&ws[t]);
	}
	if (!opt_only || wanted("accept"))
		acceptance(&ws[0]);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		if (!wanted(kinds[k].name))
			continue;
		run_kind(&kinds[k], ws, 1);
		if (kinds[k].threads)
			run_kind(&kinds[k], ws, opt_threads);
	}
	return 0;
}
