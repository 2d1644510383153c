#!/usr/bin/env bash
# tests/gpu/kmperm.sh: `--kernel-metrics` run by a user who may not read the GPU's counters.
# The driver restricts them to administrators unless the nvidia module was loaded with
# NVreg_RestrictProfilingToAdminUsers=0 (/proc/driver/nvidia/params: RmProfilingAdminOnly).
# Runs tests/gpu/programs/km_copy as the user nobody (setpriv), from a copy of the build that
# user can read, and checks what docs/gpuscope-profile.md promises: the program runs as without
# gpuscope, `gpuscope profile` warns before it starts, the collector says why in one line (kept
# in the trace, shown by `stats -r kernel_metrics`) and the timeline is recorded. Where the
# driver lets every user read the counters, it checks that nobody gets the metrics instead.
# Run as root on the GPU machine, the tree built and carried.
#   usage: tests/gpu/kmperm.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "kmperm: needs root and setpriv; skipped"
	exit 0
fi
W=$(mktemp -d)
chmod 755 "$W"
cp -r "$BUILD/bin" "$BUILD/lib" "$W/"
[ -d "$BUILD/devlib" ] && cp -r "$BUILD/devlib" "$W/"
nvcc -O2 -arch=sm_90 -o "$W/km_copy" tests/gpu/programs/km_copy.cu || exit 1
mkdir "$W/out"
chmod -R a+rX "$W"
chmod 777 "$W/out"
admin=$(sed -n 's/^RmProfilingAdminOnly: //p' /proc/driver/nvidia/params 2>/dev/null)
echo "RmProfilingAdminOnly: ${admin:-unknown}; /dev/nvidia*: $(stat -c '%a' /dev/nvidiactl 2>/dev/null)"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$W/out" \
	LD_LIBRARY_PATH="$W/devlib:${LD_LIBRARY_PATH:-}" "$@"; }
# the program alone, as nobody: the GPU must be usable by that user for the rest to mean anything
plain=$(cd "$W/out" && as_nobody "$W/km_copy" 64 2>&1)
if [ "$plain" != "km_copy: no error" ]; then
	echo "kmperm: km_copy does not run as nobody here ($plain); skipped"
	exit 0
fi
(cd "$W/out" && as_nobody "$W/bin/gpuscope" profile -o "$W/out/perm" --kernel-metrics \
	--kernel-count=2 -- "$W/km_copy" 64 >"$W/perm.out" 2>"$W/perm.err")
eq "kmperm: gpuscope profile exits as the program does" 0 $?
eq "kmperm: the program's output unchanged" "$plain" "$(cat "$W/perm.out")"
cat "$W/perm.err"
"$BUILD/bin/gpuscope" stats -r cuda_gpu_kern_sum --format csv -o "$W/kern.csv" "$W/out/perm.gst"
eq "kmperm: the timeline recorded (both kernels, 2 launches each)" "2 2" \
	"$(python3 -c 'import csv,sys; d={r["Name"]: r["Instances"] for r in csv.DictReader(open(sys.argv[1]))}; print(d.get("km_copy_coalesced"), d.get("km_copy_strided"))' "$W/kern.csv")"
km=$("$BUILD/bin/gpuscope" stats -r kernel_metrics "$W/out/perm.gst" 2>&1)
echo "$km" | tail -4
if [ "$admin" = 1 ]; then
	has "kmperm: profile warns before the program starts" "restricts GPU counters to administrators" "$(cat "$W/perm.err")"
	has "kmperm: the collector's line names ERR_NVGPUCTRPERM" "ERR_NVGPUCTRPERM" "$(cat "$W/perm.err")"
	has "kmperm: the reason is kept in the trace (stats -r kernel_metrics)" "ERR_NVGPUCTRPERM" "$km"
	eq "kmperm: no metrics measured" 0 "$(echo "$km" | grep -c 'km_copy_')"
else
	eq "kmperm: counters open to every user: no warning" 0 "$(grep -c 'restricts GPU counters' "$W/perm.err")"
	eq "kmperm: ... and nobody gets the metrics of the 2 launches measured" 2 "$(echo "$km" | grep -c 'km_copy_')"
fi
echo "kmperm: $PASS passed, $FAIL failed"
