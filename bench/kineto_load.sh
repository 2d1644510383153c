#!/usr/bin/env bash
# bench/kineto_load.sh: how fast gpuscope reads a large PyTorch profiler trace, beside the
# first step of the tools users have today (Python's json.load, which HTA and TensorBoard's
# plugin start from). Builds a trace of SIZE_MB by repeating a real one's steps
# (bench/kineto_big.py), gzips a copy, then runs each command RUNS times, alternating, pinned
# to one core (taskset -c 0) under /usr/bin/time: wall and CPU seconds, MB/s of the
# uncompressed JSON, peak RSS against the file's size. Also `gzip -dc` (zlib) on the .gz: the
# floor for reading it. And, where their -dev packages are installed (libyajl-dev,
# libjansson-dev, libjson-c-dev), Debian's JSON libraries reading the same file and keeping
# nothing (bench/json_libs.c): what an importer built on one of them would start from. Prints
# a table and appends it, dated, to bench/RESULTS.md.
#   usage: bench/kineto_load.sh [BUILD_DIR]
#   env: SRC=tests/data/kineto/infer.pt.trace.json.gz (the real trace), SIZE_MB=1000, RUNS=3,
#        TMPDIR (where the traces go: SIZE_MB plus its gzip)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$PWD/$BUILD/bin/gpuscope
SRC=${SRC:-tests/data/kineto/infer.pt.trace.json.gz} SIZE_MB=${SIZE_MB:-1000} RUNS=${RUNS:-3}
[ -x "$GS" ] || { echo "kineto_load.sh: build first (make BUILD=$BUILD)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-kineto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
gen=$(python3 bench/kineto_big.py "$SRC" "$tmp/big.json" "$SIZE_MB")
gzip -1 -c "$tmp/big.json" >"$tmp/big.json.gz"
size=$(stat -c %s "$tmp/big.json")
zsize=$(stat -c %s "$tmp/big.json.gz")

med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
names=(gs gsgz zlib py)
labels=("\`gpuscope stats big.json\` (load + overview)" "\`gpuscope stats big.json.gz\`"
	"\`gzip -dc big.json.gz >/dev/null\` (zlib alone)"
	"\`python3 -c 'import json,sys; json.load(open(sys.argv[1]))' big.json\`")
for lib in yajl:YAJL:"yajl 2 (streaming, no-op callbacks)" jansson:JANSSON:"jansson (json_load_file: a tree)" \
	json-c:JSONC:"json-c (json_object_from_file: a tree)"; do
	IFS=: read -r l d text <<<"$lib"
	if cc -std=c17 -O2 -DWITH_"$d" -o "$tmp/json_$l" bench/json_libs.c -l"$l" 2>/dev/null; then
		names+=("$l")
		labels+=("$text, parse only: bench/json_libs.c")
	fi
done
run_one() {
	case $1 in
	gs) taskset -c 0 "$GS" stats "$tmp/big.json" ;;
	gsgz) taskset -c 0 "$GS" stats "$tmp/big.json.gz" ;;
	zlib) taskset -c 0 gzip -dc "$tmp/big.json.gz" ;;
	py) taskset -c 0 python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/big.json" ;;
	*) taskset -c 0 "$tmp/json_$1" "$tmp/big.json" ;;
	esac
}
for n in "${names[@]}"; do : >"$tmp/$n.wall"; : >"$tmp/$n.cpu"; : >"$tmp/$n.rss"; done
for _ in $(seq "$RUNS"); do
	for n in "${names[@]}"; do
		/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" bash -c "$(declare -f run_one); GS='$GS' tmp='$tmp' run_one $n" >/dev/null 2>"$tmp/err" ||
			{ echo "kineto_load.sh: $n failed: $(cat "$tmp/err")" >&2; exit 1; }
		read -r w k u s <"$tmp/time"
		echo "$w" >>"$tmp/$n.wall"
		awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f\n", u + s }' >>"$tmp/$n.cpu"
		echo "$k" >>"$tmp/$n.rss"
	done
done
rows=""
read -r py_med _ _ < <(med <"$tmp/py.wall")
for i in "${!names[@]}"; do
	n=${names[$i]}
	read -r w_med w_min w_max < <(med <"$tmp/$n.wall")
	read -r c_med c_min c_max < <(med <"$tmp/$n.cpu")
	read -r k_med _ _ < <(med <"$tmp/$n.rss")
	rows="$rows| ${labels[$i]} | $w_med s ($w_min..$w_max) | $c_med s ($c_min..$c_max) | $(awk -v b="$size" -v s="$w_med" 'BEGIN { printf "%.0f", b / s / 1e6 }') | $(awk -v b="$size" -v s="$c_med" 'BEGIN { printf "%.0f", b / s / 1e6 }') | $(awk -v k="$k_med" 'BEGIN { printf "%.0f MiB", k / 1024 }') ($(awk -v k="$k_med" -v b="$size" 'BEGIN { printf "%.2f", k * 1024 / b }')x the file) | $(awk -v a="$py_med" -v b="$w_med" 'BEGIN { printf "%.1fx", a / b }') |
"
done
table=$(cat <<T
| command (one core; the JSON is $(awk -v b="$size" 'BEGIN { printf "%.0f MB", b / 1e6 }'), its gzip $(awk -v b="$zsize" 'BEGIN { printf "%.0f MB", b / 1e6 }')) | wall: median (min..max) | CPU: median (min..max) | MB/s (wall) | MB/s (CPU) | peak RSS | faster than json.load (wall) |
|---|---|---|---|---|---|---|
${rows%
}
T
)
echo "$table"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
	echo
	echo "## $(date -u +%Y-%m-%d): reading a large PyTorch profiler trace"
	echo
	echo "Machine: $(nproc) cores, $cpu. Command: \`bench/kineto_load.sh\` (SRC=$SRC SIZE_MB=$SIZE_MB"
	echo "RUNS=$RUNS; $gen; each command pinned with \`taskset -c 0\`, the files read from the page cache)."
	echo
	echo "$table"
} >>bench/RESULTS.md
