"""compare_torch.py: kernels that gpuscope recorded while the NVTX range "measure" was open
(the range ends after a device synchronize and the warm-up was synchronized before it, so
these are exactly the measured iterations' kernels) against torch.profiler's count and total
kernel time, each kernel joined to its launch call (runtime or driver API).
Also checks the attribution of kernels to NVTX ranges (stats nvtx_kern_sum, JSON).
usage: compare_torch.py DUMP.jsonl TORCH.json KERN_SUM.json [LABEL [graphs]]; prints checks
and "LABEL: N passed, N failed" (LABEL resnet50 by default). With "graphs" (CUDA graphs recorded
a record per launch, gpuscope's default) the measured iterations' graph launches are checked
instead: one or more an iteration, each joined to its cudaGraphLaunch."""
import json
import sys

recs = [json.loads(l) for l in open(sys.argv[1])]
ref = json.load(open(sys.argv[2]))
rng = [r for r in recs if r.get("event") == "range" and r.get("name") == "measure"]
label = sys.argv[4] if len(sys.argv) > 4 else "resnet50"
graphs = len(sys.argv) > 5 and sys.argv[5] == "graphs"
passed = failed = 0


def check(name, cond, detail):
    global passed, failed
    passed, failed = passed + bool(cond), failed + (not cond)
    print("  %s %s: %s (%s)" % ("ok  " if cond else "FAIL", label, name, detail))


lo, hi = (rng[0]["start"], rng[0]["start"] + rng[0]["dur"]) if rng else (0, 0)
if not rng:
    check("NVTX range 'measure' recorded", False, "missing")
elif graphs:
    gs = [g for g in recs if g.get("cuda") == "graph" and lo <= g["start"] <= hi]
    check("a graph launch or more each iteration", len(gs) >= 3, "%d graph launches" % len(gs))
    calls = {a["correlation"]: a["name"] for a in recs if a.get("cuda") in ("runtime_api", "driver_api")}
    joined = [calls.get(g["correlation"], "") for g in gs]
    check("each joined to its graph launch call", gs and all("GraphLaunch" in n for n in joined),
          "%d of %d: %s" % (sum("GraphLaunch" in n for n in joined), len(gs), sorted(set(joined))))
else:
    ks = [k for k in recs if k.get("cuda") == "kernel" and lo <= k["start"] <= hi]
    n, t = len(ks), sum(k["dur"] for k in ks)
    check("kernel count matches torch.profiler within 1%", abs(n - ref["kernels"]) <= 0.01 * ref["kernels"],
          "gpuscope %d, torch.profiler %d" % (n, ref["kernels"]))
    corr = {a["correlation"] for a in recs if a.get("cuda") in ("runtime_api", "driver_api")}
    check("every kernel has its launch call (runtime or driver API)", all(k["correlation"] in corr for k in ks),
          "%d of %d" % (sum(k["correlation"] in corr for k in ks), len(ks)))
    # the two recordings are two processes, each kernel's time that of its own run: issue 3
    # asks 1% of ResNet-50's 9 ms; on the small workloads (0.3-1.4 ms of short kernels in all)
    # the totals have differed by up to 1.7% (amp: gpuscope 0.342 against 0.348 ms in one run,
    # 0.345 against 0.342 in the next), so 2% there
    tol = 0.01 if label == "resnet50" else 0.02
    check("total kernel time matches within %d%%" % round(tol * 100), abs(t - ref["kernel_ns"]) <= tol * ref["kernel_ns"],
          "gpuscope %.3f ms, torch.profiler %.3f ms" % (t / 1e6, ref["kernel_ns"] / 1e6))
    if label == "compile":  # Inductor's kernels, launched by Triton through the driver API
        drv = {a["correlation"]: a["name"] for a in recs if a.get("cuda") == "driver_api"}
        tk = [k for k in ks if k["name"].startswith("triton_")]
        check("Triton's kernels recorded, each joined to its driver-API launch", tk and
              all(drv.get(k["correlation"], "").startswith("cuLaunch") for k in tk),
              "%d Triton kernels of %d, %d joined; %d Triton kernel names in torch.profiler's" % (
                  len(tk), n, sum(drv.get(k["correlation"], "").startswith("cuLaunch") for k in tk),
                  sum(1 for x in ref.get("names", []) if x.startswith("triton_"))))
    ks_sum = json.load(open(sys.argv[3]))["rows"]
    def by(rng):
        rows = [r for r in ks_sum if r["NVTX Range"] == rng]
        return sum(r["Kern Inst"] for r in rows), max([r["NVTX Inst"] for r in rows] or [0])
    kin, inst = by(":measure")
    check("nvtx_kern_sum: every measured kernel charged to :measure", kin == n and inst == 1,
          "%d kernels in %d instance(s), %d recorded" % (kin, inst, n))
    kin, inst = by(":iteration")
    check("nvtx_kern_sum: and to the 3 :iteration ranges", kin == n and inst == 3,
          "%d kernels in %d instance(s)" % (kin, inst))
print("%s: %d passed, %d failed" % (label, passed, failed))
