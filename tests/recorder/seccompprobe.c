/* SPDX-License-Identifier: MIT */
/*
 * seccompprobe: a CUDA program inside a seccomp filter, as sandboxes run them (seccomp.t).
 *   seccompprobe ACTION SYSCALLS [after] [segv | self NAME]
 * installs (with prctl(PR_SET_SECCOMP), raw BPF) a filter that answers each system call named
 * in the comma-separated SYSCALLS (NAME, or NAME:ARG0 for one value of its first argument)
 * with ACTION - kill (SECCOMP_RET_KILL_PROCESS), trap
 * (SECCOMP_RET_TRAP: SIGSYS) or eperm (SECCOMP_RET_ERRNO) - and allows everything else; then
 * starts CUDA, launches a kernel twice and prints "seccompprobe: 2 launches".  `after`
 * installs the filter only after the first launch (the recorder already started); `segv` ends
 * with a fault at address 0x40 instead of exiting; `self NAME` makes system call NAME itself
 * after the launches (the filter's own effect, to show it is real).
 */
#define PROBE_NAME "seccompprobe"
#include "probe.h"
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PROBE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PROBE_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccompprobe knows x86-64 and aarch64"
#endif

static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			  ".visible .entry probe_k(\n\t.param .u64 p\n)\n{\n\tret;\n}\n";

static volatile int zero;

static const struct {
	const char *name;
	long nr;
} calls[] = {
	{ "memfd_create", SYS_memfd_create }, { "getrandom", SYS_getrandom },
	{ "renameat2", SYS_renameat2 },	      { "linkat", SYS_linkat },
	{ "fallocate", SYS_fallocate },	      { "prctl", SYS_prctl },
	{ "madvise", SYS_madvise },	      { "rename", SYS_rename },
	{ "link", SYS_link },
};

static long nr_of(const char *name)
{
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (!strcmp(calls[i].name, name))
			return calls[i].nr;
	fprintf(stderr, "seccompprobe: unknown system call %s\n", name);
	exit(2);
}

/* One rule per listed call, "NAME" or "NAME:ARG0" (only when its first argument is ARG0, as
 * sandboxes filter prctl by option), each ending in ACTION; everything else allowed. */
static void install(const char *action, const char *list)
{
	uint32_t ret = !strcmp(action, "kill")	? SECCOMP_RET_KILL_PROCESS
		       : !strcmp(action, "trap") ? SECCOMP_RET_TRAP
						 : SECCOMP_RET_ERRNO | EPERM;
	struct sock_filter f[256];
	unsigned k = 0;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", list);
	/* Another architecture's calls: allowed (they cannot be this program's). */
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					       offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROBE_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	for (char *save, *w = strtok_r(buf, ",", &save); w && k + 8 < 256;
	     w = strtok_r(NULL, ",", &save)) {
		char *arg = strchr(w, ':');
		if (arg)
			*arg++ = 0;
		f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						       offsetof(struct seccomp_data, nr));
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						       (uint32_t)nr_of(w), 0, arg ? 3 : 1);
		if (arg) {
			f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							       offsetof(struct seccomp_data, args[0]));
			f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							       (uint32_t)strtoul(arg, NULL, 0), 0, 1);
		}
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { .len = (unsigned short)k, .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccompprobe: installing the filter");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: seccompprobe kill|trap|eperm SYSCALLS [after] [segv | self NAME]\n");
		return 2;
	}
	bool after = argc > 3 && !strcmp(argv[3], "after");
	int rest = after ? 4 : 3;
	if (!after)
		install(argv[1], argv[2]);
	CUmodule mod;
	CUfunction f;
	CUstream s;
	probe_start(ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "probe_k"));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	for (uint64_t tag = 1; tag <= 2; tag++) {
		void *params[] = { &tag };
		CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, params, NULL));
		CHECK(cuStreamSynchronize(s));
		if (after && tag == 1)
			install(argv[1], argv[2]);
	}
	printf("seccompprobe: 2 launches\n");
	fflush(stdout);
	if (argc > rest && !strcmp(argv[rest], "segv")) {
		volatile int *bad = (volatile int *)(uintptr_t)(0x40 + zero);
		return *bad;
	}
	if (argc > rest + 1 && !strcmp(argv[rest], "self")) {
		char *arg = strchr(argv[rest + 1], ':');
		if (arg)
			*arg++ = 0;
		char name[17] = "";
		long a0 = arg ? strtol(arg, NULL, 0) : 0;
		long r = syscall(nr_of(argv[rest + 1]), a0, name, 0, 0, 0, 0);
		printf("seccompprobe: %s returned %ld (%s)\n", argv[rest + 1], r,
		       r < 0 ? strerror(errno) : "ok");
	}
	return 0;
}
