"""kineto_big.py: a large PyTorch profiler trace made from a real one by repeating its events,
for the importer's speed bench (bench/kineto_load.sh).

usage: kineto_big.py SOURCE(.json|.json.gz) OUT.json MEGABYTES
Each repetition shifts every timestamp by the source's span (so the copies follow each other
in time) and offsets the ids that link events (correlation, External id, flow id) so that
every launch still finds its own kernel; ProfilerStep#N ranges are renumbered. Metadata
events and the top-level keys are written once. Timestamps are written as Kineto writes them
(microseconds with three decimals)."""
import gzip
import os
import json
import re
import sys

src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
with opener(src, "rt") as f:
    trace = json.load(f)
events = trace.pop("traceEvents")
meta = [e for e in events if e.get("ph") == "M"]
body = [e for e in events if e.get("ph") != "M" and e.get("cat") != "Trace" and isinstance(e.get("ts"), (int, float))]
ns = lambda us: round(us * 1000)
t0 = min(ns(e["ts"]) for e in body)
t1 = max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in body)
span = t1 - t0 + 1000
ids = [e["args"][k] for e in body for k in ("correlation", "External id") if isinstance(e.get("args", {}).get(k), int)]
ids += [e["id"] for e in body if isinstance(e.get("id"), int)]
id_step = (max(ids) if ids else 0) + 1
steps = [int(m.group(1)) for e in body for m in [re.match(r"ProfilerStep#(\d+)$", e.get("name", ""))] if m]
step_step = (max(steps) + 1) if steps else 0

# each event once as text, with slots for what changes between copies
templates = []
for e in body:
    e = json.loads(json.dumps(e))
    e["ts"] = "@@TS@@"
    a = e.get("args", {})
    for k in ("correlation", "External id"):
        if isinstance(a.get(k), int):
            a[k] = "@@ID%d@@" % a[k]
    if isinstance(e.get("id"), int):
        e["id"] = "@@ID%d@@" % e["id"]
    m = re.match(r"ProfilerStep#(\d+)$", e.get("name", ""))
    if m:
        e["name"] = "ProfilerStep#@@ST%s@@" % m.group(1)
    text = json.dumps(e, separators=(",", ":"))
    # a slot that was a whole string value becomes a number; ST sits inside the step's name
    parts = [p.strip('"').strip("@") if i % 2 else p
             for i, p in enumerate(re.split(r'("@@(?:TS|ID\d+)@@"|@@ST\d+@@)', text))]
    templates.append(parts)
tss = [ns(e["ts"]) for e in body]

target = int(mb * 1e6)
written = 0
with open(out, "w") as f:
    head = {k: v for k, v in trace.items() if k != "traceName"}
    text = json.dumps(head)[:-1]
    f.write(text + (", " if head else "") + '"traceEvents": [\n')
    first = True
    for e in meta:
        f.write(("" if first else ",\n") + json.dumps(e))
        first = False
    rep = 0
    while written < target:
        shift, idoff, stoff = rep * span, rep * id_step, rep * step_step
        chunk = []
        for parts, ts in zip(templates, tss):
            s = []
            for i, p in enumerate(parts):
                if i % 2 == 0:
                    s.append(p)
                elif p == "TS":
                    t = ts + shift
                    s.append("%d.%03d" % (t // 1000, t % 1000))
                elif p.startswith("ID"):
                    s.append(str(int(p[2:]) + idoff))
                else:
                    s.append(str(int(p[2:]) + stoff))
            chunk.append("".join(s))
        text = ("" if first else ",\n") + ",\n".join(chunk)
        first = False
        f.write(text)
        written += len(text)
        rep += 1
    f.write('\n],\n"traceName": "%s"\n}\n' % out)
print("%s: %d copies of %d events, %.1f MB" % (os.path.basename(out), rep, len(body), (written) / 1e6))
