#!/usr/bin/env bash
# tests/gpu/cupti_release.sh: gpuscope with a CUPTI release other than the toolkit's it was built
# with (format/cupti_layout.h: records of 13.0 to 13.5 are decoded). CUPTI=DIR names a folder
# holding that release's libcupti.so.13, libnvperf_host.so and libnvperf_target.so (from the
# nvidia-cuda-cupti wheel); it goes first in LD_LIBRARY_PATH, ahead of gpuscope's RUNPATH.
# Runs the CUDA programs (tests/gpu/cuda.sh: the records decoded exactly as with 13.0) and, with
# a release of 13.4 or newer, the kernel metrics against ncu with the L2 reset before each
# pass (tests/gpu/kmetrics.sh, judged against `ncu --cache-control all`).
# PARTS=mix runs a PyTorch program, which records through its own CUPTI, with --kernel-metrics
# and this release's folder first in LD_LIBRARY_PATH (the mix that crashed before nvperf.c).
# PARTS=sass measures the FMA loop with the SASS counts kept, the L2 reset and not.
#   usage: CUPTI=DIR tests/gpu/cupti_release.sh [BUILD_DIR]   env: PARTS="cuda kmetrics mix sass", OUT
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
: "${CUPTI:?CUPTI=DIR: the folder of the CUPTI release to run with}"
PARTS=${PARTS:-cuda kmetrics}
OUT=${OUT:-$(mktemp -d)}
GS=$PWD/$BUILD/bin/gpuscope
T=$(mktemp -d)
# which CUPTI a gpuscope run loads, by the version it writes into its CUPTI ring
cat >"$T/one.cu" <<'EOF'
__global__ void one(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() { int *p; cudaMalloc(&p, 256); one<<<1, 64>>>(p); cudaDeviceSynchronize(); return 0; }
EOF
nvcc -O2 -arch=sm_90 -o "$T/one" "$T/one.cu"
LD_LIBRARY_PATH=$CUPTI${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$GS" profile -f -o "$T/one" "$T/one" 2>"$T/one.err"
v=$("$GS" dump --format jsonl "$T/one.gst" | grep -o '"cupti_version":[0-9]*' | sort -u | head -1 | cut -d: -f2)
echo "# CUPTI loaded: ${v:-none} ($(grep -c 'cannot decode' "$T/one.err") 'cannot decode' warnings)"
between "the run loaded the CUPTI of $CUPTI (a release after 13.0)" 130100 999999 "$v"
k=$("$GS" stats -r cuda_gpu_kern_sum --format csv "$T/one.gst" 2>/dev/null | grep -c ',1,.*,one(int')
eq "its one kernel decoded, by name (version ${v:-none})" 1 "$k"

case " $PARTS " in *" cuda "*)
	mkdir -p "$OUT/cuda"
	LD_LIBRARY_PATH=$CUPTI${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} OUT=$OUT/cuda bash tests/gpu/cuda.sh "$BUILD" 2>&1 | tee "$OUT/cuda.txt" >"$T/cuda.txt"
	grep -E '^# |FAIL|passed' "$T/cuda.txt" | tail -30
	r=$(tail -1 "$T/cuda.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
	PASS=$((PASS + ${r% *})); FAIL=$((FAIL + ${r#* }))
	;;
esac
case " $PARTS " in *" kmetrics "*)
	GS_CUPTI=$CUPTI KM_OVERHEAD=0 OUT=$OUT bash tests/gpu/kmetrics.sh "$BUILD" 2>&1 | tee "$OUT/kmetrics.txt" >"$T/km.txt"
	grep -E '^# |passed|failed' "$T/km.txt" | tail -30
	r=$(tail -1 "$T/km.txt" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/p')
	PASS=$((PASS + ${r% *})); FAIL=$((FAIL + ${r#* }))
	;;
esac
# The mix that crashed (session 4, H100): PyTorch loads its own CUPTI through libtorch's RPATH,
# this release's folder is first in LD_LIBRARY_PATH, and CUPTI's profiler loads
# libnvperf_host.so by its bare name. gpuscope loads the copy beside the CUPTI that records
# (src/collector/cuda/nvperf.c): the run ends as without gpuscope, its launches measured.
case " $PARTS " in *" mix "*)
	LD_LIBRARY_PATH=$CUPTI${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUSCOPE_DEBUG=1 "$GS" profile -f -o "$T/mix" \
		--kernel-metrics --kernel-skip=0 --kernel-count=4 -- python3 tests/gpu/km_convt.py 16 >"$T/mix.out" 2>"$T/mix.err"
	eq "mix: torch's CUPTI with another release's folder first: exit 0" 0 $?
	grep -o 'recording CUDA through CUPTI [0-9]*' "$T/mix.err" | head -1 | sed 's/^/# /'
	mv=$("$GS" dump --format jsonl "$T/mix.gst" 2>/dev/null | grep -o '"cupti_version":[0-9]*' | sort -u | head -1 | cut -d: -f2)
	eq "mix: the run recorded through torch's CUPTI, not $CUPTI's" 1 "$([ -n "$mv" ] && [ "$mv" != "$v" ] && echo 1 || echo 0)"
	n=$("$GS" stats -r kernel_metrics --format csv "$T/mix.gst" 2>/dev/null | tail -n +2 | grep -c .)
	eq "mix: 4 launches measured" 4 "$n"
	eq "mix: no note of another libnvperf_host.so" "" "$(grep 'libnvperf_host.so was loaded from' "$T/mix.err")"
	;;
esac
# Why the SASS instruction counts (the FLOPs of the roofline) read 0 under a CUPTI newer than
# the driver (session 4: CUPTI 13.5 on CUDA 13.0, with the L2 reset before each pass): the FMA
# loop measured with the counts kept (GPUSCOPE_KERNEL_METRICS_SASS=keep), with the reset and
# without. Prints each run's GFLOP/s; checks only that both runs measured their 2 launches.
case " $PARTS " in *" sass "*)
	nvcc -O2 -arch=sm_90 -o "$T/km_fma" tests/gpu/programs/km_fma.cu
	for cc in none all; do
		LD_LIBRARY_PATH=$CUPTI${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GPUSCOPE_KERNEL_METRICS_SASS=keep \
			"$GS" profile -f -o "$T/sass_$cc" --kernel-metrics --kernel-count=2 --kernel-filter=km_fma \
			--cache-control "$cc" -- "$T/km_fma" >"$T/sass_$cc.out" 2>"$T/sass_$cc.err"
		"$GS" stats -r kernel_metrics --format csv "$T/sass_$cc.gst" >"$T/sass_$cc.csv" 2>&1
		g=$(python3 -c 'import csv,sys; print(" ".join(r["GFLOP/s"] or "-" for r in csv.DictReader(open(sys.argv[1]))))' "$T/sass_$cc.csv")
		echo "# sass: --cache-control $cc: GFLOP/s of the launches: $g; $(grep -c 'L2 is not reset' "$T/sass_$cc.err") no-reset notes"
		eq "sass: --cache-control $cc: 2 launches measured" 2 "$(echo "$g" | wc -w)"
	done
	;;
esac
echo "cupti_release: $PASS passed, $FAIL failed"
