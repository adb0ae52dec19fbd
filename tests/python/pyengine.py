# A small Python "inference engine" for cudainspect's Python tests (tests/python/*.t).
#
# It reaches the simulated driver (build/sim/libcuda.so.1) through ctypes.CDLL, which releases
# the GIL around every call as PyTorch's op bindings do, and launches kernels several Python
# calls deep: a class method, a map() callback, a generator, and once from a function made with
# exec() and deleted before the crash.  Besides the main thread it runs a
# worker thread (blocked in time.sleep) and a spinner thread (a pure-Python loop that takes the
# GIL whenever the main thread releases it).  Before the crash every Python thread writes its
# own stack, from traceback.walk_stack (what traceback.extract_stack reads), as JSON lines into
# EXPECT, and before each allocation and launch the main thread writes its stack into
# EXPECT.calls: the tests compare the reader's frames with these.
#
#   pyengine.py LIBCUDA EXPECT MODE
#   MODE hostfunc: the main thread waits in cuStreamSynchronize (GIL released) while the
#                  stream's worker, a native thread, calls usleep and then abort() as a host
#                  function; the spinner holds the GIL when the process dies.  The stream
#                  first waits on a flag in a registered page of the engine's, which the main
#                  thread sets right before it calls cuStreamSynchronize: the sleep covers that
#                  one step, not the writing of its stack and whatever held it up.
#   MODE abort:    the main thread calls abort() itself, through ctypes.PyDLL (GIL held).
#   MODE exit:     no crash: launches, then exits with status 0.
#   MODE hang:     no crash: launches, then waits in a ctypes call (sleep) until killed.
import ctypes
import gc
import json
import mmap
import os
import sys
import threading
import time
import traceback

LIB, EXPECT, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
cuda = ctypes.CDLL(LIB)
libc = ctypes.CDLL(None)
libc_held = ctypes.PyDLL(None)
lock = threading.Lock()

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry py_step(.param .u64 py_step_p) { ret; }
"""


def check(r, what):
    if r != 0:
        raise RuntimeError("%s failed: CUresult %d" % (what, r))


def my_stack(skip=0, line=None):
    """This thread's stack, innermost first: (file, qualname, name, line) per frame, from the
    frames traceback.extract_stack reads.  LINE replaces the innermost frame's line."""
    out = []
    for frame, lineno in traceback.walk_stack(sys._getframe(1)):
        code = frame.f_code
        out.append([code.co_filename, getattr(code, "co_qualname", code.co_name),
                    code.co_name, lineno])
    out = out[skip:]
    if line is not None:
        out[0][3] = line
    return out


def write_expect(role, frames):
    with lock:
        with open(EXPECT, "a") as f:
            f.write(json.dumps({"role": role, "native_id": threading.get_native_id(),
                                "frames": frames}) + "\n")


def write_call(kind, frames):
    """The stack of a recorded call (allocation, launch), in the order of the calls."""
    with lock:
        with open(EXPECT + ".calls", "a") as f:
            f.write(json.dumps({"kind": kind, "frames": frames}) + "\n")


class Engine:
    def __init__(self):
        check(cuda.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        check(cuda.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        mod = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(mod), PTX), "cuModuleLoadData")
        self.fn = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.fn), mod, b"py_step"), "cuModuleGetFunction")
        self.buf = ctypes.c_uint64()
        write_call("alloc", my_stack(line=sys._getframe().f_lineno + 1))
        r = cuda.cuMemAlloc_v2(ctypes.byref(self.buf), ctypes.c_size_t(1 << 20))
        check(r, "cuMemAlloc")
        self.stream = ctypes.c_void_p()
        check(cuda.cuStreamCreate(ctypes.byref(self.stream), 0), "cuStreamCreate")
        self.launched = 0

    def launch(self, i):
        arg = ctypes.c_uint64(self.buf.value)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
        write_call("launch", my_stack(line=sys._getframe().f_lineno + 1))
        r = cuda.cuLaunchKernel(self.fn, 1, 1, 1, 32, 1, 1, 0, self.stream, params, None)
        check(r, "cuLaunchKernel")
        self.launched += 1
        if self.launched == 7 and MODE not in ("exit", "hang"):
            self.crash()  # the last launch of step(3) (1 + 2 + 3), after the transient one
        return i

    def layers(self, n):
        # A generator driven from C by list(): its frames get their own eval loop entry.
        for i in range(n):
            yield self.launch(i)

    def step(self, batch):
        # map() calls the lambda from C: another entry into the interpreter.
        return list(map(lambda i: list(self.layers(i + 1)), range(batch)))

    def crash(self):
        if MODE == "hostfunc":
            usleep = ctypes.cast(libc.usleep, ctypes.c_void_p)
            abort = ctypes.cast(libc.abort, ctypes.c_void_p)
            page = mmap.mmap(-1, mmap.PAGESIZE)
            flag = ctypes.c_uint32.from_buffer(page)
            write_call("alloc", my_stack(line=sys._getframe().f_lineno + 1))
            r = cuda.cuMemHostRegister_v2(ctypes.c_void_p(ctypes.addressof(flag)),
                                          ctypes.c_size_t(mmap.PAGESIZE), 2)  # DEVICEMAP
            check(r, "cuMemHostRegister")
            dflag = ctypes.c_uint64()
            check(cuda.cuMemHostGetDevicePointer_v2(ctypes.byref(dflag),
                                                    ctypes.c_void_p(ctypes.addressof(flag)), 0),
                  "cuMemHostGetDevicePointer")
            check(cuda.cuStreamWaitValue32_v2(self.stream, dflag, 1, 0), "cuStreamWaitValue32")  # GEQ
            write_call("launch", my_stack(line=sys._getframe().f_lineno + 1))
            r = cuda.cuLaunchHostFunc(self.stream, usleep, ctypes.c_void_p(300000))
            check(r, "cuLaunchHostFunc")
            write_call("launch", my_stack(line=sys._getframe().f_lineno + 1))
            r = cuda.cuLaunchHostFunc(self.stream, abort, None)
            check(r, "cuLaunchHostFunc")
            write_expect("main", my_stack(line=sys._getframe().f_lineno + 2))
            flag.value = 1  # the host functions may start: usleep, then abort
            cuda.cuStreamSynchronize(self.stream)
        elif MODE == "abort":
            write_expect("main", my_stack(line=sys._getframe().f_lineno + 1))
            libc_held.abort()


def worker(ready):
    write_expect("worker", my_stack(line=sys._getframe().f_lineno + 2))
    ready.set()
    time.sleep(1000)


def spinner(ready, go):
    n = 0
    write_expect("spinner", my_stack(line=sys._getframe().f_lineno + 3))
    ready.set()
    go.wait()
    while True: n += 1


def serve(engine):
    # A function that exists only for one launch: its code object is freed before the crash,
    # and the record's copy of it must still name it.
    ns = {}
    exec(compile("def transient(engine):\n    return engine.launch(0)\n", "<transient>", "exec"), ns)
    ns["transient"](engine)
    del ns
    gc.collect()
    engine.step(3)
    check(cuda.cuStreamSynchronize(engine.stream), "cuStreamSynchronize")
    if MODE == "hang":
        write_expect("main", my_stack(line=sys._getframe().f_lineno + 1))
        libc.sleep(1000)


def main():
    for path in (EXPECT, EXPECT + ".calls"):
        if os.path.exists(path):
            os.unlink(path)
    engine = Engine()
    r1, r2, go = threading.Event(), threading.Event(), threading.Event()
    threading.Thread(target=worker, args=(r1,), name="worker", daemon=True).start()
    threading.Thread(target=spinner, args=(r2, go), name="spinner", daemon=True).start()
    r1.wait()
    r2.wait()
    go.set()
    serve(engine)


if __name__ == "__main__":
    main()
