#!/usr/bin/env bash
# bench/load.sh: how fast gpuscope loads a large native trace, and with how much memory.
# For each N it writes a synthetic trace of N events with bench/gen_trace (a third kernels, a
# third cudaLaunchKernel calls, a third NVTX ranges; real CUPTI records), then runs each
# command RUNS times pinned to one core (taskset -c 0) under /usr/bin/time: wall seconds, CPU
# seconds (user + system: what other load on the machine disturbs least) and peak RSS
# (ru_maxrss). It also times reading the file's chunks alone (checksums and zstd,
# gen_trace -r): the floor under any load. Prints a table and appends it, dated, to
# bench/RESULTS.md.
#   usage: bench/load.sh [BUILD_DIR]
#   env: NS="5000000 20000000 50000000" (space-separated), RUNS=3,
#        CMDS="info;stats -r cuda_gpu_kern_sum,nvtx_sum;stats" (';'-separated gpuscope
#        arguments, the trace appended: the load alone, two nsys-style reports, the overview),
#        TMPDIR (where the traces go: about 7 B per event),
#        BASE=path/to/another/gpuscope BASE_LABEL=text: also time that build, alternating run by
#        run with this one, so that a slower moment of the machine hits both alike
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
GEN=$BUILD/bench/gen_trace
NS=${NS:-5000000 20000000 50000000} RUNS=${RUNS:-3} BASE=${BASE:-} BASE_LABEL=${BASE_LABEL:-base}
CMDS=${CMDS:-info;stats -r cuda_gpu_kern_sum,nvtx_sum;stats}
[ -x "$GS" ] && [ -x "$GEN" ] || { echo "load.sh: build first (make BUILD=$BUILD)" >&2; exit 1; }
command -v taskset >/dev/null && [ -x /usr/bin/time ] || { echo "load.sh: needs taskset and /usr/bin/time" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-load.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# median, min, max of the numbers on stdin
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }

rows=""
for n in $NS; do
	"$GEN" "$tmp/t.gst" "$n" >"$tmp/gen.out"
	size=$(stat -c %s "$tmp/t.gst")
	: >"$tmp/floor"
	for _ in $(seq "$RUNS"); do
		taskset -c 0 "$GEN" -r "$tmp/t.gst" | awk '{ print $6 }' >>"$tmp/floor"
	done
	read -r f_med f_min f_max < <(med <"$tmp/floor")
	rows="$rows| $n | read chunks only (checksums, zstd): \`gen_trace -r\` | $f_med s ($f_min..$f_max) | | $(awk -v n="$n" -v s="$f_med" 'BEGIN { printf "%.2f M", n / s / 1e6 }') | | |
"
	IFS=';' read -r -a cmds <<<"$CMDS"
	for c in "${cmds[@]}"; do
		for who in ${BASE:+base} this; do : >"$tmp/$who.wall"; : >"$tmp/$who.cpu"; : >"$tmp/$who.rss"; done
		for _ in $(seq "$RUNS"); do
			for who in ${BASE:+base} this; do
				bin=$GS
				[ "$who" = base ] && bin=$BASE
				# shellcheck disable=SC2086
				/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" taskset -c 0 "$bin" $c "$tmp/t.gst" >/dev/null 2>"$tmp/err" ||
					{ echo "load.sh: $bin $c failed: $(cat "$tmp/err")" >&2; exit 1; }
				read -r w k u s <"$tmp/time"
				echo "$w" >>"$tmp/$who.wall"
				awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f\n", u + s }' >>"$tmp/$who.cpu"
				echo "$k" >>"$tmp/$who.rss"
			done
		done
		for who in ${BASE:+base} this; do
			label="\`gpuscope $c\`"
			[ "$who" = base ] && label="$label ($BASE_LABEL)"
			read -r w_med w_min w_max < <(med <"$tmp/$who.wall")
			read -r c_med c_min c_max < <(med <"$tmp/$who.cpu")
			read -r k_med k_min k_max < <(med <"$tmp/$who.rss")
			rows="$rows| $n | $label | $w_med s ($w_min..$w_max) | $c_med s ($c_min..$c_max) | $(awk -v n="$n" -v s="$w_med" 'BEGIN { printf "%.2f M", n / s / 1e6 }') | $(awk -v k="$k_med" 'BEGIN { printf "%.0f MiB", k / 1024 }') ($(awk -v a="$k_min" -v b="$k_max" 'BEGIN { printf "%.0f..%.0f", a / 1024, b / 1024 }')) | $(awk -v n="$n" -v k="$k_med" 'BEGIN { printf "%.1f B", k * 1024 / n }') |
"
		done
	done
	rows="$rows| $n | trace file ($(cut -d' ' -f3-12 "$tmp/gen.out")) | $(awk -v s="$size" 'BEGIN { printf "%.0f MiB", s / 1048576 }') | | | | $(awk -v n="$n" -v s="$size" 'BEGIN { printf "%.1f B", s / n }') |
"
done

table=$(cat <<T
| events | command (one core) | wall: median (min..max) | CPU: median (min..max) | events/s (wall) | peak RSS: median (min..max) | per event |
|---|---|---|---|---|---|---|
${rows%
}
T
)
echo "$table"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
{
	echo
	echo "## $(date -u +%Y-%m-%d): loading a large native trace"
	echo
	echo "Machine: $(nproc) cores, $cpu, $mem. Command: \`make bench-load\` (bench/load.sh:"
	echo "NS=\"$NS\" RUNS=$RUNS${BASE:+ BASE=$BASE_LABEL}; each command pinned with \`taskset -c 0\`, timed by"
	echo "\`/usr/bin/time -f '%e %M %U %S'\`${BASE:+, alternating with the $BASE_LABEL build run by run};"
	echo "the trace from \`gen_trace FILE N\`, read from the page cache)."
	echo
	echo "$table"
} >>bench/RESULTS.md
