# report.sh: `gpuscope report` and `gpuscope diff --format html`. Without a browser: the page
# needs no network, its data blob holds what analyze, stats and diff print as JSON, a name
# that closes the <script> element stays text, large traces give a small page, bad input fails
# naming the file. In headless Chromium (tests/cases/report_check.py): the page loads without
# a console message, its sections are there, the numbers in its tables are those of `gpuscope
# stats --format json` (kernels, ranges, steps, GPU utilization, copies) and `gpuscope analyze`
# and `gpuscope diff`, and a screenshot is taken; for a native trace, an imported PyTorch
# trace, a large synthetic one and two diff pages. Chromium is installed when run as root; a
# CI run (CI set) without it fails, elsewhere the browser part is skipped, loudly.
echo "report:"
R=$T/report
mkdir -p "$R"
D=$ROOT/tests/data
CHECK=$ROOT/tests/cases/report_check.py

# blob FILE.html EXPR: EXPR evaluated on the page's data blob (d)
blob() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
s = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<script type="application/json" id="gs-data">(.*?)</script>', s, re.S)
d = json.loads(m.group(1))
print(eval(sys.argv[2]))
PY
}

# the default name, and the page's shape
cp "$D/examples/launch_bound.gst" "$R/lb.gst"
(cd "$R" && $GS report lb.gst 2>"$R/err")
eq "report: exit 0" 0 $?
eq "report: writes TRACE.html by default" yes "$([ -s "$R/lb.html" ] && echo yes)"
eq "report: nothing on stderr for a clean trace" "" "$(cat "$R/err")"
$GS report -o "$R/lb.html" "$R/lb.gst"
page=$(cat "$R/lb.html")
has "report: a complete document" "</html>" "$page"
hasnt "report: nothing loaded from the network (http)" "src=\"http" "$page"
hasnt "report: nothing loaded from the network (https)" "https://" "$page"
hasnt "report: no external stylesheet" "<link" "$page"
eq "report: one script of its own, one data blob, one error hook" 3 "$(grep -c '<script' "$R/lb.html")"
eq "report: the blob holds analyze's JSON" True \
	"$(blob "$R/lb.html" "d['analysis'] == json.loads(__import__('subprocess').check_output(['$GS', 'analyze', '--format', 'json', '$R/lb.gst']))")"
eq "report: the blob holds stats's overview" True \
	"$(blob "$R/lb.html" "d['overview'] == json.loads(__import__('subprocess').check_output(['$GS', 'stats', '--format', 'json', '$R/lb.gst']))")"
for r in step_sum gpu_util cuda_gpu_mem_time_sum memory_sum; do
	eq "report: the blob holds stats -r $r" True \
		"$(blob "$R/lb.html" "d['reports']['$r'] == json.loads(__import__('subprocess').check_output(['$GS', 'stats', '-r', '$r', '--format', 'json', '$R/lb.gst']))")"
done
# GPU counters (--gpu-metrics): the blob's tracks and gpu_metrics_sum, as stats gives them
$GS report -o "$R/counters.html" "$D/counters.gst"
eq "report counters: the blob holds stats -r gpu_metrics_sum" True \
	"$(blob "$R/counters.html" "d['reports']['gpu_metrics_sum'] == json.loads(__import__('subprocess').check_output(['$GS', 'stats', '-r', 'gpu_metrics_sum', '--format', 'json', '$D/counters.gst']))")"
eq "report counters: the chart's points, from the session start" "4 [[0, 10], [1000000000, 20], [3000000000, 60]]" \
	"$(blob "$R/counters.html" "str(len(d['counters'])) + ' ' + str([c for c in d['counters'] if c['device'] == 0 and c['metric'] == 'gpu_util'][0]['pts'])")"
eq "report: no counters, an empty list" "[]" "$(blob "$R/lb.html" "d['counters']")"
eq "report: timeline rows of lb.gst (threads, API, stream, copies, device)" \
	"thread:1 api:1 stream:1 copies:1 device:1" \
	"$(blob "$R/lb.html" "' '.join(k + ':' + str(sum(r['kind'] == k for r in d['timeline']['rows'])) for k in ('thread', 'api', 'stream', 'copies', 'device'))")"
# --trace osrt: an "OS runtime" row per thread with blocking calls, each call an event named
# as osrt_sum names it, the row's count the thread's calls
$GS report -o "$R/hb.html" "$D/host_block.gst"
eq "report host_block: OS runtime rows hold every recorded call, named" \
	"$($GS stats -r osrt_sum --format json "$D/host_block.gst" | python3 -c 'import json,sys; r=json.load(sys.stdin)["rows"]; print(sum(x["Num Calls"] for x in r), sorted(x["Name"] for x in r))')" \
	"$(blob "$R/hb.html" "str(sum(r['count'] for r in d['timeline']['rows'] if r['kind'] == 'osrt' and r['label'] == 'OS runtime')) + ' ' + str(sorted({d['timeline']['names'][r['events'][k]] for r in d['timeline']['rows'] if r['kind'] == 'osrt' for k in range(2, len(r['events']), 4)}))")"
eq "report: every event of a small trace drawn" True \
	"$(blob "$R/lb.html" "d['timeline']['events'] == d['timeline']['events_shown'] == sum(len(r['events']) // 4 for r in d['timeline']['rows'] if r['kind'] != 'device')")"
eq "report: the device row's busy time is gpu_util's" \
	"$($GS stats -r gpu_util -f json "$R/lb.gst" | python3 -c 'import json,sys; print([r["Busy (ns)"] for r in json.load(sys.stdin)["rows"]])')" \
	"$(blob "$R/lb.html" "[r['busy_ns'] for r in d['timeline']['rows'] if r['kind'] == 'device']")"
for g in cuda/graph.gst cuda/streams.gst cuda_resnet50.gst; do
	$GS report -o "$R/g.html" "$D/$g"
	eq "report $g: the device rows' busy time is gpu_util's (graph launches counted)" \
		"$($GS stats -r gpu_util -f json "$D/$g" | python3 -c 'import json,sys; print([r["Busy (ns)"] for r in json.load(sys.stdin)["rows"]])')" \
		"$(blob "$R/g.html" "[r['busy_ns'] for r in d['timeline']['rows'] if r['kind'] == 'device']")"
done
$GS report -o "$R/g.html" "$D/cuda/graph.gst"
eq "report graph.gst: its 100 graph launches drawn on their stream, named" "100 CUDA graph 2" \
	"$(blob "$R/g.html" "sum(k == 5 for r in d['timeline']['rows'] if r['kind'] == 'stream' for k in r['events'][3::4]), [n for n in d['timeline']['names'] if 'graph' in n][0]" | tr -d "(),'")"
eq "report: copies by memory kind" "[CUDA memcpy HtoD] Pageable Device 32 16809984" \
	"$(blob "$R/lb.html" "' '.join(str(c[k]) for c in d['copies'] for k in ('operation', 'src', 'dst', 'count', 'bytes'))")"
$GS report -o - "$R/lb.gst" >"$R/stdout.html"
eq "report -o -: the same page on standard output" "$(cksum <"$R/lb.html")" "$(cksum <"$R/stdout.html")"
$GS report --pid 1 -o "$R/nopid.html" "$R/lb.gst" 2>"$R/nopid.err"
eq "report --pid of no process: exit 1, no page" "1 no" "$? $([ -e "$R/nopid.html" ] && echo yes || echo no)"
has "report --pid of no process: says so" "--pid 1: '$R/lb.gst' has no such process (its processes: " "$(cat "$R/nopid.err")"
$GS report --device 0 -o "$R/dev.html" "$R/lb.gst" 2>/dev/null
eq "report --device 0: only GPU rows" "stream copies device" "$(blob "$R/dev.html" "' '.join(r['kind'] for r in d['timeline']['rows'])")"
$GS report --time 5.9s:5.95s -o "$R/win.html" "$R/lb.gst" 2>/dev/null
eq "report --time 5.9s:5.95s: the timeline spans the window" "5900000000 5950000000" \
	"$(blob "$R/win.html" "d['timeline']['start_ns'], d['timeline']['end_ns']" | tr -d '(),')"

# imported traces: Kineto's JSON; a name that would close the <script> element stays text
K=$D/kineto/train.pt.trace.json.gz
cp "$K" "$R/train.pt.trace.json.gz"
(cd "$R" && $GS report train.pt.trace.json.gz)
eq "report kineto: exit 0, x.pt.trace.json.gz -> x.pt.trace.html" "0 yes" "$? $([ -s "$R/train.pt.trace.html" ] && echo yes)"
eq "report kineto: steps from ProfilerStep#N" "profiler 3" "$(blob "$R/train.pt.trace.html" "d['analysis']['verdict']['steps_by'], d['analysis']['verdict']['steps']" | tr -d "(),'")"
python3 - "$D/kineto/hand.json" "$R/evil.json" <<'PY'
import sys
s = open(sys.argv[1]).read().replace('void gemm<float>(float*)',
    "</script><script>document.body.setAttribute('data-pwned','1')</script><!-- & \\u2028")
open(sys.argv[2], 'w').write(s)
PY
$GS report -o "$R/evil.html" "$R/evil.json"
eq "report: a hostile kernel name: exit 0" 0 $?
eq "report: a hostile kernel name: no '</script>' but the page's own" 3 "$(grep -o '</script>' "$R/evil.html" | wc -l)"
eq "report: a hostile kernel name: read back as it was" True \
	"$(blob "$R/evil.html" "any(n.startswith('</script><script>document.body') for n in d['timeline']['names'])")"

# a large trace is summarised: 200,000 events, 20,000 drawn, bins for the rest
"$ROOT/$BUILD_DIR/bench/gen_trace" "$R/gen.gst" 200000 >/dev/null
$GS report -o "$R/gen.html" "$R/gen.gst"
eq "report large: exit 0" 0 $?
eq "report large: 200000 events, the 20000 longest drawn" "200000 20000" \
	"$(blob "$R/gen.html" "d['timeline']['events'], d['timeline']['events_shown']" | tr -d '(),')"
longest=$( { $GS stats -r cuda_gpu_kern_sum -f csv "$R/gen.gst"; $GS stats -r nvtx_sum -f csv "$R/gen.gst"; } |
	python3 -c 'import csv,sys; print(max(int(r["Max (ns)"]) for r in csv.DictReader(l for l in sys.stdin if not l.startswith("Time (%)") or "Max" in l) if r.get("Max (ns)", "").isdigit()))')
eq "report large: the longest event is drawn" True \
	"$(blob "$R/gen.html" "$longest in [e for r in d['timeline']['rows'] if r['kind'] != 'device' for e in r['events'][1::4]]")"
between "report large: page under 2 MB (bytes)" 10000 2000000 "$(stat -c %s "$R/gen.html")"
eq "report large: 2000 bins per row, busy in per mille" True \
	"$(blob "$R/gen.html" "all(len(r['busy']) == len(r['top']) == 2000 and 0 <= min(r['busy']) and max(r['busy']) <= 1000 for r in d['timeline']['rows'])")"

# many steps: the first 1000 kept, their count and the median and p90 rows of them all
AB=':autograd::engine::evaluate_function: AddBackward0'
$GS report --step "$AB" -o "$R/steps.html" "$R/gen.gst"
eq "report 3984 steps: exit 0" 0 $?
eq "report 3984 steps: the first 1000 steps' bars, the count of all" "1000 3984 [0 1 2]" \
	"$(blob "$R/steps.html" "len(d['analysis']['steps']), d['analysis']['verdict']['steps'], [s['number'] for s in d['analysis']['steps'][:3]]" | tr -d "(),'" )"
eq "report 3984 steps: step_sum's first 1000 rows, then its median and p90" True \
	"$(blob "$R/steps.html" "(lambda r: d['reports']['step_sum']['rows'] == r[:1000] + r[-2:] and d['reports']['rows_total']['step_sum'] == len(r))(json.loads(__import__('subprocess').check_output(['$GS', 'stats', '--step', '$AB', '-r', 'step_sum', '--format', 'json', '$R/gen.gst']))['rows'])")"
eq "report 3984 steps: analyze's JSON but the steps past 1000" True \
	"$(blob "$R/steps.html" "(lambda a: a['steps'][:1000] == d['analysis']['steps'] and dict(a, steps=0) == dict(d['analysis'], steps=0))(json.loads(__import__('subprocess').check_output(['$GS', 'analyze', '--step', '$AB', '--format', 'json', '$R/gen.gst'])))")"

# diff --format html
DD=$D/diff
$GS diff --format html -o "$R/diff.html" "$DD/kineto_base_a.json.gz" "$DD/kineto_kernel2x.json.gz"
eq "diff --format html: exit 0" 0 $?
eq "diff --format html: the blob holds diff's JSON" True \
	"$(blob "$R/diff.html" "d['diff'] == json.loads(__import__('subprocess').check_output(['$GS', 'diff', '--format', 'json', '$DD/kineto_base_a.json.gz', '$DD/kineto_kernel2x.json.gz']))")"
$GS diff --format html --fail-on-regression -o "$R/diff2.html" "$DD/kineto_base_a.json.gz" "$DD/kineto_kernel2x.json.gz"
eq "diff --format html --fail-on-regression: exit 3, the page written" "3 yes" "$? $([ -s "$R/diff2.html" ] && echo yes)"

# bad input: a clear error naming the file, no page, no crash
err=$($GS report -o "$R/none.html" "$R/missing.gst" 2>&1)
eq "report: a missing trace: exit 1" 1 $?
has "report: a missing trace: names it" "$R/missing.gst" "$err"
eq "report: a missing trace: no page" "" "$(ls "$R/none.html" 2>/dev/null)"
printf 'not a trace at all' >"$R/junk.gst"
err=$($GS report -o "$R/junk.html" "$R/junk.gst" 2>&1)
eq "report: a junk file: exit 1" 1 $?
has "report: a junk file: names it" "$R/junk.gst" "$err"
printf '{"traceEvents": [' >"$R/cut.json"
err=$($GS report -o "$R/cut.html" "$R/cut.json" 2>&1)
eq "report: a cut JSON trace: exit 0 or 1, never a crash" yes "$(case $? in 0|1) echo yes ;; *) echo no ;; esac)"
$GS report -o "$R/segv.html" "$D/crash_segv.gst" 2>"$R/err"
eq "report: the trace of a crashed program: exit 0" 0 $?
err=$($GS report -o "$R/lb.gst" "$R/lb.gst" 2>&1)
eq "report: onto the trace itself: exit 1" 1 $?
has "report: onto the trace itself: says so" "is the trace itself" "$err"
err=$($GS report -o "$R/nodir/x.html" "$R/lb.gst" 2>&1)
eq "report: to a missing folder: exit 1" 1 $?
has "report: to a missing folder: names the file" "$R/nodir/x.html" "$err"
err=$($GS report 2>&1)
eq "report: no trace: exit 2" 2 $?
has "report: no trace: says so" "no trace given" "$err"
err=$($GS report --time x "$R/lb.gst" 2>&1)
eq "report --time x: exit 2" 2 $?
err=$($GS report --step nosuch -o "$R/ns.html" "$R/lb.gst" 2>&1)
eq "report --step nosuch: exit 1" 1 $?
has "report --step nosuch: names the range" "no ended range named 'nosuch'" "$err"
has "help report" "usage: gpuscope report [OPTIONS] TRACE" "$($GS help report)"
has "help lists report" "report" "$($GS help | grep '^  report ')"
has "report has a man page" "gpuscope-report(1)" "$(head -1 "$ROOT/docs/gpuscope-report.md")"
for o in --output --step --input-range --pid --time --device; do
	has "report's man page documents $o" "$o" "$(cat "$ROOT/docs/gpuscope-report.md")"
	has "report --help lists $o" "$o" "$($GS report --help)"
done
err=$($GS diff --format htm "$DD/kineto_base_a.json.gz" "$DD/kineto_kernel2x.json.gz" 2>&1)
has "diff: unknown format lists html" "(text, json, markdown, html)" "$err"

# in a real browser
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get install -y -q chromium >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; }
fi
if ! command -v chromium >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		bad "report: chromium found (the browser test needs it in CI)" "run: sudo apt-get install -y chromium"
	else
		echo "  SKIPPED: the report's browser test: no chromium (run: sudo apt-get install -y chromium)"
	fi
else
	ok "report: chromium found"
	browse() { # NAME report|diff PAGE ARGS...
		local name=$1
		shift
		out=$(python3 "$CHECK" "$1" "$GS" "${@:2}" "$R/shots" 2>&1)
		local rc=$?
		eq "browser $name: loads without console errors, sections and numbers as stats/analyze/diff ($(printf '%s' "$out" | tail -1))" \
			0 "$rc"
		[ -n "$(printf '%s' "$out" | grep '^FAIL')" ] && printf '%s\n' "$out" | grep '^FAIL' | head -8 | sed 's/^/       /'
		return 0
	}
	mkdir -p "$R/shots"
	cp "$D/examples/sync_bound.gst" "$R/sb.gst"
	$GS report -o "$R/sb.html" "$R/sb.gst"
	browse "native launch_bound.gst" report "$R/lb.html" "$R/lb.gst"
	browse "native sync_bound.gst" report "$R/sb.html" "$R/sb.gst"
	browse "GPU counters counters.gst" report "$R/counters.html" "$D/counters.gst"
	$GS report -o "$R/syncs_gpu.html" "$D/cuda/syncs_gpu.gst"
	browse "native without API calls (--cuda-api=none) syncs_gpu.gst" report "$R/syncs_gpu.html" "$D/cuda/syncs_gpu.gst"
	$GS report -o "$R/host_block.html" "$D/host_block.gst"
	browse "native, CPU only, with OS runtime calls host_block.gst" report "$R/host_block.html" "$D/host_block.gst"
	$GS report -o "$R/host_stacks.html" "$D/host_stacks.gst"
	browse "OS runtime calls with their stacks host_stacks.gst" report "$R/host_stacks.html" "$D/host_stacks.gst"
	$GS report -o "$R/host_cpu.html" "$D/host_cpu.gst"
	browse "CPU samples host_cpu.gst" report "$R/host_cpu.html" "$D/host_cpu.gst"
	$GS report -o "$R/item_sync.html" "$D/item_sync.gst"
	browse "host-bound in a repeating range, main thread off CPU item_sync.gst" report "$R/item_sync.html" "$D/item_sync.gst"
	$GS report --step step -o "$R/autograd.html" "$D/autograd_train.gst"
	browse "a warm-up step, backward on pt_autograd_0 autograd_train.gst" report "$R/autograd.html" "$D/autograd_train.gst" --step=step
	$GS report -o "$R/compile.html" "$D/compile.gst"
	browse "a cold start: imports and torch.compile compiling compile.gst" report "$R/compile.html" "$D/compile.gst"
	$GS report --step step -o "$R/recompile.html" "$D/recompile_shapes.gst"
	browse "a warm-up step of torch.compile compiling, and a recompile recompile_shapes.gst" report "$R/recompile.html" "$D/recompile_shapes.gst" --step=step
	browse "imported kineto train" report "$R/train.pt.trace.html" "$R/train.pt.trace.json.gz"
	$GS report -o "$R/loading.html" "$D/kineto/loading.json"
	browse "CUDA loading code, CUPTI's own time (kineto loading.json)" report "$R/loading.html" "$D/kineto/loading.json"
	browse "hostile names" report "$R/evil.html" "$R/evil.json"
	browse "200k-event trace" report "$R/gen.html" "$R/gen.gst"
	browse "3984 steps" report "$R/steps.html" "$R/gen.gst" "--step=$AB"
	browse "diff kineto base_a -> kernel2x" diff "$R/diff.html" "$DD/kineto_base_a.json.gz" "$DD/kineto_kernel2x.json.gz"
	$GS diff --format html -o "$R/diff3.html" "$D/examples/pageable_copy.gst" "$D/examples/pageable_copy_fixed.gst"
	browse "diff pageable_copy -> fixed (native)" diff "$R/diff3.html" "$D/examples/pageable_copy.gst" "$D/examples/pageable_copy_fixed.gst"
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$R/dark-profile" \
		--blink-settings=preferredColorScheme=0 --window-size=1280,2400 --virtual-time-budget=10000 \
		--screenshot="$R/shots/dark.png" "file://$R/train.pt.trace.html" >/dev/null 2>&1
	between "browser: a screenshot in dark mode (bytes)" 20000 100000000 "$(stat -c %s "$R/shots/dark.png" 2>/dev/null)"
	eq "browser: light mode: a light background" "255 255 255" "$(python3 "$CHECK" pixel "$R/shots/train.pt.trace.html.png" 2>&1)"
	eq "browser: dark mode: a dark background" "21 24 29" "$(python3 "$CHECK" pixel "$R/shots/dark.png" 2>&1)"
	eq "browser: screenshots of every page" 19 "$(find "$R/shots" -name '*.png' -size +20k | wc -l)"
fi
