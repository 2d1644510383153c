#!/usr/bin/env bash
# tests/gpu/cuda.sh: build the CUDA programs of tests/gpu/programs with nvcc, profile each with
# gpuscope and compare the recorded CUDA activity with what the program did (check_cuda.py).
# Copies small traces to $OUT as fixture candidates.  usage: tests/gpu/cuda.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
G=/tmp/gpuscope-gpu-programs   # a neutral place: the traces record the programs' paths
T=$(mktemp -d)
mkdir -p "$G"
for f in tests/gpu/programs/*.cu; do
	n=$(basename "$f" .cu)
	nvcc -O2 -arch=sm_90 -Xcompiler -pthread -o "$G/$n" "$f" >"$T/$n.build" 2>&1 &
done
wait
pass=0 fail=0
for spec in "copies ./copies" "spin ./spin 2000 5" "threads ./threads" "streams ./streams" \
	"graph ./graph" "graph_nodes --cuda-graph-trace=node ./graph" "alloc ./alloc" \
	"fork ./fork_workers" "fork_after ./fork_workers after" "exec ./exec_child" \
	"profiler_range --capture-range=cudaProfilerApi ./profiler_range"; do
	set -- $spec
	c=$1; shift
	opts=()
	while [ "${1#--}" != "$1" ]; do opts+=("$1"); shift; done
	(cd "$G" && "$GS" profile -f -o "$T/$c" "${opts[@]}" "$@" >"$T/$c.out" 2>"$T/$c.err")
	echo "# $c: $(tail -1 "$T/$c.err")"
	"$GS" dump --format jsonl "$T/$c.gst" >"$T/$c.jsonl" 2>>"$T/$c.err"
	python3 tests/gpu/check_cuda.py "$c" "$T/$c.jsonl" "$T/$c.out" | tee "$T/$c.check"
	p=$(tail -1 "$T/$c.check" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
	pass=$((pass + ${p% *})); fail=$((fail + ${p#* }))
done
"$GS" info "$T/threads.gst" | sed -n '/events:/,/lost records/p'
"$GS" info "$T/copies.gst" | sed -n '/devices:/,/^$/p'
[ -n "${OUT:-}" ] && cp "$T/copies.gst" "$T/spin.gst" "$OUT/" 2>/dev/null
echo "cuda: $pass passed, $fail failed"
