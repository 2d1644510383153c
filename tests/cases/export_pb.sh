# export_pb.sh: the Perfetto and SQLite exporters (src/export/perfetto.c, sqlite.c), through
# the test driver build/tests/unit/test_export_b until `gpuscope export` exists. Perfetto: the
# bytes decode with protoc against tests/data/perfetto_subset.proto (Perfetto's field numbers),
# with the expected counts, and a reader of the wire format by hand (export_pb.py) finds per
# name the counts and durations `gpuscope stats` reports. SQLite: nsys-style queries
# (export_sqlite.py) agree with `gpuscope stats`.
echo "export (perfetto, sqlite):"
X=$ROOT/$BUILD_DIR/tests/unit/test_export_b
if ! command -v protoc >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get install -y -q protobuf-compiler >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q protobuf-compiler >/dev/null 2>&1; }
fi
if command -v protoc >/dev/null 2>&1; then
	ok "export: protoc found"
else
	bad "export: protoc found" "run: sudo apt-get install -y protobuf-compiler"
fi
K=$ROOT/tests/data/kineto/train.pt.trace.json.gz
"$X" perfetto "$K" "$T/train.pftrace"
eq "export perfetto train: exit 0" 0 $?
if command -v protoc >/dev/null 2>&1; then
	d=$(protoc --decode=perfetto.protos.Trace -I"$ROOT/tests/data" perfetto_subset.proto <"$T/train.pftrace")
	eq "export perfetto train: protoc decodes it" 0 $?
	i=$($GS info "$K")
	n() { printf '%s\n' "$i" | awk -v k="$1" 'index($0, k) == 3 { print $NF; exit }'; }
	# every range, call and GPU operation: one begin and one end
	s=$(( $(n "nvtx ranges (push/pop)") + $(n "cuda api calls") + $(n "cuda kernels") + \
	      $(printf '%s\n' "$i" | awk '/cuda memcpy/ { print $3; exit }') + $(n "cuda memset") ))
	eq "export perfetto train: slice begins = ranges + calls + GPU ops" "$s" "$(printf '%s\n' "$d" | grep -c 'type: TYPE_SLICE_BEGIN')"
	eq "export perfetto train: slice ends" "$s" "$(printf '%s\n' "$d" | grep -c 'type: TYPE_SLICE_END')"
	eq "export perfetto train: one process track" 1 "$(printf '%s\n' "$d" | grep -c 'process {')"
	eq "export perfetto train: first packet clears the sequence" "sequence_flags:3" "$(printf '%s\n' "$d" | grep -m1 sequence_flags | tr -d ' ')"
	eq "export perfetto train: names interned once" "$(printf '%s\n' "$d" | grep -A2 'event_names {' | grep -c 'name:')" \
		"$(printf '%s\n' "$d" | grep -A2 'event_names {' | grep 'name:' | sort -u | wc -l)"
	eq "export perfetto train: a flow per call that launched GPU work" \
		"$(printf '%s\n' "$d" | grep -c ' flow_ids:')" "$(printf '%s\n' "$d" | grep -c 'terminating_flow_ids:')"
	has "export perfetto train: counter tracks" 'name: "GPU 0 busy (%)"' "$d"
	has "export perfetto train: memory counter" 'name: "GPU 0 memory in use (bytes)"' "$d"
fi
for f in "$K" "$ROOT"/tests/data/cuda/*.gst "$ROOT"/tests/data/crash_segv.gst "$ROOT"/tests/data/host_*.gst \
	"$ROOT"/tests/data/item_sync.gst "$ROOT"/tests/data/examples/input_bound.gst "$ROOT"/tests/data/decode_graph.gst; do
	c=$(basename "$f")
	if ! "$X" perfetto "$f" "$T/x.pftrace" 2>"$T/x.err"; then
		bad "export perfetto $c" "$(cat "$T/x.err")"; continue
	fi
	if command -v protoc >/dev/null 2>&1; then
		protoc --decode=perfetto.protos.Trace -I"$ROOT/tests/data" perfetto_subset.proto <"$T/x.pftrace" >/dev/null 2>"$T/x.err"
		eq "export perfetto $c: protoc decodes it" "0 " "$? $(head -c 300 "$T/x.err")"
	fi
	out=$(python3 "$ROOT/tests/cases/export_pb.py" "$GS" "$f" "$T/x.pftrace" 2>&1)
	eq "export perfetto $c: slices per name as gpuscope stats counts them ($out)" 0 $?
	eq "export perfetto $c: ranges left open = ranges never ended" \
		"$($GS info "$f" | awk '/nvtx ranges never ended/ { print $NF }')" "${out#* }"
	"$X" sqlite "$f" "$T/x.sqlite" 2>"$T/x.err"
	eq "export sqlite $c: exit 0" "0 " "$? $(cat "$T/x.err")"
	out=$(python3 "$ROOT/tests/cases/export_sqlite.py" "$GS" "$f" "$T/x.sqlite" 2>&1)
	eq "export sqlite $c: nsys-style queries agree with gpuscope stats ($out)" 0 $?
done
if command -v protoc >/dev/null 2>&1; then
	pid=$($GS info "$K" | awk '$1 == "pid" { print $2; exit }')
	begins() { protoc --decode=perfetto.protos.Trace -I"$ROOT/tests/data" perfetto_subset.proto <"$1" | grep -c 'type: TYPE_SLICE_BEGIN'; }
	"$X" perfetto "$K" "$T/pid.pftrace" "$pid"
	eq "export perfetto --pid $pid (the one process): every slice" "$(begins "$T/train.pftrace")" "$(begins "$T/pid.pftrace")"
	"$X" perfetto "$K" "$T/pid.pftrace" 99999
	eq "export perfetto --pid of no process: no slices" 0 "$(begins "$T/pid.pftrace")"
fi
# --kernel-metrics traces (tests/data/kmetrics, recorded on an H200): a measured kernel's
# slice carries its metrics as debug annotations, the values of stats -r kernel_metrics and
# the names and values of the Chrome export's args; an unmeasured kernel carries none
KD=$ROOT/tests/data/kmetrics
for c in copy copy_skip fma convt lowocc; do
	$GS export -t perfetto -f -o "$T/km_$c.pftrace" "$KD/$c.gst" 2>"$T/x.err"
	eq "export perfetto km $c: exit 0" "0 " "$? $(cat "$T/x.err")"
	$GS export -t chrome -f -o "$T/km_$c.json" "$KD/$c.gst" 2>/dev/null
	if command -v protoc >/dev/null 2>&1; then
		protoc --decode=perfetto.protos.Trace -I"$ROOT/tests/data" perfetto_subset.proto <"$T/km_$c.pftrace" >"$T/km_$c.txt" 2>"$T/x.err"
		eq "export perfetto km $c: protoc decodes it" "0 " "$? $(head -c 300 "$T/x.err")"
	fi
	python3 "$ROOT/tests/cases/export_pb.py" --kmetrics "$GS" "$KD/$c.gst" "$T/km_$c.pftrace" "$T/km_$c.json" >"$T/km_$c.out" 2>&1
	eq "export perfetto km $c: annotations = kernel_metrics = Chrome args ($(tail -1 "$T/km_$c.out"))" 0 $?
done
km() { awk -v c="$2" '$1 == c { print $2, $3, $4, $5 }' "$T/km_$1.out"; }
eq "export perfetto km copy: coalesced copy, 4.0 sectors per load request" "km_copy_coalesced 4.0 54.3 latency-bound" "$(km copy 124)"
eq "export perfetto km copy: strided copy, 32.0 sectors per load request" "km_copy_strided 32.0 81.1 memory-bound" "$(km copy 127)"
eq "export perfetto km copy: every launch, each value against the report and against Chrome" "4 launches, 196 values agree; 0 kernels without metrics, none annotated" "$(tail -1 "$T/km_copy.out")"
eq "export perfetto km copy_skip: the 2 skipped launches carry no metrics" "2 launches, 98 values agree; 2 kernels without metrics, none annotated" "$(tail -1 "$T/km_copy_skip.out")"
eq "export perfetto km fma: no global loads, no sectors per request" "km_fma_loop - 0.0 compute-bound" "$(km fma 122)"
if command -v protoc >/dev/null 2>&1; then
	eq "export perfetto km copy: the strided copy's class and reason on its slice, as text" \
		"string_value: \"memory throughput 81% of peak (DRAM 81%) is near its limit\" name: \"bound reason\"" \
		"$(grep -A1 'string_value: "memory throughput 81%' "$T/km_copy.txt" | head -2 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')"
	eq "export perfetto km copy: SM % as a double, one per launch" 4 "$(grep -B1 'name: "SM %"' "$T/km_copy.txt" | grep -c 'double_value: ')"
fi
"$X" sqlite "$K" "$T/none/x.sqlite" 2>"$T/x.err"
eq "export sqlite to a missing folder: exit 1" 1 $?
has "export sqlite to a missing folder: names the file" "$T/none/x.sqlite" "$(cat "$T/x.err")"
