"""torch_second_user.py: torch.profiler (CPU+CUDA) inside a process gpuscope already records.
CUDA allows one CUPTI user: gpuscope keeps CUPTI, refuses Kineto's takeover, warns once. The
script must run to the end unchanged. Prints "kernels_seen_by_torch N", "adds 20", "done"."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.zeros(1 << 16, device="cuda")
x.add_(1)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        x.add_(1)
    torch.cuda.synchronize()
n = sum(1 for e in prof.events() if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA)
print("kernels_seen_by_torch", n)
print("adds", int(x[0].item()) - 1)
print("done")
