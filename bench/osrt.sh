#!/usr/bin/env bash
# bench/osrt.sh: what --trace osrt adds to calls it wraps but does not record (shorter than
# the 1 us threshold): an uncontended mutex lock+unlock pair, a 0-byte pipe read, and
# fcntl(F_GETFD) and syscall(SYS_getppid), which the wrappers pass on unclocked.
# bench/osrt_calls.c times, in one process, the calls through the program's symbols (wrapped
# under the tool) against libc's own definitions (never wrapped), block against block; RUNS
# processes with no tool and under `gpuscope profile -t osrt --sample none`, alternating.
# Prints per kind the median over runs of each run's median: wrapped and direct ns per call,
# their difference with no tool and under osrt, and what osrt adds (the two differences apart).
# clock2: the direct read between two TSC reads, against the direct read (x86-64): the floor
# for a wrapper that times its call. A third process kind, the tool with its unwind-table
# thread started at once (GPUSCOPE_UNWIND_WARM=2; by default it waits for the program's second
# thread, and osrt_calls has one), gives each call's cost against the processes with no tool,
# without and with that thread.
#   usage: bench/osrt.sh [BUILD_DIR]     (env: RUNS=7 N=2000000 REPS=7)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$BUILD/bin/gpuscope
P=$BUILD/tests/programs
RUNS=${RUNS:-7} N=${N:-2000000} REPS=${REPS:-7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dif() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; } # b - a
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'; }
for _ in $(seq "$RUNS"); do
	"$P/osrt_calls" "$N" "$REPS" >>"$tmp/none"
	"$GS" profile -f -o "$tmp/o" -t osrt --sample none "$P/osrt_calls" "$N" "$REPS" 2>/dev/null >>"$tmp/with"
	GPUSCOPE_UNWIND_WARM=2 "$GS" profile -f -o "$tmp/o" -t osrt --sample none "$P/osrt_calls" "$N" "$REPS" 2>/dev/null >>"$tmp/thread"
done
for k in mutex read0 fcntl syscall; do
	read -r nw _ _ < <(awk -v k=$k '$1 == k { print $2 }' "$tmp/none" | med)
	read -r nd _ _ < <(awk -v k=$k '$1 == k { print $3 }' "$tmp/none" | med)
	read -r na nalo nahi < <(awk -v k=$k '$1 == k { print $4 }' "$tmp/none" | med)
	read -r ww _ _ < <(awk -v k=$k '$1 == k { print $2 }' "$tmp/with" | med)
	read -r wd _ _ < <(awk -v k=$k '$1 == k { print $3 }' "$tmp/with" | med)
	read -r wa walo wahi < <(awk -v k=$k '$1 == k { print $4 }' "$tmp/with" | med)
	printf '%-7s no tool %7.2f / %7.2f ns (wrapped-direct %+.2f [%.2f..%.2f])   osrt %7.2f / %7.2f ns (%+.2f [%.2f..%.2f])   osrt adds %+.2f ns\n' \
		"$k" "$nw" "$nd" "$na" "$nalo" "$nahi" "$ww" "$wd" "$wa" "$walo" "$wahi" \
		"$(dif "$na" "$wa")"
	# against the processes with no tool (separate processes): what the whole tool costs this
	# single-threaded program's call, and with the collector's unwind-table thread started at
	# once, whose presence turns glibc to its multi-threaded paths (bench/RESULTS.md,
	# 2026-12-06 sessions 15 and 16)
	read -r tw _ _ < <(awk -v k=$k '$1 == k { print $2 }' "$tmp/thread" | med)
	read -r td _ _ < <(awk -v k=$k '$1 == k { print $3 }' "$tmp/thread" | med)
	printf '%-7s against no tool: wrapped %+.2f ns, libc'"'"'s own %+.2f ns; with the collector'"'"'s thread at once (GPUSCOPE_UNWIND_WARM=2) %+.2f and %+.2f ns\n' \
		"$k" "$(dif "$nw" "$ww")" "$(dif "$nd" "$wd")" \
		"$(dif "$nw" "$tw")" "$(dif "$nd" "$td")"
done
# the call stacks of --osrt-backtrace-threshold: every 0-byte read recorded (--osrt-threshold
# 0), without stacks and with (--osrt-backtrace-threshold 0), alternating; the difference is
# what a call's walk and its frames in the record cost
for _ in $(seq "$RUNS"); do
	for bt in none 0; do
		"$GS" profile -f -o "$tmp/s" -t osrt --osrt-threshold 0 --osrt-backtrace-threshold $bt --sample none \
			"$P/osrt_calls" $((N / 10)) "$REPS" 2>/dev/null | awk '$1 == "read0" { print $4 }' >>"$tmp/bt_$bt"
	done
done
read -r sn snlo snhi < <(med <"$tmp/bt_none")
read -r s0 s0lo s0hi < <(med <"$tmp/bt_0")
frames=$("$GS" stats -r osrt_stack_sum --format csv "$tmp/s.gst" 2>/dev/null | awk -F, 'NR == 2 { print gsub(/ < /, "") + 1 }')
printf 'read0 recorded, no stack %+.2f ns [%.2f..%.2f]; with its stack (%s frames) %+.2f ns [%.2f..%.2f]; the stack adds %+.2f ns\n' \
	"$sn" "$snlo" "$snhi" "${frames:-?}" "$s0" "$s0lo" "$s0hi" "$(dif "$sn" "$s0")"
if grep -q '^clock2 ' "$tmp/none"; then
	read -r ca calo cahi < <(awk '$1 == "clock2" { print $4 }' "$tmp/none" | med)
	printf 'clock2 two TSC reads around the direct read (no tool): %+.2f ns [%.2f..%.2f]\n' "$ca" "$calo" "$cahi"
fi
