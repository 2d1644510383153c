#!/usr/bin/env bash
# bench/sample_walk.sh: what one CPU sample costs a process shaped like PyTorch's
# (tests/programs/host_jit: LIBS shared libraries loaded, a 40-deep stack with 40 JIT frames):
# the program under `gpuscope profile --sample none` and with sampling (the default), runs
# alternating; prints the loop's median seconds and range for each, the samples taken, and
# the cost per sample ((with - without) / samples). Builds in each BUILD_DIR given are run
# in turn in the same rounds (e.g. an old and a new build).
#   usage: bench/sample_walk.sh BUILD_DIR...     (env: RUNS=5 LIBS=400 TURNS=40)
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5} LIBS=${LIBS:-400} TURNS=${TURNS:-40}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

scripts/system_libs.sh "$LIBS" >"$tmp/libs"
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'; }
for _ in $(seq "$RUNS"); do
	for b in "$@"; do
		k=$(echo "$b" | tr / _)
		"$b/bin/gpuscope" profile -f -o "$tmp/n" -t nvtx --sample none "$b/tests/programs/host_jit" 40 "$TURNS" "$tmp/libs" 2>/dev/null >>"$tmp/none.$k"
		"$b/bin/gpuscope" profile -f -o "$tmp/s" -t nvtx "$b/tests/programs/host_jit" 40 "$TURNS" "$tmp/libs" 2>/dev/null >>"$tmp/cpu.$k"
		"$b/bin/gpuscope" info "$tmp/s.gst" | awk '/cpu samples/ { gsub(",", "", $3); print $3 }' >>"$tmp/ns.$k"
	done
done
echo "$(head -1 "$tmp/none.$(echo "$1" | tr / _)" | cut -d' ' -f1) libraries loaded, depth 40 (40 JIT frames), $TURNS turns, $RUNS runs"
for b in "$@"; do
	k=$(echo "$b" | tr / _)
	read -r a lo hi < <(cut -d' ' -f2 "$tmp/none.$k" | med)
	read -r s slo shi < <(cut -d' ' -f2 "$tmp/cpu.$k" | med)
	read -r ns _ _ < <(med <"$tmp/ns.$k")
	printf '%-14s --sample none %.3f s [%.3f-%.3f]   sampling %.3f s [%.3f-%.3f]   %.3fx   %.0f samples   %.1f us per sample\n' \
		"$b" "$a" "$lo" "$hi" "$s" "$slo" "$shi" "$(awk -v a="$a" -v b="$s" 'BEGIN { print b / a }')" "$ns" \
		"$(awk -v a="$a" -v b="$s" -v n="$ns" 'BEGIN { print (n > 0 ? (b - a) * 1e6 / n : 0) }')"
done
