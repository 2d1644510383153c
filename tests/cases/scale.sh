# scale.sh: 10 million ranges with bounded memory and exact accounting; forced loss is counted
# exactly; the installed layout finds its library.
echo "scale:"
cd "$T" || exit 1
N=${GS_TEST_RANGES:-10000000}

acct() { # file -> "ranges unpaired lost": unpaired = pops or pushes whose partner was lost
	local i; i=$($GS info "$1")
	printf '%s\n' "$i" | awk '/nvtx ranges \(push\/pop\)/ {gsub(",","",$NF); r=$NF}
		/unmatched pops\/ends/ {gsub(",","",$NF); u+=$NF}
		/nvtx ranges never ended/ {gsub(",","",$NF); u+=$NF}
		/^lost records:/ { l=0; for (k = 3; k <= NF; k++) { v=$k; gsub(",","",v); if (v ~ /^[0-9]+$/) l+=v } }
		END { print r+0, u+0, l+0 }'
}

if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o cli.rss $GS profile --sample none -o big /usr/bin/time -f '%M' -o prog.rss "$P/nvtx_loop" "$N" 2>/dev/null
else
	$GS profile --sample none -o big "$P/nvtx_loop" "$N" 2>/dev/null
fi
eq "$N ranges: exit 0" 0 $?
read -r r u l <<EOF2
$(acct big.gst)
EOF2
eq "$N ranges: every record recorded or counted lost" $((2 * N)) $((2 * r + u + l))
echo "       ($r ranges, $u unpaired, $l records lost)"
if [ -f prog.rss ]; then
	between "program peak RSS <= 64 MiB buffer + 32 MiB (KiB)" 0 $((96 * 1024)) "$(tail -1 prog.rss)"
	between "gpuscope peak RSS <= 128 MiB (KiB)" 0 $((128 * 1024)) "$(tail -1 cli.rss)"
fi
bytes=$(stat -c %s big.gst)
between "bytes per range <= 12" 0 12 "$(awk -v b="$bytes" -v r="$r" 'BEGIN { printf "%.2f", b / (r ? r : 1) }')"

# Forced loss: gpuscope is stopped, so nothing drains a 4 MiB buffer; every lost record counted.
M=2000000
GPUSCOPE_BUFFER_MB=4 $GS profile --sample none -o lossy sh -c "sleep 0.5; exec '$P/nvtx_loop' $M" 2>/dev/null &
gp=$!
sleep 0.2; kill -STOP "$gp"
prog=$(pgrep -P "$gp" | head -1)
for _ in $(seq 1 300); do
	st=$(awk '{print $3}' "/proc/$prog/stat" 2>/dev/null)
	[ "$st" = Z ] || [ -z "$st" ] && break
	sleep 0.1
done
kill -CONT "$gp"; wait "$gp"
eq "forced loss: exit 0" 0 $?
read -r r u l <<EOF2
$(acct lossy.gst)
EOF2
between "forced loss: records were lost" 1 $((2 * M)) "$l"
eq "forced loss: exact accounting" $((2 * M)) $((2 * r + u + l))
has "forced loss: cause named" "buffer_full" "$($GS info lossy.gst)"
has "forced loss: stats warns" "records were lost" "$($GS stats lossy.gst 2>&1 >/dev/null)"

# make install: the installed CLI finds its library relative to itself
make -s -C "$ROOT" install PREFIX="$T/prefix" BUILD="$BUILD_DIR" >/dev/null 2>&1
eq "install: files" "yes yes" "$( [ -x "$T/prefix/bin/gpuscope" ] && echo yes) $( [ -f "$T/prefix/lib/libgpuscope-inject.so" ] && echo yes)"
"$T/prefix/bin/gpuscope" profile -o installed "$P/nvtx_loop" 7 2>/dev/null
$GS stats -r nvtx_sum --format csv -o inst.csv installed.gst 2>/dev/null
eq "install: installed gpuscope records" 7 "$(csv_field inst.csv :loop Instances)"

# The load benchmark's generator (bench/gen_trace.c, bench/load.sh): a synthetic trace of
# exactly N events (ProfilerStep#k ranges around ops, each op a range, a cudaLaunchKernel
# call and a kernel, on two threads) loads with the counts its layout implies, and every
# kernel is charged to the ranges around its launch.
GN=200000
"$ROOT/$BUILD_DIR/bench/gen_trace" gen.gst $GN >gen.out
eq "gen_trace: exit 0" 0 $?
F=$((GN / 301)) R=$((GN % 301)) q=0 l=0
[ $R -gt 0 ] && q=$(((R - 1) / 3)) l=$(((R - 1) % 3))
K=$((100 * F + q)) RG=$((101 * F + (R > 0 ? 1 + q + l : 0))) S=$((F + (R > 0 ? 1 : 0)))
FW=$((40 * F + (q < 40 ? q : 40)))
eq "gen_trace: counts" "events $GN kernels $K api_calls $K ranges $RG steps $S forward_kernels $FW" "$(cat gen.out)"
ginfo=$($GS info gen.gst | tr -d ,)
eq "gen_trace: info ranges, kernels, api calls" "$RG $K $K" "$(printf '%s\n' "$ginfo" | awk '
	/nvtx ranges \(push\/pop\)/ { r = $NF } /cuda kernels/ { k = $NF } /cuda api calls/ { a = $NF }
	END { print r, k, a }')"
has "gen_trace: info complete" "state:       complete" "$ginfo"
csv_sum() { # FILE.csv KEY-COLUMN PREFIX VALUE-COLUMN: rows, and the sum of VALUE over rows whose KEY starts with PREFIX
	python3 - "$@" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline='')) if r[sys.argv[2]].startswith(sys.argv[3])]
print(len(rows), sum(int(r[sys.argv[4]]) for r in rows))
PY
}
$GS stats -r cuda_gpu_kern_sum -f csv -o gk.csv gen.gst 2>/dev/null
eq "gen_trace: cuda_gpu_kern_sum: 200 kernel names, every kernel" "200 $K" "$(csv_sum gk.csv Name '' Instances)"
$GS stats -r cuda_api_sum -f csv -o ga.csv gen.gst 2>/dev/null
eq "gen_trace: cuda_api_sum: one cudaLaunchKernel per kernel" "1 $K" "$(csv_sum ga.csv Name cudaLaunchKernel 'Num Calls')"
$GS stats -r nvtx_sum -f csv -o gn.csv gen.gst 2>/dev/null
eq "gen_trace: nvtx_sum: one ProfilerStep range per step" "$S $S" "$(csv_sum gn.csv Range :ProfilerStep# Instances)"
$GS stats -r nvtx_kern_sum -f csv -o gnk.csv gen.gst 2>/dev/null
eq "gen_trace: nvtx_kern_sum: forward kernels in ProfilerStep ranges" "$FW" "$(csv_sum gnk.csv 'NVTX Range' :ProfilerStep# 'Kern Inst' | cut -d' ' -f2)"
eq "gen_trace: nvtx_kern_sum: forward kernels in aten:: ranges" "$FW" "$(csv_sum gnk.csv 'NVTX Range' :aten:: 'Kern Inst' | cut -d' ' -f2)"
eq "gen_trace: nvtx_kern_sum: backward kernels in autograd ranges" "$((K - FW))" "$(csv_sum gnk.csv 'NVTX Range' :autograd:: 'Kern Inst' | cut -d' ' -f2)"

# The trace reports go out a window of 4,096 rows at a time in csv and json (gs_table_stream):
# on gen.gst's 66,445 kernels and calls and 67,110 ranges (17 windows) each is as its second
# implementation over the dump's records (tests/cases/reports_ref.py), its csv holds its json's
# rows, --timeunit converts every window, and a streamed report between others and into files of
# each keeps the outputs' shapes.
$GS dump --format jsonl gen.gst >gen.jsonl 2>/dev/null
for r in cuda_gpu_trace cuda_api_trace cuda_kern_exec_trace nvtx_pushpop_trace nvtx_gpu_proj_trace; do
	$GS stats -r $r -f json -o g_$r.json gen.gst 2>/dev/null
	eq "streamed $r on gen_trace: as the reference implementation" match \
		"$(python3 "$ROOT/tests/cases/reports_ref.py" $r gen.jsonl g_$r.json 2>&1 | grep -v '^totals')"
done
$GS stats -r cuda_gpu_trace -f csv -o g_trace.csv gen.gst 2>/dev/null
$GS stats -r cuda_gpu_trace -f csv --timeunit usec -o g_trace_us.csv gen.gst 2>/dev/null
eq "streamed cuda_gpu_trace: csv as json, every window in microseconds" "$K 0 0" "$(python3 - g_cuda_gpu_trace.json g_trace.csv g_trace_us.csv <<'PY'
import csv, json, sys
js = json.load(open(sys.argv[1]))["rows"]
ns = list(csv.DictReader(open(sys.argv[2], newline='')))
us = list(csv.DictReader(open(sys.argv[3], newline='')))
def cell(v):
    return "" if v is None else v if isinstance(v, str) else "%.3f" % v if isinstance(v, float) else str(v)
differ = sum(1 for j, c in zip(js, ns) if [cell(j[k]) for k in j] != [c[k] for k in j]) + abs(len(js) - len(ns))
badunit = sum(1 for n, u in zip(ns, us) if u["Start (us)"] != "%d.%03d" % divmod(int(n["Start (ns)"]), 1000)
              or u["Duration (us)"] != "%d.%03d" % divmod(int(n["Duration (ns)"]), 1000)) + abs(len(ns) - len(us))
print(len(js), differ, badunit)
PY
)"
$GS stats -r cuda_api_sum,nvtx_pushpop_trace,cuda_gpu_kern_sum -f json -o g_three.json gen.gst 2>/dev/null
eq "streamed report among others in one json: keys and rows" "cuda_api_sum 1 nvtx_pushpop_trace $RG cuda_gpu_kern_sum 200" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%s %d" % (k, len(v["rows"])) for k, v in d.items()))' g_three.json)"
$GS stats -r cuda_api_trace,cuda_api_sum -f csv -o g_split.csv gen.gst 2>/dev/null
eq "streamed report into a file of its own: its rows, then the next report's" "$((K + 1)) 2" \
	"$(wc -l <g_split_cuda_api_trace.csv) $(wc -l <g_split_cuda_api_sum.csv)"
# a write that fails part-way (a file size limit of 1 MiB, SIGXFSZ ignored: EFBIG)
err=$(ulimit -f 2048; trap '' XFSZ; $GS stats -r cuda_gpu_trace -f csv -o g_big.csv gen.gst 2>&1 >/dev/null)
eq "streamed report, a failed write: exit 1" 1 $?
has "streamed report, a failed write: says so" "cannot write 'g_big.csv'" "$err"
eq "streamed report, a failed write: one message" 1 "$(printf '%s\n' "$err" | grep -c 'cannot write')"
# a console table of 66K rows is written a MiB at a time (gs_render_opts.drain): cut at the
# dashes' columns, every row holds the csv's cells
$GS stats -r cuda_api_trace gen.gst >g_api.txt 2>/dev/null
$GS stats -r cuda_api_trace -f csv gen.gst >g_api.csv 2>/dev/null
eq "console table written in parts: every row, in its columns" "$K $K" "$(python3 - g_api.txt g_api.csv <<'PY'
import csv, re, sys
lines = open(sys.argv[1]).read().split("\n")
spans = [m.span() for m in re.finditer(r"-+", lines[3])]
spans[-1] = (spans[-1][0], None)  # the last column is not padded
rows = [[l[a:b].strip() for a, b in spans] for l in lines[4:] if l]
want = list(csv.reader(open(sys.argv[2], newline='')))[1:]
print(len(rows), sum(1 for r, w in zip(rows, want) if r == w))
PY
)"
