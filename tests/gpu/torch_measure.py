"""torch_measure.py: the measured iterations of tests/gpu/torch_cuda.py and torch_compile.py,
recorded by gpuscope or by torch.profiler; and Block, the transformer MLP block of
torch_compile.py and kineto_configs.py.

measure(step, role, out): runs step() ITERS times under torch.no_grad(), then synchronizes.
role "gpuscope" (the script runs under `gpuscope profile`): inside the NVTX range "measure",
each iteration in a range "iteration". Role "torch": under torch.profiler (CPU+CUDA), and
writes {"kernels": N, "kernel_ns": T, "names": [...]} to out, from the Chrome trace
torch.profiler exports (out + ".trace.json"), whose GPU kernels are the events of category
"kernel"."""
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
