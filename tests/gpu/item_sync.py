"""item_sync.py: a loop that reads its loss with .item() every step, for tests/gpu/loader.sh.

Each step (one NVTX range "step") runs eight 2048x2048 matmuls on the GPU (about a millisecond),
reads the loss with .item() in train_step (a cudaStreamSynchronize that waits for them), then
spends 3 ms on the host in log_metrics (time.sleep) while the GPU has nothing to do: the sync
makes the GPU idle, and --cudabacktrace's stack of each wait names train_step as its caller.
With a second argument "cold" it runs no warm-up (its first step loads the kernels' code, lazy
loading being CUDA's default) and sorts a vector in its middle step, the only sort of the run (so
new code is loaded in a step after the first). Prints "steps N" last."""
import sys
import time

import torch


def log_metrics(loss):
    time.sleep(0.003)


def train_step(x, w):
    for _ in range(8):
        x = torch.tanh(x @ w)
    loss = x.float().mean().item()
    return x, loss


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    cold = len(sys.argv) > 2 and sys.argv[2] == "cold"
    x = torch.randn(2048, 2048, device="cuda")
    w = torch.randn(2048, 2048, device="cuda") * 0.02
    for _ in range(0 if cold else 3):  # warm-up: cuBLAS handles, kernels chosen
        train_step(x, w)
    for i in range(steps):
        torch.cuda.nvtx.range_push("step")
        x, loss = train_step(x, w)
        if cold and i == steps // 2:
            torch.sort(x[0])
        log_metrics(loss)
        torch.cuda.nvtx.range_pop()
    print("steps", steps)


main()
