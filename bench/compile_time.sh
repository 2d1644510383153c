#!/usr/bin/env bash
# bench/compile_time.sh: what `gpuscope profile` adds to a program's torch.compile start-up:
# tests/gpu/torch_compile.py MODE (compile: Inductor's default; autotune: max-autotune, which
# benchmarks GEMM choices and starts compile workers and tools as child processes), each run with
# empty Inductor and Triton caches so that it compiles everything, wall time of the whole program.
# Variants, RUNS each, alternating: none (no profiler), gpuscope (the defaults: cuda,nvtx and CPU
# sampling of every process), nosample (gpuscope --sample none). Prints per variant the median
# wall time (min..max) and the ratio to none.
#   usage: bench/compile_time.sh [BUILD_DIR]     (env: RUNS=3, MODES="compile autotune")
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$PWD/$BUILD/bin/gpuscope
RUNS=${RUNS:-3}
MODES=${MODES:-compile autotune}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }
run() { # VARIANT MODE: one run with fresh caches; appends its wall time in s
	local c=$tmp/cache.$1.$2
	rm -rf "$c"
	local pre=()
	case $1 in
	gpuscope) pre=("$GS" profile -f -o "$tmp/o") ;;
	nosample) pre=("$GS" profile -f --sample none -o "$tmp/o") ;;
	esac
	local t0 t1
	t0=$(date +%s.%N)
	TORCHINDUCTOR_CACHE_DIR=$c/inductor TRITON_CACHE_DIR=$c/triton \
		"${pre[@]}" python3 tests/gpu/torch_compile.py "$2" gpuscope >"$tmp/out" 2>"$tmp/err" ||
		{ echo "$1 $2 failed:" >&2; tail -3 "$tmp/err" >&2; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$tmp/$1.$2"
}
for _ in $(seq "$RUNS"); do
	for m in $MODES; do
		for v in none gpuscope nosample; do
			run "$v" "$m"
		done
	done
done
printf '%-9s %-22s %-22s %-22s %s\n' mode "none, s" "gpuscope, s" "--sample none, s" "gpuscope / none, --sample none / none"
for m in $MODES; do
	read -r n0 n1 n2 <<<"$(med <"$tmp/none.$m")"
	read -r g0 g1 g2 <<<"$(med <"$tmp/gpuscope.$m")"
	read -r s0 s1 s2 <<<"$(med <"$tmp/nosample.$m")"
	printf '%-9s %-22s %-22s %-22s %.2f, %.2f\n' "$m" "$n0 ($n1..$n2)" "$g0 ($g1..$g2)" "$s0 ($s1..$s2)" \
		"$(awk -v a="$g0" -v b="$n0" 'BEGIN { print a / b }')" "$(awk -v a="$s0" -v b="$n0" 'BEGIN { print a / b }')"
done
