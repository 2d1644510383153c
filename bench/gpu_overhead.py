"""gpu_overhead.py: one process of the GPU overhead bench: time a workload's steps.

usage: gpu_overhead.py WORKLOAD VARIANT   (VARIANT: none | gpuscope | torch)
Runs warm-up steps, then STEPS timed steps, and prints {"workload", "variant", "step_ms":
median}. "gpuscope" means the process runs under `gpuscope profile` (the caller does that);
"torch" wraps the timed steps in torch.profiler (CPU + CUDA activities).
Workloads: mlp (launch-bound: a 6-layer MLP of width 256, batch 1, 50 forward passes per
step), item (a small matmul chain with a .item() host sync per iteration, 50 per step),
resnet50 (inference, batch 16, random weights)."""
import json
import statistics
import sys
import time

import torch
import torchvision

workload, variant = sys.argv[1], sys.argv[2]
dev = "cuda"
torch.backends.cudnn.benchmark = True

if workload == "mlp":
    layers = []
    for _ in range(6):
        layers += [torch.nn.Linear(256, 256), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).to(dev).eval()
    x = torch.randn(1, 256, device=dev)

    def step():
        with torch.no_grad():
            for _ in range(50):
                model(x)
elif workload == "item":
    a = torch.randn(128, 128, device=dev)

    def step():
        s = 0.0
        for _ in range(50):
            s += (a @ a).sum().item()
        return s
elif workload == "resnet50":
    model = torchvision.models.resnet50().to(dev).eval()
    x = torch.randn(16, 3, 224, 224, device=dev)

    def step():
        with torch.no_grad():
            model(x)
else:
    sys.exit("unknown workload " + workload)

WARM, STEPS = 10, 30
for _ in range(WARM):
    step()
torch.cuda.synchronize()


def timed():
    out = []
    for _ in range(STEPS):
        t = time.perf_counter()
        step()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) * 1e3)
    return out


if variant == "torch":
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        times = timed()
else:
    times = timed()
print(json.dumps({"workload": workload, "variant": variant, "step_ms": statistics.median(times)}))
