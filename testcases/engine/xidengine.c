/*
 * xidengine: a small cudart-style engine for the kernel-log and argument-history tests
 * (tests/reader/xid.t).  Two streams: a "compute" stream that decodes (attn_decode, embed) and a
 * "side" stream whose mlp kernel stays in flight (CUDASIM_HANG=mlp@1 in the tests), an event
 * that orders them, and a watchdog thread that only sleeps, as serving engines have.  Each
 * scenario plants one bug, prints what it planted as "xidengine: planted NAME=0x..." lines on
 * stderr (the tests' independent expectations), and dies like a real engine: every CUDA call
 * goes through CHECK, which prints the error and aborts.
 *
 *   neighbour  attn_decode(q, kv, n) 5 times with kv inside the 262,144-byte KV buffer, then a
 *              6th with kv 64 bytes past its end: inside the next allocation, carved right after
 *              it.  CUDASIM_FAULT=attn_decode@6:arg=1+262144 puts the access one buffer
 *              further, past the end of that neighbour (the last allocation).
 *   stale      attn_decode 5 times with kv inside the KV buffer, then a scratch buffer carved
 *              right after it is freed and the 6th launch gets the stale pointer to it: a use
 *              after free whose address is also right after the end of the KV buffer the 5
 *              earlier launches used.  CUDASIM_FAULT=attn_decode@6:arg=1.
 *   index      embed(table, ids, out) 3 times; every pointer is valid, the 3rd reads a row
 *              past the table (a bad token id): CUDASIM_FAULT=embed@3:arg=0+OFFSET.
 *   copy       two cuMemcpyHtoDAsync into dst on the compute stream; the 2nd writes past the
 *              end of dst: CUDASIM_FAULT=.copy@2:arg=0+BYTES.
 *
 * The kernels do nothing (ret): the simulated driver needs only their names and parameters.
 * docs/ENGINES.md lists this program with the others.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "engine.h"

static const char xid_ptx[] =
	".version 8.0\n"
	".target sm_90\n"
	".address_size 64\n"
	".visible .entry attn_decode(\n"
	"\t.param .u64 .ptr .global .align 4 attn_decode_q,\n"
	"\t.param .u64 .ptr .global .align 4 attn_decode_kv,\n"
	"\t.param .u32 attn_decode_n\n"
	")\n"
	"{\n\tret;\n}\n"
	".visible .entry embed(\n"
	"\t.param .u64 .ptr .global .align 4 embed_table,\n"
	"\t.param .u64 .ptr .global .align 4 embed_ids,\n"
	"\t.param .u64 .ptr .global .align 4 embed_out\n"
	")\n"
	"{\n\tret;\n}\n"
	".visible .entry mlp(\n"
	"\t.param .u64 .ptr .global .align 4 mlp_w,\n"
	"\t.param .u64 .ptr .global .align 4 mlp_out\n"
	")\n"
	"{\n\tret;\n}\n";

#define KV_BYTES 262144
#define WEIGHT_BYTES (1u << 20)
#define TABLE_BYTES (1u << 20)
#define COPY_BYTES 65536

static CUmodule module;
static CUstream compute, side;
static CUdeviceptr weights, q, mlp_out;

static void *watchdog(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "watchdog", 0, 0, 0);
	for (;;)
		sleep(1);
	return NULL;
}

static CUfunction kernel(const char *name)
{
	CUfunction f;
	CHECK(cuModuleGetFunction(&f, module, name));
	return f;
}

static void planted(const char *name, CUdeviceptr v)
{
	fprintf(stderr, "xidengine: planted %s=0x%llx\n", name, (unsigned long long)v);
}

/* The side stream's kernel, waiting for the compute stream's first event. */
static void side_work(CUevent ready)
{
	CHECK(cuStreamWaitEvent(side, ready, 0));
	void *args[] = { &weights, &mlp_out };
	CHECK(cuLaunchKernel(kernel("mlp"), 4, 1, 1, 128, 1, 1, 0, side, args, NULL));
}

static void load_weights(void)
{
	CHECK(cuMemAlloc(&weights, WEIGHT_BYTES));
	CHECK(cuMemAlloc(&q, 4096));
	CHECK(cuMemAlloc(&mlp_out, 4096));
	planted("weights", weights);
}

/* Five good attn_decode launches over KV, then a sixth that gets BAD; FREE_FIRST, when not 0,
 * is freed just before the sixth (the stale scenario's use after free). */
static void attn_steps(CUdeviceptr kv, CUdeviceptr bad, CUdeviceptr free_first)
{
	CUfunction attn = kernel("attn_decode");
	CUevent ready;
	CHECK(cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING));
	for (unsigned step = 1; step <= 6; step++) {
		CUdeviceptr p = step < 6 ? kv + (step - 1) * 4096 : bad;
		unsigned n = 64;
		void *args[] = { &q, &p, &n };
		if (step == 6) {
			if (free_first)
				CHECK(cuMemFree(free_first));
			planted("bad", p);
		}
		CHECK(cuLaunchKernel(attn, 4, 1, 1, 128, 1, 1, 0, compute, args, NULL));
		if (step == 1) {
			CHECK(cuEventRecord(ready, compute));
			side_work(ready);
		}
		if (step < 6)
			CHECK(cuStreamSynchronize(compute));
	}
	CHECK(cuStreamSynchronize(compute));
}

static void neighbour(void)
{
	CUdeviceptr kv, next;
	CHECK(cuMemAlloc(&kv, KV_BYTES));
	CHECK(cuMemAlloc(&next, KV_BYTES));
	planted("kv", kv);
	planted("next", next);
	attn_steps(kv, kv + KV_BYTES + 64, 0);
}

/* The scratch buffer carved right after KV is freed, then passed to the sixth launch. */
static void stale(void)
{
	CUdeviceptr kv, scratch;
	CHECK(cuMemAlloc(&kv, KV_BYTES));
	CHECK(cuMemAlloc(&scratch, KV_BYTES));
	planted("kv", kv);
	planted("scratch", scratch);
	attn_steps(kv, scratch, scratch);
}

static void index_fault(void)
{
	CUdeviceptr ids, out, table;
	CHECK(cuMemAlloc(&ids, 4096));
	CHECK(cuMemAlloc(&out, 65536));
	CHECK(cuMemAlloc(&table, TABLE_BYTES));
	planted("table", table);
	CUfunction embed = kernel("embed");
	CUevent ready;
	CHECK(cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING));
	for (unsigned step = 1; step <= 3; step++) {
		void *args[] = { &table, &ids, &out };
		CHECK(cuLaunchKernel(embed, 8, 1, 1, 128, 1, 1, 0, compute, args, NULL));
		if (step == 1) {
			CHECK(cuEventRecord(ready, compute));
			side_work(ready);
		}
		if (step < 3)
			CHECK(cuStreamSynchronize(compute));
	}
	CHECK(cuStreamSynchronize(compute));
}

static void copy_fault(void)
{
	CUdeviceptr dst;
	static char host[COPY_BYTES];
	CHECK(cuMemAlloc(&dst, COPY_BYTES));
	planted("dst", dst);
	CUevent ready;
	CHECK(cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING));
	CHECK(cuEventRecord(ready, compute));
	side_work(ready);
	CHECK(cuMemcpyHtoDAsync(dst, host, COPY_BYTES, compute));
	CHECK(cuStreamSynchronize(compute));
	CHECK(cuMemcpyHtoDAsync(dst, host, COPY_BYTES, compute));
	CHECK(cuStreamSynchronize(compute));
}

int main(int argc, char **argv)
{
	engine_prog = "xidengine";
	if (argc != 2 || (strcmp(argv[1], "neighbour") && strcmp(argv[1], "index") &&
			  strcmp(argv[1], "copy") && strcmp(argv[1], "stale"))) {
		fprintf(stderr, "usage: xidengine neighbour|stale|index|copy\n");
		return 2;
	}
	drv_open_direct(0);
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog, NULL);
	CUdevice dev;
	CUcontext ctx;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&module, xid_ptx));
	CHECK(cuStreamCreate(&compute, CU_STREAM_NON_BLOCKING));
	CHECK(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING));
	fprintf(stderr, "xidengine: pid %d\n", (int)getpid());
	load_weights();
	if (strcmp(argv[1], "neighbour") == 0)
		neighbour();
	else if (strcmp(argv[1], "stale") == 0)
		stale();
	else if (strcmp(argv[1], "index") == 0)
		index_fault();
	else
		copy_fault();
	fprintf(stderr, "xidengine: the planted fault did not surface\n");
	return 3;
}
