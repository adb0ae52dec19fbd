// SPDX-License-Identifier: MIT
// A C++ CUDA program without the recorder whose CUDA error check throws an exception nothing
// catches: std::terminate prints the type and what() and aborts.  The message is planted by the
// test (argv[1]); tests/hostside/norecord.t finds the same type and text in the core.  With
// --terminate it calls std::terminate() itself, with no exception in flight; with --segv it
// writes to address 0x10 (NULL plus a member's offset).
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <exception>
#include <stdexcept>
#include <string>

namespace engine {
struct cuda_error : std::runtime_error {
	cuda_error(const std::string &what, CUresult r) : std::runtime_error(what), result(r) {}
	CUresult result;
};
} // namespace engine

static void check(CUresult r, const char *what)
{
	if (r != CUDA_SUCCESS)
		throw engine::cuda_error(std::string(what) + " failed: error " + std::to_string((int)r), r);
}

// noinline: the throw is in its own frame of the backtrace.
__attribute__((noinline)) static void load_weights(const char *planted)
{
	CUdeviceptr p;
	CUresult r = cuMemAlloc(&p, (size_t)1 << 50);
	check(r, planted);
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	check(cuInit(0), "cuInit");
	check(cuDeviceGet(&dev, 0), "cuDeviceGet");
	check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	if (argc > 1 && !strcmp(argv[1], "--terminate"))
		std::terminate();
	if (argc > 1 && !strcmp(argv[1], "--segv"))
		*(volatile int *)(uintptr_t)0x10 = 1;
	load_weights(argc > 1 ? argv[1] : "cuMemAlloc");
	return 0;
}
