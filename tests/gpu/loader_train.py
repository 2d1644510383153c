"""loader_train.py: a training loop bound by its DataLoader, for tests/gpu/loader.sh.

A small MLP trains on 3x32x32 images that a Dataset makes on the CPU in Python and numpy
(Images.__getitem__ > decode: a stand-in for JPEG decoding and augmentation, 3-5 ms per
image); a DataLoader with 2 worker processes makes batches of 16, so a batch takes 50-80 ms of
worker time per worker while the GPU step takes well under 1 ms and the main thread's own
work (forward, backward, optimizer) about 6 ms: the main thread waits for data most of the
step. (With a third of that decoding, 1-2 ms an image, the wait was 44-55% of the GPU's idle
time from run to run on an H100, and the verdict flipped to `other` once.) No data-loading range is written: each iteration is one NVTX range
"step" (the fetch included), so `gpuscope analyze --step step` sees the steps, and only the
CPU samples can tell that the GPU waits for the DataLoader. With --pin-memory the DataLoader
pins the batches in its pin-memory thread, and the main thread waits for them on that thread's
queue (queue.Queue.get with a timeout: sem_clockwait in CPython 3.12).
Prints "steps N seconds S" last."""
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 150
PIN = "--pin-memory" in sys.argv[2:]


def decode(raw):
    x = raw.astype(np.float32) / 255.0
    for _ in range(240):  # the CPU work, in Python calling numpy
        x = np.tanh(x * 1.01 + 0.001)
    if raw[0, 0, 0] & 1:
        x = x[:, :, ::-1].copy()
    return (x - x.mean()) / (x.std() + 1e-5)


class Images(Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        raw = np.random.default_rng(i).integers(0, 256, size=(3, 32, 32), dtype=np.uint8)
        return torch.from_numpy(decode(raw)), i % 10


def main():
    dev = "cuda"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    it = iter(DataLoader(Images(), batch_size=16, num_workers=2, pin_memory=PIN))
    t0 = time.perf_counter()
    for _ in range(STEPS):
        torch.cuda.nvtx.range_push("step")
        x, y = next(it)
        x, y = x.to(dev), y.to(dev)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    print("steps %d seconds %.3f" % (STEPS, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
