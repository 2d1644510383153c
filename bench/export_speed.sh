#!/usr/bin/env bash
# bench/export_speed.sh: how fast the Perfetto and SQLite exporters write a large native trace,
# and how many bytes per event. It writes a synthetic trace of N events with bench/gen_trace
# (as bench/load.sh does), then, RUNS times each, pinned to one core (taskset -c 0) under
# /usr/bin/time: the load alone and load + export through the exporters'
# test driver (tests/unit/test_export_b TYPE TRACE OUT, until `gpuscope export` exists).
# Export time = median(load + export) - median(load); events/s = N / export time. Prints a
# table and appends it, dated, to bench/RESULTS.md.
#   usage: bench/export_speed.sh [BUILD_DIR]
#   env: N=5000000, RUNS=3, TYPES="perfetto sqlite", TMPDIR (the trace and the outputs: about
#        80 B per event)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GEN=$BUILD/bench/gen_trace
X=$BUILD/tests/unit/test_export_b
N=${N:-5000000} RUNS=${RUNS:-3} TYPES=${TYPES:-perfetto sqlite}
[ -x "$GEN" ] && [ -x "$X" ] || { echo "export_speed.sh: build first (make BUILD=$BUILD)" >&2; exit 1; }
command -v taskset >/dev/null && [ -x /usr/bin/time ] || { echo "export_speed.sh: needs taskset and /usr/bin/time" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
# timed LABEL CMD...: RUNS wall times of CMD into $tmp/LABEL.wall, peak RSS into .rss
timed() {
	local label=$1; shift
	: >"$tmp/$label.wall"; : >"$tmp/$label.rss"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o "$tmp/time" taskset -c 0 "$@" >/dev/null 2>"$tmp/err" ||
			{ echo "export_speed.sh: $* failed: $(cat "$tmp/err")" >&2; exit 1; }
		read -r w k <"$tmp/time"
		echo "$w" >>"$tmp/$label.wall"; echo "$k" >>"$tmp/$label.rss"
	done
}

"$GEN" "$tmp/t.gst" "$N" >"$tmp/gen.out"
timed load "$X" load "$tmp/t.gst" "$tmp/none"
read -r l_med l_min l_max < <(med <"$tmp/load.wall")
rows="| load alone (with the joins, as the exporters get it): \`test_export_b load\` | $l_med s ($l_min..$l_max) | | | $(awk -v k="$(med <"$tmp/load.rss" | cut -d' ' -f1)" 'BEGIN { printf "%.0f MiB", k / 1024 }') |
"
for t in $TYPES; do
	timed "$t" "$X" "$t" "$tmp/t.gst" "$tmp/out.$t"
	size=$(stat -c %s "$tmp/out.$t")
	read -r w_med w_min w_max < <(med <"$tmp/$t.wall")
	rows="$rows| load + $t export | $w_med s ($w_min..$w_max) | $(awk -v n="$N" -v w="$w_med" -v l="$l_med" 'BEGIN { printf "%.2f s: %.2f M/s", w - l, n / (w - l) / 1e6 }') | $(awk -v s="$size" -v n="$N" 'BEGIN { printf "%.0f MiB, %.1f B", s / 1048576, s / n }') | $(awk -v k="$(med <"$tmp/$t.rss" | cut -d' ' -f1)" 'BEGIN { printf "%.0f MiB", k / 1024 }') |
"
done

table=$(cat <<T
| command (one core) | wall: median (min..max) | export alone: time, events/s | output, per event | peak RSS |
|---|---|---|---|---|
${rows%
}
T
)
echo "$table"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo
	echo "## $(date -u +%Y-%m-%d): exporting a large native trace (Perfetto, SQLite)"
	echo
	echo "Machine: $(nproc) cores, $cpu. Command: \`N=$N RUNS=$RUNS bench/export_speed.sh\`"
	echo "(the trace from \`gen_trace FILE $N\`: $(cut -d' ' -f3-8 "$tmp/gen.out"); each run pinned"
	echo "with \`taskset -c 0\`, timed by \`/usr/bin/time\`; export alone = median(load + export) -"
	echo "median(load); the trace read from the page cache, the outputs written under TMPDIR)."
	echo
	echo "$table"
} >>bench/RESULTS.md
