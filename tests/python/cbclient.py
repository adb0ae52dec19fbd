# A client of NVIDIA's cuda-bindings (cuda.bindings.driver, PyPI; `make deps` installs it into
# $(BUILD)/pyvenv), which reaches every driver entry point through cuGetProcAddress_v2, for
# tests/python/bindings.t: it allocates and launches a few Python calls deep on the simulated
# driver and writes its own stack before each of those calls into EXPECT.calls, the format of
# pyengine.py, for compare.py --calls.  Its stream waits on a host flag (cuStreamWaitValue32)
# until every launch is queued: a launch that faults can only do so then, so the error comes
# back from the synchronize after the last launch, never from a later launch, whatever the timing.
#   cbclient.py EXPECT LAUNCHES
import ctypes
import mmap
import sys

import callfile

from cuda.bindings import driver as cu

EXPECT, LAUNCHES = sys.argv[1], int(sys.argv[2])
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry cb_step(.param .u64 p) { ret; }\n\0"


def ok(r):
    if r[0] != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError("CUDA error %s" % r[0])
    return r[1] if len(r) == 2 else r[1:]


class Model:
    def __init__(self):
        ok(cu.cuInit(0))
        self.ctx = ok(cu.cuDevicePrimaryCtxRetain(ok(cu.cuDeviceGet(0))))
        ok(cu.cuCtxSetCurrent(self.ctx))
        self.fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(PTX)), b"cb_step"))
        callfile.write_call(EXPECT, "alloc", sys._getframe().f_lineno + 1)
        self.buf = ok(cu.cuMemAlloc(1 << 20))
        self.stream = ok(cu.cuStreamCreate(0))
        # The flag: a page of this process registered with the driver (recorded as a
        # host_register allocation).
        self.page = mmap.mmap(-1, mmap.PAGESIZE)
        self.flag = ctypes.c_uint32.from_buffer(self.page)
        addr = ctypes.addressof(self.flag)
        callfile.write_call(EXPECT, "alloc", sys._getframe().f_lineno + 1)
        ok(cu.cuMemHostRegister(addr, mmap.PAGESIZE, cu.CU_MEMHOSTREGISTER_DEVICEMAP))
        self.flag_dev = ok(cu.cuMemHostGetDevicePointer(addr, 0))

    def forward(self):
        arg = ctypes.c_uint64(int(self.buf))
        params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
        callfile.write_call(EXPECT, "launch", sys._getframe().f_lineno + 1)
        r = cu.cuLaunchKernel(self.fn, 1, 1, 1, 32, 1, 1, 0, self.stream, ctypes.addressof(params), 0)
        ok(r)

    def run(self, n):
        ok(cu.cuStreamWaitValue32(self.stream, self.flag_dev, 1,
                                   cu.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ))
        for _ in range(n):
            self.forward()
        self.flag.value = 1  # the stream may run now
        ok(cu.cuStreamSynchronize(self.stream))


Model().run(LAUNCHES)
