#!/usr/bin/env bash
# bench/walk_torch.sh: what CPU sampling's stack walks cost inside a PyTorch process (GPU
# machine): each workload of bench/gpu_overhead.py runs under `gpuscope profile
# --capture-range=cudaProfilerApi` with GPUSCOPE_DEBUG=1 (the collector prints its walks'
# count, mean and max time, mean depth, the page faults taken inside them and libunwind's
# object look-ups at exit), once per mode, RUNS rounds; one table row per process. The walks
# happen only inside the capture range. Modes: gpuscope (the default: the collector's own walk
# from the unwind tables, libunwind for the stacks it cannot describe), libunwind
# (GPUSCOPE_UNWINDER=libunwind), nowarm (libunwind without the collector's unwind thread:
# GPUSCOPE_UNWIND_WARM=0). CHECK=1 walks every stack both ways as well
# (GPUSCOPE_UNWIND_CHECK=1) and adds how many differed.
#   usage: bench/walk_torch.sh [BUILD_DIR]
#   env: RUNS=3 WORKLOADS="resnet50 mlp" MODES="gpuscope libunwind" CHECK=0
#        BENCH_STEPS, BENCH_BLOCKS (bench/gpu_overhead.py: a longer capture)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
RUNS=${RUNS:-3}
WL=${WORKLOADS:-resnet50 mlp}
MODES=${MODES:-gpuscope libunwind}
CHECK=${CHECK:-0}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "| workload | walk | walks | by gpuscope's walk | mean walk | max walk | frames per walk | page faults in walks | look-ups (from the list) | in look-ups per walk | compared, differing | on/off step |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for _ in $(seq "$RUNS"); do
	for wl in $WL; do
		for m in $MODES; do
			case $m in
			gpuscope) env= ;;
			libunwind) env=GPUSCOPE_UNWINDER=libunwind ;;
			nowarm) env="GPUSCOPE_UNWINDER=libunwind GPUSCOPE_UNWIND_WARM=0" ;;
			*) echo "unknown mode $m" >&2; exit 2 ;;
			esac
			env $env GPUSCOPE_UNWIND_CHECK=$CHECK GPUSCOPE_DEBUG=1 "$GS" profile -f -o "$T/t" --capture-range=cudaProfilerApi \
				python3 bench/gpu_overhead.py gpuscope "$wl" >"$T/out" 2>"$T/err"
			s=$(sed -n 's/.*sampling: \([0-9]*\) stacks walked (\([0-9]*\) by gpuscope.s walk.*mean \([0-9.]*\) us, max \([0-9.]*\) us, [0-9]* over 50 us, \([0-9.]*\) frames, \([0-9]*\) page faults.*, \([0-9]*\) object look-ups (\([0-9]*\) from the collector.s list), \([0-9.]*\) us in.*/\1 | \2 | \3 us | \4 us | \5 | \6 | \7 (\8) | \9 us/p' "$T/err" | tail -1)
			c=$(sed -n 's/.*unwind check: \([0-9]*\) walks compared with libunwind.s, \([0-9]*\) differ$/\1, \2/p' "$T/err" | tail -1)
			r=$(python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline()); print("%+.1f%%" % (100 * (r["on_ms"] / r["off_ms"] - 1)))' "$T/out" 2>/dev/null)
			echo "| $wl | $m | ${s:-no figures} | ${c:--} | ${r:-?} |"
			[ "$CHECK" = 1 ] && grep -E 'first walk given|frame [0-9]+: .* != ' "$T/err" | head -6 | sed 's/^/    /'
		done
	done
done
