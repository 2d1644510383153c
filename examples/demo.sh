#!/usr/bin/env bash
# demo.sh: the main job on bundled examples: profile examples/train_loop.c (a training loop
# annotated with NVTX) with no change to it and show what the trace holds; then the bottleneck
# doctor and the stats overview on a real GPU trace: a PyTorch training step with a DataLoader,
# recorded by torch.profiler on an H200 (tests/data/kineto/train.pt.trace.json.gz), which
# gpuscope reads as it is; and on examples/launch_bound.py as gpuscope recorded it on an H100,
# CPU samples included (tests/data/examples/launch_bound.gst).
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
out=$(mktemp -d "${TMPDIR:-/tmp}/gpuscope-demo.XXXXXX")
set -x
"$BUILD/bin/gpuscope" profile -o "$out/demo" "$BUILD/examples/train_loop" 20
"$BUILD/bin/gpuscope" stats --report nvtx_sum "$out/demo.gst"
"$BUILD/bin/gpuscope" info "$out/demo.gst"
"$BUILD/bin/gpuscope" analyze --step train_step --input-range wait_for_batch "$out/demo.gst"
"$BUILD/bin/gpuscope" stats tests/data/kineto/train.pt.trace.json.gz
"$BUILD/bin/gpuscope" analyze tests/data/kineto/train.pt.trace.json.gz
"$BUILD/bin/gpuscope" analyze --step step tests/data/examples/launch_bound.gst
{ set +x; } 2>/dev/null
rm -rf "$out"
