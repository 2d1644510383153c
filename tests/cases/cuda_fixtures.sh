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
