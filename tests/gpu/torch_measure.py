"""torch_measure.py: the measured iterations of tests/gpu/torch_cuda.py and torch_compile.py,
recorded by gpuscope or by torch.profiler; and Block, the transformer MLP block of
torch_compile.py and kineto_configs.py.

measure(step, role, out): runs step() ITERS times under torch.no_grad(), then synchronizes.
role "gpuscope" (the script runs under `gpuscope profile`): inside the NVTX range "measure",
each iteration in a range "iteration". Role "torch": under torch.profiler (CPU+CUDA), and
writes {"kernels": N, "kernel_ns": T, "names": [...]} to out, from the Chrome trace
torch.profiler exports (out + ".trace.json"), whose GPU kernels are the events of category
"kernel".

compiled_graph_break(device, d) and compiled_recompile(device, d): one() of the torch.compile
cases of kineto_traces.py (on the GPU) and tests/tools/kineto_compile_cpu.py (on the CPU)."""
import json

import torch

ITERS = 3


class Block(torch.nn.Module):
    """a transformer's MLP block: LayerNorm, Linear d->4d, GELU, Linear 4d->d, residual"""

    def __init__(self, d=1024):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def _iterations(step, nvtx):
    with torch.no_grad():
        for _ in range(ITERS):
            if nvtx:
                torch.cuda.nvtx.range_push("iteration")
            step()
            if nvtx:
                torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


def measure(step, role, out=None):
    if role == "gpuscope":
        torch.cuda.nvtx.range_push("measure")
        _iterations(step, True)
        torch.cuda.nvtx.range_pop()
        return
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        _iterations(step, False)
    prof.export_chrome_trace(out + ".trace.json")
    events = json.load(open(out + ".trace.json"))["traceEvents"]
    ks = [e for e in events if e.get("cat") == "kernel"]
    json.dump({"kernels": len(ks), "kernel_ns": int(sum(float(e["dur"]) for e in ks) * 1000),
               "names": sorted({e["name"] for e in ks})}, open(out, "w"))


def compiled_graph_break(device, d=1024):
    """one() of a torch.compile'd function of two Blocks with torch._dynamo.graph_break()
    between them: every call runs the second block's graph in a resume frame"""
    first, second = Block(d).to(device).eval(), Block(d).to(device).eval()

    def f(x):
        y = first(x)
        torch._dynamo.graph_break()
        return second(y)
    run = torch.compile(f)
    x = torch.randn(128, d, device=device)

    def one():
        with torch.no_grad():
            run(x).sum().item()
    return one


def compiled_recompile(device, d=1024):
    """one() of two Blocks compiled as one, whose batch grows from 128 to 160 rows at the 7th
    call: with 3 calls before a profile of schedule wait 1, warmup 1, active 3, the second
    active step, where Dynamo compiles again"""
    model = torch.nn.Sequential(Block(d), Block(d)).to(device).eval()
    run = torch.compile(lambda x: model(x))
    calls = [0]

    def one():
        rows = 128 if calls[0] < 6 else 160
        calls[0] += 1
        with torch.no_grad():
            run(torch.randn(rows, d, device=device)).sum().item()
    return one
