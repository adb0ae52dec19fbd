/* Copies, memsets and stream memory operations (cuStreamWriteValue*, cuStreamWaitValue*,
 * cuStreamBatchMemOp) on the simulated copy engine.
 *
 * Synchronous behaviour follows the driver's "API synchronization behavior" notes: host-to-device
 * and device-to-host copies through the synchronous entry points return once the copy is done;
 * device-to-device copies and memsets of device memory return at once; an async copy from
 * pageable host memory takes a private snapshot of the source before returning, and an async
 * copy to pageable host memory completes before returning.  Every op goes to the legacy stream,
 * or to the calling thread's per-thread stream when reached through a _ptds/_ptsz entry point.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>


enum sim_sync { SIM_ASYNC, SIM_SYNC };

/* Common front: resolve the stream and check the context. */
static CUresult sim_copy_stream(CUstream h, int per_thread, int sync, struct sim_stream **s)
{
	SIM_REQUIRE_INIT();
	CUresult r = sim_stream_resolve(h, per_thread, s);
	if (r)
		return r;
	if (sync && sim_capture_unsafe())
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	return sim_ctx_sticky((*s)->ctx);
}

/* Queue a copy from `src` (host) or device to `dst`; `wait_done` makes the call synchronous,
 * `snapshot` copies pageable source bytes now so the caller may reuse its buffer at once. */
static CUresult sim_copy_submit(struct sim_stream *s, void *dst, const void *src, size_t bytes,
				int wait_done, int snapshot)
{
	/* Copies count for CUDASIM_FAULT=.copy@N when accepted, as launches do. */
	struct sim_work w = {.kind = SIM_OP_COPY, .count = 1, .u.copy = {dst, src, bytes, NULL}};
	if (bytes == 0)
		return CUDA_SUCCESS;
	if (snapshot && !atomic_load(&s->capturing) && !sim_is_null()) {
		if (!(w.u.copy.staging = malloc(bytes)))
			return CUDA_ERROR_OUT_OF_MEMORY;
		memcpy(w.u.copy.staging, src, bytes);
	}
	return wait_done ? sim_submit_wait(s, &w) : sim_submit(s, &w);
}

static CUresult sim_htod(CUdeviceptr dst, const void *src, size_t n, CUstream h, int per_thread,
			 int async)
{
	SIM_COST(SIM_COST_COPY);
	struct sim_stream *s;
	CUresult r = sim_copy_stream(h, per_thread, !async, &s);
	if (r)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	void *d = sim_mem_translate(dst, n, NULL);
	if (!d || !src)
		return CUDA_ERROR_INVALID_VALUE;
	if (!async)
		return sim_copy_submit(s, d, src, n, 1, 0);
	return sim_copy_submit(s, d, src, n, 0, !sim_host_is_pinned(src, n));
}

static CUresult sim_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream h, int per_thread, int async)
{
	SIM_COST(SIM_COST_COPY);
	struct sim_stream *s;
	CUresult r = sim_copy_stream(h, per_thread, !async, &s);
	if (r)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	const void *p = sim_mem_translate(src, n, NULL);
	if (!p || !dst)
		return CUDA_ERROR_INVALID_VALUE;
	/* Into pageable memory even the async form completes before returning. */
	int wait = !async || !sim_host_is_pinned(dst, n);
	if (wait && atomic_load(&s->capturing))
		wait = 0;
	return sim_copy_submit(s, dst, p, n, wait, 0);
}

static CUresult sim_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h, int per_thread)
{
	SIM_COST(SIM_COST_COPY);
	struct sim_stream *s;
	CUresult r = sim_copy_stream(h, per_thread, 0, &s);
	if (r)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	void *d = sim_mem_translate(dst, n, NULL);
	const void *p = sim_mem_translate(src, n, NULL);
	if (!d || !p)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_copy_submit(s, d, p, n, 0, 0);
}

/* cuMemcpy / cuMemcpyAsync: unified addressing tells the direction from the pointers. */
static CUresult sim_copy_unified(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h,
				 int per_thread, int async)
{
	SIM_COST(SIM_COST_COPY);
	struct sim_stream *s;
	CUresult r = sim_copy_stream(h, per_thread, !async, &s);
	if (r)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	int ddev, sdev;
	void *d = sim_mem_translate_any(dst, n, &ddev);
	const void *p = sim_mem_translate_any(src, n, &sdev);
	if (!d || !p)
		return CUDA_ERROR_INVALID_VALUE;
	if (ddev && sdev)
		return sim_copy_submit(s, d, p, n, 0, 0);
	if (!async)
		return sim_copy_submit(s, d, p, n, 1, 0);
	if (ddev)
		return sim_copy_submit(s, d, p, n, 0, !sim_host_is_pinned(p, n));
	return sim_copy_submit(s, d, p, n, !sim_host_is_pinned(d, n) && !atomic_load(&s->capturing), 0);
}

SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) { return sim_htod(dstDevice, srcHost, ByteCount, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) { return sim_htod(dstDevice, srcHost, ByteCount, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) { return sim_dtoh(dstHost, srcDevice, ByteCount, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) { return sim_dtoh(dstHost, srcDevice, ByteCount, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) { return sim_dtod(dstDevice, srcDevice, ByteCount, NULL, 0); }
SIM_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) { return sim_dtod(dstDevice, srcDevice, ByteCount, NULL, 1); }
SIM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) { return sim_copy_unified(dst, src, ByteCount, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) { return sim_copy_unified(dst, src, ByteCount, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) { return sim_htod(dstDevice, srcHost, ByteCount, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) { return sim_htod(dstDevice, srcHost, ByteCount, hStream, 1, 1); }
SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) { return sim_dtoh(dstHost, srcDevice, ByteCount, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) { return sim_dtoh(dstHost, srcDevice, ByteCount, hStream, 1, 1); }
SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) { return sim_dtod(dstDevice, srcDevice, ByteCount, hStream, 0); }
SIM_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) { return sim_dtod(dstDevice, srcDevice, ByteCount, hStream, 1); }
SIM_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) { return sim_copy_unified(dst, src, ByteCount, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) { return sim_copy_unified(dst, src, ByteCount, hStream, 1, 1); }

/* ---- memset ---------------------------------------------------------------------------------------- */

static CUresult sim_memset(CUdeviceptr dst, uint32_t value, unsigned elem, size_t count, CUstream h,
			   int per_thread, int async)
{
	SIM_COST(SIM_COST_MEMSET);
	struct sim_stream *s;
	CUresult r = sim_copy_stream(h, per_thread, !async, &s);
	if (r)
		return r;
	if (dst % elem)
		return CUDA_ERROR_INVALID_VALUE;
	if (count == 0)
		return CUDA_SUCCESS;
	if (count > SIZE_MAX / elem)
		return CUDA_ERROR_INVALID_VALUE;
	int host;
	void *d = sim_mem_translate(dst, count * elem, &host);
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	struct sim_work w = {.kind = SIM_OP_SET, .count = 1, .u.set = {d, value, elem, count}};
	/* Memsets are asynchronous except when the target is host memory. */
	if (!async && host)
		return sim_submit_wait(s, &w);
	return sim_submit(s, &w);
}

SIM_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) { return sim_memset(dstDevice, uc, 1, N, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) { return sim_memset(dstDevice, uc, 1, N, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) { return sim_memset(dstDevice, us, 2, N, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) { return sim_memset(dstDevice, us, 2, N, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) { return sim_memset(dstDevice, ui, 4, N, NULL, 0, 0); }
SIM_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) { return sim_memset(dstDevice, ui, 4, N, NULL, 1, 0); }
SIM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) { return sim_memset(dstDevice, uc, 1, N, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) { return sim_memset(dstDevice, uc, 1, N, hStream, 1, 1); }
SIM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) { return sim_memset(dstDevice, us, 2, N, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) { return sim_memset(dstDevice, us, 2, N, hStream, 1, 1); }
SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) { return sim_memset(dstDevice, ui, 4, N, hStream, 0, 1); }
SIM_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) { return sim_memset(dstDevice, ui, 4, N, hStream, 1, 1); }

/* ---- stream memory operations --------------------------------------------------------------------- */

/* Resolve the target of a memop: device memory, or host memory registered/allocated through the
 * driver; managed memory is refused (cuda.h).  Null mode skips the lookup (docs/SIMULATOR.md). */
static CUresult sim_memop_target(CUdeviceptr addr, unsigned bits, void **ret)
{
	if (!addr || addr % (bits / 8))
		return CUDA_ERROR_INVALID_VALUE;
	if (sim_is_null()) {
		*ret = sim_mem_translate_fast(addr);
		return CUDA_SUCCESS;
	}
	*ret = sim_mem_translate(addr, bits / 8, NULL);
	if (!*ret || sim_mem_is_managed(addr))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Common front of the memory operations: stream, sticky error, flags, target. */
static CUresult sim_memop_begin(CUstream h, int per_thread, CUdeviceptr addr, unsigned bits,
				int flags_ok, struct sim_stream **s, void **target)
{
	SIM_REQUIRE_INIT();
	CUresult r = sim_stream_resolve(h, per_thread, s);
	if (r || (r = sim_ctx_sticky((*s)->ctx)))
		return r;
	if (!flags_ok)
		return CUDA_ERROR_INVALID_VALUE;
	return sim_memop_target(addr, bits, target);
}

static CUresult sim_write_value(CUstream h, CUdeviceptr addr, uint64_t value, unsigned bits,
				unsigned flags, int per_thread)
{
	SIM_COST(SIM_COST_MEMOP);
	struct sim_stream *s;
	void *target;
	/* cuda.h: CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER "is not supported in the v2 API", and
	 * the real driver (580.159.04, H200) refuses it with CUDA_ERROR_INVALID_VALUE, for 32- and
	 * 64-bit writes, to registered host and to device memory alike (testcases/gpu/costprobe). */
	int flags_ok = flags == CU_STREAM_WRITE_VALUE_DEFAULT;
	CUresult r = sim_memop_begin(h, per_thread, addr, bits, flags_ok, &s, &target);
	if (r)
		return r;
	struct sim_work w = {.kind = SIM_OP_WRITE, .u.mem = {target, value, bits, flags}};
	return sim_submit(s, &w);
}

static CUresult sim_wait_value(CUstream h, CUdeviceptr addr, uint64_t value, unsigned bits,
			       unsigned flags, int per_thread)
{
	SIM_COST(SIM_COST_MEMOP);
	struct sim_stream *s;
	void *target;
	int flags_ok = !(flags & ~(unsigned)(0xf | CU_STREAM_WAIT_VALUE_FLUSH)) &&
		       (flags & 0xf) <= CU_STREAM_WAIT_VALUE_NOR;
	CUresult r = sim_memop_begin(h, per_thread, addr, bits, flags_ok, &s, &target);
	if (r)
		return r;
	struct sim_work w = {.kind = SIM_OP_WAIT_VALUE, .u.mem = {target, value, bits, flags}};
	return sim_submit(s, &w);
}

static CUresult sim_batch_memop(CUstream h, unsigned count, CUstreamBatchMemOpParams *ops,
				unsigned flags, int per_thread)
{
	SIM_REQUIRE_INIT();
	/* Each operation is charged as one stream memory operation (sim_write_value ...). */
	if (count == 0 || count > 256 || !ops || flags)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned i = 0; i < count; i++) {
		CUresult r;
		CUstreamBatchMemOpParams *p = &ops[i];
		switch (p->operation) {
		case CU_STREAM_MEM_OP_WRITE_VALUE_32:
			r = sim_write_value(h, p->writeValue.address, p->writeValue.value, 32, p->writeValue.flags, per_thread);
			break;
		case CU_STREAM_MEM_OP_WRITE_VALUE_64:
			r = sim_write_value(h, p->writeValue.address, p->writeValue.value64, 64, p->writeValue.flags, per_thread);
			break;
		case CU_STREAM_MEM_OP_WAIT_VALUE_32:
			r = sim_wait_value(h, p->waitValue.address, p->waitValue.value, 32, p->waitValue.flags, per_thread);
			break;
		case CU_STREAM_MEM_OP_WAIT_VALUE_64:
			r = sim_wait_value(h, p->waitValue.address, p->waitValue.value64, 64, p->waitValue.flags, per_thread);
			break;
		case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
		case CU_STREAM_MEM_OP_BARRIER:
			r = CUDA_SUCCESS; /* stream order already implies them here */
			break;
		default:
			r = CUDA_ERROR_INVALID_VALUE;
		}
		if (r)
			return r;
	}
	return CUDA_SUCCESS;
}

/* The _v2 family is available by default since CUDA 11.7.  The original entry points need the
 * NVreg_EnableStreamMemOPs=1 module parameter on real drivers and are disabled here, matching
 * CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 0. */
static CUresult sim_memop_v1(void)
{
	SIM_REQUIRE_INIT();
	return CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_write_value(stream, addr, value, 32, flags, 0); }
SIM_EXPORT CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_write_value(stream, addr, value, 32, flags, 1); }
SIM_EXPORT CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_write_value(stream, addr, value, 64, flags, 0); }
SIM_EXPORT CUresult cuStreamWriteValue64_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_write_value(stream, addr, value, 64, flags, 1); }
SIM_EXPORT CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_wait_value(stream, addr, value, 32, flags, 0); }
SIM_EXPORT CUresult cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_wait_value(stream, addr, value, 32, flags, 1); }
SIM_EXPORT CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_wait_value(stream, addr, value, 64, flags, 0); }
SIM_EXPORT CUresult cuStreamWaitValue64_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_wait_value(stream, addr, value, 64, flags, 1); }
SIM_EXPORT CUresult cuStreamBatchMemOp_v2(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags) { return sim_batch_memop(stream, count, paramArray, flags, 0); }
SIM_EXPORT CUresult cuStreamBatchMemOp_v2_ptsz(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags) { return sim_batch_memop(stream, count, paramArray, flags, 1); }

SIM_EXPORT CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWriteValue32_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWriteValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWriteValue64_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWaitValue32_ptsz(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWaitValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamWaitValue64_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamBatchMemOp(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags) { return sim_memop_v1(); }
SIM_EXPORT CUresult cuStreamBatchMemOp_ptsz(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags) { return sim_memop_v1(); }
