#!/usr/bin/env bash
# bench/gpu_overhead.sh: what recording costs a PyTorch step on the GPU machine. Processes of
# the variants run interleaved (none, floor, gpuscope, torch.profiler, none, ...), REPS of
# each; every process runs all workloads, alternating blocks of steps without and with
# recording (bench/gpu_overhead.py). The floor is bench/cupti_floor.c: CUPTI recording kernels,
# copies and memsets and nothing else. Per process, the added time is the median step time of
# its "on" blocks minus that of its "off" blocks, as a fraction of "off"; the table gives the
# median over processes (min..max) for each variant, and gpuscope's added fraction over the
# floor's and over torch.profiler's. Appends to bench/RESULTS.md.
#   usage: bench/gpu_overhead.sh [BUILD_DIR]   (env: REPS=10 WORKLOADS="mlp item resnet50 loader"
#   PIN="taskset -c 4-11": a command every process runs under, e.g. to hold them on the same cores;
#   PROC_TIMEOUT=240: seconds after which a process is stopped)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-10}
WL=${WORKLOADS:-mlp item resnet50 loader}
PIN=${PIN:-}
# a process that hangs is stopped (and prints no line) rather than holding up the run
TO="timeout ${PROC_TIMEOUT:-240}"
T=$(mktemp -d)
. bench/floor_lib.sh
build_floor "$T" || exit 1
# VARIANTS may add floor_act / floor_actw / floor_cb: the floor plus the diagnosis set of API calls timed
# by CUPTI's API activity records or by the callback API (bench/cupti_floor.c, FLOOR_API);
# floor_acte: by API activity records enabled call by call from the injection until the first
# context exists, then switched call by call with the range (how gpuscope times them);
# floor_cbrt: the callbacks of the runtime API's diagnosis set only (none of the driver API's);
# floor_gs: what gpuscope's default needs of CUPTI at the least, the floor with floor_acte's API
# activity records and the calls that wait timed by callbacks (FLOOR_WAITS=1), as gpuscope does;
# floor_zero / floor_pin / floor_glob / floor_big: the floor with CUPTI's activity attributes
# set (FLOOR_ATTR in bench/cupti_floor.c; bench/launch_cost.sh says which); floor_ts /
# floor_gs_ts: the floor / floor_gs with CUPTI's timestamps taken by a CLOCK_MONOTONIC callback
# (FLOOR_TS=1), as gpuscope sets CUPTI up; gpuscope_nots: gpuscope without that callback (CUPTI's
# own clock: its records misplaced in time, for measuring only); gpuscope_base: gpuscope's
# defaults as built in the folder BASE (another commit, to compare in one run);
# gpuscope_kinds: gpuscope without the optional CUPTI kinds (GPUSCOPE_CUPTI_KINDS=none: no
# synchronization, device-memory or overhead records); gpuscope_nomem / gpuscope_noovh: without
# the device-memory kind / without the overhead kind;
# gpuscope_gpu: gpuscope recording GPU activity only (--cuda-api=none); gpuscope_cb: gpuscope
# timing its API calls by callbacks (GPUSCOPE_CUDA_API_TIMING=callback; the default until
# 2026-12-05 session 7, which times them by CUPTI's API activity records, call by call);
# gpuscope_nosample: gpuscope without CPU sampling (--sample none; sampling is on by default);
# gpuscope_noperf: sampling with CPython's perf trampolines off (PYTHONPERFSUPPORT=0: native
# frames only); gpuscope_nowarm: sampling without the thread that maps the unwind tables ahead of
# the walks (GPUSCOPE_UNWIND_WARM=0); gpuscope_libunwind: every stack walked by libunwind
# (GPUSCOPE_UNWINDER=libunwind); gpuscope_100hz: sampling at --sampling-frequency 100;
# gpuscope_nobt: without the CUDA API calls' stacks (--cudabacktrace=none; sync:80us by default);
# gpuscope_osrt: with -t cuda,nvtx,osrt; gpuscope_metrics: with --gpu-metrics; gpuscope_pytorch:
# with --pytorch nvtx (its hooks run in every step, its ranges are recorded in the range);
# gpuscope_files: the rings in their files in the session directory, as before 2026-12-05
# (GPUSCOPE_RING_MEMORY=0; page faults and writeback of the directory's file system);
# gpuscope_noahead: no chunks of the CUPTI ring mapped ahead of their use (GPUSCOPE_RING_AHEAD=0,
# as before 2026-12-06 session 17: each chunk's pages fault in on the thread that first writes it). CPU sampling, OS
# runtime wrappers and NVML polling run for the whole process, not only inside the capture
# range: their cost is in the "off" blocks too, so a second table compares each variant's "off"
# step time with that of the processes run with no profiler
VARIANTS=${VARIANTS:-none floor gpuscope torch}
# one process of variant $v: under the floor's library, or under `gpuscope profile` with the
# capture range and the options given (environment assignments before the call reach it too)
floor_run() { CUDA_INJECTION64_PATH=$T/libfloor.so $TO $PIN python3 bench/gpu_overhead.py $v $WL 2>>"$T/floor.err" >>"$T/$v"; }
gs_run() { $TO $PIN "$GS" profile -f -o "$T/run" --capture-range=cudaProfilerApi "$@" python3 bench/gpu_overhead.py $v $WL 2>>"$T/gs.err" >>"$T/$v"; }
for _ in $(seq "$REPS"); do
	for v in $VARIANTS; do
		case $v in
		none|torch) $TO $PIN python3 bench/gpu_overhead.py $v $WL 2>>"$T/$v.err" >>"$T/$v" ;;
		floor) floor_run ;;
		floor_act) FLOOR_API=activity floor_run ;;
		floor_acte) FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx floor_run ;;
		floor_actw) FLOOR_API=activity_whole floor_run ;;
		floor_cb) FLOOR_API=callback floor_run ;;
		floor_cbrt) FLOOR_API=callback_runtime floor_run ;;
		floor_gs) FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx FLOOR_WAITS=1 floor_run ;;
		floor_zero) FLOOR_ATTR=zeroed floor_run ;;
		floor_pin) FLOOR_ATTR=pinned floor_run ;;
		floor_glob) FLOOR_ATTR=global floor_run ;;
		floor_big) FLOOR_ATTR=devbuf=33554432,prealloc=4 floor_run ;;
		floor_ts) FLOOR_TS=1 floor_run ;;
		floor_gs_ts) FLOOR_TS=1 FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx FLOOR_WAITS=1 floor_run ;;
		gpuscope) gs_run ;;
		gpuscope_cb) GPUSCOPE_CUDA_API_TIMING=callback gs_run ;;
		gpuscope_nosample) gs_run --sample none ;;
		gpuscope_noperf) PYTHONPERFSUPPORT=0 gs_run ;;
		gpuscope_perf) gs_run --sampling-clock perf ;;
		gpuscope_nowarm) GPUSCOPE_UNWIND_WARM=0 gs_run ;;
		gpuscope_libunwind) GPUSCOPE_UNWINDER=libunwind gs_run ;;
		gpuscope_100hz) gs_run --sampling-frequency 100 ;;
		gpuscope_nobt) gs_run --cudabacktrace=none ;;
		gpuscope_osrt) gs_run -t cuda,nvtx,osrt ;;
		gpuscope_metrics) gs_run --gpu-metrics ;;
		gpuscope_pytorch) gs_run --pytorch nvtx ;;
		gpuscope_gpu) gs_run --cuda-api=none ;;
		gpuscope_kinds) GPUSCOPE_CUPTI_KINDS=none gs_run ;;
		gpuscope_nomem) GPUSCOPE_CUPTI_KINDS=sync,overhead gs_run ;;
		gpuscope_noovh) GPUSCOPE_CUPTI_KINDS=sync,memory gs_run ;;
		gpuscope_files) GPUSCOPE_RING_MEMORY=0 gs_run ;;
		gpuscope_noahead) GPUSCOPE_RING_AHEAD=0 gs_run ;;
		gpuscope_nots) GPUSCOPE_CUPTI_STANDING=device,context,stream,graph,flush gs_run ;;
		gpuscope_base) GS=$PWD/${BASE:?BASE: the baseline build folder}/bin/gpuscope gs_run ;;
		esac
	done
done
echo "floor records per process: $(grep -o 'cupti_floor: .*' "$T/floor.err" | head -6 | xargs)"
grep -i "gpuscope: wrote" "$T/gs.err" | tail -1
# a variant whose processes printed fewer lines than workloads: what they said on stderr
for v in $VARIANTS; do
	n=$(grep -c '^{' "$T/$v" 2>/dev/null)
	[ "${n:-0}" -lt $((REPS * $(echo $WL | wc -w))) ] && { echo "$v: ${n:-0} results"; tail -5 "$T/$v.err" "$T/gs.err" "$T/floor.err" 2>/dev/null | grep -v '^$' | tail -8; }
done
python3 - "$T" $WL <<'PY' | tee "$T/table.md"
import json, os, statistics, sys
d, ws = sys.argv[1], sys.argv[2:]
add, off = {}, {}
offv = {}
for var in ("none", "floor", "floor_act", "floor_acte", "floor_actw", "floor_cb", "floor_cbrt", "floor_gs", "floor_zero", "floor_pin", "floor_glob", "floor_big", "floor_ts", "floor_gs_ts", "gpuscope", "gpuscope_cb", "gpuscope_nosample", "gpuscope_noperf", "gpuscope_perf", "gpuscope_nowarm", "gpuscope_libunwind", "gpuscope_100hz", "gpuscope_nobt", "gpuscope_osrt", "gpuscope_metrics", "gpuscope_pytorch", "gpuscope_gpu", "gpuscope_kinds", "gpuscope_nomem", "gpuscope_noovh", "gpuscope_files", "gpuscope_nots", "gpuscope_base", "gpuscope_noahead", "torch"):
    if not os.path.exists("%s/%s" % (d, var)):
        continue
    for l in open("%s/%s" % (d, var)):
        if l.startswith("{"):
            r = json.loads(l)
            add.setdefault((r["workload"], var), []).append(r["on_ms"] / r["off_ms"] - 1)
            off.setdefault(r["workload"], []).append(r["off_ms"])
            offv.setdefault((r["workload"], var), []).append(r["off_ms"])
print("| workload | step, recording off (median, min..max over all processes) | control: none (on vs off) | floor: CUPTI kernels+copies adds | gpuscope (default) adds | torch.profiler adds | gpuscope / floor (added) | gpuscope / torch.profiler (added) |")
print("|---|---|---|---|---|---|---|---|")
for w in ws:
    v = {}
    for var in ("none", "floor", "gpuscope", "torch"):
        xs = add.get((w, var), [])
        v[var] = (statistics.median(xs), min(xs), max(xs)) if xs else (float("nan"),) * 3
    o = off.get(w, [float("nan")])
    # a variant this run did not have is "n/a", not a number
    cell = lambda t: "n/a" if t[0] != t[0] else "%+.1f%% (%+.1f..%+.1f)" % tuple(100 * x for x in t)
    ratio = lambda a, b: "%.2f" % (a / b) if b > 0 and a == a else "n/a"
    print("| %s | %.3f ms (%.3f..%.3f) | %s | %s | %s | %s | %s | %s |" % (
        w, statistics.median(o), min(o), max(o), cell(v["none"]), cell(v["floor"]),
        cell(v["gpuscope"]), cell(v["torch"]), ratio(v["gpuscope"][0], v["floor"][0]),
        ratio(v["gpuscope"][0], v["torch"][0])))
if any(k[1] == "floor_gs" for k in add):
    # what gpuscope's default asks of CUPTI at the least (floor_gs), and gpuscope against it
    print()
    print("| workload | floor adds | floor_gs (the floor + API activity records + the waits' callbacks) adds | gpuscope adds | gpuscope / floor_gs (added) |")
    print("|---|---|---|---|---|")
    for w in ws:
        fl, fg, g = (add.get((w, var), []) for var in ("floor", "floor_gs", "gpuscope"))
        med = lambda xs: statistics.median(xs) if xs else float("nan")
        cell = lambda xs: "%+.1f%% (%+.1f..%+.1f)" % (100 * med(xs), 100 * min(xs), 100 * max(xs)) if xs else "n/a"
        print("| %s | %s | %s | %s | %s |" % (w, cell(fl), cell(fg), cell(g),
              "%.2f" % (med(g) / med(fg)) if fg and g and med(fg) > 0 else "n/a"))
if any(k[1] in ("floor_act", "floor_acte", "floor_actw", "floor_cb", "gpuscope_cb", "gpuscope_nosample", "gpuscope_gpu") for k in add):
    print()
    print("| workload | floor adds | floor + API activity records (ids, enabled late) adds | floor + API activity records (ids, enabled from the injection) adds | floor + API activity records (kinds whole, other ids off) adds | floor + API callbacks adds | gpuscope --cuda-api=none adds | gpuscope, API timed by callbacks, adds | gpuscope --sample none adds | gpuscope adds |")
    print("|---|" + "---|" * 9)
    for w in ws:
        c = [add.get((w, var), []) for var in ("floor", "floor_act", "floor_acte", "floor_actw", "floor_cb", "gpuscope_gpu", "gpuscope_cb", "gpuscope_nosample", "gpuscope")]
        print("| %s | %s |" % (w, " | ".join("%+.1f%% (%+.1f..%+.1f)" % tuple(100 * x for x in (statistics.median(xs), min(xs), max(xs))) if xs else "n/a" for xs in c)))
def table(title, cols):  # a titled table: a workload column, then cols
    print()
    print(title)
    print()
    print("| workload | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
vs = sorted({k[1] for k in add}, key=lambda v: list(add).index(next(k for k in add if k[1] == v)))
table("Every variant of this run, added time (on vs off), median (min..max), processes:", vs)
for w in ws:
    print("| %s | %s |" % (w, " | ".join("%+.1f%% (%+.1f..%+.1f), n=%d" % (100 * statistics.median(xs), 100 * min(xs), 100 * max(xs), len(xs)) if xs else "n/a" for xs in (add.get((w, v), []) for v in vs))))
host = [v for v in ("floor", "gpuscope_gpu", "gpuscope_nosample", "gpuscope_noperf", "gpuscope_perf", "gpuscope_100hz", "gpuscope_nobt", "gpuscope", "gpuscope_osrt", "gpuscope_metrics", "gpuscope_pytorch", "torch") if any(k[1] == v for k in offv)]
if host and any(k[1] == "none" for k in offv):
    table("Step time with recording off (capture range closed: NVML polling and --pytorch's hooks still on), median over processes, against the processes with no profiler; and each variant's own added time in the range (on vs off):", ["none"] + host)
    for w in ws:
        base = statistics.median(offv.get((w, "none"), [float("nan")]))
        cells = []
        for v in host:
            xs = offv.get((w, v), [])
            ad = add.get((w, v), [])
            cells.append("%.3f ms (%+.1f%%), n=%d; on vs off %+.1f%%" % (statistics.median(xs), 100 * (statistics.median(xs) / base - 1), len(xs), 100 * statistics.median(ad)) if xs else "n/a")
        print("| %s | %.3f ms | %s |" % (w, base, " | ".join(cells)))
PY
{
	echo
	echo "## $(date -u +%Y-%m-%d): recording overhead on PyTorch steps ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
	echo
	echo "Machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1) ($(nproc) cores;"
	echo "$(python3 -c 'import torch; print("torch", torch.__version__)')). Command: \`bench/gpu_overhead.sh\`:"
	echo "$REPS processes of each variant, interleaved; each process runs the workloads ($WL):"
	echo "10 warm-up steps, then 4 pairs of blocks of 15 steps, recording off then on (switched with"
	echo "cudaProfilerStart/Stop; torch.profiler entered and left); per process, the added time is"
	echo "the median step of the on blocks over that of the off blocks; the table shows the median"
	echo "over processes (min..max). For loader the blocks are 80 steps and the figure is their mean"
	echo "step (the throughput). Floor: bench/cupti_floor.c (CUPTI kernels, copies, memsets into"
	echo "heap buffers, dropped). gpuscope: defaults (cuda,nvtx; diagnosis set of API calls;"
	echo "graph-level) with --capture-range=cudaProfilerApi.${PIN:+ Every process run under \`$PIN\`.}"
	echo
	cat "$T/table.md"
} >>bench/RESULTS.md
# the per-process results in one file per run (the device brings back only a few files a
# call): overhead-HHMMSS.tar.gz, which bench/pool_overhead.py reads as it is
if [ -n "${OUT:-}" ]; then
	cp bench/RESULTS.md "$OUT/RESULTS.md"
	(cd "$T" && tar -czf "$OUT/overhead-$(date -u +%H%M%S).tar.gz" $VARIANTS $(ls ./*.err 2>/dev/null))
fi
exit 0
