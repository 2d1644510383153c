"""gpu_overhead.py: one process of the GPU overhead bench: time the steps of each workload,
alternating blocks without and with recording in the same process (off, on, off, on, ...), so
that the process-to-process spread of this machine (bimodal: some processes run 1.5x slower
than others throughout) cancels out.

usage: gpu_overhead.py VARIANT [WORKLOAD...]   (VARIANT: none | floor | gpuscope | torch)
For each workload: WARM warm-up steps, then BLOCKS pairs of blocks of STEPS timed steps;
prints one line per workload, {"workload", "variant", "off_ms", "on_ms"}: the medians of the
step times in the off and in the on blocks (for "loader", the median over blocks of LOADER_STEPS
steps of the mean step: its throughput). Recording is switched on with
torch.cuda.profiler.start()/stop() (cudaProfilerStart/Stop) for "floor" and "gpuscope" (the
caller runs the process under the floor's injection library or under `gpuscope profile
--capture-range=cudaProfilerApi`), and by entering torch.profiler (CPU + CUDA activities)
for "torch"; "none" calls cudaProfilerStart/Stop with no tool attached (the control: on and
off should agree).
Workloads (default all four):
  mlp       launch-bound: a 6-layer MLP of width 256, batch 1, 50 forward passes per step;
  item      a small matmul chain with a .item() host sync per iteration, 50 per step;
  resnet50  inference, batch 16, random weights;
  loader    DataLoader-bound training: 2 worker processes make 64 images of 3x64x64 per batch
            on the CPU (random + normalise + flip), pinned; a small CNN trains on them
            (forward, backward, SGD step) per step.
Environment: BENCH_STEPS=15 and BENCH_BLOCKS=4 change STEPS and BLOCKS (a longer capture)."""
import json
import os
import statistics
import sys
import time

import torch
import torchvision

variant = sys.argv[1]
workloads = sys.argv[2:] or ["mlp", "item", "resnet50", "loader"]
dev = "cuda"
torch.backends.cudnn.benchmark = True
WARM, LOADER_STEPS = 10, 80
STEPS, BLOCKS = int(os.environ.get("BENCH_STEPS", 15)), int(os.environ.get("BENCH_BLOCKS", 4))


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, 64, 64, generator=g)
        img = ((img - 0.5) / 0.25).flip(2)
        return img, i % 10


def make(workload):
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
        return step
    if workload == "item":
        a = torch.randn(128, 128, device=dev)

        def step():
            s = 0.0
            for _ in range(50):
                s += (a @ a).sum().item()
            return s
        return step
    if workload == "resnet50":
        model = torchvision.models.resnet50().to(dev).eval()
        x = torch.randn(16, 3, 224, 224, device=dev)

        def step():
            with torch.no_grad():
                model(x)
        return step
    if workload == "loader":
        loader = torch.utils.data.DataLoader(Images(), batch_size=64, num_workers=2,
                                             pin_memory=True, persistent_workers=True)
        it = iter(loader)
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = torch.nn.CrossEntropyLoss()

        def step():
            x, y = next(it)
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        return step
    sys.exit("unknown workload " + workload)


def timed(step, steps, per_block):
    out = []
    t0 = time.perf_counter()
    for _ in range(steps):
        t = time.perf_counter()
        step()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) * 1e3)
    if per_block:
        return [(time.perf_counter() - t0) * 1e3 / steps]
    return out


for w in workloads:
    step = make(w)
    for _ in range(WARM):
        step()
    torch.cuda.synchronize()
    # A DataLoader-bound step is bimodal (a batch already in the prefetch queue, or a wait on
    # the workers): its figure is the throughput, the mean step of a longer block.
    steps, per_block = (LOADER_STEPS, True) if w == "loader" else (STEPS, False)
    off, on = [], []
    for _ in range(BLOCKS):
        off += timed(step, steps, per_block)
        if variant == "torch":
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
                on += timed(step, steps, per_block)
        else:
            torch.cuda.profiler.start()
            on += timed(step, steps, per_block)
            torch.cuda.profiler.stop()
    print(json.dumps({"workload": w, "variant": variant, "off_ms": statistics.median(off),
                      "on_ms": statistics.median(on)}), flush=True)
