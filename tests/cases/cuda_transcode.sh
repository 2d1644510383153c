# cuda_transcode.sh: the H200 fixtures (format 1.2, CUPTI_RAW only) copied through the
# assembler's transcoder (gen_trace -t) into CUDA chunks (format 1.3): `gpuscope dump` shows
# the same records, the programs' truth still holds, and the reports say the same.
echo "cuda transcode:"
D=$ROOT/tests/data
GEN=$ROOT/$BUILD_DIR/bench/gen_trace
recs() { grep '^{"cuda"' "$1" | sort; }
for c in copies spin resnet50; do
	"$GEN" -t "$D/cuda_$c.gst" "$T/tc_$c.gst"
	eq "$c: transcoded" 0 $?
	$GS dump --format jsonl "$D/cuda_$c.gst" >"$T/tc_raw_$c.jsonl" 2>/dev/null
	$GS dump --format jsonl "$T/tc_$c.gst" >"$T/tc_new_$c.jsonl" 2>"$T/tc_$c.err"
	eq "$c: dump exit 0" 0 $?
	eq "$c: dump warns of nothing" "" "$(cat "$T/tc_$c.err")"
	has "$c: format 1.7 (the writer's)" '"format":"1.7"' "$(head -1 "$T/tc_new_$c.jsonl")"
	between "$c: CUDA chunks" 1 1000000 "$(grep -c '^{"chunk":"cuda"' "$T/tc_new_$c.jsonl")"
	eq "$c: no CUDA chunk in the fixture" 0 "$(grep -c '^{"chunk":"cuda"' "$T/tc_raw_$c.jsonl")"
	eq "$c: dump shows the same records" "$(recs "$T/tc_raw_$c.jsonl" | md5sum)" "$(recs "$T/tc_new_$c.jsonl" | md5sum)"
	between "$c: records" 10 1000000 "$(recs "$T/tc_new_$c.jsonl" | wc -l)"
	eq "$c: info the same but for the file line" "$($GS info "$D/cuda_$c.gst" | tail -n +2)" "$($GS info "$T/tc_$c.gst" | tail -n +2)"
done
for c in copies spin; do
	out=$(python3 "$ROOT/tests/gpu/check_cuda.py" --no-stream-records "$c" "$T/tc_new_$c.jsonl" - 2>&1)
	eq "$c: transcoded records match the program" 0 $?
	printf '%s\n' "$out" | grep FAIL
done
for r in cuda_gpu_kern_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_size_sum; do
	eq "resnet50: $r the same" "$($GS stats -r $r --format csv "$D/cuda_resnet50.gst" 2>&1)" "$($GS stats -r $r --format csv "$T/tc_resnet50.gst" 2>&1)"
done
has "resnet50: nvtx_kern_sum has the measured range" ":iteration" "$($GS stats -r nvtx_kern_sum --format csv "$T/tc_resnet50.gst" 2>&1)"
# the committed 1.3 fixtures (tests/data/transcoded_*.gst) keep loading as they were written
for c in copies resnet50; do
	$GS dump --format jsonl "$D/transcoded_$c.gst" >"$T/tc_fix_$c.jsonl" 2>&1
	eq "fixture transcoded_$c: dump exit 0" 0 $?
	eq "fixture transcoded_$c: the records of cuda_$c" "$(recs "$T/tc_raw_$c.jsonl" | md5sum)" "$(recs "$T/tc_fix_$c.jsonl" | md5sum)"
done
# every program case recorded on the H200 (tests/data/cuda/): the same records after the
# transcoder, and the program's truth still holds
for f in "$D"/cuda/*.gst; do
	c=$(basename "$f" .gst)
	"$GEN" -t "$f" "$T/tcx_$c.gst" && $GS dump --format jsonl "$f" >"$T/tcx_raw_$c.jsonl" 2>/dev/null &&
		$GS dump --format jsonl "$T/tcx_$c.gst" >"$T/tcx_new_$c.jsonl" 2>/dev/null
	eq "$c: transcoded and dumped" 0 $?
	eq "$c: the same records" "$(recs "$T/tcx_raw_$c.jsonl" | md5sum)" "$(recs "$T/tcx_new_$c.jsonl" | md5sum)"
	out=$(python3 "$ROOT/tests/gpu/check_cuda.py" "$c" "$T/tcx_new_$c.jsonl" "$D/cuda/$c.out" 2>&1)
	eq "$c: transcoded records match the program" 0 $?
	printf '%s\n' "$out" | grep FAIL
done
