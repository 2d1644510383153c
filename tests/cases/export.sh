# export.sh: `gpuscope export`: chrome read back by gpuscope's own Kineto importer gives the same
# summaries as the trace it came from (native and imported traces), is valid JSON with Kineto's
# layout, and loads in HTA; csv and json tables have a row per record with exact values; the
# command refuses to overwrite, removes what a failed export wrote, and fails on bad input.
echo "export:"
E=$T/export # a folder of its own: other cases write into $T too
mkdir -p "$E"
K=$ROOT/tests/data/kineto
D=$ROOT/tests/data
R=cuda_gpu_kern_sum,cuda_gpu_graph_sum,cuda_api_sum,nvtx_sum,cuda_gpu_mem_size_sum

# Round trip: the reports of the export equal those of the trace (exact, every row). What the
# Kineto layout cannot say is not in these traces' reports: NVTX domains other than the
# default, start/end ranges and memory kinds ([memory] events know only CPU or CUDA) are lost
# (docs/gpuscope-export.md); tests/data/features.gst below shows the domain case.
for f in "$K/hand.json" "$K"/*.pt.trace.json.gz "$D"/cuda/*.gst "$D/cuda_resnet50.gst"; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	$GS export --type chrome -o "$E/$b.chrome.json" "$f" 2>"$E/export.err"
	eq "export $b: exit 0" 0 $?
	before=$($GS stats -r $R --format csv "$f" 2>/dev/null)
	after=$($GS stats -r $R --format csv "$E/$b.chrome.json" 2>/dev/null)
	if [ -n "$before" ] && [ "$before" = "$after" ]; then ok "export $b: chrome read back, same $R"
	else bad "export $b: chrome read back, same $R" "$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | head -6)"; fi
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["traceEvents"] and d["schemaVersion"] == 1' "$E/$b.chrome.json"
	eq "export $b: chrome is JSON (python's json module)" 0 $?
done
# resnet50: also the step breakdown (it reads synchronizations: Context Sync has stream -1)
eq "export resnet50: step_sum read back the same" "$($GS stats -r step_sum --format csv "$D/cuda_resnet50.gst" 2>&1)" \
	"$($GS stats -r step_sum --format csv "$E/cuda_resnet50.gst.chrome.json" 2>&1)"
has "export resnet50: no event skipped on reading back" "cuda synchronizations     322" "$($GS info "$E/cuda_resnet50.gst.chrome.json")"
hasnt "export resnet50: no warning reading back" "skipped" "$($GS info "$E/cuda_resnet50.gst.chrome.json")"

# An intended difference: an NVTX domain has no place in Kineto's layout (it goes to args)
$GS export -t chrome -o "$E/features.json" "$D/features.gst"
has "export features: a domain's range reads back in the default domain" ",PushPop,:registered_name" \
	"$($GS stats -r nvtx_sum --format csv "$E/features.json")"
has "export features: the domain is kept in args" '"domain":"mydomain"' "$(cat "$E/features.json")"

# distributedInfo: a rank's trace keeps its rank, world size and backend through the export,
# and reads back as the same rank; a trace with no rank gets none
python3 - "$K/hand.json" "$E/rank3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["distributedInfo"] = {"backend": "nccl", "rank": 3, "world_size": 8}
json.dump(d, open(sys.argv[2], "w"))
PY
$GS export -t chrome -o "$E/rank3.chrome.json" "$E/rank3.json"
eq "export rank3: distributedInfo written as Kineto does" '{"backend": "nccl", "rank": 3, "world_size": 8}' \
	"$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["distributedInfo"]))' "$E/rank3.chrome.json")"
has "export rank3: read back, the same rank" "rank 3 of 8, nccl" "$($GS info "$E/rank3.chrome.json")"
hasnt "export hand: no rank, no distributedInfo" "distributedInfo" "$(cat "$E/hand.json.chrome.json")"

# Kineto's layout, value by value, on the hand-sized trace (times worked out by hand: the
# window starts at 900 us after the base; the kernel runs 1030..1070 us)
python3 - "$E/hand.json.chrome.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
def one(**kv):
    m = [e for e in ev if all(e.get(k) == v for k, v in kv.items())]
    assert len(m) == 1, (kv, len(m))
    return m[0]
assert d["baseTimeNanoseconds"] == 1700000000000000000, d["baseTimeNanoseconds"]
assert d["displayTimeUnit"] == "ms" and d["traceName"] == "hand.json.chrome.json"
assert d["deviceProperties"][0]["name"] == "NVIDIA H200" and d["deviceProperties"][0]["numSms"] == 132
k = one(cat="kernel")
assert (k["pid"], k["tid"], k["ts"], k["dur"]) == (0, 7, 1030.0, 40.0), k
a = k["args"]
assert (a["correlation"], a["stream"], a["grid"], a["block"], a["registers per thread"]) == (10, 7, [4, 106, 1], [128, 1, 1], 30), a
launch = one(cat="cuda_runtime", name="cudaLaunchKernel")
assert launch["args"]["correlation"] == 10 and launch["args"]["cbid"] == 211
op = one(cat="cpu_op", name="aten::addmm")
assert launch["args"]["External id"] == op["args"]["External id"] == a["External id"]
assert one(cat="user_annotation", name="ProfilerStep#1")["dur"] == 100.0
c = one(cat="gpu_memcpy")
assert c["name"] == "Memcpy HtoD (Pageable -> Device)" and c["args"]["bytes"] == 4096, c
assert abs(c["args"]["memory bandwidth (GB/s)"] - 2.048) < 1e-12
s = one(ph="s", id=10); f = one(ph="f", id=10)
assert (s["cat"], s["pid"], s["ts"], f["bp"], f["pid"], f["tid"], f["ts"]) == ("ac2g", 100, 1015.0, "e", 0, 7, 1030.0)
mem = one(name="[memory]")
assert mem["args"]["Bytes"] == 5242880 and mem["args"]["Device Type"] == 1
assert one(ph="M", name="process_labels", pid=0)["args"]["labels"] == "GPU 0"
assert one(ph="M", name="process_labels", pid=100)["args"]["labels"] == "CPU"
assert one(ph="M", name="thread_name", pid=0, tid=7)["args"]["name"] == "stream 7"
PY
eq "export hand: Kineto's layout, values as worked out by hand" 0 $?
# ts and dur: three decimals, as Kineto prints them
has "export hand: ts and dur with three decimals" '"ts":1010.000,"dur":20.500' "$(cat "$E/hand.json.chrome.json")"

# Filters: --time keeps what starts in the window (the kernel at 130 us into the 900 us window)
$GS export -t chrome -o "$E/hand-win.json" --time 120us:140us "$K/hand.json"
out=$(python3 -c 'import json, sys; print(sorted({e.get("cat") for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"}))' "$E/hand-win.json")
eq "export --time: the kernel only (and the window)" "['Trace', 'kernel']" "$out"
$GS export -t csv -o "$E/hand-dev" --device 0 "$K/hand.json"
eq "export --device 0: its kernels" "$($GS export -t csv -o "$E/hand-all" "$K/hand.json" && wc -l <"$E/hand-all/kernels.csv")" "$(wc -l <"$E/hand-dev/kernels.csv")"
eq "export --device 0: no CPU rows" 1 "$(wc -l <"$E/hand-dev/ranges.csv")"
$GS export -t csv -o "$E/hand-dev1" --device 1 "$K/hand.json" 2>/dev/null; eq "export --device 1 (not in the trace): exit 1" 1 $?
eq "export --device 1: nothing written" no "$([ -e "$E/hand-dev1" ] && echo yes || echo no)"

# csv and json tables: a row per record (gpuscope info's counts) and exact values
for f in "$D/cuda/copies.gst" "$D/cuda/streams.gst" "$D/cuda/graph.gst" "$K/hand.json"; do
	b=$(basename "$f")
	$GS export -t csv -o "$E/$b-csv" "$f"
	eq "export $b: csv exit 0" 0 $?
	$GS export -t json -o "$E/$b-json" "$f"
	eq "export $b: json exit 0" 0 $?
	out=$(python3 - "$E/$b-csv" "$E/$b-json" "$($GS info "$f")" <<'PY'
import csv, json, re, sys
c, j, info = sys.argv[1], sys.argv[2], sys.argv[3]
def count(label):
    return int(re.search(r"^  %s +(\d+)" % re.escape(label), info, re.M).group(1))
want = {"kernels": count("cuda kernels"), "copies": count("cuda memcpy"), "memsets": count("cuda memset"),
        "graph_launches": count("cuda graph launches"),
        "api_calls": count("cuda api calls"), "syncs": count("cuda synchronizations"),
        "memory_ops": count("device memory operations"), "marks": count("nvtx marks"),
        "ranges": count("nvtx ranges (push/pop)") + count("nvtx ranges (start/end)") + count("nvtx ranges never ended")}
bad = []
for t, n in want.items():
    rows = list(csv.DictReader(open("%s/%s.csv" % (c, t), newline="")))
    objs = json.load(open("%s/%s.json" % (j, t)))
    if len(rows) != n or len(objs) != n:
        bad.append("%s: csv %d json %d info %d" % (t, len(rows), len(objs), n))
    for r, o in zip(rows, objs):
        if list(r) != list(o) or any(r[k] != ("" if o[k] is None else str(o[k])) for k in r):
            bad.append("%s: csv and json disagree" % t); break
print("; ".join(bad) or "same")
PY
)
	eq "export $b: csv and json rows = info's counts, csv = json" same "$out"
done
# exact values: copies.gst's first copy is 1,000,000 bytes HtoD Pageable -> Device in 25,504 ns,
# launched by api_calls row 5 (cudaMemcpy); hand.json's kernel runs 40 us, 130 us into the window
out=$(python3 - "$E/copies.gst-csv" "$E/hand.json-json" <<'PY'
import csv, json, sys
c = list(csv.DictReader(open(sys.argv[1] + "/copies.csv", newline="")))[0]
a = {r["index"]: r for r in csv.DictReader(open(sys.argv[1] + "/api_calls.csv", newline=""))}
k = json.load(open(sys.argv[2] + "/kernels.json"))[0]
print(c["bytes"], c["kind"], c["src_kind"], c["dst_kind"], c["duration_ns"], a[c["api"]]["name"],
      k["name"], k["duration_ns"], k["start_ns"], k["start_abs_ns"], k["grid_y"])
PY
)
eq "export: exact table values" "1000000 HtoD Pageable Device 21663 cudaMemcpy void gemm<float>(float*) 40000 130000 1700000000001030000 106" "$out"

# Refusing to overwrite, -f, default names, failure cleanup, bad input
cp "$K/hand.json" "$E/dflt.json"
$GS export -t chrome "$E/dflt.json"
eq "export: default name beside the input, not the input" 1 "$([ -f "$E/dflt.gpuscope.json" ] && echo 1)"
cp "$D/cuda/spin.gst" "$E/sp.gst"
$GS export -t chrome "$E/sp.gst" && $GS export -t csv "$E/sp.gst"
eq "export: default names trace.json and trace-csv/" "11" "$([ -f "$E/sp.json" ] && echo 1)$([ -f "$E/sp-csv/kernels.csv" ] && echo 1)"
before=$(cksum <"$E/sp.json")
err=$($GS export -t chrome "$E/sp.gst" 2>&1)
eq "export: an existing output: exit 1" 1 $?
has "export: says why and what to do" "'$E/sp.json' exists; use -f to overwrite it" "$err"
eq "export: the existing output is untouched" "$before" "$(cksum <"$E/sp.json")"
printf 'x' >"$E/sp.json"
$GS export -t chrome -f "$E/sp.gst"
eq "export -f: overwrites" 0 $?
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$E/sp.json"
eq "export -f: the new output is complete" 0 $?
# -o -: standard output, the bytes of the file export (the default output's name inside: the
# Chrome export's traceName); a folder type cannot; a reader that stops early (| head) leaves
# no temporary file behind
mkdir -p "$E/tmp" "$E/cmp"
cp "$E/sp.gst" "$E/cmp/sp.gst"
for t in chrome perfetto sqlite; do
	rm -f "$E"/cmp/sp.[jps]*
	$GS export -t $t "$E/cmp/sp.gst" # its default name
	TMPDIR="$E/tmp" $GS export -t $t -o - "$E/sp.gst" >"$E/so_stdout.$t"
	eq "export -o - ($t): exit 0, the file export's bytes" "0 same" \
		"$? $(cmp -s "$(ls "$E"/cmp/sp.[jps]*)" "$E/so_stdout.$t" && echo same || echo differ)"
done
err=$($GS export -t csv -o - "$E/sp.gst" 2>&1)
eq "export -o - (csv): exit 1" 1 $?
has "export -o - (csv): a folder type cannot" "is a folder: it cannot go to standard output" "$err"
TMPDIR="$E/tmp" $GS export -t chrome -o - "$D/kmetrics/convt_big.gst" | head -c 10 >/dev/null
rc=${PIPESTATUS[0]}
eq "export -o - | head: not killed by SIGPIPE (exit 0 or 1), nothing left in TMPDIR" "ok 0" \
	"$([ "$rc" = 0 ] || [ "$rc" = 1 ] && echo ok || echo "exit $rc") $(ls -A "$E/tmp" | wc -l)"
err=$($GS export -t csv "$E/sp.gst" 2>&1)
eq "export: an existing folder: exit 1" 1 $?
$GS export -t csv -f "$E/sp.gst"
eq "export -f: a folder too" 0 $?
err=$($GS export -t chrome -o "$E/sp-csv" -f "$E/sp.gst" 2>&1)
eq "export: a folder where a file goes: exit 1" 1 $?
err=$($GS export -t chrome -o "$E/nodir/x.json" "$E/sp.gst" 2>&1)
eq "export: cannot create: exit 1" 1 $?
has "export: cannot create: names the file" "cannot create '$E/nodir/x.json'" "$err"
if [ -c /dev/full ]; then # a device whose writes fail (ENOSPC), where there is one
	err=$($GS export -t chrome -f -o /dev/full "$E/sp.gst" 2>&1)
	eq "export: a failed write: exit 1" 1 $?
	has "export: a failed write: says so" "cannot write '/dev/full'" "$err"
fi
mkdir -p "$E/ro" && chmod 555 "$E/ro"
if ! touch "$E/ro/probe" 2>/dev/null; then
	err=$($GS export -t json -o "$E/ro/tables" "$E/sp.gst" 2>&1)
	eq "export: an uncreatable folder: exit 1" 1 $?
	eq "export: nothing left behind" "" "$(ls "$E/ro")"
fi
chmod 755 "$E/ro"
err=$($GS export -t chrome -o "$E/none.json" "$E/missing.gst" 2>&1)
eq "export: a missing input: exit 1" 1 $?
printf 'not a trace' >"$E/junk.gst"
err=$($GS export -t chrome -o "$E/junk.json" "$E/junk.gst" 2>&1)
eq "export: a bad input: exit 1" 1 $?
eq "export: a bad input: no output" "" "$(ls "$E/junk.json" 2>/dev/null)"
err=$($GS export -t chrome -f -o "$E/sp.gst" "$E/sp.gst" 2>&1)
eq "export: onto the trace itself, even with -f: exit 1" 1 $?
has "export: onto the trace itself: says so" "is the trace itself" "$err"
eq "export: the trace is untouched" "$(cksum <"$D/cuda/spin.gst")" "$(cksum <"$E/sp.gst")"
err=$($GS export -t nosuch "$E/sp.gst" 2>&1)
eq "export: unknown type: exit 2" 2 $?
has "export: unknown type: lists the known" "known: perfetto, chrome, csv, json, sqlite" "$err"

# HTA (Holistic Trace Analysis) loads the export: a folder of rank traces with distributedInfo
HTA_PY=python3
if ! python3 -c 'import hta' 2>/dev/null; then
	HTA_PY=
	V=$ROOT/build/hta-venv # one for every build
	if [ -x "$V/bin/python" ] && "$V/bin/python" -c 'import hta' 2>/dev/null; then
		HTA_PY=$V/bin/python
	elif [ "${GS_TEST_NO_HTA:-}" = "" ]; then
		rm -rf "$V"
		if timeout 300 sh -c "python3 -m venv '$V' && '$V/bin/pip' install --quiet holistictraceanalysis" >"$E/hta-install.log" 2>&1 &&
			"$V/bin/python" -c 'import hta' 2>/dev/null; then
			HTA_PY=$V/bin/python
		fi
	fi
fi
if [ -z "$HTA_PY" ]; then
	echo "  skipped: could not install HTA (holistictraceanalysis)"
else
	mkdir -p "$E/hta"
	python3 - "$E/train.pt.trace.json.gz.chrome.json" "$E/hta/rank0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["distributedInfo"] = {"rank": 0, "world_size": 1}
json.dump(d, open(sys.argv[2], "w"))
PY
	out=$("$HTA_PY" - "$E/hta" 2>&1 <<'PY'
import sys, logging
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
b = a.get_temporal_breakdown(visualize=False)
row = b.iloc[0]
assert row["kernel_time(us)"] > 0, b
print("ok", int(row["kernel_time(us)"]), int(row["idle_time(us)"]))
PY
)
	has "export train: HTA's get_temporal_breakdown reads the chrome export ($(printf '%s' "$out" | tail -1))" "ok " "$(printf '%s' "$out" | tail -1)"
	# HTA's idle time breakdown of a native trace's chrome export (at ns resolution:
	# HTA_DISABLE_NS_ROUNDING=1; by default it moves each start up and each end down to whole
	# microseconds) is what analyze's evidence says it is (hta_host_wait_ms, hta_kernel_wait_ms,
	# hta_other_wait_ms), to 0.02 us
	for t in item_sync cuda_resnet50; do
		mkdir -p "$E/hta_$t"
		$GS export -t chrome -o "$E/hta_$t/$t.json" "$D/$t.gst"
		ours=$($GS analyze --format json "$D/$t.gst" | python3 -c "import json,sys
e=[f['evidence'] for f in json.load(sys.stdin)['findings'] if 'hta_host_wait_ms' in f['evidence']][0]
print(' '.join('%.2f' % (e['hta_%s_wait_ms' % k] * 1000) for k in ('host', 'kernel', 'other')))")
		out=$(HTA_DISABLE_NS_ROUNDING=1 "$HTA_PY" - "$E/hta_$t" "$E/hta_$t/$t.json" 2>&1 <<'PY'
import json, logging, sys
logging.disable(logging.WARNING)
d = json.load(open(sys.argv[2]))
d["distributedInfo"] = {"rank": 0, "world_size": 1}
json.dump(d, open(sys.argv[2], "w"))
from hta.trace_analysis import TraceAnalysis
b = TraceAnalysis(trace_dir=sys.argv[1]).get_idle_time_breakdown(visualize=False)[0]
s = b.groupby("idle_category")["idle_time"].sum().to_dict()
print(" ".join("%.2f" % s.get(k + "_wait" if k != "other" else k, 0.0) for k in ("host", "kernel", "other")))
PY
)
		eq "export $t: HTA's idle time breakdown (host, kernel, other wait, us: $ours) is analyze's" ok \
			"$(python3 -c "import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
print('ok' if len(a) == len(b) == 3 and all(abs(float(x) - float(y)) <= 0.02 for x, y in zip(a, b)) else 'HTA: %s' % sys.argv[2])" \
				"$ours" "$(printf '%s' "$out" | tail -1)")"
	done
fi

# the default type is perfetto; sqlite through the command (their contents: export_pb.sh)
$GS export "$E/sp.gst" && $GS export -t sqlite "$E/sp.gst"
eq "export: default perfetto (sp.pftrace), and sp.sqlite" "11" "$([ -s "$E/sp.pftrace" ] && echo 1)$([ -s "$E/sp.sqlite" ] && echo 1)"
eq "export: the sqlite file's kernels" "$($GS info "$E/sp.gst" | awk '/cuda kernels/ {print $3}')" \
	"$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0])' "$E/sp.sqlite")"
