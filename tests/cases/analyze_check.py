"""analyze_check.py: checks `gpuscope analyze --format json` against its documented schema and
against `gpuscope stats -r step_sum` on the same trace and options: every step's seven parts
sum to its duration, the breakdown sums to 1 and is the summed parts over the summed durations,
and where the definitions coincide the parts equal step_sum's columns (gpu_compute = Kernel,
gpu_transfer = Memcpy + Memset, host_sync = Sync Wait, host_launch = Runtime API,
input_pipeline + host_compute + other = Idle), and the idle time by host activity sums to that
idle time with its DataLoader classes equal to input_pipeline; CUPTI's own time (profiler_overhead)
is within the steps' time and has records exactly when it is not 0. A trace with communication
kernels has an eighth class, gpu_communication, last (and then gpu_compute + gpu_communication
= Kernel) and a "communication" list whose overlap is at most its time. With no steps marked, the
ranges that could be steps (verdict.step_hints) against a second reading of a .gst's records.
Prints "match (N steps)" or what differs, and exits 1 then.
usage: analyze_check.py GPUSCOPE TRACE [OPTIONS...]"""
import csv
import io
import json
import re
import subprocess
import sys

gs, path, opts = sys.argv[1], sys.argv[2], sys.argv[3:]


def call_range(n):
    """torch.compile's own ranges around each call of compiled code: its compiled regions, graph
    calls, guards and wrappers (docs/gpuscope-analyze.md, Steps)"""
    return n.startswith(("Torch-Compiled Region: ", "## Call CompiledFxGraph", "AOTDispatcher ",
                         "CompiledFunction", "TorchDynamo Cache Lookup", "Pregraph bytecode"))


def compiling_range(n):
    """torch.compile's compiling: "... (dynamo_timed)", entire_frame_compile, and dynamo, the
    outermost"""
    return n.endswith(" (dynamo_timed)") or n in ("dynamo", "entire_frame_compile")


CLASSES = ["gpu_compute", "gpu_transfer", "host_sync", "host_launch", "input_pipeline",
           "host_compute", "other"]
bad = []
a = json.loads(subprocess.run([gs, "analyze", "--format", "json", *opts, path], check=True,
                              capture_output=True, text=True).stdout)
v = a["verdict"]
if "communication" in a:
    CLASSES = CLASSES + ["gpu_communication"]
    for c in a["communication"]:
        if not 0 < c["communication_ns"] or not 0 <= c["overlap_ns"] <= c["communication_ns"] or \
                abs(c["overlap_pct"] - 100.0 * c["overlap_ns"] / c["communication_ns"]) > 1e-4:
            bad.append("communication %r" % c)
elif "gpu_communication" in v["breakdown"]:
    bad.append("gpu_communication without a communication list")
if a.get("schema") != "gpuscope.analyze/1":
    bad.append("schema %r" % a.get("schema"))
for k in ("primary", "breakdown", "step_time_ms", "steps", "steps_by", "breakdown_ns", "total_ns",
          "host_launch_measured", "idle_host", "profiler_overhead"):
    if k not in v:
        bad.append("verdict has no " + k)
po = v.get("profiler_overhead", {"records": 0, "ns": 0})
if not 0 <= po["ns"] <= v["total_ns"] or (po["records"] == 0) != (po["ns"] == 0):
    bad.append("profiler_overhead %r" % po)
if v.get("host_launch_measured") is False and v["breakdown_ns"]["host_launch"]:
    bad.append("host_launch %d ns without API calls" % v["breakdown_ns"]["host_launch"])
if v["primary"] not in CLASSES or list(v["breakdown"]) != CLASSES:
    bad.append("classes: %r %r" % (v["primary"], list(v["breakdown"])))
if abs(sum(v["breakdown"].values()) - 1) > 1e-6:
    bad.append("breakdown sums to %r" % sum(v["breakdown"].values()))
total = sum(s["duration_ns"] for s in a["steps"])
if total != v["total_ns"] or len(a["steps"]) != v["steps"]:
    bad.append("steps: total %d vs %d" % (total, v["total_ns"]))
for c in CLASSES:
    parts = sum(s["parts_ns"][c] for s in a["steps"])
    if parts != v["breakdown_ns"][c] or abs(parts / total - v["breakdown"][c]) > 1e-6:
        bad.append("breakdown %s: %d / %d vs %r" % (c, parts, total, v["breakdown"][c]))
for s in a["steps"]:
    if sum(s["parts_ns"].values()) != s["duration_ns"]:
        bad.append("step %r: parts do not sum to its duration" % s["number"])
for f in a["findings"]:
    for k in ("id", "class", "severity", "title", "saving_ms_per_step", "saving_pct", "evidence",
              "recommendation"):
        if k not in f:
            bad.append("finding %r has no %s" % (f.get("id"), k))
    if f["class"] not in CLASSES or f["severity"] not in ("low", "medium", "high"):
        bad.append("finding %s: class %r severity %r" % (f["id"], f["class"], f["severity"]))
    if set(f["recommendation"]) != {"cuda", "pytorch"} or len(f["evidence"]["examples"]) > 3:
        bad.append("finding %s: recommendation or examples" % f["id"])
# the idle time by host activity: its classes sum to the steps' idle time (input_pipeline +
# host_compute + other), and its DataLoader classes are input_pipeline
IDLE = ["loader_range", "loader_wait", "loader_code", "blocked", "off_cpu", "python", "native",
        "unknown"]
ia = a.get("idle_attribution", {})
if list(ia.get("classes", {})) != IDLE:
    bad.append("idle_attribution classes %r" % list(ia.get("classes", {})))
else:
    idle = sum(v["breakdown_ns"][c] for c in ("input_pipeline", "host_compute", "other"))
    if sum(x["ns"] for x in ia["classes"].values()) != ia["idle_ns"] or ia["idle_ns"] != idle:
        bad.append("idle_attribution: idle_ns %d, classes sum %d, steps' idle %d" % (
            ia["idle_ns"], sum(x["ns"] for x in ia["classes"].values()), idle))
    loader = sum(ia["classes"][c]["ns"] for c in IDLE[:3])
    if loader != ia["input_ns"] or loader != v["breakdown_ns"]["input_pipeline"]:
        bad.append("idle_attribution: DataLoader time %d, input_ns %d, input_pipeline %d" % (
            loader, ia["input_ns"], v["breakdown_ns"]["input_pipeline"]))
    # the same inside gpu-gaps' gaps: the classes' gaps_ns sum to the gaps' idle time (their
    # input_pipeline + host_compute + other), each within its class's ns; gpu-gaps of class
    # other names the main thread's activity that took half of it or more, as the verdict does
    gf = [f for f in a["findings"] if f["id"] == "gpu-gaps"]
    gsum = sum(x.get("gaps_ns", -1) for x in ia["classes"].values())
    gidle = round(sum(gf[0]["evidence"][k] for k in ("in_input_pipeline_ms", "in_host_compute_ms",
                                                     "in_other_ms")) * 1e6) if gf else 0
    if gsum != ia.get("gaps_idle_ns") or any(x["gaps_ns"] > x["ns"] for x in ia["classes"].values()) or \
            (ia["host_data"] and abs(gsum - gidle) > 2 + 1e-8 * gidle) or (not ia["host_data"] and gsum):
        bad.append("idle_attribution: gaps_idle_ns %r, classes' gaps_ns sum %d, the gaps' idle time %d" % (
            ia.get("gaps_idle_ns"), gsum, gidle))
    # (code running is one activity: python or native, the larger, holds when the two together
    # took half)
    def running(c, key):
        return ia["classes"]["python"][key] + ia["classes"]["native"][key] if c in ("python", "native") \
            else ia["classes"][c][key]
    gd = max(IDLE[3:7], key=lambda c: ia["classes"][c]["gaps_ns"]) if ia["host_data"] else None
    gwant = gd if gd and gf and gf[0]["class"] == "other" and gsum and \
        2 * running(gd, "gaps_ns") >= gsum and ia["classes"][gd]["gaps_ns"] else None
    if gf and ((gwant is None) != ("idle_host_share" not in gf[0]["evidence"]) or (gwant is not None and (
            abs(gf[0]["evidence"]["idle_host_share"] - ia["classes"][gwant]["gaps_ns"] / gsum) > 1e-6 or
            "their idle time the main thread " not in gf[0]["title"] or
            (ia["classes"][gwant]["gaps_top"] or "") not in gf[0]["title"]))):
        bad.append("gpu-gaps: the main thread's activity %r, expected class %r" % (gf[0]["title"], gwant))
    # the verdict other names the main thread's activity that took at least half the idle time
    ih = v.get("idle_host", "missing")
    dom = max(IDLE[3:7], key=lambda c: ia["classes"][c]["ns"]) if ia["host_data"] else None
    # (and host_compute names it too when the main thread then waited or was off CPU)
    want = dom if dom and (v["primary"] == "other" or (v["primary"] == "host_compute" and
                                                        dom in ("blocked", "off_cpu"))) and \
        ia["idle_ns"] and 2 * running(dom, "ns") >= ia["idle_ns"] and ia["classes"][dom]["ns"] else None
    if ih == "missing" or (ih is None) != (want is None) or (ih is not None and (
            ih["class"] != want or ih["name"] != ia["classes"][want]["top"] or
            abs(ih["share"] - ia["classes"][want]["ns"] / ia["idle_ns"]) > 1e-6)):
        bad.append("verdict.idle_host %r, expected class %r" % (ih, want))
# start-up work (importing modules, of it byte-compiling, torch.compile compiling): the main
# thread's code running or off CPU, so within python + native + off_cpu; the note under Steps
# (verdict.startup) only for a whole run where it is a quarter of the time or more
su = ia.get("startup")
if not su or not 0 <= su["pyc_ns"] <= su["import_ns"] or (ia.get("classes") and su["import_ns"] + su["compile_ns"] >
                                                         sum(ia["classes"][c]["ns"] for c in ("python", "native", "off_cpu"))):
    bad.append("idle_attribution.startup %r" % (su,))
elif "startup" not in v:
    bad.append("verdict.startup missing")
else:
    total = sum(s["duration_ns"] for s in a["steps"])
    vs = v["startup"]
    load = vs["load_ms"] * 1e6 if vs else 0
    share = (su["import_ns"] + su["compile_ns"] + load) / total if total and v["steps_by"] == "run" else 0
    if (vs is None) != (share < 0.25) or (vs is not None and (
            abs(vs["share"] - share) > 1e-6 or abs(vs["import_ms"] * 1e6 - su["import_ns"]) > 1 or
            abs(vs["pyc_ms"] * 1e6 - su["pyc_ns"]) > 1 or abs(vs["compile_ms"] * 1e6 - su["compile_ns"]) > 1)):
        bad.append("verdict.startup %r against %r (share %.6f)" % (vs, su, share))
# the warm-up's parts: the first step's share of the start-up parts (with host data whose
# samples name compiling); else its compiling from torch.compile's ranges, no imports without
# host data
wu = v.get("warmup")
if wu and su and (wu["import_ms"] * 1e6 > su["import_ns"] + 1 or (ia["host_data"] and su["compile_ns"] and (
        wu["compile_ms"] * 1e6 + su["recompile_ns"] > su["compile_ns"] + 1)) or (not ia["host_data"] and wu["import_ms"]) or
        (wu["import_ms"] + wu["compile_ms"]) * 1e6 > wu["step_ms"] * 1e6 + 1):
    bad.append("verdict.warmup %r against %r" % (wu, su))
# the verdict host_compute names the host range that held most of it: low-gpu-utilization's first
hr = v.get("host_range", "missing")
lu = [f for f in a["findings"] if f["id"] == "low-gpu-utilization" and f["class"] == "host_compute"]
if hr == "missing" or (hr is not None and v["primary"] != "host_compute") or \
        (v["primary"] == "host_compute" and v["breakdown_ns"]["host_compute"] and hr is None) or \
        (hr is not None and lu and (lu[0]["evidence"]["top"][0]["name"] != hr["name"] or
                                    abs(lu[0]["evidence"]["host_range_top_share"] - hr["share"]) > 1e-6 or
                                    abs(lu[0]["evidence"]["top"][0]["total_ms"] * 1e6 / v["breakdown_ns"]["host_compute"] - hr["share"]) > 1e-6)):
    bad.append("verdict.host_range %r" % (hr,))
# with no steps marked, the ranges that could be: a second reading from the records of a .gst
# (gpuscope dump): names with two or more closed ranges, all on one thread, each ending before
# the next starts; no aten:: operator, autograd:: engine range, Python function, data loading or
# torch.compile's own range; the most time first. PyTorch's NVTX names (emit_nvtx) come as the
# model keeps them, without their ", seq = N" and ", op_id = N"
if path.endswith(".gst") and v["steps_by"] == "run":
    pid = int(opts[opts.index("--pid") + 1]) if "--pid" in opts else 0
    by = {}
    for line in subprocess.run([gs, "dump", "--format", "jsonl", path], check=True,
                               capture_output=True, text=True).stdout.splitlines():
        r = json.loads(line)
        if r.get("event") == "range" and r.get("dur", 0) > 0 and not r["flags"] & 0x08 and (not pid or r["pid"] == pid):
            name = re.sub(r", (?:seq|op_id) = -?[0-9]+", "", r["name"])
            by.setdefault(name, []).append((r["start"], r["start"] + r["dur"], r["pid"], r["tid"], r.get("domain", "")))
    # names whose every range lies inside torch.compile's compiling (any process's) are its own
    compiling = sorted((s, e) for n, rs in by.items() if compiling_range(n) for s, e, *_ in rs)

    def inside(s, e):
        return any(c0 <= s and e <= c1 for c0, c1 in compiling)
    want = []
    for n, rs in by.items():
        rs.sort()
        if len(rs) >= 2 and len({x[2:4] for x in rs}) == 1 and all(b[0] >= p[1] for p, b in zip(rs, rs[1:])) \
                and not n.startswith(("aten::", "autograd::")) and rs[0][4] != "python" and "dataloader" not in n.lower() \
                and not call_range(n) and not all(inside(s, e) for s, e, *_ in rs):
            want.append((n, len(rs), round(sum(e - s for s, e, *_ in rs) / 1e6, 6)))
    want = sorted(want, key=lambda w: (-w[2], w[0]))[:3]
    got = [(h["name"], h["count"], round(h["total_ms"], 6)) for h in v.get("step_hints", [])]
    if got != want:
        bad.append("verdict.step_hints %r against %r" % (got, want))
elif v.get("step_hints", "missing") != []:
    bad.append("verdict.step_hints %r with steps by %s" % (v.get("step_hints"), v["steps_by"]))
savings = [f["saving_ms_per_step"] for f in a["findings"]]
if savings != sorted(savings, reverse=True):
    bad.append("findings not most expensive first")

# step_sum over the same steps (its options are analyze's but --input-range)
sopts, skip = [], False
for o in opts:
    if skip:
        skip = False
        continue
    if o == "--input-range":
        skip = True
        continue
    sopts.append(o)
out = subprocess.run([gs, "stats", "-r", "step_sum", "--format", "csv", *sopts, path], check=True,
                     capture_output=True, text=True).stdout
rows = [r for r in csv.DictReader(io.StringIO(out)) if r["Step"] not in ("median", "p90")]
if len(rows) != len(a["steps"]):
    bad.append("step_sum has %d steps, analyze %d" % (len(rows), len(a["steps"])))
for r, s in zip(rows, a["steps"]):
    p = s["parts_ns"]
    want = {
        "gpu_compute": int(r["Kernel (ns)"]),
        "gpu_transfer": int(r["Memcpy (ns)"]) + int(r["Memset (ns)"]),
        "host_sync": int(r["Sync Wait (ns)"]),
        "host_launch": int(r["Runtime API (ns)"]),
        "idle": int(r["Idle (ns)"]),
    }
    got = dict(p)
    got["gpu_compute"] += p.get("gpu_communication", 0)
    got["idle"] = p["input_pipeline"] + p["host_compute"] + p["other"]
    for k, w in want.items():
        if got[k] != w:
            bad.append("step %s %s: analyze %d, step_sum %d" % (r["Step"], k, got[k], w))
    if int(r["Start (ns)"]) != s["start_ns"] or int(r["Duration (ns)"]) != s["duration_ns"]:
        bad.append("step %s: start or duration differ" % r["Step"])
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
print("match (%d steps)" % len(rows))
