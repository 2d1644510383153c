"""graph_breaks_ref.py: torch.compile's graph breaks in a PyTorch profiler trace worked out
here from its events, against analyze's torch-graph-breaks (its JSON on standard input).
A "Torch-Compiled Region: F/C" inside another of its thread is a frame resumed after a break;
in each outermost region that holds one, the time outside the "## Call CompiledFxGraph" ranges
is the code between the graphs. For a trace without GPU work or CUDA calls (CPU activities
only), all of that time inside the ProfilerStep ranges is the finding's saving. Prints
"RESUMED BETWEEN_MS" from the trace, then the same from analyze ("none" when it did not fire).

usage: gpuscope analyze --format json TRACE | graph_breaks_ref.py TRACE
"""
import gzip
import json
import sys

raw = open(sys.argv[1], "rb").read()
ev = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["traceEvents"]


def ns(t):
    return round(float(t) * 1000)


x = [e for e in ev if e.get("ph") == "X" and "dur" in e]
steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in x if e["name"].startswith("ProfilerStep#")]
regions = sorted(((e["tid"], ns(e["ts"]), -(ns(e["ts"]) + ns(e["dur"]))) for e in x
                  if e["name"].startswith("Torch-Compiled Region: ")))
calls = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in x
               if e["name"].startswith("## Call CompiledFxGraph"))


def in_step(t):
    return any(s <= t < e for s, e in steps)


def clip_to_steps(a, b):
    return sum(max(0, min(b, e) - max(a, s)) for s, e in steps)


resumed, between = 0, 0
i = 0
while i < len(regions):
    tid, s, e = regions[i][0], regions[i][1], -regions[i][2]
    j = i + 1
    while j < len(regions) and regions[j][0] == tid and regions[j][1] < e:
        if -regions[j][2] <= e and in_step(regions[j][1]):
            resumed += 1
        j += 1
    if j > i + 1 and any(c0 < e and c1 > s for c0, c1 in calls):
        t = s
        for c0, c1 in calls:
            if c1 <= t or c0 >= e:
                continue
            between += clip_to_steps(t, max(t, c0))
            t = max(t, c1)
        between += clip_to_steps(t, e)
    i = j
a = json.load(sys.stdin)
f = [f for f in a["findings"] if f["id"] == "torch-graph-breaks"]
got = "%d %.3f" % (f[0]["evidence"]["resumed_frames"], f[0]["evidence"]["between_graphs_ms"]) if f else "none"
print("%d %.3f %s" % (resumed, between / 1e6, got))
