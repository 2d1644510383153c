#!/usr/bin/env bash
# bench/launch_cost.sh: what each recorder adds to one CUDA call and to one PyTorch operation on
# the host, in ns (GPU machine). Processes of the variants run interleaved, REPS of each; each
# runs bench/launch_cost.cu (bare CUDA calls) or bench/torch_ops.py (PyTorch operations), which
# time blocks with recording off and on in the same process (cudaProfilerStart/Stop; every
# recorder here records only inside that range). Per process, the added time of a call is its
# "on" median minus its "off" median; the table gives the median over processes (min..max),
# and gpuscope's added time over the floor's. Appends to bench/RESULTS.md.
#   usage: bench/launch_cost.sh [BUILD_DIR]   (env: REPS=6 CALLS=1000 OPS=500 BLOCKS=12
#   PROGS="c c_shared torch" VARIANTS="none floor floor_cb gpuscope gpuscope_gpu gpuscope_nosample")
# Programs: c (launch_cost.cu, the CUDA runtime linked statically: nvcc's default), c_shared
# (the same with the shared libcudart.so that PyTorch loads; its rows are named "shared:OP"),
# torch (torch_ops.py).
# Variants: none (no tool; the control), floor (bench/cupti_floor.c: CUPTI kernels, copies,
# memsets), floor_cb (the floor and the diagnosis set's enter/exit callbacks, each writing two
# TSC reads to a thread buffer: the least a callback recorder can do), floor_cbrt (those of the
# runtime API only), floor_std (the floor with the kinds gpuscope keeps on all run: DEVICE,
# CONTEXT, STREAM, GRAPH_TRACE), gpuscope (defaults), gpuscope_gpu (--cuda-api=none), gpuscope_nosample
# (--sample none), gpuscope_nots (CUPTI's timestamps from its own clock, not gpuscope's),
# gpuscope_bare (--cuda-api=none --sample none, and none of the optional or standing CUPTI
# kinds: kernels, copies and memsets into gpuscope's buffers, what the floor records),
# gpuscope_files (the rings in their files in the session directory: GPUSCOPE_RING_MEMORY=0,
# gpuscope before 2026-12-05), gpuscope_cb (API calls timed by callbacks:
# GPUSCOPE_CUDA_API_TIMING=callback, the default before 2026-12-05 session 7), floor_act (the
# floor and the diagnosis set's API activity records enabled call by call when the range opens:
# CUPTI gives none then), floor_acte (enabled so from the injection until the first context
# exists, then switched with the range: how gpuscope times them), floor_actk (enabled so at the
# injection, then switched by the API kinds: every call recorded); floor_zero, floor_pin,
# floor_glob, floor_big: the floor with CUPTI's activity attributes set (FLOOR_ATTR in
# bench/cupti_floor.c: buffers given zeroed, device-side buffers in pinned host memory, one
# buffer stream for all threads, 32 MB device-side buffers, 4 made ahead); floor_waits: the floor
# and the enter/exit callbacks of the calls that wait (FLOOR_WAITS=1), nothing else timed;
# floor_waitsrt: those of the runtime API's waits only (FLOOR_WAITS=runtime); gpuscope_base:
# gpuscope's defaults as built in the folder BASE (another commit, to compare in one run);
# floor_gs: floor_acte and floor_waits together, what gpuscope's default asks of CUPTI at the
# least (as in bench/gpu_overhead.sh); gpuscope_kinds: gpuscope without the optional CUPTI kinds
# (GPUSCOPE_CUPTI_KINDS=none: no device-memory or overhead records); gpuscope_nomem /
# gpuscope_noovh: without the device-memory kind / without the overhead kind.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-6} CALLS=${CALLS:-1000} OPS=${OPS:-500} BLOCKS=${BLOCKS:-12} PROGS=${PROGS:-c c_shared torch}
VARIANTS=${VARIANTS:-none floor floor_cb gpuscope gpuscope_gpu gpuscope_nosample}
TO="timeout ${PROC_TIMEOUT:-120}"
T=$(mktemp -d)
. bench/floor_lib.sh
build_floor "$T" || exit 1
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
nvcc -O2 -arch=sm_90 -o "$T/launch_cost" bench/launch_cost.cu -lcuda || exit 1
nvcc -O2 -arch=sm_90 -cudart shared -Xlinker -rpath -Xlinker "$CUDA_HOME/lib64" \
	-o "$T/launch_cost_shared" bench/launch_cost.cu -lcuda || exit 1
# one process of variant $v running program $p (c, c_shared or torch)
cmd() {
	case $p in
	c) echo "$T/launch_cost $v $CALLS $BLOCKS" ;;
	c_shared) echo "$T/launch_cost_shared $v $CALLS $BLOCKS" ;;
	*) echo "python3 bench/torch_ops.py $v $OPS $BLOCKS" ;;
	esac
}
# its result lines, the shared-runtime program's named apart
out() { if [ "$p" = c_shared ]; then sed 's/"op": "/"op": "shared:/' >>"$T/$v"; else cat >>"$T/$v"; fi; }
floor_run() { CUDA_INJECTION64_PATH=$T/libfloor.so $TO $(cmd) 2>>"$T/floor.err" | out; sed -n "s/^cupti_floor: /$v $p: /p" "$T/floor.err" | tail -1 >>"$T/records"; }
gs_run() { $TO "$GS" profile -f -o "$T/run" --capture-range=cudaProfilerApi "$@" $(cmd) 2>>"$T/gs.err" | out; }
for _ in $(seq "$REPS"); do
	for v in $VARIANTS; do
		for p in $PROGS; do
			case $v in
			none) $TO $(cmd) 2>>"$T/none.err" | out ;;
			floor) floor_run ;;
			floor_cb) FLOOR_API=callback floor_run ;;
			floor_cbrt) FLOOR_API=callback_runtime floor_run ;;
			floor_std) FLOOR_STANDING=1 floor_run ;;
			floor_waits) FLOOR_WAITS=1 floor_run ;;
			floor_waitsrt) FLOOR_WAITS=runtime floor_run ;;
			floor_zero) FLOOR_ATTR=zeroed floor_run ;;
			floor_pin) FLOOR_ATTR=pinned floor_run ;;
			floor_glob) FLOOR_ATTR=global floor_run ;;
			floor_big) FLOOR_ATTR=devbuf=33554432,prealloc=4 floor_run ;;
			floor_act) FLOOR_API=activity floor_run ;;
			floor_acte) FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx floor_run ;;
			floor_actk) FLOOR_API=activity_early_kind floor_run ;;
			floor_acte_ts) FLOOR_TS=1 FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx floor_run ;;
			floor_acte_tid) FLOOR_TID=1 FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx floor_run ;;
			floor_gs) FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx FLOOR_WAITS=1 floor_run ;;
			gpuscope) gs_run ;;
			gpuscope_cb) GPUSCOPE_CUDA_API_TIMING=callback gs_run ;;
			gpuscope_base) GS=$PWD/${BASE:?BASE: the baseline build folder}/bin/gpuscope gs_run ;;
			gpuscope_gpu) gs_run --cuda-api=none ;;
			gpuscope_nosample) gs_run --sample none ;;
			gpuscope_nots) GPUSCOPE_CUPTI_STANDING=device,context,stream,graph,flush gs_run ;;
			gpuscope_bare) GPUSCOPE_CUPTI_STANDING=timestamps,flush GPUSCOPE_CUPTI_KINDS=none gs_run --cuda-api=none --sample none ;;
			gpuscope_files) GPUSCOPE_RING_MEMORY=0 gs_run ;;
			gpuscope_kinds) GPUSCOPE_CUPTI_KINDS=none gs_run ;;
			gpuscope_nomem) GPUSCOPE_CUPTI_KINDS=overhead gs_run ;;
			gpuscope_noovh) GPUSCOPE_CUPTI_KINDS=memory gs_run ;;
			*) echo "unknown variant $v" >&2; exit 2 ;;
			esac
		done
	done
done
grep -i "gpuscope: wrote" "$T/gs.err" 2>/dev/null | tail -1
for v in $VARIANTS; do
	n=$(grep -c '^{' "$T/$v" 2>/dev/null)
	want=0
	for p in $PROGS; do case $p in c | c_shared) want=$((want + 9)) ;; torch) want=$((want + 4)) ;; esac; done
	[ "${n:-0}" -lt $((REPS * want)) ] && { echo "$v: ${n:-0} results of $((REPS * want))"; tail -n 4 "$T"/*.err | grep -v '^$' | tail -8; }
done
python3 - "$T" $VARIANTS <<'PY' | tee "$T/table.md"
import json, statistics, sys
d, vs = sys.argv[1], sys.argv[2:]
add, off = {}, {}
ops = []
for v in vs:
    try:
        lines = open("%s/%s" % (d, v)).read().splitlines()
    except OSError:
        continue
    for l in lines:
        if l.startswith("{"):
            r = json.loads(l)
            if r["op"] not in ops:
                ops.append(r["op"])
            add.setdefault((r["op"], v), []).append(r["on_ns"] - r["off_ns"])
            off.setdefault(r["op"], []).append(r["off_ns"])
print("| call | time with recording off, ns | " + " | ".join("%s adds, ns" % v for v in vs) +
      (" | gpuscope / floor |" if "gpuscope" in vs and "floor" in vs else " |"))
print("|---|---|" + "---|" * len(vs) + ("---|" if "gpuscope" in vs and "floor" in vs else ""))
for op in ops:
    cells = []
    for v in vs:
        xs = add.get((op, v), [])
        cells.append("%+.0f (%+.0f..%+.0f)" % (statistics.median(xs), min(xs), max(xs)) if xs else "n/a")
    row = "| %s | %.0f | %s |" % (op, statistics.median(off[op]), " | ".join(cells))
    if "gpuscope" in vs and "floor" in vs:
        g, f = statistics.median(add[(op, "gpuscope")]), statistics.median(add[(op, "floor")])
        row += " %s |" % ("%.2f" % (g / f) if f > 20 else "n/a (floor adds < 20 ns)")
    print(row)
PY
[ -f "$T/records" ] && sort "$T/records" | uniq -c
{
	echo
	echo "## $(date -u +%Y-%m-%d): what recording adds to one CUDA call ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
	echo
	echo "Machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)."
	echo "Command: \`REPS=$REPS CALLS=$CALLS OPS=$OPS BLOCKS=$BLOCKS PROGS=\"$PROGS\" VARIANTS=\"$VARIANTS\" bench/launch_cost.sh\`:"
	echo "$REPS processes of each variant and program, interleaved; in each, $BLOCKS pairs of blocks of $CALLS"
	echo "calls ($OPS operations for torch_ops.py) of each kind, recording off then on; per process the added time is the on median minus the"
	echo "off median; cells: median over processes (min..max), ns per call."
	echo
	cat "$T/table.md"
} >>bench/RESULTS.md
[ -n "${OUT:-}" ] && { cp bench/RESULTS.md "$OUT/RESULTS.md"; mkdir -p "$OUT/launch_cost"; for v in $VARIANTS; do cp "$T/$v" "$OUT/launch_cost/"; done; cp "$T"/*.err "$T"/records "$OUT/launch_cost/" 2>/dev/null; }
exit 0
