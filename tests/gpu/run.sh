#!/usr/bin/env bash
# tests/gpu/run.sh: the checks that need the GPU machine. Runs the built tree it is given (the
# device has no package registry, so the build is made here and carried), profiles PyTorch's
# NVTX paths, and measures NVTX overhead on that host. Prints a short table last.
#   usage: tests/gpu/run.sh [BUILD_DIR]
#   env: SECTIONS="nvtx cuda resnet compile kineto pytorch loader memory autograd recompile perm overhead" (which to run;
#        add "multi" on a machine with two GPUs: tests/gpu/multi.sh), OUT (where fixtures go)
set -u
SECTIONS=${SECTIONS:-nvtx cuda resnet compile kineto pytorch loader memory autograd recompile perm overhead}
on() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
echo "== host: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))'

if on nvtx; then
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
# nvtx_pushpop_trace on PyTorch's ranges: a row per push/pop range nvtx_pushpop_sum counts, the
# emit_nvtx operators nested in the script's ranges
eq "torch: nvtx_pushpop_trace, a row per push/pop range, nested" "ok" "$($GS stats -r nvtx_pushpop_trace,nvtx_pushpop_sum --format json "$T/torch.gst" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t, s = d["nvtx_pushpop_trace"]["rows"], d["nvtx_pushpop_sum"]["rows"]
deep = [r for r in t if r["Lvl"] > 0 and r["Name"].startswith(":aten::")]
print("ok" if len(t) == sum(r["Instances"] for r in s) and deep and all(r["ParentId"] is not None for r in deep) else (len(t), len(deep)))')"
head -12 "$T/torch.csv"
fi

if on cuda; then
echo "cuda programs:"
bash tests/gpu/cuda.sh "$BUILD" | tee "$T/cuda.txt"
p=$(tail -1 "$T/cuda.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))
echo "profile --stats and the nsys-style reports on real recordings:"
PASS=0 FAIL=0 bash tests/gpu/stats_reports.sh "$BUILD" | tee "$T/stats.txt"
p=$(tail -1 "$T/stats.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); } || FAIL=$((FAIL + 1))
fi

if on loader; then
echo "dataloader-bound loop (analyze from CPU samples):"
bash tests/gpu/loader.sh "$BUILD" | tee "$T/loader.txt"
p=$(tail -1 "$T/loader.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))
fi

if on memory; then
echo "PyTorch's allocator back ends against memory_sum (tests/gpu/memory.sh):"
PASS=0 FAIL=0 bash tests/gpu/memory.sh "$BUILD" | tee "$T/memory.txt"
p=$(tail -1 "$T/memory.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); } || FAIL=$((FAIL + 1))
fi

if on autograd; then
echo "backward on pt_autograd_0, analyze's idle attribution (tests/gpu/autograd.sh):"
PASS=0 FAIL=0 bash tests/gpu/autograd.sh "$BUILD" | tee "$T/autograd.txt"
p=$(tail -1 "$T/autograd.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); } || FAIL=$((FAIL + 1))
fi

if on recompile; then
echo "torch.compile recompiling in the loop (tests/gpu/recompile.sh):"
PASS=0 FAIL=0 bash tests/gpu/recompile.sh "$BUILD" | tee "$T/recompile.txt"
p=$(tail -1 "$T/recompile.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); } || FAIL=$((FAIL + 1))
fi

if on perm; then
echo "--kernel-metrics as a user who may not read the counters (tests/gpu/kmperm.sh):"
bash tests/gpu/kmperm.sh "$BUILD" | tee "$T/perm.txt"
p=$(tail -1 "$T/perm.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); }
fi

if on multi; then
echo "two GPUs (one process on both, two NCCL ranks):"
bash tests/gpu/multi.sh "$BUILD" | tee "$T/multi.txt"
p=$(tail -1 "$T/multi.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))
fi

if on resnet; then
echo "resnet50 against torch.profiler:"
$GS profile -o "$T/resnet" python3 tests/gpu/torch_cuda.py gpuscope 2>&1 | tail -1
python3 tests/gpu/torch_cuda.py torch "$T/resnet_torch.json"
$GS dump --format jsonl "$T/resnet.gst" >"$T/resnet.jsonl"
$GS stats -r nvtx_kern_sum --format json -o "$T/resnet_ks.json" "$T/resnet.gst"
python3 tests/gpu/compare_torch.py "$T/resnet.jsonl" "$T/resnet_torch.json" "$T/resnet_ks.json" | tee "$T/resnet.txt"
[ -n "${OUT:-}" ] && cp "$T/resnet.gst" "$OUT/resnet50.gst"
p=$(tail -1 "$T/resnet.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* }))
fi

if on compile; then
# The fixes analyze recommends, as users apply them (tests/gpu/torch_compile.py): torch.compile
# (Triton's kernels, launched through the driver API, its compile workers child processes of
# the program), CUDA graphs by mode="reduce-overhead" (a record per graph launch by default,
# every node with --cuda-graph-trace=node) and bf16 autocast, each against torch.profiler's
# kernels over the same iterations; analyze finds fp32 GEMMs in the fp32 run, none under bf16.
echo "torch.compile, CUDA graphs, bf16 autocast against torch.profiler:"
export TORCHINDUCTOR_CACHE_DIR=$T/inductor
for m in compile graphs graphs_node amp autotune; do
	py=${m%_node} opt=
	[ "$m" = graphs_node ] && opt=--cuda-graph-trace=node
	$GS profile -f -o "$T/c_$m" $opt python3 tests/gpu/torch_compile.py "$py" gpuscope >"$T/c_$m.out" 2>"$T/c_$m.err"
	eq "$m: the program ran under gpuscope" "0 done $py" "$? $(tail -1 "$T/c_$m.out")"
	grep -E "wrote|warning|error" "$T/c_$m.err" | tail -3
	[ "$m" = graphs_node ] || python3 tests/gpu/torch_compile.py "$py" torch "$T/c_$py.torch.json" >/dev/null 2>"$T/c_${py}_torch.err" ||
		tail -3 "$T/c_${py}_torch.err"
	$GS dump --format jsonl "$T/c_$m.gst" >"$T/c_$m.jsonl"
	$GS stats -r nvtx_kern_sum --format json -o "$T/c_${m}_ks.json" "$T/c_$m.gst"
	python3 tests/gpu/compare_torch.py "$T/c_$m.jsonl" "$T/c_$py.torch.json" "$T/c_${m}_ks.json" "$m" \
		"$([ "$m" = graphs ] && echo graphs)" | tee "$T/c_$m.txt"
	p=$(tail -1 "$T/c_$m.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
	[ -n "$p" ] && { PASS=$((PASS + ${p% *})); FAIL=$((FAIL + ${p#* })); }
	$GS analyze "$T/c_$m.gst" | sed -n '3,5p'
	$GS analyze --format json -o "$T/c_$m.analyze.json" "$T/c_$m.gst"
done
ids() { python3 -c "import json,sys; print(' '.join(f['id'] for f in json.load(open(sys.argv[1]))['findings']))" "$T/c_$1.analyze.json"; }
has "compile (fp32): analyze finds the fp32 GEMMs" "fp32-gemm" "$(ids compile)"
has "amp (bf16 autocast): analyze read the trace" '"verdict"' "$(cat "$T/c_amp.analyze.json" 2>&1)"
hasnt "amp (bf16 autocast): no fp32 GEMMs left" "fp32-gemm" "$(ids amp)"
# max-autotune: Inductor benchmarked GEMM choices in the warm-up, in the program's process
has "autotune: Inductor autotuned the matmuls under gpuscope" "AUTOTUNE" "$(cat "$T/c_autotune.err")"
$GS info "$T/c_autotune.gst" | grep -E "processes|cuda kernels|lost|dropped"
[ -n "${OUT:-}" ] && cp "$T/c_graphs.gst" "$OUT/compile_graphs.gst" && cp "$T/c_compile.gst" "$OUT/compile.gst"
fi

if on kineto; then
# Real torch.profiler traces, read by the importer and checked against key_averages(); they
# become the fixtures of tests/data/kineto/ (packed into $OUT/kineto.tar.gz).
echo "pytorch profiler traces:"
python3 tests/gpu/kineto_traces.py "$T/kineto" 2>&1 | tail -4
for e in "$T"/kineto/*.expect.json; do
	c=$(basename "$e" .expect.json)
	python3 tests/gpu/check_kineto.py "$GS" "$T/kineto/$c.pt.trace.json.gz" "$e" >"$T/kineto_$c.txt"
	eq "kineto $c: gpuscope's reading agrees with key_averages()" 0 $?
	grep -E "^(FAIL|ok   $c: [0-9]+/)" "$T/kineto_$c.txt" | head -8
	# torch-recompiles from torch.compile's dynamo_timed ranges: the steps after the first in
	# which Dynamo's own counter moved
	eq "kineto $c: torch-recompiles in the steps Dynamo compiled again in" ok \
		"$($GS analyze --format json "$T/kineto/$c.pt.trace.json.gz" | python3 -c "import json,sys
a = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
want = len([i for i in e.get('dynamo_compiled_in', []) if i > 0])
got = a['idle_attribution']['startup']['recompile_steps']
print('ok' if got == want else 'analyze %d, Dynamo %d' % (got, want))" "$e")"
	# torch-graph-breaks where Dynamo counted graph breaks, a resumed frame a step at least;
	# none where it counted none
	eq "kineto $c: torch-graph-breaks where Dynamo broke its graphs" ok \
		"$($GS analyze --format json "$T/kineto/$c.pt.trace.json.gz" | python3 -c "import json,sys
a = json.load(sys.stdin); e = json.load(open(sys.argv[1]))
f = [f['evidence']['resumed_per_step'] for f in a['findings'] if f['id'] == 'torch-graph-breaks']
want = bool(e.get('dynamo_graph_breaks'))
print('ok' if (bool(f) and f[0] >= 1) == want else 'analyze %s, Dynamo %s' % (f, e.get('dynamo_graph_breaks')))" "$e")"
done
# more configurations (kineto_configs.py), written by export_chrome_trace: the second readings
# (the fixtures tests/data/kineto/CASE.json.gz, packed into $OUT/kineto_configs.tar.gz)
TORCHINDUCTOR_CACHE_DIR=$T/inductor_k python3 tests/gpu/kineto_configs.py "$T/kcfg" 2>&1 | grep '^wrote'
for f in "$T"/kcfg/*.json; do
	c=$(basename "$f" .json)
	out=$(python3 tests/cases/kineto_ref.py "$GS" "$f" 2>&1)
	eq "kineto $c: reports agree with a second reading ($out)" 0 $?
	out=$(python3 tests/cases/analyze_check.py "$GS" "$f" 2>&1)
	eq "kineto $c: analyze's schema, sums and step_sum agree ($out)" 0 $?
	eq "kineto $c: the host ranges the GPU idled in" ok \
		"$($GS analyze --format json "$f" | python3 tests/cases/host_ranges_ref.py "$f" 2>&1)"
	gzip "$f"
done
[ -n "${OUT:-}" ] && tar -C "$T/kineto" -czf "$OUT/kineto.tar.gz" . &&
	tar -C "$T/kcfg" -czf "$OUT/kineto_configs.tar.gz" .
fi

if on pytorch; then
# `--pytorch nvtx` on a training loop that has no annotations of its own: module paths,
# operators, the DataLoader's and the optimizer's own ranges, and kernels charged to layers.
echo "pytorch annotations:"
$GS profile -f -o "$T/ann" --pytorch nvtx python3 tests/gpu/torch_annotate.py 6 >"$T/ann.out" 2>"$T/ann.err"
eq "pytorch: the loop ran under --pytorch nvtx" 0 $?
tail -2 "$T/ann.err"
$GS stats -r nvtx_sum --format csv -o "$T/ann.csv" "$T/ann.gst"
n() { csv_field "$T/ann.csv" ":$1" Instances; }
eq "pytorch: the model's forward, by class name, once a step" 6 "$(n Net)"
eq "pytorch: modules by path (stem, layer1, layer1.0.conv1, layer1.1.bn1, head)" "6 6 6 6 6" \
	"$(n stem) $(n layer1) $(n layer1.0.conv1) $(n layer1.1.bn1) $(n head)"
between "pytorch: operator ranges (aten::*)" 50 1000000 "$(grep -c ':aten::' "$T/ann.csv")"
has "pytorch: backward operators" "aten::convolution_backward" "$(cat "$T/ann.csv")"
between "pytorch: DataLoader fetches (PyTorch's own range)" 6 8 "$(grep 'enumerate(DataLoader)' "$T/ann.csv" | head -1 | cut -d, -f3)"
eq "pytorch: one row per operator (op ids dropped from the names)" 0 "$(grep -c 'op_id = ' "$T/ann.csv")"
has "pytorch: optimizer steps (PyTorch's own range)" "Optimizer.step#SGD.step" "$(cat "$T/ann.csv")"
$GS stats -r nvtx_kern_sum --format csv -o "$T/ann_ks.csv" "$T/ann.gst"
between "pytorch: kernels charged to layer1.0.conv1" 1 100000 "$(grep -c ':layer1.0.conv1,' "$T/ann_ks.csv")"
head -5 "$T/ann_ks.csv"
# what it costs: step time of the same loop, gpuscope without and with --pytorch nvtx,
# alternating processes
for i in 1 2 3; do
	for m in none nvtx; do
		$GS profile -f -o "$T/ann_$m" --pytorch $m python3 tests/gpu/torch_annotate.py 40 2>/dev/null | sed "s/^/$m /"
	done
done | tee "$T/ann_cost.txt"
fi

if on overhead; then
echo "overhead:"
RUNS=${RUNS:-5} bash bench/run.sh "$BUILD" | tee "$T/bench.txt"
cp bench/RESULTS.md "${OUT:-$T}/RESULTS.md" 2>/dev/null
fi
echo
echo "$PASS passed, $FAIL failed"
