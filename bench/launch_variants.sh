#!/usr/bin/env bash
# bench/launch_variants.sh: what each part of gpuscope's recording costs a launch-bound eager
# loop (examples/launch_bound.py: ~160 kernels of 2-4 us a step). Each variant is a process of
# `launch_bound.py --time` (no capture range: everything the variant records is on from the
# start), run REPS times interleaved; the figure is the planted variant's median step (ms).
#   usage: bench/launch_variants.sh [BUILD_DIR]   (env: REPS=3, VARIANTS=...)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-3}
T=$(mktemp -d)
. bench/floor_lib.sh
build_floor "$T" || exit 1
VARIANTS=${VARIANTS:-none floor floor_act gs_gpu gs_nonvtx gs_default gs_all}
EX="examples/launch_bound.py --time --blocks 3 --steps 40"
for _ in $(seq "$REPS"); do
	for v in $VARIANTS; do
		case $v in
		none) python3 $EX ;;
		floor) CUDA_INJECTION64_PATH=$T/libfloor.so python3 $EX ;;
		floor_act) FLOOR_API=activity CUDA_INJECTION64_PATH=$T/libfloor.so python3 $EX ;;
		gs_gpu) "$GS" profile -f -o "$T/$v" --cuda-api=none python3 $EX ;;
		gs_nonvtx) "$GS" profile -f -o "$T/$v" --trace cuda python3 $EX ;;
		gs_default) "$GS" profile -f -o "$T/$v" python3 $EX ;;
		gs_all) "$GS" profile -f -o "$T/$v" --cuda-api=all python3 $EX ;;
		esac 2>>"$T/$v.err" | sed -n 's/^{/{"variant": "'"$v"'", /p' >>"$T/all.jsonl"
	done
done
for v in $VARIANTS; do [ -f "$T/$v.gst" ] && { echo "== $v"; "$GS" info "$T/$v.gst" | grep -iE "cuda|lost|kernel" | head -8; }; done
tail -3 "$T"/*.err | head -40
python3 - "$T/all.jsonl" <<'PY'
import json, statistics, sys
rows = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows.setdefault(r["variant"], []).append(r["planted_ms"])
base = statistics.median(rows.get("none", [float("nan")]))
print("| variant | planted step, median ms (all) | added vs none |")
print("|---|---|---|")
for v, xs in rows.items():
    m = statistics.median(xs)
    print("| %s | %.3f (%s) | %+.1f%% |" % (v, m, " ".join("%.3f" % x for x in xs), 100 * (m / base - 1)))
PY
