#!/usr/bin/env bash
# tests/gpu/autograd.sh: an eager PyTorch training loop (tests/gpu/autograd_train.py) profiled
# with plain `gpuscope profile` (CPU sampling on): its backward pass runs on autograd's thread,
# pt_autograd_0, while the main thread waits in loss.backward(). In the steps after the first
# (warm-up), analyze must give the GPU's idle time during that wait to what pt_autograd_0 ran
# (native code, its thread named), keep the loop's thread as the main thread, and name code
# running in the verdict. With OUT set, the trace is saved as $OUT/autograd_train.gst (the CI
# fixture tests/data/autograd_train.gst was made so).
#   usage: tests/gpu/autograd.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
$GS profile -o "$T/ag" python3 tests/gpu/autograd_train.py 40 >"$T/out" 2>"$T/err"
eq "autograd: profile exit 0" 0 $?
tail -1 "$T/err"
[ -n "${OUT:-}" ] && cp "$T/ag.gst" "$OUT/autograd_train.gst"
# the second step's start, session-relative: the steps from it on
from=$($GS stats -r step_sum --step step --format csv "$T/ag.gst" | python3 -c "import csv,sys
print(int(list(csv.DictReader(sys.stdin))[1]['Start (ns)']))")
$GS analyze --step step --time "${from}ns:" "$T/ag.gst" | sed -n '1,/^Findings/p'
$GS analyze --step step --time "${from}ns:" --format json -o "$T/ag.json" "$T/ag.gst"
eq "autograd: analyze exit 0" 0 $?
q() { python3 -c "import json,sys
a = json.load(open(sys.argv[1])); i = a['idle_attribution']; c = i['classes']; sh = lambda k: c[k]['ns'] / i['idle_ns']
print($1)" "$T/ag.json"; }
eq "autograd: 39 steps after the first" 39 "$(q "a['verdict']['steps']")"
eq "autograd: the main thread is the loop's (tid = pid)" True "$(q "i['main_tid'] == i['main_pid']")"
eq "autograd: native code on pt_autograd_0 takes over 15% of the idle time" "True pt_autograd_0" \
	"$(q "sh('native') > 0.15, c['native']['top_thread']" | tr -d "(),'")"
eq "autograd: off CPU under 40% of it" True "$(q "sh('off_cpu') < 0.4")"
eq "autograd: the verdict names code running" True "$(q "(a['verdict']['idle_host'] or {}).get('class') in ('python', 'native')")"
echo "autograd: $PASS passed, $FAIL failed"
