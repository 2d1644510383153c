#!/usr/bin/env bash
# bench/apirec.sh: the collector's own work per CUDA API call it times, on the CPU: two clock
# reads and one CUpti_ActivityAPI record through src/collector/cuda/apirec.c (CUPTI's
# dispatch of the enter and exit callbacks, which needs the GPU, is not in it).
# tests/programs/cuda_apirec --time runs under `gpuscope profile --sample none`, one thread,
# 1 MiB chunks drained by the CLI as in a real session; per process the best of 5 blocks.
# Variants, RUNS processes each, alternating:
#   tsc        the collector's TSC clock, records without the lock (the default here)
#   tsc_lock   the TSC, each record taking its slot's lock (--lock: where membarrier is missing)
#   mono_lock  CLOCK_MONOTONIC (clock_gettime) and the lock: how each call was timed and
#              written before (cupti.c up to a6f6169)
# Prints per variant the median over processes (min..max) of the ns per call of the two
# clock reads alone and of the whole (reads + record), and the record's own share; last, what
# a call's stack costs (--cudabacktrace: cuda_apirec --time-stacks, RUNS processes).
#   usage: bench/apirec.sh [BUILD_DIR]     (env: RUNS=7 CALLS=2000000)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
P=$BUILD/tests/programs
RUNS=${RUNS:-7} CALLS=${CALLS:-2000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }
VARIANTS="tsc tsc_lock mono_lock"
for _ in $(seq "$RUNS"); do
	for v in $VARIANTS; do
		case $v in
		tsc) clock=tsc opt= ;;
		tsc_lock) clock=tsc opt=--lock ;;
		mono_lock) clock=monotonic opt=--lock ;;
		esac
		GPUSCOPE_CLOCK=$clock "$GS" profile -f -o "$tmp/o" --sample none "$P/cuda_apirec" $opt --time "$CALLS" \
			2>"$tmp/err" >>"$tmp/$v" || { cat "$tmp/err"; exit 1; }
		if grep -q "no membarrier" "$tmp/err"; then echo "no membarrier on this machine: tsc is tsc_lock"; fi
	done
done
printf '%-10s %-28s %-28s %s\n' variant "two clock reads, ns" "reads + record, ns" "record alone, ns"
for v in $VARIANTS; do
	read -r r rlo rhi < <(awk '{ print $2 }' "$tmp/$v" | med)
	read -r w wlo whi < <(awk '{ print $4 }' "$tmp/$v" | med)
	read -r d _ _ < <(awk '{ print $4 - $2 }' "$tmp/$v" | med)
	printf '%-10s %6.2f (%6.2f..%6.2f)        %6.2f (%6.2f..%6.2f)        %6.2f\n' "$v" "$r" "$rlo" "$rhi" "$w" "$wlo" "$whi" "$d"
done
# what --cudabacktrace adds to a call that took at least its threshold: the walk of the
# program's stack (3 frames of cuda_apirec, then libc's) and its record
for _ in $(seq "$RUNS"); do
	"$GS" profile -f -o "$tmp/o" --sample none "$P/cuda_apirec" --time-stacks $((CALLS / 10)) 2>"$tmp/err" >>"$tmp/stack" ||
		{ cat "$tmp/err"; exit 1; }
done
read -r k klo khi < <(awk '{ print $2 }' "$tmp/stack" | med)
printf 'stack record (--cudabacktrace, 5 frames): %.2f ns (%.2f..%.2f) per call\n' "$k" "$klo" "$khi"
