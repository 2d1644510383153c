#!/usr/bin/env bash
# bench/gpu_overhead.sh: what recording costs a PyTorch step on the GPU machine. For each
# workload, processes of the variants run interleaved (none, floor (gpuscope recording GPU
# activity only), gpuscope default, torch.profiler, none, ...), REPS of each; the table gives the median of the per-process median step times, the
# spread, and the time each profiler adds. Appends to bench/RESULTS.md.
#   usage: bench/gpu_overhead.sh [BUILD_DIR]   (env: REPS=5 WORKLOADS="mlp item resnet50")
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-5}
T=$(mktemp -d)
for w in ${WORKLOADS:-mlp item resnet50}; do
	for _ in $(seq "$REPS"); do
		python3 bench/gpu_overhead.py "$w" none 2>/dev/null | tail -1 >>"$T/$w.none"
		"$GS" profile -f -o "$T/run" -t cuda --cuda-api=none python3 bench/gpu_overhead.py "$w" gpuscope 2>/dev/null |
			tail -1 >>"$T/$w.floor"
		"$GS" profile -f -o "$T/run" python3 bench/gpu_overhead.py "$w" gpuscope 2>/dev/null | tail -1 >>"$T/$w.gpuscope"
		python3 bench/gpu_overhead.py "$w" torch 2>/dev/null | tail -1 >>"$T/$w.torch"
	done
done
python3 - "$T" "$REPS" ${WORKLOADS:-mlp item resnet50} <<'PY' | tee "$T/table.md"
import json, statistics, sys
d, reps, ws = sys.argv[1], sys.argv[2], sys.argv[3:]
print("| workload | no profiler | floor: gpuscope -t cuda --cuda-api=none | gpuscope (default) | torch.profiler | floor adds | gpuscope adds | torch.profiler adds | gpuscope / floor (added) | gpuscope / torch.profiler (added) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for w in ws:
    v = {}
    for var in ("none", "floor", "gpuscope", "torch"):
        xs = [json.loads(l)["step_ms"] for l in open("%s/%s.%s" % (d, w, var)) if l.strip()]
        v[var] = (statistics.median(xs), min(xs), max(xs)) if xs else (float("nan"),) * 3
    base = v["none"][0]
    add_f, add_g, add_t = v["floor"][0] - base, v["gpuscope"][0] - base, v["torch"][0] - base
    cell = lambda t: "%.3f ms (%.3f..%.3f)" % t
    ratio = lambda a, b: "%.2f" % (a / b) if b > 0 else "n/a"
    print("| %s | %s | %s | %s | %s | %+.1f%% | %+.1f%% | %+.1f%% | %s | %s |" % (
        w, cell(v["none"]), cell(v["floor"]), cell(v["gpuscope"]), cell(v["torch"]),
        100 * add_f / base, 100 * add_g / base, 100 * add_t / base, ratio(add_g, add_f),
        ratio(add_g, add_t)))
PY
{
	echo
	echo "## $(date -u +%Y-%m-%d): recording overhead on PyTorch steps (H200)"
	echo
	echo "Machine: the lent nvidia-h200 ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1);"
	echo "$(python3 -c 'import torch; print("torch", torch.__version__)')). Command: \`bench/gpu_overhead.sh\`: per workload,"
	echo "$REPS processes of each variant, interleaved; each process times 30 steps after 10 warm-up"
	echo "steps and reports their median; the table shows the median over processes (min..max)."
	echo "gpuscope runs with its defaults (cuda,nvtx; diagnosis set of API calls; graph-level)."
	echo
	cat "$T/table.md"
} >>bench/RESULTS.md
[ -n "${OUT:-}" ] && cp bench/RESULTS.md "$OUT/RESULTS.md"
