#!/usr/bin/env python3
"""gen_kineto.py: PyTorch profiler (Kineto JSON) trace pairs with planted changes, for
`gpuscope diff` (tests/cases/diff.sh).

A small simulated training loop: per step a data-loading range, a host-to-device copy of the
batch, five operators each launching one kernel, a stream synchronize at the end. Host and GPU
are simulated on one timeline (a launch call, then the kernel when the stream is free; a
synchronize waits for the stream to drain). Every duration carries seeded noise (log-normal,
3% for GPU work, 6% for host work), so two seeds are two runs of the same program.

Variants (python3 gen_kineto.py OUTDIR writes them all, gzip'd, byte for byte reproducible):
  base_a, base_b  the same program, seeds 1 and 2 (pure noise between them)
  kernel2x        base, the elementwise add kernel 2x slower (seed 3)
  extrasync       base, one more cudaDeviceSynchronize per step, after the forward (seed 4)
  pageable        the batch copied from pageable memory: the call blocks, the copy is slower (seed 5)
  pinned          the same from pinned memory (as base; seed 6)
  run_a, run_b    base and kernel2x without ProfilerStep ranges: one step, the whole run
                  (seeds 7 and 8)
"""
import gzip
import json
import math
import os
import random
import sys

STEPS = 30
BATCH_BYTES = 4 << 20
KERNELS = [  # op, kernel name, base duration in us
    ("aten::linear", "void gemm_kernel<float, 128>(float const*, float const*, float*, int)", 900.0),
    ("aten::relu",
     "void at::native::vectorized_elementwise_kernel<4, at::native::relu_functor<float>>(int, float*)",
     150.0),
    ("aten::add",
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float*)",
     200.0),
    ("aten::sum", "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float, 4>)", 120.0),
    ("aten::mul",
     "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::MulFunctor<float>>>(int, float*)",
     100.0),
]
CBID = {"cudaLaunchKernel": 211, "cudaMemcpyAsync": 41, "cudaStreamSynchronize": 131,
        "cudaDeviceSynchronize": 165}


def gen(seed, kernel2x=False, extrasync=False, pageable=False, steps=True):
    rng = random.Random(seed)

    def gpu(us):
        return us * math.exp(rng.gauss(0.0, 0.03))

    def host(us):
        return us * math.exp(rng.gauss(0.0, 0.06))

    ev = []
    corr = [1000]
    t = 1000.0   # host clock, us
    g = 1000.0   # when the stream is free

    def x(cat, name, ts, dur, args, pid=100, tid=100):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                   "ts": round(ts, 3), "dur": round(dur, 3), "args": args})

    def call(name, ts, dur):
        corr[0] += 1
        x("cuda_runtime", name, ts, dur, {"cbid": CBID[name], "correlation": corr[0]})
        return corr[0]

    def launch(kname, kus):
        nonlocal t, g
        d = host(6.0)
        c = call("cudaLaunchKernel", t, d)
        start = max(g, t + d + 2.0)
        dur = gpu(kus)
        x("kernel", kname, start, dur,
          {"device": 0, "context": 1, "stream": 7, "correlation": c, "registers per thread": 32,
           "shared memory": 0, "grid": [1024, 1, 1], "block": [256, 1, 1]}, pid=0, tid=7)
        g = start + dur
        t += d + host(4.0)

    def sync(name):
        nonlocal t
        end = max(t + host(3.0), g + 3.0)
        call(name, t, end - t)
        t = end

    for i in range(STEPS):
        s0 = t
        # data loading
        d = host(300.0)
        x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, d, {})
        t += d + host(5.0)
        # the batch to the GPU
        op0 = t
        t += host(8.0)
        if pageable:  # staged through a bounce buffer: the call returns when the copy is done
            cs = t
            start = max(g, cs + 5.0)
            dur = gpu(BATCH_BYTES / 10.0e3)  # 10 GB/s
            end = start + dur + 2.0
            c = call("cudaMemcpyAsync", cs, end - cs)
            name = "Memcpy HtoD (Pageable -> Device)"
            t = end
        else:
            cs = t
            d = host(7.0)
            c = call("cudaMemcpyAsync", cs, d)
            start = max(g, cs + d + 2.0)
            dur = gpu(BATCH_BYTES / 45.0e3)  # 45 GB/s
            name = "Memcpy HtoD (Pinned -> Device)"
            t += d
        x("gpu_memcpy", name, start, dur,
          {"device": 0, "context": 1, "stream": 7, "correlation": c, "bytes": BATCH_BYTES},
          pid=0, tid=7)
        g = start + dur
        t += host(4.0)
        x("cpu_op", "aten::copy_", op0, t - op0, {})
        t += host(3.0)
        for k, (op, kname, kus) in enumerate(KERNELS):
            o = t
            t += host(10.0)
            launch(kname, kus * (2.0 if kernel2x and op == "aten::add" else 1.0))
            t += host(5.0)
            x("cpu_op", op, o, t - o, {})
            t += host(2.0)
            if extrasync and k == 2:
                sync("cudaDeviceSynchronize")
        sync("cudaStreamSynchronize")
        t += host(20.0)
        if steps:
            x("user_annotation", "ProfilerStep#%d" % i, s0, t - s0, {})
        t += host(2.0)
    ev.sort(key=lambda e: (e["ts"], e["pid"] != 100))
    ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": 100, "tid": 0,
               "args": {"name": "python3"}})
    ev.append({"ph": "X", "cat": "Trace", "ts": 900.0, "dur": round(t - 900.0 + 100.0, 3),
               "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)",
               "args": {"Op count": 0}})
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320,
                                  "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
            "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000,
            "traceEvents": ev, "traceName": "gen_kineto.py seed %d" % seed}


VARIANTS = {
    "base_a": dict(seed=1),
    "base_b": dict(seed=2),
    "kernel2x": dict(seed=3, kernel2x=True),
    "extrasync": dict(seed=4, extrasync=True),
    "pageable": dict(seed=5, pageable=True),
    "pinned": dict(seed=6),
    "run_a": dict(seed=7, steps=False),
    "run_b": dict(seed=8, steps=False, kernel2x=True),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, kw in VARIANTS.items():
        text = json.dumps(gen(**kw), separators=(",", ":")).replace("},{", "},\n{")
        path = os.path.join(out, "kineto_%s.json.gz" % name)
        with open(path, "wb") as f:
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
                z.write(text.encode() + b"\n")


if __name__ == "__main__":
    main()
