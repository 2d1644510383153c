# fixtures.sh: committed traces (tests/data) still load, with the numbers they were made with.
echo "fixtures:"
D=$ROOT/tests/data
$GS stats -r nvtx_sum --format csv -o "$T/fx_threads.csv" "$D/threads_4x20.gst" 2>/dev/null
eq "fixture threads: counts" "80 160 1" "$(csv_field "$T/fx_threads.csv" :outer Instances) $(csv_field "$T/fx_threads.csv" :inner Instances) $(csv_field "$T/fx_threads.csv" :main_range Instances)"
i=$($GS info "$D/threads_4x20.gst")
has "fixture threads: complete, format 1.1" "format 1.1" "$i"; has "fixture threads: 5 threads" "threads (5):" "$i"
$GS stats -r nvtx_sum --format csv -o "$T/fx_features.csv" "$D/features.gst" 2>/dev/null
eq "fixture features: registered string" 3 "$(csv_field "$T/fx_features.csv" mydomain:registered_name Instances)"
has "fixture features: marks" "nvtx marks                9" "$($GS info "$D/features.gst")"
$GS stats -r nvtx_sum --format csv -o "$T/fx_startend.csv" "$D/startend.gst" 2>/dev/null
eq "fixture startend: cross" "5 StartEnd" "$(csv_field "$T/fx_startend.csv" :cross Instances) $(csv_field "$T/fx_startend.csv" :cross Style)"
i=$($GS info "$D/crash_segv.gst")
has "fixture crash: exit 139" "exit status: 139" "$i"; has "fixture crash: open range" "nvtx ranges never ended   1" "$i"
$GS dump --format jsonl "$D/features.gst" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'
eq "fixture features: dump jsonl parses" 0 $?

# nvtx_pushpop_trace: each push/pop range with its place in the tree, against a second
# implementation from the dump's records (tests/cases/reports_ref.py); start/end and open
# ranges left out
for f in features threads_4x20 startend crash_segv cuda_resnet50; do
	$GS dump --format jsonl "$D/$f.gst" >"$T/pp_$f.jsonl" 2>/dev/null
	$GS stats -r nvtx_pushpop_trace --format json -o "$T/pp_$f.json" "$D/$f.gst" 2>/dev/null
	eq "nvtx_pushpop_trace on $f: as the reference implementation" match \
		"$(python3 "$ROOT/tests/cases/reports_ref.py" nvtx_pushpop_trace "$T/pp_$f.jsonl" "$T/pp_$f.json" 2>&1)"
done
eq "nvtx_pushpop_trace: features' three nested ranges, DurChild and DurNonChild, stack and tree" \
	"5157531,5157682,151,70,81,:depth0,6590,6590,0,1,13,,:13,:depth0|5157592,5157662,70,30,40,:depth1,6590,6590,1,1,14,13,:13:14,--:depth1|5157622,5157652,30,0,30,:depth2,6590,6590,2,0,15,14,:13:14:15,----:depth2" \
	"$($GS stats -r nvtx_pushpop_trace --format csv "$D/features.gst" | tail -3 | paste -sd'|')"
eq "nvtx_pushpop_trace --time: the ranges that start in it, with the ids of the whole trace" ":13 :13:14 :13:14:15" \
	"$($GS stats -r nvtx_pushpop_trace --format csv --time 5.1575ms:5.16ms "$D/features.gst" | tail -n +2 | cut -d, -f13 | paste -sd' ')"
eq "nvtx_pushpop_trace: a domain's ranges read domain:name" "3 mydomain:registered_name" \
	"$($GS stats -r nvtx_pushpop_trace --format csv "$D/features.gst" | grep -c '^[0-9]*,[0-9]*,[0-9]*,0,[0-9]*,mydomain:registered_name,') mydomain:registered_name"
eq "nvtx_pushpop_trace: the crash's 30 ended ranges, not the open one" 30 \
	"$($GS stats -r nvtx_pushpop_trace --format csv "$D/crash_segv.gst" | tail -n +2 | wc -l)"
eq "nvtx_pushpop_trace: threads' 160 inner ranges each inside an outer range of its thread" "160 160" \
	"$($GS stats -r nvtx_pushpop_trace --format json "$D/threads_4x20.gst" | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"]
by = {x["RangeId"]: x for x in r}
inner = [x for x in r if x["Name"] == ":inner"]
print(len(inner), sum(by[x["ParentId"]]["Name"] == ":outer" and by[x["ParentId"]]["TID"] == x["TID"] for x in inner))')"
eq "nvtx_pushpop_trace on a PyTorch profiler trace: its 942 operator and annotation ranges, 6 levels" "942 0-5" \
	"$($GS stats -r nvtx_pushpop_trace --format json "$D/kineto/infer.pt.trace.json.gz" | python3 -c '
import json, sys
r = json.load(sys.stdin)["rows"]
print(len(r), "%d-%d" % (min(x["Lvl"] for x in r), max(x["Lvl"] for x in r)))')"

# nvtx_pushpop_sum and nvtx_startend_sum: nvtx_sum's rows of one style, without the Style
# column, Time (%) a share of that style's total
for f in "$D/features.gst" "$D/startend.gst" "$D/threads_4x20.gst" "$D/kineto/infer.pt.trace.json.gz"; do
	for r in nvtx_sum nvtx_pushpop_sum nvtx_startend_sum; do
		$GS stats -r $r --format json -o "$T/st_$r.json" "$f" 2>/dev/null
	done
	eq "nvtx_pushpop_sum, nvtx_startend_sum on $(basename "$f"): nvtx_sum's rows by style" ok "$(python3 - "$T"/st_{nvtx_sum,nvtx_pushpop_sum,nvtx_startend_sum}.json <<'PY'
import json, sys
a, pp, se = (json.load(open(p)) for p in sys.argv[1:4])
keys = ["Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)", "Range"]
bad = []
for style, t in (("PushPop", pp), ("StartEnd", se)):
    want = [[r[k] for k in keys] for r in a["rows"] if r["Style"] == style]
    have = [[r[k] for k in keys] for r in t["rows"]]
    total = sum(w[0] for w in want)
    pct = all(abs(r["Time (%)"] - 100.0 * r["Total Time (ns)"] / total) < 0.051 for r in t["rows"])
    if want != have or not pct or "Style" in t["columns"]:
        bad.append((style, len(want), len(have), pct))
print("ok" if not bad and a["rows"] else bad)
PY
)"
done
