# pyloop: what a launch from Python costs, as an engine makes it: a Triton kernel launched
# N times from a Python call DEPTH frames deep, and a PyTorch loop of small ops (one in-place
# add each).  Run under each recorder setting by testcases/gpu/run.sh (step "cost"); prints
#   pyloop: KIND REP NS_PER_OP
# with the wall time of N ops (synchronized at the end of each repetition) divided by N.
#   python3 pyloop.py N REPS DEPTH
import sys
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(x_ptr + i, tl.load(x_ptr + i, mask=m) + 1, mask=m)


def deep(k, f):
    return f() if k == 0 else deep(k - 1, f)


def main():
    n, reps, depth = (int(a) for a in sys.argv[1:4])
    x = torch.zeros(1024, device="cuda")

    def triton_loop():
        for _ in range(n):
            add_one[(1,)](x, 1024, BLOCK=1024)

    def torch_loop():
        for _ in range(n):
            x.add_(1.0)

    for kind, loop in (("triton", triton_loop), ("torchop", torch_loop)):
        deep(depth, loop)  # warm-up: compiles, first sights
        torch.cuda.synchronize()
        for rep in range(reps):
            t0 = time.perf_counter_ns()
            deep(depth, loop)
            torch.cuda.synchronize()
            print(f"pyloop: {kind} {rep} {(time.perf_counter_ns() - t0) / n:.0f}", flush=True)


main()
