"""_harness.py: the loop shared by the example workloads of examples/*.py.

Each example builds a planted step (one bottleneck on purpose) and its fixed variant, and calls
main(). Modes:
  (default)   run WARMUP steps, then cudaProfilerStart, STEPS steps each inside an NVTX range
              named "step", cudaProfilerStop. Profile it with
                gpuscope profile --capture-range=cudaProfilerApi -o NAME python EXAMPLE.py
              and read it with `gpuscope analyze --step step NAME.gst`. --fixed runs the fixed
              variant instead.
  --time      no profiler: time the planted and the fixed variant in the same process, in
              alternating blocks of STEPS steps (planted, fixed, planted, ...), and print one JSON
              line with the median step time of each (ms) and every block's mean.
Every step ends with torch.cuda.synchronize() (inside its range), as a training loop that logs
its loss does, so a step's time is the time its GPU work took to finish."""
import argparse
import json
import statistics
import sys
import time

import torch


def options(doc, variants=()):
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--fixed", action="store_true", help="run the fixed variant")
    for name, help_text in variants:
        p.add_argument("--" + name, action="store_true", help=help_text)
    p.add_argument("--steps", type=int, default=30, help="steps recorded (or per timed block)")
    p.add_argument("--warmup", type=int, default=8, help="steps run before recording")
    p.add_argument("--time", action="store_true", help="time planted against fixed, no profiler")
    p.add_argument("--blocks", type=int, default=5, help="pairs of timed blocks (--time)")
    return p.parse_args()


def run_steps(step, n, ranges):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        if ranges:
            torch.cuda.nvtx.range_push("step")
        step()
        torch.cuda.synchronize()
        if ranges:
            torch.cuda.nvtx.range_pop()
        times.append(time.perf_counter() - t)
    return times


def main(name, args, planted, fixed):
    """planted, fixed: functions that build a variant and return its step function (built
    lazily, so that a profiled run only sets up the variant it records)."""
    torch.backends.cudnn.benchmark = True
    if not args.time:
        step = (fixed if args.fixed else planted)()
        run_steps(step, args.warmup, False)
        torch.cuda.profiler.start()
        run_steps(step, args.steps, True)
        torch.cuda.profiler.stop()
        return
    steps = {"planted": planted(), "fixed": fixed()}
    for s in steps.values():
        run_steps(s, args.warmup, False)
    blocks = {k: [] for k in steps}
    for _ in range(args.blocks):
        for k, s in steps.items():
            t = time.perf_counter()
            run_steps(s, args.steps, False)
            blocks[k].append((time.perf_counter() - t) / args.steps * 1e3)
    out = {"example": name, "steps_per_block": args.steps}
    for k, v in blocks.items():
        out[k + "_ms"] = round(statistics.median(v), 4)
        out[k + "_blocks_ms"] = [round(x, 4) for x in v]
    out["gain_ms"] = round(out["planted_ms"] - out["fixed_ms"], 4)
    json.dump(out, sys.stdout)
    print()
