"""kineto_configs.py: real PyTorch profiler traces in configurations users run and the
key_averages() fixtures of kineto_traces.py lack, each written by prof.export_chrome_trace (not
tensorboard_trace_handler). They are read by the second readings (tests/cases/kineto_ref.py,
analyze_check.py, host_ranges_ref.py), not against key_averages(). Run by tests/gpu/run.sh's
kineto section; the traces are committed gzipped as tests/data/kineto/CASE.json.gz (recorded on
an H100 by this script while it was named probe/traces.py: the Python function names of
amp_all_options, which has with_stack, say so).

usage: kineto_configs.py OUT_DIR
Cases (a transformer MLP block, LayerNorm, Linear 1024->4096, GELU, Linear 4096->1024, twice, on
512 rows; 3 warm-up iterations, then schedule(wait=1, warmup=1, active=3) over 5, unless said):
  amp_all_options     bf16 autocast training, AdamW; record_shapes, profile_memory, with_stack,
                      with_flops, with_modules all on
  compiled_train      torch.compile'd training (Triton kernels launched through the driver API)
  compiled_graphs     torch.compile(mode="reduce-overhead") inference: CUDA graph replays
  ddp_one_rank        DistributedDataParallel over NCCL with one rank (nccl:all_reduce ranges)
  two_streams_repeat  two matmuls on two streams joined by wait_stream, 10 iterations, no
                      schedule, acc_events=True: one step, the whole run
"""
import os, sys, torch, torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, schedule

from torch_measure import Block
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = "cuda"
torch.manual_seed(0)

def run(name, one, n=5, sched=True, **kw):
    for _ in range(3):
        one()
    torch.cuda.synchronize()
    path = os.path.join(out, name + ".json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3) if sched else None, **kw) as p:
        for _ in range(n):
            one()
            p.step()
    torch.cuda.synchronize()
    p.export_chrome_trace(path)
    print("wrote", name, os.path.getsize(path), flush=True)

model = torch.nn.Sequential(Block(), Block()).to(dev)
x = torch.randn(512, 1024, device=dev)
opt = torch.optim.AdamW(model.parameters())
def train():
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss.item()
run("amp_all_options", train, record_shapes=True, profile_memory=True, with_stack=True, with_flops=True, with_modules=True)

cm = torch.compile(model)
def ctrain():
    loss = cm(x).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
run("compiled_train", ctrain)

gm = torch.compile(model.eval(), mode="reduce-overhead")
def ginf():
    with torch.no_grad():
        return gm(x).sum().item()
run("compiled_graphs", ginf)

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1)
ddp = torch.nn.parallel.DistributedDataParallel(Block().to(dev), device_ids=[0])
dopt = torch.optim.SGD(ddp.parameters(), lr=0.01)
def dtrain():
    loss = ddp(x).pow(2).mean()
    dopt.zero_grad()
    loss.backward()
    dopt.step()
    torch.cuda.synchronize()
run("ddp_one_rank", dtrain)
dist.destroy_process_group()

s2 = torch.cuda.Stream()
def streams():
    a = x @ x.T
    with torch.cuda.stream(s2):
        b = (x * 2) @ x.T
    torch.cuda.current_stream().wait_stream(s2)
    return (a + b).sum().item()
run("two_streams_repeat", streams, n=10, sched=False, acc_events=True)
