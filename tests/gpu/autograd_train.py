"""autograd_train.py [STEPS]: an eager PyTorch training loop whose backward pass runs on
autograd's own thread (pt_autograd_0), as every CUDA training step does: a two-layer
transformer language model (bf16 autocast, scaled_dot_product_attention, fused AdamW) on random
tokens, each step in an NVTX range "step". Small enough that the host, not the GPU, sets the step
time: during forward the main thread launches the kernels from Python; during backward it waits
in loss.backward() (off CPU) while pt_autograd_0 launches them from C++. What gpuscope analyze
must say of the GPU's idle time (tests/gpu/autograd.sh; the trace is the CI fixture
tests/data/autograd_train.gst). Prints the last loss."""
import sys

import torch

V, D, L, H, T, B = 4096, 256, 2, 4, 128, 8


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = torch.nn.LayerNorm(D), torch.nn.LayerNorm(D)
        self.qkv, self.o = torch.nn.Linear(D, 3 * D), torch.nn.Linear(D, D)
        self.up, self.down = torch.nn.Linear(D, 4 * D), torch.nn.Linear(4 * D, D)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, H, D // H).transpose(1, 3).unbind(2)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, D))
        return x + self.down(torch.nn.functional.gelu(self.up(self.n2(x))))


class LM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(V, D)
        self.blocks = torch.nn.Sequential(*[Block() for _ in range(L)])
        self.head = torch.nn.Linear(D, V)

    def forward(self, x):
        return self.head(self.blocks(self.emb(x)))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    torch.manual_seed(0)
    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    data = torch.randint(0, V, (steps, B, T + 1)).cuda()
    for i in range(steps):
        torch.cuda.nvtx.range_push("step")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(data[i, :, :-1])
        loss = torch.nn.functional.cross_entropy(logits.float().view(-1, V), data[i, :, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.nvtx.range_pop()
    print("loss %.4f" % loss.item())


if __name__ == "__main__":
    main()
