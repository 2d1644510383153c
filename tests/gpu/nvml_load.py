"""nvml_load.py [RUN]: the workload of tests/gpu/nvml.sh. CUDA is set up and 16 GiB of tensors
allocated (large against the few hundred MiB that NVML's and nvidia-smi's "used" may count
differently: the driver's reserved memory), then the GPU idles for 2 s, then fp32 matmuls of 8192 x 8192 run for RUN seconds
(default 4) in steps of 10 (synchronized), then nvidia-smi is asked how much memory is used
while the tensors still live. Prints one JSON line: the CLOCK_MONOTONIC ns (the trace's clock:
Python's time.monotonic_ns reads it) of the idle and busy windows, the tensors' bytes, what
nvidia-smi said (MiB), and the steps' times (ms)."""
import json, subprocess, sys, time

import torch

run = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
n = 8192
dev = torch.device("cuda:0")
a = torch.randn(n, n, device=dev)
b = torch.randn(n, n, device=dev)
c = torch.empty(n, n, device=dev)
pad = torch.empty((16 << 30) // 4 - 3 * n * n, device=dev)  # 16 GiB in all
torch.cuda.synchronize()
tensor_bytes = (a.numel() + b.numel() + c.numel() + pad.numel()) * 4
idle0 = time.monotonic_ns()
time.sleep(2.0)
idle1 = time.monotonic_ns()
steps = []
run0 = time.monotonic_ns()
while time.monotonic_ns() - run0 < run * 1e9:
    t = time.perf_counter()
    for _ in range(10):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    steps.append((time.perf_counter() - t) * 1e3)
run1 = time.monotonic_ns()
smi = subprocess.run(["nvidia-smi", "--id=0", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                     capture_output=True, text=True).stdout.strip()
print(json.dumps({"idle0": idle0, "idle1": idle1, "run0": run0, "run1": run1,
                  "tensor_bytes": tensor_bytes, "smi_mib": float(smi or 0), "steps_ms": steps}))
