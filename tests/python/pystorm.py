# Several Python threads launching at once through ctypes, each from code objects of its own
# made with exec() (so that the recorder meets many code objects for the first time on several
# threads together), for tests/python/storm.t.  Before each launch a thread notes its stack
# (file, qualname, line per frame, innermost first); at the end the notes go to EXPECT as one
# JSON object {native thread id: [stack, ...]}.
#   pystorm.py LIBCUDA EXPECT THREADS LAUNCHES
import ctypes
import json
import sys
import threading
import traceback

LIB, EXPECT, THREADS, LAUNCHES = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cuda = ctypes.CDLL(LIB)
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry storm(.param .u64 p) { ret; }\n"
notes = {}
barrier = threading.Barrier(THREADS)


def check(r, what):
    if r != 0:
        raise RuntimeError("%s: %d" % (what, r))


ctx, mod, fn, dev = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int()
check(cuda.cuInit(0), "cuInit")
check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
check(cuda.cuCtxSetCurrent(ctx), "current")
check(cuda.cuModuleLoadData(ctypes.byref(mod), PTX), "load")
check(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"storm"), "function")


def launch(stream, mine):
    arg = ctypes.c_uint64(0)
    params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    frames = [[f.f_code.co_filename, f.f_code.co_qualname, n]
              for f, n in traceback.walk_stack(sys._getframe(0))]
    frames[0][2] = sys._getframe().f_lineno + 2
    mine.append(frames)
    r = cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, None)
    check(r, "launch")


def worker(t):
    check(cuda.cuCtxSetCurrent(ctx), "current")
    stream = ctypes.c_void_p()
    check(cuda.cuStreamCreate(ctypes.byref(stream), 0), "stream")
    mine = notes.setdefault(threading.get_native_id(), [])
    ns = {"launch": launch}
    for k in range(LAUNCHES):
        src = "def t%d_step%d(s, m):\n    return launch(s, m)\n" % (t, k % 40)
        exec(compile(src, "<storm %d %d>" % (t, k % 40), "exec"), ns)
        if k == 0:
            barrier.wait()
        ns["t%d_step%d" % (t, k % 40)](stream, mine)
    check(cuda.cuStreamSynchronize(stream), "sync")


threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
for th in threads:
    th.start()
for th in threads:
    th.join()
with open(EXPECT, "w") as f:
    json.dump({str(k): v for k, v in notes.items()}, f)
