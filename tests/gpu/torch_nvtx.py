"""torch_nvtx.py: PyTorch's NVTX paths, profiled by gpuscope on a GPU machine.

torch.cuda.nvtx.range_push/pop, range_start/end, mark, and torch.autograd.profiler.emit_nvtx
(one range per aten op) must all reach gpuscope's collector. Prints what it did as JSON on the
last line so tests/gpu/run.sh can compare it with `gpuscope stats`.
"""
import json
import torch

STEPS = 5
x = torch.randn(256, 256, device="cuda")
w = torch.randn(256, 256, device="cuda", requires_grad=True)
torch.cuda.synchronize()

for step in range(STEPS):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("forward")
    y = (x @ w).relu().sum()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("backward")
    y.backward()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.mark("step_done")
    torch.cuda.nvtx.range_pop()
rid = torch.cuda.nvtx.range_start("start_end")
torch.cuda.synchronize()
torch.cuda.nvtx.range_end(rid)

with torch.autograd.profiler.emit_nvtx():
    y = (x @ w).sum()
    y.backward()
torch.cuda.synchronize()
print(json.dumps({"step": STEPS, "forward": STEPS, "backward": STEPS, "start_end": 1}))
