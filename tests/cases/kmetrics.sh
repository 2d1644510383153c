# kmetrics.sh: --kernel-metrics without a GPU: the options, and every reader of the metrics
# (stats kernel_metrics/kernel_metrics_sum, analyze, dump, Chrome and SQLite exports) over
# traces recorded on an H200 by tests/gpu/kmetrics.sh (tests/data/kmetrics/: a coalesced and a
# 32-stride copy, an FMA loop, a kernel limited to one block per SM by shared memory, and a
# PyTorch ConvTranspose2d). The expected values are the recorded ones (and ncu's, within the
# tolerances of kmetrics_compare.py: tests/data/kmetrics/*.ncu.csv).
echo "kmetrics:"
KD=$ROOT/tests/data/kmetrics
col() { # CSV ROW(0-based) COLUMN-NAME
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
print(rows[int(sys.argv[2])][sys.argv[3]] if int(sys.argv[2]) < len(rows) else '')
PY
}
# options: checked before anything runs
err=$($GS profile --kernel-metrics=fast -- true 2>&1); eq "km: bad set exits 2" 2 $?
has "km: bad set named" "takes default, full, not 'fast'" "$err"
err=$($GS profile --kernel-metrics --kernel-filter='(' -- true 2>&1); eq "km: bad regex exits 2" 2 $?
has "km: bad regex named" "'(' is not an extended regular expression" "$err"
err=$($GS profile --kernel-metrics --kernel-count=0 -- true 2>&1); eq "km: count 0 exits 2" 2 $?
err=$($GS profile --kernel-metrics --kernel-skip=-1 -- true 2>&1); eq "km: negative skip exits 2" 2 $?
err=$($GS profile --kernel-count=3 -- true 2>&1); eq "km: selection without metrics exits 2" 2 $?
has "km: selection without metrics says why" "add it" "$err"
err=$($GS profile --cache-control=none -- true 2>&1); eq "km: cache control without metrics exits 2" 2 $?
has "km: cache control without metrics says why" "replays kernels: add it" "$err"
err=$($GS profile --kernel-metrics --cache-control=some -- true 2>&1); eq "km: bad cache control exits 2" 2 $?
has "km: bad cache control named" "--cache-control takes all or none, not 'some'" "$err"
err=$($GS profile --kernel-metrics -t nvtx -- true 2>&1); eq "km: metrics without cuda exits 2" 2 $?
has "km: metrics need cuda" "add cuda to --trace" "$err"

# the copies: 4 launches, coalesced 4 sectors per request, strided 32
$GS stats -r kernel_metrics --format csv -o km_copy.csv "$KD/copy.gst" 2>/dev/null
eq "km copy: launches" 4 "$(($(wc -l <km_copy.csv) - 1))"
eq "km copy: coalesced name" km_copy_coalesced "$(col km_copy.csv 0 Name)"
eq "km copy: coalesced ld sectors/request" 4.0 "$(col km_copy.csv 0 'Ld Sectors/Req')"
eq "km copy: strided ld sectors/request" 32.0 "$(col km_copy.csv 1 'Ld Sectors/Req')"
eq "km copy: strided st sectors/request" 4.0 "$(col km_copy.csv 1 'St Sectors/Req')"
eq "km copy: strided DRAM %" 81.1 "$(col km_copy.csv 1 'DRAM %')"
eq "km copy: strided L2 hit %" 9.3 "$(col km_copy.csv 1 'L2 Hit %')"
eq "km copy: strided duration" 295136 "$(col km_copy.csv 1 'Duration (ns)')"
eq "km copy: strided bound" memory-bound "$(col km_copy.csv 1 Bound)"
eq "km copy: coalesced bound (ncu agrees)" latency-bound "$(col km_copy.csv 0 Bound)"
eq "km copy: registers from the kernel record" 18 "$(col km_copy.csv 1 'Reg/Trd')"
eq "km copy: correlation id" 127 "$(col km_copy.csv 1 CorrId)"
eq "km copy: launch ordinal" 3 "$(col km_copy.csv 3 Launch)"
$GS stats -r kernel_metrics_sum --format csv -o km_copy_sum.csv "$KD/copy.gst" 2>/dev/null
eq "km copy sum: by name" "2 2" "$(col km_copy_sum.csv 0 Launches) $(col km_copy_sum.csv 1 Launches)"
eq "km copy sum: most time first" km_copy_strided "$(col km_copy_sum.csv 0 Name)"
eq "km copy sum: mean DRAM %" 81.1 "$(col km_copy_sum.csv 0 'DRAM %')"

# the FMA loop: compute-bound, the FLOP rate from the counted FMAs
$GS stats -r kernel_metrics --format csv -o km_fma.csv "$KD/fma.gst" 2>/dev/null
eq "km fma: SM %" 94.9 "$(col km_fma.csv 0 'SM %')"
eq "km fma: bound" compute-bound "$(col km_fma.csv 0 Bound)"
eq "km fma: GFLOP/s (2112*256 threads * 8 chains * 4096 FMAs * 2 / 628768 ns)" 58137.2 "$(col km_fma.csv 0 'GFLOP/s')"
eq "km fma: no global loads, no ratio" "" "$(col km_fma.csv 0 'Ld Sectors/Req')"

# one block of 2 warps per SM: occupancy 2/64
$GS stats -r kernel_metrics --format csv -o km_low.csv "$KD/lowocc.gst" 2>/dev/null
eq "km lowocc: occupancy" 3.1 "$(col km_low.csv 0 'Occupancy %')"
eq "km lowocc: bound" latency-bound "$(col km_low.csv 0 Bound)"
out=$($GS analyze "$KD/lowocc.gst" 2>/dev/null)
has "km lowocc: analyze finds low occupancy" "low-occupancy" "$out"
has "km lowocc: and its limiter" "limited by shared memory (1 block of 64 threads per SM, theoretical 3.1%)" "$(printf '%s' "$out" | tr '\n' ' ' | tr -s ' ')"
out=$($GS analyze "$KD/copy.gst" 2>/dev/null | tr '\n' ' ' | tr -s ' ')
has "km copy: analyze finds uncoalesced loads" "km_copy_strided moves 32.0 sectors per load request" "$out"
has "km copy: analyze finds the low L2 hit rate" "km_copy_strided hits L2 for 9.3% of sectors" "$out"
hasnt "km copy: the coalesced copy is not uncoalesced" "km_copy_coalesced moves" "$out"
out=$($GS analyze "$KD/fma.gst" 2>/dev/null)
hasnt "km fma: no occupancy finding" "low-occupancy" "$out"

# PyTorch ConvTranspose2d: 11 launches of 5 kernels, names demangled through the kernel records
$GS stats -r kernel_metrics --format csv -o km_convt.csv "$KD/convt.gst" 2>/dev/null
eq "km convt: launches" 11 "$(python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' km_convt.csv)"
$GS stats -r kernel_metrics_sum --format csv -o km_convt_sum.csv "$KD/convt.gst" 2>/dev/null
eq "km convt sum: kernels" 5 "$(python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' km_convt_sum.csv)"
has "km convt sum: the GEMM first" "sm90_xmma_dgrad_implicit_gemm" "$(col km_convt_sum.csv 0 Name)"
eq "km convt sum: GEMM tensor pipe %" 28.6 "$(col km_convt_sum.csv 0 'Tensor %')"
has "km convt: demangled" "void cudnn::engines_precompiled::nhwcToNchwKernel<float" "$(cat km_convt_sum.csv)"

# dump, exports
out=$($GS dump "$KD/copy.gst" 2>/dev/null)
has "km dump: the chunk" "chunk kmetrics type=16" "$out"
has "km dump: a launch" 'kmetric 1 pid=583 correlation=127 device=0 ordinal=1 passes=11' "$out"
has "km dump: a value" "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum=" "$out"
$GS export -t chrome -f -o km_copy.json "$KD/copy.gst" 2>/dev/null
eq "km chrome: metrics as kernel args" "32.0 memory-bound" "$(python3 -c "
import json, sys
ev = [e for e in json.load(open('km_copy.json'))['traceEvents'] if e.get('cat') == 'kernel' and e['name'] == 'km_copy_strided']
a = ev[0]['args']
print('%.1f' % (a['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum'] / a['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum']), a['bound'])")"
$GS export -t sqlite -f -o km_copy.sqlite "$KD/copy.gst" 2>/dev/null
eq "km sqlite: a row per launch and metric" 88 "$(python3 -c "
import sqlite3; print(sqlite3.connect('km_copy.sqlite').execute('select count(*) from GPUSCOPE_KERNEL_METRICS').fetchone()[0])")"
eq "km sqlite: values" "km_copy_strided 81.1" "$(python3 -c "
import sqlite3
r = sqlite3.connect('km_copy.sqlite').execute(\"select s.value, k.value from GPUSCOPE_KERNEL_METRICS k join StringIds s on s.id = k.nameId join StringIds m on m.id = k.metricId where m.value = 'dram__throughput.avg.pct_of_peak_sustained_elapsed' and k.launch = 1\").fetchone()
print(r[0], '%.1f' % r[1])")"

# a trace without metrics says how to get them
out=$($GS stats -r kernel_metrics "$ROOT/tests/data/cuda_resnet50.gst" 2>&1)
has "km: none recorded" "holds no data for this report" "$out"
# the recorded values agree with ncu's (the comparison the GPU suite makes)
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" copy <($GS dump --format jsonl "$KD/copy.gst") "$KD/copy.ncu.csv" km_copy | tail -1)
eq "km vs ncu: copies (the coalesced copy's DRAM % is 5.5 points above ncu's)" "copy: 40 passed, 4 failed (0 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$out"
# the same 64 MiB copies measured with the L2 reset before each pass (CUPTI 13.5.25, whose range
# profiler has cache control, on an H100: tests/gpu/cupti_release.sh), against ncu
# --cache-control all: the 5.5 points above are gone
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" copy_reset <($GS dump --format jsonl "$KD/copy_reset.gst") "$KD/copy_reset.ncuflush.csv" km_copy)
eq "km vs ncu, the L2 reset before each pass: copies" "copy_reset: 44 passed, 0 failed (0 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$(printf '%s\n' "$out" | tail -1)"
has "km vs ncu, the L2 reset: the coalesced copy's DRAM % (62.5 against ncu's 63.8)" "km_copy_coalesced            DRAM%            62.482       63.830" "$out"
eq "km copy_reset: no note (the L2 was reset)" "" "$($GS stats -r kernel_metrics "$KD/copy_reset.gst" 2>&1 | grep -i 'not reset')"
# the FMA loop keeps the memory system 0.07% busy: its hit rates count a handful of sectors
# (gpuscope 89.5 against ncu's 98.5% L2 hit on its second launch) and are not judged
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" fma <($GS dump --format jsonl "$KD/fma.gst") "$KD/fma.ncu.csv" km_fma)
eq "km vs ncu: FMA loop, its idle caches' hit rates not judged" "fma: 16 passed, 0 failed (0 not judged: state of the caches; 4 not judged: caches idle; 0 passed against ncu's second run only)" "$(printf '%s\n' "$out" | tail -1)"
has "km vs ncu: FMA loop, the second launch's L2 hit printed as idle" "km_fma_loop                  L2hit%           89.525       98.530            -  idle" "$out"
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" lowocc <($GS dump --format jsonl "$KD/lowocc.gst") "$KD/lowocc.ncu.csv" km_low | tail -1)
eq "km vs ncu: low occupancy" "lowocc: 22 passed, 0 failed (0 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$out"
# copies of 1 GiB and the convolution at batch 64 (several times the L2), with ncu run as the
# range profiler runs and with its caches flushed (tests/gpu/kmetrics.sh's counted cases)
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" copy_big <($GS dump --format jsonl "$KD/copy_big.gst") "$KD/copy_big.ncu.csv" km_copy "$KD/copy_big.ncuflush.csv" | tail -1)
eq "km vs ncu: 1 GiB copies" "copy_big: 44 passed, 0 failed (0 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$out"
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" convt_big <($GS dump --format jsonl "$KD/convt_big.gst") "$KD/convt_big.ncu.csv" . "$KD/convt_big.ncuflush.csv")
eq "km vs ncu: ConvTranspose2d at batch 64 (the weight transpose's L2 hit: 82.3 vs 66.2 / 58.0 flushed)" \
	"convt_big: 116 passed, 1 failed (1 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$(printf '%s\n' "$out" | tail -1)"
has "km vs ncu: the one failure is the 3 us weight transpose's L2 hit rate" "nchwToNhwcKernel L2hit%           82.255       66.200       57.990  FAIL" "$out"
# the convolution at batch 16 with the L2 reset (CUPTI 13.5.25 in torch's folder, H100,
# driver 580: SASS counts left out), against one ncu --cache-control all run, then with a second
# such run: ncu's own occupancy of two cuDNN transposes moved 4.7 and 3.7 points between its runs
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" convt_reset <($GS dump --format jsonl "$KD/convt_reset.gst") "$KD/convt_reset.ncuflush.csv" .)
eq "km vs ncu, batch 16, the L2 reset: against one ncu run, the two transposes' occupancy" \
	"convt_reset: 105 passed, 2 failed (0 not judged: state of the caches; 0 not judged: caches idle; 0 passed against ncu's second run only)" "$(printf '%s\n' "$out" | tail -1)"
has "km vs ncu, batch 16: the transpose's occupancy 85.0 against ncu's 91.6" "nchwToNhwcKernel Occ%             85.036       91.580            -  FAIL" "$out"
eq "km vs ncu, batch 16: the FLOP rows left out under CUPTI 13.5 on a CUDA 13.0 driver, not 0" 11 "$(printf '%s\n' "$out" | grep -c 'FLOP               None .*missing')"
out=$(python3 "$ROOT/tests/gpu/kmetrics_compare.py" --again "$KD/convt_reset.ncuflush2.csv" convt_reset <($GS dump --format jsonl "$KD/convt_reset.gst") "$KD/convt_reset.ncuflush.csv" .)
eq "km vs ncu, batch 16, with ncu's second run: the two within its spread" \
	"convt_reset: 107 passed, 0 failed (0 not judged: state of the caches; 0 not judged: caches idle; 2 passed against ncu's second run only)" "$(printf '%s\n' "$out" | tail -1)"
has "km vs ncu, batch 16: marked with the second run's value" "85.036       91.580            -  ok, 2nd ncu run 86.850" "$out"
$GS stats -r kernel_metrics --format csv -o km_big.csv "$KD/copy_big.gst" 2>/dev/null
eq "km copy_big: coalesced 4 sectors/request, 56.2% DRAM, latency-bound as ncu says" "4.0 56.2 latency-bound" \
	"$(col km_big.csv 0 'Ld Sectors/Req') $(col km_big.csv 0 'DRAM %') $(col km_big.csv 0 Bound)"
eq "km copy_big: strided 32 sectors/request, memory-bound" "32.0 memory-bound" "$(col km_big.csv 1 'Ld Sectors/Req') $(col km_big.csv 1 Bound)"
# --kernel-skip=1 --kernel-count=2 measured the 2nd and 3rd matching launches, as ncu -s 1 -c 2
$GS stats -r kernel_metrics --format csv -o km_skip.csv "$KD/copy_skip.gst" 2>/dev/null
eq "km skip: ordinals" "1 2" "$(col km_skip.csv 0 Launch) $(col km_skip.csv 1 Launch)"
eq "km skip: kernels" "km_copy_strided km_copy_coalesced" "$(col km_skip.csv 0 Name) $(col km_skip.csv 1 Name)"
# --kernel-metrics=full: 40 metrics a launch, all measured
out=$($GS dump --format jsonl "$KD/copy_full.gst" 2>/dev/null)
eq "km full: metrics per launch" "40 40" "$(printf '%s\n' "$out" | python3 -c "
import json, sys
print(*[len(json.loads(l)['metrics']) for l in sys.stdin if l.startswith('{\"kmetric\"')])")"
has "km full: an extra metric" '"smsp__warps_eligible.avg.per_cycle_active":' "$out"

# The range profiler's libnvperf_host.so comes from beside the libcupti that records, not from
# the loader's search (src/collector/cuda/nvperf.c): a real libcupti of the toolkit loaded by
# its path, as PyTorch loads its own, with another copy first in LD_LIBRARY_PATH.
cdir=
for d in "${CUDA_HOME:-/usr/local/cuda}"/lib64 "${CUDA_HOME:-/usr/local/cuda}"/extras/CUPTI/lib64; do
	[ -e "$d/libcupti.so.13" ] && [ -e "$d/libnvperf_host.so" ] && { cdir=$(cd "$d" && pwd -P); break; }
done
if [ -z "$cdir" ]; then
	echo "  skip nvperf: no libcupti.so.13 with its libnvperf_host.so in the CUDA toolkit"
else
	other=$(cd "$ROOT/$BUILD_DIR/tests/programs/other-nvperf" && pwd -P)
	nvp() { LD_LIBRARY_PATH=$other "$P/cuda_nvperf" "$cdir" "$1" 2>&1; }
	eq "nvperf: the loader's search alone takes the other copy" "loaded $other/libnvperf_host.so" "$(nvp nopin)"
	out=$(nvp pin)
	eq "nvperf: pinned, CUPTI's own copy is loaded" "pin 1 |loaded $cdir/libnvperf_host.so" "$(echo "$out" | paste -sd'|')"
	out=$(nvp late)
	has "nvperf: loaded before, the other copy is named" "pin -1 libnvperf_host.so was loaded from $other/libnvperf_host.so before the range profiler started, and CUPTI is $cdir/libcupti.so.13" "$out"
	out=$(LD_LIBRARY_PATH=$cdir "$P/cuda_nvperf" "$cdir" late 2>&1)
	eq "nvperf: the same file loaded before: nothing to do" "pin 0 |loaded $cdir/libnvperf_host.so" "$(echo "$out" | paste -sd'|')"
fi
