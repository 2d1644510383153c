#!/usr/bin/env bash
# demo.sh: the main job on a bundled example: profile examples/train_loop.c (a training loop
# annotated with NVTX) with no change to it, then show what the trace holds.
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
out=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-demo.XXXXXX")
set -x
"$BUILD/bin/gpuscope" profile -o "$out/demo" "$BUILD/examples/train_loop" 20
"$BUILD/bin/gpuscope" stats --report nvtx_sum "$out/demo.gst"
"$BUILD/bin/gpuscope" info "$out/demo.gst"
{ set +x; } 2>/dev/null
rm -rf "$out"
