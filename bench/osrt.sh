#!/usr/bin/env bash
# bench/osrt.sh: what --trace osrt adds to calls it wraps but does not record (shorter than
# the 1 us threshold): an uncontended mutex lock+unlock pair and a 0-byte pipe read, with no
# tool and under `gpuscope profile -t osrt --sample none`, runs alternating. Prints the median
# and range over runs of each run's median, and the difference.
#   usage: bench/osrt.sh [BUILD_DIR]     (env: RUNS=7 N=2000000 REPS=7)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
P=$BUILD/tests/programs
RUNS=${RUNS:-7} N=${N:-2000000} REPS=${REPS:-7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }
for _ in $(seq "$RUNS"); do
	"$P/osrt_calls" "$N" "$REPS" >>"$tmp/none"
	"$GS" profile -f -o "$tmp/o" -t osrt --sample none "$P/osrt_calls" "$N" "$REPS" 2>/dev/null >>"$tmp/with"
done
for k in mutex read0; do
	read -r a lo hi < <(awk -v k=$k '$1 == k { print $2 }' "$tmp/none" | med)
	read -r b blo bhi < <(awk -v k=$k '$1 == k { print $2 }' "$tmp/with" | med)
	printf '%-6s no tool %6.2f ns [%.2f-%.2f]   osrt %6.2f ns [%.2f-%.2f]   +%.2f ns (%.2fx)\n' \
		"$k" "$a" "$lo" "$hi" "$b" "$blo" "$bhi" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
done
