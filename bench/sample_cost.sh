#!/usr/bin/env bash
# bench/sample_cost.sh: what CPU sampling (--sample cpu, the default, 1 kHz of CPU time) costs a
# CPU-bound Python program with a deep stack (bench/sample_cpu.py: 40 Python frames), against
# the same program under `gpuscope profile --sample none`, runs alternating. Prints the median
# and range of the loop's seconds for each, the ratio, the samples taken, and the cost per
# sample ((with - without) / samples). A third variant runs without samples but with
# PYTHONPERFSUPPORT=1 (which profile sets when sampling): what CPython's perf trampolines cost.
#   usage: bench/sample_cost.sh [BUILD_DIR]     (env: RUNS=7 TURNS=400 PY=python3)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
RUNS=${RUNS:-7} TURNS=${TURNS:-400} PY=${PY:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'; }
for _ in $(seq "$RUNS"); do
	"$GS" profile -f -o "$tmp/n" -t nvtx --sample none "$PY" bench/sample_cpu.py "$TURNS" 2>/dev/null >>"$tmp/none"
	PYTHONPERFSUPPORT=1 "$GS" profile -f -o "$tmp/m" -t nvtx --sample none "$PY" bench/sample_cpu.py "$TURNS" 2>/dev/null >>"$tmp/maps"
	"$GS" profile -f -o "$tmp/s" -t nvtx "$PY" bench/sample_cpu.py "$TURNS" 2>/dev/null >>"$tmp/cpu"
	"$GS" info "$tmp/s.gst" | awk '/cpu samples/ { print $3 }' >>"$tmp/nsamples"
done
read -r a lo hi < <(med <"$tmp/none")
read -r b blo bhi < <(med <"$tmp/cpu")
read -r c clo chi < <(med <"$tmp/maps")
read -r ns _ _ < <(med <"$tmp/nsamples")
printf 'python %s, %s turns, %s runs each\n' "$("$PY" -V 2>&1)" "$TURNS" "$RUNS"
printf -- '--sample none, PYTHONPERFSUPPORT=1 (perf trampolines, no samples) %.3f s [%.3f-%.3f]   %.4fx\n' \
	"$c" "$clo" "$chi" "$(awk -v a="$a" -v b="$c" 'BEGIN { print b / a }')"
printf -- '--sample none %.3f s [%.3f-%.3f]   --sample cpu %.3f s [%.3f-%.3f]   %.4fx   %.0f samples   %.1f us per sample\n' \
	"$a" "$lo" "$hi" "$b" "$blo" "$bhi" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')" "$ns" \
	"$(awk -v a="$a" -v b="$b" -v n="$ns" 'BEGIN { print (n > 0 ? (b - a) * 1e6 / n : 0) }')"
