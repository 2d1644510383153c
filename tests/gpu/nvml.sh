#!/usr/bin/env bash
# tests/gpu/nvml.sh: GPU counters (`profile --gpu-metrics`) on a real GPU. Profiles
# tests/gpu/nvml_load.py (2 s idle, then ~4 s of fp32 matmuls) at 50 Hz and checks: device 0's
# counters are there; the sample count is within 20% of 50/s x the session; gpu_util's mean is
# above 50% while the matmuls ran and below 20% in the idle second before them; memory used is
# within 5% of what nvidia-smi reported during the run (and at least the tensors' size); power
# is between 50 and 1000 W; the clocks are above 0. Then measures the cost: the workload's step
# time with and without --gpu-metrics (3 processes each, alternating), a short table. Copies
# the trace to $OUT/nvml.gst when OUT is set (a CI fixture). Needs the tree built and carried.
#   usage: tests/gpu/nvml.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
echo "== nvml: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

$GS profile -o "$T/nvml" --gpu-metrics --gpu-metrics-frequency 50 -t cuda,nvtx --sample none \
	python3 tests/gpu/nvml_load.py 4 >"$T/load.json" 2>"$T/nvml.err"
eq "nvml: workload ran (exit 0)" 0 $?
tail -3 "$T/nvml.err"
hasnt "nvml: NVML found" "NVML not found" "$(cat "$T/nvml.err")"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$T/nvml.gst" "$OUT/nvml.gst"
$GS info "$T/nvml.gst" | grep -E 'duration|gpu counter' 
$GS stats -r gpu_metrics_sum "$T/nvml.gst"
$GS stats -r gpu_metrics_sum --format csv -o "$T/all.csv" "$T/nvml.gst"
for k in gpu_util mem_util mem_used sm_clock mem_clock power temperature; do
	has "nvml: device 0 has $k" "0,$k," "$(cat "$T/all.csv")"
done

# times of the workload's windows, relative to the session start (ms, for --time)
start=$($GS dump --format jsonl "$T/nvml.gst" | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if d.get("chunk") == "session":
        print(d["k5"]); break')
w() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); s = int(sys.argv[2])
a, b = d[sys.argv[3]], d[sys.argv[4]]
lo = (a - s) / 1e6 + float(sys.argv[5]); hi = (b - s) / 1e6
print("%dms:%dms" % (lo, hi))' "$T/load.json" "$start" "$@"; }
idle=$(w idle0 idle1 1000)  # the last second of the 2 s idle (NVML's utilization looks back up to 1 s)
busy=$(w run0 run1 500)     # the matmuls, after their first half second
echo "windows: idle $idle, busy $busy"
field() { # csv metric column
	python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["Device"] == "0" and r["Metric"] == sys.argv[2]:
        print(r[sys.argv[3]]); break' "$@"; }
$GS stats -r gpu_metrics_sum --format csv --time "$idle" -o "$T/idle.csv" "$T/nvml.gst"
$GS stats -r gpu_metrics_sum --format csv --time "$busy" -o "$T/busy.csv" "$T/nvml.gst"
between "nvml: gpu_util mean > 50% while the matmuls ran" 50 100 "$(field "$T/busy.csv" gpu_util Avg)"
between "nvml: gpu_util mean < 20% in the idle second before" 0 20 "$(field "$T/idle.csv" gpu_util Avg)"

# sample count: 50 per second of the session, within 20%
# the session's span (SESSION key 5 to END key 2, CLOCK_MONOTONIC ns), in ms
dur=$($GS dump --format jsonl "$T/nvml.gst" | python3 -c '
import json, sys
s = e = None
for l in sys.stdin:
    d = json.loads(l)
    if d.get("chunk") == "session": s = d["k5"]
    if d.get("chunk") == "end": e = d["k2"]
print("%.1f" % ((e - s) / 1e6))')
n=$(field "$T/all.csv" gpu_util Samples)
want=$(awk -v d="$dur" 'BEGIN { printf "%d", d / 1000 * 50 }')
echo "gpu_util samples: $n over $dur ms (50 Hz: $want)"
between "nvml: samples within 20% of 50/s x the session" "$(awk -v w="$want" 'BEGIN { print int(w * 0.8) }')" \
	"$(awk -v w="$want" 'BEGIN { print int(w * 1.2) + 1 }')" "$n"

# memory: NVML's used vs nvidia-smi's during the run; at least the tensors
smi=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["smi_mib"] * 1048576))' "$T/load.json")
tb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tensor_bytes"])' "$T/load.json")
mem=$(field "$T/busy.csv" mem_used Max)
echo "memory used: NVML max ${mem} B, nvidia-smi ${smi} B, tensors ${tb} B"
between "nvml: memory used within 5% of nvidia-smi's" "$(awk -v s="$smi" 'BEGIN { printf "%d", s * 0.95 }')" \
	"$(awk -v s="$smi" 'BEGIN { printf "%d", s * 1.05 }')" "$mem"
between "nvml: memory used at least the tensors" "$tb" 1e15 "$mem"
between "nvml: power while busy 50..1000 W" 50000 1000000 "$(field "$T/busy.csv" power Avg)"
between "nvml: SM clock > 0" 1 100000 "$(field "$T/all.csv" sm_clock Max)"
between "nvml: memory clock > 0" 1 100000 "$(field "$T/all.csv" mem_clock Max)"
has "nvml: the overview's counter line" "GPU counters: GPU 0 gpu_util avg" "$($GS stats "$T/nvml.gst")"
$GS export -t perfetto -o "$T/nvml.pftrace" "$T/nvml.gst"; eq "nvml: perfetto export" 0 $?
$GS export -t sqlite -o "$T/nvml.sqlite" "$T/nvml.gst"; eq "nvml: sqlite export" 0 $?
eq "nvml: sqlite GPU_METRICS holds every sample" "$(awk -F, 'NR > 1 {s += $3} END {print s}' "$T/all.csv")" \
	"$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM GPU_METRICS").fetchone()[0])' "$T/nvml.sqlite")"

# cost: median step time (10 matmuls) with and without --gpu-metrics, 3 processes each, alternating
echo "overhead (median ms per step of 10 matmuls; gpuscope -t cuda,nvtx --sample none):"
printf '%-4s %-22s %10s\n' run mode "step ms"
for i in 1 2 3; do
	for mode in off on; do
		opt=; [ $mode = on ] && opt="--gpu-metrics --gpu-metrics-frequency 50"
		# shellcheck disable=SC2086
		$GS profile -f -o "$T/ovh" $opt -t cuda,nvtx --sample none python3 tests/gpu/nvml_load.py 3 >"$T/ovh_$mode$i.json" 2>/dev/null
		m=$(python3 -c 'import json,statistics,sys; print("%.3f" % statistics.median(json.load(open(sys.argv[1]))["steps_ms"][2:]))' "$T/ovh_$mode$i.json")
		printf '%-4s %-22s %10s\n' "$i" "$([ $mode = on ] && echo 'with --gpu-metrics' || echo 'without')" "$m"
		echo "$mode $m" >>"$T/ovh.txt"
	done
done
r=$(python3 -c '
import statistics, sys
v = {"on": [], "off": []}
for l in open(sys.argv[1]):
    k, x = l.split()
    v[k].append(float(x))
off, on = statistics.median(v["off"]), statistics.median(v["on"])
print("median of 3: without %.3f ms, with %.3f ms, ratio %.4f" % (off, on, on / off), file=sys.stderr)
print("%.4f" % (on / off))' "$T/ovh.txt")
between "nvml: step time with --gpu-metrics within 5% of without" 0 1.05 "$r"
rm -rf "$T"
echo
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
