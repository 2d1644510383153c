# diff.sh: `gpuscope diff` on trace pairs with planted changes: PyTorch profiler traces made by
# tests/data/diff/gen_kineto.py (two seeds of one program; one kernel 2x slower; an extra
# synchronize per step; the batch copied from pageable vs pinned memory; one-step traces) and,
# when present, GPU recordings (tests/data/diff/*.gst). Noise must not be called a regression,
# planted changes must; the exit codes of --fail-on-regression; the formats; bad input.
echo "diff:"
DD=$ROOT/tests/data/diff
kt() { printf '%s/kineto_%s.json.gz' "$DD" "$1"; }
# diff_field BEFORE AFTER EXPR [OPTIONS...]: EXPR evaluated on the JSON (d)
diff_field() {
	local b=$1 a=$2 e=$3
	shift 3
	$GS diff --format json "$@" "$b" "$a" | python3 -c "import json,sys; d=json.load(sys.stdin); print($e)"
}
regs='" ".join(sorted(r["what"] + ":" + (r["name"] or "-").split("(")[0] for r in d["regressions"]))'
imps='" ".join(sorted(r["what"] + ":" + (r["name"] or "-").split("(")[0] for r in d["improvements"]))'

# the committed traces are what the generator writes
mkdir -p "$T/gen"
python3 "$DD/gen_kineto.py" "$T/gen"
same=1
for f in "$DD"/kineto_*.json.gz; do
	cmp -s <(gzip -dc "$f") <(gzip -dc "$T/gen/$(basename "$f")") || same=0
done
eq "diff: the committed Kineto pairs are gen_kineto.py's" 1 $same

# pure noise, both ways: no regression, exit 0 with --fail-on-regression
for p in "base_a base_b" "base_b base_a"; do
	set -- $p
	$GS diff --fail-on-regression "$(kt "$1")" "$(kt "$2")" >"$T/out.txt"
	eq "diff kineto noise $1 -> $2: exit 0" 0 $?
	has "diff kineto noise $1 -> $2: says no regression" "Result: no significant regression beyond 5%." "$(cat "$T/out.txt")"
	eq "diff kineto noise $1 -> $2: no regression, no improvement" "no-change||" \
		"$(diff_field "$(kt "$1")" "$(kt "$2")" "d['verdict'] + '|' + $regs + '|' + $imps")"
done
eq "diff kineto noise: step time within the noise (p >= 0.05)" "noise False" \
	"$(diff_field "$(kt base_a)" "$(kt base_b)" "d['step_time']['verdict'], d['step_time']['p'] < 0.05" | tr -d "(),'")"

# a trace against itself: nothing moved, every p is 1
eq "diff kineto itself: zero change, p 1" "no-change 0 1" \
	"$(diff_field "$(kt base_a)" "$(kt base_a)" "d['verdict'], d['step_time']['delta'], max(k['test']['p'] for k in d['kernels'])" | tr -d "(),'")"

# one kernel 2x slower: the kernel and the step time regress; exit 3
LC_ALL=C $GS diff --fail-on-regression "$(kt base_a)" "$(kt kernel2x)" >"$T/out.txt"
eq "diff kineto kernel2x: exit 3" 3 $?
eq "diff kineto kernel2x: regressions" "kernel:void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>> step_time:-" \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "$regs")"
between "diff kineto kernel2x: the add kernel +95..105% per step" 95 105 \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "[k['pct'] for k in d['kernels'] if 'CUDAFunctor_add' in k['name']][0]")"
between "diff kineto kernel2x: step time +5..15%" 5 15 \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "d['step_time']['pct']")"
eq "diff kineto kernel2x: the interval excludes 0, p tiny" "True True" \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "d['step_time']['ci'][0] > 0, d['step_time']['p'] < 1e-6" | tr -d "(),'")"
eq "diff kineto kernel2x: gpu_compute grew, the rest did not" "gpu_compute" \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "' '.join(c for c, s in d['breakdown'].items() if s['verdict'] == 'regression')")"
t=$(cat "$T/out.txt")
has "diff kineto kernel2x text: headline" "Step time (median): 1925.3 us -> 2099.2 us: +173.9 us (+9.0%), 95% interval [" "$t"
has "diff kineto kernel2x text: the kernel first, flagged" "+199.8 us   +99.2%   201.4 us   401.2 us  3.0e-11 REGRESSION" "$t"
eq "diff text: 100 columns off a terminal" 0 "$(printf '%s\n' "$t" | awk 'length > 100' | wc -l)"
hasnt "diff text: no colour off a terminal" "$(printf '\033')" "$t"
for c in 80 120; do
	t=$(COLUMNS=$c LC_ALL=C $GS diff "$(kt pageable)" "$(kt pinned)")
	eq "diff text: COLUMNS=$c fits" 0 "$(printf '%s\n' "$t" | awk -v c=$c 'length > c' | wc -l)"
done
# the same kernel, reversed: an improvement, exit 0
$GS diff --fail-on-regression "$(kt kernel2x)" "$(kt base_a)" >/dev/null
eq "diff kineto kernel2x reversed: exit 0" 0 $?
eq "diff kineto kernel2x reversed: improvements" "kernel:void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>> step_time:-" \
	"$(diff_field "$(kt kernel2x)" "$(kt base_a)" "$imps")"
# --threshold: a change under it is no regression
$GS diff --fail-on-regression --threshold 150 "$(kt base_a)" "$(kt kernel2x)" >/dev/null
eq "diff kineto kernel2x --threshold 150: exit 0" 0 $?
eq "diff --threshold 150: small, not regression" "small small" \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "d['step_time']['verdict'], [k['test']['verdict'] for k in d['kernels'] if 'add' in k['name']][0]" --threshold 150% | tr -d "(),'")"
# --fold-templates: the three elementwise kernels are one
eq "diff --fold-templates: kernels matched with <...>" "3 void at::native::vectorized_elementwise_kernel<...>(int, float*)" \
	"$(diff_field "$(kt base_a)" "$(kt kernel2x)" "len(d['kernels']), d['kernels'][0]['name']" --fold-templates | tr -d "(),'" | sed 's/int float\*/(int, float*)/')"

# an extra synchronize per step: syncs per step 1 -> 2 regress; the call appears; exit 3
$GS diff --fail-on-regression "$(kt base_a)" "$(kt extrasync)" >"$T/out.txt"
eq "diff kineto extrasync: exit 3" 3 $?
eq "diff kineto extrasync: regressions" "count:syncs" "$(diff_field "$(kt base_a)" "$(kt extrasync)" "$regs")"
eq "diff kineto extrasync: syncs 1 -> 2 per step" "1 2 100" \
	"$(diff_field "$(kt base_a)" "$(kt extrasync)" "d['counts']['syncs']['before'], d['counts']['syncs']['after'], d['counts']['syncs']['pct']" | tr -d "(),'")"
eq "diff kineto extrasync: cudaDeviceSynchronize appeared, a wait" "appeared True" \
	"$(diff_field "$(kt base_a)" "$(kt extrasync)" "[(a['presence'], a['wait']) for a in d['api_calls'] if a['name'] == 'cudaDeviceSynchronize'][0]" | tr -d "(),'")"
has "diff kineto extrasync text: appeared" "api       1264.1 us          1 cudaDeviceSynchronize" "$(cat "$T/out.txt")"
has "diff kineto extrasync text: the shorter stream sync is a wait, not an improvement" "shorter wait cudaStreamSynchronize" "$(cat "$T/out.txt")"

# pageable -> pinned: an improvement (step time, the copy's op and call); the copy kinds swap
$GS diff --fail-on-regression "$(kt pageable)" "$(kt pinned)" >"$T/out.txt"
eq "diff kineto pageable -> pinned: exit 0" 0 $?
eq "diff kineto pageable -> pinned: improvements" "api:cudaMemcpyAsync copy:[CUDA memcpy HtoD] range::aten::copy_ step_time:-" \
	"$(diff_field "$(kt pageable)" "$(kt pinned)" "$imps")"
eq "diff kineto pageable -> pinned: one copy item, its memory kinds before and after" "[CUDA memcpy HtoD]|both|Pageable -> Device|Pinned -> Device|-77" \
	"$(diff_field "$(kt pageable)" "$(kt pinned)" "'|'.join(str(x) for c in d['copies'] for x in (c['name'], c['presence'], c['memory_before'], c['memory_after'], round(c['pct'])))")"
has "diff kineto pageable -> pinned text: memory kinds" "[CUDA memcpy HtoD] (Pageable -> Device; now Pinned -> Device)" "$(cat "$T/out.txt")"
eq "diff kineto pageable -> pinned: gpu_transfer shrank, bytes per step the same" "improvement 0" \
	"$(diff_field "$(kt pageable)" "$(kt pinned)" "d['breakdown']['gpu_transfer']['verdict'], d['counts']['bytes_copied']['delta']" | tr -d "(),'")"
$GS diff --fail-on-regression "$(kt pinned)" "$(kt pageable)" >/dev/null
eq "diff kineto pinned -> pageable: exit 3" 3 $?
eq "diff kineto pinned -> pageable: regressions" "api:cudaMemcpyAsync copy:[CUDA memcpy HtoD] range::aten::copy_ step_time:-" \
	"$(diff_field "$(kt pinned)" "$(kt pageable)" "$regs")"

# one step per trace (no ProfilerStep ranges): instance statistics, and the output says so
$GS diff --fail-on-regression "$(kt run_a)" "$(kt run_b)" >"$T/out.txt"
eq "diff kineto whole runs: exit 3" 3 $?
has "diff kineto whole runs: says why" "tested on their instance durations" "$(cat "$T/out.txt")"
eq "diff kineto whole runs: basis, step time untested, the kernel regresses" "instances untested kernel:void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>" \
	"$(diff_field "$(kt run_a)" "$(kt run_b)" "' '.join([d['settings']['basis'], d['step_time']['verdict'], $regs])")"
eq "diff kineto whole runs of one program: no regression" "no-change" \
	"$(diff_field "$(kt run_a)" "$(kt run_a)" "d['verdict']")"
# whole runs that both repeat a range: diff names it for --step, and each side's hints are
# analyze's
X=$ROOT/tests/data/examples
has "diff whole runs repeating a range: names it for --step" \
	"both traces repeat the range step (30x -> 30x): --step step compares them" \
	"$($GS diff "$X/pageable_copy.gst" "$X/pageable_copy_fixed.gst" | tr '\n' ' ' | tr -s ' ')"
hints() { $GS analyze --format json "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['verdict']['step_hints'])"; }
eq "diff whole runs: each side's step_hints are analyze's" "$(hints "$X/pageable_copy.gst") $(hints "$X/pageable_copy_fixed.gst")" \
	"$(diff_field "$X/pageable_copy.gst" "$X/pageable_copy_fixed.gst" "d['before']['step_hints'], d['after']['step_hints']" | sed 's/^(//; s/)$//; s/\], \[/] [/')"
hasnt "diff --step step: no such line" "both traces repeat" \
	"$($GS diff --step step "$X/pageable_copy.gst" "$X/pageable_copy_fixed.gst")"
hasnt "diff kineto whole runs without a repeated range: no such line" "both traces repeat" "$(cat "$T/out.txt")"

# formats; deterministic output; -o
j1=$($GS diff --format json "$(kt base_a)" "$(kt kernel2x)")
j2=$($GS diff --format json "$(kt base_a)" "$(kt kernel2x)")
eq "diff json: the same twice (seeded bootstrap)" "$j1" "$j2"
out=$(printf '%s' "$j1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
need = ["schema", "before", "after", "settings", "verdict", "regressions", "improvements",
        "step_time", "breakdown", "counts", "kernels", "ranges", "api_calls", "copies"]
assert [k for k in need if k not in d] == [], "missing keys"
assert d["schema"] == "gpuscope.diff/1"
for side in ("before", "after"):
    assert abs(sum(d[side]["breakdown"].values()) - 1) < 1e-6, "breakdown sums to 1"
stat = ["basis", "n_before", "n_after", "before", "after", "delta", "pct", "ci", "p", "significant", "verdict"]
for s in [d["step_time"]] + list(d["breakdown"].values()) + list(d["counts"].values()):
    assert sorted(s) == sorted(stat), sorted(s)
for k in ("kernels", "ranges", "api_calls", "copies"):
    for it in d[k]:
        assert it["presence"] in ("both", "appeared", "vanished")
        assert sorted(it["test"]) == sorted(stat)
print("ok")' 2>&1)
eq "diff json: schema gpuscope.diff/1 ($out)" ok "$out"
# each side is analyze's: steps, median step time, primary class, breakdown
for side in before:base_a after:kernel2x; do
	$GS analyze --format json "$(kt "${side#*:}")" >"$T/an.json"
	out=$(printf '%s' "$j1" | python3 -c '
import json, sys
d = json.load(sys.stdin)[sys.argv[1]]
v = json.load(open(sys.argv[2]))["verdict"]
assert d["steps"] == v["steps"] and d["steps_by"] == v["steps_by"], "steps"
assert d["step_time_ms"] == v["step_time_ms"], (d["step_time_ms"], v["step_time_ms"])
assert d["primary"] == v["primary"], "primary"
assert all(abs(d["breakdown"][c] - v["breakdown"][c]) < 1e-9 for c in v["breakdown"]), "breakdown"
assert all(abs(d["ms_per_step"][c] - v["breakdown_ns"][c] / 1e6 / v["steps"]) < 1e-6 for c in v["breakdown"]), "ms"
print("ok")' "${side%%:*}" "$T/an.json" 2>&1)
	eq "diff json: $side is analyze's verdict ($out)" ok "$out"
done
m=$($GS diff --format markdown "$(kt base_a)" "$(kt kernel2x)")
has "diff markdown: a heading" "### gpuscope diff: \`" "$m"
has "diff markdown: a table row with the kernel as code" '| +199.8 us | +99.2% | 201.4 us | 401.2 us | 3.0e-11 | REGRESSION | `void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float*)` |' "$m"
has "diff markdown: the result" "**Result:** 2 significant regressions beyond 5%" "$m"
$GS diff --fail-on-regression -f md -o "$T/pr.md" "$(kt base_a)" "$(kt kernel2x)"
eq "diff -o: exit 3, written either way" "3 1" "$? $(grep -c '^\*\*Result:\*\*' "$T/pr.md")"

# GPU recordings (tests/data/diff/*.gst, steps are NVTX ranges named step): two runs of one
# program must not differ; a kernel 2x slower, an extra synchronize per step and pageable vs
# pinned copies must be found
if [ -f "$DD/base_a.gst" ]; then
	gd() { printf '%s/%s.gst' "$DD" "$1"; }

	# two runs of the same program, both ways: no regression
	for p in "base_a base_b" "base_b base_a"; do
		set -- $p
		$GS diff --step step --fail-on-regression "$(gd "$1")" "$(gd "$2")" >"$T/out.txt"
		eq "diff gpu noise $1 -> $2: exit 0" 0 $?
		eq "diff gpu noise $1 -> $2: no regression" "" \
			"$(diff_field "$(gd "$1")" "$(gd "$2")" "$regs" --step step)"
	done

	# one elementwise kernel 2x slower: that kernel regresses, by about 100%; exit 3
	$GS diff --step step --fail-on-regression "$(gd base_a)" "$(gd kernel2x)" >/dev/null
	eq "diff gpu kernel2x: exit 3" 3 $?
	eq "diff gpu kernel2x: one kernel regressed" 1 \
		"$(diff_field "$(gd base_a)" "$(gd kernel2x)" "len([r for r in d['regressions'] if r['what'] == 'kernel'])" --step step)"
	between "diff gpu kernel2x: by 80..120%" 80 120 \
		"$(diff_field "$(gd base_a)" "$(gd kernel2x)" "[r['pct'] for r in d['regressions'] if r['what'] == 'kernel'][0]" --step step)"
	has "diff gpu kernel2x: the exp kernel" "exp_kernel_cuda" \
		"$(diff_field "$(gd base_a)" "$(gd kernel2x)" "[r['name'] for r in d['regressions'] if r['what'] == 'kernel'][0]" --step step)"
	# +2.4% of the step: significant, under the 5% threshold
	eq "diff gpu kernel2x: step time small" "small 2.4" \
		"$(diff_field "$(gd base_a)" "$(gd kernel2x)" "d['step_time']['verdict'], round(d['step_time']['pct'], 1)" --step step | tr -d "(),'")"

	# an extra synchronize per step: syncs per step regress; exit 3
	$GS diff --step step --fail-on-regression "$(gd base_a)" "$(gd extrasync)" >/dev/null
	eq "diff gpu extrasync: exit 3" 3 $?
	eq "diff gpu extrasync: syncs per step regressed" "True" \
		"$(diff_field "$(gd base_a)" "$(gd extrasync)" "any(r['what'] == 'count' and r['name'] == 'syncs' for r in d['regressions'])" --step step)"
	eq "diff gpu extrasync: cudaDeviceSynchronize 1 -> 2 per step, a wait" "1 2 True" \
		"$(diff_field "$(gd base_a)" "$(gd extrasync)" "[(a['count_per_step_before'], a['count_per_step_after'], a['wait']) for a in d['api_calls'] if a['name'] == 'cudaDeviceSynchronize'][0]" --step step | tr -d "(),'")"

	# pageable -> pinned: the host-to-device copies got faster, no regression; the reverse regresses
	$GS diff --step step --fail-on-regression "$(gd pageable)" "$(gd pinned)" >/dev/null
	eq "diff gpu pageable -> pinned: exit 0" 0 $?
	eq "diff gpu pageable -> pinned: HtoD copies an improvement, from pageable to pinned" "improvement Pageable Pinned" \
		"$(diff_field "$(gd pageable)" "$(gd pinned)" "[(c['test']['verdict'], c['memory_before'].split()[0], c['memory_after'].split()[0]) for c in d['copies'] if c['name'] == '[CUDA memcpy HtoD]'][0]" --step step | tr -d "(),'")"
	eq "diff gpu pageable -> pinned: step time -52.7%" "improvement -52.7" \
		"$(diff_field "$(gd pageable)" "$(gd pinned)" "d['step_time']['verdict'], round(d['step_time']['pct'], 1)" --step step | tr -d "(),'")"
	$GS diff --step step --fail-on-regression "$(gd pinned)" "$(gd pageable)" >/dev/null
	eq "diff gpu pinned -> pageable: exit 3" 3 $?
	eq "diff gpu pinned -> pageable: regressions" "api:cudaMemcpyAsync copy:[CUDA memcpy HtoD] step_time:-" \
		"$(diff_field "$(gd pinned)" "$(gd pageable)" "$regs" --step step)"
fi

# options and bad input
$GS diff "$(kt base_a)" >/dev/null 2>"$T/err"
eq "diff one trace: usage error 2" 2 $?
has "diff one trace: says so" "two traces needed: BEFORE AFTER" "$(cat "$T/err")"
$GS diff "$(kt base_a)" "$(kt base_a)" "$(kt base_a)" >/dev/null 2>"$T/err"
eq "diff three traces: usage error 2" 2 $?
$GS diff --format csv "$(kt base_a)" "$(kt base_b)" >/dev/null 2>"$T/err"
eq "diff --format csv: usage error 2" 2 $?
has "diff --format csv: says which" "unknown format 'csv' (text, json, markdown, html)" "$(cat "$T/err")"
$GS diff --threshold lots "$(kt base_a)" "$(kt base_b)" >/dev/null 2>"$T/err"
eq "diff --threshold lots: usage error 2" 2 $?
$GS diff "$(kt base_a)" "$T/missing.gst" >/dev/null 2>"$T/err"
eq "diff a missing file: exit 1" 1 $?
has "diff a missing file: names it" "missing.gst" "$(cat "$T/err")"
printf 'not a trace' >"$T/junk.gst"
$GS diff "$T/junk.gst" "$(kt base_a)" >/dev/null 2>"$T/err"
eq "diff junk: exit 1" 1 $?
has "diff junk: names it" "junk.gst" "$(cat "$T/err")"
$GS diff --step nope "$(kt base_a)" "$(kt base_b)" >/dev/null 2>"$T/err"
eq "diff --step with no such range: exit 1" 1 $?
has "diff --step: says so" "no ended range named 'nope'" "$(cat "$T/err")"
eq "diff --time after every step's start: no steps, no change" "0 0 no-change" \
	"$(diff_field "$(kt base_a)" "$(kt base_b)" "d['before']['steps'], d['after']['steps'], d['verdict']" --time 57ms: 2>/dev/null | tr -d "(),'")"
$GS diff --pid 5 "$(kt base_a)" "$(kt base_b)" >/dev/null 2>"$T/err"
eq "diff --pid of no process: exit 1" 1 $?
has "diff --pid of no process: names the trace's" "--pid 5: '$(kt base_a)' has no such process (its processes: 100)" "$(cat "$T/err")"
eq "diff --time: the steps in the window" "10 10" \
	"$(diff_field "$(kt base_a)" "$(kt base_b)" "d['before']['steps'], d['after']['steps']" --time 0:19ms | tr -d "(),'")"
has "diff --help" "--fail-on-regression" "$($GS diff --help)"
has "gpuscope help lists diff" "  diff " "$($GS help)"

# a trace recorded without API calls (--cuda-api=none) against one with them: said, not hidden
D=$ROOT/tests/data
eq "diff syncs -> syncs_gpu: host_launch measured before, not after" "True False" \
	"$(diff_field "$D/cuda/syncs.gst" "$D/cuda/syncs_gpu.gst" "d['before']['host_launch_measured'], d['after']['host_launch_measured']" | tr -d "(),")"
has "diff syncs -> syncs_gpu: the text says the after trace has no API calls" "the after trace has no CUDA API calls" \
	"$($GS diff "$D/cuda/syncs.gst" "$D/cuda/syncs_gpu.gst" | tr '\n' ' ')"
hasnt "diff syncs -> syncs_activity: no such note" "no CUDA API calls" \
	"$($GS diff "$D/cuda/syncs.gst" "$D/cuda/syncs_activity.gst")"
# the launch-bound example before and after its CUDA-graph capture (graph launches recorded as
# one): the graph appears as a kernel row with the replays' time, each replay one launch
eq "diff launch_bound -> launch_bound_fixed: the CUDA graph appears, 190 replays, 16.2 ms per step" \
	"[CUDA graph 2] appeared 190 16.2" \
	"$($GS diff --format json "$ROOT/tests/data/examples/launch_bound.gst" "$ROOT/tests/data/examples/launch_bound_fixed.gst" 2>/dev/null | python3 -c '
import json, sys
k = [r for r in json.load(sys.stdin)["kernels"] if r["name"].startswith("[CUDA graph")]
print(" ".join("%s %s %d %.1f" % (r["name"], r["presence"], r["count_per_step_after"], r["ms_per_step_after"]) for r in k))')"
