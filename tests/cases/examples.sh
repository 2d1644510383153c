# examples.sh: analyze on the example workloads' traces (examples/*.py recorded on an H200 and an
# H100 by bench/whatif.sh, tests/data/examples/): each planted bottleneck gives its verdict and its
# finding on top, and the fixed variant no longer has that finding. Each trace is also checked
# by analyze_check.py against the schema and against step_sum.
echo "examples:"
X=$ROOT/tests/data/examples
CHECK=$ROOT/tests/cases/analyze_check.py
# verdict primary, the findings in order (id:severity), the planted finding's saving (% of
# the mean step, one decimal: the total saving over the steps' summed time)
summary() { # trace finding
	$GS analyze --step step --format json "$1" | python3 -c "
import json, sys
a = json.load(sys.stdin)
f = {x['id']: x for x in a['findings']}
print(a['verdict']['primary'], a['findings'][0]['id'] if a['findings'] else '-',
      round(f['$2']['saving_pct'], 1) if '$2' in f else 'absent')"
}
# example, planted: primary top-finding planted-saving-pct; fixed: primary planted-finding
ex() {
	eq "examples $1: planted verdict, top finding, its saving" "$3" "$(summary "$X/$1.gst" "$2")"
	[ -n "$4" ] && eq "examples $1 --fixed: verdict, the planted finding gone" "$4" \
		"$($GS analyze --step step --format json "$X/${1}_fixed.gst" | python3 -c "
import json, sys
a = json.load(sys.stdin)
print(a['verdict']['primary'], 'present' if any(f['id'] == '$2' for f in a['findings']) else 'absent')")"
}
ex launch_bound launch-bound "other launch-bound 80.6" "gpu_compute absent"
ex sync_bound sync-bound "other low-gpu-utilization 20.8" "other absent"
# the planted syncs are not the main cause there (the host is slower than the GPU without them):
# the finding says its saving is an upper bound
eq "examples sync_bound: sync-bound flagged as an upper bound (host-bound besides the syncs)" 1 \
	"$($GS analyze --step step --format json "$X/sync_bound.gst" | python3 -c "import json,sys; print([f['evidence']['host_bound_besides_syncs'] for f in json.load(sys.stdin)['findings'] if f['id'] == 'sync-bound'][0])")"
ex input_bound input-bound "input_pipeline input-bound 85.4" "gpu_compute absent"
ex pageable_copy pageable-async-copy "gpu_transfer exposed-transfers 60.0" "gpu_compute absent"
ex fp32_gemm fp32-gemm "gpu_compute fp32-gemm 83.4" "gpu_compute absent"
ex healthy dominant-kernels "gpu_compute gpu-gaps 0.0" ""
$GS analyze --step step --fail-on medium "$X/healthy.gst" >/dev/null
eq "examples healthy: no finding above low (--fail-on medium exits 0)" 0 $?
$GS analyze --step step --fail-on medium "$X/fp32_gemm.gst" >/dev/null
eq "examples fp32_gemm: --fail-on medium exits 3" 3 $?
# launch_bound.gst and input_bound.gst have CPU samples (recorded on an H100 on 2026-12-06):
# the launch-bound loop's GPU idles while its thread runs Python (the model's forward); the
# input-bound loop loads its batches itself (num_workers=0) inside its "dataloader" range, on
# the thread of its steps (not PyTorch's autograd thread, which makes more CUDA calls), its
# samples there name the dataset's __getitem__, and the OpenMP pool's spinning is not the work;
# the blur's oneDNN kernel is named from oneDNN's jitdump file (input_bound.gst recorded again
# with it on 2026-12-06, session 14; before, 40% of those samples read [unknown])
eq "examples launch_bound: the GPU idles while the main thread runs Python, GELU.forward" \
	"python GELU.forward (activation.py) True" \
	"$($GS analyze --step step --format json "$X/launch_bound.gst" | python3 -c "import json,sys; h=json.load(sys.stdin)['verdict']['idle_host']; print(h['class'], h['name'], h['share'] > 0.95)")"
eq "examples input_bound: main thread = the steps' thread; who loaded the data: __getitem__ listed, no OpenMP wait, oneDNN's JIT kernel named, nothing unknown" \
	"488 488 True False True False" \
	"$($GS analyze --step step --format json "$X/input_bound.gst" | python3 -c "
import json, sys
i = json.load(sys.stdin)['idle_attribution']; n = [t['name'] for t in i['others_while_loading']['top']]
print(i['main_pid'], i['main_tid'], 'Images.__getitem__ (input_bound.py)' in n, any('gomp' in x for x in n),
      'jit_uni_dw_conv_fwd_kernel_f32_t.0' in n, any('[unknown]' in x for x in n))")"
# the fixed variant replays CUDA graphs, recorded one record per launch: their time is the GPU's
eq "examples launch_bound --fixed: graph launches are GPU time (share of the step)" 0.9 \
	"$($GS analyze --step step --format json "$X/launch_bound_fixed.gst" | python3 -c "import json,sys; print(round(json.load(sys.stdin)['verdict']['breakdown']['gpu_compute'], 1))")"
for f in "$X"/*.gst; do
	out=$(python3 "$CHECK" "$GS" "$f" --step step 2>&1)
	eq "examples $(basename "$f"): schema, sums and step_sum agree ($out)" 0 $?
done
