#!/usr/bin/env bash
# bench/stats_speed.sh: what `gpuscope stats -r REPORT` costs on a large native trace, in wall
# time and peak memory, against another build (the peer, measured in the same rounds). It
# writes a synthetic trace of N events with bench/gen_trace (or takes TRACE), checks once that
# both builds print the same bytes for every report and format (md5 of the output), then runs
# RUNS rounds, each report and format by the new build and right after by OLD's, under
# /usr/bin/time with the output to /dev/null. Prints a table (median (min..max) wall seconds,
# peak MiB, new/old of the medians) and appends it, dated, to bench/RESULTS.md.
#   usage: bench/stats_speed.sh OLD_BUILD_DIR [BUILD_DIR]
#   env: N=20000000, TRACE (an existing trace instead), RUNS=3,
#        REPORTS="cuda_gpu_trace cuda_api_trace cuda_kern_exec_trace nvtx_pushpop_trace
#        nvtx_gpu_proj_trace nvtx_sum", FORMATS="csv", TITLE (of the RESULTS.md section),
#        PEER (what OLD is, for the text: "db855e8"),
#        TMPDIR (the trace: about 6.5 B an event)
set -eu
OLD=${1:?usage: bench/stats_speed.sh OLD_BUILD_DIR [BUILD_DIR]}
BUILD=${2:-build}
cd "$(dirname "$0")/.."
NEWG=$BUILD/bin/gpuscope OLDG=$OLD/bin/gpuscope GEN=$BUILD/bench/gen_trace
N=${N:-20000000} RUNS=${RUNS:-3} FORMATS=${FORMATS:-csv}
REPORTS=${REPORTS:-cuda_gpu_trace cuda_api_trace cuda_kern_exec_trace nvtx_pushpop_trace nvtx_gpu_proj_trace nvtx_sum}
TITLE=${TITLE:-what stats reports cost on a large trace} PEER=${PEER:-the build in OLD}
[ -x "$NEWG" ] && [ -x "$OLDG" ] && [ -x "$GEN" ] || { echo "stats_speed.sh: needs $NEWG, $OLDG and $GEN" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "stats_speed.sh: needs /usr/bin/time" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-stats.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "${TRACE:-}" ]; then
	TRACE=$tmp/big.gst
	"$GEN" "$TRACE" "$N" >/dev/null
fi

med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }

same=0 differ=0
for r in $REPORTS; do
	for f in $FORMATS; do
		a=$("$NEWG" stats -r "$r" -f "$f" "$TRACE" 2>/dev/null | tee >(wc -l >"$tmp/$r.$f.lines") | md5sum)
		b=$("$OLDG" stats -r "$r" -f "$f" "$TRACE" 2>/dev/null | md5sum)
		if [ "$a" = "$b" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "stats_speed.sh: $r -f $f differs" >&2; fi
	done
done

for i in $(seq "$RUNS"); do
	for r in $REPORTS; do
		for f in $FORMATS; do
			for who in new old; do
				g=$NEWG; [ $who = old ] && g=$OLDG
				/usr/bin/time -f '%e %M' -o "$tmp/time" "$g" stats -r "$r" -f "$f" -o /dev/null "$TRACE" 2>/dev/null
				read -r w k <"$tmp/time"
				echo "$w" >>"$tmp/$r.$f.$who.wall"
				echo "$k" >>"$tmp/$r.$f.$who.rss"
			done
		done
	done
done

{
	echo "## $(date -u +%Y-%m-%d): $TITLE"
	echo
	echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB."
	echo "Trace: $(basename "$TRACE"), $(du -m "$TRACE" | cut -f1) MiB ($("$NEWG" info "$TRACE" 2>/dev/null |
		awk '/cuda kernels|nvtx ranges \(push/ { gsub(",", "", $NF); n += $NF } END { print n }') kernels and push/pop ranges)."
	echo "Command: \`RUNS=$RUNS FORMATS=\"$FORMATS\" bench/stats_speed.sh OLD $BUILD\`: each report by the new"
	echo "build, then by the peer ($PEER), $RUNS rounds,"
	echo "\`gpuscope stats -r REPORT -f FORMAT -o /dev/null\`."
	echo "Outputs: $same of $((same + differ)) the same bytes in both builds."
	echo
	echo "| report | format | lines out | new wall s | new peak MiB | peer wall s | peer peak MiB | new / peer |"
	echo "|---|---|---:|---|---:|---|---:|---:|"
	for r in $REPORTS; do
		for f in $FORMATS; do
			read -r nm nlo nhi < <(med <"$tmp/$r.$f.new.wall")
			read -r om olo ohi < <(med <"$tmp/$r.$f.old.wall")
			nk=$(med <"$tmp/$r.$f.new.rss" | awk '{ printf "%d", $1 / 1024 }')
			ok=$(med <"$tmp/$r.$f.old.rss" | awk '{ printf "%d", $1 / 1024 }')
			echo "| $r | $f | $(cat "$tmp/$r.$f.lines") | $nm ($nlo..$nhi) | $nk | $om ($olo..$ohi) | $ok | $(awk -v a="$nm" -v b="$om" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') |"
		done
	done
	echo
} | tee -a bench/RESULTS.md
[ "$differ" = 0 ]
