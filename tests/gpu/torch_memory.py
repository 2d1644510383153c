"""torch_memory.py MODE: a known pattern of PyTorch device allocations under one of the caching
allocator's back ends, for checking gpuscope's memory records against torch's own accounting.

MODE: default (segments from cudaMalloc), expandable (PYTORCH_CUDA_ALLOC_CONF
expandable_segments:True: physical memory from cuMemCreate mapped with cuMemMap), async
(backend:cudaMallocAsync: a stream-ordered memory pool).

Only byte tensors and copies between them: no library that allocates on its own (cuBLAS,
cuDNN). In order, MiB = 1,048,576 bytes: A 64 MiB, B 128 MiB, C 256 MiB, B freed, D 32 MiB;
a synchronize; then everything freed and the cache emptied. Prints one JSON line: torch's
peak reserved and allocated bytes (torch.cuda.max_memory_reserved/_allocated) and the reserved
bytes left at the end."""
import json
import os
import sys

CONF = {"default": None, "expandable": "expandable_segments:True", "async": "backend:cudaMallocAsync"}

if len(sys.argv) != 2 or sys.argv[1] not in CONF:
    sys.exit("usage: torch_memory.py default|expandable|async")
if CONF[sys.argv[1]]:
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = CONF[sys.argv[1]]

import torch  # noqa: E402

MiB = 1 << 20
dev = torch.device("cuda")
torch.cuda.init()
a = torch.ones(64 * MiB, dtype=torch.uint8, device=dev)
b = torch.ones(128 * MiB, dtype=torch.uint8, device=dev)
c = torch.ones(256 * MiB, dtype=torch.uint8, device=dev)
del b
d = torch.ones(32 * MiB, dtype=torch.uint8, device=dev)
torch.cuda.synchronize()
out = {
    "mode": sys.argv[1],
    "peak_reserved": torch.cuda.max_memory_reserved(),
    "peak_allocated": torch.cuda.max_memory_allocated(),
}
del a, c, d
torch.cuda.synchronize()
torch.cuda.empty_cache()
torch.cuda.synchronize()
out["end_reserved"] = torch.cuda.memory_reserved()
print(json.dumps(out))
