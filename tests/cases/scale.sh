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
