# kineto.sh: PyTorch profiler traces (Kineto JSON) through every command that reads a trace:
# a hand-sized trace with numbers worked out by hand, the real traces recorded on the GPU
# machines by tests/gpu/kineto_traces.py and on the CPU by tests/tools/kineto_compile_cpu.py
# (tests/data/kineto/*.pt.trace.json.gz) checked against torch's own key_averages() and
# against a second reading in Python (kineto_ref.py), gzip, and bad files (cut short, not
# JSON, malformed).
echo "pytorch profiler traces:"
K=$ROOT/tests/data/kineto
i=$($GS info "$K/hand.json")
eq "kineto hand: info exit 0" 0 $?
has "kineto hand: recognised by content" "PyTorch profiler (Kineto JSON, schema 1)" "$i"
has "kineto hand: kernels" "cuda kernels              1" "$i"
has "kineto hand: copies and bytes" "cuda memcpy               1 (4.0 KiB)" "$i"
has "kineto hand: API calls" "cuda api calls            3" "$i"
has "kineto hand: device from deviceProperties" "0  NVIDIA H200  sm_90  132 SMs  139.8 GiB" "$i"
has "kineto hand: process name" "python3" "$i"
# CUPTI's overhead events as Kineto writes them (cat "overhead", pid -1, tid 0): kept as overhead
# records, and written back by the chrome export with their name and duration
python3 - "$K/hand.json" "$T/hand_ov.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["traceEvents"].append({"ph": "X", "cat": "overhead", "name": "Activity Buffer Request", "pid": -1, "tid": 0,
                         "ts": 1001.5, "dur": 2390.114})
json.dump(d, open(sys.argv[2], "w"))
PY
has "kineto hand: an overhead event kept" "cuda overhead records     1 (2.4 ms: " "$($GS info "$T/hand_ov.json")"
$GS export -t chrome -o "$T/hand_ov_out.json" "$T/hand_ov.json" 2>/dev/null
eq "kineto hand: the overhead event exported again" "Activity Buffer Request 2390.114 -1" \
	"$(python3 -c 'import json,sys; print(*[(e["name"], e["dur"], e["pid"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "overhead"][0])' "$T/hand_ov_out.json")"
# libkineto's names for CUPTI's overhead kinds (overheadKindString: "Buffer Flush",
# "Instrumentation", "Resource"; "Unrecognized" for a kind its build does not know): read as
# those kinds (gpuscope's own names in its reports), and written back under libkineto's names
python3 - "$K/hand.json" "$T/hand_ovk.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, n in enumerate(["Resource", "Instrumentation", "Buffer Flush", "Lazy Function Loading", "Unrecognized"]):
    d["traceEvents"].append({"ph": "X", "cat": "overhead", "name": n, "pid": -1, "tid": 0,
                             "ts": 1001.0 + i, "dur": 0.5 + i})
json.dump(d, open(sys.argv[2], "w"))
PY
eq "kineto: libkineto's overhead names read as their kinds" \
	"CUPTI Buffer Flush:1|CUPTI Instrumentation:1|CUPTI Resource:1|Lazy Function Loading:1|Unknown Overhead:1" \
	"$($GS stats -r cuda_overhead_sum --format json "$T/hand_ovk.json" | python3 -c 'import json,sys; print("|".join(sorted("%s:%d" % (r["Name"], r["Count"]) for r in json.load(sys.stdin)["rows"])))')"
$GS export -t chrome -o "$T/hand_ovk_out.json" "$T/hand_ovk.json" 2>/dev/null
eq "kineto: and written back under libkineto's names" "Resource Instrumentation Buffer Flush Lazy Function Loading Unknown" \
	"$(python3 -c 'import json,sys; print(*[e["name"] for e in sorted(json.load(open(sys.argv[1]))["traceEvents"], key=lambda e: e.get("ts", 0)) if e.get("cat") == "overhead"])' "$T/hand_ovk_out.json")"
s=$($GS stats -r step_sum --format csv "$K/hand.json")
# the step 1000..1100 us: kernel 1030..1070, copy 1072..1074, launch call 1015..1020; the
# sync call 1045..1075 waits while the GPU is idle 1070..1072 and 1074..1075: 3 us
eq "kineto hand: step_sum (hand-computed; the step starts 100 us into the window)" "1,100,100,100000,100000,40000,2000,0,5000,3000,50000,42.0" \
	"$(printf '%s\n' "$s" | sed -n 2p)"
out=$(python3 "$ROOT/tests/cases/kineto_ref.py" "$GS" "$K/hand.json")
eq "kineto hand: reports agree with a second reading ($out)" 0 $?
gzip -c "$K/hand.json" >"$T/hand.json.gz"
eq "kineto hand: .json.gz reads the same" "$($GS stats --format csv "$K/hand.json" 2>&1)" "$($GS stats --format csv "$T/hand.json.gz" 2>&1)"
cp "$K/hand.json" "$T/hand.trace" # no extension: the content decides
has "kineto hand: any file name" "PyTorch profiler" "$($GS info "$T/hand.trace")"

for f in "$K"/*.pt.trace.json.gz; do
	[ -f "$f" ] || continue
	c=$(basename "$f" .pt.trace.json.gz)
	out=$(python3 "$ROOT/tests/gpu/check_kineto.py" "$GS" "$f" "$K/$c.expect.json" 2>&1)
	eq "kineto $c: kernel counts and times agree with torch's key_averages() ($(printf '%s\n' "$out" | grep -c '^ok') checks)" 0 $?
	printf '%s\n' "$out" | grep FAIL | head -5
	out=$(python3 "$ROOT/tests/cases/kineto_ref.py" "$GS" "$f" 2>&1)
	eq "kineto $c: reports agree with a second reading ($out)" 0 $?
done

# a Python function's name without the object address CPython prints for a built-in method:
# one row for the method, matched by diff across two runs
s=$($GS stats -r nvtx_sum --format json "$K/stack.pt.trace.json.gz")
eq "kineto stack: run_backward in one row, without its object's address" \
	"3 0" "$(printf '%s' "$s" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
print(*[r["Instances"] for r in rows if r["Range"] == "python:<built-in method run_backward of torch._C._EngineBase object>"],
      sum(" at 0x" in r["Range"] for r in rows))')"
eq "kineto stack -> stack_sync: diff matches run_backward in both" "both" \
	"$($GS diff --format json "$K/stack.pt.trace.json.gz" "$K/stack_sync.pt.trace.json.gz" | python3 -c '
import json, sys
print(*[r["presence"] for r in json.load(sys.stdin)["ranges"] if "run_backward of" in r["name"]])')"

# tests/gpu/kineto_configs.py's traces (export_chrome_trace; AMP with every option, torch.compile,
# CUDA graphs, DDP over NCCL, two streams without a schedule): the second reading only
for c in amp_all_options compiled_train compiled_graphs ddp_one_rank two_streams_repeat; do
	out=$(python3 "$ROOT/tests/cases/kineto_ref.py" "$GS" "$K/$c.json.gz" 2>&1)
	eq "kineto $c: reports agree with a second reading ($out)" 0 $?
done
# tests/tools/kineto_compile_cpu.py's traces (CPU activities alone: no kernel, no CUDA call)
for c in cpu_graphbreak cpu_recompile; do
	out=$(python3 "$ROOT/tests/cases/kineto_ref.py" "$GS" "$K/$c.pt.trace.json.gz" 2>&1)
	eq "kineto $c: reports agree with a second reading ($out)" 0 $?
done

# cut short: what came before loads, with a warning; not JSON / malformed: an error with the byte
head -c 1500 "$K/hand.json" >"$T/cut.json"
$GS stats --format csv -r cuda_api_sum "$T/cut.json" >"$T/cut.out" 2>"$T/cut.err"
eq "kineto cut: stats exit 0" 0 $?
has "kineto cut: warned, with the byte" "is damaged (the file ends inside" "$(cat "$T/cut.err")"
has "kineto cut: the call before the cut is there" "cudaLaunchKernel" "$(cat "$T/cut.out")"
printf '{"traceEvents": [{"ph": "X", "ts": 1 2}]}' >"$T/bad.json"
err=$($GS stats "$T/bad.json" 2>&1)
eq "kineto malformed: exit 1" 1 $?
has "kineto malformed: file and byte" "'$T/bad.json': byte 37: unexpected '2' in an event (',' or '}')" "$err"
printf '[{"ph":"X","cat":"cpu_op","name":"x","pid":1,"tid":1,"ts":1,"dur":2}' >"$T/bare.json"
has "kineto bare array without ']': loads" "nvtx ranges (push/pop)    1" "$($GS info "$T/bare.json" 2>&1)"
err=$($GS dump "$K/hand.json" 2>&1)
eq "kineto: dump exits 1" 1 $?
has "kineto: dump says what the file is" "is a JSON trace (PyTorch profiler)" "$err"
