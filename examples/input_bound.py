"""input_bound.py: a training loop that waits on its DataLoader, and its fix.

Planted: a small CNN (TF32, batch 64 of 3x128x128) trains on images that the Dataset makes on
the CPU (random image, a 5x5 blur, normalisation, a random flip: about 0.2 ms each); the
DataLoader has num_workers=0, so every batch is made in the training process while the GPU
waits. The fetch is inside an NVTX range named "dataloader" (any range whose name contains
DataLoader counts as data loading for gpuscope analyze; PyTorch's profiler names its own
`enumerate(DataLoader)#...__next__`).
Fixed (--fixed): num_workers=12, pin_memory=True, persistent_workers=True, prefetch_factor=4, and
non_blocking copies: batches are made in 12 worker processes while the GPU trains."""
import torch
import torch.nn.functional as F

from _harness import main, options

args = options(__doc__)
dev = "cuda"
torch.set_float32_matmul_precision("high")  # TF32 GEMMs
BLUR = torch.full((3, 1, 5, 5), 1.0 / 25)


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(1, 3, 128, 128, generator=g)
        img = F.conv2d(img, BLUR, padding=2, groups=3)[0]
        img = (img - img.mean()) / (img.std() + 1e-5)
        if i % 2:
            img = img.flip(2)
        return img, i % 10


def one_thread(_):
    torch.set_num_threads(1)


def build(**loader):
    torch.manual_seed(0)
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 64, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 128, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(128, 10)).to(dev)
    opt = torch.optim.SGD(m.parameters(), lr=1e-3)
    it = iter(torch.utils.data.DataLoader(Images(), batch_size=64, **loader))

    def step():
        with torch.cuda.nvtx.range("dataloader"):
            x, y = next(it)
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        loss = F.cross_entropy(m(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


main("input_bound", args,
     lambda: build(num_workers=0),
     lambda: build(num_workers=12, pin_memory=True, persistent_workers=True, prefetch_factor=4,
                   worker_init_fn=one_thread))
