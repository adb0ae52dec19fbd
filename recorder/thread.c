/* SPDX-License-Identifier: MIT */
/*
 * Per-thread state: the thread id, the thread's entry in CI_SEC_THREADS, its stack bounds (for
 * frame-pointer walks) and its claimed launch-ring indices, kept in initial-exec TLS so that the
 * launch path reads them without a call.  Set up once per thread, on its first recorded CUDA
 * call (or again after a fork replaced the record); that one-time setup may make system calls.
 */
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

__thread struct ci_tls ci_tls __attribute__((tls_model("initial-exec"))) CI_HIDDEN;

/* The thread's name (what PR_GET_NAME gives), read from /proc rather than with prctl: a seccomp
 * filter may kill on prctl, never on reading a file the program could read itself. */
static void ci_thread_name(uint32_t tid, char name[16])
{
	char path[48];
	int fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	memset(name, 0, 16);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, 15);
	close(fd);
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == 0))
		name[--n] = 0;
}

static void ci_thread_stack_bounds(struct ci_tls *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	t->stack_lo = t->stack_hi = 0;
	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &addr, &size)) {
		t->stack_lo = (uintptr_t)addr;
		t->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

void ci_thread_setup(struct ci_tls *t)
{
	uint32_t generation = __atomic_load_n(&ci_generation, __ATOMIC_ACQUIRE);
	uint32_t in_setup = t->in_setup;
	memset(t, 0, sizeof *t);
	t->in_setup = in_setup;
	t->tid = (uint32_t)syscall(SYS_gettid);
	t->slot = CI_NONE;
	t->pt_slot = CI_NONE;
	t->legacy_slot = CI_NONE;
	t->crumb_stream = CI_NONE;
	t->last_stack = ci_stack_last_of_thread();
	ci_thread_stack_bounds(t);
	if (ci_rec.base) {
		uint32_t slot = ci_table_claim(CI_SEC_THREADS);
		if (slot != CI_NONE) {
			struct ci_thread *e = ci_entry(CI_SEC_THREADS, slot);
			ci_entry_begin(&e->seq);
			e->first_ns = ci_now();
			e->tid = t->tid;
			char name[16];
			ci_thread_name(t->tid, name);
			memcpy(e->name, name, sizeof e->name);
			ci_entry_publish(&e->seq, (uint64_t)slot + 1);
			t->slot = slot;
		}
	}
	t->generation = generation;
}

uint32_t ci_thread_slot(void)
{
	return ci_thread()->slot;
}
