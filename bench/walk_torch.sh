#!/usr/bin/env bash
# bench/walk_torch.sh: what CPU sampling's stack walks cost inside a PyTorch process (GPU
# machine), with and without the collector's unwind thread: each workload of
# bench/gpu_overhead.py runs under `gpuscope profile --capture-range=cudaProfilerApi` with
# GPUSCOPE_DEBUG=1 (the collector prints its walks' count, mean and max time, the page faults
# taken inside them and its object look-ups at exit) and GPUSCOPE_UNWIND_WARM=1, then 0,
# RUNS rounds; one table row per process. The walks happen only inside the capture range.
#   usage: bench/walk_torch.sh [BUILD_DIR]   (env: RUNS=3 WORKLOADS="resnet50 mlp")
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
RUNS=${RUNS:-3}
WL=${WORKLOADS:-resnet50 mlp}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "| workload | unwind thread | walks | mean walk | max walk | frames per walk | page faults in walks | look-ups (from the list) | in look-ups per walk | tables read by the thread | on/off step |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for _ in $(seq "$RUNS"); do
	for wl in $WL; do
		for w in 1 0; do
			GPUSCOPE_UNWIND_WARM=$w GPUSCOPE_DEBUG=1 "$GS" profile -f -o "$T/t" --capture-range=cudaProfilerApi \
				python3 bench/gpu_overhead.py gpuscope "$wl" >"$T/out" 2>"$T/err"
			s=$(sed -n 's/.*sampling: \([0-9]*\) stacks walked.*mean \([0-9.]*\) us, max \([0-9.]*\) us, [0-9]* over 50 us, \([0-9.]*\) frames, \([0-9]*\) page faults.*, \([0-9]*\) object look-ups (\([0-9]*\) from the collector.s list), \([0-9.]*\) us in.*/\1 | \2 us | \3 us | \4 | \5 | \6 (\7) | \8 us/p' "$T/err" | tail -1)
			u=$(grep -o 'unwind tables: .*' "$T/err" | tail -1 | sed 's/unwind tables: //')
			r=$(python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline()); print("%+.1f%%" % (100 * (r["on_ms"] / r["off_ms"] - 1)))' "$T/out" 2>/dev/null)
			echo "| $wl | $([ $w = 1 ] && echo on || echo off) | ${s:-no figures} | ${u:--} | ${r:-?} |"
		done
	done
done
