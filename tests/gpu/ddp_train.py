"""ddp_train.py [STEPS] [--slow-rank R] [--kineto DIR]: the workload of tests/gpu/multi.sh, one
rank of a DistributedDataParallel job launched by torchrun (NCCL, one GPU per rank: LOCAL_RANK).
A 4-layer MLP of 4096 x 4096 on a batch of 256, SGD; each step an NVTX range "train_step"
(gpuscope analyze --step train_step). DDP all-reduces the gradients in buckets during backward
(ncclDevKernel_AllReduce_* kernels on NCCL's stream). With --slow-rank R, rank R runs 8 more
matmuls per step (a planted straggler: the other ranks wait for it inside the all-reduce). With
--kineto DIR, torch.profiler records steps 3-6 of every rank to DIR/rank<R>.pt.trace.json
(distributedInfo carries the rank). Prints one JSON line per rank: rank, steps, median step ms."""
import json, os, statistics, sys, time

import torch
import torch.distributed as dist

args = sys.argv[1:]
steps = int(args[0]) if args and args[0].isdigit() else 20
slow = int(args[args.index("--slow-rank") + 1]) if "--slow-rank" in args else -1
kdir = args[args.index("--kineto") + 1] if "--kineto" in args else None

dist.init_process_group("nccl")
rank, local = dist.get_rank(), int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(4)]).to(dev)
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
x = torch.randn(256, 4096, device=dev)
extra = torch.randn(4096, 4096, device=dev)

prof = None
if kdir:
    os.makedirs(kdir, exist_ok=True)
    prof = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
        schedule=torch.profiler.schedule(wait=1, warmup=2, active=4, repeat=1),
        on_trace_ready=lambda p: p.export_chrome_trace(os.path.join(kdir, "rank%d.pt.trace.json" % rank)))
    prof.start()
times = []
for i in range(steps):
    torch.cuda.synchronize()
    t = time.perf_counter()
    torch.cuda.nvtx.range_push("train_step")
    opt.zero_grad(set_to_none=True)
    loss = ddp(x).square().mean()
    if rank == slow:
        y = extra
        for _ in range(8):
            y = torch.mm(y, extra)
        loss = loss + 0 * y.sum()
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    times.append((time.perf_counter() - t) * 1e3)
    if prof:
        prof.step()
if prof:
    prof.stop()
print(json.dumps({"rank": rank, "steps": steps, "median_step_ms": statistics.median(times[2:])}))
dist.destroy_process_group()
