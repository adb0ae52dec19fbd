/* Driver initialization, CUDASIM_* configuration, the object pool, and the device queries.
 *
 * cuInit reads the environment once: CUDASIM_DEVICES, CUDASIM_MEM, CUDASIM_KERNEL_US,
 * CUDASIM_MODE, CUDASIM_FAULT, CUDASIM_HANG, CUDASIM_KERNEL_LOG[_FORMAT] and CUDASIM_VERBOSE (all
 * in docs/SIMULATOR.md).  A
 * malformed value is reported on stderr and cuInit fails with CUDA_ERROR_INVALID_VALUE, so a typo
 * in a test never silently runs without the fault it asked for.  Each simulated device looks like
 * an H200 (compute capability 9.0, 132 SMs) with the requested amount of memory.
 */
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sim_state sim = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.progress = PTHREAD_COND_INITIALIZER,
	.mem_lock = PTHREAD_MUTEX_INITIALIZER,
};

void sim_log(const char *fmt, ...)
{
	va_list ap;
	char line[512];
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cudasim: %s\n", line);
}

unsigned long long sim_new_id(void)
{
	return atomic_fetch_add(&sim.next_id, 1) + 1;
}

/* ---- object pool ---------------------------------------------------------------------------- */

static pthread_mutex_t sim_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_obj *sim_pool_free[SIM_KIND_COUNT];
static struct sim_obj *sim_pool_all;

void *sim_obj_new(enum sim_kind kind, size_t size)
{
	struct sim_obj *o = NULL;
	pthread_mutex_lock(&sim_pool_lock);
	if (sim_pool_free[kind]) {
		o = sim_pool_free[kind];
		sim_pool_free[kind] = o->free_next;
	}
	pthread_mutex_unlock(&sim_pool_lock);
	if (o) {
		struct sim_obj *all_next = o->all_next;
		memset((char *)o + sizeof(o->magic), 0, size - sizeof(o->magic));
		o->all_next = all_next;
	} else {
		if (!(o = calloc(1, size)))
			return NULL;
		pthread_mutex_lock(&sim_pool_lock);
		o->all_next = sim_pool_all;
		sim_pool_all = o;
		pthread_mutex_unlock(&sim_pool_lock);
	}
	atomic_store_explicit(&o->magic, SIM_MAGIC(kind), memory_order_release);
	return o;
}

void sim_obj_free(void *obj, enum sim_kind kind)
{
	struct sim_obj *o = obj;
	if (!o)
		return;
	atomic_store_explicit(&o->magic, 0, memory_order_release);
	pthread_mutex_lock(&sim_pool_lock);
	o->free_next = sim_pool_free[kind];
	sim_pool_free[kind] = o;
	pthread_mutex_unlock(&sim_pool_lock);
}

/* ---- configuration ---------------------------------------------------------------------------- */

static int sim_parse_size(const char *s, size_t *ret)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	case 'T': v <<= 40; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	*ret = (size_t)v;
	return 0;
}

struct sim_watch *sim_watch_find(const char *name)
{
	for (struct sim_watch *w = sim.cfg.watches; w; w = w->next)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

/* The errors a faulting launch may raise: the sticky ones, which poison a context on a GPU. */
static const struct {
	const char *name;
	CUresult code;
} sim_fault_errors[] = {
	{"illegal_address", CUDA_ERROR_ILLEGAL_ADDRESS},
	{"assert", CUDA_ERROR_ASSERT},
	{"hardware_stack_error", CUDA_ERROR_HARDWARE_STACK_ERROR},
	{"illegal_instruction", CUDA_ERROR_ILLEGAL_INSTRUCTION},
	{"misaligned_address", CUDA_ERROR_MISALIGNED_ADDRESS},
	{"invalid_address_space", CUDA_ERROR_INVALID_ADDRESS_SPACE},
	{"invalid_pc", CUDA_ERROR_INVALID_PC},
	{"launch_failed", CUDA_ERROR_LAUNCH_FAILED},
};

/* "illegal_address", "CUDA_ERROR_ASSERT", "719", ... (any case) */
static int sim_parse_fault_error(const char *s, CUresult *ret)
{
	if (strncasecmp(s, "CUDA_ERROR_", 11) == 0)
		s += 11;
	char *end;
	long code = strtol(s, &end, 10);
	for (size_t i = 0; i < sizeof(sim_fault_errors) / sizeof(sim_fault_errors[0]); i++)
		if ((end != s && !*end && code == sim_fault_errors[i].code) ||
		    strcasecmp(s, sim_fault_errors[i].name) == 0) {
			*ret = sim_fault_errors[i].code;
			return 0;
		}
	return -1;
}

/* The error kinds an SM reports in an Xid 13 for the sticky errors that have one. */
static int sim_fault_error_has_warp_code(CUresult e)
{
	return e == CUDA_ERROR_ILLEGAL_ADDRESS || e == CUDA_ERROR_MISALIGNED_ADDRESS ||
	       e == CUDA_ERROR_ILLEGAL_INSTRUCTION || e == CUDA_ERROR_INVALID_ADDRESS_SPACE;
}

/* An unsigned number (decimal, or hex with 0x), without sign or spaces. */
static int sim_parse_u64(const char *s, unsigned long long max, unsigned long long *ret, char **end)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, end, 0);
	if (errno || v > max)
		return -1;
	*ret = v;
	return 0;
}

/* One clause after NAME[@N]: ERROR, arg=K[+OFF|-OFF], addr=ADDR, access=..., xid=13|31. */
static int sim_parse_fault_clause(const char *c, struct sim_fault *f)
{
	unsigned long long v;
	char *end;
	if (strncmp(c, "arg=", 4) == 0) {
		if (sim_parse_u64(c + 4, 63, &v, &end) || (*end && *end != '+' && *end != '-'))
			return -1;
		f->where = SIM_FAULT_ARG;
		f->arg = (unsigned)v;
		f->offset = 0;
		if (*end) {
			int neg = *end == '-';
			if (sim_parse_u64(end + 1, INT64_MAX, &v, &end) || *end)
				return -1;
			f->offset = neg ? -(int64_t)v : (int64_t)v;
		}
		return 0;
	}
	if (strncmp(c, "addr=", 5) == 0) {
		if (sim_parse_u64(c + 5, UINT64_MAX, &v, &end) || *end)
			return -1;
		f->where = SIM_FAULT_ABS;
		f->addr = v;
		return 0;
	}
	if (strncmp(c, "access=", 7) == 0) {
		static const char *const names[] = {"read", "write", "atomic"};
		for (int i = 0; i < 3; i++)
			if (strcmp(c + 7, names[i]) == 0) {
				f->access = (enum sim_fault_access)(SIM_ACCESS_READ + i);
				return 0;
			}
		return -1;
	}
	if (strncmp(c, "block=", 6) == 0 || strncmp(c, "thread=", 7) == 0) {
		int block = c[0] == 'b';
		if (sim_parse_u64(c + (block ? 6 : 7), UINT32_MAX, &v, &end) || *end)
			return -1;
		if (block)
			f->has_block = 1, f->block = (unsigned long)v;
		else
			f->has_thread = 1, f->thread = (unsigned long)v;
		return 0;
	}
	if (strncmp(c, "xid=", 4) == 0) {
		if (strcmp(c + 4, "13") && strcmp(c + 4, "31"))
			return -1;
		f->xid = atoi(c + 4);
		return 0;
	}
	return sim_parse_fault_error(c, &f->error);
}

/* Whether the clauses of one fault fit together and fit what the name is. */
static const char *sim_fault_check(const char *name, const struct sim_fault *f)
{
	int copy = strcmp(name, ".copy") == 0, set = strcmp(name, ".set") == 0;
	if (name[0] == '.' && !copy && !set)
		return "is not a kernel name, .copy or .set";
	if ((copy || set) && (f->has_block || f->has_thread))
		return "is a copy-engine operation: it has no blocks or threads";
	if ((copy || set) && f->xid == 13)
		return "is a copy-engine operation: copy engines raise Xid 31, not 13";
	if ((copy && f->where == SIM_FAULT_ARG && f->arg > 1) || (set && f->where == SIM_FAULT_ARG && f->arg > 0))
		return "has no such argument (copies: arg=0 destination, arg=1 source; sets: arg=0)";
	if (f->xid == 13 && f->where != SIM_FAULT_NOWHERE)
		return "asks for Xid 13, which prints no address: drop arg= or addr=";
	if (f->xid == 13 && !sim_fault_error_has_warp_code(f->error))
		return "asks for Xid 13 with an error an SM does not report (use illegal_address, "
		       "misaligned_address, illegal_instruction or invalid_address_space)";
	if (f->xid == 31 && f->where == SIM_FAULT_NOWHERE && !copy && !set)
		return "asks for Xid 31 without an address: add arg=K+OFFSET or addr=ADDRESS";
	return NULL;
}

/* Parse "NAME[@N][:CLAUSE...][,NAME[@N][:CLAUSE...]...]" from CUDASIM_FAULT, or
 * "NAME[@N][,...]" from CUDASIM_HANG. */
static int sim_parse_watch_list(const char *var, const char *list, int hang)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -1;
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*item))
			item++;
		struct sim_fault f = {.error = CUDA_ERROR_ILLEGAL_ADDRESS};
		char *colon = strchr(item, ':');
		if (colon) {
			*colon = 0;
			if (hang) {
				sim_log("%s='%s': '%s' is not allowed (hangs raise no error)", var, list, colon + 1);
				free(copy);
				return -1;
			}
			for (char *c = colon + 1, *next; c; c = next) {
				if ((next = strchr(c, ':')))
					*next++ = 0;
				if (sim_parse_fault_clause(c, &f)) {
					sim_log("%s='%s': '%s' is not a clause: a sticky error (illegal_address, "
						"assert, hardware_stack_error, illegal_instruction, misaligned_address, "
						"invalid_address_space, invalid_pc, launch_failed, or its number), "
						"arg=K[+OFFSET|-OFFSET], addr=ADDRESS, access=read|write|atomic, "
						"xid=13|31, block=N or thread=N",
						var, list, c);
					free(copy);
					return -1;
				}
			}
		}
		char *at = strchr(item, '@');
		unsigned long n = 1;
		if (at) {
			char *end;
			*at = 0;
			errno = 0;
			n = strtoul(at + 1, &end, 10);
			if (errno || end == at + 1 || *end || n == 0) {
				sim_log("%s='%s': '%s@%s' is not NAME@N with N >= 1", var, list,
					item, at + 1);
				free(copy);
				return -1;
			}
		}
		if (!*item) {
			sim_log("%s='%s': empty kernel name; use NAME[@N][,NAME[@N]...]", var, list);
			free(copy);
			return -1;
		}
		const char *why = hang && item[0] == '.' ? "is not a kernel name (only kernels hang)"
						       : hang ? NULL : sim_fault_check(item, &f);
		if (why) {
			sim_log("%s='%s': '%s' %s", var, list, item, why);
			free(copy);
			return -1;
		}
		struct sim_watch *w = sim_watch_find(item);
		if (!w) {
			w = calloc(1, sizeof(*w));
			if (!w || !(w->name = strdup(item))) {
				free(w);
				free(copy);
				return -1;
			}
			w->next = sim.cfg.watches;
			sim.cfg.watches = w;
		}
		unsigned *count = hang ? &w->nhang : &w->nfault;
		if (*count == SIM_WATCH_MAX_N) {
			sim_log("%s='%s': more than %d ordinals for kernel %s", var, list, SIM_WATCH_MAX_N, item);
			free(copy);
			return -1;
		}
		if (hang) {
			w->hang_at[(*count)++] = n;
		} else {
			f.at = n;
			w->fault[(*count)++] = f;
			if (f.where == SIM_FAULT_ARG && item[0] != '.')
				w->needs_args = 1;
		}
	}
	free(copy);
	return 0;
}

static CUresult sim_configure(void)
{
	struct sim_config *c = &sim.cfg;
	const char *v;
	c->kernel_us = 200;
	c->ndevices = 1;
	c->klog_fd = -1;
	c->mem_bytes = (size_t)80 << 30;
	if ((v = getenv("CUDASIM_VERBOSE")) && *v && strcmp(v, "0") != 0)
		c->verbose = 1;
	if ((v = getenv("CUDASIM_KERNEL_US")) && *v) {
		char *end;
		errno = 0;
		unsigned long us = strtoul(v, &end, 10);
		if (errno || *end || us > 60000000ul) {
			sim_log("CUDASIM_KERNEL_US='%s' is not a number of microseconds (0..60000000)", v);
			return CUDA_ERROR_INVALID_VALUE;
		}
		c->kernel_us = (unsigned)us;
	}
	if ((v = getenv("CUDASIM_MODE")) && *v) {
		if (strcmp(v, "null") == 0)
			c->null_mode = 1;
		else if (strcmp(v, "async") != 0) {
			sim_log("CUDASIM_MODE='%s' is unknown; use 'async' (default) or 'null'", v);
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	if (sim_cost_configure(getenv("CUDASIM_COST")))
		return CUDA_ERROR_INVALID_VALUE;
	if ((v = getenv("CUDASIM_DEVICES")) && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || n < 0 || n > 16) {
			sim_log("CUDASIM_DEVICES='%s' must be a count from 0 to 16", v);
			return CUDA_ERROR_INVALID_VALUE;
		}
		c->ndevices = (int)n;
	}
	if ((v = getenv("CUDASIM_MEM")) && *v) {
		if (sim_parse_size(v, &c->mem_bytes) || c->mem_bytes < (4u << 20) ||
		    c->mem_bytes > ((size_t)1 << 42)) {
			sim_log("CUDASIM_MEM='%s' must be a size from 4M to 4T (suffix K, M, G or T)", v);
			return CUDA_ERROR_INVALID_VALUE;
		}
		c->mem_bytes &= ~(((size_t)2 << 20) - 1);
	}
	if ((v = getenv("CUDASIM_FAULT")) && *v && sim_parse_watch_list("CUDASIM_FAULT", v, 0))
		return CUDA_ERROR_INVALID_VALUE;
	if ((v = getenv("CUDASIM_HANG")) && *v && sim_parse_watch_list("CUDASIM_HANG", v, 1))
		return CUDA_ERROR_INVALID_VALUE;
	c->copy_watch = sim_watch_find(".copy");
	c->set_watch = sim_watch_find(".set");
	CUresult r = sim_klog_configure();
	if (r || (r = sim_gpucore_configure()))
		return r;
	if (c->verbose)
		sim_log("%d device(s), %zu MiB each, kernels take %u us, %s mode, cost model %s",
			c->ndevices, c->mem_bytes >> 20, c->kernel_us, c->null_mode ? "null" : "async",
			sim_cost_model());
	return CUDA_SUCCESS;
}

/* ---- cuInit ------------------------------------------------------------------------------------ */

static pthread_once_t sim_once = PTHREAD_ONCE_INIT;
static CUresult sim_init_result = CUDA_ERROR_NOT_INITIALIZED;

/* CUDA is not usable in a child forked after initialization: its worker threads did not come
 * along.  Every call in the child then reports CUDA_ERROR_NOT_INITIALIZED, cuInit included. */
static void sim_forked_child(void)
{
	atomic_store(&sim.initialized, 0);
	sim_init_result = CUDA_ERROR_NOT_INITIALIZED;
}

static void sim_init_once(void)
{
	CUresult r = sim_configure();
	if (r != CUDA_SUCCESS) {
		sim_init_result = r;
		return;
	}
	if (sim.cfg.ndevices == 0) {
		sim_init_result = CUDA_ERROR_NO_DEVICE;
		return;
	}
	sim.devices = calloc((size_t)sim.cfg.ndevices, sizeof(*sim.devices));
	if (!sim.devices) {
		sim_init_result = CUDA_ERROR_OUT_OF_MEMORY;
		return;
	}
	for (int i = 0; i < sim.cfg.ndevices; i++) {
		struct sim_device *d = &sim.devices[i];
		d->ordinal = i;
		snprintf(d->name, sizeof(d->name), "NVIDIA H200 (cudasim)");
		/* A fixed, recognisable UUID per ordinal: "cudasim" + ordinal. */
		static const char prefix[] = "cudasim-dev";
		memcpy(d->uuid.bytes, prefix, sizeof(prefix) - 1);
		d->uuid.bytes[15] = (char)i;
		d->total_mem = sim.cfg.mem_bytes;
		sim_mem_init_device(d);
		if (!d->va_base) {
			sim_log("cannot reserve %zu MiB of address space for device %d; lower CUDASIM_MEM",
				sim.cfg.mem_bytes >> 20, i);
			sim_init_result = CUDA_ERROR_OUT_OF_MEMORY;
			return;
		}
	}
	sim_init_result = CUDA_SUCCESS;
	pthread_atfork(NULL, NULL, sim_forked_child);
	atomic_store_explicit(&sim.initialized, 1, memory_order_release);
}

SIM_EXPORT CUresult cuInit(unsigned int Flags)
{
	if (Flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_once(&sim_once, sim_init_once);
	return sim_init_result;
}

SIM_EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = SIM_DRIVER_VERSION;
	return CUDA_SUCCESS;
}

/* cuGetExportTable hands out NVIDIA's private function tables, which the simulator does not
 * have: every request is answered "not supported", so cudart-like callers fall back or fail
 * with a clear code instead of calling garbage. */
SIM_EXPORT CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
	if (!ppExportTable || !pExportTableId)
		return CUDA_ERROR_INVALID_VALUE;
	*ppExportTable = NULL;
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* ---- devices ----------------------------------------------------------------------------------- */

struct sim_device *sim_device_get(CUdevice dev)
{
	if (dev < 0 || dev >= sim.cfg.ndevices)
		return NULL;
	return &sim.devices[dev];
}

SIM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	SIM_REQUIRE_INIT();
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_device_get(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetCount(int *count)
{
	SIM_REQUIRE_INIT();
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = sim.cfg.ndevices;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", d->name);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	*uuid = d->uuid;
	return CUDA_SUCCESS;
}

/* _v2 differs from the original only in also accepting MIG instances; the simulator has none. */
SIM_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	return cuDeviceGetUuid(uuid, dev);
}

SIM_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	struct sim_device *d = sim_device_get(dev);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = d->total_mem;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	if (!sim_device_get(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pciBusId || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(pciBusId, (size_t)len, "0000:%02X:00.0", 0x18 + dev);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	if (!sim_device_get(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!major || !minor)
		return CUDA_ERROR_INVALID_VALUE;
	*major = 9;
	*minor = 0;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	SIM_REQUIRE_INIT();
	if (!sim_device_get(dev) || !sim_device_get(peerDev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!canAccessPeer)
		return CUDA_ERROR_INVALID_VALUE;
	*canAccessPeer = dev != peerDev;
	return CUDA_SUCCESS;
}

/* The forms cuDeviceGetPCIBusId writes ("0000:18:00.0") and the short ones ("18:00.0",
 * "0000:18:00"), hexadecimal, any case. */
static int sim_parse_bus_id(const char *s, unsigned *domain, unsigned *bus, unsigned *device,
			    unsigned *function)
{
	int n = 0;
	if (sscanf(s, "%x:%x:%x.%x%n", domain, bus, device, function, &n) == 4 && !s[n])
		return 0;
	*domain = *function = 0;
	n = 0;
	if (sscanf(s, "%x:%x.%x%n", bus, device, function, &n) == 3 && !s[n])
		return 0;
	*function = 0;
	n = 0;
	if (sscanf(s, "%x:%x:%x%n", domain, bus, device, &n) == 3 && !s[n])
		return 0;
	return -1;
}

SIM_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
	SIM_REQUIRE_INIT();
	unsigned domain = 0, bus = 0, device = 0, function = 0;
	if (!dev || !pciBusId || sim_parse_bus_id(pciBusId, &domain, &bus, &device, &function))
		return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < sim.cfg.ndevices; i++)
		if (domain == 0 && bus == (unsigned)(0x18 + i) && device == 0 && function == 0) {
			*dev = i;
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_INVALID_DEVICE;
}

#define SIM_SM_COUNT 132

/* Attribute values of an H200 SXM (compute capability 9.0).  Attributes the simulator has no
 * opinion on read as 0, as unsupported features do on real hardware. */
static int sim_device_attribute(CUdevice_attribute a, int dev)
{
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
	case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
	case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
	case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return SIM_SM_COUNT;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
	case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
	case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x18 + dev;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 6144;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 50331648;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 3;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
	case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: return 32;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
	case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
	case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
	case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return dev;
	case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
	case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
	case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
	case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
	case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return 32505856;
	case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return 134213632;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 1024;
	case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: return 1;
	case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 1;
	case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: return 1;
	case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: return 1;
	case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: return 4;
	case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: return 1;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: return 1;
	case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;
	case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
	case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: return 0x233510de;
	default: return 0;
	}
}

SIM_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	SIM_REQUIRE_INIT();
	if (!sim_device_get(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pi || attrib < 1 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	*pi = sim_device_attribute(attrib, dev);
	return CUDA_SUCCESS;
}
