# cuda_fixtures.sh: CUPTI activity buffers recorded on an H200 (tests/data/cuda_*.gst, made by
# tests/gpu/cuda.sh) decode to exactly what the programs did, on a machine without a GPU.
echo "cuda fixtures:"
D=$ROOT/tests/data
for c in copies spin; do
	$GS dump --format jsonl "$D/cuda_$c.gst" >"$T/cuda_$c.jsonl" 2>"$T/cuda_$c.err"
	eq "cuda $c: dump exit 0" 0 $?
	out=$(python3 "$ROOT/tests/gpu/check_cuda.py" --no-stream-records "$c" "$T/cuda_$c.jsonl" - 2>&1)
	eq "cuda $c: decoded records match the program" 0 $?
	printf '%s\n' "$out" | grep FAIL
done
i=$($GS info "$D/cuda_copies.gst")
has "cuda copies: info counts copies" "cuda memcpy               6 (20.0 MiB)" "$i"
has "cuda copies: info counts memsets" "cuda memset               2" "$i"
has "cuda copies: device" "NVIDIA H200  sm_90  132 SMs" "$i"
has "cuda copies: context and its default stream" "  736      1        0       7" "$i"
eq "cuda copies: streams (default: 5 copies, 1 memset; the created one, before stream records)" \
	"736 0 1 7 default - 0 5 1 0 336.3 us|736 0 1 13 - - 0 1 1 0 113.7 us" \
	"$(printf '%s\n' "$i" | sed -n '/^streams with GPU work (2)/,/^$/p' | sed -n '3,4p' | xargs -L1 | paste -sd'|')"

# --cudabacktrace's default (sync:80us) on PyTorch, recorded on an H100 (tests/gpu/loader.sh):
# each .item() wait's stack, joined to its call by CUPTI's correlation id; its Python frames
# named from the trace's perf map (the libraries' own names need their files, not here)
f=$D/item_sync.gst
eq "cuda stacks: info counts them" "62 (--cudabacktrace sync:80000)" \
	"$($GS info "$f" | sed -n 's/^ *with call stacks *//p')"
$GS stats -r cuda_api_stack_sum --format csv -o "$T/item_st.csv" "$f"
eq "cuda stacks: the 62 cudaStreamSynchronize of .item(), made in train_step, from libtorch" \
	"1 cudaStreamSynchronize 62 [libtorch_cuda.so] True" "$(python3 -c 'import csv,sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))
print(len(r), r[0]["Name"], r[0]["Num Calls"], r[0]["Caller"], "py::train_step:" in r[0]["Stack"])' "$T/item_st.csv")"
$GS analyze --step step --format json -o "$T/item.json" "$f" 2>/dev/null
eq "cuda stacks: analyze's sync-bound names the Python function that waits" \
	"cudaStreamSynchronize from train_step (item_sync.py) 60" "$(python3 -c 'import json,sys
f = [f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "sync-bound"][0]["evidence"]["top"][0]
print(f["name"], f["count"])' "$T/item.json")"
has "cuda stacks: ... and its title, the one with most of the waiting" \
	"Sync-bound: 1.0 blocking calls per step, most of their time cudaStreamSynchronize from train_step (item_sync.py);" \
	"$(python3 -c 'import json,sys; print([f for f in json.load(open(sys.argv[1]))["findings"] if f["id"] == "sync-bound"][0]["title"])' "$T/item.json")"

# GPU idle by host activity on the same loop: each step spins in the .item() wait (~2.65 ms,
# the CPU samples land there, delivered at the host's tick with weights up to 6), then sleeps
# 3 ms in log_metrics while the GPU idles. The samples' CPU time lies in the waits and the
# launches, not over the sleep: the idle time is off CPU, Python only its last ~0.1 ms.
eq "idle by host activity: item_sync's sleep is off CPU (share > 0.9), python under 0.3 ms a step" \
	"off_cpu True True train_step (item_sync.py)" "$(python3 -c 'import json,sys
a = json.load(open(sys.argv[1])); i = a["idle_attribution"]; c = i["classes"]; n = a["verdict"]["steps"]
print(a["verdict"]["idle_host"]["class"], c["off_cpu"]["ns"] > 0.9 * i["idle_ns"], c["python"]["ns"] / n < 300000,
      c["python"]["top"])' "$T/item.json")"

# An eager PyTorch training loop (tests/gpu/autograd_train.py, recorded on an H100): forward
# launches from Python on the main thread, backward from C++ on pt_autograd_0 while the main
# thread waits in loss.backward(). In the steps after the first (a 327 ms warm-up, left out with
# --time), the GPU's idle time while the main thread waits goes to what pt_autograd_0 ran: the
# build before this attribution said off_cpu 60.8% (python 39.2%, no native); now off CPU is
# under a third, native over a quarter and run by pt_autograd_0, and the verdict names code
# running. With -t osrt the wait is a call, pthread_cond_wait from _engine_run_backward
# (graph.py): 46% before, now under 30% (pt_autograd_0's native code takes the rest).
ag() { # TRACE TIME PYTHON-EXPR over a (analyze's JSON), c (its idle classes)
	$GS analyze --step step --time "$2" --format json "$D/$1.gst" | python3 -c "import json,sys
a = json.load(sys.stdin); i = a['idle_attribution']; c = i['classes']; sh = lambda k: c[k]['ns'] / i['idle_ns']
print($3)"
}
eq "autograd: the main thread is the loop's (tid = pid), off CPU < 1/3, native > 1/4 on pt_autograd_0" \
	"760 760 True True pt_autograd_0 None" \
	"$(ag autograd_train 7.3s: "i['main_pid'], i['main_tid'], sh('off_cpu') < 1 / 3, sh('native') > 0.25, c['native']['top_thread'], c['python']['top_thread']")"
eq "autograd: the verdict names code running (python + native over half of the idle time)" \
	"True True" "$(ag autograd_train 7.3s: "a['verdict']['idle_host']['class'] in ('python', 'native'), sh('python') + sh('native') > 0.5")"
has "autograd: the idle table names the thread" "[libcuda.so.580.159.04] (thread pt_autograd_0)" \
	"$($GS analyze --step step --time 7.3s: "$D/autograd_train.gst" | sed -n '/^GPU idle, by host activity/,/^$/p')"
eq "autograd -t osrt: the wait in backward under 30%, pt_autograd_0's native code over 20%" \
	"pthread_cond_wait from _engine_run_backward (graph.py) True True pt_autograd_0" \
	"$(ag autograd_osrt 7.4s: "c['blocked']['top'], sh('blocked') < 0.3, sh('native') > 0.2, c['native']['top_thread']")"
# the whole run (no --step): the main thread is still the loop's, not pt_autograd_0 (which makes
# more CUDA calls), and the run's idle time is not unknown: it is mostly importing modules
eq "autograd, the whole run: main thread 760, python (importing modules) most of the idle time" \
	"760 python importing modules True" \
	"$($GS analyze --format json "$D/autograd_train.gst" | python3 -c "import json,sys
i = json.load(sys.stdin)['idle_attribution']; c = i['classes']
print(i['main_tid'], max(c, key=lambda k: c[k]['ns']), c['python']['top'], c['unknown']['ns'] == 0)")"
# --step step over all 40 steps: the first (326.6 ms of a 4.1 ms median) is named as the warm-up
# that it is, with the --time start that leaves it out (the 39 steps after it); item_cold's too
has "autograd: the warm-up step named, with the --time that leaves it out" \
	"the first step took 326.6 ms (79x the median), 63.8% of the steps' time" \
	"$(COLUMNS=200 $GS analyze --step step "$D/autograd_train.gst" | sed -n 3p)"
eq "autograd: verdict.warmup's --time keeps the 39 steps after it" "7.386s 39 None" \
	"$(t=$($GS analyze --step step --format json "$D/autograd_train.gst" | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict']['warmup']['time_from'])")
	$GS analyze --step step --time "$t:" --format json "$D/autograd_train.gst" | python3 -c "import json,sys
v = json.load(sys.stdin)['verdict']; print(sys.argv[1], v['steps'], v['warmup'])" "$t")"
eq "item_cold: its cold first step is a warm-up (11x the median)" "3.161s 11" \
	"$($GS analyze --step step --format json "$D/item_cold.gst" | python3 -c "import json,sys
w = json.load(sys.stdin)['verdict']['warmup']; print(w['time_from'], round(w['times_median']))")"
eq "autograd: stats -r idle_host_sum's Top Thread" "python: native:pt_autograd_0" \
	"$($GS stats -r idle_host_sum --step step --time 7.3s: --format csv "$D/autograd_train.gst" | python3 -c "import csv,sys
print(' '.join('%s:%s' % (r['Class'], r['Top Thread']) for r in csv.DictReader(sys.stdin) if r['Class'] in ('python', 'native')))")"

# replay DIR LABEL: every trace of tests/data/DIR, with the program's own output beside it
# (CASE.out), decodes to what the program did; the dumps are $T/DIR_CASE.jsonl
replay() {
	local f c out
	for f in "$D/$1"/*.gst; do
		c=$(basename "$f" .gst)
		$GS dump --format jsonl "$f" >"$T/$1_$c.jsonl" 2>"$T/$1_$c.err"
		eq "$2 $c: dump exit 0" 0 $?
		out=$(python3 "$ROOT/tests/gpu/check_cuda.py" "$c" "$T/$1_$c.jsonl" "$D/$1/$c.out" 2>&1)
		eq "$2 $c: records match the program ($(printf '%s\n' "$out" | tail -1))" 0 $?
		printf '%s\n' "$out" | grep FAIL
	done
}
# every program of tests/gpu/programs, recorded on the H200 by tests/gpu/cuda.sh (tests/data/cuda/)
replay cuda fixture
eq "fixtures: the 19 program cases recorded on the H200 are there" 19 "$(ls "$D"/cuda/*.gst | wc -l)"
# the same programs recorded with CUPTI 13.5.25 (the nvidia-cuda-cupti wheel, on an H100 whose
# driver is CUDA 13.0's: tests/gpu/cupti_release.sh), whose kernel, memcpy, memset, device and
# context records are longer than 13.0's (format/cupti_layout.h). The recording CLI transcoded
# the kernels, copies, memsets, API calls and syncs into CUDA chunks with 13.5's sizes (checked
# there against the programs: 54 of 54); the device, context, memory, graph and stream records
# stay raw 13.5 records, read here: they decode to what the programs did
replay cuda135 "CUPTI 13.5"
eq "CUPTI 13.5: the 19 program cases, every CUPTI ring written by 130500" "19 130500" \
	"$(ls "$D"/cuda135/*.gst | wc -l) $(cat "$T"/cuda135_*.jsonl | grep -o '"cupti_version":[0-9]*' | sort -u | cut -d: -f2 | paste -sd' ')"
i=$($GS info "$D/cuda135/copies.gst")
has "CUPTI 13.5 copies: nothing left undecoded" "cuda memcpy               6 (20.0 MiB)" "$i"
eq "CUPTI 13.5 copies: no CUPTI bytes counted as not decoded" "" "$(printf '%s\n' "$i" | grep 'not decoded')"
has "CUPTI 13.5 copies: the device record (Device6, 192 bytes) read" "NVIDIA H100 80GB HBM3  sm_90  132 SMs" "$i"
# the same programs recorded on an H100 with the API calls timed by CUPTI's API activity
# records, enabled call by call (the default since 2026-12-05; the calls that wait still by
# callbacks), and two cases of a second context made while the capture range is closed
# (contexts, contexts_range): every kernel joins its launch call
replay cuda_activity "API activity records"
eq "API activity records: the 21 program cases recorded on the H100 are there" 21 "$(ls "$D"/cuda_activity/*.gst | wc -l)"
i=$($GS info "$D/cuda_activity/threads.gst")
has "API activity records: threads' 1000 launches, 4 stream syncs, a free and a copy from a symbol" "cuda api calls            1,006" "$i"
# --cuda-api=none: no API records, yet the four waits are there (written from the callbacks of
# the waiting calls), and step_sum's Sync Wait is made of them alone
i=$($GS info "$D/cuda/syncs_gpu.gst")
has "syncs_gpu: no API calls" "cuda api calls            0" "$i"
has "syncs_gpu: four synchronizations" "cuda synchronizations     4" "$i"
eq "syncs_gpu: step_sum Sync Wait from the sync records (35.6 us while no kernel runs), no API time" "0 35560" \
	"$($GS stats -r step_sum --format csv "$D/cuda/syncs_gpu.gst" 2>/dev/null | sed -n 2p | cut -d, -f9,10 | tr , ' ')"
i=$($GS info "$D/cuda/streams.gst")
eq "info: three non-blocking streams, one kernel of 20 ms each, and the default stream" \
	"7 default 0 1|13 non-blocking 1 0|14 non-blocking 1 0|15 non-blocking 1 0" \
	"$(printf '%s\n' "$i" | sed -n '/^streams with GPU work (4)/,/^  streams created/p' | awk 'NR > 2 && $1 ~ /^[0-9]/ {print $4, $5, $7, $8}' | paste -sd'|')"
has "info: CUDA's own streams counted apart" "streams created with no GPU work (CUDA's own, or unused): 6" "$i"

# ResNet-50 inference (3 batches of 16 in NVTX ranges "iteration" inside "measure"), recorded
# on an H200 where torch.profiler counted 714 kernels for the same 3 batches: every kernel is
# charged to its NVTX ranges through its launching API call.
$GS stats -r nvtx_kern_sum --format json -o "$T/rn_ks.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "resnet50: nvtx_kern_sum exit 0" 0 $?
out=$(python3 - "$T/rn_ks.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
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
eq "kern_sum: every ResNet-50 kernel counted" 1429 "$(python3 -c 'import json,sys; print(sum(r["Instances"] for r in json.load(open(sys.argv[1]))["rows"]))' "$T/rk.json")"

# stats filters: the spin kernels start 234.2, 236.2, 238.2, 240.2 and 242.2 ms after the
# session start, in process 753, on device 0
ks() { $GS stats -r cuda_gpu_kern_sum --format csv "$@" "$D/cuda_spin.gst" 2>/dev/null | tail -n +2 | cut -d, -f3; }
eq "--time 234ms:237ms: two kernels" 2 "$(ks --time 234ms:237ms)"
eq "--time 0.2:0.25: all five" 5 "$(ks --time 0.2:0.25)"
eq "--time 238.1ms: (open end): three" 3 "$(ks --time 238.1ms:)"
eq "--pid 753 --device 0: all five" 5 "$(ks --pid 753 --device 0)"
# a pid, device or window the trace does not have: an error naming what it has, not empty
# or all-idle figures
err=$($GS stats -r cuda_gpu_kern_sum --pid 754 "$D/cuda_spin.gst" 2>&1 >/dev/null); eq "--pid 754: exit 1" 1 $?
eq "--pid 754: the trace's processes named" "gpuscope: --pid 754: '$D/cuda_spin.gst' has no such process (its processes: 753)" "$err"
err=$($GS analyze --device 1 "$D/cuda_spin.gst" 2>&1 >/dev/null); eq "analyze --device 1: exit 1" 1 $?
eq "analyze --device 1: the trace's devices named" "gpuscope: --device 1: '$D/cuda_spin.gst' has no such device (its devices: 0)" "$err"
err=$($GS report --time 2s: -o "$T/late.html" "$D/cuda_spin.gst" 2>&1 >/dev/null); eq "report --time after the end: exit 1" 1 $?
has "report --time after the end: says where the trace ends" "the window starts 2.000 s after the session's start, and '$D/cuda_spin.gst' ends at 0.347 s" "$err"
eq "report --time after the end: no page" no "$([ -e "$T/late.html" ] && echo yes || echo no)"
err=$($GS diff --pid 754 "$D/cuda_spin.gst" "$D/cuda_spin.gst" 2>&1 >/dev/null); eq "diff --pid 754: exit 1" 1 $?
$GS stats --time 2:1 "$D/cuda_spin.gst" >/dev/null 2>&1; eq "--time with B before A: usage error" 2 $?

# gpu_util: busy time is the union of the five 2 ms kernels; a window clips the work to it
# (kernel 1 runs 234.210942..236.211642 ms, kernel 2 from 236.215322 ms)
eq "gpu_util: busy, wall, utilization" "0,NVIDIA H200,5,10002669,347454312,2.9" \
	"$($GS stats -r gpu_util --format csv "$D/cuda_spin.gst" | tail -1)"
eq "gpu_util: --time clips to the window" "2,2785378,3000000,92.8" \
	"$($GS stats -r gpu_util --format csv --time 234ms:237ms "$D/cuda_spin.gst" | tail -1 | cut -d, -f3-)"
# gpu_util_timeline: the same unions over ten slices of the window; kernel 1 starts 89058 ns
# before the first slice's end, the gap between kernels 1 and 2 (3680 ns) falls in slice 7
eq "gpu_util_timeline --time: slices, ops, busy (sums to gpu_util's)" \
	"0,234000000,234300000,1,89058|1,234300000,234600000,0,300000|7,236100000,236400000,1,296320|9,236700000,237000000,0,300000" \
	"$($GS stats -r gpu_util_timeline --format csv --time 234ms:237ms "$D/cuda_spin.gst" | awk -F, 'NR > 1 && ($3 == 0 || $3 == 1 || $3 == 7 || $3 == 9) {print $3","$4","$5","$6","$7}' | paste -sd'|')"
eq "gpu_util_timeline: ten slices whose busy time sums to gpu_util's, ops to all of them" "10 10002669 5" \
	"$($GS stats -r gpu_util_timeline --format csv "$D/cuda_spin.gst" | awk -F, 'NR > 1 {n++; b += $7; o += $6} END {print n, b, o}')"
out=$($GS stats -r gpu_util,gpu_util_timeline --format json "$D/cuda_resnet50.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
u, t = d["gpu_util"]["rows"], d["gpu_util_timeline"]["rows"]
print(len(t), all(sum(r["Busy (ns)"] for r in t if r["Device"] == x["Device"]) == x["Busy (ns)"] and
                  sum(r["GPU Ops"] for r in t if r["Device"] == x["Device"]) == x["GPU Ops"] for x in u))')
eq "gpu_util_timeline on ResNet-50: slices add up to gpu_util" "10 True" "$out"
eq "kern_gb_sum: shape columns" "5,1 1 1,1 1 1,spin_kernel(unsigned long long)" \
	"$($GS stats -r cuda_gpu_kern_gb_sum --format csv "$D/cuda_spin.gst" | tail -1 | cut -d, -f3,9-)"

# cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_sum, cuda_kern_exec_trace, nvtx_gpu_proj_sum and _trace, launch_sum, stream_sum,
# memory_sum and memory_timeline on the three fixtures, against a second implementation of each
# (in Python, from the reports' definitions) over the dump's records
# (graph: CUDA graph launches recorded as one, in cuda_gpu_trace and stream_sum)
for c in copies spin resnet50 graph; do
	f=$D/cuda_$c.gst
	[ $c = graph ] && f=$D/cuda/graph.gst
	$GS dump --format jsonl "$f" >"$T/rr_$c.jsonl" 2>/dev/null
	for r in cuda_gpu_trace cuda_api_trace cuda_kern_exec_sum cuda_kern_exec_trace nvtx_gpu_proj_sum nvtx_gpu_proj_trace launch_sum stream_sum memory_sum memory_timeline; do
		$GS stats -r $r --format json -o "$T/rr_$c.$r.json" "$f" 2>/dev/null
		out=$(python3 "$ROOT/tests/cases/reports_ref.py" $r "$T/rr_$c.jsonl" "$T/rr_$c.$r.json" 2>&1)
		eq "$r on $c: as the reference implementation" match "$(printf '%s\n' "$out" | grep -v '^totals')"
	done
done
rows() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]))' "$1"; }
# cuda_gpu_sum: cuda_gpu_kern_sum's and cuda_gpu_mem_time_sum's rows in one table, by total time,
# each with its category, Time (%) a share of both
# cuda_api_gpu_sum: the same with cuda_api_sum's rows too (category CUDA_API)
for c in copies resnet50; do
	for r in cuda_gpu_sum cuda_api_gpu_sum cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_api_sum; do
		$GS stats -r $r --format json -o "$T/gs_$c.$r.json" "$D/cuda_$c.gst" 2>/dev/null
	done
	for r in cuda_gpu_sum cuda_api_gpu_sum; do
		eq "$r on $c: the summaries merged" ok "$(python3 - "$T/gs_$c".{$r,cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum}.json <<'PY'
import json, sys
g, k, m, a = (json.load(open(p))["rows"] for p in sys.argv[1:5])
if "cuda_gpu_sum" in sys.argv[1]:
    a = []
keys = ["Total Time (ns)", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"]
want = sorted([("CUDA_KERNEL", r["Name"], r["Instances"], *[r[x] for x in keys]) for r in k] +
              [("MEMORY_OPER", r["Operation"], r["Count"], *[r[x] for x in keys]) for r in m] +
              [("CUDA_API", r["Name"], r["Num Calls"], *[r[x] for x in keys]) for r in a],
              key=lambda w: (-w[3], -w[2], w[0], w[1]))
have = [(r["Category"], r["Operation"], r["Instances"], *[r[x] for x in keys]) for r in g]
total = sum(w[3] for w in want)
pct = all(abs(r["Time (%)"] - 100.0 * r["Total Time (ns)"] / total) < 0.051 for r in g)
print("ok" if have == want and pct and len(g) == len(k) + len(m) + len(a) else (len(have), len(want), pct, have[:2], want[:2]))
PY
)"
	done
done
eq "cuda_gpu_sum on copies: the first row" "58.6,263584,2,MEMORY_OPER,[CUDA memcpy DtoH]" \
	"$($GS stats -r cuda_gpu_sum --format csv "$D/cuda_copies.gst" | sed -n 2p | cut -d, -f1-3,9,10)"
eq "cuda_api_gpu_sum on copies: the first row, the context's creation in cudaMalloc" "91.8,116903099,2,CUDA_API,cudaMalloc" \
	"$($GS stats -r cuda_api_gpu_sum --format csv "$D/cuda_copies.gst" | sed -n 2p | cut -d, -f1-3,9,10)"
eq "cuda_api_gpu_sum on copies: 11 API, 4 memop rows; none for kernels (there are none)" "11 4 0" \
	"$($GS stats -r cuda_api_gpu_sum --format csv "$D/cuda_copies.gst" | awk -F, '{c[$9]++} END {print c["CUDA_API"], c["MEMORY_OPER"], c["CUDA_KERNEL"] + 0}')"
eq "cuda_gpu_sum --time before any GPU work: the header alone" 1 \
	"$($GS stats -r cuda_gpu_sum --time 0:1ms --format csv "$D/cuda_copies.gst" | wc -l)"
eq "cuda_api_trace: every ResNet-50 API call, as info counts them" \
	"$($GS info "$D/cuda_resnet50.gst" | sed -n 's/^ *cuda api calls *\([0-9,]*\).*/\1/p' | tr -d ,)" "$(rows "$T/rr_resnet50.cuda_api_trace.json")"
eq "cuda_api_trace: every kernel's CorrId is a call's CorrID" "0 1429" "$(python3 - "$T/rr_resnet50.cuda_api_trace.json" "$T/rr_resnet50.cuda_gpu_trace.json" <<'PY'
import json, sys
calls = {r["CorrID"] for r in json.load(open(sys.argv[1]))["rows"]}
kern = [r["CorrId"] for r in json.load(open(sys.argv[2]))["rows"] if r["GrdX"] is not None]
print(sum(c not in calls for c in kern), len(kern))
PY
)"
eq "cuda_api_trace: the copies fixture's first call, the context's creation in cudaMalloc" \
	"257450825,116838005,cudaMalloc,0,118,736,736," \
	"$($GS stats -r cuda_api_trace --format csv "$D/cuda_copies.gst" | sed -n 2p)"
eq "cuda_api_trace --time: the calls that start in the window" "125 126 127 128 129" \
	"$($GS stats -r cuda_api_trace --time 384.9ms:385.6ms --format csv "$D/cuda_copies.gst" | tail -n +2 | cut -d, -f5 | paste -sd' ')"
eq "cuda_api_trace --time before the first call: the header alone" 1 \
	"$($GS stats -r cuda_api_trace --time 0:200ms --format csv "$D/cuda_copies.gst" | wc -l)"
eq "cuda_gpu_trace: every ResNet-50 kernel, copy and memset" 1763 "$(rows "$T/rr_resnet50.cuda_gpu_trace.json")"
eq "cuda_gpu_trace: summed durations (ns) of the copies fixture (the dump's 8 copies and memsets)" 449920 \
	"$(python3 -c 'import json,sys; print(sum(r["Duration (ns)"] for r in json.load(open(sys.argv[1]))["rows"]))' "$T/rr_copies.cuda_gpu_trace.json")"
eq "cuda_gpu_trace: a pageable copy, empty kernel cells" \
	'384930504,21664,124,,,,,,,,,,1.000,46159.527,Pageable,Device,NVIDIA H200 (0),1,7,[CUDA memcpy HtoD]' \
	"$($GS stats -r cuda_gpu_trace --format csv "$D/cuda_copies.gst" | sed -n 2p)"
eq "cuda_gpu_trace: a memset's memory kind is its DstMemKd" ',Device,NVIDIA H200 (0),1,7,[CUDA memset]' \
	"$($GS stats -r cuda_gpu_trace --format csv "$D/cuda_copies.gst" | sed -n 8p | cut -d, -f15-)"
eq "cuda_gpu_trace --time 234ms:237ms: two spin kernels" 2 \
	"$($GS stats -r cuda_gpu_trace --format csv --time 234ms:237ms "$D/cuda_spin.gst" | tail -n +2 | grep -c spin_kernel)"
eq "cuda_kern_exec_sum: 5 spin launches, 4 with queue time" "753,753,0,5,4,cudaLaunchKernel,spin_kernel(unsigned long long)" \
	"$($GS stats -r cuda_kern_exec_sum --format csv "$D/cuda_spin.gst" | tail -1 | cut -d, -f1-5,26-)"
eq "cuda_kern_exec_trace: the 5 spin launches; the first starts before its call returns (no queue)" \
	"234172550,43253,,,234210942,2000700,2039092|234226004,9473,234235477,1979845,236215322,2000476,3989794" \
	"$($GS stats -r cuda_kern_exec_trace --format csv "$D/cuda_spin.gst" | sed -n 2,3p | cut -d, -f1-7 | paste -sd'|')"
eq "cuda_kern_exec_trace: rows, queued launches, grid and block of the spin fixture" "5 4 1 1 1,1 1 1" \
	"$($GS stats -r cuda_kern_exec_trace --format csv "$D/cuda_spin.gst" | tail -n +2 | awk -F, '{n++; q += $4 != ""; g = $12 "," $13} END {print n, q, g}')"
eq "cuda_kern_exec_trace: ResNet-50 launches, as cuda_kern_exec_sum counts them" 1429 \
	"$(rows "$T/rr_resnet50.cuda_kern_exec_trace.json")"
eq "cuda_kern_exec_trace --time 234ms:237ms: the spin kernels that start in it" 2 \
	"$($GS stats -r cuda_kern_exec_trace --format csv --time 234ms:237ms "$D/cuda_spin.gst" | tail -n +2 | wc -l)"
eq "nvtx_gpu_proj_trace on ResNet-50: :measure and its 3 iterations, 720 and 240 GPU ops" \
	":measure 720 0 :1|:iteration 240 1 :1:2|:iteration 240 1 :1:3|:iteration 240 1 :1:4" \
	"$(python3 -c 'import json,sys
print("|".join("%s %d %d %s" % (r["Name"], r["NumGPUOps"], r["Lvl"], r["RangeStack"]) for r in json.load(open(sys.argv[1]))["rows"]))' "$T/rr_resnet50.nvtx_gpu_proj_trace.json")"
eq "nvtx_gpu_proj_trace on a PyTorch profiler trace: an instance for each of nvtx_gpu_proj_sum's, by projected start" "567 567 1" \
	"$($GS stats -r nvtx_gpu_proj_trace --format json "$D/kineto/infer.pt.trace.json.gz" | python3 -c '
import json, subprocess, sys
r = json.load(sys.stdin)["rows"]
s = json.loads(subprocess.check_output([sys.argv[1], "stats", "-r", "nvtx_gpu_proj_sum", "--format", "json", sys.argv[2]]))["rows"]
p = [x["Projected Start (ns)"] for x in r]
print(len(r), sum(x["Range Instances"] for x in s), int(p == sorted(p)))' "$GS" "$D/kineto/infer.pt.trace.json.gz")"
eq "cuda_kern_exec_sum: ResNet-50 launches linked to their calls" 1429 \
	"$(python3 -c 'import json,sys; print(sum(r["Count"] for r in json.load(open(sys.argv[1]))["rows"]))' "$T/rr_resnet50.cuda_kern_exec_sum.json")"
eq "nvtx_gpu_proj_sum: :measure 1 instance, :iteration 3, 720 GPU ops each" ":measure 1 720 :iteration 3 720" \
	"$(python3 -c 'import json,sys; print(*[x for r in json.load(open(sys.argv[1]))["rows"] for x in (r["Range"], r["Range Instances"], r["Total GPU Ops"])])' "$T/rr_resnet50.nvtx_gpu_proj_sum.json")"
eq "nvtx_gpu_proj_sum --device 0: both ranges projected" ":measure :iteration" \
	"$($GS stats -r nvtx_gpu_proj_sum --format csv --device 0 "$D/cuda_resnet50.gst" | tail -n +2 | cut -d, -f1 | sort -r | tr '\n' ' ' | sed 's/ $//')"
has "launch_sum: totals in the note" "1763 launches: 1191 short kernels" "$($GS stats -r launch_sum "$D/cuda_resnet50.gst")"
eq "stream_sum --time clips as gpu_util" "2,0,0,0,2785378,3000000,92.8" \
	"$($GS stats -r stream_sum --format csv --time 234ms:237ms "$D/cuda_spin.gst" | tail -1 | cut -d, -f4-10)"
eq "memory_sum: pinned and device memory, all freed" "736,0,Pinned,3,3,12.000,12.000,380900373,0.000|736,0,Device,2,2,13.000,13.000,374353745,0.000" \
	"$($GS stats -r memory_sum --format csv "$D/cuda_copies.gst" | tail -n +2 | paste -sd'|')"
eq "memory_sum --time: the level in use when the window opens counts" "736,0,Pinned,1,0,6.000,12.000,380900373,12.000|736,0,Device,0,0,0.000,13.000,380000000,13.000" \
	"$($GS stats -r memory_sum --format csv --time 380ms:386ms "$D/cuda_copies.gst" | tail -n +2 | paste -sd'|')"
eq "memory_timeline: ten slices per process, device and kind" 30 "$(rows "$T/rr_resnet50.memory_timeline.json")"

# steps: --step iteration makes the 3 "iteration" ranges the steps. A second implementation
# over the dump recomputes each step's Kernel column (the union of the kernels' intervals cut
# to the step) and the GPU time of the kernels each iteration launched, whose sum is
# nvtx_kern_sum's total for :iteration. The two differ: the last kernel of each iteration still
# runs when its range ends, so step_sum gives the rest of it to the time after the step.
$GS stats -r step_sum --step iteration --format json -o "$T/rn_steps.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "resnet50: step_sum --step iteration exit 0" 0 $?
$GS dump --format jsonl "$D/cuda_resnet50.gst" >"$T/rn.jsonl" 2>/dev/null
out=$(python3 - "$T/rn_steps.json" "$T/rn.jsonl" "$T/rn_ks.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
steps = [r for r in rows if r["Step"] not in ("median", "p90")]
t0, its, kernels, launch = 0, [], [], {}
for line in open(sys.argv[2]):
    d = json.loads(line)
    if d.get("chunk") == "session":
        t0 = d["k5"]  # the session's CLOCK_MONOTONIC start
    elif d.get("event") == "range" and d["name"] == "iteration":
        its.append((d["start"], d["start"] + d["dur"]))
    elif d.get("cuda") == "kernel":
        kernels.append((d["start"], d["start"] + d["dur"], d["correlation"]))
    elif d.get("cuda") in ("runtime_api", "driver_api"):
        launch[d["correlation"]] = d["start"]
def union_in(s, e):
    iv = sorted((max(a, s), min(b, e)) for a, b, _ in kernels if a < e and b > s)
    total, cur = 0, None
    for a, b in iv:
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur: total += cur[1] - cur[0]
            cur = [a, b]
    return total + (cur[1] - cur[0] if cur else 0)
ok = len(steps) == len(its) == 3
launched = 0
for r, (s, e) in zip(steps, its):
    ok &= r["Start (ns)"] == s - t0 and r["Duration (ns)"] == e - s
    ok &= r["Kernel (ns)"] == union_in(s, e)
    parts = sum(r[c] for c in ("Kernel (ns)", "Memcpy (ns)", "Memset (ns)", "Runtime API (ns)", "Sync Wait (ns)", "Idle (ns)"))
    ok &= parts == r["Duration (ns)"]
    mine = sum(b - a for a, b, c in kernels if c in launch and s <= launch[c] < e)
    ok &= r["Kernel (ns)"] < mine
    launched += mine
ks = sum(x["Total Time (ns)"] for x in json.load(open(sys.argv[3]))["rows"] if x["NVTX Range"] == ":iteration")
print(len(steps), "ok" if ok else "MISMATCH", launched == ks, ks, [r["Kernel (ns)"] for r in steps])
PY
)
eq "resnet50: 3 steps; Kernel, Start, Duration as a second implementation; parts add up; launched = nvtx_kern_sum" \
	"3 ok True 8313615 [2729378, 2752903, 2765956]" "$out"
eq "resnet50: step_sum median and p90 rows" "median,11031360,2752903|p90,18405803,2763345" \
	"$($GS stats -r step_sum --step iteration --format csv "$D/cuda_resnet50.gst" 2>/dev/null | tail -2 | cut -d, -f1,5,6 | paste -sd'|')"
eq "resnet50: without --step, the whole run is one step" "all,,,907794080" \
	"$($GS stats -r step_sum --format csv "$D/cuda_resnet50.gst" 2>/dev/null | sed -n 2p | cut -d, -f1-3,5)"
err=$($GS stats -r step_sum --step nope "$D/cuda_resnet50.gst" 2>&1); eq "--step with no such range exits 1" 1 $?
has "--step with no such range: message" "no ended range named 'nope'" "$err"

# the overview: one screen, fitted to COLUMNS, with the numbers of the reports it comes from
ov=$(COLUMNS=80 LANG=C.UTF-8 $GS stats --step iteration "$D/cuda_resnet50.gst" 2>/dev/null)
eq "overview: exit 0" 0 $?
eq "overview: at most 40 lines, at most 80 columns" "ok" "$(printf '%s\n' "$ov" | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
print("ok" if len(lines) <= 40 and max(len(l) for l in lines) <= 80 else [len(lines), max(len(l) for l in lines)])')"
has "overview: trace, the command cut to fit" "    12.8 s          1        1  complete  python3 tests/gpu/torch_cuda.py gpusc…" "$ov"
has "overview: steps" "      3  11.0 ms  18.4 ms             25.1  ranges :iteration" "$ov"
has "overview: GPU utilization" "       0  27.3 ms  12.8 s              0.2  NVIDIA H200" "$ov"
has "overview: top kernel, cut to fit" "      23.3     3.89 ms        318  12.2 us  void cudnn::bn_fw_inf_1C11_kernel_N…" "$ov"
has "overview: copies" "    320  97.7 MiB     10.6 ms  [CUDA memcpy HtoD]" "$ov"
has "overview: NVTX ranges" "     42.1 ms          3  14.0 ms  :iteration" "$ov"
has "overview: lost records" "Lost records: none" "$ov"
eq "overview: 5 kernels" 5 "$(printf '%s\n' "$ov" | sed -n '/^Top kernels/,/^$/p' | grep -c '^ *[0-9]')"
hasnt "overview: no colour into a pipe" "$(printf '\033')" "$ov"
ov=$(COLUMNS=80 LANG=C $GS stats "$D/cuda_resnet50.gst" 2>/dev/null)
has "overview: ASCII ellipsis outside UTF-8 locales" "  void cudnn::bn_fw_inf_1C11_kernel..." "$ov"
has "overview: whole run without steps" "      1  908 ms  908 ms              3.0  the whole run" "$ov"
eq "overview: the ranges that could be steps, as analyze names them" \
	"  no steps marked; ranges that repeat, for --step NAME: iteration (3x)" \
	"$(printf '%s\n' "$ov" | sed -n '/^Steps/,/^$/p' | grep 'no steps')"
hasnt "overview: no such line when steps are marked" "no steps marked" \
	"$($GS stats --step iteration "$D/cuda_resnet50.gst" 2>/dev/null)"
COLUMNS=20 $GS stats --format json -o "$T/ov.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "overview json: sections, columns, rows; nothing cut" "trace steps gpu_util kernels memops nvtx lost|5|True|1429" "$(python3 - "$T/ov.json" "$T/rk.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = json.load(open(sys.argv[2]))["rows"]
sec = d["kernels"]
same = all(r["Name"] == x["Name"] and r["Total Time (ns)"] == x["Total Time (ns)"] for r, x in zip(sec["rows"], k))
same &= all(list(r) == sec["columns"] for r in sec["rows"])
print(" ".join(d), len(sec["rows"]), same, sum(x["Instances"] for x in k), sep="|")
PY
)"
COLUMNS=20 $GS stats --format csv -o "$T/ov.csv" "$D/cuda_resnet50.gst" 2>/dev/null
has "overview csv: names whole" '23.3,3886341,318,12221,"void cudnn::bn_fw_inf_1C11_kernel_NCHW<float, float, true, 1>(float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, cudnnTensorStruct, float const*, float const*, float const*, float const*, float)"' "$(cat "$T/ov.csv")"
has "overview csv: copies in bytes (as the dump's sum)" "320,102441032,10607619,[CUDA memcpy HtoD]" "$(cat "$T/ov.csv")"

# CUPTI's overhead records (CUPTI_ACTIVITY_KIND_OVERHEAD), as recorded in the ResNet-50 run: 55,
# on the main thread (1043) and one other of the process; by kind, the count and total ns
# summed from the raw records. In dump, info, the chrome export (cat "overhead" and the names, as
# Kineto's),
# the csv/json table "overheads" and the SQLite PROFILER_OVERHEAD table (nsys's, with
# ENUM_CUPTI_OVERHEAD_TYPE, so a query written for nsys's export runs).
f=$D/cuda_resnet50.gst
has "overhead: info" "cuda overhead records     55 (123.9 ms: module loading, CUPTI's buffers, ...)" "$($GS info "$f")"
$GS dump --format jsonl "$f" >"$T/ov.jsonl" 2>/dev/null
eq "overhead: dump, the first (the program's first activity buffer, on its main thread)" \
	'{"cuda":"overhead","start":59348312781,"dur":862747,"name":"Activity Buffer Request","tid":1043}' \
	"$(grep -m1 '"cuda":"overhead"' "$T/ov.jsonl")"
$GS export -t chrome -o "$T/ov_chrome.json" "$f" 2>/dev/null
$GS export -t json -o "$T/ov_tables" "$f" 2>/dev/null
rm -f "$T/ov.sqlite"
$GS export -t sqlite -o "$T/ov.sqlite" "$f" 2>/dev/null
eq "overhead: dump, chrome, json table and sqlite agree, kind by kind (count, ns)" \
	"Activity Buffer Request 2 1778692|CUPTI Buffer Flush 2 114886|CUPTI Instrumentation 2 100262|CUPTI Resource 4 7070456|Lazy Function Loading 36 3745113|Runtime Triggered Module Loading 9 111067255 x4; threads 1043,1065" \
	"$(python3 - "$T/ov.jsonl" "$T/ov_chrome.json" "$T/ov_tables/overheads.json" "$T/ov.sqlite" <<'PY'
import collections, json, sqlite3, sys
def by_kind(rows):
    c = collections.defaultdict(lambda: [0, 0])
    for name, ns in rows:
        c[name][0] += 1
        c[name][1] += ns
    return "|".join("%s %d %d" % (k, v[0], v[1]) for k, v in sorted(c.items()))
# the chrome export names them as the PyTorch profiler does (libkineto's overheadKindString)
KINETO = {"Buffer Flush": "CUPTI Buffer Flush", "Instrumentation": "CUPTI Instrumentation",
          "Resource": "CUPTI Resource"}
dump = [json.loads(l) for l in open(sys.argv[1]) if '"overhead"' in l]
chrome = [e for e in json.load(open(sys.argv[2]))["traceEvents"] if e.get("cat") == "overhead"]
table = json.load(open(sys.argv[3]))
db = sqlite3.connect(sys.argv[4])
sql = db.execute("SELECT e.label, p.end - p.start FROM PROFILER_OVERHEAD AS p JOIN StringIds AS s ON s.id = p.nameId "
                 "JOIN ENUM_CUPTI_OVERHEAD_TYPE AS e ON e.id = p.overheadType WHERE s.value = e.label").fetchall()
got = [by_kind((r["name"], r["dur"]) for r in dump),
       by_kind((KINETO.get(e["name"], e["name"]), round(e["dur"] * 1000)) for e in chrome),
       by_kind((r["name"], r["duration_ns"]) for r in table),
       by_kind(sql)]
tids = sorted({e["tid"] for e in chrome} | {r["tid"] for r in table} | {g & 0xffffff for (g,) in db.execute("SELECT globalTid FROM PROFILER_OVERHEAD")})
print((got[0] + " x4") if len(set(got)) == 1 else got, "; threads " + ",".join(map(str, tids)), sep="")
PY
)"
# stats -r cuda_overhead_sum: per kind, by total time, osrt_sum's columns (records counted);
# Time (%) of the 123876664 ns in all
$GS stats -r cuda_overhead_sum --format csv -o "$T/ov_sum.csv" "$f" 2>/dev/null
eq "overhead: cuda_overhead_sum, the header and the first two rows" \
	"Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name|89.7,111067255,9,12340806.1,8497311.0,80339,38708934,13853157.4,Runtime Triggered Module Loading|5.7,7070456,4,1767614.0,2332291.0,9917,2395957,1172960.6,CUPTI Resource" \
	"$(head -3 "$T/ov_sum.csv" | paste -sd'|')"
eq "overhead: cuda_overhead_sum, a row per kind, the counts summing to the records" "6 55" \
	"$(tail -n +2 "$T/ov_sum.csv" | awk -F, '{ n++; s += $3 } END { print n, s }')"
eq "overhead: cuda_overhead_sum of a trace without them: the header only" 1 \
	"$($GS stats -r cuda_overhead_sum --format csv "$D/host_block.gst" 2>/dev/null | wc -l)"

# --timeunit (nsys stats --timeunit): every report's "(ns)" columns in another unit, exact to
# the ns; Time (%) and the other columns as they were
eq "--timeunit us: cuda_gpu_kern_sum's header and spin's total, 10,002,669 ns" \
	"Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name|100.0,10002.669,5" \
	"$($GS stats -r cuda_gpu_kern_sum --timeunit us --format csv "$D/cuda_spin.gst" | cut -d, -f1-9 | sed -n '1p;2s/^\([^,]*,[^,]*,[^,]*\).*/\1/p' | paste -sd'|')"
eq "--timeunit msec: an empty queue cell stays empty" "234.172550,0.043253,,,234.210942" \
	"$($GS stats -r cuda_kern_exec_trace --timeunit msec --format csv "$D/cuda_spin.gst" | sed -n 2p | cut -d, -f1-5)"
eq "--timeunit nsec: as without it" "$($GS stats -r cuda_api_sum,nvtx_pushpop_trace --format csv "$D/cuda_resnet50.gst")" \
	"$($GS stats -r cuda_api_sum,nvtx_pushpop_trace --timeunit nsec --format csv "$D/cuda_resnet50.gst")"
$GS stats -r nvtx_sum --timeunit minutes "$D/cuda_spin.gst" >/dev/null 2>"$T/tu.err"
eq "--timeunit minutes: a usage error" "2 1" "$? $(grep -c "unknown time unit 'minutes'" "$T/tu.err")"
reports=$($GS stats --help | sed -n '/^reports:/,$p' | awk '/^  [a-z]/ {print $1}' | paste -sd,)
$GS stats -r "$reports" --format json -o "$T/tu_ns.json" "$D/cuda_resnet50.gst" 2>/dev/null
$GS stats -r "$reports" --timeunit s --format json -o "$T/tu_s.json" "$D/cuda_resnet50.gst" 2>/dev/null
eq "--timeunit s: every report's (ns) columns in s, to the ns (nine decimals, halves rounded); the rest unchanged" "ok" "$(python3 - "$T/tu_ns.json" "$T/tu_s.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad, n = [], 0
for rep, ta in a.items():
    tb = b[rep]
    if len(ta["columns"]) != len(tb["columns"]) or len(ta["rows"]) != len(tb["rows"]):
        bad.append(rep)
        continue
    for ca, cb in zip(ta["columns"], tb["columns"]):
        if ca.endswith(" (ns)"):
            if cb != ca[:-5] + " (s)":
                bad.append((rep, ca, cb))
            for ra, rb in zip(ta["rows"], tb["rows"]):
                x, y = ra[ca], rb[cb]
                n += x is not None
                if (x is None) != (y is None) or x is not None and abs(x - y * 1e9) > 0.501:
                    bad.append((rep, ca, x, y))
                    break
        elif ca != cb or any(ra[ca] != rb[cb] for ra, rb in zip(ta["rows"], tb["rows"])):
            bad.append((rep, ca))
print("ok" if not bad and n > 10000 else (n, bad[:3]))
PY
)"

# nsys's report arguments: REPORT:base, :mangled (kernel names) and :nvtx-name (after the
# innermost NVTX range of the launch call, "range/name")
eq "cuda_gpu_kern_sum:base and :mangled on spin, keyed in json as given" \
	"cuda_gpu_kern_sum:base spin_kernel|cuda_gpu_kern_sum:mangled _Z11spin_kernely" \
	"$($GS stats -r cuda_gpu_kern_sum:base,cuda_gpu_kern_sum:mangled --format json "$D/cuda_spin.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("|".join("%s %s" % (k, r["Name"]) for k, t in d.items() for r in t["rows"]))')"
eq "cuda_gpu_kern_sum:base on ResNet-50: the kernels of one base name summed, the total kept" "ok" \
	"$($GS stats -r cuda_gpu_kern_sum -r cuda_gpu_kern_sum:base --format json "$D/cuda_resnet50.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
a, b = d["cuda_gpu_kern_sum"], d["cuda_gpu_kern_sum:base"]
tot = lambda t: sum(r["Total Time (ns)"] for r in t["rows"])
inst = lambda t, name: sum(r["Instances"] for r in t["rows"] if name(r["Name"]))
bn = inst(a, lambda n: "bn_fw_inf_1C11_kernel_NCHW<" in n), inst(b, lambda n: n == "bn_fw_inf_1C11_kernel_NCHW")
print("ok" if tot(a) == tot(b) and len(b["rows"]) < len(a["rows"]) and bn[0] == bn[1] == 318 else (tot(a), tot(b), bn))')"
$GS stats -r cuda_gpu_kern_sum:nvtx-name,cuda_gpu_kern_sum:base --format csv -o "$T/ra.csv" "$D/cuda_spin.gst" 2>/dev/null
eq "several reports with arguments as csv files: nsys's names, REPORT_ARG" "2 spin_kernel" \
	"$(ls "$T"/ra_cuda_gpu_kern_sum_nvtx-name.csv "$T"/ra_cuda_gpu_kern_sum_base.csv | wc -l) $(sed -n 2p "$T/ra_cuda_gpu_kern_sum_base.csv" | cut -d, -f9)"
eq "cuda_gpu_kern_sum:nvtx-name on ResNet-50: 714 kernels as iteration/NAME, nvtx_kern_sum's count" \
	"714 714 715" "$($GS stats -r cuda_gpu_kern_sum:nvtx-name,nvtx_kern_sum --format json "$D/cuda_resnet50.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
k = d["cuda_gpu_kern_sum:nvtx-name"]["rows"]
it = sum(r["Instances"] for r in k if r["Name"].startswith("iteration/"))
out = sum(r["Instances"] for r in k if "/" not in r["Name"].split("(")[0])
print(it, sum(r["Kern Inst"] for r in d["nvtx_kern_sum"]["rows"] if r["NVTX Range"] == ":iteration"), out)')"
eq "cuda_gpu_trace:nvtx-name:base: kernels renamed, copies as they were" "714 ok" \
	"$($GS stats -r cuda_gpu_trace:nvtx-name:base --format json "$D/cuda_resnet50.gst" | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"]
print(sum(x["Name"].startswith("iteration/") for x in r),
      "ok" if all(x["Name"].startswith("[CUDA mem") for x in r if x["GrdX"] is None) else "bad")')"
eq "cuda_kern_exec_sum:base, cuda_kern_exec_trace:mangled, nvtx_kern_sum:base: their kernel names" \
	"cuda_kern_exec_sum:base spin_kernel|cuda_kern_exec_trace:mangled _Z11spin_kernely|nvtx_kern_sum:base bn_fw_inf_1C11_kernel_NCHW" \
	"$($GS stats -r cuda_kern_exec_sum:base,cuda_kern_exec_trace:mangled --format json "$D/cuda_spin.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("|".join(sorted({"%s %s" % (k, r["Kernel Name"]) for k, t in d.items() for r in t["rows"]})))')|$($GS stats -r nvtx_kern_sum:base --format csv "$D/cuda_resnet50.gst" | sed -n 2p | awk -F, '{print "nvtx_kern_sum:base", $NF}')"
eq "cuda_gpu_kern_sum:nvtx-name:base on a PyTorch profiler trace: the operator that launched each" \
	"aten::cudnn_convolution/nchwToNhwcKernel" \
	"$($GS stats -r cuda_gpu_kern_sum:nvtx-name:base --format csv "$D/kineto/infer.pt.trace.json.gz" | sed -n 2p | cut -d, -f9)"
for bad in nvtx_sum:base cuda_gpu_kern_sum:foo cuda_gpu_kern_sum:base:mangled nvtx_kern_sum:nvtx-name; do
	$GS stats -r "$bad" "$D/cuda_spin.gst" >/dev/null 2>"$T/ra.err"
	eq "-r $bad: a usage error naming the report" "2 1" "$? $(grep -c "report ${bad%%:*}" "$T/ra.err")"
done

# CUDA graph launches recorded as one (--cuda-graph-trace=graph, the default): their kernels are
# in no kernel table, so the graphs are GPU work of their own in the reports. graph.gst: 100
# launches of graph 2 (268,129 ns); decode_graph.gst: an LLM decode loop replaying its step's
# CUDA graph once a token (tests/gpu/decode_llm.py graph, on an H100), 576 replays, 96% of the
# GPU time, which the overview's top list must show
eq "cuda_gpu_graph_sum on graph.gst: one row per graph, total and count" "268129,100,[CUDA graph 2]" \
	"$($GS stats -r cuda_gpu_graph_sum --format csv "$D/cuda/graph.gst" | tail -1 | cut -d, -f3,2,9)"
eq "cuda_gpu_sum on graph.gst: the graph in category CUDA_GRAPH, the copy beside it" \
	"CUDA_GRAPH [CUDA graph 2] 100|MEMORY_OPER [CUDA memcpy DtoH] 1" \
	"$($GS stats -r cuda_gpu_sum --format json "$D/cuda/graph.gst" | python3 -c '
import json, sys
print("|".join("%s %s %d" % (r["Category"], r["Operation"], r["Instances"]) for r in json.load(sys.stdin)["rows"]))')"
eq "stats overview of decode_graph.gst: the graph replays top the GPU work, a share of kernels and graphs" \
	"[CUDA graph 2] 576 301117846 96.4 96.4" \
	"$($GS stats --format json "$D/decode_graph.gst" | python3 -c '
import json, sys
r = json.load(sys.stdin)["kernels"]["rows"][0]
print(r["Name"], r["Instances"], r["Total Time (ns)"], r["Time (%)"], end=" ")')$($GS stats -r cuda_gpu_kern_sum,cuda_gpu_graph_sum --format json "$D/decode_graph.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = [sum(r["Total Time (ns)"] for r in d[k]["rows"]) for k in ("cuda_gpu_kern_sum", "cuda_gpu_graph_sum")]
print("%.1f" % (100.0 * d["cuda_gpu_graph_sum"]["rows"][0]["Total Time (ns)"] / sum(t)))')"
eq "stats overview without graphs: Time (%) as cuda_gpu_kern_sum's" \
	"$($GS stats -r cuda_gpu_kern_sum --format csv "$D/cuda_resnet50.gst" | sed -n 2p | cut -d, -f1)" \
	"$($GS stats --format json "$D/cuda_resnet50.gst" | python3 -c 'import json, sys; print(json.load(sys.stdin)["kernels"]["rows"][0]["Time (%)"])')"
eq "nvtx_kern_sum on launch_bound_fixed.gst: the graph replayed in each step range, as a kernel" \
	":step 30 150 12786305 [CUDA graph 2]" \
	"$($GS stats -r nvtx_kern_sum --format csv "$D/examples/launch_bound_fixed.gst" | awk -F, 'NR == 2 { print $1, $5, $6, $7, $13 }')"
# analyze over decode_graph.gst's requests (from 5.3 s): GPU-bound, the graph the top "kernel",
# and the advice to record its kernels one by one
eq "analyze decode_graph.gst --time 5.3s: GPU-bound, dominant-kernels led by the graph, advice for it" \
	"gpu_compute [CUDA graph 2] True True" \
	"$($GS analyze --format json --time 5.3s: "$D/decode_graph.gst" | python3 -c '
import json, sys
a = json.load(sys.stdin)
f = [f for f in a["findings"] if f["id"] == "dominant-kernels"][0]
print(a["verdict"]["primary"], f["evidence"]["top"][0]["name"], "the top one, a CUDA graph, takes" in f["title"] and "--cuda-graph-trace=node" in f["recommendation"]["cuda"], "--cuda-graph-trace=node" in f["recommendation"]["pytorch"])')"
