/* Device memory shared between processes on the simulated driver: CUDA IPC and VMM shareable
 * handles (docs/SIMULATOR.md, "Memory shared between processes").  Two processes: the exporter
 * prints its handles on stdout and waits for stdin to close; the importer opens them.
 *
 *   ipc export                          a cuMemAlloc'd MiB and its CUipcMemHandle ("ipc HEX"), a
 *                                       cuMemCreate'd 2 MiB exported as a file descriptor
 *                                       ("fd PID FD") and as a fabric handle ("fabric HEX")
 *   ipc import IPCHEX PID FD FABRICHEX  opens and uses each (TAP)
 *   ipc gone IPCHEX                     the exporter has exited: opening fails (TAP)
 *   ipc self                            what one process may not do (TAP)
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"

#define MIB (1u << 20)

static void hex_out(const char *tag, const void *p, size_t n)
{
	printf("%s ", tag);
	for (size_t i = 0; i < n; i++)
		printf("%02x", ((const unsigned char *)p)[i]);
	printf("\n");
}

static void hex_in(const char *s, void *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;
		sscanf(s + 2 * i, "%2x", &v);
		((unsigned char *)p)[i] = (unsigned char)v;
	}
}

static CUmemGenericAllocationHandle vmm_create(unsigned types)
{
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = (CUmemAllocationHandleType)types;
	CUmemGenericAllocationHandle h;
	MUST(cuMemCreate(&h, 2 * MIB, &prop, 0));
	return h;
}

/* Reserve, map and make usable an imported handle; the address. */
static CUdeviceptr vmm_map(CUmemGenericAllocationHandle h)
{
	CUdeviceptr va;
	MUST(cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
	IS_CU(cuMemMap(va, 2 * MIB, 0, h, 0), CUDA_SUCCESS);
	CUmemAccessDesc access = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
				   CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	IS_CU(cuMemSetAccess(va, 2 * MIB, &access, 1), CUDA_SUCCESS);
	return va;
}

static int export(void)
{
	simtest_setup(NULL);
	CUdeviceptr d;
	MUST(cuMemAlloc(&d, MIB));
	CUipcMemHandle ih;
	MUST(cuIpcGetMemHandle(&ih, d));
	hex_out("ipc", &ih, sizeof ih);
	CUmemGenericAllocationHandle h =
		vmm_create(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC);
	int fd = -1;
	MUST(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	printf("fd %d %d\n", (int)getpid(), fd);
	CUmemFabricHandle fh;
	MUST(cuMemExportToShareableHandle(&fh, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
	hex_out("fabric", &fh, sizeof fh);
	fflush(stdout);
	char buf[64];
	while (read(0, buf, sizeof buf) > 0)
		;
	return 0;
}

static int import(const char *ipchex, const char *pid, const char *fdnum, const char *fabhex)
{
	plan(24);
	simtest_setup(NULL);
	CUipcMemHandle ih;
	hex_in(ipchex, &ih, sizeof ih);
	CUdeviceptr a = 0, b = 0;
	IS_CU(cuIpcOpenMemHandle(&a, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
	IS_CU(cuIpcOpenMemHandle(&b, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
	ok(a && a == b, "opened twice: the same address (a reference more)");
	CUdeviceptr base = 0;
	size_t size = 0;
	IS_CU(cuMemGetAddressRange(&base, &size, a + 100), CUDA_SUCCESS);
	ok(base == a && size == MIB, "the mapping is the exported MiB");
	int ordinal = -1;
	IS_CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a), CUDA_SUCCESS);
	is_int(ordinal, 0, "on the exporter's device");
	IS_CU(cuMemsetD8(a, 0x5a, MIB), CUDA_SUCCESS);
	IS_CU(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuIpcCloseMemHandle(a), CUDA_SUCCESS);
	IS_CU(cuIpcCloseMemHandle(a), CUDA_SUCCESS);
	IS_CU(cuIpcCloseMemHandle(a), CUDA_ERROR_INVALID_VALUE);
	CUipcMemHandle zero;
	memset(&zero, 0, sizeof zero);
	IS_CU(cuIpcOpenMemHandle(&a, zero, 0), CUDA_ERROR_INVALID_HANDLE);

	char path[64];
	snprintf(path, sizeof path, "/proc/%s/fd/%s", pid, fdnum);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ok(fd >= 0, "the exporter's descriptor, opened through %s", path);
	CUmemGenericAllocationHandle h = 0, h2 = 0;
	IS_CU(cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd,
					     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), CUDA_SUCCESS);
	CUmemAllocationProp prop;
	IS_CU(cuMemGetAllocationPropertiesFromHandle(&prop, h), CUDA_SUCCESS);
	CUdeviceptr va = vmm_map(h);
	IS_CU(cuMemsetD8(va, 1, 2 * MIB), CUDA_SUCCESS);
	IS_CU(cuMemUnmap(va, 2 * MIB), CUDA_SUCCESS);
	IS_CU(cuMemRelease(h), CUDA_SUCCESS);
	CUmemFabricHandle fh;
	hex_in(fabhex, &fh, sizeof fh);
	IS_CU(cuMemImportFromShareableHandle(&h2, &fh, CU_MEM_HANDLE_TYPE_FABRIC), CUDA_SUCCESS);
	vmm_map(h2); /* left mapped: the record at exit holds a live mapping of peer memory */
	return done_testing();
}

static int gone(const char *ipchex)
{
	plan(1);
	simtest_setup(NULL);
	CUipcMemHandle ih;
	hex_in(ipchex, &ih, sizeof ih);
	CUdeviceptr a;
	IS_CU(cuIpcOpenMemHandle(&a, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_MAP_FAILED);
	return done_testing();
}

static int self(void)
{
	plan(4);
	simtest_setup(NULL);
	CUdeviceptr d, a;
	MUST(cuMemAlloc(&d, MIB));
	CUipcMemHandle ih;
	IS_CU(cuIpcGetMemHandle(&ih, d + 512), CUDA_ERROR_INVALID_VALUE);
	IS_CU(cuIpcGetMemHandle(&ih, d), CUDA_SUCCESS);
	IS_CU(cuIpcOpenMemHandle(&a, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_CONTEXT);
	CUmemGenericAllocationHandle h = vmm_create(CU_MEM_HANDLE_TYPE_NONE);
	int fd;
	IS_CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	      CUDA_ERROR_INVALID_VALUE);
	return done_testing();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "export"))
		return export();
	if (argc == 6 && !strcmp(argv[1], "import"))
		return import(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 3 && !strcmp(argv[1], "gone"))
		return gone(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "self"))
		return self();
	fprintf(stderr, "usage: ipc export | import IPCHEX PID FD FABRICHEX | gone IPCHEX | self\n");
	return 2;
}
