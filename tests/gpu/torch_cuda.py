"""torch_cuda.py: ResNet-50, batch 16, inference, as recorded by gpuscope and by torch.profiler.

usage: torch_cuda.py gpuscope   -- run under `gpuscope profile`; the measured iterations are
                                   inside the NVTX range "measure", each in a range "iteration"
       torch_cuda.py torch OUT  -- run torch.profiler (CPU+CUDA) over the same iterations and
                                   write {"kernels": N, "kernel_ns": T} to OUT
(tests/gpu/torch_measure.py). Random weights: no download is needed, the kernels are the same."""
import sys

import torch
import torchvision

from torch_measure import measure

model = torchvision.models.resnet50().cuda().eval()
x = torch.randn(16, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(3):  # warm-up: cuDNN autotuning, lazy module loading
        model(x)
torch.cuda.synchronize()
measure(lambda: model(x), sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
