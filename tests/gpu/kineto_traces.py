"""kineto_traces.py: make small real PyTorch profiler traces on the GPU machine, as users make
them, and write what torch itself says about them, for gpuscope's importer fixtures
(tests/data/kineto/). Run by tests/gpu/run.sh; the traces are committed compressed.

usage: kineto_traces.py OUT_DIR [CASE...]   (all cases by default)
For each case writes OUT_DIR/CASE.pt.trace.json.gz (tensorboard_trace_handler, gzip) and
OUT_DIR/CASE.expect.json: torch's version and, from prof.key_averages(), every GPU-side row
(kernels, memcpy, memset): name, count and total device time in ns.
Cases:
  infer       ResNet-18 batch 8 inference under a schedule (ProfilerStep#N), record_shapes
  train       a small CNN trained on a DataLoader with 2 workers, pin_memory, profile_memory
  graphs      an MLP captured into a CUDA graph and replayed (kernels share one correlation)
  stack       an MLP trained with with_stack=True (python_function events)
  stack_sync  the same with loss.item() in train_step, with_stack=True: the host waits for the
              GPU in a cudaStreamSynchronize each step, under train_step's python_function
  cold        ResNet-18 batch 8 inference profiled from its first forward, no schedule: the
              first step's kernels are loaded by the driver on first use (CUPTI's overhead
              records); run first, before any other case has used those kernels
  recompile   a torch.compile'd MLP (tests/gpu/recompile.py's model) whose batch grows from 128
              to 160 rows in the second active step: Dynamo compiles again inside that step
              (expect.json's "dynamo_compiled_in": the active steps, from 0, in which Dynamo's
              own counter of compiled frames moved)
  graphbreak  a torch.compile'd function of two MLP blocks with torch._dynamo.graph_break()
              between them, compiled before the profile: two compiled regions a step
              (expect.json's "dynamo_graph_breaks": Dynamo's own count of graph breaks)
"""
import glob
import json
import os
import shutil
import sys

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = "cuda"
torch.manual_seed(0)


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.rand(3, 32, 32, generator=g), i % 10


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                               torch.nn.Linear(512, 10)).to(dev)


def case_infer(step):
    model = torchvision.models.resnet18().to(dev).eval()
    x = torch.randn(8, 3, 224, 224, device=dev)

    def one():
        with torch.no_grad():
            model(x)
    return one, dict(record_shapes=True)


def case_train(step):
    it = iter(torch.utils.data.DataLoader(Images(), batch_size=32, num_workers=2,
                                          pin_memory=True))
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(16, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def one():
        x, y = next(it)
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()
    return one, dict(profile_memory=True, record_shapes=True)


def case_graphs(step):
    model = mlp().eval()
    x = torch.randn(64, 256, device=dev)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.no_grad():
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        y = model(x)

    def one():
        with torch.profiler.record_function("replay"):
            g.replay()
        y.sum().item()
    return one, dict()


def mlp_training(rows, read_loss):
    """an MLP trained with Adam on `rows` rows; read_loss: each step returns loss.item(), a
    cudaStreamSynchronize that waits for the step's kernels"""
    model = mlp()
    opt = torch.optim.Adam(model.parameters())
    x = torch.randn(rows, 256, device=dev)
    t = torch.randint(0, 10, (rows,), device=dev)

    def train_step():
        loss = torch.nn.functional.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item() if read_loss else None
    return train_step


def case_stack(step):
    return mlp_training(64, False), dict(with_stack=True)


def case_stack_sync(step):
    return mlp_training(4096, True), dict(with_stack=True)


def case_recompile(step):
    from torch_measure import compiled_recompile
    return compiled_recompile(dev), dict()


def case_graphbreak(step):
    from torch_measure import compiled_graph_break
    return compiled_graph_break(dev), dict()


def dynamo_counters():
    """Dynamo's own counters (torch._dynamo.utils.counters); None before torch._dynamo is used
    or where they moved"""
    if "torch._dynamo" not in sys.modules:
        return None
    try:
        from torch._dynamo.utils import counters
        return counters
    except Exception:
        return None


def compiled_frames():
    """Dynamo's own count of the frames it compiled; None without its counters"""
    c = dynamo_counters()
    return None if c is None else c["frames"]["ok"]


def graph_breaks():
    """Dynamo's own count of graph breaks (its counters, by reason); None without its counters"""
    c = dynamo_counters()
    return None if c is None else sum(c["graph_break"].values())


def gpu_rows(prof):
    rows = []
    for e in prof.key_averages():
        dt = getattr(e, "device_type", None)
        if dt is None or "CUDA" not in str(dt):
            continue
        total = getattr(e, "device_time_total", None)
        if total is None:
            total = e.cuda_time_total
        rows.append({"name": e.key, "count": e.count, "total_ns": round(total * 1000)})
    return rows


def case_cold(step):
    one, _ = case_infer(step)
    return one, dict(cold=True)


cases = [("cold", case_cold), ("infer", case_infer), ("train", case_train), ("graphs", case_graphs),
         ("stack", case_stack), ("stack_sync", case_stack_sync), ("recompile", case_recompile),
         ("graphbreak", case_graphbreak)]
for name, make in cases:
    if sys.argv[2:] and name not in sys.argv[2:]:
        continue
    one, opts = make(0)
    cold = opts.pop("cold", False)
    if not cold:
        for _ in range(3):
            one()
    torch.cuda.synchronize()
    tmp = os.path.join(out, "tmp_" + name)
    shutil.rmtree(tmp, ignore_errors=True)
    # cold: every step recorded, the first included (no schedule: no warm-up steps)
    sched = None if cold else schedule(wait=1, warmup=1, active=3, repeat=1)
    compiled_in = []  # the active steps (from 0) in which Dynamo compiled a frame
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sched,
                 on_trace_ready=tensorboard_trace_handler(tmp, worker_name=name, use_gzip=True),
                 **opts) as prof:
        for i in range(3 if cold else 5):
            before = compiled_frames()
            one()
            after = compiled_frames()
            if after is not None and after != before:
                compiled_in.append(i - (0 if cold else 2))
            prof.step()
    torch.cuda.synchronize()
    trace = glob.glob(os.path.join(tmp, "*.pt.trace.json.gz"))[0]
    shutil.move(trace, os.path.join(out, name + ".pt.trace.json.gz"))
    shutil.rmtree(tmp)
    with open(os.path.join(out, name + ".expect.json"), "w") as f:
        json.dump({"torch": torch.__version__, "case": name, "steps": 1 if cold else 3,
                   "gpu": gpu_rows(prof), "dynamo_compiled_in": compiled_in,
                   "dynamo_graph_breaks": graph_breaks()},
                  f, indent=1)
    print(name, "rows", len(gpu_rows(prof)), flush=True)
