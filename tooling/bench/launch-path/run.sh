#!/usr/bin/env bash
# Where the time of a launch goes, in one run beside raw C (issue 23, step 1):
# an empty native call (the N-API crossing), the bindings' launch forms, core's
# launch, LaunchPlan.run and launchBatch, the native queue alone (the driver's
# own cost inside a Node process), the JIT's launch and batch, the raw C
# cuLaunchKernel loop (gcc) and, where python3 has them, cuda.core, CuPy and
# numba-cuda; interleaved in short batches, reported by report.mjs. With
# PERF=1, then the native profile of perf.sh (top symbols of core's launch,
# the launch function and the C loop).
# On the GPU host, from the repository root, in a built checkout:
#   source .device/setup.sh && tooling/bench/launch-path/run.sh [rounds] [launches per batch]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-10}
launches=${2:-20000}
command -v node >/dev/null || { echo "node is not on PATH (source .device/setup.sh first)" >&2; exit 1; }
nvcc_bin=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
work=$(mktemp -d "${TMPDIR:-/tmp}/launch-path.XXXXXX")
node "$here/../launch/kernels.mjs" > "$work/kernels.cu"
"$nvcc_bin" -cubin -arch="sm_${arch:-90}" -o "$work/kernels.cubin" "$work/kernels.cu"
gcc -O2 -o "$work/raw-launch-arrays" "$here/../launch/raw-launch-arrays.c" -ldl
node "$here/interleave.mjs" "$work/raw-launch-arrays" "$work/kernels.cubin" "$work/kernels.cu" "$rounds" "$launches" "$work/results.json"
node "$here/report.mjs" "$work/results.json"
echo "samples: $work/results.json"
if [ "${PERF:-0}" = 1 ]; then
  bash "$here/perf.sh" "$work"
fi
