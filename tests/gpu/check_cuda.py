"""check_cuda.py: compare what gpuscope recorded of the CUDA programs in tests/gpu/programs
with what they did. Reads `gpuscope dump --format jsonl TRACE` output; prints one ok/FAIL
line per check and a closing "N passed, N failed".
usage: check_cuda.py [--no-stream-records] CASE DUMP.jsonl PROGRAM_STDOUT
(--no-stream-records: a trace recorded before gpuscope asked CUPTI for stream records)"""
import json
import sys

args = sys.argv[1:]
stream_records = "--no-stream-records" not in args
args = [a for a in args if a != "--no-stream-records"]
case, dump_path, out_path = args[:3]
recs = [json.loads(l) for l in open(dump_path)]
cuda = [r for r in recs if "cuda" in r]
out = open(out_path).read().split("\n") if out_path != "-" else []  # "-": no program output
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("  ok   %s: %s" % (case, name))
    else:
        failed += 1
        print("  FAIL %s: %s %s" % (case, name, detail))


def of(kind):
    return [r for r in cuda if r["cuda"] == kind]


def kernels_by_pid():
    """kernel names per process: a cupti_raw chunk line names the pid of the records after it"""
    per, pid = {}, None
    for r in recs:
        if r.get("chunk") == "cupti_raw":
            pid = r["pid"]
        elif r.get("cuda") == "kernel":
            per.setdefault(pid, []).append(r["name"])
    return per


kernels, copies, sets = of("kernel"), of("memcpy"), of("memset")
apis = of("runtime_api") + of("driver_api")
contexts, created = of("context"), of("stream")


def check_created(n, flag, used):
    """the n streams in `used` each have a STREAM record with this flag (CUPTI also reports
    the streams CUDA makes for itself when the context is created), and a CONTEXT record
    names a default stream the program did not use"""
    if not stream_records:
        return
    flags = {r["stream"]: r["flag"] for r in created}
    check("%d %s stream(s) created" % (n, flag), len(set(used)) == n and
          all(flags.get(s) == flag for s in used), "%s vs %s" % (sorted(set(used)), flags))
    nulls = {c["null_stream"] for c in contexts}
    check("a context record names the default stream, flagged so", len(contexts) >= 1 and
          not (nulls & set(used)) and all(flags.get(s) == "default" for s in nulls), str(contexts))


if case == "copies":
    want = [("HtoD", "pageable", "device", 1000000, 0), ("HtoD", "pinned", "device", 2000000, 0),
            ("DtoH", "device", "pageable", 3000000, 0), ("DtoH", "device", "pinned", 4000000, 0),
            ("DtoD", "device", "device", 5000000, 0), ("HtoD", "pinned", "device", 6000000, 1)]
    got = sorted((c["kind"], c["src"], c["dst"], c["bytes"], c["async"]) for c in copies)
    check("six copies, kinds, memory kinds, bytes, async", got == sorted(want), str(got))
    got = sorted((s["bytes"], s["async"]) for s in sets)
    check("two memsets, bytes, async", got == [(7000000, 0), (8000000, 1)], str(got))
    names = {a["name"] for a in apis}
    check("runtime API calls named", {"cudaMemcpy_v3020", "cudaMemcpyAsync_v3020", "cudaMemset_v3020"} <= names, str(sorted(names))[:300])
    corr = {a["correlation"] for a in apis}
    check("every copy has its API call", all(c["correlation"] in corr for c in copies + sets))
    check_created(1, "blocking", [c["stream"] for c in copies + sets if c["async"]])
elif case == "spin":
    ev = [float(l.split()[1]) for l in out if l.startswith("event_ms")]
    ks = sorted(kernels, key=lambda k: k["start"])
    check("5 kernels", len(ks) == 5 and len(ev) in (0, 5), "%d kernels, %d events" % (len(ks), len(ev)))
    check("name", all("spin_kernel" in k["name"] for k in ks), str({k["name"] for k in ks}))
    ok = all(abs(k["dur"] / 1e6 - e) <= max(0.02 * e, 0.002) for k, e in list(zip(ks, ev))[1:])
    if ev:
        check("durations within 2% or 2 us of cudaEvent timing (launches 2-5)", ok,
              str([(k["dur"] / 1e6, e) for k, e in zip(ks, ev)]))
    check("spins at least 2 ms", all(k["dur"] >= 2000000 for k in ks))
elif case == "threads":
    check("1000 kernels", len(kernels) == 1000, str(len(kernels)))
    check("4 streams of 250", sorted(
        sum(1 for k in kernels if k["stream"] == s) for s in {k["stream"] for k in kernels}) == [250] * 4)
    check_created(4, "non-blocking", [k["stream"] for k in kernels])
    launches = [a for a in apis if a["name"].startswith("cudaLaunchKernel")]
    corr = {a["correlation"] for a in apis}
    check("every kernel has its launch call", all(k["correlation"] in corr for k in kernels))
    check("1000 launch calls on 4 threads", len(launches) == 1000 and len({a["tid"] for a in launches}) == 4,
          "%d launches, %d threads" % (len(launches), len({a["tid"] for a in launches})))
elif case == "streams":
    ks = [k for k in kernels if "busy_kernel" in k["name"]]
    check("3 kernels on 3 streams", len(ks) == 3 and len({k["stream"] for k in ks}) == 3)
    check_created(3, "non-blocking", [k["stream"] for k in ks])
    if len(ks) == 3:
        latest_start = max(k["start"] for k in ks)
        earliest_end = min(k["start"] + k["dur"] for k in ks)
        check("they overlap", latest_start < earliest_end)
elif case == "graph":  # default: graph-level records
    gl = of("graph")
    check("100 graph launches, one record each", len(gl) == 100, str(len(gl)))
    check("no per-node kernels", not [k for k in kernels if k["graph"]], str(len(kernels)))
    corr = {a["correlation"] for a in apis}
    check("each graph launch has its cudaGraphLaunch call", all(g["correlation"] in corr for g in gl))
    check_created(1, "non-blocking", [g["stream"] for g in gl])
elif case == "graph_nodes":  # --cuda-graph-trace=node
    gk = [k for k in kernels if k["graph"]]
    check("300 graph node kernels", len(gk) == 300, str(len(gk)))
elif case == "graph_late":  # instantiated before cudaProfilerStart, launched in the range
    gl = of("graph")
    check("100 graph launches, one record each (the program ran: no crash)", len(gl) == 100, str(len(gl)))
    corr = {a["correlation"] for a in apis}
    check("each graph launch has its cudaGraphLaunch call", all(g["correlation"] in corr for g in gl))
elif case == "graph_late_nodes":
    gk = [k for k in kernels if k["graph"]]
    check("300 graph node kernels inside the range", len(gk) == 300, str(len(gk)))
elif case == "alloc":
    allocs = sorted(r["bytes"] for r in of("alloc"))
    frees = sorted(r["bytes"] for r in of("free"))
    mib = 1 << 20
    check("allocations", allocs == [32 * mib, 64 * mib, 128 * mib, 256 * mib], str(allocs))
    check("frees", frees == [32 * mib, 64 * mib, 128 * mib, 256 * mib], str(frees))
elif case == "fork":
    per = kernels_by_pid()
    counts = sorted(len(v) for v in per.values())
    check("10 + 10 kernels in two children, 5 in the parent", counts == [5, 10, 10], str(counts))
elif case == "profiler_range":  # --capture-range=cudaProfilerApi
    names = [k["name"] for k in kernels]
    check("exactly the 7 kernels between cudaProfilerStart and Stop",
          len(names) == 7 and all("inside_kernel" in n for n in names), str(names)[:300])
    # API timing is switched on when the range opens, after CUDA is set up: each kernel's
    # launch call is there (they were missing until that was fixed)
    launched = {r["correlation"] for r in apis if "Launch" in r.get("name", "")}
    check("the 7 kernels' launch calls are recorded inside the range",
          all(k["correlation"] in launched for k in kernels) and len(launched) == 7,
          "%d launch calls" % len(launched))
    check("the device is known though its context was created before the range",
          len(of("device")) == 1, str(len(of("device"))))
elif case in ("contexts", "contexts_range"):  # programs/contexts.cu: a second context made outside the range
    names = [k["name"] for k in kernels]
    inside = [k for k in kernels if "second_kernel" in k["name"] or "primary_kernel" in k["name"]]
    want = (5, 3, 0) if case == "contexts_range" else (5, 3, 4)
    got = tuple(sum(w in n for n in names) for w in ("second_kernel", "primary_kernel", "before_kernel"))
    check("kernels second/primary/before %s" % (want,), got == want, str(got))
    launched = {r["correlation"] for r in apis if "Launch" in r.get("name", "")}
    check("every kernel's launch call is recorded, in both contexts",
          len(kernels) == sum(want) and all(k["correlation"] in launched for k in kernels),
          "%d of %d" % (sum(k["correlation"] in launched for k in kernels), len(kernels)))
    check("the kernels ran on two streams, each context's default one", len({k["stream"] for k in inside}) == 2,
          str({k["stream"] for k in inside}))
    check("the program's output", "contexts 2" in out and "inside 8" in out, str(out))
elif case == "fork_after":
    per = kernels_by_pid()
    check("5 kernels in the parent only", sorted(len(v) for v in per.values()) == [5], str(per.keys()))
elif case == "exec":
    names = [k["name"] for k in kernels]
    pre = sum("pre_exec" in n for n in names)
    post = sum("post_exec" in n for n in names)
    check("4 kernels after exec", post == 4, "pre %d post %d" % (pre, post))
    check("3 kernels before exec (flushed at exec by libgpuscope-preload.so)", pre == 3, "pre %d" % pre)
elif case == "phases":  # the whole run
    names = [k["name"] for k in kernels]
    check("1 warm + 16 tick kernels", (sum("warm" in n for n in names), sum("tick" in n for n in names)) == (1, 16), str(names)[:300])
elif case in ("phases_nvtx", "phases_window"):  # -c nvtx:measure; --delay 2 --duration 2
    names = [k["name"] for k in kernels]
    check("exactly the 7 tick kernels of the middle phase", len(names) == 7 and all("tick" in n for n in names), str(names)[:300])
elif case in ("syncs", "syncs_callback", "syncs_activity", "syncs_gpu", "syncs_bt_all"):  # one wait of each kind
    # (programs/syncs.cu), the records written from gpuscope's callbacks (the default, with the
    # other calls by API activity records; syncs_callback: every call by callbacks; syncs_gpu:
    # --cuda-api=none, the calls that wait still seen for their records) or CUPTI's
    # SYNCHRONIZATION kind (syncs_activity: a fixture recorded so on 2026-12-04)
    spins = sorted((k for k in kernels if "spin" in k["name"]), key=lambda k: k["start"])
    ids = {"a": spins[0]["stream"], "c": spins[-1]["stream"]} if len(spins) == 4 else {}
    waits = {int(l.split()[1]): int(l.split()[2]) for l in out if l.startswith("wait ")}
    sy = sorted(of("sync"), key=lambda r: r["start"])
    # CUPTI's types: 1 event synchronize, 2 stream wait event, 3 stream synchronize, 4 context
    check("4 sync records, in the program's order", [r["type"] for r in sy] == [3, 1, 2, 4],
          str([(r["type"], r["stream"]) for r in sy]))
    if len(sy) == 4 and len(ids) == 2 and len(waits) == 4:
        check("the stream synchronize names stream a's kernel's stream, the stream wait stream c's",
              (sy[0]["stream"], sy[2]["stream"]) == (ids["a"], ids["c"]),
              "%s vs %s" % ((sy[0]["stream"], sy[2]["stream"]), ids))
        check("the three host waits last at least 4 ms, within 0.5 ms of the program's timing",
              all(sy[i]["dur"] >= 4000000 and abs(sy[i]["dur"] - waits[i + 1]) < 500000 for i in (0, 1, 3)),
              str([(r["dur"], waits[i + 1]) for i, r in enumerate(sy)]))
        if case == "syncs_gpu":
            check("no API call recorded, the records' correlation ids distinct",
                  not apis and len({r["correlation"] for r in sy}) == 4, "%d calls" % len(apis))
        else:
            by_corr = {a["correlation"]: a.get("name", "") for a in apis}
            names = [by_corr.get(r["correlation"], "") for r in sy]
            check("each sync record carries its call's correlation id",
                  [n.split("_v")[0] for n in names] == ["cudaStreamSynchronize", "cudaEventSynchronize",
                                                         "cudaStreamWaitEvent", "cudaDeviceSynchronize"], str(names))
    # --cudabacktrace: by default (sync:80us) the three waits of 4 ms or more have their stacks;
    # with all:0 (syncs_bt_all) every recorded call has
    st = [r for r in recs if r.get("event") == "cuda_stack"]
    bt = any(r.get("chunk") == "session" and "k15" in r for r in recs)  # recorded with stacks
    if case in ("syncs", "syncs_callback") and len(sy) == 4 and bt:
        check("the three long waits' stacks (--cudabacktrace sync:80us), by correlation id",
              sorted(r["correlation"] for r in st) == sorted(sy[i]["correlation"] for i in (0, 1, 3)) and
              all(len(r["frames"]) >= 2 for r in st), str([(r["correlation"], len(r["frames"])) for r in st]))
    elif case == "syncs_bt_all":
        # the program's 8 calls of the diagnosis set: 4 launches, the 4 waits
        check("every recorded call has its stack (--cudabacktrace all:0)",
              sorted(r["correlation"] for r in st) == sorted(a["correlation"] for a in apis) and len(st) == 8,
              "%d stacks, %d calls" % (len(st), len(apis)))
    elif case == "syncs_gpu":
        check("no stacks without API records", not st, "%d stacks" % len(st))
if case == "stream_reuse":  # programs/stream_reuse.cu: 4 streams one after another, each
    # waited on twice, then destroyed; the driver may give a destroyed stream's handle to the next
    made = [l.split() for l in out if l.startswith("stream ")]
    spins = sorted((k for k in kernels if "spin" in k["name"]), key=lambda k: k["start"])
    sy = sorted(of("sync"), key=lambda r: r["start"])
    check("8 stream synchronize records", [r["type"] for r in sy] == [3] * 8, str([r["type"] for r in sy]))
    check("each names the stream its spin ran on, the second wait of each too",
          len(spins) == 4 and len(sy) == 8 and all(sy[2 * i]["stream"] == sy[2 * i + 1]["stream"] ==
                                                   spins[i]["stream"] for i in range(4)),
          "records %s, spins %s" % ([r["stream"] for r in sy], [k["stream"] for k in spins]))
    print("# stream_reuse: handles %s, %d given again" % ([m[3] for m in made],
                                                         len(made) - len({m[3] for m in made})))
print("%s: %d passed, %d failed" % (case, passed, failed))
sys.exit(1 if failed else 0)
