"""recompile.py: a torch.compile'd inference loop whose compiled code recompiles in the loop, as
users' loops do, for analyze's torch-recompiles. Each step is an NVTX range "step" (--step step).

usage: recompile.py MODE [STEPS]
MODE: shapes -- the batch's sequence length changes at step 6 (128 -> 160 rows): Dynamo
                recompiles once, then with dynamic shapes (torch.compile's default dynamic=None),
                and the later lengths (192, 224) reuse that code
      scalar -- a Python float that changes every step is passed to the compiled function:
                its first change fails a guard and Dynamo recompiles once (torch 2.x on the
                GPU machine then treats the float as dynamic: no more recompiles)
      static -- the same shapes and values each step: compiled once, in the first step
      graphbreak -- as static, with torch._dynamo.graph_break() between the two blocks: each
                step runs the first graph, the break, and the second block's graph in a resume
                frame (profiled with --pytorch nvtx, for analyze's torch-graph-breaks)
The model: the MLP block of tests/gpu/torch_measure.py twice, fp32, inference. Prints the steps
in which Dynamo compiled a frame, by its own counter: the truth tests/gpu/recompile.sh checks
analyze against."""
import sys

import torch

from torch_measure import Block

mode = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 16
torch.manual_seed(0)
model = torch.nn.Sequential(Block(), Block()).cuda().eval()


def fwd(x, scale):
    if mode == "graphbreak":
        y = model[0](x)
        torch._dynamo.graph_break()
        return model[1](y) * scale
    return model(x) * scale


def dynamo_count(group, key=None):
    """Dynamo's own counters (the truth the test checks): one, or a group's sum; None where they
    moved"""
    try:
        from torch._dynamo.utils import counters
        return counters[group][key] if key else sum(counters[group].values())
    except Exception:
        return None


def compiled_frames():
    """Dynamo's count of frames it compiled"""
    return dynamo_count("frames", "ok")


run = torch.compile(fwd)
compiled_in = []  # the steps in which Dynamo compiled a frame
with torch.no_grad():
    for i in range(steps):
        before = compiled_frames()
        rows = 128 if mode != "shapes" or i < 6 else 160 + 32 * ((i - 6) % 3)
        scale = 0.5 + i if mode == "scalar" else 0.5
        x = torch.randn(rows, 1024, device="cuda")
        torch.cuda.nvtx.range_push("step")
        y = run(x, scale)
        y.sum().item()
        torch.cuda.nvtx.range_pop()
        after = compiled_frames()
        if before is not None and after is not None and after > before:
            compiled_in.append(i)
print("compiled in steps", compiled_in if compiled_frames() is not None else None, flush=True)
print("graph breaks", dynamo_count("graph_break"), flush=True)
print("done", mode, steps, flush=True)
