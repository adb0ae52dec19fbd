/*
 * crumbbench: measures what a GPU breadcrumb costs, independently of the recorder, and checks
 * that a breadcrumb survives an illegal-address fault (docs/GPU-VALIDATION.md, "breadcrumbs"; docs/RECORDER.md, "Breadcrumbs").  A
 * breadcrumb is a cuStreamWriteValue64 of a sequence number into host memory registered with
 * DEVICEMAP, enqueued right after a launch.  For each variant it times N operations on one
 * stream: CPU nanoseconds per operation (wall time of the enqueue loop) and GPU nanoseconds per
 * operation (cuEventElapsedTime around the queued work), then checks the slot holds the last
 * sequence number.  --fault enqueues K crumbed launches, a launch that writes to address 0x10,
 * K more, and reads the slot without any CUDA call after the error: it must hold K.
 * Output: `crumbbench: KEY VALUE...` lines (and --json FILE), see docs/GPU-VALIDATION.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

static struct {
	unsigned long launches;
	unsigned fault_k;
	int fault;
	const char *json;
} opt = {.launches = 20000, .fault_k = 100};

static CUstream stream;
static CUfunction noop, fill;
static volatile uint64_t *slots; /* host page, registered; slot 0 = 64-bit, slot 1 = 32-bit */
static CUdeviceptr slots_dev;
static FILE *json;

enum variant { LAUNCH, LAUNCH_CRUMB, LAUNCH_CRUMB_NOBARRIER, CRUMB, LAUNCH_CRUMB32 };
static const char *const variant_names[] = {"launch", "launch+crumb64", "launch+crumb64-nobarrier",
					    "crumb64", "launch+crumb32"};

static void launch_noop(void)
{
	CHECK(drv.LaunchKernel(noop, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL));
}

/* One operation of a variant; i is its 1-based sequence number.  A variant whose breadcrumb
 * write the driver refuses returns the refusal (the v2 API refuses NO_MEMORY_BARRIER: cuda.h,
 * and the H200's driver 580.159.04); every other failure aborts. */
static CUresult op(enum variant v, uint64_t i)
{
	CUresult r = CUDA_SUCCESS;
	switch (v) {
	case LAUNCH:
		launch_noop();
		break;
	case LAUNCH_CRUMB:
		launch_noop();
		CHECK(drv.StreamWriteValue64(stream, slots_dev, i, CU_STREAM_WRITE_VALUE_DEFAULT));
		break;
	case LAUNCH_CRUMB_NOBARRIER:
		launch_noop();
		r = drv.StreamWriteValue64(stream, slots_dev, i, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER);
		break;
	case CRUMB:
		CHECK(drv.StreamWriteValue64(stream, slots_dev, i, CU_STREAM_WRITE_VALUE_DEFAULT));
		break;
	case LAUNCH_CRUMB32:
		launch_noop();
		/* The recorder's fallback when 64-bit stream writes are not supported. */
		CHECK(drv.StreamWriteValue32(stream, slots_dev + 8, (cuuint32_t)i,
					     CU_STREAM_WRITE_VALUE_DEFAULT));
		break;
	}
	return r;
}

static void measure(enum variant v)
{
	CUevent start, end;
	float ms = 0;
	CHECK(drv.EventCreate(&start, CU_EVENT_DEFAULT));
	CHECK(drv.EventCreate(&end, CU_EVENT_DEFAULT));
	/* Warm up (lazy module loading, first-use costs), then time.  A refused variant is
	 * reported and skipped. */
	for (uint64_t i = 1; i <= 1000; i++) {
		CUresult r = op(v, i);
		if (r != CUDA_SUCCESS) {
			CHECK(drv.StreamSynchronize(stream));
			printf("crumbbench: %-26s refused=%s\n", variant_names[v], engine_error_name(r));
			if (json)
				fprintf(json, "%s\n    \"%s\": {\"refused\": \"%s\"}", v == LAUNCH ? "" : ",",
					variant_names[v], engine_error_name(r));
			CHECK(drv.EventDestroy(start));
			CHECK(drv.EventDestroy(end));
			return;
		}
	}
	CHECK(drv.StreamSynchronize(stream));
	slots[0] = slots[1] = 0;
	CHECK(drv.EventRecord(start, stream));
	uint64_t t0 = engine_now_ns();
	for (uint64_t i = 1; i <= opt.launches; i++)
		CHECK(op(v, i));
	uint64_t t1 = engine_now_ns();
	CHECK(drv.EventRecord(end, stream));
	CHECK(drv.EventSynchronize(end));
	CHECK(drv.EventElapsedTime(&ms, start, end));
	double cpu_ns = (double)(t1 - t0) / opt.launches;
	double gpu_ns = ms * 1e6 / opt.launches;
	uint64_t want = (v == LAUNCH) ? 0 : opt.launches;
	uint64_t got = v == LAUNCH_CRUMB32 ? (slots[1] & 0xffffffffu) : slots[0];
	printf("crumbbench: %-26s cpu_ns=%.1f gpu_ns=%.1f slot=%llu slot_ok=%s\n", variant_names[v],
	       cpu_ns, gpu_ns, (unsigned long long)got, got == want ? "yes" : "no");
	if (json)
		fprintf(json, "%s\n    \"%s\": {\"cpu_ns\": %.1f, \"gpu_ns\": %.1f, \"slot_ok\": %s}",
			v == LAUNCH ? "" : ",", variant_names[v], cpu_ns, gpu_ns,
			got == want ? "true" : "false");
	CHECK(drv.EventDestroy(start));
	CHECK(drv.EventDestroy(end));
}

/* K crumbed launches, a faulting one, K more; then the slot, read without CUDA calls. */
static int fault_run(void)
{
	unsigned k = opt.fault_k;
	CUdeviceptr bad = 0x10; /* the zero page is never mapped on a GPU */
	unsigned value = 1;
	int n = 1;
	void *args[] = {&bad, &value, &n};
	slots[0] = 0;
	for (uint64_t i = 1; i <= k; i++)
		CHECK(op(LAUNCH_CRUMB, i));
	CHECK(drv.LaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL));
	/* From here on calls may fail: that is the fault surfacing, on a GPU as soon as the
	 * kernel has run. */
	for (uint64_t i = k + 1; i <= 2 * k; i++) {
		if ((i > k + 1 &&
		     drv.LaunchKernel(noop, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL) != CUDA_SUCCESS) ||
		    drv.StreamWriteValue64(stream, slots_dev, i, 0) != CUDA_SUCCESS)
			break;
	}
	CUresult r = drv.StreamSynchronize(stream);
	uint64_t slot = slots[0];
	int good = r == CUDA_ERROR_ILLEGAL_ADDRESS && slot == k;
	printf("crumbbench: fault sync=%s slot=%llu expected=%u verdict=%s\n", engine_error_name(r),
	       (unsigned long long)slot, k, good ? "ok" : "mismatch");
	if (json)
		fprintf(json,
			"{\n  \"fault\": {\"sync\": \"%s\", \"slot\": %llu, \"expected\": %u, "
			"\"verdict\": \"%s\"}\n}\n",
			engine_error_name(r), (unsigned long long)slot, k, good ? "ok" : "mismatch");
	return good ? 0 : 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crumbbench [--launches N] [--fault [--fault-k K]] [--json FILE]\n"
		"Times launches with and without a cuStreamWriteValue64 breadcrumb (CPU ns and GPU ns\n"
		"per operation); --fault checks the breadcrumb left by an illegal-address fault.\n"
		"  --launches N  operations per variant (default 20000)\n"
		"  --fault       K crumbed launches, a faulting one, K more; the slot must read K\n"
		"  --fault-k K   K for --fault (default 100)\n"
		"  --json FILE   also write the figures as JSON\n"
		"Exit status: 0 done (--fault: the slot held K); 1 mismatch or setup failure;\n"
		"2 bad usage; other CUDA errors abort.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"launches", required_argument, NULL, 'n'}, {"fault", no_argument, NULL, 'f'},
		{"fault-k", required_argument, NULL, 'k'},  {"json", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},	    {NULL, 0, NULL, 0},
	};
	int c;
	engine_prog = "crumbbench";
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': opt.launches = engine_parse_ulong("--launches", optarg, 1, 100000000); break;
		case 'f': opt.fault = 1; break;
		case 'k': opt.fault_k = engine_parse_ulong("--fault-k", optarg, 1, 1000000); break;
		case 'j': opt.json = optarg; break;
		case 'h': usage(stdout); return 0;
		default: fprintf(stderr, "crumbbench: see --help\n"); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "crumbbench: unexpected argument '%s'; see --help\n", argv[optind]);
		return 2;
	}
	if (opt.fault)
		engine_setenv_default("CUDASIM_FAULT", "fill_u32@1"); /* the simulator's fault */
	if (opt.json && !(json = fopen(opt.json, "w")))
		engine_die(1, "cannot write %s: %m", opt.json);

	drv_open_direct(0);
	CUdevice dev;
	CUcontext ctx;
	CUmodule module;
	int mem64 = -1, host_ptr = -1, version = 0;
	char name[128] = "";
	CHECK(drv.Init(0));
	CHECK(drv.DriverGetVersion(&version));
	CHECK(drv.DeviceGet(&dev, 0));
	CHECK(drv.DeviceGetName(name, sizeof name, dev));
	CHECK(drv.DeviceGetAttribute(&mem64, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev));
	CHECK(drv.DeviceGetAttribute(&host_ptr,
				     CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, dev));
	CHECK(drv.DevicePrimaryCtxRetain(&ctx, dev));
	CHECK(drv.CtxSetCurrent(ctx));
	CHECK(engine_load_kernels(&module, 0));
	CHECK(drv.ModuleGetFunction(&noop, module, "noop"));
	CHECK(drv.ModuleGetFunction(&fill, module, "fill_u32"));
	CHECK(drv.StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	long page = sysconf(_SC_PAGESIZE);
	slots = aligned_alloc((size_t)page, (size_t)page);
	if (!slots)
		engine_die(1, "out of memory");
	memset((void *)slots, 0, (size_t)page);
	CHECK(drv.MemHostRegister((void *)slots, (size_t)page,
				  CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE));
	CHECK(drv.MemHostGetDevicePointer(&slots_dev, (void *)slots, 0));

	printf("crumbbench: device %s, driver %d, CAN_USE_64_BIT_STREAM_MEM_OPS=%d, "
	       "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM=%d, device_alias_equals_host=%s\n",
	       name, version, mem64, host_ptr, slots_dev == (CUdeviceptr)slots ? "yes" : "no");
	if (opt.fault)
		return fault_run();

	if (json)
		fprintf(json, "{\n  \"device\": \"%s\", \"driver\": %d, \"mem_ops_64\": %d, "
			      "\"launches\": %lu,\n  \"variants\": {",
			name, version, mem64, opt.launches);
	for (enum variant v = LAUNCH; v <= LAUNCH_CRUMB32; v++)
		measure(v);
	if (json)
		fprintf(json, "\n  }\n}\n");
	CHECK(drv.MemHostUnregister((void *)slots));
	CHECK(drv.StreamDestroy(stream));
	CHECK(drv.ModuleUnload(module));
	CHECK(drv.DevicePrimaryCtxRelease(dev));
	return json && fclose(json) != 0 ? 1 : 0;
}
