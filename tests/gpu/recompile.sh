#!/usr/bin/env bash
# tests/gpu/recompile.sh: torch.compile recompiling inside the loop (tests/gpu/recompile.py),
# profiled with plain `gpuscope profile` (CPU sampling on): `analyze --step step` must find
# torch-recompiles in the steps after the first in which Dynamo compiled again, by its own
# counter (a shape change, a Python float that changes), and not when shapes and values stay
# (compiled in the first step only). As whole runs, the
# start-up note names the imports and the compiling. With --pytorch nvtx, torch-graph-breaks
# where Dynamo broke its graph (torch._dynamo.graph_break()) and not where it did not. With OUT set, the scalar run's trace is
# saved as $OUT/recompile.gst (a CI fixture).
#   usage: tests/gpu/recompile.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
for m in static shapes scalar; do
	$GS profile -o "$T/$m" python3 tests/gpu/recompile.py $m 16 >"$T/$m.out" 2>"$T/$m.err"
	eq "recompile $m: profile exit 0" 0 $?
	tail -2 "$T/$m.out"
	# Dynamo's own count: the steps after the first in which it compiled a frame
	sed -n 's/^compiled in steps \[\(.*\)\]$/\1/p' "$T/$m.out" | tr ',' '\n' | grep -cv '^ *0\?$' >"$T/$m.truth"
	$GS analyze --step step --format json -o "$T/$m.json" "$T/$m.gst"
	$GS analyze --format json -o "$T/$m.run.json" "$T/$m.gst"
done
[ -n "${OUT:-}" ] && cp "$T/scalar.gst" "$OUT/recompile.gst"
$GS analyze --step step "$T/scalar.gst" | grep -A6 "torch-recompiles"
q() { python3 -c "import json,sys
a = json.load(open(sys.argv[1])); i = a['idle_attribution']; f = [f for f in a['findings'] if f['id'] == 'torch-recompiles']
e = f[0]['evidence'] if f else {}
print($2)" "$T/$1.json"; }
eq "recompile: 16 steps each" "16 16 16" "$(for m in static shapes scalar; do q $m "a['verdict']['steps']"; done | tr '\n' ' ' | sed 's/ $//')"
eq "recompile static: compiling in the first step only, no torch-recompiles" "True 0 False" \
	"$(q static "i['startup']['compile_ns'] > 0, i['startup']['recompile_ns'], bool(f)" | tr -d "(),'")"
eq "recompile static: Dynamo compiled in no later step" 0 "$(cat "$T/static.truth")"
for m in shapes scalar; do
	between "recompile $m: Dynamo compiled in later steps" 1 15 "$(cat "$T/$m.truth")"
	eq "recompile $m: torch-recompiles in the steps Dynamo compiled in again" "True $(cat "$T/$m.truth")" \
		"$(q $m "bool(f), e.get('recompile_steps', 0)" | tr -d "(),'")"
done
eq "recompile scalar: its saving is most of compile_ms per step" True \
	"$(q scalar "abs(f[0]['saving_ms_per_step'] * 16 - e['compile_ms']) < 0.01 * e['compile_ms']")"
# graph breaks, read from PyTorch's ranges as NVTX ranges (--pytorch nvtx): "Torch-Compiled
# Region" of the resume frame inside the first's, where Dynamo counted a break; none without
for m in graphbreak static; do
	$GS profile -o "$T/nvtx_$m" --pytorch nvtx python3 tests/gpu/recompile.py $m 16 >"$T/nvtx_$m.out" 2>"$T/nvtx_$m.err"
	eq "graph breaks $m (--pytorch nvtx): profile exit 0" 0 $?
	tail -1 "$T/nvtx_$m.out"
	$GS analyze --step step --format json -o "$T/nvtx_$m.json" "$T/nvtx_$m.gst"
done
$GS analyze --step step "$T/nvtx_graphbreak.gst" | grep -A5 "torch-graph-breaks"
$GS stats -r nvtx_sum "$T/nvtx_graphbreak.gst" | grep -E "Compiled|Range" | head -6
eq "graph breaks: Dynamo counted a break with graph_break(), none without" "1 0" \
	"$(sed -n 's/^graph breaks //p' "$T/nvtx_graphbreak.out" "$T/nvtx_static.out" | tr '\n' ' ' | sed 's/ $//')"
gbq() { python3 -c "import json,sys
a = json.load(open(sys.argv[1])); f = [f['evidence'] for f in a['findings'] if f['id'] == 'torch-graph-breaks']
print($2)" "$T/nvtx_$1.json"; }
eq "graph breaks: torch-graph-breaks, a resumed frame in every step but the compiling first" True \
	"$(gbq graphbreak "bool(f) and f[0]['resumed_frames'] >= 15 and f[0]['between_graphs_ms'] > 0")"
eq "graph breaks static: no torch-graph-breaks" False "$(gbq static "bool(f)")"
python3 -c "import json,sys
a = json.load(open(sys.argv[1])); print('scalar, whole run: startup', a['verdict']['startup'])" "$T/scalar.run.json"
eq "recompile scalar (whole run): compiling counted" True \
	"$(python3 -c "import json,sys; a = json.load(open(sys.argv[1])); print(a['idle_attribution']['startup']['compile_ns'] > 0)" "$T/scalar.run.json")"
echo "recompile: $PASS passed, $FAIL failed"
