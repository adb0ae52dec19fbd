/* SPDX-License-Identifier: MIT */
/*
 * The CUDA objects the record names: devices, contexts, streams, code modules (CUmodule,
 * CUlibrary) and functions (CUfunction, CUkernel).  Each is an append-only table entry found
 * through a lock-free handle map; an object first seen at a launch (created before the recorder
 * started, or through a path it does not see) is registered then, with what the driver can
 * still tell about it.  Registration is one-time setup and may call the driver (through the
 * real entry points, never the wrappers); lookups afterwards take no lock and make no call,
 * except for the NULL and per-thread streams, whose meaning depends on the current context.
 */
#include <string.h>

#include "recorder.h"

/* ---------------------------------------------------------------------------------------- */
/* Capture-safe setup calls                                                                   */

int ci_captures_active CI_HIDDEN CI_HOT;
uint32_t ci_object_epoch CI_HIDDEN CI_HOT;

void ci_setup_enter(struct ci_setup_scope *s)
{
	s->switched = false;
	ci_thread()->in_setup++;
	/* Inside a global-mode capture, "unsafe" calls (host registration, for one) from any
	 * thread fail and invalidate the capture; relaxed mode exempts this thread. */
	if (__atomic_load_n(&ci_captures_active, __ATOMIC_RELAXED) > 0) {
		s->saved = CU_STREAM_CAPTURE_MODE_RELAXED;
		s->switched = CI_REAL(cuThreadExchangeStreamCaptureMode, &s->saved) == CUDA_SUCCESS;
	}
}

void ci_setup_leave(struct ci_setup_scope *s)
{
	if (s->switched)
		CI_REAL(cuThreadExchangeStreamCaptureMode, &s->saved);
	ci_thread()->in_setup--;
}

/* ---------------------------------------------------------------------------------------- */
/* Devices                                                                                    */

uint32_t ci_device_slot(CUdevice dev)
{
	uint64_t key = (uint64_t)(uint32_t)dev + 1;
	struct ci_map_slot *ms;
	uint32_t slot;
	if (!ci_map_claim(&ci_rec.device_map, key, &ms, &slot))
		return slot;
	slot = ci_table_claim(CI_SEC_DEVICES);
	if (slot != CI_NONE) {
		struct ci_device *d = ci_entry(CI_SEC_DEVICES, slot);
		struct ci_setup_scope sc;
		ci_setup_enter(&sc);
		ci_entry_begin(&d->seq);
		d->ordinal = dev;
		CI_REAL(cuDeviceGetName, d->name, (int)sizeof d->name - 1, dev);
		CUuuid uuid;
		if (CI_REAL(cuDeviceGetUuid_v2, &uuid, dev) == CUDA_SUCCESS ||
		    CI_REAL(cuDeviceGetUuid, &uuid, dev) == CUDA_SUCCESS)
			memcpy(d->uuid, uuid.bytes, sizeof d->uuid);
		CI_REAL(cuDeviceGetAttribute, &d->cc_major,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		CI_REAL(cuDeviceGetAttribute, &d->cc_minor,
			CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		CI_REAL(cuDeviceGetAttribute, &d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
			dev);
		size_t total = 0;
		CI_REAL(cuDeviceTotalMem_v2, &total, dev);
		d->total_mem = total;
		CI_REAL(cuDeviceGetPCIBusId, d->pci_bus_id, (int)sizeof d->pci_bus_id - 1, dev);
		ci_entry_publish(&d->seq, (uint64_t)slot + 1);
		ci_setup_leave(&sc);
	}
	ci_map_publish(ms, slot);
	return slot;
}

void ci_devices_record_all(void)
{
	int n = 0;
	if (CI_REAL(cuDeviceGetCount, &n) != CUDA_SUCCESS)
		return;
	for (int i = 0; i < n; i++) {
		CUdevice d;
		if (CI_REAL(cuDeviceGet, &d, i) == CUDA_SUCCESS)
			ci_device_slot(d);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Contexts                                                                                   */

/* Whether CTX is the primary context of DEV, asked without creating or keeping one. */
static bool ci_ctx_is_primary(CUcontext ctx, CUdevice dev)
{
	unsigned flags;
	int active = 0;
	if (CI_REAL(cuDevicePrimaryCtxGetState, dev, &flags, &active) != CUDA_SUCCESS || !active)
		return false;
	CUcontext primary = NULL;
	if (CI_REAL(cuDevicePrimaryCtxRetain, &primary, dev) != CUDA_SUCCESS)
		return false;
	CI_REAL(cuDevicePrimaryCtxRelease_v2, dev);
	return primary == ctx;
}

uint32_t ci_ctx_register(CUcontext ctx, uint32_t kind, uint32_t flags, struct ci_call *call)
{
	if (!ctx || !ci_rec.base)
		return CI_NONE;
	struct ci_map_slot *ms;
	uint32_t slot;
	if (!ci_map_claim(&ci_rec.ctx_map, CI_U64(ctx), &ms, &slot))
		return slot;
	struct ci_setup_scope sc;
	ci_setup_enter(&sc);
	CUdevice dev = -1;
	if (CI_REAL(cuCtxGetDevice_v2, &dev, ctx) != CUDA_SUCCESS) {
		CUcontext cur = NULL;
		if (CI_REAL(cuCtxGetCurrent, &cur) != CUDA_SUCCESS || cur != ctx ||
		    CI_REAL(cuCtxGetDevice, &dev) != CUDA_SUCCESS)
			dev = -1;
	}
	if (!kind)
		kind = dev >= 0 && ci_ctx_is_primary(ctx, dev) ? CI_CTX_PRIMARY : CI_CTX_EXPLICIT;
	slot = ci_table_claim(CI_SEC_CONTEXTS);
	if (slot != CI_NONE) {
		struct ci_context *e = ci_entry(CI_SEC_CONTEXTS, slot);
		ci_entry_begin(&e->seq);
		e->handle = CI_U64(ctx);
		unsigned long long id = 0;
		e->ctx_id = CI_REAL(cuCtxGetId, ctx, &id) == CUDA_SUCCESS ? id : 0;
		e->create_ns = call ? call->t0 : ci_now();
		e->destroy_ns = 0;
		e->device = dev >= 0 ? ci_device_slot(dev) : CI_NONE;
		e->kind = kind;
		e->flags = flags;
		e->create_tid = ci_thread()->tid;
		e->create_stack = call ? ci_stack_of(call) : 0;
		e->pad = 0;
		struct ci_ctx_priv *p = &ci_rec.ctxs[slot];
		memset(p, 0, sizeof *p);
		p->handle = CI_U64(ctx);
		p->device = e->device;
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	ci_setup_leave(&sc);
	ci_map_publish(ms, slot);
	return slot;
}

uint32_t ci_ctx_slot(CUcontext ctx)
{
	if (!ctx)
		return CI_NONE;
	uint32_t slot = ci_map_get(&ci_rec.ctx_map, CI_U64(ctx));
	return slot != CI_NONE ? slot : ci_ctx_register(ctx, 0, 0, NULL);
}

uint32_t ci_ctx_current_slot(void)
{
	CUcontext cur = NULL;
	if (CI_REAL(cuCtxGetCurrent, &cur) != CUDA_SUCCESS)
		return CI_NONE;
	return ci_ctx_slot(cur);
}

/* Bumped whenever a context goes away, so that the per-thread default stream caches, which
 * are keyed by context handle, never outlive it (the handle may be reused). */
static uint32_t ci_ctx_epoch; /* atomic */

void ci_ctx_destroyed(CUcontext ctx)
{
	uint32_t slot = ci_map_get(&ci_rec.ctx_map, CI_U64(ctx));
	if (slot == CI_NONE)
		return;
	uint64_t now = ci_now();
	struct ci_context *e = ci_entry(CI_SEC_CONTEXTS, slot);
	__atomic_store_n(&e->destroy_ns, now, __ATOMIC_RELAXED);
	ci_crumbs_ctx_gone(slot);
	ci_map_remove(&ci_rec.ctx_map, CI_U64(ctx));
	__atomic_fetch_add(&ci_ctx_epoch, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&ci_object_epoch, 1, __ATOMIC_RELEASE);
	/* Its streams, default ones included, went with it. */
	struct ci_sec *ss = ci_sec(CI_SEC_STREAMS);
	uint64_t n = __atomic_load_n(&ss->dir->head, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < ss->capacity; i++) {
		struct ci_stream *st = ci_entry(CI_SEC_STREAMS, i);
		if (__atomic_load_n(&st->seq, __ATOMIC_ACQUIRE) != i + 1 || st->ctx != slot ||
		    __atomic_load_n(&st->destroy_ns, __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&st->destroy_ns, now, __ATOMIC_RELAXED);
		__atomic_store_n(&ci_rec.streams[i].destroyed, 1, __ATOMIC_RELAXED);
		if (st->kind == CI_STREAM_CREATED && ci_map_get(&ci_rec.stream_map, st->handle) == i)
			ci_map_remove(&ci_rec.stream_map, st->handle);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Streams                                                                                    */

/* Map key of a default stream: bit 63 set (never a pointer), the kind, the context slot and,
 * for per-thread streams, the owning thread. */
static uint64_t ci_default_stream_key(uint32_t kind, uint32_t ctx_slot, const struct ci_tls *t)
{
	uint64_t owner = kind == CI_STREAM_PER_THREAD
				 ? (t->slot != CI_NONE ? t->slot : (uint64_t)t->tid | 1ull << 32)
				 : 0;
	return 1ull << 63 | owner << 24 | (uint64_t)(ctx_slot & 0x3fffff) << 2 | kind;
}

uint32_t ci_stream_register(CUstream h, uint32_t kind, uint32_t flags, int priority,
			    uint32_t ctx_slot, struct ci_call *call)
{
	struct ci_tls *t = ci_thread();
	uint64_t key = kind == CI_STREAM_CREATED ? CI_U64(h) : ci_default_stream_key(kind, ctx_slot, t);
	struct ci_map_slot *ms;
	uint32_t slot;
	if (!ci_map_claim(&ci_rec.stream_map, key, &ms, &slot))
		return slot;
	/* Two table slots per stream: 96-byte entries two apart never share a cache line, so
	 * threads launching on different streams do not contend on the counters. */
	slot = ci_table_claim_n(CI_SEC_STREAMS, 2);
	if (slot != CI_NONE) {
		/* The handle breadcrumbs and queries go through, for the non-_ptsz entry points. */
		CUstream through = kind == CI_STREAM_PER_THREAD ? CU_STREAM_PER_THREAD
				   : kind == CI_STREAM_LEGACY   ? NULL
								: h;
		struct ci_setup_scope sc;
		ci_setup_enter(&sc);
		struct ci_stream *e = ci_entry(CI_SEC_STREAMS, slot);
		ci_entry_begin(&e->seq);
		e->handle = CI_U64(h);
		unsigned long long id = 0;
		e->stream_id = CI_REAL(cuStreamGetId, through, &id) == CUDA_SUCCESS ? id : 0;
		e->create_ns = call && kind == CI_STREAM_CREATED ? call->t0 : ci_now();
		e->destroy_ns = 0;
		e->launches = 0;
		e->crumb_enqueued = 0;
		e->crumb_skipped = 0;
		e->ctx = ctx_slot;
		e->kind = kind;
		e->flags = flags;
		e->priority = priority;
		e->owner_tid = t->tid;
		/* One breadcrumb per stream slot, zero until the GPU writes the first. */
		e->crumb_slot = slot < ci_sec(CI_SEC_BREADCRUMBS)->capacity ? slot : CI_NONE;
		e->crumb_status = !ci_cfg.crumbs ? CI_CRUMB_DISABLED
				  : e->crumb_slot == CI_NONE ? CI_CRUMB_NO_SLOT
							     : CI_CRUMB_OK;
		if (e->crumb_slot != CI_NONE)
			__atomic_store_n((uint64_t *)ci_entry(CI_SEC_BREADCRUMBS, e->crumb_slot), 0,
					 __ATOMIC_RELAXED);
		e->create_stack = call ? ci_stack_of(call) : 0;
		struct ci_stream_priv *p = &ci_rec.streams[slot];
		memset(p, 0, sizeof *p);
		p->handle = CI_U64(through);
		p->ctx = ctx_slot;
		p->kind = kind;
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
		ci_setup_leave(&sc);
	}
	ci_map_publish(ms, slot);
	return slot;
}

/* A created stream first seen at a launch: ask the driver what it is. */
static uint32_t ci_stream_discover(CUstream h)
{
	struct ci_setup_scope sc;
	ci_setup_enter(&sc);
	unsigned flags = 0;
	int prio = 0;
	CUcontext ctx = NULL;
	CI_REAL(cuStreamGetFlags, h, &flags);
	CI_REAL(cuStreamGetPriority, h, &prio);
	uint32_t ctx_slot = CI_REAL(cuStreamGetCtx, h, &ctx) == CUDA_SUCCESS ? ci_ctx_slot(ctx)
									      : CI_NONE;
	ci_setup_leave(&sc);
	return ci_stream_register(h, CI_STREAM_CREATED, flags, prio, ctx_slot, NULL);
}

uint32_t ci_stream_slot(CUstream h, const struct ci_call *call)
{
	if (!ci_rec.base)
		return CI_NONE;
	uint32_t kind;
	if (h == CU_STREAM_PER_THREAD)
		kind = CI_STREAM_PER_THREAD;
	else if (h == CU_STREAM_LEGACY)
		kind = CI_STREAM_LEGACY;
	else if (!h)
		kind = call->flags & CI_F_PTSZ ? CI_STREAM_PER_THREAD : CI_STREAM_LEGACY;
	else {
		/* A handle first seen in a call the driver refused may be garbage: do not ask the
		 * driver about it. */
		uint32_t slot = ci_map_get(&ci_rec.stream_map, CI_U64(h));
		return slot != CI_NONE || call->failed ? slot : ci_stream_discover(h);
	}
	/* A default stream belongs to the current context. */
	struct ci_tls *t = ci_thread();
	uint32_t epoch = __atomic_load_n(&ci_ctx_epoch, __ATOMIC_ACQUIRE);
	if (CI_UNLIKELY(t->ctx_epoch != epoch)) {
		t->pt_slot = t->legacy_slot = CI_NONE;
		t->ctx_epoch = epoch;
	}
	CUcontext ctx = NULL;
	if (CI_REAL(cuCtxGetCurrent, &ctx) != CUDA_SUCCESS || !ctx)
		return CI_NONE;
	if (kind == CI_STREAM_PER_THREAD && t->pt_ctx == CI_U64(ctx) && t->pt_slot != CI_NONE)
		return t->pt_slot;
	if (kind == CI_STREAM_LEGACY && t->legacy_ctx == CI_U64(ctx) && t->legacy_slot != CI_NONE)
		return t->legacy_slot;
	uint32_t ctx_slot = ci_ctx_slot(ctx);
	if (ctx_slot == CI_NONE)
		return CI_NONE;
	uint32_t slot = ci_map_get(&ci_rec.stream_map, ci_default_stream_key(kind, ctx_slot, t));
	if (slot == CI_NONE)
		slot = ci_stream_register(h, kind, 0, 0, ctx_slot, NULL);
	if (slot != CI_NONE) {
		/* Reinstate the per-thread caches only for a live context. */
		if (kind == CI_STREAM_PER_THREAD) {
			t->pt_ctx = CI_U64(ctx);
			t->pt_slot = slot;
		} else {
			t->legacy_ctx = CI_U64(ctx);
			t->legacy_slot = slot;
		}
	}
	return slot;
}

void ci_stream_destroyed(CUstream h)
{
	uint32_t slot = ci_map_get(&ci_rec.stream_map, CI_U64(h));
	if (slot == CI_NONE)
		return;
	struct ci_stream *e = ci_entry(CI_SEC_STREAMS, slot);
	__atomic_store_n(&e->destroy_ns, ci_now(), __ATOMIC_RELAXED);
	__atomic_store_n(&ci_rec.streams[slot].destroyed, 1, __ATOMIC_RELAXED);
	ci_map_remove(&ci_rec.stream_map, CI_U64(h));
	__atomic_fetch_add(&ci_object_epoch, 1, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------------------------------- */
/* Code modules                                                                               */

static uint64_t ci_fnv1a(const uint8_t *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The size of a module image in a format the driver accepts, or 0 when it cannot be told
 * without guessing: a cubin (ELF), a fat binary, the wrapper nvcc emits around one, or PTX
 * text (which the driver itself reads up to its NUL). */
static uint64_t ci_image_size(const void *image, const uint8_t **start)
{
	const uint8_t *p = image;
	*start = p;
	if (!p)
		return 0;
	uint32_t magic;
	memcpy(&magic, p, 4);
	if (magic == 0x466243b1u) { /* __fatBinC_Wrapper_t { magic, version, data, ... } */
		const void *data;
		memcpy(&data, p + 8, sizeof data);
		return data ? ci_image_size(data, start) : 0;
	}
	if (magic == 0xba55ed50u) { /* fatbin header { magic, u16 version, u16 hdrsize, u64 size } */
		uint16_t hdr;
		uint64_t body;
		memcpy(&hdr, p + 6, 2);
		memcpy(&body, p + 8, 8);
		return body < (1ull << 34) ? hdr + body : 0;
	}
	if (!memcmp(p, "\177ELF", 4) && p[4] == 2 /* ELFCLASS64 */) {
		uint64_t shoff;
		uint16_t shentsize, shnum;
		memcpy(&shoff, p + 0x28, 8);
		memcpy(&shentsize, p + 0x3a, 2);
		memcpy(&shnum, p + 0x3c, 2);
		uint64_t n = shoff + (uint64_t)shentsize * shnum;
		return n < (1ull << 34) ? n : 0;
	}
	/* PTX starts with text: a comment, a directive or white space. */
	if (p[0] == '/' || p[0] == '.' || p[0] == ' ' || p[0] == '\t' || p[0] == '\n' ||
	    p[0] == '\r')
		return strnlen((const char *)p, 1ull << 30);
	return 0;
}

uint32_t ci_code_module_register(uint64_t handle, uint32_t kind, uint32_t ctx,
				 const char *source, const void *image, struct ci_call *call)
{
	if (!handle || !ci_rec.base)
		return CI_NONE;
	struct ci_map_slot *ms;
	uint32_t slot;
	if (!ci_map_claim(&ci_rec.module_map, handle, &ms, &slot))
		return slot;
	slot = ci_table_claim(CI_SEC_CODE_MODULES);
	if (slot != CI_NONE) {
		struct ci_code_module *e = ci_entry(CI_SEC_CODE_MODULES, slot);
		const uint8_t *bytes;
		uint64_t size = ci_image_size(image, &bytes);
		ci_entry_begin(&e->seq);
		e->handle = handle;
		e->load_ns = call ? call->t0 : ci_now();
		e->unload_ns = 0;
		e->image_size = size;
		e->image_hash = size ? ci_fnv1a(bytes, size) : 0;
		e->kind = kind;
		e->ctx = ctx;
		e->source_str = ci_string(source, CI_STRING_MAX);
		e->load_stack = call ? ci_stack_of(call) : 0;
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	ci_map_publish(ms, slot);
	return slot;
}

void ci_code_module_unloaded(uint64_t handle)
{
	uint32_t slot = ci_map_get(&ci_rec.module_map, handle);
	if (slot == CI_NONE)
		return;
	struct ci_code_module *e = ci_entry(CI_SEC_CODE_MODULES, slot);
	__atomic_store_n(&e->unload_ns, ci_now(), __ATOMIC_RELAXED);
	ci_map_remove(&ci_rec.module_map, handle);
	__atomic_fetch_add(&ci_object_epoch, 1, __ATOMIC_RELEASE);
	/* Its functions' handles may be reused by the next module: forget them. */
	struct ci_sec *fs = ci_sec(CI_SEC_FUNCTIONS);
	uint64_t n = __atomic_load_n(&fs->dir->head, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < fs->capacity; i++) {
		const struct ci_function *f = ci_entry(CI_SEC_FUNCTIONS, i);
		if (__atomic_load_n(&f->seq, __ATOMIC_ACQUIRE) == i + 1 && f->code_module == slot &&
		    ci_map_get(&ci_rec.func_map, f->handle) == i)
			ci_map_remove(&ci_rec.func_map, f->handle);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Functions and kernels                                                                      */

/* Parameter layout from the driver: *KNOWN when it answered at all. */
static void ci_function_params(struct ci_function *e, uint64_t handle)
{
	e->nparams = 0;
	e->params_known = 0;
	for (uint32_t i = 0; i < 4096; i++) {
		size_t off = 0, size = 0;
		CUresult r = e->kind == CI_FUNC_KERNEL
				     ? CI_REAL(cuKernelGetParamInfo, (CUkernel)handle, i, &off, &size)
				     : CI_REAL(cuFuncGetParamInfo, (CUfunction)handle, i, &off, &size);
		if (r != CUDA_SUCCESS) {
			/* Past the last parameter the driver says CUDA_ERROR_INVALID_VALUE; any
			 * other answer at index 0 means it cannot tell. */
			if (i > 0 || r == CUDA_ERROR_INVALID_VALUE)
				e->params_known = 1;
			break;
		}
		if (i < CI_PARAMS_MAX) {
			e->param_offset[i] = off > UINT16_MAX ? UINT16_MAX : (uint16_t)off;
			e->param_size[i] = size > UINT16_MAX ? UINT16_MAX : (uint16_t)size;
		}
		e->nparams = i + 1;
	}
}

uint32_t ci_function_register(uint64_t handle, uint32_t kind, uint32_t module, const char *name)
{
	if (!handle || !ci_rec.base)
		return CI_NONE;
	struct ci_map_slot *ms;
	uint32_t slot;
	if (!ci_map_claim(&ci_rec.func_map, handle, &ms, &slot))
		return slot;
	struct ci_setup_scope sc;
	ci_setup_enter(&sc);
	/* The driver's own name first (exactly what it launches), then the caller's. */
	const char *driver_name = NULL;
	if (kind != CI_FUNC_KERNEL &&
	    CI_REAL(cuFuncGetName, &driver_name, (CUfunction)handle) == CUDA_SUCCESS)
		kind = CI_FUNC_FUNCTION;
	else if (kind != CI_FUNC_FUNCTION &&
		 CI_REAL(cuKernelGetName, &driver_name, (CUkernel)handle) == CUDA_SUCCESS)
		kind = CI_FUNC_KERNEL;
	if (!kind)
		kind = CI_FUNC_FUNCTION;
	if (module == CI_NONE) {
		CUmodule m = NULL;
		if (kind == CI_FUNC_FUNCTION &&
		    CI_REAL(cuFuncGetModule, &m, (CUfunction)handle) == CUDA_SUCCESS && m)
			module = ci_map_get(&ci_rec.module_map, CI_U64(m));
		CUlibrary l = NULL;
		if (kind == CI_FUNC_KERNEL &&
		    CI_REAL(cuKernelGetLibrary, &l, (CUkernel)handle) == CUDA_SUCCESS && l)
			module = ci_map_get(&ci_rec.module_map, CI_U64(l));
	}
	slot = ci_table_claim(CI_SEC_FUNCTIONS);
	if (slot != CI_NONE) {
		struct ci_function *e = ci_entry(CI_SEC_FUNCTIONS, slot);
		ci_entry_begin(&e->seq);
		e->handle = handle;
		e->kind = kind;
		e->code_module = module;
		e->name_str = ci_string(driver_name && *driver_name ? driver_name : name, CI_STRING_MAX);
		e->pad = 0;
		memset(e->param_offset, 0, sizeof e->param_offset);
		memset(e->param_size, 0, sizeof e->param_size);
		ci_function_params(e, handle);
		ci_launch_plan(slot, e);
		ci_entry_publish(&e->seq, (uint64_t)slot + 1);
	}
	ci_setup_leave(&sc);
	ci_map_publish(ms, slot);
	return slot;
}

uint32_t ci_function_slot(uint64_t handle)
{
	uint32_t slot = ci_map_get(&ci_rec.func_map, handle);
	if (CI_LIKELY(slot != CI_NONE) || !handle)
		return slot;
	/* First launch of a function obtained out of sight: a good moment to look for newly
	 * loaded host libraries too. */
	ci_modules_refresh(false);
	return ci_function_register(handle, 0, CI_NONE, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Hooks                                                                                      */

void ci_on_init(struct ci_call *c, CUresult r)
{
	if (r != CUDA_SUCCESS)
		return;
	ci_modules_refresh(false);
	ci_devices_record_all();
	ci_event_record(c, CI_EV_INIT, r, 0, 0, 0, 0);
}

void ci_on_primary_retain(struct ci_call *c, CUresult r, uint64_t ctx, CUdevice dev)
{
	if (r != CUDA_SUCCESS || !ctx)
		return;
	ci_modules_refresh(false);
	unsigned flags = 0;
	int active;
	CI_REAL(cuDevicePrimaryCtxGetState, dev, &flags, &active);
	bool known = ci_map_get(&ci_rec.ctx_map, ctx) != CI_NONE;
	c->ctx = ci_ctx_register((CUcontext)ctx, CI_CTX_PRIMARY, flags, c);
	if (!known)
		ci_event_record(c, CI_EV_CTX_CREATE, r, ctx, (uint64_t)(uint32_t)dev, CI_CTX_PRIMARY,
				0);
}

void ci_on_primary_release(struct ci_call *c, CUresult r, CUdevice dev)
{
	if (r != CUDA_SUCCESS)
		return;
	/* A release destroys the primary context when it drops the last reference; a reset
	 * always does.  Either way the driver reports it inactive afterwards. */
	unsigned flags;
	int active = 1;
	if (CI_REAL(cuDevicePrimaryCtxGetState, dev, &flags, &active) != CUDA_SUCCESS || active)
		return;
	/* Find the context that was this device's primary. */
	struct ci_sec *s = ci_sec(CI_SEC_CONTEXTS);
	uint32_t dslot = ci_map_get(&ci_rec.device_map, (uint64_t)(uint32_t)dev + 1);
	uint64_t n = __atomic_load_n(&s->dir->head, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < s->capacity; i++) {
		struct ci_context *e = ci_entry(CI_SEC_CONTEXTS, i);
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == i + 1 &&
		    e->kind == CI_CTX_PRIMARY && e->device == dslot &&
		    !__atomic_load_n(&e->destroy_ns, __ATOMIC_RELAXED) &&
		    ci_map_get(&ci_rec.ctx_map, e->handle) == i) {
			c->ctx = (uint32_t)i;
			ci_ctx_destroyed((CUcontext)e->handle);
			ci_event_record(c, CI_EV_CTX_DESTROY, r, e->handle, (uint64_t)(uint32_t)dev,
					0, 0);
		}
	}
}

void ci_on_ctx_create(struct ci_call *c, CUresult r, uint64_t ctx, unsigned flags, CUdevice dev)
{
	if (r != CUDA_SUCCESS || !ctx)
		return;
	ci_modules_refresh(false);
	c->ctx = ci_ctx_register((CUcontext)ctx, CI_CTX_EXPLICIT, flags, c);
	ci_event_record(c, CI_EV_CTX_CREATE, r, ctx, (uint64_t)(uint32_t)dev, CI_CTX_EXPLICIT, 0);
}

void ci_on_ctx_destroy(struct ci_call *c, CUresult r, uint64_t ctx)
{
	if (r != CUDA_SUCCESS)
		return;
	c->ctx = ci_map_get(&ci_rec.ctx_map, ctx);
	ci_ctx_destroyed((CUcontext)ctx);
	ci_event_record(c, CI_EV_CTX_DESTROY, r, ctx, 0, 0, 0);
}

void ci_on_ctx_from_green(struct ci_call *c, CUresult r, uint64_t ctx, uint64_t green)
{
	if (r != CUDA_SUCCESS || !ctx)
		return;
	bool known = ci_map_get(&ci_rec.ctx_map, ctx) != CI_NONE;
	c->ctx = ci_ctx_register((CUcontext)ctx, CI_CTX_GREEN, 0, c);
	if (c->ctx != CI_NONE)
		ci_rec.ctxs[c->ctx].green = green;
	if (!known)
		ci_event_record(c, CI_EV_CTX_CREATE, r, ctx, green, CI_CTX_GREEN, 0);
}

void ci_on_green_ctx_destroy(struct ci_call *c, CUresult r, uint64_t green)
{
	if (r != CUDA_SUCCESS || !green)
		return;
	struct ci_sec *s = ci_sec(CI_SEC_CONTEXTS);
	uint64_t n = __atomic_load_n(&s->dir->head, __ATOMIC_RELAXED);
	for (uint64_t i = 0; i < n && i < s->capacity; i++) {
		const struct ci_context *e = ci_entry(CI_SEC_CONTEXTS, i);
		if (ci_rec.ctxs[i].green == green &&
		    ci_map_get(&ci_rec.ctx_map, e->handle) == i) {
			c->ctx = (uint32_t)i;
			uint64_t handle = e->handle;
			ci_ctx_destroyed((CUcontext)handle);
			ci_event_record(c, CI_EV_CTX_DESTROY, r, handle, green, CI_CTX_GREEN, 0);
		}
	}
}

void ci_on_stream_create(struct ci_call *c, CUresult r, uint64_t stream, unsigned flags,
			 int priority, uint64_t green)
{
	if (r != CUDA_SUCCESS || !stream)
		return;
	ci_modules_refresh(false);
	CUcontext ctx = NULL;
	uint32_t ctx_slot = CI_REAL(cuStreamGetCtx, (CUstream)stream, &ctx) == CUDA_SUCCESS
				    ? ci_ctx_slot(ctx)
				    : ci_ctx_current_slot();
	/* cuStreamCreate has no priority argument: ask, so the entry says what the stream got. */
	if (!priority)
		CI_REAL(cuStreamGetPriority, (CUstream)stream, &priority);
	/* A stream handle the driver reuses after a destroy we did not see: close the old one. */
	if (ci_map_get(&ci_rec.stream_map, stream) != CI_NONE)
		ci_stream_destroyed((CUstream)stream);
	c->ctx = ctx_slot;
	c->stream = ci_stream_register((CUstream)stream, CI_STREAM_CREATED, flags, priority,
				       ctx_slot, c);
	ci_event_record(c, CI_EV_STREAM_CREATE, r, stream, green, flags, 0);
}

void ci_on_stream_destroy(struct ci_call *c, CUresult r, CUstream s)
{
	if (r != CUDA_SUCCESS || !s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
		return;
	c->stream = ci_map_get(&ci_rec.stream_map, CI_U64(s));
	if (c->stream != CI_NONE)
		c->ctx = ci_rec.streams[c->stream].ctx;
	ci_stream_destroyed(s);
	ci_event_record(c, CI_EV_STREAM_DESTROY, r, CI_U64(s), 0, 0, 0);
}

void ci_on_module_load(struct ci_call *c, CUresult r, uint64_t module, uint32_t kind,
		       const char *file, const void *image)
{
	if (r != CUDA_SUCCESS || !module)
		return;
	ci_modules_refresh(false);
	uint32_t ctx = kind == CI_CODE_MODULE ? ci_ctx_current_slot() : CI_NONE;
	c->ctx = ctx;
	/* A handle reused after an unload we did not see: close the old one. */
	if (ci_map_get(&ci_rec.module_map, module) != CI_NONE)
		ci_code_module_unloaded(module);
	uint32_t slot = ci_code_module_register(module, kind, ctx, file, image, c);
	ci_event_record(c, CI_EV_MODULE_LOAD, r, module, 0, slot, 0);
}

void ci_on_module_unload(struct ci_call *c, CUresult r, uint64_t module)
{
	if (r != CUDA_SUCCESS)
		return;
	uint32_t slot = ci_map_get(&ci_rec.module_map, module);
	if (slot != CI_NONE)
		c->ctx = ((const struct ci_code_module *)ci_entry(CI_SEC_CODE_MODULES, slot))->ctx;
	ci_code_module_unloaded(module);
	ci_event_record(c, CI_EV_MODULE_UNLOAD, r, module, 0, slot, 0);
}

void ci_on_get_function(struct ci_call *c, CUresult r, uint64_t func, uint32_t kind,
			uint64_t module, const char *name)
{
	(void)c;
	if (r != CUDA_SUCCESS || !func)
		return;
	ci_function_register(func, kind, ci_map_get(&ci_rec.module_map, module), name);
}

void ci_on_enum_functions(struct ci_call *c, CUresult r, const uint64_t *funcs, unsigned n,
			  uint32_t kind, uint64_t module)
{
	(void)c;
	if (r != CUDA_SUCCESS || !funcs)
		return;
	uint32_t mslot = ci_map_get(&ci_rec.module_map, module);
	for (unsigned i = 0; i < n; i++)
		if (funcs[i])
			ci_function_register(funcs[i], kind, mslot, NULL);
}

void ci_on_kernel_get_function(struct ci_call *c, CUresult r, uint64_t func, uint64_t kernel)
{
	(void)c;
	if (r != CUDA_SUCCESS || !func)
		return;
	/* The function runs the kernel's code: give it the kernel's name and library. */
	uint32_t k = ci_function_slot(kernel);
	const char *name = NULL;
	uint32_t module = CI_NONE;
	if (k != CI_NONE) {
		const struct ci_function *kf = ci_entry(CI_SEC_FUNCTIONS, k);
		name = (const char *)ci_sec(CI_SEC_STRINGS)->base + kf->name_str;
		module = kf->code_module;
	}
	ci_function_register(func, CI_FUNC_FUNCTION, module, name);
}
