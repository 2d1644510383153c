#!/usr/bin/env bash
# bench/procstart.sh: what `gpuscope profile` (defaults: cuda,nvtx and CPU sampling, so every
# process of the session is preloaded and makes a ring) adds to each process a program starts,
# with the rings in memory (the default) and in their files (GPUSCOPE_RING_MEMORY=0), the
# session directory beside the output in DIR (default: the build directory: the disk of the
# checkout). Also bench/ringfault's first-store costs in DIR.
# Workloads, run by bash under each variant:
#   seq    100 times /bin/true, one after another
#   burst  5 times 64 /bin/true at once
#   pysub  Python's subprocess.run(["true"]) 100 times (a vfork child that execs, through
#          the PATH's directories)
# Variants, RUNS each, alternating: none (no profiler), memory, files. Prints per workload and
# variant the median wall time (min..max) over the runs, the ms each process added over none,
# and files / memory.
#   usage: bench/procstart.sh [BUILD_DIR] [DIR]     (env: RUNS=5)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
DIR=${2:-$BUILD}
GS=$PWD/$BUILD/bin/gpuscope
RUNS=${RUNS:-5}
tmp=$(mktemp -d "$DIR/gpuscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'; }
declare -A cmd=([seq]='for i in $(seq 100); do /bin/true; done'
	[burst]='for j in 1 2 3 4 5; do for i in $(seq 64); do /bin/true & done; wait; done'
	[pysub]='exec python3 -c "import subprocess
for _ in range(100): subprocess.run([\"true\"])"')
declare -A nproc=([seq]=100 [burst]=320 [pysub]=100)
for _ in $(seq "$RUNS"); do
	for w in seq burst pysub; do
		secs bash -c "${cmd[$w]}" >>"$tmp/$w.none"
		secs "$GS" profile -f -o "$tmp/o" bash -c "${cmd[$w]}" >>"$tmp/$w.memory"
		secs env GPUSCOPE_RING_MEMORY=0 "$GS" profile -f -o "$tmp/o" bash -c "${cmd[$w]}" >>"$tmp/$w.files"
	done
done
df -T "$DIR" | awk 'NR == 2 { print "directory of the session: file system " $2 }'
printf '%-6s %-24s %-24s %-24s %-10s %-10s %s\n' workload none memory files "memory, ms/process" "files, ms/process" "files / memory"
for w in seq burst pysub; do
	read -r n nlo nhi < <(med <"$tmp/$w.none")
	read -r m mlo mhi < <(med <"$tmp/$w.memory")
	read -r f flo fhi < <(med <"$tmp/$w.files")
	awk -v w="$w" -v n="$n" -v nlo="$nlo" -v nhi="$nhi" -v m="$m" -v mlo="$mlo" -v mhi="$mhi" \
		-v f="$f" -v flo="$flo" -v fhi="$fhi" -v k="${nproc[$w]}" 'BEGIN {
		printf "%-6s %.3f s (%.3f..%.3f)  %.3f s (%.3f..%.3f)  %.3f s (%.3f..%.3f)  %-10.2f %-10.2f %.2f\n",
			w, n, nlo, nhi, m, mlo, mhi, f, flo, fhi, (m - n) * 1000 / k, (f - n) * 1000 / k, (f - n) / (m - n) }'
done
"$BUILD/bench/ringfault" "$tmp" 7
