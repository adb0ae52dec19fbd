# A client of numba-cuda (PyPI; `make deps` installs it into $(BUILD)/pyvenv) for
# tests/python/numba.t: a @cuda.jit kernel, compiled by NVVM and linked into a cubin by
# nvJitLink, launched a few Python calls deep on the simulated driver; before each allocation
# and launch it writes its own stack into EXPECT.calls (the format of pyengine.py) for
# compare.py --calls-outer (numba's own frames lie between those and the driver).
#   nbclient.py --name           prints the kernel's entry name (for CUDASIM_FAULT)
#   nbclient.py EXPECT LAUNCHES
import sys

import numpy as np
from numba import cuda

import callfile


@cuda.jit
def nb_scale(x, out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = x[i] * 2.0


class Model:
    def __init__(self, n):
        self.n = n
        host = np.ones(n, dtype=np.float32)
        callfile.write_call(EXPECT, "alloc", sys._getframe().f_lineno + 1)
        self.x = cuda.to_device(host)
        callfile.write_call(EXPECT, "alloc", sys._getframe().f_lineno + 1)
        self.out = cuda.device_array(n, dtype=np.float32)

    def layer(self):
        callfile.write_call(EXPECT, "launch", sys._getframe().f_lineno + 1)
        nb_scale[self.n // 256, 256](self.x, self.out, self.n)

    def forward(self):
        self.layer()

    def run(self, steps):
        # A synchronize after every step: a kernel's fault surfaces at the synchronize right
        # after its launch, never at a later launch, whatever the timing (tests/python/numba.t).
        for _ in range(steps):
            self.forward()
            cuda.synchronize()


if sys.argv[1] == "--name":
    EXPECT = None  # nothing written
    m = Model(256)
    m.run(1)
    print(list(nb_scale.overloads.values())[0].entry_name)
else:
    EXPECT, LAUNCHES = sys.argv[1], int(sys.argv[2])
    Model(1024).run(LAUNCHES)
