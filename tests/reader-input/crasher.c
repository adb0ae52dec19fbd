/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: a real process that holds a synthetic flight record (synth.h) the way the
 * recorder would, then dies or waits, so tests get real kernel cores, gcores and live pids.
 *
 *   crasher [--mode=M] [--crash=C] [--threads=N] [--crash-thread=K] [--lib=PATH] [record opts]
 *
 * Modes (where the record lives, hence which locate method must find it):
 *   memfd      a MAP_SHARED memfd named "cudainspect-record" (NT_FILE / maps)
 *   symbol     private anonymous memory, address published in `cudainspect_record` of the
 *              library --lib (a stand-in named libcudainspect-rec-*.so) (exported symbol)
 *   lib-zero   as symbol, but the pointer stays 0 (recorder loaded, no record yet)
 *   scan       private anonymous memory, nothing else (page-start magic scan)
 *   persistent a MAP_SHARED file ./cudainspect-synth-PID.cirec (not dumped by default)
 *   fork       a memfd record, then fork(); the child adds its own record and crashes
 *   none       no record at all
 * --filter=HEX sets /proc/self/coredump_filter first; --touch=MIB writes that much private memory;
 * --reserve=GIB maps that much and never touches it; --map=PATH maps that file read-only (its
 * first page is dumped when it is an ELF file); --busy=N adds N threads outside the record,
 * each 40 calls deep, that wake every millisecond (for tests that unwind many threads).
 * Crash: segv (write to 0x1234), abort, hang (wait for SIGTERM), writer (hang while a thread
 * keeps republishing launch entries, for seqlock tests).
 * Before crashing it prints "pid=P", "tid=T name=N" per thread and "record=ADDR" on stdout.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synth.h"

static struct synth_spec spec;
static const char *mode = "memfd", *crash = "segv", *lib;
static int nthreads = 2, crash_thread = 0;
static pthread_barrier_t ready;
static atomic_int go;
static uint8_t *record;

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

static void die_now(void)
{
	fflush(stdout);
	if (strcmp(crash, "abort") == 0)
		abort();
	*(volatile int *)0x1234 = 1;
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg;
	char name[16];
	snprintf(name, sizeof name, "ci-worker-%d", k);
	pthread_setname_np(pthread_self(), name);
	spec.thread_tids[k] = (uint32_t)gettid_();
	pthread_barrier_wait(&ready);
	while (!atomic_load(&go))
		usleep(1000);
	if (k == crash_thread)
		die_now();
	for (;;)
		pause();
	return NULL;
}

/* A thread DEPTH calls deep that wakes every millisecond (forever: nothing clears it). */
static volatile int busy_forever = 1;
static __attribute__((noinline)) void busy_deep(int depth)
{
	if (depth > 0) {
		busy_deep(depth - 1);
		__asm__ volatile("" ::: "memory"); /* not a tail call: every frame stays */
		return;
	}
	while (busy_forever)
		usleep(1000);
}

static void *busy(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "busy");
	busy_deep(40);
	return NULL;
}

/* Republish launch entries forever with the record.h protocol (claim, BUSY, fill, seq). */
static void *writer(void *arg)
{
	(void)arg;
	struct ci_header *h = (struct ci_header *)(void *)record;
	struct ci_section *dir = (struct ci_section *)(void *)(record + h->section_dir_offset);
	struct ci_section *sec = NULL;
	for (uint32_t i = 0; i < h->section_count; i++)
		if (dir[i].kind == CI_SEC_LAUNCHES)
			sec = &dir[i];
	if (!sec)
		return NULL;
	for (;;) {
		uint64_t index = __atomic_fetch_add(&sec->head, 1, __ATOMIC_RELAXED);
		uint8_t *slot = record + sec->offset + (index % sec->capacity) * sec->entry_size;
		uint64_t *seq = (uint64_t *)(void *)slot;
		if (__atomic_exchange_n(seq, CI_SEQ_BUSY, __ATOMIC_ACQUIRE) == CI_SEQ_BUSY)
			continue;
		struct ci_launch l;
		synth_fill_launch(&l, index);
		/* Field by field, slowly, so a reader that ignored seq would see mixtures. */
		volatile uint8_t *dst = slot + 8;
		const uint8_t *from = (const uint8_t *)&l + 8;
		for (size_t i = 0; i < sizeof l - 8; i++)
			dst[i] = from[i];
		__atomic_store_n(seq, index + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static uint8_t *make_record(const char *how, pid_t owner, uint32_t flags)
{
	struct synth_spec s = spec;
	s.pid = (uint32_t)owner;
	s.flags |= flags;
	s.origin = CI_ORIGIN_MEMFD;
	s.state = CI_STATE_LIVE;
	size_t size = synth_size(&s);
	uint8_t *p;
	int fd = -1;
	if (strcmp(how, "memfd") == 0) {
		fd = memfd_create(CI_MEMFD_NAME, MFD_CLOEXEC);
	} else if (strcmp(how, "persistent") == 0) {
		char path[64];
		snprintf(path, sizeof path, "cudainspect-synth-%d%s", (int)owner, CI_PERSISTENT_SUFFIX);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		s.origin = CI_ORIGIN_PERSISTENT;
	}
	if (fd >= 0) {
		if (ftruncate(fd, (off_t)size) < 0) {
			perror("ftruncate");
			exit(1);
		}
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	s.record_base = (uint64_t)(uintptr_t)p;
	synth_build(&s, p);
	return p;
}

int main(int argc, char **argv)
{
	synth_defaults(&spec);
	for (int i = 1; i < argc; i++) {
		if (synth_parse_option(&spec, argv[i]))
			continue;
		if (strncmp(argv[i], "--mode=", 7) == 0)
			mode = argv[i] + 7;
		else if (strncmp(argv[i], "--crash=", 8) == 0)
			crash = argv[i] + 8;
		else if (strncmp(argv[i], "--threads=", 10) == 0)
			nthreads = atoi(argv[i] + 10);
		else if (strncmp(argv[i], "--crash-thread=", 15) == 0)
			crash_thread = atoi(argv[i] + 15);
		else if (strncmp(argv[i], "--lib=", 6) == 0)
			lib = argv[i] + 6;
		else if (strncmp(argv[i], "--reserve=", 10) == 0) {
			/* GiB of address space reserved and never touched (like ASan's shadow). */
			size_t n = (size_t)atoll(argv[i] + 10) << 30;
			if (n)
				mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		}
		else if (strncmp(argv[i], "--touch=", 8) == 0) {
			/* MiB of private memory to write before the record (large cores for timing). */
			size_t n = (size_t)atoll(argv[i] + 8) << 20;
			char *p = n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
			for (size_t o = 0; p && p != MAP_FAILED && o < n; o += 4096)
				p[o] = 1;
		}
		else if (strncmp(argv[i], "--map=", 6) == 0) {
			int fd = open(argv[i] + 6, O_RDONLY | O_CLOEXEC);
			struct stat st;
			if (fd < 0 || fstat(fd, &st) < 0 ||
			    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
				perror(argv[i] + 6);
				return 1;
			}
			close(fd);
		}
		else if (strncmp(argv[i], "--busy=", 7) == 0) {
			for (int k = atoi(argv[i] + 7); k > 0; k--) {
				pthread_t t;
				pthread_create(&t, NULL, busy, NULL);
			}
		}
		else if (strncmp(argv[i], "--filter=", 9) == 0) {
			/* What the kernel dumps (core(5)); 0x2 keeps cores tiny: shared memory only. */
			FILE *f = fopen("/proc/self/coredump_filter", "w");
			if (f) {
				fputs(argv[i] + 9, f);
				fclose(f);
			}
		}
		else {
			fprintf(stderr, "usage: crasher [--mode=M] [--crash=C] [--threads=N] "
					"[--crash-thread=K] [--lib=PATH] [record options]\n%s",
				synth_options_help());
			return 2;
		}
	}
	if (nthreads < 0 || nthreads > 7)
		nthreads = 7;
	if (strcmp(mode, "fork") == 0) {
		make_record("memfd", getpid(), 0);
		pid_t child = fork();
		if (child < 0)
			return 1;
		if (child > 0) {
			int status;
			waitpid(child, &status, 0);
			return 0;
		}
		mode = "memfd";
		spec.flags |= CI_HDR_FORKED_CHILD;
	}

	/* Threads first, so the record's thread table can name them. */
	pthread_barrier_init(&ready, NULL, (unsigned)nthreads + 1);
	pthread_t th[8];
	spec.thread_tids[0] = (uint32_t)getpid();
	spec.thread_names[0] = "rec-main";
	static char names[8][16];
	for (int k = 1; k <= nthreads; k++) {
		snprintf(names[k], sizeof names[k], "rec-worker-%d", k);
		spec.thread_names[k] = names[k];
		pthread_create(&th[k], NULL, worker, (void *)(intptr_t)k);
	}
	pthread_barrier_wait(&ready);
	spec.thread_count = (uint32_t)nthreads + 1;

	void **symbol = NULL;
	if (strcmp(mode, "symbol") == 0 || strcmp(mode, "lib-zero") == 0) {
		void *h = lib ? dlopen(lib, RTLD_NOW) : NULL;
		symbol = h ? dlsym(h, CI_RECORD_SYMBOL) : NULL;
		if (!symbol) {
			fprintf(stderr, "crasher: --mode=%s needs --lib=PATH exporting %s (%s)\n", mode,
				CI_RECORD_SYMBOL, dlerror());
			return 1;
		}
	}
	if (strcmp(mode, "none") != 0 && strcmp(mode, "lib-zero") != 0)
		record = make_record(strcmp(mode, "symbol") == 0 || strcmp(mode, "scan") == 0 ? "anon" : mode,
				     getpid(), strcmp(mode, "memfd") == 0 ? spec.flags : 0);
	if (symbol && strcmp(mode, "symbol") == 0)
		*symbol = record;

	printf("pid=%d\n", (int)getpid());
	for (int k = 0; k <= nthreads; k++)
		printf("tid=%u name=%s\n", spec.thread_tids[k], spec.thread_names[k]);
	printf("record=0x%llx\n", (unsigned long long)(uintptr_t)record);
	printf("ready\n");
	fflush(stdout);

	if (strcmp(crash, "writer") == 0 && record) {
		pthread_t w;
		pthread_create(&w, NULL, writer, NULL);
	}
	if (strcmp(crash, "hang") == 0 || strcmp(crash, "writer") == 0) {
		for (;;)
			pause();
	}
	if (crash_thread == 0)
		die_now();
	atomic_store(&go, 1);
	for (;;)
		pause();
}
