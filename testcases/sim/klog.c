/* The kernel log a real host would have.  When a kernel, copy or memset selected by
 * CUDASIM_FAULT faults, the NVIDIA driver prints Xid lines; the simulator appends the same lines,
 * in the 580-series driver's format, to the file named by CUDASIM_KERNEL_LOG, stamped with
 * CLOCK_MONOTONIC as dmesg ("[ seconds.micro] ") or /dev/kmsg ("prio,seq,usec,-;") prints them
 * (CUDASIM_KERNEL_LOG_FORMAT).  docs/SIMULATOR.md lists the lines; their grammar is the one in
 * docs/KERNEL-LOG.md and docs/SIMULATOR.md.
 *
 * The file is opened once, at cuInit, with O_APPEND | O_NOFOLLOW | O_CLOEXEC and created 0600, so
 * a symbolic link planted at the path is refused and the log is never world-writable; each line
 * is one write(), so lines of concurrent faults (and processes) do not interleave.
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The owner the driver names: the RM client's creator, i.e. the thread that initialized CUDA
 * (its comm, 15 bytes at most), and the process's pid. */
static char sim_klog_comm[16];
static atomic_ullong sim_klog_seq;
static atomic_uint sim_klog_gpu_named; /* bit per device: its "GPU at PCI" line was printed */

CUresult sim_klog_configure(void)
{
	const char *path = getenv("CUDASIM_KERNEL_LOG"), *fmt = getenv("CUDASIM_KERNEL_LOG_FORMAT");
	if (fmt && *fmt) {
		if (strcmp(fmt, "kmsg") == 0) {
			sim.cfg.klog_kmsg = 1;
		} else if (strcmp(fmt, "dmesg") != 0) {
			sim_log("CUDASIM_KERNEL_LOG_FORMAT='%s' is unknown; use 'dmesg' (default) or 'kmsg'", fmt);
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	if (!path || !*path)
		return CUDA_SUCCESS;
	/* O_NONBLOCK keeps a FIFO at the path from blocking cuInit; it is refused below anyway. */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		int e = errno;
		sim_log("CUDASIM_KERNEL_LOG='%s': %s%s", path, strerror(e),
			e == ELOOP ? " (a symbolic link: the simulator does not follow links to its log)" : "");
		return CUDA_ERROR_INVALID_VALUE;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		sim_log("CUDASIM_KERNEL_LOG='%s' is not a regular file", path);
		close(fd);
		return CUDA_ERROR_INVALID_VALUE;
	}
	fcntl(fd, F_SETFL, O_APPEND);
	if (prctl(PR_GET_NAME, sim_klog_comm) != 0)
		snprintf(sim_klog_comm, sizeof(sim_klog_comm), "cudasim");
	sim.cfg.klog_fd = fd;
	return CUDA_SUCCESS;
}

/* One kernel message with its time stamp, in one write(). */
static void sim_klog_line(const char *text)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	unsigned long long us = (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
	char line[1024];
	int n;
	if (sim.cfg.klog_kmsg) /* facility 0 (kernel), level 4: the driver's printk default */
		n = snprintf(line, sizeof(line), "4,%llu,%llu,-;%s\n", atomic_fetch_add(&sim_klog_seq, 1), us, text);
	else
		n = snprintf(line, sizeof(line), "[%5llu.%06llu] %s\n", us / 1000000, us % 1000000, text);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	ssize_t w;
	do
		w = write(sim.cfg.klog_fd, line, (size_t)n);
	while (w < 0 && errno == EINTR);
	if (w != n)
		sim_log("CUDASIM_KERNEL_LOG: cannot append an Xid line: %s", w < 0 ? strerror(errno) : "short write");
}

/* The address the faulting access went to, or 0 when the fault has none. */
int sim_fault_address(const struct sim_work *w, uint64_t *addr)
{
	const struct sim_fault *f = w->fault;
	if (f->where == SIM_FAULT_ABS) {
		*addr = f->addr;
		return 1;
	}
	if (w->kind == SIM_OP_KERNEL) {
		unsigned k = f->arg;
		if (f->where != SIM_FAULT_ARG || !w->u.kernel.argv || k >= w->u.kernel.argc ||
		    !(w->u.kernel.argok >> k & 1)) {
			if (f->where == SIM_FAULT_ARG)
				sim_log("CUDASIM_FAULT: parameter %u of %s is not an 8-byte parameter: no Xid line",
					k, w->u.kernel.entry->name);
			return 0;
		}
		*addr = w->u.kernel.argv[k] + (uint64_t)f->offset;
		return 1;
	}
	/* Copies and sets: the destination (arg=0, and by default) or the copy's source (arg=1);
	 * the source of an async copy from pageable memory is still the caller's pointer. */
	const void *p = w->kind == SIM_OP_SET ? w->u.set.dst
			: f->where == SIM_FAULT_ARG && f->arg == 1 ? w->u.copy.src : w->u.copy.dst;
	*addr = sim_mem_device_address(p) + (f->where == SIM_FAULT_ARG ? (uint64_t)f->offset : 0);
	return 1;
}

/* The warp ESR error code and text an SM reports for a sticky error (nouveau's GR trap table;
 * the text as the driver's Xid 13 lines print it). */
static int sim_warp_error(CUresult e, const char **text)
{
	switch (e) {
	case CUDA_ERROR_ILLEGAL_ADDRESS: *text = "Out Of Range Address"; return 0x0e;
	case CUDA_ERROR_MISALIGNED_ADDRESS: *text = "Misaligned Address"; return 0x0f;
	case CUDA_ERROR_ILLEGAL_INSTRUCTION: *text = "Illegal Instruction Encoding"; return 0x09;
	case CUDA_ERROR_INVALID_ADDRESS_SPACE: *text = "Invalid Address Space"; return 0x10;
	default: *text = "Unknown"; return 0;
	}
}

/* _krcLogUuidOnce: the first Xid of a GPU is preceded by the line naming its UUID. */
static void sim_klog_name_gpu(const struct sim_device *dev, const char *pci)
{
	unsigned bit = 1u << (dev->ordinal & 31);
	if (atomic_fetch_or(&sim_klog_gpu_named, bit) & bit)
		return;
	const unsigned char *u = (const unsigned char *)dev->uuid.bytes;
	char text[160];
	snprintf(text, sizeof(text),
		 "NVRM: GPU at %s: GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", pci, u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	sim_klog_line(text);
}

void sim_klog_fault(const struct sim_work *w, struct sim_ctx *ctx)
{
	if (sim.cfg.klog_fd < 0)
		return;
	const struct sim_fault *f = w->fault;
	struct sim_device *dev = ctx->dev;
	char pci[32], text[512];
	/* As cuDeviceGetPCIBusId says, without the function and in lower case, as Xid lines are. */
	snprintf(pci, sizeof(pci), "PCI:0000:%02x:00", 0x18 + dev->ordinal);
	unsigned channel = 8 + (unsigned)(ctx->id % 0x1f0);
	int pid = (int)getpid();
	if (f->xid == 13) {
		/* An SM exception: warp and ESR lines without an owner (570+ prints none for Xid 13),
		 * then the channel reset that names the process.  GPC/TPC/SM are arbitrary but fixed
		 * per launch; the ESR registers follow the B200 sample's layout. */
		unsigned gpc = (unsigned)(w->nth % 8), tpc = (unsigned)(w->nth % 9), sm = (unsigned)(w->nth % 2);
		unsigned esr = 0x504000 + gpc * 0x10000 + tpc * 0x2000 + 0x730 + sm * 0x80;
		const char *what;
		int code = sim_warp_error(f->error, &what);
		sim_klog_name_gpu(dev, pci);
		snprintf(text, sizeof(text), "NVRM: Xid (%s): 13, Graphics SM Warp Exception on (GPC %u, TPC %u, SM %u): %s",
			 pci, gpc, tpc, sm, what);
		sim_klog_line(text);
		snprintf(text, sizeof(text),
			 "NVRM: Xid (%s): 13, Graphics Exception: ESR 0x%x=0x%x 0x%x=0x4 0x%x=0x1f81fb60 0x%x=0x1174", pci,
			 esr, 0x1010000u | (unsigned)code, esr + 4, esr - 8, esr - 4);
		sim_klog_line(text);
		snprintf(text, sizeof(text), "NVRM: Xid (%s): 43, pid=%d, name=%s, channel 0x%08x", pci, pid,
			 sim_klog_comm, channel);
		sim_klog_line(text);
		return;
	}
	uint64_t addr;
	if (!sim_fault_address(w, &addr))
		return; /* a kernel fault without an address: the simulator invents none */
	uint64_t page = addr & ~0xfffull;
	int kernel = w->kind == SIM_OP_KERNEL;
	enum sim_fault_access a = f->access;
	if (a == SIM_ACCESS_DEFAULT) /* kernels read; copies write their destination, read their source */
		a = kernel ? SIM_ACCESS_READ
		    : w->kind == SIM_OP_COPY && f->where == SIM_FAULT_ARG && f->arg == 1 ? SIM_ACCESS_READ
										   : SIM_ACCESS_WRITE;
	static const char *const access[] = {"READ", "READ", "WRITE", "ATOMIC"};
	/* Inside the device's address window the page directory exists and the page is missing
	 * (FAULT_PTE); anywhere else no directory covers it (FAULT_PDE). */
	const char *type = page >= dev->va_base && page - dev->va_base < dev->va_size ? "FAULT_PTE" : "FAULT_PDE";
	char engine[64];
	if (kernel)
		snprintf(engine, sizeof(engine), "GRAPHICS GPC%u GPCCLIENT_T1_%u", (unsigned)(w->nth % 8),
			 (unsigned)(w->nth % 16));
	else
		snprintf(engine, sizeof(engine), "CE0 HUBCLIENT_CE0");
	sim_klog_name_gpu(dev, pci);
	snprintf(text, sizeof(text),
		 "NVRM: Xid (%s): 31, pid=%d, name=%s, channel 0x%08x, intr 00000000. MMU Fault: ENGINE %s faulted @ "
		 "0x%x_%08x. Fault is of type %s ACCESS_TYPE_VIRT_%s",
		 pci, pid, sim_klog_comm, channel, engine, (unsigned)(page >> 32), (unsigned)(page & 0xffffffffu), type,
		 access[a]);
	sim_klog_line(text);
}
