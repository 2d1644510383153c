"""launch_bound.py: a host-launch-bound inference loop, and CUDA graphs as its fix.

Planted: each step runs 5 forward passes (as 5 decoding steps of a generator do) of a small
MLP (16 layers of width 512, GELU, batch 16) in eager mode: about 160 kernels of 2-4 us each,
every one launched from Python, so the GPU waits on the host between kernels.
Fixed (--fixed): the forward pass is captured once in a CUDA graph and replayed 5 times a step:
5 launches instead of 160. (torch.compile(mode="reduce-overhead") does the same for you.)"""
import torch

from _harness import main, options

args = options(__doc__)
dev = "cuda"
torch.set_float32_matmul_precision("high")  # TF32 GEMMs


def model():
    torch.manual_seed(0)
    layers = []
    for _ in range(16):
        layers += [torch.nn.Linear(512, 512), torch.nn.GELU()]
    return torch.nn.Sequential(*layers).to(dev).eval()


def planted():
    m, x = model(), torch.randn(16, 512, device=dev)

    @torch.no_grad()
    def step():
        y = x
        for _ in range(5):
            y = m(x)
        return y
    return step


def fixed():
    m, x = model(), torch.randn(16, 512, device=dev)
    g = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad():
        with torch.cuda.stream(side):
            for _ in range(3):
                m(x)
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):
            y = m(x)

    def step():
        for _ in range(5):
            g.replay()
        return y
    return step


main("launch_bound", args, planted, fixed)
