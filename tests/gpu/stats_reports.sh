#!/usr/bin/env bash
# tests/gpu/stats_reports.sh: `gpuscope profile --stats` and the nsys-style reports
# cuda_api_trace, cuda_gpu_sum and cuda_kern_exec_trace on a real recording: tests/gpu/programs/copies.cu (its exact
# copies and memsets) and spin.cu (kernels of a known count).
#   usage: tests/gpu/stats_reports.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$PWD/$BUILD/bin/gpuscope
T=$(mktemp -d)
for n in copies spin; do
	nvcc -O2 -arch=sm_90 -Xcompiler -pthread -o "$T/$n" "tests/gpu/programs/$n.cu" -lcuda || exit 1
done

# --stats: the program's output, then the overview of the trace it wrote; its exit status
out=$("$GS" profile --stats -o "$T/copies" "$T/copies" 2>"$T/copies.err"); rc=$?
eq "--stats: copies exits 0" 0 $rc
eq "--stats: the overview follows the program's output, as 'gpuscope stats' prints it" \
	"$("$T/copies" 2>/dev/null; "$GS" stats "$T/copies.gst")" "$out"
has "--stats: the copies in the overview" "[CUDA memcpy HtoD]" "$out"

# cuda_gpu_sum: the 6 copies and 2 memsets of copies.cu, by category
"$GS" stats -r cuda_gpu_sum --format csv "$T/copies.gst" >"$T/gs.csv"
eq "cuda_gpu_sum: copies.cu's operations (count per operation)" \
	"MEMORY_OPER [CUDA memcpy DtoD] 1|MEMORY_OPER [CUDA memcpy DtoH] 2|MEMORY_OPER [CUDA memcpy HtoD] 3|MEMORY_OPER [CUDA memset] 2" \
	"$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("|".join(sorted("%s %s %s" % (r["Category"], r["Operation"], r["Instances"]) for r in rows)))' "$T/gs.csv")"

"$GS" profile -o "$T/spin" "$T/spin" 2000 5 >/dev/null 2>&1
"$GS" stats -r cuda_gpu_sum --format csv "$T/spin.gst" >"$T/sp.csv"
eq "cuda_gpu_sum: spin's 5 kernels, one row" "CUDA_KERNEL 5" \
	"$(python3 -c '
import csv, sys
print(" ".join("%s %s" % (r["Category"], r["Instances"]) for r in csv.DictReader(open(sys.argv[1])) if r["Category"] == "CUDA_KERNEL"))' "$T/sp.csv")"

# cuda_api_gpu_sum: cuda_gpu_sum's rows and the API calls' (spin: cudaLaunchKernel 5 times)
"$GS" stats -r cuda_api_gpu_sum --format csv "$T/spin.gst" >"$T/sa.csv"
eq "cuda_api_gpu_sum: spin's kernels and its 5 launch calls" "CUDA_API cudaLaunchKernel 5|CUDA_KERNEL 5" \
	"$(python3 -c '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print("|".join(sorted(["%s %s %s" % (x["Category"], x["Operation"], x["Instances"]) for x in r if x["Operation"] == "cudaLaunchKernel"] +
                      ["%s %s" % (x["Category"], x["Instances"]) for x in r if x["Category"] == "CUDA_KERNEL"])))' "$T/sa.csv")"

# cuda_api_trace: every GPU operation's CorrId is the CorrID of a recorded call, and the
# calls are in start order
for n in copies spin; do
	"$GS" stats -r cuda_api_trace --format json -o "$T/$n.api.json" "$T/$n.gst"
	"$GS" stats -r cuda_gpu_trace --format json -o "$T/$n.gpu.json" "$T/$n.gst"
	eq "cuda_api_trace on $n: every GPU operation's call, in start order" "0 ordered" "$(python3 - "$T/$n.api.json" "$T/$n.gpu.json" <<'PY'
import json, sys
api = json.load(open(sys.argv[1]))["rows"]
gpu = json.load(open(sys.argv[2]))["rows"]
calls = {r["CorrID"] for r in api}
starts = [r["Start (ns)"] for r in api]
print(sum(r["CorrId"] not in calls for r in gpu), "ordered" if starts == sorted(starts) and api else "unordered")
PY
)"
done

# cuda_kern_exec_trace: spin's 5 launches (2 ms kernels launched back to back), each joined to
# its call; all but the first wait in the queue behind the one before
"$GS" stats -r cuda_kern_exec_trace --format json -o "$T/spin.exec.json" "$T/spin.gst"
eq "cuda_kern_exec_trace on spin: 5 launches, the last 4 queued behind a 2 ms kernel, totals = kernel end - call start" \
	"5 4 1" "$(python3 - "$T/spin.exec.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["rows"]
q = sum(x["Queue Dur (ns)"] is not None and x["Queue Dur (ns)"] > 1000000 for x in r[1:])
tot = all(x["Total Dur (ns)"] == x["Kernel Start (ns)"] + x["Kernel Dur (ns)"] - x["API Start (ns)"] for x in r)
print(len(r), q, int(tot))
PY
)"
echo "stats_reports: $PASS passed, $FAIL failed"
