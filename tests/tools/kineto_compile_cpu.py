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
  cpu_graphbreak  two MLP blocks (tests/gpu/torch_measure.py's, 256 wide) with
                  torch._dynamo.graph_break() between them, compiled before the profile: the
                  second block runs in a resume frame, a compiled region inside the first's,
                  every step
  cpu_recompile   the two blocks compiled as one; the batch grows from 128 to 160 rows in the
                  second active step, where Dynamo compiles again
"""
import glob
import json
import os
import shutil
import sys

import torch
from torch._dynamo.utils import counters
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from torch_measure import compiled_graph_break, compiled_recompile  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)

for name, make in (("cpu_graphbreak", compiled_graph_break), ("cpu_recompile", compiled_recompile)):
    counters.clear()
    torch._dynamo.reset()
    one = make("cpu", 256)
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
