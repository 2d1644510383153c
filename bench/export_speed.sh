#!/usr/bin/env bash
# bench/export_speed.sh: how fast each exporter writes a large native trace, and how many
# bytes per event. It writes a synthetic trace of N events with bench/gen_trace (as
# bench/load.sh does), then RUNS rounds, each pinned to one core (taskset -c 0) under
# /usr/bin/time: the load alone and load + export through the exporters' test driver
# (tests/unit/test_export_b TYPE TRACE OUT), for every type. With OLD=DIR (another build,
# e.g. of the commit before a change) each round also runs that build's driver right after
# the new one, so that both see the same drift of a shared machine.
# Export time = median(load + export) - median(load), in wall time and in CPU time
# (user + sys: what one core spent, less sensitive to other work on the machine);
# events/s = N / export time. Prints a table and appends it, dated, to bench/RESULTS.md.
#   usage: bench/export_speed.sh [BUILD_DIR]
#   env: N=5000000, RUNS=3, TYPES="perfetto sqlite chrome csv json", OLD (a build dir),
#        OLD_TYPES="perfetto sqlite" (what OLD runs), TITLE (of the RESULTS.md section),
#        TMPDIR (the trace and the outputs: up to ~250 B per event)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GEN=$BUILD/bench/gen_trace
X=$BUILD/tests/unit/test_export_b
N=${N:-5000000} RUNS=${RUNS:-3} TYPES=${TYPES:-perfetto sqlite chrome csv json}
OLD=${OLD:-} OLD_TYPES=${OLD_TYPES:-perfetto sqlite}
TITLE=${TITLE:-exporting a large native trace ($TYPES)}
[ -x "$GEN" ] && [ -x "$X" ] || { echo "export_speed.sh: build first (make BUILD=$BUILD)" >&2; exit 1; }
[ -z "$OLD" ] || [ -x "$OLD/tests/unit/test_export_b" ] || { echo "export_speed.sh: no $OLD/tests/unit/test_export_b" >&2; exit 1; }
command -v taskset >/dev/null && [ -x /usr/bin/time ] || { echo "export_speed.sh: needs taskset and /usr/bin/time" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# median min max of the numbers on stdin
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
# once LABEL DRIVER ARGS...: one timed run; wall, CPU (user + sys) and peak RSS appended to
# $tmp/LABEL.{wall,cpu,rss}
once() {
	local label=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" taskset -c 0 "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "export_speed.sh: $* failed: $(cat "$tmp/err")" >&2; exit 1; }
	read -r w u s k <"$tmp/time"
	echo "$w" >>"$tmp/$label.wall"
	awk -v u="$u" -v s="$s" 'BEGIN { print u + s }' >>"$tmp/$label.cpu"
	echo "$k" >>"$tmp/$label.rss"
}
size() { du -sb "$1" | cut -f1; } # a file, or a folder of files (csv, json)

"$GEN" "$tmp/t.gst" "$N" >"$tmp/gen.out"
builds="new"
[ -n "$OLD" ] && builds="new old"
for _ in $(seq "$RUNS"); do
	for b in $builds; do
		d=$BUILD; [ "$b" = old ] && d=$OLD
		once "load.$b" "$d/tests/unit/test_export_b" load "$tmp/t.gst" "$tmp/none"
	done
	for t in $TYPES; do
		for b in $builds; do
			[ "$b" = old ] && case " $OLD_TYPES " in *" $t "*) ;; *) continue ;; esac
			d=$BUILD; [ "$b" = old ] && d=$OLD
			rm -rf "$tmp/out.$t.$b"
			once "$t.$b" "$d/tests/unit/test_export_b" "$t" "$tmp/t.gst" "$tmp/out.$t.$b"
			size "$tmp/out.$t.$b" >"$tmp/$t.$b.size"
			rm -rf "$tmp/out.$t.$b" # keep TMPDIR small
		done
	done
done

mib() { awk -v k="$(med <"$1" | cut -d' ' -f1)" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
rows=""
for b in $builds; do
	read -r lw lw0 lw1 < <(med <"$tmp/load.$b.wall")
	read -r lc lc0 lc1 < <(med <"$tmp/load.$b.cpu")
	rows="$rows| $b: load alone (with the joins, as the exporters get it) | $lw s ($lw0..$lw1) | $lc s ($lc0..$lc1) | | | $(mib "$tmp/load.$b.rss") |
"
	for t in $TYPES; do
		[ -f "$tmp/$t.$b.wall" ] || continue
		read -r w w0 w1 < <(med <"$tmp/$t.$b.wall")
		read -r c c0 c1 < <(med <"$tmp/$t.$b.cpu")
		sz=$(cat "$tmp/$t.$b.size")
		rows="$rows| $b: load + $t export | $w s ($w0..$w1) | $c s ($c0..$c1) | $(awk -v n="$N" -v w="$w" -v l="$lw" -v c="$c" -v lc="$lc" 'BEGIN { printf "wall %.2f s: %.2f M/s; CPU %.2f s: %.2f M/s", w - l, n / (w - l) / 1e6, c - lc, n / (c - lc) / 1e6 }') | $(awk -v s="$sz" -v n="$N" 'BEGIN { printf "%.0f MiB, %.1f B", s / 1048576, s / n }') | $(mib "$tmp/$t.$b.rss") |
"
	done
done

table=$(cat <<T
| build: command (one core) | wall: median (min..max) | CPU (user + sys): median (min..max) | export alone: time, events/s | output, per event | peak RSS |
|---|---|---|---|---|---|
${rows%
}
T
)
echo "$table"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo
	echo "## $(date -u +%Y-%m-%d): $TITLE"
	echo
	echo "Machine: $(nproc) cores, $cpu. Command: \`N=$N RUNS=$RUNS${OLD:+ OLD=<old build>} TYPES=\"$TYPES\" bench/export_speed.sh\`"
	echo "(the trace from \`gen_trace FILE $N\`: $(cut -d' ' -f3-8 "$tmp/gen.out"); each run pinned"
	echo "with \`taskset -c 0\`, timed by \`/usr/bin/time\`${OLD:+, the old and new builds alternated run by run}; export alone ="
	echo "median(load + export) - median(load); the trace read from the page cache, the outputs"
	echo "written under TMPDIR)."
	echo
	echo "$table"
} >>bench/RESULTS.md
