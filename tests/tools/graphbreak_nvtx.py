"""graphbreak_nvtx.py: torch.compile with a graph break (tests/gpu/torch_measure.py's
compiled_graph_break, 256 wide, on the CPU), 10 steps, each in an NVTX range "step", for
`gpuscope profile --pytorch nvtx` on a machine without a GPU: the fixture
tests/data/graphbreak_nvtx.gst. Prints Dynamo's own count of graph breaks."""
import os
import sys

import torch
from torch._dynamo.utils import counters

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from torch_measure import compiled_graph_break  # noqa: E402

torch.manual_seed(0)
one = compiled_graph_break("cpu", 256)
for i in range(10):
    torch.cuda.nvtx.range_push("step")
    one()
    torch.cuda.nvtx.range_pop()
print("graph breaks", sum(counters["graph_break"].values()), flush=True)
