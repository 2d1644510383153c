"""kineto_compile_cpu.py: real PyTorch profiler traces of torch.compile'd code on the CPU alone
(no GPU needed: the dev machine's pip torch), for tests/data/kineto/: the host side of
torch.compile as the profiler records it, "Torch-Compiled Region: F/C", "## Call CompiledFxGraph
KEY ##" and the "KEY (dynamo_timed)" ranges of its compiling.

usage: kineto_compile_cpu.py OUT_DIR
Writes OUT_DIR/CASE.pt.trace.json.gz (tensorboard_trace_handler, gzip; CPU activities, a
schedule of wait 1, warmup 1, active 3) and OUT_DIR/CASE.expect.json: torch's version, no GPU
rows, and Dynamo's own counters over the active steps: "dynamo_compiled_in" (the active steps, from 0, in
which it compiled a frame) and "dynamo_graph_breaks" (its count of graph breaks, by the calls
before and in the profile). Cases:
  cpu_graphbreak  two MLP blocks with torch._dynamo.graph_break() between them, compiled
                  before the profile: the second block runs in a resume frame, a compiled
                  region inside the first's, every step
  cpu_recompile   the two blocks compiled as one; the batch grows from 128 to 160 rows in the
                  second active step, where Dynamo compiles again
"""
import glob
import json
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


class Block(torch.nn.Module):
    """a transformer's MLP block: LayerNorm, Linear d->4d, GELU, Linear 4d->d, residual"""

    def __init__(self, d=256):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def case_graphbreak():
    first, second = Block().eval(), Block().eval()

    def f(x):
        y = first(x)
        torch._dynamo.graph_break()
        return second(y)
    run = torch.compile(f)
    x = torch.randn(128, 256)

    def one():
        with torch.no_grad():
            run(x).sum().item()
    return one


def case_recompile():
    model = torch.nn.Sequential(Block(), Block()).eval()
    run = torch.compile(lambda x: model(x))
    calls = [0]

    def one():
        # 3 calls before the profile, its wait and warm-up steps, then active steps 0, 1, 2:
        # the 7th call (active step 1) is the first with 160 rows
        rows = 128 if calls[0] < 6 else 160
        calls[0] += 1
        with torch.no_grad():
            run(torch.randn(rows, 256)).sum().item()
    return one


from torch._dynamo.utils import counters  # noqa: E402

for name, make in (("cpu_graphbreak", case_graphbreak), ("cpu_recompile", case_recompile)):
    counters.clear()
    torch._dynamo.reset()
    one = make()
    for _ in range(3):
        one()
    tmp = os.path.join(out, "tmp_" + name)
    shutil.rmtree(tmp, ignore_errors=True)
    compiled_in = []
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(tmp, worker_name=name, use_gzip=True)) as prof:
        for i in range(5):
            before = counters["frames"]["ok"]
            one()
            if counters["frames"]["ok"] != before:
                compiled_in.append(i - 2)
            prof.step()
    trace = glob.glob(os.path.join(tmp, "*.pt.trace.json.gz"))[0]
    shutil.move(trace, os.path.join(out, name + ".pt.trace.json.gz"))
    shutil.rmtree(tmp)
    with open(os.path.join(out, name + ".expect.json"), "w") as f:
        # "gpu": key_averages()'s GPU rows as tests/gpu/kineto_traces.py writes them, none with
        # CPU activities alone (tests/gpu/check_kineto.py reads every fixture's)
        json.dump({"torch": torch.__version__, "case": name, "steps": 3, "gpu": [],
                   "dynamo_compiled_in": compiled_in,
                   "dynamo_graph_breaks": sum(counters["graph_break"].values())}, f, indent=1)
    print("wrote", name, compiled_in, sum(counters["graph_break"].values()), flush=True)
