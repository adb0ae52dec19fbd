/* SPDX-License-Identifier: MIT */
/*
 * Test program for the GDB integration: a small CUDA driver program (run on the simulated
 * driver under the recorder) that leaves GDB something to name.  It allocates two device
 * buffers, frees one, and calls use_buffers(live + 16, stale + 16), which dies (abort) or waits
 * (--wait, for attaching) with both pointers as `float *` arguments, so backtraces show them.
 *
 *   gdbprobe [--wait] [--jit ELF] [--reuse]
 *
 * --jit ELF makes it a second JIT producer, the way LLVM ORC is one: it maps the PT_LOAD
 * segments of ELF (an executable linked at a fixed address, tests/plugin/jitfn.c), registers
 * the ELF's bytes through its own __jit_debug_descriptor, and reaches use_buffers through the
 * jitted function, so that `bt` shows jitted_call only if GDB loaded the other producer's
 * object.  The pointers are also in the globals probe_live and probe_stale.  Before dying it
 * prints "live=ADDR stale=ADDR pid=PID" on stdout.
 *
 * --reuse then reuses the freed range, first fit as the simulated driver allocates: a 4 KiB
 * "spacer" at its start and a 16 KiB "reused" allocation right after it, and frees the spacer
 * again, so that a live allocation, a newer free and the older free overlap (the GDB tests
 * check which name wins).  It prints "reused=ADDR spacer=ADDR" first (ADDR + 16 each, also in
 * probe_reused and probe_spacer).
 */
#include <cuda.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The other producer's side of GDB's JIT interface. */
#include "../../recorder/gdb-jit.h"
struct jit_descriptor __jit_debug_descriptor = { 1, 0, NULL, NULL };
void __jit_debug_register_code(void);
void __attribute__((noinline)) __jit_debug_register_code(void)
{
	__asm__ volatile("" ::: "memory");
}

static int wait_mode;
static int reuse_mode;
/* The pointers again, in globals, so tests can `x/a &probe_live` without selecting a frame. */
float *probe_live, *probe_stale;
float *probe_reused, *probe_spacer;

#define CHECK(call)                                                                        \
	do {                                                                               \
		CUresult r_ = (call);                                                      \
		if (r_ != CUDA_SUCCESS) {                                                  \
			fprintf(stderr, "gdbprobe: %s failed: %d\n", #call, (int)r_);      \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

void use_buffers(float *live, float *stale);
void __attribute__((noinline)) use_buffers(float *live, float *stale)
{
	printf("live=%p stale=%p pid=%d\n", (void *)live, (void *)stale, (int)getpid());
	fflush(stdout);
	if (wait_mode)
		for (;;)
			pause();
	abort();
}

typedef void (*use_fn)(float *, float *);
typedef void (*jitted_fn)(use_fn, float *, float *);

/* Map ELF's loadable segments where it was linked and register its bytes with GDB. */
static jitted_fn jit_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	char *elf = malloc((size_t)size);
	if (!elf || fread(elf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "gdbprobe: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff) + i;
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t page = ph->p_vaddr & ~(uintptr_t)4095;
		size_t len = ph->p_vaddr + ph->p_memsz - page;
		void *m = mmap((void *)page, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED) {
			perror("gdbprobe: mmap");
			exit(1);
		}
		memcpy((void *)ph->p_vaddr, elf + ph->p_offset, ph->p_filesz);
		mprotect(m, len, PROT_READ | PROT_EXEC);
	}
	static struct jit_code_entry entry;
	entry.symfile_addr = elf;
	entry.symfile_size = (uint64_t)size;
	entry.next_entry = __jit_debug_descriptor.first_entry;
	__jit_debug_descriptor.first_entry = &entry;
	__jit_debug_descriptor.relevant_entry = &entry;
	__jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
	__jit_debug_register_code();
	return (jitted_fn)(uintptr_t)eh->e_entry;
}

int main(int argc, char **argv)
{
	const char *jit = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0)
			wait_mode = 1;
		else if (strcmp(argv[i], "--reuse") == 0)
			reuse_mode = 1;
		else if (strcmp(argv[i], "--jit") == 0 && i + 1 < argc)
			jit = argv[++i];
		else {
			fprintf(stderr, "usage: gdbprobe [--wait] [--jit ELF] [--reuse]\n");
			return 2;
		}
	}
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr live, stale;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemAlloc(&live, 4096)); /* small: `disassemble` dumps all of it */
	CHECK(cuMemAlloc(&stale, 1 << 16));
	CHECK(cuMemFree(stale));
	if (reuse_mode) {
		CUdeviceptr spacer, reused;
		CHECK(cuMemAlloc(&spacer, 4096));
		CHECK(cuMemAlloc(&reused, 16384));
		CHECK(cuMemFree(spacer));
		probe_reused = (float *)(uintptr_t)(reused + 16);
		probe_spacer = (float *)(uintptr_t)(spacer + 16);
		printf("reused=%p spacer=%p\n", (void *)probe_reused, (void *)probe_spacer);
	}
	float *l = (float *)(uintptr_t)(live + 16), *s = (float *)(uintptr_t)(stale + 16);
	probe_live = l;
	probe_stale = s;
	if (jit)
		jit_load(jit)(use_buffers, l, s);
	else
		use_buffers(l, s);
	return 0;
}
