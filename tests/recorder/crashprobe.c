/* SPDX-License-Identifier: MIT */
/*
 * crashprobe: dies (or not) in chosen ways after using CUDA, for signals.t, files.t,
 * messages.t and recordcli.t.
 *   crashprobe [-s] [-e FILE] [-p] MODE [ARGS]
 *   -s       write "crashprobe: before CUDA" to stderr before the first CUDA call
 *   -e FILE  once CUDA started, close stderr and open FILE (created, truncated) in its place, as
 *            a program that reuses descriptor 2 for data does, and write "crashprobe: data\n"
 *   -p       once CUDA started, print "crashprobe: ready PID" and wait for SIGUSR1
 * Modes:
 *   segv       reads address 0x40 after a launch (SIGSEGV from the hardware)
 *   abort      abort() after a launch
 *   exit       exits 0 after a launch
 *   handler    installs its own SIGSEGV handler before CUDA starts, then faults; the handler
 *              prints a line and _exit(42)s
 *   ignore     ignores SIGTRAP before CUDA starts, raises it, and exits 0
 *   dlopen LIB loads LIB after CUDA started, allocates, unloads it, allocates again
 *   fork       forks after a launch; the child tries a launch and exits 3
 *   recover SIG WHEN   a handler for SIG (segv, bus, fpe, ill, abrt) installed before or after
 *              CUDA starts (WHEN: before, after) on an alternate stack, that leaves with
 *              siglongjmp; the fault happens 3 times; prints what it saw and exits 0
 *   fixup      (after CUDA starts) writes to a PROT_NONE page; the SIGSEGV handler makes it
 *              writable and returns, so the write is done again and succeeds (as JITs do)
 *   giveup WHEN  the SIGSEGV handler resets the default action and returns: the fault repeats
 *   reraise WHEN the SIGSEGV handler restores the action it replaced and raises SIGSEGV again
 *              (Python's faulthandler)
 *   aborthandler a SIGABRT handler that prints a line and returns; then abort()
 *   query      installs handlers after CUDA starts with sigaction, signal and sysv_signal and
 *              prints what each call answered, as old and current actions
 * Every mode first launches kernel probe_k once on a created stream.
 */
#define PROBE_NAME "crashprobe"
#include "probe.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry probe_k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n";

static CUfunction f;
static CUstream s;

static void cuda_start(void)
{
	CUmodule mod;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "probe_k"));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
}

static void launch(uint64_t tag)
{
	void *params[] = { &tag };
	CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
	CHECK(cuStreamSynchronize(s));
}

static void say(const char *msg)
{
	ssize_t w = write(STDOUT_FILENO, msg, strlen(msg));
	(void)w;
}

static void on_segv(int sig)
{
	say("crashprobe: own handler ran\n");
	(void)sig;
	_exit(42);
}

/* ---- recover ---------------------------------------------------------------------------- */

static sigjmp_buf recover_jmp;
static volatile sig_atomic_t recover_count, recover_onstack = 1, recover_info = 1;
static char altstack[1 << 16];

static void on_recover(int sig, siginfo_t *info, void *uc)
{
	char here;
	(void)uc;
	recover_count++;
	if (!(&here >= altstack && &here < altstack + sizeof altstack))
		recover_onstack = 0;
	if (!info || info->si_signo != sig)
		recover_info = 0;
	siglongjmp(recover_jmp, 1);
}

static int signal_by_name(const char *name)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "segv", SIGSEGV }, { "bus", SIGBUS }, { "fpe", SIGFPE }, { "ill", SIGILL },
		{ "abrt", SIGABRT },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i].name))
			return names[i].sig;
	return 0;
}

static volatile int zero;

/* One fault of kind SIG, raised by the hardware (or abort's raise for SIGABRT). */
static void fault(int sig)
{
	if (sig == SIGSEGV) {
		volatile int *bad = (volatile int *)(uintptr_t)(0x40 + zero);
		*bad = 1;
	} else if (sig == SIGBUS) {
		/* A page of a file mapped beyond its end. */
		FILE *tmp = tmpfile();
		volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(tmp), 0);
		if (p != MAP_FAILED)
			(void)p[zero];
		fclose(tmp);
	} else if (sig == SIGFPE) {
#if defined(__x86_64__)
		/* The instruction itself: in C, UBSan would catch the division first. */
		int q, d = zero;
		__asm__ volatile("cltd; idivl %2" : "=a"(q) : "a"(7), "r"(d) : "edx");
		(void)q;
#else
		volatile int seven = 7; /* not a constant: 1 / x compiles to no division at all */
		volatile int n = seven / zero;
		(void)n;
#endif
	} else if (sig == SIGILL) {
		__builtin_trap();
	} else if (sig == SIGABRT) {
		raise(SIGABRT);
	}
}

static void install_recover(int sig)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_recover;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static int recover(const char *signame, const char *when)
{
	int sig = signal_by_name(signame);
	if (!sig)
		return 2;
	if (!strcmp(when, "after"))
		install_recover(sig);
	for (int i = 0; i < 3; i++)
		if (!sigsetjmp(recover_jmp, 1))
			fault(sig);
	launch(0x44); /* CUDA still works afterwards */
	printf("crashprobe: recovered %d %s faults, on the alternate stack: %s, siginfo: %s\n",
	       (int)recover_count, signame, recover_onstack ? "yes" : "no",
	       recover_info ? "yes" : "no");
	return 0;
}

/* ---- fixup, giveup, reraise, aborthandler ------------------------------------------------- */

static char *volatile fixup_page; /* read by the handler: stored before the write faults */

static void on_fixup(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	if ((char *)info->si_addr >= fixup_page && (char *)info->si_addr < fixup_page + 4096)
		mprotect(fixup_page, 4096, PROT_READ | PROT_WRITE);
}

static void on_giveup(int sig)
{
	say("crashprobe: giving up\n");
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

static struct sigaction reraise_prev;

static void on_reraise(int sig)
{
	say("crashprobe: dumping the traceback\n");
	sigaction(sig, &reraise_prev, NULL);
	raise(sig);
}

static void on_abort(int sig)
{
	(void)sig;
	say("crashprobe: abort handler ran\n");
}

static void install_plain(int sig, void (*h)(int), struct sigaction *prev)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, prev);
}

/* ---- query --------------------------------------------------------------------------------- */

static void on_query(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
}
static void on_query2(int sig)
{
	(void)sig;
}

static const char *what(void (*h)(int))
{
	union {
		void (*plain)(int);
		void (*info)(int, siginfo_t *, void *);
	} q = { .info = on_query };
	return h == SIG_DFL ? "default" : h == SIG_IGN ? "ignore" : h == on_query2 ? "on_query2"
	       : h == q.plain ? "on_query" : "something else";
}

static int query(void)
{
	struct sigaction mine, old, now;
	memset(&mine, 0, sizeof mine);
	mine.sa_sigaction = on_query;
	mine.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigemptyset(&mine.sa_mask);
	sigaddset(&mine.sa_mask, SIGUSR2);
	sigaction(SIGSEGV, &mine, &old);
	printf("sigaction(SEGV) replaced: %s\n", what(old.sa_handler));
	sigaction(SIGSEGV, NULL, &now);
	printf("sigaction(SEGV) now: %s siginfo=%d restart=%d nodefer=%d resethand=%d usr2=%d\n",
	       what(now.sa_handler), !!(now.sa_flags & SA_SIGINFO), !!(now.sa_flags & SA_RESTART),
	       !!(now.sa_flags & SA_NODEFER), !!(now.sa_flags & SA_RESETHAND),
	       sigismember(&now.sa_mask, SIGUSR2));
	printf("signal(BUS) replaced: %s\n", what(signal(SIGBUS, on_query2)));
	printf("signal(BUS) replaced: %s\n", what(signal(SIGBUS, SIG_IGN)));
	sigaction(SIGBUS, NULL, &now);
	printf("sigaction(BUS) now: %s\n", what(now.sa_handler));
	printf("sysv_signal(FPE) replaced: %s\n", what(sysv_signal(SIGFPE, on_query2)));
	sigaction(SIGFPE, NULL, &now);
	printf("sigaction(FPE) now: %s resethand=%d nodefer=%d\n", what(now.sa_handler),
	       !!(now.sa_flags & SA_RESETHAND), !!(now.sa_flags & SA_NODEFER));
	printf("signal(ILL, SIG_ERR): %s\n", signal(SIGILL, SIG_ERR) == SIG_ERR ? "SIG_ERR" : "?");
	sigaction(SIGTRAP, NULL, &now);
	printf("sigaction(TRAP) now: %s\n", what(now.sa_handler));
	printf("signal(USR1) replaced: %s\n", what(signal(SIGUSR1, on_query2)));
	return 0;
}

/* ---- options ------------------------------------------------------------------------------- */

static volatile sig_atomic_t go;
static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	const char *data_file = NULL;
	bool before = false, pause_after = false;
	int opt;
	while ((opt = getopt(argc, argv, "+se:p")) != -1) {
		if (opt == 's')
			before = true;
		else if (opt == 'e')
			data_file = optarg;
		else if (opt == 'p')
			pause_after = true;
		else
			return 2;
	}
	argc -= optind - 1;
	argv += optind - 1;
	const char *mode = argc > 1 ? argv[1] : "";
	const char *when = argc > 2 ? argv[argc - 1] : "";
	if (!strcmp(mode, "handler"))
		signal(SIGSEGV, on_segv);
	if (!strcmp(mode, "ignore"))
		signal(SIGTRAP, SIG_IGN);
	if (!strcmp(mode, "recover") && argc > 3 && !strcmp(when, "before"))
		install_recover(signal_by_name(argv[2]));
	if (!strcmp(mode, "giveup") && !strcmp(when, "before"))
		install_plain(SIGSEGV, on_giveup, NULL);
	if (!strcmp(mode, "reraise") && !strcmp(when, "before"))
		install_plain(SIGSEGV, on_reraise, &reraise_prev);
	if (before) {
		static const char msg[] = "crashprobe: before CUDA\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
	}
	cuda_start();
	launch(0x11);
	fflush(stdout);
	if (data_file) {
		close(STDERR_FILENO);
		int fd = open(data_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != STDERR_FILENO)
			return 5;
		static const char msg[] = "crashprobe: data\n";
		ssize_t w = write(fd, msg, sizeof msg - 1);
		(void)w;
	}
	if (pause_after) {
		signal(SIGUSR1, on_usr1);
		printf("crashprobe: ready %d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			usleep(1000);
	}
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler")) {
		/* argc is 2 here */
		volatile int *bad;
		bad = (volatile int *)(uintptr_t)(argc * 0x20); /* 0x40, unknown to the compiler */
		return *bad;
	}
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "exit"))
		return 0;
	if (!strcmp(mode, "ignore")) {
		raise(SIGTRAP);
		printf("crashprobe: still running\n");
		return 0;
	}
	if (!strcmp(mode, "recover") && argc > 3)
		return recover(argv[2], when);
	if (!strcmp(mode, "fixup")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_fixup;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		fixup_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		((volatile char *)fixup_page)[100] = 42;
		printf("crashprobe: fixed up, read back %d\n", fixup_page[100]);
		return 0;
	}
	if (!strcmp(mode, "giveup") || !strcmp(mode, "reraise")) {
		if (!strcmp(when, "after"))
			install_plain(SIGSEGV, !strcmp(mode, "giveup") ? on_giveup : on_reraise,
				      &reraise_prev);
		volatile int *bad = (volatile int *)(uintptr_t)(0x40 + zero);
		return *bad;
	}
	if (!strcmp(mode, "aborthandler")) {
		install_plain(SIGABRT, on_abort, NULL);
		abort();
	}
	if (!strcmp(mode, "query"))
		return query();
	if (!strcmp(mode, "dlopen") && argc > 2) {
		CUdeviceptr p;
		void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "crashprobe: %s\n", dlerror());
			return 1;
		}
		usleep(20000); /* the recorder looks for new libraries at most every 10 ms */
		CHECK(cuMemAlloc(&p, 4096));
		dlclose(h);
		usleep(20000);
		CHECK(cuMemFree(p));
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			/* CUDA is not usable in a forked child (real drivers and the simulator
			 * answer CUDA_ERROR_NOT_INITIALIZED); the call is still one of the child's,
			 * to be recorded in the child's own record. */
			uint64_t tag = 0x22;
			void *params[] = { &tag };
			CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
			printf("crashprobe: child's launch -> %d\n", (int)r);
			exit(3); /* runs the exit handlers: the child's own exit snapshot */
		}
		int st = 0;
		waitpid(pid, &st, 0);
		launch(0x33);
		printf("crashprobe: child %d exited %d\n", (int)pid, WEXITSTATUS(st));
		return 0;
	}
	fprintf(stderr, "usage: crashprobe [-s] [-e FILE] [-p] segv|abort|exit|handler|ignore|"
			"dlopen LIB|fork|recover SIG WHEN|fixup|giveup WHEN|reraise WHEN|"
			"aborthandler|query\n");
	return 2;
}
