"""torch_annotate.py: a small PyTorch training loop with no annotations of its own, for
`gpuscope profile --pytorch nvtx` (tests/gpu/run.sh, section pytorch). A model with named
children (stem, layer1.0/1 with conv1/bn1/conv2, head), a DataLoader, SGD. Prints one JSON line:
the steps run and the median step time in ms (for the overhead figure).
usage: torch_annotate.py [STEPS]"""
import json
import statistics
import sys
import time

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return x + self.conv2(torch.relu(self.bn1(self.conv1(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, padding=1)
        self.layer1 = nn.Sequential(Block(32), Block(32))
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layer1(self.stem(x))
        return self.head(x.mean((2, 3)))


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(16 * steps, 3, 32, 32),
                                          torch.randint(0, 10, (16 * steps,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    times = []
    for x, y in loader:
        t = time.perf_counter()
        x, y = x.cuda(), y.cuda()
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    print(json.dumps({"steps": len(times), "median_ms": statistics.median(times[2:] or times)}))


if __name__ == "__main__":
    main()
