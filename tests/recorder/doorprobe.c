/* SPDX-License-Identifier: MIT */
/*
 * doorprobe: exercises the three doors to the driver, for doors.t.  Run with and without the
 * recorder preloaded: the driver's answers must be the same, and with the recorder every
 * pointer handed out must be the recorder's wrapper of exactly the versioned symbol the driver
 * chose.
 *
 *   doorprobe procaddr   cuGetProcAddress / cuGetProcAddress_v2 for many (symbol, version,
 *                        flags): prints result, status and the symbol name of the pointer
 *   doorprobe launch     one launch through each door, with parameters that say which door
 *   doorprobe streams    legacy vs per-thread default stream semantics through the wrappers
 *   doorprobe oldsym     dlsym@GLIBC_2.2.5 (what cudart and cuBLAS reference) reaches the hook
 */
#define PROBE_NAME "doorprobe"
#include "probe.h"
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char probe_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry probe_k(\n"
	"\t.param .u64 probe_k_param_0,\n\t.param .u32 probe_k_param_1,\n"
	"\t.param .u64 probe_k_param_2\n)\n{\n\tret;\n}\n";


static const char *who(void *p)
{
	static char buf[256];
	Dl_info info;
	if (!p)
		return "null";
	if (!dladdr(p, &info) || !info.dli_sname)
		return "unnamed";
	snprintf(buf, sizeof buf, "%s%s", info.dli_sname,
		 info.dli_fname && strstr(info.dli_fname, "cudainspect") ? "@recorder" : "");
	return buf;
}

static void *driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "doorprobe: %s\n", dlerror());
		exit(1);
	}
	return h;
}

/* ---------------------------------------------------------------------------------------- */

static int procaddr(void)
{
	void *h = driver();
	PFN_cuGetProcAddress_v12000 gpa2 = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
	PFN_cuGetProcAddress_v11030 gpa1 = (PFN_cuGetProcAddress_v11030)dlsym(h, "cuGetProcAddress");
	printf("dlsym cuGetProcAddress_v2 -> %s\n", who((void *)gpa2));
	printf("dlsym cuGetProcAddress -> %s\n", who((void *)gpa1));
	if (!gpa1 || !gpa2)
		return 1;
	static const struct {
		const char *sym;
		int version;
		cuuint64_t flags;
	} q[] = {
		{ "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_DEFAULT },
		{ "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM },
		{ "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuLaunchKernel", 4000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuMemAlloc", 3000, 0 },
		{ "cuMemAlloc", 3020, 0 },
		{ "cuMemAlloc", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuCtxCreate", 11040, 0 },
		{ "cuCtxCreate", 13000, 0 },
		{ "cuStreamBeginCapture", 10000, 0 },
		{ "cuStreamBeginCapture", 10010, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuStreamSynchronize", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM },
		{ "cuLaunchKernelEx", 11000, 0 },
		{ "cuLaunchKernelEx", 12000, 0 },
		{ "cuGetProcAddress", 11030, 0 },
		{ "cuGetProcAddress", 12000, 0 },
		{ "cuGetExportTable", 13000, 0 },
		{ "cuNoSuchEntryPoint", 13000, 0 },
		{ "cuInit", 99999, 0 },
	};
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		void *p = (void *)0x1;
		CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
		CUresult r = gpa2(q[i].sym, &p, q[i].version, q[i].flags, &st);
		printf("v2 %s %d %llu -> result=%d status=%d ptr=%s\n", q[i].sym, q[i].version,
		       (unsigned long long)q[i].flags, (int)r, (int)st, p == (void *)0x1 ? "untouched" : who(p));
		p = (void *)0x1;
		r = gpa1(q[i].sym, &p, q[i].version, q[i].flags);
		printf("v1 %s %d %llu -> result=%d ptr=%s\n", q[i].sym, q[i].version,
		       (unsigned long long)q[i].flags, (int)r, p == (void *)0x1 ? "untouched" : who(p));
	}
	/* Asking the hook for "cuGetProcAddress" and using the answer: a second level. */
	void *p2 = NULL;
	gpa2("cuGetProcAddress", &p2, 13000, 0, NULL);
	void *p3 = NULL;
	CUresult r = p2 ? ((PFN_cuGetProcAddress_v12000)p2)("cuMemFree", &p3, 13000, 0, NULL)
			: CUDA_ERROR_NOT_FOUND;
	printf("second level cuMemFree -> result=%d ptr=%s\n", (int)r, who(p3));
	return 0;
}

/* ---------------------------------------------------------------------------------------- */

static CUfunction setup(void)
{
	CUmodule mod;
	CUfunction f;
	probe_start(probe_ptx, &mod);
	CHECK(cuModuleGetFunction(&f, mod, "probe_k"));
	return f;
}

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);

static void launch_with(launch_fn fn, CUfunction f, CUstream s, uint64_t door)
{
	uint64_t a = door;
	uint32_t b = (uint32_t)door * 3;
	uint64_t c = ~door;
	void *params[] = { &a, &b, &c };
	CHECK(fn(f, (unsigned)door, 1, 1, 32, 1, 1, 0, s, params, NULL));
}

static int launch(void)
{
	CUfunction f = setup();
	void *h = driver();
	CUstream s;
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	/* (a) the exported symbol, legacy NULL stream */
	launch_with(cuLaunchKernel, f, NULL, 0xa);
	/* (b) dlsym on the driver's handle: the per-thread variant by its exported name */
	launch_with((launch_fn)dlsym(h, "cuLaunchKernel_ptsz"), f, NULL, 0xb);
	/* (c) cuGetProcAddress_v2 with the per-thread flag, a created stream */
	PFN_cuGetProcAddress_v12000 gpa2 = (PFN_cuGetProcAddress_v12000)dlsym(h, "cuGetProcAddress_v2");
	void *p = NULL;
	CHECK(gpa2("cuLaunchKernel", &p, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, NULL));
	launch_with((launch_fn)p, f, s, 0xc);
	launch_with((launch_fn)p, f, NULL, 0xe);
	/* (c) the CUDA 11.3 cuGetProcAddress, legacy flag */
	PFN_cuGetProcAddress_v11030 gpa1 = (PFN_cuGetProcAddress_v11030)dlsym(h, "cuGetProcAddress");
	CHECK(gpa1("cuLaunchKernel", &p, 11030, CU_GET_PROC_ADDRESS_LEGACY_STREAM));
	launch_with((launch_fn)p, f, NULL, 0xd);
	CHECK(cuCtxSynchronize());
	printf("launched a b c e d\n");
	return 0;
}

/* ---------------------------------------------------------------------------------------- */

/* The legacy default stream waits for blocking streams; the per-thread one does not.  Block a
 * blocking stream on a host flag, then see whether a launch on each default stream gets done. */
static int streams(void)
{
	CUfunction f = setup();
	CUstream blocker;
	CHECK(cuStreamCreate(&blocker, CU_STREAM_DEFAULT));
	static uint32_t flag __attribute__((aligned(4096)));
	CHECK(cuMemHostRegister(&flag, sizeof flag, CU_MEMHOSTREGISTER_DEVICEMAP));
	CUdeviceptr dflag;
	CHECK(cuMemHostGetDevicePointer(&dflag, &flag, 0));
	CHECK(cuStreamWaitValue32(blocker, dflag, 1, CU_STREAM_WAIT_VALUE_GEQ));

	launch_fn legacy = (launch_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	launch_fn ptsz = (launch_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel_ptsz");
	CUresult (*query)(CUstream) = (CUresult(*)(CUstream))dlsym(RTLD_DEFAULT, "cuStreamQuery");
	CUresult (*query_ptsz)(CUstream) = (CUresult(*)(CUstream))dlsym(RTLD_DEFAULT, "cuStreamQuery_ptsz");
	printf("entry point: %s\n", who((void *)legacy));
	printf("entry point: %s\n", who((void *)ptsz));

	launch_with(ptsz, f, NULL, 1);
	CUresult r = CUDA_ERROR_NOT_READY;
	for (int i = 0; i < 60000 && r == CUDA_ERROR_NOT_READY; i++) { /* up to a minute */
		r = query_ptsz(NULL);
		usleep(1000);
	}
	printf("per-thread default stream: %s\n", r == CUDA_SUCCESS ? "ran" : "blocked");
	launch_with(legacy, f, NULL, 2);
	usleep(200000);
	r = query(NULL);
	printf("legacy default stream: %s\n", r == CUDA_SUCCESS ? "ran" : "blocked");
	__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	CHECK(cuCtxSynchronize());
	r = query(NULL);
	printf("legacy default stream after release: %s\n", r == CUDA_SUCCESS ? "ran" : "blocked");
	return 0;
}

/* ---------------------------------------------------------------------------------------- */

/* cudart and cuBLAS reference the pre-2.34 version of dlsym. */
extern void *dlsym_glibc225(void *, const char *);
__asm__(".symver dlsym_glibc225, dlsym@GLIBC_2.2.5");

static int oldsym(void)
{
	void *h = driver();
	printf("dlsym@GLIBC_2.2.5 cuInit -> %s\n", who(dlsym_glibc225(h, "cuInit")));
	printf("dlsym@GLIBC_2.2.5 cuLaunchKernel_ptsz -> %s\n", who(dlsym_glibc225(h, "cuLaunchKernel_ptsz")));
	printf("dlsym@GLIBC_2.2.5 strlen -> %s\n", who(dlsym_glibc225(RTLD_DEFAULT, "strlen")));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "procaddr"))
		return procaddr();
	if (!strcmp(mode, "launch"))
		return launch();
	if (!strcmp(mode, "streams"))
		return streams();
	if (!strcmp(mode, "oldsym"))
		return oldsym();
	fprintf(stderr, "usage: doorprobe procaddr|launch|streams|oldsym\n");
	return 2;
}
