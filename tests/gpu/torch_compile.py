"""torch_compile.py: the fixes analyze recommends, as users apply them, recorded by gpuscope and
by torch.profiler: torch.compile (Triton kernels, launched through the driver API), CUDA graphs
by torch.compile(mode="reduce-overhead"), and bf16 autocast.

usage: torch_compile.py MODE gpuscope   -- run under `gpuscope profile`; the measured iterations
                                           are inside the NVTX range "measure", each in a range
                                           "iteration"
       torch_compile.py MODE torch OUT  -- torch.profiler (CPU+CUDA) over the same iterations;
                                           writes {"kernels": N, "kernel_ns": T} to OUT
MODE: compile (fp32, torch.compile's default mode), graphs (fp32,
torch.compile(mode="reduce-overhead"): each iteration one CUDA graph replay), amp (eager, under
torch.autocast("cuda", dtype=torch.bfloat16)), autotune (fp32,
torch.compile(mode="max-autotune-no-cudagraphs"): in the warm-up Inductor benchmarks Triton GEMM
templates against cuBLAS for each matmul and keeps the fastest).
The model is an MLP block of a transformer (LayerNorm, Linear 1024->4096, GELU, Linear
4096->1024, residual) on 512 rows, inference. The measured iterations:
tests/gpu/torch_measure.py."""
import sys

import torch

from torch_measure import Block, measure

mode, role = sys.argv[1], sys.argv[2]
torch.manual_seed(0)


model = torch.nn.Sequential(Block(), Block()).cuda().eval()
x = torch.randn(512, 1024, device="cuda")
if mode == "compile":
    run = torch.compile(model)
elif mode == "graphs":
    run = torch.compile(model, mode="reduce-overhead")
elif mode == "autotune":
    run = torch.compile(model, mode="max-autotune-no-cudagraphs")
elif mode == "amp":
    def run(x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return model(x)
else:
    sys.exit("unknown mode " + mode)

with torch.no_grad():
    for _ in range(5):  # warm-up: compilation, the graphs' recording, cuBLAS's choices
        run(x)
torch.cuda.synchronize()
measure(lambda: run(x), role, sys.argv[3] if len(sys.argv) > 3 else None)
if role == "gpuscope":
    print("done", mode, flush=True)
