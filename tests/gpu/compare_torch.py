"""compare_torch.py: kernels that gpuscope recorded while the NVTX range "measure" was open
(the range ends after a device synchronize and the warm-up was synchronized before it, so
these are exactly the measured iterations' kernels) against torch.profiler's count and total
kernel time. (Launch attribution cannot be used yet: cuDNN and cuBLAS launch through the
driver API, which is not recorded.)
Also checks the attribution of kernels to NVTX ranges (stats nvtx_kern_sum, JSON).
usage: compare_torch.py DUMP.jsonl TORCH.json KERN_SUM.json; prints checks and
"N passed, N failed"."""
import json
import sys

recs = [json.loads(l) for l in open(sys.argv[1])]
ref = json.load(open(sys.argv[2]))
rng = [r for r in recs if r.get("event") == "range" and r.get("name") == "measure"]
passed = failed = 0


def check(name, cond, detail):
    global passed, failed
    passed, failed = passed + bool(cond), failed + (not cond)
    print("  %s resnet50: %s (%s)" % ("ok  " if cond else "FAIL", name, detail))


if not rng:
    check("NVTX range 'measure' recorded", False, "missing")
else:
    r = rng[0]
    lo, hi = r["start"], r["start"] + r["dur"]
    ks = [k for k in recs if k.get("cuda") == "kernel" and lo <= k["start"] <= hi]
    n, t = len(ks), sum(k["dur"] for k in ks)
    check("kernel count matches torch.profiler within 1%", abs(n - ref["kernels"]) <= 0.01 * ref["kernels"],
          "gpuscope %d, torch.profiler %d" % (n, ref["kernels"]))
    corr = {a["correlation"] for a in recs if a.get("cuda") in ("runtime_api", "driver_api")}
    check("every kernel has its launch call (runtime or driver API)", all(k["correlation"] in corr for k in ks),
          "%d of %d" % (sum(k["correlation"] in corr for k in ks), len(ks)))
    check("total kernel time matches within 1%", abs(t - ref["kernel_ns"]) <= 0.01 * ref["kernel_ns"],
          "gpuscope %.3f ms, torch.profiler %.3f ms" % (t / 1e6, ref["kernel_ns"] / 1e6))
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
print("resnet50: %d passed, %d failed" % (passed, failed))
