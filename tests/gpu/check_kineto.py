"""check_kineto.py: a PyTorch profiler trace read by gpuscope against what torch itself said
about it (kineto_traces.py's CASE.expect.json, from prof.key_averages()): every kernel's count
and total GPU time, and the copies' and sets' counts, within 0.1%; and three ProfilerStep
steps. The GPU rows of key_averages() that are user annotations projected onto the GPU
(gpu_user_annotation events of the trace) are not kernels and are left out. Prints one line per check ("ok ..." / "FAIL ..."); exits 1 on any failure.

usage: check_kineto.py GPUSCOPE TRACE EXPECT
"""
import gzip
import json
import subprocess
import sys

gs, trace, expect = sys.argv[1:4]
exp = json.load(open(expect))
out = subprocess.run([gs, "stats", "-r", "cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,step_sum",
                      "--format", "json", trace], capture_output=True, text=True)
if out.returncode:
    print("FAIL gpuscope stats exited %d: %s" % (out.returncode, out.stderr.strip()))
    sys.exit(1)
rep = json.loads(out.stdout)
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok


# key_averages() also lists, as GPU rows, Kineto's projections of user annotations onto the
# GPU (gpu_user_annotation: "ProfilerStep*", record_function names): not kernels
raw = open(trace, "rb").read()
events = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["traceEvents"]
annotations = {e.get("name") for e in events if e.get("cat") == "gpu_user_annotation"} | {"ProfilerStep*"}
kern = {r["Name"]: r for r in rep["cuda_gpu_kern_sum"]["rows"]}
want_k = [r for r in exp["gpu"] if not r["name"].startswith(("Memcpy", "Memset")) and r["name"] not in annotations]
want_m = [r for r in exp["gpu"] if r["name"].startswith(("Memcpy", "Memset"))]
n_ok = t_ok = 0
for r in want_k:
    g = kern.get(r["name"])
    if g is None:
        check(False, "kernel missing: %s" % r["name"][:80])
        continue
    n_ok += g["Instances"] == r["count"]
    t_ok += abs(g["Total Time (ns)"] - r["total_ns"]) <= max(0.001 * r["total_ns"], 1)
    if g["Instances"] != r["count"] or abs(g["Total Time (ns)"] - r["total_ns"]) > max(0.001 * r["total_ns"], 1):
        check(False, "kernel %s: gpuscope %d x %d ns, torch %d x %d ns" % (
            r["name"][:60], g["Instances"], g["Total Time (ns)"], r["count"], r["total_ns"]))
check(len(kern) == len(want_k), "%s: %d kernel names (torch: %d)" % (exp["case"], len(kern), len(want_k)))
check(n_ok == len(want_k) and t_ok == len(want_k),
      "%s: %d/%d kernels' counts and %d/%d total times within 0.1%% of key_averages()" % (
          exp["case"], n_ok, len(want_k), t_ok, len(want_k)))
tot_g = sum(r["Total Time (ns)"] for r in kern.values())
tot_t = sum(r["total_ns"] for r in want_k)
check(abs(tot_g - tot_t) <= 0.001 * max(tot_t, 1), "%s: total kernel time %d ns (torch %d ns)" % (exp["case"], tot_g, tot_t))
mem_g = sum(r["Count"] for r in rep["cuda_gpu_mem_time_sum"]["rows"])
mem_t = sum(r["count"] for r in want_m)
check(mem_g == mem_t, "%s: %d copies and sets (torch %d)" % (exp["case"], mem_g, mem_t))
steps = [r for r in rep["step_sum"]["rows"] if r["Step"] not in ("median", "p90")]
check(len(steps) == exp["steps"], "%s: %d steps in step_sum (expected %d)" % (exp["case"], len(steps), exp["steps"]))
sys.exit(1 if fails else 0)
