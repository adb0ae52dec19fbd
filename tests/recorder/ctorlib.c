/* SPDX-License-Identifier: MIT */
/*
 * A library whose constructor calls CUDA, for start.t (the recorder starts on the process's
 * first CUDA call, which may come from a constructor: inside the dynamic loader's lock, and
 * possibly before the recorder's own constructor ran).
 *   libctorearly.so   a program's dependency: its constructor calls cuInit at start-up
 *   libctorthread.so  (-DCTOR_THREAD) opened with dlopen: its constructor starts another thread
 *                     whose cuInit is the process's first CUDA call, waits 200 ms (that thread
 *                     is inside the recorder's start-up by then, and needs the loader's lock,
 *                     which this constructor holds), then calls cuInit itself
 * ctorlib_finish() joins that thread and prints both results.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

int ctorlib_finish(void);

static CUresult ctor_result = (CUresult)-1;

#ifdef CTOR_THREAD
static CUresult other_result = (CUresult)-1;
static pthread_t other;
static int other_started;

static void *other_main(void *arg)
{
	(void)arg;
	other_result = cuInit(0);
	return NULL;
}
#endif

__attribute__((constructor)) static void ctorlib_init(void)
{
#ifdef CTOR_THREAD
	other_started = pthread_create(&other, NULL, other_main, NULL) == 0;
	struct timespec wait = { 0, 200000000 };
	nanosleep(&wait, NULL);
#endif
	ctor_result = cuInit(0);
}

int ctorlib_finish(void)
{
#ifdef CTOR_THREAD
	if (other_started)
		pthread_join(other, NULL);
	printf("ctorlib: other thread's cuInit -> %d\n", (int)other_result);
#endif
	printf("ctorlib: constructor's cuInit -> %d\n", (int)ctor_result);
	return ctor_result;
}
