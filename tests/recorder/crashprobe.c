/* SPDX-License-Identifier: MIT */
/*
 * crashprobe: dies (or not) in chosen ways after using CUDA, for signals.t.
 *   crashprobe segv       reads address 0x40 after a launch (SIGSEGV from the hardware)
 *   crashprobe abort      abort() after a launch
 *   crashprobe handler    installs its own SIGSEGV handler before CUDA starts, then faults;
 *                         the handler prints a line and _exit(42)s
 *   crashprobe ignore     ignores SIGTRAP before CUDA starts, raises it, and exits 0
 *   crashprobe dlopen LIB loads LIB after CUDA started, allocates, unloads it, allocates again
 *   crashprobe fork       forks after a launch; the child tries a launch and exits 3
 * Every mode first launches kernel probe_k once on a created stream.
 */
#define PROBE_NAME "crashprobe"
#include "probe.h"
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void on_segv(int sig)
{
	static const char msg[] = "crashprobe: own handler ran\n";
	ssize_t w = write(STDOUT_FILENO, msg, sizeof msg - 1);
	(void)w;
	(void)sig;
	_exit(42);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "handler"))
		signal(SIGSEGV, on_segv);
	if (!strcmp(mode, "ignore"))
		signal(SIGTRAP, SIG_IGN);
	cuda_start();
	launch(0x11);
	fflush(stdout);
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler")) {
		/* argc is 2 here */
		volatile int *bad;
		bad = (volatile int *)(uintptr_t)(argc * 0x20); /* 0x40, unknown to the compiler */
		return *bad;
	}
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "ignore")) {
		raise(SIGTRAP);
		printf("crashprobe: still running\n");
		return 0;
	}
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
	fprintf(stderr, "usage: crashprobe segv|abort|handler|ignore|fork\n");
	return 2;
}
