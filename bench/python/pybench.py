# What recording the Python frames adds per launch (docs/PERFORMANCE.md, "Python frames"): a
# Python program launches a kernel through ctypes on the simulated driver in null mode from
# DEPTH Python frames deep, N times; run.sh runs it with CUDAINSPECT_PYTHON=on and =off and
# takes the difference.  Prints "ns_per_launch X" (the median of REPS loops), and with
# --first-sight "ns_per_new_code X": launches each from a code object never seen before.
#   pybench.py LIBCUDA DEPTH N REPS [--first-sight]
import ctypes
import sys
import time

from simctx import open_kernel

lib, depth, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
first_sight = "--first-sight" in sys.argv
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p) { ret; }\n"
cuda, fn, stream = open_kernel(lib, PTX, 0)
arg = ctypes.c_uint64(0)
params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
launch = cuda.cuLaunchKernel
f, s = fn, stream


def loop(count):
    t0 = time.thread_time_ns()
    for _ in range(count):
        launch(f, 1, 1, 1, 32, 1, 1, 0, s, params, None)
    return (time.thread_time_ns() - t0) / count


def at_depth(d, count):
    # The launch loop runs D frames deep (this frame counts, and the module's below it).
    if d > 2:
        return at_depth(d - 1, count)
    return loop(count)


if first_sight:
    codes = []
    for i in range(n):
        ns = {}
        exec(compile("def new_%d(go):\n    return go(1)\n" % i, "<bench %d>" % i, "exec"), ns)
        codes.append(ns["new_%d" % i])
    t0 = time.thread_time_ns()
    for c in codes:
        c(loop)
    print("ns_per_new_code %.1f" % ((time.thread_time_ns() - t0) / n))
else:
    at_depth(depth, n)  # warm-up: every code object of the loop seen once
    print("ns_per_launch %.1f" % min(at_depth(depth, n) for _ in range(reps)))
