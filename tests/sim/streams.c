/* Stream semantics: work runs asynchronously and in order per stream; the legacy default stream
 * synchronizes with blocking streams in both directions, non-blocking streams and the per-thread
 * default stream do not (beyond what the documentation says); cuStreamWaitEvent orders work
 * across streams; host functions run on a worker, in order.
 *
 * A stream is held still with cuStreamWaitValue32 on a host-registered flag, so "B waits for A"
 * is observed deterministically: B's host function has not run while A is held, and runs after
 * A is released.  Run with CUDASIM_KERNEL_US=10000 (streams.t). */
#include "simtest.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static atomic_int order[64];
static atomic_int norder;
static pthread_t main_thread;
static atomic_int on_main;

static void mark(void *tag)
{
	order[atomic_fetch_add(&norder, 1)] = (int)(intptr_t)tag;
	if (pthread_equal(pthread_self(), main_thread))
		atomic_store(&on_main, 1);
}

static void reset(void)
{
	atomic_store(&norder, 0);
}

static int ran(int tag)
{
	for (int i = 0; i < atomic_load(&norder); i++)
		if (order[i] == tag)
			return i + 1;
	return 0;
}

/* A host-registered flag a stream can be held on. */
struct gate {
	volatile uint32_t *flag;
	CUdeviceptr dptr;
};

static struct gate gate_new(void)
{
	struct gate g;
	g.flag = aligned_alloc(64, 64);
	*g.flag = 0;
	MUST(cuMemHostRegister((void *)g.flag, 64, 0));
	MUST(cuMemHostGetDevicePointer(&g.dptr, (void *)g.flag, 0));
	return g;
}

static void gate_hold(struct gate *g, CUstream s)
{
	*g->flag = 0;
	MUST(cuStreamWaitValue32(s, g->dptr, 1, CU_STREAM_WAIT_VALUE_GEQ));
}

static void gate_open(struct gate *g)
{
	__atomic_store_n(g->flag, 1, __ATOMIC_RELEASE);
}

static void settle(void)
{
	usleep(50 * 1000); /* long enough for a worker to run anything it is allowed to */
}

static void async_and_order(CUfunction step, struct gate *g)
{
	CUstream s;
	MUST(cuStreamCreate(&s, 0));
	uint64_t *crumb = aligned_alloc(64, 64);
	*crumb = 0;
	CUdeviceptr dc;
	MUST(cuMemHostRegister(crumb, 64, CU_MEMHOSTREGISTER_DEVICEMAP));
	MUST(cuMemHostGetDevicePointer(&dc, crumb, 0));
	reset();
	/* Held while the work is queued: the calls can only return at all if they do not wait for
	 * the work (which cannot start), and what is pending then does not depend on how fast the
	 * caller was (a time limit on the queueing did, on a loaded machine). */
	gate_hold(g, s);
	for (int i = 1; i <= 5; i++) {
		MUST(simtest_launch(step, s, 0));
		MUST(cuStreamWriteValue64(s, dc, (uint64_t)i, 0));
		MUST(cuLaunchHostFunc(s, mark, (void *)(intptr_t)i));
	}
	ok(*(volatile uint64_t *)crumb == 0 && atomic_load(&norder) == 0,
	   "queueing 5 kernels of 10 ms returns before any of them ran");
	IS_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	double t0 = simtest_now_ms();
	gate_open(g);
	IS_CU(cuStreamSynchronize(s), CUDA_SUCCESS);
	double total = simtest_now_ms() - t0;
	ok(total >= 50, "synchronize waits for 5 x 10 ms of kernels (%.1f ms)", total);
	IS_CU(cuStreamQuery(s), CUDA_SUCCESS);
	is_int(*crumb, 5, "every breadcrumb written");
	int in_order = atomic_load(&norder) == 5;
	for (int i = 0; i < 5 && in_order; i++)
		in_order = order[i] == i + 1;
	ok(in_order, "host functions ran in stream order");
	ok(!atomic_load(&on_main), "host functions ran on a worker thread, not the caller's");
	MUST(cuStreamDestroy(s));
	MUST(cuMemHostUnregister(crumb));
	free(crumb);
}

static void legacy_waits_for_blocking(struct gate *g)
{
	CUstream a, nb;
	MUST(cuStreamCreate(&a, CU_STREAM_DEFAULT));
	MUST(cuStreamCreate(&nb, CU_STREAM_NON_BLOCKING));

	/* legacy waits for earlier work of a blocking stream */
	reset();
	gate_hold(g, a);
	MUST(cuLaunchHostFunc(a, mark, (void *)1));
	MUST(cuLaunchHostFunc(NULL, mark, (void *)2));
	settle();
	ok(!ran(2), "legacy-stream work waits while a blocking stream is held");
	IS_CU(cuStreamQuery(NULL), CUDA_ERROR_NOT_READY);
	gate_open(g);
	MUST(cuStreamSynchronize(NULL));
	ok(ran(1) && ran(2) > ran(1), "legacy work ran after the blocking stream's work");

	/* ... but not for a non-blocking stream */
	reset();
	gate_hold(g, nb);
	MUST(cuLaunchHostFunc(nb, mark, (void *)3));
	MUST(cuLaunchHostFunc(CU_STREAM_LEGACY, mark, (void *)4));
	MUST(cuStreamSynchronize(CU_STREAM_LEGACY));
	ok(ran(4) && !ran(3), "legacy work does not wait for a held non-blocking stream");
	gate_open(g);
	MUST(cuStreamSynchronize(nb));

	/* a blocking stream waits for earlier legacy work; a non-blocking one does not */
	reset();
	gate_hold(g, NULL);
	MUST(cuLaunchHostFunc(NULL, mark, (void *)5));
	MUST(cuLaunchHostFunc(a, mark, (void *)6));
	MUST(cuLaunchHostFunc(nb, mark, (void *)7));
	MUST(cuStreamSynchronize(nb));
	settle();
	ok(ran(7) && !ran(6) && !ran(5), "held legacy stream: blocking stream waits, non-blocking runs");
	gate_open(g);
	MUST(cuStreamSynchronize(a));
	ok(ran(5) && ran(6) > ran(5), "the blocking stream ran after the legacy work");
	MUST(cuStreamDestroy(a));
	MUST(cuStreamDestroy(nb));
}

/* The per-thread default stream: through CU_STREAM_PER_THREAD and through a _ptsz entry point. */
static void per_thread_stream(struct gate *g)
{
	CUresult (*host_func_ptsz)(CUstream, CUhostFn, void *) =
		(CUresult(*)(CUstream, CUhostFn, void *))dlsym(RTLD_DEFAULT, "cuLaunchHostFunc_ptsz");
	CUresult (*sync_ptsz)(CUstream) = (CUresult(*)(CUstream))dlsym(RTLD_DEFAULT, "cuStreamSynchronize_ptsz");
	ok(host_func_ptsz && sync_ptsz, "the _ptsz entry points are exported");
	CUstream a;
	MUST(cuStreamCreate(&a, 0));
	reset();
	gate_hold(g, a);
	MUST(cuLaunchHostFunc(a, mark, (void *)1));
	MUST(cuLaunchHostFunc(CU_STREAM_PER_THREAD, mark, (void *)2));
	MUST(host_func_ptsz(NULL, mark, (void *)3));
	MUST(sync_ptsz(NULL));
	ok(ran(2) && ran(3) && !ran(1), "per-thread stream work does not wait for a held blocking stream");
	unsigned long long id_pt = 0, id_legacy = 0;
	MUST(cuStreamGetId(CU_STREAM_PER_THREAD, &id_pt));
	MUST(cuStreamGetId(NULL, &id_legacy));
	ok(id_pt && id_legacy && id_pt != id_legacy, "per-thread and legacy streams are different streams");
	gate_open(g);
	MUST(cuStreamSynchronize(a));

	/* but it is a blocking stream with respect to the legacy stream */
	reset();
	gate_hold(g, NULL);
	MUST(cuLaunchHostFunc(NULL, mark, (void *)4));
	MUST(cuLaunchHostFunc(CU_STREAM_PER_THREAD, mark, (void *)5));
	settle();
	ok(!ran(5), "per-thread stream work waits for earlier legacy work");
	gate_open(g);
	MUST(cuStreamSynchronize(CU_STREAM_PER_THREAD));
	ok(ran(5) > ran(4) && ran(4), "and runs after it");
	MUST(cuStreamDestroy(a));
}

struct pt_arg {
	CUcontext ctx;
	struct gate *g;
	unsigned long long id;
};

static void *other_thread(void *p)
{
	struct pt_arg *arg = p;
	MUST(cuCtxSetCurrent(arg->ctx));
	MUST(cuStreamGetId(CU_STREAM_PER_THREAD, &arg->id));
	MUST(cuLaunchHostFunc(CU_STREAM_PER_THREAD, mark, (void *)9));
	MUST(cuStreamSynchronize(CU_STREAM_PER_THREAD));
	return NULL;
}

static void per_thread_streams_are_separate(CUcontext ctx, struct gate *g)
{
	reset();
	gate_hold(g, CU_STREAM_PER_THREAD);
	MUST(cuLaunchHostFunc(CU_STREAM_PER_THREAD, mark, (void *)8));
	struct pt_arg arg = {ctx, g, 0};
	pthread_t t;
	pthread_create(&t, NULL, other_thread, &arg);
	pthread_join(t, NULL);
	unsigned long long mine = 0;
	MUST(cuStreamGetId(CU_STREAM_PER_THREAD, &mine));
	ok(ran(9) && !ran(8), "another thread's per-thread stream is not held by this thread's");
	ok(arg.id && arg.id != mine, "each thread has its own per-thread stream");
	gate_open(g);
	MUST(cuStreamSynchronize(CU_STREAM_PER_THREAD));
	ok(ran(8), "released");
}

static void wait_event(CUfunction step, struct gate *g)
{
	CUstream a, b;
	CUevent ev, t0, t1;
	MUST(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	MUST(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	MUST(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	reset();
	gate_hold(g, a);
	MUST(cuLaunchHostFunc(a, mark, (void *)1));
	MUST(cuEventRecord(ev, a));
	MUST(cuLaunchHostFunc(a, mark, (void *)3)); /* after the record: b must not wait for it */
	MUST(cuLaunchHostFunc(b, mark, (void *)0));
	MUST(cuStreamWaitEvent(b, ev, 0));
	MUST(cuLaunchHostFunc(b, mark, (void *)2));
	MUST(cuStreamSynchronize(CU_STREAM_PER_THREAD));
	settle();
	ok(ran(0) && !ran(2), "work before cuStreamWaitEvent runs, work after it waits");
	IS_CU(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
	gate_open(g);
	MUST(cuStreamSynchronize(b));
	ok(ran(1) && ran(2) > ran(1), "after the event's stream reached the record");
	IS_CU(cuEventSynchronize(ev), CUDA_SUCCESS);
	IS_CU(cuEventQuery(ev), CUDA_SUCCESS);
	MUST(cuStreamSynchronize(a));

	/* timing: two events around two 10 ms kernels (held until queued, so that the events are
	 * still pending when asked, however slow the caller) */
	float ms = 0;
	MUST(cuEventCreate(&t0, 0));
	MUST(cuEventCreate(&t1, 0));
	gate_hold(g, a);
	MUST(cuEventRecord(t0, a));
	MUST(simtest_launch(step, a, 0));
	MUST(simtest_launch(step, a, 0));
	MUST(cuEventRecord(t1, a));
	IS_CU(cuEventElapsedTime(&ms, t0, t1), CUDA_ERROR_NOT_READY);
	gate_open(g);
	MUST(cuEventSynchronize(t1));
	IS_CU(cuEventElapsedTime(&ms, t0, t1), CUDA_SUCCESS);
	ok(ms >= 20.0f && ms < 1000.0f, "elapsed time covers the two kernels (%.2f ms)", ms);
	IS_CU(cuEventElapsedTime(&ms, ev, t1), CUDA_ERROR_INVALID_HANDLE); /* ev has no timing */
	MUST(cuEventDestroy(ev));
	MUST(cuEventDestroy(t0));
	MUST(cuEventDestroy(t1));
	MUST(cuStreamDestroy(a));
	MUST(cuStreamDestroy(b));
}

static CUstream cb_stream;
static atomic_int cb_status = -1;
static void callback(CUstream s, CUresult status, void *arg)
{
	atomic_store(&cb_status, s == cb_stream && arg == &cb_status ? (int)status : 99);
}

static atomic_int nested = -1;
static void sync_inside(void *arg)
{
	atomic_store(&nested, (int)cuStreamSynchronize((CUstream)arg));
}

static void host_functions(struct gate *g)
{
	MUST(cuStreamCreate(&cb_stream, 0));
	MUST(cuStreamAddCallback(cb_stream, callback, &cb_status, 0));
	IS_CU(cuStreamAddCallback(cb_stream, callback, NULL, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuLaunchHostFunc(cb_stream, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	MUST(cuLaunchHostFunc(cb_stream, sync_inside, cb_stream));
	MUST(cuStreamSynchronize(cb_stream));
	is_int(atomic_load(&cb_status), CUDA_SUCCESS, "stream callback gets its stream, status and argument");
	is_int(atomic_load(&nested), CUDA_ERROR_NOT_PERMITTED, "synchronizing from a host function is refused");

	/* destroying a stream with pending work: the work still completes */
	reset();
	gate_hold(g, cb_stream);
	MUST(cuLaunchHostFunc(cb_stream, mark, (void *)7));
	IS_CU(cuStreamDestroy(cb_stream), CUDA_SUCCESS);
	gate_open(g);
	MUST(cuCtxSynchronize());
	ok(ran(7), "pending work of a destroyed stream completes");
}

int main(void)
{
	CUmodule mod;
	CUfunction step;
	main_thread = pthread_self();
	CUcontext ctx = simtest_setup(&mod);
	MUST(cuModuleGetFunction(&step, mod, "step"));
	struct gate g = gate_new();
	async_and_order(step, &g);
	legacy_waits_for_blocking(&g);
	per_thread_stream(&g);
	per_thread_streams_are_separate(ctx, &g);
	wait_event(step, &g);
	host_functions(&g);
	return simtest_done();
}
