"""pageable_copy.py: each step copies its input from pageable host memory, and the fix.

Planted: every step sends a 64 MiB batch (16384 x 1024 fp32) from an ordinary (pageable) host
tensor with .to("cuda", non_blocking=True): from pageable memory the copy is staged by the
driver, runs at a fraction of the link's speed, blocks the host, and no kernel runs beside it.
Then an MLP (TF32, about 5 ms of GEMMs) runs on it.
--pinned: the same from pinned memory (faster copy, still on the critical path).
Fixed (--fixed): batches in pinned memory, each copied on a side stream while the previous
batch computes (double buffering): the copy leaves the critical path."""
import torch

from _harness import main, options

args = options(__doc__, [("pinned", "copy from pinned memory, without overlap")])
dev = "cuda"
torch.set_float32_matmul_precision("high")  # TF32 GEMMs
ROWS, COLS = 16384, 1024


def build():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(COLS, 4096), torch.nn.ReLU(),
                            *[torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU())
                              for _ in range(3)],
                            torch.nn.Linear(4096, 16)).to(dev).eval()
    return m


def planted(pin=False):
    m = build()
    host = [torch.randn(ROWS, COLS) for _ in range(2)]
    if pin:
        host = [h.pin_memory() for h in host]
    n = [0]

    @torch.no_grad()
    def step():
        x = host[n[0] % 2].to(dev, non_blocking=True)
        n[0] += 1
        return m(x).sum()
    return step


def fixed():
    m = build()
    host = [torch.randn(ROWS, COLS).pin_memory() for _ in range(2)]
    dbuf = [torch.empty(ROWS, COLS, device=dev) for _ in range(2)]
    ready = [torch.cuda.Event() for _ in range(2)]  # buffer i's copy is done
    used = [torch.cuda.Event() for _ in range(2)]  # buffer i's compute is done
    copier = torch.cuda.Stream()
    main_stream = torch.cuda.current_stream()
    n = [0]

    def prefetch(i):
        with torch.cuda.stream(copier):
            copier.wait_event(used[i % 2])  # the buffer is free once its last compute is done
            dbuf[i % 2].copy_(host[i % 2], non_blocking=True)
            ready[i % 2].record(copier)
    copier.wait_stream(main_stream)
    prefetch(0)

    @torch.no_grad()
    def step():
        i = n[0]
        main_stream.wait_event(ready[i % 2])
        out = m(dbuf[i % 2]).sum()
        used[i % 2].record(main_stream)
        prefetch(i + 1)  # runs on the side stream while this step computes
        n[0] += 1
        return out
    return step


main("pageable_copy", args, (lambda: planted(True)) if args.pinned else planted, fixed)
