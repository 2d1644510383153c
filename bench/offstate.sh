#!/usr/bin/env bash
# bench/offstate.sh: what gpuscope's CUDA recording costs a PyTorch step while its capture range
# is closed, and which of what it leaves set up in CUPTI for the whole run is the cost
# (GPUSCOPE_CUPTI_STANDING: the device, context, stream and graph kinds, the timestamp callback,
# the flush period; each variant leaves one out). Processes interleaved, REPS of each variant; each
# runs the workloads of bench/gpu_overhead.py (blocks of steps with the range closed, then open).
# Prints per workload and variant the median step with the range closed ("off") and open ("on"),
# each against the median step of the processes run with no profiler.
#   usage: bench/offstate.sh [BUILD_DIR]   (env: REPS=4 WORKLOADS="mlp resnet50")
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-4}
WL=${WORKLOADS:-mlp resnet50}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d)
cc -std=c17 -O2 -fPIC -shared -fvisibility=hidden -I"$CUDA_HOME/include" bench/cupti_floor.c \
	-L"$CUDA_HOME/lib64" -lcupti -Wl,--no-undefined -Wl,-rpath,"$CUDA_HOME/lib64" -o "$T/libfloor.so" || exit 1
# variant = GPUSCOPE_CUPTI_STANDING for `gpuscope profile -t cuda --cuda-api=none --sample none`
# (all: the default), or none / floor for no profiler / CUPTI kernels and copies only
VARIANTS=${VARIANTS:-"none floor all device,context,stream,timestamps,flush device,context,graph,timestamps,flush stream,graph,timestamps,flush device,context,stream,graph none_left"}
for _ in $(seq "$REPS"); do
	for v in $VARIANTS; do
		case $v in
		none) python3 bench/gpu_overhead.py none $WL 2>/dev/null >>"$T/none" ;;
		floor) CUDA_INJECTION64_PATH=$T/libfloor.so python3 bench/gpu_overhead.py floor $WL 2>/dev/null >>"$T/floor" ;;
		*) s=$v; [ "$v" = all ] && s=device,context,stream,graph,timestamps,flush; [ "$v" = none_left ] && s=none
			GPUSCOPE_CUPTI_STANDING=$s "$GS" profile -f -o "$T/run" -t cuda --cuda-api=none --sample none \
				--capture-range=cudaProfilerApi python3 bench/gpu_overhead.py "$v" $WL 2>>"$T/gs.err" >>"$T/$v" ;;
		esac
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
