#!/usr/bin/env bash
# bench/sample_clock.sh: what each sampling clock (--sampling-clock timer, the default, and perf)
# costs, in rounds that alternate the variants (no profiler; gpuscope --sample none; timer;
# perf), on two programs:
#  - build/bench/ctxswitch (bench/ctxswitch.c): two threads handing a byte back and forth
#    through pipes, ROUNDS round trips (two context switches each), pinned to one CPU
#    (taskset -c 0) so every switch is on that CPU; the added time per switch is the clock's;
#  - tests/programs/host_jit 40 TURNS: one thread on the CPU with a 40-deep stack (JIT frames),
#    for what the samples themselves cost at each clock's rate.
# Prints per program and variant the median (min..max) seconds of RUNS runs, the samples and
# sampling periods of the last run (info), and the added time per context switch or per sample.
#   usage: bench/sample_clock.sh [BUILD_DIR]   (env: RUNS=5 ROUNDS=100000 TURNS=40)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
RUNS=${RUNS:-5} ROUNDS=${ROUNDS:-100000} TURNS=${TURNS:-40}
GS=$PWD/$BUILD/bin/gpuscope CS=$PWD/$BUILD/bench/ctxswitch JIT=$PWD/$BUILD/tests/programs/host_jit
[ -x "$CS" ] && [ -x "$JIT" ] || { echo "sample_clock: build it first (make)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "sample_clock: needs taskset (util-linux)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run() { # VARIANT PROGRAM ARGS...: prints the program's seconds
	local v=$1
	shift
	case $v in
	none) "$@" ;;
	nosample) "$GS" profile -f -o "$T/run" -t nvtx --sample none "$@" 2>/dev/null ;;
	*) "$GS" profile -f -o "$T/run" -t nvtx --sampling-clock "$v" "$@" 2>/dev/null ;;
	esac | awk '/^seconds:/ { print $2 } /^[0-9]+ [0-9.]+$/ { print $2 }'
	if [ "$v" != none ] && [ "$v" != nosample ]; then
		"$GS" info "$T/run.gst" | sed -n 's/^  cpu samples *\([0-9,]*\) ([0-9]* Hz of CPU time, \([0-9,]*\) periods.*/\1 \2/p' | tr -d , >"$T/samples.$v.$prog"
	fi
}
for _ in $(seq "$RUNS"); do
	for v in none nosample timer perf; do
		prog=ctxswitch run "$v" taskset -c 0 "$CS" "$ROUNDS" >>"$T/ctxswitch.$v"
		prog=jit run "$v" "$JIT" 40 "$TURNS" >>"$T/jit.$v"
	done
done
echo "$(uname -r), $(nproc) CPUs, $RUNS runs a variant; ctxswitch: $ROUNDS round trips on CPU 0; host_jit: 40 frames, $TURNS turns"
python3 - "$T" "$ROUNDS" <<'PY'
import statistics, sys, os
d, rounds = sys.argv[1], int(sys.argv[2])
for prog, unit in (("ctxswitch", "per context switch"), ("jit", "per sample")):
    med = {}
    print("%s | seconds, median (min..max) | samples, periods | added time %s, over --sample none" % (prog, unit))
    for v in ("none", "nosample", "timer", "perf"):
        xs = [float(l) for l in open("%s/%s.%s" % (d, prog, v)) if l.strip()]
        med[v] = statistics.median(xs)
        sp = open("%s/samples.%s.%s" % (d, v, prog)).read().split() if os.path.exists("%s/samples.%s.%s" % (d, v, prog)) else []
        extra = ""
        if v in ("timer", "perf") and sp:
            n = int(sp[0])
            per = 2 * rounds if prog == "ctxswitch" else max(n, 1)
            extra = "%+.2f us" % ((med[v] - med["nosample"]) * 1e6 / per)
        print("%-9s | %.3f (%.3f..%.3f) | %s | %s" % (v, med[v], min(xs), max(xs), ", ".join(sp) if sp else "-", extra))
PY
