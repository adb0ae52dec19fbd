# The set-up both Python launch benchmarks share (pybench.py, tritonlike.py): the driver LIB
# through ctypes, its first device's primary context current, module PTX loaded, its kernel k
# and a stream made with FLAGS.  Returns (cuda, fn, stream).
import ctypes


def open_kernel(lib, ptx, stream_flags):
    cuda = ctypes.CDLL(lib)
    dev, ctx, mod = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p()
    fn, stream = ctypes.c_void_p(), ctypes.c_void_p()
    assert cuda.cuInit(0) == 0
    cuda.cuDeviceGet(ctypes.byref(dev), 0)
    cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    cuda.cuCtxSetCurrent(ctx)
    assert cuda.cuModuleLoadData(ctypes.byref(mod), ptx) == 0
    assert cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"k") == 0
    cuda.cuStreamCreate(ctypes.byref(stream), stream_flags)
    return cuda, fn, stream
