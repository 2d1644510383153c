"""kineto_ref.py: a second reading of a PyTorch profiler trace, in Python straight from
Kineto's JSON (json module; a duration is round(dur * 1000) ns, as written), compared with
what gpuscope's importer and reports make of it: cuda_gpu_kern_sum (per kernel name: instances, total, min, max),
cuda_api_sum (per call name: calls, total), nvtx_sum (per cpu_op / user_annotation name:
instances, total) and cuda_gpu_mem_size_sum (per copy direction / memset: count, bytes).
Prints "match", or what differs, and exits 1 then.
usage: kineto_ref.py GPUSCOPE TRACE(.json|.json.gz)"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys

gs, path = sys.argv[1:3]
raw = open(path, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
trace = json.loads(raw)
events = trace["traceEvents"] if isinstance(trace, dict) else trace
ns = lambda us: round(us * 1000)


def agg(rows):
    d = collections.defaultdict(list)
    for k, v in rows:
        d[k].append(v)
    return d


X = [e for e in events if e.get("ph") == "X" and isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int)]
# libkineto names a runtime call whose callback id its own table lacks "INVALID"; the id is the
# toolkit's (cupti_runtime_cbid.h: ids are only ever added), which names it
cbids = {}
hdr = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include", "cupti_runtime_cbid.h")
if os.path.exists(hdr):
    for m in re.finditer(r"CUPTI_RUNTIME_TRACE_CBID_(\w+?)(?:_v\d+)?\s*=\s*(\d+)", open(hdr).read()):
        cbids.setdefault(int(m.group(2)), m.group(1))
for e in X:
    if e.get("cat") == "cuda_runtime" and e.get("name") == "INVALID":
        e["name"] = cbids.get(e.get("args", {}).get("cbid"), "INVALID")
kern = agg((e["name"], ns(e["dur"])) for e in X if e.get("cat") in ("kernel", "Kernel"))
api = agg((re.sub(r"_v\d+$", "", e["name"]), ns(e["dur"])) for e in X
          if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"))
rng = agg((e["name"], ns(e["dur"])) for e in X
          if e.get("cat") in ("cpu_op", "user_annotation", "Operator", "cuda_profiler_range"))
DIR = {"HtoD": "[CUDA memcpy HtoD]", "DtoH": "[CUDA memcpy DtoH]",
       "DtoD": "[CUDA memcpy DtoD]", "HtoH": "[CUDA memcpy HtoH]",
       "PtoP": "[CUDA memcpy PtoP]"}
mem = agg((DIR.get(e["name"].split()[1], "?") if e["cat"] in ("gpu_memcpy", "Memcpy") else "[CUDA memset]",
           e.get("args", {}).get("bytes", 0)) for e in X if e.get("cat") in ("gpu_memcpy", "Memcpy", "gpu_memset", "Memset"))

out = subprocess.run([gs, "stats", "-r", "cuda_gpu_kern_sum,cuda_api_sum,nvtx_sum,cuda_gpu_mem_size_sum",
                      "--format", "json", path], capture_output=True, text=True)
if out.returncode:
    print("gpuscope stats exited %d: %s" % (out.returncode, out.stderr))
    sys.exit(1)
rep = json.loads(out.stdout)
bad = []


def cmp(what, want, got):
    if want != got:
        for k in sorted(set(want) | set(got)):
            if want.get(k) != got.get(k):
                bad.append("%s %s: reference %s, gpuscope %s" % (what, k[:70], want.get(k), got.get(k)))


cmp("kernel", {k: (len(v), sum(v), min(v), max(v)) for k, v in kern.items()},
    {r["Name"]: (r["Instances"], r["Total Time (ns)"], r["Min (ns)"], r["Max (ns)"]) for r in rep["cuda_gpu_kern_sum"]["rows"]})
cmp("api", {k: (len(v), sum(v)) for k, v in api.items()},
    {r["Name"]: (r["Num Calls"], r["Total Time (ns)"]) for r in rep["cuda_api_sum"]["rows"]})
cmp("range", {":" + k: (len(v), sum(v)) for k, v in rng.items()},
    {r["Range"]: (r["Instances"], r["Total Time (ns)"]) for r in rep["nvtx_sum"]["rows"] if not r["Range"].startswith("python:")})
mb = lambda b: round(b / 1e6, 3)
cmp("memory op", {k: (len(v), mb(sum(v))) for k, v in mem.items()},
    {r["Operation"]: (r["Count"], r["Total (MB)"]) for r in rep["cuda_gpu_mem_size_sum"]["rows"]})
print("\n".join(bad[:10]) if bad else "match (%d kernels, %d calls, %d ranges, %d memory op kinds)" % (
    len(kern), len(api), len(rng), len(mem)))
sys.exit(1 if bad else 0)
