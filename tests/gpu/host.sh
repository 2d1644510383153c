#!/usr/bin/env bash
# tests/gpu/host.sh: the host checks that need the GPU machine's software or hardware rather
# than its GPU: Python frames named through CPython >= 3.12's perf map (CI has 3.11), OS
# runtime calls of a Python program, and the cost of wrapped calls under the osrt threshold on
# that host (bench/osrt.sh). Needs the tree built (make) and carried.
#   usage: tests/gpu/host.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GS=$BUILD/bin/gpuscope
T=$(mktemp -d)
echo "== host: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"

# a Python of 3.12 or later: python3 itself, or python3.12, python3.13, ...
PY=
for c in python3 python3.14 python3.13 python3.12; do
	if command -v "$c" >/dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
		PY=$c; break
	fi
done
echo "python with perf maps: ${PY:-none} $([ -n "$PY" ] && $PY -V 2>&1)"

if [ -n "$PY" ]; then
	echo "python frames (PYTHONPERFSUPPORT=1):"
	PYTHONPERFSUPPORT=1 $GS profile -o "$T/py" -t nvtx,osrt -- "$PY" tests/gpu/host_py.py 60 >/dev/null 2>"$T/py.err"
	eq "python: exit 0" 0 $?
	tail -1 "$T/py.err"
	eq "python: the perf map is in the trace" 1 "$($GS dump --format jsonl "$T/py.gst" | grep -c '"chunk":"perfmap"')"
	$GS stats -r cpu_sample_sum --format csv -o "$T/py.csv" "$T/py.gst"
	head -12 "$T/py.csv"
	grep ',py::' "$T/py.csv" | head -8
	# total samples (column 4) of each; their split is the work's 70/30 (the interpreter's
	# start-up and imports take the rest of the stacks)
	s=$(grep ',py::hot_python_seventy' "$T/py.csv" | head -1 | cut -d, -f4)
	t=$(grep ',py::hot_python_thirty' "$T/py.csv" | head -1 | cut -d, -f4)
	between "python: py::hot_python_seventy has samples" 20 100000 "${s:-0}"
	between "python: py::hot_python_thirty has samples" 8 100000 "${t:-0}"
	between "python: seventy / (seventy + thirty) ~70% (samples $s, $t)" 55 85 \
		"$(awk -v s="${s:-0}" -v t="${t:-0}" 'BEGIN { print (s + t > 0 ? 100 * s / (s + t) : 0) }')"
	$GS export -t folded -o "$T/py.folded" "$T/py.gst"
	has "python: folded stacks name the Python function" "py::hot_python_seventy" "$(cat "$T/py.folded")"
	n=$($GS dump --format jsonl "$T/py.gst" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if (e := json.loads(l)).get("event") == "osrt"
          and e["name"] == "clock_nanosleep" and e["dur"] >= 49000000))')
	eq "python: the four 50 ms sleeps (clock_nanosleep)" 4 "$n"
	# their stacks (--osrt-backtrace-threshold, 80 us): made from host_py.py's main, named
	# through the perf map
	$GS stats -r osrt_stack_sum --format csv -o "$T/pys.csv" "$T/py.gst"
	cut -c1-300 "$T/pys.csv" | head -4
	eq "python: the sleeps' stacks name main (host_py.py) above time_sleep" "4 True" "$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["Name"] == "clock_nanosleep" and float(r["Avg (ns)"]) >= 49e6]
print(sum(int(r["Num Calls"]) for r in rows), all("py::main:" in r["Stack"] and "host_py.py" in r["Stack"] for r in rows))' "$T/pys.csv")"
	has "python: analyze names the sleep's Python caller" "clock_nanosleep from main (host_py.py)" "$(COLUMNS=300 $GS analyze "$T/py.gst")"
	# gpuscope's own stack walk (cfi.c) against libunwind's, stack by stack, through the
	# perf trampolines (JIT code: stepped by frame pointer) and the interpreter
	GPUSCOPE_DEBUG=1 GPUSCOPE_UNWIND_CHECK=1 PYTHONPERFSUPPORT=1 $GS profile -o "$T/pyc" -t nvtx -- "$PY" tests/gpu/host_py.py 60 >/dev/null 2>"$T/pyc.err"
	grep -E 'sampling:|unwind check' "$T/pyc.err" | tail -4
	uwcheck_judge "python, unwind check" "$T/pyc.err"
else
	echo "  skip python frames: no Python 3.12 or later here"
fi

echo "osrt overhead under the threshold (bench/osrt.sh):"
RUNS=${RUNS:-5} bash bench/osrt.sh "$BUILD"
rm -rf "$T"
echo "host: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
