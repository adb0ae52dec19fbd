# torch_engine: a small PyTorch + Triton decode loop with a planted index bug, for the GPU run
# (testcases/gpu/run.sh, step "torch"; docs/GPU-VALIDATION.md).  Each step embeds, runs two
# linear layers and writes the new key into a paged KV cache with a Triton kernel; at step
# --fault-step the page index is corrupted, so paged_kv_write stores 2^41 bytes past its first
# pointer argument (the KV cache): an illegal address.
#   python3 torch_engine.py --mode eager|graph [--steps N] [--fault-step K]
# --mode graph captures one step in a torch.cuda.CUDAGraph and replays it; the corrupted index
# lives in a device tensor the replay reads, so the fault happens inside a replay.
# Exit status: 0 no fault; 1 the CUDA error surfaced (printed); 2 bad usage or no GPU.
import argparse
import sys

import torch
import triton
import triton.language as tl

PAGE = 16
HEAD = 128


@triton.jit
def paged_kv_write(cache_ptr, key_ptr, page_ptr, slot, HEAD: tl.constexpr):
    page = tl.load(page_ptr)
    offs = tl.arange(0, HEAD)
    k = tl.load(key_ptr + offs)
    tl.store(cache_ptr + (page * 16 + slot) * HEAD + offs, k)  # page 2^28: 2^41 bytes past


class Engine:
    def __init__(self, pages):
        dev = "cuda"
        self.embed = torch.randn(1024, HEAD, device=dev)
        self.w1 = torch.randn(HEAD, HEAD, device=dev)
        self.w2 = torch.randn(HEAD, HEAD, device=dev)
        self.cache = torch.zeros(pages * PAGE, HEAD, device=dev)  # 16 MiB at 2048 pages
        self.page = torch.zeros(1, dtype=torch.int64, device=dev)
        self.token = torch.zeros(1, dtype=torch.int64, device=dev)

    def step(self):
        x = self.embed[self.token]
        x = torch.relu(x @ self.w1)
        k = (x @ self.w2).contiguous()
        paged_kv_write[(1,)](self.cache, k, self.page, 0, HEAD=HEAD)
        self.token = (self.token + 1) % 1024
        return k


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mode", choices=("eager", "graph"), default="eager")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--fault-step", type=int, default=5)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch_engine: no CUDA device", file=sys.stderr)
        return 2
    eng = Engine(pages=2048)
    # Exactly 2^41 bytes past the cache: (page * 16 + slot 0) * 128 floats * 4 bytes = 2^41.
    bad_page = 2**41 // (HEAD * 4 * PAGE)
    try:
        if args.mode == "eager":
            for i in range(args.steps):
                if i == args.fault_step:
                    eng.page.fill_(bad_page)
                eng.step()
                torch.cuda.synchronize()
        else:
            eng.step()  # compile the Triton kernel outside the capture
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                eng.step()
            for i in range(args.steps):
                if i == args.fault_step:
                    eng.page.fill_(bad_page)
                g.replay()
                torch.cuda.synchronize()
    except RuntimeError as e:
        print(f"torch_engine: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    print("torch_engine: no fault")
    return 0


sys.exit(main())
