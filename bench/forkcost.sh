#!/usr/bin/env bash
# bench/forkcost.sh: what gpuscope adds to a fork of a process of many mappings (a DataLoader
# worker forked from a PyTorch process: thousands). Runs build/bench/forkcost (bench/forkcost.c)
# RUNS times with no profiler and under `gpuscope profile` (defaults: CPU sampling, so every
# process is preloaded and each fork child gets a ring and its parent's mappings), and under a
# second build's gpuscope when BASE is given, alternating; prints per variant the median (min..max)
# microseconds per fork and the added time over no profiler.
#   usage: bench/forkcost.sh [BUILD_DIR]   (env: RUNS=5 MAPS="200 2000" FORKS=40 BASE=<build dir>)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-5} MAPS=${MAPS:-200 2000} FORKS=${FORKS:-40} BASE=${BASE:-}
FC=$PWD/$BUILD/bench/forkcost
[ -x "$FC" ] || { echo "forkcost: build it first (make)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for m in $MAPS; do
	for _ in $(seq "$RUNS"); do
		"$FC" "$m" "$FORKS" | awk '{print $2}' >>"$T/none.$m"
		"$PWD/$BUILD/bin/gpuscope" profile -f -o "$T/run" "$FC" "$m" "$FORKS" 2>/dev/null | awk '{print $2}' >>"$T/gpuscope.$m"
		[ -n "$BASE" ] && "$BASE/bin/gpuscope" profile -f -o "$T/run" "$FC" "$m" "$FORKS" 2>/dev/null | awk '{print $2}' >>"$T/base.$m"
	done
done
python3 - "$T" "$MAPS" "$BASE" <<'PY'
import statistics, sys
d, maps, base = sys.argv[1], sys.argv[2].split(), sys.argv[3]
vs = ["none", "gpuscope"] + (["base"] if base else [])
print("mappings | " + " | ".join("%s, us per fork" % v for v in vs) + " | " + " | ".join("%s adds, us" % v for v in vs[1:]))
for m in maps:
    xs = {v: [float(l) for l in open("%s/%s.%s" % (d, v, m))] for v in vs}
    med = {v: statistics.median(xs[v]) for v in vs}
    print("%s | %s | %s" % (m, " | ".join("%.0f (%.0f..%.0f)" % (med[v], min(xs[v]), max(xs[v])) for v in vs),
                             " | ".join("%+.0f" % (med[v] - med["none"]) for v in vs[1:])))
PY
