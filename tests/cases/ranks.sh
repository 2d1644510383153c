# ranks.sh: communication kernels and several ranks. Two hand-written PyTorch profiler traces
# of one data-parallel job (tests/data/kineto/ranks, distributedInfo rank 0 and 1 of 2), each
# two ProfilerStep#N steps with one GEMM on stream 7 and one NCCL all-reduce on stream 20,
# their launches 0-5 and 5-10 us into the step:
#   rank 0: steps of 20 ms; GEMM 10 us..8.010 ms, ncclDevKernel_AllReduce 4.010..14.010 ms:
#           communication 10 ms, 4 ms of it under the GEMM (40.0%), 6 ms alone
#   rank 1: steps of 24 ms (20% slower); GEMM 10 us..12.010 ms, ncclKernel_AllReduce
#           6.010..16.010 ms: communication 10 ms, 6 ms under the GEMM (60.0%), 4 ms alone
# Then native traces recorded with RANK, LOCAL_RANK and WORLD_SIZE (or Open MPI's) set.
echo "ranks:"
R=$ROOT/tests/data/kineto/ranks
K=$ROOT/tests/data/kineto
CHECK=$ROOT/tests/cases/analyze_check.py
py() { python3 -c "import json,sys; a=json.load(sys.stdin); print($1)"; }

# the classification: per kernel name, in the analysis; nsys's kernel summary keeps them
j0=$($GS analyze --format json "$R/rank0.json")
eq "ranks: rank 0 analyze exit 0" 0 $?
eq "ranks: rank 0 parts per step (gemm alone 8 ms, all-reduce alone 6 ms, launches 10 us)" \
	"8000000 6000000 10000 5990000 | 8000000 6000000 10000 5990000" \
	"$(printf '%s' "$j0" | py "' | '.join('%d %d %d %d' % (s['parts_ns']['gpu_compute'], s['parts_ns']['gpu_communication'], s['parts_ns']['host_launch'], s['parts_ns']['other']) for s in a['steps'])")"
eq "ranks: rank 0 breakdown (communication its own class, last)" \
	"gpu_compute:0.4 gpu_transfer:0 host_sync:0 host_launch:0.0005 input_pipeline:0 host_compute:0 other:0.2995 gpu_communication:0.3" \
	"$(printf '%s' "$j0" | py "' '.join('%s:%g' % kv for kv in a['verdict']['breakdown'].items())")"
eq "ranks: rank 0 comm/comp overlap (HTA): 2 kernels, 20 ms, 8 ms overlapped, 40.0%" \
	"0 0 2 20000000 8000000 40.0" \
	"$(printf '%s' "$j0" | py "' '.join(str(x) for x in (lambda c: (c['rank'], c['device'], c['kernels'], c['communication_ns'], c['overlap_ns'], round(c['overlap_pct'], 3)))(a['communication'][0]))")"
eq "ranks: rank 0 communication-bound first (saves the 6 ms alone), dominant-kernels without NCCL" \
	"communication-bound:gpu_communication:high:6.0:40.0:0.5 dominant-kernels:gpu_compute:low:0.0:ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn" \
	"$(printf '%s' "$j0" | py "' '.join([(lambda f: '%s:%s:%s:%s:%s:%s' % (f['id'], f['class'], f['severity'], round(f['saving_ms_per_step'], 6), '%.1f' % f['evidence']['overlap_pct'], f['evidence']['communication_share']))(a['findings'][0]), (lambda f: '%s:%s:%s:%s:%s' % (f['id'], f['class'], f['severity'], f['saving_ms_per_step'], '/'.join(t['name'] for t in f['evidence']['top'])))(a['findings'][1])])")"
j1=$($GS analyze --format json "$R/rank1.json")
eq "ranks: rank 1 overlap 60.0%, no communication-bound finding (over half overlapped)" \
	"1 1 60.0 dominant-kernels" \
	"$(printf '%s' "$j1" | py "'%d %d %s %s' % (a['communication'][0]['rank'], a['communication'][0]['device'], round(a['communication'][0]['overlap_pct'], 3), ' '.join(f['id'] for f in a['findings']))")"
for r in 0 1; do
	out=$(python3 "$CHECK" "$GS" "$R/rank$r.json" 2>&1)
	eq "ranks: rank $r schema, sums and step_sum agree ($out)" 0 $?
done
t=$(COLUMNS=100 LC_ALL=C $GS analyze "$R/rank0.json")
has "ranks: text breakdown has gpu_communication" "  gpu_communication  30.0%" "$t"
has "ranks: text communication section" "  pid 100 device 0: 10.0 ms in 2 kernels, 40.0% overlapped" "$t"
has "ranks: text finding" $' 1. [high] communication-bound (gpu_communication),\n    saves ~6000.0 us per step (30.0% of the mean step)' "$t"
has "ranks: advice names DDP's bucket size" "bucket_cap_mb" "$t"
eq "ranks: text fitted to 100 columns" 0 "$(printf '%s\n' "$t" | awk 'length > 100' | wc -l)"
hasnt "ranks: no communication in a trace without NCCL kernels" '"communication"' "$($GS analyze --format json "$K/hand.json")"
hasnt "ranks: no gpu_communication class either" 'gpu_communication' "$($GS analyze "$K/hand.json")"
s=$($GS stats "$R/rank0.json")
has "ranks: stats overview: a communication line under GPU utilization" \
	"Communication: GPU 0 20.000 ms in NCCL kernels (71.4% of busy), 40.0% overlapped by computation" "$s"
k=$($GS stats -r cuda_gpu_kern_sum --format csv "$R/rank1.json")
has "ranks: cuda_gpu_kern_sum keeps the NCCL kernel as nsys does" \
	'20000000,2,10000000.0,10000000.0,10000000,10000000,0.0,ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)' "$k"

# several traces: given in any order, sorted by the trace's rank
m=$($GS analyze --format json "$R/rank1.json" "$R/rank0.json")
eq "ranks: two ranks, exit 0" 0 $?
eq "ranks: per-rank table (rank, from, steps, median, busy, compute, comm, overlap, top finding)" \
	"0 trace 2 20.0 70.0 8.0 10.0 40.0 communication-bound | 1 trace 2 24.0 66.667 12.0 10.0 60.0 dominant-kernels" \
	"$(printf '%s' "$m" | py "' | '.join('%d %s %d %s %s %s %s %s %s' % (r['rank'], r['rank_from'], r['steps'], round(r['median_step_ms'], 3), round(r['gpu_busy_pct'], 3), round(r['compute_ms_per_step'], 3), round(r['communication_ms_per_step'], 3), round(r['overlap_pct'], 3), r['top_finding']) for r in a['ranks'])")"
eq "ranks: slowest rank 1, 20.0% slower than the median rank 0: a straggler (high)" \
	"1 rank1.json 0 20.0 True high 5.0" \
	"$(printf '%s' "$m" | py "(lambda s: '%d %s %d %s %s %s %s' % (s['rank'], s['file'].split('/')[-1], s['median_rank'], round(s['slower_pct'], 3), s['straggler'], s['severity'], s['straggler_threshold_pct']))(a['slowest'])")"
eq "ranks: the slowest rank's analysis follows" "gpuscope.analyze-ranks/1 gpuscope.analyze/1 rank1.json 24.0" \
	"$(printf '%s' "$m" | py "'%s %s %s %s' % (a['schema'], a['slowest_analysis']['schema'], a['slowest_analysis']['trace'].split('/')[-1], round(a['slowest_analysis']['verdict']['step_time_ms'], 3))")"
t=$(cd "$R" && COLUMNS=100 LC_ALL=C $GS analyze rank0.json rank1.json)
has "ranks: text table row" "     1  rank1.json      2     24.000     66.7%        12.000     10.000    60.0%" "$t"
has "ranks: text slowest" "Slowest: rank 1 (rank1.json): median step 24.000 ms, 20.0% slower than the median rank 0" "$t"
has "ranks: text per-rank verdicts" "  rank 0: primary gpu_compute; top finding [high] communication-bound, saves ~6.000 ms per step" "$t"
has "ranks: then the slowest rank's analysis" "gpuscope analyze rank1.json" "$t"
eq "ranks: text fitted to 100 columns" 0 "$(printf '%s\n' "$t" | awk 'length > 100' | wc -l)"
$GS analyze --fail-on high "$R/rank1.json" >/dev/null
eq "ranks: --fail-on high, rank 1 alone: exit 0 (a low finding)" 0 $?
$GS analyze --fail-on high "$R/rank1.json" "$R/rank1.json" >/dev/null 2>"$T/dup.err"
eq "ranks: --fail-on high, rank 1 twice: exit 0 (equal steps, no straggler)" 0 $?
has "ranks: a rank given twice is warned about" "rank 1 twice" "$(cat "$T/dup.err")"
$GS analyze --fail-on high "$R/rank1.json" "$R/rank0.json" >/dev/null
eq "ranks: --fail-on high over both ranks: exit 3" 3 $?
# a trace without a rank takes its position among the files
m=$($GS analyze --format json "$K/hand.json" "$R/rank1.json")
eq "ranks: rank from the position when the trace has none" "0:position 1:trace" \
	"$(printf '%s' "$m" | py "' '.join('%d:%s' % (r['rank'], r['rank_from']) for r in a['ranks'])")"
$GS analyze "$R/rank0.json" "$T/none.json" >/dev/null 2>&1
eq "ranks: a missing trace among several: exit 1" 1 $?
$GS analyze >/dev/null 2>&1
eq "ranks: no trace: exit 2" 2 $?

# native traces: profile stores the rank it ran as (SESSION keys 11-13)
NOENV="env -u RANK -u LOCAL_RANK -u WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_LOCAL_RANK -u OMPI_COMM_WORLD_SIZE -u SLURM_PROCID -u SLURM_LOCALID -u SLURM_NTASKS"
for r in 0 1; do
	$NOENV RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 $GS profile -t nvtx -o "$T/run_%q{RANK}" "$P/nvtx_threads" 1 1 >/dev/null 2>&1
	eq "ranks: profile as rank $r, exit 0" 0 $?
done
has "ranks: info shows the rank" "rank:        1 of 2, local rank 1" "$($GS info "$T/run_1.gst")"
has "ranks: dump shows the session keys" "k11=1 k12=1 k13=2" "$($GS dump "$T/run_1.gst")"
m=$($GS analyze --format json "$T/run_1.gst" "$T/run_0.gst")
eq "ranks: native ranks from the traces, sorted" "0:trace:run_0.gst 1:trace:run_1.gst" \
	"$(printf '%s' "$m" | py "' '.join('%d:%s:%s' % (r['rank'], r['rank_from'], r['file'].split('/')[-1]) for r in a['ranks'])")"
$NOENV OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 $GS profile -t nvtx -o "$T/mpi" "$P/nvtx_threads" 1 1 >/dev/null 2>&1
has "ranks: Open MPI's rank when RANK is not set" "rank:        3 of 4" "$($GS info "$T/mpi.gst")"
$NOENV $GS profile -t nvtx -o "$T/single" "$P/nvtx_threads" 1 1 >/dev/null 2>&1
hasnt "ranks: no rank line without the variables" "rank:" "$($GS info "$T/single.gst")"
hasnt "ranks: no rank keys either" "k11=" "$($GS dump "$T/single.gst" | head -3)"

# native traces of the same two ranks (bench/gen_trace -k: CUPTI's records through the
# assembler's writers), the all-reduce named as CUPTI reports it, mangled: classified once
# demangled, the same table
GEN=$ROOT/$BUILD_DIR/bench/gen_trace
"$GEN" -k 0 "$T/g0.gst" && "$GEN" -k 1 "$T/g1.gst"
eq "ranks: gen_trace -k 0 and 1, exit 0" 0 $?
m=$($GS analyze --format json "$T/g1.gst" "$T/g0.gst")
eq "ranks: native per-rank table as the PyTorch profiler traces'" \
	"0 trace 2 20.0 70.0 8.0 10.0 40.0 communication-bound | 1 trace 2 24.0 66.667 12.0 10.0 60.0 dominant-kernels" \
	"$(printf '%s' "$m" | py "' | '.join('%d %s %d %s %s %s %s %s %s' % (r['rank'], r['rank_from'], r['steps'], round(r['median_step_ms'], 3), round(r['gpu_busy_pct'], 3), round(r['compute_ms_per_step'], 3), round(r['communication_ms_per_step'], 3), round(r['overlap_pct'], 3), r['top_finding']) for r in a['ranks'])")"
eq "ranks: native slowest rank 1, 20.0% slower" "1 0 20.0 True" \
	"$(printf '%s' "$m" | py "(lambda s: '%d %d %s %s' % (s['rank'], s['median_rank'], round(s['slower_pct'], 3), s['straggler']))(a['slowest'])")"
has "ranks: the mangled NCCL kernel demangled in the kernel summary" \
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>*)" "$($GS stats -r cuda_gpu_kern_sum "$T/g0.gst")"
out=$(python3 "$CHECK" "$GS" "$T/g0.gst" 2>&1)
eq "ranks: native rank 0 schema, sums and step_sum agree ($out)" 0 $?
