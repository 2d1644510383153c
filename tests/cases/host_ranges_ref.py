"""host_ranges_ref.py: a second reading, in Python straight from a PyTorch profiler trace's JSON, of
low-gpu-utilization's top list when its class is host_compute: each instant of a step (the
ProfilerStep#N ranges, else the whole trace) where no kernel, copy, memset or CUDA call runs and
no data-loading range is open, but a host range (cpu_op, user_annotation, python_function) is,
goes to the innermost open range (the one that started last, the shorter of two that started
together); the three names with the most time, their range instances and the top share of
host_compute, against low-gpu-utilization's top list (when it fired with class host_compute) and
the verdict's host_range (when the verdict is host_compute). Likewise gpu-gaps' top list, of the
same time inside the gaps: in a step, between two consecutive stretches of GPU work (kernels,
copies, memsets), the first ending and the second starting inside the step, 50 us or longer. Reads `gpuscope analyze --format json` on
stdin; prints "ok" or what differs.
usage: gpuscope analyze --format json TRACE | host_ranges_ref.py TRACE"""
import decimal, gzip, heapq, json, sys
a = json.load(sys.stdin)
raw = open(sys.argv[1], "rb").read()
ev = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, parse_float=decimal.Decimal)["traceEvents"]
X = [e for e in ev if e.get("ph") == "X" and "ts" in e and "dur" in e]
ns = lambda v: int(v * 1000)
span = lambda e: (ns(e["ts"]), ns(e["ts"] + e["dur"]))
assert not [e for e in X if e.get("cat") in ("cuda_sync", "gpu_memcpy_peer")]
busy = [span(e) for e in X if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")]
host = [e for e in X if e.get("cat") in ("cpu_op", "user_annotation", "python_function")]


def py_name(n):
    """the importer's: a built-in method's object address dropped (" at 0x...>" -> ">")"""
    i = n.find(" at 0x")
    j = i + 6
    while i >= 0 and j < len(n) and n[j] in "0123456789abcdefABCDEF":
        j += 1
    return n[:i] + n[j:] if i >= 0 and j > i + 6 and j < len(n) and n[j] == ">" else n


for e in host:
    if e["cat"] == "python_function":
        e["name"] = py_name(e["name"])
steps = [span(e) for e in host if e["name"].startswith("ProfilerStep#")]
# the whole run when no steps: every event's span
steps = steps or [(min(s for s, _ in map(span, X)), max(e for _, e in map(span, X)))]
busy += [span(e) for e in host if "dataloader" in e["name"].lower()]
rng = sorted(((*span(e), e["name"]) for e in host if not e["name"].startswith("ProfilerStep#")
              and "dataloader" not in e["name"].lower()), key=lambda r: (r[0], -r[1]))
rng = [r for r in rng if r[1] > r[0]]
gpu = []  # the union of the GPU's work
for s, e in sorted(span(e) for e in X if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")):
    if gpu and s <= gpu[-1][1]:
        gpu[-1][1] = max(gpu[-1][1], e)
    else:
        gpu.append([s, e])
gaps = []
for s0, e0 in steps:
    for (_, a0), (b0, _) in zip(gpu, gpu[1:]):
        gs, ge = max(a0, s0), min(b0, e0)
        if a0 > s0 and b0 < e0 and ge - gs >= 50000:
            gaps.append((gs, ge))
pts = sorted({b for iv in busy + steps + gaps + [r[:2] for r in rng] for b in iv})
at = {b: i for i, b in enumerate(pts)}
db, ds, dg = [0] * (len(pts) + 1), [0] * (len(pts) + 1), [0] * (len(pts) + 1)
for d, ivs in ((db, busy), (ds, steps), (dg, gaps)):
    for s, e in ivs:
        if e > s:
            d[at[s]] += 1
            d[at[e]] -= 1
heap, nxt, tot, seen, cb, cs, cg, totg, seeng = [], 0, {}, set(), 0, 0, 0, {}, set()
for i in range(len(pts) - 1):
    t, u = pts[i], pts[i + 1]
    cb, cs, cg = cb + db[i], cs + ds[i], cg + dg[i]
    while nxt < len(rng) and rng[nxt][0] <= t:
        heapq.heappush(heap, (-rng[nxt][0], rng[nxt][1], nxt))
        nxt += 1
    while heap and heap[0][1] <= t:
        heapq.heappop(heap)
    if heap and cb == 0 and cs:
        k = heap[0][2]
        n, q = tot.get(rng[k][2], (0, 0))
        tot[rng[k][2]] = (n + (k not in seen), q + u - t)
        seen.add(k)
        if cg:
            n, q = totg.get(rng[k][2], (0, 0))
            totg[rng[k][2]] = (n + (k not in seeng), q + u - t)
            seeng.add(k)
top3 = lambda d: [(n, round(q / 1e6, 6), c) for n, (c, q) in sorted(d.items(), key=lambda kv: (-kv[1][1], kv[0]))[:3]]
want = top3(tot)
hc = a["verdict"]["breakdown_ns"]["host_compute"]
bad = []
f = [f for f in a["findings"] if f["id"] == "low-gpu-utilization" and f["class"] == "host_compute"]
if f:
    got = [(t["name"], round(t["total_ms"], 6), t["count"]) for t in f[0]["evidence"]["top"]]
    if got != want or abs(f[0]["evidence"]["host_range_top_share"] - tot[want[0][0]][1] / hc) > 1e-6:
        bad.append("low-gpu-utilization: %r against %r" % (got, want))
hr = a["verdict"]["host_range"]
if a["verdict"]["primary"] == "host_compute" and hc:
    if not hr or hr["name"] != want[0][0] or abs(hr["share"] - tot[want[0][0]][1] / hc) > 1e-6:
        bad.append("verdict.host_range %r against %r" % (hr, want[:1]))
elif hr is not None:
    bad.append("verdict.host_range %r with primary %s" % (hr, a["verdict"]["primary"]))
f = [f for f in a["findings"] if f["id"] == "gpu-gaps"]
wantg = top3(totg)
gotg = [(t["name"], round(t["total_ms"], 6), t["count"]) for t in f[0]["evidence"].get("top", [])] if f else []
if f and not gaps:
    bad.append("gpu-gaps fired, no gaps here")
elif gaps and not f:
    bad.append("no gpu-gaps, %d gaps here" % len(gaps))
elif gotg != wantg:
    bad.append("gpu-gaps: %r against %r" % (gotg, wantg))
elif f and totg:
    sh = totg[wantg[0][0]][1] / sum(q for _, q in totg.values())
    if abs(f[0]["evidence"]["host_range_top_share"] - sh) > 1e-6:
        bad.append("gpu-gaps host_range_top_share %r against %r" % (f[0]["evidence"]["host_range_top_share"], sh))
    if f[0]["evidence"]["gaps"] != len(gaps):
        bad.append("gpu-gaps: %r gaps against %d" % (f[0]["evidence"]["gaps"], len(gaps)))
print("; ".join(bad) if bad else "ok")
