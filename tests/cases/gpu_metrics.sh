# gpu_metrics.sh: GPU counters (`profile --gpu-metrics`, issue 9) without a GPU. (1) On a CPU
# program where NVML is absent: one line on stderr, the program's output and exit status
# unchanged, a trace without counters. (2) Traces of counter tracks with known values, written
# by the real format writer (tests/tools/gen_counters: GPU 0 gpu_util 10, 20, 60 at 0, 1, 3 s;
# power 100, 300, 200 W; mem_used in two chunks; GPU 1 one sample), through stats (csv, json,
# --device, --time), info, dump and every export (Perfetto decoded with protoc, Chrome JSON,
# SQLite, csv/json tables); the committed fixture tests/data/counters.gst reads the same.
# (3) Damaged counter chunks: the file and byte, not a crash.
echo "gpu_metrics:"
cd "$T" || exit 1
GEN=$ROOT/$BUILD_DIR/tests/tools/gen_counters

# ---- (1) no NVML here: one line, the run goes on ----
nvml=0
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then nvml=1; fi
out=$($GS profile -o gm_cpu --gpu-metrics --sample none sh -c 'echo program-output; echo to-stderr >&2; exit 5' 2>gm_cpu.err)
eq "gm profile: the program's exit status kept" 5 $?
eq "gm profile: the program's stdout unchanged" "program-output" "$out"
has "gm profile: the program's stderr unchanged" "to-stderr" "$(cat gm_cpu.err)"
if [ $nvml = 0 ]; then
	eq "gm profile: one line says NVML is missing" 1 "$(grep -c 'gpuscope: --gpu-metrics: NVML not found (libnvidia-ml.so.1): no GPU counters' gm_cpu.err)"
	eq "gm profile: no other --gpu-metrics line" 1 "$(grep -c -- '--gpu-metrics' gm_cpu.err)"
	hasnt "gm profile: no counters in the trace" "gpu counter samples" "$($GS info gm_cpu.gst)"
	hasnt "gm profile: no counter samples in the wrote line" "GPU counter sample" "$(cat gm_cpu.err)"
	$GS profile -o gm_cpu2 --gpu-metrics-devices 0 --gpu-metrics-frequency 100 true 2>gm_cpu2.err
	eq "gm profile: --gpu-metrics-devices 0 turns it on (exit 0)" 0 $?
	has "gm profile: naming a device turns the counters on" "NVML not found" "$(cat gm_cpu2.err)"
else
	ok "gm profile: NVML present here: the missing-NVML line is checked where it is absent"
fi
$GS profile -o gm_off --sample none true 2>gm_off.err
hasnt "gm profile: off by default" "gpu-metrics" "$(cat gm_off.err)"
$GS profile -o gm_none --gpu-metrics --gpu-metrics-devices none --sample none true 2>gm_none.err
hasnt "gm profile: --gpu-metrics-devices none: nothing sampled, no note" "gpu-metrics" "$(cat gm_none.err)"
$GS profile -o gm_bad --gpu-metrics-frequency 1001 true 2>/dev/null; eq "gm profile: frequency 1001 is a usage error" 2 $?
$GS profile -o gm_bad --gpu-metrics-frequency 0 true 2>/dev/null; eq "gm profile: frequency 0 is a usage error" 2 $?
$GS profile -o gm_bad --gpu-metrics-devices 0,a true 2>/dev/null; eq "gm profile: a bad device list is a usage error" 2 $?
has "gm profile: --help lists the options" "--gpu-metrics-frequency=HZ" "$($GS profile --help)"

# ---- (2) known values through every reader ----
"$GEN" gm.gst; eq "gm gen: trace written" 0 $?
csv=$($GS stats -r gpu_metrics_sum --format csv gm.gst)
eq "gm stats csv: header" "Device,Metric,Samples,Min,Avg,Med,Max,Unit" "$(printf '%s\n' "$csv" | head -1)"
eq "gm stats csv: GPU 0 gpu_util: 3 samples, min 10, time-weighted mean 16.7, median 20, max 60" \
	"0,gpu_util,3,10.0,16.7,20.0,60.0,%" "$(printf '%s\n' "$csv" | sed -n 2p)"
eq "gm stats csv: mem_used merged from two chunks" "0,mem_used,4,1000.0,2000.0,2500.0,4000.0,B" "$(printf '%s\n' "$csv" | sed -n 3p)"
eq "gm stats csv: power in mW" "0,power,3,100000.0,233333.3,200000.0,300000.0,mW" "$(printf '%s\n' "$csv" | sed -n 4p)"
eq "gm stats csv: GPU 1, one sample" "1,gpu_util,1,50.0,50.0,50.0,50.0,%" "$(printf '%s\n' "$csv" | sed -n 5p)"
eq "gm stats csv: 4 rows" 5 "$(printf '%s\n' "$csv" | wc -l)"
$GS stats -r gpu_metrics_sum --format json -o gm.json gm.gst
# JSON keeps the table's precision (one decimal): 16.7, not the plain mean 30 nor 46.7 (each
# value held back to the previous sample)
eq "gm stats json: GPU 0 gpu_util row" "16.7 3 10 20 60 %" "$(python3 -c '
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["rows"] if x["Device"] == 0 and x["Metric"] == "gpu_util"][0]
print("%g %d %g %g %g %s" % (r["Avg"], r["Samples"], r["Min"], r["Med"], r["Max"], r["Unit"]))' gm.json 2>&1)"
eq "gm stats json: GPU 0 power mean 233333.3 mW" "233333.3" "$(python3 -c '
import json, sys
print([x for x in json.load(open(sys.argv[1]))["rows"] if x["Metric"] == "power"][0]["Avg"])' gm.json 2>&1)"
eq "gm stats --device 1: one row" "1,gpu_util,1,50.0,50.0,50.0,50.0,%" "$($GS stats -r gpu_metrics_sum --format csv --device 1 gm.gst | sed -n 2p)"
eq "gm stats --device 1: nothing of GPU 0" 2 "$($GS stats -r gpu_metrics_sum --format csv --device 1 gm.gst | wc -l)"
# --time 0.5s:2.5s keeps the samples at 1 and 2 s (mem_used 2000, 3000) and GPU 1's at 0.5 s
w=$($GS stats -r gpu_metrics_sum --format csv --time 0.5s:2.5s gm.gst)
eq "gm stats --time: gpu_util keeps the 1 s sample" "0,gpu_util,1,20.0,20.0,20.0,20.0,%" "$(printf '%s\n' "$w" | grep '^0,gpu_util')"
eq "gm stats --time: mem_used keeps 2000 and 3000" "0,mem_used,2,2000.0,2000.0,2500.0,3000.0,B" "$(printf '%s\n' "$w" | grep '^0,mem_used')"
tbl=$($GS stats -r gpu_metrics_sum gm.gst)
has "gm stats table: title" "GPU Metrics Summary" "$tbl"
has "gm stats table: the Avg column" "Avg" "$tbl"
ov=$($GS stats gm.gst)
has "gm overview: one line of counter means" "GPU counters: GPU 0 gpu_util avg 16.7%, GPU 0 power avg 233.3 W, GPU 1 gpu_util avg 50.0%" "$ov"
eq "gm overview: the line appears once" 1 "$(printf '%s\n' "$ov" | grep -c 'GPU counters:')"
info=$($GS info gm.gst)
has "gm info: counts the counter samples" "gpu counter samples       11 (4 tracks on 2 devices, 1 Hz)" "$info"
has "gm info: format 1.7" "format 1.7" "$info"
d=$($GS dump gm.gst)
eq "gm dump: 5 counter chunks" 5 "$(printf '%s\n' "$d" | grep -c '^chunk counters type=14')"
has "gm dump: track header" 'device=0 metric=1 name="gpu_util" unit="%" count=3 base=1000000000000' "$d"
has "gm dump: a sample" "counter ts=1003000000000 value=60" "$d"
eq "gm dump jsonl: 11 samples" 11 "$($GS dump --format jsonl gm.gst | grep -c '"counter":')"
has "gm dump jsonl: a sample" '{"counter":7,"device":0,"ts":1001000000000,"value":300000}' "$($GS dump --format jsonl gm.gst)"

# Perfetto: a counter track per device and metric under the device, the values in order
$GS export -t perfetto -o gm.pftrace gm.gst; eq "gm perfetto: exit 0" 0 $?
if command -v protoc >/dev/null 2>&1; then
	p=$(protoc --decode=perfetto.protos.Trace -I"$ROOT/tests/data" perfetto_subset.proto <gm.pftrace)
	eq "gm perfetto: protoc decodes it" 0 $?
	eq "gm perfetto: 4 counter tracks" 4 "$(printf '%s\n' "$p" | grep -c 'counter {')"
	has "gm perfetto: GPU 0 gpu_util track" 'name: "GPU 0 gpu_util (%)"' "$p"
	has "gm perfetto: GPU 1 gpu_util track" 'name: "GPU 1 gpu_util (%)"' "$p"
	has "gm perfetto: GPU 0 power track" 'name: "GPU 0 power (mW)"' "$p"
	eq "gm perfetto: 11 counter values" 11 "$(printf '%s\n' "$p" | grep -c 'counter_value:')"
	eq "gm perfetto: gpu_util's values in time order" "10 20 60" \
		"$(printf '%s\n' "$p" | grep 'counter_value:' | head -3 | awk '{print $2}' | paste -sd' ')"
	eq "gm perfetto: timestamps on the trace's clock" "1000000000000 1001000000000 1003000000000" \
		"$(printf '%s\n' "$p" | grep -B3 'type: TYPE_COUNTER' | grep 'timestamp:' | head -3 | awk '{print $2}' | paste -sd' ')"
else
	bad "gm perfetto: protoc found" "run: sudo apt-get install -y protobuf-compiler"
fi
# Chrome: "C" events on the device's row
$GS export -t chrome -o gm.chrome.json gm.gst; eq "gm chrome: exit 0" 0 $?
eq "gm chrome: counter events of gpu_util on GPU 0, their values and times" "3 10,20,60 0.000,1000000.000,3000000.000" \
	"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [e for e in d["traceEvents"] if e.get("ph") == "C" and e["name"] == "gpu_util (%)" and e["pid"] == 0]
t0 = c[0]["ts"]
print(len(c), ",".join(str(e["args"]["value"]) for e in c), ",".join("%.3f" % (e["ts"] - t0) for e in c))' gm.chrome.json 2>&1)"
eq "gm chrome: 11 counter events, category gpu_metrics" 11 \
	"$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "C" and e.get("cat") == "gpu_metrics"))' gm.chrome.json)"
# SQLite: nsys's GPU_METRICS and TARGET_INFO_GPU_METRICS
$GS export -t sqlite -o gm.sqlite gm.gst; eq "gm sqlite: exit 0" 0 $?
eq "gm sqlite: the metrics' names" "0|0|GPU 0|1|gpu_util (%)
0|0|GPU 0|3|mem_used (B)
0|0|GPU 0|7|power (mW)
1|1|GPU 1|1|gpu_util (%)" "$(sqlite3 gm.sqlite 'SELECT typeId, sourceId, typeName, metricId, metricName FROM TARGET_INFO_GPU_METRICS ORDER BY typeId, metricId')"
eq "gm sqlite: 11 samples" 11 "$(sqlite3 gm.sqlite 'SELECT count(*) FROM GPU_METRICS')"
eq "gm sqlite: the power samples joined to their name" "1000000000000|100000
1001000000000|300000
1003000000000|200000" "$(sqlite3 gm.sqlite "SELECT g.timestamp, g.value FROM GPU_METRICS g JOIN TARGET_INFO_GPU_METRICS t ON g.typeId = t.typeId AND g.metricId = t.metricId WHERE t.metricName = 'power (mW)' ORDER BY g.timestamp")"
# csv and json tables: gpu_metrics
rm -rf gm_csv gm_jt
$GS export -t csv -o gm_csv gm.gst; eq "gm csv: exit 0" 0 $?
eq "gm csv: header" "index,device,metric_id,metric,unit,ts_ns,ts_abs_ns,value" "$(head -1 gm_csv/gpu_metrics.csv)"
eq "gm csv: 11 rows" 12 "$(wc -l <gm_csv/gpu_metrics.csv)"
eq "gm csv: the 3 s gpu_util sample, relative and absolute time" "2,0,1,gpu_util,%,3000000000,1796233143000000000,60" "$(sed -n 4p gm_csv/gpu_metrics.csv)"
$GS export -t json -o gm_jt gm.gst; eq "gm json: exit 0" 0 $?
eq "gm json: GPU 1's sample" "1 1 gpu_util 500000000 50" "$(python3 -c '
import json, sys
r = [x for x in json.load(open(sys.argv[1])) if x["device"] == 1][0]
print(r["device"], r["metric_id"], r["metric"], r["ts_ns"], r["value"])' gm_jt/gpu_metrics.json 2>&1)"
# the committed fixture (format 1.5, tests/data/README.md) reads the same
eq "gm fixture: same report as a fresh trace" "$csv" "$($GS stats -r gpu_metrics_sum --format csv "$ROOT/tests/data/counters.gst")"
# a trace without counters: the report is empty, not an error
eq "gm stats: no counters, header only" 1 "$($GS stats -r gpu_metrics_sum --format csv "$ROOT/tests/data/features.gst" 2>/dev/null | wc -l)"

# ---- (3) damage: a counter chunk cut, or malformed under a valid checksum ----
size=$(stat -c %s gm.gst)
head -c $((size - 40)) gm.gst >gm_cut.gst
$GS stats -r gpu_metrics_sum --format csv gm_cut.gst >gm_cut.out 2>gm_cut.err
rc=$?
between "gm damaged: cut file, no crash (exit 0 or 1)" 0 1 "$rc"
has "gm damaged: cut file named with its byte" "gm_cut.gst" "$(cat gm_cut.err)"
has "gm damaged: cut file, the position" "at byte" "$(cat gm_cut.err)"
# the first counter chunk's name length made impossible, its CRC recomputed: the decoder says so
python3 - gm.gst gm_bad.gst <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
off = 64
while off < len(b):
    typ = struct.unpack_from('<H', b, off + 4)[0]
    codec = struct.unpack_from('<H', b, off + 6)[0]
    stored = struct.unpack_from('<Q', b, off + 16)[0]
    if typ == 14 and codec == 0:  # the first counter chunk (small: stored raw)
        p = off + 32
        b[p + 2] = 0x7f                      # name length 127: past the payload
        struct.pack_into('<I', b, off + 8, 0)
        crc = zlib.crc32(bytes(b[off:off + 32]))
        crc = zlib.crc32(bytes(b[p:p + stored]), crc)
        struct.pack_into('<I', b, off + 8, crc)
        break
    off += 32 + stored
open(sys.argv[2], 'wb').write(b)
PY
at=$($GS dump gm.gst | awk '/^chunk counters/ {sub("offset=", "", $4); print $4; exit}')
$GS stats -r gpu_metrics_sum --format csv gm_bad.gst >gm_bad.out 2>gm_bad.err
between "gm damaged: malformed chunk, no crash" 0 1 $?
has "gm damaged: names the chunk and its byte" "malformed counter chunk in the chunk at byte $at" "$(cat gm_bad.err)"
has "gm damaged: names the file" "gm_bad.gst" "$(cat gm_bad.err)"
$GS dump gm_bad.gst >gm_bad.dump 2>gm_bad.dump.err
between "gm damaged: dump goes on, no crash" 0 1 $?
has "gm damaged: dump warns with the byte" "malformed counters chunk at byte $at" "$(cat gm_bad.dump.err)"
eq "gm damaged: dump still shows the other chunks' 8 samples" 8 "$(grep -c 'counter ts=' gm_bad.dump)"
