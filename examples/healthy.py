"""healthy.py: a GPU-bound baseline: nothing to fix but the kernels themselves.

An MLP of 8 layers of 4096 (batch 8192) runs inference in bf16 (autocast): large tensor-core
GEMMs back to back, launched far faster than they run, no sync inside the step, no copies.
Each step also applies exp to a 32M-element buffer (one elementwise kernel).
Variants used by gpuscope diff's tests: --slow-exp (the exp runs on twice the elements: one
kernel 2x slower), --extra-sync (a torch.cuda.synchronize() in the middle of the step)."""
import torch

from _harness import main, options

args = options(__doc__, [("slow-exp", "exp over twice the elements"),
                         ("extra-sync", "a device sync in the middle of the step")])
dev = "cuda"


def variant():
    torch.manual_seed(0)
    m = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU())
                              for _ in range(8)]).to(dev).eval()
    x = torch.randn(8192, 4096, device=dev)
    buf = torch.randn((2 if args.slow_exp else 1) << 25, device=dev)
    out = torch.empty_like(buf)

    @torch.no_grad()
    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = m[:4](x)
            if args.extra_sync:
                torch.cuda.synchronize()
            h = m[4:](h)
        torch.exp(buf, out=out)
        return h.sum()
    return step


main("healthy", args, variant, variant)
