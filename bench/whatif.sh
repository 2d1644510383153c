#!/usr/bin/env bash
# bench/whatif.sh: the examples with planted bottlenecks (examples/*.py), on the GPU machine.
# For each example: profile the planted and the fixed variant with gpuscope (the traces become
# tests/data/examples/ fixtures) and analyze them; then time planted against fixed without a
# profiler (REPS processes, each alternating blocks: `EXAMPLE.py --time`), so the saving that
# analyze estimates can be compared with the gain the fix gives (bench/whatif_table.py).
# Also records the trace pairs of gpuscope diff's tests (healthy.py run twice, with one kernel
# 2x slower, with an extra sync; pageable_copy.py with pinned memory).
#   usage: bench/whatif.sh [BUILD_DIR]      env: OUT (results; default a temporary directory),
#          REPS=3, EXAMPLES="launch_bound sync_bound input_bound pageable_copy fp32_gemm healthy"
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
R=${OUT:-$(mktemp -d)}/whatif
mkdir -p "$R"
REPS=${REPS:-3}
EXAMPLES=${EXAMPLES:-launch_bound sync_bound input_bound pageable_copy fp32_gemm healthy}
echo "== host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
python3 -c 'import torch; print("torch", torch.__version__)'

# prof NAME ARGS...: profile examples/ARGS into $R/NAME.gst and analyze it
prof() {
	local name=$1; shift
	local t0=$SECONDS
	timeout 180 "$GS" profile -f -o "$R/$name" python3 "$@" \
		>"$R/$name.out" 2>"$R/$name.err" || echo "$name: profile exited $?"
	"$GS" analyze --step step --format json -o "$R/$name.analyze.json" "$R/$name.gst" 2>>"$R/$name.err"
	"$GS" stats -r cuda_gpu_kern_sum --format csv -o "$R/$name.kern.csv" "$R/$name.gst" 2>>"$R/$name.err"
	python3 - "$R/$name.analyze.json" "$name" $((SECONDS - t0)) <<'PY'
import json, sys
try:
    a = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]:<22} no analysis: {e}"); sys.exit()
v, f = a["verdict"], a["findings"]
top = f"{f[0]['id']} {f[0]['saving_ms_per_step']:.3f} ms" if f else "-"
print(f"{sys.argv[2]:<22} {v['steps']:>3} steps {v['step_time_ms']:8.3f} ms  {v['primary']:<15} top: {top}  ({sys.argv[3]} s)")
PY
}

echo "-- profiles"
for ex in $EXAMPLES; do
	prof "$ex" "examples/$ex.py"
	[ "$ex" = healthy ] || prof "${ex}_fixed" "examples/$ex.py" --fixed
done
echo "-- diff pairs"
prof diff_base_b examples/healthy.py
prof diff_kernel2x examples/healthy.py --slow-exp
prof diff_extrasync examples/healthy.py --extra-sync
prof diff_pinned examples/pageable_copy.py --pinned
echo "-- timing without a profiler ($REPS processes per example)"
for rep in $(seq "$REPS"); do
	for ex in $EXAMPLES; do
		timeout 180 python3 "examples/$ex.py" --time >>"$R/time.jsonl" 2>>"$R/time.err" ||
			echo "$ex --time exited $?"
	done
done
python3 - "$R/time.jsonl" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    rows.setdefault(d["example"], []).append(d)
for ex, ds in rows.items():
    p = statistics.median(d["planted_ms"] for d in ds)
    f = statistics.median(d["fixed_ms"] for d in ds)
    print(f"{ex:<16} planted {p:8.3f} ms  fixed {f:8.3f} ms  gain {p - f:8.3f} ms "
          f"({100 * (p - f) / p:5.1f}%)  gains {[round(d['gain_ms'], 3) for d in ds]}")
PY
