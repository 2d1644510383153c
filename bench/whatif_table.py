"""whatif_table.py: analyze's estimated saving against the measured gain of each fix.

usage: whatif_table.py DIR [GS]
DIR holds what bench/whatif.sh wrote: EXAMPLE.analyze.json (analyze of the planted variant's
trace) and time.jsonl (EXAMPLE.py --time lines: planted and fixed step times without a
profiler). With GS (a gpuscope binary), the traces EXAMPLE.gst are analyzed again by it
instead (analyze --step step), so the table follows the current estimators. Prints a
markdown table: the planted cause's finding, its estimated saving per step (ms, and % of the
profiled mean step: analyze's saving_pct), the measured gain (ms and %, median over processes) and the ratio."""
import json
import os
import statistics
import subprocess
import sys

PLANTED = {"launch_bound": ["launch-bound"], "sync_bound": ["sync-bound"],
           "input_bound": ["input-bound"],
           "pageable_copy": ["pageable-async-copy", "exposed-transfers"],
           "fp32_gemm": ["fp32-gemm"], "healthy": []}

d = sys.argv[1]
gs = sys.argv[2] if len(sys.argv) > 2 else None
times = {}
for line in open(os.path.join(d, "time.jsonl")):
    t = json.loads(line)
    times.setdefault(t["example"], []).append(t)


def analysis(ex):
    if gs:
        out = subprocess.run([gs, "analyze", "--step", "step", "--format", "json",
                              os.path.join(d, ex + ".gst")], capture_output=True, text=True)
        return json.loads(out.stdout)
    return json.load(open(os.path.join(d, ex + ".analyze.json")))


print("| example | planted: step (profiled), primary, top finding | planted cause's finding: "
      "estimated saving per step | without a profiler: planted -> fixed step (median of "
      "processes) | measured gain | estimated / measured |")
print("|---|---|---|---|---|---|")
for ex, ids in PLANTED.items():
    if ex not in times:
        continue
    a = analysis(ex)
    v, fs = a["verdict"], a["findings"]
    top = fs[0]["id"] if fs else "-"
    est = next((f for i in ids for f in fs if f["id"] == i), None)
    p = statistics.median(t["planted_ms"] for t in times[ex])
    f = statistics.median(t["fixed_ms"] for t in times[ex])
    gains = sorted(t["gain_ms"] for t in times[ex])
    gain = p - f
    if est:
        e = f"{est['id']}: {est['saving_ms_per_step']:.3f} ms ({est['saving_pct']:.1f}%)"
        ratio = f"{est['saving_ms_per_step'] / gain:.2f}" if gain > 0 else "-"
    else:
        e, ratio = ("none fired" if ids else "(none planted)"), "-"
    print(f"| {ex} | {v['step_time_ms']:.3f} ms, {v['primary']}, {top} | {e} | "
          f"{p:.3f} -> {f:.3f} ms | {gain:.3f} ms ({100 * gain / p:.1f}%; "
          f"{gains[0]:.3f}..{gains[-1]:.3f}) | {ratio} |")
