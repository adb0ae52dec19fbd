# A launch the way Triton's generated launcher makes one (triton 3.x, third_party/nvidia/backend):
# for each pointer argument cuPointerGetAttribute(DEVICE_POINTER) to check it is device
# memory, then cuLaunchKernelEx with a launch configuration, on the current stream, from a deep
# Python stack.  Here through ctypes on the simulated driver, for bench/recorder/cost.sh under
# the cost model of the H200 (CUDASIM_COST=h200), where each driver call spends its measured
# time: what the recorder adds to such a launch (docs/PERFORMANCE.md).  Prints
# "ns_per_launch X", the median over REPS loops of N launches (thread CPU time).
#   tritonlike.py LIBCUDA DEPTH N REPS
import ctypes
import statistics
import sys
import time

from simctx import open_kernel

lib, depth, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
PTX = (b".version 8.0\n.target sm_90\n.address_size 64\n"
       b".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n) { ret; }\n")
cuda, fn, stream = open_kernel(lib, PTX, 1)
bufs = [ctypes.c_uint64() for _ in range(3)]
for b in bufs:
    assert cuda.cuMemAlloc_v2(ctypes.byref(b), 4096) == 0


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3
cfg = LaunchConfig(4, 1, 1, 128, 1, 1, 0, stream, None, 0)
n32 = ctypes.c_uint32(1024)
args = [ctypes.c_uint64(b.value) for b in bufs]
params = (ctypes.c_void_p * 4)(*[ctypes.addressof(a) for a in args], ctypes.addressof(n32))
getattr_ = cuda.cuPointerGetAttribute
launch = cuda.cuLaunchKernelEx
out = ctypes.c_uint64()


def launch_once():
    for a in args:  # the launcher's check of each pointer argument
        if getattr_(ctypes.byref(out), CU_POINTER_ATTRIBUTE_DEVICE_POINTER, a) != 0:
            raise RuntimeError("not a device pointer")
    if launch(ctypes.byref(cfg), fn, params, None) != 0:
        raise RuntimeError("launch failed")


def loop(count):
    t0 = time.thread_time_ns()
    for _ in range(count):
        launch_once()
    cuda.cuStreamSynchronize(stream)
    return (time.thread_time_ns() - t0) / count


def at_depth(d, count):
    return at_depth(d - 1, count) if d > 2 else loop(count)


at_depth(depth, n // 10 + 1)  # warm-up
print("ns_per_launch %.1f" % statistics.median(at_depth(depth, n) for _ in range(reps)))
