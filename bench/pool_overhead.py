"""pool_overhead.py: issue 3's overhead table from several runs of bench/gpu_overhead.sh pooled:
each run's per-process result files (the overhead-HHMMSS.tar.gz it leaves in $OUT, or a folder
of them: one file per variant, one JSON line per process and workload, {"workload", "variant",
"off_ms", "on_ms"}) are read together. Per process
the added time is on / off - 1; cells give the median over processes with the interquartile
range; gpuscope / floor is the ratio of the medians with a bootstrap 90% interval over processes
(2000 resamples, fixed seed); gpuscope / torch.profiler likewise, as a point value.
When the runs have floor_gs (the floor plus what gpuscope's default asks of CUPTI at the least:
API activity records and the waits' callbacks, bench/cupti_floor.c FLOOR_WAITS=1), its column
and gpuscope / floor_gs (with its interval) are added.
usage: pool_overhead.py RUN...   (each RUN a .tar.gz or a folder holding files named by variant:
none, floor, floor_gs, gpuscope, torch)"""
import json
import os
import random
import statistics
import sys
import tarfile

VARIANTS = ["none", "floor", "floor_gs", "gpuscope", "torch"]


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 2:
        return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def boot_ratio(rng, g, f):
    """median(g) / median(f) with a bootstrap 90% interval over processes, or n/a"""
    if not g or not f or statistics.median(f) <= 0:
        return "n/a"
    boot = []
    for _ in range(2000):
        gs = statistics.median(rng.choice(g) for _ in g)
        fs = statistics.median(rng.choice(f) for _ in f)
        if fs > 0:
            boot.append(gs / fs)
    boot.sort()
    return "%.2f (%.2f..%.2f)" % (statistics.median(g) / statistics.median(f),
                                  boot[int(0.05 * len(boot))], boot[int(0.95 * len(boot)) - 1])


def variant_lines(run, v):
    """the lines of variant v's file in run (a folder or a .tar.gz), None when it has none"""
    if os.path.isdir(run):
        path = os.path.join(run, v)
        return open(path).read().splitlines() if os.path.exists(path) else None
    try:
        with tarfile.open(run) as t:
            try:
                f = t.extractfile(v)
            except KeyError:
                return None
            return f.read().decode().splitlines() if f else None
    except (OSError, tarfile.TarError) as e:
        sys.exit("%s: not a folder or a tar file of results (%s)" % (run, e))


def main(dirs):
    added, off = {}, {}
    for d in dirs:
        for v in VARIANTS:
            lines = variant_lines(d, v)
            if lines is None:
                continue
            for n, line in enumerate(lines, 1):
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                    a = r["on_ms"] / r["off_ms"] - 1
                except (ValueError, KeyError, ZeroDivisionError) as e:
                    sys.exit("%s, %s:%d: not a result line (%s)" % (d, v, n, e))
                added.setdefault((r["workload"], v), []).append(a)
                if v == "none":
                    off.setdefault(r["workload"], []).append(r["off_ms"])
    workloads = []
    for (w, _v) in added:
        if w not in workloads:
            workloads.append(w)
    rng = random.Random(1)
    shown = [v for v in VARIANTS if v != "floor_gs" or any(k[1] == v for k in added)]
    gs_col = "floor_gs" in shown
    print("| workload | off step (none), median | " + " | ".join(
        "%s adds, median [IQR] (n)" % v for v in shown) + " | gpuscope / floor (90% bootstrap) |" +
        (" gpuscope / floor_gs (90% bootstrap) |" if gs_col else "") + " gpuscope / torch.profiler |")
    print("|---|---|" + "---|" * len(shown) + "---|" * (3 if gs_col else 2))
    for w in workloads:
        cells = []
        for v in shown:
            xs = added.get((w, v), [])
            if not xs:
                cells.append("n/a")
                continue
            lo, hi = quartiles(xs)
            cells.append("%+.1f%% [%+.1f..%+.1f] (%d)" % (100 * statistics.median(xs), 100 * lo, 100 * hi, len(xs)))
        g, t = added.get((w, "gpuscope")), added.get((w, "torch"))
        ratios = [boot_ratio(rng, g, added.get((w, "floor")))]
        if gs_col:
            ratios.append(boot_ratio(rng, g, added.get((w, "floor_gs"))))
        tor = "%.2f" % (statistics.median(g) / statistics.median(t)) if g and t and statistics.median(t) > 0 else "n/a"
        o = off.get(w)
        print("| %s | %s | %s | %s | %s |" % (w, "%.3f ms" % statistics.median(o) if o else "n/a",
                                             " | ".join(cells), " | ".join(ratios), tor))

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
