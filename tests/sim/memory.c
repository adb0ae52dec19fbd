/* Simulated device memory (memory.t): device pointers live in a PROT_NONE window that never
 * appears in host memory, data round-trips through copies and memsets, allocations are aligned
 * and freed ranges reused, copies are bounds-checked, host registration maps host memory at its
 * own address, stream memory operations hit host or device memory in stream order, async
 * allocation, pointer queries, VMM. */
#include "simtest.h"

#include <string.h>
#include <sys/mman.h>

/* Protection and flags of the mapping holding `addr`, from /proc/self/smaps. */
static int mapping_of(uintptr_t addr, char perms[5], int *dontdump)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int found = 0;
	*dontdump = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char p[5];
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && strchr(line, ' ')) {
			if (found)
				break;
			if (addr >= lo && addr < hi) {
				found = 1;
				memcpy(perms, p, 5);
			}
		} else if (found && strncmp(line, "VmFlags:", 8) == 0) {
			*dontdump = strstr(line, " dd") != NULL;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void window_and_shadow(void)
{
	CUdeviceptr d;
	MUST(cuMemAlloc(&d, 1 << 20));
	char perms[5] = "";
	int dd;
	ok(mapping_of((uintptr_t)d, perms, &dd) && strcmp(perms, "---p") == 0,
	   "a device pointer falls in a PROT_NONE mapping (%s)", perms);
	ok(dd, "which is not dumped into cores");
	static char pattern[1 << 20];
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (char)(i * 7 + 3);
	MUST(cuMemcpyHtoD(d, pattern, sizeof(pattern)));
	/* The bytes must not be anywhere readable in the process except the private shadow store,
	 * which is marked "do not dump" and is as large as the device window: find them by content.
	 * Mappings over 4 GiB other than the shadow store (sanitizer shadow memory) are skipped. */
	size_t total = 0;
	MUST(cuDeviceTotalMem(&total, 0));
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int in_dumpable = 0, in_shadow = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char p[5];
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3 || p[0] != 'r' || strstr(line, "[v"))
			continue;
		if (hi - lo > (4ul << 30) && hi - lo != 2 * total)
			continue;
		if ((uintptr_t)pattern >= lo && (uintptr_t)pattern < hi)
			continue; /* our own copy */
		for (unsigned long a = lo; a + 64 <= hi; a += 4096) {
			if (memcmp((void *)a, pattern + 4096, 64) == 0) {
				int ddf;
				char pp[5];
				mapping_of(a, pp, &ddf);
				if (ddf)
					in_shadow = 1;
				else
					in_dumpable = 1;
			}
		}
	}
	if (f)
		fclose(f);
	ok(in_shadow && !in_dumpable, "device bytes live only in the do-not-dump shadow store");
	MUST(cuMemFree(d));
}

static void round_trips(void)
{
	CUdeviceptr a, b;
	MUST(cuMemAlloc(&a, 4096));
	MUST(cuMemAlloc(&b, 4096));
	ok(a % 256 == 0 && b % 256 == 0, "allocations are 256-byte aligned");
	ok(a != b, "distinct allocations");
	char in[4096], out[4096];
	for (int i = 0; i < 4096; i++)
		in[i] = (char)i;
	MUST(cuMemcpyHtoD(a, in, sizeof(in)));
	MUST(cuMemcpyDtoD(b, a, sizeof(in)));
	memset(out, 0, sizeof(out));
	MUST(cuMemcpyDtoH(out, b, sizeof(out)));
	ok(memcmp(in, out, sizeof(in)) == 0, "HtoD, DtoD, DtoH round trip");
	MUST(cuMemsetD8(a, 0xab, 4096));
	MUST(cuMemsetD32(a + 16, 0x01020304, 2));
	MUST(cuMemsetD16(a + 32, 0xbeef, 1));
	MUST(cuMemcpyDtoH(out, a, 64));
	uint32_t w;
	uint16_t h;
	memcpy(&w, out + 20, 4);
	memcpy(&h, out + 32, 2);
	ok((unsigned char)out[0] == 0xab && w == 0x01020304 && h == 0xbeef && (unsigned char)out[34] == 0xab,
	   "memsets D8, D16, D32");
	IS_CU(cuMemsetD32(a + 2, 0, 1), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemcpyHtoD(a + 4000, in, 200), CUDA_ERROR_INVALID_VALUE); /* past the end */
	IS_CU(cuMemcpyDtoH(out, a - 512, 16), CUDA_ERROR_INVALID_VALUE);  /* before the start */
	IS_CU(cuMemcpyHtoD(0x1000, in, 16), CUDA_ERROR_INVALID_VALUE);
	/* unified cuMemcpy works out the direction */
	MUST(cuMemcpy((CUdeviceptr)(uintptr_t)out, a + 16, 4));
	memcpy(&w, out, 4);
	is_int(w, 0x01020304, "cuMemcpy device to host");

	CUdeviceptr base;
	size_t size;
	IS_CU(cuMemGetAddressRange(&base, &size, b + 100), CUDA_SUCCESS);
	ok(base == b && size == 4096, "cuMemGetAddressRange finds the allocation");
	IS_CU(cuMemGetAddressRange(&base, &size, b + 4096 + 4096 * 16), CUDA_ERROR_NOT_FOUND);
	unsigned int type = 0;
	CUcontext owner = NULL, cur;
	IS_CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, b + 8), CUDA_SUCCESS);
	is_int(type, CU_MEMORYTYPE_DEVICE, "MEMORY_TYPE of device memory");
	MUST(cuCtxGetCurrent(&cur));
	IS_CU(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, b), CUDA_SUCCESS);
	ok(owner == cur, "CONTEXT attribute");
	IS_CU(cuPointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, b + 9), CUDA_SUCCESS);
	ok(base == b, "RANGE_START_ADDR");

	/* first fit: a freed range is reused */
	size_t free0, free1, total;
	MUST(cuMemGetInfo(&free0, &total));
	MUST(cuMemFree(a));
	MUST(cuMemGetInfo(&free1, &total));
	ok(free1 > free0, "freeing gives memory back (%zu -> %zu)", free0, free1);
	CUdeviceptr c;
	MUST(cuMemAlloc(&c, 1000));
	ok(c == a, "the freed range is reused");
	IS_CU(cuMemFree(a + 256), CUDA_ERROR_INVALID_VALUE);
	MUST(cuMemFree(c));
	IS_CU(cuMemFree(c), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemcpyHtoD(c, in, 16), CUDA_ERROR_INVALID_VALUE); /* freed */
	MUST(cuMemFree(b));
	CUdeviceptr pitched;
	size_t pitch;
	IS_CU(cuMemAllocPitch(&pitched, &pitch, 100, 10, 4), CUDA_SUCCESS);
	ok(pitch >= 100 && pitch % 256 == 0, "pitch %zu", pitch);
	MUST(cuMemFree(pitched));
}

static void host_memory_and_memops(void)
{
	CUstream s;
	MUST(cuStreamCreate(&s, 0));
	uint64_t *host = aligned_alloc(4096, 8192);
	memset(host, 0, 8192);
	IS_CU(cuMemHostRegister(host, 8192, CU_MEMHOSTREGISTER_DEVICEMAP), CUDA_SUCCESS);
	IS_CU(cuMemHostRegister(host + 8, 64, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	CUdeviceptr dh;
	IS_CU(cuMemHostGetDevicePointer(&dh, host + 3, 0), CUDA_SUCCESS);
	ok(dh == (CUdeviceptr)(uintptr_t)(host + 3), "the device pointer of registered memory is the host pointer");
	IS_CU(cuMemHostGetDevicePointer(&dh, host, 1), CUDA_ERROR_INVALID_VALUE);
	int stack_var;
	IS_CU(cuMemHostGetDevicePointer(&dh, &stack_var, 0), CUDA_ERROR_INVALID_VALUE);
	MUST(cuMemHostGetDevicePointer(&dh, host, 0));
	unsigned type = 0;
	IS_CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dh), CUDA_SUCCESS);
	is_int(type, CU_MEMORYTYPE_HOST, "MEMORY_TYPE of registered memory");

	/* writes land in order, with the stream; waits hold the stream */
	CUdeviceptr dev;
	MUST(cuMemAlloc(&dev, 64));
	MUST(cuStreamWaitValue64(s, dh + 64, 5, CU_STREAM_WAIT_VALUE_GEQ));
	MUST(cuStreamWriteValue64(s, dh, 1, 0));
	MUST(cuStreamWriteValue32(s, dh + 8, 7, 0));
	/* Refused by the v2 API (cuda.h) and by the H200's driver, 32- and 64-bit alike. */
	IS_CU(cuStreamWriteValue32(s, dh + 8, 9, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuStreamWriteValue64(s, dh + 16, 9, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER), CUDA_ERROR_INVALID_VALUE);
	MUST(cuStreamWriteValue64(s, dev, 0x1122334455667788ull, 0));
	MUST(cuStreamWriteValue64(s, dh, 2, 0));
	IS_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	ok(host[0] == 0, "writes wait behind cuStreamWaitValue64");
	__atomic_store_n(&host[8], 4, __ATOMIC_RELEASE);
	IS_CU(cuStreamQuery(s), CUDA_ERROR_NOT_READY);
	__atomic_store_n(&host[8], 5, __ATOMIC_RELEASE);
	MUST(cuStreamSynchronize(s));
	ok(host[0] == 2 && *(uint32_t *)&host[1] == 7, "cuStreamWriteValue64/32 into host memory");
	uint64_t v = 0;
	MUST(cuMemcpyDtoH(&v, dev, 8));
	ok(v == 0x1122334455667788ull, "cuStreamWriteValue64 into device memory");
	IS_CU(cuStreamWriteValue64(s, dh + 4, 1, 0), CUDA_ERROR_INVALID_VALUE); /* misaligned */
	IS_CU(cuStreamWriteValue64(s, (CUdeviceptr)(uintptr_t)&v, 1, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuStreamWriteValue64(s, dh, 1, 2), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuStreamWaitValue32(s, dh, 1, 9), CUDA_ERROR_INVALID_VALUE);
	CUresult (*v1)(CUstream, CUdeviceptr, cuuint64_t, unsigned) = NULL;
	MUST(cuGetProcAddress("cuStreamWriteValue64", (void **)&v1, 11060, 0, NULL));
	IS_CU(v1(s, dh, 1, 0), CUDA_ERROR_NOT_SUPPORTED); /* the v1 API is off, as attribute 92 says */
	CUstreamBatchMemOpParams ops[2];
	memset(ops, 0, sizeof(ops));
	ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
	ops[0].writeValue.address = dh;
	ops[0].writeValue.value64 = 9;
	ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
	ops[1].waitValue.address = dh;
	ops[1].waitValue.value = 9;
	ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
	IS_CU(cuStreamBatchMemOp(s, 2, ops, 0), CUDA_SUCCESS);
	MUST(cuStreamSynchronize(s));
	is_int(host[0], 9, "cuStreamBatchMemOp");
	IS_CU(cuMemHostUnregister(host + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	IS_CU(cuMemHostUnregister(host), CUDA_SUCCESS);
	IS_CU(cuMemHostUnregister(host), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
	IS_CU(cuStreamWriteValue64(s, dh, 1, 0), CUDA_ERROR_INVALID_VALUE); /* no longer registered */
	free(host);

	/* driver-allocated host memory and managed memory */
	void *pinned;
	IS_CU(cuMemAllocHost(&pinned, 100), CUDA_SUCCESS);
	CUdeviceptr dp;
	IS_CU(cuMemHostGetDevicePointer(&dp, pinned, 0), CUDA_SUCCESS);
	MUST(cuStreamWriteValue32(s, dp, 0xfeed, 0));
	MUST(cuStreamSynchronize(s));
	is_int(*(uint32_t *)pinned, 0xfeed, "memops into cuMemAllocHost memory");
	IS_CU(cuMemFreeHost(pinned), CUDA_SUCCESS);
	IS_CU(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);
	CUdeviceptr managed;
	IS_CU(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
	((char *)(uintptr_t)managed)[0] = 'm'; /* host-accessible */
	int is_managed = 0;
	IS_CU(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed), CUDA_SUCCESS);
	is_int(is_managed, 1, "IS_MANAGED");
	IS_CU(cuStreamWriteValue32(s, managed, 1, 0), CUDA_ERROR_INVALID_VALUE); /* refused for managed */
	IS_CU(cuMemFree(managed), CUDA_SUCCESS);
	MUST(cuMemFree(dev));
	MUST(cuStreamDestroy(s));
}

static void async_alloc(void)
{
	CUstream s;
	CUmemoryPool pool;
	MUST(cuStreamCreate(&s, 0));
	CUdeviceptr a, b;
	IS_CU(cuMemAllocAsync(&a, 1000, s), CUDA_SUCCESS);
	IS_CU(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
	IS_CU(cuMemAllocFromPoolAsync(&b, 1000, pool, s), CUDA_SUCCESS);
	char in[16] = "stream ordered", out[16] = {0};
	MUST(cuMemcpyHtoDAsync(a, in, 16, s));
	MUST(cuMemcpyDtoDAsync(b, a, 16, s));
	MUST(cuMemcpyDtoHAsync(out, b, 16, s));
	IS_CU(cuMemFreeAsync(a, s), CUDA_SUCCESS);
	IS_CU(cuMemFreeAsync(a, s), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemFreeAsync(b, s), CUDA_SUCCESS);
	MUST(cuStreamSynchronize(s));
	is_str(out, "stream ordered", "copies through async allocations");
	CUdeviceptr base;
	IS_CU(cuMemGetAddressRange(&base, NULL, a), CUDA_ERROR_NOT_FOUND);
	MUST(cuStreamDestroy(s));
}

static void vmm(void)
{
	CUmemAllocationProp prop = {0};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	size_t gran = 0;
	IS_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	is_int(gran, 2 << 20, "2 MiB granularity");
	CUmemGenericAllocationHandle h;
	IS_CU(cuMemCreate(&h, gran + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuMemCreate(&h, 2 * gran, &prop, 0), CUDA_SUCCESS);
	CUdeviceptr va;
	IS_CU(cuMemAddressReserve(&va, 4 * gran, 0, 0, 0), CUDA_SUCCESS);
	IS_CU(cuMemMap(va + gran, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	IS_CU(cuMemMap(va + gran, 2 * gran, 0, h, 0), CUDA_ERROR_ALREADY_MAPPED);
	char in[8] = "vmm", out[8] = {0};
	IS_CU(cuMemcpyHtoD(va + gran, in, 8), CUDA_ERROR_INVALID_VALUE); /* no access granted yet */
	CUmemAccessDesc acc = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
	IS_CU(cuMemSetAccess(va, 4 * gran, &acc, 1), CUDA_ERROR_INVALID_VALUE); /* not all mapped */
	IS_CU(cuMemSetAccess(va + gran, 2 * gran, &acc, 1), CUDA_SUCCESS);
	IS_CU(cuMemcpyHtoD(va + 2 * gran - 4, in, 8), CUDA_SUCCESS);
	MUST(cuMemcpyDtoH(out, va + 2 * gran - 4, 8));
	is_str(out, "vmm", "data round-trips through mapped VMM memory");
	IS_CU(cuMemcpyHtoD(va, in, 8), CUDA_ERROR_INVALID_VALUE); /* reserved, unmapped */
	IS_CU(cuMemRelease(h), CUDA_SUCCESS); /* still mapped: stays usable */
	IS_CU(cuMemcpyHtoD(va + gran, in, 8), CUDA_SUCCESS);
	IS_CU(cuMemAddressFree(va, 4 * gran), CUDA_ERROR_INVALID_VALUE); /* still mapped */
	IS_CU(cuMemUnmap(va + gran, 2 * gran), CUDA_SUCCESS);
	IS_CU(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}

/* First fit over thousands of ranges, against a model of the allocator kept here: each
 * allocation must land in the lowest gap that holds it at its alignment (512 bytes; 2 MiB for
 * 2 MiB and larger), whatever the simulator's data structure.  Runs first, in a fresh process,
 * so nothing below the first range is free. */
struct model_range { CUdeviceptr base; size_t span, bytes; };

static CUdeviceptr model_place(const struct model_range *live, size_t n, CUdeviceptr origin,
			       size_t span, size_t align)
{
	CUdeviceptr cursor = origin;
	for (size_t i = 0; i < n; i++) {
		CUdeviceptr cand = (cursor + align - 1) / align * align;
		if (cand + span <= live[i].base)
			return cand;
		cursor = live[i].base + live[i].span;
	}
	return (cursor + align - 1) / align * align;
}

static void first_fit_many(void)
{
	enum { FIRST = 3000, SECOND = 1500 };
	struct model_range *live = calloc(FIRST + SECOND, sizeof(*live));
	size_t n = 0, wrong = 0, lookups_wrong = 0;
	CUdeviceptr origin = 0;
	unsigned seed = 23;
	for (int phase = 0; phase < 2; phase++) {
		int count = phase ? SECOND : FIRST;
		for (int k = 0; k < count; k++) {
			size_t bytes = (size_t)(rand_r(&seed) % 6000) + 1;
			if (k % 400 == 199)
				bytes += (size_t)2 << 20; /* now and then a 2 MiB-aligned one */
			size_t align = bytes >= ((size_t)2 << 20) ? (size_t)2 << 20 : 512;
			size_t span = (bytes + align - 1) / align * align;
			CUdeviceptr d;
			MUST(cuMemAlloc(&d, bytes));
			if (!origin)
				origin = d;
			CUdeviceptr want = model_place(live, n, origin, span, align);
			if (d != want && wrong++ < 5)
				printf("# allocation %d of phase %d (%zu bytes) at %#llx, first fit says %#llx\n",
				       k, phase, bytes, (unsigned long long)d, (unsigned long long)want);
			/* Keep the model in address order, at the address the simulator chose. */
			size_t idx = 0;
			while (idx < n && live[idx].base < d)
				idx++;
			memmove(&live[idx + 1], &live[idx], (n - idx) * sizeof(*live));
			live[idx] = (struct model_range){d, span, bytes};
			n++;
		}
		if (phase == 0) {
			/* Free about two in five, so the second phase fills holes of every size. */
			size_t kept = 0;
			for (size_t i = 0; i < n; i++) {
				if (rand_r(&seed) % 5 < 2)
					MUST(cuMemFree(live[i].base));
				else
					live[kept++] = live[i];
			}
			n = kept;
		}
	}
	ok(wrong == 0, "%d allocations placed first fit among up to %zu live ranges (%zu misplaced)",
	   FIRST + SECOND, n, wrong);
	for (size_t i = 0; i < n; i++) {
		CUdeviceptr base = 0;
		size_t size = 0;
		CUdeviceptr inner = live[i].base + (size_t)rand_r(&seed) % live[i].bytes;
		if (cuMemGetAddressRange(&base, &size, inner) != CUDA_SUCCESS || base != live[i].base)
			lookups_wrong++;
	}
	ok(lookups_wrong == 0, "cuMemGetAddressRange finds each of %zu live ranges (%zu wrong)", n,
	   lookups_wrong);
	size_t frees_wrong = 0;
	for (size_t i = 0; i < n; i++)
		if (cuMemFree(live[i].base) != CUDA_SUCCESS || cuMemFree(live[i].base) == CUDA_SUCCESS)
			frees_wrong++;
	ok(frees_wrong == 0, "each range frees once, and only once (%zu wrong)", frees_wrong);
	free(live);
}

int main(void)
{
	simtest_setup(NULL);
	first_fit_many();
	window_and_shadow();
	round_trips();
	host_memory_and_memops();
	async_alloc();
	vmm();
	return simtest_done();
}
