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

# the nsys-style CUDA summaries on the same fixtures, against what the programs did
$GS stats -r cuda_gpu_mem_size_sum --format csv -o "$T/ms.csv" "$D/cuda_copies.gst" 2>/dev/null
eq "mem_size_sum: header" 'Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation' "$(head -1 "$T/ms.csv")"
eq "mem_size_sum: rows (MB, count, operation)" "15.000 2 [CUDA memset]|9.000 3 [CUDA memcpy HtoD]|7.000 2 [CUDA memcpy DtoH]|5.000 1 [CUDA memcpy DtoD]" \
	"$(tail -n +2 "$T/ms.csv" | awk -F, '{printf "%s%s %s %s", (NR > 1 ? "|" : ""), $1, $2, $8}')"
$GS stats -r cuda_gpu_mem_time_sum --format csv -o "$T/mt.csv" "$D/cuda_copies.gst" 2>/dev/null
eq "mem_time_sum: counts by operation" "2 3 1 2" "$(for op in 'DtoH' 'HtoD' 'DtoD'; do grep "memcpy $op" "$T/mt.csv" | cut -d, -f3; done | xargs) $(grep memset "$T/mt.csv" | cut -d, -f3)"
$GS stats -r cuda_gpu_kern_sum --format csv -o "$T/ks.csv" "$D/cuda_spin.gst" 2>/dev/null
eq "kern_sum: 5 spin kernels, demangled" '5,spin_kernel(unsigned long long)' "$(tail -1 "$T/ks.csv" | cut -d, -f3,9-)"
$GS stats -r cuda_api_sum --format csv -o "$T/as.csv" "$D/cuda_spin.gst" 2>/dev/null
eq "api_sum: 5 cudaLaunchKernel calls, suffix dropped" "5" "$(grep ',cudaLaunchKernel$' "$T/as.csv" | cut -d, -f3)"
$GS stats -r cuda_gpu_kern_sum --format json -o "$T/rk.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "kern_sum: every ResNet-50 kernel counted" 1429 "$(python3 -c 'import json,sys; print(sum(r["Instances"] for r in json.load(open(sys.argv[1]))))' "$T/rk.json")"

# stats filters: the spin kernels start 234.2, 236.2, 238.2, 240.2 and 242.2 ms after the
# session start, in process 753, on device 0
ks() { $GS stats -r cuda_gpu_kern_sum --format csv "$@" "$D/cuda_spin.gst" 2>/dev/null | tail -n +2 | cut -d, -f3; }
eq "--time 234ms:237ms: two kernels" 2 "$(ks --time 234ms:237ms)"
eq "--time 0.2:0.25: all five" 5 "$(ks --time 0.2:0.25)"
eq "--time 238.1ms: (open end): three" 3 "$(ks --time 238.1ms:)"
eq "--pid 753 --device 0: all five" 5 "$(ks --pid 753 --device 0)"
eq "--pid 754: none" "" "$(ks --pid 754)"
eq "--device 1: none" "" "$(ks --device 1)"
$GS stats --time 2:1 "$D/cuda_spin.gst" >/dev/null 2>&1; eq "--time with B before A: usage error" 2 $?

# gpu_util: busy time is the union of the five 2 ms kernels; a window clips the work to it
# (kernel 1 runs 234.210942..236.211642 ms, kernel 2 from 236.215322 ms)
eq "gpu_util: busy, wall, utilization" "0,NVIDIA H200,5,10002669,347454312,2.9" \
	"$($GS stats -r gpu_util --format csv "$D/cuda_spin.gst" | tail -1)"
eq "gpu_util: --time clips to the window" "2,2785378,3000000,92.8" \
	"$($GS stats -r gpu_util --format csv --time 234ms:237ms "$D/cuda_spin.gst" | tail -1 | cut -d, -f3-)"
eq "kern_gb_sum: shape columns" "5,1 1 1,1 1 1,spin_kernel(unsigned long long)" \
	"$($GS stats -r cuda_gpu_kern_gb_sum --format csv "$D/cuda_spin.gst" | tail -1 | cut -d, -f3,9-)"
