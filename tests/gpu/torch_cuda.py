"""torch_cuda.py: ResNet-50, batch 16, inference, as recorded by gpuscope and by torch.profiler.

usage: torch_cuda.py gpuscope   -- run under `gpuscope profile`; the measured iterations are
                                   inside the NVTX range "measure", each in a range "iteration"
       torch_cuda.py torch OUT  -- run torch.profiler (CPU+CUDA) over the same iterations and
                                   write {"kernels": N, "kernel_ns": T} to OUT
Random weights: no download is needed, the kernels are the same."""
import json
import sys

import torch
import torchvision

ITERS = 3
model = torchvision.models.resnet50().cuda().eval()
x = torch.randn(16, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(3):  # warm-up: cuDNN autotuning, lazy module loading
        model(x)
torch.cuda.synchronize()


def measured(nvtx=False):
    with torch.no_grad():
        for _ in range(ITERS):
            if nvtx:
                torch.cuda.nvtx.range_push("iteration")
            model(x)
            if nvtx:
                torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


if sys.argv[1] == "gpuscope":
    torch.cuda.nvtx.range_push("measure")
    measured(nvtx=True)
    torch.cuda.nvtx.range_pop()
else:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        measured()
    # the Chrome trace torch.profiler writes: GPU kernels are the events of category "kernel"
    prof.export_chrome_trace(sys.argv[2] + ".trace.json")
    events = json.load(open(sys.argv[2] + ".trace.json"))["traceEvents"]
    ks = [e for e in events if e.get("cat") == "kernel"]
    json.dump({"kernels": len(ks), "kernel_ns": int(sum(float(e["dur"]) for e in ks) * 1000)},
              open(sys.argv[2], "w"))
