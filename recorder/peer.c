/* SPDX-License-Identifier: MIT */
/*
 * Device memory shared between processes (docs/RECORDER.md, "Peer memory"): CUDA IPC
 * (cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle) and VMM shareable handles
 * (cuMemExportToShareableHandle, cuMemImportFromShareableHandle, cuMemMap of an imported handle).
 * Each export and import goes into CI_SEC_PEER_MEMORY with a key that is the same in the
 * exporting and the importing process, so that the records of a job say whose memory a mapping
 * is, and with the device the driver says the memory lives on.  The mappings are allocations
 * too (kinds IPC, VMM_IMPORT, VMM_MAP_PEER), so that a faulting address is attributed to
 * another process's memory: after that process exits, an access there faults, and the reader
 * must not take that for the rank's own bug.
 *
 * These calls are rare (set-up, shutdown): they may ask the driver about the memory.
 */
#include <string.h>
#include <sys/stat.h>

#include "recorder.h"

static void ci_peer_record(struct ci_call *c, CUresult r, uint32_t kind, uint64_t address,
			   uint64_t size, uint64_t handle, uint64_t key, uint64_t alloc_id,
			   uint32_t handle_type, int device)
{
	if (!ci_rec.base)
		return;
	uint32_t slot = ci_table_claim(CI_SEC_PEER_MEMORY);
	if (slot == CI_NONE)
		return;
	struct ci_peer_mem *e = ci_entry(CI_SEC_PEER_MEMORY, slot);
	uint32_t stack = ci_stack_of(c);
	ci_entry_begin(&e->seq);
	e->time_ns = c->t0;
	e->address = address;
	e->size = size;
	e->handle = handle;
	e->key = key;
	e->alloc_id = alloc_id;
	e->kind = kind;
	e->handle_type = handle_type;
	e->device = device;
	e->ctx = ci_ctx_current_slot();
	e->tid = ci_thread()->tid;
	e->stack = stack;
	e->result = (int32_t)r;
	e->pad = 0;
	ci_entry_publish(&e->seq, (uint64_t)slot + 1);
}

/* The device a device address lives on, and the size of its allocation. */
static int ci_peer_device_of(uint64_t address, uint64_t *size)
{
	int ordinal = -1;
	CUdeviceptr base = 0;
	size_t bytes = 0;
	if (CI_REAL(cuPointerGetAttribute, &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		    (CUdeviceptr)address) != CUDA_SUCCESS)
		ordinal = -1;
	if (size && CI_REAL(cuMemGetAddressRange_v2, &base, &bytes, (CUdeviceptr)address) == CUDA_SUCCESS)
		*size = bytes;
	return ordinal;
}

static int ci_peer_device_of_handle(uint64_t handle)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	if (CI_REAL(cuMemGetAllocationPropertiesFromHandle, &prop,
		    (CUmemGenericAllocationHandle)handle) != CUDA_SUCCESS ||
	    prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return -1;
	return prop.location.id;
}

/* The join key of a shareable handle as the exporter gives it out or the importer receives it:
 * a POSIX file descriptor is one open file in both processes (its device and inode), a fabric
 * handle its 64 bytes. */
static uint64_t ci_peer_key(uint32_t type, const void *handle)
{
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
		struct stat st;
		int fd = (int)(intptr_t)handle;
		if (fd < 0 || fstat(fd, &st) != 0)
			return 0;
		uint64_t id[2] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino };
		return ci_fnv(CI_FNV_INIT, id, sizeof id);
	}
	if (type == CU_MEM_HANDLE_TYPE_FABRIC && handle)
		return ci_fnv(CI_FNV_INIT, handle, sizeof(CUmemFabricHandle));
	return 0;
}

void ci_on_ipc_get(struct ci_call *c, CUresult r, const CUipcMemHandle *h, CUdeviceptr dptr)
{
	uint64_t size = 0;
	int dev = r == CUDA_SUCCESS ? ci_peer_device_of(dptr, &size) : -1;
	uint64_t key = r == CUDA_SUCCESS && h ? ci_fnv(CI_FNV_INIT, h->reserved, sizeof h->reserved) : 0;
	ci_peer_record(c, r, CI_PEER_IPC_EXPORT, dptr, size, 0, key,
		       ci_alloc_id_at(CI_MATCH_DEVICE, dptr), 0, dev);
}

void ci_on_ipc_open(struct ci_call *c, CUresult r, const CUdeviceptr *pdptr, CUipcMemHandle h)
{
	uint64_t key = ci_fnv(CI_FNV_INIT, h.reserved, sizeof h.reserved);
	uint64_t address = r == CUDA_SUCCESS && pdptr ? *pdptr : 0, size = 0, id = 0;
	int dev = -1;
	if (address) {
		dev = ci_peer_device_of(address, &size);
		/* Opened again: the driver hands out the same address, which is in the table. */
		if (!(id = ci_alloc_id_at(CI_MATCH(CI_ALLOC_IPC), address))) {
			ci_on_alloc(c, r, &(struct ci_alloc_args){ .kind = CI_ALLOC_IPC,
								   .address = address, .size = size,
								   .aux = key });
			id = ci_alloc_id_at(CI_MATCH(CI_ALLOC_IPC), address);
		}
	}
	ci_peer_record(c, r, CI_PEER_IPC_OPEN, address, size, 0, key, id, 0, dev);
}

void ci_on_ipc_close_pre(struct ci_call *c, CUdeviceptr dptr)
{
	c->pre_value = 0;
	ci_on_free_pre(c, CI_MATCH(CI_ALLOC_IPC), dptr);
	if (c->pre_slot != CI_NONE) {
		const struct ci_alloc *e = ci_entry(CI_SEC_ALLOCS, c->pre_slot);
		c->pre_value = e->aux;
	}
}

void ci_on_ipc_close(struct ci_call *c, CUresult r, CUdeviceptr dptr)
{
	uint64_t key = c->pre_value, id = 0;
	if (c->pre_slot != CI_NONE)
		id = ((const struct ci_alloc *)ci_entry(CI_SEC_ALLOCS, c->pre_slot))->id;
	/* Each open takes a reference and only the last close unmaps: while the driver still
	 * knows the address, the mapping stays in the table (as after a refused free). */
	CUdeviceptr base = 0;
	size_t size = 0;
	bool mapped = r == CUDA_SUCCESS &&
		      CI_REAL(cuMemGetAddressRange_v2, &base, &size, dptr) == CUDA_SUCCESS;
	ci_on_free(c, mapped ? CUDA_ERROR_ALREADY_MAPPED : r, NULL, false);
	ci_peer_record(c, r, CI_PEER_IPC_CLOSE, dptr, 0, 0, key, id, 0, -1);
}

void ci_on_mem_export(struct ci_call *c, CUresult r, const void *shareable, uint64_t handle,
		      uint32_t type)
{
	const void *what = NULL;
	if (r == CUDA_SUCCESS && shareable)
		what = type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
			       ? (const void *)(intptr_t) * (const int *)shareable
			       : shareable;
	uint64_t key = r == CUDA_SUCCESS ? ci_peer_key(type, what) : 0;
	ci_peer_record(c, r, CI_PEER_VMM_EXPORT, 0, 0, handle, key,
		       ci_alloc_id_at(CI_MATCH(CI_ALLOC_VMM_CREATE), handle), type,
		       ci_peer_device_of_handle(handle));
}

void ci_on_mem_import(struct ci_call *c, CUresult r, const CUmemGenericAllocationHandle *ph,
		      void *os_handle, uint32_t type)
{
	uint64_t handle = r == CUDA_SUCCESS && ph ? *ph : 0;
	uint64_t key = ci_peer_key(type, os_handle), id = 0;
	if (handle) {
		ci_on_alloc(c, r, &(struct ci_alloc_args){ .kind = CI_ALLOC_VMM_IMPORT, .aux = handle });
		id = ci_alloc_id_at(CI_MATCH(CI_ALLOC_VMM_IMPORT), handle);
	}
	ci_peer_record(c, r, CI_PEER_VMM_IMPORT, 0, 0, handle, key, id, type,
		       handle ? ci_peer_device_of_handle(handle) : -1);
}

/* The latest import of HANDLE in the peer table (its key and type), if any. */
static const struct ci_peer_mem *ci_peer_import_of(uint64_t handle)
{
	struct ci_sec *s = ci_sec(CI_SEC_PEER_MEMORY);
	uint64_t n = __atomic_load_n(&s->dir->head, __ATOMIC_ACQUIRE);
	for (uint64_t i = n < s->capacity ? n : s->capacity; i-- > 0;) {
		const struct ci_peer_mem *e = ci_entry(CI_SEC_PEER_MEMORY, i);
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == i + 1 &&
		    e->kind == CI_PEER_VMM_IMPORT && e->handle == handle)
			return e;
	}
	return NULL;
}

void ci_on_mem_map(struct ci_call *c, CUresult r, uint64_t address, uint64_t size, uint64_t handle)
{
	if (!ci_rec.base)
		return;
	bool peer = ci_alloc_id_at(CI_MATCH(CI_ALLOC_VMM_IMPORT), handle) != 0;
	ci_on_alloc(c, r, &(struct ci_alloc_args){
				  .kind = peer ? CI_ALLOC_VMM_MAP_PEER : CI_ALLOC_VMM_MAP,
				  .address = address, .size = size, .aux = handle });
	if (!peer)
		return;
	const struct ci_peer_mem *imp = ci_peer_import_of(handle);
	ci_peer_record(c, r, CI_PEER_VMM_MAP, address, size, handle, imp ? imp->key : 0,
		       r == CUDA_SUCCESS ? ci_alloc_id_at(CI_MATCH(CI_ALLOC_VMM_MAP_PEER), address) : 0,
		       imp ? imp->handle_type : 0, imp ? imp->device : -1);
}
