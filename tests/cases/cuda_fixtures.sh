# cuda_fixtures.sh: CUPTI activity buffers recorded on an H200 (tests/data/cuda_*.gst, made by
# tests/gpu/cuda.sh) decode to exactly what the programs did, on a machine without a GPU.
echo "cuda fixtures:"
D=$ROOT/tests/data
for c in copies spin; do
	$GS dump --format jsonl "$D/cuda_$c.gst" >"$T/cuda_$c.jsonl" 2>"$T/cuda_$c.err"
	eq "cuda $c: dump exit 0" 0 $?
	out=$(python3 "$ROOT/tests/gpu/check_cuda.py" "$c" "$T/cuda_$c.jsonl" - 2>&1)
	eq "cuda $c: decoded records match the program" 0 $?
	printf '%s\n' "$out" | grep FAIL
done
i=$($GS info "$D/cuda_copies.gst")
has "cuda copies: info counts copies" "cuda memcpy               6 (20.0 MiB)" "$i"
has "cuda copies: info counts memsets" "cuda memset               2" "$i"
has "cuda copies: device" "NVIDIA H200  sm_90  132 SMs" "$i"

# ResNet-50 inference (3 batches of 16 in NVTX ranges "iteration" inside "measure"), recorded
# on an H200 where torch.profiler counted 714 kernels for the same 3 batches: every kernel is
# charged to its NVTX ranges through its launching API call.
$GS stats -r nvtx_kern_sum --format json -o "$T/rn_ks.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "resnet50: nvtx_kern_sum exit 0" 0 $?
out=$(python3 - "$T/rn_ks.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
def by(r):
    sel = [x for x in rows if x["NVTX Range"] == r]
    return sum(x["Kern Inst"] for x in sel), max([x["NVTX Inst"] for x in sel] or [0])
print(*by(":measure"), *by(":iteration"))
PY
)
eq "resnet50: 714 kernels in :measure (1 instance) and in :iteration (3 instances)" "714 1 714 3" "$out"
has "resnet50: kernel names demangled" "void cudnn::bn_fw_inf_1C11_kernel_NCHW" "$(cat "$T/rn_ks.json")"
