#!/usr/bin/env bash
# tests/gpu/run.sh: the checks that need the GPU machine. Runs the built tree it is given (the
# device has no package registry, so the build is made here and carried), profiles PyTorch's
# NVTX paths, and measures NVTX overhead on that host. Prints a short table last.
#   usage: tests/gpu/run.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
echo "== host: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'

echo "torch nvtx:"
want=$($GS profile -o "$T/torch" python3 tests/gpu/torch_nvtx.py 2>"$T/torch.err" | tail -1)
eq "torch: script ran" 0 $?
cat "$T/torch.err" | tail -2
$GS stats -r nvtx_sum --format csv -o "$T/torch.csv" "$T/torch.gst"
for r in step forward backward; do
	eq "torch: range_push $r" "$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['$r'])" "$want")" "$(csv_field "$T/torch.csv" ":$r" Instances)"
done
eq "torch: range_start/end" "1 StartEnd" "$(csv_field "$T/torch.csv" :start_end Instances) $(csv_field "$T/torch.csv" :start_end Style)"
ops=$(grep -c 'aten::' "$T/torch.csv")
between "torch: emit_nvtx op ranges (aten::*)" 3 100000 "$ops"
has "torch: marks" "nvtx marks                5" "$($GS info "$T/torch.gst")"
head -12 "$T/torch.csv"

echo "cuda programs:"
bash tests/gpu/cuda.sh "$BUILD" | tee "$T/cuda.txt"
p=$(tail -1 "$T/cuda.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))

echo "resnet50 against torch.profiler:"
$GS profile -o "$T/resnet" python3 tests/gpu/torch_cuda.py gpuscope 2>&1 | tail -1
python3 tests/gpu/torch_cuda.py torch "$T/resnet_torch.json"
$GS dump --format jsonl "$T/resnet.gst" >"$T/resnet.jsonl"
$GS stats -r nvtx_kern_sum --format json -o "$T/resnet_ks.json" "$T/resnet.gst"
python3 tests/gpu/compare_torch.py "$T/resnet.jsonl" "$T/resnet_torch.json" "$T/resnet_ks.json" | tee "$T/resnet.txt"
[ -n "${OUT:-}" ] && cp "$T/resnet.gst" "$OUT/resnet50.gst"
p=$(tail -1 "$T/resnet.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))

echo "overhead:"
RUNS=${RUNS:-5} bash bench/run.sh "$BUILD" | tee "$T/bench.txt"
cp bench/RESULTS.md "${OUT:-$T}/RESULTS.md" 2>/dev/null
echo
echo "$PASS passed, $FAIL failed"
