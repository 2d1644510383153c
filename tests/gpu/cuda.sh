#!/usr/bin/env bash
# tests/gpu/cuda.sh: build the CUDA programs of tests/gpu/programs with nvcc, profile each with
# gpuscope and compare the recorded CUDA activity with what the program did (check_cuda.py).
# Packs every case's trace and output into $OUT/cuda_fixtures.tar.gz as fixture candidates.
#   usage: tests/gpu/cuda.sh [BUILD_DIR]   (env: CASES="syncs stream_reuse ...": those cases
#   only, without the torch.profiler and stack checks that follow them)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
G=/tmp/gpuscope-gpu-programs   # a neutral place: the traces record the programs' paths
T=$(mktemp -d)
mkdir -p "$G"
for f in tests/gpu/programs/*.cu; do
	n=$(basename "$f" .cu)
	nvcc -O2 -arch=sm_90 -Xcompiler -pthread -o "$G/$n" "$f" -lcuda >"$T/$n.build" 2>&1 &
done
wait
pass=0 fail=0
for spec in "copies ./copies" "spin ./spin 2000 5" "threads ./threads" "streams ./streams" "syncs ./syncs" \
	"syncs_callback GPUSCOPE_CUDA_API_TIMING=callback ./syncs" "syncs_gpu --cuda-api=none ./syncs" "syncs_bt_all --cudabacktrace=all:0 ./syncs" \
	"stream_reuse ./stream_reuse" \
	"contexts ./contexts" "contexts_range --capture-range=cudaProfilerApi ./contexts" \
	"graph ./graph" "graph_nodes --cuda-graph-trace=node ./graph" \
	"graph_late --capture-range=cudaProfilerApi ./graph late" \
	"graph_late_nodes --capture-range=cudaProfilerApi --cuda-graph-trace=node ./graph late" "alloc ./alloc" \
	"fork ./fork_workers" "fork_after ./fork_workers after" "exec ./exec_child" \
	"profiler_range --capture-range=cudaProfilerApi ./profiler_range" "phases ./phases" \
	"phases_nvtx --capture-range=nvtx:measure ./phases" "phases_window --delay=2 --duration=2 ./phases"; do
	set -- $spec
	c=$1; shift
	case " ${CASES:-$c} " in *" $c "*) ;; *) continue ;; esac
	opts=() envs=()
	while [ "${1#GPUSCOPE_}" != "$1" ]; do envs+=("$1"); shift; done
	while [ "${1#--}" != "$1" ]; do opts+=("$1"); shift; done
	(cd "$G" && env "${envs[@]}" "$GS" profile -f -o "$T/$c" "${opts[@]}" "$@" >"$T/$c.out" 2>"$T/$c.err")
	echo "# $c: $(tail -1 "$T/$c.err")"
	"$GS" dump --format jsonl "$T/$c.gst" >"$T/$c.jsonl" 2>>"$T/$c.err"
	python3 tests/gpu/check_cuda.py "$c" "$T/$c.jsonl" "$T/$c.out" | tee "$T/$c.check"
	p=$(tail -1 "$T/$c.check" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
	pass=$((pass + ${p% *})); fail=$((fail + ${p#* }))
	# gpuscope alone in the process: its own CUPTI calls (capture ranges switching kinds on
	# and off) must never be taken for another CUPTI user's
	if grep -q "holds CUPTI" "$T/$c.err"; then
		echo "  FAIL $c: gpuscope warned about its own CUPTI calls: $(grep "holds CUPTI" "$T/$c.err" | head -1)"
		fail=$((fail + 1))
	fi
	# a capture range that opened: no warning that it did not
	if grep -qE "capture range never opened|nothing was recorded in the capture range" "$T/$c.err"; then
		echo "  FAIL $c: warned that its capture range recorded nothing: $(grep -E "capture range" "$T/$c.err" | head -1)"
		fail=$((fail + 1))
	fi
done
if [ -n "${CASES:-}" ]; then
	echo "cuda: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
# torch.profiler inside a process gpuscope records: one warning naming it, the script unchanged
"$GS" profile -f -o "$T/second" python3 tests/gpu/torch_second_user.py >"$T/second.out" 2>"$T/second.err"
rc=$?
n=$("$GS" stats -r cuda_gpu_kern_sum --format json "$T/second.gst" 2>/dev/null | python3 -c 'import json,sys; print(sum(r["Instances"] for r in json.load(sys.stdin)["rows"]))')
w=$(grep -c "holds CUPTI in this process" "$T/second.err")
echo "# second CUPTI user: rc $rc, warnings $w, gpuscope kernels $n; $(tr '\n' ' ' <"$T/second.out")"
grep "holds CUPTI" "$T/second.err" | head -1
if [ "$rc" = 0 ] && [ "$w" = 1 ] && grep -q "adds 20" "$T/second.out" && grep -q done "$T/second.out" && [ "${n:-0}" -ge 21 ]; then
	echo "  ok   second CUPTI user: script unchanged, one warning, gpuscope keeps its kernels"; pass=$((pass + 1))
else
	echo "  FAIL second CUPTI user"; tail -5 "$T/second.err"; fail=$((fail + 1))
fi
# --cudabacktrace (default sync:80us): the three long waits of syncs.cu, each named by its
# caller, main (the static CUDA runtime's frames passed over)
"$GS" stats -r cuda_api_stack_sum --format csv -o "$T/syncs_st.csv" "$T/syncs.gst"
cut -c1-240 "$T/syncs_st.csv"
got=$(python3 -c 'import csv,sys
r = list(csv.DictReader(open(sys.argv[1], newline="")))
print(sorted(x["Name"] for x in r), sorted({x["Caller"] for x in r}))' "$T/syncs_st.csv")
if [ "$got" = "['cudaDeviceSynchronize', 'cudaEventSynchronize', 'cudaStreamSynchronize'] ['main']" ]; then
	echo "  ok   cuda_api_stack_sum: the three waits, each from main"; pass=$((pass + 1))
else
	echo "  FAIL cuda_api_stack_sum: the three waits, each from main: $got"; fail=$((fail + 1))
fi
"$GS" info "$T/threads.gst" | sed -n '/events:/,/lost records/p'
"$GS" info "$T/copies.gst" | sed -n '/devices:/,/^$/p'
# every case's trace and program output: candidates for tests/data/cuda/ (replayed in CI)
[ -n "${OUT:-}" ] && (cd "$T" && tar -czf "$OUT/cuda_fixtures.tar.gz" ./*.gst ./*.out)
echo "cuda: $pass passed, $fail failed"
