#!/usr/bin/env bash
# bench/decode.sh: what recording costs LLM text generation at batch 1 (tests/gpu/decode_llm.py:
# a GPT-like decoder, a 128-token prompt, 96 tokens decoded greedily, 5 timed requests after a
# first one), in three forms: eager (each token's ~100 kernels launched from Python), graph
# (each token one CUDA graph replay) and hf (transformers' model.generate()). Processes of the
# variants run interleaved (none, gpuscope, torch.profiler, none, ...), REPS of each: none (no
# profiler), gpuscope (`gpuscope profile`, its defaults: CUDA, NVTX, CPU sampling) and torch
# (the timed requests under torch.profiler, CPU+CUDA). Each process prints its tokens per
# second over the timed requests; the table gives the median over processes (min..max), the
# time each variant adds per token against none, and gpuscope's added time over
# torch.profiler's. Prints the table last (copy it into bench/RESULTS.md with the machine).
#   usage: bench/decode.sh [BUILD_DIR]   (env: REPS=3 MODES="eager graph hf")
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/.." || exit 1
GS=$PWD/$BUILD/bin/gpuscope
REPS=${REPS:-3}
MODES=${MODES:-eager graph hf}
T=$(mktemp -d)
for r in $(seq 1 "$REPS"); do
	for m in $MODES; do
		tm=torch-$m
		[ "$m" = eager ] && tm=torch
		timeout 180 python3 tests/gpu/decode_llm.py "$m" 6 2>/dev/null | tail -1 >>"$T/none_$m"
		timeout 180 "$GS" profile -o "$T/gs_${m}_$r" -- python3 tests/gpu/decode_llm.py "$m" 6 \
			2>/dev/null | tail -1 >>"$T/gpuscope_$m"
		rm -f "$T"/gs_*.gst
		timeout 180 python3 tests/gpu/decode_llm.py "$tm" 6 2>/dev/null | tail -1 >>"$T/torch_$m"
	done
done
python3 - "$T" $MODES <<'PY'
import re, statistics, sys
d, modes = sys.argv[1], sys.argv[2:]
def rates(v, m):
    try:
        return [float(re.search(r"([0-9.]+) tokens/s", l).group(1)) for l in open("%s/%s_%s" % (d, v, m)) if "tokens/s" in l]
    except OSError:
        return []
print("%-6s %-9s %5s %22s %16s" % ("mode", "variant", "procs", "tokens/s med (min..max)", "added us/token"))
for m in modes:
    base = rates("none", m)
    if not base:
        print("%-6s no runs of none" % m)
        continue
    b = 1e6 / statistics.median(base)
    added = {}
    for v in ("none", "gpuscope", "torch"):
        r = rates(v, m)
        if not r:
            print("%-6s %-9s     0" % (m, v))
            continue
        med = statistics.median(r)
        added[v] = 1e6 / med - b
        print("%-6s %-9s %5d %9.1f (%.1f..%.1f) %16.1f" % (m, v, len(r), med, min(r), max(r), added[v]))
    if "gpuscope" in added and "torch" in added and added["torch"] > 0:
        print("%-6s gpuscope's added time / torch.profiler's: %.2f; added %% of a token: gpuscope %.1f%%, torch %.1f%%"
              % (m, added["gpuscope"] / added["torch"], 100 * added["gpuscope"] / b, 100 * added["torch"] / b))
PY
rm -rf "$T"
