# analyze.sh: `gpuscope analyze` on committed traces: the hand-made PyTorch profiler trace
# (numbers worked out by hand), the real GPU recordings of tests/data (verdict and top finding;
# every one checked by analyze_check.py against the schema and against step_sum), a trace of
# the demo program, --fail-on exit codes, options and bad input.
echo "analyze:"
K=$ROOT/tests/data/kineto
D=$ROOT/tests/data
CHECK=$ROOT/tests/cases/analyze_check.py
# jq-less field access: analyze_field TRACE EXPR [OPTIONS...] prints EXPR evaluated on the JSON (a)
analyze_field() {
	local f=$1 e=$2
	shift 2
	$GS analyze --format json "$@" "$f" | python3 -c "import json,sys; a=json.load(sys.stdin); print($e)"
}

# hand.json, step 1000..1100 us: kernel 1030..1070 (40 us), copy 1072..1074 (2), the sync
# call waits while the GPU idles 1070..1072 and 1074..1075 (3), the launch call 1015..1020
# (5), aten::addmm 1010..1030.5 is host work where nothing else holds: 1010..1015, 1020..1030
# (15), the rest (35) is other
j=$($GS analyze --format json "$K/hand.json")
eq "analyze hand: exit 0" 0 $?
eq "analyze hand: parts (hand-computed)" "40000 2000 3000 5000 0 15000 35000" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; p=json.load(sys.stdin)['steps'][0]['parts_ns']; print(*p.values())")"
eq "analyze hand: verdict" "gpu_compute 0.1 1 profiler" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; v=json.load(sys.stdin)['verdict']; print(v['primary'], v['step_time_ms'], v['steps'], v['steps_by'])")"
# low utilization saves the 50 us of host_compute + other; the fp32 GEMM (on an sm_90 device)
# 40 us x (1 - 1/7.4), tensor cores' TF32 peak being 7.4x the fp32 one there; the
# launch call (5 us, 5%: the threshold) is not a short kernel's, so slow-api-calls; the sync
# the GPU's idle time from its start (1070) to the step's end (no GPU work after it): 30 us less
# the copy's 2; the pageable copy its 2 us with no kernel beside it
eq "analyze hand: findings, most expensive first, with savings" \
	"low-gpu-utilization:high:0.05 fp32-gemm:high:0.034595 sync-bound:high:0.028 slow-api-calls:medium:0.005 pageable-async-copy:low:0.002 dominant-kernels:low:0.0" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; print(*['%s:%s:%s' % (f['id'], f['severity'], round(f['saving_ms_per_step'], 6)) for f in json.load(sys.stdin)['findings']])")"
out=$(python3 "$CHECK" "$GS" "$K/hand.json" 2>&1)
eq "analyze hand: schema, sums and step_sum agree ($out)" 0 $?
t=$(COLUMNS=80 LC_ALL=C $GS analyze "$K/hand.json")
has "analyze hand: verdict first" "Verdict: GPU-bound: kernels run 40.0% of the step time. The GPU idles 58.0% of" "$t"
has "analyze hand: breakdown line" "  host_compute     15.0%" "$t"
has "analyze hand: top finding" $' 1. [high] low-gpu-utilization (other),\n    saves ~50.0 us per step (50.0% of the mean step)' "$t"
has "analyze hand: example with pid and stream" "examples: 0.130-0.170 ms pid 100 device 0 stream 7" "$t"
hasnt "analyze hand: no colour off a terminal" "$(printf '\033')" "$t"
eq "analyze hand: fitted to 80 columns" 0 "$(printf '%s\n' "$t" | awk 'length > 80' | wc -l)"

# --fail-on: 3 when a finding is that severe or worse; the output is written either way
$GS analyze --fail-on high "$K/hand.json" >"$T/fail.txt"
eq "analyze --fail-on high: exit 3 (a high finding)" 3 $?
has "analyze --fail-on: output written" "Verdict:" "$(cat "$T/fail.txt")"
$GS analyze --fail-on low --format json -o "$T/fail.json" "$K/hand.json"
eq "analyze --fail-on low -o: exit 3" 3 $?
has "analyze -o: JSON written" '"schema": "gpuscope.analyze/1"' "$(cat "$T/fail.json")"
$GS analyze --fail-on high "$D/cuda/spin.gst" >/dev/null
eq "analyze --fail-on high: exit 0 when only low findings" 0 $?
$GS analyze --fail-on medium "$D/cuda/streams.gst" >/dev/null
eq "analyze --fail-on medium: exit 0 on a GPU-bound trace" 0 $?

# real recordings (tests/gpu/programs on an H200): the verdict and the top finding
check() { # name trace primary top-finding [another finding that must be there]
	local j
	j=$($GS analyze --format json "$2")
	eq "analyze $1: verdict and top finding" "$3 $4" \
		"$(printf '%s' "$j" | python3 -c "import json,sys; a=json.load(sys.stdin); print(a['verdict']['primary'], a['findings'][0]['id'] if a['findings'] else '-')")"
	if [ -n "${5:-}" ]; then
		has "analyze $1: finds $5" "\"id\": \"$5\"" "$j"
	fi
}
check spin "$D/cuda/spin.gst" gpu_compute dominant-kernels
check streams "$D/cuda/streams.gst" gpu_compute gpu-gaps sync-memcpy
check alloc "$D/cuda/alloc.gst" host_launch slow-api-calls
check profiler_range "$D/cuda/profiler_range.gst" host_launch launch-bound sync-bound
check threads "$D/cuda/threads.gst" other low-gpu-utilization launch-bound
check copies "$D/cuda/copies.gst" host_launch slow-api-calls sync-memcpy
check phases_nvtx "$D/cuda/phases_nvtx.gst" host_compute low-gpu-utilization
check resnet50 "$D/cuda_resnet50.gst" other gpu-gaps pageable-async-copy
# CUDA's loading of code on first use: a recording's CUPTI overhead records of module and
# function loading (csv export), those starting in a step counted and summed here (the first
# step's apart), against cuda-module-loading's evidence
loading_check() { # name trace want [analyze options...]
	local name=$1 tr=$2 want=$3
	shift 3
	rm -rf "$T/ldcsv"
	$GS export -t csv -o "$T/ldcsv" "$tr" >/dev/null
	eq "analyze $name: cuda-module-loading against the overhead records" "$want" \
		"$($GS analyze --format json "$@" "$tr" | python3 -c '
import csv, json, sys
a = json.load(sys.stdin)
steps = [(s["start_ns"], s["start_ns"] + s["duration_ns"]) for s in a["steps"]]
kinds = {"Runtime Triggered Module Loading": "module", "Lazy Function Loading": "function",
         "Driver Compiler": "ptx"}
n, t, spans, first = {}, {}, [], 0
for r in csv.DictReader(open(sys.argv[1])):
    k = kinds.get(r["name"])
    st, en = int(r["start_ns"]), int(r["end_ns"])
    i = [i for i, (s0, s1) in enumerate(steps) if s0 <= st < s1]
    if k and i:
        s1 = steps[i[0]][1]
        n[k] = n.get(k, 0) + 1
        t[k] = t.get(k, 0) + min(en, s1) - st
        spans.append((st, min(en, s1)))
        first += min(en, s1) - st if i[0] == 0 else 0
union, end = 0, 0
for st, en in sorted(spans):
    union += max(0, en - max(st, end))
    end = max(end, en)
f = [f for f in a["findings"] if f["id"] == "cuda-module-loading"][0]
e = f["evidence"]
ok = e["module_loads"] == n.get("module", 0) and e["function_loads"] == n.get("function", 0) \
    and abs(e["module_loading_ms"] - t.get("module", 0) / 1e6) < 1e-6 \
    and abs(e["function_loading_ms"] - t.get("function", 0) / 1e6) < 1e-6 \
    and abs(e["loading_ms"] - union / 1e6) < 1e-6 and abs(e["in_first_steps_ms"] - first / 1e6) < 1e-6 \
    and 0 < e["gpu_idle_during_loading_ms"] <= e["loading_ms"] \
    and abs(f["saving_ms_per_step"] - round(e["gpu_idle_during_loading_ms"] * 1e6) // len(steps) / 1e6) < 1e-9
print("module", e["module_loads"], "function", e["function_loads"], "ok" if ok else "differ: %r %r %r %d" % (e, n, t, first))
' "$T/ldcsv/overheads.csv")"
}
loading_check resnet50 "$D/cuda_resnet50.gst" "module 9 function 36 ok"
# the kernel the most loading time went to, by the loads' correlation ids and the launches that
# followed them on their thread
eq "analyze resnet50: the loads were mostly for cuDNN's layout kernel" \
	"nchwToNhwcKernel 38.857911 3 kernels loaded for" \
	"$(analyze_field "$D/cuda_resnet50.gst" "[('nchwToNhwcKernel' if 'nchwToNhwcKernel' in t['name'] else t['name']) + ' %s %d %s' % (round(t['total_ms'], 6), t['count'], f['evidence']['top_of']) for f in a['findings'] if f['id'] == 'cuda-module-loading' for t in f['evidence']['top']][0]")"
# item_cold.gst (tests/gpu/loader.sh: item_sync.py without its warm-up, a sort in the seventh of 12 steps):
# six function loads in the steps, the sort's after the first step and named by its kernel
loading_check "item_cold --step step" "$D/item_cold.gst" "module 0 function 6 ok" --step step
eq "analyze item_cold: the sort's load charged to its kernel" "radixSortKVInPlace 0.118277 1" \
	"$(analyze_field "$D/item_cold.gst" "['radixSortKVInPlace %s %d' % (round(t['total_ms'], 6), t['count']) for f in a['findings'] if f['id'] == 'cuda-module-loading' for t in f['evidence']['top'] if 'radixSortKVInPlace' in t['name']][0]" --step step)"
eq "analyze item_cold: the loads after the first step hold the sort's" True \
	"$(analyze_field "$D/item_cold.gst" "[e['loading_ms'] - e['in_first_steps_ms'] >= 0.118277 for f in a['findings'] if f['id'] == 'cuda-module-loading' for e in [f['evidence']]][0]" --step step)"
# cold.pt.trace.json.gz (tests/gpu/kineto_traces.py's cold case: a real torch.profiler trace
# of ResNet-18 from its first forward, no schedule, so one step of every process, the overhead
# records at pid -1 without a thread): the counts and times against the trace's own records;
# each load charged, as the rule says, to the kernel of the recorded call holding it, or else to
# the next kernel that call's thread launched, here computed from the raw JSON
loading_check "kineto cold" "$K/cold.pt.trace.json.gz" "module 5 function 19 ok"
eq "analyze kineto cold: the loads charged to the kernels of the calls that held them" "ok" \
	"$($GS analyze --format json "$K/cold.pt.trace.json.gz" | python3 -c '
import gzip, json, sys
a = json.load(sys.stdin)
ev = json.loads(gzip.decompress(open(sys.argv[1], "rb").read()))["traceEvents"]
ns = lambda v: round(v * 1000)
names = ("Runtime Triggered Module Loading", "Lazy Function Loading", "Driver Compiler")
calls = sorted((e for e in ev if e.get("cat") == "cuda_runtime"), key=lambda e: ns(e["ts"]))
kern = {e["args"]["correlation"]: e["name"] for e in ev if e.get("cat") == "kernel"}
top = {}
for o in (e for e in ev if e.get("cat") == "overhead" and e["name"] in names):
    s, t = ns(o["ts"]), ns(o["ts"]) + ns(o["dur"])
    held = [c for c in calls if ns(c["ts"]) <= s and ns(c["ts"]) + ns(c["dur"]) >= t]
    who = "(thread not recorded)"
    if held:
        who = kern.get(held[-1]["args"]["correlation"])
        nxt = [c for c in calls if ns(c["ts"]) > s and c["tid"] == held[-1]["tid"] and c["args"]["correlation"] in kern]
        who = who or (kern[nxt[0]["args"]["correlation"]] if nxt else held[-1]["name"])
    n, d = top.get(who, (0, 0))
    top[who] = (n + 1, d + ns(o["dur"]))
want = [(w, round(d / 1e6, 6), n) for w, (n, d) in sorted(top.items(), key=lambda kv: -kv[1][1])][:3]
f = [f for f in a["findings"] if f["id"] == "cuda-module-loading"][0]
got = [(t["name"], round(t["total_ms"], 6), t["count"]) for t in f["evidence"]["top"]]
print("ok" if got == want and want[0][2] == 2 and "sm90_xmma_fprop" in want[0][0] else "differ: %r against %r" % (got, want))
' "$K/cold.pt.trace.json.gz")"
# low-gpu-utilization with class host_compute names the innermost host ranges the GPU idled in,
# gpu-gaps those inside its gaps: against a second reading of each PyTorch profiler trace
# (tests/cases/host_ranges_ref.py)
for f in "$K"/cold.pt.trace.json.gz "$K"/infer.pt.trace.json.gz "$K"/stack.pt.trace.json.gz \
	"$K"/stack_sync.pt.trace.json.gz "$K"/train.pt.trace.json.gz "$K"/graphs.pt.trace.json.gz \
	"$K"/amp_all_options.json.gz "$K"/compiled_train.json.gz "$K"/compiled_graphs.json.gz \
	"$K"/ddp_one_rank.json.gz "$K"/two_streams_repeat.json.gz "$K"/graphbreak.pt.trace.json.gz \
	"$K"/recompile.pt.trace.json.gz "$K"/cpu_graphbreak.pt.trace.json.gz "$K"/cpu_recompile.pt.trace.json.gz; do
	c=$(basename "$f" .json.gz)
	eq "analyze kineto ${c%.pt.trace}: the host ranges the GPU idled in" ok \
		"$($GS analyze --format json "$f" | python3 "$ROOT/tests/cases/host_ranges_ref.py" "$f")"
	out=$(python3 "$CHECK" "$GS" "$f" 2>&1)
	eq "analyze kineto ${c%.pt.trace}: schema, sums, step_sum and the verdict's host range agree ($out)" 0 $?
done
has "analyze kineto cold: gpu-gaps names the range of most of their host work" \
	"mostly host_compute; 61.3% of their host work in aten::cudnn_convolution" \
	"$($GS analyze --format json "$K/cold.pt.trace.json.gz" | python3 -c "import json,sys; print([f['title'] for f in json.load(sys.stdin)['findings'] if f['id'] == 'gpu-gaps'])")"
# a run without steps that holds CUDA's loading of code: low utilization may be the start-up's
j=$($GS analyze --format json "$K/cold.pt.trace.json.gz")
eq "analyze kineto cold: low-gpu-utilization advises measuring steps after warm-up" "True True" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; f=[f for f in json.load(sys.stdin)['findings'] if f['id'] == 'low-gpu-utilization'][0]['recommendation']; print(f['cuda'].startswith('The run holds its start-up'), 'schedule(wait=1, warmup=1, active=3)' in f['pytorch'])")"
hasnt "analyze kineto infer (ProfilerStep#N steps): the usual advice" "holds the first iterations" \
	"$($GS analyze "$K/infer.pt.trace.json.gz" | tr -s ' \n' '  ')"
has "analyze kineto cold: the verdict names the host range" \
	"(operators, Python, user ranges). 65.5% of it inside aten::cudnn_convolution." \
	"$($GS analyze "$K/cold.pt.trace.json.gz" | tr -s ' \n' '  ')"
has "analyze kineto cold: the title names the range" "65.5% of the host work in aten::cudnn_convolution" \
	"$(COLUMNS=300 $GS analyze "$K/cold.pt.trace.json.gz")"
# loading.json (hand-made, PyTorch profiler layout: overhead records at pid -1 without a thread):
# steps of 200, 100, 100 us; a module load of 70 us inside step 1's launch call and a function
# load of 20 us inside step 3's, the GPU idle through both: 90 us saved over 3 steps (22.5% of
# 400 us); 70 of the 90 in the first step; each load is charged to the kernel its enclosing
# call launched. An activity buffer request of 20 us in step 2 is CUPTI's own work.
j=$($GS analyze --format json "$K/loading.json")
eq "analyze loading: cuda-module-loading (hand-computed)" \
	"host_launch high 0.03 22.5 1 1 0.07 0.02 0.09 0.07 0.09" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; f=[f for f in json.load(sys.stdin)['findings'] if f['id'] == 'cuda-module-loading'][0]; e=f['evidence']; print(f['class'], f['severity'], round(f['saving_ms_per_step'], 9), f['saving_pct'], *[round(e[k], 9) for k in ('module_loads', 'function_loads', 'module_loading_ms', 'function_loading_ms', 'loading_ms', 'in_first_steps_ms', 'gpu_idle_during_loading_ms')])")"
eq "analyze loading: each load charged to its call's kernel" "void relu<float>(float*):0.07:1 void sigmoid<float>(float*):0.02:1" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; f=[f for f in json.load(sys.stdin)['findings'] if f['id'] == 'cuda-module-loading'][0]; print(*['%s:%s:%d' % (t['name'], round(t['total_ms'], 9), t['count']) for t in f['evidence']['top']])")"
eq "analyze loading: CUPTI's own work in the steps" "1 20000" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; p=json.load(sys.stdin)['verdict']['profiler_overhead']; print(p['records'], p['ns'])")"
eq "analyze loading: step-outliers names the loading in the long step" "0.07 True" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; f=[f for f in json.load(sys.stdin)['findings'] if f['id'] == 'step-outliers'][0]; print(round(f['evidence']['cuda_loading_ms'], 9), 'CUDA loading code on first use is most of it' in f['title'])")"
out=$(python3 "$CHECK" "$GS" "$K/loading.json" 2>&1)
eq "analyze loading: schema, sums and step_sum agree ($out)" 0 $?
t=$(COLUMNS=100 $GS analyze "$K/loading.json")
has "analyze loading: the profiler's time under the table" "note: CUPTI's own work (its activity buffers, instrumentation) takes 6666 ns per step, 5.0% of the" "$t"
has "analyze loading: title" "CUDA loads code on first use for 0.090 ms in the steps (module loads: 1, function loads: 1), 78% of it in the first step" "$(printf '%s' "$t" | tr -s ' \n' '  ')"
has "analyze loading: warm-up advice when the first step holds most" "Warm up: launch every kernel once" "$t"
# without step 1 (--time), the function load of step 3 is after the first step: new kernels
t=$($GS analyze --time 150us: "$K/loading.json")
has "analyze loading --time: the load after the first step" "0.020 ms in the steps (module loads: 0, function loads: 1), 0% of it in the first step" "$(printf '%s' "$t" | tr -s ' \n' '  ')"
has "analyze loading --time: advice for loads in steady steps" "New kernels keep being loaded after the first step" "$(printf '%s' "$t" | tr -s ' \n' '  ')"
# a PyTorch profiler trace of a training step that reads its loss with .item(), recorded with
# with_stack=True on an H100 (tests/gpu/kineto_traces.py, case stack_sync): the wait is named
# by the innermost Python function around it that is neither built in nor PyTorch's,
# train_step, at the line of its def as the trace's python_function events give it
eq "analyze kineto stack_sync: the sync named from train_step" \
	"cudaStreamSynchronize from train_step (kineto_traces.py:116) x3" \
	"$(analyze_field "$K/stack_sync.pt.trace.json.gz" "['%s x%d' % (t['name'], t['count']) for f in a['findings'] if f['id'] == 'sync-bound' for t in f['evidence']['top']][0]" 2>&1)"
# torch.compile compiling again in a PyTorch profiler trace (no CPU samples): its own ranges,
# record_function "KEY (dynamo_timed)" as PyTorch's dynamo_timed names them. Three 100 ms
# ProfilerStep steps, each an aten::addmm launching a 10 ms kernel; compiling [11, 61) ms in the
# first step (the first call's) and [21, 51) ms in the third, compile_fx_inner nested in it:
# torch-recompiles in 1 step, 30 ms, its example the third step's compiling
python3 - "$K/hand.json" "$T/recompile_k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
meta = [e for e in d["traceEvents"] if e.get("ph") == "M"]


def step(k, o, dur, kdur):
    """ProfilerStep#k+1 of dur us at o: a launch at its start, a kernel of kdur us after it"""
    return [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (k + 1), "pid": 100,
             "tid": 100, "ts": o, "dur": dur},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
             "ts": o + 1, "dur": 5.0, "args": {"cbid": 211, "correlation": 10 + k}},
            {"ph": "X", "cat": "kernel", "name": "void gemm<float>(float*)", "pid": 0, "tid": 7,
             "ts": o + 10, "dur": kdur, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 10 + k}}]


def compiling(s, e, n):
    """torch.compile's range n from s to e ms after the trace's start"""
    return {"ph": "X", "cat": "user_annotation", "name": n + " (dynamo_timed)", "pid": 100, "tid": 100,
            "ts": 1000.0 + 1000.0 * s, "dur": 1000.0 * (e - s)}


ev = list(meta)
for k in range(3):
    ev += step(k, 1000.0 + 100000.0 * k, 100000.0, 10000.0)
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 100, "tid": 100,
               "ts": 1000.0 + 100000.0 * k, "dur": 10.0})
ev += [compiling(11, 61, "_compile.compile_inner"), compiling(221, 251, "_compile.compile_inner"),
       compiling(230, 240, "compile_fx_inner")]
d["traceEvents"] = ev
json.dump(d, open(sys.argv[2], "w"))
# six steps, the first 500 ms (its kernel [0, 9) ms, compiling [20, 420) ms), then five of 10 ms
ev = list(meta)
for k in range(6):
    ev += step(k, 1000.0 + (0 if k == 0 else 500000.0 + 10000.0 * (k - 1)), 500000.0 if k == 0 else 10000.0,
               9000.0)
ev.append(compiling(20, 420, "_compile.compile_inner"))
d["traceEvents"] = ev
json.dump(d, open(sys.argv[2].replace(".json", "_warm.json"), "w"))
PY
eq "analyze kineto: torch-recompiles from torch.compile's dynamo_timed ranges" "1 30 [(221000000, 251000000)]" \
	"$(analyze_field "$T/recompile_k.json" "' '.join(str(x) for f in a['findings'] if f['id'] == 'torch-recompiles' for x in (f['evidence']['recompile_steps'], f['evidence']['compile_ms'], [(e['start_ns'], e['end_ns']) for e in f['evidence']['examples']]))" 2>&1)"
eq "analyze kineto: the dynamo_timed ranges are not start-up time without samples" "0 30000000 1" \
	"$(analyze_field "$T/recompile_k.json" "' '.join(str(a['idle_attribution']['startup'][k]) for k in ('compile_ns', 'recompile_ns', 'recompile_steps'))" 2>&1)"
for f in recompile_k recompile_k_warm; do
	out=$(python3 "$CHECK" "$GS" "$T/$f.json" 2>&1)
	eq "analyze kineto $f: schema, sums and step_sum agree ($out)" 0 $?
done
# the first step's compiling named in the warm-up line: 400 ms of its 500, no recompiles
eq "analyze kineto: the warm-up's compiling from the dynamo_timed ranges, none after it" "400.0 0.0 0" \
	"$(analyze_field "$T/recompile_k_warm.json" "a['verdict']['warmup']['compile_ms'], a['verdict']['warmup']['import_ms'], a['idle_attribution']['startup']['recompile_steps']" | tr -d "(),")"
has "analyze kineto: the warm-up line names its compiling" \
	"500.0 ms (50x the median), 90.9% of the steps' time; of it, while the GPU idled, torch.compile compiling 400.0 ms: a warm-up" \
	"$($GS analyze "$T/recompile_k_warm.json" | sed -n '3,4p' | tr -s ' \n' '  ')"
# torch.compile on the CPU alone (tests/tools/kineto_compile_cpu.py, torch 2.15): a graph break
# in every step (the second block in a resume frame inside the first's region), and a
# recompile in the second active step, each against Dynamo's own counters (CASE.expect.json)
# and the trace's events worked out by graph_breaks_ref.py
gb=$($GS analyze --format json "$K/cpu_graphbreak.pt.trace.json.gz")
eq "analyze cpu_graphbreak: resumed frames and the time between the graphs, as worked out" "3 0.401 3 0.401" \
	"$(printf '%s' "$gb" | python3 "$ROOT/tests/cases/graph_breaks_ref.py" "$K/cpu_graphbreak.pt.trace.json.gz")"
eq "analyze cpu_graphbreak: a resumed frame a step for Dynamo's one break, in every step" "1 1 Torch-Compiled Region: 1/0" \
	"$(printf '%s' "$gb" | python3 -c "import json,sys
a = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
f = [f for f in a['findings'] if f['id'] == 'torch-graph-breaks'][0]
print(e['dynamo_graph_breaks'], f['evidence']['resumed_per_step'], *[t['name'] for t in f['evidence']['top'] if t['name'].endswith('1/0')])" "$K/cpu_graphbreak.expect.json" 2>&1)"
has "analyze cpu_graphbreak: the title" \
	"torch.compile graph breaks: 1.0 compiled frames a step resume inside another (3 of 3 steps); between the graphs the host runs Python and eager code while the GPU idles, 0.13 ms a step" \
	"$($GS analyze "$K/cpu_graphbreak.pt.trace.json.gz" | tr -s ' \n' '  ')"
has "analyze cpu_graphbreak: the advice names TORCH_LOGS=graph_breaks" "TORCH_LOGS=graph_breaks" \
	"$($GS analyze "$K/cpu_graphbreak.pt.trace.json.gz" | tr -s ' \n' '  ')"
eq "analyze cpu_recompile: torch-recompiles in the step Dynamo compiled again in, no graph break" "1 1 none" \
	"$($GS analyze --format json "$K/cpu_recompile.pt.trace.json.gz" | python3 -c "import json,sys
a = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
print(len([i for i in e['dynamo_compiled_in'] if i > 0]), a['idle_attribution']['startup']['recompile_steps'],
      [f['id'] for f in a['findings'] if f['id'] == 'torch-graph-breaks'] or 'none')" "$K/cpu_recompile.expect.json" 2>&1)"
for c in compiled_train compiled_graphs; do
	eq "analyze kineto $c: one compiled region a step, no graph break" "0 0.000 none" \
		"$($GS analyze --format json "$K/$c.json.gz" | python3 "$ROOT/tests/cases/graph_breaks_ref.py" "$K/$c.json.gz")"
done
# a native trace of the same graph break (tests/tools/graphbreak_nvtx.py under `profile
# --pytorch nvtx`, Python 3.11: CPU samples without Python frames): PyTorch's ranges as NVTX
# ranges say the first step's compiling (the samples cannot) and, after it, a resumed frame a
# step (Dynamo counted 1 break); torch.compile's own repeating ranges are no step hints
GB=$D/graphbreak_nvtx.gst
for o in "" "--step step"; do
	out=$(python3 "$CHECK" "$GS" "$GB" $o 2>&1)
	eq "analyze graphbreak_nvtx $o: schema, sums, step_sum and the step hints agree ($out)" 0 $?
done
eq "analyze graphbreak_nvtx: the warm-up's compiling from torch.compile's ranges" "3317.9 0.0 8.244s" \
	"$(analyze_field "$GB" "'%.1f %.1f %s' % (a['verdict']['warmup']['compile_ms'], a['verdict']['warmup']['import_ms'], a['verdict']['warmup']['time_from'])" --step step)"
eq "analyze graphbreak_nvtx: after the warm-up, a resumed frame in each of the 9 steps" "9 1 1.884" \
	"$(analyze_field "$GB" "' '.join('%.4g' % f['evidence'][k] for f in a['findings'] if f['id'] == 'torch-graph-breaks' for k in ('resumed_frames', 'resumed_per_step', 'between_graphs_ms'))" --step step --time 8.244s:)"
eq "analyze graphbreak_nvtx: the step hints, torch.compile's ranges left out" "step detach" \
	"$(analyze_field "$GB" "' '.join(h['name'] for h in a['verdict']['step_hints'])")"
# the same two cases on the GPU (tests/gpu/kineto_traces.py, H100, torch 2.11): the findings
# fire as Dynamo's counters say, and between the graphs the GPU is busy for part of the host's
# time (the first graph's kernels run on): the saving is under the trace's whole time there
for c in graphbreak recompile cpu_graphbreak cpu_recompile; do
	eq "analyze kineto $c: torch-graph-breaks and torch-recompiles as Dynamo counted" ok \
		"$($GS analyze --format json "$K/$c.pt.trace.json.gz" | python3 -c "import json,subprocess,sys
a = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
f = {f['id']: f['evidence'] for f in a['findings']}
gb = f.get('torch-graph-breaks')
ref = subprocess.run(['python3', sys.argv[2], sys.argv[3]], input=json.dumps(a), capture_output=True, text=True).stdout.split()
want_rc = len([i for i in e['dynamo_compiled_in'] if i > 0])
ok = a['idle_attribution']['startup']['recompile_steps'] == want_rc and ('torch-recompiles' in f) == (want_rc > 0)
ok = ok and bool(gb) == bool(e['dynamo_graph_breaks']) and (not gb or (gb['resumed_per_step'] >= e['dynamo_graph_breaks']
     and int(ref[0]) == gb['resumed_frames'] and gb['between_graphs_ms'] <= float(ref[1]) + 0.001))
print('ok' if ok else (f, ref, e['dynamo_compiled_in'], e['dynamo_graph_breaks']))" "$K/$c.expect.json" "$ROOT/tests/cases/graph_breaks_ref.py" "$K/$c.pt.trace.json.gz" 2>&1)"
done
has "analyze resnet50: a SIMT sgemm is fp32 without tensor cores" "cutlass_80_simt_sgemm_64x64_8x5_tn_align1" \
	"$(analyze_field "$D/cuda_resnet50.gst" "[f['evidence']['top'][0]['name'] for f in a['findings'] if f['id'] == 'fp32-gemm']")"
hasnt "analyze resnet50: TF32 tensor-core kernels are not" "tf32" \
	"$(analyze_field "$D/cuda_resnet50.gst" "[t['name'] for f in a['findings'] if f['id'] == 'fp32-gemm' for t in f['evidence']['top']]")"
# a trace without API calls (--cuda-api=none): host_launch is not measured, and analyze says so
eq "analyze syncs_gpu (--cuda-api=none): host_launch not measured" "False 0" \
	"$(analyze_field "$D/cuda/syncs_gpu.gst" "a['verdict']['host_launch_measured'], a['verdict']['breakdown_ns']['host_launch']" | tr -d "(),")"
has "analyze syncs_gpu: the text says why host_launch is 0" "the trace has no CUDA API calls" \
	"$($GS analyze "$D/cuda/syncs_gpu.gst" | tr '\n' ' ' | tr -s ' ')"
eq "analyze syncs (API calls recorded): host_launch measured" "True" \
	"$(analyze_field "$D/cuda/syncs.gst" "a['verdict']['host_launch_measured']")"
hasnt "analyze syncs: no such note" "no CUDA API calls" "$($GS analyze "$D/cuda/syncs.gst")"
for f in "$D"/cuda/*.gst "$D"/cuda_*.gst; do
	out=$(python3 "$CHECK" "$GS" "$f" 2>&1)
	eq "analyze $(basename "$f"): schema, sums and step_sum agree ($out)" 0 $?
done
out=$(python3 "$CHECK" "$GS" "$D/cuda/streams.gst" --device 0 --time 0:10s 2>&1)
eq "analyze streams --device --time: step_sum agrees ($out)" 0 $?
# with no steps marked, the ranges that could be (verdict.step_hints), against the records:
# one thread's ranges one after another (step, before_crash, registered_name), not four threads'
for f in "$D"/threads_4x20.gst "$D"/features.gst "$D"/crash_segv.gst "$D"/item_sync.gst \
	"$D"/host_cpu.gst "$D"/compile.gst "$D"/examples/*.gst; do
	out=$(python3 "$CHECK" "$GS" "$f" 2>&1)
	eq "analyze $(basename "$f"), the whole run: schema, sums, step_sum and step hints agree ($out)" 0 $?
done
has "analyze launch_bound, no steps marked: names the ranges that could be" \
	"no steps marked; ranges that repeat, for --step NAME: step (30x)" "$($GS analyze "$D/examples/launch_bound.gst")"
eq "analyze launch_bound --step step: no hints" "[]" \
	"$($GS analyze --format json --step step "$D/examples/launch_bound.gst" | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict']['step_hints'])")"
# a torch.compile run from a cold start (compile.gst): as a whole run the GPU idles while the
# main thread imports (Python byte-compiling and loading modules), and the measured iterations
# are the step hint; with --step iteration it is GPU-bound, its GEMMs fp32
eq "analyze compile (the whole run): the main thread runs Python, importing modules; the hint" \
	"other python importing modules iteration 3x" \
	"$(analyze_field "$D/compile.gst" "' '.join([a['verdict']['primary'], a['verdict']['idle_host']['class'], a['verdict']['idle_host']['name']] + ['%s %dx' % (h['name'], h['count']) for h in a['verdict']['step_hints']])")"
# start-up work named (verdict.startup, the note under Steps): compile.gst's cold start imports
# for 9.7 s, 7.1 s of it byte-compiling sources (the environment has no .pyc files), and
# torch.compile compiles for 5.0 s (Dynamo's tracing, Inductor's lowering and code generation,
# the main thread off CPU between two such samples); the findings' advice is start-up's
eq "analyze compile (the whole run): start-up, imports (byte-compiling) and compiling, ms" \
	"0.964 9722.9 7081.8 5013.1 True True" \
	"$(analyze_field "$D/compile.gst" "'%.3f %.1f %.1f %.1f' % tuple(a['verdict']['startup'][k] for k in ('share', 'import_ms', 'pyc_ms', 'compile_ms')), all('paid once per run' in f['recommendation']['cuda'] for f in a['findings'] if f['id'] in ('gpu-gaps', 'low-gpu-utilization')), all('byte-compiles their sources' in f['recommendation']['pytorch'] for f in a['findings'] if f['id'] in ('gpu-gaps', 'low-gpu-utilization'))" | tr -d "(),'")"
has "analyze compile: the note under Steps" \
	"start-up takes 96.4% of the run: while the GPU idles, importing modules 9722.9 ms (byte-compiling sources 7081.8 ms of it), torch.compile compiling 5013.1 ms; copying 67.2 MB to the GPU before its first kernel, 8971.6 us; a one-time cost" \
	"$($GS analyze "$D/compile.gst" | tr '\n' ' ' | tr -s ' ')"
# a sync followed by start-up work is not charged with it: autograd_train's and autograd_osrt's
# warm-up syncs before `import` of 3.6 s were sync-bound for 3.6 s; input_bound's 9.0 s -> 3.0 s
eq "analyze autograd_train, autograd_osrt (whole runs): no sync-bound across the imports" "False False" \
	"$(for f in autograd_train autograd_osrt; do analyze_field "$D/$f.gst" "'sync-bound' in [f['id'] for f in a['findings']]"; done | tr '\n' ' ' | sed 's/ $//')"
between "analyze input_bound (whole run): sync-bound's saving stops at the imports, ms" 2900 3100 \
	"$(analyze_field "$D/examples/input_bound.gst" "int(sum(f['saving_ms_per_step'] for f in a['findings'] if f['id'] == 'sync-bound'))")"
# torch.compile recompiling in the loop (recompile_shapes.gst: tests/gpu/recompile.py shapes on
# an H100, where Dynamo's own counter said it compiled frames in steps 0 and 6 only, the batch
# growing from 128 to 160 rows at step 6): torch-recompiles names step 6 alone, with its
# compiling; the steps around it (0.3 ms each) are not taken for compiling by the long sample
# that followed them
eq "analyze recompile_shapes --step step: torch-recompiles in step 6 alone, compiling ms" \
	"[6] 1 233.2 True" \
	"$(analyze_field "$D/recompile_shapes.gst" "[i for i, s in enumerate(a['steps']) for f in a['findings'] if f['id'] == 'torch-recompiles' and s['start_ns'] <= f['evidence']['examples'][0]['start_ns'] < s['start_ns'] + s['duration_ns']], [f['evidence']['recompile_steps'] for f in a['findings'] if f['id'] == 'torch-recompiles'][0], round(a['idle_attribution']['startup']['recompile_ns'] / 1e6, 1), 'TORCH_LOGS=recompiles' in [f for f in a['findings'] if f['id'] == 'torch-recompiles'][0]['recommendation']['pytorch']" --step step | tr -d "(),'")"
# its first step (1009.9 ms, Dynamo's first compile): the warm-up line names the compiling in it,
# what the rest of compile_ns is besides step 6's
has "analyze recompile_shapes --step step: the warm-up line names its compiling" \
	"75.1% of the steps' time; of it, while the GPU idled, importing modules 32.0 ms, torch.compile compiling 870.5 ms: a warm-up" \
	"$($GS analyze --step step "$D/recompile_shapes.gst" | sed -n '3,5p' | tr -s ' \n' '  ')"
for o in "" "--step step"; do
	out=$(python3 "$CHECK" "$GS" "$D/recompile_shapes.gst" $o 2>&1)
	eq "analyze recompile_shapes $o: schema, sums, step_sum and start-up agree ($out)" 0 $?
done
# with the steps marked, no note: start-up before the loop is outside the steps
eq "analyze autograd_train --step step: no start-up note" "None" \
	"$(analyze_field "$D/autograd_train.gst" "a['verdict']['startup']" --step step)"
# its compile workers' `import torch` runs torch/utils/data's modules (their bodies, the
# classes and dataclasses they define) while the main thread waits: no data loading; nor the
# main thread's own import of them (convt_big.gst, a cold `import torch`: 128 ms of it taken
# for DataLoader code before)
eq "analyze compile and convt_big: imports of torch.utils.data are no input pipeline" "0 0 0 0" \
	"$(for f in "$D/compile.gst" "$D/kmetrics/convt_big.gst"; do analyze_field "$f" "sum(s['parts_ns']['input_pipeline'] for s in a['steps']), a['idle_attribution']['classes']['loader_code']['ns'] + a['idle_attribution']['classes']['loader_wait']['ns']"; done | tr -d "(),'" | tr '\n' ' ' | sed 's/ $//')"
eq "analyze compile --step iteration: GPU-bound, fp32 GEMMs, 3 steps" "gpu_compute 3 True" \
	"$(analyze_field "$D/compile.gst" "a['verdict']['primary'], a['verdict']['steps'], 'fp32-gemm' in [f['id'] for f in a['findings']]" --step iteration | tr -d "(),'")"
out=$(python3 "$CHECK" "$GS" "$D/compile.gst" --step iteration 2>&1)
eq "analyze compile --step iteration: schema, sums and step_sum agree ($out)" 0 $?
# gpu-gaps of class other, with CPU samples: the main thread's activity in the gaps
has "analyze launch_bound --step step: gpu-gaps names what the main thread did in the gaps" \
	"mostly other; for 98.5% of their idle time the main thread runs Python (GELU.forward (activation.py))" \
	"$(analyze_field "$D/examples/launch_bound.gst" "[f['title'] for f in a['findings'] if f['id'] == 'gpu-gaps']" --step step)"
eq "analyze threads_4x20: ranges of four threads are no steps" "[]" \
	"$(analyze_field "$D/threads_4x20.gst" "a['verdict']['step_hints']")"

# the demo program: its train_step ranges as steps, wait_for_batch as data loading
if $GS profile -o "$T/demo" "$ROOT/$BUILD_DIR/examples/train_loop" 6 >/dev/null 2>&1; then
	out=$(python3 "$CHECK" "$GS" "$T/demo.gst" --step train_step --input-range wait_for_batch 2>&1)
	eq "analyze demo: schema, sums and step_sum agree ($out)" 0 $?
	eq "analyze demo: 6 named steps, host-bound (no GPU)" "6 named host_compute" \
		"$(analyze_field "$T/demo.gst" "a['verdict']['steps'], a['verdict']['steps_by'], a['verdict']['primary']" --step train_step --input-range wait_for_batch | tr -d "(),'")"
	between "analyze demo: the first step waits for its batch (input_pipeline > 0)" 0.001 1 \
		"$(analyze_field "$T/demo.gst" "a['verdict']['breakdown']['input_pipeline']" --step train_step --input-range wait_for_batch)"
	eq "analyze demo: without --input-range no input_pipeline" 0 \
		"$(analyze_field "$T/demo.gst" "a['verdict']['breakdown_ns']['input_pipeline']" --step train_step)"
else
	bad "analyze demo: profile the demo program"
fi

# GPU idle by host activity: gen_trace -l writes, through the format's writers, three 100 ms
# steps in which a kernel runs 30 ms, the main thread runs train_step (31..35 ms), DataLoader's
# _next_data (36..40), blocks in poll (40..90), runs memcpy (91..93) and train_step (98), and a
# worker process runs Images.__getitem__ > decode (41..80) and ForkingPickler.dumps (81..90);
# a sample at t stands for [t - 1 ms, t). By hand, per step: loader_wait 50 ms (poll, DataLoader
# frames before it), loader_code 5, python 5 + 1, native 3, off CPU 93..97; 98..100 is off CPU
# in the first two steps (the next step's first sample follows) and unknown in the third (no
# sample after it): off_cpu 6 + 6 + 4, unknown 2 in all; the first sample of steps 2 and 3
# (31 ms) stands for 1 ms of CPU time since the sample before (98 ms), of which the step's
# launch call took 10 us: its span is [30.01, 31), python 18 - 0.02 ms, off_cpu 16 + 0.02.
# input_pipeline = 55 ms per step; the worker's samples in the DataLoader time (35..90 ms) are
# 40 in __getitem__ > decode and 9 in dumps per step.
"$ROOT/$BUILD_DIR/bench/gen_trace" -l "$T/ldr.gst"
eq "analyze loader: gen_trace -l exit 0" 0 $?
j=$($GS analyze --format json "$T/ldr.gst")
ia() { printf '%s' "$j" | python3 -c "import json,sys; a=json.load(sys.stdin); i=a['idle_attribution']; print($1)"; }
eq "analyze loader: verdict input_pipeline, 55 ms of 100 per step" "input_pipeline 3 55000000 30000000 15000000" \
	"$(ia "a['verdict']['primary'], a['verdict']['steps'], a['steps'][1]['parts_ns']['input_pipeline'], a['steps'][1]['parts_ns']['gpu_compute'], a['steps'][1]['parts_ns']['other']" | tr -d "(),'")"
eq "analyze loader: idle ns by host activity (hand-computed)" "0 150000000 15000000 0 16020000 17980000 9000000 2000000 210000000 165000000" \
	"$(ia "*[i['classes'][c]['ns'] for c in ['loader_range', 'loader_wait', 'loader_code', 'blocked', 'off_cpu', 'python', 'native', 'unknown']], i['idle_ns'], i['input_ns']" | tr -d "(),'")"
eq "analyze loader: the top names" "poll|_MultiProcessingDataLoaderIter._next_data (dataloader.py)|train_step (train.py)|__memcpy_avx_unaligned" \
	"$(ia "'|'.join(i['classes'][c]['top'] for c in ['loader_wait', 'loader_code', 'python', 'native'])")"
eq "analyze loader: main thread, others' samples" "4242 4242 147" "$(ia "i['main_pid'], i['main_tid'], i['others_while_loading']['samples']" | tr -d "(),'")"
eq "analyze loader: the workers' top functions" "Images.__getitem__ (train.py) > decode (train.py):120:0.816 ForkingPickler.dumps (reduction.py):27:0.184" \
	"$(ia "' '.join('%s:%d:%.3f' % (t['name'], t['samples'], t['share']) for t in i['others_while_loading']['top'])")"
eq "analyze loader: input-bound first, names __getitem__ > decode, 82%" "input-bound 55.0 Images.__getitem__ (train.py) > decode (train.py) True" \
	"$(printf '%s' "$j" | python3 -c "import json,sys; f=json.load(sys.stdin)['findings'][0]; print(f['id'], round(f['saving_ms_per_step'], 3), f['evidence']['top'][0]['name'], 'spent 82% of their samples in Images.__getitem__' in f['title'])")"
out=$(python3 "$CHECK" "$GS" "$T/ldr.gst" 2>&1)
eq "analyze loader: schema, sums and step_sum agree ($out)" 0 $?
t=$(COLUMNS=100 LC_ALL=C $GS analyze "$T/ldr.gst")
has "analyze loader: text table" "GPU idle, by host activity (per step, mean; main thread pid 4242 tid 4242):
  loader_wait       50.000 ms  71.4%  poll" "$t"
has "analyze loader: text, the workers" "     81.6%  Images.__getitem__ (train.py) > decode (train.py)" "$t"
eq "stats -r idle_host_sum: the same classes, per step" "loader_wait:50000000:poll loader_code:5000000 off_cpu:5340000 python:5993333 native:3000000 unknown:666666:" \
	"$($GS stats -r idle_host_sum --format csv "$T/ldr.gst" | python3 -c "import csv,sys; print(' '.join('%s:%s%s' % (r['Class'], r['Per Step (ns)'], ':' + r['Top'] if r['Class'] in ('loader_wait', 'unknown') else '') for r in csv.DictReader(sys.stdin)))")"
# no host data: the table is left out, the JSON says so, the verdict is the ranges' alone
hasnt "analyze hand: no idle table without host data" "GPU idle, by host activity" "$($GS analyze "$K/hand.json")"
eq "analyze resnet50: idle_attribution without host data" "False 0 0" \
	"$(analyze_field "$D/cuda_resnet50.gst" "a['idle_attribution']['host_data'], a['idle_attribution']['input_ns'], a['idle_attribution']['others_while_loading']['samples']" | tr -d "(),'")"
# a real program recorded with OS runtime calls (tests/data/host_block.gst): its main thread
# sleeps (nanosleep) and no GPU runs: blocked, named
eq "analyze host_block: the idle time is blocked in nanosleep, no input" "nanosleep 0" \
	"$(analyze_field "$D/host_block.gst" "a['idle_attribution']['classes']['blocked']['top'], a['verdict']['breakdown_ns']['input_pipeline']" | tr -d "(),'")"
# ... and the verdict (other) names it: no longer "nothing recorded on the host explains it"
eq "analyze host_block: verdict.idle_host blocked in nanosleep, 97.8% of the idle time" "blocked nanosleep 0.978" \
	"$(analyze_field "$D/host_block.gst" "a['verdict']['idle_host']['class'], a['verdict']['idle_host']['name'], round(a['verdict']['idle_host']['share'], 3)" | tr -d "(),'")"
t=$(COLUMNS=250 $GS analyze "$D/host_block.gst")
has "analyze host_block: the verdict in words" "Verdict: Idle: for 100.0% of the step time the GPU idles outside CUDA calls, syncs, data loading and host ranges; for 97.8% of the GPU's idle time the main thread waits in nanosleep." "$t"
hasnt "analyze host_block: not 'nothing recorded'" "nothing recorded on the host explains" "$t"
# no GPU work: a CPU-only program says so (verdict.gpu_work, a note above the verdict); a
# GPU program's worker process under --pid, that no GPU work passes the filters
eq "analyze: gpu_work of a CPU-only program, a GPU program, its DataLoader worker and main process" "False True False True" \
	"$(analyze_field "$D/host_cpu.gst" "a['verdict']['gpu_work']") $(analyze_field "$D/item_sync.gst" "a['verdict']['gpu_work']" 2>/dev/null) $(analyze_field "$D/examples/input_bound_fixed.gst" "a['verdict']['gpu_work']" --pid 1023) $(analyze_field "$D/examples/input_bound_fixed.gst" "a['verdict']['gpu_work']" --pid 996)"
has "analyze host_cpu: the note that the GPU ran nothing" "Note:  no GPU work: the trace holds no kernel, copy or memset, and what follows is the host's." \
	"$(COLUMNS=250 $GS analyze "$D/host_cpu.gst")"
has "analyze --pid of a worker: the note that no GPU work passes the filters" "Note:  no GPU work passes --pid, --time and --device" \
	"$(COLUMNS=250 $GS analyze --pid 1023 "$D/examples/input_bound_fixed.gst")"
hasnt "analyze item_sync: no such note" "no GPU work" "$(COLUMNS=250 $GS analyze "$D/item_sync.gst" 2>/dev/null)"
# host-bound inside a range that repeats (item_sync.py's "step", no steps marked), while the main
# thread sleeps: the verdict says the range is an iteration and that the thread was off CPU
t=$(COLUMNS=400 $GS analyze "$D/item_sync.gst" 2>/dev/null)
has "analyze item_sync: host-bound in a repeating range, --step named" \
	"100.0% of it inside step, a range that repeats 60x: --step step takes each as a step." "$t"
has "analyze item_sync: host-bound, yet the main thread off CPU" \
	"Yet for 72.1% of the GPU's idle time the main thread is off CPU, in no recorded call." "$t"
eq "analyze item_sync: verdict.idle_host off_cpu with host_compute" "host_compute off_cpu 0.721" \
	"$(analyze_field "$D/item_sync.gst" "a['verdict']['primary'], a['verdict']['idle_host']['class'], round(a['verdict']['idle_host']['share'], 3)" 2>/dev/null | tr -d "(),'")"
t=$(COLUMNS=250 $GS analyze --step step "$D/item_sync.gst" 2>/dev/null)
hasnt "analyze --step step item_sync: no 'Yet' beside the verdict other" "Yet for" "$t"
t=$(COLUMNS=250 $GS analyze "$D/kineto/cold.pt.trace.json.gz" 2>/dev/null)
has "analyze kineto cold: host-bound in an operator" "of it inside aten::cudnn_convolution." "$t"
hasnt "analyze kineto cold: an operator is no repeating range" "a range that repeats" "$t"
hasnt "analyze kineto cold: no host data, no 'Yet'" "Yet for" "$t"
# CPU samples alone (host_cpu.gst, a CPU-bound program): native code, named by its object
eq "analyze host_cpu: verdict.idle_host native" "native [host_cpu]" \
	"$(analyze_field "$D/host_cpu.gst" "a['verdict']['idle_host']['class'], a['verdict']['idle_host']['name']" | tr -d "(),'")"
has "analyze host_cpu: the verdict in words" "for 66.6% of the GPU's idle time the main thread runs native code ([host_cpu])." \
	"$(COLUMNS=250 $GS analyze "$D/host_cpu.gst")"
# ... and low-gpu-utilization names that activity, with advice for it
f_util() { # TRACE: the finding's title and idle_host_share, and its PyTorch advice's start
	analyze_field "$1" "[(f['title'], round(f['evidence']['idle_host_share'], 3), f['recommendation']['pytorch'][:20]) for f in a['findings'] if f['id'] == 'low-gpu-utilization'][0]"
}
eq "analyze host_block: low-gpu-utilization names the wait" \
	"('Low GPU utilization: the GPU is busy 0.0% of the step; for 97.8% of its idle time the main thread waits in nanosleep', 0.978, 'A wait on the main t')" \
	"$(f_util "$D/host_block.gst")"
eq "analyze host_cpu: low-gpu-utilization names the native code" \
	"('Low GPU utilization: the GPU is busy 0.0% of the step; for 66.6% of its idle time the main thread runs native code ([host_cpu])', 0.666, 'Host code between ke')" \
	"$(f_util "$D/host_cpu.gst")"
# without host data the verdict is as before, idle_host null
eq "analyze sync_bound (no host data): idle_host null" None "$(analyze_field "$D/examples/sync_bound.gst" "a['verdict']['idle_host']")"
has "analyze sync_bound (no host data): nothing recorded explains it" "nothing recorded on the host explains" \
	"$(COLUMNS=250 $GS analyze "$D/examples/sync_bound.gst")"
eq "analyze sync_bound (no host data): low-gpu-utilization as before" \
	"Low GPU utilization: the GPU is busy 32.2% of the step; 53.6% is host work or nothing recorded False" \
	"$(analyze_field "$D/examples/sync_bound.gst" "' '.join([[f['title'] for f in a['findings'] if f['id'] == 'low-gpu-utilization'][0], str(any('idle_host_share' in f['evidence'] for f in a['findings']))])" --step step)"
# damaged: cut inside its chunks, analyze reads what is whole and does not crash
head -c $(($(stat -c %s "$T/ldr.gst") * 2 / 3)) "$T/ldr.gst" >"$T/ldr_cut.gst"
$GS analyze --format json "$T/ldr_cut.gst" >"$T/cut.json" 2>"$T/cut.err"
between "analyze loader cut short: exit 0 or 1, no crash" 0 1 $?
for n in 1 2 3 4 5 6 7 8; do # a byte flipped anywhere: never a crash
	cp "$T/ldr.gst" "$T/ldr_flip.gst"
	off=$(($(stat -c %s "$T/ldr.gst") * n / 9))
	printf '\377' | dd of="$T/ldr_flip.gst" bs=1 seek=$off conv=notrunc 2>/dev/null
	$GS analyze "$T/ldr_flip.gst" >/dev/null 2>&1
	rc=$?
	[ $rc -le 1 ] || bad "analyze loader, byte $off flipped: exit $rc"
done
ok "analyze loader: flipped bytes never crash analyze"

# options and bad input
$GS analyze --format csv "$K/hand.json" >/dev/null 2>"$T/err"
eq "analyze --format csv: usage error 2" 2 $?
has "analyze --format csv: says which" "unknown format 'csv' (text, json)" "$(cat "$T/err")"
$GS analyze --fail-on never "$K/hand.json" >/dev/null 2>"$T/err"
eq "analyze --fail-on never: usage error 2" 2 $?
$GS analyze >/dev/null 2>"$T/err"
eq "analyze without a trace: 2" 2 $?
$GS analyze "$T/missing.gst" >/dev/null 2>"$T/err"
eq "analyze a missing file: exit 1" 1 $?
has "analyze a missing file: says so" "missing.gst" "$(cat "$T/err")"
printf 'not a trace' >"$T/junk.gst"
$GS analyze "$T/junk.gst" >/dev/null 2>"$T/err"
eq "analyze junk: exit 1" 1 $?
$GS analyze --step nope "$K/hand.json" >/dev/null 2>"$T/err"
eq "analyze --step with no such range: exit 1" 1 $?
has "analyze --step: says so" "no ended range named 'nope'" "$(cat "$T/err")"
eq "analyze --time after every step's start: no steps" "0 other" \
	"$(analyze_field "$K/hand.json" "a['verdict']['steps'], a['verdict']['primary']" --time 250us: 2>/dev/null | tr -d "(),'")"
has "analyze --time after every step's start: says so" "no step of '$K/hand.json' passes the --pid/--time filters" \
	"$($GS analyze --time 250us: "$K/hand.json" 2>&1 >/dev/null)"
$GS analyze --pid 5 "$K/hand.json" >/dev/null 2>"$T/err"
eq "analyze --pid of no process: exit 1" 1 $?
eq "analyze --pid of no process: names the trace's" "gpuscope: --pid 5: '$K/hand.json' has no such process (its processes: 100)" "$(cat "$T/err")"
# a misspelt --input-range changes nothing: a warning says so
has "analyze --input-range of no range: a warning" "gpuscope: warning: --input-range 'nope': no range of that name in '$K/hand.json'" \
	"$($GS analyze --input-range nope "$K/hand.json" 2>&1 >/dev/null)"
hasnt "analyze --input-range of a range: no warning" "input-range" \
	"$($GS analyze --input-range ProfilerStep#1 "$K/hand.json" 2>&1 >/dev/null)"
has "analyze --help" "--fail-on SEVERITY" "$($GS analyze --help)"
has "gpuscope help lists analyze" "analyze" "$($GS help)"
