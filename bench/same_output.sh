#!/usr/bin/env bash
# bench/same_output.sh: check that a faster build prints exactly what an older one printed, for a
# change that must not change any output (the load path, the overview). For each trace it runs
# `info`, the overview (`stats`) in table, csv and json with no filter and with --time, --pid,
# --device and --step, and `stats -r` of several reports in csv, with both binaries, and
# compares stdout, stderr (the trace's path masked) and exit status. The traces: every native
# fixture in tests/data (*.gst, also in subfolders), synthetic ones of the sizes in NS
# (bench/gen_trace), each of those transcoded (gen_trace -t), and damaged copies of the small
# ones: cut at 30, 60, 90 and 97% of their length and with a byte bent at 10, 50 and 80%
# (every fifth fixture; info, the overview and one report run each).
#   usage: bench/same_output.sh OLD_GPUSCOPE [BUILD_DIR]
#   env: NS="1000000 20000000" (synthetic sizes; the first two at most are also damaged when
#        under 2000000 events), TMPDIR
# Prints one line per differing output and a count; exit 1 when any differs.
set -eu
OLD=$1
BUILD=${2:-build}
cd "$(dirname "$0")/.."
NEW=$BUILD/bin/gpuscope
GEN=$BUILD/bench/gen_trace
NS=${NS:-1000000 20000000}
[ -x "$OLD" ] && [ -x "$NEW" ] && [ -x "$GEN" ] || { echo "same_output.sh: needs $OLD, $NEW and $GEN" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-same.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t"

i=0
for f in $(find tests/data -name '*.gst' | sort); do
	i=$((i + 1))
	cp "$f" "$tmp/t/f$i.gst"
done
for n in $NS; do
	"$GEN" "$tmp/t/s$n.gst" "$n" >/dev/null
done
# transcoded copies (CUPTI_RAW chunks as CUDA chunks) of the fixtures that have some
for f in "$tmp"/t/f*.gst; do
	"$GEN" -t "$f" "${f%.gst}_t.gst" >/dev/null 2>&1 || rm -f "${f%.gst}_t.gst"
done
# damaged copies: of every fifth fixture (by name) and of the small synthetic traces
for f in $(ls "$tmp"/t/f*.gst | awk 'NR % 5 == 1') "$tmp"/t/s*.gst; do
	base=${f%.gst}
	size=$(stat -c %s "$f")
	[ "$size" -le 20000000 ] || continue
	for pct in 30 60 90 97; do
		head -c $((size * pct / 100)) "$f" >"${base}_cut$pct.gst"
	done
	for pct in 10 50 80; do
		off=$((size * pct / 100))
		cp "$f" "${base}_bent$pct.gst"
		byte=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
		printf "$(printf '\\%03o' $(((byte ^ 0x5A) & 255)))" |
			dd of="${base}_bent$pct.gst" bs=1 seek="$off" conv=notrunc status=none
	done
done

args=(
	"info"
	"stats" "stats -f csv" "stats -f json"
	"stats -f csv --time 0.5s:" "stats -f csv --time :1s" "stats -f json --time 10ms:2s"
	"stats -f csv --device 0" "stats -f csv --device 1" "stats -f csv --pid 4242"
	"stats -f csv --step ProfilerStep#1" "stats -f csv --step fwd" "stats -f csv --step nope"
	"stats -f json --step aten::scaled_dot_product_attention"
	"stats -f csv -r step_sum,gpu_util,cuda_gpu_kern_sum,nvtx_sum"
	"stats -f csv -r cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,stream_sum"
	"stats -f json -r launch_sum,memory_sum,nvtx_kern_sum"
)
outs=0 diffs=0
for f in "$tmp"/t/*.gst; do
	for a in "${args[@]}"; do
		# big traces and damaged copies: the overview and info alone, and damaged copies
		# one report run too (the reports load everything)
		case $f in
		*_cut* | *_bent*) [[ "$a" == info || "$a" == stats || "$a" == "stats -f json" || "$a" == *step_sum* ]] || continue ;;
		esac
		if [ "$(stat -c %s "$f")" -gt 20000000 ] && [[ "$a" == *-r* || "$a" == *--time* || "$a" == *--step* ]]; then
			continue
		fi
		for who in old new; do
			bin=$OLD
			[ "$who" = new ] && bin=$NEW
			# shellcheck disable=SC2086
			rc=0
			"$bin" $a "$f" >"$tmp/$who.out" 2>"$tmp/$who.err" || rc=$?
			echo "rc $rc" >>"$tmp/$who.out"
			sed -i "s|$bin|GPUSCOPE|g" "$tmp/$who.err"
		done
		outs=$((outs + 1))
		if ! cmp -s "$tmp/old.out" "$tmp/new.out" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
			diffs=$((diffs + 1))
			echo "differs: gpuscope $a $(basename "$f")"
		fi
	done
done
echo "same_output.sh: $(ls "$tmp"/t/*.gst | wc -l) traces, $outs outputs (stdout, stderr, exit status) compared, $diffs differ"
[ "$diffs" -eq 0 ]
