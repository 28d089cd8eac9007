#!/usr/bin/env bash
# vectorize against numba-cuda's @vectorize(target='cuda') and CuPy's
# ElementwiseKernel (an add of 64M float32 on device arrays with a given out:
# GB/s counting 3 arrays, and call overhead on one element), and xoroshiro128+
# state creation for 10^6 states against numba-cuda, in one run.
# On the GPU host, from the repository root, with a built checkout:
#   source .device/setup.sh && tooling/bench/vectorize/run.sh
# Prints one JSON line per side (an {"error"} line where a side cannot run).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${VECTORIZE_N:-$((1 << 26))}
reps=${VECTORIZE_REPS:-20}
PYTHON=${PYTHON:-python3}
command -v node >/dev/null || { echo "node is not on PATH" >&2; exit 1; }
(cd "$here/../jit" && timeout 300 node "$here/vectorize.mjs" "$n" "$reps") || echo '{"side": "cuda-js", "error": "failed"}'
timeout 300 "$PYTHON" "$here/anchors.py" "$n" "$reps" || echo '{"side": "python", "error": "failed"}'
