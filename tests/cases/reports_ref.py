"""reports_ref.py: a second implementation of the stats reports cuda_gpu_trace, cuda_api_trace,
cuda_kern_exec_sum, cuda_kern_exec_trace, nvtx_gpu_proj_sum, nvtx_gpu_proj_trace, nvtx_pushpop_trace, launch_sum, stream_sum, memory_sum and memory_timeline,
written straight from their definitions (docs/gpuscope-stats.md) over the records of
`gpuscope dump --format jsonl`, compared with what `gpuscope stats -r REPORT --format json`
printed. Prints "match", or what differs.
usage: reports_ref.py REPORT DUMP.jsonl STATS.json"""
import bisect
import json
import math
import statistics
import sys

report, dump_path, stats_path = sys.argv[1:4]
got = json.load(open(stats_path))["rows"]

# --- the records, each with its process (a cupti_raw chunk names the pid of what follows)
kernels, copies, sets, graphs, apis, memops, ranges = [], [], [], [], [], [], []
start_mono = end_mono = None
pid = None
for line in open(dump_path):
    r = json.loads(line)
    if r.get("chunk") == "session":
        start_mono = r["k5"]
    elif r.get("chunk") == "end":
        end_mono = r["k2"]
    elif r.get("chunk") == "cupti_raw":
        pid = r["pid"]
    elif r.get("event") == "range":
        ranges.append(r)
    elif "cuda" in r:
        r["pid"] = pid
        k = r["cuda"]
        if "dur" in r:
            r["end"] = r["start"] + r["dur"]
        {"kernel": kernels, "memcpy": copies, "memset": sets, "graph": graphs, "runtime_api": apis,
         "driver_api": apis, "alloc": memops, "free": memops}.get(k, []).append(r)
api_of = {(a["pid"], a["correlation"]): a for a in apis}
ops = kernels + copies + sets + graphs  # graphs: launches recorded as one


def kind_label(s):  # "device_static" -> "Device Static"
    return " ".join(w.capitalize() for w in s.split("_"))


def op_name(o):
    if o["cuda"] == "memcpy":
        return "[CUDA memcpy %s]" % o["kind"]
    if o["cuda"] == "memset":
        return "[CUDA memset]"
    if o["cuda"] == "graph":
        return "[CUDA graph %d]" % o["graph"]
    return None  # kernels: demangled by gpuscope; compared without their names


def base(name):  # cudaLaunchKernel_v7000 -> cudaLaunchKernel
    head, _, tail = name.rpartition("_")
    return head if head and tail[:1] == "v" and tail[1:2].isdigit() else name


def r1(x):  # gpuscope's one decimal
    return round(x + 0.0, 1)


def close(a, b):
    return a is None and b is None or (a is not None and b is not None and abs(a - b) <= 0.051)


def stats(v):
    v = sorted(v)
    return (sum(v) / len(v), statistics.median(v), v[0], v[-1],
            statistics.stdev(v) if len(v) > 1 else 0.0) if v else (None,) * 5


def nvtx_tree():
    """The push/pop ranges that ended, in start order, each given id (RangeId: 1, 2, ... over the
    ranges that ended, both styles, in start order), up (the innermost push/pop range open on
    its thread when it began; one that ended at or before its start is closed), nchild, dchild
    and chain (its ids, innermost first)."""
    ended = sorted((r for r in ranges if not (r["flags"] & 0x08)),
                   key=lambda r: (r["start"], r["pid"], r["tid"], r.get("level", 0)))
    for i, r in enumerate(ended):
        r["id"] = i + 1
    pp = [r for r in ended if not (r["flags"] & 0x01)]
    stacks = {}
    for r in pp:
        r["nchild"], r["dchild"] = 0, 0
        st = stacks.setdefault((r["pid"], r["tid"]), [])
        while st and st[-1]["start"] + st[-1]["dur"] <= r["start"]:
            st.pop()
        r["up"] = st[-1] if st else None
        if r["up"]:
            r["up"]["nchild"] += 1
            r["up"]["dchild"] += r["dur"]
        st.append(r)
        r["chain"] = [r["id"]] + (r["up"]["chain"] if r["up"] else [])
    return pp


problems = []


def expect(name, want, have):
    if want != have:
        problems.append("%s: want %s, got %s" % (name, str(want)[:400], str(have)[:400]))


if report == "cuda_gpu_trace":
    want = []
    for o in sorted(ops, key=lambda o: (o["start"], ["kernel", "memcpy", "memset", "graph"].index(o["cuda"]))):
        row = [o["start"] - start_mono, o["dur"], o["correlation"], o["stream"], op_name(o)]
        if o["cuda"] == "kernel":
            row += o["grid"] + o["block"] + [o["registers"], None, None, None]
        elif o["cuda"] == "memcpy":
            row += [None] * 7 + ["%.3f" % (o["bytes"] / 1e6), kind_label(o["src"]), kind_label(o["dst"])]
        elif o["cuda"] == "graph":
            row += [None] * 10
        else:
            row += [None] * 7 + ["%.3f" % (o["bytes"] / 1e6), None, kind_label(o["memory"])]
        want.append(row)
    have = []
    for g in got:
        name = None if g["GrdX"] is not None else g["Name"]
        have.append([g["Start (ns)"], g["Duration (ns)"], g["CorrId"], g["Strm"], name,
                     g["GrdX"], g["GrdY"], g["GrdZ"], g["BlkX"], g["BlkY"], g["BlkZ"], g["Reg/Trd"],
                     None if g["Bytes (MB)"] is None else "%.3f" % g["Bytes (MB)"],
                     g["SrcMemKd"] or None, g["DstMemKd"] or None])
    expect("rows", len(want), len(have))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            expect("row %d" % i, w, h)
            break
    # throughput: MB per second from the dump's bytes and duration
    rate = {(o["start"] - start_mono, o["correlation"]): o["bytes"] / 1e6 / (o["dur"] / 1e9)
            for o in copies + sets if o["dur"]}
    bad = [g for g in got if (g["Start (ns)"], g["CorrId"]) in rate and
           abs(g["Throughput (MBps)"] - rate[(g["Start (ns)"], g["CorrId"])]) > 0.0006]
    expect("throughput", [], bad[:3])

elif report == "cuda_api_trace":
    want = [[a["start"] - start_mono, a["dur"], base(a["name"]), a["result"], a["correlation"], a["pid"], a["tid"]]
            for a in sorted(apis, key=lambda a: (a["start"], a["pid"], a["tid"], a["correlation"]))]
    have = [[g["Start (ns)"], g["Duration (ns)"], g["Name"], g["Result"], g["CorrID"], g["Pid"], g["Tid"]] for g in got]
    expect("rows", len(want), len(have))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            expect("row %d" % i, w, h)
            break

elif report == "cuda_kern_exec_sum":
    groups = {}
    for k in kernels:
        a = api_of.get((k["pid"], k["correlation"]))
        if a is None:
            continue
        key = (a["pid"], a["tid"], k["device"], base(a["name"]), k["name"])
        g = groups.setdefault(key, ([], [], [], []))
        g[0].append(max(a["end"], k["end"]) - a["start"])
        g[1].append(a["dur"])
        if k["start"] > a["end"]:
            g[2].append(k["start"] - a["end"])
        g[3].append(k["dur"])

    def canon(pid_, tid, dev, api, count, qcount, st):
        # names of kernels left out: gpuscope demangles them
        return (pid_, tid, dev, api, count, qcount,
                tuple(x if x is None or isinstance(x, int) else r1(x) for s in st for x in s))
    want = sorted(canon(*key[:4], len(g[3]), len(g[2]), [stats(v) for v in g]) for key, g in groups.items())
    have = []
    for g in got:
        st = [tuple(g[p + s] for s in ("Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"))
              for p in "TAQK"]
        have.append(canon(g["PID"], g["TID"], g["DevId"], g["API Name"], g["Count"], g["QCount"], st))
    have.sort()
    expect("groups", len(want), len(have))
    for w, h in zip(want, have):
        if w[:6] != h[:6] or not all(close(x, y) if x is not None else y is None for x, y in zip(w[6], h[6])):
            expect("group", w, h)
            break

elif report == "cuda_kern_exec_trace":
    want = []
    for k in kernels:
        a = api_of.get((k["pid"], k["correlation"]))
        if a is None:
            continue
        q = k["start"] > a["end"]
        want.append(((a["start"], a["pid"], a["tid"], a["correlation"], k["start"]),
                     [a["start"] - start_mono, a["dur"], a["end"] - start_mono if q else None,
                      k["start"] - a["end"] if q else None, k["start"] - start_mono, k["dur"],
                      max(a["end"], k["end"]) - a["start"], a["pid"], a["tid"], k["device"], base(a["name"]),
                      " ".join(map(str, k["grid"])), " ".join(map(str, k["block"]))]))
    want = [w for _, w in sorted(want)]
    have = [[g["API Start (ns)"], g["API Dur (ns)"], g["Queue Start (ns)"], g["Queue Dur (ns)"],
             g["Kernel Start (ns)"], g["Kernel Dur (ns)"], g["Total Dur (ns)"], g["PID"], g["TID"],
             g["DevId"], g["API Function"], g["GridXYZ"], g["BlockXYZ"]] for g in got]
    expect("rows", len(want), len(have))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            expect("row %d" % i, w, h)
            break

elif report == "nvtx_pushpop_trace":
    pp = nvtx_tree()
    want = []
    for r in pp:
        chain = r["chain"]
        name = "%s:%s" % (r.get("domain", ""), r["name"])
        want.append([r["start"] - start_mono, r["start"] + r["dur"] - start_mono, r["dur"], r["dchild"],
                     r["dur"] - r["dchild"], name, r["pid"], r["tid"], len(chain) - 1, r["nchild"], r["id"],
                     r["up"]["id"] if r["up"] else None, "".join(":%d" % k for k in reversed(chain)),
                     "--" * (len(chain) - 1) + name])
    have = [[g[k] for k in ("Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)",
                            "Name", "PID", "TID", "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack", "NameTree")]
            for g in got]
    expect("rows", len(want), len(have))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            expect("row %d" % i, w, h)
            break

elif report == "nvtx_gpu_proj_sum":
    pushpop = [r for r in ranges if not (r["flags"] & 0x09)]
    proj = {}
    for o in ops:
        a = api_of.get((o["pid"], o["correlation"]))
        if a is None:
            continue
        for i, r in enumerate(pushpop):  # every push/pop range open on the thread at the call
            if r["pid"] == a["pid"] and r["tid"] == a["tid"] and r["start"] <= a["start"] <= r["start"] + r["dur"]:
                p = proj.setdefault(i, [o["start"], o["end"], 0])
                p[0], p[1], p[2] = min(p[0], o["start"]), max(p[1], o["end"]), p[2] + 1
    groups = {}
    for i, (s, e, n) in proj.items():
        r = pushpop[i]
        children = sum(1 for c in pushpop if c["pid"] == r["pid"] and c["tid"] == r["tid"] and
                       c["level"] == r["level"] + 1 and r["start"] <= c["start"] and
                       c["start"] + c["dur"] <= r["start"] + r["dur"])
        groups.setdefault(":" + r["name"], []).append((e - s, r["dur"], n, r["level"], children))
    want = []
    for name, v in groups.items():
        pr = [x[0] for x in v]
        avg, med, lo, hi, sd = stats(pr)
        want.append([name, "PushPop", sum(pr), sum(x[1] for x in v), len(v), r1(avg), r1(med), lo, hi,
                     r1(sd), sum(x[2] for x in v), r1(sum(x[2] for x in v) / len(v)),
                     r1(sum(x[3] for x in v) / len(v)), r1(sum(x[4] for x in v) / len(v))])
    want.sort(key=lambda w: (-w[2], -w[4], w[0]))
    cols = ["Range", "Style", "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances",
            "Proj Avg (ns)", "Proj Med (ns)", "Proj Min (ns)", "Proj Max (ns)", "Proj StdDev (ns)",
            "Total GPU Ops", "Avg GPU Ops", "Avg Range Lvl", "Avg Num Child"]
    have = [[g[c] for c in cols] for g in got]
    expect("rows", len(want), len(have))
    for w, h in zip(want, have):
        if any(not close(x, y) if isinstance(x, float) else x != y for x, y in zip(w, h)):
            expect("row", w, h)

elif report == "nvtx_gpu_proj_trace":
    # push/pop ranges only (the fixtures' GPU work is launched inside push/pop ranges alone)
    pp = nvtx_tree()
    calls = {}  # each thread's launching calls by start: (start, op)
    for o in ops:
        a = api_of.get((o["pid"], o["correlation"]))
        if a is not None:
            calls.setdefault((a["pid"], a["tid"]), []).append((a["start"], o))
    for v in calls.values():
        v.sort(key=lambda c: c[0])
    starts = {k: [c[0] for c in v] for k, v in calls.items()}
    proj = {}
    for r in pp:  # the GPU work of every call on its thread from its start to its end
        k = (r["pid"], r["tid"])
        if k not in calls:
            continue
        lo = bisect.bisect_left(starts[k], r["start"])
        hi = bisect.bisect_right(starts[k], r["start"] + r["dur"])
        for _, o in calls[k][lo:hi]:
            p = proj.setdefault(r["id"], [o["start"], o["end"], 0, r])
            p[0], p[1], p[2] = min(p[0], o["start"]), max(p[1], o["end"]), p[2] + 1
    want = []
    for s_, e, n, r in sorted(proj.values(), key=lambda p: (p[0], p[3]["id"])):
        want.append(["%s:%s" % (r.get("domain", ""), r["name"]), s_ - start_mono, e - s_, r["start"] - start_mono,
                     r["dur"], "PushPop", r["pid"], r["tid"], n, len(r["chain"]) - 1, r["nchild"], r["id"],
                     r["up"]["id"] if r["up"] else None, "".join(":%d" % k for k in reversed(r["chain"]))])
    have = [[g[k] for k in ("Name", "Projected Start (ns)", "Projected Duration (ns)", "Orig Start (ns)",
                            "Orig Duration (ns)", "Style", "PID", "TID", "NumGPUOps", "Lvl", "NumChild",
                            "RangeId", "ParentId", "RangeStack")] for g in got]
    expect("rows", len(want), len(have))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            expect("row %d" % i, w, h)
            break

elif report == "launch_sum":
    launch = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
              "cuLaunchKernel", "cuLaunchKernelEx"}
    groups = {}
    for o in ops:
        a = api_of.get((o["pid"], o["correlation"]))
        if a is None or base(a["name"]).replace("_ptsz", "") not in launch:
            continue
        cpu, gpu = a["dur"], o["dur"]
        delay = max(0, o["start"] - a["start"] - a["dur"])
        groups.setdefault(op_name(o) or o["name"], []).append((cpu, gpu, delay))
    want, totals = [], [0, 0, 0, 0]
    for name, v in groups.items():
        c = [len(v), sum(1 for x in v if x[0] <= 50000 and x[1] < x[0]),
             sum(1 for x in v if x[0] > 50000), sum(1 for x in v if x[2] > 100000)]
        totals = [t + x for t, x in zip(totals, c)]
        cpu = sorted(x[0] for x in v)
        pos = 0.9 * (len(cpu) - 1)
        lo = int(pos)
        p90 = cpu[lo] + (cpu[min(lo + 1, len(cpu) - 1)] - cpu[lo]) * (pos - lo)
        # kernel names left out: gpuscope demangles them
        want.append(tuple(c) + (r1(sum(cpu) / len(cpu)), r1(p90), max(cpu), max(x[1] for x in v),
                                max(x[2] for x in v)))
    have = [(g["Count"], g["Short"], g["CPU Outliers"], g["Delay Outliers"], g["CPU Avg (ns)"],
             g["CPU P90 (ns)"], g["CPU Max (ns)"], g["GPU Max (ns)"], g["Delay Max (ns)"]) for g in got]
    want.sort(key=lambda w: w[:4] + w[6:9])
    have.sort(key=lambda w: w[:4] + w[6:9])
    expect("rows", len(want), len(have))
    for w, h in zip(want, have):
        if w[:4] != h[:4] or w[6:] != h[6:] or not close(w[4], h[4]) or not close(w[5], h[5]):
            expect("row", w, h)
            break
    print("totals %d %d %d %d" % tuple(totals))

elif report == "stream_sum":
    per = {}
    for o in ops:
        dev = o.get("device", 0)  # memsets carry no device in the dump: one-GPU fixtures
        per.setdefault((o["pid"], dev, o["stream"]), []).append(o)
    # busy: the union; concurrent: elementary segments where this and another stream are busy
    streams = sorted(per)
    wall = end_mono - start_mono
    for s in streams:
        wall = max(wall, max(o["end"] for o in per[s]) - start_mono)
    want = []
    for s in streams:
        mine = sorted((o["start"], o["end"]) for o in per[s])
        others = sorted((o["start"], o["end"]) for t in streams if t != s and t[:2] == s[:2] for o in per[t])
        cuts = sorted({x for iv in mine + others for x in iv})
        busy = conc = 0
        for a, b in zip(cuts, cuts[1:]):
            if any(x <= a and b <= y for x, y in mine):
                busy += b - a
                if any(x <= a and b <= y for x, y in others):
                    conc += b - a
        n = [sum(1 for o in per[s] if o["cuda"] == k) for k in ("kernel", "memcpy", "memset", "graph")]
        want.append([*s, *n, busy, wall, conc])
    have = [[g[c] for c in ("PID", "Device", "Stream", "Kernels", "Memcpys", "Memsets", "Graphs", "Busy (ns)",
                            "Wall (ns)", "Concurrent (ns)")] for g in got]
    expect("rows", want, have)

elif report in ("memory_sum", "memory_timeline"):
    per = {}
    for o in memops:
        per.setdefault((o["pid"], o["device"], o["memory"]), []).append(o)
    order = {"pageable": 1, "pinned": 2, "device": 3, "array": 4, "managed": 5, "device_static": 6,
             "managed_static": 7}
    first = min(o["start"] for o in memops) if memops else 0
    w0, w1 = max(start_mono, first), max([end_mono] + [o["start"] for o in memops])
    b = [w0 + (w1 - w0) * s // 10 for s in range(11)]
    want = []
    for key in sorted(per, key=lambda k: (k[0], k[1], order[k[2]])):
        live, use, peak, peak_t, n = {}, 0, 0, start_mono, [0, 0, 0]
        sl = [[0, 0, None, None] for _ in range(10)]  # allocs, frees, end, max
        for o in sorted(per[key], key=lambda o: (o["start"], o["cuda"] == "free")):
            s = max(i for i in range(10) if o["start"] >= b[i]) if o["start"] >= b[0] else None
            for i in range(10):  # slices not reached yet open with the level before this record
                if s is not None and i <= s and sl[i][2] is None:
                    sl[i][2] = sl[i][3] = use
            if o["address"] in live:
                use -= live.pop(o["address"])
            if o["cuda"] == "alloc":
                live[o["address"]] = o["bytes"]
                use += o["bytes"]
                n[0] += 1
                n[2] += o["bytes"]
            else:
                n[1] += 1
            if use > peak:
                peak, peak_t = use, o["start"]
            if s is not None:
                sl[s][0 if o["cuda"] == "alloc" else 1] += 1
                sl[s][2] = use
                sl[s][3] = max(sl[s][3], use)
        if report == "memory_sum":
            want.append([key[0], key[1], kind_label(key[2]), n[0], n[1], "%.3f" % (n[2] / 1e6),
                         "%.3f" % (peak / 1e6), peak_t - start_mono, "%.3f" % (use / 1e6)])
        else:
            for i in range(10):
                e = use if sl[i][2] is None else sl[i][2]
                mx = use if sl[i][3] is None else sl[i][3]
                want.append([key[0], key[1], kind_label(key[2]), i, b[i] - start_mono,
                             b[i + 1] - start_mono, sl[i][0], sl[i][1], "%.3f" % (e / 1e6),
                             "%.3f" % (mx / 1e6)])
    if report == "memory_sum":
        have = [[g["PID"], g["Device"], g["Memory Kind"], g["Allocs"], g["Frees"],
                 "%.3f" % g["Allocated (MB)"], "%.3f" % g["Peak In Use (MB)"], g["Peak Time (ns)"],
                 "%.3f" % g["In Use at End (MB)"]] for g in got]
    else:
        have = [[g["PID"], g["Device"], g["Memory Kind"], g["Slice"], g["Start (ns)"], g["End (ns)"],
                 g["Allocs"], g["Frees"], "%.3f" % g["In Use (MB)"], "%.3f" % g["Max In Use (MB)"]]
                for g in got]
    expect("rows", want, have)
else:
    sys.exit("unknown report " + report)

print("match" if not problems else "\n".join(problems))
