#!/usr/bin/env bash
# tests/gpu/memory.sh: gpuscope's device-memory records of PyTorch against torch's own
# accounting, under each of the caching allocator's back ends (tests/gpu/torch_memory.py):
# segments from cudaMalloc, expandable segments (cuMemCreate + cuMemMap) and the stream-ordered
# pool (cudaMallocAsync). memory_sum's Device peak must be torch's peak reserved bytes (the
# first two) or its peak allocated bytes (the pool: CUPTI records each cudaMallocAsync), and
# nothing may be left in use once the script freed everything and emptied the cache.
#   usage: tests/gpu/memory.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
# kind_field CSV KIND COLUMN: COLUMN of memory_sum's row of memory kind KIND
kind_field() {
	python3 -c 'import csv, sys
print(next((r[sys.argv[3]] for r in csv.DictReader(open(sys.argv[1], newline="")) if r["Memory Kind"] == sys.argv[2]), ""))' "$@"
}
for mode in default expandable async; do
	out=$($GS profile --sample none -o "$T/$mode" python3 tests/gpu/torch_memory.py $mode 2>"$T/$mode.err")
	eq "memory $mode: script ran" 0 $?
	echo "  torch: $out"
	$GS stats -r memory_sum -f csv -o "$T/$mode.csv" "$T/$mode.gst"
	grep ',Device,' "$T/$mode.csv" | sed 's/^/  gpuscope: /'
	j() { python3 -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$out"; }
	key=peak_reserved
	[ $mode = async ] && key=peak_allocated
	want=$(j $key)
	# MB of 10^6 bytes with three decimals: bytes / 1000, to the byte
	eq "memory $mode: Device peak in use is torch's $key ($want bytes)" \
		"$(awk -v b="$want" 'BEGIN { printf "%.3f", b / 1e6 }')" "$(kind_field "$T/$mode.csv" Device "Peak In Use (MB)")"
	eq "memory $mode: nothing in use at the end (torch reserved $(j end_reserved))" 0.000 \
		"$(kind_field "$T/$mode.csv" Device "In Use at End (MB)")"
	allocs=$(kind_field "$T/$mode.csv" Device Allocs) frees=$(kind_field "$T/$mode.csv" Device Frees)
	eq "memory $mode: as many releases as allocations ($allocs)" "$allocs" "$frees"
done
echo "memory: $PASS passed, $FAIL failed"
