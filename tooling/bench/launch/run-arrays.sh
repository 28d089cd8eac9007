#!/usr/bin/env bash
# Launch overhead with 0, 1, 4 and 16 array arguments and with three scalars of
# mixed types (kernels.mjs), side by side with the raw C loop and the Python
# anchors, in short interleaved batches (interleave.mjs), reported by report.mjs.
# Run from the repository root on the GPU host, in a built checkout (a packed
# one: source .device/setup.sh first), with nvcc and gcc on PATH:
#   bash tooling/bench/launch/run-arrays.sh [rounds] [launches per batch]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-10}
launches=${2:-20000}
nvcc_bin=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
work=$(mktemp -d)
node "$here/kernels.mjs" > "$work/kernels.cu"
"$nvcc_bin" -cubin -arch=sm_90 -o "$work/kernels.cubin" "$work/kernels.cu"
gcc -O2 -o "$work/raw-launch-arrays" "$here/raw-launch-arrays.c" -ldl
node "$here/interleave.mjs" "$work/raw-launch-arrays" "$work/kernels.cubin" "$work/kernels.cu" "$rounds" "$launches" "$work/results.json"
node "$here/report.mjs" "$work/results.json"
echo "samples: $work/results.json"
