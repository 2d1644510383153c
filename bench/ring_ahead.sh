#!/usr/bin/env bash
# bench/ring_ahead.sh: what CUPTI's request for a buffer costs the thread that makes it, with the
# CUPTI ring's next chunks mapped ahead (GPUSCOPE_RING_AHEAD=4, the default) and without (0: each
# chunk's pages fault in at its first touch). Profiles tests/gpu/item_sync.py without its warm-up
# (200 steps) RUNS times each way, alternating, and prints each run's "Activity Buffer Request"
# overhead records (CUPTI's, in the trace): their durations and threads. On the GPU machine.
#   usage: bench/ring_ahead.sh [BUILD_DIR]   (env: RUNS=2)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
T=$(mktemp -d)
for k in $(seq 1 "${RUNS:-2}"); do
	for a in 4 0; do
		GPUSCOPE_RING_AHEAD=$a $GS profile -o "$T/r" -f -- python3 tests/gpu/item_sync.py 200 cold >/dev/null 2>&1 ||
			echo "run $k ahead $a: profile failed"
		printf 'ahead %s, run %s: ' "$a" "$k"
		$GS dump "$T/r.gst" | awk '/Activity Buffer Request/ { for (i = 1; i <= NF; i++) if ($i ~ /^(dur|tid)=/) printf "%s ", $i; printf "; " }'
		echo
	done
done
rm -rf "$T"
