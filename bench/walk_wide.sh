#!/usr/bin/env bash
# bench/walk_wide.sh: what a CPU sample's stack walk costs when the stacks keep meeting return
# addresses the unwinder has not seen, in a library loaded after many others (as PyTorch's are):
# a generated library of 4000 functions that call each other 13 deep at random, each spinning a
# little, loaded after LIBS system libraries (0, 120, 400). Each program runs under `gpuscope
# profile` with GPUSCOPE_DEBUG=1 (the collector prints its walks' mean time), three ways,
# alternating, RUNS times: gpuscope's own walk (the default, src/collector/cfi.c), libunwind's
# with the collector's unwind thread (GPUSCOPE_UNWINDER=libunwind: unwind tables mapped ahead,
# its object look-ups answered from the thread's list) and libunwind's without the thread
# (GPUSCOPE_UNWIND_WARM=0 too); prints the median mean walk (and range) per case.
#   usage: bench/walk_wide.sh [BUILD_DIR]   (env: RUNS=3 CALLS=200000)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
GS=$PWD/$BUILD/bin/gpuscope
RUNS=${RUNS:-3} CALLS=${CALLS:-200000}
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-walk.XXXXXX")
trap 'rm -rf "$T"' EXIT
python3 - "$T/wide.c" <<'PY'
import sys
n = 4000
out = ["#include <stdint.h>", "volatile uint64_t sink;", "typedef uint64_t (*fn)(uint64_t, int);", "extern fn tab[];"]
for i in range(n):
    out.append("__attribute__((noinline)) uint64_t w%d(uint64_t x, int d) { for (int k = 0; k < 300; k++) x = x * %du + (x >> 9);"
               " if (d > 0) x += tab[(x >> 3) %% %du](x, d - 1); sink = x; return x + 1; }" % (i, 2 * i + 3, n))
out.append("fn tab[] = {" + ",".join("w%d" % i for i in range(n)) + "};")
out.append("uint64_t wide_run(uint64_t x, long c) { for (long i = 0; i < c; i++) x = tab[(x >> 5) %% %du](x, 12); return x; }" % n)
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
cat >"$T/main.c" <<'C'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[3], "r");
	char l[4096];
	while (f && fgets(l, sizeof(l), f)) {
		l[strcspn(l, "\n")] = 0;
		if (l[0])
			dlopen(l, RTLD_NOW | RTLD_LOCAL);
	}
	void *h = dlopen(argv[2], RTLD_NOW);
	uint64_t (*run)(uint64_t, long) = h ? (uint64_t(*)(uint64_t, long))(uintptr_t)dlsym(h, "wide_run") : NULL;
	return run ? (int)(run(1, atol(argv[1])) & 0) : 2;
}
C
cc -O2 -fPIC -shared -o "$T/libwide.so" "$T/wide.c"
cc -O2 -o "$T/main" "$T/main.c" -ldl
scripts/system_libs.sh >"$T/all"
for n in 0 120 400; do head -$n "$T/all" >"$T/libs$n"; done
for _ in $(seq "$RUNS"); do
	for n in 0 120 400; do
		for w in gpuscope libunwind nowarm; do
			case $w in
			gpuscope) env= ;;
			libunwind) env=GPUSCOPE_UNWINDER=libunwind ;;
			nowarm) env="GPUSCOPE_UNWINDER=libunwind GPUSCOPE_UNWIND_WARM=0" ;;
			esac
			env $env GPUSCOPE_DEBUG=1 "$GS" profile -f -o "$T/t" -t nvtx "$T/main" "$CALLS" "$T/libwide.so" "$T/libs$n" 2>&1 |
				sed -n 's/.*sampling: \([0-9]*\) stacks walked.*mean \([0-9.]*\) us.*/\2 \1/p' >>"$T/r.$n.$w"
		done
	done
done
echo "| libraries loaded before | gpuscope's walk: mean walk, median (min..max) | libunwind's, with the unwind thread | libunwind's, without it | walks per run |"
echo "|---|---|---|---|---|"
for n in 0 120 400; do
	row="| $(wc -l <"$T/libs$n") |"
	for w in gpuscope libunwind nowarm; do
		row="$row $(cut -d' ' -f1 "$T/r.$n.$w" | sort -g | awk '{ v[NR] = $1 } END { printf "%.1f us (%.1f..%.1f)", v[int((NR + 1) / 2)], v[1], v[NR] }') |"
	done
	echo "$row $(cut -d' ' -f2 "$T/r.$n.gpuscope" | sort -g | head -1) |"
done
