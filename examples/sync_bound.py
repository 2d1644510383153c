"""sync_bound.py: a training step that synchronizes with the GPU ten times, and its fix.

Planted: an MLP (8 layers of 2048, batch 1024, TF32) trains with SGD; the step logs the mean
activation of each layer with .item() (8 host syncs in the forward pass), reads the loss with
.item() and checks the gradient norm with .item() before the optimizer step. Each .item() waits
for the GPU to drain, and the GPU then idles until Python launches the next kernel.
Fixed (--fixed): the statistics stay on the GPU (torch.stack, read once after the run), the
gradient clipping uses clip_grad_norm_ without reading the norm: no sync inside the step."""
import torch

from _harness import main, options

args = options(__doc__)
dev = "cuda"
torch.set_float32_matmul_precision("high")  # TF32 GEMMs


def build():
    torch.manual_seed(0)
    layers = [torch.nn.Linear(2048, 2048) for _ in range(8)]
    m = torch.nn.ModuleList(layers).to(dev)
    opt = torch.optim.SGD(m.parameters(), lr=1e-4)
    x = torch.randn(1024, 2048, device=dev)
    t = torch.randn(1024, 2048, device=dev)
    return m, opt, x, t


def planted():
    m, opt, x, t = build()
    log = []

    def step():
        h = x
        for layer in m:
            h = torch.relu(layer(h))
            log.append(h.mean().item())
        loss = torch.nn.functional.mse_loss(h, t)
        log.append(loss.item())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(m.parameters(), 1e9)
        if norm.item() < 1e9:
            opt.step()
        del log[:-100]
    return step


def fixed():
    m, opt, x, t = build()
    log = []

    def step():
        h = x
        means = []
        for layer in m:
            h = torch.relu(layer(h))
            means.append(h.detach().mean())
        loss = torch.nn.functional.mse_loss(h, t)
        log.append(torch.stack(means + [loss.detach()]))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1e9)
        opt.step()
        del log[:-100]
    return step


main("sync_bound", args, planted, fixed)
