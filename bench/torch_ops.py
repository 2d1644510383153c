"""torch_ops.py: what recording adds to one PyTorch operation on the host, in nanoseconds.

The companion of launch_cost.cu (same output, same off/on blocks in one process, switched by
cudaProfilerStart/Stop): the C program times bare CUDA calls, this one the operations whose
launches a PyTorch step is made of, so a difference between a tool's cost in the two shows
what the PyTorch process adds (its threads, its libraries' launch paths, its other calls).

  t_add      x.add_(1) of a 256-element tensor: one ATen kernel (cudaLaunchKernel)
  t_linear   F.linear, batch 1, 256x256: cuBLAS's launch path
  t_conv     a 3x3 convolution of a 1x16x32x32 tensor: cuDNN's launch path
  t_item     (x.sum()).item(): a kernel, a copy to the host and the stream's wait

usage: torch_ops.py VARIANT [OPS BLOCKS]   (defaults 500 operations a block, 12 pairs)
Prints one JSON line per operation: {"op", "variant", "off_ns", "on_ns"}."""
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

variant = sys.argv[1]
ops_per_block = int(sys.argv[2]) if len(sys.argv) > 2 else 500
blocks = int(sys.argv[3]) if len(sys.argv) > 3 else 12
dev = "cuda"
torch.backends.cudnn.benchmark = False
x = torch.zeros(256, device=dev)
w = torch.randn(256, 256, device=dev)
v = torch.randn(1, 256, device=dev)
img = torch.randn(1, 16, 32, 32, device=dev)
k = torch.randn(16, 16, 3, 3, device=dev)


def t_add():
    x.add_(1)


def t_linear():
    F.linear(v, w)


def t_conv():
    F.conv2d(img, k, padding=1)


def t_item():
    return x.sum().item()


OPS = [t_add, t_linear, t_conv, t_item]


def block(op):
    t0 = time.perf_counter_ns()
    for _ in range(ops_per_block):
        op()
    t = (time.perf_counter_ns() - t0) / ops_per_block
    torch.cuda.synchronize()
    return t


with torch.no_grad():
    for op in OPS:  # warm-up: cuDNN's and cuBLAS's choices made, every path taken
        block(op)
    off = {op: [] for op in OPS}
    on = {op: [] for op in OPS}
    for _ in range(blocks):
        for op in OPS:
            off[op].append(block(op))
        torch.cuda.profiler.start()
        for op in OPS:
            on[op].append(block(op))
        torch.cuda.profiler.stop()
for op in OPS:
    print(json.dumps({"op": op.__name__, "variant": variant, "off_ns": round(statistics.median(off[op]), 1),
                      "on_ns": round(statistics.median(on[op]), 1)}))
