"""fp32_gemm.py: fp32 GEMMs without tensor cores, and the fix.

Planted: an MLP of 8 layers of 4096 (batch 4096) runs inference in fp32 with PyTorch's default
matmul precision ("highest": no TF32), so cuBLAS runs its fp32 SIMT kernels and the tensor cores
idle.
Fixed (--fixed): torch.set_float32_matmul_precision("high") (the same as
torch.backends.cuda.matmul.allow_tf32 = True): TF32 tensor-core GEMMs. bf16 autocast would give
more."""
import torch

from _harness import main, options

args = options(__doc__)
dev = "cuda"


def variant(tf32):
    torch.manual_seed(0)
    m = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU())
                              for _ in range(8)]).to(dev).eval()
    x = torch.randn(4096, 4096, device=dev)

    @torch.no_grad()
    def step():
        torch.set_float32_matmul_precision("high" if tf32 else "highest")
        return m(x).sum()
    return step


main("fp32_gemm", args, lambda: variant(False), lambda: variant(True))
