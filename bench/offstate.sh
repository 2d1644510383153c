#!/usr/bin/env bash
# bench/offstate.sh: what gpuscope's CUDA recording costs a PyTorch step, with its capture range
# closed ("off") and open ("on"), and which part of its CUPTI set-up is the cost. Each variant
# leaves one part out: GPUSCOPE_CUPTI_STANDING (what stays set up for the whole run: the device,
# context, stream and graph kinds, the timestamp callback, the flush period) or GPUSCOPE_CUPTI_KINDS
# (the optional kinds of the range: sync, memory, overhead). All run `gpuscope profile -t cuda
# --cuda-api=none --sample none --capture-range=cudaProfilerApi`, so CUDA API timing, sampling and
# NVTX are not in it (bench/gpu_overhead.sh has those). Processes interleaved, REPS of each; each
# runs the workloads of bench/gpu_overhead.py (blocks of steps with the range closed, then open).
# Prints per workload and variant the median off and on step against no profiler's.
#   usage: bench/offstate.sh [BUILD_DIR]   (env: REPS=4 WORKLOADS="mlp resnet50" VARIANTS=...)
#   variants: none (no profiler), floor (bench/cupti_floor.c), all (everything, the default
#   set-up), -WORD (all but WORD: device, context, stream, graph, timestamps, flush, sync, memory,
#   overhead), standing_none, kinds_none
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-4}
WL=${WORKLOADS:-mlp resnet50}
T=$(mktemp -d)
. bench/floor_lib.sh
build_floor "$T" || exit 1
VARIANTS=${VARIANTS:-"none floor all -graph -stream -device -context -timestamps -flush standing_none -sync -memory -overhead"}
STANDING=device,context,stream,graph,timestamps,flush
KINDS=sync,memory,overhead
without() { # LIST WORD: LIST without WORD ("none" when empty)
	local r; r=$(printf '%s\n' "$1" | tr ',' '\n' | grep -vx "$2" | paste -sd, -)
	echo "${r:-none}"
}
for _ in $(seq "$REPS"); do
	for v in $VARIANTS; do
		s=$STANDING k=$KINDS
		case $v in
		none) python3 bench/gpu_overhead.py none $WL 2>/dev/null >>"$T/none"; continue ;;
		floor) CUDA_INJECTION64_PATH=$T/libfloor.so python3 bench/gpu_overhead.py floor $WL 2>/dev/null >>"$T/floor"; continue ;;
		all) ;;
		standing_none) s=none ;;
		kinds_none) k=none ;;
		-sync|-memory|-overhead) k=$(without "$KINDS" "${v#-}") ;;
		-device|-context|-stream|-graph|-timestamps|-flush) s=$(without "$STANDING" "${v#-}") ;;
		*) echo "offstate: unknown variant $v" >&2; exit 2 ;;
		esac
		GPUSCOPE_CUPTI_STANDING=$s GPUSCOPE_CUPTI_KINDS=$k "$GS" profile -f -o "$T/run" -t cuda \
			--cuda-api=none --sample none --capture-range=cudaProfilerApi \
			python3 bench/gpu_overhead.py "$v" $WL 2>>"$T/gs.err" >>"$T/$v"
	done
done
python3 - "$T" "$VARIANTS" $WL <<'PY'
import json, os, statistics, sys
d, variants, ws = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
rows = {}
for v in variants:
    p = os.path.join(d, v)
    for l in open(p) if os.path.exists(p) else []:
        if l.startswith("{"):
            r = json.loads(l)
            rows.setdefault((r["workload"], v), []).append((r["off_ms"], r["on_ms"]))
print("| workload | variant (kinds left on) | n | off: median step | vs none | on: median step | vs none |")
print("|---|---|---|---|---|---|---|")
for w in ws:
    base = rows.get((w, "none"))
    b = statistics.median(x[0] for x in base) if base else float("nan")
    for v in variants:
        xs = rows.get((w, v), [])
        if not xs:
            print("| %s | %s | 0 | | | | |" % (w, v))
            continue
        off = statistics.median(x[0] for x in xs)
        on = statistics.median(x[1] for x in xs)
        print("| %s | %s | %d | %.3f ms | %+.1f%% | %.3f ms | %+.1f%% |" % (w, v, len(xs), off, 100 * (off / b - 1), on, 100 * (on / b - 1)))
PY
