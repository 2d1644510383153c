#!/usr/bin/env bash
# bench/run.sh: NVTX overhead and trace size. Prints a table and appends dated figures to
# bench/RESULTS.md: cost of a push+pop pair with no tool and with gpuscope attached (same
# program, same run), and bytes per range in the .gst file. CPU sampling (on by default) is
# turned off: these figures are of NVTX alone.
#   usage: bench/run.sh [BUILD_DIR]     (env: RUNS=5 N=2000000 REPS=7)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
P=$BUILD/tests/programs
RUNS=${RUNS:-5} N=${N:-2000000} REPS=${REPS:-7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }

# Alternate tool/no-tool runs so drift on the machine hits both alike.
: >"$tmp/none"; : >"$tmp/with"
lossy=0
for _ in $(seq "$RUNS"); do
	"$P/nvtx_pair" "$N" "$REPS" | awk '/^median/ { print $2 }' >>"$tmp/none"
	"$GS" profile --sample none -f -o "$tmp/pair" "$P/nvtx_pair" "$N" "$REPS" 2>"$tmp/pair.err" |
		awk '/^median/ { print $2 }' >>"$tmp/with"
	grep -qE ' 0 lost(\)|[,;])' "$tmp/pair.err" || { lossy=$((lossy + 1)); echo "warning: records lost: $(cat "$tmp/pair.err")" >&2; }
done
read -r n_med n_min n_max < <(med <"$tmp/none")
read -r w_med w_min w_max < <(med <"$tmp/with")

# Bytes per range: a tight loop of one name, and the demo's mixed ranges on two threads.
"$GS" profile --sample none -f -o "$tmp/loop" "$P/nvtx_loop" 10000000 2>/dev/null
loop_bytes=$(stat -c %s "$tmp/loop.gst")
"$GS" profile --sample none -f -o "$tmp/threads" "$P/nvtx_threads" 8 10000 2>/dev/null
thr_bytes=$(stat -c %s "$tmp/threads.gst")
thr_ranges=$((8 * 10000 * 3 + 1))
"$GS" profile --sample none -f -o "$tmp/demo" "$BUILD/examples/train_loop" 200 >/dev/null 2>&1
demo_bytes=$(stat -c %s "$tmp/demo.gst")
demo_ranges=$((200 * 6))

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
clock=$("$GS" info "$tmp/loop.gst" | sed -n 's/.*(clock: \(.*\))/\1/p')
ratio=$(awk -v a="$w_med" -v b="$n_med" 'BEGIN { printf "%.1f", a / b }')
bpr() { awk -v b="$1" -v r="$2" 'BEGIN { printf "%.2f", b / r }'; }

table=$(cat <<T
| measure | median | spread (min..max of run medians) |
|---|---|---|
| NVTX push+pop pair, no tool | $n_med ns | $n_min..$n_max ns |
| NVTX push+pop pair, gpuscope attached | $w_med ns | $w_min..$w_max ns |
| ratio gpuscope / no tool | ${ratio}x | |
| runs in which the drain fell behind and records were dropped (counted) | $lossy of $RUNS | |
| bytes per range, 10M ranges of one name (tight loop) | $(bpr "$loop_bytes" 10000000) B | |
| bytes per range, nvtx_threads 8x10000 (3 names, nested, 8 threads) | $(bpr "$thr_bytes" "$thr_ranges") B | |
| bytes per range, train_loop 200 steps (6 names, sleeps, 2 threads) | $(bpr "$demo_bytes" "$demo_ranges") B | |
T
)
echo "$table"
{
	echo
	echo "## $(date -u +%Y-%m-%d): NVTX overhead and trace size"
	echo
	echo "Machine: $(nproc) cores, $cpu; clock source: $clock. Command: \`make bench\` (bench/run.sh:"
	echo "RUNS=$RUNS runs alternating no tool / \`gpuscope profile\`, each \`nvtx_pair $N $REPS\`, the"
	echo "median of $REPS repetitions of $N pairs per run)."
	echo
	echo "$table"
} >>bench/RESULTS.md
